/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* startable.h — what would make a policy's sandbox fail to start on this host,
 * known before it starts (startable.c), for `explain --host`.
 */
#ifndef OSB_REVIEW_STARTABLE_H
#define OSB_REVIEW_STARTABLE_H

#include "model.h"

#include <stddef.h>

/* The first reason P's sandbox cannot start on this host, into BUF (SIZE
 * bytes), naming the rule and its origin: a hide over something that is not
 * a directory, or a view without the dynamic loader of this host's
 * programs. Returns 1 with a reason, 0 without. */
int launch_problem(const review_policy *p, char *buf, size_t size);

#endif /* OSB_REVIEW_STARTABLE_H */

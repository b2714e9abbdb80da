/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* waiver.h — positions of lint findings and waiver comments (waiver.c).
 */
#ifndef OSB_REVIEW_WAIVER_H
#define OSB_REVIEW_WAIVER_H

#include "lint.h"

/* Give every finding of R its file:line:col (default rules point at the
 * top file's version line), apply the waiver comments of P's files, and
 * add W190/W191 findings for malformed and unused waivers. 0 or -ENOMEM. */
int lint_waivers(const review_policy *p, lint_report *r);

#endif /* OSB_REVIEW_WAIVER_H */

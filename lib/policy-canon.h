/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* policy-canon.h — the canonical effective policy (policy-canon.c).
 */
#ifndef OSB_POLICY_CANON_H
#define OSB_POLICY_CANON_H

#include "policy.h"

/* The canonical effective policy: the text osb_policy_hash digests and that
 * osb_policy_explain annotates. One rule a line in a fixed order, no
 * origins; it parses back to the same policy. ws_path (an input of the run,
 * not a rule) is not part of it. *OUT is malloc'd. Returns 0 or -ENOMEM. */
int policy_canonical(const osb_policy *p, char **out);

#endif /* OSB_POLICY_CANON_H */

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* policy-netallow.h — a caller narrows a policy's network allowlist
 * (policy-netallow.c): the C API, the CLI's --net-allow and a request's
 * "network_allow" go through these two calls.
 */
#ifndef OSB_POLICY_NETALLOW_H
#define OSB_POLICY_NETALLOW_H

#include "policy.h"

/* May a caller keep only ENTRIES (N of them) of P's network? Each must be
 * an entry (malformed: -USAGE_CODE) that an entry of P's "network allow"
 * covers, or P must have "network host" (an allowlist narrows the host
 * network); under "network none" nothing may be added. WHAT starts every
 * message. 0, or -OSB_E_*; P is not changed. */
int policy_check_net_allow(const osb_policy *p, const char *const *entries, size_t n,
                           const char *what, int usage_code, osb_error *err);

/* Once checked: P's allowlist becomes ENTRIES (origin api, canonical, each
 * once); none left is "network none". 0 or -OSB_E_NOMEM. */
int policy_set_net_allow(osb_policy *p, const char *const *entries, size_t n, osb_error *err);

#endif /* OSB_POLICY_NETALLOW_H */

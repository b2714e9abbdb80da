/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* netreview.h — what a reviewer should notice in a "network allow" entry
 * (netreview.c), for lint (W120, W121) and audit (A04). The entry is in its
 * canonical spelling, as the introspection API reports it.
 */
#ifndef OSB_REVIEW_NETREVIEW_H
#define OSB_REVIEW_NETREVIEW_H

#include <stdbool.h>

/* Does the address entry ENTRY lie within a loopback, link-local, private,
 * shared or metadata range (so that the proxy lets such addresses through)? */
bool rv_net_allow_internal(const char *entry);

/* Is ENTRY wide: a wildcard over a whole top-level domain ("*.com"), or an
 * address network of more than a /16 (IPv4) or a /32 (IPv6)? */
bool rv_net_allow_wide(const char *entry);

#endif /* OSB_REVIEW_NETREVIEW_H */

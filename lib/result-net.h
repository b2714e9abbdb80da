/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* result-net.h — what a run's filtering proxy saw, in the result
 * (result-net.c): the refused destinations with their counts, the allowed
 * connections, and the proxy's log, one JSON object a decision.
 */
#ifndef OSB_RESULT_NET_H
#define OSB_RESULT_NET_H

#include "result.h"
#include "netallow-proxy.h"

#include <json-c/json.h>

/* What the proxy of NP logged from byte FROM on goes into R (which then has
 * a "network" member), with the lines it dropped since its log's marker
 * counted DROPPED_FROM (netproxy_log_dropped). 0 or -ENOMEM. */
int result_set_network(osb_result *r, const netproxy *np, long from, long dropped_from);

/* R's "network" member, or NULL when R has none (no allowlist). */
json_object *result_net_json(const osb_result *r);

void result_net_free(osb_result *r);

#endif /* OSB_RESULT_NET_H */

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* explain.h — the effective policy and its launch plan, laid out for a
 * reviewer (explain.c).
 */
#ifndef OSB_REVIEW_EXPLAIN_H
#define OSB_REVIEW_EXPLAIN_H

#include "model.h"

/* The effective policy as JSON: name, hash, files, each rule with its
 * directive, arguments and origin, and, when HOST_JSON (what
 * osb_policy_host_plan returned) is non-NULL, the launch plan under
 * "host". malloc'd; NULL when out of memory. */
char *explain_render_json(const review_policy *p, const char *name, const char *host_json);
/* The text form: a header naming the policy and its hash, then
 * osb_policy_explain(). */
char *explain_render_text(const review_policy *p, const char *name);
/* The launch plan HOST_JSON of P as the text of explain --host. */
char *host_plan_render_text(const review_policy *p, const char *host_json);

#endif /* OSB_REVIEW_EXPLAIN_H */

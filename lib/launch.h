/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* launch.h — everything a launch does before bwrap starts (launch.c).
 *
 * One place for the order of the steps that touch the host, shared by
 * one-shot runs (run.c), sessions (session.c) and the host plan a reviewer
 * asks for: the policy's own refusals, the host's facts
 * (host.c), the capabilities gate (caps.c), the identity mode, the
 * sandbox's host ids (hostid.c, a lock for a root caller), then the plan
 * (plan.c).
 */
#ifndef OSB_LAUNCH_H
#define OSB_LAUNCH_H

#include "plan.h"

/* Prepare the plan of P for request RQ. Returns 0 with *OUT to be freed
 * with plan_free(), or -OSB_E_* with ERR filled and *OUT empty (plan_clear:
 * nothing to free). */
int launch_prepare(const osb_policy *p, const plan_request *rq, plan *out, osb_error *err);

/* The ids and the plan, once the host's facts are in and the identity mode
 * is decided: the plan is made with the ids asked about ahead in ASK (from
 * hostid_ask_start, or nothing asked) and kept only when their answer is
 * that no account uses them; else it is made again with ids the walk looks
 * up first. Returns as launch_prepare; ASK is answered (hostid_ask_end
 * still to be called). */
int launch_plan_asked(const osb_policy *p, const host_facts *h, const plan_request *rq,
                      hostid_ask *ask, plan *out, osb_error *err);

#endif /* OSB_LAUNCH_H */

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* launch.c — the steps of a launch before bwrap starts (launch.h).
 *
 * The order is the order of the refusals a caller meets: a policy that asks
 * for uid 0 is refused before the host is looked at; a host that lacks what
 * the policy needs is refused with the capabilities probe's reason and
 * remedy before any id is taken or path opened; the identity mode is
 * decided (host_mode) before host ids are acquired for it; the plan, which
 * probes nothing, comes next; last, the sandbox's cgroup (sandbox-limits.c), when the
 * policy asks for kernel-enforced limits, so that nothing is left in the
 * host's cgroups by a launch refused earlier.
 *
 * A root caller's allocated ids are asked about ahead (hostid.h,
 * hostid_ask): their account lookups (0.4 ms on Debian 12, where the name
 * service loads libnss_systemd for an unknown id) run in a child from the
 * start, beside the host's facts and the plan, and the plan stands only
 * once they answer that no account uses the ids. The refusals keep their
 * order: the ask's candidate is locked from the start, but the ask reports
 * nothing of its own until the ids are due, and a launch refused before
 * then kills its child and gives the lock back.
 */
#include "launch.h"
#include "caps.h"

int launch_plan_asked(const osb_policy *p, const host_facts *h, const plan_request *rq,
                      hostid_ask *ask, plan *out, osb_error *err)
{
	hostid ids = HOSTID_INIT;
	int r, used;

	if ((r = hostid_acquire_asked(p, h->euid, h->egid, rq->session, ask, &ids, err)) == 0)
		r = plan_build(p, h, &ids, rq, out, err);
	hostid_release(&ids);
	/* Whatever the plan's outcome, it was made with the asked ids: the
	 * answer comes first (a refusal naming ids an account uses would
	 * mislead too). */
	if ((used = hostid_ask_answer(ask, err)) == 0)
		return r;
	if (r == 0)
		plan_free(out);
	if (used < 0)
		return used;
	/* An account or a group uses them: plan again with ids the walk
	 * looks up before it hands them out. */
	if ((r = hostid_acquire_asked(p, h->euid, h->egid, rq->session, ask, &ids, err)) == 0)
		r = plan_build(p, h, &ids, rq, out, err);
	hostid_release(&ids);
	return r;
}

int launch_prepare(const osb_policy *p, const plan_request *rq, plan *out, osb_error *err)
{
	hostid_ask ask;
	host_facts h;
	bool userns;
	int r;

	/* Empty from the start: a refusal before plan_build leaves nothing
	 * that plan_free would mistake for fds or a proxy of its own. */
	plan_clear(out);
	if ((r = plan_check_policy(p, err)) < 0)
		return r;
	hostid_ask_start(p, geteuid(), &ask);
	if ((r = host_facts_now(&h, NULL, err)) < 0) {
		hostid_ask_end(&ask);
		return r;
	}
	if ((r = caps_check_policy(p, &h, err)) == 0 &&
	    (r = plan_mode(p, &h, &userns, err)) == 0)
		r = launch_plan_asked(p, &h, rq, &ask, out, err);
	hostid_ask_end(&ask);
	if (r == 0 && (r = limits_prepare(p, &out->lim, err)) < 0)
		plan_free(out);
	/* A root caller's proxy runs as the sandbox's own host ids. */
	if (r == 0 && p->net == NET_ALLOW &&
	    (r = netproxy_start(p, &h, h.euid == 0 ? &(spawn_cred){ out->host.uid, out->host.gid }
	                                           : NULL, &out->net, err)) < 0)
		plan_free(out);
	host_facts_free(&h);
	return r;
}

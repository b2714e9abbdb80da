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
 */
#include "launch.h"
#include "caps.h"

int launch_prepare(const osb_policy *p, const plan_request *rq, plan *out, osb_error *err)
{
	hostid ids = HOSTID_INIT;
	host_facts h;
	bool userns;
	int r;

	/* Empty from the start: a refusal before plan_build leaves nothing
	 * that plan_free would mistake for fds or a proxy of its own. */
	plan_clear(out);
	if ((r = plan_check_policy(p, err)) < 0 || (r = host_facts_now(&h, NULL, err)) < 0)
		return r;
	if ((r = caps_check_policy(p, &h, err)) == 0 &&
	    (r = plan_mode(p, &h, &userns, err)) == 0 &&
	    (r = hostid_acquire(p, h.euid, h.egid, rq->session, &ids, err)) == 0)
		r = plan_build(p, &h, &ids, rq, out, err);
	if (r == 0 && (r = limits_prepare(p, &out->lim, err)) < 0)
		plan_free(out);
	/* A root caller's proxy runs as the sandbox's own host ids. */
	if (r == 0 && p->net == NET_ALLOW &&
	    (r = netproxy_start(p, &h, h.euid == 0 ? &(spawn_cred){ out->host.uid, out->host.gid }
	                                           : NULL, &out->net, err)) < 0)
		plan_free(out);
	hostid_release(&ids);
	host_facts_free(&h);
	return r;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* run.c — one-shot runs: prepare (launch.c) ▸ spawn and supervise
 * (supervise.c) ▸ result.
 */
#include "exec.h"
#include "launch.h"
#include "outcome.h"
#include "supervise.h"
#include "result-net.h"

int osb_run(const osb_policy *p, const osb_exec *e, osb_result **out, osb_error *err)
{
	osb_result *res;
	plan pl;
	int r;
	uint64_t start = now_ms(), lim;
	char wall_origin[POLICY_ORIGIN_MAX];

	osb_err_clear(err);
	if (out)
		*out = NULL;
	res = result_new();
	if (!res)
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "result", "out of memory");
	res->t.ns[TS_START] = now_ns();
	if (!p || !e) {
		r = osb_err_set(&res->error, OSB_E_USAGE, EINVAL, "usage",
		                "osb_run needs a policy and an exec");
		goto done;
	}
	if (e->stdin_pipe) {
		r = osb_err_set(&res->error, OSB_E_USAGE, EINVAL, "usage",
		                "osb_exec_set_stdin_pipe needs osb_session_spawn, which returns the "
		                "pipe; give osb_run an fd with osb_exec_set_stdin_fd");
		goto done;
	}
	if ((r = exec_check_direct(e, &res->error)) < 0 ||
	    (r = exec_check_session_only(e, &res->error)) < 0)
		goto done;
	policy_wall_origin(p, wall_origin, sizeof(wall_origin));
	if ((r = exec_check_timeout(policy_wall_ms(p), wall_origin, e, &res->error)) < 0)
		goto done;
	lim = exec_output_limit(policy_output_limit(p), e);
	osb_policy_hash(p, res->policy_hash);
	res->ws_mode = policy_ws_names[p->ws_mode];
	r = launch_prepare(p, &(plan_request){ e->env_set ? (const char *const *)e->env.v : NULL,
	                                       e->cwd, false, exec_wall_ms(policy_wall_ms(p), e) },
	                   &pl, &res->error);
	if (r < 0)
		goto done;
	res->mode = strdup(pl.userns ? "userns" : "root");
	result_set_host_ids(res, pl.host.uid, pl.host.gid, hostid_kind_name(pl.host.kind));
	if (result_set_protected(res, &pl) < 0) {
		r = osb_err_set(&res->error, OSB_E_NOMEM, ENOMEM, "plan", "out of memory");
		goto done;
	}
	r = supervise_run(&pl, e, lim, res);
	/* A proxy that died while the command ran left it without a network:
	 * the result says so rather than leave a bare connection error. */
	if (r == 0)
		r = netproxy_check(&pl.net, true, false, &res->error);
	/* The proxy's decisions, once it is gone (result-net.c). */
	netproxy_stop(&pl.net);
	if (pl.net.port && result_set_network(res, &pl.net, 0, 0) < 0 && r == 0)
		r = osb_err_set(&res->error, OSB_E_NOMEM, ENOMEM, "result", "out of memory");
	plan_free(&pl);
done:
	return outcome_finish(res, start, r, out, err);
}

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* run.c — one-shot runs: prepare (launch.c) ▸ spawn and supervise
 * (supervise.c) ▸ result.
 */
#include "exec.h"
#include "launch.h"
#include "supervise.h"

/* What to do next, in one line, for the failures people meet most. */
static const char *hint_for(const osb_result *res)
{
	osb_stage stage = (osb_stage)res->error.stage_id;

	if (res->timed_out)
		return "the wall limit expired: raise the policy's \"limit wall\" if the command "
		       "needs longer";
	if (!res->has_error)
		return NULL;
	if (stage == OSB_STAGE_EXEC && res->error.sys_errno == ENOENT)
		return "the command is looked up on the sandbox's PATH: give its absolute path, "
		       "or check the policy's env rules and binds";
	if (stage == OSB_STAGE_EXEC)
		return "the file exists but cannot be executed in the sandbox: check its mode "
		       "and its interpreter line";
	if (stage == OSB_STAGE_PROBE || stage == OSB_STAGE_BWRAP)
		return "run 'osb-isolate capabilities' to see what this host supports and why";
	if (stage == OSB_STAGE_POLICY || stage == OSB_STAGE_PLAN ||
	    stage == OSB_STAGE_IDENTITY)
		return "run 'osb-isolate check POLICY' and 'osb-isolate explain POLICY'";
	if (stage == OSB_STAGE_WORKSPACE || stage == OSB_STAGE_PATHS)
		return "pass --workspace DIR with a project directory you own";
	return NULL;
}

int osb_run(const osb_policy *p, const osb_exec *e, osb_result **out, osb_error *err)
{
	osb_result *res;
	plan pl;
	int r;
	uint64_t start = now_ms(), lim;

	osb_err_clear(err);
	if (out)
		*out = NULL;
	res = result_new();
	if (!res)
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "result", "out of memory");
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
	if ((r = exec_check_direct(e, &res->error)) < 0)
		goto done;
	lim = exec_output_limit(policy_output_limit(p), e);
	osb_policy_hash(p, res->policy_hash);
	r = launch_prepare(p, &(plan_request){ e->env_set ? (const char *const *)e->env.v : NULL,
	                                       e->cwd, false }, &pl, &res->error);
	if (r < 0)
		goto done;
	res->mode = strdup(pl.userns ? "userns" : "root");
	result_set_host_ids(res, pl.host.uid, pl.host.gid, hostid_kind_name(pl.host.kind));
	r = supervise_run(&pl, e, lim, res);
	plan_free(&pl);
done:
	res->duration_ms = now_ms() - start;
	if (r < 0)
		res->has_error = true;
	if (hint_for(res))
		res->hint = strdup(hint_for(res));
	if (res->has_error) {
		if (err)
			*err = res->error;
		r = -(res->error.code ? res->error.code : OSB_E_INTERNAL);
	}
	if (out)
		*out = res;
	else
		osb_result_free(res);
	return r;
}

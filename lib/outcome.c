/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* outcome.c — how every result ends (outcome.h): one-shot runs and session
 * commands share it, so the same event is reported the same way in both
 * (a session's timeout once read as signal 9 with no hint).
 */
#include "outcome.h"
#include "proc.h"

/* What to do next, in one line, for the failures people meet most. */
static const char *hint_for(const osb_result *res)
{
	osb_stage stage = (osb_stage)res->error.stage_id;

	if (res->timed_out)
		return "the wall limit expired: raise the policy's \"limit wall\" if the command "
		       "needs longer";
	if (osb_result_oom_killed(res) == 1)
		return "the sandbox reached its \"limit memory\" and the OOM killer killed in it: "
		       "raise the limit if the command needs more";
	if (osb_result_pids_limited(res) == 1 && !res->has_error)
		return "a fork failed at the policy's \"limit pids\": raise it if the command needs "
		       "more processes or threads";
	if (osb_result_tmpfs_full_count(res) > 0 && !res->has_error && !osb_result_ok(res))
		return "a size-bounded tmpfs was full when the command ended (tmpfs_full): raise "
		       "its \"size=\" in the policy if the command needs more room";
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

int outcome_finish(osb_result *res, uint64_t start_ms, int r, osb_result **out, osb_error *err)
{
	res->duration_ms = now_ms() - start_ms;
	res->t.ns[TS_END] = now_ns();
	if (r < 0)
		res->has_error = true;
	/* A timeout is ours: the SIGKILL that ended the command is not its own
	 * death by signal (osb-isolate(1), RESULT). */
	if (res->timed_out)
		res->signal = 0;
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

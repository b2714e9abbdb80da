/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* exec.c — what to run and how (struct osb_exec), and the limits that
 * apply to it.
 *
 * An exec is filled by the osb_exec_* setters and read by a one-shot run
 * (run.c) and a session (session.c) alike. Its limits may only lower the
 * policy's: the output kept is the smaller of the two, and a timeout above
 * the wall limit is refused rather than quietly lowered.
 */
#include "exec.h"

osb_exec *osb_exec_new(const char *const *argv, osb_error *err)
{
	osb_exec *e;

	osb_err_clear(err);
	if (!argv || !argv[0] || !argv[0][0]) {
		osb_err_set(err, OSB_E_USAGE, EINVAL, "usage", "no command given");
		return NULL;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		goto nomem;
	e->stdin_fd = e->stdout_fd = e->stderr_fd = e->cancel_fd = -1;
	for (size_t i = 0; argv[i]; i++)
		if (strv_push(&e->argv, argv[i]) < 0)
			goto nomem;
	return e;
nomem:
	osb_exec_free(e);
	osb_err_set(err, OSB_E_NOMEM, ENOMEM, "usage", "out of memory");
	return NULL;
}

void osb_exec_free(osb_exec *e)
{
	if (!e)
		return;
	strv_free(&e->argv);
	strv_free(&e->env);
	free(e->cwd);
	free(e->script);
	free(e);
}

/* Each setter answers a NULL exec (the caller's bug) with -OSB_E_USAGE,
 * never a crash (libosb-isolate(3), "Conventions"). */
int osb_exec_set_stdin_fd(osb_exec *e, int fd)
{
	if (!e)
		return -OSB_E_USAGE;
	e->stdin_fd = fd;
	return 0;
}

int osb_exec_set_stdout_fd(osb_exec *e, int fd)
{
	if (!e)
		return -OSB_E_USAGE;
	e->stdout_fd = fd;
	return 0;
}

int osb_exec_set_stderr_fd(osb_exec *e, int fd)
{
	if (!e)
		return -OSB_E_USAGE;
	e->stderr_fd = fd;
	return 0;
}

int osb_exec_set_capture(osb_exec *e, int on)
{
	if (!e)
		return -OSB_E_USAGE;
	e->capture = on != 0;
	return 0;
}

int osb_exec_set_timeout_ms(osb_exec *e, uint64_t ms)
{
	if (!e)
		return -OSB_E_USAGE;
	e->timeout_ms = ms;
	return 0;
}

int osb_exec_set_output_limit(osb_exec *e, uint64_t bytes)
{
	if (!e)
		return -OSB_E_USAGE;
	e->output_limit = bytes;
	return 0;
}

int osb_exec_set_stdin_pipe(osb_exec *e, int on)
{
	if (!e)
		return -OSB_E_USAGE;
	e->stdin_pipe = on != 0;
	return 0;
}

int osb_exec_set_cancel_fd(osb_exec *e, int fd)
{
	if (!e)
		return -OSB_E_USAGE;
	e->cancel_fd = fd;
	return 0;
}

int osb_exec_set_output_direct(osb_exec *e, int which, int on)
{
	if (!e || (which != 1 && which != 2))
		return -OSB_E_USAGE;
	e->direct[which - 1] = on != 0;
	return 0;
}

int exec_check_direct(const osb_exec *e, osb_error *err)
{
	if ((e->direct[0] && e->stdout_fd < 0) || (e->direct[1] && e->stderr_fd < 0))
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "usage",
		                   "osb_exec_set_output_direct needs the fd of "
		                   "osb_exec_set_stdout_fd/_stderr_fd to hand over");
	return 0;
}

uint64_t policy_wall_ms(const osb_policy *p)
{
	return p->limit_set[LIM_WALL].set ? p->limits[LIM_WALL] : 0;
}

uint64_t policy_output_limit(const osb_policy *p)
{
	return p->limit_set[LIM_OUTPUT].set ? p->limits[LIM_OUTPUT] : 1u << 20;
}

void policy_wall_origin(const osb_policy *p, char *buf, size_t size)
{
	if (p->limit_set[LIM_WALL].set)
		policy_origin_format(&p->limit_set[LIM_WALL].o, buf, size);
	else
		snprintf(buf, size, "default");
}

int exec_check_timeout(uint64_t policy_wall, const char *wall_origin, const osb_exec *e,
                       osb_error *err)
{
	char want[32], have[32];

	if (!policy_wall || e->timeout_ms <= policy_wall)
		return 0;
	policy_format_limit(LIM_WALL, e->timeout_ms, want, sizeof(want));
	policy_format_limit(LIM_WALL, policy_wall, have, sizeof(have));
	return osb_err_set(err, OSB_E_POLICY, EPERM, "policy",
	                   "timeout %s would raise the policy's \"limit wall %s\" (%s); a "
	                   "command's timeout may only lower the wall limit", want, have, wall_origin);
}

uint64_t exec_wall_ms(uint64_t policy_wall, const osb_exec *e)
{
	if (e->timeout_ms && (!policy_wall || e->timeout_ms < policy_wall))
		return e->timeout_ms;
	return policy_wall;
}

uint64_t exec_output_limit(uint64_t policy_limit, const osb_exec *e)
{
	return e->output_limit && e->output_limit < policy_limit ? e->output_limit : policy_limit;
}

int osb_exec_set_env(osb_exec *e, const char *const *envp)
{
	if (!e)
		return -OSB_E_USAGE;
	strv_free(&e->env);
	e->env_set = true;
	for (size_t i = 0; envp && envp[i]; i++)
		if (strv_push(&e->env, envp[i]) < 0)
			return -OSB_E_NOMEM;
	return 0;
}

int osb_exec_set_cwd(osb_exec *e, const char *cwd)
{
	char *c;

	if (!e)
		return -OSB_E_USAGE;
	c = cwd ? strdup(cwd) : NULL;
	if (cwd && !c)
		return -OSB_E_NOMEM;
	free(e->cwd);
	e->cwd = c;
	return 0;
}


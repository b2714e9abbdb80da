/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* exec.h — what to run and how (exec.c), for runs and sessions.
 */
#ifndef OSB_EXEC_H
#define OSB_EXEC_H

#include "policy.h"

/* What to run and how; filled by the osb_exec_* setters. */
struct osb_exec {
	strv argv;
	strv env;
	bool env_set;
	int stdin_fd, stdout_fd, stderr_fd;   /* -1: not given */
	bool direct[2];           /* stdout_fd/stderr_fd go to the command itself */
	bool capture;
	char *cwd;
	uint64_t timeout_ms;      /* 0: the policy's wall limit only */
	uint64_t output_limit;    /* 0: the policy's output limit only */
	bool stdin_pipe;          /* osb_session_spawn: stdin is a pipe */
	int cancel_fd;            /* osb_session_run: kill when readable; -1 */
	/* Session commands only (exec-session.c). */
	bool keep_services;       /* its process group outlives its leader */
	char *script;             /* run by argv from a memfd; NULL: none */
	size_t script_len;
};

/* The policy's limits (0: no wall limit; 1 MiB when no output limit is set)
 * and the effective ones of an exec, which may only lower them. */
uint64_t policy_wall_ms(const osb_policy *p);
uint64_t policy_output_limit(const osb_policy *p);
uint64_t exec_wall_ms(uint64_t policy_wall, const osb_exec *e);
uint64_t exec_output_limit(uint64_t policy_limit, const osb_exec *e);
/* OSB_E_USAGE when a stream is to be handed over without an fd. */
int exec_check_direct(const osb_exec *e, osb_error *err);
/* The wall limit's origin ("file:line", "api", "default") in BUF of
 * POLICY_ORIGIN_MAX bytes. */
void policy_wall_origin(const osb_policy *p, char *buf, size_t size);
/* OSB_E_POLICY when the exec's timeout is above the policy's wall limit
 * POLICY_WALL (from WALL_ORIGIN): a silent cap would let the caller believe
 * it got the time it asked for. */
int exec_check_timeout(uint64_t policy_wall, const char *wall_origin, const osb_exec *e,
                       osb_error *err);

/* OSB_E_USAGE for what only a session command can do (exec-session.c). */
int exec_check_session_only(const osb_exec *e, osb_error *err);

#endif /* OSB_EXEC_H */

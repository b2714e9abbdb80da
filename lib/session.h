/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* session.h — internals shared by one-shot runs (run.c) and sessions
 * (session.c).
 *
 * Both start bwrap from the same launch plan and supervise it the same way;
 * both report through the same result record. run.c owns the exec request,
 * the output streams and the bwrap launch; session.c adds the broker
 * protocol on top. A session sandbox is a one-shot sandbox whose init was
 * told to serve (lib/init-proto.h, "Session mode") instead of exec'ing.
 */
#ifndef OSB_SESSION_H
#define OSB_SESSION_H

#include "bwrap.h"
#include "result-internal.h"

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
};

/* The policy's limits (0: no wall limit; 1 MiB when no output limit is set)
 * and the effective ones of an exec, which may only lower them. */
uint64_t policy_wall_ms(const osb_policy *p);
uint64_t policy_output_limit(const osb_policy *p);
uint64_t exec_wall_ms(uint64_t policy_wall, const osb_exec *e);
uint64_t exec_output_limit(uint64_t policy_limit, const osb_exec *e);
/* OSB_E_USAGE when a stream is to be handed over without an fd. */
int exec_check_direct(const osb_exec *e, osb_error *err);

/* Read once from *FD (non-blocking), copy to SINK (-1: none) and keep the
 * bytes in CAP. At EOF or on a read error *FD is closed and set to -1; so
 * it is when a write to SINK fails (CAP->sink_errno keeps why): the command
 * then meets EPIPE (SIGPIPE) at its next write, as it would writing to the
 * broken sink itself. Returns 0 or -ENOMEM. */
int stream_read(int *fd, int sink, capture *cap);
/* Byte counts into RES always; the clipped bytes when CAPTURE_ON. A copy
 * that failed other than with EPIPE (a broken pipe is the command's to
 * meet, as on the host) becomes RES's error (OSB_E_IO, stage "output")
 * unless RES has one already. */
int output_take(capture cap[2], bool capture_on, osb_result *res);

/* A running session sandbox: bwrap with the init serving on a socket. */
typedef struct sandbox sandbox;

/* Start bwrap for PL with ARGV (the session form of the plan's argv).
 * SESSION_FD becomes fd plan_next_fd(pl) in bwrap. Waits until
 * the init reports ready (or fails, or TIMEOUT_MS pass: then everything is
 * killed and reaped and ERR says why). */
int sandbox_start(const plan *pl, const strv *argv, int session_fd, uint64_t timeout_ms,
                  sandbox **out, osb_error *err);
/* bwrap's pidfd: readable once the sandbox has ended. */
int sandbox_fd(const sandbox *sb);
/* The init's exit status once the sandbox has ended (bwrap's json status),
 * else -1. */
int sandbox_exit_code(sandbox *sb);
/* SIGKILL the sandbox's pid 1 and bwrap, wait until pid 1 (and with it the
 * whole pid namespace) is gone, reap bwrap. Idempotent. */
void sandbox_stop(sandbox *sb);
void sandbox_free(sandbox *sb);

#endif

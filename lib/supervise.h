/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* supervise.h — bwrap started from a launch plan and watched (supervise.c),
 * for one-shot runs and session sandboxes alike.
 *
 * A session sandbox is a one-shot sandbox whose init was told to serve
 * (lib/init-proto.h, "Session mode") instead of exec'ing: the same launch,
 * the same channels, the same check of the init's host ids.
 */
#ifndef OSB_SUPERVISE_H
#define OSB_SUPERVISE_H

#include "exec.h"
#include "plan.h"
#include "result.h"

/* Run E in the sandbox of PL and wait until it has ended: bwrap is
 * spawned with the plan's fds, the command's output is copied to E's fds
 * and kept (at most LIMIT bytes a stream) when E asks for capture, and RES
 * gets how the command ended (or why it never ran: its error). Returns 0,
 * or -OSB_E_* when bwrap could not be started or supervised (RES->error
 * says why). */
int supervise_run(const plan *pl, const osb_exec *e, uint64_t limit, osb_result *res);

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

/* The error of a bwrap that failed before the init said anything, from
 * DIAG, its stderr (trimmed; NULL or "": it said nothing), and its wait
 * status. Exposed for tests (tests/unit/check_supervise.c). */
void bwrap_failure(const char *diag, int bwrap_status, osb_error *err);

/* A running session sandbox: bwrap with the init serving on a socket. */
typedef struct sandbox sandbox;

/* Start bwrap for PL with ARGV (the session form of the plan's argv).
 * SESSION_FD becomes fd plan_next_fd(pl) in bwrap. Waits until
 * the init reports ready (or fails, or TIMEOUT_MS pass: then everything is
 * killed and reaped and ERR says why). */
int sandbox_start(const plan *pl, const strv *argv, int session_fd, uint64_t timeout_ms,
                  sandbox **out, osb_error *err);
/* The life channel of the session's owner (lib/session-owner.h), and the
 * pidfd of the sandbox's pid 1. Owned by SB. */
int sandbox_life(const sandbox *sb);
int sandbox_pid1_fd(const sandbox *sb);
/* bwrap's pidfd (its owner's): readable once the sandbox has ended. */
int sandbox_fd(const sandbox *sb);
/* The init's exit status once the sandbox has ended (bwrap's json status),
 * else -1. */
int sandbox_exit_code(sandbox *sb);
/* SIGKILL the sandbox's pid 1 and bwrap, wait until pid 1 (and with it the
 * whole pid namespace) is gone, reap bwrap. Idempotent. */
void sandbox_stop(sandbox *sb);
void sandbox_free(sandbox *sb);

#endif /* OSB_SUPERVISE_H */

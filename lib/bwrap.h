/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* bwrap.h — a launch plan rendered as bwrap's argv (bwrap.c).
 *
 * The plan (plan.h) says what the sandbox is; the renderer adds what runs in
 * it: a command, or a session's broker. Segments come in a fixed order —
 * namespaces and process options, root, tmpfs/dev/proc, read-only binds,
 * workspace, extra writable paths, re-protections, hides, identity files,
 * symlinks, then the init and its options — whatever the order of the
 * policy's directives, so that no later mount can hide an earlier grant.
 */
#ifndef OSB_BWRAP_H
#define OSB_BWRAP_H

#include "init-proto.h"
#include "plan.h"

/* bwrap's own cap on its arguments (MAX_ARGS in bubblewrap's source). */
#define BWRAP_MAX_ARGS 9000

/* The full bwrap argv for running CMD (argv[0] is the bwrap path); refused
 * (OSB_E_USAGE, E2BIG) when bwrap would get more than BWRAP_MAX_ARGS. */
int bwrap_argv_run(const plan *pl, const char *const *cmd, strv *argv, osb_error *err);
/* The same sandbox with the init serving a session on the fd after the
 * plan's own (plan_next_fd); IDLE_MS: its idle timeout, 0 for none. */
/* The sized tmpfs mounts of P the sandbox's pid 1 watches for the result's
 * tmpfs_full (--watch-full, lib/init-proto.h): the first INIT_MAX_WATCH in
 * the policy's order, into PATHS (pointing into P). Returns how many. */
size_t bwrap_watch_full(const osb_policy *p, const char *paths[INIT_MAX_WATCH]);
int bwrap_argv_session(const plan *pl, uint64_t idle_ms, strv *argv, osb_error *err);

#endif /* OSB_BWRAP_H */

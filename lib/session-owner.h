/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* session-owner.h — the library's side of a session's owner process
 * (session-owner.c; the owner: helper/session-owner.c; protocol:
 * lib/owner-proto.h).
 */
#ifndef OSB_SESSION_OWNER_LIB_H
#define OSB_SESSION_OWNER_LIB_H

#include "plan.h"

/* Start the owner of PL's session in place of bwrap: FDS[0 .. NFDS-1] are
 * bwrap's fds (the plan's layout), ARGV bwrap's command line. The owner
 * enters the sandbox's cgroup, takes its host ids and its OOM score for
 * bwrap, not for itself. On success *PIDFD is the owner's pidfd (its exit
 * status is bwrap's) and *LIFE the life channel, which only this process
 * may hold: the owner ends the session when it closes. */
int owner_spawn(const plan *pl, const strv *argv, const int *fds, size_t nfds, int *life,
                int *pidfd, osb_error *err);

/* Is DIR a private directory of this process's (or root's): a directory,
 * not a symlink, writable by nobody else? 0, or -OSB_E_PATH naming why. */
int owner_dir_check(const char *dir, osb_error *err);
/* DIR/ID.sock into BUF; -OSB_E_USAGE for an id that is not [A-Za-z0-9._-]
 * (1 to 64) or a path too long for a socket. */
int owner_sock_path(const char *dir, const char *id, char *buf, size_t size, osb_error *err);

/* Ask the owner behind LIFE to serve the session at PATH with STATE, the
 * broker socket BROKER and pid 1's pidfd PID1 (both copied). 0 once it
 * listens, or -OSB_E_* with its reason. */
int owner_detach(int life, const char *path, const char *state, size_t len, int broker,
                 int pid1, osb_error *err);
/* Attach to the owner serving PATH: *LINK the connection (readable when the
 * session ends), *STATE (malloc'd) and *LEN its state, *BROKER and *PID1
 * its fds. */
int owner_attach(const char *path, int *link, char **state, size_t *len, int *broker, int *pid1,
                 osb_error *err);
/* Tell the owner behind CHAN to end the session; wait (at most TIMEOUT_MS)
 * until it hangs up. */
void owner_stop(int chan, int timeout_ms);
/* The end CHAN reported: bwrap's wait status into *STATUS, 0; 1 if it
 * has not ended (nothing to read); -1 when the owner hung up without a word. */
int owner_ended(int chan, int *status);

#endif /* OSB_SESSION_OWNER_LIB_H */

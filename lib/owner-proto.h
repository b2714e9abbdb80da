/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* owner-proto.h — between the library and a session's owner.
 *
 * A session's bwrap is not started by the caller's thread but by a small
 * process of its own, the session owner (helper/session-owner.c: the init
 * program run on the host with OWNER_ARG first). bwrap's --die-with-parent
 * then follows the owner, which lives as long as the session, not the thread
 * that happened to start it. The owner ties itself to the caller's process
 * instead: it holds one end of a socketpair (the life channel) whose other
 * end only the caller's process holds, so the kernel closes it when that
 * process ends however it ends (kill -9 included), and the owner then kills
 * the sandbox, waits until nothing of it is left and removes its cgroup; a
 * copy of the host-id lock it holds goes last. A detached session's owner
 * does not end with the caller: it serves the session on a socket and hands
 * it to whoever of the same uid (or root) attaches.
 *
 * The owner's command line, after OWNER_ARG:
 *   NFDS UID GID OOM NCG LOCK NHELD NDIRS DIR... NPH (NAME DEV INO KEY)...
 *   -- BWRAP-ARGV...
 * Its fds 0 .. NFDS-1 are bwrap's (the plan's layout), fd NFDS the life
 * channel, then NCG cgroup.procs files bwrap must enter, then (LOCK 1) a
 * copy of the host-id lock, then NHELD copies of the shared locks on the
 * paths read-only rules bind (lib/binds.c), then NPH directories in which
 * placeholders were made. UID and GID (0: none) are the host ids bwrap is
 * started as; OOM 1 raises bwrap's oom_score_adj; the DIRs are the
 * sandbox's cgroup directories and each NAME DEV INO KEY a placeholder (KEY
 * its record's, lib/phrecord.h, or "-" for none), removed after the sandbox
 * when the owner cleans up by itself (its caller gone, or the session
 * detached) and no other sandbox binds it. The locks go last, with the
 * owner.
 *
 * Messages (SOCK_SEQPACKET, one struct owner_msg, then its payload):
 *   library -> owner, on the life channel:
 *     OWNER_DETACH   payload: the socket path, NUL, the session's state
 *                    (session.c); fds: the broker socket, pid 1's pidfd.
 *                    Answered OWNER_OK or OWNER_FAILED (payload: why).
 *   library -> owner, on the life channel or an attached link:
 *     OWNER_STOP     kill the sandbox, clean up, exit; the channel closes.
 *   owner -> attaching library, first on each accepted link:
 *     OWNER_ATTACHED payload: the session's state; fds as in OWNER_DETACH.
 *   owner -> everyone, once the sandbox has ended:
 *     OWNER_ENDED    value: bwrap's wait status.
 */
#ifndef OSB_OWNER_PROTO_H
#define OSB_OWNER_PROTO_H

#include <stdint.h>

#define OWNER_ARG "--session-owner"
/* The state a detached session keeps for attachers, at most. */
#define OWNER_STATE_MAX (160u * 1024u)
/* Attached links an owner serves at once. */
#define OWNER_MAX_LINKS 64

enum owner_type {
	OWNER_DETACH = 1,
	OWNER_OK,
	OWNER_FAILED,
	OWNER_STOP,
	OWNER_ATTACHED,
	OWNER_ENDED,
};

struct owner_msg {
	uint32_t type;
	int32_t value;
};

#endif /* OSB_OWNER_PROTO_H */

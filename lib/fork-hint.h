/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* fork-hint.h — what a failed fork(2) asks of whoever ran the command.
 *
 * fork fails with EAGAIN when a process limit is reached: most often the
 * caller's RLIMIT_NPROC (ulimit -u), which counts every process of the
 * user and from which root is exempt; otherwise one the caller cannot
 * raise, such as a cgroup's pids.max or the kernel's threads-max. A message
 * that says only "Resource temporarily unavailable" sends them looking
 * for the wrong thing, and trying again does not help while the limit
 * holds. Used on the way a session starts: by `osb-isolate session start`
 * and its janitor (helper/session-holder.c), the library when it spawns the
 * session's owner (lib/session-owner.c), and the owner when it forks bwrap
 * (helper/session-owner.c).
 */
#ifndef OSB_FORK_HINT_H
#define OSB_FORK_HINT_H

#include <errno.h>
#include <unistd.h>
#include <sys/resource.h>

/* What to do about fork's errno ERR, as " (...)" to follow strerror(ERR),
 * or "". */
static inline const char *fork_hint(int err)
{
	struct rlimit rl;

	if (err != EAGAIN)
		return "";
	if (getuid() != 0 && getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		return " (the process limit, ulimit -u, is reached: raise it or stop other processes)";
	return " (a process limit, such as the cgroup's pids.max, is reached: stop other processes)";
}

#endif /* OSB_FORK_HINT_H */

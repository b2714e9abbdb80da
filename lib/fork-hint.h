/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* fork-hint.h — what a failed fork(2) asks of whoever ran the command.
 *
 * fork fails with EAGAIN when a process limit is reached: most often the
 * caller's RLIMIT_NPROC (ulimit -u), which counts every process of the
 * user and from which the host's root is exempt (a user namespace's is
 * not); otherwise one the caller cannot
 * raise, such as a cgroup's pids.max or the kernel's threads-max. A message
 * that says only "Resource temporarily unavailable" sends them looking
 * for the wrong thing, and trying again does not help while the limit
 * holds. Used on the way a session starts, by `osb-isolate session start`
 * and its janitor (helper/session-holder.c), the library when it spawns the
 * session's owner (lib/session-owner.c), and the owner when it forks bwrap
 * (helper/session-owner.c); by lib/proc.c for each bwrap and helper it
 * spawns (bwrap --help among them); by the capabilities probe, whose every
 * item an attempt of which could not start its process gets fork_remedy
 * (lib/caps-probe.c, lib/caps-judge.c, and lib/cgroup.c for cgroup_limits);
 * by lib/supervise.c when bwrap itself cannot clone its namespaces; by
 * lib/netallow-proxy.c when the filtering proxy cannot be started; and by
 * the session broker for each command it forks, which names the sandbox's
 * own limit instead where it can see it binding (helper/broker-limit.c).
 */
#ifndef OSB_FORK_HINT_H
#define OSB_FORK_HINT_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/resource.h>

/* Is uid 0 here the host's? The kernel exempts from RLIMIT_NPROC the
 * host's uid 0 (and CAP_SYS_RESOURCE or CAP_SYS_ADMIN of the initial user
 * namespace) only: uid 0 of a user namespace (a container's root) is an
 * ordinary user to it. /proc/self/uid_map's first line tells: the host's
 * namespace maps 0 to 0. Where it cannot be read, as before: the host's. */
static inline bool fork_uid0_is_hosts(void)
{
	unsigned long in, out, len;
	char buf[96];
	ssize_t n;
	int saved = errno;   /* callers may still read the fork's */
	int fd = open("/proc/self/uid_map", O_RDONLY | O_CLOEXEC);

	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	errno = saved;
	if (n <= 0)
		return true;
	buf[n] = '\0';
	return sscanf(buf, "%lu %lu %lu", &in, &out, &len) != 3 || (in == 0 && out == 0);
}

/* Is it RLIMIT_NPROC that a failed fork of this process met? The host's
 * root is exempt from it, and an unlimited one cannot be met. */
static inline bool fork_nproc_binds(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NPROC, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return false;
	return getuid() != 0 || !fork_uid0_is_hosts();
}

/* What to do about fork's errno ERR, as " (...)" to follow strerror(ERR),
 * or "". */
static inline const char *fork_hint(int err)
{
	if (err != EAGAIN)
		return "";
	if (fork_nproc_binds())
		return " (the process limit, ulimit -u, is reached: raise it or stop other processes)";
	return " (a process limit, such as the cgroup's pids.max, is reached: stop other processes)";
}

/* The same advice as a remedy on its own line (a capabilities item, whose
 * reason carries fork_hint), or NULL when ERR is not EAGAIN. */
static inline const char *fork_remedy(int err)
{
	if (err != EAGAIN)
		return NULL;
	if (fork_nproc_binds())
		return "raise the process limit (ulimit -u, RLIMIT_NPROC) or stop other processes of "
		       "this user, then run again";
	return "stop other processes (a process limit, such as the cgroup's pids.max or the "
	       "kernel's threads-max, is reached), then run again";
}

#endif /* OSB_FORK_HINT_H */

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* peer-pidns.h — whether the process at the other end of a connected unix
 * socket lives in our own pid namespace.
 *
 * The sockets a session is served on (the CLI's holder, helper/session-holder.c;
 * a detached session's owner, helper/session-owner.c) admit their own uid.
 * An unprivileged caller's sandbox runs as that very uid on the host, so a
 * command whose view shows the socket's directory (a workspace holding
 * $XDG_RUNTIME_DIR, a policy that binds it) would pass that test and run
 * commands in any other session of the caller, under its policy (network,
 * environment, writable paths). Every sandbox has a pid namespace of its own
 * beneath its caller's (lib/bwrap.c, --unshare-pid), which tells the two
 * apart. Used by the static init as well: libc only, header only.
 */
#ifndef OSB_PEER_PIDNS_H
#define OSB_PEER_PIDNS_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

/* The number of pids on the "NSpid:" line of TEXT (a /proc/PID/status or a
 * pidfd's fdinfo, which list the process's pid in each pid namespace from
 * that of the reading procfs down to its own): 1 for a process of the
 * procfs's namespace, more for one beneath it; 0 when the line is missing or
 * says the process is not there (0, or -1 for a pidfd whose process ended). */
static inline int peer_nspid_levels(const char *text)
{
	const char *p = strstr(text, "\nNSpid:");
	int n = 0;

	if (!p)
		return 0;
	p += strlen("\nNSpid:");
	for (;;) {
		while (*p == '\t' || *p == ' ')
			p++;
		if (*p < '0' || *p > '9' || (n == 0 && *p == '0'))
			break;
		while (*p >= '0' && *p <= '9')
			p++;
		n++;
	}
	return *p == '\n' || *p == '\0' ? n : 0;
}

/* PATH's text after a leading newline (so that a first line matches
 * "\nNAME:" as well), at most SIZE - 2 bytes of it. */
static inline int peer_read_text(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	size_t n = 0;
	ssize_t r = 0;

	if (fd < 0)
		return -1;
	buf[0] = '\n';
	while (n < size - 2 && (r = read(fd, buf + 1 + n, size - 2 - n)) > 0)
		n += (size_t)r;
	close(fd);
	buf[1 + n] = '\0';
	return r < 0 ? -1 : 0;
}

/* Whether the peer of the connected unix socket FD is a process of our own
 * pid namespace (its pid nests as deep as ours in the procfs we read). The
 * peer is the very process that connected: SO_PEERPIDFD (Linux 6.5) pins it;
 * before it, the pid of SO_PEERCRED is looked up in /proc. A peer that cannot
 * be told (gone, not visible from here: another namespace's) is refused. */
static inline bool peer_in_own_pidns(int fd)
{
	/* status lists Groups: before NSpid:, a line as long as the caller's
	 * supplementary groups (about 7 bytes each): room for some 4,000. */
	char path[64], buf[32768];
	int pidfd = -1, self, peer;
	socklen_t len = sizeof(pidfd);
	struct ucred cred;

	if (peer_read_text("/proc/self/status", buf, sizeof(buf)) != 0 ||
	    (self = peer_nspid_levels(buf)) < 1)
		return false;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) == 0 && pidfd >= 0) {
		snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
		peer = peer_read_text(path, buf, sizeof(buf)) == 0 ? peer_nspid_levels(buf) : 0;
		close(pidfd);
		return peer == self;
	}
	len = sizeof(cred);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.pid <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)cred.pid);
	return peer_read_text(path, buf, sizeof(buf)) == 0 && peer_nspid_levels(buf) == self;
}

#endif

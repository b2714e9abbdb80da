/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* broker-limit.c — the limit a failed fork of the session broker met.
 *
 * A command the broker cannot fork (EAGAIN) meets one of the sandbox's
 * process limits: the RLIMIT_NPROC the init set from the policy's
 * "limit nproc N", the pids.max of the sandbox's cgroup ("limit pids N"),
 * or one of the caller's (its ulimit -u, an enclosing cgroup). The message
 * names the one the broker can see binding: the cgroup's pids files when
 * the policy lets the sandbox read them (a bind of /sys/fs/cgroup) and
 * pids.current has reached pids.max; the policy's nproc when RLIMIT_NPROC
 * is still the value the init applied; else lib/fork-hint.h's words, which
 * name the caller's ulimit -u. Read only after a fork failed, never on the
 * way a command starts.
 */
#include "broker-limit.h"
#include "fork-hint.h"
#include "mountinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* FILE in DIR as a number ("max": UINT64_MAX); false when unreadable. */
static bool read_count(const char *dir, const char *file, uint64_t *v)
{
	char path[PATH_MAX], buf[32], *end;
	ssize_t n;
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, file) >= sizeof(path))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	if (strcmp(buf, "max\n") == 0) {
		*v = UINT64_MAX;
		return true;
	}
	errno = 0;
	*v = strtoull(buf, &end, 10);
	return errno == 0 && end != buf && *end == '\n';
}

/* This process's cgroup path in the hierarchy that carries pids: a v1 line
 * "N:...,pids,...:PATH" of /proc/self/cgroup, else the v2 line "0::PATH".
 * *V1 says which; the path is copied to PATH. */
static bool own_pids_path(char *path, size_t size, bool *v1)
{
	char buf[8192], *line, *save = NULL;
	const char *v2 = NULL;
	ssize_t n;
	int fd = open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *ctrls = strchr(line, ':'), *p = ctrls ? strchr(ctrls + 1, ':') : NULL;

		if (!p)
			continue;
		*p++ = '\0';
		ctrls++;
		if (*ctrls == '\0') {
			v2 = p;
			continue;
		}
		if (mountinfo_has_option(ctrls, "pids")) {
			*v1 = true;
			return (size_t)snprintf(path, size, "%s", p) < size;
		}
	}
	*v1 = false;
	return v2 && (size_t)snprintf(path, size, "%s", v2) < size;
}

/* The directory of this process's pids cgroup as mounted here, or false. */
static bool own_pids_dir(char *dir, size_t size)
{
	struct mountinfo_table tb;
	struct mountinfo_entry m;
	const char *why;
	char path[PATH_MAX];
	bool v1, found = false;

	if (!own_pids_path(path, sizeof(path), &v1) || mountinfo_load("/proc/self/mountinfo", &tb) < 0)
		return false;
	while (!found && mountinfo_next(&tb, &m, &why) > 0) {
		size_t rl = strcmp(m.root, "/") == 0 ? 0 : strlen(m.root);

		if (strcmp(m.fstype, v1 ? "cgroup" : "cgroup2") != 0 ||
		    (v1 && !mountinfo_has_option(m.sb_opts, "pids")) ||
		    strncmp(path, m.root, rl) != 0 || (path[rl] != '/' && path[rl] != '\0'))
			continue;
		found = (size_t)snprintf(dir, size, "%s%s", m.target, path + rl) < size;
	}
	mountinfo_free(&tb);
	return found;
}

void fork_limits_read(struct fork_limits *l, const struct rlimit *policy_nproc)
{
	char dir[PATH_MAX];
	struct rlimit rl = { 0, 0 };

	memset(l, 0, sizeof(*l));
	l->pids_known = own_pids_dir(dir, sizeof(dir)) &&
	                read_count(dir, "pids.max", &l->pids_max) &&
	                read_count(dir, "pids.current", &l->pids_current);
	l->nproc_policy = policy_nproc && policy_nproc->rlim_cur != RLIM_INFINITY &&
	                  getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur == policy_nproc->rlim_cur;
	l->nproc = l->nproc_policy ? (uint64_t)rl.rlim_cur : 0;
}

const char *fork_limits_hint(const struct fork_limits *l, int err, char *buf, size_t size)
{
	if (err != EAGAIN)
		return "";
	if (l->pids_known && l->pids_max != UINT64_MAX && l->pids_current >= l->pids_max)
		snprintf(buf, size, " (the cgroup's process limit, pids.max %" PRIu64 ", is reached: "
		         "raise it or stop other processes)", l->pids_max);
	else if (l->nproc_policy)
		snprintf(buf, size, " (the sandbox's process limit, \"limit nproc %" PRIu64 "\" in the "
		         "policy, is reached: raise it or stop other processes)", l->nproc);
	else
		return fork_hint(err);
	return buf;
}

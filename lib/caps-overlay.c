/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* caps-overlay.c — the overlay workspace's fact, from a real attempt.
 *
 * The init mounts the overlay workspace with the new mount API in a mount
 * namespace of its own (docs/ARCHITECTURE.md, "Overlay workspaces"); a
 * kernel without overlayfs, one older than 5.11 (no overlayfs in user
 * namespaces, no userxattr), or a seccomp filter of an enclosing container
 * that refuses the new mount API all stop it. The same steps run here in a
 * forked child, which touches nothing of the caller's: its namespaces, and
 * the tmpfs, which is never attached, die with it. Between fork and _exit
 * only system calls run; the map lines are written before the fork.
 */
#include "caps-overlay.h"
#include "caps-child.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/mount.h>

const char *const caps_overlay_try_steps[OVT__COUNT] = {
	"forking the probe child", "unshare(CLONE_NEWUSER)", "writing the uid/gid map",
	"unshare(CLONE_NEWNS)", "fsopen(\"overlay\")", "creating the upper layer's tmpfs",
	"creating the layer directories", "creating the overlay (fsconfig, fsmount)",
	"the probe child's answer",
};

typedef struct ovt_maps {
	char uid[48], gid[48];
} ovt_maps;

typedef struct ovt_res {
	int err;
	int step;
} ovt_res;

static int child_userns(const ovt_maps *m, enum ovt_step *step)
{
	int e;

	*step = OVT_USERNS;
	if (unshare(CLONE_NEWUSER) < 0)
		return errno;
	*step = OVT_MAP;
	if ((e = caps_child_maps(m->uid, m->gid, NULL)) != 0)
		return e;
	return 0;
}

static int set_str(int fd, const char *key, const char *value)
{
	return (int)syscall(SYS_fsconfig, fd, value ? FSCONFIG_SET_STRING : FSCONFIG_SET_FLAG, key,
	                    value, 0);
}

/* A detached tmpfs holding lower, upper and work; its mount fd. */
static int child_tmpfs(enum ovt_step *step)
{
	int fs, mnt;

	*step = OVT_TMPFS;
	if ((fs = (int)syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC)) < 0)
		return -errno;
	if (set_str(fs, "size", "65536") < 0 ||
	    syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0 ||
	    (mnt = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, 0)) < 0)
		return -errno;
	*step = OVT_DIRS;
	if (mkdirat(mnt, "lower", 0700) < 0 || mkdirat(mnt, "upper", 0700) < 0 ||
	    mkdirat(mnt, "work", 0700) < 0 || fchdir(mnt) < 0)
		return -errno;
	return mnt;
}

static int child_overlay(bool userxattr, enum ovt_step *step)
{
	int ov, mnt;

	*step = OVT_MNTNS;
	if (unshare(CLONE_NEWNS) < 0)
		return errno;
	*step = OVT_FSOPEN;
	if ((ov = (int)syscall(SYS_fsopen, "overlay", FSOPEN_CLOEXEC)) < 0)
		return errno;
	if ((mnt = child_tmpfs(step)) < 0)
		return -mnt;
	*step = OVT_MOUNT;
	if (set_str(ov, "lowerdir", "lower") < 0 || set_str(ov, "upperdir", "upper") < 0 ||
	    set_str(ov, "workdir", "work") < 0 || (userxattr && set_str(ov, "userxattr", NULL) < 0) ||
	    syscall(SYS_fsconfig, ov, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0 ||
	    syscall(SYS_fsmount, ov, FSMOUNT_CLOEXEC, 0) < 0)
		return errno;
	return 0;
}

static __attribute__((noreturn)) void child(int wfd, bool userns, const ovt_maps *m)
{
	enum ovt_step step = OVT_USERNS;
	ovt_res r = { 0, 0 };

	if (userns)
		r.err = child_userns(m, &step);
	if (r.err == 0)
		r.err = child_overlay(userns, &step);
	r.step = (int)step;
	if (write(wfd, &r, sizeof(r)) != (ssize_t)sizeof(r))
		_exit(1);
	_exit(0);
}

static int collect(pid_t pid, int rfd, enum ovt_step *step, int *status)
{
	ovt_res r = { EIO, OVT_ANSWER };
	ssize_t n;

	do
		n = read(rfd, &r, sizeof(r));
	while (n < 0 && errno == EINTR);
	close(rfd);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof(r) || r.step < 0 || r.step >= OVT_ANSWER)
		r = (ovt_res){ EIO, OVT_ANSWER };
	*step = (enum ovt_step)r.step;
	return r.err;
}

int caps_overlay_try(bool userns, enum ovt_step *step, int *status)
{
	ovt_maps m;
	sigset_t all, old;
	int p[2], e;
	pid_t pid;

	*step = OVT_FORK;
	*status = 0;
	snprintf(m.uid, sizeof(m.uid), "%u %u 1", (unsigned)geteuid(), (unsigned)geteuid());
	snprintf(m.gid, sizeof(m.gid), "%u %u 1", (unsigned)getegid(), (unsigned)getegid());
	if (pipe2(p, O_CLOEXEC) < 0)
		return errno;
	/* The child must not run a caller's signal handler (a Go runtime's). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = fork();
	if (pid == 0)
		child(p[1], userns, &m);
	e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return e;
	}
	return collect(pid, p[0], step, status);
}

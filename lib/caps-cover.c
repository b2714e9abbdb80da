/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* caps-cover.c — the /proc cover's fact, from a real attempt.
 *
 * With --make-cover the sandbox's init makes the cover of /proc itself
 * (helper/init-cover.c): in a mount namespace of its own, with
 * CAP_SYS_ADMIN, each target opened O_PATH and mounted on through
 * /proc/self/fd, read-only remounts repeating the flags the kernel locked
 * (lib/cover-flags.h, shared). An enclosing container's seccomp profile or
 * security module that refuses those mounts, or a kernel that refuses the
 * remount of a locked mount, stops every run there in the init, with 125.
 * This file replays, in a forked child, what leads up to that step (the
 * namespaces bwrap makes and its fresh procfs) and the step itself on one
 * target of each kind; the mounts are those of init-cover.c, in its order,
 * with its flags, and then the system calls with which the init makes a
 * read-only rule inside a writable workspace (helper/init-reprotect.c).
 * The child's namespaces, and every mount, die with it.
 * Between fork and _exit only system calls run: the map lines and the
 * paths are written before the fork.
 */
#include "caps-cover.h"
#include "caps-child.h"
#include "cover-flags.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/mount.h>

#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

const char *const caps_cover_try_steps[CVT__COUNT] = {
	"forking the probe child", "unshare(CLONE_NEWUSER)", "writing the uid/gid map",
	"unshare(CLONE_NEWNS | CLONE_NEWPID)", "making the mounts private",
	"forking the pid namespace's first process", "mounting a fresh procfs on /proc",
	"the init's nested user namespace (unshare(CLONE_NEWUSER))",
	"writing the nested user namespace's uid/gid map", "the init's unshare(CLONE_NEWNS)",
	"opening", "fstatvfs of", "bind mount over", "read-only remount of", "opening",
	"tmpfs over", "open_tree(OPEN_TREE_CLONE) of", "mount_setattr(MOUNT_ATTR_RDONLY) of",
	"move_mount onto", "the probe child's answer",
};

typedef struct cvt_in {
	char uid[48], gid[48];
	char ro[64], mask_file[64], mask_dir[64];   /* "": none of that kind */
} cvt_in;

typedef struct cvt_out {
	int err;
	int step;
	char path[64];
	int status;
} cvt_out;

static void set_step(cvt_out *o, enum cvt_step step, const char *path)
{
	size_t i = 0;

	o->step = (int)step;
	for (; path && path[i] && i + 1 < sizeof(o->path); i++)
		o->path[i] = path[i];
	o->path[i] = '\0';
}

/* "/proc/self/fd/FD", as init-cover.c's fd_path writes it. */
static void fd_path(int fd, char buf[32])
{
	static const char pre[] = "/proc/self/fd/";
	char d[12];
	size_t n = 0, i = 0;

	do
		d[n++] = (char)('0' + fd % 10);
	while ((fd /= 10) > 0 && n < sizeof(d));
	memcpy(buf, pre, sizeof(pre) - 1);
	i = sizeof(pre) - 1;
	while (n)
		buf[i++] = d[--n];
	buf[i] = '\0';
}

static int open_path(const char *path, cvt_out *o)
{
	int fd;

	set_step(o, CVT_OPEN, path);
	fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* init-cover.c's remount_flags of SRC_FD, bind_ro and remount_ro: SRC_FD's
 * file or tree bound at PATH, reopened, remounted read-only with the
 * source's locked flags kept. */
static int bind_ro(int src_fd, const char *path, cvt_out *o)
{
	char from[32], at[32];
	struct statvfs v;
	int fd, e = 0;

	set_step(o, CVT_STATVFS, path);
	if (fstatvfs(src_fd, &v) != 0)
		return errno;
	if ((fd = open_path(path, o)) < 0)
		return -fd;
	fd_path(src_fd, from);
	fd_path(fd, at);
	set_step(o, CVT_BIND, path);
	if (mount(from, at, NULL, MS_BIND | MS_REC, NULL) != 0)
		e = errno;
	close(fd);
	if (e != 0 || (fd = open_path(path, o)) < 0)
		return e ? e : -fd;
	fd_path(fd, at);
	set_step(o, CVT_REMOUNT, path);
	if (mount(NULL, at, NULL, cover_remount_flags(v.f_flag), NULL) != 0)
		e = errno;
	close(fd);
	return e;
}

/* init-reprotect.c's mount_onto_self, read-only, on PATH: the tree cloned
 * (open_tree), made read-only (mount_setattr) and moved onto the file it
 * was cloned from (move_mount), as the init makes a read-only rule inside a
 * writable workspace. */
static int self_bind_ro(const char *path, cvt_out *o)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY };
	int fd, tree, e = 0;

	if ((fd = open_path(path, o)) < 0)
		return -fd;
	set_step(o, CVT_TREE, path);
	tree = (int)syscall(SYS_open_tree, fd, "",
	                    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
	if (tree < 0)
		e = errno;
	if (e == 0) {
		set_step(o, CVT_SETATTR, path);
		if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr,
		            sizeof(attr)) != 0)
			e = errno;
	}
	if (e == 0) {
		set_step(o, CVT_MOVE, path);
		if (syscall(SYS_move_mount, tree, "", fd, "",
		            MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0)
			e = errno;
	}
	if (tree >= 0)
		close(tree);
	close(fd);
	return e;
}

/* init-cover.c's cover_make on one target of each kind: cover_ro,
 * open_null, cover_mask of a file and of a directory. */
static int child_cover(const cvt_in *in, cvt_out *o)
{
	char at[32];
	int fd, nul, e = 0;

	if (in->ro[0]) {
		if ((fd = open_path(in->ro, o)) < 0)
			return -fd;
		e = bind_ro(fd, in->ro, o);
		close(fd);
		if (e != 0)
			return e;
	}
	if (in->mask_file[0]) {
		set_step(o, CVT_NULL, "/dev/null");
		if ((nul = open("/dev/null", O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0)
			return errno;
		e = bind_ro(nul, in->mask_file, o);
		close(nul);
		if (e != 0)
			return e;
	}
	if (in->mask_dir[0]) {
		if ((fd = open_path(in->mask_dir, o)) < 0)
			return -fd;
		fd_path(fd, at);
		set_step(o, CVT_TMPFS, in->mask_dir);
		if (mount("tmpfs", at, "tmpfs", COVER_FLAGS, "mode=0555,size=4096") != 0)
			e = errno;
		close(fd);
		if (e != 0)
			return e;
	}
	/* Then a read-only rule's mounts, on the procfs (the workspace is not
	 * this child's to touch): the same system calls, which a container's
	 * profile may refuse while it allows mount(2). */
	return self_bind_ro(in->ro[0] ? in->ro : "/proc", o);
}

static __attribute__((noreturn)) void report(int wfd, cvt_out *o, int err)
{
	o->err = err;
	if (write(wfd, o, sizeof(*o)) != (ssize_t)sizeof(*o))
		_exit(1);
	_exit(0);
}

/* The pid namespace's first process: bwrap's --proc, then the init. */
static __attribute__((noreturn)) void pid1(int wfd, bool userns, const cvt_in *in, cvt_out *o)
{
	int e;

	set_step(o, CVT_PROC, NULL);
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
		report(wfd, o, errno);
	if (userns) {
		set_step(o, CVT_INIT_USERNS, NULL);
		if (unshare(CLONE_NEWUSER) != 0)
			report(wfd, o, errno);
		set_step(o, CVT_INIT_MAP, NULL);
		if ((e = caps_child_maps(in->uid, in->gid, NULL)) != 0)
			report(wfd, o, e);
	}
	set_step(o, CVT_INIT_MNTNS, NULL);
	if (unshare(CLONE_NEWNS) != 0)
		report(wfd, o, errno);
	report(wfd, o, child_cover(in, o));
}

static __attribute__((noreturn)) void child(int wfd, bool userns, const cvt_in *in)
{
	cvt_out o = { 0, CVT_USERNS, "", 0 };
	pid_t pid;
	int e, st = 0;

	if (userns) {
		set_step(&o, CVT_USERNS, NULL);
		if (unshare(CLONE_NEWUSER) != 0)
			report(wfd, &o, errno);
		set_step(&o, CVT_MAP, NULL);
		if ((e = caps_child_maps(in->uid, in->gid, NULL)) != 0)
			report(wfd, &o, e);
	}
	set_step(&o, CVT_NS, NULL);
	if (unshare(CLONE_NEWNS | CLONE_NEWPID) != 0)
		report(wfd, &o, errno);
	/* Nothing mounted here may propagate back (a root-mode child shares
	 * the host's peer groups). */
	set_step(&o, CVT_PRIVATE, NULL);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		report(wfd, &o, errno);
	set_step(&o, CVT_PID1, NULL);
	pid = fork();
	if (pid < 0)
		report(wfd, &o, errno);
	if (pid == 0)
		pid1(wfd, userns, in, &o);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	/* The first process _exits 0 only once it has answered; else the
	 * answer is how it ended, which its parent alone can see. */
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		_exit(0);
	o = (cvt_out){ EIO, CVT_ANSWER, "", st };
	report(wfd, &o, EIO);
}

static void target(char *buf, size_t size, const char *name)
{
	if (name)
		snprintf(buf, size, "/proc/%s", name);
	else
		buf[0] = '\0';
}

int caps_cover_try(bool userns, const proc_facts *pf, caps_cover_res *res)
{
	cvt_in in;
	cvt_out o = { EIO, CVT_FORK, "", 0 };
	sigset_t all, old;
	int p[2], e, st = 0;
	ssize_t n;
	pid_t pid;

	*res = (caps_cover_res){ 0, CVT_FORK, "", 0 };
	snprintf(in.uid, sizeof(in.uid), "%u %u 1", (unsigned)geteuid(), (unsigned)geteuid());
	snprintf(in.gid, sizeof(in.gid), "%u %u 1", (unsigned)getegid(), (unsigned)getegid());
	target(in.ro, sizeof(in.ro), pf->n_ro ? pf->ro[0] : NULL);
	target(in.mask_file, sizeof(in.mask_file), pf->n_mask_files ? pf->mask_files[0] : NULL);
	target(in.mask_dir, sizeof(in.mask_dir), pf->n_mask_dirs ? pf->mask_dirs[0] : NULL);
	if (pipe2(p, O_CLOEXEC) < 0)
		return res->err = errno;
	/* The child must not run a caller's signal handler (a Go runtime's). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = fork();
	if (pid == 0)
		child(p[1], userns, &in);
	e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return res->err = e;
	}
	do
		n = read(p[0], &o, sizeof(o));
	while (n < 0 && errno == EINTR);
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof(o) || o.step < 0 || o.step >= CVT__COUNT)
		o = (cvt_out){ EIO, CVT_ANSWER, "", st };
	res->err = o.err;
	res->step = (enum cvt_step)o.step;
	res->status = o.status;
	snprintf(res->path, sizeof(res->path), "%.*s", (int)sizeof(o.path) - 1, o.path);
	return res->err;
}

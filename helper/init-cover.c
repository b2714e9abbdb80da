/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* init-cover.c — the /proc cover and the identity masks, made by the init.
 *
 * The plan names them (lib/plan.c, lib/host.c) and the launcher passes them
 * as --proc-ro, --proc-masked and --masked, which the init's proc audit
 * verifies in any case (helper/init-guard.c). With --make-cover the init
 * also makes them, here, before its first mount audit: bwrap 0.8 reads
 * /proc/self/mountinfo after every bind it makes, so forty binds cost more
 * than the rest of a sandbox's start, while the same mounts made here are
 * two system calls each (bench/cover.md: 0.28 ms a bind in bwrap, 26 us
 * here).
 *
 * It runs in the mount namespace the init has just made for itself (the
 * one bwrap made belongs, with --disable-userns, to a user namespace above
 * the init's), holding CAP_SYS_ADMIN granted for this step alone, before
 * the identity switch, the capability check, Landlock and the seccomp
 * filter: no untrusted code has run. Targets are opened with O_PATH and
 * O_NOFOLLOW and each mount is made on the open file through
 * /proc/self/fd, so a symlink can never move a mount elsewhere. A mount
 * copied from bwrap's namespace keeps the flags the kernel locked on it
 * (nosuid, nodev, noexec, atime): a remount read-only must repeat them, so
 * they are read with fstatvfs and kept.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>

#include "init-cover.h"

#define COVER_FLAGS (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)

__attribute__((format(printf, 3, 4)))
static int cerr(struct guard_error *e, int err, const char *fmt, ...)
{
	va_list ap;

	e->err = err;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -err;
}

static void fd_path(int fd, char *buf, size_t size)
{
	snprintf(buf, size, "/proc/self/fd/%d", fd);
}

/* The flags of FD's mount that a bind remount must repeat, in mount(2)'s
 * terms, plus the cover's own. The atime mode is always given: left out,
 * the kernel would ask for relatime and refuse a mount locked otherwise. */
static int remount_flags(int fd, unsigned long *flags)
{
	struct statvfs v;
	unsigned long f = MS_BIND | MS_REMOUNT | COVER_FLAGS;

	if (fstatvfs(fd, &v) != 0)
		return -errno;
	if (v.f_flag & ST_NOATIME)
		f |= MS_NOATIME;
	else if (v.f_flag & ST_RELATIME)
		f |= MS_RELATIME;
	else
		f |= MS_STRICTATIME;
	if (v.f_flag & ST_NODIRATIME)
		f |= MS_NODIRATIME;
	*flags = f;
	return 0;
}

/* PATH opened O_PATH without following a final symlink; a symlink, or a
 * file of another type than asked for (DIR_OK, FILE_OK), is refused. */
static int open_target(const char *path, bool dir_ok, bool file_ok, struct stat *st,
		       struct guard_error *e)
{
	int fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return cerr(e, errno, "cannot cover %s: %s%s", path, strerror(errno),
			    errno == ENOENT ? " (it was there when the sandbox was planned; run "
			    "again)" : "");
	if (fstat(fd, st) != 0) {
		int err = errno;

		close(fd);
		return cerr(e, err, "cannot cover %s: fstat: %s", path, strerror(err));
	}
	if ((S_ISDIR(st->st_mode) && dir_ok) ||
	    ((S_ISREG(st->st_mode) || S_ISCHR(st->st_mode)) && file_ok))
		return fd;
	close(fd);
	return cerr(e, S_ISLNK(st->st_mode) ? ELOOP : EINVAL, "cannot cover %s: it is %s", path,
		    S_ISLNK(st->st_mode) ? "a symlink; the plan names the files themselves" :
		    "neither a directory nor a file");
}

/* Make PATH's newest mount (the bind just made on it) read-only, FLAGS
 * being those of the bind's source. */
static int remount_ro(const char *path, unsigned long flags, struct guard_error *e)
{
	char at[32];
	struct stat st;
	int fd = open_target(path, true, true, &st, e), r = 0;

	if (fd < 0)
		return fd;
	fd_path(fd, at, sizeof(at));
	if (mount(NULL, at, NULL, flags, NULL) != 0)
		r = cerr(e, errno, "cannot make the cover of %s read-only: %s (the init needs "
			 "CAP_SYS_ADMIN for this step)", path, strerror(errno));
	close(fd);
	return r;
}

/* SRC_FD's file or tree bound at PATH (already opened as DEST_FD), then
 * remounted read-only with SRC_FD's locked flags kept. */
static int bind_ro(int src_fd, int dest_fd, const char *path, struct guard_error *e)
{
	char src[32], dest[32];
	unsigned long flags = 0;
	int r;

	if ((r = remount_flags(src_fd, &flags)) < 0)
		return cerr(e, -r, "cannot cover %s: fstatvfs: %s", path, strerror(-r));
	fd_path(src_fd, src, sizeof(src));
	fd_path(dest_fd, dest, sizeof(dest));
	if (mount(src, dest, NULL, MS_BIND | MS_REC, NULL) != 0)
		return cerr(e, errno, "cannot cover %s: bind mount: %s (the init needs "
			    "CAP_SYS_ADMIN for this step)", path, strerror(errno));
	return remount_ro(path, flags, e);
}

/* /proc/X read-only: its own tree bound onto itself. */
static int cover_ro(const char *path, struct guard_error *e)
{
	struct stat st;
	int fd = open_target(path, true, true, &st, e), r;

	if (fd < 0)
		return fd;
	r = bind_ro(fd, fd, path, e);
	close(fd);
	return r;
}

/* An empty read-only tmpfs over a directory, /dev/null (NULL_FD) over
 * anything else. */
static int cover_mask(const char *path, int null_fd, struct guard_error *e)
{
	char at[32];
	struct stat st;
	int fd = open_target(path, true, true, &st, e), r = 0;

	if (fd < 0)
		return fd;
	if (!S_ISDIR(st.st_mode)) {
		r = bind_ro(null_fd, fd, path, e);
		goto out;
	}
	fd_path(fd, at, sizeof(at));
	if (mount("tmpfs", at, "tmpfs", COVER_FLAGS, "mode=0555,size=4096") != 0)
		r = cerr(e, errno, "cannot cover %s: tmpfs: %s (the init needs CAP_SYS_ADMIN for "
			 "this step)", path, strerror(errno));
out:
	close(fd);
	return r;
}

/* The sandbox's /dev/null, checked to be the null device: it is what every
 * masked file becomes. */
static int open_null(struct guard_error *e)
{
	struct stat st;
	int fd = open("/dev/null", O_PATH | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return cerr(e, errno, "cannot open /dev/null to cover the host's files with: %s",
			    strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 &&
	    minor(st.st_rdev) == 3)
		return fd;
	close(fd);
	return cerr(e, EINVAL, "/dev/null is not the null device (1:3); the policy must mount "
		    "\"dev /dev\" for the cover");
}

int cover_make(const struct guard_opts *g, struct guard_error *e)
{
	int null_fd, r = 0;

	if (!g->make_cover)
		return 0;
	/* Read-only trees first: a mask may lie inside one (sys/kernel/random/boot_id). */
	for (size_t i = 0; r == 0 && i < g->proc_ro.n; i++)
		r = cover_ro(g->proc_ro.v[i], e);
	if (r < 0 || (!g->proc_masked.n && !g->masked.n))
		return r;
	if ((null_fd = open_null(e)) < 0)
		return null_fd;
	for (size_t i = 0; r == 0 && i < g->proc_masked.n; i++)
		r = cover_mask(g->proc_masked.v[i], null_fd, e);
	for (size_t i = 0; r == 0 && i < g->masked.n; i++)
		r = cover_mask(g->masked.v[i], null_fd, e);
	close(null_fd);
	return r;
}

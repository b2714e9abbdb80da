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
 * they are read with fstatvfs and kept (lib/cover-flags.h).
 *
 * The capabilities probe replays this step in a forked child
 * (lib/caps-cover.c, the item "proc_cover"), so that a host that refuses
 * these mounts is reported, and a launch with that probe's answer at hand
 * refused before the sandbox starts (a fresh process leaves it to this
 * step, which refuses with 125 and names the item).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>

#include "cover-flags.h"
#include "init-cover.h"

/* What a refused mount of the cover asks for: the capability the init is
 * given for this step, and mount(2) itself, which an enclosing container's
 * filter or security module may refuse. */
#define MOUNT_NEEDS "(the init needs CAP_SYS_ADMIN for this step, and mount(2) that an " \
	"enclosing container's seccomp profile or security module does not refuse: see the " \
	"proc_cover item of osb-isolate capabilities)"

static void fd_path(int fd, char *buf, size_t size)
{
	snprintf(buf, size, "/proc/self/fd/%d", fd);
}

/* The flags of FD's mount that a bind remount must repeat, in mount(2)'s
 * terms, plus the cover's own (cover-flags.h, shared with the probe that
 * replays this step, lib/caps-cover.c). */
static int remount_flags(int fd, unsigned long *flags)
{
	struct statvfs v;

	if (fstatvfs(fd, &v) != 0)
		return -errno;
	*flags = cover_remount_flags(v.f_flag);
	return 0;
}

/* PATH opened O_PATH without following a final symlink; a symlink, or a
 * file of another type than asked for (DIR_OK, FILE_OK), is refused. */
static int open_target(const char *path, bool dir_ok, bool file_ok, struct stat *st,
		       struct guard_error *e)
{
	int fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return guard_err(e, errno, "cannot cover %s: %s%s", path, strerror(errno),
			    errno == ENOENT ? " (it was there when the sandbox was planned; run "
			    "again)" : "");
	if (fstat(fd, st) != 0) {
		int err = errno;

		close(fd);
		return guard_err(e, err, "cannot cover %s: fstat: %s", path, strerror(err));
	}
	if ((S_ISDIR(st->st_mode) && dir_ok) ||
	    ((S_ISREG(st->st_mode) || S_ISCHR(st->st_mode)) && file_ok))
		return fd;
	close(fd);
	return guard_err(e, S_ISLNK(st->st_mode) ? ELOOP : EINVAL, "cannot cover %s: it is %s", path,
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
		r = guard_err(e, errno, "cannot make the cover of %s read-only: %s " MOUNT_NEEDS, path,
			      strerror(errno));
	close(fd);
	return r;
}

/* What a bind is made of: the open source and the flags its read-only
 * remount repeats (remount_flags, read once per source). */
struct cover_src {
	int fd;
	unsigned long flags;
};

static int cover_src_of(int fd, const char *path, struct cover_src *src, struct guard_error *e)
{
	int r = remount_flags(fd, &src->flags);

	src->fd = fd;
	return r < 0 ? guard_err(e, -r, "cannot cover %s: fstatvfs: %s", path, strerror(-r)) : 0;
}

/* SRC's file or tree bound at PATH (already opened as DEST_FD), then
 * remounted read-only with SRC's locked flags kept. */
static int bind_ro(const struct cover_src *src, int dest_fd, const char *path,
		   struct guard_error *e)
{
	char from[32], dest[32];

	fd_path(src->fd, from, sizeof(from));
	fd_path(dest_fd, dest, sizeof(dest));
	if (mount(from, dest, NULL, MS_BIND | MS_REC, NULL) != 0)
		return guard_err(e, errno, "cannot cover %s: bind mount: %s " MOUNT_NEEDS, path,
				 strerror(errno));
	return remount_ro(path, src->flags, e);
}

/* /proc/X read-only: its own tree bound onto itself. */
static int cover_ro(const char *path, struct guard_error *e)
{
	struct cover_src self;
	struct stat st;
	int fd = open_target(path, true, true, &st, e), r;

	if (fd < 0)
		return fd;
	if ((r = cover_src_of(fd, path, &self, e)) == 0)
		r = bind_ro(&self, fd, path, e);
	close(fd);
	return r;
}

/* An empty read-only tmpfs over a directory, /dev/null (NUL) over
 * anything else. */
static int cover_mask(const char *path, const struct cover_src *nul, struct guard_error *e)
{
	char at[32];
	struct stat st;
	int fd = open_target(path, true, true, &st, e), r = 0;

	if (fd < 0)
		return fd;
	if (!S_ISDIR(st.st_mode)) {
		r = bind_ro(nul, fd, path, e);
		goto out;
	}
	fd_path(fd, at, sizeof(at));
	if (mount("tmpfs", at, "tmpfs", COVER_FLAGS, "mode=0555,size=4096") != 0)
		r = guard_err(e, errno, "cannot cover %s: tmpfs: %s " MOUNT_NEEDS, path,
			      strerror(errno));
out:
	close(fd);
	return r;
}

/* The sandbox's /dev/null, checked to be the null device: it is what every
 * masked file becomes. */
static int open_null(struct cover_src *nul, struct guard_error *e)
{
	struct stat st;
	int fd = open("/dev/null", O_PATH | O_NOFOLLOW | O_CLOEXEC), r;

	if (fd < 0)
		return guard_err(e, errno, "cannot open /dev/null to cover the host's files with: %s",
			    strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode) || major(st.st_rdev) != 1 ||
	    minor(st.st_rdev) != 3)
		r = guard_err(e, EINVAL, "/dev/null is not the null device (1:3); the policy must "
			      "mount \"dev /dev\" for the cover");
	else
		r = cover_src_of(fd, "/dev/null", nul, e);
	if (r < 0)
		close(fd);
	return r;
}

int cover_make(const struct guard_opts *g, struct guard_error *e)
{
	struct cover_src nul;
	int r = 0;

	if (!g->make_cover)
		return 0;
	/* Read-only trees first: a mask may lie inside one (sys/kernel/random/boot_id). */
	for (size_t i = 0; r == 0 && i < g->proc_ro.n; i++)
		r = cover_ro(g->proc_ro.v[i], e);
	if (r < 0 || (!g->proc_masked.n && !g->masked.n))
		return r;
	if ((r = open_null(&nul, e)) < 0)
		return r;
	for (size_t i = 0; r == 0 && i < g->proc_masked.n; i++)
		r = cover_mask(g->proc_masked.v[i], &nul, e);
	for (size_t i = 0; r == 0 && i < g->masked.n; i++)
		r = cover_mask(g->masked.v[i], &nul, e);
	close(nul.fd);
	return r;
}

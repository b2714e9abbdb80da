/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* init-reprotect.c — read-only rules inside a writable bind, made by the init.
 *
 * A policy's "read-only workspace:.git" keeps read-only what the host
 * executes from a checkout. The plan resolves the path beneath the writable
 * bind's fd on the host and makes it exist (lib/binds.c); the launcher then
 * passes it here as --reprotect with the device and inode it verified, and
 * gives bwrap no destination inside the writable bind: bwrap would resolve it
 * by path through a directory that another sandbox of the same workspace can
 * change while this one is set up, and create what is missing there, on the
 * host (docs/ARCHITECTURE.md, "Read-only rules inside a writable bind").
 *
 * Binding the leaf alone is not enough: the kernel lets a process rename an
 * ancestor of a mount point, and the mount moves with it ("mv .git x; mkdir
 * .git" leaves a writable .git/hooks). It refuses to rename or remove a mount
 * point of the caller's own mount namespace (EBUSY), so every directory
 * between the writable bind and the leaf is made a mount point of itself.
 *
 * It runs in the mount namespace the init has made for itself, holding
 * CAP_SYS_ADMIN for its mount steps, before the first mount audit, the
 * identity switch, the capability check, Landlock and the seccomp filter: no
 * untrusted code of this sandbox has run. Other sandboxes of the workspace may
 * run, so nothing is trusted by name: each component is opened beneath the
 * last with openat2 (no symlink, no magic link, no "..") and each mount is
 * made on the very file checked (open_tree, move_mount), then every rule is
 * resolved again and checked once all are made.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <linux/mount.h>
#include <linux/openat2.h>

#include "init-reprotect.h"

#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

/* What a refused mount step asks for, as the cover's (helper/init-cover.c). */
#define MOUNT_NEEDS "(the init needs CAP_SYS_ADMIN for this step, and open_tree(2), " \
	"move_mount(2) and mount_setattr(2) that an enclosing container's seccomp profile or " \
	"security module does not refuse: see the proc_cover item of osb-isolate capabilities)"
#define CHANGED "it was changed during setup (a symlink, or a rename by another sandbox of " \
	"this workspace): refusing to run the command"

/* NAME beneath DIR, never through a symlink or "..": the O_PATH fd, or
 * -errno. */
static int open_beneath(int dir, const char *name)
{
	struct open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, dir, name, &how, sizeof(how));

	return fd < 0 ? -errno : fd;
}

static int fd_statx(int fd, struct statx *sx)
{
	memset(sx, 0, sizeof(*sx));
	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
		  STATX_TYPE | STATX_INO, sx) != 0)
		return -errno;
	return 0;
}

static bool mount_root(const struct statx *sx)
{
	return sx->stx_attributes & STATX_ATTR_MOUNT_ROOT;
}

static bool same_file(const struct statx *sx, const struct guard_bind *b)
{
	return sx->stx_dev_major == b->maj && sx->stx_dev_minor == b->min && sx->stx_ino == b->ino;
}

/* The tree at FD cloned and mounted onto FD itself (read-only when RO):
 * the fd of the new mount's root, through which the walk goes on, or -errno.
 * The clone keeps the flags of the writable bind (nosuid, nodev, which the
 * kernel may have locked); RO only adds MOUNT_ATTR_RDONLY. */
static int mount_onto_self(int fd, bool ro, const char *path, struct guard_error *e)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY };
	const char *step = "open_tree";
	int tree = (int)syscall(SYS_open_tree, fd, "",
				OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);

	if (tree < 0)
		goto fail;
	step = "mount_setattr";
	if (ro && syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr,
			  sizeof(attr)) != 0)
		goto fail;
	step = "move_mount";
	if (syscall(SYS_move_mount, tree, "", fd, "",
		    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0)
		goto fail;
	return tree;
fail:
	{
		int err = errno;

		if (tree >= 0)
			close(tree);
		return guard_err(e, err, "cannot re-protect %s read-only: %s of %s: %s " MOUNT_NEEDS,
				 path, step, ro ? "the path" : "a directory above it", strerror(err));
	}
}

/* The writable bind RULE lies in, opened by its path (no component of which
 * the sandbox can write) and checked to be the bind the plan verified. */
static int open_area(const struct guard_bind *area, const char *path, struct guard_error *e)
{
	struct statx sx;
	int fd = open(area->path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), r;

	if (fd < 0)
		return guard_err(e, errno, "policy error: cannot re-protect %s read-only: cannot open "
				 "the writable bind %s: %s; refusing to run the command", path,
				 area->path, strerror(errno));
	if ((r = fd_statx(fd, &sx)) == 0 && same_file(&sx, area) && mount_root(&sx))
		return fd;
	close(fd);
	if (r < 0)
		return guard_err(e, -r, "cannot re-protect %s read-only: statx of %s: %s", path,
				 area->path, strerror(-r));
	return guard_err(e, EPERM, "policy error: cannot re-protect %s read-only: %s is not the "
			 "bind the plan verified; refusing to run the command", path, area->path);
}

/* A directory between the bind and the leaf: a mount point of itself
 * (MAKE) or found one (check). *FD becomes the fd to walk on from. */
static int step_dir(struct guard_opts *g, int *fd, const struct statx *sx, const char *at,
		    const char *path, bool make, struct guard_error *e)
{
	int tree;
	char *copy;
	const char **v;

	if (!S_ISDIR(sx->stx_mode))
		return guard_err(e, ENOTDIR, "policy error: cannot re-protect %s read-only: %s is not a "
				 "directory; " CHANGED, path, at);
	if (mount_root(sx))
		return 0;
	if (!make)
		return guard_err(e, EPERM, "policy error: %s is no longer the mount point the init made "
				 "of it; " CHANGED, at);
	if ((tree = mount_onto_self(*fd, false, path, e)) < 0)
		return tree;
	close(*fd);
	*fd = tree;
	copy = strdup(at);
	v = realloc(g->made.v, (g->made.n + 1) * sizeof(*v));
	if (!copy || !v) {
		free(copy);
		if (v)
			g->made.v = v;
		return guard_err(e, ENOMEM, "out of memory re-protecting %s", path);
	}
	v[g->made.n++] = copy;
	g->made.v = v;
	return 0;
}

/* The leaf: the inode the plan verified, then bound read-only onto itself
 * (MAKE), or found a read-only mount root holding it (check). */
static int step_leaf(int fd, const struct statx *sx, const struct guard_bind *b, bool make,
		     struct guard_error *e)
{
	struct statvfs v;
	int tree;

	if (!same_file(sx, b) || !(S_ISDIR(sx->stx_mode) || S_ISREG(sx->stx_mode)))
		return guard_err(e, EPERM, "policy error: cannot re-protect %s read-only: found inode "
				 "%llu of device %u:%u, the plan verified inode %llu of %u:%u; "
				 CHANGED, b->path, (unsigned long long)sx->stx_ino,
				 sx->stx_dev_major, sx->stx_dev_minor, b->ino, b->maj, b->min);
	if (make) {
		if ((tree = mount_onto_self(fd, true, b->path, e)) < 0)
			return tree;
		close(tree);
		return 0;
	}
	if (!mount_root(sx) || fstatvfs(fd, &v) != 0 || !(v.f_flag & ST_RDONLY))
		return guard_err(e, EPERM, "policy error: %s is not the read-only mount the init made "
				 "(inode %llu of device %u:%u); " CHANGED, b->path, b->ino, b->maj,
				 b->min);
	return 0;
}

/* Walk B's path beneath its writable bind, one component at a time. */
static int walk(struct guard_opts *g, const struct guard_bind *b, bool make,
		struct guard_error *e)
{
	const struct guard_bind *area = guard_reprotect_area(g, b->path);
	size_t root_len = strcmp(area->path, "/") == 0 ? 0 : strlen(area->path);
	char at[PATH_MAX], *copy = strdup(b->path + root_len + 1), *save = NULL, *c, *next;
	int fd = -1, r = 0;

	if (!copy)
		return guard_err(e, ENOMEM, "out of memory re-protecting %s", b->path);
	if ((fd = open_area(area, b->path, e)) < 0) {
		free(copy);
		return fd;
	}
	snprintf(at, sizeof(at), "%s", area->path);
	for (c = strtok_r(copy, "/", &save); r == 0 && c; c = next) {
		struct statx sx;
		int nfd = open_beneath(fd, c);

		next = strtok_r(NULL, "/", &save);
		snprintf(at + root_len, sizeof(at) - root_len, "/%s", c);
		root_len = strlen(at);
		if (nfd < 0) {
			r = guard_err(e, -nfd, "policy error: cannot re-protect %s read-only: cannot "
				      "resolve %s without a symlink: %s; " CHANGED, b->path, at,
				      strerror(-nfd));
			break;
		}
		close(fd);
		fd = nfd;
		if ((r = fd_statx(fd, &sx)) < 0)
			r = guard_err(e, -r, "cannot re-protect %s read-only: statx of %s: %s", b->path,
				      at, strerror(-r));
		else if (next)
			r = step_dir(g, &fd, &sx, at, b->path, make, e);
		else
			r = step_leaf(fd, &sx, b, make, e);
	}
	close(fd);
	free(copy);
	return r;
}

static size_t depth(const char *p)
{
	size_t n = 0;

	for (; *p; p++)
		n += *p == '/';
	return n;
}

static int cmp_depth(const void *a, const void *b)
{
	const struct guard_bind *x = a, *y = b;
	size_t dx = depth(x->path), dy = depth(y->path);

	return dx < dy ? -1 : dx > dy ? 1 : strcmp(x->path, y->path);
}

int reprotect_make(struct guard_opts *g, struct guard_error *e)
{
	int r = 0;

	if (!g->n_reprotect)
		return 0;
	/* Shallowest first: a rule above another is made before the walk to the
	 * deeper one goes through it. */
	qsort(g->reprotect, g->n_reprotect, sizeof(*g->reprotect), cmp_depth);
	for (size_t i = 0; r == 0 && i < g->n_reprotect; i++)
		r = walk(g, &g->reprotect[i], true, e);
	for (size_t i = 0; r == 0 && i < g->n_reprotect; i++)
		r = walk(g, &g->reprotect[i], false, e);
	return r;
}

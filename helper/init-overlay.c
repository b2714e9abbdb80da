/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* init-overlay.c — the overlay workspace, mounted by the sandbox's trusted
 * init because bubblewrap 0.8 has no --overlay (docs/ARCHITECTURE.md,
 * "Overlay workspaces").
 *
 * It runs after the first mount audit has verified that the workspace bind
 * is the inode the plan opened on the host, and before the identity switch,
 * the capability check, Landlock and the seccomp filter: no untrusted code
 * has run yet, in the mount namespace the init has made for itself
 * (helper/osb-isolate-init.c, own_mount_ns). The upper and work directories live on a tmpfs made with the new
 * mount API and never attached to any path, so the command reaches the
 * layer only through the merged workspace, and the tmpfs ends with the last
 * process of the sandbox (the upper layer is gone after a run or a
 * session). A persisted layer (--overlay-layer) is a caller's host directory
 * that the plan bound at a hidden place instead: the init takes a detached
 * copy of that bind, uses it as the tmpfs would be used, and then unmounts
 * the bind (or covers it, where it may not) before any audit that lets the
 * command run. overlayfs is asked for first, so a kernel without it is named
 * as such. The kernel checks the command's access against the merged view
 * and does copy-up with the credentials kept from fsopen(2) here: hence the
 * capabilities the launcher grants the init for this step only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/mount.h>

#include "init-overlay.h"

#ifndef FSCONFIG_SET_FLAG
#define FSCONFIG_SET_FLAG 0
#define FSCONFIG_SET_STRING 1
#define FSCONFIG_CMD_CREATE 6
#endif

int overlay_parse(struct overlay_opts *o, const char *name, const char *value,
		  struct guard_error *e)
{
	unsigned long long size;
	char xattr[8];
	int n = -1;

	if (strcmp(name, "--overlay-layer") == 0) {
		if (o->layer || value[0] != '/' || !value[1]) {
			guard_err(e, EINVAL, o->layer ? "--overlay-layer given twice" :
			     "--overlay-layer \"%s\": expected an absolute path below /", value);
			return -1;
		}
		o->layer = value;
		return 1;
	}
	if (strcmp(name, "--overlay") != 0)
		return 0;
	if (o->dest) {
		guard_err(e, EINVAL, "--overlay given twice");
		return -1;
	}
	if (sscanf(value, "%llu:%7[a-z]:%n", &size, xattr, &n) != 2 || n <= 0 || size == 0 ||
	    value[n] != '/' || (strcmp(xattr, "user") != 0 && strcmp(xattr, "trusted") != 0)) {
		guard_err(e, EINVAL, "--overlay \"%s\": expected SIZE:user|trusted:DEST with a size in "
		     "bytes above 0 and an absolute DEST", value);
		return -1;
	}
	o->size = size;
	o->userxattr = strcmp(xattr, "user") == 0;
	o->dest = value + n;
	return 1;
}

static int fs_open(const char *type, const char *what, struct guard_error *e)
{
	int fd = (int)syscall(SYS_fsopen, type, 0x1 /* FSOPEN_CLOEXEC */);

	if (fd < 0 && errno == ENODEV)
		return guard_err(e, ENODEV, "cannot mount the overlay workspace: the kernel has no %s "
			    "(fsopen: %s); load the module (modprobe %s) or choose \"workspace ro\" "
			    "or \"rw\"", what, strerror(ENODEV), type);
	if (fd < 0)
		return guard_err(e, errno, "cannot mount the overlay workspace: fsopen(%s): %s", type,
			    strerror(errno));
	return fd;
}

static int fs_set(int fsfd, const char *key, const char *value, struct guard_error *e)
{
	if (syscall(SYS_fsconfig, fsfd, value ? FSCONFIG_SET_STRING : FSCONFIG_SET_FLAG, key,
		    value, 0) == 0)
		return 0;
	return guard_err(e, errno, "cannot mount the overlay workspace: fsconfig %s%s%s: %s", key,
		    value ? "=" : "", value ? value : "", strerror(errno));
}

/* Create the file system configured on FSFD and return a detached mount
 * of it (nosuid, nodev, and ATTRS). */
static int fs_mount(int fsfd, const char *what, unsigned attrs, struct guard_error *e)
{
	int mfd;

	if (syscall(SYS_fsconfig, fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) != 0)
		return guard_err(e, errno, "cannot mount the overlay workspace: creating the %s failed: %s",
			    what, strerror(errno));
	mfd = (int)syscall(SYS_fsmount, fsfd, 0x1 /* FSMOUNT_CLOEXEC */,
			   MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | attrs);
	if (mfd < 0)
		return guard_err(e, errno, "cannot mount the overlay workspace: fsmount (%s): %s", what,
			    strerror(errno));
	return mfd;
}

/* The merged root shows the upper directory's owner and mode: the lower
 * root's. An owner the user namespace does not map (a root caller's
 * workspace, seen as the overflow id) cannot own it; the init's own ids do,
 * with only the permission the sandbox had there (the group's bits when the
 * group is its own, else the others'), for every class: never more. */
static int upper_owner(int mfd, const struct stat *lower, struct guard_error *e)
{
	mode_t m = lower->st_mode & 07777, had;

	if (fchownat(mfd, "upper", lower->st_uid, lower->st_gid, AT_SYMLINK_NOFOLLOW) == 0)
		return fchmodat(mfd, "upper", m, 0) == 0 ? 0 :
		       guard_err(e, errno, "cannot mount the overlay workspace: chmod of the upper layer: "
			    "%s", strerror(errno));
	if (errno != EINVAL)
		return guard_err(e, errno, "cannot mount the overlay workspace: cannot give the upper "
			    "layer the workspace's owner %u:%u: %s", (unsigned)lower->st_uid,
			    (unsigned)lower->st_gid, strerror(errno));
	had = lower->st_gid == getegid() ? (m >> 3) & 07 : m & 07;
	if (fchmodat(mfd, "upper", (m & 07000) | had << 6 | had << 3 | had, 0) != 0)
		return guard_err(e, errno, "cannot mount the overlay workspace: chmod of the upper layer: "
			    "%s", strerror(errno));
	return 0;
}

/* The private tmpfs of the upper layer, with "upper" (see upper_owner) and
 * "work" in it. */
static int upper_fs(const struct overlay_opts *o, const struct stat *lower, struct guard_error *e)
{
	char size[32];
	int fsfd, mfd, r;

	if ((fsfd = fs_open("tmpfs", "tmpfs", e)) < 0)
		return fsfd;
	snprintf(size, sizeof(size), "%llu", o->size);
	r = fs_set(fsfd, "size", size, e);
	if (r == 0)
		r = fs_set(fsfd, "mode", "0700", e);
	mfd = r < 0 ? r : fs_mount(fsfd, "upper layer's tmpfs", 0, e);
	close(fsfd);
	if (mfd < 0)
		return mfd;
	if (mkdirat(mfd, "upper", 0700) != 0 || mkdirat(mfd, "work", 0700) != 0)
		r = guard_err(e, errno, "cannot mount the overlay workspace: cannot create the layer "
			 "directories: %s", strerror(errno));
	else
		r = upper_owner(mfd, lower, e);
	if (r < 0) {
		close(mfd);
		return r;
	}
	return mfd;
}

static int attach(int mfd, const char *dest, struct guard_error *e)
{
	if (syscall(SYS_move_mount, mfd, "", AT_FDCWD, dest, 0x4 /* MOVE_MOUNT_F_EMPTY_PATH */) == 0)
		return 0;
	return guard_err(e, errno, "cannot mount the overlay workspace at %s: move_mount: %s", dest,
		    strerror(errno));
}

/* One directory of the persisted layer: made when missing, and a
 * directory (never a symlink) either way. */
static int layer_dir(int mfd, const char *name, struct guard_error *e)
{
	struct stat st;

	if (mkdirat(mfd, name, 0700) != 0 && errno != EEXIST)
		return guard_err(e, errno, "cannot mount the overlay workspace: cannot create %s in the "
			    "persisted layer: %s", name, strerror(errno));
	if (fstatat(mfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return guard_err(e, errno, "cannot mount the overlay workspace: %s of the persisted layer: "
			    "%s", name, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return guard_err(e, ENOTDIR, "cannot mount the overlay workspace: %s of the persisted "
			    "layer is not a directory", name);
	return 0;
}

/* The persisted layer's bind at O->layer, as a detached copy of its own:
 * the layers are then reached by names relative to it, as on the tmpfs,
 * and nothing of the bind is needed once the overlay is mounted. "upper"
 * (see upper_owner) and "work" in it. */
static int layer_fs(const struct overlay_opts *o, const struct stat *lower, struct guard_error *e)
{
	int mfd = (int)syscall(SYS_open_tree, AT_FDCWD, o->layer,
			       OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_SYMLINK_NOFOLLOW), r;

	if (mfd < 0)
		return guard_err(e, errno, "cannot mount the overlay workspace: open_tree of the persisted "
			    "layer at %s: %s", o->layer, strerror(errno));
	r = layer_dir(mfd, "upper", e);
	if (r == 0)
		r = layer_dir(mfd, "work", e);
	if (r == 0)
		r = upper_owner(mfd, lower, e);
	if (r < 0) {
		close(mfd);
		return r;
	}
	return mfd;
}

/* The persisted layer's bind, released once overlayfs holds a private copy
 * of the layer: unmounted in root mode. In user namespace mode the init's
 * mount namespace is owned by a user namespace below bwrap's, so its copy
 * of every mount bwrap made is locked (it may not reveal what lies beneath
 * it: EINVAL); an empty read-only tmpfs then covers it, and nothing of the
 * layer is reachable there. */
static int release_layer(const struct overlay_opts *o, struct guard_error *e)
{
	int fsfd, mfd, r;

	if (umount2(o->layer, MNT_DETACH) == 0)
		return 0;
	if (errno != EINVAL || !o->userxattr)
		return guard_err(e, errno, "cannot unmount the persisted layer's bind at %s: %s", o->layer,
			    strerror(errno));
	if ((fsfd = fs_open("tmpfs", "tmpfs", e)) < 0)
		return fsfd;
	r = fs_set(fsfd, "size", "4096", e);
	if (r == 0)
		r = fs_set(fsfd, "mode", "0555", e);
	mfd = r < 0 ? r : fs_mount(fsfd, "cover of the persisted layer's bind",
				   MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOEXEC, e);
	close(fsfd);
	if (mfd < 0)
		return mfd;
	r = attach(mfd, o->layer, e);
	close(mfd);
	return r;
}

/* overlayfs configured on FSFD: the lower layer O->dest, the upper and work
 * directories beneath the current directory (the detached tmpfs). The
 * features that would change what the upper layer holds are off whatever the
 * kernel's defaults: no redirect (a renamed directory is copied, and no
 * redirect is followed), no metadata-only copy-up, no index. The upper
 * layer then holds whole files, whiteouts (character devices 0:0) and opaque
 * directories only, which is what a diff or a commit reads (lib/overlay-diff.c). */
static int overlay_config(int fsfd, const struct overlay_opts *o, struct guard_error *e)
{
	static const char *const fixed[][2] = {
		{ "redirect_dir", "nofollow" }, { "index", "off" }, { "metacopy", "off" },
	};
	int r = fs_set(fsfd, "lowerdir", o->dest, e);

	if (r == 0)
		r = fs_set(fsfd, "upperdir", "upper", e);
	if (r == 0)
		r = fs_set(fsfd, "workdir", "work", e);
	for (size_t i = 0; r == 0 && i < sizeof(fixed) / sizeof(fixed[0]); i++)
		r = fs_set(fsfd, fixed[i][0], fixed[i][1], e);
	if (r == 0 && o->userxattr)
		r = fs_set(fsfd, "userxattr", NULL, e);
	return r;
}

/* The upper directory, opened while the init may still read it whatever
 * its mode: a session's broker hands it to the library for a diff or a
 * commit (helper/broker-overlay.c). */
static int keep_upper(int upfd, struct overlay_opts *o, struct guard_error *e)
{
	o->upper_fd = openat(upfd, "upper", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (o->upper_fd < 0)
		return guard_err(e, errno, "cannot open the overlay's upper layer: %s", strerror(errno));
	return 0;
}

int overlay_mount(struct overlay_opts *o, struct guard_error *e)
{
	struct stat lower;
	int ovfd, upfd, mfd = -1, r;

	o->upper_fd = -1;
	if (!o->dest)
		return 0;
	if (stat(o->dest, &lower) != 0)
		return guard_err(e, errno, "cannot mount the overlay workspace: %s: %s", o->dest,
			    strerror(errno));
	if (!S_ISDIR(lower.st_mode))
		return guard_err(e, ENOTDIR, "cannot mount the overlay workspace: %s is not a directory",
			    o->dest);
	/* fsopen(2) needs CAP_SYS_ADMIN over the mount namespace's owner:
	 * the init's own (the caller made it). Then overlayfs first: the fact
	 * a host without it is refused for. */
	if ((ovfd = fs_open("overlay", "overlayfs", e)) < 0)
		return ovfd;
	if ((upfd = o->layer ? layer_fs(o, &lower, e) : upper_fs(o, &lower, e)) < 0) {
		r = upfd;
		goto out;
	}
	/* Layer paths relative to the detached tmpfs: no name leads there. */
	if (fchdir(upfd) != 0)
		r = guard_err(e, errno, "cannot mount the overlay workspace: fchdir: %s", strerror(errno));
	else if ((r = overlay_config(ovfd, o, e)) == 0 &&
		 (r = mfd = fs_mount(ovfd, "overlay", 0, e)) >= 0)
		r = attach(mfd, o->dest, e);
	if (r == 0)
		r = keep_upper(upfd, o, e);
	if (chdir("/") != 0 && r == 0)
		r = guard_err(e, errno, "cannot leave the upper layer's tmpfs: chdir /: %s", strerror(errno));
	close(upfd);
	if (mfd >= 0)
		close(mfd);
	if (r == 0 && o->layer)
		r = release_layer(o, e);
out:
	close(ovfd);
	return r < 0 ? r : 0;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* layer.c — a persisted overlay layer, checked on the host before launch.
 *
 * The plan's part of "persist" (docs/ARCHITECTURE.md, "Overlay
 * workspaces"): the caller's directory is opened once, by fd, with the
 * workspace's path rules (no symlink, nothing crossed that another user
 * could change, no system directory), and bound by that fd. What the
 * sandbox will write there is only ever reached through the overlay, so the
 * directory must lie apart from everything the sandbox sees: the workspace
 * (overlayfs refuses nested layers, and the lower layer would show the upper
 * one), every other bind source, and the host root of "root host-ro". Its
 * files belong to the sandbox's host uid, which therefore has to be the same
 * in every session that resumes it: the caller's own, or ids a root caller
 * pins; ids allocated per sandbox are freed when it ends, and nothing here
 * chowns a tree the sandbox wrote. A layer says which identity mode made it
 * (LAYER_MARKER), and only that mode reads it.
 */
#include "layer.h"
#include "hostpath.h"
#include "paths.h"
#include "plan.h"
#include "util.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MARKER_HEAD "osb-isolate overlay layer 1\n"

static const char *mode_name(bool userns)
{
	return userns ? "userns" : "root";
}

/* Say which directory a refusal of the path walk is about. */
static int about_layer(osb_error *err, int r)
{
	char msg[sizeof(err->message)];

	if (!err || r == -OSB_E_NOMEM)
		return r;
	snprintf(msg, sizeof(msg), "%s", err->message);
	if (snprintf(err->message, sizeof(err->message), "overlay persist directory %s", msg) < 0)
		snprintf(err->message, sizeof(err->message), "overlay persist directory refused");
	return r;
}

static int refuse(osb_error *err, int code, int e, const char *dir, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int refuse(osb_error *err, int code, int e, const char *dir, const char *fmt, ...)
{
	char what[800];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return osb_err_set(err, code, e, "workspace", "overlay persist directory %s: %s", dir, what);
}

/* The layer's files belong to the sandbox's host uid, and nobody else may
 * change what the next session will read. */
static int check_owner(const plan *pl, const struct stat *st, const char *dir, osb_error *err)
{
	const hostid *h = &pl->host;

	if (h->kind == HOSTID_ALLOCATED)
		return refuse(err, OSB_E_POLICY, EPERM, dir, "a root caller's sandbox runs as host ids "
		              "allocated for it, which are freed when it ends, and the next sandbox "
		              "gets others: the layer's files would belong to nobody's ids; pin the "
		              "ids (\"host-ids UID GID\", osb_policy_set_host_ids, a request's "
		              "host_uid and host_gid) and give the directory to them");
	if (st->st_uid != h->uid)
		return refuse(err, OSB_E_PATH, EPERM, dir, "owned by uid %u, not by the sandbox's host "
		              "uid %u (%s): the layer's files are the sandbox's; chown it to %u or name "
		              "a directory of its own", (unsigned)st->st_uid, h->uid,
		              hostid_kind_name(h->kind), h->uid);
	if (st->st_mode & 022)
		return refuse(err, OSB_E_PATH, EPERM, dir, "writable by %s (mode %04o), who could change "
		              "the layer a later session reads; chmod go-w",
		              st->st_mode & 020 ? "its group" : "others", (unsigned)(st->st_mode & 07777));
	return 0;
}

/* 1 when FD, a directory, is ANC or lies beneath it (walked up by ".." to
 * the root, one fd at a time), 0 when not, -errno when it cannot be told. */
static int dir_within(int fd, const struct stat *anc)
{
	int cur = fcntl(fd, F_DUPFD_CLOEXEC, 3), r = 0;

	for (unsigned depth = 0; cur >= 0 && r == 0 && depth < 4096; depth++) {
		struct stat st, up;
		int next;

		if (fstat(cur, &st) < 0)
			break;
		if (st.st_dev == anc->st_dev && st.st_ino == anc->st_ino)
			r = 1;
		else if ((next = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
			r = -errno;
		else if (fstat(next, &up) == 0 && up.st_dev == st.st_dev && up.st_ino == st.st_ino)
			r = 2;   /* the root: its ".." is itself */
		else {
			close(cur);
			cur = next;
			continue;
		}
		if (r == 2)
			close(next);
	}
	if (cur < 0)
		return -errno;
	close(cur);
	return r == 2 ? 0 : r;
}

/* A regular file's directory, verified: the kernel's path of FD's parent,
 * opened, must hold FD's very inode under its name. -errno otherwise. */
static int file_dir(int fd, const struct stat *st)
{
	_cleanup_free_ char *path = NULL;
	struct stat seen;
	char *slash;
	int dir, r = path_fd_name(fd, st, &path);

	if (r < 0)
		return r;
	if (!(slash = strrchr(path, '/')))
		return -EINVAL;
	*slash = '\0';
	dir = open(slash == path ? "/" : path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0)
		return -errno;
	if (fstatat(dir, slash + 1, &seen, AT_SYMLINK_NOFOLLOW) < 0 || seen.st_dev != st->st_dev ||
	    seen.st_ino != st->st_ino) {
		close(dir);
		return -ESTALE;
	}
	return dir;
}

/* Is the layer PFD (stat PST) inside bind B's source, or B's inside it? */
static int check_apart_one(const plan_bind *b, int pfd, const struct stat *pst, const char *dir,
                           osb_error *err)
{
	_cleanup_close_ int up = -1;
	struct stat bst;
	int r;

	if (fstat(b->fd, &bst) < 0)
		return refuse(err, OSB_E_PATH, errno, dir, "cannot stat the source of %s: %s", b->dest,
		              strerror(errno));
	if ((r = dir_within(pfd, &bst)) > 0)
		return refuse(err, OSB_E_PATH, EINVAL, dir, "lies inside what the sandbox sees at "
		              "%s%s; the layer must be reached through the overlay only (and "
		              "overlayfs refuses nested layers): choose a directory outside it",
		              b->dest, b->writable ? " (writable)" : "");
	up = S_ISDIR(bst.st_mode) ? fcntl(b->fd, F_DUPFD_CLOEXEC, 3) : file_dir(b->fd, &bst);
	if (r == 0 && up >= 0 && (r = dir_within(up, pst)) > 0)
		return refuse(err, OSB_E_PATH, EINVAL, dir, "holds what the sandbox sees at %s; the "
		              "layer must be reached through the overlay only (and overlayfs refuses "
		              "nested layers): choose a directory apart from it", b->dest);
	if (r < 0 || up < 0)
		return refuse(err, OSB_E_PATH, r < 0 ? -r : -up, dir, "cannot tell whether it lies "
		              "apart from what the sandbox sees at %s: %s", b->dest,
		              strerror(r < 0 ? -r : -up));
	return 0;
}

/* Under "root host-ro" the sandbox sees the host at the same paths, unless
 * a mount of the plan covers the path (a bind's own source is judged by fd
 * above). CANON is the directory's path on the host. */
static int check_unseen(const plan *pl, const char *canon, osb_error *err)
{
	const osb_policy *p = pl->p;

	if (p->root != ROOT_HOST_RO)
		return 0;
	for (size_t i = 0; i < p->n_mounts; i++)
		if (p->mounts[i].kind != MNT_SYMLINK && dest_within(canon, p->mounts[i].path))
			return 0;
	for (size_t i = 0; i < pl->n_binds; i++)
		if (dest_within(canon, pl->binds[i].dest))
			return 0;
	return refuse(err, OSB_E_PATH, EINVAL, canon, "the sandbox would see it through its "
	              "\"root host-ro\" view; hide it in the policy (hide DIR on it or a directory "
	              "above) or choose a directory the sandbox does not see");
}

static int check_apart(const plan *pl, int pfd, const char *canon, osb_error *err)
{
	struct stat pst;
	int r;

	if (fstat(pfd, &pst) < 0)
		return refuse(err, OSB_E_PATH, errno, canon, "cannot stat: %s", strerror(errno));
	for (size_t i = 0; i < pl->n_binds; i++)
		if ((r = check_apart_one(&pl->binds[i], pfd, &pst, canon, err)) < 0)
			return r;
	return check_unseen(pl, canon, err);
}

/* ---- what the directory holds ---------------------------------------------------- */

enum { HAS_UPPER = 1, HAS_WORK = 2, HAS_MARKER = 4 };

static int entry_kind(int dfd, const char *name, const char *dir, unsigned *has, osb_error *err)
{
	static const struct { const char *name; unsigned bit; mode_t type; } known[] = {
		{ "upper", HAS_UPPER, S_IFDIR }, { "work", HAS_WORK, S_IFDIR },
		{ LAYER_MARKER, HAS_MARKER, S_IFREG },
	};
	struct stat st;

	for (size_t i = 0; i < ARRAY_SIZE(known); i++) {
		if (strcmp(name, known[i].name) != 0)
			continue;
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return refuse(err, OSB_E_PATH, errno, dir, "%s: %s", name, strerror(errno));
		if ((st.st_mode & S_IFMT) != known[i].type)
			return refuse(err, OSB_E_PATH, EINVAL, dir, "%s is %s, not a %s: this is not a "
			              "layer osb-isolate made; name an empty directory", name,
			              S_ISLNK(st.st_mode) ? "a symlink" : "of another type",
			              known[i].type == S_IFDIR ? "directory" : "regular file");
		*has |= known[i].bit;
		return 0;
	}
	return refuse(err, OSB_E_PATH, EEXIST, dir, "holds \"%s\", which is not part of an overlay "
	              "layer (upper, work, %s): name an empty directory, or one an earlier run or "
	              "session persisted", name, LAYER_MARKER);
}

static int read_contents(int fd, const char *dir, unsigned *has, osb_error *err)
{
	int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), r = 0;
	DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
	struct dirent *de;

	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return refuse(err, OSB_E_PATH, errno, dir, "cannot list it: %s", strerror(errno));
	}
	*has = 0;
	while (r == 0 && (errno = 0, de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			r = entry_kind(dirfd(d), de->d_name, dir, has, err);
	if (r == 0 && errno)
		r = refuse(err, OSB_E_IO, errno, dir, "cannot list it: %s", strerror(errno));
	closedir(d);
	return r;
}

/* The marker of a layer that exists: made in PL's mode, or refused. */
static int check_marker(const plan *pl, int fd, const char *dir, osb_error *err)
{
	char buf[128] = { 0 }, want[128];
	int mfd = openat(fd, LAYER_MARKER, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	ssize_t n = mfd < 0 ? -1 : read(mfd, buf, sizeof(buf) - 1);

	if (mfd >= 0)
		close(mfd);
	if (n < 0)
		return refuse(err, OSB_E_PATH, errno, dir, "cannot read %s: %s", LAYER_MARKER,
		              strerror(errno));
	snprintf(want, sizeof(want), MARKER_HEAD "mode %s\n", mode_name(pl->userns));
	if (strcmp(buf, want) == 0)
		return 0;
	snprintf(want, sizeof(want), MARKER_HEAD "mode %s\n", mode_name(!pl->userns));
	if (strcmp(buf, want) == 0)
		return refuse(err, OSB_E_POLICY, EINVAL, dir, "holds a layer made in %s mode, whose "
		              "overlayfs attributes (%s.overlay.*) %s mode would not read: resume it "
		              "in %s mode (identity %s), or name another directory",
		              mode_name(!pl->userns), pl->userns ? "trusted" : "user",
		              pl->userns ? "user namespace" : "root", mode_name(!pl->userns),
		              mode_name(!pl->userns));
	return refuse(err, OSB_E_PATH, EINVAL, dir, "%s does not say which identity mode made the "
	              "layer (expected \"%.*s\" and a mode line); name another directory",
	              LAYER_MARKER, (int)strlen(MARKER_HEAD) - 1, MARKER_HEAD);
}

static int write_marker(const plan *pl, int fd, const char *dir, osb_error *err)
{
	char text[128];
	int n = snprintf(text, sizeof(text), MARKER_HEAD "mode %s\n", mode_name(pl->userns));
	int mfd = openat(fd, LAYER_MARKER, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);

	if (mfd < 0)
		return refuse(err, OSB_E_PATH, errno, dir, "cannot create %s: %s", LAYER_MARKER,
		              strerror(errno));
	if (write(mfd, text, (size_t)n) != n || fsync(mfd) < 0) {
		int e = errno ? errno : EIO;

		close(mfd);
		(void)unlinkat(fd, LAYER_MARKER, 0);
		return refuse(err, OSB_E_IO, e, dir, "cannot write %s: %s", LAYER_MARKER, strerror(e));
	}
	close(mfd);
	return 0;
}

static int check_contents(const plan *pl, int fd, const char *dir, osb_error *err)
{
	unsigned has = 0;
	int r;

	if ((r = read_contents(fd, dir, &has, err)) < 0)
		return r;
	if (has & HAS_MARKER)
		return check_marker(pl, fd, dir, err);
	if (has)
		return refuse(err, OSB_E_PATH, EINVAL, dir, "holds %s without %s: this is not a layer "
		              "osb-isolate made; name an empty directory", has & HAS_UPPER ? "upper" :
		              "work", LAYER_MARKER);
	return write_marker(pl, fd, dir, err);
}

/* ---- where the sandbox gets it ------------------------------------------------------ */

/* Is PARENT (a mount of the plan, or "/" of "root none") the deepest mount
 * above CAND, with nothing at or beneath CAND? */
static bool place_free(const plan *pl, const char *cand, const char *parent)
{
	const osb_policy *p = pl->p;
	size_t plen = strlen(parent);

	for (size_t i = 0; i < p->n_mounts; i++) {
		const char *m = p->mounts[i].path;

		if (dest_within(m, cand) || (dest_within(cand, m) && strlen(m) > plen))
			return false;
	}
	for (size_t i = 0; i < pl->n_binds; i++) {
		const char *d = pl->binds[i].dest;

		if (dest_within(d, cand) || (dest_within(cand, d) && strlen(d) > plen))
			return false;
	}
	return true;
}

static char *candidate(const plan *pl, const char *parent)
{
	char *cand = NULL;

	if (asprintf(&cand, "%s/%s", strcmp(parent, "/") == 0 ? "" : parent, LAYER_HIDDEN_NAME) < 0)
		return NULL;
	if (place_free(pl, cand, parent))
		return cand;
	free(cand);
	return NULL;
}

char *layer_hidden_dest(const plan *pl)
{
	const osb_policy *p = pl->p;
	char *c = NULL;

	for (size_t i = 0; !c && i < p->n_mounts; i++)
		if (p->mounts[i].kind == MNT_DEV)
			c = candidate(pl, p->mounts[i].path);
	if (!c && p->root == ROOT_NONE)
		c = candidate(pl, "/");
	for (size_t i = 0; !c && i < p->n_mounts; i++)
		if (p->mounts[i].kind == MNT_TMPFS)
			c = candidate(pl, p->mounts[i].path);
	return c;
}

/* ---- the plan's call ------------------------------------------------------------------ */

static int open_checked(const plan *pl, int *out, char **canon, osb_error *err)
{
	const osb_policy *p = pl->p;
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	r = path_open_workspace(p->ws_persist, &(path_roots){ p->ws_roots, p->n_ws_roots,
	                                                       p->ws_roots_from }, &fd, canon, err);
	if (r < 0)
		return about_layer(err, r);
	if (fstat(fd, &st) < 0)
		return refuse(err, OSB_E_PATH, errno, *canon, "cannot stat: %s", strerror(errno));
	if ((r = check_apart(pl, fd, *canon, err)) < 0 ||
	    (r = check_owner(pl, &st, *canon, err)) < 0)
		return r;
	if ((r = path_check_no_mounts_beneath(fd, err)) < 0)
		return about_layer(err, r);
	/* The bind source, and the lock that makes it one sandbox's at a time:
	 * overlayfs mounted twice on one upper layer (index=off only warns) is
	 * undefined. bwrap's copy of the fd shares the lock; it lasts while the
	 * plan's (or the session's duplicate) is open. */
	*out = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*out < 0)
		return refuse(err, OSB_E_PATH, errno, *canon, "cannot open: %s", strerror(errno));
	if (flock(*out, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;

		close(*out);
		*out = -1;
		return refuse(err, OSB_E_USAGE, e, *canon, e == EWOULDBLOCK ? "in use by another run "
		              "or session; one sandbox at a time may use a layer: wait until it has "
		              "ended" : "cannot lock it: %s", strerror(e));
	}
	return 0;
}

int layer_open(const plan *pl, int *fd, char **dest, osb_error *err)
{
	_cleanup_free_ char *canon = NULL;
	int r;

	*fd = -1;
	*dest = NULL;
	if (!pl->p->ws_persist)
		return 0;
	if (pl->p->ws_mode != WS_OVERLAY)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "workspace", "overlay persist directory "
		                   "%s: the workspace is not an overlay (\"workspace overlay\", "
		                   "--workspace-mode overlay); only an overlay has a layer to keep",
		                   pl->p->ws_persist);
	if ((r = open_checked(pl, fd, &canon, err)) < 0 ||
	    (r = check_contents(pl, *fd, canon, err)) < 0)
		goto fail;
	if (!(*dest = layer_hidden_dest(pl))) {
		r = refuse(err, OSB_E_POLICY, EINVAL, canon, "the policy leaves no directory of the "
		           "sandbox's own where the layer can be bound out of the command's reach (a "
		           "dev mount, \"root none\", or a tmpfs): add \"dev /dev\" or a tmpfs");
		goto fail;
	}
	return 0;
fail:
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
	return r;
}

/* ---- discard ---------------------------------------------------------------------------- */

#define CLEAR_DEPTH 256

/* NAME in DFD, when it is a directory of device DEV (never a symlink):
 * given its owner's full access, so that the removal may enter what the
 * sandbox made read-only, and opened. 0 with *OUT, or *OUT NULL when NAME is
 * nothing to enter; -errno. */
static int enter(int dfd, const char *name, dev_t dev, DIR **out)
{
	struct stat st;
	int fd;

	*out = NULL;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode) || st.st_dev != dev)
		return 0;
	if ((st.st_mode & 0700) != 0700 && fchmodat(dfd, name, (st.st_mode & 07777) | 0700, 0) < 0)
		return -errno;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || !(*out = fdopendir(fd))) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		return -e;
	}
	return 0;
}

/* Every directory at and beneath NAME opened up (enter), depth first with
 * a stack of open directories rather than recursion. */
static int open_up(int dfd, const char *name, dev_t dev)
{
	DIR *stack[CLEAR_DEPTH + 1];
	size_t n = 0;
	int r = enter(dfd, name, dev, &stack[0]);

	if (r == 0 && stack[0])
		n = 1;
	while (r == 0 && n > 0) {
		struct dirent *de = readdir(stack[n - 1]);
		DIR *sub = NULL;

		if (!de) {
			closedir(stack[--n]);
			continue;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		r = enter(dirfd(stack[n - 1]), de->d_name, dev, &sub);
		if (r == 0 && sub && n == CLEAR_DEPTH + 1) {
			closedir(sub);
			r = -ELOOP;
		} else if (r == 0 && sub) {
			stack[n++] = sub;
		}
	}
	while (n > 0)
		closedir(stack[--n]);
	return r;
}

int layer_clear(int fd, osb_error *err)
{
	static const char *const parts[] = { "upper", "work", LAYER_MARKER };
	osb_error rm;
	struct stat st;
	int r;

	if (fstat(fd, &st) < 0)
		return osb_err_set(err, OSB_E_IO, errno, "session", "the persisted layer: %s",
		                   strerror(errno));
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
		if ((r = open_up(fd, parts[i], st.st_dev)) < 0)
			return osb_err_set(err, OSB_E_IO, -r, "session", "cannot empty the persisted "
			                   "layer: %s: %s", parts[i], strerror(-r));
		if (osb_remove_tree_beneath(fd, parts[i], &rm) < 0 && rm.sys_errno != ENOENT)
			return osb_err_set(err, rm.code, rm.sys_errno, "session", "cannot empty the "
			                   "persisted layer: %s", rm.message);
	}
	return 0;
}

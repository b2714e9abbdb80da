/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* overlay-diff.c — what an overlay workspace changed: its upper layer walked
 * beside the real workspace (docs/ARCHITECTURE.md, "Overlay workspaces").
 *
 * The upper layer is the sandbox's to write, so nothing in it is trusted:
 * each directory is opened by one name relative to its parent's fd, never
 * following a symlink (O_NOFOLLOW) and never crossing a mount (statx's mount
 * id), and every entry is looked at with fstatat/statx without following.
 * The workspace side is walked the same way beneath the session's fd of it.
 * overlayfs keeps deletions as whiteouts (character devices 0:0) and a
 * directory that replaced a deleted one as opaque (overlay.opaque "y" in the
 * user or trusted xattr namespace); the init mounts it with redirects,
 * metadata-only copy-up and the index off (helper/init-overlay.c), so an
 * entry that carries a redirect or a metacopy xattr is refused rather than
 * misread. A regular file is modified only when its bytes differ: one that
 * was copied up and written back the same is no change.
 *
 * Every added or modified regular file's bytes are hashed as they are read
 * (SHA-256), and the list's fingerprint covers them: what a reviewer was
 * shown can be told from what a commit or an export would write
 * (lib/session-overlay.c), and those check the bytes they copy against the
 * same hashes. The names held are bounded (OVL_MAX_NAME_BYTES), the names of
 * the directories being walked included.
 */
#include "overlay-diff.h"
#include "paths.h"
#include "util.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

struct link_seen {
	dev_t dev;
	ino_t ino;
	char *path;
};

struct walk {
	osb_diff *d;
	const char *opaque_xattr, *redirect_xattr, *metacopy_xattr;
	uint64_t upper_mnt, lower_mnt;
	struct link_seen *links;
	size_t n_links, cap_links;
	size_t names, name_limit;   /* bytes of names held now, and at most */
	char path[PATH_MAX];
	osb_error *err;
};

static atomic_size_t test_name_limit;

void ovl_set_test_name_limit(size_t bytes)
{
	atomic_store(&test_name_limit, bytes);
}

/* One entry of a side, looked at without following. */
struct side {
	bool present;
	struct stat st;
	uint64_t mnt;
};

const char *ovl_type_name(int type)
{
	static const char *const names[] = {
		[OSB_FILE_REGULAR] = "file", [OSB_FILE_DIRECTORY] = "dir",
		[OSB_FILE_SYMLINK] = "symlink", [OSB_FILE_FIFO] = "fifo",
		[OSB_FILE_SOCKET] = "socket", [OSB_FILE_CHAR_DEVICE] = "char",
		[OSB_FILE_BLOCK_DEVICE] = "block",
	};

	return type > 0 && type <= OSB_FILE_BLOCK_DEVICE ? names[type] : NULL;
}

static int type_of(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG: return OSB_FILE_REGULAR;
	case S_IFDIR: return OSB_FILE_DIRECTORY;
	case S_IFLNK: return OSB_FILE_SYMLINK;
	case S_IFIFO: return OSB_FILE_FIFO;
	case S_IFSOCK: return OSB_FILE_SOCKET;
	case S_IFCHR: return OSB_FILE_CHAR_DEVICE;
	case S_IFBLK: return OSB_FILE_BLOCK_DEVICE;
	default: return OSB_FILE_UNKNOWN;
	}
}

/* A path longer than this is shown up to its last '/' within it, with its
 * length: the message (osb_error, 1024 bytes) must keep the reason, which
 * comes after the path (a layer's path may be nearly PATH_MAX long). */
#define WERR_PATH_SHOWN 600

static int werr(struct walk *w, int code, int e, const char *what)
{
	const char *p = w->path[0] ? w->path : ".";
	size_t len = strlen(p), shown = len;
	char more[64] = "";

	if (len > WERR_PATH_SHOWN) {
		shown = WERR_PATH_SHOWN;
		while (shown > 1 && p[shown] != '/')
			shown--;
		snprintf(more, sizeof(more), "/... (%zu bytes in all)", len);
	}
	return osb_err_set(w->err, code, e, "session", "overlay workspace: %.*s%s%s%s: %s",
	                   (int)shown, p, more, what[0] ? ": " : "", what,
	                   e ? strerror(e) : "refused");
}

static int nomem(struct walk *w)
{
	return osb_err_set(w->err, OSB_E_NOMEM, ENOMEM, "session", "out of memory");
}

/* N more bytes of names held, or the refusal once beyond the bound. */
static int charge(struct walk *w, size_t n)
{
	char what[96];

	if (n <= w->name_limit - w->names) {
		w->names += n;
		return 0;
	}
	snprintf(what, sizeof(what), "more names than can be listed (%zu bytes of names at most)",
	         w->name_limit);
	return werr(w, OSB_E_PATH, E2BIG, what);
}

static size_t str_bytes(const char *s)
{
	return s ? strlen(s) + 1 : 0;
}

/* ---- looking at entries ---------------------------------------------------------- */

/* NAME in DFD without following; absent is not an error. */
static int look(struct walk *w, int dfd, const char *name, struct side *s)
{
	struct statx sx;

	memset(s, 0, sizeof(*s));
	if (dfd < 0)
		return 0;
	if (statx(dfd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_BASIC_STATS | STATX_MNT_ID,
	          &sx) != 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return werr(w, OSB_E_IO, errno, "statx");
	}
	s->present = true;
	s->st.st_mode = sx.stx_mode;
	s->st.st_uid = sx.stx_uid;
	s->st.st_gid = sx.stx_gid;
	s->st.st_size = (off_t)sx.stx_size;
	s->st.st_nlink = sx.stx_nlink;
	s->st.st_ino = sx.stx_ino;
	s->st.st_dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	s->st.st_rdev = makedev(sx.stx_rdev_major, sx.stx_rdev_minor);
	s->mnt = (sx.stx_mask & STATX_MNT_ID) ? sx.stx_mnt_id : 0;
	return 0;
}

static bool is_whiteout(const struct side *s)
{
	return s->present && S_ISCHR(s->st.st_mode) && s->st.st_rdev == makedev(0, 0);
}

/* The mount an entry is on must be its layer's: no mount beneath either. */
static int same_mount(struct walk *w, const struct side *s, uint64_t layer_mnt, const char *layer)
{
	char what[96];

	if (!s->present || !s->mnt || !layer_mnt || s->mnt == layer_mnt)
		return 0;
	snprintf(what, sizeof(what), "a mount beneath the %s (not listed)", layer);
	return werr(w, OSB_E_PATH, EXDEV, what);
}

/* Open directory NAME of DFD: one name, no symlink, on the layer's mount. */
static int open_dir(struct walk *w, int dfd, const char *name, uint64_t layer_mnt, int *out)
{
	uint64_t mnt = 0;
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return werr(w, OSB_E_IO, errno, "cannot open the directory");
	if (layer_mnt && path_mount_id(fd, &mnt) == 0 && mnt != layer_mnt) {
		close(fd);
		return werr(w, OSB_E_PATH, EXDEV, "a mount beneath the layer (not listed)");
	}
	*out = fd;
	return 0;
}

static bool has_xattr(int fd, const char *name, char *val, size_t size)
{
	ssize_t n = fgetxattr(fd, name, val, size);

	if (n >= 0 && (size_t)n < size)
		val[n] = '\0';
	return n >= 0 || errno == ERANGE;
}

/* Opaque ("y"), or not; anything overlayfs was told not to make is refused. */
static int dir_opaque(struct walk *w, int fd, bool *opaque)
{
	char v[8] = "";

	if (has_xattr(fd, w->redirect_xattr, v, sizeof(v)))
		return werr(w, OSB_E_PATH, EINVAL, "a renamed directory with a redirect, which "
		            "osb-isolate's overlays do not make");
	*opaque = has_xattr(fd, w->opaque_xattr, v, sizeof(v));
	if (*opaque && strcmp(v, "y") != 0)
		return werr(w, OSB_E_PATH, EINVAL, "an opaque directory of a kind osb-isolate's "
		            "overlays do not make");
	return 0;
}

/* ---- comparing ------------------------------------------------------------------- */

static int open_file(struct walk *w, int dfd, const char *name, const struct side *s)
{
	struct stat st;
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return werr(w, OSB_E_IO, errno, "cannot open");
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_ino != s->st.st_ino) {
		close(fd);
		return werr(w, OSB_E_IO, ESTALE, "replaced while it was read");
	}
	return fd;
}

static int read_full(int fd, char *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (int)got;
}

#define CHUNK (64 * 1024)

/* Read the upper file A to its end, hashing it into SHA; with B (>= 0),
 * also compare it with the workspace's file B: 1 when they hold different
 * bytes, 0 when the same (or without B). */
static int hash_and_compare(struct walk *w, int a, int b, uint8_t sha[SHA256_DIGEST_LEN])
{
	_cleanup_free_ char *x = malloc(2 * CHUNK);
	sha256_ctx h;
	int differ = b < 0 ? 0 : -1;

	if (!x)
		return nomem(w);
	sha256_init(&h);
	for (;;) {
		int na = read_full(a, x, CHUNK), nb;

		if (na < 0)
			return werr(w, OSB_E_IO, -na, "read");
		sha256_update(&h, x, (size_t)na);
		if (differ < 0) {
			if ((nb = read_full(b, x + CHUNK, CHUNK)) < 0)
				return werr(w, OSB_E_IO, -nb, "read");
			if (na != nb || memcmp(x, x + CHUNK, (size_t)na) != 0)
				differ = 1;
			else if (na == 0)
				differ = 0;
		}
		if (na == 0)
			break;
	}
	sha256_final(&h, sha);
	return differ < 0 ? 1 : differ;
}

/* The upper layer's regular file NAME, opened to be read. */
static int open_upper(struct walk *w, int ufd, const char *name, const struct side *u)
{
	int a = open_file(w, ufd, name, u);
	char v[8];

	if (a >= 0 && has_xattr(a, w->metacopy_xattr, v, sizeof(v))) {
		close(a);
		return werr(w, OSB_E_PATH, EINVAL, "a metadata-only copy-up, which osb-isolate's "
		            "overlays do not make");
	}
	return a;
}

/* 1 when the upper file differs from the workspace's, else 0; its bytes
 * hashed into SHA either way. */
static int content_differs(struct walk *w, int ufd, int lfd, const char *name,
                           const struct side *u, const struct side *l,
                           uint8_t sha[SHA256_DIGEST_LEN])
{
	_cleanup_close_ int a = -1, b = -1;

	if ((a = open_upper(w, ufd, name, u)) < 0)
		return a;
	if (u->st.st_size != l->st.st_size) {
		int r = hash_and_compare(w, a, -1, sha);

		return r < 0 ? r : 1;
	}
	if ((b = open_file(w, lfd, name, l)) < 0)
		return b;
	return hash_and_compare(w, a, b, sha);
}

/* The bytes of the upper file NAME hashed into E. */
static int hash_upper(struct walk *w, int ufd, const char *name, const struct side *u,
                      ovl_entry *e)
{
	_cleanup_close_ int a = open_upper(w, ufd, name, u);
	int r;

	if (a < 0)
		return a;
	if ((r = hash_and_compare(w, a, -1, e->sha)) < 0)
		return r;
	e->hashed = true;
	return 0;
}

static int read_target(struct walk *w, int dfd, const char *name, char **out)
{
	char buf[PATH_MAX];
	ssize_t n = readlinkat(dfd, name, buf, sizeof(buf));

	if (n < 0)
		return werr(w, OSB_E_IO, errno, "readlink");
	if ((size_t)n >= sizeof(buf))
		return werr(w, OSB_E_PATH, ENAMETOOLONG, "symlink target");
	*out = strndup(buf, (size_t)n);
	return *out ? 0 : nomem(w);
}

/* ---- the list --------------------------------------------------------------------- */

static int add_entry(struct walk *w, int kind, ovl_entry **out)
{
	osb_diff *d = w->d;
	ovl_entry *e;
	ovl_entry *nv;

	if (d->n >= OVL_MAX_CHANGES)
		return werr(w, OSB_E_PATH, E2BIG, "more changes than can be listed (1048576)");
	if (!(nv = array_grow(d->v, &d->cap, d->n, sizeof(*nv))))
		return nomem(w);
	d->v = nv;
	e = &d->v[d->n];
	memset(e, 0, sizeof(*e));
	if (!(e->path = strdup(w->path)))
		return nomem(w);
	d->n++;
	e->c.kind = kind;
	*out = e;
	return 0;
}

static void set_new(ovl_entry *e, const struct side *u)
{
	e->c.type = type_of(u->st.st_mode);
	e->c.mode = u->st.st_mode & 07777;
	if (S_ISREG(u->st.st_mode) || S_ISLNK(u->st.st_mode))
		e->c.size = (uint64_t)u->st.st_size;
}

static void set_old(ovl_entry *e, const struct side *l)
{
	e->c.old_type = type_of(l->st.st_mode);
	e->c.old_mode = l->st.st_mode & 07777;
	e->old_uid = l->st.st_uid;
	e->old_gid = l->st.st_gid;
}

/* The first name of a regular file with several links, or NULL (and it is
 * remembered under this entry's path). */
static int link_of(struct walk *w, const struct side *u, const char **first)
{
	struct link_seen *nl;

	*first = NULL;
	if (!S_ISREG(u->st.st_mode) || u->st.st_nlink < 2)
		return 0;
	for (size_t i = 0; i < w->n_links; i++)
		if (w->links[i].dev == u->st.st_dev && w->links[i].ino == u->st.st_ino) {
			*first = w->links[i].path;
			return 0;
		}
	if (charge(w, str_bytes(w->path)) < 0)
		return -OSB_E_PATH;
	if (!(nl = array_grow(w->links, &w->cap_links, w->n_links, sizeof(*nl))))
		return nomem(w);
	w->links = nl;
	nl[w->n_links] = (struct link_seen){ u->st.st_dev, u->st.st_ino, strdup(w->path) };
	return nl[w->n_links++].path ? 0 : nomem(w);
}

/* Fill what an added or modified entry shows in the session's view. */
static int fill_new(struct walk *w, ovl_entry *e, int ufd, const char *name,
                    const struct side *u, const char *first)
{
	set_new(e, u);
	if (S_ISREG(u->st.st_mode))
		w->d->bytes += (uint64_t)u->st.st_size;
	if (first && !(e->hardlink = strdup(first)))
		return nomem(w);
	if (S_ISLNK(u->st.st_mode) && read_target(w, ufd, name, &e->target) < 0)
		return -OSB_E_IO;
	if (S_ISREG(u->st.st_mode) && !e->hashed)
		return hash_upper(w, ufd, name, u, e);
	return 0;
}

/* What differs between two entries of the same type: OSB_CHANGED_* bits,
 * or -OSB_E_* (the upper target read into *TARGET for a symlink, a regular
 * file's bytes hashed into E's sha). */
static int compare(struct walk *w, int ufd, int lfd, const char *name, const struct side *u,
                   const struct side *l, char **target, char **old_target, ovl_entry *e)
{
	int what = 0, r;

	if (S_ISREG(u->st.st_mode)) {
		if ((r = content_differs(w, ufd, lfd, name, u, l, e->sha)) < 0)
			return r;
		e->hashed = true;
		what |= r ? (int)OSB_CHANGED_CONTENT : 0;
	}
	if (S_ISLNK(u->st.st_mode)) {
		if ((r = read_target(w, ufd, name, target)) < 0 ||
		    (r = read_target(w, lfd, name, old_target)) < 0)
			return r;
		what |= strcmp(*target, *old_target) != 0 ? (int)OSB_CHANGED_TARGET : 0;
	} else if ((u->st.st_mode & 07777) != (l->st.st_mode & 07777)) {
		what |= (int)OSB_CHANGED_MODE;
	}
	return what;
}

static int on_added(struct walk *w, int ufd, const char *name, const struct side *u,
                    const char *first)
{
	ovl_entry *e;
	int r = add_entry(w, OSB_CHANGE_ADDED, &e);

	return r < 0 ? r : fill_new(w, e, ufd, name, u, first);
}

/* An entry in both layers (not a whiteout). */
static int on_both(struct walk *w, int ufd, int lfd, const char *name, const struct side *u,
                   const struct side *l, const char *first)
{
	_cleanup_free_ char *target = NULL, *old_target = NULL;
	ovl_entry seen = { .hashed = false }, *e;
	int what, r;

	if ((u->st.st_mode & S_IFMT) != (l->st.st_mode & S_IFMT))
		what = OSB_CHANGED_TYPE;
	else if ((what = compare(w, ufd, lfd, name, u, l, &target, &old_target, &seen)) < 0)
		return what;
	if (!what)
		return 0;
	if ((r = add_entry(w, OSB_CHANGE_MODIFIED, &e)) < 0)
		return r;
	e->hashed = seen.hashed;
	memcpy(e->sha, seen.sha, sizeof(e->sha));
	e->c.what = (unsigned)what;
	set_old(e, l);
	if (what != OSB_CHANGED_TYPE && S_ISLNK(u->st.st_mode)) {
		set_new(e, u);
		e->target = target;
		e->old_target = old_target;
		target = old_target = NULL;
		return 0;
	}
	if (S_ISLNK(l->st.st_mode) && (r = read_target(w, lfd, name, &e->old_target)) < 0)
		return r;
	return fill_new(w, e, ufd, name, u, first);
}

static int on_deleted(struct walk *w, int lfd, const char *name, const struct side *l)
{
	ovl_entry *e;
	int r = add_entry(w, OSB_CHANGE_DELETED, &e);

	if (r < 0)
		return r;
	set_old(e, l);
	if (S_ISLNK(l->st.st_mode))
		return read_target(w, lfd, name, &e->old_target);
	return 0;
}

/* The entry NAME of the upper directory UFD (LFD: the workspace's
 * directory at the same place, or -1): 1 when it is a directory to descend
 * into (*L: what the workspace has there), 0 when not, or -OSB_E_*. */
static int on_upper(struct walk *w, int ufd, int lfd, const char *name, struct side *lp)
{
	struct side u, l;
	const char *first;
	int r;

	if ((r = look(w, ufd, name, &u)) < 0 || (r = look(w, lfd, name, &l)) < 0)
		return r;
	*lp = l;
	if (!u.present)
		return 0;   /* gone meanwhile: a command removed it */
	if ((r = same_mount(w, &u, w->upper_mnt, "upper layer")) < 0 ||
	    (r = same_mount(w, &l, w->lower_mnt, "workspace")) < 0)
		return r;
	if (is_whiteout(&u))
		return l.present ? on_deleted(w, lfd, name, &l) : 0;
	if ((r = link_of(w, &u, &first)) < 0)
		return r;
	r = l.present ? on_both(w, ufd, lfd, name, &u, &l, first) : on_added(w, ufd, name, &u, first);
	return r == 0 && S_ISDIR(u.st.st_mode) ? 1 : r;
}

/* A workspace entry an opaque directory hides. */
static int on_hidden(struct walk *w, int lfd, const char *name)
{
	struct side l;
	int r = look(w, lfd, name, &l);

	if (r < 0 || !l.present)
		return r;
	if ((r = same_mount(w, &l, w->lower_mnt, "workspace")) < 0)
		return r;
	return on_deleted(w, lfd, name, &l);
}

/* ---- directories ---------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in directory DFD (not "." or ".."), sorted bytewise; *HELD
 * grows by the bytes they take (charged). */
static int read_names(struct walk *w, int dfd, strv *out, size_t *held)
{
	int fd = dfd < 0 ? -1 : openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;
	struct dirent *de;

	if (dfd < 0)
		return 0;
	if (fd < 0 || !(d = fdopendir(fd))) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		return werr(w, OSB_E_IO, e, "cannot list the directory");
	}
	while ((errno = 0, de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (charge(w, str_bytes(de->d_name)) < 0) {
			closedir(d);
			return -OSB_E_PATH;
		}
		*held += str_bytes(de->d_name);
		if (strv_push(out, de->d_name) < 0) {
			closedir(d);
			return nomem(w);
		}
	}
	closedir(d);
	if (errno)
		return werr(w, OSB_E_IO, errno, "cannot list the directory");
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_str);
	return 0;
}

/* W->path extended by NAME; *SAVED: its length before. */
static int with_name(struct walk *w, const char *name, size_t *saved)
{
	size_t len = strlen(w->path), add = strlen(name) + (len ? 1 : 0);

	*saved = len;
	if (len + add >= sizeof(w->path))
		return werr(w, OSB_E_PATH, ENAMETOOLONG, "a path longer than PATH_MAX");
	snprintf(w->path + len, sizeof(w->path) - len, "%s%s", len ? "/" : "", name);
	return 0;
}

/* One directory being walked: the upper one and the workspace's at the
 * same place (-1: none there), their sorted names and how far the merge of
 * the two lists has gone. An opaque directory lists the workspace's names
 * too: each it lacks is a deletion. The walk keeps a stack of these (no
 * recursion): at most OVL_MAX_DEPTH, two fds each. */
struct level {
	int ufd, lfd;
	strv un, ln;
	size_t i, j;
	size_t saved;        /* W->path's length above this directory */
	size_t held;         /* the bytes of names UN and LN take (charged) */
};

struct stack {
	struct level *v;
	size_t n, cap;
};

static void level_free(struct level *lv)
{
	if (lv->ufd >= 0)
		close(lv->ufd);
	if (lv->lfd >= 0)
		close(lv->lfd);
	strv_free(&lv->un);
	strv_free(&lv->ln);
}

/* Push the directory UFD over LFD (both owned by the stack from now on). */
static int push(struct walk *w, struct stack *st, int ufd, int lfd, size_t saved)
{
	struct level *nv = array_grow(st->v, &st->cap, st->n, sizeof(*nv)), *lv;
	bool opaque = false;
	int r;

	if (!nv) {
		close(ufd);
		if (lfd >= 0)
			close(lfd);
		return nomem(w);
	}
	st->v = nv;
	lv = &st->v[st->n++];
	*lv = (struct level){ .ufd = ufd, .lfd = lfd, .saved = saved };
	if ((r = dir_opaque(w, ufd, &opaque)) < 0 || (r = read_names(w, ufd, &lv->un, &lv->held)) < 0)
		return r;
	return opaque ? read_names(w, lfd, &lv->ln, &lv->held) : 0;
}

/* Descend into the upper directory NAME of LV (and the workspace's, if a
 * directory is there too); W->path already names it. */
static int descend(struct walk *w, struct stack *st, const char *name, const struct side *l,
                   size_t saved)
{
	struct level *lv = &st->v[st->n - 1];
	int cu = -1, cl = -1, r;

	if (st->n > OVL_MAX_DEPTH)
		return werr(w, OSB_E_PATH, ELOOP, "more than 256 directory levels");
	if ((r = open_dir(w, lv->ufd, name, w->upper_mnt, &cu)) < 0)
		return r;
	if (l->present && S_ISDIR(l->st.st_mode) &&
	    (r = open_dir(w, lv->lfd, name, w->lower_mnt, &cl)) < 0) {
		close(cu);
		return r;
	}
	return push(w, st, cu, cl, saved);
}

/* The bytes an entry's strings take, charged once it is listed. */
static int charge_entry(struct walk *w, const ovl_entry *e)
{
	return charge(w, str_bytes(e->path) + str_bytes(e->target) + str_bytes(e->old_target) +
	                 str_bytes(e->hardlink));
}

/* The next name of the top directory: in the upper layer (maybe also in
 * the workspace), or in the workspace only (under an opaque directory). */
static int step(struct walk *w, struct stack *st)
{
	struct level *lv = &st->v[st->n - 1];
	bool upper = lv->i < lv->un.n &&
	             (lv->j == lv->ln.n || strcmp(lv->un.v[lv->i], lv->ln.v[lv->j]) <= 0);
	const char *name = upper ? lv->un.v[lv->i] : lv->ln.v[lv->j];
	struct side l = { .present = false };
	size_t saved, before;
	int r, c;

	/* A name in both lists is one entry: both move on. */
	if (!upper || (lv->j < lv->ln.n && strcmp(name, lv->ln.v[lv->j]) == 0))
		lv->j++;
	lv->i += upper;
	if ((r = with_name(w, name, &saved)) < 0)
		return r;
	before = w->d->n;
	r = upper ? on_upper(w, lv->ufd, lv->lfd, name, &l) : on_hidden(w, lv->lfd, name);
	if (r >= 0 && w->d->n > before && (c = charge_entry(w, &w->d->v[w->d->n - 1])) < 0)
		return c;
	if (r == 1)
		return descend(w, st, name, &l, saved);
	w->path[saved] = '\0';
	return r;
}

/* Walk the upper directory UPPER over the workspace's LOWER (both owned). */
static int walk(struct walk *w, int upper, int lower)
{
	struct stack st = { 0 };
	int r = push(w, &st, upper, lower, 0);

	while (r == 0 && st.n) {
		struct level *lv = &st.v[st.n - 1];

		if (lv->i < lv->un.n || lv->j < lv->ln.n) {
			r = step(w, &st);
			continue;
		}
		w->path[lv->saved] = '\0';
		w->names -= lv->held;
		level_free(lv);
		st.n--;
	}
	while (st.n)
		level_free(&st.v[--st.n]);
	free(st.v);
	return r;
}

/* The public views point at their strings once the array no longer moves. */
static void finalize(osb_diff *d)
{
	for (size_t i = 0; i < d->n; i++) {
		ovl_entry *e = &d->v[i];

		e->c.path = e->path;
		e->c.target = e->target;
		e->c.old_target = e->old_target;
		e->c.hardlink = e->hardlink;
	}
}

static void walk_free(struct walk *w)
{
	for (size_t i = 0; i < w->n_links; i++)
		free(w->links[i].path);
	free(w->links);
}

int ovl_diff(int upper_fd, int lower_fd, bool userxattr, osb_diff **out, osb_error *err)
{
	struct walk w = {
		.opaque_xattr = userxattr ? "user.overlay.opaque" : "trusted.overlay.opaque",
		.redirect_xattr = userxattr ? "user.overlay.redirect" : "trusted.overlay.redirect",
		.metacopy_xattr = userxattr ? "user.overlay.metacopy" : "trusted.overlay.metacopy",
		.name_limit = atomic_load(&test_name_limit),
		.err = err,
	};
	int lower = openat(lower_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), upper, r;

	*out = NULL;
	if (!w.name_limit)
		w.name_limit = OVL_MAX_NAME_BYTES;
	if (lower < 0)
		return osb_err_set(err, OSB_E_IO, errno, "session", "overlay workspace: cannot open "
		                   "the workspace: %s", strerror(errno));
	if ((upper = openat(upper_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		close(lower);
		return osb_err_set(err, OSB_E_IO, errno, "session", "overlay workspace: cannot open "
		                   "the upper layer: %s", strerror(errno));
	}
	if (!(w.d = calloc(1, sizeof(*w.d)))) {
		close(lower);
		close(upper);
		return nomem(&w);
	}
	if (path_mount_id(upper, &w.upper_mnt) < 0 || path_mount_id(lower, &w.lower_mnt) < 0)
		w.upper_mnt = w.lower_mnt = 0;
	r = walk(&w, upper, lower);
	walk_free(&w);
	if (r < 0) {
		osb_diff_free(w.d);
		return r;
	}
	finalize(w.d);
	*out = w.d;
	return 0;
}

/* ---- the public list --------------------------------------------------------------- */

size_t osb_diff_count(const osb_diff *d)
{
	return d ? d->n : 0;
}

const osb_change *osb_diff_get(const osb_diff *d, size_t i)
{
	return d && i < d->n ? &d->v[i].c : NULL;
}

void osb_diff_free(osb_diff *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].path);
		free(d->v[i].target);
		free(d->v[i].old_target);
		free(d->v[i].hardlink);
	}
	free(d->v);
	free(d->workspace);
	free(d);
}

/* ---- the fingerprint ------------------------------------------------------------ */

static void fp_u64(sha256_ctx *h, uint64_t v)
{
	uint8_t b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	sha256_update(h, b, sizeof(b));
}

/* A string with its length first (NULL apart from ""): no two lists read
 * as the same bytes. */
static void fp_str(sha256_ctx *h, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	fp_u64(h, s ? (uint64_t)n : UINT64_MAX);
	sha256_update(h, s ? s : "", n);
}

void ovl_fingerprint(const osb_diff *d, uint8_t out[SHA256_DIGEST_LEN])
{
	sha256_ctx h;

	sha256_init(&h);
	sha256_update(&h, "osb-isolate/changes/1", sizeof("osb-isolate/changes/1"));
	fp_u64(&h, d->n);
	for (size_t i = 0; i < d->n; i++) {
		const ovl_entry *e = &d->v[i];

		fp_u64(&h, (uint64_t)e->c.kind);
		fp_u64(&h, e->c.what);
		fp_u64(&h, (uint64_t)e->c.type);
		fp_u64(&h, (uint64_t)e->c.old_type);
		fp_u64(&h, e->c.mode);
		fp_u64(&h, e->c.old_mode);
		fp_u64(&h, e->c.size);
		fp_str(&h, e->path);
		fp_str(&h, e->target);
		fp_str(&h, e->old_target);
		fp_str(&h, e->hardlink);
		fp_u64(&h, e->hashed);
		if (e->hashed)
			sha256_update(&h, e->sha, sizeof(e->sha));
	}
	sha256_final(&h, out);
}

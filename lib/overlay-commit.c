/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* overlay-commit.c — an overlay session's changes applied to the real
 * workspace (docs/ARCHITECTURE.md, "Commit").
 *
 * The list is overlay-diff.c's, made while the broker holds the sandbox
 * still (nothing of it runs, so the upper layer cannot change under the
 * commit). Every write lands beneath the workspace's verified fd through the
 * safe file API: regular files through the atomic writer (a temporary file
 * renamed over the name, so each file is the old one or the whole new one),
 * directories with osb_mkdir_beneath(), deletions with
 * osb_remove_tree_beneath(), and the rest (symbolic links, FIFOs, hard links)
 * made under a temporary name in a parent directory opened beneath the root
 * and renamed into place; no name is ever followed, in either layer.
 * Contents are read from the upper layer with osb_open_beneath(), and the
 * bytes written are the bytes the list hashed (overlay-diff.c): each file
 * is hashed as it is copied, into memory or into the writer's temporary,
 * and put in place only when its hash is the list's; otherwise the commit
 * stops there, that file not applied ("changed while it was committed").
 *
 * Files up to 1 MiB are read whole and written with osb_write_file_beneath
 * (atomic, not fsync'd; an entry another process made meanwhile is
 * replaced), larger ones streamed through the writer (fsync'd each); the
 * workspace's file system is synced once at the end.
 *
 * All or nothing, as far as a file system allows: everything that can be
 * known before the first write is checked first (each entry's type, that
 * its directory is a directory or is made by an earlier change, hard link
 * targets, write access to every directory, free space), and a refusal
 * there applies nothing. A step that fails later (another process changed
 * the workspace meanwhile, a disk error) stops the commit; the report says
 * exactly which changes were applied and which were not.
 *
 * What is committed: types, contents, symlink targets, and permission bits
 * (0777); setuid, setgid and sticky bits never (the report notes each),
 * as everywhere in the safe file API. A directory is made 0700 first and
 * given its mode once everything beneath it is done. Owners: a caller that
 * may change them (root) gives a modified entry its old owner and a new one
 * the owner of its directory; other callers own what they write.
 */
#include "overlay-commit.h"
#include "overlay-diff.h"
#include "sha256.h"
#include "util.h"

#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>

enum { NOT_APPLIED = 0, APPLIED = 1, MODE_PENDING = 2 };

/* Files up to this size are read whole and written in one piece. */
#define SMALL_FILE (1024u * 1024u)

struct commit {
	int upper, ws;
	const osb_diff *d;
	unsigned char *state;       /* per change */
	const char **dirs;          /* paths the list makes directories, sorted */
	size_t n_dirs;
	bool chown_ok;              /* the caller may give entries their owners */
	size_t failed;              /* the change that stopped it; SIZE_MAX: none */
	osb_error step;             /* why */
	strv notes;
	char checked[PATH_MAX];     /* the last directory found writable */
};

/* ---- names ------------------------------------------------------------------------- */

/* PATH's directory into DIR ("." for the root) and its last name. */
static const char *split(const char *path, char *dir, size_t size)
{
	const char *sl = strrchr(path, '/');

	snprintf(dir, size, "%.*s", sl ? (int)(sl - path) : 1, sl ? path : ".");
	return sl ? sl + 1 : path;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool made_dir(const struct commit *c, const char *dir)
{
	return c->n_dirs && bsearch(&dir, c->dirs, c->n_dirs, sizeof(*c->dirs), cmp_str);
}

static int temp_name(char *buf, size_t size)
{
	unsigned char r[6];

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return -errno;
	snprintf(buf, size, ".osb-commit-%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2], r[3], r[4], r[5]);
	return 0;
}

/* ---- entries in a verified directory ---------------------------------------------- */

static int step_fail(struct commit *c, int e, const char *path, const char *what)
{
	return osb_err_set(&c->step, OSB_E_IO, e, "session", "%s: %s: %s", path, what, strerror(e));
}

/* PATH's directory, opened beneath the workspace (no symlink, no mount). */
static int open_parent(struct commit *c, const char *path, const char **base)
{
	char dir[PATH_MAX];

	*base = split(path, dir, sizeof(dir));
	return osb_open_beneath(c->ws, dir, O_RDONLY | O_DIRECTORY, 0, &c->step);
}

/* chmod of the entry NAME of PFD itself: opened O_PATH without following,
 * its type checked, then changed through that fd, never by name. */
static int chmod_entry(int pfd, const char *name, mode_t type, mode_t mode)
{
	int fd = openat(pfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC), r = 0;
	char proc[64];
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || (st.st_mode & S_IFMT) != type) {
		close(fd);
		return -ESTALE;
	}
#ifdef __NR_fchmodat2
	if (syscall(__NR_fchmodat2, fd, "", mode, AT_EMPTY_PATH) == 0) {
		close(fd);
		return 0;
	}
#endif
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (fchmodat(AT_FDCWD, proc, mode, 0) < 0)
		r = -errno;
	close(fd);
	return r;
}

/* The owner an entry gets: its old one when modified, its directory's when
 * new; only for a caller that may change owners. */
static int own_entry(const struct commit *c, int pfd, const char *name, const ovl_entry *e)
{
	struct stat dir;

	if (!c->chown_ok)
		return 0;
	if (e->c.kind == OSB_CHANGE_MODIFIED && !(e->c.what & OSB_CHANGED_TYPE))
		return fchownat(pfd, name, e->old_uid, e->old_gid, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : -errno;
	if (fstat(pfd, &dir) != 0)
		return -errno;
	return fchownat(pfd, name, dir.st_uid, dir.st_gid, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : -errno;
}

/* Put the temporary TMP of PFD in place as NAME (NOREPLACE: only if NAME
 * does not exist); TMP is removed whatever happens. */
static int put_in_place(int pfd, const char *tmp, const char *name, bool noreplace)
{
	int r = renameat2(pfd, tmp, pfd, name, noreplace ? RENAME_NOREPLACE : 0) == 0 ? 0 : -errno;

	/* A rename onto another name of the same file does nothing. */
	if (unlinkat(pfd, tmp, 0) != 0 && errno != ENOENT && r == 0)
		r = -errno;
	return r;
}

/* ---- applying one change ----------------------------------------------------------- */

/* The bytes hashed into H (finished here) must be those E's list hashed. */
static int same_bytes(struct commit *c, const ovl_entry *e, sha256_ctx *h)
{
	uint8_t got[SHA256_DIGEST_LEN];

	sha256_final(h, got);
	if (e->hashed && memcmp(got, e->sha, sizeof(got)) == 0)
		return 0;
	return osb_err_set(&c->step, OSB_E_IO, ESTALE, "session", "%s: changed while it was "
	                   "committed", e->path);
}

static int copy_into(struct commit *c, const ovl_entry *e, osb_file_writer *w)
{
	_cleanup_close_ int src = osb_open_beneath(c->upper, e->path, O_RDONLY, 0, &c->step);
	char buf[64 * 1024];
	sha256_ctx h;

	if (src < 0)
		return src;
	sha256_init(&h);
	for (;;) {
		ssize_t n = read(src, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return step_fail(c, errno, e->path, "reading the session's file");
		if (n == 0)
			return same_bytes(c, e, &h);
		sha256_update(&h, buf, (size_t)n);
		if (osb_writer_write(w, buf, (size_t)n, &c->step) < 0)
			return -OSB_E_IO;
	}
}

/* Mode and owner of what now stands at E's path (TYPE). */
static int finish_entry(struct commit *c, const ovl_entry *e, mode_t type)
{
	const char *base;
	int pfd = open_parent(c, e->path, &base), r;

	if (pfd < 0)
		return pfd;
	r = type == S_IFLNK ? 0 : chmod_entry(pfd, base, type, e->c.mode & 0777);
	if (r == 0)
		r = own_entry(c, pfd, base, e);
	close(pfd);
	return r < 0 ? step_fail(c, -r, e->path, "setting its mode and owner") : 0;
}

/* A small file in one piece: read whole, written with
 * osb_write_file_beneath (atomic, not fsync'd: apply_all syncs the file
 * system once at the end instead of twice per file). */
/* Read the whole of the session's file E (SIZE + 1 bytes of room) into BUF. */
static int read_small(struct commit *c, const ovl_entry *e, char *buf)
{
	_cleanup_close_ int src = osb_open_beneath(c->upper, e->path, O_RDONLY, 0, &c->step);
	size_t got = 0;

	if (src < 0)
		return src;
	while (got <= e->c.size) {
		ssize_t n = read(src, buf + got, e->c.size + 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return step_fail(c, errno, e->path, "reading the session's file");
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return got == e->c.size ? 0 : step_fail(c, ESTALE, e->path, "it changed size since it "
	                                        "was listed");
}

static int write_small(struct commit *c, const ovl_entry *e)
{
	char *buf = malloc(e->c.size + 1);
	sha256_ctx h;
	int r;

	if (!buf)
		return osb_err_set(&c->step, OSB_E_NOMEM, ENOMEM, "session", "out of memory");
	r = read_small(c, e, buf);
	if (r == 0) {
		sha256_init(&h);
		sha256_update(&h, buf, e->c.size);
		r = same_bytes(c, e, &h);
	}
	if (r == 0 && osb_write_file_beneath(c->ws, e->path, buf, e->c.size, 0600, &c->step) < 0)
		r = -OSB_E_IO;
	free(buf);
	return r < 0 ? r : finish_entry(c, e, S_IFREG);
}

static int write_file(struct commit *c, const ovl_entry *e, bool noreplace)
{
	osb_file_writer *w;
	int r;

	if (e->c.size <= SMALL_FILE)
		return write_small(c, e);
	if (!(w = osb_writer_open_beneath(c->ws, e->path, 0600, &c->step)))
		return -OSB_E_IO;
	r = copy_into(c, e, w);
	if (r == 0)
		r = osb_writer_commit(w, noreplace ? OSB_WRITE_NOREPLACE : 0, &c->step);
	osb_writer_free(w);
	return r < 0 ? r : finish_entry(c, e, S_IFREG);
}

/* Another name of a file the workspace has now: a hard link to it. */
static int link_file(struct commit *c, const ovl_entry *e, bool noreplace)
{
	const char *tbase, *base;
	int tpfd = open_parent(c, e->hardlink, &tbase), pfd = -1, r;
	char tmp[64];
	struct stat st;

	if (tpfd < 0)
		return tpfd;
	if ((pfd = open_parent(c, e->path, &base)) < 0) {
		close(tpfd);
		return pfd;
	}
	if (fstatat(tpfd, tbase, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
		r = -ESTALE;
	else if ((r = temp_name(tmp, sizeof(tmp))) == 0)
		r = linkat(tpfd, tbase, pfd, tmp, 0) == 0 ? put_in_place(pfd, tmp, base, noreplace) : -errno;
	close(tpfd);
	close(pfd);
	return r < 0 ? step_fail(c, -r, e->path, "linking it") : 0;
}

/* A symbolic link or a FIFO, made under a temporary name, then renamed. */
static int make_special(struct commit *c, const ovl_entry *e, bool noreplace)
{
	bool fifo = e->c.type == OSB_FILE_FIFO;
	const char *base;
	int pfd = open_parent(c, e->path, &base), r;
	char tmp[64];

	if (pfd < 0)
		return pfd;
	if ((r = temp_name(tmp, sizeof(tmp))) == 0) {
		if (fifo)
			r = mknodat(pfd, tmp, S_IFIFO | 0600, 0) == 0 ? 0 : -errno;
		else
			r = symlinkat(e->target, pfd, tmp) == 0 ? 0 : -errno;
	}
	if (r == 0 && fifo)
		r = chmod_entry(pfd, tmp, S_IFIFO, e->c.mode & 0777);
	if (r == 0)
		r = own_entry(c, pfd, tmp, e);
	if (r == 0)
		r = put_in_place(pfd, tmp, base, noreplace);
	else
		(void)unlinkat(pfd, tmp, 0);
	close(pfd);
	return r < 0 ? step_fail(c, -r, e->path, fifo ? "making the FIFO" : "making the symlink") : 0;
}

/* A directory made for E: its owner now, its mode once what it holds is
 * done (deferred_modes). */
static int own_dir(struct commit *c, const ovl_entry *e)
{
	const char *base;
	int pfd = open_parent(c, e->path, &base), r;

	if (pfd < 0)
		return pfd;
	r = own_entry(c, pfd, base, e);
	close(pfd);
	return r < 0 ? step_fail(c, -r, e->path, "setting its owner") : MODE_PENDING;
}

/* What is not at E's path yet: made there. Returns the new state. */
static int create(struct commit *c, const ovl_entry *e)
{
	int r;

	switch (e->c.type) {
	case OSB_FILE_DIRECTORY:
		r = osb_mkdir_beneath(c->ws, e->path, 0700, &c->step);
		return r < 0 ? r : own_dir(c, e);
	case OSB_FILE_REGULAR:
		r = e->hardlink ? link_file(c, e, true) : write_file(c, e, true);
		break;
	default:
		r = make_special(c, e, true);
		break;
	}
	return r < 0 ? r : APPLIED;
}

/* The same type at E's path, changed. Returns the new state. */
static int modify(struct commit *c, const ovl_entry *e)
{
	const char *base;
	int pfd, r;

	switch (e->c.type) {
	case OSB_FILE_DIRECTORY:
		return MODE_PENDING;
	case OSB_FILE_REGULAR:
		/* Rewritten whole, even for a mode: overlayfs's copy-up gave the
		 * session a file of its own too, apart from the workspace's other
		 * names of it. */
		r = e->hardlink ? link_file(c, e, false) : write_file(c, e, false);
		break;
	case OSB_FILE_SYMLINK:
		r = make_special(c, e, false);
		break;
	default:
		if ((pfd = open_parent(c, e->path, &base)) < 0)
			return pfd;
		r = chmod_entry(pfd, base, S_IFIFO, e->c.mode & 0777);
		close(pfd);
		r = r < 0 ? step_fail(c, -r, e->path, "changing its mode") : 0;
		break;
	}
	return r < 0 ? r : APPLIED;
}

static int apply_one(struct commit *c, const ovl_entry *e)
{
	int r;

	if (e->c.kind == OSB_CHANGE_DELETED)
		return osb_remove_tree_beneath(c->ws, e->path, &c->step) < 0 ? -OSB_E_IO : APPLIED;
	if (e->c.kind == OSB_CHANGE_ADDED)
		return create(c, e);
	if (!(e->c.what & OSB_CHANGED_TYPE))
		return modify(c, e);
	if ((r = osb_remove_tree_beneath(c->ws, e->path, &c->step)) < 0)
		return r;
	return create(c, e);
}

/* Directories get their modes last, the deepest first: a directory the
 * session made read-only could not have been filled. */
static void deferred_modes(struct commit *c)
{
	for (size_t i = c->d->n; i-- > 0;) {
		const ovl_entry *e = &c->d->v[i];

		if (c->state[i] != MODE_PENDING)
			continue;
		if (finish_entry(c, e, S_IFDIR) < 0) {
			if (c->failed == SIZE_MAX)
				c->failed = i;
			continue;
		}
		c->state[i] = APPLIED;
	}
}

/* What the one-piece writes left in the page cache, on disk now (ws may be
 * an O_PATH fd, which syncfs refuses). */
static void sync_ws(struct commit *c)
{
	int fd = openat(c->ws, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), e = 0;

	if (fd < 0 || syncfs(fd) != 0)
		e = errno;
	if (fd >= 0)
		close(fd);
	if (e && c->failed == SIZE_MAX) {
		step_fail(c, e, ".", "syncing the workspace's file system");
		c->failed = SIZE_MAX - 1;
	}
}

static void apply_all(struct commit *c)
{
	for (size_t i = 0; i < c->d->n && c->failed == SIZE_MAX; i++) {
		int r = apply_one(c, &c->d->v[i]);

		if (r < 0)
			c->failed = i;
		else
			c->state[i] = (unsigned char)r;
	}
	deferred_modes(c);
	sync_ws(c);
}

/* ---- checks before the first write ------------------------------------------------- */

__attribute__((format(printf, 4, 5)))
static int refuse(struct commit *c, size_t i, int e, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->failed = i;
	return osb_err_set(&c->step, e == ENOSPC ? OSB_E_IO : OSB_E_PATH, e, "session", "%s: %s",
	                   i < c->d->n ? c->d->v[i].path : ".", msg);
}

/* DIR (a directory of the workspace the list does not make) must be one,
 * reached without a symlink, and writable by the caller. */
static int dir_usable(struct commit *c, size_t i, const char *dir)
{
	_cleanup_close_ int fd = -1;

	if (strcmp(dir, c->checked) == 0 || made_dir(c, dir))
		return 0;
	if ((fd = osb_open_beneath(c->ws, dir, O_RDONLY | O_DIRECTORY, 0, &c->step)) < 0) {
		c->failed = i;
		return fd;
	}
	if (faccessat(fd, ".", W_OK | X_OK, AT_EACCESS) != 0)
		return refuse(c, i, errno, "its directory %s is not writable by the caller", dir);
	snprintf(c->checked, sizeof(c->checked), "%s", dir);
	return 0;
}

/* The first name of a hard link must be a file the workspace will have. */
static int link_target_ok(struct commit *c, size_t i, const char *target)
{
	osb_file_info fi;

	for (size_t k = 0; k < i; k++)
		if (strcmp(c->d->v[k].path, target) == 0)
			return c->d->v[k].c.type == OSB_FILE_REGULAR ? 0 :
			       refuse(c, i, EINVAL, "its other name %s is not a regular file", target);
	if (osb_lstat_beneath(c->ws, target, &fi, &c->step) < 0 || fi.type != OSB_FILE_REGULAR)
		return refuse(c, i, ESTALE, "its other name %s is not a regular file of the workspace",
		              target);
	return 0;
}

static int check_one(struct commit *c, size_t i)
{
	const osb_change *ch = &c->d->v[i].c;
	char dir[PATH_MAX];
	int t = ch->type;

	(void)split(ch->path, dir, sizeof(dir));
	if (ch->kind != OSB_CHANGE_DELETED && t != OSB_FILE_REGULAR && t != OSB_FILE_DIRECTORY &&
	    t != OSB_FILE_SYMLINK && t != OSB_FILE_FIFO)
		return refuse(c, i, EINVAL, "a %s cannot be committed; remove it in the session",
		              t == OSB_FILE_SOCKET ? "socket" : "device");
	if (ch->hardlink && link_target_ok(c, i, ch->hardlink) < 0)
		return -OSB_E_PATH;
	if (ch->kind != OSB_CHANGE_DELETED && (ch->mode & 07000) &&
	    strv_pushf(&c->notes, "%s: its setuid, setgid and sticky bits are not committed",
	               ch->path) < 0)
		return osb_err_set(&c->step, OSB_E_NOMEM, ENOMEM, "session", "out of memory");
	return dir_usable(c, i, dir);
}

static int check_space(struct commit *c)
{
	struct statvfs sv;
	uint64_t avail;

	if (fstatvfs(c->ws, &sv) != 0)
		return 0;   /* unknown: the writes will say */
	avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	if (c->d->bytes <= avail)
		return 0;
	c->failed = SIZE_MAX - 1;
	return osb_err_set(&c->step, OSB_E_IO, ENOSPC, "session", "the changes hold %llu bytes of "
	                   "files and the workspace's file system has %llu free",
	                   (unsigned long long)c->d->bytes, (unsigned long long)avail);
}

static int check_all(struct commit *c)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < c->d->n; i++)
		r = check_one(c, i);
	return r < 0 ? r : check_space(c);
}

/* ---- the report -------------------------------------------------------------------- */

static json_object *paths(const struct commit *c, bool applied)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < c->d->n; i++)
		if ((c->state[i] == APPLIED) == applied)
			json_object_array_add(a, json_object_new_string(c->d->v[i].path));
	return a;
}

static json_object *failure(const struct commit *c)
{
	json_object *o;

	if (c->failed == SIZE_MAX)
		return NULL;
	o = json_object_new_object();
	if (!o)
		return NULL;
	json_object_object_add(o, "path", c->failed < c->d->n ?
	                       json_object_new_string(c->d->v[c->failed].path) : NULL);
	json_object_object_add(o, "message", json_object_new_string(c->step.message));
	return o;
}

static json_object *report(const struct commit *c)
{
	json_object *o = json_object_new_object(), *notes = json_object_new_array();

	if (!o || !notes) {
		json_object_put(o);
		json_object_put(notes);
		return NULL;
	}
	for (size_t i = 0; i < c->notes.n; i++)
		json_object_array_add(notes, json_object_new_string(c->notes.v[i]));
	json_object_object_add(o, "schema", json_object_new_string("osb-isolate/commit/1"));
	json_object_object_add(o, "workspace", c->d->workspace ?
	                       json_object_new_string(c->d->workspace) : NULL);
	json_object_object_add(o, "committed", json_object_new_boolean(c->failed == SIZE_MAX));
	json_object_object_add(o, "changes", json_object_new_int64((int64_t)c->d->n));
	json_object_object_add(o, "applied", paths(c, true));
	json_object_object_add(o, "not_applied", paths(c, false));
	json_object_object_add(o, "failed", failure(c));
	json_object_object_add(o, "notes", notes);
	return o;
}

static size_t count_applied(const struct commit *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->d->n; i++)
		n += c->state[i] == APPLIED;
	return n;
}

/* ERR from the step that stopped it, and what that left. */
static int commit_error(const struct commit *c, bool checking, osb_error *err)
{
	size_t n = count_applied(c);

	if (checking)
		return osb_err_set(err, c->step.code, c->step.sys_errno, "session", "commit refused, "
		                   "nothing was applied: %s", c->step.message);
	return osb_err_set(err, c->step.code, c->step.sys_errno, "session", "commit stopped: %s; "
	                   "%zu of %zu changes were applied, %zu were not (the report lists them)",
	                   c->step.message, n, c->d->n, c->d->n - n);
}

json_object *ovl_commit_refused(const osb_diff *d, const osb_error *why)
{
	struct commit c = { .d = d, .failed = SIZE_MAX - 1, .step = *why };
	json_object *o;

	if (!(c.state = calloc(d->n ? d->n : 1, 1)))
		return NULL;
	o = report(&c);
	free(c.state);
	return o;
}

int ovl_commit(int upper_fd, int ws_fd, const osb_diff *d, json_object **out, osb_error *err)
{
	struct commit c = { .upper = upper_fd, .ws = ws_fd, .d = d, .failed = SIZE_MAX,
	                    .chown_ok = geteuid() == 0 };
	int r = 0;
	bool checking = true;

	*out = NULL;
	c.state = calloc(d->n ? d->n : 1, 1);
	c.dirs = calloc(d->n ? d->n : 1, sizeof(*c.dirs));
	if (!c.state || !c.dirs) {
		r = osb_err_set(err, OSB_E_NOMEM, ENOMEM, "session", "out of memory");
		goto out;
	}
	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].c.kind != OSB_CHANGE_DELETED && d->v[i].c.type == OSB_FILE_DIRECTORY)
			c.dirs[c.n_dirs++] = d->v[i].path;
	qsort(c.dirs, c.n_dirs, sizeof(*c.dirs), cmp_str);
	if (check_all(&c) == 0) {
		checking = false;
		apply_all(&c);
	}
	if (c.failed != SIZE_MAX)
		r = commit_error(&c, checking, err);
	*out = report(&c);
out:
	free(c.state);
	free(c.dirs);
	strv_free(&c.notes);
	return r;
}

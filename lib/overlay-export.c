/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* overlay-export.c — an overlay session's changes as a tar stream, written
 * by libarchive (POSIX pax format, restricted: plain ustar headers unless a
 * name or a value needs a pax extension).
 *
 * libarchive is loaded on the first export (dlopen, by the soname configure
 * found), not with the library: it brings libxml2, ICU and libstdc++ with
 * it, which every process that links the library (the command, a session's
 * holder, a daemon) would otherwise load and bind at its start, to export
 * nothing. A missing or broken libarchive fails the export with its own
 * message, nothing written; nothing else needs it.
 *
 * The archive is the change list of overlay-diff.c applied as a layer: each
 * added or modified entry as the session sees it (a regular file with its
 * bytes, a directory, a symbolic link with its target, a FIFO), and each
 * deletion as the OCI image layout spells one, an empty regular file named
 * ".wh." followed by the deleted name, in the same directory. A file that
 * is another name of one already in the archive is a hard link entry to
 * it. Owners are the numeric ids the caller sees, without names. What the
 * archive cannot say is refused before anything is written: a socket or a
 * device in the session's view, and a name that starts with ".wh." (it
 * would read as a deletion). Contents are read beneath the upper directory
 * fd with the safe file API (no symlink, no mount crossing), each entry's
 * inode checked to be the one whose metadata the header gives, and each
 * file's bytes hashed as they are written and checked against the hash the
 * list made of them (overlay-diff.c): an archive whose bytes are not those
 * the list was made of fails ("changed while it was exported"), and the
 * command removes the file it was writing.
 */
#include "overlay-export.h"
#include "overlay-diff.h"
#include "sha256.h"
#include "util.h"

#include <archive.h>
#include <archive_entry.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>

#define WHITEOUT_PREFIX ".wh."

/* ---- libarchive, loaded when first needed --------------------------------------- */

#define ARC_FUNCS(X)                                                                      \
	X(write_new) X(write_set_format_pax_restricted) X(write_open_fd) X(write_header)   \
	X(write_data) X(write_close) X(write_free) X(error_string) X(entry_new)            \
	X(entry_free) X(entry_clear) X(entry_set_pathname) X(entry_set_filetype)            \
	X(entry_set_perm) X(entry_set_size) X(entry_set_uid) X(entry_set_gid)               \
	X(entry_set_mtime) X(entry_set_hardlink) X(entry_set_symlink)

/* Each pointer has the type of the function archive.h declares. */
static struct {
#define ARC_FIELD(f) __typeof__(&archive_##f)(f);
	ARC_FUNCS(ARC_FIELD)
#undef ARC_FIELD
	__typeof__(&archive_errno) errno_of;    /* errno is a macro */
} arc;
static pthread_once_t arc_once = PTHREAD_ONCE_INIT;
static char arc_why[256];     /* empty once loaded; else why not */

static void arc_load(void)
{
	/* Never unloaded: its functions are used from any thread afterwards. */
	void *h = dlopen(ARCHIVE_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	const char *e;

	if (!h) {
		e = dlerror();
		snprintf(arc_why, sizeof(arc_why), "%s", e ? e : "dlopen failed");
		return;
	}
#define ARC_SYM(f)                                                                        \
	if (!arc_why[0] && !(*(void **)&arc.f = dlsym(h, "archive_" #f)))                  \
		snprintf(arc_why, sizeof(arc_why), "%s has no archive_" #f, ARCHIVE_SONAME);
	ARC_FUNCS(ARC_SYM)
#undef ARC_SYM
	if (!arc_why[0] && !(*(void **)&arc.errno_of = dlsym(h, "archive_errno")))
		snprintf(arc_why, sizeof(arc_why), "%s has no archive_errno", ARCHIVE_SONAME);
}

static int arc_need(osb_error *err)
{
	(void)pthread_once(&arc_once, arc_load);
	if (!arc_why[0])
		return 0;
	return osb_err_set(err, OSB_E_HOST, ELIBACC, "session", "overlay workspace: exporting "
	                   "needs libarchive (%s), which could not be loaded: %s; install it "
	                   "(Debian: libarchive13)", ARCHIVE_SONAME, arc_why);
}

static const char *base_name(const char *path)
{
	const char *sl = strrchr(path, '/');

	return sl ? sl + 1 : path;
}

/* What the archive cannot hold, refused up front: nothing is written then. */
static int exportable(const osb_change *c, osb_error *err)
{
	if (strncmp(base_name(c->path), WHITEOUT_PREFIX, strlen(WHITEOUT_PREFIX)) == 0)
		return osb_err_set(err, OSB_E_PATH, EINVAL, "session", "overlay workspace: %s: a "
		                   "name starting with \".wh.\" cannot be exported (the archive "
		                   "spells deletions so); rename it in the session", c->path);
	if (c->kind == OSB_CHANGE_DELETED)
		return 0;
	if (c->type == OSB_FILE_SOCKET || c->type == OSB_FILE_CHAR_DEVICE ||
	    c->type == OSB_FILE_BLOCK_DEVICE || c->type == OSB_FILE_UNKNOWN)
		return osb_err_set(err, OSB_E_PATH, EINVAL, "session", "overlay workspace: %s: a %s "
		                   "cannot be exported; remove it in the session", c->path,
		                   c->type == OSB_FILE_SOCKET ? "socket" : "device");
	return 0;
}

/* ---- hard links: which first names are in the archive already -------------------- */

struct links {
	const char **names;      /* the targets of the list's hard links, sorted, unique */
	bool *written;
	size_t n;
};

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int links_init(struct links *l, const osb_diff *d)
{
	size_t n = 0;

	memset(l, 0, sizeof(*l));
	for (size_t i = 0; i < d->n; i++)
		n += d->v[i].c.hardlink != NULL;
	if (!n)
		return 0;
	l->names = calloc(n, sizeof(*l->names));
	l->written = calloc(n, sizeof(*l->written));
	if (!l->names || !l->written)
		return -ENOMEM;
	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].c.hardlink)
			l->names[l->n++] = d->v[i].c.hardlink;
	qsort(l->names, l->n, sizeof(*l->names), cmp_name);
	return 0;
}

static ssize_t links_find(const struct links *l, const char *path)
{
	const char **p = l->n ? bsearch(&path, l->names, l->n, sizeof(*l->names), cmp_name) : NULL;

	return p ? p - l->names : -1;
}

static void links_free(struct links *l)
{
	free(l->names);
	free(l->written);
}

/* ---- entries ---------------------------------------------------------------------- */

struct exporter {
	struct archive *a;
	struct archive_entry *e;
	int upper;
	struct links links;
	osb_error *err;
};

static int arc_fail(struct exporter *x, const char *path)
{
	const char *why = arc.error_string(x->a);

	return osb_err_set(x->err, OSB_E_IO, arc.errno_of(x->a), "session", "overlay workspace: "
	                   "writing the archive (%s): %s", path, why ? why : "failed");
}

static int put_header(struct exporter *x, const char *path)
{
	return arc.write_header(x->a, x->e) == ARCHIVE_OK ? 0 : arc_fail(x, path);
}

/* The deletion of PATH: an empty ".wh.NAME" beside it. */
static int put_whiteout(struct exporter *x, const char *path)
{
	const char *base = base_name(path);
	_cleanup_free_ char *name = NULL;

	if (asprintf(&name, "%.*s" WHITEOUT_PREFIX "%s", (int)(base - path), path, base) < 0)
		return osb_err_set(x->err, OSB_E_NOMEM, ENOMEM, "session", "out of memory");
	arc.entry_set_pathname(x->e, name);
	arc.entry_set_filetype(x->e, AE_IFREG);
	arc.entry_set_perm(x->e, 0644);
	arc.entry_set_size(x->e, 0);
	return put_header(x, name);
}

static void set_meta(struct exporter *x, const char *path, const osb_file_info *fi)
{
	arc.entry_set_pathname(x->e, path);
	arc.entry_set_perm(x->e, fi->mode);
	arc.entry_set_uid(x->e, fi->uid);
	arc.entry_set_gid(x->e, fi->gid);
	arc.entry_set_mtime(x->e, fi->mtime_sec, (long)fi->mtime_nsec);
}

static int changed(struct exporter *x, const char *path)
{
	return osb_err_set(x->err, OSB_E_IO, ESTALE, "session", "overlay workspace: %s: changed "
	                   "while it was exported", path);
}

static int copy_data(struct exporter *x, int fd, uint64_t size, const char *path, sha256_ctx *h)
{
	char buf[64 * 1024];
	uint64_t done = 0;

	while (done < size) {
		ssize_t n = read(fd, buf, size - done < sizeof(buf) ? (size_t)(size - done) : sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return osb_err_set(x->err, OSB_E_IO, n < 0 ? errno : ESTALE, "session",
			                   "overlay workspace: %s: %s", path, n < 0 ? strerror(errno) :
			                   "it shrank while it was exported");
		sha256_update(h, buf, (size_t)n);
		if (arc.write_data(x->a, buf, (size_t)n) != n)
			return arc_fail(x, path);
		done += (uint64_t)n;
	}
	return 0;
}

/* A regular file: its bytes, or a hard link to its first name when that is
 * in the archive already. */
static int put_regular(struct exporter *x, const ovl_entry *e, const osb_file_info *fi)
{
	const osb_change *c = &e->c;
	ssize_t k = c->hardlink ? links_find(&x->links, c->hardlink) : -1;
	_cleanup_close_ int fd = -1;
	uint8_t got[SHA256_DIGEST_LEN];
	sha256_ctx h;
	struct stat st;
	int r;

	arc.entry_set_filetype(x->e, AE_IFREG);
	if (k >= 0 && x->links.written[k]) {
		arc.entry_set_hardlink(x->e, c->hardlink);
		arc.entry_set_size(x->e, 0);
		return put_header(x, c->path);
	}
	if ((fd = osb_open_beneath(x->upper, c->path, O_RDONLY, 0, x->err)) < 0)
		return fd;
	if (fstat(fd, &st) != 0 || st.st_ino != fi->ino)
		return osb_err_set(x->err, OSB_E_IO, ESTALE, "session", "overlay workspace: %s: "
		                   "replaced while it was exported", c->path);
	if ((uint64_t)st.st_size != c->size || !e->hashed)
		return changed(x, c->path);
	arc.entry_set_size(x->e, st.st_size);
	sha256_init(&h);
	if ((r = put_header(x, c->path)) < 0 ||
	    (r = copy_data(x, fd, (uint64_t)st.st_size, c->path, &h)) < 0)
		return r;
	sha256_final(&h, got);
	if (memcmp(got, e->sha, sizeof(got)) != 0)
		return changed(x, c->path);
	if ((k = links_find(&x->links, c->path)) >= 0)
		x->links.written[k] = true;
	return 0;
}

static int put_change(struct exporter *x, const ovl_entry *e)
{
	const osb_change *c = &e->c;
	osb_file_info fi;
	int r;

	arc.entry_clear(x->e);
	if (c->kind == OSB_CHANGE_DELETED)
		return put_whiteout(x, c->path);
	if ((r = osb_lstat_beneath(x->upper, c->path, &fi, x->err)) < 0)
		return r;
	if (fi.type != c->type)
		return osb_err_set(x->err, OSB_E_IO, ESTALE, "session", "overlay workspace: %s: "
		                   "replaced while it was exported", c->path);
	set_meta(x, c->path, &fi);
	switch (c->type) {
	case OSB_FILE_REGULAR:
		return put_regular(x, e, &fi);
	case OSB_FILE_DIRECTORY:
		arc.entry_set_filetype(x->e, AE_IFDIR);
		break;
	case OSB_FILE_SYMLINK:
		arc.entry_set_filetype(x->e, AE_IFLNK);
		arc.entry_set_symlink(x->e, fi.link_target);
		break;
	default:
		arc.entry_set_filetype(x->e, AE_IFIFO);
		break;
	}
	return put_header(x, c->path);
}

static int export_all(struct exporter *x, const osb_diff *d, int fd)
{
	int r = 0;

	if (arc.write_set_format_pax_restricted(x->a) != ARCHIVE_OK ||
	    arc.write_open_fd(x->a, fd) != ARCHIVE_OK)
		return arc_fail(x, "open");
	for (size_t i = 0; r == 0 && i < d->n; i++)
		r = put_change(x, &d->v[i]);
	if (arc.write_close(x->a) != ARCHIVE_OK && r == 0)
		r = arc_fail(x, "close");
	return r;
}

int ovl_export(int upper_fd, const osb_diff *d, int fd, osb_error *err)
{
	struct exporter x = { .upper = upper_fd, .err = err };
	int r = 0;

	for (size_t i = 0; r == 0 && i < d->n; i++)
		r = exportable(&d->v[i].c, err);
	if (r < 0 || (r = arc_need(err)) < 0)
		return r;
	if (links_init(&x.links, d) < 0 || !(x.a = arc.write_new()) ||
	    !(x.e = arc.entry_new()))
		r = osb_err_set(err, OSB_E_NOMEM, ENOMEM, "session", "out of memory");
	else
		r = export_all(&x, d, fd);
	if (x.e)
		arc.entry_free(x.e);
	if (x.a)
		arc.write_free(x.a);
	links_free(&x.links);
	return r;
}

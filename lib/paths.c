/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* paths.c — the openat2 verifier, its fallback walker, and the host mount scan.
 *
 * This is where the plan turns host paths into verified fds and where a
 * daemon's file proxy touches files the sandbox can write. Nothing here
 * compares path strings to decide whether something is inside something
 * else: a relative path is resolved beneath an open root by the kernel
 * (openat2 RESOLVE_BENEATH|NO_SYMLINKS|NO_MAGICLINKS|NO_XDEV) or, where
 * openat2 is missing or filtered, by a walk that opens one component at a
 * time with O_PATH|O_NOFOLLOW and compares mount ids, and the result is
 * judged by fstat of the fd. The single exception, the mount-table scan,
 * compares two kernel-produced canonical paths and says why that is sound.
 * When openat2 refuses, the walk runs again purely to name the offending
 * component in the message; it never turns a refusal into success. The
 * file proxy's calls (open, stat, typed listing, streaming atomic write,
 * recursive remove) all start from that resolution and act on fds or on
 * names inside an already verified directory fd, never on a path string.
 */
#include "paths.h"
#include "mountinfo.h"

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/openat2.h>

#define RESOLVE_STRICT (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | \
                        RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV)
#define MODE_ALLOWED 0777u
#define OPEN_ALLOWED (O_ACCMODE | O_CREAT | O_EXCL | O_TRUNC | O_DIRECTORY | O_APPEND)

static atomic_uint test_flags;

void paths_set_test_flags(unsigned flags)
{
	atomic_store(&test_flags, flags);
}

static bool test_flag(unsigned flag)
{
	return (atomic_load(&test_flags) & flag) != 0;
}

static const char *errstr(int e, char *buf, size_t len)
{
	return strerror_r(e, buf, len);
}

/* ---- resolution context ------------------------------------------------ */

/* One resolution beneath one root: how to resolve, and how to word errors. */
struct beneath {
	int root_fd;
	const char *display;       /* the root in messages; NULL: read back lazily */
	const char *rule;          /* "write paths" in "... may not contain symlinks" */
	const char *stage;
	unsigned long long resolve;
	bool check_mnt;            /* walk: compare mount ids (RESOLVE_NO_XDEV) */
	bool mnt_known;
	uint64_t root_mnt;
	osb_error *err;            /* never NULL */
	char display_buf[PATH_MAX];
};

static void beneath_init(struct beneath *b, int root_fd, const char *display,
                         const char *rule, osb_error *err)
{
	b->root_fd = root_fd;
	b->display = display;
	b->rule = rule;
	b->stage = "paths";
	b->resolve = RESOLVE_STRICT;
	b->check_mnt = true;
	b->mnt_known = false;
	b->root_mnt = 0;
	b->err = err;
}

/* The root's path for messages only: nothing is decided on it. */
static const char *root_name(struct beneath *b)
{
	char proc[64];
	ssize_t n;

	if (b->display)
		return b->display;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", b->root_fd);
	n = readlink(proc, b->display_buf, sizeof(b->display_buf));
	if (n <= 0 || (size_t)n >= sizeof(b->display_buf))
		snprintf(b->display_buf, sizeof(b->display_buf), "<root fd %d>", b->root_fd);
	else
		b->display_buf[n] = '\0';
	b->display = b->display_buf;
	return b->display;
}

/* Fill the error as "<root>/<first LEN bytes of REL>: <what>"; return -E. */
__attribute__((format(printf, 6, 7)))
static int bfail(struct beneath *b, int code, int e, const char *rel, size_t len,
                 const char *fmt, ...)
{
	char what[900];
	const char *root = root_name(b);
	size_t rl = strlen(root);
	const char *sep = (len == 0 || (rl > 0 && root[rl - 1] == '/')) ? "" : "/";
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	osb_err_set(b->err, code, e, b->stage, "%s%s%.*s: %s", root, sep, (int)len,
	            len ? rel : "", what);
	return -e;
}

static int bfail_errno(struct beneath *b, int e, const char *rel, size_t len,
                       const char *doing)
{
	char buf[128];

	if (e == ENOMEM)
		return bfail(b, OSB_E_NOMEM, e, rel, len, "out of memory");
	return bfail(b, OSB_E_PATH, e, rel, len, "%s%s", doing, errstr(e, buf, sizeof(buf)));
}

static int symlink_refused(struct beneath *b, const char *rel, size_t len, const char *name)
{
	return bfail(b, OSB_E_PATH, ELOOP, rel, len,
	             "symlink component \"%s\" refused (%s may not contain symlinks)",
	             name, b->rule);
}

/* ---- lexical rule ------------------------------------------------------ */

static int check_component(struct beneath *b, const char *rel, const char *c, size_t n)
{
	size_t full = strlen(rel);

	if (n == 0)
		return bfail(b, OSB_E_PATH, EINVAL, rel, full,
		             "empty component refused (remove the doubled or trailing \"/\")");
	if (n > NAME_MAX)
		return bfail(b, OSB_E_PATH, ENAMETOOLONG, NULL, 0,
		             "a component of %zu bytes is longer than NAME_MAX (%d)", n, NAME_MAX);
	if (n == 1 && c[0] == '.')
		return bfail(b, OSB_E_PATH, EINVAL, rel, full,
		             "component \".\" refused (write the path without \".\" components)");
	if (n == 2 && c[0] == '.' && c[1] == '.')
		return bfail(b, OSB_E_PATH, EINVAL, rel, full,
		             "component \"..\" refused (paths may not leave their root)");
	return 0;
}

/* The lexical rule of paths.h. ALLOW_ROOT: the whole path "." names the root. */
static int check_rel(struct beneath *b, const char *rel, bool allow_root)
{
	size_t len;

	if (!rel || !*rel)
		return bfail(b, OSB_E_PATH, EINVAL, NULL, 0,
		             "empty path refused (name a file or directory beneath the root)");
	len = strnlen(rel, PATH_MAX);
	if (len >= PATH_MAX)
		return bfail(b, OSB_E_PATH, ENAMETOOLONG, NULL, 0,
		             "path of %zu bytes refused: longer than PATH_MAX - 1 (%d)",
		             strlen(rel), PATH_MAX - 1);
	if (rel[0] == '/')
		return bfail(b, OSB_E_PATH, EINVAL, NULL, 0,
		             "absolute path \"%s\" refused (name it relative to the root)", rel);
	if (strcmp(rel, ".") == 0) {
		if (allow_root)
			return 0;
		return bfail(b, OSB_E_PATH, EINVAL, NULL, 0,
		             "\".\" (the root itself) refused here (name an entry beneath the root)");
	}
	for (const char *c = rel;;) {
		size_t n = strcspn(c, "/");
		int r = check_component(b, rel, c, n);

		if (r < 0)
			return r;
		if (!c[n])
			return 0;
		c += n + 1;
	}
}

/* ---- mount ids --------------------------------------------------------- */

/* Kernels before 5.8 lack STATX_MNT_ID; fdinfo has carried mnt_id since 3.15. */
static int fdinfo_mount_id(int fd, uint64_t *id)
{
	_cleanup_free_ char *buf = NULL;
	char path[64];
	const char *p;
	int r;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	r = read_file_bounded(path, 65536, &buf, NULL);
	if (r < 0)
		return r;
	p = strncmp(buf, "mnt_id:", 7) == 0 ? buf : strstr(buf, "\nmnt_id:");
	if (!p)
		return -ENOTSUP;
	p = strchr(p + 1, ':') + 1;
	if (sscanf(p, "%" SCNu64, id) != 1)
		return -ENOTSUP;
	return 0;
}

int path_mount_id(int fd, uint64_t *id)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &stx) == 0 &&
	    (stx.stx_mask & STATX_MNT_ID)) {
		*id = stx.stx_mnt_id;
		return 0;
	}
	return fdinfo_mount_id(fd, id);
}

/* Refuse FD (component NAME, ending REL at LEN) unless it is on the root's
 * mount. Without a mount id we cannot tell, so we refuse. */
static int check_same_mount(struct beneath *b, int fd, const char *rel, size_t len,
                            const char *name)
{
	uint64_t id;
	int r;

	if (!b->check_mnt)
		return 0;
	if (!b->mnt_known) {
		r = path_mount_id(b->root_fd, &b->root_mnt);
		if (r < 0)
			return bfail(b, OSB_E_PATH, -r, NULL, 0,
			             "cannot determine the mount of the root (needs statx STATX_MNT_ID or /proc)");
		b->mnt_known = true;
	}
	r = path_mount_id(fd, &id);
	if (r < 0)
		return bfail(b, OSB_E_PATH, -r, rel, len,
		             "cannot determine the mount of component \"%s\"", name);
	if (id != b->root_mnt)
		return bfail(b, OSB_E_PATH, EXDEV, rel, len,
		             "component \"%s\" crosses a mount (%s may not cross mount points)",
		             name, b->rule);
	return 0;
}

/* ---- the walk ---------------------------------------------------------- */

/* Judge the O_PATH fd of one component: never a symlink, a directory when
 * more components follow, and on the root's mount. */
static int judge_component(struct beneath *b, int fd, const char *rel, size_t len,
                           const char *name, bool want_dir)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return bfail_errno(b, errno, rel, len, "cannot stat: ");
	if (S_ISLNK(st.st_mode))
		return symlink_refused(b, rel, len, name);
	if (want_dir && !S_ISDIR(st.st_mode))
		return bfail(b, OSB_E_PATH, ENOTDIR, rel, len,
		             "component \"%s\" is not a directory", name);
	return check_same_mount(b, fd, rel, len, name);
}

/* Open the directory holding REL's last component, one component at a time.
 * O_PATH|O_NOFOLLOW opens a symlink as itself (and it is refused), never its
 * target; ".." never gets here (check_rel); each step is compared with the
 * root's mount id, which is what RESOLVE_NO_XDEV does in the kernel. Each
 * open is relative to the fd of the previous step, so renaming or swapping
 * a directory meanwhile cannot redirect the walk outside. */
static int walk_parent(struct beneath *b, const char *rel, int *parent_out,
                       const char **base_out)
{
	_cleanup_close_ int cur = openat(b->root_fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	const char *c = rel;
	char name[NAME_MAX + 1];

	if (cur < 0)
		return bfail_errno(b, errno, NULL, 0, "cannot open the root: ");
	for (;;) {
		size_t n = strcspn(c, "/");
		size_t upto = (size_t)(c - rel) + n;
		int fd, r;

		if (!c[n])
			break;
		if (n > NAME_MAX)
			return bfail(b, OSB_E_PATH, ENAMETOOLONG, NULL, 0, "a component is too long");
		memcpy(name, c, n);
		name[n] = '\0';
		fd = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return bfail_errno(b, errno, rel, upto, "");
		r = judge_component(b, fd, rel, upto, name, true);
		if (r < 0) {
			close(fd);
			return r;
		}
		close(cur);
		cur = fd;
		c += n + 1;
	}
	*parent_out = cur;
	cur = -1;
	*base_out = c;
	return 0;
}

/* The final open failed with E: name the rule it broke if we can see one
 * (a symlink, a mount), else report E itself. Always returns an error. */
static int describe_final(struct beneath *b, int parent, const char *rel,
                          const char *base, int e)
{
	size_t len = strlen(rel);
	_cleanup_close_ int fd = openat(parent, base, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	int r;

	if (fd >= 0 && (r = judge_component(b, fd, rel, len, base, false)) < 0)
		return r;
	return bfail_errno(b, e, rel, len, "");
}

static int open_walk(struct beneath *b, const char *rel, int oflags, mode_t mode, int *fd_out)
{
	_cleanup_close_ int parent = -1;
	const char *base;
	int fd, r;

	r = walk_parent(b, rel, &parent, &base);
	if (r < 0)
		return r;
	fd = openat(parent, base, oflags | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return describe_final(b, parent, rel, base, errno);
	r = check_same_mount(b, fd, rel, strlen(rel), base);
	if (r < 0) {
		close(fd);
		return r;
	}
	*fd_out = fd;
	return 0;
}

/* ---- openat2 ----------------------------------------------------------- */

static int sys_openat2(int dfd, const char *path, int flags, mode_t mode,
                       unsigned long long resolve)
{
#ifdef SYS_openat2
	struct open_how how = {
		.flags = (uint64_t)(unsigned)flags,
		.mode = (flags & O_CREAT) ? mode : 0,
		.resolve = resolve,
	};
	long fd;
	int tries = 0;

	/* EAGAIN: a concurrent rename or mount disturbed a ".." check; retry. */
	do
		fd = syscall(SYS_openat2, dfd, path, &how, sizeof(how));
	while (fd < 0 && (errno == EAGAIN || errno == EINTR) && ++tries < 16);
	return (int)fd;
#else
	(void)dfd; (void)path; (void)flags; (void)mode; (void)resolve;
	errno = ENOSYS;
	return -1;
#endif
}

/* Open REL beneath the root with OFLAGS (O_NOFOLLOW|O_CLOEXEC added). */
static int open_beneath(struct beneath *b, const char *rel, int oflags, mode_t mode, int *fd_out)
{
	if (!test_flag(PATHS_TEST_FORCE_WALK)) {
		int fd = sys_openat2(b->root_fd, rel, oflags | O_NOFOLLOW | O_CLOEXEC, mode,
		                     b->resolve);
		_cleanup_close_ int parent = -1;
		const char *base;
		int e = errno, r;

		if (fd >= 0) {
			*fd_out = fd;
			return 0;
		}
		/* ENOSYS: kernel before 5.6. EPERM: container seccomp profiles that
		 * predate openat2 answer EPERM. The walk gives the same guarantees,
		 * so falling back is never weaker; a genuine EPERM recurs there. */
		if (e != ENOSYS && e != EPERM) {
			r = walk_parent(b, rel, &parent, &base);
			if (r < 0)
				return r;
			return describe_final(b, parent, rel, base, e);
		}
	}
	return open_walk(b, rel, oflags, mode, fd_out);
}

/* ---- type rule --------------------------------------------------------- */

static const char *type_name(mode_t m)
{
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	return "of an unknown file type";
}

static const char *last_component(const char *rel)
{
	const char *s = strrchr(rel, '/');

	return s ? s + 1 : rel;
}

/* Only directories and regular files; a regular file with a second hard
 * link may be the same inode as a file outside the root, so it is refused
 * where the caller would write (or bind) it: SINGLE_LINK. */
static int check_type(struct beneath *b, int fd, const char *rel, bool single_link,
                      struct stat *st_out)
{
	size_t len = strlen(rel);
	struct stat st;

	if (fstat(fd, &st) < 0)
		return bfail_errno(b, errno, rel, len, "cannot stat: ");
	if (S_ISLNK(st.st_mode))
		return symlink_refused(b, rel, len, last_component(rel));
	if (S_ISREG(st.st_mode) && single_link && st.st_nlink > 1)
		return bfail(b, OSB_E_PATH, EMLINK, rel, len,
		             "regular file has %ju hard links; refused (another link may be a file "
		             "outside the root)", (uintmax_t)st.st_nlink);
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return bfail(b, OSB_E_PATH, ENXIO, rel, len,
		             "is %s; refused (only regular files and directories are allowed)",
		             type_name(st.st_mode));
	if (st_out)
		*st_out = st;
	return 0;
}

/* ---- internal API ------------------------------------------------------ */

int path_resolve_beneath(int root_fd, const char *root_display, const char *rel,
                         int *fd_out, osb_error *err)
{
	osb_error local;
	struct beneath b;
	int fd = -1, r;

	beneath_init(&b, root_fd, root_display, "write paths", err ? err : &local);
	r = check_rel(&b, rel, true);
	if (r >= 0)
		r = open_beneath(&b, rel, O_PATH, 0, &fd);
	if (r >= 0)
		r = check_type(&b, fd, rel, true, NULL);
	if (r < 0) {
		if (fd >= 0)
			close(fd);
		return -b.err->code;
	}
	*fd_out = fd;
	return 0;
}

/* The kernel's name for FD, checked to still name the same inode (a removed
 * directory reads back as "... (deleted)", which must not be trusted). */
int path_fd_name(int fd, const struct stat *st, char **out)
{
	char proc[64];
	size_t cap = 256;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	for (;;) {
		char *buf = malloc(cap);
		ssize_t n;
		struct stat st2;

		if (!buf)
			return -ENOMEM;
		n = readlink(proc, buf, cap);
		if (n < 0) {
			int e = errno;
			free(buf);
			return -e;
		}
		if ((size_t)n < cap) {
			buf[n] = '\0';
			if (buf[0] != '/' || stat(buf, &st2) < 0 ||
			    st2.st_dev != st->st_dev || st2.st_ino != st->st_ino) {
				free(buf);
				return -ESTALE;
			}
			*out = buf;
			return 0;
		}
		free(buf);
		if (cap >= 16 * PATH_MAX)
			return -ENAMETOOLONG;
		cap *= 2;
	}
}

/* Is TARGET strictly beneath DIR? Both are kernel-produced canonical
 * absolute paths (d_path output: /proc/self/fd readlink and mountinfo
 * targets, in this process's root): no ".", "..", doubled "/" or symlinks.
 * For such paths, equal leading components mean the same ancestors, so a
 * component-wise comparison answers the ancestry question exactly. This is
 * the one path comparison in the library; it never sees a caller's string. */
static bool strictly_beneath(const char *dir, const char *target)
{
	for (;;) {
		size_t dn, tn;

		while (*dir == '/')
			dir++;
		while (*target == '/')
			target++;
		if (!*dir)
			return *target != '\0';
		if (!*target)
			return false;
		dn = strcspn(dir, "/");
		tn = strcspn(target, "/");
		if (dn != tn || memcmp(dir, target, dn) != 0)
			return false;
		dir += dn;
		target += tn;
	}
}

static int report_mount(const struct mountinfo_entry *m, const char *dir, osb_error *err)
{
	bool show_root = strcmp(m->root, "/") != 0;

	/* findmnt's notation: SOURCE[ROOT] for a bind of a subtree. */
	return osb_err_set(err, OSB_E_PATH, EXDEV, "paths",
	                   "%s: a mount (source %s%s%s%s) lies beneath the writable path %s; "
	                   "writable paths may not contain mounts", m->target,
	                   *m->source ? m->source : "none", show_root ? "[" : "",
	                   show_root ? m->root : "", show_root ? "]" : "", dir);
}

int path_check_no_mounts_beneath(int dir_fd, osb_error *err)
{
	_cleanup_free_ char *dir = NULL;
	struct mountinfo_table tb;
	struct mountinfo_entry m;
	const char *why = NULL;
	struct stat st;
	int r = 0;

	if (fstat(dir_fd, &st) < 0)
		return osb_err_set(err, OSB_E_PATH, errno, "paths", "fd %d: cannot stat", dir_fd);
	if (!S_ISDIR(st.st_mode))
		return osb_err_set(err, OSB_E_PATH, ENOTDIR, "paths", "fd %d: not a directory", dir_fd);
	r = path_fd_name(dir_fd, &st, &dir);
	if (r < 0)
		return osb_err_set(err, OSB_E_PATH, -r, "paths",
		                   "fd %d: cannot read back the directory's path from /proc/self/fd "
		                   "(is /proc mounted?)", dir_fd);
	if ((r = mountinfo_load("/proc/self/mountinfo", &tb)) < 0)
		return osb_err_set(err, OSB_E_HOST, -r, "paths",
		                   "cannot read the mount table /proc/self/mountinfo: %s", strerror(-r));
	while ((r = mountinfo_next(&tb, &m, &why)) > 0)
		if (strictly_beneath(dir, m.target))
			break;
	if (r < 0)
		r = osb_err_set(err, OSB_E_HOST, EINVAL, "paths",
		                "cannot read the mount table /proc/self/mountinfo: %s", why);
	else if (r > 0)
		r = report_mount(&m, dir, err);
	mountinfo_free(&tb);
	return r;
}

/* ---- public file API --------------------------------------------------- */

static void api_init(struct beneath *b, int root_fd, osb_error *err, osb_error *local)
{
	beneath_init(b, root_fd, NULL, "paths beneath the root", err ? err : local);
}

static int check_mode(struct beneath *b, unsigned mode)
{
	if (mode & ~MODE_ALLOWED)
		return bfail(b, OSB_E_USAGE, EINVAL, NULL, 0,
		             "mode 0%o refused: only permission bits (0777) may be set; setuid, "
		             "setgid and sticky bits are not granted", mode);
	return 0;
}

/* Verify REL's parent directory and split off its last component, which
 * must be a normal name (check_rel refuses "." and ".." everywhere). */
static int open_parent(struct beneath *b, const char *rel, int *parent_out,
                       const char **base_out)
{
	_cleanup_free_ char *dir = NULL;
	const char *slash;
	int r;

	r = check_rel(b, rel, false);
	if (r < 0)
		return r;
	slash = strrchr(rel, '/');
	if (!slash) {
		*parent_out = openat(b->root_fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (*parent_out < 0)
			return bfail_errno(b, errno, NULL, 0, "cannot open the root: ");
		*base_out = rel;
		return 0;
	}
	dir = strndup(rel, (size_t)(slash - rel));
	if (!dir)
		return bfail(b, OSB_E_NOMEM, ENOMEM, NULL, 0, "out of memory");
	r = open_beneath(b, dir, O_PATH | O_DIRECTORY, 0, parent_out);
	if (r < 0)
		return r;
	*base_out = slash + 1;
	return 0;
}

/* Look before opening: a FIFO, socket or device is refused without being
 * opened at all (opening one can block or have side effects). */
static int precheck_open(struct beneath *b, const char *rel, bool writing, bool creating)
{
	_cleanup_close_ int fd = -1;
	int r = open_beneath(b, rel, O_PATH, 0, &fd);

	if (r == -ENOENT && creating) {
		osb_err_clear(b->err);
		return 0;
	}
	if (r < 0)
		return r;
	return check_type(b, fd, rel, writing, NULL);
}

static int open_beneath_errno(int root_fd, const char *rel, int flags, unsigned mode, osb_error *err)
{
	osb_error local;
	struct beneath b;
	struct stat st;
	bool writing = (flags & O_ACCMODE) != O_RDONLY;
	int fd = -1, r;

	api_init(&b, root_fd, err, &local);
	if ((flags & ~OPEN_ALLOWED) || (flags & O_ACCMODE) == O_ACCMODE ||
	    ((flags & O_TRUNC) && !writing))
		return bfail(&b, OSB_E_USAGE, EINVAL, NULL, 0,
		             "open flags 0%o refused: use O_RDONLY, O_WRONLY or O_RDWR with O_CREAT, "
		             "O_EXCL, O_TRUNC (when writing), O_DIRECTORY, O_APPEND", (unsigned)flags);
	r = check_mode(&b, mode);
	if (r >= 0)
		r = check_rel(&b, rel, true);
	if (r >= 0)
		r = precheck_open(&b, rel, writing, flags & O_CREAT);
	/* O_TRUNC waits until the checks passed: truncating first would cut a
	 * hard-linked outside file before we could refuse it. */
	if (r >= 0)
		r = open_beneath(&b, rel, (flags & ~O_TRUNC) | O_NONBLOCK | O_NOCTTY,
		                 (flags & O_CREAT) ? mode : 0, &fd);
	if (r >= 0)
		r = check_type(&b, fd, rel, writing, &st);
	if (r >= 0 && S_ISREG(st.st_mode)) {
		int fl = fcntl(fd, F_GETFL);

		if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0 ||
		    ((flags & O_TRUNC) && ftruncate(fd, 0) < 0)) {
			char buf[128];
			int e = errno;

			r = bfail(&b, OSB_E_IO, e, rel, strlen(rel), "cannot prepare the file: %s",
			          errstr(e, buf, sizeof(buf)));
		}
	}
	if (r < 0) {
		if (fd >= 0)
			close(fd);
		return r;
	}
	return fd;
}

static int mkdir_beneath_errno(int root_fd, const char *rel, unsigned mode, osb_error *err)
{
	_cleanup_close_ int parent = -1;
	osb_error local;
	struct beneath b;
	const char *base;
	int r;

	api_init(&b, root_fd, err, &local);
	r = check_mode(&b, mode);
	if (r >= 0)
		r = open_parent(&b, rel, &parent, &base);
	if (r < 0)
		return r;
	if (mkdirat(parent, base, mode) < 0)
		return bfail_errno(&b, errno, rel, strlen(rel), "cannot create the directory: ");
	return 0;
}

static int unlink_beneath_errno(int root_fd, const char *rel, int is_dir, osb_error *err)
{
	_cleanup_close_ int parent = -1;
	osb_error local;
	struct beneath b;
	const char *base;
	int r;

	api_init(&b, root_fd, err, &local);
	r = open_parent(&b, rel, &parent, &base);
	if (r < 0)
		return r;
	if (unlinkat(parent, base, is_dir ? AT_REMOVEDIR : 0) < 0)
		return bfail_errno(&b, errno, rel, strlen(rel), "cannot remove: ");
	return 0;
}

static int rename_beneath_errno(int root_fd, const char *from, const char *to, osb_error *err)
{
	_cleanup_close_ int pfrom = -1, pto = -1;
	const char *bfrom, *bto;
	osb_error local;
	struct beneath b;
	int r;

	api_init(&b, root_fd, err, &local);
	r = open_parent(&b, from, &pfrom, &bfrom);
	if (r >= 0)
		r = open_parent(&b, to, &pto, &bto);
	if (r < 0)
		return r;
	if (renameat(pfrom, bfrom, pto, bto) < 0) {
		char buf[128];
		int e = errno;

		return bfail(&b, OSB_E_PATH, e, from, strlen(from), "cannot rename to \"%s\": %s",
		             to, errstr(e, buf, sizeof(buf)));
	}
	return 0;
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* ".osb-" and 16 random hex digits: unguessable, so O_EXCL rarely retries. */
static int temp_name(char *buf, size_t len)
{
	uint64_t v;

	if (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v))
		return -errno;
	snprintf(buf, len, ".osb-%016" PRIx64, v);
	return 0;
}

/* Give the unnamed O_TMPFILE FD the name TMP in PARENT. linkat with
 * AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc/self/fd does not. */
static int link_tmpfile(int fd, int parent, char *tmp, size_t tmplen)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	for (int tries = 0; tries < 8; tries++) {
		int r = temp_name(tmp, tmplen);

		if (r < 0)
			return r;
		if (linkat(fd, "", parent, tmp, AT_EMPTY_PATH) == 0 ||
		    linkat(AT_FDCWD, proc, parent, tmp, AT_SYMLINK_FOLLOW) == 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

static int write_via_tmpfile(int parent, const void *data, size_t len, mode_t mode,
                             char *tmp, size_t tmplen)
{
	_cleanup_close_ int fd = -1;
	int r;

	if (test_flag(PATHS_TEST_NO_TMPFILE))
		return -EOPNOTSUPP;
	fd = openat(parent, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	r = write_all(fd, data, len);
	if (r < 0)
		return r;
	return link_tmpfile(fd, parent, tmp, tmplen);
}

static int write_via_named(int parent, const void *data, size_t len, mode_t mode,
                           char *tmp, size_t tmplen)
{
	_cleanup_close_ int fd = -1;
	int r;

	for (int tries = 0; fd < 0; tries++) {
		r = temp_name(tmp, tmplen);
		if (r < 0)
			return r;
		fd = openat(parent, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0 && (errno != EEXIST || tries >= 8))
			return -errno;
	}
	r = write_all(fd, data, len);
	if (r < 0)
		unlinkat(parent, tmp, 0);
	return r;
}

/* An existing target must be a regular file: replacing a symlink would
 * contradict every other call here, and the caller most likely meant its
 * target. Other links to the old inode keep the old content (rename swaps
 * the name only), so a hard-linked target is safe to replace. */
static int check_write_target(struct beneath *b, int parent, const char *base, const char *rel)
{
	struct stat st;

	if (fstatat(parent, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : bfail_errno(b, errno, rel, strlen(rel), "cannot stat: ");
	if (S_ISLNK(st.st_mode))
		return symlink_refused(b, rel, strlen(rel), base);
	if (S_ISDIR(st.st_mode))
		return bfail(b, OSB_E_PATH, EISDIR, rel, strlen(rel),
		             "is a directory; cannot replace it with a file");
	if (!S_ISREG(st.st_mode))
		return bfail(b, OSB_E_PATH, ENXIO, rel, strlen(rel),
		             "is %s; refused (only regular files and directories are allowed)",
		             type_name(st.st_mode));
	return 0;
}

static int write_file_beneath_errno(int root_fd, const char *rel, const void *data,
                                    size_t len, unsigned mode, osb_error *err)
{
	_cleanup_close_ int parent = -1;
	osb_error local;
	struct beneath b;
	const char *base;
	char tmp[32];
	int r;

	api_init(&b, root_fd, err, &local);
	if (!data && len > 0)
		return bfail(&b, OSB_E_USAGE, EINVAL, NULL, 0, "no data given for %zu bytes", len);
	r = check_mode(&b, mode);
	if (r >= 0)
		r = open_parent(&b, rel, &parent, &base);
	if (r >= 0)
		r = check_write_target(&b, parent, base, rel);
	if (r < 0)
		return r;
	r = write_via_tmpfile(parent, data, len, mode, tmp, sizeof(tmp));
	if (r == -EOPNOTSUPP || r == -EISDIR || r == -EINVAL || r == -ENOENT || r == -EPERM ||
	    r == -EACCES)
		r = write_via_named(parent, data, len, mode, tmp, sizeof(tmp));
	if (r < 0)
		return bfail_errno(&b, -r, rel, strlen(rel), "cannot write a temporary file: ");
	if (renameat(parent, tmp, parent, base) < 0) {
		int e = errno;

		unlinkat(parent, tmp, 0);
		return bfail_errno(&b, e, rel, strlen(rel), "cannot replace the file: ");
	}
	return 0;
}

/* Open an existing REL as O_PATH for a metadata change: directories and
 * single-link regular files only (a shared inode may be an outside file). */
static int open_for_attr(struct beneath *b, const char *rel, int *fd_out)
{
	int fd = -1, r;

	r = check_rel(b, rel, true);
	if (r >= 0)
		r = open_beneath(b, rel, O_PATH, 0, &fd);
	if (r >= 0)
		r = check_type(b, fd, rel, true, NULL);
	if (r < 0) {
		if (fd >= 0)
			close(fd);
		return r;
	}
	*fd_out = fd;
	return 0;
}

/* fchmod refuses O_PATH fds; act on the verified inode itself, never on a
 * name: fchmodat2(AT_EMPTY_PATH) where the kernel has it (6.6), else the
 * fd's /proc magic link, which the kernel resolves to that very inode. */
static int chmod_fd(int fd, mode_t mode)
{
	char proc[64];

#ifdef __NR_fchmodat2
	if (syscall(__NR_fchmodat2, fd, "", mode, AT_EMPTY_PATH) == 0)
		return 0;
	/* ENOSYS/EINVAL: older kernel; EPERM: a filter that predates it (a
	 * genuine EPERM recurs below). */
	if (errno != ENOSYS && errno != EINVAL && errno != EPERM)
		return -errno;
#endif
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (fchmodat(AT_FDCWD, proc, mode, 0) < 0)
		return -errno;
	return 0;
}

static int fchmod_beneath_errno(int root_fd, const char *rel, unsigned mode, osb_error *err)
{
	_cleanup_close_ int fd = -1;
	osb_error local;
	struct beneath b;
	int r;

	api_init(&b, root_fd, err, &local);
	r = check_mode(&b, mode);
	if (r >= 0)
		r = open_for_attr(&b, rel, &fd);
	if (r < 0)
		return r;
	r = chmod_fd(fd, mode);
	if (r < 0)
		return bfail_errno(&b, -r, rel, strlen(rel), "cannot change the mode: ");
	return 0;
}

static int fchown_beneath_errno(int root_fd, const char *rel, uint32_t uid, uint32_t gid,
                                osb_error *err)
{
	_cleanup_close_ int fd = -1;
	osb_error local;
	struct beneath b;
	int r;

	api_init(&b, root_fd, err, &local);
	r = open_for_attr(&b, rel, &fd);
	if (r < 0)
		return r;
	if (fchownat(fd, "", (uid_t)uid, (gid_t)gid, AT_EMPTY_PATH) < 0)
		return bfail_errno(&b, errno, rel, strlen(rel), "cannot change the owner: ");
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Pack V (sorted) into one allocation: pointers first, then the strings. */
static char **pack_names(strv *v)
{
	size_t total = (v->n + 1) * sizeof(char *);
	char **out, *p;

	for (size_t i = 0; i < v->n; i++)
		total += strlen(v->v[i]) + 1;
	out = malloc(total);
	if (!out)
		return NULL;
	p = (char *)(out + v->n + 1);
	for (size_t i = 0; i < v->n; i++) {
		size_t n = strlen(v->v[i]) + 1;

		memcpy(p, v->v[i], n);
		out[i] = p;
		p += n;
	}
	out[v->n] = NULL;
	return out;
}

static int read_names(int fd, strv *v)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;
	int r = 0;

	if (!d) {
		int e = errno;

		close(fd);
		return -e;
	}
	errno = 0;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if ((r = strv_push(v, de->d_name)) < 0)
			break;
	}
	if (r == 0 && errno)
		r = -errno;
	closedir(d);
	return r;
}

static int list_beneath_errno(int root_fd, const char *rel, char ***names, osb_error *err)
{
	strv v = { 0 };
	osb_error local;
	struct beneath b;
	int fd = -1, r;

	api_init(&b, root_fd, err, &local);
	if (!names)
		return bfail(&b, OSB_E_USAGE, EINVAL, NULL, 0, "no place to store the names");
	*names = NULL;
	r = check_rel(&b, rel, true);
	if (r >= 0)
		r = open_beneath(&b, rel, O_RDONLY | O_DIRECTORY, 0, &fd);
	if (r < 0)
		return r;
	r = read_names(fd, &v);    /* takes fd */
	if (r < 0) {
		strv_free(&v);
		return bfail_errno(&b, -r, rel, strlen(rel), "cannot list: ");
	}
	if (v.n > INT_MAX) {
		strv_free(&v);
		return bfail(&b, OSB_E_PATH, EOVERFLOW, rel, strlen(rel), "too many entries");
	}
	if (v.n)
		qsort(v.v, v.n, sizeof(char *), cmp_names);
	*names = pack_names(&v);
	r = (int)v.n;
	strv_free(&v);
	if (!*names)
		return bfail(&b, OSB_E_NOMEM, ENOMEM, NULL, 0, "out of memory");
	return r;
}

/* ---- stat --------------------------------------------------------------- */

static int file_type(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG:  return OSB_FILE_REGULAR;
	case S_IFDIR:  return OSB_FILE_DIRECTORY;
	case S_IFLNK:  return OSB_FILE_SYMLINK;
	case S_IFIFO:  return OSB_FILE_FIFO;
	case S_IFSOCK: return OSB_FILE_SOCKET;
	case S_IFCHR:  return OSB_FILE_CHAR_DEVICE;
	case S_IFBLK:  return OSB_FILE_BLOCK_DEVICE;
	}
	return OSB_FILE_UNKNOWN;
}

static void fill_info(const struct stat *st, osb_file_info *info)
{
	memset(info, 0, sizeof(*info));
	info->type = file_type(st->st_mode);
	info->mode = (uint32_t)(st->st_mode & 07777);
	info->size = (uint64_t)st->st_size;
	info->mtime_sec = (int64_t)st->st_mtim.tv_sec;
	info->mtime_nsec = (int64_t)st->st_mtim.tv_nsec;
	info->uid = (uint32_t)st->st_uid;
	info->gid = (uint32_t)st->st_gid;
	info->nlink = (uint64_t)st->st_nlink;
	info->dev = (uint64_t)st->st_dev;
	info->ino = (uint64_t)st->st_ino;
}

/* The target of the symlink FD (an O_PATH fd of the link itself), as text:
 * read, never followed. A target that does not fit is refused, not cut. */
static int read_link_target(struct beneath *b, int fd, const char *rel, osb_file_info *info)
{
	ssize_t n = readlinkat(fd, "", info->link_target, sizeof(info->link_target));

	if (n < 0)
		return bfail_errno(b, errno, rel, strlen(rel), "cannot read the symlink: ");
	if ((size_t)n >= sizeof(info->link_target))
		return bfail(b, OSB_E_PATH, ENAMETOOLONG, rel, strlen(rel),
		             "symlink target longer than %zu bytes", sizeof(info->link_target) - 1);
	info->link_target[n] = '\0';
	return 0;
}

/* O_PATH opens nothing (a FIFO cannot block it); with O_NOFOLLOW a final
 * symlink comes back as itself, which only lstat (LINK_OK) reports. */
static int stat_beneath_errno(int root_fd, const char *rel, osb_file_info *info, bool link_ok,
                              osb_error *err)
{
	_cleanup_close_ int fd = -1;
	osb_error local;
	struct beneath b;
	struct stat st;
	int r;

	api_init(&b, root_fd, err, &local);
	if (!info)
		return bfail(&b, OSB_E_USAGE, EINVAL, NULL, 0, "no place to store the metadata");
	r = check_rel(&b, rel, true);
	if (r >= 0)
		r = open_beneath(&b, rel, O_PATH, 0, &fd);
	if (r < 0)
		return r;
	if (fstat(fd, &st) < 0)
		return bfail_errno(&b, errno, rel, strlen(rel), "cannot stat: ");
	if (S_ISLNK(st.st_mode) && !link_ok)
		return symlink_refused(&b, rel, strlen(rel), last_component(rel));
	fill_info(&st, info);
	if (S_ISLNK(st.st_mode))
		return read_link_target(&b, fd, rel, info);
	return 0;
}

/* ---- typed listing ------------------------------------------------------ */

#define READDIR_DEFAULT_MAX 1048576u

typedef struct dent {
	char *name;
	int type;
} dent;

typedef struct dentv {
	dent *v;
	size_t n, cap;
} dentv;

static void dentv_free(dentv *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->v[i].name);
	free(v->v);
}

static int dentv_push(dentv *v, const char *name, int type)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 16;
		dent *nv = reallocarray(v->v, cap, sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		v->v = nv;
		v->cap = cap;
	}
	v->v[v->n].name = strdup(name);
	if (!v->v[v->n].name)
		return -ENOMEM;
	v->v[v->n++].type = type;
	return 0;
}

static int dtype_file_type(unsigned char t)
{
	switch (t) {
	case DT_REG:  return OSB_FILE_REGULAR;
	case DT_DIR:  return OSB_FILE_DIRECTORY;
	case DT_LNK:  return OSB_FILE_SYMLINK;
	case DT_FIFO: return OSB_FILE_FIFO;
	case DT_SOCK: return OSB_FILE_SOCKET;
	case DT_CHR:  return OSB_FILE_CHAR_DEVICE;
	case DT_BLK:  return OSB_FILE_BLOCK_DEVICE;
	}
	return -1;
}

/* The type of entry DE of directory DFD: d_type where the file system fills
 * it, else fstatat without following (an entry gone meanwhile: unknown). */
static int entry_type(int dfd, const struct dirent *de)
{
	struct stat st;
	int t = test_flag(PATHS_TEST_NO_DTYPE) ? -1 : dtype_file_type(de->d_type);

	if (t >= 0)
		return t;
	if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? OSB_FILE_UNKNOWN : -errno;
	return file_type(st.st_mode);
}

/* Read the entries of the open directory FD (taken) into V, at most MAX. */
static int read_entries(struct beneath *b, int fd, const char *rel, size_t max, dentv *v)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;
	int r = 0;

	if (!d) {
		r = -errno;
		close(fd);
		return bfail_errno(b, -r, rel, strlen(rel), "cannot list: ");
	}
	errno = 0;
	while (r == 0 && (de = readdir(d))) {
		int t;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (v->n >= max) {
			r = bfail(b, OSB_E_PATH, E2BIG, rel, strlen(rel),
			          "has more than %zu entries; refused (raise max_entries)", max);
			break;
		}
		t = entry_type(dirfd(d), de);
		r = t < 0 ? t : dentv_push(v, de->d_name, t);
		if (r < 0)
			r = bfail_errno(b, -r, rel, strlen(rel), "cannot list: ");
		errno = 0;
	}
	if (r == 0 && errno)
		r = bfail_errno(b, errno, rel, strlen(rel), "cannot list: ");
	closedir(d);
	return r;
}

static int cmp_dents(const void *a, const void *b)
{
	return strcmp(((const dent *)a)->name, ((const dent *)b)->name);
}

/* Pack V into one allocation: the entries (and a NULL-named terminator),
 * then the names. */
static osb_dirent *pack_dents(const dentv *v)
{
	size_t total = (v->n + 1) * sizeof(osb_dirent);
	osb_dirent *out;
	char *p;

	for (size_t i = 0; i < v->n; i++)
		total += strlen(v->v[i].name) + 1;
	out = malloc(total);
	if (!out)
		return NULL;
	p = (char *)(out + v->n + 1);
	for (size_t i = 0; i < v->n; i++) {
		size_t n = strlen(v->v[i].name) + 1;

		memcpy(p, v->v[i].name, n);
		out[i] = (osb_dirent){ .name = p, .type = v->v[i].type };
		p += n;
	}
	out[v->n] = (osb_dirent){ .name = NULL, .type = OSB_FILE_UNKNOWN };
	return out;
}

static int readdir_beneath_errno(int root_fd, const char *rel, size_t max,
                                 osb_dirent **entries, osb_error *err)
{
	dentv v = { 0 };
	osb_error local;
	struct beneath b;
	int fd = -1, r;

	api_init(&b, root_fd, err, &local);
	if (!entries)
		return bfail(&b, OSB_E_USAGE, EINVAL, NULL, 0, "no place to store the entries");
	*entries = NULL;
	if (max == 0)
		max = READDIR_DEFAULT_MAX;
	if (max > (size_t)INT_MAX)
		max = INT_MAX;    /* the count is returned as an int */
	r = check_rel(&b, rel, true);
	if (r >= 0)
		r = open_beneath(&b, rel, O_RDONLY | O_DIRECTORY, 0, &fd);
	if (r >= 0)
		r = read_entries(&b, fd, rel, max, &v);    /* takes fd */
	if (r >= 0 && v.n)
		qsort(v.v, v.n, sizeof(*v.v), cmp_dents);
	if (r >= 0 && !(*entries = pack_dents(&v)))
		r = bfail(&b, OSB_E_NOMEM, ENOMEM, NULL, 0, "out of memory");
	if (r >= 0)
		r = (int)v.n;
	dentv_free(&v);
	return r;
}

/* ---- streaming atomic write ---------------------------------------------- */

/* The temporary lives in REL's verified parent, so the final rename never
 * crosses a directory; it is named by a random ".osb-" name created O_EXCL
 * and identified by its inode, so a name the sandbox swaps in meanwhile is
 * neither put in place nor removed. */
struct osb_file_writer {
	int parent;           /* O_PATH fd of REL's verified parent */
	int fd;               /* the temporary, open for writing; -1 once spent */
	struct stat tmp_st;   /* the temporary's identity */
	char *rel;            /* REL, for messages */
	const char *base;     /* REL's last component, inside REL */
	char *display;        /* the root, for messages (ROOT_FD may be closed) */
	char tmp[32];
	char *tmp_rel;        /* the temporary relative to the root, for messages */
};

static void writer_beneath(struct beneath *b, osb_file_writer *w, osb_error *err,
                           osb_error *local)
{
	beneath_init(b, -1, w->display, "paths beneath the root", err ? err : local);
}

static bool writer_owns_tmp(const osb_file_writer *w)
{
	struct stat st;

	return fstatat(w->parent, w->tmp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       st.st_dev == w->tmp_st.st_dev && st.st_ino == w->tmp_st.st_ino;
}

/* Remove the temporary (only if the name is still ours) and spend the
 * handle. Returns 0 or -errno of the unlink. */
static int writer_discard(osb_file_writer *w)
{
	int r = 0;

	if (w->fd < 0)
		return 0;
	if (writer_owns_tmp(w) && unlinkat(w->parent, w->tmp, 0) < 0 && errno != ENOENT)
		r = -errno;
	close(w->fd);
	w->fd = -1;
	return r;
}

static void writer_destroy(osb_file_writer *w)
{
	if (!w)
		return;
	writer_discard(w);
	if (w->parent >= 0)
		close(w->parent);
	free(w->rel);
	free(w->display);
	free(w->tmp_rel);
	free(w);
}

static int writer_create_tmp(osb_file_writer *w, mode_t mode)
{
	const char *slash = strrchr(w->rel, '/');

	for (int tries = 0; w->fd < 0; tries++) {
		int r = temp_name(w->tmp, sizeof(w->tmp));

		if (r < 0)
			return r;
		w->fd = openat(w->parent, w->tmp,
		               O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (w->fd < 0 && (errno != EEXIST || tries >= 8))
			return -errno;
	}
	if (fstat(w->fd, &w->tmp_st) < 0) {
		int e = errno;

		/* Not yet identified, so writer_discard would leave it: remove it
		 * by the name we just created. */
		unlinkat(w->parent, w->tmp, 0);
		close(w->fd);
		w->fd = -1;
		return -e;
	}
	if (asprintf(&w->tmp_rel, "%.*s%s%s", slash ? (int)(slash - w->rel) : 0, w->rel,
	             slash ? "/" : "", w->tmp) < 0) {
		w->tmp_rel = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int writer_open_errno(int root_fd, const char *rel, unsigned mode,
                             osb_file_writer **out, osb_error *err)
{
	osb_file_writer *w = NULL;
	osb_error local;
	struct beneath b;
	const char *base;
	int parent = -1, r;

	api_init(&b, root_fd, err, &local);
	r = check_mode(&b, mode);
	if (r >= 0)
		r = open_parent(&b, rel, &parent, &base);
	if (r >= 0)
		r = check_write_target(&b, parent, base, rel);
	if (r >= 0 && !(w = calloc(1, sizeof(*w))))
		r = -ENOMEM;
	if (w) {
		w->parent = parent;
		w->fd = -1;
		parent = -1;
		w->rel = strdup(rel);
		w->display = strdup(root_name(&b));
		if (!w->rel || !w->display)
			r = -ENOMEM;
	}
	if (r >= 0) {
		w->base = w->rel + (base - rel);
		r = writer_create_tmp(w, mode);
		if (r < 0)
			r = bfail_errno(&b, -r, rel, strlen(rel), "cannot create a temporary file: ");
	}
	if (r == -ENOMEM)
		r = bfail(&b, OSB_E_NOMEM, ENOMEM, NULL, 0, "out of memory");
	if (parent >= 0)
		close(parent);
	if (r < 0) {
		writer_destroy(w);
		return r;
	}
	*out = w;
	return 0;
}

static int writer_spent(struct beneath *b, const osb_file_writer *w)
{
	if (!w)
		return bfail(b, OSB_E_USAGE, EINVAL, NULL, 0, "no writer given");
	if (w->fd < 0)
		return bfail(b, OSB_E_USAGE, EINVAL, w->rel, strlen(w->rel),
		             "the writer was already committed or aborted");
	return 0;
}

static int writer_write_errno(osb_file_writer *w, const void *data, size_t len, osb_error *err)
{
	osb_error local;
	struct beneath b;
	int r;

	if (!w) {
		beneath_init(&b, -1, "", "", err ? err : &local);
		return writer_spent(&b, w);
	}
	writer_beneath(&b, w, err, &local);
	r = writer_spent(&b, w);
	if (r < 0)
		return r;
	if (!data && len > 0)
		return bfail(&b, OSB_E_USAGE, EINVAL, NULL, 0, "no data given for %zu bytes", len);
	r = write_all(w->fd, data, len);
	if (r < 0) {
		char buf[128];

		writer_discard(w);
		return bfail(&b, OSB_E_IO, -r, w->rel, strlen(w->rel),
		             "cannot write the temporary file: %s", errstr(-r, buf, sizeof(buf)));
	}
	return 0;
}

/* The directory entry must outlive a crash too: fsync the parent. */
static int sync_parent(int parent)
{
	_cleanup_close_ int dfd = openat(parent, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0 || fsync(dfd) < 0)
		return -errno;
	return 0;
}

static int writer_commit_errno(osb_file_writer *w, unsigned flags, osb_error *err)
{
	osb_error local;
	struct beneath b;
	size_t len;
	int r;

	if (!w)
		return writer_write_errno(NULL, NULL, 0, err);
	writer_beneath(&b, w, err, &local);
	len = strlen(w->rel);
	r = writer_spent(&b, w);
	if (r >= 0 && (flags & ~(unsigned)OSB_WRITE_NOREPLACE))
		r = bfail(&b, OSB_E_USAGE, EINVAL, NULL, 0,
		          "commit flags 0x%x refused: use 0 or OSB_WRITE_NOREPLACE", flags);
	if (r < 0)
		return r;
	if (fsync(w->fd) < 0) {
		int e = errno;

		writer_discard(w);
		return bfail(&b, OSB_E_IO, e, w->rel, len, "cannot sync the temporary file: %s",
		             errstr(e, (char[128]){ 0 }, 128));
	}
	if (!writer_owns_tmp(w)) {
		close(w->fd);
		w->fd = -1;
		return bfail(&b, OSB_E_PATH, ESTALE, w->rel, len, "the temporary file %s/%s was "
		             "replaced before the commit; refused", w->display, w->tmp_rel);
	}
	r = check_write_target(&b, w->parent, w->base, w->rel);
	if (r >= 0 && renameat2(w->parent, w->tmp, w->parent, w->base,
	                        (flags & OSB_WRITE_NOREPLACE) ? RENAME_NOREPLACE : 0) < 0)
		r = bfail_errno(&b, errno, w->rel, len, "cannot put the new file in place: ");
	if (r < 0) {
		writer_discard(w);
		return r;
	}
	close(w->fd);
	w->fd = -1;
	r = sync_parent(w->parent);
	if (r < 0)
		return bfail(&b, OSB_E_IO, -r, w->rel, len, "in place, but the directory could not "
		             "be synced: %s", errstr(-r, (char[128]){ 0 }, 128));
	return 0;
}

static int writer_abort_errno(osb_file_writer *w, osb_error *err)
{
	osb_error local;
	struct beneath b;
	int r;

	if (!w)
		return writer_write_errno(NULL, NULL, 0, err);
	writer_beneath(&b, w, err, &local);
	r = writer_spent(&b, w);
	if (r >= 0 && (r = writer_discard(w)) < 0)
		r = bfail_errno(&b, -r, w->tmp_rel, strlen(w->tmp_rel), "cannot remove: ");
	return r;
}

/* ---- recursive remove ----------------------------------------------------- */

#define REMOVE_MAX_DEPTH 256

struct rmlevel;

/* One removal: where it started (device and mount, which nothing removed
 * may leave) and how to word errors. */
struct rmtree {
	struct beneath *b;
	dev_t dev;
	uint64_t mnt;
	int top;                /* REL's verified parent */
	size_t n;               /* directories being emptied, outermost first */
	struct rmlevel *stack;  /* REMOVE_MAX_DEPTH of them */
};

/* "<root>/<path>: <doing><strerror(E)>" */
static int rm_fail(struct rmtree *t, const char *path, int e, const char *doing)
{
	return bfail_errno(t->b, e, path, strlen(path), doing);
}

/* "<root>/<path>: <why>" */
static int rm_refuse(struct rmtree *t, const char *path, int e, const char *why)
{
	return bfail(t->b, OSB_E_PATH, e, path, strlen(path), "%s", why);
}

/* Open directory NAME in DFD (PATH; ST from fstatat) to empty it: the very
 * inode ST names (a swap meanwhile is refused), on the same device and the
 * same mount as where the removal started. *FD_OUT stays -1 when it
 * vanished meanwhile. */
static int rm_open_dir(struct rmtree *t, int dfd, const char *name, const char *path,
                       const struct stat *st, size_t depth, int *fd_out)
{
	_cleanup_close_ int fd = -1;
	struct stat now;
	uint64_t mnt;

	if (st->st_dev != t->dev)
		return rm_refuse(t, path, EXDEV, "is on another file system; refused (a remove may "
		                 "not cross mount points)");
	if (depth >= REMOVE_MAX_DEPTH)
		return rm_refuse(t, path, ELOOP, "lies more than 256 directory levels deep; refused");
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0 || fstat(fd, &now) < 0)
		return rm_fail(t, path, errno, "cannot open: ");
	if (now.st_dev != st->st_dev || now.st_ino != st->st_ino)
		return rm_refuse(t, path, ESTALE, "was replaced while being removed; refused");
	if (path_mount_id(fd, &mnt) < 0 || mnt != t->mnt)
		return rm_refuse(t, path, EXDEV, "is a mount point; refused (a remove may not cross "
		                 "mount points)");
	*fd_out = fd;
	fd = -1;
	return 0;
}

/* One directory being emptied: its stream, its name in the level above,
 * and its path for messages. */
struct rmlevel {
	DIR *d;
	char *name;
	char *path;
	bool rewound;   /* read once more after the end (see rm_step) */
};

static void rm_pop(struct rmtree *t)
{
	struct rmlevel *l = &t->stack[--t->n];

	if (l->d)
		closedir(l->d);
	free(l->name);
	free(l->path);
}

/* The fd of the directory holding level I's directory. */
static int rm_parent_fd(const struct rmtree *t, size_t i)
{
	return i == 0 ? t->top : dirfd(t->stack[i - 1].d);
}

/* Remove NAME in DFD (PATH for messages) unless it is a directory, which is
 * pushed to be emptied first (taking NAME and PATH). Never follows it. An
 * entry gone meanwhile below the top counts as removed. */
static int rm_visit(struct rmtree *t, int dfd, char *name, char *path)
{
	_cleanup_free_ char *n = name, *p = path;
	struct stat st;
	int fd = -1, r;

	if (fstatat(dfd, n, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT && t->n > 0 ? 0 : rm_fail(t, p, errno, "cannot remove: ");
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(dfd, n, 0) < 0 && !(errno == ENOENT && t->n > 0))
			return rm_fail(t, p, errno, "cannot remove: ");
		return 0;
	}
	r = rm_open_dir(t, dfd, n, p, &st, t->n, &fd);
	if (r < 0 || fd < 0)
		return r;
	t->stack[t->n] = (struct rmlevel){ .d = fdopendir(fd), .name = n, .path = p };
	if (!t->stack[t->n].d) {
		r = errno;
		close(fd);
		return rm_fail(t, p, r, "cannot list: ");
	}
	t->n++;
	n = p = NULL;
	return 0;
}

/* The deepest directory is empty: remove it. Entries the sandbox added
 * meanwhile make this fail (ENOTEMPTY), named. */
static int rm_finish_level(struct rmtree *t)
{
	struct rmlevel *l = &t->stack[t->n - 1];
	int dfd = rm_parent_fd(t, t->n - 1), r = 0;

	closedir(l->d);
	l->d = NULL;
	if (unlinkat(dfd, l->name, AT_REMOVEDIR) < 0 && !(errno == ENOENT && t->n > 1))
		r = rm_fail(t, l->path, errno, "cannot remove: ");
	rm_pop(t);
	return r;
}

/* One step: the next entry of the deepest directory, or that directory
 * itself once it has none left. An explicit stack, not recursion: the
 * depth is bounded by REMOVE_MAX_DEPTH, not by the C stack. */
static int rm_step(struct rmtree *t)
{
	struct rmlevel *l = &t->stack[t->n - 1];
	struct dirent *de;
	char *name, *path;

	errno = 0;
	do
		de = readdir(l->d);
	while (de && (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0));
	if (!de && errno)
		return rm_fail(t, l->path, errno, "cannot list: ");
	/* Entries removed while reading may make readdir skip others on some
	 * file systems: read once more from the start before the rmdir. */
	if (!de && !l->rewound) {
		l->rewound = true;
		rewinddir(l->d);
		return 0;
	}
	if (!de)
		return rm_finish_level(t);
	name = strdup(de->d_name);
	if (!name || asprintf(&path, "%s/%s", l->path, de->d_name) < 0) {
		free(name);
		return rm_fail(t, l->path, ENOMEM, "");
	}
	return rm_visit(t, dirfd(l->d), name, path);
}

static int remove_tree_beneath_errno(int root_fd, const char *rel, osb_error *err)
{
	_cleanup_close_ int parent = -1;
	struct rmtree t = { 0 };
	osb_error local;
	struct beneath b;
	struct stat st;
	const char *base;
	char *name = NULL, *path = NULL;
	int r;

	api_init(&b, root_fd, err, &local);
	t.b = &b;
	r = open_parent(&b, rel, &parent, &base);
	if (r < 0)
		return r;
	if (fstat(parent, &st) < 0 || (r = path_mount_id(parent, &t.mnt)) < 0)
		return bfail_errno(&b, r < 0 ? -r : errno, rel, strlen(rel), "cannot stat: ");
	t.dev = st.st_dev;
	t.top = parent;
	t.stack = calloc(REMOVE_MAX_DEPTH, sizeof(*t.stack));
	name = strdup(base);
	path = strdup(rel);
	if (!t.stack || !name || !path) {
		free(t.stack);
		free(name);
		free(path);
		return bfail(&b, OSB_E_NOMEM, ENOMEM, NULL, 0, "out of memory");
	}
	r = rm_visit(&t, parent, name, path);
	while (r >= 0 && t.n > 0)
		r = rm_step(&t);
	while (t.n > 0)
		rm_pop(&t);
	free(t.stack);
	return r;
}

/* ---- the public file API: one error convention ------------------------------
 *
 * The steps above speak -errno, as the system calls they wrap; the public
 * calls answer as every call of the library does (libosb-isolate(3),
 * "ERRORS"): -OSB_E_* with the errno in osb_error.sys_errno. */

static int api_result(int r, osb_error *e)
{
	char buf[128];

	if (r >= 0)
		return r;
	if (e->code == OSB_OK)
		osb_err_set(e, r == -ENOMEM ? OSB_E_NOMEM : OSB_E_PATH, -r, "paths", "%s",
		            errstr(-r, buf, sizeof(buf)));
	if (e->sys_errno == 0)
		e->sys_errno = -r;
	return -e->code;
}

int osb_open_beneath(int root_fd, const char *rel, int flags, unsigned mode, osb_error *err)
{
	osb_error local = { 0 }, *e = err ? err : &local;

	osb_err_clear(e);
	return api_result(open_beneath_errno(root_fd, rel, flags, mode, e), e);
}

int osb_mkdir_beneath(int root_fd, const char *rel, unsigned mode, osb_error *err)
{
	osb_error local = { 0 }, *e = err ? err : &local;

	osb_err_clear(e);
	return api_result(mkdir_beneath_errno(root_fd, rel, mode, e), e);
}

int osb_unlink_beneath(int root_fd, const char *rel, int is_dir, osb_error *err)
{
	osb_error local = { 0 }, *e = err ? err : &local;

	osb_err_clear(e);
	return api_result(unlink_beneath_errno(root_fd, rel, is_dir, e), e);
}

int osb_rename_beneath(int root_fd, const char *from, const char *to, osb_error *err)
{
	osb_error local = { 0 }, *e = err ? err : &local;

	osb_err_clear(e);
	return api_result(rename_beneath_errno(root_fd, from, to, e), e);
}

int osb_write_file_beneath(int root_fd, const char *rel, const void *data, size_t len,
                           unsigned mode, osb_error *err)
{
	osb_error local = { 0 }, *e = err ? err : &local;

	osb_err_clear(e);
	return api_result(write_file_beneath_errno(root_fd, rel, data, len, mode, e), e);
}

int osb_fchmod_beneath(int root_fd, const char *rel, unsigned mode, osb_error *err)
{
	osb_error local = { 0 }, *e = err ? err : &local;

	osb_err_clear(e);
	return api_result(fchmod_beneath_errno(root_fd, rel, mode, e), e);
}

int osb_fchown_beneath(int root_fd, const char *rel, uint32_t uid, uint32_t gid,
                       osb_error *err)
{
	osb_error local = { 0 }, *e = err ? err : &local;

	osb_err_clear(e);
	return api_result(fchown_beneath_errno(root_fd, rel, uid, gid, e), e);
}

int osb_list_beneath(int root_fd, const char *rel, char ***names, osb_error *err)
{
	osb_error local = { 0 }, *e = err ? err : &local;

	osb_err_clear(e);
	return api_result(list_beneath_errno(root_fd, rel, names, e), e);
}

int osb_stat_beneath(int root_fd, const char *rel, osb_file_info *info, osb_error *err)
{
	osb_error local = { 0 }, *e = err ? err : &local;

	osb_err_clear(e);
	return api_result(stat_beneath_errno(root_fd, rel, info, false, e), e);
}

int osb_lstat_beneath(int root_fd, const char *rel, osb_file_info *info, osb_error *err)
{
	osb_error local = { 0 }, *e = err ? err : &local;

	osb_err_clear(e);
	return api_result(stat_beneath_errno(root_fd, rel, info, true, e), e);
}

int osb_readdir_beneath(int root_fd, const char *rel, size_t max_entries,
                        osb_dirent **entries, osb_error *err)
{
	osb_error local = { 0 }, *e = err ? err : &local;

	osb_err_clear(e);
	return api_result(readdir_beneath_errno(root_fd, rel, max_entries, entries, e), e);
}

osb_file_writer *osb_writer_open_beneath(int root_fd, const char *rel, unsigned mode,
                                         osb_error *err)
{
	osb_error local = { 0 }, *e = err ? err : &local;
	osb_file_writer *w = NULL;

	osb_err_clear(e);
	if (api_result(writer_open_errno(root_fd, rel, mode, &w, e), e) < 0)
		return NULL;
	return w;
}

int osb_writer_write(osb_file_writer *w, const void *data, size_t len, osb_error *err)
{
	osb_error local = { 0 }, *e = err ? err : &local;

	osb_err_clear(e);
	return api_result(writer_write_errno(w, data, len, e), e);
}

int osb_writer_commit(osb_file_writer *w, unsigned flags, osb_error *err)
{
	osb_error local = { 0 }, *e = err ? err : &local;

	osb_err_clear(e);
	return api_result(writer_commit_errno(w, flags, e), e);
}

int osb_writer_abort(osb_file_writer *w, osb_error *err)
{
	osb_error local = { 0 }, *e = err ? err : &local;

	osb_err_clear(e);
	return api_result(writer_abort_errno(w, e), e);
}

void osb_writer_free(osb_file_writer *w)
{
	writer_destroy(w);
}

int osb_remove_tree_beneath(int root_fd, const char *rel, osb_error *err)
{
	osb_error local = { 0 }, *e = err ? err : &local;

	osb_err_clear(e);
	return api_result(remove_tree_beneath_errno(root_fd, rel, e), e);
}

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* init-guard.c — two last-mile guards of osb-isolate-init, run inside the
 * sandbox after bwrap has built it and before any untrusted code.
 *
 * The mount audit ("init:mounts") reads /proc/self/mountinfo with the
 * strict parser of lib/mountinfo.c (no libmount: the init is static and
 * small) and refuses to go on if any writable mount the command can reach is not one
 * the launch plan expects: a host mount beneath a writable bind source comes
 * along writable (bwrap binds recursively), and nothing else would notice.
 * Entries hidden under a later mount are ignored: statx(STATX_MNT_ID) on an
 * entry's target names the mount that is really visible there.
 *
 * Landlock ("init:landlock") then confines writes to the plan's writable
 * paths, whatever fds or mounts the command finds: a directory fd that
 * reached the sandbox (the leaked-fd escape) and any writable mount the audit
 * could not know about are both outside the rules. Reads stay allowed
 * everywhere. With ABI 6 and later the domain is also scoped, so the command
 * cannot connect to abstract unix sockets (X11, D-Bus, ...) or signal
 * processes created outside it, even when it shares the host's network
 * namespace. Three raw syscalls, no library.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <linux/magic.h>
#include <linux/landlock.h>

#include "init-guard.h"
#include "mountinfo.h"

/* Newer than the kernel headers this may be built with (Debian 12: 6.1). */
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#endif
#ifndef LANDLOCK_SCOPE_SIGNAL
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif

/* The kernel's struct landlock_ruleset_attr as of ABI 6; older kernels take
 * a prefix of it (the size passed says how much). */
struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net; /* ABI 4 */
	uint64_t scoped;             /* ABI 6 */
};

/* Every write-type access of ABI 1. */
#define LL_WRITE_V1 (LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | \
	LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR | \
	LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | \
	LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | \
	LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM)
/* The subset the kernel accepts in a rule on a non-directory. */
#define LL_FILE_ACCESS (LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE)

/* Names of the device nodes bwrap's --dev binds from the host ("console"
 * only when its stdin is a terminal). */
static const char *const dev_nodes[] = {
	"null", "zero", "full", "random", "urandom", "tty", "console",
};

int guard_err(struct guard_error *e, int err, const char *fmt, ...)
{
	va_list ap;

	e->err = err;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -err;
}

/* ---- options ------------------------------------------------------------- */

/* Canonical absolute paths only, as mountinfo spells a mount's target: the
 * audit compares them exactly, so "/tmp/" or "/a/../tmp" could never match. */
static bool canonical_path(const char *p)
{
	const char *c;

	if (p[0] != '/' || strlen(p) >= PATH_MAX)
		return false;
	if (p[1] == '\0')
		return true;
	for (c = p; *c; ) {
		const char *next = strchr(c + 1, '/');
		size_t len = next ? (size_t)(next - c - 1) : strlen(c + 1);

		if (len == 0 || (len == 1 && c[1] == '.') || (len == 2 && c[1] == '.' && c[2] == '.'))
			return false;
		c += len + 1;
	}
	return true;
}

static int paths_add(struct guard_paths *ps, const char *opt, const char *p, struct guard_error *e)
{
	const char **v;

	if (!canonical_path(p))
		return guard_err(e, EINVAL, "%s \"%s\": expected a canonical absolute path (no trailing "
			    "slash, no empty, \".\" or \"..\" component)", opt, p);
	for (size_t i = 0; i < ps->n; i++)
		if (strcmp(ps->v[i], p) == 0)
			return guard_err(e, EINVAL, "%s %s given twice", opt, p);
	v = realloc(ps->v, (ps->n + 1) * sizeof(*v));
	if (!v)
		return guard_err(e, ENOMEM, "out of memory parsing %s", opt);
	v[ps->n++] = p;
	ps->v = v;
	return 0;
}

/* "MAJ:MIN:INO:PATH" (PATH last: it may hold a colon), for --expect-bind
 * and --reprotect (OPT), added to *V. */
static int bind_add(struct guard_bind **v, size_t *n_v, const char *opt, const char *val,
		    struct guard_error *e)
{
	struct guard_bind b = { 0 }, *nb;
	int n = -1;

	if (sscanf(val, "%u:%u:%llu:%n", &b.maj, &b.min, &b.ino, &n) != 3 || n <= 0 ||
	    !canonical_path(val + n))
		return guard_err(e, EINVAL, "%s \"%s\": expected MAJOR:MINOR:INODE:PATH with a "
			    "canonical absolute PATH", opt, val);
	b.path = val + n;
	for (size_t i = 0; i < *n_v; i++)
		if (strcmp((*v)[i].path, b.path) == 0)
			return guard_err(e, EINVAL, "%s %s given twice", opt, b.path);
	nb = realloc(*v, (*n_v + 1) * sizeof(*nb));
	if (!nb)
		return guard_err(e, ENOMEM, "out of memory parsing %s", opt);
	nb[(*n_v)++] = b;
	*v = nb;
	return 0;
}

int guard_parse_flag(struct guard_opts *g, const char *name, struct guard_error *e)
{
	bool *flag;

	if (strcmp(name, "--audit-mounts") == 0)
		flag = &g->audit_mounts;
	else if (strcmp(name, "--make-cover") == 0)
		flag = &g->make_cover;
	else
		return 0;
	if (*flag) {
		guard_err(e, EINVAL, "%s given twice", name);
		return -1;
	}
	*flag = true;
	return 1;
}

static int parse_landlock_mode(struct guard_opts *g, const char *v, struct guard_error *e)
{
	if (g->landlock != GUARD_LL_UNSET)
		return guard_err(e, EINVAL, "--landlock given twice");
	if (strcmp(v, "auto") == 0)
		g->landlock = GUARD_LL_AUTO;
	else if (strcmp(v, "required") == 0)
		g->landlock = GUARD_LL_REQUIRED;
	else if (strcmp(v, "off") == 0)
		g->landlock = GUARD_LL_OFF;
	else
		return guard_err(e, EINVAL, "--landlock \"%s\": expected auto, required or off", v);
	return 0;
}

int guard_parse_option(struct guard_opts *g, const char *name, const char *value,
		       struct guard_error *e)
{
	int r;

	if (strcmp(name, "--writable") == 0)
		r = paths_add(&g->writable, name, value, e);
	else if (strcmp(name, "--dev-mount") == 0)
		r = paths_add(&g->dev, name, value, e);
	else if (strcmp(name, "--landlock-rw") == 0)
		r = paths_add(&g->ll_rw, name, value, e);
	else if (strcmp(name, "--expect-bind") == 0)
		r = bind_add(&g->binds, &g->n_binds, name, value, e);
	else if (strcmp(name, "--reprotect") == 0)
		r = bind_add(&g->reprotect, &g->n_reprotect, name, value, e);
	else if (strcmp(name, "--proc-ro") == 0)
		r = paths_add(&g->proc_ro, name, value, e);
	else if (strcmp(name, "--proc-masked") == 0)
		r = paths_add(&g->proc_masked, name, value, e);
	else if (strcmp(name, "--masked") == 0)
		r = paths_add(&g->masked, name, value, e);
	else if (strcmp(name, "--synthesized") == 0)
		r = paths_add(&g->synth, name, value, e);
	else if (strcmp(name, "--landlock") == 0)
		r = parse_landlock_mode(g, value, e);
	else if (strcmp(name, "--audit-mounts") == 0 || strcmp(name, "--make-cover") == 0)
		r = guard_err(e, EINVAL, "%s takes no value", name);
	else
		return 0;
	return r < 0 ? -1 : 1;
}

int guard_check_opts(const struct guard_opts *g, struct guard_error *e)
{
	if ((g->writable.n || g->dev.n || g->n_binds) && !g->audit_mounts)
		return guard_err(e, EINVAL, "--writable and --dev-mount only describe the mount audit: "
			    "pass --audit-mounts too");
	for (size_t i = 0; i < g->n_reprotect; i++)
		if (!guard_reprotect_area(g, g->reprotect[i].path))
			return guard_err(e, EINVAL, "--reprotect %s lies beneath no writable bind the audit "
				    "verifies (a --writable PATH with an --expect-bind)",
				    g->reprotect[i].path);
	if (g->make_cover && !g->proc_ro.n && !g->proc_masked.n && !g->masked.n)
		return guard_err(e, EINVAL, "--make-cover needs what to cover: --proc-ro, --proc-masked "
			    "or --masked");
	if (g->ll_rw.n && g->landlock == GUARD_LL_UNSET)
		return guard_err(e, EINVAL, "--landlock-rw needs --landlock auto|required|off");
	return 0;
}

static bool paths_has(const struct guard_paths *ps, const char *p)
{
	for (size_t i = 0; i < ps->n; i++)
		if (strcmp(ps->v[i], p) == 0)
			return true;
	return false;
}

/* Is canonical A strictly beneath canonical B, component-wise? */
static bool strictly_beneath(const char *a, const char *b)
{
	size_t n = strcmp(b, "/") == 0 ? 0 : strlen(b);

	return strncmp(a, b, n) == 0 && a[n] == '/' && a[n + 1] != '\0';
}

const struct guard_bind *guard_reprotect_area(const struct guard_opts *g, const char *path)
{
	const struct guard_bind *best = NULL;

	for (size_t i = 0; i < g->n_binds; i++) {
		const struct guard_bind *b = &g->binds[i];

		if (paths_has(&g->writable, b->path) && strictly_beneath(path, b->path) &&
		    (!best || strlen(b->path) > strlen(best->path)))
			best = b;
	}
	return best;
}

/* ---- mount audit --------------------------------------------------------- */

/* The last component of `target` when `target` is exactly one component
 * below `dir` (both canonical), else NULL. */
static const char *child_name(const char *target, const char *dir)
{
	size_t n = strcmp(dir, "/") == 0 ? 0 : strlen(dir);

	if (strncmp(target, dir, n) != 0 || target[n] != '/' || target[n + 1] == '\0' ||
	    strchr(target + n + 1, '/'))
		return NULL;
	return target + n + 1;
}

/* What bwrap's --dev mounts beneath the new /dev: the host's device nodes
 * (writable binds, harmless: a write reaches the device, not a file system)
 * and a private devpts at pts. Both checked by type, not name alone. */
static bool dev_child_ok(const struct guard_opts *g, const char *target, const char *fstype,
			 const struct statx *sx)
{
	for (size_t i = 0; i < g->dev.n; i++) {
		const char *name = child_name(target, g->dev.v[i]);

		if (!name)
			continue;
		if (strcmp(name, "pts") == 0 && fstype && strcmp(fstype, "devpts") == 0)
			return true;
		for (size_t k = 0; k < sizeof(dev_nodes) / sizeof(dev_nodes[0]); k++)
			if (strcmp(name, dev_nodes[k]) == 0 && (sx->stx_mask & STATX_TYPE) &&
			    S_ISCHR(sx->stx_mode))
				return true;
	}
	return false;
}

/* 1 when the entry is the mount visible at its target, 0 when it is hidden
 * (covered by a later mount, or its path no longer leads to it), -errno
 * when that cannot be told. */
static int fs_visible(const struct mountinfo_entry *fs, struct statx *sx, struct guard_error *e)
{
	if (statx(AT_FDCWD, fs->target, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
		  STATX_TYPE | STATX_MNT_ID, sx) != 0) {
		if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)
			return 0;
		return guard_err(e, errno, "cannot tell whether the writable mount at %s is visible: "
			    "statx: %s; refusing to run the command", fs->target, strerror(errno));
	}
	if (!(sx->stx_mask & STATX_MNT_ID))
		return guard_err(e, ENOSYS, "the kernel does not report mount ids (statx STATX_MNT_ID, "
			    "Linux 5.8 or later), so hidden mounts cannot be told from visible ones; "
			    "refusing to run the command");
	return sx->stx_mnt_id == (uint64_t)fs->id;
}

static int check_fs(const struct guard_opts *g, const struct mountinfo_entry *fs,
		    struct guard_error *e)
{
	struct statx sx;
	int r;

	if (!mountinfo_writable(fs))
		return 0;
	memset(&sx, 0, sizeof(sx));
	r = fs_visible(fs, &sx, e);
	if (r <= 0)
		return r;
	if (paths_has(&g->writable, fs->target) || paths_has(&g->dev, fs->target) ||
	    paths_has(&g->made, fs->target) || dev_child_ok(g, fs->target, fs->fstype, &sx))
		return 0;
	if (g->overlay && strcmp(fs->target, g->overlay) == 0 && fs->fstype &&
	    strcmp(fs->fstype, "overlay") == 0)
		return 0;
	if (g->layer && strcmp(fs->target, g->layer) == 0)
		return 0;
	return guard_err(e, EPERM, "policy error: writable mount at %s (type %s, source %s, root %s) "
		    "is not one the plan expects; refusing to run the command (if it lies beneath a "
		    "granted path on the host, unmount it there or grant another path)",
		    fs->target, fs->fstype, *fs->source ? fs->source : "none", fs->root);
}

/* The whole table, read at once, every line parsed: a line skipped would be
 * a mount the audit never saw. */
static int read_mountinfo(char **buf, size_t *len, struct guard_error *e)
{
	static const char path[] = "/proc/self/mountinfo";
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return guard_err(e, errno, "cannot open %s: %s; the mounts cannot be audited, refusing "
			    "to run the command", path, strerror(errno));
	r = mountinfo_read(fd, buf, len);
	close(fd);
	if (r < 0)
		return guard_err(e, -r, "cannot read %s: %s; the mounts cannot be audited, refusing to "
			    "run the command", path, strerror(-r));
	return 0;
}

static int audit_table(const struct guard_opts *g, char *buf, size_t len, struct guard_error *e)
{
	struct mountinfo_table t = { .buf = buf, .len = len };
	struct mountinfo_entry fs;
	const char *why = NULL;
	int n = 0, r = 0;

	while (r == 0 && (n = mountinfo_next(&t, &fs, &why)) > 0)
		r = check_fs(g, &fs, e);
	if (r == 0 && n < 0)
		r = guard_err(e, EINVAL, "cannot parse /proc/self/mountinfo (line %zu: %s); the mounts "
			 "cannot be audited, refusing to run the command", t.line, why);
	else if (r == 0 && t.line == 0)
		r = guard_err(e, EINVAL, "cannot parse /proc/self/mountinfo (no entries); the mounts "
			 "cannot be audited, refusing to run the command");
	return r;
}

/* The bind at B->path is the one the plan verified on the host: a mount
 * root (nothing was left where a redirected bind should have been) holding
 * the same inode of the same device. */
static int check_bind(const struct guard_bind *b, struct guard_error *e)
{
	struct statx sx;

	memset(&sx, 0, sizeof(sx));
	if (statx(AT_FDCWD, b->path, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
		  STATX_TYPE | STATX_INO, &sx) != 0)
		return guard_err(e, errno, "policy error: the bind at %s cannot be checked: %s; its "
			    "destination may have been redirected during setup, refusing to run the "
			    "command", b->path, strerror(errno));
	if (!(sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT))
		return guard_err(e, ENOSYS, "the kernel does not report mount roots (statx "
			    "STATX_ATTR_MOUNT_ROOT, Linux 5.8 or later): the binds cannot be checked; "
			    "refusing to run the command");
	if (sx.stx_dev_major != b->maj || sx.stx_dev_minor != b->min || sx.stx_ino != b->ino ||
	    !(sx.stx_attributes & STATX_ATTR_MOUNT_ROOT))
		return guard_err(e, EPERM, "policy error: %s is not the bind the plan verified (expected "
			    "inode %llu of device %u:%u at a mount root, found inode %llu of %u:%u%s); "
			    "its destination was redirected during setup: refusing to run the command",
			    b->path, b->ino, b->maj, b->min, (unsigned long long)sx.stx_ino,
			    sx.stx_dev_major, sx.stx_dev_minor,
			    sx.stx_attributes & STATX_ATTR_MOUNT_ROOT ? "" : ", not a mount root");
	return 0;
}

int guard_audit_mounts(const struct guard_opts *g, struct guard_error *e)
{
	char *buf = NULL;
	size_t len = 0;
	int r;

	if (!g->audit_mounts)
		return 0;
	for (size_t i = 0; i < g->n_binds; i++)
		if ((r = check_bind(&g->binds[i], e)) < 0)
			return r;
	if ((r = read_mountinfo(&buf, &len, e)) < 0)
		return r;
	r = audit_table(g, buf, len, e);
	free(buf);
	return r;
}

int guard_audit_overlay(const struct guard_opts *g, struct guard_error *e)
{
	struct statfs sf;
	char *buf = NULL;
	size_t len = 0;
	int r;

	if (!g->overlay)
		return 0;
	if (statfs(g->overlay, &sf) != 0)
		return guard_err(e, errno, "cannot check the overlay workspace at %s: %s; refusing to run "
			    "the command", g->overlay, strerror(errno));
	if (sf.f_type != OVERLAYFS_SUPER_MAGIC)
		return guard_err(e, EPERM, "policy error: %s is not the overlay the init mounted (file "
			    "system magic %#lx); refusing to run the command", g->overlay,
			    (unsigned long)sf.f_type);
	if ((r = read_mountinfo(&buf, &len, e)) < 0)
		return r;
	r = audit_table(g, buf, len, e);
	free(buf);
	return r;
}

/* ---- /proc cover ----------------------------------------------------------- */

static int proc_ro_ok(const char *path, struct guard_error *e)
{
	struct statvfs vfs;

	if (statvfs(path, &vfs) != 0)
		return guard_err(e, errno, "cannot check %s: %s; refusing to run the command", path,
			    strerror(errno));
	if (!(vfs.f_flag & ST_RDONLY) || access(path, W_OK) == 0)
		return guard_err(e, EPERM, "policy error: %s is writable; it must be read-only before "
			    "the command runs (the plan binds it read-only)", path);
	return 0;
}

static bool dir_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	bool empty = true;

	if (!d)
		return false;
	while (empty && (de = readdir(d)) != NULL)
		empty = strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0;
	closedir(d);
	return empty;
}

static int proc_masked_ok(const char *path, struct guard_error *e)
{
	struct statvfs vfs;
	struct statfs fs;
	struct stat st;

	if (lstat(path, &st) != 0 || statvfs(path, &vfs) != 0 || statfs(path, &fs) != 0)
		return guard_err(e, errno, "cannot check %s: %s; refusing to run the command", path,
			    strerror(errno));
	if (!(vfs.f_flag & ST_RDONLY))
		return guard_err(e, EPERM, "policy error: %s is not masked (its mount is writable)", path);
	if (S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == 3)
		return 0;
	if (S_ISDIR(st.st_mode) && fs.f_type == TMPFS_MAGIC && dir_empty(path))
		return 0;
	return guard_err(e, EPERM, "policy error: %s is not masked (expected /dev/null or an empty "
		    "read-only tmpfs); refusing to run the command", path);
}

/* The file the plan wrote, not the one it covers: a host file left in
 * place would sit on the host's file system or on procfs, not on the
 * read-only tmpfs bwrap copies the data into. */
static int synthesized_ok(const char *path, struct guard_error *e)
{
	struct statvfs vfs;
	struct statfs fs;
	struct stat st;

	if (lstat(path, &st) != 0 || statvfs(path, &vfs) != 0 || statfs(path, &fs) != 0)
		return guard_err(e, errno, "cannot check %s: %s; refusing to run the command", path,
			    strerror(errno));
	if (S_ISREG(st.st_mode) && (vfs.f_flag & ST_RDONLY) && fs.f_type == TMPFS_MAGIC)
		return 0;
	return guard_err(e, EPERM, "policy error: %s is not the file the plan synthesized (expected "
		    "a regular file on a read-only tmpfs); refusing to run the command", path);
}

int guard_audit_proc(const struct guard_opts *g, struct guard_error *e)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < g->proc_ro.n; i++)
		r = proc_ro_ok(g->proc_ro.v[i], e);
	for (size_t i = 0; r == 0 && i < g->proc_masked.n; i++)
		r = proc_masked_ok(g->proc_masked.v[i], e);
	for (size_t i = 0; r == 0 && i < g->masked.n; i++)
		r = proc_masked_ok(g->masked.v[i], e);
	for (size_t i = 0; r == 0 && i < g->synth.n; i++)
		r = synthesized_ok(g->synth.v[i], e);
	return r;
}

/* ---- Landlock ------------------------------------------------------------ */

static uint64_t ll_write_access(int abi)
{
	uint64_t a = LL_WRITE_V1;

	if (abi >= 2)
		a |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		a |= LANDLOCK_ACCESS_FS_TRUNCATE;
	return a;
}

/* The ABI version, 0 when the kernel has no Landlock (not built, or not
 * enabled at boot), -errno on any other answer. */
static int ll_abi(void)
{
	long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	if (abi >= 1)
		return (int)(abi > INT_MAX ? INT_MAX : abi);
	if (errno == ENOSYS || errno == EOPNOTSUPP)
		return 0;
	return -errno;
}

/* Paths are opened without following a final symlink: the plan passes mount
 * points, and a symlink there would move the rule somewhere else. */
static int ll_add_path(int ruleset, const char *path, uint64_t handled, struct guard_error *e)
{
	struct landlock_path_beneath_attr pb = { 0 };
	struct stat st;
	int fd = open(path, O_PATH | O_CLOEXEC | O_NOFOLLOW), r = 0;

	if (fd < 0)
		return guard_err(e, errno, "--landlock-rw %s: %s%s", path, strerror(errno),
			    errno == ENOENT ? " (the plan's writable paths must exist in the sandbox)" : "");
	if (fstat(fd, &st) != 0)
		r = guard_err(e, errno, "--landlock-rw %s: %s", path, strerror(errno));
	else if (S_ISLNK(st.st_mode))
		r = guard_err(e, ELOOP, "--landlock-rw %s is a symlink; the plan's writable paths are "
			 "mount points, never symlinks", path);
	if (r < 0)
		goto out;
	pb.parent_fd = fd;
	pb.allowed_access = S_ISDIR(st.st_mode) ? handled : (handled & LL_FILE_ACCESS);
	if (syscall(__NR_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) != 0)
		r = guard_err(e, errno, "cannot add the Landlock rule for %s: %s", path, strerror(errno));
out:
	close(fd);
	return r;
}

static int ll_apply(const struct guard_opts *g, int abi, struct guard_error *e)
{
	struct ll_ruleset_attr attr = { .handled_access_fs = ll_write_access(abi) };
	size_t size = sizeof(attr.handled_access_fs);
	int ruleset, r = 0;

	if (abi >= 6) {
		attr.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL;
		size = sizeof(attr);
	}
	ruleset = (int)syscall(__NR_landlock_create_ruleset, &attr, size, 0);
	if (ruleset < 0)
		return guard_err(e, errno, "cannot create a Landlock ruleset (ABI %d): %s", abi,
			    strerror(errno));
	for (size_t i = 0; r == 0 && i < g->ll_rw.n; i++)
		r = ll_add_path(ruleset, g->ll_rw.v[i], attr.handled_access_fs, e);
	if (r == 0 && syscall(__NR_landlock_restrict_self, ruleset, 0) != 0)
		r = guard_err(e, errno, "cannot enforce the Landlock ruleset: %s (no_new_privs must be "
			 "set first)", strerror(errno));
	close(ruleset);
	return r;
}

int guard_landlock(const struct guard_opts *g, struct guard_error *e)
{
	int abi;

	if (g->landlock == GUARD_LL_UNSET || g->landlock == GUARD_LL_OFF)
		return 0;
	abi = ll_abi();
	if (abi < 0)
		return guard_err(e, -abi, "cannot probe the Landlock ABI: %s", strerror(-abi));
	if (abi == 0 && g->landlock == GUARD_LL_AUTO)
		return 0;
	if (abi == 0)
		return guard_err(e, EOPNOTSUPP, "the policy requires Landlock (landlock required) but this "
			    "kernel does not offer it (not built in, or not in the lsm= boot list); "
			    "use \"landlock auto\" to run without it");
	return ll_apply(g, abi, e);
}

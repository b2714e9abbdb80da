/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* hostpath.c — absolute host paths checked against who can change them.
 *
 * The plan turns every host path a sandbox gets (the workspace, write and
 * read-only grants, the roots they lie beneath) into an fd here, and the
 * configuration file is opened the same way. A path is walked from "/" one
 * component at a time with O_PATH|O_NOFOLLOW, each step relative to the fd
 * of the previous one, and every step is judged on what the kernel says
 * about that fd: a symlink is refused wherever it is (it may be someone
 * else's, and following it is how another user redirects root's workspace
 * into /etc); a directory crossed must belong to root or to the caller and
 * be writable by nobody else, or be sticky and then lead only to an entry of
 * root or the caller (ssh's StrictModes, sudo's secure path); a component
 * that is one of the system directories below (compared by inode, so a bind
 * mount or an alias is caught too) or that lies on a pseudo file system
 * (statfs f_type, not its name) is refused at any depth. Messages name the
 * component, its owner and what to do. Nothing is decided on a string but
 * the lexical early refusal of requests (path_system_problem), which the
 * walk repeats by inode.
 */
#include "hostpath.h"
#include "mountinfo.h"
#include "paths.h"
#include "policy.h"

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the tables -------------------------------------------------------------- */

enum {
	SD_TREE = 1u << 0,      /* refused at any depth; else only as the path itself */
	SD_NONROOT = 1u << 1,   /* only for a caller other than root */
};

typedef struct sysdir {
	const char *path;
	unsigned flags;
	const char *why;
} sysdir;

/* Each entry says why; osb-isolate(1), "PATHS", prints the same table. A
 * missing entry (no /lib32 here) is skipped. */
static const sysdir sysdirs[] = {
	{ "/etc", SD_TREE, "host configuration: cron, sudoers, PAM, profile scripts run as root" },
	{ "/usr", SD_TREE, "programs and libraries the host executes" },
	{ "/bin", SD_TREE, "programs the host executes" },
	{ "/sbin", SD_TREE, "programs the host executes" },
	{ "/lib", SD_TREE, "libraries and modules the host loads" },
	{ "/lib32", SD_TREE, "libraries the host loads" },
	{ "/lib64", SD_TREE, "libraries the host loads" },
	{ "/libx32", SD_TREE, "libraries the host loads" },
	{ "/boot", SD_TREE, "kernels and boot loader configuration" },
	{ "/opt", SD_TREE, "add-on software the host executes" },
	{ "/var/lib", SD_TREE, "service state: package database, databases, systemd" },
	{ "/var/log", SD_TREE, "logs the host trusts and rotates as root" },
	{ "/var/spool", SD_TREE, "cron, at and mail queues that daemons execute" },
	{ "/var/cache", SD_TREE, "caches the host installs from: packages, debconf answers" },
	{ "/var/backups", SD_TREE, "copies of passwd, shadow and the package database" },
	{ "/var/mail", SD_TREE, "every user's mail" },
	{ "/proc", SD_TREE, "the host's process and kernel interfaces" },
	{ "/sys", SD_TREE, "the host's kernel and device interfaces" },
	{ "/dev", SD_TREE, "the host's devices and shared memory" },
	{ "/run", SD_TREE, "service runtime state and control sockets: docker.sock, D-Bus, systemd" },
	{ "/root", SD_TREE | SD_NONROOT, "the home directory of root" },
	{ "/", 0, "the root directory" },
	{ "/home", 0, "the directory that holds every user's home (/home)" },
	{ "/tmp", 0, "the directory every user shares (/tmp)" },
	{ "/var/tmp", 0, "the directory every user shares (/var/tmp)" },
	{ "/srv", 0, "the directory that holds every service's data (/srv)" },
	{ "/var", 0, "the directory that holds the host's variable data (/var)" },
	{ "/mnt", 0, "the directory of temporary mounts (/mnt)" },
	{ "/media", 0, "the directory of removable media (/media)" },
};

#define CONFIGFS_MAGIC 0x62656570
#define FUSECTL_MAGIC 0x65735543
#define MQUEUE_MAGIC 0x19800202

/* Kernel interfaces that are file systems: writing one is changing the
 * kernel (sysctl, cgroups, tracing, BPF pins), and reading one shows the
 * host. devtmpfs has tmpfs's f_type; the mount table tells them apart, and
 * where it cannot (fs_judge), the step is refused as the host's fault. */
static const struct {
	unsigned long magic;
	const char *name;
} pseudo_fs[] = {
	{ PROC_SUPER_MAGIC, "procfs" }, { SYSFS_MAGIC, "sysfs" }, { DEVPTS_SUPER_MAGIC, "devpts" },
	{ CGROUP_SUPER_MAGIC, "cgroup" }, { CGROUP2_SUPER_MAGIC, "cgroup2" },
	{ DEBUGFS_MAGIC, "debugfs" }, { SECURITYFS_MAGIC, "securityfs" }, { BPF_FS_MAGIC, "bpffs" },
	{ TRACEFS_MAGIC, "tracefs" }, { CONFIGFS_MAGIC, "configfs" }, { EFIVARFS_MAGIC, "efivarfs" },
	{ PSTOREFS_MAGIC, "pstore" }, { BINFMTFS_MAGIC, "binfmt_misc" }, { SELINUX_MAGIC, "selinuxfs" },
	{ SMACK_MAGIC, "smackfs" }, { AAFS_MAGIC, "apparmorfs" }, { RDTGROUP_SUPER_MAGIC, "resctrl" },
	{ BINDERFS_SUPER_MAGIC, "binderfs" }, { USBDEVICE_SUPER_MAGIC, "usbdevfs" },
	{ OPENPROM_SUPER_MAGIC, "openpromfs" }, { FUSECTL_MAGIC, "fusectl" },
	{ MQUEUE_MAGIC, "mqueue" },
};

static const char tail_tree[] = "choose a project directory";
static const char tail_exact[] = "choose a project directory beneath it";

/* ---- walk state ------------------------------------------------------------ */

typedef struct idnode {
	dev_t dev;
	ino_t ino;
	bool known;
} idnode;

enum want { WANT_DIR, WANT_DIR_OR_FILE, WANT_FILE };

typedef struct hp_rules {
	const char *stage;
	bool tables;          /* system directories and pseudo file systems */
	bool shared;          /* the shared and home directories themselves */
	enum want want;
	bool single_link;     /* a regular file must have one link (writable binds) */
	bool owner_only;      /* the final component too: not writable by group or others */
	bool owned;           /* the final component too: owned by root or the caller */
	int final_flags;      /* O_PATH, or O_RDONLY for the configuration file */
	const path_roots *roots;
	int grant_fd;         /* -1, or the root the path must lie strictly beneath */
} hp_rules;

typedef struct hp_walk {
	const hp_rules *r;
	const char *abs;
	uid_t caller;
	idnode sys[ARRAY_SIZE(sysdirs)];
	idnode home[2];
	char *home_path[2];
	idnode *roots;
	idnode grant;
	uint64_t grant_mnt;
	bool beneath_root, past_grant;
	struct stat st, parent;   /* the current component and the directory it is in */
	osb_error *err;
} hp_walk;

__attribute__((format(printf, 4, 5)))
static int hp_fail(hp_walk *w, int code, int e, const char *fmt, ...)
{
	char what[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return osb_err_set(w->err, code, e, w->r->stage, "%s: %s", w->abs, what);
}

static int hp_nomem(hp_walk *w)
{
	return osb_err_set(w->err, OSB_E_NOMEM, ENOMEM, w->r->stage, "out of memory");
}

/* "osb-test (uid 999)", "root", or "uid 4242" when no account has it. */
static const char *owner_text(uid_t uid, char *buf, size_t size)
{
	char pwbuf[4096];
	struct passwd pw, *res = NULL;

	if (uid == 0)
		snprintf(buf, size, "root");
	else if (getpwuid_r(uid, &pw, pwbuf, sizeof(pwbuf), &res) == 0 && res)
		snprintf(buf, size, "%s (uid %u)", pw.pw_name, (unsigned)uid);
	else
		snprintf(buf, size, "uid %u", (unsigned)uid);
	return buf;
}

static bool same(const idnode *n, const struct stat *st)
{
	return n->known && n->dev == st->st_dev && n->ino == st->st_ino;
}

static void id_of(idnode *n, const char *path)
{
	struct stat st;

	n->known = path && path[0] == '/' && stat(path, &st) == 0;
	if (n->known) {
		n->dev = st.st_dev;
		n->ino = st.st_ino;
	}
}

/* The passwd home of the caller, for the home rules. */
static char *passwd_home(void)
{
	long hint = sysconf(_SC_GETPW_R_SIZE_MAX);
	size_t cap = hint > 0 ? (size_t)hint : 4096;

	for (int i = 0; i < 6; i++, cap *= 2) {
		_cleanup_free_ char *buf = malloc(cap);
		struct passwd pw, *res = NULL;
		int r;

		if (!buf)
			return NULL;
		r = getpwuid_r(getuid(), &pw, buf, cap, &res);
		if (r == ERANGE)
			continue;
		if (r != 0 || !res || !pw.pw_dir)
			return NULL;
		return strdup(pw.pw_dir);
	}
	return NULL;
}

/* The inodes the walk compares with: the table, the caller's homes (from
 * $HOME and from passwd), the configured roots, the grant root. */
static int hp_setup(hp_walk *w)
{
	const path_roots *roots = w->r->roots;
	const char *env_home = secure_getenv("HOME");
	struct stat st;

	w->caller = geteuid();
	for (size_t i = 0; w->r->tables && i < ARRAY_SIZE(sysdirs); i++)
		if (!(sysdirs[i].flags & SD_NONROOT) || w->caller != 0)
			id_of(&w->sys[i], sysdirs[i].path);
	if (w->r->tables) {
		w->home_path[0] = env_home && env_home[0] == '/' ? strdup(env_home) : NULL;
		w->home_path[1] = passwd_home();
		for (size_t i = 0; i < 2; i++)
			id_of(&w->home[i], w->home_path[i]);
	}
	if (roots && roots->n) {
		w->roots = calloc(roots->n, sizeof(*w->roots));
		if (!w->roots)
			return hp_nomem(w);
		for (size_t i = 0; i < roots->n; i++)
			id_of(&w->roots[i], roots->v[i]);
	}
	if (w->r->grant_fd >= 0) {
		int r;

		if (fstat(w->r->grant_fd, &st) < 0)
			return hp_fail(w, OSB_E_PATH, errno, "cannot stat the root it must lie beneath");
		if ((r = path_mount_id(w->r->grant_fd, &w->grant_mnt)) < 0)
			return hp_fail(w, OSB_E_PATH, -r, "cannot tell the mount of the root it must lie "
			               "beneath (statx STATX_MNT_ID, /proc/self/fdinfo): %s", strerror(-r));
		w->grant = (idnode){ st.st_dev, st.st_ino, true };
	}
	return 0;
}

static void hp_free(hp_walk *w)
{
	free(w->roots);
	free(w->home_path[0]);
	free(w->home_path[1]);
}

/* ---- judging one step -------------------------------------------------------- */

/* The type of FD's mount as the mount table names it, into *TYPE
 * (malloc'd); or -errno with why the table cannot say, into WHY. */
static int mount_type(int fd, char **type, char *why, size_t size)
{
	struct mountinfo_table tb;
	struct mountinfo_entry fs;
	const char *fault = NULL;
	uint64_t id;
	int r;

	*type = NULL;
	if ((r = path_mount_id(fd, &id)) < 0) {
		snprintf(why, size, "its mount id is unknown (statx STATX_MNT_ID, /proc/self/fdinfo): %s",
		         strerror(-r));
		return r;
	}
	if ((r = mountinfo_load("/proc/self/mountinfo", &tb)) < 0) {
		snprintf(why, size, "cannot read /proc/self/mountinfo: %s", strerror(-r));
		return r;
	}
	while ((r = mountinfo_next(&tb, &fs, &fault)) > 0 && (uint64_t)fs.id != id)
		;
	if (r > 0 && !(*type = strdup(fs.fstype)))
		r = -ENOMEM;
	else if (r < 0)
		snprintf(why, size, "/proc/self/mountinfo line %zu: %s", tb.line, fault);
	else if (r == 0)
		snprintf(why, size, "/proc/self/mountinfo has no entry for its mount id %" PRIu64, id);
	mountinfo_free(&tb);
	return r > 0 ? 0 : r == 0 ? -ENOENT : r;
}

enum fs_verdict { FS_PLAIN, FS_KERNEL, FS_UNKNOWN };

/* Whether FD's file system is a kernel interface: FS_KERNEL with what it is
 * in BUF, or FS_UNKNOWN with why it cannot be told in BUF and the errno in
 * *E. devtmpfs is told from a plain tmpfs by the mount table alone: where
 * the table cannot say, the answer is "unknown", never "plain". */
static enum fs_verdict fs_judge(int fd, char *buf, size_t size, int *e)
{
	_cleanup_free_ char *type = NULL;
	struct statfs sfs;
	char why[320];
	int r;

	if (fstatfs(fd, &sfs) < 0) {
		/* Kernel interfaces are told by f_type: without one, unknown. */
		*e = errno;
		snprintf(buf, size, "on a file system that cannot be identified (fstatfs: %s), so it "
		         "may be one of the host's kernel interfaces; check the file system (dmesg) "
		         "or choose a path on another one", strerror(*e));
		return FS_UNKNOWN;
	}
	for (size_t i = 0; i < ARRAY_SIZE(pseudo_fs); i++) {
		if ((unsigned long)sfs.f_type == pseudo_fs[i].magic) {
			snprintf(buf, size, "%s (f_type 0x%lx)", pseudo_fs[i].name, pseudo_fs[i].magic);
			return FS_KERNEL;
		}
	}
	if ((unsigned long)sfs.f_type != TMPFS_MAGIC)
		return FS_PLAIN;
	if ((r = mount_type(fd, &type, why, sizeof(why))) < 0) {
		*e = -r;
		if (r != -ENOMEM)
			snprintf(buf, size, "on a file system with tmpfs's f_type (0x%lx), which devtmpfs "
			         "(the host's devices) shares, and the mount table cannot tell which it "
			         "is: %s; check that /proc is mounted (the host's procfs) and readable, "
			         "or choose a path on another file system", (unsigned long)TMPFS_MAGIC,
			         why);
		return FS_UNKNOWN;
	}
	if (strcmp(type, "devtmpfs") != 0)
		return FS_PLAIN;
	snprintf(buf, size, "devtmpfs (f_type 0x%lx, mount type devtmpfs)", (unsigned long)TMPFS_MAGIC);
	return FS_KERNEL;
}

static const char *mode_writers(mode_t m)
{
	if ((m & 022) == 022)
		return "group and others";
	return (m & 020) ? "group" : "others";
}

/* May the directory W->st (the first LEN bytes of the path) be crossed?
 * Its owner and everyone who may write it could rename what lies beneath
 * and put a symlink in its place. */
static int hp_cross(hp_walk *w, size_t len)
{
	const struct stat *st = &w->st;
	char owner[320];

	if (st->st_uid != 0 && st->st_uid != w->caller)
		return hp_fail(w, OSB_E_PATH, EPERM, "%.*s is owned by %s, who could redirect the path; "
		               "every directory crossed must belong to root or to the caller", (int)len,
		               w->abs, owner_text(st->st_uid, owner, sizeof(owner)));
	if ((st->st_mode & 022) && !(st->st_mode & S_ISVTX))
		return hp_fail(w, OSB_E_PATH, EPERM, "%.*s is writable by %s (mode %04o), whose members "
		               "could redirect the path; remove the write permission (chmod go-w)",
		               (int)len, w->abs, mode_writers(st->st_mode),
		               (unsigned)(st->st_mode & 07777));
	return 0;
}

/* A name in a sticky directory others may write can be renamed by its
 * owner and by nobody else: safe only if that is root or the caller. */
static int hp_sticky_entry(hp_walk *w, size_t len, size_t parent_len)
{
	char owner[320];

	if (!(w->parent.st_mode & S_ISVTX) || !(w->parent.st_mode & 022) ||
	    w->st.st_uid == 0 || w->st.st_uid == w->caller)
		return 0;
	return hp_fail(w, OSB_E_PATH, EPERM, "%.*s (owned by %s) lies in the sticky, world-writable "
	               "%.*s, where only entries of root or of the caller are safe from replacement",
	               (int)len, w->abs, owner_text(w->st.st_uid, owner, sizeof(owner)),
	               (int)parent_len, w->abs);
}

/* The system directories and the caller's home: W->st is the component
 * NAME (the first LEN bytes), FINAL when it ends the path. */
static int hp_tables(hp_walk *w, const char *name, size_t len, bool final)
{
	for (size_t i = 0; i < ARRAY_SIZE(sysdirs); i++) {
		const sysdir *d = &sysdirs[i];

		if (!same(&w->sys[i], &w->st))
			continue;
		if (d->flags & SD_TREE)
			return hp_fail(w, OSB_E_PATH, EPERM, "inside %s (%s); %s", d->path, d->why, tail_tree);
		if (final && w->r->shared)
			return hp_fail(w, OSB_E_PATH, EPERM, "%s; %s", d->why, tail_exact);
	}
	for (size_t i = 0; i < 2; i++) {
		if (final && w->r->shared && same(&w->home[i], &w->st))
			return hp_fail(w, OSB_E_PATH, EPERM, "the home directory %s of the caller; %s",
			               w->home_path[i], tail_exact);
		if (name[0] == '.' && same(&w->home[i], &w->parent))
			return hp_fail(w, OSB_E_PATH, EPERM, "inside %.*s, a dot directory of the caller's "
			               "home (configuration that shells, ssh, git and editors run); %s",
			               (int)len, w->abs, tail_tree);
	}
	return 0;
}

/* Below the grant root nothing may cross a mount: what is granted is that
 * root's file system, as RESOLVE_NO_XDEV would have it. */
static int hp_grant(hp_walk *w, int fd, size_t len)
{
	uint64_t id;
	int r;

	if (w->r->grant_fd < 0)
		return 0;
	if (!w->past_grant) {
		w->past_grant = same(&w->grant, &w->st);
		return 0;
	}
	if ((r = path_mount_id(fd, &id)) < 0)
		return hp_fail(w, OSB_E_PATH, -r, "cannot tell the mount of %.*s (statx STATX_MNT_ID, "
		               "/proc/self/fdinfo): %s", (int)len, w->abs, strerror(-r));
	if (id != w->grant_mnt)
		return hp_fail(w, OSB_E_PATH, EXDEV, "%.*s is another mount; write paths may not cross "
		               "mount points", (int)len, w->abs);
	return 0;
}

/* The file system of the component FD (the path's first LEN bytes). */
static int hp_fs(hp_walk *w, int fd, size_t len)
{
	char buf[640];
	int e = 0;

	switch (fs_judge(fd, buf, sizeof(buf), &e)) {
	case FS_KERNEL:
		return hp_fail(w, OSB_E_PATH, EPERM, "on %s; the sandbox must not write or read the "
		               "host's kernel interfaces through it", buf);
	case FS_UNKNOWN:
		if (e == ENOMEM)
			return hp_nomem(w);
		return hp_fail(w, OSB_E_HOST, e, "%.*s is %s", (int)len, w->abs, buf);
	case FS_PLAIN:
		break;
	}
	return 0;
}

/* Judge the component NAME just opened as FD (the path's first LEN bytes;
 * the directory it is in ends at PARENT_LEN). */
static int hp_judge(hp_walk *w, int fd, const char *name, size_t len, size_t parent_len, bool final)
{
	char owner[320];
	int r;

	if (fstat(fd, &w->st) < 0)
		return hp_fail(w, OSB_E_PATH, errno, "cannot stat %.*s: %s", (int)len, w->abs,
		               strerror(errno));
	if (S_ISLNK(w->st.st_mode))
		return hp_fail(w, OSB_E_PATH, ELOOP, "symlink \"%s\" (owned by %s) refused: paths are "
		               "resolved without following symlinks; name the directory itself", name,
		               owner_text(w->st.st_uid, owner, sizeof(owner)));
	if ((r = hp_sticky_entry(w, len, parent_len)) < 0)
		return r;
	if (w->r->tables && (r = hp_tables(w, name, len, final)) < 0)
		return r;
	if (w->r->tables && (r = hp_fs(w, fd, len)) < 0)
		return r;
	if (w->roots)
		for (size_t i = 0; i < w->r->roots->n && !w->beneath_root; i++)
			w->beneath_root = same(&w->roots[i], &w->parent);
	if ((r = hp_grant(w, fd, len)) < 0)
		return r;
	if (!final && !S_ISDIR(w->st.st_mode))
		return hp_fail(w, OSB_E_PATH, ENOTDIR, "%.*s is not a directory", (int)len, w->abs);
	return 0;
}

/* ---- the end of the path ----------------------------------------------------------- */

static int hp_roots_fail(hp_walk *w)
{
	char list[700];
	size_t used = 0;

	list[0] = '\0';
	for (size_t i = 0; i < w->r->roots->n && used < sizeof(list); i++) {
		int n = snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "",
		                 w->r->roots->v[i]);

		if (n < 0)
			break;
		used += (size_t)n;
	}
	return hp_fail(w, OSB_E_PATH, EPERM, "not beneath a configured workspace root (workspace-root "
	               "in %s: %s)", w->r->roots->from ? w->r->roots->from : "api", list);
}

static int hp_final(hp_walk *w)
{
	const struct stat *st = &w->st;
	char owner[320];

	if (w->r->want == WANT_DIR && !S_ISDIR(st->st_mode))
		return hp_fail(w, OSB_E_PATH, ENOTDIR, "not a directory");
	if (w->r->want == WANT_FILE && !S_ISREG(st->st_mode))
		return hp_fail(w, OSB_E_PATH, EINVAL, "not a regular file");
	if (!S_ISDIR(st->st_mode) && !S_ISREG(st->st_mode))
		return hp_fail(w, OSB_E_PATH, ENXIO, "is %s; refused (only regular files and directories "
		               "are allowed)", S_ISFIFO(st->st_mode) ? "a FIFO" :
		               S_ISSOCK(st->st_mode) ? "a socket" : S_ISCHR(st->st_mode) ?
		               "a character device" : S_ISBLK(st->st_mode) ? "a block device" :
		               "of an unknown file type");
	if (w->r->single_link && S_ISREG(st->st_mode) && st->st_nlink > 1)
		return hp_fail(w, OSB_E_PATH, EMLINK, "regular file has %ju hard links; refused (another "
		               "link may be a file outside the root)", (uintmax_t)st->st_nlink);
	if (w->r->owned && st->st_uid != 0 && st->st_uid != w->caller)
		return hp_fail(w, OSB_E_PATH, EPERM, "owned by %s, who could change it; it must belong to "
		               "root or to the caller", owner_text(st->st_uid, owner, sizeof(owner)));
	if (w->r->owner_only && (st->st_mode & 022))
		return hp_fail(w, OSB_E_PATH, EPERM, "writable by %s (mode %04o), whose members could "
		               "change it; remove the write permission (chmod go-w)",
		               mode_writers(st->st_mode), (unsigned)(st->st_mode & 07777));
	if (w->roots && !w->beneath_root)
		return hp_roots_fail(w);
	if (w->r->grant_fd >= 0 && !w->past_grant)
		return hp_fail(w, OSB_E_PATH, EXDEV, "not beneath its write-root");
	if (w->r->grant_fd >= 0 && same(&w->grant, st))
		return hp_fail(w, OSB_E_PATH, EINVAL, "the write-root itself; only paths beneath it may "
		               "be granted");
	return 0;
}

/* ---- the walk -------------------------------------------------------------------- */

/* ABS: absolute, every component a plain name (no "", ".", ".."): the
 * path walked is exactly the path written, and the path the sandbox sees. */
static int hp_lexical(hp_walk *w)
{
	const char *a = w->abs;

	if (!a || a[0] != '/')
		return osb_err_set(w->err, OSB_E_PATH, EINVAL, w->r->stage, "%s: not an absolute path",
		                   a ? a : "(null)");
	if (strnlen(a, PATH_MAX) >= PATH_MAX)
		return osb_err_set(w->err, OSB_E_PATH, ENAMETOOLONG, w->r->stage,
		                   "a path longer than PATH_MAX - 1 (%d) bytes", PATH_MAX - 1);
	if (strcmp(a, "/") == 0)
		return 0;
	for (const char *c = a + 1;;) {
		size_t n = strcspn(c, "/");

		if (n == 0 || n > NAME_MAX || (n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.'))
			return hp_fail(w, OSB_E_PATH, EINVAL, "not a normalized absolute path (an empty, "
			               "\".\" or \"..\" component, a trailing \"/\", or a name longer "
			               "than NAME_MAX)");
		if (!c[n])
			return 0;
		c += n + 1;
	}
}

/* Step from the directory *CUR into NAME (ending at LEN; *CUR ends at
 * CUR_LEN); *CUR becomes the new fd. */
static int hp_step(hp_walk *w, int *cur, const char *name, size_t cur_len, size_t len, bool final)
{
	int flags = final ? w->r->final_flags : O_PATH;
	int fd, r;

	/* Opened first (O_PATH and O_NONBLOCK open nothing that blocks), so a
	 * missing file is reported as missing; judged before it is used. */
	fd = openat(*cur, name, flags | O_NOFOLLOW | O_CLOEXEC | (final ? O_NONBLOCK : 0));
	if (fd < 0 && errno == ELOOP && flags != O_PATH)
		fd = openat(*cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);   /* to name the symlink */
	if (fd < 0)
		return hp_fail(w, OSB_E_PATH, errno, "cannot open %.*s: %s", (int)len, w->abs,
		               strerror(errno));
	if ((r = hp_cross(w, cur_len)) < 0) {
		close(fd);
		return r;
	}
	w->parent = w->st;
	r = hp_judge(w, fd, name, len, cur_len, final);
	close(*cur);
	*cur = fd;
	return r;
}

static int hp_walk_path(hp_walk *w, int *fd_out)
{
	_cleanup_close_ int cur = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	const char *c = w->abs + 1;
	size_t cur_len = 1;
	char name[NAME_MAX + 1];
	int r;

	if (cur < 0 || fstat(cur, &w->st) < 0)
		return hp_fail(w, OSB_E_PATH, errno, "cannot open \"/\": %s", strerror(errno));
	w->parent = w->st;
	if (!*c && (r = hp_judge(w, cur, "/", 1, 1, true)) < 0)
		return r;
	while (*c) {
		size_t n = strcspn(c, "/"), end = (size_t)(c - w->abs) + n;

		memcpy(name, c, n);
		name[n] = '\0';
		if ((r = hp_step(w, &cur, name, cur_len, end, !c[n])) < 0)
			return r;
		cur_len = end;
		c += n + (c[n] == '/');
	}
	if ((r = hp_final(w)) < 0)
		return r;
	*fd_out = cur;
	cur = -1;
	return 0;
}

static int hp_open(const char *abs, const hp_rules *rules, int *fd_out, osb_error *err)
{
	osb_error local = { 0 };
	hp_walk w = { .r = rules, .abs = abs, .err = err ? err : &local };
	int r;

	*fd_out = -1;
	r = hp_lexical(&w);
	if (r == 0)
		r = hp_setup(&w);
	if (r == 0)
		r = hp_walk_path(&w, fd_out);
	hp_free(&w);
	return r;
}

/* ---- entry points ---------------------------------------------------------------- */

int path_open_workspace(const char *dir, const path_roots *roots, int *fd_out, char **canon,
                        osb_error *err)
{
	const hp_rules rules = {
		.stage = "workspace", .tables = true, .shared = true, .want = WANT_DIR,
		.final_flags = O_PATH, .roots = roots && roots->n ? roots : NULL, .grant_fd = -1,
	};
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	if (!dir || !*dir)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "workspace",
		                   "empty workspace path; pass --workspace DIR with a project directory");
	if ((r = hp_open(dir, &rules, &fd, err)) < 0)
		return r;
	if (fstat(fd, &st) < 0)
		return osb_err_set(err, OSB_E_PATH, errno, "workspace", "%s: cannot stat: %s", dir,
		                   strerror(errno));
	r = path_fd_name(fd, &st, canon);
	if (r == -ENOMEM)
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "workspace", "out of memory");
	if (r < 0)
		return osb_err_set(err, OSB_E_PATH, -r, "workspace",
		                   "%s: cannot read back the workspace's path from /proc/self/fd "
		                   "(is /proc mounted, or was the directory removed?)", dir);
	*fd_out = fd;
	fd = -1;
	return 0;
}

int path_open_root(const char *abs, int *fd_out, osb_error *err)
{
	const hp_rules rules = {
		.stage = "paths", .tables = true, .want = WANT_DIR, .owner_only = true,
		.final_flags = O_PATH, .grant_fd = -1,
	};

	return hp_open(abs, &rules, fd_out, err);
}

int path_open_granted(int root_fd, const char *abs, int *fd_out, osb_error *err)
{
	const hp_rules rules = {
		.stage = "paths", .tables = true, .shared = true, .want = WANT_DIR_OR_FILE,
		.single_link = true, .final_flags = O_PATH, .grant_fd = root_fd,
	};

	return hp_open(abs, &rules, fd_out, err);
}

int path_open_caller_bind(const char *abs, int *fd_out, osb_error *err)
{
	const hp_rules rules = {
		.stage = "paths", .tables = true, .shared = true, .want = WANT_DIR_OR_FILE,
		.final_flags = O_PATH, .grant_fd = -1,
	};

	return hp_open(abs, &rules, fd_out, err);
}

int path_open_config(const char *path, osb_error *err)
{
	const hp_rules rules = {
		.stage = "config", .want = WANT_FILE, .owned = true, .owner_only = true,
		.final_flags = O_RDONLY, .grant_fd = -1,
	};
	int fd = -1, r = hp_open(path, &rules, &fd, err);

	return r < 0 ? r : fd;
}

int path_check_fs(int fd, const char *what, const char *stage, osb_error *err)
{
	char buf[640];
	int e = 0;

	switch (fs_judge(fd, buf, sizeof(buf), &e)) {
	case FS_KERNEL:
		return osb_err_set(err, OSB_E_PATH, EPERM, stage, "%s: on %s; the sandbox must not "
		                   "write or read the host's kernel interfaces through it", what, buf);
	case FS_UNKNOWN:
		if (e == ENOMEM)
			return osb_err_set(err, OSB_E_NOMEM, ENOMEM, stage, "out of memory");
		return osb_err_set(err, OSB_E_HOST, e, stage, "%s: %s", what, buf);
	case FS_PLAIN:
		break;
	}
	return 0;
}

const char *path_system_problem(const char *abs, char *buf, size_t size)
{
	bool root = geteuid() == 0;

	for (size_t i = 0; i < ARRAY_SIZE(sysdirs); i++) {
		const sysdir *d = &sysdirs[i];

		if ((d->flags & SD_NONROOT) && root)
			continue;
		if ((d->flags & SD_TREE) && (strcmp(d->path, abs) == 0 ||
		                             policy_path_beneath(d->path, abs))) {
			snprintf(buf, size, "inside %s (%s); %s", d->path, d->why, tail_tree);
			return buf;
		}
		if (!(d->flags & SD_TREE) && strcmp(d->path, abs) == 0) {
			snprintf(buf, size, "%s; %s", d->why, tail_exact);
			return buf;
		}
	}
	return NULL;
}

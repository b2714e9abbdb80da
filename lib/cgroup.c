/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* cgroup.c — kernel-enforced memory, process and CPU limits for one sandbox.
 *
 * Role. rlimits bound single processes; a sandbox is a tree of them. This
 * module gives each sandbox a cgroup of its own, so that the kernel bounds
 * the tree as a whole (memory, processes, CPU share), says afterwards why it
 * ended (OOM kill, pids limit, throttling, peak memory) and can kill all of
 * it at once. It is a stage of its own with an internal interface
 * (cgroup.h); the plan, spawn and result stages call it.
 *
 * Where. cgroup_host_probe() gathers facts first (/proc/self/mountinfo
 * through lib/mountinfo.c, /proc/self/cgroup) and finds every hierarchy that
 * matters: the v2 one, and the v1 hierarchies carrying memory, pids, cpu,
 * cpuacct or freezer (a hybrid host has both; a controller lives in exactly
 * one). Then, per hierarchy, it tries directories nearest first: a
 * configured parent if the caller gave one, else this process's own cgroup
 * and its ancestors up to the mount point (systemd's delegation gives the
 * caller a subtree some levels up; a container's cgroup namespace shows its
 * own cgroup as the root). A directory counts only after real attempts in a
 * throw-away child cgroup: mkdir, writing each limit file, a child process
 * entering it, rmdir. On v2 a controller must also be in the parent's
 * cgroup.subtree_control; the module enables it there only in a configured
 * parent, in its own cgroup (where the kernel allows it only at the root)
 * or, for an unprivileged caller, in an ancestor delegated to it (whose
 * cgroup.subtree_control it owns), never in someone else's ancestor, and
 * never in a cgroup other than the root while processes live in it. Each
 * controller then has a version and a parent, or a reason and a remedy
 * (cgroup_host_ctrl).
 *
 * Files. v2: memory.max, memory.swap.max, pids.max, cpu.max written;
 * memory.events (oom_kill, max), memory.peak, pids.events (max), pids.peak,
 * cpu.stat (usage_usec, nr_throttled, throttled_usec), cgroup.events
 * (populated, frozen) read; cgroup.procs, cgroup.kill, cgroup.freeze,
 * cgroup.subtree_control written. v1: memory.limit_in_bytes and
 * memory.memsw.limit_in_bytes (memory + swap; where swap accounting exists),
 * pids.max, cpu.cfs_period_us and cpu.cfs_quota_us written;
 * memory.oom_control (oom_kill; under_oom is not used: it is non-zero only
 * while the OOM killer is disabled, which this module never does),
 * memory.failcnt, memory.max_usage_in_bytes, pids.events, pids.peak, cpu.stat
 * (nr_throttled, throttled_time), cpuacct.usage read; cgroup.procs and
 * freezer.state written.
 *
 * Attach. A sandbox cgroup keeps every hierarchy's cgroup.procs open
 * (O_WRONLY|O_CLOEXEC). The spawn child, which between clone(CLONE_VM|
 * CLONE_VFORK) and execve runs raw system calls only, writes "0" (itself)
 * to each (cgroup_attach_self), first of all: before it takes the sandbox's
 * host ids (the write needs the owner's rights; Linux 5.16 checks the
 * opener's credentials, older kernels the writer's) and before close_range.
 * So bwrap, and everything it starts, is inside before any sandbox code
 * runs. On v2 alone clone3(CLONE_INTO_CGROUP, cgroup_v2_fd()) is the atomic
 * alternative for a clone3-based spawn (cgroup.h has the recipe).
 *
 * Kill and remove. cgroup_kill writes cgroup.kill (v2, Linux 5.14), which
 * kills everything atomically, forks in flight included. Without it, the
 * cgroup is frozen (v2 cgroup.freeze or the v1 freezer), every listed
 * process is killed, then thawed; without a freezer, rounds of kill until a
 * round finds nobody (a process with SIGKILL pending cannot fork). A
 * process is signalled through a pidfd opened after it was listed and only
 * if it is listed again afterwards, so a recycled pid of an outsider is
 * never hit. cgroup_destroy kills, waits until the kernel says empty, and
 * removes every directory.
 *
 * Removal after the caller is SIGKILLed. Every sandbox (and probe) cgroup
 * is named osb-PID-RANDOM and its directory fd holds an exclusive flock(2)
 * for as long as the creator lives; the kernel drops the lock when the
 * creator dies, however it dies. Every cgroup_create first sweeps its
 * parents (cgroup_sweep): an osb-* directory whose lock can be taken has no
 * living creator; its processes are killed and it is removed, depth first.
 * This was chosen over a reaper process that outlives the caller: a reaper
 * is one more process per sandbox, must be started from a binary of its
 * own, and dies with the caller whenever the caller's whole cgroup is
 * killed (a service stop, an OOM group kill), which is when cleanup matters;
 * the lock needs no process, has no pid-reuse or pid-namespace ambiguity (a
 * pid file would), and a creator's live cgroup is never taken. Sandboxes
 * normally die with their supervisor (bwrap --die-with-parent), so what a
 * killed caller leaves is mostly empty directories, removed at the next
 * launch on this host; a sandbox still running there is killed by the sweep.
 * A creator that loses the race with a sweep between mkdir and flock sees
 * its directory gone or locked and retries with a new name.
 *
 * Integration (to do, by the plan, spawn and result stages). Policy
 * directives `limit memory SIZE` (memory_max, swap_max 0), `limit pids N`,
 * `limit cpu FRACTION|PERCENT` (cpu_millis) and `tmpfs PATH size=SIZE`
 * (bwrap --size; tmpfs pages are charged to the cgroup of the writer, so
 * memory_max bounds them too); the plan probes the host once (cached like the
 * capabilities probe), refuses with the controller's reason unless the
 * policy marks the limit best-effort, and calls cgroup_create; spawn adds
 * cgroup_attach_self first in its child; the supervisor, which stays
 * outside the sandbox's cgroup, enforces the wall limit; the result takes
 * oom_killed, pids_limited, cpu_throttled and peak_memory from
 * cgroup_read_outcome before cgroup_destroy. /sys/fs/cgroup must never be
 * writable inside: in userns mode the sandbox runs as the caller's uid,
 * which owns the cgroup's files.
 */
#include "cgroup.h"
#include "fork-hint.h"
#include "mountinfo.h"
#include "proc.h"

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <dirent.h>
#include <time.h>

#ifndef CGROUP_SUPER_MAGIC
#define CGROUP_SUPER_MAGIC 0x27e0eb
#endif
#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

#define CG_WHY_MAX 512
#define CG_CTRL_WHY_MAX 1024
#define PROCS_MAX ((size_t)8 << 20)
#define KILL_ROUNDS_MS 5000
#define SWEEP_DEPTH 8

const char *const cgroup_ctrl_names[CG__NCTRL] = { "memory", "pids", "cpu" };

typedef struct cg_mount {
	int version;
	unsigned ctrls;          /* CG_BIT()s | CG_X_* carried */
	dev_t dev;
	char *target;
	char *own;               /* this process's cgroup directory, or NULL */
	char *configured;        /* the caller's parent in this hierarchy, or NULL */
	char *parent;            /* chosen parent, or NULL */
	unsigned usable;
	bool has_kill, has_freeze;
	char why[CG_WHY_MAX];
	bool why_at_limit;       /* WHY: no process could be started (fork-hint.h) */
} cg_mount;

struct cgroup_host {
	cg_mount m[CG_MAX_DIRS];
	size_t n;
	int ctrl[CG__NCTRL];     /* index in m, or -1 */
	char ctrl_why[CG__NCTRL][CG_CTRL_WHY_MAX];
	unsigned hide;
	uid_t uid;
	bool probed;
};

typedef struct cg_dir {
	int version;
	unsigned ctrls;
	bool has_kill, has_freeze;
	char *path;
	int fd;                  /* the directory, holding the flock */
	int procs;               /* cgroup.procs, O_WRONLY */
} cg_dir;

struct cgroup {
	char name[48];
	cg_dir d[CG_MAX_DIRS];
	size_t n;
};

/* ---- small file helpers ------------------------------------------------------- */

static int write_str(int dirfd, const char *file, const char *val)
{
	_cleanup_close_ int fd = openat(dirfd, file, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	size_t len = strlen(val);
	ssize_t w;

	if (fd < 0)
		return -errno;
	w = write(fd, val, len);
	if (w < 0)
		return -errno;
	return (size_t)w == len ? 0 : -EIO;
}

/* FILE's whole content (at most MAX bytes), NUL-terminated, in *OUT. */
static int read_all(int dirfd, const char *file, size_t max, char **out)
{
	_cleanup_close_ int fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	size_t n = 0, cap = 0;
	char *buf = NULL;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t r;

		if (n + 1 >= cap) {
			char *nb = cap >= max ? NULL : realloc(buf, cap ? cap * 2 : 4096);

			if (!nb) {
				free(buf);
				return cap >= max ? -EFBIG : -ENOMEM;
			}
			buf = nb;
			cap = cap ? cap * 2 : 4096;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(buf);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	*out = buf;
	return 0;
}

/* A decimal number that fills S[0..LEN) but for trailing blanks. */
static int parse_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (i == 0)
		return -EINVAL;
	for (; i < len; i++)
		if (s[i] != ' ' && s[i] != '\n')
			return -EINVAL;
	*out = v;
	return 0;
}

/* The value of KEY in a flat keyed file ("key value" a line). */
static int keyed_u64(const char *text, const char *key, uint64_t *out)
{
	size_t kl = strlen(key);

	for (const char *l = text; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);

		if (len > kl && strncmp(l, key, kl) == 0 && l[kl] == ' ')
			return parse_u64(l + kl + 1, len - kl - 1, out);
		l = nl ? nl + 1 : NULL;
	}
	return -ENOENT;
}

/* Read KEY of FILE (or the whole file when KEY is NULL) into *OUT and set
 * BIT in *KNOWN. A missing file or key is not an error: the bit stays
 * clear. */
static int read_u64(int dirfd, const char *file, const char *key, uint64_t *out,
                    unsigned bit, unsigned *known)
{
	_cleanup_free_ char *text = NULL;
	int r = read_all(dirfd, file, 1 << 16, &text);

	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	r = key ? keyed_u64(text, key, out) : parse_u64(text, strlen(text), out);
	if (r == -ENOENT)
		return 0;
	if (r == 0)
		*known |= bit;
	return r;
}

/* Whether the blank-separated word list TEXT holds WORD. */
static bool has_word(const char *text, const char *word)
{
	size_t wl = strlen(word);

	for (const char *p = text; p && *p;) {
		size_t n;

		p += strspn(p, " \n");
		n = strcspn(p, " \n");
		if (n == wl && strncmp(p, word, n) == 0)
			return true;
		p += n;
	}
	return false;
}

/* Truncating format into a message buffer (messages are bounded on purpose). */
__attribute__((format(printf, 3, 4)))
static void say(char *buf, size_t size, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vsnprintf(buf, size, f, ap);
	va_end(ap);
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* ---- names and locks ---------------------------------------------------------- */

bool cgroup_name_is_ours(const char *name)
{
	size_t d, x;

	if (strncmp(name, "osb-", 4) != 0)
		return false;
	name += 4;
	d = strspn(name, "0123456789");
	if (d == 0 || d > 10 || name[d] != '-')
		return false;
	name += d + 1;
	x = strspn(name, "0123456789abcdef");
	return x == 16 && name[x] == '\0';
}

static void make_name(char *buf, size_t size)
{
	uint64_t rnd = 0;

	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd))
		rnd = now_ms() ^ ((uint64_t)(uintptr_t)buf << 16) ^ (uint64_t)getpid();
	snprintf(buf, size, "osb-%ld-%016" PRIx64, (long)getpid(), rnd);
}

static void dir_close(cg_dir *d)
{
	closep(&d->fd);
	closep(&d->procs);
	free(d->path);
	d->path = NULL;
	d->fd = d->procs = -1;
}

/* Lock, check and open what dir_make just made. */
static int dir_take(cg_dir *d, int pfd, const char *parent, const char *name)
{
	struct stat a, b;

	d->fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (d->fd < 0)
		return errno == ENOENT ? -EAGAIN : -errno;
	if (flock(d->fd, LOCK_EX | LOCK_NB) < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	/* Still the directory made above, not removed by a sweep meanwhile. */
	if (fstat(d->fd, &a) < 0 || fstatat(pfd, name, &b, AT_SYMLINK_NOFOLLOW) < 0 ||
	    a.st_ino != b.st_ino || a.st_dev != b.st_dev)
		return -EAGAIN;
	if (asprintf(&d->path, "%s/%s", parent, name) < 0) {
		d->path = NULL;
		return -ENOMEM;
	}
	d->procs = openat(d->fd, "cgroup.procs", O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	return d->procs < 0 ? -errno : 0;
}

/* Make PARENT/NAME and lock it; on failure nothing is left. -EAGAIN when
 * a sweep took it between the mkdir and the lock (then the sweep removes
 * it, and the caller retries with another name). */
static int dir_make(cg_dir *d, const char *parent, const char *name)
{
	_cleanup_close_ int pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r;

	d->fd = d->procs = -1;
	d->path = NULL;
	if (pfd < 0)
		return -errno;
	if (mkdirat(pfd, name, 0755) < 0)
		return -errno;
	r = dir_take(d, pfd, parent, name);
	if (r < 0 && r != -EAGAIN)
		unlinkat(pfd, name, AT_REMOVEDIR);
	if (r < 0)
		dir_close(d);
	return r;
}

/* Make a directory with a fresh name in PARENT (retrying lost races). */
static int dir_make_fresh(cg_dir *d, const char *parent, char *name, size_t size)
{
	int r;

	for (int tries = 0; tries < 8; tries++) {
		make_name(name, size);
		r = dir_make(d, parent, name);
		if (r != -EAGAIN && r != -EEXIST)
			return r;
	}
	return -EAGAIN;
}

/* ---- entering --------------------------------------------------------------- */

/* Runs in a CLONE_VM|CLONE_VFORK child on a stack ASan does not know: raw
 * system calls only. Writing "0" to cgroup.procs moves the writer's whole
 * thread group. */
__attribute__((no_sanitize("address")))
int cgroup_attach_self(const int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (syscall(SYS_write, fds[i], "0", 1) != 1)
			return -errno;
	return 0;
}

typedef struct raw_attach {
	const int *fds;
	size_t n;
} raw_attach;

__attribute__((no_sanitize("address"), noinline))
static int raw_attach_child(void *arg)
{
	const raw_attach *a = arg;
	int r = cgroup_attach_self(a->fds, a->n);

	/* The result travels in the exit status, not in shared memory: a
	 * debugger or valgrind may run this child as a fork. */
	syscall(SYS_exit, -r);
	return 0;
}

#define RAW_STACK (64u * 1024u)

/* The probe's real attempt: a child started the way lib/spawn.c starts
 * bwrap enters through FDS, then exits. 0 or -errno; *STARTED: whether the
 * child could be started at all. */
static int probe_attach(const int *fds, size_t n, bool *started)
{
	raw_attach a = { fds, n };
	char *stack = aligned_alloc(64, RAW_STACK);
	sigset_t all, old;
	int st = 0, e;
	pid_t pid;

	*started = false;
	if (!stack)
		return -ENOMEM;
	/* Nothing of the caller's signal handlers may run in the child. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = clone(raw_attach_child, stack + RAW_STACK, CLONE_VM | CLONE_VFORK | SIGCHLD, &a);
	e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (pid < 0) {
		free(stack);
		return -e;
	}
	*started = true;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			st = W_EXITCODE(ECHILD, 0);
			break;
		}
	free(stack);
	return WIFEXITED(st) ? -WEXITSTATUS(st) : -ECHILD;
}

size_t cgroup_attach_fds(const cgroup *cg, int *fds, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < cg->n && n < max; i++)
		if (cg->d[i].procs >= 0)
			fds[n++] = cg->d[i].procs;
	return n;
}

int cgroup_v2_fd(const cgroup *cg)
{
	for (size_t i = 0; i < cg->n; i++)
		if (cg->d[i].version == 2)
			return cg->d[i].fd;
	return -1;
}

/* ---- facts: the hierarchies and this process's place in them ---------------- */

static const struct {
	const char *name;
	unsigned bit;
} v1_names[] = {
	{ "memory", CG_BIT(CG_MEMORY) }, { "pids", CG_BIT(CG_PIDS) }, { "cpu", CG_BIT(CG_CPU) },
	{ "cpuacct", CG_X_CPUACCT }, { "freezer", CG_X_FREEZER },
};

/* A v1 hierarchy's controllers are among its superblock options
 * ("rw,memory"); the per-mount options are read too, as libmount's merged
 * list did. */
static unsigned v1_ctrls(const struct mountinfo_entry *fs)
{
	unsigned r = 0;

	for (size_t i = 0; i < sizeof(v1_names) / sizeof(v1_names[0]); i++)
		if (mountinfo_has_option(fs->sb_opts, v1_names[i].name) ||
		    mountinfo_has_option(fs->vfs_opts, v1_names[i].name))
			r |= v1_names[i].bit;
	return r;
}

static const char *v1_name(unsigned ctrls)
{
	for (size_t i = 0; i < sizeof(v1_names) / sizeof(v1_names[0]); i++)
		if (ctrls & v1_names[i].bit)
			return v1_names[i].name;
	return "?";
}

/* Whether the comma-separated LIST (of N bytes) names WORD. */
static bool list_has(const char *list, size_t n, const char *word)
{
	size_t wl = strlen(word);

	while (n > 0) {
		size_t k = strcspn(list, ",:");

		if (k > n)
			k = n;
		if (k == wl && strncmp(list, word, wl) == 0)
			return true;
		list += k;
		n -= k;
		if (n > 0) {
			list++;
			n--;
		}
	}
	return false;
}

/* This process's path in the hierarchy of version VERSION carrying CTRLS,
 * from /proc/self/cgroup's "ID:CONTROLLERS:PATH" lines (v2: "0::PATH"). */
static int self_path(const char *self, int version, unsigned ctrls, char *out, size_t size)
{
	for (const char *l = self; l && *l;) {
		const char *nl = strchr(l, '\n');
		const char *c1 = strchr(l, ':');
		const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		size_t len = nl ? (size_t)(nl - l) : strlen(l);

		if (c2 && c2 < l + len) {
			size_t cl = (size_t)(c2 - c1 - 1);
			bool match = version == 2 ? cl == 0 && c1 - l == 1 && l[0] == '0'
			                          : cl > 0 && list_has(c1 + 1, cl, v1_name(ctrls));

			if (match) {
				size_t pl = len - (size_t)(c2 + 1 - l);

				if (pl + 1 > size)
					return -ENAMETOOLONG;
				memcpy(out, c2 + 1, pl);
				out[pl] = '\0';
				return 0;
			}
		}
		l = nl ? nl + 1 : NULL;
	}
	return -ENOENT;
}

/* What of cgroup path PATH lies below ROOT, compared component by component
 * ("/a/bc" is not below "/a/b"): the remainder without a leading slash ("" for
 * ROOT itself), or NULL. */
static const char *path_below(const char *root, const char *path)
{
	for (;;) {
		size_t n;

		root += strspn(root, "/");
		path += strspn(path, "/");
		if (!*root)
			return path;
		n = strcspn(root, "/");
		if (strncmp(root, path, n) != 0 || (path[n] != '/' && path[n] != '\0'))
			return NULL;
		root += n;
		path += n;
	}
}

/* Fill M's own directory: its mount point plus this process's path below
 * the mount's root; NULL with WHY when it is not visible there. */
static int fact_own(cg_mount *m, const char *root, const char *self)
{
	char path[PATH_MAX];
	const char *rest;
	int r = self_path(self, m->version, m->ctrls, path, sizeof(path));

	if (r < 0) {
		say(m->why, sizeof(m->why), "/proc/self/cgroup has no line for the %s "
		         "hierarchy mounted at %s", m->version == 2 ? "v2" : v1_name(m->ctrls),
		         m->target);
		return 0;
	}
	rest = path_below(root ? root : "/", path);
	if (!rest) {
		say(m->why, sizeof(m->why), "this process's cgroup %s is not visible through "
		         "the mount at %s (which shows %s)", path, m->target, root ? root : "/");
		return 0;
	}
	if (asprintf(&m->own, "%s%s%s", m->target, *rest ? "/" : "", rest) < 0) {
		m->own = NULL;
		return -ENOMEM;
	}
	return 0;
}

static cg_mount *mount_by_dev(cgroup_host *h, dev_t dev)
{
	for (size_t i = 0; i < h->n; i++)
		if (h->m[i].dev == dev)
			return &h->m[i];
	return NULL;
}

static void mount_free(cg_mount *m)
{
	free(m->target);
	free(m->own);
	free(m->configured);
	free(m->parent);
	memset(m, 0, sizeof(*m));
}

/* Record FS if it is a hierarchy that matters. A hierarchy mounted twice
 * is kept once: the first mount that shows this process's cgroup. */
static int fact_mount(cgroup_host *h, const struct mountinfo_entry *fs, const char *self)
{
	int version = strcmp(fs->fstype, "cgroup2") == 0 ? 2 : strcmp(fs->fstype, "cgroup") == 0;
	unsigned ctrls = version == 1 ? v1_ctrls(fs) : 0;
	cg_mount *m, tmp = { .version = version, .ctrls = ctrls };
	int r;

	if (!version || (version == 1 && !ctrls))
		return 0;
	if ((version == 1 && (h->hide & CG_HIDE_V1)) || (version == 2 && (h->hide & CG_HIDE_V2)))
		return 0;
	if (h->hide & CG_HIDE_FREEZER)
		tmp.ctrls &= ~CG_X_FREEZER;
	if (version == 1 && !tmp.ctrls)
		return 0;
	m = mount_by_dev(h, makedev(fs->maj, fs->min));
	if ((m && m->own) || (!m && h->n == CG_MAX_DIRS))
		return 0;
	tmp.dev = makedev(fs->maj, fs->min);
	tmp.target = strdup(fs->target);
	if (!tmp.target)
		return -ENOMEM;
	r = fact_own(&tmp, fs->root, self);
	if (r < 0 || (m && !tmp.own)) {
		mount_free(&tmp);
		return r;
	}
	if (m)
		mount_free(m);
	else
		m = &h->m[h->n++];
	*m = tmp;
	return 0;
}

/* The v2 controllers this hierarchy offers at all: its root's list. */
static void fact_v2_ctrls(cg_mount *m)
{
	_cleanup_close_ int fd = open(m->target, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_free_ char *text = NULL;

	if (fd < 0 || read_all(fd, "cgroup.controllers", 4096, &text) < 0)
		return;
	for (int c = 0; c < CG__NCTRL; c++)
		if (has_word(text, cgroup_ctrl_names[c]))
			m->ctrls |= CG_BIT(c);
}

static int facts_read(cgroup_host *h, const char *proc_self, osb_error *err)
{
	_cleanup_free_ char *self = NULL;
	char path[PATH_MAX];
	struct mountinfo_table tb;
	struct mountinfo_entry fs;
	const char *why = NULL;
	int r = 0, n = 0;

	snprintf(path, sizeof(path), "%s/cgroup", proc_self);
	r = read_file_bounded(path, 1 << 16, &self, NULL);
	if (r < 0)
		return osb_err_set(err, OSB_E_HOST, -r, "cgroup", "cannot read %s: %s", path,
		                   strerror(-r));
	snprintf(path, sizeof(path), "%s/mountinfo", proc_self);
	if ((r = mountinfo_load(path, &tb)) < 0)
		return osb_err_set(err, OSB_E_HOST, -r, "cgroup", "cannot read the mount table %s: %s",
		                   path, strerror(-r));
	while (r == 0 && (n = mountinfo_next(&tb, &fs, &why)) > 0)
		r = fact_mount(h, &fs, self);
	mountinfo_free(&tb);
	if (r == 0 && n < 0)
		return osb_err_set(err, OSB_E_HOST, EINVAL, "cgroup", "cannot read the mount table %s: %s",
		                   path, why);
	for (size_t i = 0; i < h->n; i++)
		if (h->m[i].version == 2)
			fact_v2_ctrls(&h->m[i]);
	return r < 0 ? osb_err_set(err, OSB_E_NOMEM, -r, "cgroup", "out of memory") : 0;
}

/* A configured parent belongs to the hierarchy whose device it is on. */
static int place_configured(cgroup_host *h, const char *p, osb_error *err)
{
	struct stat st;
	cg_mount *m;

	if (p[0] != '/')
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "cgroup",
		                   "configured cgroup parent %s is not an absolute path", p);
	if (stat(p, &st) < 0 || !S_ISDIR(st.st_mode))
		return osb_err_set(err, OSB_E_HOST, errno, "cgroup",
		                   "configured cgroup parent %s: %s", p,
		                   S_ISDIR(st.st_mode) ? strerror(errno) : "not a directory");
	m = mount_by_dev(h, st.st_dev);
	if (!m)
		return osb_err_set(err, OSB_E_HOST, ENODEV, "cgroup",
		                   "configured cgroup parent %s is in no cgroup hierarchy this "
		                   "process sees (/proc/self/mountinfo)", p);
	if (m->configured)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "cgroup",
		                   "configured cgroup parents %s and %s are in one hierarchy",
		                   m->configured, p);
	m->configured = strdup(p);
	return m->configured ? 0 : osb_err_set(err, OSB_E_NOMEM, ENOMEM, "cgroup", "out of memory");
}

/* ---- the probe: real attempts, nearest directory first ---------------------- */

/* Whether the v2 cgroup FD is not the root and holds processes of its own.
 * Such a cgroup passes no domain controller (memory) on, and one that
 * passes a threaded controller (pids, cpu) on while processes live in it
 * turns its children into invalid domains that no process may enter: its
 * cgroup.subtree_control is left alone. The root has no cgroup.type. */
static bool v2_holds_processes(int fd)
{
	_cleanup_close_ int procs = -1;
	char c;

	if (faccessat(fd, "cgroup.type", F_OK, 0) < 0)
		return false;
	procs = openat(fd, "cgroup.procs", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	return procs >= 0 && read(procs, &c, 1) == 1;
}

/* On v2, the controllers of WANT that DIR passes down to children (its
 * cgroup.subtree_control), after enabling the missing ones when MAY_ENABLE.
 * WHY gets the first one missing and why. */
static unsigned v2_enable(const char *dir, unsigned want, bool may_enable, char *why,
                          size_t wl)
{
	_cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_free_ char *sub = NULL;
	unsigned have = 0;
	bool busy;

	if (fd < 0 || read_all(fd, "cgroup.subtree_control", 4096, &sub) < 0)
		return 0;
	busy = may_enable && v2_holds_processes(fd);
	for (int c = 0; c < CG__NCTRL; c++) {
		const char *name = cgroup_ctrl_names[c];
		char op[16];
		int r = 0;

		if (!(want & CG_BIT(c)))
			continue;
		if (has_word(sub, name)) {
			have |= CG_BIT(c);
			continue;
		}
		snprintf(op, sizeof(op), "+%s", name);
		if (may_enable && !busy && (r = write_str(fd, "cgroup.subtree_control", op)) == 0) {
			have |= CG_BIT(c);
			continue;
		}
		if (*why)
			continue;
		if (busy)
			say(why, wl, "%s/cgroup.subtree_control does not enable %s (processes live in "
			         "it, and a cgroup other than the root passes no controller on while "
			         "they do)", dir, name);
		else if (may_enable)
			say(why, wl, "%s/cgroup.subtree_control does not enable %s (writing %s: %s)",
			         dir, name, op, strerror(-r));
		else
			say(why, wl, "%s/cgroup.subtree_control does not enable %s", dir, name);
	}
	return have;
}

/* Write each limit file of HAVE with a value that leaves it unlimited; the
 * controllers whose file refuses are dropped (WHY says which). */
static unsigned probe_limit_files(const cg_dir *d, unsigned have, char *why, size_t wl)
{
	static const struct {
		int version;
		unsigned bit;
		const char *file, *val;
	} t[] = {
		{ 2, CG_BIT(CG_MEMORY), "memory.max", "max" },
		{ 2, CG_BIT(CG_PIDS), "pids.max", "max" },
		{ 2, CG_BIT(CG_CPU), "cpu.max", "max 100000" },
		{ 1, CG_BIT(CG_MEMORY), "memory.limit_in_bytes", "-1" },
		{ 1, CG_BIT(CG_PIDS), "pids.max", "max" },
		{ 1, CG_BIT(CG_CPU), "cpu.cfs_quota_us", "-1" },
		{ 1, CG_X_FREEZER, "freezer.state", "THAWED" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int r;

		if (t[i].version != d->version || !(have & t[i].bit))
			continue;
		r = write_str(d->fd, t[i].file, t[i].val);
		if (r == 0)
			continue;
		have &= ~t[i].bit;
		if (!*why)
			say(why, wl, "writing %s/%s: %s", d->path, t[i].file, strerror(-r));
	}
	return have;
}

/* One candidate DIR of M: enable (v2), make a throw-away child, write its
 * limit files, let a child process enter it, remove it. *GOT: the controllers
 * that passed; *AT_LIMIT: WHY is that the child process could not be
 * started for a process limit (EAGAIN), which no cgroup setting explains. */
static int probe_at(cg_mount *m, unsigned hide, const char *dir, bool may_enable,
                    unsigned *got, char *why, size_t wl, bool *at_limit)
{
	unsigned have = m->version == 1 ? m->ctrls : m->ctrls & CG_LIMIT_CTRLS;
	cg_dir d = { .version = m->version, .fd = -1, .procs = -1 };
	char name[48];
	bool started;
	int r;

	*at_limit = false;
	if (m->version == 2)
		have = v2_enable(dir, have, may_enable, why, wl);
	r = dir_make_fresh(&d, dir, name, sizeof(name));
	if (r < 0) {
		say(why, wl, "cannot create a cgroup in %s: %s", dir, strerror(-r));
		return r;
	}
	have = probe_limit_files(&d, have, why, wl);
	r = probe_attach(&d.procs, 1, &started);
	if (r < 0 && !started) {
		*at_limit = r == -EAGAIN;
		say(why, wl, "a process cannot be started to enter a cgroup made in %s: clone: %s%s",
		         dir, strerror(-r), fork_hint(-r));
	} else if (r < 0) {
		say(why, wl, "a process cannot enter a cgroup made in %s: %s", dir,
		         strerror(-r));
	}
	if (r == 0 && m->version == 2) {
		m->has_kill = !(hide & CG_HIDE_KILLFILE) &&
		              faccessat(d.fd, "cgroup.kill", W_OK, 0) == 0;
		m->has_freeze = !(hide & CG_HIDE_FREEZER) &&
		                faccessat(d.fd, "cgroup.freeze", W_OK, 0) == 0;
	}
	if (unlinkat(AT_FDCWD, d.path, AT_REMOVEDIR) < 0 && r == 0) {
		r = -errno;
		say(why, wl, "cannot remove the cgroup %s: %s", d.path, strerror(-r));
	}
	dir_close(&d);
	*got = have;
	return r;
}

/* Whether DIR is a v2 cgroup delegated to UID, not root: its
 * cgroup.subtree_control is UID's. Delegating a cgroup hands its owner the
 * directory, cgroup.procs, cgroup.threads and cgroup.subtree_control
 * (systemd's Delegate= does so, and so does a root that chowns them), so
 * that it may enable controllers for the cgroups it makes there; a caller
 * that runs in a leaf of it, as it must, finds it as an ancestor. Root
 * owns every cgroup: for root, only its own and the configured one. */
static bool v2_delegated(const cg_mount *m, const char *dir, uid_t uid)
{
	char path[PATH_MAX];
	struct stat st;

	if (m->version != 2 || uid == 0)
		return false;
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
	return lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == uid;
}

static unsigned bits(unsigned x)
{
	return (unsigned)__builtin_popcount(x);
}

/* Try M's candidates nearest first: the configured parent alone, or this
 * process's cgroup and then each ancestor up to the mount point. The one
 * that passes with the most controllers wins (the nearest among equals). */
static void probe_mount(cgroup_host *h, cg_mount *m)
{
	unsigned want = m->version == 1 ? m->ctrls : m->ctrls & CG_LIMIT_CTRLS;
	char dir[PATH_MAX], why[CG_WHY_MAX];
	size_t tl = strlen(m->target);

	if (!m->configured && !m->own)
		return;   /* fact_own said why */
	snprintf(dir, sizeof(dir), "%s", m->configured ? m->configured : m->own);
	m->why[0] = '\0';
	m->why_at_limit = false;
	for (bool own = !m->configured;;) {
		unsigned got = 0;
		bool at_limit;
		int r;

		why[0] = '\0';
		/* Enabling controllers is for the caller's own cgroup (where the
		 * kernel allows it only at the root), the configured parent or a
		 * cgroup delegated to the caller: never in an ancestor someone
		 * else manages. */
		r = probe_at(m, h->hide, dir, own || m->configured || v2_delegated(m, dir, h->uid),
		             &got, why, sizeof(why), &at_limit);
		/* WHY: the closest failure until a directory passes, then what
		 * the chosen one lacks. */
		if (r == 0 && (!m->parent || bits(got) > bits(m->usable))) {
			free(m->parent);
			m->parent = strdup(dir);
			m->usable = m->parent ? got : 0;
			say(m->why, sizeof(m->why), "%s", why);
			m->why_at_limit = false;
		} else if (!m->parent && !m->why[0]) {
			say(m->why, sizeof(m->why), "%s", why);
			m->why_at_limit = at_limit;
		}
		if (m->configured || (m->parent && m->usable == want) || strlen(dir) <= tl)
			break;
		/* Still the mount point or beneath it: DIR was longer. */
		*strrchr(dir, '/') = '\0';
		own = false;
	}
}

static const cg_mount *mount_with(const cgroup_host *h, int version, unsigned bit)
{
	for (size_t i = 0; i < h->n; i++)
		if (h->m[i].version == version && (h->m[i].ctrls & bit))
			return &h->m[i];
	return NULL;
}

static const cg_mount *v2_mount(const cgroup_host *h)
{
	for (size_t i = 0; i < h->n; i++)
		if (h->m[i].version == 2)
			return &h->m[i];
	return NULL;
}

/* Why controller C cannot be used, and what to do. A probe that could not
 * start its process met a process limit: that limit's remedy, whatever the
 * cgroups. */
static void ctrl_why(cgroup_host *h, enum cg_ctrl c, const cg_mount *m)
{
	const char *name = cgroup_ctrl_names[c], *why;
	const char *limit = m && m->why_at_limit ? fork_remedy(EAGAIN) : NULL;
	char *out = h->ctrl_why[c];
	const cg_mount *v2 = v2_mount(h);

	why = !h->probed ? "not probed" : m && m->why[0] ? m->why : "no directory found";
	if (m && m->version == 1)
		say(out, CG_CTRL_WHY_MAX, "cgroup v1 %s hierarchy at %s: %s; remedy: %s", name,
		         m->target, why, limit ? limit : h->uid == 0 ? "configure a parent cgroup in it" :
		         "run as root, or have root create a parent cgroup owned by this uid in "
		         "each v1 hierarchy (memory, pids, cpu) and name each in the host "
		         "configuration (cgroup-parent DIR in /etc/osb-isolate/config)");
	else if (m && limit)
		say(out, CG_CTRL_WHY_MAX, "cgroup v2 at %s, for the %s controller: %s; remedy: %s",
		         m->target, name, why, limit);
	else if (m)
		say(out, CG_CTRL_WHY_MAX, "cgroup v2 without the %s controller delegated to uid "
		         "%u: %s; remedy: %s%s%s", name, (unsigned)h->uid, why,
		         h->uid == 0 ? "configure a parent cgroup beneath one whose cgroup."
		         "subtree_control has +" : "run the caller in a cgroup delegated to it "
		         "(systemd-run --user -p Delegate=yes, the caller itself in a leaf cgroup "
		         "of it, since a cgroup that passes controllers on may hold no process) or "
		         "have root create a parent cgroup for it with +", name,
		         h->uid == 0 ? " (e.g. mkdir /sys/fs/cgroup/osb)" :
		         " above it, named in the host configuration (cgroup-parent DIR)");
	else
		say(out, CG_CTRL_WHY_MAX, "no cgroup hierarchy offers the %s controller here "
		         "(%s%s%s); remedy: a kernel with it, mounted as cgroup v2 or a v1 hierarchy",
		         name, v2 ? "the cgroup v2 hierarchy at " : "no cgroup v2 hierarchy is "
		         "mounted, and no v1 hierarchy carries it", v2 ? v2->target : "",
		         v2 ? " does not list it in cgroup.controllers, and no v1 hierarchy carries "
		         "it" : "");
}

/* Each controller goes to the hierarchy that carries it: a v1 one if it is
 * bound there (then v2 cannot have it), else v2. */
static void assign(cgroup_host *h)
{
	for (int c = 0; c < CG__NCTRL; c++) {
		const cg_mount *m = mount_with(h, 1, CG_BIT(c));

		if (!m)
			m = mount_with(h, 2, CG_BIT(c));
		h->ctrl[c] = -1;
		h->ctrl_why[c][0] = '\0';
		if (m && m->parent && (m->usable & CG_BIT(c)))
			h->ctrl[c] = (int)(m - h->m);
		else
			ctrl_why(h, (enum cg_ctrl)c, m);
	}
}

int cgroup_host_probe(const cgroup_probe_opts *o, cgroup_host **out, osb_error *err)
{
	static const cgroup_probe_opts none = { 0 };
	cgroup_host *h = calloc(1, sizeof(*h));
	int r;

	*out = NULL;
	if (!h)
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "cgroup", "out of memory");
	if (!o)
		o = &none;
	h->hide = o->hide;
	h->uid = geteuid();
	r = facts_read(h, o->proc_self ? o->proc_self : "/proc/self", err);
	for (size_t i = 0; r == 0 && o->parents && o->parents[i]; i++)
		r = place_configured(h, o->parents[i], err);
	if (r < 0) {
		cgroup_host_free(h);
		return r;
	}
	h->probed = !o->facts_only;
	for (size_t i = 0; h->probed && i < h->n; i++)
		probe_mount(h, &h->m[i]);
	assign(h);
	*out = h;
	return 0;
}

void cgroup_host_free(cgroup_host *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->n; i++)
		mount_free(&h->m[i]);
	free(h);
}

bool cgroup_host_at_limit(const cgroup_host *h)
{
	for (size_t i = 0; i < h->n; i++)
		if (h->m[i].why_at_limit)
			return true;
	return false;
}

int cgroup_host_ctrl(const cgroup_host *h, enum cg_ctrl c, const char **parent,
                     const char **why)
{
	const cg_mount *m = h->ctrl[c] >= 0 ? &h->m[h->ctrl[c]] : NULL;

	if (parent)
		*parent = m ? m->parent : NULL;
	if (why)
		*why = m ? "" : h->ctrl_why[c];
	return m ? m->version : 0;
}

size_t cgroup_host_count(const cgroup_host *h)
{
	return h->n;
}

int cgroup_host_hier(const cgroup_host *h, size_t i, cgroup_hier *out)
{
	const cg_mount *m = &h->m[i];

	if (i >= h->n)
		return -EINVAL;
	*out = (cgroup_hier){
		.version = m->version, .ctrls = m->ctrls, .usable = m->parent ? m->usable : 0,
		.has_kill = m->has_kill, .has_freeze = m->has_freeze, .target = m->target,
		.own = m->own, .parent = m->parent, .why = m->why,
	};
	return 0;
}

int cgroup_cpu_quota(uint32_t cpu_millis, uint32_t period_us, uint64_t *quota_us,
                     uint64_t *period_out, const char **why)
{
	uint64_t period = period_us ? period_us : 100000;
	uint64_t quota = (uint64_t)cpu_millis * period / 1000;

	/* The kernel's bounds (kernel/sched/core.c): a period of 1 ms to 1 s,
	 * a quota of at least 1 ms. */
	if (period < 1000 || period > 1000000) {
		*why = "the CPU period must lie between 1 ms and 1 s";
		return -EINVAL;
	}
	if (cpu_millis == 0 || quota < 1000) {
		*why = "the CPU share is below the kernel's minimum quota of 1 ms per period";
		return -EINVAL;
	}
	*quota_us = quota;
	*period_out = period;
	return 0;
}

/* ---- one sandbox's cgroup ------------------------------------------------------ */

static cgroup *cgroup_alloc(void)
{
	cgroup *cg = calloc(1, sizeof(*cg));

	for (size_t i = 0; cg && i < CG_MAX_DIRS; i++)
		cg->d[i].fd = cg->d[i].procs = -1;
	return cg;
}

void cgroup_release(cgroup *cg)
{
	if (!cg)
		return;
	for (size_t i = 0; i < cg->n; i++)
		dir_close(&cg->d[i]);
	free(cg);
}

const char *cgroup_name(const cgroup *cg)
{
	return cg->name;
}

size_t cgroup_dir_count(const cgroup *cg)
{
	return cg->n;
}

const char *cgroup_dir_path(const cgroup *cg, size_t i)
{
	return i < cg->n ? cg->d[i].path : NULL;
}

int cgroup_dir_version(const cgroup *cg, size_t i)
{
	return i < cg->n ? cg->d[i].version : 0;
}

unsigned cgroup_dir_ctrls(const cgroup *cg, size_t i)
{
	return i < cg->n ? cg->d[i].ctrls : 0;
}

static const cg_dir *dir_with(const cgroup *cg, unsigned bit)
{
	for (size_t i = 0; i < cg->n; i++)
		if (cg->d[i].ctrls & bit)
			return &cg->d[i];
	return NULL;
}

static const cg_dir *dir_v2(const cgroup *cg)
{
	for (size_t i = 0; i < cg->n; i++)
		if (cg->d[i].version == 2)
			return &cg->d[i];
	return NULL;
}

/* Write V to D's FILE; a refusal names the file, the value and the reason. */
static int put(const cg_dir *d, const char *file, const char *v, bool optional,
               osb_error *err)
{
	int r = write_str(d->fd, file, v);

	if (r == -ENOENT && optional)
		return 0;
	if (r < 0)
		return osb_err_set(err, OSB_E_HOST, -r, "cgroup", "cannot write \"%s\" to %s/%s: %s",
		                   v, d->path, file, strerror(-r));
	return 0;
}

static int put_u64(const cg_dir *d, const char *file, uint64_t v, bool optional,
                   osb_error *err)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return put(d, file, buf, optional, err);
}

/* Memory and swap. v1 bounds memory + swap together (memsw), which must
 * not be set below the memory limit, hence the order. Without swap
 * accounting (no memory.swap.max / memsw file) the swap part is skipped. */
static int set_memory(const cg_dir *d, const cgroup_limits *l, osb_error *err)
{
	int r;

	if (d->version == 2) {
		r = put_u64(d, "memory.max", l->memory_max, false, err);
		return r < 0 ? r : put_u64(d, "memory.swap.max", l->swap_max, true, err);
	}
	r = put_u64(d, "memory.limit_in_bytes", l->memory_max, false, err);
	if (r < 0)
		return r;
	if (l->swap_max > UINT64_MAX - l->memory_max)
		return osb_err_set(err, OSB_E_USAGE, ERANGE, "cgroup", "memory and swap limits "
		                   "overflow");
	return put_u64(d, "memory.memsw.limit_in_bytes", l->memory_max + l->swap_max, true, err);
}

static int set_cpu(const cg_dir *d, const cgroup_limits *l, osb_error *err)
{
	uint64_t quota, period;
	const char *why = NULL;
	char buf[48];
	int r = cgroup_cpu_quota(l->cpu_millis, l->cpu_period_us, &quota, &period, &why);

	if (r < 0)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "cgroup", "limit cpu %u.%03u: %s",
		                   l->cpu_millis / 1000, l->cpu_millis % 1000, why);
	if (d->version == 2) {
		snprintf(buf, sizeof(buf), "%" PRIu64 " %" PRIu64, quota, period);
		return put(d, "cpu.max", buf, false, err);
	}
	r = put_u64(d, "cpu.cfs_period_us", period, false, err);
	return r < 0 ? r : put_u64(d, "cpu.cfs_quota_us", quota, false, err);
}

int cgroup_set_limits(const cgroup *cg, const cgroup_limits *l, osb_error *err)
{
	const bool want[CG__NCTRL] = { l->memory_max > 0, l->pids_max > 0, l->cpu_millis > 0 };
	int r = 0;

	for (int c = 0; c < CG__NCTRL && r == 0; c++) {
		const cg_dir *d = dir_with(cg, CG_BIT(c));

		if (!want[c])
			continue;
		if (!d)
			return osb_err_set(err, OSB_E_HOST, ENODEV, "cgroup", "limit %s: no cgroup "
			                   "directory of this sandbox carries the %s controller",
			                   cgroup_ctrl_names[c], cgroup_ctrl_names[c]);
		if (c == CG_MEMORY)
			r = set_memory(d, l, err);
		else if (c == CG_PIDS)
			r = put_u64(d, "pids.max", l->pids_max, false, err);
		else
			r = set_cpu(d, l, err);
	}
	return r;
}

/* Make CG's directories: one per usable hierarchy, one name for all. */
static int create_dirs(const cgroup_host *h, cgroup *cg, osb_error *err)
{
	for (int tries = 0;; tries++) {
		int r = 0;

		make_name(cg->name, sizeof(cg->name));
		for (size_t i = 0; i < h->n && r == 0; i++) {
			const cg_mount *m = &h->m[i];
			cg_dir *d = &cg->d[cg->n];

			if (!m->parent)
				continue;
			r = dir_make(d, m->parent, cg->name);
			if (r < 0)
				break;
			d->version = m->version;
			d->ctrls = m->usable;
			d->has_kill = m->has_kill;
			d->has_freeze = m->has_freeze;
			cg->n++;
		}
		if (r == 0)
			return 0;
		for (size_t i = cg->n; i-- > 0;) {
			rmdir(cg->d[i].path);
			dir_close(&cg->d[i]);
		}
		cg->n = 0;
		if ((r != -EAGAIN && r != -EEXIST) || tries == 7)
			return osb_err_set(err, OSB_E_HOST, -r, "cgroup", "cannot create the sandbox "
			                   "cgroup %s: %s", cg->name, strerror(-r));
	}
}

int cgroup_create(const cgroup_host *h, const cgroup_limits *lim, cgroup **out,
                  osb_error *err)
{
	const bool want[CG__NCTRL] = { lim->memory_max > 0, lim->pids_max > 0, lim->cpu_millis > 0 };
	cgroup *cg;
	int r;

	*out = NULL;
	for (int c = 0; c < CG__NCTRL; c++)
		if (want[c] && h->ctrl[c] < 0)
			return osb_err_set(err, OSB_E_HOST, ENODEV, "cgroup", "limit %s cannot be "
			                   "enforced: %s", cgroup_ctrl_names[c], h->ctrl_why[c]);
	cg = cgroup_alloc();
	if (!cg)
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "cgroup", "out of memory");
	/* What dead callers left: a failure here is retried next time. */
	cgroup_sweep(h, NULL);
	r = create_dirs(h, cg, err);
	if (r == 0 && cg->n == 0)
		r = osb_err_set(err, OSB_E_HOST, ENODEV, "cgroup", "no cgroup hierarchy here lets "
		                "this process create cgroups: %s", h->ctrl_why[CG_MEMORY]);
	if (r == 0)
		r = cgroup_set_limits(cg, lim, err);
	if (r < 0) {
		cgroup_destroy(cg, 1000);
		return r;
	}
	*out = cg;
	return 0;
}

/* Take existing directories (tests on a directory tree, diagnostics): the
 * lock is taken as for a made one; a missing cgroup.procs is tolerated. */
int cgroup_open_dirs(const char *const *paths, const int *versions, const unsigned *ctrls,
                     size_t n, cgroup **out, osb_error *err)
{
	cgroup *cg = n <= CG_MAX_DIRS ? cgroup_alloc() : NULL;

	*out = NULL;
	if (!cg)
		return osb_err_set(err, n <= CG_MAX_DIRS ? OSB_E_NOMEM : OSB_E_USAGE, EINVAL,
		                   "cgroup", "cannot take %zu directories", n);
	snprintf(cg->name, sizeof(cg->name), "%s", strrchr(paths[0], '/') ?
	         strrchr(paths[0], '/') + 1 : paths[0]);
	for (; cg->n < n; cg->n++) {
		cg_dir *d = &cg->d[cg->n];

		d->version = versions[cg->n];
		d->ctrls = ctrls[cg->n];
		d->path = strdup(paths[cg->n]);
		d->fd = open(paths[cg->n], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (!d->path || d->fd < 0 || flock(d->fd, LOCK_EX | LOCK_NB) < 0) {
			int e = d->path ? errno : ENOMEM;
			const char *bad = paths[cg->n];

			cg->n++;
			cgroup_release(cg);
			return osb_err_set(err, OSB_E_HOST, e, "cgroup", "cannot take %s: %s", bad,
			                   strerror(e));
		}
		d->procs = openat(d->fd, "cgroup.procs", O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
		d->has_kill = d->version == 2 && faccessat(d->fd, "cgroup.kill", W_OK, 0) == 0;
		d->has_freeze = d->version == 2 && faccessat(d->fd, "cgroup.freeze", W_OK, 0) == 0;
	}
	*out = cg;
	return 0;
}

/* ---- the outcome --------------------------------------------------------------- */

static int outcome_memory(const cg_dir *d, cgroup_outcome *o)
{
	uint64_t memsw = 0, memsw_max = UINT64_MAX;
	int r;

	if (!d)
		return 0;
	if (d->version == 2) {
		r = read_u64(d->fd, "memory.events", "oom_kill", &o->oom_kills, CG_KNOW_OOM, &o->known);
		if (r == 0)
			r = read_u64(d->fd, "memory.events", "max", &o->memory_max_hits,
			             CG_KNOW_MEM_EVENTS, &o->known);
		/* memory.peak: Linux 5.19. */
		return r < 0 ? r : read_u64(d->fd, "memory.peak", NULL, &o->memory_peak, CG_KNOW_PEAK,
		                            &o->known);
	}
	/* oom_kill in memory.oom_control: Linux 4.13. */
	r = read_u64(d->fd, "memory.oom_control", "oom_kill", &o->oom_kills, CG_KNOW_OOM,
	             &o->known);
	if (r == 0)
		r = read_u64(d->fd, "memory.failcnt", NULL, &o->memory_max_hits, CG_KNOW_MEM_EVENTS,
		             &o->known);
	if (r == 0)
		r = read_u64(d->fd, "memory.memsw.failcnt", NULL, &memsw, 0, &o->known);
	if (r == 0)
		r = read_u64(d->fd, "memory.memsw.limit_in_bytes", NULL, &memsw_max, 0, &o->known);
	o->memory_max_hits += memsw;
	/* A charge is checked against memory + swap first, and some kernels
	 * count a hit of that limit in neither failcnt: with memsw limited, no
	 * hit counted proves nothing. */
	if (o->memory_max_hits == 0 && memsw_max < ((uint64_t)1 << 62))
		o->known &= ~CG_KNOW_MEM_EVENTS;
	return r < 0 ? r : read_u64(d->fd, "memory.max_usage_in_bytes", NULL, &o->memory_peak,
	                            CG_KNOW_PEAK, &o->known);
}

static int outcome_pids(const cg_dir *d, cgroup_outcome *o)
{
	int r;

	if (!d)
		return 0;
	/* One format in v1 and v2; pids.peak: Linux 6.12 (v1 and v2). */
	r = read_u64(d->fd, "pids.events", "max", &o->pids_max_hits, CG_KNOW_PIDS, &o->known);
	return r < 0 ? r : read_u64(d->fd, "pids.peak", NULL, &o->pids_peak, CG_KNOW_PIDS_PEAK,
	                            &o->known);
}

/* Usage from v2's cpu.stat (there without the cpu controller too) or v1's
 * cpuacct; throttling from the directory that carries the cpu controller. */
static int outcome_cpu(const cgroup *cg, cgroup_outcome *o)
{
	const cg_dir *v2 = dir_v2(cg), *acct = dir_with(cg, CG_X_CPUACCT);
	const cg_dir *cpu = dir_with(cg, CG_BIT(CG_CPU));
	uint64_t ns = 0;
	unsigned k = 0;
	int r = 0;

	if (v2)
		r = read_u64(v2->fd, "cpu.stat", "usage_usec", &o->cpu_usage_usec, CG_KNOW_CPU,
		             &o->known);
	if (r == 0 && !(o->known & CG_KNOW_CPU) && acct) {
		r = read_u64(acct->fd, "cpuacct.usage", NULL, &ns, CG_KNOW_CPU, &o->known);
		o->cpu_usage_usec = ns / 1000;
	}
	if (r < 0 || !cpu)
		return r;
	r = read_u64(cpu->fd, "cpu.stat", "nr_throttled", &o->cpu_nr_throttled, CG_KNOW_THROTTLE,
	             &k);
	if (r == 0 && cpu->version == 2)
		r = read_u64(cpu->fd, "cpu.stat", "throttled_usec", &o->cpu_throttled_usec,
		             CG_KNOW_THROTTLE, &k);
	else if (r == 0) {
		r = read_u64(cpu->fd, "cpu.stat", "throttled_time", &ns, CG_KNOW_THROTTLE, &k);
		o->cpu_throttled_usec = ns / 1000;
	}
	o->known |= k;
	return r;
}

int cgroup_read_outcome(const cgroup *cg, cgroup_outcome *o)
{
	int r;

	memset(o, 0, sizeof(*o));
	r = outcome_memory(dir_with(cg, CG_BIT(CG_MEMORY)), o);
	if (r == 0)
		r = outcome_pids(dir_with(cg, CG_BIT(CG_PIDS)), o);
	return r < 0 ? r : outcome_cpu(cg, o);
}

/* ---- killing -------------------------------------------------------------------- */

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* The pids listed in D's cgroup.procs, sorted. */
static int list_pids(int dirfd, pid_t **out, size_t *n)
{
	_cleanup_free_ char *text = NULL;
	pid_t *p = NULL;
	size_t k = 0, cap = 0;
	int r = read_all(dirfd, "cgroup.procs", PROCS_MAX, &text);

	*out = NULL;
	*n = 0;
	if (r < 0)
		return r;
	for (char *s = text, *end; *s; s = end) {
		long v = strtol(s, &end, 10);

		if (end == s)
			break;
		if (v <= 0 || v > INT_MAX)
			continue;
		if (k == cap) {
			pid_t *np = array_grow(p, &cap, k, sizeof(*p));

			if (!np) {
				free(p);
				return -ENOMEM;
			}
			p = np;
		}
		p[k++] = (pid_t)v;
	}
	if (k)
		qsort(p, k, sizeof(*p), cmp_pid);
	*out = p;
	*n = k;
	return 0;
}

/* SIGKILL every process listed in DIRFD's cgroup.procs. A pid is pinned with
 * a pidfd first, and signalled only if the list still has it afterwards:
 * then the pidfd's process is the listed one, not an outsider that reused
 * the number of one that exited. *FOUND counts the processes signalled. */
static int kill_listed(int dirfd, unsigned *found)
{
	_cleanup_free_ pid_t *a = NULL, *b = NULL;
	_cleanup_free_ int *fds = NULL;
	size_t na, nb;
	int r = list_pids(dirfd, &a, &na);

	if (r < 0 || na == 0)
		return r;
	fds = malloc(na * sizeof(*fds));
	if (!fds)
		return -ENOMEM;
	for (size_t i = 0; i < na; i++)
		fds[i] = pidfd_open_cloexec(a[i]);
	r = list_pids(dirfd, &b, &nb);
	for (size_t i = 0; i < na; i++) {
		if (fds[i] < 0)
			continue;
		/* An empty second list is NULL: nobody of the first is left. */
		if (r == 0 && nb > 0 && bsearch(&a[i], b, nb, sizeof(*b), cmp_pid) &&
		    pidfd_kill(fds[i], SIGKILL) == 0)
			(*found)++;
		close(fds[i]);
	}
	return r;
}

static bool dir_frozen(const cg_dir *d)
{
	_cleanup_free_ char *text = NULL;
	uint64_t v = 0;

	if (d->version == 2)
		return read_all(d->fd, "cgroup.events", 4096, &text) == 0 &&
		       keyed_u64(text, "frozen", &v) == 0 && v == 1;
	return read_all(d->fd, "freezer.state", 64, &text) == 0 && strncmp(text, "FROZEN", 6) == 0;
}

/* Freeze (ON) or thaw CG through v2 cgroup.freeze or the v1 freezer; the
 * directory used, or NULL when there is no freezer. Waits (briefly) until
 * frozen: a process still running could fork past the kill. */
static const cg_dir *freeze(const cg_dir *ds, size_t n, const cg_dir *which, bool on)
{
	for (size_t i = 0; !which && i < n; i++)
		if ((ds[i].version == 2 && ds[i].has_freeze) || (ds[i].ctrls & CG_X_FREEZER))
			which = &ds[i];
	if (!which)
		return NULL;
	if (which->version == 2 ? write_str(which->fd, "cgroup.freeze", on ? "1" : "0") < 0 :
	    write_str(which->fd, "freezer.state", on ? "FROZEN" : "THAWED") < 0)
		return NULL;
	for (int i = 0; on && i < 500 && !dir_frozen(which); i++)
		sleep_ms(1);
	return which;
}

static int kill_dirs(const cg_dir *ds, size_t n)
{
	const cg_dir *frozen = NULL;
	uint64_t deadline = now_ms() + KILL_ROUNDS_MS;
	int r = 0;

	for (size_t i = 0; i < n; i++)
		if (ds[i].version == 2 && ds[i].has_kill && write_str(ds[i].fd, "cgroup.kill", "1") == 0)
			return 0;
	frozen = freeze(ds, n, NULL, true);
	for (bool first = true;; first = false) {
		unsigned found = 0;

		for (size_t i = 0; i < n; i++) {
			int k = kill_listed(ds[i].fd, &found);

			if (k < 0 && k != -ENOENT && r == 0)
				r = k;
		}
		/* Frozen processes die only when thawed: thaw after the first
		 * round, which has signalled all of them (none could fork). */
		if (first && frozen)
			freeze(ds, n, frozen, false);
		if (found == 0 || now_ms() > deadline)
			return found == 0 ? r : -ETIMEDOUT;
		sleep_ms(1);
	}
}

int cgroup_kill(const cgroup *cg)
{
	return kill_dirs(cg->d, cg->n);
}

static bool dirs_populated(const cg_dir *ds, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *text = NULL;
		uint64_t v = 1;

		if (ds[i].version == 2 && read_all(ds[i].fd, "cgroup.events", 4096, &text) == 0 &&
		    keyed_u64(text, "populated", &v) == 0) {
			if (v)
				return true;
			continue;
		}
		free(text);
		text = NULL;
		if (read_all(ds[i].fd, "cgroup.procs", PROCS_MAX, &text) == 0 && text[0])
			return true;
	}
	return false;
}

bool cgroup_populated(const cgroup *cg)
{
	return dirs_populated(cg->d, cg->n);
}

static int wait_dirs_empty(const cg_dir *ds, size_t n, int timeout_ms)
{
	uint64_t deadline = now_ms() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);

	while (dirs_populated(ds, n)) {
		if (now_ms() >= deadline)
			return -ETIMEDOUT;
		sleep_ms(2);
	}
	return 0;
}

int cgroup_wait_empty(const cgroup *cg, int timeout_ms)
{
	return wait_dirs_empty(cg->d, cg->n, timeout_ms);
}

/* rmdir PATH; EBUSY (a process still leaving) is retried until DEADLINE. */
static int rmdir_until(int pfd, const char *path, uint64_t deadline)
{
	for (;;) {
		if (unlinkat(pfd, path, AT_REMOVEDIR) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY || now_ms() >= deadline)
			return -errno;
		sleep_ms(2);
	}
}

int cgroup_destroy(cgroup *cg, int timeout_ms)
{
	uint64_t deadline = now_ms() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);
	int r = 0;

	if (!cg)
		return 0;
	if (cgroup_populated(cg)) {
		cgroup_kill(cg);
		cgroup_wait_empty(cg, timeout_ms);
	}
	for (size_t i = cg->n; i-- > 0;) {
		int k = cg->d[i].path ? rmdir_until(AT_FDCWD, cg->d[i].path, deadline) : 0;

		if (k < 0 && r == 0)
			r = k;
	}
	cgroup_release(cg);
	return r;
}

/* ---- the sweep: what dead callers left ------------------------------------------- */

/* FD (PFD/NAME), locked by us and with no directory left beneath it: empty
 * it of processes, then remove it. */
static int sweep_one(int pfd, const char *name, int fd, unsigned *removed)
{
	struct statfs sf;
	cg_dir d = { .fd = fd, .procs = -1 };
	int r;

	if (fstatfs(fd, &sf) < 0)
		return -errno;
	d.version = sf.f_type == CGROUP2_SUPER_MAGIC ? 2 : 1;
	d.has_kill = d.version == 2 && faccessat(fd, "cgroup.kill", W_OK, 0) == 0;
	/* A creator killed while it had the cgroup frozen left it frozen: the
	 * kill must thaw it, or SIGKILL stays pending for ever. */
	d.has_freeze = d.version == 2 && faccessat(fd, "cgroup.freeze", W_OK, 0) == 0;
	if (d.version == 1 && faccessat(fd, "freezer.state", W_OK, 0) == 0)
		d.ctrls |= CG_X_FREEZER;
	if (dirs_populated(&d, 1)) {
		kill_dirs(&d, 1);
		wait_dirs_empty(&d, 1, 1000);
	}
	r = rmdir_until(pfd, name, now_ms() + 1000);
	if (r == 0 && removed)
		(*removed)++;
	return r;
}

/* One directory of the depth-first walk below. */
typedef struct sweep_level {
	int pfd, fd;              /* its parent and itself */
	char name[NAME_MAX + 1];
	DIR *dir;                 /* its entries (a duplicate of FD) */
} sweep_level;

static int sweep_push(sweep_level *l, int pfd, const char *name, int fd)
{
	int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);

	l->pfd = pfd;
	l->fd = fd;
	snprintf(l->name, sizeof(l->name), "%s", name);
	l->dir = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	if (!l->dir) {
		int e = errno;

		closep(&dup_fd);
		return -e;
	}
	return 0;
}

/* The next directory beneath L to descend into: 1, locked, with its fd in
 * *CFD and its name in NAME (NAME_MAX + 1 bytes); 0 when there is none;
 * -EBUSY when a live creator holds one. */
static int sweep_next(sweep_level *l, int *cfd, char *name)
{
	struct dirent *e;

	while ((e = readdir(l->dir))) {
		if (e->d_type != DT_DIR || strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		*cfd = openat(l->fd, e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (*cfd < 0)
			continue;
		if (flock(*cfd, LOCK_EX | LOCK_NB) == 0) {
			snprintf(name, NAME_MAX + 1, "%s", e->d_name);
			return 1;
		}
		closep(cfd);
		return errno == EWOULDBLOCK ? -EBUSY : -errno;
	}
	return 0;
}

/* FD (PFD/NAME) is locked by us: remove every directory beneath it, deepest
 * first (a live creator's lock beneath stops the removal: -EBUSY), then it.
 * A walk with a stack of its own, at most SWEEP_DEPTH deep. FD stays the
 * caller's. */
static int sweep_tree(int pfd, const char *name, int fd, unsigned *removed)
{
	sweep_level st[SWEEP_DEPTH + 1];
	int n = 0, r = sweep_push(&st[0], pfd, name, fd);

	if (r == 0)
		n = 1;
	while (r == 0 && n > 0) {
		sweep_level *top = &st[n - 1];
		char child[NAME_MAX + 1];
		int cfd = -1, k = sweep_next(top, &cfd, child);

		if (k < 0) {
			r = k;
		} else if (k == 0) {
			closedir(top->dir);
			r = sweep_one(top->pfd, top->name, top->fd, removed);
			if (n > 1)
				close(top->fd);
			n--;
		} else if (n > SWEEP_DEPTH) {
			close(cfd);
			r = -ELOOP;
		} else if ((r = sweep_push(&st[n], top->fd, child, cfd)) == 0) {
			n++;
		} else {
			close(cfd);
		}
	}
	for (; n > 0; n--) {
		closedir(st[n - 1].dir);
		if (n > 1)
			close(st[n - 1].fd);
	}
	return r;
}

int cgroup_sweep_dir(const char *parent, unsigned *removed)
{
	_cleanup_close_ int pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int dup_fd = pfd >= 0 ? fcntl(pfd, F_DUPFD_CLOEXEC, 3) : -1;
	DIR *dir = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *e;
	int r = 0;

	if (!dir) {
		closep(&dup_fd);
		return -errno;
	}
	while ((e = readdir(dir))) {
		_cleanup_close_ int fd = -1;
		int k = 0;

		if (e->d_type != DT_DIR || !cgroup_name_is_ours(e->d_name))
			continue;
		fd = openat(pfd, e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		/* A lock someone holds: its creator lives. */
		if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0)
			continue;
		k = sweep_tree(pfd, e->d_name, fd, removed);
		if (k < 0 && r == 0)
			r = k;
	}
	closedir(dir);
	return r;
}

int cgroup_sweep(const cgroup_host *h, unsigned *removed)
{
	int r = 0;

	if (removed)
		*removed = 0;
	/* Freezers first (the v1 freezer, v2): there a frozen leftover is
	 * thawed and dies; in the other hierarchies it then leaves at once. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < h->n; i++) {
			const cg_mount *m = &h->m[i];
			bool freezer = m->version == 2 || (m->ctrls & CG_X_FREEZER);
			int k = m->parent && freezer == (pass == 0) ?
			        cgroup_sweep_dir(m->parent, removed) : 0;

			if (k < 0 && r == 0)
				r = k;
		}
	return r;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* caps.c — the capabilities probe: what isolation this host gives, and why
 * not when it does not.
 *
 * Every answer comes from a real attempt, never from a version number: bwrap
 * is located and its --help read; a sandbox with the namespaces of a run is
 * started in each identity mode (userns always, root when running as root)
 * and, only when one fails, smaller sandboxes in parallel name the step that
 * failed; a forked child creates a user namespace itself, mounts overlayfs in
 * it, enforces a Landlock ruleset and loads the very seccomp filter a run
 * loads. Sysctls and /proc/self/status are read only to *name* what blocked
 * an attempt. Each item gets a status, a one-line reason and a remedy; the
 * summary says which identity modes can run which shipped policies. The
 * result is immutable, reference-counted and cached per process: launches
 * consult the cache (caps_check_policy) to refuse early, never to degrade.
 */
#include "caps.h"
#include "filter.h"
#include "hostid.h"
#include "proc.h"
#include "sha256.h"

#include <dirent.h>
#include <fcntl.h>
#include <libmount.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/capability.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <json-c/json.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>

#define PROBE_TIMEOUT_MS 10000
#define PROBE_UID 1000          /* the id the userns attempt maps itself to */
#define DIAG_MAX 300
#define STR_(x) #x
#define STR(x) STR_(x)

/* ---- items ------------------------------------------------------------------ */

enum item_id {
	IT_BWRAP, IT_BWRAP_OPTIONS, IT_BIND_FD, IT_DISABLE_USERNS, IT_USERNS, IT_NETNS,
	IT_PIDNS, IT_SECCOMP, IT_NESTED, IT_LANDLOCK, IT_CGROUP, IT_OVERLAY, IT_ROOT, IT__COUNT
};

static const char *const item_names[IT__COUNT] = {
	"bwrap", "bwrap_options", "bwrap_bind_fd", "bwrap_disable_userns", "user_namespace",
	"net_namespace", "pid_namespace", "seccomp", "nested", "landlock", "cgroup", "overlayfs",
	"root",
};

enum mode { M_USERNS, M_ROOT, M__COUNT };
static const char *const mode_names[M__COUNT] = { "userns", "root" };

/* Which options of bwrap a run uses, and in which mode. */
enum need { NEED_ALL, NEED_USERNS, NEED_ROOT, NEED_OWN_ITEM, NEED_NONE };
static const struct { const char *name; enum need need; } bwrap_opts[] = {
	{ "--unshare-pid", NEED_ALL }, { "--unshare-net", NEED_ALL }, { "--unshare-ipc", NEED_ALL },
	{ "--unshare-uts", NEED_ALL }, { "--hostname", NEED_ALL }, { "--json-status-fd", NEED_ALL },
	{ "--die-with-parent", NEED_ALL }, { "--new-session", NEED_ALL }, { "--ro-bind", NEED_ALL },
	{ "--tmpfs", NEED_ALL }, { "--dev", NEED_ALL }, { "--proc", NEED_ALL },
	{ "--perms", NEED_ALL }, { "--size", NEED_ALL }, { "--remount-ro", NEED_ALL },
	{ "--ro-bind-data", NEED_ALL }, { "--chdir", NEED_ALL },
	{ "--unshare-user", NEED_USERNS }, { "--uid", NEED_USERNS }, { "--gid", NEED_USERNS },
	{ "--cap-drop", NEED_ROOT }, { "--cap-add", NEED_ROOT },
	{ "--bind-fd", NEED_OWN_ITEM }, { "--ro-bind-fd", NEED_OWN_ITEM },
	{ "--disable-userns", NEED_OWN_ITEM },
	{ "--seccomp", NEED_NONE }, { "--add-seccomp-fd", NEED_NONE }, { "--overlay", NEED_NONE },
	{ "--tmp-overlay", NEED_NONE }, { "--ro-overlay", NEED_NONE }, { "--argv0", NEED_NONE },
	{ "--assert-userns-disabled", NEED_NONE }, { "--info-fd", NEED_NONE },
	{ "--sync-fd", NEED_NONE }, { "--block-fd", NEED_NONE }, { "--userns-block-fd", NEED_NONE },
	{ "--as-pid-1", NEED_NONE }, { "--clearenv", NEED_NONE },
};
#define N_OPTS (sizeof(bwrap_opts) / sizeof(bwrap_opts[0]))

typedef struct item {
	int status;
	char *reason;
	char *remedy;      /* NULL when ok */
} item;

/* What a policy needs from the host, beyond a sandbox in its mode. */
typedef struct needs {
	enum id_mode id;
	bool netns;        /* "network none": a network namespace */
	bool seccomp;      /* not "seccomp none" */
	bool landlock;     /* "landlock required" */
} needs;

typedef struct profile {
	char *name;
	char *error;       /* why it does not load, or NULL */
	needs nd;
	bool runs[M__COUNT];
	char seccomp_sha256[2 * SHA256_DIGEST_LEN + 1];   /* "": seccomp none */
} profile;

/* The first thing that stops a mode, as it is reported when a launch is
 * refused: an item name, its status, reason and remedy. */
typedef struct stop {
	const char *id;
	int status;
	char *reason, *remedy;
} stop;

struct osb_caps {
	int refs;
	item items[IT__COUNT];
	char *bwrap_path, *bwrap_version;
	bool bwrap_usable, bwrap_setuid, have_help;
	bool opt[N_OPTS];
	char seccomp_sha256[2 * SHA256_DIGEST_LEN + 1];
	size_t seccomp_insns;
	int landlock_abi;
	/* host facts (host.c), and what only the probe reads */
	host_facts host;
	uid_t euid;
	unsigned seccomp_filters;
	bool no_new_privs;
	char *uid_map, *captext, *kernel;
	long sysctl[3];                  /* see sysctl_names */
	const char *blocker;             /* the knob blamed for user namespaces */
	/* summary */
	bool base_ok[M__COUNT];          /* a sandbox starts in this mode */
	bool mode_ok[M__COUNT];          /* ... and the default filter loads */
	bool net_ok[M__COUNT];           /* ... with a network namespace */
	stop mode_stop[M__COUNT], net_stop[M__COUNT];
	profile *profiles; size_t n_profiles;
	char *policy_dir;
	strv write_roots;                /* declared by the shipped policies */
	uint64_t probe_ms;
	bool oom;
};

static const char *const sysctl_names[3] = {
	"user.max_user_namespaces", "kernel.unprivileged_userns_clone",
	"kernel.apparmor_restrict_unprivileged_userns",
};
static const char *const sysctl_files[3] = {
	"/proc/sys/user/max_user_namespaces", "/proc/sys/kernel/unprivileged_userns_clone",
	"/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
};
enum { SC_MAX_USERNS, SC_UNPRIV_CLONE, SC_APPARMOR };

static char *dup_or_oom(osb_caps *c, const char *s)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		c->oom = true;
	return d;
}

static void item_set(osb_caps *c, enum item_id id, int status, const char *reason,
                     const char *remedy)
{
	item *it = &c->items[id];

	free(it->reason);
	free(it->remedy);
	it->status = status;
	it->reason = dup_or_oom(c, reason);
	it->remedy = status == OSB_CAPS_OK ? NULL : dup_or_oom(c, remedy);
}

__attribute__((format(printf, 3, 4)))
static const char *fmt(char *buf, size_t size, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vsnprintf(buf, size, f, ap);
	va_end(ap);
	return buf;
}

/* ---- small host readers -------------------------------------------------- */

static long read_sysctl(const char *path)
{
	_cleanup_free_ char *text = NULL;
	char *end;
	long v;

	if (read_file_bounded(path, 64, &text, NULL) < 0)
		return -1;
	errno = 0;
	v = strtol(text, &end, 10);
	return errno || end == text ? -1 : v;
}

/* A "Name:\tvalue" field of /proc/self/status as a number (-1 if absent). */
static long status_field(const char *status, const char *name)
{
	size_t n = strlen(name);

	for (const char *l = status; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (strncmp(l, name, n) == 0 && l[n] == ':')
			return strtol(l + n + 1, NULL, 10);
	return -1;
}

/* The first line of /proc/self/uid_map with blanks squeezed. */
static char *uid_map_line(void)
{
	_cleanup_free_ char *text = NULL;
	char *out, *o;
	bool blank = true;

	if (read_file_bounded("/proc/self/uid_map", 4096, &text, NULL) < 0)
		return strdup("");
	out = o = malloc(strlen(text) + 1);
	if (!out)
		return NULL;
	for (const char *s = text; *s && *s != '\n'; s++) {
		if (*s == ' ' || *s == '\t') {
			blank = true;
			continue;
		}
		if (blank && o != out)
			*o++ = ' ';
		blank = false;
		*o++ = *s;
	}
	*o = '\0';
	return out;
}

static void probe_host(osb_caps *c)
{
	_cleanup_free_ char *status = NULL;
	struct utsname u;
	cap_t caps;

	c->euid = c->host.euid;
	if (read_file_bounded("/proc/self/status", 1 << 16, &status, NULL) == 0) {
		long f = status_field(status, "Seccomp_filters");
		long mode = status_field(status, "Seccomp");

		/* Kernels before 5.9 have no Seccomp_filters: count "at least one". */
		c->seccomp_filters = f > 0 ? (unsigned)f : mode == 2 ? 1 : 0;
		c->no_new_privs = status_field(status, "NoNewPrivs") == 1;
	}
	c->uid_map = uid_map_line();
	caps = cap_get_proc();
	if (caps) {
		char *t = cap_to_text(caps, NULL);

		/* libcap spells the empty set "=". */
		c->captext = dup_or_oom(c, !t || strcmp(t, "=") == 0 ? "none" : t);
		cap_free(t);
		cap_free(caps);
	} else {
		c->captext = dup_or_oom(c, "unknown");
	}
	c->kernel = dup_or_oom(c, uname(&u) == 0 ? u.release : "");
	if (!c->uid_map)
		c->oom = true;
	for (size_t i = 0; i < 3; i++)
		c->sysctl[i] = read_sysctl(sysctl_files[i]);
}

/* ---- bwrap: found, version, setuid, options -------------------------------- */

static void bwrap_not_found(osb_caps *c)
{
	const host_facts *h = &c->host;
	char reason[512];

	if (h->bwrap_from == BWRAP_FROM_CONFIG)
		fmt(reason, sizeof(reason), "OSB_ISOLATE_BWRAP=%s is not executable: %s",
		    h->bwrap_tried, strerror(h->bwrap_errno));
	else if (h->bwrap_from == BWRAP_FROM_BUILD)
		fmt(reason, sizeof(reason), "the bwrap configured at build time, %s, is not "
		    "executable: %s", h->bwrap_tried, strerror(h->bwrap_errno));
	else
		fmt(reason, sizeof(reason), "bwrap is not on PATH (%s)", h->bwrap_tried);
	item_set(c, IT_BWRAP, OSB_CAPS_UNAVAILABLE, reason,
	         "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf "
	         "install bubblewrap) or set OSB_ISOLATE_BWRAP to its path");
}

static char *first_line(const char *text)
{
	size_t n = strcspn(text, "\n");

	return strndup(text, n);
}

/* bwrap as the host facts found it (one lookup, one --help per binary);
 * only its version is asked here. */
static void probe_bwrap(osb_caps *c)
{
	const host_facts *h = &c->host;
	osb_error err;
	char reason[512], *out = NULL;

	if (h->bwrap_state == BWRAP_MISSING) {
		bwrap_not_found(c);
		return;
	}
	c->bwrap_path = dup_or_oom(c, h->bwrap);
	if (h->bwrap_state == BWRAP_SETUID) {
		c->bwrap_setuid = true;
		item_set(c, IT_BWRAP, OSB_CAPS_UNAVAILABLE,
		         fmt(reason, sizeof(reason), "%s is setuid or setgid: osb-isolate only runs "
		             "an unprivileged bwrap", h->bwrap),
		         "install a bwrap that is not setuid (Debian's bubblewrap package) or point "
		         "OSB_ISOLATE_BWRAP at one");
		return;
	}
	if (spawn_capture((const char *const[]){ h->bwrap, "--version", NULL }, 4096, &out,
	                  &err) == 0) {
		const char *v = strncmp(out, "bubblewrap ", 11) == 0 ? out + 11 : out;

		c->bwrap_version = first_line(v);
		if (!c->bwrap_version)
			c->oom = true;
		free(out);
	}
	if (h->bwrap_state == BWRAP_NO_HELP) {
		item_set(c, IT_BWRAP, OSB_CAPS_UNAVAILABLE,
		         fmt(reason, sizeof(reason), "%s --help cannot be run: %s", h->bwrap,
		             h->bwrap_why),
		         "reinstall bubblewrap (apt-get install --reinstall bubblewrap) or point "
		         "OSB_ISOLATE_BWRAP at a working bwrap");
		return;
	}
	for (size_t i = 0; i < N_OPTS; i++)
		c->opt[i] = bwrap_help_lists(h->bwrap_help, bwrap_opts[i].name);
	c->have_help = true;
	c->bwrap_usable = true;
	item_set(c, IT_BWRAP, OSB_CAPS_OK,
	         fmt(reason, sizeof(reason), "%s: bubblewrap %s, not setuid", h->bwrap,
	             c->bwrap_version && *c->bwrap_version ? c->bwrap_version : "(version unknown)"),
	         NULL);
}

static bool has_opt(const osb_caps *c, const char *name)
{
	for (size_t i = 0; i < N_OPTS; i++)
		if (strcmp(bwrap_opts[i].name, name) == 0)
			return c->opt[i];
	return false;
}

/* The options a mode needs that this bwrap lacks, as "--a, --b" (empty if
 * none). MODE -1: every needed option of either mode. */
static void missing_opts(const osb_caps *c, int mode, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < N_OPTS; i++) {
		enum need nd = bwrap_opts[i].need;
		bool needed = nd == NEED_ALL || (nd == NEED_USERNS && mode != M_ROOT) ||
		              (nd == NEED_ROOT && mode != M_USERNS);

		if (needed && !c->opt[i] && n < size)
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", bwrap_opts[i].name);
	}
}

static void judge_bwrap_options(osb_caps *c)
{
	char missing[512], reason[700];

	if (!c->bwrap_usable) {
		item_set(c, IT_BWRAP_OPTIONS, OSB_CAPS_UNAVAILABLE, "not checked: no usable bwrap",
		         "make bwrap available first (see the bwrap item)");
		item_set(c, IT_BIND_FD, OSB_CAPS_UNAVAILABLE, "not checked: no usable bwrap",
		         "make bwrap available first (see the bwrap item)");
		item_set(c, IT_DISABLE_USERNS, OSB_CAPS_UNAVAILABLE, "not checked: no usable bwrap",
		         "make bwrap available first (see the bwrap item)");
		return;
	}
	missing_opts(c, -1, missing, sizeof(missing));
	if (missing[0])
		item_set(c, IT_BWRAP_OPTIONS, OSB_CAPS_UNAVAILABLE,
		         fmt(reason, sizeof(reason), "bwrap --help lacks %s, which osb-isolate uses",
		             missing),
		         "install bubblewrap 0.8 or later (Debian 12: apt-get install bubblewrap)");
	else
		item_set(c, IT_BWRAP_OPTIONS, OSB_CAPS_OK,
		         "bwrap --help lists every option osb-isolate uses", NULL);
	if (has_opt(c, "--bind-fd") && has_opt(c, "--ro-bind-fd"))
		item_set(c, IT_BIND_FD, OSB_CAPS_OK,
		         "bwrap --help lists --bind-fd and --ro-bind-fd: paths are bound by their "
		         "verified fd", NULL);
	else
		item_set(c, IT_BIND_FD, OSB_CAPS_UNAVAILABLE,
		         fmt(reason, sizeof(reason), "bwrap --help lacks %s: paths cannot be bound by "
		             "their verified fd, and binding by name is refused",
		             !has_opt(c, "--bind-fd") && !has_opt(c, "--ro-bind-fd") ?
		             "--bind-fd and --ro-bind-fd" :
		             has_opt(c, "--bind-fd") ? "--ro-bind-fd" : "--bind-fd"),
		         "install bubblewrap 0.10 or later, or Debian 12's 0.8.0-2+deb12u1, which "
		         "backports --bind-fd");
}

/* ---- sandbox attempts -------------------------------------------------------- */

enum {
	AF_USERNS = 1 << 0,     /* --unshare-user --uid --gid */
	AF_DISABLE = 1 << 1,    /* --disable-userns */
	AF_NET = 1 << 2,        /* --unshare-net (loopback is brought up) */
	AF_PID = 1 << 3,        /* --unshare-pid --proc /proc */
	AF_ROOT = 1 << 4,       /* no user namespace: capabilities as a root-mode run */
	AF_REST = 1 << 5,       /* ipc, uts, /dev, die-with-parent, new-session */
};

/* Per mode: the full sandbox first; the others only when it fails. */
enum { A_FULL, A_NS, A_NET, A_PID, A_NONET, A_DISABLE, A__COUNT };

typedef struct attempt {
	unsigned flags;
	bool wanted, started, done, ok;
	pid_t pid;
	int pidfd, errfd, status;
	char diag[DIAG_MAX + 1];
} attempt;

static unsigned attempt_flags(enum mode m, int kind)
{
	unsigned full = m == M_USERNS ? AF_USERNS | AF_DISABLE | AF_NET | AF_PID | AF_REST :
	                                AF_ROOT | AF_NET | AF_PID | AF_REST;
	unsigned ns = m == M_USERNS ? AF_USERNS : AF_ROOT;

	switch (kind) {
	case A_FULL: return full;
	case A_NS: return ns;
	case A_NET: return ns | AF_NET;
	case A_PID: return ns | AF_PID;
	case A_NONET: return full & ~(unsigned)AF_NET;
	default: return ns | AF_DISABLE;
	}
}

#define PUSH(...) do { if (strv_push(argv, __VA_ARGS__) < 0) return -ENOMEM; } while (0)

static int attempt_argv(const osb_caps *c, unsigned f, strv *argv)
{
	PUSH(c->bwrap_path);
	if (f & AF_USERNS) {
		PUSH("--unshare-user");
		PUSH("--uid"); PUSH(STR(PROBE_UID));
		PUSH("--gid"); PUSH(STR(PROBE_UID));
	}
	if ((f & AF_DISABLE) && has_opt(c, "--disable-userns"))
		PUSH("--disable-userns");
	if (f & AF_ROOT) {
		PUSH("--cap-drop"); PUSH("ALL");
		PUSH("--cap-add"); PUSH("CAP_SETUID");
		PUSH("--cap-add"); PUSH("CAP_SETGID");
		PUSH("--cap-add"); PUSH("CAP_SETPCAP");
	}
	if (f & AF_NET)
		PUSH("--unshare-net");
	if (f & AF_PID)
		PUSH("--unshare-pid");
	if (f & AF_REST) {
		PUSH("--unshare-ipc");
		PUSH("--unshare-uts");
		if (has_opt(c, "--die-with-parent"))
			PUSH("--die-with-parent");
		if (has_opt(c, "--new-session"))
			PUSH("--new-session");
	}
	PUSH("--ro-bind"); PUSH("/"); PUSH("/");
	if (f & AF_PID) {
		PUSH("--proc"); PUSH("/proc");
	}
	if (f & AF_REST) {
		PUSH("--dev"); PUSH("/dev");
	}
	/* The command: bwrap itself, which exists wherever bwrap does and
	 * only prints its version (a sandbox that reaches it is complete). */
	PUSH("--");
	PUSH(c->bwrap_path);
	PUSH("--version");
	return 0;
}

#undef PUSH

static void attempt_fail(attempt *a, const char *msg)
{
	a->done = true;
	a->ok = false;
	snprintf(a->diag, sizeof(a->diag), "%.*s", DIAG_MAX, msg);   /* clipped on purpose */
}

static void attempt_start(const osb_caps *c, attempt *a, int devnull)
{
	static const char *const envp[] = { "PATH=/usr/local/bin:/usr/bin:/bin", NULL };
	strv argv = { 0 };
	osb_error err;
	int p[2], fds[3];

	a->pidfd = a->errfd = -1;
	if (devnull < 0) {
		attempt_fail(a, "cannot open /dev/null for the probe sandbox");
		return;
	}
	if (attempt_argv(c, a->flags, &argv) < 0) {
		strv_free(&argv);
		attempt_fail(a, "out of memory");
		return;
	}
	if (pipe2(p, O_CLOEXEC) < 0) {
		strv_free(&argv);
		attempt_fail(a, strerror(errno));
		return;
	}
	fds[0] = devnull; fds[1] = devnull; fds[2] = p[1];
	if (spawn_with_fds((const char *const *)argv.v, envp, fds, 3, NULL, &a->pid, &a->pidfd, &err) < 0) {
		attempt_fail(a, err.message);
		close(p[0]);
	} else {
		a->started = true;
		a->errfd = p[0];
	}
	close(p[1]);
	strv_free(&argv);
}

/* bwrap's own message: the first non-empty line of its stderr. */
static void attempt_read_diag(attempt *a)
{
	char buf[4096], *line;
	size_t n = 0;
	ssize_t r;

	fcntl(a->errfd, F_SETFL, O_NONBLOCK);
	while (n < sizeof(buf) - 1 && (r = read(a->errfd, buf + n, sizeof(buf) - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	line = buf + strspn(buf, "\n");
	line[strcspn(line, "\n")] = '\0';
	if (*line)
		snprintf(a->diag, sizeof(a->diag), "%s", line);
	else
		snprintf(a->diag, sizeof(a->diag), "bwrap exited with status %d and no message",
		         WIFEXITED(a->status) ? WEXITSTATUS(a->status) : 128 + WTERMSIG(a->status));
}

static void attempt_finish(attempt *a, bool timed_out)
{
	if (timed_out)
		pidfd_kill(a->pidfd, SIGKILL);
	if (pidfd_wait(a->pidfd, &a->status) < 0)
		a->status = W_EXITCODE(255, 0);
	a->done = true;
	a->ok = !timed_out && WIFEXITED(a->status) && WEXITSTATUS(a->status) == 0;
	if (timed_out)
		snprintf(a->diag, sizeof(a->diag), "the probe did not finish within %d s",
		         PROBE_TIMEOUT_MS / 1000);
	else if (!a->ok && a->errfd >= 0)
		attempt_read_diag(a);
	else if (!a->ok)
		snprintf(a->diag, sizeof(a->diag), "the probe child ended with status 0x%x",
		         (unsigned)a->status);
	close(a->pidfd);
	if (a->errfd >= 0)
		close(a->errfd);
	a->pidfd = a->errfd = -1;
}

/* Wait for every started, unfinished attempt in LIST; at the deadline the
 * rest are killed. */
static void wait_all(attempt **list, size_t n, uint64_t deadline)
{
	for (;;) {
		struct pollfd pfd[16];
		size_t map[16], k = 0;
		uint64_t now = now_ms();

		for (size_t i = 0; i < n && k < 16; i++)
			if (list[i]->started && !list[i]->done) {
				pfd[k] = (struct pollfd){ .fd = list[i]->pidfd, .events = POLLIN };
				map[k++] = i;
			}
		if (k == 0)
			return;
		if (now >= deadline) {
			for (size_t j = 0; j < k; j++)
				attempt_finish(list[map[j]], true);
			return;
		}
		int r = poll(pfd, (nfds_t)k, (int)(deadline - now));
		if (r < 0 && errno != EINTR)
			return;
		for (size_t j = 0; r > 0 && j < k; j++)
			if (pfd[j].revents)
				attempt_finish(list[map[j]], false);
	}
}

/* ---- the direct child: user namespace, overlayfs, Landlock, seccomp ----------- */

enum { OV_MNTNS, OV_PRIVATE, OV_TMPFS, OV_DIRS, OV_MOUNT };
static const char *const overlay_steps[] = {
	"unshare(CLONE_NEWNS)", "making the mounts private", "mounting a tmpfs on /tmp",
	"creating the layer directories", "mounting overlayfs",
};
static const char *const map_files[] = { "setgroups", "uid_map", "gid_map" };

typedef struct direct_res {
	int userns, map, overlay, nnp, landlock, seccomp;  /* 0, errno, CAPS_NOT_TRIED */
	int map_step, overlay_step;
} direct_res;

typedef struct direct_in {
	char uid_map[48], gid_map[48];
	struct sock_fprog prog;
	bool prog_ok, landlock;
} direct_in;

/* Runs in the forked child: system calls only (async-signal-safe). */
static int child_write(const char *path, const char *data)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), e = 0;
	size_t len = strlen(data);

	if (fd < 0)
		return errno;
	if (write(fd, data, len) != (ssize_t)len)
		e = errno ? errno : EIO;
	close(fd);
	return e;
}

static int child_maps(const direct_in *in, int *step)
{
	const char *data[] = { "deny", in->uid_map, in->gid_map };
	const char *path[] = { "/proc/self/setgroups", "/proc/self/uid_map", "/proc/self/gid_map" };
	int e;

	for (*step = 0; *step < 3; (*step)++)
		if ((e = child_write(path[*step], data[*step])) != 0)
			return e;
	return 0;
}

static int child_overlay(int *step)
{
	static const char *const dirs[] = { "/tmp/l", "/tmp/u", "/tmp/w", "/tmp/m" };

	*step = OV_MNTNS;
	if (unshare(CLONE_NEWNS) < 0)
		return errno;
	*step = OV_PRIVATE;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return errno;
	*step = OV_TMPFS;
	if (mount("osb-caps", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=64k") < 0)
		return errno;
	*step = OV_DIRS;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (mkdir(dirs[i], 0700) < 0)
			return errno;
	*step = OV_MOUNT;
	if (mount("overlay", "/tmp/m", "overlay", 0,
	          "lowerdir=/tmp/l,upperdir=/tmp/u,workdir=/tmp/w") < 0)
		return errno;
	return 0;
}

static int child_landlock(void)
{
	struct landlock_ruleset_attr attr = { .handled_access_fs = LANDLOCK_ACCESS_FS_WRITE_FILE };
	int fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	int e = 0;

	if (fd < 0)
		return errno;
	if (syscall(SYS_landlock_restrict_self, fd, 0) < 0)
		e = errno;
	close(fd);
	return e;
}

static __attribute__((noreturn)) void direct_child(int wfd, const direct_in *in)
{
	direct_res r = { CAPS_NOT_TRIED, CAPS_NOT_TRIED, CAPS_NOT_TRIED, CAPS_NOT_TRIED,
	                 CAPS_NOT_TRIED, CAPS_NOT_TRIED, 0, 0 };

	r.userns = unshare(CLONE_NEWUSER) < 0 ? errno : 0;
	if (r.userns == 0)
		r.map = child_maps(in, &r.map_step);
	if (r.userns == 0 && r.map == 0)
		r.overlay = child_overlay(&r.overlay_step);
	r.nnp = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ? errno : 0;
	if (in->landlock && r.nnp == 0)
		r.landlock = child_landlock();
	if (in->prog_ok && r.nnp == 0)
		r.seccomp = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &in->prog) < 0 ? errno : 0;
	if (write(wfd, &r, sizeof(r)) != (ssize_t)sizeof(r))
		_exit(1);
	_exit(0);
}

typedef struct direct {
	attempt a;        /* reuses the waiting machinery (pidfd) */
	int rfd;
	direct_res res;
	bool have_res;
} direct;

static void direct_start(direct *d, const direct_in *in)
{
	sigset_t all, old;
	int p[2], e;
	pid_t pid;

	d->a.pidfd = d->a.errfd = d->rfd = -1;
	if (pipe2(p, O_CLOEXEC) < 0) {
		attempt_fail(&d->a, strerror(errno));
		return;
	}
	/* The child must not run a caller's signal handler (a Go runtime's):
	 * it starts with every signal blocked and only _exits. The calling
	 * thread's mask is restored at once. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = fork();
	if (pid == 0)
		direct_child(p[1], in);
	e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = e;
	close(p[1]);
	if (pid < 0 || (d->a.pidfd = pidfd_open_cloexec(pid)) < 0) {
		attempt_fail(&d->a, strerror(errno));
		if (pid > 0)
			while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
				;
		close(p[0]);
		return;
	}
	d->a.pid = pid;
	d->a.started = true;
	d->rfd = p[0];
}

static void direct_collect(direct *d)
{
	if (d->rfd < 0)
		return;
	if (d->a.done && read(d->rfd, &d->res, sizeof(d->res)) == (ssize_t)sizeof(d->res))
		d->have_res = true;
	close(d->rfd);
	d->rfd = -1;
}

/* ---- seccomp: build the filter a run loads, hash it -------------------------- */

static int read_fd_all(int fd, char **out, size_t *len)
{
	struct stat st;
	char *buf;
	size_t n = 0;

	if (fstat(fd, &st) < 0 || st.st_size <= 0 || st.st_size > (1 << 20))
		return -EINVAL;
	buf = malloc((size_t)st.st_size);
	if (!buf)
		return -ENOMEM;
	while (n < (size_t)st.st_size) {
		ssize_t r = pread(fd, buf + n, (size_t)st.st_size - n, (off_t)n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			free(buf);
			return r < 0 ? -errno : -EIO;
		}
		n += (size_t)r;
	}
	*out = buf;
	*len = n;
	return 0;
}

/* Build POLICY's filter (NULL: the default group) exactly as a run does;
 * *BPF gets the program, HEX its SHA-256. */
static int filter_bytes(const osb_policy *pol, char **bpf, size_t *len,
                        char hex[2 * SHA256_DIGEST_LEN + 1], osb_error *err)
{
	uint8_t digest[SHA256_DIGEST_LEN];
	int fd = -1, r;

	if ((r = seccomp_build_fd(pol, &fd, err)) < 0)
		return r;
	if (fd < 0)
		return osb_err_set(err, OSB_E_SECCOMP, EINVAL, "seccomp", "the policy has no filter");
	r = read_fd_all(fd, bpf, len);
	close(fd);
	if (r < 0 || *len % sizeof(struct sock_filter) != 0) {
		if (r == 0)
			free(*bpf);
		*bpf = NULL;
		return osb_err_set(err, OSB_E_SECCOMP, EINVAL, "seccomp",
		                   "the built filter cannot be read back from its memfd");
	}
	sha256(*bpf, *len, digest);
	for (size_t i = 0; i < SHA256_DIGEST_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", digest[i]);
	return 0;
}

static void build_filter(osb_caps *c, direct_in *in, char **bpf, osb_error *err)
{
	size_t len = 0;

	if (filter_bytes(NULL, bpf, &len, c->seccomp_sha256, err) < 0)
		return;
	c->seccomp_insns = len / sizeof(struct sock_filter);
	in->prog.len = (unsigned short)c->seccomp_insns;
	in->prog.filter = (struct sock_filter *)(void *)*bpf;
	in->prog_ok = true;
}

/* ---- judging the attempts ------------------------------------------------------ */

typedef struct probe {
	attempt a[M__COUNT][A__COUNT];
	direct d;
	int devnull;
	uint64_t deadline;
	osb_error seccomp_err;
} probe;

static bool full_ok(const probe *p, enum mode m) { return p->a[m][A_FULL].ok; }
static bool ns_ok(const probe *p, enum mode m) { return full_ok(p, m) || p->a[m][A_NS].ok; }

static bool step_ok(const probe *p, enum mode m, int kind)
{
	return full_ok(p, m) || (p->a[m][A_NS].ok && p->a[m][kind].ok);
}

static const char *where(enum mode m)
{
	return m == M_USERNS ? "in a user namespace" : "as root, without a user namespace";
}

static void judge_userns(osb_caps *c, const probe *p)
{
	const direct_res *d = p->d.have_res ? &p->d.res : NULL;
	caps_userns_facts f = { 0 };
	char reason[1024], remedy[512];

	if (c->bwrap_usable && ns_ok(p, M_USERNS)) {
		item_set(c, IT_USERNS, OSB_CAPS_OK,
		         fmt(reason, sizeof(reason), "bwrap created a user namespace and wrote its "
		             "uid/gid map (uid %d inside)", PROBE_UID), NULL);
		return;
	}
	if (!c->bwrap_usable && d && d->userns == 0 && d->map == 0) {
		item_set(c, IT_USERNS, OSB_CAPS_OK,
		         "this process created a user namespace and wrote its uid/gid map (bwrap not "
		         "tried: see the bwrap item)", NULL);
		return;
	}
	if (!d) {
		item_set(c, IT_USERNS, OSB_CAPS_UNAVAILABLE,
		         fmt(reason, sizeof(reason), "%s; the direct attempt did not report: %s",
		             c->bwrap_usable ? p->a[M_USERNS][A_NS].diag : "no usable bwrap",
		             p->d.a.diag[0] ? p->d.a.diag : "no message"),
		         "check dmesg for a security-module denial and the sysctls "
		         "user.max_user_namespaces and kernel.unprivileged_userns_clone");
		return;
	}
	f.unshare_errno = d->userns;
	f.map_errno = d->map;
	f.map_file = map_files[d->map_step % 3];
	f.max_user_namespaces = c->sysctl[SC_MAX_USERNS];
	f.unprivileged_userns_clone = c->sysctl[SC_UNPRIV_CLONE];
	f.apparmor_restrict = c->sysctl[SC_APPARMOR];
	f.seccomp_filters = c->seccomp_filters;
	f.root = c->euid == 0;
	f.bwrap_diag = p->a[M_USERNS][A_NS].diag;
	caps_userns_blocker(&f, &c->blocker, reason, sizeof(reason), remedy, sizeof(remedy));
	item_set(c, IT_USERNS, OSB_CAPS_UNAVAILABLE, reason, remedy);
}

/* The namespace items report the mode that can make a sandbox at all:
 * userns when it can, else root. */
static void judge_ns_step(osb_caps *c, const probe *p, enum item_id id, int kind)
{
	static const char *const what[] = {
		[A_NET] = "a network namespace with loopback up",
		[A_PID] = "a pid namespace with its own /proc",
	};
	char reason[700];
	int m = ns_ok(p, M_USERNS) ? M_USERNS : ns_ok(p, M_ROOT) ? M_ROOT : -1;

	if (!c->bwrap_usable) {
		item_set(c, id, OSB_CAPS_UNAVAILABLE, "not tried: no usable bwrap",
		         "make bwrap available first (see the bwrap item)");
		return;
	}
	if (m < 0) {
		item_set(c, id, OSB_CAPS_UNAVAILABLE,
		         "not tried: no sandbox can be created here (see user_namespace and root)",
		         "make user namespaces available (see user_namespace) or run as root");
		return;
	}
	if (step_ok(p, (enum mode)m, kind))
		item_set(c, id, OSB_CAPS_OK,
		         fmt(reason, sizeof(reason), "bwrap created %s (%s)", what[kind],
		             where((enum mode)m)), NULL);
	else
		item_set(c, id, OSB_CAPS_UNAVAILABLE,
		         fmt(reason, sizeof(reason), "bwrap cannot create %s (%s): %s", what[kind],
		             where((enum mode)m), p->a[m][kind].diag),
		         kind == A_NET ?
		         "the kernel or a security module refuses to configure loopback in a new "
		         "network namespace; check dmesg, or use a policy with \"network host\"" :
		         "a new /proc cannot be mounted where the host's /proc is partly masked (a "
		         "container's masked paths): give the container an unmasked /proc (Docker: "
		         "--security-opt systempaths=unconfined)");
}

static void judge_disable_userns(osb_caps *c, const probe *p)
{
	char reason[700];

	if (!c->bwrap_usable)
		return;   /* set by judge_bwrap_options */
	if (!has_opt(c, "--disable-userns"))
		item_set(c, IT_DISABLE_USERNS, OSB_CAPS_UNAVAILABLE,
		         "bwrap --help lacks --disable-userns: a userns-mode sandbox could create "
		         "user namespaces of its own",
		         "install bubblewrap 0.8 or later (Debian 12: apt-get install bubblewrap)");
	else if (!ns_ok(p, M_USERNS))
		item_set(c, IT_DISABLE_USERNS, OSB_CAPS_OK,
		         "bwrap --help lists --disable-userns (not tried: no user namespace here)",
		         NULL);
	else if (step_ok(p, M_USERNS, A_DISABLE))
		item_set(c, IT_DISABLE_USERNS, OSB_CAPS_OK,
		         "bwrap --disable-userns works: the sandbox cannot create user namespaces",
		         NULL);
	else
		item_set(c, IT_DISABLE_USERNS, OSB_CAPS_UNAVAILABLE,
		         fmt(reason, sizeof(reason), "bwrap --disable-userns fails: %s",
		             p->a[M_USERNS][A_DISABLE].diag),
		         "the kernel must let a user namespace set user.max_user_namespaces for its "
		         "children (Linux 4.9 or later); check dmesg");
}

static bool cap_effective(cap_value_t v)
{
	cap_t caps = cap_get_proc();
	cap_flag_value_t on = CAP_CLEAR;

	if (caps) {
		cap_get_flag(caps, v, CAP_EFFECTIVE, &on);
		cap_free(caps);
	}
	return on == CAP_SET;
}

static void judge_root(osb_caps *c, const probe *p)
{
	static const struct { cap_value_t v; const char *name; } need[] = {
		{ CAP_SYS_ADMIN, "CAP_SYS_ADMIN" }, { CAP_SETUID, "CAP_SETUID" },
		{ CAP_SETGID, "CAP_SETGID" }, { CAP_SETPCAP, "CAP_SETPCAP" },
	};
	char reason[900], missing[128] = "";
	size_t n = 0;

	if (c->euid != 0) {
		item_set(c, IT_ROOT, OSB_CAPS_UNAVAILABLE,
		         fmt(reason, sizeof(reason), "running as uid %u, not root (capabilities: %s)",
		             (unsigned)c->euid, c->captext),
		         "identity root is for a daemon that runs as root (for example in a container "
		         "where user namespaces are blocked); as this user, use identity userns");
		return;
	}
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!cap_effective(need[i].v))
			n += (size_t)snprintf(missing + n, sizeof(missing) - n, "%s%s", n ? ", " : "",
			                      need[i].name);
	if (n)
		item_set(c, IT_ROOT, OSB_CAPS_UNAVAILABLE,
		         fmt(reason, sizeof(reason), "running as root without %s (capabilities: %s)",
		             missing, c->captext),
		         "grant these capabilities to the daemon (Docker: --cap-add SYS_ADMIN etc.) "
		         "or use identity userns");
	else if (!c->bwrap_usable)
		item_set(c, IT_ROOT, OSB_CAPS_UNAVAILABLE, "not tried: no usable bwrap",
		         "make bwrap available first (see the bwrap item)");
	else if (full_ok(p, M_ROOT) || p->a[M_ROOT][A_NONET].ok)
		item_set(c, IT_ROOT, OSB_CAPS_OK,
		         fmt(reason, sizeof(reason), "running as root (capabilities: %s); bwrap "
		             "created a sandbox without a user namespace", c->captext), NULL);
	else
		item_set(c, IT_ROOT, OSB_CAPS_UNAVAILABLE,
		         fmt(reason, sizeof(reason), "running as root, but bwrap cannot create a "
		             "sandbox without a user namespace: %s",
		             p->a[M_ROOT][p->a[M_ROOT][A_NS].ok ? A_NONET : A_NS].diag),
		         "check bwrap's message; a container may withhold mount or namespace "
		         "privileges (Docker: --cap-add SYS_ADMIN, an unconfined AppArmor profile)");
}

static void judge_seccomp(osb_caps *c, const probe *p)
{
	char reason[1200];
	int e = p->d.have_res ? p->d.res.seccomp : CAPS_NOT_TRIED;

	if (!c->seccomp_sha256[0])
		item_set(c, IT_SECCOMP, OSB_CAPS_UNAVAILABLE,
		         fmt(reason, sizeof(reason), "the filter cannot be built: %s",
		             p->seccomp_err.message),
		         "install libseccomp 2.5 or later (apt-get install libseccomp2)");
	else if (e == 0)
		item_set(c, IT_SECCOMP, OSB_CAPS_OK,
		         fmt(reason, sizeof(reason), "the %s filter (%zu BPF instructions) loads%s",
		             seccomp_group_name(), c->seccomp_insns,
		             c->seccomp_filters ? " on top of the filters already in place" : ""),
		         NULL);
	else
		item_set(c, IT_SECCOMP, OSB_CAPS_UNAVAILABLE,
		         fmt(reason, sizeof(reason), "loading the %s filter fails: %s",
		             seccomp_group_name(),
		             e == CAPS_NOT_TRIED ? (p->d.a.diag[0] ? p->d.a.diag : "the probe child "
		                                    "did not report") : strerror(e)),
		         "use a kernel built with CONFIG_SECCOMP_FILTER=y; in a container, allow the "
		         "seccomp(2) system call");
}

static void judge_nested(osb_caps *c)
{
	char reason[600], userns[300] = "";
	bool in_userns = c->uid_map && strcmp(c->uid_map, "0 0 4294967295") != 0;

	if (in_userns)
		snprintf(userns, sizeof(userns), "%sin a user namespace (uid_map: %s)",
		         c->seccomp_filters ? ", " : "", c->uid_map);
	if (!c->seccomp_filters && !in_userns) {
		item_set(c, IT_NESTED, OSB_CAPS_OK,
		         "not nested: no seccomp filter, the initial user namespace", NULL);
		return;
	}
	if (c->seccomp_filters)
		fmt(reason, sizeof(reason), "already confined: %u seccomp filter%s%s%s",
		    c->seccomp_filters, c->seccomp_filters == 1 ? "" : "s",
		    c->no_new_privs ? ", no_new_privs set" : "", userns);
	else
		fmt(reason, sizeof(reason), "already confined: %s", userns);
	item_set(c, IT_NESTED, OSB_CAPS_DEGRADED, reason,
	         "this runs inside another sandbox or container, whose restrictions stay in "
	         "force and may refuse namespaces; for full isolation run osb-isolate outside it");
}

static void judge_landlock(osb_caps *c, const probe *p)
{
	char reason[400];
	long abi = c->host.landlock_abi;
	int e = c->host.landlock_errno;
	int en = p->d.have_res ? p->d.res.landlock : CAPS_NOT_TRIED;

	c->landlock_abi = abi > 0 ? (int)abi : 0;
	if (e == ENOSYS)
		item_set(c, IT_LANDLOCK, OSB_CAPS_UNAVAILABLE,
		         "the kernel has no Landlock (landlock_create_ruleset: Function not implemented)",
		         "use Linux 5.13 or later built with CONFIG_SECURITY_LANDLOCK=y");
	else if (e == EOPNOTSUPP)
		item_set(c, IT_LANDLOCK, OSB_CAPS_UNAVAILABLE,
		         "Landlock is built in but disabled at boot (landlock_create_ruleset: "
		         "Operation not supported)",
		         "add landlock to the lsm= kernel command line (e.g. lsm=landlock,lockdown,"
		         "yama,apparmor,bpf) and reboot");
	else if (e)
		item_set(c, IT_LANDLOCK, OSB_CAPS_UNAVAILABLE,
		         fmt(reason, sizeof(reason), "landlock_create_ruleset fails: %s", strerror(e)),
		         "check the kernel's Landlock support (dmesg | grep -i landlock)");
	else if (en == 0)
		item_set(c, IT_LANDLOCK, OSB_CAPS_OK,
		         fmt(reason, sizeof(reason), "Landlock ABI %ld: a ruleset was enforced in a "
		             "child process", abi), NULL);
	else
		item_set(c, IT_LANDLOCK, OSB_CAPS_DEGRADED,
		         fmt(reason, sizeof(reason), "Landlock ABI %ld, but enforcing a ruleset fails: "
		             "%s", abi, en == CAPS_NOT_TRIED ? "not tried" : strerror(en)),
		         "check dmesg; an enclosing sandbox may refuse landlock_restrict_self");
}

static void judge_overlay(osb_caps *c, const probe *p)
{
	char reason[400];
	const direct_res *r = &p->d.res;

	if (!p->d.have_res || r->userns != 0 || r->map != 0)
		item_set(c, IT_OVERLAY, OSB_CAPS_UNAVAILABLE,
		         "not tried: this process cannot create a user namespace (see user_namespace)",
		         "make user namespaces available (see user_namespace); osb-isolate does not "
		         "need overlayfs for the shipped policies");
	else if (r->overlay == 0)
		item_set(c, IT_OVERLAY, OSB_CAPS_OK,
		         "overlayfs mounted in a user namespace (tmpfs layers)", NULL);
	else
		item_set(c, IT_OVERLAY, OSB_CAPS_UNAVAILABLE,
		         fmt(reason, sizeof(reason), "in a user namespace, %s fails: %s",
		             overlay_steps[r->overlay_step % 5], strerror(r->overlay)),
		         "overlayfs in user namespaces needs Linux 5.11 or later; osb-isolate does "
		         "not need it for the shipped policies");
}

/* ---- cgroup v2 delegation (in-process: mkdir and rmdir of a child group) ------- */

static int cgroup_dir(char **dir, char **mount_point)
{
	_cleanup_free_ char *self = NULL;
	struct libmnt_table *tb = mnt_new_table_from_file("/proc/self/mountinfo");
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs = NULL;
	const char *path = NULL, *root;
	bool found = false;
	size_t rl;

	while (tb && it && !found && mnt_table_next_fs(tb, it, &fs) == 0)
		found = mnt_fs_get_fstype(fs) && strcmp(mnt_fs_get_fstype(fs), "cgroup2") == 0;
	mnt_free_iter(it);
	if (!found) {
		mnt_unref_table(tb);
		return tb ? -ENOENT : -EIO;
	}
	*mount_point = strdup(mnt_fs_get_target(fs));
	root = mnt_fs_get_root(fs) ? mnt_fs_get_root(fs) : "/";
	if (read_file_bounded("/proc/self/cgroup", 1 << 16, &self, NULL) == 0)
		for (char *l = self; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
			if (strncmp(l, "0::", 3) == 0) {
				path = l + 3;
				l[3 + strcspn(l + 3, "\n")] = '\0';
				break;
			}
	rl = strcmp(root, "/") == 0 ? 0 : strlen(root);
	if (!path || strncmp(path, root, rl) != 0 || (path[rl] != '/' && path[rl] != '\0'))
		path = NULL;
	/* The mount's own root is the mount point itself, not "MNT/". */
	if (*mount_point && path &&
	    asprintf(dir, "%s%s", *mount_point, strcmp(path + rl, "/") == 0 ? "" : path + rl) < 0)
		*dir = NULL;
	mnt_unref_table(tb);
	return *mount_point && path && *dir ? 0 : path ? -ENOMEM : -ENXIO;
}

static bool controllers_include(const char *dir, const char *a, const char *b)
{
	_cleanup_free_ char *path = NULL, *text = NULL;
	bool ha = false, hb = false;
	char *save = NULL;

	if (asprintf(&path, "%s/cgroup.controllers", dir) < 0)
		return false;
	if (read_file_bounded(path, 4096, &text, NULL) < 0)
		return false;
	for (char *w = strtok_r(text, " \n", &save); w; w = strtok_r(NULL, " \n", &save)) {
		ha = ha || strcmp(w, a) == 0;
		hb = hb || strcmp(w, b) == 0;
	}
	return ha && hb;
}

static void probe_cgroup(osb_caps *c)
{
	_cleanup_free_ char *dir = NULL, *mnt = NULL;
	char reason[1200], name[64];
	int r = cgroup_dir(&dir, &mnt), dfd, e = 0;

	if (r == -ENOENT || r == -EIO) {
		item_set(c, IT_CGROUP, OSB_CAPS_UNAVAILABLE,
		         "no cgroup v2 hierarchy is mounted (cgroup v1 only)",
		         "boot with systemd.unified_cgroup_hierarchy=1, or mount cgroup2; osb-isolate "
		         "does not need cgroups for the shipped policies");
		return;
	}
	if (r < 0) {
		item_set(c, IT_CGROUP, OSB_CAPS_UNAVAILABLE,
		         fmt(reason, sizeof(reason), "this process's cgroup is not visible under the "
		             "cgroup v2 mount %s", mnt ? mnt : "?"),
		         "mount the cgroup2 hierarchy with this process's cgroup visible (a cgroup "
		         "namespace, or Docker's --cgroupns=private)");
		return;
	}
	snprintf(name, sizeof(name), "osb-caps-probe.%ld", (long)getpid());
	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || mkdirat(dfd, name, 0755) < 0)
		e = errno;
	else if (unlinkat(dfd, name, AT_REMOVEDIR) < 0)
		e = 0;   /* created: delegation works; a leftover empty group is harmless */
	if (dfd >= 0)
		close(dfd);
	if (e)
		item_set(c, IT_CGROUP, OSB_CAPS_UNAVAILABLE,
		         fmt(reason, sizeof(reason), "cgroup v2 at %s is not delegated to this process: "
		             "creating a group in %s fails: %s", mnt, dir, strerror(e)),
		         "run under a delegated cgroup (systemd-run --user --scope -p Delegate=yes, or "
		         "Delegate=yes in the service unit); osb-isolate does not need cgroups for the "
		         "shipped policies");
	else if (!controllers_include(dir, "memory", "pids"))
		item_set(c, IT_CGROUP, OSB_CAPS_DEGRADED,
		         fmt(reason, sizeof(reason), "cgroup v2 at %s is writable (a child group was "
		             "created in %s) but offers no memory and pids controllers", mnt, dir),
		         "enable the controllers for this cgroup (a unified hierarchy, or cgroup."
		         "subtree_control in the parent); osb-isolate does not need them for the "
		         "shipped policies");
	else
		item_set(c, IT_CGROUP, OSB_CAPS_OK,
		         fmt(reason, sizeof(reason), "cgroup v2 at %s is delegated: a child group was "
		             "created in %s, with the memory and pids controllers", mnt, dir), NULL);
}

/* ---- running the attempts ----------------------------------------------------- */

static bool mode_tried(const osb_caps *c, enum mode m)
{
	return c->bwrap_usable && (m == M_USERNS || c->euid == 0);
}

/* The full sandbox of each mode, started now and waited for later. */
static void start_attempts(osb_caps *c, probe *p)
{
	p->devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	p->deadline = now_ms() + PROBE_TIMEOUT_MS;
	for (int m = 0; m < M__COUNT; m++)
		for (int k = 0; k < A__COUNT; k++)
			p->a[m][k] = (attempt){ .flags = attempt_flags((enum mode)m, k), .pidfd = -1,
			                        .errfd = -1 };
	for (int m = 0; m < M__COUNT; m++)
		if (mode_tried(c, (enum mode)m))
			attempt_start(c, &p->a[m][A_FULL], p->devnull);
}

static void finish_attempts(osb_caps *c, probe *p)
{
	attempt *list[M__COUNT * A__COUNT + 1];
	size_t n = 0;

	for (int m = 0; m < M__COUNT; m++)
		list[n++] = &p->a[m][A_FULL];
	list[n++] = &p->d.a;
	wait_all(list, n, p->deadline);
	direct_collect(&p->d);
	/* Only a failed full sandbox needs the smaller ones, in parallel. */
	n = 0;
	for (int m = 0; m < M__COUNT; m++)
		for (int k = A_NS; mode_tried(c, (enum mode)m) && !p->a[m][A_FULL].ok && k < A__COUNT;
		     k++)
			if (k != A_DISABLE || m == M_USERNS) {
				attempt_start(c, &p->a[m][k], p->devnull);
				list[n++] = &p->a[m][k];
			}
	wait_all(list, n, p->deadline);
	if (p->devnull >= 0)
		close(p->devnull);
}

/* ---- modes and profiles ----------------------------------------------------------- */

static void stop_set(osb_caps *c, stop *s, const char *id, int status, const char *reason,
                     const char *remedy)
{
	free(s->reason);
	free(s->remedy);
	s->id = id;
	s->status = status;
	s->reason = dup_or_oom(c, reason);
	s->remedy = dup_or_oom(c, remedy);
}

static void stop_from_item(osb_caps *c, stop *s, enum item_id id)
{
	const item *it = &c->items[id];

	stop_set(c, s, item_names[id], it->status, it->reason, it->remedy);
}

/* The first item in ORDER that is not ok stops the mode. */
static bool mode_items(osb_caps *c, enum mode m, const enum item_id *order, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (c->items[order[i]].status != OSB_CAPS_OK) {
			stop_from_item(c, &c->mode_stop[m], order[i]);
			return false;
		}
	return true;
}

static bool mode_options(osb_caps *c, enum mode m)
{
	char missing[512], reason[700];

	missing_opts(c, m, missing, sizeof(missing));
	if (missing[0])
		stop_set(c, &c->mode_stop[m], item_names[IT_BWRAP_OPTIONS], OSB_CAPS_UNAVAILABLE,
		         fmt(reason, sizeof(reason), "bwrap --help lacks %s, which osb-isolate uses",
		             missing),
		         c->items[IT_BWRAP_OPTIONS].remedy);
	return !missing[0];
}

/* Can mode M start a sandbox at all (whatever the policy)? */
static bool mode_base(osb_caps *c, const probe *p, enum mode m)
{
	static const enum item_id userns_order[] = {
		IT_BWRAP, IT_BIND_FD, IT_DISABLE_USERNS, IT_USERNS, IT_PIDNS,
	};
	static const enum item_id root_order[] = { IT_BWRAP, IT_BIND_FD, IT_ROOT };
	const enum item_id *order = m == M_USERNS ? userns_order : root_order;
	size_t n = m == M_USERNS ? 5 : 3;
	char reason[700];

	if (!mode_items(c, m, order, 2) || !mode_options(c, m) || !mode_items(c, m, order + 2, n - 2))
		return false;
	/* Items can all pass while their combination fails (the root item
	 * already stands for root's whole sandbox). */
	if (m == M_USERNS && !full_ok(p, m) && !p->a[m][A_NONET].ok) {
		stop_set(c, &c->mode_stop[m], "sandbox", OSB_CAPS_UNAVAILABLE,
		         fmt(reason, sizeof(reason), "a sandbox with every namespace of a run fails "
		             "(in a user namespace): %s", p->a[m][A_NONET].diag),
		         "check bwrap's message; a step that works alone may fail combined with "
		         "the others (see the items above)");
		return false;
	}
	return true;
}

static void judge_modes(osb_caps *c, const probe *p)
{
	char reason[700];

	for (int m = 0; m < M__COUNT; m++) {
		c->base_ok[m] = mode_base(c, p, (enum mode)m);
		c->net_ok[m] = c->base_ok[m] && step_ok(p, (enum mode)m, A_NET);
		if (c->base_ok[m] && !c->net_ok[m])
			stop_set(c, &c->net_stop[m], item_names[IT_NETNS], OSB_CAPS_UNAVAILABLE,
			         fmt(reason, sizeof(reason), "bwrap cannot create a network namespace "
			             "with loopback up (%s): %s", where((enum mode)m), p->a[m][A_NET].diag),
			         "the kernel or a security module refuses to configure loopback in a new "
			         "network namespace; check dmesg, or use a policy with \"network host\"");
		/* A mode is usable when sandboxes under the default filter start. */
		c->mode_ok[m] = c->base_ok[m] && c->items[IT_SECCOMP].status == OSB_CAPS_OK;
		if (c->base_ok[m] && !c->mode_ok[m])
			stop_from_item(c, &c->mode_stop[m], IT_SECCOMP);
	}
}

/* What stops POLICY in mode M: a borrowed view, or false when nothing does. */
typedef struct why {
	const char *id;
	int status;
	const char *reason, *remedy;
} why;

static void why_item(const osb_caps *c, enum item_id id, why *w)
{
	*w = (why){ item_names[id], c->items[id].status, c->items[id].reason, c->items[id].remedy };
}

static needs needs_of(const osb_policy *pol)
{
	return (needs){ .id = pol->id_mode, .netns = pol->net == NET_NONE,
	                .seccomp = pol->sc_mode != SC_NONE,
	                .landlock = pol->landlock == LL_REQUIRED };
}

static bool policy_stopped(const osb_caps *c, const needs *nd, enum mode m, why *w)
{
	const stop *s = NULL;

	if (!c->base_ok[m])
		s = &c->mode_stop[m];
	else if (nd->seccomp && c->items[IT_SECCOMP].status != OSB_CAPS_OK)
		why_item(c, IT_SECCOMP, w);
	else if (nd->netns && !c->net_ok[m])
		s = &c->net_stop[m];
	else if (nd->landlock && c->items[IT_LANDLOCK].status != OSB_CAPS_OK)
		why_item(c, IT_LANDLOCK, w);
	else
		return false;
	if (s)
		*w = (why){ s->id, s->status, s->reason, s->remedy };
	return true;
}

static void judge_profiles(osb_caps *c)
{
	why w;

	for (size_t i = 0; i < c->n_profiles; i++)
		for (int m = 0; m < M__COUNT; m++)
			c->profiles[i].runs[m] = !c->profiles[i].error &&
			        c->profiles[i].nd.id != (m == M_USERNS ? ID_ROOT : ID_USERNS) &&
			        !policy_stopped(c, &c->profiles[i].nd, (enum mode)m, &w);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The filter a run under PR loads, and the write roots it declares. */
static void profile_details(osb_caps *c, profile *pr, const osb_policy *pol)
{
	_cleanup_free_ char *bpf = NULL;
	osb_error err;
	size_t len;

	/* Without seccomp rules a policy's filter is its group (filter.h):
	 * the default group's hash is already known, and building costs time. */
	if (pol->sc_mode != SC_NONE && pol->n_sc_rules == 0 &&
	    seccomp_policy_group(pol) == seccomp_policy_group(NULL))
		memcpy(pr->seccomp_sha256, c->seccomp_sha256, sizeof(pr->seccomp_sha256));
	else if (pol->sc_mode != SC_NONE &&
	         filter_bytes(pol, &bpf, &len, pr->seccomp_sha256, &err) < 0)
		pr->error = dup_or_oom(c, err.message);
	for (size_t i = 0; i < pol->n_write_roots; i++) {
		bool seen = false;

		for (size_t j = 0; j < c->write_roots.n && !seen; j++)
			seen = strcmp(c->write_roots.v[j], pol->write_roots[i].s) == 0;
		if (!seen && strv_push(&c->write_roots, pol->write_roots[i].s) < 0)
			c->oom = true;
	}
}

static void probe_profiles(osb_caps *c)
{
	const char *dir = policy_dir();
	strv names = { 0 };

	c->policy_dir = dup_or_oom(c, dir);
	struct dirent *e;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (n > 7 && e->d_name[0] != '.' && strcmp(e->d_name + n - 7, ".policy") == 0 &&
		    strv_pushf(&names, "%.*s", (int)(n - 7), e->d_name) < 0)
			c->oom = true;
	}
	if (d)
		closedir(d);
	if (names.n)
		qsort(names.v, names.n, sizeof(char *), cmp_str);
	c->profiles = calloc(names.n ? names.n : 1, sizeof(*c->profiles));
	if (!c->profiles) {
		c->oom = true;
		strv_free(&names);
		return;
	}
	for (size_t i = 0; i < names.n; i++) {
		_cleanup_free_ char *path = NULL;
		profile *pr = &c->profiles[c->n_profiles++];
		osb_error err = { 0 };
		osb_policy *pol = NULL;

		pr->name = names.v[i];
		names.v[i] = NULL;
		if (asprintf(&path, "%s/%s.policy", dir, pr->name) >= 0)
			pol = osb_policy_load(path, &err);
		else
			path = NULL;
		if (!pol) {
			pr->error = dup_or_oom(c, path ? err.message : "out of memory");
			continue;
		}
		pr->nd = needs_of(pol);
		profile_details(c, pr, pol);
		osb_policy_free(pol);
	}
	strv_free(&names);
	if (c->write_roots.n > 1)
		qsort(c->write_roots.v, c->write_roots.n, sizeof(char *), cmp_str);
}

/* ---- the probe -------------------------------------------------------------------- */

static void judge_all(osb_caps *c, const probe *p)
{
	judge_bwrap_options(c);
	judge_userns(c, p);
	judge_ns_step(c, p, IT_NETNS, A_NET);
	judge_ns_step(c, p, IT_PIDNS, A_PID);
	judge_disable_userns(c, p);
	judge_seccomp(c, p);
	judge_nested(c);
	judge_landlock(c, p);
	judge_overlay(c, p);
	judge_root(c, p);
}

static unsigned probe_runs;

unsigned caps_probe_runs(void)
{
	return __atomic_load_n(&probe_runs, __ATOMIC_SEQ_CST);
}

static osb_caps *probe_new(osb_error *err)
{
	uint64_t start = now_ms();
	_cleanup_free_ char *bpf = NULL;
	osb_caps *c = calloc(1, sizeof(*c));
	probe *p = calloc(1, sizeof(*p));
	direct_in in = { .landlock = false };

	host_paths paths = host_paths_default();

	if (!c || !p) {
		free(c);
		free(p);
		osb_err_set(err, OSB_E_NOMEM, ENOMEM, "probe", "out of memory");
		return NULL;
	}
	if (host_facts_get(&paths, &c->host, err) < 0) {
		free(c);
		free(p);
		return NULL;
	}
	__atomic_add_fetch(&probe_runs, 1, __ATOMIC_SEQ_CST);
	c->refs = 1;
	probe_host(c);
	probe_bwrap(c);
	/* The sandboxes start first; the parent's own work overlaps them. */
	start_attempts(c, p);
	build_filter(c, &in, &bpf, &p->seccomp_err);
	snprintf(in.uid_map, sizeof(in.uid_map), "0 %u 1", (unsigned)c->host.euid);
	snprintf(in.gid_map, sizeof(in.gid_map), "0 %u 1", (unsigned)c->host.egid);
	in.landlock = c->host.landlock_abi > 0;
	direct_start(&p->d, &in);
	probe_profiles(c);
	probe_cgroup(c);
	finish_attempts(c, p);
	judge_all(c, p);
	judge_modes(c, p);
	judge_profiles(c);
	free(p);
	c->probe_ms = now_ms() - start;
	if (c->oom) {
		osb_caps_free(c);
		osb_err_set(err, OSB_E_NOMEM, ENOMEM, "probe", "out of memory");
		return NULL;
	}
	return c;
}

/* ---- the cache -------------------------------------------------------------------- */

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static osb_caps *cache;

int osb_caps_probe(osb_caps **out, unsigned flags, osb_error *err)
{
	osb_caps *fresh = NULL, *old = NULL;

	osb_err_clear(err);
	if (!out)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "usage", "osb_caps_probe needs OUT");
	*out = NULL;
	if (flags & ~(unsigned)OSB_CAPS_REFRESH)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "usage",
		                   "osb_caps_probe: unknown flags 0x%x", flags);
	pthread_mutex_lock(&cache_lock);
	if (!cache || (flags & OSB_CAPS_REFRESH)) {
		fresh = probe_new(err);
		if (!fresh) {
			pthread_mutex_unlock(&cache_lock);
			return -(err && err->code ? err->code : OSB_E_NOMEM);
		}
		old = cache;
		cache = fresh;
	}
	__atomic_add_fetch(&cache->refs, 1, __ATOMIC_SEQ_CST);
	*out = cache;
	pthread_mutex_unlock(&cache_lock);
	osb_caps_free(old);
	return 0;
}

void osb_caps_free(osb_caps *c)
{
	if (!c || __atomic_sub_fetch(&c->refs, 1, __ATOMIC_SEQ_CST) > 0)
		return;
	for (size_t i = 0; i < IT__COUNT; i++) {
		free(c->items[i].reason);
		free(c->items[i].remedy);
	}
	for (int m = 0; m < M__COUNT; m++) {
		free(c->mode_stop[m].reason);
		free(c->mode_stop[m].remedy);
		free(c->net_stop[m].reason);
		free(c->net_stop[m].remedy);
	}
	for (size_t i = 0; i < c->n_profiles; i++) {
		free(c->profiles[i].name);
		free(c->profiles[i].error);
	}
	free(c->profiles);
	free(c->policy_dir);
	strv_free(&c->write_roots);
	free(c->bwrap_path);
	free(c->bwrap_version);
	free(c->uid_map);
	free(c->captext);
	free(c->kernel);
	host_facts_free(&c->host);
	free(c);
}

/* ---- accessors -------------------------------------------------------------------- */

int osb_caps_available(const osb_caps *c)
{
	return c && (c->mode_ok[M_USERNS] || c->mode_ok[M_ROOT]);
}

unsigned osb_caps_modes(const osb_caps *c)
{
	if (!c)
		return 0;
	return (c->mode_ok[M_USERNS] ? OSB_CAPS_MODE_USERNS : 0u) |
	       (c->mode_ok[M_ROOT] ? OSB_CAPS_MODE_ROOT : 0u);
}

size_t osb_caps_count(const osb_caps *c)
{
	return c ? IT__COUNT : 0;
}

int osb_caps_find(const osb_caps *c, const char *id)
{
	for (size_t i = 0; c && id && i < IT__COUNT; i++)
		if (strcmp(item_names[i], id) == 0)
			return (int)i;
	return -1;
}

const char *osb_caps_id(const osb_caps *c, size_t i)
{
	return c && i < IT__COUNT ? item_names[i] : NULL;
}

int osb_caps_status(const osb_caps *c, size_t i)
{
	return c && i < IT__COUNT ? c->items[i].status : -1;
}

const char *osb_caps_reason(const osb_caps *c, size_t i)
{
	return c && i < IT__COUNT ? c->items[i].reason : NULL;
}

const char *osb_caps_remedy(const osb_caps *c, size_t i)
{
	return c && i < IT__COUNT ? c->items[i].remedy : NULL;
}

const char *osb_caps_status_name(int status)
{
	switch (status) {
	case OSB_CAPS_OK: return "ok";
	case OSB_CAPS_UNAVAILABLE: return "unavailable";
	case OSB_CAPS_DEGRADED: return "degraded";
	default: return NULL;
	}
}

const char *osb_caps_bwrap_path(const osb_caps *c)
{
	return c ? c->bwrap_path : NULL;
}

const char *osb_caps_bwrap_version(const osb_caps *c)
{
	return c ? c->bwrap_version : NULL;
}

const char *osb_caps_seccomp_sha256(const osb_caps *c)
{
	return c && c->seccomp_sha256[0] ? c->seccomp_sha256 : NULL;
}

int osb_caps_landlock_abi(const osb_caps *c)
{
	return c ? c->landlock_abi : 0;
}

/* ---- early refusal ---------------------------------------------------------------- */

static int refuse(const why *w, osb_error *err)
{
	return osb_err_set(err, OSB_E_HOST, 0, "probe", "%s %s: %s; remedy: %s", w->id,
	                   osb_caps_status_name(w->status), w->reason,
	                   w->remedy ? w->remedy : "none known");
}

static enum mode mode_of(const osb_policy *p, const host_facts *h)
{
	return host_mode(p, h) == ID_ROOT ? M_ROOT : M_USERNS;
}

/* A reference to the cached probe, or NULL when this process has none. */
static osb_caps *cached(void)
{
	osb_caps *c;

	pthread_mutex_lock(&cache_lock);
	c = cache;
	if (c)
		__atomic_add_fetch(&c->refs, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&cache_lock);
	return c;
}

/* Does the host pass every check a launch of POLICY needs that costs no
 * sandbox: bwrap found, not setuid, its --help listing the options the plan
 * relies on, a user namespace for userns mode or root's capabilities for
 * root mode (the mode host_mode picks), Landlock when required? What only a
 * sandbox shows (loopback in a network namespace, the filter loading, a
 * security module confining bwrap) is left to the launch, which fails
 * closed with bwrap's or the init's own message. False sends the caller to
 * the full probe, whose items name the reason and the remedy. Pure. */
static bool launch_checks_pass(const osb_policy *p, const host_facts *h)
{
	if (h->bwrap_state != BWRAP_OK || !h->feat.bind_fd || !h->feat.remount_ro)
		return false;
	if (mode_of(p, h) == M_USERNS ? h->userns_errno != 0 || !h->feat.disable_userns
	                              : !h->root_caps)
		return false;
	return p->landlock != LL_REQUIRED || h->landlock_abi > 0;
}

/* Every launch is checked, but a fresh process (each `osb-isolate run`)
 * must not pay for the full probe, which starts sandboxes of its own: the
 * cached probe answers when there is one, else the cheap checks, and only
 * when one of those fails does the full probe run to name the reason. */
int caps_check_policy(const osb_policy *p, const host_facts *h, osb_error *err)
{
	osb_caps *c;
	needs nd;
	why w;
	int r = 0;

	if (!p || !h)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "usage", "no policy");
	c = cached();
	if (!c && launch_checks_pass(p, h))
		return 0;
	if (!c && (r = osb_caps_probe(&c, 0, err)) < 0)
		return r;
	nd = needs_of(p);
	if (policy_stopped(c, &nd, mode_of(p, h), &w))
		r = refuse(&w, err);
	osb_caps_free(c);
	return r;
}

/* ---- reports ---------------------------------------------------------------------- */

static json_object *jstr(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static json_object *json_items(const osb_caps *c)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < IT__COUNT; i++) {
		json_object *o = json_object_new_object();

		if (!o)
			continue;
		json_object_object_add(o, "id", jstr(item_names[i]));
		json_object_object_add(o, "status", jstr(osb_caps_status_name(c->items[i].status)));
		json_object_object_add(o, "reason", jstr(c->items[i].reason));
		json_object_object_add(o, "remedy", jstr(c->items[i].remedy));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *json_bwrap(const osb_caps *c)
{
	json_object *o = json_object_new_object(), *opts = json_object_new_object();

	if (!o || !opts) {
		json_object_put(o);
		json_object_put(opts);
		return NULL;
	}
	json_object_object_add(o, "path", jstr(c->bwrap_path));
	json_object_object_add(o, "version", jstr(c->bwrap_version));
	json_object_object_add(o, "setuid", json_object_new_boolean(c->bwrap_setuid));
	for (size_t i = 0; c->have_help && i < N_OPTS; i++)
		json_object_object_add(opts, bwrap_opts[i].name, json_object_new_boolean(c->opt[i]));
	json_object_object_add(o, "options", opts);
	return o;
}

static json_object *json_blockers(const osb_caps *c)
{
	json_object *a = json_object_new_array();
	char buf[64];

	for (size_t i = 0; a && i < 4; i++) {
		json_object *o = json_object_new_object();
		const char *name = i < 3 ? sysctl_names[i] : "seccomp";
		const char *value = i < 3 ? (c->sysctl[i] < 0 ? NULL :
		                             fmt(buf, sizeof(buf), "%ld", c->sysctl[i])) :
		                    fmt(buf, sizeof(buf), "%u filter%s", c->seccomp_filters,
		                        c->seccomp_filters == 1 ? "" : "s");

		if (!o)
			continue;
		json_object_object_add(o, "name", jstr(name));
		json_object_object_add(o, "value", jstr(value));
		json_object_object_add(o, "blocking",
		                       json_object_new_boolean(c->blocker && !strcmp(c->blocker, name)));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *json_mode(const osb_caps *c, enum mode m)
{
	json_object *o = json_object_new_object(), *runs = json_object_new_array();

	if (!o || !runs) {
		json_object_put(o);
		json_object_put(runs);
		return NULL;
	}
	for (size_t i = 0; i < c->n_profiles; i++)
		if (c->profiles[i].runs[m])
			json_object_array_add(runs, jstr(c->profiles[i].name));
	json_object_object_add(o, "usable", json_object_new_boolean(c->mode_ok[m]));
	json_object_object_add(o, "network_namespace", json_object_new_boolean(c->net_ok[m]));
	json_object_object_add(o, "blocked_by", c->mode_ok[m] ? NULL : jstr(c->mode_stop[m].id));
	json_object_object_add(o, "reason", c->mode_ok[m] ? NULL : jstr(c->mode_stop[m].reason));
	json_object_object_add(o, "profiles", runs);
	return o;
}

static json_object *json_host(const osb_caps *c)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "euid", json_object_new_int64((int64_t)c->euid));
	json_object_object_add(o, "root", json_object_new_boolean(c->euid == 0));
	json_object_object_add(o, "capabilities", jstr(c->captext));
	json_object_object_add(o, "seccomp_filters", json_object_new_int((int)c->seccomp_filters));
	json_object_object_add(o, "no_new_privs", json_object_new_boolean(c->no_new_privs));
	json_object_object_add(o, "uid_map", jstr(c->uid_map));
	json_object_object_add(o, "kernel", jstr(c->kernel));
	json_object_object_add(o, "landlock_abi", json_object_new_int(c->landlock_abi));
	return o;
}

/* The mode "identity auto" picks for this caller (the plan's own choice:
 * userns when the sandbox's bwrap can create a user namespace, else root
 * mode as root), or NULL when neither runs here. */
static const char *auto_mode(const osb_caps *c)
{
	if (c->host.userns_errno == 0 && c->mode_ok[M_USERNS])
		return mode_names[M_USERNS];
	if (c->euid == 0 && c->mode_ok[M_ROOT])
		return mode_names[M_ROOT];
	return NULL;
}

/* Who this caller's sandboxes are on the host (lib/hostid.h). */
static json_object *json_identity(const osb_caps *c)
{
	json_object *o = json_object_new_object(), *ids = json_object_new_object();

	if (!o || !ids) {
		json_object_put(o);
		json_object_put(ids);
		return NULL;
	}
	json_object_object_add(o, "auto_mode", jstr(auto_mode(c)));
	if (c->euid == 0) {
		json_object_object_add(ids, "kind", jstr(hostid_kind_name(HOSTID_ALLOCATED)));
		json_object_object_add(ids, "first", json_object_new_int64(HOSTID_RANGE_BASE));
		json_object_object_add(ids, "last",
		                       json_object_new_int64(HOSTID_RANGE_BASE + HOSTID_RANGE_SIZE - 1));
	} else {
		json_object_object_add(ids, "kind", jstr(hostid_kind_name(HOSTID_CALLER)));
		json_object_object_add(ids, "uid", json_object_new_int64((int64_t)c->euid));
		json_object_object_add(ids, "gid", json_object_new_int64((int64_t)c->host.egid));
	}
	json_object_object_add(o, "host_ids", ids);
	return o;
}

static json_object *json_profiles(const osb_caps *c, bool invalid)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < c->n_profiles; i++) {
		const profile *pr = &c->profiles[i];
		json_object *o;

		if (!invalid) {
			json_object_array_add(a, jstr(pr->name));
			continue;
		}
		if (!pr->error || !(o = json_object_new_object()))
			continue;
		json_object_object_add(o, "name", jstr(pr->name));
		json_object_object_add(o, "error", jstr(pr->error));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *json_strv(const strv *v)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < v->n; i++)
		json_object_array_add(a, jstr(v->v[i]));
	return a;
}

/* name -> the sha256 of the filter a run under it loads (null: none). */
static json_object *json_profile_hashes(const osb_caps *c)
{
	json_object *o = json_object_new_object();

	for (size_t i = 0; o && i < c->n_profiles; i++)
		if (!c->profiles[i].error)
			json_object_object_add(o, c->profiles[i].name,
			                       c->profiles[i].seccomp_sha256[0] ?
			                       jstr(c->profiles[i].seccomp_sha256) : NULL);
	return o;
}

/* name -> "host" or "none". */
static json_object *json_profile_net(const osb_caps *c)
{
	json_object *o = json_object_new_object();

	for (size_t i = 0; o && i < c->n_profiles; i++)
		if (!c->profiles[i].error)
			json_object_object_add(o, c->profiles[i].name,
			                       jstr(c->profiles[i].nd.netns ? "none" : "host"));
	return o;
}

/* The configured workspace roots, or ["/"]: any directory the path rules
 * of osb-isolate(1), "PATHS", allow. */
static json_object *json_roots(const osb_config *cfg)
{
	json_object *roots = json_object_new_array();
	size_t n = osb_config_workspace_root_count(cfg);

	for (size_t i = 0; roots && i < n; i++)
		json_object_array_add(roots, jstr(osb_config_workspace_root(cfg, i)));
	if (roots && n == 0)
		json_object_array_add(roots, jstr("/"));
	return roots;
}

char *osb_caps_json(const osb_caps *c)
{
	return osb_caps_json_config(c, NULL);
}

char *osb_caps_json_config(const osb_caps *c, const osb_config *cfg)
{
	json_object *o, *modes, *summary;
	char *out = NULL;

	if (!c || !(o = json_object_new_object()))
		return NULL;
	modes = json_object_new_array();
	summary = json_object_new_object();
	for (int m = 0; m < M__COUNT; m++) {
		if (c->mode_ok[m])
			json_object_array_add(modes, jstr(mode_names[m]));
		json_object_object_add(summary, mode_names[m], json_mode(c, (enum mode)m));
	}
	json_object_object_add(o, "available", json_object_new_boolean(osb_caps_available(c)));
	json_object_object_add(o, "isolator", jstr("bubblewrap"));
	json_object_object_add(o, "version", jstr(c->bwrap_version));
	json_object_object_add(o, "osb_version", jstr(OSB_ISOLATE_VERSION));
	json_object_object_add(o, "modes", modes);
	json_object_object_add(o, "policy_dir", jstr(c->policy_dir));
	json_object_object_add(o, "profiles", json_profiles(c, false));
	json_object_object_add(o, "profiles_invalid", json_profiles(c, true));
	/* A workspace may lie beneath these roots, except in the system
	 * directories and where others could redirect it (osb-isolate(1)). */
	json_object_object_add(o, "allowed_workspaces", json_roots(cfg));
	json_object_object_add(o, "allowed_extra_writable_prefixes", json_strv(&c->write_roots));
	/* No override of a policy's network: a caller (a request, run --net,
	 * osb_policy_set_network) turns the host network on only where the
	 * policy says "allow-caller network"; profiles_network says which
	 * policies share it. */
	json_object_object_add(o, "share_net_overridable", json_object_new_boolean(0));
	json_object_object_add(o, "profiles_network", json_profile_net(c));
	json_object_object_add(o, "seccomp_profile", jstr(seccomp_group_name()));
	json_object_object_add(o, "seccomp_profile_sha256", jstr(osb_caps_seccomp_sha256(c)));
	json_object_object_add(o, "profiles_seccomp_sha256", json_profile_hashes(c));
	json_object_object_add(o, "bwrap", json_bwrap(c));
	json_object_object_add(o, "items", json_items(c));
	json_object_object_add(o, "blockers", json_blockers(c));
	json_object_object_add(o, "summary", summary);
	json_object_object_add(o, "host", json_host(c));
	json_object_object_add(o, "identity", json_identity(c));
	json_object_object_add(o, "probe_ms", json_object_new_uint64(c->probe_ms));
	{
		const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
		                                               JSON_C_TO_STRING_NOSLASHESCAPE);
		out = s ? strdup(s) : NULL;
	}
	json_object_put(o);
	return out;
}

static void table_mode(FILE *f, const osb_caps *c, enum mode m)
{
	bool any = false;

	fprintf(f, "mode %-7s", mode_names[m]);
	if (!c->mode_ok[m]) {
		fprintf(f, "not usable: %s %s: %s\n", c->mode_stop[m].id,
		        osb_caps_status_name(c->mode_stop[m].status), c->mode_stop[m].reason);
		return;
	}
	fputs("usable", f);
	for (size_t i = 0; i < c->n_profiles; i++)
		if (c->profiles[i].runs[m]) {
			fprintf(f, "%s %s", any ? "," : "; runs", c->profiles[i].name);
			any = true;
		}
	if (!c->n_profiles)
		fprintf(f, "; no policies found in %s", c->policy_dir);
	else if (!any)
		fputs("; runs none of the shipped policies", f);
	fputc('\n', f);
	if (!c->net_ok[m])
		fprintf(f, "%-12s(not policies with \"network none\": %s)\n", "",
		        c->net_stop[m].reason);
}

char *osb_caps_table(const osb_caps *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!c || !(f = open_memstream(&buf, &len)))
		return NULL;
	fprintf(f, "osb-isolate %s capabilities: %s\n", OSB_ISOLATE_VERSION,
	        osb_caps_available(c) ? "available" : "NOT available");
	fprintf(f, "%-12s %-21s %s\n", "STATUS", "ITEM", "REASON");
	for (size_t i = 0; i < IT__COUNT; i++) {
		fprintf(f, "%-12s %-21s %s\n", osb_caps_status_name(c->items[i].status),
		        item_names[i], c->items[i].reason);
		if (c->items[i].remedy)
			fprintf(f, "%-34s remedy: %s\n", "", c->items[i].remedy);
	}
	fputc('\n', f);
	for (int m = 0; m < M__COUNT; m++)
		table_mode(f, c, (enum mode)m);
	fprintf(f, "identity auto runs as %s mode; ", auto_mode(c) ? auto_mode(c) : "no");
	if (c->euid == 0)
		fprintf(f, "host ids allocated per sandbox from %u-%u (no account's)\n",
		        HOSTID_RANGE_BASE, HOSTID_RANGE_BASE + HOSTID_RANGE_SIZE - 1);
	else
		fprintf(f, "host ids are the caller's, %u:%u\n", (unsigned)c->euid, (unsigned)c->host.egid);
	for (size_t i = 0; i < c->n_profiles; i++)
		if (c->profiles[i].error)
			fprintf(f, "policy %s does not load: %s\n", c->profiles[i].name,
			        c->profiles[i].error);
	fprintf(f, "seccomp profile %s sha256 %s\n", seccomp_group_name(),
	        c->seccomp_sha256[0] ? c->seccomp_sha256 : "(not built)");
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* ---- blocker attribution ------------------------------------------------------------ */

static void blame(const char **blocker, const char *name, char *reason, size_t rl,
                  const char *r, char *remedy, size_t ml, const char *m)
{
	*blocker = name;
	snprintf(reason, rl, "%s", r);
	snprintf(remedy, ml, "%s", m);
}

void caps_userns_blocker(const caps_userns_facts *f, const char **blocker,
                         char *reason, size_t rl, char *remedy, size_t ml)
{
	int e = f->unshare_errno;
	char r[900];

	*blocker = NULL;
	if (e == 0 && (f->map_errno == 0 || f->map_errno == CAPS_NOT_TRIED))
		blame(blocker, NULL, reason, rl,
		      fmt(r, sizeof(r), "this process can create a user namespace but bwrap cannot: %s",
		          f->bwrap_diag && *f->bwrap_diag ? f->bwrap_diag : "no message"),
		      remedy, ml, "a security module may confine bwrap itself (check dmesg for "
		      "AppArmor or SELinux denials naming bwrap), or OSB_ISOLATE_BWRAP names a "
		      "wrapper that fails");
	else if (e == ENOSPC && f->max_user_namespaces == 0)
		blame(blocker, "user.max_user_namespaces", reason, rl,
		      "user.max_user_namespaces is 0, so the kernel refuses every new user namespace "
		      "(unshare(CLONE_NEWUSER): No space left on device)",
		      remedy, ml, "allow them: sysctl -w user.max_user_namespaces=15000 (make it "
		      "permanent in /etc/sysctl.d/)");
	else if (e == ENOSPC)
		blame(blocker, "user.max_user_namespaces", reason, rl,
		      fmt(r, sizeof(r), "the limit of user namespaces (user.max_user_namespaces = %ld) "
		          "is reached (unshare(CLONE_NEWUSER): No space left on device)",
		          f->max_user_namespaces),
		      remedy, ml, "raise user.max_user_namespaces (sysctl -w "
		      "user.max_user_namespaces=N) or end processes that hold user namespaces");
	else if (e == EPERM && !f->root && f->unprivileged_userns_clone == 0)
		blame(blocker, "kernel.unprivileged_userns_clone", reason, rl,
		      "kernel.unprivileged_userns_clone is 0, so only root may create user namespaces "
		      "(unshare(CLONE_NEWUSER): Operation not permitted)",
		      remedy, ml, "allow them: sysctl -w kernel.unprivileged_userns_clone=1 (make it "
		      "permanent in /etc/sysctl.d/), or run as root with identity root");
	else if (f->apparmor_restrict == 1 &&
	         (e == EACCES || (e == 0 && (f->map_errno == EPERM || f->map_errno == EACCES))))
		blame(blocker, "kernel.apparmor_restrict_unprivileged_userns", reason, rl,
		      fmt(r, sizeof(r), "kernel.apparmor_restrict_unprivileged_userns is 1: AppArmor "
		          "gives unconfined programs no privileges in new user namespaces (%s: %s)",
		          e ? "unshare(CLONE_NEWUSER)" : f->map_file, strerror(e ? e : f->map_errno)),
		      remedy, ml, "give bwrap an AppArmor profile that allows user namespaces "
		      "(Ubuntu: the bwrap-userns-restrict profile, or a profile with \"userns,\"), or "
		      "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0");
	else if (e == EPERM && f->seccomp_filters > 0)
		blame(blocker, "seccomp", reason, rl,
		      fmt(r, sizeof(r), "a seccomp filter on this process (%u filter%s: an enclosing "
		          "sandbox or a container's seccomp profile) refuses unshare(CLONE_NEWUSER): "
		          "Operation not permitted", f->seccomp_filters,
		          f->seccomp_filters == 1 ? "" : "s"),
		      remedy, ml, "run osb-isolate outside the enclosing sandbox, or allow user "
		      "namespaces in the container's seccomp profile (Docker: --security-opt "
		      "seccomp=PROFILE); as root, identity root needs none");
	else if (e == EUSERS)
		blame(blocker, NULL, reason, rl,
		      "the nesting limit of user namespaces (32 levels) is reached "
		      "(unshare(CLONE_NEWUSER): Too many users)",
		      remedy, ml, "run osb-isolate from a less deeply nested sandbox");
	else if (e == 0)
		blame(blocker, NULL, reason, rl,
		      fmt(r, sizeof(r), "a new user namespace is created, but writing its %s fails: %s",
		          f->map_file ? f->map_file : "uid_map", strerror(f->map_errno)),
		      remedy, ml, "check dmesg for a security-module denial (AppArmor, SELinux) and "
		      "that /proc is mounted read-write");
	else
		blame(blocker, NULL, reason, rl,
		      fmt(r, sizeof(r), "unshare(CLONE_NEWUSER) fails: %s", strerror(e)),
		      remedy, ml, "check dmesg for a security-module denial and the sysctls "
		      "user.max_user_namespaces and kernel.unprivileged_userns_clone");
}

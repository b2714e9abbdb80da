/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* caps-probe.c — the attempts of the capabilities probe, and what they found.
 *
 * Every answer comes from a real attempt, never from a version number: bwrap
 * as the host facts found it (host.c) and its version; a sandbox with the
 * namespaces of a run in each identity mode (userns always, root when running
 * as root) and, only when one fails, smaller sandboxes in parallel to name
 * the step that failed; a forked child that creates a user namespace itself,
 * mounts overlayfs in it, enforces a Landlock ruleset and loads the very
 * seccomp filter a run loads; a child cgroup made and removed; every shipped
 * policy loaded and its filter built. Sysctls and /proc/self/status are read
 * only to *name* what blocked an attempt. Judging is caps-judge.c's.
 */
#include "caps-probe.h"
#include "caps-overlay.h"
#include "caps-child.h"
#include "cgroup.h"
#include "filter.h"
#include "fork-hint.h"
#include "mountinfo.h"
#include "proc.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/capability.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <linux/landlock.h>
#include <linux/seccomp.h>

#define STR_(x) #x
#define STR(x) STR_(x)

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
		c->captext = caps_dup(c, !t || strcmp(t, "=") == 0 ? "none" : t);
		cap_free(t);
		cap_free(caps);
	} else {
		c->captext = caps_dup(c, "unknown");
	}
	c->kernel = caps_dup(c, uname(&u) == 0 ? u.release : "");
	if (!c->uid_map)
		c->oom = true;
	for (size_t i = 0; i < 3; i++)
		c->sysctl[i] = read_sysctl(caps_sysctl_files[i]);
}

/* ---- bwrap: found, version, setuid, options -------------------------------- */

static void bwrap_not_found(osb_caps *c)
{
	const host_facts *h = &c->host;
	char reason[512];

	if (h->bwrap_from == BWRAP_FROM_CONFIG)
		caps_fmt(reason, sizeof(reason), "%s=%s is not executable: %s",
		    h->bwrap_origin ? h->bwrap_origin : "osb_set_program()", h->bwrap_tried,
		    strerror(h->bwrap_errno));
	else if (h->bwrap_from == BWRAP_FROM_BUILD)
		caps_fmt(reason, sizeof(reason), "the bwrap configured at build time, %s, is not "
		    "executable: %s", h->bwrap_tried, strerror(h->bwrap_errno));
	else
		caps_fmt(reason, sizeof(reason), "bwrap is not on PATH (%s)", h->bwrap_tried);
	caps_item_set(c, IT_BWRAP, OSB_CAPS_UNAVAILABLE, reason,
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
	char reason[1024], remedy[256], *out = NULL;

	if (h->bwrap_state == BWRAP_MISSING) {
		bwrap_not_found(c);
		return;
	}
	c->bwrap_path = caps_dup(c, h->bwrap);
	if (h->bwrap_state == BWRAP_SETUID) {
		c->bwrap_setuid = true;
		caps_item_set(c, IT_BWRAP, OSB_CAPS_UNAVAILABLE,
		         caps_fmt(reason, sizeof(reason), "%s is setuid or setgid: osb-isolate only runs "
		             "an unprivileged bwrap", h->bwrap),
		         "install a bwrap that is not setuid (Debian's bubblewrap package) or point "
		         "OSB_ISOLATE_BWRAP at one");
		return;
	}
	if (h->bwrap_state == BWRAP_NO_HELP && h->bwrap_errno == EAGAIN) {
		/* --help could not even be started: bwrap_why names the limit
		 * that stopped it, and the binary is not what is wrong. */
		c->at_limit = true;
		caps_item_set(c, IT_BWRAP, OSB_CAPS_UNAVAILABLE,
		         caps_fmt(reason, sizeof(reason), "%s", h->bwrap_why),
		         caps_fmt(remedy, sizeof(remedy), "%s; bwrap itself is fine",
		             fork_remedy(h->bwrap_errno)));
		return;
	}
	if (h->bwrap_state == BWRAP_NO_HELP) {
		/* bwrap_why names the binary and what went wrong. */
		caps_item_set(c, IT_BWRAP, OSB_CAPS_UNAVAILABLE,
		         caps_fmt(reason, sizeof(reason), "%s", h->bwrap_why),
		         "reinstall bubblewrap (apt-get install --reinstall bubblewrap) or point "
		         "OSB_ISOLATE_BWRAP at a working bwrap");
		return;
	}
	if (spawn_capture((const char *const[]){ h->bwrap, "--version", NULL }, 4096, &out,
	                  &err) < 0 && err.sys_errno == EAGAIN)
		c->at_limit = true;   /* its version unknown only for now */
	else if (out) {
		const char *v = strncmp(out, "bubblewrap ", 11) == 0 ? out + 11 : out;

		c->bwrap_version = first_line(v);
		if (!c->bwrap_version)
			c->oom = true;
		free(out);
	}
	for (size_t i = 0; i < CAPS_N_OPTS; i++)
		c->opt[i] = bwrap_help_lists(h->bwrap_help, caps_bwrap_opts[i].name);
	c->have_help = true;
	c->bwrap_usable = true;
	caps_item_set(c, IT_BWRAP, OSB_CAPS_OK,
	         caps_fmt(reason, sizeof(reason), "%s: bubblewrap %s, not setuid", h->bwrap,
	             c->bwrap_version && *c->bwrap_version ? c->bwrap_version : "(version unknown)"),
	         NULL);
}

/* ---- sandbox attempts -------------------------------------------------------- */

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
	if ((f & AF_DISABLE) && caps_has_opt(c, "--disable-userns"))
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
		if (caps_has_opt(c, "--die-with-parent"))
			PUSH("--die-with-parent");
		if (caps_has_opt(c, "--new-session"))
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
	if (spawn_with_fds((const char *const *)argv.v, envp, fds, 3, NULL, NULL, &a->pid, &a->pidfd,
	                   &err) < 0) {
		attempt_fail(a, err.message);   /* with fork_hint (spawn_with_fds) */
		a->at_limit = err.sys_errno == EAGAIN;
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
	/* bwrap could not clone its namespaces for want of a process: say
	 * which limit, as a launch does (lib/supervise.c). */
	a->at_limit = strcmp(line, BWRAP_CLONE_EAGAIN) == 0;
	if (*line)
		snprintf(a->diag, sizeof(a->diag), "%s%s", line, fork_hint(a->at_limit ? EAGAIN : 0));
	else
		snprintf(a->diag, sizeof(a->diag), "bwrap exited with status %d and no message",
		         WIFEXITED(a->status) ? WEXITSTATUS(a->status) : 128 + WTERMSIG(a->status));
}

/* Reap A. KILLED_WHY: it is killed first, and that is why it failed
 * (NULL: it ended by itself). */
static void attempt_finish(attempt *a, const char *killed_why)
{
	if (killed_why)
		helper_kill(a->pid, a->pidfd);
	if (pidfd_wait(a->pidfd, &a->status) < 0)
		a->status = W_EXITCODE(255, 0);
	a->done = true;
	a->killed = killed_why != NULL;
	a->ok = !killed_why && WIFEXITED(a->status) && WEXITSTATUS(a->status) == 0;
	if (killed_why)
		snprintf(a->diag, sizeof(a->diag), "%s", killed_why);
	else if (!a->ok && a->errfd >= 0)
		attempt_read_diag(a);
	else if (!a->ok)
		caps_no_answer(a->diag, sizeof(a->diag), a->status);
	close(a->pidfd);
	if (a->errfd >= 0)
		close(a->errfd);
	a->pidfd = a->errfd = -1;
}

/* Wait for every started, unfinished attempt in LIST. Whatever ends the
 * wait early (the deadline, a poll that fails) kills and reaps the rest:
 * no attempt outlives the probe, nor its pidfd and pipe in the caller. */
static void wait_all(attempt **list, size_t n, uint64_t deadline)
{
	char why[DIAG_MAX + 1];

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
			snprintf(why, sizeof(why), "the probe did not finish within %d s",
			         PROBE_TIMEOUT_MS / 1000);
			break;
		}
		int r = poll(pfd, (nfds_t)k, (int)(deadline - now));
		if (r < 0 && errno != EINTR) {
			snprintf(why, sizeof(why), "cannot wait for the probe sandbox: poll: %s",
			         strerror(errno));
			break;
		}
		for (size_t j = 0; r > 0 && j < k; j++)
			if (pfd[j].revents)
				attempt_finish(list[map[j]], NULL);
	}
	for (size_t i = 0; i < n; i++)
		if (list[i]->started && !list[i]->done)
			attempt_finish(list[i], why);
}

/* ---- the direct child: user namespace, overlayfs, Landlock, seccomp ----------- */


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
		r.map = caps_child_maps(in->uid_map, in->gid_map, &r.map_step);
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
		char why[DIAG_MAX + 1];

		e = errno;
		d->a.at_limit = pid < 0 && e == EAGAIN;
		snprintf(why, sizeof(why), "the probe child could not be started: %s: %s%s",
		         pid < 0 ? "fork" : "pidfd_open", strerror(e), fork_hint(pid < 0 ? e : 0));
		attempt_fail(&d->a, why);
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

const char *const caps_overlay_steps[5] = {
	"unshare(CLONE_NEWNS)", "making the mounts private", "mounting a tmpfs on /tmp",
	"creating the layer directories", "mounting overlayfs",
};
const char *const caps_map_files[3] = { "setgroups", "uid_map", "gid_map" };

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

/* ---- cgroup v2 delegation (in-process: mkdir and rmdir of a child group) ------- */

static int cgroup_dir(char **dir, char **mount_point)
{
	_cleanup_free_ char *self = NULL;
	struct mountinfo_table tb;
	struct mountinfo_entry fs;
	const char *path = NULL, *root, *why;
	int found;
	size_t rl;

	if (mountinfo_load("/proc/self/mountinfo", &tb) < 0)
		return -EIO;
	while ((found = mountinfo_next(&tb, &fs, &why)) > 0 && strcmp(fs.fstype, "cgroup2") != 0)
		;
	if (found <= 0) {
		mountinfo_free(&tb);
		return found == 0 ? -ENOENT : -EIO;
	}
	*mount_point = strdup(fs.target);
	root = fs.root;
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
	mountinfo_free(&tb);
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
		caps_item_set(c, IT_CGROUP, OSB_CAPS_UNAVAILABLE,
		         "no cgroup v2 hierarchy is mounted (cgroup v1 only)",
		         "boot with systemd.unified_cgroup_hierarchy=1, or mount cgroup2; osb-isolate "
		         "does not need cgroups for the shipped policies");
		return;
	}
	if (r < 0) {
		caps_item_set(c, IT_CGROUP, OSB_CAPS_UNAVAILABLE,
		         caps_fmt(reason, sizeof(reason), "this process's cgroup is not visible under the "
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
		caps_item_set(c, IT_CGROUP, OSB_CAPS_UNAVAILABLE,
		         caps_fmt(reason, sizeof(reason), "cgroup v2 at %s is not delegated to this process: "
		             "creating a group in %s fails: %s", mnt, dir, strerror(e)),
		         "run under a delegated cgroup (systemd-run --user --scope -p Delegate=yes, or "
		         "Delegate=yes in the service unit); osb-isolate does not need cgroups for the "
		         "shipped policies");
	else if (!controllers_include(dir, "memory", "pids"))
		caps_item_set(c, IT_CGROUP, OSB_CAPS_DEGRADED,
		         caps_fmt(reason, sizeof(reason), "cgroup v2 at %s is writable (a child group was "
		             "created in %s) but offers no memory and pids controllers", mnt, dir),
		         "enable the controllers for this cgroup (a unified hierarchy, or cgroup."
		         "subtree_control in the parent); osb-isolate does not need them for the "
		         "shipped policies");
	else
		caps_item_set(c, IT_CGROUP, OSB_CAPS_OK,
		         caps_fmt(reason, sizeof(reason), "cgroup v2 at %s is delegated: a child group was "
		             "created in %s, with the memory and pids controllers", mnt, dir), NULL);
}

/* ---- the cgroups that "limit memory|pids|cpu" need (cgroup.c's probe) ---------- */

/* "memory: cgroup v1 at DIR" for controller C, or its reason. */
static size_t ctrl_line(const cgroup_host *h, enum cg_ctrl c, char *buf, size_t size,
                        const char **why)
{
	const char *parent = NULL;
	int v = cgroup_host_ctrl(h, c, &parent, why);
	int w = v > 0 ? snprintf(buf, size, "%s%s: cgroup v%d in %s", c ? "; " : "",
	                         cgroup_ctrl_names[c], v, parent ? parent : "?")
	              : snprintf(buf, size, "%s%s: none", c ? "; " : "", cgroup_ctrl_names[c]);

	return w < 0 ? 0 : (size_t)w >= size ? size - 1 : (size_t)w;
}

/* The item from N_OK usable controllers, the per-controller REASON and the
 * first failure WHY, whose "...; remedy: ..." is split between the reason
 * and the remedy. */
static void caps_limits_set(osb_caps *c, int n_ok, char *reason, size_t size, const char *why)
{
	const char *remedy = why ? strstr(why, "; remedy: ") : NULL;
	size_t used = strlen(reason);

	if (n_ok == CG__NCTRL) {
		caps_item_set(c, IT_CGROUP_LIMITS, OSB_CAPS_OK, reason, NULL);
		return;
	}
	if (why && used + 3 < size)
		snprintf(reason + used, size - used, " (%.*s)",
		         (int)(remedy ? (size_t)(remedy - why) : strlen(why)), why);
	caps_item_set(c, IT_CGROUP_LIMITS, n_ok ? OSB_CAPS_DEGRADED : OSB_CAPS_UNAVAILABLE, reason,
	              remedy ? remedy + strlen("; remedy: ")
	                     : "run as root, or under a cgroup delegated to this user (systemd's "
	                       "Delegate=yes); policies without \"limit memory|pids|cpu\" do not "
	                       "need it");
}

static void probe_cgroup_limits(osb_caps *c)
{
	cgroup_host *h = NULL;
	osb_error err;
	char reason[1500];
	const char *first_why = NULL;
	size_t used = 0;
	int n_ok = 0;

	/* With the configured parents, as a launch given that configuration
	 * uses them (osb_caps_probe_config). */
	if (cgroup_host_probe(&(cgroup_probe_opts){ .parents = (const char *const *)c->cg_parents },
	                      &h, &err) < 0) {
		caps_item_set(c, IT_CGROUP_LIMITS, OSB_CAPS_UNAVAILABLE, err.message,
		              "mount cgroup v2 (or the v1 memory, pids and cpu hierarchies) with this "
		              "process's cgroup visible; policies without \"limit memory|pids|cpu\" do "
		              "not need it");
		return;
	}
	for (int k = 0; k < CG__NCTRL; k++) {
		const char *why = NULL;

		used += ctrl_line(h, (enum cg_ctrl)k, reason + used, sizeof(reason) - used, &why);
		if (cgroup_host_ctrl(h, (enum cg_ctrl)k, NULL, NULL) > 0)
			n_ok++;
		else if (!first_why)
			first_why = why && *why ? why : "no hierarchy carries it";
	}
	caps_limits_set(c, n_ok, reason, sizeof(reason), first_why);
	c->at_limit = c->at_limit || cgroup_host_at_limit(h);   /* not cached (caps.c) */
	cgroup_host_free(h);
}

/* ---- running the attempts ----------------------------------------------------- */

static bool mode_tried(const osb_caps *c, enum mode m)
{
	return c->bwrap_usable && (m == M_USERNS || c->euid == 0);
}

/* The full sandbox of each mode, started now and waited for later. */
static void start_attempts(osb_caps *c, caps_probe *p)
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

static void finish_attempts(osb_caps *c, caps_probe *p)
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

/* ---- shipped policies ------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The filter a run under PR loads, and the write roots it declares. */
static void profile_details(osb_caps *c, caps_profile *pr, const osb_policy *pol)
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
		pr->error = caps_dup(c, err.message);
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

	c->policy_dir = caps_dup(c, dir);
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
		caps_profile *pr = &c->profiles[c->n_profiles++];
		osb_error err = { 0 };
		osb_policy *pol = NULL;

		pr->name = names.v[i];
		names.v[i] = NULL;
		if (asprintf(&path, "%s/%s.policy", dir, pr->name) >= 0)
			pol = osb_policy_load(path, &err);
		else
			path = NULL;
		if (!pol) {
			pr->error = caps_dup(c, path ? err.message : "out of memory");
			continue;
		}
		pr->nd = caps_needs_of(pol);
		profile_details(c, pr, pol);
		osb_policy_free(pol);
	}
	strv_free(&names);
	if (c->write_roots.n > 1)
		qsort(c->write_roots.v, c->write_roots.n, sizeof(char *), cmp_str);
}


/* ---- the overlay workspace ---------------------------------------------------------- */

/* The init's overlay sequence in each mode this process can run. */
static void probe_overlay(osb_caps *c)
{
	for (int m = 0; m < M__COUNT; m++) {
		enum ovt_step step = OVT_USERNS;
		int status = 0;

		c->overlay_err[m] = CAPS_NOT_TRIED;
		if (m == M_USERNS || c->euid == 0)
			c->overlay_err[m] = caps_overlay_try(m == M_USERNS, &step, &status);
		c->overlay_step[m] = (int)step;
		c->overlay_status[m] = status;
	}
}

/* ---- the /proc cover ---------------------------------------------------------------- */

/* What bwrap and the init do for a cover, in each mode this process can
 * run. */
static void probe_cover(osb_caps *c)
{
	for (int m = 0; m < M__COUNT; m++) {
		c->cover[m] = (caps_cover_res){ CAPS_NOT_TRIED, CVT_FORK, "", 0 };
		if (m == M_USERNS || c->euid == 0)
			caps_cover_try(m == M_USERNS, &c->host.proc, &c->cover[m]);
	}
}

/* ---- the whole probe ----------------------------------------------------------- */

/* Did a process of the probe fail to be created (EAGAIN), or bwrap fail
 * to clone its namespaces for the same reason? Then the probe met a
 * process limit, not a missing feature. */
static bool met_process_limit(const osb_caps *c, const caps_probe *p)
{
	bool met = c->host.userns_errno == EAGAIN || p->d.a.at_limit;

	for (int m = 0; m < M__COUNT; m++) {
		met = met || caps_overlay_at_limit(c->overlay_err[m], c->overlay_step[m]) ||
		      caps_cover_at_limit(&c->cover[m]);
		for (int k = 0; k < A__COUNT; k++)
			met = met || p->a[m][k].at_limit;
	}
	return met;
}

void caps_probe_run(osb_caps *c, caps_probe *p)
{
	_cleanup_free_ char *bpf = NULL;
	direct_in in = { .landlock = false };

	p->limit_hint = fork_hint(EAGAIN);
	p->limit_remedy = fork_remedy(EAGAIN);
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
	probe_cgroup_limits(c);
	probe_overlay(c);
	probe_cover(c);
	finish_attempts(c, p);
	c->at_limit = c->at_limit || met_process_limit(c, p);
}

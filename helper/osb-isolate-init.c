/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* osb-isolate-init — the first program bwrap runs inside the sandbox, and the
 * last trusted code before the untrusted command. It runs with the sandbox's
 * identity, so it is kept short, is linked statically (it runs in any view
 * of the file system, /lib or not, and loads nothing at start) against no
 * library but libc, and shares no code with the library. It first checks
 * that the launcher speaks its protocol version (--proto), then audits the
 * writable mounts (lib/mountinfo.c reads the table) once it has made the
 * read-only rules inside a writable bind (helper/init-reprotect.c), mounts an overlay
 * workspace when asked (helper/init-overlay.c) and audits again, checks (or, in root
 * mode, switches) the uid/gid, verifies that no capability survived
 * (helper/init-caps.c), applies Landlock (helper/init-guard.c) and rlimits,
 * marks every inherited fd close-on-exec, loads the seccomp program last and
 * execs the command. Every failure is one line "E<stage>\t<errno>\t<message>\n" on the
 * error fd and exit status 125; "X" on that fd means the execve is next. With
 * --session-fd it serves a session instead (helper/broker.c) after the very
 * same steps, and writes "R" when it is ready. The contract is
 * lib/init-proto.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <dirent.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "init-proto.h"
#include "broker.h"
#include "exec-path.h"
#include "init-caps.h"
#include "init-guard.h"
#include "init-cover.h"
#include "init-reprotect.h"
#include "init-overlay.h"
#include "owner-proto.h"
#include "session-owner.h"
#include "broker-overlay.h"
#include "init-net.h"

/* The kernel's default overflow gid (kernel.overflowgid). */
#define OVERFLOW_GID 65534

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.1.0"
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

#define ID_MAX ((unsigned long long)UINT32_MAX - 1) /* (uid_t)-1 means "unchanged" */
#define STR_(x) #x
#define STR(x) STR_(x)
#define PROTO_STR STR(INIT_PROTO_VERSION)

static const struct {
	const char *name;
	int resource;
} rlimit_names[] = {
	{ "cpu", RLIMIT_CPU }, { "as", RLIMIT_AS }, { "nofile", RLIMIT_NOFILE },
	{ "fsize", RLIMIT_FSIZE }, { "nproc", RLIMIT_NPROC }, { "core", RLIMIT_CORE },
};
#define N_RLIMITS (sizeof(rlimit_names) / sizeof(rlimit_names[0]))

struct init_opts {
	int stderr_fd, seccomp_fd, session_fd, env_fd; /* -1: not given */
	const char *chdir;       /* --chdir: entered with the command's identity */
	char **env;              /* the command's environment (--env-fd), or NULL */
	bool has_idle, has_proto, has_deadline;
	uint64_t idle_ms, deadline_ms;
	bool has_uid, has_gid, switch_ids;
	uid_t uid;
	gid_t gid;
	const char *watch_full[INIT_MAX_WATCH]; /* --watch-full: sized tmpfs mounts */
	size_t n_watch;
	bool rl_set[N_RLIMITS];
	rlim_t rl_val[N_RLIMITS];
	char **cmd;
	struct guard_opts guard; /* mount audit and Landlock (init-guard.h) */
	struct overlay_opts overlay; /* --overlay (init-overlay.h) */
	struct net_opts net;     /* --net-relay (init-net.h) */
};

/* The report channel; -1 until --error-fd is parsed (reports then go to
 * stderr), so the launcher passes --error-fd first. */
static int error_fd = -1;

/* Tabs and newlines would break the line protocol; a command name may hold them. */
static void sanitize(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

__attribute__((format(printf, 3, 4), noreturn))
static void fail(const char *stage, int err, const char *fmt, ...)
{
	/* msg is well under line, so the line always ends in '\n'; one write
	 * of at most PIPE_BUF bytes to a pipe is atomic. */
	char msg[2048], line[PIPE_BUF];
	va_list ap;
	ssize_t w = 0;
	int n;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sanitize(msg);
	if (error_fd >= 0)
		n = snprintf(line, sizeof(line), "%c%s\t%d\t%s\n", INIT_MSG_ERROR, stage, err, msg);
	else
		n = snprintf(line, sizeof(line), "osb-isolate-init: %s: %s\n", stage, msg);
	if (n > 0) /* a failed report leaves only the exit status to say it */
		w = write(error_fd >= 0 ? error_fd : STDERR_FILENO, line, (size_t)n);
	(void)w;
	_exit(INIT_EXIT_FAILURE);
}

/* Strict decimal: digits only (no sign, no blanks), no overflow, nothing after
 * the number but `term`. Returns the position of `term`, or NULL. */
static const char *parse_num(const char *s, unsigned long long max, char term,
			     unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return NULL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != term || v > max)
		return NULL;
	*out = v;
	return end;
}

static void usage(void)
{
	fputs("Usage: osb-isolate-init [OPTIONS] -- CMD [ARG...]\n"
	      "       osb-isolate-init [OPTIONS] --session-fd N [--idle-ms MS]\n"
	      "Runs inside an osb-isolate sandbox: checks identity and capabilities,\n"
	      "applies limits and a seccomp program, then execs CMD (or serves a\n"
	      "session on the SOCK_SEQPACKET socket N).\n\n"
	      "  --error-fd N        report channel (pass it first); \"X\" before exec,\n"
	      "                      \"E<stage>\\t<errno>\\t<message>\\n\" on failure\n"
	      "  --proto N           the launcher's protocol version (required, before\n"
	      "                      any other option but --error-fd); must be "
	      PROTO_STR "\n"
	      "  --stderr-fd N       dup N onto stderr, then close N\n"
	      "  --seccomp-fd N      BPF program (struct sock_filter[]) to load last\n"
	      "  --rlimit NAME=V     NAME: cpu as nofile fsize nproc core; V: number or\n"
	      "                      \"unlimited\"; soft = hard = V\n"
	      "  --expect-uid U      refuse unless real, effective and saved uid are U\n"
	      "  --expect-gid G      same for the gids; no supplementary group but G\n"
	      "  --switch-ids U:G    root mode: drop the bounding set, switch to U:G\n"
	      "                      (both non-zero) and verify\n"
	      "  --audit-mounts      refuse unless every visible writable mount is one\n"
	      "                      of the following (bwrap's nodes and devpts beneath\n"
	      "                      a --dev-mount included)\n"
	      "  --writable PATH     a writable mount the plan expects (repeatable)\n"
	      "  --dev-mount PATH    a bwrap --dev mount the plan expects (repeatable)\n"
	      "  --expect-bind MAJ:MIN:INO:PATH  PATH is a bind of that inode (repeatable)\n"
	      "  --reprotect MAJ:MIN:INO:PATH  make PATH, inside a writable bind, read-only\n"
	      "                      and its parents there mount points (repeatable;\n"
	      "                      needs CAP_SYS_ADMIN)\n"
	      "  --overlay SIZE:user|trusted:DEST  mount the workspace bind at DEST as\n"
	      "                      the lower layer of an overlay (upper layer: a private\n"
	      "                      tmpfs of SIZE bytes)\n"
	      "  --overlay-layer PATH  with --overlay: the upper layer lies in the bind at\n"
	      "                      PATH (a persisted layer), released once mounted\n"
	      "  --landlock MODE     auto, required or off: confine writes with Landlock\n"
	      "  --landlock-rw PATH  writes allowed beneath PATH (repeatable)\n"
	      "  --env-fd N          the command's environment (NUL-separated entries),\n"
	      "                      applied only by the final execve\n"
	      "  --chdir DIR         enter DIR once the ids are final\n"
	      "  --proc-ro PATH      refuse unless PATH is read-only (repeatable)\n"
	      "  --proc-masked PATH  refuse unless PATH is /dev/null or an empty\n"
	      "                      read-only tmpfs (repeatable)\n"
	      "  --masked PATH       the same, for a host identity file (repeatable)\n"
	      "  --make-cover        make what --proc-ro, --proc-masked and --masked\n"
	      "                      name before auditing it (needs CAP_SYS_ADMIN)\n"
	      "  --session-fd N      serve exec requests on N instead of running CMD;\n"
	      "                      \"R\" on the error fd when ready\n"
	      "  --idle-ms MS        session mode: exit 124 after MS ms without work\n"
	      "  --help, --version\n"
	      "Any failure exits 125.\n", stdout);
}

static int parse_fd(const char *opt, const char *v, int min)
{
	unsigned long long n;

	if (!parse_num(v, INT_MAX, '\0', &n) || n < (unsigned long long)min)
		fail("init:args", EINVAL, "%s: \"%s\" is not a file descriptor number >= %d",
		     opt, v, min);
	return (int)n;
}

static unsigned id_of(const char *opt, const char *v, char term, const char **end)
{
	unsigned long long n;

	*end = parse_num(v, ID_MAX, term, &n);
	if (!*end)
		fail("init:args", EINVAL, "%s: \"%s\" is not a valid id", opt, v);
	return (unsigned)n;
}

static void parse_rlimit(struct init_opts *o, const char *v)
{
	const char *eq = strchr(v, '=');
	unsigned long long n;

	for (size_t i = 0; eq && i < N_RLIMITS; i++) {
		if (strlen(rlimit_names[i].name) != (size_t)(eq - v) ||
		    strncmp(v, rlimit_names[i].name, (size_t)(eq - v)) != 0)
			continue;
		if (o->rl_set[i])
			fail("init:args", EINVAL, "--rlimit %s given twice", rlimit_names[i].name);
		if (strcmp(eq + 1, "unlimited") == 0)
			o->rl_val[i] = RLIM_INFINITY;
		else if (parse_num(eq + 1, (unsigned long long)RLIM_INFINITY - 1, '\0', &n))
			o->rl_val[i] = (rlim_t)n;
		else
			fail("init:args", EINVAL, "--rlimit %s: value must be a number or \"unlimited\"", v);
		o->rl_set[i] = true;
		return;
	}
	fail("init:args", EINVAL, "--rlimit \"%s\": expected NAME=VALUE with NAME one of "
	     "cpu, as, nofile, fsize, nproc, core", v);
}

/* The launcher and the init are installed apart; one of another build would
 * misread this one's options or reports (lib/init-proto.h, --proto). */
__attribute__((noreturn))
static void proto_mismatch(const char *theirs)
{
	fail("init:args", EPROTO, "init protocol mismatch: the launcher speaks protocol %s, this "
	     "init implements protocol %d; install the library and osb-isolate-init from the "
	     "same build", theirs, INIT_PROTO_VERSION);
}

static void check_proto(const char *v)
{
	unsigned long long n;
	char theirs[64];

	if (parse_num(v, UINT32_MAX, '\0', &n)) {
		if (n == INIT_PROTO_VERSION)
			return;
		snprintf(theirs, sizeof(theirs), "%llu", n);
	} else {
		snprintf(theirs, sizeof(theirs), "\"%.40s\"", v);
	}
	proto_mismatch(theirs);
}

static void set_error_fd(int fd)
{
	if (error_fd >= 0)
		fail("init:args", EINVAL, "--error-fd given twice");
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0)
		fail("init:args", errno, "--error-fd %d: %s", fd, strerror(errno));
	error_fd = fd;
}

static void parse_switch_ids(struct init_opts *o, const char *v)
{
	const char *end;

	if (o->switch_ids)
		fail("init:args", EINVAL, "--switch-ids given twice");
	o->uid = id_of("--switch-ids", v, ':', &end);
	o->gid = id_of("--switch-ids", end + 1, '\0', &end);
	if (o->uid == 0 || o->gid == 0)
		fail("init:args", EINVAL, "--switch-ids %s: the command never runs as uid 0 or gid 0", v);
	o->switch_ids = true;
}

static void guard_or_fail(const char *stage, int r, const struct guard_error *ge)
{
	if (r < 0)
		fail(stage, ge->err, "%s", ge->msg);
}

/* The guard's options; v is NULL for a flag. False when name is not one. */
static bool guard_option(struct init_opts *o, const char *name, const char *v)
{
	struct guard_error ge;
	int r = v ? guard_parse_option(&o->guard, name, v, &ge)
		  : guard_parse_flag(&o->guard, name, &ge);

	guard_or_fail("init:args", r, &ge);
	return r > 0;
}

static bool overlay_option(struct init_opts *o, const char *name, const char *v)
{
	struct guard_error ge;
	int r = overlay_parse(&o->overlay, name, v, &ge);

	guard_or_fail("init:args", r, &ge);
	return r > 0;
}

static bool net_option(struct init_opts *o, const char *name, const char *v)
{
	struct guard_error ge;
	int r = net_parse(&o->net, name, v, &ge);

	guard_or_fail("init:args", r, &ge);
	return r > 0;
}

/* The overlay's lower layer is the workspace bind the audit verifies first,
 * and so is a persisted upper layer. */
static void check_overlay_opts(struct init_opts *o)
{
	bool bound = false;

	if (!o->overlay.dest) {
		if (o->overlay.layer)
			fail("init:args", EINVAL, "--overlay-layer needs --overlay");
		return;
	}
	for (size_t i = 0; i < o->guard.n_binds; i++)
		bound = bound || strcmp(o->guard.binds[i].path, o->overlay.dest) == 0;
	if (!o->guard.audit_mounts || !bound)
		fail("init:args", EINVAL, "--overlay %s: its lower layer must be a bind the audit "
		     "verifies: pass --audit-mounts and --expect-bind for it", o->overlay.dest);
	if (!o->overlay.layer)
		return;
	bound = false;
	for (size_t i = 0; i < o->guard.n_binds; i++)
		bound = bound || strcmp(o->guard.binds[i].path, o->overlay.layer) == 0;
	if (!bound)
		fail("init:args", EINVAL, "--overlay-layer %s: the layer must be a bind the audit "
		     "verifies: pass --expect-bind for it", o->overlay.layer);
	/* Expected by the first audit; released before the second. */
	o->guard.layer = o->overlay.layer;
}

/* One option, as "--name VALUE" or "--name=VALUE"; repeats are refused. */
static void add_watch(struct init_opts *o, const char *v)
{
	if (v[0] != '/')
		fail("init:args", EINVAL, "--watch-full: \"%s\" is not an absolute path", v);
	for (size_t k = 0; k < o->n_watch; k++)
		if (strcmp(o->watch_full[k], v) == 0)
			fail("init:args", EINVAL, "--watch-full: \"%s\" given twice", v);
	if (o->n_watch == INIT_MAX_WATCH)
		fail("init:args", EINVAL, "--watch-full: more than %d paths", INIT_MAX_WATCH);
	o->watch_full[o->n_watch++] = v;
}

static void parse_one(struct init_opts *o, int argc, char **argv, int *i)
{
	char name[32];
	const char *arg = argv[*i], *eq = strchr(arg, '='), *v;
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	const char *end;

	if (strncmp(arg, "--", 2) != 0 || len >= sizeof(name))
		fail("init:args", EINVAL, "unexpected argument \"%s\" (options end with --, then the command)", arg);
	memcpy(name, arg, len);
	name[len] = '\0';
	if (!eq && (strcmp(name, "--help") == 0 || strcmp(name, "--version") == 0)) {
		if (strcmp(name, "--help") == 0)
			usage();
		else
			puts("osb-isolate-init " PACKAGE_VERSION " (init protocol " PROTO_STR ")");
		exit(fflush(stdout) == 0 ? 0 : INIT_EXIT_FAILURE);
	}
	/* Nothing else is read before the version is known to be ours. */
	if (!o->has_proto && strcmp(name, "--proto") != 0 && strcmp(name, "--error-fd") != 0)
		proto_mismatch("0 (no --proto before its other options)");
	if (!eq && guard_option(o, name, NULL))
		return;
	if (eq)
		v = eq + 1;
	else if (*i + 1 < argc)
		v = argv[++*i];
	else
		fail("init:args", EINVAL, "option %s needs a value", name);
	if (strcmp(name, "--proto") == 0 && !o->has_proto) {
		check_proto(v);
		o->has_proto = true;
		return;
	}
	if (guard_option(o, name, v))
		return;
	if (overlay_option(o, name, v))
		return;
	if (net_option(o, name, v))
		return;

	if (strcmp(name, "--error-fd") == 0)
		set_error_fd(parse_fd(name, v, 3));
	else if (strcmp(name, "--stderr-fd") == 0 && o->stderr_fd < 0)
		o->stderr_fd = parse_fd(name, v, 0);
	else if (strcmp(name, "--seccomp-fd") == 0 && o->seccomp_fd < 0)
		o->seccomp_fd = parse_fd(name, v, 3);
	else if (strcmp(name, "--rlimit") == 0)
		parse_rlimit(o, v);
	else if (strcmp(name, "--expect-uid") == 0 && !o->has_uid) {
		o->uid = id_of(name, v, '\0', &end);
		o->has_uid = true;
	} else if (strcmp(name, "--expect-gid") == 0 && !o->has_gid) {
		o->gid = id_of(name, v, '\0', &end);
		o->has_gid = true;
	} else if (strcmp(name, "--switch-ids") == 0)
		parse_switch_ids(o, v);
	else if (strcmp(name, "--session-fd") == 0 && o->session_fd < 0)
		o->session_fd = parse_fd(name, v, 3);
	else if (strcmp(name, "--env-fd") == 0 && o->env_fd < 0)
		o->env_fd = parse_fd(name, v, 3);
	else if (strcmp(name, "--chdir") == 0 && !o->chdir && v[0] == '/')
		o->chdir = v;
	else if (strcmp(name, "--idle-ms") == 0 && !o->has_idle) {
		unsigned long long n;

		if (!parse_num(v, UINT64_MAX - 1, '\0', &n))
			fail("init:args", EINVAL, "--idle-ms: \"%s\" is not a number of milliseconds", v);
		o->idle_ms = n;
		o->has_idle = true;
	} else if (strcmp(name, "--deadline-ms") == 0 && !o->has_deadline) {
		unsigned long long n;

		if (!parse_num(v, 100ULL * 24 * 3600 * 1000, '\0', &n) || n == 0)
			fail("init:args", EINVAL, "--deadline-ms: \"%s\" is not a number of milliseconds", v);
		o->deadline_ms = n;
		o->has_deadline = true;
	} else if (strcmp(name, "--watch-full") == 0)
		add_watch(o, v);
	else
		fail("init:args", EINVAL, "unknown or repeated option \"%s\"", name);
}

static void parse_args(int argc, char **argv, struct init_opts *o)
{
	struct guard_error ge;
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		parse_one(o, argc, argv, &i);
	if (!o->has_proto)
		proto_mismatch("0 (no --proto)");
	if (o->session_fd >= 0) {
		if (i + 1 < argc)
			fail("init:args", EINVAL, "--session-fd serves a session; no command may follow");
	} else if (i + 1 >= argc)
		fail("init:args", EINVAL, "no command: usage is osb-isolate-init [OPTIONS] -- CMD [ARG...]");
	else
		o->cmd = &argv[i + 1];
	if (o->has_idle && o->session_fd < 0)
		fail("init:args", EINVAL, "--idle-ms is only valid with --session-fd");
	if (o->has_deadline && o->session_fd >= 0)
		fail("init:args", EINVAL, "--deadline-ms is for a command; a session's commands have "
		     "their own");
	if (o->env_fd >= 0 && o->session_fd >= 0)
		fail("init:args", EINVAL, "--env-fd is for a command; a session's commands bring "
		     "their environment with each request");
	guard_or_fail("init:args", guard_check_opts(&o->guard, &ge), &ge);
	check_overlay_opts(o);
	if (o->switch_ids && (o->has_uid || o->has_gid))
		fail("init:args", EINVAL, "--switch-ids already names the ids; do not combine it with --expect-uid/--expect-gid");
	if ((o->stderr_fd >= 0 && (o->stderr_fd == error_fd || o->stderr_fd == o->seccomp_fd ||
	                           o->stderr_fd == o->session_fd)) ||
	    (o->seccomp_fd >= 0 && (o->seccomp_fd == error_fd || o->seccomp_fd == o->session_fd)) ||
	    (o->session_fd >= 0 && o->session_fd == error_fd))
		fail("init:args", EINVAL, "--error-fd, --stderr-fd, --seccomp-fd and --session-fd must "
		     "be different fds");
}

static void route_stderr(int fd)
{
	if (fd == STDERR_FILENO)
		return;
	if (dup2(fd, STDERR_FILENO) < 0)
		fail("init:args", errno, "--stderr-fd %d: %s", fd, strerror(errno));
	if (fd > STDERR_FILENO)
		close(fd);
}

/* Root mode: the bounding set must go while CAP_SETPCAP is still held, i.e.
 * before the uid switch clears the permitted set. */
static void drop_bounding_set(void)
{
	unsigned count = caps_count();

	for (unsigned c = 0; c < count; c++) {
		int r;

		if (caps_bound(c) == 1 && (r = caps_drop_bound(c)) < 0) {
			char name[24];

			fail("init:caps", -r, "cannot drop %s from the bounding set: %s (the init needs "
			     "CAP_SETPCAP to switch ids)", caps_name(c, name, sizeof(name)),
			     strerror(-r));
		}
	}
}

static void switch_ids(uid_t uid, gid_t gid)
{
	int r;

	drop_bounding_set();
	if (setgroups(0, NULL) != 0 || setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0)
		fail("init:identity", errno, "cannot switch to uid %u gid %u: %s (the init needs "
		     "CAP_SETUID and CAP_SETGID to switch ids)", (unsigned)uid, (unsigned)gid,
		     strerror(errno));
	/* setresuid clears effective and permitted but not inheritable; lowering
	 * every set needs no privilege and also empties the ambient set. */
	if ((r = caps_clear()) < 0)
		fail("init:caps", -r, "cannot clear capabilities after switching ids: %s",
		     strerror(-r));
}

/* The mount steps of the init (the cover, the read-only rules, the overlay) need a mount
 * namespace of its own: with bwrap's --disable-userns the init sits in a
 * user namespace nested below the one that owns bwrap's, where its
 * CAP_SYS_ADMIN does not reach. */
static bool mounts_own(const struct init_opts *o)
{
	return o->guard.make_cover || o->guard.n_reprotect || o->overlay.dest;
}

static void own_mount_ns(const struct init_opts *o)
{
	if (!mounts_own(o) || unshare(CLONE_NEWNS) == 0)
		return;
	if (o->guard.make_cover)
		fail("init:mounts", errno, "cannot cover the host's files: unshare(CLONE_NEWNS): %s "
		     "(the init needs CAP_SYS_ADMIN for this step)", strerror(errno));
	if (o->guard.n_reprotect)
		fail("init:mounts", errno, "cannot re-protect the read-only paths of the workspace: "
		     "unshare(CLONE_NEWNS): %s (the init needs CAP_SYS_ADMIN for this step)",
		     strerror(errno));
	fail("init:overlay", errno, "cannot mount the overlay workspace: unshare(CLONE_NEWNS): %s "
	     "(the init needs CAP_SYS_ADMIN for this step)", strerror(errno));
}

/* Stage "init:overlay": mounted once the binds are verified, and audited
 * again. */
static void mount_overlay(struct init_opts *o)
{
	struct guard_error ge;

	if (!o->overlay.dest)
		return;
	guard_or_fail("init:overlay", overlay_mount(&o->overlay, &ge), &ge);
	/* Only a session's broker serves the upper layer (broker-overlay.c). */
	if (o->session_fd < 0) {
		close(o->overlay.upper_fd);
		o->overlay.upper_fd = -1;
	}
	o->guard.overlay = o->overlay.dest;
	o->guard.layer = NULL;   /* released by overlay_mount: no longer expected */
	guard_or_fail("init:overlay", guard_audit_overlay(&o->guard, &ge), &ge);
}

/* In user namespace mode the capabilities granted for the mount steps go
 * once they are done, bounding set included (root mode drops them when
 * switching ids); check_caps then verifies every set, the bounding set
 * too. */
static void drop_step_caps(const struct init_opts *o)
{
	int r;

	if (!mounts_own(o) || o->switch_ids)
		return;
	drop_bounding_set();
	if ((r = caps_clear()) < 0)
		fail("init:caps", -r, "cannot drop the capabilities of the mount steps: %s",
		     strerror(-r));
}

static void check_identity(const struct init_opts *o)
{
	uid_t r, e, s;
	gid_t rg, eg, sg, groups[64];
	int n;

	if (getresuid(&r, &e, &s) != 0 || getresgid(&rg, &eg, &sg) != 0)
		fail("init:identity", errno, "cannot read ids: %s", strerror(errno));
	if (o->has_uid && (r != o->uid || e != o->uid || s != o->uid))
		fail("init:identity", EPERM, "running as uid %u/%u/%u (real/effective/saved), "
		     "expected %u", (unsigned)r, (unsigned)e, (unsigned)s, (unsigned)o->uid);
	if (o->has_gid && (rg != o->gid || eg != o->gid || sg != o->gid))
		fail("init:identity", EPERM, "running as gid %u/%u/%u (real/effective/saved), "
		     "expected %u", (unsigned)rg, (unsigned)eg, (unsigned)sg, (unsigned)o->gid);
	if (!o->has_gid)
		return;
	n = getgroups(sizeof(groups) / sizeof(groups[0]), groups);
	if (n < 0)
		fail("init:identity", errno, "cannot read supplementary groups: %s (more than %zu?)",
		     strerror(errno), sizeof(groups) / sizeof(groups[0]));
	/* In a user namespace the caller's supplementary groups cannot be
	 * dropped (setgroups is denied there); unmapped ones show as the
	 * overflow gid. Any other visible group is one we did not expect. */
	for (int i = 0; i < n; i++)
		if (groups[i] != o->gid && groups[i] != OVERFLOW_GID)
			fail("init:identity", EPERM, "supplementary group %u is present, only gid %u "
			     "(and unmapped host groups, shown as %u) is allowed",
			     (unsigned)groups[i], (unsigned)o->gid, (unsigned)OVERFLOW_GID);
}

/* Bounded append; a truncated list still names the first offenders. */
__attribute__((format(printf, 3, 4)))
static void append(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	if (len >= size - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

/* "; SET: name,name" for the capabilities IS_SET says are in SET. */
static void append_caps(char *buf, size_t size, const char *set, unsigned count,
			int (*is_set)(unsigned))
{
	bool first = true;
	char name[24];

	for (unsigned c = 0; c < count; c++) {
		if (is_set(c) != 1)
			continue;
		append(buf, size, first ? "; %s: " : "%s", first ? set : ",");
		append(buf, size, "%s", caps_name(c, name, sizeof(name)));
		first = false;
	}
}

/* Every set must be empty: effective, permitted and inheritable (named in
 * cap_to_text(3)'s form, as capsh prints them), ambient, and in root mode
 * the bounding set. */
static void check_caps(bool bounding)
{
	char list[2048] = "";
	unsigned count = caps_count();
	struct caps_sets s;
	int r = caps_read(&s);

	if (r < 0)
		fail("init:caps", -r, "cannot read capabilities: %s", strerror(-r));
	if (s.eff | s.prm | s.inh) {
		char text[1536];

		caps_text(&s, count, text, sizeof(text));
		append(list, sizeof(list), "; process: %s", text);
	}
	append_caps(list, sizeof(list), "ambient", count, caps_ambient);
	if (bounding)
		append_caps(list, sizeof(list), "bounding", count, caps_bound);
	if (list[0])
		fail("init:caps", EPERM, "capabilities are not empty (%s); the command must start "
		     "with none: drop them before the init runs", list + 2);
}

static void format_rlim(rlim_t v, char *buf, size_t size)
{
	if (v == RLIM_INFINITY)
		snprintf(buf, size, "unlimited");
	else
		snprintf(buf, size, "%llu", (unsigned long long)v);
}

static void apply_rlimits(const struct init_opts *o)
{
	for (size_t i = 0; i < N_RLIMITS; i++) {
		struct rlimit rl = { o->rl_val[i], o->rl_val[i] }, cur = { 0, 0 };
		char want[32], hard[32];
		int e;

		if (!o->rl_set[i] || setrlimit(rlimit_names[i].resource, &rl) == 0)
			continue;
		e = errno;
		format_rlim(o->rl_val[i], want, sizeof(want));
		if (e == EPERM && getrlimit(rlimit_names[i].resource, &cur) == 0) {
			format_rlim(cur.rlim_max, hard, sizeof(hard));
			fail("init:rlimits", e, "cannot set the %s limit to %s: the current hard limit is "
			     "%s and raising it needs CAP_SYS_RESOURCE; ask for at most %s",
			     rlimit_names[i].name, want, hard, hard);
		}
		fail("init:rlimits", e, "cannot set the %s limit to %s: %s", rlimit_names[i].name,
		     want, strerror(e));
	}
}

/* The RLIMIT_NPROC apply_rlimits set from the policy's "limit nproc", in
 * *RL, or NULL when the policy sets none: the broker names it when a
 * command cannot be forked (helper/broker-limit.c). */
static const struct rlimit *policy_nproc(const struct init_opts *o, struct rlimit *rl)
{
	for (size_t i = 0; i < N_RLIMITS; i++)
		if (rlimit_names[i].resource == RLIMIT_NPROC && o->rl_set[i]) {
			*rl = (struct rlimit){ o->rl_val[i], o->rl_val[i] };
			return rl;
		}
	return NULL;
}

/* The program is read whole into memory and its fd closed, so nothing the
 * command can reach refers to it; the kernel copies it again when loading. */
static void read_filter(int fd, struct sock_fprog *prog)
{
	struct sock_filter *insns;
	struct stat st;
	size_t size, off = 0;

	if (fstat(fd, &st) != 0)
		fail("init:seccomp", errno, "--seccomp-fd %d: %s", fd, strerror(errno));
	if (!S_ISREG(st.st_mode))
		fail("init:seccomp", EINVAL, "--seccomp-fd %d is not a regular file (expected a memfd)", fd);
	if (st.st_size == 0)
		fail("init:seccomp", EINVAL, "the seccomp program on fd %d is empty; an empty filter "
		     "is a launch failure, never \"no filter\"", fd);
	if (st.st_size % (off_t)sizeof(struct sock_filter) != 0 ||
	    st.st_size / (off_t)sizeof(struct sock_filter) > BPF_MAXINSNS)
		fail("init:seccomp", EINVAL, "the seccomp program on fd %d has %lld bytes: not a whole "
		     "number of BPF instructions, or more than %d", fd, (long long)st.st_size,
		     BPF_MAXINSNS);
	size = (size_t)st.st_size;
	insns = malloc(size);
	if (!insns)
		fail("init:seccomp", ENOMEM, "out of memory reading the seccomp program");
	while (off < size) {
		ssize_t n = pread(fd, (char *)insns + off, size - off, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			fail("init:seccomp", n < 0 ? errno : EIO, "cannot read the seccomp program on "
			     "fd %d: %s", fd, n < 0 ? strerror(errno) : "file shrank while reading");
		off += (size_t)n;
	}
	close(fd);
	prog->len = (unsigned short)(size / sizeof(struct sock_filter));
	prog->filter = insns;
}

/* The command's environment: NUL-terminated "NAME=VALUE" entries in a
 * memfd. The init itself runs with the fixed environment the launcher gave
 * bwrap; this one is applied only by the final execve, so a loader variable
 * meant for the command never reaches the init (lib/plan.c, plan_env). */
static char **read_env(int fd)
{
	struct stat st;
	char *buf, **env;
	size_t size, n = 0, off = 0;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
	    st.st_size > (off_t)ENV_MAX_BYTES)
		fail("init:env", errno ? errno : EINVAL, "--env-fd %d is not a readable memfd of at "
		     "most %u bytes", fd, ENV_MAX_BYTES);
	size = (size_t)st.st_size;
	buf = malloc(size + 1);
	if (!buf)
		fail("init:env", ENOMEM, "out of memory reading the environment");
	while (off < size) {
		ssize_t r = pread(fd, buf + off, size - off, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			fail("init:env", r < 0 ? errno : EIO, "cannot read the environment on fd %d", fd);
		off += (size_t)r;
	}
	buf[size] = '\0';
	close(fd);
	if (size > 0 && buf[size - 1] != '\0')
		fail("init:env", EINVAL, "the environment on fd %d does not end with NUL", fd);
	for (size_t i = 0; i < size; i++)
		n += buf[i] == '\0';
	env = calloc(n + 1, sizeof(*env));
	if (!env)
		fail("init:env", ENOMEM, "out of memory reading the environment");
	for (size_t i = 0, k = 0; i < size; i += strlen(buf + i) + 1) {
		if (!strchr(buf + i, '='))
			fail("init:env", EINVAL, "environment entry %zu has no '='", k);
		env[k++] = buf + i;
	}
	return env;
}

static void enter_dir(const char *dir)
{
	if (dir && chdir(dir) != 0)
		fail("init:chdir", errno, "cannot enter the working directory %s as the sandbox's "
		     "user: %s", dir, strerror(errno));
}

/* Fallback for kernels without close_range(CLOSE_RANGE_CLOEXEC) (< 5.11). */
static void mark_fds_cloexec_proc(void)
{
	int dfd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *de;

	if (!d)
		fail("init:fds", errno, "cannot list /proc/self/fd to close inherited fds: %s",
		     strerror(errno));
	while ((errno = 0, de = readdir(d)) != NULL) {
		unsigned long long fd;

		if (!parse_num(de->d_name, INT_MAX, '\0', &fd) || fd < 3 || (int)fd == dfd)
			continue;
		if (fcntl((int)fd, F_SETFD, FD_CLOEXEC) != 0)
			fail("init:fds", errno, "cannot mark fd %llu close-on-exec: %s", fd, strerror(errno));
	}
	if (errno != 0)
		fail("init:fds", errno, "cannot list /proc/self/fd: %s", strerror(errno));
	closedir(d);
}

static void mark_fds_cloexec(void)
{
	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return;
	if (errno != ENOSYS && errno != EINVAL)
		fail("init:fds", errno, "close_range: %s", strerror(errno));
	mark_fds_cloexec_proc();
}

static void load_filter(const struct sock_fprog *prog)
{
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, prog, 0, 0) != 0)
		fail("init:seccomp", errno, "the kernel refused the seccomp program (%u instructions): %s",
		     (unsigned)prog->len, strerror(errno));
}

/* A terminal on stdin can only be one made for the command (`run --tty`,
 * helper/relay.c): make it the controlling terminal, so that ^C and window
 * changes reach the command as signals. bwrap's --new-session made its pid
 * 1 the session leader; a session of our own may take the terminal.
 * Without it the command still has the terminal as fds: not fatal. */
static void take_terminal(void)
{
	struct termios t;

	if (tcgetattr(STDIN_FILENO, &t) != 0 || setsid() < 0)
		return;
	if (ioctl(STDIN_FILENO, TIOCSCTTY, 0) < 0) {
		/* someone else's controlling terminal: the fds are enough */
	}
}

/* When main() began (CLOCK_MONOTONIC, ns): sent with "X", so that the
 * launcher can tell bwrap's setup from the init's own (osb_result_timing_us). */
static uint64_t start_ns;

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* "X" and the start time on the report channel; when it is the launcher's
 * socket, wait for its "G": it checks, from the host, the ids the kernel
 * stamped on the "X" (lib/supervise.c, host_ids_ok) and answers only if
 * they are the planned ones. */
static void report_exec(void)
{
	char x[32];
	int type = 0, xlen = snprintf(x, sizeof(x), "%c%llu", INIT_MSG_EXEC,
	                               (unsigned long long)start_ns);
	socklen_t len = sizeof(type);
	char go = 0;
	ssize_t n;

	/* Without the "X" the launcher would believe the command never started. */
	if (error_fd < 0)
		return;
	if (write(error_fd, x, (size_t)xlen) != (ssize_t)xlen)
		fail("exec", errno, "cannot report the exec on fd %d: %s", error_fd, strerror(errno));
	if (getsockopt(error_fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0)
		return;   /* a pipe (tests run the init by hand): nobody to ask */
	do
		n = read(error_fd, &go, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1 || go != INIT_MSG_GO)
		_exit(INIT_EXIT_FAILURE);   /* refused (the launcher says why) or gone */
}

__attribute__((noreturn))
static void exec_command(char **cmd, char **env)
{
	extern char **environ;
	int e;

	take_terminal();
	report_exec();
	/* execvp searches the command's own PATH: the environment it gets. */
	if (env)
		environ = env;
	execvp(cmd[0], cmd);
	e = exec_path_errno(cmd[0], environ, errno);
	fail("exec", e, "%s: %s", cmd[0], strerror(e));
}

static volatile sig_atomic_t deadline_hit;

static void on_deadline(int sig)
{
	(void)sig;
	deadline_hit = 1;
}

/* The wall limit, kept by pid 1 itself (--deadline-ms): a timer of the
 * kernel's, so that it holds while the launcher outside is stopped or
 * starved. A handler without SA_RESTART, so that waitpid returns. */
static void arm_deadline(uint64_t ms)
{
	struct sigaction sa;
	struct itimerval it = { { 0, 0 }, { (time_t)(ms / 1000), (suseconds_t)(ms % 1000) * 1000 } };

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_deadline;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) != 0 || setitimer(ITIMER_REAL, &it, NULL) != 0)
		_exit(INIT_EXIT_FAILURE);
}

/* Say why (the launcher reports a timeout), then kill everything but pid 1,
 * which goes on reaping until the command is gone. */
static void deadline_kill(void)
{
	const char t = INIT_MSG_DEADLINE;

	deadline_hit = 0;
	if (error_fd >= 0 && write(error_fd, &t, 1) != 1)
		error_fd = -1;
	kill(-1, SIGKILL);
}

/* Close every fd but KEEP (-1: none). */
static void close_all_but(int keep)
{
	if (keep > 0 && syscall(SYS_close_range, 0U, (unsigned)keep - 1, 0U) == 0 &&
	    syscall(SYS_close_range, (unsigned)keep + 1, ~0U, 0U) == 0)
		return;
	if (keep < 0 && syscall(SYS_close_range, 0U, ~0U, 0U) == 0)
		return;
	for (int fd = 0; fd < 1024; fd++)
		if (fd != keep)
			close(fd);
}

/* As the sandbox's pid 1 (bwrap --as-pid-1), the init forks the command
 * and reaps every orphan, running as the sandbox's own ids (bwrap's reaper
 * would keep root's uid in root mode). It exits with the command's status,
 * 128+N for a signal as bwrap reports it, which ends the pid namespace and
 * every process left in it. With DEADLINE_MS, it also keeps the wall limit. */
/* The sized tmpfs mounts (--watch-full) with no block or inode left once
 * the command has ended, one INIT_MSG_FULL message each. Best effort: the
 * launcher may be gone, and the exit status matters more. */
static void report_full(const struct init_opts *o)
{
	char msg[1 + 4096];

	for (size_t k = 0; k < o->n_watch && error_fd >= 0; k++) {
		struct statvfs sv;
		int n;

		if (statvfs(o->watch_full[k], &sv) != 0 || (sv.f_bavail > 0 && sv.f_favail > 0))
			continue;
		n = snprintf(msg, sizeof(msg), "%c%s", INIT_MSG_FULL, o->watch_full[k]);
		if (n > 0 && (size_t)n < sizeof(msg) && write(error_fd, msg, (size_t)n) < 0)
			return;
	}
}

/* The launcher's end of the report channel is its lifeline: it closes when
 * the launcher's process ends, however it ends. bwrap's --die-with-parent
 * does not cover a root-mode sandbox: the init has switched to host ids that
 * bwrap's monitor, which has dropped its capabilities, may not signal, so
 * the kernel's parent-death SIGKILL from it is refused. Without this the
 * sandbox would outlive a SIGKILLed caller, running as host ids whose lock
 * died with the caller. SIGIO says the socket changed; poll says whether
 * the peer is gone (a "G" for the command arriving is not that). */
static volatile sig_atomic_t lifeline_signal;

static void on_lifeline(int sig)
{
	(void)sig;
	lifeline_signal = 1;
}

static bool lifeline_gone(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLRDHUP };

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLRDHUP | POLLERR));
}

/* Watch FD when it is the launcher's socket (a pipe: the init run by hand,
 * nobody to outlive). Returns whether it is watched. */
static bool arm_lifeline(int fd)
{
	struct sigaction sa;
	int type = 0, fl;
	socklen_t len = sizeof(type);

	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0)
		return false;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_lifeline;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGIO, &sa, NULL) != 0 || fcntl(fd, F_SETOWN, getpid()) != 0 ||
	    (fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl | O_ASYNC) != 0)
		_exit(INIT_EXIT_FAILURE);
	return true;
}

/* The launcher is gone: end everything but pid 1, which reaps and exits. */
static void lifeline_check(int fd, bool watched)
{
	lifeline_signal = 0;
	if (watched && lifeline_gone(fd))
		kill(-1, SIGKILL);
}

__attribute__((noreturn))
static void run_as_pid1(const struct init_opts *o)
{
	uint64_t deadline_ms = o->has_deadline ? o->deadline_ms : 0;
	pid_t child;
	bool watched;
	int st;

	/* Not dumpable, as a session's broker (helper/broker.c): the command
	 * runs as the init's own uid, and in a user namespace (where no id
	 * switch clears the flag) it could otherwise open /proc/1/mem for
	 * writing and speak for the init on the report channel (its exit
	 * status, its messages). The command's execve makes it dumpable again. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
		fail("init:caps", errno, "cannot make the init not dumpable: %s", strerror(errno));
	child = fork();
	if (child < 0)
		fail("init:fork", errno, "cannot start the command: fork: %s", strerror(errno));
	if (child == 0)
		exec_command(o->cmd, o->env);
	/* Hold nothing of the command's: its pipes reach EOF when it and its
	 * own children close them. The report channel stays for the deadline,
	 * the full tmpfs report and as the launcher's lifeline. */
	close_all_but(error_fd);
	watched = arm_lifeline(error_fd);
	if (deadline_ms)
		arm_deadline(deadline_ms);
	/* Gone already, before SIGIO was armed. */
	lifeline_check(error_fd, watched);
	for (;;) {
		pid_t w = waitpid(-1, &st, 0);

		if (w < 0 && errno == EINTR && deadline_hit)
			deadline_kill();
		if (w < 0 && errno == EINTR && lifeline_signal)
			lifeline_check(error_fd, watched);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			_exit(INIT_EXIT_FAILURE);
		if (w == child) {
			report_full(o);
			_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		}
	}
}

/* Session mode: the checks are done and the filter is loaded; say so, close
 * the report channel (nothing the broker starts may write to it) and serve. */
__attribute__((noreturn))
static void serve_session(const struct init_opts *o)
{
	const char r = INIT_MSG_READY;
	struct rlimit nproc;
	int type = 0;
	socklen_t len = sizeof(type);

	errno = 0;
	if (getsockopt(o->session_fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 ||
	    type != SOCK_SEQPACKET)
		fail("init:args", errno ? errno : EINVAL, "--session-fd %d is not a SOCK_SEQPACKET "
		     "socket", o->session_fd);
	if (error_fd >= 0) {
		if (write(error_fd, &r, 1) != 1)
			fail("init:session", errno, "cannot report readiness on fd %d: %s", error_fd,
			     strerror(errno));
		close(error_fd);
		error_fd = -1;
	}
	layer_init(o->overlay.dest ? o->overlay.upper_fd : -1);
	exit(broker_serve(o->session_fd, o->has_idle ? o->idle_ms : 0, o->watch_full, o->n_watch,
	                  policy_nproc(o, &nproc)));
}

int main(int argc, char **argv)
{
	struct init_opts o = { .stderr_fd = -1, .seccomp_fd = -1, .session_fd = -1, .env_fd = -1,
	                       .net = { .ctl_fd = -1 }, .overlay = { .upper_fd = -1 } };
	struct sock_fprog prog = { 0, NULL };
	struct guard_error ge;

	/* On the host, as a session's owner (lib/owner-proto.h), not in a sandbox. */
	if (argc > 1 && strcmp(argv[1], OWNER_ARG) == 0)
		session_owner_main(argc, argv);
	start_ns = monotonic_ns();
	parse_args(argc, argv, &o);
	if (o.stderr_fd >= 0)
		route_stderr(o.stderr_fd);
	if (o.env_fd >= 0)
		o.env = read_env(o.env_fd);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		fail("init:caps", errno, "cannot set no_new_privs: %s", strerror(errno));
	own_mount_ns(&o);
	guard_or_fail("init:mounts", cover_make(&o.guard, &ge), &ge);
	guard_or_fail("init:mounts", reprotect_make(&o.guard, &ge), &ge);
	guard_or_fail("init:mounts", guard_audit_mounts(&o.guard, &ge), &ge);
	mount_overlay(&o);
	drop_step_caps(&o);
	if (o.switch_ids) {
		switch_ids(o.uid, o.gid);
		o.has_uid = o.has_gid = true; /* verify the switch like an expectation */
	}
	check_identity(&o);
	check_caps(o.switch_ids || mounts_own(&o));
	guard_or_fail("init:proc", guard_audit_proc(&o.guard, &ge), &ge);
	enter_dir(o.chdir);
	guard_or_fail("init:landlock", guard_landlock(&o.guard, &ge), &ge);
	apply_rlimits(&o);
	if (o.seccomp_fd >= 0)
		read_filter(o.seccomp_fd, &prog);
	mark_fds_cloexec();
	if (prog.filter)
		load_filter(&prog);
	/* The relay is forked as restricted as the command (init-net.h). */
	if (o.net.ctl_fd >= 0)
		guard_or_fail("init:net", net_relay_start(&o.net, &ge), &ge);
	if (o.session_fd >= 0)
		serve_session(&o);
	if (getpid() == 1)
		run_as_pid1(&o);
	exec_command(o.cmd, o.env);
}

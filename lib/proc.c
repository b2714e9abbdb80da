/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* proc.c — fd hygiene, spawning and pidfds (docs/ARCHITECTURE.md,
 * "Processes and fds").
 *
 * Children are started the way posix_spawn starts them (clone with
 * CLONE_VM|CLONE_VFORK), so that a multi-threaded caller, such as a Go
 * daemon, runs no code of ours between fork and exec but raw system calls;
 * unlike posix_spawn, the child can also take other host credentials. The fd
 * table of the child is built from scratch: every source is first duplicated
 * above the highest target (close-on-exec), then dup3'd onto its target,
 * then everything from NFDS up is closed. Helper processes get a fixed
 * environment, never the caller's nor the sandboxed command's: a loader
 * variable (LD_PRELOAD, LD_LIBRARY_PATH, GCONV_PATH...) must never reach
 * bwrap on the host or the init before its filter.
 */
#include "proc.h"
#include "fork-hint.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

const char *const spawn_fixed_env[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };

int pidfd_open_cloexec(pid_t pid)
{
	/* pidfds are always close-on-exec. */
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

int helper_kill(pid_t pid, int pidfd)
{
	/* PID is an unreaped child of ours and leads its group: neither the
	 * pid nor the group id can have been reused. Anything else is a bug
	 * that must not reach kill(): -0 is the caller's own group, -1 every
	 * process it may signal. */
	if (pid <= 1 || pidfd < 0)
		return -EINVAL;
	kill(-pid, SIGKILL);
	return pidfd_kill(pidfd, SIGKILL);
}

int pidfd_kill(int pidfd, int sig)
{
	return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
}

int pidfd_wait(int pidfd, int *status)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	for (;;) {
		if (waitid((idtype_t)P_PIDFD, (id_t)pidfd, &si, WEXITED) == 0)
			break;
		if (errno != EINTR)
			return -errno;
	}
	if (si.si_code == CLD_EXITED)
		*status = W_EXITCODE(si.si_status, 0);
	else
		*status = si.si_status & 0x7f;   /* killed or dumped: the signal */
	return 0;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int memfd_with_data(const char *name, const void *data, size_t len)
{
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	const char *p = data;

	if (fd < 0)
		return -errno;
	while (len > 0) {
		ssize_t w = write(fd, p, len);

		if (w < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			close(fd);
			return -e;
		}
		p += w;
		len -= (size_t)w;
	}
	if (lseek(fd, 0, SEEK_SET) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

/* ---- the child, between clone and execve ------------------------------------
 *
 * The child shares the caller's memory (CLONE_VM) and the caller's thread
 * waits until it has exec'd or died (CLONE_VFORK), as glibc's posix_spawn
 * does: no page table is copied, whatever the size of the caller (a Go
 * daemon). Only raw system calls run here: no libc state (locks, malloc,
 * errno of another thread) may be touched, and nothing of glibc's setxid
 * machinery, which would signal the caller's other threads. posix_spawn
 * cannot change credentials; this child can, so a root caller's bwrap can
 * start as the sandbox's own unprivileged host ids (docs/ARCHITECTURE.md, "Identity").
 */

typedef struct child_args {
	const char *path;
	char *const *argv, *const *envp;
	const int *high;          /* fds to dup2 onto 0..nfds-1 */
	size_t nfds;
	const spawn_cred *cred;   /* NULL: keep the caller's */
	const spawn_sandbox *sb;  /* NULL: a helper, not a sandbox */
	volatile int err;         /* errno of the step that failed, read after the child is gone */
	volatile int step;
} child_args;

/* Not instrumented by ASan: it runs on a stack ASan does not know and ends
 * in execve or _exit. */
__attribute__((no_sanitize("address"), noinline))
static int child_fail(child_args *a, int step)
{
	a->step = step;
	a->err = errno;
	syscall(SYS_exit, 127);
	return 127;
}

/* Enter the cgroup and volunteer for the OOM killer: first, while the child
 * still has the caller's credentials (the cgroup's owner; raising
 * oom_score_adj needs none). A vfork child's oom_score_adj is its own: the
 * kernel does not copy it to the caller that shares its memory. */
__attribute__((no_sanitize("address")))
static int sandbox_steps(child_args *a)
{
	static const char adj[] = "1000";
	long fd, w;

	for (size_t i = 0; i < a->sb->n_cg_fds; i++)
		if (syscall(SYS_write, a->sb->cg_fds[i], "0", 1) != 1)
			return child_fail(a, SPAWN_STEP_CGROUP);
	if (!a->sb->oom_first)
		return 0;
	fd = syscall(SYS_openat, AT_FDCWD, "/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return child_fail(a, SPAWN_STEP_OOM);
	w = syscall(SYS_write, (int)fd, adj, sizeof(adj) - 1);
	syscall(SYS_close, (int)fd);
	if (w != (long)sizeof(adj) - 1)
		return child_fail(a, SPAWN_STEP_OOM);
	return 0;
}

__attribute__((no_sanitize("address")))
static int spawn_child(void *arg)
{
	child_args *a = arg;
	/* The kernel's struct sigaction: handler, flags, restorer, mask; all
	 * zero is SIG_DFL. */
	const unsigned long dfl[4] = { 0, 0, 0, 0 };
	const uint64_t empty = 0;

	/* Default dispositions first: a handler of the caller must never run
	 * on this stack. Then an empty mask (the parent blocked everything). */
	for (int sig = 1; sig <= 64; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			syscall(SYS_rt_sigaction, sig, dfl, NULL, sizeof(uint64_t));
	if (a->sb && sandbox_steps(a) != 0)
		return 127;
	/* A helper leads a process group of its own, so that ending it at its
	 * deadline (helper_kill) ends whatever it started as well. */
	if (!a->sb && syscall(SYS_setpgid, 0, 0) != 0)
		return child_fail(a, SPAWN_STEP_GROUP);
	if (a->cred) {
		/* Groups, then gid, then uid: each later step needs the privilege
		 * the next one drops. */
		if (syscall(SYS_setgroups, 0, NULL) != 0)
			return child_fail(a, SPAWN_STEP_GROUPS);
		if (syscall(SYS_setresgid, a->cred->gid, a->cred->gid, a->cred->gid) != 0)
			return child_fail(a, SPAWN_STEP_GID);
		if (syscall(SYS_setresuid, a->cred->uid, a->cred->uid, a->cred->uid) != 0)
			return child_fail(a, SPAWN_STEP_UID);
	}
	for (size_t i = 0; i < a->nfds; i++)
		if (syscall(SYS_dup3, a->high[i], (int)i, 0) < 0)
			return child_fail(a, SPAWN_STEP_FDS);
	if (syscall(SYS_close_range, (unsigned)a->nfds, ~0U, 0) != 0)
		return child_fail(a, SPAWN_STEP_CLOSE);
	if (syscall(SYS_rt_sigprocmask, SIG_SETMASK, &empty, NULL, sizeof(empty)) != 0)
		return child_fail(a, SPAWN_STEP_SIGNALS);
	syscall(SYS_execve, a->path, a->argv, a->envp);
	return child_fail(a, SPAWN_STEP_EXEC);
}

static const char *step_name(int step)
{
	switch (step) {
	case SPAWN_STEP_SIGNALS: return "resetting signals";
	case SPAWN_STEP_CGROUP: return "entering the sandbox's cgroup (cgroup.procs)";
	case SPAWN_STEP_OOM: return "raising its oom_score_adj to 1000 (/proc/self/oom_score_adj)";
	case SPAWN_STEP_GROUP: return "making a process group of its own";
	case SPAWN_STEP_GROUPS: return "dropping supplementary groups";
	case SPAWN_STEP_GID: return "switching to the sandbox's host gid";
	case SPAWN_STEP_UID: return "switching to the sandbox's host uid";
	case SPAWN_STEP_FDS: return "placing its fds";
	case SPAWN_STEP_CLOSE: return "closing inherited fds (close_range, Linux 5.9)";
	default: return "exec";
	}
}

#define CHILD_STACK (64u * 1024u)

/* clone FN's child with every signal blocked in this thread (restored after),
 * so that no handler of the caller runs in the child before it resets them.
 * CLONE_PIDFD hands back a pidfd for exactly this child. */
static int clone_child(int (*fn)(void *), void *a, pid_t *pid, int *pidfd)
{
	sigset_t all, old;
	/* The child's stack; the caller's thread waits until it is done. */
	char *stack = aligned_alloc(64, CHILD_STACK);
	int e;

	if (!stack)
		return -ENOMEM;
	*pidfd = -1;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	*pid = clone(fn, stack + CHILD_STACK,
	             CLONE_VM | CLONE_VFORK | CLONE_PIDFD | SIGCHLD, a, pidfd);
	e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	free(stack);
	return *pid < 0 ? -e : 0;
}

/* The user-namespace probe's child: take CRED (if any), then try. */
__attribute__((no_sanitize("address")))
static int userns_child(void *arg)
{
	child_args *a = arg;

	if (a->cred && (syscall(SYS_setgroups, 0, NULL) != 0 ||
	                syscall(SYS_setresgid, a->cred->gid, a->cred->gid, a->cred->gid) != 0 ||
	                syscall(SYS_setresuid, a->cred->uid, a->cred->uid, a->cred->uid) != 0))
		return child_fail(a, SPAWN_STEP_UID);
	if (syscall(SYS_unshare, CLONE_NEWUSER) != 0)
		return child_fail(a, SPAWN_STEP_EXEC);
	syscall(SYS_exit, 0);
	return 0;
}

int spawn_probe_userns(const spawn_cred *cred)
{
	child_args a = { .cred = cred };
	pid_t pid;
	int pidfd, status, r = clone_child(userns_child, &a, &pid, &pidfd);

	if (r < 0)
		return r;
	pidfd_wait(pidfd, &status);
	close(pidfd);
	return a.step ? -(a.err ? a.err : EPERM) : 0;
}

/* -1 with *F filled. */
static int failed(spawn_failure *f, spawn_step step, int sys_errno)
{
	f->step = step;
	f->sys_errno = sys_errno;
	return -1;
}

int spawn_start(const char *const *argv, const char *const *envp, const int *fds, size_t nfds,
                const spawn_sandbox *sb, const spawn_cred *cred, pid_t *pid, int *pidfd,
                spawn_failure *f)
{
	static const char *const no_env[] = { NULL };
	child_args a = {
		.path = argv[0], .argv = (char *const *)argv,
		.envp = (char *const *)(envp ? envp : no_env), .nfds = nfds, .cred = cred, .sb = sb,
	};
	int *high = calloc(nfds ? nfds : 1, sizeof(*high));
	size_t made = 0;
	int r, ret = 0, status;

	*f = (spawn_failure){ .fd = -1 };
	*pidfd = -1;
	if (!high)
		return failed(f, SPAWN_STEP_NOMEM, ENOMEM);
	if (cred && (cred->uid == 0 || cred->gid == 0)) {
		free(high);
		return failed(f, SPAWN_STEP_ROOT_CRED, EINVAL);
	}
	/* Above every target, so that no dup3 onto a target clobbers a source
	 * not yet placed. */
	for (; made < nfds; made++) {
		high[made] = fcntl(fds[made], F_DUPFD_CLOEXEC, (int)nfds);
		if (high[made] < 0) {
			ret = failed(f, SPAWN_STEP_DUP, errno);
			f->fd = fds[made];
			f->slot = made;
			goto out;
		}
	}
	a.high = high;
	r = clone_child(spawn_child, &a, pid, pidfd);
	if (r < 0) {
		ret = failed(f, SPAWN_STEP_CLONE, -r);
		goto out;
	}
	if (a.step) {
		/* The child is gone (it failed before or at execve): reap it. */
		pidfd_wait(*pidfd, &status);
		close(*pidfd);
		*pidfd = -1;
		ret = failed(f, (spawn_step)a.step, a.err);
	}
out:
	for (size_t i = 0; i < made; i++)
		close(high[i]);
	free(high);
	return ret;
}

int spawn_failure_code(const spawn_failure *f)
{
	switch (f->step) {
	case SPAWN_STEP_NOMEM: return OSB_E_NOMEM;
	case SPAWN_STEP_ROOT_CRED: return OSB_E_INTERNAL;
	case SPAWN_STEP_UID: case SPAWN_STEP_GID: case SPAWN_STEP_CGROUP: return OSB_E_HOST;
	default: return OSB_E_SPAWN;
	}
}

const char *spawn_failure_stage(const spawn_failure *f)
{
	return f->step == SPAWN_STEP_CGROUP ? "cgroup" : "spawn";
}

bool spawn_failure_whole(const spawn_failure *f)
{
	return f->step == SPAWN_STEP_NOMEM || f->step == SPAWN_STEP_ROOT_CRED ||
	       f->step == SPAWN_STEP_DUP;
}

void spawn_failure_text(const spawn_failure *f, const char *prog, char *buf, size_t size)
{
	const char *why = strerror(f->sys_errno);

	switch (f->step) {
	case SPAWN_STEP_NOMEM: snprintf(buf, size, "out of memory"); break;
	case SPAWN_STEP_ROOT_CRED:
		snprintf(buf, size, "refusing to start %s as host uid/gid 0", prog);
		break;
	case SPAWN_STEP_DUP:
		snprintf(buf, size, "cannot duplicate fd %d for slot %zu: %s", f->fd, f->slot, why);
		break;
	case SPAWN_STEP_CLONE: snprintf(buf, size, "clone: %s", why); break;
	case SPAWN_STEP_EXEC: snprintf(buf, size, "%s", why); break;
	default: snprintf(buf, size, "%s failed: %s", step_name(f->step), why); break;
	}
}

int spawn_with_fds(const char *const *argv, const char *const *envp, const int *fds,
                   size_t nfds, const spawn_sandbox *sb, const spawn_cred *cred, pid_t *pid,
                   int *pidfd, osb_error *err)
{
	spawn_failure f;
	char what[1024];

	if (spawn_start(argv, envp, fds, nfds, sb, cred, pid, pidfd, &f) == 0)
		return 0;
	spawn_failure_text(&f, argv[0], what, sizeof(what));
	if (spawn_failure_whole(&f))
		return osb_err_set(err, spawn_failure_code(&f), f.sys_errno, spawn_failure_stage(&f),
		                   "%s", what);
	/* A clone that fails names the limit it met: the program is not what
	 * is wrong (bwrap --help at the process limit is no broken bwrap). */
	return osb_err_set(err, spawn_failure_code(&f), f.sys_errno, spawn_failure_stage(&f),
	                   "cannot start %s: %s%s", argv[0], what,
	                   f.step == SPAWN_STEP_CLONE ? fork_hint(f.sys_errno) : "");
}

/* Read RD into BUF (capacity *CAP, at most MAX bytes) until EOF or DEADLINE.
 * 0 at EOF, -ETIMEDOUT at the deadline, -EFBIG over MAX, -ENOMEM, -errno. */
static int capture_read(int rd, size_t max, uint64_t deadline, char **buf, size_t *cap,
                        size_t *n)
{
	for (;;) {
		struct pollfd p = { .fd = rd, .events = POLLIN };
		uint64_t now = now_ms();
		ssize_t got;
		int r;

		if (*n + 1 >= *cap) {
			char *nb;

			if (*cap > max)
				return -EFBIG;
			if (!(nb = realloc(*buf, *cap * 2)))
				return -ENOMEM;
			*buf = nb;
			*cap *= 2;
		}
		if (now >= deadline)
			return -ETIMEDOUT;
		r = poll(&p, 1, (int)(deadline - now));
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r <= 0)
			continue;
		got = read(rd, *buf + *n, *cap - *n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got == 0)
			return 0;
		*n += (size_t)got;
	}
}

/* Wait for PIDFD until DEADLINE; 0 with *STATUS, or -ETIMEDOUT. */
static int capture_wait(int pidfd, uint64_t deadline, int *status)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };
	uint64_t now;

	while ((now = now_ms()) < deadline) {
		if (poll(&p, 1, (int)(deadline - now)) > 0)
			return pidfd_wait(pidfd, status);
	}
	return -ETIMEDOUT;
}

/* What went wrong with a helper that did not exit 0, in words. */
static int capture_fail(const char *const *argv, int r, int status, size_t max, osb_error *err)
{
	const char *arg = argv[1] ? argv[1] : "";
	char how[48];

	if (r == -ETIMEDOUT)
		return osb_err_set(err, OSB_E_SPAWN, ETIMEDOUT, "spawn",
		                   "%s %s did not finish within %d s (killed)", argv[0], arg,
		                   SPAWN_CAPTURE_TIMEOUT_MS / 1000);
	if (r == -EFBIG)
		return osb_err_set(err, OSB_E_SPAWN, EFBIG, "spawn",
		                   "%s %s printed more than %zu bytes (killed)", argv[0], arg, max);
	if (r == -ENOMEM)
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "spawn", "out of memory");
	if (r < 0)
		return osb_err_set(err, OSB_E_IO, -r, "spawn", "%s %s: reading its output: %s",
		                   argv[0], arg, strerror(-r));
	return osb_err_set(err, OSB_E_SPAWN, 0, "spawn", "%s %s %s", argv[0], arg,
	                   wait_status_text(status, how, sizeof(how)));
}

int spawn_capture(const char *const *argv, size_t max, char **out, osb_error *err)
{
	_cleanup_close_ int devnull = -1, rd = -1, wr = -1, pidfd = -1;
	uint64_t deadline = now_ms() + SPAWN_CAPTURE_TIMEOUT_MS;
	int pipefd[2], fds[3], status = 0, r;
	size_t n = 0, cap = 4096;
	_cleanup_free_ char *buf = NULL;
	pid_t pid;

	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull < 0)
		return osb_err_set(err, OSB_E_IO, errno, "spawn", "/dev/null: %s", strerror(errno));
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return osb_err_set(err, OSB_E_IO, errno, "spawn", "pipe: %s", strerror(errno));
	rd = pipefd[0];
	wr = pipefd[1];
	fds[0] = devnull; fds[1] = wr; fds[2] = devnull;
	r = spawn_with_fds(argv, spawn_fixed_env, fds, 3, NULL, NULL, &pid, &pidfd, err);
	if (r < 0)
		return r;
	close(wr);
	wr = -1;
	if (!(buf = malloc(cap)))
		r = -ENOMEM;
	else
		r = capture_read(rd, max, deadline, &buf, &cap, &n);
	/* EOF is not the end: a helper that closed its stdout may still hang. */
	if (r == 0)
		r = capture_wait(pidfd, deadline, &status);
	if (r < 0) {
		helper_kill(pid, pidfd);
		pidfd_wait(pidfd, &status);
	}
	if (r < 0 || status != 0)
		return capture_fail(argv, r, status, max, err);
	buf[n] = '\0';
	*out = buf;
	buf = NULL;
	return 0;
}

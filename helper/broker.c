/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* broker.c — the session broker: the in-sandbox half of a persistent session.
 *
 * osb-isolate-init calls broker_serve() instead of exec'ing a command, after
 * every identity, capability, rlimit, fd and seccomp step, so everything it
 * starts runs exactly as a one-shot command would. It is the sandbox's pid 1
 * (bwrap --as-pid-1): processes of the sandbox cannot kill or stop it, orphans
 * are reparented to it (and reaped here), and its exit takes the whole pid
 * namespace down. It reads exec requests from the library over a
 * SOCK_SEQPACKET socket (protocol: lib/init-proto.h); each request brings its
 * own reply channel and the command's stdin/stdout/stderr, so the broker never
 * touches the command's bytes and a command cannot forge a status. Every
 * command leads its own process group, killed with SIGKILL when the leader
 * exits, when its timeout expires, or when the library drops its handle.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/statvfs.h>
#include <sys/wait.h>

#include "init-proto.h"
#include "broker.h"
#include "broker-shell.h"
#include "broker-services.h"
#include "broker-overlay.h"
#include "broker-limit.h"
#include "exec-path.h"

/* How long a forked command may take to reach execve before it is killed
 * (only a stopped child can take longer). */
#define START_TIMEOUT_MS 10000
/* After the leader has exited and its group got SIGKILL, the exit is
 * reported once the group is empty; a process stuck in the kernel does not
 * hold the report back longer than this. */
#define GROUP_GRACE_MS 2000

extern char **environ;

struct job {
	pid_t pid;           /* leader; also the process group id */
	int chan;            /* reply channel; -1 once the library hung up */
	uint64_t deadline;   /* CLOCK_MONOTONIC ms; 0: none */
	bool timed_out;
	bool leader_done;    /* reaped; waiting for the rest of the group */
	uint64_t grace_end;
	int status;
	struct rusage ru;
	struct shell_state state;   /* SESSION_F_STATE (broker-shell.c) */
	bool keep;           /* SESSION_F_KEEP: its group outlives the leader */
	int64_t started;     /* wall-clock ms, for the services list */
	char *command;       /* its argv joined (kept commands only) */
};

struct broker {
	int sock, sigfd;
	sigset_t orig_mask;
	struct job *jobs;
	size_t n_jobs, cap_jobs;
	char *buf;           /* one request */
	uint64_t idle_ms, last_activity;
	const char *const *watch;   /* --watch-full mounts */
	size_t n_watch;
	struct services services;   /* kept groups still running (broker-services.c) */
	const struct rlimit *policy_nproc;   /* the policy's "limit nproc", or NULL */
};

/* A parsed exec request; the pointers point into broker.buf. */
struct request {
	uint64_t timeout_ms;
	const char *cwd;
	char **vec;          /* cwd, argv..., NULL, envp..., NULL */
	char **argv, **envp;
	int chan, stdio[3];
	uint32_t flags;      /* SESSION_F_* */
	int script;          /* SESSION_F_SCRIPT: the script's memfd; else -1 */
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Replies never raise SIGPIPE: a library that went away is not an error. */
static void reply(int chan, const void *msg, size_t len)
{
	if (chan >= 0)
		(void)send(chan, msg, len, MSG_NOSIGNAL | MSG_DONTWAIT);
}

__attribute__((format(printf, 4, 5)))
static void reply_failed(int chan, const char *stage, int err, const char *fmt, ...)
{
	struct session_failed f;
	va_list ap;

	memset(&f, 0, sizeof(f));
	f.type = SESSION_FAILED;
	f.err = err;
	snprintf(f.stage, sizeof(f.stage), "%s", stage);
	va_start(ap, fmt);
	vsnprintf(f.message, sizeof(f.message), fmt, ap);
	va_end(ap);
	reply(chan, &f, sizeof(f));
}

/* ---- jobs -------------------------------------------------------------- */

static int job_add(struct broker *b, pid_t pid, int chan, uint64_t timeout_ms,
                   const struct shell_state *st)
{
	if (b->n_jobs == b->cap_jobs) {
		size_t cap = b->cap_jobs ? b->cap_jobs * 2 : 16;
		struct job *nj = realloc(b->jobs, cap * sizeof(*nj));

		if (!nj)
			return -ENOMEM;
		b->jobs = nj;
		b->cap_jobs = cap;
	}
	b->jobs[b->n_jobs++] = (struct job){
		.pid = pid, .chan = chan,
		.deadline = timeout_ms ? now_ms() + timeout_ms : 0, .state = *st,
	};
	return 0;
}

/* The job whose leader is PID and still runs. */
static struct job *job_running(struct broker *b, pid_t pid)
{
	for (size_t i = 0; i < b->n_jobs; i++)
		if (b->jobs[i].pid == pid && !b->jobs[i].leader_done)
			return &b->jobs[i];
	return NULL;
}

static void job_remove(struct broker *b, struct job *j)
{
	close_fd(&j->chan);
	shell_state_free(&j->state);
	free(j->command);
	*j = b->jobs[--b->n_jobs];
}

static void kill_all(struct broker *b)
{
	for (size_t i = 0; i < b->n_jobs; i++)
		kill(-b->jobs[i].pid, SIGKILL);
}

/* Bit K: the K-th watched tmpfs has no block or no inode left. */
static uint32_t full_mask(const struct broker *b)
{
	uint32_t m = 0;

	for (size_t k = 0; k < b->n_watch && k < 32; k++) {
		struct statvfs sv;

		if (statvfs(b->watch[k], &sv) == 0 && (sv.f_bavail == 0 || sv.f_favail == 0))
			m |= 1u << k;
	}
	return m;
}

static void send_exited(const struct broker *b, struct job *j, int status, const struct rusage *ru)
{
	struct session_exited x;

	memset(&x, 0, sizeof(x));
	x.type = SESSION_EXITED;
	x.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	x.sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	x.timed_out = j->timed_out;
	x.user_us = (uint64_t)ru->ru_utime.tv_sec * 1000000u + (uint64_t)ru->ru_utime.tv_usec;
	x.sys_us = (uint64_t)ru->ru_stime.tv_sec * 1000000u + (uint64_t)ru->ru_stime.tv_usec;
	x.max_rss_kib = (uint64_t)ru->ru_maxrss;
	x.tmpfs_full = full_mask(b);
	reply(j->chan, &x, sizeof(x));
}

/* Reap every child that has exited. A job's leader is only peeked at first
 * (WNOWAIT): while it is a zombie its pid cannot be reused, so the group kill
 * that follows cannot reach an unrelated process. Everything else is an
 * orphan reparented to us as pid 1 (killed group members among them). */
static void reap_children(struct broker *b)
{
	for (;;) {
		siginfo_t si;
		struct rusage ru;
		struct job *j;
		int status = 0;

		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid == 0)
			return;
		j = job_running(b, si.si_pid);
		if (j && !j->keep)
			kill(-j->pid, SIGKILL);
		memset(&ru, 0, sizeof(ru));
		if (wait4(si.si_pid, &status, 0, &ru) < 0)
			return;
		if (j) {
			j->leader_done = true;
			j->status = status;
			j->ru = ru;
			j->deadline = 0;
			j->grace_end = now_ms() + GROUP_GRACE_MS;
		}
	}
}

/* No process is left in J's group (zombies count until reaped), or its
 * number now leads the group of a newer command, which needs it empty. */
static bool group_gone(const struct broker *b, const struct job *j)
{
	if (kill(-j->pid, 0) < 0 && errno == ESRCH)
		return true;
	for (size_t i = 0; i < b->n_jobs; i++)
		if (&b->jobs[i] != j && b->jobs[i].pid == j->pid && !b->jobs[i].leader_done)
			return true;
	return false;
}

/* Report the jobs whose group is gone: when the library hears of an exit,
 * nothing of that command runs any more. */
static void report_finished(struct broker *b)
{
	uint64_t now = now_ms();

	for (size_t i = 0; i < b->n_jobs;) {
		struct job *j = &b->jobs[i];

		if (!j->leader_done || (!j->keep && !group_gone(b, j) && now < j->grace_end)) {
			i++;
			continue;
		}
		shell_state_send(j->chan, &j->state);
		send_exited(b, j, j->status, &j->ru);
		if (j->keep)
			services_add(&b->services, j->pid, j->started, j->command ? j->command : "");
		job_remove(b, j);   /* moves the last job to index i */
		b->last_activity = now;
	}
}

/* A message from the library on a job's channel: a kill request, or EOF. */
static void on_channel(struct job *j)
{
	struct session_kill k;
	ssize_t n = recv(j->chan, &k, sizeof(k), MSG_DONTWAIT);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n == (ssize_t)sizeof(k) && k.type == SESSION_KILL && k.sig > 0 && k.sig <= 64) {
		kill(-j->pid, k.sig);
		return;
	}
	if (n > 0)
		return;   /* malformed: ignored, the library never sends it */
	kill(-j->pid, SIGKILL);
	j->keep = false;   /* the library hung up: its services went with it */
	close_fd(&j->chan);
}

/* ---- starting a command ------------------------------------------------ */

struct start_report {
	int err;
	char stage[16];
};

__attribute__((noreturn))
static void child_fail(int report, const char *stage, int err)
{
	struct start_report r;
	ssize_t w;

	memset(&r, 0, sizeof(r));
	r.err = err;
	snprintf(r.stage, sizeof(r.stage), "%s", stage);
	w = write(report, &r, sizeof(r));
	(void)w;
	_exit(127);
}

/* tcgetattr is async-signal-safe (isatty need not be). */
static bool is_terminal(int fd)
{
	struct termios t;

	return tcgetattr(fd, &t) == 0;
}

/* In the forked child: only async-signal-safe calls until execve. */
__attribute__((noreturn))
static void child_exec(const struct broker *b, const struct request *rq, int report, int state_wr)
{
	int script = rq->script;

	sigprocmask(SIG_SETMASK, &b->orig_mask, NULL);
	/* Out of the way of the numbers they are placed at (8, 9) and of the
	 * stdio ones, before anything is placed. */
	if ((state_wr >= 0 && (state_wr = fcntl(state_wr, F_DUPFD_CLOEXEC, 10)) < 0) ||
	    (script >= 0 && (script = fcntl(script, F_DUPFD_CLOEXEC, 10)) < 0))
		child_fail(report, "stdio", errno);
	/* A terminal made for the command (`session exec --tty`) becomes its
	 * controlling terminal, in a session of its own, which is also the
	 * process group of its own that kill(-pid) needs. */
	if (is_terminal(rq->stdio[0])) {
		if (setsid() < 0)
			child_fail(report, "pgroup", errno);
		(void)ioctl(rq->stdio[0], TIOCSCTTY, 0);
	} else if (setpgid(0, 0) < 0) {
		child_fail(report, "pgroup", errno);
	}
	for (int i = 0; i < 3; i++)
		if (dup2(rq->stdio[i], i) < 0)
			child_fail(report, "stdio", errno);
	if (state_wr >= 0 && shell_state_child(state_wr) < 0)
		child_fail(report, "stdio", errno);
	if (script >= 0 && dup2(script, SESSION_SCRIPT_FD) < 0)
		child_fail(report, "stdio", errno);
	if (rq->cwd[0] && chdir(rq->cwd) < 0)
		child_fail(report, "cwd", errno);
	environ = rq->envp;
	execvp(rq->argv[0], rq->argv);
	child_fail(report, "exec", exec_path_errno(rq->argv[0], rq->envp, errno));
}

/* Wait for the child to reach execve: EOF on the CLOEXEC report pipe means
 * it did, a struct start_report means it failed. Returns 0 or -1. */
static int await_exec(int report, struct start_report *r)
{
	uint64_t end = now_ms() + START_TIMEOUT_MS;

	for (;;) {
		struct pollfd p = { .fd = report, .events = POLLIN };
		uint64_t now = now_ms();
		ssize_t n;

		if (now >= end) {
			r->err = ETIMEDOUT;
			snprintf(r->stage, sizeof(r->stage), "exec");
			return -1;
		}
		if (poll(&p, 1, (int)(end - now)) <= 0)
			continue;
		n = read(report, r, sizeof(*r));
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			return 0;
		if (n != (ssize_t)sizeof(*r)) {
			r->err = EIO;
			snprintf(r->stage, sizeof(r->stage), "exec");
		}
		return -1;
	}
}

/* The same words the one-shot init uses for the same failures. */
static void reply_start_failure(const struct request *rq, const struct start_report *r)
{
	if (strcmp(r->stage, "exec") == 0)
		reply_failed(rq->chan, "exec", r->err, "%s: %s", rq->argv[0], strerror(r->err));
	else if (strcmp(r->stage, "cwd") == 0)
		reply_failed(rq->chan, "cwd", r->err, "cannot change to the working directory %s: %s",
		             rq->cwd, strerror(r->err));
	else
		reply_failed(rq->chan, r->stage, r->err, "%s: cannot set up the command (%s): %s",
		             rq->argv[0], r->stage, strerror(r->err));
}

static void start_command(struct broker *b, struct request *rq)
{
	struct shell_state st = SHELL_STATE_INIT;
	struct start_report r;
	int report[2], state_wr = -1;
	pid_t pid;

	int e = (rq->flags & SESSION_F_STATE) ? shell_state_open(&st, &state_wr) : 0;

	if (e < 0) {
		reply_failed(rq->chan, "fork", -e, "pipe: %s", strerror(-e));
		return;
	}
	if (pipe2(report, O_CLOEXEC) < 0) {
		reply_failed(rq->chan, "fork", errno, "pipe: %s", strerror(errno));
		shell_state_free(&st);
		close_fd(&state_wr);
		return;
	}
	pid = fork();
	e = errno;
	if (pid == 0) {
		close(report[0]);
		child_exec(b, rq, report[1], state_wr);
	}
	close(report[1]);
	close_fd(&state_wr);
	if (pid < 0) {
		struct fork_limits lim;
		char hint[160];

		fork_limits_read(&lim, b->policy_nproc);
		reply_failed(rq->chan, "fork", e, "cannot fork: %s%s", strerror(e),
		             fork_limits_hint(&lim, e, hint, sizeof(hint)));
		close(report[0]);
		shell_state_free(&st);
		return;
	}
	/* Also here, so that a group kill never misses it; a command that takes
	 * a terminal makes its own session (and group) before it execs, which
	 * await_exec waits for. */
	if (!is_terminal(rq->stdio[0]))
		setpgid(pid, pid);
	memset(&r, 0, sizeof(r));
	if (await_exec(report[0], &r) < 0) {
		close(report[0]);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		reply_start_failure(rq, &r);
		shell_state_free(&st);
		return;
	}
	close(report[0]);
	if (job_add(b, pid, rq->chan, rq->timeout_ms, &st) < 0) {
		kill(-pid, SIGKILL);
		reply_failed(rq->chan, "fork", ENOMEM, "out of memory");
		shell_state_free(&st);
		return;
	}
	rq->chan = -1;   /* owned by the job now */
	if (rq->flags & SESSION_F_KEEP) {
		struct job *j = &b->jobs[b->n_jobs - 1];
		char cmd[sizeof(((struct service *)0)->command)];

		services_command(cmd, sizeof(cmd), rq->argv);
		j->keep = true;
		j->started = services_now();
		j->command = strdup(cmd);
	}
	reply(b->jobs[b->n_jobs - 1].chan, &(struct session_started){
		.type = SESSION_STARTED, .pid = pid }, sizeof(struct session_started));
}

/* ---- requests ------------------------------------------------------------ */

/* Split the strings after the header into cwd, argv and envp: string N goes
 * to vec[N], or vec[N + 1] once past argv (a NULL ends argv). */
static int parse_strings(char *s, size_t len, const struct session_exec_req *h,
                         struct request *rq)
{
	size_t want = 1 + (size_t)h->argc + h->envc, n = 0, off = 0;
	char **v;

	if (h->argc < 1 || (size_t)h->argc + h->envc > SESSION_MAX_STRINGS ||
	    len == 0 || s[len - 1] != '\0')
		return -EINVAL;
	v = calloc(want + 2, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (; off < len && n < want; n++) {
		v[n + (n > h->argc)] = s + off;
		off += strlen(s + off) + 1;
	}
	if (n != want || off != len || !v[1][0]) {
		free(v);
		return -EINVAL;
	}
	rq->vec = v;
	rq->cwd = v[0];
	rq->argv = v + 1;
	rq->envp = v + 2 + h->argc;
	return 0;
}

/* Take up to five fds (a channel, stdin, stdout, stderr, a script);
 * anything else in the control data is closed. Returns how many. */
static int take_fds(struct msghdr *mh, int fds[SESSION_NFDS + 1])
{
	int got = 0;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		size_t n;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (got < SESSION_NFDS + 1)
				fds[got++] = fd;
			else
				close(fd);
		}
	}
	if (mh->msg_flags & MSG_CTRUNC) {
		for (int i = 0; i < got; i++)
			close(fds[i]);
		return -EINVAL;
	}
	return got;
}

/* An exec request's fds: four, and a fifth exactly with SESSION_F_SCRIPT. */
static int exec_fds(struct request *rq, const int *fds, int got, uint32_t flags)
{
	int want = SESSION_NFDS + ((flags & SESSION_F_SCRIPT) ? 1 : 0);

	if (got != want)
		return -EINVAL;
	rq->chan = fds[0];
	memcpy(rq->stdio, fds + 1, sizeof(rq->stdio));
	rq->script = got > SESSION_NFDS ? fds[SESSION_NFDS] : -1;
	return 0;
}

/* SESSION_SERVICES: the kept groups still running, on the request's one fd.
 * A request cut to the buffer (MSG_TRUNC, not WHOLE) is none: its channel
 * closes unanswered. */
static void on_services(struct broker *b, const int *fds, int got, bool whole)
{
	if (got >= 1 && whole)
		services_reply(&b->services, fds[0]);
	for (int i = 0; i < got; i++)
		close(fds[i]);
}

/* One request. Returns 1 on EOF (the library closed the session), else 0. */
static int on_request(struct broker *b)
{
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int) * (SESSION_NFDS + 4))]; } cm;
	struct iovec iov = { .iov_base = b->buf, .iov_len = SESSION_MSG_MAX };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
	                     .msg_control = cm.b, .msg_controllen = sizeof(cm.b) };
	struct request rq = { .chan = -1, .stdio = { -1, -1, -1 }, .script = -1 };
	struct session_exec_req h;
	ssize_t n = recvmsg(b->sock, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	int fds[SESSION_NFDS + 1], got, r;

	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : 1;
	if (n == 0)
		return 1;
	b->last_activity = now_ms();
	if (layer_is_request(b->buf, (size_t)n)) {
		layer_on_request(b->buf, (size_t)n, &mh, b->n_jobs);
		return 0;
	}
	got = take_fds(&mh, fds);
	if (got < 0)
		return 0;   /* no channel to answer on; the library never does this */
	memset(&h, 0, sizeof(h));
	memcpy(&h, b->buf, (size_t)n < sizeof(h) ? (size_t)n : sizeof(h));
	if ((size_t)n >= sizeof(struct session_services_req) && h.type == SESSION_SERVICES) {
		on_services(b, fds, got, !(mh.msg_flags & MSG_TRUNC));
		return 0;
	}
	if (exec_fds(&rq, fds, got, h.flags) < 0) {
		for (int i = 0; i < got; i++)
			close(fds[i]);
		return 0;
	}
	if ((size_t)n < sizeof(h) || (mh.msg_flags & MSG_TRUNC)) {
		reply_failed(rq.chan, "request", EINVAL, "malformed exec request (%zd bytes)", n);
		goto out;
	}
	if (h.flags & ~SESSION_F_KNOWN) {
		reply_failed(rq.chan, "request", EINVAL, "unknown exec request flags 0x%x (the session's "
		             "init is older than the library)", h.flags & ~SESSION_F_KNOWN);
		goto out;
	}
	rq.flags = h.flags;
	if (h.type != SESSION_EXEC ||
	    (r = parse_strings(b->buf + sizeof(h), (size_t)n - sizeof(h), &h, &rq)) < 0) {
		reply_failed(rq.chan, "request", EINVAL, "malformed exec request");
		goto out;
	}
	rq.timeout_ms = h.timeout_ms;
	if (layer_held())
		reply_failed(rq.chan, "session", EBUSY, "the session's changes are being committed; "
		             "run the command once the commit has ended");
	else
		start_command(b, &rq);
out:
	free(rq.vec);
	close_fd(&rq.chan);
	close_fd(&rq.script);
	for (int i = 0; i < 3; i++)
		close_fd(&rq.stdio[i]);
	return 0;
}

/* ---- the loop -------------------------------------------------------------- */

static void expire_timeouts(struct broker *b, uint64_t now)
{
	for (size_t i = 0; i < b->n_jobs; i++) {
		struct job *j = &b->jobs[i];

		if (j->deadline && now >= j->deadline) {
			kill(-j->pid, SIGKILL);
			j->timed_out = true;
			j->deadline = 0;
			/* The whole group was ended: nothing of it is a service, and
			 * the exit waits for it to be gone as any command's does. */
			j->keep = false;
		}
	}
}

/* Milliseconds until the next deadline (a timeout, or idleness), or -1. */
static int next_timeout(const struct broker *b, uint64_t now)
{
	uint64_t next = 0;

	for (size_t i = 0; i < b->n_jobs; i++) {
		uint64_t t = b->jobs[i].leader_done ? b->jobs[i].grace_end : b->jobs[i].deadline;

		if (t && (!next || t < next))
			next = t;
	}
	if (b->idle_ms && b->n_jobs == 0 && !layer_held() &&
	    (!next || b->last_activity + b->idle_ms < next))
		next = b->last_activity + b->idle_ms;
	if (!next)
		return -1;
	return next <= now ? 0 : next - now > 60000 ? 60000 : (int)(next - now);
}

static int setup(struct broker *b)
{
	sigset_t chld;

	/* Not dumpable: processes of the sandbox (same uid) cannot read or
	 * write the broker's memory through /proc. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return -errno;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &chld, &b->orig_mask) < 0)
		return -errno;
	b->sigfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	b->buf = malloc(SESSION_MSG_MAX);
	if (b->sigfd < 0 || !b->buf)
		return -ENOMEM;
	b->last_activity = now_ms();
	return 0;
}

static void drain_signalfd(int fd)
{
	struct signalfd_siginfo si[8];

	while (read(fd, si, sizeof(si)) > 0)
		;
}

/* One poll round. Returns -1 to go on, else the exit status. */
static int serve_once(struct broker *b, struct pollfd *pfd)
{
	size_t n = 2, njobs = b->n_jobs;
	uint64_t now = now_ms();
	int r;

	pfd[0] = (struct pollfd){ .fd = b->sock, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = b->sigfd, .events = POLLIN };
	for (size_t i = 0; i < njobs; i++)
		pfd[n++] = (struct pollfd){ .fd = b->jobs[i].chan, .events = POLLIN };
	for (size_t i = 0; i < njobs; i++)
		pfd[n++] = (struct pollfd){ .fd = b->jobs[i].state.fd, .events = POLLIN };
	r = poll(pfd, n, next_timeout(b, now));
	if (r < 0 && errno != EINTR)
		return INIT_EXIT_FAILURE;
	now = now_ms();
	expire_timeouts(b, now);
	/* A request that arrived just in time keeps the session. */
	if (b->idle_ms && b->n_jobs == 0 && !layer_held() && now >= b->last_activity + b->idle_ms &&
	    !(r > 0 && pfd[0].revents))
		return INIT_EXIT_IDLE;
	if (r > 0) {
		/* Channels first: the job table does not change until reaping. */
		for (size_t i = 0; i < njobs; i++)
			if (pfd[2 + i].revents && b->jobs[i].chan >= 0)
				on_channel(&b->jobs[i]);
		for (size_t i = 0; i < njobs; i++)
			if (pfd[2 + njobs + i].revents)
				shell_state_read(&b->jobs[i].state);
		if (pfd[1].revents) {
			drain_signalfd(b->sigfd);
			reap_children(b);
		}
	}
	report_finished(b);
	if (r > 0 && pfd[0].revents && on_request(b))
		return 0;
	return -1;
}

int broker_serve(int sock, uint64_t idle_ms, const char *const *watch, size_t n_watch,
                 const struct rlimit *policy_nproc)
{
	struct broker b = { .sock = sock, .sigfd = -1, .idle_ms = idle_ms, .watch = watch,
	                    .n_watch = n_watch, .policy_nproc = policy_nproc };
	struct pollfd *pfd = NULL;
	size_t pfd_cap = 0;
	int status = -1;

	if (setup(&b) < 0)
		return INIT_EXIT_FAILURE;
	while (status < 0) {
		if (pfd_cap < 2 * b.n_jobs + 2) {
			struct pollfd *np = realloc(pfd, (2 * b.n_jobs + 18) * sizeof(*np));

			if (!np)
				break;
			pfd = np;
			pfd_cap = 2 * b.n_jobs + 18;
		}
		status = serve_once(&b, pfd);
	}
	kill_all(&b);
	services_free(&b.services);
	return status < 0 ? INIT_EXIT_FAILURE : status;
}

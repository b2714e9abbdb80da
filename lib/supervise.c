/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* supervise.c — start bwrap from a launch plan and watch it until it ends.
 *
 * Supervision reads four channels besides the command's output: bwrap's own
 * stderr (setup diagnostics), --json-status-fd (the sandbox's pid 1, then the
 * exit code), the init's report channel ("X" just before exec, or an error
 * line naming the failed stage) and a pidfd on bwrap. A status is reported
 * only when it is known: no exit-code line means no success. The wall
 * timeout kills the sandbox's pid 1 and bwrap with SIGKILL, which takes the
 * whole pid namespace down with them. A one-shot run (supervise_run) waits
 * for the end; a session's sandbox (sandbox_start) only until its init
 * reports that it serves.
 */
#include "supervise.h"
#include "bwrap.h"
#include "fork-hint.h"
#include "init-proto.h"
#include "proc.h"
#include "session-owner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>

/* ---- supervision ----------------------------------------------------------- */

enum { CH_OUT, CH_ERR, CH_DIAG, CH_STATUS, CH_INIT, CH__COUNT };

typedef struct sup {
	size_t diag_len, status_len, init_len;
	uint64_t wall_ms;            /* the limit supervise() enforced (0: none) */
	strv full;                   /* sized tmpfs mounts full at the end ("F") */
	char *bwrap;                 /* the bwrap run (a copy), for bwrap_error */
	uint64_t spawn_ns, init_ns, go_ns, exit_ns;   /* result_stamps, as they happen */
	capture cap[2];
	int fd[CH__COUNT];
	int sink[2];                 /* stream copies for CH_OUT, CH_ERR */
	int bwrap_pidfd, pid1_pidfd;
	int exit_code;
	hostid host;                 /* the ids the init must have on the host (a copy: no lock) */
	bool capture_on;
	bool have_exit;
	bool timed_out;
	bool deadline_hit;           /* the init's own wall limit fired ("T") */
	bool id_checked;             /* its "X" or "R" was verified (or refused) */
	char id_error[512];          /* why it was refused; "" when it was not */
	char diag[2048];
	char status[4096];
	char init[2048];
} sup;

/* Returns 0 or the errno of the failed write. A sink someone made
 * non-blocking is waited for, not dropped. */
static int sink_write(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, buf, len);

		if (w < 0 && errno == EAGAIN) {
			struct pollfd p = { .fd = fd, .events = POLLOUT };

			poll(&p, 1, -1);
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? errno : EIO;
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

static void append(char *dst, size_t cap, size_t *len, const char *src, size_t n)
{
	if (*len + 1 >= cap)
		return;
	if (n > cap - 1 - *len)
		n = cap - 1 - *len;
	memcpy(dst + *len, src, n);
	*len += n;
	dst[*len] = '\0';
}

/* Status lines: {"child-pid": N, ...} then {"exit-code": N}. Only whole lines
 * are parsed; the keys are bwrap's own. */
static void parse_status(sup *s)
{
	char *line = s->status, *nl;

	while ((nl = memchr(line, '\n', s->status_len - (size_t)(line - s->status)))) {
		char *k;

		*nl = '\0';
		if ((k = strstr(line, "\"child-pid\":")) && s->pid1_pidfd < 0) {
			long pid = strtol(k + 12, NULL, 10);

			/* bwrap's child is never this namespace's init (1), nor a
			 * group (<= 0). */
			if (pid > 1 && pid <= INT_MAX)
				s->pid1_pidfd = pidfd_open_cloexec((pid_t)pid);
		}
		if ((k = strstr(line, "\"exit-code\":"))) {
			s->exit_code = (int)strtol(k + 12, NULL, 10);
			s->have_exit = true;
			s->exit_ns = now_ns();
		}
		line = nl + 1;
	}
	s->status_len -= (size_t)(line - s->status);
	memmove(s->status, line, s->status_len);
}

int stream_read(int *fd, int sink, capture *cap)
{
	char buf[65536];
	ssize_t n = read(*fd, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0) {
		close(*fd);
		*fd = -1;
		return 0;
	}
	if (sink >= 0 && (cap->sink_errno = sink_write(sink, buf, (size_t)n)) != 0) {
		/* The reader is gone or the file is full: cut the command off
		 * from this stream, as the kernel would had it written there. */
		close(*fd);
		*fd = -1;
	}
	return capture_add(cap, buf, (size_t)n) < 0 ? -ENOMEM : 0;
}

static void read_init(sup *s);

static int on_readable(sup *s, int ch)
{
	char buf[65536];
	ssize_t n;

	if (ch == CH_OUT || ch == CH_ERR)
		return stream_read(&s->fd[ch], s->sink[ch], &s->cap[ch]);
	if (ch == CH_INIT) {
		read_init(s);
		return 0;
	}
	n = read(s->fd[ch], buf, sizeof(buf));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0) {
		close(s->fd[ch]);
		s->fd[ch] = -1;
		return 0;
	}
	switch (ch) {
	case CH_DIAG:
		append(s->diag, sizeof(s->diag), &s->diag_len, buf, (size_t)n);
		break;
	case CH_STATUS:
		append(s->status, sizeof(s->status), &s->status_len, buf, (size_t)n);
		parse_status(s);
		break;
	}
	return 0;
}

static void kill_sandbox(sup *s);

/* "Uid:\t1\t2\t3\t4" (or Gid:) of /proc/PID/status into V[4]. */
static bool status_ids(const char *text, const char *key, unsigned v[4])
{
	const char *l = strstr(text, key);

	return l && sscanf(l + strlen(key), "%u %u %u %u", &v[0], &v[1], &v[2], &v[3]) == 4;
}

/* Host ids of the init, seen from here (docs/ARCHITECTURE.md,
 * "Identity"): the kernel stamps each message on the channel with the
 * sender's pid, uid and gid translated into our namespaces, and the init
 * waits for our answer before its last execve (a session's broker before it
 * serves). /proc/PID/status adds the effective, saved and file-system ids
 * and the supplementary groups. Nothing of the sandbox may be host uid 0
 * or gid 0, and its ids must be the ones the plan chose. */
static bool host_ids_ok(const sup *s, const struct ucred *uc, char *why, size_t n)
{
	char path[64], text[4096], *g, *save = NULL;
	unsigned u[4], gi[4];
	ssize_t len;
	int fd;

	if (uc->uid == 0 || uc->gid == 0 || uc->uid != s->host.uid || uc->gid != s->host.gid) {
		snprintf(why, n, "the sandbox's init runs as host uid %u gid %u, not the planned "
		         "%u:%u", (unsigned)uc->uid, (unsigned)uc->gid, s->host.uid, s->host.gid);
		return false;
	}
	snprintf(path, sizeof(path), "/proc/%d/status", (int)uc->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	len = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (uc->pid <= 0 || len <= 0) {
		snprintf(why, n, "cannot read the host view of the sandbox's init (%s)", path);
		return false;
	}
	text[len] = '\0';
	if (!status_ids(text, "\nUid:", u) || !status_ids(text, "\nGid:", gi) ||
	    !(g = strstr(text, "\nGroups:"))) {
		snprintf(why, n, "%s does not list the init's ids", path);
		return false;
	}
	for (int i = 0; i < 4; i++)
		if (u[i] != s->host.uid || gi[i] != s->host.gid) {
			snprintf(why, n, "the sandbox's init has host uids %u/%u/%u/%u and gids "
			         "%u/%u/%u/%u, not %u:%u", u[0], u[1], u[2], u[3], gi[0], gi[1], gi[2],
			         gi[3], s->host.uid, s->host.gid);
			return false;
		}
	g += strlen("\nGroups:");
	g[strcspn(g, "\n")] = '\0';
	/* An unprivileged caller's groups cannot be dropped in its user
	 * namespace (the kernel's rule); root callers' sandboxes have none. */
	for (char *t = strtok_r(g, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
		if (strcmp(t, "0") == 0 || s->host.kind != HOSTID_CALLER) {
			snprintf(why, n, "the sandbox's init keeps the supplementary host group %s%s",
			         t, strcmp(t, "0") == 0 ? " (root): remove the caller from group "
			         "root" : "");
			return false;
		}
	return true;
}

/* The moment the init began, as its "X" or "R" says (decimal nanoseconds
 * of CLOCK_MONOTONIC after the letter); 0 when absent, malformed, or not
 * between bwrap's start and now: a timing, never trusted for anything else. */
static uint64_t init_stamp(const sup *s, const char *msg, size_t len)
{
	uint64_t v = 0, now = now_ns();

	if (len < 2 || len > 21)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if (msg[i] < '0' || msg[i] > '9')
			return 0;
		v = v * 10u + (uint64_t)(msg[i] - '0');
	}
	return v >= s->spawn_ns && v <= now ? v : 0;
}

/* The init's first message: check who sent it; an "X" waits for our
 * go-ahead. A refusal kills the sandbox before anything untrusted runs. */
static void check_init_sender(sup *s, const char *msg, size_t len, const struct ucred *uc)
{
	const char go = INIT_MSG_GO;

	if (s->id_checked || len == 0 || (msg[0] != INIT_MSG_EXEC && msg[0] != INIT_MSG_READY))
		return;
	s->id_checked = true;
	s->init_ns = init_stamp(s, msg, len);
	if (!uc) {
		snprintf(s->id_error, sizeof(s->id_error), "the init's report carries no credentials");
	} else if (host_ids_ok(s, uc, s->id_error, sizeof(s->id_error))) {
		s->go_ns = now_ns();
		if (msg[0] == INIT_MSG_READY || send(s->fd[CH_INIT], &go, 1, MSG_NOSIGNAL) == 1)
			return;
		snprintf(s->id_error, sizeof(s->id_error), "cannot answer the init: %s",
		         strerror(errno));
	}
	kill_sandbox(s);
}

/* One message of the init's channel, with the credentials the kernel
 * attached (SO_PASSCRED). */
static void read_init(sup *s)
{
	char buf[2048];
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(struct ucred))]; } cm;
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b,
	                     .msg_controllen = sizeof(cm.b) };
	const struct ucred *uc = NULL;
	ssize_t n = recvmsg(s->fd[CH_INIT], &mh, MSG_CMSG_CLOEXEC);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(s->fd[CH_INIT]);
		s->fd[CH_INIT] = -1;
		return;
	}
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
		    c->cmsg_len == CMSG_LEN(sizeof(struct ucred)))
			uc = (const struct ucred *)CMSG_DATA(c);
	/* The deadline, after the command started: from the init (its ids were
	 * checked with "X"), a message of its own. */
	if (n == 1 && buf[0] == INIT_MSG_DEADLINE && s->id_checked && !s->id_error[0]) {
		s->deadline_hit = true;
		return;
	}
	/* A full tmpfs, named by pid 1 when the command has ended. */
	if (n > 1 && buf[0] == INIT_MSG_FULL && s->id_checked && !s->id_error[0]) {
		if (s->full.n < INIT_MAX_WATCH && !memchr(buf + 1, '\0', (size_t)n - 1))
			strv_pushf(&s->full, "%.*s", (int)(n - 1), buf + 1);
		return;
	}
	check_init_sender(s, buf, (size_t)n, uc);
	append(s->init, sizeof(s->init), &s->init_len, buf, (size_t)n);
}

static void kill_sandbox(sup *s)
{
	if (s->pid1_pidfd >= 0)
		pidfd_kill(s->pid1_pidfd, SIGKILL);
	pidfd_kill(s->bwrap_pidfd, SIGKILL);
}

/* A session's init is serving: it said so, and its pid is known. */
static bool init_ready(const sup *s)
{
	return s->init_len > 0 && s->init[0] == INIT_MSG_READY && s->pid1_pidfd >= 0 &&
	       s->id_checked && !s->id_error[0];
}

/* Poll until bwrap has exited and every channel is at EOF (or, UNTIL_READY,
 * until the init serves a session: returns 1). After bwrap is gone its pid
 * namespace is gone too, so the channels close promptly; a short drain bound
 * guards against a writer we do not know about. */
/* bwrap exits as soon as it has the exit code, while the sandbox's pid 1
 * may still be exiting; pid 1 exits only after every other process of its
 * namespace. Waiting for it (bounded, like the drain) means nothing of the
 * sandbox outlives the run (tests/unit/check_leak.c). */
static void wait_pid1_gone(const sup *s, int timeout_ms)
{
	struct pollfd p = { .fd = s->pid1_pidfd, .events = POLLIN };

	if (s->pid1_pidfd < 0)
		return;
	while (poll(&p, 1, timeout_ms) < 0 && errno == EINTR)
		;
}

static int supervise(sup *s, uint64_t wall_ms, bool until_ready, int *bwrap_status)
{
	uint64_t start = now_ms(), drain_until = 0;
	bool bwrap_done = false;

	s->wall_ms = wall_ms;

	for (;;) {
		struct pollfd pfd[CH__COUNT + 1];
		int map[CH__COUNT + 1], n = 0, timeout = -1;
		uint64_t now = now_ms();

		for (int ch = 0; ch < CH__COUNT; ch++)
			if (s->fd[ch] >= 0) {
				pfd[n] = (struct pollfd){ .fd = s->fd[ch], .events = POLLIN };
				map[n++] = ch;
			}
		if (!bwrap_done) {
			pfd[n] = (struct pollfd){ .fd = s->bwrap_pidfd, .events = POLLIN };
			map[n++] = -1;
			if (wall_ms && !s->timed_out) {
				uint64_t end = start + wall_ms;
				timeout = now >= end ? 0 : (int)(end - now);
			}
		} else {
			if (n == 0 || now >= drain_until)
				return 0;
			timeout = (int)(drain_until - now);
		}
		int r = poll(pfd, (nfds_t)n, timeout);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r == 0 && !bwrap_done && wall_ms && !s->timed_out && now_ms() >= start + wall_ms) {
			s->timed_out = true;
			kill_sandbox(s);
			continue;
		}
		for (int i = 0; r > 0 && i < n; i++) {
			if (!pfd[i].revents)
				continue;
			if (map[i] < 0) {
				if (pidfd_wait(s->bwrap_pidfd, bwrap_status) < 0)
					return -errno;
				bwrap_done = true;
				wait_pid1_gone(s, 2000);
				drain_until = now_ms() + 2000;
			} else if (on_readable(s, map[i]) < 0) {
				kill_sandbox(s);
				return -ENOMEM;
			}
		}
		if (until_ready && !bwrap_done && init_ready(s))
			return 1;
	}
}

/* ---- result ---------------------------------------------------------------- */

static void trim(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

/* Turn "E<stage>\t<errno>\t<message>\n" into ERR. */
static bool init_error(sup *s, osb_error *err)
{
	char *e = memchr(s->init, INIT_MSG_ERROR, s->init_len);
	char *t1, *t2;

	if (!e)
		return false;
	t1 = strchr(e + 1, '\t');
	t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
	if (!t1 || !t2) {
		osb_err_set(err, OSB_E_SANDBOX, 0, "init", "malformed report from the init");
		return true;
	}
	*t1 = *t2 = '\0';
	trim(t2 + 1);
	osb_err_set(err, OSB_E_SANDBOX, atoi(t1 + 1), e + 1, "%s", t2 + 1);
	return true;
}

void bwrap_failure(const char *diag, int bwrap_status, osb_error *err)
{
	/* That one says only "Resource temporarily unavailable": a process
	 * limit was met, which the caller can do something about. */
	if (diag && strcmp(diag, BWRAP_CLONE_EAGAIN) == 0)
		osb_err_set(err, OSB_E_SANDBOX, EAGAIN, "bwrap", "sandbox setup failed: %s%s", diag,
		            fork_hint(EAGAIN));
	else if (diag && *diag)
		osb_err_set(err, OSB_E_SANDBOX, 0, "bwrap", "sandbox setup failed: %s", diag);
	else
		osb_err_set(err, OSB_E_SANDBOX, 0, "bwrap",
		            "sandbox setup failed before the command started (bwrap status %d)",
		            WIFEXITED(bwrap_status) ? WEXITSTATUS(bwrap_status) : -1);
}

/* bwrap failed before the init said anything: its own words, if any. A
 * bwrap that refuses an option its --help listed when it was read is no
 * longer the binary that was read (host.c keeps the answer between runs):
 * the answer is dropped, so that the next launch reads --help again and
 * refuses, or runs, on what the binary says now. */
static void bwrap_error(sup *s, int bwrap_status, osb_error *err)
{
	trim(s->diag);
	if (s->diag_len && s->bwrap && strstr(s->diag, "Unknown option")) {
		host_help_forget(s->bwrap);
		osb_err_set(err, OSB_E_SANDBOX, 0, "bwrap", "sandbox setup failed: %s (%s refused an "
		            "option its --help listed when it was read; that answer is dropped: run "
		            "again to read it anew)", s->diag, s->bwrap);
	} else
		bwrap_failure(s->diag_len ? s->diag : NULL, bwrap_status, err);
}

static void fill_result(sup *s, int bwrap_status, osb_result *res)
{
	bool exec_reached = s->init_len > 0 && s->init[0] == INIT_MSG_EXEC && s->id_checked &&
	                    !s->id_error[0];

	if (s->id_error[0]) {
		res->has_error = true;
		osb_err_set(&res->error, OSB_E_SANDBOX, EPERM, "identity",
		            "refusing to run the command: %s", s->id_error);
		return;
	}
	if (init_error(s, &res->error)) {
		res->has_error = true;
		return;
	}
	res->ran = exec_reached;
	if ((s->timed_out || s->deadline_hit) && exec_reached) {
		res->timed_out = true;
		return;
	}
	if (!exec_reached) {
		/* The wall limit expired before the init started the command: the
		 * sandbox was never set up, whatever the command would have done. */
		res->has_error = true;
		if (s->timed_out)
			osb_err_set(&res->error, OSB_E_SANDBOX, ETIMEDOUT, "init",
			            "sandbox setup failed: the init did not start the command within "
			            "%llu ms (the wall limit); killed", (unsigned long long)s->wall_ms);
		else
			bwrap_error(s, bwrap_status, &res->error);
		return;
	}
	if (!s->have_exit) {
		res->has_error = true;
		osb_err_set(&res->error, OSB_E_SANDBOX, 0, "supervise",
		            "the command's status is unknown (bwrap %s %d without reporting it)",
		            WIFEXITED(bwrap_status) ? "exited with" : "was killed by signal",
		            WIFEXITED(bwrap_status) ? WEXITSTATUS(bwrap_status) : WTERMSIG(bwrap_status));
		return;
	}
	/* bwrap reports a command killed by signal N as 128+N. */
	if (s->exit_code > 128 && s->exit_code <= 128 + 64)
		res->signal = s->exit_code - 128;
	else
		res->exit_code = s->exit_code;
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

#define PLAN_FDS_MAX (PFD_FIRST_BIND + 64 + PLAN_MAX_DATA + 2)

/* bwrap's fds for PL: IO holds the per-run slots PFD_STDIN .. PFD_INIT_ERR;
 * the plan's own fds follow (bind sources, then synthesized files), then
 * EXTRA_FD (if >= 0) at plan_next_fd(), then the network proxy's control
 * socket when the policy has an allowlist. FDS holds PLAN_FDS_MAX. Returns
 * how many, or -1 (too many binds). */
static int plan_fd_map(const plan *pl, const int *io, int extra_fd, int *fds, osb_error *err)
{
	size_t nfds;

	if (pl->n_binds > 64)
		return osb_err_set(err, OSB_E_POLICY, 0, "plan", "more than 64 bind mounts");
	memcpy(fds, io, (PFD_INIT_ERR + 1) * sizeof(*fds));
	fds[PFD_INIT_EXE] = pl->init_fd;
	/* Every slot must hold an fd; with "seccomp none" slot 7 repeats the
	 * init's (an O_PATH fd nobody reads: no --seccomp-fd is passed). */
	fds[PFD_SECCOMP] = pl->seccomp_fd >= 0 ? pl->seccomp_fd : pl->init_fd;
	fds[PFD_PASSWD] = pl->passwd_fd;
	fds[PFD_GROUP] = pl->group_fd;
	fds[PFD_ENV] = pl->env_fd >= 0 ? pl->env_fd : pl->init_fd;
	/* A read-only rule inside a writable bind is the init's to make, by its
	 * path in the sandbox (lib/bwrap.c, init_reprotects): its host fd, whose
	 * ".." leads out of the workspace, never reaches the sandbox. The slot
	 * repeats the init's fd, as slot 7 may. */
	for (size_t i = 0; i < pl->n_binds; i++)
		fds[pl->binds[i].target] = pl->binds[i].reprotect ? pl->init_fd : pl->binds[i].fd;
	for (size_t i = 0; i < pl->n_data; i++)
		fds[PFD_FIRST_BIND + pl->n_binds + i] = pl->data[i].fd;
	nfds = (size_t)plan_next_fd(pl);
	/* The proxy's control socket follows the session socket's slot, which
	 * a run fills with a repeat of the init's fd. */
	if (extra_fd >= 0 || pl->net.port)
		fds[nfds++] = extra_fd >= 0 ? extra_fd : pl->init_fd;
	if (pl->net.port)
		fds[nfds++] = pl->net.ctl_fd;
	return (int)nfds;
}


/* Start bwrap for PL with ARGV and the fds of plan_fd_map(). */
static int spawn_plan(const plan *pl, const strv *argv, const int *io, int extra_fd,
                      int *pidfd, osb_error *err)
{
	int fds[PLAN_FDS_MAX], cg_fds[CG_MAX_DIRS];
	const spawn_cred *cred = pl->use_cred ? &pl->cred : NULL;
	spawn_sandbox sb = { cg_fds, 0, true };
	int nfds = plan_fd_map(pl, io, extra_fd, fds, err);
	pid_t pid;

	if (nfds < 0)
		return nfds;
	/* bwrap and the init get a fixed environment; the command's travels in
	 * the plan's env memfd (a session's, with each request). */
	if (pl->lim.cg)
		sb.n_cg_fds = cgroup_attach_fds(pl->lim.cg, cg_fds, CG_MAX_DIRS);
	return spawn_with_fds((const char *const *)argv->v, spawn_fixed_env, fds, (size_t)nfds, &sb,
	                      cred, &pid, pidfd, err);
}

/* One pipe per channel: read ends (non-blocking) in S, write ends in W. A
 * session's sandbox has no output channels: its init serves, it runs nothing. */
static int open_channels(sup *s, int *w, bool session, osb_error *err)
{
	for (int ch = 0; ch < CH__COUNT; ch++) {
		static const int on = 1;
		int p[2];

		if (session && (ch == CH_OUT || ch == CH_ERR))
			continue;
		/* The init's channel is a socket: the kernel stamps what the init
		 * sends with its credentials, and we answer its "X". */
		if (ch == CH_INIT ? socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, p) < 0 ||
		                    setsockopt(p[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) < 0
		                  : pipe2(p, O_CLOEXEC) < 0)
			return osb_err_set(err, OSB_E_IO, errno, "spawn", "%s: %s",
			                   ch == CH_INIT ? "socketpair" : "pipe", strerror(errno));
		s->fd[ch] = p[0];
		w[ch] = p[1];
		set_nonblock(p[0]);
	}
	return 0;
}

static void close_writers(int *w)
{
	for (int ch = 0; ch < CH__COUNT; ch++)
		if (w[ch] >= 0) {
			close(w[ch]);
			w[ch] = -1;
		}
}

static int launch(const plan *pl, const osb_exec *e, sup *s, int *bwrap_status, osb_error *err)
{
	_cleanup_close_ int devnull = -1;
	int w[CH__COUNT] = { -1, -1, -1, -1, -1 }, io[PFD_INIT_ERR + 1], r;
	strv argv = { 0 };

	if ((r = open_channels(s, w, false, err)) < 0)
		goto out;
	if (e->stdin_fd < 0) {
		devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (devnull < 0) {
			r = osb_err_set(err, OSB_E_IO, errno, "spawn", "/dev/null: %s", strerror(errno));
			goto out;
		}
	}
	io[PFD_STDIN] = e->stdin_fd >= 0 ? e->stdin_fd : devnull;
	/* A stream handed over directly leaves its pipe without a writer: it
	 * reads EOF at once. */
	io[PFD_STDOUT] = e->direct[0] ? e->stdout_fd : w[CH_OUT];
	io[PFD_DIAG] = w[CH_DIAG];
	io[PFD_STATUS] = w[CH_STATUS];
	io[PFD_CMD_STDERR] = e->direct[1] ? e->stderr_fd : w[CH_ERR];
	io[PFD_INIT_ERR] = w[CH_INIT];
	if ((r = bwrap_argv_run(pl, (const char *const *)e->argv.v, &argv, err)) < 0)
		goto out;
	s->spawn_ns = now_ns();
	r = spawn_plan(pl, &argv, io, -1, &s->bwrap_pidfd, err);
	strv_free(&argv);
	if (r < 0)
		goto out;
	close_writers(w);
	r = supervise(s, exec_wall_ms(policy_wall_ms(pl->p), e), false, bwrap_status);
	if (r < 0)
		r = osb_err_set(err, r == -ENOMEM ? OSB_E_NOMEM : OSB_E_IO, -r, "supervise",
		                "supervising the sandbox failed: %s", strerror(-r));
out:
	close_writers(w);
	return r;
}

static void sup_init(sup *s)
{
	memset(s, 0, sizeof(*s));
	for (int ch = 0; ch < CH__COUNT; ch++)
		s->fd[ch] = -1;
	s->sink[0] = s->sink[1] = -1;
	s->bwrap_pidfd = s->pid1_pidfd = -1;
}

static void sup_free(sup *s)
{
	for (int ch = 0; ch < CH__COUNT; ch++)
		if (s->fd[ch] >= 0)
			close(s->fd[ch]);
	if (s->bwrap_pidfd >= 0)
		close(s->bwrap_pidfd);
	if (s->pid1_pidfd >= 0)
		close(s->pid1_pidfd);
	free(s->bwrap);
	s->bwrap = NULL;
	capture_free(&s->cap[0]);
	capture_free(&s->cap[1]);
	strv_free(&s->full);
}

/* What the sandbox's cgroup says, once everything in it is gone (bwrap has
 * ended; a process that escaped its pid 1's death is killed here). */
static int result_limits(const plan *pl, osb_result *res)
{
	cgroup_outcome out;

	memset(&out, 0, sizeof(out));
	if (pl->lim.cg) {
		cgroup_kill(pl->lim.cg);
		cgroup_wait_empty(pl->lim.cg, 2000);
		if (cgroup_read_outcome(pl->lim.cg, &out) < 0)
			memset(&out, 0, sizeof(out));
	}
	return result_set_limits(res, &pl->lim, &out);
}

int supervise_run(const plan *pl, const osb_exec *e, uint64_t limit, osb_result *res)
{
	sup s;
	int status = 0, r;

	sup_init(&s);
	s.host = pl->host;
	s.bwrap = pl->bwrap ? strdup(pl->bwrap) : NULL;
	s.host.lock_fd = -1;
	capture_init(&s.cap[0], e->capture ? limit : 0);
	capture_init(&s.cap[1], e->capture ? limit : 0);
	s.capture_on = e->capture;
	s.sink[0] = e->stdout_fd;
	s.sink[1] = e->stderr_fd;
	r = launch(pl, e, &s, &status, &res->error);
	res->t.ns[TS_SPAWN] = s.spawn_ns;
	res->t.ns[TS_INIT] = s.init_ns;
	res->t.ns[TS_GO] = s.go_ns;
	res->t.ns[TS_EXIT] = s.exit_ns;
	if (r == 0 && result_limits(pl, res) < 0)
		r = osb_err_set(&res->error, OSB_E_NOMEM, ENOMEM, "result", "out of memory");
	if (r == 0) {
		fill_result(&s, status, res);
		/* A one-shot run watches its sized tmpfs mounts (lib/init-proto.h). */
		res->tmpfs_known = true;
		res->tmpfs_full = s.full;
		s.full = (strv){ 0 };
		if (output_take(s.cap, s.capture_on, res) < 0)
			r = osb_err_set(&res->error, OSB_E_NOMEM, ENOMEM, "result", "out of memory");
	}
	sup_free(&s);
	return r;
}

int output_take(capture cap[2], bool capture_on, osb_result *res)
{
	bool t1 = false, t2 = false;

	res->out_bytes = cap[0].total;
	res->err_bytes = cap[1].total;
	for (int i = 0; i < 2; i++)
		if (cap[i].sink_errno && cap[i].sink_errno != EPIPE && !res->has_error) {
			res->has_error = true;
			osb_err_set(&res->error, OSB_E_IO, cap[i].sink_errno, "output",
			            "writing the command's %s failed: %s (the command was cut off from "
			            "it)", i ? "stderr" : "stdout", strerror(cap[i].sink_errno));
		}
	if (!capture_on)
		return 0;
	if (capture_take(&cap[0], &res->out, &res->out_len, &t1) < 0 ||
	    capture_take(&cap[1], &res->err, &res->err_len, &t2) < 0)
		return -ENOMEM;
	res->truncated = t1 || t2;
	return 0;
}

/* ---- session sandboxes ---------------------------------------------------- */

struct sandbox {
	sup s;
	bool stopped;
	int life;            /* the owner's life channel (lib/session-owner.c) */
};

/* Why a session sandbox never became ready, from what it said. */
static void sandbox_start_error(sandbox *sb, int bwrap_status, uint64_t timeout_ms,
                                osb_error *err)
{
	sup *s = &sb->s;

	if (s->id_error[0]) {
		osb_err_set(err, OSB_E_SANDBOX, EPERM, "identity", "refusing the session: %s",
		            s->id_error);
		return;
	}
	if (init_error(s, err))
		return;
	if (s->timed_out)
		osb_err_set(err, OSB_E_SANDBOX, ETIMEDOUT, "session",
		            "the session sandbox did not become ready within %llu ms",
		            (unsigned long long)timeout_ms);
	else if (s->init_len > 0 && s->init[0] == INIT_MSG_READY)
		osb_err_set(err, OSB_E_SANDBOX, 0, "session",
		            "the session sandbox ended right after starting (bwrap status %d)",
		            WIFEXITED(bwrap_status) ? WEXITSTATUS(bwrap_status) : -1);
	else
		bwrap_error(s, bwrap_status, err);
}

int sandbox_start(const plan *pl, const strv *argv, int session_fd, uint64_t timeout_ms,
                  sandbox **out, osb_error *err)
{
	_cleanup_close_ int devnull = -1;
	int w[CH__COUNT] = { -1, -1, -1, -1, -1 }, io[PFD_INIT_ERR + 1], status = 0, r;
	osb_error e;
	sandbox *sb = calloc(1, sizeof(*sb));

	*out = NULL;
	osb_err_clear(&e);
	if (!sb)
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "session", "out of memory");
	sup_init(&sb->s);
	sb->life = -1;
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull < 0) {
		r = osb_err_set(&e, OSB_E_IO, errno, "spawn", "/dev/null: %s", strerror(errno));
		goto fail;
	}
	if ((r = open_channels(&sb->s, w, true, &e)) < 0)
		goto fail;
	io[PFD_STDIN] = io[PFD_STDOUT] = io[PFD_CMD_STDERR] = devnull;
	io[PFD_DIAG] = w[CH_DIAG];
	io[PFD_STATUS] = w[CH_STATUS];
	io[PFD_INIT_ERR] = w[CH_INIT];
	sb->s.host = pl->host;
	sb->s.bwrap = pl->bwrap ? strdup(pl->bwrap) : NULL;
	sb->s.host.lock_fd = -1;
	/* A session's bwrap is started by its owner, which lives as long as
	 * the session (lib/session-owner.c); bwrap_pidfd is the owner's. */
	{
		int fds[PLAN_FDS_MAX], nfds = plan_fd_map(pl, io, session_fd, fds, &e);

		r = nfds < 0 ? nfds : owner_spawn(pl, argv, fds, (size_t)nfds, &sb->life,
		                                  &sb->s.bwrap_pidfd, &e);
	}
	close_writers(w);
	if (r < 0)
		goto fail;
	r = supervise(&sb->s, timeout_ms, true, &status);
	if (r == 1) {
		*out = sb;
		return 0;
	}
	if (r < 0)
		osb_err_set(&e, r == -ENOMEM ? OSB_E_NOMEM : OSB_E_IO, -r, "supervise",
		            "supervising the session sandbox failed: %s", strerror(-r));
	else
		sandbox_start_error(sb, status, timeout_ms, &e);
fail:
	close_writers(w);
	sandbox_stop(sb);
	sandbox_free(sb);
	if (err)
		*err = e;
	return -(e.code ? e.code : OSB_E_INTERNAL);
}

int sandbox_life(const sandbox *sb)
{
	return sb->life;
}

int sandbox_pid1_fd(const sandbox *sb)
{
	return sb->s.pid1_pidfd;
}

int sandbox_fd(const sandbox *sb)
{
	return sb->s.bwrap_pidfd;
}

int sandbox_exit_code(sandbox *sb)
{
	sup *s = &sb->s;

	while (s->fd[CH_STATUS] >= 0 && !s->have_exit) {
		size_t before = s->status_len;
		int fd = s->fd[CH_STATUS];

		on_readable(s, CH_STATUS);
		if (s->fd[CH_STATUS] == fd && s->status_len == before)
			break;   /* nothing more to read now */
	}
	return s->have_exit ? s->exit_code : -1;
}

void sandbox_stop(sandbox *sb)
{
	sup *s = &sb->s;
	int status;

	if (sb->stopped)
		return;
	sb->stopped = true;
	kill_sandbox(s);
	/* pid 1 exits only after every other process of its namespace. */
	if (s->pid1_pidfd >= 0) {
		uint64_t end = now_ms() + 5000;

		for (;;) {
			struct pollfd p = { .fd = s->pid1_pidfd, .events = POLLIN };
			uint64_t now = now_ms();

			if (now >= end || poll(&p, 1, (int)(end - now)) > 0)
				break;
		}
	}
	if (s->bwrap_pidfd >= 0)
		pidfd_wait(s->bwrap_pidfd, &status);
}

void sandbox_free(sandbox *sb)
{
	if (!sb)
		return;
	sup_free(&sb->s);
	if (sb->life >= 0)
		close(sb->life);
	free(sb);
}


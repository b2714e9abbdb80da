/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* session-owner.c — the session owner: bwrap's parent on the host.
 *
 * The library starts one per session (lib/session-owner.c) with bwrap's fds
 * and argv; the owner starts bwrap as the library would have (entering the
 * sandbox's cgroup, as the sandbox's host ids), and is then its parent for
 * the session's life, so that bwrap's --die-with-parent follows this
 * single-threaded process and not whichever thread of the caller started
 * the session. It watches three things (lib/owner-proto.h): bwrap, whose
 * end it reports and mirrors in its own exit status; the life channel, whose
 * hang-up means the caller's process is gone (then, unless the session was
 * detached, it kills the sandbox and cleans up after it); and, once
 * detached, a socket on which processes of its own uid (or root) attach.
 * It is a child subreaper, so the sandbox's pid 1 comes back to it if bwrap
 * dies first, and "nothing left" is a waitpid that has no child to wait for.
 */
#include "session-owner.h"
#include "fork-hint.h"
#include "owner-proto.h"
#include "peer-pidns.h"
#include "phrecord.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>

extern char **environ;

struct owner {
	int nfds, life, lock, listen;
	uint32_t uid, gid;
	bool oom, detached, cleanup, ended;
	int ncg, ndirs, nheld, nph;
	int held;            /* the first of NHELD shared locks */
	int ph;              /* the first of NPH placeholder directories */
	char **dirs;
	char **phs;          /* NAME DEV INO KEY, NPH times */
	char **bwrap_argv;
	pid_t bwrap;
	int bwrap_pidfd, status;
	/* Kept for attachers once detached. */
	char *state;
	size_t state_len;
	int broker, pid1;
	char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int links[OWNER_MAX_LINKS];
	int n_links;
};

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	/* fd 2 is bwrap's stderr, which the library reads as setup diagnostics. */
	if (write(2, buf, (size_t)n) < 0) {
		/* nobody to tell */
	}
}

__attribute__((noreturn)) static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
	char buf[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	say("osb-isolate session owner: %s", buf);
	_exit(125);
}

/* ---- arguments ---------------------------------------------------------------- */

static long number(const char *s, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *s == '\0' || *end != '\0' || v < 0 || v > max)
		die("bad argument \"%s\"", s);
	return v;
}

static void parse(struct owner *o, int argc, char **argv)
{
	int i = 2;

	bool lock;

	if (argc < 12)
		die("usage: %s NFDS UID GID OOM NCG LOCK NHELD NDIRS DIR... NPH (NAME DEV INO KEY)... -- "
		    "BWRAP-ARGV", OWNER_ARG);
	o->nfds = (int)number(argv[i++], 4096);
	o->uid = (uint32_t)number(argv[i++], 4294967294L);
	o->gid = (uint32_t)number(argv[i++], 4294967294L);
	o->oom = number(argv[i++], 1) == 1;
	o->ncg = (int)number(argv[i++], 16);
	lock = number(argv[i++], 1) == 1;
	o->nheld = (int)number(argv[i++], 4096);
	o->ndirs = (int)number(argv[i++], 16);
	if (argc < i + o->ndirs + 3)
		die("missing cgroup directories or bwrap's command line");
	o->dirs = argv + i;
	i += o->ndirs;
	o->nph = (int)number(argv[i++], 4096);
	if (argc < i + 4 * o->nph + 2)
		die("missing placeholders or bwrap's command line");
	o->phs = argv + i;
	i += 4 * o->nph;
	if (strcmp(argv[i], "--") != 0 || argv[i + 1] == NULL || argv[i + 1][0] != '/')
		die("expected -- and bwrap's absolute path after the placeholders");
	o->bwrap_argv = argv + i + 1;
	o->life = o->nfds;
	o->lock = lock ? o->nfds + 1 + o->ncg : -1;
	o->held = o->nfds + 1 + o->ncg + (lock ? 1 : 0);
	o->ph = o->held + o->nheld;
	o->listen = o->broker = o->pid1 = -1;
}

/* ---- starting bwrap -------------------------------------------------------------- */

/* In the child: what lib/proc.c's spawn_child does for a sandbox's first
 * process (the cgroup, the OOM score, the host ids), then bwrap. */
__attribute__((noreturn)) static void bwrap_child(const struct owner *o)
{
	static const char adj[] = "1000";
	sigset_t none;
	int fd;

	/* The owner ignores SIGPIPE; the sandbox must not inherit that (a
	 * command writing to a closed pipe dies of SIGPIPE, as on the host),
	 * nor any other disposition or mask of the owner's. */
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int i = 0; i < o->ncg; i++)
		if (write(o->nfds + 1 + i, "0", 1) != 1)
			die("cannot enter the sandbox's cgroup: %s", strerror(errno));
	if (o->oom) {
		fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, adj, sizeof(adj) - 1) != (ssize_t)sizeof(adj) - 1)
			die("cannot raise bwrap's oom_score_adj: %s", strerror(errno));
		close(fd);
	}
	if (o->uid && (setgroups(0, NULL) != 0 || setresgid(o->gid, o->gid, o->gid) != 0 ||
	               setresuid(o->uid, o->uid, o->uid) != 0))
		die("cannot switch to the sandbox's host ids %u:%u: %s", o->uid, o->gid,
		    strerror(errno));
	if (syscall(SYS_close_range, (unsigned)o->nfds, ~0U, 0) != 0)
		die("close_range: %s", strerror(errno));
	execve(o->bwrap_argv[0], o->bwrap_argv, environ);
	die("cannot execute %s: %s", o->bwrap_argv[0], strerror(errno));
}

static void start_bwrap(struct owner *o)
{
	int e;

	o->bwrap = fork();
	e = errno;
	if (o->bwrap < 0)
		die("cannot fork bwrap: %s%s", strerror(e), fork_hint(e));
	if (o->bwrap == 0)
		bwrap_child(o);
	o->bwrap_pidfd = (int)syscall(SYS_pidfd_open, o->bwrap, 0);
	if (o->bwrap_pidfd < 0) {
		kill(o->bwrap, SIGKILL);
		die("pidfd_open: %s", strerror(errno));
	}
	for (int i = 0; i < o->ncg; i++)
		close(o->nfds + 1 + i);
	/* bwrap's fds are bwrap's: the owner keeps none of them open. */
	for (int fd = 0; fd < o->nfds; fd++)
		if (fd != 2)
			close(fd);
}

/* ---- messages ---------------------------------------------------------------------- */

static int send_msg(int fd, uint32_t type, int32_t value, const void *payload, size_t len,
                    const int *fds, int nfds)
{
	struct owner_msg h = { type, value };
	struct iovec iov[2] = { { &h, sizeof(h) }, { (void *)payload, len } };
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int) * 2)]; } cm;
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = len ? 2 : 1 };
	ssize_t n;

	if (nfds > 0) {
		struct cmsghdr *c;

		memset(cm.b, 0, sizeof(cm.b));
		mh.msg_control = cm.b;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
	}
	do
		n = sendmsg(fd, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : 0;
}

static void failed(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void failed(int fd, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	send_msg(fd, OWNER_FAILED, 0, buf, n > 0 ? strlen(buf) : 0, NULL, 0);
}

/* The socket attachers connect to, made by the owner alone (0600). */
static int listen_at(struct owner *o, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	umask(0177);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 16) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	snprintf(o->sock_path, sizeof(o->sock_path), "%s", path);
	return fd;
}

/* OWNER_DETACH: PAYLOAD is the path, NUL, the state; FDS the broker socket
 * and pid 1's pidfd. */
static void on_detach(struct owner *o, const char *payload, size_t len, const int *fds, int nfds)
{
	const char *nul = memchr(payload, '\0', len);
	int fd;

	if (o->detached) {
		failed(o->life, "the session is detached already");
		goto drop;
	}
	if (!nul || nfds != 2 || len - (size_t)(nul + 1 - payload) > OWNER_STATE_MAX) {
		failed(o->life, "malformed detach request");
		goto drop;
	}
	fd = listen_at(o, payload);
	if (fd < 0) {
		failed(o->life, "cannot listen on %s: %s", payload, strerror(-fd));
		goto drop;
	}
	o->state_len = len - (size_t)(nul + 1 - payload);
	o->state = malloc(o->state_len ? o->state_len : 1);
	if (!o->state) {
		close(fd);
		unlink(o->sock_path);
		failed(o->life, "out of memory");
		goto drop;
	}
	memcpy(o->state, nul + 1, o->state_len);
	o->listen = fd;
	o->broker = fds[0];
	o->pid1 = fds[1];
	o->detached = true;
	send_msg(o->life, OWNER_OK, 0, NULL, 0, NULL, 0);
	return;
drop:
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
}

/* One message from FD: its type (0 at EOF or on garbage), payload into BUF,
 * passed fds into FDS. */
static uint32_t recv_msg(int fd, char *buf, size_t size, size_t *len, int *fds, int *nfds)
{
	struct owner_msg h;
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int) * 2)]; } cm;
	struct iovec iov[2] = { { &h, sizeof(h) }, { buf, size } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2, .msg_control = cm.b,
	                     .msg_controllen = sizeof(cm.b) };
	ssize_t n;

	*nfds = 0;
	do
		n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); n >= 0 && c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));

			memcpy(fds + *nfds, CMSG_DATA(c), sizeof(int) * (size_t)(k > 2 ? 2 : k));
			*nfds += k > 2 ? 2 : k;
		}
	if (n < (ssize_t)sizeof(h) || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		for (int i = 0; i < *nfds; i++)
			close(fds[i]);
		*nfds = 0;
		return 0;
	}
	*len = (size_t)n - sizeof(h);
	return h.type;
}

/* The sandbox must go: bwrap's death takes pid 1 with it (--die-with-parent
 * in both), and pid 1's the rest of its namespace. */
static void stop(struct owner *o)
{
	o->cleanup = true;
	/* Through the pidfd: a pid of 0 here would be the caller's group. */
	if (!o->ended && o->bwrap_pidfd >= 0)
		syscall(SYS_pidfd_send_signal, o->bwrap_pidfd, SIGKILL, NULL, 0);
}

static void on_life(struct owner *o)
{
	static char buf[OWNER_STATE_MAX + 4096];
	int fds[2], nfds;
	size_t len = 0;
	uint32_t t = recv_msg(o->life, buf, sizeof(buf), &len, fds, &nfds);

	if (t == OWNER_DETACH) {
		on_detach(o, buf, len, fds, nfds);
		return;
	}
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	if (t == OWNER_STOP) {
		stop(o);
		return;
	}
	/* EOF: the caller's process is gone. A detached session stays. */
	close(o->life);
	o->life = -1;
	if (!o->detached)
		stop(o);
}

/* Only our own uid or root may attach (the directory is private too), and
 * not from inside a sandbox (lib/peer-pidns.h): an attacher gets the broker's
 * socket and the sandbox's pid 1. */
static bool peer_allowed(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 &&
	       (cred.uid == getuid() || cred.uid == 0) && peer_in_own_pidns(fd);
}

static void on_accept(struct owner *o)
{
	int fd = accept4(o->listen, NULL, NULL, SOCK_CLOEXEC), fds[2] = { o->broker, o->pid1 };

	if (fd < 0)
		return;
	if (!peer_allowed(fd) || o->n_links >= OWNER_MAX_LINKS || o->ended ||
	    send_msg(fd, OWNER_ATTACHED, 0, o->state, o->state_len, fds, 2) < 0) {
		close(fd);
		return;
	}
	o->links[o->n_links++] = fd;
}

static void on_link(struct owner *o, int i)
{
	char buf[64];
	int fds[2], nfds;
	size_t len;
	uint32_t t = recv_msg(o->links[i], buf, sizeof(buf), &len, fds, &nfds);

	for (int k = 0; k < nfds; k++)
		close(fds[k]);
	if (t == OWNER_STOP) {
		stop(o);
		return;
	}
	if (t != 0)
		return;
	close(o->links[i]);
	o->links[i] = o->links[--o->n_links];
}

/* ---- the end ------------------------------------------------------------------------- */

/* bwrap has exited: reap what came back to us (pid 1, should bwrap have
 * died first) until nothing is left. */
static void reap_all(struct owner *o)
{
	while (waitpid(o->bwrap, &o->status, 0) < 0 && errno == EINTR)
		;
	for (;;) {
		pid_t p = waitpid(-1, NULL, 0);

		if (p < 0 && errno != EINTR)
			break;
	}
	o->ended = true;
}

/* The placeholders, last found first, as lib/binds.c removes them
 * (lib/phrecord.h): only the empty directory found, with its record when it
 * has one, and only if no other sandbox binds it (it holds a shared lock on
 * it, and the last of them removes it). Our own copies of such locks go
 * first. */
static void remove_placeholders(const struct owner *o)
{
	for (int i = 0; i < o->nheld; i++)
		close(o->held + i);
	for (int i = o->nph; i-- > 0;) {
		const char *name = o->phs[4 * i], *key = o->phs[4 * i + 3];
		unsigned long long dev = strtoull(o->phs[4 * i + 1], NULL, 10);
		unsigned long long ino = strtoull(o->phs[4 * i + 2], NULL, 10);

		(void)phrec_remove(NULL, o->ph + i, name, (dev_t)dev, (ino_t)ino,
		                   strcmp(key, "-") == 0 ? "" : key);
	}
}

/* The sandbox's cgroup, once it is empty: nobody else will remove it. */
static void remove_cgroups(const struct owner *o)
{
	const struct timespec pause_10ms = { 0, 10 * 1000 * 1000 };

	for (int i = 0; i < o->ndirs; i++)
		for (int tries = 0; tries < 200 && rmdir(o->dirs[i]) < 0 && errno == EBUSY; tries++)
			nanosleep(&pause_10ms, NULL);
}

/* Has the caller's end of the life socket closed? The caller's death can
 * itself end the sandbox (the broker's socket, pid 1's lifeline), so its
 * EOF is already pending when bwrap's exit is seen, and may not have been
 * read yet. */
static bool life_gone(int life)
{
	struct pollfd p = { .fd = life, .events = POLLIN | POLLRDHUP };

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLRDHUP)) != 0;
}

__attribute__((noreturn)) static void finish(struct owner *o)
{
	/* Nobody else will remove what the sandbox held then. */
	if (o->life >= 0 && life_gone(o->life)) {
		close(o->life);
		o->life = -1;
		if (!o->detached)
			o->cleanup = true;
	}
	for (int i = 0; i < o->n_links; i++)
		send_msg(o->links[i], OWNER_ENDED, o->status, NULL, 0, NULL, 0);
	if (o->life >= 0)
		send_msg(o->life, OWNER_ENDED, o->status, NULL, 0, NULL, 0);
	if (o->listen >= 0)
		unlink(o->sock_path);
	if (o->cleanup || o->detached) {
		remove_cgroups(o);
		remove_placeholders(o);
	}
	/* The host-id lock (fd o->lock) goes with this process, last. */
	if (WIFSIGNALED(o->status)) {
		signal(WTERMSIG(o->status), SIG_DFL);
		raise(WTERMSIG(o->status));
	}
	_exit(WIFEXITED(o->status) ? WEXITSTATUS(o->status) : 125);
}

static void serve(struct owner *o)
{
	for (;;) {
		struct pollfd p[3 + OWNER_MAX_LINKS];
		int n = 0, r;

		p[n++] = (struct pollfd){ .fd = o->bwrap_pidfd, .events = POLLIN };
		p[n++] = (struct pollfd){ .fd = o->life, .events = POLLIN };
		p[n++] = (struct pollfd){ .fd = o->listen, .events = POLLIN };
		for (int i = 0; i < o->n_links; i++)
			p[n++] = (struct pollfd){ .fd = o->links[i], .events = POLLIN };
		r = poll(p, (nfds_t)n, -1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die("poll: %s", strerror(errno));
		if (p[0].revents) {
			reap_all(o);
			finish(o);
		}
		if (p[1].revents)
			on_life(o);
		if (p[2].revents)
			on_accept(o);
		for (int i = o->n_links; i-- > 0;)
			if (p[3 + i].revents)
				on_link(o, i);
	}
}

void session_owner_main(int argc, char **argv)
{
	struct owner o = { .bwrap_pidfd = -1 };

	parse(&o, argc, argv);
	/* The owner is never killed by a write to a closed channel. */
	signal(SIGPIPE, SIG_IGN);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
		die("PR_SET_CHILD_SUBREAPER: %s", strerror(errno));
	if (chdir("/") != 0)
		die("chdir /: %s", strerror(errno));
	start_bwrap(&o);
	serve(&o);
	__builtin_unreachable();
}

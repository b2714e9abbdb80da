/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* cmd-session.c — `osb-isolate session start|exec|list|stop`.
 *
 * `start` leaves a holder process that owns one library session
 * (osb_session_start) and serves it on a 0600 unix socket, ID.sock, in a
 * private 0700 directory ($XDG_RUNTIME_DIR/osb-isolate, or /run/osb-isolate
 * for root). A lock file, ID.lock, held for the holder's whole life, names
 * the session: a socket whose lock nobody holds is stale and is removed by
 * whoever finds it. The holder runs under a small janitor parent that waits
 * for it and removes both files however it ends (stop, idle timeout, kill
 * -9); the sandbox itself dies with the holder (bwrap --die-with-parent, and
 * the broker sees its socket close).
 *
 * `exec` sends its argv, options and its stdout and stderr fds to the holder,
 * which runs the command with osb_session_run and streams the output to
 * those fds; the exit status is the one `run` gives. The command's stdin is
 * /dev/null, or the read end of a pipe the client fills from its own stdin
 * (--stdin), or it gets a pseudo-terminal of its own (--tty) for stdin,
 * stdout and stderr, which the client relays (relay.c): nothing of the
 * session ever holds the caller's terminal, not even a process that
 * outlives the command. If the client goes away, its connection hangs up
 * and the command is killed.
 */
#include "osb-isolate.h"
#include "cli-common.h"
#include "relay.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <json-c/json.h>

#define EXIT_SETUP 125
#define ID_MAX 64
#define REQ_MAX (128 * 1024)
#define CHUNK (32 * 1024)

extern char **environ;

int cmd_session(int argc, char **argv);
/* Internal helper shared with the library (parsing of units). */
int parse_duration_ms(const char *s, uint64_t *out);

static const char *prog = "osb-isolate";

__attribute__((format(printf, 1, 2)))
static int fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: session: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_SETUP;
}

/* ---- names and paths --------------------------------------------------------- */

struct where {
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char sock[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char lock[sizeof(((struct sockaddr_un *)0)->sun_path) + 8];
};

/* Letters, digits, '.', '_', '-'; not starting with '.' or '-'. */
static bool id_valid(const char *id)
{
	size_t n = strlen(id);

	if (n == 0 || n > ID_MAX || id[0] == '.' || id[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(id[i] == '.' || id[i] == '_' || id[i] == '-' || (id[i] >= '0' && id[i] <= '9') ||
		      (id[i] >= 'a' && id[i] <= 'z') || (id[i] >= 'A' && id[i] <= 'Z')))
			return false;
	return true;
}

/* The directory, created 0700 if missing, must be ours and private: the
 * sockets in it run commands as us. */
static int runtime_dir(struct where *w)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct stat st;
	int n;

	if (xdg && xdg[0] == '/')
		n = snprintf(w->dir, sizeof(w->dir), "%s/osb-isolate", xdg);
	else if (geteuid() == 0)
		n = snprintf(w->dir, sizeof(w->dir), "/run/osb-isolate");
	else
		return fail("XDG_RUNTIME_DIR is not set; sessions keep their sockets there "
		            "(set it to a private directory such as /run/user/%u)", (unsigned)geteuid());
	if (n < 0 || (size_t)n >= sizeof(w->dir) - ID_MAX - 7)
		return fail("the runtime directory %s/osb-isolate is too long for a unix socket path",
		            xdg ? xdg : "");
	if (mkdir(w->dir, 0700) < 0 && errno != EEXIST)
		return fail("cannot create %s: %s", w->dir, strerror(errno));
	if (lstat(w->dir, &st) < 0)
		return fail("cannot stat %s: %s", w->dir, strerror(errno));
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
		return fail("%s must be a directory owned by uid %u with mode 0700; refusing to "
		            "use it", w->dir, (unsigned)geteuid());
	return 0;
}

/* runtime_dir() left room for the longest id. */
static int set_paths(struct where *w, const char *id)
{
	if (snprintf(w->sock, sizeof(w->sock), "%s/%s.sock", w->dir, id) >= (int)sizeof(w->sock) ||
	    snprintf(w->lock, sizeof(w->lock), "%s/%s.lock", w->dir, id) >= (int)sizeof(w->lock))
		return fail("the socket path for session %s would be too long", id);
	return 0;
}

static int locate(const char *id, struct where *w)
{
	int r;

	if (!id_valid(id))
		return fail("invalid session id \"%s\": use 1 to %d letters, digits, '.', '_' or '-', "
		            "not starting with '.' or '-'", id, ID_MAX);
	if ((r = runtime_dir(w)) != 0)
		return r;
	return set_paths(w, id);
}

/* Remove ID's files when no holder (nor its janitor) holds the lock.
 * Returns true when something stale was removed. */
static bool clean_if_stale(const struct where *w)
{
	int fd = open(w->lock, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	bool stale;

	if (fd < 0)
		return errno == ENOENT && unlink(w->sock) == 0;
	stale = flock(fd, LOCK_EX | LOCK_NB) == 0;
	if (stale) {
		unlink(w->sock);
		unlink(w->lock);
	}
	close(fd);
	return stale;
}

/* ---- wire format between client and holder ------------------------------------ */

#define CLI_MAGIC 0x4f534253u   /* "OSBS" */
enum { CLI_EXEC = 1, CLI_INFO = 2, CLI_STOP = 3 };
enum { CLI_JSON = 1, CLI_STDIN = 2, CLI_TTY = 4 };

/* Followed by cwd (empty: the session's), argv and env, NUL-terminated.
 * SCM_RIGHTS: stdout, stderr, then stdin with CLI_STDIN (a pipe's read end;
 * with CLI_TTY, all three are a pseudo-terminal's slave, handed to the
 * command itself; so are stdout and stderr when they are /dev/null,
 * /dev/zero or /dev/full, see relay_fd_inert). Replies are
 * packets with a tag byte: 'o' bytes for stdout, 'e' a line for stderr,
 * 'i' the info JSON, 's' an int32 exit status (always last). */
struct cli_req {
	uint32_t magic, type, flags, argc, envc, reserved;
	uint64_t timeout_ms;
};

static int send_tagged(int fd, char tag, const void *data, size_t len)
{
	char buf[1 + CHUNK];

	do {
		size_t n = len > CHUNK ? CHUNK : len;

		buf[0] = tag;
		memcpy(buf + 1, data, n);
		if (send(fd, buf, n + 1, MSG_NOSIGNAL) < 0)
			return -errno;
		data = (const char *)data + n;
		len -= n;
	} while (len > 0);
	return 0;
}

static int send_status(int fd, int status)
{
	int32_t v = status;

	return send_tagged(fd, 's', &v, sizeof(v));
}

static int connect_to(const struct where *w)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", w->sock);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

/* Connect to session ID, cleaning up after a dead holder. */
static int open_session(const char *id, struct where *w, int *fd)
{
	int r = locate(id, w);

	if (r != 0)
		return r;
	*fd = connect_to(w);
	if (*fd == -ECONNREFUSED && clean_if_stale(w))
		return fail("no session named %s (its holder had died; removed its stale socket)", id);
	if (*fd == -ENOENT || *fd == -ECONNREFUSED)
		return fail("no session named %s (osb-isolate session list shows the running ones)", id);
	if (*fd < 0)
		return fail("cannot connect to %s: %s", w->sock, strerror(-*fd));
	return 0;
}

static int send_request(int fd, const struct cli_req *h, const char *strings, size_t len,
                        const int *fds, int nfds)
{
	char cbuf[CMSG_SPACE(sizeof(int) * 3)];
	struct iovec iov[2] = { { .iov_base = (void *)h, .iov_len = sizeof(*h) },
	                        { .iov_base = (void *)strings, .iov_len = len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };

	if (nfds > 0) {
		struct cmsghdr *c;

		memset(cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
	}
	return sendmsg(fd, &mh, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

/* ---- the holder ------------------------------------------------------------------ */

struct holder {
	osb_session *s;
	struct where w;
	char id[ID_MAX + 1];
	const char *policy;
	char hash[72];
	char *workspace;
	uint64_t idle_ms;
	time_t started;
	pthread_mutex_t lock;
	int running;
	bool stopping;       /* a stop request owns the exit */
};

static char *holder_info(struct holder *h)
{
	json_object *o = json_object_new_object();
	char *out = NULL;
	int running;

	pthread_mutex_lock(&h->lock);
	running = h->running;
	pthread_mutex_unlock(&h->lock);
	if (!o)
		return NULL;
	json_object_object_add(o, "id", json_object_new_string(h->id));
	json_object_object_add(o, "pid", json_object_new_int((int)getpid()));
	json_object_object_add(o, "started", json_object_new_int64((int64_t)h->started));
	json_object_object_add(o, "running", json_object_new_int(running));
	json_object_object_add(o, "policy", json_object_new_string(h->policy));
	json_object_object_add(o, "policy_hash", json_object_new_string(h->hash));
	json_object_object_add(o, "workspace", json_object_new_string(h->workspace));
	json_object_object_add(o, "idle_timeout_ms", json_object_new_int64((int64_t)h->idle_ms));
	out = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
	                                               JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return out;
}

/* A received request: header, strings split into cwd/argv/env, and fds. */
struct request {
	struct cli_req h;
	char *buf;
	const char *cwd;
	const char **argv, **env;
	int fds[3], nfds;
};

static void request_free(struct request *rq)
{
	for (int i = 0; i < rq->nfds; i++)
		close(rq->fds[i]);
	free(rq->argv);
	free(rq->env);
	free(rq->buf);
}

static int split_strings(struct request *rq, size_t len)
{
	char *p = rq->buf + sizeof(rq->h), *end = rq->buf + len;
	size_t want = 1 + (size_t)rq->h.argc + rq->h.envc;

	if (rq->h.argc == 0 || want > REQ_MAX / 2 || len <= sizeof(rq->h) || end[-1] != '\0')
		return -EINVAL;
	rq->argv = calloc(rq->h.argc + 1, sizeof(*rq->argv));
	rq->env = calloc(rq->h.envc + 1, sizeof(*rq->env));
	if (!rq->argv || !rq->env)
		return -ENOMEM;
	for (size_t i = 0; i < want; i++) {
		if (p >= end)
			return -EINVAL;
		if (i == 0)
			rq->cwd = p;
		else if (i <= rq->h.argc)
			rq->argv[i - 1] = p;
		else
			rq->env[i - 1 - rq->h.argc] = p;
		p += strlen(p) + 1;
	}
	return p == end ? 0 : -EINVAL;
}

static int recv_request(int conn, struct request *rq)
{
	char cbuf[CMSG_SPACE(sizeof(int) * 3)];
	struct iovec iov;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
	                     .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	ssize_t n;

	rq->buf = malloc(REQ_MAX);
	if (!rq->buf)
		return -ENOMEM;
	iov = (struct iovec){ .iov_base = rq->buf, .iov_len = REQ_MAX };
	n = recvmsg(conn, &mh, MSG_CMSG_CLOEXEC);
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); n >= 0 && c; c = CMSG_NXTHDR(&mh, c)) {
		size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		for (size_t i = 0; c->cmsg_type == SCM_RIGHTS && i < k; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (rq->nfds < 3)
				rq->fds[rq->nfds++] = fd;
			else
				close(fd);
		}
	}
	if (n < (ssize_t)sizeof(rq->h) || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
		return -EINVAL;
	memcpy(&rq->h, rq->buf, sizeof(rq->h));
	if (rq->h.magic != CLI_MAGIC)
		return -EINVAL;
	return rq->h.type == CLI_EXEC ? split_strings(rq, (size_t)n) : 0;
}

static void reply_error(int conn, const osb_error *err)
{
	char line[1200];
	int n = snprintf(line, sizeof(line), "%s: %s: %s\n", prog,
	                 err->stage[0] ? err->stage : "error", err->message);

	send_tagged(conn, 'e', line, n > 0 ? (size_t)n : 0);
}

static osb_exec *exec_from(const struct request *rq, int conn)
{
	bool json = rq->h.flags & CLI_JSON, in = rq->h.flags & CLI_STDIN;
	bool tty = rq->h.flags & CLI_TTY;
	osb_error err;
	osb_exec *e;

	if (rq->nfds != (in ? 3 : 2) || (tty && (json || !in)))
		return NULL;
	e = osb_exec_new(rq->argv, &err);
	if (!e)
		return NULL;
	if (rq->h.envc)
		osb_exec_set_env(e, rq->env);
	if (rq->cwd[0])
		osb_exec_set_cwd(e, rq->cwd);
	osb_exec_set_timeout_ms(e, rq->h.timeout_ms);
	osb_exec_set_cancel_fd(e, conn);
	if (in)
		osb_exec_set_stdin_fd(e, rq->fds[2]);
	osb_exec_set_capture(e, json);
	if (!json) {
		osb_exec_set_stdout_fd(e, rq->fds[0]);
		osb_exec_set_stderr_fd(e, rq->fds[1]);
		osb_exec_set_output_direct(e, 1, tty || relay_fd_inert(rq->fds[0]));
		osb_exec_set_output_direct(e, 2, tty || relay_fd_inert(rq->fds[1]));
	}
	return e;
}

static void holder_exec(struct holder *h, int conn, struct request *rq)
{
	osb_exec *e = exec_from(rq, conn);
	osb_result *res = NULL;
	osb_error err = { 0 };
	int r;

	if (!e) {
		osb_error bad = { .code = OSB_E_USAGE, .stage = "session" };

		snprintf(bad.message, sizeof(bad.message), "malformed exec request");
		reply_error(conn, &bad);
		send_status(conn, EXIT_SETUP);
		return;
	}
	pthread_mutex_lock(&h->lock);
	h->running++;
	pthread_mutex_unlock(&h->lock);
	r = osb_session_run(h->s, e, &res, &err);
	pthread_mutex_lock(&h->lock);
	h->running--;
	pthread_mutex_unlock(&h->lock);
	/* The client's fds go before it learns the status: once `session exec`
	 * returns, nothing of the session holds its terminal. */
	for (int i = 0; i < rq->nfds; i++)
		close(rq->fds[i]);
	rq->nfds = 0;
	if (res && (rq->h.flags & CLI_JSON)) {
		char *json = osb_result_json(res);

		if (json) {
			send_tagged(conn, 'o', json, strlen(json));
			send_tagged(conn, 'o', "\n", 1);
		}
		osb_free(json);
	}
	if (r < 0 || !res || osb_result_error(res))
		reply_error(conn, res && osb_result_error(res) ? osb_result_error(res) : &err);
	send_status(conn, res ? osb_result_cli_status(res) : EXIT_SETUP);
	osb_result_free(res);
	osb_exec_free(e);
}

/* Stop: the socket goes first so that nobody connects to a dying holder;
 * the janitor removes the lock once this process is gone. */
__attribute__((noreturn))
static void holder_stop(struct holder *h, int conn)
{
	osb_error err;

	pthread_mutex_lock(&h->lock);
	h->stopping = true;
	pthread_mutex_unlock(&h->lock);
	unlink(h->w.sock);
	osb_session_destroy(h->s, &err);
	send_status(conn, 0);
	_exit(0);
}

struct client {
	struct holder *h;
	int conn;
};

static void *client_main(void *arg)
{
	struct client *c = arg;
	struct request rq = { .nfds = 0 };

	if (recv_request(c->conn, &rq) == 0) {
		if (rq.h.type == CLI_EXEC) {
			holder_exec(c->h, c->conn, &rq);
		} else if (rq.h.type == CLI_INFO) {
			char *info = holder_info(c->h);

			if (info)
				send_tagged(c->conn, 'i', info, strlen(info));
			free(info);
		} else if (rq.h.type == CLI_STOP) {
			holder_stop(c->h, c->conn);
		}
	}
	request_free(&rq);
	close(c->conn);
	free(c);
	return NULL;
}

/* Only our own uid (or root) may use the session. */
static bool peer_allowed(int conn)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	return getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 &&
	       (cred.uid == getuid() || cred.uid == 0);
}

static void holder_accept(struct holder *h, int lsock)
{
	struct timeval tv = { .tv_sec = 10 };
	struct client *c;
	pthread_attr_t attr;
	pthread_t th;
	int conn = accept4(lsock, NULL, NULL, SOCK_CLOEXEC);

	if (conn < 0)
		return;
	/* A client that connects and says nothing must not pin a thread. */
	setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	c = malloc(sizeof(*c));
	if (!c || !peer_allowed(conn)) {
		free(c);
		close(conn);
		return;
	}
	*c = (struct client){ .h = h, .conn = conn };
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&th, &attr, client_main, c) != 0) {
		close(conn);
		free(c);
	}
	pthread_attr_destroy(&attr);
}

/* Serve until the session's sandbox ends (idle timeout, or killed). */
__attribute__((noreturn))
static void holder_serve(struct holder *h, int lsock)
{
	for (;;) {
		struct pollfd p[2] = { { .fd = lsock, .events = POLLIN },
		                       { .fd = osb_session_fd(h->s), .events = POLLIN } };

		if (poll(p, 2, -1) < 0)
			continue;
		if (p[1].revents) {
			osb_error err;
			bool stopping;

			pthread_mutex_lock(&h->lock);
			stopping = h->stopping;
			pthread_mutex_unlock(&h->lock);
			if (stopping)
				pause();   /* the stop request replies, then exits */
			unlink(h->w.sock);
			osb_session_destroy(h->s, &err);
			_exit(0);
		}
		if (p[0].revents)
			holder_accept(h, lsock);
	}
}

static int listen_on(const struct where *w)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0), r;
	mode_t mask;

	if (fd < 0)
		return -errno;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", w->sock);
	/* The socket is created 0600; the sandbox keeps the caller's umask. */
	mask = umask(0177);
	r = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(mask);
	if (r < 0 || listen(fd, 64) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

/* stdin/stdout/stderr on /dev/null and every other fd closed but KEEP. */
static void detach_fds(int keep1, int keep2)
{
	int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);   /* dup2 clears it */
	DIR *d;
	struct dirent *de;

	if (devnull >= 0) {
		dup2(devnull, 0);
		dup2(devnull, 1);
		dup2(devnull, 2);
		if (devnull > 2)
			close(devnull);
		else
			fcntl(devnull, F_SETFD, 0);   /* dup2 onto itself keeps CLOEXEC */
	}
	d = opendir("/proc/self/fd");
	while (d && (de = readdir(d))) {
		int fd = atoi(de->d_name);

		if (de->d_name[0] != '.' && fd > 2 && fd != dirfd(d) && fd != keep1 && fd != keep2)
			close(fd);
	}
	if (d)
		closedir(d);
}

static void report_ready(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report_ready(int fd, const char *fmt, ...)
{
	char buf[1200];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0 && write(fd, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1) < 0)
		return;
}

/* The holder: listen, start the session, say "ok" (or why not) on READY. */
__attribute__((noreturn))
static void holder_main(struct holder *h, osb_policy *policy, osb_session_opts *opts,
                        int ready, int lock)
{
	osb_error err;
	int lsock;

	detach_fds(ready, lock);
	lsock = listen_on(&h->w);
	if (lsock < 0) {
		report_ready(ready, "cannot listen on %s: %s", h->w.sock, strerror(-lsock));
		_exit(EXIT_SETUP);
	}
	h->s = osb_session_start_opts(policy, opts, &err);
	if (!h->s) {
		unlink(h->w.sock);
		report_ready(ready, "%s: %s", err.stage[0] ? err.stage : "error", err.message);
		_exit(EXIT_SETUP);
	}
	osb_policy_free(policy);
	osb_session_opts_free(opts);
	if (chdir("/") < 0)
		_exit(EXIT_SETUP);
	report_ready(ready, "ok");
	close(ready);
	holder_serve(h, lsock);
}

/* The janitor: wait for the holder, then remove its socket and lock (it
 * holds the lock too, so no new holder can take the name before that). */
__attribute__((noreturn))
static void janitor_main(const struct where *w, pid_t holder, int lock)
{
	detach_fds(lock, -1);
	while (waitpid(holder, NULL, 0) < 0 && errno == EINTR)
		;
	unlink(w->sock);
	unlink(w->lock);
	_exit(0);
}

/* ---- start ------------------------------------------------------------------------- */

static void print_start_help(void)
{
	printf("Usage: %s session start [OPTION]...\n"
	       "Start a persistent sandbox and print its id; a holder process keeps it.\n\n"
	       "  -p, --policy NAME|FILE  policy to apply (default: strict)\n"
	       "  -w, --workspace DIR     workspace directory (default: the current directory)\n"
	       "  -n, --name ID           the session id (default: a random one)\n"
	       "      --idle-timeout DUR  end the session after DUR without a running command\n"
	       "  -h, --help              display this help and exit\n", prog);
}

struct start_opts {
	const char *policy, *workspace, *name, *idle;
};

static int parse_start(int argc, char **argv, struct start_opts *o)
{
	enum { OPT_IDLE = 256 };
	static const struct option longopts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "workspace", required_argument, NULL, 'w' },
		{ "name", required_argument, NULL, 'n' },
		{ "idle-timeout", required_argument, NULL, OPT_IDLE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->policy = "strict";
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+p:w:n:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': o->policy = optarg; break;
		case 'w': o->workspace = optarg; break;
		case 'n': o->name = optarg; break;
		case OPT_IDLE: o->idle = optarg; break;
		case 'h': print_start_help(); return -1;
		default:
			return fail("start: unknown option or missing argument '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc)
		return fail("start: unexpected argument '%s'", argv[optind]);
	return 0;
}

/* Policy, workspace and options of the session to start, into H. */
static int prepare(const struct start_opts *o, struct holder *h, osb_policy **policy,
                   osb_session_opts **opts)
{
	osb_error err;
	uint64_t idle = 0;

	if (o->idle && (parse_duration_ms(o->idle, &idle) < 0 || idle == 0))
		return fail("--idle-timeout '%s': expected a positive duration with a unit (500ms, 30s, "
		            "5m, 1h)", o->idle);
	*policy = osb_policy_load(o->policy, &err);
	if (!*policy)
		return fail("%s: %s", err.stage, err.message);
	if (cli_apply_config(*policy, &err) < 0)
		return fail("%s: %s", err.stage, err.message);
	h->workspace = o->workspace ? cli_abs_path(o->workspace) : getcwd(NULL, 0);
	if (!h->workspace)
		return fail("cannot resolve the workspace against the current directory");
	if (o->workspace && osb_policy_set_workspace(*policy, h->workspace, &err) < 0)
		return fail("%s: %s", err.stage, err.message);
	osb_policy_hash(*policy, h->hash);
	*opts = osb_session_opts_new();
	if (!*opts)
		return fail("out of memory");
	osb_session_opts_set_idle_timeout_ms(*opts, idle);
	osb_session_opts_set_env(*opts, (const char *const *)environ);
	h->idle_ms = idle;
	h->policy = o->policy;
	return 0;
}

/* Take the name: the lock file, exclusively. A socket left without a lock
 * holder is stale and removed. */
static int take_name(struct holder *h, int *lock)
{
	struct stat a, b;

	for (int tries = 0; tries < 3; tries++) {
		int fd = open(h->w.lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

		if (fd < 0)
			return fail("cannot create %s: %s", h->w.lock, strerror(errno));
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			close(fd);
			return fail("a session named %s already exists", h->id);
		}
		/* The lock file may have been removed by a janitor meanwhile. */
		if (fstat(fd, &a) == 0 && stat(h->w.lock, &b) == 0 && a.st_ino == b.st_ino &&
		    a.st_dev == b.st_dev) {
			unlink(h->w.sock);
			*lock = fd;
			return 0;
		}
		close(fd);
	}
	return fail("cannot take the name %s: its lock file keeps changing", h->id);
}

static int random_id(char *id, size_t size)
{
	unsigned char r[6];

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return -1;
	snprintf(id, size, "%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2], r[3], r[4], r[5]);
	return 0;
}

/* Read the holder's first words: "ok", or why it failed. */
static int await_ready(int fd, const char *id)
{
	char buf[1200];
	size_t n = 0;
	ssize_t r;

	while (n + 1 < sizeof(buf) && ((r = read(fd, buf + n, sizeof(buf) - 1 - n)) > 0 ||
	                               (r < 0 && errno == EINTR)))
		n += r > 0 ? (size_t)r : 0;
	buf[n] = '\0';
	if (strcmp(buf, "ok") == 0) {
		printf("%s\n", id);
		return fflush(stdout) == 0 ? 0 : EXIT_SETUP;
	}
	return fail("cannot start session %s: %s", id, n ? buf : "the holder exited without a word");
}

static int session_start(int argc, char **argv)
{
	struct start_opts o = { 0 };
	struct holder h = { .started = time(NULL) };
	osb_policy *policy = NULL;
	osb_session_opts *opts = NULL;
	int lock = -1, ready[2], r;
	pid_t janitor;

	if ((r = parse_start(argc, argv, &o)) != 0)
		return r < 0 ? 0 : r;
	if (o.name)
		snprintf(h.id, sizeof(h.id), "%s", o.name);
	else if (random_id(h.id, sizeof(h.id)) < 0)
		return fail("getrandom failed: %s", strerror(errno));
	pthread_mutex_init(&h.lock, NULL);
	if ((r = locate(h.id, &h.w)) != 0 || (r = prepare(&o, &h, &policy, &opts)) != 0 ||
	    (r = take_name(&h, &lock)) != 0)
		goto out;
	if (pipe2(ready, O_CLOEXEC) < 0) {
		r = fail("pipe: %s", strerror(errno));
		goto out;
	}
	fflush(NULL);
	janitor = fork();
	if (janitor == 0) {
		pid_t holder;

		setsid();
		holder = fork();
		if (holder == 0)
			holder_main(&h, policy, opts, ready[1], lock);
		close(ready[0]);
		close(ready[1]);
		if (holder < 0)
			unlink(h.w.lock);
		janitor_main(&h.w, holder, lock);
	}
	close(ready[1]);
	close(lock);
	lock = -1;
	r = janitor < 0 ? fail("fork: %s", strerror(errno)) : await_ready(ready[0], h.id);
	close(ready[0]);
out:
	if (lock >= 0) {
		unlink(h.w.lock);
		close(lock);
	}
	osb_policy_free(policy);
	osb_session_opts_free(opts);
	free(h.workspace);
	return r;
}

/* ---- exec ---------------------------------------------------------------------------- */

static void print_exec_help(void)
{
	printf("Usage: %s session exec ID [OPTION]... [--] CMD [ARG]...\n"
	       "Run CMD in session ID; output streams, the exit status is the one `run` gives.\n\n"
	       "      --json              capture output and print one JSON result object\n"
	       "  -t, --timeout DUR       wall limit of this command (only lowers the policy's)\n"
	       "      --stdin             relay standard input through a pipe (default: /dev/null)\n"
	       "      --tty               give CMD a terminal of its own (a pseudo-terminal\n"
	       "                          relayed to this one, as ssh -t does)\n"
	       "      --cwd DIR           working directory inside (absolute; default: the workspace)\n"
	       "  -e, --env NAME=VALUE    set a variable for this command (repeatable; the\n"
	       "                          policy's env deny patterns still apply)\n"
	       "  -h, --help              display this help and exit\n", prog);
}

struct exec_opts {
	const char *id, *timeout, *cwd;
	const char *env[256];
	size_t n_env;
	bool json, use_stdin, tty;
	int cmd;
};

static int parse_exec_opts(int argc, char **argv, struct exec_opts *o)
{
	enum { OPT_JSON = 256, OPT_STDIN, OPT_TTY, OPT_CWD };
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "timeout", required_argument, NULL, 't' },
		{ "stdin", no_argument, NULL, OPT_STDIN },
		{ "tty", no_argument, NULL, OPT_TTY },
		{ "cwd", required_argument, NULL, OPT_CWD },
		{ "env", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "+t:e:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON: o->json = true; break;
		case 't': o->timeout = optarg; break;
		case OPT_STDIN: o->use_stdin = true; break;
		case OPT_TTY: o->tty = true; break;
		case OPT_CWD: o->cwd = optarg; break;
		case 'e':
			if (o->n_env == sizeof(o->env) / sizeof(o->env[0]))
				return fail("exec: too many --env options (at most 256)");
			o->env[o->n_env++] = optarg;
			break;
		case 'h': print_exec_help(); return -1;
		default:
			return fail("exec: unknown option or missing argument '%s'", argv[optind - 1]);
		}
	}
	return 0;
}

/* ID may come before or after the options; the command follows them. */
static int parse_exec(int argc, char **argv, struct exec_opts *o)
{
	int r;

	optind = 1;
	opterr = 0;
	if ((r = parse_exec_opts(argc, argv, o)) != 0)
		return r;
	if (optind >= argc)
		return fail("exec: no session id (osb-isolate session exec ID -- CMD [ARG]...)");
	o->id = argv[optind++];
	if ((r = parse_exec_opts(argc, argv, o)) != 0)
		return r;
	if (optind >= argc)
		return fail("exec: no command given (osb-isolate session exec ID -- CMD [ARG]...)");
	if (o->tty && o->json)
		return fail("exec: --tty cannot be combined with --json (the command's output goes to "
		            "the terminal, not into the result)");
	o->cmd = optind;
	return 0;
}

static int build_exec(const struct exec_opts *o, char **argv, int argc, struct cli_req *h,
                      char **strings, size_t *len)
{
	FILE *f = open_memstream(strings, len);
	uint64_t ms = 0;

	if (o->timeout && (parse_duration_ms(o->timeout, &ms) < 0 || ms == 0))
		return fail("--timeout '%s': expected a positive duration with a unit (500ms, 30s, 5m, "
		            "1h)", o->timeout);
	if (!f)
		return fail("out of memory");
	*h = (struct cli_req){ .magic = CLI_MAGIC, .type = CLI_EXEC, .timeout_ms = ms,
	                       .flags = (o->json ? CLI_JSON : 0) |
	                                (o->use_stdin || o->tty ? CLI_STDIN : 0) |
	                                (o->tty ? CLI_TTY : 0),
	                       .argc = (uint32_t)(argc - o->cmd), .envc = (uint32_t)o->n_env };
	fputs(o->cwd ? o->cwd : "", f);
	fputc('\0', f);
	for (int i = o->cmd; i < argc; i++) {
		fputs(argv[i], f);
		fputc('\0', f);
	}
	for (size_t i = 0; i < o->n_env; i++) {
		fputs(o->env[i], f);
		fputc('\0', f);
	}
	if (fclose(f) != 0)
		return fail("out of memory");
	if (*len + sizeof(*h) > REQ_MAX)
		return fail("exec: the command line and --env take %zu bytes; at most %d", *len,
		            REQ_MAX - (int)sizeof(*h));
	return 0;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? errno : EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* What the holder said besides output: its error lines, printed once the
 * caller's terminal is itself again, and whether the result was written. */
struct replies {
	char err[4096];
	size_t err_len;
	int out_errno;    /* writing the JSON result to stdout failed */
};

/* Relay the holder's packets until the status; EOF before it is a failure
 * (-1). 'o' packets carry the JSON result: once one fails to be written,
 * the rest is dropped and R->out_errno says why. */
static int relay_replies(int fd, struct replies *rp)
{
	char buf[1 + CHUNK];

	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		if (buf[0] == 'o' && !rp->out_errno)
			rp->out_errno = write_all(STDOUT_FILENO, buf + 1, (size_t)n - 1);
		else if (buf[0] == 'e') {
			size_t k = (size_t)n - 1 < sizeof(rp->err) - rp->err_len ?
			           (size_t)n - 1 : sizeof(rp->err) - rp->err_len;

			memcpy(rp->err + rp->err_len, buf + 1, k);
			rp->err_len += k;
		} else if (buf[0] == 's' && n == 1 + (ssize_t)sizeof(int32_t)) {
			int32_t v;

			memcpy(&v, buf + 1, sizeof(v));
			return v;
		}
	}
}

/* Send the request with the fds the command gets; the client keeps none of
 * the command's ends (so the stdin relay sees EPIPE when the command closes
 * its stdin, and the pseudo-terminal reads EIO once nothing holds it). */
static int send_exec(int fd, const struct exec_opts *o, const struct cli_req *h,
                     const char *strings, size_t len, struct relay *rl)
{
	int fds[3] = { STDOUT_FILENO, STDERR_FILENO, -1 }, r;

	if (o->tty) {
		if ((r = relay_tty_start(rl, STDIN_FILENO, STDOUT_FILENO)) < 0)
			return fail("exec: --tty: cannot make a pseudo-terminal: %s", strerror(-r));
		fds[0] = fds[1] = fds[2] = rl->slave;
	} else if (o->use_stdin) {
		if ((r = relay_stdin_start(rl, STDIN_FILENO, &fds[2])) < 0)
			return fail("exec: --stdin: cannot relay standard input: %s", strerror(-r));
	}
	r = send_request(fd, h, strings, len, fds, fds[2] >= 0 ? 3 : 2);
	if (o->tty)
		relay_close_slave(rl);
	else if (fds[2] >= 0)
		close(fds[2]);
	if (r < 0) {
		relay_stop(rl);
		return fail("cannot send the command to session %s: %s", o->id, strerror(-r));
	}
	return 0;
}

/* The exit status, once the relay has stopped and the terminal is restored. */
static int exec_status(int status, struct relay *rl, const struct replies *rp)
{
	int tty_errno = relay_stop(rl);

	if (rp->err_len && write_all(STDERR_FILENO, rp->err, rp->err_len)) {
		/* nowhere left to report it */
	}
	if (status < 0)
		return fail("the session ended before the command's status was known");
	if (tty_errno && tty_errno != EPIPE) {
		fprintf(stderr, "%s: output: writing the command's terminal output failed: %s\n", prog,
		        strerror(tty_errno));
		status = EXIT_SETUP;
	}
	if (rp->out_errno) {
		fprintf(stderr, "%s: cannot write the result to standard output: %s\n", prog,
		        strerror(rp->out_errno));
		status = EXIT_SETUP;
	}
	return status;
}

static int session_exec(int argc, char **argv)
{
	struct exec_opts o = { 0 };
	struct relay rl = RELAY_NONE;
	struct replies rp = { .err_len = 0 };
	struct cli_req h;
	struct where w;
	char *strings = NULL;
	size_t len = 0;
	int fd = -1, r;

	if ((r = parse_exec(argc, argv, &o)) != 0)
		return r < 0 ? 0 : r;
	if ((r = build_exec(&o, argv, argc, &h, &strings, &len)) != 0)
		goto out;
	if ((r = open_session(o.id, &w, &fd)) != 0)
		goto out;
	if ((r = send_exec(fd, &o, &h, strings, len, &rl)) == 0)
		r = exec_status(relay_replies(fd, &rp), &rl, &rp);
out:
	if (fd >= 0)
		close(fd);
	free(strings);
	return r;
}

/* ---- list and stop -------------------------------------------------------------------- */

/* Ask a holder for its info JSON (NULL: not answering). */
static json_object *query_info(const struct where *w)
{
	struct cli_req h = { .magic = CLI_MAGIC, .type = CLI_INFO };
	char buf[1 + 8192];
	struct pollfd p;
	json_object *o = NULL;
	ssize_t n;
	int fd = connect_to(w);

	if (fd < 0)
		return NULL;
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	if (send_request(fd, &h, "", 0, NULL, 0) == 0 && poll(&p, 1, 5000) == 1 &&
	    (n = recv(fd, buf, sizeof(buf) - 1, 0)) > 1 && buf[0] == 'i') {
		buf[n] = '\0';
		o = json_tokener_parse(buf + 1);
	}
	close(fd);
	return o;
}

static int by_started(const void *a, const void *b)
{
	json_object *x = *(json_object *const *)a, *y = *(json_object *const *)b, *vx, *vy;
	int64_t sx = json_object_object_get_ex(x, "started", &vx) ? json_object_get_int64(vx) : 0;
	int64_t sy = json_object_object_get_ex(y, "started", &vy) ? json_object_get_int64(vy) : 0;

	return (sx > sy) - (sx < sy);
}

static const char *field(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : "";
}

static void print_table(json_object *arr)
{
	size_t n = json_object_array_length(arr);

	printf("%-16s %8s %7s  %-19s  %s\n", "ID", "PID", "RUNNING", "STARTED", "WORKSPACE");
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(arr, i), *v;
		time_t t = json_object_object_get_ex(o, "started", &v) ? (time_t)json_object_get_int64(v) : 0;
		char when[32] = "";
		struct tm tm;

		if (localtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
		printf("%-16s %8s %7s  %-19s  %s\n", field(o, "id"), field(o, "pid"),
		       field(o, "running"), when, field(o, "workspace"));
	}
}

/* The ids in the directory: every ID.sock, and every ID.lock (a lock
 * without a socket is stale once nobody holds it). */
static json_object *collect_sessions(const struct where *base)
{
	json_object *arr = json_object_new_array();
	DIR *d = opendir(base->dir);
	struct dirent *de;

	while (arr && d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		bool sock = n > 5 && strcmp(de->d_name + n - 5, ".sock") == 0;
		bool lock = n > 5 && strcmp(de->d_name + n - 5, ".lock") == 0;
		struct where w = *base;
		json_object *info;

		if (!sock && !lock)
			continue;
		de->d_name[n - 5] = '\0';
		if (!id_valid(de->d_name) || set_paths(&w, de->d_name) != 0)
			continue;
		if (lock) {
			if (access(w.sock, F_OK) != 0)
				clean_if_stale(&w);
			continue;
		}
		info = query_info(&w);
		if (info)
			json_object_array_add(arr, info);
		else
			clean_if_stale(&w);
	}
	if (d)
		closedir(d);
	return arr;
}

static int session_list(int argc, char **argv)
{
	struct where w;
	json_object *arr;
	bool json = false;
	int r;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = true;
		else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			printf("Usage: %s session list [--json]\n", prog);
			return 0;
		} else
			return fail("list: unexpected argument '%s'", argv[i]);
	}
	if ((r = runtime_dir(&w)) != 0)
		return r;
	arr = collect_sessions(&w);
	if (!arr)
		return fail("out of memory");
	json_object_array_sort(arr, by_started);
	if (json)
		printf("%s\n", json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PLAIN |
		                                                   JSON_C_TO_STRING_NOSLASHESCAPE));
	else
		print_table(arr);
	json_object_put(arr);
	return fflush(stdout) == 0 ? 0 : EXIT_SETUP;
}

static int session_stop(int argc, char **argv)
{
	struct cli_req h = { .magic = CLI_MAGIC, .type = CLI_STOP };
	struct replies rp = { .err_len = 0 };
	struct where w;
	int fd = -1, r;
	uint64_t waited = 0;

	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		printf("Usage: %s session stop ID\n", prog);
		return 0;
	}
	if (argc != 2)
		return fail("stop takes exactly one session id");
	if ((r = open_session(argv[1], &w, &fd)) != 0)
		return r;
	r = send_request(fd, &h, "", 0, NULL, 0) < 0 ? -1 : relay_replies(fd, &rp);
	close(fd);
	if (r != 0)
		return fail("cannot stop session %s", argv[1]);
	/* Return once the janitor has removed the files: the name is free. */
	while ((access(w.lock, F_OK) == 0 || access(w.sock, F_OK) == 0) && waited < 3000) {
		nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
		waited += 10;
	}
	return 0;
}

/* ---- dispatch -------------------------------------------------------------------------- */

static void print_session_help(void)
{
	printf("Usage: %s session COMMAND [OPTION]...\n"
	       "Persistent sandboxes: many commands in one sandbox.\n\n"
	       "  start [OPTION]...                 start a session, print its id\n"
	       "  exec ID [OPTION]... -- CMD [ARG]... run CMD in session ID\n"
	       "  list [--json]                     list the running sessions\n"
	       "  stop ID                           end session ID and everything in it\n\n"
	       "Sockets live in $XDG_RUNTIME_DIR/osb-isolate (root: /run/osb-isolate).\n"
	       "See osb-isolate(1), \"SESSIONS\".\n", prog);
}

int cmd_session(int argc, char **argv)
{
	if (argc < 2)
		return fail("missing command: start, exec, list or stop");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_session_help();
		return 0;
	}
	if (!strcmp(argv[1], "start"))
		return session_start(argc - 1, argv + 1);
	if (!strcmp(argv[1], "exec"))
		return session_exec(argc - 1, argv + 1);
	if (!strcmp(argv[1], "list"))
		return session_list(argc - 1, argv + 1);
	if (!strcmp(argv[1], "stop"))
		return session_stop(argc - 1, argv + 1);
	return fail("unknown command '%s' (start, exec, list or stop)", argv[1]);
}

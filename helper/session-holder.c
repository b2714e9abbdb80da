/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* session-holder.c — `osb-isolate session start`, and the holder it leaves.
 *
 * `start` leaves a holder process that owns one library session
 * (osb_session_start) and serves it on a 0600 unix socket, ID.sock, in a
 * private 0700 directory ($XDG_RUNTIME_DIR/osb-isolate, or /run/osb-isolate
 * for root). A lock file, ID.lock, held for the holder's whole life, names
 * the session: a socket whose lock nobody holds is stale and is removed by
 * whoever finds it. The holder runs under a small janitor parent that waits
 * for it and removes both files however it ends (stop, idle timeout, kill
 * -9); the sandbox itself dies with the holder (bwrap --die-with-parent, and
 * the broker sees its socket close). Each client connection gets a thread
 * that runs its command with osb_session_run and streams the output to the
 * fds the client sent; if the client goes away, its connection hangs up and
 * the command is killed.
 */
#include "session-holder.h"
#include "holder-overlay.h"
#include "cli-common.h"
#include "peer-pidns.h"
#include "fork-hint.h"
#include "relay.h"
#include "session-wire.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <json-c/json.h>

extern char **environ;

/* ---- the holder ------------------------------------------------------------------ */

struct holder {
	osb_session *s;
	struct where w;
	char id[ID_MAX + 1];
	const char *policy;
	char hash[OSB_POLICY_HASH_LEN];
	char *workspace;
	uint64_t idle_ms;
	time_t started;
	pthread_mutex_t lock;
	int running;
	bool stopping;       /* a stop request owns the exit */
	int clients;         /* connections being served, one thread each */
	int wake;            /* written when one ends: the accept loop may go on */
};

/* At most this many connections are served at once (one thread each);
 * further clients wait in the listen backlog, then in connect(), until one
 * ends — a flood of connections cannot make the holder grow without bound,
 * and an idle one is dropped after 10 s (holder_accept). */
#define HOLDER_MAX_CLIENTS 128

/* What commands run with --keep-services left running (osb_session_services_json). */
static void holder_info_services(struct holder *h, json_object *o)
{
	char *json = NULL;
	osb_error err;
	json_object *arr = NULL;

	if (osb_session_services_json(h->s, &json, &err) == 0)
		arr = json_tokener_parse(json);
	osb_free(json);
	json_object_object_add(o, "services", arr ? arr : json_object_new_array());
}

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
	holder_info_services(h, o);
	out = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
	                                               JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return out;
}

static void reply_error(int conn, const osb_error *err)
{
	char line[1200];
	int n = snprintf(line, sizeof(line), "%s: %s: %s\n", SESSION_PROG,
	                 err->stage[0] ? err->stage : "error", err->message);

	wire_send_tagged(conn, 'e', line, n > 0 ? (size_t)n : 0);
}

static osb_exec *exec_from(const struct wire_request *rq, int conn)
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
	osb_exec_set_keep_services(e, (rq->h.flags & CLI_KEEP) != 0);
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

static int send_json_piece(void *ctx, const char *buf, size_t len)
{
	return wire_send_tagged(*(int *)ctx, 'o', buf, len);
}

static void holder_exec(struct holder *h, int conn, struct wire_request *rq)
{
	osb_exec *e = exec_from(rq, conn);
	osb_result *res = NULL;
	osb_error err = { 0 };
	int r;

	if (!e) {
		osb_error bad = { .code = OSB_E_USAGE, .stage = "session" };

		snprintf(bad.message, sizeof(bad.message), "malformed exec request");
		reply_error(conn, &bad);
		wire_send_status(conn, OSB_EXIT_SETUP);
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
	/* The JSON goes out as it is made: with its control characters
	 * escaped it is up to six times the clipped output, and a flood of
	 * --json clients must cost the holder no more than their output. */
	if (res && (rq->h.flags & CLI_JSON) && osb_result_json_write(res, send_json_piece, &conn) == 0)
		wire_send_tagged(conn, 'o', "\n", 1);
	if (r < 0 || !res || osb_result_error(res))
		reply_error(conn, res && osb_result_error(res) ? osb_result_error(res) : &err);
	wire_send_status(conn, res ? osb_result_cli_status(res) : OSB_EXIT_SETUP);
	osb_result_free(res);
	osb_exec_free(e);
	/* Each thread's allocations go to an arena of its own, which glibc
	 * keeps once freed: give a command's output back to the system. */
	malloc_trim(0);
}

/* Stop: the socket goes first so that nobody connects to a dying holder;
 * the janitor removes the lock once this process is gone. */
__attribute__((noreturn))
static void holder_stop(struct holder *h, int conn, bool discard)
{
	osb_error err;

	pthread_mutex_lock(&h->lock);
	h->stopping = true;
	pthread_mutex_unlock(&h->lock);
	unlink(h->w.sock);
	if (!discard)
		osb_session_destroy(h->s, &err);
	else if (!holder_discard(h->s, conn))
		_exit(1);
	wire_send_status(conn, 0);
	_exit(0);
}

struct client {
	struct holder *h;
	int conn;
	bool own_ns;         /* the peer is of our pid namespace (lib/peer-pidns.h) */
};

/* A process inside a sandbox (a pid namespace beneath ours) shares our uid
 * when the caller is unprivileged, and reaches the socket when its view shows
 * this directory: it is told why it may not use the session. */
static void refuse_sandboxed(int conn)
{
	osb_error e = { .code = OSB_E_USAGE, .stage = "session" };

	snprintf(e.message, sizeof(e.message), "refused: the client is not in the pid namespace "
	         "of the session's holder (a command inside a sandbox may not use its caller's "
	         "sessions); run osb-isolate where the session was started");
	reply_error(conn, &e);
	wire_send_status(conn, OSB_EXIT_SETUP);
}

static void *client_main(void *arg)
{
	struct client *c = arg;
	struct wire_request rq = { .nfds = 0 };

	if (wire_recv_request(c->conn, &rq) == 0) {
		if (!c->own_ns) {
			refuse_sandboxed(c->conn);
		} else if (rq.h.type == CLI_EXEC) {
			holder_exec(c->h, c->conn, &rq);
		} else if (rq.h.type == CLI_INFO) {
			char *info = holder_info(c->h);

			if (info)
				wire_send_tagged(c->conn, 'i', info, strlen(info));
			free(info);
		} else if (rq.h.type == CLI_STOP ||
		           /* a discard ends the session and its layer */
		           (rq.h.type == CLI_DISCARD && holder_discard_ok(c->h->s, c->conn))) {
			holder_stop(c->h, c->conn, rq.h.type == CLI_DISCARD);
		} else if (rq.h.type == CLI_DIFF) {
			holder_diff(c->h->s, c->conn, &rq);
		} else if (rq.h.type == CLI_COMMIT) {
			holder_commit(c->h->s, c->conn, &rq);
		}
	}
	wire_request_free(&rq);
	close(c->conn);
	pthread_mutex_lock(&c->h->lock);
	c->h->clients--;
	pthread_mutex_unlock(&c->h->lock);
	if (write(c->h->wake, "x", 1) < 0) {
		/* full: the accept loop has wake-ups pending already */
	}
	free(c);
	return NULL;
}

/* Only our own uid (or root) may use the session; of those, a process
 * inside a sandbox is refused with a reason (refuse_sandboxed). */
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
	*c = (struct client){ .h = h, .conn = conn, .own_ns = peer_in_own_pidns(conn) };
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_mutex_lock(&h->lock);
	h->clients++;
	pthread_mutex_unlock(&h->lock);
	if (pthread_create(&th, &attr, client_main, c) != 0) {
		pthread_mutex_lock(&h->lock);
		h->clients--;
		pthread_mutex_unlock(&h->lock);
		close(conn);
		free(c);
	}
	pthread_attr_destroy(&attr);
}

/* Serve until the session's sandbox ends (idle timeout, or killed). */
__attribute__((noreturn))
static void holder_serve(struct holder *h, int lsock)
{
	int wake[2];

	if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) < 0)
		_exit(OSB_EXIT_SETUP);
	h->wake = wake[1];
	for (;;) {
		struct pollfd p[3] = { { .fd = lsock, .events = POLLIN },
		                       { .fd = osb_session_fd(h->s), .events = POLLIN },
		                       { .fd = wake[0], .events = POLLIN } };
		char drain[64];

		pthread_mutex_lock(&h->lock);
		if (h->clients >= HOLDER_MAX_CLIENTS)
			p[0].events = 0;     /* full: leave new ones in the backlog */
		pthread_mutex_unlock(&h->lock);
		if (poll(p, 3, -1) < 0)
			continue;
		if (p[2].revents)
			while (read(wake[0], drain, sizeof(drain)) > 0)
				;
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
		if (p[0].events && p[0].revents)
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

/* Tell `start` how it went; false when it is gone (SIGPIPE is ignored). */
static bool report_ready(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool report_ready(int fd, const char *fmt, ...)
{
	char buf[1200];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return n > 0 && write(fd, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1) >= 0;
}

/* The holder: start the session, listen, say "ok" (or why not) on READY.
 * It listens only once the session is up, so that a client never waits on
 * a startup (session_open says the session is not ready instead); and a
 * session whose `start` died before it could be told "ok" (kill -9) is
 * ended: nobody asked for it any more, and with a random id nobody could
 * find it. */
__attribute__((noreturn))
static void holder_main(struct holder *h, osb_policy *policy, osb_session_opts *opts,
                        int ready, int lock)
{
	osb_error err;
	int lsock;

	detach_fds(ready, lock);
	h->s = osb_session_start_opts(policy, opts, &err);
	if (!h->s) {
		report_ready(ready, "%s: %s", err.stage[0] ? err.stage : "error", err.message);
		_exit(OSB_EXIT_SETUP);
	}
	osb_policy_free(policy);
	osb_session_opts_free(opts);
	lsock = chdir("/") < 0 ? -errno : listen_on(&h->w);
	if (lsock < 0) {
		report_ready(ready, "cannot listen on %s: %s", h->w.sock, strerror(-lsock));
		osb_session_destroy(h->s, &err);
		_exit(OSB_EXIT_SETUP);
	}
	if (!report_ready(ready, "ok")) {
		unlink(h->w.sock);
		osb_session_destroy(h->s, &err);
		_exit(OSB_EXIT_SETUP);
	}
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
	       "      --workspace-mode MODE  ro, overlay (writes go to a private layer that\n"
	       "                          ends with the session) or rw; only narrows the\n"
	       "                          policy's\n"
	       "      --overlay-persist DIR  keep the overlay's upper layer in DIR (empty,\n"
	       "                          or persisted by an earlier run or session), where\n"
	       "                          a later session given DIR finds the changes\n"
	       "  -n, --name ID           the session id (default: a random one)\n"
	       "      --idle-timeout DUR  end the session after DUR without a running command\n"
	       "  -h, --help              display this help and exit\n", SESSION_PROG);
}

struct start_opts {
	const char *policy, *workspace, *ws_mode, *name, *idle, *persist;
};

static int parse_start(int argc, char **argv, struct start_opts *o)
{
	enum { OPT_IDLE = 256, OPT_WS_MODE, OPT_PERSIST };
	static const struct option longopts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "workspace", required_argument, NULL, 'w' },
		{ "workspace-mode", required_argument, NULL, OPT_WS_MODE },
		{ "overlay-persist", required_argument, NULL, OPT_PERSIST },
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
		case OPT_WS_MODE: o->ws_mode = optarg; break;
		case OPT_PERSIST: o->persist = optarg; break;
		case 'h': print_start_help(); return -1;
		default:
			return session_fail("start: unknown option or missing argument '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc)
		return session_fail("start: unexpected argument '%s'", argv[optind]);
	return 0;
}

/* Policy, workspace and options of the session to start, into H. */
static int prepare(const struct start_opts *o, struct holder *h, osb_policy **policy,
                   osb_session_opts **opts)
{
	osb_error err;
	uint64_t idle = 0;

	if (o->idle && (osb_parse_duration(o->idle, &idle) < 0 || idle == 0))
		return session_fail("--idle-timeout '%s': expected a positive duration with a unit (500ms, 30s, "
		            "5m, 1h)", o->idle);
	*policy = osb_policy_load(o->policy, &err);
	if (!*policy)
		return session_fail("%s: %s", err.stage, err.message);
	if (cli_apply_config(*policy, &err) < 0)
		return session_fail("%s: %s", err.stage, err.message);
	h->workspace = o->workspace ? cli_abs_path(o->workspace) : getcwd(NULL, 0);
	if (!h->workspace)
		return session_fail("cannot resolve the workspace against the current directory");
	if (o->workspace && osb_policy_set_workspace(*policy, h->workspace, &err) < 0)
		return session_fail("%s: %s", err.stage, err.message);
	if (o->ws_mode && cli_set_workspace_mode(*policy, o->ws_mode, &err) < 0)
		return session_fail("%s: %s", err.stage, err.message);
	if (o->persist && cli_set_overlay_persist(*policy, o->persist, &err) < 0)
		return session_fail("%s: %s", err.stage, err.message);
	osb_policy_hash(*policy, h->hash);
	*opts = osb_session_opts_new();
	if (!*opts)
		return session_fail("out of memory");
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
			return session_fail("cannot create %s: %s", h->w.lock, strerror(errno));
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			close(fd);
			return session_fail("a session named %s already exists", h->id);
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
	return session_fail("cannot take the name %s: its lock file keeps changing", h->id);
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
		return fflush(stdout) == 0 ? 0 : OSB_EXIT_SETUP;
	}
	return session_fail("cannot start session %s: %s", id, n ? buf : "the holder exited without a word");
}

int session_start(int argc, char **argv)
{
	struct start_opts o = { 0 };
	struct holder h = { .started = time(NULL) };
	osb_policy *policy = NULL;
	osb_session_opts *opts = NULL;
	int lock = -1, ready[2], r;
	pid_t janitor;

	if ((r = parse_start(argc, argv, &o)) != 0)
		return r < 0 ? 0 : r;
	/* A name is refused, never cut: exec and stop are given the whole one. */
	if (o.name && !session_id_valid(o.name))
		return session_locate(o.name, &h.w);   /* says why */
	if (o.name)
		snprintf(h.id, sizeof(h.id), "%s", o.name);
	else if (random_id(h.id, sizeof(h.id)) < 0)
		return session_fail("getrandom failed: %s", strerror(errno));
	pthread_mutex_init(&h.lock, NULL);
	if ((r = session_locate(h.id, &h.w)) != 0 || (r = prepare(&o, &h, &policy, &opts)) != 0 ||
	    (r = take_name(&h, &lock)) != 0)
		goto out;
	if (pipe2(ready, O_CLOEXEC) < 0) {
		r = session_fail("pipe: %s", strerror(errno));
		goto out;
	}
	fflush(NULL);
	janitor = fork();
	if (janitor == 0) {
		pid_t holder;
		int e;

		setsid();
		holder = fork();
		e = errno;
		if (holder == 0)
			holder_main(&h, policy, opts, ready[1], lock);
		/* The name is free before `start` hears why: it may be started
		 * again as soon as `start` returns. */
		if (holder < 0) {
			unlink(h.w.lock);
			report_ready(ready[1], "cannot fork the session's holder: %s%s", strerror(e),
			             fork_hint(e));
		}
		close(ready[0]);
		close(ready[1]);
		janitor_main(&h.w, holder, lock);
	}
	if (janitor < 0) {
		int e = errno;

		/* No janitor will remove the lock file: out does, as for any
		 * failure before the fork. */
		r = session_fail("cannot start session %s: cannot fork the session's janitor: %s%s",
		                 h.id, strerror(e), fork_hint(e));
		close(ready[0]);
		close(ready[1]);
		goto out;
	}
	close(ready[1]);
	close(lock);
	lock = -1;
	r = await_ready(ready[0], h.id);
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


/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* session-wire.c — how `osb-isolate session` clients and a session's holder
 * find and talk to each other (session-wire.h).
 *
 * A session id names a 0600 unix socket and a lock file in a private 0700
 * runtime directory; the holder holds the lock for its whole life, so a
 * socket whose lock nobody holds is stale. On the socket, one
 * SOCK_SEQPACKET packet is one message: a request (struct cli_req, then the
 * exec's strings, its fds by SCM_RIGHTS) and tagged replies. Every packet
 * received is checked in full before anything acts on it: the magic, the
 * counts against the strings, the final NUL, the fds.
 */
#include "session-wire.h"
#include "peer-pidns.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

int session_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: session: ", SESSION_PROG);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return OSB_EXIT_SETUP;
}

/* ---- names and paths --------------------------------------------------------- */

/* Letters, digits, '.', '_', '-'; not starting with '.' or '-'. */
bool session_id_valid(const char *id)
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
 * sockets in it run commands as us. Without XDG_RUNTIME_DIR (su, a container
 * without a login manager) an unprivileged caller falls back to
 * /tmp/osb-isolate-UID, as terminal multiplexers do: /tmp is sticky, so once
 * the directory is verified ours (lstat: a symlink is refused, not followed)
 * nobody else can rename or replace it; one planted by someone else is
 * refused, never used. */
int session_runtime_dir(struct where *w)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct stat st;
	int n;

	if (xdg && xdg[0] == '/')
		n = snprintf(w->dir, sizeof(w->dir), "%s/osb-isolate", xdg);
	else if (geteuid() == 0)
		n = snprintf(w->dir, sizeof(w->dir), "/run/osb-isolate");
	else
		n = snprintf(w->dir, sizeof(w->dir), "/tmp/osb-isolate-%u", (unsigned)geteuid());
	if (n < 0 || (size_t)n >= sizeof(w->dir) - ID_MAX - 7)
		return session_fail("the runtime directory %s/osb-isolate is too long for a unix socket path",
		            xdg ? xdg : "");
	if (mkdir(w->dir, 0700) < 0 && errno != EEXIST)
		return session_fail("cannot create %s: %s", w->dir, strerror(errno));
	if (lstat(w->dir, &st) < 0)
		return session_fail("cannot stat %s: %s", w->dir, strerror(errno));
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
		return session_fail("%s must be a directory owned by uid %u with mode 0700; refusing to "
		            "use it (remove it, or set XDG_RUNTIME_DIR to a private directory such as "
		            "/run/user/%u)", w->dir, (unsigned)geteuid(), (unsigned)geteuid());
	return 0;
}

/* session_runtime_dir() left room for the longest id. */
int session_set_paths(struct where *w, const char *id)
{
	if (snprintf(w->sock, sizeof(w->sock), "%s/%s.sock", w->dir, id) >= (int)sizeof(w->sock) ||
	    snprintf(w->lock, sizeof(w->lock), "%s/%s.lock", w->dir, id) >= (int)sizeof(w->lock))
		return session_fail("the socket path for session %s would be too long", id);
	return 0;
}

int session_locate(const char *id, struct where *w)
{
	int r;

	if (!session_id_valid(id))
		return session_fail("invalid session id \"%s\": use 1 to %d letters, digits, '.', '_' or '-', "
		            "not starting with '.' or '-'", id, ID_MAX);
	if ((r = session_runtime_dir(w)) != 0)
		return r;
	return session_set_paths(w, id);
}

/* Remove ID's files when no holder (nor its janitor) holds the lock.
 * Returns true when something stale was removed. */
bool session_clean_if_stale(const struct where *w)
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

/* Does a holder (or its janitor) hold ID's lock? Then a missing or refused
 * socket means it is still starting the session, or ending it. */
static bool session_lock_held(const struct where *w)
{
	int fd = open(w->lock, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	bool held;

	if (fd < 0)
		return false;
	held = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	return held;
}

/* ---- wire format between client and holder ------------------------------------ */

int wire_send_tagged(int fd, char tag, const void *data, size_t len)
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

int wire_send_status(int fd, int status)
{
	int32_t v = status;

	return wire_send_tagged(fd, 's', &v, sizeof(v));
}

int session_connect(const struct where *w)
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
	/* A socket another pid namespace listens on is not a holder's: a
	 * command inside a sandbox whose view shows this directory can put one
	 * there (under a new id, or over a live session's), and would receive
	 * the fds and the requests meant for a session (lib/peer-pidns.h). */
	if (!peer_in_own_pidns(fd)) {
		close(fd);
		return -EREMOTE;
	}
	return fd;
}

void session_wait_gone(const struct where *w, unsigned ms)
{
	for (unsigned waited = 0; (access(w->lock, F_OK) == 0 || access(w->sock, F_OK) == 0) &&
	     waited < ms; waited += 10)
		nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
}

/* Connect to session ID, cleaning up after a dead holder. */
int session_open(const char *id, struct where *w, int *fd)
{
	int r = session_locate(id, w);

	if (r != 0)
		return r;
	*fd = session_connect(w);
	if (*fd == -EREMOTE)
		return session_fail("session %s: %s is served from another pid namespace than this "
		                    "process's (made inside a sandbox whose view shows %s?); not used: "
		                    "stop the sessions whose workspace holds that directory, and keep "
		                    "XDG_RUNTIME_DIR out of every workspace", id, w->sock, w->dir);
	if (*fd == -ECONNREFUSED && session_clean_if_stale(w))
		return session_fail("no session named %s (its holder had died; removed its stale socket)", id);
	/* The holder listens only once its session is up: asking now would
	 * wait for a startup whose outcome nobody here can know. */
	if ((*fd == -ENOENT || *fd == -ECONNREFUSED) && session_lock_held(w))
		return session_fail("session %s is not ready: its holder is starting or ending it; try again "
		                    "in a moment", id);
	if (*fd == -ENOENT || *fd == -ECONNREFUSED)
		return session_fail("no session named %s (osb-isolate session list shows the running ones)", id);
	if (*fd < 0)
		return session_fail("cannot connect to %s: %s", w->sock, strerror(-*fd));
	return 0;
}

int wire_send_request(int fd, const struct cli_req *h, const char *strings, size_t len,
                        const int *fds, int nfds)
{
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int) * 3)]; } cm;
	struct iovec iov[2] = { { .iov_base = (void *)h, .iov_len = sizeof(*h) },
	                        { .iov_base = (void *)strings, .iov_len = len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };

	if (nfds < 0 || nfds > 3)
		return -EINVAL;
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
	return sendmsg(fd, &mh, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

/* ---- received requests ---------------------------------------------------------- */

void wire_request_free(struct wire_request *rq)
{
	for (int i = 0; i < rq->nfds; i++)
		close(rq->fds[i]);
	free(rq->argv);
	free(rq->env);
	free(rq->buf);
}

static int wire_split_strings(struct wire_request *rq, size_t len)
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

int wire_recv_request(int conn, struct wire_request *rq)
{
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int) * 3)]; } cm;
	struct iovec iov;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
	                     .msg_control = cm.b, .msg_controllen = sizeof(cm.b) };
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
	return rq->h.type == CLI_EXEC ? wire_split_strings(rq, (size_t)n) : 0;
}

/* The strings of an exec request: CWD ("" for the session's), ARGV and
 * ENV, each NUL-terminated, as one malloc'd buffer. 0, -ENOMEM, or -E2BIG
 * when the packet would exceed REQ_MAX. */
int wire_exec_strings(const char *cwd, const char *const *argv, size_t argc,
                      const char *const *env, size_t envc, char **strings, size_t *len)
{
	FILE *f = open_memstream(strings, len);

	if (!f)
		return -ENOMEM;
	fputs(cwd ? cwd : "", f);
	fputc('\0', f);
	for (size_t i = 0; i < argc; i++) {
		fputs(argv[i], f);
		fputc('\0', f);
	}
	for (size_t i = 0; i < envc; i++) {
		fputs(env[i], f);
		fputc('\0', f);
	}
	if (fclose(f) != 0) {
		free(*strings);
		*strings = NULL;
		return -ENOMEM;
	}
	if (*len + sizeof(struct cli_req) > REQ_MAX)
		return -E2BIG;
	return 0;
}

/* The reply packet BUF (N bytes): its tag, and its payload. */
int wire_reply_status(const char *buf, size_t n, int *status)
{
	int32_t v;

	if (n != 1 + sizeof(v) || buf[0] != 's')
		return -EINVAL;
	memcpy(&v, buf + 1, sizeof(v));
	*status = v;
	return 0;
}

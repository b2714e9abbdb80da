/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* session-owner.c — sessions owned by a process of the library's, not by the
 * caller's thread.
 *
 * bwrap's --die-with-parent is the kernel's parent-death signal, which
 * follows the thread that forked bwrap: started from a Go goroutine's thread
 * that the runtime later ends, a session died with it. So a session's bwrap
 * is started by its owner (helper/session-owner.c, the init program run on
 * the host), a single-threaded process that lives exactly as long as the
 * session, and which ties itself to the caller's process through a socket
 * only that process holds (lib/owner-proto.h). A thread of our own in the
 * caller would not do: it dies with the caller, leaving nobody to remove
 * the sandbox's cgroup or hold its host-id lock until the sandbox is gone,
 * and it could not keep a detached session past a restart. The owner is
 * spawned as bwrap was (lib/proc.c: exact fds, fixed environment, no
 * signal handler of the caller's), so nothing of the caller's process-wide
 * state changes.
 */
#include "session-owner.h"
#include "fork-hint.h"
#include "owner-proto.h"
#include "peer-pidns.h"
#include "proc.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#define OWNER_MAX_ARGS 4096

/* "--session-owner NFDS UID GID OOM NCG LOCK NHELD NDIRS DIR... NPH
 * (NAME DEV INO KEY)... --" then bwrap's (lib/owner-proto.h). */
static int owner_argv(const plan *pl, const strv *argv, size_t nfds, size_t ncg, strv *out)
{
	const cgroup *cg = pl->lim.cg;
	const placeholders *ph = &pl->made;
	size_t ndirs = cg ? cgroup_dir_count(cg) : 0;
	uint32_t uid = pl->use_cred ? pl->cred.uid : 0, gid = pl->use_cred ? pl->cred.gid : 0;

	/* The init, exec'd by the fd it has in bwrap's layout. */
	if (strv_pushf(out, "/proc/self/fd/%d", PFD_INIT_EXE) < 0 || strv_push(out, OWNER_ARG) < 0 ||
	    strv_pushf(out, "%zu", nfds) < 0 || strv_pushf(out, "%u", uid) < 0 ||
	    strv_pushf(out, "%u", gid) < 0 || strv_push(out, "1") < 0 ||
	    strv_pushf(out, "%zu", ncg) < 0 || strv_pushf(out, "%d", pl->host.lock_fd >= 0) < 0 ||
	    strv_pushf(out, "%zu", ph->n_held) < 0 || strv_pushf(out, "%zu", ndirs) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < ndirs; i++)
		if (strv_push(out, cgroup_dir_path(cg, i)) < 0)
			return -ENOMEM;
	if (strv_pushf(out, "%zu", ph->n) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < ph->n; i++)
		if (strv_push(out, ph->v[i].name) < 0 ||
		    strv_pushf(out, "%llu", (unsigned long long)ph->v[i].dev) < 0 ||
		    strv_pushf(out, "%llu", (unsigned long long)ph->v[i].ino) < 0 ||
		    strv_push(out, ph->v[i].key[0] ? ph->v[i].key : "-") < 0)
			return -ENOMEM;
	if (strv_push(out, "--") < 0)
		return -ENOMEM;
	for (size_t i = 0; i < argv->n; i++)
		if (strv_push(out, argv->v[i]) < 0)
			return -ENOMEM;
	return 0;
}

/* The owner's fds after bwrap's: life, cgroup.procs files, the host-id
 * lock, the shared locks, the placeholders' directories. */
static size_t owner_fds(const plan *pl, int life, const int *cg_fds, size_t ncg, int *all, size_t n)
{
	all[n++] = life;
	for (size_t i = 0; i < ncg; i++)
		all[n++] = cg_fds[i];
	/* Copies of the locks: held until the owner, which outlives the
	 * sandbox, is gone too. */
	if (pl->host.lock_fd >= 0)
		all[n++] = pl->host.lock_fd;
	for (size_t i = 0; i < pl->made.n_held; i++)
		all[n++] = pl->made.held[i];
	for (size_t i = 0; i < pl->made.n; i++)
		all[n++] = pl->made.v[i].parent_fd;
	return n;
}

/* Spawn the owner as lib/proc.c spawns bwrap. Its failure names the
 * owner, not the fd it is exec'd by, and says what a failed clone asks. */
static int start_owner(const strv *oargv, const int *fds, size_t nfds, int *pidfd,
                       osb_error *err)
{
	spawn_failure f;
	char what[1024];
	pid_t pid;

	if (spawn_start((const char *const *)oargv->v, spawn_fixed_env, fds, nfds, NULL, NULL, &pid,
	                pidfd, &f) == 0)
		return 0;
	spawn_failure_text(&f, "the session's owner", what, sizeof(what));
	return osb_err_set(err, spawn_failure_code(&f), f.sys_errno, spawn_failure_stage(&f),
	                   "cannot start the session's owner: %s%s", what,
	                   f.step == SPAWN_STEP_CLONE ? fork_hint(f.sys_errno) : "");
}

int owner_spawn(const plan *pl, const strv *argv, const int *fds, size_t nfds, int *life,
                int *pidfd, osb_error *err)
{
	int all[OWNER_MAX_ARGS], cg_fds[CG_MAX_DIRS], sv[2], r;
	size_t ncg = pl->lim.cg ? cgroup_attach_fds(pl->lim.cg, cg_fds, CG_MAX_DIRS) : 0, n;
	strv oargv = { 0 };

	*life = -1;
	if (nfds + 2 + ncg + pl->made.n_held + pl->made.n > OWNER_MAX_ARGS)
		return osb_err_set(err, OSB_E_INTERNAL, E2BIG, "spawn", "too many fds for the session owner");
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return osb_err_set(err, OSB_E_IO, errno, "spawn", "socketpair: %s", strerror(errno));
	memcpy(all, fds, nfds * sizeof(*fds));
	n = owner_fds(pl, sv[1], cg_fds, ncg, all, nfds);
	if (owner_argv(pl, argv, nfds, ncg, &oargv) < 0) {
		r = osb_err_set(err, OSB_E_NOMEM, ENOMEM, "spawn", "out of memory");
	} else {
		r = start_owner(&oargv, all, n, pidfd, err);
	}
	strv_free(&oargv);
	close(sv[1]);
	if (r < 0) {
		close(sv[0]);
		return r;
	}
	*life = sv[0];
	return 0;
}

/* ---- detached sessions ------------------------------------------------------------- */

int owner_dir_check(const char *dir, osb_error *err)
{
	struct stat st;

	if (!dir || dir[0] != '/')
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "session",
		                   "the directory of detached sessions must be an absolute path");
	if (lstat(dir, &st) < 0)
		return osb_err_set(err, OSB_E_PATH, errno, "session", "%s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return osb_err_set(err, OSB_E_PATH, ENOTDIR, "session",
		                   "%s is not a directory (a symbolic link is refused)", dir);
	if ((st.st_uid != geteuid() && st.st_uid != 0) || (st.st_mode & 022))
		return osb_err_set(err, OSB_E_PATH, EPERM, "session",
		                   "%s must belong to uid %u or root and be writable by nobody else "
		                   "(mode 0700)", dir, (unsigned)geteuid());
	return 0;
}

int owner_sock_path(const char *dir, const char *id, char *buf, size_t size, osb_error *err)
{
	size_t len = id ? strlen(id) : 0;
	int n;

	if (len == 0 || len > 64 || strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                                       "0123456789._-") != len || id[0] == '.')
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "session",
		                   "session id \"%s\": 1 to 64 letters, digits, '.', '_' or '-', not "
		                   "starting with '.'", id ? id : "(null)");
	n = snprintf(buf, size, "%s/%s.sock", dir, id);
	if (n < 0 || (size_t)n >= size || (size_t)n >= sizeof(((struct sockaddr_un *)0)->sun_path))
		return osb_err_set(err, OSB_E_USAGE, ENAMETOOLONG, "session",
		                   "%s/%s.sock is too long for a unix socket", dir, id);
	return 0;
}

static int send_with(int fd, const struct owner_msg *h, const void *a, size_t alen, const void *b,
                     size_t blen, const int *fds, size_t nfds)
{
	struct iovec iov[3] = { { (void *)h, sizeof(*h) }, { (void *)a, alen }, { (void *)b, blen } };
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int) * 2)]; } cm;
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 3 };
	ssize_t n;

	if (nfds) {
		struct cmsghdr *c;

		memset(cm.b, 0, sizeof(cm.b));
		mh.msg_control = cm.b;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	do
		n = sendmsg(fd, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : 0;
}

/* One message (blocking, at most TIMEOUT_MS): its header into *H, payload
 * into *BUF (malloc'd, NUL-terminated), fds into FDS. 0, or -errno (-EPIPE:
 * the other side hung up). */
static int recv_with(int fd, int timeout_ms, struct owner_msg *h, char **buf, size_t *len,
                     int *fds, size_t *nfds)
{
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int) * 2)]; } cm;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char *data = malloc(OWNER_STATE_MAX + 1);
	struct iovec iov[2] = { { h, sizeof(*h) }, { data, OWNER_STATE_MAX } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2, .msg_control = cm.b,
	                     .msg_controllen = sizeof(cm.b) };
	ssize_t n;
	int r;

	*nfds = 0;
	if (!data)
		return -ENOMEM;
	while ((r = poll(&p, 1, timeout_ms)) < 0 && errno == EINTR)
		;
	n = r == 0 ? -1 : recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
	r = r == 0 ? -ETIMEDOUT : n < 0 ? -errno : 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); n >= 0 && c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			memcpy(fds + *nfds, CMSG_DATA(c), sizeof(int) * (k > 2 ? 2 : k));
			*nfds += k > 2 ? 2 : k;
		}
	if (r == 0 && (n < (ssize_t)sizeof(*h) || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))))
		r = n == 0 ? -EPIPE : -EPROTO;
	if (r < 0) {
		for (size_t i = 0; i < *nfds; i++)
			close(fds[i]);
		*nfds = 0;
		free(data);
		return r;
	}
	*len = (size_t)n - sizeof(*h);
	data[*len] = '\0';
	*buf = data;
	return 0;
}

int owner_detach(int life, const char *path, const char *state, size_t len, int broker, int pid1,
                 osb_error *err)
{
	struct owner_msg h = { OWNER_DETACH, 0 };
	int fds[2] = { broker, pid1 }, got[2];
	size_t ngot = 0, rlen = 0;
	char *reply = NULL;
	int r;

	if (len > OWNER_STATE_MAX)
		return osb_err_set(err, OSB_E_USAGE, E2BIG, "session",
		                   "the session's state takes %zu bytes (its environment, mostly); a "
		                   "detached session may keep at most %u", len, OWNER_STATE_MAX);
	r = send_with(life, &h, path, strlen(path) + 1, state, len, fds, 2);
	if (r == 0)
		r = recv_with(life, 5000, &h, &reply, &rlen, got, &ngot);
	for (size_t i = 0; i < ngot; i++)
		close(got[i]);
	if (r < 0)
		return osb_err_set(err, OSB_E_SANDBOX, -r, "session",
		                   "the session's owner did not answer the detach: %s (the session has "
		                   "ended?)", strerror(-r));
	if (h.type != OWNER_OK) {
		r = osb_err_set(err, OSB_E_SANDBOX, 0, "session", "the session's owner refused to "
		                "detach: %s", h.type == OWNER_FAILED ? reply : "unexpected answer");
		free(reply);
		return r;
	}
	free(reply);
	return 0;
}

/* The owner must be who a private directory says it is: us, or root. */
static bool owner_trusted(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 &&
	       (cred.uid == geteuid() || cred.uid == 0);
}

int owner_attach(const char *path, int *link, char **state, size_t *len, int *broker, int *pid1,
                 osb_error *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct owner_msg h;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0), fds[2], r;
	size_t nfds = 0;

	if (fd < 0)
		return osb_err_set(err, OSB_E_IO, errno, "session", "socket: %s", strerror(errno));
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		r = osb_err_set(err, OSB_E_SANDBOX, errno, "session", "cannot attach to %s: %s (no "
		                "such detached session, or it has ended)", path, strerror(errno));
		close(fd);
		return r;
	}
	if (!owner_trusted(fd)) {
		close(fd);
		return osb_err_set(err, OSB_E_SANDBOX, EPERM, "session",
		                   "%s is served by another uid; refusing to attach", path);
	}
	/* Not an owner of ours: a command inside a sandbox whose view shows
	 * the directory, of our uid, can listen there (lib/peer-pidns.h). */
	if (!peer_in_own_pidns(fd)) {
		close(fd);
		return osb_err_set(err, OSB_E_SANDBOX, EPERM, "session",
		                   "%s is served from another pid namespace (inside a sandbox?); "
		                   "refusing to attach", path);
	}
	r = recv_with(fd, 5000, &h, state, len, fds, &nfds);
	if (r == 0 && (h.type != OWNER_ATTACHED || nfds != 2)) {
		for (size_t i = 0; i < nfds; i++)
			close(fds[i]);
		free(*state);
		*state = NULL;
		r = -EPROTO;
	}
	if (r < 0) {
		close(fd);
		return osb_err_set(err, OSB_E_SANDBOX, r == -EPIPE ? EPERM : -r, "session",
		                   "the owner of %s refused the attach%s", path,
		                   r == -EPIPE ? " (only its own uid or root may attach, and not from inside a sandbox)" : "");
	}
	*link = fd;
	*broker = fds[0];
	*pid1 = fds[1];
	return 0;
}

void owner_stop(int chan, int timeout_ms)
{
	struct owner_msg h = { OWNER_STOP, 0 };
	uint64_t end = now_ms() + (uint64_t)timeout_ms;
	char buf[64];

	if (send_with(chan, &h, NULL, 0, NULL, 0, NULL, 0) < 0)
		return;
	/* Until it hangs up: read its OWNER_ENDED and then EOF. */
	for (;;) {
		struct pollfd p = { .fd = chan, .events = POLLIN };
		uint64_t now = now_ms();
		ssize_t n;

		if (now >= end || poll(&p, 1, (int)(end - now)) <= 0)
			return;
		n = recv(chan, buf, sizeof(buf), MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			return;
	}
}

int owner_ended(int chan, int *status)
{
	struct owner_msg h;
	ssize_t n = recv(chan, &h, sizeof(h), MSG_DONTWAIT | MSG_PEEK);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 1;
	if (n == (ssize_t)sizeof(h) && h.type == OWNER_ENDED) {
		*status = h.value;
		return 0;
	}
	return -1;
}

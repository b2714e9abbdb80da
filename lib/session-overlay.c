/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* session-overlay.c — a session's overlay workspace, read from the host.
 *
 * At start the session keeps a duplicate of the plan's verified fd of the
 * workspace, the overlay's lower layer. The upper layer lies on a tmpfs no
 * path leads to; the session's broker holds a directory fd of it and sends
 * it over the session socket on request (lib/init-proto.h, "LAYER_GET"),
 * so the library walks it beneath that fd (lib/overlay-diff.c) with the
 * caller's own rights, never by a name. Nothing here runs inside the
 * sandbox, and nothing the sandbox wrote is resolved as a host path. A
 * persisted layer (lib/layer.h) lies in a caller's directory instead: the
 * session keeps its fd, and with it the lock that makes it this session's
 * alone, and a discard empties it.
 *
 * Review, then apply: the session's commands may still write the layer
 * after a diff has shown it, so each diff and export keeps the fingerprint
 * of the list it showed (ovl_fingerprint: the changes and the bytes of
 * every file), and a commit, which lists the layer again once the sandbox
 * is held still, applies that list only when its fingerprint is the last
 * one shown; otherwise nothing is applied. The commit then writes only the
 * bytes it hashed (overlay-commit.c).
 */
#include "session-overlay.h"
#include "session.h"
#include "overlay-diff.h"
#include "overlay-export.h"
#include "overlay-commit.h"
#include "overlay-report.h"
#include "init-proto.h"
#include "layer.h"
#include "paths.h"
#include "plan.h"
#include "policy-values.h"
#include "util.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>

int session_overlay_copy(session_overlay *ov, const plan *pl, osb_error *err)
{
	struct stat st;

	ov->ws_mode = policy_ws_names[pl->p->ws_mode];
	if (!pl->overlay_size || !pl->ws_dest)
		return 0;
	for (size_t i = 0; i < pl->n_binds && ov->ws_fd < 0; i++)
		if (strcmp(pl->binds[i].dest, pl->ws_dest) == 0)
			ov->ws_fd = fcntl(pl->binds[i].fd, F_DUPFD_CLOEXEC, 3);
	if (ov->ws_fd < 0)
		return osb_err_set(err, OSB_E_INTERNAL, errno, "session",
		                   "the overlay workspace's fd is not in the plan");
	for (size_t i = 0; i < pl->n_binds && ov->layer_fd < 0; i++)
		if (pl->binds[i].layer && (ov->layer_fd = fcntl(pl->binds[i].fd, F_DUPFD_CLOEXEC, 3)) < 0)
			return osb_err_set(err, OSB_E_IO, errno, "session", "cannot keep the persisted "
			                   "layer's fd: %s", strerror(errno));
	ov->userxattr = pl->userns;
	if (fstat(ov->ws_fd, &st) == 0 && path_fd_name(ov->ws_fd, &st, &ov->ws_path) < 0)
		ov->ws_path = NULL;
	return 0;
}

void session_overlay_release(session_overlay *ov)
{
	if (ov->ws_fd >= 0)
		close(ov->ws_fd);
	ov->ws_fd = -1;
	if (ov->layer_fd >= 0)
		close(ov->layer_fd);   /* and with it the layer's lock */
	ov->layer_fd = -1;
	free(ov->ws_path);
	ov->ws_path = NULL;
}

/* ---- the broker's answer ----------------------------------------------------------- */

/* The reply's one fd, or -1. Every fd of any other control data (two fds,
 * several messages, more than fit: MSG_CTRUNC) is closed here: they are
 * this process's once received, and the caller is a long-running daemon
 * that would keep them open. */
static int take_fd(struct msghdr *mh)
{
	int fd = -1, n = 0;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		size_t k;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++, n++) {
			int got;

			memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (n == 0)
				fd = got;
			else
				close(got);
		}
	}
	if (fd >= 0 && (n > 1 || (mh->msg_flags & MSG_CTRUNC))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static int reply_error(const struct session_layer_reply *rp, osb_error *err)
{
	if (rp->err == EBUSY && rp->running)
		return osb_err_set(err, OSB_E_USAGE, EBUSY, "session", "%u command%s run%s in the "
		                   "session; wait until %s ended", (unsigned)rp->running,
		                   rp->running == 1 ? "" : "s", rp->running == 1 ? "s" : "",
		                   rp->running == 1 ? "it has" : "they have");
	if (rp->err == EBUSY)
		return osb_err_set(err, OSB_E_SANDBOX, EBUSY, "session", "a process of the session "
		                   "did not end when it was killed; try again");
	if (rp->err == ENOENT)
		return osb_err_set(err, OSB_E_USAGE, ENOENT, "session",
		                   "the session's sandbox has no overlay workspace");
	return osb_err_set(err, OSB_E_SANDBOX, rp->err, "session", "the session's broker "
	                   "refused the layer request: %s", strerror(rp->err));
}

/* A layer reply refused as malformed: HOW it is ("not exactly one fd"),
 * and as the refusal says it ("without exactly one fd ..."). S is unusable
 * from then on. */
static int layer_malformed(osb_session *s, osb_error *err, const char *how, const char *said)
{
	if (s)
		session_broken(s, "layer reply", how);
	return osb_err_set(err, OSB_E_SANDBOX, EPROTO, "session", "the session's broker answered "
	                   "the layer request %s: the session is unusable; destroy it", said);
}

int session_layer_await(osb_session *s, int chan, bool want_fd, int *fd, osb_error *err)
{
	struct session_layer_reply rp = { 0 };
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } cm;
	struct iovec iov = { .iov_base = &rp, .iov_len = sizeof(rp) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
	                     .msg_control = cm.b, .msg_controllen = sizeof(cm.b) };
	char longer[48], with_longer[56];
	ssize_t n;
	int r = 0;

	snprintf(longer, sizeof(longer), "more than a reply's %zu bytes", sizeof(rp));
	snprintf(with_longer, sizeof(with_longer), "with %s", longer);
	do
		n = recvmsg(chan, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	*fd = n > 0 ? take_fd(&mh) : -1;
	/* A packet longer than a reply comes cut to the reply's size: its first
	 * bytes would read as a well-formed answer. */
	if (n > 0 && (mh.msg_flags & MSG_TRUNC))
		r = layer_malformed(s, err, longer, with_longer);
	else if (n > 0 && (mh.msg_flags & MSG_CTRUNC))
		r = layer_malformed(s, err, "more fds than fit a reply",
		                    "with more fds than fit a reply");
	else if (n != (ssize_t)sizeof(rp) || rp.type != SESSION_LAYER_REPLY)
		r = osb_err_set(err, OSB_E_SANDBOX, n < 0 ? errno : 0, "session",
		                "the session ended before its broker answered");
	else if (rp.err)
		r = reply_error(&rp, err);
	else if (want_fd && *fd < 0)
		r = layer_malformed(s, err, "not exactly one fd",
		                    "without exactly one fd (the upper directory)");
	/* A release's answer brings no fd: a stray one is closed, not kept. */
	if ((r < 0 || !want_fd) && *fd >= 0) {
		close(*fd);
		*fd = -1;
	}
	return r;
}

/* Ask the broker for OP (enum session_layer_op); *FD: the upper directory. */
int session_layer_call(osb_session *s, unsigned op, int *fd, osb_error *err)
{
	struct session_layer_req rq = { .type = SESSION_LAYER, .op = op };
	int ch[2], r;

	*fd = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ch) < 0)
		return osb_err_set(err, OSB_E_IO, errno, "session", "socketpair: %s", strerror(errno));
	r = session_send_control(s, &rq, sizeof(rq), ch[1], err);
	close(ch[1]);
	if (r == 0)
		r = session_layer_await(s, ch[0], op != LAYER_RELEASE, fd, err);
	close(ch[0]);
	return r;
}

/* ---- the public calls -------------------------------------------------------------- */

/* SESSION's overlay state, or -OSB_E_USAGE when it has none. */
int session_overlay_need(osb_session *s, const char *call, session_overlay **ov, osb_error *err)
{
	if (!s)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "usage", "%s needs a session", call);
	*ov = session_overlay_of(s);
	if ((*ov)->ws_fd < 0)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "session", "%s: the session's workspace "
		                   "is not an overlay (\"workspace overlay\", --workspace-mode overlay)",
		                   call);
	return 0;
}

/* D is what the caller was shown: its fingerprint is the one a commit
 * must match. */
static void remember_shown(session_overlay *ov, const osb_diff *d)
{
	uint8_t fp[SHA256_DIGEST_LEN];

	ovl_fingerprint(d, fp);
	pthread_mutex_lock(&ov->review_lock);
	memcpy(ov->review, fp, sizeof(fp));
	ov->reviewed = true;
	pthread_mutex_unlock(&ov->review_lock);
}

/* D (listed with the sandbox held) may be applied: it is what the last
 * diff showed, or nothing was shown and FLAGS does not ask for a review.
 * Else WHY says why not. */
static int check_shown(session_overlay *ov, const osb_diff *d, unsigned flags, osb_error *why)
{
	uint8_t fp[SHA256_DIGEST_LEN];
	bool reviewed, same;

	ovl_fingerprint(d, fp);
	pthread_mutex_lock(&ov->review_lock);
	reviewed = ov->reviewed;
	same = reviewed && memcmp(fp, ov->review, sizeof(fp)) == 0;
	pthread_mutex_unlock(&ov->review_lock);
	if (!reviewed && (flags & OSB_COMMIT_REVIEWED))
		return osb_err_set(why, OSB_E_USAGE, ENODATA, "session", "no session diff has shown "
		                   "the changes yet; run session diff, review them, then commit");
	if (reviewed && !same)
		return osb_err_set(why, OSB_E_USAGE, ESTALE, "session", "the changes differ from what "
		                   "the last session diff showed; run session diff again");
	return 0;
}

/* The commit of D refused before it began: nothing applied, the report
 * says so. */
static int refuse_unshown(const osb_error *why, const osb_diff *d, json_object **rep,
                          osb_error *err)
{
	*rep = ovl_commit_refused(d, why);
	return osb_err_set(err, why->code, why->sys_errno, "session", "commit refused, nothing was "
	                   "applied: %s", why->message);
}

int osb_session_diff(osb_session *s, unsigned flags, osb_diff **out, osb_error *err)
{
	_cleanup_close_ int upper = -1;
	session_overlay *ov;
	int r;

	osb_err_clear(err);
	if (!out)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "usage", "osb_session_diff needs a "
		                   "place for the list");
	*out = NULL;
	if (flags)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "usage", "osb_session_diff: unknown "
		                   "flags %#x (none is defined)", flags);
	if ((r = session_overlay_need(s, "osb_session_diff", &ov, err)) < 0 ||
	    (r = session_layer_call(s, LAYER_GET, &upper, err)) < 0 ||
	    (r = ovl_diff(upper, ov->ws_fd, ov->userxattr, out, err)) < 0)
		return r;
	if (ov->ws_path && !((*out)->workspace = strdup(ov->ws_path))) {
		osb_diff_free(*out);
		*out = NULL;
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "session", "out of memory");
	}
	remember_shown(ov, *out);
	return 0;
}

int osb_session_export(osb_session *s, int fd, unsigned flags, osb_error *err)
{
	_cleanup_close_ int upper = -1;
	session_overlay *ov;
	osb_diff *d = NULL;
	int r;

	osb_err_clear(err);
	if (fd < 0 || flags)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "usage", "osb_session_export needs an fd "
		                   "and flags 0");
	if ((r = session_overlay_need(s, "osb_session_export", &ov, err)) < 0 ||
	    (r = session_layer_call(s, LAYER_GET, &upper, err)) < 0 ||
	    (r = ovl_diff(upper, ov->ws_fd, ov->userxattr, &d, err)) < 0)
		return r;
	if ((r = ovl_export(upper, d, fd, err)) == 0)
		remember_shown(ov, d);
	osb_diff_free(d);
	return r;
}

/* The commit on a held session; the hold ends whatever happens. */
static int commit_held(osb_session *s, session_overlay *ov, int upper, unsigned flags,
                       char **report, osb_error *err)
{
	json_object *rep = NULL;
	osb_diff *d = NULL;
	osb_error rel, why;
	int r, dummy = -1;

	r = ovl_diff(upper, ov->ws_fd, ov->userxattr, &d, err);
	if (r == 0 && ov->ws_path && !(d->workspace = strdup(ov->ws_path)))
		r = osb_err_set(err, OSB_E_NOMEM, ENOMEM, "session", "out of memory");
	if (r == 0 && check_shown(ov, d, flags, &why) < 0)
		r = refuse_unshown(&why, d, &rep, err);
	else if (r == 0)
		r = ovl_commit(upper, ov->ws_fd, d, &rep, err);
	osb_diff_free(d);
	if (session_layer_call(s, LAYER_RELEASE, &dummy, &rel) < 0 && r == 0)
		r = osb_err_set(err, rel.code, rel.sys_errno, "session", "the changes were committed, "
		                "but the session could not be released: %s", rel.message);
	if (report)
		*report = ovl_json_text(rep);
	else
		json_object_put(rep);
	return r;
}

int osb_session_commit(osb_session *s, unsigned flags, char **report, osb_error *err)
{
	_cleanup_close_ int upper = -1;
	session_overlay *ov;
	int r;

	osb_err_clear(err);
	if (report)
		*report = NULL;
	if (flags & ~(unsigned)OSB_COMMIT_REVIEWED)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "usage", "osb_session_commit: unknown "
		                   "flags %#x (OSB_COMMIT_REVIEWED is the one defined)",
		                   flags & ~(unsigned)OSB_COMMIT_REVIEWED);
	if ((r = session_overlay_need(s, "osb_session_commit", &ov, err)) < 0 ||
	    (r = session_layer_call(s, LAYER_HOLD, &upper, err)) < 0)
		return r;
	return commit_held(s, ov, upper, flags, report, err);
}

int osb_session_discard(osb_session *s, osb_error *err)
{
	session_overlay *ov;
	int r;

	osb_err_clear(err);
	if ((r = session_overlay_need(s, "osb_session_discard", &ov, err)) < 0 ||
	    (r = osb_session_destroy(s, err)) < 0)
		return r;
	/* A persisted layer is the caller's directory: emptied once the
	 * sandbox, and with it the overlay, is gone; still locked meanwhile. */
	return ov->layer_fd >= 0 ? layer_clear(ov->layer_fd, err) : 0;
}

const char *osb_session_workspace_mode(osb_session *s)
{
	return s ? session_overlay_of(s)->ws_mode : NULL;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* broker-overlay.c — an overlay session's upper layer, served by the broker.
 *
 * The upper directory lies on a tmpfs that no path leads to (init-overlay.c);
 * the init opened it while it still held the overlay step's capabilities and
 * the broker keeps that fd. The library asks for it over the session socket
 * (lib/init-proto.h, "LAYER_GET", "LAYER_HOLD") and walks it itself, from
 * the host, beneath that fd (lib/overlay-diff.c): the broker reads nothing
 * of the layer and trusts none of its names. Processes of the sandbox cannot
 * take the fd from the broker: it is not dumpable and the seccomp filter
 * denies pidfd_getfd and ptrace.
 *
 * A hold is what makes a commit read a still layer: it is refused while a
 * command runs; otherwise every other process of the sandbox (those that
 * left their command's process group included) is killed and reaped before
 * the answer, and no command starts until the library releases it. As the
 * sandbox's pid 1 the broker is the parent of every orphan, so once waitpid
 * says there is no child, nothing of the sandbox runs.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "init-proto.h"
#include "broker-overlay.h"

/* How long the processes killed for a hold may take to be gone. */
#define HOLD_REAP_MS 5000

static int upper_fd = -1;
static bool held;

void layer_init(int fd)
{
	upper_fd = fd;
}

bool layer_held(void)
{
	return held;
}

bool layer_is_request(const void *buf, size_t n)
{
	uint32_t type;

	if (n < sizeof(type))
		return false;
	memcpy(&type, buf, sizeof(type));
	return type == SESSION_LAYER;
}

/* The reply channel: the first fd of MH; every other one is closed. */
static int take_channel(struct msghdr *mh)
{
	int chan = -1;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		size_t n;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (chan < 0)
				chan = fd;
			else
				close(fd);
		}
	}
	return chan;
}

static void send_reply(int chan, int err, size_t running, int fd)
{
	struct session_layer_reply r = { .type = SESSION_LAYER_REPLY, .err = err,
	                                 .running = (uint32_t)running };
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } cm;
	struct iovec iov = { .iov_base = &r, .iov_len = sizeof(r) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		struct cmsghdr *c;

		memset(cm.b, 0, sizeof(cm.b));
		mh.msg_control = cm.b;
		mh.msg_controllen = sizeof(cm.b);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	/* A library that went away is not an error. */
	(void)sendmsg(chan, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Kill every other process of the pid namespace and reap them all: 0 once
 * the broker has no child left, -EBUSY when one outlived HOLD_REAP_MS.
 * kill(-1) means "the sandbox" only to the namespace's pid 1, which bwrap
 * makes the broker (--as-pid-1, --unshare-pid); anywhere else (the init run
 * by hand on a host) it would reach every process the caller may signal,
 * so it is refused there. */
static int stop_everything(void)
{
	uint64_t end = now_ms() + HOLD_REAP_MS;

	if (getpid() != 1)
		return -EPERM;
	if (kill(-1, SIGKILL) < 0 && errno != ESRCH)
		return -errno;
	for (;;) {
		pid_t w = waitpid(-1, NULL, WNOHANG);

		if (w < 0 && errno == ECHILD)
			return 0;
		if (w > 0 || (w < 0 && errno == EINTR))
			continue;
		if (w < 0)
			return -errno;
		if (now_ms() >= end)
			return -EBUSY;
		poll(NULL, 0, 5);
	}
}

void layer_on_request(const void *buf, size_t n, struct msghdr *mh, size_t n_jobs)
{
	struct session_layer_req rq;
	int chan = take_channel(mh), r = 0;

	if (chan < 0)
		return;   /* nowhere to answer; the library never does this */
	memset(&rq, 0, sizeof(rq));
	if (n != sizeof(rq) || (mh->msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
		r = -EINVAL;
	else
		memcpy(&rq, buf, sizeof(rq));
	if (r == 0 && rq.op == LAYER_RELEASE) {
		held = false;
		send_reply(chan, 0, 0, -1);
		close(chan);
		return;
	}
	if (r == 0 && rq.op != LAYER_GET && rq.op != LAYER_HOLD)
		r = -EINVAL;
	if (r == 0 && upper_fd < 0)
		r = -ENOENT;
	if (r == 0 && rq.op == LAYER_HOLD && n_jobs > 0)
		r = -EBUSY;
	if (r == 0 && rq.op == LAYER_HOLD && (r = stop_everything()) == 0)
		held = true;
	send_reply(chan, -r, r == -EBUSY ? n_jobs : 0, r == 0 ? upper_fd : -1);
	close(chan);
}

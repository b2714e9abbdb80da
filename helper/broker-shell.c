/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* broker-shell.c — the broker's half of shell-state sessions.
 *
 * In a shell-state session (lib/shell-state.c) each command is a shell
 * that, when the command has run, writes its working directory and its
 * exported variables to fd SESSION_STATE_FD, a pipe of its own. The broker
 * reads that pipe while the command runs (a large environment must not
 * block the shell), and once the leader has exited sends what it got to the
 * library on the command's channel, before the exit report. The state never
 * shares a channel with the command's output, and the exit status is still
 * the broker's own wait status of the leader: a command can at most set the
 * state its next command starts from, which it could do by running there.
 */
#include "broker-shell.h"
#include "init-proto.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

int shell_state_open(struct shell_state *st, int *wr)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	if (fcntl(p[0], F_SETFL, O_NONBLOCK) < 0) {
		int e = errno;

		close(p[0]);
		close(p[1]);
		return -e;
	}
	*st = (struct shell_state)SHELL_STATE_INIT;
	st->fd = p[0];
	*wr = p[1];
	return 0;
}

int shell_state_child(int wr)
{
	if (wr == SESSION_STATE_FD)
		return fcntl(wr, F_SETFD, 0) < 0 ? -1 : 0;
	return dup2(wr, SESSION_STATE_FD) < 0 ? -1 : 0;
}

void shell_state_read(struct shell_state *st)
{
	char chunk[16384];

	while (st->fd >= 0) {
		ssize_t n = read(st->fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			close(st->fd);
			st->fd = -1;
			return;
		}
		if (st->overflow || st->len + (size_t)n > SESSION_MSG_MAX - sizeof(struct session_state)) {
			st->overflow = true;
			continue;
		}
		if (!st->buf && !(st->buf = malloc(SESSION_MSG_MAX))) {
			st->overflow = true;
			continue;
		}
		memcpy(st->buf + st->len, chunk, (size_t)n);
		st->len += (size_t)n;
	}
}

void shell_state_send(int chan, struct shell_state *st)
{
	struct session_state h = { SESSION_STATE, 0 };

	shell_state_read(st);
	if (chan < 0 || st->overflow || st->len == 0)
		return;
	h.len = (uint32_t)st->len;
	{
		struct iovec iov[2] = { { &h, sizeof(h) }, { st->buf, st->len } };
		struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };

		(void)sendmsg(chan, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	}
}

void shell_state_free(struct shell_state *st)
{
	if (st->fd >= 0)
		close(st->fd);
	free(st->buf);
	*st = (struct shell_state)SHELL_STATE_INIT;
}

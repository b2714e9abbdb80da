/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* init-net.c — the relay of "network allow" (init-net.h).
 *
 * The sandbox keeps its private network namespace with loopback only
 * (bwrap 0.8 brings loopback up in it); nothing routes out. Its one way out
 * is the control socket, a SOCK_SEQPACKET socket whose other end is held by
 * the filtering proxy outside (helper/netproxy.c). The relay listens on
 * 127.0.0.1:PORT and sends each accepted connection's socket, as it is,
 * over that socket: the proxy then reads and writes the very socket the
 * client connected, so the relay copies no byte and decides nothing. It is
 * not a boundary: a process that took it over could only send the proxy
 * more connections, which is what connecting to PORT does anyway; the proxy
 * checks that whatever arrives is a TCP socket and decides every request.
 */
#include "init-net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>

static int bad_value(struct guard_error *e, const char *value)
{
	guard_err(e, EINVAL, "--net-relay \"%s\": expected FD:PORT, given once", value);
	return -1;
}

int net_parse(struct net_opts *o, const char *name, const char *value, struct guard_error *e)
{
	unsigned long fd, port;
	char *end;

	if (strcmp(name, "--net-relay") != 0)
		return 0;
	if (o->ctl_fd >= 0)
		return bad_value(e, value);
	errno = 0;
	fd = strtoul(value, &end, 10);
	if (errno || end == value || *end != ':' || fd < 3 || fd > 65535)
		return bad_value(e, value);
	port = strtoul(end + 1, &end, 10);
	if (errno || *end || port == 0 || port > 65535)
		return bad_value(e, value);
	o->ctl_fd = (int)fd;
	o->port = (unsigned)port;
	return 1;
}

static int listen_loopback(unsigned port, struct guard_error *e)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
	                         .sin_addr = { htonl(INADDR_LOOPBACK) } };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return guard_err(e, errno, "socket: %s", strerror(errno));
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 128) < 0) {
		int err = errno;

		close(fd);
		return guard_err(e, err, "cannot listen on 127.0.0.1:%u inside the sandbox: %s", port,
		            strerror(err));
	}
	return fd;
}

/* Send FD over CTL: false when the proxy is gone. */
static bool pass_on(int ctl, int fd)
{
	char byte = 'C';
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } cm;
	struct iovec iov = { &byte, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b,
	                    .msg_controllen = sizeof(cm.b) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	ssize_t r;

	memset(cm.b, 0, sizeof(cm.b));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	do
		r = sendmsg(ctl, &m, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	return r == 1;
}

__attribute__((noreturn))
static void relay_loop(int lfd, int ctl)
{
	/* Not readable by ptrace or /proc/PID/mem of the sandbox's own uid. */
	prctl(PR_SET_DUMPABLE, 0);
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0 && (errno == EINTR || errno == ECONNABORTED || errno == EMFILE ||
		               errno == ENFILE || errno == ENOBUFS || errno == ENOMEM))
			continue;
		if (fd < 0)
			_exit(1);
		if (!pass_on(ctl, fd))
			_exit(0);
		close(fd);
	}
}

/* Every fd of the relay but the listener and the control socket goes. */
static void keep_only(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a;

	if (lo > 0)
		syscall(SYS_close_range, 0U, (unsigned)lo - 1, 0U);
	if (hi > lo + 1)
		syscall(SYS_close_range, (unsigned)lo + 1, (unsigned)hi - 1, 0U);
	syscall(SYS_close_range, (unsigned)hi + 1, ~0U, 0U);
}

int net_relay_start(const struct net_opts *o, struct guard_error *e)
{
	int type = 0, lfd;
	socklen_t len = sizeof(type);
	pid_t pid;

	if (getsockopt(o->ctl_fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_SEQPACKET)
		return guard_err(e, errno ? errno : EINVAL, "--net-relay: fd %d is not a SOCK_SEQPACKET "
		            "socket", o->ctl_fd);
	if ((lfd = listen_loopback(o->port, e)) < 0)
		return lfd;
	pid = fork();
	if (pid < 0) {
		int err = errno;

		close(lfd);
		return guard_err(e, err, "cannot start the relay: fork: %s", strerror(err));
	}
	if (pid == 0) {
		keep_only(lfd, o->ctl_fd);
		relay_loop(lfd, o->ctl_fd);
	}
	close(lfd);
	close(o->ctl_fd);
	return 0;
}

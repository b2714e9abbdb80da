/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* netproxy.c — osb-isolate-netproxy, the filtering proxy of a sandbox with
 * "network allow" (docs/ARCHITECTURE.md, "Network allowlists").
 *
 * The library starts one per sandbox, outside it, unprivileged (a root
 * caller's proxy runs as the sandbox's own host ids) and with a fixed
 * environment. Its only way in is the control socket: the sandbox's relay
 * (helper/init-net.c) accepts each connection made to 127.0.0.1:PORT inside
 * and sends that socket here (SCM_RIGHTS); each is served by a child of its
 * own (netproxy-conn.c), which dies with this process. When every holder of
 * the control socket's other end is gone (the sandbox has ended, or its
 * caller was killed) the proxy exits, and so do its children; it also
 * exits when its lifeline, a pipe whose write end only the caller holds,
 * reaches EOF, so that a caller's death ends it even while a sandbox
 * lingers.
 *
 * Once it has read its entries and its hosts file it sends one byte,
 * NETPROXY_READY, on the control socket: the library waits for it, with a
 * deadline, before the sandbox gets the other end, so that a proxy that
 * cannot start fails the launch instead of leaving a sandbox without a
 * network (lib/netallow-proxy.c). Its diagnostics go to fd 2, the log; it
 * writes them only before it is ready. The log holds NETPROXY_LOG_MAX bytes
 * at most (netproxy-conn.c, log_append), as does the copy, which must be
 * open for reading and writing too.
 *
 * Usage: osb-isolate-netproxy --ctl-fd N --log-fd N [--life-fd N]
 *        [--hosts-fd N [--hosts-name NAME]] [--copy-fd N] -- ENTRY...
 */
#include "netproxy-conn.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#define MAX_CONNS 64            /* connections served at once */
#define HOSTS_MAX ((size_t)1 << 20)

typedef struct opts {
	int ctl_fd, log_fd, hosts_fd, copy_fd, life_fd;
	const char *hosts_name;      /* how messages name the hosts file */
	char **entries;
	int n_entries;
} opts;

__attribute__((noreturn, format(printf, 1, 2)))
static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("osb-isolate-netproxy: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static int fd_arg(const char *name, const char *v)
{
	char *end;
	long n = strtol(v, &end, 10);

	if (!*v || *end || n < 0 || n > 1 << 20 || fcntl((int)n, F_GETFD) < 0)
		die("%s: \"%s\" is not an open file descriptor", name, v);
	return (int)n;
}

static void parse_args(int argc, char **argv, opts *o)
{
	int i;

	*o = (opts){ -1, -1, -1, -1, -1, "the hosts file", NULL, 0 };
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--hosts-name") == 0 && i + 1 < argc) {
			o->hosts_name = argv[++i];
			continue;
		}
		int *slot = strcmp(argv[i], "--ctl-fd") == 0 ? &o->ctl_fd :
		            strcmp(argv[i], "--log-fd") == 0 ? &o->log_fd :
		            strcmp(argv[i], "--hosts-fd") == 0 ? &o->hosts_fd :
		            strcmp(argv[i], "--copy-fd") == 0 ? &o->copy_fd :
		            strcmp(argv[i], "--life-fd") == 0 ? &o->life_fd : NULL;

		if (!slot || i + 1 >= argc)
			die("unexpected argument \"%s\" (usage: --ctl-fd N --log-fd N [--life-fd N] "
			    "[--hosts-fd N [--hosts-name NAME]] [--copy-fd N] -- ENTRY...)", argv[i]);
		*slot = fd_arg(argv[i], argv[i + 1]);
		i++;
	}
	if (o->ctl_fd < 0 || o->log_fd < 0 || i + 1 >= argc)
		die("--ctl-fd, --log-fd and at least one entry after -- are needed");
	o->entries = argv + i + 1;
	o->n_entries = argc - i - 1;
}

static na_entry *read_entries(const opts *o)
{
	na_entry *v = calloc((size_t)o->n_entries, sizeof(*v));

	if (!v)
		die("out of memory");
	for (int i = 0; i < o->n_entries; i++) {
		const char *why = netallow_parse(o->entries[i], &v[i]);

		if (why)
			die("entry \"%s\": %s", o->entries[i], why);
	}
	return v;
}

/* The caller's hosts file, read once before any connection. */
static size_t read_hosts(int fd, const char *name, host_map **out)
{
	char *buf = malloc(HOSTS_MAX + 1), why[160] = "";
	size_t len = 0;
	unsigned bad = 0;
	long n;
	ssize_t r;

	*out = NULL;
	if (fd < 0)
		return (free(buf), 0);
	if (!buf)
		die("out of memory");
	while (len < HOSTS_MAX && ((r = read(fd, buf + len, HOSTS_MAX - len)) > 0 ||
	                           (r < 0 && errno == EINTR)))
		len += r > 0 ? (size_t)r : 0;
	buf[len] = '\0';
	close(fd);
	n = hosts_parse(buf, out, &bad, why, sizeof(why));
	free(buf);
	if (n < 0)
		die("net-hosts %s:%u: %s (each line is \"ADDRESS NAME...\"): correct the file, or "
		    "the host configuration's net-hosts", name, bad, why);
	return (size_t)n;
}

/* The fds one control message may bring; the relay sends one. */
#define RECV_FDS 4

/* A connection the relay sent: one fd in an SCM_RIGHTS message of one
 * byte. 1 and *FD set, 0 when the other end is gone, -1 for a message
 * without an fd, or for one cut to the buffers (longer than a byte:
 * MSG_TRUNC; more fds than RECV_FDS: MSG_CTRUNC) with *WHY saying so: its
 * first fd is not the connection it would be taken for. Every fd but the
 * one taken is closed. */
static int receive(int ctl, int *fd, const char **why)
{
	char byte;
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int) * RECV_FDS)]; } cm;
	struct iovec iov = { &byte, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b,
	                    .msg_controllen = sizeof(cm.b) };
	ssize_t r;

	do
		r = recvmsg(ctl, &m, MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return 0;
	*fd = -1;
	*why = (m.msg_flags & MSG_TRUNC) ? "a control message longer than one byte" :
	       (m.msg_flags & MSG_CTRUNC) ? "a control message with more fds than the proxy takes" :
	       NULL;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < n; i++) {
			int got;

			memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*fd < 0 && !*why)
				*fd = got;
			else
				close(got);
		}
	}
	return *fd >= 0 ? 1 : -1;
}

/* Only a connected TCP socket is served: anything else the sandbox might
 * send is not a connection. */
static bool is_tcp(int fd)
{
	int type = 0, proto = 0;
	socklen_t l1 = sizeof(type), l2 = sizeof(proto);

	return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l1) == 0 && type == SOCK_STREAM &&
	       getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &l2) == 0 && proto == IPPROTO_TCP;
}

static void serve_child(const proxy_conf *c, int ctl, int fd, pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	close(ctl);
	conn_serve(c, fd);
	_exit(0);
}

static int reap(int active)
{
	while (active > 0 && waitpid(-1, NULL, WNOHANG) > 0)
		active--;
	return active;
}

static void serve(const proxy_conf *c, int ctl, int life)
{
	pid_t self = getpid();
	int active = 0;

	for (;;) {
		struct pollfd p[2] = { { ctl, POLLIN, 0 }, { life, POLLIN, 0 } };
		const char *why;
		int fd, r;

		active = reap(active);
		if (poll(p, life >= 0 ? 2 : 1, 500) <= 0)
			continue;
		if (life >= 0 && p[1].revents)
			return;   /* the caller is gone */
		if (!p[0].revents)
			continue;
		if ((r = receive(ctl, &fd, &why)) == 0)
			return;
		if (r < 0 && why)
			conn_log_refused(c, why);
		if (r < 0)
			continue;
		if (!is_tcp(fd) || active >= MAX_CONNS) {
			conn_log_refused(c, active >= MAX_CONNS ? "too many connections at once"
			                                        : "not a TCP connection");
			close(fd);
			continue;
		}
		pid_t pid = fork();

		if (pid == 0)
			serve_child(c, ctl, fd, self);
		if (pid > 0)
			active++;
		close(fd);
	}
}

int main(int argc, char **argv)
{
	opts o;
	proxy_conf c;
	host_map *hosts;
	na_entry *allow;
	size_t n_hosts;

	signal(SIGPIPE, SIG_IGN);
	/* Nothing it runs may gain privileges (it runs nothing: belt and braces). */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		die("no_new_privs: %s", strerror(errno));
	parse_args(argc, argv, &o);
	allow = read_entries(&o);
	n_hosts = read_hosts(o.hosts_fd, o.hosts_name, &hosts);
	/* Every line is appended whole, whoever writes it. */
	if (fcntl(o.log_fd, F_SETFL, fcntl(o.log_fd, F_GETFL) | O_APPEND) < 0 ||
	    (o.copy_fd >= 0 && fcntl(o.copy_fd, F_SETFL, fcntl(o.copy_fd, F_GETFL) | O_APPEND) < 0))
		die("the log: %s", strerror(errno));
	c = (proxy_conf){ allow, (size_t)o.n_entries, hosts, n_hosts, o.log_fd, o.copy_fd,
	                   NETPROXY_LOG_MAX };
	if (send(o.ctl_fd, &(char){ NETPROXY_READY }, 1, MSG_NOSIGNAL) != 1)
		die("reporting ready on the control socket: %s", strerror(errno));
	serve(&c, o.ctl_fd, o.life_fd);
	/* The sandbox is gone: so is every connection (PR_SET_PDEATHSIG). */
	free(allow);
	free(hosts);
	return 0;
}

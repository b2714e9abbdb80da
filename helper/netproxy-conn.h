/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* netproxy-conn.h — one connection through the filtering proxy
 * (netproxy-conn.c): read the client's request, decide it against the
 * allowlist before and after resolving the name, connect, relay, log.
 */
#ifndef OSB_NETPROXY_CONN_H
#define OSB_NETPROXY_CONN_H

#include "netallow.h"

#include <stddef.h>
#include <sys/socket.h>

/* Deadlines of one connection (docs/ARCHITECTURE.md, "Network allowlists"). */
#define CONN_HEAD_MS 10000       /* the request head must arrive within this */
#define CONN_CONNECT_MS 10000    /* connecting to the destination */
#define CONN_IDLE_MS 300000      /* a relayed connection with no byte either way */
#define CONN_HEAD_MAX 16384      /* bytes of request line and headers */

/* The receive and the send buffer of each of a connection's two sockets
 * (toward the destination, toward the sandbox), set before connecting and
 * on the socket the relay sends: the kernel doubles the value set for its
 * bookkeeping, and no longer tunes a buffer once it is set. The proxy's
 * sockets are the caller's memory, outside the sandbox's limit memory, and
 * untuned a connection whose reader stops holds up to net.ipv4.tcp_rmem's
 * maximum on one side and tcp_wmem's on the other (6 and 4 MiB by default):
 * hundreds of MB over MAX_CONNS (netproxy.c) connections. Set, a connection
 * queues at most 2 sockets x 2 buffers x 2 x NETPROXY_SOCKBUF = 2 MiB, and
 * MAX_CONNS = 64 connections 128 MiB, half that when the bytes flow one way
 * (docs/ARCHITECTURE.md, "Network allowlists"). A window of 512 KiB keeps a
 * connection at loopback speed, and at 5 to 10 MB/s over a path of 50 ms
 * round trip (a window over the round trip). */
#define NETPROXY_SOCKBUF (256 * 1024)

/* A name the caller's hosts file maps, and one of its addresses. */
typedef struct host_map {
	char name[NETALLOW_NAME_MAX + 1];
	struct sockaddr_storage addr;
	socklen_t len;
} host_map;

typedef struct proxy_conf {
	const na_entry *allow;
	size_t n_allow;
	const host_map *hosts;       /* consulted before the resolver, never after */
	size_t n_hosts;
	int log_fd, copy_fd;         /* one JSON line a decision; COPY_FD -1: none */
	size_t log_max;              /* bytes each may hold: NETPROXY_LOG_MAX */
} proxy_conf;

/* Serve the client on FD (a connected TCP socket of the sandbox) to its end,
 * then close it. */
void conn_serve(const proxy_conf *c, int fd);

/* Log a refusal that happens before a request is read (too many
 * connections, not a TCP socket). */
void conn_log_refused(const proxy_conf *c, const char *reason);

/* Append LINE (N bytes) to the log FD, which holds at most MAX bytes: the
 * line if it leaves room for the marker (NETPROXY_LOG_MARK in netallow.h),
 * else the marker counting 1, or, once the log ends with it, 1 more on its
 * count. Each writer of the log holds a lock on it meanwhile. */
void log_append(int fd, size_t max, const char *line, size_t n);

/* Read an /etc/hosts-style text (ADDRESS NAME...; '#' comments) into *OUT.
 * Returns the number of entries, or -1 (out of memory, or a line that is
 * not one: *BAD_LINE names it and WHY says what is wrong with it). */
long hosts_parse(const char *text, host_map **out, unsigned *bad_line, char *why, size_t size);

#endif /* OSB_NETPROXY_CONN_H */

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* netproxy-conn.c — one connection through the filtering proxy
 * (netproxy-conn.h).
 *
 * A client in the sandbox sends "CONNECT host:port" (HTTPS and any other
 * TLS) or a plain HTTP request in absolute form ("GET http://host/path").
 * The destination is decided in two steps with lib/netallow.c: the name or
 * address as asked, then every address the name resolves to, resolved here
 * (the caller's hosts file first, else the system resolver), so that an
 * allowed name pointing at loopback, a private network or the metadata
 * address is refused unless the allowlist names that range. The proxy
 * connects to the address it checked, never to a name, so no second lookup
 * can differ from the first. Every decision is one JSON line in the log,
 * which is bounded (log_append);
 * a refusal answers 403 with the reason, so the client sees "blocked"
 * rather than a timeout. Each step has a deadline.
 */
#include "netproxy-conn.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct request {
	char method[16];
	char host[NETALLOW_NAME_MAX + 2];
	uint16_t port;
	bool connect;             /* CONNECT: a tunnel; else plain HTTP */
	const char *path;         /* plain HTTP: origin-form target, in the head */
	size_t path_len;
	char addr[INET6_ADDRSTRLEN];   /* the address connected to, or "" */
	const char *reason;       /* a refusal, or NULL */
} request;

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int wait_fd(int fd, short ev, uint64_t deadline)
{
	struct pollfd p = { fd, ev, 0 };
	uint64_t now = mono_ms();
	int r;

	if (now >= deadline)
		return 0;
	do
		r = poll(&p, 1, (int)(deadline - now));
	while (r < 0 && errno == EINTR);
	return r;
}

static bool write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

/* ---- the log ------------------------------------------------------------------ */

/* S as a JSON string's contents: what is not printable ASCII is escaped. */
static void json_str(char *out, size_t size, const char *s)
{
	size_t o = 0;

	for (; *s && o + 7 < size; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			o += (size_t)snprintf(out + o, size - o, "\\u%04x", c);
		else
			out[o++] = (char)c;
	}
	out[o] = '\0';
}

/* The whole-file write lock (F_WRLCK) or its release (F_UNLCK): a record
 * lock belongs to a process, so the proxy and its connections' children,
 * which share one open file description, exclude one another, and a
 * writer killed while holding it releases it. */
static void log_lock(int fd, short type)
{
	struct flock l = { .l_type = type, .l_whence = SEEK_SET };

	while (fcntl(fd, F_SETLKW, &l) < 0 && errno == EINTR)
		;
}

/* The count of the marker that ends a log of SIZE bytes, or -1 when it
 * does not end with one. */
static long long log_marked(int fd, size_t max, off_t size, size_t mark_len)
{
	char want[128], have[128], *end;
	size_t head;
	unsigned long long v;

	snprintf(want, sizeof(want), NETPROXY_LOG_MARK, max, 0ULL);
	head = (size_t)(strstr(want, "\"dropped\":") - want) + 10;
	if (size < (off_t)mark_len ||
	    pread(fd, have, mark_len, size - (off_t)mark_len) != (ssize_t)mark_len ||
	    memcmp(have, want, head) != 0)
		return -1;
	have[mark_len] = '\0';
	v = strtoull(have + head, &end, 10);
	return end > have + head ? (long long)v : -1;
}

/* The marker, MARK_LEN bytes at OFF, rewritten to count DROPPED lines: an
 * O_APPEND file's pwrite appends, so through a shared mapping. */
static void log_recount(int fd, size_t max, off_t off, size_t mark_len, long long dropped)
{
	long page = sysconf(_SC_PAGESIZE);
	off_t base = off - off % (page > 0 ? page : 4096);
	size_t span = (size_t)(off - base) + mark_len;
	char text[128], *m;

	snprintf(text, sizeof(text), NETPROXY_LOG_MARK, max, (unsigned long long)dropped);
	m = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_SHARED, fd, base);
	if (m == MAP_FAILED)
		return;
	memcpy(m + (off - base), text, mark_len);
	munmap(m, span);
}

void log_append(int fd, size_t max, const char *line, size_t n)
{
	char mark[128];
	size_t mark_len = (size_t)snprintf(mark, sizeof(mark), NETPROXY_LOG_MARK, max, 1ULL);
	struct stat st;
	long long dropped;

	log_lock(fd, F_WRLCK);
	if (fstat(fd, &st) == 0) {
		if ((dropped = log_marked(fd, max, st.st_size, mark_len)) >= 0)
			log_recount(fd, max, st.st_size - (off_t)mark_len, mark_len, dropped + 1);
		else if ((size_t)st.st_size + n + mark_len <= max)
			(void)!write(fd, line, n);
		else
			(void)!write(fd, mark, mark_len);
	}
	log_lock(fd, F_UNLCK);
}

static void log_line(const proxy_conf *c, const char *action, const request *rq)
{
	char method[sizeof(rq->method) * 6], host[sizeof(rq->host) * 6], why[512] = "", line[2048];
	int n;

	/* The method and the host are the client's bytes. */
	json_str(method, sizeof(method), rq->method);
	json_str(host, sizeof(host), rq->host);
	if (rq->reason)
		json_str(why, sizeof(why), rq->reason);
	n = snprintf(line, sizeof(line), "{\"action\":\"%s\",\"method\":\"%s\",\"host\":\"%s\","
	             "\"port\":%u,\"address\":%s%s%s,\"reason\":%s%s%s}\n", action, method, host,
	             rq->port, *rq->addr ? "\"" : "", *rq->addr ? rq->addr : "null",
	             *rq->addr ? "\"" : "", rq->reason ? "\"" : "", rq->reason ? why : "null",
	             rq->reason ? "\"" : "");
	if (n <= 0 || (size_t)n >= sizeof(line))
		return;
	log_append(c->log_fd, c->log_max, line, (size_t)n);
	if (c->copy_fd >= 0)
		log_append(c->copy_fd, c->log_max, line, (size_t)n);
}

void conn_log_refused(const proxy_conf *c, const char *reason)
{
	request rq = { .method = "-", .reason = reason };

	log_line(c, "refused", &rq);
}

/* ---- reading the request ----------------------------------------------------- */

/* Read until the blank line that ends the head; *LEN bytes in BUF, the head
 * ending at *HEAD_END. false: closed, too long or too slow. */
static bool read_head(int fd, char *buf, size_t *len, size_t *head_end)
{
	uint64_t deadline = mono_ms() + CONN_HEAD_MS;

	*len = 0;
	while (*len < CONN_HEAD_MAX) {
		char *end;
		ssize_t r;

		if (wait_fd(fd, POLLIN, deadline) <= 0)
			return false;
		r = read(fd, buf + *len, CONN_HEAD_MAX - *len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		*len += (size_t)r;
		buf[*len] = '\0';
		if ((end = strstr(buf, "\r\n\r\n")) != NULL) {
			*head_end = (size_t)(end - buf) + 4;
			return true;
		}
	}
	return false;
}

/* "host", "host:port", "[v6]", "[v6]:port" into RQ; DEFPORT when none (0:
 * a port is required). */
static bool split_authority(const char *a, size_t n, uint16_t defport, request *rq)
{
	const char *colon = NULL, *h = a;
	size_t hl;

	if (n > 0 && a[0] == '[') {
		const char *close = memchr(a, ']', n);

		if (!close)
			return false;
		h = a + 1;
		hl = (size_t)(close - h);
		colon = close + 1 < a + n ? close + 1 : NULL;
		if (colon && *colon != ':')
			return false;
	} else {
		colon = memchr(a, ':', n);
		hl = colon ? (size_t)(colon - a) : n;
	}
	if (hl == 0 || hl >= sizeof(rq->host))
		return false;
	memcpy(rq->host, h, hl);
	rq->host[hl] = '\0';
	rq->port = defport;
	if (colon) {
		unsigned long v = 0;
		size_t i = 1, pn = (size_t)(a + n - colon);

		for (; i < pn && colon[i] >= '0' && colon[i] <= '9' && v <= 65535; i++)
			v = v * 10 + (unsigned long)(colon[i] - '0');
		if (i != pn || i == 1 || v == 0 || v > 65535)
			return false;
		rq->port = (uint16_t)v;
	}
	return rq->port != 0;
}

/* The request line: CONNECT host:port, or METHOD http://authority/path. */
static bool parse_request(const char *head, request *rq)
{
	const char *sp1 = strchr(head, ' '), *sp2, *eol = strstr(head, "\r\n"), *t, *slash;
	size_t ml;

	if (!sp1 || !eol || sp1 > eol || (sp2 = memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1))) == NULL)
		return false;
	ml = (size_t)(sp1 - head);
	if (ml == 0 || ml >= sizeof(rq->method))
		return false;
	memcpy(rq->method, head, ml);
	rq->method[ml] = '\0';
	t = sp1 + 1;
	rq->connect = strcmp(rq->method, "CONNECT") == 0;
	if (rq->connect)
		return split_authority(t, (size_t)(sp2 - t), 0, rq);
	if ((size_t)(sp2 - t) < 8 || strncasecmp(t, "http://", 7) != 0)
		return false;
	t += 7;
	slash = memchr(t, '/', (size_t)(sp2 - t));
	rq->path = slash ? slash : "/";
	rq->path_len = slash ? (size_t)(sp2 - slash) : 1;
	return split_authority(t, (size_t)((slash ? slash : sp2) - t), 80, rq);
}

/* ---- deciding and connecting ---------------------------------------------------- */

static void addr_text(const struct sockaddr *sa, char *buf, size_t size)
{
	const void *a = sa->sa_family == AF_INET ? (const void *)&((const struct sockaddr_in *)sa)->sin_addr
	                                         : (const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr;

	inet_ntop(sa->sa_family, a, buf, (socklen_t)size);
}

static const uint8_t *addr_bytes(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (const uint8_t *)&((const struct sockaddr_in *)sa)->sin_addr;
	return (const uint8_t *)&((const struct sockaddr_in6 *)sa)->sin6_addr;
}

/* FD's receive and send buffers bounded (NETPROXY_SOCKBUF). */
static bool bound_buffers(int fd)
{
	int size = NETPROXY_SOCKBUF;

	return setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size)) == 0 &&
	       setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size)) == 0;
}

/* Connect to SA (its port set to PORT) within the deadline: the fd or -1.
 * The buffers are bounded first: the window the SYN offers follows them. */
static int connect_to(struct sockaddr_storage *ss, socklen_t len, uint16_t port)
{
	struct sockaddr *sa = (struct sockaddr *)ss;
	int fd, err = 0;
	socklen_t el = sizeof(err);

	if (sa->sa_family == AF_INET)
		((struct sockaddr_in *)sa)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)sa)->sin6_port = htons(port);
	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	if (!bound_buffers(fd) || (connect(fd, sa, len) < 0 && errno != EINPROGRESS))
		goto fail;
	if (wait_fd(fd, POLLOUT, mono_ms() + CONN_CONNECT_MS) <= 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0 || err != 0)
		goto fail;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
fail:
	close(fd);
	return -1;
}

/* Try each candidate address in turn: a refused one is skipped (its reason
 * kept for the log), the first allowed one that answers is used. */
static int try_addrs(const proxy_conf *c, request *rq, struct sockaddr_storage *v, socklen_t *lens,
                     size_t n, bool via_name)
{
	for (size_t i = 0; i < n; i++) {
		const struct sockaddr *sa = (const struct sockaddr *)&v[i];
		const char *why = netallow_addr_refused(c->allow, c->n_allow, sa->sa_family,
		                                        addr_bytes(sa), rq->port, via_name);
		int fd;

		addr_text(sa, rq->addr, sizeof(rq->addr));
		if (why) {
			rq->reason = why;
			continue;
		}
		rq->reason = NULL;
		if ((fd = connect_to(&v[i], lens[i], rq->port)) >= 0)
			return fd;
		rq->reason = "the destination did not accept the connection";
	}
	return -1;
}

#define MAX_ADDRS 16

/* The addresses of NAME: the hosts file's, if it names it, else the
 * resolver's. */
static size_t resolve(const proxy_conf *c, const char *name, struct sockaddr_storage *v,
                      socklen_t *lens)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL;
	size_t n = 0;

	for (size_t i = 0; i < c->n_hosts && n < MAX_ADDRS; i++)
		if (strcmp(c->hosts[i].name, name) == 0) {
			v[n] = c->hosts[i].addr;
			lens[n++] = c->hosts[i].len;
		}
	if (n || getaddrinfo(name, NULL, &hints, &res) != 0)
		return n;
	for (const struct addrinfo *a = res; a && n < MAX_ADDRS; a = a->ai_next)
		if ((a->ai_family == AF_INET || a->ai_family == AF_INET6) &&
		    a->ai_addrlen <= sizeof(v[n])) {
			memcpy(&v[n], a->ai_addr, a->ai_addrlen);
			lens[n++] = a->ai_addrlen;
		}
	freeaddrinfo(res);
	return n;
}

/* A literal address as asked: it must be named by an address entry. */
static int literal(const request *rq, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, rq->host, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		*len = sizeof(*s4);
		return 1;
	}
	if (inet_pton(AF_INET6, rq->host, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		*len = sizeof(*s6);
		return 1;
	}
	return 0;
}

/* The upstream fd, or -1 with RQ->reason set. */
static int decide(const proxy_conf *c, request *rq)
{
	struct sockaddr_storage v[MAX_ADDRS];
	socklen_t lens[MAX_ADDRS];
	size_t n;

	if (literal(rq, &v[0], &lens[0]))
		return try_addrs(c, rq, v, lens, 1, false);
	if (!netallow_host_name_ok(rq->host)) {
		rq->reason = "not a host name";
		return -1;
	}
	if (!netallow_name_allowed(c->allow, c->n_allow, rq->host, rq->port)) {
		rq->reason = "not in the allowlist";
		return -1;
	}
	if ((n = resolve(c, rq->host, v, lens)) == 0) {
		rq->reason = "the name does not resolve";
		return -1;
	}
	return try_addrs(c, rq, v, lens, n, true);
}

/* ---- answering and relaying ----------------------------------------------------- */

static void reply(int fd, const char *status, const request *rq)
{
	char buf[1024];
	int n = snprintf(buf, sizeof(buf), "HTTP/1.1 %s\r\nContent-Type: text/plain\r\n"
	                 "Connection: close\r\n\r\nosb-isolate: %s:%u refused: %s\n", status,
	                 rq->host, rq->port, rq->reason ? rq->reason : "bad request");

	if (n > 0 && (size_t)n < sizeof(buf))
		(void)write_all(fd, buf, (size_t)n);
}

/* Copy both ways until both sides are done or nothing moved for
 * CONN_IDLE_MS. */
static void relay(int a, int b)
{
	struct pollfd p[2] = { { a, POLLIN, 0 }, { b, POLLIN, 0 } };
	char buf[16384];
	int open_dirs = 2;

	while (open_dirs > 0) {
		int r = poll(p, 2, CONN_IDLE_MS);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return;
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(p[i].fd, buf, sizeof(buf));
			if (n > 0 && write_all(i ? a : b, buf, (size_t)n))
				continue;
			if (n < 0 && errno == EINTR)
				continue;
			shutdown(i ? a : b, SHUT_WR);
			p[i].fd = -1;
			open_dirs--;
		}
	}
}

/* A plain HTTP request goes on in origin form, without the headers meant
 * for the proxy, and asks the server to close after one response. */
static bool forward_head(int up, const char *head, size_t head_end, const request *rq)
{
	const char *eol1 = strstr(head, "\r\n"), *line = eol1 + 2, *end = head + head_end - 2;
	const char *version = eol1;
	char first[CONN_HEAD_MAX + 64];
	int n;

	while (version > head && version[-1] != ' ')
		version--;
	n = snprintf(first, sizeof(first), "%s %.*s %.*s\r\n", rq->method, (int)rq->path_len,
	             rq->path, (int)(eol1 - version), version);
	if (n <= 0 || (size_t)n >= sizeof(first) || !write_all(up, first, (size_t)n))
		return false;
	while (line < end) {
		const char *eol = strstr(line, "\r\n");
		size_t len = (size_t)(eol - line) + 2;

		if (strncasecmp(line, "proxy-", 6) != 0 && strncasecmp(line, "connection:", 11) != 0 &&
		    !write_all(up, line, len))
			return false;
		line = eol + 2;
	}
	return write_all(up, "Connection: close\r\n\r\n", 21);
}

void conn_serve(const proxy_conf *c, int fd)
{
	char head[CONN_HEAD_MAX + 1];
	size_t len = 0, head_end = 0;
	request rq = { .method = "-" };
	int up;

	if (!bound_buffers(fd)) {
		rq.reason = "cannot bound the connection's socket buffers";
		log_line(c, "refused", &rq);
		close(fd);
		return;
	}
	if (!read_head(fd, head, &len, &head_end) || !parse_request(head, &rq)) {
		rq.reason = "not a CONNECT or an absolute http:// request";
		log_line(c, "refused", &rq);
		reply(fd, "400 Bad Request", &rq);
		close(fd);
		return;
	}
	up = decide(c, &rq);
	if (up < 0) {
		log_line(c, "refused", &rq);
		reply(fd, "403 Forbidden", &rq);
		close(fd);
		return;
	}
	log_line(c, "allowed", &rq);
	if (rq.connect ? write_all(fd, "HTTP/1.1 200 Connection established\r\n\r\n", 39)
	               : forward_head(up, head, head_end, &rq))
		if (len == head_end || write_all(up, head + head_end, len - head_end))
			relay(fd, up);
	close(up);
	close(fd);
}

/* ---- the hosts file ------------------------------------------------------------- */

/* ADDR NAME into *H: NULL, or what is wrong with the pair, into WHY. */
static const char *host_entry(const char *addr, const char *name, host_map *h, char *why,
                              size_t size)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)&h->addr;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&h->addr;

	memset(h, 0, sizeof(*h));
	if (strlen(name) < sizeof(h->name))
		snprintf(h->name, sizeof(h->name), "%s", name);
	if (!h->name[0] || !netallow_host_name_ok(h->name)) {
		snprintf(why, size, "\"%.64s\" is not a host name", name);
		return why;
	}
	if (inet_pton(AF_INET, addr, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		h->len = sizeof(*s4);
		return NULL;
	}
	if (inet_pton(AF_INET6, addr, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		h->len = sizeof(*s6);
		return NULL;
	}
	snprintf(why, size, "\"%.64s\" is not an IPv4 or IPv6 address", addr);
	return why;
}

/* One line's entries appended to *V (*N of them): NULL, or what is wrong. */
static const char *hosts_line(char *line, host_map **v, size_t *n, char *why, size_t size)
{
	char *hash = strchr(line, '#'), *save = NULL, *addr, *name;

	if (hash)
		*hash = '\0';
	if (!(addr = strtok_r(line, " \t\r", &save)))
		return NULL;
	if (!(name = strtok_r(NULL, " \t\r", &save))) {
		snprintf(why, size, "\"%.64s\" names no host", addr);
		return why;
	}
	for (; name; name = strtok_r(NULL, " \t\r", &save)) {
		host_map *nv = realloc(*v, (*n + 1) * sizeof(**v));

		if (!nv)
			return "out of memory";
		*v = nv;
		if (host_entry(addr, name, &nv[*n], why, size))
			return why;
		(*n)++;
	}
	return NULL;
}

long hosts_parse(const char *text, host_map **out, unsigned *bad_line, char *why, size_t size)
{
	char *copy = strdup(text), *line, *next;
	host_map *v = NULL;
	size_t n = 0;
	unsigned no = 0;

	*out = NULL;
	if (!copy) {
		snprintf(why, size, "out of memory");
		return -1;
	}
	for (line = copy; line; line = next) {
		const char *bad;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		no++;
		if ((bad = hosts_line(line, &v, &n, why, size)) != NULL) {
			if (bad != why)
				snprintf(why, size, "%s", bad);
			free(v);
			free(copy);
			*bad_line = no;
			return -1;
		}
	}
	free(copy);
	*out = v;
	return (long)n;
}

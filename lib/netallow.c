/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* netallow.c — one entry of a network allowlist, and the decision on one
 * connection (netallow.h).
 *
 * The policy parser reads entries here, the canonical form spells them
 * here, a request's narrowing is judged by netallow_covers(), and the
 * filtering proxy decides every connection with the same two calls: the
 * name first (netallow_name_allowed), then each address it resolved to
 * (netallow_addr_refused), so that a name of the list pointing at the
 * host's loopback, a private network or the metadata address is refused
 * unless the list names that range by address (osb-isolate.policy(5),
 * "NETWORK ALLOWLISTS").
 */
#include "netallow.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- reading an entry ----------------------------------------------------- */

static char lower(char c)
{
	if (c >= 'A' && c <= 'Z')
		return (char)(c + ('a' - 'A'));
	return c;
}

static bool label_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/* Would inet_aton, which glibc's resolver tries first, read the label of
 * LEN bytes at S as a number ("127", "0x7f")? */
static bool numeric_label(const char *s, size_t len)
{
	bool hex = len > 2 && s[0] == '0' && s[1] == 'x';

	for (size_t i = hex ? 2 : 0; i < len; i++)
		if (!(s[i] >= '0' && s[i] <= '9') && !(hex && s[i] >= 'a' && s[i] <= 'f'))
			return false;
	return true;
}

/* Why S (already lowered) is not a DNS name: labels of 1 to 63 letters,
 * digits, '-' or '_', no '-' at either end, at most 253 bytes, and a last
 * label that is not a number (that would be an address to a resolver). */
static const char *name_problem(const char *s)
{
	size_t len = strlen(s), lab = 0;

	if (len == 0 || len > NETALLOW_NAME_MAX)
		return "a host name has 1 to 253 characters";
	for (size_t i = 0; i <= len; i++) {
		char c = s[i];

		if (c == '.' || c == '\0') {
			if (lab == 0 || lab > 63)
				return "each label of a host name has 1 to 63 characters";
			if (s[i - 1] == '-' || s[i - lab] == '-')
				return "a label of a host name neither starts nor ends with '-'";
			if (c == '\0' && numeric_label(s + i - lab, lab))
				return "a host name's last label is not a number (write an address as "
				       "four decimal numbers, such as 192.0.2.1)";
			lab = 0;
			continue;
		}
		if (!label_char(c))
			return c == '*' ? "'*' stands only at the start, as in \"*.example.com\""
			                : "a host name has only letters, digits, '-', '_' and '.'";
		lab++;
	}
	return NULL;
}

static const char *parse_port(const char *s, uint16_t *port)
{
	unsigned long v = 0;
	size_t i;

	for (i = 0; s[i] >= '0' && s[i] <= '9' && i < 6; i++)
		v = v * 10 + (unsigned long)(s[i] - '0');
	if (i == 0 || s[i] != '\0' || v == 0 || v > 65535)
		return "a port is a number from 1 to 65535";
	*port = (uint16_t)v;
	return NULL;
}

/* ADDR[/LEN] of FAMILY, with no host bits set beyond LEN. */
static const char *parse_net(const char *s, int family, na_entry *e)
{
	char buf[64];
	const char *slash = strchr(s, '/');
	size_t alen = slash ? (size_t)(slash - s) : strlen(s);
	unsigned max = family == AF_INET ? 32 : 128, len = max;

	if (alen >= sizeof(buf))
		return "not an IP address";
	memcpy(buf, s, alen);
	buf[alen] = '\0';
	if (inet_pton(family, buf, e->addr) != 1)
		return family == AF_INET ? "not an IPv4 address" : "not an IPv6 address";
	if (slash) {
		const char *d = slash + 1;

		len = 0;
		for (size_t i = 0; d[i]; i++) {
			if (d[i] < '0' || d[i] > '9' || i > 2)
				return "a network's prefix length is a number (\"/24\")";
			len = len * 10 + (unsigned)(d[i] - '0');
		}
		if (!*d || len > max)
			return family == AF_INET ? "an IPv4 prefix length is 0 to 32"
			                         : "an IPv6 prefix length is 0 to 128";
	}
	for (unsigned b = len; b < max; b++)
		if (e->addr[b / 8] & (0x80u >> (b % 8)))
			return "the address has bits set beyond its prefix length (write the network "
			       "itself, such as 10.0.0.0/8)";
	e->kind = NA_NET;
	e->family = family;
	e->prefix = len;
	return NULL;
}

static const char *parse_name(const char *s, na_entry *e)
{
	const char *why;

	e->kind = NA_NAME;
	if (s[0] == '*') {
		if (s[1] != '.')
			return "'*' stands only at the start, as in \"*.example.com\"";
		e->kind = NA_SUFFIX;
		s += 2;
	}
	/* Checked before the copy: e->name holds NETALLOW_NAME_MAX bytes. */
	if (strlen(s) > NETALLOW_NAME_MAX)
		return "a host name has 1 to 253 characters";
	for (size_t i = 0; s[i]; i++)
		e->name[i] = lower(s[i]);
	e->name[strlen(s)] = '\0';
	if ((why = name_problem(e->name)) != NULL)
		return why;
	return NULL;
}

/* "[V6[/LEN]]" or "[V6[/LEN]]:PORT". */
static const char *parse_bracketed(const char *text, na_entry *e)
{
	char buf[64];
	const char *end = strchr(text, ']'), *why;
	size_t len = end ? (size_t)(end - text - 1) : 0;

	if (!end || len == 0 || len >= sizeof(buf))
		return "an IPv6 address in brackets ends with ']'";
	memcpy(buf, text + 1, len);
	buf[len] = '\0';
	if ((why = parse_net(buf, AF_INET6, e)) != NULL)
		return why;
	if (end[1] == '\0')
		return NULL;
	if (end[1] != ':')
		return "after ']' comes \":PORT\" or nothing";
	return parse_port(end + 2, &e->port);
}

const char *netallow_parse(const char *text, na_entry *e)
{
	char host[NETALLOW_NAME_MAX + 8];
	const char *colon, *why;
	size_t hlen;
	uint8_t a4[4];

	memset(e, 0, sizeof(*e));
	if (!text || !*text)
		return "an entry is HOST[:PORT]";
	if (text[0] == '[')
		return parse_bracketed(text, e);
	colon = strchr(text, ':');
	if (colon && strchr(colon + 1, ':'))
		return parse_net(text, AF_INET6, e);   /* a bare IPv6 address: no port */
	hlen = colon ? (size_t)(colon - text) : strlen(text);
	if (hlen == 0 || hlen >= sizeof(host))
		return hlen ? "a host name has 1 to 253 characters" : "an entry is HOST[:PORT]";
	memcpy(host, text, hlen);
	host[hlen] = '\0';
	if (colon && (why = parse_port(colon + 1, &e->port)) != NULL)
		return why;
	if (strchr(host, '/') || inet_pton(AF_INET, host, a4) == 1)
		return parse_net(host, AF_INET, e);
	return parse_name(host, e);
}

void netallow_format(const na_entry *e, char *buf, size_t size)
{
	char a[INET6_ADDRSTRLEN], net[INET6_ADDRSTRLEN + 8] = "", port[8] = "";
	unsigned max = e->family == AF_INET ? 32 : 128;

	if (e->port)
		snprintf(port, sizeof(port), ":%u", e->port);
	if (e->kind != NA_NET) {
		snprintf(buf, size, "%s%s%s", e->kind == NA_SUFFIX ? "*." : "", e->name, port);
		return;
	}
	inet_ntop(e->family, e->addr, a, sizeof(a));
	if (e->prefix < max)
		snprintf(net, sizeof(net), "%s/%u", a, e->prefix);
	else
		snprintf(net, sizeof(net), "%s", a);
	if (e->family == AF_INET6 && e->port)
		snprintf(buf, size, "[%s]%s", net, port);
	else
		snprintf(buf, size, "%s%s", net, port);
}

/* ---- comparing entries ------------------------------------------------------ */

/* Are the first LEN bits of A and B the same? */
static bool prefix_eq(const uint8_t *a, const uint8_t *b, unsigned len)
{
	unsigned full = len / 8, rest = len % 8;

	if (memcmp(a, b, full) != 0)
		return false;
	return rest == 0 || ((a[full] ^ b[full]) & (uint8_t)(0xff00u >> rest)) == 0;
}

/* NAME lies strictly beneath SUFFIX ("a.b.c" beneath "b.c", not "b.c"). */
static bool name_beneath(const char *name, const char *suffix)
{
	size_t n = strlen(name), s = strlen(suffix);

	return n > s + 1 && name[n - s - 1] == '.' && strcmp(name + n - s, suffix) == 0;
}

bool netallow_covers(const na_entry *a, const na_entry *b)
{
	if (a->port && a->port != b->port)
		return false;
	switch (a->kind) {
	case NA_NAME:
		return b->kind == NA_NAME && strcmp(a->name, b->name) == 0;
	case NA_SUFFIX:
		if (b->kind == NA_NAME)
			return name_beneath(b->name, a->name);
		return b->kind == NA_SUFFIX &&
		       (strcmp(a->name, b->name) == 0 || name_beneath(b->name, a->name));
	case NA_NET:
		return b->kind == NA_NET && a->family == b->family && a->prefix <= b->prefix &&
		       prefix_eq(a->addr, b->addr, a->prefix);
	}
	return false;
}

/* ---- deciding a connection -------------------------------------------------- */

typedef struct special_range {
	uint8_t addr[16];
	unsigned prefix;
	const char *what;
} special_range;

/* Most specific first: the metadata address lies inside link-local. */
static const special_range special4[] = {
	{ { 169, 254, 169, 254 }, 32, "the cloud metadata address" },
	{ { 0 }, 8, "a \"this network\" address (0.0.0.0/8)" },
	{ { 10 }, 8, "a private address (10.0.0.0/8)" },
	{ { 100, 64 }, 10, "a shared address (carrier-grade NAT, 100.64.0.0/10)" },
	{ { 127 }, 8, "a loopback address (127.0.0.0/8)" },
	{ { 169, 254 }, 16, "a link-local address (169.254.0.0/16)" },
	{ { 172, 16 }, 12, "a private address (172.16.0.0/12)" },
	{ { 192, 0, 0 }, 24, "an IETF protocol address (192.0.0.0/24)" },
	{ { 192, 168 }, 16, "a private address (192.168.0.0/16)" },
	{ { 224 }, 4, "a multicast address (224.0.0.0/4)" },
	{ { 240 }, 4, "a reserved address (240.0.0.0/4)" },
};

static const special_range special6[] = {
	{ { 0xfd, 0x00, 0x0e, 0xc2, [15] = 0x54, [14] = 0x02 }, 128, "the cloud metadata address" },
	{ { 0 }, 127, "an unspecified or loopback address (::/127)" },
	{ { 0 }, 8, "a reserved address (::/8)" },
	{ { 0xfc }, 7, "a private address (unique local, fc00::/7)" },
	{ { 0xfe, 0x80 }, 10, "a link-local address (fe80::/10)" },
	{ { 0xff }, 8, "a multicast address (ff00::/8)" },
};

static const uint8_t mapped_prefix[12] = { [10] = 0xff, [11] = 0xff };
static const uint8_t nat64_prefix[12] = { 0x00, 0x64, 0xff, 0x9b };

/* An IPv6 address standing for an IPv4 one (mapped, or NAT64's well-known
 * prefix): its last four bytes are what it reaches. */
static bool embeds_v4(int family, const uint8_t *addr)
{
	return family == AF_INET6 &&
	       (memcmp(addr, mapped_prefix, 12) == 0 || memcmp(addr, nat64_prefix, 12) == 0);
}

const char *netallow_special(int family, const uint8_t *addr, unsigned *prefix)
{
	const special_range *t;
	size_t n;

	if (embeds_v4(family, addr)) {
		family = AF_INET;
		addr += 12;
	}
	t = family == AF_INET ? special4 : special6;
	n = family == AF_INET ? ARRAY_SIZE(special4) : ARRAY_SIZE(special6);
	for (size_t i = 0; i < n; i++)
		if (prefix_eq(addr, t[i].addr, t[i].prefix)) {
			*prefix = t[i].prefix;
			return t[i].what;
		}
	*prefix = 0;
	return NULL;
}

bool netallow_name_allowed(const na_entry *v, size_t n, const char *name, uint16_t port)
{
	for (size_t i = 0; i < n; i++) {
		const na_entry *e = &v[i];

		if (e->port && e->port != port)
			continue;
		if ((e->kind == NA_NAME && strcmp(e->name, name) == 0) ||
		    (e->kind == NA_SUFFIX && name_beneath(name, e->name)))
			return true;
	}
	return false;
}

const char *netallow_addr_refused(const na_entry *v, size_t n, int family, const uint8_t *addr,
                                  uint16_t port, bool via_name)
{
	unsigned sp_prefix = 0;
	const char *sp;

	if (embeds_v4(family, addr)) {
		family = AF_INET;
		addr += 12;
	}
	sp = netallow_special(family, addr, &sp_prefix);
	for (size_t i = 0; i < n; i++) {
		const na_entry *e = &v[i];

		if (e->kind != NA_NET || e->family != family || (e->port && e->port != port) ||
		    !prefix_eq(e->addr, addr, e->prefix))
			continue;
		if (!sp || e->prefix >= sp_prefix)
			return NULL;
	}
	if (sp)
		return sp;
	return via_name ? NULL : "an address the allowlist does not name";
}

bool netallow_host_name_ok(char *host)
{
	size_t len = strlen(host);

	if (len > 1 && host[len - 1] == '.')
		host[--len] = '\0';
	for (size_t i = 0; i < len; i++)
		host[i] = lower(host[i]);
	return name_problem(host) == NULL;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* netreview.c — the reviewer's reading of a "network allow" entry
 * (netreview.h). The review tools see policies only through the public
 * introspection calls, so this reads the canonical text itself: an entry
 * is a name, "*.suffix", or ADDRESS[/LEN] (IPv6 bracketed when a port
 * follows), with an optional ":PORT" (osb-isolate.policy(5), "NETWORK
 * ALLOWLISTS").
 */
#include "netreview.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

typedef struct net {
	int family;
	unsigned prefix;
	uint8_t addr[16];
} net;

/* ENTRY as an address network, without its port; false for a name. */
static bool as_net(const char *entry, net *n)
{
	char buf[64];
	const char *s = entry, *slash;
	size_t len;

	if (*s == '[') {
		const char *end = strchr(s, ']');

		s++;
		len = end ? (size_t)(end - s) : 0;
	} else {
		const char *colon = strchr(s, ':');

		len = colon && !strchr(colon + 1, ':') ? (size_t)(colon - s) : strlen(s);
	}
	if (len == 0 || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	slash = strchr(buf, '/');
	n->family = strchr(buf, ':') ? AF_INET6 : AF_INET;
	n->prefix = slash ? (unsigned)atoi(slash + 1) : n->family == AF_INET ? 32 : 128;
	if (slash)
		buf[slash - buf] = '\0';
	return inet_pton(n->family, buf, n->addr) == 1;
}

static bool prefix_eq(const uint8_t *a, const uint8_t *b, unsigned len)
{
	unsigned full = len / 8, rest = len % 8;

	return memcmp(a, b, full) == 0 &&
	       (rest == 0 || ((a[full] ^ b[full]) & (uint8_t)(0xff00u >> rest)) == 0);
}

bool rv_net_allow_internal(const char *entry)
{
	static const net ranges[] = {
		{ AF_INET, 8, { 0 } }, { AF_INET, 8, { 10 } }, { AF_INET, 10, { 100, 64 } },
		{ AF_INET, 8, { 127 } }, { AF_INET, 16, { 169, 254 } }, { AF_INET, 12, { 172, 16 } },
		{ AF_INET, 16, { 192, 168 } }, { AF_INET6, 127, { 0 } }, { AF_INET6, 7, { 0xfc } },
		{ AF_INET6, 10, { 0xfe, 0x80 } },
	};
	net n;

	if (!as_net(entry, &n))
		return false;
	for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
		if (ranges[i].family == n.family && n.prefix >= ranges[i].prefix &&
		    prefix_eq(n.addr, ranges[i].addr, ranges[i].prefix))
			return true;
	return false;
}

bool rv_net_allow_wide(const char *entry)
{
	net n;

	if (strncmp(entry, "*.", 2) == 0) {
		size_t len = strcspn(entry + 2, ":");

		return memchr(entry + 2, '.', len) == NULL;
	}
	if (!as_net(entry, &n))
		return false;
	return n.prefix < (n.family == AF_INET ? 16u : 32u);
}

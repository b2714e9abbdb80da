/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* netallow.h — the network allowlist model (netallow.c): what one entry
 * of "network allow HOST[:PORT]..." means, its canonical spelling, whether
 * one entry covers another (a request narrows by those), and the decision
 * on one connection, before and after its name is resolved.
 *
 * Pure code: nothing here resolves a name or opens a socket, so the policy
 * parser, the request reader and the filtering proxy (helper/netproxy.c)
 * share one reading of an entry and one decision, and check_netallow tests
 * it without a network (osb-isolate.policy(5), "NETWORK ALLOWLISTS").
 */
#ifndef OSB_NETALLOW_H
#define OSB_NETALLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest canonical entry: "[" 39 address characters "/128]:65535". */
#define NETALLOW_NAME_MAX 253
#define NETALLOW_TEXT_MAX (NETALLOW_NAME_MAX + 16)

/* The byte the filtering proxy sends on its control socket once it serves
 * (helper/netproxy.c); the launch waits for it (lib/netallow-proxy.c). */
#define NETPROXY_READY 'R'

/* The most the proxy's log holds, its last line included (osb-isolate(1),
 * "RESULT"): it is a memfd of the caller's, outside the sandbox's memory
 * limit, which a command could otherwise fill with requests it makes the
 * proxy refuse. The lines that fit beside NETPROXY_LOG_MARK are kept; the
 * first that does not makes the marker the last line, and its count ("%-20llu",
 * a fixed width) grows in place with each line dropped after
 * (helper/netproxy-conn.c, log_append). */
#define NETPROXY_LOG_MAX ((size_t)1 << 20)
#define NETPROXY_LOG_MARK "{\"action\":\"truncated\",\"limit\":%zu,\"dropped\":%-20llu}\n"

enum na_kind {
	NA_NAME,     /* an exact DNS name */
	NA_SUFFIX,   /* "*.SUFFIX": any name with at least one label before SUFFIX */
	NA_NET,      /* an IP address or a CIDR network */
};

typedef struct na_entry {
	enum na_kind kind;
	int family;                     /* NA_NET: AF_INET or AF_INET6 */
	unsigned prefix;                /* NA_NET: bits; 32 or 128 for one address */
	uint16_t port;                  /* 0: any port */
	uint8_t addr[16];               /* NA_NET: the network, host bits zero */
	char name[NETALLOW_NAME_MAX + 1]; /* NA_NAME, NA_SUFFIX (without "*."): lowercase */
} na_entry;

/* Read TEXT as one entry into *E: NULL, or why it is not one (a sentence
 * for "network allow: ..." messages). Names are lowered; an address is
 * kept in its network form. */
const char *netallow_parse(const char *text, na_entry *e);

/* The canonical spelling (BUF of NETALLOW_TEXT_MAX bytes): lowercase names,
 * addresses as inet_ntop writes them, "/N" only for a network, IPv6 in
 * brackets when a port follows, no port for "any". It parses back to E. */
void netallow_format(const na_entry *e, char *buf, size_t size);

/* Does A allow every destination that B allows? (A request may keep B only
 * when some policy entry covers it.) */
bool netallow_covers(const na_entry *a, const na_entry *b);

/* Why the address (FAMILY, 4 or 16 bytes at ADDR) is refused unless named:
 * "loopback", "link-local", "private", "the cloud metadata address", ...;
 * NULL for an address of the public internet. *PREFIX gets the length of
 * the special range: an entry names that range only with a prefix at least
 * as long. An IPv4-mapped IPv6 address is judged as its IPv4 address. */
const char *netallow_special(int family, const uint8_t *addr, unsigned *prefix);

/* Is NAME (a host name, lowercase, no trailing dot) at PORT in the list? */
bool netallow_name_allowed(const na_entry *v, size_t n, const char *name, uint16_t port);

/* May a connection go to the address at PORT? VIA_NAME: the address is
 * what an allowed name resolved to (a public address is then enough); else
 * an address entry must cover it. A special address (netallow_special)
 * needs an address entry that names its range. NULL, or why not. */
const char *netallow_addr_refused(const na_entry *v, size_t n, int family, const uint8_t *addr,
                                  uint16_t port, bool via_name);

/* Is HOST, as a client asked for it, a host name the proxy may resolve
 * (netallow_parse's rules for a name, so "127.1" or "0x7f.1" never reach
 * the resolver as names)? Lowers HOST in place. */
bool netallow_host_name_ok(char *host);

#endif /* OSB_NETALLOW_H */

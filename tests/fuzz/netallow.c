/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* netallow.c — libFuzzer harness for lib/netallow.c: the reading of a
 * "network allow" entry and the decisions the filtering proxy makes.
 *
 * The input is one NUL-terminated string. Beyond "no crash" it checks the
 * documented contract: an accepted entry's canonical spelling parses back
 * to itself, an entry covers itself, a name entry's name is a host name the
 * proxy would resolve, and the first 16 bytes, taken as an address, are
 * decided without crashing, a special address never passing by name alone.
 */
#include "netallow.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_entry(const char *s)
{
	char text[NETALLOW_TEXT_MAX], again[NETALLOW_TEXT_MAX], name[NETALLOW_NAME_MAX + 1];
	na_entry e, f;

	if (netallow_parse(s, &e) != NULL)
		return;
	netallow_format(&e, text, sizeof(text));
	if (netallow_parse(text, &f) != NULL)
		abort();
	netallow_format(&f, again, sizeof(again));
	if (strcmp(text, again) != 0 || !netallow_covers(&e, &f) || !netallow_covers(&f, &e))
		abort();
	if (e.kind != NA_NET) {
		memcpy(name, e.name, sizeof(name));
		if (!netallow_host_name_ok(name) || strcmp(name, e.name) != 0)
			abort();
	}
}

static void check_addr(const uint8_t *data, size_t size)
{
	uint8_t a[16] = { 0 };
	unsigned prefix;
	na_entry none = { .kind = NA_NAME };

	memcpy(a, data, size < 16 ? size : 16);
	for (int f = 0; f < 2; f++) {
		int family = f ? AF_INET6 : AF_INET;

		if (netallow_special(family, a, &prefix) &&
		    netallow_addr_refused(&none, 1, family, a, 443, true) == NULL)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	check_entry(s);
	check_addr(data, size);
	free(s);
	return 0;
}

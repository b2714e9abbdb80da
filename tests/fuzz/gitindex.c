/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* gitindex.c — libFuzzer harness for the strict reader of git's index
 * (lib/gitindex.c), which the plan runs over a workspace repository's
 * index before launch, in the caller's process (execd's, as root).
 *
 * The input's first byte picks the object name size (SHA-1 or SHA-256);
 * the rest is the index file, copied to a buffer of its exact size so a
 * read past its end is a crash. Beyond "no crash" it checks what the plan
 * relies on: the walk ends with 0 or with 1 and a reason; every gitlink
 * path is a relative path git would take (no empty, "." or ".."
 * component), at most PATH_MAX bytes, its entry number within the header's
 * count and increasing; at most one "link", its hex digits twice the hash
 * size.
 */
#include "gitindex.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
	uint32_t count, last;
	size_t hsz;
	unsigned links;
};

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int on_gitlink(void *ctx, uint32_t entry, const char *path)
{
	struct seen *s = ctx;
	size_t n = strlen(path);

	if (entry == 0 || entry > s->count || entry <= s->last || n == 0 || n > PATH_MAX ||
	    path[0] == '/' || path[n - 1] == '/' || strstr(path, "//") ||
	    strcmp(path, ".") == 0 || strcmp(path, "..") == 0 || strncmp(path, "./", 2) == 0 ||
	    strncmp(path, "../", 3) == 0 || strstr(path, "/./") || strstr(path, "/../") ||
	    (n >= 2 && strcmp(path + n - 2, "/.") == 0) || (n >= 3 && strcmp(path + n - 3, "/..") == 0))
		abort();
	s->last = entry;
	return 0;
}

static int on_link(void *ctx, const char *hex)
{
	struct seen *s = ctx;

	if (++s->links > 1 || strlen(hex) != 2 * s->hsz || strspn(hex, "0123456789abcdef") != 2 * s->hsz)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seen s = { 0 };
	struct gitindex_sink sink = { on_gitlink, on_link, &s };
	const char *why = NULL;
	unsigned char *map;
	int r;

	if (size < 1)
		return 0;
	s.hsz = data[0] & 1 ? 32 : 20;
	data++;
	size--;
	if (!(map = malloc(size ? size : 1)))
		return 0;
	memcpy(map, data, size);
	s.count = size >= 12 ? be32(map + 8) : 0;
	r = gitindex_walk(map, size, s.hsz, &sink, &why);
	if (!(r == 0 || (r == 1 && why && *why)))
		abort();
	free(map);
	return 0;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* gitindex.c — a strict reader of git's index file (gitindex.h). */
#include "gitindex.h"

#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MASK 0x0fffU       /* an entry's name length in its flags */
#define FLAG_EXTENDED 0x4000U   /* two more bytes of flags (version 3 and later) */
#define EOIE_BYTES (8 + 4 + 20) /* signature, size, offset, SHA-1 (git: always 20) */

static uint32_t be32_at(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

static int bad(const char **why, const char *what)
{
	*why = what;
	return 1;
}

/* A path git's index may hold (verify_path): relative, no empty, "." or
 * ".." component. */
static bool path_ok(const char *n)
{
	if (!*n || *n == '/')
		return false;
	for (const char *c = n; c; c = strchr(c, '/') ? strchr(c, '/') + 1 : NULL) {
		size_t l = strcspn(c, "/");

		if (l == 0 || (l == 1 && c[0] == '.') || (l == 2 && c[0] == '.' && c[1] == '.'))
			return false;
	}
	return true;
}

/* The offset table (IEOT) a git reading with threads would use: found from
 * the end-of-entries extension (EOIE) as git finds it. *EOIE: where that
 * extension says the entries end (0: there is none); *TABLE, *NBLOCKS: the
 * table's blocks (8 bytes each: offset, number of entries), none when git
 * would not use one. */
static int offset_table(const unsigned char *map, size_t size, size_t hsz, size_t *eoie,
                        const unsigned char **table, size_t *nblocks, const char **why)
{
	size_t len = size - hsz, e, o;

	*eoie = 0;
	*table = NULL;
	*nblocks = 0;
	if (size < 12 + EOIE_BYTES + hsz)
		return 0;
	e = len - EOIE_BYTES;
	if (memcmp(map + e, "EOIE", 4) != 0 || be32_at(map + e + 4) != EOIE_BYTES - 8)
		return 0;
	o = be32_at(map + e + 8);
	if (o < 12 || o >= e)
		return bad(why, "an end-of-entries extension (EOIE) naming an offset outside the entries");
	*eoie = o;
	for (; o + 8 <= len; o += 8 + (size_t)be32_at(map + o + 4)) {
		size_t esz = be32_at(map + o + 4);

		if (memcmp(map + o, "IEOT", 4) != 0)
			continue;
		if (esz < 4 || esz > len - o - 8)
			return bad(why, "an offset table (IEOT) runs past its end");
		if (be32_at(map + o + 8) != 1)
			return 0;   /* a version git ignores */
		*table = map + o + 12;
		*nblocks = (esz - 4) / 8;
		return 0;
	}
	return 0;
}

int gitindex_walk(const unsigned char *map, size_t size, size_t hsz,
                  const struct gitindex_sink *sink, const char **why)
{
	const unsigned char *table;
	size_t len, off = 12, plen = 0, eoie, nblocks, blk = 0;
	uint64_t next_block = 0;   /* the first entry of table block BLK */
	uint32_t ver, count;
	bool linked = false;
	char *name;
	int r;

	if (size < 12 + hsz)
		return bad(why, "too short");
	ver = be32_at(map + 4);
	count = be32_at(map + 8);
	if (memcmp(map, "DIRC", 4) != 0 || ver < 2 || ver > 4)
		return bad(why, "not an index of version 2, 3 or 4");
	if ((r = offset_table(map, size, hsz, &eoie, &table, &nblocks, why)) != 0)
		return r;
	if (!(name = malloc(PATH_MAX + 1)))
		return -ENOMEM;
	len = size - hsz;   /* the trailing checksum */
	for (uint64_t i = 0; i <= count; i++) {
		size_t fixed = 40 + hsz + 2, flen, n, step, p, copy;
		bool fresh = i == 0;
		const unsigned char *nm;
		uint32_t mode;
		unsigned flags;

		/* A table block starts here: a threaded git reads it from its
		 * offset, with no previous name to take a prefix from. */
		for (; blk < nblocks && next_block == i; blk++) {
			if (be32_at(table + 8 * blk) != off) {
				r = bad(why, "an offset table (IEOT) block that does not start at its entry");
				goto out;
			}
			next_block += be32_at(table + 8 * blk + 4);
			fresh = true;
		}
		if (i == count)
			break;
		if (off + fixed > len) {
			r = bad(why, "an entry runs past its end");
			goto out;
		}
		mode = be32_at(map + off + 24);
		flags = (unsigned)map[off + 40 + hsz] << 8 | map[off + 41 + hsz];
		flen = flags & NAME_MASK;
		if (flags & FLAG_EXTENDED) {
			if (ver < 3) {
				r = bad(why, "an extended entry in a version 2 index");
				goto out;
			}
			fixed += 2;
			if (off + fixed > len) {
				r = bad(why, "an entry runs past its end");
				goto out;
			}
		}
		p = off + fixed;
		copy = 0;
		if (ver == 4) {   /* prefix compression: drop STRIP bytes of the last name */
			uint64_t strip;

			if (p >= len) {
				r = bad(why, "an entry runs past its end");
				goto out;
			}
			strip = map[p] & 127;
			while (map[p++] & 128) {
				if (p >= len || strip > PATH_MAX) {
					r = bad(why, "a bad name prefix");
					goto out;
				}
				strip = ((strip + 1) << 7) | (map[p] & 127);
			}
			if (strip > plen || (fresh && strip != plen)) {
				r = bad(why, strip > plen ? "a bad name prefix" :
				        "an offset table (IEOT) block whose first name takes a prefix");
				goto out;
			}
			copy = plen - (size_t)strip;
		}
		nm = map + p;
		/* The name's own bytes: as many as the flags say, then a NUL. */
		if (flen == NAME_MASK) {
			n = strnlen((const char *)nm, len - p);
			if (n == len - p) {
				r = bad(why, "a name runs past its end");
				goto out;
			}
		} else {
			if (flen < copy || flen - copy >= len - p) {
				r = bad(why, flen < copy ? "a name shorter than its prefix" :
				        "a name runs past its end");
				goto out;
			}
			n = flen - copy;
			if (nm[n] != '\0' || memchr(nm, '\0', n)) {
				r = bad(why, "a name whose length disagrees with its flags");
				goto out;
			}
		}
		if (copy + n > PATH_MAX) {
			r = bad(why, "a name too long");
			goto out;
		}
		memcpy(name + copy, nm, n);
		plen = copy + n;
		name[plen] = '\0';
		step = ver == 4 ? p + n + 1 - off : (fixed + n + 8) & ~(size_t)7;
		off += step;
		/* An empty name is a split index's entry replacing one of the
		 * shared index, whose name it takes (that gitlink counts there). */
		if ((mode & 0170000) == 0160000 && plen > 0) {
			if (!path_ok(name)) {
				r = bad(why, "a gitlink path git would refuse");
				goto out;
			}
			if (sink->gitlink && (r = sink->gitlink(sink->ctx, (uint32_t)i + 1, name)) < 0)
				goto out;
		}
	}
	if (blk < nblocks || (nblocks && next_block != count)) {
		r = bad(why, "an offset table (IEOT) whose blocks are not the index's entries");
		goto out;
	}
	if (eoie && eoie != off) {
		r = bad(why, "an end-of-entries extension (EOIE) naming another offset than the entries' end");
		goto out;
	}
	/* The extensions (git reads them all; a split index's "link" names
	 * the shared index, which holds the other entries). */
	r = 0;
	while (off + 8 <= len) {
		size_t esz = be32_at(map + off + 4);

		if (esz > len - off - 8) {
			r = bad(why, "an extension runs past its end");
			break;
		}
		if (memcmp(map + off, "link", 4) == 0) {
			char hex[65];

			if (linked || esz < hsz) {
				r = bad(why, linked ? "two \"link\" extensions" : "a short \"link\" extension");
				break;
			}
			linked = true;
			for (size_t k = 0; k < hsz; k++)
				snprintf(hex + 2 * k, 3, "%02x", map[off + 8 + k]);
			if (sink->link && (r = sink->link(sink->ctx, hex)) < 0)
				break;
		}
		off += 8 + esz;
	}
out:
	free(name);
	return r;
}

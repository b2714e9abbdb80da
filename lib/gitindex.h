/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* gitindex.h — a strict reader of git's index file (gitindex.c) for what
 * the plan protects: the gitlinks (submodules) it holds and the shared
 * index a split index's "link" extension names (gitprotect.h).
 *
 * It reads an index as git does (read-cache.c's create_from_disk and
 * do_read_index; the format: gitformat-index(5)), and where git could read
 * the same bytes two ways it refuses rather than pick one:
 *   - an entry's name is as long as its flags say (the name bits, 0x0fff),
 *     a NUL ending it only when they are all ones; a name whose NUL does not
 *     sit where its flags put it is refused (git would step by the flags);
 *   - an end-of-entries extension (EOIE), which a git with index.threads
 *     reads the extensions from, must name the offset where the entries
 *     end; an offset table (IEOT), whose blocks such a git reads the
 *     entries from, must name exactly the blocks the walk goes through (a
 *     version 4 block starting with a whole name);
 *   - at most one "link" extension (git would take the last).
 * Pure: no file system access, so it is fuzzed as it is (tests/fuzz/gitindex.c).
 */
#ifndef OSB_GITINDEX_H
#define OSB_GITINDEX_H

#include <stddef.h>
#include <stdint.h>

/* What the walk reports. GITLINK: entry ENTRY (from 1) is a gitlink (mode
 * 160000) at PATH, a relative path git's verify_path would take; entries
 * with an empty name (a split index's replacements) are not reported.
 * LINK: the split index's shared index, HEX the hash's hex digits. Either
 * may be NULL; a negative return stops the walk with it. */
struct gitindex_sink {
	int (*gitlink)(void *ctx, uint32_t entry, const char *path);
	int (*link)(void *ctx, const char *hex);
	void *ctx;
};

/* Walk the index MAP (SIZE bytes, its trailing checksum included) whose
 * object names are HSZ bytes (20 for SHA-1, 32 for SHA-256). Returns 0 when
 * the whole index was read, 1 when it is not one this reader takes (*WHY
 * says what is wrong, a static string), -ENOMEM, or a sink's negative
 * value. An empty file is not an index: the caller takes it as none. */
int gitindex_walk(const unsigned char *map, size_t size, size_t hsz,
                  const struct gitindex_sink *sink, const char **why);

#endif /* OSB_GITINDEX_H */

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* overlay-diff.h — what an overlay workspace changed (overlay-diff.c): the
 * upper layer compared with the real workspace, both walked beneath their
 * directory fds, as the list osb_session_diff() returns (struct osb_diff,
 * whose entries the export and the commit read too). A pure function of two
 * directory fds: tests/unit/check_overlay.c builds layers by hand.
 */
#ifndef OSB_OVERLAY_DIFF_H
#define OSB_OVERLAY_DIFF_H

#include "osb-isolate.h"
#include "sha256.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* At most this many changes, this many directory levels, and this many
 * bytes of names (the list's paths and targets, and the names of the
 * directories being walked, each with its NUL) are held; a layer with more
 * is refused (E2BIG, ELOOP), never listed in part. The caller holding the
 * list is a long-running daemon: a sandbox that makes millions of long
 * names must not make it hold them all. */
#define OVL_MAX_CHANGES (1u << 20)
#define OVL_MAX_DEPTH 256u
#define OVL_MAX_NAME_BYTES ((size_t)128 << 20)

/* One change: the public view, and the strings it points at. */
typedef struct ovl_entry {
	osb_change c;
	char *path, *target, *old_target, *hardlink;
	uint32_t old_uid, old_gid;  /* the workspace entry's owner (modified, deleted) */
	bool hashed;                /* an added or modified regular file: SHA holds */
	uint8_t sha[SHA256_DIGEST_LEN]; /* the SHA-256 of the bytes the walk read */
} ovl_entry;

struct osb_diff {
	ovl_entry *v;
	size_t n, cap;
	char *workspace;            /* the workspace's host path, for the JSON; may be NULL */
	uint64_t bytes;             /* regular files' bytes in the session's view, added or modified */
};

/* The changes of the upper directory UPPER_FD over the workspace directory
 * LOWER_FD (any kind of fd, O_PATH included), into *OUT (free with
 * osb_diff_free). USERXATTR: the layer's opaque directories carry
 * user.overlay.opaque (user namespace mode), else trusted.overlay.opaque.
 * 0, or -OSB_E_* with ERR filled (stage "session"): -OSB_E_IO when a layer
 * cannot be read, -OSB_E_PATH for what a layer may not hold (a mount beneath
 * the workspace, a redirect or metadata-only copy-up, too many changes or
 * levels), -OSB_E_NOMEM. */
int ovl_diff(int upper_fd, int lower_fd, bool userxattr, osb_diff **out, osb_error *err);

/* "file", "dir", "symlink", "fifo", "socket", "char", "block", or NULL for
 * OSB_FILE_UNKNOWN. */
const char *ovl_type_name(int type);

/* The SHA-256 of D as a reviewer sees it: every entry's kind, what, types,
 * modes, size, path, targets and hard link, and the bytes of every added or
 * modified regular file (their hashes, made while the walk read them). Two
 * lists with the same fingerprint apply the same changes with the same
 * bytes (lib/session-overlay.c compares a commit's list with the last
 * diff's). */
void ovl_fingerprint(const osb_diff *d, uint8_t out[SHA256_DIGEST_LEN]);

/* Test hook: hold at most BYTES of names instead of OVL_MAX_NAME_BYTES (0:
 * the default again), so that tests/unit/check_overlay.c proves the bound
 * without making 128 MiB of names. */
void ovl_set_test_name_limit(size_t bytes);

#endif /* OSB_OVERLAY_DIFF_H */

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* paths.h — path verification: the one place where host paths become fds.
 *
 * Every host path the sandbox may write is an allowlisted root opened once
 * (hostpath.h checks those) plus a relative remainder resolved
 * beneath it by the kernel (openat2 with RESOLVE_BENEATH|NO_SYMLINKS|
 * NO_MAGICLINKS|NO_XDEV) or, where openat2 is missing, by an equivalent
 * component walk. Callers bind or use the verified fds, never the names.
 *
 * Relative paths follow one lexical rule everywhere: non-empty, at most
 * PATH_MAX-1 bytes, not absolute, every component non-empty, at most
 * NAME_MAX bytes and neither "." nor "..". A trailing or doubled "/" is
 * therefore refused rather than normalized: a verifier that rewrites its
 * input verifies something other than what the caller wrote. The whole path
 * "." (alone) names the root itself where that makes sense (open, list,
 * chmod, chown, resolve); it is refused where an entry is needed (mkdir,
 * unlink, rename, write).
 */
#ifndef OSB_PATHS_H
#define OSB_PATHS_H

#include "policy.h"

#include <sys/stat.h>

/* ---- internal (plan.c) ------------------------------------------------- */

/* Resolve REL beneath ROOT_FD to an O_PATH fd: no symlink, no magic link,
 * no ".", "..", no mount crossing; the result must be a directory or a
 * regular file with one link (a second hard link may be an outside file).
 * ROOT_DISPLAY names the root in messages ('/srv/jobs/x: symlink component
 * "x" refused (write paths may not contain symlinks)'). Returns 0 or
 * -OSB_E_*; err->sys_errno says why (ELOOP, EXDEV, EINVAL, EMLINK, ENXIO,
 * ENOENT, ENAMETOOLONG, ...). */
int path_resolve_beneath(int root_fd, const char *root_display, const char *rel,
                         int *fd_out, osb_error *err);

/* Refuse (OSB_E_PATH) when the host mount table has a mount strictly
 * beneath the directory DIR_FD: bwrap's binds are recursive, so such a
 * mount would come along, writable. Returns 0 or -OSB_E_*. */
int path_check_no_mounts_beneath(int dir_fd, osb_error *err);

/* The mount id of FD (statx STATX_MNT_ID, else /proc/self/fdinfo).
 * Returns 0 or -errno. */
int path_mount_id(int fd, uint64_t *id);

/* The kernel's name for FD (stat ST), checked to still name that inode (a
 * removed directory reads back as "... (deleted)"). *OUT is malloc'd.
 * Returns 0 or -errno (-ESTALE when the name no longer fits). */
int path_fd_name(int fd, const struct stat *st, char **out);

/* Test hooks: force the component walk instead of openat2, the named
 * temporary file instead of O_TMPFILE, and fstatat instead of d_type, so
 * unit tests prove both paths of each. */
enum {
	PATHS_TEST_FORCE_WALK = 1u << 0,
	PATHS_TEST_NO_TMPFILE = 1u << 1,
	PATHS_TEST_NO_DTYPE = 1u << 2,
};
void paths_set_test_flags(unsigned flags);

#endif /* OSB_PATHS_H */

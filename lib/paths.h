/* paths.h — path verification: the one place where host paths become fds.
 *
 * Every host path the sandbox may write is an allowlisted root opened once
 * (path_open_root, path_open_workspace) plus a relative remainder resolved
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

#include "internal.h"

/* ---- internal (plan.c) ------------------------------------------------- */

/* Open DIR as the workspace (O_PATH|O_DIRECTORY|O_CLOEXEC), following the
 * symlinks DIR itself contains: naming it is the caller's choice. Refuses
 * (OSB_E_PATH, stage "workspace") the same inode as "/", $HOME, the passwd
 * home of getuid(), or a system directory (/usr /etc /bin ... /tmp).
 * On success *FD_OUT is the fd and *CANON the kernel's path for it
 * (malloc'd). Returns 0 or -OSB_E_*. */
int path_open_workspace(const char *dir, int *fd_out, char **canon, osb_error *err);

/* Open an allowlisted root: ABS must be absolute, contain no symlink in any
 * component, name a directory, and not be writable by group or others.
 * Returns 0 or -OSB_E_PATH. */
int path_open_root(const char *abs, int *fd_out, osb_error *err);

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

/* Test hooks: force the component walk instead of openat2, and the named
 * temporary file instead of O_TMPFILE, so unit tests prove both paths. */
enum {
	PATHS_TEST_FORCE_WALK = 1u << 0,
	PATHS_TEST_NO_TMPFILE = 1u << 1,
};
void paths_set_test_flags(unsigned flags);

/* ---- public file API (for a daemon's file proxy) ------------------------
 *
 * All take an open directory fd ROOT_FD (any kind, O_PATH is fine) and a
 * relative path under the rule above, never follow a symlink anywhere, and
 * never cross a mount. They return a non-negative value on success and a
 * negative errno on failure (-ELOOP symlink, -EXDEV mount, -EINVAL lexical
 * or argument error, -EMLINK hard link, -ENXIO not a regular file or
 * directory, or the system call's own errno), filling ERR (may be NULL)
 * with code OSB_E_PATH (OSB_E_USAGE for bad arguments, OSB_E_IO for write
 * errors, OSB_E_NOMEM) and a message naming the path and the rule.
 * MODE arguments may only hold permission bits (0777): setuid, setgid and
 * sticky bits are never granted through this API; the process umask
 * applies on creation as with open(2). */

/* Open REL. FLAGS: O_RDONLY/O_WRONLY/O_RDWR with O_CREAT, O_EXCL, O_TRUNC,
 * O_DIRECTORY, O_APPEND only. The fd is O_CLOEXEC. FIFOs, sockets and
 * devices are refused before they are opened (and, should one be swapped in,
 * opened O_NONBLOCK|O_NOCTTY and refused, so nothing blocks); regular files
 * with more than one link are refused for writing; O_TRUNC is applied only
 * after these checks. Returns the fd. */
int osb_open_beneath(int root_fd, const char *rel, int flags, unsigned mode, osb_error *err);
/* mkdirat in the verified parent of REL. Returns 0. */
int osb_mkdir_beneath(int root_fd, const char *rel, unsigned mode, osb_error *err);
/* unlinkat in the verified parent (IS_DIR: AT_REMOVEDIR). A symlink as the
 * last component is removed itself, never followed. Returns 0. */
int osb_unlink_beneath(int root_fd, const char *rel, int is_dir, osb_error *err);
/* renameat between two verified parents. Returns 0. */
int osb_rename_beneath(int root_fd, const char *from, const char *to, osb_error *err);
/* Replace REL with DATA atomically: readers see the old file or the whole
 * new one, never a mix (not fsync'd: atomic, not crash-durable). The new
 * content is written to an unnamed O_TMPFILE in the verified parent, linked
 * under a random ".osb-" name (linkat AT_EMPTY_PATH, which needs
 * CAP_DAC_READ_SEARCH, else through /proc/self/fd) and renamed over REL;
 * where O_TMPFILE is unsupported, a named temporary created O_EXCL is used.
 * An existing REL must be a regular file (not a symlink). Returns 0. */
int osb_write_file_beneath(int root_fd, const char *rel, const void *data, size_t len,
                           unsigned mode, osb_error *err);
/* chmod/chown the verified inode itself (fchmodat2 AT_EMPTY_PATH or
 * /proc/self/fd, fchownat AT_EMPTY_PATH): directories and single-link
 * regular files only. UID/GID (uint32_t)-1 leave that id unchanged.
 * Returns 0. */
int osb_fchmod_beneath(int root_fd, const char *rel, unsigned mode, osb_error *err);
int osb_fchown_beneath(int root_fd, const char *rel, uint32_t uid, uint32_t gid,
                       osb_error *err);
/* The entry names of directory REL (without "." and ".."), sorted bytewise,
 * as one NULL-terminated array in a single allocation: free *NAMES with
 * osb_free(). Returns the number of names. */
int osb_list_beneath(int root_fd, const char *rel, char ***names, osb_error *err);

#endif /* OSB_PATHS_H */

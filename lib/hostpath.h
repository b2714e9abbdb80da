/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* hostpath.h — absolute host paths checked against who can change them.
 *
 * paths.h resolves a relative path beneath a root that is already open;
 * this is how the absolute paths a caller or a policy names (the workspace,
 * write-roots, read-roots, write and read-only grants, the configuration
 * file) become fds. One walk from "/" serves them all: no symlink is
 * followed, no directory is crossed that anyone but root or the caller could
 * change (the rule of ssh's StrictModes), no system directory or pseudo file
 * system is handed out. The table of refused directories and the reasons
 * are in hostpath.c and osb-isolate(1), "PATHS".
 */
#ifndef OSB_HOSTPATH_H
#define OSB_HOSTPATH_H

#include "policy.h"

/* The configured workspace roots (osb_config): a workspace must lie
 * strictly beneath one of them. N == 0: any directory the rules allow.
 * FROM names where they were configured ("/etc/osb-isolate/config",
 * "api"), for messages. */
typedef struct path_roots {
	char *const *v;
	size_t n;
	const char *from;
} path_roots;

/* Open DIR as the workspace (O_PATH|O_DIRECTORY|O_CLOEXEC): DIR is absolute
 * and normalized, no component is a symlink, every directory crossed
 * belongs to root or the caller and is not writable by group or others (a
 * sticky one only into an entry of root or the caller), no component is a
 * system directory or on a pseudo file system, DIR is not "/", /home, /tmp,
 * the caller's home or another shared directory, and lies strictly beneath
 * one of ROOTS (may be NULL). Refusals are OSB_E_PATH (OSB_E_HOST for a
 * file system that cannot be told from devtmpfs, see path_check_fs), stage
 * "workspace", naming the component and its owner. On success *FD_OUT is the fd and
 * *CANON the kernel's path for it (malloc'd). Returns 0 or -OSB_E_*. */
int path_open_workspace(const char *dir, const path_roots *roots, int *fd_out, char **canon,
                        osb_error *err);

/* Open a write-root or read-root: the walk above without the shared
 * directory table, a directory, itself not writable by group or others.
 * Returns 0 or -OSB_E_PATH (-OSB_E_HOST as path_check_fs says; stage
 * "paths"). */
int path_open_root(const char *abs, int *fd_out, osb_error *err);

/* Open ABS, which must lie strictly beneath the root ROOT_FD (opened by
 * path_open_root), for a writable bind: the workspace's rules, and no mount
 * crossed below the root; a directory or a regular file with one link.
 * Returns 0 or -OSB_E_* (stage "paths"). */
int path_open_granted(int root_fd, const char *abs, int *fd_out, osb_error *err);

/* Open ABS for a read-only bind a caller adds (run --ro, a request's
 * "read_only"): the workspace's rules; a directory or a regular file.
 * Returns 0 or -OSB_E_* (stage "paths"). */
int path_open_caller_bind(const char *abs, int *fd_out, osb_error *err);

/* Refuse (OSB_E_PATH, stage STAGE) when FD lies on a pseudo file system
 * (procfs, sysfs, devtmpfs, cgroupfs, debugfs, securityfs, bpffs, tracefs,
 * ...), judged by statfs f_type and, for tmpfs's f_type, the mount's type
 * in /proc/self/mountinfo: OSB_E_HOST when that cannot be read (no table,
 * a line the reader refuses, no entry for the mount), never "plain tmpfs".
 * The walks above judge every component the same way. WHAT starts the
 * message. For the binds a policy author names, which may follow symlinks.
 * Returns 0 or -OSB_E_*. */
int path_check_fs(int fd, const char *what, const char *stage, osb_error *err);

/* Open the configuration file PATH for reading (O_RDONLY|O_CLOEXEC): every
 * directory crossed as for the workspace, no symlink, a regular file owned
 * by root or the caller and not writable by group or others. Returns the
 * fd, or -OSB_E_* (stage "config"; sys_errno ENOENT when it is missing). */
int path_open_config(const char *path, osb_error *err);

/* Why ABS lies in a system directory of the table, by name ("inside /etc
 * (host configuration ...)"), written into BUF; NULL if it does not. The
 * early, lexical refusal of a request (ABS normalized); the walk above is
 * the check that holds. */
const char *path_system_problem(const char *abs, char *buf, size_t size);

#endif /* OSB_HOSTPATH_H */

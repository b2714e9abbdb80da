/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* internal.h — data shared between the pipeline stages of libosb-isolate.
 *
 * The parsed policy (struct osb_policy) is the input of every later stage:
 * plan.c turns it plus the host into a launch plan, bwrap.c renders the plan
 * as bwrap's argv, spawn.c starts it and supervises, result.c reports. Each
 * effective rule carries its origin (file:line, "default" or "api") so that
 * explain and diagnostics can say where it came from.
 */
#ifndef OSB_INTERNAL_H
#define OSB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>

#include "osb-isolate.h"

#define OSB_POLICY_VERSION 1
#define OSB_INCLUDE_MAX_DEPTH 2

/* ---- small helpers (util.c) -------------------------------------------- */

static inline void freep(void *p) { free(*(void **)p); }
static inline void closep(int *fd) { if (*fd >= 0) { int e = errno; close(*fd); errno = e; } }
#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)

/* Fill ERR (may be NULL) and return -CODE. Format like printf. */
int osb_err_set(osb_error *err, int code, int sys_errno, const char *stage,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void osb_err_clear(osb_error *err);

/* Abort on allocation failure is not acceptable in a library: these return
 * NULL and the caller reports OSB_E_NOMEM. */
char *xstrdup_or_null(const char *s);

/* Growable NULL-terminated string vector. */
typedef struct strv {
	char **v;
	size_t n, cap;
} strv;
int strv_push(strv *s, const char *str);          /* copies STR; -ENOMEM */
int strv_pushf(strv *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strv_free(strv *s);

/* Make room for element N of ARR (capacity *CAP, elements of SIZE bytes),
 * doubling; returns the (possibly moved) array, or NULL (ARR untouched). */
void *array_grow(void *arr, size_t *cap, size_t n, size_t size);

/* Read a whole file (bounded by MAX bytes) into a NUL-terminated buffer. */
int read_file_bounded(const char *path, size_t max, char **out, size_t *len);

/* ---- policy (policy.c) ------------------------------------------------- */

/* Where a rule came from. FILE points into the policy's file table (or a
 * static string "default"/"api"); LINE is 0 for default and api rules. */
typedef struct osb_origin {
	const char *file;
	unsigned line;
	unsigned depth;   /* include depth of FILE (0 = top file); api = 0 */
} osb_origin;

enum root_kind { ROOT_HOST_RO = 0, ROOT_NONE = 1 };
enum mount_kind {
	MNT_RO_BIND,      /* ro-bind PATH: host PATH read-only at PATH */
	MNT_TMPFS,        /* tmpfs PATH */
	MNT_HIDE,         /* hide PATH: empty read-only tmpfs */
	MNT_DEV,          /* dev PATH */
	MNT_PROC,         /* proc PATH */
	MNT_SYMLINK,      /* symlink TARGET PATH: a symlink in a fresh directory */
};
enum ws_mode { WS_NONE = 0, WS_RO, WS_RW };
enum net_mode { NET_NONE = 0, NET_HOST };
enum env_base { ENV_CLEAR = 0, ENV_INHERIT };
/* How the sandbox identity is made (DESIGN §1): a user-namespace view, or a
 * real uid/gid switch by root without a user namespace. */
enum id_mode { ID_AUTO = 0, ID_USERNS, ID_ROOT };
/* seccomp default|none|GROUP: SC_DEFAULT loads the deny group sc_group. */
enum sc_mode { SC_DEFAULT = 0, SC_NONE };
enum ll_mode { LL_AUTO = 0, LL_REQUIRED, LL_OFF };  /* landlock auto|required|off */

/* seccomp deny NAME... [errno=E] / seccomp allow NAME... (one entry a name) */
typedef struct pol_sc {
	char *name;
	bool allow;           /* true: removed from the deny set */
	int err;              /* errno for deny; 0 = EPERM */
	osb_origin o;
} pol_sc;

typedef struct pol_mount {
	enum mount_kind kind;
	char *path;
	osb_origin o;
	char *target;         /* MNT_SYMLINK: what the link says; else NULL */
} pol_mount;

typedef struct pol_str {   /* an env pattern, env NAME=VALUE, ... */
	char *s;
	osb_origin o;
} pol_str;

enum limit_id {
	LIM_WALL,     /* milliseconds */
	LIM_CPU,      /* seconds (RLIMIT_CPU) */
	LIM_AS,       /* bytes (RLIMIT_AS) */
	LIM_NOFILE,   /* count (RLIMIT_NOFILE) */
	LIM_FSIZE,    /* bytes (RLIMIT_FSIZE) */
	LIM_NPROC,    /* count (RLIMIT_NPROC) */
	LIM_OUTPUT,   /* bytes captured per stream */
	LIM__COUNT
};

/* After parsing, SET is true for every scalar (origin "default" when the
 * policy left it unset); for limits, SET false means "no limit". A limit
 * value of UINT64_MAX means "unlimited" (RLIM_INFINITY). */
typedef struct pol_scalar_origin {
	bool set;
	osb_origin o;
} pol_set;

struct osb_policy {
	int version;

	enum root_kind root;           pol_set root_set;
	pol_mount *mounts; size_t n_mounts;
	enum ws_mode ws_mode;          pol_set ws_set;
	char *ws_dest;                 /* NULL: same path as on the host */
	char *ws_path;                 /* host dir (api/CLI); NULL: caller's cwd */
	osb_origin ws_path_o;
	/* The configured workspace roots (osb_policy_set_config): an input of
	 * the run like ws_path, not a rule; none: any allowed directory. */
	char **ws_roots; size_t n_ws_roots;
	char *ws_roots_from;
	enum net_mode net;             pol_set net_set;
	enum env_base env_base;        pol_set env_base_set;
	pol_str *env_pass; size_t n_env_pass;   /* names or NAME* patterns */
	pol_str *env_deny; size_t n_env_deny;   /* glob patterns (* and ?) */
	pol_str *env_set; size_t n_env_set;     /* NAME=VALUE; ${WORKSPACE} expands */
	char *user_name; uint32_t uid, gid; pol_set user_set;
	char *hostname;                pol_set hostname_set;
	enum id_mode id_mode;          pol_set id_mode_set;
	/* host-ids UID GID: the host ids a root caller's sandbox runs as,
	 * instead of a pair allocated per sandbox (lib/hostid.c). */
	uint32_t host_uid, host_gid;   pol_set host_ids_set;
	/* Writable paths beyond the workspace (DESIGN §3 "Paths and mounts"):
	 * write-root PATH declares an operator root; write PATH grants a path
	 * that must lie beneath a declared root; read-only PATH re-protects a
	 * path inside a writable area. */
	pol_str *write_roots; size_t n_write_roots;
	pol_str *writes; size_t n_writes;
	pol_str *read_only; size_t n_read_only;  /* absolute, or "workspace:REL" */
	/* What a caller may add (osb-isolate.policy(5), "CALLER GRANTS"):
	 * read-only binds beneath a read-root, the host network when
	 * allow-caller network is set (caller_net.set). */
	pol_str *read_roots; size_t n_read_roots;
	pol_set caller_net;
	enum sc_mode sc_mode;          pol_set sc_mode_set;
	unsigned sc_group;             /* N of osb-default-N (lib/filter.h); 0: the newest */
	pol_sc *sc_rules; size_t n_sc_rules;
	enum ll_mode landlock;         pol_set landlock_set;
	uint64_t limits[LIM__COUNT];   pol_set limit_set[LIM__COUNT];

	char **files; size_t n_files;  /* provenance table: every file read */
};

/* Names of limits as written in policies ("wall", "cpu", ...). */
extern const char *const osb_limit_names[LIM__COUNT];

/* Whole numbers with a unit (no fractions, no sign, no blanks). Durations
 * accept ms, s, m, h; sizes accept B, KiB, MiB, GiB, TiB, K, M, G (binary).
 * Return 0, -EINVAL (malformed, missing or unknown unit, negative) or
 * -ERANGE (UINT64_MAX or more, which is reserved for "unlimited"). */
int parse_duration_ms(const char *s, uint64_t *out);
int parse_size_bytes(const char *s, uint64_t *out);

/* Glob match for env patterns: '*' and '?' only. */
bool env_pattern_match(const char *pattern, const char *name);

/* Where shipped policies live (env OSB_ISOLATE_POLICY_DIR or compiled in). */
const char *policy_dir(void);

/* The canonical effective policy: the text osb_policy_hash digests and that
 * osb_policy_explain annotates. One rule a line in a fixed order, no
 * origins; it parses back to the same policy. ws_path (an input of the run,
 * not a rule) is not part of it. *OUT is malloc'd. Returns 0 or -ENOMEM. */
int policy_canonical(const osb_policy *p, char **out);

/* ---- environment (env.c) ------------------------------------------------ */

/* Compute the sandbox environment from the policy and the caller's ENVP.
 * WORKSPACE_DEST expands ${WORKSPACE} in env set values. */
int env_build(const osb_policy *p, const char *const *envp,
              const char *workspace_dest, strv *out, osb_error *err);

/* ---- identity (identity.c) --------------------------------------------- */

/* Synthesized /etc/passwd and /etc/group for the sandbox, whose user has
 * the policy's name and the ids UID/GID it sees (the policy's in userns
 * mode, its host ids in root mode). Caller frees. */
int identity_passwd(const osb_policy *p, uint32_t uid, uint32_t gid, const char *home,
                    char **out);
int identity_group(const osb_policy *p, uint32_t uid, uint32_t gid, char **out);
/* The sandbox's /etc/hostname and /etc/hosts: its own host name, and
 * loopback names only (none of the host's). */
int identity_hostname(const osb_policy *p, char **out);
int identity_hosts(const osb_policy *p, char **out);

#endif /* OSB_INTERNAL_H */

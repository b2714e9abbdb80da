/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* policy.h — the parsed policy (struct osb_policy) and what policy.c does
 * with it: load, parse, free, and the caller adjustments the API, the CLI's
 * run options and execd requests (request.c) make under one set of rules.
 *
 * The parsed policy is the input of every later stage: plan.c turns it plus
 * the host's facts into a launch plan, bwrap.c renders the plan as bwrap's
 * argv, proc.c starts it, supervise.c watches it, result.c reports. Each
 * effective rule carries its origin (file:line, "default" or "api") so that
 * explain and diagnostics can say where it came from. The language itself
 * is read by policy-parse.c and policy-directives.c from the values of
 * policy-values.c; policy-canon.c gives its canonical form and hash.
 */
#ifndef OSB_POLICY_H
#define OSB_POLICY_H

#include "util.h"
#include "policy-values.h"

#include <limits.h>

#define OSB_INCLUDE_MAX_DEPTH 2

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
/* WS_OVERLAY: the workspace is the read-only lower layer of an overlay
 * whose upper layer is a private tmpfs of ws_size bytes (docs/ARCHITECTURE.md,
 * "Overlay workspaces"); appended so that the other values keep theirs. */
enum ws_mode { WS_NONE = 0, WS_RO, WS_RW, WS_OVERLAY };
/* The upper layer's size when "workspace overlay" names none. */
#define WS_OVERLAY_DEFAULT_SIZE ((uint64_t)1 << 30)
/* NET_ALLOW: loopback only, and a filtering proxy outside that lets the
 * connections of net_allow through (lib/netallow.h); appended so that the
 * other values keep theirs. */
enum net_mode { NET_NONE = 0, NET_HOST, NET_ALLOW };
enum env_base { ENV_CLEAR = 0, ENV_INHERIT };
/* How the sandbox identity is made (docs/ARCHITECTURE.md, "Identity"): a
 * user-namespace view, or a real uid/gid switch by root without a user
 * namespace. */
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
	uint64_t size;        /* MNT_TMPFS: bytes (tmpfs PATH size=SIZE); 0: none */
} pol_mount;

typedef struct pol_str {   /* an env pattern, env NAME=VALUE, ... */
	char *s;
	osb_origin o;
} pol_str;

enum limit_id {
	LIM_WALL,     /* milliseconds */
	LIM_CPUTIME,  /* seconds (RLIMIT_CPU): "limit cputime" */
	LIM_AS,       /* bytes (RLIMIT_AS) */
	LIM_NOFILE,   /* count (RLIMIT_NOFILE) */
	LIM_FSIZE,    /* bytes (RLIMIT_FSIZE) */
	LIM_NPROC,    /* count (RLIMIT_NPROC) */
	LIM_OUTPUT,   /* bytes captured per stream */
	/* Enforced by the kernel for the whole sandbox (lib/sandbox-limits.c, a
	 * cgroup of its own); appended so older limits keep their order. */
	LIM_MEMORY,   /* bytes of memory (memory.max), swap none */
	LIM_PIDS,     /* processes and threads (pids.max) */
	LIM_CPU,      /* share of CPU in thousandths of one CPU (cpu.max) */
	LIM__COUNT
};

#define LIM_BIT(id) (1u << (id))

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
	uint64_t ws_size;              /* WS_OVERLAY: bytes of the upper layer; else 0 */
	char *ws_path;                 /* host dir (api/CLI); NULL: caller's cwd */
	osb_origin ws_path_o;
	/* An overlay's upper layer kept in this host directory for later runs
	 * and sessions (osb_policy_set_overlay_persist; lib/layer.c): an input
	 * of the run like ws_path, not a rule. NULL: a private tmpfs. */
	char *ws_persist;
	/* The configured workspace roots (osb_policy_set_config): an input of
	 * the run like ws_path, not a rule; none: any allowed directory. */
	char **ws_roots; size_t n_ws_roots;
	char *ws_roots_from;
	/* The configured cgroup parents (cgroup-parent, osb_policy_set_config):
	 * NULL-terminated, or NULL. Where sandbox cgroups go (sandbox-limits.c). */
	char **cg_parents;
	/* The configured hosts file of the filtering proxy (net-hosts,
	 * osb_policy_set_config): an input of the run, not a rule; NULL: none. */
	char *net_hosts;
	enum net_mode net;             pol_set net_set;
	/* "network allow HOST[:PORT]...": each entry in its canonical
	 * spelling (netallow_format), once; empty unless net is NET_ALLOW. */
	pol_str *net_allow; size_t n_net_allow;
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
	/* Writable paths beyond the workspace (osb-isolate.policy(5), "WRITABLE PATHS"):
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
	enum ll_mode landlock;
	/* "limit memory|pids|cpu V best-effort" (LIM_BIT()s): when the host
	 * cannot enforce it, run anyway and say so in the result (else refuse,
	 * exit 125). Here it fills what would be padding. */
	unsigned limit_best_effort;
	pol_set landlock_set;
	uint64_t limits[LIM__COUNT];   pol_set limit_set[LIM__COUNT];

	char **files; size_t n_files;  /* provenance table: every file read */
};

/* Origins that are not a file ("default", "api"); their line is 0. */
extern const char policy_origin_default[];
extern const char policy_origin_api[];

/* The origin every caller adjustment records: {"api", 0, 0}. */
extern const osb_origin policy_api_origin;

/* Did a caller (the API, a request, the CLI's run options) add this rule? */
static inline bool policy_origin_is_api(const osb_origin *o)
{
	return o->file == policy_api_origin.file;
}

/* Does P mount a procfs (*PROC), and the sandbox's own devices at /dev
 * (*DEV), whose null device the init binds over what it covers? What
 * decides whether the init makes the /proc cover (lib/bwrap.c) and whether
 * the capabilities item proc_cover concerns P (lib/caps.c). */
static inline void policy_view_mounts(const osb_policy *p, bool *proc, bool *dev)
{
	*proc = *dev = false;
	for (size_t m = 0; m < p->n_mounts; m++) {
		*proc = *proc || p->mounts[m].kind == MNT_PROC;
		*dev = *dev || (p->mounts[m].kind == MNT_DEV && strcmp(p->mounts[m].path, "/dev") == 0);
	}
}

/* The declared write-root PATH lies strictly beneath, or NULL. */
const pol_str *policy_root_of(const osb_policy *p, const char *path);

/* "/data, /srv/jobs": the declared write-roots. */
void policy_roots_list(const osb_policy *p, char *buf, size_t size);

/* Why P's declarations refuse a write grant of PATH (not beneath a
 * write-root, or under a read-only path), written into BUF; NULL if none. */
const char *policy_write_problem(const osb_policy *p, const char *path, char *buf, size_t size);

/* Is PATH, by itself, a path a caller may ask to write (absolute,
 * normalized, a rule the canonical form can hold)? 0, or -USAGE_CODE with
 * WHAT starting the message. Needs no policy: requests are checked so
 * before they meet one (request.c). */
int policy_check_writable_path(const char *path, const char *what, int usage_code, osb_error *err);

/* May PATH be granted writable by a caller? 0 yes, 1 it already is, or
 * -OSB_E_*: WHAT starts every message; a malformed PATH is reported with
 * USAGE_CODE, a refused one (not beneath a write-root, under a read-only
 * path, already another rule's path) with OSB_E_POLICY. */
int policy_check_writable(const osb_policy *p, const char *path, const char *what, int usage_code,
                          osb_error *err);

/* The check above, then PATH as a "write" rule of origin api. Returns 0 or
 * -OSB_E_*. */
int policy_add_writable(osb_policy *p, const char *path, const char *what, int usage_code,
                        osb_error *err);

/* May a caller turn the host network on? Only under "network host" or
 * "allow-caller network": 0, or -OSB_E_POLICY naming the policy and its
 * network rule. */
int policy_check_network(const osb_policy *p, osb_error *err);

/* Is PATH, by itself, a path a caller may bind read-only? 0, or
 * -OSB_E_USAGE; needs no policy. */
int policy_check_read_only_path(const char *path, osb_error *err);

/* May a caller bind PATH read-only? 0 yes, 1 it already is, or -OSB_E_*
 * as below. */
int policy_check_read_only(const osb_policy *p, const char *path, osb_error *err);

/* PATH as a caller's read-only bind (origin api): it must lie beneath a
 * read-root of P (OSB_E_POLICY naming them) and be a well-formed policy
 * path (OSB_E_USAGE). Adding it twice is harmless. Returns 0 or -OSB_E_*. */
int policy_add_read_only(osb_policy *p, const char *path, osb_error *err);

/* May a caller (WHO: "caller", "request") set the workspace mode to MODE?
 * Only to narrow it (none < ro < overlay < rw), and never add one to
 * "workspace none": 0, or -OSB_E_POLICY starting with WHAT. */
int policy_check_ws_mode(const osb_policy *p, enum ws_mode mode, const char *what,
                         const char *who, osb_error *err);

/* Set the workspace mode (origin api) once checked; a new overlay gets the
 * default size. */
void policy_set_ws_mode(osb_policy *p, enum ws_mode mode);

/* Free a NULL-terminated array of strings, and the array (NULL: nothing). */
void policy_free_strv(char **v);

/* Free a list of N strings with origins, and the list. */
void policy_free_strs(pol_str *v, size_t n);

#endif /* OSB_POLICY_H */

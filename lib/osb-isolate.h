/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* osb-isolate.h — the public C API of libosb-isolate.
 *
 * The only installed header. A caller (typically an execution daemon) loads a
 * policy, optionally narrows it, and runs commands under it in a bubblewrap
 * namespace sandbox. Every handle is opaque; every _new/_load/_parse has a
 * matching _free; strings returned as `char *` are freed with osb_free().
 * No function installs signal handlers, waits on children it did not create,
 * or changes process-wide state (cwd, umask, environment, rlimits).
 * Distinct handles may be used from different threads at once; one handle
 * must not be used from two threads at the same time unless stated.
 */
#ifndef OSB_ISOLATE_H
#define OSB_ISOLATE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is compiled with -fvisibility=hidden: what this header
 * declares is its whole interface, and lib/libosb-isolate.sym lists it. */
#pragma GCC visibility push(default)

/* The version this header describes; osb_version() answers the library's
 * own, which a program loading the library at run time may compare. */
#define OSB_VERSION_MAJOR 0
#define OSB_VERSION_MINOR 1
#define OSB_VERSION_PATCH 0
#define OSB_ISOLATE_VERSION "0.1.0"

/* Attributes a compiler checks at the call site. OSB_WARN_UNUSED marks the
 * calls whose result must be looked at (an allocation to free, an error to
 * act on). No function is declared nonnull: every one answers NULL
 * arguments itself (-OSB_E_USAGE, or NULL), and a nonnull declaration would
 * let the compiler drop those checks inside the library. */
#if defined(__GNUC__) || defined(__clang__)
#define OSB_WARN_UNUSED __attribute__((warn_unused_result))
#else
#define OSB_WARN_UNUSED
#endif

/* "MAJOR.MINOR.PATCH" of the library loaded, e.g. "0.1.0". Static. */
const char *osb_version(void);

/* A duration as policies and requests spell it (osb-isolate.policy(5)):
 * digits and a unit, "ms", "s", "m" or "h" ("90s", "2m"), into *MS. 0, or
 * -OSB_E_USAGE for anything else (no unit, a sign, a fraction, overflow);
 * *MS is left alone then. Zero is a duration: a caller that needs a
 * positive one checks. */
OSB_WARN_UNUSED int osb_parse_duration(const char *text, uint64_t *ms);

/* The exit statuses of the osb-isolate command that are its own
 * (osb-isolate(1), "EXIT STATUS"); any other is the command's. */
enum {
	OSB_EXIT_TIMEOUT = 124,      /* the wall-clock limit expired */
	OSB_EXIT_SETUP = 125,        /* the sandbox could not be set up (or the
	                              * result or output could not be written) */
	OSB_EXIT_NOEXEC = 126,       /* found but not executable */
	OSB_EXIT_NOTFOUND = 127,     /* not found */
	OSB_EXIT_SIGNAL_BASE = 128,  /* 128+N: killed by signal N */
};

/* Error codes. A call that fails returns one negated (-OSB_E_*) and fills
 * its osb_error; the errno of a failing system call is only ever in
 * osb_error.sys_errno. The codes lie above every errno value (the kernel's
 * are below 4096), so a -OSB_E_* never reads as a -errno. Their numeric
 * values never change meaning. */
enum {
	OSB_OK = 0,
	OSB_E_USAGE = 4097,     /* invalid argument from the caller */
	OSB_E_POLICY = 4098,    /* policy text or a narrowing request is invalid */
	OSB_E_PATH = 4099,      /* a path failed verification */
	OSB_E_HOST = 4100,      /* the host lacks something the policy needs */
	OSB_E_SECCOMP = 4101,   /* the seccomp filter could not be built */
	OSB_E_SPAWN = 4102,     /* bwrap could not be started */
	OSB_E_SANDBOX = 4103,   /* bwrap or the in-sandbox init refused to set up */
	OSB_E_NOMEM = 4104,
	OSB_E_IO = 4105,
	OSB_E_INTERNAL = 4106,
};

/* The step of the pipeline an error comes from: osb_error.stage names it,
 * osb_error.stage_id is this enum (libosb-isolate(3), "ERRORS"). A value
 * never changes meaning; new stages are added at the end. */
typedef enum osb_stage {
	OSB_STAGE_NONE = 0,      /* no error */
	OSB_STAGE_OTHER,         /* a stage this enum does not name: read stage */
	OSB_STAGE_USAGE,         /* a caller's invalid argument */
	OSB_STAGE_POLICY,        /* policy text, narrowing, requests */
	OSB_STAGE_CONFIG,        /* the host configuration */
	OSB_STAGE_WORKSPACE,     /* the workspace directory */
	OSB_STAGE_PATHS,         /* a bind source or write path */
	OSB_STAGE_PROBE,         /* the host lacks what the policy needs */
	OSB_STAGE_BWRAP,         /* bwrap itself */
	OSB_STAGE_PLAN,          /* translating the policy for this host */
	OSB_STAGE_IDENTITY,      /* host ids, passwd and group */
	OSB_STAGE_ENV,           /* the command's environment */
	OSB_STAGE_SECCOMP,       /* building the seccomp filter */
	OSB_STAGE_SPAWN,         /* starting bwrap */
	OSB_STAGE_SUPERVISE,     /* watching the sandbox */
	OSB_STAGE_INIT,          /* the in-sandbox init, before its own steps */
	OSB_STAGE_INIT_ARGS,     /* "init:args": its arguments, the protocol */
	OSB_STAGE_INIT_FDS,      /* "init:fds" */
	OSB_STAGE_INIT_MOUNTS,   /* "init:mounts": the mount audit */
	OSB_STAGE_INIT_PROC,     /* "init:proc": /proc covers and masks */
	OSB_STAGE_INIT_IDENTITY, /* "init:identity" */
	OSB_STAGE_INIT_CAPS,     /* "init:caps" */
	OSB_STAGE_INIT_LANDLOCK, /* "init:landlock" */
	OSB_STAGE_INIT_RLIMITS,  /* "init:rlimits" */
	OSB_STAGE_INIT_SECCOMP,  /* "init:seccomp" */
	OSB_STAGE_INIT_ENV,      /* "init:env" */
	OSB_STAGE_INIT_CHDIR,    /* "init:chdir" */
	OSB_STAGE_INIT_FORK,     /* "init:fork" */
	OSB_STAGE_INIT_SESSION,  /* "init:session": the session broker */
	OSB_STAGE_EXEC,          /* the command could not be executed */
	OSB_STAGE_CWD,           /* a session command's working directory */
	OSB_STAGE_FORK,          /* a session command could not be started */
	OSB_STAGE_REQUEST,       /* a session request the broker refused */
	OSB_STAGE_SESSION,       /* the session itself */
	OSB_STAGE_OUTPUT,        /* copying the command's output */
	OSB_STAGE_RESULT,        /* building the result */
	OSB_STAGE_EXPLAIN,       /* describing the launch plan */
	OSB_STAGE_CGROUP,        /* the sandbox's cgroup: resource limits */
	OSB_STAGE_INIT_OVERLAY,  /* "init:overlay": the overlay workspace */
	OSB_STAGE_INIT_NET,      /* "init:net": the relay of "network allow" */
	OSB_STAGE_NETPROXY,      /* "netproxy": the filtering proxy outside */
} osb_stage;

/* The name of STAGE as osb_error.stage spells it ("policy", "init:seccomp";
 * "" for OSB_STAGE_NONE, "other" for OSB_STAGE_OTHER), or NULL for a value
 * outside the enum. Static. */
const char *osb_stage_name(osb_stage stage);

/* Filled by every call that can fail. Plain data: no allocation, no free.
 * Its size never changes: fields added later are carved out of RESERVED,
 * which the library zeroes, so a caller built against an older header
 * still allocates enough (libosb-isolate(3), "ABI"). */
typedef struct osb_error {
	int code;          /* one of OSB_E_* (OSB_OK when no error) */
	int sys_errno;     /* errno of the failing system call, or 0 */
	char stage[32];    /* pipeline stage: "policy", "plan", "spawn", "init:seccomp", ... */
	char message[1024];/* what failed, on what, and what to do */
	int stage_id;      /* STAGE as an osb_stage; OSB_STAGE_OTHER for one it does not name */
	unsigned char reserved[60];
} osb_error;

typedef struct osb_policy osb_policy;
typedef struct osb_exec osb_exec;
typedef struct osb_result osb_result;

/* Free a string returned by the library. */
void osb_free(void *p);

/* ---- Policies ---------------------------------------------------------- */

/* Load a policy file. NAME_OR_PATH containing a '/' is a path; otherwise it
 * names a shipped policy (NAME.policy in the policy directory: the
 * OSB_ISOLATE_POLICY_DIR environment variable, else the installed one). */
OSB_WARN_UNUSED osb_policy *osb_policy_load(const char *name_or_path, osb_error *err);
/* Parse policy text. FILENAME is used in diagnostics and to resolve
 * includes (its directory); it need not exist. */
OSB_WARN_UNUSED osb_policy *osb_policy_parse(const char *text, size_t len,
                                             const char *filename, osb_error *err);
void osb_policy_free(osb_policy *policy);

/* Narrowing, and the grants the policy leaves to its caller; each records
 * its origin as "api". A caller may only narrow, or add what the policy
 * grants callers (osb-isolate.policy(5), "CALLER GRANTS"); the CLI's run
 * options and osb_policy_apply_json() obey the same rules. */
/* The workspace: an absolute, normalized path (no symlink is followed when
 * the run opens it; see osb-isolate(1), "PATHS"). */
int osb_policy_set_workspace(osb_policy *policy, const char *dir, osb_error *err);
/* Bind PATH read-only: only beneath one of the policy's "read-root"
 * directories (OSB_E_POLICY otherwise, naming them); OSB_E_USAGE for a
 * malformed PATH. Adding a path twice is harmless. */
int osb_policy_add_readonly(osb_policy *policy, const char *path, osb_error *err);
/* The sandbox's network. OSB_NETWORK_HOST is refused (OSB_E_POLICY) unless
 * the policy has "network host" already or "allow-caller network"; any
 * other value is OSB_E_USAGE. */
typedef enum osb_network {
	OSB_NETWORK_NONE = 0,   /* loopback only */
	OSB_NETWORK_HOST = 1,   /* the host's network namespace */
} osb_network;
int osb_policy_set_network(osb_policy *policy, osb_network network, osb_error *err);
/* Pin the host uid/gid a root caller's sandbox runs as (the "host-ids"
 * directive), instead of a pair allocated per sandbox from a range no
 * account uses. Never 0. An unprivileged caller's launch refuses pinned ids
 * (its sandbox can only be itself). */
int osb_policy_set_host_ids(osb_policy *policy, uint32_t uid, uint32_t gid, osb_error *err);
/* The workspace mode (osb-isolate.policy(5), "workspace"): RO binds it
 * read-only, RW writable, OVERLAY shows it with every write going to a
 * private upper layer that is gone when the run or session ends. Narrow-only
 * (none < ro < overlay < rw): a wider mode, or any mode under "workspace
 * none", is OSB_E_POLICY; a value outside the enum OSB_E_USAGE. An overlay
 * the policy did not size gets the default size (1 GiB). */
typedef enum osb_workspace_mode {
	OSB_WORKSPACE_NONE = 0,
	OSB_WORKSPACE_RO = 1,
	OSB_WORKSPACE_RW = 2,
	OSB_WORKSPACE_OVERLAY = 3,
} osb_workspace_mode;
int osb_policy_set_workspace_mode(osb_policy *policy, osb_workspace_mode mode, osb_error *err);
/* Keep an overlay workspace's upper layer in DIR (absolute, normalized; NULL:
 * a private tmpfs again) instead of a tmpfs that ends with the sandbox: a
 * later run or session given the same DIR starts from it, and sees the
 * earlier changes (osb-isolate(1), "OVERLAY"). Checked when the sandbox is
 * planned, by fd like the workspace: DIR must exist, be empty or hold a layer
 * of this library (upper, work, osb-layer), belong to the sandbox's host uid
 * (the caller, or a root caller's pinned ids: allocated ids are refused),
 * be writable by nobody else, lie outside the workspace and every bind, and
 * beneath a configured workspace root when there are any; a layer made in
 * the other identity mode is refused; one sandbox at a time (a lock).
 * The policy's workspace must be an overlay by then (OSB_E_USAGE otherwise);
 * the layer's size is the file system's, not "size=". Not a rule: the policy
 * hash does not change. OSB_E_USAGE for a malformed DIR. */
int osb_policy_set_overlay_persist(osb_policy *policy, const char *dir, osb_error *err);
/* Lower the wall limit. MS above the policy's limit is refused
 * (OSB_E_POLICY, naming both limits), never quietly kept. */
int osb_policy_set_wall_ms(osb_policy *policy, uint64_t ms, osb_error *err);
/* Grant PATH writable (a "write" rule). Narrow-only: PATH must be absolute,
 * normalized, free of * ? [, blanks and control characters (it must be
 * expressible as a policy line), and lie strictly beneath one of the policy's
 * "write-root" directories (compared by whole components), and not under a
 * "read-only" path; otherwise OSB_E_POLICY with a message naming the
 * declared roots (OSB_E_USAGE for a malformed PATH). Granting a path twice
 * is harmless. The plan verifies the grant again by fd before binding it. */
int osb_policy_add_writable(osb_policy *policy, const char *path, osb_error *err);
/* Apply an execd request (a JSON object; see libosb-isolate(3) and
 * osb-isolate.policy(5), "REQUESTS"): workspace path and mode, extra
 * writable paths, network, environment, uid/gid. Narrow-only against the
 * policy; unknown keys, wrong types and widenings are OSB_E_POLICY errors
 * naming the key and the reason. On any error other than OSB_E_NOMEM the
 * policy is left unchanged. */
int osb_policy_apply_json(osb_policy *policy, const char *json, osb_error *err);

/* ---- Host configuration -------------------------------------------------
 *
 * Settings of the host, not of a policy (osb-isolate(1), "CONFIGURATION"):
 * the workspace roots, directories beneath which workspaces must lie. The
 * library never reads the configuration file by itself: load it, or build
 * the same settings with calls, and hand it to each policy. With no roots
 * configured a workspace may be any directory the path rules allow. */
typedef struct osb_config osb_config;

#define OSB_ISOLATE_CONFIG_PATH "/etc/osb-isolate/config"

/* An empty configuration (no roots). NULL when out of memory. */
OSB_WARN_UNUSED osb_config *osb_config_new(void);
/* Read PATH (NULL: OSB_ISOLATE_CONFIG_PATH, which may be missing: then the
 * configuration is empty). The file and every directory above it must
 * belong to root or the caller and be writable by nobody else, and no
 * component may be a symlink (OSB_E_PATH, stage "config"); a grammar error
 * is OSB_E_USAGE with "FILE:LINE:COL: message". */
OSB_WARN_UNUSED osb_config *osb_config_load(const char *path, osb_error *err);
void osb_config_free(osb_config *config);
/* Add a workspace root: an absolute, normalized directory path, not "/". */
int osb_config_add_workspace_root(osb_config *config, const char *dir, osb_error *err);
size_t osb_config_workspace_root_count(const osb_config *config);
/* Root I (0 .. count-1), or NULL. Owned by CONFIG. */
const char *osb_config_workspace_root(const osb_config *config, size_t i);
/* Add a cgroup parent: a cgroup directory (absolute, normalized; one per
 * cgroup hierarchy) in which sandboxes get their own cgroup for "limit
 * memory|pids|cpu", instead of beneath the caller's own cgroup: one root
 * made and gave to the users who run sandboxes where the host delegates
 * none (a cgroup v1 host). */
int osb_config_add_cgroup_parent(osb_config *config, const char *dir, osb_error *err);
size_t osb_config_cgroup_parent_count(const osb_config *config);
/* Parent I (0 .. count-1), or NULL. Owned by CONFIG. */
const char *osb_config_cgroup_parent(const osb_config *config, size_t i);
/* The file CONFIG was read from, or NULL (built by calls, or the default
 * file was missing). Owned by CONFIG. */
const char *osb_config_file(const osb_config *config);
/* Apply CONFIG's workspace roots and cgroup parents to POLICY (copied; NULL
 * clears them): the run then refuses a workspace that does not lie strictly
 * beneath one, and osb_policy_apply_json() refuses such a "workspace.path"
 * at once; sandbox cgroups are made in the cgroup parents. Host
 * settings are not rules: the policy hash does not change. */
int osb_policy_set_config(osb_policy *policy, const osb_config *config, osb_error *err);

/* ---- The programs a sandbox runs -------------------------------------------
 *
 * Which bwrap and which in-sandbox init this process executes. The library
 * reads no environment variable to decide it: by default bwrap is the one
 * fixed at build time (./configure --with-bwrap) or found on PATH, and the
 * init is the one installed with the library. osb-isolate(1) reads
 * OSB_ISOLATE_BWRAP and OSB_ISOLATE_INIT and calls this. */
typedef enum osb_program {
	OSB_PROGRAM_BWRAP = 1,
	OSB_PROGRAM_INIT = 2,
	OSB_PROGRAM_NETPROXY = 3,   /* the filtering proxy of "network allow" */
} osb_program;

/* Run PATH (absolute; NULL or "": the default) as PROGRAM from now on, in
 * every thread of this process; sandboxes already running keep theirs and
 * the cached capabilities probe is done again at its next use. ORIGIN names
 * the setting in messages ("OSB_ISOLATE_BWRAP=/x is not executable"; NULL:
 * "osb_set_program()"). The path is checked by the probe and each launch,
 * not here. OSB_E_USAGE for an unknown PROGRAM or a relative path. */
OSB_WARN_UNUSED int osb_set_program(osb_program which, const char *path, const char *origin,
                                    osb_error *err);

/* The size of a policy hash with its NUL: "sha256:" + 64 hex digits. */
#define OSB_POLICY_HASH_LEN 72
/* "sha256:" + 64 hex digits of the canonical effective policy. */
int osb_policy_hash(const osb_policy *policy, char out[OSB_POLICY_HASH_LEN]);
/* The canonical effective policy, one rule a line with its origin. FLAGS
 * must be 0 (no flag is defined yet): anything else returns NULL with
 * errno EINVAL, so that a flag added later is never silently ignored by an
 * older library. */
OSB_WARN_UNUSED char *osb_policy_explain(const osb_policy *policy, unsigned flags);

/* ---- Introspection (read-only) -----------------------------------------
 *
 * The effective policy as data, for reviewers' tools (osb-isolate's check,
 * lint, audit, diff and explain are built on these alone): every rule in
 * the canonical order of osb_policy_explain(), with where it came from. */

/* The version of the policy language this library reads ("osb-policy 1"). */
#define OSB_POLICY_VERSION 1

/* One effective rule. Owned by the library and valid only during the call
 * it is passed to; fields are only ever added at the end. */
typedef struct osb_rule {
	const char *text;           /* the canonical line: "limit wall 10m" */
	const char *directive;      /* its first word: "limit" */
	const char *const *args;    /* the words after it: {"wall", "10m"}; a
	                             * value with blanks ("env set N=V") is one */
	size_t n_args;
	/* "limit": the value in the limit's unit (ms for wall, s for cputime,
	 * thousandths of a CPU for cpu, bytes, or a count; UINT64_MAX:
	 * unlimited); "tmpfs" with a size: the bytes; "seccomp deny": the
	 * errno; otherwise 0. A limit marked best-effort has that word as its
	 * last argument. */
	uint64_t value;
	const char *file;           /* a policy file, or "default" or "api" */
	unsigned line;              /* 0 for "default" and "api" */
	unsigned depth;             /* include depth of FILE (0: the top file) */
	/* Its place among the rules of its kind in the order the policy
	 * declared them (mounts of every kind are one list; the caller's rules
	 * come last); 0 for a scalar. */
	size_t order;
} osb_rule;

/* Called once per rule; a non-zero return stops the walk. */
typedef int (*osb_rule_fn)(const osb_rule *rule, void *arg);
/* Walk POLICY's effective rules in canonical order. Returns 0, FN's first
 * non-zero return, or -OSB_E_USAGE / -OSB_E_NOMEM. */
int osb_policy_rules(const osb_policy *policy, osb_rule_fn fn, void *arg);
/* The files the policy was read from, the top file first (I beyond the
 * last: NULL). Owned by POLICY. */
size_t osb_policy_file_count(const osb_policy *policy);
const char *osb_policy_file(const osb_policy *policy, size_t i);
/* The seccomp groups this library has, oldest first; the last is the
 * default ("osb-default-3"). *DENIES_UNKNOWN (may be NULL) says whether the
 * group answers ENOSYS to every call its libseccomp does not know rather
 * than allowing it. NULL for I beyond the last. */
const char *osb_seccomp_group(size_t i, int *denies_unknown);
/* What the seccomp group GROUP (a name osb_seccomp_group() gives) does with
 * the system call NAME before a policy edits it, from the table its filter
 * is compiled from: 0 allows every call of it, 1 denies every call, 2
 * denies the calls with some argument values (clone with a namespace flag,
 * ioctl TIOCSTI, ...). *ERRNUM (may be NULL) gets the errno of the denial
 * (ENOSYS for a name libseccomp does not know, under a group that denies
 * what it does not know), 0 when allowed. -OSB_E_USAGE for a NULL or
 * unknown GROUP or a NULL NAME. */
int osb_seccomp_group_denies(const char *group, const char *name, int *errnum);
/* The launch plan of POLICY on this host, as one JSON object
 * (osb-isolate(1), "explain --host"): identity mode, ids, workspace, every
 * bind with its verified host source and origin, the Unix sockets the view
 * shows, Landlock, the environment's names (ENVP: the caller's
 * environment, as for osb_exec_set_env), bwrap's argv for the command
 * "true", and the seccomp filter per architecture, from the rule table it
 * is compiled from. Prepared exactly as osb_run prepares a launch (the same
 * refusals) and then released: nothing is started. NULL with ERR filled
 * when the policy cannot run here. Free with osb_free(). */
OSB_WARN_UNUSED char *osb_policy_host_plan(const osb_policy *policy, const char *const *envp,
                                           osb_error *err);

/* ---- One-shot runs ----------------------------------------------------- */

/* ARGV is copied; argv[0] is looked up on the sandbox's PATH. */
OSB_WARN_UNUSED osb_exec *osb_exec_new(const char *const *argv, osb_error *err);
void osb_exec_free(osb_exec *exec);
/* stdin: -1 (default) gives /dev/null; otherwise this fd is passed in,
 * to the command itself: give it the read end of a pipe you fill (as the
 * CLI's --stdin does), never a terminal of your own, which the command
 * could write to and reconfigure, and keep after a session command ends. */
int osb_exec_set_stdin_fd(osb_exec *exec, int fd);
/* Copy the command's output to these fds as it arrives (-1: do not). A
 * write that fails ends the copy and cuts the command off from the stream
 * (it meets EPIPE/SIGPIPE at its next write); an error other than EPIPE
 * also becomes the result's error (OSB_E_IO, stage "output"). Ignore
 * SIGPIPE when copying to a pipe: the library installs no handler. */
int osb_exec_set_stdout_fd(osb_exec *exec, int fd);
int osb_exec_set_stderr_fd(osb_exec *exec, int fd);
/* Keep the output in the result (clipped to the policy's output limit). */
int osb_exec_set_capture(osb_exec *exec, int on);
/* osb_run and osb_session_run: hand the fd of osb_exec_set_stdout_fd (WHICH
 * 1) or osb_exec_set_stderr_fd (WHICH 2) to the command itself as that
 * stream, instead of a pipe whose bytes are copied to it: the command's
 * writes then meet that fd's own errors (ENOSPC, EPIPE, EIO), and the
 * stream is neither copied nor captured. Only for an fd the command may
 * hold: a pseudo-terminal made for it, /dev/null, /dev/full. Never a
 * terminal, socket or file of the caller's own: the command could read
 * from it, reopen it through /proc/self/fd or change its flags. */
int osb_exec_set_output_direct(osb_exec *exec, int which, int on);
/* Caller's environment the policy filters (NULL-terminated "N=V"); NULL
 * means no caller environment. Copied. */
int osb_exec_set_env(osb_exec *exec, const char *const *envp);
/* Working directory inside the sandbox (default: the workspace). */
int osb_exec_set_cwd(osb_exec *exec, const char *cwd);

/* Run EXEC under POLICY and wait for it. Returns 0 when the command ran (its
 * status is in the result), or a negative OSB_E_* code when the sandbox could
 * not be set up (the result, if RESULT is non-NULL, then carries the error).
 * *RESULT is always set when RESULT is non-NULL and memory allows. */
OSB_WARN_UNUSED int osb_run(const osb_policy *policy, const osb_exec *exec,
                            osb_result **result, osb_error *err);

/* ---- Safe file API (for a daemon's file proxy) ---------------------------
 *
 * All take an open directory fd ROOT_FD (any kind, O_PATH is fine) and a
 * relative path under the rule above, never follow a symlink anywhere, and
 * never cross a mount. They return a non-negative value on success and, as
 * every call, a negative OSB_E_* code on failure: -OSB_E_PATH (-OSB_E_USAGE
 * for bad arguments, -OSB_E_IO for write errors, -OSB_E_NOMEM), filling ERR
 * (may be NULL) with a message naming the path and the rule, and with the
 * errno in sys_errno (ELOOP symlink, EXDEV mount, EINVAL lexical or
 * argument error, EMLINK hard link, ENXIO not a regular file or directory,
 * or the system call's own errno).
 * MODE arguments may only hold permission bits (0777): setuid, setgid and
 * sticky bits are never granted through this API; the process umask
 * applies on creation as with open(2). */

/* Open REL. FLAGS: O_RDONLY/O_WRONLY/O_RDWR with O_CREAT, O_EXCL, O_TRUNC,
 * O_DIRECTORY, O_APPEND only. The fd is O_CLOEXEC. FIFOs, sockets and
 * devices are refused before they are opened (and, should one be swapped in,
 * opened O_NONBLOCK|O_NOCTTY and refused, so nothing blocks); regular files
 * with more than one link are refused for writing; O_TRUNC is applied only
 * after these checks. Returns the fd. */
OSB_WARN_UNUSED int osb_open_beneath(int root_fd, const char *rel, int flags, unsigned mode,
                                     osb_error *err);
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
OSB_WARN_UNUSED int osb_list_beneath(int root_fd, const char *rel, char ***names,
                                     osb_error *err);

/* What kind of file an entry is (osb_file_info.type, osb_dirent.type). A
 * value never changes meaning. */
typedef enum osb_file_type {
	OSB_FILE_UNKNOWN = 0,    /* the entry vanished before its type was read */
	OSB_FILE_REGULAR,
	OSB_FILE_DIRECTORY,
	OSB_FILE_SYMLINK,
	OSB_FILE_FIFO,
	OSB_FILE_SOCKET,
	OSB_FILE_CHAR_DEVICE,
	OSB_FILE_BLOCK_DEVICE,
} osb_file_type;

/* What osb_stat_beneath and osb_lstat_beneath report. Plain data. Its size
 * never changes: fields added later are carved out of RESERVED, which the
 * library zeroes. */
typedef struct osb_file_info {
	int type;                /* osb_file_type */
	uint32_t mode;           /* permission, setuid, setgid and sticky bits (07777) */
	uint64_t size;           /* bytes; a symlink's: the length of its target */
	int64_t mtime_sec;       /* last modification, seconds since the epoch */
	int64_t mtime_nsec;
	uint32_t uid, gid;       /* as the caller sees them */
	uint64_t nlink;
	uint64_t dev, ino;       /* identity: compare two infos to know the same file */
	char link_target[4096];  /* osb_lstat_beneath of a symlink: its target, never
	                          * followed; "" otherwise */
	uint64_t reserved[8];
} osb_file_info;

/* Metadata of REL without opening it (a FIFO never blocks): any type is
 * reported. A symlink anywhere in REL, the last component included, is
 * refused (ELOOP), as in every call above. REL "." is the root. Returns 0. */
int osb_stat_beneath(int root_fd, const char *rel, osb_file_info *info, osb_error *err);
/* As osb_stat_beneath, except that a symlink as the last component is
 * reported itself (type OSB_FILE_SYMLINK, its target in link_target), never
 * followed. A symlink before the last component is still refused. */
int osb_lstat_beneath(int root_fd, const char *rel, osb_file_info *info, osb_error *err);

/* One entry of osb_readdir_beneath: NAME points into the same allocation. */
typedef struct osb_dirent {
	const char *name;
	int type;                /* osb_file_type, from the directory (d_type), else
	                          * from fstatat without following; OSB_FILE_UNKNOWN if
	                          * the entry vanished meanwhile */
} osb_dirent;

/* The entries of directory REL (without "." and ".."), sorted bytewise by
 * name, with their types, as one array (ended by an entry whose NAME is
 * NULL) in a single allocation freed with osb_free(). A directory with more than MAX_ENTRIES entries (0: 1048576) is
 * refused (-OSB_E_PATH, E2BIG), never listed in part. A mount point below
 * REL is listed as what it is mounted over. Returns the number of entries. */
OSB_WARN_UNUSED int osb_readdir_beneath(int root_fd, const char *rel, size_t max_entries,
                                        osb_dirent **entries, osb_error *err);

/* A streaming atomic write: open a temporary file beneath REL's verified
 * parent (a random ".osb-" name, created O_EXCL with MODE), write it in
 * chunks, then commit it (fsync, renameat2 over REL, fsync of the
 * directory) or abort it (the temporary is removed). Readers of REL see the
 * old file or the whole new one. An existing REL must be a regular file,
 * checked at open and again at commit (a symlink swapped in meanwhile is
 * refused, ELOOP). A handle freed before its commit removes its temporary.
 * One handle is used by one thread at a time; writers of the same REL may
 * run at once (the last commit wins, or with OSB_WRITE_NOREPLACE the first,
 * the others failing with EEXIST). A commit or write that fails removes the
 * temporary (unless its name was replaced meanwhile: a name that is no
 * longer the writer's is neither put in place, ESTALE, nor removed); the
 * handle can then only be freed. A process that can write
 * the directory can still replace REL after the commit: the guarantee is
 * that the library itself never follows a name out of the root. */
typedef struct osb_file_writer osb_file_writer;
enum {
	OSB_WRITE_NOREPLACE = 1u << 0,   /* commit fails (EEXIST) if REL exists */
};
OSB_WARN_UNUSED osb_file_writer *osb_writer_open_beneath(int root_fd, const char *rel,
                                                         unsigned mode, osb_error *err);
/* Append LEN bytes of DATA. Returns 0. */
int osb_writer_write(osb_file_writer *w, const void *data, size_t len, osb_error *err);
/* FLAGS: 0 or OSB_WRITE_NOREPLACE. Returns 0; the handle is then spent. */
int osb_writer_commit(osb_file_writer *w, unsigned flags, osb_error *err);
/* Remove the temporary; REL is left as it was. Returns 0. */
int osb_writer_abort(osb_file_writer *w, osb_error *err);
/* Abort (if neither committed nor aborted) and free. NULL is fine. */
void osb_writer_free(osb_file_writer *w);

/* Remove REL and, if it is a directory, everything beneath it. Never follows
 * a symlink (a symlink is removed itself) and never crosses a mount: a
 * directory on another device or another mount below REL is refused
 * (EXDEV) and nothing beneath it is touched. Entries are removed depth
 * first, and the first one that cannot be removed stops the call, named in
 * the error (what was removed before it stays removed). Entries that vanish
 * meanwhile count as removed. At most 256 directory levels. Returns 0. */
int osb_remove_tree_beneath(int root_fd, const char *rel, osb_error *err);

/* ---- Capabilities -------------------------------------------------------
 *
 * What isolation this host gives, found by real attempts (a sandbox is
 * started in each identity mode, a user namespace created, overlayfs
 * mounted, the run's seccomp filter loaded in a child), never guessed from
 * versions. Each item has a status, a one-line reason and, unless it is
 * OSB_CAPS_OK, a remedy a person can act on; items are listed in a fixed
 * order under stable ids (see osb-isolate(1), "CAPABILITIES"). The first
 * probe costs about one sandbox start; its result is cached per process and
 * shared. A handle is immutable: it may be read from any thread, and is
 * released with osb_caps_free(). A launch uses the cached probe when there
 * is one; otherwise it runs only the checks that start no sandbox, and runs
 * the full probe only when one fails, refusing (OSB_E_HOST, stage "probe")
 * with that item's reason and remedy. */
typedef struct osb_caps osb_caps;

enum { OSB_CAPS_OK = 0, OSB_CAPS_UNAVAILABLE = 1, OSB_CAPS_DEGRADED = 2 };
enum { OSB_CAPS_MODE_USERNS = 1u << 0, OSB_CAPS_MODE_ROOT = 1u << 1 };
/* Probe again (and replace the cached result) instead of reusing it. */
#define OSB_CAPS_REFRESH (1u << 0)

/* FLAGS: OSB_CAPS_REFRESH or 0; any other bit is -OSB_E_USAGE. */
OSB_WARN_UNUSED int osb_caps_probe(osb_caps **out, unsigned flags, osb_error *err);
/* osb_caps_probe() for a host configuration: the cgroup_limits item is
 * judged with CONFIG's cgroup parents (osb_config_add_cgroup_parent), where
 * a launch given CONFIG makes sandbox cgroups. NULL: osb_caps_probe(). The
 * cache holds one probe: asking with other parents probes again. */
OSB_WARN_UNUSED int osb_caps_probe_config(osb_caps **out, const osb_config *config,
                                          unsigned flags, osb_error *err);
void osb_caps_free(osb_caps *caps);
/* One JSON object (schema: docs/capabilities.schema.json). Its
 * "allowed_workspaces" is ["/"] (any directory the path rules allow);
 * osb_caps_json_config() reports CONFIG's workspace roots instead. */
OSB_WARN_UNUSED char *osb_caps_json(const osb_caps *caps);
OSB_WARN_UNUSED char *osb_caps_json_config(const osb_caps *caps, const osb_config *config);
/* The readable report of `osb-isolate capabilities`. */
OSB_WARN_UNUSED char *osb_caps_table(const osb_caps *caps);
/* Non-zero when at least one identity mode can run sandboxes here. */
int osb_caps_available(const osb_caps *caps);
/* OSB_CAPS_MODE_* bits of the usable modes. */
unsigned osb_caps_modes(const osb_caps *caps);
/* Items: index I from 0 to osb_caps_count()-1, or found by id
 * (-OSB_E_USAGE when CAPS or ID is NULL or no item has that id). */
size_t osb_caps_count(const osb_caps *caps);
int osb_caps_find(const osb_caps *caps, const char *id);
const char *osb_caps_id(const osb_caps *caps, size_t i);
int osb_caps_status(const osb_caps *caps, size_t i);          /* OSB_CAPS_* */
const char *osb_caps_reason(const osb_caps *caps, size_t i);
const char *osb_caps_remedy(const osb_caps *caps, size_t i);  /* NULL when ok */
/* "ok", "unavailable", "degraded" (NULL for anything else). */
const char *osb_caps_status_name(int status);
const char *osb_caps_bwrap_path(const osb_caps *caps);     /* NULL: not found */
const char *osb_caps_bwrap_version(const osb_caps *caps);  /* "0.8.0" or NULL */
/* 64 hex digits of the BPF program a run loads (NULL: not built). */
const char *osb_caps_seccomp_sha256(const osb_caps *caps);
int osb_caps_landlock_abi(const osb_caps *caps);            /* 0: none */

/* ---- Results ----------------------------------------------------------- */

int osb_result_ok(const osb_result *r);          /* exit 0, no error, known status */
int osb_result_exit_code(const osb_result *r);   /* -1 if the command did not exit */
int osb_result_signal(const osb_result *r);      /* 0 if not killed by a signal */
int osb_result_timed_out(const osb_result *r);
/* NULL when the run had no error. */
const osb_error *osb_result_error(const osb_result *r);
/* Captured output (NUL-terminated; LEN may be NULL). */
const char *osb_result_stdout(const osb_result *r, size_t *len);
const char *osb_result_stderr(const osb_result *r, size_t *len);
int osb_result_truncated(const osb_result *r);
uint64_t osb_result_stdout_bytes(const osb_result *r);
uint64_t osb_result_stderr_bytes(const osb_result *r);
uint64_t osb_result_duration_ms(const osb_result *r);
const char *osb_result_policy_hash(const osb_result *r);
/* The workspace mode the run or session used: "none", "ro", "rw" or
 * "overlay" (static); NULL when the run failed before its policy was read. */
const char *osb_result_workspace_mode(const osb_result *r);
/* The host uid/gid the sandbox ran as (root callers: allocated or pinned,
 * never 0; unprivileged callers: their own). 0, or -OSB_E_USAGE when the
 * run failed before its identity was decided. */
int osb_result_host_ids(const osb_result *r, uint32_t *uid, uint32_t *gid);
/* Kernel-enforced limits ("limit memory", "limit pids", "limit cpu"), read
 * from the sandbox's cgroup after it ended. 1 when the OOM killer killed in
 * the sandbox / a fork failed at "limit pids", 0 when not, -1 when unknown
 * (no cgroup, or a counter this host does not keep). */
int osb_result_oom_killed(const osb_result *r);
int osb_result_pids_limited(const osb_result *r);
/* 0 with the sandbox's peak memory in bytes / the time its "limit cpu"
 * throttled it in microseconds, or -1 when unknown. */
int osb_result_memory_peak(const osb_result *r, uint64_t *bytes);
int osb_result_cpu_throttled_us(const osb_result *r, uint64_t *usec);
/* The size-bounded tmpfs mounts ("tmpfs PATH size=SIZE") that had no block
 * or inode left when the command ended: their number, or -1 when not
 * watched (a session command); path I (0 .. count-1), owned by R, or NULL. */
int osb_result_tmpfs_full_count(const osb_result *r);
const char *osb_result_tmpfs_full(const osb_result *r, size_t i);
/* Where the time of a run went, stage by stage (CLOCK_MONOTONIC, read on
 * both sides of the sandbox's boundary): SETUP the library before bwrap
 * starts (a session command: until the broker has started it), BWRAP
 * bwrap's namespaces and mounts until the init's first instruction, INIT
 * the init's checks and restrictions until the command may exec, COMMAND
 * until its status is known, TEARDOWN until the result is complete.
 * Microseconds, or -1 for a stage that did not happen or whose ends are not
 * known (a session command has no BWRAP or INIT; a launch that failed stops
 * where it failed). */
typedef enum osb_timing {
	OSB_TIMING_SETUP = 0,
	OSB_TIMING_BWRAP = 1,
	OSB_TIMING_INIT = 2,
	OSB_TIMING_COMMAND = 3,
	OSB_TIMING_TEARDOWN = 4,
	OSB_TIMING__COUNT = 5
} osb_timing;
int64_t osb_result_timing_us(const osb_result *r, osb_timing which);
/* "setup", "bwrap", "init", "command", "teardown" (the JSON's names), or
 * NULL for another value. */
const char *osb_result_timing_name(osb_timing which);
/* The best-effort limits this host could not enforce: OSB_LIMIT_* bits. */
#define OSB_LIMIT_MEMORY 1u
#define OSB_LIMIT_PIDS 2u
#define OSB_LIMIT_CPU 4u
unsigned osb_result_limits_not_enforced(const osb_result *r);
/* The command-line exit status: own code, 128+N, 124, 125, 126, 127. */
int osb_result_cli_status(const osb_result *r);
/* One JSON object (see osb-isolate(1), "RESULT"). */
OSB_WARN_UNUSED char *osb_result_json(const osb_result *r);
/* The same document handed to WRITE in pieces of at most 64 KiB as it is
 * made, never whole (its escapes make it up to six times the output). WRITE
 * returns 0, or anything else to stop. 0, -OSB_E_USAGE (NULL), -OSB_E_NOMEM,
 * or -OSB_E_IO when WRITE stopped it. */
typedef int (*osb_json_write_fn)(void *ctx, const char *buf, size_t len);
OSB_WARN_UNUSED int osb_result_json_write(const osb_result *r, osb_json_write_fn write, void *ctx);
void osb_result_free(osb_result *r);

/* ---- Sessions -----------------------------------------------------------
 *
 * A session is one sandbox that lives across many commands: files, /tmp and
 * background processes of earlier commands are there for later ones, and a
 * command costs a fork and exec instead of a sandbox start. It is built from
 * the policy exactly as a one-shot run is (same mounts, namespaces, identity,
 * seccomp filter, rlimits); a broker inside, the sandbox's pid 1, starts each
 * command and reports its status on a private channel, so nothing a command
 * prints can change its reported status.
 *
 * Every command runs in its own process group, killed with SIGKILL when its
 * leader exits, when its timeout expires, or when its osb_proc is freed while
 * it runs (a process that leaves the group with setsid lives until the
 * session ends). The policy's wall limit applies to each command; the
 * session itself lives until osb_session_destroy, its idle timeout, or the
 * end of the process that started it (unless detached: see
 * osb_session_detach); any thread may start it.
 *
 * Thread safety: one session may be used from several threads at once
 * (spawn, run, destroy). One osb_proc is used by one thread at a time,
 * except that osb_proc_kill may be called while another thread waits. */

typedef struct osb_session osb_session;
typedef struct osb_session_opts osb_session_opts;
typedef struct osb_proc osb_proc;

/* Per-exec settings (osb_run honours the first two as well). Each only
 * lowers the policy's limit; 0 leaves the policy's. A timeout above the
 * policy's wall limit is refused (osb_run, osb_session_spawn and
 * osb_session_run fail with OSB_E_POLICY, stage "policy", naming both), not
 * lowered. */
int osb_exec_set_timeout_ms(osb_exec *exec, uint64_t ms);
int osb_exec_set_output_limit(osb_exec *exec, uint64_t bytes);
/* osb_session_spawn: stdin is a pipe whose write end osb_proc_stdin()
 * returns (default: /dev/null, or the fd of osb_exec_set_stdin_fd). */
int osb_exec_set_stdin_pipe(osb_exec *exec, int on);
/* osb_session_run: kill the command (SIGKILL to its group) as soon as FD is
 * readable or hung up, e.g. the connection of a client that went away. */
int osb_exec_set_cancel_fd(osb_exec *exec, int fd);

/* In a session, osb_exec_set_env() entries are added to the session's
 * environment (computed from the policy at start), replacing entries of the
 * same name. An entry whose name an "env deny" pattern of the policy
 * matches, or that is not NAME=VALUE with a name of letters, digits and
 * '_', is refused, never dropped: spawn and run fail with OSB_E_POLICY,
 * stage "env", naming the variable and the pattern's line. osb_exec_set_cwd()
 * must be absolute; the default is the workspace (or /). */

/* Session options; NULL options mean the defaults. */
OSB_WARN_UNUSED osb_session_opts *osb_session_opts_new(void);
void osb_session_opts_free(osb_session_opts *opts);
/* End the session after MS milliseconds with no command running and no new
 * command (default 0: never). */
int osb_session_opts_set_idle_timeout_ms(osb_session_opts *opts, uint64_t ms);
/* At most N commands at once; osb_session_spawn beyond that fails with
 * OSB_E_USAGE (default 64, at most 4096). */
int osb_session_opts_set_max_execs(osb_session_opts *opts, unsigned n);
/* The caller's environment the policy filters at start, as osb_exec_set_env
 * does for osb_run (NULL-terminated "N=V"; copied). Default: none. */
int osb_session_opts_set_env(osb_session_opts *opts, const char *const *envp);
/* Take the session part of an execd request (its "idle_timeout"; the rest
 * is the policy's, see osb_policy_apply_json) into OPTS. The request is read
 * and type-checked in full exactly as osb_policy_apply_json reads it, with
 * the same OSB_E_POLICY errors; OPTS changes only on success. */
int osb_session_opts_apply_json(osb_session_opts *opts, const char *json, osb_error *err);

/* Start a session under POLICY (read only during the call; the workspace
 * default is the caller's current directory at this call). Returns NULL and
 * fills ERR when the sandbox could not be set up. */
OSB_WARN_UNUSED osb_session *osb_session_start(const osb_policy *policy, osb_error *err);
OSB_WARN_UNUSED osb_session *osb_session_start_opts(const osb_policy *policy,
                                                    const osb_session_opts *opts,
                                                    osb_error *err);
/* A file descriptor that becomes readable once the session's sandbox has
 * ended (destroyed, idle timeout, killed). Owned by the session. */
int osb_session_fd(const osb_session *session);

/* Start EXEC in SESSION and return at once with *PROC. stdout and stderr are
 * pipes the caller reads (osb_proc_stdout/osb_proc_stderr), unless the exec
 * names fds (osb_exec_set_stdout_fd/_stderr_fd), which the command then gets
 * itself. Returns 0, or a negative OSB_E_* code: OSB_E_SANDBOX with stage
 * "exec" and errno ENOENT/EACCES when the command cannot be executed (the
 * session stays usable), OSB_E_SANDBOX with stage "netproxy" once the
 * session's filtering proxy ("network allow") has ended (a command would
 * have no network; start a new session), OSB_E_SANDBOX with sys_errno
 * EPROTO once its broker sent a malformed report (the session is unusable:
 * "... sent a malformed exit report earlier (N bytes) ...; destroy it"),
 * OSB_E_USAGE after osb_session_destroy or beyond the maximum of
 * concurrent commands. */
OSB_WARN_UNUSED int osb_session_spawn(osb_session *session, const osb_exec *exec,
                                      osb_proc **proc, osb_error *err);
/* Convenience: spawn, stream output to the exec's stdout/stderr fds (if
 * set), capture and clip it when the exec asks for capture, wait, and report
 * as osb_run does (exit code, signal, timed_out, byte counts; the CLI status
 * 127/126 for a command that cannot be executed). */
OSB_WARN_UNUSED int osb_session_run(osb_session *session, const osb_exec *exec,
                                    osb_result **result, osb_error *err);
/* Kill every process of the session, wait until they are gone and release
 * the sandbox. A second call returns -OSB_E_USAGE ("already destroyed"). */
int osb_session_destroy(osb_session *session, osb_error *err);
/* Destroy (if not yet done) and free. Procs still held stay valid (their
 * waits report that the session ended) until freed. */
void osb_session_free(osb_session *session);

/* The status of a finished command. Its size never changes: fields added
 * later are carved out of RESERVED, which the library zeroes. */
typedef struct osb_status {
	int exit_code;          /* -1 when killed by a signal */
	int signal;             /* 0 when it exited */
	int timed_out;          /* its timeout (or the policy's wall limit) killed it */
	uint64_t duration_ms;   /* from start to exit */
	uint64_t user_us, sys_us;   /* CPU time of the command and the children it waited for */
	uint64_t max_rss_kib;
	/* 1 when the session's filtering proxy ("network allow") had ended by
	 * itself by the time this status was read: the command's connections
	 * through it failed from then on, and the session refuses new commands
	 * (osb_session_spawn). The fields above are the command's all the same. */
	int proxy_died;
	int reserved_int;
	uint64_t reserved[7];
} osb_status;

/* The command's stdin (write end; -1 unless osb_exec_set_stdin_pipe),
 * stdout and stderr (read ends; -1 when the exec passed its own fd). Owned
 * by the proc; close stdin with osb_proc_close_stdin, not close(2). */
int osb_proc_stdin(const osb_proc *proc);
int osb_proc_stdout(const osb_proc *proc);
int osb_proc_stderr(const osb_proc *proc);
int osb_proc_close_stdin(osb_proc *proc);
/* Transfer the proc's stdin (WHICH 0), stdout (1) or stderr (2) fd to the
 * caller, who then owns it (closes it; osb_proc_free no longer does). For
 * runtimes whose file objects close their fd, such as Go's os.File. The fd
 * is close-on-exec and blocking. Returns the fd, or -OSB_E_USAGE when
 * the proc has none (the exec gave its own fd, or it was taken already) or
 * WHICH is not 0, 1 or 2. */
int osb_proc_take_fd(osb_proc *proc, int which);
/* A file descriptor that becomes readable when the status is available. */
int osb_proc_fd(const osb_proc *proc);
/* The command's pid inside the sandbox. */
int osb_proc_pid(const osb_proc *proc);
/* Wait up to TIMEOUT_MS (-1: forever) for the command to finish. Returns 0
 * with *STATUS filled (again on later calls), 1 when it is still running,
 * -OSB_E_SANDBOX when the session ended before its status was known, or
 * its broker sent an exit report not of its size (never read as one; the
 * session is unusable then, and refuses every later spawn, run, services
 * list, overlay call and detach with OSB_E_SANDBOX, sys_errno EPROTO,
 * naming the report: destroy it; osb_proc_error names the report). Any
 * malformed report also stops the session's sandbox, with the commands in
 * it, which the library could no longer track (OSB_SESSION_END_BROKEN):
 * their waits return -OSB_E_SANDBOX, osb_proc_error saying so. A
 * session's filtering proxy that ended while the command ran (or before
 * its status was read) is not an error here, so the command's status is
 * never lost: STATUS->proxy_died says so, and osb_session_run reports it
 * as an error (stage "netproxy"). */
OSB_WARN_UNUSED int osb_proc_wait(osb_proc *proc, int timeout_ms, osb_status *status);
/* What went wrong with the command as osb_proc_wait read its end: the text
 * osb_session_run would report for it. 0 (ERR cleared) while nothing did,
 * and while it runs; otherwise ERR filled and its negative OSB_E_* code:
 * OSB_E_SANDBOX when osb_proc_wait returned it (the malformed report,
 * EPROTO; another command's, which stopped the session, alike; or "the
 * session ended before the command's status was known"),
 * and, with a status osb_proc_wait returned all the same, the proxy's end
 * (stage "netproxy") or a shell state not kept (OSB_E_NOMEM). -OSB_E_USAGE
 * for a NULL PROC. */
int osb_proc_error(const osb_proc *proc, osb_error *err);
/* Send SIG (1..64) to the command's process group. 0 also when it has
 * already finished; -OSB_E_USAGE for a bad signal. */
int osb_proc_kill(osb_proc *proc, int sig);
/* Free the handle; a command still running is killed (SIGKILL, its group). */
void osb_proc_free(osb_proc *proc);

/* ---- Writing an execd: requests read once, state read back ---------------
 *
 * What a daemon serving many sessions reads from the library instead of
 * keeping its own copy (libosb-isolate(3), "WRITING AN EXECD"). */

/* Read an execd request once: the baseline its "profile" names is loaded
 * (osb_policy_load; a name, never a path), CONFIG applied to it (NULL:
 * none), the request applied as osb_policy_apply_json applies it, and its
 * session part taken into new options as osb_session_opts_apply_json takes
 * it. PROFILES is the NULL-terminated list of names the daemon offers, the
 * first being the default for a request that names none; NULL offers every
 * policy name and needs the request to name one. 0 with *POLICY and *OPTS
 * the caller's to free; otherwise both NULL and ERR says why, with the same
 * messages as the two calls (OSB_E_POLICY for a profile not offered). */
OSB_WARN_UNUSED int osb_request_load(const char *json, const char *const *profiles,
                                     const osb_config *config, osb_policy **policy,
                                     osb_session_opts **opts, osb_error *err);
/* The idle timeout OPTS hold (0: none). */
uint64_t osb_session_opts_idle_timeout_ms(const osb_session_opts *opts);

/* The uid and gid the sandbox's processes have (the "user" directive's
 * ids, which the account name keeps): non-zero, at most 4294967294
 * (OSB_E_POLICY otherwise, the policy unchanged), origin "api". */
int osb_policy_set_ids(osb_policy *policy, uint32_t uid, uint32_t gid, osb_error *err);
/* The workspace directory set by osb_policy_set_workspace or a request's
 * "workspace.path", or NULL (the caller's current directory at launch).
 * Owned by POLICY. */
const char *osb_policy_workspace(const osb_policy *policy);
/* The ids the sandbox's processes see (the "user" rule). 0 or -OSB_E_USAGE. */
int osb_policy_ids(const osb_policy *policy, uint32_t *uid, uint32_t *gid);

/* How a sandbox's identity is made (osb-isolate.policy(5), "identity"). */
typedef enum osb_identity_mode {
	OSB_IDENTITY_AUTO = 0,     /* a policy's default: root if a user namespace cannot be made */
	OSB_IDENTITY_USERNS = 1,   /* a user-namespace view */
	OSB_IDENTITY_ROOT = 2,     /* a real uid/gid switch by a root caller */
} osb_identity_mode;
/* The policy's "identity" rule, or -OSB_E_USAGE. */
int osb_policy_identity_mode(const osb_policy *policy);
/* The mode a session's sandbox was built in (USERNS or ROOT), or -OSB_E_USAGE. */
int osb_session_identity_mode(const osb_session *session);
/* "auto", "userns", "root"; NULL for another value. Static. */
const char *osb_identity_mode_name(int mode);

/* When the session last started or finished a command (or started),
 * in milliseconds since the epoch, as the library saw it: a command's end
 * counts once its status was read (osb_proc_wait, osb_session_run). 0 or
 * -OSB_E_USAGE. */
int osb_session_last_activity(const osb_session *session, int64_t *unix_ms);
/* What is left of the session's idle timeout: the whole timeout while a
 * command runs, else the timeout less the time since the last activity (0
 * once it has run out or the session has ended). 0 with *MS; 1 with *MS
 * UINT64_MAX when the session has no idle timeout; -OSB_E_USAGE. The broker
 * keeps its own count and ends the session by it. */
int osb_session_idle_remaining_ms(const osb_session *session, uint64_t *ms);

/* Why a session ended. A value never changes meaning. */
typedef enum osb_session_end {
	OSB_SESSION_RUNNING = 0,       /* it has not ended */
	OSB_SESSION_END_DESTROYED = 1, /* osb_session_destroy (or _free) */
	OSB_SESSION_END_IDLE = 2,      /* its idle timeout */
	OSB_SESSION_END_LOST = 3,      /* the sandbox ended otherwise: killed from outside, or failed */
	OSB_SESSION_END_BROKEN = 4,    /* its broker sent a malformed report: the library stopped it */
} osb_session_end;
/* OSB_SESSION_RUNNING or OSB_SESSION_END_*, or -OSB_E_USAGE. */
int osb_session_end_reason(const osb_session *session);
/* "running", "destroyed", "idle", "lost", "broken"; NULL for another value.
 * Static. */
const char *osb_session_end_name(int reason);

/* ---- Sessions that outlive their process ------------------------------------
 *
 * A session's bwrap is started by a process of the library's, the session's
 * owner, not by the calling thread: any thread may start, use and destroy a
 * session, and the session ends with the calling process (however it ends:
 * the owner then kills the sandbox and removes its cgroup; the host-id lock
 * goes last). A detached session does not end with its process: its owner
 * serves it on DIR/ID.sock, and a process of the same uid (or root) may
 * attach to it by ID, for instance the same daemon after a restart. */

/* Detach SESSION: from now on it outlives this process. DIR must be a
 * directory of this process's uid (or root's), no symlink, writable by
 * nobody else (0700); ID is the daemon's name for the session (1 to 64
 * letters, digits, '.', '_', '-', not starting with '.'), unique in DIR.
 * SESSION stays usable here; osb_session_free then releases the handle
 * only, osb_session_destroy still ends the session. 0 or -OSB_E_*. */
int osb_session_detach(osb_session *session, const char *dir, const char *id, osb_error *err);
/* Attach to the detached session ID in DIR: a new handle to the same
 * sandbox (its files, its processes), used as any session; the owner
 * refuses a process of another uid, unless root, and one of another pid
 * namespace (inside a sandbox); a socket served from another pid namespace
 * is refused here. osb_session_free releases
 * the handle only; osb_session_destroy ends the session. NULL with ERR
 * (OSB_E_SANDBOX when no such session is served there). */
OSB_WARN_UNUSED osb_session *osb_session_attach(const char *dir, const char *id, osb_error *err);

/* ---- Shell-state sessions ------------------------------------------------------
 *
 * Opt-in per session: the working directory and the exported variables a
 * command leaves become the next command's, as in an interactive shell,
 * while each command is still a process of its own whose status the broker
 * reports (libosb-isolate(3), "SHELL-STATE SESSIONS"). Each command's argv
 * runs as a simple command of a /bin/sh wrapper: "cd DIR", "export N=V" and
 * "eval SCRIPT" change what the next command starts from; functions,
 * aliases, unexported variables and shell options do not carry. A carried
 * variable whose name an "env deny" pattern matches is not carried. A state
 * the library cannot keep for want of memory fails that command with
 * OSB_E_NOMEM (stage "session"; its status is its own all the same, and
 * osb_proc_error gives the error of a spawned one), and
 * the session's shell state is lost: every later osb_session_spawn,
 * osb_session_run and osb_session_detach is refused with OSB_E_SANDBOX,
 * sys_errno ENOMEM, rather than start from an older state; destroy it. */
int osb_session_opts_set_shell_state(osb_session_opts *opts, int on);

/* ---- Services and large scripts (session commands) ------------------------------
 *
 * A session command started with osb_exec_set_keep_services may leave
 * services behind: when it exits its process group is not killed (it is at
 * session end), and osb_session_services_json lists the groups of such
 * commands while anything of them runs. Redirect a service's output: a
 * process holding the command's pipes keeps osb_session_run draining them
 * for up to 500 ms. osb_exec_set_script passes SCRIPT (LEN bytes, copied; at
 * most 64 MiB) in a memfd instead of the command line, whose 128 KiB a
 * session command may not exceed: the exec's argv (an interpreter: {"sh"},
 * {"bash", "-e"}, {"python3"}) gets "/proc/self/fd/8" appended, the path the
 * script is read from; in a shell-state session it is sourced by the
 * wrapper shell instead (the argv is then ignored). Both are refused by
 * osb_run (OSB_E_USAGE). libosb-isolate(3), "SERVICES AND LARGE SCRIPTS". */
int osb_exec_set_keep_services(osb_exec *exec, int on);
int osb_exec_set_script(osb_exec *exec, const char *script, size_t len);
/* A JSON array, one object per kept group still running: {"pid": N (its
 * leader's pid in the sandbox, the group's id), "command": "argv joined",
 * "started_unix_ms": T}. Free *JSON with osb_free(). 0 or -OSB_E_*. */
OSB_WARN_UNUSED int osb_session_services_json(osb_session *session, char **json, osb_error *err);

/* ---- Overlay workspaces: what a session changed ----------------------------
 *
 * A session whose workspace is an overlay ("workspace overlay") writes to a
 * private upper layer; the real workspace stays as it was. These calls read
 * that layer from the host, beneath the directory fd the session's broker
 * hands over (no name of the layer is ever resolved as a host path), and
 * compare it with the real workspace: what the session sees that the
 * workspace does not have is the change list. A run (osb_run) has nothing
 * to list: its layer is gone when it returns.
 *
 * The list is in walk order: a directory before what it holds, the names
 * of one directory in byte order. A deleted directory, or one replaced by
 * another type, is one entry (what it held is not listed). The workspace
 * directory itself, owners and times are not compared. */

typedef struct osb_diff osb_diff;

typedef enum osb_change_kind {
	OSB_CHANGE_ADDED = 1,       /* in the session's view only */
	OSB_CHANGE_MODIFIED = 2,    /* in both, different (osb_change.what says how) */
	OSB_CHANGE_DELETED = 3,     /* in the workspace only */
} osb_change_kind;

/* What a modification changed (osb_change.what). */
#define OSB_CHANGED_TYPE (1u << 0)      /* another type of file (the rest: 0) */
#define OSB_CHANGED_CONTENT (1u << 1)   /* a regular file's bytes */
#define OSB_CHANGED_TARGET (1u << 2)    /* a symlink's target */
#define OSB_CHANGED_MODE (1u << 3)      /* permission, setuid, setgid or sticky bits */

/* One change. Owned by its osb_diff; fields are only ever added at the end. */
typedef struct osb_change {
	const char *path;         /* relative to the workspace ("dir/file"), never "." */
	int kind;                 /* osb_change_kind */
	unsigned what;            /* OSB_CHANGED_* bits of a modification; else 0 */
	int type;                 /* osb_file_type in the session's view; OSB_FILE_UNKNOWN
	                           * when deleted */
	int old_type;             /* osb_file_type in the workspace; OSB_FILE_UNKNOWN when
	                           * added */
	uint32_t mode, old_mode;  /* 07777 bits of each side; 0 for a side that is absent */
	uint64_t size;            /* the session's side: a regular file's bytes, a
	                           * symlink's target length; else 0 */
	const char *target;       /* the session's symlink target, else NULL */
	const char *old_target;   /* the workspace's symlink target, else NULL */
	const char *hardlink;     /* a regular file that is another name of a file
	                           * earlier in walk order (listed or unchanged): that
	                           * path; else NULL */
} osb_change;

/* The changes of SESSION's overlay workspace now, into *DIFF (free with
 * osb_diff_free). FLAGS must be 0. Commands may run meanwhile: what they
 * write while the layer is read may or may not be in the list. Every added
 * or modified regular file is read (its SHA-256), and SESSION keeps the
 * list's fingerprint: osb_session_commit applies only what the last diff
 * showed. The list is bounded: a layer with more than 1048576 changes, or
 * more than 128 MiB of names (paths and targets), is refused whole
 * (OSB_E_PATH, E2BIG), never held. Returns 0;
 * OSB_E_USAGE when the session has no overlay workspace (stage "session")
 * or has ended, OSB_E_IO or OSB_E_PATH when a layer cannot be read (the
 * message names the path). */
OSB_WARN_UNUSED int osb_session_diff(osb_session *session, unsigned flags, osb_diff **diff,
                                     osb_error *err);
/* The number of changes, and change I (0 .. count-1; NULL beyond). */
size_t osb_diff_count(const osb_diff *diff);
const osb_change *osb_diff_get(const osb_diff *diff, size_t i);
/* One JSON object (schema: docs/changes.schema.json). Free with osb_free(). */
OSB_WARN_UNUSED char *osb_diff_json(const osb_diff *diff);
void osb_diff_free(osb_diff *diff);
/* Write SESSION's changes now to FD as a tar stream (POSIX pax, written by
 * libarchive): each added or modified entry as the session sees it (file
 * bytes, directory, symlink, FIFO; another name of a file already in the
 * stream as a hard link to it), each deletion as an empty regular file
 * ".wh.NAME" beside it (the OCI image layer convention). FLAGS must be 0.
 * A socket, a device or a name starting with ".wh." in the list is refused
 * before anything is written (OSB_E_PATH). FD is neither closed nor sought.
 * Each file's bytes are checked, as they are written, against those its
 * list read: a file that changed meanwhile fails the export (OSB_E_IO,
 * ESTALE, "overlay workspace: PATH: changed while it was exported"), part
 * of the stream written, which the caller then throws away. A whole export
 * counts as a diff shown (osb_session_commit). Returns 0, or as
 * osb_session_diff, or OSB_E_IO when FD cannot be written. */
int osb_session_export(osb_session *session, int fd, unsigned flags, osb_error *err);

/* osb_session_commit's flags. */
enum {
	/* Refuse (OSB_E_USAGE, ENODATA) unless a diff or export has shown the
	 * changes: the review a human caller must not skip. */
	OSB_COMMIT_REVIEWED = 1u << 0,
};

/* Make the real workspace what SESSION sees: apply its changes, each beneath
 * the workspace through the safe file API, never following a symlink,
 * every regular file atomically (the old one or the whole new one). Refused
 * (OSB_E_USAGE, EBUSY) while a command runs; otherwise every other process
 * of the session (background ones included) is killed first and no command
 * starts until the commit has ended, so the layer is still while it is
 * read. What is applied is what was reviewed: once osb_session_diff or
 * osb_session_export has shown the changes, the commit lists them again
 * (the session held still) and applies them only when that list, and the
 * bytes of every added or modified file (SHA-256), are those the last diff
 * or export of SESSION showed; otherwise it is refused, nothing applied
 * (OSB_E_USAGE, ESTALE, "commit refused, nothing was applied: the changes
 * differ from what the last session diff showed; run session diff again").
 * Without any diff it applies what it finds, unless FLAGS has
 * OSB_COMMIT_REVIEWED. Each file's bytes are hashed as they are copied and
 * put in place only when they are the listed ones: a file that changed
 * meanwhile stops the commit before it is applied. Everything that can be
 * checked before the first write is (types,
 * directories, hard link targets, write access, free space): a refusal
 * there applies nothing (OSB_E_PATH or OSB_E_IO, "commit refused, nothing
 * was applied: ..."); a later failure stops the commit and the message says
 * how many changes were applied. *REPORT (may be NULL; free with osb_free)
 * is one JSON object either way (docs/commit.schema.json): what was applied,
 * what was not, where it stopped. Permission bits are committed, setuid,
 * setgid and sticky bits never; a root caller gives a modified entry its
 * old owner and a new one its directory's. The session stays usable: its
 * view is the workspace's now, and a diff lists nothing (a commit after it
 * needs a diff of its own). FLAGS: 0 or OSB_COMMIT_REVIEWED. */
OSB_WARN_UNUSED int osb_session_commit(osb_session *session, unsigned flags, char **report,
                                       osb_error *err);
/* Throw SESSION's changes away: the session ends (as osb_session_destroy)
 * and its layer with it; the workspace is left as it is. OSB_E_USAGE when
 * the session has no overlay workspace. */
int osb_session_discard(osb_session *session, osb_error *err);
/* SESSION's workspace mode: "none", "ro", "rw" or "overlay" (static); NULL
 * for a NULL session. */
const char *osb_session_workspace_mode(osb_session *session);

/* ---- Network allowlists (osb-isolate.policy(5), "NETWORK ALLOWLISTS") ---- */

/* What the filtering proxy of a run with "network allow" decided: the
 * number of allowed connections, or -1 when the policy has no allowlist;
 * the number of refused destinations (host and port), or -1; and the I-th
 * of them (0 .. count-1): its host (owned by R), *PORT and *COUNT (the
 * times it was asked for; either may be NULL), or NULL. The counts are
 * those of the proxy's log, which holds 1 MiB at most: the decisions it
 * left out once full (a command may flood the proxy) are
 * osb_result_network_dropped(), 0 when it holds every one, or -1. */
long osb_result_network_allowed(const osb_result *r);
long osb_result_network_dropped(const osb_result *r);
int osb_result_network_refused_count(const osb_result *r);
const char *osb_result_network_refused(const osb_result *r, size_t i, unsigned *port,
                                       unsigned long *count);

/* Keep only ENTRIES (N of them, each "HOST[:PORT]" as a policy writes it) of
 * the policy's "network allow" list, narrow-only: each must be covered by an
 * entry of the list (an exact name, a "*.suffix" above it, a network
 * containing it, the same port or any), or the policy must have "network
 * host"; under "network none" every entry is refused (OSB_E_POLICY). A
 * malformed entry is OSB_E_USAGE. N == 0 leaves "network none". A refused
 * call leaves the policy as it was. */
int osb_policy_set_network_allow(osb_policy *policy, const char *const *entries, size_t n,
                                 osb_error *err);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* OSB_ISOLATE_H */

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

#define OSB_ISOLATE_VERSION "0.1.0"

/* Error codes. Their numeric values never change meaning. */
enum {
	OSB_OK = 0,
	OSB_E_USAGE = 1,     /* invalid argument from the caller */
	OSB_E_POLICY = 2,    /* policy text or a narrowing request is invalid */
	OSB_E_PATH = 3,      /* a path failed verification */
	OSB_E_HOST = 4,      /* the host lacks something the policy needs */
	OSB_E_SECCOMP = 5,   /* the seccomp filter could not be built */
	OSB_E_SPAWN = 6,     /* bwrap could not be started */
	OSB_E_SANDBOX = 7,   /* bwrap or the in-sandbox init refused to set up */
	OSB_E_NOMEM = 8,
	OSB_E_IO = 9,
	OSB_E_INTERNAL = 10,
};

/* Filled by every call that can fail. Plain data: no allocation, no free. */
typedef struct osb_error {
	int code;          /* one of OSB_E_* (OSB_OK when no error) */
	int sys_errno;     /* errno of the failing system call, or 0 */
	char stage[32];    /* pipeline stage: "policy", "plan", "spawn", "init:seccomp", ... */
	char message[1024];/* what failed, on what, and what to do */
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
osb_policy *osb_policy_load(const char *name_or_path, osb_error *err);
/* Parse policy text. FILENAME is used in diagnostics and to resolve
 * includes (its directory); it need not exist. */
osb_policy *osb_policy_parse(const char *text, size_t len, const char *filename,
                             osb_error *err);
void osb_policy_free(osb_policy *policy);

/* Narrowing and operator grants; each records its origin as "api". */
int osb_policy_set_workspace(osb_policy *policy, const char *dir, osb_error *err);
int osb_policy_add_readonly(osb_policy *policy, const char *path, osb_error *err);
/* network: 0 none (loopback only), 1 host. */
int osb_policy_set_network(osb_policy *policy, int host, osb_error *err);
/* Lower the wall limit (never raises it). */
int osb_policy_set_wall_ms(osb_policy *policy, uint64_t ms, osb_error *err);

/* "sha256:" + 64 hex digits of the canonical effective policy. */
int osb_policy_hash(const osb_policy *policy, char out[72]);
/* The canonical effective policy, one rule a line with its origin. */
char *osb_policy_explain(const osb_policy *policy, unsigned flags);

/* ---- One-shot runs ----------------------------------------------------- */

/* ARGV is copied; argv[0] is looked up on the sandbox's PATH. */
osb_exec *osb_exec_new(const char *const *argv, osb_error *err);
void osb_exec_free(osb_exec *exec);
/* stdin: -1 (default) gives /dev/null; otherwise this fd is passed in. */
int osb_exec_set_stdin_fd(osb_exec *exec, int fd);
/* Copy the command's output to these fds as it arrives (-1: do not). */
int osb_exec_set_stdout_fd(osb_exec *exec, int fd);
int osb_exec_set_stderr_fd(osb_exec *exec, int fd);
/* Keep the output in the result (clipped to the policy's output limit). */
int osb_exec_set_capture(osb_exec *exec, int on);
/* Caller's environment the policy filters (NULL-terminated "N=V"); NULL
 * means no caller environment. Copied. */
int osb_exec_set_env(osb_exec *exec, const char *const *envp);
/* Working directory inside the sandbox (default: the workspace). */
int osb_exec_set_cwd(osb_exec *exec, const char *cwd);

/* Run EXEC under POLICY and wait for it. Returns 0 when the command ran (its
 * status is in the result), or a negative OSB_E_* code when the sandbox could
 * not be set up (the result, if RESULT is non-NULL, then carries the error).
 * *RESULT is always set when RESULT is non-NULL and memory allows. */
int osb_run(const osb_policy *policy, const osb_exec *exec, osb_result **result,
            osb_error *err);

/* ---- Safe file API (for a daemon's file proxy) ---------------------------
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
/* The command-line exit status: own code, 128+N, 124, 125, 126, 127. */
int osb_result_cli_status(const osb_result *r);
/* One JSON object (see osb-isolate(1), "RESULT"). */
char *osb_result_json(const osb_result *r);
void osb_result_free(osb_result *r);

#ifdef __cplusplus
}
#endif
#endif /* OSB_ISOLATE_H */

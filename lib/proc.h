/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* proc.h — starting children with an exact fd table, and pidfds (proc.c).
 *
 * Only the fds listed in the map reach the child (everything else is closed
 * by posix_spawn's closefrom), and every descriptor the library keeps is
 * O_CLOEXEC. No signal handlers, no waitpid(-1): children are waited through
 * their pidfd, so a multi-threaded caller's other children are never reaped.
 */
#ifndef OSB_PROC_H
#define OSB_PROC_H

#include "policy.h"
#include <sys/types.h>

/* Host credentials a child starts with instead of the caller's: no
 * supplementary group, real = effective = saved = UID/GID (never 0). Needs a
 * caller with CAP_SETUID/CAP_SETGID (root). */
typedef struct spawn_cred {
	uint32_t uid, gid;
} spawn_cred;

/* What a sandbox's first process does before anything else: enter the
 * sandbox's cgroup by writing "0" to each of CG_FDS (cgroup.procs files
 * opened by cgroup_attach_fds), and make itself and everything it starts
 * the OOM killer's first victims (oom_score_adj 1000), so that the
 * supervisor outside is never the one killed. */
typedef struct spawn_sandbox {
	const int *cg_fds;
	size_t n_cg_fds;
	bool oom_first;
} spawn_sandbox;

/* The whole environment of every helper process the library starts (bwrap,
 * its --help, the init): nothing of the caller's or the command's. */
extern const char *const spawn_fixed_env[];

/* What a start failed at: in the caller, or in the child (in the order it
 * takes them) before or at execve. */
typedef enum spawn_step {
	SPAWN_STEP_NONE = 0,
	SPAWN_STEP_SIGNALS, SPAWN_STEP_CGROUP, SPAWN_STEP_OOM, SPAWN_STEP_GROUP,
	SPAWN_STEP_GROUPS, SPAWN_STEP_GID, SPAWN_STEP_UID, SPAWN_STEP_FDS, SPAWN_STEP_CLOSE,
	SPAWN_STEP_EXEC,        /* the program itself could not be executed */
	SPAWN_STEP_NOMEM,       /* the caller's: out of memory */
	SPAWN_STEP_ROOT_CRED,   /* the caller's: CRED names uid or gid 0 */
	SPAWN_STEP_DUP,         /* the caller's: FDS[SLOT] could not be duplicated */
	SPAWN_STEP_CLONE,
} spawn_step;

typedef struct spawn_failure {
	spawn_step step;
	int sys_errno;
	int fd;                 /* SPAWN_STEP_DUP: the fd and its slot */
	size_t slot;
} spawn_failure;

/* spawn_with_fds without a message: 0, or -1 with *F saying what failed,
 * for a caller that words the failure itself. */
int spawn_start(const char *const *argv, const char *const *envp, const int *fds, size_t nfds,
                const spawn_sandbox *sb, const spawn_cred *cred, pid_t *pid, int *pidfd,
                spawn_failure *f);
/* F's OSB_E_* code, and its stage ("cgroup" or "spawn"). */
int spawn_failure_code(const spawn_failure *f);
const char *spawn_failure_stage(const spawn_failure *f);
/* What failed in starting PROG, worded to follow "cannot start PROG: "
 * ("clone: ERR", "ERR" for execve, "STEP failed: ERR"), or a whole
 * sentence (out of memory, root ids, an fd not duplicated) when
 * spawn_failure_whole says so. */
void spawn_failure_text(const spawn_failure *f, const char *prog, char *buf, size_t size);
bool spawn_failure_whole(const spawn_failure *f);

/* Start ARGV[0] (an absolute path) with ENVP (NULL: an empty environment;
 * never the caller's). FDS[i] becomes fd i in the child for i < NFDS (every
 * slot must be a valid fd); nothing else is inherited; every signal has its
 * default disposition and none is blocked. With SB, the child first takes
 * those steps (a failure stops it: the error names the step); without SB
 * (a helper: a probe, bwrap's --help) it leads a process group of its own,
 * which helper_kill() ends. With CRED, the child switches to those host ids
 * before execve. On success *PID and *PIDFD are set; on failure *PIDFD is
 * -1, whichever step failed. */
int spawn_with_fds(const char *const *argv, const char *const *envp, const int *fds,
                   size_t nfds, const spawn_sandbox *sb, const spawn_cred *cred, pid_t *pid,
                   int *pidfd, osb_error *err);

/* Can a process with CRED (NULL: this process's own) create a user
 * namespace? A real attempt in a short-lived child. 0 or -errno. */
int spawn_probe_userns(const spawn_cred *cred);

/* Run ARGV with stdin and stderr on /dev/null and return its stdout (at
 * most MAX bytes). For probes such as `bwrap --help`. A helper that has not
 * exited within SPAWN_CAPTURE_TIMEOUT_MS is killed; one that is killed, exits
 * non-zero or prints more than MAX is an error naming what happened: a broken
 * bwrap must never hang the caller nor pass for a working one. */
#define SPAWN_CAPTURE_TIMEOUT_MS 5000
int spawn_capture(const char *const *argv, size_t max, char **out, osb_error *err);

int pidfd_open_cloexec(pid_t pid);
int pidfd_kill(int pidfd, int sig);
/* SIGKILL to a helper started by spawn_with_fds without SB and not yet
 * reaped, and to every process of its group. -EINVAL, and nothing is
 * signalled, for a PID that names no such helper (<= 1) or no PIDFD. */
int helper_kill(pid_t pid, int pidfd);
/* Wait for the process behind PIDFD; *STATUS as from waitpid. */
int pidfd_wait(int pidfd, int *status);

/* A memfd (CLOEXEC) holding DATA, rewound to offset 0. */
int memfd_with_data(const char *name, const void *data, size_t len);

/* Milliseconds on CLOCK_MONOTONIC. */
uint64_t now_ms(void);
/* CLOCK_MONOTONIC in nanoseconds: the clock the sandbox's init reads too
 * (bwrap makes no time namespace), so stamps from both sides compare. */
uint64_t now_ns(void);

#endif

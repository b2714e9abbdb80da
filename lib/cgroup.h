/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* cgroup.h — kernel-enforced resource limits for one sandbox (lib/cgroup.c).
 *
 * The library's internal interface to cgroups: find where this process may
 * create cgroups (cgroup v2, the v1 memory/pids/cpu hierarchies, or a mix of
 * both), make one cgroup per sandbox with its limits, let the sandbox's first
 * process enter it before it runs anything, read why the sandbox ended (OOM
 * kill, pids limit, CPU throttling, peak memory), kill what is in it and
 * remove it, and remove what a killed caller left behind. lib/cgroup.c's
 * opening comment describes the design and the files read and written.
 */
#ifndef OSB_CGROUP_H
#define OSB_CGROUP_H

#include "util.h"

#include <sys/types.h>

/* The controllers a limit needs. */
enum cg_ctrl { CG_MEMORY = 0, CG_PIDS, CG_CPU, CG__NCTRL };
#define CG_BIT(c) (1u << (c))
#define CG_LIMIT_CTRLS (CG_BIT(CG_MEMORY) | CG_BIT(CG_PIDS) | CG_BIT(CG_CPU))
/* v1 hierarchies used besides those: CPU usage (cpuacct), freezing before a
 * kill (freezer). */
#define CG_X_CPUACCT (1u << 4)
#define CG_X_FREEZER (1u << 5)

extern const char *const cgroup_ctrl_names[CG__NCTRL];   /* "memory", "pids", "cpu" */

/* The limits of one sandbox; 0 leaves a limit unset. */
typedef struct cgroup_limits {
	uint64_t memory_max;     /* bytes of memory (v2 memory.max, v1 limit_in_bytes) */
	uint64_t swap_max;       /* bytes of swap besides memory_max (only with memory_max) */
	uint64_t pids_max;       /* processes and threads (pids.max) */
	uint32_t cpu_millis;     /* CPU share in thousandths of one CPU (1000: one CPU) */
	uint32_t cpu_period_us;  /* the quota's period; 0: 100000 (100 ms) */
} cgroup_limits;

/* The quota that CPU_MILLIS thousandths of a CPU allow per PERIOD_US (0:
 * 100000). 0 and *QUOTA_US, or -EINVAL with *WHY set when the kernel would
 * refuse it (period outside 1 ms..1 s, quota under 1 ms). */
int cgroup_cpu_quota(uint32_t cpu_millis, uint32_t period_us, uint64_t *quota_us,
                     uint64_t *period_out, const char **why);

/* ---- the host: where cgroups can be made (probed once, then shared) -------- */

/* Test switches: make a present feature look absent. */
#define CG_HIDE_V1 (1u << 0)        /* every v1 hierarchy */
#define CG_HIDE_V2 (1u << 1)        /* the v2 hierarchy */
#define CG_HIDE_KILLFILE (1u << 2)  /* v2 cgroup.kill: freeze and kill instead */
#define CG_HIDE_FREEZER (1u << 3)   /* v2 cgroup.freeze and the v1 freezer */

typedef struct cgroup_probe_opts {
	/* Directory holding "cgroup" and "mountinfo" (NULL: /proc/self). */
	const char *proc_self;
	/* Configured parents (NULL-terminated absolute directories, one per
	 * hierarchy, or NULL): sandboxes go there instead of beneath this
	 * process's own cgroup. Each must be a cgroup directory of a hierarchy
	 * this process sees. */
	const char *const *parents;
	unsigned hide;           /* CG_HIDE_* */
	/* Read the facts only (mounts, this process's cgroups); no attempt. */
	bool facts_only;
} cgroup_probe_opts;

typedef struct cgroup_host cgroup_host;

/* Learn where this process may create cgroups: every real attempt (mkdir,
 * the limit files, a child process entering, rmdir) in a throw-away cgroup.
 * A hierarchy that offers nothing is not an error: cgroup_host_ctrl says
 * why. Errors: -OSB_E_HOST (unreadable /proc files, a configured parent in
 * no hierarchy), -OSB_E_NOMEM. */
int cgroup_host_probe(const cgroup_probe_opts *o, cgroup_host **out, osb_error *err);
void cgroup_host_free(cgroup_host *h);

/* Which cgroup version enforces controller C here (1 or 2), with *PARENT
 * the directory sandbox cgroups are made in; or 0 with *WHY saying why not
 * and what to do ("cgroup v2 without the memory controller delegated to uid
 * 1000: ...; remedy: ..."). PARENT and WHY may be NULL. */
int cgroup_host_ctrl(const cgroup_host *h, enum cg_ctrl c, const char **parent,
                     const char **why);

/* Did the probe fail somewhere only because its child process could not be
 * started (EAGAIN: a process limit, lib/fork-hint.h)? What it found then
 * describes that moment, not the host. */
bool cgroup_host_at_limit(const cgroup_host *h);

/* One hierarchy as found, for diagnostics and tests. */
typedef struct cgroup_hier {
	int version;            /* 1 or 2 */
	unsigned ctrls;         /* CG_BIT()s and CG_X_* it carries */
	unsigned usable;        /* those verified at PARENT */
	bool has_kill, has_freeze;   /* v2: cgroup.kill, cgroup.freeze (verified) */
	const char *target;     /* mount point */
	const char *own;        /* this process's cgroup directory, or NULL */
	const char *parent;     /* where sandbox cgroups go, or NULL */
	const char *why;        /* the closest failure, or "" */
} cgroup_hier;
size_t cgroup_host_count(const cgroup_host *h);
int cgroup_host_hier(const cgroup_host *h, size_t i, cgroup_hier *out);

/* ---- one sandbox's cgroup ------------------------------------------------- */

typedef struct cgroup cgroup;

/* Make a sandbox cgroup "osb-PID-RANDOM" in every usable hierarchy, locked
 * for as long as CG lives (the sweep never takes it), and write LIM. First
 * removes what dead callers left (cgroup_sweep). A limit no hierarchy here
 * can enforce is refused: -OSB_E_HOST, stage "cgroup", the controller's
 * reason and remedy. Nothing is left behind on failure. */
int cgroup_create(const cgroup_host *h, const cgroup_limits *lim, cgroup **out,
                  osb_error *err);

/* Write LIM into CG's directories (cgroup_create does; exposed for tests on
 * a directory tree). 0 or -OSB_E_HOST naming the file and the value. */
int cgroup_set_limits(const cgroup *cg, const cgroup_limits *lim, osb_error *err);

/* Take existing directories as a cgroup without creating or limiting
 * anything: PATHS[i] of cgroup version VERSIONS[i] carrying CTRLS[i]. For
 * tests on a directory tree and for diagnostics; cgroup_release frees it
 * without removing anything. */
int cgroup_open_dirs(const char *const *paths, const int *versions, const unsigned *ctrls,
                     size_t n, cgroup **out, osb_error *err);

const char *cgroup_name(const cgroup *cg);
size_t cgroup_dir_count(const cgroup *cg);
const char *cgroup_dir_path(const cgroup *cg, size_t i);
int cgroup_dir_version(const cgroup *cg, size_t i);
unsigned cgroup_dir_ctrls(const cgroup *cg, size_t i);   /* CG_BIT()s and CG_X_* */

/* ---- entering it ----------------------------------------------------------
 *
 * A process enters the cgroup by writing "0" (itself) to the cgroup.procs
 * file of every hierarchy: CG keeps those files open (O_WRONLY, O_CLOEXEC), so
 * that the child of lib/spawn.c, which runs raw system calls only between
 * clone(CLONE_VM|CLONE_VFORK) and execve, can do it with write(2):
 *
 *   parent:  n = cgroup_attach_fds(cg, fds, CG_MAX_DIRS);   (before clone)
 *   child:   first, before it changes credentials or closes fds:
 *            if ((r = cgroup_attach_self(fds, n)) < 0) fail with -r;
 *
 * Before the credential switch, because the write needs the rights of the
 * cgroup's owner (kernels before 5.16 check the writer, not the opener);
 * before close_range, which closes these fds. The fds are close-on-exec, so
 * they never reach bwrap. On cgroup v2 alone, clone3(CLONE_INTO_CGROUP) with
 * cgroup_v2_fd() does the same atomically, when the child is started with
 * clone3 (lib/proc.c uses clone()).
 */
#define CG_MAX_DIRS 6

size_t cgroup_attach_fds(const cgroup *cg, int *fds, size_t max);
/* Raw system calls only (write(2) of "0" to each fd): safe in a
 * CLONE_VM|CLONE_VFORK child. 0, or -errno of the first failed write. */
int cgroup_attach_self(const int *fds, size_t n);
/* The v2 directory (O_RDONLY|O_DIRECTORY) for clone3's cgroup field, or -1
 * when CG has no v2 directory. Valid while CG lives. */
int cgroup_v2_fd(const cgroup *cg);

/* ---- the outcome ----------------------------------------------------------- */

/* Which fields of a cgroup_outcome this host could report. */
#define CG_KNOW_OOM (1u << 0)          /* oom_kills */
#define CG_KNOW_MEM_EVENTS (1u << 1)   /* memory_max_hits */
#define CG_KNOW_PEAK (1u << 2)         /* memory_peak */
#define CG_KNOW_PIDS (1u << 3)         /* pids_max_hits */
#define CG_KNOW_PIDS_PEAK (1u << 4)    /* pids_peak */
#define CG_KNOW_CPU (1u << 5)          /* cpu_usage_usec */
#define CG_KNOW_THROTTLE (1u << 6)     /* cpu_nr_throttled, cpu_throttled_usec */

typedef struct cgroup_outcome {
	unsigned known;             /* CG_KNOW_* */
	uint64_t oom_kills;         /* processes the OOM killer killed in it */
	uint64_t memory_max_hits;   /* times usage hit memory_max (v1: memory and memsw
	                               failcnt; unknown when 0 and memsw is limited, as
	                               some kernels do not count memsw hits) */
	uint64_t memory_peak;       /* bytes */
	uint64_t pids_max_hits;     /* forks refused at pids_max */
	uint64_t pids_peak;         /* most processes and threads at once */
	uint64_t cpu_usage_usec;    /* CPU time of everything in it */
	uint64_t cpu_nr_throttled;  /* periods in which the quota ran out */
	uint64_t cpu_throttled_usec;
} cgroup_outcome;

/* Read the counters (any time; after the sandbox ended for the result).
 * Fields the host cannot report stay 0 and their CG_KNOW_ bit clear. 0, or
 * -errno when a file that exists cannot be read or parsed. */
int cgroup_read_outcome(const cgroup *cg, cgroup_outcome *out);

static inline bool cgroup_oom_killed(const cgroup_outcome *o) { return o->oom_kills > 0; }
static inline bool cgroup_pids_limited(const cgroup_outcome *o) { return o->pids_max_hits > 0; }
static inline bool cgroup_cpu_throttled(const cgroup_outcome *o) { return o->cpu_nr_throttled > 0; }

/* ---- the end ----------------------------------------------------------------- */

/* Whether any process is in CG. */
bool cgroup_populated(const cgroup *cg);
/* SIGKILL everything in CG, including what forks meanwhile: v2 cgroup.kill
 * (Linux 5.14), else freeze, kill each process, thaw. Does not wait. 0 or
 * -errno. */
int cgroup_kill(const cgroup *cg);
/* Wait until no process is left in CG: 0, or -ETIMEDOUT. Zombies do not
 * count (the kernel takes a process out at exit, not when it is reaped). */
int cgroup_wait_empty(const cgroup *cg, int timeout_ms);
/* Kill, wait (at most TIMEOUT_MS) and remove every directory, then free CG
 * (always). 0, or -errno of the first directory that could not be removed:
 * it is unlocked now, and the next cgroup_sweep removes it. NULL is a no-op. */
int cgroup_destroy(cgroup *cg, int timeout_ms);
/* Free CG and unlock its directories, removing nothing. */
void cgroup_release(cgroup *cg);

/* Remove the sandbox cgroups that dead callers left in H's parents: every
 * "osb-PID-RANDOM" directory whose lock nobody holds (its creator is gone,
 * even if it was SIGKILLed) has its processes killed and is removed, with
 * what is beneath it. *REMOVED (may be NULL) counts the directories
 * removed. 0, or -errno of the first directory that stayed (it is tried
 * again next time). */
int cgroup_sweep(const cgroup_host *h, unsigned *removed);
/* The same for one directory (tests). */
int cgroup_sweep_dir(const char *parent, unsigned *removed);

/* Whether NAME has the form of a sandbox cgroup's name. */
bool cgroup_name_is_ours(const char *name);

#endif /* OSB_CGROUP_H */

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* caps-probe.h — the attempts of the capabilities probe (caps-probe.c) and
 * their results, which caps-judge.c reads.
 */
#ifndef OSB_CAPS_PROBE_H
#define OSB_CAPS_PROBE_H

#include "caps.h"

#include <linux/filter.h>

#define PROBE_TIMEOUT_MS 10000
#define PROBE_UID 1000          /* the id the userns attempt maps itself to */
#define DIAG_MAX 300

enum {
	AF_USERNS = 1 << 0,     /* --unshare-user --uid --gid */
	AF_DISABLE = 1 << 1,    /* --disable-userns */
	AF_NET = 1 << 2,        /* --unshare-net (loopback is brought up) */
	AF_PID = 1 << 3,        /* --unshare-pid --proc /proc */
	AF_ROOT = 1 << 4,       /* no user namespace: capabilities as a root-mode run */
	AF_REST = 1 << 5,       /* ipc, uts, /dev, die-with-parent, new-session */
};

/* Per mode: the full sandbox first; the others only when it fails. */
enum { A_FULL, A_NS, A_NET, A_PID, A_NONET, A_DISABLE, A__COUNT };

typedef struct attempt {
	unsigned flags;
	bool wanted, started, done, ok;
	bool killed;      /* by the probe (its deadline, a failed wait): DIAG says why */
	pid_t pid;
	int pidfd, errfd, status;
	/* It met a process limit (lib/fork-hint.h): it could not be started
	 * (EAGAIN), or bwrap could not clone its namespaces (BWRAP_CLONE_EAGAIN).
	 * DIAG then carries fork_hint, and its item the remedy fork_remedy. */
	bool at_limit;
	char diag[DIAG_MAX + 1];
} attempt;

enum { OV_MNTNS, OV_PRIVATE, OV_TMPFS, OV_DIRS, OV_MOUNT };
/* What each overlay step is called, and the map files in writing order. */
extern const char *const caps_overlay_steps[5];
extern const char *const caps_map_files[3];

typedef struct direct_res {
	int userns, map, overlay, nnp, landlock, seccomp;  /* 0, errno, CAPS_NOT_TRIED */
	int map_step, overlay_step;
} direct_res;

typedef struct direct_in {
	char uid_map[48], gid_map[48];
	struct sock_fprog prog;
	bool prog_ok, landlock;
} direct_in;

typedef struct direct {
	attempt a;        /* reuses the waiting machinery (pidfd) */
	int rfd;
	direct_res res;
	bool have_res;
} direct;

typedef struct caps_probe {
	attempt a[M__COUNT][A__COUNT];
	direct d;
	int devnull;
	uint64_t deadline;
	osb_error seccomp_err;
	/* What a process the probe could not start met, and what to do about
	 * it (fork_hint, fork_remedy, as this caller's limits make them), for
	 * every item so stopped. */
	const char *limit_hint, *limit_remedy;
} caps_probe;


/* Run every attempt of the probe (the sandboxes, the direct child, the
 * filter, the shipped policies, cgroups) and fill C's facts and P's
 * results; judging them is caps_judge(). */
void caps_probe_run(osb_caps *c, caps_probe *p);

#endif /* OSB_CAPS_PROBE_H */

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* sandbox-limits.h — a policy's kernel-enforced limits for one sandbox (sandbox-limits.c).
 *
 * Between the policy and the cgroup module (cgroup.h): which of "limit
 * memory", "limit pids" and "limit cpu" a policy asks for, whether this host
 * can enforce them (refused, or skipped when marked best-effort), the
 * sandbox's cgroup that holds them, made before bwrap starts, and what it
 * reports when the sandbox has ended.
 */
#ifndef OSB_LIMITS_H
#define OSB_LIMITS_H

#include "cgroup.h"
#include "policy.h"

typedef struct limits_state {
	cgroup_limits want;     /* what the cgroup enforces (skipped limits zeroed) */
	cgroup *cg;             /* the sandbox's cgroup, or NULL when none is needed */
	/* Best-effort limits this host cannot enforce: CG_BIT(CG_MEMORY)... */
	unsigned skipped;
	char skipped_why[512];  /* the first one's reason */
} limits_state;

#define LIMITS_INIT { .cg = NULL }

/* Does P ask for any of memory, pids or cpu (a value, not "unlimited")? */
bool limits_wanted(const osb_policy *p);

/* The cgroup limits P asks for (limits nobody asked for are 0). */
void limits_of_policy(const osb_policy *p, cgroup_limits *out);

/* Decide from the host's cgroups H whether P's limits hold here: every
 * limit whose controller H cannot offer is refused (-OSB_E_HOST, stage
 * "cgroup", naming the limit, where the policy set it, the reason and the
 * remedy), or, when marked best-effort, left out of LS->want and recorded in
 * LS->skipped. Pure: H is a probe result (cgroup_host_probe). */
int limits_decide(const osb_policy *p, const cgroup_host *h, limits_state *ls, osb_error *err);

/* The whole step for a launch: nothing when P asks for no limit; else
 * probe the host's cgroups, decide, and make the sandbox's cgroup (which
 * first removes what killed callers left). 0 or -OSB_E_*. */
int limits_prepare(const osb_policy *p, limits_state *ls, osb_error *err);

/* Kill what is left in the cgroup, remove it, and reset LS. */
void limits_release(limits_state *ls);

/* "memory, cpu": the names of the controllers in MASK (CG_BIT()s). */
void limits_names(unsigned mask, char *buf, size_t size);

#endif /* OSB_LIMITS_H */

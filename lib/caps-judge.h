/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* caps-judge.h — what the probe's attempts mean (caps-judge.c): items,
 * modes, which policy runs where, and why user namespaces fail.
 */
#ifndef OSB_CAPS_JUDGE_H
#define OSB_CAPS_JUDGE_H

#include "caps-probe.h"

/* Judge P's attempts into C's items, modes and profiles. */
void caps_judge(osb_caps *c, const caps_probe *p);

/* What stops a policy in a mode: a borrowed view of an item or a stop. */
typedef struct caps_why {
	const char *id;
	int status;
	const char *reason, *remedy;
} caps_why;

/* Is a policy with needs ND stopped in mode M? *W says by what. */
bool caps_policy_stopped(const osb_caps *c, const caps_needs *nd, enum mode m, caps_why *w);

/* ---- blocker attribution (pure; exposed for tests) ---------------------- */

/* What the probe learned about user namespaces. Sysctl values are -1 when
 * the file does not exist on this kernel. */
typedef struct caps_userns_facts {
	int unshare_errno;            /* unshare(CLONE_NEWUSER): 0 or errno */
	int map_errno;                /* writing the maps: 0, errno, CAPS_NOT_TRIED */
	const char *map_file;         /* which file failed ("uid_map", ...) */
	long max_user_namespaces;     /* user.max_user_namespaces */
	long unprivileged_userns_clone; /* kernel.unprivileged_userns_clone */
	long apparmor_restrict;       /* kernel.apparmor_restrict_unprivileged_userns */
	unsigned seccomp_filters;     /* Seccomp_filters in /proc/self/status */
	bool root;                    /* effective uid 0 */
	const char *bwrap_diag;       /* bwrap's message for the failed attempt, or NULL */
	/* That attempt met a process limit (it could not be started): what to
	 * do about it (fork_remedy); NULL when it did not. */
	const char *bwrap_limit_remedy;
} caps_userns_facts;

/* Why user namespaces fail here. *BLOCKER is the name of the knob held
 * responsible ("user.max_user_namespaces", "seccomp", ...) or NULL when
 * nothing known explains it. REASON and REMEDY get one line each. */
void caps_userns_blocker(const caps_userns_facts *f, const char **blocker,
                         char *reason, size_t reason_len, char *remedy, size_t remedy_len);

#endif /* OSB_CAPS_JUDGE_H */

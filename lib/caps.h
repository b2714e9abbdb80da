/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* caps.h — the capabilities probe, internal side.
 *
 * osb_caps_probe() (osb-isolate.h) answers "what isolation does this host
 * give, and if not, why and what to do". This header adds what the rest of
 * the library needs from it: the early refusal a launch makes when a policy
 * needs something the host lacks (caps_check_policy, called before the plan
 * is built), and the pure pieces of the probe that unit tests drive with facts the test host cannot
 * produce (an AppArmor restriction, a sysctl set to 0).
 */
#ifndef OSB_CAPS_H
#define OSB_CAPS_H

#include "internal.h"
#include "host.h"

/* Refuse early, with the failing item's reason and remedy, when the host
 * lacks what POLICY needs in the identity mode it would run in on host H
 * (host_mode). Uses the per-process cached probe when there
 * is one; otherwise only checks that start no sandbox (bwrap and its --help,
 * a user namespace or root's capabilities, Landlock when required), and runs
 * the full probe only when one of them fails, to name it. Returns 0,
 * or -OSB_E_HOST with stage "probe" and the message
 * "<item> <status>: <reason>; remedy: <remedy>" (other -OSB_E_* when the
 * probe itself fails). */
int caps_check_policy(const osb_policy *p, const host_facts *h, osb_error *err);

/* How many uncached probes this process has run (tests of the cache). */
unsigned caps_probe_runs(void);

/* ---- blocker attribution (pure; exposed for tests) ---------------------- */

#define CAPS_NOT_TRIED (-1)

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
} caps_userns_facts;

/* Why user namespaces fail here. *BLOCKER is the name of the knob held
 * responsible ("user.max_user_namespaces", "seccomp", ...) or NULL when
 * nothing known explains it. REASON and REMEDY get one line each. */
void caps_userns_blocker(const caps_userns_facts *f, const char **blocker,
                         char *reason, size_t reason_len, char *remedy, size_t remedy_len);

#endif /* OSB_CAPS_H */

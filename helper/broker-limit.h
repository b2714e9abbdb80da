/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* broker-limit.h — which process limit a command the session broker could
 * not fork met, as far as the sandbox's pid 1 can tell (broker-limit.c).
 */
#ifndef OSB_BROKER_LIMIT_H
#define OSB_BROKER_LIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

/* What the broker can know from inside. */
struct fork_limits {
	bool pids_known;                  /* its cgroup's pids files were read */
	uint64_t pids_max, pids_current;  /* pids.max UINT64_MAX: "max" */
	bool nproc_policy;                /* RLIMIT_NPROC is the policy's "limit nproc" */
	uint64_t nproc;                   /* then its value */
};

/* Gather them: this process's cgroup's pids.max and pids.current when the
 * sandbox can read them (a policy that binds /sys/fs/cgroup), and its
 * RLIMIT_NPROC, which is the policy's when it equals POLICY_NPROC (what the
 * init applied from "limit nproc"; NULL: the policy sets none). */
void fork_limits_read(struct fork_limits *l, const struct rlimit *policy_nproc);

/* What to do about fork's errno ERR, as " (...)" to follow strerror(ERR),
 * in the words of lib/fork-hint.h but naming the limit L says binds: the
 * cgroup's pids.max when it is reached, else the policy's "limit nproc",
 * else fork_hint's. "" when ERR is not EAGAIN. Pure; BUF holds the text. */
const char *fork_limits_hint(const struct fork_limits *l, int err, char *buf, size_t size);

#endif

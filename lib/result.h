/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* result.h — the result record (result.c) that runs and sessions fill.
 *
 * One shape for the library and the CLI (docs/ARCHITECTURE.md, "Results"). Captured output
 * is clipped head+tail: the first half of the limit and the last half are
 * kept, the byte counts always count everything that was produced.
 */
#ifndef OSB_RESULT_H
#define OSB_RESULT_H

#include "policy.h"
#include "sandbox-limits.h"

/* A clipped capture of one stream: HEAD keeps the first bytes up to
 * limit/2 (rounded up), TAIL is a ring of the last limit/2 bytes. */
typedef struct capture {
	uint64_t limit;        /* total bytes kept at most */
	uint64_t total;        /* bytes produced */
	char *head; size_t head_len, head_cap;
	char *tail; size_t tail_cap, tail_start, tail_len;   /* ring buffer */
	int sink_errno;        /* why copying the stream to its fd failed (0: it did not) */
} capture;

void capture_init(capture *c, uint64_t limit);
int capture_add(capture *c, const char *buf, size_t len);   /* -ENOMEM */
/* Flatten to a NUL-terminated buffer: head, then (if clipped) tail. */
int capture_take(capture *c, char **out, size_t *len, bool *truncated);
void capture_free(capture *c);

/* The moments a run passes (result_timing_us turns them into stages):
 * START the call, SPAWN bwrap started, INIT the init's first instruction
 * (its own clock, sent with "X"), GO the launcher's go-ahead to exec the
 * command (a session's: the broker's "started"), EXIT its status known,
 * END the result complete. */
enum { TS_START, TS_SPAWN, TS_INIT, TS_GO, TS_EXIT, TS_END, TS__COUNT };
typedef struct result_stamps {
	uint64_t ns[TS__COUNT];
} result_stamps;

struct osb_result {
	bool ran;              /* the command was exec'd */
	int exit_code;         /* -1 when none */
	int signal;            /* 0 when none */
	bool timed_out;
	bool has_error;
	osb_error error;       /* class = code, stage, message */
	char *out; size_t out_len;
	char *err; size_t err_len;
	bool truncated;
	uint64_t out_bytes, err_bytes;
	uint64_t duration_ms;
	char policy_hash[OSB_POLICY_HASH_LEN];
	char *hint;            /* what to do next, or NULL */
	char *mode;            /* "userns" / "root", or NULL when not started */
	const char *ws_mode;   /* "none", "ro", "rw", "overlay" (static), or NULL */
	uint32_t host_uid, host_gid;   /* the sandbox's host ids; 0: not planned */
	const char *host_ids_kind;     /* hostid_kind_name(): static */
	/* Kernel-enforced limits (sandbox-limits.h): whether the sandbox had a cgroup,
	 * what it said when the sandbox had ended, and the best-effort limits
	 * this host could not enforce (CG_BIT()s, with the first reason). */
	bool cg;
	cgroup_outcome cg_out;
	unsigned limits_skipped;
	char *limits_skipped_why;
	/* The sized tmpfs mounts with no room left when the command ended
	 * (one-shot runs; TMPFS_KNOWN false for session commands). */
	bool tmpfs_known;
	/* "network allow": what the filtering proxy decided (result-net.c);
	 * NET_KNOWN false without an allowlist (beside the other flag: no
	 * padding hole). */
	bool net_known;
	strv tmpfs_full;
	unsigned long net_allowed, net_dropped;
	struct netproxy_refusal *net_refused; size_t n_net_refused;
	char *net_log;
	/* What the plan protected because the workspace repository's
	 * configuration names it (gitprotect.h): the sandbox path, and why
	 * ("core.hooksPath in /w/.git/config:7"). */
	strv protected_path, protected_why;
	/* When each stage began (CLOCK_MONOTONIC ns, now_ns(); 0: unknown),
	 * for osb_result_timing_us. */
	result_stamps t;
};

osb_result *result_new(void);
void result_set_host_ids(osb_result *r, uint32_t uid, uint32_t gid, const char *kind);
/* Record the read-only rules of PL->git (the plan's), as protected_path and
 * protected_why. 0 or -ENOMEM. */
struct plan;
int result_set_protected(osb_result *r, const struct plan *pl);
/* Record LS's skipped limits and, when it had a cgroup, OUT (read from it
 * after the sandbox ended). 0 or -ENOMEM. */
int result_set_limits(osb_result *r, const limits_state *ls, const cgroup_outcome *out);

/* Stage WHICH (an osb_timing) of R in microseconds, or -1 when a moment it
 * lies between is unknown or out of order. */
int64_t result_timing_us(const osb_result *r, int which);

/* The stable names of error codes used in JSON: "usage", "policy", ... */
const char *result_code_name(int code);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* host.h — what this host is, gathered apart from what a policy asks for.
 *
 * Facts are found by looking (a real user-namespace attempt, bwrap's own
 * --help, the entries of /proc, the Landlock ABI) and cached per process
 * where the answer cannot change; host_facts_get() hands out a copy. Every
 * decision made from them is a pure function of (policy, facts): which
 * identity mode a policy runs in is decided by host_mode() alone, which the
 * plan (plan.c) and the capabilities gate (caps.c) both call. Unit tests
 * fabricate facts (tests/unit/check_plan.c) instead of needing a host that
 * has them. See docs/ARCHITECTURE.md, "Host facts".
 */
#ifndef OSB_HOST_H
#define OSB_HOST_H

#include "policy.h"

#include <sys/types.h>

/* The options of bwrap the plan relies on, read from its --help (never
 * inferred from its version: distributions backport options). */
typedef struct bwrap_features {
	bool bind_fd;          /* --bind-fd and --ro-bind-fd */
	bool disable_userns;
	bool json_status_fd;
	bool die_with_parent;
	bool new_session;
	bool remount_ro;
} bwrap_features;

/* What bwrap prints when it cannot clone its namespaces for want of a
 * process (EAGAIN): a process limit was met (lib/fork-hint.h), nothing is
 * wrong with namespaces. In the C locale, as bwrap always runs
 * (spawn_fixed_env). */
#define BWRAP_CLONE_EAGAIN "bwrap: Creating new namespace failed: Resource temporarily unavailable"

/* How bwrap was looked for: the path the caller configured, the one fixed
 * at build time, or PATH. */
enum bwrap_from { BWRAP_FROM_CONFIG, BWRAP_FROM_BUILD, BWRAP_FROM_PATH };
enum bwrap_state {
	BWRAP_OK,              /* found, not setuid, --help read */
	BWRAP_MISSING,         /* not executable where looked for (bwrap_errno) */
	BWRAP_SETUID,          /* setuid or setgid: never run */
	BWRAP_NO_HELP,         /* --help failed, hung or printed no usage (bwrap_why) */
};

/* Where a --help text came from: this process's earlier reading, the
 * caller's cache file (helpcache.h), or running bwrap now. */
enum help_from { HELP_FROM_RUN, HELP_FROM_PROCESS, HELP_FROM_FILE };

/* The /proc entries this host's kernel has, of the tables the plan covers
 * (plan.c): read-only over themselves, /dev/null over files, an empty
 * read-only tmpfs over directories. Names point to static strings. */
#define HOST_PROC_MAX 48
typedef struct proc_facts {
	const char *ro[8]; size_t n_ro;
	const char *mask_files[HOST_PROC_MAX]; size_t n_mask_files;
	const char *mask_dirs[HOST_PROC_MAX]; size_t n_mask_dirs;
	bool loadavg;          /* /proc/loadavg exists (a synthesized one replaces it) */
} proc_facts;

/* Paths of the programs a launch runs, as osb_set_program() named them
 * (copies owned by the struct); NULL: the default lookup. ORIGIN is the
 * name the caller gave the setting, for messages ("OSB_ISOLATE_BWRAP"). */
typedef struct host_paths {
	char *bwrap, *bwrap_origin;
	char *init, *init_origin;
	char *netproxy, *netproxy_origin;
	unsigned generation;   /* bumped by every osb_set_program() */
} host_paths;

typedef struct host_facts {
	uid_t euid;
	gid_t egid;
	/* Root with CAP_SYS_ADMIN, CAP_SETUID, CAP_SETGID and CAP_SETPCAP
	 * effective: what root mode needs. */
	bool root_caps;
	/* bwrap: where it was looked for, what was found, its options. */
	enum bwrap_from bwrap_from;
	enum bwrap_state bwrap_state;
	char *bwrap;           /* the path (BWRAP_OK, SETUID, NO_HELP); else NULL */
	char *bwrap_tried;     /* what was tried: a path, or PATH's value */
	char *bwrap_origin;    /* BWRAP_FROM_CONFIG: who named it */
	int bwrap_errno;       /* MISSING: why; NO_HELP: the errno of running --help
	                        * (EAGAIN: a process limit, lib/fork-hint.h) */
	char bwrap_why[1024];  /* BWRAP_NO_HELP: what running --help said */
	char *bwrap_help;      /* its --help text (BWRAP_OK) */
	enum help_from help_from;   /* where that text came from */
	bwrap_features feat;
	/* 0 when the sandbox's bwrap can create a user namespace here (for a
	 * root caller: as an unprivileged host id), else the errno. */
	int userns_errno;
	/* Landlock: the ABI (0: none), and the errno when there is none. */
	int landlock_abi;
	int landlock_errno;
	proc_facts proc;
	char *init;            /* the sandbox init's path */
	char *init_origin;     /* who named it; NULL: the installed one */
	char *netproxy;        /* the filtering proxy's path ("network allow") */
	char *netproxy_origin; /* who named it; NULL: the installed one */
	unsigned generation;   /* of the programs looked at (host_paths_generation) */
} host_facts;

/* Gather the facts (the probes run once per process; bwrap's --help once
 * per binary). Never fails for what the host lacks — that is a fact —
 * only for memory: 0 or -OSB_E_NOMEM. Free with host_facts_free(). */
int host_facts_get(const host_paths *paths, host_facts *out, osb_error *err);
void host_facts_free(host_facts *h);
/* A deep copy of SRC into DST (for a probe that reuses what a launch has
 * learnt instead of running bwrap's --help again): 0 or -ENOMEM, DST then
 * empty. */
int host_facts_copy(host_facts *dst, const host_facts *src);
/* Drop what is kept of BWRAP's --help, in this process and between
 * processes: the binary refused an option that text listed. */
void host_help_forget(const char *bwrap);
/* host_facts_get() with the programs osb_set_program() names now; their
 * generation in *GENERATION when not NULL. */
int host_facts_now(host_facts *out, unsigned *generation, osb_error *err);

/* The programs osb_set_program() named so far (a consistent copy; free
 * with host_paths_free()): 0 or -ENOMEM. The library reads no environment
 * variable for them; the CLI reads OSB_ISOLATE_BWRAP and OSB_ISOLATE_INIT
 * and calls osb_set_program(). */
int host_paths_get(host_paths *out);
void host_paths_free(host_paths *p);
/* The current generation: a cached probe of an older one is stale. */
unsigned host_paths_generation(void);

/* The identity mode POLICY runs in on a host with these facts: its
 * "identity" directive, or for auto: userns where the sandbox's bwrap can
 * create a user namespace or the caller is not root, else root mode. Pure;
 * whether that mode can run here is the plan's and the gate's business. */
enum id_mode host_mode(const osb_policy *p, const host_facts *h);

/* Parse --help text into F; exposed for tests. */
void bwrap_parse_help(const char *text, bwrap_features *f);
/* Does --help text HELP list option OPT, by its exact name? (The
 * capabilities probe reports every option it knows of.) */
bool bwrap_help_lists(const char *help, const char *opt);

#endif /* OSB_HOST_H */

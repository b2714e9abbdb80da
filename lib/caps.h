/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* caps.h — the capabilities probe, internal side (caps.c, caps-probe.c,
 * caps-judge.c, caps-report.c).
 *
 * osb_caps_probe() (osb-isolate.h) answers "what isolation does this host
 * give, and if not, why and what to do". The probe is three steps, one a
 * file: caps-probe.c makes the attempts (sandboxes in each identity mode, a
 * child that creates a user namespace, mounts overlayfs, enforces Landlock,
 * loads the filter) and reads what names a failure; caps-judge.c turns what
 * they found into items, each with a status, a reason and a remedy, and
 * says which mode runs which policy; caps-report.c renders the JSON and
 * the table. caps.c holds the result, its per-process cache, the accessors
 * and the early refusal a launch makes when a policy needs something the
 * host lacks (caps_check_policy, called before the plan is built).
 */
#ifndef OSB_CAPS_H
#define OSB_CAPS_H

#include "policy.h"
#include "host.h"
#include "sha256.h"
#include "caps-cover.h"

#define CAPS_NOT_TRIED (-1)

enum item_id {
	IT_BWRAP, IT_BWRAP_OPTIONS, IT_BIND_FD, IT_DISABLE_USERNS, IT_USERNS, IT_NETNS,
	IT_PIDNS, IT_SECCOMP, IT_NESTED, IT_LANDLOCK, IT_CGROUP, IT_CGROUP_LIMITS, IT_OVERLAY, IT_ROOT,
	IT_OVERLAY_WS,   /* "overlay": the overlay workspace, per identity mode */
	IT_DIFF, IT_COMMIT, IT_PERSIST,   /* its layer: caps-overlay-ops.c */
	IT_NET_ALLOW,    /* "network_allowlist": "network allow" (a netns and the proxy) */
	IT_COVER,        /* "proc_cover": the init's cover of /proc, per identity mode */
	IT__COUNT
};


enum mode { M_USERNS, M_ROOT, M__COUNT };


typedef struct caps_item {
	int status;
	char *reason;
	char *remedy;      /* NULL when ok */
} caps_item;

/* Which options of bwrap a run uses, and in which mode. */
enum need { NEED_ALL, NEED_USERNS, NEED_ROOT, NEED_OWN_ITEM, NEED_NONE };
#define CAPS_N_OPTS 38
typedef struct caps_opt {
	const char *name;
	enum need need;
} caps_opt;
extern const caps_opt caps_bwrap_opts[CAPS_N_OPTS];
/* What a policy needs from the host, beyond a sandbox in its mode. */
typedef struct caps_needs {
	enum id_mode id;
	bool netns;        /* "network none": a network namespace */
	bool seccomp;      /* not "seccomp none" */
	bool landlock;     /* "landlock required" */
	bool overlay;      /* "workspace overlay" */
	bool cover;        /* "proc" and "dev /dev": the init makes the /proc cover */
} caps_needs;

typedef struct caps_profile {
	char *name;
	char *error;       /* why it does not load, or NULL */
	caps_needs nd;
	bool runs[M__COUNT];
	char seccomp_sha256[2 * SHA256_DIGEST_LEN + 1];   /* "": seccomp none */
} caps_profile;

/* The first thing that stops a mode, as it is reported when a launch is
 * refused: an item name, its status, reason and remedy. */
typedef struct caps_stop {
	const char *id;
	int status;
	char *reason, *remedy;
} caps_stop;

struct osb_caps {
	int refs;
	unsigned generation;   /* of the programs probed (host_paths_generation) */
	/* The configured cgroup parents the cgroup_limits item was judged with
	 * (NULL-terminated, or NULL). */
	char **cg_parents;
	caps_item items[IT__COUNT];
	char *bwrap_path, *bwrap_version;
	bool bwrap_usable, bwrap_setuid, have_help;
	bool opt[CAPS_N_OPTS];
	char seccomp_sha256[2 * SHA256_DIGEST_LEN + 1];
	size_t seccomp_insns;
	int landlock_abi;
	/* host facts (host.c), and what only the probe reads */
	host_facts host;
	uid_t euid;
	unsigned seccomp_filters;
	bool no_new_privs;
	char *uid_map, *captext, *kernel;
	long sysctl[3];                  /* see caps_sysctl_names */
	const char *blocker;             /* the knob blamed for user namespaces */
	/* summary */
	bool base_ok[M__COUNT];          /* a sandbox starts in this mode */
	bool mode_ok[M__COUNT];          /* ... and the default filter loads */
	bool net_ok[M__COUNT];           /* ... with a network namespace */
	caps_stop mode_stop[M__COUNT], net_stop[M__COUNT];
	/* The overlay workspace per mode (caps-overlay.h): the errno of the
	 * attempt (0: it mounts; CAPS_NOT_TRIED), its step (OVT_ANSWER: its
	 * child ended without an answer, with wait status overlay_status), and
	 * what stops it. */
	int overlay_err[M__COUNT];
	int overlay_step[M__COUNT];
	int overlay_status[M__COUNT];
	caps_stop overlay_stop[M__COUNT];
	/* The init's /proc cover per mode (caps-cover.h): err CAPS_NOT_TRIED
	 * when the mode was not tried. */
	caps_cover_res cover[M__COUNT];
	caps_stop cover_stop[M__COUNT];
	caps_profile *profiles; size_t n_profiles;
	char *policy_dir;
	strv write_roots;                /* declared by the shipped policies */
	uint64_t probe_ms;
	bool oom;
	/* A process of the probe could not be created (EAGAIN: a process
	 * limit, lib/fork-hint.h): the answers describe that moment, not the
	 * host, and the probe is not cached (caps.c). */
	bool at_limit;
};

enum { SC_MAX_USERNS, SC_UNPRIV_CLONE, SC_APPARMOR };

extern const char *const caps_item_names[IT__COUNT];
extern const char *const caps_mode_names[M__COUNT];
/* The sysctls that can block user namespaces, and their files. */
extern const char *const caps_sysctl_names[3];
extern const char *const caps_sysctl_files[3];
/* strdup that records a failure in C->oom (the probe reports it once). */
char *caps_dup(osb_caps *c, const char *s);
/* Set item ID (a remedy only when not ok). */
void caps_item_set(osb_caps *c, enum item_id id, int status, const char *reason,
                   const char *remedy);
/* snprintf into BUF, returning BUF. */
const char *caps_fmt(char *buf, size_t size, const char *f, ...)
	__attribute__((format(printf, 3, 4)));
/* How a probe child that wrote no answer ended, from its wait STATUS, into
 * BUF: "the probe child ended without an answer: it was killed by signal 31
 * (SIGSYS)" (or "it exited with status N"). Returns BUF. */
const char *caps_no_answer(char *buf, size_t size, int status);
/* What POL needs from the host, beyond a sandbox in its mode. */
caps_needs caps_needs_of(const osb_policy *pol);
/* Does this bwrap's --help list option NAME (one of caps_bwrap_opts)? */
bool caps_has_opt(const osb_caps *c, const char *name);

/* Refuse early, with the failing item's reason and remedy, when the host
 * lacks what POLICY needs in the identity mode it would run in on host H
 * (host_mode). Uses the per-process cached probe when there is one;
 * otherwise only checks that start no sandbox (bwrap and its --help, a user
 * namespace or root's capabilities, Landlock when required), and runs the
 * full probe only when one of them fails, to name it. Returns 0, or
 * -OSB_E_HOST with stage "probe" and the message
 * "<item> <status>: <reason>; remedy: <remedy>" (other -OSB_E_* when the
 * probe itself fails). */
int caps_check_policy(const osb_policy *p, const host_facts *h, osb_error *err);

/* How many uncached probes this process has run (tests of the cache). */
unsigned caps_probe_runs(void);

#endif /* OSB_CAPS_H */

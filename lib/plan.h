/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* plan.h — the launch plan (plan.c): a policy translated for this host.
 *
 * plan_build() turns a policy, the host's facts (host.h) and the sandbox's
 * host ids (hostid.h) into a plan: verified fds for every bind source, the
 * synthesized identity files, the seccomp program, the sandbox environment,
 * and the fd numbers each of them will have in bwrap. It probes nothing:
 * every fact about the host comes in through host_facts, so unit tests run
 * it with fabricated facts as any user, without bwrap. What it does touch on
 * the host is what the policy names: it opens each bind source once (and
 * binds that very fd), reads the view's /etc entries and the workspace
 * repository's git configuration (gitprotect.h), makes the empty
 * placeholder directories read-only rules need, and fills memfds (see
 * docs/ARCHITECTURE.md). What runs in the sandbox is not part of the plan:
 * the command goes to the argv renderer (bwrap.h).
 */
#ifndef OSB_PLAN_H
#define OSB_PLAN_H

#include "policy.h"
#include "binds.h"
#include "gitprotect.h"
#include "host.h"
#include "hostid.h"
#include "sandbox-limits.h"
#include "proc.h"
#include "netallow-proxy.h"

/* Fixed fd numbers inside bwrap (documented in osb-isolate(1), "FILES"). */
enum {
	PFD_STDIN = 0,
	PFD_STDOUT = 1,       /* the command's stdout pipe */
	PFD_DIAG = 2,         /* bwrap's own stderr: setup diagnostics */
	PFD_STATUS = 3,       /* --json-status-fd */
	PFD_CMD_STDERR = 4,   /* the command's stderr; the init moves it to 2 */
	PFD_INIT_ERR = 5,     /* the init's report channel */
	PFD_INIT_EXE = 6,     /* the init binary, exec'd as /proc/self/fd/6 */
	PFD_SECCOMP = 7,
	PFD_PASSWD = 8,
	PFD_GROUP = 9,
	PFD_ENV = 10,         /* the command's environment (runs), for the init */
	PFD_FIRST_BIND = 11,  /* bind sources, in argv order */
};

typedef struct plan_bind {
	int fd;               /* O_PATH source, owned by the plan */
	int target;           /* fd number in bwrap */
	char *dest;
	bool writable;
	bool reprotect;       /* read-only rule inside a writable bind: made by the init
	                       * (--reprotect), never by bwrap, its fd kept outside */
	bool layer;           /* the persisted overlay layer (layer.h): bound at a hidden
	                       * place, last, and released by the init before the command */
	dev_t dev;            /* the source's device and inode, which the init */
	ino_t ino;            /* finds at DEST before the command runs */
	osb_origin o;
} plan_bind;

/* A file the plan writes for the sandbox instead of the host's (the
 * sandbox's /etc/hostname and /etc/hosts, a /proc/loadavg that describes no
 * host): bwrap copies FD's content into a read-only file at DEST
 * (--ro-bind-data). Their fds follow the bind sources in bwrap. */
typedef struct plan_data {
	int fd;
	char *dest;
	bool in_proc;             /* made over a /proc entry, with the /proc cover */
} plan_data;

#define PLAN_MAX_DATA 8

typedef struct plan {
	const osb_policy *p;
	char *bwrap;              /* the host's bwrap (host facts) */
	bwrap_features feat;
	bool userns;              /* mode: true = user namespace view */
	hostid host;              /* the sandbox's host ids (and their lock) */
	bool use_cred;            /* bwrap starts as CRED (a root caller's userns mode) */
	spawn_cred cred;
	uint32_t uid, gid;        /* the ids the sandbox sees (root mode: the host ids) */
	proc_facts proc;          /* the /proc entries to cover (host facts) */
	plan_data data[PLAN_MAX_DATA]; size_t n_data;
	strv masks;               /* host identity files of the view: /dev/null over them */
	placeholders made;        /* made for read-only rules; removed by plan_free */
	git_rules git;            /* read-only rules the repository's configuration asks
	                           * for (gitprotect.h), after the policy's */
	int env_fd;               /* runs: the command's environment; -1 for a session */
	int init_fd;
	int seccomp_fd;
	int passwd_fd, group_fd;
	plan_bind *binds; size_t n_binds;   /* ro binds first, then workspace */
	char *ws_dest;            /* NULL when the policy has no workspace */
	/* An overlay workspace (WS_OVERLAY): the workspace is bound read-only
	 * and the init mounts the overlay over it (helper/init-overlay.c); the
	 * upper layer's size in bytes. 0: no overlay. */
	uint64_t overlay_size;
	char *cwd;                /* working directory inside */
	strv env;                 /* the sandbox environment */
	bool session;             /* for a session: no environment memfd */
	uint64_t wall_ms;         /* plan_request's: the init's --deadline-ms */
	/* The sandbox's cgroup and what it enforces (sandbox-limits.h): set by
	 * launch_prepare after plan_build, which probes nothing; removed by
	 * plan_free unless a session took it over. */
	limits_state lim;
	/* "network allow": the filtering proxy, started by launch_prepare;
	 * its control socket goes to the init (--net-relay) in the fd slot
	 * after the session socket's. Stopped by plan_free unless a session
	 * took it over. */
	netproxy net;
} plan;

/* What the caller asks of the sandbox besides the policy. */
typedef struct plan_request {
	const char *const *envp;  /* the caller's environment; NULL: none */
	const char *cwd;          /* working directory inside; NULL: the workspace, else "/" */
	bool session;             /* a session (its commands bring their environment) */
	uint64_t wall_ms;         /* a run's wall limit, kept by its pid 1 too; 0: none */
} plan_request;

/* Refusals that depend on the policy alone, checked before anything else:
 * user code never runs as uid or gid 0. 0 or -OSB_E_POLICY. */
int plan_check_policy(const osb_policy *p, osb_error *err);

/* The identity mode P runs in on host H (host_mode), refused (-OSB_E_HOST,
 * stage "probe") when H cannot run it. *USERNS true for userns mode. */
int plan_mode(const osb_policy *p, const host_facts *h, bool *userns, osb_error *err);

/* Build the plan of P on host H. *IDS (hostid_acquire) moves into the plan,
 * whose plan_free releases it, on success and on failure alike. */
int plan_build(const osb_policy *p, const host_facts *h, hostid *ids, const plan_request *rq,
               plan *out, osb_error *err);
void plan_free(plan *pl);
/* An empty plan, which plan_free may be given: every fd member -1, no host
 * ids, no proxy (0 is fd 0, which is the caller's). plan_free leaves the
 * plan so. */
void plan_clear(plan *pl);

/* Is PATH, a directory above a bind destination, the host's own directory
 * in the sandbox (the host root or a bind), rather than one bwrap makes in
 * a fresh tmpfs? */
bool plan_host_parent(const plan *pl, const char *path);

/* What the plan puts at PATH, decided by the deepest mount at or above it
 * (with INCLUSIVE, a mount exactly at PATH counts): the host's (the host
 * root, a ro-bind, a bind), a fresh directory (a tmpfs, or bwrap's own root
 * under "root none"), or neither (dev, proc, hide). Symlinks are no place:
 * nothing may lie beneath one. */
enum plan_place { PLACE_HOST, PLACE_FRESH, PLACE_OTHER };
enum plan_place plan_place(const plan *pl, const char *path, bool inclusive);
static inline enum plan_place plan_place_of(const plan *pl, const char *path)
{
	return plan_place(pl, path, true);
}

/* Is PATH a mount point the plan makes (a policy mount or a bind)? */
bool plan_is_mount_point(const plan *pl, const char *path);

/* The fd number, in bwrap, of what follows the bind sources and the
 * synthesized files (a session's broker socket). */
static inline int plan_next_fd(const plan *pl)
{
	return PFD_FIRST_BIND + (int)(pl->n_binds + pl->n_data);
}

/* The fd number, in bwrap, of the proxy's control socket. */
static inline int plan_net_fd(const plan *pl)
{
	return plan_next_fd(pl) + 1;
}

/* Component-wise: is A equal to B or beneath it? Both normalized absolute
 * sandbox paths (policy strings), never host paths. */
bool dest_within(const char *a, const char *b);
/* Put "FILE:LINE: RULE: " before ERR's message, unless O is no file's rule
 * or the message names it already: a launch that fails because of a rule
 * says which. */
void plan_err_origin(osb_error *err, osb_origin o, const char *rule);

#endif /* OSB_PLAN_H */

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* bwrap.h — the launch plan and its rendering as bwrap's argv.
 *
 * plan_build() turns a policy plus the host into a plan: verified fds for
 * every bind source, the synthesized identity files, the seccomp program, the
 * sandbox environment, and the fd numbers each of them will have in bwrap.
 * plan_argv() renders the plan in a fixed segment order, independent of the
 * order of directives in the policy file.
 */
#ifndef OSB_BWRAP_H
#define OSB_BWRAP_H

#include "internal.h"
#include "hostid.h"
#include "proc.h"

typedef struct bwrap_features {
	bool bind_fd;          /* --bind-fd and --ro-bind-fd */
	bool disable_userns;
	bool json_status_fd;
	bool die_with_parent;
	bool new_session;
	bool remount_ro;
} bwrap_features;

/* Locate bwrap: the configure-time path, else OSB_ISOLATE_BWRAP, else PATH. */
int bwrap_locate(char **path, osb_error *err);
/* Parse the options bwrap --help lists (never its version). */
int bwrap_probe_features(const char *bwrap, bwrap_features *f, osb_error *err);
/* Parse --help text; exposed for tests. */
void bwrap_parse_help(const char *text, bwrap_features *f);
/* Does --help text HELP list option OPT, by its exact name? (The capabilities
 * probe reports every option it knows of, not only those the plan needs.) */
bool bwrap_help_lists(const char *help, const char *opt);

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
	bool reprotect;       /* read-only rule inside a writable bind: bound after it */
	dev_t dev;            /* the source's device and inode, which the init */
	ino_t ino;            /* finds at DEST before the command runs */
	osb_origin o;
} plan_bind;

/* An empty directory the plan made in a writable bind so that a read-only
 * rule protects a path that did not exist yet (a workspace without .git);
 * removed once the sandbox is gone, if it is still that empty directory. */
typedef struct placeholder {
	int parent_fd;        /* O_PATH of the directory it was made in */
	char *name;
	dev_t dev;
	ino_t ino;
} placeholder;

typedef struct placeholders {
	placeholder *v;
	size_t n;
	int *held;            /* shared flocks on every path read-only rules bind */
	size_t n_held;
} placeholders;

/* Let go of the shared locks, then remove the placeholders made, last made
 * first: only empty directories that are still the ones made and that no
 * other live sandbox binds (it holds a shared lock on them; the placeholder
 * then stays, empty), and free PH. */
void placeholders_remove(placeholders *ph);

/* /proc entries to cover (DESIGN §3 "Paths and mounts"): those of each
 * table that exist on this host's /proc (a kernel may lack kcore, acpi...). */
typedef struct proc_facts {
	strv ro;                  /* bound read-only over themselves */
	strv mask_files;          /* /dev/null bound over them */
	strv mask_dirs;           /* an empty read-only tmpfs over them */
} proc_facts;

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
	char *bwrap;
	bwrap_features feat;
	bool userns;              /* mode: true = user namespace view */
	hostid host;              /* the sandbox's host ids (and their lock) */
	bool use_cred;            /* bwrap starts as CRED (a root caller's userns mode) */
	spawn_cred cred;
	uint32_t uid, gid;        /* the ids the sandbox sees (root mode: the host ids) */
	proc_facts proc;
	plan_data data[PLAN_MAX_DATA]; size_t n_data;
	strv masks;               /* host identity files of the view: /dev/null over them */
	placeholders made;        /* made for read-only rules; removed by plan_free */
	int env_fd;               /* runs: the command's environment; -1 for a session */
	int init_fd;
	int seccomp_fd;
	int passwd_fd, group_fd;
	plan_bind *binds; size_t n_binds;   /* ro binds first, then workspace */
	char *ws_dest;            /* NULL when the policy has no workspace */
	char *cwd;                /* working directory inside */
	strv env;                 /* the sandbox environment */
	strv cmd;                 /* the command argv (unused for a session) */
	bool session;             /* the init serves a session instead of CMD */
	uint64_t idle_ms;         /* session: idle timeout, 0 for none */
} plan;

/* Build the plan. ENVP is the caller's environment (may be NULL), CWD the
 * requested working directory inside (NULL: the workspace, else "/"). */
int plan_build(const osb_policy *p, const char *const *cmd, const char *const *envp,
               const char *cwd, bool session, plan *out, osb_error *err);
void plan_free(plan *pl);
/* The full bwrap argv (argv[0] is the bwrap path). */
int plan_argv(const plan *pl, strv *argv, osb_error *err);

/* 0 when the sandbox's bwrap can create a user namespace here (for a root
 * caller: as an unprivileged host id), else -errno (cached). */
int plan_userns_available(void);

/* Is PATH, a directory above a bind destination, the host's own directory
 * in the sandbox (the host root or a bind), rather than one bwrap makes in
 * a fresh tmpfs? */
bool plan_host_parent(const plan *pl, const char *path);

/* What the plan puts at PATH, decided by the deepest mount at or above it:
 * the host's (the host root, a ro-bind, a bind), a fresh directory (a
 * tmpfs, or bwrap's own root under "root none"), or neither (dev, proc,
 * hide). Symlinks are no place: nothing may lie beneath one. */
enum plan_place { PLACE_HOST, PLACE_FRESH, PLACE_OTHER };
enum plan_place plan_place_of(const plan *pl, const char *path);

/* The fd number, in bwrap, of what follows the bind sources and the
 * synthesized files (a session's broker socket). */
static inline int plan_next_fd(const plan *pl)
{
	return PFD_FIRST_BIND + (int)(pl->n_binds + pl->n_data);
}

/* Component-wise: is A equal to B or beneath it? Both normalized absolute
 * sandbox paths (policy strings), never host paths. */
bool dest_within(const char *a, const char *b);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* filter.h — the seccomp stage of the launch plan (filter.c).
 *
 * plan.c asks for the policy's filter as a sealed memfd holding classic BPF
 * (bwrap's --seccomp/--add-seccomp-fd reads it); explain and the tests ask
 * for the same filter as libseccomp's readable PFC text. The filter is a
 * named, versioned deny group; a group is plain data (sc_rule[]) so that
 * policy directives can edit the set before it is compiled. A policy picks
 * its group by name ("seccomp osb-default-1"); without one it gets the
 * newest, and a group never changes once released. Building never
 * degrades: any rule that cannot be added is an OSB_E_SECCOMP error in
 * stage "seccomp", never a partial or empty filter.
 */
#ifndef OSB_FILTER_H
#define OSB_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#include <seccomp.h>

#include "osb-isolate.h"

/* Which calls of a syscall a rule denies. */
enum sc_args {
	SC_ARGS_ANY,            /* every call */
	SC_ARGS_CLONE_NS,       /* clone with any CLONE_NEW* flag */
	SC_ARGS_TTY_INJECT,     /* ioctl TIOCSTI / TIOCLINUX */
	SC_ARGS_SOCKET_FAMILY,  /* socket/socketpair outside UNIX/INET/INET6/NETLINK,
	                         * and (AF_INET, SOCK_PACKET) */
	SC_ARGS_PERSONALITY,    /* personality outside 0, PER_LINUX32,
	                         * ADDR_NO_RANDOMIZE, both, 0xffffffff (query) */
	SC_ARGS_SOCKET,         /* as SC_ARGS_SOCKET_FAMILY, and netlink other than
	                         * NETLINK_ROUTE, and IPPROTO_MPTCP on AF_INET or
	                         * AF_INET6; for groups that deny what they do not
	                         * know (values the kernel refuses itself, such
	                         * as families from 64, are left to ENOSYS) */
	SC_ARGS_SOCKETPAIR,     /* socketpair outside AF_UNIX (likewise) */
	SC_ARGS_SETID_MODE,     /* a mode with S_ISUID or S_ISGID: chmod, fchmod,
	                         * fchmodat, fchmodat2, creat, mknod, mknodat, and
	                         * open and openat with O_CREAT or O_TMPFILE */
};

typedef struct sc_rule {
	const char *name;       /* syscall name as libseccomp spells it */
	int errnum;             /* EPERM, or ENOSYS where callers must fall back */
	enum sc_args args;
} sc_rule;

/* A deny group. With DENY_UNKNOWN the filter's default answer is ENOSYS
 * and every call libseccomp knows is allowed except by RULES, so that a
 * call newer than libseccomp's table (or any unassigned number) fails with
 * ENOSYS, as for a kernel that lacks it; without, the default is to allow
 * (osb-default-1). */
typedef struct sc_group {
	const char *name;       /* "osb-default-3" */
	unsigned version;       /* 3: what a policy's sc_group holds */
	const sc_rule *rules;
	size_t n;
	bool deny_unknown;
} sc_group;

/* Every group, oldest first; the last is the default. */
const sc_group *seccomp_groups(size_t *n);
/* The group named NAME, or NULL. */
const sc_group *seccomp_group_find(const char *name);
/* The group P loads: its "seccomp GROUP" choice, else (P NULL or no
 * choice) the default group. */
const sc_group *seccomp_policy_group(const osb_policy *p);
/* The default group's name ("osb-default-3"). */
const char *seccomp_group_name(void);

/* Compile POLICY's filter (NULL: the default group) into a memfd
 * (MFD_CLOEXEC|MFD_ALLOW_SEALING) sealed against write, grow, shrink and
 * further seals, offset at 0. On success *FD_OUT owns the fd. The policy's
 * group is edited by its rules: "seccomp allow" drops names from it,
 * "seccomp deny" denies every call of a name with its errno. Under
 * "seccomp none" it returns 0 with *FD_OUT == -1: no filter, and the plan
 * passes no --seccomp-fd. Never an empty filter: a rule set emptied by
 * allow rules, or deny rules under "seccomp none", are OSB_E_SECCOMP
 * errors. */
int seccomp_build_fd(const osb_policy *p, int *fd_out, osb_error *err);

/* True when a policy's filter is its group as compiled at build time
 * (lib/seccomp-default.h): P loads a group without editing it, and the
 * libseccomp found at run time is the one that compiled the groups. Then
 * seccomp_build_fd copies that program instead of compiling. */
bool seccomp_policy_prebuilt(const osb_policy *p);

/* The same filter as libseccomp PFC text (malloc'd, NUL-terminated); under
 * "seccomp none", one comment line saying no filter is loaded. */
int seccomp_export_text(const osb_policy *p, char **out, osb_error *err);

/* Build a group as it stands (G's name is used in error messages). */
int seccomp_build_fd_group(const sc_group *g, int *fd_out, osb_error *err);
int seccomp_export_text_group(const sc_group *g, char **out, osb_error *err);

/* The filter as a reviewer reads it (explain --host): per architecture
 * the filter covers, the answer of every call it names or (for a group that
 * denies what it does not know) every call libseccomp knows there, sorted
 * by name, from the rule table, never from libseccomp's output. */
typedef struct sc_call {
	char *name;
	const char *action;     /* "EPERM", "ENOSYS", "ALLOW" (static) */
	bool by_args;           /* only some argument values get ACTION */
} sc_call;

typedef struct sc_arch {
	const char *name;       /* "x86_64" (libseccomp's, static) */
	const char *fallback;   /* every other call: "ALLOW" or "ENOSYS" */
	sc_call *calls; size_t n;
} sc_arch;

#define SC_VIEW_MAX_ARCHES 4
typedef struct sc_view {
	sc_arch arches[SC_VIEW_MAX_ARCHES]; size_t n_arches;   /* none: "seccomp none" */
} sc_view;

int seccomp_describe(const osb_policy *p, sc_view *out, osb_error *err);
void seccomp_view_free(sc_view *v);

/* Libseccomp's syscall numbers are scanned below this bound (plus the x32
 * bit for x32) to find every call it knows. */
#define SC_SCAN_MAX 1024

#endif /* OSB_FILTER_H */

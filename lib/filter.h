/* filter.h — the seccomp stage of the launch plan.
 *
 * plan.c asks for the policy's filter as a sealed memfd holding classic BPF
 * (bwrap's --seccomp/--add-seccomp-fd reads it); explain and the tests ask
 * for the same filter as libseccomp's readable PFC text. The filter is
 * default-allow with a named, versioned deny group; a group is plain data
 * (sc_rule[]) so that policy directives can edit the set before it is
 * compiled. Building never degrades: any rule that cannot be added is an
 * OSB_E_SECCOMP error in stage "seccomp", never a partial or empty filter.
 */
#ifndef OSB_SECCOMP_H
#define OSB_SECCOMP_H

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
};

typedef struct sc_rule {
	const char *name;       /* syscall name as libseccomp spells it */
	int errnum;             /* EPERM, or ENOSYS where callers must fall back */
	enum sc_args args;
} sc_rule;

/* Compile POLICY's filter (NULL: the default group) into a memfd
 * (MFD_CLOEXEC|MFD_ALLOW_SEALING) sealed against write, grow, shrink and
 * further seals, offset at 0. On success *FD_OUT owns the fd. The policy's
 * "seccomp allow" rules drop names from the default group, its "seccomp
 * deny" rules deny every call of a name with their errno. Under "seccomp
 * none" it returns 0 with *FD_OUT == -1: no filter, and the plan passes no
 * --seccomp-fd. Never an empty filter: a rule set emptied by allow rules,
 * or deny rules under "seccomp none", are OSB_E_SECCOMP errors. */
int seccomp_build_fd(const osb_policy *p, int *fd_out, osb_error *err);

/* True when seccomp_build_fd serves the default group (a policy without
 * seccomp rules) from the program compiled at build time (lib/seccomp-
 * default.h) rather than compiling it: the libseccomp found at run time is
 * the one that compiled it. */
bool seccomp_default_prebuilt(void);

/* The same filter as libseccomp PFC text (malloc'd, NUL-terminated); under
 * "seccomp none", one comment line saying no filter is loaded. */
int seccomp_export_text(const osb_policy *p, char **out, osb_error *err);

/* "osb-default-1": the name and version of the default deny group. */
const char *seccomp_group_name(void);

/* The default group as data (N rules). */
const sc_rule *seccomp_default_group(size_t *n);

/* Build from an explicit rule set; GROUP names it in error messages. */
int seccomp_build_fd_from(const char *group, const sc_rule *rules, size_t n,
                          int *fd_out, osb_error *err);
int seccomp_export_text_from(const char *group, const sc_rule *rules, size_t n,
                             char **out, osb_error *err);

#endif /* OSB_SECCOMP_H */

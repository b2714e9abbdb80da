/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* filter.c — the seccomp filter the in-sandbox init loads before exec.
 *
 * The filter is built with libseccomp, never by hand, from a named and
 * versioned deny group kept as a data table below, so that a policy
 * directive can add or drop entries before the table is compiled. Every
 * rule that cannot be added — an unknown syscall name, a libseccomp
 * refusal — fails the whole build; a partial or empty filter would look
 * like protection and be none. The compat ABIs (i386 and x32 on x86_64)
 * are added before any rule so that the same rules cover them; any ABI not
 * added is killed by the bad-architecture action. The result goes to the
 * launch plan as classic BPF in a sealed memfd, and to explain and the
 * tests as libseccomp's PFC text.
 *
 * Groups. A released group never changes: a policy that names one
 * ("seccomp osb-default-1") keeps the filter it was reviewed with, and a
 * change to the rules is a new group. osb-default-1 allows every call it
 * does not deny, so calls newer than libseccomp's table (for libseccomp
 * 2.5.4 on Linux 6.15+: listmount, statmount, mseal, setxattrat,
 * open_tree_attr, file_getattr, ...) and numbers no kernel has yet are
 * allowed. osb-default-2, the default, denies what it does not know, the
 * rule of Docker's default profile and systemd's @known: its default answer
 * is ENOSYS (what a kernel without the call says, so programs fall back),
 * and every call libseccomp knows is allowed by name unless a rule denies
 * it. A kernel newer than libseccomp cannot open a hole. It also denies
 * modify_ldt, fanotify_init, memfd_secret, netlink sockets other than
 * NETLINK_ROUTE and MPTCP sockets. osb-default-3, the default, also refuses
 * set-user-ID and set-group-ID modes: the workspace is a host directory, and
 * a program made setuid there runs, on the host, with the sandbox's host ids
 * for whoever starts it (the nosuid mount guards only the inside). Every
 * call that gives a file its mode refuses a mode with either bit (EPERM);
 * openat2 keeps its flags and mode in memory and answers ENOSYS, so that
 * programs fall back to openat. mkdir is left alone: the kernel keeps only
 * the permission and sticky bits of its mode, so a setgid directory can
 * only come from chmod, which is refused.
 *
 * Under a default of ENOSYS a rule that looks at arguments must spell out
 * both sides: libseccomp lets a call whose arguments match none of its
 * rules fall through to the default, and a rule that matches every call of
 * a syscall replaces its argument rules (or refuses to be added). So each
 * argument rule is a partition: deny rules for the refused values, allow
 * rules for the others, every comparison a masked equality within the 32
 * bits the kernel reads (see deny_outside and add_outside), the rules of
 * different answers disjoint. Values the kernel gives no meaning and
 * refuses itself (a socket family from 64, an IP protocol from 256) are
 * left to the ENOSYS default: fewer rules, and libseccomp's compile time
 * grows with the square of their number.
 *
 * A policy edits its group before it is compiled: "seccomp allow NAME"
 * removes NAME's rule, "seccomp deny NAME [errno=E]" replaces or adds a rule
 * denying every call of NAME, and "seccomp none" asks for no filter at all
 * (the only way to get none: a set that allow rules have emptied is an
 * error, not an empty filter).
 *
 * Every group is compiled once at build time (lib/gen-default-filter, into
 * lib/seccomp-default.h) through this same code; a launch of a policy that
 * does not edit its group copies that program into its memfd instead of
 * spending milliseconds compiling it again, unless the libseccomp found at
 * run time is not the one that compiled it.
 *
 * Limits a reviewer should know: argument rules look at registers only;
 * arguments passed in memory (clone3's flags, socketcall's arguments,
 * openat2's flags and mode) cannot be inspected, which is why clone3,
 * socketcall and (from osb-default-3) openat2 are denied whole.
 */
#include "policy.h"
#include "filter.h"

#include <seccomp.h>

#include <fcntl.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/stat.h>

#ifndef OSB_SECCOMP_GENERATOR
/* A group's program as compiled at build time (lib/gen-default-filter). */
typedef struct prebuilt_program {
	const char *group;
	const unsigned char *bpf;
	size_t len;
} prebuilt_program;
#include "seccomp-default.h"
#endif

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

/* What a policy's edits add to its group's name in messages. */
#define POLICY_SUFFIX "+policy"
/* The kernel reads these arguments as 32-bit ints and ignores the upper
 * half of the register; comparisons mask with this so that setting high
 * bits cannot dodge a rule. */
#define LOW32 0xffffffffULL
/* Classic BPF instruction size: a valid program is a non-empty multiple. */
#define BPF_INSN_SIZE 8
#define PFC_MAX (16u << 20)
/* The x32 ABI's system call numbers carry this bit (__X32_SYSCALL_BIT). */
#define X32_SYSCALL_BIT 0x40000000
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* osb-default-1: released, frozen. Default allow. */
static const sc_rule group_v1[] = {
	/* Mounts: bwrap has already built the sandbox's view; user code has no
	 * business changing it, even where a user namespace would allow it. */
	{ "mount", EPERM, SC_ARGS_ANY },
	{ "umount", EPERM, SC_ARGS_ANY },          /* i386 only */
	{ "umount2", EPERM, SC_ARGS_ANY },
	{ "pivot_root", EPERM, SC_ARGS_ANY },
	{ "chroot", EPERM, SC_ARGS_ANY },
	/* The new mount API: ENOSYS so that tools fall back to mount(2),
	 * which is denied above with a clear EPERM. */
	{ "fsopen", ENOSYS, SC_ARGS_ANY },
	{ "fsconfig", ENOSYS, SC_ARGS_ANY },
	{ "fsmount", ENOSYS, SC_ARGS_ANY },
	{ "fspick", ENOSYS, SC_ARGS_ANY },
	{ "move_mount", ENOSYS, SC_ARGS_ANY },
	{ "open_tree", ENOSYS, SC_ARGS_ANY },
	{ "mount_setattr", ENOSYS, SC_ARGS_ANY },
	/* Namespaces: new ones are the entry to most kernel attack surface
	 * reachable without privilege. clone3 keeps its flags in memory, out
	 * of the filter's reach: deny it whole with ENOSYS, and libc falls
	 * back to clone, whose flags are checked one namespace bit at a time. */
	{ "unshare", EPERM, SC_ARGS_ANY },
	{ "setns", EPERM, SC_ARGS_ANY },
	{ "clone", EPERM, SC_ARGS_CLONE_NS },
	{ "clone3", ENOSYS, SC_ARGS_ANY },
	/* Typing into, or driving, a terminal the sandbox shares. */
	{ "ioctl", EPERM, SC_ARGS_TTY_INJECT },
	/* io_uring performs syscalls the filter never sees. */
	{ "io_uring_setup", ENOSYS, SC_ARGS_ANY },
	{ "io_uring_enter", ENOSYS, SC_ARGS_ANY },
	{ "io_uring_register", ENOSYS, SC_ARGS_ANY },
	/* Kernel exploitation primitives and introspection of other processes. */
	{ "userfaultfd", EPERM, SC_ARGS_ANY },
	{ "perf_event_open", EPERM, SC_ARGS_ANY },
	{ "bpf", EPERM, SC_ARGS_ANY },
	{ "ptrace", EPERM, SC_ARGS_ANY },
	{ "process_vm_readv", EPERM, SC_ARGS_ANY },
	{ "process_vm_writev", EPERM, SC_ARGS_ANY },
	{ "kcmp", EPERM, SC_ARGS_ANY },
	{ "pidfd_getfd", EPERM, SC_ARGS_ANY },
	/* Kernel keyrings are not namespaced by bwrap. */
	{ "keyctl", EPERM, SC_ARGS_ANY },
	{ "add_key", EPERM, SC_ARGS_ANY },
	{ "request_key", EPERM, SC_ARGS_ANY },
	/* Whole-machine state. */
	{ "kexec_load", EPERM, SC_ARGS_ANY },
	{ "kexec_file_load", EPERM, SC_ARGS_ANY },
	{ "init_module", EPERM, SC_ARGS_ANY },
	{ "finit_module", EPERM, SC_ARGS_ANY },
	{ "delete_module", EPERM, SC_ARGS_ANY },
	{ "reboot", EPERM, SC_ARGS_ANY },
	{ "swapon", EPERM, SC_ARGS_ANY },
	{ "swapoff", EPERM, SC_ARGS_ANY },
	{ "acct", EPERM, SC_ARGS_ANY },
	{ "quotactl", EPERM, SC_ARGS_ANY },
	{ "quotactl_fd", EPERM, SC_ARGS_ANY },
	/* Clock setters (the 64-bit-time variants and stime are i386 only).
	 * adjtimex stays allowed: programs call it with modes 0 to read the
	 * clock state, its mode word is in memory, and setting anything
	 * needs CAP_SYS_TIME, which the sandbox never has. */
	{ "clock_settime", EPERM, SC_ARGS_ANY },
	{ "clock_settime64", EPERM, SC_ARGS_ANY },
	{ "clock_adjtime", EPERM, SC_ARGS_ANY },
	{ "clock_adjtime64", EPERM, SC_ARGS_ANY },
	{ "settimeofday", EPERM, SC_ARGS_ANY },
	{ "stime", EPERM, SC_ARGS_ANY },
	/* File handles bypass path-based confinement. */
	{ "name_to_handle_at", EPERM, SC_ARGS_ANY },
	{ "open_by_handle_at", EPERM, SC_ARGS_ANY },
	/* Obsolete or host-global interfaces. */
	{ "lookup_dcookie", EPERM, SC_ARGS_ANY },
	{ "nfsservctl", EPERM, SC_ARGS_ANY },
	{ "vhangup", EPERM, SC_ARGS_ANY },
	{ "syslog", EPERM, SC_ARGS_ANY },
	/* Socket families beyond UNIX, INET, INET6 and NETLINK are rarely
	 * needed and a recurring source of kernel bugs. socketcall (i386)
	 * passes the family in memory, so it is denied whole. */
	{ "socket", EPERM, SC_ARGS_SOCKET_FAMILY },
	{ "socketpair", EPERM, SC_ARGS_SOCKET_FAMILY },
	{ "socketcall", EPERM, SC_ARGS_ANY },
	/* READ_IMPLIES_EXEC and friends weaken memory protections. */
	{ "personality", EPERM, SC_ARGS_PERSONALITY },
	/* Not here on purpose: seccomp, prctl and landlock_* only restrict
	 * further, and nested sandboxes need them. */
};

/* osb-default-2's rules, shared with osb-default-3 (a released group never
 * changes: osb-default-3 adds rules after them). */
#define GROUP_V2_RULES \
	{ "mount", EPERM, SC_ARGS_ANY }, \
	{ "umount", EPERM, SC_ARGS_ANY }, \
	{ "umount2", EPERM, SC_ARGS_ANY }, \
	{ "pivot_root", EPERM, SC_ARGS_ANY }, \
	{ "chroot", EPERM, SC_ARGS_ANY }, \
	{ "fsopen", ENOSYS, SC_ARGS_ANY }, \
	{ "fsconfig", ENOSYS, SC_ARGS_ANY }, \
	{ "fsmount", ENOSYS, SC_ARGS_ANY }, \
	{ "fspick", ENOSYS, SC_ARGS_ANY }, \
	{ "move_mount", ENOSYS, SC_ARGS_ANY }, \
	{ "open_tree", ENOSYS, SC_ARGS_ANY }, \
	{ "mount_setattr", ENOSYS, SC_ARGS_ANY }, \
	{ "unshare", EPERM, SC_ARGS_ANY }, \
	{ "setns", EPERM, SC_ARGS_ANY }, \
	{ "clone", EPERM, SC_ARGS_CLONE_NS }, \
	{ "clone3", ENOSYS, SC_ARGS_ANY }, \
	{ "ioctl", EPERM, SC_ARGS_TTY_INJECT }, \
	{ "io_uring_setup", ENOSYS, SC_ARGS_ANY }, \
	{ "io_uring_enter", ENOSYS, SC_ARGS_ANY }, \
	{ "io_uring_register", ENOSYS, SC_ARGS_ANY }, \
	{ "userfaultfd", EPERM, SC_ARGS_ANY }, \
	{ "perf_event_open", EPERM, SC_ARGS_ANY }, \
	{ "bpf", EPERM, SC_ARGS_ANY }, \
	{ "ptrace", EPERM, SC_ARGS_ANY }, \
	{ "process_vm_readv", EPERM, SC_ARGS_ANY }, \
	{ "process_vm_writev", EPERM, SC_ARGS_ANY }, \
	{ "kcmp", EPERM, SC_ARGS_ANY }, \
	{ "pidfd_getfd", EPERM, SC_ARGS_ANY }, \
	{ "keyctl", EPERM, SC_ARGS_ANY }, \
	{ "add_key", EPERM, SC_ARGS_ANY }, \
	{ "request_key", EPERM, SC_ARGS_ANY }, \
	{ "kexec_load", EPERM, SC_ARGS_ANY }, \
	{ "kexec_file_load", EPERM, SC_ARGS_ANY }, \
	{ "init_module", EPERM, SC_ARGS_ANY }, \
	{ "finit_module", EPERM, SC_ARGS_ANY }, \
	{ "delete_module", EPERM, SC_ARGS_ANY }, \
	{ "reboot", EPERM, SC_ARGS_ANY }, \
	{ "swapon", EPERM, SC_ARGS_ANY }, \
	{ "swapoff", EPERM, SC_ARGS_ANY }, \
	{ "acct", EPERM, SC_ARGS_ANY }, \
	{ "quotactl", EPERM, SC_ARGS_ANY }, \
	{ "quotactl_fd", EPERM, SC_ARGS_ANY }, \
	{ "clock_settime", EPERM, SC_ARGS_ANY }, \
	{ "clock_settime64", EPERM, SC_ARGS_ANY }, \
	{ "clock_adjtime", EPERM, SC_ARGS_ANY }, \
	{ "clock_adjtime64", EPERM, SC_ARGS_ANY }, \
	{ "settimeofday", EPERM, SC_ARGS_ANY }, \
	{ "stime", EPERM, SC_ARGS_ANY }, \
	{ "name_to_handle_at", EPERM, SC_ARGS_ANY }, \
	{ "open_by_handle_at", EPERM, SC_ARGS_ANY }, \
	{ "lookup_dcookie", EPERM, SC_ARGS_ANY }, \
	{ "nfsservctl", EPERM, SC_ARGS_ANY }, \
	{ "vhangup", EPERM, SC_ARGS_ANY }, \
	{ "syslog", EPERM, SC_ARGS_ANY }, \
	/* Netlink beyond NETLINK_ROUTE (what getaddrinfo and ip need) reaches \
	 * audit, uevents, netfilter, xfrm, socket diagnostics...; MPTCP is a \
	 * recent and large protocol. Both are kernel surface a command rarely \
	 * needs. */ \
	{ "socket", EPERM, SC_ARGS_SOCKET }, \
	/* Only AF_UNIX has socket pairs; the other families create sockets \
	 * (loading their modules) before saying EOPNOTSUPP. */ \
	{ "socketpair", EPERM, SC_ARGS_SOCKETPAIR }, \
	{ "socketcall", EPERM, SC_ARGS_ANY }, \
	{ "personality", EPERM, SC_ARGS_PERSONALITY }, \
	/* 16-bit code segments and a source of kernel bugs; nothing 64-bit \
	 * needs its own LDT (Wine and DOS emulators do). */ \
	{ "modify_ldt", EPERM, SC_ARGS_ANY }, \
	/* Watching file-system events of whole mounts and file systems. */ \
	{ "fanotify_init", EPERM, SC_ARGS_ANY }, \
	/* Memory the kernel itself cannot read: hides what a command does \
	 * from inspection. */ \
	{ "memfd_secret", EPERM, SC_ARGS_ANY }, \
	/* end of GROUP_V2_RULES */

/* osb-default-2: default ENOSYS (every call libseccomp does not know), and
 * osb-default-1's rules, for the same reasons, with the changes that
 * GROUP_V2_RULES above spells out. */
static const sc_rule group_v2[] = {
	GROUP_V2_RULES
};

/* osb-default-3: osb-default-2's rules, for the same reasons, and: */
static const sc_rule group_v3[] = {
	GROUP_V2_RULES
	/* Set-user-ID and set-group-ID files: a workspace is a host directory,
	 * and a file made setuid or setgid there runs on the host with the
	 * sandbox's host ids (allocated ids later sandboxes get again, or an
	 * unprivileged caller's own) for any user who starts it. Every call
	 * that sets a mode refuses those bits. openat2's mode is in memory: it
	 * answers ENOSYS and libc's callers fall back to openat. */
	{ "chmod", EPERM, SC_ARGS_SETID_MODE },
	{ "fchmod", EPERM, SC_ARGS_SETID_MODE },
	{ "fchmodat", EPERM, SC_ARGS_SETID_MODE },
	{ "fchmodat2", EPERM, SC_ARGS_SETID_MODE },
	{ "creat", EPERM, SC_ARGS_SETID_MODE },
	{ "open", EPERM, SC_ARGS_SETID_MODE },
	{ "openat", EPERM, SC_ARGS_SETID_MODE },
	{ "mknod", EPERM, SC_ARGS_SETID_MODE },
	{ "mknodat", EPERM, SC_ARGS_SETID_MODE },
	{ "openat2", ENOSYS, SC_ARGS_ANY },
};

static const sc_group groups[] = {
	{ "osb-default-1", 1, group_v1, N_OF(group_v1), false },
	{ "osb-default-2", 2, group_v2, N_OF(group_v2), true },
	{ "osb-default-3", 3, group_v3, N_OF(group_v3), true },
};

/* A mode rule for a call libseccomp does not know (fchmodat2, Linux 6.6,
 * in a libseccomp whose table predates it), in a group that answers ENOSYS
 * to what it does not know: that default is its answer, and glibc falls
 * back to fchmodat, which has the rule. */
static bool setid_left_to_default(bool deny_unknown, const sc_rule *r)
{
	return deny_unknown && r->args == SC_ARGS_SETID_MODE;
}

typedef struct build {
	scmp_filter_ctx ctx;
	const char *group;
	bool deny_unknown;      /* the group's default answer is ENOSYS */
	osb_error *err;
} build;

const sc_group *seccomp_groups(size_t *n)
{
	*n = N_OF(groups);
	return groups;
}

const sc_group *seccomp_group_find(const char *name)
{
	for (size_t i = 0; i < N_OF(groups); i++)
		if (strcmp(groups[i].name, name) == 0)
			return &groups[i];
	return NULL;
}

const sc_group *seccomp_policy_group(const osb_policy *p)
{
	if (!p || p->sc_group == 0)
		return &groups[N_OF(groups) - 1];
	for (size_t i = 0; i < N_OF(groups); i++)
		if (groups[i].version == p->sc_group)
			return &groups[i];
	return NULL;
}

const char *osb_seccomp_group(size_t i, int *denies_unknown)
{
	if (i >= N_OF(groups))
		return NULL;
	if (denies_unknown)
		*denies_unknown = groups[i].deny_unknown;
	return groups[i].name;
}

int osb_seccomp_group_denies(const char *group, const char *name, int *errnum)
{
	const sc_group *g = group && name ? seccomp_group_find(group) : NULL;

	if (errnum)
		*errnum = 0;
	if (!g)
		return -OSB_E_USAGE;
	for (size_t i = 0; i < g->n; i++)
		if (strcmp(g->rules[i].name, name) == 0) {
			if (setid_left_to_default(g->deny_unknown, &g->rules[i]) &&
			    seccomp_syscall_resolve_name(name) == __NR_SCMP_ERROR)
				break;
			if (errnum)
				*errnum = g->rules[i].errnum;
			return g->rules[i].args == SC_ARGS_ANY ? 1 : 2;
		}
	/* Not in the table: allowed by name, unless libseccomp does not know it
	 * and the group answers ENOSYS to what it does not know. */
	if (!g->deny_unknown || seccomp_syscall_resolve_name(name) != __NR_SCMP_ERROR)
		return 0;
	if (errnum)
		*errnum = ENOSYS;
	return 1;
}

const char *seccomp_group_name(void)
{
	return seccomp_policy_group(NULL)->name;
}

/* Compat ABIs the native kernel may run. Adding them gives them the same
 * rules; leaving one out is still safe (bad-arch action kills the caller)
 * but breaks programs built for it. */
static const uint32_t *compat_arches(size_t *n)
{
	static const uint32_t x86_64[] = { SCMP_ARCH_X86, SCMP_ARCH_X32 };
	static const uint32_t aarch64[] = { SCMP_ARCH_ARM };
	static const uint32_t s390x[] = { SCMP_ARCH_S390 };
	static const uint32_t ppc64[] = { SCMP_ARCH_PPC };

	switch (seccomp_arch_native()) {
	case SCMP_ARCH_X86_64:
		*n = 2;
		return x86_64;
	case SCMP_ARCH_AARCH64:
		*n = 1;
		return aarch64;
	case SCMP_ARCH_S390X:
		*n = 1;
		return s390x;
	case SCMP_ARCH_PPC64:
		*n = 1;
		return ppc64;
	default:
		*n = 0;
		return NULL;
	}
}

/* clone's flags are its first argument on the x86 family (and most
 * others); s390 swaps the first two (CLONE_BACKWARDS2). The x86 family is
 * the one tested. */
static unsigned clone_flags_arg(void)
{
	uint32_t a = seccomp_arch_native();

	return (a == SCMP_ARCH_S390X || a == SCMP_ARCH_S390) ? 1 : 0;
}

static int fail(build *b, int sys_errno, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Every message starts with the group, so a reader knows which set of
 * rules failed; callers say what failed and what to do. */
static int fail(build *b, int sys_errno, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return osb_err_set(b->err, OSB_E_SECCOMP, sys_errno, "seccomp",
	                   "seccomp group %s: %s", b->group, msg);
}

static const char *libseccomp_version(char *buf, size_t size)
{
	const struct scmp_version *sv = seccomp_version();

	snprintf(buf, size, "%u.%u.%u", sv->major, sv->minor, sv->micro);
	return buf;
}

static int ctx_new(build *b)
{
	size_t n;
	const uint32_t *arches = compat_arches(&n);
	int rc;

	b->ctx = seccomp_init(b->deny_unknown ? SCMP_ACT_ERRNO(ENOSYS) : SCMP_ACT_ALLOW);
	if (!b->ctx)
		return fail(b, ENOMEM, "seccomp_init failed; check that libseccomp "
		            "works here and memory is available");
	/* Raw kernel return codes first, so later errors are meaningful. */
	rc = seccomp_attr_set(b->ctx, SCMP_FLTATR_API_SYSRAWRC, 1);
	if (rc == 0)
		rc = seccomp_attr_set(b->ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (rc == 0)
		rc = seccomp_attr_set(b->ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (rc < 0)
		return fail(b, -rc, "setting the filter attributes failed: %s; "
		            "libseccomp 2.5 or newer is required", strerror(-rc));
	/* Before any rule: rules added earlier are not copied to new arches. */
	for (size_t i = 0; i < n; i++) {
		rc = seccomp_arch_add(b->ctx, arches[i]);
		if (rc < 0 && rc != -EEXIST)
			return fail(b, -rc, "adding compat architecture 0x%x failed: %s; "
			            "this libseccomp cannot filter that ABI",
			            (unsigned)arches[i], strerror(-rc));
	}
	return 0;
}

static int add_action(build *b, const sc_rule *r, uint32_t action, int nr, unsigned n_cmp,
                      const struct scmp_arg_cmp *cmp)
{
	int rc = seccomp_rule_add_array(b->ctx, action, nr, n_cmp, cmp);

	if (rc < 0)
		return fail(b, -rc, "libseccomp refused the rule for %s: %s; "
		            "no filter was built", r->name, strerror(-rc));
	return 0;
}

/* Deny the calls matching CMP with R's errno. Where the default answer is
 * ENOSYS, an ENOSYS rule is the default itself (libseccomp refuses it):
 * leaving those calls unmatched gives them ENOSYS. */
static int add(build *b, const sc_rule *r, int nr, unsigned n_cmp,
               const struct scmp_arg_cmp *cmp)
{
	if (b->deny_unknown && r->errnum == ENOSYS)
		return 0;
	return add_action(b, r, SCMP_ACT_ERRNO((uint32_t)r->errnum), nr, n_cmp, cmp);
}

/* Allow the calls matching CMP (groups that deny what they do not know). */
static int allow(build *b, const sc_rule *r, int nr, unsigned n_cmp,
                 const struct scmp_arg_cmp *cmp)
{
	return add_action(b, r, SCMP_ACT_ALLOW, nr, n_cmp, cmp);
}

static int add_masked(build *b, const sc_rule *r, int nr, unsigned arg,
                      uint64_t mask, uint64_t value)
{
	struct scmp_arg_cmp c = SCMP_CMP(arg, SCMP_CMP_MASKED_EQ, mask, value);

	return add(b, r, nr, 1, &c);
}

static bool in_set(uint32_t v, const uint32_t *set, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (set[i] == v)
			return true;
	return false;
}

/* One rule per bit outside SKIP: deny when that bit is set and GUARD is
 * clear, or, with GUARD_SET, when that bit is clear and GUARD is set. */
static int add_bit_rules(build *b, const sc_rule *r, int nr, unsigned arg,
                         uint32_t skip, uint32_t guard, bool guard_set)
{
	for (unsigned i = 0; i < 32; i++) {
		uint32_t bit = 1u << i;
		int rc;

		if (bit & skip)
			continue;
		rc = add_masked(b, r, nr, arg, guard | bit, guard_set ? guard : bit);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Deny every call whose argument ARG, read as the kernel's 32-bit int, is
 * not in ALLOWED (or all-ones, when ALL_ONES). With default allow the
 * complement must be spelled out, and EQ/NE chains can be dodged, so the
 * complement is covered by masked equalities only. Let USED be the OR of
 * the allowed values. A value is denied when it has a bit outside USED (one
 * rule per bit), or when it lies inside USED but is not allowed (one rule
 * per such sub-mask of USED). With ALL_ONES, a GUARD bit outside USED
 * splits the space: the rules above require GUARD clear, and with GUARD
 * set any clear bit denies. Every rule's mask is within the low 32 bits,
 * so the register's upper half never matters, as for the kernel. */
static int deny_outside(build *b, const sc_rule *r, int nr, unsigned arg,
                        const uint32_t *allowed, size_t n, bool all_ones)
{
	uint32_t used = 0, guard = 0, v;
	int rc;

	for (size_t i = 0; i < n; i++)
		used |= allowed[i];
	if (__builtin_popcount(used) > 8)
		return fail(b, EINVAL, "rule for %s: the allowed values span too many "
		            "bits to enumerate", r->name);
	if (all_ones) {
		for (int i = 31; i >= 0 && !guard; i--)
			if (!(used & (1u << i)))
				guard = 1u << i;
		if (!guard)
			return fail(b, EINVAL, "rule for %s: the allowed values leave no "
			            "free guard bit", r->name);
	}
	rc = add_bit_rules(b, r, nr, arg, used | guard, guard, false);
	for (v = used; rc == 0; v = (v - 1) & used) {
		if (!in_set(v, allowed, n))
			rc = add_masked(b, r, nr, arg, guard | used, v);
		if (v == 0)
			break;
	}
	if (rc == 0 && all_ones)
		rc = add_bit_rules(b, r, nr, arg, guard, guard, true);
	return rc;
}

/* ---- the allowed side of argument rules -----------------------------------
 * Groups that deny what they do not know must allow, by rule, every call of
 * an argument-filtered syscall that the deny rules leave alone. libseccomp
 * turns each rule into BPF blocks, and its compile time grows with the
 * square of their number: the rules below are kept few by leaving the
 * values no kernel gives a meaning to (a socket family past AF_MAX, say)
 * to the group's ENOSYS, where the kernel itself would refuse them. */

/* Comparisons on other arguments that every rule of a set holds besides
 * its own: C[N], and POST (N_POST of them) after it. */
typedef struct pre {
	struct scmp_arg_cmp c[3];
	unsigned n;
	struct scmp_arg_cmp post;
	unsigned n_post;
} pre;

/* One rule of a set: PRE's comparisons and a masked equality on ARG. With
 * ALLOWING the rule allows, else it denies with R's errno. */
static int add_pre(build *b, const sc_rule *r, int nr, bool allowing, const pre *p,
                   unsigned arg, uint32_t mask, uint32_t value)
{
	struct scmp_arg_cmp c[5];
	unsigned n = p->n;

	memcpy(c, p->c, sizeof(p->c));
	c[n++] = (struct scmp_arg_cmp)SCMP_CMP(arg, SCMP_CMP_MASKED_EQ, mask, value);
	if (p->n_post)
		c[n++] = p->post;
	return allowing ? allow(b, r, nr, n, c) : add(b, r, nr, n, c);
}

/* Calls whose ARG, under MASK, is one of VALS[N]. */
static int add_in(build *b, const sc_rule *r, int nr, bool allowing, const pre *p,
                  unsigned arg, uint32_t mask, const uint32_t *vals, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int rc = add_pre(b, r, nr, allowing, p, arg, mask, vals[i] & mask);

		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Which values of an argument a set of rules is about: the bits of
 * RANGE, with every bit of ZERO clear (the kernel's 32 bits are
 * RANGE | ZERO; ZERO empty means any value). */
typedef struct field {
	unsigned arg;
	uint32_t range, zero;
} field;

/* Whether one of V[N] has VALUE under MASK. */
static bool any_under(const uint32_t *v, size_t n, uint32_t mask, uint32_t value)
{
	for (size_t i = 0; i < n; i++)
		if ((v[i] & mask) == value)
			return true;
	return false;
}

/* Calls whose ARG is in F and none of VALS[N]: disjoint rules, at most one
 * per bit of the range and value, each a masked equality (an EQ/NE chain
 * on a register could be dodged through bits the kernel does not read).
 * Read the values as paths down a binary trie of the range's bits, from
 * the top: every branch off a path that leads to none of them is one rule,
 * the values that agree with the path so far and differ at that bit. */
static int add_outside(build *b, const sc_rule *r, int nr, bool allowing, const pre *p,
                       field f, const uint32_t *vals, size_t n)
{
	uint32_t v[8];

	if (n == 0 || n > N_OF(v) || (f.range & f.zero))
		return fail(b, EINVAL, "rule for %s: a value set the filter cannot spell", r->name);
	for (size_t i = 0; i < n; i++)
		v[i] = vals[i] & f.range;
	for (size_t i = 0; i < n; i++) {
		uint32_t above = f.zero;

		for (int k = 31; k >= 0; k--) {
			uint32_t bit = 1u << k, mask = above | bit, branch = (v[i] & above) | (~v[i] & bit);
			int rc = 0;

			if (!(f.range & bit))
				continue;
			/* Once per branch: the first value on this path makes it. */
			if (!any_under(v, i, mask, v[i] & mask) && !any_under(v, n, mask, branch))
				rc = add_pre(b, r, nr, allowing, p, f.arg, mask, branch);
			if (rc < 0)
				return rc;
			above = mask;
		}
	}
	return 0;
}

/* Comparisons every rule of a set starts with: ARG under MASK is VALUE. */
static pre pre_of(unsigned arg, uint32_t mask, uint32_t value)
{
	pre p = { .n = 1 };

	p.c[0] = (struct scmp_arg_cmp)SCMP_CMP(arg, SCMP_CMP_MASKED_EQ, mask, value);
	return p;
}

/* ---- argument rules ------------------------------------------------------ */

static const pre no_pre = { .n = 0 };

static int add_clone_ns(build *b, const sc_rule *r, int nr)
{
	/* CLONE_NEWTIME shares bits with clone's exit signal and cannot
	 * create a namespace through clone; denying it costs nothing, as no
	 * valid signal number has that bit. */
	static const uint64_t ns[] = {
		CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
		CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWTIME,
	};
	unsigned arg = clone_flags_arg();
	uint64_t all = 0;
	struct scmp_arg_cmp none;

	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		int rc = add_masked(b, r, nr, arg, ns[i], ns[i]);

		if (rc < 0)
			return rc;
		all |= ns[i];
	}
	if (!b->deny_unknown)
		return 0;
	none = (struct scmp_arg_cmp)SCMP_CMP(arg, SCMP_CMP_MASKED_EQ, all, 0);
	return allow(b, r, nr, 1, &none);
}

static int add_tty_inject(build *b, const sc_rule *r, int nr)
{
	/* osb-default-2 also denies TIOCSETD: switching a terminal's line
	 * discipline (n_hdlc, n_gsm) reaches kernel code a command never
	 * needs, with a history of use-after-free bugs. */
	static const uint32_t inject[] = { TIOCSTI, TIOCLINUX, TIOCSETD };
	int rc = add_masked(b, r, nr, 1, LOW32, TIOCSTI);

	if (rc == 0)
		rc = add_masked(b, r, nr, 1, LOW32, TIOCLINUX);
	if (rc < 0 || !b->deny_unknown)
		return rc;
	rc = add_masked(b, r, nr, 1, LOW32, TIOCSETD);
	/* Any request the kernel can read: every 32-bit value. */
	return rc < 0 ? rc : add_outside(b, r, nr, true, &no_pre, (field){ 1, LOW32, 0 }, inject,
	                                 N_OF(inject));
}

/* The kernel turns (AF_INET, SOCK_PACKET) into a packet socket. */
static int deny_inet_packet(build *b, const sc_rule *r, int nr)
{
	struct scmp_arg_cmp inet_packet[2] = {
		SCMP_A0(SCMP_CMP_MASKED_EQ, LOW32, AF_INET),
		SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, SOCK_PACKET),
	};

	return add(b, r, nr, 2, inet_packet);
}

static int add_socket_family(build *b, const sc_rule *r, int nr)
{
	static const uint32_t families[] = { AF_UNIX, AF_INET, AF_INET6, AF_NETLINK };
	static const uint32_t any_type[] = { AF_UNIX, AF_INET6, AF_NETLINK };
	static const uint32_t packet[] = { SOCK_PACKET };
	pre inet = pre_of(0, LOW32, AF_INET);
	int rc = deny_outside(b, r, nr, 0, families, 4, false);

	if (rc == 0)
		rc = deny_inet_packet(b, r, nr);
	if (rc < 0 || !b->deny_unknown)
		return rc;
	rc = add_in(b, r, nr, true, &no_pre, 0, LOW32, any_type, N_OF(any_type));
	/* The type's low four bits are the kernel's socket type. */
	return rc < 0 ? rc : add_outside(b, r, nr, true, &inet, (field){ 1, 0xf, 0 }, packet, 1);
}

/* What the kernel gives a meaning to (values beyond are its own error):
 * socket families below AF_MAX (46 in Linux 6.x; room is left), netlink
 * protocols below MAX_LINKS (32), socket types in SOCK_TYPE_MASK. */
#define FAMILY_FIELD(arg) ((field){ (arg), 0x3f, 0xffffffc0 })
#define NETLINK_PROTO_FIELD ((field){ 2, 0x1f, 0xffffffe0 })
#define TYPE_FIELD ((field){ 1, 0xf, 0 })

/* AF_INET and AF_INET6: IPPROTO_MPTCP (262) is denied, whatever the type
 * (only SOCK_STREAM makes an MPTCP socket; with another type it is the
 * kernel's error); so is AF_INET's SOCK_PACKET (deny_inet_packet). The
 * IP protocols below 256 are allowed; 256 and up (IPPROTO_SMC since Linux
 * 6.11, and values no kernel has) are left to the ENOSYS default. */
static int inet_rules(build *b, const sc_rule *r, int nr, uint32_t family)
{
	static const uint32_t mptcp[] = { IPPROTO_MPTCP };
	static const uint32_t packet[] = { SOCK_PACKET };
	pre fam = pre_of(0, LOW32, family), ip = fam;
	int rc = add_in(b, r, nr, false, &fam, 2, LOW32, mptcp, 1);

	if (rc < 0 || !b->deny_unknown)
		return rc;
	/* A protocol below 256; for AF_INET, with a type other than
	 * SOCK_PACKET. */
	ip.post = (struct scmp_arg_cmp)SCMP_A2(SCMP_CMP_MASKED_EQ, 0xffffff00, 0);
	ip.n_post = 1;
	if (family == AF_INET6)
		return add_pre(b, r, nr, true, &fam, 2, 0xffffff00, 0);
	return add_outside(b, r, nr, true, &ip, TYPE_FIELD, packet, 1);
}

static int add_socket(build *b, const sc_rule *r, int nr)
{
	static const uint32_t families[] = { AF_UNIX, AF_INET, AF_INET6, AF_NETLINK };
	static const uint32_t unix_family[] = { AF_UNIX };
	static const uint32_t route[] = { NETLINK_ROUTE };
	pre netlink = pre_of(0, LOW32, AF_NETLINK);
	int rc = add_outside(b, r, nr, false, &no_pre, FAMILY_FIELD(0), families, N_OF(families));

	if (rc == 0)
		rc = deny_inet_packet(b, r, nr);
	if (rc == 0)
		rc = add_outside(b, r, nr, false, &netlink, NETLINK_PROTO_FIELD, route, 1);
	if (rc == 0)
		rc = inet_rules(b, r, nr, AF_INET);
	if (rc == 0)
		rc = inet_rules(b, r, nr, AF_INET6);
	if (rc < 0 || !b->deny_unknown)
		return rc;
	rc = add_in(b, r, nr, true, &no_pre, 0, LOW32, unix_family, 1);
	return rc < 0 ? rc : add_in(b, r, nr, true, &netlink, 2, LOW32, route, 1);
}

static int add_socketpair(build *b, const sc_rule *r, int nr)
{
	static const uint32_t unix_family[] = { AF_UNIX };
	int rc = add_outside(b, r, nr, false, &no_pre, FAMILY_FIELD(0), unix_family, 1);

	if (rc < 0 || !b->deny_unknown)
		return rc;
	return add_in(b, r, nr, true, &no_pre, 0, LOW32, unix_family, 1);
}

/* 0xffffffff only queries. PER_LINUX32 is what linux32/setarch set;
 * ADDR_NO_RANDOMIZE (setarch -R, debuggers) only weakens the caller. The
 * kernel defines personality flags up to bit 27 (ADDR_LIMIT_3GB); under an
 * ENOSYS default a value with any of bits 28-31 set (but the query) is left
 * to it, which takes 60 rules down to 31. */
static int add_personality(build *b, const sc_rule *r, int nr)
{
	static const uint32_t ok[] = {
		PER_LINUX, PER_LINUX32, ADDR_NO_RANDOMIZE, PER_LINUX32 | ADDR_NO_RANDOMIZE,
		0xffffffff,
	};
	const uint32_t used = PER_LINUX32 | ADDR_NO_RANDOMIZE, top = 0xf0000000;
	int rc;

	if (!b->deny_unknown)
		return deny_outside(b, r, nr, 0, ok, 4, true);
	for (unsigned i = 0; i < 28; i++) {
		uint32_t bit = 1u << i;

		if (bit & used)
			continue;
		if ((rc = add_masked(b, r, nr, 0, top | bit, bit)) < 0)
			return rc;
	}
	return add_in(b, r, nr, true, &no_pre, 0, LOW32, ok, N_OF(ok));
}

/* Where each call that sets a mode has it, and its open flags (-1: it
 * always creates or changes the mode), as the kernel declares them. */
static const struct setid_call {
	const char *name;
	int flags_arg;
	unsigned mode_arg;
} setid_calls[] = {
	{ "chmod", -1, 1 }, { "fchmod", -1, 1 }, { "fchmodat", -1, 2 }, { "fchmodat2", -1, 2 },
	{ "creat", -1, 1 }, { "mknod", -1, 1 }, { "mknodat", -1, 2 },
	{ "open", 1, 2 }, { "openat", 2, 3 },
};

/* O_TMPFILE's own bit (the kernel's __O_TMPFILE, asm-generic/fcntl.h);
 * glibc's O_TMPFILE and __O_TMPFILE also hold O_DIRECTORY. */
#define TMPFILE_BIT 020000000

/* A mode with S_ISUID, or S_ISGID without it (disjoint rules); with
 * ALLOWING, a mode with neither. The kernel reads a mode as a 16-bit
 * umode_t: the mask lies within it. */
static int add_setid_rules(build *b, const sc_rule *r, int nr, bool allowing, const pre *p,
                           unsigned mode_arg)
{
	int rc;

	if (allowing)
		return add_pre(b, r, nr, true, p, mode_arg, S_ISUID | S_ISGID, 0);
	rc = add_pre(b, r, nr, false, p, mode_arg, S_ISUID, S_ISUID);
	return rc < 0 ? rc : add_pre(b, r, nr, false, p, mode_arg, S_ISUID | S_ISGID, S_ISGID);
}

/* Each rule set is one of: a call that always sets its mode; an open with
 * O_CREAT; an open with O_TMPFILE and without O_CREAT. An open with
 * neither ignores its mode and is allowed (under an ENOSYS default). */
static int add_setid_mode(build *b, const sc_rule *r, int nr)
{
	const struct setid_call *c = NULL;
	const uint32_t creating = O_CREAT | TMPFILE_BIT;
	pre sets[2];
	size_t n_sets = 1;
	int rc = 0;

	for (size_t i = 0; i < N_OF(setid_calls) && !c; i++)
		if (strcmp(setid_calls[i].name, r->name) == 0)
			c = &setid_calls[i];
	if (!c)
		return fail(b, EINVAL, "rule for %s: the filter does not know where its mode is",
		            r->name);
	if (c->flags_arg < 0)
		sets[0] = no_pre;
	else {
		sets[0] = pre_of((unsigned)c->flags_arg, O_CREAT, O_CREAT);
		sets[1] = pre_of((unsigned)c->flags_arg, creating, TMPFILE_BIT);
		n_sets = 2;
	}
	for (size_t i = 0; i < n_sets && rc == 0; i++) {
		rc = add_setid_rules(b, r, nr, false, &sets[i], c->mode_arg);
		if (rc == 0 && b->deny_unknown)
			rc = add_setid_rules(b, r, nr, true, &sets[i], c->mode_arg);
	}
	if (rc < 0 || !b->deny_unknown || c->flags_arg < 0)
		return rc;
	return add_pre(b, r, nr, true, &no_pre, (unsigned)c->flags_arg, creating, 0);
}

static int add_group_rule(build *b, const sc_rule *r)
{
	int nr;

	if (!r->name)
		return fail(b, EINVAL, "a rule has no syscall name");
	nr = seccomp_syscall_resolve_name(r->name);
	if (nr == __NR_SCMP_ERROR && setid_left_to_default(b->deny_unknown, r))
		return 0;
	if (nr == __NR_SCMP_ERROR) {
		char ver[32];

		return fail(b, EINVAL, "unknown system call \"%s\"; check the spelling "
		            "(libseccomp %s does not know it)", r->name,
		            libseccomp_version(ver, sizeof(ver)));
	}
	if (r->errnum <= 0 || r->errnum > 4095)
		return fail(b, EINVAL, "rule for %s: errno %d is outside 1..4095",
		            r->name, r->errnum);
	switch (r->args) {
	case SC_ARGS_ANY:
		return add(b, r, nr, 0, NULL);
	case SC_ARGS_CLONE_NS:
		return add_clone_ns(b, r, nr);
	case SC_ARGS_TTY_INJECT:
		return add_tty_inject(b, r, nr);
	case SC_ARGS_SOCKET_FAMILY:
		return add_socket_family(b, r, nr);
	case SC_ARGS_PERSONALITY:
		return add_personality(b, r, nr);
	case SC_ARGS_SOCKET:
		return add_socket(b, r, nr);
	case SC_ARGS_SOCKETPAIR:
		return add_socketpair(b, r, nr);
	case SC_ARGS_SETID_MODE:
		return add_setid_mode(b, r, nr);
	}
	return fail(b, EINVAL, "rule for %s: unknown argument kind %d", r->name,
	            (int)r->args);
}

static bool has_rule(const sc_rule *rules, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (rules[i].name && strcmp(rules[i].name, name) == 0)
			return true;
	return false;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every name libseccomp knows on ARCH (numbers below SC_SCAN_MAX, x32's
 * with its bit), added to NAMES. */
static int known_names(uint32_t arch, strv *names)
{
	int base = arch == SCMP_ARCH_X32 ? X32_SYSCALL_BIT : 0;

	for (int nr = 0; nr < SC_SCAN_MAX; nr++) {
		_cleanup_free_ char *name = seccomp_syscall_resolve_num_arch(arch, base + nr);

		if (name && strv_push(names, name) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Allow, by name, every call libseccomp knows on the filter's ABIs that no
 * rule of the group mentions; what is left answers ENOSYS. One rule per
 * name covers every ABI that has the call. Sorted and unique, so that
 * equal groups compile to equal programs. */
static int allow_known(build *b, const sc_rule *rules, size_t n)
{
	size_t n_compat;
	const uint32_t *compat = compat_arches(&n_compat);
	strv names = { 0 };
	int rc = known_names(seccomp_arch_native(), &names);

	for (size_t i = 0; rc == 0 && i < n_compat; i++)
		rc = known_names(compat[i], &names);
	if (rc < 0) {
		strv_free(&names);
		return osb_err_set(b->err, OSB_E_NOMEM, ENOMEM, "seccomp", "out of memory");
	}
	if (names.n)
		qsort(names.v, names.n, sizeof(*names.v), str_cmp);
	for (size_t i = 0; rc == 0 && i < names.n; i++) {
		const sc_rule known = { names.v[i], 0, SC_ARGS_ANY };

		if ((i > 0 && strcmp(names.v[i], names.v[i - 1]) == 0) ||
		    has_rule(rules, n, names.v[i]))
			continue;
		rc = allow(b, &known, seccomp_syscall_resolve_name(names.v[i]), 0, NULL);
	}
	strv_free(&names);
	return rc;
}

static int build_ctx(build *b, const sc_rule *rules, size_t n)
{
	int rc = ctx_new(b);

	if (rc < 0)
		return rc;
	if (n == 0)
		return fail(b, EINVAL, "the group has no rules; an empty filter is "
		            "never built");
	if (!b->deny_unknown) {
		for (size_t i = 0; i < n && rc == 0; i++)
			rc = add_group_rule(b, &rules[i]);
		return rc;
	}
	/* Whole-call rules, denied or allowed, before argument rules. On
	 * i386, libseccomp also writes a socket call's rules as socketcall
	 * rules (the call number in place of the first argument); once
	 * socketcall has a whole-call rule it drops them, where an allowed
	 * socket family would otherwise collide with a denied one on the same
	 * socketcall number. */
	for (size_t i = 0; i < n && rc == 0; i++)
		if (rules[i].args == SC_ARGS_ANY)
			rc = add_group_rule(b, &rules[i]);
	if (rc == 0)
		rc = allow_known(b, rules, n);
	for (size_t i = 0; i < n && rc == 0; i++)
		if (rules[i].args != SC_ARGS_ANY)
			rc = add_group_rule(b, &rules[i]);
	return rc;
}

static int memfd_new(build *b, unsigned flags, int *fd)
{
	*fd = memfd_create("osb-seccomp", MFD_CLOEXEC | flags);
	if (*fd < 0)
		return fail(b, errno, "memfd_create failed: %s", strerror(errno));
	return 0;
}

static int seal_bpf_fd(build *b, int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return fail(b, errno, "fstat of the filter memfd failed: %s", strerror(errno));
	if (st.st_size <= 0 || st.st_size % BPF_INSN_SIZE != 0)
		return fail(b, EINVAL, "libseccomp exported %lld bytes, not a BPF program",
		            (long long)st.st_size);
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) < 0)
		return fail(b, errno, "sealing the filter memfd failed: %s", strerror(errno));
	if (lseek(fd, 0, SEEK_SET) != 0)
		return fail(b, errno, "rewinding the filter memfd failed: %s", strerror(errno));
	return 0;
}

static build build_of(const sc_group *g, osb_error *err)
{
	return (build){ .ctx = NULL, .group = g->name ? g->name : "(unnamed)",
	                .deny_unknown = g->deny_unknown, .err = err };
}

int seccomp_build_fd_group(const sc_group *g, int *fd_out, osb_error *err)
{
	build b = build_of(g, err);
	int fd = -1, rc;

	*fd_out = -1;
	rc = build_ctx(&b, g->rules, g->n);
	if (rc == 0)
		rc = memfd_new(&b, MFD_ALLOW_SEALING, &fd);
	if (rc == 0) {
		int e = seccomp_export_bpf(b.ctx, fd);

		if (e < 0)
			rc = fail(&b, -e, "seccomp_export_bpf failed: %s", strerror(-e));
	}
	if (rc == 0)
		rc = seal_bpf_fd(&b, fd);
	seccomp_release(b.ctx);
	if (rc < 0) {
		if (fd >= 0)
			close(fd);
		return rc;
	}
	*fd_out = fd;
	return 0;
}

static int read_all_fd(build *b, int fd, char **out)
{
	struct stat st;
	char *buf;
	size_t len, got = 0;

	if (fstat(fd, &st) < 0)
		return fail(b, errno, "fstat of the PFC memfd failed: %s", strerror(errno));
	if (st.st_size <= 0 || (uint64_t)st.st_size > PFC_MAX)
		return fail(b, EINVAL, "libseccomp exported %lld bytes of PFC text",
		            (long long)st.st_size);
	len = (size_t)st.st_size;
	buf = malloc(len + 1);
	if (!buf)
		return osb_err_set(b->err, OSB_E_NOMEM, ENOMEM, "seccomp", "out of memory");
	while (got < len) {
		ssize_t r = pread(fd, buf + got, len - got, (off_t)got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			int e = r < 0 ? errno : EIO;

			free(buf);
			return fail(b, e, "reading the PFC text back failed: %s", strerror(e));
		}
		got += (size_t)r;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

int seccomp_export_text_group(const sc_group *g, char **out, osb_error *err)
{
	build b = build_of(g, err);
	_cleanup_close_ int fd = -1;
	int rc;

	*out = NULL;
	rc = build_ctx(&b, g->rules, g->n);
	if (rc == 0)
		rc = memfd_new(&b, 0, &fd);
	if (rc == 0) {
		int e = seccomp_export_pfc(b.ctx, fd);

		if (e < 0)
			rc = fail(&b, -e, "seccomp_export_pfc failed: %s", strerror(-e));
	}
	seccomp_release(b.ctx);
	return rc < 0 ? rc : read_all_fd(&b, fd, out);
}

static const pol_sc *policy_rule_for(const osb_policy *p, const char *name)
{
	for (size_t i = 0; i < p->n_sc_rules; i++)
		if (strcmp(p->sc_rules[i].name, name) == 0)
			return &p->sc_rules[i];
	return NULL;
}

static int deny_cmp(const void *a, const void *b)
{
	return strcmp(((const sc_rule *)a)->name, ((const sc_rule *)b)->name);
}

/* A group as a policy edits it. */
typedef struct edited {
	sc_group g;
	char name[64];
	sc_rule *rules;     /* malloc'd; NULL when the group is used as it is */
} edited;

static int no_group(const osb_policy *p, osb_error *err)
{
	return osb_err_set(err, OSB_E_SECCOMP, EINVAL, "seccomp", "the policy selects seccomp "
	                   "group osb-default-%u, which this osb-isolate does not have", p->sc_group);
}

/* The rule set P asks for: its group minus every name P has a rule for,
 * then P's deny rules sorted by name (equal policies, equal filters). The
 * names point into the group table and P. */
static int policy_group(const osb_policy *p, edited *e, osb_error *err)
{
	const sc_group *base = seccomp_policy_group(p);
	size_t n = 0, n_deny = 0;
	sc_rule *v;

	memset(e, 0, sizeof(*e));
	if (!base)
		return no_group(p, err);
	e->g = *base;
	if (!p || p->n_sc_rules == 0)
		return 0;
	if (!(v = calloc(base->n + p->n_sc_rules + 1, sizeof(*v))))
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "seccomp", "out of memory");
	for (size_t i = 0; i < base->n; i++)
		if (!policy_rule_for(p, base->rules[i].name))
			v[n++] = base->rules[i];
	for (size_t i = 0; i < p->n_sc_rules; i++) {
		const pol_sc *r = &p->sc_rules[i];

		if (!r->allow)
			v[n + n_deny++] = (sc_rule){ r->name, r->err ? r->err : EPERM, SC_ARGS_ANY };
	}
	qsort(v + n, n_deny, sizeof(*v), deny_cmp);
	n += n_deny;
	snprintf(e->name, sizeof(e->name), "%s" POLICY_SUFFIX, base->name);
	if (n == 0) {
		free(v);
		return osb_err_set(err, OSB_E_SECCOMP, EINVAL, "seccomp", "seccomp group %s: the "
		                   "policy's \"seccomp allow\" rules remove every rule of %s, and an "
		                   "empty filter is never built; write \"seccomp none\" to run without "
		                   "a filter", e->name, base->name);
	}
	e->rules = v;
	e->g.name = e->name;
	e->g.rules = v;
	e->g.n = n;
	return 0;
}

/* "seccomp none" and a deny rule together: the parser refuses this; a
 * policy edited in memory must not get past it either. */
static int check_none(const osb_policy *p, osb_error *err)
{
	for (size_t i = 0; i < p->n_sc_rules; i++)
		if (!p->sc_rules[i].allow)
			return osb_err_set(err, OSB_E_SECCOMP, EINVAL, "seccomp", "the policy says "
			                   "\"seccomp none\" but denies %s; refusing to run without "
			                   "the filter it asks for", p->sc_rules[i].name);
	return 0;
}

#ifndef OSB_SECCOMP_GENERATOR
/* G's build-time program, when this libseccomp is the one that made it. */
static const prebuilt_program *prebuilt_for(const sc_group *g)
{
	const struct scmp_version *v = seccomp_version();

	if (!g || v->major != PREBUILT_LIBSECCOMP_MAJOR || v->minor != PREBUILT_LIBSECCOMP_MINOR ||
	    v->micro != PREBUILT_LIBSECCOMP_MICRO)
		return NULL;
	for (size_t i = 0; i < N_OF(prebuilt_programs); i++)
		if (strcmp(prebuilt_programs[i].group, g->name) == 0)
			return &prebuilt_programs[i];
	return NULL;
}

/* A build-time program in a sealed memfd, as seccomp_build_fd_group
 * leaves a compiled one. */
static int prebuilt_fd(const sc_group *g, const prebuilt_program *pp, int *fd_out,
                       osb_error *err)
{
	build b = build_of(g, err);
	const unsigned char *p = pp->bpf;
	size_t left = pp->len;
	int fd = -1, rc = memfd_new(&b, MFD_ALLOW_SEALING, &fd);

	while (rc == 0 && left > 0) {
		ssize_t w = write(fd, p, left);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			rc = fail(&b, w < 0 ? errno : EIO, "writing the filter memfd failed: %s",
			          strerror(w < 0 ? errno : EIO));
		else {
			p += w;
			left -= (size_t)w;
		}
	}
	if (rc == 0)
		rc = seal_bpf_fd(&b, fd);
	if (rc < 0) {
		if (fd >= 0)
			close(fd);
		return rc;
	}
	*fd_out = fd;
	return 0;
}
#endif

bool seccomp_policy_prebuilt(const osb_policy *p)
{
#ifdef OSB_SECCOMP_GENERATOR
	(void)p;
	return false;
#else
	if (p && (p->sc_mode == SC_NONE || p->n_sc_rules > 0))
		return false;
	return prebuilt_for(seccomp_policy_group(p)) != NULL;
#endif
}

int seccomp_build_fd(const osb_policy *p, int *fd_out, osb_error *err)
{
	edited e;
	int r;

	*fd_out = -1;
	if (p && p->sc_mode == SC_NONE)
		return check_none(p, err);   /* 0 with *FD_OUT -1: no filter */
	if ((r = policy_group(p, &e, err)) < 0)
		return r;
#ifndef OSB_SECCOMP_GENERATOR
	if (seccomp_policy_prebuilt(p))
		return prebuilt_fd(&e.g, prebuilt_for(&e.g), fd_out, err);
#endif
	r = seccomp_build_fd_group(&e.g, fd_out, err);
	free(e.rules);
	return r;
}

int seccomp_export_text(const osb_policy *p, char **out, osb_error *err)
{
	edited e;
	int r;

	*out = NULL;
	if (p && p->sc_mode == SC_NONE) {
		if ((r = check_none(p, err)) < 0)
			return r;
		*out = strdup("# seccomp none: the policy loads no filter\n");
		return *out ? 0 : osb_err_set(err, OSB_E_NOMEM, ENOMEM, "seccomp", "out of memory");
	}
	if ((r = policy_group(p, &e, err)) < 0)
		return r;
	r = seccomp_export_text_group(&e.g, out, err);
	free(e.rules);
	return r;
}

/* ---- the filter as a reviewer reads it --------------------------------------
 * The answer each call gets on each architecture, from the rule table itself
 * (the policy's edited group), not from libseccomp's debug output: what a
 * rule names gets the rule's errno (only for some argument values when it
 * looks at them), what the group does not name gets its default. Only calls
 * an architecture has are listed for it. */

/* Libseccomp's name of an architecture (as its PFC output spells it). */
static const char *arch_name(uint32_t arch)
{
	static const struct { uint32_t arch; const char *name; } names[] = {
		{ SCMP_ARCH_X86_64, "x86_64" }, { SCMP_ARCH_X86, "x86" }, { SCMP_ARCH_X32, "x32" },
		{ SCMP_ARCH_AARCH64, "aarch64" }, { SCMP_ARCH_ARM, "arm" },
		{ SCMP_ARCH_S390X, "s390x" }, { SCMP_ARCH_S390, "s390" },
		{ SCMP_ARCH_PPC64, "ppc64" }, { SCMP_ARCH_PPC, "ppc" },
	};

	for (size_t i = 0; i < N_OF(names); i++)
		if (names[i].arch == arch)
			return names[i].name;
	return "unknown";
}

static const char *action_of(int errnum)
{
	const char *n = strerrorname_np(errnum);

	return n ? n : "ERRNO";
}

static int view_add(sc_arch *a, size_t *cap, const char *name, const char *action, bool by_args)
{
	sc_call *v = array_grow(a->calls, cap, a->n, sizeof(*v));

	if (!v)
		return -ENOMEM;
	a->calls = v;
	v[a->n] = (sc_call){ strdup(name), action, by_args };
	return v[a->n++].name ? 0 : -ENOMEM;
}

static bool view_named(const sc_arch *a, const char *name)
{
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->calls[i].name, name) == 0)
			return true;
	return false;
}

static int call_cmp(const void *x, const void *y)
{
	return strcmp(((const sc_call *)x)->name, ((const sc_call *)y)->name);
}

static bool in_strv(const strv *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->v[i], s) == 0)
			return true;
	return false;
}

/* One architecture: the group's rules for the calls it has (by name, or a
 * multiplexed call such as i386's socket, which libseccomp resolves to a
 * pseudo-number but the architecture also has as a call of its own), then
 * (for a group that denies what it does not know) every other call
 * libseccomp knows there: allowed by name unless a rule denied it whole
 * with ENOSYS, which the default answers. */
static int view_arch(const sc_group *g, uint32_t arch, sc_arch *a)
{
	size_t cap = 0;
	strv known = { 0 };
	int r = known_names(arch, &known);

	a->fallback = g->deny_unknown ? "ENOSYS" : "ALLOW";
	for (size_t i = 0; r == 0 && i < g->n; i++) {
		const sc_rule *rule = &g->rules[i];
		bool whole = rule->args == SC_ARGS_ANY;

		if ((seccomp_syscall_resolve_name_arch(arch, rule->name) < 0 &&
		     !in_strv(&known, rule->name)) ||
		    (g->deny_unknown && rule->errnum == ENOSYS && whole))
			continue;
		r = view_add(a, &cap, rule->name, g->deny_unknown && rule->errnum == ENOSYS ? "ALLOW" :
		             action_of(rule->errnum), !whole);
	}
	for (size_t i = 0; r == 0 && g->deny_unknown && i < known.n; i++)
		if (!view_named(a, known.v[i]))
			r = view_add(a, &cap, known.v[i], has_rule(g->rules, g->n, known.v[i]) ?
			             "ENOSYS" : "ALLOW", false);
	strv_free(&known);
	if (r == 0 && a->n > 1)
		qsort(a->calls, a->n, sizeof(*a->calls), call_cmp);
	return r;
}

int seccomp_describe(const osb_policy *p, sc_view *out, osb_error *err)
{
	size_t n_compat;
	const uint32_t *compat = compat_arches(&n_compat);
	edited e;
	int r;

	memset(out, 0, sizeof(*out));
	if (p && p->sc_mode == SC_NONE)
		return check_none(p, err);   /* no filter: no architecture */
	if ((r = policy_group(p, &e, err)) < 0)
		return r;
	for (size_t i = 0; r == 0 && i <= n_compat && i < SC_VIEW_MAX_ARCHES; i++) {
		uint32_t arch = i == 0 ? seccomp_arch_native() : compat[i - 1];
		sc_arch *a = &out->arches[out->n_arches++];

		a->name = arch_name(arch);
		r = view_arch(&e.g, arch, a);
	}
	free(e.rules);
	if (r < 0) {
		seccomp_view_free(out);
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "seccomp", "out of memory");
	}
	return 0;
}

void seccomp_view_free(sc_view *v)
{
	for (size_t i = 0; i < v->n_arches; i++) {
		for (size_t j = 0; j < v->arches[i].n; j++)
			free(v->arches[i].calls[j].name);
		free(v->arches[i].calls);
	}
	memset(v, 0, sizeof(*v));
}

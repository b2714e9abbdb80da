/* seccomp.c — the syscall filter the in-sandbox init loads before exec.
 *
 * The filter is built with libseccomp, never by hand: default allow, plus a
 * named and versioned deny group (osb-default-1) kept as a data table below
 * so that a policy directive can later add or drop entries before the table
 * is compiled. Every rule that cannot be added — an unknown syscall name, a
 * libseccomp refusal — fails the whole build; a partial or empty filter
 * would look like protection and be none. The compat ABIs (i386 and x32 on
 * x86_64) are added before any rule so that the same rules cover them; any
 * ABI not added is killed by the bad-architecture action. The result goes
 * to the launch plan as classic BPF in a sealed memfd, and to explain and
 * the tests as libseccomp's PFC text.
 *
 * A policy edits the group before it is compiled: "seccomp allow NAME"
 * removes NAME's rule, "seccomp deny NAME [errno=E]" replaces or adds a rule
 * denying every call of NAME, and "seccomp none" asks for no filter at all
 * (the only way to get none: a set that allow rules have emptied is an
 * error, not an empty filter).
 *
 * The default group, which both shipped policies load, is compiled once at
 * build time (lib/gen-default-filter, into lib/seccomp-default.h) through
 * this same code; a launch copies that program into its memfd instead of
 * spending milliseconds compiling it again, unless the libseccomp found at
 * run time is not the one that compiled it.
 *
 * Limits a reviewer should know: a denylist only covers syscalls libseccomp
 * knows by name, so syscalls newer than its table (for libseccomp 2.5.4 on
 * Linux 6.15+: open_tree_attr, which like open_tree with OPEN_TREE_CLONE
 * needs CAP_SYS_ADMIN over the mount namespace) fall under default allow.
 * Argument rules look at registers only; arguments passed in memory
 * (clone3's flags, socketcall's arguments) cannot be inspected, which is why
 * clone3 and socketcall are denied whole.
 */
#include "internal.h"
#include "filter.h"

#include <seccomp.h>

#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/stat.h>

#ifndef OSB_SECCOMP_GENERATOR
#include "seccomp-default.h"
#endif

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

#define GROUP_DEFAULT "osb-default-1"
#define GROUP_POLICY GROUP_DEFAULT "+policy"
/* The kernel reads these arguments as 32-bit ints and ignores the upper
 * half of the register; comparisons mask with this so that setting high
 * bits cannot dodge a rule. */
#define LOW32 0xffffffffULL
/* Classic BPF instruction size: a valid program is a non-empty multiple. */
#define BPF_INSN_SIZE 8
#define PFC_MAX (16u << 20)

static const sc_rule group_default[] = {
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

typedef struct build {
	scmp_filter_ctx ctx;
	const char *group;
	osb_error *err;
} build;

const char *seccomp_group_name(void)
{
	return GROUP_DEFAULT;
}

const sc_rule *seccomp_default_group(size_t *n)
{
	*n = sizeof(group_default) / sizeof(group_default[0]);
	return group_default;
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

	b->ctx = seccomp_init(SCMP_ACT_ALLOW);
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

static int add(build *b, const sc_rule *r, int nr, unsigned n_cmp,
               const struct scmp_arg_cmp *cmp)
{
	int rc = seccomp_rule_add_array(b->ctx, SCMP_ACT_ERRNO((uint32_t)r->errnum),
	                                nr, n_cmp, cmp);

	if (rc < 0)
		return fail(b, -rc, "libseccomp refused the rule for %s: %s; "
		            "no filter was built", r->name, strerror(-rc));
	return 0;
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

	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		int rc = add_masked(b, r, nr, arg, ns[i], ns[i]);

		if (rc < 0)
			return rc;
	}
	return 0;
}

static int add_tty_inject(build *b, const sc_rule *r, int nr)
{
	int rc = add_masked(b, r, nr, 1, LOW32, TIOCSTI);

	return rc < 0 ? rc : add_masked(b, r, nr, 1, LOW32, TIOCLINUX);
}

static int add_socket_family(build *b, const sc_rule *r, int nr)
{
	static const uint32_t families[] = { AF_UNIX, AF_INET, AF_INET6, AF_NETLINK };
	/* The kernel turns (AF_INET, SOCK_PACKET) into a packet socket. */
	struct scmp_arg_cmp inet_packet[2] = {
		SCMP_A0(SCMP_CMP_MASKED_EQ, LOW32, AF_INET),
		SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, SOCK_PACKET),
	};
	int rc = deny_outside(b, r, nr, 0, families, 4, false);

	return rc < 0 ? rc : add(b, r, nr, 2, inet_packet);
}

static int add_personality(build *b, const sc_rule *r, int nr)
{
	/* 0xffffffff only queries. PER_LINUX32 is what linux32/setarch set;
	 * ADDR_NO_RANDOMIZE (setarch -R, debuggers) only weakens the caller. */
	static const uint32_t ok[] = {
		PER_LINUX, PER_LINUX32, ADDR_NO_RANDOMIZE, PER_LINUX32 | ADDR_NO_RANDOMIZE,
	};

	return deny_outside(b, r, nr, 0, ok, 4, true);
}

static int add_group_rule(build *b, const sc_rule *r)
{
	int nr;

	if (!r->name)
		return fail(b, EINVAL, "a rule has no syscall name");
	nr = seccomp_syscall_resolve_name(r->name);
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
	}
	return fail(b, EINVAL, "rule for %s: unknown argument kind %d", r->name,
	            (int)r->args);
}

static int build_ctx(build *b, const sc_rule *rules, size_t n)
{
	int rc = ctx_new(b);

	if (rc < 0)
		return rc;
	if (n == 0)
		return fail(b, EINVAL, "the group has no rules; an empty filter is "
		            "never built");
	for (size_t i = 0; i < n; i++) {
		rc = add_group_rule(b, &rules[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
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

int seccomp_build_fd_from(const char *group, const sc_rule *rules, size_t n,
                          int *fd_out, osb_error *err)
{
	build b = { .ctx = NULL, .group = group ? group : "(unnamed)", .err = err };
	int fd = -1, rc;

	*fd_out = -1;
	rc = build_ctx(&b, rules, n);
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

int seccomp_export_text_from(const char *group, const sc_rule *rules, size_t n,
                             char **out, osb_error *err)
{
	build b = { .ctx = NULL, .group = group ? group : "(unnamed)", .err = err };
	_cleanup_close_ int fd = -1;
	int rc;

	*out = NULL;
	rc = build_ctx(&b, rules, n);
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

/* The rule set P asks for: the default group minus every name P has a rule
 * for, then P's deny rules sorted by name (equal policies, equal filters).
 * *OUT is malloc'd; its names point into the group table and P. */
static int policy_rules(const osb_policy *p, sc_rule **out, size_t *n_out, osb_error *err)
{
	size_t n_def, n = 0, n_deny = 0;
	const sc_rule *def = seccomp_default_group(&n_def);
	sc_rule *v = calloc(n_def + p->n_sc_rules + 1, sizeof(*v));

	if (!v)
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "seccomp", "out of memory");
	for (size_t i = 0; i < n_def; i++)
		if (!policy_rule_for(p, def[i].name))
			v[n++] = def[i];
	for (size_t i = 0; i < p->n_sc_rules; i++) {
		const pol_sc *r = &p->sc_rules[i];

		if (!r->allow)
			v[n + n_deny++] = (sc_rule){ r->name, r->err ? r->err : EPERM, SC_ARGS_ANY };
	}
	qsort(v + n, n_deny, sizeof(*v), deny_cmp);
	n += n_deny;
	if (n == 0) {
		free(v);
		return osb_err_set(err, OSB_E_SECCOMP, EINVAL, "seccomp", "seccomp group %s: the "
		                   "policy's \"seccomp allow\" rules remove every rule of %s, and an "
		                   "empty filter is never built; write \"seccomp none\" to run without "
		                   "a filter", GROUP_POLICY, GROUP_DEFAULT);
	}
	*out = v;
	*n_out = n;
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

/* The build-time program stands for what this libseccomp would compile. */
bool seccomp_default_prebuilt(void)
{
#ifdef OSB_SECCOMP_GENERATOR
	return false;
#else
	const struct scmp_version *v = seccomp_version();

	return v->major == DEFAULT_BPF_LIBSECCOMP_MAJOR && v->minor == DEFAULT_BPF_LIBSECCOMP_MINOR &&
	       v->micro == DEFAULT_BPF_LIBSECCOMP_MICRO;
#endif
}

#ifndef OSB_SECCOMP_GENERATOR

/* The default group's build-time program in a sealed memfd, as
 * seccomp_build_fd_from leaves a compiled one. */
static int default_precompiled_fd(int *fd_out, osb_error *err)
{
	build b = { .ctx = NULL, .group = GROUP_DEFAULT, .err = err };
	const unsigned char *p = default_bpf;
	size_t left = sizeof(default_bpf);
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

int seccomp_build_fd(const osb_policy *p, int *fd_out, osb_error *err)
{
	_cleanup_free_ sc_rule *rules = NULL;
	size_t n;
	int r;

	*fd_out = -1;
	if (p && p->sc_mode == SC_NONE)
		return check_none(p, err);   /* 0 with *FD_OUT -1: no filter */
	if (!p || p->n_sc_rules == 0) {
		const sc_rule *def = seccomp_default_group(&n);

#ifndef OSB_SECCOMP_GENERATOR
		if (seccomp_default_prebuilt())
			return default_precompiled_fd(fd_out, err);
#endif
		return seccomp_build_fd_from(GROUP_DEFAULT, def, n, fd_out, err);
	}
	if ((r = policy_rules(p, &rules, &n, err)) < 0)
		return r;
	return seccomp_build_fd_from(GROUP_POLICY, rules, n, fd_out, err);
}

int seccomp_export_text(const osb_policy *p, char **out, osb_error *err)
{
	_cleanup_free_ sc_rule *rules = NULL;
	size_t n;
	int r;

	*out = NULL;
	if (p && p->sc_mode == SC_NONE) {
		if ((r = check_none(p, err)) < 0)
			return r;
		*out = strdup("# seccomp none: the policy loads no filter\n");
		return *out ? 0 : osb_err_set(err, OSB_E_NOMEM, ENOMEM, "seccomp", "out of memory");
	}
	if (!p || p->n_sc_rules == 0) {
		const sc_rule *def = seccomp_default_group(&n);

		return seccomp_export_text_from(GROUP_DEFAULT, def, n, out, err);
	}
	if ((r = policy_rules(p, &rules, &n, err)) < 0)
		return r;
	return seccomp_export_text_from(GROUP_POLICY, rules, n, out, err);
}

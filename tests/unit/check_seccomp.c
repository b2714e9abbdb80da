/* check_seccomp.c — unit tests for lib/seccomp.c: the shape of the exported
 * filter (sealed memfd, BPF size, PFC sections per ABI), the refusal to
 * build partial or empty filters, what the filter does to real system
 * calls, and how a policy's seccomp rules change it.
 *
 * Each call runs in a forked child that loads the filter exactly as the
 * in-sandbox init does (no_new_privs, then PR_SET_SECCOMP with the memfd's
 * bytes) and reports the call's errno as its exit status. The arguments of
 * every denied call are chosen so that, without the filter, the kernel
 * rejects it with a different errno (EFAULT, EBADF, EINVAL, ESRCH...) or
 * lets it succeed harmlessly: the same table runs unfiltered to prove that
 * each assertion can fail. Calls whose unfiltered result depends on the
 * caller's privileges or the kernel's configuration are marked and only
 * run filtered. The i386 calls use int $0x80 from this 64-bit process,
 * which the kernel filters with the i386 audit arch; the x32 calls set
 * __X32_SYSCALL_BIT.
 */
#include "internal.h"
#include "filter.h"

#include <seccomp.h>

#include <check.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/kcmp.h>
#include <linux/landlock.h>
#include <linux/reboot.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/quota.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef SECCOMP_SET_MODE_FILTER
#define SECCOMP_SET_MODE_FILTER 1
#endif
#ifndef SECCOMP_MODE_FILTER
#define SECCOMP_MODE_FILTER 2
#endif
#define X32_BIT 0x40000000L

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define MISSING_PATH "/nonexistent-osb-check-seccomp"
#define MISSING_PID 0x3ffffff0L     /* above any pid_max */
#define BAD_SOCK_TYPE 15            /* < SOCK_TYPE_MASK, >= SOCK_MAX: EINVAL */
#define HIGH (1UL << 32)

/* Child exit statuses that are not errno values. */
#define R_SETUP_FAILED 250
#define R_WRONG_VALUE 251
#define R_SIGNAL 1000

/* ---- running a call under the filter ------------------------------------ */

static int load_filter(int fd)
{
	struct stat st;
	struct sock_fprog prog;
	unsigned char *buf;
	size_t got = 0;

	if (fstat(fd, &st) < 0 || st.st_size <= 0 || st.st_size % 8)
		return -1;
	buf = malloc((size_t)st.st_size);
	if (!buf)
		return -1;
	while (got < (size_t)st.st_size) {
		/* pread: the child shares the fd's offset with the parent. */
		ssize_t r = pread(fd, buf + got, (size_t)st.st_size - got, (off_t)got);

		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	prog.len = (unsigned short)(got / sizeof(struct sock_filter));
	prog.filter = (struct sock_filter *)buf;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/* Run FN in a child, under the filter in FILTER_FD when >= 0. Returns the
 * errno FN saw (0: success), R_* codes, or R_SIGNAL + signal number. */
static int run_child(int (*fn)(void), int filter_fd)
{
	int st;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (filter_fd >= 0 && load_filter(filter_fd) < 0)
			_exit(R_SETUP_FAILED);
		_exit(fn() & 0xff);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	if (WIFSIGNALED(st))
		return R_SIGNAL + WTERMSIG(st);
	return WEXITSTATUS(st);
}

static const char *result_name(int r, char *buf, size_t size)
{
	const char *name = r > 0 && r < R_SETUP_FAILED ? strerrorname_np(r) : NULL;

	if (r == 0)
		snprintf(buf, size, "success");
	else if (name)
		snprintf(buf, size, "%s", name);
	else if (r >= R_SIGNAL)
		snprintf(buf, size, "killed by signal %d", r - R_SIGNAL);
	else
		snprintf(buf, size, "status %d", r);
	return buf;
}

static int filter_fd_new(void)
{
	osb_error err = { 0 };
	int fd = -1;

	ck_assert_msg(seccomp_build_fd(NULL, &fd, &err) == 0, "build failed: %s", err.message);
	return fd;
}

/* ---- the calls ------------------------------------------------------------ */

static int res(long r)
{
	return r < 0 ? errno : 0;
}

static int res_fd(long r)
{
	if (r < 0)
		return errno;
	close((int)r);
	return 0;
}

static int mount_bad_type(void)
{
	return res(syscall(SYS_mount, "none", "/", (void *)1, 0UL, NULL));
}
static int umount2_missing_path(void) { return res(syscall(SYS_umount2, MISSING_PATH, 0)); }
static int chroot_missing_path(void) { return res(syscall(SYS_chroot, MISSING_PATH)); }
static int pivot_root_null(void) { return res(syscall(SYS_pivot_root, NULL, NULL)); }
static int fsopen_null(void) { return res_fd(syscall(SYS_fsopen, NULL, 0)); }
static int fsconfig_bad_fd(void) { return res(syscall(SYS_fsconfig, -1, 6, NULL, NULL, 0)); }
static int fsmount_bad_fd(void) { return res_fd(syscall(SYS_fsmount, -1, 0, 0)); }
static int fspick_bad_fd(void) { return res_fd(syscall(SYS_fspick, -1, "", 0)); }
static int move_mount_bad_fd(void)
{
	return res(syscall(SYS_move_mount, -1, "", -1, "", 0));
}
static int open_tree_bad_fd(void) { return res_fd(syscall(SYS_open_tree, -1, "", 0)); }
static int mount_setattr_size0(void)
{
	return res(syscall(SYS_mount_setattr, -1, "", 0, NULL, 0));
}

static int unshare_newuser(void) { return res(syscall(SYS_unshare, CLONE_NEWUSER)); }
static int unshare_nothing(void) { return res(syscall(SYS_unshare, 0)); }
static int setns_bad_fd(void) { return res(syscall(SYS_setns, -1, 0)); }

/* CLONE_THREAD without CLONE_SIGHAND: the kernel refuses with EINVAL before
 * it looks at namespaces, so no child can ever be created here. */
static int clone_thread_flag(unsigned long flag)
{
	return res(syscall(SYS_clone, flag | CLONE_THREAD, NULL, NULL, NULL, 0));
}
static int clone_newns(void) { return clone_thread_flag(CLONE_NEWNS); }
static int clone_newcgroup(void) { return clone_thread_flag(CLONE_NEWCGROUP); }
static int clone_newuts(void) { return clone_thread_flag(CLONE_NEWUTS); }
static int clone_newipc(void) { return clone_thread_flag(CLONE_NEWIPC); }
static int clone_newuser(void) { return clone_thread_flag(CLONE_NEWUSER); }
static int clone_newpid(void) { return clone_thread_flag(CLONE_NEWPID); }
static int clone_newnet(void) { return clone_thread_flag(CLONE_NEWNET); }
static int clone_newtime(void) { return clone_thread_flag(CLONE_NEWTIME); }
static int clone_newuser_high_bits(void) { return clone_thread_flag(HIGH | CLONE_NEWUSER); }
static int clone3_size0(void) { return res(syscall(SYS_clone3, NULL, 0)); }

static int fork_plain(void)
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (pid == 0)
		_exit(0);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return R_WRONG_VALUE;
	return 0;
}

static int thread_token;

static void *thread_main(void *arg)
{
	return arg;
}

/* glibc tries clone3 first and must fall back to clone on ENOSYS. */
static int thread_create(void)
{
	pthread_t t;
	void *ret = NULL;
	int e = pthread_create(&t, NULL, thread_main, &thread_token);

	if (e != 0)
		return e;
	if (pthread_join(t, &ret) != 0 || ret != &thread_token)
		return R_WRONG_VALUE;
	return 0;
}

/* fd -1: without the filter the kernel answers EBADF, whatever the request. */
static int ioctl_on_bad_fd(unsigned long req)
{
	int arg = 0;

	return res(syscall(SYS_ioctl, -1, req, &arg));
}
static int ioctl_tiocsti(void) { return ioctl_on_bad_fd(TIOCSTI); }
static int ioctl_tiocsti_high_bits(void) { return ioctl_on_bad_fd(HIGH | TIOCSTI); }
static int ioctl_tioclinux(void) { return ioctl_on_bad_fd(TIOCLINUX); }
static int ioctl_fionread(void) { return ioctl_on_bad_fd(FIONREAD); }

static int io_uring_setup_zero(void) { return res_fd(syscall(SYS_io_uring_setup, 0, NULL)); }
static int io_uring_enter_bad_fd(void)
{
	return res(syscall(SYS_io_uring_enter, -1, 0, 0, 0, NULL, 0));
}
static int io_uring_register_bad_fd(void)
{
	return res(syscall(SYS_io_uring_register, -1, 0, NULL, 0));
}
static int userfaultfd_bad_flags(void)
{
	return res_fd(syscall(SYS_userfaultfd, UFFD_USER_MODE_ONLY | O_RDWR));
}
static int perf_event_open_bad_flags(void)
{
	return res_fd(syscall(SYS_perf_event_open, NULL, 0, -1, -1, ~0UL));
}
static int bpf_lookup_bad_map(void)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (uint32_t)-1;
	return res(syscall(SYS_bpf, BPF_MAP_LOOKUP_ELEM, &attr, sizeof(attr)));
}
static int ptrace_missing_pid(void)
{
	return res(syscall(SYS_ptrace, PTRACE_ATTACH, MISSING_PID, NULL, NULL));
}

static int process_vm(long nr)
{
	char a[8] = "abcdefg", b[8];
	struct iovec local = { b, sizeof(b) }, remote = { a, sizeof(a) };

	return res(syscall(nr, MISSING_PID, &local, 1UL, &remote, 1UL, 0UL));
}
static int process_vm_readv_missing_pid(void) { return process_vm(SYS_process_vm_readv); }
static int process_vm_writev_missing_pid(void) { return process_vm(SYS_process_vm_writev); }
static int kcmp_missing_pid(void)
{
	return res(syscall(SYS_kcmp, MISSING_PID, MISSING_PID, KCMP_VM, 0, 0));
}
static int pidfd_getfd_bad_fd(void) { return res_fd(syscall(SYS_pidfd_getfd, -1, 0, 0)); }
static int keyctl_bad_op(void) { return res(syscall(SYS_keyctl, 0x7fffffff, 0, 0, 0, 0)); }
static int add_key_null_type(void) { return res(syscall(SYS_add_key, NULL, NULL, NULL, 0, 0)); }
static int request_key_null_type(void)
{
	return res(syscall(SYS_request_key, NULL, NULL, NULL, 0));
}

static int kexec_load_too_many(void) { return res(syscall(SYS_kexec_load, 0, 17, NULL, 0)); }
static int kexec_file_load_bad_fd(void)
{
	return res(syscall(SYS_kexec_file_load, -1, -1, 0, NULL, 0));
}
static int init_module_empty(void) { return res(syscall(SYS_init_module, NULL, 0, "")); }
static int finit_module_bad_fd(void) { return res(syscall(SYS_finit_module, -1, "", 0)); }
static int delete_module_missing(void)
{
	return res(syscall(SYS_delete_module, "osb_no_such_module", 0));
}
static int reboot_bad_magic(void)
{
	return res(syscall(SYS_reboot, LINUX_REBOOT_MAGIC1, 0, LINUX_REBOOT_CMD_CAD_OFF, NULL));
}
static int swapon_missing(void) { return res(syscall(SYS_swapon, MISSING_PATH, 0)); }
static int swapoff_missing(void) { return res(syscall(SYS_swapoff, MISSING_PATH)); }
static int acct_missing(void) { return res(syscall(SYS_acct, MISSING_PATH)); }
/* <sys/quota.h>'s QCMD shifts the int Q_SYNC (0x800001) left by 8, which
 * overflows int (undefined; UBSan stops the test); the same bits, unsigned. */
#define QCMD_U(cmd, type) ((int)(((unsigned)(cmd) << SUBCMDSHIFT) | ((type) & SUBCMDMASK)))
static int quotactl_bad_type(void)
{
	return res(syscall(SYS_quotactl, QCMD_U(Q_SYNC, 99), NULL, 0, NULL));
}
static int quotactl_fd_bad_fd(void)
{
	return res(syscall(SYS_quotactl_fd, -1, QCMD_U(Q_SYNC, USRQUOTA), 0, NULL));
}
static int clock_settime_monotonic(void)
{
	struct timespec ts = { 1, 0 };

	return res(syscall(SYS_clock_settime, CLOCK_MONOTONIC, &ts));
}
static int clock_adjtime_bad_clock(void)
{
	struct timex tx;

	memset(&tx, 0, sizeof(tx));
	return res(syscall(SYS_clock_adjtime, 0x7fffffff, &tx));
}
static int settimeofday_bad_usec(void)
{
	struct timeval tv = { 1, 2000000 };

	return res(syscall(SYS_settimeofday, &tv, NULL));
}
static int adjtimex_read(void)
{
	struct timex tx;

	memset(&tx, 0, sizeof(tx));
	return res(syscall(SYS_adjtimex, &tx));
}
static int name_to_handle_at_bad_flags(void)
{
	char buf[sizeof(struct file_handle) + 128];
	struct file_handle *fh = (struct file_handle *)buf;
	int mnt;

	fh->handle_bytes = 128;
	return res(syscall(SYS_name_to_handle_at, AT_FDCWD, "/", fh, &mnt, 0x1));
}
static int open_by_handle_at_bad_fd(void)
{
	return res_fd(syscall(SYS_open_by_handle_at, -1, NULL, 0));
}
static int lookup_dcookie_zero(void) { return res(syscall(SYS_lookup_dcookie, 0, NULL, 0)); }
static int nfsservctl_zero(void) { return res(syscall(SYS_nfsservctl, 0, NULL, NULL)); }
static int syslog_bad_type(void) { return res(syscall(SYS_syslog, 0x7fff, NULL, 0)); }

static int sock(unsigned long family, int type)
{
	return res_fd(syscall(SYS_socket, family, type, 0));
}
static int socket_af_packet(void) { return sock(AF_PACKET, BAD_SOCK_TYPE); }
static int socket_af_alg(void) { return sock(AF_ALG, BAD_SOCK_TYPE); }
static int socket_af_vsock(void) { return sock(AF_VSOCK, BAD_SOCK_TYPE); }
static int socket_af_unspec(void) { return sock(AF_UNSPEC, BAD_SOCK_TYPE); }
static int socket_af_packet_high_bits(void) { return sock(HIGH | AF_PACKET, BAD_SOCK_TYPE); }
static int socket_family_63(void) { return sock(63, BAD_SOCK_TYPE); }
static int socket_family_minus_one(void) { return sock(0xffffffffUL, BAD_SOCK_TYPE); }
/* Invalid flag bits make the unfiltered kernel say EINVAL; the filter
 * only looks at the type's low four bits, as the kernel does. */
static int socket_inet_sock_packet(void) { return sock(AF_INET, SOCK_PACKET | 0x100); }
static int socket_af_unix(void) { return sock(AF_UNIX, SOCK_STREAM); }
static int socket_af_inet(void) { return sock(AF_INET, SOCK_STREAM); }
static int socket_af_inet6(void) { return sock(AF_INET6, SOCK_STREAM); }
static int socket_af_netlink(void) { return sock(AF_NETLINK, SOCK_RAW); }
/* The kernel reads the family as an int: this is AF_UNIX to it. */
static int socket_af_unix_high_bits(void) { return sock(HIGH | AF_UNIX, SOCK_STREAM); }

static int pair(unsigned long family, int type)
{
	int sv[2];
	long r = syscall(SYS_socketpair, family, type, 0, sv);

	if (r < 0)
		return errno;
	close(sv[0]);
	close(sv[1]);
	return 0;
}
static int socketpair_af_packet(void) { return pair(AF_PACKET, BAD_SOCK_TYPE); }
static int socketpair_af_unix(void) { return pair(AF_UNIX, SOCK_STREAM); }

static int pers(unsigned long v) { return res(syscall(SYS_personality, v)); }
static int personality_read_implies_exec(void) { return pers(READ_IMPLIES_EXEC); }
static int personality_rie_high_bits(void) { return pers(HIGH | READ_IMPLIES_EXEC); }
static int personality_bsd(void) { return pers(PER_BSD); }
static int personality_uname26(void) { return pers(UNAME26); }
static int personality_top_bit(void) { return pers(0x80000000UL); }
static int personality_all_but_bit0(void) { return pers(0xfffffffeUL); }
static int personality_linux32_rie(void) { return pers(PER_LINUX32 | READ_IMPLIES_EXEC); }
static int personality_linux(void) { return pers(PER_LINUX); }
static int personality_query(void) { return pers(0xffffffffUL); }
static int personality_query_high_bits(void) { return pers(HIGH | 0xffffffffUL); }
static int personality_linux_high_bits(void) { return pers(HIGH | PER_LINUX); }
static int personality_linux32(void) { return pers(PER_LINUX32); }
static int personality_no_randomize(void) { return pers(ADDR_NO_RANDOMIZE); }
static int personality_linux32_no_randomize(void)
{
	return pers(PER_LINUX32 | ADDR_NO_RANDOMIZE);
}

static struct sock_fprog allow_all_prog(struct sock_filter *insn)
{
	struct sock_fprog prog = { 1, insn };

	*insn = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	return prog;
}
static int nested_seccomp_prctl(void)
{
	struct sock_filter insn;
	struct sock_fprog prog = allow_all_prog(&insn);

	/* Unprivileged callers need no_new_privs first, as in the sandbox. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return errno;
	return res(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0));
}
static int nested_seccomp_syscall(void)
{
	struct sock_filter insn;
	struct sock_fprog prog = allow_all_prog(&insn);

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return errno;
	return res(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog));
}
static int landlock_version(void)
{
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	if (v < 0)
		return errno;
	return v > 0 ? 0 : R_WRONG_VALUE;
}

#if defined(__x86_64__)
/* The i386 ABI from a 64-bit process; the kernel returns -errno. Only
 * 32-bit values fit: the calls use no pointers above 4 GiB. */
static long i386_call(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("int $0x80"
	                 : "=a"(ret)
	                 : "a"(nr), "b"(a), "c"(b), "d"(c)
	                 : "memory", "r8", "r9", "r10", "r11");
	return ret;
}
static int res32(long r)
{
	if (r < 0 && r > -4096)
		return (int)-r;
	return 0;
}
static int i386_mount_bad_type(void) { return res32(i386_call(21, 0, 0, 1)); }
static int i386_umount_null(void) { return res32(i386_call(22, 0, 0, 0)); }
static int i386_socketcall_bad_args(void) { return res32(i386_call(102, 1, 1, 0)); }
static int i386_socket_af_packet(void)
{
	return res32(i386_call(359, AF_PACKET, BAD_SOCK_TYPE, 0));
}
static int i386_socket_af_unix(void)
{
	long r = i386_call(359, AF_UNIX, SOCK_STREAM, 0);

	if (r >= 0)
		close((int)r);
	return res32(r);
}
static int i386_clone_newuser(void)
{
	return res32(i386_call(120, CLONE_NEWUSER | CLONE_THREAD, 0, 0));
}
static int i386_clone3_size0(void) { return res32(i386_call(435, 0, 0, 0)); }
static int i386_unshare_nothing(void) { return res32(i386_call(310, 0, 0, 0)); }
static int i386_personality_rie(void) { return res32(i386_call(136, READ_IMPLIES_EXEC, 0, 0)); }
static int i386_ioctl_tiocsti(void) { return res32(i386_call(54, -1, TIOCSTI, 0)); }
static int i386_fsopen_null(void) { return res32(i386_call(430, 0, 0, 0)); }
static int i386_io_uring_setup_zero(void) { return res32(i386_call(425, 0, 0, 0)); }
static int i386_ptrace_missing_pid(void)
{
	return res32(i386_call(26, PTRACE_ATTACH, MISSING_PID, 0));
}
static int i386_clock_settime64_monotonic(void)
{
	return res32(i386_call(404, CLOCK_MONOTONIC, 0, 0));
}
static int i386_getpid(void) { return i386_call(20, 0, 0, 0) == getpid() ? 0 : R_WRONG_VALUE; }
static int x32_mount_bad_type(void)
{
	return res(syscall(X32_BIT | SYS_mount, "none", "/", (void *)1, 0UL, NULL));
}
static int x32_socket_af_packet(void)
{
	return res(syscall(X32_BIT | SYS_socket, AF_PACKET, BAD_SOCK_TYPE, 0));
}
#endif

/* ---- the table ---------------------------------------------------------- */

enum kind {
	DENY,          /* unfiltered, the kernel answers differently on any host */
	DENY_HOSTDEP,  /* unfiltered answer depends on privileges or kernel config */
	ALLOW,         /* the filter must not change the answer */
};

typedef struct call {
	const char *name;
	int (*fn)(void);
	int want;        /* errno under the filter; 0: success */
	enum kind kind;
} call;

#define C(fn, want, kind) { #fn, fn, want, kind }

static const call calls[] = {
	C(mount_bad_type, EPERM, DENY),
	C(umount2_missing_path, EPERM, DENY),
	C(chroot_missing_path, EPERM, DENY),
	C(pivot_root_null, EPERM, DENY_HOSTDEP),
	C(fsopen_null, ENOSYS, DENY),
	C(fsconfig_bad_fd, ENOSYS, DENY),
	C(fsmount_bad_fd, ENOSYS, DENY),
	C(fspick_bad_fd, ENOSYS, DENY),
	C(move_mount_bad_fd, ENOSYS, DENY),
	C(open_tree_bad_fd, ENOSYS, DENY),
	C(mount_setattr_size0, ENOSYS, DENY),
	C(unshare_newuser, EPERM, DENY_HOSTDEP),
	C(unshare_nothing, EPERM, DENY),
	C(setns_bad_fd, EPERM, DENY),
	C(clone_newns, EPERM, DENY),
	C(clone_newcgroup, EPERM, DENY),
	C(clone_newuts, EPERM, DENY),
	C(clone_newipc, EPERM, DENY),
	C(clone_newuser, EPERM, DENY),
	C(clone_newpid, EPERM, DENY),
	C(clone_newnet, EPERM, DENY),
	C(clone_newtime, EPERM, DENY),
	C(clone_newuser_high_bits, EPERM, DENY),
	C(clone3_size0, ENOSYS, DENY),
	C(fork_plain, 0, ALLOW),
	C(thread_create, 0, ALLOW),
	C(ioctl_tiocsti, EPERM, DENY),
	C(ioctl_tiocsti_high_bits, EPERM, DENY),
	C(ioctl_tioclinux, EPERM, DENY),
	C(ioctl_fionread, EBADF, ALLOW),
	C(io_uring_setup_zero, ENOSYS, DENY),
	C(io_uring_enter_bad_fd, ENOSYS, DENY),
	C(io_uring_register_bad_fd, ENOSYS, DENY),
	C(userfaultfd_bad_flags, EPERM, DENY),
	C(perf_event_open_bad_flags, EPERM, DENY),
	C(bpf_lookup_bad_map, EPERM, DENY),
	C(ptrace_missing_pid, EPERM, DENY),
	C(process_vm_readv_missing_pid, EPERM, DENY),
	C(process_vm_writev_missing_pid, EPERM, DENY),
	C(kcmp_missing_pid, EPERM, DENY),
	C(pidfd_getfd_bad_fd, EPERM, DENY),
	C(keyctl_bad_op, EPERM, DENY),
	C(add_key_null_type, EPERM, DENY),
	C(request_key_null_type, EPERM, DENY),
	C(kexec_load_too_many, EPERM, DENY_HOSTDEP),
	C(kexec_file_load_bad_fd, EPERM, DENY_HOSTDEP),
	C(init_module_empty, EPERM, DENY_HOSTDEP),
	C(finit_module_bad_fd, EPERM, DENY_HOSTDEP),
	C(delete_module_missing, EPERM, DENY_HOSTDEP),
	C(reboot_bad_magic, EPERM, DENY_HOSTDEP),
	C(swapon_missing, EPERM, DENY_HOSTDEP),
	C(swapoff_missing, EPERM, DENY_HOSTDEP),
	C(acct_missing, EPERM, DENY_HOSTDEP),
	C(quotactl_bad_type, EPERM, DENY),
	C(quotactl_fd_bad_fd, EPERM, DENY),
	C(clock_settime_monotonic, EPERM, DENY),
	C(clock_adjtime_bad_clock, EPERM, DENY),
	C(settimeofday_bad_usec, EPERM, DENY),
	C(adjtimex_read, 0, ALLOW),
	C(name_to_handle_at_bad_flags, EPERM, DENY),
	C(open_by_handle_at_bad_fd, EPERM, DENY_HOSTDEP),
	C(lookup_dcookie_zero, EPERM, DENY_HOSTDEP),
	C(nfsservctl_zero, EPERM, DENY),
	C(syslog_bad_type, EPERM, DENY_HOSTDEP),
	C(socket_af_packet, EPERM, DENY),
	C(socket_af_alg, EPERM, DENY),
	C(socket_af_vsock, EPERM, DENY),
	C(socket_af_unspec, EPERM, DENY),
	C(socket_af_packet_high_bits, EPERM, DENY),
	C(socket_family_63, EPERM, DENY),
	C(socket_family_minus_one, EPERM, DENY),
	C(socket_inet_sock_packet, EPERM, DENY),
	C(socket_af_unix, 0, ALLOW),
	C(socket_af_inet, 0, ALLOW),
	C(socket_af_inet6, 0, ALLOW),
	C(socket_af_netlink, 0, ALLOW),
	C(socket_af_unix_high_bits, 0, ALLOW),
	C(socketpair_af_packet, EPERM, DENY),
	C(socketpair_af_unix, 0, ALLOW),
	C(personality_read_implies_exec, EPERM, DENY),
	C(personality_rie_high_bits, EPERM, DENY),
	C(personality_bsd, EPERM, DENY),
	C(personality_uname26, EPERM, DENY),
	C(personality_top_bit, EPERM, DENY),
	C(personality_all_but_bit0, EPERM, DENY),
	C(personality_linux32_rie, EPERM, DENY),
	C(personality_linux, 0, ALLOW),
	C(personality_query, 0, ALLOW),
	C(personality_query_high_bits, 0, ALLOW),
	C(personality_linux_high_bits, 0, ALLOW),
	C(personality_linux32, 0, ALLOW),
	C(personality_no_randomize, 0, ALLOW),
	C(personality_linux32_no_randomize, 0, ALLOW),
	C(nested_seccomp_prctl, 0, ALLOW),
	C(nested_seccomp_syscall, 0, ALLOW),
	C(landlock_version, 0, ALLOW),
#if defined(__x86_64__)
	C(i386_mount_bad_type, EPERM, DENY),
	C(i386_umount_null, EPERM, DENY),
	C(i386_socketcall_bad_args, EPERM, DENY),
	C(i386_socket_af_packet, EPERM, DENY),
	C(i386_socket_af_unix, 0, ALLOW),
	C(i386_clone_newuser, EPERM, DENY),
	C(i386_clone3_size0, ENOSYS, DENY),
	C(i386_unshare_nothing, EPERM, DENY),
	C(i386_personality_rie, EPERM, DENY),
	C(i386_ioctl_tiocsti, EPERM, DENY),
	C(i386_fsopen_null, ENOSYS, DENY),
	C(i386_io_uring_setup_zero, ENOSYS, DENY),
	C(i386_ptrace_missing_pid, EPERM, DENY),
	C(i386_clock_settime64_monotonic, EPERM, DENY),
	C(i386_getpid, 0, ALLOW),
	C(x32_mount_bad_type, EPERM, DENY),
	C(x32_socket_af_packet, EPERM, DENY),
#endif
};

/* Indexes of the calls whose unfiltered answer is known (DENY, ALLOW). */
static size_t control[N(calls)];
static size_t n_control;

START_TEST(test_filtered_call_gets_expected_errno)
{
	const call *c = &calls[_i];
	int fd = filter_fd_new();
	int r = run_child(c->fn, fd);
	char got[64], want[64];

	close(fd);
	ck_assert_msg(r == c->want, "%s under the filter: got %s, want %s", c->name,
	              result_name(r, got, sizeof(got)), result_name(c->want, want, sizeof(want)));
}
END_TEST

START_TEST(test_unfiltered_call_differs_only_where_denied)
{
	const call *c = &calls[control[_i]];
	int r = run_child(c->fn, -1);
	char got[64];

	if (c->kind == ALLOW)
		ck_assert_msg(r == c->want, "%s without the filter: got %s, want the same "
		              "answer as with it", c->name, result_name(r, got, sizeof(got)));
	else
		ck_assert_msg(r != c->want && r < R_SETUP_FAILED,
		              "%s without the filter: got %s, which cannot tell the filter's "
		              "denial apart", c->name, result_name(r, got, sizeof(got)));
}
END_TEST

/* Both value-set rules against the kernel's own reading of the argument
 * (its low 32 bits), for every value below 4096, every single bit, their
 * complements, and pseudo-random 64-bit values with any upper half. */
static bool family_allowed(uint32_t f)
{
	return f == AF_UNIX || f == AF_INET || f == AF_INET6 || f == AF_NETLINK;
}

static bool persona_allowed(uint32_t p)
{
	return p == PER_LINUX || p == PER_LINUX32 || p == ADDR_NO_RANDOMIZE ||
	       p == (PER_LINUX32 | ADDR_NO_RANDOMIZE) || p == 0xffffffffU;
}

static bool value_ok(uint64_t v)
{
	long s = syscall(SYS_socket, v, BAD_SOCK_TYPE, 0);
	int se = errno;
	long p = syscall(SYS_personality, v);
	int pe = errno;

	if (s >= 0 || (se == EPERM) == family_allowed((uint32_t)v))
		return false;
	return (p < 0 && pe == EPERM) != persona_allowed((uint32_t)v);
}

static int sweep_values(void)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	for (uint64_t v = 0; v < 4096; v++)
		if (!value_ok(v) || !value_ok(v | (v << 32)))
			return R_WRONG_VALUE;
	for (unsigned b = 0; b < 64; b++)
		if (!value_ok(1ULL << b) || !value_ok(~(1ULL << b)) ||
		    !value_ok(~(1ULL << b) & 0xffffffffULL))
			return R_WRONG_VALUE;
	for (int i = 0; i < 20000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (!value_ok(x) || !value_ok(x & 0xffffffff000000ffULL))
			return R_WRONG_VALUE;
	}
	return 0;
}

START_TEST(test_value_set_rules_match_the_kernels_32_bit_view)
{
	int fd = filter_fd_new();
	int r = run_child(sweep_values, fd);

	close(fd);
	ck_assert_int_eq(r, 0);
}
END_TEST

/* ---- the exported filter ------------------------------------------------ */

START_TEST(test_build_fd_returns_sealed_bpf_memfd)
{
	int fd = filter_fd_new();
	struct stat st;
	char path[64], link[128];
	ssize_t n;

	ck_assert_int_ge(fd, 3);
	ck_assert_int_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	ck_assert_int_eq(fcntl(fd, F_GET_SEALS),
	                 F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL);
	ck_assert_int_eq(lseek(fd, 0, SEEK_CUR), 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert_int_gt(st.st_size, 0);
	ck_assert_int_eq(st.st_size % (off_t)sizeof(struct sock_filter), 0);
	errno = 0;
	ck_assert_int_eq(write(fd, "x", 1), -1);
	ck_assert_int_eq(errno, EPERM);
	errno = 0;
	ck_assert_int_eq(ftruncate(fd, 0), -1);
	ck_assert_int_eq(errno, EPERM);
	errno = 0;
	ck_assert_int_eq(fcntl(fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE), -1);
	ck_assert_int_eq(errno, EPERM);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	ck_assert_int_gt(n, 0);
	link[n] = '\0';
	ck_assert_str_eq(link, "/memfd:osb-seccomp (deleted)");
	close(fd);
}
END_TEST

static char *read_fd(int fd, size_t *len)
{
	struct stat st;
	char *buf;

	ck_assert_int_eq(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(pread(fd, buf, (size_t)st.st_size, 0), st.st_size);
	*len = (size_t)st.st_size;
	return buf;
}

START_TEST(test_build_fd_is_deterministic)
{
	int a = filter_fd_new(), b = filter_fd_new();
	size_t la, lb;
	char *x = read_fd(a, &la), *y = read_fd(b, &lb);

	ck_assert_uint_eq(la, lb);
	ck_assert_int_eq(memcmp(x, y, la), 0);
	free(x);
	free(y);
	close(a);
	close(b);
}
END_TEST

/* The program built into the library (lib/gen-default-filter) is what
 * libseccomp compiles from the group now, byte for byte: a launch that
 * copies it loads the same filter as one that compiles. */
START_TEST(test_build_time_default_program_equals_a_fresh_compile)
{
	osb_error err = { 0 };
	size_t n, lb, lc;
	const sc_rule *def = seccomp_default_group(&n);
	int built = filter_fd_new(), fresh = -1;
	char *x, *y;

	ck_assert(seccomp_default_prebuilt());
	ck_assert_msg(seccomp_build_fd_from(seccomp_group_name(), def, n, &fresh, &err) == 0,
	              "compile: %s", err.message);
	x = read_fd(built, &lb);
	y = read_fd(fresh, &lc);
	ck_assert_uint_eq(lb, lc);
	ck_assert_int_eq(memcmp(x, y, lb), 0);
	free(x);
	free(y);
	close(built);
	close(fresh);
}
END_TEST

static char *pfc_text(void)
{
	osb_error err = { 0 };
	char *text = NULL;

	ck_assert_msg(seccomp_export_text(NULL, &text, &err) == 0, "export: %s", err.message);
	ck_assert_ptr_nonnull(text);
	return text;
}

/* The PFC text of one arch, up to the next arch or the bad-arch action. */
static char *pfc_section(const char *text, const char *arch)
{
	char head[96];
	const char *start, *end, *next;

	snprintf(head, sizeof(head), "# filter for arch %s (", arch);
	start = strstr(text, head);
	ck_assert_msg(start != NULL, "no PFC section for %s", arch);
	next = strstr(start + 1, "# filter for arch ");
	end = strstr(start, "# invalid architecture action");
	ck_assert_ptr_nonnull(end);
	if (next && next < end)
		end = next;
	return strndup(start, (size_t)(end - start));
}

static void expect_rule(const char *section, const char *arch, const char *name,
                        const char *action)
{
	char head[96];
	const char *p;

	snprintf(head, sizeof(head), "# filter for syscall \"%s\" (", name);
	p = strstr(section, head);
	ck_assert_msg(p != NULL, "arch %s has no rule for %s", arch, name);
	ck_assert_msg(strstr(p, action) != NULL, "arch %s: %s lacks %s", arch, name, action);
}

START_TEST(test_pfc_gives_x86_64_x86_and_x32_the_same_rules)
{
	static const char *const arches[] = { "x86_64", "x86", "x32" };
	static const char *const rules[][2] = {
		{ "mount", "action ERRNO(1);" },    { "fsopen", "action ERRNO(38);" },
		{ "clone3", "action ERRNO(38);" },  { "unshare", "action ERRNO(1);" },
		{ "clone", "action ERRNO(1);" },    { "socket", "action ERRNO(1);" },
		{ "ioctl", "action ERRNO(1);" },    { "personality", "action ERRNO(1);" },
		{ "io_uring_setup", "action ERRNO(38);" }, { "bpf", "action ERRNO(1);" },
		{ "ptrace", "action ERRNO(1);" },   { "open_by_handle_at", "action ERRNO(1);" },
	};
	char *text = pfc_text();

	for (size_t a = 0; a < N(arches); a++) {
		char *section = pfc_section(text, arches[a]);

		for (size_t r = 0; r < N(rules); r++)
			expect_rule(section, arches[a], rules[r][0], rules[r][1]);
		free(section);
	}
	ck_assert_ptr_nonnull(strstr(text, "# invalid architecture action\naction KILL_PROCESS;"));
	free(text);
}
END_TEST

START_TEST(test_pfc_denies_socketcall_and_32bit_clock_setters_on_x86)
{
	char *text = pfc_text();
	char *x86 = pfc_section(text, "x86");

	ck_assert_ptr_nonnull(strstr(x86, "# filter for syscall \"socketcall\" (102)"));
	ck_assert_ptr_nonnull(strstr(x86, "# filter for syscall \"clock_settime64\" (404)"));
	ck_assert_ptr_nonnull(strstr(x86, "# filter for syscall \"stime\" (25)"));
	ck_assert_ptr_nonnull(strstr(x86, "# filter for syscall \"umount\" (22)"));
	expect_rule(x86, "x86", "socketcall", "action ERRNO(1);");
	free(x86);
	free(text);
}
END_TEST

START_TEST(test_pfc_masks_socket_family_and_ioctl_request_to_32_bits)
{
	char *text = pfc_text();
	char *x86_64 = pfc_section(text, "x86_64");
	const char *ioctl_rule = strstr(x86_64, "# filter for syscall \"ioctl\" (16)");
	const char *socket_rule = strstr(x86_64, "# filter for syscall \"socket\" (41)");

	ck_assert_ptr_nonnull(ioctl_rule);
	ck_assert_ptr_nonnull(strstr(ioctl_rule, "if ($a1.lo32 & 0xffffffff == 21522)"));
	ck_assert_ptr_nonnull(strstr(ioctl_rule, "if ($a1.lo32 & 0xffffffff == 21532)"));
	ck_assert_ptr_nonnull(socket_rule);
	ck_assert_ptr_nonnull(strstr(socket_rule, "if ($a0.hi32 & 0x00000000 == 0)"));
	ck_assert_ptr_nonnull(strstr(socket_rule, "if ($a0.lo32 & 0x80000000 == 2147483648)"));
	free(x86_64);
	free(text);
}
END_TEST

START_TEST(test_pfc_lists_every_rule_of_the_group)
{
	size_t n;
	const sc_rule *rules = seccomp_default_group(&n);
	char *text = pfc_text();

	/* Changing the set means a new group version, not a silent edit. */
	ck_assert_uint_eq(n, 58);
	for (size_t i = 0; i < n; i++) {
		char head[96];

		snprintf(head, sizeof(head), "# filter for syscall \"%s\" (", rules[i].name);
		ck_assert_msg(strstr(text, head) != NULL, "no rule for %s", rules[i].name);
	}
	free(text);
}
END_TEST

START_TEST(test_group_leaves_restricting_syscalls_allowed)
{
	static const char *const keep[] = {
		"seccomp", "prctl", "landlock_create_ruleset", "landlock_add_rule",
		"landlock_restrict_self", "adjtimex",
	};
	size_t n;
	const sc_rule *rules = seccomp_default_group(&n);
	char *text = pfc_text();

	for (size_t k = 0; k < N(keep); k++) {
		char head[96];

		for (size_t i = 0; i < n; i++)
			ck_assert_str_ne(rules[i].name, keep[k]);
		snprintf(head, sizeof(head), "# filter for syscall \"%s\" (", keep[k]);
		ck_assert_msg(strstr(text, head) == NULL, "%s is filtered", keep[k]);
	}
	free(text);
}
END_TEST

START_TEST(test_group_name_is_versioned)
{
	ck_assert_str_eq(seccomp_group_name(), "osb-default-1");
}
END_TEST

/* ---- refusing to build partial filters ---------------------------------- */

static void expect_refused(const sc_rule *rules, size_t n, const char *message)
{
	osb_error err = { 0 };
	int fd = 12345;
	char *text = (char *)"unchanged";

	ck_assert_int_eq(seccomp_build_fd_from("test-1", rules, n, &fd, &err), -OSB_E_SECCOMP);
	ck_assert_int_eq(fd, -1);
	ck_assert_int_eq(err.code, OSB_E_SECCOMP);
	ck_assert_int_eq(err.sys_errno, EINVAL);
	ck_assert_str_eq(err.stage, "seccomp");
	ck_assert_str_eq(err.message, message);
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(seccomp_export_text_from("test-1", rules, n, &text, &err),
	                 -OSB_E_SECCOMP);
	ck_assert_ptr_null(text);
	ck_assert_str_eq(err.message, message);
}

START_TEST(test_unknown_syscall_name_fails_the_whole_build)
{
	static const sc_rule rules[] = {
		{ "mount", EPERM, SC_ARGS_ANY },
		{ "no_such_syscall", EPERM, SC_ARGS_ANY },
		{ "bpf", EPERM, SC_ARGS_ANY },
	};
	const struct scmp_version *v = seccomp_version();
	char want[256];

	snprintf(want, sizeof(want), "seccomp group test-1: unknown system call "
	         "\"no_such_syscall\"; check the spelling (libseccomp %u.%u.%u does not "
	         "know it)", v->major, v->minor, v->micro);
	expect_refused(rules, N(rules), want);
}
END_TEST

START_TEST(test_syscall_newer_than_libseccomp_is_an_error)
{
	/* Linux 6.15; libseccomp 2.5.4 does not know it. */
	static const sc_rule rules[] = { { "open_tree_attr", ENOSYS, SC_ARGS_ANY } };
	const struct scmp_version *v = seccomp_version();
	char want[256];

	snprintf(want, sizeof(want), "seccomp group test-1: unknown system call "
	         "\"open_tree_attr\"; check the spelling (libseccomp %u.%u.%u does not "
	         "know it)", v->major, v->minor, v->micro);
	expect_refused(rules, N(rules), want);
}
END_TEST

START_TEST(test_empty_group_is_refused)
{
	expect_refused(NULL, 0, "seccomp group test-1: the group has no rules; an empty "
	               "filter is never built");
}
END_TEST

START_TEST(test_errno_out_of_range_is_refused)
{
	static const sc_rule rules[] = { { "mount", 0, SC_ARGS_ANY } };

	expect_refused(rules, N(rules), "seccomp group test-1: rule for mount: errno 0 is "
	               "outside 1..4095");
}
END_TEST

START_TEST(test_unknown_argument_kind_is_refused)
{
	static const sc_rule rules[] = { { "mount", EPERM, (enum sc_args)99 } };

	expect_refused(rules, N(rules), "seccomp group test-1: rule for mount: unknown "
	               "argument kind 99");
}
END_TEST

START_TEST(test_custom_group_builds_only_its_rules)
{
	static const sc_rule rules[] = { { "mount", EPERM, SC_ARGS_ANY } };
	osb_error err = { 0 };
	char *text = NULL;

	ck_assert_int_eq(seccomp_export_text_from("test-1", rules, N(rules), &text, &err), 0);
	ck_assert_ptr_nonnull(strstr(text, "# filter for syscall \"mount\" (165)"));
	ck_assert_ptr_null(strstr(text, "# filter for syscall \"umount2\""));
	free(text);
}
END_TEST

/* ---- policy rules --------------------------------------------------------- */

static osb_policy *policy_of(const char *text)
{
	osb_error err = { 0 };
	osb_policy *p = osb_policy_parse(text, strlen(text), "t.policy", &err);

	ck_assert_msg(p != NULL, "parse failed: %s", err.message);
	return p;
}

static int policy_fd(const osb_policy *p)
{
	osb_error err = { 0 };
	int fd = -1;

	ck_assert_msg(seccomp_build_fd(p, &fd, &err) == 0, "build failed: %s", err.message);
	ck_assert_int_ge(fd, 0);
	return fd;
}

static char *policy_pfc(const osb_policy *p)
{
	osb_error err = { 0 };
	char *text = NULL;

	ck_assert_msg(seccomp_export_text(p, &text, &err) == 0, "export: %s", err.message);
	ck_assert_ptr_nonnull(text);
	return text;
}

static int uname_call(void)
{
	struct utsname u;

	return res(syscall(SYS_uname, &u));
}
static int socket_af_unix_dgram(void) { return sock(AF_UNIX, SOCK_DGRAM); }

START_TEST(test_policy_deny_makes_call_fail_with_its_errno)
{
	osb_policy *p = policy_of("osb-policy 1\nseccomp deny uname errno=EACCES\n");
	osb_policy *q = policy_of("osb-policy 1\nseccomp deny uname\n");
	int fd = policy_fd(p), fq = policy_fd(q);

	ck_assert_int_eq(run_child(uname_call, -1), 0);
	ck_assert_int_eq(run_child(uname_call, fd), EACCES);
	ck_assert_int_eq(run_child(uname_call, fq), EPERM);
	/* The default group still holds around the policy's rule. */
	ck_assert_int_eq(run_child(mount_bad_type, fd), EPERM);
	ck_assert_int_eq(run_child(clone3_size0, fd), ENOSYS);
	ck_assert_int_eq(run_child(thread_create, fd), 0);
	close(fd);
	close(fq);
	osb_policy_free(p);
	osb_policy_free(q);
}
END_TEST

START_TEST(test_policy_deny_covers_every_abi)
{
	osb_policy *p = policy_of("osb-policy 1\nseccomp deny uname errno=EACCES\n");
	char *text = policy_pfc(p);
	static const char *const arches[] = { "x86_64", "x86", "x32" };

	for (size_t a = 0; a < N(arches); a++) {
		char *section = pfc_section(text, arches[a]);

		expect_rule(section, arches[a], "uname", "action ERRNO(13);");
		expect_rule(section, arches[a], "mount", "action ERRNO(1);");
		free(section);
	}
	free(text);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_policy_allow_removes_rule_from_filter)
{
	osb_policy *p = policy_of("osb-policy 1\nseccomp allow ptrace\n");
	char *def = pfc_text(), *text = policy_pfc(p);
	int fd = policy_fd(p);

	ck_assert_ptr_nonnull(strstr(def, "# filter for syscall \"ptrace\" ("));
	ck_assert_ptr_null(strstr(text, "# filter for syscall \"ptrace\" ("));
	ck_assert_ptr_nonnull(strstr(text, "# filter for syscall \"bpf\" ("));
	/* Unfiltered, the kernel's own answer: no such process. */
	ck_assert_int_eq(run_child(ptrace_missing_pid, fd), ESRCH);
	ck_assert_int_eq(run_child(bpf_lookup_bad_map, fd), EPERM);
	close(fd);
	free(def);
	free(text);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_policy_deny_of_argument_rule_denies_every_call)
{
	osb_policy *p = policy_of("osb-policy 1\nseccomp deny socket errno=EACCES\n");
	int fd = policy_fd(p);

	ck_assert_int_eq(run_child(socket_af_unix_dgram, -1), 0);
	ck_assert_int_eq(run_child(socket_af_unix_dgram, fd), EACCES);
	ck_assert_int_eq(run_child(socket_af_packet, fd), EACCES);
	ck_assert_int_eq(run_child(socketpair_af_packet, fd), EPERM);
	close(fd);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_policy_unknown_syscall_is_refused_at_its_column)
{
	static const char text[] = "osb-policy 1\nseccomp deny uname ptarce\n";
	osb_error err = { 0 };

	ck_assert_ptr_null(osb_policy_parse(text, strlen(text),
	                                    "t.policy", &err));
	ck_assert_int_eq(err.code, OSB_E_POLICY);
	ck_assert_str_eq(err.stage, "policy");
	ck_assert_str_eq(err.message, "t.policy:2:20: unknown system call \"ptarce\" (did you mean "
	                 "\"ptrace\"?)");
}
END_TEST

START_TEST(test_policy_filter_is_deterministic)
{
	osb_policy *a = policy_of("osb-policy 1\nseccomp deny uname sethostname\nseccomp allow ptrace\n");
	osb_policy *b = policy_of("osb-policy 1\nseccomp allow ptrace\nseccomp deny sethostname\n"
	                          "seccomp deny uname errno=EPERM\n");
	osb_policy *plain = policy_of("osb-policy 1\n");
	int fa = policy_fd(a), fb = policy_fd(b), fp = policy_fd(plain), fd = filter_fd_new();
	size_t la, lb, lp, ld;
	char *x = read_fd(fa, &la), *y = read_fd(fb, &lb), *z = read_fd(fp, &lp), *w = read_fd(fd, &ld);

	ck_assert_uint_eq(la, lb);
	ck_assert_int_eq(memcmp(x, y, la), 0);
	/* Without seccomp rules a policy gets exactly the default group. */
	ck_assert_uint_eq(lp, ld);
	ck_assert_int_eq(memcmp(z, w, lp), 0);
	free(x);
	free(y);
	free(z);
	free(w);
	close(fa);
	close(fb);
	close(fp);
	close(fd);
	osb_policy_free(a);
	osb_policy_free(b);
	osb_policy_free(plain);
}
END_TEST

START_TEST(test_seccomp_none_builds_no_filter)
{
	osb_policy *p = policy_of("osb-policy 1\nseccomp none\nseccomp allow ptrace\n");
	osb_error err = { 0 };
	char *text = NULL;
	int fd = 12345;

	ck_assert_int_eq(seccomp_build_fd(p, &fd, &err), 0);
	ck_assert_int_eq(fd, -1);
	ck_assert_int_eq(err.code, 0);
	ck_assert_int_eq(seccomp_export_text(p, &text, &err), 0);
	ck_assert_str_eq(text, "# seccomp none: the policy loads no filter\n");
	free(text);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_seccomp_none_with_deny_rule_is_refused)
{
	osb_policy *p = policy_of("osb-policy 1\nseccomp deny uname\n");
	osb_error err = { 0 };
	char *text = NULL;
	int fd = 12345;

	/* The parser refuses this combination; a policy changed in memory
	 * must not slip through either. */
	p->sc_mode = SC_NONE;
	ck_assert_int_eq(seccomp_build_fd(p, &fd, &err), -OSB_E_SECCOMP);
	ck_assert_int_eq(fd, -1);
	ck_assert_str_eq(err.stage, "seccomp");
	ck_assert_str_eq(err.message, "the policy says \"seccomp none\" but denies uname; refusing "
	                 "to run without the filter it asks for");
	ck_assert_int_eq(seccomp_export_text(p, &text, &err), -OSB_E_SECCOMP);
	ck_assert_ptr_null(text);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_allowing_every_group_rule_is_refused)
{
	size_t n;
	const sc_rule *rules = seccomp_default_group(&n);
	char text[4096] = "osb-policy 1\nseccomp allow";
	osb_error err = { 0 };
	osb_policy *p;
	int fd = 12345;

	for (size_t i = 0; i < n; i++) {
		strncat(text, " ", sizeof(text) - strlen(text) - 1);
		strncat(text, rules[i].name, sizeof(text) - strlen(text) - 1);
	}
	strncat(text, "\n", sizeof(text) - strlen(text) - 1);
	p = policy_of(text);
	ck_assert_int_eq(seccomp_build_fd(p, &fd, &err), -OSB_E_SECCOMP);
	ck_assert_int_eq(fd, -1);
	ck_assert_int_eq(err.sys_errno, EINVAL);
	ck_assert_str_eq(err.message, "seccomp group osb-default-1+policy: the policy's \"seccomp "
	                 "allow\" rules remove every rule of osb-default-1, and an empty filter is "
	                 "never built; write \"seccomp none\" to run without a filter");
	osb_policy_free(p);
}
END_TEST

static Suite *seccomp_suite(void)
{
	Suite *s = suite_create("seccomp");
	TCase *shape = tcase_create("shape");
	TCase *refuse = tcase_create("refuse");
	TCase *calls_tc = tcase_create("calls");
	TCase *policy_tc = tcase_create("policy");

	tcase_add_test(shape, test_build_fd_returns_sealed_bpf_memfd);
	tcase_add_test(shape, test_build_fd_is_deterministic);
	tcase_add_test(shape, test_build_time_default_program_equals_a_fresh_compile);
	tcase_add_test(shape, test_pfc_gives_x86_64_x86_and_x32_the_same_rules);
	tcase_add_test(shape, test_pfc_denies_socketcall_and_32bit_clock_setters_on_x86);
	tcase_add_test(shape, test_pfc_masks_socket_family_and_ioctl_request_to_32_bits);
	tcase_add_test(shape, test_pfc_lists_every_rule_of_the_group);
	tcase_add_test(shape, test_group_leaves_restricting_syscalls_allowed);
	tcase_add_test(shape, test_group_name_is_versioned);
	tcase_add_test(refuse, test_unknown_syscall_name_fails_the_whole_build);
	tcase_add_test(refuse, test_syscall_newer_than_libseccomp_is_an_error);
	tcase_add_test(refuse, test_empty_group_is_refused);
	tcase_add_test(refuse, test_errno_out_of_range_is_refused);
	tcase_add_test(refuse, test_unknown_argument_kind_is_refused);
	tcase_add_test(refuse, test_custom_group_builds_only_its_rules);
	tcase_add_loop_test(calls_tc, test_filtered_call_gets_expected_errno, 0, (int)N(calls));
	tcase_add_test(calls_tc, test_value_set_rules_match_the_kernels_32_bit_view);
	tcase_add_loop_test(calls_tc, test_unfiltered_call_differs_only_where_denied, 0,
	                    (int)n_control);
	tcase_set_timeout(calls_tc, 60);
	suite_add_tcase(s, shape);
	suite_add_tcase(s, refuse);
	suite_add_tcase(s, calls_tc);
	tcase_add_test(policy_tc, test_policy_deny_makes_call_fail_with_its_errno);
	tcase_add_test(policy_tc, test_policy_deny_covers_every_abi);
	tcase_add_test(policy_tc, test_policy_allow_removes_rule_from_filter);
	tcase_add_test(policy_tc, test_policy_deny_of_argument_rule_denies_every_call);
	tcase_add_test(policy_tc, test_policy_unknown_syscall_is_refused_at_its_column);
	tcase_add_test(policy_tc, test_policy_filter_is_deterministic);
	tcase_add_test(policy_tc, test_seccomp_none_builds_no_filter);
	tcase_add_test(policy_tc, test_seccomp_none_with_deny_rule_is_refused);
	tcase_add_test(policy_tc, test_allowing_every_group_rule_is_refused);
	suite_add_tcase(s, policy_tc);
	return s;
}

int main(void)
{
	SRunner *sr;
	int failed;

	for (size_t i = 0; i < N(calls); i++)
		if (calls[i].kind != DENY_HOSTDEP)
			control[n_control++] = i;
	sr = srunner_create(seccomp_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

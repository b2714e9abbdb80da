/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_seccomp.c — unit tests for lib/filter.c: the shape of the exported
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
 * __X32_SYSCALL_BIT. Calls that need IA-32 emulation, or the x32 ABI
 * itself, are probed for first (tests/skip.h) and reported as SKIP where
 * the kernel lacks them.
 *
 * What the kernel cannot run here is still tested: the offline cases run
 * the exact exported program through a classic BPF interpreter
 * (bpf-eval.h) with the audit arch and numbers of x86_64, i386 and x32,
 * against the group tables (every number, sweeps of the filtered
 * arguments), against answers written down by hand, and against the
 * kernel's own answers where it can run the ABI.
 */
#include "policy.h"
#include "filter.h"
#include "sha256.h"

#include <seccomp.h>

#include <check.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/kcmp.h>
#include <linux/landlock.h>
#include <linux/netlink.h>
#include <linux/reboot.h>
#include <linux/userfaultfd.h>
#include <netinet/in.h>
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

#include "../skip.h"
#include "bpf-eval.h"

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

static int sock3(unsigned long family, unsigned long type, unsigned long proto)
{
	return res_fd(syscall(SYS_socket, family, type, proto));
}
/* Netlink other than NETLINK_ROUTE; the bad type makes the unfiltered
 * kernel say EINVAL. */
static int socket_netlink_audit(void) { return sock3(AF_NETLINK, BAD_SOCK_TYPE, NETLINK_AUDIT); }
static int socket_netlink_uevent(void)
{
	return sock3(AF_NETLINK, BAD_SOCK_TYPE, NETLINK_KOBJECT_UEVENT);
}
static int socket_netlink_proto_top_bit(void)
{
	return sock3(AF_NETLINK, BAD_SOCK_TYPE, 0x80000000UL);
}
/* The kernel reads the protocol as an int: NETLINK_AUDIT, and ROUTE. */
static int socket_netlink_audit_high_bits(void)
{
	return sock3(AF_NETLINK, BAD_SOCK_TYPE, HIGH | NETLINK_AUDIT);
}
static int socket_netlink_route_high_bits(void) { return sock3(AF_NETLINK, SOCK_RAW, HIGH); }
/* MPTCP: an invalid flag bit makes the unfiltered kernel say EINVAL; the
 * filter looks at the type's low four bits (SOCK_STREAM), as the kernel. */
static int socket_inet_mptcp(void) { return sock3(AF_INET, SOCK_STREAM | 0x100, IPPROTO_MPTCP); }
static int socket_inet6_mptcp(void) { return sock3(AF_INET6, SOCK_STREAM | 0x100, IPPROTO_MPTCP); }
static int socket_inet_mptcp_high_bits(void)
{
	return sock3(AF_INET, SOCK_STREAM | 0x100, HIGH | IPPROTO_MPTCP);
}
/* Only SOCK_STREAM makes an MPTCP socket, but the protocol is denied with
 * any type (the kernel's answer would be EPROTONOSUPPORT). */
static int socket_inet_dgram_mptcp(void) { return sock3(AF_INET, SOCK_DGRAM, IPPROTO_MPTCP); }
static int socket_inet_tcp(void) { return sock3(AF_INET, SOCK_STREAM, IPPROTO_TCP); }

/* Calls newer than libseccomp 2.5.4's table: the kernel's answer depends on
 * its version, so they only run filtered. */
#define NR_LISTMOUNT 458
#define NR_OPEN_TREE_ATTR 467
#define NR_UNALLOCATED 1000
static int open_tree_attr_no_clone(void)
{
	return res_fd(syscall(NR_OPEN_TREE_ATTR, AT_FDCWD, "/", 0, NULL, 0));
}
static int listmount_root(void)
{
	uint64_t req[3] = { 24, 0xffffffffffffffffULL, 0 }, ids[8];

	return res(syscall(NR_LISTMOUNT, req, ids, 8UL, 0UL));
}
static int unallocated_number(void) { return res(syscall(NR_UNALLOCATED, 0, 0, 0)); }
static int modify_ldt_read(void)
{
	char buf[16];

	return res(syscall(SYS_modify_ldt, 0, buf, sizeof(buf)));
}
static int fanotify_init_bad_flags(void) { return res_fd(syscall(SYS_fanotify_init, ~0U, 0)); }
static int memfd_secret_bad_flags(void) { return res_fd(syscall(SYS_memfd_secret, ~0U)); }

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
/* Only AF_UNIX has socket pairs; the kernel's own answer is EOPNOTSUPP. */
static int socketpair_af_inet(void) { return pair(AF_INET, SOCK_STREAM); }

static int pers(unsigned long v) { return res(syscall(SYS_personality, v)); }
static int personality_read_implies_exec(void) { return pers(READ_IMPLIES_EXEC); }
static int personality_rie_high_bits(void) { return pers(HIGH | READ_IMPLIES_EXEC); }
static int personality_bsd(void) { return pers(PER_BSD); }
static int personality_uname26(void) { return pers(UNAME26); }
static int personality_top_bit(void) { return pers(0x80000000UL); }
static int personality_all_but_bit0(void) { return pers(0xfffffffeUL); }
static int personality_linux32_rie(void) { return pers(PER_LINUX32 | READ_IMPLIES_EXEC); }
static int personality_linux(void) { return pers(PER_LINUX); }

/* Modes on a path that does not exist: ENOENT unless the filter refuses
 * the mode first. */
#define MISSING "/nonexistent-osb-seccomp/f"
static int chmod_setuid_missing(void) { return res(chmod(MISSING, 04755)); }
static int chmod_setgid_missing(void) { return res(chmod(MISSING, 02755)); }
static int chmod_plain_missing(void) { return res(chmod(MISSING, 0755)); }
static int chmod_sticky_missing(void) { return res(chmod(MISSING, 01777)); }
static int fchmod_setuid_bad_fd(void) { return res(fchmod(-1, 06755)); }
static int fchmodat_setgid_missing(void) { return res(fchmodat(AT_FDCWD, MISSING, 02755, 0)); }
static int open_creat_setuid_missing(void)
{
	return res_fd(open(MISSING, O_CREAT | O_WRONLY | O_CLOEXEC, 04755));
}
static int open_creat_plain_missing(void)
{
	return res_fd(open(MISSING, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
}
static int open_setuid_mode_no_creat_missing(void)
{
	return res_fd(syscall(SYS_open, MISSING, O_RDONLY | O_CLOEXEC, 04755));
}
static int open_directory_root(void) { return res_fd(open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)); }
static int openat_tmpfile_setgid_missing(void)
{
	return res_fd(openat(AT_FDCWD, "/nonexistent-osb-seccomp", O_TMPFILE | O_RDWR | O_CLOEXEC, 02755));
}
static int creat_setuid_missing(void) { return res_fd(creat(MISSING, 04755)); }
static int mknod_setuid_missing(void) { return res(mknod(MISSING, S_IFREG | 04755, 0)); }
static int mknodat_setgid_missing(void) { return res(mknodat(AT_FDCWD, MISSING, S_IFREG | 02755, 0)); }
static int mknod_fifo_missing(void) { return res(mknod(MISSING, S_IFIFO | 0644, 0)); }
static int mkdir_setgid_missing(void) { return res(mkdir(MISSING, 02755)); }
static int openat2_size0(void) { return res_fd(syscall(437, AT_FDCWD, "/", NULL, 0)); }
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
static int i386_modify_ldt_read(void) { return res32(i386_call(123, 0, 0, 0)); }
static int i386_netlink_audit(void)
{
	return res32(i386_call(359, AF_NETLINK, BAD_SOCK_TYPE, NETLINK_AUDIT));
}
static int i386_open_tree_attr_bad_fd(void) { return res32(i386_call(NR_OPEN_TREE_ATTR, -1, 0, 0)); }
static int i386_unallocated_number(void) { return res32(i386_call(NR_UNALLOCATED, 0, 0, 0)); }
static int x32_getpid(void)
{
	return syscall(X32_BIT | SYS_getpid) == getpid() ? 0 : R_WRONG_VALUE;
}
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

/* What running a call needs from the kernel besides the filter. */
enum abi {
	ABI_ANY,       /* the native ABI; or an x32 call the filter refuses, which
	                * it does before the kernel looks for the x32 ABI */
	ABI_IA32,      /* int $0x80: IA-32 emulation, probed (tests/skip.h) */
	ABI_X32,       /* an x32 call that reaches the kernel: the x32 ABI */
};

typedef struct call {
	const char *name;
	int (*fn)(void);
	int want;        /* errno under the filter; 0: success */
	enum kind kind;
	enum abi abi;
} call;

#define C(fn, want, kind) { #fn, fn, want, kind, ABI_ANY }
#define C_IA32(fn, want, kind) { #fn, fn, want, kind, ABI_IA32 }
#define C_X32(fn, want, kind) { #fn, fn, want, kind, ABI_X32 }

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
	C(socket_family_minus_one, ENOSYS, DENY),
	C(socket_inet_sock_packet, EPERM, DENY),
	C(socket_af_unix, 0, ALLOW),
	C(socket_af_inet, 0, ALLOW),
	C(socket_af_inet6, 0, ALLOW),
	C(socket_af_netlink, 0, ALLOW),
	C(socket_af_unix_high_bits, 0, ALLOW),
	C(socket_netlink_audit, EPERM, DENY),
	C(socket_netlink_uevent, EPERM, DENY),
	C(socket_netlink_proto_top_bit, ENOSYS, DENY),
	C(socket_netlink_audit_high_bits, EPERM, DENY),
	C(socket_netlink_route_high_bits, 0, ALLOW),
	C(socket_inet_mptcp, EPERM, DENY),
	C(socket_inet6_mptcp, EPERM, DENY),
	C(socket_inet_mptcp_high_bits, EPERM, DENY),
	C(socket_inet_dgram_mptcp, EPERM, DENY),
	C(socket_inet_tcp, 0, ALLOW),
	C(open_tree_attr_no_clone, ENOSYS, DENY_HOSTDEP),
	C(listmount_root, ENOSYS, DENY_HOSTDEP),
	C(unallocated_number, ENOSYS, DENY_HOSTDEP),
	C(modify_ldt_read, EPERM, DENY),
	C(fanotify_init_bad_flags, EPERM, DENY),
	C(memfd_secret_bad_flags, EPERM, DENY),
	C(socketpair_af_packet, EPERM, DENY),
	C(socketpair_af_unix, 0, ALLOW),
	C(socketpair_af_inet, EPERM, DENY),
	C(personality_read_implies_exec, EPERM, DENY),
	C(personality_rie_high_bits, EPERM, DENY),
	C(personality_bsd, EPERM, DENY),
	C(personality_uname26, EPERM, DENY),
	C(personality_top_bit, ENOSYS, DENY),
	C(personality_all_but_bit0, ENOSYS, DENY),
	C(personality_linux32_rie, EPERM, DENY),
	C(personality_linux, 0, ALLOW),
	C(chmod_setuid_missing, EPERM, DENY),
	C(chmod_setgid_missing, EPERM, DENY),
	C(chmod_plain_missing, ENOENT, ALLOW),
	C(chmod_sticky_missing, ENOENT, ALLOW),
	C(fchmod_setuid_bad_fd, EPERM, DENY),
	C(fchmodat_setgid_missing, EPERM, DENY),
	C(open_creat_setuid_missing, EPERM, DENY),
	C(open_creat_plain_missing, ENOENT, ALLOW),
	C(open_setuid_mode_no_creat_missing, ENOENT, ALLOW),
	C(open_directory_root, 0, ALLOW),
	C(openat_tmpfile_setgid_missing, EPERM, DENY),
	C(creat_setuid_missing, EPERM, DENY),
	C(mknod_setuid_missing, EPERM, DENY),
	C(mknodat_setgid_missing, EPERM, DENY),
	C(mknod_fifo_missing, ENOENT, ALLOW),
	C(mkdir_setgid_missing, ENOENT, ALLOW),
	C(openat2_size0, ENOSYS, DENY),
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
	C_IA32(i386_mount_bad_type, EPERM, DENY),
	C_IA32(i386_umount_null, EPERM, DENY),
	C_IA32(i386_socketcall_bad_args, EPERM, DENY),
	C_IA32(i386_socket_af_packet, EPERM, DENY),
	C_IA32(i386_socket_af_unix, 0, ALLOW),
	C_IA32(i386_clone_newuser, EPERM, DENY),
	C_IA32(i386_clone3_size0, ENOSYS, DENY),
	C_IA32(i386_unshare_nothing, EPERM, DENY),
	C_IA32(i386_personality_rie, EPERM, DENY),
	C_IA32(i386_ioctl_tiocsti, EPERM, DENY),
	C_IA32(i386_fsopen_null, ENOSYS, DENY),
	C_IA32(i386_io_uring_setup_zero, ENOSYS, DENY),
	C_IA32(i386_ptrace_missing_pid, EPERM, DENY),
	C_IA32(i386_clock_settime64_monotonic, EPERM, DENY),
	C_IA32(i386_getpid, 0, ALLOW),
	C_IA32(i386_modify_ldt_read, EPERM, DENY),
	C_IA32(i386_netlink_audit, EPERM, DENY),
	C_IA32(i386_open_tree_attr_bad_fd, ENOSYS, DENY_HOSTDEP),
	C_IA32(i386_unallocated_number, ENOSYS, DENY_HOSTDEP),
	C_X32(x32_getpid, 0, ALLOW),
	C(x32_mount_bad_type, EPERM, DENY),
	C(x32_socket_af_packet, EPERM, DENY),
#endif
};

/* Indexes into calls[] for each test case: [0] the native ABI's calls
 * (tcase "calls"), [1] those that need IA-32 emulation or the x32 ABI
 * (tcase "abi32"); FILTERED every call, CONTROL those whose unfiltered
 * answer is known (DENY, ALLOW). Filled by main. */
static size_t filtered[2][N(calls)], n_filtered[2];
static size_t control[2][N(calls)], n_control[2];

/* What the probes found (main, before any test). */
static bool have_ia32, have_x32;
static char why_ia32[160], why_x32[160];

/* True when C needs an ABI this kernel lacks: the case is skipped (or fails
 * when OSB_REQUIRE names the ABI), never run and counted as passed. */
static bool abi_missing(const call *c)
{
	char reason[320];

	if (c->abi == ABI_IA32 && !have_ia32) {
		snprintf(reason, sizeof(reason), "%s not run: %s (the offline evaluation covers "
		         "the i386 rules)", c->name, why_ia32);
		return !osb_test_have("ia32", false, reason);
	}
	if (c->abi == ABI_X32 && !have_x32) {
		snprintf(reason, sizeof(reason), "%s not run: %s (the offline evaluation covers "
		         "the x32 rules)", c->name, why_x32);
		return !osb_test_have("x32", false, reason);
	}
	return false;
}

static void expect_filtered(const call *c)
{
	int fd, r;
	char got[64], want[64];

	if (abi_missing(c))
		return;
	fd = filter_fd_new();
	r = run_child(c->fn, fd);
	close(fd);
	ck_assert_msg(r == c->want, "%s under the filter: got %s, want %s", c->name,
	              result_name(r, got, sizeof(got)), result_name(c->want, want, sizeof(want)));
}

static void expect_unfiltered(const call *c)
{
	int r;
	char got[64];

	if (abi_missing(c))
		return;
	r = run_child(c->fn, -1);

	if (c->kind == ALLOW) {
		ck_assert_msg(r == c->want, "%s without the filter: got %s, want the same "
		              "answer as with it", c->name, result_name(r, got, sizeof(got)));
		return;
	}
	/* A call the kernel itself refuses an unprivileged caller (fanotify_init
	 * needs CAP_SYS_ADMIN) gives the filter's answer without it: the control
	 * proves something only as root. */
	if (r == c->want && geteuid() != 0) {
		char reason[160];

		snprintf(reason, sizeof(reason), "%s: the kernel refuses it to a non-root caller "
		         "itself, so the unfiltered control needs root", c->name);
		(void)osb_test_have("root", false, reason);
		return;
	}
	ck_assert_msg(r != c->want && r < R_SETUP_FAILED,
		              "%s without the filter: got %s, which cannot tell the filter's "
		              "denial apart", c->name, result_name(r, got, sizeof(got)));
}

START_TEST(test_filtered_call_gets_expected_errno)
{
	expect_filtered(&calls[filtered[0][_i]]);
}
END_TEST

START_TEST(test_unfiltered_call_differs_only_where_denied)
{
	expect_unfiltered(&calls[control[0][_i]]);
}
END_TEST

START_TEST(test_abi32_filtered_call_gets_expected_errno)
{
	expect_filtered(&calls[filtered[1][_i]]);
}
END_TEST

START_TEST(test_abi32_unfiltered_call_differs_only_where_denied)
{
	expect_unfiltered(&calls[control[1][_i]]);
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

/* What a group's socket rules answer: 0 (the call reaches the kernel),
 * EPERM, or FALLTHROUGH (the group's default: ENOSYS where it denies what
 * it does not know, 0 otherwise) for the values the kernel gives no
 * meaning: families from 64, netlink protocols from 32, IP protocols from
 * 256 (tests/unit is the only second reading of lib/filter.c's rules). */
static int socket_errno(enum sc_args kind, int fallthrough, uint64_t fam, uint64_t type,
                        uint64_t proto)
{
	uint32_t f = (uint32_t)fam, t = (uint32_t)type & 0xf, p = (uint32_t)proto;

	if (kind == SC_ARGS_SOCKET_FAMILY)
		return (!family_allowed(f) || (f == AF_INET && t == SOCK_PACKET)) ? EPERM : 0;
	if (f >= 64)
		return fallthrough;
	if (f == AF_UNIX)
		return 0;
	if (kind == SC_ARGS_SOCKETPAIR || !family_allowed(f))
		return EPERM;
	if (f == AF_NETLINK)
		return p == NETLINK_ROUTE ? 0 : p < 32 ? EPERM : fallthrough;
	if ((f == AF_INET && t == SOCK_PACKET) || p == IPPROTO_MPTCP)
		return EPERM;
	return p < 256 ? 0 : fallthrough;
}

static int personality_errno(bool deny_unknown, uint64_t v)
{
	uint32_t p = (uint32_t)v;

	if (persona_allowed(p))
		return 0;
	if (!deny_unknown)
		return EPERM;
	return (p & 0xf0000000) ? ENOSYS : EPERM;
}

/* Under the default group: the filter's answer where it refuses, else the
 * kernel's own (EINVAL for the bad socket type). */
static bool value_ok(uint64_t v)
{
	long s = syscall(SYS_socket, v, BAD_SOCK_TYPE, 0);
	int se = errno;
	long p = syscall(SYS_personality, v);
	int pe = p < 0 ? errno : 0;
	int want_s = socket_errno(SC_ARGS_SOCKET, ENOSYS, v, BAD_SOCK_TYPE, 0);

	if (s >= 0 || (want_s ? se != want_s : (se == EPERM || se == ENOSYS)))
		return false;
	return pe == personality_errno(true, v);
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

static const sc_group *group_named(const char *name)
{
	const sc_group *g = seccomp_group_find(name);

	ck_assert_msg(g != NULL, "no group %s", name);
	return g;
}

static osb_policy *policy_of(const char *text);
static int policy_fd(const osb_policy *p);

/* "seccomp GROUP" and nothing else. */
static osb_policy *policy_of_group(const sc_group *g)
{
	char text[128];

	snprintf(text, sizeof(text), "osb-policy 1\nseccomp %s\n", g->name);
	return policy_of(text);
}

/* The programs built into the library (lib/gen-default-filter) are what
 * libseccomp compiles from each group now, byte for byte: a launch that
 * copies one loads the same filter as one that compiles. */
START_TEST(test_build_time_programs_equal_a_fresh_compile)
{
	size_t n;
	const sc_group *groups = seccomp_groups(&n);

	ck_assert_uint_eq(n, 3);
	for (size_t i = 0; i < n; i++) {
		osb_policy *p = policy_of_group(&groups[i]);
		osb_error err = { 0 };
		size_t lb, lc;
		int built, fresh = -1;
		char *x, *y;

		ck_assert_msg(seccomp_policy_prebuilt(p), "%s is not prebuilt", groups[i].name);
		built = policy_fd(p);
		ck_assert_msg(seccomp_build_fd_group(&groups[i], &fresh, &err) == 0, "compile: %s",
		              err.message);
		x = read_fd(built, &lb);
		y = read_fd(fresh, &lc);
		ck_assert_uint_eq(lb, lc);
		ck_assert_int_eq(memcmp(x, y, lb), 0);
		free(x);
		free(y);
		close(built);
		close(fresh);
		osb_policy_free(p);
	}
}
END_TEST

/* A released group keeps its program: osb-default-1 and osb-default-2
 * compile to the very bytes they compiled to when each was the default
 * (libseccomp 2.5.4). */
static void expect_program(const char *group, const char *want, size_t insns)
{
	const struct scmp_version *v = seccomp_version();
	char text[64];
	osb_policy *p;
	int fd;
	size_t len;
	char *bpf, hex[2 * SHA256_DIGEST_LEN + 1];
	uint8_t digest[SHA256_DIGEST_LEN];

	snprintf(text, sizeof(text), "osb-policy 1\nseccomp %s\n", group);
	p = policy_of(text);
	fd = policy_fd(p);
	bpf = read_fd(fd, &len);
	sha256(bpf, len, digest);
	for (size_t i = 0; i < SHA256_DIGEST_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", digest[i]);
	if (v->major == 2 && v->minor == 5 && v->micro == 4)
		ck_assert_str_eq(hex, want);
	else
		printf("SKIP: libseccomp-2.5.4: %s's recorded program hash is libseccomp "
		       "2.5.4's; this is %u.%u.%u\n", group, v->major, v->minor, v->micro);
	ck_assert_uint_eq(len / 8, insns);
	free(bpf);
	close(fd);
	osb_policy_free(p);
}

START_TEST(test_osb_default_1_program_never_changes)
{
	expect_program("osb-default-1", "ec9f1467ecd3b3cadad6bcaf7e528e7e09ee0bcc6c111275384024e633d69b15",
	               648);
}
END_TEST

START_TEST(test_osb_default_2_program_never_changes)
{
	expect_program("osb-default-2", "7e680894acd8088da1bb95a803bb0b0cb75bf830b8d2076f575211782aa46476",
	               1891);
}
END_TEST

static char *pfc_of(const sc_group *g)
{
	osb_error err = { 0 };
	char *text = NULL;

	ck_assert_msg(seccomp_export_text_group(g, &text, &err) == 0, "export: %s", err.message);
	ck_assert_ptr_nonnull(text);
	return text;
}

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

/* The PFC text of one syscall's rule in SECTION, or NULL. */
static char *pfc_rule(const char *section, const char *name)
{
	char head[96];
	const char *p, *end;

	snprintf(head, sizeof(head), "# filter for syscall \"%s\" (", name);
	p = strstr(section, head);
	if (!p)
		return NULL;
	end = strstr(p + 1, "# filter for syscall ");
	if (!end)
		end = strstr(p, "# default action");
	return end ? strndup(p, (size_t)(end - p)) : strdup(p);
}

static void expect_rule(const char *section, const char *arch, const char *name,
                        const char *action)
{
	char *rule = pfc_rule(section, name);

	ck_assert_msg(rule != NULL, "arch %s has no rule for %s", arch, name);
	ck_assert_msg(strstr(rule, action) != NULL, "arch %s: %s lacks %s", arch, name, action);
	free(rule);
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
	char *text = pfc_of(group_named("osb-default-1"));

	for (size_t a = 0; a < N(arches); a++) {
		char *section = pfc_section(text, arches[a]);

		for (size_t r = 0; r < N(rules); r++)
			expect_rule(section, arches[a], rules[r][0], rules[r][1]);
		ck_assert_ptr_nonnull(strstr(section, "# default action\n  action ALLOW;"));
		free(section);
	}
	ck_assert_ptr_nonnull(strstr(text, "# invalid architecture action\naction KILL_PROCESS;"));
	free(text);
}
END_TEST

/* The default group answers ENOSYS to what no rule names, and its ENOSYS
 * rules (clone3, the new mount API, io_uring) are that default: they
 * appear nowhere, not even as allowed. */
START_TEST(test_pfc_default_group_denies_what_it_does_not_know)
{
	static const char *const arches[] = { "x86_64", "x86", "x32" };
	static const char *const rules[][2] = {
		{ "mount", "action ERRNO(1);" },    { "unshare", "action ERRNO(1);" },
		{ "clone", "action ERRNO(1);" },    { "socket", "action ERRNO(1);" },
		{ "ioctl", "action ERRNO(1);" },    { "personality", "action ERRNO(1);" },
		{ "modify_ldt", "action ERRNO(1);" }, { "fanotify_init", "action ERRNO(1);" },
		{ "memfd_secret", "action ERRNO(1);" }, { "read", "action ALLOW;" },
		{ "clone", "action ALLOW;" },       { "socket", "action ALLOW;" },
		{ "seccomp", "action ALLOW;" },     { "landlock_restrict_self", "action ALLOW;" },
	};
	static const char *const absent[] = { "clone3", "fsopen", "open_tree", "io_uring_setup" };
	char *text = pfc_text();

	for (size_t a = 0; a < N(arches); a++) {
		char *section = pfc_section(text, arches[a]);

		for (size_t r = 0; r < N(rules); r++)
			expect_rule(section, arches[a], rules[r][0], rules[r][1]);
		for (size_t r = 0; r < N(absent); r++)
			ck_assert_msg(pfc_rule(section, absent[r]) == NULL, "%s: %s has a rule",
			              arches[a], absent[r]);
		ck_assert_ptr_nonnull(strstr(section, "# default action\n  action ERRNO(38);"));
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
	char *ioctl_rule = pfc_rule(x86_64, "ioctl"), *socket_rule = pfc_rule(x86_64, "socket");

	ck_assert_ptr_nonnull(ioctl_rule);
	ck_assert_ptr_nonnull(strstr(ioctl_rule, "if ($a1.lo32 & 0xffffffff == 21522)"));
	ck_assert_ptr_nonnull(strstr(ioctl_rule, "if ($a1.lo32 & 0xffffffff == 21532)"));
	ck_assert_ptr_nonnull(socket_rule);
	ck_assert_ptr_nonnull(strstr(socket_rule, "if ($a0.hi32 & 0x00000000 == 0)"));
	/* Families 32 to 63: denied; 64 and up are left to ENOSYS. */
	ck_assert_ptr_nonnull(strstr(socket_rule, "if ($a0.lo32 & 0xffffffe0 == 32)"));
	ck_assert_ptr_nonnull(strstr(socket_rule, "if ($a2.lo32 & 0xffffffff == 262)"));
	free(ioctl_rule);
	free(socket_rule);
	free(x86_64);
	free(text);
}
END_TEST

/* The kernel reads these arguments as 32-bit ints: no comparison of any
 * group, on any ABI, may look at the upper half of the register. */
START_TEST(test_pfc_argument_rules_ignore_the_upper_half)
{
	static const char *const arches[] = { "x86_64", "x86", "x32" };
	static const char *const names[] = { "socket", "socketpair", "ioctl", "clone", "personality" };
	size_t n;
	const sc_group *groups = seccomp_groups(&n);

	for (size_t g = 0; g < n; g++) {
		char *text = pfc_of(&groups[g]);

		for (size_t a = 0; a < N(arches); a++) {
			char *section = pfc_section(text, arches[a]);

			for (size_t k = 0; k < N(names); k++) {
				char *rule = pfc_rule(section, names[k]);
				const char *hi = rule;
				size_t seen = 0;

				ck_assert_msg(rule != NULL, "%s %s: no rule for %s", groups[g].name,
				              arches[a], names[k]);
				while ((hi = strstr(hi, ".hi32 & 0x")) != NULL) {
					hi += strlen(".hi32 & 0x");
					ck_assert_msg(strncmp(hi, "00000000 == 0)", 14) == 0, "%s %s %s: %.30s",
					              groups[g].name, arches[a], names[k], hi);
					seen++;
				}
				/* libseccomp compares both halves on x86_64, the
				 * low half only on i386 and x32 (32-bit ints). */
				ck_assert_msg(strcmp(arches[a], "x86_64") == 0 ? seen > 0 : seen == 0,
				              "%s %s %s: %zu upper-half comparisons", groups[g].name,
				              arches[a], names[k], seen);
				free(rule);
			}
			free(section);
		}
		free(text);
	}
}
END_TEST

START_TEST(test_pfc_lists_every_rule_of_each_group)
{
	size_t n;
	const sc_group *groups = seccomp_groups(&n);

	/* Changing a set means a new group version, not a silent edit. */
	ck_assert_uint_eq(groups[0].n, 58);
	ck_assert_uint_eq(groups[1].n, 61);
	for (size_t g = 0; g < n; g++) {
		char *text = pfc_of(&groups[g]);

		for (size_t i = 0; i < groups[g].n; i++) {
			const sc_rule *r = &groups[g].rules[i];
			char head[96];
			/* An ENOSYS rule of a group that denies what it does not
			 * know is its default answer, not a rule. */
			bool listed = !(groups[g].deny_unknown && r->errnum == ENOSYS);

			snprintf(head, sizeof(head), "# filter for syscall \"%s\" (", r->name);
			ck_assert_msg((strstr(text, head) != NULL) == listed, "%s: rule for %s %s",
			              groups[g].name, r->name, listed ? "missing" : "present");
		}
		free(text);
	}
}
END_TEST

START_TEST(test_groups_leave_restricting_syscalls_alone)
{
	static const char *const keep[] = {
		"seccomp", "prctl", "landlock_create_ruleset", "landlock_add_rule",
		"landlock_restrict_self", "adjtimex",
	};
	size_t n;
	const sc_group *groups = seccomp_groups(&n);

	for (size_t g = 0; g < n; g++)
		for (size_t k = 0; k < N(keep); k++)
			for (size_t i = 0; i < groups[g].n; i++)
				ck_assert_str_ne(groups[g].rules[i].name, keep[k]);
}
END_TEST

START_TEST(test_group_names_are_versioned)
{
	size_t n;
	const sc_group *groups = seccomp_groups(&n);

	ck_assert_str_eq(seccomp_group_name(), "osb-default-3");
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(groups[0].name, "osb-default-1");
	ck_assert_uint_eq(groups[0].version, 1);
	ck_assert(!groups[0].deny_unknown);
	ck_assert_str_eq(groups[1].name, "osb-default-2");
	ck_assert_uint_eq(groups[1].version, 2);
	ck_assert(groups[1].deny_unknown);
	ck_assert_str_eq(groups[2].name, "osb-default-3");
	ck_assert_uint_eq(groups[2].version, 3);
	ck_assert(groups[2].deny_unknown);
	ck_assert_ptr_eq(seccomp_policy_group(NULL), &groups[2]);
	ck_assert_ptr_eq(seccomp_group_find("osb-default-1"), &groups[0]);
	ck_assert_ptr_null(seccomp_group_find("osb-default-4"));
	ck_assert_ptr_null(seccomp_group_find("default"));
}
END_TEST

/* osb_seccomp_group_denies() says what a group does with a call, from the
 * same table the filter is compiled from: a reviewer's tool can tell an
 * allow rule that removes a denial from one that changes nothing. */
START_TEST(test_group_denies_answers_from_the_table)
{
	size_t n;
	const sc_group *groups = seccomp_groups(&n);
	int e = -1;

	ck_assert_int_eq(osb_seccomp_group_denies("osb-default-2", "ptrace", &e), 1);
	ck_assert_int_eq(e, EPERM);
	ck_assert_int_eq(osb_seccomp_group_denies("osb-default-2", "clone3", &e), 1);
	ck_assert_int_eq(e, ENOSYS);
	ck_assert_int_eq(osb_seccomp_group_denies("osb-default-2", "clone", &e), 2);
	ck_assert_int_eq(e, EPERM);
	ck_assert_int_eq(osb_seccomp_group_denies("osb-default-2", "uname", &e), 0);
	ck_assert_int_eq(e, 0);
	ck_assert_int_eq(osb_seccomp_group_denies("osb-default-2", "modify_ldt", NULL), 1);
	ck_assert_int_eq(osb_seccomp_group_denies("osb-default-1", "modify_ldt", &e), 0);
	ck_assert_int_eq(osb_seccomp_group_denies("osb-default-2", "frobnicate", &e), 1);
	ck_assert_int_eq(e, ENOSYS);   /* unknown to libseccomp: the group's default */
	ck_assert_int_eq(osb_seccomp_group_denies("osb-default-1", "frobnicate", &e), 0);
	ck_assert_int_eq(osb_seccomp_group_denies("osb-default-3", "chmod", &e), 2);
	ck_assert_int_eq(e, EPERM);
	ck_assert_int_eq(osb_seccomp_group_denies("osb-default-3", "openat2", &e), 1);
	ck_assert_int_eq(e, ENOSYS);
	ck_assert_int_eq(osb_seccomp_group_denies("osb-default-2", "chmod", &e), 0);
	ck_assert_int_eq(osb_seccomp_group_denies("osb-default-4", "ptrace", &e), -OSB_E_USAGE);
	ck_assert_int_eq(osb_seccomp_group_denies(NULL, "ptrace", &e), -OSB_E_USAGE);
	ck_assert_int_eq(osb_seccomp_group_denies("osb-default-2", NULL, &e), -OSB_E_USAGE);
	/* Every rule of every group answers as its table says. */
	for (size_t g = 0; g < n; g++)
		for (size_t i = 0; i < groups[g].n; i++) {
			const sc_rule *r = &groups[g].rules[i];

			ck_assert_int_eq(osb_seccomp_group_denies(groups[g].name, r->name, &e),
			                 r->args == SC_ARGS_ANY ? 1 : 2);
			ck_assert_int_eq(e, r->errnum);
		}
}
END_TEST

/* ---- refusing to build partial filters ---------------------------------- */

static void expect_refused_as(const sc_rule *rules, size_t n, bool deny_unknown,
                              const char *message)
{
	const sc_group g = { "test-1", 1, rules, n, deny_unknown };
	osb_error err = { 0 };
	int fd = 12345;
	char *text = (char *)"unchanged";

	ck_assert_int_eq(seccomp_build_fd_group(&g, &fd, &err), -OSB_E_SECCOMP);
	ck_assert_int_eq(fd, -1);
	ck_assert_int_eq(err.code, OSB_E_SECCOMP);
	ck_assert_int_eq(err.sys_errno, EINVAL);
	ck_assert_str_eq(err.stage, "seccomp");
	ck_assert_str_eq(err.message, message);
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(seccomp_export_text_group(&g, &text, &err), -OSB_E_SECCOMP);
	ck_assert_ptr_null(text);
	ck_assert_str_eq(err.message, message);
}

/* Refused alike whether the group's default is to allow or ENOSYS. */
static void expect_refused(const sc_rule *rules, size_t n, const char *message)
{
	expect_refused_as(rules, n, false, message);
	expect_refused_as(rules, n, true, message);
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
	const sc_group g = { "test-1", 1, rules, N(rules), false };
	char *text = pfc_of(&g);

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
	char *rule = pfc_rule(def, "ptrace"), *allowed = pfc_rule(text, "ptrace");
	int fd = policy_fd(p);

	/* Denied by the group; allowed, like any call it does not deny. */
	ck_assert_ptr_nonnull(strstr(rule, "action ERRNO(1);"));
	ck_assert_ptr_nonnull(strstr(allowed, "action ALLOW;"));
	ck_assert_ptr_null(strstr(allowed, "ERRNO"));
	expect_rule(text, "any", "bpf", "action ERRNO(1);");
	free(rule);
	free(allowed);
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
	const sc_group *g = seccomp_policy_group(NULL);
	const sc_rule *rules = g->rules;
	size_t n = g->n;
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
	ck_assert_str_eq(err.message, "seccomp group osb-default-3+policy: the policy's \"seccomp "
	                 "allow\" rules remove every rule of osb-default-3, and an empty filter is "
	                 "never built; write \"seccomp none\" to run without a filter");
	osb_policy_free(p);
}
END_TEST

/* ---- choosing a group ------------------------------------------------------- */

static char *canonical(const osb_policy *p)
{
	char *text = osb_policy_explain(p, 0);

	ck_assert_ptr_nonnull(text);
	return text;
}

static void hash_of(const char *text, char out[OSB_POLICY_HASH_LEN])
{
	osb_policy *p = policy_of(text);

	ck_assert_int_eq(osb_policy_hash(p, out), 0);
	osb_policy_free(p);
}

START_TEST(test_policy_names_its_group)
{
	osb_policy *v1 = policy_of("osb-policy 1\nseccomp osb-default-1\n");
	osb_policy *v2 = policy_of("osb-policy 1\nseccomp osb-default-2\n");
	osb_policy *plain = policy_of("osb-policy 1\n");
	char *t1 = canonical(v1), *t2 = canonical(v2), *tp = canonical(plain);

	ck_assert_int_eq(v1->sc_mode, SC_DEFAULT);
	ck_assert_uint_eq(v1->sc_group, 1);
	ck_assert_uint_eq(v2->sc_group, 2);
	/* No directive: the newest group, by name, in the canonical form. */
	ck_assert_uint_eq(plain->sc_group, 3);
	ck_assert_ptr_nonnull(strstr(t1, "\nseccomp osb-default-1  # t.policy:2\n"));
	ck_assert_ptr_nonnull(strstr(t2, "\nseccomp osb-default-2  # t.policy:2\n"));
	ck_assert_ptr_nonnull(strstr(tp, "\nseccomp osb-default-3  # default\n"));
	ck_assert_ptr_eq(seccomp_policy_group(v1), group_named("osb-default-1"));
	ck_assert_ptr_eq(seccomp_policy_group(v2), group_named("osb-default-2"));
	ck_assert_ptr_eq(seccomp_policy_group(plain), group_named("osb-default-3"));
	free(t1);
	free(t2);
	free(tp);
	osb_policy_free(v1);
	osb_policy_free(v2);
	osb_policy_free(plain);
}
END_TEST

/* The hash tells the groups apart; "default" is the newest group. */
START_TEST(test_policy_hash_distinguishes_the_groups)
{
	char h1[OSB_POLICY_HASH_LEN], h2[OSB_POLICY_HASH_LEN], h3[OSB_POLICY_HASH_LEN], hd[OSB_POLICY_HASH_LEN], hn[OSB_POLICY_HASH_LEN], hnone[OSB_POLICY_HASH_LEN];

	hash_of("osb-policy 1\nseccomp osb-default-1\n", h1);
	hash_of("osb-policy 1\nseccomp osb-default-2\n", h2);
	hash_of("osb-policy 1\nseccomp osb-default-3\n", h3);
	hash_of("osb-policy 1\nseccomp default\n", hd);
	hash_of("osb-policy 1\n", hn);
	hash_of("osb-policy 1\nseccomp none\n", hnone);
	ck_assert_str_ne(h1, h2);
	ck_assert_str_ne(h2, h3);
	ck_assert_str_eq(h3, hd);
	ck_assert_str_eq(h3, hn);
	ck_assert_str_ne(h1, hnone);
	ck_assert_str_ne(h2, hnone);
	ck_assert_str_ne(h3, hnone);
}
END_TEST

static void expect_policy_error(const char *text, const char *message)
{
	osb_error err = { 0 };

	ck_assert_ptr_null(osb_policy_parse(text, strlen(text), "t.policy", &err));
	ck_assert_int_eq(err.code, OSB_E_POLICY);
	ck_assert_str_eq(err.message, message);
}

START_TEST(test_policy_unknown_group_is_refused)
{
	expect_policy_error("osb-policy 1\nseccomp osb-default-4\n", "t.policy:2:9: unknown seccomp "
	                    "group \"osb-default-4\" (this osb-isolate has osb-default-1, "
	                    "osb-default-2 and osb-default-3)");
	expect_policy_error("osb-policy 1\nseccomp osb-default-1 extra\n", "t.policy:2:23: "
	                    "unexpected argument \"extra\" (usage is \"seccomp default|none|GROUP\")");
	expect_policy_error("osb-policy 1\nseccomp osb-default-1\nseccomp none\n", "t.policy:3:1: "
	                    "duplicate \"seccomp none\" (first set at t.policy:2)");
}
END_TEST

/* A policy pinned to osb-default-1 loads exactly that group, edits
 * included, and its unknown system calls stay allowed. */
START_TEST(test_policy_pinned_group_loads_that_group)
{
	osb_policy *p = policy_of("osb-policy 1\nseccomp osb-default-1\n");
	osb_policy *q = policy_of("osb-policy 1\nseccomp osb-default-1\nseccomp deny uname\n");
	osb_error err = { 0 };
	int fp = policy_fd(p), fq = policy_fd(q), fg = -1;
	size_t lp, lg;
	char *x, *y;

	ck_assert_int_eq(seccomp_build_fd_group(group_named("osb-default-1"), &fg, &err), 0);
	x = read_fd(fp, &lp);
	y = read_fd(fg, &lg);
	ck_assert_uint_eq(lp, lg);
	ck_assert_int_eq(memcmp(x, y, lp), 0);
	ck_assert_int_eq(run_child(uname_call, fq), EPERM);
	ck_assert_int_eq(run_child(open_tree_attr_no_clone, fq), 0);
	ck_assert_int_eq(run_child(modify_ldt_read, fq), 0);
	ck_assert_int_eq(run_child(mount_bad_type, fq), EPERM);
	free(x);
	free(y);
	close(fp);
	close(fq);
	close(fg);
	osb_policy_free(p);
	osb_policy_free(q);
}
END_TEST

/* ---- offline evaluation of the exported program --------------------------
 * The exact BPF program a launch hands to the kernel, run through
 * bpf-eval.h with the audit arch and numbers of each ABI: the i386 and
 * x32 rules are tested where the kernel cannot run them. */

typedef struct prog {
	struct sock_filter *insn;
	size_t n;
} prog;

static prog prog_of_fd(int fd)
{
	size_t len;
	prog p;

	p.insn = (struct sock_filter *)read_fd(fd, &len);
	p.n = len / sizeof(struct sock_filter);
	close(fd);
	return p;
}

/* What a launch of POLICY (NULL: a policy without seccomp rules) loads. */
static prog prog_of_policy(const char *policy)
{
	osb_policy *p;
	prog r;

	if (!policy)
		return prog_of_fd(filter_fd_new());
	p = policy_of(policy);
	r = prog_of_fd(policy_fd(p));
	osb_policy_free(p);
	return r;
}

static prog prog_of_group(const sc_group *g)
{
	osb_policy *p = policy_of_group(g);
	prog r = prog_of_fd(policy_fd(p));

	osb_policy_free(p);
	return r;
}

typedef struct abi_desc {
	const char *name;
	uint32_t audit_arch;   /* what the kernel puts in seccomp_data.arch */
	uint32_t scmp_arch;    /* libseccomp's token, for its syscall table */
	uint32_t nr_base;      /* __X32_SYSCALL_BIT for x32 */
	bool args32;           /* the kernel zero-extends 32-bit registers */
} abi_desc;

static const abi_desc abis[] = {
	{ "x86_64", AUDIT_ARCH_X86_64, SCMP_ARCH_X86_64, 0, false },
	{ "i386", AUDIT_ARCH_I386, SCMP_ARCH_X86, 0, true },
	{ "x32", AUDIT_ARCH_X86_64, SCMP_ARCH_X32, X32_BIT, false },
};

#define RET_ALLOW SECCOMP_RET_ALLOW
#define RET_ERRNO(e) (SECCOMP_RET_ERRNO | (uint32_t)(e))

static uint32_t eval_arch(const prog *p, uint32_t arch, bool args32, uint32_t nr,
                          const uint64_t args[6])
{
	struct seccomp_data d;
	const char *why = NULL;
	uint32_t r;

	memset(&d, 0, sizeof(d));
	d.nr = (int)nr;
	d.arch = arch;
	d.instruction_pointer = 0x401000;
	for (int i = 0; i < 6; i++)
		d.args[i] = args32 ? args[i] & 0xffffffffULL : args[i];
	r = bpf_eval(p->insn, p->n, &d, &why);
	ck_assert_msg(r != BPF_EVAL_BAD, "the program is not valid seccomp BPF: %s", why);
	return r;
}

/* The answer to system call NR (without the x32 bit) of ABI. */
static uint32_t eval(const prog *p, const abi_desc *abi, uint32_t nr, const uint64_t args[6])
{
	return eval_arch(p, abi->audit_arch, abi->args32, abi->nr_base | nr, args);
}

static const char *ret_name(uint32_t r, char *buf, size_t size)
{
	if (r == RET_ALLOW)
		snprintf(buf, size, "ALLOW");
	else if ((r & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO)
		snprintf(buf, size, "ERRNO(%s)", strerrorname_np((int)(r & SECCOMP_RET_DATA)));
	else if (r == SECCOMP_RET_KILL_PROCESS)
		snprintf(buf, size, "KILL_PROCESS");
	else
		snprintf(buf, size, "0x%08x", r);
	return buf;
}

/* ---- the model: what a group means, from its table ---- */

#define NS_FLAGS (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | \
                  CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWTIME)

/* A mode call's answer (the kernel's signatures, not the filter's table):
 * EPERM for a mode with S_ISUID or S_ISGID, where open and openat look at
 * their mode only with O_CREAT or O_TMPFILE. */
static int setid_errno(const char *name, const uint64_t *a)
{
	static const struct { const char *name; int flags, mode; } mode_calls[] = {
		{ "chmod", -1, 1 }, { "fchmod", -1, 1 }, { "fchmodat", -1, 2 }, { "fchmodat2", -1, 2 },
		{ "creat", -1, 1 }, { "mknod", -1, 1 }, { "mknodat", -1, 2 }, { "open", 1, 2 },
		{ "openat", 2, 3 },
	};

	for (size_t i = 0; i < N(mode_calls); i++) {
		if (strcmp(mode_calls[i].name, name) != 0)
			continue;
		if (mode_calls[i].flags >= 0 && !(a[mode_calls[i].flags] & (O_CREAT | (O_TMPFILE & ~O_DIRECTORY))))
			return 0;
		return (a[mode_calls[i].mode] & (S_ISUID | S_ISGID)) ? EPERM : 0;
	}
	ck_abort_msg("no mode argument known for %s", name);
	return 0;
}

/* R's answer to a call with arguments A: RET_ALLOW, its errno, or the
 * group's default where the rule leaves values to it. */
static uint32_t rule_answer(const sc_group *g, const sc_rule *r, const uint64_t *a)
{
	uint32_t deny = RET_ERRNO(r->errnum);
	int e;

	switch (r->args) {
	case SC_ARGS_ANY:
		return deny;
	case SC_ARGS_CLONE_NS:
		return (a[0] & NS_FLAGS) ? deny : RET_ALLOW;
	case SC_ARGS_TTY_INJECT:
		return ((uint32_t)a[1] == TIOCSTI || (uint32_t)a[1] == TIOCLINUX) ? deny : RET_ALLOW;
	case SC_ARGS_PERSONALITY:
		e = personality_errno(g->deny_unknown, a[0]);
		break;
	case SC_ARGS_SOCKET_FAMILY:
	case SC_ARGS_SOCKET:
	case SC_ARGS_SOCKETPAIR:
		e = socket_errno(r->args, g->deny_unknown ? ENOSYS : 0, a[0], a[1], a[2]);
		break;
	case SC_ARGS_SETID_MODE:
		e = setid_errno(r->name, a);
		break;
	default:
		ck_abort_msg("unknown argument kind %d", (int)r->args);
		return deny;
	}
	return e == 0 ? RET_ALLOW : e == EPERM ? deny : RET_ERRNO(e);
}

static uint32_t model(const sc_group *g, const abi_desc *abi, uint32_t nr, const uint64_t *args)
{
	char *name = seccomp_syscall_resolve_num_arch(abi->scmp_arch, (int)(abi->nr_base | nr));
	uint32_t r = RET_ALLOW;
	uint64_t a[6];

	for (int i = 0; i < 6; i++)
		a[i] = abi->args32 ? args[i] & 0xffffffffULL : args[i];
	if (!name)
		r = g->deny_unknown ? RET_ERRNO(ENOSYS) : RET_ALLOW;
	for (size_t i = 0; name && i < g->n; i++)
		if (strcmp(g->rules[i].name, name) == 0)
			r = rule_answer(g, &g->rules[i], a);
	free(name);
	return r;
}

static void expect_model(const prog *p, const sc_group *g, const abi_desc *abi, uint32_t nr,
                         const uint64_t *args)
{
	uint32_t got = eval(p, abi, nr, args), want = model(g, abi, nr, args);
	char gb[64], wb[64];

	if (got != want)
		ck_abort_msg("%s %s: system call %u (%#llx, %#llx, %#llx): %s, want %s", g->name,
		             abi->name, nr, (unsigned long long)args[0], (unsigned long long)args[1],
		             (unsigned long long)args[2], ret_name(got, gb, sizeof(gb)),
		             ret_name(want, wb, sizeof(wb)));
}

/* Every number up to past libseccomp's table, and the far ends, with a
 * few argument vectors: the program answers as the group's table says. */
START_TEST(test_offline_every_number_answers_as_the_group_says)
{
	static const uint64_t vectors[][6] = {
		{ 0 },
		{ ~0ULL, ~0ULL, ~0ULL, ~0ULL, ~0ULL, ~0ULL },
		{ AF_UNIX, SOCK_STREAM, 0 },
		{ AF_NETLINK, SOCK_RAW, NETLINK_AUDIT },
		{ 0x9e3779b97f4a7c15ULL, 0x7f4a7c159e3779b9ULL, 0x0123456789abcdefULL },
	};
	static const uint32_t far[] = { 0x3fffffff, 0x7fffffff, 0xfffffffe, 0xffffffff };
	size_t n;
	const sc_group *groups = seccomp_groups(&n);
	const sc_group *g = &groups[_i / N(abis)];
	const abi_desc *abi = &abis[_i % N(abis)];
	prog p = prog_of_group(g);

	for (uint32_t nr = 0; nr < SC_SCAN_MAX + 64; nr++)
		for (size_t v = 0; v < N(vectors); v++)
			expect_model(&p, g, abi, nr, vectors[v]);
	/* x32 numbers carry their bit already; i386 and x86_64 past it. */
	for (size_t f = 0; f < N(far) && abi->nr_base == 0; f++)
		if (abi->args32 || far[f] < X32_BIT)
			expect_model(&p, g, abi, far[f], vectors[0]);
	for (size_t f = 0; f < N(far) && abi->nr_base != 0; f++)
		if (far[f] >= X32_BIT)
			expect_model(&p, g, abi, far[f] & ~(uint32_t)X32_BIT, vectors[0]);
	free(p.insn);
}
END_TEST

static const uint64_t sweep_families[] = {
	AF_UNSPEC, AF_UNIX, AF_INET, AF_INET6, AF_NETLINK, AF_PACKET, AF_VSOCK, AF_ALG, 63,
	0x80000000, 0xffffffff, 0x7fffffff, 0x12, 0x1a, 0x1b, 0x0b, 0x03,
};
static const uint64_t sweep_types[] = {
	0, SOCK_STREAM, SOCK_DGRAM, SOCK_RAW, SOCK_SEQPACKET, SOCK_PACKET, 11, 15,
	SOCK_STREAM | SOCK_CLOEXEC, SOCK_PACKET | SOCK_NONBLOCK, 0x10 | SOCK_STREAM, 0xffffffff,
};
static const uint64_t sweep_protos[] = {
	0, 1, NETLINK_SOCK_DIAG, IPPROTO_TCP, NETLINK_AUDIT, NETLINK_NETFILTER, 15, 16, 31,
	IPPROTO_MPTCP, IPPROTO_MPTCP | 0x10000, 0x80000000, 0xffffffff, 0x106, 0x107, 0x102,
};

/* socket and socketpair over families, types and protocols, with and
 * without bits the kernel does not read (the register's upper half). */
static void sweep_socket(const prog *p, const sc_group *g, const abi_desc *abi, uint32_t nr)
{
	static const uint64_t high[] = { 0, 1ULL << 32, 0xffffffff00000000ULL };

	for (size_t f = 0; f < N(sweep_families); f++)
		for (size_t t = 0; t < N(sweep_types); t++)
			for (size_t q = 0; q < N(sweep_protos); q++)
				for (size_t h = 0; h < N(high); h++) {
					uint64_t a[6] = { sweep_families[f] | high[h], sweep_types[t] | high[(h + 1) % 3],
					                  sweep_protos[q] | high[(h + 2) % 3] };

					expect_model(p, g, abi, nr, a);
				}
}

/* The kernel's numbers (arch/x86/entry/syscalls): x86_64, i386, x32. */
enum { NR_SOCKET, NR_SOCKETPAIR, NR_IOCTL, NR_CLONE, NR_PERSONALITY };
static const uint32_t nrs[][3] = {
	[NR_SOCKET] = { 41, 359, 41 },
	[NR_SOCKETPAIR] = { 53, 360, 53 },
	[NR_IOCTL] = { 16, 54, 514 },
	[NR_CLONE] = { 56, 120, 56 },
	[NR_PERSONALITY] = { 135, 136, 135 },
};

/* The calls that set a mode (x86_64, i386, x32): chmod, fchmod,
 * fchmodat, fchmodat2, creat, mknod, mknodat, open, openat. */
static const uint32_t mode_nrs[][3] = {
	{ 90, 15, 90 }, { 91, 94, 91 }, { 268, 306, 268 }, { 452, 452, 452 }, { 85, 8, 85 },
	{ 133, 14, 133 }, { 259, 297, 259 }, { 2, 5, 2 }, { 257, 295, 257 },
};

/* Flags and modes in every argument a mode call reads, with and without
 * the bits the kernel ignores, O_DIRECTORY (glibc's O_TMPFILE holds it)
 * and random values. */
static void sweep_modes(const prog *p, const sc_group *g, const abi_desc *abi, uint32_t nr)
{
	static const uint64_t flags[] = {
		0, O_RDONLY, O_CREAT | O_WRONLY, O_TMPFILE | O_RDWR, O_DIRECTORY, O_TMPFILE & ~O_DIRECTORY,
		O_CREAT | O_TMPFILE, O_CREAT | O_EXCL | O_CLOEXEC, 0xffffffff, ~(uint64_t)O_CREAT,
		(1ULL << 32) | O_CREAT, 0xffffffff00000000ULL,
	};
	static const uint64_t modes[] = {
		0, 0755, 01777, 04755, 02755, 06755, 07777, S_IFREG | 04755, S_IFIFO | 0644, 0xffff,
		0xffffffff & ~(uint64_t)(S_ISUID | S_ISGID), (1ULL << 32) | 04000, (1ULL << 40) | 0755,
	};
	uint64_t x = 0x0123456789abcdefULL;

	for (size_t f = 0; f < N(flags); f++)
		for (size_t m = 0; m < N(modes); m++)
			for (unsigned k = 0; k < 4; k++) {
				uint64_t a[6] = { modes[m], modes[m], modes[m], modes[m] };

				a[k] = flags[f];
				expect_model(p, g, abi, nr, a);
			}
	for (int i = 0; i < 2000; i++) {
		uint64_t a[6];

		for (int k = 0; k < 6; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			a[k] = x;
		}
		expect_model(p, g, abi, nr, a);
	}
}

START_TEST(test_offline_argument_rules_match_the_kernels_32_bit_view)
{
	/* The call, and which argument its rule reads. */
	static const int scalar[][2] = { { NR_IOCTL, 1 }, { NR_CLONE, 0 }, { NR_PERSONALITY, 0 } };
	size_t n;
	const sc_group *groups = seccomp_groups(&n);
	const sc_group *g = &groups[_i / N(abis)];
	size_t ai = _i % N(abis);
	const abi_desc *abi = &abis[ai];
	prog p = prog_of_group(g);
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	sweep_socket(&p, g, abi, nrs[NR_SOCKET][ai]);
	sweep_socket(&p, g, abi, nrs[NR_SOCKETPAIR][ai]);
	for (size_t k = 0; k < N(mode_nrs); k++)
		sweep_modes(&p, g, abi, mode_nrs[k][ai]);
	for (size_t k = 0; k < N(scalar); k++) {
		uint32_t nr = nrs[scalar[k][0]][ai];
		int arg = scalar[k][1];

		for (unsigned b = 0; b < 64; b++) {
			uint64_t a[6] = { 0 };

			a[arg] = 1ULL << b;
			expect_model(&p, g, abi, nr, a);
			a[arg] = ~(1ULL << b);
			expect_model(&p, g, abi, nr, a);
			a[arg] = ~(1ULL << b) & 0xffffffffULL;
			expect_model(&p, g, abi, nr, a);
		}
		for (int i = 0; i < 3000; i++) {
			uint64_t a[6] = { 0 };

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			a[arg] = i % 3 == 0 ? x : i % 3 == 1 ? (x & 0xffffffff0000ffffULL) :
			         ((x & 0xffffffff00000000ULL) | (i % 2 ? TIOCSTI : TIOCLINUX));
			expect_model(&p, g, abi, nr, a);
		}
	}
	free(p.insn);
}
END_TEST

/* Answers written down by hand, from the kernel's own syscall tables
 * rather than libseccomp's: what issue 16 asks of the default group. */
typedef struct known_answer {
	const char *what;
	unsigned abi;          /* index in abis[] */
	uint32_t nr;
	uint64_t args[4];
	uint32_t want;
} known_answer;

#define X86_64 0
#define I386 1
#define X32 2
#define KA(what, abi, nr, a0, a1, a2, want) { what, abi, nr, { a0, a1, a2 }, want }
#define KA4(what, abi, nr, a0, a1, a2, a3, want) { what, abi, nr, { a0, a1, a2, a3 }, want }
#define DENIED RET_ERRNO(EPERM)
#define NOSYS RET_ERRNO(ENOSYS)

static const known_answer known_answers[] = {
	/* Newer than libseccomp 2.5.4, the same numbers on all three ABIs. */
	KA("statmount", X86_64, 457, 0, 0, 0, NOSYS), KA("statmount", I386, 457, 0, 0, 0, NOSYS),
	KA("statmount", X32, 457, 0, 0, 0, NOSYS),
	KA("listmount", X86_64, 458, 0, 0, 0, NOSYS), KA("listmount", I386, 458, 0, 0, 0, NOSYS),
	KA("listmount", X32, 458, 0, 0, 0, NOSYS),
	KA("mseal", X86_64, 462, 0, 0, 0, NOSYS), KA("mseal", I386, 462, 0, 0, 0, NOSYS),
	KA("mseal", X32, 462, 0, 0, 0, NOSYS),
	KA("setxattrat", X86_64, 463, 0, 0, 0, NOSYS), KA("setxattrat", I386, 463, 0, 0, 0, NOSYS),
	KA("setxattrat", X32, 463, 0, 0, 0, NOSYS),
	KA("open_tree_attr", X86_64, 467, 0, 0, 0, NOSYS),
	KA("open_tree_attr", I386, 467, 0, 0, 0, NOSYS),
	KA("open_tree_attr", X32, 467, 0, 0, 0, NOSYS),
	KA("file_getattr", X86_64, 468, 0, 0, 0, NOSYS), KA("file_getattr", I386, 468, 0, 0, 0, NOSYS),
	KA("file_getattr", X32, 468, 0, 0, 0, NOSYS),
	KA("470", X86_64, 470, 0, 0, 0, NOSYS), KA("470", I386, 470, 0, 0, 0, NOSYS),
	KA("470", X32, 470, 0, 0, 0, NOSYS),
	KA("1000", X86_64, 1000, 0, 0, 0, NOSYS), KA("4095", I386, 4095, 0, 0, 0, NOSYS),
	KA("x32 0x3fffffff", X32, 0x3fffffff, 0, 0, 0, NOSYS),
	KA("x86_64 0x3fffffff", X86_64, 0x3fffffff, 0, 0, 0, NOSYS),
	KA("i386 0xffffffff", I386, 0xffffffff, 0, 0, 0, NOSYS),
	/* x86_64 numbers the x32 ABI does not use (its own are at 512+). */
	KA("x32 rt_sigaction at 13", X32, 13, 0, 0, 0, NOSYS),
	KA("x32 rt_sigaction", X32, 512, 0, 0, 0, RET_ALLOW),
	/* Denied whole. */
	KA("modify_ldt", X86_64, 154, 0, 0, 0, DENIED), KA("modify_ldt", I386, 123, 0, 0, 0, DENIED),
	KA("modify_ldt", X32, 154, 0, 0, 0, DENIED),
	KA("fanotify_init", X86_64, 300, 0, 0, 0, DENIED),
	KA("fanotify_init", I386, 338, 0, 0, 0, DENIED),
	KA("fanotify_init", X32, 300, 0, 0, 0, DENIED),
	KA("memfd_secret", X86_64, 447, 0, 0, 0, DENIED),
	KA("memfd_secret", I386, 447, 0, 0, 0, DENIED),
	KA("memfd_secret", X32, 447, 0, 0, 0, DENIED),
	KA("socketcall socket", I386, 102, 1, 0, 0, DENIED),
	KA("socketcall anything", I386, 102, 0xffffffff, 0x1234, 0, DENIED),
	KA("mount", I386, 21, 0, 0, 0, DENIED), KA("mount", X32, 165, 0, 0, 0, DENIED),
	KA("clone3", X86_64, 435, 0, 0, 0, NOSYS), KA("clone3", I386, 435, 0, 0, 0, NOSYS),
	KA("clone3", X32, 435, 0, 0, 0, NOSYS),
	KA("io_uring_setup", I386, 425, 0, 0, 0, NOSYS),
	/* Netlink: NETLINK_ROUTE only, the protocol read as a 32-bit int. */
	KA("netlink route", X86_64, 41, AF_NETLINK, SOCK_RAW, NETLINK_ROUTE, RET_ALLOW),
	KA("netlink route", I386, 359, AF_NETLINK, SOCK_RAW, NETLINK_ROUTE, RET_ALLOW),
	KA("netlink route", X32, 41, AF_NETLINK, SOCK_RAW, NETLINK_ROUTE, RET_ALLOW),
	KA("netlink audit", X86_64, 41, AF_NETLINK, SOCK_RAW, NETLINK_AUDIT, DENIED),
	KA("netlink audit", I386, 359, AF_NETLINK, SOCK_RAW, NETLINK_AUDIT, DENIED),
	KA("netlink audit", X32, 41, AF_NETLINK, SOCK_RAW, NETLINK_AUDIT, DENIED),
	KA("netlink uevent", X32, 41, AF_NETLINK, SOCK_DGRAM, NETLINK_KOBJECT_UEVENT, DENIED),
	KA("netlink sock_diag", I386, 359, AF_NETLINK, SOCK_DGRAM, NETLINK_SOCK_DIAG, DENIED),
	KA("netlink route, high bits", X86_64, 41, AF_NETLINK, SOCK_RAW, 1ULL << 32, RET_ALLOW),
	KA("netlink audit, high bits", X86_64, 41, AF_NETLINK, SOCK_RAW, (1ULL << 32) | 9, DENIED),
	KA("netlink audit, high bits", X32, 41, AF_NETLINK, SOCK_RAW, (1ULL << 32) | 9, DENIED),
	/* MPTCP: (AF_INET or AF_INET6, SOCK_STREAM, IPPROTO_MPTCP). */
	KA("mptcp", X86_64, 41, AF_INET, SOCK_STREAM, IPPROTO_MPTCP, DENIED),
	KA("mptcp", I386, 359, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_MPTCP, DENIED),
	KA("mptcp6", X32, 41, AF_INET6, SOCK_STREAM, IPPROTO_MPTCP, DENIED),
	KA("mptcp, high bits", X86_64, 41, AF_INET, SOCK_STREAM, (1ULL << 40) | 262, DENIED),
	KA("mptcp, dgram", I386, 359, AF_INET, SOCK_DGRAM, IPPROTO_MPTCP, DENIED),
	KA("inet protocol 256", X86_64, 41, AF_INET, SOCK_STREAM, 256, NOSYS),
	KA("inet6 protocol 263", X32, 41, AF_INET6, SOCK_STREAM, 263, NOSYS),
	KA("sctp", X86_64, 41, AF_INET6, SOCK_STREAM, IPPROTO_SCTP, RET_ALLOW),
	KA("raw", I386, 359, AF_INET, SOCK_RAW, 255, RET_ALLOW),
	KA("family 63", X86_64, 41, 63, SOCK_STREAM, 0, DENIED),
	KA("family 64", I386, 359, 64, SOCK_STREAM, 0, NOSYS),
	KA("netlink protocol 31", X32, 41, AF_NETLINK, SOCK_RAW, 31, DENIED),
	KA("netlink protocol 32", X86_64, 41, AF_NETLINK, SOCK_RAW, 32, NOSYS),
	KA("personality top bit", I386, 136, 0x80000000, 0, 0, NOSYS),
	KA("personality bit 27", X86_64, 135, 1 << 27, 0, 0, DENIED),
	KA("tcp", I386, 359, AF_INET, SOCK_STREAM, IPPROTO_TCP, RET_ALLOW),
	KA("udp", X32, 41, AF_INET6, SOCK_DGRAM, 0, RET_ALLOW),
	KA("inet packet", X86_64, 41, AF_INET, SOCK_PACKET, 0, DENIED),
	KA("af_packet", I386, 359, AF_PACKET, SOCK_RAW, 0, DENIED),
	KA("unix pair", I386, 360, AF_UNIX, SOCK_STREAM, 0, RET_ALLOW),
	KA("inet pair", X32, 53, AF_INET, SOCK_STREAM, 0, DENIED),
	KA("netlink pair", X86_64, 53, AF_NETLINK, SOCK_RAW, 0, DENIED),
	/* Masked arguments. */
	KA("tiocsti", I386, 54, 0, TIOCSTI, 0, DENIED),
	KA("tiocsti, high bits", X32, 514, 0, (1ULL << 32) | TIOCSTI, 0, DENIED),
	KA("fionread", X32, 514, 0, FIONREAD, 0, RET_ALLOW),
	KA("x32 ioctl at 16", X32, 16, 0, FIONREAD, 0, NOSYS),
	KA("clone newuser", I386, 120, CLONE_NEWUSER, 0, 0, DENIED),
	KA("clone newnet, high bits", X32, 56, (1ULL << 35) | CLONE_NEWNET, 0, 0, DENIED),
	KA("clone thread", I386, 120, 0x3d0f00, 0, 0, RET_ALLOW),
	KA("personality rie", I386, 136, READ_IMPLIES_EXEC, 0, 0, DENIED),
	KA("personality query", X32, 135, 0xffffffff, 0, 0, RET_ALLOW),
	/* Calls that only restrict further, and ordinary ones. */
	KA("seccomp", I386, 354, 0, 0, 0, RET_ALLOW), KA("seccomp", X32, 317, 0, 0, 0, RET_ALLOW),
	KA("prctl", I386, 172, 0, 0, 0, RET_ALLOW),
	KA("landlock_restrict_self", X32, 446, 0, 0, 0, RET_ALLOW),
	KA("getpid", I386, 20, 0, 0, 0, RET_ALLOW), KA("getpid", X32, 39, 0, 0, 0, RET_ALLOW),
	KA("read", X86_64, 0, 0, 0, 0, RET_ALLOW), KA("ipc", I386, 117, 1, 0, 0, RET_ALLOW),
};

static void expect_known(const prog *p, const known_answer *k, const char *group)
{
	uint64_t a[6] = { k->args[0], k->args[1], k->args[2], k->args[3] };
	uint32_t got = eval(p, &abis[k->abi], k->nr, a);
	char gb[64], wb[64];

	ck_assert_msg(got == k->want, "%s %s %s (%u): %s, want %s", group, abis[k->abi].name,
	              k->what, k->nr, ret_name(got, gb, sizeof(gb)), ret_name(k->want, wb, sizeof(wb)));
}

START_TEST(test_offline_default_program_known_answers)
{
	prog p = prog_of_policy(NULL);

	for (size_t i = 0; i < N(known_answers); i++)
		expect_known(&p, &known_answers[i], seccomp_group_name());
	free(p.insn);
}
END_TEST

/* Set-user-ID and set-group-ID modes, from the kernel's tables (x86_64,
 * i386, x32): a workspace file with either bit would run with the
 * sandbox's host ids for any host user (osb-isolate(1), "Identity on the
 * host"). Every call that sets a mode refuses them with EPERM, creating
 * opens only when they create; openat2 (its mode in memory) and fchmodat2
 * answer ENOSYS, so programs fall back to the calls above. */
#define CREAT_RW (O_CREAT | O_WRONLY)
#define TMPFILE_RW (O_TMPFILE | O_RDWR)
#define HI (1ULL << 32)
static const known_answer setid_answers[] = {
	KA("chmod 04755", X86_64, 90, 0, 04755, 0, DENIED), KA("chmod 04755", I386, 15, 0, 04755, 0, DENIED),
	KA("chmod 04755", X32, 90, 0, 04755, 0, DENIED),
	KA("chmod 02755", X86_64, 90, 0, 02755, 0, DENIED), KA("chmod 02755", I386, 15, 0, 02755, 0, DENIED),
	KA("chmod 02755", X32, 90, 0, 02755, 0, DENIED),
	KA("chmod 06755", X86_64, 90, 0, 06755, 0, DENIED), KA("chmod 06755", I386, 15, 0, 06755, 0, DENIED),
	KA("chmod 06755", X32, 90, 0, 06755, 0, DENIED),
	KA("chmod 0755", X86_64, 90, 0, 0755, 0, RET_ALLOW), KA("chmod 0755", I386, 15, 0, 0755, 0, RET_ALLOW),
	KA("chmod 0755", X32, 90, 0, 0755, 0, RET_ALLOW),
	KA("chmod 01777", X86_64, 90, 0, 01777, 0, RET_ALLOW), KA("chmod 01777", I386, 15, 0, 01777, 0, RET_ALLOW),
	KA("chmod 01777", X32, 90, 0, 01777, 0, RET_ALLOW),
	KA("chmod 04755, high bits", X86_64, 90, 0, HI | 04755, 0, DENIED),
	KA("chmod 0755, high bits", X86_64, 90, 0, HI | 0755, 0, RET_ALLOW),
	KA("chmod 07777", X32, 90, 0, 07777, 0, DENIED),
	KA("fchmod 04755", X86_64, 91, 3, 04755, 0, DENIED), KA("fchmod 02755", I386, 94, 3, 02755, 0, DENIED),
	KA("fchmod 06755", X32, 91, 3, 06755, 0, DENIED),
	KA("fchmod 0755", X86_64, 91, 3, 0755, 0, RET_ALLOW), KA("fchmod 01777", I386, 94, 3, 01777, 0, RET_ALLOW),
	KA("fchmod 0755", X32, 91, 3, 0755, 0, RET_ALLOW),
	KA("fchmodat 04755", X86_64, 268, -100, 0, 04755, DENIED),
	KA("fchmodat 02755", I386, 306, -100, 0, 02755, DENIED),
	KA("fchmodat 06755", X32, 268, -100, 0, 06755, DENIED),
	KA("fchmodat 0755", X86_64, 268, -100, 0, 0755, RET_ALLOW),
	KA("fchmodat 01777", I386, 306, -100, 0, 01777, RET_ALLOW),
	KA("fchmodat 0755", X32, 268, -100, 0, 0755, RET_ALLOW),
	/* open, openat: the mode counts only with O_CREAT or O_TMPFILE. */
	KA("open creat 04755", X86_64, 2, 0, CREAT_RW, 04755, DENIED),
	KA("open creat 02755", I386, 5, 0, CREAT_RW, 02755, DENIED),
	KA("open creat 06755", X32, 2, 0, CREAT_RW, 06755, DENIED),
	KA("open creat 0755", X86_64, 2, 0, CREAT_RW, 0755, RET_ALLOW),
	KA("open creat 01777", I386, 5, 0, CREAT_RW, 01777, RET_ALLOW),
	KA("open creat 0644", X32, 2, 0, CREAT_RW, 0644, RET_ALLOW),
	KA("open no creat 04755", X86_64, 2, 0, O_RDONLY, 04755, RET_ALLOW),
	KA("open no creat 06755", I386, 5, 0, O_WRONLY | O_TRUNC, 06755, RET_ALLOW),
	KA("open directory 04755", X86_64, 2, 0, O_RDONLY | O_DIRECTORY, 04755, RET_ALLOW),
	KA("open tmpfile 04755", X86_64, 2, 0, TMPFILE_RW, 04755, DENIED),
	KA("open tmpfile 02755", I386, 5, 0, TMPFILE_RW, 02755, DENIED),
	KA("open tmpfile 0600", X32, 2, 0, TMPFILE_RW, 0600, RET_ALLOW),
	KA("open creat 04755, high bits", X86_64, 2, 0, HI | O_CREAT, HI | 04755, DENIED),
	KA4("openat creat 04755", X86_64, 257, -100, 0, CREAT_RW, 04755, DENIED),
	KA4("openat creat 02755", I386, 295, -100, 0, CREAT_RW, 02755, DENIED),
	KA4("openat creat 06755", X32, 257, -100, 0, CREAT_RW, 06755, DENIED),
	KA4("openat creat 0755", X86_64, 257, -100, 0, CREAT_RW, 0755, RET_ALLOW),
	KA4("openat creat 01777", I386, 295, -100, 0, CREAT_RW, 01777, RET_ALLOW),
	KA4("openat no creat 04755", X32, 257, -100, 0, O_RDWR, 04755, RET_ALLOW),
	KA4("openat tmpfile 06755", X86_64, 257, -100, 0, TMPFILE_RW, 06755, DENIED),
	KA4("openat tmpfile 0600", I386, 295, -100, 0, TMPFILE_RW, 0600, RET_ALLOW),
	KA("creat 04755", X86_64, 85, 0, 04755, 0, DENIED), KA("creat 02755", I386, 8, 0, 02755, 0, DENIED),
	KA("creat 06755", X32, 85, 0, 06755, 0, DENIED),
	KA("creat 0755", X86_64, 85, 0, 0755, 0, RET_ALLOW), KA("creat 0644", I386, 8, 0, 0644, 0, RET_ALLOW),
	KA("openat2", X86_64, 437, -100, 0, 0, NOSYS), KA("openat2", I386, 437, -100, 0, 0, NOSYS),
	KA("openat2", X32, 437, -100, 0, 0, NOSYS),
	/* mknod makes regular files too. */
	KA("mknod reg 04755", X86_64, 133, 0, S_IFREG | 04755, 0, DENIED),
	KA("mknod reg 02755", I386, 14, 0, S_IFREG | 02755, 0, DENIED),
	KA("mknod reg 06755", X32, 133, 0, S_IFREG | 06755, 0, DENIED),
	KA("mknod fifo 0644", X86_64, 133, 0, S_IFIFO | 0644, 0, RET_ALLOW),
	KA("mknod reg 0755", I386, 14, 0, S_IFREG | 0755, 0, RET_ALLOW),
	KA4("mknodat reg 04755", X86_64, 259, -100, 0, S_IFREG | 04755, 0, DENIED),
	KA4("mknodat reg 02755", I386, 297, -100, 0, S_IFREG | 02755, 0, DENIED),
	KA4("mknodat reg 06755", X32, 259, -100, 0, S_IFREG | 06755, 0, DENIED),
	KA4("mknodat fifo 01777", X32, 259, -100, 0, S_IFIFO | 01777, 0, RET_ALLOW),
	/* mkdir: the kernel keeps only the permission and sticky bits of its
	 * mode, so it is not filtered. */
	KA("mkdir 02755", X86_64, 83, 0, 02755, 0, RET_ALLOW), KA("mkdir 02755", I386, 39, 0, 02755, 0, RET_ALLOW),
	KA4("mkdirat 06755", X32, 258, -100, 0, 06755, 0, RET_ALLOW),
};

START_TEST(test_offline_default_program_refuses_setid_modes)
{
	/* fchmodat2 (452 on all three): its rule where libseccomp knows it,
	 * else the group's ENOSYS, which makes glibc fall back to fchmodat. */
	uint32_t setid = seccomp_syscall_resolve_name("fchmodat2") >= 0 ? DENIED : NOSYS;
	const known_answer fchmodat2[] = {
		KA("fchmodat2 04755", X86_64, 452, -100, 0, 04755, setid),
		KA("fchmodat2 02755", I386, 452, -100, 0, 02755, setid),
		KA("fchmodat2 06755", X32, 452, -100, 0, 06755, setid),
		KA("fchmodat2 0755", X86_64, 452, -100, 0, 0755, setid == DENIED ? RET_ALLOW : NOSYS),
		KA("fchmodat2 01777", X32, 452, -100, 0, 01777, setid == DENIED ? RET_ALLOW : NOSYS),
	};
	prog p = prog_of_policy(NULL);

	for (size_t i = 0; i < N(setid_answers); i++)
		expect_known(&p, &setid_answers[i], seccomp_group_name());
	for (size_t i = 0; i < N(fchmodat2); i++)
		expect_known(&p, &fchmodat2[i], seccomp_group_name());
	free(p.insn);
}
END_TEST

/* osb-default-1 keeps its meaning: what it did not know stays allowed. */
START_TEST(test_offline_pinned_group_keeps_its_meaning)
{
	static const known_answer v1[] = {
		KA("open_tree_attr", X86_64, 467, 0, 0, 0, RET_ALLOW),
		KA("open_tree_attr", I386, 467, 0, 0, 0, RET_ALLOW),
		KA("open_tree_attr", X32, 467, 0, 0, 0, RET_ALLOW),
		KA("1000", X86_64, 1000, 0, 0, 0, RET_ALLOW),
		KA("modify_ldt", I386, 123, 0, 0, 0, RET_ALLOW),
		KA("netlink audit", X86_64, 41, AF_NETLINK, SOCK_RAW, NETLINK_AUDIT, RET_ALLOW),
		KA("mptcp", X32, 41, AF_INET, SOCK_STREAM, IPPROTO_MPTCP, RET_ALLOW),
		KA("clone3", I386, 435, 0, 0, 0, NOSYS),
		KA("mount", X32, 165, 0, 0, 0, DENIED),
		KA("socketcall", I386, 102, 1, 0, 0, DENIED),
	};
	prog p = prog_of_policy("osb-policy 1\nseccomp osb-default-1\n");

	for (size_t i = 0; i < N(v1); i++)
		expect_known(&p, &v1[i], "osb-default-1");
	free(p.insn);
}
END_TEST

START_TEST(test_offline_other_architectures_are_killed)
{
	static const uint32_t other[] = { AUDIT_ARCH_AARCH64, AUDIT_ARCH_ARM, 0, 0xffffffff };
	size_t n;
	const sc_group *groups = seccomp_groups(&n);
	uint64_t a[6] = { 0 };

	for (size_t g = 0; g < n; g++) {
		prog p = prog_of_group(&groups[g]);

		for (size_t i = 0; i < N(other); i++) {
			ck_assert_uint_eq(eval_arch(&p, other[i], false, 39, a), SECCOMP_RET_KILL_PROCESS);
			ck_assert_uint_eq(eval_arch(&p, other[i], false, 467, a), SECCOMP_RET_KILL_PROCESS);
		}
		free(p.insn);
	}
}
END_TEST

/* A policy's edits reach every ABI, and "seccomp allow socketcall" gives
 * i386 programs their socketcall back while socket() keeps its rules. */
START_TEST(test_offline_policy_edits_cover_every_abi)
{
	static const known_answer edits[] = {
		KA("uname", X86_64, 63, 0, 0, 0, RET_ERRNO(EACCES)),
		KA("uname", I386, 122, 0, 0, 0, RET_ERRNO(EACCES)),
		KA("uname", X32, 63, 0, 0, 0, RET_ERRNO(EACCES)),
		KA("socketcall", I386, 102, 1, 0, 0, RET_ALLOW),
		KA("socket netlink audit", I386, 359, AF_NETLINK, SOCK_RAW, NETLINK_AUDIT, DENIED),
		KA("ptrace", I386, 26, 0, 0, 0, RET_ALLOW),
		KA("ptrace", X32, 521, 0, 0, 0, RET_ALLOW),
		KA("open_tree_attr", I386, 467, 0, 0, 0, NOSYS),
		KA("mount", X32, 165, 0, 0, 0, DENIED),
	};
	prog p = prog_of_policy("osb-policy 1\nseccomp deny uname errno=EACCES\n"
	                        "seccomp allow socketcall ptrace\n");

	for (size_t i = 0; i < N(edits); i++)
		expect_known(&p, &edits[i], "osb-default-3+policy");
	free(p.insn);
}
END_TEST

/* The interpreter against the kernel: the same program, the same calls, on
 * the ABIs this host runs. */
typedef struct probe_call {
	uint32_t nr;
	uint64_t a[3];
} probe_call;

static const probe_call *agree_calls;
static size_t n_agree_calls;
static uint32_t *agree_want;   /* the interpreter's answers */
static bool agree_i386;

static int kernel_errno(const probe_call *c)
{
#if defined(__x86_64__)
	if (agree_i386)
		return res32(i386_call(c->nr, (long)c->a[0], (long)c->a[1], (long)c->a[2]));
#endif
	return res_fd(syscall(c->nr, c->a[0], c->a[1], c->a[2]));
}

static int agree_child(void)
{
	for (size_t i = 0; i < n_agree_calls; i++) {
		uint32_t w = agree_want[i];
		int e = kernel_errno(&agree_calls[i]);
		bool denied = (w & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO;

		/* The filter's errno, or (allowed) the kernel's own answer,
		 * which for these arguments is never EPERM or ENOSYS. */
		if (denied ? e != (int)(w & SECCOMP_RET_DATA) : (e == EPERM || e == ENOSYS))
			return 100 + (int)(i % 100);
	}
	return 0;
}

/* socket calls with an invalid type (the kernel answers EINVAL when the
 * filter allows), and system calls newer than libseccomp (answered by this
 * kernel, 6.15 or later, with EBADF or EFAULT on these arguments). */
static size_t agree_set(const abi_desc *abi, probe_call *v, size_t cap)
{
	static const uint64_t fam[] = { AF_UNIX, AF_INET, AF_INET6, AF_NETLINK, AF_PACKET, AF_VSOCK,
	                                (1ULL << 32) | AF_NETLINK };
	static const uint64_t proto[] = { 0, NETLINK_AUDIT, IPPROTO_MPTCP, (1ULL << 32) | 9, 31 };
	uint32_t sock_nr = abi->args32 ? 359 : 41;
	size_t n = 0;

	for (size_t f = 0; f < N(fam); f++)
		for (size_t q = 0; q < N(proto) && n < cap; q++)
			v[n++] = (probe_call){ sock_nr, { fam[f], SOCK_STREAM | 0x100, proto[q] } };
	if (n < cap)
		v[n++] = (probe_call){ 467, { (uint64_t)-1, 0, 0 } };   /* open_tree_attr */
	if (n < cap)
		v[n++] = (probe_call){ 458, { 0, 0, 0 } };              /* listmount */
	return n;
}

static void expect_agreement(const abi_desc *abi, bool i386)
{
	probe_call v[64];
	uint32_t want[64];
	prog p = prog_of_policy(NULL);
	int fd = filter_fd_new(), r;
	size_t n = agree_set(abi, v, N(v));

	for (size_t i = 0; i < n; i++) {
		uint64_t a[6] = { v[i].a[0], v[i].a[1], v[i].a[2] };

		want[i] = eval(&p, abi, v[i].nr, a);
	}
	agree_calls = v;
	agree_want = want;
	n_agree_calls = n;
	agree_i386 = i386;
	r = run_child(agree_child, fd);
	close(fd);
	free(p.insn);
	ck_assert_msg(r == 0, "%s: the kernel and the interpreter disagree on call %d", abi->name,
	              r - 100);
}

START_TEST(test_offline_interpreter_agrees_with_the_kernel)
{
	struct utsname u;
	char reason[320];

	/* The newer calls need a kernel that has them to tell EBADF from the
	 * filter's ENOSYS. */
	ck_assert_int_eq(uname(&u), 0);
	expect_agreement(&abis[X86_64], false);
	snprintf(reason, sizeof(reason), "the interpreter against the kernel on i386 not run: %s",
	         why_ia32);
	if (osb_test_have("ia32", have_ia32, reason))
		expect_agreement(&abis[I386], true);
}
END_TEST

/* With IA-32 emulation hidden, every i386 case says SKIP and passes; with
 * OSB_REQUIRE=ia32 as well, the run fails loudly. The cases run in a fresh
 * copy of this program (CK_RUN_CASE=abi32). */
static int run_self(const char *env_hide, const char *env_require, char *out, size_t size)
{
	int p[2], st;
	size_t got = 0;
	ssize_t r;
	pid_t pid;

	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		dup2(p[1], STDERR_FILENO);
		setenv("CK_RUN_CASE", "abi32", 1);
		setenv("CK_FORK", "yes", 1);
		setenv("OSB_TEST_HIDE", env_hide, 1);
		if (env_require)
			setenv("OSB_REQUIRE", env_require, 1);
		else
			unsetenv("OSB_REQUIRE");
		execl("/proc/self/exe", "check_seccomp", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while (got + 1 < size && (r = read(p[0], out + got, size - 1 - got)) > 0)
		got += (size_t)r;
	out[got] = '\0';
	close(p[0]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static size_t count_lines(const char *text, const char *prefix)
{
	size_t n = 0;

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		n += strncmp(l, prefix, strlen(prefix)) == 0;
	return n;
}

START_TEST(test_missing_abi_is_a_skip_not_a_failure_or_a_pass)
{
	static char out[1 << 16];
	size_t n_ia32 = 0, n_x32 = 0;

	for (size_t i = 0; i < N(calls); i++) {
		n_ia32 += calls[i].abi == ABI_IA32;
		n_x32 += calls[i].abi == ABI_X32;
	}
	ck_assert_uint_gt(n_ia32, 10);
	ck_assert_int_eq(run_self("ia32,x32", NULL, out, sizeof(out)), 0);
	/* Once filtered, once as the unfiltered control (DENY_HOSTDEP: once). */
	ck_assert_msg(count_lines(out, "SKIP: ia32: i386_") >= 2 * n_ia32 - 2, "%s", out);
	ck_assert_msg(count_lines(out, "SKIP: x32: x32_getpid not run: hidden by OSB_TEST_HIDE") == 2,
	              "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "SKIP: ia32: i386_mount_bad_type not run: hidden by "
	                      "OSB_TEST_HIDE (the offline evaluation covers the i386 rules)\n"));
	ck_assert_int_ne(run_self("ia32", "userns,ia32", out, sizeof(out)), 0);
	ck_assert_ptr_nonnull(strstr(out, "FAIL: ia32: required by OSB_REQUIRE but absent: "
	                      "i386_mount_bad_type not run: hidden by OSB_TEST_HIDE"));
	ck_assert_ptr_null(strstr(out, "SKIP: ia32:"));
	(void)n_x32;
}
END_TEST

static Suite *seccomp_suite(void)
{
	Suite *s = suite_create("seccomp");
	TCase *shape = tcase_create("shape");
	TCase *refuse = tcase_create("refuse");
	TCase *calls_tc = tcase_create("calls");
	TCase *abi32 = tcase_create("abi32");
	TCase *policy_tc = tcase_create("policy");
	TCase *offline = tcase_create("offline");
	size_t n_groups;

	(void)seccomp_groups(&n_groups);
	tcase_add_test(shape, test_build_fd_returns_sealed_bpf_memfd);
	tcase_add_test(shape, test_build_fd_is_deterministic);
	tcase_add_test(shape, test_build_time_programs_equal_a_fresh_compile);
	tcase_add_test(shape, test_osb_default_1_program_never_changes);
	tcase_add_test(shape, test_osb_default_2_program_never_changes);
	tcase_add_test(shape, test_pfc_gives_x86_64_x86_and_x32_the_same_rules);
	tcase_add_test(shape, test_pfc_default_group_denies_what_it_does_not_know);
	tcase_add_test(shape, test_pfc_denies_socketcall_and_32bit_clock_setters_on_x86);
	tcase_add_test(shape, test_pfc_masks_socket_family_and_ioctl_request_to_32_bits);
	tcase_add_test(shape, test_pfc_argument_rules_ignore_the_upper_half);
	tcase_add_test(shape, test_pfc_lists_every_rule_of_each_group);
	tcase_add_test(shape, test_groups_leave_restricting_syscalls_alone);
	tcase_add_test(shape, test_group_names_are_versioned);
	tcase_add_test(shape, test_group_denies_answers_from_the_table);
	tcase_set_timeout(shape, 60);
	tcase_add_test(refuse, test_unknown_syscall_name_fails_the_whole_build);
	tcase_add_test(refuse, test_syscall_newer_than_libseccomp_is_an_error);
	tcase_add_test(refuse, test_empty_group_is_refused);
	tcase_add_test(refuse, test_errno_out_of_range_is_refused);
	tcase_add_test(refuse, test_unknown_argument_kind_is_refused);
	tcase_add_test(refuse, test_custom_group_builds_only_its_rules);
	tcase_add_loop_test(calls_tc, test_filtered_call_gets_expected_errno, 0, (int)n_filtered[0]);
	tcase_add_test(calls_tc, test_value_set_rules_match_the_kernels_32_bit_view);
	tcase_add_loop_test(calls_tc, test_unfiltered_call_differs_only_where_denied, 0,
	                    (int)n_control[0]);
	tcase_set_timeout(calls_tc, 60);
	tcase_add_loop_test(abi32, test_abi32_filtered_call_gets_expected_errno, 0,
	                    (int)n_filtered[1]);
	tcase_add_loop_test(abi32, test_abi32_unfiltered_call_differs_only_where_denied, 0,
	                    (int)n_control[1]);
	suite_add_tcase(s, shape);
	suite_add_tcase(s, refuse);
	suite_add_tcase(s, calls_tc);
	suite_add_tcase(s, abi32);
	tcase_add_test(policy_tc, test_policy_deny_makes_call_fail_with_its_errno);
	tcase_add_test(policy_tc, test_policy_deny_covers_every_abi);
	tcase_add_test(policy_tc, test_policy_allow_removes_rule_from_filter);
	tcase_add_test(policy_tc, test_policy_deny_of_argument_rule_denies_every_call);
	tcase_add_test(policy_tc, test_policy_unknown_syscall_is_refused_at_its_column);
	tcase_add_test(policy_tc, test_policy_filter_is_deterministic);
	tcase_add_test(policy_tc, test_seccomp_none_builds_no_filter);
	tcase_add_test(policy_tc, test_seccomp_none_with_deny_rule_is_refused);
	tcase_add_test(policy_tc, test_allowing_every_group_rule_is_refused);
	tcase_add_test(policy_tc, test_policy_names_its_group);
	tcase_add_test(policy_tc, test_policy_hash_distinguishes_the_groups);
	tcase_add_test(policy_tc, test_policy_unknown_group_is_refused);
	tcase_add_test(policy_tc, test_policy_pinned_group_loads_that_group);
	tcase_add_test(policy_tc, test_missing_abi_is_a_skip_not_a_failure_or_a_pass);
	tcase_set_timeout(policy_tc, 60);
	suite_add_tcase(s, policy_tc);
	tcase_add_loop_test(offline, test_offline_every_number_answers_as_the_group_says, 0,
	                    (int)(n_groups * N(abis)));
	tcase_add_loop_test(offline, test_offline_argument_rules_match_the_kernels_32_bit_view, 0,
	                    (int)(n_groups * N(abis)));
	tcase_add_test(offline, test_offline_default_program_known_answers);
	tcase_add_test(offline, test_offline_default_program_refuses_setid_modes);
	tcase_add_test(offline, test_offline_pinned_group_keeps_its_meaning);
	tcase_add_test(offline, test_offline_other_architectures_are_killed);
	tcase_add_test(offline, test_offline_policy_edits_cover_every_abi);
	tcase_add_test(offline, test_offline_interpreter_agrees_with_the_kernel);
	tcase_set_timeout(offline, 120);
	suite_add_tcase(s, offline);
	return s;
}

int main(void)
{
	SRunner *sr;
	int failed;

#if defined(__x86_64__)
	have_ia32 = osb_test_probe_ia32(why_ia32, sizeof(why_ia32));
	have_x32 = osb_test_probe_x32(why_x32, sizeof(why_x32));
#endif
	for (size_t i = 0; i < N(calls); i++) {
		int t = calls[i].abi != ABI_ANY;

		filtered[t][n_filtered[t]++] = i;
		if (calls[i].kind != DENY_HOSTDEP)
			control[t][n_control[t]++] = i;
	}
	sr = srunner_create(seccomp_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

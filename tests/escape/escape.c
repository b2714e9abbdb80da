/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* escape.c — attacks a sandbox must stop, one per subcommand.
 *
 * `escape NAME` runs one attack in a child process with raw syscall() (so
 * no libc wrapper or fallback interferes) and prints one line:
 *   NAME blocked errno=EPERM      exit 0: refused with an errno that means
 *                                 "not allowed" for this attack (the
 *                                 seccomp group's EPERM/ENOSYS, or the
 *                                 kernel's own privilege check)
 *   NAME blocked signal=SIGSYS    exit 0: the filter killed an i386 call
 *                                 (bad-arch action)
 *   SKIP: ia32: NAME not run: WHY exit 0: an i386 attack on a kernel without
 *                                 IA-32 emulation, or under a filter that
 *                                 kills the i386 ABI (tests/skip.h; fails
 *                                 instead when OSB_REQUIRE names ia32);
 *                                 likewise "x32" for x32 attacks
 *   NAME ESCAPED                  exit 1: the call succeeded
 *   NAME ESCAPED errno=ENOENT     exit 1: the call got past every
 *                                 permission check and failed later, on
 *                                 the harmless argument chosen for it
 * Controls (`ok_*`) print `NAME ok` and exit 0 when the benign operation
 * works, or `NAME FAILED errno=E` and exit 1. `escape --list` prints every
 * name; a usage or setup problem exits 2.
 *
 * Every attack must be harmless when it succeeds, even run by root on a host
 * without a sandbox: paths that do not exist, magic numbers the kernel
 * rejects after its permission check, objects that die with the process.
 * The one exception is clock_settime, which sets the realtime clock to the
 * value just read from it (a drift of microseconds).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/kcmp.h>
#include <linux/fanotify.h>
#include <linux/keyctl.h>
#include <linux/landlock.h>
#include <linux/mount.h>
#include <linux/netlink.h>
#include <linux/perf_event.h>
#include <linux/reboot.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <linux/userfaultfd.h>
#include <net/ethernet.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/quota.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <asm/ldt.h>

#include "../skip.h"

#ifndef MAX_HANDLE_SZ
#define MAX_HANDLE_SZ 128
#endif
#define MISSING "/nonexistent-osb-escape"
#define X32_BIT 0x40000000L
#define HIGH (1UL << 32)
#define R_SETUP (-1000)   /* the attack could not be set up */

/* ---- small helpers -------------------------------------------------------- */

/* syscall() result as 0 (success) or the errno. */
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

static int reap(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, __WALL) != pid)
		return R_SETUP;
	return 0;
}

/* A clone-like call returned R: the child exits at once, the parent
 * reaps it. Only async-signal-safe calls in the child. */
static int forked(long r)
{
	if (r < 0)
		return errno;
	if (r == 0)
		syscall(SYS_exit_group, 0);
	return reap((pid_t)r);
}

static int pipe_fd(void)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	close(p[1]);
	return p[0];
}

/* Memory below 4 GiB, for arguments of the i386 ABI. */
static void *low_page(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* ---- mounts ----------------------------------------------------------------- */

static int a_mount(void)
{
	return res(syscall(SYS_mount, MISSING, "/", NULL, MS_MOVE, NULL));
}

/* A procfs directory is never a mount root: past the permission check the
 * kernel answers EINVAL, and nothing is unmounted. */
static int a_umount2(void)
{
	struct stat st;

	if (stat("/proc/self/fd", &st) < 0)
		return R_SETUP;
	return res(syscall(SYS_umount2, "/proc/self/fd", 0));
}

static int a_pivot_root(void) { return res(syscall(SYS_pivot_root, MISSING, MISSING)); }
static int a_chroot(void) { return res(syscall(SYS_chroot, "/")); }
static int a_fsopen(void) { return res_fd(syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC)); }
static int a_fsmount(void) { return res_fd(syscall(SYS_fsmount, -1, FSMOUNT_CLOEXEC, 0)); }
static int a_move_mount(void)
{
	return res(syscall(SYS_move_mount, AT_FDCWD, MISSING, AT_FDCWD, "/", 0));
}
static int a_open_tree(void)
{
	return res_fd(syscall(SYS_open_tree, AT_FDCWD, "/", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC));
}
static int a_fspick(void) { return res_fd(syscall(SYS_fspick, AT_FDCWD, "/", FSPICK_CLOEXEC)); }
static int a_mount_setattr(void)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY };

	return res(syscall(SYS_mount_setattr, AT_FDCWD, MISSING, 0, &attr, sizeof(attr)));
}

/* ---- namespaces --------------------------------------------------------------- */

static int unshare_ns(unsigned long flag) { return res(syscall(SYS_unshare, flag)); }
static int a_unshare_mnt(void) { return unshare_ns(CLONE_NEWNS); }
static int a_unshare_cgroup(void) { return unshare_ns(CLONE_NEWCGROUP); }
static int a_unshare_uts(void) { return unshare_ns(CLONE_NEWUTS); }
static int a_unshare_ipc(void) { return unshare_ns(CLONE_NEWIPC); }
static int a_unshare_user(void) { return unshare_ns(CLONE_NEWUSER); }
static int a_unshare_pid(void) { return unshare_ns(CLONE_NEWPID); }
static int a_unshare_net(void) { return unshare_ns(CLONE_NEWNET); }
static int a_unshare_time(void) { return unshare_ns(CLONE_NEWTIME); }

/* CLONE_NEWTIME sits in clone's exit-signal bits: through clone it only
 * tests that the filter refuses the bit. */
static int clone_ns(unsigned long flag)
{
	return forked(syscall(SYS_clone, flag | SIGCHLD, NULL, NULL, NULL, 0));
}
static int a_clone_mnt(void) { return clone_ns(CLONE_NEWNS); }
static int a_clone_cgroup(void) { return clone_ns(CLONE_NEWCGROUP); }
static int a_clone_uts(void) { return clone_ns(CLONE_NEWUTS); }
static int a_clone_ipc(void) { return clone_ns(CLONE_NEWIPC); }
static int a_clone_user(void) { return clone_ns(CLONE_NEWUSER); }
static int a_clone_pid(void) { return clone_ns(CLONE_NEWPID); }
static int a_clone_net(void) { return clone_ns(CLONE_NEWNET); }
static int a_clone_time(void) { return clone_ns(CLONE_NEWTIME); }

static int a_clone3(void)
{
	struct clone_args args = { .flags = CLONE_NEWUSER, .exit_signal = SIGCHLD };

	return forked(syscall(SYS_clone3, &args, sizeof(args)));
}

static int a_setns(void)
{
	int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	int r;

	if (fd < 0)
		return R_SETUP;
	r = res(syscall(SYS_setns, fd, CLONE_NEWUTS));
	close(fd);
	return r;
}

/* ---- terminals: a pipe, so a request the filter lets through gets ENOTTY
 * from the kernel instead of typing into a real terminal. ------------------- */

static int tty_ioctl(unsigned long req)
{
	int fd = pipe_fd();
	char c = '\0';
	int r;

	if (fd < 0)
		return R_SETUP;
	r = res(syscall(SYS_ioctl, fd, req, &c));
	close(fd);
	return r;
}
static int a_tiocsti(void) { return tty_ioctl(TIOCSTI); }
static int a_tiocsti_highbits(void) { return tty_ioctl(HIGH | TIOCSTI); }
static int a_tioclinux(void) { return tty_ioctl(TIOCLINUX); }
static int a_tiocsetd(void) { return tty_ioctl(TIOCSETD); }

/* ---- kernel attack surface ----------------------------------------------- */

static int a_io_uring_setup(void)
{
	char params[120];   /* struct io_uring_params */

	memset(params, 0, sizeof(params));
	return res_fd(syscall(SYS_io_uring_setup, 1, params));
}

static int a_userfaultfd(void)
{
	return res_fd(syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY));
}

static int a_perf_event_open(void)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	return res_fd(syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

static int a_bpf(void)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	return res_fd(syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof(attr)));
}

/* ---- other processes ------------------------------------------------------ */

static pid_t parent_pid;   /* the parent of `escape`, read before forking */

/* PTRACE_SEIZE does not stop the tracee, and the tracer's exit detaches. */
static int a_ptrace_parent(void)
{
	if (parent_pid <= 0)
		return R_SETUP;
	return res(syscall(SYS_ptrace, PTRACE_SEIZE, parent_pid, NULL, NULL));
}

/* Reading our own memory: success is unambiguous. */
static int a_process_vm_readv(void)
{
	char src[8] = "osb-esc", dst[8];
	struct iovec local = { dst, sizeof(dst) }, remote = { src, sizeof(src) };

	return res(syscall(SYS_process_vm_readv, getpid(), &local, 1UL, &remote, 1UL, 0UL));
}

static int a_kcmp(void)
{
	return res(syscall(SYS_kcmp, getpid(), getpid(), KCMP_VM, 0, 0));
}

static int a_pidfd_getfd(void)
{
	int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	int r;

	if (pidfd < 0)
		return R_SETUP;
	r = res_fd(syscall(SYS_pidfd_getfd, pidfd, pidfd, 0));
	close(pidfd);
	return r;
}

/* ---- keyrings: the process keyring dies with the process --------------- */

static int a_keyctl(void)
{
	return res(syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_PROCESS_KEYRING, 1));
}
static int a_add_key(void)
{
	return res(syscall(SYS_add_key, "user", "osb-escape", "x", 1, KEY_SPEC_PROCESS_KEYRING));
}
static int a_request_key(void)
{
	return res(syscall(SYS_request_key, "user", "osb-escape-absent", NULL,
	                   KEY_SPEC_PROCESS_KEYRING));
}

/* ---- whole-machine state: refused after the permission check ------------ */

static int a_kexec_load(void) { return res(syscall(SYS_kexec_load, 0, 17, NULL, 0)); }
static int a_init_module(void) { return res(syscall(SYS_init_module, NULL, 0, "")); }
static int a_reboot(void)
{
	/* A wrong second magic number: EINVAL right after CAP_SYS_BOOT. */
	return res(syscall(SYS_reboot, LINUX_REBOOT_MAGIC1, 0, LINUX_REBOOT_CMD_CAD_OFF, NULL));
}
static int a_swapon(void) { return res(syscall(SYS_swapon, MISSING, 0)); }
static int a_acct(void) { return res(syscall(SYS_acct, MISSING)); }
/* Q_SYNC without a device syncs quota everywhere; allowed to anyone.
 * QCMD would shift the int Q_SYNC (0x800001) left by 8, which overflows
 * int (undefined); the same bits, computed unsigned. */
static int a_quotactl(void)
{
	int cmd = (int)(((unsigned)Q_SYNC << SUBCMDSHIFT) | (USRQUOTA & SUBCMDMASK));

	return res(syscall(SYS_quotactl, cmd, NULL, 0, NULL));
}

static int a_clock_settime(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) < 0)
		return R_SETUP;
	return res(syscall(SYS_clock_settime, CLOCK_REALTIME, &ts));
}

/* An out-of-range timezone: EINVAL right after CAP_SYS_TIME. */
static int a_settimeofday(void)
{
	struct timezone tz = { .tz_minuteswest = 16 * 60 };

	return res(syscall(SYS_settimeofday, NULL, &tz));
}

static int a_syslog(void) { return res(syscall(SYS_syslog, 10 /* SIZE_BUFFER */, NULL, 0)); }

/* ---- file handles ----------------------------------------------------------- */

static int handle_of_root(struct file_handle *fh)
{
	int mnt;

	fh->handle_bytes = MAX_HANDLE_SZ;
	return res(syscall(SYS_name_to_handle_at, AT_FDCWD, "/", fh, &mnt, 0));
}

static int a_name_to_handle_at(void)
{
	char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];

	return handle_of_root((struct file_handle *)buf);
}

static int a_open_by_handle_at(void)
{
	char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	struct file_handle *fh = (struct file_handle *)buf;

	if (handle_of_root(fh) != 0) {
		/* No real handle to be had: a made-up one still meets the
		 * permission check first. */
		memset(buf, 0, sizeof(buf));
		fh->handle_bytes = 8;
		fh->handle_type = 1;
	}
	return res_fd(syscall(SYS_open_by_handle_at, AT_FDCWD, fh, O_RDONLY | O_CLOEXEC));
}

/* ---- sockets ---------------------------------------------------------------- */

static int sock(unsigned long family, int type, int proto)
{
	return res_fd(syscall(SYS_socket, family, type | SOCK_CLOEXEC, proto));
}
static int a_af_packet(void) { return sock(AF_PACKET, SOCK_DGRAM, 0); }
static int a_af_vsock(void) { return sock(AF_VSOCK, SOCK_STREAM, 0); }
static int a_af_alg(void) { return sock(AF_ALG, SOCK_SEQPACKET, 0); }
/* The kernel reads the family as an int: this is AF_VSOCK to it. */
static int a_socket_highbits(void) { return sock(HIGH | AF_VSOCK, SOCK_STREAM, 0); }
/* The kernel turns (AF_INET, SOCK_PACKET) into a packet socket. */
static int a_socket_inet_packet(void) { return sock(AF_INET, SOCK_PACKET, htons(ETH_P_ALL)); }
/* Netlink families other than NETLINK_ROUTE reach the audit subsystem,
 * uevents, netfilter, xfrm, socket diagnostics... */
static int a_netlink_audit(void) { return sock(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT); }
static int a_netlink_uevent(void) { return sock(AF_NETLINK, SOCK_DGRAM, NETLINK_KOBJECT_UEVENT); }
static int a_netlink_netfilter(void) { return sock(AF_NETLINK, SOCK_RAW, NETLINK_NETFILTER); }
static int a_netlink_xfrm(void) { return sock(AF_NETLINK, SOCK_RAW, NETLINK_XFRM); }
static int a_netlink_sock_diag(void) { return sock(AF_NETLINK, SOCK_RAW, NETLINK_SOCK_DIAG); }
static int a_netlink_generic(void) { return sock(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC); }
/* The kernel reads the protocol as an int: this is NETLINK_AUDIT to it. */
static int a_netlink_highbits(void)
{
	return res_fd(syscall(SYS_socket, AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, HIGH | NETLINK_AUDIT));
}
static int a_mptcp(void) { return sock(AF_INET, SOCK_STREAM, IPPROTO_MPTCP); }
static int a_mptcp6(void) { return sock(AF_INET6, SOCK_STREAM, IPPROTO_MPTCP); }

/* ---- calls newer than the filter's syscall table (libseccomp 2.5.4) -----
 * Same numbers on x86_64 and i386. A kernel that lacks one answers ENOSYS
 * by itself; the filter must answer ENOSYS wherever the kernel has it. */

#define NR_STATMOUNT 457
#define NR_LISTMOUNT 458
#define NR_MSEAL 462
#define NR_SETXATTRAT 463
#define NR_OPEN_TREE_ATTR 467
#define NR_FILE_GETATTR 468
#define LSMT_ROOT 0xffffffffffffffffULL

/* Without OPEN_TREE_CLONE it hands out an O_PATH fd of the mount. */
static int a_open_tree_attr(void)
{
	return res_fd(syscall(NR_OPEN_TREE_ATTR, AT_FDCWD, "/", OPEN_TREE_CLOEXEC, NULL, 0));
}

/* Every mount id of the caller's mount namespace. */
static int a_listmount(void)
{
	uint64_t req[3] = { 24 /* MNT_ID_REQ_SIZE_VER0 */, LSMT_ROOT, 0 }, ids[64];

	return res(syscall(NR_LISTMOUNT, req, ids, 64UL, 0UL));
}

/* A mount id that does not exist: past the checks, ENOENT. */
static int a_statmount(void)
{
	uint64_t req[3] = { 24, 1, 1 /* STATMOUNT_SB_BASIC */ };
	char buf[512];

	return res(syscall(NR_STATMOUNT, req, buf, sizeof(buf), 0UL));
}

/* Seals a page of this short-lived child only. */
static int a_mseal(void)
{
	void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return R_SETUP;
	return res(syscall(NR_MSEAL, p, 4096UL, 0UL));
}

static int a_setxattrat(void)
{
	return res(syscall(NR_SETXATTRAT, AT_FDCWD, MISSING, 0, "user.osb", NULL, 0));
}

static int a_file_getattr(void)
{
	char attr[64];

	return res(syscall(NR_FILE_GETATTR, AT_FDCWD, MISSING, attr, sizeof(attr), 0));
}

/* ---- more kernel attack surface ---------------------------------------------- */

/* An empty, not-present descriptor in this child's own LDT. */
static struct user_desc empty_ldt_entry(void)
{
	struct user_desc d;

	memset(&d, 0, sizeof(d));
	d.seg_32bit = 1;
	d.read_exec_only = 1;
	d.seg_not_present = 1;
	return d;
}

static int a_modify_ldt(void)
{
	struct user_desc d = empty_ldt_entry();

	return res(syscall(SYS_modify_ldt, 1, &d, sizeof(d)));
}

/* Unprivileged fanotify (FAN_REPORT_FID) since Linux 5.13. */
static int a_fanotify_init(void)
{
	return res_fd(syscall(SYS_fanotify_init, FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_REPORT_FID,
	                      O_RDONLY));
}

static int a_memfd_secret(void) { return res_fd(syscall(SYS_memfd_secret, O_CLOEXEC)); }

/* ---- personality and devices ------------------------------------------------ */

static int a_personality_rie(void)
{
	return res(syscall(SYS_personality, PER_LINUX | READ_IMPLIES_EXEC));
}

static int a_mknod_block(void)
{
	static const char *const dirs[] = { "/tmp", "/dev/shm", "/var/tmp", "." };
	const char *tmpdir = getenv("TMPDIR");
	char dir[4096], node[4200];
	int r;

	dir[0] = '\0';
	if (tmpdir && snprintf(dir, sizeof(dir), "%s/osb-escape.XXXXXX", tmpdir) < (int)sizeof(dir) &&
	    mkdtemp(dir))
		goto make;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(dir, sizeof(dir), "%s/osb-escape.XXXXXX", dirs[i]);
		if (mkdtemp(dir))
			goto make;
	}
	/* Nowhere writable: try the root, where EROFS or EACCES means the
	 * node cannot be made anywhere we can reach. */
	r = res(syscall(SYS_mknodat, AT_FDCWD, "/osb-escape-blk", S_IFBLK | 0600,
	                makedev(7, 0)));
	if (r == 0)
		unlink("/osb-escape-blk");
	return r;
make:
	snprintf(node, sizeof(node), "%s/blk", dir);
	r = res(syscall(SYS_mknodat, AT_FDCWD, node, S_IFBLK | 0600, makedev(7, 0)));
	unlink(node);
	rmdir(dir);
	return r;
}

/* ---- the 32-bit ABIs -------------------------------------------------------- */

#if defined(__x86_64__)
/* The i386 ABI from this 64-bit process (ebx, ecx, edx, esi); the kernel
 * returns -errno. Pointers must lie below 4 GiB: see low_page(). */
static long i386_call5(long nr, long a, long b, long c, long d, long e)
{
	long ret;

	__asm__ volatile("int $0x80"
	                 : "=a"(ret)
	                 : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e)
	                 : "memory", "r8", "r9", "r10", "r11");
	return ret;
}

static long i386_call(long nr, long a, long b, long c, long d)
{
	return i386_call5(nr, a, b, c, d, 0);
}

static int res32(long r)
{
	if (r < 0 && r > -4096)
		return (int)-r;
	return 0;
}

static int a_i386_mount(void)
{
	char *p = low_page();

	if (!p)
		return R_SETUP;
	memcpy(p, MISSING, sizeof(MISSING));
	memcpy(p + 256, "/", 2);
	return res32(i386_call(21, (long)p, (long)(p + 256), 0, MS_MOVE));
}

static int a_i386_socketcall(void)
{
	uint32_t *args = low_page();
	long r;

	if (!args)
		return R_SETUP;
	args[0] = AF_VSOCK;
	args[1] = SOCK_STREAM;
	args[2] = 0;
	r = i386_call(102, 1 /* SYS_SOCKET */, (long)args, 0, 0);
	if (r >= 0)
		close((int)r);
	return res32(r);
}

static int a_i386_af_vsock(void)
{
	long r = i386_call(359, AF_VSOCK, SOCK_STREAM, 0, 0);

	if (r >= 0)
		close((int)r);
	return res32(r);
}

static int a_i386_clone3(void)
{
	struct clone_args *args = low_page();
	long r;

	if (!args)
		return R_SETUP;
	args->flags = CLONE_NEWUSER;
	args->exit_signal = SIGCHLD;
	r = i386_call(435, (long)args, sizeof(*args), 0, 0);
	if (r == 0)
		syscall(SYS_exit_group, 0);
	if (r > 0)
		return reap((pid_t)r);
	return res32(r);
}

static int a_i386_open_tree_attr(void)
{
	char *p = low_page();
	long r;

	if (!p)
		return R_SETUP;
	memcpy(p, "/", 2);
	r = i386_call5(NR_OPEN_TREE_ATTR, AT_FDCWD, (long)p, OPEN_TREE_CLOEXEC, 0, 0);
	if (r >= 0)
		close((int)r);
	return res32(r);
}

static int a_i386_modify_ldt(void)
{
	struct user_desc *d = low_page();

	if (!d)
		return R_SETUP;
	*d = empty_ldt_entry();
	return res32(i386_call(123, 1, (long)d, sizeof(*d), 0));
}

static int a_i386_netlink_audit(void)
{
	long r = i386_call(359, AF_NETLINK, SOCK_RAW, NETLINK_AUDIT, 0);

	if (r >= 0)
		close((int)r);
	return res32(r);
}

/* The filter decides on an x32 call before the kernel looks for the x32
 * ABI: EPERM proves the filter with or without the ABI. */
static int a_x32_mount(void)
{
	return res(syscall(X32_BIT | SYS_mount, MISSING, "/", NULL, MS_MOVE, NULL));
}
#endif

/* ---- controls --------------------------------------------------------------- */

static int c_personality_linux(void)
{
	long r = syscall(SYS_personality, 0xffffffffUL);

	if (r < 0)
		return errno;
	return res(syscall(SYS_personality, PER_LINUX));
}
static int c_af_unix(void) { return sock(AF_UNIX, SOCK_STREAM, 0); }
static int c_af_inet(void) { return sock(AF_INET, SOCK_STREAM, 0); }
static int c_af_inet6(void) { return sock(AF_INET6, SOCK_STREAM, 0); }
/* What getaddrinfo, ip and most network code need. */
static int c_netlink_route(void) { return sock(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE); }

static int c_nested_seccomp(void)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { 1, &allow };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return errno;
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
		return errno;
	return res(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog));
}

static int c_landlock(void)
{
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	if (v < 0)
		return errno;
	return v > 0 ? 0 : R_SETUP;
}

static int thread_token;

static void *thread_main(void *arg)
{
	return arg;
}

/* libc tries clone3 first and must fall back to clone. */
static int c_threads(void)
{
	pthread_t t;
	void *ret = NULL;
	int e = pthread_create(&t, NULL, thread_main, &thread_token);

	if (e != 0)
		return e;
	if (pthread_join(t, &ret) != 0 || ret != &thread_token)
		return R_SETUP;
	return 0;
}

static int c_fork(void)
{
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (pid == 0)
		_exit(0);
	return reap(pid);
}

/* ---- the table ---------------------------------------------------------------- */

/* IA32: needs int $0x80; X32: needs x32 calls to reach the sandbox's
 * filter (an enclosing filter may kill them first). Both probed. */
enum { CONTROL = 1, IA32 = 2, X32 = 4, LANDLOCK = 8 };

typedef struct attack {
	const char *name;
	int (*run)(void);
	int blocked[4];     /* errnos that mean "refused"; 0 ends the list */
	unsigned flags;
} attack;

#define PERM { EPERM }
#define NOSYS { ENOSYS, EPERM }
#define NS { EPERM, ENOSPC, EUSERS }
#define FAMILY { EPERM, EAFNOSUPPORT }
#define NETLINK { EPERM, EPROTONOSUPPORT }

static const attack attacks[] = {
	{ "mount", a_mount, PERM, 0 },
	{ "umount2", a_umount2, PERM, 0 },
	{ "pivot_root", a_pivot_root, PERM, 0 },
	{ "chroot", a_chroot, PERM, 0 },
	{ "fsopen", a_fsopen, NOSYS, 0 },
	{ "fsmount", a_fsmount, NOSYS, 0 },
	{ "move_mount", a_move_mount, NOSYS, 0 },
	{ "open_tree", a_open_tree, NOSYS, 0 },
	{ "fspick", a_fspick, NOSYS, 0 },
	{ "mount_setattr", a_mount_setattr, NOSYS, 0 },
	{ "unshare_mnt", a_unshare_mnt, NS, 0 },
	{ "unshare_cgroup", a_unshare_cgroup, NS, 0 },
	{ "unshare_uts", a_unshare_uts, NS, 0 },
	{ "unshare_ipc", a_unshare_ipc, NS, 0 },
	{ "unshare_user", a_unshare_user, NS, 0 },
	{ "unshare_pid", a_unshare_pid, NS, 0 },
	{ "unshare_net", a_unshare_net, NS, 0 },
	{ "unshare_time", a_unshare_time, NS, 0 },
	{ "clone_mnt", a_clone_mnt, NS, 0 },
	{ "clone_cgroup", a_clone_cgroup, NS, 0 },
	{ "clone_uts", a_clone_uts, NS, 0 },
	{ "clone_ipc", a_clone_ipc, NS, 0 },
	{ "clone_user", a_clone_user, NS, 0 },
	{ "clone_pid", a_clone_pid, NS, 0 },
	{ "clone_net", a_clone_net, NS, 0 },
	{ "clone_time", a_clone_time, NS, 0 },
	{ "clone3", a_clone3, { ENOSYS, EPERM, ENOSPC, EUSERS }, 0 },
	{ "setns", a_setns, PERM, 0 },
	{ "tiocsti", a_tiocsti, PERM, 0 },
	{ "tiocsti_highbits", a_tiocsti_highbits, PERM, 0 },
	{ "tiocsetd", a_tiocsetd, PERM, 0 },
	{ "tioclinux", a_tioclinux, PERM, 0 },
	{ "io_uring_setup", a_io_uring_setup, NOSYS, 0 },
	{ "userfaultfd", a_userfaultfd, PERM, 0 },
	{ "perf_event_open", a_perf_event_open, { EPERM, EACCES }, 0 },
	{ "bpf", a_bpf, PERM, 0 },
	{ "ptrace_parent", a_ptrace_parent, PERM, 0 },
	{ "process_vm_readv", a_process_vm_readv, PERM, 0 },
	{ "kcmp", a_kcmp, PERM, 0 },
	{ "pidfd_getfd", a_pidfd_getfd, PERM, 0 },
	{ "keyctl", a_keyctl, PERM, 0 },
	{ "add_key", a_add_key, PERM, 0 },
	{ "request_key", a_request_key, PERM, 0 },
	/* ENOSYS: the kernel was built without kexec or module support. */
	{ "kexec_load", a_kexec_load, { EPERM, ENOSYS }, 0 },
	{ "init_module", a_init_module, { EPERM, ENOSYS }, 0 },
	{ "reboot", a_reboot, PERM, 0 },
	{ "swapon", a_swapon, PERM, 0 },
	{ "acct", a_acct, PERM, 0 },
	{ "quotactl", a_quotactl, PERM, 0 },
	{ "clock_settime", a_clock_settime, PERM, 0 },
	{ "settimeofday", a_settimeofday, PERM, 0 },
	{ "syslog", a_syslog, PERM, 0 },
	{ "name_to_handle_at", a_name_to_handle_at, PERM, 0 },
	{ "open_by_handle_at", a_open_by_handle_at, PERM, 0 },
	{ "af_packet", a_af_packet, FAMILY, 0 },
	{ "af_vsock", a_af_vsock, FAMILY, 0 },
	{ "af_alg", a_af_alg, FAMILY, 0 },
	{ "socket_highbits", a_socket_highbits, FAMILY, 0 },
	{ "socket_inet_packet", a_socket_inet_packet, PERM, 0 },
	/* EPROTONOSUPPORT: a kernel built without that netlink family. */
	{ "netlink_audit", a_netlink_audit, NETLINK, 0 },
	{ "netlink_uevent", a_netlink_uevent, NETLINK, 0 },
	{ "netlink_netfilter", a_netlink_netfilter, NETLINK, 0 },
	{ "netlink_xfrm", a_netlink_xfrm, NETLINK, 0 },
	{ "netlink_sock_diag", a_netlink_sock_diag, NETLINK, 0 },
	{ "netlink_generic", a_netlink_generic, NETLINK, 0 },
	{ "netlink_highbits", a_netlink_highbits, NETLINK, 0 },
	/* ENOPROTOOPT: net.mptcp.enabled=0; EPROTONOSUPPORT: no MPTCP. */
	{ "mptcp", a_mptcp, { EPERM, EPROTONOSUPPORT, ENOPROTOOPT }, 0 },
	{ "mptcp6", a_mptcp6, { EPERM, EPROTONOSUPPORT, ENOPROTOOPT }, 0 },
	/* Only ENOSYS: the filter's answer, or an older kernel's. */
	{ "open_tree_attr", a_open_tree_attr, { ENOSYS }, 0 },
	{ "listmount", a_listmount, { ENOSYS }, 0 },
	{ "statmount", a_statmount, { ENOSYS }, 0 },
	{ "mseal", a_mseal, { ENOSYS }, 0 },
	{ "setxattrat", a_setxattrat, { ENOSYS }, 0 },
	{ "file_getattr", a_file_getattr, { ENOSYS }, 0 },
	/* ENOSYS: a kernel built without the call. */
	{ "modify_ldt", a_modify_ldt, { EPERM, ENOSYS }, 0 },
	{ "fanotify_init", a_fanotify_init, { EPERM, ENOSYS }, 0 },
	{ "memfd_secret", a_memfd_secret, { EPERM, ENOSYS }, 0 },
	{ "personality_rie", a_personality_rie, PERM, 0 },
	/* Not the filter's job: devices need CAP_MKNOD in the initial user
	 * namespace. EROFS/EACCES: nowhere to create it at all. */
	{ "mknod_block", a_mknod_block, { EPERM, EROFS, EACCES }, 0 },
#if defined(__x86_64__)
	{ "i386_mount", a_i386_mount, PERM, IA32 },
	{ "i386_socketcall", a_i386_socketcall, FAMILY, IA32 },
	{ "i386_af_vsock", a_i386_af_vsock, FAMILY, IA32 },
	{ "i386_clone3", a_i386_clone3, { ENOSYS, EPERM, ENOSPC, EUSERS }, IA32 },
	{ "i386_open_tree_attr", a_i386_open_tree_attr, { ENOSYS }, IA32 },
	{ "i386_modify_ldt", a_i386_modify_ldt, { EPERM, ENOSYS }, IA32 },
	{ "i386_netlink_audit", a_i386_netlink_audit, NETLINK, IA32 },
	{ "x32_mount", a_x32_mount, PERM, X32 },
#endif
	{ "ok_personality_linux", c_personality_linux, { 0 }, CONTROL },
	{ "ok_af_unix", c_af_unix, { 0 }, CONTROL },
	{ "ok_af_inet", c_af_inet, { 0 }, CONTROL },
	{ "ok_af_inet6", c_af_inet6, { 0 }, CONTROL },
	{ "ok_netlink_route", c_netlink_route, { 0 }, CONTROL },
	{ "ok_nested_seccomp", c_nested_seccomp, { 0 }, CONTROL },
	{ "ok_landlock", c_landlock, { 0 }, CONTROL | LANDLOCK },
	{ "ok_threads", c_threads, { 0 }, CONTROL },
	{ "ok_fork", c_fork, { 0 }, CONTROL },
};

#define N_ATTACKS (sizeof(attacks) / sizeof(attacks[0]))

/* ---- running one --------------------------------------------------------------- */

static const char *errno_name(int e, char *buf, size_t size)
{
	const char *n = strerrorname_np(e);

	if (n)
		return n;
	snprintf(buf, size, "%d", e);
	return buf;
}

static const char *signal_name(int sig, char *buf, size_t size)
{
	const char *n = sigabbrev_np(sig);

	if (n)
		snprintf(buf, size, "SIG%s", n);
	else
		snprintf(buf, size, "%d", sig);
	return buf;
}

static bool is_blocked(const attack *a, int e)
{
	for (size_t i = 0; i < sizeof(a->blocked) / sizeof(a->blocked[0]) && a->blocked[i]; i++)
		if (a->blocked[i] == e)
			return true;
	return false;
}

/* Run the attack in a child, so that signals (a 32-bit ABI killed by the
 * filter) and namespace changes stay out of this process. */
static int run_child(const attack *a, int *result, int *sig)
{
	int p[2], st;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int r;

		close(p[0]);
		r = a->run();
		if (write(p[1], &r, sizeof(r)) != (ssize_t)sizeof(r))
			_exit(2);
		_exit(0);
	}
	close(p[1]);
	*sig = 0;
	if (read(p[0], result, sizeof(*result)) != (ssize_t)sizeof(*result))
		*result = R_SETUP;
	close(p[0]);
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	if (WIFSIGNALED(st))
		*sig = WTERMSIG(st);
	return 0;
}

static int report(const attack *a, int r, int sig)
{
	char buf[32];

	/* The filter may kill a 32-bit ABI call (bad-arch action); IA-32
	 * emulation being off was ruled out by the probe. */
	if (sig == SIGSYS && (a->flags & IA32)) {
		printf("%s blocked signal=%s\n", a->name, signal_name(sig, buf, sizeof(buf)));
		return 0;
	}
	if (sig || r == R_SETUP) {
		fprintf(stderr, "%s: error: %s\n", a->name,
		        sig ? "the attack process was killed" : "could not set up the attack");
		return 2;
	}
	if (a->flags & CONTROL) {
		if (r == 0) {
			printf("%s ok\n", a->name);
			return 0;
		}
		printf("%s FAILED errno=%s\n", a->name, errno_name(r, buf, sizeof(buf)));
		return 1;
	}
	if (r == 0) {
		printf("%s ESCAPED\n", a->name);
		return 1;
	}
	if (is_blocked(a, r)) {
		printf("%s blocked errno=%s\n", a->name, errno_name(r, buf, sizeof(buf)));
		return 0;
	}
	printf("%s ESCAPED errno=%s\n", a->name, errno_name(r, buf, sizeof(buf)));
	return 1;
}

/* Whether an x32 call reaches the sandbox's own filter: a filter already
 * in place that lacks the x32 ABI kills it first (its bad-arch action).
 * The sandbox's filter decides x32 calls before the kernel looks for the
 * x32 ABI, so that ABI itself is not needed. */
static bool x32_reaches_filter(char *why, size_t size)
{
	int st = 0;
	pid_t pid;

	if (osb_test_env_lists("OSB_TEST_HIDE", "x32")) {
		snprintf(why, size, "hidden by OSB_TEST_HIDE");
		return false;
	}
	pid = fork();
	if (pid == 0) {
		syscall(X32_BIT | SYS_getpid);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid) {
		snprintf(why, size, "cannot run the x32 probe");
		return false;
	}
	if (WIFSIGNALED(st)) {
		snprintf(why, size, "a seccomp filter already in place kills x32 calls (signal %d)",
		         WTERMSIG(st));
		return false;
	}
	return true;
}

/* An i386 attack on a kernel without IA-32 emulation proves nothing (int
 * $0x80 faults before any filter sees it), nor does an x32 attack that an
 * enclosing filter kills: say so, and skip it. */
static bool abi_present(const attack *a)
{
#if defined(__x86_64__)
	char why[200], reason[300];
	bool have;

	/* The Landlock control needs a kernel with Landlock (built in and in
	 * the lsm= list); without it there is nothing to show. */
	if (a->flags & LANDLOCK) {
		long v = syscall(SYS_landlock_create_ruleset, NULL, 0,
		                 LANDLOCK_CREATE_RULESET_VERSION);

		snprintf(reason, sizeof(reason), "%s not run: the kernel has no Landlock", a->name);
		return osb_test_have("landlock", v > 0 || (errno != ENOSYS && errno != EOPNOTSUPP),
		                     reason);
	}
	if (a->flags & X32) {
		have = x32_reaches_filter(why, sizeof(why));
		snprintf(reason, sizeof(reason), "%s not run: %s", a->name, why);
		return osb_test_have("x32", have, reason);
	}
	if (!(a->flags & IA32))
		return true;
	have = osb_test_probe_ia32(why, sizeof(why));
	snprintf(reason, sizeof(reason), "%s not run: %s", a->name, why);
	return osb_test_have("ia32", have, reason);
#else
	(void)a;
	return true;
#endif
}

static int usage(void)
{
	fprintf(stderr, "usage: escape NAME | escape --list\n");
	return 2;
}

int main(int argc, char **argv)
{
	int r, sig;

	if (argc != 2)
		return usage();
	if (strcmp(argv[1], "--list") == 0) {
		for (size_t i = 0; i < N_ATTACKS; i++)
			printf("%s\n", attacks[i].name);
		return 0;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	parent_pid = getppid();
	for (size_t i = 0; i < N_ATTACKS; i++) {
		if (strcmp(argv[1], attacks[i].name) != 0)
			continue;
		if (!abi_present(&attacks[i]))
			return 0;
		if (run_child(&attacks[i], &r, &sig) < 0) {
			fprintf(stderr, "%s: error: cannot start the attack process: %s\n",
			        attacks[i].name, strerror(errno));
			return 2;
		}
		return report(&attacks[i], r, sig);
	}
	fprintf(stderr, "escape: unknown attack \"%s\" (escape --list shows them)\n", argv[1]);
	return 2;
}

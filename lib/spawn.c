/* spawn.c — fd hygiene, spawning and pidfds (DESIGN §3 "Processes and fds").
 *
 * posix_spawn (CLONE_VFORK in glibc) is used instead of fork so that a
 * multi-threaded caller, such as a Go daemon, runs no code of ours between
 * fork and exec. The fd table of the child is built from scratch: every
 * source is first duplicated above the highest target (close-on-exec), then
 * dup2'd onto its target, then everything from NFDS up is closed.
 */
#include "proc.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

extern char **environ;

int pidfd_open_cloexec(pid_t pid)
{
	/* pidfds are always close-on-exec. */
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

int pidfd_kill(int pidfd, int sig)
{
	return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
}

int pidfd_wait(int pidfd, int *status)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	for (;;) {
		if (waitid((idtype_t)P_PIDFD, (id_t)pidfd, &si, WEXITED) == 0)
			break;
		if (errno != EINTR)
			return -errno;
	}
	if (si.si_code == CLD_EXITED)
		*status = W_EXITCODE(si.si_status, 0);
	else
		*status = si.si_status & 0x7f;   /* killed or dumped: the signal */
	return 0;
}

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int memfd_with_data(const char *name, const void *data, size_t len)
{
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	const char *p = data;

	if (fd < 0)
		return -errno;
	while (len > 0) {
		ssize_t w = write(fd, p, len);

		if (w < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			close(fd);
			return -e;
		}
		p += w;
		len -= (size_t)w;
	}
	if (lseek(fd, 0, SEEK_SET) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

int spawn_with_fds(const char *const *argv, const char *const *envp, const int *fds,
                   size_t nfds, pid_t *pid, int *pidfd, osb_error *err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int *high = NULL;
	size_t made = 0;
	int r, ret = 0;

	high = calloc(nfds ? nfds : 1, sizeof(*high));
	if (!high)
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "spawn", "out of memory");
	for (; made < nfds; made++) {
		high[made] = fcntl(fds[made], F_DUPFD_CLOEXEC, (int)nfds);
		if (high[made] < 0) {
			ret = osb_err_set(err, OSB_E_SPAWN, errno, "spawn",
			                  "cannot duplicate fd %d for slot %zu: %s", fds[made], made,
			                  strerror(errno));
			goto out_fds;
		}
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	/* The child starts with default signal dispositions and an empty mask:
	 * a caller's blocked SIGCHLD or ignored SIGPIPE must not leak in. */
	{
		sigset_t all, none;

		sigfillset(&all);
		sigemptyset(&none);
		posix_spawnattr_setsigdefault(&attr, &all);
		posix_spawnattr_setsigmask(&attr, &none);
		posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	}
	for (size_t i = 0; i < nfds; i++)
		posix_spawn_file_actions_adddup2(&fa, high[i], (int)i);
	posix_spawn_file_actions_addclosefrom_np(&fa, (int)nfds);
	r = posix_spawn(pid, argv[0], &fa, &attr, (char *const *)argv,
	                (char *const *)(envp ? envp : (const char *const *)environ));
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (r != 0) {
		ret = osb_err_set(err, OSB_E_SPAWN, r, "spawn", "cannot start %s: %s", argv[0],
		                  strerror(r));
		goto out_fds;
	}
	*pidfd = pidfd_open_cloexec(*pid);
	if (*pidfd < 0) {
		/* Without a pidfd we could not supervise it safely: kill and reap. */
		int e = errno;

		kill(*pid, SIGKILL);
		waitpid(*pid, NULL, 0);
		ret = osb_err_set(err, OSB_E_HOST, e, "spawn",
		                  "pidfd_open failed: %s (Linux 5.3 or later is required)", strerror(e));
	}
out_fds:
	for (size_t i = 0; i < made; i++)
		close(high[i]);
	free(high);
	return ret;
}

int spawn_capture(const char *const *argv, size_t max, char **out, osb_error *err)
{
	_cleanup_close_ int devnull = -1, rd = -1, wr = -1, pidfd = -1;
	int pipefd[2], fds[3], status = 0, r;
	size_t n = 0, cap = 4096;
	char *buf;
	pid_t pid;

	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull < 0)
		return osb_err_set(err, OSB_E_IO, errno, "spawn", "/dev/null: %s", strerror(errno));
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return osb_err_set(err, OSB_E_IO, errno, "spawn", "pipe: %s", strerror(errno));
	rd = pipefd[0];
	wr = pipefd[1];
	fds[0] = devnull; fds[1] = wr; fds[2] = devnull;
	r = spawn_with_fds(argv, NULL, fds, 3, &pid, &pidfd, err);
	if (r < 0)
		return r;
	close(wr);
	wr = -1;
	buf = malloc(cap);
	if (!buf) {
		pidfd_kill(pidfd, SIGKILL);
		pidfd_wait(pidfd, &status);
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "spawn", "out of memory");
	}
	for (;;) {
		ssize_t got;

		if (n + 1 >= cap) {
			char *nb = cap * 2 > max + 1 ? NULL : realloc(buf, cap * 2);

			if (!nb)
				break;   /* over MAX: keep what we have */
			buf = nb;
			cap *= 2;
		}
		got = read(rd, buf + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	buf[n] = '\0';
	pidfd_kill(pidfd, SIGKILL);   /* harmless if it already exited */
	pidfd_wait(pidfd, &status);
	*out = buf;
	return 0;
}

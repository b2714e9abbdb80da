/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* sysloop.c — the syscall-heavy loop of the benchmark (bench/run.sh).
 *
 * A seccomp filter runs on every system call a sandboxed program makes, so
 * its cost is a per-call tax that is only visible in a loop of cheap calls.
 * This program times such a loop itself (CLOCK_MONOTONIC around the loop
 * only, so the sandbox's start-up is not counted) and prints the mean cost
 * of one call. bench/run.sh runs it inside a sandbox under the shipped
 * filter and under "seccomp none", and compares.
 *
 *   sysloop getppid|stat|mix|ioctl N [allow-all]  ->  "<kind> <N> <ns per call>"
 *
 * allow-all first loads a one-instruction filter that allows everything:
 * run under "seccomp none", it shows what any filter at all costs on this
 * kernel (the system-call entry path a filtered task takes), apart from
 * what the rules of the shipped group add.
 *
 * getppid is the cheapest system call there is: the filter's share of it is
 * the worst case. stat("/") is a typical file-system call. mix alternates
 * getppid, stat, open+close and read of /dev/zero: a program that does real
 * work between its calls. ioctl(FIONREAD) on a pipe is a call the filter
 * decides by its arguments: the kernel cannot cache the answer, and the
 * filter's argument rules run every time.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The raw system call: glibc does not cache getppid, but say so plainly. */
static void loop_getppid(long n)
{
	for (long i = 0; i < n; i++)
		(void)syscall(SYS_getppid);
}

static int loop_stat(long n)
{
	struct stat st;

	for (long i = 0; i < n; i++)
		if (stat("/", &st) < 0)
			return -errno;
	return 0;
}

/* Four kinds of call in turn; N counts the calls, not the rounds. */
static int loop_mix(long n)
{
	char buf[64];
	struct stat st;
	int zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);

	if (zero < 0)
		return -errno;
	for (long i = 0; i < n; i += 5) {
		int fd;

		(void)syscall(SYS_getppid);
		if (stat("/", &st) < 0 || read(zero, buf, sizeof(buf)) < 0)
			goto fail;
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			goto fail;
		close(fd);
	}
	close(zero);
	return 0;
fail:
	close(zero);
	return -errno;
}

static int loop_ioctl(long n)
{
	int p[2], avail, r = 0;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	for (long i = 0; i < n && r == 0; i++)
		if (ioctl(p[0], FIONREAD, &avail) < 0)
			r = -errno;
	close(p[0]);
	close(p[1]);
	return r;
}

static int load_allow_all(void)
{
	struct sock_filter allow[] = { BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
	struct sock_fprog prog = { .len = 1, .filter = allow };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
		return -errno;
	return 0;
}

int main(int argc, char **argv)
{
	char *end = NULL;
	long n;
	double t0, t1;
	int r = 0;

	if (argc < 3 || argc > 4 || (n = strtol(argv[2], &end, 10)) <= 0 || *end ||
	    (argc == 4 && strcmp(argv[3], "allow-all") != 0)) {
		fprintf(stderr, "usage: sysloop getppid|stat|mix|ioctl N [allow-all]\n");
		return 2;
	}
	if (argc == 4 && (r = load_allow_all()) < 0) {
		fprintf(stderr, "sysloop: loading the allow-all filter failed: %s\n", strerror(-r));
		return 1;
	}
	t0 = now_ns();
	if (strcmp(argv[1], "getppid") == 0)
		loop_getppid(n);
	else if (strcmp(argv[1], "stat") == 0)
		r = loop_stat(n);
	else if (strcmp(argv[1], "mix") == 0)
		r = loop_mix(n);
	else if (strcmp(argv[1], "ioctl") == 0)
		r = loop_ioctl(n);
	else {
		fprintf(stderr, "sysloop: unknown kind %s\n", argv[1]);
		return 2;
	}
	t1 = now_ns();
	if (r < 0) {
		fprintf(stderr, "sysloop: %s failed: %s\n", argv[1], strerror(-r));
		return 1;
	}
	printf("%s %ld %.1f\n", argv[1], n, (t1 - t0) / (double)n);
	return 0;
}

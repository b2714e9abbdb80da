/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* skip.h — how a C test says that the host lacks what a case needs.
 *
 * A test that needs a host feature (IA-32 emulation, the x32 ABI, user
 * namespaces, ...) probes for it first and asks osb_test_have() whether to
 * run. When the feature is absent the case is skipped, never failed and
 * never counted as a silent pass: one line on stdout,
 *
 *   SKIP: <feature>: <reason>
 *
 * which tools/check.sh counts. A machine that must have the feature lists
 * it in the comma-separated OSB_REQUIRE (OSB_REQUIRE=ia32,userns): its
 * absence then fails the test loudly, with the reason, instead of skipping.
 * OSB_TEST_HIDE (same form) makes a present feature look absent, so that
 * the skip path itself can be tested on a host that has the feature.
 *
 * Feature names: "ia32" (int $0x80 works), "x32" (the x32 system call ABI),
 * "cgroup-v1" and "cgroup-v2" (the memory, pids and cpu controllers in that
 * cgroup version, where this caller may create cgroups), "test-user" (the
 * unprivileged user OSB_TEST_USER, default osb-test), "quiet-host" (a host
 * idle enough to give a CPU burner more than half a CPU, which showing a
 * CPU quota at work needs).
 */
#ifndef OSB_TEST_SKIP_H
#define OSB_TEST_SKIP_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* True when the comma-separated list in environment variable VAR names
 * FEATURE. */
static inline bool osb_test_env_lists(const char *var, const char *feature)
{
	const char *s = getenv(var);
	size_t n = strlen(feature);

	while (s && *s) {
		size_t len = strcspn(s, ",");

		if (len == n && strncmp(s, feature, n) == 0)
			return true;
		s += len;
		if (*s == ',')
			s++;
	}
	return false;
}

/* PRESENT, as the probe found it (false when OSB_TEST_HIDE names FEATURE).
 * When absent: print the SKIP line, or fail the whole test program when
 * OSB_REQUIRE names FEATURE. REASON says why it is absent. */
static inline bool osb_test_have(const char *feature, bool present, const char *reason)
{
	if (present && osb_test_env_lists("OSB_TEST_HIDE", feature)) {
		present = false;
		reason = "hidden by OSB_TEST_HIDE";
	}
	if (present)
		return true;
	if (osb_test_env_lists("OSB_REQUIRE", feature)) {
		printf("FAIL: %s: required by OSB_REQUIRE but absent: %s\n", feature, reason);
		fprintf(stderr, "FAIL: %s: required by OSB_REQUIRE but absent: %s\n", feature, reason);
		fflush(NULL);
		exit(1);
	}
	printf("SKIP: %s: %s\n", feature, reason);
	fflush(stdout);
	return false;
}

#if defined(__x86_64__)
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Whether this kernel runs the i386 ABI from a 64-bit process: a child
 * makes a harmless int $0x80 getpid. A kernel with IA-32 emulation off
 * kills it with SIGSEGV before any seccomp filter sees the call. REASON
 * gets the finding either way. The probes honour OSB_TEST_HIDE too, so a
 * caller can name the skipped case in its reason. */
static inline bool osb_test_probe_ia32(char *reason, size_t size)
{
	int st = 0;
	pid_t pid;

	if (osb_test_env_lists("OSB_TEST_HIDE", "ia32")) {
		snprintf(reason, size, "hidden by OSB_TEST_HIDE");
		return false;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(reason, size, "cannot fork the probe");
		return false;
	}
	if (pid == 0) {
		long ret;

		__asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L /* getpid */)
		                 : "memory", "r8", "r9", "r10", "r11");
		_exit(ret == (long)syscall(SYS_getpid) ? 0 : 1);
	}
	if (waitpid(pid, &st, 0) != pid) {
		snprintf(reason, size, "cannot wait for the probe");
		return false;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		snprintf(reason, size, "int $0x80 getpid works");
		return true;
	}
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS)
		snprintf(reason, size, "a seccomp filter already in place (a container's or an "
		         "enclosing sandbox's) kills the i386 ABI (int $0x80 getpid: SIGSYS)");
	else if (WIFSIGNALED(st))
		snprintf(reason, size, "IA-32 emulation is off here (int $0x80 getpid killed the "
		         "probe with signal %d)", WTERMSIG(st));
	else
		snprintf(reason, size, "int $0x80 getpid returned a wrong pid");
	return false;
}

/* Whether the kernel has the x32 ABI: getpid with __X32_SYSCALL_BIT. A
 * kernel without it answers ENOSYS. */
static inline bool osb_test_probe_x32(char *reason, size_t size)
{
	long r;

	if (osb_test_env_lists("OSB_TEST_HIDE", "x32")) {
		snprintf(reason, size, "hidden by OSB_TEST_HIDE");
		return false;
	}
	r = syscall(0x40000000L | SYS_getpid);
	if (r == (long)getpid()) {
		snprintf(reason, size, "x32 getpid works");
		return true;
	}
	snprintf(reason, size, "the kernel has no x32 ABI (x32 getpid failed: %s)",
	         r < 0 ? strerror(errno) : "wrong pid");
	return false;
}
#endif

#endif /* OSB_TEST_SKIP_H */

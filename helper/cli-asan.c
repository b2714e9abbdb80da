/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* cli-asan.c — AddressSanitizer defaults for the osb-isolate command.
 * Compiled to nothing unless the build uses -fsanitize=address
 * (./configure --enable-sanitizers).
 *
 * The command keeps LeakSanitizer on: it is the library's first user and
 * the leak check at its exit is part of the sanitizer gate. The exception
 * is a command that itself runs confined, as in the tests that run
 * osb-isolate inside an osb-isolate sandbox: LeakSanitizer stops the
 * process's threads with ptrace(2), which the sandbox's seccomp filter
 * denies, and then dies with "LeakSanitizer has encountered a fatal
 * error". A process that has both a seccomp filter and no_new_privs (what
 * every osb-isolate sandbox sets; a container's default seccomp profile
 * alone does not set no_new_privs) gets detect_leaks=0. ASan's own checks
 * stay on either way, and ASAN_OPTIONS overrides this as it does every
 * default. See sandboxed-asan.c for the programs that always run inside.
 */
#if !defined(__SANITIZE_ADDRESS__) && defined(__has_feature)
#if __has_feature(address_sanitizer)
#define __SANITIZE_ADDRESS__ 1
#endif
#endif

#if defined(__SANITIZE_ADDRESS__)
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

const char *__asan_default_options(void);

/* The runtime has not mapped its shadow memory yet: instrumented code
 * would fault on its first stack access. */
#define BEFORE_ASAN_INIT __attribute__((no_sanitize("address", "undefined")))

/* Does BUF hold LINE? By hand: ASan intercepts strstr and friends, and
 * its interceptors are not ready yet when this runs. */
BEFORE_ASAN_INIT static bool has_line(const char *buf, const char *line)
{
	for (const char *p = buf; *p; p++) {
		size_t i = 0;

		while (line[i] && p[i] == line[i])
			i++;
		if (!line[i])
			return true;
	}
	return false;
}

/* Called by the sanitizer runtime before main, before its interceptors
 * work: raw system calls only (open, read and close are intercepted). */
BEFORE_ASAN_INIT static bool confined(void)
{
	char buf[4096];
	long n, fd = syscall(SYS_openat, AT_FDCWD, "/proc/self/status", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = syscall(SYS_read, fd, buf, sizeof(buf) - 1);
	syscall(SYS_close, fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return has_line(buf, "\nNoNewPrivs:\t1\n") && has_line(buf, "\nSeccomp:\t2\n");
}

BEFORE_ASAN_INIT const char *__asan_default_options(void)
{
	return confined() ? "detect_leaks=0" : "";
}
#else
/* ISO C wants at least one declaration in a translation unit. */
typedef int cli_asan_unused;
#endif

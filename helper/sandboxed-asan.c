/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* sandboxed-asan.c — AddressSanitizer defaults for programs that run inside
 * a sandbox: the init and session broker, and the test programs the
 * integration suites run as sandboxed commands. Compiled to nothing unless
 * the build uses -fsanitize=address (./configure --enable-sanitizers).
 *
 * LeakSanitizer checks for leaks when a process exits, and to do so it stops
 * the process's threads with ptrace(2). Inside a sandbox that cannot work:
 * the seccomp filter denies ptrace, and in root mode the identity switch
 * makes the process non-dumpable, so the check dies with "LeakSanitizer has
 * encountered a fatal error" and turns every exit into a failure. Leak
 * checking is therefore off for these programs only (ASan's memory-error
 * checks and UBSan stay on); the library's code is leak-checked where it
 * runs outside a sandbox: the CLI, the unit tests, the fuzzers.
 * ASAN_OPTIONS still overrides this, as it does every default.
 * In this build the init is linked dynamically (configure.ac): the ASan
 * runtime is a shared library, where every other build links it statically.
 */
#if !defined(__SANITIZE_ADDRESS__) && defined(__has_feature)
#if __has_feature(address_sanitizer)
#define __SANITIZE_ADDRESS__ 1
#endif
#endif

#if defined(__SANITIZE_ADDRESS__)
const char *__asan_default_options(void);

const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}
#else
/* ISO C wants at least one declaration in a translation unit. */
typedef int sandboxed_asan_unused;
#endif

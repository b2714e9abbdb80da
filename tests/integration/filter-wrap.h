/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* filter-wrap.h — what the test wrappers nouserns, nolandlock, nooverlay and
 * nocover share: run a command under a seccomp filter (libseccomp) that
 * allows everything but what the wrapper's RULES refuse, the way a container
 * runtime's profile would. The environment and every open fd are kept, and
 * the filter is inherited by all descendants.
 *
 * Run by root the filter is loaded without no_new_privs, as a container
 * runtime does, so setuid programs and file capabilities keep working; run
 * by anyone else the kernel requires no_new_privs and it is set. The filter
 * covers the native ABI only (the tests run native binaries).
 */
#ifndef OSB_TEST_FILTER_WRAP_H
#define OSB_TEST_FILTER_WRAP_H

#include <seccomp.h>

/* Add the wrapper's rules to CTX: 0, or a negative errno. */
typedef int filter_rules(scmp_filter_ctx ctx);

/* ARGV (ARGC entries) is "[--] CMD [ARG]...": load the filter RULES make and
 * exec CMD (searched in PATH). Returns only on failure, the exit status to
 * end with: 125 on a usage error (USAGE, the wrapper's own usage line, is
 * printed) or if the filter cannot be loaded, 126/127 if CMD cannot be
 * executed / is not found. NAME prefixes the messages. */
int filter_wrap_exec(const char *name, const char *usage, filter_rules *rules, int argc,
                     char **argv);

#endif

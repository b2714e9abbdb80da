/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* nolandlock.c — test wrapper that runs a command as if the kernel had no
 * Landlock: under a seccomp filter (libseccomp) that fails
 * landlock_create_ruleset(2) with the given errno — ENOSYS (not built in) or
 * EOPNOTSUPP (built in but not enabled at boot). The init's "landlock auto"
 * must then run without it and "landlock required" must refuse. Everything
 * else is allowed, the environment and open fds are kept, and the filter is
 * inherited by all descendants (bwrap, the init, the command).
 *
 * Usage: nolandlock ENOSYS|EOPNOTSUPP [--] CMD [ARG]...   (CMD searched in PATH)
 * Exit status: CMD's own once exec'd; 125 on a usage error or if the filter
 * cannot be loaded; 126/127 if CMD cannot be executed / is not found.
 *
 * Run by root it loads the filter without no_new_privs (as a container
 * runtime does); run by anyone else the kernel requires no_new_privs.
 */
#include "filter-wrap.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int landlock_err;

static int rules(scmp_filter_ctx ctx)
{
	int nr = seccomp_syscall_resolve_name("landlock_create_ruleset");

	if (nr == __NR_SCMP_ERROR)
		return -ENOSYS;
	return seccomp_rule_add(ctx, SCMP_ACT_ERRNO((unsigned)landlock_err), nr, 0);
}

int main(int argc, char **argv)
{
	static const char usage[] = "nolandlock ENOSYS|EOPNOTSUPP [--] CMD [ARG]...";

	if (argc < 2 || (strcmp(argv[1], "ENOSYS") != 0 && strcmp(argv[1], "EOPNOTSUPP") != 0)) {
		fprintf(stderr, "usage: %s\n", usage);
		return 125;
	}
	landlock_err = strcmp(argv[1], "ENOSYS") == 0 ? ENOSYS : EOPNOTSUPP;
	return filter_wrap_exec("nolandlock", usage, rules, argc - 2, argv + 2);
}

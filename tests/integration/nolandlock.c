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
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int load_filter(int err)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int nr = seccomp_syscall_resolve_name("landlock_create_ruleset"), r;

	if (!ctx)
		return -ENOMEM;
	if (nr == __NR_SCMP_ERROR) {
		seccomp_release(ctx);
		return -ENOSYS;
	}
	r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, geteuid() == 0 ? 0 : 1);
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO((unsigned)err), nr, 0);
	if (r == 0)
		r = seccomp_load(ctx);
	seccomp_release(ctx);
	return r;
}

int main(int argc, char **argv)
{
	int first = 2, err, r;

	if (argc > 2 && strcmp(argv[2], "--") == 0)
		first = 3;
	if (argc <= first || (strcmp(argv[1], "ENOSYS") != 0 && strcmp(argv[1], "EOPNOTSUPP") != 0)) {
		fputs("usage: nolandlock ENOSYS|EOPNOTSUPP [--] CMD [ARG]...\n", stderr);
		return 125;
	}
	err = strcmp(argv[1], "ENOSYS") == 0 ? ENOSYS : EOPNOTSUPP;
	r = load_filter(err);
	if (r < 0) {
		fprintf(stderr, "nolandlock: cannot load the seccomp filter: %s\n", strerror(-r));
		return 125;
	}
	execvp(argv[first], &argv[first]);
	err = errno;
	fprintf(stderr, "nolandlock: %s: %s\n", argv[first], strerror(err));
	return err == ENOENT ? 127 : 126;
}

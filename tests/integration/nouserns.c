/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* nouserns.c — test wrapper that runs a command the way a container with
 * nested user namespaces blocked would: under a seccomp filter (libseccomp)
 * that makes unshare(2) and clone(2) fail with EPERM when CLONE_NEWUSER is
 * asked for, and clone3(2) fail with ENOSYS (its flags sit in a struct the
 * filter cannot read, so callers must fall back to clone, as under Docker's
 * default profile). Everything else is allowed, the environment and every
 * open fd are kept, and the filter is inherited by all descendants.
 *
 * Usage: nouserns [--] CMD [ARG]...   (CMD is searched in PATH)
 * Exit status: CMD's own once exec'd; 125 if the filter cannot be loaded;
 * 126/127 if CMD cannot be executed / is not found.
 *
 * Run by root it loads the filter without no_new_privs, as a container
 * runtime does, so setuid programs and file capabilities keep working; run by
 * anyone else the kernel requires no_new_privs and it is set. The filter
 * covers the native ABI only (the tests run native binaries).
 */
#include "filter-wrap.h"

#include <errno.h>
#include <sched.h>

static int deny_newuser(scmp_filter_ctx ctx, const char *name)
{
	int nr = seccomp_syscall_resolve_name(name);

	if (nr == __NR_SCMP_ERROR)
		return -ENOSYS;
	return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1,
	                        SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER));
}

static int rules(scmp_filter_ctx ctx)
{
	int r = deny_newuser(ctx, "unshare");

	if (r == 0)
		r = deny_newuser(ctx, "clone");
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	return r;
}

int main(int argc, char **argv)
{
	return filter_wrap_exec("nouserns", "nouserns [--] CMD [ARG]...", rules, argc - 1,
	                        argv + 1);
}

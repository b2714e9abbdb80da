/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* nomountapi.c — test wrapper that runs a command the way a container whose
 * seccomp profile allows mount(2) but not the newer mount API would: under
 * a filter (filter-wrap.h) that makes open_tree(2) fail with EPERM. The init
 * makes a policy's read-only rules inside a writable workspace with it
 * (helper/init-reprotect.c, and the capabilities probe's replay,
 * lib/caps-cover.c); bwrap 0.8 and the /proc cover use mount(2), so every
 * sandbox still starts and only those rules are refused.
 *
 * Usage: nomountapi [--] CMD [ARG]...   (CMD is searched in PATH)
 * Exit status: CMD's own once exec'd; 125 if the filter cannot be loaded;
 * 126/127 if CMD cannot be executed / is not found.
 */
#include "filter-wrap.h"

#include <errno.h>

static int rules(scmp_filter_ctx ctx)
{
	int nr = seccomp_syscall_resolve_name("open_tree");

	if (nr == __NR_SCMP_ERROR)
		return -ENOSYS;
	return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
}

int main(int argc, char **argv)
{
	return filter_wrap_exec("nomountapi", "nomountapi [--] CMD [ARG]...", rules, argc - 1,
	                        argv + 1);
}

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* nocover.c — test wrapper that runs a command the way a container whose
 * seccomp profile refuses the init's /proc cover would: under a filter
 * (libseccomp) that makes mount(2) fail with EPERM when its flags are
 * exactly MS_BIND | MS_REC, the flags of the cover's binds
 * (helper/init-cover.c, and the capabilities probe's replay,
 * lib/caps-cover.c). bwrap 0.8 binds with MS_SILENT as well, so every
 * sandbox still starts and only the cover is refused. Everything else is
 * allowed, the environment and every open fd are kept, and the filter is
 * inherited by all descendants.
 *
 * Usage: nocover [--] CMD [ARG]...   (CMD is searched in PATH)
 * Exit status: CMD's own once exec'd; 125 if the filter cannot be loaded;
 * 126/127 if CMD cannot be executed / is not found.
 *
 * Run by root it loads the filter without no_new_privs, as a container
 * runtime does; run by anyone else the kernel requires no_new_privs and it
 * is set. The filter covers the native ABI only.
 */
#include "filter-wrap.h"

#include <errno.h>
#include <sys/mount.h>

static int rules(scmp_filter_ctx ctx)
{
	return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mount), 1,
	                        SCMP_A3_64(SCMP_CMP_EQ, MS_BIND | MS_REC));
}

int main(int argc, char **argv)
{
	return filter_wrap_exec("nocover", "nocover [--] CMD [ARG]...", rules, argc - 1, argv + 1);
}

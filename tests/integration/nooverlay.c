/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* nooverlay.c — test wrapper that runs a command the way a host without
 * overlayfs would: under a seccomp filter (libseccomp) that makes fsopen(2)
 * fail with ENODEV, the kernel's answer to fsopen("overlay") when the file
 * system is not there. osb-isolate asks for overlayfs through fsopen alone
 * (its probe, caps-overlay.c, and the init, init-overlay.c), and bwrap 0.8
 * mounts with mount(2) only, so every sandbox still starts and only the
 * overlay workspace is missing. Everything else is allowed, the environment
 * and every open fd are kept, and the filter is inherited by all
 * descendants.
 *
 * Usage: nooverlay [--] CMD [ARG]...   (CMD is searched in PATH)
 * Exit status: CMD's own once exec'd; 125 if the filter cannot be loaded;
 * 126/127 if CMD cannot be executed / is not found.
 *
 * Run by root it loads the filter without no_new_privs, as a container
 * runtime does; run by anyone else the kernel requires no_new_privs and it
 * is set. The filter covers the native ABI only (the tests run native
 * binaries).
 */
#include "filter-wrap.h"

#include <errno.h>

static int rules(scmp_filter_ctx ctx)
{
	return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENODEV), SCMP_SYS(fsopen), 0);
}

int main(int argc, char **argv)
{
	return filter_wrap_exec("nooverlay", "nooverlay [--] CMD [ARG]...", rules, argc - 1,
	                        argv + 1);
}

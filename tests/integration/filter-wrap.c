/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* filter-wrap.c — the test wrappers' shared part (filter-wrap.h). */
#include "filter-wrap.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int load_filter(filter_rules *rules)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int r;

	if (!ctx)
		return -ENOMEM;
	r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, geteuid() == 0 ? 0 : 1);
	if (r == 0)
		r = rules(ctx);
	if (r == 0)
		r = seccomp_load(ctx);
	seccomp_release(ctx);
	return r;
}

int filter_wrap_exec(const char *name, const char *usage, filter_rules *rules, int argc,
                     char **argv)
{
	int first = 0, r;

	if (argc > 0 && strcmp(argv[0], "--") == 0)
		first = 1;
	if (first >= argc || (first == 0 && argv[0][0] == '-')) {
		fprintf(stderr, "usage: %s\n", usage);
		return 125;
	}
	r = load_filter(rules);
	if (r < 0) {
		fprintf(stderr, "%s: cannot load the seccomp filter: %s\n", name, strerror(-r));
		return 125;
	}
	execvp(argv[first], argv + first);
	r = errno;
	fprintf(stderr, "%s: %s: %s\n", name, argv[first], strerror(r));
	return r == ENOENT ? 127 : 126;
}

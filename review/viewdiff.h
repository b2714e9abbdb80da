/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* viewdiff.h — how the effective view changes between two policies
 * (viewdiff.c), for diff: "readable: +/home", "network: none → host",
 * each with the rules that decide it on either side.
 */
#ifndef OSB_REVIEW_VIEWDIFF_H
#define OSB_REVIEW_VIEWDIFF_H

#include "audit.h"
#include "diff.h"

typedef struct view_delta {
	char *aspect;             /* "readable", "writable", "network", "seccomp", ... */
	char *change;             /* "+/home", "none → host" */
	enum diff_dir dir;
	char *from_origin;        /* the deciding rule of A and its origin:
	                           * "ro-bind /usr (a.policy:3)"; NULL: none */
	char *to_origin;          /* the same of B */
} view_delta;

typedef struct view_deltas {
	view_delta *v;
	size_t n, cap;
} view_deltas;

/* The deltas from A to B: paths of the host (those H lists, the areas the
 * audit weighs, and every path a rule of either names) whose access
 * changes, then the network, the workspace, the environment's well-known
 * secrets, the effective seccomp set, Landlock, the limits and the
 * identity. Returns 0 or -ENOMEM. */
int diff_view(const review_policy *a, const review_policy *b, const audit_host *h,
              view_deltas *out);
void view_deltas_free(view_deltas *d);

#endif /* OSB_REVIEW_VIEWDIFF_H */

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* view.h — the effective view of the host a policy gives its sandbox
 * (view.c): for a host path, whether the sandbox can read it, write it or
 * not see it, and which rule decides. The audit score and diff's view
 * deltas are computed on this, never on the directives themselves, so two
 * policies that show the same files score the same.
 */
#ifndef OSB_REVIEW_VIEW_H
#define OSB_REVIEW_VIEW_H

#include "model.h"

enum rv_access { RV_NONE = 0, RV_RO, RV_RW };

typedef struct rv_view {
	enum rv_access acc;
	bool granted;             /* only a caller's grant beneath a read-root or
	                           * write-root makes it so */
	const char *kind;         /* the deciding rule: "root", "ro-bind", "write",
	                           * "write-root", "read-root", "read-only",
	                           * "tmpfs", "hide", "dev", "proc", "symlink" */
	const char *path;         /* its path; NULL for root */
	rv_origin o;              /* its origin */
} rv_view;

/* What the sandbox can do with the host's PATH (absolute, normalized; the
 * workspace, a run-time directory, is not in it). GRANTS: count what a
 * caller may add beneath the policy's read-roots and write-roots. */
rv_view view_at(const review_policy *p, const char *path, bool grants);

/* The most the sandbox can do with any host path PATTERN names ('*' in a
 * component stands for any part of a name: "/home/ * /.ssh" without the
 * blanks): the pattern is tried at every place a rule of P names, and with
 * a name no rule names. The path that decided goes to WHERE (may be NULL). */
rv_view view_exposes(const review_policy *p, const char *pattern, bool grants, char *where,
                     size_t size);

/* "ro-bind /home", "root host-ro", "write-root /srv" for V, into BUF. */
void view_rule_str(const review_policy *p, const rv_view *v, char *buf, size_t size);

#endif /* OSB_REVIEW_VIEW_H */

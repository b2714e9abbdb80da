/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* diff.h — the semantic difference of two policies (diff.c).
 */
#ifndef OSB_REVIEW_DIFF_H
#define OSB_REVIEW_DIFF_H

#include "model.h"

enum diff_kind { DIFF_ADDED, DIFF_REMOVED, DIFF_CHANGED };
enum diff_dir { DIFF_NEUTRAL, DIFF_WIDER, DIFF_NARROWER };

typedef struct diff_entry {
	enum diff_kind kind;
	enum diff_dir dir;
	char *from, *to;          /* canonical rules (NULL for added / removed) */
	char *from_origin, *to_origin;  /* "file:line" or "default" */
} diff_entry;

typedef struct diff_report {
	diff_entry *v;
	size_t n, cap;
} diff_report;

/* The semantic difference from A to B, from their canonical forms: a
 * scalar (network, a limit, a mount's kind at a path, an env set NAME) that
 * differs is CHANGED, list entries are ADDED or REMOVED. Returns 0, -ENOMEM. */
int diff_policies(const review_policy *a, const review_policy *b, diff_report *out);
void diff_report_free(diff_report *r);
const char *diff_dir_name(enum diff_dir d);

#endif /* OSB_REVIEW_DIFF_H */

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* report.h — the JSON forms of check, lint and diff (report.c), whose
 * schemas are docs/check.schema.json, docs/lint.schema.json and
 * docs/diff.schema.json; and diff's overall verdict.
 */
#ifndef OSB_REVIEW_REPORT_H
#define OSB_REVIEW_REPORT_H

#include "diff.h"
#include "lint.h"
#include "viewdiff.h"

/* Diagnostics of several policies, gathered for one JSON object. */
typedef struct check_json check_json;

check_json *check_json_new(void);
/* Start the entry of policy NAME; its diagnostics follow. 0 or -ENOMEM. */
int check_json_policy(check_json *j, const char *name);
/* One diagnostic of the current policy (LINE and COL 0: none; HINT may be
 * NULL). 0 or -ENOMEM. */
int check_json_diag(check_json *j, const char *file, unsigned line, unsigned col,
                    const char *severity, const char *code, const char *message, const char *hint);
/* The current policy's status: 0 clean, 1 warnings, 2 errors. */
void check_json_status(check_json *j, int status);
/* The whole object (malloc'd; NULL: no memory), with the command's exit
 * STATUS; frees J. */
char *check_json_finish(check_json *j, int status);

/* Lint reports of several policies, gathered for one JSON object
 * (docs/lint.schema.json). */
typedef struct lint_json lint_json;

lint_json *lint_json_new(void);
/* The entry of policy NAME: its report R (NULL when it did not load, ERROR
 * then saying why) and its STATUS (0 no open finding, 1 findings, 2 not
 * loaded). 0 or -ENOMEM. */
int lint_json_add(lint_json *j, const char *name, const lint_report *r, const char *error,
                  int status);
/* The whole object (malloc'd; NULL: no memory), with the command's exit
 * STATUS; frees J. */
char *lint_json_finish(lint_json *j, int status);

/* The overall direction of a diff, from its rule changes and its view
 * deltas (V may be NULL): "equal" (no difference), "neutral" (differences,
 * none wider or narrower), "narrower", "wider" or "mixed". */
const char *diff_verdict(const diff_report *d, const view_deltas *v);
/* One JSON object for the diff of A (hash HA, score SA) and B. */
char *diff_render_json(const diff_report *d, const view_deltas *v, const char *a, const char *ha,
                       unsigned sa, const char *b, const char *hb, unsigned sb);

#endif /* OSB_REVIEW_REPORT_H */

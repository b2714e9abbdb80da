/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* audit.h — the exposure score of a policy (audit.c).
 */
#ifndef OSB_REVIEW_AUDIT_H
#define OSB_REVIEW_AUDIT_H

#include "model.h"

#define AUDIT_MAX 100

typedef struct audit_item {
	const char *id;           /* "A05" */
	const char *name;         /* "network" */
	const char *what;         /* what the check measures */
	unsigned weight, points;  /* points: 0 (closed) .. weight (fully exposed) */
	char *detail;             /* why this many points */
	rv_origin o;              /* the rule that decided it (file NULL: none) */
} audit_item;

typedef struct audit_report {
	audit_item *v;
	size_t n;
	unsigned total;           /* sum of points, 0..AUDIT_MAX */
} audit_report;

/* What the audit reads of the host: the entries of its / ("/bin", "/work",
 * ...), each scored as a host area when the view shows it. */
typedef struct audit_host {
	char **top;
	size_t n_top;
} audit_host;

/* This host's: 0 or -ENOMEM (an unreadable / has no entries). */
int audit_host_scan(audit_host *h);
void audit_host_free(audit_host *h);

/* Score P on host H (NULL: no entries beyond the areas audit.c names).
 * Each check only grows when a grant is added, so the total is monotonic
 * in the grants; policies that show the host alike score alike. Returns 0
 * or -ENOMEM. */
int audit_policy_on(const review_policy *p, const audit_host *h, audit_report *out);
/* The same on this host (audit_host_scan). */
int audit_policy(const review_policy *p, audit_report *out);
void audit_report_free(audit_report *r);
/* "low", "medium", "high" or "unsafe" for a total. */
const char *audit_level(unsigned total);
/* Table for a terminal, and one JSON object (malloc'd; NULL: no memory).
 * THRESHOLD < 0: none given. */
char *audit_render_text(const audit_report *r, const char *name);
char *audit_render_json(const audit_report *r, const char *name, const char *hash, int threshold);

/* Every check with its id, name, weight and what it measures: a table, or
 * one JSON array (malloc'd; NULL: no memory). */
char *audit_checks_text(void);
char *audit_checks_json(void);

#endif /* OSB_REVIEW_AUDIT_H */

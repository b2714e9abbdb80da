/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* lint.h — risky grants of a policy, each with a stable code (lint.c).
 */
#ifndef OSB_REVIEW_LINT_H
#define OSB_REVIEW_LINT_H

#include "model.h"

enum lint_severity { LINT_WARNING, LINT_ERROR };

typedef struct lint_rule {
	const char *code;         /* "W101": never reused for another meaning */
	const char *name;         /* "write-home" */
	enum lint_severity sev;
	const char *why;          /* the risk, and what to do instead */
} lint_rule;

typedef struct lint_finding {
	const lint_rule *rule;
	char *message;            /* the grant, in the policy's words */
	const char *file;         /* the rule's file (points into the policy) */
	unsigned line, col;       /* for default rules: the top file's version line */
	bool from_default;        /* the grant is a default, not a written rule */
	bool api;                 /* the grant is the calling program's (a request's) */
	const char *about;        /* the rule it is about (the model's text); NULL: none */
	char *pointer;            /* a request's JSON pointer to it (lint of a request) */
	char *waiver;             /* reason, when a waiver comment covers it */
	unsigned waiver_line;
} lint_finding;

typedef struct lint_report {
	lint_finding *v;
	size_t n, cap;
	size_t n_waived;
} lint_report;

/* Every rule, in code order. */
const lint_rule *lint_rules(size_t *n);
const lint_rule *lint_rule_find(const char *code);

/* Run every lint rule over P and apply the waiver comments of P's files.
 * Returns 0 or -ENOMEM. Free with lint_report_free(). */
int lint_policy(const review_policy *p, lint_report *out);
void lint_report_free(lint_report *r);

/* Append a finding of rule CODE at origin O (NULL or not a file's rule:
 * the policy as a whole). 0 or -ENOMEM. */
int lint_add_finding(lint_report *r, const char *code, const rv_origin *o, const char *f, ...)
	__attribute__((format(printf, 4, 5)));

#endif /* OSB_REVIEW_LINT_H */

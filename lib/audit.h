/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* audit.h — the reviewer's view of a parsed policy: lint, audit, diff, explain.
 *
 * Everything here is computed from the effective struct osb_policy (and its
 * canonical form), never from the policy text: a line the parser rejected
 * can neither count as a protection nor hide a grant. The one exception is
 * lint waivers, which are comments ("# osb-lint: waive CODE -- REASON"): they
 * silence a finding for the reviewer, never change what runs, the hash or
 * the audit score. The CLI (helper/cmd-review.c) only prints what these
 * functions return.
 */
#ifndef OSB_AUDIT_H
#define OSB_AUDIT_H

#include "policy.h"
#include "viewscan.h"

/* ---- check: parse errors as diagnostics ------------------------------------ */

/* A parse error split into its position and text, with a stable code
 * (E001...). FILE and TEXT are malloc'd; LINE and COL are 0 when the error
 * has no position (an unreadable file). */
typedef struct diag {
	char *file;
	unsigned line, col;
	const char *code;
	char *text;
} diag;

/* Split ERR (from osb_policy_load/parse) into a diag; FALLBACK_FILE names
 * the file when the message carries no position. Returns 0 or -ENOMEM. */
int diag_from_error(const osb_error *err, const char *fallback_file, diag *out);
void diag_free(diag *d);
/* The code of a parser message (without its "file:line:col: " prefix). */
const char *diag_code_of(const char *text);
/* Every code check can report, with its short name, into CODES/NAMES (at
 * most MAX). Returns how many. */
size_t diag_codes(const char **codes, const char **names, size_t max);

/* ---- lint -------------------------------------------------------------------- */

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
int lint_policy(const osb_policy *p, lint_report *out);
void lint_report_free(lint_report *r);

/* ---- audit ------------------------------------------------------------------- */

#define AUDIT_MAX 100

typedef struct audit_item {
	const char *id;           /* "A05" */
	const char *name;         /* "network" */
	const char *what;         /* what the check measures */
	unsigned weight, points;  /* points: 0 (closed) .. weight (fully exposed) */
	char *detail;             /* why this many points */
	osb_origin o;             /* the rule that decided it (file NULL: none) */
} audit_item;

typedef struct audit_report {
	audit_item *v;
	size_t n;
	unsigned total;           /* sum of points, 0..AUDIT_MAX */
} audit_report;

/* Score P. Each check only grows when a grant is added, so the total is
 * monotonic in the grants. Returns 0 or -ENOMEM. */
int audit_policy(const osb_policy *p, audit_report *out);
void audit_report_free(audit_report *r);
/* "low", "medium", "high" or "unsafe" for a total. */
const char *audit_level(unsigned total);
/* Table for a terminal, and one JSON object (malloc'd; NULL: no memory).
 * THRESHOLD < 0: none given. */
char *audit_render_text(const audit_report *r, const char *name);
char *audit_render_json(const audit_report *r, const char *name, const char *hash, int threshold);

/* ---- diff -------------------------------------------------------------------- */

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
int diff_policies(const osb_policy *a, const osb_policy *b, diff_report *out);
void diff_report_free(diff_report *r);
const char *diff_dir_name(enum diff_dir d);

/* ---- explain ----------------------------------------------------------------- */

typedef struct host_bind {
	char *dest, *source;      /* source: the host path the verified fd names */
	bool writable;
	osb_origin o;
} host_bind;

typedef struct host_sc {
	char *syscall;
	char *action;             /* "EPERM", "ENOSYS", "KILL", ... */
	bool by_args;             /* only some argument values are denied */
} host_sc;

typedef struct host_arch {
	char *name;               /* "x86_64" */
	host_sc *rules; size_t n_rules;
	char *fallback;           /* action for every other call, e.g. "ALLOW" */
} host_arch;

/* The launch plan of P on this host, as plain data (explain --host). */
typedef struct host_plan {
	bool userns;
	char *workspace;          /* host directory, NULL without a workspace */
	host_bind *binds; size_t n_binds;
	strv argv;                /* bwrap's argv, exactly as run would use it */
	strv env_names;           /* the sandbox environment, names only */
	const char *seccomp_group;
	host_arch *arches; size_t n_arches;
	char *seccomp_text;       /* libseccomp's PFC text of the same filter */
	view_sockets sockets;     /* the Unix sockets the view shows (viewscan.h) */
} host_plan;

/* Build the plan for the command "true" with ENVP as the caller's
 * environment, then release every fd. Returns 0 or a negative OSB_E_*. */
int host_plan_build(const osb_policy *p, const char *const *envp, host_plan *h, osb_error *err);
void host_plan_free(host_plan *h);
char *host_plan_render_text(const osb_policy *p, const host_plan *h);

/* The effective policy as JSON: name, hash, files, each rule with its
 * directive, arguments and origin, and the host plan when H is non-NULL. */
char *explain_render_json(const osb_policy *p, const char *name, const host_plan *h);
/* The text form: a header naming the policy and its hash, then
 * osb_policy_explain(). */
char *explain_render_text(const osb_policy *p, const char *name);

#endif /* OSB_AUDIT_H */

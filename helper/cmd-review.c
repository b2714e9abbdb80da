/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* cmd-review.c — the reviewer commands of osb-isolate: check, lint, audit,
 * diff, explain and hash.
 *
 * None of them runs anything (explain --host only has the library build the
 * launch plan and close it). They load policies through the public API,
 * read the effective rules through its introspection calls (review/model.c)
 * and print what the reviewer library (review/) computes from them. Their exit statuses follow
 * the tradition of diff(1) and grep(1), not run's: 0 clean or identical,
 * 1 findings, differences or a score above the threshold, 2 a policy that
 * does not load or a usage error.
 */
#include "audit.h"
#include "diag.h"
#include "diff.h"
#include "explain.h"
#include "startable.h"
#include "common.h"
#include "lint.h"
#include "report.h"
#include "reqpos.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli-common.h"
#include "cmd-review.h"
#include "utf8.h"

#define EXIT_FOUND 1
#define EXIT_TROUBLE 2
#define WRAP_WIDTH 78
/* A load or request error as the review commands say it. */
#define MSG_SIZE (sizeof(((osb_error *)0)->message) + PATH_MAX + 64)

extern char **environ;

static const char prog[] = "osb-isolate";

__attribute__((format(printf, 2, 3)))
static int usage_error(const char *cmd, const char *f, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s: ", prog, cmd);
	va_start(ap, f);
	vfprintf(stderr, f, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s %s --help' for more information.\n", prog, cmd);
	return EXIT_TROUBLE;
}

static int load_error(const osb_error *err)
{
	fprintf(stderr, "%s: %s: %s\n", prog, err->stage[0] ? err->stage : "policy", err->message);
	return EXIT_TROUBLE;
}

static int nomem(const char *cmd)
{
	fprintf(stderr, "%s: %s: out of memory\n", prog, cmd);
	return EXIT_TROUBLE;
}

/* A policy and the reviewer's model of it. */
typedef struct loaded {
	osb_policy *p;
	review_policy m;
} loaded;

static void unload(loaded *l)
{
	if (l->p)
		review_model_free(&l->m);
	osb_policy_free(l->p);
	l->p = NULL;
}

/* The model of P (whose ownership L takes); 0, or EXIT_TROUBLE said. */
static int model_of(loaded *l, osb_policy *p, const char *cmd)
{
	int r = review_model(p, &l->m);

	l->p = p;
	if (r == 0)
		return 0;
	osb_policy_free(p);
	l->p = NULL;
	if (r == -ENOMEM)
		return nomem(cmd);
	fprintf(stderr, "%s: %s: the library reports a rule this osb-isolate does not know\n",
	        prog, cmd);
	return EXIT_TROUBLE;
}

/* `request SUB ... BASELINE REQUEST.json`: the request applied to the
 * policy load() reads after skipping REQUEST_SKIP of them (diff: the
 * second). NULL: no request. */
static const char *request_path;
static int request_skip;

/* Apply the execd request in PATH to P, as the library does for execd
 * (osb_policy_apply_json); 0, or EXIT_TROUBLE said. */
static int apply_request(osb_policy *p, const char *path, char *msg, size_t size)
{
	_cleanup_free_ char *text = NULL;
	osb_error err = { 0 };
	size_t len;
	int r = rv_read_file(path, RV_MAX_POLICY_BYTES, &text, &len);

	if (r < 0)
		snprintf(msg, size, "request: cannot read %s: %s", path, strerror(-r));
	else if (strlen(text) != len)
		snprintf(msg, size, "request: %s: NUL byte in the request", path);
	else if (osb_policy_apply_json(p, text, &err) < 0)
		snprintf(msg, size, "request: %s: %s", path, err.message);
	else
		return 0;
	fprintf(stderr, "%s: %s\n", prog, msg);
	return EXIT_TROUBLE;
}

static int load(const char *name, loaded *l, const char *cmd)
{
	osb_error err = { 0 };
	osb_policy *p = osb_policy_load(name, &err);
	char msg[MSG_SIZE];
	int r;

	if (!p)
		return load_error(&err);
	if (request_path && request_skip-- == 0 &&
	    (r = apply_request(p, request_path, msg, sizeof(msg))) != 0) {
		osb_policy_free(p);
		return r;
	}
	return model_of(l, p, cmd);
}

/* Options shared by the commands: each names its own in LONGOPTS. Returns
 * the option, -1 at the end, or '?' after printing a usage error. */
static int next_opt(int argc, char **argv, const char *shortopts, const struct option *longopts)
{
	int c = getopt_long(argc, argv, shortopts, longopts, NULL);

	if (c == '?' || c == ':') {
		if (optopt && optopt < 256)
			usage_error(argv[0], "unknown option or missing argument: '-%c'", optopt);
		else
			usage_error(argv[0], "unknown option or missing argument: '%s'", argv[optind - 1]);
		return '?';
	}
	return c;
}

static void opts_reset(void)
{
	optind = 0;   /* 0: glibc reinitializes, so each command parses afresh */
	opterr = 0;
}

/* Print TEXT indented by INDENT, wrapped at WRAP_WIDTH columns. */
static void print_wrapped(const char *text, int indent)
{
	int col = 0;

	while (*text) {
		size_t n = strcspn(text, " ");

		if (col > indent && col + 1 + (int)n > WRAP_WIDTH) {
			putchar('\n');
			col = 0;
		}
		if (col == 0)
			col = printf("%*s", indent, "");
		else
			col += printf(" ");
		col += printf("%.*s", (int)n, text);
		text += n;
		while (*text == ' ')
			text++;
	}
	putchar('\n');
}

/* ---- check ------------------------------------------------------------------- */

static void check_help(void)
{
	printf("Usage: %s check [--strict] [--json] POLICY...\n"
	       "Parse and validate each policy (a name or a file). Diagnostics go to standard\n"
	       "output as FILE:LINE:COL: error|warning: MESSAGE [CODE]; warnings are the lint\n"
	       "findings no waiver covers (see '%s lint').\n\n"
	       "      --strict  exit 1 when there are warnings\n"
	       "      --json    print one JSON object (docs/check.schema.json)\n"
	       "      --codes   list the diagnostic codes and exit\n"
	       "  -h, --help    display this help and exit\n\n"
	       "Exit status: 0 no errors (and, with --strict, no warnings); 1 warnings with\n"
	       "--strict; 2 errors, or a usage error.\n", prog, prog);
}

/* One diagnostic, as text or into J. */
static int emit(check_json *j, const char *file, unsigned line, unsigned col, const char *sev,
                const char *code, const char *msg, const char *hint)
{
	if (j)
		return check_json_diag(j, file, line, col, sev, code, msg, hint);
	if (line)
		printf("%s:%u:%u: %s: %s [%s]\n", file, line, col, sev, msg, code);
	else
		printf("%s: %s: %s [%s]\n", file, sev, msg, code);
	if (hint)
		printf("%s: hint: %s\n", file, hint);
	return 0;
}

static void print_codes(void)
{
	const char *codes[32], *names[32];
	size_t n = diag_codes(codes, names, 32), n_rules;
	const lint_rule *rules = lint_rules(&n_rules);

	/* Parse errors in code order (the table is in match order). */
	for (size_t done = 0; done < n; done++) {
		size_t min = 0;

		for (size_t i = 1; i < n; i++)
			if (!codes[min] || (codes[i] && strcmp(codes[i], codes[min]) < 0))
				min = i;
		printf("%s  error    %s\n", codes[min], names[min]);
		codes[min] = NULL;
	}
	for (size_t i = 0; i < n_rules; i++)
		printf("%s  %-7s  %s\n", rules[i].code, rules[i].sev == LINT_ERROR ? "error" : "warning",
		       rules[i].name);
}

/* The error of a policy that does not load; returns 2. */
static int check_load_error(const char *name, const osb_error *err, check_json *j)
{
	char hint[PATH_MAX + 96];
	diag d;
	int r;

	if (diag_from_error(err, name, &d) < 0)
		return load_error(err);
	/* A name without '/' is a shipped policy's, even when a file of that
	 * name lies here: say how to name the file. */
	snprintf(hint, sizeof(hint), "a name without '/' is a shipped policy; write ./%s for the file here",
	         name);
	r = emit(j, d.file, d.line, d.col, "error", d.code, d.text,
	         !strchr(name, '/') && access(name, F_OK) == 0 ? hint : NULL);
	diag_free(&d);
	return r < 0 ? nomem("check") : EXIT_TROUBLE;
}

/* Diagnose one policy; returns 0 clean, 1 warnings, 2 errors. */
static int check_one(const char *name, check_json *j)
{
	osb_error err = { 0 };
	osb_policy *p;
	loaded l = { 0 };
	lint_report r;
	int worst = 0;

	if (j && check_json_policy(j, name) < 0)
		return nomem("check");
	if (!(p = osb_policy_load(name, &err)))
		return check_load_error(name, &err, j);
	if ((worst = model_of(&l, p, "check")) != 0)
		return worst;
	if (lint_policy(&l.m, &r) < 0) {
		unload(&l);
		return nomem("check");
	}
	for (size_t i = 0; i < r.n && worst >= 0; i++) {
		const lint_finding *f = &r.v[i];
		bool error = f->rule->sev == LINT_ERROR;

		if (f->waiver)
			continue;
		if (emit(j, f->file, f->line, f->col, error ? "error" : "warning", f->rule->code, f->message,
		         NULL) < 0)
			worst = -1;
		else if (error)
			worst = EXIT_TROUBLE;
		else if (worst == 0)
			worst = EXIT_FOUND;
	}
	lint_report_free(&r);
	unload(&l);
	return worst < 0 ? nomem("check") : worst;
}

int cmd_check(int argc, char **argv)
{
	enum { OPT_STRICT = 256, OPT_CODES, OPT_JSON };
	static const struct option longopts[] = {
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "codes", no_argument, NULL, OPT_CODES },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool strict = false, json = false;
	check_json *j = NULL;
	char *out;
	int c, worst = 0;

	opts_reset();
	while ((c = next_opt(argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case OPT_STRICT: strict = true; break;
		case OPT_JSON: json = true; break;
		case OPT_CODES: print_codes(); return EXIT_SUCCESS;
		case 'h': check_help(); return EXIT_SUCCESS;
		default: return EXIT_TROUBLE;
		}
	}
	if (optind >= argc)
		return usage_error(argv[0], "no policy given");
	if (json && !(j = check_json_new()))
		return nomem("check");
	for (int i = optind; i < argc; i++) {
		int s = check_one(argv[i], j);

		if (j)
			check_json_status(j, s);
		if (s > worst)
			worst = s;
	}
	if (worst == EXIT_FOUND && !strict)
		worst = EXIT_SUCCESS;
	if (!j)
		return worst;
	if (!(out = check_json_finish(j, worst)))
		return nomem("check");
	puts(out);
	free(out);
	return worst;
}

/* ---- lint -------------------------------------------------------------------- */

static void lint_help(void)
{
	printf("Usage: %s lint [OPTION]... POLICY...\n"
	       "Report the risky grants of each policy, each with a code and an explanation.\n"
	       "A comment \"# osb-lint: waive CODE[,CODE...] -- REASON\" on the line before a\n"
	       "directive waives those findings of that directive (before the version line:\n"
	       "findings about defaults); waived findings are still listed.\n\n"
	       "      --json                 print one JSON object for every policy named\n"
	       "                             (docs/lint.schema.json)\n"
	       "      --no-waivers           honour no waiver: every finding counts\n"
	       "      --allow-waivers=CODES  honour waivers of these codes only (W107,W115)\n"
	       "      --rules                list every lint rule with its explanation and exit\n"
	       "  -h, --help                 display this help and exit\n\n"
	       "Exit status: 0 no finding without an honoured waiver; 1 findings; 2 a policy\n"
	       "that does not load, or a usage error.\n", prog);
}

/* Which waivers a team's gate honours: all (NULL), none (""), or the codes
 * of a comma-separated list. */
static bool waiver_honoured(const char *allowed, const char *code)
{
	size_t n = strlen(code);

	if (!allowed)
		return true;
	for (const char *c = allowed; *c; c += strcspn(c, ",") + (c[strcspn(c, ",")] == ',')) {
		if (strcspn(c, ",") == n && strncmp(c, code, n) == 0)
			return true;
	}
	return false;
}

/* Drop the waivers the gate does not honour: their findings count. */
static void refuse_waivers(lint_report *r, const char *allowed)
{
	for (size_t i = 0; i < r->n; i++) {
		lint_finding *f = &r->v[i];

		if (!f->waiver || waiver_honoured(allowed, f->rule->code))
			continue;
		free(f->waiver);
		f->waiver = NULL;
		r->n_waived--;
	}
}

static void print_rules(void)
{
	size_t n;
	const lint_rule *rules = lint_rules(&n);

	for (size_t i = 0; i < n; i++) {
		printf("%s %s (%s)\n", rules[i].code, rules[i].name,
		       rules[i].sev == LINT_ERROR ? "error" : "warning");
		print_wrapped(rules[i].why, 4);
	}
}

static void lint_print(const lint_report *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++) {
		const lint_finding *f = &r->v[i];

		printf("%s:%u:%u: %s: %s [%s %s]%s%s%s\n", f->file, f->line, f->col,
		       f->waiver ? "waived" : f->rule->sev == LINT_ERROR ? "error" : "warning",
		       f->message, f->rule->code, f->rule->name, f->pointer ? " (" : "",
		       f->pointer ? f->pointer : "", f->pointer ? ")" : "");
		if (f->waiver)
			printf("    waiver at line %u: %s\n", f->waiver_line, f->waiver);
		else
			print_wrapped(f->rule->why, 4);
	}
	printf("%s: %zu finding%s, %zu waived\n", name, r->n, r->n == 1 ? "" : "s", r->n_waived);
}

/* Findings about a request's rules point at the request: its file, the
 * line and column of the value that made the rule, its JSON pointer. */
static int point_at_request(lint_report *r, const char *path)
{
	_cleanup_free_ char *text = NULL;
	size_t len;
	reqpos rp;
	int e;

	if ((e = rv_read_file(path, RV_MAX_POLICY_BYTES, &text, &len)) < 0 ||
	    (e = reqpos_scan(text, &rp)) < 0)
		return e == -ENOMEM ? e : 0;   /* read by the library already: no positions */
	for (size_t i = 0; i < r->n && e == 0; i++) {
		lint_finding *f = &r->v[i];
		const reqpos_value *v = f->api ? reqpos_for_rule(&rp, f->about) : NULL;

		if (!v)
			continue;
		f->file = path;
		f->line = v->line;
		f->col = v->col;
		f->from_default = false;
		if (!(f->pointer = strdup(v->pointer)))
			e = -ENOMEM;
	}
	reqpos_free(&rp);
	return e;
}

/* Load NAME for lint; 0, or 2 with the reason in MSG (also said on
 * standard error). */
static int lint_load(const char *name, loaded *l, char *msg, size_t size)
{
	osb_error err = { 0 };
	osb_policy *p = osb_policy_load(name, &err);
	int r;

	snprintf(msg, size, "%s", err.message);
	if (!p)
		return load_error(&err);
	if (request_path && request_skip-- == 0 &&
	    (r = apply_request(p, request_path, msg, size)) != 0) {
		osb_policy_free(p);
		return r;
	}
	snprintf(msg, size, "the library reports a rule this osb-isolate does not know");
	return model_of(l, p, "lint");
}

/* Lint NAME: its report as text, or into J. Returns 0 no open finding, 1
 * findings, 2 a policy that does not load (or no memory). */
static int lint_one(const char *name, lint_json *j, const char *allowed)
{
	loaded l = { 0 };
	char msg[MSG_SIZE];
	int status = lint_load(name, &l, msg, sizeof(msg));
	lint_report r;

	if (status)
		return j && lint_json_add(j, name, NULL, msg, status) < 0 ? nomem("lint") : status;
	if (lint_policy(&l.m, &r) < 0 || (request_path && point_at_request(&r, request_path) < 0)) {
		lint_report_free(&r);
		unload(&l);
		return nomem("lint");
	}
	refuse_waivers(&r, allowed);
	status = r.n > r.n_waived ? EXIT_FOUND : 0;
	if (j && lint_json_add(j, name, &r, NULL, status) < 0)
		status = nomem("lint");
	else if (!j)
		lint_print(&r, name);
	lint_report_free(&r);
	unload(&l);
	return status;
}

int cmd_lint(int argc, char **argv)
{
	enum { OPT_RULES = 256, OPT_JSON, OPT_NO_WAIVERS, OPT_ALLOW_WAIVERS };
	static const struct option longopts[] = {
		{ "rules", no_argument, NULL, OPT_RULES },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "no-waivers", no_argument, NULL, OPT_NO_WAIVERS },
		{ "allow-waivers", required_argument, NULL, OPT_ALLOW_WAIVERS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *allowed = NULL;
	bool json = false;
	lint_json *j = NULL;
	char *out;
	int c, worst = 0;

	opts_reset();
	while ((c = next_opt(argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case OPT_RULES: print_rules(); return EXIT_SUCCESS;
		case OPT_JSON: json = true; break;
		case OPT_NO_WAIVERS: allowed = ""; break;
		case OPT_ALLOW_WAIVERS:
			allowed = optarg;
			for (const char *w = optarg; *w; w += strcspn(w, ",") + (w[strcspn(w, ",")] == ',')) {
				char code[8];
				const lint_rule *rule;

				snprintf(code, sizeof(code), "%.*s", (int)strcspn(w, ","), w);
				rule = strcspn(w, ",") < sizeof(code) ? lint_rule_find(code) : NULL;
				if (!rule || rule->sev != LINT_WARNING)
					return usage_error(argv[0], "--allow-waivers takes warning codes "
					                   "(W107,W115), not '%.*s'", (int)strcspn(w, ","), w);
			}
			break;
		case 'h': lint_help(); return EXIT_SUCCESS;
		default: return EXIT_TROUBLE;
		}
	}
	if (optind >= argc)
		return usage_error(argv[0], "no policy given");
	if (json && !(j = lint_json_new()))
		return nomem("lint");
	for (int i = optind; i < argc; i++) {
		int s = lint_one(argv[i], j, allowed);

		if (s > worst)
			worst = s;
	}
	if (!j)
		return worst;
	/* One document for every policy named, so that CI reads one. */
	if (!(out = lint_json_finish(j, worst)))
		return nomem("lint");
	puts(out);
	free(out);
	return worst;
}

/* ---- audit ------------------------------------------------------------------- */

static void audit_help(void)
{
	printf("Usage: %s audit [OPTION]... POLICY\n"
	       "Score the exposure of the effective policy: each check with its weight and the\n"
	       "points it scores, and the total out of 100 (higher is more exposed). Adding a\n"
	       "grant never lowers the score.\n\n"
	       "      --threshold N  exit 1 when the total is above N (0 to 100)\n"
	       "      --json         print one JSON object instead of the table\n"
	       "      --checks       list every check with its weight and exit (with --json:\n"
	       "                     one JSON array)\n"
	       "  -h, --help         display this help and exit\n\n"
	       "Exit status: 0 at or below the threshold (or none given); 1 above it; 2 a policy\n"
	       "that does not load, or a usage error.\n", prog);
}

static int parse_threshold(const char *s, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > AUDIT_MAX)
		return -1;
	*out = (int)v;
	return 0;
}

static int print_checks(bool json)
{
	char *out = json ? audit_checks_json() : audit_checks_text();

	if (!out)
		return nomem("audit");
	fputs(out, stdout);
	if (json)
		putchar('\n');
	free(out);
	return EXIT_SUCCESS;
}

int cmd_audit(int argc, char **argv)
{
	enum { OPT_THRESHOLD = 256, OPT_JSON, OPT_CHECKS };
	static const struct option longopts[] = {
		{ "threshold", required_argument, NULL, OPT_THRESHOLD },
		{ "checks", no_argument, NULL, OPT_CHECKS },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, threshold = -1, status = 0;
	bool json = false, checks = false;
	loaded l = { 0 };
	audit_report r;
	char hash[OSB_POLICY_HASH_LEN], *out;

	opts_reset();
	while ((c = next_opt(argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case OPT_THRESHOLD:
			if (parse_threshold(optarg, &threshold) < 0)
				return usage_error(argv[0], "--threshold needs a whole number from 0 to %d, not '%s'",
				                   AUDIT_MAX, optarg);
			break;
		case OPT_JSON: json = true; break;
		case OPT_CHECKS: checks = true; break;
		case 'h': audit_help(); return EXIT_SUCCESS;
		default: return EXIT_TROUBLE;
		}
	}
	if (checks)
		return print_checks(json);
	if (argc - optind != 1)
		return usage_error(argv[0], "takes exactly one policy (a name or a file)");
	if ((status = load(argv[optind], &l, "audit")) != 0)
		return status;
	if (osb_policy_hash(l.p, hash) < 0 || audit_policy(&l.m, &r) < 0) {
		unload(&l);
		return nomem("audit");
	}
	out = json ? audit_render_json(&r, argv[optind], hash, threshold)
	           : audit_render_text(&r, argv[optind]);
	if (out) {
		fputs(out, stdout);
		if (json)
			putchar('\n');
		else if (threshold >= 0)
			printf("Threshold: %d (%s)\n", threshold,
			       r.total > (unsigned)threshold ? "exceeded" : "met");
		free(out);
	}
	status = !out ? EXIT_TROUBLE : threshold >= 0 && r.total > (unsigned)threshold ? EXIT_FOUND : 0;
	audit_report_free(&r);
	unload(&l);
	return status;
}

/* ---- diff -------------------------------------------------------------------- */

static void diff_help(void)
{
	printf("Usage: %s diff [OPTION]... POLICY_A POLICY_B\n"
	       "Show the semantic difference between two effective policies: rules added (+),\n"
	       "removed (-) and changed (~), each marked wider, narrower or neutral and followed\n"
	       "by its origin; what they change of the effective view (host paths readable or\n"
	       "writable, network, secrets that pass, calls let through, limits, identity),\n"
	       "with the rule that decides it on each side; the overall verdict (equal,\n"
	       "neutral, narrower, wider or mixed), then the audit scores of both. Comments,\n"
	       "layout, the order of list directives and includes never show up.\n\n"
	       "      --json          print one JSON object (docs/diff.schema.json)\n"
	       "      --narrower-ok   exit 0 when POLICY_B is narrower than or equal to\n"
	       "                      POLICY_A (no change is wider), 1 otherwise\n"
	       "  -h, --help          display this help and exit\n\n"
	       "Exit status: 0 no semantic difference (with --narrower-ok: no wider change);\n"
	       "1 differences (with --narrower-ok: a wider change); 2 a policy that does not\n"
	       "load, or a usage error.\n", prog);
}

static void print_view(const view_deltas *v)
{
	if (v->n)
		printf("effective view:\n");
	for (size_t i = 0; i < v->n; i++) {
		const view_delta *e = &v->v[i];

		printf("  %s: %s  (%s)", e->aspect, e->change, diff_dir_name(e->dir));
		if (e->from_origin && e->to_origin)
			printf("  # %s => %s", e->from_origin, e->to_origin);
		putchar('\n');
	}
}

static void print_diff(const diff_report *d, const view_deltas *v)
{
	size_t wider = 0, narrower = 0;

	for (size_t i = 0; i < d->n; i++) {
		const diff_entry *e = &d->v[i];

		if (e->kind == DIFF_CHANGED)
			printf("~ %s => %s  (%s)  # %s => %s\n", e->from, e->to, diff_dir_name(e->dir),
			       e->from_origin, e->to_origin);
		else if (e->kind == DIFF_ADDED)
			printf("+ %s  (%s)  # %s\n", e->to, diff_dir_name(e->dir), e->to_origin);
		else
			printf("- %s  (%s)  # %s\n", e->from, diff_dir_name(e->dir), e->from_origin);
		wider += e->dir == DIFF_WIDER;
		narrower += e->dir == DIFF_NARROWER;
	}
	printf("%zu difference%s: %zu wider, %zu narrower, %zu neutral\n", d->n, d->n == 1 ? "" : "s",
	       wider, narrower, d->n - wider - narrower);
	print_view(v);
	printf("verdict: %s\n", diff_verdict(d, v));
}

/* Print the diff of the two loaded policies; returns the exit status. */
static int diff_print(const char *na, const char *nb, const loaded *a, const loaded *b, bool json,
                      bool narrower_ok)
{
	char ha[OSB_POLICY_HASH_LEN], hb[OSB_POLICY_HASH_LEN], *out = NULL;
	audit_report ra = { 0 }, rb = { 0 };
	diff_report d = { 0 };
	view_deltas vd = { 0 };
	audit_host h = { 0 };
	const char *v;
	int status = EXIT_TROUBLE;

	if (osb_policy_hash(a->p, ha) < 0 || osb_policy_hash(b->p, hb) < 0 ||
	    audit_host_scan(&h) < 0 || diff_policies(&a->m, &b->m, &d) < 0 ||
	    diff_view(&a->m, &b->m, &h, &vd) < 0 || audit_policy_on(&a->m, &h, &ra) < 0 ||
	    audit_policy_on(&b->m, &h, &rb) < 0 ||
	    (json && !(out = diff_render_json(&d, &vd, na, ha, ra.total, nb, hb, rb.total)))) {
		nomem("diff");
		goto out;
	}
	if (json) {
		puts(out);
	} else {
		printf("--- %s %s\n+++ %s %s\n", na, ha, nb, hb);
		print_diff(&d, &vd);
		printf("exposure: %u -> %u (%s%d)\n", ra.total, rb.total, rb.total >= ra.total ? "+" : "",
		       (int)rb.total - (int)ra.total);
	}
	v = diff_verdict(&d, &vd);
	if (narrower_ok)
		status = strcmp(v, "wider") == 0 || strcmp(v, "mixed") == 0 ? EXIT_FOUND : 0;
	else
		status = d.n || vd.n ? EXIT_FOUND : 0;
out:
	free(out);
	audit_host_free(&h);
	view_deltas_free(&vd);
	diff_report_free(&d);
	audit_report_free(&ra);
	audit_report_free(&rb);
	return status;
}

int cmd_diff(int argc, char **argv)
{
	enum { OPT_JSON = 256, OPT_NARROWER_OK };
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "narrower-ok", no_argument, NULL, OPT_NARROWER_OK },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	loaded a = { 0 }, b = { 0 };
	bool json = false, narrower_ok = false;
	int c, status;

	opts_reset();
	while ((c = next_opt(argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case OPT_JSON: json = true; break;
		case OPT_NARROWER_OK: narrower_ok = true; break;
		case 'h': diff_help(); return EXIT_SUCCESS;
		default: return EXIT_TROUBLE;
		}
	}
	if (argc - optind != 2)
		return usage_error(argv[0], "takes exactly two policies (names or files)");
	if ((status = load(argv[optind], &a, "diff")) == 0 &&
	    (status = load(argv[optind + 1], &b, "diff")) == 0)
		status = diff_print(argv[optind], argv[optind + 1], &a, &b, json, narrower_ok);
	unload(&a);
	unload(&b);
	return status;
}

/* ---- explain ----------------------------------------------------------------- */

static void explain_help(void)
{
	printf("Usage: %s explain [OPTION]... POLICY\n"
	       "Print the effective policy after includes and defaults, each rule with its\n"
	       "origin (FILE:LINE or default), and the hash.\n\n"
	       "      --json           print one JSON object\n"
	       "      --host           add the launch plan on this host: identity mode, the\n"
	       "                       workspace and every bind source, the environment names,\n"
	       "                       the seccomp rules per architecture, bwrap's exact argv\n"
	       "  -w, --workspace DIR  the workspace for --host (default: the current directory)\n"
	       "  -h, --help           display this help and exit\n\n"
	       "Exit status: 0 printed; 2 a policy that does not load, a plan this host cannot\n"
	       "build (with --host), or a usage error.\n", prog);
}

static int set_workspace(osb_policy *p, const char *dir, osb_error *err)
{
	/* Relative to where the user stands, by its words alone, as run does. */
	char *abs = cli_abs_path(dir);
	int r;

	if (!abs) {
		*err = (osb_error){ .code = OSB_E_USAGE, .sys_errno = errno, .stage = "workspace" };
		snprintf(err->message, sizeof(err->message),
		         "cannot resolve --workspace %s against the current directory", dir);
		return -OSB_E_USAGE;
	}
	r = osb_policy_set_workspace(p, abs, err);
	free(abs);
	return r;
}

static int explain_print(const loaded *l, const char *name, bool json, bool host)
{
	osb_error err = { 0 };
	char *out, *plan_text = NULL, *h = NULL, why[PATH_MAX * 2];

	if (host && !(h = osb_policy_host_plan(l->p, (const char *const *)environ, &err)))
		return load_error(&err);
	/* What the launch would refuse once the sandbox is being built, said
	 * now: the plan is not one this host can run. */
	if (host && launch_problem(&l->m, why, sizeof(why))) {
		osb_free(h);
		fprintf(stderr, "%s: explain: plan: %s\n", prog, why);
		return EXIT_TROUBLE;
	}
	out = json ? explain_render_json(&l->m, name, h) : explain_render_text(&l->m, name);
	if (out && json) {
		/* Paths are bytes; JSON is UTF-8 (invalid bytes become U+FFFD). */
		char *valid = utf8_valid_dup(out, strlen(out), NULL);

		free(out);
		out = valid;
	}
	if (host && !json)
		plan_text = host_plan_render_text(&l->m, h);
	if (out)
		fputs(out, stdout);
	if (out && json)
		putchar('\n');
	if (plan_text)
		fputs(plan_text, stdout);
	osb_free(h);
	free(plan_text);
	if (!out || (host && !json && !plan_text)) {
		free(out);
		fprintf(stderr, "%s: explain: out of memory\n", prog);
		return EXIT_TROUBLE;
	}
	free(out);
	return EXIT_SUCCESS;
}

int cmd_explain(int argc, char **argv)
{
	enum { OPT_JSON = 256, OPT_HOST };
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "host", no_argument, NULL, OPT_HOST },
		{ "workspace", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *workspace = NULL;
	bool json = false, host = false;
	loaded l = { 0 };
	osb_error err = { 0 };
	int c, status = 0;

	opts_reset();
	while ((c = next_opt(argc, argv, "hw:", longopts)) != -1) {
		switch (c) {
		case OPT_JSON: json = true; break;
		case OPT_HOST: host = true; break;
		case 'w': workspace = optarg; break;
		case 'h': explain_help(); return EXIT_SUCCESS;
		default: return EXIT_TROUBLE;
		}
	}
	if (argc - optind != 1)
		return usage_error(argv[0], "takes exactly one policy (a name or a file)");
	if (workspace && !host)
		return usage_error(argv[0], "--workspace only applies with --host");
	if ((status = load(argv[optind], &l, "explain")) != 0)
		return status;
	/* The plan of --host is the one run would build: with the host's
	 * configured workspace roots. */
	if ((host && cli_apply_config(l.p, &err) < 0) ||
	    (workspace && set_workspace(l.p, workspace, &err) < 0))
		status = load_error(&err);
	else
		status = explain_print(&l, argv[optind], json, host);
	unload(&l);
	return status;
}

/* ---- hash -------------------------------------------------------------------- */

int cmd_hash(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	osb_policy *p;
	char hash[OSB_POLICY_HASH_LEN];
	int c;

	opts_reset();
	while ((c = next_opt(argc, argv, "h", longopts)) != -1) {
		if (c == 'h') {
			printf("Usage: %s hash POLICY\n"
			       "Print sha256: and the hex SHA-256 of the canonical effective policy.\n"
			       "Comments, whitespace, the order of list directives and the include layout do\n"
			       "not change it; every semantic change does.\n\n"
			       "  -h, --help  display this help and exit\n\n"
			       "Exit status: 0 printed; 2 a policy that does not load, or a usage error.\n",
			       prog);
			return EXIT_SUCCESS;
		}
		return EXIT_TROUBLE;
	}
	if (argc - optind != 1)
		return usage_error(argv[0], "takes exactly one policy (a name or a file)");
	{
		osb_error err = { 0 };

		if (!(p = osb_policy_load(argv[optind], &err)))
			return load_error(&err);
	}
	if (osb_policy_hash(p, hash) < 0) {
		osb_policy_free(p);
		fprintf(stderr, "%s: hash: out of memory\n", prog);
		return EXIT_TROUBLE;
	}
	printf("%s\n", hash);
	osb_policy_free(p);
	return EXIT_SUCCESS;
}

/* ---- request ------------------------------------------------------------------ */

static void request_help(void)
{
	printf("Usage: %s request explain|lint|audit|diff [OPTION]... BASELINE REQUEST.json\n"
	       "Review what an execd request (the JSON object osb_policy_apply_json() takes;\n"
	       "see osb-isolate.policy(5), \"REQUESTS\") makes of the policy BASELINE: explain,\n"
	       "lint and audit the effective policy, or diff BASELINE against it. The options\n"
	       "are the command's own. A request the library would refuse is an error.\n\n"
	       "  -h, --help  display this help and exit\n\n"
	       "Exit status: the command's; 2 also for a request that cannot be read or is\n"
	       "refused.\n", prog);
}

int cmd_request(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} subs[] = { { "explain", cmd_explain }, { "lint", cmd_lint }, { "audit", cmd_audit },
	             { "diff", cmd_diff } };
	int r;

	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		request_help();
		return EXIT_SUCCESS;
	}
	for (size_t i = 0; argc >= 2 && i < sizeof(subs) / sizeof(subs[0]); i++) {
		if (strcmp(argv[1], subs[i].name) != 0)
			continue;
		if (argc < 4 || argv[argc - 1][0] == '-')
			return usage_error(argv[0], "%s needs a baseline policy and a request", argv[1]);
		request_path = argv[argc - 1];
		if (subs[i].fn == cmd_diff) {
			/* diff BASELINE BASELINE+REQUEST: the baseline twice, the
			 * request applied to the second. */
			argv[argc - 1] = argv[argc - 2];
			request_skip = 1;
			r = cmd_diff(argc - 1, argv + 1);
		} else {
			request_skip = 0;
			r = subs[i].fn(argc - 2, argv + 1);
		}
		request_path = NULL;
		return r;
	}
	return usage_error(argv[0], "takes explain, lint, audit or diff, then a baseline policy and a "
	                   "request");
}

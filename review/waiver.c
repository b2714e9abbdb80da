/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* waiver.c — where lint findings point, and the waiver comments that
 * silence them ("# osb-lint: waive CODE[,CODE...] -- REASON" before the
 * directive they cover).
 *
 * The policy's files are read again, only to place findings at their
 * directive's column and to find the waiver comments; a file that cannot be
 * read again has no waivers. A waiver that covers no finding, or one that
 * is malformed, is a finding itself (W191, W190).
 */
#include "waiver.h"
#include "common.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#define WAIVER_MAX_CODES 8

/* ---- positions and waivers ----------------------------------------------------------- */

typedef struct source {
	const char *file;         /* entry of the policy's file table */
	char *text;               /* NULL when it cannot be read again */
	size_t len;
	size_t *starts;           /* offset of each line: line N starts at starts[N - 1] */
	unsigned n_lines;
	unsigned version_line;
} source;

typedef struct waiver {
	const source *src;
	unsigned line, col, target;
	char codes[WAIVER_MAX_CODES][8];
	bool used[WAIVER_MAX_CODES];
	size_t n_codes;
	char *reason;
} waiver;

/* Line LINE (1-based) of S, or NULL: in constant time, since findings and
 * waivers ask for lines of files of up to 1 MiB. */
static const char *line_at(const source *s, unsigned line, size_t *len)
{
	const char *c, *end, *nl;

	if (!s->text || line == 0 || line > s->n_lines)
		return NULL;
	c = s->text + s->starts[line - 1];
	end = s->text + s->len;
	nl = memchr(c, '\n', (size_t)(end - c));
	*len = (size_t)((nl ? nl : end) - c);
	return c;
}

/* Where each line of S starts. */
static int source_index(source *s)
{
	size_t n = 1, k = 0;

	for (size_t i = 0; i < s->len; i++)
		n += s->text[i] == '\n';
	if (n > UINT_MAX)
		return -EFBIG;
	if (!(s->starts = calloc(n, sizeof(*s->starts))))
		return -ENOMEM;
	s->starts[k++] = 0;
	for (size_t i = 0; i < s->len && k < n; i++)
		if (s->text[i] == '\n')
			s->starts[k++] = i + 1;
	s->n_lines = (unsigned)n;
	return 0;
}

/* Column of the first non-blank character of LINE (1 if unknown). */
static unsigned first_col(const source *s, unsigned line)
{
	size_t len = 0, i = 0;
	const char *l = line_at(s, line, &len);

	if (!l)
		return 1;
	while (i < len && (l[i] == ' ' || l[i] == '\t'))
		i++;
	return i < len ? (unsigned)i + 1 : 1;
}

/* Is LINE neither blank nor a comment? */
static bool is_directive(const char *l, size_t len)
{
	size_t i = 0;

	while (i < len && (l[i] == ' ' || l[i] == '\t'))
		i++;
	return i < len && l[i] != '#';
}

static void source_scan(source *s)
{
	size_t len;
	const char *l;

	for (unsigned line = 1; (l = line_at(s, line, &len)); line++)
		if (is_directive(l, len)) {
			s->version_line = line;
			return;
		}
}

static const source *source_of(const source *srcs, size_t n, const char *file)
{
	for (size_t i = 0; file && i < n; i++)
		if (srcs[i].file == file || strcmp(srcs[i].file, file) == 0)
			return &srcs[i];
	return NULL;
}

static bool waiver_code_ok(const char *code)
{
	const lint_rule *rule = lint_rule_find(code);

	return rule && rule->sev == LINT_WARNING && strcmp(code, "W190") != 0 &&
	       strcmp(code, "W191") != 0;
}

/* Skip blanks, then WORD if it is next; false when it is not. */
static bool take_word(const char **c, const char *end, const char *word)
{
	size_t n = strlen(word);

	while (*c < end && (**c == ' ' || **c == '\t'))
		(*c)++;
	if ((size_t)(end - *c) < n || memcmp(*c, word, n) != 0)
		return false;
	*c += n;
	return true;
}

/* Parse "osb-lint: waive CODE[,CODE...] -- REASON" after the '#'. Returns
 * 0 (W filled), 1 (not a waiver comment) or an error text in *WHY. */
static int waiver_parse(const char *c, const char *end, waiver *w, const char **why)
{
	const char *dash;

	if (!take_word(&c, end, "osb-lint:"))
		return 1;
	if (!take_word(&c, end, "waive") || c == end || (*c != ' ' && *c != '\t')) {
		*why = "expected \"waive\" after \"osb-lint:\"";
		return -1;
	}
	dash = memmem(c, (size_t)(end - c), "--", 2);
	if (!dash) {
		*why = "missing \"-- REASON\"";
		return -1;
	}
	while (c < dash) {
		const char *s;
		size_t n;

		while (c < dash && (*c == ' ' || *c == '\t' || *c == ','))
			c++;
		for (s = c; c < dash && *c != ' ' && *c != '\t' && *c != ','; c++)
			;
		n = (size_t)(c - s);
		if (n == 0)
			break;
		if (n >= sizeof(w->codes[0]) || w->n_codes == WAIVER_MAX_CODES) {
			*why = "too many or too long codes";
			return -1;
		}
		memcpy(w->codes[w->n_codes], s, n);
		w->codes[w->n_codes][n] = '\0';
		if (!waiver_code_ok(w->codes[w->n_codes])) {
			*why = "unknown code, or one that cannot be waived";
			return -1;
		}
		w->n_codes++;
	}
	if (w->n_codes == 0) {
		*why = "no code to waive";
		return -1;
	}
	for (c = dash + 2; c < end && (*c == ' ' || *c == '\t'); c++)
		;
	while (end > c && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (c == end) {
		*why = "the reason after \"--\" is empty";
		return -1;
	}
	w->reason = strndup(c, (size_t)(end - c));
	return w->reason ? 0 : -ENOMEM;
}

/* Waiver comments of S; malformed ones become W190 findings. Each waiver
 * covers the next directive: the waivers still waiting for one get it when
 * it comes, so the file is read once. */
static int waivers_collect(const source *s, waiver **ws, size_t *n, size_t *cap, lint_report *r)
{
	size_t len, waiting = *n;
	const char *l;

	for (unsigned line = 1; (l = line_at(s, line, &len)); line++) {
		const char *hash = l, *why = NULL;
		waiver w = { .src = s, .line = line };
		rv_origin o = { s->file, line, 0, NULL };
		int e;

		if (is_directive(l, len)) {
			for (; waiting < *n; waiting++)
				(*ws)[waiting].target = line;
			continue;
		}
		while (hash < l + len && (*hash == ' ' || *hash == '\t'))
			hash++;
		if (hash == l + len)
			continue;
		w.col = (unsigned)(hash - l) + 1;
		e = waiver_parse(hash + 1, l + len, &w, &why);
		if (e == 1)
			continue;
		if (e == -ENOMEM)
			return e;
		if (e < 0) {
			if (lint_add_finding(r, "W190", &o, "malformed waiver: %s", why) < 0)
				return -ENOMEM;
			r->v[r->n - 1].col = w.col;
			continue;
		}
		if (!(*ws = rv_grow(*ws, cap, *n, sizeof(**ws)))) {
			free(w.reason);
			return -ENOMEM;
		}
		(*ws)[(*n)++] = w;
	}
	return 0;
}

/* Waivers in order of (file, target line, line): those of one directive
 * side by side, in the order they are written. */
static int waiver_cmp(const void *a, const void *b)
{
	const waiver *x = *(const waiver *const *)a, *y = *(const waiver *const *)b;
	int c = strcmp(x->src->file, y->src->file);

	if (c != 0)
		return c;
	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* The first of the sorted waivers BY that cover FILE:LINE, or N. */
static size_t waivers_first(waiver *const *by, size_t n, const char *file, unsigned line)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(by[mid]->src->file, file);

		if (c < 0 || (c == 0 && by[mid]->target < line))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Does waiver W waive finding F? Marks the code used and F waived. */
static bool waiver_take(waiver *w, lint_finding *f, lint_report *r)
{
	for (size_t k = 0; k < w->n_codes; k++)
		if (strcmp(w->codes[k], f->rule->code) == 0) {
			w->used[k] = true;
			f->waiver = strdup(w->reason);
			f->waiver_line = w->line;
			r->n_waived += f->waiver != NULL;
			return true;
		}
	return false;
}

/* Each warning finding against the waivers of its line, found by binary
 * search: a policy can have tens of thousands of both. */
static int waivers_apply(waiver *ws, size_t n_ws, lint_report *r, size_t n_findings)
{
	waiver **by = calloc(n_ws + 1, sizeof(*by));

	if (!by)
		return -ENOMEM;
	for (size_t j = 0; j < n_ws; j++)
		by[j] = &ws[j];
	qsort(by, n_ws, sizeof(*by), waiver_cmp);
	for (size_t i = 0; i < n_findings; i++) {
		lint_finding *f = &r->v[i];

		if (f->rule->sev != LINT_WARNING || !f->file)
			continue;
		for (size_t j = waivers_first(by, n_ws, f->file, f->line);
		     j < n_ws && !f->waiver && by[j]->target == f->line &&
		     strcmp(by[j]->src->file, f->file) == 0; j++)
			if (waiver_take(by[j], f, r))
				break;
	}
	free(by);
	return 0;
}

static int waivers_unused(const waiver *ws, size_t n_ws, lint_report *r)
{
	for (size_t j = 0; j < n_ws; j++)
		for (size_t k = 0; k < ws[j].n_codes; k++) {
			rv_origin o = { ws[j].src->file, ws[j].line, 0, NULL };

			if (ws[j].used[k])
				continue;
			if (lint_add_finding(r, "W191", &o, "waiver of %s matches no finding on line %u",
			                ws[j].codes[k], ws[j].target) < 0)
				return -ENOMEM;
			r->v[r->n - 1].col = ws[j].col;
		}
	return 0;
}

/* Give every finding its file:line:col; default rules point at the top
 * file's version line, which stands for the policy as a whole. */
static void place_findings(const review_policy *p, const source *srcs, size_t n, lint_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		lint_finding *f = &r->v[i];
		const source *s;

		if (f->from_default) {
			f->file = p->files[0];
			f->line = n > 0 && srcs[0].version_line ? srcs[0].version_line : 1;
		}
		s = source_of(srcs, n, f->file);
		if (f->col == 0)
			f->col = s ? first_col(s, f->line) : 1;
	}
}

int lint_waivers(const review_policy *p, lint_report *r)
{
	source *srcs = calloc(p->n_files + 1, sizeof(*srcs));
	waiver *ws = NULL;
	size_t n_ws = 0, cap_ws = 0, n_findings = r->n;
	int e = 0;

	if (!srcs)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_files; i++) {
		srcs[i].file = p->files[i];
		if (rv_read_file(p->files[i], RV_MAX_POLICY_BYTES, &srcs[i].text, &srcs[i].len) < 0)
			srcs[i].text = NULL;
		if (srcs[i].text && e == 0)
			e = source_index(&srcs[i]);
		if (e == 0)
			source_scan(&srcs[i]);
	}
	if (e == 0)
		place_findings(p, srcs, p->n_files, r);
	for (size_t i = 0; i < p->n_files && e == 0; i++)
		e = waivers_collect(&srcs[i], &ws, &n_ws, &cap_ws, r);
	if (e == 0)
		e = waivers_apply(ws, n_ws, r, n_findings);
	if (e == 0)
		e = waivers_unused(ws, n_ws, r);
	if (e == 0)
		place_findings(p, srcs, p->n_files, r);
	for (size_t i = 0; i < n_ws; i++)
		free(ws[i].reason);
	free(ws);
	for (size_t i = 0; i < p->n_files; i++) {
		free(srcs[i].text);
		free(srcs[i].starts);
	}
	free(srcs);
	return e;
}


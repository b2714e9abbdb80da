/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* diag.c — a parse error as a diagnostic (diag.h): the library's message
 * "FILE:LINE:COL: text" split into its position and text, and a stable code
 * for the class of mistake. Where the position says what was wrong (a word
 * of a "seccomp" line: a system call name or an errno), the code is that
 * kind's; otherwise it is matched from the parser's own words.
 */
#include "diag.h"
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* ---- check: diagnostics from parse errors ------------------------------------- */

typedef struct diag_class {
	const char *code;
	const char *name;
	const char *const pats[12];
} diag_class;

/* Matched in this order against the parser's message: the first class with
 * a matching phrase wins, so the specific phrases come first. */
static const diag_class diag_table[] = {
	{ "E001", "text", { "NUL byte", "carriage return", "control character", "invalid UTF-8",
	                    "byte order mark", "invisible or bidirectional", "line longer than" } },
	{ "E012", "file", { "cannot read policy", "not a regular file", "larger than 1 MiB" } },
	{ "E002", "version", { "version line", "policy version", "duplicate \"osb-policy\"" } },
	{ "E011", "syscall", { "unknown syscall", "syscall name" } },
	{ "E010", "include", { "cannot include", "include cycle", "include nested", "include takes",
	                       "invalid include name" } },
	{ "E003", "unknown-directive", { "unknown directive" } },
	{ "E005", "unknown-argument", { "unknown argument" } },
	{ "E004", "arguments", { "missing argument", "unexpected argument" } },
	{ "E008", "duplicate", { "duplicate" } },
	{ "E009", "conflict", { "conflicts with" } },
	{ "E006", "path", { "path must", "glob characters" } },
	{ "E007", "value", { "invalid", "unit", "out of range", "negative", "greater than zero",
	                     "whole seconds", "expected NAME=VALUE", "environment variable name", "too small",
	                     "\"best-effort\" is only for" } },
	{ "E099", "policy", { NULL } },
};

const char *diag_code_of(const char *text)
{
	for (size_t i = 0; i + 1 < ARRAY_SIZE(diag_table); i++)
		for (size_t j = 0; diag_table[i].pats[j]; j++)
			if (strstr(text, diag_table[i].pats[j]))
				return diag_table[i].code;
	return "E099";
}

size_t diag_codes(const char **codes, const char **names, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(diag_table) && n < max; i++, n++) {
		codes[n] = diag_table[i].code;
		names[n] = diag_table[i].name;
	}
	return n;
}

/* Line LINE of FILE into BUF (without its newline); false if unreadable. */
static bool read_line(const char *file, unsigned line, char *buf, size_t size)
{
	FILE *f = fopen(file, "re");
	bool found = false;

	if (!f)
		return false;
	for (unsigned n = 1; fgets(buf, (int)size, f); n++) {
		if (n == line) {
			buf[strcspn(buf, "\n")] = '\0';
			found = true;
			break;
		}
		while (!strchr(buf, '\n') && fgets(buf, (int)size, f))
			;   /* the rest of a long line */
	}
	fclose(f);
	return found;
}

/* The code of the word at column COL of a "seccomp" line (its arguments are
 * system call names and "errno=E"), or NULL when the line is another
 * directive's or the column is not on an argument. */
static const char *code_by_position(const char *file, unsigned line, unsigned col)
{
	char buf[4096];
	const char *w, *at;
	size_t n;

	if (!line || !col || !read_line(file, line, buf, sizeof(buf)) || col > strlen(buf))
		return NULL;
	w = buf + strspn(buf, " \t");
	n = strcspn(w, " \t");
	if (n != strlen("seccomp") || strncmp(w, "seccomp", n) != 0)
		return NULL;
	at = buf + col - 1;
	if (at < w + n || *at == ' ' || *at == '\t')
		return NULL;
	while (at > buf && at[-1] != ' ' && at[-1] != '\t')
		at--;   /* the start of the word the column falls in */
	if (strncmp(at, "errno=", strlen("errno=")) == 0)
		return "E007";
	if (strncmp(at, "allow", 5) == 0 || strncmp(at, "deny", 4) == 0 || strncmp(at, "none", 4) == 0 ||
	    at == w + n + strspn(w + n, " \t"))
		return NULL;   /* the mode word: the text decides */
	return "E011";
}

/* Parse an unsigned decimal at *S; advance past it. */
static bool take_number(const char **s, unsigned *out)
{
	unsigned long v = 0;
	const char *c = *s;

	if (*c < '0' || *c > '9')
		return false;
	for (; *c >= '0' && *c <= '9'; c++) {
		v = v * 10 + (unsigned long)(*c - '0');
		if (v > UINT_MAX)
			return false;
	}
	*out = (unsigned)v;
	*s = c;
	return true;
}

int diag_from_error(const osb_error *err, const char *fallback_file, diag *out)
{
	const char *m = err->message;

	memset(out, 0, sizeof(*out));
	/* The first ":LINE:COL: " is the position; the file name before it may
	 * itself contain colons, the numbers cannot be confused with it. */
	for (const char *c = strchr(m, ':'); c; c = strchr(c + 1, ':')) {
		const char *s = c + 1;
		unsigned line, col;

		if (!take_number(&s, &line) || *s != ':')
			continue;
		s++;
		if (!take_number(&s, &col) || s[0] != ':' || s[1] != ' ')
			continue;
		out->file = strndup(m, (size_t)(c - m));
		out->text = strdup(s + 2);
		out->line = line;
		out->col = col;
		goto done;
	}
	if (fallback_file && strncmp(m, fallback_file, strlen(fallback_file)) == 0 &&
	    strncmp(m + strlen(fallback_file), ": ", 2) == 0)
		m += strlen(fallback_file) + 2;
	out->file = strdup(fallback_file ? fallback_file : "<policy>");
	out->text = strdup(m);
done:
	if (!out->file || !out->text) {
		diag_free(out);
		return -ENOMEM;
	}
	/* A class the words name (a duplicate, a conflict...) stands; what they
	 * leave unclassified is the kind of the word at the position. */
	out->code = diag_code_of(out->text);
	if (strcmp(out->code, "E099") == 0) {
		const char *k = code_by_position(out->file, out->line, out->col);

		if (k)
			out->code = k;
	}
	return 0;
}

void diag_free(diag *d)
{
	free(d->file);
	free(d->text);
	memset(d, 0, sizeof(*d));
}


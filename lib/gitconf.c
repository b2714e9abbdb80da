/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* gitconf.c — git's configuration file syntax (gitconf.h).
 *
 * A single pass over the bytes with one cursor; every branch either
 * consumes at least one byte or ends the parse, so it terminates on any
 * input, and the value buffer never holds more than the input's length.
 * What git accepts and this does not (a case it does not know) is a
 * refusal, never a skipped line: the caller fails closed.
 */
#include "gitconf.h"

#include <ctype.h>

typedef struct cursor {
	const char *p, *end;
	unsigned line;
	const char *file;
	osb_error *err;
} cursor;

static int peek(const cursor *c)
{
	return c->p < c->end ? (unsigned char)*c->p : -1;
}

static int next(cursor *c)
{
	int ch = peek(c);

	if (ch >= 0) {
		c->p++;
		if (ch == '\n')
			c->line++;
	}
	return ch;
}

static int bad(cursor *c, const char *what)
{
	return osb_err_set(c->err, OSB_E_POLICY, EINVAL, "paths",
	                   "%s:%u: %s (git's configuration syntax, git-config(1) "
	                   "\"CONFIGURATION FILE\"); correct the file, or run without a "
	                   "writable workspace", c->file, c->line, what);
}

/* git's isspace() (its own ctype, not the C library's): a form feed or a
 * vertical tab is not a blank, so it stays in a value (".husky\f" names a
 * directory of its own) and is refused where git refuses it. */
static bool is_blank(int ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r';
}

static void skip_blanks(cursor *c)
{
	while (is_blank(peek(c)))
		next(c);
}

static void skip_to_eol(cursor *c)
{
	while (peek(c) >= 0 && peek(c) != '\n')
		next(c);
}

/* "[name]", "[name \"sub\"]" or "[name.sub]"; the '[' is consumed. */
static int parse_header(cursor *c, char *sec, size_t secsz, char *sub, size_t subsz, bool *has_sub)
{
	size_t n = 0, m = 0;
	int ch;

	*has_sub = false;
	while ((ch = peek(c)) >= 0 && (isalnum(ch) || ch == '-' || ch == '.')) {
		if (n + 1 >= secsz)
			return bad(c, "section name too long");
		sec[n++] = (char)tolower(ch);
		next(c);
	}
	sec[n] = '\0';
	if (n == 0)
		return bad(c, "empty or invalid section name");
	if (ch == ']') {
		char *dot = strchr(sec, '.');

		next(c);
		if (dot) {   /* the old form: the subsection is lowercased; as
		              * git, either part may be empty ("[core.]" names
		              * no section core's keys are looked up in) */
			*dot = '\0';
			snprintf(sub, subsz, "%s", dot + 1);
			*has_sub = true;
		}
		return 0;
	}
	if (!is_blank(ch))
		return bad(c, "invalid character in a section name");
	if (strchr(sec, '.'))
		return bad(c, "a section name with a dot cannot have a quoted subsection");
	skip_blanks(c);
	if (peek(c) != '"')
		return bad(c, "a subsection must be quoted");
	next(c);
	for (;;) {
		ch = peek(c);
		if (ch < 0 || ch == '\n')
			return bad(c, "unterminated subsection");
		next(c);
		if (ch == '"')
			break;
		if (ch == '\\') {
			ch = peek(c);
			if (ch < 0 || ch == '\n')
				return bad(c, "unterminated subsection");
			next(c);
		}
		if (ch == '\0')
			return bad(c, "NUL byte");
		if (m + 1 >= subsz)
			return bad(c, "subsection too long");
		sub[m++] = (char)ch;
	}
	sub[m] = '\0';
	*has_sub = true;
	if (peek(c) != ']')
		return bad(c, "expected ']' after the subsection");
	next(c);
	return 0;
}

/* The value after '=' up to the end of its (possibly continued) line,
 * into VAL (room for the rest of the input), as git's parse_value reads
 * it: unquoted blanks become one space each, dropped at the start and the
 * end, written out before the next character (a quote or a backslash
 * included); a backslash at the end of the input ends the value. */
static int parse_value(cursor *c, char *val)
{
	size_t n = 0, space = 0;
	bool quoted = false;
	int ch;

	for (;;) {
		ch = peek(c);
		if (ch < 0 || ch == '\n') {
			if (quoted)
				return bad(c, "unterminated quote in a value");
			break;
		}
		next(c);
		if (ch == '\0')
			return bad(c, "NUL byte");
		if (!quoted && is_blank(ch)) {
			if (n)
				space++;
			continue;
		}
		if (!quoted && (ch == ';' || ch == '#')) {
			skip_to_eol(c);
			break;
		}
		for (; space; space--)
			val[n++] = ' ';
		if (ch == '"') {
			quoted = !quoted;
			continue;
		}
		if (ch == '\\') {
			ch = next(c);
			switch (ch) {
			case -1:                 /* the end of the input: as a newline */
				if (quoted)
					return bad(c, "unterminated quote in a value");
				val[n] = '\0';
				return 0;
			case '\n': continue;     /* continuation: nothing added */
			case 'n': ch = '\n'; break;
			case 't': ch = '\t'; break;
			case 'b': ch = '\b'; break;
			case '\\': case '"': break;
			default: return bad(c, "invalid escape in a value");
			}
		}
		val[n++] = (char)ch;
	}
	val[n] = '\0';
	return 0;
}

int gitconf_parse(const char *buf, size_t len, const char *file, gitconf_fn fn, void *ctx,
                  osb_error *err)
{
	cursor c;
	char sec[256] = "", sub[1024] = "", key[256];
	_cleanup_free_ char *val = malloc(len + 1), *crlf = malloc(len + 1);
	bool has_sub = false;
	size_t n_crlf = 0;
	int r;

	if (!val || !crlf)
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "paths", "out of memory");
	/* As git reads it: "\r\n" is "\n" everywhere. */
	for (size_t i = 0; i < len; i++)
		if (!(buf[i] == '\r' && i + 1 < len && buf[i + 1] == '\n'))
			crlf[n_crlf++] = buf[i];
	c = (cursor){ crlf, crlf + n_crlf, 1, file, err };
	if (n_crlf >= 3 && memcmp(crlf, "\xef\xbb\xbf", 3) == 0)
		c.p += 3;
	for (;;) {
		int ch;
		size_t n = 0;
		unsigned line;

		skip_blanks(&c);
		ch = peek(&c);
		if (ch < 0)
			return 0;
		if (ch == '\n') {
			next(&c);
			continue;
		}
		if (ch == ';' || ch == '#') {
			skip_to_eol(&c);
			continue;
		}
		if (ch == '[') {
			next(&c);
			if ((r = parse_header(&c, sec, sizeof(sec), sub, sizeof(sub), &has_sub)) < 0)
				return r;
			continue;   /* a key may follow on the same line */
		}
		if (!isalpha(ch))
			return ch == '\0' ? bad(&c, "NUL byte") : bad(&c, "expected a section, a key or a comment");
		line = c.line;
		while ((ch = peek(&c)) >= 0 && (isalnum(ch) || ch == '-')) {
			if (n + 1 >= sizeof(key))
				return bad(&c, "key name too long");
			key[n++] = (char)tolower(ch);
			next(&c);
		}
		key[n] = '\0';
		while (peek(&c) == ' ' || peek(&c) == '\t')   /* as git's get_value */
			next(&c);
		ch = peek(&c);
		if (ch < 0 || ch == '\n') {   /* as git: no comment after a bare key */
			r = fn(ctx, sec, has_sub ? sub : NULL, key, NULL, line);
		} else if (ch == '=') {
			next(&c);
			skip_blanks(&c);
			if ((r = parse_value(&c, val)) < 0)
				return r;
			r = fn(ctx, sec, has_sub ? sub : NULL, key, val, line);
		} else {
			return bad(&c, "invalid character in a key name (expected '=')");
		}
		if (r < 0)
			return r;
	}
}

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* jsonscan.c — a second look at a request json-c accepted (jsonscan.h).
 *
 * A repeated key is a request that says two things: reading the last one,
 * as json-c does, takes one of them silently. A lone surrogate escape
 * (\ud800) is no character at all. Both are refused. The text is known to be
 * valid JSON, so the scan only follows strings and containers: the keys of
 * each object are collected and sorted when it closes; keys written with
 * escapes are compared by what they decode to.
 */
#include "jsonscan.h"
#include "util.h"

#include <json-c/json.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct jkey {
	const char *s;   /* the key's bytes (decoded when it had escapes) */
	size_t len, at;
	char *own;       /* the decoded copy, if any */
} jkey;

typedef struct scan {
	const char *t;
	size_t len, i;
	jkey *keys;
	size_t n_keys, cap_keys;
	size_t *open;    /* per open container: its first key, or SIZE_MAX (array) */
	size_t n_open, cap_open;
} scan;

static int hex4(const char *s, unsigned *cp)
{
	*cp = 0;
	for (int k = 0; k < 4; k++) {
		char c = s[k];
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') :
		             c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) :
		             c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16;

		if (d == 16)
			return -1;
		*cp = *cp * 16 + d;
	}
	return 0;
}

/* Past the string whose quote is at S->i; *ESC: it had an escape. */
static enum jscan skip_string(scan *s, bool *esc, size_t *at)
{
	unsigned cp, lo;

	*esc = false;
	for (s->i++; s->i < s->len && s->t[s->i] != '"'; s->i++) {
		if (s->t[s->i] != '\\')
			continue;
		*esc = true;
		if (s->i + 1 < s->len && s->t[s->i + 1] == 'u' && s->i + 6 <= s->len &&
		    hex4(s->t + s->i + 2, &cp) == 0 && cp >= 0xd800 && cp <= 0xdfff) {
			if (cp <= 0xdbff && s->i + 12 <= s->len && s->t[s->i + 6] == '\\' &&
			    s->t[s->i + 7] == 'u' && hex4(s->t + s->i + 8, &lo) == 0 &&
			    lo >= 0xdc00 && lo <= 0xdfff) {
				s->i += 11;
				continue;
			}
			*at = s->i;
			return JSCAN_SURROGATE;
		}
		s->i++;   /* the escaped character */
	}
	return JSCAN_OK;
}

static int key_cmp(const void *a, const void *b)
{
	const jkey *x = a, *y = b;
	int c;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	c = memcmp(x->s, y->s, x->len);
	if (c)
		return c;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* Record the key whose quotes are at START and S->i. */
static enum jscan add_key(scan *s, size_t start, bool esc)
{
	jkey *k;

	if (s->n_keys == s->cap_keys) {
		size_t cap = s->cap_keys ? s->cap_keys * 2 : 64;
		jkey *nk = realloc(s->keys, cap * sizeof(*nk));

		if (!nk)
			return JSCAN_NOMEM;
		s->keys = nk;
		s->cap_keys = cap;
	}
	k = &s->keys[s->n_keys];
	*k = (jkey){ s->t + start + 1, s->i - start - 1, start, NULL };
	if (esc) {
		/* json-c decodes it exactly as it decoded the request. */
		json_tokener *tok = json_tokener_new();
		json_object *o = tok ? json_tokener_parse_ex(tok, s->t + start,
		                                             (int)(s->i - start + 1)) : NULL;
		size_t n = o ? (size_t)json_object_get_string_len(o) : 0;

		if (tok)
			json_tokener_free(tok);
		if (!o || !(k->own = malloc(n + 1))) {
			json_object_put(o);
			return JSCAN_NOMEM;
		}
		memcpy(k->own, json_object_get_string(o), n);
		k->s = k->own;
		k->len = n;
		json_object_put(o);
	}
	s->n_keys++;
	return JSCAN_OK;
}

/* The object whose keys start at FIRST closes: any key twice? The first
 * repeat in the text is reported. */
static enum jscan close_object(scan *s, size_t first, size_t *at)
{
	size_t n = s->n_keys - first, best = SIZE_MAX;

	if (n > 1)
		qsort(s->keys + first, n, sizeof(*s->keys), key_cmp);
	for (size_t k = first + 1; k < s->n_keys; k++)
		if (key_cmp(&(jkey){ s->keys[k - 1].s, s->keys[k - 1].len, 0, NULL },
		            &(jkey){ s->keys[k].s, s->keys[k].len, 0, NULL }) == 0 &&
		    s->keys[k].at < best)
			best = s->keys[k].at;
	for (size_t k = first; k < s->n_keys; k++)
		free(s->keys[k].own);
	s->n_keys = first;
	if (best == SIZE_MAX)
		return JSCAN_OK;
	*at = best;
	return JSCAN_DUP_KEY;
}

static enum jscan push_open(scan *s, size_t v)
{
	if (s->n_open == s->cap_open) {
		size_t cap = s->cap_open ? s->cap_open * 2 : 16;
		size_t *no = realloc(s->open, cap * sizeof(*no));

		if (!no)
			return JSCAN_NOMEM;
		s->open = no;
		s->cap_open = cap;
	}
	s->open[s->n_open++] = v;
	return JSCAN_OK;
}

/* A string just ended at S->i: is it a key (a ':' follows)? */
static bool is_key(const scan *s)
{
	size_t j = s->i + 1;

	while (j < s->len && (s->t[j] == ' ' || s->t[j] == '\t' || s->t[j] == '\n' ||
	                      s->t[j] == '\r'))
		j++;
	return j < s->len && s->t[j] == ':';
}

static enum jscan scan_step(scan *s, size_t *at)
{
	char c = s->t[s->i];
	size_t start = s->i;
	enum jscan r = JSCAN_OK;
	bool esc;

	if (c == '{' || c == '[')
		return push_open(s, c == '{' ? s->n_keys : SIZE_MAX);
	if ((c == '}' || c == ']') && s->n_open > 0) {
		size_t first = s->open[--s->n_open];

		return first == SIZE_MAX ? JSCAN_OK : close_object(s, first, at);
	}
	if (c != '"')
		return JSCAN_OK;
	if ((r = skip_string(s, &esc, at)) != JSCAN_OK)
		return r;
	if (is_key(s) && s->n_open > 0 && s->open[s->n_open - 1] != SIZE_MAX)
		r = add_key(s, start, esc);
	return r;
}

enum jscan json_scan(const char *text, size_t len, size_t *at)
{
	scan s = { .t = text, .len = len };
	enum jscan r = JSCAN_OK;

	for (; r == JSCAN_OK && s.i < len; s.i++)
		r = scan_step(&s, at);
	for (size_t k = 0; k < s.n_keys; k++)
		free(s.keys[k].own);
	free(s.keys);
	free(s.open);
	return r;
}

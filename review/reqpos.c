/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* reqpos.c — positions of an execd request's values (reqpos.h).
 *
 * json-c reads the request for the library and keeps no positions, so this
 * walks the text once more: a small recursive reader of RFC 8259 JSON that
 * records each value's JSON pointer, line and column, and the decoded text
 * of strings (what a rule's path or name is compared with). The library has
 * already accepted the request, so nothing here judges it; text this does
 * not understand only loses the positions.
 */
#include "reqpos.h"
#include "common.h"

#include <errno.h>
#include <string.h>

#define MAX_DEPTH 64

typedef struct scan {
	const char *c;
	unsigned line, col;
	reqpos *out;
} scan;

static void adv(scan *s)
{
	if (*s->c == '\n') {
		s->line++;
		s->col = 1;
	} else {
		s->col++;
	}
	s->c++;
}

static void skip_ws(scan *s)
{
	while (*s->c == ' ' || *s->c == '\t' || *s->c == '\n' || *s->c == '\r')
		adv(s);
}

/* UTF-8 of the code point CP into OUT (4 bytes at most); its length. */
static size_t utf8_put(unsigned cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	out[0] = (char)(0xe0 | cp >> 12);
	out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[2] = (char)(0x80 | (cp & 0x3f));
	return 3;
}

static int hex4(const char *c, unsigned *cp)
{
	*cp = 0;
	for (int i = 0; i < 4; i++) {
		char h = c[i];

		if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F')))
			return -EINVAL;
		*cp = *cp * 16 + (unsigned)(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
	}
	return 0;
}

/* A string at S (its opening quote), decoded into *OUT (malloc'd). */
static int read_string(scan *s, char **out)
{
	size_t cap = strlen(s->c) + 1, n = 0;
	char *buf = malloc(cap);

	if (!buf)
		return -ENOMEM;
	adv(s);
	while (*s->c && *s->c != '"') {
		if (*s->c == '\\') {
			static const char esc[] = "\"\"\\\\//b\bf\fn\nr\rt\t";
			const char *e = s->c[1] ? strchr(esc, s->c[1]) : NULL;
			unsigned cp;

			if (s->c[1] == 'u' && hex4(s->c + 2, &cp) == 0) {
				n += utf8_put(cp, buf + n);
				for (int i = 0; i < 6; i++)
					adv(s);
				continue;
			}
			if (!e || (e - esc) % 2) {
				free(buf);
				return -EINVAL;
			}
			buf[n++] = e[1];
			adv(s);
			adv(s);
			continue;
		}
		buf[n++] = *s->c;
		adv(s);
	}
	if (*s->c != '"') {
		free(buf);
		return -EINVAL;
	}
	adv(s);
	buf[n] = '\0';
	*out = buf;
	return 0;
}

static int record(scan *s, const char *pointer, unsigned line, unsigned col, char *string)
{
	reqpos_value *v = rv_grow(s->out->v, &s->out->cap, s->out->n, sizeof(*v));

	if (!v) {
		free(string);
		return -ENOMEM;
	}
	s->out->v = v;
	v[s->out->n] = (reqpos_value){ strdup(pointer), string, line, col };
	return v[s->out->n++].pointer ? 0 : -ENOMEM;
}

/* POINTER/KEY, KEY escaped as RFC 6901 says ('~' as ~0, '/' as ~1). */
static char *child(const char *pointer, const char *key)
{
	size_t n = strlen(pointer), k = 0;
	char *out = malloc(n + 2 * strlen(key) + 2);

	if (!out)
		return NULL;
	memcpy(out, pointer, n);
	out[n + k++] = '/';
	for (const char *c = key; *c; c++) {
		if (*c == '~' || *c == '/') {
			out[n + k++] = '~';
			out[n + k++] = *c == '~' ? '0' : '1';
		} else {
			out[n + k++] = *c;
		}
	}
	out[n + k] = '\0';
	return out;
}

/* One open object or array: its pointer, its kind, the next index. */
typedef struct frame {
	char *pointer;
	bool object;
	size_t index;
} frame;

/* The value at S, recorded at POINTER; an object or array opens a frame
 * on STACK (its members are read by the caller's loop: no recursion, so
 * no depth limit but MAX_DEPTH's). */
static int read_one(scan *s, char *pointer, frame *stack, size_t *depth)
{
	unsigned line = s->line, col = s->col;
	char *str = NULL;
	int e;

	if (!*s->c)
		return -EINVAL;
	if (*s->c == '{' || *s->c == '[') {
		if (*depth == MAX_DEPTH || (e = record(s, pointer, line, col, NULL)) < 0)
			return *depth == MAX_DEPTH ? -EINVAL : e;
		stack[(*depth)++] = (frame){ pointer, *s->c == '{', 0 };
		adv(s);
		return 1;   /* POINTER now belongs to the frame */
	}
	if (*s->c == '"') {
		if ((e = read_string(s, &str)) < 0)
			return e;
		return record(s, pointer, line, col, str);
	}
	/* A number, true, false or null: up to the next delimiter. */
	while (*s->c && !strchr(",]} \t\r\n", *s->c))
		adv(s);
	return record(s, pointer, line, col, NULL);
}

/* The pointer of the next member of TOP (its key read for an object), or
 * NULL with *E set; *E 1 when TOP has ended (its closing bracket read). */
static char *next_member(scan *s, frame *top, bool first, int *e)
{
	char *key = NULL, *ptr;

	skip_ws(s);
	*e = 0;
	if (*s->c == (top->object ? '}' : ']')) {
		adv(s);
		*e = 1;
		return NULL;
	}
	if (!first && *s->c != ',') {
		*e = -EINVAL;
		return NULL;
	}
	if (!first)
		adv(s);
	skip_ws(s);
	if (top->object) {
		if (*s->c != '"' || (*e = read_string(s, &key)) < 0) {
			*e = *e < 0 ? *e : -EINVAL;
			return NULL;
		}
		skip_ws(s);
		if (*s->c != ':') {
			free(key);
			*e = -EINVAL;
			return NULL;
		}
		adv(s);
	} else if (!(key = rv_fmt("%zu", top->index))) {
		*e = -ENOMEM;
		return NULL;
	}
	top->index++;
	ptr = child(top->pointer, key);
	free(key);
	*e = ptr ? 0 : -ENOMEM;
	return ptr;
}

static int read_document(scan *s)
{
	frame stack[MAX_DEPTH];
	size_t depth = 0;
	char *ptr = strdup("");
	int e = ptr ? 0 : -ENOMEM;
	bool first = false;

	while (e >= 0) {
		if (ptr) {
			skip_ws(s);
			e = read_one(s, ptr, stack, &depth);
			if (e != 1)
				free(ptr);
			first = e == 1;
			ptr = NULL;
			if (e < 0 || depth == 0)
				break;
		}
		ptr = next_member(s, &stack[depth - 1], first, &e);
		first = false;
		if (e == 1) {   /* the frame ended: back to its parent */
			free(stack[--depth].pointer);
			e = 0;
			if (depth == 0)
				break;
		}
	}
	while (depth > 0)
		free(stack[--depth].pointer);
	return e < 0 ? e : 0;
}

int reqpos_scan(const char *text, reqpos *out)
{
	scan s = { text, 1, 1, out };
	int e;

	memset(out, 0, sizeof(*out));
	e = read_document(&s);
	if (e < 0)
		reqpos_free(out);
	return e;
}

void reqpos_free(reqpos *rp)
{
	for (size_t i = 0; i < rp->n; i++) {
		free(rp->v[i].pointer);
		free(rp->v[i].string);
	}
	free(rp->v);
	memset(rp, 0, sizeof(*rp));
}

/* The value at POINTER. */
static const reqpos_value *at(const reqpos *rp, const char *pointer)
{
	for (size_t i = 0; i < rp->n; i++)
		if (strcmp(rp->v[i].pointer, pointer) == 0)
			return &rp->v[i];
	return NULL;
}

/* The first string beneath PREFIX that is WANT. */
static const reqpos_value *element(const reqpos *rp, const char *prefix, const char *want)
{
	for (size_t i = 0; i < rp->n; i++) {
		const reqpos_value *v = &rp->v[i];

		if (strncmp(v->pointer, prefix, strlen(prefix)) == 0 && v->string &&
		    strcmp(v->string, want) == 0)
			return v;
	}
	return NULL;
}

const reqpos_value *reqpos_for_rule(const reqpos *rp, const char *rule)
{
	static const struct {
		const char *directive, *pointer, *list;
	} keys[] = {
		{ "write ", NULL, "/extra_writable/" }, { "ro-bind ", NULL, "/read_only/" },
		{ "env pass ", NULL, "/env/pass/" }, { "network ", "/network", NULL },
		{ "workspace ", "/workspace/mode", NULL }, { "workspace ", "/workspace/path", NULL },
		{ "env clear", "/env/mode", NULL }, { "env inherit", "/env/mode", NULL },
		{ "user ", "/uid", NULL }, { "user ", "/gid", NULL }, { "host-ids ", "/host_uid", NULL },
	};
	const reqpos_value *v = NULL;
	char ptr[128];

	if (!rp->n)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(keys) && !v && rule; i++) {
		size_t n = strlen(keys[i].directive);

		if (strncmp(rule, keys[i].directive, n) != 0)
			continue;
		v = keys[i].list ? element(rp, keys[i].list, rule + n) : at(rp, keys[i].pointer);
	}
	if (!v && rule && strncmp(rule, "env set ", 8) == 0) {
		snprintf(ptr, sizeof(ptr), "/env/set/%.*s", (int)strcspn(rule + 8, "="), rule + 8);
		v = at(rp, ptr);
	}
	if (!v && rule && strncmp(rule, "limit ", 6) == 0) {
		snprintf(ptr, sizeof(ptr), "/limits/%.*s", (int)strcspn(rule + 6, " "), rule + 6);
		v = at(rp, ptr);
	}
	return v ? v : &rp->v[0];
}

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* policy-parse.c — reading policy text, version 1 (osb-isolate.policy(5)).
 *
 * First stage of the pipeline: policy text becomes a struct osb_policy. The
 * grammar is deliberately strict (a version line first, one directive a line,
 * unknown words, duplicates, relative or unnormalized paths and invisible
 * characters are errors), because a rule that is silently skipped is a grant
 * or a restriction the reviewer did not see. Includes are bounded (depth,
 * cycles), every effective rule records the file:line it came from, and
 * anything left unset gets a safe default. This file reads files and lines
 * and decides which rule of a scalar wins; what each directive means is
 * policy-directives.c's. Nothing here looks at the host beyond reading
 * policy files.
 */
#include "policy-parse.h"
#include "policy-directives.h"
#include "filter.h"

#include <search.h>
#include <stdarg.h>
#include <sys/stat.h>

#define MAX_TOKENS (POLICY_MAX_LINE / 2 + 1)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- parser state -------------------------------------------------------- */

static int entry_cmp(const void *a, const void *b)
{
	const map_entry *x = a, *y = b;

	if (x->inst != y->inst)
		return x->inst < y->inst ? -1 : 1;
	return strcmp(x->key, y->key);
}

static void entry_free(void *e)
{
	free(((map_entry *)e)->key);
	free(e);
}

/* Find KEY, or add it with VAL (*ADDED tells which). NULL: out of memory. */
map_entry *map_add(void **root, unsigned inst, const char *key, size_t val, bool *added)
{
	map_entry probe = { .key = (char *)key, .inst = inst };
	void *hit = tfind(&probe, root, entry_cmp);
	map_entry *e;

	*added = false;
	if (hit)
		return *(map_entry **)hit;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->key = strdup(key);
	e->inst = inst;
	e->val = val;
	if (!e->key || !tsearch(e, root, entry_cmp)) {
		entry_free(e);
		return NULL;
	}
	*added = true;
	return e;
}

static void parser_free(parser *ps)
{
	void **maps[] = { &ps->seen_map, &ps->slot_map, &ps->path_map, &ps->pass_map, &ps->deny_map,
	                  &ps->root_map, &ps->inc_map, &ps->net_allow_map };

	for (size_t i = 0; i < ARRAY_SIZE(maps); i++)
		if (*maps[i])
			tdestroy(*maps[i], entry_free);
	for (size_t i = 0; i < ps->n_slots; i++) {
		free(ps->slots[i]->c_what);
		free(ps->slots[i]);
	}
	free(ps->slots);
	for (size_t i = 0; i < ps->n_incs; i++) {
		free(ps->incs[i]->text);
		free(ps->incs[i]);
	}
	free(ps->incs);
	free(ps->path_o);
	for (size_t i = 0; i < ps->n_path_o; i++)
		free(ps->path_kind[i]);
	free(ps->path_kind);
	free(ps->write_cols);
	free(ps->ro_cols);
	free(ps->sc_cols);
}

static int vperr_at(parser *ps, int sys_errno, const char *file, unsigned line, unsigned col,
                    const char *suffix, const char *fmt, va_list ap)
	__attribute__((format(printf, 7, 0)));
static int vperr_at(parser *ps, int sys_errno, const char *file, unsigned line, unsigned col,
                    const char *suffix, const char *fmt, va_list ap)
{
	char msg[sizeof(((osb_error *)0)->message)];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	return osb_err_set(ps->err, OSB_E_POLICY, sys_errno, "policy", "%s:%u:%u: %s%s",
	                   file, line, col, msg, suffix);
}

/* "; included from B:2, from A:3" for an error in F when F was reached
 * through includes (the stack holds each includer at its include line). */
static void include_chain(const parser *ps, const frame *f, char *buf, size_t size)
{
	size_t k = 0, used = 0;

	buf[0] = '\0';
	while (k < ps->n_stack && ps->stack[k] != f)
		k++;
	for (size_t i = k; i-- > 0 && k < ps->n_stack && used < size;) {
		int w = snprintf(buf + used, size - used, "%s %s:%u", i + 1 == k ? "; included from" : ", from",
		                 ps->stack[i]->file, ps->stack[i]->line);

		if (w < 0)
			break;
		used += (size_t)w;
	}
}

/* "FILE:LINE:COL: message" at column COL of the frame's current line,
 * followed by the includes that reached the frame. */
int perr(parser *ps, const frame *f, unsigned col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int perr(parser *ps, const frame *f, unsigned col, const char *fmt, ...)
{
	char chain[512];
	va_list ap;
	int r;

	include_chain(ps, f, chain, sizeof(chain));
	va_start(ap, fmt);
	r = vperr_at(ps, 0, f->file, f->line, col, chain, fmt, ap);
	va_end(ap);
	return r;
}

int perr_errno(parser *ps, const frame *f, unsigned col, int sys_errno, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
int perr_errno(parser *ps, const frame *f, unsigned col, int sys_errno, const char *fmt, ...)
{
	char chain[512];
	va_list ap;
	int r;

	include_chain(ps, f, chain, sizeof(chain));
	va_start(ap, fmt);
	r = vperr_at(ps, sys_errno, f->file, f->line, col, chain, fmt, ap);
	va_end(ap);
	return r;
}

/* The same at a rule's recorded origin, for checks made once every file has
 * been read. */
int perr_at(parser *ps, const osb_origin *o, unsigned col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int perr_at(parser *ps, const osb_origin *o, unsigned col, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vperr_at(ps, 0, o->file, o->line, col, "", fmt, ap);
	va_end(ap);
	return r;
}

int policy_nomem(osb_error *err)
{
	return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "policy", "out of memory while reading the policy");
}

osb_origin origin_here(const frame *f)
{
	return (osb_origin){ f->file, f->line, f->depth };
}

bool same_rule(const osb_origin *a, const osb_origin *b)
{
	return a->file == b->file && a->line == b->line;
}

/* The policy's copy of FILE (one per distinct name): origins point here. */
const char *files_add(osb_policy *p, const char *file)
{
	char **v, *copy;

	for (size_t i = 0; i < p->n_files; i++)
		if (strcmp(p->files[i], file) == 0)
			return p->files[i];
	copy = strdup(file);
	v = copy ? reallocarray(p->files, p->n_files + 1, sizeof(*v)) : NULL;
	if (!v) {
		free(copy);
		return NULL;
	}
	p->files = v;
	p->files[p->n_files++] = copy;
	return copy;
}

/* ---- scalars: duplicates, overrides, conflicts ---------------------------- */

static slot *slot_get(parser *ps, const char *key)
{
	bool added;
	map_entry *e = map_add(&ps->slot_map, 0, key, ps->n_slots, &added);
	slot **v, *s;

	if (!e)
		return NULL;
	if (!added)
		return ps->slots[e->val];
	v = array_grow(ps->slots, &ps->cap_slots, ps->n_slots, sizeof(*v));
	if (!v)
		return NULL;
	ps->slots = v;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->index = SIZE_MAX;
	ps->slots[ps->n_slots++] = s;
	return s;
}

/* Record that the current line sets scalar KEY (WHAT names it in messages).
 * *APPLY tells whether this rule takes effect now. */
int claim(parser *ps, frame *f, unsigned col, const char *key, const char *what,
                 slot **out, bool *apply)
{
	osb_origin o = origin_here(f);
	bool added;
	map_entry *seen = map_add(&ps->seen_map, f->inst, key, f->line, &added);
	slot *s;

	if (!seen)
		return policy_nomem(ps->err);
	if (!added)
		return perr(ps, f, col, "duplicate \"%s\" (first set at %s:%zu)", what, f->file, seen->val);
	s = slot_get(ps, key);
	if (!s)
		return policy_nomem(ps->err);
	*out = s;
	*apply = false;
	if (!s->win.file || o.depth < s->win.depth) {
		/* First, or an including file overriding what it included. */
		*apply = true;
		s->win = o;
		s->conflict = false;
	} else if (o.depth == s->win.depth && !same_rule(&o, &s->win) && !s->conflict) {
		const frame *inc = o.depth > 0 && o.depth <= ps->n_stack ? ps->stack[o.depth - 1] : f;

		s->conflict = true;
		s->c_at = o;
		s->c_col = col;
		s->c_other = s->win;
		/* Reported at the include that brought this rule in: its file is
		 * where a rule of lower depth settles the choice. */
		s->c_inc = origin_here(inc);
		s->c_inc_col = inc != f && inc->toks[1].s ? inc->toks[1].col : col;
		free(s->c_what);
		s->c_what = strdup(what);
		if (!s->c_what)
			return policy_nomem(ps->err);
	}
	return 0;
}

static int check_conflicts(parser *ps)
{
	for (size_t i = 0; i < ps->n_slots; i++) {
		const slot *s = ps->slots[i];

		if (s->conflict)
			return osb_err_set(ps->err, OSB_E_POLICY, 0, "policy",
			                   "%s:%u:%u: \"%s\" of %s:%u conflicts with %s:%u (both included at "
			                   "depth %u; set \"%s\" in this file to choose)", s->c_inc.file,
			                   s->c_inc.line, s->c_inc_col, s->c_what, s->c_at.file, s->c_at.line,
			                   s->c_other.file, s->c_other.line, s->c_at.depth, s->c_what);
	}
	return 0;
}

int arity(parser *ps, frame *f, int n, const tok *t, int min, int max, const char *usage)
{
	clipbuf cb;

	if (n - 1 < min)
		return perr(ps, f, t[0].col, "missing argument: usage is \"%s\"", usage);
	if (max >= 0 && n - 1 > max)
		return perr(ps, f, t[max + 1].col, "unexpected argument \"%s\" (usage is \"%s\")",
		            policy_clip(t[max + 1].s, &cb), usage);
	return 0;
}

/* Index of T among WORDS, or an error naming the closest word. */
int keyword(parser *ps, frame *f, const tok *t, const char *const *words, size_t n,
                   const char *what, size_t *idx)
{
	const char *near;
	char list[256];
	clipbuf cb;

	for (size_t i = 0; i < n; i++) {
		if (strcmp(t->s, words[i]) == 0) {
			*idx = i;
			return 0;
		}
	}
	near = policy_suggest(t->s, words, n);
	if (near)
		return perr(ps, f, t->col, "unknown argument \"%s\" to \"%s\" (did you mean \"%s\"?)",
		            policy_clip(t->s, &cb), what, near);
	policy_join_words(words, n, list, sizeof(list));
	return perr(ps, f, t->col, "unknown argument \"%s\" to \"%s\" (expected %s)",
	            policy_clip(t->s, &cb), what, list);
}

int check_path_tok(parser *ps, frame *f, const tok *t)
{
	const char *why = policy_path_problem(t->s, false);
	clipbuf cb;

	if (why)
		return perr(ps, f, t->col, "%s: \"%s\"", why, policy_clip(t->s, &cb));
	return 0;
}

/* ---- files and includes -------------------------------------------------- */

static int parse_file(parser *ps, const char *text, size_t len, const char *file,
                      unsigned depth, const struct stat *id);

static int include_read_error(parser *ps, frame *f, const tok *t, const char *path, int r)
{
	clipbuf cb;

	if (r == -ENOMEM)
		return policy_nomem(ps->err);
	if (r == -EFBIG)
		return perr_errno(ps, f, t->col, EFBIG, "cannot include \"%s\": %s is larger than 1 MiB",
		                  policy_clip(t->s, &cb), path);
	if (r == -EINVAL)
		return perr_errno(ps, f, t->col, EINVAL, "cannot include \"%s\": %s is not a regular file",
		                  policy_clip(t->s, &cb), path);
	return perr_errno(ps, f, t->col, -r, "cannot include \"%s\": %s: %s", policy_clip(t->s, &cb), path,
	                  strerror(-r));
}

/* The file an include names. "NAME" is a shipped policy: it is read from
 * policy_dir() only, so a file of that name beside the including policy
 * (which may sit where untrusted code can write) cannot take its place.
 * "./NAME" names that sibling; "/PATH" is used as written. */
static int include_path(parser *ps, frame *f, const tok *t, char **path)
{
	bool sibling = strncmp(t->s, "./", 2) == 0;
	const char *name = sibling ? t->s + 2 : t->s;
	const char *slash = strrchr(f->file, '/');
	_cleanup_free_ char *fname = NULL;
	clipbuf cb;
	int r;

	if (t->s[0] == '/') {
		if ((r = check_path_tok(ps, f, t)) < 0)
			return r;
		*path = strdup(t->s);
		return *path ? 0 : policy_nomem(ps->err);
	}
	if (strchr(name, '/'))
		return perr(ps, f, t->col, "include takes a bare name, \"./NAME\" or an absolute "
		            "path, not a relative path: \"%s\"", policy_clip(t->s, &cb));
	if (!policy_bare_name_ok(name))
		return perr(ps, f, t->col, "invalid include name \"%s\" (letters, digits, \"_\", "
		            "\".\" and \"-\", \"./\" and such a name, or an absolute path)",
		            policy_clip(t->s, &cb));
	if (!(fname = policy_file_name(name)))
		return policy_nomem(ps->err);
	if (sibling && slash)
		r = asprintf(path, "%.*s/%s", (int)(slash - f->file), f->file, fname);
	else if (sibling)
		r = asprintf(path, "%s", fname);
	else
		r = asprintf(path, "%s/%s", policy_dir(), fname);
	if (r < 0) {
		*path = NULL;
		return policy_nomem(ps->err);
	}
	return 0;
}

/* Read PATH for the include T, or find it read already: one snapshot of
 * each file per load, however often it is included. */
static int include_read(parser *ps, frame *f, const tok *t, const char *path, inc_file **out)
{
	_cleanup_free_ char *text = NULL;
	bool added, bare = t->s[0] != '/' && strncmp(t->s, "./", 2) != 0;
	map_entry *e = map_add(&ps->inc_map, 0, path, ps->n_incs, &added);
	inc_file *inc, **v;
	struct stat st;
	size_t len = 0;
	int r;

	if (!e)
		return policy_nomem(ps->err);
	if (!added) {   /* a failed read ends the load: every entry is complete */
		*out = ps->incs[e->val];
		return 0;
	}
	r = read_file_bounded(path, POLICY_MAX_BYTES, &text, &len);
	if (r == -ENOENT && bare) {
		clipbuf cb;

		return perr_errno(ps, f, t->col, ENOENT, "cannot include \"%s\": %s does not exist "
		                  "(a bare name is a shipped policy; write \"./%s\" for a file beside "
		                  "this one)", policy_clip(t->s, &cb), path, policy_clip(t->s, &cb));
	}
	if (r < 0)
		return include_read_error(ps, f, t, path, r);
	if (stat(path, &st) < 0)
		return include_read_error(ps, f, t, path, -errno);
	v = array_grow(ps->incs, &ps->cap_incs, ps->n_incs, sizeof(*v));
	if (!v)
		return policy_nomem(ps->err);
	ps->incs = v;
	if (!(inc = calloc(1, sizeof(*inc))) || !(inc->file = files_add(ps->p, path))) {
		free(inc);
		return policy_nomem(ps->err);
	}
	inc->text = text;
	text = NULL;
	inc->len = len;
	inc->dev = st.st_dev;
	inc->ino = st.st_ino;
	ps->incs[ps->n_incs++] = inc;
	*out = inc;
	return 0;
}

static int include_cycle(parser *ps, frame *f, const tok *t, const inc_file *inc)
{
	char chain[sizeof(((osb_error *)0)->message)];
	size_t used = 0, i;

	for (i = 0; i < ps->n_stack; i++)
		if (ps->stack[i]->has_id && ps->stack[i]->dev == inc->dev && ps->stack[i]->ino == inc->ino)
			break;
	if (i == ps->n_stack)
		return 0;
	chain[0] = '\0';
	for (; i < ps->n_stack && used < sizeof(chain); i++) {
		int w = snprintf(chain + used, sizeof(chain) - used, "%s -> ", ps->stack[i]->file);

		if (w < 0)
			break;
		used += (size_t)w;
	}
	return perr(ps, f, t->col, "include cycle: %s%s", chain, inc->file);
}

/* Count INC's text against the bound on what one load parses. */
static int include_charge(parser *ps, frame *f, const tok *t, const inc_file *inc)
{
	clipbuf cb;

	if (inc->len > POLICY_MAX_TOTAL_BYTES - ps->text_total)
		return perr(ps, f, t->col, "cannot include \"%s\": the policy and its includes would be "
		            "more than 4 MiB of text (%zu bytes; %s has %zu, %zu were read before it)",
		            policy_clip(t->s, &cb), POLICY_MAX_TOTAL_BYTES, inc->file, inc->len,
		            ps->text_total);
	ps->text_total += inc->len;
	return 0;
}

int d_include(parser *ps, frame *f, int n, tok *t)
{
	_cleanup_free_ char *path = NULL;
	unsigned depth = f->depth + 1;
	struct stat id = { 0 };
	inc_file *inc = NULL;
	clipbuf cb;
	int r;

	if ((r = arity(ps, f, n, t, 1, 1, "include NAME|./NAME|/PATH")) < 0)
		return r;
	if ((r = include_path(ps, f, &t[1], &path)) < 0)
		return r;
	if ((r = include_read(ps, f, &t[1], path, &inc)) < 0)
		return r;
	if ((r = include_cycle(ps, f, &t[1], inc)) < 0)
		return r;
	if (depth > OSB_INCLUDE_MAX_DEPTH)
		return perr(ps, f, t[1].col, "include nested too deeply: \"%s\" would be at depth %u "
		            "(at most %d levels of include)", policy_clip(t[1].s, &cb), depth,
		            OSB_INCLUDE_MAX_DEPTH);
	if (inc->parsed & (1u << depth))
		return 0;
	if ((r = include_charge(ps, f, &t[1], inc)) < 0)
		return r;
	id.st_dev = inc->dev;
	id.st_ino = inc->ino;
	if ((r = parse_file(ps, inc->text, inc->len, inc->file, depth, &id)) < 0)
		return r;
	inc->parsed |= 1u << depth;
	return 0;
}

/* ---- lines --------------------------------------------------------------- */

/* Whole-file checks before any directive is acted on: the text is UTF-8,
 * lines are bounded, and nothing in it is invisible to a reader. */
static int prescan(parser *ps, frame *f, const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t start = 0, i = 0;

	f->line = 1;
	while (i < len) {
		unsigned col = (unsigned)(i - start + 1);
		uint32_t cp;
		size_t n;

		if (s[i] == '\n') {
			f->line++;
			start = ++i;
			continue;
		}
		if (col > POLICY_MAX_LINE)
			return perr(ps, f, POLICY_MAX_LINE + 1, "line longer than %d bytes", POLICY_MAX_LINE);
		if (s[i] == '\0')
			return perr(ps, f, col, "NUL byte in policy text");
		if (s[i] == '\r')
			return perr(ps, f, col, "carriage return in policy text (use Unix line endings)");
		if ((s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7f)
			return perr(ps, f, col, "control character 0x%02x in policy text", s[i]);
		if (s[i] < 0x80) {   /* printable ASCII or a tab: one byte, visible */
			i++;
			continue;
		}
		n = policy_utf8_decode(s + i, len - i, &cp);
		if (n == 0)
			return perr(ps, f, col, "invalid UTF-8 in policy text");
		if (cp == 0xfeff && i == 0)
			return perr(ps, f, col, "UTF-8 byte order mark (save the file without one)");
		if (policy_invisible(cp))
			return perr(ps, f, col, "invisible or bidirectional control character U+%04X "
			            "(not allowed in policy text)", (unsigned)cp);
		if (col - 1 + n > POLICY_MAX_LINE)   /* a character straddling the limit */
			return perr(ps, f, POLICY_MAX_LINE + 1, "line longer than %d bytes", POLICY_MAX_LINE);
		i += n;
	}
	return 0;
}

/* Split the current line into blank-separated tokens; '#' at the start of
 * a token starts a comment. */
static int tokenize(frame *f)
{
	size_t i = 0;
	int n = 0;

	memcpy(f->buf, f->raw, f->raw_len);
	f->buf[f->raw_len] = '\0';
	while (i < f->raw_len) {
		if (f->buf[i] == ' ' || f->buf[i] == '\t') {
			i++;
			continue;
		}
		if (f->buf[i] == '#')
			break;
		f->toks[n].s = f->buf + i;
		f->toks[n].col = (unsigned)i + 1;
		n++;
		while (i < f->raw_len && f->buf[i] != ' ' && f->buf[i] != '\t')
			i++;
		f->buf[i++] = '\0';
	}
	return n;
}

static int version_line(parser *ps, frame *f, int n, tok *t)
{
	clipbuf cb;
	int r;

	if (strcmp(t[0].s, "osb-policy") != 0)
		return perr(ps, f, t[0].col, "expected version line \"osb-policy 1\" first");
	if ((r = arity(ps, f, n, t, 1, 1, "osb-policy 1")) < 0)
		return r;
	if (strcmp(t[1].s, "1") != 0)
		return perr(ps, f, t[1].col, "unsupported policy version \"%s\" (supported: \"osb-policy 1\")",
		            policy_clip(t[1].s, &cb));
	f->version_line = f->line;
	return 0;
}

static int parse_line(parser *ps, frame *f)
{
	int n = tokenize(f);
	const char *names[64];
	const char *near;
	directive_fn fn;
	clipbuf cb;

	if (n == 0)
		return 0;
	if (!f->version_line)
		return version_line(ps, f, n, f->toks);
	if ((fn = policy_directive(f->toks[0].s)))
		return fn(ps, f, n, f->toks);
	near = policy_suggest(f->toks[0].s, names, policy_directive_names(names, ARRAY_SIZE(names)));
	if (near)
		return perr(ps, f, f->toks[0].col, "unknown directive \"%s\" (did you mean \"%s\"?)",
		            policy_clip(f->toks[0].s, &cb), near);
	return perr(ps, f, f->toks[0].col, "unknown directive \"%s\"", policy_clip(f->toks[0].s, &cb));
}

static int parse_lines(parser *ps, frame *f, const char *text, size_t len)
{
	const char *s = text, *end = text + len;
	unsigned line = 0;
	int r;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));

		f->line = ++line;
		f->raw = s;
		f->raw_len = (size_t)((nl ? nl : end) - s);
		if ((r = parse_line(ps, f)) < 0)
			return r;
		if (!nl)
			break;
		s = nl + 1;
	}
	if (!f->version_line) {
		f->line = len == 0 || text[len - 1] == '\n' ? line + 1 : line;
		return perr(ps, f, 1, "missing version line \"osb-policy 1\" (the file has no directives)");
	}
	return 0;
}

/* ID: the file's identity for cycle detection, or NULL when the text has
 * no file behind it. */
static int parse_file(parser *ps, const char *text, size_t len, const char *file,
                      unsigned depth, const struct stat *id)
{
	frame f = { .file = file, .depth = depth, .inst = ps->n_inst++ };
	int r;

	if (ps->n_stack >= ARRAY_SIZE(ps->stack))
		return osb_err_set(ps->err, OSB_E_INTERNAL, 0, "policy", "include stack overflow");
	if (id) {
		f.has_id = true;
		f.dev = id->st_dev;
		f.ino = id->st_ino;
	}
	f.buf = malloc(POLICY_MAX_LINE + 1);
	f.toks = calloc(MAX_TOKENS, sizeof(*f.toks));
	if (!f.buf || !f.toks) {
		r = policy_nomem(ps->err);
	} else {
		ps->stack[ps->n_stack++] = &f;
		r = prescan(ps, &f, text, len);
		if (r == 0)
			r = parse_lines(ps, &f, text, len);
		ps->n_stack--;
	}
	free(f.buf);
	free(f.toks);
	return r;
}

/* ---- defaults and entry points ------------------------------------------- */

/* Unset rules get the safe value: nothing visible, nothing reachable. */
static int apply_defaults(osb_policy *p)
{
	const pol_set d = { true, { policy_origin_default, 0, 0 } };

	if (!p->root_set.set) {
		p->root = ROOT_NONE;
		p->root_set = d;
	}
	if (!p->ws_set.set) {
		p->ws_mode = WS_NONE;
		p->ws_set = d;
	}
	if (!p->net_set.set) {
		p->net = NET_NONE;
		p->net_set = d;
	}
	if (!p->env_base_set.set) {
		p->env_base = ENV_CLEAR;
		p->env_base_set = d;
	}
	if (!p->user_set.set) {
		if (!(p->user_name = strdup("sandbox")))
			return -ENOMEM;
		p->uid = p->gid = 1000;
		p->user_set = d;
	}
	if (!p->id_mode_set.set) {
		p->id_mode = ID_AUTO;
		p->id_mode_set = d;
	}
	if (!p->hostname_set.set) {
		if (!(p->hostname = strdup("sandbox")))
			return -ENOMEM;
		p->hostname_set = d;
	}
	if (!p->limit_set[LIM_OUTPUT].set) {
		p->limits[LIM_OUTPUT] = 1ULL << 20;
		p->limit_set[LIM_OUTPUT] = d;
	}
	if (!p->sc_mode_set.set) {
		p->sc_mode = SC_DEFAULT;
		p->sc_group = seccomp_policy_group(NULL)->version;
		p->sc_mode_set = d;
	}
	if (!p->landlock_set.set) {
		p->landlock = LL_AUTO;
		p->landlock_set = d;
	}
	return 0;
}

osb_policy *policy_parse_text(const char *text, size_t len, const char *filename,
                              const struct stat *id, osb_error *err)
{
	parser ps = { .err = err };
	const char *file;
	int r;

	ps.p = calloc(1, sizeof(*ps.p));
	if (!ps.p || !(file = files_add(ps.p, filename))) {
		policy_nomem(err);
		osb_policy_free(ps.p);
		return NULL;
	}
	ps.text_total = len;
	if (len > POLICY_MAX_BYTES)
		r = osb_err_set(err, OSB_E_POLICY, EFBIG, "policy", "%s: policy is larger than 1 MiB", file);
	else
		r = parse_file(&ps, text, len, file, 0, id);
	if (r == 0)
		r = check_conflicts(&ps);
	if (r == 0)
		r = policy_check_write_rules(&ps);
	if (r == 0)
		r = policy_check_seccomp_rules(&ps);
	if (r == 0 && apply_defaults(ps.p) < 0)
		r = policy_nomem(err);
	parser_free(&ps);
	if (r < 0) {
		osb_policy_free(ps.p);
		return NULL;
	}
	ps.p->version = OSB_POLICY_VERSION;
	return ps.p;
}


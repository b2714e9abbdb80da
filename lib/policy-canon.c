/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* policy-canon.c — the canonical effective policy, its hash and explain.
 *
 * One rule a line in a fixed order: scalars, then mounts by path, write
 * paths, env lists and seccomp rules, each sorted. Layout, comments,
 * includes and the order of list directives leave no trace; every semantic
 * choice does, so the SHA-256 of this text (the policy hash) changes with
 * what runs and only with that. explain is the same text with each rule's
 * origin. The text parses back to the same policy.
 */
#include "policy-canon.h"
#include "filter.h"
#include "sha256.h"

#include <errno.h>
#include <stdarg.h>

/* ---- canonical form, hash, explain --------------------------------------- */

static int mount_cmp(const void *a, const void *b)
{
	const pol_mount *x = *(const pol_mount *const *)a, *y = *(const pol_mount *const *)b;
	int c = strcmp(x->path, y->path);

	return c ? c : (int)x->kind - (int)y->kind;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp((*(const pol_str *const *)a)->s, (*(const pol_str *const *)b)->s);
}

/* env set entries sort by NAME alone: "A1=" must not sort before "A=". */
static int env_set_cmp(const void *a, const void *b)
{
	const char *x = (*(const pol_str *const *)a)->s, *y = (*(const pol_str *const *)b)->s;
	size_t lx = strcspn(x, "="), ly = strcspn(y, "=");
	int c = memcmp(x, y, lx < ly ? lx : ly);

	return c ? c : (lx > ly) - (lx < ly);
}

/* ---- the rules, one at a time -------------------------------------------- */

/* Where the rules go: a caller's function (osb_policy_rules) and its
 * argument; R is the first non-zero value it returned. */
typedef struct walk {
	osb_rule_fn fn;
	void *arg;
	int r;
} walk;

/* One rule: its words (the directive first) and, for a limit or a deny
 * rule, its value. Its text is the words joined by blanks. */
static void emit(walk *w, const osb_origin *o, uint64_t value, size_t order, size_t n,
                 const char *const *words)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (w->r)
		return;
	if (!(f = open_memstream(&text, &len))) {
		w->r = -OSB_E_NOMEM;
		return;
	}
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? " " : "", words[i]);
	if (fclose(f) != 0) {
		free(text);
		w->r = -OSB_E_NOMEM;
		return;
	}
	w->r = w->fn(&(osb_rule){ .text = text, .directive = words[0], .args = words + 1,
	                          .n_args = n - 1, .value = value, .order = order,
	                          .file = o->file ? o->file : policy_origin_default,
	                          .line = o->line, .depth = o->depth }, w->arg);
	free(text);
}

/* A scalar (order 0), and the I-th entry of a list. */
#define EMIT(w, o, v, ...) EMIT_AT(w, o, v, 0, __VA_ARGS__)
#define EMIT_AT(w, o, v, i, ...) \
	emit(w, o, v, i, sizeof((const char *[]){ __VA_ARGS__ }) / sizeof(const char *), \
	     (const char *const[]){ __VA_ARGS__ })

/* Sorted view of N elements of SIZE bytes at BASE. */
static const void **sorted(const void *base, size_t n, size_t size,
                           int (*cmp)(const void *, const void *))
{
	const void **v = calloc(n + 1, sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++)
		v[i] = (const char *)base + i * size;
	qsort(v, n, sizeof(*v), cmp);
	return v;
}

static int sc_cmp(const void *a, const void *b)
{
	return strcmp((*(const pol_sc *const *)a)->name, (*(const pol_sc *const *)b)->name);
}

static void walk_strs(walk *w, const char *dir, const char *sub, const pol_str *v, size_t n,
                      int (*cmp)(const void *, const void *))
{
	_cleanup_free_ const void **s = sorted(v, n, sizeof(*v), cmp);

	if (!s) {
		w->r = w->r ? w->r : -OSB_E_NOMEM;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const pol_str *e = s[i];
		size_t at = (size_t)(e - v);

		if (sub)
			EMIT_AT(w, &e->o, 0, at, dir, sub, e->s);
		else
			EMIT_AT(w, &e->o, 0, at, dir, e->s);
	}
}

/* One name a rule, with its errno always spelled out by name: "deny x" and
 * "deny x errno=1" are the same rule and render alike. */
static void walk_sc(walk *w, const osb_policy *p)
{
	_cleanup_free_ const void **s = sorted(p->sc_rules, p->n_sc_rules, sizeof(*p->sc_rules),
	                                       sc_cmp);

	if (!s) {
		w->r = w->r ? w->r : -OSB_E_NOMEM;
		return;
	}
	for (size_t i = 0; i < p->n_sc_rules; i++) {
		const pol_sc *r = s[i];
		size_t at = (size_t)(r - p->sc_rules);
		char e[32], arg[48];
		int err = r->err ? r->err : EPERM;

		if (r->allow) {
			EMIT_AT(w, &r->o, 0, at, "seccomp", "allow", r->name);
			continue;
		}
		policy_errno_format(err, e, sizeof(e));
		snprintf(arg, sizeof(arg), "errno=%s", e);
		EMIT_AT(w, &r->o, (uint64_t)err, at, "seccomp", "deny", r->name, arg);
	}
}

static void walk_identity(walk *w, const osb_policy *p)
{
	char uid[16], gid[16], grp[32];

	snprintf(uid, sizeof(uid), "%u", p->uid);
	snprintf(gid, sizeof(gid), "%u", p->gid);
	EMIT(w, &p->user_set.o, 0, "user", p->user_name ? p->user_name : "", uid, gid);
	EMIT(w, &p->id_mode_set.o, 0, "identity", policy_id_names[p->id_mode]);
	if (p->host_ids_set.set) {
		snprintf(uid, sizeof(uid), "%u", p->host_uid);
		snprintf(gid, sizeof(gid), "%u", p->host_gid);
		EMIT(w, &p->host_ids_set.o, 0, "host-ids", uid, gid);
	}
	if (p->sc_mode == SC_NONE) {
		EMIT(w, &p->sc_mode_set.o, 0, "seccomp", "none");
	} else {   /* the group, never "default": the hash changes with the filter */
		snprintf(grp, sizeof(grp), "osb-default-%u",
		         p->sc_group ? p->sc_group : seccomp_policy_group(NULL)->version);
		EMIT(w, &p->sc_mode_set.o, 0, "seccomp", grp);
	}
}

/* "workspace MODE [DEST]", and an overlay's size in bytes: a policy that
 * names none gets the default, which the hash then covers. */
static void walk_workspace(walk *w, const osb_policy *p)
{
	const char *mode = policy_ws_names[p->ws_mode];
	char v[32], size[40];

	policy_format_limit(LIM_MEMORY, p->ws_size, v, sizeof(v));
	snprintf(size, sizeof(size), "size=%s", v);
	if (p->ws_mode == WS_OVERLAY && p->ws_dest)
		EMIT(w, &p->ws_set.o, p->ws_size, "workspace", mode, p->ws_dest, size);
	else if (p->ws_mode == WS_OVERLAY)
		EMIT(w, &p->ws_set.o, p->ws_size, "workspace", mode, size);
	else if (p->ws_dest)
		EMIT(w, &p->ws_set.o, 0, "workspace", mode, p->ws_dest);
	else
		EMIT(w, &p->ws_set.o, 0, "workspace", mode);
}

static void walk_scalars(walk *w, const osb_policy *p)
{
	EMIT(w, &p->root_set.o, 0, "root", policy_root_names[p->root]);
	walk_workspace(w, p);
	if (p->net == NET_ALLOW)   /* "network allow ENTRY", one a line, sorted */
		walk_strs(w, "network", "allow", p->net_allow, p->n_net_allow, str_cmp);
	else
		EMIT(w, &p->net_set.o, 0, "network", policy_net_names[p->net]);
	if (p->caller_net.set)
		EMIT(w, &p->caller_net.o, 0, "allow-caller", "network");
	EMIT(w, &p->env_base_set.o, 0, "env", policy_env_base_names[p->env_base]);
	walk_identity(w, p);
	EMIT(w, &p->landlock_set.o, 0, "landlock", policy_ll_names[p->landlock]);
	EMIT(w, &p->hostname_set.o, 0, "hostname", p->hostname ? p->hostname : "");
	for (size_t i = 0; i < LIM__COUNT; i++) {
		char v[32];

		if (!p->limit_set[i].set)
			continue;
		policy_format_limit((unsigned)i, p->limits[i], v, sizeof(v));
		if (p->limit_best_effort & LIM_BIT(i))
			EMIT(w, &p->limit_set[i].o, p->limits[i], "limit", osb_limit_names[i], v,
			     "best-effort");
		else
			EMIT(w, &p->limit_set[i].o, p->limits[i], "limit", osb_limit_names[i], v);
	}
}

static void walk_mounts(walk *w, const osb_policy *p)
{
	_cleanup_free_ const void **m = sorted(p->mounts, p->n_mounts, sizeof(*p->mounts),
	                                       mount_cmp);

	if (!m) {
		w->r = w->r ? w->r : -OSB_E_NOMEM;
		return;
	}
	for (size_t i = 0; i < p->n_mounts; i++) {
		const pol_mount *mt = m[i];
		size_t at = (size_t)(mt - p->mounts);

		if (mt->kind == MNT_SYMLINK) {
			EMIT_AT(w, &mt->o, 0, at, "symlink", mt->target, mt->path);
		} else if (mt->size) {
			char v[32], sz[40];

			policy_format_limit(LIM_MEMORY, mt->size, v, sizeof(v));
			snprintf(sz, sizeof(sz), "size=%s", v);
			EMIT_AT(w, &mt->o, mt->size, at, policy_mount_names[mt->kind], mt->path, sz);
		} else {
			EMIT_AT(w, &mt->o, 0, at, policy_mount_names[mt->kind], mt->path);
		}
	}
}

/* The effective policy in a fixed order, one rule at a time: scalars, then
 * mounts by path, write paths, env lists and seccomp rules, each sorted.
 * Layout, comments, includes and the order of list directives leave no
 * trace; every semantic choice does. */
static int walk_policy(const osb_policy *p, osb_rule_fn fn, void *arg)
{
	walk w = { fn, arg, 0 };

	walk_scalars(&w, p);
	walk_mounts(&w, p);
	walk_strs(&w, "write-root", NULL, p->write_roots, p->n_write_roots, str_cmp);
	walk_strs(&w, "read-root", NULL, p->read_roots, p->n_read_roots, str_cmp);
	walk_strs(&w, "write", NULL, p->writes, p->n_writes, str_cmp);
	walk_strs(&w, "read-only", NULL, p->read_only, p->n_read_only, str_cmp);
	walk_strs(&w, "env", "pass", p->env_pass, p->n_env_pass, str_cmp);
	walk_strs(&w, "env", "deny", p->env_deny, p->n_env_deny, str_cmp);
	walk_strs(&w, "env", "set", p->env_set, p->n_env_set, env_set_cmp);
	walk_sc(&w, p);
	return w.r;
}

/* ---- the text ------------------------------------------------------------- */

typedef struct text_out {
	FILE *f;
	bool origins;
} text_out;

static int put_line(const osb_rule *r, void *arg)
{
	const text_out *t = arg;

	fputs(r->text, t->f);
	if (t->origins && r->line)
		fprintf(t->f, "  # %s:%u", r->file, r->line);
	else if (t->origins)
		fprintf(t->f, "  # %s", r->file);
	fputc('\n', t->f);
	return 0;
}

static int render_string(const osb_policy *p, bool origins, char **out)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int r;

	if (!f)
		return -ENOMEM;
	fprintf(f, "osb-policy %d\n", OSB_POLICY_VERSION);
	r = walk_policy(p, put_line, &(text_out){ f, origins });
	if (ferror(f))
		r = -ENOMEM;
	if (fclose(f) != 0)
		r = -ENOMEM;
	if (r < 0) {
		free(buf);
		return -ENOMEM;
	}
	*out = buf;
	return 0;
}

int policy_canonical(const osb_policy *p, char **out)
{
	return render_string(p, false, out);
}

int osb_policy_hash(const osb_policy *p, char out[OSB_POLICY_HASH_LEN])
{
	static const char hex[] = "0123456789abcdef";
	_cleanup_free_ char *text = NULL;
	uint8_t d[SHA256_DIGEST_LEN];

	if (!p || !out)
		return -OSB_E_USAGE;
	if (policy_canonical(p, &text) < 0)
		return -OSB_E_NOMEM;
	sha256(text, strlen(text), d);
	memcpy(out, "sha256:", 7);
	for (size_t i = 0; i < sizeof(d); i++) {
		out[7 + 2 * i] = hex[d[i] >> 4];
		out[8 + 2 * i] = hex[d[i] & 0xf];
	}
	out[OSB_POLICY_HASH_LEN - 1] = '\0';
	return 0;
}

char *osb_policy_explain(const osb_policy *p, unsigned flags)
{
	char *s = NULL;

	if (flags != 0) {
		errno = EINVAL;
		return NULL;
	}
	if (!p || render_string(p, true, &s) < 0)
		return NULL;
	return s;
}

/* ---- introspection ---------------------------------------------------------- */

int osb_policy_rules(const osb_policy *p, osb_rule_fn fn, void *arg)
{
	if (!p || !fn)
		return -OSB_E_USAGE;
	return walk_policy(p, fn, arg);
}

size_t osb_policy_file_count(const osb_policy *p)
{
	return p ? p->n_files : 0;
}

const char *osb_policy_file(const osb_policy *p, size_t i)
{
	return p && i < p->n_files ? p->files[i] : NULL;
}

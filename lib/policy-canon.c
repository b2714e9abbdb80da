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

static void rule(FILE *out, const osb_origin *o, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void rule(FILE *out, const osb_origin *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	if (o && o->line)
		fprintf(out, "  # %s:%u", o->file, o->line);
	else if (o)
		fprintf(out, "  # %s", o->file ? o->file : policy_origin_default);
	fputc('\n', out);
}

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

static void render_strs(FILE *out, bool origins, const char *prefix, const pol_str *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rule(out, origins ? &v[i]->o : NULL, "%s %s", prefix, v[i]->s);
}

static int sc_cmp(const void *a, const void *b)
{
	return strcmp((*(const pol_sc *const *)a)->name, (*(const pol_sc *const *)b)->name);
}

/* One name a line, with its errno always spelled out by name: "deny x" and
 * "deny x errno=1" are the same rule and render alike. */
static void render_sc(FILE *out, bool origins, const pol_sc *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char e[32];

		if (v[i]->allow) {
			rule(out, origins ? &v[i]->o : NULL, "seccomp allow %s", v[i]->name);
			continue;
		}
		policy_errno_format(v[i]->err ? v[i]->err : EPERM, e, sizeof(e));
		rule(out, origins ? &v[i]->o : NULL, "seccomp deny %s errno=%s", v[i]->name, e);
	}
}

static void render_scalars(const osb_policy *p, FILE *out, bool origins)
{
#define O(x) (origins ? &(x).o : NULL)
	rule(out, O(p->root_set), "root %s", policy_root_names[p->root]);
	if (p->ws_dest)
		rule(out, O(p->ws_set), "workspace %s %s", policy_ws_names[p->ws_mode], p->ws_dest);
	else
		rule(out, O(p->ws_set), "workspace %s", policy_ws_names[p->ws_mode]);
	rule(out, O(p->net_set), "network %s", policy_net_names[p->net]);
	if (p->caller_net.set)
		rule(out, O(p->caller_net), "allow-caller network");
	rule(out, O(p->env_base_set), "env %s", policy_env_base_names[p->env_base]);
	rule(out, O(p->user_set), "user %s %u %u", p->user_name ? p->user_name : "", p->uid, p->gid);
	rule(out, O(p->id_mode_set), "identity %s", policy_id_names[p->id_mode]);
	if (p->host_ids_set.set)
		rule(out, O(p->host_ids_set), "host-ids %u %u", p->host_uid, p->host_gid);
	if (p->sc_mode == SC_NONE)
		rule(out, O(p->sc_mode_set), "seccomp none");
	else   /* the group, never "default": the hash changes with the filter */
		rule(out, O(p->sc_mode_set), "seccomp osb-default-%u",
		     p->sc_group ? p->sc_group : seccomp_policy_group(NULL)->version);
	rule(out, O(p->landlock_set), "landlock %s", policy_ll_names[p->landlock]);
	rule(out, O(p->hostname_set), "hostname %s", p->hostname ? p->hostname : "");
	for (size_t i = 0; i < LIM__COUNT; i++) {
		char v[32];

		if (!p->limit_set[i].set)
			continue;
		policy_format_limit((enum limit_id)i, p->limits[i], v, sizeof(v));
		rule(out, O(p->limit_set[i]), "limit %s %s", osb_limit_names[i], v);
	}
#undef O
}

/* The effective policy in a fixed order, one rule a line: scalars, then
 * mounts by path, write paths, env lists and seccomp rules, each sorted.
 * Layout, comments, includes and the order of list directives leave no
 * trace; every semantic choice does. */
static int render(const osb_policy *p, FILE *out, bool origins)
{
	_cleanup_free_ const void **mounts = sorted(p->mounts, p->n_mounts, sizeof(*p->mounts), mount_cmp);
	_cleanup_free_ const void **pass = sorted(p->env_pass, p->n_env_pass, sizeof(*p->env_pass), str_cmp);
	_cleanup_free_ const void **deny = sorted(p->env_deny, p->n_env_deny, sizeof(*p->env_deny), str_cmp);
	_cleanup_free_ const void **set = sorted(p->env_set, p->n_env_set, sizeof(*p->env_set), env_set_cmp);
	_cleanup_free_ const void **roots = sorted(p->write_roots, p->n_write_roots,
	                                           sizeof(*p->write_roots), str_cmp);
	_cleanup_free_ const void **read_roots = sorted(p->read_roots, p->n_read_roots,
	                                                sizeof(*p->read_roots), str_cmp);
	_cleanup_free_ const void **writes = sorted(p->writes, p->n_writes, sizeof(*p->writes), str_cmp);
	_cleanup_free_ const void **ro = sorted(p->read_only, p->n_read_only, sizeof(*p->read_only), str_cmp);
	_cleanup_free_ const void **sc = sorted(p->sc_rules, p->n_sc_rules, sizeof(*p->sc_rules), sc_cmp);

	if (!mounts || !pass || !deny || !set || !roots || !read_roots || !writes || !ro || !sc)
		return -ENOMEM;
	fprintf(out, "osb-policy %d\n", OSB_POLICY_VERSION);
	render_scalars(p, out, origins);
	for (size_t i = 0; i < p->n_mounts; i++) {
		const pol_mount *m = mounts[i];

		if (m->kind == MNT_SYMLINK)
			rule(out, origins ? &m->o : NULL, "symlink %s %s", m->target, m->path);
		else
			rule(out, origins ? &m->o : NULL, "%s %s", policy_mount_names[m->kind], m->path);
	}
	render_strs(out, origins, "write-root", (const pol_str *const *)roots, p->n_write_roots);
	render_strs(out, origins, "read-root", (const pol_str *const *)read_roots, p->n_read_roots);
	render_strs(out, origins, "write", (const pol_str *const *)writes, p->n_writes);
	render_strs(out, origins, "read-only", (const pol_str *const *)ro, p->n_read_only);
	render_strs(out, origins, "env pass", (const pol_str *const *)pass, p->n_env_pass);
	render_strs(out, origins, "env deny", (const pol_str *const *)deny, p->n_env_deny);
	render_strs(out, origins, "env set", (const pol_str *const *)set, p->n_env_set);
	render_sc(out, origins, (const pol_sc *const *)sc, p->n_sc_rules);
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
	r = render(p, f, origins);
	if (ferror(f))
		r = -ENOMEM;
	if (fclose(f) != 0)
		r = -ENOMEM;
	if (r < 0) {
		free(buf);
		return r;
	}
	*out = buf;
	return 0;
}

int policy_canonical(const osb_policy *p, char **out)
{
	return render_string(p, false, out);
}

int osb_policy_hash(const osb_policy *p, char out[72])
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
	out[71] = '\0';
	return 0;
}

char *osb_policy_explain(const osb_policy *p, unsigned flags)
{
	char *s = NULL;

	(void)flags;
	if (!p || render_string(p, true, &s) < 0)
		return NULL;
	return s;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* diff.c — the semantic difference of two policies (osb-isolate(1),
 * "DIFF"), from their canonical rules (model.h): a scalar (network, a
 * limit, a mount's kind at a path, an env set NAME) that differs is
 * changed, list entries are added or removed, and each difference is
 * judged wider, narrower or neutral.
 */
#include "diff.h"
#include "common.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* ---- diff ------------------------------------------------------------------------------ */

static const char *const mount_words[] = { "ro-bind", "tmpfs", "hide", "dev", "proc" };

static bool word_in(const char *w, size_t n, const char *const *set, size_t n_set)
{
	for (size_t i = 0; i < n_set; i++)
		if (strlen(set[i]) == n && strncmp(w, set[i], n) == 0)
			return true;
	return false;
}

/* What identifies a rule across two policies: the scalar it sets, the path
 * a mount is at, the name an env set assigns; list entries are themselves. */
static char *rule_key(const char *rule)
{
	static const char *const scalars[] = {
		"root", "workspace", "network", "user", "identity", "hostname", "landlock",
	};
	size_t n0 = strcspn(rule, " ");
	const char *a1 = rule[n0] ? rule + n0 + 1 : rule + n0;
	size_t n1 = strcspn(a1, " ");

	/* Each "network allow ENTRY" is a list entry of its own. */
	if (strncmp(rule, "network allow ", 14) == 0)
		return strdup(rule);
	if (word_in(rule, n0, scalars, ARRAY_SIZE(scalars)))
		return strndup(rule, n0);
	if (word_in(rule, n0, mount_words, ARRAY_SIZE(mount_words)))
		return rv_fmt("mount %.*s", (int)n1, a1);   /* the path: "tmpfs /tmp size=..." too */
	if (strncmp(rule, "env ", 4) == 0 && (strcmp(a1, "clear") == 0 || strcmp(a1, "inherit") == 0))
		return strdup("env");
	if (strncmp(rule, "env set ", 8) == 0)
		return rv_fmt("env set %.*s", (int)strcspn(rule + 8, "="), rule + 8);
	if (strncmp(rule, "limit ", 6) == 0)
		return rv_fmt("limit %.*s", (int)n1, a1);
	if (strncmp(rule, "seccomp ", 8) == 0 && (strcmp(a1, "default") == 0 || strcmp(a1, "none") == 0 ||
	                                          rv_group_index(a1, NULL) >= 0))
		return strdup("seccomp");
	return strdup(rule);
}

static const char *arg_of(const char *rule, unsigned i)
{
	const char *c = rule;

	while (i-- > 0) {
		c = strchr(c, ' ');
		if (!c)
			return "";
		c++;
	}
	return c;
}

static int word_rank(const char *w, const char *const *order)
{
	for (int i = 0; order[i]; i++)
		if (strncmp(w, order[i], strlen(order[i])) == 0 &&
		    (w[strlen(order[i])] == '\0' || w[strlen(order[i])] == ' '))
			return i;
	return -1;
}

static enum diff_dir compare_ranks(long a, long b)
{
	if (a < 0 || b < 0 || a == b)
		return DIFF_NEUTRAL;
	return b > a ? DIFF_WIDER : DIFF_NARROWER;
}

/* "seccomp none" grants most, then each group older than the newest. */
static long seccomp_rule_rank(const char *rule)
{
	const char *w = arg_of(rule, 1);
	int g = rv_group_index(w, NULL);

	if (strcmp(w, "none") == 0)
		return LONG_MAX;
	if (strcmp(w, "default") == 0)
		return 0;
	return g >= 0 ? (long)(rv_group_newest() - g) : -1;
}

/* FROM and TO are the rules' texts; VA and VB their values (limits). */
static enum diff_dir changed_dir(const char *key, const char *from, const char *to, uint64_t va,
                                 uint64_t vb)
{
	static const char *const root_o[] = { "root none", "root host-ro", NULL };
	static const char *const ws_o[] = { "workspace none", "workspace ro", "workspace overlay",
	                                    "workspace rw", NULL };
	static const char *const net_o[] = { "network none", "network host", NULL };
	static const char *const env_o[] = { "env clear", "env inherit", NULL };
	static const char *const ll_o[] = { "landlock required", "landlock auto", "landlock off", NULL };
	static const char *const *const orders[] = { root_o, ws_o, net_o, env_o, ll_o };

	if (strcmp(key, "seccomp") == 0)
		return compare_ranks(seccomp_rule_rank(from), seccomp_rule_rank(to));
	/* Two overlays differ in how much their private layer may hold. */
	if (strncmp(from, "workspace overlay ", 18) == 0 && strncmp(to, "workspace overlay ", 18) == 0 &&
	    va != vb)
		return vb > va ? DIFF_WIDER : DIFF_NARROWER;
	for (size_t i = 0; i < ARRAY_SIZE(orders); i++)
		if (word_rank(from, orders[i]) >= 0)
			return compare_ranks(word_rank(from, orders[i]), word_rank(to, orders[i]));
	if (strncmp(key, "limit ", 6) == 0) {
		/* A best-effort limit may not hold: weaker than the same value enforced. */
		bool a = strstr(from, " best-effort") != NULL, b = strstr(to, " best-effort") != NULL;

		if (va == vb)
			return a == b ? DIFF_NEUTRAL : b ? DIFF_WIDER : DIFF_NARROWER;
		return vb > va ? DIFF_WIDER : DIFF_NARROWER;
	}
	if (strncmp(key, "mount ", 6) == 0) {
		/* A bind shows the host; every other mount kind shows nothing of it.
		 * A tmpfs without a size may take half the host's memory. */
		bool a = strncmp(from, "ro-bind ", 8) == 0, b = strncmp(to, "ro-bind ", 8) == 0;
		uint64_t sa = va ? va : UINT64_MAX, sb = vb ? vb : UINT64_MAX;

		if (a == b && strncmp(from, "tmpfs ", 6) == 0 && strncmp(to, "tmpfs ", 6) == 0)
			return sa == sb ? DIFF_NEUTRAL : sb > sa ? DIFF_WIDER : DIFF_NARROWER;
		return a == b ? DIFF_NEUTRAL : b ? DIFF_WIDER : DIFF_NARROWER;
	}
	if (strcmp(key, "user") == 0) {
		bool a = strstr(from, " 0 ") || strstr(from, " 0") == from + strlen(from) - 2;
		bool b = strstr(to, " 0 ") || strstr(to, " 0") == to + strlen(to) - 2;

		return a == b ? DIFF_NEUTRAL : b ? DIFF_WIDER : DIFF_NARROWER;
	}
	return DIFF_NEUTRAL;
}

/* Adding RULE grants (WIDER), restricts (NARROWER) or neither. */
static enum diff_dir added_dir(const char *rule)
{
	static const char *const grants[] = {
		"ro-bind ", "write ", "write-root ", "read-root ", "allow-caller ", "env pass ",
		"seccomp allow ", "network allow ",
	};
	static const char *const limits[] = {
		"tmpfs ", "hide ", "read-only ", "env deny ", "seccomp deny ",
	};

	for (size_t i = 0; i < ARRAY_SIZE(grants); i++)
		if (strncmp(rule, grants[i], strlen(grants[i])) == 0)
			return DIFF_WIDER;
	for (size_t i = 0; i < ARRAY_SIZE(limits); i++)
		if (strncmp(rule, limits[i], strlen(limits[i])) == 0)
			return DIFF_NARROWER;
	if (strncmp(rule, "limit ", 6) == 0)   /* a limit appears: narrower */
		return DIFF_NARROWER;
	return DIFF_NEUTRAL;
}

/* ---- context: what the other policy shows ------------------------------------------- */

static char upper_c(char c)
{
	if (c >= 'a' && c <= 'z')
		return "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[c - 'a'];
	return c;
}

/* Can one name match both env patterns ('*', '?'; case ignored, as deny
 * patterns match)? Dynamic programming over both patterns' positions. */
static bool globs_intersect(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	bool *t;
	bool r;

	if (la > 255 || lb > 255)
		return true;   /* cannot tell: assume they meet */
	t = calloc((la + 1) * (lb + 1), sizeof(*t));
	if (!t)
		return true;
#define T(i, j) t[(i) * (lb + 1) + (j)]
	for (size_t i = la + 1; i-- > 0;)
		for (size_t j = lb + 1; j-- > 0;) {
			if (i == la && j == lb)
				T(i, j) = true;
			else if (i < la && a[i] == '*')
				T(i, j) = T(i + 1, j) || (j < lb && T(i, j + 1));
			else if (j < lb && b[j] == '*')
				T(i, j) = T(i, j + 1) || (i < la && T(i + 1, j));
			else if (i < la && j < lb)
				T(i, j) = (a[i] == '?' || b[j] == '?' || upper_c(a[i]) == upper_c(b[j])) &&
				          T(i + 1, j + 1);
		}
	r = T(0, 0);
#undef T
	free(t);
	return r;
}

/* Does a deny PATTERN matter in P: could P let a matching name in? */
static bool deny_matters(const review_policy *p, const char *pattern)
{
	if (p->env_base == ENV_INHERIT)
		return true;
	for (size_t i = 0; i < p->n_env_pass; i++)
		if (globs_intersect(pattern, p->env_pass[i].s))
			return true;
	return false;
}

/* Does P show the host's PATH: a bind at or above it, or root host-ro
 * without a private mount over it? */
static bool host_shows(const review_policy *p, const char *path)
{
	bool covered = false;

	for (size_t i = 0; i < p->n_mounts; i++) {
		const rv_mount *m = &p->mounts[i];

		if (!rv_path_within(path, m->path))
			continue;
		if (m->kind == MNT_RO_BIND)
			return true;
		if (m->kind != MNT_SYMLINK)
			covered = true;
	}
	for (size_t i = 0; i < p->n_writes; i++)
		if (rv_path_within(path, p->writes[i].s))
			return true;
	return p->root == ROOT_HOST_RO && !covered;
}

/* DIR of a rule added to B (or, ADDED false, removed from A), judged by
 * what the other policy shows. */
static enum diff_dir in_context(const review_policy *a, const review_policy *b, const char *rule,
                                bool added, enum diff_dir dir)
{
	const review_policy *other = added ? a : b;
	const char *sp = strchr(rule, ' ');
	char arg[PATH_MAX];

	/* The path: the first argument ("tmpfs /tmp size=64MiB"). */
	snprintf(arg, sizeof(arg), "%.*s", sp ? (int)strcspn(sp + 1, " ") : 0, sp ? sp + 1 : "");

	if (strncmp(rule, "env deny ", 9) == 0)
		return deny_matters(b, rule + 9) ? dir : DIFF_NEUTRAL;
	/* Allowing a call the group allows anyway changes nothing. */
	if (strncmp(rule, "seccomp allow ", 14) == 0)
		return (added ? b : a)->sc_group &&
		       osb_seccomp_group_denies((added ? b : a)->sc_group, rule + 14, NULL) <= 0
		       ? DIFF_NEUTRAL : dir;
	/* A destination listed or no longer listed where the other policy
	 * shares the host's network: it was, or stays, reachable anyway. */
	if (strncmp(rule, "network allow ", 14) == 0)
		return other->net == NET_HOST ? DIFF_NEUTRAL : dir;
	if (strncmp(rule, "ro-bind ", 8) == 0 || strncmp(rule, "tmpfs ", 6) == 0 ||
	    strncmp(rule, "hide ", 5) == 0 || strncmp(rule, "dev ", 4) == 0)
		return host_shows(other, arg) == (strncmp(rule, "ro-bind ", 8) == 0) ? DIFF_NEUTRAL
		                                                                    : dir;
	return dir;
}

static enum diff_dir flip(enum diff_dir d)
{
	return d == DIFF_WIDER ? DIFF_NARROWER : d == DIFF_NARROWER ? DIFF_WIDER : d;
}

static int diff_add(diff_report *r, enum diff_kind kind, enum diff_dir dir, const char *from,
                    const char *from_o, const char *to, const char *to_o)
{
	diff_entry *v = rv_grow(r->v, &r->cap, r->n, sizeof(*v));

	if (!v)
		return -ENOMEM;
	r->v = v;
	v[r->n] = (diff_entry){ kind, dir, from ? strdup(from) : NULL, to ? strdup(to) : NULL,
	                        from_o ? strdup(from_o) : NULL, to_o ? strdup(to_o) : NULL };
	r->n++;
	if ((from && !v[r->n - 1].from) || (to && !v[r->n - 1].to) ||
	    (from_o && !v[r->n - 1].from_origin) || (to_o && !v[r->n - 1].to_origin))
		return -ENOMEM;
	return 0;
}

static ssize_t key_index(char *const *keys, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(keys[i], key) == 0)
			return (ssize_t)i;
	return -1;
}

/* The key of every rule of P (rule_key), into KEYS. */
static int keys_of(const review_policy *p, rv_strv *keys)
{
	int e = 0;

	for (size_t i = 0; i < p->n_rules && e == 0; i++) {
		char *k = rule_key(p->rules[i].text);

		e = k ? rv_strv_push(keys, k) : -ENOMEM;
		free(k);
	}
	return e;
}

/* Where rule I of P came from, as explain writes it. */
static const char *origin_of(const review_policy *p, size_t i, char *buf, size_t size)
{
	rv_origin_str(&p->rules[i].o, buf, size);
	return *buf ? buf : "default";
}

static int diff_views(const review_policy *a, const review_policy *b, const rv_strv *ka,
                      const rv_strv *kb, diff_report *r)
{
	char oa[PATH_MAX + 32], ob[PATH_MAX + 32];
	int e = 0;

	for (size_t i = 0; i < a->n_rules && e == 0; i++) {
		ssize_t j = key_index(kb->v, kb->n, ka->v[i]);
		const rv_rule *ra = &a->rules[i];

		if (j < 0)
			e = diff_add(r, DIFF_REMOVED, in_context(a, b, ra->text, false,
			                                         flip(added_dir(ra->text))), ra->text,
			             origin_of(a, i, oa, sizeof(oa)), NULL, NULL);
		else if (strcmp(ra->text, b->rules[j].text) != 0)
			e = diff_add(r, DIFF_CHANGED, changed_dir(ka->v[i], ra->text, b->rules[j].text,
			                                          ra->value, b->rules[j].value),
			             ra->text, origin_of(a, i, oa, sizeof(oa)), b->rules[j].text,
			             origin_of(b, (size_t)j, ob, sizeof(ob)));
	}
	for (size_t j = 0; j < b->n_rules && e == 0; j++)
		if (key_index(ka->v, ka->n, kb->v[j]) < 0)
			e = diff_add(r, DIFF_ADDED, in_context(a, b, b->rules[j].text, true,
			                                       added_dir(b->rules[j].text)), NULL, NULL,
			             b->rules[j].text, origin_of(b, j, ob, sizeof(ob)));
	return e;
}

int diff_policies(const review_policy *a, const review_policy *b, diff_report *r)
{
	rv_strv ka = { 0 }, kb = { 0 };
	int e;

	memset(r, 0, sizeof(*r));
	if ((e = keys_of(a, &ka)) == 0 && (e = keys_of(b, &kb)) == 0)
		e = diff_views(a, b, &ka, &kb, r);
	rv_strv_free(&ka);
	rv_strv_free(&kb);
	if (e < 0)
		diff_report_free(r);
	return e;
}

void diff_report_free(diff_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].from);
		free(r->v[i].to);
		free(r->v[i].from_origin);
		free(r->v[i].to_origin);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}

const char *diff_dir_name(enum diff_dir d)
{
	return d == DIFF_WIDER ? "wider" : d == DIFF_NARROWER ? "narrower" : "neutral";
}


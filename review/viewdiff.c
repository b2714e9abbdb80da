/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* viewdiff.c — how the effective view changes between two policies
 * (viewdiff.h; osb-isolate(1), "DIFF").
 *
 * Where diff.c compares rules, this compares what they make: each host
 * path a reviewer cares about (the host's top-level entries, the areas the
 * audit weighs, daemon sockets, every path a rule of either policy names)
 * read through view_at() on both sides, then the scalars and the effective
 * sets behind them (the environment's well-known secrets, the calls the
 * filter lets through). A path whose change its nearest listed ancestor
 * already shows, decided by the same rules, is not repeated.
 */
#include "viewdiff.h"
#include "common.h"
#include "exposure.h"
#include "view.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>

static const char *const fixed_paths[] = {
	"/usr", "/etc", "/bin", "/sbin", "/lib", "/lib64", "/home", "/root", "/var", "/srv", "/opt",
	"/mnt", "/media", "/boot", "/sys", "/run", "/tmp", "/var/tmp", "/dev", "/dev/shm", "/proc",
	"/run/secrets",
};

static int delta_add(view_deltas *d, const char *aspect, enum diff_dir dir, const char *from_o,
                     const char *to_o, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static int delta_add(view_deltas *d, const char *aspect, enum diff_dir dir, const char *from_o,
                     const char *to_o, const char *fmt, ...)
{
	view_delta *v = rv_grow(d->v, &d->cap, d->n, sizeof(*v));
	va_list ap;

	if (!v)
		return -ENOMEM;
	d->v = v;
	v = &d->v[d->n++];
	va_start(ap, fmt);
	*v = (view_delta){ strdup(aspect), rv_vfmt(fmt, ap), dir, from_o ? strdup(from_o) : NULL,
	                   to_o ? strdup(to_o) : NULL };
	va_end(ap);
	return v->aspect && v->change && (!from_o || v->from_origin) && (!to_o || v->to_origin)
	       ? 0 : -ENOMEM;
}

/* "RULE (FILE:LINE)", "RULE (default)". */
static void rule_at(const char *rule, const rv_origin *o, char *buf, size_t size)
{
	char at[PATH_MAX + 32];

	rv_origin_str(o, at, sizeof(at));
	if (snprintf(buf, size, "%s (%s)", rule, *at ? at : "default") < 0)
		buf[0] = '\0';
}

static void view_at_str(const review_policy *p, const rv_view *v, char *buf, size_t size)
{
	char rule[PATH_MAX + 32];

	view_rule_str(p, v, rule, sizeof(rule));
	rule_at(rule, &v->o, buf, size);
}

static enum diff_dir dir_of(long a, long b)
{
	return a == b ? DIFF_NEUTRAL : b > a ? DIFF_WIDER : DIFF_NARROWER;
}

/* ---- paths ---------------------------------------------------------------------------- */

static int push_rule_paths(const review_policy *p, rv_strv *c)
{
	const rv_str *lists[] = { p->writes, p->write_roots, p->read_roots, p->read_only };
	const size_t ns[] = { p->n_writes, p->n_write_roots, p->n_read_roots, p->n_read_only };
	int e = 0;

	for (size_t i = 0; i < p->n_mounts && e == 0; i++)
		e = rv_strv_push(c, rv_run_alias(p->mounts[i].path));
	for (size_t l = 0; l < ARRAY_SIZE(lists); l++)
		for (size_t i = 0; i < ns[l] && e == 0; i++)
			e = rv_strv_push(c, rv_run_alias(lists[l][i].s));
	/* What a caller may grant beneath a root: "/srv/ *" stands for any
	 * path there (no rule names a '*': paths take no globs). */
	for (size_t l = 1; l < 3; l++)
		for (size_t i = 0; i < ns[l] && e == 0; i++) {
			char *any = rv_fmt("%s/*", rv_run_alias(lists[l][i].s));

			e = any ? rv_strv_push(c, any) : -ENOMEM;
			free(any);
		}
	return e;
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Every path worth comparing, sorted, each once. */
static int candidates(const review_policy *a, const review_policy *b, const audit_host *h,
                      rv_strv *c)
{
	int e = 0;
	size_t k = 0;

	for (size_t i = 0; i < ARRAY_SIZE(fixed_paths) && e == 0; i++)
		e = rv_strv_push(c, fixed_paths[i]);
	for (size_t i = 0; i < N_DAEMON_SOCKETS && e == 0; i++)
		e = rv_strv_push(c, daemon_sockets[i]);
	for (size_t i = 0; h && i < h->n_top && e == 0; i++)
		e = rv_strv_push(c, h->top[i]);
	if (e == 0 && (e = push_rule_paths(a, c)) == 0)
		e = push_rule_paths(b, c);
	if (e < 0 || c->n == 0)
		return e;
	qsort(c->v, c->n, sizeof(*c->v), cmp_str);
	for (size_t i = 0; i < c->n; i++) {
		if (k && strcmp(c->v[k - 1], c->v[i]) == 0)
			free(c->v[i]);
		else
			c->v[k++] = c->v[i];
	}
	c->n = k;
	c->v[k] = NULL;
	return 0;
}

/* What is compared at a path: access, and whether only a caller's grant
 * gives it (a little less than the policy giving it). */
static long rank(const rv_view *v)
{
	return (long)v->acc * 2 + (v->acc != RV_NONE && !v->granted);
}

typedef struct seen_delta {
	const char *path;
	rv_view a, b;
} seen_delta;

static bool same_rule(const rv_view *x, const rv_view *y)
{
	return strcmp(x->kind, y->kind) == 0 &&
	       (x->path == y->path || (x->path && y->path && strcmp(x->path, y->path) == 0));
}

/* Does the nearest shown ancestor of PATH change the same way, by the same
 * rules? */
static bool implied(const seen_delta *seen, size_t n, const char *path, const rv_view *va,
                    const rv_view *vb)
{
	const seen_delta *best = NULL;

	for (size_t i = 0; i < n; i++)
		if (rv_within(path, seen[i].path) && strcmp(path, seen[i].path) != 0 &&
		    (!best || strlen(seen[i].path) > strlen(best->path)))
			best = &seen[i];
	return best && rank(&best->a) == rank(va) && rank(&best->b) == rank(vb) &&
	       same_rule(&best->a, va) && same_rule(&best->b, vb);
}

static int path_delta(const review_policy *a, const review_policy *b, const char *path,
                      const rv_view *va, const rv_view *vb, view_deltas *d)
{
	char fa[PATH_MAX + 64], fb[PATH_MAX + 64];
	enum rv_access top = va->acc > vb->acc ? va->acc : vb->acc;
	const char *aspect = top == RV_RW ? "writable" : "readable";
	enum diff_dir dir = dir_of(rank(va), rank(vb));

	view_at_str(a, va, fa, sizeof(fa));
	view_at_str(b, vb, fb, sizeof(fb));
	if (va->acc != vb->acc)
		return delta_add(d, aspect, dir, fa, fb, "%c%s%s", vb->acc > va->acc ? '+' : '-', path,
		                 vb->acc > va->acc && vb->granted ? " (a caller's grant)" : "");
	if (vb->granted)
		return delta_add(d, aspect, dir, fa, fb, "-%s (now only a caller could grant it)", path);
	return delta_add(d, aspect, dir, fa, fb, "+%s (before, only a caller could grant it)", path);
}

static int diff_paths(const review_policy *a, const review_policy *b, const audit_host *h,
                      view_deltas *d)
{
	rv_strv c = { 0 };
	seen_delta *seen = NULL;
	size_t n_seen = 0;
	int e = candidates(a, b, h, &c);

	if (e == 0 && c.n && !(seen = calloc(c.n, sizeof(*seen))))
		e = -ENOMEM;
	for (size_t i = 0; i < c.n && e == 0; i++) {
		rv_view va = view_at(a, c.v[i], true), vb = view_at(b, c.v[i], true);

		if (rank(&va) == rank(&vb))
			continue;
		if (!implied(seen, n_seen, c.v[i], &va, &vb))
			e = path_delta(a, b, c.v[i], &va, &vb, d);
		seen[n_seen++] = (seen_delta){ c.v[i], va, vb };
	}
	free(seen);
	rv_strv_free(&c);
	return e;
}

/* ---- scalars ------------------------------------------------------------------------- */

static int scalar_delta(view_deltas *d, const char *aspect, const char *wa, const rv_origin *oa,
                        const char *wb, const rv_origin *ob, enum diff_dir dir)
{
	char fa[PATH_MAX + 64], fb[PATH_MAX + 64], ra[128], rb[128];

	snprintf(ra, sizeof(ra), "%s %s", aspect, wa);
	snprintf(rb, sizeof(rb), "%s %s", aspect, wb);
	rule_at(ra, oa, fa, sizeof(fa));
	rule_at(rb, ob, fb, sizeof(fb));
	return delta_add(d, aspect, dir, fa, fb, "%s \u2192 %s", wa, wb);
}

/* How much of the network a mode lets the sandbox reach: loopback only,
 * the listed destinations through the filtering proxy, the host's. */
static long net_rank(enum net_mode m)
{
	return m == NET_NONE ? 0 : m == NET_ALLOW ? 1 : 2;
}

static bool has_entry(const review_policy *p, const char *s)
{
	for (size_t i = 0; i < p->n_net_allow; i++)
		if (strcmp(p->net_allow[i].s, s) == 0)
			return true;
	return false;
}

/* Between two allowlists: each destination one side lists and the other
 * does not, with the rule that lists it. */
static int diff_allow_entries(const review_policy *a, const review_policy *b, view_deltas *d)
{
	char at[PATH_MAX + 64], rule[600];
	int e = 0;

	for (size_t i = 0; e == 0 && i < a->n_net_allow; i++)
		if (!has_entry(b, a->net_allow[i].s)) {
			snprintf(rule, sizeof(rule), "network allow %s", a->net_allow[i].s);
			rule_at(rule, &a->net_allow[i].o, at, sizeof(at));
			e = delta_add(d, "network", DIFF_NARROWER, at, NULL, "reachable: -%s",
			              a->net_allow[i].s);
		}
	for (size_t i = 0; e == 0 && i < b->n_net_allow; i++)
		if (!has_entry(a, b->net_allow[i].s)) {
			snprintf(rule, sizeof(rule), "network allow %s", b->net_allow[i].s);
			rule_at(rule, &b->net_allow[i].o, at, sizeof(at));
			e = delta_add(d, "network", DIFF_WIDER, NULL, at, "reachable: +%s",
			              b->net_allow[i].s);
		}
	return e;
}

static int diff_network(const review_policy *a, const review_policy *b, view_deltas *d)
{
	int e = 0;

	if (a->net != b->net)
		e = scalar_delta(d, "network", rv_net_words[a->net], &a->net_set.o, rv_net_words[b->net],
		                 &b->net_set.o, dir_of(net_rank(a->net), net_rank(b->net)));
	else if (a->net == NET_ALLOW)
		e = diff_allow_entries(a, b, d);
	if (e == 0 && a->caller_net.set != b->caller_net.set)
		e = delta_add(d, "network", b->caller_net.set ? DIFF_WIDER : DIFF_NARROWER, NULL, NULL,
		              "%s", b->caller_net.set ? "a caller may turn on the host network "
		              "(allow-caller network)" : "a caller may no longer turn on the host network");
	if (e == 0 && a->ws_mode != b->ws_mode)
		e = scalar_delta(d, "workspace", rv_ws_words[a->ws_mode], &a->ws_set.o,
		                 rv_ws_words[b->ws_mode], &b->ws_set.o,
		                 dir_of(rv_ws_rank(a->ws_mode), rv_ws_rank(b->ws_mode)));
	return e;
}

/* The names of the well-known secrets that pass under IN and not under
 * OUT, as "A, B, ..." into BUF (at most five named); empty when none. */
static void passing_only(const review_policy *in, const review_policy *out, char *buf,
                         size_t size)
{
	size_t n = 0, used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < secret_sample_count() && used < size; i++) {
		const char *s = secret_sample(i);
		int w = 0;

		if (!env_passes(in, s) || env_passes(out, s))
			continue;
		if (n < 5)
			w = snprintf(buf + used, size - used, "%s%s", n ? ", " : "", s);
		else if (n == 5)
			w = snprintf(buf + used, size - used, ", ...");
		n++;
		used += w > 0 ? (size_t)w : 0;
	}
}

/* The well-known secrets that pass on one side only. */
static int diff_env(const review_policy *a, const review_policy *b, view_deltas *d)
{
	char plus[256], minus[256];
	int e = 0;

	if (a->env_base != b->env_base)
		e = scalar_delta(d, "env", rv_env_words[a->env_base], &a->env_base_set.o,
		                 rv_env_words[b->env_base], &b->env_base_set.o,
		                 dir_of(a->env_base, b->env_base));
	passing_only(b, a, plus, sizeof(plus));
	passing_only(a, b, minus, sizeof(minus));
	if (e == 0 && plus[0])
		e = delta_add(d, "environment", DIFF_WIDER, NULL, NULL, "+%s", plus);
	if (e == 0 && minus[0])
		e = delta_add(d, "environment", DIFF_NARROWER, NULL, NULL, "-%s", minus);
	return e;
}

/* Is the call NAME let through by P's effective filter? */
static bool call_allowed(const review_policy *p, const char *name)
{
	if (p->sc_mode == SC_NONE || !p->sc_group)
		return true;
	for (size_t i = 0; i < p->n_sc_rules; i++)
		if (strcmp(p->sc_rules[i].name, name) == 0)
			return p->sc_rules[i].allow;
	return osb_seccomp_group_denies(p->sc_group, name, NULL) <= 0;
}

/* "seccomp none" grants most, then each group older than the newest. */
static long filter_rank(const review_policy *p)
{
	int g = p->sc_group ? rv_group_index(p->sc_group, NULL) : -1;

	return p->sc_mode == SC_NONE ? LONG_MAX : g < 0 ? LONG_MAX - 1 : rv_group_newest() - g;
}

static int diff_calls(const review_policy *a, const review_policy *b, const review_policy *from,
                      view_deltas *d)
{
	int e = 0;

	for (size_t i = 0; i < from->n_sc_rules && e == 0; i++) {
		const char *name = from->sc_rules[i].name;
		bool pa = call_allowed(a, name), pb = call_allowed(b, name);
		bool dup = false;

		for (size_t j = 0; from == b && j < a->n_sc_rules && !dup; j++)
			dup = strcmp(a->sc_rules[j].name, name) == 0;
		if (pa != pb && !dup)
			e = delta_add(d, "seccomp", pb ? DIFF_WIDER : DIFF_NARROWER, NULL, NULL,
			              "%c%s let through", pb ? '+' : '-', name);
	}
	return e;
}

static int diff_seccomp(const review_policy *a, const review_policy *b, view_deltas *d)
{
	const char *ga = a->sc_mode == SC_NONE || !a->sc_group ? "none" : a->sc_group;
	const char *gb = b->sc_mode == SC_NONE || !b->sc_group ? "none" : b->sc_group;
	int e = 0;

	if (strcmp(ga, gb) != 0)
		e = scalar_delta(d, "seccomp", ga, &a->sc_mode_set.o, gb, &b->sc_mode_set.o,
		                 filter_rank(a) == filter_rank(b) ? DIFF_NEUTRAL
		                 : filter_rank(b) > filter_rank(a) ? DIFF_WIDER : DIFF_NARROWER);
	if (e == 0 && a->sc_mode != SC_NONE && b->sc_mode != SC_NONE &&
	    (e = diff_calls(a, b, a, d)) == 0)
		e = diff_calls(a, b, b, d);
	if (e == 0 && a->landlock != b->landlock) {
		static const long ll_rank[] = { [LL_REQUIRED] = 0, [LL_AUTO] = 1, [LL_OFF] = 2 };

		e = scalar_delta(d, "landlock", rv_ll_words[a->landlock], &a->landlock_set.o,
		                 rv_ll_words[b->landlock], &b->landlock_set.o,
		                 dir_of(ll_rank[a->landlock], ll_rank[b->landlock]));
	}
	return e;
}

/* ---- limits and identity ---------------------------------------------------------------- */

/* V in the largest of UNITS (each FACTOR times the one before, the first
 * V's own) that divides it: "15m", "2GiB". */
static void in_unit(unsigned long long v, const char *const *units, const unsigned *factor,
                    size_t n, char *buf, size_t size)
{
	size_t u = 0;

	while (u + 1 < n && v && v % factor[u + 1] == 0) {
		v /= factor[u + 1];
		u++;
	}
	snprintf(buf, size, "%llu%s", v, units[u]);
}

static void limit_str(const review_policy *p, int k, char *buf, size_t size)
{
	static const char *const times[] = { "ms", "s", "m", "h" }, *const sizes[] = { "B", "KiB",
	                                                                                 "MiB", "GiB" };
	static const unsigned t_f[] = { 1, 1000, 60, 60 }, s_f[] = { 1, 1024, 1024, 1024 };
	unsigned long long v = p->limits[k];
	char num[48];

	if (!p->limit_set[k].set || v == UINT64_MAX) {
		snprintf(buf, size, "unlimited");
		return;
	}
	if (k == LIM_CPU)   /* thousandths of a CPU */
		snprintf(num, sizeof(num), "%llu.%03llu", v / 1000, v % 1000);
	else if (k == LIM_WALL)
		in_unit(v, times, t_f, 4, num, sizeof(num));
	else if (k == LIM_CPUTIME)
		in_unit(v, times + 1, t_f + 1, 3, num, sizeof(num));
	else if (k == LIM_AS || k == LIM_FSIZE || k == LIM_OUTPUT || k == LIM_MEMORY)
		in_unit(v, sizes, s_f, 4, num, sizeof(num));
	else
		snprintf(num, sizeof(num), "%llu", v);
	snprintf(buf, size, "%s%s", num, p->limit_best_effort[k] ? " best-effort" : "");
}

/* A higher rank grants more: unlimited, then a best-effort bound, then the
 * bound's value. */
static long double limit_rank(const review_policy *p, int k)
{
	if (!p->limit_set[k].set || p->limits[k] == UINT64_MAX)
		return 4e19L;
	return (long double)p->limits[k] + (p->limit_best_effort[k] ? 2e19L : 0);
}

static int diff_limits(const review_policy *a, const review_policy *b, view_deltas *d)
{
	int e = 0;

	for (int k = 0; k < LIM__COUNT && e == 0; k++) {
		char sa[64], sb[64], aspect[32];
		long double ra = limit_rank(a, k), rb = limit_rank(b, k);

		limit_str(a, k, sa, sizeof(sa));
		limit_str(b, k, sb, sizeof(sb));
		if (strcmp(sa, sb) == 0)
			continue;
		snprintf(aspect, sizeof(aspect), "limit %s", rv_limit_names[k]);
		e = scalar_delta(d, aspect, sa, &a->limit_set[k].o, sb, &b->limit_set[k].o,
		                 ra == rb ? DIFF_NEUTRAL : rb > ra ? DIFF_WIDER : DIFF_NARROWER);
	}
	return e;
}

static int diff_identity(const audit_report *ra, const audit_report *rb, view_deltas *d)
{
	for (size_t k = 0; k < ra->n && k < rb->n; k++) {
		const audit_item *x = &ra->v[k], *y = &rb->v[k];

		if (strcmp(x->name, "identity") != 0 || strcmp(x->detail, y->detail) == 0)
			continue;
		return delta_add(d, "identity", dir_of(x->points, y->points), NULL, NULL,
		                 "%s \u2192 %s", x->detail, y->detail);
	}
	return 0;
}

int diff_view(const review_policy *a, const review_policy *b, const audit_host *h,
              view_deltas *d)
{
	audit_report ra = { 0 }, rb = { 0 };
	int e;

	memset(d, 0, sizeof(*d));
	if ((e = diff_paths(a, b, h, d)) == 0 && (e = diff_network(a, b, d)) == 0 &&
	    (e = diff_env(a, b, d)) == 0 && (e = diff_seccomp(a, b, d)) == 0 &&
	    (e = diff_limits(a, b, d)) == 0 && (e = audit_policy_on(a, h, &ra)) == 0 &&
	    (e = audit_policy_on(b, h, &rb)) == 0)
		e = diff_identity(&ra, &rb, d);
	audit_report_free(&ra);
	audit_report_free(&rb);
	if (e < 0)
		view_deltas_free(d);
	return e;
}

void view_deltas_free(view_deltas *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].aspect);
		free(d->v[i].change);
		free(d->v[i].from_origin);
		free(d->v[i].to_origin);
	}
	free(d->v);
	memset(d, 0, sizeof(*d));
}

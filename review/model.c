/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* model.c — the reviewer tools' model of a policy (model.h), from the
 * library's introspection API.
 *
 * Each rule the library reports (osb_policy_rules) lands where its
 * directive says: a scalar with its origin, or an entry of a list at the
 * place the policy declared it (osb_rule.order), so that "the first rule
 * that shows a path" means what it meant to the policy's author. Values come
 * typed (a limit in its unit, a deny rule's errno), so nothing is parsed
 * here but whole numbers the canonical form spells plainly (ids).
 */
#include "model.h"
#include "common.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *const rv_root_words[2] = { [ROOT_HOST_RO] = "host-ro", [ROOT_NONE] = "none" };
const char *const rv_ws_words[4] = { [WS_NONE] = "none", [WS_RO] = "ro", [WS_RW] = "rw",
                                     [WS_OVERLAY] = "overlay" };

unsigned rv_ws_rank(enum ws_mode m)
{
	static const unsigned rank[] = { [WS_NONE] = 0, [WS_RO] = 1, [WS_OVERLAY] = 2, [WS_RW] = 3 };

	return rank[m];
}
const char *const rv_net_words[3] = { [NET_NONE] = "none", [NET_HOST] = "host",
                                      [NET_ALLOW] = "allow" };
const char *const rv_env_words[2] = { [ENV_CLEAR] = "clear", [ENV_INHERIT] = "inherit" };
const char *const rv_id_words[3] = { [ID_AUTO] = "auto", [ID_USERNS] = "userns",
                                     [ID_ROOT] = "root" };
const char *const rv_ll_words[3] = { [LL_AUTO] = "auto", [LL_REQUIRED] = "required",
                                     [LL_OFF] = "off" };
const char *const rv_mount_words[6] = {
	[MNT_RO_BIND] = "ro-bind", [MNT_TMPFS] = "tmpfs", [MNT_HIDE] = "hide",
	[MNT_DEV] = "dev", [MNT_PROC] = "proc", [MNT_SYMLINK] = "symlink",
};
const char *const rv_limit_names[LIM__COUNT] = {
	[LIM_WALL] = "wall", [LIM_CPUTIME] = "cputime", [LIM_AS] = "as", [LIM_NOFILE] = "nofile",
	[LIM_FSIZE] = "fsize", [LIM_NPROC] = "nproc", [LIM_OUTPUT] = "output",
	[LIM_MEMORY] = "memory", [LIM_PIDS] = "pids", [LIM_CPU] = "cpu",
};

/* The index of WORD in WORDS, or -1. */
static int word_index(const char *word, const char *const *words, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(word, words[i]) == 0)
			return (int)i;
	return -1;
}

int rv_group_index(const char *name, bool *denies_unknown)
{
	const char *g;
	int d = 0;

	for (size_t i = 0; (g = osb_seccomp_group(i, &d)); i++)
		if (strcmp(g, name) == 0) {
			if (denies_unknown)
				*denies_unknown = d != 0;
			return (int)i;
		}
	return -1;
}

int rv_group_newest(void)
{
	size_t n = 0;

	while (osb_seccomp_group(n, NULL))
		n++;
	return (int)n - 1;
}

/* R's origin, with the model's copy of its text (the library's lives only
 * during the walk). */
static rv_origin origin_of(const review_policy *m, const osb_rule *r)
{
	return (rv_origin){ r->file, r->line, r->depth, m->cur_rule };
}

/* The room a list of N entries has: every list here grows only through
 * grow_to(), in powers of two, so its capacity follows from its length and
 * growing stays amortized O(1) whatever the allocator does with a realloc
 * of a large block (one entry at a time was quadratic where every realloc
 * copies, as under AddressSanitizer: 60,000 env pass lines took minutes). */
static size_t room(size_t n)
{
	size_t c = 8;

	if (n == 0)
		return 0;
	while (c < n)
		c *= 2;
	return c;
}

/* ARR (N entries of SIZE) with room for WANT, or NULL (ARR unchanged). */
static void *grow_to(void *arr, size_t n, size_t want, size_t size)
{
	return want <= room(n) ? arr : reallocarray(arr, room(want), size);
}

/* Put a copy of S at R's place in the list *V (grown to hold it). The
 * library reports each place once, so the list ends up dense. */
static int list_put(const review_policy *m, rv_str **v, size_t *n, const osb_rule *r,
                    const char *s)
{
	size_t at = r->order, want = at + 1 > *n ? at + 1 : *n;
	rv_str *nv = grow_to(*v, *n, want, sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	memset(nv + *n, 0, (want - *n) * sizeof(*nv));
	*v = nv;
	*n = want;
	free(nv[at].s);
	nv[at] = (rv_str){ strdup(s), origin_of(m, r) };
	return nv[at].s ? 0 : -ENOMEM;
}

static int mount_put(review_policy *m, const osb_rule *r, enum mount_kind kind)
{
	size_t at = r->order, want = at + 1 > m->n_mounts ? at + 1 : m->n_mounts;
	rv_mount *nv = grow_to(m->mounts, m->n_mounts, want, sizeof(*nv));
	bool link = kind == MNT_SYMLINK;

	if (!nv || r->n_args < (link ? 2u : 1u))
		return nv ? -EINVAL : -ENOMEM;
	memset(nv + m->n_mounts, 0, (want - m->n_mounts) * sizeof(*nv));
	m->mounts = nv;
	m->n_mounts = want;
	nv[at] = (rv_mount){ kind, strdup(r->args[link ? 1 : 0]), origin_of(m, r),
	                     link ? strdup(r->args[0]) : NULL, kind == MNT_TMPFS ? r->value : 0 };
	return nv[at].path && (!link || nv[at].target) ? 0 : -ENOMEM;
}

static int sc_put(review_policy *m, const osb_rule *r, bool allow)
{
	size_t at = r->order, want = at + 1 > m->n_sc_rules ? at + 1 : m->n_sc_rules;
	rv_sc *nv;

	if (r->n_args < 2)
		return -EINVAL;
	if (!(nv = grow_to(m->sc_rules, m->n_sc_rules, want, sizeof(*nv))))
		return -ENOMEM;
	memset(nv + m->n_sc_rules, 0, (want - m->n_sc_rules) * sizeof(*nv));
	m->sc_rules = nv;
	m->n_sc_rules = want;
	nv[at] = (rv_sc){ strdup(r->args[1]), allow, allow ? 0 : (int)r->value, origin_of(m, r) };
	return nv[at].name ? 0 : -ENOMEM;
}

/* A keyword scalar: its word's index into *OUT, its origin into *SET. */
static int keyword_put(const review_policy *m, const osb_rule *r, const char *const *words,
                       size_t n, int *out,
                       rv_set *set)
{
	int k = r->n_args ? word_index(r->args[0], words, n) : -1;

	if (k < 0)
		return -EINVAL;
	*out = k;
	*set = (rv_set){ true, origin_of(m, r) };
	return 0;
}

static int ids_put(const review_policy *m, const osb_rule *r, size_t first, uint32_t *uid,
                   uint32_t *gid, rv_set *set)
{
	if (r->n_args < first + 2)
		return -EINVAL;
	*uid = (uint32_t)strtoul(r->args[first], NULL, 10);
	*gid = (uint32_t)strtoul(r->args[first + 1], NULL, 10);
	*set = (rv_set){ true, origin_of(m, r) };
	return 0;
}

static int env_put(review_policy *m, const osb_rule *r)
{
	int k;

	if (r->n_args == 2 && strcmp(r->args[0], "pass") == 0)
		return list_put(m, &m->env_pass, &m->n_env_pass, r, r->args[1]);
	if (r->n_args == 2 && strcmp(r->args[0], "deny") == 0)
		return list_put(m, &m->env_deny, &m->n_env_deny, r, r->args[1]);
	if (r->n_args == 2 && strcmp(r->args[0], "set") == 0)
		return list_put(m, &m->env_set, &m->n_env_set, r, r->args[1]);
	if (keyword_put(m, r, rv_env_words, 2, &k, &m->env_base_set) < 0)
		return -EINVAL;
	m->env_base = (enum env_base)k;
	return 0;
}

static int seccomp_put(review_policy *m, const osb_rule *r)
{
	if (r->n_args >= 1 && strcmp(r->args[0], "allow") == 0)
		return sc_put(m, r, true);
	if (r->n_args >= 1 && strcmp(r->args[0], "deny") == 0)
		return sc_put(m, r, false);
	if (r->n_args != 1)
		return -EINVAL;
	m->sc_mode_set = (rv_set){ true, origin_of(m, r) };
	m->sc_mode = strcmp(r->args[0], "none") == 0 ? SC_NONE : SC_DEFAULT;
	free(m->sc_group);
	m->sc_group = m->sc_mode == SC_NONE ? NULL : strdup(r->args[0]);
	return m->sc_mode == SC_NONE || m->sc_group ? 0 : -ENOMEM;
}

static int limit_put(review_policy *m, const osb_rule *r)
{
	/* "limit NAME VALUE [best-effort]" */
	bool be = r->n_args == 3 && strcmp(r->args[2], "best-effort") == 0;
	int k = r->n_args == 2 || be ? word_index(r->args[0], rv_limit_names, LIM__COUNT) : -1;

	if (k < 0)
		return -EINVAL;
	m->limits[k] = r->value;
	m->limit_set[k] = (rv_set){ true, origin_of(m, r) };
	m->limit_best_effort[k] = be;
	return 0;
}

static int name_put(char **name, const char *s)
{
	free(*name);
	*name = strdup(s);
	return *name ? 0 : -ENOMEM;
}

/* The scalars whose argument is one keyword: 0, -EINVAL, or 1 when D is
 * none of them. */
static int keyword_scalar(review_policy *m, const osb_rule *r, const char *d)
{
	int k = 0, e;

	if (strcmp(d, "root") == 0) {
		if ((e = keyword_put(m, r, rv_root_words, 2, &k, &m->root_set)) == 0)
			m->root = (enum root_kind)k;
	} else if (strcmp(d, "workspace") == 0) {
		if ((e = keyword_put(m, r, rv_ws_words, 4, &k, &m->ws_set)) == 0)
			m->ws_mode = (enum ws_mode)k;
		if (e == 0 && r->n_args >= 2 && r->args[1][0] == '/')
			e = name_put(&m->ws_dest, r->args[1]);
	} else if (strcmp(d, "network") == 0 && r->n_args == 2 && strcmp(r->args[0], "allow") == 0) {
		/* one rule an entry: the mode is set by the first */
		if (!m->net_set.set || m->net != NET_ALLOW)
			m->net_set = (rv_set){ true, origin_of(m, r) };
		m->net = NET_ALLOW;
		e = list_put(m, &m->net_allow, &m->n_net_allow, r, r->args[1]);
	} else if (strcmp(d, "network") == 0) {
		if ((e = keyword_put(m, r, rv_net_words, 2, &k, &m->net_set)) == 0)
			m->net = (enum net_mode)k;
	} else if (strcmp(d, "identity") == 0) {
		if ((e = keyword_put(m, r, rv_id_words, 3, &k, &m->id_mode_set)) == 0)
			m->id_mode = (enum id_mode)k;
	} else if (strcmp(d, "landlock") == 0) {
		if ((e = keyword_put(m, r, rv_ll_words, 3, &k, &m->landlock_set)) == 0)
			m->landlock = (enum ll_mode)k;
	} else {
		e = 1;
	}
	return e;
}

static int put(review_policy *m, const osb_rule *r)
{
	const char *d = r->directive;
	int k = word_index(d, rv_mount_words, 6), e;

	if (k >= 0)
		return mount_put(m, r, (enum mount_kind)k);
	if ((e = keyword_scalar(m, r, d)) <= 0)
		return e;
	if (strcmp(d, "allow-caller") == 0) {
		m->caller_net = (rv_set){ true, origin_of(m, r) };
		return 0;
	}
	if (strcmp(d, "env") == 0)
		return env_put(m, r);
	if (strcmp(d, "user") == 0 && r->n_args == 3) {
		if ((e = ids_put(m, r, 1, &m->uid, &m->gid, &m->user_set)) < 0)
			return e;
		return name_put(&m->user_name, r->args[0]);
	}
	if (strcmp(d, "host-ids") == 0)
		return ids_put(m, r, 0, &m->host_uid, &m->host_gid, &m->host_ids_set);
	if (strcmp(d, "hostname") == 0 && r->n_args == 1) {
		m->hostname_set = (rv_set){ true, origin_of(m, r) };
		return name_put(&m->hostname, r->args[0]);
	}
	if (strcmp(d, "seccomp") == 0)
		return seccomp_put(m, r);
	if (strcmp(d, "limit") == 0)
		return limit_put(m, r);
	if (r->n_args == 1 && strcmp(d, "write-root") == 0)
		return list_put(m, &m->write_roots, &m->n_write_roots, r, r->args[0]);
	if (r->n_args == 1 && strcmp(d, "read-root") == 0)
		return list_put(m, &m->read_roots, &m->n_read_roots, r, r->args[0]);
	if (r->n_args == 1 && strcmp(d, "write") == 0)
		return list_put(m, &m->writes, &m->n_writes, r, r->args[0]);
	if (r->n_args == 1 && strcmp(d, "read-only") == 0)
		return list_put(m, &m->read_only, &m->n_read_only, r, r->args[0]);
	return -EINVAL;
}

/* Keep the rule as reported (diff, explain --json), then file it. */
static int take(const osb_rule *r, void *arg)
{
	review_policy *m = arg;
	rv_rule *v = grow_to(m->rules, m->n_rules, m->n_rules + 1, sizeof(*v)), *nr;

	if (!v)
		return -ENOMEM;
	m->rules = v;
	nr = &v[m->n_rules++];
	*nr = (rv_rule){ strdup(r->text), strdup(r->directive), calloc(r->n_args + 1, sizeof(char *)),
	                 r->n_args, r->value, origin_of(m, r) };
	if (!nr->text || !nr->directive || !nr->args)
		return -ENOMEM;
	m->cur_rule = nr->text;
	nr->o.rule = nr->text;
	for (size_t i = 0; i < r->n_args; i++)
		if (!(nr->args[i] = strdup(r->args[i])))
			return -ENOMEM;
	return put(m, r);
}

int review_model(const osb_policy *p, review_policy *m)
{
	int r;

	memset(m, 0, sizeof(*m));
	m->pol = p;
	m->n_files = osb_policy_file_count(p);
	m->files = calloc(m->n_files + 1, sizeof(*m->files));
	if (!m->files)
		return -ENOMEM;
	for (size_t i = 0; i < m->n_files; i++)
		m->files[i] = osb_policy_file(p, i);
	r = osb_policy_rules(p, take, m);
	if (r < 0) {
		review_model_free(m);
		return r == -OSB_E_NOMEM ? -ENOMEM : r;
	}
	return 0;
}

static void strs_free(rv_str *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].s);
	free(v);
}

void review_model_free(review_policy *m)
{
	for (size_t i = 0; i < m->n_rules; i++) {
		free(m->rules[i].text);
		free(m->rules[i].directive);
		for (size_t j = 0; m->rules[i].args && j < m->rules[i].n_args; j++)
			free(m->rules[i].args[j]);
		free(m->rules[i].args);
	}
	free(m->rules);
	free(m->files);
	for (size_t i = 0; i < m->n_mounts; i++) {
		free(m->mounts[i].path);
		free(m->mounts[i].target);
	}
	free(m->mounts);
	strs_free(m->env_pass, m->n_env_pass);
	strs_free(m->env_deny, m->n_env_deny);
	strs_free(m->env_set, m->n_env_set);
	strs_free(m->write_roots, m->n_write_roots);
	strs_free(m->read_roots, m->n_read_roots);
	strs_free(m->net_allow, m->n_net_allow);
	strs_free(m->writes, m->n_writes);
	strs_free(m->read_only, m->n_read_only);
	for (size_t i = 0; i < m->n_sc_rules; i++)
		free(m->sc_rules[i].name);
	free(m->sc_rules);
	free(m->user_name);
	free(m->hostname);
	free(m->ws_dest);
	free(m->sc_group);
	memset(m, 0, sizeof(*m));
}

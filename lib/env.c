/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* env.c — the environment the sandboxed command starts with.
 *
 * The plan calls env_build() once per run to turn the policy's env rules and
 * the caller's environment into the exact list bwrap passes after --clearenv.
 * The order of the rules is fixed so that a reviewer can predict the result
 * from the policy alone: base (clear or inherit) ▸ pass ▸ deny ▸ set. Deny
 * beats pass and inherit, because a secret must not leak just because a broad
 * pass pattern or an inherit rule also matches it; set beats deny, because the
 * policy author wrote that value on purpose. Malformed caller entries are
 * dropped rather than forwarded: a name the shell cannot parse is a common
 * smuggling trick and no legitimate program needs it. The output is sorted by
 * name so that two runs with the same inputs produce identical argv.
 */
#include "env.h"
#include "netallow-proxy.h"

#define WORKSPACE_TOKEN "${WORKSPACE}"

/* A valid name is non-empty and only [A-Za-z0-9_]; LEN bytes of S. */
static bool env_name_valid(const char *s, size_t len)
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		      (c >= '0' && c <= '9') || c == '_'))
			return false;
	}
	return true;
}

/* Length of the name of "NAME=VALUE", or 0 when the entry is malformed. */
static size_t env_entry_name_len(const char *entry)
{
	const char *eq = strchr(entry, '=');

	if (!eq || !env_name_valid(entry, (size_t)(eq - entry)))
		return 0;
	return (size_t)(eq - entry);
}

/* NAME must be NUL-terminated: env_pattern_match anchors at both ends. */
static bool name_matches_any(const pol_str *pats, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (env_pattern_match(pats[i].s, name))
			return true;
	return false;
}

static bool deny_matches_any(const pol_str *pats, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (env_deny_match(pats[i].s, name))
			return true;
	return false;
}

static int env_nomem(osb_error *err)
{
	return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "env",
	                   "out of memory while building the sandbox environment");
}

/* Index of the entry named NAME (LEN bytes) in S, or -1. */
static ssize_t env_find(const strv *s, const char *name, size_t len)
{
	for (size_t i = 0; i < s->n; i++)
		if (strncmp(s->v[i], name, len) == 0 && s->v[i][len] == '=')
			return (ssize_t)i;
	return -1;
}

/* Add or replace "NAME=VALUE" (a NAME_LEN-byte name), copying ENTRY. Later
 * entries win, so the last definition of a name is the one kept. */
static int env_upsert(strv *s, const char *entry, size_t name_len)
{
	ssize_t at = env_find(s, entry, name_len);
	char *copy;

	if (at < 0)
		return strv_push(s, entry);
	copy = strdup(entry);
	if (!copy)
		return -ENOMEM;
	free(s->v[at]);
	s->v[at] = copy;
	return 0;
}

/* Copy the caller's entries the base and pass rules admit. */
static int env_take_caller(const osb_policy *p, const char *const *envp, strv *s)
{
	if (!envp)
		return 0;
	for (size_t i = 0; envp[i]; i++) {
		size_t len = env_entry_name_len(envp[i]);
		_cleanup_free_ char *name = NULL;

		if (len == 0)
			continue;
		name = strndup(envp[i], len);
		if (!name)
			return -ENOMEM;
		if (p->env_base == ENV_CLEAR &&
		    !name_matches_any(p->env_pass, p->n_env_pass, name))
			continue;
		if (env_upsert(s, envp[i], len) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Drop every entry whose name matches a deny pattern. */
static int env_apply_deny(const osb_policy *p, strv *s)
{
	size_t kept = 0;

	for (size_t i = 0; i < s->n; i++) {
		size_t len = strcspn(s->v[i], "=");
		_cleanup_free_ char *name = strndup(s->v[i], len);

		if (!name)
			return -ENOMEM;
		if (deny_matches_any(p->env_deny, p->n_env_deny, name))
			free(s->v[i]);
		else
			s->v[kept++] = s->v[i];
	}
	s->n = kept;
	if (s->v)
		s->v[kept] = NULL;
	return 0;
}

/* "file:line" of a rule, for messages; default/api rules have no line. */
static void origin_str(const osb_origin *o, char *buf, size_t size)
{
	const char *file = o->file ? o->file : "default";

	if (o->line)
		snprintf(buf, size, "%s:%u", file, o->line);
	else
		snprintf(buf, size, "%s", file);
}

/* VALUE with every ${WORKSPACE} replaced by WS; NULL on ENOMEM. */
static char *expand_workspace(const char *value, const char *ws)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	const char *at;

	if (!f)
		return NULL;
	while ((at = strstr(value, WORKSPACE_TOKEN))) {
		fwrite(value, 1, (size_t)(at - value), f);
		fputs(ws, f);
		value = at + strlen(WORKSPACE_TOKEN);
	}
	fputs(value, f);
	if (ferror(f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int env_apply_one_set(const pol_str *rule, const char *ws, strv *s,
                             osb_error *err)
{
	size_t len = env_entry_name_len(rule->s);
	char where[512];
	_cleanup_free_ char *entry = NULL;

	if (len == 0) {
		origin_str(&rule->o, where, sizeof(where));
		return osb_err_set(err, OSB_E_POLICY, 0, "env",
		                   "%s: env set \"%s\" is not NAME=VALUE with a name of "
		                   "letters, digits and '_'; fix the rule", where, rule->s);
	}
	if (strstr(rule->s + len + 1, WORKSPACE_TOKEN) && !ws) {
		origin_str(&rule->o, where, sizeof(where));
		return osb_err_set(err, OSB_E_POLICY, 0, "env",
		                   "%s: env set %.*s uses ${WORKSPACE} but this run has no "
		                   "workspace; add a workspace rule or remove ${WORKSPACE}",
		                   where, (int)len, rule->s);
	}
	entry = ws ? expand_workspace(rule->s, ws) : strdup(rule->s);
	if (!entry || env_upsert(s, entry, len) < 0)
		return env_nomem(err);
	return 0;
}

static int env_cmp(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t lx = strcspn(x, "="), ly = strcspn(y, "=");
	int c = memcmp(x, y, lx < ly ? lx : ly);

	if (c)
		return c;
	return (lx > ly) - (lx < ly);
}

int env_build(const osb_policy *p, const char *const *envp,
              const char *workspace_dest, strv *out, osb_error *err)
{
	strv s = { 0 };
	int r;

	if (!p || !out)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "env",
		                   "env_build needs a policy and an output vector");
	if (env_take_caller(p, envp, &s) < 0 || env_apply_deny(p, &s) < 0) {
		strv_free(&s);
		return env_nomem(err);
	}
	for (size_t i = 0; i < p->n_env_set; i++) {
		r = env_apply_one_set(&p->env_set[i], workspace_dest, &s, err);
		if (r < 0) {
			strv_free(&s);
			return r;
		}
	}
	/* "network allow": the way out is the proxy (netallow-proxy.h). */
	if (p->net == NET_ALLOW && netproxy_env(&s) < 0) {
		strv_free(&s);
		return env_nomem(err);
	}
	/* An empty environment is still a valid NULL-terminated vector. */
	if (!s.v) {
		s.v = calloc(1, sizeof(*s.v));
		if (!s.v)
			return env_nomem(err);
		s.cap = 1;
	}
	qsort(s.v, s.n, sizeof(*s.v), env_cmp);
	*out = s;
	return 0;
}

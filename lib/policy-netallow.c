/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* policy-netallow.c — narrowing a network allowlist (policy-netallow.h).
 *
 * A caller of a reviewed policy may keep fewer destinations, never more:
 * each entry it keeps must be covered by an entry of the policy (an exact
 * name by itself or by a "*.suffix" above it, a network by a shorter
 * prefix, a port by the same port or by "any"), so that what the reviewer
 * approved stays an upper bound. "network host" may be narrowed to an
 * allowlist; "network none" may not be widened to one.
 */
#include "policy-netallow.h"
#include "netallow.h"

static int check_one(const osb_policy *p, const char *text, const char *what, int usage_code,
                     osb_error *err)
{
	char o[POLICY_ORIGIN_MAX];
	na_entry e, pe;
	const char *why;

	if (!text || (why = netallow_parse(text, &e)) != NULL)
		return osb_err_set(err, usage_code, EINVAL, "policy", "%s: invalid network allow entry "
		                   "\"%.*s\": %s", what, 96, text ? text : "(null)",
		                   text ? why : "a string is expected");
	if (p->net == NET_HOST)
		return 0;
	for (size_t i = 0; p->net == NET_ALLOW && i < p->n_net_allow; i++) {
		netallow_parse(p->net_allow[i].s, &pe);
		if (netallow_covers(&pe, &e))
			return 0;
	}
	policy_origin_format(&p->net_set.o, o, sizeof(o));
	if (p->net == NET_NONE)
		return osb_err_set(err, OSB_E_POLICY, 0, "policy", "%s: \"%s\" is refused: the policy "
		                   "has \"network none\" (%s), and a caller only narrows the network",
		                   what, text, o);
	return osb_err_set(err, OSB_E_POLICY, 0, "policy", "%s: \"%s\" is refused: no entry of the "
	                   "policy's \"network allow\" covers it (a caller may keep entries of the "
	                   "list, or narrower ones, never add)", what, text);
}

int policy_check_net_allow(const osb_policy *p, const char *const *entries, size_t n,
                           const char *what, int usage_code, osb_error *err)
{
	int r;

	for (size_t i = 0; i < n; i++)
		if ((r = check_one(p, entries[i], what, usage_code, err)) < 0)
			return r;
	return 0;
}

int osb_policy_set_network_allow(osb_policy *p, const char *const *entries, size_t n,
                                 osb_error *err)
{
	int r;

	if (!p || (n && !entries))
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "policy",
		                   "set_network_allow: expected a policy and N entries");
	if ((r = policy_check_net_allow(p, entries, n, "set_network_allow", OSB_E_USAGE, err)) < 0)
		return r;
	return policy_set_net_allow(p, entries, n, err);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(((const pol_str *)a)->s, ((const pol_str *)b)->s);
}

/* Sorted, each entry once (n log n: a request may carry many). */
static size_t sort_unique(pol_str *v, size_t n)
{
	size_t k = 0;

	qsort(v, n, sizeof(*v), str_cmp);
	for (size_t i = 0; i < n; i++) {
		if (k && strcmp(v[k - 1].s, v[i].s) == 0) {
			free(v[i].s);
			continue;
		}
		v[k++] = v[i];
	}
	return k;
}

int policy_set_net_allow(osb_policy *p, const char *const *entries, size_t n, osb_error *err)
{
	pol_str *v = calloc(n ? n : 1, sizeof(*v));
	size_t k;

	if (!v)
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "policy", "out of memory");
	for (size_t i = 0; i < n; i++) {
		char text[NETALLOW_TEXT_MAX];
		na_entry e;

		netallow_parse(entries[i], &e);
		netallow_format(&e, text, sizeof(text));
		if (!(v[i].s = strdup(text))) {
			policy_free_strs(v, i);
			return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "policy", "out of memory");
		}
		v[i].o = policy_api_origin;
	}
	k = sort_unique(v, n);
	policy_free_strs(p->net_allow, p->n_net_allow);
	p->net_allow = k ? v : NULL;
	p->n_net_allow = k;
	if (!k)
		free(v);
	p->net = k ? NET_ALLOW : NET_NONE;
	p->net_set = (pol_set){ true, policy_api_origin };
	return 0;
}

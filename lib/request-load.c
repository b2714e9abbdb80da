/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* request-load.c — an execd request read once (osb_request_load), and the
 * policy's sandbox ids and identity mode set and read by call.
 *
 * A daemon used to read each request three times: its "profile" to pick the
 * baseline, then osb_policy_apply_json, then osb_session_opts_apply_json.
 * Here one reading (request.c) serves all three, so the daemon never parses
 * the request itself and every refusal is the library's, with its message.
 * The profile is a policy name, never a path: a request picks among the
 * baselines the operator installed, it does not name files.
 */
#include "request.h"

#define ID_LIMIT 4294967294u

/* Is NAME one of PROFILES? */
static bool offered(const char *const *profiles, const char *name)
{
	for (size_t i = 0; profiles[i]; i++)
		if (strcmp(profiles[i], name) == 0)
			return true;
	return false;
}

/* "a, b, c" (clipped to the message). */
static void offered_list(const char *const *profiles, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; profiles[i] && used < size; i++) {
		int w = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", profiles[i]);

		used += w > 0 ? (size_t)w : 0;
	}
}

/* The baseline RQ asks for, checked against what the daemon offers. */
static int pick_profile(const request_read *rq, const char *const *profiles, const char **name,
                        osb_error *err)
{
	const char *want = request_profile(rq);
	char list[512];

	if (!want && profiles && profiles[0]) {
		*name = profiles[0];
		return 0;
	}
	if (!want)
		return osb_err_set(err, OSB_E_POLICY, 0, "policy",
		                   "the request names no \"profile\" and no default is offered");
	if (profiles && !offered(profiles, want)) {
		offered_list(profiles, list, sizeof(list));
		return osb_err_set(err, OSB_E_POLICY, 0, "policy",
		                   "\"profile\": \"%s\" is not offered (offered: %s)", want, list);
	}
	if (!*want || strchr(want, '/'))
		return osb_err_set(err, OSB_E_POLICY, 0, "policy",
		                   "\"profile\": \"%s\" is not a policy name (a name without \"/\", as "
		                   "osb_policy_load takes it)", want);
	*name = want;
	return 0;
}

/* The baseline, the host's configuration, then the request. */
static int load_policy(const request_read *rq, const char *name, const osb_config *config,
                       osb_policy **out, osb_error *err)
{
	osb_policy *p = osb_policy_load(name, err);
	int r;

	if (!p)
		return -(err && err->code ? err->code : OSB_E_POLICY);
	if ((config && (r = osb_policy_set_config(p, config, err)) < 0) ||
	    (r = request_apply(p, rq, err)) < 0) {
		osb_policy_free(p);
		return r;
	}
	*out = p;
	return 0;
}

int osb_request_load(const char *json, const char *const *profiles, const osb_config *config,
                     osb_policy **policy, osb_session_opts **opts, osb_error *err)
{
	request_read *rq = NULL;
	const char *name = NULL;
	osb_session_opts *o = NULL;
	osb_policy *p = NULL;
	int r;

	osb_err_clear(err);
	if (policy)
		*policy = NULL;
	if (opts)
		*opts = NULL;
	if (!json || !policy || !opts)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "usage",
		                   "osb_request_load needs a request, a policy and an options pointer");
	if ((r = request_parse(json, &rq, err)) < 0 || (r = pick_profile(rq, profiles, &name, err)) < 0 ||
	    (r = load_policy(rq, name, config, &p, err)) < 0)
		goto out;
	o = osb_session_opts_new();
	if (!o || (request_idle_ms(rq) && osb_session_opts_set_idle_timeout_ms(o, request_idle_ms(rq)) < 0)) {
		r = osb_err_set(err, OSB_E_NOMEM, ENOMEM, "policy", "out of memory");
		goto out;
	}
	*policy = p;
	*opts = o;
	p = NULL;
	o = NULL;
out:
	osb_session_opts_free(o);
	osb_policy_free(p);
	request_free(rq);
	return r;
}

const char *osb_policy_workspace(const osb_policy *p)
{
	return p ? p->ws_path : NULL;
}

/* ---- the sandbox's ids and identity mode ---------------------------------------- */

int osb_policy_set_ids(osb_policy *p, uint32_t uid, uint32_t gid, osb_error *err)
{
	if (!p)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "usage", "osb_policy_set_ids needs a policy");
	/* The same rule as a request's "uid" and "gid": never 0, whatever the
	 * baseline (plan_check_policy refuses 0 again at launch). */
	if (uid == 0 || gid == 0 || uid > ID_LIMIT || gid > ID_LIMIT)
		return osb_err_set(err, OSB_E_POLICY, EINVAL, "policy",
		                   "the sandbox's uid and gid must be non-zero (1 to 4294967294), not "
		                   "%u and %u", uid, gid);
	if (p->uid == uid && p->gid == gid)
		return 0;
	p->uid = uid;
	p->gid = gid;
	p->user_set = (pol_set){ true, policy_api_origin };
	return 0;
}

int osb_policy_ids(const osb_policy *p, uint32_t *uid, uint32_t *gid)
{
	if (!p)
		return -OSB_E_USAGE;
	if (uid)
		*uid = p->uid;
	if (gid)
		*gid = p->gid;
	return 0;
}

int osb_policy_identity_mode(const osb_policy *p)
{
	static const int mode_of[] = { [ID_AUTO] = OSB_IDENTITY_AUTO, [ID_USERNS] = OSB_IDENTITY_USERNS,
	                               [ID_ROOT] = OSB_IDENTITY_ROOT };

	return p ? mode_of[p->id_mode] : -OSB_E_USAGE;
}

const char *osb_identity_mode_name(int mode)
{
	switch (mode) {
	case OSB_IDENTITY_AUTO: return "auto";
	case OSB_IDENTITY_USERNS: return "userns";
	case OSB_IDENTITY_ROOT: return "root";
	}
	return NULL;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* policy.c — a policy's life: loaded or parsed, adjusted by its caller,
 * freed (osb-isolate.policy(5)).
 *
 * The text is read by policy-parse.c; this file holds the entry points and
 * what a caller (the API, the CLI's run options, an execd request through
 * request.c) may change afterwards: it may only narrow the policy, or add
 * what the policy grants callers ("CALLER GRANTS"), and each such rule
 * records its origin as "api". A write grant is checked here lexically
 * against the declared write-roots and read-only paths; the plan checks it
 * again by fd, which is the check that holds.
 */
#include "policy.h"
#include "policy-parse.h"

#include <sys/stat.h>

/* ---- write-roots ---------------------------------------------------------- */

/* "/data, /srv/jobs" (the declared write-roots, in declaration order). */
void policy_roots_list(const osb_policy *p, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < p->n_write_roots && used < size; i++) {
		int w = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", p->write_roots[i].s);

		if (w < 0)
			return;
		used += (size_t)w;
	}
}

const pol_str *policy_root_of(const osb_policy *p, const char *path)
{
	for (size_t i = 0; i < p->n_write_roots; i++)
		if (policy_path_beneath(p->write_roots[i].s, path))
			return &p->write_roots[i];
	return NULL;
}

/* The absolute read-only rule whose path contains PATH, or NULL: a write
 * there would be covered by the re-protection and silently lost. */
static const pol_str *read_only_over(const osb_policy *p, const char *path)
{
	for (size_t i = 0; i < p->n_read_only; i++)
		if (p->read_only[i].s[0] == '/' && (strcmp(p->read_only[i].s, path) == 0 ||
		                                    policy_path_beneath(p->read_only[i].s, path)))
			return &p->read_only[i];
	return NULL;
}

/* Why a write grant of PATH is refused by the declarations of P, written
 * into BUF, or NULL. The same lexical check for policy lines and for the
 * API; the plan repeats it by fd, which is the check that holds. */
const char *policy_write_problem(const osb_policy *p, const char *path, char *buf, size_t size)
{
	const pol_str *ro;
	char o[POLICY_ORIGIN_MAX];

	for (size_t i = 0; i < p->n_write_roots; i++) {
		if (strcmp(p->write_roots[i].s, path) == 0) {
			policy_origin_format(&p->write_roots[i].o, o, sizeof(o));
			snprintf(buf, size, "a write-root itself (%s); only paths beneath a root may be "
			         "granted", o);
			return buf;
		}
	}
	if (!policy_root_of(p, path)) {
		char roots[768];

		policy_roots_list(p, roots, sizeof(roots));
		if (p->n_write_roots)
			snprintf(buf, size, "not beneath a declared write-root (declared: %s)", roots);
		else
			snprintf(buf, size, "not beneath a declared write-root (the policy declares none; "
			         "add \"write-root DIR\" for a directory above it)");
		return buf;
	}
	ro = read_only_over(p, path);
	if (ro) {
		policy_origin_format(&ro->o, o, sizeof(o));
		snprintf(buf, size, "under \"read-only %s\" (%s), which would cover it", ro->s, o);
		return buf;
	}
	return NULL;
}


/* ---- entry points --------------------------------------------------------- */

osb_policy *osb_policy_parse(const char *text, size_t len, const char *filename, osb_error *err)
{
	struct stat st;

	if (!text && len > 0) {
		osb_err_set(err, OSB_E_USAGE, EINVAL, "policy", "osb_policy_parse: text is NULL");
		return NULL;
	}
	if (!filename)
		filename = "<string>";
	/* The file need not exist; if it does, an include of it is a cycle. */
	return policy_parse_text(text ? text : "", len, filename, stat(filename, &st) == 0 ? &st : NULL, err);
}

osb_policy *osb_policy_load(const char *name_or_path, osb_error *err)
{
	_cleanup_free_ char *path = NULL, *text = NULL;
	size_t len = 0;
	struct stat st;
	int r;

	if (!name_or_path || !*name_or_path) {
		osb_err_set(err, OSB_E_USAGE, EINVAL, "policy", "no policy named: pass a policy name or a path");
		return NULL;
	}
	if (strchr(name_or_path, '/')) {
		path = strdup(name_or_path);
	} else if (!policy_bare_name_ok(name_or_path)) {
		osb_err_set(err, OSB_E_USAGE, EINVAL, "policy", "invalid policy name \"%s\" (letters, "
		            "digits, \"_\", \".\" and \"-\"; use a path with a \"/\" for other files)",
		            name_or_path);
		return NULL;
	} else {
		_cleanup_free_ char *fname = policy_file_name(name_or_path);

		if (fname && asprintf(&path, "%s/%s", policy_dir(), fname) < 0)
			path = NULL;
	}
	if (!path) {
		policy_nomem(err);
		return NULL;
	}
	r = read_file_bounded(path, POLICY_MAX_BYTES, &text, &len);
	if (r == 0 && stat(path, &st) < 0)
		r = -errno;
	if (r == -ENOMEM)
		policy_nomem(err);
	else if (r == -EFBIG)
		osb_err_set(err, OSB_E_POLICY, EFBIG, "policy", "%s: policy file is larger than 1 MiB", path);
	else if (r == -EINVAL)
		osb_err_set(err, OSB_E_POLICY, EINVAL, "policy", "%s: not a regular file", path);
	else if (r < 0)
		osb_err_set(err, OSB_E_POLICY, -r, "policy", "%s: cannot read policy: %s", path, strerror(-r));
	if (r < 0)
		return NULL;
	return policy_parse_text(text, len, path, &st, err);
}

void policy_free_strv(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

void policy_free_strs(pol_str *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].s);
	free(v);
}

void osb_policy_free(osb_policy *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_mounts; i++) {
		free(p->mounts[i].path);
		free(p->mounts[i].target);
	}
	free(p->mounts);
	for (size_t i = 0; i < p->n_env_pass; i++)
		free(p->env_pass[i].s);
	free(p->env_pass);
	for (size_t i = 0; i < p->n_env_deny; i++)
		free(p->env_deny[i].s);
	free(p->env_deny);
	for (size_t i = 0; i < p->n_env_set; i++)
		free(p->env_set[i].s);
	free(p->env_set);
	policy_free_strs(p->write_roots, p->n_write_roots);
	policy_free_strs(p->writes, p->n_writes);
	policy_free_strs(p->read_only, p->n_read_only);
	policy_free_strs(p->read_roots, p->n_read_roots);
	policy_free_strs(p->net_allow, p->n_net_allow);
	for (size_t i = 0; i < p->n_ws_roots; i++)
		free(p->ws_roots[i]);
	free(p->ws_roots);
	free(p->ws_roots_from);
	policy_free_strv(p->cg_parents);
	free(p->net_hosts);
	for (size_t i = 0; i < p->n_sc_rules; i++)
		free(p->sc_rules[i].name);
	free(p->sc_rules);
	free(p->ws_dest);
	free(p->ws_path);
	free(p->ws_persist);
	free(p->user_name);
	free(p->hostname);
	for (size_t i = 0; i < p->n_files; i++)
		free(p->files[i]);
	free(p->files);
	free(p);
}

/* ---- caller adjustments -------------------------------------------------- */

const osb_origin policy_api_origin = { policy_origin_api, 0, 0 };

/* RENDERED: the path becomes a rule of the canonical form (a workspace
 * directory does not, and may hold any character a directory name can). */
static int api_path(const char *what, const char *path, bool rendered, osb_error *err)
{
	const char *why;

	if (!path)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "policy", "%s: path is NULL", what);
	/* A path that becomes a rule must parse back: no glob, as in a policy
	 * file (the fuzzer found an ro path with a star breaking the canonical form). */
	why = policy_path_problem(path, !rendered);
	if (why)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "policy", "%s: %s: \"%s\" (pass a "
		                   "canonical absolute path, e.g. from realpath(3))", what, why, path);
	why = rendered ? policy_text_problem(path, true) : NULL;
	if (why)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "policy", "%s: path %s: \"%s\"", what,
		                   why, path);
	return 0;
}

int osb_policy_set_workspace(osb_policy *p, const char *dir, osb_error *err)
{
	char *copy;
	int r;

	if (!p)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "policy", "set_workspace: policy is NULL");
	if ((r = api_path("workspace", dir, false, err)) < 0)
		return r;
	if (!(copy = strdup(dir)))
		return policy_nomem(err);
	free(p->ws_path);
	p->ws_path = copy;
	p->ws_path_o = policy_api_origin;
	return 0;
}

int osb_policy_set_overlay_persist(osb_policy *p, const char *dir, osb_error *err)
{
	char *copy = NULL;
	int r;

	if (!p)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "policy",
		                   "set_overlay_persist: policy is NULL");
	if (dir && (r = api_path("overlay persist directory", dir, false, err)) < 0)
		return r;
	if (dir && !(copy = strdup(dir)))
		return policy_nomem(err);
	free(p->ws_persist);
	p->ws_persist = copy;
	return 0;
}

/* The declared read-root PATH lies beneath, or NULL. */
static const pol_str *read_root_of(const osb_policy *p, const char *path)
{
	for (size_t i = 0; i < p->n_read_roots; i++)
		if (policy_path_beneath(p->read_roots[i].s, path))
			return &p->read_roots[i];
	return NULL;
}

/* The policy's own name in messages: the file it was loaded from. */
static const char *policy_name(const osb_policy *p)
{
	return p->n_files ? p->files[0] : "(api)";
}

/* Why PATH may not be bound read-only by a caller (not beneath a read-root,
 * or already another rule's path), into ERR; 1 if it already is; 0 if it
 * may. */
static int read_only_grant_problem(const osb_policy *p, const char *path, osb_error *err)
{
	char o[POLICY_ORIGIN_MAX], list[768];

	for (size_t i = 0; i < p->n_mounts; i++) {
		const pol_mount *m = &p->mounts[i];

		if (strcmp(m->path, path) != 0)
			continue;
		if (m->kind == MNT_RO_BIND)
			return 1;
		return osb_err_set(err, OSB_E_POLICY, 0, "policy", "read-only path \"%s\" refused: "
		                   "the policy already has \"%s %s\" (%s:%u)", path,
		                   policy_mount_names[m->kind], m->path, m->o.file, m->o.line);
	}
	for (size_t i = 0; i < p->n_writes; i++) {
		if (strcmp(p->writes[i].s, path) != 0)
			continue;
		policy_origin_format(&p->writes[i].o, o, sizeof(o));
		return osb_err_set(err, OSB_E_POLICY, 0, "policy", "read-only path \"%s\" refused: "
		                   "the policy already has \"write %s\" (%s)", path, path, o);
	}
	if (read_root_of(p, path))
		return 0;
	if (!p->n_read_roots)
		return osb_err_set(err, OSB_E_POLICY, 0, "policy", "read-only path \"%s\" refused: "
		                   "not beneath a declared read-root (the policy %s declares none; a "
		                   "policy grants read-only paths with \"read-root DIR\")", path,
		                   policy_name(p));
	list[0] = '\0';
	for (size_t i = 0, used = 0; i < p->n_read_roots && used < sizeof(list); i++) {
		int w = snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "",
		                 p->read_roots[i].s);

		if (w < 0)
			break;
		used += (size_t)w;
	}
	return osb_err_set(err, OSB_E_POLICY, 0, "policy", "read-only path \"%s\" refused: not "
	                   "beneath a declared read-root (the policy %s declares: %s)", path,
	                   policy_name(p), list);
}

int policy_check_read_only_path(const char *path, osb_error *err)
{
	return api_path("read-only path", path, true, err);
}

int policy_check_read_only(const osb_policy *p, const char *path, osb_error *err)
{
	int r = policy_check_read_only_path(path, err);

	return r < 0 ? r : read_only_grant_problem(p, path, err);
}

int policy_add_read_only(osb_policy *p, const char *path, osb_error *err)
{
	pol_mount *v;
	int r;

	if ((r = policy_check_read_only(p, path, err)) != 0)
		return r < 0 ? r : 0;
	v = reallocarray(p->mounts, p->n_mounts + 1, sizeof(*v));
	if (!v)
		return policy_nomem(err);
	p->mounts = v;
	v[p->n_mounts] = (pol_mount){ MNT_RO_BIND, strdup(path), policy_api_origin, NULL, 0 };
	if (!v[p->n_mounts].path)
		return policy_nomem(err);
	p->n_mounts++;
	return 0;
}

int osb_policy_add_readonly(osb_policy *p, const char *path, osb_error *err)
{
	if (!p)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "policy", "add_readonly: policy is NULL");
	return policy_add_read_only(p, path, err);
}

int policy_check_writable_path(const char *path, const char *what, int usage_code, osb_error *err)
{
	const char *problem;

	if (!path)
		return osb_err_set(err, usage_code, EINVAL, "policy", "%s: path is NULL", what);
	if (strlen(path) >= PATH_MAX)
		return osb_err_set(err, usage_code, ENAMETOOLONG, "policy", "%s: path is longer than "
		                   "%d bytes", what, PATH_MAX - 1);
	problem = policy_path_problem(path, false);
	if (problem)
		return osb_err_set(err, usage_code, EINVAL, "policy", "%s: %s: \"%s\" (pass a "
		                   "canonical absolute path, e.g. from realpath(3))", what, problem, path);
	problem = policy_text_problem(path, true);
	if (problem)
		return osb_err_set(err, usage_code, EINVAL, "policy", "%s: path %s: \"%s\"", what,
		                   problem, path);
	return 0;
}

int policy_check_writable(const osb_policy *p, const char *path, const char *what, int usage_code,
                          osb_error *err)
{
	char why[900];
	const char *problem;
	int r;

	if ((r = policy_check_writable_path(path, what, usage_code, err)) < 0)
		return r;
	for (size_t i = 0; i < p->n_writes; i++)
		if (strcmp(p->writes[i].s, path) == 0)
			return 1;
	for (size_t i = 0; i < p->n_mounts; i++) {
		const pol_mount *m = &p->mounts[i];
		char o[POLICY_ORIGIN_MAX];

		if (strcmp(m->path, path) != 0)
			continue;
		policy_origin_format(&m->o, o, sizeof(o));
		return osb_err_set(err, OSB_E_POLICY, 0, "policy", "%s: \"%s\" already has the rule "
		                   "\"%s %s\" (%s); a path takes one rule", what, path,
		                   policy_mount_names[m->kind], m->path, o);
	}
	problem = policy_write_problem(p, path, why, sizeof(why));
	if (problem)
		return osb_err_set(err, OSB_E_POLICY, 0, "policy", "%s: \"%s\" is %s", what, path, problem);
	return 0;
}

int policy_add_writable(osb_policy *p, const char *path, const char *what, int usage_code,
                        osb_error *err)
{
	pol_str *v;
	int r = policy_check_writable(p, path, what, usage_code, err);

	if (r != 0)
		return r < 0 ? r : 0;
	v = reallocarray(p->writes, p->n_writes + 1, sizeof(*v));
	if (!v)
		return policy_nomem(err);
	p->writes = v;
	v[p->n_writes] = (pol_str){ strdup(path), policy_api_origin };
	if (!v[p->n_writes].s)
		return policy_nomem(err);
	p->n_writes++;
	return 0;
}

int osb_policy_add_writable(osb_policy *p, const char *path, osb_error *err)
{
	if (!p)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "policy", "add_writable: policy is NULL");
	return policy_add_writable(p, path, "add_writable", OSB_E_USAGE, err);
}

int policy_check_network(const osb_policy *p, osb_error *err)
{
	char o[POLICY_ORIGIN_MAX];

	if (p->net == NET_HOST || p->caller_net.set)
		return 0;
	policy_origin_format(&p->net_set.o, o, sizeof(o));
	return osb_err_set(err, OSB_E_POLICY, 0, "policy", "the host network is refused: the policy "
	                   "%s has \"network %s\" (%s) and does not grant callers the host network "
	                   "(a policy grants it with \"allow-caller network\")", policy_name(p),
	                   policy_net_names[p->net], o);
}

int osb_policy_set_network(osb_policy *p, osb_network network, osb_error *err)
{
	bool host = network == OSB_NETWORK_HOST;
	int r;

	if (!p || (network != OSB_NETWORK_NONE && network != OSB_NETWORK_HOST))
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "policy",
		                   "set_network: expected a policy and 0 (none) or 1 (host)");
	if (host && (r = policy_check_network(p, err)) < 0)
		return r;
	if (p->net == (host ? NET_HOST : NET_NONE))
		return 0;
	policy_free_strs(p->net_allow, p->n_net_allow);
	p->net_allow = NULL;
	p->n_net_allow = 0;
	p->net = host ? NET_HOST : NET_NONE;
	p->net_set = (pol_set){ true, policy_api_origin };
	return 0;
}

int osb_policy_set_host_ids(osb_policy *p, uint32_t uid, uint32_t gid, osb_error *err)
{
	if (!p || uid == 0 || gid == 0 || uid == UINT32_MAX || gid == UINT32_MAX)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "policy",
		                   "set_host_ids: expected a policy and ids from 1 to 4294967294 "
		                   "(a sandbox never runs as host uid 0 or gid 0)");
	p->host_uid = uid;
	p->host_gid = gid;
	p->host_ids_set = (pol_set){ true, policy_api_origin };
	return 0;
}

/* How much of the host each workspace mode lets the sandbox change: an
 * overlay's writes stay in a private layer, so it lies between ro and rw. */
static unsigned ws_rank(enum ws_mode m)
{
	static const unsigned rank[] = { [WS_NONE] = 0, [WS_RO] = 1, [WS_OVERLAY] = 2, [WS_RW] = 3 };

	return rank[m];
}

int policy_check_ws_mode(const osb_policy *p, enum ws_mode mode, const char *what,
                         const char *who, osb_error *err)
{
	char o[POLICY_ORIGIN_MAX];

	policy_origin_format(&p->ws_set.o, o, sizeof(o));
	if (p->ws_mode == WS_NONE && mode != WS_NONE)
		return osb_err_set(err, OSB_E_POLICY, 0, "policy", "%s: \"%s\" is refused: the policy "
		                   "has \"workspace none\" (%s), so a %s cannot add a workspace", what,
		                   policy_ws_names[mode], o, who);
	if (ws_rank(mode) > ws_rank(p->ws_mode))
		return osb_err_set(err, OSB_E_POLICY, 0, "policy", "%s: \"%s\" is refused: the policy "
		                   "has \"workspace %s\" (%s), and a %s may only narrow it", what,
		                   policy_ws_names[mode], policy_ws_names[p->ws_mode], o, who);
	return 0;
}

void policy_set_ws_mode(osb_policy *p, enum ws_mode mode)
{
	if (mode == p->ws_mode)
		return;
	/* An overlay the policy did not size gets the default size. */
	p->ws_size = mode == WS_OVERLAY ? WS_OVERLAY_DEFAULT_SIZE : 0;
	p->ws_mode = mode;
	p->ws_set = (pol_set){ true, policy_api_origin };
}

int osb_policy_set_workspace_mode(osb_policy *p, osb_workspace_mode mode, osb_error *err)
{
	static const enum ws_mode modes[] = { [OSB_WORKSPACE_NONE] = WS_NONE,
	                                      [OSB_WORKSPACE_RO] = WS_RO, [OSB_WORKSPACE_RW] = WS_RW,
	                                      [OSB_WORKSPACE_OVERLAY] = WS_OVERLAY };
	int r;

	if (!p || (unsigned)mode >= sizeof(modes) / sizeof(modes[0]))
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "policy", "set_workspace_mode: expected a "
		                   "policy and OSB_WORKSPACE_NONE, _RO, _RW or _OVERLAY");
	if ((r = policy_check_ws_mode(p, modes[mode], "workspace mode", "caller", err)) < 0)
		return r;
	policy_set_ws_mode(p, modes[mode]);
	return 0;
}

int osb_policy_set_wall_ms(osb_policy *p, uint64_t ms, osb_error *err)
{
	if (!p || ms == 0)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "policy",
		                   "set_wall_ms: expected a policy and a limit greater than zero");
	if (p->limit_set[LIM_WALL].set && p->limits[LIM_WALL] < ms) {
		char want[32], have[32], o[POLICY_ORIGIN_MAX];

		/* Refused, not kept quietly: the caller would believe it got MS. */
		policy_format_limit(LIM_WALL, ms, want, sizeof(want));
		policy_format_limit(LIM_WALL, p->limits[LIM_WALL], have, sizeof(have));
		policy_origin_format(&p->limit_set[LIM_WALL].o, o, sizeof(o));
		return osb_err_set(err, OSB_E_POLICY, EPERM, "policy",
		                   "timeout %s would raise the policy's \"limit wall %s\" (%s); a "
		                   "caller may only lower the wall limit", want, have, o);
	}
	if (p->limit_set[LIM_WALL].set && p->limits[LIM_WALL] == ms)
		return 0;
	p->limits[LIM_WALL] = ms;
	p->limit_set[LIM_WALL] = (pol_set){ true, policy_api_origin };
	return 0;
}


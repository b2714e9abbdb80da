/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* hostplan.c — the launch plan of a policy on this host, as data
 * (osb_policy_host_plan, for `osb-isolate explain --host` and any reviewer).
 *
 * The plan is prepared exactly as a run prepares it (launch.c): the same
 * refusals, the same verified bind sources, the same argv, for the command
 * "true"; then everything it holds is let go (fds closed, placeholders
 * removed, host ids released) and nothing is started. The seccomp program is
 * described from the rule table it is compiled from (filter.c); libseccomp's
 * own pseudo-filter text of the same program travels along, as text.
 */
#include "bwrap.h"
#include "filter.h"
#include "launch.h"
#include "utf8.h"
#include "viewscan.h"

#include <json-c/json.h>
#include <limits.h>
#include <seccomp.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static json_object *jstr(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

/* "file:line", "default", "api", or null when no rule decides. */
static json_object *origin_json(const osb_origin *o)
{
	char buf[PATH_MAX + 32];

	if (o->file && o->line > 0)
		snprintf(buf, sizeof(buf), "%s:%u", o->file, o->line);
	else
		snprintf(buf, sizeof(buf), "%s", o->file ? o->file : "");
	return *buf ? json_object_new_string(buf) : NULL;
}

/* The host path the verified fd of a bind names. */
static json_object *fd_path(int fd)
{
	char link[64], buf[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, sizeof(buf) - 1);
	if (n < 0)
		return json_object_new_string("?");
	buf[n] = '\0';
	return json_object_new_string(buf);
}

static json_object *binds_json(const plan *pl, json_object **workspace)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < pl->n_binds; i++) {
		const plan_bind *b = &pl->binds[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "source", fd_path(b->fd));
		json_object_object_add(o, "dest", jstr(b->dest));
		json_object_object_add(o, "writable", json_object_new_boolean(b->writable));
		json_object_object_add(o, "origin", origin_json(&b->o));
		if (pl->ws_dest && strcmp(b->dest, pl->ws_dest) == 0 && !*workspace)
			*workspace = json_object_get(json_object_object_get(o, "source"));
		json_object_array_add(a, o);
	}
	return a;
}

/* {"paths": [...], "more": N, "complete": bool, "entries": N}: the
 * sockets the view shows, as the sandbox would find them, and how many
 * entries the walk visited. */
static json_object *sockets_json(const plan *pl)
{
	json_object *o = json_object_new_object(), *paths = json_object_new_array();
	view_sockets v = { 0 };

	if (view_scan_sockets(pl, &v) < 0) {
		json_object_put(o);
		json_object_put(paths);
		return NULL;
	}
	for (size_t i = 0; i < v.paths.n; i++)
		json_object_array_add(paths, jstr(v.paths.v[i]));
	json_object_object_add(o, "paths", paths);
	json_object_object_add(o, "more", json_object_new_int64((int64_t)v.more));
	json_object_object_add(o, "complete", json_object_new_boolean(v.complete));
	json_object_object_add(o, "entries", json_object_new_int64((int64_t)v.entries));
	view_sockets_free(&v);
	return o;
}

static json_object *env_names_json(const plan *pl)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < pl->env.n; i++)
		json_object_array_add(a, json_object_new_string_len(pl->env.v[i],
		                                                    (int)strcspn(pl->env.v[i], "=")));
	return a;
}

static json_object *strv_json(const strv *v)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < v->n; i++)
		json_object_array_add(a, jstr(v->v[i]));
	return a;
}

static json_object *arch_json(const sc_arch *a)
{
	json_object *o = json_object_new_object(), *rules = json_object_new_array();

	json_object_object_add(o, "arch", jstr(a->name));
	json_object_object_add(o, "default", jstr(a->fallback));
	for (size_t i = 0; i < a->n; i++) {
		json_object *r = json_object_new_object();

		json_object_object_add(r, "syscall", jstr(a->calls[i].name));
		json_object_object_add(r, "action", jstr(a->calls[i].action));
		json_object_object_add(r, "by_args", json_object_new_boolean(a->calls[i].by_args));
		json_object_array_add(rules, r);
	}
	json_object_object_add(o, "rules", rules);
	return o;
}

/* The group the policy loads, as explain --host names it. */
static const char *group_label(const osb_policy *p)
{
	const sc_group *g = seccomp_policy_group(p);

	if (p->sc_mode == SC_NONE)
		return "none";
	return g ? g->name : "(unknown)";
}

static json_object *seccomp_json(const osb_policy *p, osb_error *err)
{
	const struct scmp_version *v = seccomp_version();
	json_object *o, *arches;
	_cleanup_free_ char *pfc = NULL;
	char ver[32];
	sc_view view;

	if (seccomp_describe(p, &view, err) < 0)
		return NULL;
	if (seccomp_export_text(p, &pfc, err) < 0) {
		seccomp_view_free(&view);
		return NULL;
	}
	o = json_object_new_object();
	arches = json_object_new_array();
	json_object_object_add(o, "group", jstr(group_label(p)));
	for (size_t i = 0; i < view.n_arches; i++)
		json_object_array_add(arches, arch_json(&view.arches[i]));
	json_object_object_add(o, "architectures", arches);
	json_object_object_add(o, "pfc", jstr(pfc));
	snprintf(ver, sizeof(ver), "%u.%u.%u", v->major, v->minor, v->micro);
	json_object_object_add(o, "libseccomp", jstr(ver));
	seccomp_view_free(&view);
	return o;
}

static json_object *plan_json(const osb_policy *p, const plan *pl, osb_error *err)
{
	static const char *const ll[] = { [LL_AUTO] = "auto", [LL_REQUIRED] = "required",
	                                  [LL_OFF] = "off" };
	static const char *const cmd[] = { "true", NULL };
	json_object *o = json_object_new_object(), *ws = NULL, *binds = binds_json(pl, &ws);
	json_object *sc = NULL;
	strv argv = { 0 };

	json_object_object_add(o, "identity", jstr(pl->userns ? "userns" : "root"));
	json_object_object_add(o, "uid", json_object_new_int64(p->uid));
	json_object_object_add(o, "gid", json_object_new_int64(p->gid));
	json_object_object_add(o, "workspace", ws);
	json_object_object_add(o, "binds", binds);
	json_object_object_add(o, "unix_sockets", sockets_json(pl));
	json_object_object_add(o, "landlock", jstr(ll[p->landlock]));
	json_object_object_add(o, "environment", env_names_json(pl));
	if (bwrap_argv_run(pl, cmd, &argv, err) < 0 || !(sc = seccomp_json(p, err))) {
		strv_free(&argv);
		json_object_put(o);
		return NULL;
	}
	json_object_object_add(o, "bwrap_argv", strv_json(&argv));
	json_object_object_add(o, "seccomp", sc);
	strv_free(&argv);
	return o;
}

char *osb_policy_host_plan(const osb_policy *p, const char *const *envp, osb_error *err)
{
	json_object *o;
	const char *s;
	char *out = NULL;
	plan pl;

	osb_err_clear(err);
	if (!p) {
		osb_err_set(err, OSB_E_USAGE, EINVAL, "usage", "osb_policy_host_plan needs a policy");
		return NULL;
	}
	if (launch_prepare(p, &(plan_request){ envp, NULL, false, 0 }, &pl, err) < 0)
		return NULL;
	o = plan_json(p, &pl, err);
	plan_free(&pl);
	if (!o)
		return NULL;
	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	/* Host paths are bytes: the JSON must stay valid UTF-8 (lib/utf8.h). */
	if (!s || !(out = utf8_valid_dup(s, strlen(s), NULL)))
		osb_err_set(err, OSB_E_NOMEM, ENOMEM, "explain", "out of memory");
	json_object_put(o);
	return out;
}

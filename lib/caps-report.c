/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* caps-report.c — the capabilities probe's result as a person or a program
 * reads it: one JSON object (docs/capabilities.schema.json) and the table
 * of `osb-isolate capabilities`.
 */
#include "caps.h"
#include "filter.h"
#include "hostid.h"
#include "utf8.h"

#include <json-c/json.h>

static json_object *jstr(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static json_object *json_items(const osb_caps *c)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < IT__COUNT; i++) {
		json_object *o = json_object_new_object();

		if (!o)
			continue;
		json_object_object_add(o, "id", jstr(caps_item_names[i]));
		json_object_object_add(o, "status", jstr(osb_caps_status_name(c->items[i].status)));
		json_object_object_add(o, "reason", jstr(c->items[i].reason));
		json_object_object_add(o, "remedy", jstr(c->items[i].remedy));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *json_bwrap(const osb_caps *c)
{
	json_object *o = json_object_new_object(), *opts = json_object_new_object();

	if (!o || !opts) {
		json_object_put(o);
		json_object_put(opts);
		return NULL;
	}
	json_object_object_add(o, "path", jstr(c->bwrap_path));
	json_object_object_add(o, "version", jstr(c->bwrap_version));
	json_object_object_add(o, "setuid", json_object_new_boolean(c->bwrap_setuid));
	for (size_t i = 0; c->have_help && i < CAPS_N_OPTS; i++)
		json_object_object_add(opts, caps_bwrap_opts[i].name, json_object_new_boolean(c->opt[i]));
	json_object_object_add(o, "options", opts);
	return o;
}

static json_object *json_blockers(const osb_caps *c)
{
	json_object *a = json_object_new_array();
	char buf[64];

	for (size_t i = 0; a && i < 4; i++) {
		json_object *o = json_object_new_object();
		const char *name = i < 3 ? caps_sysctl_names[i] : "seccomp";
		const char *value = i < 3 ? (c->sysctl[i] < 0 ? NULL :
		                             caps_fmt(buf, sizeof(buf), "%ld", c->sysctl[i])) :
		                    caps_fmt(buf, sizeof(buf), "%u filter%s", c->seccomp_filters,
		                        c->seccomp_filters == 1 ? "" : "s");

		if (!o)
			continue;
		json_object_object_add(o, "name", jstr(name));
		json_object_object_add(o, "value", jstr(value));
		json_object_object_add(o, "blocking",
		                       json_object_new_boolean(c->blocker && !strcmp(c->blocker, name)));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *json_mode(const osb_caps *c, enum mode m)
{
	json_object *o = json_object_new_object(), *runs = json_object_new_array();

	if (!o || !runs) {
		json_object_put(o);
		json_object_put(runs);
		return NULL;
	}
	for (size_t i = 0; i < c->n_profiles; i++)
		if (c->profiles[i].runs[m])
			json_object_array_add(runs, jstr(c->profiles[i].name));
	json_object_object_add(o, "usable", json_object_new_boolean(c->mode_ok[m]));
	json_object_object_add(o, "network_namespace", json_object_new_boolean(c->net_ok[m]));
	json_object_object_add(o, "blocked_by", c->mode_ok[m] ? NULL : jstr(c->mode_stop[m].id));
	json_object_object_add(o, "reason", c->mode_ok[m] ? NULL : jstr(c->mode_stop[m].reason));
	json_object_object_add(o, "profiles", runs);
	return o;
}

static json_object *json_host(const osb_caps *c)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "euid", json_object_new_int64((int64_t)c->euid));
	json_object_object_add(o, "root", json_object_new_boolean(c->euid == 0));
	json_object_object_add(o, "capabilities", jstr(c->captext));
	json_object_object_add(o, "seccomp_filters", json_object_new_int((int)c->seccomp_filters));
	json_object_object_add(o, "no_new_privs", json_object_new_boolean(c->no_new_privs));
	json_object_object_add(o, "uid_map", jstr(c->uid_map));
	json_object_object_add(o, "kernel", jstr(c->kernel));
	json_object_object_add(o, "landlock_abi", json_object_new_int(c->landlock_abi));
	return o;
}

/* The mode "identity auto" picks for this caller (the plan's own choice:
 * userns when the sandbox's bwrap can create a user namespace, else root
 * mode as root), or NULL when neither runs here. */
static const char *auto_mode(const osb_caps *c)
{
	if (c->host.userns_errno == 0 && c->mode_ok[M_USERNS])
		return caps_mode_names[M_USERNS];
	if (c->euid == 0 && c->mode_ok[M_ROOT])
		return caps_mode_names[M_ROOT];
	return NULL;
}

/* Who this caller's sandboxes are on the host (lib/hostid.h). */
static json_object *json_identity(const osb_caps *c)
{
	json_object *o = json_object_new_object(), *ids = json_object_new_object();

	if (!o || !ids) {
		json_object_put(o);
		json_object_put(ids);
		return NULL;
	}
	json_object_object_add(o, "auto_mode", jstr(auto_mode(c)));
	if (c->euid == 0) {
		json_object_object_add(ids, "kind", jstr(hostid_kind_name(HOSTID_ALLOCATED)));
		json_object_object_add(ids, "first", json_object_new_int64(HOSTID_RANGE_BASE));
		json_object_object_add(ids, "last",
		                       json_object_new_int64(HOSTID_RANGE_BASE + HOSTID_RANGE_SIZE - 1));
	} else {
		json_object_object_add(ids, "kind", jstr(hostid_kind_name(HOSTID_CALLER)));
		json_object_object_add(ids, "uid", json_object_new_int64((int64_t)c->euid));
		json_object_object_add(ids, "gid", json_object_new_int64((int64_t)c->host.egid));
	}
	json_object_object_add(o, "host_ids", ids);
	return o;
}

static json_object *json_profiles(const osb_caps *c, bool invalid)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < c->n_profiles; i++) {
		const caps_profile *pr = &c->profiles[i];
		json_object *o;

		if (!invalid) {
			json_object_array_add(a, jstr(pr->name));
			continue;
		}
		if (!pr->error || !(o = json_object_new_object()))
			continue;
		json_object_object_add(o, "name", jstr(pr->name));
		json_object_object_add(o, "error", jstr(pr->error));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *json_strv(const strv *v)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < v->n; i++)
		json_object_array_add(a, jstr(v->v[i]));
	return a;
}

/* name -> the sha256 of the filter a run under it loads (null: none). */
static json_object *json_profile_hashes(const osb_caps *c)
{
	json_object *o = json_object_new_object();

	for (size_t i = 0; o && i < c->n_profiles; i++)
		if (!c->profiles[i].error)
			json_object_object_add(o, c->profiles[i].name,
			                       c->profiles[i].seccomp_sha256[0] ?
			                       jstr(c->profiles[i].seccomp_sha256) : NULL);
	return o;
}

/* name -> "host" or "none". */
static json_object *json_profile_net(const osb_caps *c)
{
	json_object *o = json_object_new_object();

	for (size_t i = 0; o && i < c->n_profiles; i++)
		if (!c->profiles[i].error)
			json_object_object_add(o, c->profiles[i].name,
			                       jstr(c->profiles[i].nd.netns ? "none" : "host"));
	return o;
}

/* The configured workspace roots, or ["/"]: any directory the path rules
 * of osb-isolate(1), "PATHS", allow. */
static json_object *json_roots(const osb_config *cfg)
{
	json_object *roots = json_object_new_array();
	size_t n = osb_config_workspace_root_count(cfg);

	for (size_t i = 0; roots && i < n; i++)
		json_object_array_add(roots, jstr(osb_config_workspace_root(cfg, i)));
	if (roots && n == 0)
		json_object_array_add(roots, jstr("/"));
	return roots;
}

char *osb_caps_json(const osb_caps *c)
{
	return osb_caps_json_config(c, NULL);
}

char *osb_caps_json_config(const osb_caps *c, const osb_config *cfg)
{
	json_object *o, *modes, *summary;
	char *out = NULL;

	if (!c || !(o = json_object_new_object()))
		return NULL;
	modes = json_object_new_array();
	summary = json_object_new_object();
	for (int m = 0; m < M__COUNT; m++) {
		if (c->mode_ok[m])
			json_object_array_add(modes, jstr(caps_mode_names[m]));
		json_object_object_add(summary, caps_mode_names[m], json_mode(c, (enum mode)m));
	}
	json_object_object_add(o, "available", json_object_new_boolean(osb_caps_available(c)));
	json_object_object_add(o, "isolator", jstr("bubblewrap"));
	json_object_object_add(o, "version", jstr(c->bwrap_version));
	json_object_object_add(o, "osb_version", jstr(OSB_ISOLATE_VERSION));
	json_object_object_add(o, "modes", modes);
	json_object_object_add(o, "policy_dir", jstr(c->policy_dir));
	json_object_object_add(o, "profiles", json_profiles(c, false));
	json_object_object_add(o, "profiles_invalid", json_profiles(c, true));
	/* A workspace may lie beneath these roots, except in the system
	 * directories and where others could redirect it (osb-isolate(1)). */
	json_object_object_add(o, "allowed_workspaces", json_roots(cfg));
	json_object_object_add(o, "allowed_extra_writable_prefixes", json_strv(&c->write_roots));
	/* No override of a policy's network: a caller (a request, run --net,
	 * osb_policy_set_network) turns the host network on only where the
	 * policy says "allow-caller network"; profiles_network says which
	 * policies share it. */
	json_object_object_add(o, "share_net_overridable", json_object_new_boolean(0));
	json_object_object_add(o, "profiles_network", json_profile_net(c));
	json_object_object_add(o, "seccomp_profile", jstr(seccomp_group_name()));
	json_object_object_add(o, "seccomp_profile_sha256", jstr(osb_caps_seccomp_sha256(c)));
	json_object_object_add(o, "profiles_seccomp_sha256", json_profile_hashes(c));
	json_object_object_add(o, "bwrap", json_bwrap(c));
	json_object_object_add(o, "items", json_items(c));
	json_object_object_add(o, "blockers", json_blockers(c));
	json_object_object_add(o, "summary", summary);
	json_object_object_add(o, "host", json_host(c));
	json_object_object_add(o, "identity", json_identity(c));
	json_object_object_add(o, "probe_ms", json_object_new_uint64(c->probe_ms));
	{
		const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
		                                               JSON_C_TO_STRING_NOSLASHESCAPE);

		/* Host paths (bwrap, the policy directory, reasons quoting them)
		 * are bytes: json-c copies them as they are, and the text must be
		 * UTF-8 whatever they hold (U+FFFD for each invalid sequence). */
		out = s ? utf8_valid_dup(s, strlen(s), NULL) : NULL;
	}
	json_object_put(o);
	return out;
}

static void table_mode(FILE *f, const osb_caps *c, enum mode m)
{
	bool any = false;

	fprintf(f, "mode %-7s", caps_mode_names[m]);
	if (!c->mode_ok[m]) {
		fprintf(f, "not usable: %s %s: %s\n", c->mode_stop[m].id,
		        osb_caps_status_name(c->mode_stop[m].status), c->mode_stop[m].reason);
		return;
	}
	fputs("usable", f);
	for (size_t i = 0; i < c->n_profiles; i++)
		if (c->profiles[i].runs[m]) {
			fprintf(f, "%s %s", any ? "," : "; runs", c->profiles[i].name);
			any = true;
		}
	if (!c->n_profiles)
		fprintf(f, "; no policies found in %s", c->policy_dir);
	else if (!any)
		fputs("; runs none of the shipped policies", f);
	fputc('\n', f);
	if (!c->net_ok[m])
		fprintf(f, "%-12s(not policies with \"network none\": %s)\n", "",
		        c->net_stop[m].reason);
}

char *osb_caps_table(const osb_caps *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!c || !(f = open_memstream(&buf, &len)))
		return NULL;
	fprintf(f, "osb-isolate %s capabilities: %s\n", OSB_ISOLATE_VERSION,
	        osb_caps_available(c) ? "available" : "NOT available");
	fprintf(f, "%-12s %-21s %s\n", "STATUS", "ITEM", "REASON");
	for (size_t i = 0; i < IT__COUNT; i++) {
		fprintf(f, "%-12s %-21s %s\n", osb_caps_status_name(c->items[i].status),
		        caps_item_names[i], c->items[i].reason);
		if (c->items[i].remedy)
			fprintf(f, "%-34s remedy: %s\n", "", c->items[i].remedy);
	}
	fputc('\n', f);
	for (int m = 0; m < M__COUNT; m++)
		table_mode(f, c, (enum mode)m);
	fprintf(f, "identity auto runs as %s mode; ", auto_mode(c) ? auto_mode(c) : "no");
	if (c->euid == 0)
		fprintf(f, "host ids allocated per sandbox from %u-%u (no account's)\n",
		        HOSTID_RANGE_BASE, HOSTID_RANGE_BASE + HOSTID_RANGE_SIZE - 1);
	else
		fprintf(f, "host ids are the caller's, %u:%u\n", (unsigned)c->euid, (unsigned)c->host.egid);
	for (size_t i = 0; i < c->n_profiles; i++)
		if (c->profiles[i].error)
			fprintf(f, "policy %s does not load: %s\n", c->profiles[i].name,
			        c->profiles[i].error);
	fprintf(f, "seccomp profile %s sha256 %s\n", seccomp_group_name(),
	        c->seccomp_sha256[0] ? c->seccomp_sha256 : "(not built)");
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}


/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* explain.c — the effective policy as a reviewer reads it (osb-isolate(1),
 * "EXPLAIN"): every rule with its origin, as text or JSON, and with --host
 * the launch plan of this host, which the library prepares and describes
 * (osb_policy_host_plan) and this file only lays out.
 */
#include "explain.h"
#include "common.h"

#include <json-c/json.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

/* ---- the launch plan as text --------------------------------------------------- */

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static const char *get_str(json_object *o, const char *key)
{
	json_object *v = get(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static size_t len_of(json_object *a)
{
	return a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

static json_object *at(json_object *a, size_t i)
{
	return json_object_array_get_idx(a, i);
}

/* An argument as a POSIX shell would need it written. */
static void put_quoted(FILE *f, const char *s)
{
	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	                    "_-+=/.,:@%") == strlen(s)) {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

/* Calls whose whole answer is ACTION (argument rules are listed apart). */
static size_t count_action(json_object *rules, const char *action)
{
	size_t n = 0;

	for (size_t i = 0; i < len_of(rules); i++) {
		const char *a = get_str(at(rules, i), "action");

		n += a && !json_object_get_boolean(get(at(rules, i), "by_args")) &&
		     strcmp(a, action) == 0;
	}
	return n;
}

/* "    ACTION: a b c" lines, wrapped, for the calls of one action. */
static void action_line(FILE *f, json_object *rules, const char *action)
{
	size_t col = (size_t)fprintf(f, "    %s:", action);

	for (size_t i = 0; i < len_of(rules); i++) {
		json_object *r = at(rules, i);
		const char *name = get_str(r, "syscall"), *a = get_str(r, "action");
		bool by_args = json_object_get_boolean(get(r, "by_args"));
		size_t w;

		if (!name || !a || strcmp(a, action) != 0)
			continue;
		w = strlen(name) + (by_args ? 8 : 0) + 1;
		if (col + w > 96) {
			fputs("\n     ", f);
			col = 5;
		}
		fprintf(f, " %s%s", name, by_args ? "(by arg)" : "");
		col += w;
	}
	fputc('\n', f);
}

/* One architecture: its default, then each action in order of appearance. */
static void arch_text(FILE *f, json_object *arch, const char *libseccomp)
{
	json_object *rules = get(arch, "rules");
	const char *name = get_str(arch, "arch"), *fallback = get_str(arch, "default");
	rv_strv actions = { 0 };

	for (size_t i = 0; i < len_of(rules); i++) {
		const char *a = get_str(at(rules, i), "action");
		bool seen = false;

		for (size_t j = 0; a && j < actions.n; j++)
			seen |= strcmp(actions.v[j], a) == 0;
		if (a && !seen && rv_strv_push(&actions, a) < 0)
			break;
	}
	if (fallback && strcmp(fallback, "ALLOW") != 0)
		fprintf(f, "  %s (every call libseccomp %s does not know: %s)\n", name, libseccomp,
		        fallback);
	else
		fprintf(f, "  %s (every other call: %s)\n", name, fallback ? fallback : "?");
	for (size_t j = 0; j < actions.n; j++) {
		/* Allowed by name, all but the few the group denies: a count
		 * (the JSON lists them). */
		if (fallback && strcmp(fallback, "ALLOW") != 0 && strcmp(actions.v[j], "ALLOW") == 0)
			fprintf(f, "    %s: %zu calls (every other call libseccomp knows)\n",
			        actions.v[j], count_action(rules, "ALLOW"));
		else
			action_line(f, rules, actions.v[j]);
	}
	rv_strv_free(&actions);
}

/* The sockets the view shows: each one is reachable whatever "network"
 * says (osb-isolate(1), "SOCKETS"). */
static void sockets_text(FILE *f, json_object *s)
{
	json_object *paths = get(s, "paths");
	size_t n = len_of(paths);
	int64_t more = json_object_get_int64(get(s, "more"));

	fprintf(f, "unix sockets in the view:%s", n ? "\n" : " none");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "  %s\n", json_object_get_string(at(paths, i)));
	if (more)
		fprintf(f, "  ... and %lld more\n", (long long)more);
	if (!json_object_get_boolean(get(s, "complete")))
		fprintf(f, "%s(the walk did not read every directory, %lld entries visited: there "
		        "may be more)\n",
		        n ? "  " : " ", (long long)json_object_get_int64(get(s, "entries")));
	else if (!n)
		fputc('\n', f);
	if (n)
		fprintf(f, "warning: connect(2) reaches these through a read-only bind and under "
		        "\"network none\"; bind less (W118)\n");
}

static void binds_text(FILE *f, json_object *binds)
{
	fprintf(f, "binds (host source -> sandbox path):\n");
	for (size_t i = 0; i < len_of(binds); i++) {
		json_object *b = at(binds, i);
		const char *o = get_str(b, "origin");

		fprintf(f, "  %s %s -> %s  # %s\n",
		        json_object_get_boolean(get(b, "writable")) ? "rw" : "ro",
		        get_str(b, "source"), get_str(b, "dest"), o ? o : "");
	}
	if (len_of(binds) == 0)
		fprintf(f, "  none\n");
	fprintf(f, "writable host paths:");
	for (size_t i = 0; i < len_of(binds); i++)
		if (json_object_get_boolean(get(at(binds, i), "writable")))
			fprintf(f, " %s", get_str(at(binds, i), "dest"));
	fputc('\n', f);
}

typedef struct host_text_arg {
	const review_policy *p;
	json_object *h;
} host_text_arg;

static void identity_text(FILE *f, const review_policy *p, json_object *h)
{
	const char *mode = get_str(h, "identity");

	if (mode && strcmp(mode, "userns") == 0)
		fprintf(f, "identity: userns (a user namespace: the sandbox sees uid %u gid %u \"%s\", "
		        "mapped to the caller's uid %u)\n", p->uid, p->gid, p->user_name,
		        (unsigned)getuid());
	else
		fprintf(f, "identity: root (no user namespace: the init switches to uid %u gid %u \"%s\" "
		        "and drops every capability)\n", p->uid, p->gid, p->user_name);
}

static int host_text(FILE *f, const void *varg)
{
	const host_text_arg *a = varg;
	json_object *h = a->h, *env = get(h, "environment"), *argv = get(h, "bwrap_argv");
	json_object *sc = get(h, "seccomp"), *arches = get(sc, "architectures");
	const char *ws = get_str(h, "workspace"), *ls = get_str(sc, "libseccomp");

	fprintf(f, "\n# launch plan on this host\n");
	identity_text(f, a->p, h);
	if (ws && a->p->ws_mode == WS_OVERLAY)
		fprintf(f, "workspace: %s (overlay: the read-only lower layer; writes go to a private "
		        "layer that ends with the sandbox)\n", ws);
	else
		fprintf(f, "workspace: %s\n", ws ? ws : "none");
	binds_text(f, get(h, "binds"));
	fprintf(f, "private writable mounts:");
	for (size_t i = 0; i < a->p->n_mounts; i++)
		if (a->p->mounts[i].kind == MNT_TMPFS)
			fprintf(f, " %s", a->p->mounts[i].path);
	fputc('\n', f);
	sockets_text(f, get(h, "unix_sockets"));
	fprintf(f, "landlock: %s\n", get_str(h, "landlock"));
	fprintf(f, "environment:");
	for (size_t i = 0; i < len_of(env); i++)
		fprintf(f, " %s", json_object_get_string(at(env, i)));
	fprintf(f, "%s\n", len_of(env) ? "" : " (empty)");
	fprintf(f, "seccomp: %s%s, per architecture:\n", get_str(sc, "group"),
	        a->p->n_sc_rules ? " as the policy's seccomp rules edit it" : "");
	for (size_t i = 0; i < len_of(arches); i++)
		arch_text(f, at(arches, i), ls ? ls : "?");
	fprintf(f, "bwrap argv (the command \"true\" stands for yours):\n");
	for (size_t i = 0; i < len_of(argv); i++) {
		fputs("  ", f);
		put_quoted(f, json_object_get_string(at(argv, i)));
		fputc('\n', f);
	}
	return 0;
}

char *host_plan_render_text(const review_policy *p, const char *host_json)
{
	json_object *h = json_tokener_parse(host_json);
	host_text_arg a = { p, h };
	char *out;

	if (!h)
		return NULL;
	out = rv_render(host_text, &a);
	json_object_put(h);
	return out;
}

/* ---- explain ---------------------------------------------------------------------------- */

static json_object *rule_json(const rv_rule *r)
{
	json_object *o = json_object_new_object(), *args = json_object_new_array();
	char origin[PATH_MAX + 32];

	rv_origin_str(&r->o, origin, sizeof(origin));
	json_object_object_add(o, "rule", json_object_new_string(r->text));
	json_object_object_add(o, "directive", json_object_new_string(r->directive));
	for (size_t i = 0; i < r->n_args; i++)
		json_object_array_add(args, json_object_new_string(r->args[i]));
	json_object_object_add(o, "args", args);
	json_object_object_add(o, "origin", json_object_new_string(*origin ? origin : "default"));
	if (rv_origin_is_rule(&r->o)) {
		json_object_object_add(o, "file", json_object_new_string(r->o.file));
		json_object_object_add(o, "line", json_object_new_int((int)r->o.line));
	} else {
		json_object_object_add(o, "file", NULL);
		json_object_object_add(o, "line", json_object_new_int(0));
	}
	return o;
}

char *explain_render_json(const review_policy *p, const char *name, const char *host_json)
{
	json_object *o, *files, *rules, *host = NULL;
	char hash[OSB_POLICY_HASH_LEN];

	if (osb_policy_hash(p->pol, hash) < 0 || (host_json && !(host = json_tokener_parse(host_json))))
		return NULL;
	o = json_object_new_object();
	files = json_object_new_array();
	rules = json_object_new_array();
	json_object_object_add(o, "policy", json_object_new_string(name));
	json_object_object_add(o, "hash", json_object_new_string(hash));
	json_object_object_add(o, "version", json_object_new_int(OSB_POLICY_VERSION));
	for (size_t i = 0; i < p->n_files; i++)
		json_object_array_add(files, json_object_new_string(p->files[i]));
	json_object_object_add(o, "files", files);
	for (size_t i = 0; i < p->n_rules; i++)
		json_object_array_add(rules, rule_json(&p->rules[i]));
	json_object_object_add(o, "rules", rules);
	if (host)
		json_object_object_add(o, "host", host);
	return rv_json_take(o);
}

char *explain_render_text(const review_policy *p, const char *name)
{
	char hash[OSB_POLICY_HASH_LEN], *body, *out;

	if (osb_policy_hash(p->pol, hash) < 0 || !(body = osb_policy_explain(p->pol, 0)))
		return NULL;
	out = rv_fmt("# effective policy of %s\n# hash %s\n%s", name, hash, body);
	osb_free(body);
	return out;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* report.c — check, lint and diff as JSON (report.h), for a CI job to gate
 * on and a dashboard to show. Each object carries a "schema" member naming
 * its schema in docs/ and its version; a member is never renamed or removed
 * within one version, only added.
 */
#include "report.h"
#include "common.h"

#include <errno.h>
#include <json-c/json.h>
#include <string.h>

struct check_json {
	json_object *root, *policies, *current;
};

/* A string member, null for NULL. */
static void add_str(json_object *o, const char *key, const char *s)
{
	json_object_object_add(o, key, s ? json_object_new_string(s) : NULL);
}

check_json *check_json_new(void)
{
	check_json *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->root = json_object_new_object();
	j->policies = json_object_new_array();
	if (!j->root || !j->policies) {
		json_object_put(j->root);
		json_object_put(j->policies);
		free(j);
		return NULL;
	}
	add_str(j->root, "schema", "osb-isolate/check/1");
	json_object_object_add(j->root, "policies", j->policies);
	return j;
}

int check_json_policy(check_json *j, const char *name)
{
	json_object *p = json_object_new_object();

	if (!p)
		return -ENOMEM;
	add_str(p, "policy", name);
	json_object_object_add(p, "status", json_object_new_int(0));
	json_object_object_add(p, "diagnostics", json_object_new_array());
	json_object_array_add(j->policies, p);
	j->current = p;
	return 0;
}

int check_json_diag(check_json *j, const char *file, unsigned line, unsigned col,
                    const char *severity, const char *code, const char *message, const char *hint)
{
	json_object *d = json_object_new_object(), *list = NULL;

	if (!d || !j->current || !json_object_object_get_ex(j->current, "diagnostics", &list)) {
		json_object_put(d);
		return -ENOMEM;
	}
	add_str(d, "file", file);
	json_object_object_add(d, "line", line ? json_object_new_int((int)line) : NULL);
	json_object_object_add(d, "column", col ? json_object_new_int((int)col) : NULL);
	add_str(d, "severity", severity);
	add_str(d, "code", code);
	add_str(d, "message", message);
	add_str(d, "hint", hint);
	json_object_array_add(list, d);
	return 0;
}

void check_json_status(check_json *j, int status)
{
	if (j->current)
		json_object_object_add(j->current, "status", json_object_new_int(status));
}

char *check_json_finish(check_json *j, int status)
{
	json_object *root = j->root;

	json_object_object_add(root, "status", json_object_new_int(status));
	free(j);
	return rv_json_take(root);
}

struct lint_json {
	json_object *root, *policies;
	size_t total, waived, open;
};

lint_json *lint_json_new(void)
{
	lint_json *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->root = json_object_new_object();
	j->policies = json_object_new_array();
	if (!j->root || !j->policies) {
		json_object_put(j->root);
		json_object_put(j->policies);
		free(j);
		return NULL;
	}
	add_str(j->root, "schema", "osb-isolate/lint/2");
	json_object_object_add(j->root, "policies", j->policies);
	return j;
}

static json_object *finding_json(const lint_finding *f)
{
	json_object *v = json_object_new_object();

	if (!v)
		return NULL;
	add_str(v, "code", f->rule->code);
	add_str(v, "name", f->rule->name);
	add_str(v, "severity", f->rule->sev == LINT_ERROR ? "error" : "warning");
	add_str(v, "message", f->message);
	add_str(v, "file", f->file);
	json_object_object_add(v, "line", json_object_new_int((int)f->line));
	json_object_object_add(v, "column", json_object_new_int((int)f->col));
	json_object_object_add(v, "from_default", json_object_new_boolean(f->from_default));
	add_str(v, "pointer", f->pointer);
	add_str(v, "waiver", f->waiver);
	json_object_object_add(v, "waiver_line", f->waiver ? json_object_new_int((int)f->waiver_line)
	                                                  : NULL);
	return v;
}

int lint_json_add(lint_json *j, const char *name, const lint_report *r, const char *error,
                  int status)
{
	json_object *o = json_object_new_object(), *list = json_object_new_array();
	size_t open = 0;

	if (!o || !list) {
		json_object_put(o);
		json_object_put(list);
		return -ENOMEM;
	}
	add_str(o, "policy", name);
	json_object_object_add(o, "status", json_object_new_int(status));
	add_str(o, "error", error);
	for (size_t i = 0; r && i < r->n; i++) {
		json_object *v = finding_json(&r->v[i]);

		if (!v || json_object_array_add(list, v) < 0) {
			json_object_put(v);
			json_object_put(list);
			json_object_put(o);
			return -ENOMEM;
		}
		open += !r->v[i].waiver;
	}
	json_object_object_add(o, "findings", list);
	json_object_object_add(o, "total", json_object_new_int(r ? (int)r->n : 0));
	json_object_object_add(o, "waived", json_object_new_int(r ? (int)r->n_waived : 0));
	json_object_object_add(o, "open", json_object_new_int((int)open));
	j->total += r ? r->n : 0;
	j->waived += r ? r->n_waived : 0;
	j->open += open;
	return json_object_array_add(j->policies, o) < 0 ? (json_object_put(o), -ENOMEM) : 0;
}

char *lint_json_finish(lint_json *j, int status)
{
	json_object *root = j->root;

	json_object_object_add(root, "total", json_object_new_int((int)j->total));
	json_object_object_add(root, "waived", json_object_new_int((int)j->waived));
	json_object_object_add(root, "open", json_object_new_int((int)j->open));
	json_object_object_add(root, "status", json_object_new_int(status));
	free(j);
	return rv_json_take(root);
}

const char *diff_verdict(const diff_report *d, const view_deltas *v)
{
	size_t wider = 0, narrower = 0;

	for (size_t i = 0; i < d->n; i++) {
		wider += d->v[i].dir == DIFF_WIDER;
		narrower += d->v[i].dir == DIFF_NARROWER;
	}
	for (size_t i = 0; v && i < v->n; i++) {
		wider += v->v[i].dir == DIFF_WIDER;
		narrower += v->v[i].dir == DIFF_NARROWER;
	}
	if (d->n == 0 && (!v || v->n == 0))
		return "equal";
	if (wider && narrower)
		return "mixed";
	return wider ? "wider" : narrower ? "narrower" : "neutral";
}

static json_object *side_json(const char *name, const char *hash, unsigned score)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	add_str(o, "policy", name);
	add_str(o, "hash", hash);
	json_object_object_add(o, "exposure", json_object_new_int((int)score));
	return o;
}

static json_object *view_json(const view_deltas *v)
{
	json_object *list = json_object_new_array();

	for (size_t i = 0; list && v && i < v->n; i++) {
		json_object *o = json_object_new_object();

		if (!o) {
			json_object_put(list);
			return NULL;
		}
		add_str(o, "aspect", v->v[i].aspect);
		add_str(o, "change", v->v[i].change);
		add_str(o, "direction", diff_dir_name(v->v[i].dir));
		add_str(o, "from_origin", v->v[i].from_origin);
		add_str(o, "to_origin", v->v[i].to_origin);
		json_object_array_add(list, o);
	}
	return list;
}

char *diff_render_json(const diff_report *d, const view_deltas *vd, const char *a, const char *ha,
                       unsigned sa, const char *b, const char *hb, unsigned sb)
{
	static const char *const kinds[] = { [DIFF_ADDED] = "added", [DIFF_REMOVED] = "removed",
	                                     [DIFF_CHANGED] = "changed" };
	json_object *o = json_object_new_object(), *list = json_object_new_array();

	if (!o || !list) {
		json_object_put(o);
		json_object_put(list);
		return NULL;
	}
	add_str(o, "schema", "osb-isolate/diff/1");
	json_object_object_add(o, "from", side_json(a, ha, sa));
	json_object_object_add(o, "to", side_json(b, hb, sb));
	for (size_t i = 0; i < d->n; i++) {
		const diff_entry *e = &d->v[i];
		json_object *v = json_object_new_object();

		add_str(v, "kind", kinds[e->kind]);
		add_str(v, "direction", diff_dir_name(e->dir));
		add_str(v, "from", e->from);
		add_str(v, "to", e->to);
		add_str(v, "from_origin", e->from_origin);
		add_str(v, "to_origin", e->to_origin);
		json_object_array_add(list, v);
	}
	json_object_object_add(o, "changes", list);
	json_object_object_add(o, "view", view_json(vd));
	add_str(o, "verdict", diff_verdict(d, vd));
	return rv_json_take(o);
}

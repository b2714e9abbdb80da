/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* overlay-report.c — an overlay session's changes as JSON
 * (docs/changes.schema.json): the list of lib/overlay-diff.c, one object per
 * change, in its order. Paths and targets are bytes; JSON is UTF-8, so an
 * invalid sequence shows as U+FFFD here (the C API and the tar export keep
 * the bytes), and DEL, the C1 controls and the invisible and bidirectional
 * characters as \u escapes (json-c escapes only U+0000..U+001F): the
 * document printed on a terminal cannot drive it nor show a name reordered.
 */
#include "overlay-report.h"
#include "overlay-diff.h"
#include "utf8.h"
#include "util.h"

#include <json-c/json.h>

static const char *kind_name(int kind)
{
	return kind == OSB_CHANGE_ADDED ? "added" : kind == OSB_CHANGE_MODIFIED ? "modified" :
	       kind == OSB_CHANGE_DELETED ? "deleted" : "unknown";
}

static json_object *str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static json_object *type_or_null(int type)
{
	return str_or_null(ovl_type_name(type));
}

static json_object *mode_or_null(int type, uint32_t mode)
{
	char buf[8];

	if (type == OSB_FILE_UNKNOWN)
		return NULL;
	snprintf(buf, sizeof(buf), "%04o", (unsigned)mode);
	return json_object_new_string(buf);
}

static json_object *what_list(unsigned what)
{
	static const char *const names[] = { "type", "content", "target", "mode" };
	json_object *a = json_object_new_array();

	for (unsigned k = 0; a && k < 4; k++)
		if (what & (1u << k))
			json_object_array_add(a, json_object_new_string(names[k]));
	return a;
}

static json_object *change_json(const osb_change *c)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "path", json_object_new_string(c->path));
	json_object_object_add(o, "change", json_object_new_string(kind_name(c->kind)));
	json_object_object_add(o, "what", what_list(c->what));
	json_object_object_add(o, "type", type_or_null(c->type));
	json_object_object_add(o, "old_type", type_or_null(c->old_type));
	json_object_object_add(o, "mode", mode_or_null(c->type, c->mode));
	json_object_object_add(o, "old_mode", mode_or_null(c->old_type, c->old_mode));
	json_object_object_add(o, "size", json_object_new_uint64(c->size));
	json_object_object_add(o, "target", str_or_null(c->target));
	json_object_object_add(o, "old_target", str_or_null(c->old_target));
	json_object_object_add(o, "hardlink", str_or_null(c->hardlink));
	return o;
}

static json_object *summary(const osb_diff *d)
{
	json_object *o = json_object_new_object();
	int64_t n[4] = { 0 };

	for (size_t i = 0; i < d->n; i++)
		n[d->v[i].c.kind & 3]++;
	if (!o)
		return NULL;
	json_object_object_add(o, "added", json_object_new_int64(n[OSB_CHANGE_ADDED]));
	json_object_object_add(o, "modified", json_object_new_int64(n[OSB_CHANGE_MODIFIED]));
	json_object_object_add(o, "deleted", json_object_new_int64(n[OSB_CHANGE_DELETED]));
	return o;
}

char *ovl_json_text(json_object *o)
{
	const char *s = o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
	                                                       JSON_C_TO_STRING_NOSLASHESCAPE) : NULL;
	char *valid = s ? utf8_valid_dup(s, strlen(s), NULL) : NULL;
	char *out = valid ? utf8_json_visible(valid) : NULL;

	free(valid);
	json_object_put(o);
	return out;
}

json_object *ovl_changes_json(const osb_diff *d)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();

	if (!o || !a) {
		json_object_put(o);
		json_object_put(a);
		return NULL;
	}
	for (size_t i = 0; i < d->n; i++)
		json_object_array_add(a, change_json(&d->v[i].c));
	json_object_object_add(o, "schema", json_object_new_string("osb-isolate/changes/1"));
	json_object_object_add(o, "workspace", str_or_null(d->workspace));
	json_object_object_add(o, "summary", summary(d));
	json_object_object_add(o, "changes", a);
	return o;
}

char *osb_diff_json(const osb_diff *d)
{
	return d ? ovl_json_text(ovl_changes_json(d)) : NULL;
}

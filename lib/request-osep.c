/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* request-osep.c — OSEP-0013's spelling of a request, read as the native one.
 *
 * OpenSandbox's execd proposal (OSEP-0013, "bash in bubblewrap") names the
 * same requests differently: "share_net" (a boolean), "env_passthrough"
 * {"mode", "keys"} and an integer "idle_timeout_seconds". Each is rewritten
 * here into the native key ("network", "env" {"mode", "pass"},
 * "idle_timeout") before the request is read, so both spellings meet the
 * same checks and the same narrowing rules (request.c); asking for the same
 * thing both ways is refused, as is a value of the wrong type. The schema
 * text of OSEP-0013 was not at hand: the mapping follows its field names
 * (libosb-isolate(3), "OSEP-0013 REQUESTS").
 */
#include "request.h"

#include <json.h>
#include <stdarg.h>

static int oerr(osb_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int oerr(osb_error *err, const char *fmt, ...)
{
	char msg[sizeof(err->message)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return osb_err_set(err, OSB_E_POLICY, 0, "policy", "%s", msg);
}

static int both(json_object *top, const char *osep, const char *native, osb_error *err)
{
	if (json_object_object_get_ex(top, native, NULL))
		return oerr(err, "\"%s\" and \"%s\" ask for the same thing; give one of them", osep, native);
	return 0;
}

/* "share_net": true is "network": "host", false "network": "none". */
static int share_net(json_object *top, json_object *v, osb_error *err)
{
	int r = both(top, "share_net", "network", err);

	if (r < 0)
		return r;
	if (!json_object_is_type(v, json_type_boolean))
		return oerr(err, "\"share_net\" must be a boolean");
	return json_object_object_add(top, "network",
	                              json_object_new_string(json_object_get_boolean(v) ? "host" : "none"));
}

/* "env_passthrough": {"mode": "none"|"allowlist"|"all", "keys": [...]}:
 * none and allowlist are "env" {"mode": "clear"}, all is "inherit"; keys
 * are "pass" (none takes no keys). "clear" and "inherit" are read too. */
static int env_mode(json_object *m, bool have_keys, const char **out, osb_error *err)
{
	static const char *const words[][2] = {
		{ "none", "clear" }, { "allowlist", "clear" }, { "all", "inherit" },
		{ "clear", "clear" }, { "inherit", "inherit" },
	};
	const char *s;

	if (!json_object_is_type(m, json_type_string))
		return oerr(err, "\"env_passthrough.mode\" must be a string");
	s = json_object_get_string(m);
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(s, words[i][0]) == 0) {
			if (i == 0 && have_keys)
				return oerr(err, "\"env_passthrough\": mode \"none\" passes no keys; use "
				            "\"allowlist\"");
			*out = words[i][1];
			return 0;
		}
	return oerr(err, "\"env_passthrough.mode\": unknown value \"%s\" (expected \"none\", "
	            "\"allowlist\" or \"all\")", s);
}

static int env_passthrough(json_object *top, json_object *v, osb_error *err)
{
	json_object *env, *mode = NULL, *keys = NULL;
	const char *native = NULL;
	int r = both(top, "env_passthrough", "env", err);

	if (r < 0)
		return r;
	if (!json_object_is_type(v, json_type_object))
		return oerr(err, "\"env_passthrough\" must be an object");
	json_object_object_foreach(v, k, val) {
		if (strcmp(k, "mode") == 0)
			mode = val;
		else if (strcmp(k, "keys") == 0)
			keys = val;
		else
			return oerr(err, "unknown key \"%s\" in \"env_passthrough\" (\"mode\", \"keys\")", k);
	}
	if (mode && (r = env_mode(mode, keys && json_object_array_length(keys) > 0, &native, err)) < 0)
		return r;
	if (keys && !json_object_is_type(keys, json_type_array))
		return oerr(err, "\"env_passthrough.keys\" must be an array of strings");
	if (!(env = json_object_new_object()))
		return -OSB_E_NOMEM;
	if (native)
		json_object_object_add(env, "mode", json_object_new_string(native));
	if (keys)
		json_object_object_add(env, "pass", json_object_get(keys));
	return json_object_object_add(top, "env", env);
}

/* "idle_timeout_seconds": N is "idle_timeout": "Ns". */
static int idle_seconds(json_object *top, json_object *v, osb_error *err)
{
	char text[32];
	int64_t n;
	int r = both(top, "idle_timeout_seconds", "idle_timeout", err);

	if (r < 0)
		return r;
	if (!json_object_is_type(v, json_type_int))
		return oerr(err, "\"idle_timeout_seconds\" must be an integer");
	n = json_object_get_int64(v);
	if (n <= 0 || n > 100L * 365 * 24 * 3600)
		return oerr(err, "\"idle_timeout_seconds\": %lld is out of range (1 to 3153600000)",
		            (long long)n);
	snprintf(text, sizeof(text), "%llds", (long long)n);
	return json_object_object_add(top, "idle_timeout", json_object_new_string(text));
}

int request_osep_translate(json_object *top, osb_error *err)
{
	static const struct {
		const char *key;
		int (*fn)(json_object *top, json_object *v, osb_error *err);
	} keys[] = {
		{ "share_net", share_net },
		{ "env_passthrough", env_passthrough },
		{ "idle_timeout_seconds", idle_seconds },
	};

	if (!json_object_is_type(top, json_type_object))
		return 0;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_object *v;
		int r;

		if (!json_object_object_get_ex(top, keys[i].key, &v))
			continue;
		json_object_get(v);
		r = keys[i].fn(top, v, err);
		if (r == 0)
			json_object_object_del(top, keys[i].key);
		json_object_put(v);
		if (r < 0)
			return r == -OSB_E_NOMEM || r == -1
			       ? osb_err_set(err, OSB_E_NOMEM, ENOMEM, "policy", "out of memory") : r;
	}
	return 0;
}

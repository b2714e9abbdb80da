/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* request.c — an execd request narrows a policy (osb_policy_apply_json).
 *
 * The second step of the pipeline: a reviewed policy is the baseline, and a
 * request from the execution daemon may only make it narrower (a read-only
 * workspace, no network, a clear environment), or add what the policy
 * explicitly leaves open (writable paths beneath its declared write-roots,
 * read-only paths beneath its read-roots, the host network under
 * "allow-caller network", variable names its deny list does not match, a
 * non-zero uid/gid). The run options of the CLI go through the same
 * checks (policy.c), so both refuse alike. The
 * request is read in full and checked against the baseline before anything
 * changes, so a refused request leaves the policy as it was. A key that is
 * not understood is an error, never skipped: a misspelled "netwrok" that was
 * ignored would be a narrowing the caller believes in and does not get.
 * Every change is recorded with the origin "api", so explain shows it.
 */
#include "request.h"
#include "hostpath.h"
#include "hostid.h"
#include "jsonscan.h"
#include "policy-netallow.h"

#include <json.h>
#include <stdarg.h>

#define REQUEST_MAX_BYTES ((size_t)1 << 20)
#define ID_MAX 4294967294LL
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* What a request asks for, read and type-checked; NULL or -1: not asked. */
typedef struct request {
	const char *profile;        /* the baseline's name (request-load.c) */
	const char *ws_path;
	const char *ws_persist;     /* an overlay's persisted layer (lib/layer.h) */
	int ws_mode;                /* WS_RO, WS_RW, WS_OVERLAY; -1: not given */
	json_object *extra;         /* array of strings */
	json_object *read_only;     /* array of strings */
	int net;                    /* NET_NONE, NET_HOST */
	json_object *net_allow;     /* array of strings: "network_allow" */
	int env_base;               /* ENV_CLEAR, ENV_INHERIT */
	json_object *env_pass;      /* array of strings */
	json_object *env_set;       /* object of strings */
	int64_t uid, gid;
	int64_t host_uid, host_gid; /* pinned host ids (root callers) */
	uint64_t idle_ms;           /* 0: not asked */
	/* "limits": {"memory": "1GiB", ...}: values in the policy's grammar. */
	bool lim_set[LIM__COUNT];
	uint64_t lim[LIM__COUNT];
} request;

typedef int (*key_fn)(request *rq, json_object *v, osb_error *err);

typedef struct key_def {
	const char *name;
	key_fn fn;
} key_def;

static int rerr(osb_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int rerr(osb_error *err, const char *fmt, ...)
{
	char msg[sizeof(err->message)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return osb_err_set(err, OSB_E_POLICY, 0, "policy", "%s", msg);
}

static int nomem(osb_error *err)
{
	return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "policy", "out of memory while applying the request");
}

static const char *type_name(json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null: return "null";
	case json_type_boolean: return "a boolean";
	case json_type_double: return "a fractional number";
	case json_type_int: return "a number";
	case json_type_string: return "a string";
	case json_type_array: return "an array";
	case json_type_object: return "an object";
	}
	return "an unknown type";
}

/* The string value of KEY, or an error naming the key and what it is. */
static int want_string(json_object *v, const char *key, const char **out, osb_error *err)
{
	if (!json_object_is_type(v, json_type_string))
		return rerr(err, "\"%s\" must be a string, not %s", key, type_name(v));
	if ((size_t)json_object_get_string_len(v) != strlen(json_object_get_string(v)))
		return rerr(err, "\"%s\" contains a NUL byte", key);
	*out = json_object_get_string(v);
	return 0;
}

/* One of WORDS (index in *OUT), or an error with the closest word. */
static int want_word(json_object *v, const char *key, const char *const *words, size_t n,
                     int *out, osb_error *err)
{
	const char *s, *near;
	int r;

	if ((r = want_string(v, key, &s, err)) < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(s, words[i]) == 0) {
			*out = (int)i;
			return 0;
		}
	}
	near = policy_suggest(s, words, n);
	if (near)
		return rerr(err, "\"%s\": unknown value \"%s\" (did you mean \"%s\"?)", key, s, near);
	if (n == 3)
		return rerr(err, "\"%s\": unknown value \"%s\" (expected \"%s\", \"%s\" or \"%s\")", key,
		            s, words[0], words[1], words[2]);
	return rerr(err, "\"%s\": unknown value \"%s\" (expected \"%s\" or \"%s\")", key, s,
	            words[0], words[1]);
}

static int want_kind(json_object *v, const char *key, enum json_type type, const char *what,
                     osb_error *err)
{
	if (!json_object_is_type(v, type))
		return rerr(err, "\"%s\" must be %s, not %s", key, what, type_name(v));
	return 0;
}

/* Dispatch every key of object OBJ (at PATH, "" for the top) to KEYS: an
 * unknown key is an error with the closest known one. */
static int walk(request *rq, json_object *obj, const char *path, const key_def *keys, size_t n,
                osb_error *err)
{
	const char *names[16];

	for (size_t i = 0; i < n; i++)
		names[i] = keys[i].name;
	json_object_object_foreach(obj, k, v) {
		const char *near;
		char where[64] = "";
		size_t i;
		int r;

		for (i = 0; i < n && strcmp(k, keys[i].name) != 0; i++)
			;
		if (i < n) {
			if ((r = keys[i].fn(rq, v, err)) < 0)
				return r;
			continue;
		}
		near = policy_suggest(k, names, n);
		if (*path)
			snprintf(where, sizeof(where), " in \"%s\"", path);
		if (near)
			return rerr(err, "unknown key \"%s\"%s (did you mean \"%s\"?)", k, where, near);
		return rerr(err, "unknown key \"%s\"%s", k, where);
	}
	return 0;
}

/* ---- reading the request --------------------------------------------------- */

static int k_profile(request *rq, json_object *v, osb_error *err)
{
	/* The daemon's choice of the baseline: made before osb_policy_apply_json,
	 * or by osb_request_load. */
	return want_string(v, "profile", &rq->profile, err);
}

static int k_ws_path(request *rq, json_object *v, osb_error *err)
{
	return want_string(v, "workspace.path", &rq->ws_path, err);
}

static int k_ws_persist(request *rq, json_object *v, osb_error *err)
{
	return want_string(v, "workspace.persist", &rq->ws_persist, err);
}

static int k_ws_mode(request *rq, json_object *v, osb_error *err)
{
	static const char *const modes[] = { "ro", "rw", "overlay" };
	static const enum ws_mode mode_of[] = { WS_RO, WS_RW, WS_OVERLAY };
	int k = 0, r = want_word(v, "workspace.mode", modes, 3, &k, err);

	rq->ws_mode = (int)mode_of[k];
	return r;
}

static int k_workspace(request *rq, json_object *v, osb_error *err)
{
	static const key_def keys[] = { { "path", k_ws_path }, { "mode", k_ws_mode },
	                                { "persist", k_ws_persist } };
	int r = want_kind(v, "workspace", json_type_object, "an object", err);

	return r < 0 ? r : walk(rq, v, "workspace", keys, ARRAY_SIZE(keys), err);
}

static int k_extra(request *rq, json_object *v, osb_error *err)
{
	rq->extra = v;
	return want_kind(v, "extra_writable", json_type_array, "an array of strings", err);
}

static int k_read_only(request *rq, json_object *v, osb_error *err)
{
	rq->read_only = v;
	return want_kind(v, "read_only", json_type_array, "an array of strings", err);
}

static int k_network(request *rq, json_object *v, osb_error *err)
{
	static const char *const modes[] = { "none", "host" };
	int k = 0, r = want_word(v, "network", modes, 2, &k, err);

	rq->net = k == 0 ? NET_NONE : NET_HOST;
	return r;
}

static int k_net_allow(request *rq, json_object *v, osb_error *err)
{
	rq->net_allow = v;
	return want_kind(v, "network_allow", json_type_array, "an array of strings", err);
}

static int k_env_mode(request *rq, json_object *v, osb_error *err)
{
	static const char *const modes[] = { "clear", "inherit" };
	int k = 0, r = want_word(v, "env.mode", modes, 2, &k, err);

	rq->env_base = k == 0 ? ENV_CLEAR : ENV_INHERIT;
	return r;
}

static int k_env_pass(request *rq, json_object *v, osb_error *err)
{
	rq->env_pass = v;
	return want_kind(v, "env.pass", json_type_array, "an array of strings", err);
}

static int k_env_set(request *rq, json_object *v, osb_error *err)
{
	rq->env_set = v;
	return want_kind(v, "env.set", json_type_object, "an object of strings", err);
}

static int k_env(request *rq, json_object *v, osb_error *err)
{
	static const key_def keys[] = { { "mode", k_env_mode }, { "pass", k_env_pass }, { "set", k_env_set } };
	int r = want_kind(v, "env", json_type_object, "an object", err);

	return r < 0 ? r : walk(rq, v, "env", keys, ARRAY_SIZE(keys), err);
}

/* A uid or gid a request may choose: never 0, whatever the baseline. */
static int want_id(json_object *v, const char *key, int64_t *out, osb_error *err)
{
	int64_t id;
	int r = want_kind(v, key, json_type_int, "an integer", err);

	if (r < 0)
		return r;
	id = json_object_get_int64(v);
	if (id == 0)
		return rerr(err, "\"%s\": 0 is refused: a request may only choose a non-zero %s", key, key);
	if (id < 0 || id > ID_MAX)
		return rerr(err, "\"%s\": %s is out of range (1 to 4294967294)", key,
		            json_object_to_json_string(v));
	*out = id;
	return 0;
}

static int k_uid(request *rq, json_object *v, osb_error *err)
{
	return want_id(v, "uid", &rq->uid, err);
}

static int k_gid(request *rq, json_object *v, osb_error *err)
{
	return want_id(v, "gid", &rq->gid, err);
}

/* A request may pin the host ids of a root caller's sandbox to ids that
 * belong to nobody, as allocation would; an account's ids would widen what
 * the sandbox can reach on the host (its files, its sockets): only the C
 * API (the daemon itself) or a reviewed policy may choose those. */
static int k_host_uid(request *rq, json_object *v, osb_error *err)
{
	int r = want_id(v, "host_uid", &rq->host_uid, err);

	if (r == 0 && hostid_uid_is_account((uint32_t)rq->host_uid))
		return rerr(err, "\"host_uid\": %lld belongs to an account; a request may only pin ids "
		            "no passwd entry uses", (long long)rq->host_uid);
	return r;
}

static int k_host_gid(request *rq, json_object *v, osb_error *err)
{
	int r = want_id(v, "host_gid", &rq->host_gid, err);

	if (r == 0 && hostid_gid_is_group((uint32_t)rq->host_gid))
		return rerr(err, "\"host_gid\": %lld belongs to a group; a request may only pin ids "
		            "no group entry uses", (long long)rq->host_gid);
	return r;
}

/* Read for the session layer (osb_session_opts_apply_json), which owns idle
 * sessions; a one-shot run has no idle time, so nothing in the policy
 * changes. */
static int k_idle(request *rq, json_object *v, osb_error *err)
{
	const char *s;
	uint64_t ms;
	int r;

	if ((r = want_string(v, "idle_timeout", &s, err)) < 0)
		return r;
	if (parse_duration_ms(s, &ms) < 0)
		return rerr(err, "\"idle_timeout\": invalid duration \"%s\" (a whole number with a unit: "
		            "ms, s, m or h)", s);
	if (ms == 0)
		return rerr(err, "\"idle_timeout\" must be greater than zero");
	rq->idle_ms = ms;
	return 0;
}

/* "limits": {"NAME": "VALUE", ...}, NAME and VALUE as "limit NAME VALUE"
 * writes them. Lowering only is checked against the policy (check_limits). */
static int k_limits(request *rq, json_object *v, osb_error *err)
{
	int r = want_kind(v, "limits", json_type_object, "an object", err);

	if (r < 0)
		return r;
	json_object_object_foreach(v, name, val) {
		char key[64];
		const char *s;
		size_t k;

		for (k = 0; k < LIM__COUNT && strcmp(name, osb_limit_names[k]) != 0; k++)
			;
		snprintf(key, sizeof(key), "limits.%s", name);
		if (k == LIM__COUNT)
			return rerr(err, "unknown key \"%s\" in \"limits\" (a limit's name, as in "
			            "\"limit NAME VALUE\")", name);
		if ((r = want_string(val, key, &s, err)) < 0)
			return r;
		if (policy_limit_parse((unsigned)k, s, &rq->lim[k]) < 0)
			return rerr(err, "\"%s\": invalid value \"%s\" (as the policy writes \"limit %s\")",
			            key, s, name);
		rq->lim_set[k] = true;
	}
	return 0;
}

static int read_request(request *rq, json_object *top, osb_error *err)
{
	static const key_def keys[] = {
		{ "profile", k_profile }, { "workspace", k_workspace }, { "extra_writable", k_extra },
		{ "read_only", k_read_only }, { "network", k_network }, { "env", k_env },
		{ "network_allow", k_net_allow },
		{ "uid", k_uid }, { "gid", k_gid }, { "host_uid", k_host_uid }, { "host_gid", k_host_gid },
		{ "idle_timeout", k_idle }, { "limits", k_limits },
	};
	int r;

	if (!json_object_is_type(top, json_type_object))
		return rerr(err, "the request must be a JSON object, not %s", type_name(top));
	if ((r = walk(rq, top, "", keys, ARRAY_SIZE(keys), err)) < 0)
		return r;
	if ((rq->host_uid < 0) != (rq->host_gid < 0))
		return rerr(err, "\"host_uid\" and \"host_gid\" go together: pin both or neither");
	return 0;
}

/* ---- what a request may ask for at all --------------------------------------- */

/* Everything a request can be refused for without a policy is checked here,
 * as it is read, for both entry points: a request osb_session_opts_apply_json
 * accepts is one osb_policy_apply_json reads the same way (libosb-isolate(3)). */

/* The early, lexical refusal of a system directory; the plan repeats it
 * by inode. */
static int check_system(const char *key, const char *path, osb_error *err)
{
	char buf[512];
	const char *why = path_system_problem(path, buf, sizeof(buf));

	if (why)
		return rerr(err, "\"%s\": \"%s\": %s", key, path, why);
	return 0;
}

/* A check of policy.c, reported as a refused request: "KEY": message. */
static int as_request(int r, const char *key, osb_error *err)
{
	char msg[sizeof(err->message)];

	if (r >= 0)
		return r;
	if (r == -OSB_E_NOMEM)
		return r;
	snprintf(msg, sizeof(msg), "%s", err->message);
	return rerr(err, "\"%s\": %s", key, msg);
}

/* The string at index I of array ARR (named KEY), into *OUT. */
static int want_item(json_object *arr, size_t i, const char *key, const char **out, osb_error *err)
{
	char name[48];

	snprintf(name, sizeof(name), "%s[%zu]", key, i);
	return want_string(json_object_array_get_idx(arr, i), name, out, err);
}

static int valid_dir(const char *key, const char *path, osb_error *err)
{
	const char *why;

	if (!path)
		return 0;
	why = policy_path_problem(path, true);
	if (why)
		return rerr(err, "\"%s\": %s: \"%s\" (pass a canonical absolute path)", key, why, path);
	if (strlen(path) >= PATH_MAX)
		return rerr(err, "\"%s\": path is longer than %d bytes", key, PATH_MAX - 1);
	return check_system(key, path, err);
}

static int valid_workspace(const request *rq, osb_error *err)
{
	int r = valid_dir("workspace.path", rq->ws_path, err);

	return r < 0 ? r : valid_dir("workspace.persist", rq->ws_persist, err);
}

/* Each "network_allow" item a string that reads as an entry; whether the
 * policy covers it is for check_network. */
static int valid_net_allow(const request *rq, osb_error *err)
{
	size_t n = rq->net_allow ? json_object_array_length(rq->net_allow) : 0;
	const osb_policy host = { .net = NET_HOST };
	const char *s;
	char key[48];
	int r;

	for (size_t i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "network_allow[%zu]", i);
		if ((r = want_item(rq->net_allow, i, "network_allow", &s, err)) < 0 ||
		    (r = policy_check_net_allow(&host, &s, 1, key, OSB_E_POLICY, err)) < 0)
			return r;
	}
	return 0;
}

static int valid_paths(const request *rq, osb_error *err)
{
	size_t n = rq->extra ? json_object_array_length(rq->extra) : 0;
	char key[48], quoted[sizeof(key) + 2];
	const char *path;
	int r;

	for (size_t i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "extra_writable[%zu]", i);
		snprintf(quoted, sizeof(quoted), "\"%s\"", key);
		if ((r = want_item(rq->extra, i, "extra_writable", &path, err)) < 0 ||
		    (r = policy_check_writable_path(path, quoted, OSB_E_POLICY, err)) < 0 ||
		    (r = check_system(key, path, err)) < 0)
			return r;
	}
	n = rq->read_only ? json_object_array_length(rq->read_only) : 0;
	for (size_t i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "read_only[%zu]", i);
		if ((r = want_item(rq->read_only, i, "read_only", &path, err)) < 0 ||
		    (r = as_request(policy_check_read_only_path(path, err), key, err)) < 0 ||
		    (r = check_system(key, path, err)) < 0)
			return r;
	}
	return 0;
}

/* A name and where it stands: the policy's names first, then the request's. */
typedef struct name_ref {
	const char *s;
	size_t pos;
} name_ref;

static int name_ref_cmp(const void *a, const void *b)
{
	const name_ref *x = a, *y = b;
	int c = strcmp(x->s, y->s);

	return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* The first index of S among the REFS (N, sorted by name_ref_cmp), or N. */
static size_t refs_find(const name_ref *refs, size_t n, const char *s)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(refs[mid].s, s) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && strcmp(refs[lo].s, s) == 0 ? lo : n;
}

/* The strings of ARR (checked strings) with their indexes, sorted; NULL:
 * out of memory. */
static name_ref *refs_of(json_object *arr, size_t n)
{
	name_ref *refs = calloc(n ? n : 1, sizeof(*refs));

	for (size_t i = 0; refs && i < n; i++)
		refs[i] = (name_ref){ json_object_get_string(json_object_array_get_idx(arr, i)), i };
	if (refs)
		qsort(refs, n, sizeof(*refs), name_ref_cmp);
	return refs;
}

/* A path asked for both writable and read-only: neither grant may decide
 * for the other, and applying one before refusing the other would leave
 * the policy changed. */
static int valid_one_way(const request *rq, osb_error *err)
{
	size_t nw = rq->extra ? json_object_array_length(rq->extra) : 0;
	size_t nr = rq->read_only ? json_object_array_length(rq->read_only) : 0;
	_cleanup_free_ name_ref *w = NULL;

	if (nw == 0 || nr == 0)
		return 0;
	if (!(w = refs_of(rq->extra, nw)))
		return nomem(err);
	for (size_t i = 0; i < nr; i++) {
		const char *path = json_object_get_string(json_object_array_get_idx(rq->read_only, i));
		size_t k = refs_find(w, nw, path);

		if (k < nw)
			return rerr(err, "\"read_only[%zu]\": \"%s\" is also in \"extra_writable\" (at %zu): a "
			            "request asks for a path one way", i, path, w[k].pos);
	}
	return 0;
}

/* A name a request adds (pass or set) is a plain name, not a pattern. */
static int valid_env_name(const char *key, const char *name, osb_error *err)
{
	if (!policy_env_name_ok(name, strlen(name)))
		return rerr(err, "\"%s\": invalid environment variable name \"%s\" (letters, digits and "
		            "\"_\", not starting with a digit; a request names variables, not patterns)",
		            key, name);
	return 0;
}

/* The value becomes an "env set" rule of the canonical form, which must
 * read back as the same policy and cannot be made to show a forged line. */
static int check_env_value(const char *key, const char *value, osb_error *err)
{
	const char *why = policy_text_problem(value, false);
	size_t len = strlen(value);

	if (why)
		return rerr(err, "\"%s\": value %s", key, why);
	if (len > 0 && (value[len - 1] == ' ' || value[len - 1] == '\t'))
		return rerr(err, "\"%s\": value ends with a space or tab, which a policy line cannot hold",
		            key);
	return 0;
}

static int valid_env(const request *rq, osb_error *err)
{
	size_t n = rq->env_pass ? json_object_array_length(rq->env_pass) : 0;
	int r;

	for (size_t i = 0; i < n; i++) {
		char key[48];
		const char *name;

		snprintf(key, sizeof(key), "env.pass[%zu]", i);
		if ((r = want_item(rq->env_pass, i, "env.pass", &name, err)) < 0 ||
		    (r = valid_env_name(key, name, err)) < 0)
			return r;
	}
	if (!rq->env_set)
		return 0;
	json_object_object_foreach(rq->env_set, k, v) {
		char key[sizeof("env.set.") + 64];
		const char *value;

		snprintf(key, sizeof(key), "env.set.%.64s", k);
		if ((r = want_string(v, key, &value, err)) < 0 || (r = valid_env_name(key, k, err)) < 0 ||
		    (r = check_env_value(key, value, err)) < 0)
			return r;
	}
	return 0;
}

static int validate(const request *rq, osb_error *err)
{
	int r;

	if ((r = valid_workspace(rq, err)) < 0 || (r = valid_paths(rq, err)) < 0 ||
	    (r = valid_one_way(rq, err)) < 0 || (r = valid_net_allow(rq, err)) < 0)
		return r;
	return valid_env(rq, err);
}

/* ---- checking it against the policy --------------------------------------- */

static const char *origin_of(const osb_origin *o, char *buf, size_t size)
{
	policy_origin_format(o, buf, size);
	return buf;
}

/* A workspace, and a persisted layer, must lie strictly beneath a
 * configured root, if any. KEY names the request's key. */
static int check_roots(const osb_policy *p, const char *key, const char *path, osb_error *err)
{
	char list[768];
	size_t used = 0;

	list[0] = '\0';
	for (size_t i = 0; i < p->n_ws_roots; i++) {
		if (policy_path_beneath(p->ws_roots[i], path))
			return 0;
		if (used < sizeof(list)) {
			int w = snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "",
			                 p->ws_roots[i]);

			used += w > 0 ? (size_t)w : 0;
		}
	}
	if (!p->n_ws_roots)
		return 0;
	return rerr(err, "\"%s\": \"%s\" is not beneath a configured workspace root "
	            "(workspace-root in %s: %s)", key, path, p->ws_roots_from ? p->ws_roots_from :
	            "api", list);
}

static int check_workspace(const osb_policy *p, const request *rq, osb_error *err)
{
	char o[POLICY_ORIGIN_MAX];
	int r;

	if (!rq->ws_path && rq->ws_mode < 0 && !rq->ws_persist)
		return 0;
	if (p->ws_mode == WS_NONE)
		return rerr(err, "\"workspace\" is refused: the policy has \"workspace none\" (%s), so a "
		            "request cannot add a workspace", origin_of(&p->ws_set.o, o, sizeof(o)));
	if (rq->ws_mode >= 0 &&
	    (r = policy_check_ws_mode(p, (enum ws_mode)rq->ws_mode, "\"workspace.mode\"", "request",
	                              err)) < 0)
		return r;
	if (rq->ws_persist && (rq->ws_mode >= 0 ? rq->ws_mode : (int)p->ws_mode) != WS_OVERLAY)
		return rerr(err, "\"workspace.persist\" needs an overlay workspace: the workspace is "
		            "\"%s\" (%s); ask for \"mode\": \"overlay\" as well",
		            policy_ws_names[rq->ws_mode >= 0 ? rq->ws_mode : (int)p->ws_mode],
		            rq->ws_mode >= 0 ? "request" : origin_of(&p->ws_set.o, o, sizeof(o)));
	if (rq->ws_persist && (r = check_roots(p, "workspace.persist", rq->ws_persist, err)) < 0)
		return r;
	return rq->ws_path ? check_roots(p, "workspace.path", rq->ws_path, err) : 0;
}

static int check_extra(const osb_policy *p, const request *rq, osb_error *err)
{
	size_t n = rq->extra ? json_object_array_length(rq->extra) : 0;

	for (size_t i = 0; i < n; i++) {
		const char *path = json_object_get_string(json_object_array_get_idx(rq->extra, i));
		char key[48];
		int r;

		snprintf(key, sizeof(key), "\"extra_writable[%zu]\"", i);
		if ((r = policy_check_writable(p, path, key, OSB_E_POLICY, err)) < 0)
			return r;
	}
	return 0;
}

static int check_read_only(const osb_policy *p, const request *rq, osb_error *err)
{
	size_t n = rq->read_only ? json_object_array_length(rq->read_only) : 0;

	for (size_t i = 0; i < n; i++) {
		const char *path = json_object_get_string(json_object_array_get_idx(rq->read_only, i));
		char key[48];
		int r;

		snprintf(key, sizeof(key), "read_only[%zu]", i);
		if ((r = as_request(policy_check_read_only(p, path, err), key, err)) < 0)
			return r;
	}
	return 0;
}

/* "network_allow": the strings of the array, checked against P
 * (policy-netallow.c); *LIST is malloc'd, its strings are the request's. */
static int net_allow_list(const osb_policy *p, const request *rq, const char ***list, size_t *n,
                          osb_error *err)
{
	size_t len = json_object_array_length(rq->net_allow);
	const char **v = calloc(len ? len : 1, sizeof(*v));

	if (!v)
		return nomem(err);
	for (size_t i = 0; i < len; i++)
		v[i] = json_object_get_string(json_object_array_get_idx(rq->net_allow, i));
	*list = v;
	*n = len;
	return policy_check_net_allow(p, v, len, "network_allow", OSB_E_POLICY, err);
}

static int check_network(const osb_policy *p, const request *rq, osb_error *err)
{
	_cleanup_free_ const char **v = NULL;
	size_t n = 0;

	if (rq->net_allow && rq->net >= 0)
		return rerr(err, "\"network\" and \"network_allow\" do not go together: ask for "
		            "\"network\": \"none\", or for the hosts to keep");
	if (rq->net_allow)
		return net_allow_list(p, rq, &v, &n, err);
	if (rq->net != NET_HOST)
		return 0;
	return as_request(policy_check_network(p, err), "network", err);
}

static int apply_net_allow(osb_policy *p, const request *rq, osb_error *err)
{
	_cleanup_free_ const char **v = NULL;
	size_t n = 0;
	int r = net_allow_list(p, rq, &v, &n, err);

	return r < 0 ? r : policy_set_net_allow(p, v, n, err);
}

static const pol_str *deny_match(const osb_policy *p, const char *name)
{
	for (size_t i = 0; i < p->n_env_deny; i++)
		if (env_deny_match(p->env_deny[i].s, name))
			return &p->env_deny[i];
	return NULL;
}

/* A name a request adds (pass or set) must not match the policy's deny
 * list: deny wins over a request, as over inherit. */
static int check_env_name(const osb_policy *p, const char *key, const char *name, osb_error *err)
{
	char o[POLICY_ORIGIN_MAX];
	const pol_str *d = deny_match(p, name);

	if (d)
		return rerr(err, "\"%s\": \"%s\" is refused: it matches \"env deny %s\" (%s), and deny "
		            "wins over a request", key, name, d->s, origin_of(&d->o, o, sizeof(o)));
	return 0;
}

static int check_env(const osb_policy *p, const request *rq, osb_error *err)
{
	char o[POLICY_ORIGIN_MAX];
	size_t n = rq->env_pass ? json_object_array_length(rq->env_pass) : 0;
	int r;

	if (rq->env_base == ENV_INHERIT && p->env_base == ENV_CLEAR)
		return rerr(err, "\"env.mode\": \"inherit\" is refused: the policy has \"env clear\" (%s), "
		            "and a request may only narrow it", origin_of(&p->env_base_set.o, o, sizeof(o)));
	for (size_t i = 0; i < n; i++) {
		const char *name = json_object_get_string(json_object_array_get_idx(rq->env_pass, i));
		char key[48];

		snprintf(key, sizeof(key), "env.pass[%zu]", i);
		if ((r = check_env_name(p, key, name, err)) < 0)
			return r;
	}
	if (!rq->env_set)
		return 0;
	json_object_object_foreach(rq->env_set, k, v) {
		char key[sizeof("env.set.") + 64];

		(void)v;
		snprintf(key, sizeof(key), "env.set.%.64s", k);
		if ((r = check_env_name(p, key, k, err)) < 0)
			return r;
	}
	return 0;
}

/* ---- applying it ----------------------------------------------------------- */

/* Which strings of ARR (N) are new: in none of OLD (N_OLD) and not earlier
 * in ARR; *ADD (N flags) says. Sorting all of them once keeps this n log n:
 * a search per string, or a check against everything added before, made a
 * 1 MiB request take a minute. */
static int new_strings(const char *const *old, size_t n_old, json_object *arr, size_t n, bool *add)
{
	size_t total = n_old + n;
	_cleanup_free_ name_ref *refs = calloc(total ? total : 1, sizeof(*refs));

	if (!refs)
		return -ENOMEM;
	for (size_t i = 0; i < n_old; i++)
		refs[i] = (name_ref){ old[i], i };
	for (size_t i = 0; i < n; i++)
		refs[n_old + i] = (name_ref){ json_object_get_string(json_object_array_get_idx(arr, i)),
		                              n_old + i };
	qsort(refs, total, sizeof(*refs), name_ref_cmp);
	/* The first of each string wins; it is added if the request has it. */
	for (size_t k = 0; k < total; k++)
		if (refs[k].pos >= n_old && (k == 0 || strcmp(refs[k - 1].s, refs[k].s) != 0))
			add[refs[k].pos - n_old] = true;
	return 0;
}

/* How a list of the policy grows: RESERVE makes room for N more entries
 * at once (one reallocation per request, not one per entry: that was
 * quadratic where every realloc copies), ADD_ONE copies one in. */
typedef struct list_ops {
	int (*reserve)(osb_policy *p, size_t n);
	int (*add_one)(osb_policy *p, const char *s);
} list_ops;

/* Each string of ARR that new_strings finds new, copied in by OPS. */
static int add_new(const char *const *old, size_t n_old, json_object *arr,
                   const list_ops *ops, osb_policy *p)
{
	size_t n = arr ? json_object_array_length(arr) : 0, m = 0;
	_cleanup_free_ bool *add = calloc(n ? n : 1, sizeof(*add));

	if (!add || new_strings(old, n_old, arr, n, add) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		m += add[i];
	if (m == 0)
		return 0;
	if (ops->reserve(p, m) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (add[i] && ops->add_one(p, json_object_get_string(json_object_array_get_idx(arr, i))) < 0)
			return -ENOMEM;
	return 0;
}

static int reserve_env_pass(osb_policy *p, size_t n)
{
	pol_str *v = reallocarray(p->env_pass, p->n_env_pass + n, sizeof(*v));

	if (!v)
		return -ENOMEM;
	p->env_pass = v;
	return 0;
}

static int add_env_pass(osb_policy *p, const char *name)
{
	if (!(p->env_pass[p->n_env_pass].s = strdup(name)))
		return -ENOMEM;
	p->env_pass[p->n_env_pass++].o = policy_api_origin;
	return 0;
}

static int reserve_writes(osb_policy *p, size_t n)
{
	pol_str *v = reallocarray(p->writes, p->n_writes + n, sizeof(*v));

	if (!v)
		return -ENOMEM;
	p->writes = v;
	return 0;
}

static int add_write(osb_policy *p, const char *path)
{
	if (!(p->writes[p->n_writes].s = strdup(path)))
		return -ENOMEM;
	p->writes[p->n_writes++].o = policy_api_origin;
	return 0;
}

static int reserve_mounts(osb_policy *p, size_t n)
{
	pol_mount *v = reallocarray(p->mounts, p->n_mounts + n, sizeof(*v));

	if (!v)
		return -ENOMEM;
	p->mounts = v;
	return 0;
}

static int add_read_only(osb_policy *p, const char *path)
{
	pol_mount *v = p->mounts;

	v[p->n_mounts] = (pol_mount){ MNT_RO_BIND, strdup(path), policy_api_origin, NULL, 0 };
	if (!v[p->n_mounts].path)
		return -ENOMEM;
	p->n_mounts++;
	return 0;
}

static const list_ops env_pass_ops = { reserve_env_pass, add_env_pass };
static const list_ops writes_ops = { reserve_writes, add_write };
static const list_ops read_only_ops = { reserve_mounts, add_read_only };

/* The names, writes and read-only binds a request adds: each was checked
 * against the policy (check_*) and the request against itself (validate),
 * so only what is there already, or repeated, is left out. */
static int apply_lists(osb_policy *p, const request *rq)
{
	size_t n = p->n_env_pass > p->n_writes ? p->n_env_pass : p->n_writes;
	_cleanup_free_ const char **old = calloc((n > p->n_mounts ? n : p->n_mounts) + 1, sizeof(*old));
	size_t k = 0;
	int r;

	if (!old)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_env_pass; i++)
		old[i] = p->env_pass[i].s;
	if ((r = add_new(old, p->n_env_pass, rq->env_pass, &env_pass_ops, p)) < 0)
		return r;
	for (size_t i = 0; i < p->n_writes; i++)
		old[i] = p->writes[i].s;
	if ((r = add_new(old, p->n_writes, rq->extra, &writes_ops, p)) < 0)
		return r;
	for (size_t i = 0; i < p->n_mounts; i++)
		if (p->mounts[i].kind == MNT_RO_BIND)
			old[k++] = p->mounts[i].path;
	return add_new(old, k, rq->read_only, &read_only_ops, p);
}

/* An "env set" entry by its name (the bytes before '='). */
typedef struct set_ref {
	const char *s;
	size_t len, idx;
} set_ref;

static int set_ref_cmp(const void *a, const void *b)
{
	const set_ref *x = a, *y = b;
	int c = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* NAME=VALUE replaces the policy's entry for NAME, or is added. The
 * policy's entries are sorted by name once and each request key is looked
 * up (n log n; a request names each key once, lib/jsonscan.h). */
static int apply_env_set(osb_policy *p, json_object *obj)
{
	size_t old = p->n_env_set, n = obj ? (size_t)json_object_object_length(obj) : 0;
	_cleanup_free_ set_ref *refs = NULL;
	pol_str *v;

	if (n == 0)
		return 0;
	refs = calloc(old ? old : 1, sizeof(*refs));
	v = reallocarray(p->env_set, old + n, sizeof(*v));
	if (v)
		p->env_set = v;
	if (!refs || !v)
		return -ENOMEM;
	for (size_t i = 0; i < old; i++) {
		const char *eq = strchr(v[i].s, '=');

		refs[i] = (set_ref){ v[i].s, eq ? (size_t)(eq - v[i].s) : strlen(v[i].s), i };
	}
	qsort(refs, old, sizeof(*refs), set_ref_cmp);
	json_object_object_foreach(obj, k, val) {
		set_ref key = { k, strlen(k), 0 };
		set_ref *hit = old ? bsearch(&key, refs, old, sizeof(*refs), set_ref_cmp) : NULL;
		char *entry = NULL;

		if (asprintf(&entry, "%s=%s", k, json_object_get_string(val)) < 0)
			return -ENOMEM;
		if (hit) {
			free(v[hit->idx].s);
			v[hit->idx] = (pol_str){ entry, policy_api_origin };
			hit->s = entry;   /* the same name, still sorted */
		} else {
			v[p->n_env_set++] = (pol_str){ entry, policy_api_origin };
		}
	}
	return 0;
}

/* A request may lower a limit, never raise it; an unset limit is unlimited. */
static int check_limits(const osb_policy *p, const request *rq, osb_error *err)
{
	for (size_t k = 0; k < LIM__COUNT; k++) {
		uint64_t have = p->limit_set[k].set ? p->limits[k] : UINT64_MAX;
		char o[POLICY_ORIGIN_MAX], want[32], cur[32];

		if (!rq->lim_set[k] || rq->lim[k] <= have)
			continue;
		policy_format_limit((unsigned)k, rq->lim[k], want, sizeof(want));
		policy_format_limit((unsigned)k, have, cur, sizeof(cur));
		return rerr(err, "\"limits.%s\": %s would raise the policy's \"limit %s %s\" (%s); a "
		            "request may only lower a limit", osb_limit_names[k], want, osb_limit_names[k],
		            cur, p->limit_set[k].set ? origin_of(&p->limit_set[k].o, o, sizeof(o))
		                                     : "default");
	}
	return 0;
}

static void apply_limits(osb_policy *p, const request *rq)
{
	for (size_t k = 0; k < LIM__COUNT; k++)
		if (rq->lim_set[k] && (!p->limit_set[k].set || rq->lim[k] != p->limits[k])) {
			p->limits[k] = rq->lim[k];
			p->limit_set[k] = (pol_set){ true, policy_api_origin };
		}
}

static int apply(osb_policy *p, const request *rq, osb_error *err)
{
	const pol_set api = { true, policy_api_origin };
	int r;

	if (rq->ws_path && (r = osb_policy_set_workspace(p, rq->ws_path, err)) < 0)
		return r;
	if (rq->ws_mode >= 0)
		policy_set_ws_mode(p, (enum ws_mode)rq->ws_mode);
	if (rq->ws_persist && (r = osb_policy_set_overlay_persist(p, rq->ws_persist, err)) < 0)
		return r;
	if (apply_lists(p, rq) < 0)
		return nomem(err);
	if (rq->net >= 0 && (enum net_mode)rq->net != p->net &&
	    (r = osb_policy_set_network(p, rq->net == NET_HOST ? OSB_NETWORK_HOST : OSB_NETWORK_NONE,
	                                err)) < 0)
		return r;
	if (rq->net_allow && (r = apply_net_allow(p, rq, err)) < 0)
		return r;
	if (rq->env_base >= 0 && (enum env_base)rq->env_base != p->env_base) {
		p->env_base = (enum env_base)rq->env_base;
		p->env_base_set = api;
	}
	if (apply_env_set(p, rq->env_set) < 0)
		return nomem(err);
	if ((rq->uid >= 0 && (uint32_t)rq->uid != p->uid) || (rq->gid >= 0 && (uint32_t)rq->gid != p->gid)) {
		if (rq->uid >= 0)
			p->uid = (uint32_t)rq->uid;
		if (rq->gid >= 0)
			p->gid = (uint32_t)rq->gid;
		p->user_set = api;
	}
	if (rq->host_uid >= 0) {
		p->host_uid = (uint32_t)rq->host_uid;
		p->host_gid = (uint32_t)rq->host_gid;
		p->host_ids_set = api;
	}
	apply_limits(p, rq);
	return 0;
}

/* ---- entry point ----------------------------------------------------------- */

/* What json-c accepts silently, refused (lib/jsonscan.h). */
static int scan_json(const char *json, size_t len, osb_error *err)
{
	size_t at = 0;

	switch (json_scan(json, len, &at)) {
	case JSCAN_OK:
		return 0;
	case JSCAN_DUP_KEY: {
		const char *k = json + at + 1, *q = strchr(k, '"');

		return rerr(err, "the request repeats the key \"%.*s\" (at byte %zu)",
		            (int)(q && q - k < 64 ? q - k : 64), k, at);
	}
	case JSCAN_SURROGATE:
		return rerr(err, "the request is not valid JSON: a lone surrogate %.6s (at byte %zu)",
		            json + at, at);
	case JSCAN_NOMEM:
		break;
	}
	return nomem(err);
}

static int parse_json(const char *json, json_object **out, osb_error *err)
{
	size_t len = strlen(json), end;
	json_tokener *tok = json_tokener_new();
	json_object *obj;
	enum json_tokener_error e;

	if (!tok)
		return nomem(err);
	/* Strict: no trailing text, commas or comments, no single quotes; and
	 * the strings must be UTF-8. */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	obj = json_tokener_parse_ex(tok, json, (int)len);
	e = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	if (e == json_tokener_continue && len > 0) {
		/* A number or literal at the top ends only at the end of input:
		 * say so (the terminating NUL), so that "1" is read as 1. */
		obj = json_tokener_parse_ex(tok, "", 1);
		e = json_tokener_get_error(tok) == json_tokener_success ? json_tokener_success
		                                                         : json_tokener_continue;
	}
	json_tokener_free(tok);
	if (e == json_tokener_continue)
		return rerr(err, "the request is not valid JSON: unexpected end of input");
	if (e != json_tokener_success) {
		json_object_put(obj);
		return rerr(err, "the request is not valid JSON: %s (at byte %zu)",
		            json_tokener_error_desc(e), end);
	}
	/* null is a valid JSON text: read_request names its type. */
	*out = obj;
	return scan_json(json, len, err);
}

#define REQUEST_INIT { .ws_mode = -1, .net = -1, .env_base = -1, .uid = -1, .gid = -1, \
                       .host_uid = -1, .host_gid = -1 }

/* Parse and type-check JSON into RQ; *TOP holds the strings RQ points at. */
static int load_request(const char *json, request *rq, json_object **top, osb_error *err)
{
	int r;

	if (strlen(json) > REQUEST_MAX_BYTES)
		return rerr(err, "the request is larger than 1 MiB");
	if ((r = parse_json(json, top, err)) < 0 || (r = request_osep_translate(*top, err)) < 0 ||
	    (r = read_request(rq, *top, err)) < 0)
		return r;
	return validate(rq, err);
}

/* Checked against the policy before anything changes. */
static int check_and_apply(osb_policy *p, const request *rq, osb_error *err)
{
	int r;

	if ((r = check_workspace(p, rq, err)) == 0 &&
	    (r = check_extra(p, rq, err)) == 0 &&
	    (r = check_read_only(p, rq, err)) == 0 &&
	    (r = check_network(p, rq, err)) == 0 &&
	    (r = check_env(p, rq, err)) == 0 &&
	    (r = check_limits(p, rq, err)) == 0)
		r = apply(p, rq, err);
	return r;
}

int osb_policy_apply_json(osb_policy *p, const char *json, osb_error *err)
{
	request rq = REQUEST_INIT;
	json_object *top = NULL;
	int r;

	if (!p || !json)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "policy",
		                   "apply_json: expected a policy and a JSON request");
	if ((r = load_request(json, &rq, &top, err)) == 0)
		r = check_and_apply(p, &rq, err);
	json_object_put(top);
	return r;
}

/* The same request, read the same way, so that a daemon never parses the
 * duration grammar itself and both halves agree on what was asked. */
int osb_session_opts_apply_json(osb_session_opts *o, const char *json, osb_error *err)
{
	request rq = REQUEST_INIT;
	json_object *top = NULL;
	int r;

	if (!o || !json)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "policy",
		                   "session_opts_apply_json: expected options and a JSON request");
	r = load_request(json, &rq, &top, err);
	if (r == 0 && rq.idle_ms)
		r = osb_session_opts_set_idle_timeout_ms(o, rq.idle_ms);
	json_object_put(top);
	return r;
}

/* ---- a request read once (request.h) ------------------------------------------ */

struct request_read {
	request rq;
	json_object *top;   /* holds the strings RQ points at */
};

int request_parse(const char *json, request_read **out, osb_error *err)
{
	request_read *rr = calloc(1, sizeof(*rr));
	int r;

	*out = NULL;
	if (!rr)
		return nomem(err);
	rr->rq = (request)REQUEST_INIT;
	if ((r = load_request(json, &rr->rq, &rr->top, err)) < 0) {
		request_free(rr);
		return r;
	}
	*out = rr;
	return 0;
}

void request_free(request_read *rr)
{
	if (!rr)
		return;
	json_object_put(rr->top);
	free(rr);
}

const char *request_profile(const request_read *rr)
{
	return rr->rq.profile;
}

uint64_t request_idle_ms(const request_read *rr)
{
	return rr->rq.idle_ms;
}

int request_apply(osb_policy *p, const request_read *rr, osb_error *err)
{
	return check_and_apply(p, &rr->rq, err);
}

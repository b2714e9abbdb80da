/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* result.c — what a run reports: the result record, clipped output capture,
 * the command-line status and the JSON document.
 *
 * run.c fills a struct osb_result while it supervises the sandbox; callers
 * read it through the osb_result_* accessors, the CLI prints osb_result_json()
 * and exits with osb_result_cli_status(). The rules here are the ones a caller
 * scripts against, so they are strict: ok only for a known exit status 0 with
 * no error; a status that is not known is reported as a tool failure, never
 * as success. Output is untrusted bytes: the capture bounds memory no matter
 * how much the command writes (keeping the head and the tail, which is where
 * the useful lines usually are), and the JSON carries only valid UTF-8 with
 * every control character escaped, so printing it cannot drive a terminal.
 */
#include "result.h"
#include "utf8.h"
#include "result-net.h"
#include "plan.h"

#include <limits.h>
#include <json-c/json.h>

/* ---- capture ------------------------------------------------------------ */

void capture_init(capture *c, uint64_t limit)
{
	memset(c, 0, sizeof(*c));
	c->limit = limit;
}

/* Bytes kept at the front and at the back. Clamped to SIZE_MAX so that a
 * huge limit ("unlimited") still fits; memory grows only as output arrives. */
static size_t capture_head_max(const capture *c)
{
	uint64_t n = c->limit - c->limit / 2;

	return n > SIZE_MAX ? SIZE_MAX : (size_t)n;
}

static size_t capture_tail_max(const capture *c)
{
	uint64_t n = c->limit / 2;

	return n > SIZE_MAX ? SIZE_MAX : (size_t)n;
}

/* Make room for NEED bytes in *BUF, growing geometrically up to MAX. */
static int grow(char **buf, size_t *cap, size_t need, size_t max)
{
	size_t ncap;
	char *nb;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 4096;
	while (ncap < need)
		ncap = ncap > SIZE_MAX / 2 ? SIZE_MAX : ncap * 2;
	if (ncap > max)
		ncap = max;
	nb = realloc(*buf, ncap);
	if (!nb)
		return -ENOMEM;
	*buf = nb;
	*cap = ncap;
	return 0;
}

/* The tail is filled linearly until it holds tail_max bytes (tail_start
 * stays 0), and is a ring from then on. */
static int capture_add_tail(capture *c, const char *buf, size_t len)
{
	size_t max = capture_tail_max(c), first;

	if (max == 0)
		return 0;
	if (len >= max) {
		if (grow(&c->tail, &c->tail_cap, max, max) < 0)
			return -ENOMEM;
		memcpy(c->tail, buf + len - max, max);
		c->tail_start = 0;
		c->tail_len = max;
		return 0;
	}
	if (c->tail_len < max) {
		size_t n = len < max - c->tail_len ? len : max - c->tail_len;

		if (grow(&c->tail, &c->tail_cap, c->tail_len + n, max) < 0)
			return -ENOMEM;
		memcpy(c->tail + c->tail_len, buf, n);
		c->tail_len += n;
		buf += n;
		len -= n;
	}
	if (len == 0)
		return 0;
	first = len < max - c->tail_start ? len : max - c->tail_start;
	memcpy(c->tail + c->tail_start, buf, first);
	memcpy(c->tail, buf + first, len - first);
	c->tail_start = (c->tail_start + len) % max;
	return 0;
}

int capture_add(capture *c, const char *buf, size_t len)
{
	size_t head_max = capture_head_max(c);

	c->total += len;
	if (c->head_len < head_max) {
		size_t n = len < head_max - c->head_len ? len : head_max - c->head_len;

		if (grow(&c->head, &c->head_cap, c->head_len + n, head_max) < 0)
			return -ENOMEM;
		memcpy(c->head + c->head_len, buf, n);
		c->head_len += n;
		buf += n;
		len -= n;
	}
	if (len == 0)
		return 0;
	return capture_add_tail(c, buf, len);
}

/* Where a clipped head ends: before a last character the clip left
 * incomplete (a lead byte followed by fewer bytes than it announces). */
static size_t utf8_whole_end(const char *s, size_t n)
{
	for (size_t back = 1; back <= 3 && back <= n; back++) {
		unsigned char c = (unsigned char)s[n - back];
		size_t need;

		if (c >= 0x80 && c < 0xc0)
			continue;   /* a continuation byte: look further back */
		need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
		return c >= 0xc2 && c < 0xf5 && need > back ? n - back : n;
	}
	return n;
}

/* How many bytes a clipped tail skips: the continuation bytes (at most 3)
 * of a character whose start was clipped away. */
static size_t utf8_whole_start(const char *s, size_t n)
{
	size_t i = 0;

	while (i < 3 && i < n && ((unsigned char)s[i] & 0xc0) == 0x80)
		i++;
	return i;
}

/* A clip keeps whole characters: the halves of characters split by it are
 * dropped, never joined into another one (which json_utf8 would take for
 * valid). At most 3 bytes on each side; output that is not UTF-8 loses
 * nothing else. */
static size_t clip_whole(char *buf, size_t head_len, size_t tail_len)
{
	size_t h = utf8_whole_end(buf, head_len), skip = utf8_whole_start(buf + head_len, tail_len);

	memmove(buf + h, buf + head_len + skip, tail_len - skip);
	return h + tail_len - skip;
}

/* Hands the kept bytes to the caller and empties the buffers; TOTAL and
 * LIMIT stay so that the byte count can still be read. */
int capture_take(capture *c, char **out, size_t *len, bool *truncated)
{
	size_t n = c->head_len + c->tail_len, first;
	char *buf = malloc(n + 1);

	if (!buf)
		return -ENOMEM;
	if (c->head_len)
		memcpy(buf, c->head, c->head_len);
	first = c->tail_len - c->tail_start;
	if (first)
		memcpy(buf + c->head_len, c->tail + c->tail_start, first);
	if (c->tail_start)
		memcpy(buf + c->head_len + first, c->tail, c->tail_start);
	if (c->total > c->limit)
		n = clip_whole(buf, c->head_len, c->tail_len);
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
	if (truncated)
		*truncated = c->total > c->limit;
	free(c->head);
	free(c->tail);
	c->head = c->tail = NULL;
	c->head_len = c->head_cap = 0;
	c->tail_len = c->tail_cap = c->tail_start = 0;
	return 0;
}

void capture_free(capture *c)
{
	free(c->head);
	free(c->tail);
	capture_init(c, c->limit);
}

/* ---- the record --------------------------------------------------------- */

osb_result *result_new(void)
{
	osb_result *r = calloc(1, sizeof(*r));

	if (r)
		r->exit_code = -1;
	return r;
}

void osb_result_free(osb_result *r)
{
	if (!r)
		return;
	free(r->out);
	free(r->err);
	free(r->hint);
	free(r->mode);
	free(r->limits_skipped_why);
	strv_free(&r->tmpfs_full);
	strv_free(&r->protected_path);
	strv_free(&r->protected_why);
	result_net_free(r);
	free(r);
}

const char *result_code_name(int code)
{
	static const char *const names[] = {
		[0] = "usage",      /* OSB_E_USAGE, the first code: the index is CODE - OSB_E_USAGE */
		[OSB_E_POLICY - OSB_E_USAGE] = "policy", [OSB_E_PATH - OSB_E_USAGE] = "path",
		[OSB_E_HOST - OSB_E_USAGE] = "host",     [OSB_E_SECCOMP - OSB_E_USAGE] = "seccomp",
		[OSB_E_SPAWN - OSB_E_USAGE] = "spawn",   [OSB_E_SANDBOX - OSB_E_USAGE] = "sandbox",
		[OSB_E_NOMEM - OSB_E_USAGE] = "nomem",   [OSB_E_IO - OSB_E_USAGE] = "io",
		[OSB_E_INTERNAL - OSB_E_USAGE] = "internal",
	};

	if (code == OSB_OK)
		return "none";
	code -= OSB_E_USAGE;
	if (code < 0 || (size_t)code >= sizeof(names) / sizeof(names[0]))
		return "unknown";
	return names[code];
}

/* The exit code when the command ran and exited, else -1. */
static int known_exit(const osb_result *r)
{
	return r->ran && r->exit_code >= 0 ? r->exit_code : -1;
}

int osb_result_ok(const osb_result *r)
{
	return r && r->ran && !r->has_error && !r->timed_out && r->signal == 0 &&
	       r->exit_code == 0;
}

int osb_result_exit_code(const osb_result *r)
{
	return r ? known_exit(r) : -1;
}

int osb_result_signal(const osb_result *r)
{
	return r ? r->signal : 0;
}

int osb_result_timed_out(const osb_result *r)
{
	return r && r->timed_out;
}

const osb_error *osb_result_error(const osb_result *r)
{
	return r && r->has_error ? &r->error : NULL;
}

const char *osb_result_stdout(const osb_result *r, size_t *len)
{
	if (len)
		*len = r && r->out ? r->out_len : 0;
	return r && r->out ? r->out : "";
}

const char *osb_result_stderr(const osb_result *r, size_t *len)
{
	if (len)
		*len = r && r->err ? r->err_len : 0;
	return r && r->err ? r->err : "";
}

int osb_result_truncated(const osb_result *r)
{
	return r && r->truncated;
}

uint64_t osb_result_stdout_bytes(const osb_result *r)
{
	return r ? r->out_bytes : 0;
}

uint64_t osb_result_stderr_bytes(const osb_result *r)
{
	return r ? r->err_bytes : 0;
}

uint64_t osb_result_duration_ms(const osb_result *r)
{
	return r ? r->duration_ms : 0;
}

void result_set_host_ids(osb_result *r, uint32_t uid, uint32_t gid, const char *kind)
{
	r->host_uid = uid;
	r->host_gid = gid;
	r->host_ids_kind = kind;
}

int osb_result_host_ids(const osb_result *r, uint32_t *uid, uint32_t *gid)
{
	if (!r || !r->host_uid)
		return -OSB_E_USAGE;
	if (uid)
		*uid = r->host_uid;
	if (gid)
		*gid = r->host_gid;
	return 0;
}

int osb_result_oom_killed(const osb_result *r)
{
	return !r || !(r->cg_out.known & CG_KNOW_OOM) ? -1 : cgroup_oom_killed(&r->cg_out);
}

int osb_result_pids_limited(const osb_result *r)
{
	return !r || !(r->cg_out.known & CG_KNOW_PIDS) ? -1 : cgroup_pids_limited(&r->cg_out);
}

int osb_result_memory_peak(const osb_result *r, uint64_t *bytes)
{
	if (!r || !(r->cg_out.known & CG_KNOW_PEAK))
		return -1;
	*bytes = r->cg_out.memory_peak;
	return 0;
}

int osb_result_cpu_throttled_us(const osb_result *r, uint64_t *usec)
{
	if (!r || !(r->cg_out.known & CG_KNOW_THROTTLE))
		return -1;
	*usec = r->cg_out.cpu_throttled_usec;
	return 0;
}

int osb_result_tmpfs_full_count(const osb_result *r)
{
	return !r || !r->tmpfs_known ? -1 : (int)r->tmpfs_full.n;
}

/* Each stage is the span between two moments; a one-shot run's setup ends
 * when bwrap starts, a session command's (which starts no bwrap) when the
 * broker has started it. */
static const struct { int from, to, alt_to; } stage_span[OSB_TIMING__COUNT] = {
	[OSB_TIMING_SETUP] = { TS_START, TS_SPAWN, TS_GO },
	[OSB_TIMING_BWRAP] = { TS_SPAWN, TS_INIT, -1 },
	[OSB_TIMING_INIT] = { TS_INIT, TS_GO, -1 },
	[OSB_TIMING_COMMAND] = { TS_GO, TS_EXIT, -1 },
	[OSB_TIMING_TEARDOWN] = { TS_EXIT, TS_END, -1 },
};

/* Is moment I known, and not before any known moment that precedes it? */
static bool stamp_valid(const uint64_t *ns, int i)
{
	for (int j = 0; j < i; j++)
		if (ns[j] && ns[j] > ns[i])
			return false;
	return ns[i] != 0;
}

int64_t result_timing_us(const osb_result *r, int which)
{
	const uint64_t *ns = r->t.ns;
	int from, to;

	if (which < 0 || which >= OSB_TIMING__COUNT)
		return -1;
	from = stage_span[which].from;
	to = stage_span[which].to;
	if (!ns[to] && stage_span[which].alt_to >= 0)
		to = stage_span[which].alt_to;
	if (!stamp_valid(ns, from) || !stamp_valid(ns, to))
		return -1;
	return (int64_t)((ns[to] - ns[from]) / 1000u);
}

int64_t osb_result_timing_us(const osb_result *r, osb_timing which)
{
	return r ? result_timing_us(r, (int)which) : -1;
}

const char *osb_result_timing_name(osb_timing which)
{
	static const char *const names[OSB_TIMING__COUNT] = {
		"setup", "bwrap", "init", "command", "teardown",
	};

	return (int)which >= 0 && which < OSB_TIMING__COUNT ? names[which] : NULL;
}

const char *osb_result_tmpfs_full(const osb_result *r, size_t i)
{
	return r && r->tmpfs_known && i < r->tmpfs_full.n ? r->tmpfs_full.v[i] : NULL;
}

unsigned osb_result_limits_not_enforced(const osb_result *r)
{
	unsigned m = 0;

	if (r && (r->limits_skipped & CG_BIT(CG_MEMORY)))
		m |= OSB_LIMIT_MEMORY;
	if (r && (r->limits_skipped & CG_BIT(CG_PIDS)))
		m |= OSB_LIMIT_PIDS;
	if (r && (r->limits_skipped & CG_BIT(CG_CPU)))
		m |= OSB_LIMIT_CPU;
	return m;
}

const char *osb_result_policy_hash(const osb_result *r)
{
	return r ? r->policy_hash : "";
}

const char *osb_result_workspace_mode(const osb_result *r)
{
	return r ? r->ws_mode : NULL;
}

/* 127/126 follow the shell's convention for a command that could not be
 * executed, so scripts can tell "missing" from "not runnable". */
static int error_status(const osb_error *e)
{
	if (e->stage_id != OSB_STAGE_EXEC)
		return 125;
	switch (e->sys_errno) {
	case ENOENT:
		return 127;
	case EACCES: case ENOEXEC: case EPERM: case EISDIR:
		return 126;
	default:
		return 125;
	}
}

int osb_result_cli_status(const osb_result *r)
{
	if (!r)
		return 125;
	if (r->has_error)
		return error_status(&r->error);
	if (r->timed_out)
		return 124;
	if (r->signal > 0)
		return 128 + r->signal;
	if (known_exit(r) < 0)
		return 125;
	return r->exit_code;
}

/* ---- JSON --------------------------------------------------------------- */

/* Close a memstream; on any write or flush failure free *BUF and NULL it. */
static int stream_close(FILE *f, char **buf)
{
	bool failed = ferror(f) != 0;

	if (fclose(f) != 0 || failed) {
		free(*buf);
		*buf = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* A json string of S (LEN bytes) with invalid UTF-8 replaced by U+FFFD. */
static json_object *json_utf8(const char *s, size_t len)
{
	size_t size = 0;
	char *buf = utf8_valid_dup(s, len, &size);
	json_object *o = NULL;

	/* json-c lengths are int; the capture limit keeps output far below. */
	if (buf && size <= INT_MAX)
		o = json_object_new_string_len(buf, (int)size);
	free(buf);
	return o;
}

/* json-c escapes U+0000..U+001F but passes DEL and the C1 controls
 * (U+0080..U+009F) through; escape them as well. In the serialized text
 * these bytes can only occur inside strings, which are valid UTF-8 here. */
static char *escape_remaining_controls(const char *js)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		return NULL;
	for (const unsigned char *p = (const unsigned char *)js; *p; p++) {
		if (*p == 0x7f)
			fputs("\\u007f", f);
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			fprintf(f, "\\u%04x", *++p);
		else
			fputc(*p, f);
	}
	stream_close(f, &buf);
	return buf;
}

/* Add KEY to O. A NULL V serializes as null; when WANT says a value was
 * expected, NULL means its allocation failed. Returns false on failure. */
static bool put(json_object *o, const char *key, json_object *v, bool want)
{
	if (want && !v)
		return false;
	if (json_object_object_add(o, key, v) < 0) {
		json_object_put(v);
		return false;
	}
	return true;
}

static json_object *json_error(const osb_error *e)
{
	json_object *o = json_object_new_object();
	bool ok;

	if (!o)
		return NULL;
	ok = put(o, "class", json_object_new_string(result_code_name(e->code)), true);
	ok = put(o, "stage", json_utf8(e->stage, strnlen(e->stage, sizeof(e->stage))),
	         true) && ok;
	ok = put(o, "message", json_utf8(e->message, strnlen(e->message, sizeof(e->message))),
	         true) && ok;
	ok = put(o, "errno", json_object_new_int(e->sys_errno), true) && ok;
	if (!ok) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* S is NUL-terminated, or when MAX is non-zero at most MAX bytes
 * (policy_hash is a fixed array). */
static bool put_str_or_null(json_object *o, const char *key, const char *s, size_t max)
{
	bool want = s && s[0];

	if (!want)
		return put(o, key, NULL, false);
	return put(o, key, json_utf8(s, max ? strnlen(s, max) : strlen(s)), true);
}

/* The output strings are left empty here and written in place by
 * osb_result_json_write, a piece at a time. */
static bool put_output(json_object *o, const char *key)
{
	return put(o, key, json_object_new_string(""), true);
}

/* {"uid": U, "gid": G, "kind": "allocated"|"pinned"|"caller"} */
static json_object *json_host_ids(const osb_result *r)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	if (json_object_object_add(o, "uid", json_object_new_int64(r->host_uid)) < 0 ||
	    json_object_object_add(o, "gid", json_object_new_int64(r->host_gid)) < 0 ||
	    json_object_object_add(o, "kind", json_object_new_string(r->host_ids_kind ?
	                                                              r->host_ids_kind : "?")) < 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

int result_set_limits(osb_result *r, const limits_state *ls, const cgroup_outcome *out)
{
	r->cg = ls->cg != NULL;
	if (out)
		r->cg_out = *out;
	r->limits_skipped = ls->skipped;
	if (ls->skipped && !(r->limits_skipped_why = strdup(ls->skipped_why)))
		return -ENOMEM;
	return 0;
}

/* A counter the host reports (KNOW in cg_out.known), else null. */
static bool put_known(json_object *o, const char *key, const osb_result *r, unsigned know,
                      json_object *v)
{
	if (!(r->cg_out.known & know)) {
		json_object_put(v);
		return put(o, key, NULL, false);
	}
	return put(o, key, v, true);
}

static bool put_skipped(json_object *o, const osb_result *r)
{
	json_object *a = json_object_new_array();

	for (int c = 0; a && c < CG__NCTRL; c++)
		if ((r->limits_skipped & CG_BIT(c)) &&
		    json_object_array_add(a, json_object_new_string(cgroup_ctrl_names[c])) < 0) {
			json_object_put(a);
			return false;
		}
	return put(o, "not_enforced", a, true) &&
	       put_str_or_null(o, "not_enforced_reason", r->limits_skipped_why, 0);
}

int result_set_protected(osb_result *r, const plan *pl)
{
	for (size_t i = 0; i < pl->git.n; i++) {
		const pol_str *g = &pl->git.v[i];
		int e = strncmp(g->s, "workspace:", 10) == 0 ?
		        strv_pushf(&r->protected_path, "%s/%s", pl->ws_dest, g->s + 10) :
		        strv_push(&r->protected_path, g->s);

		if (e < 0 || strv_pushf(&r->protected_why, "%s:%u", g->o.file, g->o.line) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* "protected": what the plan made read-only because the repository's
 * configuration names it, [{"path": P, "because": "KEY in FILE:LINE"}];
 * present only when there is any. */
static bool put_protected(json_object *o, const osb_result *r)
{
	json_object *a;

	if (!r->protected_path.n)
		return true;
	if (!(a = json_object_new_array()))
		return false;
	for (size_t i = 0; i < r->protected_path.n && i < r->protected_why.n; i++) {
		json_object *e = json_object_new_object();

		if (!e || json_object_array_add(a, e) < 0) {
			json_object_put(e);
			json_object_put(a);
			return false;
		}
		if (!put(e, "path", json_utf8(r->protected_path.v[i], strlen(r->protected_path.v[i])), true) ||
		    !put(e, "because", json_utf8(r->protected_why.v[i], strlen(r->protected_why.v[i])), true)) {
			json_object_put(a);
			return false;
		}
	}
	return put(o, "protected", a, true);
}

/* "tmpfs_full": the sized tmpfs mounts with no room left when the command
 * ended; null where they are not watched (a session's commands). */
static bool put_tmpfs_full(json_object *o, const osb_result *r)
{
	json_object *a = r->tmpfs_known ? json_object_new_array() : NULL;

	for (size_t i = 0; a && i < r->tmpfs_full.n; i++)
		if (json_object_array_add(a, json_utf8(r->tmpfs_full.v[i], strlen(r->tmpfs_full.v[i]))) < 0) {
			json_object_put(a);
			return false;
		}
	return put(o, "tmpfs_full", a, r->tmpfs_known);
}

/* "timings_us": {"setup": N, "bwrap": N, "init": N, "command": N,
 * "teardown": N}, null for a stage whose ends are not both known. */
static json_object *json_timings(const osb_result *r)
{
	json_object *o = json_object_new_object();
	bool ok = o != NULL;

	for (int i = 0; ok && i < OSB_TIMING__COUNT; i++) {
		int64_t us = result_timing_us(r, i);

		ok = put(o, osb_result_timing_name((osb_timing)i),
		         us >= 0 ? json_object_new_int64(us) : NULL, us >= 0);
	}
	if (!ok && o) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* {"cgroup": true, "oom_killed": B, "pids_limited": B, "memory_peak_bytes":
 * N, "pids_peak": N, "cpu_usage_ms": N, "cpu_throttled_ms": N,
 * "not_enforced": [...], "not_enforced_reason": S}: null counters are
 * those this host does not report (osb-isolate(1), "RESULT"). */
static json_object *json_limits(const osb_result *r)
{
	const cgroup_outcome *c = &r->cg_out;
	json_object *o = json_object_new_object();
	bool ok;

	if (!o)
		return NULL;
	ok = put(o, "cgroup", json_object_new_boolean(r->cg), true);
	ok = put_known(o, "oom_killed", r, CG_KNOW_OOM, json_object_new_boolean(cgroup_oom_killed(c))) && ok;
	ok = put_known(o, "pids_limited", r, CG_KNOW_PIDS,
	               json_object_new_boolean(cgroup_pids_limited(c))) && ok;
	ok = put_known(o, "memory_peak_bytes", r, CG_KNOW_PEAK, json_object_new_uint64(c->memory_peak)) && ok;
	ok = put_known(o, "pids_peak", r, CG_KNOW_PIDS_PEAK, json_object_new_uint64(c->pids_peak)) && ok;
	ok = put_known(o, "cpu_usage_ms", r, CG_KNOW_CPU,
	               json_object_new_uint64(c->cpu_usage_usec / 1000)) && ok;
	ok = put_known(o, "cpu_throttled_ms", r, CG_KNOW_THROTTLE,
	               json_object_new_uint64(c->cpu_throttled_usec / 1000)) && ok;
	ok = put_skipped(o, r) && ok;
	if (!ok) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* The members in the documented order (osb-isolate(1), "RESULT"). */
static bool result_fill_json(const osb_result *r, json_object *o)
{
	int exit_code = known_exit(r);
	bool ok;

	ok = put(o, "ok", json_object_new_boolean(osb_result_ok(r)), true);
	ok = put(o, "exit_code", exit_code >= 0 ? json_object_new_int(exit_code) : NULL,
	         exit_code >= 0) && ok;
	ok = put(o, "signal", r->signal > 0 ? json_object_new_int(r->signal) : NULL,
	         r->signal > 0) && ok;
	ok = put(o, "timed_out", json_object_new_boolean(r->timed_out), true) && ok;
	ok = put(o, "error", r->has_error ? json_error(&r->error) : NULL, r->has_error) && ok;
	ok = put_output(o, "stdout") && ok;
	ok = put_output(o, "stderr") && ok;
	ok = put(o, "truncated", json_object_new_boolean(r->truncated), true) && ok;
	ok = put(o, "stdout_bytes", json_object_new_uint64(r->out_bytes), true) && ok;
	ok = put(o, "stderr_bytes", json_object_new_uint64(r->err_bytes), true) && ok;
	ok = put(o, "duration_ms", json_object_new_uint64(r->duration_ms), true) && ok;
	ok = put(o, "timings_us", json_timings(r), true) && ok;
	ok = put_str_or_null(o, "policy_hash", r->policy_hash, sizeof(r->policy_hash)) && ok;
	ok = put_str_or_null(o, "mode", r->mode, 0) && ok;
	ok = put_str_or_null(o, "workspace_mode", r->ws_mode, 0) && ok;
	ok = put(o, "host_ids", r->host_uid ? json_host_ids(r) : NULL, r->host_uid != 0) && ok;
	ok = put(o, "limits", r->cg || r->limits_skipped ? json_limits(r) : NULL,
	         r->cg || r->limits_skipped) && ok;
	ok = put_tmpfs_full(o, r) && ok;
	ok = put_protected(o, r) && ok;
	if (r->net_known)   /* only for "network allow" (result-net.c) */
		ok = put(o, "network", result_net_json(r), true) && ok;
	ok = put_str_or_null(o, "hint", r->hint, 0) && ok;
	ok = put(o, "status", json_object_new_int(osb_result_cli_status(r)), true) && ok;
	return ok;
}

/* ---- JSON, written as it goes --------------------------------------------- */

/* Where the document goes, in pieces of at most sizeof(buf) bytes. */
typedef struct jsink {
	osb_json_write_fn fn;
	void *ctx;
	int err;
	size_t n;
	char buf[65536];
} jsink;

static void sink_flush(jsink *k)
{
	if (k->n && !k->err && k->fn(k->ctx, k->buf, k->n) != 0)
		k->err = -OSB_E_IO;
	k->n = 0;
}

static void sink_put(jsink *k, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0 && !k->err) {
		size_t room = sizeof(k->buf) - k->n, m = len < room ? len : room;

		memcpy(k->buf + k->n, p, m);
		k->n += m;
		p += m;
		len -= m;
		if (k->n == sizeof(k->buf))
			sink_flush(k);
	}
}

/* The short escape json-c writes for byte C, or NULL. */
static const char *short_escape(unsigned char c)
{
	switch (c) {
	case '"': return "\\\"";
	case '\\': return "\\\\";
	case '\b': return "\\b";
	case '\f': return "\\f";
	case '\n': return "\\n";
	case '\r': return "\\r";
	case '\t': return "\\t";
	}
	return NULL;
}

/* S (LEN bytes) as the inside of a JSON string, byte for byte what json-c
 * and escape_remaining_controls make of it: invalid UTF-8 replaced by
 * U+FFFD, quote, backslash and the C0 controls escaped as json-c does
 * (lower-case hex), DEL and the C1 controls as \u007f..\u009f. */
static void sink_string_body(jsink *k, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	while (i < len && !k->err) {
		size_t bad = 0, n = utf8_seq(u + i, len - i, &bad);
		const char *esc;
		char hex[8];

		if (n == 0) {
			sink_put(k, "\xef\xbf\xbd", 3);
			i += bad;
			continue;
		}
		if (n == 1 && (esc = short_escape(u[i]))) {
			sink_put(k, esc, strlen(esc));
		} else if ((n == 1 && (u[i] < 0x20 || u[i] == 0x7f)) ||
		           (n == 2 && u[i] == 0xc2 && u[i + 1] <= 0x9f)) {
			snprintf(hex, sizeof(hex), "\\u%04x", n == 1 ? u[i] : u[i + 1]);
			sink_put(k, hex, 6);
		} else {
			sink_put(k, u + i, n);
		}
		i += n;
	}
}

/* The document without its output, then cut where the two (empty) output
 * strings stand: ',"KEY":"' cannot occur inside a string, where a quote is
 * always escaped. */
static char *json_frame(const osb_result *r, char **out_at, char **err_at)
{
	json_object *o = json_object_new_object();
	const char *js = NULL;
	char *text = NULL;

	if (o && result_fill_json(r, o))
		js = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
		                                       JSON_C_TO_STRING_NOSLASHESCAPE);
	if (js)
		text = escape_remaining_controls(js);
	json_object_put(o);
	if (!text)
		return NULL;
	*out_at = strstr(text, ",\"stdout\":\"\"");
	*err_at = *out_at ? strstr(*out_at, ",\"stderr\":\"\"") : NULL;
	if (!*err_at) {
		free(text);
		return NULL;
	}
	*out_at += strlen(",\"stdout\":\"");
	*err_at += strlen(",\"stderr\":\"");
	return text;
}

int osb_result_json_write(const osb_result *r, osb_json_write_fn fn, void *ctx)
{
	char *out_at, *err_at, *frame;
	jsink *k;
	int e;

	if (!r || !fn)
		return -OSB_E_USAGE;
	if (!(frame = json_frame(r, &out_at, &err_at)))
		return -OSB_E_NOMEM;
	if (!(k = malloc(sizeof(*k)))) {
		free(frame);
		return -OSB_E_NOMEM;
	}
	*k = (jsink){ .fn = fn, .ctx = ctx };
	sink_put(k, frame, (size_t)(out_at - frame));
	sink_string_body(k, r->out ? r->out : "", r->out ? r->out_len : 0);
	sink_put(k, out_at, (size_t)(err_at - out_at));
	sink_string_body(k, r->err ? r->err : "", r->err ? r->err_len : 0);
	sink_put(k, err_at, strlen(err_at));
	sink_flush(k);
	e = k->err;
	free(k);
	free(frame);
	return e;
}

static int to_stream(void *ctx, const char *buf, size_t len)
{
	return fwrite(buf, 1, len, ctx) == len ? 0 : -1;
}

char *osb_result_json(const osb_result *r)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f;
	int e;

	if (!r || !(f = open_memstream(&buf, &size)))
		return NULL;
	e = osb_result_json_write(r, to_stream, f);
	if (stream_close(f, &buf) < 0 || e < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* holder-overlay.c — the holder's side of an overlay session's changes.
 *
 * The holder owns the library session, so it asks the library
 * (osb_session_diff) and sends the client the report: the JSON document of
 * osb_diff_json, or one line per change (osb-isolate(1), "OVERLAY
 * SESSIONS"):
 *   A path            added (a directory ends in "/", a symlink shows
 *                     "-> target", another name of a file "(hard link of P)")
 *   M path (what)     modified: content, target, mode OLD -> NEW, type OLD -> NEW
 *   D path            deleted
 * A path with a control character (C0, DEL, C1), an invisible or
 * bidirectional character, bytes that are not UTF-8, a backslash or a
 * double quote is printed in double quotes with C escapes, as git does
 * (\n, \t, \\, \", and \ooo for each other byte): the sandbox chose these
 * names, and printed raw they would drive the reviewer's terminal (ESC[2J,
 * CSI) or show reordered (U+202E). Error messages, which name paths, are
 * escaped the same way, without the quotes. A commit's report
 * (osb_session_commit) is sent as its JSON, or as lines: "committed N
 * changes to WS" and its notes, or the lists of what was and was not
 * applied after the error.
 */
#include "holder-overlay.h"
#include "utf8.h"

#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

static const char *const type_names[] = {
	[OSB_FILE_UNKNOWN] = "unknown", [OSB_FILE_REGULAR] = "file", [OSB_FILE_DIRECTORY] = "dir",
	[OSB_FILE_SYMLINK] = "symlink", [OSB_FILE_FIFO] = "fifo", [OSB_FILE_SOCKET] = "socket",
	[OSB_FILE_CHAR_DEVICE] = "char", [OSB_FILE_BLOCK_DEVICE] = "block",
};

static const char *type_name(int t)
{
	return t >= 0 && t <= OSB_FILE_BLOCK_DEVICE ? type_names[t] : "unknown";
}

static bool needs_quotes(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = strlen(s), bad, ok;

	for (size_t i = 0; i < len; i += ok) {
		if (!(ok = utf8_printable(u + i, len - i, &bad)) || u[i] == '\\' || u[i] == '"')
			return true;
	}
	return false;
}

static void put_quoted(FILE *f, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = strlen(s), i = 0;

	if (!needs_quotes(s)) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	while (i < len) {
		size_t bad = 0, ok = utf8_printable(u + i, len - i, &bad);

		if (!ok && u[i] == '\n')
			fputs("\\n", f);
		else if (!ok && u[i] == '\t')
			fputs("\\t", f);
		else if (ok == 1 && (u[i] == '\\' || u[i] == '"'))
			fprintf(f, "\\%c", u[i]);
		else if (ok)
			fwrite(u + i, 1, ok, f);
		for (size_t k = 0; !ok && u[i] != '\n' && u[i] != '\t' && k < bad; k++)
			fprintf(f, "\\%03o", u[i + k]);
		i += ok ? ok : bad;
	}
	fputc('"', f);
}

/* "(content, mode 0644 -> 0600)" for a modification. */
static void put_what(FILE *f, const osb_change *c)
{
	const char *sep = "";

	fputs(" (", f);
	if (c->what & OSB_CHANGED_TYPE) {
		fprintf(f, "type %s -> %s", type_name(c->old_type), type_name(c->type));
		sep = ", ";
	}
	if (c->what & OSB_CHANGED_CONTENT) {
		fprintf(f, "%scontent", sep);
		sep = ", ";
	}
	if (c->what & OSB_CHANGED_TARGET) {
		fprintf(f, "%starget, was ", sep);
		put_quoted(f, c->old_target ? c->old_target : "");
		sep = ", ";
	}
	if (c->what & OSB_CHANGED_MODE)
		fprintf(f, "%smode %04o -> %04o", sep, (unsigned)c->old_mode, (unsigned)c->mode);
	fputc(')', f);
}

static void put_change(FILE *f, const osb_change *c)
{
	int t = c->kind == OSB_CHANGE_DELETED ? c->old_type : c->type;

	fputc(c->kind == OSB_CHANGE_ADDED ? 'A' : c->kind == OSB_CHANGE_MODIFIED ? 'M' : 'D', f);
	fputc(' ', f);
	put_quoted(f, c->path);
	if (t == OSB_FILE_DIRECTORY)
		fputc('/', f);
	if (c->kind != OSB_CHANGE_DELETED && c->target) {
		fputs(" -> ", f);
		put_quoted(f, c->target);
	}
	if (c->kind != OSB_CHANGE_DELETED && c->hardlink) {
		fputs(" (hard link of ", f);
		put_quoted(f, c->hardlink);
		fputc(')', f);
	} else if (c->kind == OSB_CHANGE_ADDED && t != OSB_FILE_REGULAR && t != OSB_FILE_DIRECTORY &&
	           t != OSB_FILE_SYMLINK) {
		fprintf(f, " (%s)", type_name(t));
	}
	if (c->kind == OSB_CHANGE_MODIFIED)
		put_what(f, c);
	fputc('\n', f);
}

static char *diff_text(const osb_diff *d, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	for (size_t i = 0; i < osb_diff_count(d); i++)
		put_change(f, osb_diff_get(d, i));
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The error as a line; its message names paths the sandbox chose, so
 * what a terminal would not show as it is goes escaped. */
static void reply_failure(int conn, const osb_error *err)
{
	char line[4200];
	char *msg = utf8_escape_dup(err->message);
	int n = snprintf(line, sizeof(line), "%s: %s: %s\n", SESSION_PROG,
	                 err->stage[0] ? err->stage : "error", msg ? msg : "out of memory");

	free(msg);
	if (n >= (int)sizeof(line))
		n = (int)sizeof(line) - 1;
	wire_send_tagged(conn, 'e', line, n > 0 ? (size_t)n : 0);
	wire_send_status(conn, OSB_EXIT_SETUP);
}

/* --tar: the archive goes to the fd the client sent. */
static void holder_export(osb_session *s, int conn, const struct wire_request *rq)
{
	osb_error err;

	if (rq->nfds != 1) {
		osb_error bad = { .code = OSB_E_USAGE, .stage = "session",
		                  .message = "malformed export request" };

		reply_failure(conn, &bad);
		return;
	}
	if (osb_session_export(s, rq->fds[0], 0, &err) < 0)
		reply_failure(conn, &err);
	else
		wire_send_status(conn, 0);
}

void holder_diff(osb_session *s, int conn, const struct wire_request *rq)
{
	osb_diff *d = NULL;
	osb_error err;
	size_t len = 0;
	char *out;

	if (rq->h.flags & CLI_TAR) {
		holder_export(s, conn, rq);
		return;
	}
	if (osb_session_diff(s, 0, &d, &err) < 0) {
		reply_failure(conn, &err);
		return;
	}
	if (rq->h.flags & CLI_JSON) {
		out = osb_diff_json(d);
		len = out ? strlen(out) : 0;
	} else {
		out = diff_text(d, &len);
	}
	osb_diff_free(d);
	if (!out) {
		osb_error nomem = { .code = OSB_E_NOMEM, .stage = "session", .message = "out of memory" };

		reply_failure(conn, &nomem);
		return;
	}
	if (rq->h.flags & CLI_JSON)
		out[len++] = '\n';   /* strlen(out) < its allocation: the NUL's place */
	wire_send_tagged(conn, 'o', out, len);
	wire_send_status(conn, 0);
	free(out);
}

/* ---- commit and discard ----------------------------------------------------------- */

static void put_list(FILE *f, json_object *o, const char *key, const char *title)
{
	json_object *a;
	size_t n;

	if (!json_object_object_get_ex(o, key, &a) || !(n = json_object_array_length(a)))
		return;
	fprintf(f, "%s:\n", title);
	for (size_t i = 0; i < n; i++) {
		fputs("  ", f);
		put_quoted(f, json_object_get_string(json_object_array_get_idx(a, i)));
		fputc('\n', f);
	}
}

/* The report as lines: on success the count and the notes; after a
 * failure what was and was not applied. */
static char *commit_text(const char *report, bool ok, size_t *len)
{
	json_object *o = json_tokener_parse(report), *v;
	char *buf = NULL;
	FILE *f = o ? open_memstream(&buf, len) : NULL;

	if (!f) {
		json_object_put(o);
		return NULL;
	}
	if (ok) {
		fprintf(f, "committed %lld changes to %s\n",
		        json_object_object_get_ex(o, "changes", &v) ? (long long)json_object_get_int64(v) : 0LL,
		        json_object_object_get_ex(o, "workspace", &v) && json_object_get_string(v) ?
		        json_object_get_string(v) : "the workspace");
	} else if (json_object_object_get_ex(o, "applied", &v) && json_object_array_length(v)) {
		/* Stopped after some changes: both lists. A refusal applied nothing. */
		put_list(f, o, "applied", "applied");
		put_list(f, o, "not_applied", "not applied");
	}
	put_list(f, o, "notes", "notes");
	json_object_put(o);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

void holder_commit(osb_session *s, int conn, const struct wire_request *rq)
{
	char *report = NULL, *text = NULL;
	osb_error err;
	size_t len = 0;
	/* A person commits what they reviewed: never without a diff. */
	int r = osb_session_commit(s, OSB_COMMIT_REVIEWED, &report, &err);

	if (report && (rq->h.flags & CLI_JSON)) {
		wire_send_tagged(conn, 'o', report, strlen(report));
		wire_send_tagged(conn, 'o', "\n", 1);
	} else if (report && (text = commit_text(report, r == 0, &len)) && len) {
		wire_send_tagged(conn, r == 0 ? 'o' : 'e', text, len);
	}
	free(text);
	osb_free(report);
	if (r < 0)
		reply_failure(conn, &err);
	else
		wire_send_status(conn, 0);
}

bool holder_discard_ok(osb_session *s, int conn)
{
	const char *mode = osb_session_workspace_mode(s);
	osb_error err = { .code = OSB_E_USAGE, .stage = "session" };

	if (mode && strcmp(mode, "overlay") == 0)
		return true;
	snprintf(err.message, sizeof(err.message), "discard: the session's workspace is not an "
	         "overlay (it is %s); stop it with osb-isolate session stop", mode ? mode : "unknown");
	reply_failure(conn, &err);
	return false;
}

bool holder_discard(osb_session *s, int conn)
{
	osb_error err;

	if (osb_session_discard(s, &err) == 0)
		return true;
	reply_failure(conn, &err);
	return false;
}

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
 * A path with a control character, a backslash or a double quote is
 * printed in double quotes with C escapes, as git does.
 */
#include "holder-overlay.h"

#include <stdbool.h>
#include <stdio.h>
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
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f || *s == '\\' || *s == '"')
			return true;
	return false;
}

static void put_quoted(FILE *f, const char *s)
{
	if (!needs_quotes(s)) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c == '\\' || c == '"')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\%03o", c);
		else
			fputc(c, f);
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

static void reply_failure(int conn, const osb_error *err)
{
	char line[1200];
	int n = snprintf(line, sizeof(line), "%s: %s: %s\n", SESSION_PROG,
	                 err->stage[0] ? err->stage : "error", err->message);

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

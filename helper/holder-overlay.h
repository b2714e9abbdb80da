/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* holder-overlay.h — the holder's side of `osb-isolate session diff`
 * (holder-overlay.c): the session's changes through the library, written
 * back to the client as the report it asked for.
 */
#ifndef OSB_HOLDER_OVERLAY_H
#define OSB_HOLDER_OVERLAY_H

#include "osb-isolate.h"
#include "session-wire.h"

#include <stdbool.h>

/* Answer the CLI_DIFF request RQ on CONN for session S: the report, then
 * the status packet (0, or OSB_EXIT_SETUP with the error). */
void holder_diff(osb_session *s, int conn, const struct wire_request *rq);

/* Answer CLI_COMMIT: commit S's changes, send the report (text, or the JSON
 * with CLI_JSON) and the status (0, or OSB_EXIT_SETUP with the error). */
void holder_commit(osb_session *s, int conn, const struct wire_request *rq);

/* CLI_DISCARD: true when S has an overlay workspace, whose layer ends with
 * it (the caller then discards S with holder_discard); false after the refusal and
 * its status were sent (S goes on). */
bool holder_discard_ok(osb_session *s, int conn);
/* The discard itself (osb_session_discard: the session ends, a persisted
 * layer is emptied). False, with the failure sent on CONN, when it failed. */
bool holder_discard(osb_session *s, int conn);

#endif /* OSB_HOLDER_OVERLAY_H */

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

/* Answer the CLI_DIFF request RQ on CONN for session S: the report, then
 * the status packet (0, or OSB_EXIT_SETUP with the error). */
void holder_diff(osb_session *s, int conn, const struct wire_request *rq);

#endif /* OSB_HOLDER_OVERLAY_H */

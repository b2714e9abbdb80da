/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* overlay-commit.h — applying an overlay session's changes to the real
 * workspace (overlay-commit.c), for osb_session_commit(). A function of two
 * directory fds and the change list: tests/unit/check_overlay.c runs it on
 * layers built by hand.
 */
#ifndef OSB_OVERLAY_COMMIT_H
#define OSB_OVERLAY_COMMIT_H

#include "osb-isolate.h"

#include <json-c/json.h>

/* Make the workspace WS_FD what the upper directory UPPER_FD shows over it,
 * change by change as D lists them. Everything is checked first (types,
 * parents, hard link targets, write access, free space); a refusal there
 * applies nothing. *REPORT (always set unless out of memory) is the
 * "osb-isolate/commit/1" object (docs/commit.schema.json): what was and was
 * not applied, and where it stopped. 0, or -OSB_E_* with ERR filled. */
int ovl_commit(int upper_fd, int ws_fd, const osb_diff *d, json_object **report,
               osb_error *err);

/* The report of a commit of D refused before it began, for the reason WHY
 * (not the list the last diff showed): nothing applied, "failed" without a
 * path. NULL: out of memory. */
json_object *ovl_commit_refused(const osb_diff *d, const osb_error *why);

#endif /* OSB_OVERLAY_COMMIT_H */

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* overlay-report.h — an overlay session's changes, and what a commit did
 * with them, as JSON (overlay-report.c; docs/changes.schema.json).
 */
#ifndef OSB_OVERLAY_REPORT_H
#define OSB_OVERLAY_REPORT_H

#include "osb-isolate.h"

#include <json-c/json.h>

/* The "osb-isolate/changes/1" object of D, or NULL (out of memory). */
json_object *ovl_changes_json(const osb_diff *d);

/* O as plain JSON text, made valid UTF-8, and O released. NULL: out of
 * memory (or O NULL). */
char *ovl_json_text(json_object *o);

#endif /* OSB_OVERLAY_REPORT_H */

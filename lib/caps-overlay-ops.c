/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* caps-overlay-ops.c — the capabilities of an overlay session's layer.
 *
 * Listing, exporting and committing need nothing of the host beyond the
 * overlay workspace itself: the library reads the upper layer from the host
 * through an fd the session's broker hands over (lib/session-overlay.c), so
 * "diff_supported" and "commit_supported" are what "overlay" is, in the
 * same identity modes, with its reason and remedy when it is not. "persist"
 * (a layer kept for a later session) is not built: unavailable, with what
 * to do instead.
 */
#include "caps-overlay-ops.h"

#include <stdio.h>

static void judge_op(osb_caps *c, enum item_id id, const char *what)
{
	const caps_item *ov = &c->items[IT_OVERLAY_WS];
	char reason[900];

	if (ov->status == OSB_CAPS_OK) {
		caps_item_set(c, id, OSB_CAPS_OK, what, NULL);
		return;
	}
	snprintf(reason, sizeof(reason), "%s; needs the overlay workspace, which is %s here: %s",
	         what, osb_caps_status_name(ov->status), ov->reason ? ov->reason : "");
	caps_item_set(c, id, ov->status, reason, ov->remedy);
}

void caps_judge_overlay_ops(osb_caps *c)
{
	judge_op(c, IT_DIFF, "an overlay session's changes are listed and exported as tar from "
	         "its upper layer (osb_session_diff, osb_session_export; session diff)");
	judge_op(c, IT_COMMIT, "an overlay session's changes are committed to the workspace "
	         "through the safe file API, or discarded (osb_session_commit, "
	         "osb_session_discard; session commit, session discard)");
	caps_item_set(c, IT_PERSIST, OSB_CAPS_UNAVAILABLE, "keeping an overlay session's upper "
	              "layer for a later session is not built in this version: the layer ends "
	              "with its session", "commit the changes (session commit) or export them "
	              "(session diff --tar) before the session ends");
}

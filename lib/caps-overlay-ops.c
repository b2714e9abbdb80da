/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* caps-overlay-ops.c — the capabilities of an overlay session's layer.
 *
 * Listing, exporting and committing need nothing of the host beyond the
 * overlay workspace itself: the library reads the upper layer from the host
 * through an fd the session's broker hands over (lib/session-overlay.c), so
 * "diff_supported" and "commit_supported" are what "overlay" is, in the
 * same identity modes, with its reason and remedy when it is not. So is
 * "persist" (a layer kept in a caller's directory, lib/layer.c): it mounts
 * the same way, on a directory the probe cannot know in advance, so what
 * that directory needs is said in the reason.
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
	judge_op(c, IT_PERSIST, "an overlay workspace's upper layer is kept in a caller's "
	         "directory, where a later run or session resumes it "
	         "(osb_policy_set_overlay_persist; --overlay-persist; a request's "
	         "workspace.persist); its file system must take user.* (userns mode) or "
	         "trusted.* (root mode) extended attributes, and a root caller's sandbox must run "
	         "as pinned host ids");
}

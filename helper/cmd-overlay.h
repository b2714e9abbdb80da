/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* cmd-overlay.h — `osb-isolate session diff|commit|discard`: the client side of an overlay
 * session's changes (cmd-overlay.c); the holder answers
 * (holder-overlay.c).
 */
#ifndef OSB_CMD_OVERLAY_H
#define OSB_CMD_OVERLAY_H

/* `session diff ID [--json]` (ARGV[0] is "diff"): the exit status. */
int session_diff(int argc, char **argv);
/* `session commit ID [--json]`: apply the changes to the real workspace. */
int session_commit(int argc, char **argv);
/* `session discard ID`: end the session and throw its changes away. */
int session_discard(int argc, char **argv);

#endif /* OSB_CMD_OVERLAY_H */

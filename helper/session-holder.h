/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* session-holder.h — `osb-isolate session start` and its holder
 * (session-holder.c).
 */
#ifndef OSB_SESSION_HOLDER_H
#define OSB_SESSION_HOLDER_H

/* `session start ...` (ARGV[0] is "start"): start a holder, print the
 * session's id. Returns the exit status. */
int session_start(int argc, char **argv);

#endif /* OSB_SESSION_HOLDER_H */

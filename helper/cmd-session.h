/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* cmd-session.h — `osb-isolate session` (cmd-session.c).
 */
#ifndef OSB_CMD_SESSION_H
#define OSB_CMD_SESSION_H

/* ARGV[0] is "session". Returns the exit status. */
int cmd_session(int argc, char **argv);

#endif /* OSB_CMD_SESSION_H */

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* cmd-caps.h — `osb-isolate capabilities` (cmd-caps.c).
 */
#ifndef OSB_CMD_CAPS_H
#define OSB_CMD_CAPS_H

/* ARGV[0] is "capabilities". Returns the exit status. */
int cmd_capabilities(int argc, char **argv);

#endif /* OSB_CMD_CAPS_H */

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* cmd-review.h — entry points of the reviewer commands (cmd-review.c).
 *
 * Each takes the command's own argv (argv[0] is the command name, e.g.
 * "check") and returns the process exit status: 0 clean, 1 findings or
 * differences, 2 trouble (a policy that does not load, a usage error).
 */
#ifndef OSB_CMD_REVIEW_H
#define OSB_CMD_REVIEW_H

int cmd_check(int argc, char **argv);
int cmd_lint(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_hash(int argc, char **argv);
int cmd_request(int argc, char **argv);

#endif /* OSB_CMD_REVIEW_H */

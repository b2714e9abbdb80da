/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* shell-state.h — shell-state sessions, the library's half (shell-state.c;
 * the broker's: helper/broker-shell.c).
 */
#ifndef OSB_SHELL_STATE_H
#define OSB_SHELL_STATE_H

#include "util.h"

/* The shell a shell-state session runs each command in. */
#define SHELL_STATE_SHELL "/bin/sh"

/* The command line that runs ARGV in the wrapper shell (SHELL -c WRAPPER
 * osb-shell ARGV...) into OUT. 0 or -ENOMEM. */
int shell_state_argv(const char *shell, const strv *argv, strv *out);

/* What one command left (its state dump, DATA of LEN bytes): *CWD (malloc'd)
 * and ENV (NAME=VALUE entries). Names not of letters, digits and '_', the
 * shell's own (_ SHLVL) and those a pattern of DENY matches are not kept;
 * *DROPPED counts the denied ones. 0, -EINVAL for a malformed dump, or
 * -ENOMEM. */
int shell_state_parse(const char *data, size_t len, const strv *deny, char **cwd, strv *env,
                      size_t *dropped);

#endif /* OSB_SHELL_STATE_H */

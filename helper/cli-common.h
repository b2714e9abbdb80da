/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* cli-common.h — what the CLI's commands share: how a path given on the
 * command line becomes the absolute path the library checks, and where the
 * host configuration comes from.
 */
#ifndef OSB_CLI_COMMON_H
#define OSB_CLI_COMMON_H

#include "osb-isolate.h"

/* ARG made absolute against the current directory and normalized by its
 * words alone ("." and empty components dropped, ".." removing the
 * component before it); no symlink is resolved: the library refuses any,
 * so the path it checks is the path the user typed. malloc'd; NULL when the
 * current directory is unknown or memory runs out. */
char *cli_abs_path(const char *arg);

/* The host configuration: $OSB_ISOLATE_CONFIG, else the default file
 * (missing: nothing configured). NULL with ERR filled when it is invalid. */
osb_config *cli_load_config(osb_error *err);

/* Name the bwrap and the init this process runs from OSB_ISOLATE_BWRAP and
 * OSB_ISOLATE_INIT (secure_getenv; unset or empty: the library's default).
 * Returns 0 or -1 (ERR: a relative path). */
int cli_set_programs(osb_error *err);

/* Load the configuration and apply it to POLICY. Returns 0 or -1 (ERR). */
int cli_apply_config(osb_policy *policy, osb_error *err);

/* --workspace-mode WORD (ro, rw, overlay or none), applied to POLICY
 * through osb_policy_set_workspace_mode (narrow-only). Returns 0 or -1
 * with ERR's message starting "--workspace-mode". */
int cli_set_workspace_mode(osb_policy *policy, const char *word, osb_error *err);

/* --overlay-persist DIR: DIR made absolute (cli_abs_path) and given to
 * osb_policy_set_overlay_persist. Returns 0 or -1 with ERR filled. */
int cli_set_overlay_persist(osb_policy *policy, const char *dir, osb_error *err);

#endif /* OSB_CLI_COMMON_H */

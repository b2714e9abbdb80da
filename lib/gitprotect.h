/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* gitprotect.h — what a workspace repository's configuration makes the
 * caller's git run or read from the writable worktree (gitprotect.c).
 *
 * A read-only rule over the workspace's .git keeps the sandbox from
 * writing hooks and configuration there; the repository's configuration
 * can still name worktree paths (core.hooksPath = .husky, include.path =
 * ../.gitconfig, core.fsmonitor = ./fsmon.sh). Before launch the plan
 * reads that configuration on the host and protects each such path as a
 * read-only rule would (docs/ARCHITECTURE.md, "What the repository's
 * configuration names").
 */
#ifndef OSB_GITPROTECT_H
#define OSB_GITPROTECT_H

#include "policy.h"

typedef struct plan plan;

/* The extra read-only rules: each S is "workspace:REL" or an absolute path
 * in another writable bind, and O names why: O.file is "KEY in FILE" (a
 * host path), O.line the line. Owned (S and O.file) by the plan. */
typedef struct git_rules {
	pol_str *v;
	size_t n;
} git_rules;

/* When PL's workspace is writable and a read-only rule of its policy covers
 * the workspace's .git (binds_open has resolved those rules), read .git/config
 * beneath the workspace fd (no symlink), .git/config.worktree when
 * extensions.worktreeConfig, the caller's global and the system
 * configuration, and what they include (at most 10 deep, 64 files, 1 MiB a
 * file), the index's gitlinks (each submodule's PATH/.git, and that
 * repository read the same way, at most 10 deep and 256 repositories), and
 * fill PL->git with the paths inside writable binds that git would run code
 * or read configuration from. Refuses (-OSB_E_POLICY,
 * -OSB_E_PATH, stage "paths", "FILE:LINE: ...") a file it cannot parse,
 * one too large, includes too deep, a path it cannot resolve without
 * following a symlink, a key naming the workspace itself. Returns 0 or
 * -OSB_E_*. */
int gitprotect_plan(plan *pl, osb_error *err);

void git_rules_free(git_rules *g);

#endif /* OSB_GITPROTECT_H */

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* init-cover.h — the cover of what a fresh procfs and the host's /etc show
 * of the host, made by the sandbox's trusted init (stage "init:mounts",
 * lib/init-proto.h, --make-cover) rather than by bwrap, whose every bind
 * re-reads the whole mount table (docs/ARCHITECTURE.md, "The cover").
 */
#ifndef OSB_INIT_COVER_H
#define OSB_INIT_COVER_H

#include "init-guard.h"

/* In the init's own mount namespace (made by the caller), with
 * CAP_SYS_ADMIN over it and before anything untrusted runs: each --proc-ro
 * PATH bound onto itself read-only, then /dev/null over each --proc-masked
 * and --masked file and an empty read-only tmpfs over each --proc-masked
 * directory. Every target is opened without following a symlink and the
 * mount is made on that open file. Nothing when G->make_cover is false.
 * 0, or -errno with E saying which path and which step failed. The audit
 * of the result is guard_audit_proc()'s, unchanged. */
int cover_make(const struct guard_opts *g, struct guard_error *e);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* init-reprotect.h — read-only rules inside a writable bind (a workspace's
 * .git), made by the sandbox's trusted init (stage
 * "init:mounts", lib/init-proto.h, --reprotect) rather than by bwrap, which
 * would resolve their destinations by path through a directory the sandbox
 * can write (docs/ARCHITECTURE.md, "Read-only rules inside a writable bind").
 */
#ifndef OSB_INIT_REPROTECT_H
#define OSB_INIT_REPROTECT_H

#include "init-guard.h"

/* In the init's own mount namespace (made by the caller), with
 * CAP_SYS_ADMIN over it and before anything untrusted runs, for each
 * --reprotect PATH, shallowest first: PATH resolved beneath its writable
 * bind (guard_reprotect_area) one component at a time, never through a
 * symlink and never creating anything; every directory between the bind and
 * PATH made a mount point of itself (so that rename(2) and rmdir(2) of it
 * fail with EBUSY), recorded in G->made; PATH, whose device and inode must be
 * the ones the plan verified, bound read-only onto itself. Each mount is
 * made on the open file that was verified. Then every PATH is resolved again
 * and must be a read-only mount root holding the verified inode. Nothing
 * when there is no --reprotect. 0, or -errno with E naming the path and the
 * step. */
int reprotect_make(struct guard_opts *g, struct guard_error *e);

#endif

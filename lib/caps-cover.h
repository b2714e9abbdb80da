/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* caps-cover.h — can the sandbox's init make the /proc cover here
 * (helper/init-cover.c, --make-cover)? Answered by a real attempt in a
 * forked child (caps-cover.c), for the capabilities item "proc_cover"
 * (caps-judge.c) and the launch gate (caps.c), which refuses a policy whose
 * cover the init makes rather than let every run fail in the init with 125.
 */
#ifndef OSB_CAPS_COVER_H
#define OSB_CAPS_COVER_H

#include <errno.h>
#include <stdbool.h>

#include "host.h"

enum cvt_step {
	CVT_FORK, CVT_USERNS, CVT_MAP, CVT_NS, CVT_PRIVATE, CVT_PID1, CVT_PROC, CVT_INIT_USERNS,
	CVT_INIT_MAP, CVT_INIT_MNTNS, CVT_OPEN, CVT_STATVFS, CVT_BIND, CVT_REMOUNT, CVT_NULL,
	CVT_TMPFS, CVT_TREE, CVT_SETATTR, CVT_MOVE, CVT_ANSWER, CVT__COUNT
};
/* What each step is called in a reason; the steps on a path (CVT_OPEN and
 * later) are followed by it: "bind mount over /proc/sys", ... */
extern const char *const caps_cover_try_steps[CVT__COUNT];

typedef struct caps_cover_res {
	int err;              /* 0: the cover was made; else the errno of STEP */
	enum cvt_step step;
	char path[64];        /* the path STEP worked on, or "" */
	int status;           /* CVT_ANSWER (err EIO): a child ended without an
	                       * answer, with this wait status */
} caps_cover_res;

/* In a forked child, what bwrap and then the init do for a cover: in
 * USERNS mode a user namespace mapping only the caller; a mount and a pid
 * namespace, the mounts made private, the pid namespace's first process
 * forked and a fresh procfs mounted on /proc (bwrap's --proc); then the
 * init's own mount namespace (in USERNS mode below a nested user namespace,
 * as bwrap's --disable-userns puts it, so that the copied mounts are
 * locked), and init-cover.c's steps on the first of each of PF's tables: a
 * /proc tree bound read-only onto itself, /dev/null bound read-only over a
 * /proc file, an empty read-only tmpfs over a /proc directory; then
 * init-reprotect.c's read-only rule on the /proc tree (open_tree,
 * mount_setattr, move_mount onto itself). Returns R->err. */
int caps_cover_try(bool userns, const proc_facts *pf, caps_cover_res *r);

/* Did the attempt fail for want of a process (a process limit,
 * lib/fork-hint.h) rather than for the cover? */
static inline bool caps_cover_at_limit(const caps_cover_res *r)
{
	return r->err == EAGAIN && (r->step == CVT_FORK || r->step == CVT_PID1);
}

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* caps-overlay.h — can this host mount the overlay workspace the init mounts
 * (helper/init-overlay.c)? Answered by a real attempt in a forked child
 * (caps-overlay.c), for the capabilities item "overlay" (caps-judge.c) and
 * the launch gate (caps.c), which refuses "workspace overlay" on a host
 * without it rather than run the workspace rw.
 */
#ifndef OSB_CAPS_OVERLAY_H
#define OSB_CAPS_OVERLAY_H

#include <errno.h>
#include <stdbool.h>

enum ovt_step { OVT_FORK, OVT_USERNS, OVT_MAP, OVT_MNTNS, OVT_FSOPEN, OVT_TMPFS, OVT_DIRS,
                OVT_MOUNT, OVT_ANSWER, OVT__COUNT };
/* What each step is called in a reason: "unshare(CLONE_NEWNS)", ... */
extern const char *const caps_overlay_try_steps[OVT__COUNT];

/* In a forked child, the init's sequence: in USERNS mode a user namespace
 * mapping only the caller, then a mount namespace, fsopen("overlay"), a
 * detached tmpfs with the layer directories, and overlayfs created over them
 * (with userxattr in USERNS mode; root mode needs root's capabilities).
 * Returns 0 when it mounts, else the errno of the step *STEP failed at
 * (OVT_FORK: the child could not be started), or EIO at OVT_ANSWER when
 * the child ended without an answer (a seccomp filter's SIGSYS, say), its
 * wait status in *STATUS. */
int caps_overlay_try(bool userns, enum ovt_step *step, int *status);

/* Did the attempt that returned ERR at STEP fail for want of a process (a
 * process limit, lib/fork-hint.h) rather than for overlayfs? */
static inline bool caps_overlay_at_limit(int err, int step)
{
	return err == EAGAIN && step == OVT_FORK;
}

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* cover-flags.h — the mount flags of the /proc cover, shared by the init
 * that makes it (helper/init-cover.c) and the capabilities probe that
 * replays it (lib/caps-cover.c). Header-only: the init is a static program
 * against libc alone, and the probe's child may make system calls only.
 */
#ifndef OSB_COVER_FLAGS_H
#define OSB_COVER_FLAGS_H

#include <sys/mount.h>
#include <sys/statvfs.h>

/* What every mount of the cover is, besides a bind or a tmpfs. */
#define COVER_FLAGS (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)

/* The flags a read-only bind remount of a mount whose statvfs f_flag is
 * F_FLAG must give: the cover's own, plus what the kernel may have locked
 * on a mount copied from a more privileged namespace (nosuid, nodev,
 * noexec, atime), which a remount must repeat. The atime mode is always
 * given: left out, the kernel would ask for relatime and refuse a mount
 * locked otherwise. */
static inline unsigned long cover_remount_flags(unsigned long f_flag)
{
	unsigned long f = MS_BIND | MS_REMOUNT | COVER_FLAGS;

	if (f_flag & ST_NOATIME)
		f |= MS_NOATIME;
	else if (f_flag & ST_RELATIME)
		f |= MS_RELATIME;
	else
		f |= MS_STRICTATIME;
	if (f_flag & ST_NODIRATIME)
		f |= MS_NODIRATIME;
	return f;
}

#endif

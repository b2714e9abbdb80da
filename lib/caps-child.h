/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* caps-child.h — what the capabilities probe's forked children share
 * (caps-probe.c's direct child, caps-overlay.c, caps-cover.c): system calls
 * only, as a child forked from a multithreaded caller may make.
 */
#ifndef OSB_CAPS_CHILD_H
#define OSB_CAPS_CHILD_H

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* Write DATA to PATH: 0, or the errno. */
static inline int caps_child_write(const char *path, const char *data)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), e = 0;
	size_t len = strlen(data);

	if (fd < 0)
		return errno;
	if (write(fd, data, len) != (ssize_t)len)
		e = errno ? errno : EIO;
	close(fd);
	return e;
}

/* A new user namespace's maps: setgroups "deny", then UID_MAP and GID_MAP
 * ("inside outside count"). 0, or the errno of the write that failed, its
 * index (0, 1, 2) in *STEP when STEP is not NULL. */
static inline int caps_child_maps(const char *uid_map, const char *gid_map, int *step)
{
	const char *const data[] = { "deny", uid_map, gid_map };
	const char *const path[] = { "/proc/self/setgroups", "/proc/self/uid_map",
	                             "/proc/self/gid_map" };
	int e;

	for (int i = 0; i < 3; i++) {
		if (step)
			*step = i;
		if ((e = caps_child_write(path[i], data[i])) != 0)
			return e;
	}
	return 0;
}

#endif /* OSB_CAPS_CHILD_H */

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* fd-count.h — how many fds this process has open, for the unit tests that
 * assert a refusal leaves none behind. */
#ifndef OSB_TESTS_UNIT_FD_COUNT_H
#define OSB_TESTS_UNIT_FD_COUNT_H

#include <check.h>
#include <dirent.h>

/* This process's open fds (opendir's own is counted in every call alike). */
static inline int fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

#endif

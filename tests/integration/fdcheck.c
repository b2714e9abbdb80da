/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* fdcheck.c — test helper run inside the sandbox: prints the numbers of the
 * file descriptors it inherited, one per line, sorted, excluding the one it
 * opens itself to list /proc/self/fd.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

int main(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int fds[1024], n = 0, self;

	if (!d) {
		perror("fdcheck: /proc/self/fd");
		return 2;
	}
	self = dirfd(d);
	while ((e = readdir(d)) && n < 1024) {
		if (e->d_name[0] == '.')
			continue;
		int fd = atoi(e->d_name);
		if (fd != self)
			fds[n++] = fd;
	}
	closedir(d);
	qsort(fds, (size_t)n, sizeof(fds[0]), cmp);
	for (int i = 0; i < n; i++)
		printf("%d\n", fds[i]);
	return 0;
}

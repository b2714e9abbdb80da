/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* dump-filter.c — test helper: write the BPF program of the default seccomp
 * group (exactly what a run loads) to stdout, so the escape suite can hand it
 * to bwrap --seccomp in a sandbox that holds every capability of its own
 * user namespace. There, only the filter can stop the attacks.
 */
#include "policy.h"
#include "filter.h"

int main(void)
{
	osb_error err;
	char buf[65536];
	ssize_t n;
	int fd;

	if (seccomp_build_fd(NULL, &fd, &err) < 0) {
		fprintf(stderr, "dump-filter: %s\n", err.message);
		return 1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (write(STDOUT_FILENO, buf, (size_t)n) != n)
			return 1;
	close(fd);
	return n < 0 ? 1 : 0;
}

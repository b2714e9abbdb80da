/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* marker.c — a library that records every process that loads it, for
 * tests/integration/boundary.sh: set as LD_PRELOAD or LD_AUDIT (by a
 * policy, a request or the caller's environment), it shows where the
 * sandboxed command's loader variables took effect. Each process that loads
 * it appends "pid=P uid=U exe=PATH how=preload|audit" to $OSB_MARKER_LOG.
 * Only the command itself (and what it runs) may appear; bwrap on the host
 * or the init inside must never load it.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void mark(const char *how)
{
	const char *log = getenv("OSB_MARKER_LOG");
	char exe[1024], line[1200];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int fd, len;

	if (!log)
		return;
	exe[n > 0 ? n : 0] = '\0';
	len = snprintf(line, sizeof(line), "pid=%d uid=%u exe=%s how=%s\n", (int)getpid(),
	               (unsigned)getuid(), exe, how);
	fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		return;
	if (write(fd, line, (size_t)len) < 0)
		len = 0;
	close(fd);
}

__attribute__((constructor)) static void marker_loaded(void)
{
	mark("preload");
}

/* rtld-audit(7): the loader calls this first in a library named by LD_AUDIT. */
unsigned int la_version(unsigned int version);

unsigned int la_version(unsigned int version)
{
	mark("audit");
	return version;
}

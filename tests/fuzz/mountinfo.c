/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* mountinfo.c — libFuzzer harness for the init's reader of
 * /proc/self/mountinfo (helper/mountinfo.c, compiled in here: it belongs to
 * the init, not to the library).
 *
 * The input is a whole table. Beyond "no crash" it checks what the mount
 * audit relies on: the walk over the lines ends, either at the end of the
 * input or with a reason; an accepted line has an absolute mount point, a
 * root and a file system type, per-mount and superblock options that start
 * with "ro" or "rw"; a line is called writable only when both option
 * fields say "rw"; a refusal always says why.
 */
#include "../../helper/mountinfo.c"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool flag_ok(const char *opts)
{
	return (strncmp(opts, "ro", 2) == 0 || strncmp(opts, "rw", 2) == 0) &&
	       (opts[2] == '\0' || opts[2] == ',');
}

static void check_entry(const struct mountinfo_entry *m)
{
	if (m->target[0] != '/' || !m->root[0] || !m->fstype[0])
		abort();
	if (!flag_ok(m->vfs_opts) || !flag_ok(m->sb_opts))
		abort();
	if (mountinfo_writable(m) != (m->vfs_opts[1] == 'w' && m->sb_opts[1] == 'w'))
		abort();
	if (m->id < 0 || m->parent < 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *line;
	const char *why = NULL;
	size_t pos = 0, lines = 0;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	while ((line = mountinfo_next_line(buf, size, &pos, &why)) != NULL) {
		struct mountinfo_entry m;
		const char *lwhy = NULL;

		if (++lines > size + 1)
			abort();   /* the walk must advance */
		if (mountinfo_parse_line(line, &m, &lwhy) == 0)
			check_entry(&m);
		else if (!lwhy)
			abort();   /* a refusal always says why */
	}
	if (pos < size && !why)
		abort();   /* stopped early without a reason */
	free(buf);
	return 0;
}

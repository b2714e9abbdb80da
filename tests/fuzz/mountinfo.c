/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* mountinfo.c — libFuzzer harness for the strict reader of
 * /proc/self/mountinfo (lib/mountinfo.c, compiled in here), which the
 * init's mount audit and the library's host mount scans share.
 *
 * The input is a whole table. Beyond "no crash" it checks what the mount
 * audit relies on: the walk over the lines ends, either at the end of the
 * input or with a reason; an accepted line has an absolute mount point, a
 * root and a file system type, per-mount and superblock options that start
 * with "ro" or "rw"; a line is called writable only when both option
 * fields say "rw"; a refusal always says why. The table walk the library
 * uses (mountinfo_next) accepts exactly the entries the line walk does, and
 * an option found by mountinfo_has_option is in the list, whole.
 */
#include "../../lib/mountinfo.c"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool flag_ok(const char *opts)
{
	return (strncmp(opts, "ro", 2) == 0 || strncmp(opts, "rw", 2) == 0) &&
	       (opts[2] == '\0' || opts[2] == ',');
}

/* NAME is in OPTS as a whole comma-separated item, or its NAME=... form. */
static bool option_there(const char *opts, const char *name)
{
	size_t n = strlen(name);

	for (const char *o = opts; (o = strstr(o, name)) != NULL; o++)
		if ((o == opts || o[-1] == ',') && (o[n] == '\0' || o[n] == ',' || o[n] == '='))
			return true;
	return false;
}

static void check_entry(const struct mountinfo_entry *m)
{
	static const char *const names[] = { "ro", "rw", "memory", "cpu", "pids", "x", "" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i][0] && mountinfo_has_option(m->sb_opts, names[i]) !=
		                   option_there(m->sb_opts, names[i]))
			abort();
	if (m->target[0] != '/' || !m->root[0] || !m->fstype[0])
		abort();
	if (!flag_ok(m->vfs_opts) || !flag_ok(m->sb_opts))
		abort();
	if (mountinfo_writable(m) != (m->vfs_opts[1] == 'w' && m->sb_opts[1] == 'w'))
		abort();
	if (m->id < 0 || m->parent < 0)
		abort();
}

/* The table walk over a copy: entries while the line walk accepts them,
 * then the end exactly when the line walk ended cleanly. */
static size_t table_walk(const uint8_t *data, size_t size, int *last)
{
	struct mountinfo_table t = { .buf = malloc(size + 1), .len = size };
	struct mountinfo_entry m;
	const char *why;
	size_t n = 0;

	if (!t.buf)
		abort();
	memcpy(t.buf, data, size);
	t.buf[size] = '\0';
	while ((*last = mountinfo_next(&t, &m, &why)) > 0)
		n++;
	if (*last < 0 && !why)
		abort();
	mountinfo_free(&t);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *line;
	const char *why = NULL;
	size_t pos = 0, lines = 0, good = 0, walked;
	bool refused = false;
	int last;

	if (!buf)
		return 0;
	walked = table_walk(data, size, &last);
	memcpy(buf, data, size);
	buf[size] = '\0';
	while ((line = mountinfo_next_line(buf, size, &pos, &why)) != NULL) {
		struct mountinfo_entry m;
		const char *lwhy = NULL;

		if (++lines > size + 1)
			abort();   /* the walk must advance */
		if (mountinfo_parse_line(line, &m, &lwhy) == 0) {
			check_entry(&m);
			good += !refused;
		} else if (!lwhy) {
			abort();   /* a refusal always says why */
		} else {
			refused = true;
		}
	}
	if (pos < size && !why)
		abort();   /* stopped early without a reason */
	if (walked != good || (last == 0) != (!refused && !why))
		abort();   /* the table walk stops at the first refusal, as it must */
	free(buf);
	return 0;
}

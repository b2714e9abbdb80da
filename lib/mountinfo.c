/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* mountinfo.c — the strict reader of /proc/self/mountinfo (mountinfo.h).
 *
 * A line is, as proc(5) describes it and the kernel writes it
 * (fs/proc_namespace.c, show_mountinfo):
 *   ID PARENT MAJ:MIN ROOT TARGET VFS-OPTS [OPTIONAL...] - FSTYPE SOURCE SB-OPTS
 * single spaces between the fields; ROOT, TARGET, FSTYPE and SOURCE with a
 * space, tab, newline or backslash written as a three-digit octal escape
 * (\040, \011, \012, \134); SOURCE possibly empty; SB-OPTS the rest of the
 * line, whatever a file system prints there. Both option fields start with
 * "ro" or "rw" (the mount's flag, then the superblock's), and that is all
 * the audit reads of them: a file system's own options never decide.
 * Anything else — a missing field, an empty one, a stray backslash, a number
 * with a sign, no "-" separator, a last line without its newline — is an
 * error for the whole table.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mountinfo.h"

/* The next single-space-separated field of *S, NUL-terminated in place;
 * NULL when *S is exhausted. An empty field ("" between two spaces) is
 * returned as "": the caller decides whether it may be empty. */
static char *next_field(char **s)
{
	char *f = *s, *sp;

	if (!f)
		return NULL;
	sp = strchr(f, ' ');
	if (sp) {
		*sp = '\0';
		*s = sp + 1;
	} else {
		*s = NULL;
	}
	return f;
}

/* Undoes the kernel's \ooo escapes in place. False on a backslash not
 * followed by three octal digits, one that would make a NUL, or a raw tab
 * or newline (which the kernel would have escaped). */
static bool unescape(char *s)
{
	char *w = s;

	for (const char *r = s; *r; ) {
		if (*r == '\t' || *r == '\n')
			return false;   /* the kernel escapes them here */
		if (*r != '\\') {
			*w++ = *r++;
			continue;
		}
		if (r[1] < '0' || r[1] > '3' || r[2] < '0' || r[2] > '7' || r[3] < '0' || r[3] > '7')
			return false;
		*w = (char)(((r[1] - '0') << 6) | ((r[2] - '0') << 3) | (r[3] - '0'));
		if (*w == '\0')
			return false;
		w++;
		r += 4;
	}
	*w = '\0';
	return true;
}

/* Digits only, no sign, no overflow past MAX, nothing after but TERM. */
static const char *parse_uint(const char *s, unsigned long max, char term, unsigned long *out)
{
	unsigned long v = 0;

	if (*s < '0' || *s > '9')
		return NULL;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (max - (unsigned long)(*s - '0')) / 10)
			return NULL;
		v = v * 10 + (unsigned long)(*s - '0');
	}
	if (*s != term)
		return NULL;
	*out = v;
	return s;
}

/* "ro" or "rw" as the first comma-separated option. */
static bool starts_with_flag(const char *opts)
{
	return (strncmp(opts, "ro", 2) == 0 || strncmp(opts, "rw", 2) == 0) &&
	       (opts[2] == '\0' || opts[2] == ',');
}

/* ID PARENT MAJ:MIN */
static int parse_ids(char **s, struct mountinfo_entry *m, const char **why)
{
	const char *id = next_field(s), *parent = next_field(s), *dev = next_field(s);
	unsigned long v[4];
	const char *colon;

	if (!id || !parse_uint(id, 0x7fffffffUL, '\0', &v[0]) ||
	    !parent || !parse_uint(parent, 0x7fffffffUL, '\0', &v[1])) {
		*why = "the mount ids are not decimal numbers";
		return -EINVAL;
	}
	if (!dev || !(colon = parse_uint(dev, 0xffffffffUL, ':', &v[2])) ||
	    !parse_uint(colon + 1, 0xffffffffUL, '\0', &v[3])) {
		*why = "the device is not MAJOR:MINOR";
		return -EINVAL;
	}
	m->id = (int)v[0];
	m->parent = (int)v[1];
	m->maj = (unsigned)v[2];
	m->min = (unsigned)v[3];
	return 0;
}

/* ROOT TARGET VFS-OPTS [OPTIONAL...] - */
static int parse_mount_part(char **s, struct mountinfo_entry *m, const char **why)
{
	char *root = next_field(s), *target = next_field(s), *vfs = next_field(s), *f;

	if (!root || !*root || !unescape(root) || !target || target[0] != '/' || !unescape(target)) {
		*why = "the root or the mount point is missing or badly escaped";
		return -EINVAL;
	}
	if (!vfs || !starts_with_flag(vfs)) {
		*why = "the mount options do not start with \"ro\" or \"rw\"";
		return -EINVAL;
	}
	while ((f = next_field(s)) != NULL && strcmp(f, "-") != 0)
		if (!*f) {
			*why = "an optional field is empty";
			return -EINVAL;
		}
	if (!f) {
		*why = "no \" - \" separator";
		return -EINVAL;
	}
	m->root = root;
	m->target = target;
	m->vfs_opts = vfs;
	return 0;
}

/* FSTYPE SOURCE SB-OPTS */
static int parse_fs_part(char **s, struct mountinfo_entry *m, const char **why)
{
	char *fstype = next_field(s), *source = next_field(s), *sb = *s;

	if (!fstype || !*fstype || !unescape(fstype) || !source || !unescape(source)) {
		*why = "the file system type or the source is missing or badly escaped";
		return -EINVAL;
	}
	if (!sb || !starts_with_flag(sb)) {
		*why = "the superblock options do not start with \"ro\" or \"rw\"";
		return -EINVAL;
	}
	m->fstype = fstype;
	m->source = source;
	m->sb_opts = sb;
	return 0;
}

int mountinfo_parse_line(char *line, struct mountinfo_entry *m, const char **why)
{
	char *s = line;
	int r;

	memset(m, 0, sizeof(*m));
	if ((r = parse_ids(&s, m, why)) < 0 || (r = parse_mount_part(&s, m, why)) < 0)
		return r;
	return parse_fs_part(&s, m, why);
}

bool mountinfo_writable(const struct mountinfo_entry *m)
{
	return strncmp(m->vfs_opts, "rw", 2) == 0 && strncmp(m->sb_opts, "rw", 2) == 0;
}

int mountinfo_read(int fd, char **out, size_t *out_len)
{
	size_t len = 0, size = 16384;
	char *buf = malloc(size), *nb;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (len + 1 >= size) {
			if (size >= MOUNTINFO_MAX) {
				free(buf);
				return -EFBIG;
			}
			nb = realloc(buf, size * 2);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			size *= 2;
		}
		n = read(fd, buf + len, size - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			free(buf);
			return -e;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*out = buf;
	*out_len = len;
	return 0;
}

char *mountinfo_next_line(char *buf, size_t len, size_t *pos, const char **why)
{
	char *line = buf + *pos, *nl;

	if (*pos >= len)
		return NULL;
	nl = memchr(line, '\n', len - *pos);
	if (!nl) {
		*why = "the last line has no newline: the table is cut short";
		return NULL;
	}
	if (memchr(line, '\0', (size_t)(nl - line))) {
		*why = "a NUL byte";
		return NULL;
	}
	*nl = '\0';
	*pos = (size_t)(nl - buf) + 1;
	return line;
}

int mountinfo_load(const char *path, struct mountinfo_table *t)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	*t = (struct mountinfo_table){ 0 };
	if (fd < 0)
		return -errno;
	r = mountinfo_read(fd, &t->buf, &t->len);
	close(fd);
	return r;
}

int mountinfo_next(struct mountinfo_table *t, struct mountinfo_entry *m, const char **why)
{
	char *line;

	*why = NULL;
	line = mountinfo_next_line(t->buf, t->len, &t->pos, why);
	if (!line) {
		t->line += *why != NULL;   /* the line that is cut short or has a NUL */
		return *why ? -EINVAL : 0;
	}
	t->line++;
	return mountinfo_parse_line(line, m, why) < 0 ? -EINVAL : 1;
}

void mountinfo_free(struct mountinfo_table *t)
{
	free(t->buf);
	*t = (struct mountinfo_table){ 0 };
}

bool mountinfo_has_option(const char *opts, const char *name)
{
	size_t n = strlen(name);

	for (const char *o = opts; o && *o; ) {
		size_t len = strcspn(o, ",");

		if (len >= n && strncmp(o, name, n) == 0 && (len == n || o[n] == '='))
			return true;
		o += len;
		o += *o == ',';
	}
	return false;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* mountinfo.h — a strict reader of /proc/self/mountinfo, for the init's
 * mount audit (helper/init-guard.c, stage "init:mounts") and for the
 * library's host mount scans (lib/paths.c, lib/hostpath.c, lib/cgroup.c,
 * lib/caps-probe.c), in place of libmount: the format of proc(5)
 * ("/proc/pid/mountinfo"), each field checked, every line accounted for. A
 * line it cannot parse is an error, never skipped: an audit or a scan that
 * skipped a line would pass a mount it never saw.
 */
#ifndef OSB_MOUNTINFO_H
#define OSB_MOUNTINFO_H

#include <stdbool.h>
#include <stddef.h>

/* One line. The strings point into the buffer the line was parsed in, with
 * the kernel's octal escapes (\040 for a space, ...) undone. */
struct mountinfo_entry {
	int id, parent;          /* mount ids, as statx(STATX_MNT_ID) reports them */
	unsigned maj, min;       /* the superblock's device */
	const char *root;        /* the mount's root within its file system */
	const char *target;      /* the mount point, absolute */
	const char *vfs_opts;    /* per-mount options: "ro" or "rw" first */
	const char *fstype;
	const char *source;      /* may be "" (no source) */
	const char *sb_opts;     /* superblock options: "ro" or "rw" first */
};

/* Parses LINE (NUL-terminated, no newline; modified in place). 0, or
 * -EINVAL with *why set to what is wrong. */
int mountinfo_parse_line(char *line, struct mountinfo_entry *m, const char **why);

/* Writable unless the mount or its superblock is read-only. The kernel
 * writes "ro" or "rw" first in both option fields; the parser refuses a
 * line where it does not. */
bool mountinfo_writable(const struct mountinfo_entry *m);

/* Reads FD to its end into a NUL-terminated buffer (freed by the caller).
 * 0 or -errno; -EFBIG past MOUNTINFO_MAX bytes. */
#define MOUNTINFO_MAX (64u * 1024u * 1024u)
int mountinfo_read(int fd, char **buf, size_t *len);

/* The next line of the buffer from *POS: NUL-terminates it (in place) and
 * returns it, or NULL at the end. *WHY is set (and NULL returned) when the
 * buffer ends without a newline: the table would be cut short. */
char *mountinfo_next_line(char *buf, size_t len, size_t *pos, const char **why);

/* A whole table, read at once, walked entry by entry (mountinfo_next).
 * LINE is the number of the line mountinfo_next read last: the refused one
 * after -EINVAL, the count of lines at the end. */
struct mountinfo_table {
	char *buf;
	size_t len, pos, line;
};

/* Reads the table at PATH (a mountinfo file: /proc/self/mountinfo). 0 or
 * -errno; free it with mountinfo_free. A table already read (mountinfo_read)
 * is walked as { .buf = BUF, .len = LEN }. */
int mountinfo_load(const char *path, struct mountinfo_table *t);

/* 1 with *M the next entry (its strings valid until mountinfo_free), 0 at
 * the end of the table, -EINVAL with *WHY set for a line the parser refuses
 * or a table cut short: the caller fails, never goes on without it. */
int mountinfo_next(struct mountinfo_table *t, struct mountinfo_entry *m, const char **why);

void mountinfo_free(struct mountinfo_table *t);

/* Whether the comma-separated option list OPTS holds NAME, alone or as
 * NAME=VALUE. */
bool mountinfo_has_option(const char *opts, const char *name);

#endif

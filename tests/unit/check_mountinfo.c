/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_mountinfo.c — unit tests for lib/mountinfo.c, the reader of
 * /proc/self/mountinfo that the init's audit and the library's mount scans
 * share: this process's real table read both by it and by libmount (which
 * both used before) must agree entry by entry, through the line walk and the
 * table walk; crafted lines check the escapes, the empty source and the
 * optional fields; every malformed line is refused, never skipped, and the
 * table walk stops there; options are found whole.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <libmount.h>

#include "mountinfo.h"

static char *slurp_mountinfo(size_t *len)
{
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	char *buf = NULL;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(mountinfo_read(fd, &buf, len), 0);
	close(fd);
	return buf;
}

/* libmount's notion: read-only when either option string has "ro". */
static int libmount_writable(struct libmnt_fs *fs)
{
	const char *vfs = mnt_fs_get_vfs_options(fs), *sb = mnt_fs_get_fs_options(fs);

	return !((vfs && mnt_optstr_get_option(vfs, "ro", NULL, NULL) == 0) ||
		 (sb && mnt_optstr_get_option(sb, "ro", NULL, NULL) == 0));
}

static void expect_same(const struct mountinfo_entry *m, struct libmnt_fs *fs)
{
	const char *src = mnt_fs_get_source(fs);

	ck_assert_int_eq(m->id, mnt_fs_get_id(fs));
	ck_assert_int_eq(m->parent, mnt_fs_get_parent_id(fs));
	ck_assert_uint_eq(m->maj, major(mnt_fs_get_devno(fs)));
	ck_assert_uint_eq(m->min, minor(mnt_fs_get_devno(fs)));
	ck_assert_str_eq(m->root, mnt_fs_get_root(fs));
	ck_assert_str_eq(m->target, mnt_fs_get_target(fs));
	ck_assert_str_eq(m->fstype, mnt_fs_get_fstype(fs));
	ck_assert_str_eq(m->source, src ? src : "");
	ck_assert_int_eq(mountinfo_writable(m), libmount_writable(fs));
}

START_TEST(test_real_table_agrees_with_libmount)
{
	struct libmnt_table *tb = mnt_new_table_from_file("/proc/self/mountinfo");
	struct libmnt_iter *itr = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	size_t len, pos = 0, n = 0;
	char *buf = slurp_mountinfo(&len), *line;
	const char *why = NULL;

	ck_assert_ptr_nonnull(tb);
	ck_assert_ptr_nonnull(itr);
	while ((line = mountinfo_next_line(buf, len, &pos, &why)) != NULL) {
		struct mountinfo_entry m;

		ck_assert_msg(mountinfo_parse_line(line, &m, &why) == 0, "line %zu: %s", n + 1, why);
		ck_assert_int_eq(mnt_table_next_fs(tb, itr, &fs), 0);
		expect_same(&m, fs);
		n++;
	}
	ck_assert_ptr_null(why);
	ck_assert_uint_gt(n, 0);
	ck_assert_int_eq(mnt_table_get_nents(tb), (int)n);
	mnt_free_iter(itr);
	mnt_unref_table(tb);
	free(buf);
}
END_TEST

static struct mountinfo_entry parse_ok(const char *text, char *copy, size_t size)
{
	struct mountinfo_entry m;
	const char *why = NULL;

	snprintf(copy, size, "%s", text);
	ck_assert_msg(mountinfo_parse_line(copy, &m, &why) == 0, "\"%s\": %s", text, why);
	return m;
}

START_TEST(test_escapes_undone)
{
	char buf[512];
	struct mountinfo_entry m = parse_ok(
		"36 35 98:0 /a\\040b /mnt/x\\040y\\011z\\134w rw,noatime master:1 - ext\\0404 "
		"/dev/with\\040space rw,errors=continue", buf, sizeof(buf));

	ck_assert_int_eq(m.id, 36);
	ck_assert_int_eq(m.parent, 35);
	ck_assert_uint_eq(m.maj, 98);
	ck_assert_uint_eq(m.min, 0);
	ck_assert_str_eq(m.root, "/a b");
	ck_assert_str_eq(m.target, "/mnt/x y\tz\\w");
	ck_assert_str_eq(m.vfs_opts, "rw,noatime");
	ck_assert_str_eq(m.fstype, "ext 4");
	ck_assert_str_eq(m.source, "/dev/with space");
	ck_assert_str_eq(m.sb_opts, "rw,errors=continue");
	ck_assert(mountinfo_writable(&m));
}
END_TEST

START_TEST(test_empty_source_and_optional_fields)
{
	char buf[512];
	struct mountinfo_entry m;

	m = parse_ok("100 1 0:50 / /tmp rw,nosuid - tmpfs  rw,size=4k", buf, sizeof(buf));
	ck_assert_str_eq(m.source, "");
	ck_assert_str_eq(m.sb_opts, "rw,size=4k");
	m = parse_ok("100 1 0:50 / /tmp rw shared:2 master:3 propagate_from:4 unbindable - tmpfs "
		     "tmpfs rw", buf, sizeof(buf));
	ck_assert_str_eq(m.fstype, "tmpfs");
	ck_assert_str_eq(m.source, "tmpfs");
	/* nsfs binds have a root that is not a path */
	m = parse_ok("7 1 0:4 net:[4026531840] /run/netns/x rw - nsfs nsfs rw", buf, sizeof(buf));
	ck_assert_str_eq(m.root, "net:[4026531840]");
}
END_TEST

START_TEST(test_read_only_by_either_flag)
{
	char buf[512];
	struct mountinfo_entry m;

	m = parse_ok("1 0 0:1 / / ro - ext4 /dev/sda rw", buf, sizeof(buf));
	ck_assert(!mountinfo_writable(&m));
	m = parse_ok("1 0 0:1 / / rw,nosuid - ext4 /dev/sda ro,relatime", buf, sizeof(buf));
	ck_assert(!mountinfo_writable(&m));
	/* a file system option that happens to be called "ro" decides nothing */
	m = parse_ok("1 0 0:1 / / rw - fuse.x x rw,ro", buf, sizeof(buf));
	ck_assert(mountinfo_writable(&m));
	/* the superblock options are the rest of the line, spaces and all */
	m = parse_ok("1 0 0:1 / / rw - fuse.x x rw,opt=a b", buf, sizeof(buf));
	ck_assert_str_eq(m.sb_opts, "rw,opt=a b");
}
END_TEST

static const struct {
	const char *line, *why;
} bad_lines[] = {
	{ "", "the mount ids are not decimal numbers" },
	{ "+1 0 0:1 / / rw - ext4 x rw", "the mount ids are not decimal numbers" },
	{ "1 -1 0:1 / / rw - ext4 x rw", "the mount ids are not decimal numbers" },
	{ "99999999999 0 0:1 / / rw - ext4 x rw", "the mount ids are not decimal numbers" },
	{ "1  0 0:1 / / rw - ext4 x rw", "the mount ids are not decimal numbers" },
	{ "1 0 0:1x / / rw - ext4 x rw", "the device is not MAJOR:MINOR" },
	{ "1 0 01 / / rw - ext4 x rw", "the device is not MAJOR:MINOR" },
	{ "1 0 0:1", "the root or the mount point is missing or badly escaped" },
	{ "1 0 0:1  / rw - ext4 x rw", "the root or the mount point is missing or badly escaped" },
	{ "1 0 0:1 / rel rw - ext4 x rw", "the root or the mount point is missing or badly escaped" },
	{ "1 0 0:1 / /a\\04 rw - ext4 x rw", "the root or the mount point is missing or badly escaped" },
	{ "1 0 0:1 / /a\\400 rw - ext4 x rw", "the root or the mount point is missing or badly escaped" },
	{ "1 0 0:1 / /a\\000 rw - ext4 x rw", "the root or the mount point is missing or badly escaped" },
	{ "1 0 0:1 / /a\\x rw - ext4 x rw", "the root or the mount point is missing or badly escaped" },
	{ "1 0 0:1 / /a\tb rw - ext4 x rw", "the root or the mount point is missing or badly escaped" },
	{ "1 0 0:1 / / nosuid,rw - ext4 x rw", "the mount options do not start with \"ro\" or \"rw\"" },
	{ "1 0 0:1 / / rwx - ext4 x rw", "the mount options do not start with \"ro\" or \"rw\"" },
	{ "1 0 0:1 / /", "the mount options do not start with \"ro\" or \"rw\"" },
	{ "1 0 0:1 / / rw shared:1", "no \" - \" separator" },
	{ "1 0 0:1 / / rw  - ext4 x rw", "an optional field is empty" },
	{ "1 0 0:1 / / rw -", "the file system type or the source is missing or badly escaped" },
	{ "1 0 0:1 / / rw -  x rw", "the file system type or the source is missing or badly escaped" },
	{ "1 0 0:1 / / rw - ext4", "the file system type or the source is missing or badly escaped" },
	{ "1 0 0:1 / / rw - ext4 a\\9 rw", "the file system type or the source is missing or badly escaped" },
	{ "1 0 0:1 / / rw - ext4 x", "the superblock options do not start with \"ro\" or \"rw\"" },
	{ "1 0 0:1 / / rw - ext4 x ", "the superblock options do not start with \"ro\" or \"rw\"" },
	{ "1 0 0:1 / / rw - ext4 x errors=remount-ro,ro", "the superblock options do not start with \"ro\" or \"rw\"" },
	{ "1 0 0:1 / / rw - ext4 my source rw", "the superblock options do not start with \"ro\" or \"rw\"" },
};

START_TEST(test_malformed_line_refused)
{
	char buf[512];
	struct mountinfo_entry m;
	const char *why = NULL;

	snprintf(buf, sizeof(buf), "%s", bad_lines[_i].line);
	ck_assert_msg(mountinfo_parse_line(buf, &m, &why) == -EINVAL, "accepted: \"%s\"",
		      bad_lines[_i].line);
	ck_assert_ptr_nonnull(why);
	ck_assert_str_eq(why, bad_lines[_i].why);
}
END_TEST

START_TEST(test_lines_cut_short_or_with_nul_refused)
{
	char a[] = "1 0 0:1 / / rw - ext4 x rw\n2 1 0:2 / /t rw - tmpfs t rw";
	char b[] = "1 0 0:1 / / rw - ext4 x rw\n2 1 0:2 / /t\0x rw - tmpfs t rw\n";
	size_t pos = 0;
	const char *why = NULL;

	ck_assert_ptr_nonnull(mountinfo_next_line(a, sizeof(a) - 1, &pos, &why));
	ck_assert_ptr_null(mountinfo_next_line(a, sizeof(a) - 1, &pos, &why));
	ck_assert_str_eq(why, "the last line has no newline: the table is cut short");
	pos = 0;
	why = NULL;
	ck_assert_ptr_nonnull(mountinfo_next_line(b, sizeof(b) - 1, &pos, &why));
	ck_assert_ptr_null(mountinfo_next_line(b, sizeof(b) - 1, &pos, &why));
	ck_assert_str_eq(why, "a NUL byte");
	pos = sizeof(b) - 1;
	why = NULL;
	ck_assert_ptr_null(mountinfo_next_line(b, sizeof(b) - 1, &pos, &why));
	ck_assert_ptr_null(why);
}
END_TEST

/* A table larger than the first buffer is read whole. */
START_TEST(test_read_grows_to_the_end)
{
	static const char line[] = "1 0 0:1 / / rw - ext4 x rw\n";
	size_t n = 5000, len = 0;
	int fd = memfd_create("mountinfo", MFD_CLOEXEC);
	char *buf = NULL;

	ck_assert_int_ge(fd, 0);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(write(fd, line, sizeof(line) - 1), (ssize_t)(sizeof(line) - 1));
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	ck_assert_int_eq(mountinfo_read(fd, &buf, &len), 0);
	ck_assert_uint_eq(len, n * (sizeof(line) - 1));
	ck_assert_uint_eq(strlen(buf), len);
	free(buf);
	close(fd);
}
END_TEST

/* The table walk the library's scans use: the real table, entry for entry
 * as libmount reads it. */
START_TEST(test_table_walk_agrees_with_libmount)
{
	struct libmnt_table *tb = mnt_new_table_from_file("/proc/self/mountinfo");
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	struct mountinfo_table t;
	struct mountinfo_entry m;
	const char *why = NULL;
	size_t n = 0;

	ck_assert_ptr_nonnull(tb);
	ck_assert_int_eq(mountinfo_load("/proc/self/mountinfo", &t), 0);
	while (mnt_table_next_fs(tb, it, &fs) == 0) {
		ck_assert_int_eq(mountinfo_next(&t, &m, &why), 1);
		expect_same(&m, fs);
		n++;
	}
	ck_assert_int_eq(mountinfo_next(&t, &m, &why), 0);
	ck_assert_ptr_null(why);
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_eq(t.line, n);
	mountinfo_free(&t);
	ck_assert_ptr_null(t.buf);
	mnt_free_iter(it);
	mnt_unref_table(tb);
	ck_assert_int_eq(mountinfo_load("/nonexistent/mountinfo", &t), -ENOENT);
	ck_assert_ptr_null(t.buf);
}
END_TEST

/* A refused line ends the walk with its reason: the entries after it are
 * never handed out as if the table had ended. */
START_TEST(test_table_walk_stops_at_a_refused_line)
{
	static const char text[] = "1 0 0:1 / / rw - ext4 x rw\n"
	                           "2 1 0:2 / /a rw - tmpfs\n"
	                           "3 1 0:3 / /b rw - tmpfs t rw\n";
	char path[] = "/tmp/check-mountinfo.XXXXXX";
	int fd = mkstemp(path);
	struct mountinfo_table t;
	struct mountinfo_entry m;
	const char *why = NULL;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, sizeof(text) - 1), (ssize_t)(sizeof(text) - 1));
	close(fd);
	ck_assert_int_eq(mountinfo_load(path, &t), 0);
	unlink(path);
	ck_assert_int_eq(mountinfo_next(&t, &m, &why), 1);
	ck_assert_str_eq(m.target, "/");
	ck_assert_int_eq(mountinfo_next(&t, &m, &why), -EINVAL);
	ck_assert_str_eq(why, "the file system type or the source is missing or badly escaped");
	ck_assert_uint_eq(t.line, 2);   /* the init's refusal names it: "line 2" */
	mountinfo_free(&t);
}
END_TEST

/* A table read already (the init's, from its fd) is walked in place; a
 * last line without its newline is refused as line 2 of 2. */
START_TEST(test_table_walk_of_a_buffer_cut_short)
{
	char text[] = "1 0 0:1 / / rw - ext4 x rw\n2 1 0:2 / /a rw - tmpfs t rw";
	struct mountinfo_table t = { .buf = text, .len = sizeof(text) - 1 };
	struct mountinfo_entry m;
	const char *why = NULL;

	ck_assert_int_eq(mountinfo_next(&t, &m, &why), 1);
	ck_assert_uint_eq(t.line, 1);
	ck_assert_int_eq(mountinfo_next(&t, &m, &why), -EINVAL);
	ck_assert_str_eq(why, "the last line has no newline: the table is cut short");
	ck_assert_uint_eq(t.line, 2);
}
END_TEST

START_TEST(test_option_found_whole)
{
	ck_assert(mountinfo_has_option("rw,memory", "memory"));
	ck_assert(mountinfo_has_option("rw,cpu,cpuacct", "cpu"));
	ck_assert(mountinfo_has_option("rw,cpu,cpuacct", "cpuacct"));
	ck_assert(mountinfo_has_option("rw,name=systemd", "name"));
	ck_assert(mountinfo_has_option("rw", "rw"));
	ck_assert(!mountinfo_has_option("rw,cpuacct", "cpu"));
	ck_assert(!mountinfo_has_option("rw,xcpu", "cpu"));
	ck_assert(!mountinfo_has_option("rw,cpu", "cpuacct"));
	ck_assert(!mountinfo_has_option("rw,name=memory", "memory"));
	ck_assert(!mountinfo_has_option("", "memory"));
	ck_assert(!mountinfo_has_option("rw,,", "memory"));
}
END_TEST

static Suite *mountinfo_suite(void)
{
	Suite *s = suite_create("mountinfo");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_real_table_agrees_with_libmount);
	tcase_add_test(tc, test_escapes_undone);
	tcase_add_test(tc, test_empty_source_and_optional_fields);
	tcase_add_test(tc, test_read_only_by_either_flag);
	tcase_add_loop_test(tc, test_malformed_line_refused, 0,
			    (int)(sizeof(bad_lines) / sizeof(bad_lines[0])));
	tcase_add_test(tc, test_lines_cut_short_or_with_nul_refused);
	tcase_add_test(tc, test_read_grows_to_the_end);
	tcase_add_test(tc, test_table_walk_agrees_with_libmount);
	tcase_add_test(tc, test_table_walk_stops_at_a_refused_line);
	tcase_add_test(tc, test_table_walk_of_a_buffer_cut_short);
	tcase_add_test(tc, test_option_found_whole);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(mountinfo_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

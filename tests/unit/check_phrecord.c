/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_phrecord.c — unit tests for lib/phrecord.c, the record of the
 * placeholders osb-isolate made: the record directory is trusted only when
 * private to the caller; a placeholder is removed only when it is still
 * the directory found, empty, unlocked by any other holder and, with a key,
 * still recorded; a directory with no record (the caller's own) stays; one
 * that is no longer empty stays and loses its record.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "phrecord.h"

static char base[64], ws[64];
static int wsfd = -1;

static void setup(void)
{
	snprintf(base, sizeof(base), "/tmp/phrec-base.XXXXXX");
	snprintf(ws, sizeof(ws), "/tmp/phrec-ws.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(base));
	ck_assert_ptr_nonnull(mkdtemp(ws));
	wsfd = open(ws, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(wsfd, 0);
}

static void teardown(void)
{
	char cmd[200];

	close(wsfd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", base, ws);
	ck_assert_int_eq(system(cmd), 0);
}

/* A made .git in the workspace: its dev, ino and key. */
static void make_git(struct stat *st, char key[PHREC_KEY_MAX])
{
	int fd;

	ck_assert_int_eq(mkdirat(wsfd, ".git", 0755), 0);
	fd = openat(wsfd, ".git", O_PATH | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, st), 0);
	ck_assert_int_eq(phrec_key(fd, key), 0);
	close(fd);
}

static bool git_exists(void)
{
	struct stat st;

	return fstatat(wsfd, ".git", &st, AT_SYMLINK_NOFOLLOW) == 0;
}

START_TEST(test_dir_private_to_caller)
{
	int fd = phrec_dir_open(base);

	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(chmod(base, 0777), 0);
	ck_assert_int_eq(phrec_dir_open(base), -1);
	ck_assert_int_eq(chmod(base, 0700), 0);
}
END_TEST

START_TEST(test_keys_name_one_directory)
{
	char a[PHREC_KEY_MAX], b[PHREC_KEY_MAX], c[PHREC_KEY_MAX];
	int p, r;

	ck_assert_int_eq(mkdirat(wsfd, "a", 0755), 0);
	ck_assert_int_eq(mkdirat(wsfd, "b", 0755), 0);
	p = openat(wsfd, "a", O_PATH | O_CLOEXEC);
	r = openat(wsfd, "a", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_eq(phrec_key(p, a), 0);
	ck_assert_int_eq(phrec_key(r, c), 0);
	ck_assert_str_eq(a, c);
	close(p);
	close(r);
	p = openat(wsfd, "b", O_PATH | O_CLOEXEC);
	ck_assert_int_eq(phrec_key(p, b), 0);
	close(p);
	ck_assert_str_ne(a, b);
	/* Removed and made again: another directory, another key. */
	ck_assert_int_eq(unlinkat(wsfd, "a", AT_REMOVEDIR), 0);
	ck_assert_int_eq(mkdirat(wsfd, "a", 0755), 0);
	p = openat(wsfd, "a", O_PATH | O_CLOEXEC);
	ck_assert_int_eq(phrec_key(p, c), 0);
	close(p);
	ck_assert_str_ne(a, c);
}
END_TEST

START_TEST(test_made_without_record_removed_when_same)
{
	char key[PHREC_KEY_MAX];
	struct stat st;

	make_git(&st, key);
	ck_assert_int_eq(phrec_remove(base, wsfd, ".git", st.st_dev, st.st_ino + 1, ""), 0);
	ck_assert(git_exists());
	ck_assert_int_eq(phrec_remove(base, wsfd, ".git", st.st_dev, st.st_ino, ""), 1);
	ck_assert(!git_exists());
}
END_TEST

START_TEST(test_kept_while_another_run_binds_it)
{
	char key[PHREC_KEY_MAX];
	struct stat st;
	int rec = phrec_dir_open(base), held;

	make_git(&st, key);
	ck_assert_int_eq(phrec_add(rec, key), 0);
	held = openat(wsfd, ".git", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_eq(flock(held, LOCK_SH), 0);
	ck_assert_int_eq(phrec_remove(base, wsfd, ".git", st.st_dev, st.st_ino, key), 0);
	ck_assert(git_exists());
	ck_assert(phrec_has(rec, key));
	/* The other run ends: the last one removes it, record and all. */
	close(held);
	ck_assert_int_eq(phrec_remove(base, wsfd, ".git", st.st_dev, st.st_ino, key), 1);
	ck_assert(!git_exists());
	ck_assert(!phrec_has(rec, key));
	close(rec);
}
END_TEST

START_TEST(test_no_record_not_a_placeholder)
{
	char key[PHREC_KEY_MAX];
	struct stat st;
	int rec = phrec_dir_open(base);

	/* The caller's own empty .git: found with a key, but never recorded
	 * (or its record gone with an earlier removal). */
	make_git(&st, key);
	ck_assert(!phrec_has(rec, key));
	ck_assert_int_eq(phrec_remove(base, wsfd, ".git", st.st_dev, st.st_ino, key), 0);
	ck_assert(git_exists());
	close(rec);
}
END_TEST

START_TEST(test_filled_keeps_directory_drops_record)
{
	char key[PHREC_KEY_MAX];
	struct stat st;
	int rec = phrec_dir_open(base), fd;

	make_git(&st, key);
	ck_assert_int_eq(phrec_add(rec, key), 0);
	fd = openat(wsfd, ".git/HEAD", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(phrec_remove(base, wsfd, ".git", st.st_dev, st.st_ino, key), 0);
	ck_assert(git_exists());
	ck_assert(!phrec_has(rec, key));
	close(rec);
}
END_TEST

static Suite *phrecord_suite(void)
{
	Suite *s = suite_create("phrecord");
	TCase *tc = tcase_create("record");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_dir_private_to_caller);
	tcase_add_test(tc, test_keys_name_one_directory);
	tcase_add_test(tc, test_made_without_record_removed_when_same);
	tcase_add_test(tc, test_kept_while_another_run_binds_it);
	tcase_add_test(tc, test_no_record_not_a_placeholder);
	tcase_add_test(tc, test_filled_keeps_directory_drops_record);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(phrecord_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_gitindex.c — unit tests for lib/gitindex.c, the reader of git's
 * index: every index git itself wrote (the fuzzing seeds in
 * tests/fuzz/corpus/gitindex/, written by git 2.39: versions 2 to 4, an
 * intent-to-add entry, a split index and its shared index, end-of-entries
 * and offset-table extensions) is read whole, with exactly its gitlinks and
 * link; a sink's error stops the walk with it.
 */
#include "gitindex.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TEST_SRCDIR
#error "build with -DTEST_SRCDIR=\"/path/to/source\""
#endif

typedef struct seen {
	char buf[512];
	size_t n;
	int stop;   /* a gitlink's return value */
} seen;

static int on_gitlink(void *ctx, uint32_t entry, const char *path)
{
	seen *s = ctx;
	int w = snprintf(s->buf + s->n, sizeof(s->buf) - s->n, "gitlink %u %s;", entry, path);

	if (w > 0 && (size_t)w < sizeof(s->buf) - s->n)
		s->n += (size_t)w;
	return s->stop;
}

static int on_link(void *ctx, const char *hex)
{
	seen *s = ctx;
	int w = snprintf(s->buf + s->n, sizeof(s->buf) - s->n, "link %s;", hex);

	if (w > 0 && (size_t)w < sizeof(s->buf) - s->n)
		s->n += (size_t)w;
	return 0;
}

/* The seed NAME: its first byte picks the hash size, the rest is the index. */
static unsigned char *seed(const char *name, size_t *len, size_t *hsz)
{
	char path[4096];
	unsigned char *buf = malloc(1 << 20);
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), TEST_SRCDIR "/tests/fuzz/corpus/gitindex/%s", name);
	ck_assert_ptr_nonnull(buf);
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	n = fread(buf, 1, 1 << 20, f);
	fclose(f);
	ck_assert_uint_gt(n, 1);
	*hsz = buf[0] & 1 ? 32 : 20;
	*len = n - 1;
	memmove(buf, buf + 1, n - 1);
	return buf;
}

static const struct { const char *name, *want; } written_by_git[] = {
	{ "v2-gitlink", "gitlink 3 s;" },
	{ "v3-intent-to-add", "gitlink 3 s;" },
	{ "v4-gitlink", "gitlink 3 s;" },
	{ "v4-split", "link c6f98a1bfea21f41403887337db7cc5a1ad08f58;" },
	{ "v4-shared", "gitlink 4 s;" },
	{ "v2-eoie-ieot", "gitlink 7 s;" },
	{ "v4-eoie-ieot", "gitlink 7 s;" },
};

START_TEST(test_gitindex_reads_what_git_wrote)
{
	seen s = { .stop = 0 };
	struct gitindex_sink sink = { on_gitlink, on_link, &s };
	const char *why = NULL;
	size_t len, hsz;
	unsigned char *map = seed(written_by_git[_i].name, &len, &hsz);

	ck_assert_msg(gitindex_walk(map, len, hsz, &sink, &why) == 0, "%s: refused: %s",
	              written_by_git[_i].name, why ? why : "?");
	ck_assert_str_eq(s.buf, written_by_git[_i].want);
	free(map);
}
END_TEST

START_TEST(test_gitindex_sink_error_stops_the_walk)
{
	seen s = { .stop = -4242 };
	struct gitindex_sink sink = { on_gitlink, NULL, &s };
	const char *why = NULL;
	size_t len, hsz;
	unsigned char *map = seed("v2-eoie-ieot", &len, &hsz);

	ck_assert_int_eq(gitindex_walk(map, len, hsz, &sink, &why), -4242);
	ck_assert_ptr_null(why);
	free(map);
}
END_TEST

START_TEST(test_gitindex_refuses_a_moved_offset_table_block)
{
	seen s = { .stop = 0 };
	struct gitindex_sink sink = { on_gitlink, NULL, &s };
	const char *why = NULL;
	size_t len, hsz;
	unsigned char *map = seed("v2-eoie-ieot", &len, &hsz), *t = NULL;

	/* The IEOT's second block: 8 bytes on (the first is offset 12). */
	for (size_t i = 12; i + 4 < len; i++)
		if (memcmp(map + i, "IEOT", 4) == 0)
			t = map + i + 8 + 4;
	ck_assert_ptr_nonnull(t);
	t[8 + 3] += 8;
	ck_assert_int_eq(gitindex_walk(map, len, hsz, &sink, &why), 1);
	ck_assert_str_eq(why, "an offset table (IEOT) block that does not start at its entry");
	free(map);
}
END_TEST

static Suite *gitindex_suite(void)
{
	Suite *s = suite_create("gitindex");
	TCase *t = tcase_create("walk");

	tcase_add_loop_test(t, test_gitindex_reads_what_git_wrote, 0,
	                    (int)(sizeof(written_by_git) / sizeof(written_by_git[0])));
	tcase_add_test(t, test_gitindex_sink_error_stops_the_walk);
	tcase_add_test(t, test_gitindex_refuses_a_moved_offset_table_block);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(gitindex_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

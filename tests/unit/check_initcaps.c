/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_initcaps.c — unit tests for helper/init-caps.c, the init's
 * capability code without libcap: each answer is compared with libcap's on
 * the same process or the same sets (the kernel's count, the names, the
 * process's sets, and the text form the init's refusal names them in), so
 * the static init says exactly what the libcap-linked one said.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>

#include "init-caps.h"

START_TEST(test_count_matches_libcap)
{
	ck_assert_uint_eq(caps_count(), (unsigned)cap_max_bits());
}
END_TEST

START_TEST(test_names_match_libcap)
{
	for (unsigned c = 0; c < 64; c++) {
		char mine[24], *theirs = cap_to_name((cap_value_t)c);

		ck_assert_ptr_nonnull(theirs);
		ck_assert_str_eq(caps_name(c, mine, sizeof(mine)), theirs);
		cap_free(theirs);
	}
}
END_TEST

START_TEST(test_read_matches_libcap)
{
	struct caps_sets s;
	cap_t caps = cap_get_proc();
	static const cap_flag_t flags[] = { CAP_EFFECTIVE, CAP_PERMITTED, CAP_INHERITABLE };

	ck_assert_ptr_nonnull(caps);
	ck_assert_int_eq(caps_read(&s), 0);
	for (unsigned c = 0; c < (unsigned)cap_max_bits(); c++) {
		uint64_t mine[] = { s.eff, s.prm, s.inh };

		for (size_t f = 0; f < 3; f++) {
			cap_flag_value_t v = CAP_CLEAR;

			ck_assert_int_eq(cap_get_flag(caps, (cap_value_t)c, flags[f], &v), 0);
			ck_assert_int_eq(!!(mine[f] >> c & 1), v == CAP_SET);
		}
	}
	cap_free(caps);
}
END_TEST

START_TEST(test_bound_and_ambient_match_libcap)
{
	for (unsigned c = 0; c < caps_count(); c++) {
		ck_assert_int_eq(caps_bound(c), cap_get_bound((cap_value_t)c));
		ck_assert_int_eq(caps_ambient(c), cap_get_ambient((cap_value_t)c));
	}
	ck_assert_int_lt(caps_bound(caps_count()), 0);
}
END_TEST

/* libcap's text for S. */
static char *libcap_text(const struct caps_sets *s)
{
	static const cap_flag_t flags[] = { CAP_EFFECTIVE, CAP_PERMITTED, CAP_INHERITABLE };
	cap_t caps = cap_init();
	char *text;

	ck_assert_ptr_nonnull(caps);
	for (cap_value_t c = 0; c < 64; c++) {
		uint64_t sets[] = { s->eff, s->prm, s->inh };

		for (size_t f = 0; f < 3; f++)
			if (sets[f] >> c & 1)
				ck_assert_int_eq(cap_set_flag(caps, flags[f], 1, &c, CAP_SET), 0);
	}
	text = cap_to_text(caps, NULL);
	ck_assert_ptr_nonnull(text);
	cap_free(caps);
	return text;
}

static void expect_text(const struct caps_sets *s)
{
	char mine[2048], *theirs = libcap_text(s);

	caps_text(s, caps_count(), mine, sizeof(mine));
	ck_assert_msg(strcmp(mine, theirs) == 0, "e=%llx p=%llx i=%llx: mine \"%s\", libcap \"%s\"",
		      (unsigned long long)s->eff, (unsigned long long)s->prm,
		      (unsigned long long)s->inh, mine, theirs);
	cap_free(theirs);
}

START_TEST(test_text_of_typical_sets)
{
	uint64_t all = (caps_count() >= 64) ? ~0ULL : (1ULL << caps_count()) - 1;
	const struct caps_sets cases[] = {
		{ 0, 0, 0 },
		{ all, all, 0 },                                   /* root: "=ep" */
		{ all & ~(1ULL << 24), all & ~(1ULL << 24), 0 },    /* "=ep cap_sys_resource-ep" */
		{ 1, 1, 1 },                                       /* "cap_chown=eip" */
		{ 0, 1ULL << 6 | 1ULL << 7, 0 },                   /* permitted only */
		{ 0, 0, all },                                     /* "=i" */
		{ all, all, all },
		{ 1ULL << 8, 1ULL << 8 | 1ULL << 21, 1ULL << 21 },
		{ 0, 0, 1ULL << 63 | 1ULL << 50 },                 /* unnamed bits */
		{ all | 1ULL << 60, all, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_text(&cases[i]);
}
END_TEST

/* A fixed pseudo-random walk through many sets: sparse, dense and mixed. */
START_TEST(test_text_of_many_sets)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	uint64_t named = (caps_count() >= 64) ? ~0ULL : (1ULL << caps_count()) - 1;

	for (int i = 0; i < 3000; i++) {
		struct caps_sets s;
		uint64_t r[3];

		for (int k = 0; k < 3; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			r[k] = x;
		}
		/* i % 4: random bits, mostly set, mostly clear, one set shared */
		switch (i % 4) {
		case 0: s = (struct caps_sets){ r[0], r[1], r[2] }; break;
		case 1: s = (struct caps_sets){ r[0] | r[1], r[1] | r[2], r[2] | r[0] }; break;
		case 2: s = (struct caps_sets){ r[0] & r[1], r[1] & r[2], r[2] & r[0] }; break;
		default: s = (struct caps_sets){ r[0], r[0], r[0] & r[1] }; break;
		}
		if (i % 3 != 0) {
			s.eff &= named;
			s.prm &= named;
			s.inh &= named;
		}
		expect_text(&s);
	}
}
END_TEST

START_TEST(test_text_truncates_safely)
{
	struct caps_sets s = { 0x5555555555ULL, 0, 0x2aaaaaaaaaULL };
	char buf[12];

	memset(buf, 'x', sizeof(buf));
	caps_text(&s, caps_count(), buf, sizeof(buf));
	ck_assert_uint_eq(strlen(buf), sizeof(buf) - 1);
	caps_text(&s, caps_count(), buf, 1);
	ck_assert_str_eq(buf, "");
}
END_TEST

static Suite *initcaps_suite(void)
{
	Suite *s = suite_create("initcaps");
	TCase *tc = tcase_create("kernel");

	tcase_add_test(tc, test_count_matches_libcap);
	tcase_add_test(tc, test_names_match_libcap);
	tcase_add_test(tc, test_read_matches_libcap);
	tcase_add_test(tc, test_bound_and_ambient_match_libcap);
	suite_add_tcase(s, tc);
	tc = tcase_create("text");
	tcase_add_test(tc, test_text_of_typical_sets);
	tcase_add_test(tc, test_text_of_many_sets);
	tcase_add_test(tc, test_text_truncates_safely);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(initcaps_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

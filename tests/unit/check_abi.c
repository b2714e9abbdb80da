/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_abi.c — the shapes of the public API a caller compiles against
 * (libosb-isolate(3), "ABI"), through lib/osb-isolate.h alone.
 *
 * Caller-allocated structs keep their size and layout for good: fields added
 * later are carved out of their reserved space, which the library zeroes;
 * the version constants agree with osb_version(); flag arguments refuse the
 * bits they do not know instead of ignoring them, and enum arguments refuse
 * values outside the enum.
 */
#include "osb-isolate.h"

#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define POLICY "osb-policy 1\n"

static osb_policy *must_parse(const char *text)
{
	osb_error err;
	osb_policy *p = osb_policy_parse(text, strlen(text), "t.policy", &err);

	ck_assert_msg(p != NULL, "parse failed: %s", err.message);
	return p;
}

static bool all_zero(const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

START_TEST(test_struct_sizes_and_offsets_are_fixed)
{
	/* A change here breaks every caller built against an older header. */
	ck_assert_uint_eq(sizeof(osb_error), 1128);
	ck_assert_uint_eq(offsetof(osb_error, stage), 8);
	ck_assert_uint_eq(offsetof(osb_error, message), 40);
	ck_assert_uint_eq(offsetof(osb_error, reserved), 1064);
	ck_assert_uint_eq(sizeof(osb_status), 112);
	ck_assert_uint_eq(offsetof(osb_status, duration_ms), 16);
	ck_assert_uint_eq(offsetof(osb_status, max_rss_kib), 40);
	ck_assert_uint_eq(offsetof(osb_status, reserved), 48);
}
END_TEST

START_TEST(test_error_reserved_space_is_zeroed)
{
	osb_error err;
	osb_policy *p;

	memset(&err, 0xa5, sizeof(err));
	p = osb_policy_parse("nonsense\n", 9, "t.policy", &err);
	ck_assert_ptr_null(p);
	ck_assert_int_eq(err.code, OSB_E_POLICY);
	ck_assert_msg(all_zero(err.reserved, sizeof(err.reserved)),
	              "osb_error.reserved left as the caller had it");
}
END_TEST

START_TEST(test_version_constants_agree)
{
	char want[32];

	snprintf(want, sizeof(want), "%d.%d.%d", OSB_VERSION_MAJOR, OSB_VERSION_MINOR,
	         OSB_VERSION_PATCH);
	ck_assert_str_eq(osb_version(), want);
	ck_assert_str_eq(osb_version(), OSB_ISOLATE_VERSION);
}
END_TEST

START_TEST(test_hash_len_is_the_hash_and_its_nul)
{
	osb_policy *p = must_parse(POLICY);
	char h[OSB_POLICY_HASH_LEN];

	memset(h, 'x', sizeof(h));
	ck_assert_int_eq(osb_policy_hash(p, h), 0);
	ck_assert_uint_eq(strlen(h), OSB_POLICY_HASH_LEN - 1);
	ck_assert_int_eq(strncmp(h, "sha256:", 7), 0);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_explain_refuses_unknown_flags)
{
	osb_policy *p = must_parse(POLICY);
	char *e;

	errno = 0;
	e = osb_policy_explain(p, 1u);
	ck_assert_ptr_null(e);
	ck_assert_int_eq(errno, EINVAL);
	e = osb_policy_explain(p, 1u << 31);
	ck_assert_ptr_null(e);
	e = osb_policy_explain(p, 0);
	ck_assert_ptr_nonnull(e);
	osb_free(e);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_network_refuses_values_outside_the_enum)
{
	osb_policy *p = must_parse(POLICY);
	osb_error err;

	ck_assert_int_eq(osb_policy_set_network(p, (osb_network)2, &err), -OSB_E_USAGE);
	ck_assert_int_eq(osb_policy_set_network(p, (osb_network)-1, &err), -OSB_E_USAGE);
	ck_assert_int_eq(osb_policy_set_network(p, OSB_NETWORK_NONE, &err), 0);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_caps_probe_refuses_unknown_flags)
{
	osb_caps *c = (osb_caps *)&c;
	osb_error err;

	ck_assert_int_eq(osb_caps_probe(&c, 1u << 1, &err), -OSB_E_USAGE);
	ck_assert_ptr_null(c);
	ck_assert_int_eq(err.code, OSB_E_USAGE);
}
END_TEST

START_TEST(test_exit_constants_match_the_cli)
{
	ck_assert_int_eq(OSB_EXIT_TIMEOUT, 124);
	ck_assert_int_eq(OSB_EXIT_SETUP, 125);
	ck_assert_int_eq(OSB_EXIT_NOEXEC, 126);
	ck_assert_int_eq(OSB_EXIT_NOTFOUND, 127);
	ck_assert_int_eq(OSB_EXIT_SIGNAL_BASE, 128);
}
END_TEST

static Suite *abi_suite(void)
{
	Suite *s = suite_create("abi");
	TCase *t = tcase_create("shapes");

	tcase_add_test(t, test_struct_sizes_and_offsets_are_fixed);
	tcase_add_test(t, test_error_reserved_space_is_zeroed);
	tcase_add_test(t, test_version_constants_agree);
	tcase_add_test(t, test_hash_len_is_the_hash_and_its_nul);
	tcase_add_test(t, test_exit_constants_match_the_cli);
	suite_add_tcase(s, t);

	t = tcase_create("arguments");
	tcase_add_test(t, test_explain_refuses_unknown_flags);
	tcase_add_test(t, test_network_refuses_values_outside_the_enum);
	tcase_add_test(t, test_caps_probe_refuses_unknown_flags);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(abi_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}

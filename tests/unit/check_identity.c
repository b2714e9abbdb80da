/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_identity.c — unit tests for lib/identity.c: the exact /etc/passwd
 * and /etc/group text the sandbox sees.
 */
#include "policy.h"
#include "identity.h"

#include <check.h>

#define ROOT_NOLOGIN "root:x:0:0:root:/root:/usr/sbin/nologin\n"
#define NOBODY "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"

static void passwd_expect(const char *user, uint32_t uid, uint32_t gid, const char *home,
                          const char *want)
{
	osb_policy p = { .user_name = (char *)user, .uid = uid, .gid = gid };
	char *out = NULL;

	ck_assert_int_eq(identity_passwd(&p, p.uid, p.gid, home, &out), 0);
	ck_assert_ptr_nonnull(out);
	ck_assert_str_eq(out, want);
	free(out);
}

static void group_expect(const char *user, uint32_t uid, uint32_t gid, const char *want)
{
	osb_policy p = { .user_name = (char *)user, .uid = uid, .gid = gid };
	char *out = NULL;

	ck_assert_int_eq(identity_group(&p, p.uid, p.gid, &out), 0);
	ck_assert_ptr_nonnull(out);
	ck_assert_str_eq(out, want);
	free(out);
}

START_TEST(test_passwd_root_user_nobody_exact)
{
	passwd_expect("sandbox", 1000, 1000, "/home/sandbox",
	              ROOT_NOLOGIN
	              "sandbox:x:1000:1000:sandbox:/home/sandbox:/bin/sh\n"
	              NOBODY);
	passwd_expect("builder", 4242, 100, "/work",
	              ROOT_NOLOGIN
	              "builder:x:4242:100:builder:/work:/bin/sh\n"
	              NOBODY);
}
END_TEST

START_TEST(test_passwd_home_defaults_to_slash)
{
	passwd_expect("sandbox", 1000, 1000, NULL,
	              ROOT_NOLOGIN "sandbox:x:1000:1000:sandbox:/:/bin/sh\n" NOBODY);
}
END_TEST

START_TEST(test_passwd_uid0_only_root_with_shell_and_nobody)
{
	passwd_expect("root", 0, 0, NULL, "root:x:0:0:root:/root:/bin/sh\n" NOBODY);
	passwd_expect("root", 0, 0, "/work", "root:x:0:0:root:/work:/bin/sh\n" NOBODY);
	/* uid 0 is root whatever the policy calls the user */
	passwd_expect("sandbox", 0, 0, NULL, "root:x:0:0:root:/root:/bin/sh\n" NOBODY);
}
END_TEST

START_TEST(test_passwd_user_named_root_has_single_root_line)
{
	passwd_expect("root", 1000, 1000, "/w", "root:x:1000:1000:root:/w:/bin/sh\n" NOBODY);
}
END_TEST

START_TEST(test_passwd_user_named_nobody_has_single_nobody_line)
{
	passwd_expect("nobody", 65534, 65534, NULL,
	              ROOT_NOLOGIN "nobody:x:65534:65534:nobody:/:/bin/sh\n");
	passwd_expect("nobody", 1000, 1000, NULL,
	              ROOT_NOLOGIN "nobody:x:1000:1000:nobody:/:/bin/sh\n");
	/* another name on nobody's uid: the uid still appears once */
	passwd_expect("alice", 65534, 65534, "/h",
	              ROOT_NOLOGIN "alice:x:65534:65534:alice:/h:/bin/sh\n");
}
END_TEST

START_TEST(test_passwd_missing_user_name_is_sandbox)
{
	passwd_expect(NULL, 1000, 1000, NULL,
	              ROOT_NOLOGIN "sandbox:x:1000:1000:sandbox:/:/bin/sh\n" NOBODY);
}
END_TEST

START_TEST(test_passwd_field_injection_refused)
{
	static const char *const bad_names[] = { "a:b", "a\nroot:x:0:0::/:/bin/sh", "" };
	char *out = (char *)"untouched";

	for (size_t i = 0; i < sizeof(bad_names) / sizeof(bad_names[0]); i++) {
		osb_policy p = { .user_name = (char *)bad_names[i], .uid = 1000, .gid = 1000 };

		ck_assert_int_eq(identity_passwd(&p, p.uid, p.gid, NULL, &out), -EINVAL);
		ck_assert_int_eq(identity_group(&p, p.uid, p.gid, &out), -EINVAL);
		ck_assert_str_eq(out, "untouched");
	}
	osb_policy p = { .user_name = (char *)"sandbox", .uid = 1000, .gid = 1000 };
	ck_assert_int_eq(identity_passwd(&p, p.uid, p.gid, "/home/x:/bin/evil", &out), -EINVAL);
	ck_assert_int_eq(identity_passwd(&p, p.uid, p.gid, "/home/x\n", &out), -EINVAL);
	ck_assert_str_eq(out, "untouched");
}
END_TEST

START_TEST(test_group_root_user_nogroup_exact)
{
	group_expect("sandbox", 1000, 1000, "root:x:0:\nsandbox:x:1000:\nnogroup:x:65534:\n");
	group_expect("builder", 4242, 100, "root:x:0:\nbuilder:x:100:\nnogroup:x:65534:\n");
}
END_TEST

START_TEST(test_group_gid0_single_root_line)
{
	group_expect("root", 0, 0, "root:x:0:\nnogroup:x:65534:\n");
	group_expect("sandbox", 1000, 0, "root:x:0:\nnogroup:x:65534:\n");
}
END_TEST

START_TEST(test_group_name_clash_keeps_sandbox_group)
{
	group_expect("nogroup", 1000, 1000, "root:x:0:\nnogroup:x:1000:\n");
	group_expect("sandbox", 1000, 65534, "root:x:0:\nsandbox:x:65534:\n");
	group_expect("root", 1000, 1000, "root:x:1000:\nnogroup:x:65534:\n");
}
END_TEST

static Suite *identity_suite(void)
{
	Suite *s = suite_create("identity");
	TCase *tc = tcase_create("passwd");

	tcase_add_test(tc, test_passwd_root_user_nobody_exact);
	tcase_add_test(tc, test_passwd_home_defaults_to_slash);
	tcase_add_test(tc, test_passwd_uid0_only_root_with_shell_and_nobody);
	tcase_add_test(tc, test_passwd_user_named_root_has_single_root_line);
	tcase_add_test(tc, test_passwd_user_named_nobody_has_single_nobody_line);
	tcase_add_test(tc, test_passwd_missing_user_name_is_sandbox);
	tcase_add_test(tc, test_passwd_field_injection_refused);
	suite_add_tcase(s, tc);

	tc = tcase_create("group");
	tcase_add_test(tc, test_group_root_user_nogroup_exact);
	tcase_add_test(tc, test_group_gid0_single_root_line);
	tcase_add_test(tc, test_group_name_clash_keeps_sandbox_group);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(identity_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

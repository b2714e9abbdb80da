/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_env.c — unit tests for lib/env.c: how the policy's env rules and the
 * caller's environment combine into the sandbox environment.
 */
#include "policy.h"
#include "env.h"

#include <check.h>

#define RULE(str, line) { (char *)(str), { "t.policy", (line), 0 } }
#define N(a) (sizeof(a) / sizeof((a)[0]))

static void expect_env(const strv *got, const char *const *want, size_t n)
{
	ck_assert_ptr_nonnull(got->v);
	for (size_t i = 0; i < n && i < got->n; i++)
		ck_assert_str_eq(got->v[i], want[i]);
	ck_assert_uint_eq(got->n, n);
	ck_assert_ptr_null(got->v[got->n]);
}

static void build_ok(const osb_policy *p, const char *const *envp, const char *ws,
                     const char *const *want, size_t n)
{
	strv out = { 0 };
	osb_error err = { 0 };

	ck_assert_int_eq(env_build(p, envp, ws, &out, &err), 0);
	ck_assert_int_eq(err.code, OSB_OK);
	expect_env(&out, want, n);
	strv_free(&out);
}

START_TEST(test_clear_keeps_only_pass_patterns)
{
	pol_str pass[] = { RULE("LC_*", 3), RULE("LANG", 4) };
	osb_policy p = { .env_base = ENV_CLEAR, .env_pass = pass, .n_env_pass = N(pass) };
	const char *envp[] = { "LANG=C.UTF-8", "LC_TIME=en_DK.UTF-8", "HOME=/root",
	                       "PATH=/usr/bin", "LCX=1", "LC_ALL=C", "XLANG=1", NULL };
	const char *want[] = { "LANG=C.UTF-8", "LC_ALL=C", "LC_TIME=en_DK.UTF-8" };

	build_ok(&p, envp, NULL, want, N(want));
}
END_TEST

START_TEST(test_deny_beats_pass)
{
	pol_str pass[] = { RULE("AWS_*", 3) };
	pol_str deny[] = { RULE("AWS_SECRET*", 5) };
	osb_policy p = { .env_base = ENV_CLEAR, .env_pass = pass, .n_env_pass = N(pass),
	                 .env_deny = deny, .n_env_deny = N(deny) };
	const char *envp[] = { "AWS_SECRET_ACCESS_KEY=k", "AWS_REGION=eu-west-1", NULL };
	const char *want[] = { "AWS_REGION=eu-west-1" };

	build_ok(&p, envp, NULL, want, N(want));
}
END_TEST

START_TEST(test_deny_beats_inherit)
{
	pol_str deny[] = { RULE("*_TOKEN", 5), RULE("SSH_AUTH_SOCK", 6) };
	osb_policy p = { .env_base = ENV_INHERIT, .env_deny = deny, .n_env_deny = N(deny) };
	const char *envp[] = { "GITHUB_TOKEN=ghp_x", "HOME=/home/u", "SSH_AUTH_SOCK=/run/a",
	                       "TOKEN_KIND=y", "NPM_TOKEN=n", NULL };
	const char *want[] = { "HOME=/home/u", "TOKEN_KIND=y" };

	build_ok(&p, envp, NULL, want, N(want));
}
END_TEST

/* Deny patterns ignore case: CI systems and tools spell secrets both ways
 * (npm_config__authToken, github_token). */
START_TEST(test_deny_ignores_case)
{
	pol_str deny[] = { RULE("*_TOKEN", 5), RULE("*TOKEN", 6), RULE("CI_JOB_JWT", 7) };
	osb_policy p = { .env_base = ENV_INHERIT, .env_deny = deny, .n_env_deny = N(deny) };
	const char *envp[] = { "github_token=g", "Gitlab_Token=l", "npm_config__authToken=n",
	                       "ci_job_jwt=j", "HOME=/home/u", "tokenizers_parallelism=1", NULL };
	const char *want[] = { "HOME=/home/u", "tokenizers_parallelism=1" };

	build_ok(&p, envp, NULL, want, N(want));
}
END_TEST

START_TEST(test_token_set_outside_absent_under_clear)
{
	pol_str pass[] = { RULE("PATH", 3), RULE("HOME", 4), RULE("LC_*", 5) };
	osb_policy p = { .env_base = ENV_CLEAR, .env_pass = pass, .n_env_pass = N(pass) };
	const char *envp[] = { "GITHUB_TOKEN=ghp_secret", "PATH=/usr/bin:/bin", "HOME=/h", NULL };
	const char *want[] = { "HOME=/h", "PATH=/usr/bin:/bin" };

	build_ok(&p, envp, NULL, want, N(want));
}
END_TEST

START_TEST(test_set_beats_deny_and_caller_value)
{
	pol_str deny[] = { RULE("PATH", 5) };
	pol_str set[] = { RULE("PATH=/usr/bin:/bin", 7) };
	osb_policy p = { .env_base = ENV_INHERIT, .env_deny = deny, .n_env_deny = N(deny),
	                 .env_set = set, .n_env_set = N(set) };
	const char *envp[] = { "PATH=/tmp/evil:/usr/bin", NULL };
	const char *want[] = { "PATH=/usr/bin:/bin" };

	build_ok(&p, envp, NULL, want, N(want));
}
END_TEST

START_TEST(test_set_rules_apply_in_order_last_wins)
{
	pol_str set[] = { RULE("A=1", 7), RULE("B=", 8), RULE("A=2=x", 9) };
	osb_policy p = { .env_base = ENV_CLEAR, .env_set = set, .n_env_set = N(set) };
	const char *want[] = { "A=2=x", "B=" };

	build_ok(&p, NULL, NULL, want, N(want));
}
END_TEST

START_TEST(test_workspace_token_expanded)
{
	pol_str set[] = { RULE("HOME=${WORKSPACE}", 7),
	                  RULE("PYTHONPATH=${WORKSPACE}/lib:${WORKSPACE}/src", 8),
	                  RULE("LIT=$WORKSPACE ${WORKSPACE ${workspace}", 9) };
	osb_policy p = { .env_base = ENV_CLEAR, .env_set = set, .n_env_set = N(set) };
	const char *want[] = { "HOME=/work/ws", "LIT=$WORKSPACE ${WORKSPACE ${workspace}",
	                       "PYTHONPATH=/work/ws/lib:/work/ws/src" };

	build_ok(&p, NULL, "/work/ws", want, N(want));
}
END_TEST

START_TEST(test_workspace_token_without_workspace_is_policy_error)
{
	pol_str set[] = { RULE("LANG=C", 11), { (char *)"HOME=${WORKSPACE}", { "strict.policy", 12, 0 } } };
	osb_policy p = { .env_base = ENV_CLEAR, .env_set = set, .n_env_set = N(set) };
	strv out = { 0 };
	osb_error err = { 0 };

	ck_assert_int_eq(env_build(&p, NULL, NULL, &out, &err), -OSB_E_POLICY);
	ck_assert_int_eq(err.code, OSB_E_POLICY);
	ck_assert_int_eq(err.sys_errno, 0);
	ck_assert_str_eq(err.stage, "env");
	ck_assert_str_eq(err.message, "strict.policy:12: env set HOME uses ${WORKSPACE} but "
	                 "this run has no workspace; add a workspace rule or remove ${WORKSPACE}");
	ck_assert_ptr_null(out.v);
	ck_assert_uint_eq(out.n, 0);
}
END_TEST

START_TEST(test_workspace_error_names_api_origin_without_line)
{
	pol_str set[] = { { (char *)"W=${WORKSPACE}/x", { "api", 0, 0 } } };
	osb_policy p = { .env_base = ENV_CLEAR, .env_set = set, .n_env_set = N(set) };
	strv out = { 0 };
	osb_error err = { 0 };

	ck_assert_int_eq(env_build(&p, NULL, NULL, &out, &err), -OSB_E_POLICY);
	ck_assert_str_eq(err.message, "api: env set W uses ${WORKSPACE} but this run has no "
	                 "workspace; add a workspace rule or remove ${WORKSPACE}");
}
END_TEST

START_TEST(test_malformed_set_rule_is_policy_error)
{
	pol_str set[] = { RULE("BAD NAME=1", 4) };
	osb_policy p = { .env_base = ENV_CLEAR, .env_set = set, .n_env_set = N(set) };
	strv out = { 0 };
	osb_error err = { 0 };

	ck_assert_int_eq(env_build(&p, NULL, "/w", &out, &err), -OSB_E_POLICY);
	ck_assert_str_eq(err.stage, "env");
	ck_assert_str_eq(err.message, "t.policy:4: env set \"BAD NAME=1\" is not NAME=VALUE "
	                 "with a name of letters, digits and '_'; fix the rule");
	ck_assert_ptr_null(out.v);
}
END_TEST

START_TEST(test_malformed_caller_entries_dropped)
{
	osb_policy p = { .env_base = ENV_INHERIT };
	const char *envp[] = { "NOEQUALS", "=value", "BAD-NAME=1", "BAD NAME=2", "A.B=3",
	                       "\xc3\xa9=4", "Ok_1=fine", "MULTI=line1\nline2", "EMPTY=",
	                       "X\n=5", "", NULL };
	const char *want[] = { "EMPTY=", "MULTI=line1\nline2", "Ok_1=fine" };

	build_ok(&p, envp, NULL, want, N(want));
}
END_TEST

START_TEST(test_malformed_entry_not_passed_by_star_pattern)
{
	pol_str pass[] = { RULE("*", 3) };
	osb_policy p = { .env_base = ENV_CLEAR, .env_pass = pass, .n_env_pass = N(pass) };
	const char *envp[] = { "BASH_FUNC_f%%=() { id; }", "=x", "GOOD=1", NULL };
	const char *want[] = { "GOOD=1" };

	build_ok(&p, envp, NULL, want, N(want));
}
END_TEST

START_TEST(test_duplicates_last_wins_sorted_by_name)
{
	osb_policy p = { .env_base = ENV_INHERIT };
	const char *envp[] = { "B=1", "A0=x", "A=1", "B=2", "_Z=z", "a=lower", NULL };
	/* By name "A" < "A0", although "A0=x" < "A=1" as whole strings. */
	const char *want[] = { "A=1", "A0=x", "B=2", "_Z=z", "a=lower" };

	build_ok(&p, envp, NULL, want, N(want));
}
END_TEST

START_TEST(test_empty_environment_is_terminated_vector)
{
	osb_policy p = { .env_base = ENV_CLEAR };
	const char *envp[] = { "HOME=/root", NULL };

	build_ok(&p, envp, NULL, NULL, 0);
	build_ok(&p, NULL, NULL, NULL, 0);
}
END_TEST

static Suite *env_suite(void)
{
	Suite *s = suite_create("env");
	TCase *tc = tcase_create("rules");

	tcase_add_test(tc, test_clear_keeps_only_pass_patterns);
	tcase_add_test(tc, test_deny_beats_pass);
	tcase_add_test(tc, test_deny_beats_inherit);
	tcase_add_test(tc, test_deny_ignores_case);
	tcase_add_test(tc, test_token_set_outside_absent_under_clear);
	tcase_add_test(tc, test_set_beats_deny_and_caller_value);
	tcase_add_test(tc, test_set_rules_apply_in_order_last_wins);
	tcase_add_test(tc, test_workspace_token_expanded);
	tcase_add_test(tc, test_workspace_token_without_workspace_is_policy_error);
	tcase_add_test(tc, test_workspace_error_names_api_origin_without_line);
	tcase_add_test(tc, test_malformed_set_rule_is_policy_error);
	suite_add_tcase(s, tc);

	tc = tcase_create("caller");
	tcase_add_test(tc, test_malformed_caller_entries_dropped);
	tcase_add_test(tc, test_malformed_entry_not_passed_by_star_pattern);
	tcase_add_test(tc, test_duplicates_last_wins_sorted_by_name);
	tcase_add_test(tc, test_empty_environment_is_terminated_vector);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(env_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

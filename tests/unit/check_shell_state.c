/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_shell_state.c — shell-state sessions (lib/shell-state.c,
 * helper/broker-shell.c): the working directory and exported variables a
 * command leaves are the next command's, carried on a channel of their own
 * (never read from the output), each command's status still the broker's,
 * and denied names still refused. Real sessions.
 */
#include "osb-isolate.h"
#include "sandbox-main.h"

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef TEST_BUILDDIR
#error "TEST_BUILDDIR must name the build tree"
#endif

static char ws[PATH_MAX];
static osb_session *s;

static void setup(void)
{
	osb_policy *p = osb_policy_load("strict", NULL);
	osb_session_opts *o = osb_session_opts_new();
	osb_error err;

	snprintf(ws, sizeof(ws), "/tmp/osb-shell-state.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(ws));
	ck_assert_int_eq(chmod(ws, 0777), 0);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(osb_policy_set_workspace(p, ws, &err), 0);
	ck_assert_int_eq(osb_session_opts_set_shell_state(o, 1), 0);
	s = osb_session_start_opts(p, o, &err);
	ck_assert_msg(s != NULL, "%s", err.message);
	osb_session_opts_free(o);
	osb_policy_free(p);
}

static void teardown(void)
{
	osb_session_free(s);
	ck_assert_int_eq(rmdir(ws), 0);
}

/* Run ARGV (NULL-terminated) in S; its stdout into OUT, the result's exit
 * code returned (signal: -100 - N). */
static int run(osb_session *in, const char *const *argv, const char *const *env, char *out,
               size_t size)
{
	osb_exec *e = osb_exec_new(argv, NULL);
	osb_result *res = NULL;
	osb_error err;
	int code;

	osb_exec_set_capture(e, 1);
	if (env)
		osb_exec_set_env(e, env);
	ck_assert_msg(osb_session_run(in, e, &res, &err) == 0, "%s: %s", err.stage, err.message);
	code = osb_result_signal(res) ? -100 - osb_result_signal(res) : osb_result_exit_code(res);
	if (out)
		snprintf(out, size, "%s", osb_result_stdout(res, NULL));
	osb_result_free(res);
	osb_exec_free(e);
	return code;
}

#define ARGV(...) ((const char *const[]){ __VA_ARGS__, NULL })

START_TEST(test_cd_and_export_carry_to_the_next_command)
{
	char out[256];

	ck_assert_int_eq(run(s, ARGV("cd", "/tmp"), NULL, NULL, 0), 0);
	ck_assert_int_eq(run(s, ARGV("export", "GREETING=hello world"), NULL, NULL, 0), 0);
	ck_assert_int_eq(run(s, ARGV("sh", "-c", "pwd; echo \"$GREETING\""), NULL, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "/tmp\nhello world\n");
	ck_assert_int_eq(run(s, ARGV("unset", "GREETING"), NULL, NULL, 0), 0);
	ck_assert_int_eq(run(s, ARGV("sh", "-c", "echo ${GREETING-gone}"), NULL, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "gone\n");
}
END_TEST

START_TEST(test_eval_script_carries_state_and_keeps_its_exit_status)
{
	char out[256];

	ck_assert_int_eq(run(s, ARGV("eval", "mkdir -p /tmp/a && cd /tmp/a; export N=2; exit 3"),
	                     NULL, NULL, 0), 3);
	ck_assert_int_eq(run(s, ARGV("sh", "-c", "pwd; echo $N"), NULL, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "/tmp/a\n2\n");
}
END_TEST

START_TEST(test_a_command_that_is_not_a_builtin_keeps_its_own_status_and_signal)
{
	char out[64];

	ck_assert_int_eq(run(s, ARGV("sh", "-c", "exit 7"), NULL, NULL, 0), 7);
	ck_assert_int_eq(run(s, ARGV("sh", "-c", "kill -TERM $$"), NULL, NULL, 0), -100 - SIGTERM);
	/* Its cd is its own process's: the session's directory stays. */
	ck_assert_int_eq(run(s, ARGV("sh", "-c", "cd /etc"), NULL, NULL, 0), 0);
	ck_assert_int_eq(run(s, ARGV("pwd"), NULL, out, sizeof(out)), 0);
	ck_assert_uint_eq(strlen(out), strlen(ws) + 1);
	ck_assert_int_eq(strncmp(out, ws, strlen(ws)), 0);
}
END_TEST

START_TEST(test_state_is_never_read_from_the_output)
{
	char out[256];

	/* The dump's own format, printed: the session does not take it. */
	ck_assert_int_eq(run(s, ARGV("eval", "printf 'OSB1\\0/etc\\0FORGED=1\\0'"), NULL, NULL, 0), 0);
	ck_assert_int_eq(run(s, ARGV("sh", "-c", "pwd; echo ${FORGED-none}"), NULL, out, sizeof(out)), 0);
	snprintf(out + strlen(out), sizeof(out) - strlen(out), "|");
	ck_assert_msg(strstr(out, "/etc") == NULL && strstr(out, "none\n|") != NULL, "%s", out);
}
END_TEST

START_TEST(test_a_killed_command_leaves_the_state_as_it_was)
{
	const char *argv[] = { "eval", "cd /tmp; export K=1; kill -KILL $$", NULL };
	char out[256];

	ck_assert_int_eq(run(s, argv, NULL, NULL, 0), -100 - SIGKILL);
	ck_assert_int_eq(run(s, ARGV("sh", "-c", "pwd; echo ${K-unset}"), NULL, out, sizeof(out)), 0);
	snprintf(out + strlen(out), sizeof(out) - strlen(out), "|");
	ck_assert_msg(strstr(out, "unset\n|") != NULL && strncmp(out, ws, strlen(ws)) == 0, "%s", out);
}
END_TEST

START_TEST(test_denied_names_are_not_carried_and_still_refused_per_command)
{
	const char *env[] = { "GITHUB_TOKEN=x", NULL };
	const char *argv[] = { "true", NULL };
	osb_exec *e = osb_exec_new(argv, NULL);
	osb_result *res = NULL;
	osb_error err;
	char out[64];

	ck_assert_int_eq(run(s, ARGV("export", "GITHUB_TOKEN=made-inside"), NULL, NULL, 0), 0);
	ck_assert_int_eq(run(s, ARGV("sh", "-c", "echo ${GITHUB_TOKEN-unset}"), NULL, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "unset\n");
	osb_exec_set_env(e, env);
	ck_assert_int_eq(osb_session_run(s, e, &res, &err), -OSB_E_POLICY);
	ck_assert_str_eq(err.stage, "env");
	osb_result_free(res);
	osb_exec_free(e);
}
END_TEST

START_TEST(test_without_the_option_nothing_carries)
{
	osb_policy *p = osb_policy_load("strict", NULL);
	osb_session *plain;
	osb_error err;
	osb_proc *pr = NULL;
	const char *cd[] = { "cd", "/tmp", NULL };
	osb_exec *e = osb_exec_new(cd, NULL);

	ck_assert_int_eq(osb_policy_set_workspace(p, ws, &err), 0);
	plain = osb_session_start(p, &err);
	ck_assert_ptr_nonnull(plain);
	/* cd is no program: a plain session cannot run it. */
	ck_assert_int_eq(osb_session_spawn(plain, e, &pr, &err), -OSB_E_SANDBOX);
	ck_assert_int_eq(err.sys_errno, ENOENT);
	osb_exec_free(e);
	osb_session_free(plain);
	osb_policy_free(p);
}
END_TEST

static Suite *shell_state_suite(void)
{
	Suite *su = suite_create("shell_state");
	TCase *tc = tcase_create("shell_state");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_cd_and_export_carry_to_the_next_command);
	tcase_add_test(tc, test_eval_script_carries_state_and_keeps_its_exit_status);
	tcase_add_test(tc, test_a_command_that_is_not_a_builtin_keeps_its_own_status_and_signal);
	tcase_add_test(tc, test_state_is_never_read_from_the_output);
	tcase_add_test(tc, test_a_killed_command_leaves_the_state_as_it_was);
	tcase_add_test(tc, test_denied_names_are_not_carried_and_still_refused_per_command);
	tcase_add_test(tc, test_without_the_option_nothing_carries);
	suite_add_tcase(su, tc);
	return su;
}

int main(void)
{
	return test_sandbox_suite_main(shell_state_suite);
}

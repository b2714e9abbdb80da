/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_output.c — the library's side of a command's output (lib/run.c,
 * lib/session.c): a copy to the caller's fd that fails reaches the command
 * as the host would make it (a broken pipe as SIGPIPE at its next write)
 * or the result as an error (stage "output"), never a silent loss; and a
 * stream handed over with osb_exec_set_output_direct is the command's own
 * fd, whose errors it meets itself. Real sandboxes, one-shot and session.
 */
#include "osb-isolate.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
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
static osb_policy *policy;

static void setup(void)
{
	osb_error err;

	snprintf(ws, sizeof(ws), "/tmp/osb-output.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(ws));
	ck_assert_int_eq(chmod(ws, 0777), 0);
	policy = osb_policy_load("strict", &err);
	ck_assert_msg(policy != NULL, "policy: %s", err.message);
	ck_assert_int_eq(osb_policy_set_workspace(policy, ws, &err), 0);
	/* A runaway command must fail the test, not hang it. */
	ck_assert_int_eq(osb_policy_set_wall_ms(policy, 20000, &err), 0);
}

static void teardown(void)
{
	osb_policy_free(policy);
	ck_assert_int_eq(rmdir(ws), 0);
}

static osb_exec *exec_sh(const char *script)
{
	const char *argv[] = { "sh", "-c", script, NULL };
	osb_error err;
	osb_exec *e = osb_exec_new(argv, &err);

	ck_assert_ptr_nonnull(e);
	return e;
}

/* The write end of a pipe nobody reads any more. */
static int broken_pipe(void)
{
	int p[2];

	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	close(p[0]);
	return p[1];
}

static int open_full(void)
{
	int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	return fd;
}

/* osb_run or, with SESSION, osb_session_run of E; the result. */
static osb_result *run(const osb_exec *e, osb_session *session, int *ret)
{
	osb_result *res = NULL;
	osb_error err;

	*ret = session ? osb_session_run(session, e, &res, &err) : osb_run(policy, e, &res, &err);
	ck_assert_ptr_nonnull(res);
	return res;
}

static osb_session *maybe_session(int i)
{
	osb_error err;
	osb_session *s;

	if (i == 0)
		return NULL;
	s = osb_session_start(policy, &err);
	ck_assert_msg(s != NULL, "session start: %s: %s", err.stage, err.message);
	return s;
}

START_TEST(test_copy_to_a_broken_pipe_ends_the_command_with_sigpipe)
{
	osb_session *s = maybe_session(_i);
	const char *argv[] = { "yes", NULL };
	osb_error err;
	osb_exec *e = osb_exec_new(argv, &err);
	int fd = broken_pipe(), r;
	osb_result *res;

	osb_exec_set_stdout_fd(e, fd);
	res = run(e, s, &r);
	ck_assert_int_eq(r, 0);
	ck_assert_ptr_null(osb_result_error(res));
	ck_assert_int_eq(osb_result_timed_out(res), 0);
	ck_assert_int_eq(osb_result_signal(res), SIGPIPE);
	ck_assert_int_eq(osb_result_cli_status(res), 128 + SIGPIPE);
	osb_result_free(res);
	osb_exec_free(e);
	close(fd);
	osb_session_free(s);
}
END_TEST

START_TEST(test_copy_to_a_full_device_is_an_output_error)
{
	osb_session *s = maybe_session(_i);
	osb_exec *e = exec_sh("echo hi; echo there >&2");
	int fd = open_full(), r;
	osb_result *res;
	const osb_error *er;

	osb_exec_set_stdout_fd(e, fd);
	res = run(e, s, &r);
	er = osb_result_error(res);
	ck_assert_int_eq(r, -OSB_E_IO);
	ck_assert_ptr_nonnull(er);
	ck_assert_str_eq(er->stage, "output");
	ck_assert_int_eq(er->sys_errno, ENOSPC);
	ck_assert_str_eq(er->message, "writing the command's stdout failed: No space left on device "
	                              "(the command was cut off from it)");
	ck_assert_int_eq(osb_result_cli_status(res), 125);
	ck_assert_int_eq(osb_result_ok(res), 0);
	osb_result_free(res);
	osb_exec_free(e);
	close(fd);
	osb_session_free(s);
}
END_TEST

START_TEST(test_direct_full_device_fails_the_commands_own_write)
{
	osb_session *s = maybe_session(_i);
	osb_exec *e = exec_sh("/bin/echo hi 2>/dev/null; echo \"echo=$?\" >&2");
	int fd = open_full(), p[2], r;
	osb_result *res;
	char buf[64] = "";
	ssize_t n;

	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	osb_exec_set_stdout_fd(e, fd);
	osb_exec_set_stderr_fd(e, p[1]);
	ck_assert_int_eq(osb_exec_set_output_direct(e, 1, 1), 0);
	res = run(e, s, &r);
	close(p[1]);
	n = read(p[0], buf, sizeof(buf) - 1);
	ck_assert_int_ge(n, 0);
	buf[n] = '\0';
	ck_assert_int_eq(r, 0);
	ck_assert_str_eq(buf, "echo=1\n");
	ck_assert_int_eq(osb_result_exit_code(res), 0);
	ck_assert_uint_eq(osb_result_stdout_bytes(res), 0);
	osb_result_free(res);
	osb_exec_free(e);
	close(fd);
	close(p[0]);
	osb_session_free(s);
}
END_TEST

START_TEST(test_direct_without_an_fd_is_a_usage_error)
{
	osb_session *s = maybe_session(_i);
	osb_exec *e = exec_sh("true");
	osb_result *res;
	int r;

	ck_assert_int_eq(osb_exec_set_output_direct(e, 2, 1), 0);
	res = run(e, s, &r);
	ck_assert_int_eq(r, -OSB_E_USAGE);
	ck_assert_str_eq(osb_result_error(res)->message, "osb_exec_set_output_direct needs the fd of "
	                 "osb_exec_set_stdout_fd/_stderr_fd to hand over");
	osb_result_free(res);
	osb_exec_free(e);
	osb_session_free(s);
}
END_TEST

START_TEST(test_set_output_direct_refuses_other_streams_and_null)
{
	osb_exec *e = exec_sh("true");

	ck_assert_int_eq(osb_exec_set_output_direct(e, 0, 1), -OSB_E_USAGE);
	ck_assert_int_eq(osb_exec_set_output_direct(e, 3, 1), -OSB_E_USAGE);
	ck_assert_int_eq(osb_exec_set_output_direct(NULL, 1, 1), -OSB_E_USAGE);
	osb_exec_free(e);
}
END_TEST

static Suite *output_suite(void)
{
	Suite *su = suite_create("output");
	TCase *tc = tcase_create("output");
	TCase *api = tcase_create("output_api");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_set_tags(tc, "sandbox");
	/* _i: 0 one-shot (osb_run), 1 session (osb_session_run). */
	tcase_add_loop_test(tc, test_copy_to_a_broken_pipe_ends_the_command_with_sigpipe, 0, 2);
	tcase_add_loop_test(tc, test_copy_to_a_full_device_is_an_output_error, 0, 2);
	tcase_add_loop_test(tc, test_direct_full_device_fails_the_commands_own_write, 0, 2);
	tcase_add_loop_test(tc, test_direct_without_an_fd_is_a_usage_error, 0, 2);
	tcase_add_test(api, test_set_output_direct_refuses_other_streams_and_null);
	suite_add_tcase(su, tc);
	suite_add_tcase(su, api);
	return su;
}

int main(void)
{
	SRunner *sr;
	int failed;

	/* The library installs no handlers: a caller that copies to a pipe
	 * ignores SIGPIPE, as the CLI does (libosb-isolate(3)). */
	signal(SIGPIPE, SIG_IGN);
	setenv("OSB_ISOLATE_INIT", TEST_BUILDDIR "/helper/osb-isolate-init", 1);
	if (osb_set_program(OSB_PROGRAM_INIT, getenv("OSB_ISOLATE_INIT"), "OSB_ISOLATE_INIT",
	                    &(osb_error){ 0 }) < 0)
		return 1;
	setenv("OSB_ISOLATE_POLICY_DIR", TEST_SRCDIR "/policy", 1);
	sr = srunner_create(output_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_execd_api.c — the two calls a Go daemon (examples/execd-go) needed
 * from the library: osb_proc_take_fd, which moves a command's stdio fd out
 * of its proc so that a runtime object can own it (lib/session.c), and
 * osb_session_opts_apply_json, which takes a request's idle timeout as the
 * library itself reads it (lib/request.c). Real sessions, real fds. And
 * what a daemon's workspace may be: the host paths and the configured roots
 * the C API hands to a run (lib/hostpath.c, lib/config.c).
 */
#include "osb-isolate.h"
#include "sandbox-main.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef TEST_BUILDDIR
#error "TEST_BUILDDIR must name the build tree"
#endif

static char ws[PATH_MAX];

static void setup_ws(void)
{
	snprintf(ws, sizeof(ws), "/tmp/osb-execd-api.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(ws));
	ck_assert_int_eq(chmod(ws, 0777), 0);
}

static void teardown_ws(void)
{
	ck_assert_int_eq(rmdir(ws), 0);
}

static osb_session *start_opts(const osb_session_opts *o)
{
	osb_error err;
	osb_policy *p = osb_policy_load("strict", &err);
	osb_session *s;

	ck_assert_msg(p != NULL, "policy: %s", err.message);
	ck_assert_int_eq(osb_policy_set_workspace(p, ws, &err), 0);
	s = osb_session_start_opts(p, o, &err);
	ck_assert_msg(s != NULL, "session start: %s: %s", err.stage, err.message);
	osb_policy_free(p);
	return s;
}

static osb_proc *spawn_sh(osb_session *s, const char *script, int stdin_pipe)
{
	const char *argv[] = { "sh", "-c", script, NULL };
	osb_error err;
	osb_exec *e = osb_exec_new(argv, &err);
	osb_proc *pr = NULL;

	ck_assert_ptr_nonnull(e);
	osb_exec_set_stdin_pipe(e, stdin_pipe);
	ck_assert_msg(osb_session_spawn(s, e, &pr, &err) == 0, "spawn: %s", err.message);
	osb_exec_free(e);
	return pr;
}

/* Everything FD yields until EOF (at most SIZE-1 bytes), NUL-terminated. */
static void read_all(int fd, char *buf, size_t size)
{
	size_t n = 0;
	ssize_t r;

	while (n < size - 1 && (r = read(fd, buf + n, size - 1 - n)) != 0) {
		ck_assert_msg(r > 0 || errno == EINTR, "read: %s", strerror(errno));
		if (r > 0)
			n += (size_t)r;
	}
	buf[n] = '\0';
}

static int is_open_cloexec(int fd)
{
	int fl = fcntl(fd, F_GETFD);

	return fl >= 0 && (fl & FD_CLOEXEC);
}

START_TEST(test_take_fd_moves_stdout_and_stderr_to_the_caller_past_proc_free)
{
	osb_session *s = start_opts(NULL);
	osb_proc *pr = spawn_sh(s, "echo to-out; echo to-err >&2", 0);
	osb_status st;
	char buf[64];
	int out, err;

	out = osb_proc_take_fd(pr, 1);
	err = osb_proc_take_fd(pr, 2);
	ck_assert_int_ge(out, 0);
	ck_assert_int_ge(err, 0);
	/* The proc no longer knows them: getters and a second take say so. */
	ck_assert_int_eq(osb_proc_stdout(pr), -1);
	ck_assert_int_eq(osb_proc_stderr(pr), -1);
	ck_assert_int_eq(osb_proc_take_fd(pr, 1), -OSB_E_USAGE);
	ck_assert_int_eq(osb_proc_take_fd(pr, 2), -OSB_E_USAGE);
	ck_assert_int_eq(osb_proc_wait(pr, -1, &st), 0);
	ck_assert_int_eq(st.exit_code, 0);
	osb_proc_free(pr);
	/* Freeing the proc closed neither: they are the caller's now. */
	ck_assert(is_open_cloexec(out));
	ck_assert(is_open_cloexec(err));
	ck_assert_int_eq(fcntl(out, F_GETFL) & O_NONBLOCK, 0);
	read_all(out, buf, sizeof(buf));
	ck_assert_str_eq(buf, "to-out\n");
	read_all(err, buf, sizeof(buf));
	ck_assert_str_eq(buf, "to-err\n");
	ck_assert_int_eq(close(out), 0);
	ck_assert_int_eq(close(err), 0);
	osb_session_free(s);
}
END_TEST

START_TEST(test_take_fd_of_stdin_pipe_feeds_the_command_and_close_stdin_is_then_a_no_op)
{
	osb_session *s = start_opts(NULL);
	osb_proc *pr = spawn_sh(s, "cat", 1);
	osb_status st;
	char buf[64];
	int in = osb_proc_take_fd(pr, 0);

	ck_assert_int_ge(in, 0);
	ck_assert(is_open_cloexec(in));
	ck_assert_int_eq(osb_proc_stdin(pr), -1);
	ck_assert_int_eq(osb_proc_close_stdin(pr), 0);   /* not ours to close any more */
	ck_assert(is_open_cloexec(in));
	ck_assert_int_eq(write(in, "fed\n", 4), 4);
	ck_assert_int_eq(close(in), 0);                   /* EOF for cat */
	read_all(osb_proc_stdout(pr), buf, sizeof(buf));
	ck_assert_str_eq(buf, "fed\n");
	ck_assert_int_eq(osb_proc_wait(pr, 5000, &st), 0);
	ck_assert_int_eq(st.exit_code, 0);
	osb_proc_free(pr);
	osb_session_free(s);
}
END_TEST

START_TEST(test_take_fd_refuses_a_bad_index_a_missing_pipe_and_null)
{
	osb_session *s = start_opts(NULL);
	osb_proc *pr = spawn_sh(s, "true", 0);

	ck_assert_int_eq(osb_proc_take_fd(pr, 3), -OSB_E_USAGE);
	ck_assert_int_eq(osb_proc_take_fd(pr, -1), -OSB_E_USAGE);
	/* stdin is /dev/null, not a pipe: there is nothing to take. */
	ck_assert_int_eq(osb_proc_take_fd(pr, 0), -OSB_E_USAGE);
	ck_assert_int_eq(osb_proc_take_fd(NULL, 1), -OSB_E_USAGE);
	/* The refusals took nothing: stdout is still the proc's. */
	ck_assert_int_ge(osb_proc_stdout(pr), 0);
	osb_proc_free(pr);
	osb_session_free(s);
}
END_TEST

START_TEST(test_session_opts_apply_json_idle_timeout_ends_the_session)
{
	osb_session_opts *o = osb_session_opts_new();
	osb_session *s;
	osb_proc *pr = NULL;
	osb_error err;
	const char *argv[] = { "true", NULL };
	osb_exec *e = osb_exec_new(argv, &err);
	struct pollfd p;

	ck_assert_int_eq(osb_session_opts_apply_json(o,
		"{\"profile\": \"strict\", \"network\": \"none\", \"idle_timeout\": \"300ms\"}", &err), 0);
	s = start_opts(o);
	p = (struct pollfd){ .fd = osb_session_fd(s), .events = POLLIN };
	ck_assert_int_eq(poll(&p, 1, 10000), 1);
	ck_assert_int_eq(osb_session_spawn(s, e, &pr, &err), -OSB_E_SANDBOX);
	ck_assert_str_eq(err.message, "the session ended after its idle timeout; start a new one");
	osb_exec_free(e);
	osb_session_free(s);
	osb_session_opts_free(o);
}
END_TEST

START_TEST(test_session_opts_apply_json_refuses_as_policy_apply_json_does_and_changes_nothing)
{
	static const char *const bad[][2] = {
		{ "{\"idle_timeout\": \"5 minutes\"}",
		  "\"idle_timeout\": invalid duration \"5 minutes\" (a whole number with a unit: ms, s, m or h)" },
		{ "{\"idle_timeout\": \"0s\"}", "\"idle_timeout\" must be greater than zero" },
		{ "{\"idle_timeout\": 300}", "\"idle_timeout\" must be a string, not a number" },
		{ "{\"idle_timout\": \"1s\"}", "unknown key \"idle_timout\" (did you mean \"idle_timeout\"?)" },
		{ "{\"idle_timeout\": \"1s\", \"network\": \"hots\"}",
		  "\"network\": unknown value \"hots\" (did you mean \"host\"?)" },
		{ "{\"idle_timeout\": \"1s\"} x", "the request is not valid JSON: unexpected character (at byte 23)" },
		{ "{\"idle_timeout\": \"1s\", \"idle_timeout\": \"2s\"}",
		  "the request repeats the key \"idle_timeout\" (at byte 23)" },
		{ "null", "the request must be a JSON object, not null" },
		{ "{\"env\": {\"set\": {\"A\": \"\\udfff\"}}, \"idle_timeout\": \"1s\"}",
		  "the request is not valid JSON: a lone surrogate \\udfff (at byte 23)" },
	};
	osb_session_opts *o = osb_session_opts_new();
	osb_policy *p = osb_policy_load("strict", NULL);
	osb_session *s;
	osb_proc *pr = NULL;
	osb_error err, perr;

	ck_assert_ptr_nonnull(p);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		ck_assert_int_eq(osb_session_opts_apply_json(o, bad[i][0], &err), -OSB_E_POLICY);
		ck_assert_int_eq(err.code, OSB_E_POLICY);
		ck_assert_str_eq(err.stage, "policy");
		ck_assert_str_eq(err.message, bad[i][1]);
		/* The policy's half of the same request fails the same way. */
		ck_assert_int_eq(osb_policy_apply_json(p, bad[i][0], &perr), -OSB_E_POLICY);
		ck_assert_str_eq(perr.message, err.message);
	}
	ck_assert_int_eq(osb_session_opts_apply_json(NULL, "{}", &err), -OSB_E_USAGE);
	ck_assert_int_eq(osb_session_opts_apply_json(o, NULL, &err), -OSB_E_USAGE);
	ck_assert_str_eq(err.message, "session_opts_apply_json: expected options and a JSON request");
	/* None of the refused requests set an idle timeout: the session lives
	 * past every duration they named. */
	s = start_opts(o);
	usleep(1200 * 1000);
	pr = spawn_sh(s, "true", 0);
	ck_assert_ptr_nonnull(pr);
	osb_proc_free(pr);
	osb_session_free(s);
	osb_policy_free(p);
	osb_session_opts_free(o);
}
END_TEST

/* Run "true" under strict with workspace DIR (and CFG's roots, if any);
 * return osb_run's code and the result's error in *ERR. */
static int run_in(const char *dir, const osb_config *cfg, osb_error *err)
{
	const char *argv[] = { "true", NULL };
	osb_policy *p = osb_policy_load("strict", err);
	osb_exec *e = osb_exec_new(argv, err);
	osb_result *res = NULL;
	int r;

	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(osb_policy_set_config(p, cfg, err), 0);
	ck_assert_int_eq(osb_policy_set_workspace(p, dir, err), 0);
	r = osb_run(p, e, &res, err);
	if (r < 0 && res && osb_result_error(res))
		*err = *osb_result_error(res);
	osb_result_free(res);
	osb_exec_free(e);
	osb_policy_free(p);
	return r;
}

/* Finding: /etc/cron.d and /proc/sys/kernel were accepted as workspaces,
 * which the C API hands to the plan as they are. */
START_TEST(test_run_refuses_system_workspaces_and_one_outside_the_roots)
{
	char want[PATH_MAX + 256];
	osb_config *cfg = osb_config_new();
	osb_error err;

	ck_assert_ptr_nonnull(cfg);
	ck_assert_int_eq(run_in("/etc/default", NULL, &err), -OSB_E_PATH);
	ck_assert_str_eq(err.stage, "workspace");
	ck_assert_str_eq(err.message, "/etc/default: inside /etc (host configuration: cron, sudoers, "
	                 "PAM, profile scripts run as root); choose a project directory");
	ck_assert_int_eq(run_in("/proc/sys/kernel", NULL, &err), -OSB_E_PATH);
	ck_assert_str_eq(err.message, "/proc/sys/kernel: inside /proc (the host's process and kernel "
	                 "interfaces); choose a project directory");
	ck_assert_int_eq(osb_config_add_workspace_root(cfg, "/srv/execd-workspaces", &err), 0);
	ck_assert_int_eq(run_in(ws, cfg, &err), -OSB_E_PATH);
	snprintf(want, sizeof(want), "%s: not beneath a configured workspace root (workspace-root in "
	         "api: /srv/execd-workspaces)", ws);
	ck_assert_str_eq(err.message, want);
	ck_assert_int_eq(osb_config_add_workspace_root(cfg, "/tmp", &err), 0);
	ck_assert_msg(run_in(ws, cfg, &err) == 0, "%s", err.message);
	osb_config_free(cfg);
}
END_TEST

static Suite *execd_api_suite(void)
{
	Suite *su = suite_create("execd_api");
	TCase *tc = tcase_create("execd_api");

	tcase_add_checked_fixture(tc, setup_ws, teardown_ws);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_take_fd_moves_stdout_and_stderr_to_the_caller_past_proc_free);
	tcase_add_test(tc, test_take_fd_of_stdin_pipe_feeds_the_command_and_close_stdin_is_then_a_no_op);
	tcase_add_test(tc, test_take_fd_refuses_a_bad_index_a_missing_pipe_and_null);
	tcase_add_test(tc, test_session_opts_apply_json_idle_timeout_ends_the_session);
	tcase_add_test(tc, test_session_opts_apply_json_refuses_as_policy_apply_json_does_and_changes_nothing);
	tcase_add_test(tc, test_run_refuses_system_workspaces_and_one_outside_the_roots);
	suite_add_tcase(su, tc);
	return su;
}

int main(void)
{
	return test_sandbox_suite_main(execd_api_suite);
}

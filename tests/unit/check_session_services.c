/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_session_services.c — session commands that leave services behind
 * (osb_exec_set_keep_services, helper/broker-services.c), the broker's
 * listing of them (helper/broker.c), and scripts past the 128 KiB of a
 * command line (osb_exec_set_script, lib/exec-session.c). Real sessions.
 */
#include "osb-isolate.h"
#include "init-proto.h"
#include "session.h"
#include "sandbox-main.h"

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef TEST_BUILDDIR
#error "TEST_BUILDDIR must name the build tree"
#endif

static char ws[PATH_MAX];

static void setup_ws(void)
{
	snprintf(ws, sizeof(ws), "/tmp/osb-services.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(ws));
	ck_assert_int_eq(chmod(ws, 0777), 0);
}

static void teardown_ws(void)
{
	ck_assert_int_eq(rmdir(ws), 0);
}

static osb_session *start(int shell_state)
{
	osb_policy *p = osb_policy_load("strict", NULL);
	osb_session_opts *o = osb_session_opts_new();
	osb_session *s;
	osb_error err;

	ck_assert_int_eq(osb_policy_set_workspace(p, ws, &err), 0);
	ck_assert_int_eq(osb_session_opts_set_shell_state(o, shell_state), 0);
	s = osb_session_start_opts(p, o, &err);
	ck_assert_msg(s != NULL, "%s", err.message);
	osb_session_opts_free(o);
	osb_policy_free(p);
	return s;
}

/* Run SCRIPT with sh -c (KEEP: leaving services); its exit code, stdout. */
static int sh(osb_session *s, const char *script, int keep, char *out, size_t size)
{
	const char *argv[] = { "sh", "-c", script, NULL };
	osb_exec *e = osb_exec_new(argv, NULL);
	osb_result *res = NULL;
	osb_error err;
	int code;

	osb_exec_set_capture(e, 1);
	ck_assert_int_eq(osb_exec_set_keep_services(e, keep), 0);
	ck_assert_msg(osb_session_run(s, e, &res, &err) == 0, "%s: %s", err.stage, err.message);
	code = osb_result_exit_code(res);
	if (out)
		snprintf(out, size, "%s", osb_result_stdout(res, NULL));
	osb_result_free(res);
	osb_exec_free(e);
	return code;
}

static char *services(osb_session *s)
{
	char *json = NULL;
	osb_error err;

	ck_assert_msg(osb_session_services_json(s, &json, &err) == 0, "%s", err.message);
	return json;
}

#define BG "sleep 1000 >/dev/null 2>&1 & echo $! > /tmp/bg; echo started"

START_TEST(test_a_plain_command_takes_its_background_processes_with_it)
{
	osb_session *s = start(0);
	char *json;

	ck_assert_int_eq(sh(s, BG, 0, NULL, 0), 0);
	ck_assert_int_eq(sh(s, "kill -0 $(cat /tmp/bg)", 0, NULL, 0), 1);
	json = services(s);
	ck_assert_str_eq(json, "[]");
	osb_free(json);
	osb_session_free(s);
}
END_TEST

START_TEST(test_a_kept_command_leaves_its_service_running_and_listed)
{
	osb_session *s = start(0);
	char *json, want[128], out[64];

	ck_assert_int_eq(sh(s, BG, 1, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "started\n");
	ck_assert_int_eq(sh(s, "kill -0 $(cat /tmp/bg)", 0, NULL, 0), 0);
	json = services(s);
	/* The group's id is the command's pid: one less than its child's. */
	ck_assert_int_eq(sh(s, "echo $(( $(cat /tmp/bg) - 0 ))", 0, out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "\"command\":\"sh -c %s\"", BG);
	ck_assert_msg(strstr(json, want) != NULL, "%s", json);
	ck_assert_msg(strstr(json, "\"started_unix_ms\":") != NULL, "%s", json);
	ck_assert_msg(json[0] == '[' && strchr(json + 1, '[') == NULL && strstr(json, "},{") == NULL,
	              "one service: %s", json);
	osb_free(json);
	/* Once it has gone, it is no longer listed. */
	ck_assert_int_eq(sh(s, "kill $(cat /tmp/bg); while kill -0 $(cat /tmp/bg) 2>/dev/null; do "
	                    "sleep 0.05; done", 0, NULL, 0), 0);
	json = services(s);
	ck_assert_str_eq(json, "[]");
	osb_free(json);
	ck_assert_int_eq(osb_session_services_json(NULL, &json, NULL), -OSB_E_USAGE);
	osb_session_free(s);
}
END_TEST

START_TEST(test_a_kept_command_still_times_out_as_a_whole)
{
	osb_session *s = start(0);
	const char *argv[] = { "sh", "-c", "sleep 1000 >/dev/null 2>&1 & sleep 1000", NULL };
	osb_exec *e = osb_exec_new(argv, NULL);
	osb_result *res = NULL;
	osb_error err;
	char *json;

	osb_exec_set_keep_services(e, 1);
	osb_exec_set_timeout_ms(e, 300);
	ck_assert_int_eq(osb_session_run(s, e, &res, &err), 0);
	ck_assert(osb_result_timed_out(res));
	json = services(s);
	ck_assert_str_eq(json, "[]");
	osb_free(json);
	osb_result_free(res);
	osb_exec_free(e);
	osb_session_free(s);
}
END_TEST

/* The broker acts on no request cut to the size of its buffer: a services
 * request longer than a session packet may be is not answered (its channel
 * is closed), and the session serves on. */
START_TEST(test_a_services_request_longer_than_a_packet_is_not_answered)
{
	struct session_services_req rq = { SESSION_SERVICES, 0 };
	size_t len = SESSION_MSG_MAX + 64;
	osb_session *s = start(0);
	char *buf = calloc(1, len), reply[64], *json;
	struct pollfd p;
	osb_error err;
	int ch[2];

	ck_assert_ptr_nonnull(buf);
	memcpy(buf, &rq, sizeof(rq));
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ch), 0);
	ck_assert_msg(session_send_control(s, buf, len, ch[1], &err) == 0, "%s", err.message);
	close(ch[1]);
	p = (struct pollfd){ .fd = ch[0], .events = POLLIN };
	ck_assert_int_eq(poll(&p, 1, 5000), 1);
	ck_assert_int_eq(recv(ch[0], reply, sizeof(reply), 0), 0);
	close(ch[0]);
	free(buf);
	json = services(s);
	ck_assert_str_eq(json, "[]");
	osb_free(json);
	osb_session_free(s);
}
END_TEST

/* A script that no command line could hold. */
static char *big_script(size_t *len)
{
	size_t n = 4;
	char *s = malloc(300 * 1024 + 128);

	ck_assert_ptr_nonnull(s);
	memcpy(s, "x=1\n", 4);
	for (; n < 300 * 1024; n += 64)
		memcpy(s + n, "# filler filler filler filler filler filler filler filler fill\n", 64);
	*len = (size_t)snprintf(s + n, 64, "echo done $x $0\n") + n;
	return s;
}

START_TEST(test_a_script_past_the_command_line_limit_runs_through_a_memfd)
{
	osb_session *s = start(0);
	const char *argv[] = { "sh", NULL };
	osb_exec *e = osb_exec_new(argv, NULL);
	osb_result *res = NULL;
	osb_error err;
	size_t len;
	char *script = big_script(&len);

	ck_assert_int_eq(osb_exec_set_script(e, script, len), 0);
	osb_exec_set_capture(e, 1);
	ck_assert_msg(osb_session_run(s, e, &res, &err) == 0, "%s", err.message);
	ck_assert_int_eq(osb_result_exit_code(res), 0);
	ck_assert_str_eq(osb_result_stdout(res, NULL), "done 1 /proc/self/fd/8\n");
	osb_result_free(res);
	osb_exec_free(e);
	free(script);
	osb_session_free(s);
}
END_TEST

START_TEST(test_a_script_in_a_shell_state_session_leaves_its_state)
{
	osb_session *s = start(1);
	const char *argv[] = { "sh", NULL };
	const char text[] = "cd /tmp\nexport FROM_SCRIPT=yes\n";
	osb_exec *e = osb_exec_new(argv, NULL);
	osb_result *res = NULL;
	osb_error err;
	char out[64];

	ck_assert_int_eq(osb_exec_set_script(e, text, sizeof(text) - 1), 0);
	ck_assert_msg(osb_session_run(s, e, &res, &err) == 0, "%s", err.message);
	ck_assert_int_eq(osb_result_exit_code(res), 0);
	ck_assert_int_eq(sh(s, "pwd; echo $FROM_SCRIPT", 0, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "/tmp\nyes\n");
	osb_result_free(res);
	osb_exec_free(e);
	osb_session_free(s);
}
END_TEST

START_TEST(test_run_refuses_session_only_settings)
{
	osb_policy *p = osb_policy_load("strict", NULL);
	const char *argv[] = { "sh", NULL };
	osb_exec *e = osb_exec_new(argv, NULL);
	osb_result *res = NULL;
	osb_error err;

	ck_assert_int_eq(osb_policy_set_workspace(p, ws, &err), 0);
	ck_assert_int_eq(osb_exec_set_script(e, "true", 4), 0);
	ck_assert_int_eq(osb_run(p, e, &res, &err), -OSB_E_USAGE);
	ck_assert_msg(strstr(err.message, "osb_exec_set_script is for session commands") != NULL, "%s",
	              err.message);
	osb_result_free(res);
	ck_assert_int_eq(osb_exec_set_script(NULL, "x", 1), -OSB_E_USAGE);
	ck_assert_int_eq(osb_exec_set_script(e, NULL, 3), -OSB_E_USAGE);
	ck_assert_int_eq(osb_exec_set_keep_services(NULL, 1), -OSB_E_USAGE);
	osb_exec_free(e);
	osb_policy_free(p);
}
END_TEST

static Suite *services_suite(void)
{
	Suite *su = suite_create("session_services");
	TCase *tc = tcase_create("session_services");

	tcase_add_checked_fixture(tc, setup_ws, teardown_ws);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_a_plain_command_takes_its_background_processes_with_it);
	tcase_add_test(tc, test_a_kept_command_leaves_its_service_running_and_listed);
	tcase_add_test(tc, test_a_kept_command_still_times_out_as_a_whole);
	tcase_add_test(tc, test_a_services_request_longer_than_a_packet_is_not_answered);
	tcase_add_test(tc, test_a_script_past_the_command_line_limit_runs_through_a_memfd);
	tcase_add_test(tc, test_a_script_in_a_shell_state_session_leaves_its_state);
	tcase_add_test(tc, test_run_refuses_session_only_settings);
	suite_add_tcase(su, tc);
	return su;
}

int main(void)
{
	return test_sandbox_suite_main(services_suite);
}

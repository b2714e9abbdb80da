/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* reqrun.c — run commands the way a daemon does, through the C API: load a
 * policy, apply an execd request (JSON), then run each command once
 * (osb_run) or all of them in one session (osb_session_start,
 * osb_session_run). Prints one result JSON object a line. Used by
 * tests/integration/boundary.sh for the request and session rows of its
 * matrix.
 *
 *   reqrun [--session] [--request JSON] POLICY -- CMD [ARG]... [-- CMD...]
 *
 * The caller's environment is handed to the policy (osb_exec_set_env or
 * osb_session_opts_set_env), as a daemon hands its own. Exit status: 0 when
 * every command ran (whatever its status), 125 when the policy, the request
 * or the sandbox failed (the error is in the JSON or on stderr), 2 usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "osb-isolate.h"

extern char **environ;

static int usage(void)
{
	fprintf(stderr, "usage: reqrun [--session] [--request JSON] POLICY -- CMD [ARG]... "
	        "[-- CMD...]\n");
	return 2;
}

static int print_result(osb_result *res)
{
	char *js = osb_result_json(res);

	if (!js)
		return 125;
	puts(js);
	osb_free(js);
	return osb_result_error(res) ? 125 : 0;
}

/* Run the command at ARGV (up to the next "--" or the end), once. */
static int one(osb_policy *p, osb_session *s, char **argv)
{
	osb_error err = { 0 };
	osb_result *res = NULL;
	osb_exec *e = osb_exec_new((const char *const *)argv, &err);
	int r;

	if (!e) {
		fprintf(stderr, "reqrun: %s\n", err.message);
		return 125;
	}
	osb_exec_set_capture(e, 1);
	if (!s)
		osb_exec_set_env(e, (const char *const *)environ);
	r = s ? osb_session_run(s, e, &res, &err) : osb_run(p, e, &res, &err);
	osb_exec_free(e);
	if (!res) {
		fprintf(stderr, "reqrun: %s: %s\n", err.stage, err.message);
		return 125;
	}
	(void)r;
	r = print_result(res);
	osb_result_free(res);
	return r;
}

static osb_session *start(osb_policy *p, const char *request)
{
	osb_session_opts *o = osb_session_opts_new();
	osb_error err = { 0 };
	osb_session *s = NULL;

	if (o && osb_session_opts_set_env(o, (const char *const *)environ) == 0 &&
	    (!request || osb_session_opts_apply_json(o, request, &err) == 0))
		s = osb_session_start_opts(p, o, &err);
	if (!s)
		printf("{\"ok\":false,\"session_error\":{\"stage\":\"%s\",\"code\":%d}}\n", err.stage,
		       err.code);
	if (!s)
		fprintf(stderr, "reqrun: session: %s: %s\n", err.stage, err.message);
	osb_session_opts_free(o);
	return s;
}

int main(int argc, char **argv)
{
	const char *request = NULL;
	osb_error err = { 0 };
	osb_session *s = NULL;
	osb_policy *p;
	int i = 1, rc = 0;
	int session = 0;

	/* The init the test staged, named as osb-isolate(1) takes it. */
	if (osb_set_program(OSB_PROGRAM_INIT, getenv("OSB_ISOLATE_INIT"), "OSB_ISOLATE_INIT",
	                    &err) < 0) {
		fprintf(stderr, "reqrun: %s\n", err.message);
		return 2;
	}
	for (; i < argc && argv[i][0] == '-' && strcmp(argv[i], "--") != 0; i++) {
		if (!strcmp(argv[i], "--session"))
			session = 1;
		else if (!strcmp(argv[i], "--request") && i + 1 < argc)
			request = argv[++i];
		else
			return usage();
	}
	if (i + 2 >= argc || strcmp(argv[i + 1], "--") != 0)
		return usage();
	p = osb_policy_load(argv[i], &err);
	if (!p || (request && osb_policy_apply_json(p, request, &err) < 0)) {
		fprintf(stderr, "reqrun: %s: %s\n", err.stage, err.message);
		osb_policy_free(p);
		return 125;
	}
	if (session && !(s = start(p, request))) {
		osb_policy_free(p);
		return 125;
	}
	for (i += 2; i < argc; ) {
		int end = i;

		while (end < argc && strcmp(argv[end], "--") != 0)
			end++;
		argv[end < argc ? end : argc] = NULL;
		if (one(p, s, argv + i) != 0)
			rc = 125;
		i = end + 1;
	}
	if (s)
		osb_session_destroy(s, NULL);
	osb_session_free(s);
	osb_policy_free(p);
	return rc;
}

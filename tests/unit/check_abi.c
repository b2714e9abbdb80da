/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_abi.c — the shapes of the public API a caller compiles against
 * (libosb-isolate(3), "ABI"), through lib/osb-isolate.h alone.
 *
 * Caller-allocated structs keep their size and layout for good: fields added
 * later are carved out of their reserved space, which the library zeroes;
 * the version constants agree with osb_version(); flag arguments refuse the
 * bits they do not know instead of ignoring them, and enum arguments refuse
 * values outside the enum; every stage string the sources hand to
 * osb_err_set() (or that the init reports) is one osb_stage names.
 */
#include "osb-isolate.h"
#include "util.h"

#include <check.h>
#include <dirent.h>
#include <regex.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#ifndef TEST_SRCDIR
#error "build with -DTEST_SRCDIR=\"/path/to/source\""
#endif

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
	ck_assert_uint_eq(offsetof(osb_error, stage_id), 1064);
	ck_assert_uint_eq(offsetof(osb_error, reserved), 1068);
	ck_assert_uint_eq(sizeof(osb_status), 112);
	ck_assert_uint_eq(offsetof(osb_status, duration_ms), 16);
	ck_assert_uint_eq(offsetof(osb_status, max_rss_kib), 40);
	ck_assert_uint_eq(offsetof(osb_status, proxy_died), 48);
	ck_assert_uint_eq(offsetof(osb_status, reserved), 56);
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

START_TEST(test_error_codes_are_disjoint_from_errno)
{
	static const int codes[] = { OSB_E_USAGE, OSB_E_POLICY, OSB_E_PATH, OSB_E_HOST,
	                             OSB_E_SECCOMP, OSB_E_SPAWN, OSB_E_SANDBOX, OSB_E_NOMEM,
	                             OSB_E_IO, OSB_E_INTERNAL };
	osb_error err;
	int r;

	/* The kernel's errno values are below 4096 (MAX_ERRNO 4095). */
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		ck_assert_int_gt(codes[i], 4095);
	/* The file API answers as every call: -OSB_E_*, errno in the error. */
	r = osb_open_beneath(-1, "x", O_RDONLY, 0, &err);
	ck_assert_int_eq(r, -err.code);
	ck_assert_int_gt(err.code, 4095);
	ck_assert_int_ne(err.sys_errno, 0);
	ck_assert_int_lt(osb_mkdir_beneath(-1, "../x", 0700, NULL), -4095);
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

/* Every call that takes a handle answers a NULL one with -OSB_E_USAGE
 * (libosb-isolate(3), "Conventions"), never a crash: a daemon's bug must
 * not take the daemon down. */
START_TEST(test_exec_setters_refuse_null)
{
	const char *env[] = { "A=b", NULL };

	ck_assert_int_eq(osb_exec_set_stdin_fd(NULL, 0), -OSB_E_USAGE);
	ck_assert_int_eq(osb_exec_set_stdout_fd(NULL, 1), -OSB_E_USAGE);
	ck_assert_int_eq(osb_exec_set_stderr_fd(NULL, 2), -OSB_E_USAGE);
	ck_assert_int_eq(osb_exec_set_capture(NULL, 1), -OSB_E_USAGE);
	ck_assert_int_eq(osb_exec_set_output_direct(NULL, 1, 1), -OSB_E_USAGE);
	ck_assert_int_eq(osb_exec_set_env(NULL, env), -OSB_E_USAGE);
	ck_assert_int_eq(osb_exec_set_env(NULL, NULL), -OSB_E_USAGE);
	ck_assert_int_eq(osb_exec_set_cwd(NULL, "/"), -OSB_E_USAGE);
	ck_assert_int_eq(osb_exec_set_timeout_ms(NULL, 1), -OSB_E_USAGE);
	ck_assert_int_eq(osb_exec_set_output_limit(NULL, 1), -OSB_E_USAGE);
	ck_assert_int_eq(osb_exec_set_stdin_pipe(NULL, 1), -OSB_E_USAGE);
	ck_assert_int_eq(osb_exec_set_cancel_fd(NULL, 0), -OSB_E_USAGE);
}
END_TEST

START_TEST(test_policy_and_config_calls_refuse_null)
{
	osb_error err;
	char h[OSB_POLICY_HASH_LEN];

	ck_assert_int_eq(osb_policy_set_workspace(NULL, "/tmp", &err), -OSB_E_USAGE);
	ck_assert_int_eq(osb_policy_add_readonly(NULL, "/usr", &err), -OSB_E_USAGE);
	ck_assert_int_eq(osb_policy_add_writable(NULL, "/tmp/x", &err), -OSB_E_USAGE);
	ck_assert_int_eq(osb_policy_set_network(NULL, OSB_NETWORK_NONE, &err), -OSB_E_USAGE);
	ck_assert_int_eq(osb_policy_set_host_ids(NULL, 1, 1, &err), -OSB_E_USAGE);
	ck_assert_int_eq(osb_policy_set_wall_ms(NULL, 1, &err), -OSB_E_USAGE);
	ck_assert_int_eq(osb_policy_apply_json(NULL, "{}", &err), -OSB_E_USAGE);
	ck_assert_int_eq(osb_policy_set_config(NULL, NULL, &err), -OSB_E_USAGE);
	ck_assert_int_eq(osb_policy_hash(NULL, h), -OSB_E_USAGE);
	ck_assert_int_eq(osb_policy_rules(NULL, NULL, NULL), -OSB_E_USAGE);
	ck_assert_int_eq(osb_seccomp_group_denies(NULL, NULL, NULL), -OSB_E_USAGE);
	ck_assert_int_eq(osb_config_add_workspace_root(NULL, "/srv", &err), -OSB_E_USAGE);
	ck_assert_int_eq(osb_session_opts_set_idle_timeout_ms(NULL, 1), -OSB_E_USAGE);
	ck_assert_int_eq(osb_session_opts_set_max_execs(NULL, 1), -OSB_E_USAGE);
	ck_assert_int_eq(osb_session_opts_set_env(NULL, NULL), -OSB_E_USAGE);
	ck_assert_int_eq(osb_session_opts_apply_json(NULL, "{}", &err), -OSB_E_USAGE);
}
END_TEST

START_TEST(test_run_and_session_calls_refuse_null)
{
	osb_error err;
	osb_result *r = NULL;
	osb_proc *pr = NULL;
	osb_status st;

	ck_assert_int_eq(osb_run(NULL, NULL, &r, &err), -OSB_E_USAGE);
	osb_result_free(r);
	r = NULL;
	ck_assert_int_eq(osb_session_spawn(NULL, NULL, &pr, &err), -OSB_E_USAGE);
	ck_assert_int_eq(osb_session_run(NULL, NULL, &r, &err), -OSB_E_USAGE);
	osb_result_free(r);
	ck_assert_int_eq(osb_session_destroy(NULL, &err), -OSB_E_USAGE);
	ck_assert_int_eq(osb_proc_close_stdin(NULL), -OSB_E_USAGE);
	ck_assert_int_eq(osb_proc_take_fd(NULL, 1), -OSB_E_USAGE);
	ck_assert_int_eq(osb_proc_wait(NULL, 0, &st), -OSB_E_USAGE);
	ck_assert_int_eq(osb_proc_kill(NULL, 9), -OSB_E_USAGE);
	ck_assert_int_eq(osb_proc_error(NULL, &err), -OSB_E_USAGE);
	ck_assert_int_eq(osb_result_host_ids(NULL, NULL, NULL), -OSB_E_USAGE);
}
END_TEST

START_TEST(test_stage_names_round_trip)
{
	osb_error err;

	ck_assert_str_eq(osb_stage_name(OSB_STAGE_NONE), "");
	ck_assert_str_eq(osb_stage_name(OSB_STAGE_POLICY), "policy");
	ck_assert_str_eq(osb_stage_name(OSB_STAGE_INIT_SECCOMP), "init:seccomp");
	ck_assert_str_eq(osb_stage_name(OSB_STAGE_EXPLAIN), "explain");
	ck_assert_str_eq(osb_stage_name(OSB_STAGE_CGROUP), "cgroup");
	ck_assert_str_eq(osb_stage_name(OSB_STAGE_INIT_OVERLAY), "init:overlay");
	ck_assert_str_eq(osb_stage_name(OSB_STAGE_INIT_NET), "init:net");
	ck_assert_str_eq(osb_stage_name(OSB_STAGE_NETPROXY), "netproxy");
	ck_assert_ptr_null(osb_stage_name((osb_stage)(OSB_STAGE_NETPROXY + 1)));
	ck_assert_ptr_null(osb_stage_name((osb_stage)-1));
	for (int i = OSB_STAGE_USAGE; i <= OSB_STAGE_NETPROXY; i++)
		ck_assert_int_eq(stage_of(osb_stage_name((osb_stage)i)), i);
	ck_assert_int_eq(stage_of("no-such-stage"), OSB_STAGE_OTHER);
	ck_assert_int_eq(osb_err_set(&err, OSB_E_PATH, 0, "workspace", "x"), -OSB_E_PATH);
	ck_assert_int_eq(err.stage_id, OSB_STAGE_WORKSPACE);
	ck_assert_int_eq(osb_err_set(&err, OSB_E_SANDBOX, 0, "init:landlock", "x"), -OSB_E_SANDBOX);
	ck_assert_int_eq(err.stage_id, OSB_STAGE_INIT_LANDLOCK);
}
END_TEST

/* Every match of PATTERN (its first group) in FILE must name a stage. */
static int scan_file(const char *file, const regex_t *re, char *bad, size_t bad_len)
{
	char buf[1 << 20], name[64];
	size_t n, off = 0;
	regmatch_t m[2];
	int found = 0;
	FILE *f = fopen(file, "re");

	ck_assert_msg(f != NULL, "%s: %s", file, strerror(errno));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (regexec(re, buf + off, 2, m, off ? REG_NOTBOL : 0) == 0) {
		size_t len = (size_t)(m[1].rm_eo - m[1].rm_so);

		snprintf(name, sizeof(name), "%.*s", (int)len, buf + off + m[1].rm_so);
		if (stage_of(name) == OSB_STAGE_OTHER || stage_of(name) == OSB_STAGE_NONE)
			snprintf(bad + strlen(bad), bad_len - strlen(bad), " %s:\"%s\"", file, name);
		found++;
		off += (size_t)m[0].rm_eo;
	}
	return found;
}

START_TEST(test_every_stage_in_the_sources_has_a_name)
{
	/* osb_err_set(ERR, CODE, ERRNO, "stage", ...), a verifier's
	 * .stage = "stage", and the init's "init:..." reports. */
	static const char *const patterns[] = {
		"osb_err_set\\([^,;()]*,[^,;()]*,[^,;]*,[[:space:]]*\"([^\"]*)\"",
		"\\.stage = \"([^\"]*)\"",
		"\"(init:[a-z_-]+)\"",
	};
	static const char *const dirs[] = { TEST_SRCDIR "/lib", TEST_SRCDIR "/helper" };
	char bad[4096] = "", path[4096];
	int total = 0;

	for (size_t p = 0; p < sizeof(patterns) / sizeof(patterns[0]); p++) {
		regex_t re;

		ck_assert_int_eq(regcomp(&re, patterns[p], REG_EXTENDED), 0);
		for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
			DIR *dir = opendir(dirs[d]);
			struct dirent *de;

			ck_assert_ptr_nonnull(dir);
			while ((de = readdir(dir))) {
				size_t l = strlen(de->d_name);

				if (l < 3 || strcmp(de->d_name + l - 2, ".c") != 0)
					continue;
				/* The CLI's own files fill no library osb_error. */
				if (d == 1 && strncmp(de->d_name, "init", 4) != 0 &&
				    strcmp(de->d_name, "osb-isolate-init.c") != 0 &&
				    strcmp(de->d_name, "broker.c") != 0)
					continue;
				snprintf(path, sizeof(path), "%s/%s", dirs[d], de->d_name);
				total += scan_file(path, &re, bad, sizeof(bad));
			}
			closedir(dir);
		}
		regfree(&re);
	}
	ck_assert_msg(total > 100, "only %d stage strings found: is the pattern stale?", total);
	ck_assert_msg(bad[0] == '\0', "stages osb_stage does not name:%s", bad);
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
	tcase_add_test(t, test_error_codes_are_disjoint_from_errno);
	suite_add_tcase(s, t);

	t = tcase_create("arguments");
	tcase_add_test(t, test_explain_refuses_unknown_flags);
	tcase_add_test(t, test_network_refuses_values_outside_the_enum);
	tcase_add_test(t, test_caps_probe_refuses_unknown_flags);
	suite_add_tcase(s, t);

	t = tcase_create("stages");
	tcase_add_test(t, test_stage_names_round_trip);
	tcase_add_test(t, test_every_stage_in_the_sources_has_a_name);
	suite_add_tcase(s, t);

	t = tcase_create("null");
	tcase_add_test(t, test_exec_setters_refuse_null);
	tcase_add_test(t, test_policy_and_config_calls_refuse_null);
	tcase_add_test(t, test_run_and_session_calls_refuse_null);
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

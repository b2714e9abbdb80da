/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_result.c — unit tests for lib/result.c: output capture clipping, the
 * ok/cli-status rules and the exact JSON a caller parses.
 */
#include "result.h"
#include "utf8.h"

#include <check.h>
#include <json-c/json.h>

static const char ALPHA25[] = "ABCDEFGHIJKLMNOPQRSTUVWXY";

/* ---- capture -------------------------------------------------------------- */

static void feed(capture *c, const char *data, size_t len, size_t chunk)
{
	for (size_t off = 0; off < len; off += chunk) {
		size_t n = len - off < chunk ? len - off : chunk;

		ck_assert_int_eq(capture_add(c, data + off, n), 0);
	}
}

static void take_expect(capture *c, const char *want, size_t want_len, bool want_trunc)
{
	char *out = NULL;
	size_t len = 99;
	bool trunc = !want_trunc;

	ck_assert_int_eq(capture_take(c, &out, &len, &trunc), 0);
	ck_assert_uint_eq(len, want_len);
	ck_assert_mem_eq(out, want, want_len);
	ck_assert_int_eq(out[len], '\0');
	ck_assert_int_eq(trunc, want_trunc);
	free(out);
}

static const size_t chunk_sizes[] = { 1, 3, 7, 25 };

START_TEST(test_capture_clip_keeps_head_and_tail_any_chunking)
{
	capture c;

	capture_init(&c, 10);
	feed(&c, ALPHA25, 25, chunk_sizes[_i]);
	ck_assert_uint_eq(c.total, 25);
	take_expect(&c, "ABCDEUVWXY", 10, true);
	ck_assert_uint_eq(c.total, 25);
	capture_free(&c);
}
END_TEST

START_TEST(test_capture_clip_mixed_chunks_1_3_7)
{
	static const size_t sizes[] = { 1, 3, 7 };
	capture c;
	size_t off = 0;

	capture_init(&c, 10);
	for (size_t i = 0; off < 25; i++) {
		size_t n = sizes[i % 3] < 25 - off ? sizes[i % 3] : 25 - off;

		ck_assert_int_eq(capture_add(&c, ALPHA25 + off, n), 0);
		off += n;
	}
	ck_assert_uint_eq(c.total, 25);
	take_expect(&c, "ABCDEUVWXY", 10, true);
	capture_free(&c);
}
END_TEST

START_TEST(test_capture_exactly_limit_not_truncated)
{
	capture c;

	capture_init(&c, 10);
	feed(&c, ALPHA25, 10, 3);
	take_expect(&c, "ABCDEFGHIJ", 10, false);
	capture_free(&c);
}
END_TEST

START_TEST(test_capture_one_over_limit_drops_middle_byte)
{
	capture c;

	capture_init(&c, 10);
	feed(&c, ALPHA25, 11, 4);
	ck_assert_uint_eq(c.total, 11);
	take_expect(&c, "ABCDEGHIJK", 10, true);
	capture_free(&c);
}
END_TEST

START_TEST(test_capture_odd_limit_head_gets_extra_byte)
{
	capture c;

	capture_init(&c, 7);
	feed(&c, ALPHA25, 20, 6);
	take_expect(&c, "ABCDRST", 7, true);
	capture_free(&c);
}
END_TEST

START_TEST(test_capture_short_output_kept_whole)
{
	capture c;

	capture_init(&c, 10);
	feed(&c, "abc\0d", 5, 2);
	take_expect(&c, "abc\0d", 5, false);
	capture_free(&c);
}
END_TEST

/* Finding: the clip cut multi-byte characters at the byte level and joined
 * the halves, inventing a character ("\xe2\x82" + "\x82" is U+2082). A clip
 * keeps whole characters only: a split one is dropped on both sides. */
START_TEST(test_capture_clip_keeps_whole_characters)
{
	static const char euros[] = "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"
	                            "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac";   /* 6 x U+20AC */
	capture c;

	for (size_t i = 0; i < sizeof(chunk_sizes) / sizeof(chunk_sizes[0]); i++) {
		/* Head "\xe2\x82\xac\xe2", tail "\xac\xe2\x82\xac": one euro each. */
		capture_init(&c, 8);
		feed(&c, euros, 18, chunk_sizes[i]);
		take_expect(&c, "\xe2\x82\xac\xe2\x82\xac", 6, true);
		capture_free(&c);
		/* Head "\xe2\x82\xac\xe2\x82", tail "\x82\xac\xe2\x82\xac". */
		capture_init(&c, 10);
		feed(&c, euros, 18, chunk_sizes[i]);
		take_expect(&c, "\xe2\x82\xac\xe2\x82\xac", 6, true);
		capture_free(&c);
	}
	/* Not clipped: nothing is touched, even a character cut by the command. */
	capture_init(&c, 10);
	feed(&c, "a\xe2\x82", 3, 1);
	take_expect(&c, "a\xe2\x82", 3, false);
	capture_free(&c);
	/* Binary output is kept as it is but for at most 3 bytes at each side. */
	capture_init(&c, 4);
	feed(&c, "\xff\xfe\xfd\xfc\xfb\xfa", 6, 1);
	take_expect(&c, "\xff\xfe\xfb\xfa", 4, true);
	capture_free(&c);
}
END_TEST

START_TEST(test_capture_limit_zero_counts_only)
{
	capture c;

	capture_init(&c, 0);
	feed(&c, ALPHA25, 25, 7);
	ck_assert_uint_eq(c.total, 25);
	take_expect(&c, "", 0, true);
	capture_free(&c);

	capture_init(&c, 0);
	take_expect(&c, "", 0, false);
	capture_free(&c);
}
END_TEST

/* A huge limit must not be allocated up front. */
START_TEST(test_capture_huge_limit_allocates_lazily)
{
	capture c;

	capture_init(&c, UINT64_MAX);
	feed(&c, "xyz", 3, 1);
	take_expect(&c, "xyz", 3, false);
	capture_free(&c);
}
END_TEST

/* ---- ok / cli status --------------------------------------------------- */

static osb_result *mk_exit(int code)
{
	osb_result *r = result_new();

	ck_assert_ptr_nonnull(r);
	r->ran = true;
	r->exit_code = code;
	return r;
}

static void set_exec_error(osb_result *r, int e)
{
	r->has_error = true;
	osb_err_set(&r->error, OSB_E_SANDBOX, e, "exec", "cannot execute");
}

START_TEST(test_cli_status_table)
{
	osb_result *r;

	r = mk_exit(0);
	ck_assert_int_eq(osb_result_cli_status(r), 0);
	osb_result_free(r);

	r = mk_exit(3);
	ck_assert_int_eq(osb_result_cli_status(r), 3);
	osb_result_free(r);

	r = mk_exit(-1);
	r->signal = 9;
	ck_assert_int_eq(osb_result_cli_status(r), 137);
	osb_result_free(r);

	r = mk_exit(-1);
	r->signal = 9;
	r->timed_out = true;
	ck_assert_int_eq(osb_result_cli_status(r), 124);
	osb_result_free(r);

	r = mk_exit(-1);
	ck_assert_int_eq(osb_result_cli_status(r), 125);
	osb_result_free(r);

	r = result_new();   /* never ran, no error recorded: unknown */
	r->exit_code = 0;
	ck_assert_int_eq(osb_result_cli_status(r), 125);
	osb_result_free(r);

	r = result_new();
	r->has_error = true;
	osb_err_set(&r->error, OSB_E_POLICY, 0, "policy", "bad");
	ck_assert_int_eq(osb_result_cli_status(r), 125);
	osb_result_free(r);

	r = result_new();
	r->has_error = true;   /* ENOENT outside the exec stage is a tool failure */
	osb_err_set(&r->error, OSB_E_PATH, ENOENT, "plan", "no such workspace");
	ck_assert_int_eq(osb_result_cli_status(r), 125);
	osb_result_free(r);

	static const struct { int e, status; } exec_errs[] = {
		{ ENOENT, 127 }, { EACCES, 126 }, { ENOEXEC, 126 }, { EPERM, 126 },
		{ EISDIR, 126 }, { E2BIG, 125 }, { 0, 125 },
	};
	for (size_t i = 0; i < sizeof(exec_errs) / sizeof(exec_errs[0]); i++) {
		r = mk_exit(-1);
		set_exec_error(r, exec_errs[i].e);
		ck_assert_int_eq(osb_result_cli_status(r), exec_errs[i].status);
		osb_result_free(r);
	}

	/* An error wins over a timeout and an exit code. */
	r = mk_exit(0);
	r->timed_out = true;
	set_exec_error(r, ENOENT);
	ck_assert_int_eq(osb_result_cli_status(r), 127);
	osb_result_free(r);

	ck_assert_int_eq(osb_result_cli_status(NULL), 125);
}
END_TEST

START_TEST(test_ok_only_for_known_zero_exit)
{
	osb_result *r;

	r = mk_exit(0);
	ck_assert_int_eq(osb_result_ok(r), 1);
	r->signal = 15;
	ck_assert_int_eq(osb_result_ok(r), 0);
	r->signal = 0;
	r->timed_out = true;
	ck_assert_int_eq(osb_result_ok(r), 0);
	r->timed_out = false;
	r->has_error = true;
	ck_assert_int_eq(osb_result_ok(r), 0);
	r->has_error = false;
	r->ran = false;
	ck_assert_int_eq(osb_result_ok(r), 0);
	osb_result_free(r);

	r = mk_exit(1);
	ck_assert_int_eq(osb_result_ok(r), 0);
	osb_result_free(r);
	r = mk_exit(-1);
	ck_assert_int_eq(osb_result_ok(r), 0);
	osb_result_free(r);
	ck_assert_int_eq(osb_result_ok(NULL), 0);
}
END_TEST

START_TEST(test_accessors_defaults_and_values)
{
	osb_result *r = result_new();
	size_t len = 7;

	ck_assert_int_eq(osb_result_exit_code(r), -1);
	ck_assert_int_eq(osb_result_signal(r), 0);
	ck_assert_ptr_null(osb_result_error(r));
	ck_assert_str_eq(osb_result_stdout(r, &len), "");
	ck_assert_uint_eq(len, 0);
	ck_assert_str_eq(osb_result_stderr(r, NULL), "");
	ck_assert_str_eq(osb_result_policy_hash(r), "");

	r->ran = true;
	r->exit_code = 4;
	r->out = strdup("o\0k");
	r->out_len = 3;
	r->out_bytes = 300;
	r->err_bytes = 5;
	r->duration_ms = 42;
	r->truncated = true;
	r->has_error = true;
	osb_err_set(&r->error, OSB_E_IO, EIO, "capture", "read failed");
	ck_assert_int_eq(osb_result_exit_code(r), 4);
	ck_assert_ptr_eq(osb_result_stdout(r, &len), r->out);
	ck_assert_uint_eq(len, 3);
	ck_assert_uint_eq(osb_result_stdout_bytes(r), 300);
	ck_assert_uint_eq(osb_result_stderr_bytes(r), 5);
	ck_assert_uint_eq(osb_result_duration_ms(r), 42);
	ck_assert_int_eq(osb_result_truncated(r), 1);
	ck_assert_ptr_eq(osb_result_error(r), &r->error);
	ck_assert_str_eq(osb_result_error(r)->stage, "capture");
	osb_result_free(r);
}
END_TEST

START_TEST(test_code_names_stable)
{
	static const char *const want[] = {
		"none", "usage", "policy", "path", "host", "seccomp", "spawn",
		"sandbox", "nomem", "io", "internal",
	};

	ck_assert_str_eq(result_code_name(OSB_OK), want[0]);
	for (int i = 1; i < 11; i++)
		ck_assert_str_eq(result_code_name(OSB_E_USAGE + i - 1), want[i]);
	ck_assert_str_eq(result_code_name(OSB_E_INTERNAL + 1), "unknown");
	ck_assert_str_eq(result_code_name(1), "unknown");
	ck_assert_str_eq(result_code_name(-2), "unknown");
}
END_TEST

/* ---- JSON --------------------------------------------------------------- */

static void json_expect(const osb_result *r, const char *want)
{
	char *js = osb_result_json(r);

	ck_assert_ptr_nonnull(js);
	ck_assert_str_eq(js, want);
	osb_free(js);
}

static void set_out(osb_result *r, const char *data, size_t len)
{
	free(r->out);
	r->out = malloc(len + 1);
	ck_assert_ptr_nonnull(r->out);
	memcpy(r->out, data, len);
	r->out[len] = '\0';
	r->out_len = len;
	r->out_bytes = len;
}

/* The stages a result's moments divide into (osb-isolate(1), RESULT): a
 * one-shot run's five, a session command's three (no bwrap, no init), and
 * none where a moment is unknown or comes before the one it follows. */
START_TEST(test_timings_from_stamps)
{
	osb_result *r = mk_exit(0);
	char *j;

	r->t.ns[TS_START] = 1000000000;
	r->t.ns[TS_SPAWN] = 1002500000;
	r->t.ns[TS_INIT] = 1010000000;
	r->t.ns[TS_GO] = 1011000000;
	r->t.ns[TS_EXIT] = 1011600000;
	r->t.ns[TS_END] = 1012000999;
	ck_assert_int_eq(osb_result_timing_us(r, OSB_TIMING_SETUP), 2500);
	ck_assert_int_eq(osb_result_timing_us(r, OSB_TIMING_BWRAP), 7500);
	ck_assert_int_eq(osb_result_timing_us(r, OSB_TIMING_INIT), 1000);
	ck_assert_int_eq(osb_result_timing_us(r, OSB_TIMING_COMMAND), 600);
	ck_assert_int_eq(osb_result_timing_us(r, OSB_TIMING_TEARDOWN), 400);
	ck_assert_int_eq(osb_result_timing_us(r, OSB_TIMING__COUNT), -1);
	ck_assert_int_eq(osb_result_timing_us(r, (osb_timing)-1), -1);
	ck_assert_int_eq(osb_result_timing_us(NULL, OSB_TIMING_SETUP), -1);
	j = osb_result_json(r);
	ck_assert_ptr_nonnull(strstr(j, "\"duration_ms\":0,\"timings_us\":{\"setup\":2500,\"bwrap\":7500,"
	                             "\"init\":1000,\"command\":600,\"teardown\":400},"));
	osb_free(j);
	/* A session command: started and exited, nothing of bwrap or the init. */
	r->t.ns[TS_SPAWN] = r->t.ns[TS_INIT] = 0;
	ck_assert_int_eq(osb_result_timing_us(r, OSB_TIMING_SETUP), 11000);
	ck_assert_int_eq(osb_result_timing_us(r, OSB_TIMING_BWRAP), -1);
	ck_assert_int_eq(osb_result_timing_us(r, OSB_TIMING_INIT), -1);
	ck_assert_int_eq(osb_result_timing_us(r, OSB_TIMING_COMMAND), 600);
	j = osb_result_json(r);
	ck_assert_ptr_nonnull(strstr(j, "\"timings_us\":{\"setup\":11000,\"bwrap\":null,\"init\":null,"
	                             "\"command\":600,\"teardown\":400},"));
	osb_free(j);
	/* Out of order (an init's clock that claims to have started before
	 * bwrap): that stage and the next are unknown, not negative. */
	r->t.ns[TS_SPAWN] = 1002500000;
	r->t.ns[TS_INIT] = 1001000000;
	ck_assert_int_eq(osb_result_timing_us(r, OSB_TIMING_BWRAP), -1);
	ck_assert_int_eq(osb_result_timing_us(r, OSB_TIMING_INIT), -1);
	ck_assert_int_eq(osb_result_timing_us(r, OSB_TIMING_COMMAND), 600);
	ck_assert_str_eq(osb_result_timing_name(OSB_TIMING_SETUP), "setup");
	ck_assert_str_eq(osb_result_timing_name(OSB_TIMING_TEARDOWN), "teardown");
	ck_assert_ptr_null(osb_result_timing_name(OSB_TIMING__COUNT));
	osb_result_free(r);
}
END_TEST

START_TEST(test_json_normal_exit_exact)
{
	osb_result *r = mk_exit(0);

	set_out(r, "hello\n", 6);
	r->duration_ms = 12;
	snprintf(r->policy_hash, sizeof(r->policy_hash), "sha256:%s", "ab12");
	r->mode = strdup("userns");
	json_expect(r, "{\"ok\":true,\"exit_code\":0,\"signal\":null,\"timed_out\":false,"
	            "\"error\":null,\"stdout\":\"hello\\n\",\"stderr\":\"\",\"truncated\":false,"
	            "\"stdout_bytes\":6,\"stderr_bytes\":0,\"duration_ms\":12,\"timings_us\":{\"setup\":null,\"bwrap\":null,\"init\":null,\"command\":null,\"teardown\":null},"
	            "\"policy_hash\":\"sha256:ab12\",\"mode\":\"userns\",\"workspace_mode\":null,\"host_ids\":null,\"limits\":null,\"tmpfs_full\":null,\"hint\":null,"
	            "\"status\":0}");
	result_set_host_ids(r, 1879048200, 1879048201, "allocated");
	json_expect(r, "{\"ok\":true,\"exit_code\":0,\"signal\":null,\"timed_out\":false,"
	            "\"error\":null,\"stdout\":\"hello\\n\",\"stderr\":\"\",\"truncated\":false,"
	            "\"stdout_bytes\":6,\"stderr_bytes\":0,\"duration_ms\":12,\"timings_us\":{\"setup\":null,\"bwrap\":null,\"init\":null,\"command\":null,\"teardown\":null},"
	            "\"policy_hash\":\"sha256:ab12\",\"mode\":\"userns\",\"workspace_mode\":null,\"host_ids\":{\"uid\":1879048200,"
	            "\"gid\":1879048201,\"kind\":\"allocated\"},\"limits\":null,\"tmpfs_full\":null,\"hint\":null,\"status\":0}");
	osb_result_free(r);
}
END_TEST

/* A sandbox the OOM killer ended at "limit memory": status 137 like any
 * SIGKILL, and the limits member says why; counters this host does not keep
 * are null, and a best-effort limit that did not hold is named. */
START_TEST(test_json_limits_oom_killed_exact)
{
	osb_result *r = mk_exit(0);
	limits_state ls = { .skipped = CG_BIT(CG_CPU) };
	cgroup_outcome o = {
		.known = CG_KNOW_OOM | CG_KNOW_PEAK | CG_KNOW_PIDS,
		.oom_kills = 1, .memory_peak = 67108864,
	};
	uint64_t v = 0;

	r->exit_code = -1;
	r->signal = 9;
	snprintf(ls.skipped_why, sizeof(ls.skipped_why), "limit cpu: no cpu controller");
	ls.cg = (cgroup *)&o;   /* only its presence is read */
	ck_assert_int_eq(result_set_limits(r, &ls, &o), 0);
	json_expect(r, "{\"ok\":false,\"exit_code\":null,\"signal\":9,\"timed_out\":false,"
	            "\"error\":null,\"stdout\":\"\",\"stderr\":\"\",\"truncated\":false,"
	            "\"stdout_bytes\":0,\"stderr_bytes\":0,\"duration_ms\":0,\"timings_us\":{\"setup\":null,\"bwrap\":null,\"init\":null,\"command\":null,\"teardown\":null},"
	            "\"policy_hash\":null,\"mode\":null,\"workspace_mode\":null,\"host_ids\":null,\"limits\":{\"cgroup\":true,"
	            "\"oom_killed\":true,\"pids_limited\":false,\"memory_peak_bytes\":67108864,"
	            "\"pids_peak\":null,\"cpu_usage_ms\":null,\"cpu_throttled_ms\":null,"
	            "\"not_enforced\":[\"cpu\"],\"not_enforced_reason\":\"limit cpu: no cpu controller\"},"
	            "\"tmpfs_full\":null,\"hint\":null,\"status\":137}");
	ck_assert_int_eq(osb_result_oom_killed(r), 1);
	ck_assert_int_eq(osb_result_pids_limited(r), 0);
	ck_assert_int_eq(osb_result_memory_peak(r, &v), 0);
	ck_assert_uint_eq(v, 67108864);
	ck_assert_int_eq(osb_result_cpu_throttled_us(r, &v), -1);
	ck_assert_uint_eq(osb_result_limits_not_enforced(r), OSB_LIMIT_CPU);
	osb_result_free(r);
	r = mk_exit(0);
	ck_assert_int_eq(osb_result_oom_killed(r), -1);
	ck_assert_uint_eq(osb_result_limits_not_enforced(r), 0);
	osb_result_free(r);
}
END_TEST

START_TEST(test_json_nonzero_exit_not_ok)
{
	osb_result *r = mk_exit(3);

	r->err = strdup("boom/x");
	r->err_len = 6;
	r->err_bytes = 6;
	json_expect(r, "{\"ok\":false,\"exit_code\":3,\"signal\":null,\"timed_out\":false,"
	            "\"error\":null,\"stdout\":\"\",\"stderr\":\"boom/x\",\"truncated\":false,"
	            "\"stdout_bytes\":0,\"stderr_bytes\":6,\"duration_ms\":0,\"timings_us\":{\"setup\":null,\"bwrap\":null,\"init\":null,\"command\":null,\"teardown\":null},"
	            "\"policy_hash\":null,\"mode\":null,\"workspace_mode\":null,\"host_ids\":null,\"limits\":null,\"tmpfs_full\":null,\"hint\":null,\"status\":3}");
	osb_result_free(r);
}
END_TEST

START_TEST(test_json_signal_exact)
{
	osb_result *r = mk_exit(-1);

	r->signal = 9;
	r->duration_ms = 5;
	r->mode = strdup("root");
	json_expect(r, "{\"ok\":false,\"exit_code\":null,\"signal\":9,\"timed_out\":false,"
	            "\"error\":null,\"stdout\":\"\",\"stderr\":\"\",\"truncated\":false,"
	            "\"stdout_bytes\":0,\"stderr_bytes\":0,\"duration_ms\":5,\"timings_us\":{\"setup\":null,\"bwrap\":null,\"init\":null,\"command\":null,\"teardown\":null},"
	            "\"policy_hash\":null,\"mode\":\"root\",\"workspace_mode\":null,\"host_ids\":null,\"limits\":null,\"tmpfs_full\":null,\"hint\":null,\"status\":137}");
	osb_result_free(r);
}
END_TEST

START_TEST(test_json_timeout_exact)
{
	osb_result *r = mk_exit(-1);

	r->signal = 9;
	r->timed_out = true;
	r->duration_ms = 2001;
	r->hint = strdup("raise the wall limit or make the command faster");
	set_out(r, "partial", 7);
	json_expect(r, "{\"ok\":false,\"exit_code\":null,\"signal\":9,\"timed_out\":true,"
	            "\"error\":null,\"stdout\":\"partial\",\"stderr\":\"\",\"truncated\":false,"
	            "\"stdout_bytes\":7,\"stderr_bytes\":0,\"duration_ms\":2001,\"timings_us\":{\"setup\":null,\"bwrap\":null,\"init\":null,\"command\":null,\"teardown\":null},"
	            "\"policy_hash\":null,\"mode\":null,\"workspace_mode\":null,\"host_ids\":null,\"limits\":null,"
	            "\"tmpfs_full\":null,\"hint\":\"raise the wall limit or make the command faster\","
	            "\"status\":124}");
	osb_result_free(r);
}
END_TEST

START_TEST(test_json_error_with_stage_exact)
{
	osb_result *r = result_new();

	r->has_error = true;
	osb_err_set(&r->error, OSB_E_POLICY, 0, "policy",
	            "p.policy:3:1: unknown directive \"wirte\" (did you mean \"write\"?)");
	r->hint = strdup("fix the policy file");
	json_expect(r, "{\"ok\":false,\"exit_code\":null,\"signal\":null,\"timed_out\":false,"
	            "\"error\":{\"class\":\"policy\",\"stage\":\"policy\",\"message\":"
	            "\"p.policy:3:1: unknown directive \\\"wirte\\\" (did you mean "
	            "\\\"write\\\"?)\",\"errno\":0},"
	            "\"stdout\":\"\",\"stderr\":\"\",\"truncated\":false,"
	            "\"stdout_bytes\":0,\"stderr_bytes\":0,\"duration_ms\":0,\"timings_us\":{\"setup\":null,\"bwrap\":null,\"init\":null,\"command\":null,\"teardown\":null},"
	            "\"policy_hash\":null,\"mode\":null,\"workspace_mode\":null,\"host_ids\":null,\"limits\":null,\"tmpfs_full\":null,\"hint\":\"fix the policy file\","
	            "\"status\":125}");
	osb_result_free(r);
}
END_TEST

START_TEST(test_json_exec_not_found_status_127)
{
	osb_result *r = result_new();

	r->has_error = true;
	osb_err_set(&r->error, OSB_E_SANDBOX, ENOENT, "exec",
	            "cannot execute \"nosuch\": No such file or directory");
	r->mode = strdup("userns");
	json_expect(r, "{\"ok\":false,\"exit_code\":null,\"signal\":null,\"timed_out\":false,"
	            "\"error\":{\"class\":\"sandbox\",\"stage\":\"exec\",\"message\":"
	            "\"cannot execute \\\"nosuch\\\": No such file or directory\",\"errno\":2},"
	            "\"stdout\":\"\",\"stderr\":\"\",\"truncated\":false,"
	            "\"stdout_bytes\":0,\"stderr_bytes\":0,\"duration_ms\":0,\"timings_us\":{\"setup\":null,\"bwrap\":null,\"init\":null,\"command\":null,\"teardown\":null},"
	            "\"policy_hash\":null,\"mode\":\"userns\",\"workspace_mode\":null,\"host_ids\":null,\"limits\":null,\"tmpfs_full\":null,\"hint\":null,\"status\":127}");
	osb_result_free(r);
}
END_TEST

/* The "stdout" member of R's JSON, quotes included. */
static char *json_stdout_member(const osb_result *r)
{
	char *js = osb_result_json(r), *start, *end, *member;

	ck_assert_ptr_nonnull(js);
	start = strstr(js, "\"stdout\":");
	end = strstr(js, ",\"stderr\":");
	ck_assert_ptr_nonnull(start);
	ck_assert_ptr_nonnull(end);
	start += strlen("\"stdout\":");
	member = strndup(start, (size_t)(end - start));
	osb_free(js);
	return member;
}

/* LIT is a string literal: its length includes embedded NULs. */
#define STDOUT_EXPECT(lit, want) stdout_expect((lit), sizeof(lit) - 1, (want))

static void stdout_expect(const char *data, size_t len, const char *want)
{
	osb_result *r = mk_exit(0);
	char *got;

	set_out(r, data, len);
	got = json_stdout_member(r);
	ck_assert_str_eq(got, want);
	free(got);
	osb_result_free(r);
}

START_TEST(test_json_control_chars_escaped)
{
	STDOUT_EXPECT("a\x01" "b\nc\td\x7f" "e", "\"a\\u0001b\\nc\\td\\u007fe\"");
	/* ESC and CSI (C1 U+009B as UTF-8) cannot reach a terminal raw. */
	STDOUT_EXPECT("\x1b[2J\xc2\x9b" "1m", "\"\\u001b[2J\\u009b1m\"");
	STDOUT_EXPECT("\r\b\f\x1f\"\\/", "\"\\r\\b\\f\\u001f\\\"\\\\/\"");
}
END_TEST

START_TEST(test_json_nul_bytes_escaped)
{
	STDOUT_EXPECT("a\0b\0", "\"a\\u0000b\\u0000\"");
}
END_TEST

/* What a terminal would not show as it is leaves utf8.c escaped: C0
 * controls, DEL, C1 controls (U+009B is CSI), bidirectional and invisible
 * characters and bytes that are not UTF-8, each byte as \ooo, a backslash
 * doubled; printable UTF-8 is kept. In JSON the same characters are \u
 * escapes, and invalid bytes are left to utf8_valid_dup. */
START_TEST(test_terminal_escapes_hostile_names)
{
	static const struct {
		const char *in, *want, *json;
	} cases[] = {
		{ "esc\x1b[2Jx", "esc\\033[2Jx", NULL },
		{ "c1\xc2\x9bx", "c1\\302\\233x", "c1\\u009bx" },
		{ "raw\x9bx", "raw\\233x", NULL },
		{ "bidi\xe2\x80\xaetxt", "bidi\\342\\200\\256txt", "bidi\\u202etxt" },
		{ "iso\xe2\x81\xa6x", "iso\\342\\201\\246x", "iso\\u2066x" },
		{ "bad\xffx", "bad\\377x", NULL },
		{ "del\x7fx", "del\\177x", "del\\u007fx" },
		{ "back\\slash", "back\\\\slash", NULL },
		{ "caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = utf8_escape_dup(cases[i].in), *js;

		ck_assert_str_eq(got, cases[i].want);
		free(got);
		if (!cases[i].json)
			continue;
		js = utf8_json_visible(cases[i].in);
		ck_assert_str_eq(js, cases[i].json);
		free(js);
	}
}
END_TEST

/* json-c's reading of DATA as a JSON string (invalid UTF-8 replaced,
 * then DEL and the C1 controls escaped): what the document held before it
 * was written in pieces. */
static char *reference_member(const char *data, size_t len)
{
	size_t vlen = 0;
	char *valid = utf8_valid_dup(data, len, &vlen), *buf = NULL;
	json_object *o = json_object_new_string_len(valid, (int)vlen);
	const char *js = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
	                                                   JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	for (const unsigned char *p = (const unsigned char *)js; *p; p++) {
		if (*p == 0x7f)
			fputs("\\u007f", f);
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			fprintf(f, "\\u%04x", *++p);
		else
			fputc(*p, f);
	}
	fclose(f);
	json_object_put(o);
	free(valid);
	return buf;
}

struct pieces {
	size_t n, max, total;
	int fail_at;   /* fail the call of this index, -1: never */
};

static int count_piece(void *ctx, const char *buf, size_t len)
{
	struct pieces *p = ctx;

	(void)buf;
	if ((int)p->n == p->fail_at)
		return 1;
	p->n++;
	p->total += len;
	if (len > p->max)
		p->max = len;
	return 0;
}

/* The document is written in pieces of at most 64 KiB, and is byte for
 * byte what json-c made of the whole: 300 KB of every byte value in a
 * scrambled order (multi-byte characters, invalid sequences and escapes
 * straddle the piece boundaries). A sink error ends it with that error. */
START_TEST(test_json_stream_pieces_match_whole_document)
{
	size_t len = 300000;
	char *data = malloc(len), *got, *want;
	osb_result *r = mk_exit(0);
	struct pieces p = { .fail_at = -1 };
	uint32_t x = 2463534242u;
	char *js;

	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		data[i] = (char)(i % 7 == 0 ? "\xe2\x82\xac"[i % 3] : (int)(x & 0xff));
	}
	set_out(r, data, len);
	got = json_stdout_member(r);
	want = reference_member(data, len);
	ck_assert_str_eq(got, want);
	js = osb_result_json(r);
	ck_assert_int_eq(osb_result_json_write(r, count_piece, &p), 0);
	ck_assert_uint_eq(p.total, strlen(js));
	ck_assert_uint_le(p.max, 65536);
	ck_assert_uint_gt(p.n, 3);
	p = (struct pieces){ .fail_at = 2 };
	ck_assert_int_eq(osb_result_json_write(r, count_piece, &p), -OSB_E_IO);
	ck_assert_uint_eq(p.n, 2);
	ck_assert_int_eq(osb_result_json_write(NULL, count_piece, &p), -OSB_E_USAGE);
	ck_assert_int_eq(osb_result_json_write(r, NULL, &p), -OSB_E_USAGE);
	osb_free(js);
	free(got);
	free(want);
	free(data);
	osb_result_free(r);
}
END_TEST

#define FFFD "\xef\xbf\xbd"

START_TEST(test_json_invalid_utf8_replaced)
{
	STDOUT_EXPECT("x\xffy", "\"x" FFFD "y\"");
	/* truncated 3-byte sequence, mid-string and at the end */
	STDOUT_EXPECT("a\xe2\x82" "b", "\"a" FFFD "b\"");
	STDOUT_EXPECT("a\xe2\x82", "\"a" FFFD "\"");
	/* overlong '/' : 0xc0 is never valid, 0xaf is then a lone continuation */
	STDOUT_EXPECT("\xc0\xaf", "\"" FFFD FFFD "\"");
	/* UTF-16 surrogate U+D800: 0xed may not be followed by 0xa0 */
	STDOUT_EXPECT("\xed\xa0\x80", "\"" FFFD FFFD FFFD "\"");
	/* above U+10FFFF */
	STDOUT_EXPECT("\xf4\x90\x80\x80", "\"" FFFD FFFD FFFD FFFD "\"");
	/* lone continuation byte */
	STDOUT_EXPECT("\x80z", "\"" FFFD "z\"");
}
END_TEST

START_TEST(test_json_valid_multibyte_kept)
{
	/* U+20AC, U+00E9, U+1F600, U+10FFFF, U+D7FF (just below the surrogates) */
	STDOUT_EXPECT("\xe2\x82\xac \xc3\xa9 \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf \xed\x9f\xbf",
	              "\"\xe2\x82\xac \xc3\xa9 \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf \xed\x9f\xbf\"");
}
END_TEST

START_TEST(test_json_error_message_invalid_utf8_replaced)
{
	osb_result *r = result_new();
	const char *want;
	char *js;

	r->has_error = true;
	osb_err_set(&r->error, OSB_E_PATH, ENOENT, "plan", "no such path /tmp/\xff\x01");
	js = osb_result_json(r);
	ck_assert_ptr_nonnull(js);
	want = "\"error\":{\"class\":\"path\",\"stage\":\"plan\",\"message\":"
	       "\"no such path /tmp/" FFFD "\\u0001\",\"errno\":2}";
	ck_assert_ptr_nonnull(strstr(js, want));
	osb_free(js);
	osb_result_free(r);
}
END_TEST

START_TEST(test_json_truncated_and_large_counts)
{
	osb_result *r = mk_exit(0);
	char *js;

	set_out(r, "ABCDEUVWXY", 10);
	r->out_bytes = 25;
	r->err_bytes = UINT64_C(5000000000);
	r->truncated = true;
	js = osb_result_json(r);
	ck_assert_ptr_nonnull(strstr(js, ",\"stdout\":\"ABCDEUVWXY\",\"stderr\":\"\","
	                                 "\"truncated\":true,\"stdout_bytes\":25,"
	                                 "\"stderr_bytes\":5000000000,"));
	osb_free(js);
	osb_result_free(r);
}
END_TEST

static Suite *result_suite(void)
{
	Suite *s = suite_create("result");
	TCase *tc = tcase_create("capture");

	tcase_add_loop_test(tc, test_capture_clip_keeps_head_and_tail_any_chunking, 0,
	                    (int)(sizeof(chunk_sizes) / sizeof(chunk_sizes[0])));
	tcase_add_test(tc, test_capture_clip_mixed_chunks_1_3_7);
	tcase_add_test(tc, test_capture_exactly_limit_not_truncated);
	tcase_add_test(tc, test_capture_one_over_limit_drops_middle_byte);
	tcase_add_test(tc, test_capture_odd_limit_head_gets_extra_byte);
	tcase_add_test(tc, test_capture_short_output_kept_whole);
	tcase_add_test(tc, test_capture_clip_keeps_whole_characters);
	tcase_add_test(tc, test_capture_limit_zero_counts_only);
	tcase_add_test(tc, test_capture_huge_limit_allocates_lazily);
	suite_add_tcase(s, tc);

	tc = tcase_create("status");
	tcase_add_test(tc, test_cli_status_table);
	tcase_add_test(tc, test_ok_only_for_known_zero_exit);
	tcase_add_test(tc, test_accessors_defaults_and_values);
	tcase_add_test(tc, test_code_names_stable);
	suite_add_tcase(s, tc);

	tc = tcase_create("json");
	tcase_add_test(tc, test_timings_from_stamps);
	tcase_add_test(tc, test_json_normal_exit_exact);
	tcase_add_test(tc, test_json_limits_oom_killed_exact);
	tcase_add_test(tc, test_json_nonzero_exit_not_ok);
	tcase_add_test(tc, test_json_signal_exact);
	tcase_add_test(tc, test_json_timeout_exact);
	tcase_add_test(tc, test_json_error_with_stage_exact);
	tcase_add_test(tc, test_json_exec_not_found_status_127);
	tcase_add_test(tc, test_json_control_chars_escaped);
	tcase_add_test(tc, test_json_nul_bytes_escaped);
	tcase_add_test(tc, test_json_stream_pieces_match_whole_document);
	tcase_add_test(tc, test_json_invalid_utf8_replaced);
	tcase_add_test(tc, test_json_valid_multibyte_kept);
	tcase_add_test(tc, test_json_error_message_invalid_utf8_replaced);
	tcase_add_test(tc, test_json_truncated_and_large_counts);
	tcase_add_test(tc, test_terminal_escapes_hostile_names);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(result_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

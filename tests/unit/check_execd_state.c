/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_execd_state.c — what a daemon reads back from the library instead of
 * keeping its own copy: a request read once into a policy and session
 * options (osb_request_load, lib/request-load.c), the sandbox's ids set by
 * call (osb_policy_set_ids), and the getters of a policy's identity mode and
 * ids and of a session's mode, last activity, idle time left and end reason
 * (lib/session.c). Real policies, real sessions.
 */
#include "osb-isolate.h"
#include "sandbox-main.h"

#include <check.h>
#include <dirent.h>
#include <signal.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef TEST_BUILDDIR
#error "TEST_BUILDDIR must name the build tree"
#endif

static char ws[PATH_MAX];

static void setup_ws(void)
{
	snprintf(ws, sizeof(ws), "/tmp/osb-execd-state.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(ws));
	ck_assert_int_eq(chmod(ws, 0777), 0);
}

static void teardown_ws(void)
{
	int r = rmdir(ws);

	ck_assert_msg(r == 0, "rmdir %s: %s", ws, strerror(errno));
}

static int64_t unix_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- osb_request_load ------------------------------------------------------- */

START_TEST(test_request_load_reads_profile_policy_and_idle_timeout_in_one_call)
{
	static const char *const offered[] = { "balanced", "strict", NULL };
	char json[PATH_MAX + 256], hash[OSB_POLICY_HASH_LEN], want[OSB_POLICY_HASH_LEN];
	osb_policy *p = NULL, *by_hand;
	osb_session_opts *o = NULL;
	osb_error err;
	uint32_t uid = 0, gid = 0;

	snprintf(json, sizeof(json),
	         "{\"profile\": \"strict\", \"workspace\": {\"path\": \"%s\", \"mode\": \"ro\"}, "
	         "\"uid\": 1500, \"gid\": 1600, \"idle_timeout\": \"5m\"}", ws);
	ck_assert_msg(osb_request_load(json, offered, NULL, &p, &o, &err) == 0, "%s", err.message);
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(osb_policy_ids(p, &uid, &gid), 0);
	ck_assert_uint_eq(uid, 1500);
	ck_assert_uint_eq(gid, 1600);
	/* The same policy as the three steps a daemon took before. */
	by_hand = osb_policy_load("strict", &err);
	ck_assert_ptr_nonnull(by_hand);
	ck_assert_int_eq(osb_policy_apply_json(by_hand, json, &err), 0);
	osb_policy_hash(p, hash);
	osb_policy_hash(by_hand, want);
	ck_assert_str_eq(hash, want);
	ck_assert_str_eq(osb_policy_file(p, 0), osb_policy_file(by_hand, 0));
	ck_assert_str_eq(osb_policy_workspace(p), ws);
	ck_assert_ptr_null(osb_policy_workspace(NULL));
	ck_assert_uint_eq(osb_session_opts_idle_timeout_ms(o), 300000);
	osb_policy_free(by_hand);
	osb_policy_free(p);
	osb_session_opts_free(o);
}
END_TEST

START_TEST(test_request_load_takes_the_first_offered_profile_when_none_is_named)
{
	static const char *const offered[] = { "balanced", "strict", NULL };
	osb_policy *p = NULL;
	osb_session_opts *o = NULL;
	osb_error err;
	const char *top;

	ck_assert_msg(osb_request_load("{}", offered, NULL, &p, &o, &err) == 0, "%s", err.message);
	top = osb_policy_file(p, 0);
	ck_assert_str_eq(top + strlen(top) - strlen("/balanced.policy"), "/balanced.policy");
	ck_assert_uint_eq(osb_session_opts_idle_timeout_ms(o), 0);
	osb_policy_free(p);
	osb_session_opts_free(o);
	/* Without a list, the request must name its profile. */
	ck_assert_int_eq(osb_request_load("{}", NULL, NULL, &p, &o, &err), -OSB_E_POLICY);
	ck_assert_str_eq(err.message, "the request names no \"profile\" and no default is offered");
	ck_assert_ptr_null(p);
	ck_assert_ptr_null(o);
}
END_TEST

START_TEST(test_request_load_refuses_profiles_not_offered_and_paths)
{
	static const char *const offered[] = { "strict", NULL };
	static const char *const bad[][2] = {
		{ "{\"profile\": \"/etc/passwd\"}",
		  "\"profile\": \"/etc/passwd\" is not offered (offered: strict)" },
		{ "{\"profile\": \"balanced\"}", "\"profile\": \"balanced\" is not offered (offered: strict)" },
		{ "{\"profile\": 3}", "\"profile\" must be a string, not a number" },
		{ "{\"profile\": \"strict\", \"network\": \"host\"}", NULL },
		{ "{\"profile\": \"strict\", \"idle_timeout\": \"0s\"}",
		  "\"idle_timeout\" must be greater than zero" },
	};
	osb_policy *p = (osb_policy *)1;
	osb_session_opts *o = (osb_session_opts *)1;
	osb_error err;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(osb_request_load(bad[i][0], offered, NULL, &p, &o, &err), -OSB_E_POLICY);
		ck_assert_str_eq(err.stage, "policy");
		if (bad[i][1])
			ck_assert_str_eq(err.message, bad[i][1]);
		else
			ck_assert_msg(strstr(err.message, "\"network\": the host network is refused") == err.message,
			              "%s", err.message);
		ck_assert_ptr_null(p);
		ck_assert_ptr_null(o);
	}
	/* Without a list any policy name is taken, never a path. */
	ck_assert_int_eq(osb_request_load("{\"profile\": \"../strict\"}", NULL, NULL, &p, &o, &err),
	                 -OSB_E_POLICY);
	ck_assert_str_eq(err.message, "\"profile\": \"../strict\" is not a policy name (a name without "
	                 "\"/\", as osb_policy_load takes it)");
	ck_assert_int_eq(osb_request_load(NULL, NULL, NULL, &p, &o, &err), -OSB_E_USAGE);
	ck_assert_int_eq(osb_request_load("{}", offered, NULL, NULL, &o, &err), -OSB_E_USAGE);
}
END_TEST

START_TEST(test_request_load_applies_the_configured_workspace_roots)
{
	static const char *const offered[] = { "strict", NULL };
	osb_config *cfg = osb_config_new();
	osb_policy *p = NULL;
	osb_session_opts *o = NULL;
	osb_error err;
	char json[PATH_MAX + 64];

	ck_assert_int_eq(osb_config_add_workspace_root(cfg, "/srv/none-here", &err), 0);
	snprintf(json, sizeof(json), "{\"workspace\": {\"path\": \"%s\"}}", ws);
	ck_assert_int_eq(osb_request_load(json, offered, cfg, &p, &o, &err), -OSB_E_POLICY);
	ck_assert_msg(strstr(err.message, "not beneath a configured workspace root") != NULL, "%s",
	              err.message);
	ck_assert_int_eq(osb_config_add_workspace_root(cfg, "/tmp", &err), 0);
	ck_assert_msg(osb_request_load(json, offered, cfg, &p, &o, &err) == 0, "%s", err.message);
	osb_policy_free(p);
	osb_session_opts_free(o);
	osb_config_free(cfg);
}
END_TEST

/* ---- ids and identity mode ------------------------------------------------------ */

START_TEST(test_policy_set_ids_changes_the_sandbox_ids_and_refuses_zero)
{
	osb_policy *p = osb_policy_load("strict", NULL);
	const char *argv[] = { "id", "-u", NULL };
	osb_exec *e = osb_exec_new(argv, NULL);
	osb_result *res = NULL;
	osb_error err;
	uint32_t uid, gid;
	const char *out;
	char *explained;

	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(osb_policy_ids(p, &uid, &gid), 0);
	ck_assert_uint_eq(uid, 1000);
	ck_assert_uint_eq(gid, 1000);
	ck_assert_int_eq(osb_policy_set_ids(p, 0, 1700, &err), -OSB_E_POLICY);
	ck_assert_str_eq(err.message, "the sandbox's uid and gid must be non-zero (1 to 4294967294), "
	                 "not 0 and 1700");
	ck_assert_int_eq(osb_policy_set_ids(p, 1700, UINT32_MAX, &err), -OSB_E_POLICY);
	ck_assert_int_eq(osb_policy_ids(p, &uid, &gid), 0);
	ck_assert_uint_eq(uid, 1000);
	ck_assert_int_eq(osb_policy_set_ids(p, 1700, 1800, &err), 0);
	ck_assert_int_eq(osb_policy_ids(p, &uid, &gid), 0);
	ck_assert_uint_eq(uid, 1700);
	ck_assert_uint_eq(gid, 1800);
	explained = osb_policy_explain(p, 0);
	ck_assert_ptr_nonnull(strstr(explained, "user sandbox 1700 1800"));
	osb_free(explained);
	ck_assert_int_eq(osb_policy_set_workspace(p, ws, &err), 0);
	osb_exec_set_capture(e, 1);
	ck_assert_msg(osb_run(p, e, &res, &err) == 0, "%s", err.message);
	out = osb_result_stdout(res, NULL);
	ck_assert_str_eq(out, "1700\n");
	ck_assert_int_eq(osb_policy_set_ids(NULL, 1, 1, &err), -OSB_E_USAGE);
	ck_assert_int_eq(osb_policy_ids(NULL, &uid, &gid), -OSB_E_USAGE);
	osb_result_free(res);
	osb_exec_free(e);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_identity_mode_of_policy_and_session)
{
	static const char text[] = "osb-policy 1\ninclude strict.policy\nidentity userns\n";
	char name[PATH_MAX];
	osb_policy *p = osb_policy_load("strict", NULL), *q;
	osb_session *s;
	osb_error err;
	int mode;

	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(osb_policy_identity_mode(p), OSB_IDENTITY_AUTO);
	snprintf(name, sizeof(name), "%s/policy/x.policy", TEST_SRCDIR);
	q = osb_policy_parse(text, sizeof(text) - 1, name, &err);
	ck_assert_msg(q != NULL, "%s", err.message);
	ck_assert_int_eq(osb_policy_identity_mode(q), OSB_IDENTITY_USERNS);
	ck_assert_int_eq(osb_policy_identity_mode(NULL), -OSB_E_USAGE);
	ck_assert_str_eq(osb_identity_mode_name(OSB_IDENTITY_ROOT), "root");
	ck_assert_str_eq(osb_identity_mode_name(OSB_IDENTITY_AUTO), "auto");
	ck_assert_ptr_null(osb_identity_mode_name(7));
	ck_assert_int_eq(osb_policy_set_workspace(p, ws, &err), 0);
	s = osb_session_start(p, &err);
	ck_assert_msg(s != NULL, "%s", err.message);
	/* The mode the session really uses: never "auto". */
	mode = osb_session_identity_mode(s);
	ck_assert_msg(mode == OSB_IDENTITY_USERNS || mode == OSB_IDENTITY_ROOT, "mode %d", mode);
	if (geteuid() != 0)
		ck_assert_int_eq(mode, OSB_IDENTITY_USERNS);
	ck_assert_int_eq(osb_session_identity_mode(NULL), -OSB_E_USAGE);
	osb_session_free(s);
	osb_policy_free(q);
	osb_policy_free(p);
}
END_TEST

/* ---- a session's activity, idle time and end ------------------------------------ */

static osb_session *start_idle(uint64_t idle_ms)
{
	osb_policy *p = osb_policy_load("strict", NULL);
	osb_session_opts *o = osb_session_opts_new();
	osb_session *s;
	osb_error err;

	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(osb_policy_set_workspace(p, ws, &err), 0);
	ck_assert_int_eq(osb_session_opts_set_idle_timeout_ms(o, idle_ms), 0);
	s = osb_session_start_opts(p, o, &err);
	ck_assert_msg(s != NULL, "%s", err.message);
	osb_session_opts_free(o);
	osb_policy_free(p);
	return s;
}

static void run_sh(osb_session *s, const char *script)
{
	const char *argv[] = { "sh", "-c", script, NULL };
	osb_exec *e = osb_exec_new(argv, NULL);
	osb_result *res = NULL;
	osb_error err;

	ck_assert_msg(osb_session_run(s, e, &res, &err) == 0, "%s", err.message);
	ck_assert_int_eq(osb_result_exit_code(res), 0);
	osb_result_free(res);
	osb_exec_free(e);
}

START_TEST(test_session_last_activity_follows_commands)
{
	int64_t before = unix_ms(), at = 0, later = 0;
	osb_session *s = start_idle(0);

	ck_assert_int_eq(osb_session_last_activity(s, &at), 0);
	ck_assert_int_ge(at, before);
	ck_assert_int_le(at, unix_ms());
	usleep(300 * 1000);
	run_sh(s, "sleep 0.2");
	ck_assert_int_eq(osb_session_last_activity(s, &later), 0);
	/* The command's end, not its start, nor the session's. */
	ck_assert_int_ge(later, at + 450);
	ck_assert_int_le(later, unix_ms());
	ck_assert_int_eq(osb_session_last_activity(NULL, &at), -OSB_E_USAGE);
	osb_session_free(s);
}
END_TEST

START_TEST(test_session_idle_remaining_counts_down_and_stops_while_a_command_runs)
{
	osb_session *s = start_idle(3000), *forever;
	const char *argv[] = { "sleep", "1", NULL };
	osb_exec *e = osb_exec_new(argv, NULL);
	osb_proc *pr = NULL;
	osb_status st;
	osb_error err;
	uint64_t left = 0;

	ck_assert_int_eq(osb_session_idle_remaining_ms(s, &left), 0);
	ck_assert_uint_le(left, 3000);
	ck_assert_uint_ge(left, 2000);
	usleep(800 * 1000);
	ck_assert_int_eq(osb_session_idle_remaining_ms(s, &left), 0);
	ck_assert_uint_le(left, 2200);
	ck_assert_int_eq(osb_session_spawn(s, e, &pr, &err), 0);
	/* A running command stops the count: the whole timeout is left. */
	ck_assert_int_eq(osb_session_idle_remaining_ms(s, &left), 0);
	ck_assert_uint_eq(left, 3000);
	ck_assert_int_eq(osb_proc_wait(pr, -1, &st), 0);
	ck_assert_int_eq(osb_session_idle_remaining_ms(s, &left), 0);
	ck_assert_uint_le(left, 3000);
	ck_assert_uint_ge(left, 2500);
	osb_proc_free(pr);
	osb_exec_free(e);
	osb_session_free(s);
	/* No idle timeout: 1, and UINT64_MAX. */
	forever = start_idle(0);
	ck_assert_int_eq(osb_session_idle_remaining_ms(forever, &left), 1);
	ck_assert_uint_eq(left, UINT64_MAX);
	ck_assert_int_eq(osb_session_idle_remaining_ms(NULL, &left), -OSB_E_USAGE);
	osb_session_free(forever);
}
END_TEST

/* The parent pid of PID, from /proc/PID/stat, and its name into COMM. */
static pid_t parent_of(pid_t pid, char *comm, size_t size)
{
	char path[64], buf[512], *open, *close;
	FILE *f;
	size_t n;
	int ppid = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	open = strchr(buf, '(');
	close = strrchr(buf, ')');
	if (!open || !close || sscanf(close + 1, " %*c %d", &ppid) != 1)
		return 0;
	snprintf(comm, size, "%.*s", (int)(close - open - 1), open + 1);
	return (pid_t)ppid;
}

static bool descends_from(pid_t pid, pid_t top)
{
	char comm[64];

	for (int depth = 0; pid > 1 && depth < 64; depth++) {
		if (pid == top)
			return true;
		pid = parent_of(pid, comm, sizeof(comm));
	}
	return false;
}

/* SIGKILL every process below TOP named NAME; how many. */
static int kill_descendants_named(pid_t top, const char *name)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		pid_t pid = (pid_t)atoi(de->d_name);
		char comm[64] = "";

		if (pid <= 1 || pid == top || parent_of(pid, comm, sizeof(comm)) == 0 ||
		    strcmp(comm, name) != 0 || !descends_from(pid, top))
			continue;
		if (kill(pid, SIGKILL) == 0)
			n++;
	}
	closedir(d);
	return n;
}

/* One session at a time: sessions sharing a workspace leave the
 * placeholders of its read-only paths to the last one (lib/binds.c). */
START_TEST(test_session_end_reason_running_idle_destroyed_lost)
{
	osb_session *s = start_idle(300);
	struct pollfd pfd = { .fd = osb_session_fd(s), .events = POLLIN };
	osb_error err;
	uint64_t left;

	ck_assert_int_eq(osb_session_end_reason(s), OSB_SESSION_RUNNING);
	ck_assert_int_eq(poll(&pfd, 1, 10000), 1);
	ck_assert_int_eq(osb_session_end_reason(s), OSB_SESSION_END_IDLE);
	ck_assert_int_eq(osb_session_idle_remaining_ms(s, &left), 0);
	ck_assert_uint_eq(left, 0);
	osb_session_free(s);
	s = start_idle(0);
	ck_assert_int_eq(osb_session_end_reason(s), OSB_SESSION_RUNNING);
	ck_assert_int_eq(osb_session_destroy(s, &err), 0);
	ck_assert_int_eq(osb_session_end_reason(s), OSB_SESSION_END_DESTROYED);
	osb_session_free(s);
	/* A sandbox killed from outside: bwrap gets SIGKILL (its pid 1 dies
	 * with it). */
	s = start_idle(0);
	run_sh(s, "true");
	ck_assert_int_ge(kill_descendants_named(getpid(), "bwrap"), 1);
	pfd.fd = osb_session_fd(s);
	ck_assert_int_eq(poll(&pfd, 1, 10000), 1);
	ck_assert_int_eq(osb_session_end_reason(s), OSB_SESSION_END_LOST);
	ck_assert_str_eq(osb_session_end_name(OSB_SESSION_END_IDLE), "idle");
	ck_assert_str_eq(osb_session_end_name(OSB_SESSION_RUNNING), "running");
	ck_assert_str_eq(osb_session_end_name(OSB_SESSION_END_DESTROYED), "destroyed");
	ck_assert_str_eq(osb_session_end_name(OSB_SESSION_END_LOST), "lost");
	ck_assert_str_eq(osb_session_end_name(OSB_SESSION_END_BROKEN), "broken");
	ck_assert_ptr_null(osb_session_end_name(42));
	ck_assert_int_eq(osb_session_end_reason(NULL), -OSB_E_USAGE);
	osb_session_free(s);
}
END_TEST


/* ---- OSEP-0013's spelling ---------------------------------------------------------- */

static void hash_of(const char *json, char out[OSB_POLICY_HASH_LEN], uint64_t *idle)
{
	static const char *const offered[] = { "balanced", NULL };
	osb_policy *p = NULL;
	osb_session_opts *o = NULL;
	osb_error err;

	ck_assert_msg(osb_request_load(json, offered, NULL, &p, &o, &err) == 0, "%s: %s", json,
	              err.message);
	osb_policy_hash(p, out);
	*idle = osb_session_opts_idle_timeout_ms(o);
	osb_policy_free(p);
	osb_session_opts_free(o);
}

START_TEST(test_osep_keys_read_as_the_native_ones)
{
	static const char *const pairs[][2] = {
		{ "{\"share_net\": false}", "{\"network\": \"none\"}" },
		{ "{\"env_passthrough\": {\"mode\": \"allowlist\", \"keys\": [\"LANG\", \"TZ\"]}}",
		  "{\"env\": {\"mode\": \"clear\", \"pass\": [\"LANG\", \"TZ\"]}}" },
		{ "{\"env_passthrough\": {\"mode\": \"none\"}}", "{\"env\": {\"mode\": \"clear\"}}" },
		{ "{\"env_passthrough\": {\"keys\": [\"LANG\"]}}", "{\"env\": {\"pass\": [\"LANG\"]}}" },
		{ "{\"idle_timeout_seconds\": 90}", "{\"idle_timeout\": \"90s\"}" },
	};
	char a[OSB_POLICY_HASH_LEN], b[OSB_POLICY_HASH_LEN];
	uint64_t ia, ib;

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		hash_of(pairs[i][0], a, &ia);
		hash_of(pairs[i][1], b, &ib);
		ck_assert_str_eq(a, b);
		ck_assert_uint_eq(ia, ib);
	}
	hash_of("{\"idle_timeout_seconds\": 90}", a, &ia);
	ck_assert_uint_eq(ia, 90000);
}
END_TEST

START_TEST(test_osep_keys_are_refused_as_the_native_ones_and_never_both)
{
	static const char *const bad[][2] = {
		{ "{\"share_net\": \"yes\"}", "\"share_net\" must be a boolean" },
		{ "{\"share_net\": true, \"network\": \"none\"}",
		  "\"share_net\" and \"network\" ask for the same thing; give one of them" },
		{ "{\"env_passthrough\": {\"mode\": \"none\", \"keys\": [\"A\"]}}",
		  "\"env_passthrough\": mode \"none\" passes no keys; use \"allowlist\"" },
		{ "{\"env_passthrough\": {\"mode\": \"some\"}}",
		  "\"env_passthrough.mode\": unknown value \"some\" (expected \"none\", \"allowlist\" or \"all\")" },
		{ "{\"env_passthrough\": {\"keys\": [\"A\"], \"extra\": 1}}",
		  "unknown key \"extra\" in \"env_passthrough\" (\"mode\", \"keys\")" },
		{ "{\"env_passthrough\": {\"keys\": [\"GITHUB_TOKEN\"]}}", NULL },
		{ "{\"idle_timeout_seconds\": \"90\"}", "\"idle_timeout_seconds\" must be an integer" },
		{ "{\"idle_timeout_seconds\": 0}",
		  "\"idle_timeout_seconds\": 0 is out of range (1 to 3153600000)" },
		{ "{\"idle_timeout_seconds\": 5, \"idle_timeout\": \"5s\"}",
		  "\"idle_timeout_seconds\" and \"idle_timeout\" ask for the same thing; give one of them" },
	};
	osb_policy *p = osb_policy_load("strict", NULL);
	osb_session_opts *o = osb_session_opts_new();
	osb_error err;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(osb_policy_apply_json(p, bad[i][0], &err), -OSB_E_POLICY);
		if (bad[i][1])
			ck_assert_str_eq(err.message, bad[i][1]);
		else
			ck_assert_msg(strstr(err.message, "matches \"env deny *_TOKEN\"") != NULL, "%s",
			              err.message);
		ck_assert_int_eq(osb_session_opts_apply_json(o, bad[i][0], &err), bad[i][1] ? -OSB_E_POLICY : 0);
	}
	/* The host network stays the policy's to grant. */
	ck_assert_int_eq(osb_policy_apply_json(p, "{\"share_net\": true}", &err), -OSB_E_POLICY);
	ck_assert_msg(strstr(err.message, "the host network is refused") != NULL, "%s", err.message);
	osb_session_opts_free(o);
	osb_policy_free(p);
}
END_TEST

static Suite *execd_state_suite(void)
{
	Suite *su = suite_create("execd_state");
	TCase *tc = tcase_create("execd_state");

	tcase_add_checked_fixture(tc, setup_ws, teardown_ws);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_request_load_reads_profile_policy_and_idle_timeout_in_one_call);
	tcase_add_test(tc, test_request_load_takes_the_first_offered_profile_when_none_is_named);
	tcase_add_test(tc, test_request_load_refuses_profiles_not_offered_and_paths);
	tcase_add_test(tc, test_request_load_applies_the_configured_workspace_roots);
	tcase_add_test(tc, test_policy_set_ids_changes_the_sandbox_ids_and_refuses_zero);
	tcase_add_test(tc, test_osep_keys_read_as_the_native_ones);
	tcase_add_test(tc, test_osep_keys_are_refused_as_the_native_ones_and_never_both);
	suite_add_tcase(su, tc);

	/* Cases that start sessions, and time them: left out under valgrind
	 * (tools/valgrind.sh), whose slowness their clocks cannot tell from a
	 * hang. */
	tc = tcase_create("execd_state_sessions");
	tcase_set_tags(tc, "sandbox");
	tcase_add_checked_fixture(tc, setup_ws, teardown_ws);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_identity_mode_of_policy_and_session);
	tcase_add_test(tc, test_session_last_activity_follows_commands);
	tcase_add_test(tc, test_session_idle_remaining_counts_down_and_stops_while_a_command_runs);
	tcase_add_test(tc, test_session_end_reason_running_idle_destroyed_lost);
	suite_add_tcase(su, tc);
	return su;
}

int main(void)
{
	return test_sandbox_suite_main(execd_state_suite);
}

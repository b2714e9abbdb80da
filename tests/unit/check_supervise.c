/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_supervise.c — how bwrap's own words become a launch's error
 * (lib/supervise.c, bwrap_failure): quoted as they are, and, for the one
 * message that means a process limit, with what to do about it. The texts
 * are bwrap's exactly (bubblewrap 0.8, run under RLIMIT_NPROC 1: "bwrap:
 * Creating new namespace failed: Resource temporarily unavailable").
 */
#include "supervise.h"
#include "../skip.h"

#include <check.h>
#include <grp.h>
#include <sys/resource.h>
#include <sys/wait.h>

#define CLONE_EAGAIN "bwrap: Creating new namespace failed: Resource temporarily unavailable"

static void fail_with(const char *diag, osb_error *err)
{
	memset(err, 0, sizeof(*err));
	bwrap_failure(diag, W_EXITCODE(1, 0), err);
	ck_assert_int_eq(err->code, OSB_E_SANDBOX);
	ck_assert_str_eq(err->stage, "bwrap");
}

/* A caller bound by RLIMIT_NPROC (not root, a finite limit) is told to
 * raise it or stop processes. Root is exempt from that limit, so a root
 * caller's case runs as nobody. */
START_TEST(test_namespace_clone_at_the_process_limit_says_raise_ulimit_u)
{
	struct rlimit rl;
	osb_error err;

	if (geteuid() == 0) {
		ck_assert_int_eq(setgroups(0, NULL), 0);
		ck_assert_int_eq(setresgid(65534, 65534, 65534), 0);
		ck_assert_int_eq(setresuid(65534, 65534, 65534), 0);
	}
	ck_assert_int_eq(getrlimit(RLIMIT_NPROC, &rl), 0);
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 100000) {
		rl.rlim_cur = 100000;
		ck_assert_int_eq(setrlimit(RLIMIT_NPROC, &rl), 0);
	}
	fail_with(CLONE_EAGAIN, &err);
	ck_assert_str_eq(err.message, "sandbox setup failed: " CLONE_EAGAIN " (the process limit, "
	                 "ulimit -u, is reached: raise it or stop other processes)");
	ck_assert_int_eq(err.sys_errno, EAGAIN);
}
END_TEST

/* Root is not bound by RLIMIT_NPROC: the limit it met is another one. */
START_TEST(test_namespace_clone_at_a_limit_root_meets_names_pids_max)
{
	osb_error err;

	if (!osb_test_have("root", geteuid() == 0, "needs root (run make check as root; CI does)"))
		return;
	fail_with(CLONE_EAGAIN, &err);
	ck_assert_str_eq(err.message, "sandbox setup failed: " CLONE_EAGAIN " (a process limit, "
	                 "such as the cgroup's pids.max, is reached: stop other processes)");
	ck_assert_int_eq(err.sys_errno, EAGAIN);
}
END_TEST

/* Any other message is quoted as it is, with no hint: the same failure
 * for another errno, another step that met EAGAIN, more text. */
START_TEST(test_other_bwrap_messages_get_no_process_limit_hint)
{
	static const char *const others[] = {
		"bwrap: Creating new namespace failed: Operation not permitted",
		"bwrap: Can't mount proc on /newroot/proc: Resource temporarily unavailable",
		CLONE_EAGAIN " (again)",
	};
	char want[4096];
	osb_error err;

	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		fail_with(others[i], &err);
		snprintf(want, sizeof(want), "sandbox setup failed: %s", others[i]);
		ck_assert_str_eq(err.message, want);
		ck_assert_int_eq(err.sys_errno, 0);
	}
	fail_with(NULL, &err);
	ck_assert_str_eq(err.message, "sandbox setup failed before the command started (bwrap "
	                 "status 1)");
}
END_TEST

static Suite *supervise_suite(void)
{
	Suite *s = suite_create("supervise");
	TCase *tc = tcase_create("bwrap_failure");

	tcase_add_test(tc, test_namespace_clone_at_the_process_limit_says_raise_ulimit_u);
	tcase_add_test(tc, test_namespace_clone_at_a_limit_root_meets_names_pids_max);
	tcase_add_test(tc, test_other_bwrap_messages_get_no_process_limit_hint);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(supervise_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

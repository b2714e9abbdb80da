/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* sandbox-main.h — the main() of a unit test program every case of which
 * starts sandboxes from the build tree (check_execd_api, check_execd_state,
 * check_session_owner, check_session_services, check_shell_state): this
 * build's init and the source tree's policies, the programs handed to the
 * library as osb-isolate(1) hands them, exit 77 (skipped) when this user
 * cannot start a sandbox at all, then the suite. */
#ifndef OSB_TESTS_UNIT_SANDBOX_MAIN_H
#define OSB_TESTS_UNIT_SANDBOX_MAIN_H

#include "probe.h"

#include <check.h>
#include <stdlib.h>

static inline int test_sandbox_suite_main(Suite *(*make_suite)(void))
{
	SRunner *sr;
	int failed;

	setenv("OSB_ISOLATE_INIT", TEST_BUILDDIR "/helper/osb-isolate-init", 1);
	setenv("OSB_ISOLATE_POLICY_DIR", TEST_SRCDIR "/policy", 1);
	test_use_env_programs();
	if (!test_can_sandbox())
		return 77;
	sr = srunner_create(make_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* probe.h — what this host gives the unit tests, probed before a test relies
 * on it: root, user namespaces, Landlock, a sandbox at all. Each answer goes
 * through osb_test_have() (tests/skip.h): a missing feature prints
 * "SKIP: <feature>: <reason>" and the test skips, unless OSB_REQUIRE names it.
 *
 * The user-namespace and Landlock answers are the library's own capabilities
 * probe (osb_caps_probe, which starts real sandboxes), so a test skips for
 * exactly the reason `osb-isolate capabilities` gives. The probe runs in a
 * child process, once per test program: the caller's probe cache and probe
 * count (which tests/unit/check_caps.c asserts on) stay untouched. */
#ifndef OSB_TESTS_UNIT_PROBE_H
#define OSB_TESTS_UNIT_PROBE_H

#include "../skip.h"
#include "osb-isolate.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct test_host {
	bool probed;
	bool userns, landlock;
	char userns_why[512], landlock_why[512];
} test_host;

static test_host test_host_facts;

static inline void test_caps_item(const osb_caps *c, const char *id, bool *ok, char *why,
                                  size_t size)
{
	int i = osb_caps_find(c, id);

	*ok = i >= 0 && osb_caps_status(c, (size_t)i) == OSB_CAPS_OK;
	snprintf(why, size, "%s", i >= 0 ? osb_caps_reason(c, (size_t)i) : "no such probe item");
}

/* The probe, in a child that sends its findings back through a pipe. */
static inline const test_host *test_probe_host(void)
{
	test_host *h = &test_host_facts;
	int p[2];
	pid_t pid;

	if (h->probed)
		return h;
	h->probed = true;
	snprintf(h->userns_why, sizeof(h->userns_why), "the capabilities probe did not answer");
	snprintf(h->landlock_why, sizeof(h->landlock_why), "the capabilities probe did not answer");
	if (pipe2(p, O_CLOEXEC) < 0 || (pid = fork()) < 0)
		return h;
	if (pid == 0) {
		test_host r = { .probed = true };
		osb_caps *c = NULL;
		osb_error err = { 0 };

		if (osb_caps_probe(&c, 0, &err) == 0) {
			test_caps_item(c, "user_namespace", &r.userns, r.userns_why, sizeof(r.userns_why));
			test_caps_item(c, "landlock", &r.landlock, r.landlock_why, sizeof(r.landlock_why));
			osb_caps_free(c);
		} else {
			snprintf(r.userns_why, sizeof(r.userns_why), "the capabilities probe failed: %.400s",
			         err.message);
			snprintf(r.landlock_why, sizeof(r.landlock_why), "%s", r.userns_why);
		}
		_exit(write(p[1], &r, sizeof(r)) == (ssize_t)sizeof(r) ? 0 : 1);
	}
	close(p[1]);
	{
		test_host r;

		if (read(p[0], &r, sizeof(r)) == (ssize_t)sizeof(r))
			*h = r;
	}
	close(p[0]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return h;
}

static inline bool test_have_root(void)
{
	return osb_test_have("root", geteuid() == 0, "needs root (run make check as root; CI does)");
}

static inline bool test_have_userns(void)
{
	const test_host *h = test_probe_host();

	return osb_test_have("userns", h->userns, h->userns_why);
}

static inline bool test_have_landlock(void)
{
	const test_host *h = test_probe_host();

	return osb_test_have("landlock", h->landlock, h->landlock_why);
}

/* Hand the library the programs OSB_ISOLATE_BWRAP and OSB_ISOLATE_INIT name,
 * as osb-isolate(1) does: the library reads no environment for them. */
static inline void test_use_env_programs(void)
{
	static const struct { osb_program which; const char *var; } progs[] = {
		{ OSB_PROGRAM_BWRAP, "OSB_ISOLATE_BWRAP" }, { OSB_PROGRAM_INIT, "OSB_ISOLATE_INIT" },
	};
	osb_error err;

	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++)
		if (osb_set_program(progs[i].which, getenv(progs[i].var), progs[i].var, &err) < 0) {
			fprintf(stderr, "%s\n", err.message);
			abort();
		}
}

/* Can this user start a sandbox under the shipped policies (identity auto)?
 * Root can without user namespaces (root mode); anyone else needs them. */
static inline bool test_can_sandbox(void)
{
	return geteuid() == 0 || test_have_userns();
}

/* For a main() whose sandbox cases carry the Check tag "sandbox": leave them
 * out (CK_EXCLUDE_TAGS, which srunner_run_all reads) when this user cannot
 * start a sandbox. */
static inline void test_exclude_sandbox_cases_unless_possible(void)
{
	const char *old = getenv("CK_EXCLUDE_TAGS");
	char tags[256];

	if (test_can_sandbox())
		return;
	snprintf(tags, sizeof(tags), "%s%ssandbox", old ? old : "", old && *old ? " " : "");
	setenv("CK_EXCLUDE_TAGS", tags, 1);
}

#endif

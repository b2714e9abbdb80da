/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_caps.c — unit tests for lib/caps.c: the capabilities probe.
 *
 * On Debian 12 run as root with user namespaces and Landlock working, the
 * real probe must find every item a run needs ok and both identity modes
 * usable; a test that needs root, user namespaces or Landlock probes first
 * (probe.h) and skips, saying why, on a host without them. Failures are simulated the way a host would produce them: bwrap
 * missing (OSB_ISOLATE_BWRAP), a bwrap whose --help lacks --bind-fd (the
 * shim in tests/integration), and user namespaces (or the probe's own wait
 * for its sandboxes) refused by a seccomp filter this test process installs
 * on itself (Check runs every test in a forked child, so the filter and the
 * per-process cache die with the test).
 * Causes the host cannot produce (a sysctl set to 0, AppArmor) are driven
 * through the pure attribution function with the facts the probe would see.
 */
#include "caps.h"
#include "caps-judge.h"
#include "probe.h"
#include "fd-count.h"
#include "fork-hint.h"
#include "filter.h"
#include "helpcache.h"
#include "sha256.h"

#include <check.h>
#include <dirent.h>
#include <glob.h>
#include <grp.h>
#include <json-c/json.h>
#include <linux/landlock.h>
#include <pthread.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#ifndef TEST_SRCDIR
#error "build with -DTEST_SRCDIR=\"/path/to/source\""
#endif

static const char *const expected_ids[] = {
	"bwrap", "bwrap_options", "bwrap_bind_fd", "bwrap_disable_userns", "user_namespace",
	"net_namespace", "pid_namespace", "seccomp", "nested", "landlock", "cgroup", "cgroup_limits",
	"overlayfs", "root", "overlay", "diff_supported", "commit_supported", "persist",
	"network_allowlist", "proc_cover",
};
#define N_IDS (sizeof(expected_ids) / sizeof(expected_ids[0]))

static void setup(void)
{
	setenv("OSB_ISOLATE_POLICY_DIR", TEST_SRCDIR "/policy", 1);
	unsetenv("OSB_ISOLATE_BWRAP");
}

/* The bwrap this process runs, as osb-isolate(1) names it from its
 * environment. */
static void set_bwrap(const char *path)
{
	osb_error err;

	ck_assert_int_eq(osb_set_program(OSB_PROGRAM_BWRAP, path, "OSB_ISOLATE_BWRAP", &err), 0);
}

static osb_caps *probe(unsigned flags)
{
	osb_caps *c = NULL;
	osb_error err = { 0 };

	ck_assert_msg(osb_caps_probe(&c, flags, &err) == 0, "probe failed: %s", err.message);
	ck_assert_ptr_nonnull(c);
	return c;
}

static int item(const osb_caps *c, const char *id)
{
	int i = osb_caps_find(c, id);

	ck_assert_msg(i >= 0, "no item %s", id);
	return i;
}

/* The launch's gate, with this host's facts as a launch gathers them. */
static int check_policy(const osb_policy *p, osb_error *err)
{
	host_facts h;
	int r = host_facts_now(&h, NULL, err);

	if (r == 0)
		r = caps_check_policy(p, &h, err);
	host_facts_free(&h);
	return r;
}

/* The identity mode P runs in here (host_mode). */
static enum id_mode mode_here(const osb_policy *p)
{
	host_facts h;
	osb_error err;
	enum id_mode m;

	ck_assert_int_eq(host_facts_now(&h, NULL, &err), 0);
	m = host_mode(p, &h);
	host_facts_free(&h);
	return m;
}

static osb_policy *policy(const char *text)
{
	osb_error err = { 0 };
	osb_policy *p = osb_policy_parse(text, strlen(text), "t.policy", &err);

	ck_assert_msg(p != NULL, "policy: %s", err.message);
	return p;
}

/* ---- the real host ---------------------------------------------------------- */

START_TEST(test_items_have_stable_ids_in_fixed_order)
{
	osb_caps *c = probe(0);

	ck_assert_uint_eq(osb_caps_count(c), N_IDS);
	for (size_t i = 0; i < N_IDS; i++) {
		ck_assert_str_eq(osb_caps_id(c, i), expected_ids[i]);
		ck_assert_int_eq(osb_caps_find(c, expected_ids[i]), (int)i);
		ck_assert_ptr_nonnull(osb_caps_reason(c, i));
		/* A remedy exactly when the item is not ok. */
		ck_assert_int_eq(osb_caps_remedy(c, i) == NULL, osb_caps_status(c, i) == OSB_CAPS_OK);
	}
	ck_assert_int_eq(osb_caps_find(c, "no-such-item"), -OSB_E_USAGE);
	ck_assert_int_eq(osb_caps_find(c, NULL), -OSB_E_USAGE);
	ck_assert_int_eq(osb_caps_find(NULL, "bwrap"), -OSB_E_USAGE);
	ck_assert_ptr_null(osb_caps_id(c, N_IDS));
	ck_assert_int_eq(osb_caps_status(c, N_IDS), -1);
	osb_caps_free(c);
}
END_TEST

/* "network_allowlist" names the proxy it judged, and is unavailable
 * without it; the network namespace is the probe's own fact. */
START_TEST(test_network_allowlist_names_the_proxy)
{
	osb_error err = { 0 };
	osb_caps *c;
	int i;

	ck_assert_int_eq(osb_set_program(OSB_PROGRAM_NETPROXY, "/nonexistent/osb-proxy", NULL, &err), 0);
	c = probe(OSB_CAPS_REFRESH);
	i = item(c, "network_allowlist");
	if (osb_caps_status(c, (size_t)item(c, "net_namespace")) != OSB_CAPS_OK) {
		ck_assert_int_eq(osb_caps_status(c, (size_t)i), OSB_CAPS_UNAVAILABLE);
		ck_assert_str_eq(osb_caps_reason(c, (size_t)i),
		                 "no identity mode creates a network namespace (see net_namespace)");
		osb_caps_free(c);
		ck_assert_int_eq(osb_set_program(OSB_PROGRAM_NETPROXY, NULL, NULL, &err), 0);
		return;
	}
	ck_assert_int_eq(osb_caps_status(c, (size_t)i), OSB_CAPS_UNAVAILABLE);
	ck_assert_str_eq(osb_caps_reason(c, (size_t)i), "the filtering proxy /nonexistent/osb-proxy "
	                 "is not an executable file without setuid or setgid");
	ck_assert_str_eq(osb_caps_remedy(c, (size_t)i), "install osb-isolate-netproxy (it comes with "
	                 "osb-isolate), or name it with OSB_ISOLATE_NETPROXY or "
	                 "osb_set_program(OSB_PROGRAM_NETPROXY)");
	osb_caps_free(c);
	ck_assert_int_eq(osb_set_program(OSB_PROGRAM_NETPROXY, "/bin/true", NULL, &err), 0);
	c = probe(OSB_CAPS_REFRESH);
	i = item(c, "network_allowlist");
	ck_assert_int_eq(osb_caps_status(c, (size_t)i), OSB_CAPS_OK);
	ck_assert_str_eq(osb_caps_reason(c, (size_t)i), "a network namespace with loopback, and the "
	                 "filtering proxy /bin/true (HTTP CONNECT and plain HTTP)");
	osb_caps_free(c);
	ck_assert_int_eq(osb_set_program(OSB_PROGRAM_NETPROXY, NULL, NULL, &err), 0);
}
END_TEST

START_TEST(test_host_as_root_runs_both_modes)
{
	if (!(test_have_root() && test_have_userns() && test_have_landlock()))
		return;
	static const char *const must_be_ok[] = {
		"bwrap", "bwrap_options", "bwrap_bind_fd", "bwrap_disable_userns", "user_namespace",
		"net_namespace", "pid_namespace", "seccomp", "nested", "landlock", "overlayfs", "root",
		"overlay", "proc_cover",
	};
	osb_caps *c = probe(0);
	char want[256];

	ck_assert_int_eq(geteuid(), 0);
	for (size_t i = 0; i < sizeof(must_be_ok) / sizeof(must_be_ok[0]); i++)
		ck_assert_msg(osb_caps_status(c, (size_t)item(c, must_be_ok[i])) == OSB_CAPS_OK,
		              "%s: %s", must_be_ok[i], osb_caps_reason(c, (size_t)item(c, must_be_ok[i])));
	ck_assert_str_eq(osb_caps_reason(c, (size_t)item(c, "user_namespace")),
	                 "bwrap created a user namespace and wrote its uid/gid map (uid 1000 inside)");
	ck_assert_str_eq(osb_caps_reason(c, (size_t)item(c, "net_namespace")),
	                 "bwrap created a network namespace with loopback up (in a user namespace)");
	ck_assert_str_eq(osb_caps_reason(c, (size_t)item(c, "pid_namespace")),
	                 "bwrap created a pid namespace with its own /proc (in a user namespace)");
	ck_assert_str_eq(osb_caps_reason(c, (size_t)item(c, "nested")),
	                 "not nested: no seccomp filter, the initial user namespace");
	ck_assert_str_eq(osb_caps_reason(c, (size_t)item(c, "overlay")),
	                 "userns mode: overlayfs mounts over a private tmpfs (userxattr); root mode: "
	                 "overlayfs mounts over a private tmpfs");
	ck_assert_str_eq(osb_caps_reason(c, (size_t)item(c, "proc_cover")),
	                 "userns mode: the init covers a fresh procfs (read-only binds, /dev/null "
	                 "and tmpfs masks); root mode: the init covers a fresh procfs (read-only "
	                 "binds, /dev/null and tmpfs masks)");
	ck_assert_int_eq(osb_caps_status(c, (size_t)item(c, "diff_supported")), OSB_CAPS_OK);
	ck_assert_str_eq(osb_caps_reason(c, (size_t)item(c, "diff_supported")),
	                 "an overlay session's changes are listed and exported as tar from its "
	                 "upper layer (osb_session_diff, osb_session_export; session diff)");
	ck_assert_int_eq(osb_caps_status(c, (size_t)item(c, "commit_supported")), OSB_CAPS_OK);
	ck_assert_str_eq(osb_caps_reason(c, (size_t)item(c, "commit_supported")),
	                 "an overlay session's changes are committed to the workspace through the "
	                 "safe file API, or discarded (osb_session_commit, osb_session_discard; "
	                 "session commit, session discard)");
	ck_assert_int_eq(osb_caps_status(c, (size_t)item(c, "persist")), OSB_CAPS_OK);
	ck_assert_str_eq(osb_caps_reason(c, (size_t)item(c, "persist")),
	                 "an overlay workspace's upper layer is kept in a caller's directory, where "
	                 "a later run or session resumes it (osb_policy_set_overlay_persist; "
	                 "--overlay-persist; a request's workspace.persist); its file system must "
	                 "take user.* (userns mode) or trusted.* (root mode) extended attributes, "
	                 "and a root caller's sandbox must run as pinned host ids");
	ck_assert_ptr_null(osb_caps_remedy(c, (size_t)item(c, "persist")));
	snprintf(want, sizeof(want), "%s: bubblewrap 0.8.0, not setuid", osb_caps_bwrap_path(c));
	ck_assert_str_eq(osb_caps_reason(c, (size_t)item(c, "bwrap")), want);
	ck_assert_str_eq(osb_caps_bwrap_version(c), "0.8.0");
	ck_assert_uint_eq(osb_caps_modes(c), OSB_CAPS_MODE_USERNS | OSB_CAPS_MODE_ROOT);
	ck_assert_int_eq(osb_caps_available(c), 1);
	osb_caps_free(c);
}
END_TEST

START_TEST(test_seccomp_hash_is_of_the_filter_a_run_loads)
{
	osb_caps *c = probe(0);
	osb_error err;
	uint8_t digest[SHA256_DIGEST_LEN], buf[65536];
	char hex[2 * SHA256_DIGEST_LEN + 1];
	struct stat st;
	int fd = -1;

	ck_assert_int_eq(seccomp_build_fd(NULL, &fd, &err), 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert_int_lt(st.st_size, (off_t)sizeof(buf));
	ck_assert_int_eq(pread(fd, buf, (size_t)st.st_size, 0), st.st_size);
	close(fd);
	sha256(buf, (size_t)st.st_size, digest);
	for (size_t i = 0; i < SHA256_DIGEST_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", digest[i]);
	ck_assert_str_eq(osb_caps_seccomp_sha256(c), hex);
	osb_caps_free(c);
}
END_TEST

START_TEST(test_landlock_abi_is_the_kernels)
{
	if (!test_have_landlock())
		return;
	osb_caps *c = probe(0);
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	char want[128];

	ck_assert_int_gt(abi, 0);
	ck_assert_int_eq(osb_caps_landlock_abi(c), (int)abi);
	snprintf(want, sizeof(want), "Landlock ABI %ld: a ruleset was enforced in a child process",
	         abi);
	ck_assert_str_eq(osb_caps_reason(c, (size_t)item(c, "landlock")), want);
	osb_caps_free(c);
}
END_TEST

/* ---- cache -------------------------------------------------------------------- */

START_TEST(test_second_call_is_served_from_the_cache)
{
	unsigned before = caps_probe_runs();
	osb_caps *a = probe(0), *b = probe(0);

	ck_assert_uint_eq(caps_probe_runs(), before + 1);
	ck_assert_ptr_eq(a, b);
	osb_caps_free(a);
	osb_caps_free(b);
}
END_TEST

/* The library decides which bwrap runs from its caller's calls, never from
 * the environment: OSB_ISOLATE_BWRAP is osb-isolate(1)'s to read. */
START_TEST(test_environment_names_no_program)
{
	osb_caps *c;

	setenv("OSB_ISOLATE_BWRAP", "/nonexistent/bwrap", 1);
	setenv("OSB_ISOLATE_INIT", "/nonexistent/init", 1);
	c = probe(0);
	ck_assert_int_eq(osb_caps_status(c, (size_t)item(c, "bwrap")), OSB_CAPS_OK);
	ck_assert_str_ne(osb_caps_bwrap_path(c), "/nonexistent/bwrap");
	osb_caps_free(c);
}
END_TEST

/* Naming another program makes the cached probe stale: the next call
 * probes again without OSB_CAPS_REFRESH, and so does the launch gate. */
START_TEST(test_set_program_reprobes_and_reverts)
{
	osb_policy *p = policy("osb-policy 1\n");
	osb_caps *a = probe(0), *b;
	unsigned runs = caps_probe_runs();
	osb_error err;

	ck_assert_int_eq(check_policy(p, &err), 0);
	set_bwrap("/nonexistent/bwrap");
	b = probe(0);
	ck_assert_uint_eq(caps_probe_runs(), runs + 1);
	ck_assert_int_eq(osb_caps_status(b, (size_t)item(b, "bwrap")), OSB_CAPS_UNAVAILABLE);
	ck_assert_int_eq(check_policy(p, &err), -OSB_E_HOST);
	osb_caps_free(b);
	set_bwrap(NULL);
	b = probe(0);
	ck_assert_uint_eq(caps_probe_runs(), runs + 2);
	ck_assert_int_eq(osb_caps_status(b, (size_t)item(b, "bwrap")), OSB_CAPS_OK);
	ck_assert_str_eq(osb_caps_bwrap_path(b), osb_caps_bwrap_path(a));
	ck_assert_int_eq(check_policy(p, &err), 0);
	osb_caps_free(a);
	osb_caps_free(b);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_set_program_refuses_what_it_cannot_use)
{
	osb_error err;

	ck_assert_int_eq(osb_set_program(OSB_PROGRAM_INIT, "bin/init", "OSB_ISOLATE_INIT", &err),
	                 -OSB_E_USAGE);
	ck_assert_str_eq(err.message, "OSB_ISOLATE_INIT=bin/init: the path must be absolute");
	ck_assert_str_eq(err.stage, "usage");
	ck_assert_int_eq(osb_set_program((osb_program)7, "/usr/bin/bwrap", NULL, &err),
	                 -OSB_E_USAGE);
	ck_assert_str_eq(err.message, "osb_set_program: unknown program 7");
	ck_assert_int_eq(osb_set_program(OSB_PROGRAM_BWRAP, "relative", NULL, &err), -OSB_E_USAGE);
	ck_assert_str_eq(err.message, "osb_set_program()=relative: the path must be absolute");
}
END_TEST

START_TEST(test_refresh_probes_again_and_old_handles_stay_valid)
{
	osb_caps *a = probe(0), *b;
	unsigned runs = caps_probe_runs();

	set_bwrap("/nonexistent/bwrap");
	b = probe(OSB_CAPS_REFRESH);
	ck_assert_uint_eq(caps_probe_runs(), runs + 1);
	ck_assert_ptr_ne(a, b);
	/* The old result is still whole, and still says what it said. */
	ck_assert_int_eq(osb_caps_status(a, 0), OSB_CAPS_OK);
	ck_assert_int_eq(osb_caps_status(b, 0), OSB_CAPS_UNAVAILABLE);
	osb_caps_free(a);
	osb_caps_free(b);
	/* The refreshed result is now the cached one. */
	a = probe(0);
	ck_assert_ptr_eq(a, b);
	ck_assert_uint_eq(caps_probe_runs(), runs + 1);
	osb_caps_free(a);
}
END_TEST

static void *probe_thread(void *arg)
{
	osb_caps **out = arg;
	osb_error err;

	if (osb_caps_probe(out, 0, &err) < 0)
		*out = NULL;
	return NULL;
}

START_TEST(test_concurrent_first_calls_probe_once)
{
	pthread_t t[8];
	osb_caps *got[8];

	ck_assert_uint_eq(caps_probe_runs(), 0);
	for (size_t i = 0; i < 8; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, probe_thread, &got[i]), 0);
	for (size_t i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
	ck_assert_uint_eq(caps_probe_runs(), 1);
	for (size_t i = 0; i < 8; i++) {
		ck_assert_ptr_nonnull(got[i]);
		ck_assert_ptr_eq(got[i], got[0]);
	}
	for (size_t i = 0; i < 8; i++)
		osb_caps_free(got[i]);
}
END_TEST

START_TEST(test_unknown_flag_refused)
{
	osb_caps *c = (osb_caps *)1;
	osb_error err;

	ck_assert_int_eq(osb_caps_probe(&c, 0x80, &err), -OSB_E_USAGE);
	ck_assert_ptr_null(c);
	ck_assert_str_eq(err.message, "osb_caps_probe: unknown flags 0x80");
	ck_assert_int_eq(caps_probe_runs(), 0);
}
END_TEST

/* ---- simulated failures ----------------------------------------------------- */

#define INSTALL "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf " \
	"install bubblewrap) or set OSB_ISOLATE_BWRAP to its path"

START_TEST(test_missing_bwrap_named_with_remedy_and_refused)
{
	osb_policy *p = policy("osb-policy 1\n");
	osb_caps *c;
	osb_error err;
	int b;

	set_bwrap("/nonexistent/bwrap");
	c = probe(0);
	b = item(c, "bwrap");
	ck_assert_int_eq(osb_caps_status(c, (size_t)b), OSB_CAPS_UNAVAILABLE);
	ck_assert_str_eq(osb_caps_reason(c, (size_t)b),
	                 "OSB_ISOLATE_BWRAP=/nonexistent/bwrap is not executable: No such file or "
	                 "directory");
	ck_assert_str_eq(osb_caps_remedy(c, (size_t)b), INSTALL);
	ck_assert_ptr_null(osb_caps_bwrap_path(c));
	ck_assert_ptr_null(osb_caps_bwrap_version(c));
	ck_assert_int_eq(osb_caps_available(c), 0);
	ck_assert_uint_eq(osb_caps_modes(c), 0);
	/* What does not need bwrap is still probed. */
	ck_assert_int_eq(osb_caps_status(c, (size_t)item(c, "seccomp")), OSB_CAPS_OK);
	ck_assert_int_eq(check_policy(p, &err), -OSB_E_HOST);
	ck_assert_str_eq(err.stage, "probe");
	ck_assert_str_eq(err.message,
	                 "bwrap unavailable: OSB_ISOLATE_BWRAP=/nonexistent/bwrap is not executable: "
	                 "No such file or directory; remedy: " INSTALL);
	osb_caps_free(c);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_bwrap_not_on_path_names_the_path)
{
	osb_caps *c;
	int b;

	setenv("PATH", "/nonexistent/bin:/nonexistent/sbin", 1);
	c = probe(0);
	b = item(c, "bwrap");
	ck_assert_str_eq(osb_caps_reason(c, (size_t)b),
	                 "bwrap is not on PATH (/nonexistent/bin:/nonexistent/sbin)");
	ck_assert_str_eq(osb_caps_remedy(c, (size_t)b), INSTALL);
	osb_caps_free(c);
}
END_TEST

#define NO_BIND_FD "bwrap --help lacks --bind-fd and --ro-bind-fd: paths cannot be bound by " \
	"their verified fd, and binding by name is refused"
#define NO_BIND_FD_FIX "install bubblewrap 0.10 or later, or Debian 12's 0.8.0-2+deb12u1, " \
	"which backports --bind-fd"

START_TEST(test_bwrap_without_bind_fd_found_from_help_not_version)
{
	if (!test_have_userns())
		return;
	osb_policy *p = policy("osb-policy 1\n");
	osb_caps *c;
	osb_error err;
	int b;

	set_bwrap(TEST_SRCDIR "/tests/integration/bwrap-no-bind-fd");
	c = probe(0);
	/* Same version as the real one: only --help tells them apart. */
	ck_assert_str_eq(osb_caps_bwrap_version(c), "0.8.0");
	b = item(c, "bwrap_bind_fd");
	ck_assert_int_eq(osb_caps_status(c, (size_t)b), OSB_CAPS_UNAVAILABLE);
	ck_assert_str_eq(osb_caps_reason(c, (size_t)b), NO_BIND_FD);
	ck_assert_str_eq(osb_caps_remedy(c, (size_t)b), NO_BIND_FD_FIX);
	ck_assert_int_eq(osb_caps_status(c, (size_t)item(c, "bwrap")), OSB_CAPS_OK);
	ck_assert_int_eq(osb_caps_status(c, (size_t)item(c, "user_namespace")), OSB_CAPS_OK);
	ck_assert_uint_eq(osb_caps_modes(c), 0);
	ck_assert_int_eq(check_policy(p, &err), -OSB_E_HOST);
	ck_assert_str_eq(err.message, "bwrap_bind_fd unavailable: " NO_BIND_FD "; remedy: "
	                 NO_BIND_FD_FIX);
	osb_caps_free(c);
	osb_policy_free(p);
}
END_TEST

/* What tests/integration/nouserns does, to this process. */
static void block_user_namespaces(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	ck_assert_ptr_nonnull(ctx);
	ck_assert_int_eq(seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0), 0);
	ck_assert_int_eq(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1,
	                                  SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)), 0);
	ck_assert_int_eq(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
	                                  SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)), 0);
	ck_assert_int_eq(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0), 0);
	ck_assert_int_eq(seccomp_load(ctx), 0);
	seccomp_release(ctx);
}

#define SECCOMP_REASON "a seccomp filter on this process (1 filter: an enclosing sandbox or a " \
	"container's seccomp profile) refuses unshare(CLONE_NEWUSER): Operation not permitted"
#define SECCOMP_FIX "run osb-isolate outside the enclosing sandbox, or allow user namespaces " \
	"in the container's seccomp profile (Docker: --security-opt seccomp=PROFILE); as root, " \
	"identity root needs none"

START_TEST(test_userns_blocked_by_seccomp_named_and_root_mode_chosen)
{
	/* The simulation changes one thing of a host where both modes work. */
	if (!(test_have_root() && test_have_userns()))
		return;
	osb_policy *p_auto = policy("osb-policy 1\n");
	osb_policy *p_userns = policy("osb-policy 1\nidentity userns\n");
	osb_caps *c;
	osb_error err;
	int u;

	block_user_namespaces();
	c = probe(0);
	u = item(c, "user_namespace");
	ck_assert_int_eq(osb_caps_status(c, (size_t)u), OSB_CAPS_UNAVAILABLE);
	ck_assert_str_eq(osb_caps_reason(c, (size_t)u), SECCOMP_REASON);
	ck_assert_str_eq(osb_caps_remedy(c, (size_t)u), SECCOMP_FIX);
	ck_assert_int_eq(osb_caps_status(c, (size_t)item(c, "nested")), OSB_CAPS_DEGRADED);
	ck_assert_str_eq(osb_caps_reason(c, (size_t)item(c, "nested")),
	                 "already confined: 1 seccomp filter");
	ck_assert_str_eq(osb_caps_reason(c, (size_t)item(c, "net_namespace")),
	                 "bwrap created a network namespace with loopback up (as root, without a "
	                 "user namespace)");
	ck_assert_int_eq(osb_caps_status(c, (size_t)item(c, "root")), OSB_CAPS_OK);
	ck_assert_uint_eq(osb_caps_modes(c), OSB_CAPS_MODE_ROOT);
	/* auto falls back to root mode; a policy that insists on userns is refused. */
	ck_assert_int_eq(check_policy(p_auto, &err), 0);
	ck_assert_int_eq(mode_here(p_auto), ID_ROOT);
	ck_assert_int_eq(check_policy(p_userns, &err), -OSB_E_HOST);
	ck_assert_str_eq(err.message, "user_namespace unavailable: " SECCOMP_REASON "; remedy: "
	                 SECCOMP_FIX);
	osb_caps_free(c);
	osb_policy_free(p_auto);
	osb_policy_free(p_userns);
}
END_TEST

/* Make one system call fail with ERRNO in this (forked) test process. */
static void deny_syscall(int nr, int errnum)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	ck_assert_ptr_nonnull(ctx);
	ck_assert_int_eq(seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0), 0);
	ck_assert_int_eq(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(errnum), nr, 0), 0);
	ck_assert_int_eq(seccomp_load(ctx), 0);
	seccomp_release(ctx);
}

#define NO_LANDLOCK "the kernel has no Landlock (landlock_create_ruleset: Function not " \
	"implemented)"
#define NO_LANDLOCK_FIX "use Linux 5.13 or later built with CONFIG_SECURITY_LANDLOCK=y"

START_TEST(test_landlock_required_refused_without_landlock)
{
	/* The simulation changes one thing of a host where both modes work. */
	if (!(test_have_root() && test_have_userns()))
		return;
	osb_policy *p = policy("osb-policy 1\n");
	osb_caps *c;
	osb_error err;
	int l;

	deny_syscall(SCMP_SYS(landlock_create_ruleset), ENOSYS);
	c = probe(0);
	l = item(c, "landlock");
	ck_assert_int_eq(osb_caps_status(c, (size_t)l), OSB_CAPS_UNAVAILABLE);
	ck_assert_str_eq(osb_caps_reason(c, (size_t)l), NO_LANDLOCK);
	ck_assert_str_eq(osb_caps_remedy(c, (size_t)l), NO_LANDLOCK_FIX);
	ck_assert_int_eq(osb_caps_landlock_abi(c), 0);
	/* Landlock "auto" runs without it; "required" is refused. */
	ck_assert_uint_eq(osb_caps_modes(c), OSB_CAPS_MODE_USERNS | OSB_CAPS_MODE_ROOT);
	ck_assert_int_eq(check_policy(p, &err), 0);
	p->landlock = LL_REQUIRED;
	ck_assert_int_eq(check_policy(p, &err), -OSB_E_HOST);
	ck_assert_str_eq(err.message, "landlock unavailable: " NO_LANDLOCK "; remedy: "
	                 NO_LANDLOCK_FIX);
	osb_caps_free(c);
	osb_policy_free(p);
}
END_TEST

/* The init's cover of /proc (helper/init-cover.c) refused the way a
 * container's seccomp profile refuses it, and nothing else: the filter
 * makes mount(2) fail with EPERM only for the flags of the cover's binds,
 * MS_BIND | MS_REC (bwrap binds with MS_SILENT too), so every sandbox
 * still starts and only a run whose cover the init makes ("proc" and
 * "dev /dev") would fail, in the init, with 125. */
static void deny_cover_binds(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	ck_assert_ptr_nonnull(ctx);
	ck_assert_int_eq(seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0), 0);
	ck_assert_int_eq(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mount), 1,
	                                  SCMP_A3_64(SCMP_CMP_EQ, MS_BIND | MS_REC)), 0);
	ck_assert_int_eq(seccomp_load(ctx), 0);
	seccomp_release(ctx);
}

#define NO_COVER(mode) mode " mode: the init's /proc cover: bind mount over /proc/sys fails: " \
	"Operation not permitted"
#define NO_COVER_FIX "the init makes the cover with mount(2) in a mount namespace of its own " \
	"(binds and read-only remounts on O_PATH files through /proc/self/fd, a tmpfs): an " \
	"enclosing container's seccomp profile or security module (AppArmor, SELinux) refuses " \
	"them; allow mount(2) there, or run osb-isolate outside the container"

START_TEST(test_cover_refused_by_seccomp_names_the_step_and_refuses_the_launch)
{
	/* The simulation changes one thing of a host where both modes work. */
	if (!(test_have_root() && test_have_userns()))
		return;
	osb_policy *plain = policy("osb-policy 1\n");
	osb_policy *covered = policy("osb-policy 1\ndev /dev\nproc /proc\n");
	osb_caps *c;
	osb_error err;
	int i;

	deny_cover_binds();
	/* The launch gate of a fresh process (no cached probe) leaves the cover
	 * to the init, which refuses with 125 (tests/integration/guard.sh): the
	 * attempt would cost every launch of strict 0.5 ms. */
	ck_assert_int_eq(check_policy(plain, &err), 0);
	ck_assert_int_eq(check_policy(covered, &err), 0);
	c = probe(OSB_CAPS_REFRESH);
	i = item(c, "proc_cover");
	ck_assert_int_eq(osb_caps_status(c, (size_t)i), OSB_CAPS_UNAVAILABLE);
	ck_assert_str_eq(osb_caps_reason(c, (size_t)i), NO_COVER("userns") "; " NO_COVER("root"));
	ck_assert_str_eq(osb_caps_remedy(c, (size_t)i), NO_COVER_FIX);
	/* Sandboxes still start: only what the cover stops is refused. */
	ck_assert_uint_eq(osb_caps_modes(c), OSB_CAPS_MODE_USERNS | OSB_CAPS_MODE_ROOT);
	/* With the probe's answer at hand, the gate refuses before any launch. */
	ck_assert_int_eq(check_policy(plain, &err), 0);
	ck_assert_int_eq(check_policy(covered, &err), -OSB_E_HOST);
	ck_assert_int_eq(err.code, OSB_E_HOST);
	ck_assert_str_eq(err.stage, "probe");
	ck_assert_str_eq(err.message, "proc_cover unavailable: " NO_COVER("userns") "; remedy: "
	                 NO_COVER_FIX);
	osb_caps_free(c);
	osb_policy_free(plain);
	osb_policy_free(covered);
}
END_TEST

#define NO_SECCOMP "loading the osb-default-3 filter fails: Operation not permitted"
#define NO_SECCOMP_FIX "use a kernel built with CONFIG_SECCOMP_FILTER=y; in a container, " \
	"allow the seccomp(2) system call"

START_TEST(test_filter_that_cannot_load_stops_every_mode_but_seccomp_none)
{
	if (!test_have_root())
		return;
	osb_policy *p = policy("osb-policy 1\n");
	osb_caps *c;
	osb_error err;
	int s;

	deny_syscall(SCMP_SYS(seccomp), EPERM);
	c = probe(0);
	s = item(c, "seccomp");
	ck_assert_int_eq(osb_caps_status(c, (size_t)s), OSB_CAPS_UNAVAILABLE);
	ck_assert_str_eq(osb_caps_reason(c, (size_t)s), NO_SECCOMP);
	ck_assert_str_eq(osb_caps_remedy(c, (size_t)s), NO_SECCOMP_FIX);
	ck_assert_uint_eq(osb_caps_modes(c), 0);
	ck_assert_int_eq(check_policy(p, &err), -OSB_E_HOST);
	ck_assert_str_eq(err.message, "seccomp unavailable: " NO_SECCOMP "; remedy: " NO_SECCOMP_FIX);
	p->sc_mode = SC_NONE;
	ck_assert_int_eq(check_policy(p, &err), 0);
	osb_caps_free(c);
	osb_policy_free(p);
}
END_TEST

/* Make poll(2) of two fds or more with a finite timeout fail with ERRNO in
 * this (forked) test process: the probe's wait for its sandboxes. bwrap's
 * own poll (no timeout) and the library's single-fd helper waits still
 * work, so the sandboxes are real and only the wait fails. */
static void deny_wait_for_several(int errnum)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	ck_assert_ptr_nonnull(ctx);
	ck_assert_int_eq(seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0), 0);
	ck_assert_int_eq(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(errnum), SCMP_SYS(poll), 2,
	                                  SCMP_A1(SCMP_CMP_GE, 2),
	                                  SCMP_A2(SCMP_CMP_MASKED_EQ, 0x80000000, 0)), 0);
	ck_assert_int_eq(seccomp_load(ctx), 0);
	seccomp_release(ctx);
}

#define WAIT_FAILED "cannot wait for the probe sandbox: poll: Cannot allocate memory"

/* A wait that fails (ENOMEM) ends the probe's sandboxes all the same: each
 * one started is killed and reaped, and none of their pidfds and pipes is
 * left open in the caller, a long-running daemon (DESIGN.md §3: nothing may
 * outlive a run). */
START_TEST(test_failed_wait_kills_and_reaps_every_attempt)
{
	if (!test_have_root())
		return;
	siginfo_t si;
	osb_caps *c;
	int before, r;

	deny_wait_for_several(ENOMEM);
	before = fd_count();
	c = probe(0);
	memset(&si, 0, sizeof(si));
	r = waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT);
	ck_assert_msg(r == -1 && errno == ECHILD, "a child of the probe is left: pid %d, "
	              "waitid %d (%s)", (int)si.si_pid, r, r < 0 ? strerror(errno) : "ok");
	ck_assert_int_eq(fd_count(), before);
	/* What could not be watched is not claimed to work. */
	ck_assert_int_eq(osb_caps_status(c, (size_t)item(c, "user_namespace")),
	                 OSB_CAPS_UNAVAILABLE);
	ck_assert_str_eq(osb_caps_reason(c, (size_t)item(c, "user_namespace")),
	                 "this process can create a user namespace but bwrap cannot: " WAIT_FAILED);
	ck_assert_uint_eq(osb_caps_modes(c), 0);
	osb_caps_free(c);
}
END_TEST

/* ---- the process limit -------------------------------------------------------- */

#define AT_LIMIT_HINT "(the process limit, ulimit -u, is reached: raise it or stop other " \
	"processes)"
#define AT_LIMIT_WHY "clone: Resource temporarily unavailable " AT_LIMIT_HINT
#define AT_LIMIT_REMEDY "raise the process limit (ulimit -u, RLIMIT_NPROC) or stop other " \
	"processes of this user, then run again"
#define AT_LIMIT_FIX AT_LIMIT_REMEDY "; bwrap itself is fine"
/* The direct attempt's child (user namespace, overlayfs, Landlock, seccomp). */
#define NO_CHILD "the probe child could not be started: fork: Resource temporarily " \
	"unavailable " AT_LIMIT_HINT

/* Does DIR hold a kept --help (helpcache.c's bwrap-help.DIGEST)? */
static bool help_kept_in(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool kept = false;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		kept = kept || strncmp(e->d_name, "bwrap-help.", 11) == 0;
	closedir(d);
	return kept;
}

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			ck_assert_int_eq(unlinkat(dirfd(d), e->d_name, 0), 0);
	closedir(d);
	ck_assert_int_eq(rmdir(dir), 0);
}

/* Write TEXT to the file PATH; false where it cannot. */
static bool put_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	bool ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);

	if (fd >= 0)
		close(fd);
	return ok;
}

/* Finding: uid 0 of a user namespace was taken for the host's root, whom
 * RLIMIT_NPROC does not bind, so its failed fork was blamed on the cgroup's
 * pids.max. The kernel exempts the host's uid 0 (and CAP_SYS_RESOURCE or
 * CAP_SYS_ADMIN of the initial namespace) only: a container's root meets
 * the limit like anyone. The child maps nobody to uid 0 of a new user
 * namespace and forks under a limit of 1. Exit: 0 right words, 1 wrong
 * words (in *WORDS), 2 the fork worked, 77 no user namespace here. */
static int nproc_child(char *words, size_t size)
{
	struct rlimit one = { 1, 1 };
	pid_t pid;

	if (geteuid() == 0 && (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
	                       setresuid(65534, 65534, 65534) < 0))
		return 3;
	/* A changed uid leaves the process undumpable: its /proc files root's. */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0)
		return 3;
	if (unshare(CLONE_NEWUSER) < 0 || !put_file("/proc/self/setgroups", "deny") ||
	    !put_file("/proc/self/uid_map", "0 65534 1") ||
	    !put_file("/proc/self/gid_map", "0 65534 1"))
		return 77;
	if (getuid() != 0 || setrlimit(RLIMIT_NPROC, &one) < 0)
		return 3;
	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		return 2;
	snprintf(words, size, "%s", fork_hint(errno));
	return strcmp(words, " " AT_LIMIT_HINT) == 0 ? 0 : 1;
}

START_TEST(test_uid_0_of_a_user_namespace_meets_the_process_limit)
{
	char *words = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pid;
	int status;

	ck_assert_ptr_ne(words, MAP_FAILED);
	words[0] = '\0';
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(nproc_child(words, 4096));
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77) {
		osb_test_have("userns", false, "no user namespace for nobody here (the host refuses "
		              "unprivileged ones)");
		munmap(words, 4096);
		return;
	}
	ck_assert_msg(WEXITSTATUS(status) == 0, "child exit %d, hint \"%s\"", WEXITSTATUS(status),
	              words);
	munmap(words, 4096);
}
END_TEST

/* A caller at its process limit cannot start bwrap --help: the probe says
 * so and what to do, not that bubblewrap needs reinstalling, and keeps
 * nothing of that moment (no --help file, no cached probe, no user-namespace
 * answer), so the next call, under a normal limit, finds a working bwrap.
 * RLIMIT_NPROC 1 makes every fork fail however many processes the user has;
 * root is exempt from it, so a root caller's case runs as nobody. */
START_TEST(test_bwrap_that_cannot_be_forked_names_the_process_limit_and_keeps_nothing)
{
	osb_policy *p = policy("osb-policy 1\n");
	char dir[] = "/tmp/osb-caps-nproc.XXXXXX", why[1024], msg[2048];
	struct rlimit rl, one;
	osb_error err = { 0 };
	host_facts h;
	unsigned runs;
	osb_caps *c;
	int b;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	if (geteuid() == 0) {
		ck_assert_int_eq(chown(dir, 65534, 65534), 0);
		ck_assert_int_eq(setgroups(0, NULL), 0);
		ck_assert_int_eq(setresgid(65534, 65534, 65534), 0);
		ck_assert_int_eq(setresuid(65534, 65534, 65534), 0);
	}
	helpcache_set_dir(dir);
	ck_assert_int_eq(getrlimit(RLIMIT_NPROC, &rl), 0);
	one = (struct rlimit){ 1, rl.rlim_max };
	ck_assert_int_eq(setrlimit(RLIMIT_NPROC, &one), 0);

	c = probe(0);
	b = item(c, "bwrap");
	ck_assert_ptr_nonnull(osb_caps_bwrap_path(c));
	snprintf(why, sizeof(why), "cannot start %s: " AT_LIMIT_WHY, osb_caps_bwrap_path(c));
	ck_assert_int_eq(osb_caps_status(c, (size_t)b), OSB_CAPS_UNAVAILABLE);
	ck_assert_str_eq(osb_caps_reason(c, (size_t)b), why);
	ck_assert_str_eq(osb_caps_remedy(c, (size_t)b), AT_LIMIT_FIX);
	osb_caps_free(c);
	/* A launch is refused with the same words. */
	ck_assert_int_eq(check_policy(p, &err), -OSB_E_HOST);
	snprintf(msg, sizeof(msg), "bwrap unavailable: %s; remedy: " AT_LIMIT_FIX, why);
	ck_assert_str_eq(err.message, msg);
	ck_assert(!help_kept_in(dir));

	/* The limit is raised again: the next call probes anew and works. */
	ck_assert_int_eq(setrlimit(RLIMIT_NPROC, &rl), 0);
	runs = caps_probe_runs();
	c = probe(0);
	ck_assert_uint_eq(caps_probe_runs(), runs + 1);
	ck_assert_int_eq(osb_caps_status(c, (size_t)item(c, "bwrap")), OSB_CAPS_OK);
	osb_caps_free(c);
	ck_assert(help_kept_in(dir));
	ck_assert_int_eq(host_facts_now(&h, NULL, &err), 0);
	ck_assert_int_ne(h.userns_errno, EAGAIN);
	host_facts_free(&h);
	helpcache_set_dir(NULL);
	remove_dir(dir);
	osb_policy_free(p);
}
END_TEST

/* Item ID of C says REASON (exactly) and the process-limit remedy. */
static void at_limit_item(const osb_caps *c, const char *id, int status, const char *reason)
{
	int i = item(c, id);

	ck_assert_int_eq(osb_caps_status(c, (size_t)i), status);
	if (reason)
		ck_assert_str_eq(osb_caps_reason(c, (size_t)i), reason);
	ck_assert_str_eq(osb_caps_remedy(c, (size_t)i), AT_LIMIT_REMEDY);
}

/* What the items of a probe at the limit say whether bwrap could be used
 * or not: those whose own attempt could not start a process. */
static void at_limit_direct_items(const osb_caps *c, long landlock_abi)
{
	char why[1024];

	snprintf(why, sizeof(why), "loading the %s filter was not tried: " NO_CHILD,
	         seccomp_group_name());
	at_limit_item(c, "seccomp", OSB_CAPS_UNAVAILABLE, why);
	if (landlock_abi > 0) {
		snprintf(why, sizeof(why), "Landlock ABI %ld, but enforcing a ruleset was not tried: "
		         NO_CHILD, landlock_abi);
		at_limit_item(c, "landlock", OSB_CAPS_DEGRADED, why);
	}
	at_limit_item(c, "overlayfs", OSB_CAPS_UNAVAILABLE, "not tried: " NO_CHILD);
	at_limit_item(c, "overlay", OSB_CAPS_UNAVAILABLE, "userns mode: forking the probe child "
	              "fails: Resource temporarily unavailable " AT_LIMIT_HINT);
	at_limit_item(c, "diff_supported", OSB_CAPS_UNAVAILABLE, NULL);
	at_limit_item(c, "commit_supported", OSB_CAPS_UNAVAILABLE, NULL);
	at_limit_item(c, "persist", OSB_CAPS_UNAVAILABLE, NULL);
	/* No item whose reason is the limit sends anyone to the kernel. */
	for (size_t i = 0; i < osb_caps_count(c); i++)
		if (strstr(osb_caps_reason(c, i), "Resource temporarily unavailable"))
			ck_assert_msg(strcmp(osb_caps_remedy(c, i), AT_LIMIT_REMEDY) == 0 ||
			              strcmp(osb_caps_remedy(c, i), AT_LIMIT_FIX) == 0,
			              "%s: %s", osb_caps_id(c, i), osb_caps_remedy(c, i));
}

/* At the process limit every item whose probe could not start its process
 * says so and gives the process-limit remedy, not the one for a kernel or
 * a security module that refuses the feature ("check dmesg",
 * CONFIG_SECCOMP_FILTER, ...): first with no bwrap --help kept, so that no
 * sandbox is tried; then with one kept from an earlier probe, so that bwrap
 * counts as usable and its sandboxes are what cannot be started. As nobody
 * under RLIMIT_NPROC 1, as above. */
START_TEST(test_items_whose_process_cannot_start_give_the_process_limit_remedy)
{
	char dir[] = "/tmp/osb-caps-nproc.XXXXXX", why[2048], bwrap[256];
	struct rlimit rl, one;
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	osb_caps *c;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	if (geteuid() == 0) {
		ck_assert_int_eq(chown(dir, 65534, 65534), 0);
		ck_assert_int_eq(setgroups(0, NULL), 0);
		ck_assert_int_eq(setresgid(65534, 65534, 65534), 0);
		ck_assert_int_eq(setresuid(65534, 65534, 65534), 0);
	}
	helpcache_set_dir(dir);
	ck_assert_int_eq(getrlimit(RLIMIT_NPROC, &rl), 0);
	one = (struct rlimit){ 1, rl.rlim_max };

	/* No --help: only the probe's own children are tried. */
	ck_assert_int_eq(setrlimit(RLIMIT_NPROC, &one), 0);
	c = probe(0);
	ck_assert_int_eq(osb_caps_status(c, (size_t)item(c, "bwrap")), OSB_CAPS_UNAVAILABLE);
	at_limit_item(c, "user_namespace", OSB_CAPS_UNAVAILABLE, "no usable bwrap; " NO_CHILD);
	at_limit_direct_items(c, abi);
	osb_caps_free(c);

	/* A --help kept from a probe under a normal limit: bwrap is usable,
	 * its sandboxes cannot be started. */
	ck_assert_int_eq(setrlimit(RLIMIT_NPROC, &rl), 0);
	osb_caps_free(probe(0));
	ck_assert(help_kept_in(dir));
	ck_assert_int_eq(setrlimit(RLIMIT_NPROC, &one), 0);
	c = probe(OSB_CAPS_REFRESH);
	ck_assert_int_eq(osb_caps_status(c, (size_t)item(c, "bwrap")), OSB_CAPS_OK);
	ck_assert_ptr_nonnull(osb_caps_bwrap_path(c));
	snprintf(bwrap, sizeof(bwrap), "%s", osb_caps_bwrap_path(c));
	snprintf(why, sizeof(why), "cannot start %s: " AT_LIMIT_WHY "; " NO_CHILD, bwrap);
	at_limit_item(c, "user_namespace", OSB_CAPS_UNAVAILABLE, why);
	snprintf(why, sizeof(why), "bwrap cannot create a network namespace with loopback up (in a "
	         "user namespace): cannot start %s: " AT_LIMIT_WHY, bwrap);
	at_limit_item(c, "net_namespace", OSB_CAPS_UNAVAILABLE, why);
	snprintf(why, sizeof(why), "bwrap cannot create a pid namespace with its own /proc (in a "
	         "user namespace): cannot start %s: " AT_LIMIT_WHY, bwrap);
	at_limit_item(c, "pid_namespace", OSB_CAPS_UNAVAILABLE, why);
	at_limit_direct_items(c, abi);
	/* The mode is stopped by that item, with its words. */
	ck_assert_str_eq(c->mode_stop[M_USERNS].id, "user_namespace");
	ck_assert_str_eq(c->mode_stop[M_USERNS].remedy, AT_LIMIT_REMEDY);
	ck_assert_uint_eq(osb_caps_modes(c), 0);
	osb_caps_free(c);

	ck_assert_int_eq(setrlimit(RLIMIT_NPROC, &rl), 0);
	helpcache_set_dir(NULL);
	remove_dir(dir);
}
END_TEST

/* ---- launches without a cached probe ------------------------------------------ */

/* Each `osb-isolate run` is a fresh process: a host that passes the checks
 * a launch needs must not pay for the full probe (sandboxes of its own). */
START_TEST(test_launch_check_on_a_passing_host_starts_no_probe)
{
	if (!(test_have_root() && test_have_userns() && test_have_landlock()))
		return;
	osb_policy *p = policy("osb-policy 1\n");
	osb_error err = { 0 };

	ck_assert_int_eq(check_policy(p, &err), 0);
	p->id_mode = ID_USERNS;
	ck_assert_int_eq(check_policy(p, &err), 0);
	p->id_mode = ID_ROOT;
	ck_assert_int_eq(check_policy(p, &err), 0);
	p->landlock = LL_REQUIRED;
	ck_assert_int_eq(check_policy(p, &err), 0);
	ck_assert_uint_eq(caps_probe_runs(), 0);
	osb_policy_free(p);
}
END_TEST

/* A failed cheap check runs the full probe, so the refusal names the item
 * exactly as `osb-isolate capabilities` does. */
START_TEST(test_launch_check_failure_probes_and_names_the_item)
{
	osb_policy *p = policy("osb-policy 1\n");
	osb_error err = { 0 };

	set_bwrap(TEST_SRCDIR "/tests/integration/bwrap-no-bind-fd");
	ck_assert_int_eq(check_policy(p, &err), -OSB_E_HOST);
	ck_assert_str_eq(err.stage, "probe");
	ck_assert_str_eq(err.message, "bwrap_bind_fd unavailable: " NO_BIND_FD "; remedy: "
	                 NO_BIND_FD_FIX);
	ck_assert_uint_eq(caps_probe_runs(), 1);
	osb_policy_free(p);
}
END_TEST

/* Without user namespaces, root still runs "identity auto" in root mode
 * with no probe; "identity userns" is refused with the probe's words. */
START_TEST(test_launch_check_without_userns_picks_root_or_refuses_userns)
{
	/* The simulation changes one thing of a host where both modes work. */
	if (!(test_have_root() && test_have_userns()))
		return;
	osb_policy *p = policy("osb-policy 1\n");
	osb_error err = { 0 };

	block_user_namespaces();
	ck_assert_int_eq(check_policy(p, &err), 0);
	ck_assert_uint_eq(caps_probe_runs(), 0);
	p->id_mode = ID_USERNS;
	ck_assert_int_eq(check_policy(p, &err), -OSB_E_HOST);
	ck_assert_str_eq(err.message, "user_namespace unavailable: " SECCOMP_REASON "; remedy: "
	                 SECCOMP_FIX);
	ck_assert_uint_eq(caps_probe_runs(), 1);
	osb_policy_free(p);
}
END_TEST

/* ---- reports ------------------------------------------------------------------ */

static json_object *parse_json(const osb_caps *c)
{
	char *text = osb_caps_json(c);
	json_object *o;

	ck_assert_ptr_nonnull(text);
	o = json_tokener_parse(text);
	ck_assert_ptr_nonnull(o);
	osb_free(text);
	return o;
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	ck_assert_msg(json_object_object_get_ex(o, key, &v), "no key %s", key);
	return v;
}

/* The shipped policy names as a JSON array, from the source tree (glob
 * sorts them as the probe does: bytewise in the C locale). */
static const char *shipped_policies(void)
{
	static char out[1024];
	size_t n = 0;
	glob_t g;

	ck_assert_int_eq(glob(TEST_SRCDIR "/policy/*.policy", 0, NULL, &g), 0);
	ck_assert_uint_ge(g.gl_pathc, 2);
	n += (size_t)snprintf(out + n, sizeof(out) - n, "[");
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *base = strrchr(g.gl_pathv[i], '/') + 1;

		n += (size_t)snprintf(out + n, sizeof(out) - n, "%s\"%.*s\"", i ? "," : "",
		                      (int)(strlen(base) - 7), base);
	}
	snprintf(out + n, sizeof(out) - n, "]");
	globfree(&g);
	return out;
}

START_TEST(test_json_carries_compat_fields_and_every_item)
{
	if (!(test_have_root() && test_have_userns()))
		return;
	osb_caps *c = probe(0);
	json_object *o = parse_json(c), *items, *profiles;

	ck_assert(json_object_get_boolean(get(o, "available")));
	ck_assert_str_eq(json_object_get_string(get(o, "isolator")), "bubblewrap");
	ck_assert_str_eq(json_object_get_string(get(o, "version")), "0.8.0");
	ck_assert_str_eq(json_object_get_string(get(o, "osb_version")), OSB_ISOLATE_VERSION);
	ck_assert_str_eq(json_object_to_json_string_ext(get(o, "modes"), JSON_C_TO_STRING_PLAIN),
	                 "[\"userns\",\"root\"]");
	profiles = get(o, "profiles");
	ck_assert_str_eq(json_object_to_json_string_ext(profiles, JSON_C_TO_STRING_PLAIN),
	                 shipped_policies());
	ck_assert_str_eq(json_object_to_json_string_ext(get(o, "allowed_extra_writable_prefixes"),
	                                                JSON_C_TO_STRING_PLAIN), "[]");
	ck_assert(!json_object_get_boolean(get(o, "share_net_overridable")));
	ck_assert_str_eq(json_object_get_string(get(get(o, "profiles_network"), "strict")), "none");
	ck_assert_str_eq(json_object_get_string(get(get(o, "profiles_network"), "balanced")), "host");
	ck_assert_str_eq(json_object_get_string(get(o, "seccomp_profile_sha256")),
	                 osb_caps_seccomp_sha256(c));
	ck_assert_str_eq(json_object_get_string(get(o, "seccomp_profile")), "osb-default-3");
	items = get(o, "items");
	ck_assert_uint_eq(json_object_array_length(items), N_IDS);
	for (size_t i = 0; i < N_IDS; i++) {
		json_object *it = json_object_array_get_idx(items, i);
		json_object *remedy = get(it, "remedy");

		ck_assert_str_eq(json_object_get_string(get(it, "id")), expected_ids[i]);
		ck_assert_str_eq(json_object_get_string(get(it, "status")),
		                 osb_caps_status_name(osb_caps_status(c, i)));
		ck_assert_str_eq(json_object_get_string(get(it, "reason")), osb_caps_reason(c, i));
		if (osb_caps_remedy(c, i))
			ck_assert_str_eq(json_object_get_string(remedy), osb_caps_remedy(c, i));
		else
			ck_assert_ptr_null(remedy);
	}
	ck_assert_str_eq(json_object_to_json_string_ext(
	                 get(get(get(o, "summary"), "userns"), "profiles"), JSON_C_TO_STRING_PLAIN),
	                 shipped_policies());
	json_object_put(o);
	osb_caps_free(c);
}
END_TEST

START_TEST(test_json_names_the_blocker)
{
	/* The simulation changes one thing of a host where both modes work. */
	if (!(test_have_root() && test_have_userns()))
		return;
	osb_caps *c;
	json_object *o, *b;

	block_user_namespaces();
	c = probe(0);
	o = parse_json(c);
	b = get(o, "blockers");
	ck_assert_uint_eq(json_object_array_length(b), 4);
	ck_assert_str_eq(json_object_get_string(get(json_object_array_get_idx(b, 3), "name")),
	                 "seccomp");
	ck_assert_str_eq(json_object_get_string(get(json_object_array_get_idx(b, 3), "value")),
	                 "1 filter");
	for (size_t i = 0; i < 4; i++)
		ck_assert_int_eq(json_object_get_boolean(get(json_object_array_get_idx(b, i),
		                                             "blocking")), i == 3);
	ck_assert_str_eq(json_object_get_string(get(get(get(o, "summary"), "userns"),
	                                            "blocked_by")), "user_namespace");
	json_object_put(o);
	osb_caps_free(c);
}
END_TEST

/* ---- a probe child that ends without an answer ------------------------------ */

/* Kill this (forked) test process, and the probe's children, with SIGSYS
 * at system call NR when its N argument comparisons ARG hold: what an
 * enclosing container's seccomp profile whose action kills does. No core
 * file is left by the killed children. */
static void kill_at(int nr, unsigned n, const struct scmp_arg_cmp *arg)
{
	struct rlimit none = { 0, 0 };
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	ck_assert_int_eq(setrlimit(RLIMIT_CORE, &none), 0);
	ck_assert_ptr_nonnull(ctx);
	ck_assert_int_eq(seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0), 0);
	ck_assert_int_eq(seccomp_rule_add_array(ctx, SCMP_ACT_KILL_PROCESS, nr, n, arg), 0);
	ck_assert_int_eq(seccomp_load(ctx), 0);
	seccomp_release(ctx);
}

#define NO_ANSWER "the probe child ended without an answer: it was killed by signal 31 (SIGSYS)"
#define NO_ANSWER_FIX "an enclosing seccomp filter (a container's profile) kills the process " \
	"at a system call the sandbox makes too: have it refuse the call with an errno instead, " \
	"which the probe then names, or run osb-isolate outside the container"
#define COVER_NO_ANSWER(mode) mode " mode: the init's /proc cover: " NO_ANSWER

/* Finding: the cover's child killed at its bind mount (its pid 1 in a pid
 * namespace of its own, whose parent ended well) was reported as
 * "unshare(CLONE_NEWUSER) fails: Input/output error", in root mode too,
 * where no user namespace is made. */
START_TEST(test_cover_child_killed_names_the_signal_not_a_user_namespace)
{
	/* The simulation changes one thing of a host where both modes work. */
	if (!(test_have_root() && test_have_userns()))
		return;
	const struct scmp_arg_cmp binds = SCMP_A3_64(SCMP_CMP_EQ, MS_BIND | MS_REC);
	osb_policy *covered = policy("osb-policy 1\nidentity root\ndev /dev\nproc /proc\n");
	osb_caps *c;
	osb_error err;
	json_object *o, *it;
	int i;

	kill_at(SCMP_SYS(mount), 1, &binds);
	c = probe(OSB_CAPS_REFRESH);
	i = item(c, "proc_cover");
	ck_assert_int_eq(osb_caps_status(c, (size_t)i), OSB_CAPS_UNAVAILABLE);
	ck_assert_str_eq(osb_caps_reason(c, (size_t)i),
	                 COVER_NO_ANSWER("userns") "; " COVER_NO_ANSWER("root"));
	ck_assert_str_eq(osb_caps_remedy(c, (size_t)i), NO_ANSWER_FIX);
	o = parse_json(c);
	it = json_object_array_get_idx(get(o, "items"), (size_t)i);
	ck_assert_str_eq(json_object_get_string(get(it, "reason")),
	                 COVER_NO_ANSWER("userns") "; " COVER_NO_ANSWER("root"));
	json_object_put(o);
	/* Fail closed: with the probe's answer at hand, the gate refuses. */
	ck_assert_int_eq(check_policy(covered, &err), -OSB_E_HOST);
	ck_assert_str_eq(err.message, "proc_cover unavailable: " COVER_NO_ANSWER("root")
	                 "; remedy: " NO_ANSWER_FIX);
	osb_caps_free(c);
	osb_policy_free(covered);
}
END_TEST

#define OVERLAY_NO_ANSWER(mode) mode " mode: mounting the overlay workspace: " NO_ANSWER

START_TEST(test_overlay_child_killed_names_the_signal_not_a_user_namespace)
{
	/* The simulation changes one thing of a host where both modes work. */
	if (!(test_have_root() && test_have_userns()))
		return;
	osb_policy *p = policy("osb-policy 1\nidentity root\nworkspace overlay\n");
	osb_caps *c;
	osb_error err;
	int i;

	kill_at(SCMP_SYS(fsopen), 0, NULL);
	/* The launch gate's own attempt ends the same way: it sends the launch
	 * to the probe, whose item refuses it. */
	ck_assert_int_eq(check_policy(p, &err), -OSB_E_HOST);
	ck_assert_str_eq(err.message, "overlay unavailable: " OVERLAY_NO_ANSWER("root")
	                 "; remedy: " NO_ANSWER_FIX);
	c = probe(0);
	i = item(c, "overlay");
	ck_assert_int_eq(osb_caps_status(c, (size_t)i), OSB_CAPS_UNAVAILABLE);
	ck_assert_str_eq(osb_caps_reason(c, (size_t)i),
	                 OVERLAY_NO_ANSWER("userns") "; " OVERLAY_NO_ANSWER("root"));
	ck_assert_str_eq(osb_caps_remedy(c, (size_t)i), NO_ANSWER_FIX);
	osb_caps_free(c);
	osb_policy_free(p);
}
END_TEST

/* The direct attempt's child (user namespace, overlayfs, Landlock, the
 * filter) killed at its last steps answers none of them: the overlayfs
 * item blamed a user namespace, the others named a raw wait status. */
START_TEST(test_direct_child_killed_names_the_signal_in_each_item)
{
	if (!(test_have_root() && test_have_userns() && test_have_landlock()))
		return;
	char want[300];
	osb_caps *c;
	int i;

	kill_at(SCMP_SYS(landlock_restrict_self), 0, NULL);
	c = probe(0);
	i = item(c, "overlayfs");
	ck_assert_int_eq(osb_caps_status(c, (size_t)i), OSB_CAPS_UNAVAILABLE);
	ck_assert_str_eq(osb_caps_reason(c, (size_t)i),
	                 "mounting overlayfs in a user namespace: " NO_ANSWER);
	ck_assert_str_eq(osb_caps_remedy(c, (size_t)i), NO_ANSWER_FIX);
	i = item(c, "landlock");
	ck_assert_int_eq(osb_caps_status(c, (size_t)i), OSB_CAPS_DEGRADED);
	snprintf(want, sizeof(want), "Landlock ABI %d, but enforcing a ruleset in a child "
	         "process: " NO_ANSWER, osb_caps_landlock_abi(c));
	ck_assert_str_eq(osb_caps_reason(c, (size_t)i), want);
	ck_assert_str_eq(osb_caps_remedy(c, (size_t)i), NO_ANSWER_FIX);
	i = item(c, "seccomp");
	ck_assert_int_eq(osb_caps_status(c, (size_t)i), OSB_CAPS_UNAVAILABLE);
	ck_assert_str_eq(osb_caps_reason(c, (size_t)i),
	                 "loading the osb-default-3 filter: " NO_ANSWER);
	ck_assert_str_eq(osb_caps_remedy(c, (size_t)i), NO_ANSWER_FIX);
	ck_assert_uint_eq(osb_caps_modes(c), 0);
	osb_caps_free(c);
}
END_TEST

/* How the other endings read (the probe cannot make them here). */
START_TEST(test_no_answer_names_the_signal_or_the_exit_status)
{
	char buf[160];

	ck_assert_str_eq(caps_no_answer(buf, sizeof(buf), W_EXITCODE(0, SIGKILL)),
	                 "the probe child ended without an answer: it was killed by signal 9 "
	                 "(SIGKILL)");
	ck_assert_str_eq(caps_no_answer(buf, sizeof(buf), W_EXITCODE(1, 0)),
	                 "the probe child ended without an answer: it exited with status 1");
}
END_TEST

#define TABLE_HEAD "osb-isolate " OSB_ISOLATE_VERSION " capabilities: NOT available\n" \
	"STATUS       ITEM                  REASON\n" \
	"unavailable  bwrap                 OSB_ISOLATE_BWRAP=/nonexistent/bwrap is not " \
	"executable: No such file or directory\n" \
	"                                   remedy: " INSTALL "\n"

START_TEST(test_table_shows_status_reason_and_remedy)
{
	osb_caps *c;
	char *t;

	set_bwrap("/nonexistent/bwrap");
	c = probe(0);
	t = osb_caps_table(c);
	ck_assert_ptr_nonnull(t);
	ck_assert_msg(strncmp(t, TABLE_HEAD, strlen(TABLE_HEAD)) == 0, "table:\n%s", t);
	ck_assert_ptr_nonnull(strstr(t, "\nmode userns not usable: bwrap unavailable: "
	                             "OSB_ISOLATE_BWRAP=/nonexistent/bwrap is not executable: No such "
	                             "file or directory\n"));
	osb_free(t);
	osb_caps_free(c);
}
END_TEST

/* ---- attribution of user-namespace failures -------------------------------------- */

static caps_userns_facts facts(int unshare_errno)
{
	return (caps_userns_facts){
		.unshare_errno = unshare_errno, .map_errno = CAPS_NOT_TRIED, .map_file = "uid_map",
		.max_user_namespaces = 15000, .unprivileged_userns_clone = -1,
		.apparmor_restrict = -1, .seccomp_filters = 0, .root = false, .bwrap_diag = NULL,
	};
}

static void attribute(const caps_userns_facts *f, const char *blocker, const char *reason,
                      const char *remedy)
{
	const char *b = "unset";
	char r[1024], m[512];

	caps_userns_blocker(f, &b, r, sizeof(r), m, sizeof(m));
	if (blocker)
		ck_assert_str_eq(b, blocker);
	else
		ck_assert_ptr_null(b);
	ck_assert_str_eq(r, reason);
	ck_assert_str_eq(m, remedy);
}

START_TEST(test_blocker_max_user_namespaces_zero)
{
	caps_userns_facts f = facts(ENOSPC);

	f.max_user_namespaces = 0;
	attribute(&f, "user.max_user_namespaces",
	          "user.max_user_namespaces is 0, so the kernel refuses every new user namespace "
	          "(unshare(CLONE_NEWUSER): No space left on device)",
	          "allow them: sysctl -w user.max_user_namespaces=15000 (make it permanent in "
	          "/etc/sysctl.d/)");
	f.max_user_namespaces = 3;
	attribute(&f, "user.max_user_namespaces",
	          "the limit of user namespaces (user.max_user_namespaces = 3) is reached "
	          "(unshare(CLONE_NEWUSER): No space left on device)",
	          "raise user.max_user_namespaces (sysctl -w user.max_user_namespaces=N) or end "
	          "processes that hold user namespaces");
}
END_TEST

START_TEST(test_blocker_unprivileged_userns_clone_only_for_non_root)
{
	caps_userns_facts f = facts(EPERM);

	f.unprivileged_userns_clone = 0;
	attribute(&f, "kernel.unprivileged_userns_clone",
	          "kernel.unprivileged_userns_clone is 0, so only root may create user namespaces "
	          "(unshare(CLONE_NEWUSER): Operation not permitted)",
	          "allow them: sysctl -w kernel.unprivileged_userns_clone=1 (make it permanent in "
	          "/etc/sysctl.d/), or run as root with identity root");
	/* The knob does not apply to root: something else refused it. */
	f.root = true;
	attribute(&f, NULL, "unshare(CLONE_NEWUSER) fails: Operation not permitted",
	          "check dmesg for a security-module denial and the sysctls "
	          "user.max_user_namespaces and kernel.unprivileged_userns_clone");
}
END_TEST

START_TEST(test_blocker_apparmor_restriction_on_uid_map)
{
	caps_userns_facts f = facts(0);

	f.map_errno = EPERM;
	f.apparmor_restrict = 1;
	attribute(&f, "kernel.apparmor_restrict_unprivileged_userns",
	          "kernel.apparmor_restrict_unprivileged_userns is 1: AppArmor gives unconfined "
	          "programs no privileges in new user namespaces (uid_map: Operation not permitted)",
	          "give bwrap an AppArmor profile that allows user namespaces (Ubuntu: the "
	          "bwrap-userns-restrict profile, or a profile with \"userns,\"), or sysctl -w "
	          "kernel.apparmor_restrict_unprivileged_userns=0");
	/* Without the restriction the same failure is not blamed on AppArmor. */
	f.apparmor_restrict = 0;
	attribute(&f, NULL, "a new user namespace is created, but writing its uid_map fails: "
	          "Operation not permitted",
	          "check dmesg for a security-module denial (AppArmor, SELinux) and that /proc is "
	          "mounted read-write");
}
END_TEST

START_TEST(test_blocker_seccomp_needs_a_filter)
{
	caps_userns_facts f = facts(EPERM);

	f.seccomp_filters = 2;
	attribute(&f, "seccomp",
	          "a seccomp filter on this process (2 filters: an enclosing sandbox or a container's "
	          "seccomp profile) refuses unshare(CLONE_NEWUSER): Operation not permitted",
	          SECCOMP_FIX);
	f.seccomp_filters = 0;
	attribute(&f, NULL, "unshare(CLONE_NEWUSER) fails: Operation not permitted",
	          "check dmesg for a security-module denial and the sysctls "
	          "user.max_user_namespaces and kernel.unprivileged_userns_clone");
}
END_TEST

START_TEST(test_blocker_nesting_depth_and_bwrap_only)
{
	caps_userns_facts f = facts(EUSERS);

	attribute(&f, NULL, "the nesting limit of user namespaces (32 levels) is reached "
	          "(unshare(CLONE_NEWUSER): Too many users)",
	          "run osb-isolate from a less deeply nested sandbox");
	f = facts(0);
	f.map_errno = 0;
	f.bwrap_diag = "bwrap: setting up uid map: Permission denied";
	attribute(&f, NULL, "this process can create a user namespace but bwrap cannot: bwrap: "
	          "setting up uid map: Permission denied",
	          "a security module may confine bwrap itself (check dmesg for AppArmor or SELinux "
	          "denials naming bwrap), or OSB_ISOLATE_BWRAP names a wrapper that fails");
}
END_TEST

/* This process can create a user namespace, but bwrap's sandbox could not
 * be started at a process limit: no security module is blamed. */
START_TEST(test_blocker_bwrap_at_the_process_limit_is_not_a_security_module)
{
	caps_userns_facts f = facts(0);

	f.map_errno = 0;
	f.bwrap_diag = "cannot start /usr/bin/bwrap: " AT_LIMIT_WHY;
	f.bwrap_limit_remedy = AT_LIMIT_REMEDY;
	attribute(&f, NULL, "this process can create a user namespace but bwrap cannot: cannot "
	          "start /usr/bin/bwrap: " AT_LIMIT_WHY, AT_LIMIT_REMEDY);
}
END_TEST

START_TEST(test_status_names)
{
	ck_assert_str_eq(osb_caps_status_name(OSB_CAPS_OK), "ok");
	ck_assert_str_eq(osb_caps_status_name(OSB_CAPS_UNAVAILABLE), "unavailable");
	ck_assert_str_eq(osb_caps_status_name(OSB_CAPS_DEGRADED), "degraded");
	ck_assert_ptr_null(osb_caps_status_name(3));
}
END_TEST

static Suite *caps_suite(void)
{
	Suite *s = suite_create("caps");
	TCase *host = tcase_create("host"), *sim = tcase_create("simulated"),
	      *pure = tcase_create("attribution");

	tcase_add_checked_fixture(host, setup, NULL);
	tcase_add_checked_fixture(sim, setup, NULL);
	tcase_set_timeout(host, 30);
	tcase_set_timeout(sim, 30);
	tcase_add_test(host, test_items_have_stable_ids_in_fixed_order);
	tcase_add_test(host, test_host_as_root_runs_both_modes);
	tcase_add_test(host, test_network_allowlist_names_the_proxy);
	tcase_add_test(host, test_seccomp_hash_is_of_the_filter_a_run_loads);
	tcase_add_test(host, test_landlock_abi_is_the_kernels);
	tcase_add_test(host, test_second_call_is_served_from_the_cache);
	tcase_add_test(host, test_refresh_probes_again_and_old_handles_stay_valid);
	tcase_add_test(host, test_environment_names_no_program);
	tcase_add_test(host, test_set_program_reprobes_and_reverts);
	tcase_add_test(host, test_set_program_refuses_what_it_cannot_use);
	tcase_add_test(host, test_concurrent_first_calls_probe_once);
	tcase_add_test(host, test_unknown_flag_refused);
	tcase_add_test(host, test_json_carries_compat_fields_and_every_item);
	tcase_add_test(sim, test_missing_bwrap_named_with_remedy_and_refused);
	tcase_add_test(sim, test_bwrap_not_on_path_names_the_path);
	tcase_add_test(sim, test_bwrap_without_bind_fd_found_from_help_not_version);
	tcase_add_test(sim, test_userns_blocked_by_seccomp_named_and_root_mode_chosen);
	tcase_add_test(sim, test_json_names_the_blocker);
	tcase_add_test(sim, test_landlock_required_refused_without_landlock);
	tcase_add_test(sim, test_cover_refused_by_seccomp_names_the_step_and_refuses_the_launch);
	tcase_add_test(sim, test_filter_that_cannot_load_stops_every_mode_but_seccomp_none);
	tcase_add_test(sim, test_cover_child_killed_names_the_signal_not_a_user_namespace);
	tcase_add_test(sim, test_overlay_child_killed_names_the_signal_not_a_user_namespace);
	tcase_add_test(sim, test_direct_child_killed_names_the_signal_in_each_item);
	tcase_add_test(sim, test_failed_wait_kills_and_reaps_every_attempt);
	tcase_add_test(sim, test_bwrap_that_cannot_be_forked_names_the_process_limit_and_keeps_nothing);
	tcase_add_test(sim, test_uid_0_of_a_user_namespace_meets_the_process_limit);
	tcase_add_test(sim, test_items_whose_process_cannot_start_give_the_process_limit_remedy);
	tcase_add_test(sim, test_table_shows_status_reason_and_remedy);
	tcase_add_test(sim, test_launch_check_on_a_passing_host_starts_no_probe);
	tcase_add_test(sim, test_launch_check_failure_probes_and_names_the_item);
	tcase_add_test(sim, test_launch_check_without_userns_picks_root_or_refuses_userns);
	tcase_add_test(pure, test_blocker_max_user_namespaces_zero);
	tcase_add_test(pure, test_blocker_unprivileged_userns_clone_only_for_non_root);
	tcase_add_test(pure, test_blocker_apparmor_restriction_on_uid_map);
	tcase_add_test(pure, test_blocker_seccomp_needs_a_filter);
	tcase_add_test(pure, test_blocker_nesting_depth_and_bwrap_only);
	tcase_add_test(pure, test_blocker_bwrap_at_the_process_limit_is_not_a_security_module);
	tcase_add_test(pure, test_status_names);
	tcase_add_test(pure, test_no_answer_names_the_signal_or_the_exit_status);
	suite_add_tcase(s, host);
	suite_add_tcase(s, sim);
	suite_add_tcase(s, pure);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(caps_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

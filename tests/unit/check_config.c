/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_config.c — unit tests for lib/config.c, the host configuration.
 *
 * The file's grammar is pinned like a policy's: every refused input with its
 * full "file:line:col: message". Then what a configuration does to a policy:
 * a request's workspace outside the roots is refused at once with their
 * list, the roots leave the policy hash alone, and the default file may be
 * missing while a named one may not.
 */
#include "policy.h"

#include <check.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sys/stat.h>

static char dir[64];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void dir_setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/check_config.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void dir_teardown(void)
{
	nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

/* Write TEXT to DIR/config (mode 0644) and return its path. */
static const char *put_config(const char *text)
{
	static char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/config", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	ck_assert_int_eq(close(fd), 0);
	ck_assert_int_eq(chmod(path, 0644), 0);
	return path;
}

START_TEST(test_config_file_read_with_its_roots)
{
	osb_error err = { 0 };
	const char *path = put_config("osb-config 1\n\n# where execd keeps workspaces\n"
	                              "workspace-root /srv/execd\n\tworkspace-root   /home/jobs  \n");
	osb_config *c = osb_config_load(path, &err);

	ck_assert_msg(c != NULL, "%s", err.message);
	ck_assert_uint_eq(osb_config_workspace_root_count(c), 2);
	ck_assert_str_eq(osb_config_workspace_root(c, 0), "/srv/execd");
	ck_assert_str_eq(osb_config_workspace_root(c, 1), "/home/jobs");
	ck_assert_ptr_null(osb_config_workspace_root(c, 2));
	ck_assert_str_eq(osb_config_file(c), path);
	osb_config_free(c);
}
END_TEST

static const struct {
	const char *text;
	const char *msg;   /* after "DIR/config:" */
} bad_files[] = {
	{ "", "1:1: the first line must be \"osb-config 1\" (the file is empty)" },
	{ "# only a comment\n", "1:1: the first line must be \"osb-config 1\" (the file is empty)" },
	{ "workspace-root /srv\n", "1:1: the first line must be \"osb-config 1\"" },
	{ "osb-config 2\n", "1:1: the first line must be \"osb-config 1\"" },
	{ "osb-config 1\nosb-config 1\n", "2:1: duplicate \"osb-config\"" },
	{ "osb-config 1\nworkspace-rot /srv\n",
	  "2:1: unknown directive \"workspace-rot\" (did you mean \"workspace-root\"?)" },
	{ "osb-config 1\npolicy-dir /srv\n",
	  "2:1: unknown directive \"policy-dir\" (expected workspace-root, cgroup-parent or "
	  "net-hosts)" },
	{ "osb-config 1\ncgroup-parent\n", "2:1: missing argument: usage is \"cgroup-parent DIR\"" },
	{ "osb-config 1\ncgroup-parent /a /b\n",
	  "2:18: unexpected argument \"/b\" (usage is \"cgroup-parent DIR\")" },
	{ "osb-config 1\ncgroup-parent sys/fs/cgroup\n", "2:15: path must be absolute: \"sys/fs/cgroup\"" },
	{ "osb-config 1\ncgroup-parent /\n", "2:15: \"/\" is no cgroup directory: \"/\"" },
	{ "osb-config 1\ncgroup-parent /c\ncgroup-parent /c\n", "3:1: duplicate \"cgroup-parent /c\"" },
	{ "osb-config 1\nworkspace-root\n",
	  "2:1: missing argument: usage is \"workspace-root DIR\"" },
	{ "osb-config 1\nworkspace-root /a /b\n",
	  "2:19: unexpected argument \"/b\" (usage is \"workspace-root DIR\")" },
	{ "osb-config 1\n  workspace-root srv\n", "2:18: path must be absolute: \"srv\"" },
	{ "osb-config 1\nworkspace-root /srv/../etc\n",
	  "2:16: path must not contain \"..\": \"/srv/../etc\"" },
	{ "osb-config 1\nworkspace-root /\n",
	  "2:16: \"/\" would allow any directory (leave workspace-root out for that: it is the "
	  "default): \"/\"" },
	{ "osb-config 1\nworkspace-root /srv\nworkspace-root /srv\n",
	  "3:1: duplicate \"workspace-root /srv\"" },
	{ "osb-config 1\nworkspace-root /srv\xe2\x80\xae\n",
	  "2:1: the line contains an invisible or bidirectional control character" },
};

/* cgroup-parent lines, and the policy that takes them. */
START_TEST(test_config_cgroup_parents)
{
	osb_error err = { 0 };
	const char *path = put_config("osb-config 1\ncgroup-parent /sys/fs/cgroup/pids/jobs\n"
	                              "cgroup-parent /sys/fs/cgroup/memory/jobs\n");
	osb_config *c = osb_config_load(path, &err);
	osb_policy *p = osb_policy_parse("osb-policy 1\n", 13, "t.policy", &err);

	ck_assert_msg(c != NULL, "%s", err.message);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(osb_config_cgroup_parent_count(c), 2);
	ck_assert_str_eq(osb_config_cgroup_parent(c, 1), "/sys/fs/cgroup/memory/jobs");
	ck_assert_ptr_null(osb_config_cgroup_parent(c, 2));
	ck_assert_int_eq(osb_config_add_cgroup_parent(c, "/sys/fs/cgroup/cpu/jobs", &err), 0);
	ck_assert_int_eq(osb_config_add_cgroup_parent(c, "cpu", &err), -OSB_E_USAGE);
	ck_assert_int_eq(osb_policy_set_config(p, c, &err), 0);
	ck_assert_str_eq(p->cg_parents[0], "/sys/fs/cgroup/pids/jobs");
	ck_assert_str_eq(p->cg_parents[2], "/sys/fs/cgroup/cpu/jobs");
	ck_assert_ptr_null(p->cg_parents[3]);
	ck_assert_int_eq(osb_policy_set_config(p, NULL, &err), 0);
	ck_assert_ptr_null(p->cg_parents);
	osb_policy_free(p);
	osb_config_free(c);
}
END_TEST

START_TEST(test_config_grammar_errors_are_positioned)
{
	char want[PATH_MAX + 512];
	osb_error err = { 0 };
	const char *path = put_config(bad_files[_i].text);
	osb_config *c = osb_config_load(path, &err);

	snprintf(want, sizeof(want), "%s:%s", path, bad_files[_i].msg);
	ck_assert_ptr_null(c);
	ck_assert_int_eq(err.code, OSB_E_USAGE);
	ck_assert_str_eq(err.stage, "config");
	ck_assert_msg(strcmp(err.message, want) == 0, "case %d:\n got: %s\nwant: %s", _i,
	              err.message, want);
}
END_TEST

START_TEST(test_config_file_must_be_trusted_and_present_when_named)
{
	char path[PATH_MAX], want[PATH_MAX + 256];
	osb_error err = { 0 };

	ck_assert_int_eq(chmod(put_config("osb-config 1\n"), 0666), 0);
	snprintf(path, sizeof(path), "%s/config", dir);
	ck_assert_ptr_null(osb_config_load(path, &err));
	ck_assert_int_eq(err.code, OSB_E_PATH);
	snprintf(want, sizeof(want), "%s: writable by group and others (mode 0666), whose members "
	         "could change it; remove the write permission (chmod go-w)", path);
	ck_assert_str_eq(err.message, want);
	snprintf(path, sizeof(path), "%s/missing", dir);
	ck_assert_ptr_null(osb_config_load(path, &err));
	ck_assert_int_eq(err.sys_errno, ENOENT);
}
END_TEST

START_TEST(test_config_roots_by_calls)
{
	osb_config *c = osb_config_new();
	osb_error err = { 0 };

	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(osb_config_add_workspace_root(c, "/srv/a", &err), 0);
	ck_assert_int_eq(osb_config_add_workspace_root(c, "/srv/a", &err), 0);
	ck_assert_uint_eq(osb_config_workspace_root_count(c), 1);
	ck_assert_int_eq(osb_config_add_workspace_root(c, "srv", &err), -OSB_E_USAGE);
	ck_assert_str_eq(err.message, "workspace root: path must be absolute: \"srv\" (pass a "
	                 "canonical absolute path)");
	ck_assert_int_eq(osb_config_add_workspace_root(c, "/", &err), -OSB_E_USAGE);
	ck_assert_int_eq(osb_config_add_workspace_root(NULL, "/srv", &err), -OSB_E_USAGE);
	ck_assert_ptr_null(osb_config_file(c));
	ck_assert_uint_eq(osb_config_workspace_root_count(NULL), 0);
	osb_config_free(c);
	osb_config_free(NULL);
}
END_TEST

/* A request's workspace outside the roots is refused at once, with the
 * list and where it came from; the roots change no rule of the policy. */
START_TEST(test_policy_with_roots_refuses_requests_outside_them)
{
	osb_error err = { 0 };
	const char *path = put_config("osb-config 1\nworkspace-root /srv/execd\n"
	                              "workspace-root /data/ws\n");
	osb_config *c = osb_config_load(path, &err);
	osb_policy *p = osb_policy_parse("osb-policy 1\nworkspace rw\n", 25, "t.policy", &err);
	char want[PATH_MAX + 256], h0[OSB_POLICY_HASH_LEN], h1[OSB_POLICY_HASH_LEN];

	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(osb_policy_hash(p, h0), 0);
	ck_assert_int_eq(osb_policy_set_config(p, c, &err), 0);
	ck_assert_int_eq(osb_policy_hash(p, h1), 0);
	ck_assert_str_eq(h0, h1);
	ck_assert_int_eq(osb_policy_apply_json(p, "{\"workspace\": {\"path\": \"/srv/execd/7\"}}",
	                                       &err), 0);
	ck_assert_int_eq(osb_policy_apply_json(p, "{\"workspace\": {\"path\": \"/srv/execdx/7\"}}",
	                                       &err), -OSB_E_POLICY);
	snprintf(want, sizeof(want), "\"workspace.path\": \"/srv/execdx/7\" is not beneath a "
	         "configured workspace root (workspace-root in %s: /srv/execd, /data/ws)", path);
	ck_assert_str_eq(err.message, want);
	ck_assert_int_eq(osb_policy_apply_json(p, "{\"workspace\": {\"path\": \"/srv/execd\"}}",
	                                       &err), -OSB_E_POLICY);
	ck_assert_str_eq(p->ws_path, "/srv/execd/7");
	/* A persisted layer lies beneath the same roots. */
	ck_assert_int_eq(osb_policy_apply_json(p, "{\"workspace\": {\"mode\": \"overlay\", "
	                                       "\"persist\": \"/var/layers/7\"}}", &err), -OSB_E_POLICY);
	snprintf(want, sizeof(want), "\"workspace.persist\": \"/var/layers/7\" is not beneath a "
	         "configured workspace root (workspace-root in %s: /srv/execd, /data/ws)", path);
	ck_assert_str_eq(err.message, want);
	ck_assert_ptr_null(p->ws_persist);
	ck_assert_int_eq(osb_policy_apply_json(p, "{\"workspace\": {\"mode\": \"overlay\", "
	                                       "\"persist\": \"/data/ws/layers/7\"}}", &err), 0);
	ck_assert_str_eq(p->ws_persist, "/data/ws/layers/7");
	/* NULL clears the roots. */
	ck_assert_int_eq(osb_policy_set_config(p, NULL, &err), 0);
	ck_assert_int_eq(osb_policy_apply_json(p, "{\"workspace\": {\"path\": \"/srv/x\"}}", &err), 0);
	ck_assert_int_eq(osb_policy_set_config(NULL, c, &err), -OSB_E_USAGE);
	osb_policy_free(p);
	osb_config_free(c);
}
END_TEST

static Suite *config_suite(void)
{
	Suite *s = suite_create("config");
	TCase *t = tcase_create("config");

	tcase_add_checked_fixture(t, dir_setup, dir_teardown);
	tcase_add_test(t, test_config_file_read_with_its_roots);
	tcase_add_test(t, test_config_cgroup_parents);
	tcase_add_loop_test(t, test_config_grammar_errors_are_positioned, 0,
	                    (int)(sizeof(bad_files) / sizeof(bad_files[0])));
	tcase_add_test(t, test_config_file_must_be_trusted_and_present_when_named);
	tcase_add_test(t, test_config_roots_by_calls);
	tcase_add_test(t, test_policy_with_roots_refuses_requests_outside_them);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(config_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

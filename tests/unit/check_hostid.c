/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_hostid.c — unit tests for lib/hostid.c: which host ids a sandbox
 * gets, and that two live sandboxes never share them. Allocation needs root
 * (the lock lives under /run); as another user those cases are skipped with
 * the reason, and the unprivileged cases run instead.
 */
#include "hostid.h"

#include "../skip.h"

#include <check.h>
#include <fcntl.h>
#include <sys/stat.h>

static bool root(void)
{
	return osb_test_have("root", geteuid() == 0,
	                     "needs root: the allocation lock is root's (run make check as root)");
}

static osb_policy *policy(osb_error *err)
{
	static const char text[] = "osb-policy 1\nproc /proc\n";

	return osb_policy_parse(text, sizeof(text) - 1, "t.policy", err);
}

static bool in_range(uint32_t id)
{
	return id >= HOSTID_RANGE_BASE && id < HOSTID_RANGE_BASE + HOSTID_RANGE_SIZE;
}

START_TEST(test_root_gets_allocated_ids_no_account_uses)
{
	osb_error err = { 0 };
	osb_policy *p = policy(&err);
	hostid a = HOSTID_INIT, b = HOSTID_INIT;

	if (!root())
		return;
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(hostid_acquire(p, geteuid(), getegid(), &a, &err), 0);
	ck_assert_int_eq(hostid_acquire(p, geteuid(), getegid(), &b, &err), 0);
	ck_assert_int_eq(a.kind, HOSTID_ALLOCATED);
	ck_assert(in_range(a.uid) && in_range(b.uid));
	ck_assert_uint_eq(a.uid, a.gid);
	/* Both are held at once: they must differ. */
	ck_assert_uint_ne(a.uid, b.uid);
	ck_assert(!hostid_uid_is_account(a.uid) && !hostid_gid_is_group(a.gid));
	ck_assert_int_ge(a.lock_fd, 0);
	hostid_release(&a);
	hostid_release(&b);
	ck_assert_int_eq(a.lock_fd, -1);
	hostid_release(&a);   /* idempotent */
	osb_policy_free(p);
}
END_TEST

/* The lock is what keeps ids apart: with every byte of the range held by
 * someone else, no id is handed out and the refusal says why. */
START_TEST(test_every_id_locked_is_a_clear_refusal)
{
	char path[] = "/tmp/osb-hostid-lock.XXXXXX";
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0,
	                    .l_len = HOSTID_RANGE_SIZE };
	osb_error err = { 0 };
	hostid a = HOSTID_INIT, b = HOSTID_INIT;
	int holder = mkstemp(path);
	int fd1 = open(path, O_RDWR | O_CLOEXEC), fd2 = open(path, O_RDWR | O_CLOEXEC);
	int fd3 = open(path, O_RDWR | O_CLOEXEC);

	ck_assert(holder >= 0 && fd1 >= 0 && fd2 >= 0 && fd3 >= 0);
	unlink(path);
	/* Two open descriptions (two sandboxes, even of one process) hold two
	 * different ids. */
	ck_assert_int_eq(hostid_allocate_from(fd1, &a, &err), 0);
	ck_assert_int_eq(hostid_allocate_from(fd2, &b, &err), 0);
	ck_assert_uint_ne(a.uid, b.uid);
	close(fd1);
	close(fd2);
	/* Every byte held elsewhere: no id, and the refusal says why. */
	ck_assert_int_eq(fcntl(holder, F_OFD_SETLK, &fl), 0);
	ck_assert_int_eq(hostid_allocate_from(fd3, &a, &err), -OSB_E_HOST);
	ck_assert_str_eq(err.stage, "identity");
	ck_assert_ptr_nonnull(strstr(err.message, "all 65536 host ids of the range 1879048192-1879113727 "
	                                          "are in use"));
	close(fd3);
	close(holder);
}
END_TEST

START_TEST(test_lock_file_is_roots_only)
{
	struct stat st;
	osb_error err = { 0 };
	osb_policy *p = policy(&err);
	hostid a = HOSTID_INIT;

	if (!root())
		return;
	ck_assert_int_eq(hostid_acquire(p, geteuid(), getegid(), &a, &err), 0);
	hostid_release(&a);
	ck_assert_int_eq(lstat(HOSTID_LOCK_DIR, &st), 0);
	/* 0700: it is also root's session directory without XDG_RUNTIME_DIR
	 * (helper/session-wire.c), which refuses any other mode; a run must not
	 * make a later `session start` fail, nor may an older 0755 one. */
	ck_assert(S_ISDIR(st.st_mode) && st.st_uid == 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0700);
	ck_assert_int_eq(lstat(HOSTID_LOCK_FILE, &st), 0);
	ck_assert(S_ISREG(st.st_mode) && st.st_uid == 0 && (st.st_mode & 07777) == 0600);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_pinned_ids_used_as_given_by_root)
{
	osb_error err = { 0 };
	osb_policy *p = policy(&err);
	hostid a = HOSTID_INIT;

	ck_assert_int_eq(osb_policy_set_host_ids(p, 1879300000, 1879300001, &err), 0);
	if (geteuid() == 0) {
		ck_assert_int_eq(hostid_acquire(p, geteuid(), getegid(), &a, &err), 0);
		ck_assert_int_eq(a.kind, HOSTID_PINNED);
		ck_assert_uint_eq(a.uid, 1879300000);
		ck_assert_uint_eq(a.gid, 1879300001);
		ck_assert_int_eq(a.lock_fd, -1);
	} else {
		ck_assert_int_eq(hostid_acquire(p, geteuid(), getegid(), &a, &err), -OSB_E_POLICY);
		ck_assert_str_eq(err.message, "api:0: host-ids 1879300000 1879300001: only root can "
		                 "choose the host ids of a sandbox; an unprivileged caller's sandbox is "
		                 "the caller itself");
	}
	osb_policy_free(p);
}
END_TEST

START_TEST(test_host_ids_zero_refused_everywhere)
{
	osb_error err = { 0 };
	osb_policy *p = policy(&err);
	static const char text[] = "osb-policy 1\nproc /proc\nhost-ids 5 0\n";

	ck_assert_int_eq(osb_policy_set_host_ids(p, 0, 7, &err), -OSB_E_USAGE);
	ck_assert_int_eq(osb_policy_set_host_ids(p, 7, 0, &err), -OSB_E_USAGE);
	ck_assert(!p->host_ids_set.set);
	ck_assert_ptr_null(osb_policy_parse(text, sizeof(text) - 1, "z.policy", &err));
	ck_assert_str_eq(err.message, "z.policy:3:12: invalid host gid 0: a sandbox never runs as "
	                 "host root");
	osb_policy_free(p);
}
END_TEST

/* An unprivileged caller's sandbox is the caller: nothing to allocate. */
START_TEST(test_unprivileged_caller_is_itself)
{
	osb_error err = { 0 };
	osb_policy *p = policy(&err);
	hostid a = HOSTID_INIT;

	if (!osb_test_have("unprivileged", geteuid() != 0,
	                   "needs an unprivileged caller (run make check as a user)")) {
		osb_policy_free(p);
		return;
	}
	ck_assert_int_eq(hostid_acquire(p, geteuid(), getegid(), &a, &err), 0);
	ck_assert_int_eq(a.kind, HOSTID_CALLER);
	ck_assert_uint_eq(a.uid, geteuid());
	ck_assert_int_eq(a.lock_fd, -1);
	osb_policy_free(p);
}
END_TEST

/* The canonical form (and so the hash) names pinned ids only when set, so
 * every policy without them keeps its hash. */
START_TEST(test_host_ids_in_canonical_form_only_when_set)
{
	static const char a[] = "osb-policy 1\nproc /proc\n";
	static const char b[] = "osb-policy 1\nproc /proc\nhost-ids 1879300000 1879300000\n";
	osb_error err = { 0 };
	osb_policy *pa = osb_policy_parse(a, sizeof(a) - 1, "a.policy", &err);
	osb_policy *pb = osb_policy_parse(b, sizeof(b) - 1, "b.policy", &err);
	char ha[OSB_POLICY_HASH_LEN], hb[OSB_POLICY_HASH_LEN];
	char *ea, *eb;

	ck_assert_ptr_nonnull(pa);
	ck_assert_ptr_nonnull(pb);
	osb_policy_hash(pa, ha);
	osb_policy_hash(pb, hb);
	ck_assert_str_ne(ha, hb);
	ea = osb_policy_explain(pa, 0);
	eb = osb_policy_explain(pb, 0);
	ck_assert_ptr_null(strstr(ea, "host-ids"));
	ck_assert_ptr_nonnull(strstr(eb, "host-ids 1879300000 1879300000"));
	osb_free(ea);
	osb_free(eb);
	osb_policy_free(pa);
	osb_policy_free(pb);
}
END_TEST

/* A request may pin ids nobody uses, never an account's, and both at once. */
START_TEST(test_request_host_ids)
{
	osb_error err = { 0 };
	osb_policy *p = policy(&err);

	ck_assert_int_eq(osb_policy_apply_json(p, "{\"host_uid\":1,\"host_gid\":1879300000}", &err),
	                 -OSB_E_POLICY);
	ck_assert_ptr_nonnull(strstr(err.message, "\"host_uid\": 1 belongs to an account"));
	ck_assert_int_eq(osb_policy_apply_json(p, "{\"host_uid\":1879300000}", &err), -OSB_E_POLICY);
	ck_assert_ptr_nonnull(strstr(err.message, "go together"));
	ck_assert_int_eq(osb_policy_apply_json(p, "{\"host_uid\":0,\"host_gid\":0}", &err),
	                 -OSB_E_POLICY);
	ck_assert(!p->host_ids_set.set);
	ck_assert_int_eq(osb_policy_apply_json(p, "{\"host_uid\":1879300000,\"host_gid\":1879300002}",
	                                       &err), 0);
	ck_assert(p->host_ids_set.set);
	ck_assert_uint_eq(p->host_uid, 1879300000);
	ck_assert_uint_eq(p->host_gid, 1879300002);
	osb_policy_free(p);
}
END_TEST

static Suite *hostid_suite(void)
{
	Suite *s = suite_create("hostid");
	TCase *tc = tcase_create("hostid");

	tcase_add_test(tc, test_root_gets_allocated_ids_no_account_uses);
	tcase_add_test(tc, test_every_id_locked_is_a_clear_refusal);
	tcase_add_test(tc, test_lock_file_is_roots_only);
	tcase_add_test(tc, test_pinned_ids_used_as_given_by_root);
	tcase_add_test(tc, test_host_ids_zero_refused_everywhere);
	tcase_add_test(tc, test_unprivileged_caller_is_itself);
	tcase_add_test(tc, test_host_ids_in_canonical_form_only_when_set);
	tcase_add_test(tc, test_request_host_ids);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(hostid_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

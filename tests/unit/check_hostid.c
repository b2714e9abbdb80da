/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_hostid.c — unit tests for lib/hostid.c: which host ids a sandbox
 * gets, and that two live sandboxes never share them. Allocation needs root
 * (the lock lives under /run); as another user those cases are skipped with
 * the reason, and the unprivileged cases run instead.
 */
#include "hostid.h"
#include "launch.h"

#include "../skip.h"

#include <check.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
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

/* The account lookups, seen from inside: the library in this program calls
 * these, which note which process asked (in memory a child shares) and then
 * ask the C library. */
static struct lookups {
	pid_t test;            /* the test's own process */
	int asked_here, asked_apart;
	bool kill_apart;       /* a lookup in a child kills it */
	uint32_t busy;         /* an id the lookups say an account and a group use */
	int marker;            /* an fd of the test's, and how often a child's */
	int marker_apart;      /* lookup found it open */
} *seen;

static void note_lookup(void)
{
	if (!seen)
		return;
	if (getpid() == seen->test) {
		__atomic_add_fetch(&seen->asked_here, 1, __ATOMIC_SEQ_CST);
		return;
	}
	__atomic_add_fetch(&seen->asked_apart, 1, __ATOMIC_SEQ_CST);
	if (seen->marker > 2 && fcntl(seen->marker, F_GETFD) != -1)
		__atomic_add_fetch(&seen->marker_apart, 1, __ATOMIC_SEQ_CST);
	if (seen->kill_apart)
		raise(SIGKILL);
}

int getpwuid_r(uid_t uid, struct passwd *pw, char *buf, size_t len, struct passwd **res)
{
	int (*real)(uid_t, struct passwd *, char *, size_t, struct passwd **) =
		(int (*)(uid_t, struct passwd *, char *, size_t, struct passwd **))dlsym(RTLD_NEXT, "getpwuid_r");

	note_lookup();
	if (seen && seen->busy && uid == seen->busy) {
		*pw = (struct passwd){ .pw_name = (char *)"busy", .pw_passwd = (char *)"x",
		                       .pw_uid = uid, .pw_gid = uid, .pw_gecos = (char *)"",
		                       .pw_dir = (char *)"/", .pw_shell = (char *)"/bin/sh" };
		*res = pw;
		return 0;
	}
	return real(uid, pw, buf, len, res);
}

int getgrgid_r(gid_t gid, struct group *gr, char *buf, size_t len, struct group **res)
{
	int (*real)(gid_t, struct group *, char *, size_t, struct group **) =
		(int (*)(gid_t, struct group *, char *, size_t, struct group **))dlsym(RTLD_NEXT, "getgrgid_r");

	note_lookup();
	if (seen && seen->busy && gid == seen->busy) {
		static char *none[] = { NULL };

		*gr = (struct group){ .gr_name = (char *)"busy", .gr_passwd = (char *)"x",
		                      .gr_gid = gid, .gr_mem = none };
		*res = gr;
		return 0;
	}
	return real(gid, gr, buf, len, res);
}

static void unwatch_lookups(void)
{
	munmap(seen, sizeof(*seen));
	seen = NULL;
}

static void watch_lookups(bool kill_apart)
{
	seen = mmap(NULL, sizeof(*seen), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert(seen != MAP_FAILED);
	*seen = (struct lookups){ .test = getpid(), .kill_apart = kill_apart };
}

/* A lock file of the test's own, so that live sandboxes are not contended with. */
static int test_lock_file(void)
{
	char path[] = "/tmp/osb-hostid-lock.XXXXXX";
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	unlink(path);
	return fd;
}

/* A session's starter lives as long as the session (the CLI's holder): when
 * it has one thread, the account lookups run in a child, so that the name
 * service's modules never load into it; a one-shot launch asks itself. */
START_TEST(test_session_lookups_run_in_a_child)
{
	osb_error err = { 0 };
	hostid a = HOSTID_INIT, b = HOSTID_INIT;
	int fd = test_lock_file(), fd2 = test_lock_file();

	watch_lookups(false);
	ck_assert_int_eq(hostid_allocate_from(fd, true, &a, &err), 0);
	ck_assert_int_eq(a.kind, HOSTID_ALLOCATED);
	ck_assert(in_range(a.uid));
	ck_assert_int_eq(seen->asked_here, 0);
	ck_assert_int_ge(seen->asked_apart, 2);   /* the uid and the gid, of each candidate */
	/* The answer is the one a lookup here gives. */
	ck_assert(!hostid_uid_is_account(a.uid) && !hostid_gid_is_group(a.gid));
	*seen = (struct lookups){ .test = getpid() };
	ck_assert_int_eq(hostid_allocate_from(fd2, false, &b, &err), 0);
	ck_assert_int_ge(seen->asked_here, 2);
	ck_assert_int_eq(seen->asked_apart, 0);
	hostid_release(&a);
	hostid_release(&b);
	unwatch_lookups();
}
END_TEST

/* The lookup child holds none of the starter's descriptors (a session's
 * sockets, its id locks): the name service's modules run there for as long
 * as they take, and must not keep a peer from seeing an end. */
START_TEST(test_lookup_child_holds_none_of_the_starters_fds)
{
	osb_error err = { 0 };
	hostid a = HOSTID_INIT;
	int fd = test_lock_file(), marker = open("/dev/null", O_RDONLY);   /* no O_CLOEXEC either */

	ck_assert_int_gt(marker, 2);
	watch_lookups(false);
	seen->marker = marker;
	ck_assert_int_eq(hostid_allocate_from(fd, true, &a, &err), 0);
	ck_assert_int_ge(seen->asked_apart, 2);
	ck_assert_int_eq(seen->marker_apart, 0);
	/* The starter's own are untouched. */
	ck_assert_int_ne(fcntl(marker, F_GETFD), -1);
	ck_assert_int_ne(fcntl(fd, F_GETFD), -1);
	hostid_release(&a);
	unwatch_lookups();
	close(marker);
}
END_TEST

static void *wait_for_end(void *arg)
{
	char c;

	(void)!read(*(int *)arg, &c, 1);
	return NULL;
}

/* A fork of a multithreaded process may run only async-signal-safe code:
 * there the lookups stay in the process (execd's case). */
START_TEST(test_multithreaded_starter_asks_itself)
{
	osb_error err = { 0 };
	hostid a = HOSTID_INIT;
	int fd = test_lock_file(), end[2];
	pthread_t t;

	ck_assert_int_eq(pipe(end), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, wait_for_end, &end[0]), 0);
	watch_lookups(false);
	ck_assert_int_eq(hostid_allocate_from(fd, true, &a, &err), 0);
	ck_assert_int_ge(seen->asked_here, 2);
	ck_assert_int_eq(seen->asked_apart, 0);
	ck_assert_int_eq(write(end[1], "x", 1), 1);
	pthread_join(t, NULL);
	hostid_release(&a);
	unwatch_lookups();
}
END_TEST

/* A lookup child that ends without an answer (here killed, as a module that
 * crashes would) is refused, not read as "no account has it". */
START_TEST(test_lookup_child_without_answer_refused)
{
	osb_error err = { 0 };
	hostid a = HOSTID_INIT;
	int fd = test_lock_file();
	char want[400];

	watch_lookups(true);
	ck_assert_int_eq(hostid_allocate_from(fd, true, &a, &err), -OSB_E_HOST);
	ck_assert_int_eq(a.lock_fd, -1);
	ck_assert_str_eq(err.stage, "identity");
	ck_assert_int_eq(err.sys_errno, EPROTO);
	ck_assert_int_eq(seen->asked_apart, 1);
	ck_assert_int_eq(sscanf(err.message, "the account lookup of host id %u", &a.uid), 1);
	ck_assert(in_range(a.uid));
	snprintf(want, sizeof(want),
	         "the account lookup of host id %u (getpwuid_r and getgrgid_r, in a child process) "
	         "was killed by signal 9 (SIGKILL) without an answer; check the host's name service "
	         "(the passwd and group lines of /etc/nsswitch.conf)", a.uid);
	ck_assert_str_eq(err.message, want);
	/* Its lock byte was given back: the id may be taken again. */
	{
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
		                    .l_start = (off_t)(a.uid - HOSTID_RANGE_BASE), .l_len = 1 };
		int other = dup(fd), fresh;
		char path[64];

		snprintf(path, sizeof(path), "/proc/self/fd/%d", other);
		fresh = open(path, O_RDWR | O_CLOEXEC);
		ck_assert_int_ge(fresh, 0);
		ck_assert_int_eq(fcntl(fresh, F_OFD_SETLK, &fl), 0);
		close(fresh);
		close(other);
	}
	close(fd);
	unwatch_lookups();
}
END_TEST

START_TEST(test_root_gets_allocated_ids_no_account_uses)
{
	osb_error err = { 0 };
	osb_policy *p = policy(&err);
	hostid a = HOSTID_INIT, b = HOSTID_INIT;

	if (!root())
		return;
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(hostid_acquire(p, geteuid(), getegid(), false, &a, &err), 0);
	ck_assert_int_eq(hostid_acquire(p, geteuid(), getegid(), false, &b, &err), 0);
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
	ck_assert_int_eq(hostid_allocate_from(fd1, false, &a, &err), 0);
	ck_assert_int_eq(hostid_allocate_from(fd2, false, &b, &err), 0);
	ck_assert_uint_ne(a.uid, b.uid);
	close(fd1);
	close(fd2);
	/* Every byte held elsewhere: no id, and the refusal says why. */
	ck_assert_int_eq(fcntl(holder, F_OFD_SETLK, &fl), 0);
	ck_assert_int_eq(hostid_allocate_from(fd3, false, &a, &err), -OSB_E_HOST);
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
	ck_assert_int_eq(hostid_acquire(p, geteuid(), getegid(), false, &a, &err), 0);
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
		ck_assert_int_eq(hostid_acquire(p, geteuid(), getegid(), false, &a, &err), 0);
		ck_assert_int_eq(a.kind, HOSTID_PINNED);
		ck_assert_uint_eq(a.uid, 1879300000);
		ck_assert_uint_eq(a.gid, 1879300001);
		ck_assert_int_eq(a.lock_fd, -1);
	} else {
		ck_assert_int_eq(hostid_acquire(p, geteuid(), getegid(), false, &a, &err), -OSB_E_POLICY);
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
	ck_assert_int_eq(hostid_acquire(p, geteuid(), getegid(), false, &a, &err), 0);
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

/* ---- asked ahead (launch.c: the lookups beside the rest of a launch) ------- */

/* An ask starts only where a CPU is free beside the launch. */
static bool two_cpus(void)
{
	cpu_set_t set;

	return osb_test_have("two CPUs", sched_getaffinity(0, sizeof(set), &set) < 0 ||
	                     CPU_COUNT(&set) > 1,
	                     "needs two CPUs: a launch asks ahead only where it may use a second");
}

/* Another open file description of FD's file: its locks contend with FD's. */
static int other_description(int fd)
{
	char path[64];
	int o;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	o = open(path, O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(o, 0);
	return o;
}

static int lock_range(int fd, short type, uint32_t from, uint32_t n)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = (off_t)from,
	                    .l_len = (off_t)n };

	return fcntl(fd, F_OFD_SETLK, &fl);
}

/* Leave only offset K of FD's file to be locked (by HOLDER, another
 * description), so that the ask's candidate is known before it asks. */
static int only_candidate(int fd, uint32_t k)
{
	int holder = other_description(fd);

	ck_assert_int_eq(lock_range(holder, F_WRLCK, 0, k), 0);
	ck_assert_int_eq(lock_range(holder, F_WRLCK, k + 1, HOSTID_RANGE_SIZE - k - 1), 0);
	return holder;
}

/* The lookups start at once in a child; the pair is handed out before the
 * answer, and the answer is the one a lookup here gives. */
START_TEST(test_ask_ahead_answers_from_a_child)
{
	osb_error err = { 0 };
	osb_policy *p = policy(&err);
	hostid_ask ask;
	hostid a = HOSTID_INIT;
	int fd = test_lock_file();

	if (!two_cpus())
		return;

	watch_lookups(false);
	ck_assert_int_eq(hostid_ask_start_from(fd, &ask), 0);
	ck_assert_int_ge(ask.answer_fd, 0);
	ck_assert(in_range(ask.ids.uid) && ask.ids.gid == ask.ids.uid);
	ck_assert_int_eq(hostid_acquire_asked(p, 0, 0, false, &ask, &a, &err), 0);
	ck_assert_int_eq(a.kind, HOSTID_ALLOCATED);
	ck_assert_int_eq(a.lock_fd, fd);
	ck_assert_uint_eq(a.uid, ask.ids.uid);
	ck_assert_int_eq(hostid_ask_answer(&ask, &err), 0);
	ck_assert_int_eq(ask.answer_fd, -1);
	ck_assert_int_eq(seen->asked_here, 0);
	ck_assert_int_ge(seen->asked_apart, 2);
	ck_assert(!hostid_uid_is_account(a.uid) && !hostid_gid_is_group(a.gid));
	/* Answered twice is answered once. */
	ck_assert_int_eq(hostid_ask_answer(&ask, &err), 0);
	hostid_release(&a);
	unwatch_lookups();
	osb_policy_free(p);
}
END_TEST

/* The candidate an account uses is answered as used, and its lock byte is
 * held by whoever was handed the pair until it lets go. */
START_TEST(test_ask_ahead_answers_used)
{
	osb_error err = { 0 };
	osb_policy *p = policy(&err);
	hostid_ask ask;
	hostid a = HOSTID_INIT;
	int fd = test_lock_file(), holder = only_candidate(fd, 77);

	if (!two_cpus())
		return;

	watch_lookups(false);
	seen->busy = HOSTID_RANGE_BASE + 77;
	ck_assert_int_eq(hostid_ask_start_from(fd, &ask), 0);
	ck_assert_uint_eq(ask.ids.uid, HOSTID_RANGE_BASE + 77);
	ck_assert_int_eq(hostid_acquire_asked(p, 0, 0, false, &ask, &a, &err), 0);
	ck_assert_int_eq(hostid_ask_answer(&ask, &err), 1);
	ck_assert_int_eq(seen->asked_here, 0);
	ck_assert_int_eq(lock_range(holder, F_WRLCK, 77, 1), -1);
	hostid_release(&a);
	ck_assert_int_eq(lock_range(holder, F_WRLCK, 77, 1), 0);
	close(holder);
	unwatch_lookups();
	osb_policy_free(p);
}
END_TEST

/* A child that ends without an answer refuses, as hostid_acquire's does. */
START_TEST(test_ask_ahead_child_without_answer_refused)
{
	osb_error err = { 0 };
	osb_policy *p = policy(&err);
	hostid_ask ask;
	hostid a = HOSTID_INIT;
	int fd = test_lock_file();
	char want[400];

	if (!two_cpus())
		return;

	watch_lookups(true);
	ck_assert_int_eq(hostid_ask_start_from(fd, &ask), 0);
	ck_assert_int_eq(hostid_acquire_asked(p, 0, 0, false, &ask, &a, &err), 0);
	ck_assert_int_eq(hostid_ask_answer(&ask, &err), -OSB_E_HOST);
	ck_assert_str_eq(err.stage, "identity");
	ck_assert_int_eq(err.sys_errno, EPROTO);
	snprintf(want, sizeof(want),
	         "the account lookup of host id %u (getpwuid_r and getgrgid_r, in a child process) "
	         "was killed by signal 9 (SIGKILL) without an answer; check the host's name service "
	         "(the passwd and group lines of /etc/nsswitch.conf)", a.uid);
	ck_assert_str_eq(err.message, want);
	hostid_release(&a);
	unwatch_lookups();
	osb_policy_free(p);
}
END_TEST

/* An ask no longer wanted (a launch refused first): its child is killed
 * and reaped, its lock byte given back. */
START_TEST(test_ask_ahead_ended_unanswered)
{
	hostid_ask ask;
	int fd = test_lock_file(), holder = only_candidate(fd, 5);
	siginfo_t si = { 0 };
	pid_t pid;

	if (!two_cpus())
		return;

	ck_assert_int_eq(hostid_ask_start_from(fd, &ask), 0);
	pid = ask.pid;
	hostid_ask_end(&ask);
	ck_assert_int_eq(ask.answer_fd, -1);
	ck_assert_int_eq(ask.ids.lock_fd, -1);
	ck_assert_int_eq(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG), -1);
	ck_assert_int_eq(errno, ECHILD);
	ck_assert_int_eq(lock_range(holder, F_WRLCK, 5, 1), 0);
	hostid_ask_end(&ask);
	close(holder);
}
END_TEST

/* Nothing is asked where hostid_acquire would not allocate, nor by a
 * multithreaded process (execd keeps the lookups of hostid_acquire). */
START_TEST(test_ask_ahead_only_for_an_allocation_single_threaded)
{
	osb_error err = { 0 };
	osb_policy *p = policy(&err), *pinned = policy(&err);
	hostid_ask ask;
	int fd = test_lock_file(), holder, end[2];
	pthread_t t;

	ck_assert_int_eq(osb_policy_set_host_ids(pinned, 1879300000, 1879300001, &err), 0);
	hostid_ask_start(p, 1000, &ask);
	ck_assert_int_eq(ask.answer_fd, -1);
	ck_assert_int_eq(ask.ids.lock_fd, -1);
	hostid_ask_start(pinned, 0, &ask);
	ck_assert_int_eq(ask.answer_fd, -1);
	ck_assert_int_eq(ask.pid, -1);
	ck_assert_int_eq(pipe(end), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, wait_for_end, &end[0]), 0);
	watch_lookups(false);
	ck_assert_int_eq(hostid_ask_start_from(fd, &ask), -1);
	ck_assert_int_eq(ask.answer_fd, -1);
	ck_assert_int_eq(seen->asked_apart + seen->asked_here, 0);
	holder = other_description(fd);
	ck_assert_int_eq(lock_range(holder, F_WRLCK, 0, HOSTID_RANGE_SIZE), 0);
	ck_assert_int_eq(write(end[1], "x", 1), 1);
	pthread_join(t, NULL);
	close(holder);
	close(fd);
	unwatch_lookups();
	osb_policy_free(p);
	osb_policy_free(pinned);
}
END_TEST

/* Nor by a process that may run on one CPU only: the child would have no
 * CPU beside the launch. */
START_TEST(test_ask_ahead_needs_a_second_cpu)
{
	int fd = test_lock_file(), st = 0;
	cpu_set_t one;
	pid_t pid;

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		hostid_ask ask;
		int holder;

		CPU_ZERO(&one);
		CPU_SET(sched_getcpu() < 0 ? 0 : sched_getcpu(), &one);
		if (sched_setaffinity(0, sizeof(one), &one) < 0)
			_exit(2);
		if (hostid_ask_start_from(fd, &ask) != -1 || ask.answer_fd != -1)
			_exit(3);
		holder = other_description(fd);
		_exit(lock_range(holder, F_WRLCK, 0, HOSTID_RANGE_SIZE) == 0 ? 0 : 4);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
	close(fd);
}
END_TEST

/* Host facts a launch could have gathered, for a root caller with user
 * namespaces (as tests/unit/check_plan.c fabricates them). */
static host_facts root_facts(void)
{
	host_facts h = {
		.euid = 0, .egid = 0, .root_caps = true,
		.bwrap_from = BWRAP_FROM_CONFIG, .bwrap_state = BWRAP_OK,
		.bwrap = (char *)"/nonexistent/bwrap", .bwrap_tried = (char *)"/nonexistent/bwrap",
		.feat = { true, true, true, true, true, true },
		.landlock_abi = 3, .init = (char *)"/bin/sh",
	};

	return h;
}

static osb_policy *plan_policy(void)
{
	static const char text[] = "osb-policy 1\nroot none\nro-bind /usr\nproc /proc\ndev /dev\n"
	                           "tmpfs /tmp\n";
	osb_error err = { 0 };
	osb_policy *p = osb_policy_parse(text, sizeof(text) - 1, "t.policy", &err);

	ck_assert_msg(p != NULL, "%s", err.message);
	return p;
}

/* The launch's plan with an asked pair an account turned out to use is
 * thrown away and made again with ids the walk looked up first (apart too:
 * the modules stay out of the launching process). */
START_TEST(test_launch_replans_when_the_asked_ids_are_used)
{
	osb_error err = { 0 };
	osb_policy *p;
	host_facts h = root_facts();
	hostid_ask ask;
	plan pl;
	int fd, holder;

	if (!root() || !two_cpus())
		return;
	p = plan_policy();
	fd = test_lock_file();
	holder = only_candidate(fd, 1234);
	watch_lookups(false);
	seen->busy = HOSTID_RANGE_BASE + 1234;
	ck_assert_int_eq(hostid_ask_start_from(fd, &ask), 0);
	ck_assert_msg(launch_plan_asked(p, &h, &(plan_request){ NULL, NULL, false, 0 }, &ask, &pl,
	                                &err) == 0, "%s", err.message);
	ck_assert_int_eq(pl.host.kind, HOSTID_ALLOCATED);
	ck_assert(in_range(pl.host.uid));
	ck_assert_uint_ne(pl.host.uid, HOSTID_RANGE_BASE + 1234);
	ck_assert_uint_eq(pl.cred.uid, pl.host.uid);
	ck_assert_int_ne(pl.host.lock_fd, fd);
	ck_assert_int_eq(seen->asked_here, 0);
	ck_assert_int_ge(seen->asked_apart, 4);   /* the asked pair's two, the new pair's two */
	/* The used pair's byte is free again: the first plan let go of it. */
	ck_assert_int_eq(lock_range(holder, F_WRLCK, 1234, 1), 0);
	plan_free(&pl);
	hostid_ask_end(&ask);
	close(holder);
	unwatch_lookups();
	osb_policy_free(p);
}
END_TEST

/* A plan made with an asked pair whose child ends without an answer is
 * thrown away, and the launch refused with the lookup's reason. */
START_TEST(test_launch_refused_when_the_ask_ends_without_answer)
{
	osb_error err = { 0 };
	osb_policy *p = plan_policy();
	host_facts h = root_facts();
	hostid_ask ask;
	plan pl;
	int fd = test_lock_file(), holder = only_candidate(fd, 9);

	if (!two_cpus())
		return;

	watch_lookups(true);
	ck_assert_int_eq(hostid_ask_start_from(fd, &ask), 0);
	ck_assert_int_eq(launch_plan_asked(p, &h, &(plan_request){ NULL, NULL, false, 0 }, &ask,
	                                   &pl, &err), -OSB_E_HOST);
	ck_assert_str_eq(err.stage, "identity");
	ck_assert_ptr_nonnull(strstr(err.message, "the account lookup of host id 1879048201 "
	                                          "(getpwuid_r and getgrgid_r, in a child process) "
	                                          "was killed by signal 9"));
	ck_assert_int_eq(pl.n_binds, 0);
	ck_assert_int_eq(pl.init_fd, -1);
	ck_assert_int_eq(pl.host.lock_fd, -1);
	ck_assert_int_eq(lock_range(holder, F_WRLCK, 9, 1), 0);
	hostid_ask_end(&ask);
	close(holder);
	unwatch_lookups();
	osb_policy_free(p);
}
END_TEST

static Suite *hostid_suite(void)
{
	Suite *s = suite_create("hostid");
	TCase *tc = tcase_create("hostid");

	tcase_add_test(tc, test_session_lookups_run_in_a_child);
	tcase_add_test(tc, test_lookup_child_holds_none_of_the_starters_fds);
	tcase_add_test(tc, test_multithreaded_starter_asks_itself);
	tcase_add_test(tc, test_lookup_child_without_answer_refused);
	tcase_add_test(tc, test_root_gets_allocated_ids_no_account_uses);
	tcase_add_test(tc, test_every_id_locked_is_a_clear_refusal);
	tcase_add_test(tc, test_lock_file_is_roots_only);
	tcase_add_test(tc, test_pinned_ids_used_as_given_by_root);
	tcase_add_test(tc, test_host_ids_zero_refused_everywhere);
	tcase_add_test(tc, test_unprivileged_caller_is_itself);
	tcase_add_test(tc, test_host_ids_in_canonical_form_only_when_set);
	tcase_add_test(tc, test_request_host_ids);
	tcase_add_test(tc, test_ask_ahead_answers_from_a_child);
	tcase_add_test(tc, test_ask_ahead_answers_used);
	tcase_add_test(tc, test_ask_ahead_child_without_answer_refused);
	tcase_add_test(tc, test_ask_ahead_ended_unanswered);
	tcase_add_test(tc, test_ask_ahead_only_for_an_allocation_single_threaded);
	tcase_add_test(tc, test_ask_ahead_needs_a_second_cpu);
	tcase_add_test(tc, test_launch_replans_when_the_asked_ids_are_used);
	tcase_add_test(tc, test_launch_refused_when_the_ask_ends_without_answer);
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

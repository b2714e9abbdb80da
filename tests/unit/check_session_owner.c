/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_session_owner.c — sessions owned by the library's own process, not
 * by the caller's thread (lib/session-owner.c, helper/session-owner.c): a
 * session started on a thread that then exits still serves; a daemon killed
 * with SIGKILL leaves nothing behind (no process, no cgroup, no host-id
 * lock); a detached session is attached from another process and serves it
 * its files; a process of another uid cannot attach. Real sessions, real
 * processes, checked on the host.
 */
#include "osb-isolate.h"
#include "hostid.h"
#include "plan.h"
#include "session-owner.h"
#include "sandbox-main.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef TEST_BUILDDIR
#error "TEST_BUILDDIR must name the build tree"
#endif

static char ws[PATH_MAX], dir[PATH_MAX];

static void setup_dirs(void)
{
	snprintf(ws, sizeof(ws), "/tmp/osb-owner-ws.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(ws));
	ck_assert_int_eq(chmod(ws, 0777), 0);
	snprintf(dir, sizeof(dir), "/tmp/osb-owner-dir.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown_dirs(void)
{
	int r = rmdir(ws);

	ck_assert_msg(r == 0, "rmdir %s: %s", ws, strerror(errno));
	r = rmdir(dir);
	ck_assert_msg(r == 0, "rmdir %s: %s (a socket left behind?)", dir, strerror(errno));
}

static osb_policy *policy_text(const char *extra)
{
	char text[512], name[PATH_MAX];
	osb_policy *p;
	osb_error err;
	int n = snprintf(text, sizeof(text), "osb-policy 1\ninclude strict.policy\n%s", extra);

	snprintf(name, sizeof(name), "%s/policy/owner-test.policy", TEST_SRCDIR);
	p = osb_policy_parse(text, (size_t)n, name, &err);
	ck_assert_msg(p != NULL, "%s", err.message);
	ck_assert_int_eq(osb_policy_set_workspace(p, ws, &err), 0);
	return p;
}

/* Run SCRIPT in S; its exit code, stdout into OUT. */
static int run_sh(osb_session *s, const char *script, char *out, size_t size)
{
	const char *argv[] = { "sh", "-c", script, NULL };
	osb_exec *e = osb_exec_new(argv, NULL);
	osb_result *res = NULL;
	osb_error err;
	int code;

	osb_exec_set_capture(e, 1);
	ck_assert_msg(osb_session_run(s, e, &res, &err) == 0, "%s: %s", err.stage, err.message);
	code = osb_result_exit_code(res);
	if (out)
		snprintf(out, size, "%s", osb_result_stdout(res, NULL));
	osb_result_free(res);
	osb_exec_free(e);
	return code;
}

/* ---- a thread that exits ---------------------------------------------------------- */

static void *start_on_thread(void *arg)
{
	osb_error err;
	osb_session *s = osb_session_start((const osb_policy *)arg, &err);

	ck_assert_msg(s != NULL, "%s", err.message);
	return s;
}

START_TEST(test_session_started_on_a_thread_that_exits_still_serves)
{
	osb_policy *p = policy_text("");
	osb_session *s = NULL;
	pthread_t th;
	char out[64];

	ck_assert_int_eq(pthread_create(&th, NULL, start_on_thread, p), 0);
	ck_assert_int_eq(pthread_join(th, (void **)&s), 0);
	/* The thread is gone; before, bwrap's parent-death signal followed it. */
	usleep(300 * 1000);
	ck_assert_int_eq(osb_session_end_reason(s), OSB_SESSION_RUNNING);
	ck_assert_int_eq(run_sh(s, "echo alive", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "alive\n");
	osb_session_free(s);
	osb_policy_free(p);
}
END_TEST

/* ---- a daemon killed -------------------------------------------------------------------- */

static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512], *close_paren;
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
	close_paren = strrchr(buf, ')');
	if (!close_paren || sscanf(close_paren + 1, " %*c %d", &ppid) != 1)
		return 0;
	return (pid_t)ppid;
}

/* pidfds of every process below TOP (at most MAX). */
static size_t descendants(pid_t top, int *pidfds, pid_t *pids, size_t max)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t n = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)) && n < max) {
		pid_t pid = (pid_t)atoi(de->d_name), up = pid;
		int depth = 0;

		while (up > 1 && up != top && depth++ < 64)
			up = parent_of(up);
		if (pid <= 1 || pid == top || up != top)
			continue;
		pidfds[n] = (int)syscall(SYS_pidfd_open, pid, 0);
		pids[n] = pid;
		if (pidfds[n] >= 0)
			n++;
	}
	closedir(d);
	return n;
}

/* The directory of PID's cgroup in the hierarchy with the pids controller. */
static bool pids_cgroup_dir(pid_t pid, char *out, size_t size)
{
	char path[64], line[1024];
	FILE *f;
	bool found = false;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *rel = strchr(line, '/');

		line[strcspn(line, "\n")] = '\0';
		if (!rel)
			continue;
		if (strstr(line, ":pids:")) {
			snprintf(out, size, "/sys/fs/cgroup/pids%s", rel);
			found = true;
		} else if (strncmp(line, "0::", 3) == 0 && access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0) {
			snprintf(out, size, "/sys/fs/cgroup%s", rel);
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* The daemon: start a session (from a thread that exits), run a command
 * that leaves a process behind, say the host ids and the sandbox's pid 1,
 * then wait to be killed. */
__attribute__((noreturn)) static void daemon_main(int report, const char *extra)
{
	osb_policy *p = policy_text(extra);
	osb_session *s = NULL;
	pthread_t th;
	osb_result *res = NULL;
	const char *argv[] = { "sh", "-c", "setsid sleep 1000 >/dev/null 2>&1 & sleep 0.3; echo started", NULL };
	osb_exec *e = osb_exec_new(argv, NULL);
	osb_error err;
	uint32_t uid = 0, gid = 0;
	char msg[64];

	if (pthread_create(&th, NULL, start_on_thread, p) != 0 || pthread_join(th, (void **)&s) != 0 ||
	    !s)
		_exit(3);
	if (osb_session_run(s, e, &res, &err) < 0 || osb_result_host_ids(res, &uid, &gid) < 0)
		_exit(4);
	snprintf(msg, sizeof(msg), "%u %u\n", uid, gid);
	if (write(report, msg, strlen(msg)) < 0)
		_exit(5);
	pause();
	_exit(6);
}

static bool lock_byte_free(uint32_t uid)
{
	int fd = open(HOSTID_LOCK_FILE, O_RDWR | O_CLOEXEC);
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
	                    .l_start = (off_t)(uid - HOSTID_RANGE_BASE), .l_len = 1 };
	bool free_now;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fcntl(fd, F_OFD_GETLK, &fl), 0);
	free_now = fl.l_type == F_UNLCK;
	close(fd);
	return free_now;
}

static bool all_exited(const int *pidfds, size_t n, int timeout_ms)
{
	for (size_t i = 0; i < n; i++) {
		struct pollfd p = { .fd = pidfds[i], .events = POLLIN };

		if (poll(&p, 1, timeout_ms) != 1)
			return false;
	}
	return true;
}

static void check_killed_daemon(const char *extra, bool want_cgroup)
{
	int pipefd[2], pidfds[32], status;
	pid_t pids[32], daemon;
	size_t n;
	char buf[64] = "", cg[PATH_MAX] = "", mine[PATH_MAX] = "";
	uint32_t uid = 0, gid = 0;
	ssize_t got;
	struct stat st;

	ck_assert_int_eq(pipe2(pipefd, O_CLOEXEC), 0);
	daemon = fork();
	ck_assert_int_ge(daemon, 0);
	if (daemon == 0)
		daemon_main(pipefd[1], extra);
	close(pipefd[1]);
	got = read(pipefd[0], buf, sizeof(buf) - 1);
	ck_assert_msg(got > 0, "the daemon did not start its session");
	buf[got] = '\0';
	ck_assert_int_eq(sscanf(buf, "%u %u", &uid, &gid), 2);
	n = descendants(daemon, pidfds, pids, 32);
	/* The owner, bwrap, the broker (pid 1), the shell's sleep. */
	ck_assert_uint_ge(n, 4);
	if (want_cgroup) {
		ck_assert(pids_cgroup_dir(pids[n - 1], cg, sizeof(cg)));
		ck_assert(pids_cgroup_dir(getpid(), mine, sizeof(mine)));
		ck_assert_str_ne(cg, mine);
		ck_assert_int_eq(stat(cg, &st), 0);
	}
	if (geteuid() == 0 && uid >= HOSTID_RANGE_BASE)
		ck_assert(!lock_byte_free(uid));
	ck_assert_int_eq(kill(daemon, SIGKILL), 0);
	ck_assert_int_eq(waitpid(daemon, &status, 0), daemon);
	ck_assert_msg(all_exited(pidfds, n, 5000), "a process of the session outlived its daemon");
	for (int tries = 0; want_cgroup && tries < 100 && stat(cg, &st) == 0; tries++)
		usleep(50 * 1000);
	if (want_cgroup)
		ck_assert_msg(stat(cg, &st) < 0 && errno == ENOENT, "%s is left", cg);
	if (geteuid() == 0 && uid >= HOSTID_RANGE_BASE) {
		for (int tries = 0; tries < 100 && !lock_byte_free(uid); tries++)
			usleep(50 * 1000);
		ck_assert_msg(lock_byte_free(uid), "the host-id lock of uid %u is still held", uid);
	}
	for (size_t i = 0; i < n; i++)
		close(pidfds[i]);
	close(pipefd[0]);
}

START_TEST(test_daemon_killed_leaves_no_process_no_lock)
{
	check_killed_daemon("", false);
}
END_TEST

START_TEST(test_daemon_killed_leaves_no_cgroup)
{
	osb_policy *p;
	osb_session *s;
	osb_error err;

	if (!osb_test_have("root", geteuid() == 0, "the sandbox cgroups of this test need root"))
		return;
	/* Can a session get a cgroup here at all? */
	p = policy_text("limit pids 256\n");
	s = osb_session_start(p, &err);
	osb_policy_free(p);
	if (!osb_test_have(access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0 ? "cgroup-v2"
	                   : "cgroup-v1", s != NULL, err.message))
		return;
	ck_assert_msg(s != NULL, "%s", err.message);
	osb_session_free(s);
	check_killed_daemon("limit pids 256\n", true);
}
END_TEST

/* ---- detach and attach -------------------------------------------------------------- */

START_TEST(test_detached_session_is_attached_from_a_new_process)
{
	int status;
	pid_t first = fork();
	osb_session *s;
	osb_error err;
	char out[64], sock[PATH_MAX + 16];
	struct stat st;

	ck_assert_int_ge(first, 0);
	if (first == 0) {
		osb_policy *p = policy_text("");

		s = osb_session_start(p, &err);
		if (!s || run_sh(s, "echo kept > /tmp/note; setsid sleep 1000 >/dev/null 2>&1 & sleep 0.3", NULL, 0) != 0)
			_exit(2);
		if (osb_session_detach(s, dir, "job-1", &err) < 0) {
			fprintf(stderr, "detach: %s\n", err.message);
			_exit(3);
		}
		/* A second detach, and a bad id, are refused. */
		if (osb_session_detach(s, dir, "job-2", &err) != -OSB_E_USAGE)
			_exit(4);
		_exit(0);   /* the daemon goes; the session stays */
	}
	ck_assert_int_eq(waitpid(first, &status, 0), first);
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	snprintf(sock, sizeof(sock), "%s/job-1.sock", dir);
	ck_assert_int_eq(stat(sock, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	s = osb_session_attach(dir, "job-1", &err);
	ck_assert_msg(s != NULL, "attach: %s", err.message);
	ck_assert_int_eq(run_sh(s, "cat /tmp/note", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "kept\n");
	ck_assert_int_eq(osb_session_end_reason(s), OSB_SESSION_RUNNING);
	/* Freeing an attached handle leaves the session: attach again. */
	osb_session_free(s);
	s = osb_session_attach(dir, "job-1", &err);
	ck_assert_msg(s != NULL, "attach again: %s", err.message);
	ck_assert_int_eq(osb_session_destroy(s, &err), 0);
	ck_assert_int_eq(osb_session_end_reason(s), OSB_SESSION_END_DESTROYED);
	osb_session_free(s);
	/* Destroyed: the socket is gone, nobody serves the id. */
	ck_assert_int_eq(stat(sock, &st), -1);
	ck_assert_ptr_null(osb_session_attach(dir, "job-1", &err));
	ck_assert_int_eq(err.code, OSB_E_SANDBOX);
	ck_assert_ptr_null(osb_session_attach(dir, "../x", &err));
	ck_assert_int_eq(err.code, OSB_E_USAGE);
	ck_assert_ptr_null(osb_session_attach("relative", "x", &err));
	ck_assert_int_eq(err.code, OSB_E_USAGE);
}
END_TEST

START_TEST(test_detach_refuses_a_directory_others_can_write)
{
	osb_policy *p = policy_text("");
	osb_session *s = osb_session_start(p, NULL);
	osb_error err;

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(chmod(dir, 0777), 0);
	ck_assert_int_eq(osb_session_detach(s, dir, "x", &err), -OSB_E_PATH);
	ck_assert_msg(strstr(err.message, "writable by nobody else") != NULL, "%s", err.message);
	ck_assert_int_eq(chmod(dir, 0700), 0);
	ck_assert_int_eq(osb_session_detach(s, dir, ".hidden", &err), -OSB_E_USAGE);
	osb_session_free(s);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_another_uid_cannot_attach)
{
	osb_policy *p;
	osb_session *s;
	osb_error err;
	char sock[PATH_MAX + 16];
	int status;
	pid_t other;

	if (!osb_test_have("root", geteuid() == 0, "switching to another uid needs root"))
		return;
	p = policy_text("");
	s = osb_session_start(p, &err);
	ck_assert_msg(s != NULL, "%s", err.message);
	ck_assert_int_eq(osb_session_detach(s, dir, "mine", &err), 0);
	/* Open the way on purpose: only the owner's own check is left. */
	snprintf(sock, sizeof(sock), "%s/mine.sock", dir);
	ck_assert_int_eq(chmod(dir, 0755), 0);
	ck_assert_int_eq(chmod(sock, 0666), 0);
	other = fork();
	ck_assert_int_ge(other, 0);
	if (other == 0) {
		osb_session *o;

		if (setgroups(0, NULL) != 0 || setresgid(65534, 65534, 65534) != 0 ||
		    setresuid(65534, 65534, 65534) != 0)
			_exit(2);
		o = osb_session_attach(dir, "mine", &err);
		if (o)
			_exit(3);
		_exit(err.code == OSB_E_SANDBOX && err.sys_errno == EPERM &&
		      strstr(err.message, "only its own uid or root may attach") ? 0 : 4);
	}
	ck_assert_int_eq(waitpid(other, &status, 0), other);
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ck_assert_int_eq(chmod(dir, 0700), 0);
	/* Still served to its own uid. */
	ck_assert_int_eq(run_sh(s, "true", NULL, 0), 0);
	ck_assert_int_eq(osb_session_destroy(s, &err), 0);
	osb_session_free(s);
	osb_policy_free(p);
}
END_TEST

/* A process of the owner's uid in a pid namespace beneath the owner's, as a
 * command inside a sandbox is (an unprivileged caller's runs as the caller's
 * uid on the host), is refused: an attacher gets the broker's socket and the
 * sandbox's pid 1 (lib/peer-pidns.h). Before, it attached like the daemon. */
START_TEST(test_a_process_of_another_pid_namespace_cannot_attach)
{
	osb_policy *p;
	osb_session *s;
	osb_error err;
	int status, fl = CLONE_NEWPID | (geteuid() == 0 ? 0 : CLONE_NEWUSER);
	pid_t probe, child;

	probe = fork();
	ck_assert_int_ge(probe, 0);
	if (probe == 0)
		_exit(unshare(fl) == 0 ? 0 : 1);
	ck_assert_int_eq(waitpid(probe, &status, 0), probe);
	if (!osb_test_have("pidns", WIFEXITED(status) && WEXITSTATUS(status) == 0,
	                   "unshare(CLONE_NEWPID) is refused here"))
		return;
	p = policy_text("");
	s = osb_session_start(p, &err);
	ck_assert_msg(s != NULL, "%s", err.message);
	ck_assert_int_eq(osb_session_detach(s, dir, "nested", &err), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		pid_t inner;

		if (unshare(fl) != 0)
			_exit(2);
		inner = fork();   /* pid 1 of the new namespace */
		if (inner == 0) {
			/* The library refuses the owner from here (it is of
			 * another pid namespace than ours: the next test); an
			 * attacker's client would not, so connect by hand: the
			 * owner must close without sending the two fds. */
			struct sockaddr_un sa = { .sun_family = AF_UNIX };
			union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int) * 2)]; } cm;
			char buf[4096];
			struct iovec iov = { buf, sizeof(buf) };
			struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b,
			                     .msg_controllen = sizeof(cm.b) };
			struct pollfd pf;
			int c = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
			ssize_t n;

			if (snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/nested.sock", dir) >=
			    (int)sizeof(sa.sun_path) || c < 0 ||
			    connect(c, (struct sockaddr *)&sa, sizeof(sa)) != 0)
				_exit(3);
			pf = (struct pollfd){ .fd = c, .events = POLLIN };
			if (poll(&pf, 1, 10000) != 1)
				_exit(4);
			n = recvmsg(c, &mh, 0);
			_exit(n <= 0 && CMSG_FIRSTHDR(&mh) == NULL ? 0 : 7);
		}
		if (inner < 0 || waitpid(inner, &status, 0) != inner)
			_exit(5);
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 6);
	}
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	/* Still served to its own process, and attachable from our namespace. */
	ck_assert_int_eq(run_sh(s, "true", NULL, 0), 0);
	osb_session_free(s);
	s = osb_session_attach(dir, "nested", &err);
	ck_assert_msg(s != NULL, "attach: %s", err.message);
	ck_assert_int_eq(osb_session_destroy(s, &err), 0);
	osb_session_free(s);
	osb_policy_free(p);
}
END_TEST

static const char *fake_sock_path(void)
{
	static char p[PATH_MAX + 16];

	snprintf(p, sizeof(p), "%s/fake.sock", dir);
	return p;
}

/* The other way: a socket another pid namespace listens on in DIR (a command
 * inside a sandbox whose view shows it can make one) is no owner of ours,
 * and attaching to it is refused before anything is read from it. */
START_TEST(test_an_owner_socket_of_another_pid_namespace_is_refused)
{
	osb_error err;
	int status, ready[2], fl = CLONE_NEWPID | (geteuid() == 0 ? 0 : CLONE_NEWUSER);
	pid_t probe, child;
	char c;

	probe = fork();
	ck_assert_int_ge(probe, 0);
	if (probe == 0)
		_exit(unshare(fl) == 0 ? 0 : 1);
	ck_assert_int_eq(waitpid(probe, &status, 0), probe);
	if (!osb_test_have("pidns", WIFEXITED(status) && WEXITSTATUS(status) == 0,
	                   "unshare(CLONE_NEWPID) is refused here"))
		return;
	ck_assert_int_eq(pipe2(ready, O_CLOEXEC), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		pid_t inner;

		if (unshare(fl) != 0)
			_exit(2);
		inner = fork();
		if (inner == 0) {
			struct sockaddr_un sa = { .sun_family = AF_UNIX };
			int l = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

			if (snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/fake.sock", dir) >=
			    (int)sizeof(sa.sun_path))
				_exit(5);
			if (l < 0 || bind(l, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(l, 4) != 0 ||
			    write(ready[1], "r", 1) != 1)
				_exit(3);
			alarm(20);
			for (;;)
				pause();
		}
		if (inner < 0 || waitpid(inner, &status, 0) != inner)
			_exit(4);
		_exit(0);
	}
	close(ready[1]);
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	close(ready[0]);
	ck_assert_ptr_null(osb_session_attach(dir, "fake", &err));
	ck_assert_int_eq(err.code, OSB_E_SANDBOX);
	ck_assert_int_eq(err.sys_errno, EPERM);
	ck_assert_msg(strstr(err.message, "is served from another pid namespace"), "%s", err.message);
	kill(child, SIGKILL);
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert_int_eq(unlink(fake_sock_path()), 0);
}
END_TEST

/* An attached handle owns no proxy, no host ids and no cgroup of the
 * session: destroying it through the handle signals nothing but the owner
 * and closes no fd of the caller. (The attached handle once carried an
 * all-zero proxy record, and destroy sent SIGKILL to pid 0, the caller's
 * whole process group, and closed fd 0.) The destroying process leads a
 * group with a sibling; both must be alive afterwards, and fd 0 open. */
START_TEST(test_destroying_an_attached_session_signals_no_caller_process)
{
	osb_policy *p = policy_text("");
	osb_session *s;
	osb_error err;
	int status, pfd[2];
	pid_t group, sibling;
	char c;

	s = osb_session_start(p, &err);
	osb_policy_free(p);
	ck_assert_msg(s != NULL, "%s", err.message);
	ck_assert_int_eq(osb_session_detach(s, dir, "grp", &err), 0);
	osb_session_free(s);
	ck_assert_int_eq(pipe(pfd), 0);
	group = fork();
	ck_assert_int_ge(group, 0);
	if (group == 0) {
		struct stat st0, st1;

		close(pfd[0]);
		if (setpgid(0, 0) != 0)
			_exit(2);
		sibling = fork();
		if (sibling == 0) {
			/* Holds the pipe's write end for as long as it lives. */
			pause();
			_exit(0);
		}
		close(pfd[1]);
		if (fstat(0, &st0) != 0)
			_exit(3);
		s = osb_session_attach(dir, "grp", &err);
		if (!s)
			_exit(4);
		if (osb_session_destroy(s, &err) != 0)
			_exit(5);
		osb_session_free(s);
		if (fstat(0, &st1) != 0 || st0.st_ino != st1.st_ino || st0.st_dev != st1.st_dev)
			_exit(6);
		if (kill(sibling, 0) != 0)
			_exit(7);
		/* SIGKILL: the test runner's SIGTERM handler is inherited. */
		kill(sibling, SIGKILL);
		waitpid(sibling, &status, 0);
		_exit(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? 0 : 8);
	}
	close(pfd[1]);
	ck_assert_int_eq(waitpid(group, &status, 0), group);
	ck_assert_msg(WIFEXITED(status), "the destroying process was killed by signal %d",
	              WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	/* The sibling is gone too: the pipe reads EOF. */
	ck_assert_int_eq(read(pfd[0], &c, 1), 0);
	close(pfd[0]);
}
END_TEST

/* A caller at its process limit is told that the session's owner could not
 * be started and what to do, not which fd the owner is exec'd by. Under
 * `ulimit -u 1` no fork of an unprivileged user works, whatever else it
 * runs; root is exempt, so a root caller's case runs as nobody. */
START_TEST(test_an_owner_that_cannot_be_forked_says_why_and_what_to_do)
{
	static const char want[] = "cannot start the session's owner: clone: Resource temporarily "
	                           "unavailable (the process limit, ulimit -u, is reached: raise it "
	                           "or stop other processes)";
	char got[sizeof(((osb_error *)0)->message)] = "";
	int pfd[2], status;
	ssize_t n;
	pid_t child;

	ck_assert_int_eq(pipe2(pfd, O_CLOEXEC), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		plan pl = { .host = { .lock_fd = -1 } };
		struct rlimit one = { 1, 1 };
		strv argv = { 0 };
		osb_error err = { 0 };
		int none[1] = { -1 }, life, pidfd, r;

		if (geteuid() == 0 && (setgroups(0, NULL) != 0 || setresgid(65534, 65534, 65534) != 0 ||
		                       setresuid(65534, 65534, 65534) != 0))
			_exit(2);
		if (setrlimit(RLIMIT_NPROC, &one) != 0)
			_exit(3);
		r = owner_spawn(&pl, &argv, none, 0, &life, &pidfd, &err);
		if (write(pfd[1], err.message, strlen(err.message)) < 0)
			_exit(4);
		_exit(r == -OSB_E_SPAWN && err.sys_errno == EAGAIN && strcmp(err.stage, "spawn") == 0 ?
		      0 : 5);
	}
	close(pfd[1]);
	n = read(pfd[0], got, sizeof(got) - 1);
	close(pfd[0]);
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert_int_ge(n, 0);
	ck_assert_str_eq(got, want);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
}
END_TEST

static Suite *owner_suite(void)
{
	Suite *su = suite_create("session_owner");
	TCase *tc = tcase_create("session_owner");

	tcase_add_checked_fixture(tc, setup_dirs, teardown_dirs);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_session_started_on_a_thread_that_exits_still_serves);
	tcase_add_test(tc, test_daemon_killed_leaves_no_process_no_lock);
	tcase_add_test(tc, test_daemon_killed_leaves_no_cgroup);
	tcase_add_test(tc, test_detached_session_is_attached_from_a_new_process);
	tcase_add_test(tc, test_detach_refuses_a_directory_others_can_write);
	tcase_add_test(tc, test_another_uid_cannot_attach);
	tcase_add_test(tc, test_a_process_of_another_pid_namespace_cannot_attach);
	tcase_add_test(tc, test_an_owner_socket_of_another_pid_namespace_is_refused);
	tcase_add_test(tc, test_destroying_an_attached_session_signals_no_caller_process);
	tcase_add_test(tc, test_an_owner_that_cannot_be_forked_says_why_and_what_to_do);
	suite_add_tcase(su, tc);
	return su;
}

int main(void)
{
	return test_sandbox_suite_main(owner_suite);
}

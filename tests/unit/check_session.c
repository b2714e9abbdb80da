/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_session.c — persistent sessions (lib/session.c, helper/broker.c) with
 * real sandboxes: state that lives across commands, isolation between
 * sessions, statuses that output cannot forge, bounded memory, timeouts,
 * teardown that leaves nothing behind, and the library's process hygiene
 * (no reaping of the caller's children, every fd close-on-exec).
 */
#include "osb-isolate.h"
#include "init-proto.h"
#include "probe.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef TEST_BUILDDIR
#error "TEST_BUILDDIR must name the build tree"
#endif

static char ws[PATH_MAX];

static uint64_t ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* A fresh workspace per test; writable by the sandbox user in every mode. */
static void setup_ws(void)
{
	snprintf(ws, sizeof(ws), "/tmp/osb-sess-test.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(ws));
	ck_assert_int_eq(chmod(ws, 0777), 0);
}

static void teardown_ws(void)
{
	char *argv[] = { "rm", "-rf", ws, NULL };
	pid_t pid = fork();

	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	waitpid(pid, NULL, 0);
}

static osb_policy *load_policy(void)
{
	osb_error err;
	osb_policy *p = osb_policy_load("strict", &err);

	ck_assert_msg(p != NULL, "policy: %s", err.message);
	ck_assert_int_eq(osb_policy_set_workspace(p, ws, &err), 0);
	return p;
}

static osb_session *start_opts(const osb_session_opts *o)
{
	osb_error err;
	osb_policy *p = load_policy();
	osb_session *s = osb_session_start_opts(p, o, &err);

	ck_assert_msg(s != NULL, "session start: %s: %s", err.stage, err.message);
	osb_policy_free(p);
	return s;
}

static osb_session *start(void)
{
	return start_opts(NULL);
}

static osb_exec *exec_of(const char *const *argv)
{
	osb_error err;
	osb_exec *e = osb_exec_new(argv, &err);

	ck_assert_ptr_nonnull(e);
	osb_exec_set_capture(e, 1);
	return e;
}

/* Run ARGV with capture; returns the result (caller frees). */
static osb_result *run_argv(osb_session *s, const char *const *argv, int *rc)
{
	osb_error err;
	osb_result *r = NULL;
	osb_exec *e = exec_of(argv);

	*rc = osb_session_run(s, e, &r, &err);
	osb_exec_free(e);
	ck_assert_ptr_nonnull(r);
	return r;
}

/* Run "sh -c SCRIPT", expect exit code 0 and return its stdout (malloc'd). */
static char *sh_ok(osb_session *s, const char *script)
{
	const char *argv[] = { "sh", "-c", script, NULL };
	int rc;
	osb_result *r = run_argv(s, argv, &rc);
	char *out;

	ck_assert_msg(rc == 0 && osb_result_exit_code(r) == 0, "sh -c '%s': rc %d exit %d stderr %s",
	              script, rc, osb_result_exit_code(r), osb_result_stderr(r, NULL));
	out = strdup(osb_result_stdout(r, NULL));
	osb_result_free(r);
	return out;
}

/* Is any host process's command line holding MARKER? */
static bool host_process_with(const char *marker)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	bool found = false;

	ck_assert_ptr_nonnull(d);
	while (!found && (de = readdir(d))) {
		char path[300], buf[4096];
		ssize_t n;
		int fd;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] == '\0')
				buf[i] = ' ';
		if (n > 0) {
			buf[n] = '\0';
			found = strstr(buf, marker) != NULL;
		}
	}
	closedir(d);
	return found;
}

static bool wait_until_gone(const char *marker, unsigned ms)
{
	uint64_t end = ms_now() + ms;

	do {
		if (!host_process_with(marker))
			return true;
		usleep(20000);
	} while (ms_now() < end);
	return false;
}

/* "sleep 4242.NNNN" that left its process group (setsid) and so lives until
 * the session ends. */
static void start_escaped_sleeper(osb_session *s, char *marker, size_t size)
{
	char script[256];

	snprintf(marker, size, "4242.%d%04d", (int)getpid(), rand() % 10000);
	/* The command returns once the sleeper leads a session of its own (field
	 * 6 of /proc/PID/stat), out of the group that is killed when it ends. */
	snprintf(script, sizeof(script), "setsid sleep %s </dev/null >/dev/null 2>&1 & p=$!; "
	         "until [ \"$(cut -d' ' -f6 /proc/$p/stat 2>/dev/null)\" = \"$p\" ]; do "
	         "[ -e /proc/$p ] || exit 1; done", marker);
	free(sh_ok(s, script));
	for (int i = 0; i < 100 && !host_process_with(marker); i++)
		usleep(10000);
	ck_assert_msg(host_process_with(marker), "the background sleeper %s never started", marker);
}

static unsigned long vm_hwm_kib(void)
{
	char *text = NULL, *at;
	size_t cap = 0;
	unsigned long kib = 0;
	FILE *f = fopen("/proc/self/status", "re");

	ck_assert_ptr_nonnull(f);
	while (getline(&text, &cap, f) > 0)
		if ((at = strstr(text, "VmHWM:")))
			kib = strtoul(at + 6, NULL, 10);
	free(text);
	fclose(f);
	return kib;
}

/* ---- state and isolation -------------------------------------------------- */

START_TEST(test_session_files_written_by_one_exec_are_read_by_the_next)
{
	osb_session *s = start();
	char *out, path[PATH_MAX + 16], buf[64] = "";
	FILE *f;

	free(sh_ok(s, "echo data-1 > f.txt && echo tmp-1 > /tmp/t && mkdir -p /tmp/d"));
	out = sh_ok(s, "cat f.txt /tmp/t && test -d /tmp/d && echo dir");
	ck_assert_str_eq(out, "data-1\ntmp-1\ndir\n");
	free(out);
	/* The workspace file is the host's; /tmp is the session's own. */
	snprintf(path, sizeof(path), "%s/f.txt", ws);
	f = fopen(path, "re");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
	fclose(f);
	ck_assert_str_eq(buf, "data-1\n");
	osb_session_free(s);
}
END_TEST

START_TEST(test_session_tmp_of_two_sessions_is_separate)
{
	osb_session *a = start(), *b = start();
	const char *cat[] = { "cat", "/tmp/only-in-a", NULL };
	osb_result *r;
	int rc;

	free(sh_ok(a, "echo a > /tmp/only-in-a"));
	r = run_argv(b, cat, &rc);
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(osb_result_exit_code(r), 1);
	ck_assert_str_eq(osb_result_stderr(r, NULL), "cat: /tmp/only-in-a: No such file or directory\n");
	osb_result_free(r);
	r = run_argv(a, cat, &rc);
	ck_assert_int_eq(osb_result_exit_code(r), 0);
	ck_assert_str_eq(osb_result_stdout(r, NULL), "a\n");
	osb_result_free(r);
	ck_assert_int_eq(access("/tmp/only-in-a", F_OK), -1);
	osb_session_free(a);
	osb_session_free(b);
}
END_TEST

/* Inside, /proc lists pid 1 (the broker) and the command itself: no host
 * process and no process of another session. The glob runs inside sh. */
START_TEST(test_session_pid_view_shows_only_the_session)
{
	osb_session *a = start(), *b = start();
	char marker[64], *out, self[32], first[32], second[32];
	int n = 0;

	start_escaped_sleeper(a, marker, sizeof(marker));
	out = sh_ok(b, "set -- /proc/[0-9]*; echo $# $1 $2 /proc/$$");
	ck_assert_int_eq(sscanf(out, "%d %31s %31s %31s", &n, first, second, self), 4);
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(first, "/proc/1");
	ck_assert_str_eq(second, self);
	free(out);
	/* Session a sees its sleeper as well, and nothing else. */
	out = sh_ok(a, "set -- /proc/[0-9]*; echo $#");
	ck_assert_str_eq(out, "3\n");
	free(out);
	osb_session_free(a);
	osb_session_free(b);
	ck_assert(wait_until_gone(marker, 1000));
}
END_TEST

START_TEST(test_session_1000_consecutive_execs_report_correct_status)
{
	osb_session *s = start();
	uint64_t t0 = ms_now();

	for (int i = 0; i < 1000; i++) {
		char code[8], word[16], want[20];
		const char *argv[] = { "sh", "-c", "echo $0; exit $1", word, code, NULL };
		osb_result *r;
		int rc;

		snprintf(code, sizeof(code), "%d", i % 256);
		snprintf(word, sizeof(word), "w%d", i);
		snprintf(want, sizeof(want), "w%d\n", i);
		r = run_argv(s, argv, &rc);
		ck_assert_int_eq(rc, 0);
		ck_assert_int_eq(osb_result_exit_code(r), i % 256);
		ck_assert_str_eq(osb_result_stdout(r, NULL), want);
		osb_result_free(r);
	}
	fprintf(stderr, "# 1000 execs in one session: %llu ms\n", (unsigned long long)(ms_now() - t0));
	osb_session_free(s);
}
END_TEST

/* ---- concurrency ------------------------------------------------------------ */

enum { N_SESSIONS = 20, N_THREADS = 10, N_ROUNDS = 5 };

struct worker {
	osb_session *s;
	int sid, tid;
	int good;
	char why[2048];
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	for (int k = 0; k < N_ROUNDS; k++) {
		char token[64], code[8], want[80];
		const char *argv[] = { "sh", "-c", "echo $0; echo err-$0 >&2; exit $1", token, code, NULL };
		osb_error err;
		osb_result *r = NULL;
		osb_exec *e;
		int rc, expect = (w->sid * 31 + w->tid * 7 + k) % 200;

		snprintf(token, sizeof(token), "s%d-t%d-k%d", w->sid, w->tid, k);
		snprintf(code, sizeof(code), "%d", expect);
		snprintf(want, sizeof(want), "%s\n", token);
		e = osb_exec_new(argv, &err);   /* copies argv: after the snprintf calls */
		osb_exec_set_capture(e, 1);
		rc = osb_session_run(w->s, e, &r, &err);
		if (rc == 0 && osb_result_exit_code(r) == expect &&
		    strcmp(osb_result_stdout(r, NULL), want) == 0 &&
		    strncmp(osb_result_stderr(r, NULL), "err-", 4) == 0)
			w->good++;
		else
			snprintf(w->why, sizeof(w->why), "%s: rc %d exit %d out '%.200s' err '%.200s'", token, rc,
			         osb_result_exit_code(r), osb_result_stdout(r, NULL),
			         r && osb_result_error(r) ? osb_result_error(r)->message : "");
		osb_result_free(r);
		osb_exec_free(e);
	}
	return NULL;
}

START_TEST(test_session_20_sessions_with_10_concurrent_execs_lose_no_result)
{
	static struct worker w[N_SESSIONS * N_THREADS];
	static pthread_t th[N_SESSIONS * N_THREADS];
	osb_session *s[N_SESSIONS];
	uint64_t t0 = ms_now(), t1;
	int good = 0;

	for (int i = 0; i < N_SESSIONS; i++)
		s[i] = start();
	t1 = ms_now();
	for (int i = 0; i < N_SESSIONS * N_THREADS; i++) {
		w[i] = (struct worker){ .s = s[i / N_THREADS], .sid = i / N_THREADS, .tid = i % N_THREADS };
		ck_assert_int_eq(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
	}
	for (int i = 0; i < N_SESSIONS * N_THREADS; i++) {
		pthread_join(th[i], NULL);
		good += w[i].good;
		ck_assert_msg(w[i].good == N_ROUNDS, "lost or wrong result: %s", w[i].why);
	}
	ck_assert_int_eq(good, N_SESSIONS * N_THREADS * N_ROUNDS);
	fprintf(stderr, "# %d sessions started in %llu ms; %d execs (%d at once) in %llu ms\n",
	        N_SESSIONS, (unsigned long long)(t1 - t0), good, N_SESSIONS * N_THREADS,
	        (unsigned long long)(ms_now() - t1));
	for (int i = 0; i < N_SESSIONS; i++)
		osb_session_free(s[i]);
}
END_TEST

/* ---- stdin and shell state ---------------------------------------------------- */

static void write_all(int fd, const char *s)
{
	size_t len = strlen(s);

	while (len > 0) {
		ssize_t w = write(fd, s, len);

		ck_assert_int_gt(w, 0);
		s += w;
		len -= (size_t)w;
	}
}

/* One line from FD (blocking, 5 s at most). */
static void read_line(int fd, char *buf, size_t size)
{
	size_t n = 0;

	while (n + 1 < size) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;

		ck_assert_int_eq(poll(&p, 1, 5000), 1);
		r = read(fd, buf + n, 1);
		ck_assert_int_eq(r, 1);
		if (buf[n++] == '\n')
			break;
	}
	buf[n] = '\0';
}

START_TEST(test_session_bash_fed_on_stdin_keeps_cd_and_variables)
{
	osb_session *s = start();
	const char *argv[] = { "bash", NULL };
	osb_exec *e = exec_of(argv);
	osb_proc *pr = NULL;
	osb_status st;
	osb_error err;
	char line[256];

	osb_exec_set_stdin_pipe(e, 1);
	ck_assert_int_eq(osb_session_spawn(s, e, &pr, &err), 0);
	ck_assert_int_ge(osb_proc_stdin(pr), 0);
	write_all(osb_proc_stdin(pr), "cd /tmp\nX=42\necho \"$PWD $X\"\n");
	read_line(osb_proc_stdout(pr), line, sizeof(line));
	ck_assert_str_eq(line, "/tmp 42\n");
	write_all(osb_proc_stdin(pr), "cd /usr; X=$((X + 1)); f() { echo fn-$1; }\n");
	write_all(osb_proc_stdin(pr), "echo \"$PWD $X\"; f ok; echo err-line >&2\n");
	read_line(osb_proc_stdout(pr), line, sizeof(line));
	ck_assert_str_eq(line, "/usr 43\n");
	read_line(osb_proc_stdout(pr), line, sizeof(line));
	ck_assert_str_eq(line, "fn-ok\n");
	read_line(osb_proc_stderr(pr), line, sizeof(line));
	ck_assert_str_eq(line, "err-line\n");
	ck_assert_int_eq(osb_proc_wait(pr, 0, &st), 1);   /* still running */
	write_all(osb_proc_stdin(pr), "exit 5\n");
	ck_assert_int_eq(osb_proc_wait(pr, 5000, &st), 0);
	ck_assert_int_eq(st.exit_code, 5);
	ck_assert_int_eq(st.signal, 0);
	osb_proc_free(pr);
	osb_exec_free(e);
	osb_session_free(s);
}
END_TEST

/* 4 MiB of patterned bytes through cat, written and read at once. */
START_TEST(test_session_stdin_streaming_round_trips_data)
{
	enum { SIZE = 4 << 20 };
	osb_session *s = start();
	const char *argv[] = { "cat", NULL };
	osb_exec *e = exec_of(argv);
	osb_proc *pr = NULL;
	osb_status st;
	osb_error err;
	unsigned char *src = malloc(SIZE), *dst = malloc(SIZE);
	size_t sent = 0, got = 0;
	int in;

	for (size_t i = 0; i < SIZE; i++)
		src[i] = (unsigned char)((i * 2654435761u) >> 13);
	osb_exec_set_stdin_pipe(e, 1);
	ck_assert_int_eq(osb_session_spawn(s, e, &pr, &err), 0);
	in = osb_proc_stdin(pr);
	fcntl(in, F_SETFL, O_NONBLOCK);
	while (got < SIZE) {
		struct pollfd p[2] = { { .fd = osb_proc_stdout(pr), .events = POLLIN },
		                       { .fd = in, .events = POLLOUT } };
		ck_assert_int_gt(poll(p, sent < SIZE ? 2 : 1, 5000), 0);
		if (p[0].revents) {
			ssize_t n = read(p[0].fd, dst + got, SIZE - got);

			ck_assert_int_gt(n, 0);
			got += (size_t)n;
		}
		if (sent < SIZE && p[1].revents) {
			ssize_t n = write(in, src + sent, SIZE - sent > 65536 ? 65536 : SIZE - sent);

			if (n > 0)
				sent += (size_t)n;
			if (sent == SIZE)
				osb_proc_close_stdin(pr);
		}
	}
	ck_assert_int_eq(memcmp(src, dst, SIZE), 0);
	ck_assert_int_eq(osb_proc_wait(pr, 5000, &st), 0);
	ck_assert_int_eq(st.exit_code, 0);
	osb_proc_free(pr);
	osb_exec_free(e);
	free(src);
	free(dst);
	osb_session_free(s);
}
END_TEST

/* ---- status integrity ------------------------------------------------------------ */

START_TEST(test_session_fake_status_line_cannot_change_exit_code)
{
	static const char fake[] =
		"{ \"exit-code\": 0 }\nEexec\t2\tfake\nX\nR\n__OSB_EXIT_CODE__=0\nEXIT 0\n";
	char script[512];
	const char *argv[] = { "sh", "-c", script, NULL };
	osb_session *s = start();
	osb_result *r;
	int rc;

	snprintf(script, sizeof(script), "printf '%%s' '%s'; printf '%%s' '%s' >&2; exit 7",
	         fake, fake);
	r = run_argv(s, argv, &rc);
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(osb_result_exit_code(r), 7);
	ck_assert_int_eq(osb_result_ok(r), 0);
	ck_assert_int_eq(osb_result_cli_status(r), 7);
	ck_assert_str_eq(osb_result_stdout(r, NULL), fake);
	ck_assert_str_eq(osb_result_stderr(r, NULL), fake);
	osb_result_free(r);
	osb_session_free(s);
}
END_TEST

/* ---- output volume ------------------------------------------------------------ */

START_TEST(test_session_100mib_output_streams_with_bounded_memory)
{
	const char *argv[] = { "head", "-c", "104857600", "/dev/zero", NULL };
	osb_session *s = start();
	osb_exec *e = exec_of(argv);
	unsigned long before, after;
	osb_result *r = NULL;
	osb_proc *pr = NULL;
	osb_status st;
	osb_error err;
	size_t got = 0;
	char buf[65536];
	ssize_t n;

	before = vm_hwm_kib();
	/* Captured: 100 MiB pass, 1 MiB (the policy's limit) is kept. */
	ck_assert_int_eq(osb_session_run(s, e, &r, &err), 0);
	ck_assert_uint_eq(osb_result_stdout_bytes(r), 104857600u);
	ck_assert_int_eq(osb_result_truncated(r), 1);
	ck_assert_int_eq(osb_result_exit_code(r), 0);
	osb_result_free(r);
	/* Spawned: the caller reads the pipe itself. */
	ck_assert_int_eq(osb_session_spawn(s, e, &pr, &err), 0);
	while ((n = read(osb_proc_stdout(pr), buf, sizeof(buf))) > 0)
		got += (size_t)n;
	ck_assert_uint_eq(got, 104857600u);
	ck_assert_int_eq(osb_proc_wait(pr, 5000, &st), 0);
	ck_assert_int_eq(st.exit_code, 0);
	osb_proc_free(pr);
	after = vm_hwm_kib();
	fprintf(stderr, "# 2 x 100 MiB streamed: peak RSS grew by %lu KiB\n", after - before);
	ck_assert_uint_lt(after - before, 8 * 1024);
	osb_exec_free(e);
	osb_session_free(s);
}
END_TEST

/* ---- timeouts, failures, kills ------------------------------------------------------ */

START_TEST(test_session_exec_timeout_kills_its_process_group_not_the_session)
{
	char script[128], marker[32];
	const char *argv[] = { "sh", "-c", script, NULL };
	osb_session *s = start();
	osb_exec *e;
	osb_result *r = NULL;
	osb_error err;
	uint64_t t0;
	char *out;

	snprintf(marker, sizeof(marker), "300.%d", (int)getpid());
	snprintf(script, sizeof(script), "sleep %s & sleep %s & wait", marker, marker);
	e = exec_of(argv);
	osb_exec_set_timeout_ms(e, 500);
	t0 = ms_now();
	ck_assert_int_eq(osb_session_run(s, e, &r, &err), 0);
	ck_assert_int_eq(osb_result_timed_out(r), 1);
	/* As osb_run reports it: the SIGKILL of the timeout is ours, not the
	 * command's death by signal; and the same hint. */
	ck_assert_int_eq(osb_result_signal(r), 0);
	ck_assert_int_eq(osb_result_cli_status(r), 124);
	out = osb_result_json(r);
	ck_assert_ptr_nonnull(strstr(out, "\"hint\":\"the wall limit expired"));
	osb_free(out);
	ck_assert_uint_lt(ms_now() - t0, 2500);
	osb_result_free(r);
	/* Both sleeps went with their group; the session lives on. */
	ck_assert(!host_process_with(marker));
	out = sh_ok(s, "set -- /proc/[0-9]*; echo $#");
	ck_assert_str_eq(out, "2\n");
	free(out);
	osb_exec_free(e);
	osb_session_free(s);
}
END_TEST

START_TEST(test_session_missing_command_gives_127_and_session_stays_usable)
{
	const char *argv[] = { "osb-no-such-command", NULL };
	osb_session *s = start();
	osb_exec *e = exec_of(argv);
	osb_result *r;
	osb_proc *pr = NULL;
	osb_error err;
	int rc;
	char *out;

	r = run_argv(s, argv, &rc);
	ck_assert_int_eq(rc, -OSB_E_SANDBOX);
	ck_assert_str_eq(osb_result_error(r)->stage, "exec");
	ck_assert_int_eq(osb_result_error(r)->sys_errno, ENOENT);
	ck_assert_str_eq(osb_result_error(r)->message, "osb-no-such-command: No such file or directory");
	ck_assert_int_eq(osb_result_cli_status(r), 127);
	osb_result_free(r);
	ck_assert_int_eq(osb_session_spawn(s, e, &pr, &err), -OSB_E_SANDBOX);
	ck_assert_ptr_null(pr);
	ck_assert_str_eq(err.stage, "exec");
	ck_assert_int_eq(err.sys_errno, ENOENT);
	out = sh_ok(s, "echo still-here");
	ck_assert_str_eq(out, "still-here\n");
	free(out);
	osb_exec_free(e);
	osb_session_free(s);
}
END_TEST

START_TEST(test_session_bad_cwd_is_reported_and_relative_cwd_refused)
{
	const char *argv[] = { "pwd", NULL };
	osb_session *s = start();
	osb_exec *e = exec_of(argv);
	osb_result *r = NULL;
	osb_error err;

	osb_exec_set_cwd(e, "/tmp");
	ck_assert_int_eq(osb_session_run(s, e, &r, &err), 0);
	ck_assert_str_eq(osb_result_stdout(r, NULL), "/tmp\n");
	osb_result_free(r);
	osb_exec_set_cwd(e, "/osb-missing-dir");
	ck_assert_int_eq(osb_session_run(s, e, &r, &err), -OSB_E_SANDBOX);
	ck_assert_str_eq(err.stage, "cwd");
	ck_assert_str_eq(err.message, "cannot change to the working directory /osb-missing-dir: "
	                              "No such file or directory");
	ck_assert_int_eq(osb_result_cli_status(r), 125);
	osb_result_free(r);
	osb_exec_set_cwd(e, "relative");
	ck_assert_int_eq(osb_session_run(s, e, &r, &err), -OSB_E_USAGE);
	ck_assert_str_eq(err.message, "working directory relative must be an absolute path");
	osb_result_free(r);
	osb_exec_free(e);
	osb_session_free(s);
}
END_TEST

/* A session whose processes are at their limit (the policy's "limit nproc
 * 1": the broker itself is the one process) says that fork failed, that the
 * policy's limit is what binds (not the caller's ulimit -u) and what to do.
 * Exact whatever else runs: the broker alone reaches the limit. */
START_TEST(test_session_fork_at_the_process_limit_says_what_to_do)
{
	static const char text[] = "osb-policy 1\ninclude strict.policy\nlimit nproc 1\n";
	const char *argv[] = { "true", NULL };
	char name[PATH_MAX];
	osb_session *s;
	osb_policy *p;
	osb_result *r;
	osb_error err;
	int rc;

	snprintf(name, sizeof(name), "%s/nproc-test.policy", getenv("OSB_ISOLATE_POLICY_DIR"));
	p = osb_policy_parse(text, sizeof(text) - 1, name, &err);
	ck_assert_msg(p != NULL, "policy: %s", err.message);
	ck_assert_int_eq(osb_policy_set_workspace(p, ws, &err), 0);
	s = osb_session_start(p, &err);
	ck_assert_msg(s != NULL, "session start: %s: %s", err.stage, err.message);
	r = run_argv(s, argv, &rc);
	ck_assert_int_eq(rc, -OSB_E_SANDBOX);
	ck_assert_str_eq(osb_result_error(r)->stage, "fork");
	ck_assert_int_eq(osb_result_error(r)->sys_errno, EAGAIN);
	ck_assert_str_eq(osb_result_error(r)->message, "cannot fork: Resource temporarily "
	                 "unavailable (the sandbox's process limit, \"limit nproc 1\" in the policy, "
	                 "is reached: raise it or stop other processes)");
	ck_assert_int_eq(osb_result_cli_status(r), 125);
	osb_result_free(r);
	osb_session_free(s);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_session_proc_kill_signals_the_command)
{
	const char *argv[] = { "sleep", "30", NULL };
	osb_session *s = start();
	osb_exec *e = exec_of(argv);
	osb_proc *pr = NULL;
	osb_status st;
	osb_error err;

	ck_assert_int_eq(osb_session_spawn(s, e, &pr, &err), 0);
	ck_assert_int_gt(osb_proc_pid(pr), 1);
	ck_assert_int_eq(osb_proc_wait(pr, 100, &st), 1);
	ck_assert_int_eq(osb_proc_kill(pr, 0), -OSB_E_USAGE);
	ck_assert_int_eq(osb_proc_kill(pr, SIGTERM), 0);
	ck_assert_int_eq(osb_proc_wait(pr, 5000, &st), 0);
	ck_assert_int_eq(st.signal, SIGTERM);
	ck_assert_int_eq(st.exit_code, -1);
	ck_assert_int_eq(st.timed_out, 0);
	ck_assert_int_eq(osb_proc_kill(pr, SIGTERM), 0);   /* finished: harmless */
	osb_proc_free(pr);
	osb_exec_free(e);
	osb_session_free(s);
}
END_TEST

START_TEST(test_session_max_execs_refuses_beyond_the_maximum)
{
	const char *argv[] = { "sleep", "30", NULL };
	osb_session_opts *o = osb_session_opts_new();
	osb_session *s;
	osb_exec *e = exec_of(argv);
	osb_proc *p1 = NULL, *p2 = NULL, *p3 = NULL;
	osb_status st;
	osb_error err;

	ck_assert_int_eq(osb_session_opts_set_max_execs(o, 0), -OSB_E_USAGE);
	ck_assert_int_eq(osb_session_opts_set_max_execs(o, 2), 0);
	s = start_opts(o);
	ck_assert_int_eq(osb_session_spawn(s, e, &p1, &err), 0);
	ck_assert_int_eq(osb_session_spawn(s, e, &p2, &err), 0);
	ck_assert_int_eq(osb_session_spawn(s, e, &p3, &err), -OSB_E_USAGE);
	ck_assert_str_eq(err.message, "the session already runs 2 commands, its maximum; wait for "
	                              "one to finish (osb_session_opts_set_max_execs sets the maximum)");
	ck_assert_int_eq(osb_proc_kill(p1, SIGKILL), 0);
	ck_assert_int_eq(osb_proc_wait(p1, 5000, &st), 0);
	ck_assert_int_eq(osb_session_spawn(s, e, &p3, &err), 0);
	osb_proc_free(p1);
	osb_proc_free(p2);
	osb_proc_free(p3);
	osb_exec_free(e);
	osb_session_free(s);
	osb_session_opts_free(o);
}
END_TEST

/* "<the shipped strict policy's file>:LINE" of its line starting with
 * PREFIX, as messages cite it. */
static const char *strict_line(const char *prefix)
{
	static char buf[PATH_MAX + 16];
	char line[1024];
	unsigned n = 0, at = 0;
	osb_error err;
	osb_policy *p = osb_policy_load("strict", &err);
	FILE *f;

	ck_assert_ptr_nonnull(p);
	f = fopen(osb_policy_file(p, 0), "re");
	ck_assert_ptr_nonnull(f);
	while (!at && fgets(line, sizeof(line), f))
		if (++n && strncmp(line, prefix, strlen(prefix)) == 0)
			at = n;
	fclose(f);
	ck_assert_uint_ne(at, 0);
	snprintf(buf, sizeof(buf), "%s:%u", osb_policy_file(p, 0), at);
	osb_policy_free(p);
	return buf;
}

/* ENTRY next to an allowed one is refused with SYS_ERRNO and MESSAGE, by
 * spawn and run. */
static void expect_env_refused(osb_session *s, const char *entry, int sys_errno,
                               const char *message)
{
	const char *env[] = { "FOO=bar", entry, NULL };
	const char *argv[] = { "true", NULL };
	osb_exec *e = exec_of(argv);
	osb_result *r = NULL;
	osb_proc *pr = NULL;
	osb_error err;

	osb_exec_set_env(e, env);
	ck_assert_int_eq(osb_session_spawn(s, e, &pr, &err), -OSB_E_POLICY);
	ck_assert_ptr_null(pr);
	ck_assert_str_eq(err.stage, "env");
	ck_assert_int_eq(err.sys_errno, sys_errno);
	ck_assert_str_eq(err.message, message);
	ck_assert_int_eq(osb_session_run(s, e, &r, &err), -OSB_E_POLICY);
	ck_assert_str_eq(err.message, message);
	ck_assert_int_eq(osb_result_cli_status(r), 125);
	osb_result_free(r);
	osb_exec_free(e);
}

START_TEST(test_session_exec_env_overrides_passed_env_and_denied_names_are_refused)
{
	static const char *const env[] = { "FOO=bar", "LANG=xx_XX.UTF-8", NULL };
	const char *argv[] = { "sh", "-c", "env | sort | grep -E '^(FOO|LANG|HOME)'", NULL };
	osb_session *s = start();
	osb_exec *e = exec_of(argv);
	osb_result *r = NULL;
	osb_error err;
	char want[PATH_MAX + 64], msg[PATH_MAX + 256];

	osb_exec_set_env(e, env);
	ck_assert_int_eq(osb_session_run(s, e, &r, &err), 0);
	snprintf(want, sizeof(want), "FOO=bar\nHOME=%s\nLANG=xx_XX.UTF-8\n", ws);
	ck_assert_str_eq(osb_result_stdout(r, NULL), want);
	osb_result_free(r);
	osb_exec_free(e);
	/* A name the policy denies is refused, not dropped behind the caller's back. */
	snprintf(msg, sizeof(msg), "environment variable GITHUB_TOKEN matches the policy's \"env "
	         "deny *_TOKEN\" (%s); remove it from the command's environment", strict_line("env deny *_TOKEN "));
	expect_env_refused(s, "GITHUB_TOKEN=secret", EPERM, msg);
	snprintf(msg, sizeof(msg), "environment variable AWS_REGION matches the policy's \"env "
	         "deny AWS_*\" (%s); remove it from the command's environment", strict_line("env deny AWS_* "));
	expect_env_refused(s, "AWS_REGION=eu", EPERM, msg);
	expect_env_refused(s, "bad-name=1", EINVAL, "environment entry \"bad-name=1\" is not NAME=VALUE "
	                   "with a name of letters, digits and '_'; fix it");
	expect_env_refused(s, "NOEQUALS", EINVAL, "environment entry \"NOEQUALS\" is not NAME=VALUE "
	                   "with a name of letters, digits and '_'; fix it");
	/* The session is still usable. */
	free(sh_ok(s, "true"));
	osb_session_free(s);
}
END_TEST

START_TEST(test_exec_timeout_above_the_policy_wall_is_refused)
{
	const char *argv[] = { "true", NULL };
	osb_session *s = start();
	osb_policy *p = load_policy();
	osb_exec *e = exec_of(argv);
	osb_result *r = NULL;
	osb_proc *pr = NULL;
	osb_error err;
	char msg[PATH_MAX + 256];

	snprintf(msg, sizeof(msg), "timeout 601s would raise the policy's \"limit wall 10m\" "
	         "(%s); a command's timeout may only lower the wall limit", strict_line("limit wall "));
	osb_exec_set_timeout_ms(e, 601000);
	ck_assert_int_eq(osb_session_spawn(s, e, &pr, &err), -OSB_E_POLICY);
	ck_assert_ptr_null(pr);
	ck_assert_str_eq(err.stage, "policy");
	ck_assert_str_eq(err.message, msg);
	ck_assert_int_eq(osb_session_run(s, e, &r, &err), -OSB_E_POLICY);
	ck_assert_str_eq(err.message, msg);
	osb_result_free(r);
	r = NULL;
	/* osb_run refuses it the same way, before any sandbox starts. */
	ck_assert_int_eq(osb_run(p, e, &r, &err), -OSB_E_POLICY);
	ck_assert_str_eq(err.message, msg);
	ck_assert_int_eq(osb_result_cli_status(r), 125);
	osb_result_free(r);
	r = NULL;
	/* The policy's own limit, or less, is fine. */
	osb_exec_set_timeout_ms(e, 600000);
	ck_assert_int_eq(osb_session_run(s, e, &r, &err), 0);
	ck_assert_int_eq(osb_result_exit_code(r), 0);
	osb_result_free(r);
	osb_exec_free(e);
	osb_policy_free(p);
	osb_session_free(s);
}
END_TEST

/* ---- teardown -------------------------------------------------------------------- */

START_TEST(test_session_exec_after_destroy_and_double_destroy_give_clear_errors)
{
	const char *argv[] = { "true", NULL };
	osb_session *s = start();
	osb_exec *e = exec_of(argv);
	osb_result *r = NULL;
	osb_proc *pr = NULL;
	osb_error err;

	ck_assert_int_eq(osb_session_destroy(s, &err), 0);
	ck_assert_int_eq(osb_session_destroy(s, &err), -OSB_E_USAGE);
	ck_assert_str_eq(err.message, "osb_session_destroy: the session was already destroyed");
	ck_assert_int_eq(osb_session_spawn(s, e, &pr, &err), -OSB_E_USAGE);
	ck_assert_str_eq(err.message, "the session was destroyed; start a new one");
	ck_assert_ptr_null(pr);
	ck_assert_int_eq(osb_session_run(s, e, &r, &err), -OSB_E_USAGE);
	ck_assert_str_eq(osb_result_error(r)->message, "the session was destroyed; start a new one");
	ck_assert_int_eq(osb_result_cli_status(r), 125);
	osb_result_free(r);
	osb_exec_free(e);
	osb_session_free(s);
}
END_TEST

START_TEST(test_session_destroy_leaves_no_process_within_a_second)
{
	osb_session *s = start();
	const char *argv[] = { "sleep", "30", NULL };
	osb_exec *e = exec_of(argv);
	osb_proc *pr = NULL;
	osb_status st;
	osb_error err;
	char marker[64];
	struct pollfd p;
	uint64_t t0;

	start_escaped_sleeper(s, marker, sizeof(marker));
	ck_assert_int_eq(osb_session_spawn(s, e, &pr, &err), 0);
	t0 = ms_now();
	ck_assert_int_eq(osb_session_destroy(s, &err), 0);
	ck_assert_uint_lt(ms_now() - t0, 1000);
	ck_assert(!host_process_with(marker));
	p = (struct pollfd){ .fd = osb_session_fd(s), .events = POLLIN };
	ck_assert_int_eq(poll(&p, 1, 0), 1);
	/* A proc of a destroyed session reports that, once. */
	ck_assert_int_eq(osb_proc_wait(pr, 2000, &st), -OSB_E_SANDBOX);
	osb_proc_free(pr);
	osb_exec_free(e);
	osb_session_free(s);
}
END_TEST

START_TEST(test_session_idle_timeout_ends_the_session_and_leaves_nothing)
{
	const char *argv[] = { "true", NULL };
	osb_session_opts *o = osb_session_opts_new();
	osb_session *s;
	osb_exec *e = exec_of(argv);
	osb_proc *pr = NULL;
	osb_error err;
	char marker[64];
	struct pollfd p;
	uint64_t t0;

	osb_session_opts_set_idle_timeout_ms(o, 400);
	s = start_opts(o);
	start_escaped_sleeper(s, marker, sizeof(marker));
	t0 = ms_now();
	p = (struct pollfd){ .fd = osb_session_fd(s), .events = POLLIN };
	ck_assert_int_eq(poll(&p, 1, 3000), 1);
	ck_assert_uint_lt(ms_now() - t0, 1500);
	ck_assert(wait_until_gone(marker, 1000));
	ck_assert_int_eq(osb_session_spawn(s, e, &pr, &err), -OSB_E_SANDBOX);
	ck_assert_str_eq(err.message, "the session ended after its idle timeout; start a new one");
	ck_assert_int_eq(osb_session_destroy(s, &err), 0);
	osb_exec_free(e);
	osb_session_free(s);
	osb_session_opts_free(o);
}
END_TEST

struct runner {
	osb_session *s;
	int rc;
	osb_result *r;
	uint64_t ms;
	char marker[32];
	pid_t tid;   /* of the thread in osb_session_run, once it runs */
};

/* The system call thread TID of this process is blocked in, or -1 while it
 * runs (or when /proc cannot say). */
static long blocked_in(pid_t tid)
{
	char path[64], text[64] = "";
	FILE *f;
	long nr = -1;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fgets(text, sizeof(text), f) && text[0] >= '0' && text[0] <= '9')
		nr = strtol(text, NULL, 10);
	fclose(f);
	return nr;
}

/* Wait (at most 10 s) until RN's command runs and its thread has the
 * broker's "started" answer, i.e. waits for the command's output and status
 * in poll(2) instead of for that answer in recv(2). */
static bool wait_until_run_started(const struct runner *rn)
{
	uint64_t end = ms_now() + 10000;

	for (;;) {
		pid_t tid = __atomic_load_n(&rn->tid, __ATOMIC_ACQUIRE);
		long nr = tid > 0 ? blocked_in(tid) : -1;

		if (nr >= 0 && nr != SYS_recvfrom && host_process_with(rn->marker))
			return true;
		if (ms_now() >= end)
			return false;
		usleep(5000);
	}
}

/* Wait (at most 10 s) until the command "sleep MARKER" runs. */
static bool wait_until_running(const char *marker)
{
	uint64_t end = ms_now() + 10000;

	while (!host_process_with(marker)) {
		if (ms_now() >= end)
			return false;
		usleep(5000);
	}
	return true;
}

static void *run_sleep(void *arg)
{
	struct runner *rn = arg;
	const char *argv[] = { "sleep", rn->marker, NULL };
	osb_error err;
	osb_exec *e = osb_exec_new(argv, &err);
	uint64_t t0 = ms_now();

	__atomic_store_n(&rn->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	rn->rc = osb_session_run(rn->s, e, &rn->r, &err);
	rn->ms = ms_now() - t0;
	osb_exec_free(e);
	return NULL;
}

START_TEST(test_session_destroy_while_a_thread_runs_ends_that_run)
{
	struct runner rn = { .s = start() };
	pthread_t th;
	osb_error err;

	snprintf(rn.marker, sizeof(rn.marker), "30.%d%04d", (int)getpid(), rand() % 10000);
	ck_assert_int_eq(pthread_create(&th, NULL, run_sleep, &rn), 0);
	/* Destroy while the other thread's command runs, not before it starts. */
	ck_assert_msg(wait_until_run_started(&rn), "the command never started");
	ck_assert_int_eq(osb_session_destroy(rn.s, &err), 0);
	pthread_join(th, NULL);
	ck_assert_int_eq(rn.rc, -OSB_E_SANDBOX);
	ck_assert_str_eq(osb_result_error(rn.r)->message,
	                 "the session ended before the command's status was known");
	ck_assert_uint_lt(rn.ms, 2000);
	osb_result_free(rn.r);
	osb_session_free(rn.s);
}
END_TEST

START_TEST(test_session_cancel_fd_kills_the_command)
{
	char marker[32];
	const char *argv[] = { "sleep", marker, NULL };
	osb_session *s = start();
	osb_exec *e;
	osb_result *r = NULL;
	osb_error err;
	int p[2], status = 0;
	pid_t writer;
	uint64_t t0 = ms_now();

	snprintf(marker, sizeof(marker), "30.%d%04d", (int)getpid(), rand() % 10000);
	e = exec_of(argv);
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	writer = fork();
	if (writer == 0) {
		/* Cancel the running command, not one still being started. */
		bool running = wait_until_running(marker);

		_exit(running && write(p[1], "x", 1) == 1 ? 0 : 1);
	}
	osb_exec_set_cancel_fd(e, p[0]);
	ck_assert_int_eq(osb_session_run(s, e, &r, &err), 0);
	ck_assert_int_eq(osb_result_signal(r), SIGKILL);
	ck_assert_int_eq(osb_result_timed_out(r), 0);
	ck_assert_uint_lt(ms_now() - t0, 2000);
	ck_assert_int_eq(waitpid(writer, &status, 0), writer);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the command never started");
	osb_result_free(r);
	close(p[0]);
	close(p[1]);
	osb_exec_free(e);
	osb_session_free(s);
}
END_TEST

/* ---- process hygiene ---------------------------------------------------------------- */

/* Every fd open now but not in BEFORE (fds the test framework holds) is
 * close-on-exec. Returns how many were checked. */
static int assert_new_fds_cloexec(const bool *before, size_t n)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int checked = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		int fd = atoi(de->d_name);

		if (de->d_name[0] == '.' || fd <= 2 || fd == dirfd(d) ||
		    ((size_t)fd < n && before[fd]))
			continue;
		ck_assert_msg(fcntl(fd, F_GETFD) & FD_CLOEXEC, "fd %d is not close-on-exec", fd);
		checked++;
	}
	closedir(d);
	return checked;
}

static void open_fds(bool *set, size_t n)
{
	for (size_t fd = 0; fd < n; fd++)
		set[fd] = fcntl((int)fd, F_GETFD) >= 0;
}

START_TEST(test_session_never_reaps_the_callers_children_and_keeps_fds_cloexec)
{
	const char *argv[] = { "sleep", "30", NULL };
	osb_session *s;
	osb_exec *e = exec_of(argv);
	osb_proc *pr = NULL;
	osb_error err;
	int status = 0;
	bool before[256];
	pid_t child = fork();

	if (child == 0)
		_exit(42);
	open_fds(before, 256);
	s = start();
	free(sh_ok(s, "true"));
	osb_exec_set_stdin_pipe(e, 1);
	ck_assert_int_eq(osb_session_spawn(s, e, &pr, &err), 0);
	/* The session socket, bwrap's pidfds and channels, the proc's channel
	 * and its three pipes. */
	ck_assert_int_ge(assert_new_fds_cloexec(before, 256), 8);
	osb_proc_free(pr);
	ck_assert_int_eq(osb_session_destroy(s, &err), 0);
	osb_session_free(s);
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 42);
	osb_exec_free(e);
}
END_TEST

/* ---- the init's session mode ------------------------------------------------------- */

/* Run the init with ARGS and a report pipe as fd 3; return what it wrote
 * there and its exit status. Argument errors come before any privilege
 * check, so this needs no sandbox. */
static int run_init(const char *const *args, char *report, size_t size)
{
	char proto[16];
	const char *argv[16] = { getenv("OSB_ISOLATE_INIT"), "--error-fd", "3", "--proto", proto };
	int p[2], status = 0;
	size_t n = 0, argc = 5;
	ssize_t r;
	pid_t pid;

	snprintf(proto, sizeof(proto), "%d", INIT_PROTO_VERSION);
	for (size_t i = 0; args[i] && argc < 15; i++)
		argv[argc++] = args[i];
	argv[argc] = NULL;
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 3);
		execv(argv[0], (char *const *)argv);
		_exit(99);
	}
	close(p[1]);
	while (n + 1 < size && (r = read(p[0], report + n, size - 1 - n)) > 0)
		n += (size_t)r;
	report[n] = '\0';
	close(p[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

START_TEST(test_init_session_mode_refuses_a_command)
{
	const char *args[] = { "--session-fd", "4", "--", "true", NULL };
	char report[512];

	ck_assert_int_eq(run_init(args, report, sizeof(report)), 125);
	ck_assert_str_eq(report, "Einit:args\t22\t--session-fd serves a session; no command may follow\n");
}
END_TEST

START_TEST(test_init_idle_ms_needs_session_fd)
{
	const char *args[] = { "--idle-ms", "100", "--", "true", NULL };
	char report[512];

	ck_assert_int_eq(run_init(args, report, sizeof(report)), 125);
	ck_assert_str_eq(report, "Einit:args\t22\t--idle-ms is only valid with --session-fd\n");
}
END_TEST

static Suite *session_suite(void)
{
	Suite *su = suite_create("session");
	TCase *tc = tcase_create("session");

	tcase_add_checked_fixture(tc, setup_ws, teardown_ws);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_session_files_written_by_one_exec_are_read_by_the_next);
	tcase_add_test(tc, test_session_tmp_of_two_sessions_is_separate);
	tcase_add_test(tc, test_session_pid_view_shows_only_the_session);
	tcase_add_test(tc, test_session_1000_consecutive_execs_report_correct_status);
	tcase_add_test(tc, test_session_20_sessions_with_10_concurrent_execs_lose_no_result);
	tcase_add_test(tc, test_session_bash_fed_on_stdin_keeps_cd_and_variables);
	tcase_add_test(tc, test_session_stdin_streaming_round_trips_data);
	tcase_add_test(tc, test_session_fake_status_line_cannot_change_exit_code);
	tcase_add_test(tc, test_session_100mib_output_streams_with_bounded_memory);
	tcase_add_test(tc, test_session_exec_timeout_kills_its_process_group_not_the_session);
	tcase_add_test(tc, test_session_missing_command_gives_127_and_session_stays_usable);
	tcase_add_test(tc, test_session_bad_cwd_is_reported_and_relative_cwd_refused);
	tcase_add_test(tc, test_session_fork_at_the_process_limit_says_what_to_do);
	tcase_add_test(tc, test_session_proc_kill_signals_the_command);
	tcase_add_test(tc, test_session_max_execs_refuses_beyond_the_maximum);
	tcase_add_test(tc, test_session_exec_env_overrides_passed_env_and_denied_names_are_refused);
	tcase_add_test(tc, test_exec_timeout_above_the_policy_wall_is_refused);
	tcase_add_test(tc, test_session_exec_after_destroy_and_double_destroy_give_clear_errors);
	tcase_add_test(tc, test_session_destroy_leaves_no_process_within_a_second);
	tcase_add_test(tc, test_session_idle_timeout_ends_the_session_and_leaves_nothing);
	tcase_add_test(tc, test_session_destroy_while_a_thread_runs_ends_that_run);
	tcase_add_test(tc, test_session_cancel_fd_kills_the_command);
	tcase_add_test(tc, test_session_never_reaps_the_callers_children_and_keeps_fds_cloexec);
	tcase_add_test(tc, test_init_session_mode_refuses_a_command);
	tcase_add_test(tc, test_init_idle_ms_needs_session_fd);
	suite_add_tcase(su, tc);
	return su;
}

int main(void)
{
	SRunner *sr;
	int failed;

	/* 200 concurrent runs hold about 7 fds each, more than the usual soft
	 * limit of 1024; the hard limit is the process's own to use. */
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	/* The freshly built init and the source tree's policies, or their
	 * copies in a stage an unprivileged user can read (session-as-user.sh). */
	if (getenv("OSB_TEST_STAGE")) {
		char init[PATH_MAX], pol[PATH_MAX];

		snprintf(init, sizeof(init), "%s/bin/osb-isolate-init", getenv("OSB_TEST_STAGE"));
		snprintf(pol, sizeof(pol), "%s/policy", getenv("OSB_TEST_STAGE"));
		setenv("OSB_ISOLATE_INIT", init, 1);
		setenv("OSB_ISOLATE_POLICY_DIR", pol, 1);
	} else {
		setenv("OSB_ISOLATE_INIT", TEST_BUILDDIR "/helper/osb-isolate-init", 1);
		setenv("OSB_ISOLATE_POLICY_DIR", TEST_SRCDIR "/policy", 1);
	}
	test_use_env_programs();
	if (!test_can_sandbox())
		return 77;
	srand((unsigned)getpid());
	sr = srunner_create(session_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

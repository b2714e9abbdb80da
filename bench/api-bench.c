/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* api-bench.c — the benchmark's measurements that go through the C API.
 *
 * hyperfine times whole processes; what a long-lived caller (execd) pays is
 * measured here, inside one process, with CLOCK_MONOTONIC around each call:
 * one exec in a live session against the host's own posix_spawn of the same
 * program (alternating, so both see the same load), the capabilities probe cached and uncached, and long series of
 * one-shot runs and session execs, with this process's and the session
 * broker's memory and open fds at a checkpoint and at the end (a leak shows
 * as growth between the two). It also exports the seccomp program a policy
 * loads, for bench/bwrap-argv. Every result is one "key=value" line on
 * stdout; bench/run.sh collects them into bench/RESULTS.md.
 *
 *   api-bench filter POLICY OUT      the BPF program of POLICY into OUT
 *   api-bench caps N                 probe once, then N cached, 10 refreshed
 *   api-bench session POLICY N       N execs of true in one session, each
 *                                    paired with a host posix_spawn of true
 *   api-bench oneshot POLICY N       N osb_run of true
 *   api-bench stages POLICY          the stages of one launch, each timed once
 *                                    in this fresh process, as `run` meets them
 */
#include "bwrap.h"
#include "caps.h"
#include "env.h"
#include "filter.h"
#include "host.h"
#include "hostpath.h"
#include "identity.h"
#include "launch.h"
#include "paths.h"

#include <dirent.h>
#include <fcntl.h>
#include <malloc.h>
#include <spawn.h>
#include <time.h>
#include <sys/wait.h>

#define WARMUP 20
#define CHECKPOINT 100

extern char **environ;

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int fail(const char *what, const osb_error *err)
{
	if (err)
		fprintf(stderr, "api-bench: %s: %s: %s\n", what, err->stage, err->message);
	else
		fprintf(stderr, "api-bench: %s: %s\n", what, strerror(errno));
	return 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts V. */
static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void report_series(const char *key, double *us, size_t n, double total_us)
{
	printf("%s_median_us=%.1f\n", key, median(us, n));
	printf("%s_p90_us=%.1f\n", key, us[n * 9 / 10]);
	printf("%s_per_s=%.1f\n", key, (double)n / (total_us / 1e6));
}

/* ---- /proc readers ----------------------------------------------------- */

/* A "Name:   N kB" field of /proc/PID/status in KiB, or -1. */
static long status_kib(pid_t pid, const char *field)
{
	char path[64], line[256];
	size_t n = strlen(field);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, field, n) == 0 && line[n] == ':') {
			v = strtol(line + n + 1, NULL, 10);
			break;
		}
	if (f)
		fclose(f);
	return v;
}

static long open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	long n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n - 1;   /* the directory stream's own fd */
}

static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')');   /* the name may hold anything, even ") " */
	return p ? (pid_t)strtol(p + 4, NULL, 10) : -1;   /* ") S PPID" */
}

static bool is_bwrap(pid_t pid)
{
	char path[64], comm[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/comm", (long)pid);
	if (!(f = fopen(path, "re")))
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return strcmp(comm, "bwrap\n") == 0;
}

/* Is PID this process or below it? */
static bool ours(pid_t pid)
{
	for (int depth = 0; pid > 1 && depth < 16; depth++, pid = parent_of(pid))
		if (pid == getpid())
			return true;
	return false;
}

/* The session broker: the child of the session's bwrap, which this process
 * started through the session's owner (this process > owner > bwrap >
 * broker): found by bwrap's name, so that it is never bwrap's monitor or
 * the owner. */
static pid_t find_broker(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t found = -1;

	while (d && found < 0 && (e = readdir(d))) {
		pid_t pid = (pid_t)strtol(e->d_name, NULL, 10), pp;

		if (pid > 0 && (pp = parent_of(pid)) > 0 && is_bwrap(pp) && !is_bwrap(pid) && ours(pp))
			found = pid;
	}
	if (d)
		closedir(d);
	return found;
}

static void report_memory(const char *when, pid_t broker)
{
	printf("self_rss_%s_kib=%ld\n", when, status_kib(getpid(), "VmRSS"));
	printf("self_anon_%s_kib=%ld\n", when, status_kib(getpid(), "RssAnon"));
	printf("self_file_%s_kib=%ld\n", when, status_kib(getpid(), "RssFile"));
	printf("self_fds_%s=%ld\n", when, open_fds());
	{   /* what malloc hands out and has not had back: flat when nothing leaks */
		struct mallinfo2 mi = mallinfo2();

		printf("self_heap_%s_bytes=%zu\n", when, mi.uordblks + mi.hblkhd);
	}
	if (broker > 0) {
		printf("broker_rss_%s_kib=%ld\n", when, status_kib(broker, "VmRSS"));
		printf("broker_hwm_%s_kib=%ld\n", when, status_kib(broker, "VmHWM"));
	}
}

/* ---- subcommands --------------------------------------------------------- */

static int cmd_filter(const char *name, const char *out)
{
	osb_error err;
	osb_policy *p = osb_policy_load(name, &err);
	char buf[65536];
	ssize_t n;
	int fd = -1, o;

	if (!p)
		return fail("policy", &err);
	if (seccomp_build_fd(p, &fd, &err) < 0 || fd < 0)
		return fail("seccomp", &err);
	o = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (o < 0)
		return fail(out, NULL);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (write(o, buf, (size_t)n) != n)
			return fail(out, NULL);
	close(o);
	close(fd);
	osb_policy_free(p);
	return 0;
}

/* The host floor: posix_spawn and wait of `true`, as a caller would. */
static double spawn_true_us(void)
{
	char *const argv[] = { "true", NULL };
	double a = now_us();
	pid_t pid;
	int st;

	if (posix_spawnp(&pid, "true", NULL, NULL, argv, environ) != 0 ||
	    waitpid(pid, &st, 0) != pid) {
		fail("posix_spawn true", NULL);
		exit(1);
	}
	return now_us() - a;
}

static double probe_us(unsigned flags)
{
	osb_caps *c = NULL;
	osb_error err;
	double a = now_us();

	if (osb_caps_probe(&c, flags, &err) < 0) {
		fail("osb_caps_probe", &err);
		exit(1);
	}
	a = now_us() - a;
	osb_caps_free(c);
	return a;
}

static int cmd_caps(size_t n)
{
	double first = probe_us(0), refresh[10], *us = calloc(n, sizeof(*us));

	if (!us)
		return fail("out of memory", NULL);
	for (size_t i = 0; i < n; i++)
		us[i] = probe_us(0);
	for (size_t i = 0; i < 10; i++)
		refresh[i] = probe_us(OSB_CAPS_REFRESH);
	printf("caps_first_us=%.1f\n", first);
	printf("caps_cached_median_us=%.2f\n", median(us, n));
	printf("caps_refresh_median_us=%.1f\n", median(refresh, 10));
	free(us);
	return 0;
}

static osb_exec *exec_true(void)
{
	static const char *const argv[] = { "true", NULL };
	osb_error err;
	osb_exec *e = osb_exec_new(argv, &err);

	if (!e)
		fail("osb_exec_new", &err);
	return e;
}

/* One session, N execs of true (after a warm-up), each timed, each paired
 * with a host posix_spawn of true just before it: the two series see the
 * same machine state, and their ratio is taken per pair. */
static int cmd_session(const char *name, size_t n)
{
	osb_error err;
	osb_policy *p = osb_policy_load(name, &err);
	osb_exec *e = exec_true();
	double *us = calloc(n, sizeof(*us)), *host = calloc(n, sizeof(*host));
	double *ratio = calloc(n, sizeof(*ratio)), t0 = 0, host_total = 0, a;
	osb_session *s;
	pid_t broker;

	if (!p || !e || !us || !host || !ratio)
		return fail("setup", p ? NULL : &err);
	a = now_us();
	s = osb_session_start(p, &err);
	if (!s)
		return fail("osb_session_start", &err);
	printf("session_start_us=%.1f\n", now_us() - a);
	broker = find_broker();
	for (size_t i = 0; i < n + WARMUP; i++) {
		osb_result *r = NULL;

		if (i == WARMUP)
			t0 = now_us();
		if (i == WARMUP + CHECKPOINT)
			report_memory("checkpoint", broker);
		double h = spawn_true_us();
		a = now_us();
		if (osb_session_run(s, e, &r, &err) < 0 || !osb_result_ok(r))
			return fail("osb_session_run", &err);
		if (i >= WARMUP) {
			us[i - WARMUP] = now_us() - a;
			host[i - WARMUP] = h;
			ratio[i - WARMUP] = us[i - WARMUP] / h;
			host_total += h;
		}
		osb_result_free(r);
	}
	a = now_us() - t0 - host_total;
	report_memory("end", broker);
	report_series("session_exec", us, n, a);
	report_series("host_spawn", host, n, host_total);
	printf("session_exec_paired_ratio_median=%.3f\n", median(ratio, n));
	osb_session_free(s);
	osb_exec_free(e);
	osb_policy_free(p);
	free(us);
	free(host);
	free(ratio);
	return 0;
}

static int cmd_oneshot(const char *name, size_t n)
{
	osb_error err;
	osb_policy *p = osb_policy_load(name, &err);
	osb_exec *e = exec_true();
	double *us = calloc(n, sizeof(*us)), t0 = 0, a;

	if (!p || !e || !us)
		return fail("setup", p ? NULL : &err);
	for (size_t i = 0; i < n + WARMUP; i++) {
		osb_result *r = NULL;

		if (i == WARMUP)
			t0 = now_us();
		if (i == WARMUP + CHECKPOINT)
			report_memory("checkpoint", -1);
		a = now_us();
		if (osb_run(p, e, &r, &err) < 0 || !osb_result_ok(r))
			return fail("osb_run", &err);
		if (i >= WARMUP)
			us[i - WARMUP] = now_us() - a;
		osb_result_free(r);
	}
	a = now_us() - t0;
	report_memory("end", -1);
	report_series("oneshot", us, n, a);
	osb_exec_free(e);
	osb_policy_free(p);
	free(us);
	return 0;
}

/* What a fresh `osb-isolate run` pays before bwrap starts, stage by stage,
 * first calls only (what plan_build would find cached is timed separately
 * before it). Each line is "stage_NAME_us=T". */
static int cmd_stages(const char *name)
{
	osb_error err;
	osb_policy *p;
	_cleanup_free_ char *canon = NULL, *pw = NULL, *gr = NULL;
	host_facts h;
	strv env = { 0 };
	plan pl;
	int fd = -1, wfd = -1;
	char cwd[PATH_MAX];
	double a = now_us();

	if (!(p = osb_policy_load(name, &err)))
		return fail("policy", &err);
	printf("stage_policy_load_us=%.1f\n", now_us() - a);
	a = now_us();
	if (host_facts_now(&h, NULL, &err) < 0)
		return fail("facts", &err);
	printf("stage_host_facts_us=%.1f\n", now_us() - a);
	a = now_us();
	if (caps_check_policy(p, &h, &err) < 0)
		return fail("caps", &err);
	printf("stage_caps_check_us=%.1f\n", now_us() - a);
	host_facts_free(&h);
	a = now_us();
	if (seccomp_build_fd(p, &fd, &err) < 0)
		return fail("seccomp", &err);
	printf("stage_filter_us=%.1f\n", now_us() - a);
	close(fd);
	a = now_us();
	if (!getcwd(cwd, sizeof(cwd)))
		return fprintf(stderr, "api-bench: getcwd: %s\n", strerror(errno)), 1;
	if (path_open_workspace(cwd, &(path_roots){ NULL, 0, NULL }, &wfd, &canon, &err) < 0 ||
	    path_check_no_mounts_beneath(wfd, &err) < 0)
		return fail("workspace", &err);
	printf("stage_workspace_us=%.1f\n", now_us() - a);
	close(wfd);
	a = now_us();
	if (identity_passwd(p, p->uid, p->gid, canon, &pw) < 0 || identity_group(p, p->uid, p->gid, &gr) < 0 ||
	    env_build(p, NULL, canon, &env, &err) < 0)
		return fail("identity", &err);
	printf("stage_identity_env_us=%.1f\n", now_us() - a);
	a = now_us();
	if (launch_prepare(p, &(plan_request){ NULL, NULL, false, 0 }, &pl, &err) < 0)
		return fail("plan", &err);
	printf("stage_plan_warm_us=%.1f\n", now_us() - a);
	plan_free(&pl);
	strv_free(&env);
	osb_policy_free(p);
	return 0;
}

static size_t count_arg(const char *s)
{
	char *end = NULL;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v < 2 * CHECKPOINT || v > 1000000) {
		fprintf(stderr, "api-bench: N must be a number from %d to 1000000\n", 2 * CHECKPOINT);
		exit(2);
	}
	return (size_t)v;
}

/* The programs OSB_ISOLATE_BWRAP, OSB_ISOLATE_INIT and OSB_ISOLATE_NETPROXY
 * name, handed to the library as osb-isolate(1) does: it reads no
 * environment for them. */
static void use_env_programs(void)
{
	static const struct { osb_program which; const char *var; } progs[] = {
		{ OSB_PROGRAM_BWRAP, "OSB_ISOLATE_BWRAP" }, { OSB_PROGRAM_INIT, "OSB_ISOLATE_INIT" },
		{ OSB_PROGRAM_NETPROXY, "OSB_ISOLATE_NETPROXY" },
	};
	osb_error err;

	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++)
		if (osb_set_program(progs[i].which, getenv(progs[i].var), progs[i].var, &err) < 0) {
			fprintf(stderr, "api-bench: %s\n", err.message);
			exit(2);
		}
}

int main(int argc, char **argv)
{
	use_env_programs();
	if (argc == 4 && strcmp(argv[1], "filter") == 0)
		return cmd_filter(argv[2], argv[3]);
	if (argc == 3 && strcmp(argv[1], "caps") == 0)
		return cmd_caps(count_arg(argv[2]));
	if (argc == 4 && strcmp(argv[1], "session") == 0)
		return cmd_session(argv[2], count_arg(argv[3]));
	if (argc == 4 && strcmp(argv[1], "oneshot") == 0)
		return cmd_oneshot(argv[2], count_arg(argv[3]));
	if (argc == 3 && strcmp(argv[1], "stages") == 0)
		return cmd_stages(argv[2]);
	fprintf(stderr, "usage: api-bench filter POLICY OUT | caps N | "
	        "session POLICY N | oneshot POLICY N | stages POLICY\n");
	return 2;
}

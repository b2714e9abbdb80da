/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_leak.c — resource-leak tests of the one-shot path: many osb_run calls
 * from one long-lived process, as an execution daemon makes them.
 *
 * A daemon that leaks one fd, one child or a few bytes per run dies after a
 * day, and a leaked directory fd is a sandbox escape. After a warm-up (libc,
 * libseccomp and json-c allocate some things once), the first test takes a
 * snapshot of the process and of what its sandboxes could leave on the host,
 * runs `true` 100 times (`make check`; the soak gate of tools/check.sh sets
 * OSB_LEAK_RUNS=1000) and compares:
 *   - open fds (/proc/self/fd) and child processes: exactly equal;
 *   - live heap bytes (glibc's mallinfo2 with its per-thread cache off, see
 *     main; or the ASan allocator's own count): at most LEAK_HEAP_SLACK more,
 *     i.e. under 64 bytes per run;
 *   - resident memory (VmRSS): at most LEAK_RSS_SLACK more;
 *   - the host, as far as these runs own it: the mounts at or beneath the
 *     workspace and the private TMPDIR (or naming osb-isolate or bwrap)
 *     unchanged; no file in TMPDIR or the workspace; no /dev/shm entry named
 *     osb*; no process anywhere still working in the workspace. The rest of
 *     the host's mount table and /dev/shm belong to other processes, which
 *     may change them while this runs.
 * Measured on a 2-vCPU VM (plain build): about 8 ms per run; fds, children,
 * mounts, files and heap exactly flat after the warm-up; RSS +0.1 MiB.
 * The second test makes this process a child subreaper, so that every
 * process a run leaves behind is reparented here instead of to pid 1, and
 * requires that none is still alive when osb_run returns ("nothing may
 * outlive a run", docs/ARCHITECTURE.md,
 * "Processes and fds").
 *
 * These tests start real sandboxes, so their cases carry the Check tag
 * "sandbox": valgrind 3.19 does not implement pidfd_open, and
 * tools/valgrind.sh runs the unit tests with CK_EXCLUDE_TAGS=sandbox. They
 * run in the plain and the sanitizer builds.
 *
 * The session case does the same for one session: the same number of
 * osb_session_spawn + osb_proc_wait of `true` in it leave everything as it
 * was after the warm-up (the session's own processes are children while it
 * lives, so their count must not change rather than be zero), and after
 * osb_session_destroy no child, file or mount of it is left.
 */
#include "policy.h"
#include "proc.h"
#include "probe.h"

#include <check.h>
#include <dirent.h>
#include <limits.h>
#include <malloc.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#if defined(__SANITIZE_ADDRESS__)
#define LEAK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LEAK_ASAN 1
#endif
#endif
#ifdef LEAK_ASAN
/* From the sanitizer runtime (declared in clang's
 * <sanitizer/allocator_interface.h>, which GCC does not install). */
size_t __sanitizer_get_current_allocated_bytes(void);
/* ASan keeps freed blocks in a quarantine (256 MiB by default) to catch use
 * after free, and resident memory grows by every byte freed until it is
 * full. A small quarantine fills during the warm-up, so that RSS means here
 * what it means in a plain build. Only this test program is affected. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "quarantine_size_mb=1:thread_local_quarantine_size_kb=64";
}
#endif

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

#define LEAK_RUNS_DEFAULT 100
#define LINGER_RUNS 200
#define LEAK_HEAP_SLACK (64 * 1024)          /* bytes, for any number of runs */
#ifdef LEAK_ASAN
/* ASan's allocator maps its size classes lazily and keeps the quarantine:
 * about 1.2 MiB more after 1,000 runs here. */
#define LEAK_RSS_SLACK (4 * 1024 * 1024)     /* bytes */
#else
#define LEAK_RSS_SLACK (2 * 1024 * 1024)     /* bytes */
#endif

static const char *const true_argv[] = { "true", NULL };
static const char *const true_envp[] = { "PATH=/usr/bin:/bin", NULL };
static char ws[64] = "/tmp/osb-leak-ws.XXXXXX";
static char tmpdir[64] = "/tmp/osb-leak-tmp.XXXXXX";

typedef struct snapshot {
	long fds, children;
	size_t heap, rss;
	strv mounts;
	long tmp_files, ws_files, shm_files, ws_procs;
} snapshot;

static long count_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	long n = 0;

	ck_assert_msg(d != NULL, "opendir %s: %s", path, strerror(errno));
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

/* Children of every thread of this process; *ZOMBIES (may be NULL) counts
 * those that have exited and wait to be reaped. */
static long count_children(long *zombies)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	long n = 0;

	ck_assert(d != NULL);
	if (zombies)
		*zombies = 0;
	while ((e = readdir(d))) {
		char path[PATH_MAX];
		FILE *f;
		long pid;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/children", e->d_name);
		f = fopen(path, "re");
		ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
		while (fscanf(f, "%ld", &pid) == 1) {
			char stat[PATH_MAX], line[512] = "", *paren;
			FILE *s;

			n++;
			snprintf(stat, sizeof(stat), "/proc/%ld/stat", pid);
			if (!zombies || !(s = fopen(stat, "re")))
				continue;
			if (fgets(line, sizeof(line), s) && (paren = strrchr(line, ')')) &&
			    paren[1] == ' ' && paren[2] == 'Z')
				(*zombies)++;
			fclose(s);
		}
		fclose(f);
	}
	closedir(d);
	return n;
}

static size_t rss_bytes(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	size_t kib = 0;

	ck_assert(f != NULL);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %zu kB", &kib) == 1)
			break;
	fclose(f);
	ck_assert_uint_gt(kib, 0);
	return kib * 1024;
}

static size_t heap_bytes(void)
{
#ifdef LEAK_ASAN
	return __sanitizer_get_current_allocated_bytes();
#else
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
#endif
}

/* Is PATH the directory DIR or beneath it? */
static bool at_or_beneath(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* Could this mountinfo line come from these runs' sandboxes: a mount at or
 * beneath the workspace or TMPDIR (a bind propagated back to the host), or
 * one whose mount point or source names osb-isolate or bwrap? Every other
 * line belongs to other processes of the host, which mount and unmount as
 * they please (other tests under make -j, other users). */
static bool owned_mount(const char *line)
{
	char root[PATH_MAX], point[PATH_MAX];
	const char *sep = strstr(line, " - ");

	if (sscanf(line, "%*s %*s %*s %4095s %4095s", root, point) != 2)
		return false;
	if (at_or_beneath(point, ws) || at_or_beneath(point, tmpdir) ||
	    at_or_beneath(root, ws) || at_or_beneath(root, tmpdir))
		return true;
	return strstr(point, "osb-isolate") || strstr(point, "bwrap") ||
	       (sep && (strstr(sep, "osb-isolate") || strstr(sep, "bwrap")));
}

static void read_mounts(strv *out)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;

	ck_assert(f != NULL);
	while (getline(&line, &cap, f) > 0)
		if (owned_mount(line))
			ck_assert_int_eq(strv_push(out, line), 0);
	free(line);
	fclose(f);
}

/* Entries of /dev/shm that this library would have made: named osb*. */
static long count_shm_owned(void)
{
	DIR *d = opendir("/dev/shm");
	struct dirent *e;
	long n = 0;

	if (!d)
		return 0;   /* no /dev/shm: nothing can be left there */
	while ((e = readdir(d)))
		if (strncmp(e->d_name, "osb", 3) == 0)
			n++;
	closedir(d);
	return n;
}

/* Processes (of any parent) whose working directory is the workspace: a
 * command of one of these runs that outlived it. */
static long count_workspace_procs(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	long n = 0;

	ck_assert(d != NULL);
	while ((e = readdir(d))) {
		char link[PATH_MAX], cwd[PATH_MAX];
		ssize_t len;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(link, sizeof(link), "/proc/%s/cwd", e->d_name);
		len = readlink(link, cwd, sizeof(cwd) - 1);
		if (len <= 0)
			continue;
		cwd[len] = '\0';
		if (at_or_beneath(cwd, ws))
			n++;
	}
	closedir(d);
	return n;
}

/* fds first, before anything here opens one of its own. */
static void snapshot_take(snapshot *s)
{
	memset(s, 0, sizeof(*s));
	s->fds = count_dir("/proc/self/fd") - 1;   /* minus opendir's own fd */
	s->children = count_children(NULL);
	s->heap = heap_bytes();
	s->rss = rss_bytes();
	read_mounts(&s->mounts);
	s->tmp_files = count_dir(tmpdir);
	s->ws_files = count_dir(ws);
	s->shm_files = count_shm_owned();
	s->ws_procs = count_workspace_procs();
}

static bool same_mounts(const snapshot *a, const snapshot *b)
{
	if (a->mounts.n != b->mounts.n)
		return false;
	for (size_t i = 0; i < a->mounts.n; i++)
		if (strcmp(a->mounts.v[i], b->mounts.v[i]) != 0)
			return false;
	return true;
}

/* LIVE: how many children the caller holds on purpose throughout (a live
 * session's processes); 0 for one-shot runs. A live session also keeps its
 * workspace's placeholder directories (the mount points of read-only rules,
 * lib/binds.c) and its processes' working directories there: those must not
 * change while it lives, and are gone once it is destroyed. */
static void expect_flat(const snapshot *a, const snapshot *b, unsigned runs, uint64_t ms,
                        long live)
{
	long heap_growth = (long)b->heap - (long)a->heap, rss_growth = (long)b->rss - (long)a->rss;
	bool mounts_same = same_mounts(a, b);

	fprintf(stderr, "leak: %u runs in %llu ms (%.1f ms/run): fds %ld -> %ld, children %ld -> %ld, "
	        "heap %+ld bytes (limit %d), rss %+ld KiB (limit %d KiB), %zu owned mounts %s, "
	        "files: TMPDIR %ld, workspace %ld, /dev/shm osb* %ld -> %ld; processes in the "
	        "workspace %ld\n",
	        runs, (unsigned long long)ms, runs ? (double)ms / runs : 0.0, a->fds, b->fds,
	        a->children, b->children, heap_growth, LEAK_HEAP_SLACK, rss_growth / 1024,
	        LEAK_RSS_SLACK / 1024, b->mounts.n, mounts_same ? "unchanged" : "CHANGED",
	        b->tmp_files, b->ws_files, a->shm_files, b->shm_files, b->ws_procs);
	ck_assert_int_eq(b->fds, a->fds);
	ck_assert_int_eq(a->children, live);
	ck_assert_int_eq(b->children, live);
	ck_assert_int_le(heap_growth, LEAK_HEAP_SLACK);
	ck_assert_int_le(rss_growth, LEAK_RSS_SLACK);
	ck_assert_msg(mounts_same, "a mount at or beneath the workspace or TMPDIR, or naming "
	              "osb-isolate or bwrap, appeared or changed during the runs");
	ck_assert_int_eq(b->tmp_files, 0);
	ck_assert_int_eq(b->ws_files, live ? a->ws_files : 0);
	ck_assert_int_eq(b->shm_files, a->shm_files);
	ck_assert_int_eq(b->ws_procs, live ? a->ws_procs : 0);
}

static unsigned runs_wanted(void)
{
	const char *s = getenv("OSB_LEAK_RUNS");
	char *end;
	unsigned long n;

	if (!s || !*s)
		return LEAK_RUNS_DEFAULT;
	errno = 0;
	n = strtoul(s, &end, 10);
	ck_assert_msg(!errno && !*end && n >= 1 && n <= 100000,
	              "OSB_LEAK_RUNS=%s: expected a number from 1 to 100000", s);
	return (unsigned)n;
}

static void load_true(osb_policy **p, osb_exec **e)
{
	osb_error err = { 0 };

	*p = osb_policy_load("strict", &err);
	ck_assert_msg(*p != NULL, "%s", err.message);
	ck_assert_int_eq(osb_policy_set_workspace(*p, ws, &err), 0);
	*e = osb_exec_new(true_argv, &err);
	ck_assert_ptr_nonnull(*e);
	ck_assert_int_eq(osb_exec_set_env(*e, true_envp), 0);
}

static void run_true(const osb_policy *p, const osb_exec *e)
{
	osb_result *res = NULL;
	osb_error err = { 0 };
	int r = osb_run(p, e, &res, &err);

	ck_assert_msg(r == 0, "osb_run failed: %s: %s", err.stage, err.message);
	ck_assert_ptr_nonnull(res);
	ck_assert_int_eq(osb_result_ok(res), 1);
	ck_assert_int_eq(osb_result_exit_code(res), 0);
	osb_result_free(res);
}

START_TEST(test_thousand_runs_leave_fds_children_memory_and_host_flat)
{
	unsigned runs = runs_wanted(), warmup = runs / 10 < 5 ? 5 : runs / 10;
	snapshot before, after;
	osb_policy *p;
	osb_exec *e;
	uint64_t start, ms;

	load_true(&p, &e);
	for (unsigned i = 0; i < warmup; i++)
		run_true(p, e);
	snapshot_take(&before);
	start = now_ms();
	for (unsigned i = 0; i < runs; i++)
		run_true(p, e);
	ms = now_ms() - start;
	snapshot_take(&after);
	expect_flat(&before, &after, runs, ms, 0);
	strv_free(&before.mounts);
	strv_free(&after.mounts);
	osb_exec_free(e);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_run_leaves_no_process_behind)
{
	unsigned lingering = 0, first = 0;
	long reaped = 0;
	osb_policy *p;
	osb_exec *e;

	load_true(&p, &e);
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	for (unsigned i = 0; i < LINGER_RUNS; i++) {
		long zombies, n;

		run_true(p, e);
		n = count_children(&zombies);
		if (n > zombies && lingering++ == 0)
			first = i + 1;
		/* Orphans that have exited are ours to reap now. */
		while (waitpid(-1, NULL, WNOHANG) > 0)
			reaped++;
	}
	fprintf(stderr, "leak: %u runs as a subreaper: %u returned with a sandbox process still "
	        "alive (first: run %u), %ld exited orphans reaped\n", LINGER_RUNS, lingering,
	        first, reaped);
	ck_assert_msg(lingering == 0, "%u of %u runs returned while a process of their sandbox "
	              "was still alive", lingering, LINGER_RUNS);
	osb_exec_free(e);
	osb_policy_free(p);
}
END_TEST

static void session_true(osb_session *s, const osb_exec *e)
{
	osb_proc *pr = NULL;
	osb_status st;
	osb_error err = { 0 };

	ck_assert_msg(osb_session_spawn(s, e, &pr, &err) == 0, "osb_session_spawn failed: %s: %s",
	              err.stage, err.message);
	ck_assert_int_eq(osb_proc_wait(pr, 10000, &st), 0);
	ck_assert_int_eq(st.exit_code, 0);
	ck_assert_int_eq(st.signal, 0);
	osb_proc_free(pr);
}

START_TEST(test_thousand_session_execs_leave_process_and_host_flat)
{
	unsigned runs = runs_wanted(), warmup = runs / 10 < 5 ? 5 : runs / 10;
	snapshot pre, before, after, gone;
	osb_session *s;
	osb_policy *p;
	osb_exec *e;
	osb_error err = { 0 };
	uint64_t start, ms;
	long live;

	load_true(&p, &e);
	/* A first session warms up what the library keeps for later ones
	 * (probe results); the fds before the second are the baseline. */
	s = osb_session_start(p, &err);
	ck_assert_msg(s != NULL, "osb_session_start failed: %s: %s", err.stage, err.message);
	session_true(s, e);
	ck_assert_int_eq(osb_session_destroy(s, &err), 0);
	osb_session_free(s);
	snapshot_take(&pre);
	s = osb_session_start(p, &err);
	ck_assert_msg(s != NULL, "osb_session_start failed: %s: %s", err.stage, err.message);
	for (unsigned i = 0; i < warmup; i++)
		session_true(s, e);
	live = count_children(NULL);
	ck_assert_int_gt(live, 0);
	snapshot_take(&before);
	start = now_ms();
	for (unsigned i = 0; i < runs; i++)
		session_true(s, e);
	ms = now_ms() - start;
	snapshot_take(&after);
	expect_flat(&before, &after, runs, ms, live);
	ck_assert_int_eq(osb_session_destroy(s, &err), 0);
	osb_session_free(s);
	snapshot_take(&gone);
	fprintf(stderr, "leak: session destroyed: children %ld -> %ld, fds %ld -> %ld (%ld before "
	        "it started)\n", live, gone.children, after.fds, gone.fds, pre.fds);
	ck_assert_int_eq(gone.children, 0);
	ck_assert_int_eq(gone.fds, pre.fds);
	ck_assert_int_eq(gone.tmp_files, 0);
	ck_assert_int_eq(gone.ws_files, 0);
	ck_assert_int_eq(gone.ws_procs, 0);
	ck_assert(same_mounts(&after, &gone));
	ck_assert(same_mounts(&pre, &gone));
	strv_free(&pre.mounts);
	strv_free(&before.mounts);
	strv_free(&after.mounts);
	strv_free(&gone.mounts);
	osb_exec_free(e);
	osb_policy_free(p);
}
END_TEST

/* The programs under test come from the build tree (make check exports
 * OSB_BUILDDIR), the policies from the source tree. */
static void setup_env(void)
{
	const char *b = getenv("OSB_BUILDDIR");
	char init[PATH_MAX];

	snprintf(init, sizeof(init), "%s/helper/osb-isolate-init", b && *b ? b : ".");
	setenv("OSB_ISOLATE_INIT", init, 1);
	setenv("OSB_ISOLATE_POLICY_DIR", TEST_SRCDIR "/policy", 1);
	test_use_env_programs();
	setenv("TMPDIR", tmpdir, 1);
}

static Suite *leak_suite(void)
{
	Suite *s = suite_create("leak");
	TCase *tc = tcase_create("one-shot");

	tcase_set_tags(tc, "sandbox");
	/* 1,000 runs (the soak gate) take about 10 s here; the sanitizers
	 * double it. */
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_thousand_runs_leave_fds_children_memory_and_host_flat);
	tcase_add_test(tc, test_run_leaves_no_process_behind);
	suite_add_tcase(s, tc);
	tc = tcase_create("session");
	tcase_set_tags(tc, "sandbox");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_thousand_session_execs_leave_process_and_host_flat);
	suite_add_tcase(s, tc);
	return s;
}

/* glibc's per-thread cache (tcache) keeps up to 7 freed blocks of every size
 * and mallinfo2 counts them as in use, so the count drifts by tens of KiB
 * while the cache fills; with the cache off it is exact. The setting is read
 * at start-up only, hence the re-exec (once: the marker variable; not
 * under valgrind, whose own allocator replaces glibc's and which would not
 * follow the exec). */
static void reexec_without_tcache(char **argv)
{
	const char *old = getenv("GLIBC_TUNABLES");
	char *tun = NULL;

	if (getenv("OSB_LEAK_REEXEC") || RUNNING_ON_VALGRIND)
		return;
	if (asprintf(&tun, "%s%sglibc.malloc.tcache_count=0", old ? old : "", old ? ":" : "") < 0)
		return;
	setenv("GLIBC_TUNABLES", tun, 1);
	setenv("OSB_LEAK_REEXEC", "1", 1);
	free(tun);
	execv("/proc/self/exe", argv);
	perror("check_leak: re-exec");
}

int main(int argc, char **argv)
{
	SRunner *sr;
	int failed;

	(void)argc;
	reexec_without_tcache(argv);
	/* Root callers' sandboxes run as allocated host ids: sticky, like /tmp. */
	if (!mkdtemp(ws) || !mkdtemp(tmpdir) || chmod(ws, geteuid() == 0 ? 01777 : 0755) < 0) {
		perror("check_leak: mkdtemp");
		return EXIT_FAILURE;
	}
	setup_env();
	if (!test_can_sandbox()) {
		rmdir(ws);
		rmdir(tmpdir);
		return 77;
	}
	sr = srunner_create(leak_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	/* Both directories are empty after passing tests; rmdir says if not. */
	if (rmdir(ws) < 0 || rmdir(tmpdir) < 0) {
		perror("check_leak: files left behind");
		failed++;
	}
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

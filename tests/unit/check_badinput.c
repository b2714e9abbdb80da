/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_badinput.c — hostile input at every entrance gets a clear error,
 * never a crash, a hang or a silent misreading.
 *
 * The entrances: policy files and text (truncated, binary, a FIFO, 1 MB
 * lines, over 1 MiB, includes nested too deep or in a cycle, invalid UTF-8,
 * numbers too large for their field, negative durations), the quantity
 * parsers, the caller's environment (names with a newline, '=' or nothing
 * before the '=', entries without '='), and argument vectors of 100,000
 * entries, through osb_exec_new/osb_run and through the osb-isolate CLI.
 * Each case pins the exact outcome: return code, error class and the
 * message with its file:line:col. The cases that start sandboxes (or the
 * CLI, which does) carry the Check tag "sandbox": tools/valgrind.sh leaves
 * them out (valgrind 3.19 has no pidfd_open); the plain and sanitizer
 * builds run them all.
 */
#include "policy.h"
#include "env.h"
#include "probe.h"

#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <limits.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HUGE_ARGC 100000
#define PBUF 128        /* a path under DIR */
#define WBUF 1024       /* an expected message */

static char dir[64] = "/tmp/osb-badinput.XXXXXX";   /* policy files */
static char ws[64] = "/tmp/osb-badinput-ws.XXXXXX"; /* workspace */
static char cli_stage[64] = "/tmp/osb-badinput-cli.XXXXXX"; /* the staged command */

/* ---- helpers -------------------------------------------------------------- */

__attribute__((format(printf, 3, 4)))
static void path_of(char *buf, size_t size, const char *fmt, ...)
{
	char name[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	ck_assert_int_lt(snprintf(buf, size, "%s/%s", dir, name), (int)size);
}

static void write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	ck_assert_int_eq(close(fd), 0);
}

static void write_text(const char *path, const char *text)
{
	write_file(path, text, strlen(text));
}

/* Load PATH and expect a policy error whose message is exactly WANT. */
static void expect_load_error(const char *path, int want_errno, const char *want)
{
	osb_error err = { 0 };
	osb_policy *p = osb_policy_load(path, &err);

	ck_assert_ptr_null(p);
	ck_assert_int_eq(err.code, OSB_E_POLICY);
	ck_assert_int_eq(err.sys_errno, want_errno);
	ck_assert_str_eq(err.stage, "policy");
	ck_assert_str_eq(err.message, want);
}

static void expect_parse_error(const char *text, const char *want)
{
	osb_error err = { 0 };
	osb_policy *p = osb_policy_parse(text, strlen(text), "t.policy", &err);

	ck_assert_ptr_null(p);
	ck_assert_int_eq(err.code, OSB_E_POLICY);
	ck_assert_str_eq(err.message, want);
}

/* Does MSG start with "FILE:LINE:COL: " and have text after it? */
static bool has_position(const char *msg, const char *file)
{
	size_t n = strlen(file);
	unsigned line, col;
	int used = 0;

	if (strncmp(msg, file, n) != 0 || msg[n] != ':')
		return false;
	if (sscanf(msg + n, ":%u:%u: %n", &line, &col, &used) != 2 || used == 0)
		return false;
	return line >= 1 && col >= 1 && msg[n + (size_t)used] != '\0';
}

/* ---- policy files ---------------------------------------------------------- */

/* Every prefix of every shipped policy: a policy or a positioned error. */
START_TEST(test_truncated_shipped_policies_parse_or_fail_with_position)
{
	static const char *const names[] = { "strict", "balanced" };

	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		char path[PATH_MAX], *text = NULL;
		size_t len = 0, ok = 0, refused = 0;

		snprintf(path, sizeof(path), "%s/policy/%s.policy", TEST_SRCDIR, names[k]);
		ck_assert_int_eq(read_file_bounded(path, 1 << 20, &text, &len), 0);
		for (size_t cut = 0; cut <= len; cut++) {
			osb_error err = { 0 };
			osb_policy *p = osb_policy_parse(text, cut, path, &err);

			if (p) {
				ok++;
				osb_policy_free(p);
				continue;
			}
			refused++;
			ck_assert_int_eq(err.code, OSB_E_POLICY);
			ck_assert_msg(has_position(err.message, path), "cut at %zu: \"%s\"", cut,
			              err.message);
		}
		/* The whole file parses; the empty prefix has no version line. */
		ck_assert_uint_eq(ok + refused, len + 1);
		ck_assert_uint_gt(ok, 0);
		ck_assert_uint_gt(refused, 0);
		free(text);
	}
}
END_TEST

START_TEST(test_truncated_lines_exact_errors)
{
	expect_parse_error("", "t.policy:1:1: missing version line \"osb-policy 1\" (the file has no "
	                   "directives)");
	expect_parse_error("osb-pol", "t.policy:1:1: expected version line \"osb-policy 1\" first");
	expect_parse_error("osb-policy 1\nlimit wall 60",
	                   "t.policy:2:12: missing unit in \"60\" (use ms, s, m or h)");
	expect_parse_error("osb-policy 1\nuser sandbox 1000",
	                   "t.policy:2:1: missing argument: usage is \"user NAME UID GID\"");
}
END_TEST

START_TEST(test_binary_policy_file_refused_at_first_byte)
{
	static const unsigned char elf[] = { 0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0 };
	char path[PBUF], want[WBUF];

	path_of(path, sizeof(path), "elf.policy");
	write_file(path, elf, sizeof(elf));
	snprintf(want, sizeof(want), "%s:1:1: control character 0x7f in policy text", path);
	expect_load_error(path, 0, want);
}
END_TEST

START_TEST(test_policy_with_nul_byte_refused)
{
	static const char text[] = "osb-policy 1\nroot\0none\n";
	osb_error err = { 0 };

	ck_assert_ptr_null(osb_policy_parse(text, sizeof(text) - 1, "t.policy", &err));
	ck_assert_str_eq(err.message, "t.policy:2:5: NUL byte in policy text");
}
END_TEST

START_TEST(test_fifo_as_policy_refused_without_blocking)
{
	char path[PBUF], want[WBUF];

	path_of(path, sizeof(path), "fifo.policy");
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	snprintf(want, sizeof(want), "%s: not a regular file", path);
	expect_load_error(path, EINVAL, want);
}
END_TEST

START_TEST(test_one_megabyte_line_refused_with_position)
{
	size_t n = 1000000;
	char *text = malloc(n + 32), path[PBUF], want[WBUF];
	int len;

	ck_assert_ptr_nonnull(text);
	len = snprintf(text, 32, "osb-policy 1\n# ");
	memset(text + len, 'x', n);
	text[len + (int)n] = '\n';
	path_of(path, sizeof(path), "long-line.policy");
	write_file(path, text, (size_t)len + n + 1);
	snprintf(want, sizeof(want), "%s:2:4097: line longer than 4096 bytes", path);
	expect_load_error(path, 0, want);
	free(text);
}
END_TEST

START_TEST(test_policy_over_one_mebibyte_refused)
{
	size_t n = (1 << 20) + 1;
	char *text = malloc(n), path[PBUF], want[WBUF];
	osb_error err = { 0 };

	ck_assert_ptr_nonnull(text);
	memset(text, '\n', n);
	memcpy(text, "osb-policy 1\n", 13);
	path_of(path, sizeof(path), "big.policy");
	write_file(path, text, n);
	snprintf(want, sizeof(want), "%s: policy file is larger than 1 MiB", path);
	expect_load_error(path, EFBIG, want);
	/* The same through osb_policy_parse. */
	ck_assert_ptr_null(osb_policy_parse(text, n, "t.policy", &err));
	ck_assert_int_eq(err.code, OSB_E_POLICY);
	ck_assert_int_eq(err.sys_errno, EFBIG);
	ck_assert_str_eq(err.message, "t.policy: policy is larger than 1 MiB");
	free(text);
}
END_TEST

START_TEST(test_includes_nested_too_deep_refused)
{
	char a[PBUF], b[PBUF], c[PBUF], d[PBUF], want[WBUF];

	path_of(a, sizeof(a), "deep-a.policy");
	path_of(b, sizeof(b), "deep-b.policy");
	path_of(c, sizeof(c), "deep-c.policy");
	path_of(d, sizeof(d), "deep-d.policy");
	write_text(a, "osb-policy 1\ninclude ./deep-b\n");
	write_text(b, "osb-policy 1\ninclude ./deep-c\n");
	write_text(c, "osb-policy 1\ninclude ./deep-d\n");
	write_text(d, "osb-policy 1\n");
	snprintf(want, sizeof(want), "%s:2:9: include nested too deeply: \"./deep-d\" would be at "
	         "depth 3 (at most 2 levels of include); included from %s:2, from %s:2", c, b, a);
	expect_load_error(a, 0, want);
}
END_TEST

START_TEST(test_include_cycles_refused)
{
	char self[PBUF], x[PBUF], y[PBUF], want[WBUF];

	path_of(self, sizeof(self), "self.policy");
	write_text(self, "osb-policy 1\ninclude ./self\n");
	snprintf(want, sizeof(want), "%s:2:9: include cycle: %s -> %s", self, self, self);
	expect_load_error(self, 0, want);

	path_of(x, sizeof(x), "cycle-x.policy");
	path_of(y, sizeof(y), "cycle-y.policy");
	write_text(x, "osb-policy 1\ninclude ./cycle-y\n");
	write_text(y, "osb-policy 1\ninclude ./cycle-x\n");
	snprintf(want, sizeof(want), "%s:2:9: include cycle: %s -> %s -> %s; included from %s:2", y, x, y,
	         x, x);
	expect_load_error(x, 0, want);
}
END_TEST

START_TEST(test_invalid_utf8_refused_with_column)
{
	expect_parse_error("osb-policy 1\nhostname caf\xc3\n",
	                   "t.policy:2:13: invalid UTF-8 in policy text");
	expect_parse_error("osb-policy 1\nro-bind /\xc0\xaf\n",            /* overlong "/" */
	                   "t.policy:2:10: invalid UTF-8 in policy text");
	expect_parse_error("osb-policy 1\nro-bind /\xed\xa0\x80\n",        /* surrogate */
	                   "t.policy:2:10: invalid UTF-8 in policy text");
	expect_parse_error("\xff\xfe", "t.policy:1:1: invalid UTF-8 in policy text");
}
END_TEST

START_TEST(test_huge_numbers_refused)
{
	expect_parse_error("osb-policy 1\nlimit wall 99999999999999999999s\n",
	                   "t.policy:2:12: \"limit wall\" value \"99999999999999999999s\" is out of range");
	expect_parse_error("osb-policy 1\nlimit as 18446744073709551615B\n",
	                   "t.policy:2:10: \"limit as\" value \"18446744073709551615B\" is out of range");
	expect_parse_error("osb-policy 1\nlimit as 16777216TiB\n",
	                   "t.policy:2:10: \"limit as\" value \"16777216TiB\" is out of range");
	expect_parse_error("osb-policy 1\nuser sandbox 99999999999 1000\n",
	                   "t.policy:2:14: uid \"99999999999\" is out of range (0 to 4294967294)");
}
END_TEST

START_TEST(test_negative_durations_refused)
{
	uint64_t v = 7;
	osb_error err = { 0 };
	osb_policy *p;

	expect_parse_error("osb-policy 1\nlimit wall -5s\n",
	                   "t.policy:2:12: \"limit wall\" must not be negative: \"-5s\"");
	ck_assert_int_eq(parse_duration_ms("-5s", &v), -EINVAL);
	ck_assert_int_eq(parse_duration_ms("-0ms", &v), -EINVAL);
	ck_assert_int_eq(parse_size_bytes("-1B", &v), -EINVAL);
	ck_assert_int_eq(parse_duration_ms("18446744073709551615ms", &v), -ERANGE);
	ck_assert_int_eq(parse_size_bytes("99999999999999999999B", &v), -ERANGE);
	ck_assert_uint_eq(v, 7);   /* untouched on error */
	p = osb_policy_parse("osb-policy 1\n", 13, "t.policy", &err);
	ck_assert_ptr_nonnull(p);
	/* The API takes an unsigned count; zero is its only invalid value. */
	ck_assert_int_eq(osb_policy_set_wall_ms(p, 0, &err), -OSB_E_USAGE);
	ck_assert_str_eq(err.message, "set_wall_ms: expected a policy and a limit greater than zero");
	osb_policy_free(p);
}
END_TEST

/* ---- environment and argv through the API ---------------------------------- */

static const char *const hostile_env[] = {
	"GOOD=1", "BAD\nNAME=x", "=empty", "NOEQUALS", "A=b=c", "V=line1\nline2",
	"SP ACE=1", "\xc3\x89=utf8", "", NULL,
};

static osb_policy *inherit_policy(void)
{
	static const char text[] = "osb-policy 1\nroot host-ro\ntmpfs /tmp\ndev /dev\nproc /proc\n"
	                           "workspace rw\nenv inherit\n";
	osb_error err = { 0 };
	osb_policy *p = osb_policy_parse(text, sizeof(text) - 1, "inherit.policy", &err);

	ck_assert_msg(p != NULL, "%s", err.message);
	ck_assert_int_eq(osb_policy_set_workspace(p, ws, &err), 0);
	return p;
}

START_TEST(test_env_names_with_newline_or_equals_are_dropped)
{
	static const char *const want[] = { "A=b=c", "GOOD=1", "V=line1\nline2" };
	osb_policy *p = inherit_policy();
	osb_error err = { 0 };
	strv out = { 0 };

	ck_assert_int_eq(env_build(p, hostile_env, ws, &out, &err), 0);
	ck_assert_uint_eq(out.n, 3);
	for (size_t i = 0; i < 3; i++)
		ck_assert_str_eq(out.v[i], want[i]);
	ck_assert_ptr_null(out.v[3]);
	strv_free(&out);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_exec_accepts_any_env_bytes_and_refuses_empty_argv)
{
	static const char *const none[] = { NULL }, *const empty[] = { "", NULL };
	static const char *const argv[] = { "env", NULL };
	osb_error err = { 0 };
	osb_exec *e = osb_exec_new(argv, &err);

	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(osb_exec_set_env(e, hostile_env), 0);
	ck_assert_int_eq(osb_exec_set_cwd(e, "/a\nb"), 0);
	osb_exec_free(e);
	ck_assert_ptr_null(osb_exec_new(none, &err));
	ck_assert_int_eq(err.code, OSB_E_USAGE);
	ck_assert_str_eq(err.message, "no command given");
	ck_assert_ptr_null(osb_exec_new(empty, &err));
	ck_assert_str_eq(err.message, "no command given");
	ck_assert_ptr_null(osb_exec_new(NULL, &err));
	ck_assert_str_eq(err.message, "no command given");
}
END_TEST

/* "true" and HUGE_ARGC copies of ARG. */
static const char **huge_argv(const char *arg)
{
	const char **v = calloc(HUGE_ARGC + 2, sizeof(*v));

	ck_assert_ptr_nonnull(v);
	v[0] = "true";
	for (size_t i = 1; i <= HUGE_ARGC; i++)
		v[i] = arg;
	return v;
}

START_TEST(test_exec_new_copies_hundred_thousand_args)
{
	const char **v = huge_argv("a");
	osb_error err = { 0 };
	osb_exec *e = osb_exec_new(v, &err);

	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(err.code, OSB_OK);
	osb_exec_free(e);
	free(v);
}
END_TEST

/* Run ARGV under the inherit policy with HOSTILE_ENV; return osb_run's code
 * and the result. */
static int run_capture(const char *const *argv, osb_result **res, osb_error *err)
{
	osb_policy *p = inherit_policy();
	osb_exec *e = osb_exec_new(argv, err);
	int r;

	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(osb_exec_set_env(e, hostile_env), 0);
	ck_assert_int_eq(osb_exec_set_capture(e, 1), 0);
	r = osb_run(p, e, res, err);
	osb_exec_free(e);
	osb_policy_free(p);
	return r;
}

START_TEST(test_run_hostile_env_reaches_sandbox_filtered)
{
	static const char *const argv[] = { "env", NULL };
	osb_result *res = NULL;
	osb_error err = { 0 };
	char want[WBUF];

	ck_assert_msg(run_capture(argv, &res, &err) == 0, "%s: %s", err.stage, err.message);
	ck_assert_int_eq(osb_result_exit_code(res), 0);
	/* Exactly the sorted list the plan built: bwrap and the init run with
	 * their own fixed environment and add nothing (no PWD either). */
	snprintf(want, sizeof(want), "A=b=c\nGOOD=1\nV=line1\nline2\n");
	ck_assert_str_eq(osb_result_stdout(res, NULL), want);
	osb_result_free(res);
}
END_TEST

START_TEST(test_run_hundred_thousand_args_refused_clearly)
{
	const char **v = huge_argv("a");
	osb_result *res = NULL;
	osb_error err = { 0 };

	/* bwrap 0.8.0 refuses more than 9000 arguments in all: refused before
	 * it starts, saying how many fit (the sandbox's own count varies with
	 * the policy and the host). */
	ck_assert_int_eq(run_capture(v, &res, &err), -OSB_E_USAGE);
	ck_assert_int_eq(err.sys_errno, E2BIG);
	ck_assert_str_eq(err.stage, "usage");
	ck_assert_msg(strncmp(err.message, "the command has 100001 arguments; with the sandbox's ",
	                      53) == 0 &&
	              strstr(err.message, ", bwrap would get more than its limit of 9000: at most "),
	              "%s", err.message);
	ck_assert_int_eq(osb_result_cli_status(res), 125);
	osb_result_free(res);
	free(v);
}
END_TEST

START_TEST(test_run_args_over_arg_max_refused_clearly)
{
	static char kib[1024];
	const char **v = calloc(8002, sizeof(*v));
	osb_result *res = NULL;
	osb_error err = { 0 };

	/* 8 MB of arguments, few enough for bwrap's count: more than execve
	 * takes (E2BIG). */
	ck_assert_ptr_nonnull(v);
	memset(kib, 'a', sizeof(kib) - 1);
	v[0] = "true";
	for (size_t i = 1; i <= 8000; i++)
		v[i] = kib;
	ck_assert_int_eq(run_capture(v, &res, &err), -OSB_E_SPAWN);
	ck_assert_int_eq(err.sys_errno, E2BIG);
	ck_assert_str_eq(err.stage, "spawn");
	ck_assert_str_eq(err.message, "cannot start /usr/bin/bwrap: Argument list too long");
	ck_assert_int_eq(osb_result_cli_status(res), 125);
	osb_result_free(res);
	free(v);
}
END_TEST

/* ---- the CLI ----------------------------------------------------------------- */

typedef struct cli_out {
	int status;
	char *out, *err;
} cli_out;

static char *memfd_text(int fd)
{
	struct stat st;
	char *buf;

	ck_assert_int_eq(fstat(fd, &st), 0);
	buf = calloc(1, (size_t)st.st_size + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(pread(fd, buf, (size_t)st.st_size, 0), st.st_size);
	close(fd);
	return buf;
}

/* The command as the integration suite stages it (tools/stage-cli.sh): the
 * program itself, not libtool's wrapper script around it (which adds
 * LD_LIBRARY_PATH and its shell's variables to the environment a test
 * inspects), loading the library it was built with. */
static int stage_cli(void)
{
	const char *b = getenv("OSB_BUILDDIR"), *s = getenv("OSB_SRCDIR");
	char script[PATH_MAX];
	pid_t pid;
	int status;

	snprintf(script, sizeof(script), "%s/tools/stage-cli.sh", s && *s ? s : ".");
	char *const argv[] = { script, (char *)(b && *b ? b : "."), cli_stage, NULL };
	if (chmod(cli_stage, 0755) < 0 ||
	    posix_spawn(&pid, script, NULL, NULL, argv, environ) != 0 ||
	    waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* Run the built osb-isolate with ARGV (argv[0] is replaced) and ENVP, in the
 * workspace, stdout and stderr captured. */
static void run_cli(const char **argv, char *const *envp, cli_out *o)
{
	char cli[PATH_MAX];
	posix_spawn_file_actions_t fa;
	int out = memfd_create("out", MFD_CLOEXEC), err = memfd_create("err", MFD_CLOEXEC);
	pid_t pid;

	ck_assert_int_ge(out, 0);
	ck_assert_int_ge(err, 0);
	snprintf(cli, sizeof(cli), "%s/bin/osb-isolate", cli_stage);
	argv[0] = cli;
	ck_assert_int_eq(posix_spawn_file_actions_init(&fa), 0);
	ck_assert_int_eq(posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0), 0);
	ck_assert_int_eq(posix_spawn_file_actions_adddup2(&fa, out, 1), 0);
	ck_assert_int_eq(posix_spawn_file_actions_adddup2(&fa, err, 2), 0);
	ck_assert_int_eq(posix_spawn_file_actions_addchdir_np(&fa, ws), 0);
	ck_assert_int_eq(posix_spawn(&pid, cli, &fa, NULL, (char *const *)argv, envp), 0);
	posix_spawn_file_actions_destroy(&fa);
	ck_assert_int_eq(waitpid(pid, &o->status, 0), pid);
	o->out = memfd_text(out);
	o->err = memfd_text(err);
}

static void cli_free(cli_out *o)
{
	free(o->out);
	free(o->err);
}

static char *cli_env[8];

static void expect_cli(const char **argv, int want_status, const char *want_err)
{
	cli_out o;

	run_cli(argv, cli_env, &o);
	ck_assert_msg(WIFEXITED(o.status), "osb-isolate died: status 0x%x", o.status);
	ck_assert_int_eq(WEXITSTATUS(o.status), want_status);
	ck_assert_str_eq(o.err, want_err);
	cli_free(&o);
}

/* argv: CLI, then PREFIX (NULL-terminated), then COUNT times REPEAT[0..R),
 * then SUFFIX. */
static const char **cli_argv(const char *const *prefix, const char *const *repeat, size_t r,
                             size_t count, const char *const *suffix)
{
	size_t n = 1, cap = 1 + 8 + count * r + 8;
	const char **v = calloc(cap, sizeof(*v));

	ck_assert_ptr_nonnull(v);
	for (; prefix && *prefix; prefix++)
		v[n++] = *prefix;
	for (size_t i = 0; i < count; i++)
		for (size_t k = 0; k < r; k++)
			v[n++] = repeat[k];
	for (; suffix && *suffix; suffix++)
		v[n++] = *suffix;
	ck_assert_uint_lt(n, cap);
	return v;
}

START_TEST(test_cli_hundred_thousand_command_args_refused_clearly)
{
	static const char *const pre[] = { "run", "--", "true", NULL }, *const a[] = { "a" };
	const char **v = cli_argv(pre, a, 1, HUGE_ARGC, NULL);

	cli_out o;

	run_cli(v, cli_env, &o);
	ck_assert_msg(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 125, "status 0x%x", o.status);
	ck_assert_msg(strncmp(o.err, "osb-isolate: usage: the command has 100001 arguments; with "
	                      "the sandbox's ", 73) == 0 &&
	              strstr(o.err, ", bwrap would get more than its limit of 9000: at most "),
	              "%s", o.err);
	cli_free(&o);
	free(v);
}
END_TEST

START_TEST(test_cli_hundred_thousand_operands_usage_error)
{
	static const char *const pre[] = { "hash", NULL }, *const a[] = { "strict" };
	const char **v = cli_argv(pre, a, 1, HUGE_ARGC, NULL);

	/* Commands other than run report usage errors with status 2. */
	expect_cli(v, 2, "osb-isolate: hash: takes exactly one policy (a name or a file)\n"
	           "Try 'osb-isolate hash --help' for more information.\n");
	free(v);
}
END_TEST

START_TEST(test_cli_hundred_thousand_options_usage_error)
{
	static const char *const pre[] = { "run", NULL }, *const ro[] = { "--ro", "/usr" };
	static const char *const bogus[] = { "--bogus" }, *const cmd[] = { "--", "true", NULL };
	const char **v = cli_argv(pre, ro, 2, HUGE_ARGC / 2, cmd);

	expect_cli(v, 125, "osb-isolate: too many --ro options (at most 64)\n"
	           "Try 'osb-isolate --help' for more information.\n");
	free(v);
	v = cli_argv(pre, bogus, 1, HUGE_ARGC, cmd);
	expect_cli(v, 125, "osb-isolate: run: unknown option '--bogus'\n"
	           "Try 'osb-isolate --help' for more information.\n");
	free(v);
}
END_TEST

START_TEST(test_cli_negative_and_huge_timeouts_refused)
{
	const char *neg[] = { NULL, "run", "--timeout", "-5s", "--", "true", NULL };
	const char *huge[] = { NULL, "run", "--timeout", "99999999999999999999999s", "--", "true", NULL };

	expect_cli(neg, 125, "osb-isolate: usage: --timeout '-5s': expected a positive duration "
	           "with a unit (500ms, 30s, 5m, 1h)\n");
	expect_cli(huge, 125, "osb-isolate: usage: --timeout '99999999999999999999999s': expected "
	           "a positive duration with a unit (500ms, 30s, 5m, 1h)\n");
}
END_TEST

START_TEST(test_cli_binary_policy_refused)
{
	static const unsigned char elf[] = { 0x7f, 'E', 'L', 'F', 2, 1, 1, 0 };
	char path[PBUF], want[WBUF];
	const char *argv[] = { NULL, "run", "--policy", path, "--", "true", NULL };

	path_of(path, sizeof(path), "cli-elf.policy");
	write_file(path, elf, sizeof(elf));
	snprintf(want, sizeof(want), "osb-isolate: policy: %s:1:1: control character 0x7f in "
	         "policy text\n", path);
	expect_cli(argv, 125, want);
}
END_TEST

START_TEST(test_cli_hostile_environment_filtered)
{
	char policy[PBUF];
	const char *argv[] = { NULL, "run", "--policy", policy, "--", "env", NULL };
	char *envp[16], want[WBUF];
	size_t n = 0;
	cli_out o;

	path_of(policy, sizeof(policy), "cli-inherit.policy");
	write_text(policy, "osb-policy 1\nroot host-ro\ntmpfs /tmp\ndev /dev\nproc /proc\n"
	           "workspace rw\nenv inherit\nenv deny OSB_ISOLATE_*\n");
	for (size_t i = 0; cli_env[i]; i++)
		envp[n++] = cli_env[i];
	for (size_t i = 0; hostile_env[i]; i++)
		envp[n++] = (char *)hostile_env[i];
	envp[n] = NULL;
	run_cli(argv, envp, &o);
	ck_assert_msg(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0, "status 0x%x: %s",
	              o.status, o.err);
	snprintf(want, sizeof(want), "A=b=c\nGOOD=1\nPATH=/usr/bin:/bin\nV=line1\nline2\n");
	ck_assert_str_eq(o.out, want);
	ck_assert_str_eq(o.err, "");
	cli_free(&o);
}
END_TEST

/* ---- requests ---------------------------------------------------------------- */

/* One reading of a request: everything a request can be refused for without
 * looking at a policy is refused by osb_session_opts_apply_json exactly as
 * by osb_policy_apply_json (libosb-isolate(3)), duplicate keys at any depth
 * included; and neither entry point changes anything when it refuses. */
START_TEST(test_bad_requests_refused_alike_by_both_entry_points)
{
	static const char *const bad[][2] = {
		{ "{\"extra_writable\": [1]}", "\"extra_writable[0]\" must be a string, not a number" },
		{ "{\"extra_writable\": [\"tmp/x\"]}", "\"extra_writable[0]\": path must be absolute: "
		  "\"tmp/x\" (pass a canonical absolute path, e.g. from realpath(3))" },
		{ "{\"extra_writable\": [\"/tmp/../etc\"]}", "\"extra_writable[0]\": path must not contain "
		  "\"..\": \"/tmp/../etc\" (pass a canonical absolute path, e.g. from realpath(3))" },
		{ "{\"extra_writable\": [\"/proc/sys\"]}", "\"extra_writable[0]\": \"/proc/sys\": inside "
		  "/proc (the host's process and kernel interfaces); choose a project directory" },
		{ "{\"extra_writable\": \"/tmp/x\"}",
		  "\"extra_writable\" must be an array of strings, not a string" },
		{ "{\"read_only\": [null]}", "\"read_only[0]\" must be a string, not null" },
		{ "{\"read_only\": [\"x/y\"]}", "\"read_only[0]\": read-only path: path must be absolute: "
		  "\"x/y\" (pass a canonical absolute path, e.g. from realpath(3))" },
		{ "{\"read_only\": [\"/a\\u0000b\"]}", "\"read_only[0]\" contains a NUL byte" },
		{ "{\"workspace\": {\"path\": \"work/here\"}}", "\"workspace.path\": path must be absolute: "
		  "\"work/here\" (pass a canonical absolute path)" },
		{ "{\"workspace\": {\"path\": \"/work/./here\"}}", "\"workspace.path\": path must be "
		  "normalized (no \".\" components, \"//\" or trailing \"/\"): \"/work/./here\" (pass a "
		  "canonical absolute path)" },
		{ "{\"workspace\": {\"path\": \"/proc\"}}", "\"workspace.path\": \"/proc\": inside /proc "
		  "(the host's process and kernel interfaces); choose a project directory" },
		{ "{\"workspace\": {\"path\": \"/\"}}",
		  "\"workspace.path\": \"/\": the root directory; choose a project directory beneath it" },
		{ "{\"env\": {\"pass\": [1]}}", "\"env.pass[0]\" must be a string, not a number" },
		{ "{\"env\": {\"pass\": [\"1BAD\"]}}", "\"env.pass[0]\": invalid environment variable name "
		  "\"1BAD\" (letters, digits and \"_\", not starting with a digit; a request names "
		  "variables, not patterns)" },
		{ "{\"env\": {\"pass\": [\"LC_*\"]}}", "\"env.pass[0]\": invalid environment variable name "
		  "\"LC_*\" (letters, digits and \"_\", not starting with a digit; a request names "
		  "variables, not patterns)" },
		{ "{\"env\": {\"set\": {\"A\": \"x\\u0001y\"}}}",
		  "\"env.set.A\": value contains a control character" },
		{ "{\"env\": {\"set\": {\"A\": \"a\\u0000b\"}}}", "\"env.set.A\" contains a NUL byte" },
		{ "{\"env\": {\"set\": {\"A\": \"line\\nbreak\"}}}",
		  "\"env.set.A\": value contains a control character" },
		{ "{\"env\": {\"set\": {\"A\": \"trailing \"}}}",
		  "\"env.set.A\": value ends with a space or tab, which a policy line cannot hold" },
		{ "{\"env\": {\"set\": {\"A\": 1}}}", "\"env.set.A\" must be a string, not a number" },
		{ "{\"env\": {\"set\": {\"A=B\": \"v\"}}}", "\"env.set.A=B\": invalid environment variable "
		  "name \"A=B\" (letters, digits and \"_\", not starting with a digit; a request names "
		  "variables, not patterns)" },
		{ "{\"env\": {\"set\": {\"A\": \"1\", \"A\": \"2\"}}}",
		  "the request repeats the key \"A\" (at byte 27)" },
		{ "{\"workspace\": {\"path\": \"/a\", \"path\": \"/a\"}}",
		  "the request repeats the key \"path\" (at byte 29)" },
		{ "{\"network\": \"none\", \"network\": \"none\"}",
		  "the request repeats the key \"network\" (at byte 20)" },
		{ "{\"uid\": 0}", "\"uid\": 0 is refused: a request may only choose a non-zero uid" },
		{ "1", "the request must be a JSON object, not a number" },
	};
	osb_session_opts *o = osb_session_opts_new();
	char before[72], after[72];

	ck_assert_ptr_nonnull(o);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		osb_error perr = { 0 }, oerr = { 0 };
		osb_policy *p = osb_policy_load("strict", &perr);

		ck_assert_msg(p, "%s", perr.message);
		ck_assert_int_eq(osb_policy_hash(p, before), 0);
		ck_assert_int_eq(osb_policy_apply_json(p, bad[i][0], &perr), -OSB_E_POLICY);
		ck_assert_str_eq(perr.message, bad[i][1]);
		ck_assert_int_eq(osb_policy_hash(p, after), 0);
		ck_assert_str_eq(after, before);
		ck_assert_int_eq(osb_session_opts_apply_json(o, bad[i][0], &oerr), -OSB_E_POLICY);
		ck_assert_int_eq(oerr.code, OSB_E_POLICY);
		ck_assert_str_eq(oerr.stage, "policy");
		ck_assert_str_eq(oerr.message, bad[i][1]);
		osb_policy_free(p);
	}
	osb_session_opts_free(o);
}
END_TEST

/* A request of N writable and N read-only paths (the last five repeats). */
static char *many_paths_json(size_t n)
{
	size_t cap = n * 2 * 24 + 64, used;
	char *json = malloc(cap);

	ck_assert_ptr_nonnull(json);
	used = (size_t)snprintf(json, cap, "{\"extra_writable\": [");
	for (size_t i = 0; i < n; i++)
		used += (size_t)snprintf(json + used, cap - used, "%s\"/tmp/w/d%zu\"", i ? "," : "", i % (n - 5));
	used += (size_t)snprintf(json + used, cap - used, "], \"read_only\": [");
	for (size_t i = 0; i < n; i++)
		used += (size_t)snprintf(json + used, cap - used, "%s\"/tmp/r/d%zu\"", i ? "," : "", i % (n - 5));
	snprintf(json + used, cap - used, "]}");
	return json;
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Seconds osb_policy_apply_json takes for many_paths_json(N) on P. */
static double apply_many_paths(osb_policy *p, size_t n)
{
	char *json = many_paths_json(n);
	osb_error err = { 0 };
	struct timespec t0;
	double secs;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_msg(osb_policy_apply_json(p, json, &err) == 0, "%s", err.message);
	secs = seconds_since(&t0);
	free(json);
	return secs;
}

/* A path a request asks for both writable and read-only is refused before
 * anything changes (the write was added, then the read-only bind refused:
 * a refused request left the policy changed); and 30,000 writable paths
 * and 30,000 read-only ones apply in well under the seconds a check per
 * path against every path added before took: under 3 s, or, where the
 * build is slow (valgrind, the sanitizers, a loaded host), at most three
 * times what half as many take (the quadratic check took four times as
 * long, 1.5 s for 20,000 paths in a plain build). */
START_TEST(test_request_paths_both_ways_refused_and_many_paths_linear)
{
	static const char text[] = "osb-policy 1\nwrite-root /tmp/w\nread-root /tmp/r\nread-root /tmp/w\n";
	osb_error err = { 0 };
	osb_policy *p = osb_policy_parse(text, sizeof(text) - 1, "x.policy", &err), *half;
	char before[72], after[72];
	size_t n = 30000;
	double full_s, half_s;
	osb_session_opts *o = osb_session_opts_new();

	ck_assert_msg(p, "%s", err.message);
	ck_assert_int_eq(osb_policy_hash(p, before), 0);
	ck_assert_int_eq(osb_policy_apply_json(p, "{\"extra_writable\": [\"/tmp/w/a\", \"/tmp/w/b\"], "
	                                       "\"read_only\": [\"/tmp/w/b\"]}", &err), -OSB_E_POLICY);
	ck_assert_str_eq(err.message, "\"read_only[0]\": \"/tmp/w/b\" is also in \"extra_writable\" "
	                 "(at 1): a request asks for a path one way");
	ck_assert_int_eq(osb_policy_hash(p, after), 0);
	ck_assert_str_eq(after, before);
	ck_assert_int_eq(osb_session_opts_apply_json(o, "{\"extra_writable\": [\"/tmp/w/b\"], "
	                                             "\"read_only\": [\"/tmp/w/b\"]}", &err), -OSB_E_POLICY);
	ck_assert_str_eq(err.message, "\"read_only[0]\": \"/tmp/w/b\" is also in \"extra_writable\" "
	                 "(at 0): a request asks for a path one way");
	half = osb_policy_parse(text, sizeof(text) - 1, "x.policy", &err);
	ck_assert_msg(half, "%s", err.message);
	half_s = apply_many_paths(half, n / 2);
	full_s = apply_many_paths(p, n);
	fprintf(stderr, "# %zu + %zu request paths: %.3f s; half as many: %.3f s\n", n, n, full_s,
	        half_s);
	ck_assert_msg(full_s < 3.0 || full_s <= 3 * half_s + 0.1, "%zu + %zu request paths took "
	              "%.3f s, half as many %.3f s: it grows faster than linearly", n, n, full_s, half_s);
	osb_policy_free(half);
	/* Each path once, the repeats at the end not added again. */
	ck_assert_int_eq(osb_policy_hash(p, after), 0);
	ck_assert_str_ne(after, before);
	{
		char *ex = osb_policy_explain(p, 0);

		ck_assert_ptr_nonnull(ex);
		ck_assert_ptr_nonnull(strstr(ex, "/tmp/w/d29994"));
		ck_assert_ptr_nonnull(strstr(ex, "/tmp/r/d29994"));
		ck_assert_ptr_null(strstr(ex, "/tmp/w/d29995"));
		osb_free(ex);
	}
	osb_session_opts_free(o);
	osb_policy_free(p);
}
END_TEST

/* ---- suite ------------------------------------------------------------------ */

static Suite *badinput_suite(void)
{
	Suite *s = suite_create("badinput");
	TCase *tc = tcase_create("policy");

	tcase_add_test(tc, test_truncated_shipped_policies_parse_or_fail_with_position);
	tcase_add_test(tc, test_truncated_lines_exact_errors);
	tcase_add_test(tc, test_binary_policy_file_refused_at_first_byte);
	tcase_add_test(tc, test_policy_with_nul_byte_refused);
	tcase_add_test(tc, test_fifo_as_policy_refused_without_blocking);
	tcase_add_test(tc, test_one_megabyte_line_refused_with_position);
	tcase_add_test(tc, test_policy_over_one_mebibyte_refused);
	tcase_add_test(tc, test_includes_nested_too_deep_refused);
	tcase_add_test(tc, test_include_cycles_refused);
	tcase_add_test(tc, test_invalid_utf8_refused_with_column);
	tcase_add_test(tc, test_huge_numbers_refused);
	tcase_add_test(tc, test_negative_durations_refused);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);

	tc = tcase_create("api");
	tcase_add_test(tc, test_env_names_with_newline_or_equals_are_dropped);
	tcase_add_test(tc, test_exec_accepts_any_env_bytes_and_refuses_empty_argv);
	tcase_add_test(tc, test_exec_new_copies_hundred_thousand_args);
	tcase_add_test(tc, test_bad_requests_refused_alike_by_both_entry_points);
	tcase_add_test(tc, test_request_paths_both_ways_refused_and_many_paths_linear);
	suite_add_tcase(s, tc);

	tc = tcase_create("sandbox");
	tcase_set_tags(tc, "sandbox");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_run_hostile_env_reaches_sandbox_filtered);
	tcase_add_test(tc, test_run_hundred_thousand_args_refused_clearly);
	tcase_add_test(tc, test_run_args_over_arg_max_refused_clearly);
	tcase_add_test(tc, test_cli_hundred_thousand_command_args_refused_clearly);
	tcase_add_test(tc, test_cli_hundred_thousand_operands_usage_error);
	tcase_add_test(tc, test_cli_hundred_thousand_options_usage_error);
	tcase_add_test(tc, test_cli_negative_and_huge_timeouts_refused);
	tcase_add_test(tc, test_cli_binary_policy_refused);
	tcase_add_test(tc, test_cli_hostile_environment_filtered);
	suite_add_tcase(s, tc);
	return s;
}

/* Programs from the build tree (make check exports OSB_BUILDDIR), policies
 * from the source tree, bwrap where Debian installs it (messages name it). */
static void setup_env(void)
{
	const char *b = getenv("OSB_BUILDDIR");
	static char init[PATH_MAX + 32], pdir[PATH_MAX + 32];

	snprintf(init, sizeof(init), "OSB_ISOLATE_INIT=%s/helper/osb-isolate-init",
	         b && *b ? b : ".");
	snprintf(pdir, sizeof(pdir), "OSB_ISOLATE_POLICY_DIR=%s/policy", TEST_SRCDIR);
	putenv(init);
	putenv(pdir);
	setenv("OSB_ISOLATE_BWRAP", "/usr/bin/bwrap", 1);
	test_use_env_programs();
	cli_env[0] = init;
	cli_env[1] = pdir;
	cli_env[2] = (char *)"OSB_ISOLATE_BWRAP=/usr/bin/bwrap";
	cli_env[3] = (char *)"PATH=/usr/bin:/bin";
	cli_env[4] = NULL;
}

/* DIR holds only the files the tests wrote (no subdirectories). */
static void remove_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	rmdir(path);
}

int main(void)
{
	SRunner *sr;
	char cleanup[128];
	int failed;

	/* A root caller's sandbox runs as host ids allocated for it: the
	 * workspace must be writable by others (sticky, like /tmp). */
	if (!mkdtemp(dir) || !mkdtemp(ws) || chmod(ws, geteuid() == 0 ? 01777 : 0755) < 0 ||
	    !mkdtemp(cli_stage)) {
		perror("check_badinput: mkdtemp");
		return EXIT_FAILURE;
	}
	if (stage_cli() < 0) {
		fprintf(stderr, "check_badinput: cannot stage the command in %s (patchelf: "
		        "tools/install-deps.sh)\n", cli_stage);
		return EXIT_FAILURE;
	}
	setup_env();
	test_exclude_sandbox_cases_unless_possible();
	sr = srunner_create(badinput_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	remove_dir(dir);
	rmdir(ws);
	snprintf(cleanup, sizeof(cleanup), "rm -rf '%s'", cli_stage);
	if (system(cleanup) != 0)
		fprintf(stderr, "check_badinput: could not remove %s\n", cli_stage);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

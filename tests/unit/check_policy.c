/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_policy.c — unit tests for lib/policy.c and lib/sha256.c.
 *
 * The policy language is the part of osb-isolate a reviewer reads, so these
 * tests pin its behaviour exactly: every rejected input with its full
 * "file:line:col: message", the provenance and precedence of rules across
 * includes, the units, the env patterns, the canonical form and the
 * stability of the policy hash, the SHA-256 implementation against the
 * FIPS 180-4 vectors, and that the shipped policies parse as documented.
 */
#include "policy.h"
#include "policy-canon.h"
#include "sha256.h"

#include <seccomp.h>

#include <check.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sys/stat.h>
#include <time.h>

#ifndef TEST_SRCDIR
#error "build with -DTEST_SRCDIR=\"/path/to/source\""
#endif
#ifndef OSB_POLICY_DIR
#error "build with -DOSB_POLICY_DIR=\"...\", as the library is"
#endif

#define MSG_MAX 2048

/* ---- helpers ------------------------------------------------------------- */

static osb_policy *parse_n(const char *text, size_t len, osb_error *err)
{
	memset(err, 0, sizeof(*err));
	return osb_policy_parse(text, len, "t.policy", err);
}

static osb_policy *parse(const char *text, osb_error *err)
{
	return parse_n(text, strlen(text), err);
}

static osb_policy *must_parse(const char *text)
{
	osb_error err;
	osb_policy *p = parse(text, &err);

	ck_assert_msg(p != NULL, "parse failed: %s\n--- text:\n%s", err.message, text);
	return p;
}

/* TEXT with EXTRA lines appended. */
static osb_policy *must_parse_with(const char *text, const char *extra)
{
	char buf[8192];

	ck_assert_int_lt(snprintf(buf, sizeof(buf), "%s%s", text, extra), (int)sizeof(buf));
	return must_parse(buf);
}

static void hash_of(const osb_policy *p, char out[OSB_POLICY_HASH_LEN])
{
	ck_assert_int_eq(osb_policy_hash(p, out), 0);
	ck_assert_uint_eq(strlen(out), OSB_POLICY_HASH_LEN - 1);
}

static void hash_text(const char *text, char out[OSB_POLICY_HASH_LEN])
{
	osb_policy *p = must_parse(text);

	hash_of(p, out);
	osb_policy_free(p);
}

/* A scratch directory per test for include files. */
static char dir[64];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void dir_setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/check_policy.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void dir_teardown(void)
{
	nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static void put(const char *name, const char *text)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	ck_assert_int_eq(close(fd), 0);
}

static void put_dir(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ck_assert_int_eq(mkdir(path, 0755), 0);
}

static osb_policy *load(const char *name, osb_error *err)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	memset(err, 0, sizeof(*err));
	return osb_policy_load(path, err);
}

static osb_policy *must_load(const char *name)
{
	osb_error err;
	osb_policy *p = load(name, &err);

	ck_assert_msg(p != NULL, "load %s failed: %s", name, err.message);
	return p;
}

static void expect_load_error(const char *name, const char *want)
{
	osb_error err;
	osb_policy *p = load(name, &err);

	ck_assert_msg(p == NULL, "%s loaded, expected: %s", name, want);
	ck_assert_int_eq(err.code, OSB_E_POLICY);
	ck_assert_str_eq(err.stage, "policy");
	ck_assert_str_eq(err.message, want);
}

static const char *in_dir(char buf[PATH_MAX], const char *name)
{
	snprintf(buf, PATH_MAX, "%s/%s", dir, name);
	return buf;
}

static void expect_origin(osb_origin o, const char *file, unsigned line, unsigned depth)
{
	ck_assert_ptr_nonnull(o.file);
	ck_assert_str_eq(o.file, file);
	ck_assert_uint_eq(o.line, line);
	ck_assert_uint_eq(o.depth, depth);
}

/* ---- rejected input: exact message and position -------------------------- */

static const struct reject {
	const char *text;
	size_t len;         /* 0: strlen(text) */
	const char *msg;
} rejects[] = {
	/* version line */
	{ "network none\n", 0, "t.policy:1:1: expected version line \"osb-policy 1\" first" },
	{ "# comment\n\n  network none\n", 0,
	  "t.policy:3:3: expected version line \"osb-policy 1\" first" },
	{ "osb-policy 2\n", 0,
	  "t.policy:1:12: unsupported policy version \"2\" (supported: \"osb-policy 1\")" },
	{ "osb-policy 01\n", 0,
	  "t.policy:1:12: unsupported policy version \"01\" (supported: \"osb-policy 1\")" },
	{ "osb-policy\n", 0, "t.policy:1:1: missing argument: usage is \"osb-policy 1\"" },
	{ "osb-policy 1 2\n", 0,
	  "t.policy:1:14: unexpected argument \"2\" (usage is \"osb-policy 1\")" },
	{ "", 0, "t.policy:1:1: missing version line \"osb-policy 1\" (the file has no directives)" },
	{ "# only a comment\n", 0,
	  "t.policy:2:1: missing version line \"osb-policy 1\" (the file has no directives)" },
	{ "osb-policy 1\nosb-policy 1\n", 0,
	  "t.policy:2:1: duplicate \"osb-policy\" (first set at t.policy:1)" },
	/* unknown directives and arguments */
	{ "osb-policy 1\nnetwrok none\n", 0,
	  "t.policy:2:1: unknown directive \"netwrok\" (did you mean \"network\"?)" },
	{ "osb-policy 1\n  tmfps /tmp\n", 0,
	  "t.policy:2:3: unknown directive \"tmfps\" (did you mean \"tmpfs\"?)" },
	{ "osb-policy 1\nNetwork none\n", 0,
	  "t.policy:2:1: unknown directive \"Network\" (did you mean \"network\"?)" },
	{ "osb-policy 1\nwirte /tmp\n", 0,
	  "t.policy:2:1: unknown directive \"wirte\" (did you mean \"write\"?)" },
	{ "osb-policy 1\nfrobnicate /tmp\n", 0, "t.policy:2:1: unknown directive \"frobnicate\"" },
	{ "osb-policy 1\nnetwork nne\n", 0,
	  "t.policy:2:9: unknown argument \"nne\" to \"network\" (did you mean \"none\"?)" },
	{ "osb-policy 1\nnetwork maybe\n", 0,
	  "t.policy:2:9: unknown argument \"maybe\" to \"network\" (expected none, host or allow)" },
	{ "osb-policy 1\nnetwork none#x\n", 0,
	  "t.policy:2:9: unknown argument \"none#x\" to \"network\" (did you mean \"none\"?)" },
	{ "osb-policy 1\nroot host\n", 0,
	  "t.policy:2:6: unknown argument \"host\" to \"root\" (did you mean \"host-ro\"?)" },
	{ "osb-policy 1\nworkspace rx\n", 0,
	  "t.policy:2:11: unknown argument \"rx\" to \"workspace\" (did you mean \"ro\"?)" },
	{ "osb-policy 1\nenv purge X\n", 0,
	  "t.policy:2:5: unknown argument \"purge\" to \"env\" (expected clear, inherit, pass, deny or set)" },
	{ "osb-policy 1\nidentity user\n", 0,
	  "t.policy:2:10: unknown argument \"user\" to \"identity\" (did you mean \"userns\"?)" },
	{ "osb-policy 1\nidentity rootless\n", 0,
	  "t.policy:2:10: unknown argument \"rootless\" to \"identity\" (expected auto, userns or root)" },
	{ "osb-policy 1\nidentity auto\nidentity root\n", 0,
	  "t.policy:3:1: duplicate \"identity\" (first set at t.policy:2)" },
	{ "osb-policy 1\nidentiy auto\n", 0,
	  "t.policy:2:1: unknown directive \"identiy\" (did you mean \"identity\"?)" },
	{ "osb-policy 1\nlimit wal 1s\n", 0,
	  "t.policy:2:7: unknown argument \"wal\" to \"limit\" (did you mean \"wall\"?)" },
	/* argument counts */
	{ "osb-policy 1\nnetwork\n", 0,
	  "t.policy:2:1: missing argument: usage is \"network none|host|allow HOST[:PORT]...\"" },
	{ "osb-policy 1\nnetwork none host\n", 0,
	  "t.policy:2:14: unexpected argument \"host\" (usage is \"network none|host\")" },
	{ "osb-policy 1\nworkspace none /x\n", 0,
	  "t.policy:2:16: unexpected argument \"/x\" (usage is \"workspace rw|ro|overlay|none [DEST] [size=SIZE]\")" },
	{ "osb-policy 1\nlimit wall\n", 0,
	  "t.policy:2:1: missing argument: usage is \"limit wall|cputime|as|nofile|fsize|nproc|output|memory|pids|cpu VALUE\"" },
	{ "osb-policy 1\ntmpfs /a /b\n", 0, "t.policy:2:10: unexpected argument \"/b\" (usage is \"tmpfs PATH [size=SIZE]\")" },
	{ "osb-policy 1\nenv deny\n", 0, "t.policy:2:1: missing argument: usage is \"env deny PATTERN...\"" },
	{ "osb-policy 1\nenv set\n", 0, "t.policy:2:1: missing argument: usage is \"env set NAME=VALUE\"" },
	{ "osb-policy 1\nenv clear now\n", 0,
	  "t.policy:2:11: unexpected argument \"now\" (usage is \"env clear|inherit\")" },
	{ "osb-policy 1\nuser sandbox 1000\n", 0, "t.policy:2:1: missing argument: usage is \"user NAME UID GID\"" },
	/* duplicate scalars within one file */
	{ "osb-policy 1\nnetwork none\n\nnetwork host\n", 0,
	  "t.policy:4:1: duplicate \"network\" (first set at t.policy:2)" },
	{ "osb-policy 1\nnetwork none\nnetwork none\n", 0,
	  "t.policy:3:1: duplicate \"network\" (first set at t.policy:2)" },
	{ "osb-policy 1\nlimit wall 1s\nlimit cputime 1s\nlimit wall 2s\n", 0,
	  "t.policy:4:1: duplicate \"limit wall\" (first set at t.policy:2)" },
	{ "osb-policy 1\nenv clear\nenv inherit\n", 0,
	  "t.policy:3:1: duplicate \"env inherit\" (first set at t.policy:2)" },
	{ "osb-policy 1\nenv set A=1\nenv set B=1\nenv set A=2\n", 0,
	  "t.policy:4:1: duplicate \"env set A\" (first set at t.policy:2)" },
	{ "osb-policy 1\nworkspace rw\nworkspace ro /w\n", 0,
	  "t.policy:3:1: duplicate \"workspace\" (first set at t.policy:2)" },
	{ "osb-policy 1\nuser a 1 1\nhostname h\nuser b 2 2\n", 0,
	  "t.policy:4:1: duplicate \"user\" (first set at t.policy:2)" },
	/* paths */
	{ "osb-policy 1\nro-bind usr\n", 0, "t.policy:2:9: path must be absolute: \"usr\"" },
	{ "osb-policy 1\ntmpfs /a/../b\n", 0, "t.policy:2:7: path must not contain \"..\": \"/a/../b\"" },
	{ "osb-policy 1\ntmpfs /..\n", 0, "t.policy:2:7: path must not contain \"..\": \"/..\"" },
	{ "osb-policy 1\nhide /a/./b\n", 0,
	  "t.policy:2:6: path must be normalized (no \".\" components, \"//\" or trailing \"/\"): \"/a/./b\"" },
	{ "osb-policy 1\nhide /a//b\n", 0,
	  "t.policy:2:6: path must be normalized (no \".\" components, \"//\" or trailing \"/\"): \"/a//b\"" },
	{ "osb-policy 1\nhide /a/\n", 0,
	  "t.policy:2:6: path must be normalized (no \".\" components, \"//\" or trailing \"/\"): \"/a/\"" },
	{ "osb-policy 1\nhide /home/*\n", 0,
	  "t.policy:2:6: glob characters (* ? [) are not allowed in paths: \"/home/*\"" },
	{ "osb-policy 1\nro-bind /etc/[ab]\n", 0,
	  "t.policy:2:9: glob characters (* ? [) are not allowed in paths: \"/etc/[ab]\"" },
	{ "osb-policy 1\nworkspace rw rel\n", 0, "t.policy:2:14: path must be absolute: \"rel\"" },
	{ "osb-policy 1\ntmpfs /tmp\nro-bind /tmp\n", 0,
	  "t.policy:3:9: duplicate path \"/tmp\" (first set at t.policy:2)" },
	{ "osb-policy 1\ntmpfs /tmp\ntmpfs /tmp\n", 0,
	  "t.policy:3:7: duplicate path \"/tmp\" (first set at t.policy:2)" },
	/* text */
	{ "osb-policy 1\nnetwork n\0ne\n", 25, "t.policy:2:10: NUL byte in policy text" },
	{ "osb-policy 1\n# c\n\0", 18, "t.policy:3:1: NUL byte in policy text" },
	{ "osb-policy 1\r\n", 0, "t.policy:1:13: carriage return in policy text (use Unix line endings)" },
	{ "osb-policy 1\n\x01\n", 0, "t.policy:2:1: control character 0x01 in policy text" },
	{ "osb-policy 1\n# \x1b[0m\n", 0, "t.policy:2:3: control character 0x1b in policy text" },
	{ "osb-policy 1\n# caf\xc3\n", 0, "t.policy:2:6: invalid UTF-8 in policy text" },
	{ "osb-policy 1\n# \xc0\xaf\n", 0, "t.policy:2:3: invalid UTF-8 in policy text" },
	{ "osb-policy 1\n# \xed\xa0\x80\n", 0, "t.policy:2:3: invalid UTF-8 in policy text" },
	{ "osb-policy 1\n# \xf4\x90\x80\x80\n", 0, "t.policy:2:3: invalid UTF-8 in policy text" },
	{ "osb-policy 1\n# admin\xe2\x80\xae\n", 0,
	  "t.policy:2:8: invisible or bidirectional control character U+202E (not allowed in policy text)" },
	{ "osb-policy 1\nhide /h\xe2\x80\x8bome\n", 0,
	  "t.policy:2:8: invisible or bidirectional control character U+200B (not allowed in policy text)" },
	{ "\xef\xbb\xbfosb-policy 1\n", 0, "t.policy:1:1: UTF-8 byte order mark (save the file without one)" },
	/* units and numbers */
	{ "osb-policy 1\nlimit wall 600\n", 0, "t.policy:2:12: missing unit in \"600\" (use ms, s, m or h)" },
	{ "osb-policy 1\nlimit wall 10x\n", 0, "t.policy:2:12: unknown unit in \"10x\" (use ms, s, m or h)" },
	{ "osb-policy 1\nlimit wall 1.5m\n", 0, "t.policy:2:12: unknown unit in \"1.5m\" (use ms, s, m or h)" },
	{ "osb-policy 1\nlimit wall 10 m\n", 0,
	  "t.policy:2:15: unexpected argument \"m\" (usage is \"limit wall VALUE\")" },
	{ "osb-policy 1\nlimit wall ten\n", 0,
	  "t.policy:2:12: invalid value \"ten\" for \"limit wall\" (expected a whole number with a unit: "
	  "ms, s, m or h or \"unlimited\")" },
	{ "osb-policy 1\nlimit as 512\n", 0,
	  "t.policy:2:10: missing unit in \"512\" (use B, KiB, MiB, GiB, TiB, K, M or G)" },
	{ "osb-policy 1\nlimit output 1mb\n", 0,
	  "t.policy:2:14: unknown unit in \"1mb\" (use B, KiB, MiB, GiB, TiB, K, M or G)" },
	{ "osb-policy 1\nlimit nofile 1K\n", 0,
	  "t.policy:2:14: invalid value \"1K\" for \"limit nofile\" (expected a plain number or \"unlimited\")" },
	{ "osb-policy 1\nlimit wall 99999999999999999999s\n", 0,
	  "t.policy:2:12: \"limit wall\" value \"99999999999999999999s\" is out of range" },
	{ "osb-policy 1\nlimit as 16777216TiB\n", 0,
	  "t.policy:2:10: \"limit as\" value \"16777216TiB\" is out of range" },
	{ "osb-policy 1\nlimit nofile 18446744073709551615\n", 0,
	  "t.policy:2:14: \"limit nofile\" value \"18446744073709551615\" is out of range" },
	{ "osb-policy 1\nlimit cputime -5s\n", 0, "t.policy:2:15: \"limit cputime\" must not be negative: \"-5s\"" },
	{ "osb-policy 1\nlimit nproc -1\n", 0, "t.policy:2:13: \"limit nproc\" must not be negative: \"-1\"" },
	{ "osb-policy 1\nlimit cputime 1500ms\n", 0, "t.policy:2:15: \"limit cputime\" must be whole seconds: \"1500ms\"" },
	/* resource limits: "limit cpu" is a share of CPU; the old seconds form is refused */
	{ "osb-policy 1\nlimit cpu 2m\n", 0,
	  "t.policy:2:11: \"limit cpu\" is a share of CPU (\"0.5\" or \"50%\"); for CPU seconds (RLIMIT_CPU) write \"limit cputime 2m\"" },
	{ "osb-policy 1\nlimit cpu 0\n", 0, "t.policy:2:11: \"limit cpu\" must be greater than zero" },
	{ "osb-policy 1\nlimit cpu 0.0001\n", 0,
	  "t.policy:2:11: invalid value \"0.0001\" for \"limit cpu\" (expected a share of CPU: a fraction with at most 3 decimals such as \"0.5\", a percentage with at most 1 decimal such as \"50%\", or \"unlimited\")" },
	{ "osb-policy 1\nlimit cpu 5000\n", 0, "t.policy:2:11: \"limit cpu\" value \"5000\" is out of range (at most 1024 CPUs)" },
	{ "osb-policy 1\nlimit memory 2\n", 0,
	  "t.policy:2:14: missing unit in \"2\" (use B, KiB, MiB, GiB, TiB, K, M or G)" },
	{ "osb-policy 1\nlimit pids 0\n", 0, "t.policy:2:12: \"limit pids\" must be greater than zero" },
	{ "osb-policy 1\nlimit memory 1GiB best\n", 0,
	  "t.policy:2:19: unexpected argument \"best\" (usage is \"limit memory VALUE [best-effort]\")" },
	{ "osb-policy 1\nlimit nofile 10 best-effort\n", 0,
	  "t.policy:2:17: \"best-effort\" is only for the limits the kernel enforces per sandbox (memory, pids, cpu): \"limit nofile\" always holds" },
	{ "osb-policy 1\ntmpfs /tmp size=\n", 0,
	  "t.policy:2:12: invalid tmpfs size \"size=\" (expected size=SIZE with B, KiB, MiB, GiB, TiB, K, M or G)" },
	{ "osb-policy 1\ntmpfs /tmp mode=1\n", 0,
	  "t.policy:2:12: unexpected argument \"mode=1\" (usage is \"tmpfs PATH [size=SIZE]\")" },
	{ "osb-policy 1\ntmpfs /tmp size=0B\n", 0, "t.policy:2:12: \"tmpfs\" size must be greater than zero" },
	{ "osb-policy 1\nlimit wall 0s\n", 0, "t.policy:2:12: \"limit wall\" must be greater than zero" },
	/* Finding: these passed check, then every run exited 127 (the loader's). */
	{ "osb-policy 1\nlimit nofile 3\n", 0, "t.policy:2:14: \"limit nofile 3\" is too small to "
	  "start a program: stdin, stdout and stderr take 3 descriptors and the dynamic loader needs "
	  "one more (at least 4)" },
	{ "osb-policy 1\nlimit nofile 0\n", 0, "t.policy:2:14: \"limit nofile 0\" is too small to "
	  "start a program: stdin, stdout and stderr take 3 descriptors and the dynamic loader needs "
	  "one more (at least 4)" },
	{ "osb-policy 1\nlimit as 1MiB\n", 0, "t.policy:2:10: \"limit as 1MiB\" is too small to "
	  "load a program: the C library alone maps about 2 MiB (at least 4MiB)" },
	/* environment */
	{ "osb-policy 1\nenv set 1A=x\n", 0,
	  "t.policy:2:9: invalid environment variable name \"1A\" (letters, digits and \"_\", not starting with a digit)" },
	{ "osb-policy 1\nenv set A-B=x\n", 0,
	  "t.policy:2:9: invalid environment variable name \"A-B\" (letters, digits and \"_\", not starting with a digit)" },
	{ "osb-policy 1\nenv set =x\n", 0,
	  "t.policy:2:9: invalid environment variable name \"\" (letters, digits and \"_\", not starting with a digit)" },
	{ "osb-policy 1\nenv set FOO\n", 0, "t.policy:2:9: expected NAME=VALUE after \"env set\", not \"FOO\"" },
	{ "osb-policy 1\nenv pass PATH A=B\n", 0,
	  "t.policy:2:15: environment variable name must not contain \"=\": \"A=B\"" },
	{ "osb-policy 1\nenv deny =\n", 0, "t.policy:2:10: environment variable name must not contain \"=\": \"=\"" },
	/* identity */
	{ "osb-policy 1\nuser Root 1000 1000\n", 0,
	  "t.policy:2:6: invalid user name \"Root\" (lower-case letters, digits, \"_\" and \"-\", starting "
	  "with a letter or \"_\", at most 32 bytes)" },
	{ "osb-policy 1\nuser sandbox 4294967295 1000\n", 0,
	  "t.policy:2:14: uid \"4294967295\" is out of range (0 to 4294967294)" },
	{ "osb-policy 1\nuser sandbox 1000 -1\n", 0,
	  "t.policy:2:19: invalid gid \"-1\" (a decimal number from 0 to 4294967294)" },
	{ "osb-policy 1\nhostname -bad\n", 0,
	  "t.policy:2:10: invalid hostname \"-bad\" (dot-separated labels of letters, digits and inner \"-\", at most 64 bytes)" },
	{ "osb-policy 1\nhostname a..b\n", 0,
	  "t.policy:2:10: invalid hostname \"a..b\" (dot-separated labels of letters, digits and inner \"-\", at most 64 bytes)" },
	{ "osb-policy 1\nhostname a_b\n", 0,
	  "t.policy:2:10: invalid hostname \"a_b\" (dot-separated labels of letters, digits and inner \"-\", at most 64 bytes)" },
	/* write paths */
	{ "osb-policy 1\nwrite-root\n", 0, "t.policy:2:1: missing argument: usage is \"write-root PATH\"" },
	{ "osb-policy 1\nwrite-root /data /srv\n", 0,
	  "t.policy:2:18: unexpected argument \"/srv\" (usage is \"write-root PATH\")" },
	{ "osb-policy 1\nwrite-root data\n", 0, "t.policy:2:12: path must be absolute: \"data\"" },
	{ "osb-policy 1\nwrite-root /data/\n", 0,
	  "t.policy:2:12: path must be normalized (no \".\" components, \"//\" or trailing \"/\"): \"/data/\"" },
	{ "osb-policy 1\nwrite-root /\n", 0,
	  "t.policy:2:12: \"write-root /\" would let any path be granted; declare the directories under "
	  "which writable paths are expected" },
	{ "osb-policy 1\nwrite\n", 0, "t.policy:2:1: missing argument: usage is \"write PATH\"" },
	{ "osb-policy 1\nwrite-root /data\nwrite /data/../etc\n", 0,
	  "t.policy:3:7: path must not contain \"..\": \"/data/../etc\"" },
	{ "osb-policy 1\nwrite-root /data\nwrite /data/./x\n", 0,
	  "t.policy:3:7: path must be normalized (no \".\" components, \"//\" or trailing \"/\"): \"/data/./x\"" },
	{ "osb-policy 1\nwrite-root /data\nwrite /data//x\n", 0,
	  "t.policy:3:7: path must be normalized (no \".\" components, \"//\" or trailing \"/\"): \"/data//x\"" },
	{ "osb-policy 1\nwrite-root /data\nwrite data/x\n", 0, "t.policy:3:7: path must be absolute: \"data/x\"" },
	{ "osb-policy 1\nwrite-root /data\nwrite /data/*\n", 0,
	  "t.policy:3:7: glob characters (* ? [) are not allowed in paths: \"/data/*\"" },
	{ "osb-policy 1\nwrite-root /data\nwrite /database/x\n", 0,
	  "t.policy:3:7: write path \"/database/x\" is not beneath a declared write-root (declared: /data)" },
	{ "osb-policy 1\nwrite-root /data\nwrite-root /srv/jobs\n\nwrite /srv/job/x\n", 0,
	  "t.policy:5:7: write path \"/srv/job/x\" is not beneath a declared write-root (declared: "
	  "/data, /srv/jobs)" },
	{ "osb-policy 1\nwrite /data/x\n", 0,
	  "t.policy:2:7: write path \"/data/x\" is not beneath a declared write-root (the policy declares "
	  "none; add \"write-root DIR\" for a directory above it)" },
	{ "osb-policy 1\nwrite-root /data\nwrite /data\n", 0,
	  "t.policy:3:7: write path \"/data\" is a write-root itself (t.policy:2); only paths beneath a "
	  "root may be granted" },
	{ "osb-policy 1\nwrite-root /data\nwrite /data/x\nwrite /data/x\n", 0,
	  "t.policy:4:7: duplicate path \"/data/x\" (first set at t.policy:3)" },
	{ "osb-policy 1\nwrite-root /data\ntmpfs /data/x\nwrite /data/x\n", 0,
	  "t.policy:4:7: duplicate path \"/data/x\" (first set at t.policy:3)" },
	{ "osb-policy 1\nwrite-root /data\nwrite /data/x\nread-only /data/x/.git\nwrite /data/x/.git/hooks\n", 0,
	  "t.policy:5:7: write path \"/data/x/.git/hooks\" is under \"read-only /data/x/.git\" (t.policy:4), "
	  "which would cover it" },
	{ "osb-policy 1\nread-only\n", 0, "t.policy:2:1: missing argument: usage is \"read-only PATH|workspace:REL\"" },
	{ "osb-policy 1\nread-only /etc/ssh\n", 0,
	  "t.policy:2:11: read-only path \"/etc/ssh\" is not beneath a write path or write-root, so it "
	  "would protect nothing (use \"read-only workspace:REL\" for paths in the workspace)" },
	{ "osb-policy 1\nwrite-root /data\nread-only /data\n", 0,
	  "t.policy:3:11: read-only path \"/data\" is not beneath a write path or write-root, so it "
	  "would protect nothing (use \"read-only workspace:REL\" for paths in the workspace)" },
	{ "osb-policy 1\nread-only .git\n", 0,
	  "t.policy:2:11: path must be absolute, or \"workspace:REL\" for a path in the workspace: \".git\"" },
	{ "osb-policy 1\nread-only workspace:\n", 0,
	  "t.policy:2:11: path after \"workspace:\" must not be empty: \"workspace:\"" },
	{ "osb-policy 1\nread-only workspace:/etc\n", 0,
	  "t.policy:2:11: path after \"workspace:\" must be relative to the workspace: \"workspace:/etc\"" },
	{ "osb-policy 1\nread-only workspace:a/../../etc\n", 0,
	  "t.policy:2:11: path must not contain \"..\": \"workspace:a/../../etc\"" },
	{ "osb-policy 1\nread-only workspace:..\n", 0, "t.policy:2:11: path must not contain \"..\": \"workspace:..\"" },
	{ "osb-policy 1\nread-only workspace:.git/\n", 0,
	  "t.policy:2:11: path must be normalized (no \".\" components, \"//\" or trailing \"/\"): \"workspace:.git/\"" },
	{ "osb-policy 1\nread-only workspace:.\n", 0,
	  "t.policy:2:11: path must be normalized (no \".\" components, \"//\" or trailing \"/\"): \"workspace:.\"" },
	{ "osb-policy 1\nread-only workspace:*rc\n", 0,
	  "t.policy:2:11: glob characters (* ? [) are not allowed in paths: \"workspace:*rc\"" },
	{ "osb-policy 1\nread-only workspace:.git\nread-only workspace:.git\n", 0,
	  "t.policy:3:11: duplicate path \"workspace:.git\" (first set at t.policy:2)" },
	/* seccomp and landlock */
	{ "osb-policy 1\nseccomp\n", 0,
	  "t.policy:2:1: missing argument: usage is \"seccomp default|none|GROUP|deny|allow ...\"" },
	{ "osb-policy 1\nseccomp strict\n", 0,
	  "t.policy:2:9: unknown argument \"strict\" to \"seccomp\" (expected default, none, deny or allow)" },
	{ "osb-policy 1\nseccomp nnoe\n", 0,
	  "t.policy:2:9: unknown argument \"nnoe\" to \"seccomp\" (did you mean \"none\"?)" },
	{ "osb-policy 1\nseccomp none now\n", 0,
	  "t.policy:2:14: unexpected argument \"now\" (usage is \"seccomp default|none|GROUP\")" },
	{ "osb-policy 1\nseccomp none\nseccomp default\n", 0,
	  "t.policy:3:1: duplicate \"seccomp default\" (first set at t.policy:2)" },
	{ "osb-policy 1\nseccomp deny\n", 0,
	  "t.policy:2:1: missing argument: usage is \"seccomp deny NAME... [errno=E]\"" },
	{ "osb-policy 1\nseccomp deny errno=EPERM\n", 0,
	  "t.policy:2:1: missing argument: usage is \"seccomp deny NAME... [errno=E]\"" },
	{ "osb-policy 1\nseccomp allow\n", 0, "t.policy:2:1: missing argument: usage is \"seccomp allow NAME...\"" },
	{ "osb-policy 1\nseccomp deny ptarce\n", 0,
	  "t.policy:2:14: unknown system call \"ptarce\" (did you mean \"ptrace\"?)" },
	{ "osb-policy 1\nseccomp deny uname  Uname\n", 0,
	  "t.policy:2:21: unknown system call \"Uname\" (did you mean \"uname\"?)" },
	{ "osb-policy 1\nseccomp allow bpf mount unshar\n", 0,
	  "t.policy:2:25: unknown system call \"unshar\" (did you mean \"unshare\"?)" },
	{ "osb-policy 1\nseccomp deny uname errno=EPREM\n", 0,
	  "t.policy:2:26: unknown errno \"EPREM\" (did you mean \"EPERM\"?)" },
	{ "osb-policy 1\nseccomp deny uname errno=permission\n", 0,
	  "t.policy:2:26: invalid errno \"permission\" (a name such as EPERM, ENOSYS or EACCES, or a "
	  "number from 1 to 4095)" },
	{ "osb-policy 1\nseccomp deny uname errno=\n", 0,
	  "t.policy:2:26: invalid errno \"\" (a name such as EPERM, ENOSYS or EACCES, or a number from 1 to 4095)" },
	{ "osb-policy 1\nseccomp deny uname errno=-1\n", 0,
	  "t.policy:2:26: invalid errno \"-1\" (a name such as EPERM, ENOSYS or EACCES, or a number from 1 to 4095)" },
	{ "osb-policy 1\nseccomp deny uname errno=01\n", 0,
	  "t.policy:2:26: invalid errno \"01\" (a name such as EPERM, ENOSYS or EACCES, or a number from 1 to 4095)" },
	{ "osb-policy 1\nseccomp deny uname errno=0\n", 0, "t.policy:2:26: errno \"0\" is out of range (1 to 4095)" },
	{ "osb-policy 1\nseccomp deny uname errno=4096\n", 0, "t.policy:2:26: errno \"4096\" is out of range (1 to 4095)" },
	{ "osb-policy 1\nseccomp deny errno=EPERM uname\n", 0,
	  "t.policy:2:14: \"errno=\" must come after the system call names (usage is \"seccomp deny NAME... [errno=E]\")" },
	{ "osb-policy 1\nseccomp deny uname errno=EPERM errno=EACCES\n", 0,
	  "t.policy:2:20: \"errno=\" must come after the system call names (usage is \"seccomp deny NAME... [errno=E]\")" },
	{ "osb-policy 1\nseccomp allow ptrace errno=EPERM\n", 0,
	  "t.policy:2:22: \"errno=\" belongs to \"seccomp deny\", not \"seccomp allow\"" },
	{ "osb-policy 1\nseccomp deny uname\nseccomp allow uname\n", 0,
	  "t.policy:3:15: duplicate \"seccomp allow uname\" (first set at t.policy:2)" },
	{ "osb-policy 1\nseccomp deny uname uname\n", 0,
	  "t.policy:2:20: duplicate \"seccomp deny uname\" (first set at t.policy:2)" },
	{ "osb-policy 1\nseccomp none\nseccomp allow ptrace\nseccomp deny uname\n", 0,
	  "t.policy:4:14: \"seccomp deny uname\" cannot take effect: \"seccomp none\" (t.policy:2) loads no filter" },
	{ "osb-policy 1\nlandlock\n", 0, "t.policy:2:1: missing argument: usage is \"landlock auto|required|off\"" },
	{ "osb-policy 1\nlandlock requird\n", 0,
	  "t.policy:2:10: unknown argument \"requird\" to \"landlock\" (did you mean \"required\"?)" },
	{ "osb-policy 1\nlandlock strict\n", 0,
	  "t.policy:2:10: unknown argument \"strict\" to \"landlock\" (expected auto, required or off)" },
	{ "osb-policy 1\nlandlock off\nlandlock off\n", 0, "t.policy:3:1: duplicate \"landlock\" (first set at t.policy:2)" },
	{ "osb-policy 1\nlandlock off on\n", 0,
	  "t.policy:2:14: unexpected argument \"on\" (usage is \"landlock auto|required|off\")" },
	/* includes that fail before any file is opened */
	{ "osb-policy 1\ninclude sub/x\n", 0,
	  "t.policy:2:9: include takes a bare name, \"./NAME\" or an absolute path, not a relative "
	  "path: \"sub/x\"" },
	{ "osb-policy 1\ninclude ./sub/x\n", 0,
	  "t.policy:2:9: include takes a bare name, \"./NAME\" or an absolute path, not a relative "
	  "path: \"./sub/x\"" },
	{ "osb-policy 1\ninclude ../x\n", 0,
	  "t.policy:2:9: include takes a bare name, \"./NAME\" or an absolute path, not a relative "
	  "path: \"../x\"" },
	{ "osb-policy 1\ninclude /a/../x.policy\n", 0,
	  "t.policy:2:9: path must not contain \"..\": \"/a/../x.policy\"" },
	{ "osb-policy 1\ninclude x\xc3\xa9\n", 0,
	  "t.policy:2:9: invalid include name \"x\xc3\xa9\" (letters, digits, \"_\", \".\" and \"-\", "
	  "\"./\" and such a name, or an absolute path)" },
	{ "osb-policy 1\ninclude ./\n", 0,
	  "t.policy:2:9: invalid include name \"./\" (letters, digits, \"_\", \".\" and \"-\", \"./\" "
	  "and such a name, or an absolute path)" },
	/* caller grants */
	{ "osb-policy 1\nread-root /\n", 0,
	  "t.policy:2:11: \"read-root /\" would let callers bind any path; declare the directories "
	  "under which read-only paths are expected" },
	{ "osb-policy 1\nread-root data\n", 0, "t.policy:2:11: path must be absolute: \"data\"" },
	{ "osb-policy 1\nallow-caller netwrok\n", 0,
	  "t.policy:2:14: unknown argument \"netwrok\" to \"allow-caller\" (did you mean \"network\"?)" },
	{ "osb-policy 1\nallow-caller\n", 0,
	  "t.policy:2:1: missing argument: usage is \"allow-caller network\"" },
	{ "osb-policy 1\nallow-caller network\nallow-caller network\n", 0,
	  "t.policy:3:1: duplicate \"allow-caller network\" (first set at t.policy:2)" },
	{ "osb-policy 1\nsymlink usr/bin\n", 0,
	  "t.policy:2:1: missing argument: usage is \"symlink TARGET PATH\"" },
	{ "osb-policy 1\nsymlink usr/bin bin\n", 0,
	  "t.policy:2:17: path must be absolute: \"bin\"" },
	{ "osb-policy 1\nsymlink usr/bin /\n", 0,
	  "t.policy:2:17: symlink: \"/\" cannot be a symlink" },
	{ "osb-policy 1\nsymlink ../usr/bin /bin\n", 0,
	  "t.policy:2:9: symlink target: path must not contain \"..\": \"../usr/bin\"" },
	{ "osb-policy 1\nsymlink usr//bin /bin\n", 0,
	  "t.policy:2:9: symlink target: path must be normalized (no \".\" components, \"//\" "
	  "or trailing \"/\"): \"usr//bin\"" },
	{ "osb-policy 1\nsymlink / /bin\n", 0,
	  "t.policy:2:9: symlink target: the target must name a file or directory: \"/\"" },
	{ "osb-policy 1\nsymlink usr/* /bin\n", 0,
	  "t.policy:2:9: symlink target: glob characters (* ? [) are not allowed in paths: "
	  "\"usr/*\"" },
	{ "osb-policy 1\nro-bind /bin\nsymlink usr/bin /bin\n", 0,
	  "t.policy:3:17: duplicate path \"/bin\" (first set at t.policy:2)" },
	{ "osb-policy 1\nsymlink usr/bin /bin extra\n", 0,
	  "t.policy:2:22: unexpected argument \"extra\" (usage is \"symlink TARGET PATH\")" },
};

START_TEST(test_rejected_policy_reports_position_and_message)
{
	const struct reject *c = &rejects[_i];
	osb_error err;
	osb_policy *p = parse_n(c->text, c->len ? c->len : strlen(c->text), &err);

	ck_assert_msg(p == NULL, "case %d accepted, expected: %s", _i, c->msg);
	ck_assert_int_eq(err.code, OSB_E_POLICY);
	ck_assert_int_eq(err.sys_errno, 0);
	ck_assert_str_eq(err.stage, "policy");
	ck_assert_msg(strcmp(err.message, c->msg) == 0, "case %d:\n got: %s\nwant: %s", _i,
	              err.message, c->msg);
}
END_TEST

START_TEST(test_line_longer_than_4096_bytes_refused)
{
	char text[16 + 4100];
	osb_error err;
	size_t n;

	/* Exactly 4096 bytes on a line is fine... */
	n = (size_t)snprintf(text, sizeof(text), "osb-policy 1\n#");
	memset(text + n, 'x', 4095);
	text[n + 4095] = '\n';
	text[n + 4096] = '\0';
	osb_policy_free(must_parse(text));
	/* ...one more is not, reported at the first byte past the limit. */
	text[n + 4095] = 'x';
	text[n + 4096] = '\n';
	ck_assert_ptr_null(parse_n(text, n + 4097, &err));
	ck_assert_str_eq(err.message, "t.policy:2:4097: line longer than 4096 bytes");
	/* A multi-byte character straddling the limit counts whole. */
	memcpy(text + n + 4094, "\xc3\xa9", 2);
	ck_assert_ptr_null(parse_n(text, n + 4097, &err));
	ck_assert_str_eq(err.message, "t.policy:2:4097: line longer than 4096 bytes");
}
END_TEST

START_TEST(test_policy_text_larger_than_1mib_refused)
{
	size_t max = (size_t)1 << 20;
	char *text = malloc(max + 1);
	osb_error err;

	ck_assert_ptr_nonnull(text);
	memset(text, '\n', max + 1);
	memcpy(text, "osb-policy 1", 12);
	/* Exactly 1 MiB is accepted, one byte more is not. */
	osb_policy_free(parse_n(text, max, &err));
	ck_assert_msg(err.code == 0, "1 MiB refused: %s", err.message);
	ck_assert_ptr_null(parse_n(text, max + 1, &err));
	ck_assert_int_eq(err.code, OSB_E_POLICY);
	ck_assert_int_eq(err.sys_errno, EFBIG);
	ck_assert_str_eq(err.message, "t.policy: policy is larger than 1 MiB");
	free(text);
}
END_TEST

/* ---- accepted input ------------------------------------------------------ */

START_TEST(test_unset_rules_get_safe_defaults)
{
	osb_policy *p = must_parse("# nothing but the version\nosb-policy 1\n");

	ck_assert_int_eq(p->version, 1);
	ck_assert_int_eq(p->root, ROOT_NONE);
	ck_assert_uint_eq(p->n_mounts, 0);
	ck_assert_int_eq(p->ws_mode, WS_NONE);
	ck_assert_ptr_null(p->ws_dest);
	ck_assert_ptr_null(p->ws_path);
	ck_assert_int_eq(p->net, NET_NONE);
	ck_assert_int_eq(p->env_base, ENV_CLEAR);
	ck_assert_uint_eq(p->n_env_pass + p->n_env_deny + p->n_env_set, 0);
	ck_assert_str_eq(p->user_name, "sandbox");
	ck_assert_uint_eq(p->uid, 1000);
	ck_assert_uint_eq(p->gid, 1000);
	ck_assert_str_eq(p->hostname, "sandbox");
	ck_assert_int_eq(p->id_mode, ID_AUTO);
	expect_origin(p->id_mode_set.o, "default", 0, 0);
	ck_assert(p->limit_set[LIM_OUTPUT].set);
	ck_assert_uint_eq(p->limits[LIM_OUTPUT], 1048576);
	for (int i = 0; i < LIM__COUNT; i++)
		ck_assert_msg(i == LIM_OUTPUT || !p->limit_set[i].set, "limit %s set", osb_limit_names[i]);
	expect_origin(p->root_set.o, "default", 0, 0);
	expect_origin(p->net_set.o, "default", 0, 0);
	expect_origin(p->user_set.o, "default", 0, 0);
	expect_origin(p->limit_set[LIM_OUTPUT].o, "default", 0, 0);
	ck_assert(p->root_set.set && p->ws_set.set && p->net_set.set && p->env_base_set.set &&
	          p->user_set.set && p->hostname_set.set);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_every_directive_sets_its_field_with_origin)
{
	osb_policy *p = must_parse(
		"osb-policy 1\n"
		"root host-ro\n"
		"ro-bind /usr\n"
		"tmpfs /tmp\n"
		"hide /root\n"
		"dev /dev\n"
		"proc /proc\n"
		"workspace ro /work\n"
		"network host\n"
		"env inherit\n"
		"env pass PATH LC_*\n"
		"env deny *_TOKEN\n"
		"env set HOME=${WORKSPACE}\n"
		"user builder 0 4294967294\n"
		"hostname box.example\n"
		"limit wall 10m\n"
		"limit cputime 2m\n"
		"limit as 4GiB\n"
		"limit nofile 256\n"
		"limit fsize unlimited\n"
		"limit nproc 64\n"
		"limit output 64K\n"
		"identity root\n");
	static const struct { enum mount_kind k; const char *path; unsigned line; } mounts[] = {
		{ MNT_RO_BIND, "/usr", 3 }, { MNT_TMPFS, "/tmp", 4 }, { MNT_HIDE, "/root", 5 },
		{ MNT_DEV, "/dev", 6 }, { MNT_PROC, "/proc", 7 },
	};

	ck_assert_int_eq(p->root, ROOT_HOST_RO);
	expect_origin(p->root_set.o, "t.policy", 2, 0);
	ck_assert_uint_eq(p->n_mounts, 5);
	for (size_t i = 0; i < 5; i++) {
		ck_assert_int_eq(p->mounts[i].kind, mounts[i].k);
		ck_assert_str_eq(p->mounts[i].path, mounts[i].path);
		expect_origin(p->mounts[i].o, "t.policy", mounts[i].line, 0);
	}
	ck_assert_int_eq(p->ws_mode, WS_RO);
	ck_assert_str_eq(p->ws_dest, "/work");
	ck_assert_int_eq(p->net, NET_HOST);
	expect_origin(p->net_set.o, "t.policy", 9, 0);
	ck_assert_int_eq(p->env_base, ENV_INHERIT);
	ck_assert_uint_eq(p->n_env_pass, 2);
	ck_assert_str_eq(p->env_pass[0].s, "PATH");
	ck_assert_str_eq(p->env_pass[1].s, "LC_*");
	expect_origin(p->env_pass[1].o, "t.policy", 11, 0);
	ck_assert_uint_eq(p->n_env_deny, 1);
	ck_assert_str_eq(p->env_deny[0].s, "*_TOKEN");
	ck_assert_uint_eq(p->n_env_set, 1);
	ck_assert_str_eq(p->env_set[0].s, "HOME=${WORKSPACE}");
	expect_origin(p->env_set[0].o, "t.policy", 13, 0);
	ck_assert_str_eq(p->user_name, "builder");
	ck_assert_uint_eq(p->uid, 0);
	ck_assert_uint_eq(p->gid, 4294967294u);
	ck_assert_str_eq(p->hostname, "box.example");
	ck_assert_uint_eq(p->limits[LIM_WALL], 600000);
	ck_assert_uint_eq(p->limits[LIM_CPUTIME], 120);
	ck_assert_uint_eq(p->limits[LIM_AS], 4ULL << 30);
	ck_assert_uint_eq(p->limits[LIM_NOFILE], 256);
	ck_assert_uint_eq(p->limits[LIM_FSIZE], UINT64_MAX);
	ck_assert_uint_eq(p->limits[LIM_NPROC], 64);
	ck_assert_uint_eq(p->limits[LIM_OUTPUT], 65536);
	expect_origin(p->limit_set[LIM_OUTPUT].o, "t.policy", 22, 0);
	ck_assert_int_eq(p->id_mode, ID_ROOT);
	expect_origin(p->id_mode_set.o, "t.policy", 23, 0);
	ck_assert_uint_eq(p->n_files, 1);
	ck_assert_str_eq(p->files[0], "t.policy");
	ck_assert_ptr_eq(p->net_set.o.file, p->files[0]);
	osb_policy_free(p);
}
END_TEST

/* symlink TARGET PATH: the link's path is claimed like a mount's, the
 * target kept as written (relative or absolute), and the canonical form
 * says both, so that a changed target changes the hash. */
START_TEST(test_symlink_parsed_and_canonical)
{
	osb_policy *p = must_parse("osb-policy 1\nroot none\nsymlink usr/bin /bin\n"
	                           "symlink /usr/lib64 /lib64\n");
	osb_policy *q = must_parse("osb-policy 1\nroot none\nsymlink usr/lib64 /lib64\n"
	                           "symlink usr/bin /bin\n");
	char *canon = NULL, h1[OSB_POLICY_HASH_LEN], h2[OSB_POLICY_HASH_LEN];

	ck_assert_uint_eq(p->n_mounts, 2);
	ck_assert_int_eq(p->mounts[0].kind, MNT_SYMLINK);
	ck_assert_str_eq(p->mounts[0].path, "/bin");
	ck_assert_str_eq(p->mounts[0].target, "usr/bin");
	expect_origin(p->mounts[0].o, "t.policy", 3, 0);
	ck_assert_str_eq(p->mounts[1].target, "/usr/lib64");
	ck_assert_int_eq(policy_canonical(p, &canon), 0);
	ck_assert_ptr_nonnull(strstr(canon, "\nsymlink usr/bin /bin\nsymlink /usr/lib64 /lib64\n"));
	hash_of(p, h1);
	hash_of(q, h2);
	ck_assert_str_ne(h1, h2);
	free(canon);
	osb_policy_free(p);
	osb_policy_free(q);
}
END_TEST

START_TEST(test_env_set_value_is_rest_of_line_verbatim)
{
	osb_policy *p = must_parse(
		"osb-policy 1\n"
		"env set A=b # not a comment \t \n"
		"env set EMPTY=\n"
		"env set LEAD=  x=y\n"
		"env set\tTAB=a\tb\n");

	ck_assert_uint_eq(p->n_env_set, 4);
	ck_assert_str_eq(p->env_set[0].s, "A=b # not a comment");
	ck_assert_str_eq(p->env_set[1].s, "EMPTY=");
	ck_assert_str_eq(p->env_set[2].s, "LEAD=  x=y");
	ck_assert_str_eq(p->env_set[3].s, "TAB=a\tb");
	osb_policy_free(p);
}
END_TEST

START_TEST(test_comment_needs_whitespace_before_hash)
{
	osb_policy *p = must_parse(
		"#!osb\n"
		"   # indented comment\n"
		"osb-policy 1 # version\n"
		"network none\t#tab then comment\n"
		"tmpfs /a#b\n");

	ck_assert_int_eq(p->net, NET_NONE);
	expect_origin(p->net_set.o, "t.policy", 4, 0);
	ck_assert_uint_eq(p->n_mounts, 1);
	ck_assert_str_eq(p->mounts[0].path, "/a#b");
	osb_policy_free(p);
}
END_TEST

START_TEST(test_env_patterns_repeated_are_folded)
{
	osb_policy *p = must_parse("osb-policy 1\nenv deny A_* B\nenv deny A_*\nenv pass X X\n");

	ck_assert_uint_eq(p->n_env_deny, 2);
	expect_origin(p->env_deny[0].o, "t.policy", 2, 0);
	ck_assert_uint_eq(p->n_env_pass, 1);
	osb_policy_free(p);
}
END_TEST

/* ---- includes ------------------------------------------------------------ */

/* A tmpfs size of the includer overrides the included one's (never dropped
 * silently); two sizes at one depth conflict. */
START_TEST(test_include_tmpfs_size_overridden_by_includer)
{
	osb_error err;
	osb_policy *p;

	put("a.policy", "osb-policy 1\ninclude ./b\ntmpfs /tmp size=8MiB\n");
	put("b.policy", "osb-policy 1\ntmpfs /tmp size=512MiB\n");
	p = must_load("a.policy");
	ck_assert_uint_eq(p->n_mounts, 1);
	ck_assert_uint_eq(p->mounts[0].size, 8ULL << 20);
	ck_assert_uint_eq(p->mounts[0].o.line, 3);
	osb_policy_free(p);
	put("c.policy", "osb-policy 1\ninclude ./b\ninclude ./d\n");
	put("d.policy", "osb-policy 1\ntmpfs /tmp size=1MiB\n");
	p = load("c.policy", &err);
	ck_assert_ptr_null(p);
	ck_assert_ptr_nonnull(strstr(err.message, "d.policy:2:12: tmpfs /tmp: a different size is set at "));
}
END_TEST

START_TEST(test_include_override_by_includer_recorded)
{
	char a[PATH_MAX], b[PATH_MAX];
	osb_policy *p;

	put("a.policy", "osb-policy 1\ninclude ./b\nnetwork host\n");
	put("b.policy", "osb-policy 1\nnetwork none\nhostname inner\ntmpfs /tmp\n");
	p = must_load("a.policy");
	ck_assert_int_eq(p->net, NET_HOST);
	expect_origin(p->net_set.o, in_dir(a, "a.policy"), 3, 0);
	ck_assert_str_eq(p->hostname, "inner");
	expect_origin(p->hostname_set.o, in_dir(b, "b.policy"), 3, 1);
	ck_assert_uint_eq(p->n_mounts, 1);
	expect_origin(p->mounts[0].o, b, 4, 1);
	ck_assert_uint_eq(p->n_files, 2);
	osb_policy_free(p);

	/* The includer wins wherever its line stands. */
	put("a.policy", "osb-policy 1\nnetwork host\ninclude ./b\n");
	p = must_load("a.policy");
	ck_assert_int_eq(p->net, NET_HOST);
	expect_origin(p->net_set.o, a, 2, 0);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_include_sibling_conflict_refused)
{
	char want[MSG_MAX];

	put("a.policy", "osb-policy 1\ninclude ./b\ninclude ./c\n");
	put("b.policy", "osb-policy 1\nnetwork none\n");
	put("c.policy", "osb-policy 1\n\nnetwork host\n");
	/* At the include that brought the second rule in: the includer is where
	 * the author settles it. */
	snprintf(want, sizeof(want), "%s/a.policy:3:9: \"network\" of %s/c.policy:3 conflicts with "
	         "%s/b.policy:2 (both included at depth 1; set \"network\" in this file to choose)",
	         dir, dir, dir);
	expect_load_error("a.policy", want);

	/* The same value at the same depth is still two rules for one place. */
	put("c.policy", "osb-policy 1\n\nnetwork none\n");
	expect_load_error("a.policy", want);

	put("b.policy", "osb-policy 1\nenv set X=1\n");
	put("c.policy", "osb-policy 1\nenv set X=2\n");
	snprintf(want, sizeof(want), "%s/a.policy:3:9: \"env set X\" of %s/c.policy:2 conflicts with "
	         "%s/b.policy:2 (both included at depth 1; set \"env set X\" in this file to choose)",
	         dir, dir, dir);
	expect_load_error("a.policy", want);
}
END_TEST

/* An error inside an included file names the includes that reached it. */
START_TEST(test_include_error_shows_chain)
{
	char want[MSG_MAX];

	put("a.policy", "osb-policy 1\n\ninclude ./b\n");
	put("b.policy", "osb-policy 1\ninclude ./c\n");
	put("c.policy", "osb-policy 1\nnetwork hots\n");
	snprintf(want, sizeof(want), "%s/c.policy:2:9: unknown argument \"hots\" to \"network\" (did "
	         "you mean \"host\"?); included from %s/b.policy:2, from %s/a.policy:3", dir, dir, dir);
	expect_load_error("a.policy", want);
}
END_TEST

START_TEST(test_include_sibling_conflict_settled_by_includer)
{
	char a[PATH_MAX];
	osb_policy *p;

	put("a.policy", "osb-policy 1\ninclude ./b\ninclude ./c\nnetwork host\n");
	put("b.policy", "osb-policy 1\nnetwork none\n");
	put("c.policy", "osb-policy 1\nnetwork host\n");
	p = must_load("a.policy");
	ck_assert_int_eq(p->net, NET_HOST);
	expect_origin(p->net_set.o, in_dir(a, "a.policy"), 4, 0);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_include_cycle_reports_chain)
{
	char want[MSG_MAX];

	put("a.policy", "osb-policy 1\ninclude ./b\n");
	put("b.policy", "osb-policy 1\ninclude ./a.policy\n");
	snprintf(want, sizeof(want), "%s/b.policy:2:9: include cycle: %s/a.policy -> %s/b.policy -> %s/a.policy"
	         "; included from %s/a.policy:2", dir, dir, dir, dir, dir);
	expect_load_error("a.policy", want);

	put("self.policy", "osb-policy 1\n\n  include   ./self\n");
	snprintf(want, sizeof(want), "%s/self.policy:3:13: include cycle: %s/self.policy -> %s/self.policy",
	         dir, dir, dir);
	expect_load_error("self.policy", want);
}
END_TEST

START_TEST(test_include_cycle_detected_through_other_spelling)
{
	char want[MSG_MAX], link[PATH_MAX], target[PATH_MAX];

	/* Identity, not the name: a symlink back to the top file is a cycle. */
	put("a.policy", "osb-policy 1\ninclude ./b\n");
	snprintf(target, sizeof(target), "%s/a.policy", dir);
	snprintf(link, sizeof(link), "%s/b.policy", dir);
	ck_assert_int_eq(symlink(target, link), 0);
	snprintf(want, sizeof(want), "%s/a.policy:2:9: include cycle: %s/a.policy -> %s/b.policy", dir, dir, dir);
	expect_load_error("a.policy", want);
}
END_TEST

START_TEST(test_include_depth_above_two_refused)
{
	char want[MSG_MAX], c[PATH_MAX];
	osb_policy *p;

	put("a.policy", "osb-policy 1\ninclude ./b\n");
	put("b.policy", "osb-policy 1\ninclude ./c\n");
	put("c.policy", "osb-policy 1\nhostname deep\n");
	p = must_load("a.policy");
	expect_origin(p->hostname_set.o, in_dir(c, "c.policy"), 2, 2);
	osb_policy_free(p);

	put("c.policy", "osb-policy 1\ninclude ./d\n");
	put("d.policy", "osb-policy 1\n");
	snprintf(want, sizeof(want), "%s/c.policy:2:9: include nested too deeply: \"./d\" would be at depth 3 "
	         "(at most 2 levels of include); included from %s/b.policy:2, from %s/a.policy:2", dir, dir,
	         dir);
	expect_load_error("a.policy", want);
}
END_TEST

/* Finding: "include strict" read a sandbox-writable strict.policy planted
 * beside a team policy. A bare name is a shipped policy, read only from the
 * policy directory; "./NAME" is how a policy names its sibling. */
START_TEST(test_include_bare_name_reads_only_the_policy_dir)
{
	char pdir[PATH_MAX], shared[PATH_MAX], local[PATH_MAX], want[MSG_MAX];
	osb_policy *p;

	put_dir("pdir");
	put("pdir/shared.policy", "osb-policy 1\nhostname shared\n");
	put("shared.policy", "osb-policy 1\nhostname planted\nseccomp none\n");
	put("a.policy", "osb-policy 1\ninclude shared\n");
	ck_assert_int_eq(setenv("OSB_ISOLATE_POLICY_DIR", in_dir(pdir, "pdir"), 1), 0);
	p = must_load("a.policy");
	ck_assert_str_eq(p->hostname, "shared");
	ck_assert_int_eq(p->sc_mode, SC_DEFAULT);
	expect_origin(p->hostname_set.o, in_dir(shared, "pdir/shared.policy"), 2, 1);
	osb_policy_free(p);

	put("a.policy", "osb-policy 1\ninclude ./shared\n");
	p = must_load("a.policy");
	ck_assert_str_eq(p->hostname, "planted");
	expect_origin(p->hostname_set.o, in_dir(local, "shared.policy"), 2, 1);
	osb_policy_free(p);

	put("a.policy", "osb-policy 1\ninclude nope\n");
	snprintf(want, sizeof(want), "%s/a.policy:2:9: cannot include \"nope\": %s/pdir/nope.policy "
	         "does not exist (a bare name is a shipped policy; write \"./nope\" for a file beside "
	         "this one)", dir, dir);
	expect_load_error("a.policy", want);
	put("a.policy", "osb-policy 1\ninclude ./nope\n");
	snprintf(want, sizeof(want), "%s/a.policy:2:9: cannot include \"./nope\": %s/nope.policy: "
	         "No such file or directory", dir, dir);
	expect_load_error("a.policy", want);
}
END_TEST

START_TEST(test_include_by_absolute_path_and_suffix)
{
	char text[PATH_MAX + 64], abs_path[PATH_MAX];
	osb_policy *p;

	put_dir("sub");
	put("sub/x.policy", "osb-policy 1\nhostname abs\n");
	put("y.policy", "osb-policy 1\nnetwork host\n");
	snprintf(text, sizeof(text), "osb-policy 1\ninclude %s\ninclude ./y.policy\n",
	         in_dir(abs_path, "sub/x.policy"));
	put("a.policy", text);
	p = must_load("a.policy");
	ck_assert_str_eq(p->hostname, "abs");
	expect_origin(p->hostname_set.o, abs_path, 2, 1);
	ck_assert_int_eq(p->net, NET_HOST);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_include_same_file_twice_is_not_a_duplicate)
{
	char d[PATH_MAX];
	osb_policy *p;

	put("a.policy", "osb-policy 1\ninclude ./b\ninclude ./c\n");
	put("b.policy", "osb-policy 1\ninclude ./d\n");
	put("c.policy", "osb-policy 1\ninclude ./d\n");
	put("d.policy", "osb-policy 1\nhostname shared\ntmpfs /x\nenv set K=v\n");
	p = must_load("a.policy");
	ck_assert_str_eq(p->hostname, "shared");
	expect_origin(p->hostname_set.o, in_dir(d, "d.policy"), 2, 2);
	ck_assert_uint_eq(p->n_mounts, 1);
	ck_assert_uint_eq(p->n_env_set, 1);
	ck_assert_uint_eq(p->n_files, 4);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_include_errors_point_into_included_file)
{
	char want[MSG_MAX];

	put("a.policy", "osb-policy 1\ninclude ./b\n");
	put("b.policy", "osb-policy 1\nnetwork nne\n");
	snprintf(want, sizeof(want), "%s/b.policy:2:9: unknown argument \"nne\" to \"network\" "
	         "(did you mean \"none\"?); included from %s/a.policy:2", dir, dir);
	expect_load_error("a.policy", want);

	put("b.policy", "hostname x\n");
	snprintf(want, sizeof(want), "%s/b.policy:1:1: expected version line \"osb-policy 1\" first; "
	         "included from %s/a.policy:2", dir, dir);
	expect_load_error("a.policy", want);

	/* A duplicate inside an included file is an error even where the
	 * includer overrides the value. */
	put("a.policy", "osb-policy 1\nnetwork host\ninclude ./b\n");
	put("b.policy", "osb-policy 1\nnetwork none\nnetwork none\n");
	snprintf(want, sizeof(want), "%s/b.policy:3:1: duplicate \"network\" (first set at %s/b.policy:2); "
	         "included from %s/a.policy:3", dir, dir, dir);
	expect_load_error("a.policy", want);

	/* Mount paths are unique across files. */
	put("a.policy", "osb-policy 1\ntmpfs /x\ninclude ./b\n");
	put("b.policy", "osb-policy 1\nro-bind /x\n");
	snprintf(want, sizeof(want), "%s/b.policy:2:9: duplicate path \"/x\" (first set at %s/a.policy:2); "
	         "included from %s/a.policy:3", dir, dir, dir);
	expect_load_error("a.policy", want);
}
END_TEST

START_TEST(test_include_unreadable_files_refused)
{
	char want[MSG_MAX];
	osb_error err;
	size_t big = ((size_t)1 << 20) + 1;
	char *text = malloc(big + 1);

	ck_assert_ptr_nonnull(text);
	memset(text, '#', big);
	text[big] = '\0';
	put("big.policy", text);
	free(text);
	put("a.policy", "osb-policy 1\ninclude ./big\n");
	snprintf(want, sizeof(want), "%s/a.policy:2:9: cannot include \"./big\": %s/big.policy is larger than 1 MiB",
	         dir, dir);
	expect_load_error("a.policy", want);

	put_dir("d.policy");
	put("a.policy", "osb-policy 1\ninclude ./d\n");
	snprintf(want, sizeof(want), "%s/a.policy:2:9: cannot include \"./d\": %s/d.policy is not a regular file",
	         dir, dir);
	expect_load_error("a.policy", want);

	put("nul.policy", "osb-policy 1\n");
	put("a.policy", "osb-policy 1\ninclude ./nul\n");
	{
		char path[PATH_MAX];
		int fd = open(in_dir(path, "nul.policy"), O_WRONLY | O_APPEND | O_CLOEXEC);

		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(write(fd, "tmpfs /\0x\n", 10), 10);
		close(fd);
	}
	snprintf(want, sizeof(want), "%s/nul.policy:2:8: NUL byte in policy text; included from %s/a.policy:2",
	         dir, dir);
	expect_load_error("a.policy", want);

	/* The top file itself. */
	snprintf(want, sizeof(want), "%s/big.policy: policy file is larger than 1 MiB", dir);
	expect_load_error("big.policy", want);
	ck_assert_ptr_null(load("missing.policy", &err));
	ck_assert_int_eq(err.code, OSB_E_POLICY);
	ck_assert_int_eq(err.sys_errno, ENOENT);
	snprintf(want, sizeof(want), "%s/missing.policy: cannot read policy: No such file or directory", dir);
	ck_assert_str_eq(err.message, want);
}
END_TEST

START_TEST(test_load_by_name_uses_policy_dir)
{
	char want[MSG_MAX];
	osb_error err = { 0 };
	osb_policy *p;

	put("mine.policy", "osb-policy 1\nnetwork host\n");
	ck_assert_int_eq(setenv("OSB_ISOLATE_POLICY_DIR", dir, 1), 0);
	ck_assert_str_eq(policy_dir(), dir);
	p = osb_policy_load("mine", &err);
	ck_assert_msg(p != NULL, "%s", err.message);
	snprintf(want, sizeof(want), "%s/mine.policy", dir);
	expect_origin(p->net_set.o, want, 2, 0);
	osb_policy_free(p);
	p = osb_policy_load("mine.policy", &err);
	ck_assert_ptr_nonnull(p);
	osb_policy_free(p);

	ck_assert_ptr_null(osb_policy_load("bad name", &err));
	ck_assert_int_eq(err.code, OSB_E_USAGE);
	ck_assert_ptr_null(osb_policy_load("", &err));
	ck_assert_int_eq(err.code, OSB_E_USAGE);

	ck_assert_int_eq(setenv("OSB_ISOLATE_POLICY_DIR", "", 1), 0);
	ck_assert_str_eq(policy_dir(), OSB_POLICY_DIR);
	ck_assert_int_eq(unsetenv("OSB_ISOLATE_POLICY_DIR"), 0);
	ck_assert_str_eq(policy_dir(), OSB_POLICY_DIR);
}
END_TEST

/* ---- units and patterns -------------------------------------------------- */

START_TEST(test_duration_and_size_units)
{
	static const struct { const char *s; int r; uint64_t v; } durations[] = {
		{ "1ms", 0, 1 }, { "2s", 0, 2000 }, { "3m", 0, 180000 }, { "4h", 0, 14400000 },
		{ "0ms", 0, 0 }, { "600s", 0, 600000 },
		{ "600", -EINVAL, 0 }, { "s", -EINVAL, 0 }, { "", -EINVAL, 0 }, { "5 s", -EINVAL, 0 },
		{ "-1s", -EINVAL, 0 }, { "+1s", -EINVAL, 0 }, { "1.5s", -EINVAL, 0 }, { "1S", -EINVAL, 0 },
		{ "1d", -EINVAL, 0 },
		{ "18446744073709551614ms", 0, UINT64_MAX - 1 },
		{ "18446744073709551615ms", -ERANGE, 0 },
		{ "18446744073709551616ms", -ERANGE, 0 },
		{ "5124095576030432h", -ERANGE, 0 },
	};
	static const struct { const char *s; int r; uint64_t v; } sizes[] = {
		{ "7B", 0, 7 }, { "1KiB", 0, 1024 }, { "1MiB", 0, 1ULL << 20 }, { "1GiB", 0, 1ULL << 30 },
		{ "1TiB", 0, 1ULL << 40 }, { "2K", 0, 2048 }, { "3M", 0, 3ULL << 20 }, { "4G", 0, 4ULL << 30 },
		{ "1", -EINVAL, 0 }, { "1KB", -EINVAL, 0 }, { "1kib", -EINVAL, 0 }, { "1T", -EINVAL, 0 },
		{ "-1B", -EINVAL, 0 }, { "16777215TiB", 0, 16777215ULL << 40 }, { "16777216TiB", -ERANGE, 0 },
	};

	for (size_t i = 0; i < sizeof(durations) / sizeof(durations[0]); i++) {
		uint64_t v = 0;

		ck_assert_msg(parse_duration_ms(durations[i].s, &v) == durations[i].r, "%s", durations[i].s);
		if (durations[i].r == 0)
			ck_assert_msg(v == durations[i].v, "%s -> %llu", durations[i].s, (unsigned long long)v);
	}
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint64_t v = 0;

		ck_assert_msg(parse_size_bytes(sizes[i].s, &v) == sizes[i].r, "%s", sizes[i].s);
		if (sizes[i].r == 0)
			ck_assert_msg(v == sizes[i].v, "%s -> %llu", sizes[i].s, (unsigned long long)v);
	}
}
END_TEST

START_TEST(test_env_pattern_match)
{
	static const struct { const char *pat, *name; bool match; } cases[] = {
		{ "*_TOKEN", "GITHUB_TOKEN", true }, { "*_TOKEN", "TOKEN", false },
		{ "*_TOKEN", "_TOKEN", true }, { "*_TOKEN", "GITHUB_TOKENS", false },
		{ "LC_*", "LC_ALL", true }, { "LC_*", "LC_", true }, { "LC_*", "LANG", false },
		{ "A?C", "ABC", true }, { "A?C", "AC", false }, { "A?C", "ABBC", false },
		{ "*", "", true }, { "*", "ANY", true }, { "", "", true }, { "", "A", false },
		{ "a*b*c", "aXbYc", true }, { "a*b*c", "aXbY", false }, { "a*b*c", "abcbc", true },
		{ "*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false },
		{ "path", "PATH", false }, { "PATH", "PATH", true }, { "PATH", "PATHX", false },
		{ "[AB]", "A", false }, { "[AB]", "[AB]", true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(env_pattern_match(cases[i].pat, cases[i].name) == cases[i].match,
		              "%s vs %s", cases[i].pat, cases[i].name);
}
END_TEST

/* ---- canonical form and hash --------------------------------------------- */

static const char base_policy[] =
	"osb-policy 1\n"
	"root host-ro\n"
	"tmpfs /tmp\n"
	"tmpfs /run\n"
	"dev /dev\n"
	"proc /proc\n"
	"hide /root\n"
	"workspace rw\n"
	"network none\n"
	"env clear\n"
	"env pass PATH LANG\n"
	"env deny *_TOKEN AWS_*\n"
	"env set HOME=${WORKSPACE}\n"
	"env set A1=x\n"
	"env set A=y\n"
	"user sandbox 1000 1000\n"
	"hostname sandbox\n"
	"limit wall 600s\n"
	"limit output 1MiB\n";

START_TEST(test_canonical_form_is_exact)
{
	osb_policy *p = must_parse(base_policy);
	char *c = NULL;

	ck_assert_int_eq(policy_canonical(p, &c), 0);
	ck_assert_str_eq(c,
		"osb-policy 1\n"
		"root host-ro\n"
		"workspace rw\n"
		"network none\n"
		"env clear\n"
		"user sandbox 1000 1000\n"
		"identity auto\n"
		"seccomp osb-default-3\n"
		"landlock auto\n"
		"hostname sandbox\n"
		"limit wall 10m\n"
		"limit output 1MiB\n"
		"dev /dev\n"
		"proc /proc\n"
		"hide /root\n"
		"tmpfs /run\n"
		"tmpfs /tmp\n"
		"env pass LANG\n"
		"env pass PATH\n"
		"env deny *_TOKEN\n"
		"env deny AWS_*\n"
		"env set A=y\n"
		"env set A1=x\n"
		"env set HOME=${WORKSPACE}\n");
	free(c);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_canonical_form_parses_back_to_same_policy)
{
	osb_policy *p = must_parse(base_policy), *q;
	char *c1 = NULL, *c2 = NULL;

	ck_assert_int_eq(policy_canonical(p, &c1), 0);
	q = must_parse(c1);
	ck_assert_int_eq(policy_canonical(q, &c2), 0);
	ck_assert_str_eq(c1, c2);
	free(c1);
	free(c2);
	osb_policy_free(p);
	osb_policy_free(q);
}
END_TEST

START_TEST(test_explain_shows_origin_of_every_rule)
{
	osb_policy *p = must_parse("osb-policy 1\n\nnetwork host\ntmpfs /tmp\nlimit wall 90s\n");
	char *e = osb_policy_explain(p, 0);

	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e,
		"osb-policy 1\n"
		"root none  # default\n"
		"workspace none  # default\n"
		"network host  # t.policy:3\n"
		"env clear  # default\n"
		"user sandbox 1000 1000  # default\n"
		"identity auto  # default\n"
		"seccomp osb-default-3  # default\n"
		"landlock auto  # default\n"
		"hostname sandbox  # default\n"
		"limit wall 90s  # t.policy:5\n"
		"limit output 1MiB  # default\n"
		"tmpfs /tmp  # t.policy:4\n");
	free(e);
	ck_assert_int_eq(osb_policy_set_network(p, 0, NULL), 0);
	e = osb_policy_explain(p, 0);
	ck_assert_ptr_nonnull(strstr(e, "\nnetwork none  # api\n"));
	free(e);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_hash_of_default_policy_is_pinned)
{
	char h[OSB_POLICY_HASH_LEN];
	uint8_t d[SHA256_DIGEST_LEN];
	static const char canonical[] =
		"osb-policy 1\nroot none\nworkspace none\nnetwork none\nenv clear\n"
		"user sandbox 1000 1000\nidentity auto\nseccomp osb-default-3\nlandlock auto\n"
		"hostname sandbox\nlimit output 1MiB\n";
	char want[OSB_POLICY_HASH_LEN] = "sha256:";

	/* The hash is SHA-256 of the canonical text; pinning it means a change
	 * of the canonical form (which changes every approved hash) is a
	 * deliberate, visible decision. (It changed when the default seccomp
	 * group became osb-default-2, and again with osb-default-3: the filter,
	 * so the meaning, changed.) */
	hash_text("osb-policy 1\n", h);
	sha256(canonical, strlen(canonical), d);
	for (size_t i = 0; i < sizeof(d); i++)
		snprintf(want + 7 + 2 * i, 3, "%02x", d[i]);
	ck_assert_str_eq(h, want);
	ck_assert_str_eq(h, "sha256:e58352f109615549deac4cf15243e00a545a9be759ef378a04bfca1553b9588f");
}
END_TEST

START_TEST(test_hash_ignores_layout_comments_and_order)
{
	char h0[OSB_POLICY_HASH_LEN], h1[OSB_POLICY_HASH_LEN];

	hash_text(base_policy, h0);
	hash_text(
		"# reformatted, commented, reordered\n"
		"\n"
		"   osb-policy\t1   # version\n"
		"limit output 1024KiB\n"
		"env set A=y\n"
		"hostname   sandbox\n"
		"env set HOME=${WORKSPACE}\n"
		"\thide /root\n"
		"env deny AWS_*\n"
		"env deny *_TOKEN\n"
		"env deny AWS_*\n"
		"tmpfs /run\n"
		"proc /proc\n"
		"user sandbox 1000 1000 # same user\n"
		"dev /dev\n"
		"env pass LANG\n"
		"env pass PATH LANG\n"
		"tmpfs /tmp\n"
		"limit wall 10m\n"
		"env set A1=x\n"
		"network none\n"
		"workspace rw\n"
		"root host-ro\n"
		"env clear\n", h1);
	ck_assert_str_eq(h0, h1);

	/* Spelling out a default is not a semantic change. */
	hash_text("osb-policy 1\n", h0);
	hash_text("osb-policy 1\nroot none\nnetwork none\nworkspace none\nenv clear\n"
	          "user sandbox 1000 1000\nhostname sandbox\nlimit output 1M\n"
	          "seccomp default\nlandlock auto\n", h1);
	ck_assert_str_eq(h0, h1);
}
END_TEST

START_TEST(test_hash_ignores_include_layout)
{
	char h0[OSB_POLICY_HASH_LEN], h1[OSB_POLICY_HASH_LEN];
	osb_policy *p;

	hash_text(base_policy, h0);
	put("top.policy",
	    "osb-policy 1\n"
	    "include ./mounts\n"
	    "workspace rw\n"
	    "include ./env\n"
	    "limit wall 600s\n"
	    "limit output 1MiB\n"
	    "hostname sandbox\n"
	    "network none\n");
	put("mounts.policy",
	    "osb-policy 1\nroot host-ro\ntmpfs /tmp\ntmpfs /run\ndev /dev\nproc /proc\nhide /root\n"
	    "network host   # overridden by top\n");
	put("env.policy",
	    "osb-policy 1\nenv clear\nenv pass PATH LANG\nenv deny *_TOKEN AWS_*\n"
	    "env set HOME=${WORKSPACE}\nenv set A1=x\nenv set A=y\nuser sandbox 1000 1000\n");
	p = must_load("top.policy");
	hash_of(p, h1);
	osb_policy_free(p);
	ck_assert_str_eq(h0, h1);
}
END_TEST

/* BASE with line FROM replaced by TO (FROM "" appends TO). */
static void replace_line(const char *base, const char *from, const char *to, char *out, size_t size)
{
	const char *at = *from ? strstr(base, from) : base + strlen(base);

	ck_assert_msg(at != NULL, "no line %s", from);
	snprintf(out, size, "%.*s%s%s", (int)(at - base), base, to, at + strlen(from));
}

START_TEST(test_hash_changes_with_every_semantic_change)
{
	static const struct { const char *from, *to; } changes[] = {
		{ "root host-ro\n", "root none\n" },
		{ "workspace rw\n", "workspace ro\n" },
		{ "workspace rw\n", "workspace rw /w\n" },
		{ "network none\n", "network host\n" },
		{ "env clear\n", "env inherit\n" },
		{ "user sandbox 1000 1000\n", "user sandbox 1001 1000\n" },
		{ "user sandbox 1000 1000\n", "user sandbox 1000 1001\n" },
		{ "user sandbox 1000 1000\n", "user other 1000 1000\n" },
		{ "hostname sandbox\n", "hostname other\n" },
		{ "limit wall 600s\n", "limit wall 601s\n" },
		{ "limit wall 600s\n", "limit wall unlimited\n" },
		{ "limit wall 600s\n", "" },
		{ "limit output 1MiB\n", "limit output 2MiB\n" },
		{ "", "limit cputime 10s\n" },
		{ "", "limit cpu 50%\n" },
		{ "", "limit memory 1GiB\n" },
		{ "", "limit memory 1GiB best-effort\n" },
		{ "", "limit pids 50\n" },
		{ "tmpfs /tmp\n", "tmpfs /tmp size=1MiB\n" },
		{ "", "limit as 1GiB\n" },
		{ "", "limit nofile 10\n" },
		{ "", "limit fsize 1MiB\n" },
		{ "", "limit nproc 10\n" },
		{ "", "tmpfs /var\n" },
		{ "tmpfs /tmp\n", "ro-bind /tmp\n" },
		{ "tmpfs /tmp\n", "hide /tmp\n" },
		{ "hide /root\n", "" },
		{ "env pass PATH LANG\n", "env pass PATH LANG TERM\n" },
		{ "", "env deny TERM\n" },
		{ "env set HOME=${WORKSPACE}\n", "env set HOME=/tmp\n" },
		{ "env set A=y\n", "env set A=y z\n" },
		{ "", "env set NEW=1\n" },
		{ "", "identity userns\n" },
		{ "", "identity root\n" },
		{ "", "seccomp none\n" },
		{ "", "landlock required\n" },
		{ "", "landlock off\n" },
		{ "", "seccomp deny uname\n" },
		{ "", "seccomp deny uname errno=EACCES\n" },
		{ "", "seccomp deny sethostname\n" },
		{ "", "seccomp allow ptrace\n" },
		{ "", "seccomp allow uname\n" },
		{ "", "write-root /data\n" },
		{ "", "write-root /srv\n" },
		{ "", "write-root /data\nwrite /data/x\n" },
		{ "", "write-root /data\nwrite /data/y\n" },
		{ "", "write-root /data\nwrite /data/x\nread-only /data/x/.git\n" },
		{ "", "read-only workspace:.git\n" },
		{ "", "read-only workspace:.git/hooks\n" },
	};
	enum { N = sizeof(changes) / sizeof(changes[0]) };
	char hashes[N + 1][OSB_POLICY_HASH_LEN];

	hash_text(base_policy, hashes[N]);
	for (size_t i = 0; i < N; i++) {
		char text[2048];

		replace_line(base_policy, changes[i].from, changes[i].to, text, sizeof(text));
		hash_text(text, hashes[i]);
	}
	for (size_t i = 0; i <= N; i++)
		for (size_t j = i + 1; j <= N; j++)
			ck_assert_msg(strcmp(hashes[i], hashes[j]) != 0, "same hash: change %zu and %zu", i, j);
}
END_TEST

/* ---- caller adjustments -------------------------------------------------- */

START_TEST(test_api_workspace_must_be_absolute_and_keeps_hash)
{
	osb_policy *p = must_parse(base_policy);
	osb_error err = { 0 };
	char h0[OSB_POLICY_HASH_LEN], h1[OSB_POLICY_HASH_LEN];

	hash_of(p, h0);
	ck_assert_int_eq(osb_policy_set_workspace(p, "rel/dir", &err), -OSB_E_USAGE);
	ck_assert_int_eq(err.code, OSB_E_USAGE);
	ck_assert_str_eq(err.message, "workspace: path must be absolute: \"rel/dir\" (pass a canonical "
	                 "absolute path, e.g. from realpath(3))");
	ck_assert_int_eq(osb_policy_set_workspace(p, "/srv/a/../b", &err), -OSB_E_USAGE);
	ck_assert_int_eq(osb_policy_set_workspace(p, "/srv/ws/", &err), -OSB_E_USAGE);
	ck_assert_int_eq(osb_policy_set_workspace(p, NULL, &err), -OSB_E_USAGE);
	ck_assert_ptr_null(p->ws_path);
	ck_assert_int_eq(osb_policy_set_workspace(p, "/srv/ws[1]", &err), 0);
	ck_assert_int_eq(osb_policy_set_workspace(p, "/home/u/My Project", &err), 0);
	ck_assert_int_eq(osb_policy_set_workspace(p, "/srv/ws", &err), 0);
	ck_assert_str_eq(p->ws_path, "/srv/ws");
	expect_origin(p->ws_path_o, "api", 0, 0);
	ck_assert_int_eq(p->ws_mode, WS_RW);
	hash_of(p, h1);
	ck_assert_str_eq(h0, h1);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_api_add_readonly_records_origin_and_changes_hash)
{
	osb_policy *p = must_parse_with(base_policy, "read-root /opt\n");
	osb_error err = { 0 };
	char h0[OSB_POLICY_HASH_LEN], h1[OSB_POLICY_HASH_LEN];
	size_t n = p->n_mounts;

	hash_of(p, h0);
	ck_assert_int_eq(osb_policy_add_readonly(p, "/opt/data", &err), 0);
	ck_assert_uint_eq(p->n_mounts, n + 1);
	ck_assert_int_eq(p->mounts[n].kind, MNT_RO_BIND);
	ck_assert_str_eq(p->mounts[n].path, "/opt/data");
	expect_origin(p->mounts[n].o, "api", 0, 0);
	hash_of(p, h1);
	ck_assert_str_ne(h0, h1);
	ck_assert_int_eq(osb_policy_add_readonly(p, "/opt/data", &err), 0);
	ck_assert_uint_eq(p->n_mounts, n + 1);
	ck_assert_int_eq(osb_policy_add_readonly(p, "/tmp", &err), -OSB_E_POLICY);
	ck_assert_str_eq(err.message, "read-only path \"/tmp\" refused: the policy already has "
	                 "\"tmpfs /tmp\" (t.policy:3)");
	ck_assert_int_eq(osb_policy_add_readonly(p, "opt", &err), -OSB_E_USAGE);
	ck_assert_int_eq(osb_policy_add_readonly(p, "/opt/my data", &err), -OSB_E_USAGE);
	ck_assert_str_eq(err.message, "read-only path: path contains a space or tab, which a policy "
	                 "line cannot hold: \"/opt/my data\"");
	ck_assert_int_eq(osb_policy_add_readonly(p, "/opt/a\nroot host-ro", &err), -OSB_E_USAGE);
	ck_assert_uint_eq(p->n_mounts, n + 1);
	osb_policy_free(p);
}
END_TEST

/* Finding: run --ro /root exposed /root, run --net reached loopback
 * services under "network none"; a request asking the same was refused. The
 * API (and so the CLI) now obeys the request's rules. */
START_TEST(test_api_widening_needs_a_caller_grant)
{
	osb_policy *p = must_parse("osb-policy 1\nnetwork none\nread-root /srv/data\n");
	osb_error err = { 0 };
	char h0[OSB_POLICY_HASH_LEN], h1[OSB_POLICY_HASH_LEN];

	hash_of(p, h0);
	ck_assert_int_eq(osb_policy_set_network(p, 1, &err), -OSB_E_POLICY);
	ck_assert_str_eq(err.message, "the host network is refused: the policy t.policy has \"network "
	                 "none\" (t.policy:2) and does not grant callers the host network (a policy "
	                 "grants it with \"allow-caller network\")");
	ck_assert_int_eq(osb_policy_add_readonly(p, "/root", &err), -OSB_E_POLICY);
	ck_assert_str_eq(err.message, "read-only path \"/root\" refused: not beneath a declared "
	                 "read-root (the policy t.policy declares: /srv/data)");
	ck_assert_int_eq(osb_policy_add_readonly(p, "/srv/data", &err), -OSB_E_POLICY);
	ck_assert_int_eq(osb_policy_set_network(p, 0, &err), 0);
	hash_of(p, h1);
	ck_assert_str_eq(h0, h1);
	ck_assert_int_eq(osb_policy_add_readonly(p, "/srv/data/set1", &err), 0);
	osb_policy_free(p);

	p = must_parse("osb-policy 1\n");
	ck_assert_int_eq(osb_policy_add_readonly(p, "/srv/x", &err), -OSB_E_POLICY);
	ck_assert_str_eq(err.message, "read-only path \"/srv/x\" refused: not beneath a declared "
	                 "read-root (the policy t.policy declares none; a policy grants read-only "
	                 "paths with \"read-root DIR\")");
	osb_policy_free(p);
}
END_TEST

START_TEST(test_allow_caller_and_read_root_in_canonical_form)
{
	osb_policy *p = must_parse("osb-policy 1\nread-root /srv/b\nallow-caller network\n"
	                           "read-root /srv/a\nread-root /srv/a\n");
	char *e = osb_policy_explain(p, 0), h0[OSB_POLICY_HASH_LEN], h1[OSB_POLICY_HASH_LEN];

	ck_assert_ptr_nonnull(e);
	ck_assert_ptr_nonnull(strstr(e, "\nnetwork none  # default\nallow-caller network  # "
	                                "t.policy:3\n"));
	ck_assert_ptr_nonnull(strstr(e, "\nread-root /srv/a  # t.policy:4\nread-root /srv/b  # "
	                                "t.policy:2\n"));
	free(e);
	hash_of(p, h0);
	osb_policy_free(p);
	hash_text("osb-policy 1\nread-root /srv/a\nread-root /srv/b\n", h1);
	ck_assert_str_ne(h0, h1);
	hash_text("osb-policy 1\nallow-caller network\nread-root /srv/a\nread-root /srv/b\n", h1);
	ck_assert_str_eq(h0, h1);
	/* An includer's grant covers what it includes, and vice versa. */
	put("b.policy", "osb-policy 1\nallow-caller network\n");
	put("a.policy", "osb-policy 1\ninclude ./b\nnetwork none\n");
	p = must_load("a.policy");
	ck_assert(p->caller_net.set);
	ck_assert_int_eq(osb_policy_set_network(p, 1, NULL), 0);
	ck_assert_int_eq(p->net, NET_HOST);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_api_network_and_wall_record_origin)
{
	osb_policy *p = must_parse("osb-policy 1\nlimit wall 600s\nallow-caller network\n");
	osb_error err = { 0 };
	char h0[OSB_POLICY_HASH_LEN], h1[OSB_POLICY_HASH_LEN];

	hash_of(p, h0);
	ck_assert_int_eq(osb_policy_set_network(p, 1, &err), 0);
	ck_assert_int_eq(p->net, NET_HOST);
	expect_origin(p->net_set.o, "api", 0, 0);
	hash_of(p, h1);
	ck_assert_str_ne(h0, h1);
	ck_assert_int_eq(osb_policy_set_network(p, 2, &err), -OSB_E_USAGE);

	/* Wall only goes down; asking for more is refused, never quietly cut. */
	ck_assert_int_eq(osb_policy_set_wall_ms(p, 900000, &err), -OSB_E_POLICY);
	ck_assert_str_eq(err.stage, "policy");
	ck_assert_str_eq(err.message, "timeout 15m would raise the policy's \"limit wall 10m\" "
	                              "(t.policy:2); a caller may only lower the wall limit");
	ck_assert_uint_eq(p->limits[LIM_WALL], 600000);
	expect_origin(p->limit_set[LIM_WALL].o, "t.policy", 2, 0);
	ck_assert_int_eq(osb_policy_set_wall_ms(p, 600000, &err), 0);
	ck_assert_uint_eq(p->limits[LIM_WALL], 600000);
	ck_assert_int_eq(osb_policy_set_wall_ms(p, 1500, &err), 0);
	ck_assert_uint_eq(p->limits[LIM_WALL], 1500);
	expect_origin(p->limit_set[LIM_WALL].o, "api", 0, 0);
	ck_assert_int_eq(osb_policy_set_wall_ms(p, 0, &err), -OSB_E_USAGE);
	ck_assert_uint_eq(p->limits[LIM_WALL], 1500);
	osb_policy_free(p);

	/* Without a wall limit, the caller's becomes the limit. */
	p = must_parse("osb-policy 1\n");
	ck_assert_int_eq(osb_policy_set_wall_ms(p, 5000, &err), 0);
	ck_assert(p->limit_set[LIM_WALL].set);
	ck_assert_uint_eq(p->limits[LIM_WALL], 5000);
	osb_policy_free(p);
}
END_TEST

/* ---- write paths ---------------------------------------------------------- */

START_TEST(test_path_beneath_compares_whole_components)
{
	static const struct { const char *root, *path; bool beneath; } cases[] = {
		{ "/data", "/data/x", true }, { "/data", "/data/x/y", true },
		{ "/data", "/database", false }, { "/data", "/database/x", false },
		{ "/data", "/data", false }, { "/data", "/dat", false }, { "/data", "/", false },
		{ "/data/x", "/data/xy", false }, { "/data/x", "/data", false },
		{ "/", "/x", true }, { "/", "/", false }, { "/a/b", "/a/b/c/d", true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(policy_path_beneath(cases[i].root, cases[i].path) == cases[i].beneath,
		              "%s beneath %s", cases[i].path, cases[i].root);
}
END_TEST

START_TEST(test_write_rules_set_fields_with_origin)
{
	osb_policy *p = must_parse(
		"osb-policy 1\n"
		"write /srv/jobs/42          # before its root: checked once all is read\n"
		"write-root /srv/jobs\n"
		"write-root /data\n"
		"write-root /data\n"
		"write-root /data/nested\n"
		"write /data/nested/cache\n"
		"read-only /data/nested/cache/.git\n"
		"read-only /data/shared\n"
		"read-only workspace:.git/hooks\n"
		"read-only workspace:.bashrc\n");
	char *c = NULL;

	ck_assert_uint_eq(p->n_write_roots, 3);
	ck_assert_str_eq(p->write_roots[0].s, "/srv/jobs");
	expect_origin(p->write_roots[0].o, "t.policy", 3, 0);
	ck_assert_str_eq(p->write_roots[1].s, "/data");
	expect_origin(p->write_roots[1].o, "t.policy", 4, 0);
	ck_assert_str_eq(p->write_roots[2].s, "/data/nested");
	ck_assert_uint_eq(p->n_writes, 2);
	ck_assert_str_eq(p->writes[0].s, "/srv/jobs/42");
	expect_origin(p->writes[0].o, "t.policy", 2, 0);
	ck_assert_str_eq(p->writes[1].s, "/data/nested/cache");
	ck_assert_uint_eq(p->n_read_only, 4);
	ck_assert_str_eq(p->read_only[0].s, "/data/nested/cache/.git");
	ck_assert_str_eq(p->read_only[2].s, "workspace:.git/hooks");
	expect_origin(p->read_only[3].o, "t.policy", 11, 0);
	ck_assert_int_eq(policy_canonical(p, &c), 0);
	ck_assert_ptr_nonnull(strstr(c,
		"limit output 1MiB\n"
		"write-root /data\n"
		"write-root /data/nested\n"
		"write-root /srv/jobs\n"
		"write /data/nested/cache\n"
		"write /srv/jobs/42\n"
		"read-only /data/nested/cache/.git\n"
		"read-only /data/shared\n"
		"read-only workspace:.bashrc\n"
		"read-only workspace:.git/hooks\n"));
	free(c);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_write_root_declared_in_include_covers_includer)
{
	char b[PATH_MAX], want[MSG_MAX];
	osb_policy *p;

	put("a.policy", "osb-policy 1\nwrite /srv/jobs/1\ninclude ./b\nread-only /srv/jobs/1/.git\n");
	put("b.policy", "osb-policy 1\nwrite-root /srv/jobs\n");
	p = must_load("a.policy");
	ck_assert_uint_eq(p->n_writes, 1);
	expect_origin(p->write_roots[0].o, in_dir(b, "b.policy"), 2, 1);
	osb_policy_free(p);

	/* A write in an included file is checked like any other, at its line. */
	put("a.policy", "osb-policy 1\ninclude ./b\nwrite-root /data\n");
	put("b.policy", "osb-policy 1\n\nwrite   /database/x\n");
	snprintf(want, sizeof(want), "%s/b.policy:3:9: write path \"/database/x\" is not beneath a "
	         "declared write-root (declared: /data)", dir);
	expect_load_error("a.policy", want);
}
END_TEST

/* ---- seccomp and landlock --------------------------------------------------- */

START_TEST(test_seccomp_rules_set_fields_with_origin)
{
	osb_policy *p = must_parse(
		"osb-policy 1\n"
		"seccomp default\n"
		"seccomp deny uname sethostname errno=EACCES\n"
		"seccomp deny swapon\n"
		"seccomp deny setdomainname errno=4000\n"
		"seccomp deny acct errno=EWOULDBLOCK\n"
		"seccomp deny syslog errno=95\n"
		"seccomp allow ptrace bpf\n"
		"landlock required\n");
	static const struct { const char *name; bool allow; int err; unsigned line, col; } want[] = {
		{ "uname", false, EACCES, 3, 14 }, { "sethostname", false, EACCES, 3, 20 },
		{ "swapon", false, EPERM, 4, 14 }, { "setdomainname", false, 4000, 5, 14 },
		{ "acct", false, EAGAIN, 6, 14 }, { "syslog", false, EOPNOTSUPP, 7, 14 },
		{ "ptrace", true, 0, 8, 15 }, { "bpf", true, 0, 8, 22 },
	};
	char *c = NULL;

	ck_assert_int_eq(p->sc_mode, SC_DEFAULT);
	expect_origin(p->sc_mode_set.o, "t.policy", 2, 0);
	ck_assert_int_eq(p->landlock, LL_REQUIRED);
	expect_origin(p->landlock_set.o, "t.policy", 9, 0);
	ck_assert_uint_eq(p->n_sc_rules, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < p->n_sc_rules; i++) {
		ck_assert_str_eq(p->sc_rules[i].name, want[i].name);
		ck_assert_int_eq(p->sc_rules[i].allow, want[i].allow);
		ck_assert_int_eq(p->sc_rules[i].err, want[i].err);
		expect_origin(p->sc_rules[i].o, "t.policy", want[i].line, 0);
	}
	ck_assert_int_eq(policy_canonical(p, &c), 0);
	ck_assert_ptr_nonnull(strstr(c, "identity auto\nseccomp osb-default-3\nlandlock required\n"));
	ck_assert_ptr_nonnull(strstr(c,
		"limit output 1MiB\n"
		"seccomp deny acct errno=EAGAIN\n"
		"seccomp allow bpf\n"
		"seccomp allow ptrace\n"
		"seccomp deny setdomainname errno=4000\n"
		"seccomp deny sethostname errno=EACCES\n"
		"seccomp deny swapon errno=EPERM\n"
		"seccomp deny syslog errno=EOPNOTSUPP\n"
		"seccomp deny uname errno=EACCES\n"));
	free(c);
	osb_policy_free(p);

	p = must_parse("osb-policy 1\nseccomp none\nseccomp allow ptrace\nlandlock off\n");
	ck_assert_int_eq(p->sc_mode, SC_NONE);
	ck_assert_int_eq(p->landlock, LL_OFF);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_seccomp_errno_spellings_hash_alike)
{
	char h0[OSB_POLICY_HASH_LEN], h1[OSB_POLICY_HASH_LEN], h2[OSB_POLICY_HASH_LEN];

	hash_text("osb-policy 1\nseccomp deny uname\n", h0);
	hash_text("osb-policy 1\nseccomp deny uname errno=EPERM\n", h1);
	hash_text("osb-policy 1\nseccomp deny uname errno=1\n", h2);
	ck_assert_str_eq(h0, h1);
	ck_assert_str_eq(h0, h2);
	hash_text("osb-policy 1\nseccomp deny uname errno=ENOTSUP\n", h1);
	hash_text("osb-policy 1\nseccomp deny uname errno=EOPNOTSUPP\n", h2);
	ck_assert_str_eq(h1, h2);
	ck_assert_str_ne(h0, h1);
}
END_TEST

START_TEST(test_unknown_syscall_without_suggestion_names_libseccomp)
{
	const struct scmp_version *v = seccomp_version();
	char want[MSG_MAX];
	osb_error err;

	snprintf(want, sizeof(want), "t.policy:3:20: unknown system call \"frobnicate_widgets\" "
	         "(libseccomp %u.%u.%u does not know it; check the spelling)", v->major, v->minor,
	         v->micro);
	ck_assert_ptr_null(parse("osb-policy 1\n\nseccomp deny uname frobnicate_widgets bpf\n", &err));
	ck_assert_int_eq(err.code, OSB_E_POLICY);
	ck_assert_str_eq(err.message, want);
	/* Linux 6.15's open_tree_attr is newer than libseccomp 2.5.4. */
	if (seccomp_syscall_resolve_name("open_tree_attr") == __NR_SCMP_ERROR) {
		ck_assert_ptr_null(parse("osb-policy 1\nseccomp deny open_tree_attr\n", &err));
		snprintf(want, sizeof(want), "t.policy:2:14: unknown system call \"open_tree_attr\" "
		         "(libseccomp %u.%u.%u does not know it; check the spelling)", v->major,
		         v->minor, v->micro);
		ck_assert_str_eq(err.message, want);
	}
}
END_TEST

START_TEST(test_seccomp_rule_overridden_by_includer)
{
	char a[PATH_MAX], want[MSG_MAX];
	osb_policy *p;

	put("a.policy", "osb-policy 1\ninclude ./b\nseccomp allow uname\n");
	put("b.policy", "osb-policy 1\nseccomp deny uname bpf errno=EACCES\n");
	p = must_load("a.policy");
	ck_assert_uint_eq(p->n_sc_rules, 2);
	ck_assert_str_eq(p->sc_rules[0].name, "uname");
	ck_assert(p->sc_rules[0].allow);
	expect_origin(p->sc_rules[0].o, in_dir(a, "a.policy"), 3, 0);
	ck_assert(!p->sc_rules[1].allow);
	ck_assert_int_eq(p->sc_rules[1].err, EACCES);
	osb_policy_free(p);

	/* Two siblings disagreeing about one name, with nobody to settle it. */
	put("a.policy", "osb-policy 1\ninclude ./b\ninclude ./c\n");
	put("c.policy", "osb-policy 1\nseccomp allow   bpf\n");
	snprintf(want, sizeof(want), "%s/a.policy:3:9: \"seccomp allow bpf\" of %s/c.policy:2 conflicts "
	         "with %s/b.policy:2 (both included at depth 1; set \"seccomp allow bpf\" in this file "
	         "to choose)", dir, dir, dir);
	expect_load_error("a.policy", want);

	/* "seccomp none" above a deny it includes cannot drop it silently. */
	put("a.policy", "osb-policy 1\ninclude ./b\nseccomp none\n");
	snprintf(want, sizeof(want), "%s/b.policy:2:14: \"seccomp deny uname\" cannot take effect: "
	         "\"seccomp none\" (%s/a.policy:3) loads no filter", dir, dir);
	expect_load_error("a.policy", want);
}
END_TEST

START_TEST(test_new_directives_parse_back_and_explain_origins)
{
	osb_policy *p = must_parse(
		"osb-policy 1\n"
		"write-root /data\n"
		"write /data/x\n"
		"read-only /data/x/.git\n"
		"read-only workspace:.git\n"
		"seccomp deny uname errno=ENOSYS\n"
		"seccomp allow ptrace\n"
		"landlock off\n"), *q;
	char *c1 = NULL, *c2 = NULL, *e;

	ck_assert_int_eq(osb_policy_add_writable(p, "/data/y", NULL), 0);
	ck_assert_int_eq(policy_canonical(p, &c1), 0);
	q = must_parse(c1);
	ck_assert_int_eq(policy_canonical(q, &c2), 0);
	ck_assert_str_eq(c1, c2);
	e = osb_policy_explain(p, 0);
	ck_assert_ptr_nonnull(e);
	ck_assert_ptr_nonnull(strstr(e,
		"identity auto  # default\n"
		"seccomp osb-default-3  # default\n"
		"landlock off  # t.policy:8\n"));
	ck_assert_ptr_nonnull(strstr(e,
		"write-root /data  # t.policy:2\n"
		"write /data/x  # t.policy:3\n"
		"write /data/y  # api\n"
		"read-only /data/x/.git  # t.policy:4\n"
		"read-only workspace:.git  # t.policy:5\n"
		"seccomp allow ptrace  # t.policy:7\n"
		"seccomp deny uname errno=ENOSYS  # t.policy:6\n"));
	free(e);
	free(c1);
	free(c2);
	osb_policy_free(p);
	osb_policy_free(q);
}
END_TEST

/* ---- caller grants and requests ------------------------------------------- */

START_TEST(test_api_add_writable_only_beneath_declared_roots)
{
	osb_policy *p = must_parse("osb-policy 1\nwrite-root /data\nwrite-root /srv/jobs\n"
	                           "write /data/x\nread-only /data/x/.git\ntmpfs /data/tmp\n");
	osb_error err = { 0 };
	char h0[OSB_POLICY_HASH_LEN], h1[OSB_POLICY_HASH_LEN];

	hash_of(p, h0);
	ck_assert_int_eq(osb_policy_add_writable(p, "/database/x", &err), -OSB_E_POLICY);
	ck_assert_int_eq(err.code, OSB_E_POLICY);
	ck_assert_str_eq(err.stage, "policy");
	ck_assert_str_eq(err.message, "add_writable: \"/database/x\" is not beneath a declared "
	                 "write-root (declared: /data, /srv/jobs)");
	ck_assert_int_eq(osb_policy_add_writable(p, "/data", &err), -OSB_E_POLICY);
	ck_assert_str_eq(err.message, "add_writable: \"/data\" is a write-root itself (t.policy:2); "
	                 "only paths beneath a root may be granted");
	ck_assert_int_eq(osb_policy_add_writable(p, "/data/x/.git/hooks", &err), -OSB_E_POLICY);
	ck_assert_str_eq(err.message, "add_writable: \"/data/x/.git/hooks\" is under \"read-only "
	                 "/data/x/.git\" (t.policy:5), which would cover it");
	ck_assert_int_eq(osb_policy_add_writable(p, "/data/x/.git", &err), -OSB_E_POLICY);
	ck_assert_int_eq(osb_policy_add_writable(p, "/data/tmp", &err), -OSB_E_POLICY);
	ck_assert_str_eq(err.message, "add_writable: \"/data/tmp\" already has the rule \"tmpfs "
	                 "/data/tmp\" (t.policy:6); a path takes one rule");
	ck_assert_int_eq(osb_policy_add_writable(p, "/data/../etc", &err), -OSB_E_USAGE);
	ck_assert_str_eq(err.message, "add_writable: path must not contain \"..\": \"/data/../etc\" "
	                 "(pass a canonical absolute path, e.g. from realpath(3))");
	ck_assert_int_eq(osb_policy_add_writable(p, "data/y", &err), -OSB_E_USAGE);
	ck_assert_int_eq(osb_policy_add_writable(p, "", &err), -OSB_E_USAGE);
	ck_assert_int_eq(osb_policy_add_writable(p, "/data/y/", &err), -OSB_E_USAGE);
	ck_assert_int_eq(osb_policy_add_writable(p, "/data/*", &err), -OSB_E_USAGE);
	ck_assert_int_eq(osb_policy_add_writable(p, NULL, &err), -OSB_E_USAGE);
	ck_assert_int_eq(osb_policy_add_writable(NULL, "/data/y", &err), -OSB_E_USAGE);
	{
		char long_path[PATH_MAX + 8];

		memset(long_path, 'a', sizeof(long_path) - 1);
		long_path[0] = '/';
		long_path[sizeof(long_path) - 1] = '\0';
		ck_assert_int_eq(osb_policy_add_writable(p, long_path, &err), -OSB_E_USAGE);
		ck_assert_int_eq(err.sys_errno, ENAMETOOLONG);
	}
	ck_assert_uint_eq(p->n_writes, 1);
	hash_of(p, h1);
	ck_assert_str_eq(h0, h1);

	ck_assert_int_eq(osb_policy_add_writable(p, "/srv/jobs/7", &err), 0);
	ck_assert_uint_eq(p->n_writes, 2);
	ck_assert_str_eq(p->writes[1].s, "/srv/jobs/7");
	expect_origin(p->writes[1].o, "api", 0, 0);
	ck_assert_int_eq(osb_policy_add_writable(p, "/srv/jobs/7", &err), 0);
	ck_assert_int_eq(osb_policy_add_writable(p, "/data/x", &err), 0);
	ck_assert_uint_eq(p->n_writes, 2);
	hash_of(p, h1);
	ck_assert_str_ne(h0, h1);
	ck_assert_int_eq(osb_policy_add_readonly(p, "/srv/jobs/7", &err), -OSB_E_POLICY);
	ck_assert_str_eq(err.message, "read-only path \"/srv/jobs/7\" refused: the policy already has "
	                 "\"write /srv/jobs/7\" (api)");
	osb_policy_free(p);

	p = must_parse("osb-policy 1\n");
	ck_assert_int_eq(osb_policy_add_writable(p, "/data/x", &err), -OSB_E_POLICY);
	ck_assert_str_eq(err.message, "add_writable: \"/data/x\" is not beneath a declared write-root "
	                 "(the policy declares none; add \"write-root DIR\" for a directory above it)");
	osb_policy_free(p);
}
END_TEST

/* Baselines for requests: a permissive one (workspace rw, host network,
 * inherited environment) and a strict one (everything else default). */
static const char open_base[] =
	"osb-policy 1\n"
	"workspace rw\n"
	"network host\n"
	"env inherit\n"
	"env pass PATH\n"
	"env deny *_TOKEN AWS_*\n"
	"env set HOME=${WORKSPACE}\n"
	"write-root /data\n"
	"write-root /srv/jobs\n";

static const char limits_base[] =
	"osb-policy 1\n"
	"limit memory 2GiB\n"
	"limit pids 100\n"
	"limit cpu 50%\n"
	"limit wall 1h\n";

/* A request lowers limits (memory, pids, cpu, the wall clock) and may set
 * one the policy leaves unlimited; the changes are the api's. */
START_TEST(test_request_lowers_limits)
{
	osb_policy *p = must_parse(limits_base);
	osb_error err = { 0 };

	ck_assert_int_eq(osb_policy_apply_json(p, "{\"limits\": {\"memory\": \"512MiB\", "
	                                          "\"pids\": \"100\", \"cpu\": \"0.25\", "
	                                          "\"nofile\": \"64\"}}", &err), 0);
	ck_assert_uint_eq(p->limits[LIM_MEMORY], 512ULL << 20);
	ck_assert(policy_origin_is_api(&p->limit_set[LIM_MEMORY].o));
	ck_assert_uint_eq(p->limits[LIM_PIDS], 100);
	ck_assert(!policy_origin_is_api(&p->limit_set[LIM_PIDS].o));   /* unchanged */
	ck_assert_uint_eq(p->limits[LIM_CPU], 250);
	ck_assert_uint_eq(p->limits[LIM_NOFILE], 64);
	osb_policy_free(p);
}
END_TEST

static const char closed_base[] =
	"osb-policy 1\n"
	"workspace ro\n"
	"write-root /data\n"
	"env deny *_TOKEN\n";

/* The request is refused with MSG, and the policy is exactly as before. */
static void expect_request_refused(const char *base, const char *json, const char *msg)
{
	osb_policy *p = must_parse(base);
	osb_error err = { 0 };
	char *before = osb_policy_explain(p, 0), *after;

	ck_assert_msg(osb_policy_apply_json(p, json, &err) == -OSB_E_POLICY,
	              "%s accepted, expected: %s", json, msg);
	ck_assert_int_eq(err.code, OSB_E_POLICY);
	ck_assert_str_eq(err.stage, "policy");
	ck_assert_msg(strcmp(err.message, msg) == 0, "%s:\n got: %s\nwant: %s", json, err.message, msg);
	after = osb_policy_explain(p, 0);
	ck_assert_str_eq(before, after);
	ck_assert_ptr_null(p->ws_path);
	free(before);
	free(after);
	osb_policy_free(p);
}

START_TEST(test_workspace_overlay_parses_with_size_and_dest)
{
	static const struct {
		const char *line, *msg;
	} bad[] = {
		{ "workspace rw size=1M", "t.policy:2:14: unexpected argument \"size=1M\" (size=SIZE is "
		  "only for \"workspace overlay\")" },
		{ "workspace overlay size=0", "t.policy:2:19: invalid workspace size \"size=0\" (expected "
		  "size=SIZE with B, KiB, MiB, GiB, TiB, K, M or G)" },
		{ "workspace overlay size=lots", "t.policy:2:19: invalid workspace size \"size=lots\" "
		  "(expected size=SIZE with B, KiB, MiB, GiB, TiB, K, M or G)" },
		{ "workspace overlay size=1M /ws", "t.policy:2:19: size=SIZE comes last (usage is "
		  "\"workspace rw|ro|overlay|none [DEST] [size=SIZE]\")" },
		{ "workspace none /ws", "t.policy:2:16: unexpected argument \"/ws\" (usage is \"workspace "
		  "rw|ro|overlay|none [DEST] [size=SIZE]\")" },
	};
	osb_policy *p = must_parse("osb-policy 1\nworkspace overlay\n");
	osb_error err;
	char *e;

	ck_assert_int_eq(p->ws_mode, WS_OVERLAY);
	ck_assert_uint_eq(p->ws_size, (uint64_t)1 << 30);
	e = osb_policy_explain(p, 0);
	ck_assert_ptr_nonnull(strstr(e, "\nworkspace overlay size=1GiB  # t.policy:2\n"));
	free(e);
	osb_policy_free(p);
	p = must_parse("osb-policy 1\nworkspace overlay /ws size=64MiB\n");
	ck_assert_str_eq(p->ws_dest, "/ws");
	ck_assert_uint_eq(p->ws_size, (uint64_t)64 << 20);
	e = osb_policy_explain(p, 0);
	ck_assert_ptr_nonnull(strstr(e, "\nworkspace overlay /ws size=64MiB  # t.policy:2\n"));
	free(e);
	osb_policy_free(p);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[128];

		snprintf(text, sizeof(text), "osb-policy 1\n%s\n", bad[i].line);
		ck_assert_ptr_null(parse(text, &err));
		ck_assert_str_eq(err.message, bad[i].msg);
	}
}
END_TEST

/* The size is part of the rule: two sizes, two hashes; rw is not overlay. */
START_TEST(test_workspace_overlay_size_changes_hash)
{
	char a[OSB_POLICY_HASH_LEN], b[OSB_POLICY_HASH_LEN], c[OSB_POLICY_HASH_LEN];

	hash_text("osb-policy 1\nworkspace overlay size=64MiB\n", a);
	hash_text("osb-policy 1\nworkspace overlay size=128MiB\n", b);
	hash_text("osb-policy 1\nworkspace rw\n", c);
	ck_assert_str_ne(a, b);
	ck_assert_str_ne(a, c);
	hash_text("osb-policy 1\nworkspace overlay size=1GiB\n", a);
	hash_text("osb-policy 1\n# the default\nworkspace overlay\n", b);
	ck_assert_str_eq(a, b);
}
END_TEST

/* none < ro < overlay < rw: requests and the API only narrow. */
START_TEST(test_workspace_mode_narrows_to_overlay_only_from_rw)
{
	osb_policy *p = must_parse(open_base);
	osb_error err = { 0 };

	ck_assert_msg(osb_policy_apply_json(p, "{\"workspace\": {\"mode\": \"overlay\"}}", &err) == 0,
	              "%s", err.message);
	ck_assert_int_eq(p->ws_mode, WS_OVERLAY);
	ck_assert_uint_eq(p->ws_size, (uint64_t)1 << 30);
	expect_origin(p->ws_set.o, "api", 0, 0);
	ck_assert_int_eq(osb_policy_set_workspace_mode(p, OSB_WORKSPACE_RW, &err), -OSB_E_POLICY);
	ck_assert_str_eq(err.message, "workspace mode: \"rw\" is refused: the policy has \"workspace "
	                 "overlay\" (api), and a caller may only narrow it");
	ck_assert_int_eq(osb_policy_set_workspace_mode(p, OSB_WORKSPACE_RO, &err), 0);
	ck_assert_int_eq(p->ws_mode, WS_RO);
	ck_assert_uint_eq(p->ws_size, 0);
	ck_assert_int_eq(osb_policy_set_workspace_mode(p, OSB_WORKSPACE_OVERLAY, &err), -OSB_E_POLICY);
	ck_assert_int_eq(osb_policy_set_workspace_mode(p, (osb_workspace_mode)4, &err), -OSB_E_USAGE);
	ck_assert_int_eq(osb_policy_set_workspace_mode(NULL, OSB_WORKSPACE_RO, &err), -OSB_E_USAGE);
	osb_policy_free(p);
	/* An overlay the policy sized keeps its size when a request repeats it. */
	p = must_parse("osb-policy 1\nworkspace overlay size=8MiB\n");
	ck_assert_int_eq(osb_policy_apply_json(p, "{\"workspace\": {\"mode\": \"overlay\"}}", &err), 0);
	ck_assert_uint_eq(p->ws_size, (uint64_t)8 << 20);
	expect_origin(p->ws_set.o, "t.policy", 2, 0);
	osb_policy_free(p);
	p = must_parse("osb-policy 1\n");
	ck_assert_int_eq(osb_policy_set_workspace_mode(p, OSB_WORKSPACE_OVERLAY, &err), -OSB_E_POLICY);
	ck_assert_str_eq(err.message, "workspace mode: \"overlay\" is refused: the policy has "
	                 "\"workspace none\" (default), so a caller cannot add a workspace");
	osb_policy_free(p);
}
END_TEST

START_TEST(test_request_narrowing_applied_with_api_origin)
{
	osb_policy *p = must_parse(open_base);
	osb_error err = { 0 };
	char h0[OSB_POLICY_HASH_LEN], h1[OSB_POLICY_HASH_LEN], *e;

	hash_of(p, h0);
	ck_assert_int_eq(osb_policy_apply_json(p, "{}", &err), 0);
	ck_assert_int_eq(osb_policy_apply_json(p, " {\"network\": \"host\", \"workspace\": "
	                                          "{\"mode\": \"rw\"}, \"env\": {\"mode\": \"inherit\"}}\n",
	                                       &err), 0);
	hash_of(p, h1);
	ck_assert_str_eq(h0, h1);
	expect_origin(p->net_set.o, "t.policy", 3, 0);

	ck_assert_msg(osb_policy_apply_json(p,
		"{\"profile\": \"strict\","
		" \"workspace\": {\"path\": \"/srv/ws\", \"mode\": \"ro\"},"
		" \"extra_writable\": [\"/data/a\", \"/srv/jobs/7\", \"/data/a\"],"
		" \"network\": \"none\","
		" \"env\": {\"mode\": \"clear\", \"pass\": [\"LANG\", \"PATH\"],"
		"          \"set\": {\"HOME\": \"/tmp/h\", \"CI\": \"1\"}},"
		" \"uid\": 1500, \"gid\": 1600, \"idle_timeout\": \"10m\"}", &err) == 0,
		"%s", err.message);
	ck_assert_str_eq(p->ws_path, "/srv/ws");
	expect_origin(p->ws_path_o, "api", 0, 0);
	ck_assert_int_eq(p->ws_mode, WS_RO);
	ck_assert_int_eq(p->net, NET_NONE);
	ck_assert_int_eq(p->env_base, ENV_CLEAR);
	ck_assert_uint_eq(p->uid, 1500);
	ck_assert_uint_eq(p->gid, 1600);
	ck_assert_uint_eq(p->n_writes, 2);
	ck_assert_uint_eq(p->n_env_pass, 2);
	e = osb_policy_explain(p, 0);
	ck_assert_ptr_nonnull(e);
	ck_assert_ptr_nonnull(strstr(e, "\nworkspace ro  # api\nnetwork none  # api\nenv clear  # api\n"
	                                "user sandbox 1500 1600  # api\n"));
	ck_assert_ptr_nonnull(strstr(e, "\nwrite /data/a  # api\nwrite /srv/jobs/7  # api\n"));
	ck_assert_ptr_nonnull(strstr(e, "\nenv pass LANG  # api\nenv pass PATH  # t.policy:5\n"));
	ck_assert_ptr_nonnull(strstr(e, "\nenv set CI=1  # api\nenv set HOME=/tmp/h  # api\n"));
	free(e);
	hash_of(p, h1);
	ck_assert_str_ne(h0, h1);
	osb_policy_free(p);

	/* A persisted layer with the overlay it belongs to: not a rule. */
	p = must_parse(open_base);
	ck_assert_int_eq(osb_policy_set_workspace_mode(p, OSB_WORKSPACE_OVERLAY, &err), 0);
	hash_of(p, h0);
	ck_assert_msg(osb_policy_apply_json(p, "{\"workspace\": {\"mode\": \"overlay\", "
	                                       "\"persist\": \"/srv/layers/a\"}}", &err) == 0,
	              "%s", err.message);
	ck_assert_str_eq(p->ws_persist, "/srv/layers/a");
	ck_assert_int_eq(p->ws_mode, WS_OVERLAY);
	ck_assert_int_eq(osb_policy_set_overlay_persist(p, "/srv/layers/b", &err), 0);
	ck_assert_str_eq(p->ws_persist, "/srv/layers/b");
	osb_policy_set_workspace_mode(p, OSB_WORKSPACE_RW, &err);
	ck_assert_int_eq(osb_policy_set_workspace_mode(p, OSB_WORKSPACE_OVERLAY, &err), 0);
	hash_of(p, h1);
	ck_assert_str_eq(h0, h1);
	e = osb_policy_explain(p, 0);
	ck_assert_ptr_null(strstr(e, "/srv/layers"));
	free(e);
	ck_assert_int_eq(osb_policy_set_overlay_persist(p, "srv/x", &err), -OSB_E_USAGE);
	ck_assert_str_eq(err.message, "overlay persist directory: path must be absolute: \"srv/x\" "
	                 "(pass a canonical absolute path, e.g. from realpath(3))");
	ck_assert_int_eq(osb_policy_set_overlay_persist(p, NULL, &err), 0);
	ck_assert_ptr_null(p->ws_persist);
	osb_policy_free(p);

	/* A request may choose ids on any baseline, as long as they are not 0. */
	p = must_parse(closed_base);
	ck_assert_int_eq(osb_policy_apply_json(p, "{\"gid\": 4294967294}", &err), 0);
	ck_assert_uint_eq(p->uid, 1000);
	ck_assert_uint_eq(p->gid, 4294967294u);
	expect_origin(p->user_set.o, "api", 0, 0);
	osb_policy_free(p);
}
END_TEST

static const struct refused_request {
	const char *base, *json, *msg;
} refused_requests[] = {
	/* widenings */
	{ closed_base, "{\"network\": \"host\"}",
	  "\"network\": the host network is refused: the policy t.policy has \"network none\" "
	  "(default) and does not grant callers the host network (a policy grants it with "
	  "\"allow-caller network\")" },
	{ closed_base, "{\"read_only\": [\"/data/x\"]}",
	  "\"read_only[0]\": read-only path \"/data/x\" refused: not beneath a declared read-root "
	  "(the policy t.policy declares none; a policy grants read-only paths with \"read-root "
	  "DIR\")" },
	{ closed_base, "{\"read_only\": \"/data/x\"}",
	  "\"read_only\" must be an array of strings, not a string" },
	/* system directories, by name at once (the plan repeats it by inode) */
	{ open_base, "{\"workspace\": {\"path\": \"/etc/cron.d\", \"mode\": \"rw\"}}",
	  "\"workspace.path\": \"/etc/cron.d\": inside /etc (host configuration: cron, sudoers, "
	  "PAM, profile scripts run as root); choose a project directory" },
	{ open_base, "{\"workspace\": {\"path\": \"/proc/sys/kernel\"}}",
	  "\"workspace.path\": \"/proc/sys/kernel\": inside /proc (the host's process and kernel "
	  "interfaces); choose a project directory" },
	{ open_base, "{\"workspace\": {\"path\": \"/home\"}}",
	  "\"workspace.path\": \"/home\": the directory that holds every user's home (/home); "
	  "choose a project directory beneath it" },
	{ closed_base, "{\"workspace\": {\"mode\": \"rw\"}}",
	  "\"workspace.mode\": \"rw\" is refused: the policy has \"workspace ro\" (t.policy:2), and a "
	  "request may only narrow it" },
	{ closed_base, "{\"workspace\": {\"mode\": \"overlay\"}}",
	  "\"workspace.mode\": \"overlay\" is refused: the policy has \"workspace ro\" (t.policy:2), "
	  "and a request may only narrow it" },
	{ "osb-policy 1\n", "{\"workspace\": {\"path\": \"/srv/ws\"}}",
	  "\"workspace\" is refused: the policy has \"workspace none\" (default), so a request cannot "
	  "add a workspace" },
	/* a persisted layer: only of an overlay, and a directory like a workspace's */
	{ open_base, "{\"workspace\": {\"persist\": \"/srv/layers/a\"}}",
	  "\"workspace.persist\" needs an overlay workspace: the workspace is \"rw\" (t.policy:2); ask "
	  "for \"mode\": \"overlay\" as well" },
	{ open_base, "{\"workspace\": {\"persist\": \"/srv/layers/a\", \"mode\": \"ro\"}}",
	  "\"workspace.persist\" needs an overlay workspace: the workspace is \"ro\" (request); ask "
	  "for \"mode\": \"overlay\" as well" },
	{ open_base, "{\"workspace\": {\"persist\": \"/etc/layer\", \"mode\": \"overlay\"}}",
	  "\"workspace.persist\": \"/etc/layer\": inside /etc (host configuration: cron, sudoers, "
	  "PAM, profile scripts run as root); choose a project directory" },
	{ open_base, "{\"workspace\": {\"persist\": \"srv/l\", \"mode\": \"overlay\"}}",
	  "\"workspace.persist\": path must be absolute: \"srv/l\" (pass a canonical absolute path)" },
	{ open_base, "{\"workspace\": {\"persist\": 7}}",
	  "\"workspace.persist\" must be a string, not a number" },
	{ closed_base, "{\"env\": {\"mode\": \"inherit\"}}",
	  "\"env.mode\": \"inherit\" is refused: the policy has \"env clear\" (default), and a request "
	  "may only narrow it" },
	{ closed_base, "{\"env\": {\"pass\": [\"PATH\", \"GITHUB_TOKEN\"]}}",
	  "\"env.pass[1]\": \"GITHUB_TOKEN\" is refused: it matches \"env deny *_TOKEN\" (t.policy:4), "
	  "and deny wins over a request" },
	{ open_base, "{\"env\": {\"set\": {\"AWS_SECRET_ACCESS_KEY\": \"x\"}}}",
	  "\"env.set.AWS_SECRET_ACCESS_KEY\": \"AWS_SECRET_ACCESS_KEY\" is refused: it matches \"env "
	  "deny AWS_*\" (t.policy:6), and deny wins over a request" },
	{ closed_base, "{\"env\": {\"pass\": [\"LC_*\"]}}",
	  "\"env.pass[0]\": invalid environment variable name \"LC_*\" (letters, digits and \"_\", not "
	  "starting with a digit; a request names variables, not patterns)" },
	{ closed_base, "{\"env\": {\"set\": {\"1X\": \"v\"}}}",
	  "\"env.set.1X\": invalid environment variable name \"1X\" (letters, digits and \"_\", not "
	  "starting with a digit; a request names variables, not patterns)" },
	{ closed_base, "{\"uid\": 0}", "\"uid\": 0 is refused: a request may only choose a non-zero uid" },
	{ closed_base, "{\"gid\": 0}", "\"gid\": 0 is refused: a request may only choose a non-zero gid" },
	{ closed_base, "{\"gid\": -5}", "\"gid\": -5 is out of range (1 to 4294967294)" },
	{ closed_base, "{\"uid\": 4294967295}", "\"uid\": 4294967295 is out of range (1 to 4294967294)" },
	{ closed_base, "{\"extra_writable\": [\"/data/ok\", \"/database/x\"]}",
	  "\"extra_writable[1]\": \"/database/x\" is not beneath a declared write-root (declared: /data)" },
	{ closed_base, "{\"extra_writable\": [\"/data/../etc\"]}",
	  "\"extra_writable[0]\": path must not contain \"..\": \"/data/../etc\" (pass a canonical "
	  "absolute path, e.g. from realpath(3))" },
	{ "osb-policy 1\n", "{\"extra_writable\": [\"/tmp/x\"]}",
	  "\"extra_writable[0]\": \"/tmp/x\" is not beneath a declared write-root (the policy declares "
	  "none; add \"write-root DIR\" for a directory above it)" },
	/* a refused key leaves earlier, acceptable ones unapplied */
	{ open_base, "{\"network\": \"none\", \"workspace\": {\"path\": \"/srv/ws\"}, \"uid\": 0}",
	  "\"uid\": 0 is refused: a request may only choose a non-zero uid" },
	{ open_base, "{\"extra_writable\": [\"/data/a\"], \"env\": {\"pass\": [\"X_TOKEN\"]}}",
	  "\"env.pass[0]\": \"X_TOKEN\" is refused: it matches \"env deny *_TOKEN\" (t.policy:6), and "
	  "deny wins over a request" },
	/* names and types */
	{ open_base, "{\"netwrok\": \"none\"}", "unknown key \"netwrok\" (did you mean \"network\"?)" },
	{ open_base, "{\"workspace\": {\"mdoe\": \"ro\"}}",
	  "unknown key \"mdoe\" in \"workspace\" (did you mean \"mode\"?)" },
	{ open_base, "{\"env\": {\"deny\": []}}", "unknown key \"deny\" in \"env\"" },
	{ open_base, "{\"sandbox\": true}", "unknown key \"sandbox\"" },
	{ open_base, "{\"network\": \"nnoe\"}", "\"network\": unknown value \"nnoe\" (did you mean \"none\"?)" },
	{ open_base, "{\"network\": \"off\"}", "\"network\": unknown value \"off\" (expected \"none\" or \"host\")" },
	{ open_base, "{\"network\": false}", "\"network\" must be a string, not a boolean" },
	{ open_base, "{\"network\": null}", "\"network\" must be a string, not null" },
	{ open_base, "{\"network\": \"no\\u0000ne\"}", "\"network\" contains a NUL byte" },
	{ open_base, "{\"workspace\": {\"mode\": \"none\"}}",
	  "\"workspace.mode\": unknown value \"none\" (expected \"ro\", \"rw\" or \"overlay\")" },
	{ open_base, "{\"workspace\": \"/srv/ws\"}", "\"workspace\" must be an object, not a string" },
	{ open_base, "{\"workspace\": {\"path\": \"srv/ws\"}}",
	  "\"workspace.path\": path must be absolute: \"srv/ws\" (pass a canonical absolute path)" },
	{ open_base, "{\"extra_writable\": \"/data/x\"}",
	  "\"extra_writable\" must be an array of strings, not a string" },
	{ open_base, "{\"extra_writable\": [7]}", "\"extra_writable[0]\" must be a string, not a number" },
	{ open_base, "{\"env\": {\"set\": {\"A\": 1}}}", "\"env.set.A\" must be a string, not a number" },
	{ open_base, "{\"env\": {\"set\": {\"A\": \"x\\nnetwork host\"}}}",
	  "\"env.set.A\": value contains a control character" },
	{ open_base, "{\"env\": {\"set\": {\"A\": \"admin\\u202e\"}}}",
	  "\"env.set.A\": value contains an invisible or bidirectional control character" },
	{ open_base, "{\"env\": {\"set\": {\"A\": \"x \"}}}",
	  "\"env.set.A\": value ends with a space or tab, which a policy line cannot hold" },
	{ open_base, "{\"extra_writable\": [\"/data/a b\"]}",
	  "\"extra_writable[0]\": path contains a space or tab, which a policy line cannot hold: \"/data/a b\"" },
	{ open_base, "{\"extra_writable\": [\"/data/a\\nwrite /etc\"]}",
	  "\"extra_writable[0]\": path contains a control character: \"/data/a\nwrite /etc\"" },
	{ open_base, "{\"env\": {\"set\": [\"A=1\"]}}", "\"env.set\" must be an object of strings, not an array" },
	{ open_base, "{\"uid\": \"1000\"}", "\"uid\" must be an integer, not a string" },
	{ open_base, "{\"uid\": 1000.5}", "\"uid\" must be an integer, not a fractional number" },
	{ open_base, "{\"profile\": 3}", "\"profile\" must be a string, not a number" },
	{ open_base, "{\"idle_timeout\": \"10\"}",
	  "\"idle_timeout\": invalid duration \"10\" (a whole number with a unit: ms, s, m or h)" },
	{ open_base, "{\"idle_timeout\": \"0s\"}", "\"idle_timeout\" must be greater than zero" },
	/* limits: lower only, in the policy's grammar */
	{ limits_base, "{\"limits\": {\"memory\": \"4GiB\"}}",
	  "\"limits.memory\": 4GiB would raise the policy's \"limit memory 2GiB\" (t.policy:2); a "
	  "request may only lower a limit" },
	{ limits_base, "{\"limits\": {\"cpu\": \"unlimited\"}}",
	  "\"limits.cpu\": unlimited would raise the policy's \"limit cpu 50%\" (t.policy:4); a "
	  "request may only lower a limit" },
	{ limits_base, "{\"limits\": {\"wall\": \"2h\"}}",
	  "\"limits.wall\": 2h would raise the policy's \"limit wall 1h\" (t.policy:5); a "
	  "request may only lower a limit" },
	{ limits_base, "{\"limits\": {\"memroy\": \"1GiB\"}}",
	  "unknown key \"memroy\" in \"limits\" (a limit's name, as in \"limit NAME VALUE\")" },
	{ limits_base, "{\"limits\": {\"pids\": 10}}", "\"limits.pids\" must be a string, not a number" },
	{ limits_base, "{\"limits\": {\"cpu\": \"60s\"}}",
	  "\"limits.cpu\": invalid value \"60s\" (as the policy writes \"limit cpu\")" },
	{ limits_base, "{\"limits\": [\"memory\"]}", "\"limits\" must be an object, not an array" },
	/* not a JSON object */
	{ open_base, "[1]", "the request must be a JSON object, not an array" },
	{ open_base, "", "the request is not valid JSON: unexpected end of input" },
	{ open_base, "{\"network\": \"none\"", "the request is not valid JSON: unexpected end of input" },
	{ open_base, "{} {}", "the request is not valid JSON: unexpected character (at byte 3)" },
	{ open_base, "{\"network\": none}", "the request is not valid JSON: null expected (at byte 13)" },
	{ open_base, "{\"a\": 1,}", "the request is not valid JSON: unexpected character (at byte 8)" },
	{ open_base, "{\"network\": \"n\xffne\"}", "the request is not valid JSON: invalid utf-8 string (at byte 14)" },
	/* Findings: these were "not valid JSON", or silently taken. */
	{ open_base, "null", "the request must be a JSON object, not null" },
	{ open_base, "1", "the request must be a JSON object, not a number" },
	{ open_base, "true", "the request must be a JSON object, not a boolean" },
	{ open_base, "{\"network\": \"host\", \"network\": \"none\"}",
	  "the request repeats the key \"network\" (at byte 20)" },
	{ open_base, "{\"env\": {\"set\": {\"A\": \"1\", \"B\": \"2\", \"A\": \"3\"}}}",
	  "the request repeats the key \"A\" (at byte 37)" },
	{ open_base, "{\"env\": {\"set\": {\"A\": \"\\ud800\"}}}",
	  "the request is not valid JSON: a lone surrogate \\ud800 (at byte 23)" },
	{ open_base, "{\"env\": {\"set\": {\"A\": \"\\udc00x\"}}}",
	  "the request is not valid JSON: a lone surrogate \\udc00 (at byte 23)" },
	{ open_base, "{\"env\": {\"set\": {\"A\": \"\\ud83d\\ude00\"}}, \"env\": {}}",
	  "the request repeats the key \"env\" (at byte 40)" },
};

START_TEST(test_request_refused_names_key_and_reason)
{
	const struct refused_request *c = &refused_requests[_i];

	expect_request_refused(c->base, c->json, c->msg);
}
END_TEST

/* Finding: a 1 MiB request of 175,331 env.pass names took 68 s (a linear
 * search per name). Linear or n log n now: far under the bound, which is
 * generous for slow machines. Duplicates are still passed once. */
START_TEST(test_request_of_1_mib_is_fast)
{
	osb_policy *p = must_parse(open_base);
	osb_error err = { 0 };
	size_t cap = (size_t)1 << 20, n = 0, count = 0;
	char *json = malloc(cap + 64);
	struct timespec t0, t1;
	double secs;

	ck_assert_ptr_nonnull(json);
	n += (size_t)snprintf(json, cap, "{\"env\": {\"pass\": [\"V0\", \"V0\"");
	while (n + 16 < cap - 8)
		n += (size_t)snprintf(json + n, 32, ", \"V%zu\"", ++count);
	snprintf(json + n, 8, "]}}");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(osb_policy_apply_json(p, json, &err), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	ck_assert_msg(secs < 5.0, "%zu names applied in %.1f s", count + 2, secs);
	/* PATH (the policy's), V0 once, V1..Vcount in the request's order. */
	ck_assert_uint_eq(p->n_env_pass, count + 2);
	ck_assert_str_eq(p->env_pass[1].s, "V0");
	ck_assert_str_eq(p->env_pass[2].s, "V1");
	snprintf(json, 32, "V%zu", count);
	ck_assert_str_eq(p->env_pass[count + 1].s, json);
	free(json);
	osb_policy_free(p);
}
END_TEST

/* The same for env.set: 60,000 keys, one of them replacing the policy's. */
START_TEST(test_request_env_set_of_60000_keys_is_fast)
{
	osb_policy *p = must_parse(open_base);
	osb_error err = { 0 };
	size_t cap = (size_t)1 << 20, n = 0;
	char *json = malloc(cap);
	struct timespec t0, t1;
	double secs;

	ck_assert_ptr_nonnull(json);
	n += (size_t)snprintf(json, cap, "{\"env\": {\"set\": {\"HOME\": \"/x\"");
	for (size_t i = 0; i < 60000; i++)
		n += (size_t)snprintf(json + n, cap - n, ", \"S%zu\": \"v\"", i);
	snprintf(json + n, cap - n, "}}}");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(osb_policy_apply_json(p, json, &err), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	ck_assert_msg(secs < 5.0, "60001 env.set keys applied in %.1f s", secs);
	/* HOME replaced in place, the others added. */
	ck_assert_uint_eq(p->n_env_set, 60001);
	ck_assert_str_eq(p->env_set[0].s, "HOME=/x");
	ck_assert_str_eq(p->env_set[60000].s, "S59999=v");
	free(json);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_request_null_arguments_are_usage_errors)
{
	osb_policy *p = must_parse(open_base);
	osb_error err = { 0 };

	ck_assert_int_eq(osb_policy_apply_json(p, NULL, &err), -OSB_E_USAGE);
	ck_assert_int_eq(err.code, OSB_E_USAGE);
	ck_assert_int_eq(osb_policy_apply_json(NULL, "{}", &err), -OSB_E_USAGE);
	osb_policy_free(p);
}
END_TEST

/* ---- SHA-256 ------------------------------------------------------------- */

static void hex(const uint8_t d[SHA256_DIGEST_LEN], char out[65])
{
	for (size_t i = 0; i < SHA256_DIGEST_LEN; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

START_TEST(test_sha256_fips_180_vectors)
{
	static const struct { const char *in, *out; } v[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	};
	uint8_t d[SHA256_DIGEST_LEN];
	char h[65];

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		sha256(v[i].in, strlen(v[i].in), d);
		hex(d, h);
		ck_assert_str_eq(h, v[i].out);
	}
}
END_TEST

START_TEST(test_sha256_million_a_in_uneven_chunks)
{
	static const char want[] = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
	char *a = malloc(1000000);
	uint8_t d[SHA256_DIGEST_LEN];
	sha256_ctx c;
	char h[65];

	ck_assert_ptr_nonnull(a);
	memset(a, 'a', 1000000);
	sha256(a, 1000000, d);
	hex(d, h);
	ck_assert_str_eq(h, want);
	sha256_init(&c);
	for (size_t off = 0, step = 1; off < 1000000; off += step, step = step % 131 + 1)
		sha256_update(&c, a + off, off + step > 1000000 ? 1000000 - off : step);
	sha256_final(&c, d);
	hex(d, h);
	ck_assert_str_eq(h, want);
	free(a);
}
END_TEST

/* ---- shipped policies and documentation ----------------------------------- */

static unsigned line_of(const char *path, const char *line)
{
	char *text = NULL;
	unsigned n = 0, found = 0;

	ck_assert_int_eq(read_file_bounded(path, 1 << 20, &text, NULL), 0);
	for (char *s = text, *nl; s && *s; s = nl ? nl + 1 : NULL) {
		nl = strchr(s, '\n');
		n++;
		if (strncmp(s, line, strlen(line)) == 0 && (s[strlen(line)] == '\n' || s[strlen(line)] == '\0'))
			found = n;
	}
	free(text);
	ck_assert_msg(found, "%s: no line \"%s\"", path, line);
	return found;
}

static bool denied(const osb_policy *p, const char *name)
{
	for (size_t i = 0; i < p->n_env_deny; i++)
		if (env_pattern_match(p->env_deny[i].s, name))
			return true;
	return false;
}

START_TEST(test_strict_policy_parses_as_documented)
{
	const char *path = TEST_SRCDIR "/policy/strict.policy";
	osb_error err = { 0 };
	osb_policy *p = osb_policy_load(path, &err);

	ck_assert_msg(p != NULL, "%s", err.message);
	/* The curated view: nothing of the host but /usr and /etc, the
	 * merged-/usr links, and private scratch space. */
	ck_assert_int_eq(p->root, ROOT_NONE);
	expect_origin(p->root_set.o, path, line_of(path, "root none"), 0);
	ck_assert_uint_eq(p->n_mounts, 11);
	for (size_t i = 0; i < p->n_mounts; i++) {
		static const char *const view[] = {
			"ro-bind /usr", "symlink usr/bin /bin", "symlink usr/sbin /sbin",
			"symlink usr/lib /lib", "symlink usr/lib64 /lib64", "ro-bind /etc",
			"tmpfs /tmp size=512MiB", "tmpfs /var/tmp size=512MiB", "tmpfs /run size=16MiB",
			"dev /dev", "proc /proc",
		};
		const pol_mount *m = &p->mounts[i];
		char rule[64];

		if (m->kind == MNT_SYMLINK)
			snprintf(rule, sizeof(rule), "symlink %s %s", m->target, m->path);
		else if (m->kind == MNT_TMPFS)
			snprintf(rule, sizeof(rule), "tmpfs %s size=%lluMiB", m->path,
			         (unsigned long long)(m->size >> 20));
		else
			snprintf(rule, sizeof(rule), "%s %s", m->kind == MNT_RO_BIND ? "ro-bind" :
			         m->kind == MNT_DEV ? "dev" : m->kind == MNT_PROC ? "proc" : "?", m->path);
		ck_assert_str_eq(rule, view[i]);
		expect_origin(m->o, path, line_of(path, view[i]), 0);
	}
	ck_assert_int_eq(p->ws_mode, WS_RW);
	ck_assert_ptr_null(p->ws_dest);
	ck_assert_int_eq(p->net, NET_NONE);
	expect_origin(p->net_set.o, path, line_of(path, "network none"), 0);
	ck_assert_int_eq(p->env_base, ENV_CLEAR);
	ck_assert_uint_eq(p->limits[LIM_WALL], 600000);
	ck_assert_uint_eq(p->limits[LIM_OUTPUT], 1 << 20);
	ck_assert_uint_eq(p->limits[LIM_NOFILE], 1024);
	ck_assert(!p->limit_set[LIM_NPROC].set);
	ck_assert(!p->limit_set[LIM_AS].set);
	ck_assert_str_eq(p->user_name, "sandbox");
	ck_assert_uint_eq(p->uid, 1000);
	for (size_t i = 0; i < p->n_mounts; i++)
		ck_assert_msg(p->mounts[i].kind != MNT_HIDE, "strict hides %s", p->mounts[i].path);
	ck_assert_uint_eq(p->n_env_set, 2);
	ck_assert_str_eq(p->env_set[1].s, "HOME=${WORKSPACE}");
	/* A fixed system PATH, never the caller's. */
	ck_assert_str_eq(p->env_set[0].s, "PATH=/usr/local/bin:/usr/bin:/bin");
	expect_origin(p->env_set[0].o, path,
	              line_of(path, "env set PATH=/usr/local/bin:/usr/bin:/bin"), 0);
	for (size_t i = 0; i < p->n_env_pass; i++)
		ck_assert_str_ne(p->env_pass[i].s, "PATH");
	/* The deny list catches credentials, not ordinary variables. */
	ck_assert(denied(p, "GITHUB_TOKEN") && denied(p, "AWS_SECRET_ACCESS_KEY") &&
	          denied(p, "OPENAI_API_KEY") && denied(p, "DB_PASSWORD") && denied(p, "SSH_AUTH_SOCK") &&
	          denied(p, "VAULT_TOKEN") && denied(p, "PGPASSWORD"));
	ck_assert(!denied(p, "PATH") && !denied(p, "HOME") && !denied(p, "LANG") &&
	          !denied(p, "TOKENIZERS_PARALLELISM") && !denied(p, "TERM") && !denied(p, "KEYTIMEOUT"));
	osb_policy_free(p);
}
END_TEST

START_TEST(test_balanced_policy_overrides_strict_network)
{
	const char *path = TEST_SRCDIR "/policy/balanced.policy";
	const char *strict = TEST_SRCDIR "/policy/strict.policy";
	osb_error err = { 0 };
	osb_policy *p;

	/* "include strict" names the shipped policy: here, the source tree's. */
	ck_assert_int_eq(setenv("OSB_ISOLATE_POLICY_DIR", TEST_SRCDIR "/policy", 1), 0);
	p = osb_policy_load(path, &err);
	ck_assert_msg(p != NULL, "%s", err.message);
	ck_assert_int_eq(p->net, NET_HOST);
	expect_origin(p->net_set.o, path, line_of(path, "network host"), 0);
	ck_assert_int_eq(p->env_base, ENV_INHERIT);
	expect_origin(p->env_base_set.o, path, line_of(path, "env inherit"), 0);
	ck_assert_int_eq(p->root, ROOT_NONE);
	expect_origin(p->root_set.o, strict, line_of(strict, "root none"), 1);
	ck_assert(denied(p, "GITHUB_TOKEN"));
	ck_assert_str_eq(p->env_deny[0].o.file, strict);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_man_page_example_policy_parses)
{
	char *man = NULL, *start, *end;
	osb_error err = { 0 };
	osb_policy *p;

	ck_assert_int_eq(read_file_bounded(TEST_SRCDIR "/man/osb-isolate.policy.5", 1 << 20, &man, NULL), 0);
	start = strstr(man, "# review.policy\n");
	ck_assert_ptr_nonnull(start);
	end = strstr(start, ".EE\n");
	ck_assert_ptr_nonnull(end);
	ck_assert_int_eq(setenv("OSB_ISOLATE_POLICY_DIR", TEST_SRCDIR "/policy", 1), 0);
	p = osb_policy_parse(start, (size_t)(end - start), "review.policy", &err);
	ck_assert_msg(p != NULL, "%s", err.message);
	ck_assert_int_eq(p->ws_mode, WS_RO);
	ck_assert_uint_eq(p->limits[LIM_CPUTIME], 60);
	osb_policy_free(p);
	free(man);
}
END_TEST

START_TEST(test_man_page_jobs_example_parses)
{
	char *man = NULL, *start, *end;
	osb_error err = { 0 };
	osb_policy *p;

	ck_assert_int_eq(read_file_bounded(TEST_SRCDIR "/man/osb-isolate.policy.5", 1 << 20, &man, NULL), 0);
	start = strstr(man, "# jobs.policy\n");
	ck_assert_ptr_nonnull(start);
	end = strstr(start, ".EE\n");
	ck_assert_ptr_nonnull(end);
	ck_assert_int_eq(setenv("OSB_ISOLATE_POLICY_DIR", TEST_SRCDIR "/policy", 1), 0);
	p = osb_policy_parse(start, (size_t)(end - start), "jobs.policy", &err);
	ck_assert_msg(p != NULL, "%s", err.message);
	ck_assert_uint_eq(p->n_write_roots, 2);
	ck_assert_uint_eq(p->n_writes, 1);
	ck_assert_uint_eq(p->n_read_only, 2);
	ck_assert_str_eq(p->read_only[0].s, "workspace:.git");
	ck_assert_str_eq(p->read_only[1].s, "workspace:.envrc");
	ck_assert_uint_eq(p->n_sc_rules, 2);
	ck_assert_int_eq(p->landlock, LL_REQUIRED);
	/* The daemon's per-job grant the comment describes. */
	ck_assert_int_eq(osb_policy_add_writable(p, "/srv/jobs/42/out", &err), 0);
	osb_policy_free(p);
	free(man);
}
END_TEST

/* ---- resource limits ------------------------------------------------------ */

START_TEST(test_resource_limits_parse_with_units_and_best_effort)
{
	osb_policy *p = must_parse("osb-policy 1\n"
	                           "limit memory 2GiB best-effort\n"
	                           "limit pids 50\n"
	                           "limit cpu 0.5\n"
	                           "limit cputime 90s\n"
	                           "tmpfs /tmp size=256MiB\n"
	                           "tmpfs /run\n");
	char *canon;

	ck_assert_uint_eq(p->limits[LIM_MEMORY], 2ULL << 30);
	ck_assert(p->limit_best_effort & LIM_BIT(LIM_MEMORY));
	ck_assert_uint_eq(p->limits[LIM_PIDS], 50);
	ck_assert(!(p->limit_best_effort & LIM_BIT(LIM_PIDS)));
	ck_assert_uint_eq(p->limits[LIM_CPU], 500);
	ck_assert_uint_eq(p->limits[LIM_CPUTIME], 90);
	ck_assert_uint_eq(p->n_mounts, 2);
	ck_assert_uint_eq(p->mounts[0].size, 256ULL << 20);
	ck_assert_uint_eq(p->mounts[1].size, 0);
	canon = osb_policy_explain(p, 0);
	ck_assert_ptr_nonnull(strstr(canon, "limit memory 2GiB best-effort  #"));
	ck_assert_ptr_nonnull(strstr(canon, "limit cpu 50%  #"));
	ck_assert_ptr_nonnull(strstr(canon, "limit cputime 90s  #"));
	ck_assert_ptr_nonnull(strstr(canon, "tmpfs /tmp size=256MiB  #"));
	ck_assert_ptr_nonnull(strstr(canon, "tmpfs /run  #"));
	free(canon);
	osb_policy_free(p);
	{
		char h0[OSB_POLICY_HASH_LEN], h1[OSB_POLICY_HASH_LEN];

		p = must_parse("osb-policy 1\nlimit memory 1GiB\n");
		osb_policy_hash(p, h0);
		osb_policy_free(p);
		p = must_parse("osb-policy 1\nlimit memory 1GiB best-effort\n");
		osb_policy_hash(p, h1);
		osb_policy_free(p);
		ck_assert_str_ne(h0, h1);
	}
	p = must_parse("osb-policy 1\nlimit cpu 12.5%\n");
	ck_assert_uint_eq(p->limits[LIM_CPU], 125);
	osb_policy_free(p);
	p = must_parse("osb-policy 1\nlimit cpu 2\n");
	ck_assert_uint_eq(p->limits[LIM_CPU], 2000);
	osb_policy_free(p);
}
END_TEST

/* ---- runner -------------------------------------------------------------- */

static Suite *policy_suite(void)
{
	Suite *s = suite_create("policy");
	TCase *t;

	t = tcase_create("grammar");
	tcase_add_loop_test(t, test_rejected_policy_reports_position_and_message, 0,
	                    (int)(sizeof(rejects) / sizeof(rejects[0])));
	tcase_add_test(t, test_line_longer_than_4096_bytes_refused);
	tcase_add_test(t, test_policy_text_larger_than_1mib_refused);
	tcase_add_test(t, test_unset_rules_get_safe_defaults);
	tcase_add_test(t, test_every_directive_sets_its_field_with_origin);
	tcase_add_test(t, test_symlink_parsed_and_canonical);
	tcase_add_test(t, test_env_set_value_is_rest_of_line_verbatim);
	tcase_add_test(t, test_comment_needs_whitespace_before_hash);
	tcase_add_test(t, test_env_patterns_repeated_are_folded);
	tcase_add_test(t, test_write_rules_set_fields_with_origin);
	tcase_add_test(t, test_seccomp_rules_set_fields_with_origin);
	tcase_add_test(t, test_seccomp_errno_spellings_hash_alike);
	tcase_add_test(t, test_unknown_syscall_without_suggestion_names_libseccomp);
	suite_add_tcase(s, t);

	t = tcase_create("includes");
	tcase_add_checked_fixture(t, dir_setup, dir_teardown);
	tcase_add_test(t, test_include_override_by_includer_recorded);
	tcase_add_test(t, test_include_tmpfs_size_overridden_by_includer);
	tcase_add_test(t, test_include_sibling_conflict_refused);
	tcase_add_test(t, test_include_error_shows_chain);
	tcase_add_test(t, test_include_sibling_conflict_settled_by_includer);
	tcase_add_test(t, test_include_cycle_reports_chain);
	tcase_add_test(t, test_include_cycle_detected_through_other_spelling);
	tcase_add_test(t, test_include_depth_above_two_refused);
	tcase_add_test(t, test_include_bare_name_reads_only_the_policy_dir);
	tcase_add_test(t, test_allow_caller_and_read_root_in_canonical_form);
	tcase_add_test(t, test_include_by_absolute_path_and_suffix);
	tcase_add_test(t, test_include_same_file_twice_is_not_a_duplicate);
	tcase_add_test(t, test_include_errors_point_into_included_file);
	tcase_add_test(t, test_include_unreadable_files_refused);
	tcase_add_test(t, test_load_by_name_uses_policy_dir);
	tcase_add_test(t, test_hash_ignores_include_layout);
	tcase_add_test(t, test_write_root_declared_in_include_covers_includer);
	tcase_add_test(t, test_seccomp_rule_overridden_by_includer);
	suite_add_tcase(s, t);

	t = tcase_create("values");
	tcase_add_test(t, test_path_beneath_compares_whole_components);
	tcase_add_test(t, test_duration_and_size_units);
	tcase_add_test(t, test_env_pattern_match);
	suite_add_tcase(s, t);

	t = tcase_create("canonical");
	tcase_add_test(t, test_canonical_form_is_exact);
	tcase_add_test(t, test_canonical_form_parses_back_to_same_policy);
	tcase_add_test(t, test_explain_shows_origin_of_every_rule);
	tcase_add_test(t, test_hash_of_default_policy_is_pinned);
	tcase_add_test(t, test_hash_ignores_layout_comments_and_order);
	tcase_add_test(t, test_hash_changes_with_every_semantic_change);
	tcase_add_test(t, test_new_directives_parse_back_and_explain_origins);
	suite_add_tcase(s, t);

	t = tcase_create("api");
	tcase_add_test(t, test_api_workspace_must_be_absolute_and_keeps_hash);
	tcase_add_test(t, test_api_add_readonly_records_origin_and_changes_hash);
	tcase_add_test(t, test_api_widening_needs_a_caller_grant);
	tcase_add_test(t, test_api_network_and_wall_record_origin);
	tcase_add_test(t, test_api_add_writable_only_beneath_declared_roots);
	tcase_add_test(t, test_request_narrowing_applied_with_api_origin);
	tcase_add_loop_test(t, test_request_refused_names_key_and_reason, 0,
	                    (int)(sizeof(refused_requests) / sizeof(refused_requests[0])));
	tcase_add_test(t, test_request_null_arguments_are_usage_errors);
	tcase_add_test(t, test_request_lowers_limits);
	tcase_add_test(t, test_request_of_1_mib_is_fast);
	tcase_add_test(t, test_request_env_set_of_60000_keys_is_fast);
	tcase_set_timeout(t, 60);
	suite_add_tcase(s, t);

	t = tcase_create("sha256");
	tcase_add_test(t, test_sha256_fips_180_vectors);
	tcase_add_test(t, test_sha256_million_a_in_uneven_chunks);
	suite_add_tcase(s, t);

	t = tcase_create("shipped");
	tcase_add_test(t, test_strict_policy_parses_as_documented);
	tcase_add_test(t, test_balanced_policy_overrides_strict_network);
	tcase_add_test(t, test_man_page_example_policy_parses);
	tcase_add_test(t, test_resource_limits_parse_with_units_and_best_effort);
	tcase_add_test(t, test_man_page_jobs_example_parses);
	tcase_add_test(t, test_workspace_overlay_parses_with_size_and_dest);
	tcase_add_test(t, test_workspace_overlay_size_changes_hash);
	tcase_add_test(t, test_workspace_mode_narrows_to_overlay_only_from_rw);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(policy_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}

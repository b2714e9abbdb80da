/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_gitconf.c — unit tests for lib/gitconf.c, the reader of git's
 * configuration syntax: each input is dumped entry by entry
 * ("section|subsection|key|value@line"), or must be refused with a message
 * naming the file and line. The hostile inputs are what a planted file
 * would try: NUL bytes, unterminated quotes, over-long names, escapes git
 * refuses, keys outside a section, megabytes of continuation lines.
 */
#include "gitconf.h"

#include <check.h>

typedef struct dump {
	char buf[8192];
	size_t n;
} dump;

static int collect(void *ctx, const char *sec, const char *sub, const char *key,
                   const char *val, unsigned line)
{
	dump *d = ctx;
	int w = snprintf(d->buf + d->n, sizeof(d->buf) - d->n, "%s|%s|%s|%s@%u;", sec,
	                 sub ? sub : "-", key, val ? val : "(bare)", line);

	if (w > 0 && (size_t)w < sizeof(d->buf) - d->n)
		d->n += (size_t)w;
	return 0;
}

static int parse(const char *in, size_t len, dump *d, osb_error *e)
{
	memset(d, 0, sizeof(*d));
	memset(e, 0, sizeof(*e));
	return gitconf_parse(in, len, "/w/.git/config", collect, d, e);
}

static const struct { const char *in, *out; } good[] = {
	{ "", "" },
	{ "# only a comment\n; another\n\n", "" },
	{ "[core]\n\thooksPath = .husky\n", "core|-|hookspath|.husky@2;" },
	{ "[CORE]\n HooksPath=.husky", "core|-|hookspath|.husky@2;" },
	{ "[core]\n\tbare\n", "core|-|bare|(bare)@2;" },
	{ "[core]\n\tk = a \\\n\n", "core|-|k|a @2;" },
	{ "[core]\n\tk = \"\" x \"\"\n", "core|-|k|x @2;" },
	{ "[core] hooksPath = x\n", "core|-|hookspath|x@1;" },
	{ "[core]\n\tk = \"a b\"  \n", "core|-|k|a b@2;" },
	{ "[core]\n\tk = \".git\"hooks ; husky\n", "core|-|k|.githooks@2;" },
	{ "[core]\n\tk = a   b  # c\n", "core|-|k|a   b@2;" },
	{ "[core]\n\tk = \"a;b#c\"\n", "core|-|k|a;b#c@2;" },
	{ "[core]\n\tk = a\\\\b\\\"c\\td\n", "core|-|k|a\\b\"c\td@2;" },
	{ "[core]\n\tk = one\\\ntwo\n\tj = 3\n", "core|-|k|onetwo@2;core|-|j|3@4;" },
	{ "[core]\n\tk = \"one \\\n two\"\n", "core|-|k|one  two@2;" },
	{ "[core]\n\tk =\n", "core|-|k|@2;" },
	{ "[core]\r\n\tk = v\r\n", "core|-|k|v@2;" },
	{ "\xef\xbb\xbf[core]\nk=v\n", "core|-|k|v@2;" },
	{ "[includeIf \"gitdir:~/w/\"]\n\tpath = ../.gitconfig\n",
	  "includeif|gitdir:~/w/|path|../.gitconfig@2;" },
	{ "[remote \"Or\\\"ig\\\\in\"]\n\turl = x\n", "remote|Or\"ig\\in|url|x@2;" },
	{ "[Section.Sub]\n\tk = v\n", "section|sub|k|v@2;" },
	{ "[a]\n\tk-1 = v\n[b \"\"]\n\tk = w\n", "a|-|k-1|v@2;b||k|w@4;" },
	{ "k = v\n[core]\n", "|-|k|v@1;" },
	{ "[core.]\n\thooksPath = x\n[.y]\nk\n", "core||hookspath|x@2;|y|k|(bare)@4;" },
	{ "[core]\n\tk = a\tb\\", "core|-|k|a b@2;" },
	{ "[core]\r\n\tk = \"a\r\nb\"\r\n", NULL },
	{ "[core]\n\tk = \"a\rb\"\n", "core|-|k|a\rb@2;" },
	/* git's isspace is " \t\n\r": a form feed or a vertical tab is part
	 * of the value (git config --list: "core.hookspath=.husky\f"), so the
	 * directory git takes hooks from is ".husky\f", not ".husky". */
	{ "[core]\n\thooksPath = .husky\f\n", "core|-|hookspath|.husky\f@2;" },
	{ "[core]\n\thooksPath = \v.husky \v\n", "core|-|hookspath|\v.husky \v@2;" },
};

START_TEST(test_gitconf_accepts_git_syntax)
{
	dump d;
	osb_error e;
	int r = parse(good[_i].in, strlen(good[_i].in), &d, &e);

	if (!good[_i].out) {   /* a newline in quotes, even as "\r\n" */
		ck_assert_int_eq(r, -OSB_E_POLICY);
		return;
	}
	ck_assert_msg(r == 0, "%s: %s", good[_i].in, e.message);
	ck_assert_str_eq(d.buf, good[_i].out);
}
END_TEST

static const struct { const char *in; size_t len; const char *msg; } bad[] = {
	{ "[core\n\tk = v\n", 0, "/w/.git/config:1: invalid character in a section name" },
	{ "[]\n", 0, "/w/.git/config:1: empty or invalid section name" },
	{ "[core]\n\tk = \"open\n", 0, "/w/.git/config:2: unterminated quote in a value" },
	{ "[core]\n\tk = \"open", 0, "/w/.git/config:2: unterminated quote in a value" },
	{ "[core]\n\tk = a\\qb\n", 0, "/w/.git/config:2: invalid escape in a value" },
	{ "[core]\n\tk = \"a\\", 0, "/w/.git/config:2: unterminated quote in a value" },
	{ "[core]\n\tbare ; c\n", 0, "/w/.git/config:2: invalid character in a key name" },
	{ "[core]\n\tk v\n", 0, "/w/.git/config:2: invalid character in a key name" },
	{ "[core]\n\t_k = v\n", 0, "/w/.git/config:2: expected a section, a key or a comment" },
	{ "[core]\n\tk = a\0b\n", 14, "/w/.git/config:2: NUL byte" },
	{ "[co\0re]\n", 8, "/w/.git/config:1: invalid character in a section name" },
	{ "[core]\n\0", 8, "/w/.git/config:2: NUL byte" },
	{ "[x \"a\nb\"]\n", 0, "/w/.git/config:1: unterminated subsection" },
	{ "[x \"a\"\n", 0, "/w/.git/config:1: expected ']' after the subsection" },
	{ "[x a]\n", 0, "/w/.git/config:1: a subsection must be quoted" },
	{ "[x.y \"a\"]\n", 0, "/w/.git/config:1: a section name with a dot cannot have a quoted subsection" },
	{ "[core]\n\tk = ok\n\tj = \"\\x\"\n", 0, "/w/.git/config:3: invalid escape in a value" },
	/* git: "bad config line" for each */
	{ "[core]\n\f hooksPath = x\n", 0, "/w/.git/config:2: expected a section, a key or a comment" },
	{ "[core]\n\thooksPath \r= x\n", 0, "/w/.git/config:2: invalid character in a key name" },
	{ "[core]\n\thooksPath\v= x\n", 0, "/w/.git/config:2: invalid character in a key name" },
	{ "[core\v\"x\"]\n", 0, "/w/.git/config:1: invalid character in a section name" },
};

START_TEST(test_gitconf_refuses_what_git_refuses)
{
	dump d;
	osb_error e;
	size_t len = bad[_i].len ? bad[_i].len : strlen(bad[_i].in);
	int r = parse(bad[_i].in, len, &d, &e);

	ck_assert_int_eq(r, -OSB_E_POLICY);
	ck_assert_int_eq(e.code, OSB_E_POLICY);
	ck_assert_msg(strncmp(e.message, bad[_i].msg, strlen(bad[_i].msg)) == 0, "%s: got %s",
	              bad[_i].msg, e.message);
	ck_assert_ptr_nonnull(strstr(e.message, "correct the file"));
}
END_TEST

/* Long names and values: refused or taken whole, never cut. */
START_TEST(test_gitconf_hostile_sizes)
{
	size_t big = (size_t)1 << 20;
	char *in = malloc(big + 64);
	dump d;
	osb_error e;
	size_t n;
	int r;

	ck_assert_ptr_nonnull(in);
	n = (size_t)sprintf(in, "[");
	memset(in + n, 'a', 300);
	n += 300;
	n += (size_t)sprintf(in + n, "]\n");
	ck_assert_int_eq(parse(in, n, &d, &e), -OSB_E_POLICY);
	ck_assert_ptr_nonnull(strstr(e.message, "section name too long"));

	n = (size_t)sprintf(in, "[core]\n\t");
	memset(in + n, 'k', 300);
	n += 300;
	n += (size_t)sprintf(in + n, " = v\n");
	ck_assert_int_eq(parse(in, n, &d, &e), -OSB_E_POLICY);
	ck_assert_ptr_nonnull(strstr(e.message, "key name too long"));

	/* A megabyte of continuation lines: one value, the line counted. */
	n = (size_t)sprintf(in, "[core]\n\tk = ");
	while (n + 3 < big) {
		in[n++] = 'x';
		in[n++] = '\\';
		in[n++] = '\n';
	}
	n += (size_t)sprintf(in + n, "\n[z]\n\tq = 1");
	r = parse(in, n, &d, &e);
	ck_assert_msg(r == 0, "%s", e.message);
	ck_assert_ptr_nonnull(strstr(d.buf, "|z|-|q|1@") ? strstr(d.buf, "|z|-|q|1@") :
	                      strstr(d.buf, "z|-|q|1@"));
	free(in);
}
END_TEST

static int stop_at_two(void *ctx, const char *sec, const char *sub, const char *key,
                       const char *val, unsigned line)
{
	(void)sec; (void)sub; (void)key; (void)val;
	(*(unsigned *)ctx)++;
	return line == 2 ? -OSB_E_PATH : 0;
}

START_TEST(test_gitconf_callback_stops_the_parse)
{
	unsigned seen = 0;
	osb_error e = { 0 };
	const char *in = "[a]\nx = 1\ny = 2\n";

	ck_assert_int_eq(gitconf_parse(in, strlen(in), "f", stop_at_two, &seen, &e), -OSB_E_PATH);
	ck_assert_uint_eq(seen, 1);
}
END_TEST

static Suite *gitconf_suite(void)
{
	Suite *s = suite_create("gitconf");
	TCase *t = tcase_create("parse");

	tcase_add_loop_test(t, test_gitconf_accepts_git_syntax, 0, (int)(sizeof(good) / sizeof(good[0])));
	tcase_add_loop_test(t, test_gitconf_refuses_what_git_refuses, 0, (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_test(t, test_gitconf_hostile_sizes);
	tcase_add_test(t, test_gitconf_callback_stops_the_parse);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(gitconf_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

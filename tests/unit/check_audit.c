/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_audit.c — unit tests for the reviewer library (review/):
 * diagnostics from parse errors, every lint rule (flagged when the grant is
 * there, silent when it is not or is neutralized), waivers, audit scores and
 * their monotonicity, semantic diff, and the explain JSON. Grants the parser
 * would refuse on their own (a write beneath no write-root) are set on the
 * reviewer's model directly (review/model.h): lint and audit read only the
 * model, so that is exactly their input.
 */
#include "audit.h"
#include "diag.h"
#include "diff.h"
#include "explain.h"
#include "lint.h"
#include "viewdiff.h"
#include "reqpos.h"

#include <errno.h>

#include <check.h>
#include <json-c/json.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef TEST_SRCDIR
#define TEST_SRCDIR "."
#endif

static char tmpdir[64];

static void dir_setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/check_audit.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void dir_teardown(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	rmdir(tmpdir);
}

/* Write TEXT to NAME in the temp dir; return the path (static buffer per call slot). */
static const char *write_policy(const char *name, const char *text)
{
	static char paths[8][160];
	static int slot;
	char *path = paths[slot++ % 8];
	FILE *f;

	snprintf(path, 160, "%s/%s", tmpdir, name);
	f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* The reviewer's model of POL, which it owns from here on (free_model). */
static review_policy *model(osb_policy *pol)
{
	review_policy *m = calloc(1, sizeof(*m));

	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(review_model(pol, m), 0);
	return m;
}

static void free_model(review_policy *m)
{
	osb_policy *pol = (osb_policy *)m->pol;

	review_model_free(m);
	osb_policy_free(pol);
	free(m);
}

static review_policy *parse(const char *text)
{
	osb_error err = { 0 };
	osb_policy *p = osb_policy_parse(text, strlen(text), "t.policy", &err);

	ck_assert_msg(p != NULL, "parse failed: %s", err.message);
	return model(p);
}

static review_policy *load(const char *path)
{
	osb_error err = { 0 };
	osb_policy *p = osb_policy_load(path, &err);

	ck_assert_msg(p != NULL, "load failed: %s", err.message);
	return model(p);
}

/* A policy with every protection: lint finds nothing in it. */
#define SAFE_BASE \
	"osb-policy 1\n" \
	"root none\nro-bind /usr\nro-bind /etc\ntmpfs /tmp\ntmpfs /run\ndev /dev\nproc /proc\n" \
	"workspace rw\nnetwork none\nenv clear\nenv pass PATH LANG\n" \
	"env deny *_TOKEN *_API_KEY *_SECRET_KEY *_SECRET *_PASSWORD AWS_* AZURE_* VAULT_*\n" \
	"env deny GOOGLE_APPLICATION_CREDENTIALS PGPASSWORD MYSQL_PWD SSH_AUTH_SOCK KUBECONFIG\n" \
	"limit wall 10m\nlimit nofile 1024\nlimit fsize 1GiB\n" \
	"read-only workspace:.git\n"

static const rv_origin test_origin = { "t.policy", 99, 0, NULL };

/* Grants on the model. The strings are owned by the model from here on. */
static void add_str(rv_str **v, size_t *n, const char *s)
{
	*v = realloc(*v, (*n + 1) * sizeof(**v));
	ck_assert_ptr_nonnull(*v);
	(*v)[*n] = (rv_str){ strdup(s), test_origin };
	(*n)++;
}

static void add_write(review_policy *p, const char *path) { add_str(&p->writes, &p->n_writes, path); }
static void add_read_only(review_policy *p, const char *path) { add_str(&p->read_only, &p->n_read_only, path); }

static void add_sc_allow(review_policy *p, const char *name)
{
	p->sc_rules = realloc(p->sc_rules, (p->n_sc_rules + 1) * sizeof(*p->sc_rules));
	ck_assert_ptr_nonnull(p->sc_rules);
	p->sc_rules[p->n_sc_rules++] = (rv_sc){ strdup(name), true, 0, test_origin };
}

static void set_seccomp_none(review_policy *p)
{
	p->sc_mode = SC_NONE;
	p->sc_mode_set = (rv_set){ true, test_origin };
}

static void set_landlock_off(review_policy *p)
{
	p->landlock = LL_OFF;
	p->landlock_set = (rv_set){ true, test_origin };
}

/* "CODE message" of every finding, one a line. */
static char *findings_of(const review_policy *p)
{
	lint_report r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_int_eq(lint_policy(p, &r), 0);
	for (size_t i = 0; i < r.n; i++)
		fprintf(f, "%s%s %s\n", r.v[i].waiver ? "waived " : "", r.v[i].rule->code, r.v[i].message);
	fclose(f);
	lint_report_free(&r);
	return buf;
}

/* ---- diagnostics -------------------------------------------------------------- */

START_TEST(test_diag_splits_position_from_file_with_colons)
{
	osb_error err = { .code = OSB_E_POLICY };
	diag d;

	snprintf(err.message, sizeof(err.message),
	         "dir:x/a.policy:12:7: unknown directive \"wirte\" (did you mean \"write\"?)");
	ck_assert_int_eq(diag_from_error(&err, "dir:x/a.policy", &d), 0);
	ck_assert_str_eq(d.file, "dir:x/a.policy");
	ck_assert_uint_eq(d.line, 12);
	ck_assert_uint_eq(d.col, 7);
	ck_assert_str_eq(d.code, "E003");
	ck_assert_str_eq(d.text, "unknown directive \"wirte\" (did you mean \"write\"?)");
	diag_free(&d);
}
END_TEST

START_TEST(test_diag_without_position_keeps_file_and_strips_prefix)
{
	osb_error err = { .code = OSB_E_POLICY };
	diag d;

	snprintf(err.message, sizeof(err.message), "/x/y.policy: cannot read policy: No such file or directory");
	ck_assert_int_eq(diag_from_error(&err, "/x/y.policy", &d), 0);
	ck_assert_str_eq(d.file, "/x/y.policy");
	ck_assert_uint_eq(d.line, 0);
	ck_assert_str_eq(d.text, "cannot read policy: No such file or directory");
	ck_assert_str_eq(d.code, "E012");
	diag_free(&d);
}
END_TEST

/* Each class of malformed text maps to its code, at the parser's position. */
START_TEST(test_diag_code_for_every_malformed_class)
{
	static const struct {
		const char *text;
		unsigned line, col;
		const char *code;
	} cases[] = {
		{ "osb-policy 1\nnetwork\tnone\r\n", 2, 13, "E001" },
		{ "osb-policy 1\nhostname \xe2\x80\xae" "abc\n", 2, 10, "E001" },
		{ "network none\n", 1, 1, "E002" },
		{ "osb-policy 2\n", 1, 12, "E002" },
		{ "# nothing\n", 2, 1, "E002" },
		{ "osb-policy 1\nnetwrok none\n", 2, 1, "E003" },
		{ "osb-policy 1\nnetwork hots\n", 2, 9, "E005" },
		{ "osb-policy 1\nnetwork\n", 2, 1, "E004" },
		{ "osb-policy 1\nnetwork none host\n", 2, 14, "E004" },
		{ "osb-policy 1\nro-bind usr\n", 2, 9, "E006" },
		{ "osb-policy 1\ntmpfs /a/../b\n", 2, 7, "E006" },
		{ "osb-policy 1\nhide /a/*\n", 2, 6, "E006" },
		{ "osb-policy 1\nuser sandbox 1000 x\n", 2, 19, "E007" },
		{ "osb-policy 1\nlimit wall 10\n", 2, 12, "E007" },
		{ "osb-policy 1\nlimit fsize 1PB\n", 2, 13, "E007" },
		{ "osb-policy 1\nenv set 1A=b\n", 2, 9, "E007" },
		{ "osb-policy 1\nnetwork none\nnetwork host\n", 3, 1, "E008" },
		{ "osb-policy 1\ntmpfs /x\nhide /x\n", 3, 6, "E008" },
		{ "osb-policy 1\ninclude ../x\n", 2, 9, "E010" },
		{ "osb-policy 1\ninclude /nonexistent/osb-x.policy\n", 2, 9, "E010" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		osb_error err = { 0 };
		osb_policy *p = osb_policy_parse(cases[i].text, strlen(cases[i].text), "m.policy", &err);
		diag d;

		ck_assert_msg(p == NULL, "case %zu parsed", i);
		ck_assert_int_eq(diag_from_error(&err, "m.policy", &d), 0);
		ck_assert_msg(strcmp(d.file, "m.policy") == 0 && d.line == cases[i].line &&
		              d.col == cases[i].col && strcmp(d.code, cases[i].code) == 0,
		              "case %zu: %s:%u:%u %s (%s)", i, d.file, d.line, d.col, d.code, d.text);
		diag_free(&d);
	}
}
END_TEST

/* ---- lint ------------------------------------------------------------------------ */

START_TEST(test_lint_safe_policy_has_no_findings)
{
	review_policy *p = parse(SAFE_BASE);
	char *f = findings_of(p);

	ck_assert_str_eq(f, "");
	free(f);
	free_model(p);
}
END_TEST

START_TEST(test_lint_rule_codes_are_unique_and_explained)
{
	size_t n;
	const lint_rule *r = lint_rules(&n);

	ck_assert_uint_ge(n, 18);
	for (size_t i = 0; i < n; i++) {
		ck_assert_uint_eq(strlen(r[i].code), 4);
		ck_assert_uint_ge(strlen(r[i].why), 60);
		ck_assert_ptr_eq(lint_rule_find(r[i].code), &r[i]);
		for (size_t j = i + 1; j < n; j++) {
			ck_assert_str_ne(r[i].code, r[j].code);
			ck_assert_str_ne(r[i].name, r[j].name);
		}
	}
}
END_TEST

typedef void (*mutate_fn)(review_policy *p);

static void g_write_home(review_policy *p) { add_write(p, "/home/alice"); }
static void g_write_root_home(review_policy *p) { add_write(p, "/root"); }
static void g_write_slash(review_policy *p) { add_write(p, "/"); }
static void g_write_etc(review_policy *p) { add_write(p, "/etc/cron.d"); }
static void g_write_rc(review_policy *p) { add_write(p, "/srv/u/.bashrc"); }
static void g_write_rc_protected(review_policy *p) { add_write(p, "/srv/u/.zshrc"); add_read_only(p, "/srv/u/.zshrc"); }
static void g_write_git(review_policy *p) { add_write(p, "/srv/repo/.git"); }
static void g_write_git_hook(review_policy *p) { add_write(p, "/srv/repo/.git/hooks/pre-commit"); }
static void g_write_git_protected(review_policy *p)
{
	add_write(p, "/srv/repo/.git");
	add_read_only(p, "/srv/repo/.git/hooks");
	add_read_only(p, "/srv/repo/.git/config");
}
static void g_write_git_objects(review_policy *p) { add_write(p, "/srv/repo/.git/objects"); }
static void g_write_plain(review_policy *p) { add_write(p, "/srv/data"); }
static void g_write_run(review_policy *p) { add_write(p, "/run/containerd"); }
static void g_write_tmp(review_policy *p) { add_write(p, "/tmp/shared"); }
static void g_seccomp_none(review_policy *p) { set_seccomp_none(p); }
static void g_seccomp_allow(review_policy *p) { add_sc_allow(p, "ptrace"); }

static const struct lint_case {
	const char *name;
	const char *extra;       /* lines added to SAFE_BASE (NULL: use TEXT) */
	const char *text;        /* whole policy instead of SAFE_BASE + EXTRA */
	mutate_fn mutate;
	const char *want;        /* the exact findings, "CODE message\n" each */
} lint_cases[] = {
	{ "write home", "", NULL, g_write_home, "W101 \"write /home/alice\" makes a home directory writable\n"
	  "W120 \"write /home/alice\" shows /home/*/.ssh (credentials) to the sandbox\n" },
	{ "write /root", "", NULL, g_write_root_home, "W101 \"write /root\" makes a home directory writable\n"
	  "W120 \"write /root\" shows /root/.ssh (credentials) to the sandbox\n" },
	{ "write /", "", NULL, g_write_slash,
	  "E104 \"tmpfs /tmp\" would be covered by the bind of / (t.policy:99)\n"
	  "E104 \"tmpfs /run\" would be covered by the bind of / (t.policy:99)\n"
	  "E104 \"dev /dev\" would be covered by the bind of / (t.policy:99)\n"
	  "E104 \"proc /proc\" would be covered by the bind of / (t.policy:99)\n"
	  "W102 \"write /\" makes the whole host file system writable\n"
	  "W106 \"write /\" makes the host's /run/docker.sock reachable\n"
	  "W108 \"write /\" shares the host's /tmp\n"
	  "W120 \"write /\" shows /home/*/.ssh (credentials) to the sandbox\n" },
	{ "write /etc", "", NULL, g_write_etc, "W103 \"write /etc/cron.d\" makes host configuration writable\n" },
	{ "write rc", "", NULL, g_write_rc, "W104 \"write /srv/u/.bashrc\" makes a shell startup file writable\n" },
	{ "write rc read-only", "", NULL, g_write_rc_protected, "" },
	{ "write .git", "", NULL, g_write_git, "W105 \"write /srv/repo/.git\" makes git hooks or git configuration writable\n" },
	{ "write hook", "", NULL, g_write_git_hook,
	  "W105 \"write /srv/repo/.git/hooks/pre-commit\" makes git hooks or git configuration writable\n" },
	{ "write .git protected", "", NULL, g_write_git_protected, "" },
	{ "write .git/objects", "", NULL, g_write_git_objects, "" },
	{ "write plain", "", NULL, g_write_plain, "" },
	{ "write-root over homes", "write-root /home\n", NULL, NULL,
	  "W101 \"write-root /home\" lets requests make a home directory writable\n"
	  "W120 \"write-root /home\" lets a caller show /home/*/.ssh (credentials) to the sandbox\n" },
	{ "write-root over /etc", "write-root /etc/app\n", NULL, NULL,
	  "W103 \"write-root /etc/app\" lets requests make host configuration writable\n" },
	{ "write-root for jobs", "write-root /srv/jobs\n", NULL, NULL, "" },
	{ "write /run/containerd", "", NULL, g_write_run,
	  "W106 \"write /run/containerd\" makes the host's /run/containerd/containerd.sock reachable\n" },
	{ "write /tmp/shared", "", NULL, g_write_tmp, "W108 \"write /tmp/shared\" shares the host's /tmp\n" },
	{ "docker.sock bound", "ro-bind /var/run/docker.sock\n", NULL, NULL,
	  "W106 \"ro-bind /var/run/docker.sock\" makes the host's /run/docker.sock reachable\n" },
	{ "podman dir bound", "ro-bind /run/podman\n", NULL, NULL,
	  "W106 \"ro-bind /run/podman\" makes the host's /run/podman/podman.sock reachable\n" },
	{ "host /run", NULL, "osb-policy 1\nroot host-ro\ntmpfs /tmp\ndev /dev\nproc /proc\nlimit wall 1m\n", NULL,
	  "W106 \"root host-ro\" makes the host's /run/docker.sock reachable\n"
	  "W118 \"root host-ro\" shows every Unix socket of the host the sandbox identity can reach\n"
	  "W120 \"root host-ro\" shows /home/*/.ssh (credentials) to the sandbox\n" },
	{ "host /tmp and /dev/shm", NULL, "osb-policy 1\nroot host-ro\ntmpfs /run\nproc /proc\nlimit wall 1m\n", NULL,
	  "W108 \"root host-ro\" shares the host's /tmp\n"
	  "W118 \"root host-ro\" shows every Unix socket of the host the sandbox identity can reach\n"
	  "W120 \"root host-ro\" shows /home/*/.ssh (credentials) to the sandbox\n" },
	{ "host view, private /run and /tmp", NULL, "osb-policy 1\nroot host-ro\ntmpfs /tmp\n"
	  "tmpfs /run\ndev /dev\nproc /proc\nlimit wall 1m\n", NULL,
	  "W118 \"root host-ro\" shows every Unix socket of the host the sandbox identity can reach\n"
	  "W120 \"root host-ro\" shows /home/*/.ssh (credentials) to the sandbox\n" },
	{ "host view by ro-bind /", NULL, "osb-policy 1\nro-bind /\ntmpfs /tmp\n"
	  "tmpfs /run\ndev /dev\nproc /proc\nlimit wall 1m\n", NULL,
	  "W106 \"ro-bind /\" makes the host's /run/docker.sock reachable\n"
	  "W108 \"ro-bind /\" shares the host's /tmp\n"
	  "W118 \"ro-bind /\" shows every Unix socket of the host the sandbox identity can reach\n"
	  "W120 \"ro-bind /\" shows /home/*/.ssh (credentials) to the sandbox\n"
	  /* The launch refuses mounts a bind of / would cover. */
	  "E104 \"tmpfs /tmp\" would be covered by the bind of / (t.policy:2)\n"
	  "E104 \"tmpfs /run\" would be covered by the bind of / (t.policy:2)\n"
	  "E104 \"dev /dev\" would be covered by the bind of / (t.policy:2)\n"
	  "E104 \"proc /proc\" would be covered by the bind of / (t.policy:2)\n" },
	{ "X11 dir bound", "ro-bind /tmp/.X11-unix\n", NULL, NULL,
	  "W108 \"ro-bind /tmp/.X11-unix\" shares the host's /tmp\n" },
	{ "root none needs no tmpfs", NULL, "osb-policy 1\nproc /proc\nlimit wall 1m\n", NULL, "" },
	{ "network host", NULL, "osb-policy 1\nproc /proc\nnetwork host\nlimit wall 1m\n", NULL,
	  "W107 \"network host\" shares the host's network namespace\n" },
	{ "seccomp none", "", NULL, g_seccomp_none, "W109 \"seccomp none\" turns the syscall filter off\n" },
	{ "seccomp allow", "", NULL, g_seccomp_allow,
	  "W110 \"seccomp allow ptrace\" removes ptrace from the default deny group\n" },
	{ "inherit without deny", NULL, "osb-policy 1\nproc /proc\nenv inherit\nlimit wall 1m\n", NULL,
	  "W111 \"env inherit\" passes credential-shaped variables no env deny pattern removes "
	  "(GITHUB_TOKEN, GH_TOKEN, GITLAB_TOKEN, NPM_TOKEN, ...)\n" },
	{ "inherit with deny list", NULL, "osb-policy 1\nproc /proc\nenv inherit\nlimit wall 1m\n"
	  "env deny *_TOKEN *_API_KEY *_SECRET_KEY *_SECRET *_PASSWORD AWS_* AZURE_* VAULT_*\n"
	  "env deny GOOGLE_APPLICATION_CREDENTIALS PGPASSWORD MYSQL_PWD SSH_AUTH_SOCK KUBECONFIG\n"
	  "env deny PASSWORD TOKEN *TOKEN SECRET_KEY *_JWT *_JWT_* *_AUTH_*\n", NULL, "" },
	{ "inherit with a partial deny list", NULL,
	  "osb-policy 1\nproc /proc\nenv inherit\nenv deny *_TOKEN *_API_KEY *_SECRET_KEY *_SECRET *_PASSWORD\n"
	  "env deny PASSWORD TOKEN *TOKEN SECRET_KEY *_JWT *_JWT_* *_AUTH_*\n"
	  "env deny GOOGLE_APPLICATION_CREDENTIALS PGPASSWORD MYSQL_PWD SSH_AUTH_SOCK KUBECONFIG\nlimit wall 1m\n", NULL,
	  "W111 \"env inherit\" passes credential-shaped variables no env deny pattern removes "
	  "(AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)\n" },
	/* Deny patterns ignore case, as the library applies them; bare and
	 * lower-case names of real CI systems count as secrets. */
	{ "inherit, a deny list in lower case", NULL,
	  "osb-policy 1\nproc /proc\nenv inherit\nlimit wall 1m\nenv deny *_token *_api_key *_secret_key\n"
	  "env deny *_secret *_password aws_* azure_* vault_* google_application_credentials\n"
	  "env deny pgpassword mysql_pwd ssh_auth_sock kubeconfig password token *token secret_key\n"
	  "env deny *_jwt *_jwt_* *_auth_*\n", NULL, "" },
	{ "inherit, the bare names let through", NULL,
	  "osb-policy 1\nproc /proc\nenv inherit\nlimit wall 1m\nenv deny *_TOKEN *_API_KEY *_SECRET_KEY\n"
	  "env deny *_SECRET *_PASSWORD AWS_* AZURE_* VAULT_* GOOGLE_APPLICATION_CREDENTIALS\n"
	  "env deny PGPASSWORD MYSQL_PWD SSH_AUTH_SOCK KUBECONFIG\n", NULL,
	  "W111 \"env inherit\" passes credential-shaped variables no env deny pattern removes "
	  "(PASSWORD, TOKEN, SECRET_KEY, npm_config__authToken, ...)\n" },
	{ "pass a token", NULL, "osb-policy 1\nproc /proc\nenv pass GITHUB_TOKEN\nlimit wall 1m\n", NULL,
	  "W112 \"env pass GITHUB_TOKEN\" passes a credential-shaped variable\n" },
	{ "pass a lower-case secret", NULL, "osb-policy 1\nproc /proc\nenv pass db_password\nlimit wall 1m\n", NULL,
	  "W112 \"env pass db_password\" passes a credential-shaped variable\n" },
	{ "pass everything", NULL, "osb-policy 1\nproc /proc\nenv pass *\nenv deny *_TOKEN\nlimit wall 1m\n", NULL,
	  "W112 \"env pass *\" admits credential-shaped variables (OPENAI_API_KEY, ANTHROPIC_API_KEY, "
	  "STRIPE_SECRET_KEY, AWS_ACCESS_KEY_ID, ...)\n" },
	{ "pass a denied token", "env pass GITHUB_TOKEN\n", NULL, NULL, "" },
	{ "pass harmless names", NULL, "osb-policy 1\nproc /proc\nenv pass PATH LC_* PWD\nlimit wall 1m\n", NULL, "" },
	{ "set a token", "env set API_TOKEN=abc\n", NULL, NULL,
	  "W113 \"env set API_TOKEN=...\" writes a credential-shaped variable into the policy\n" },
	{ "no wall limit", NULL, "osb-policy 1\nproc /proc\n", NULL,
	  "W114 no \"limit wall\": commands may run forever\n" },
	{ "wall unlimited", NULL, "osb-policy 1\nproc /proc\nlimit wall unlimited\n", NULL,
	  "W114 \"limit wall unlimited\": commands may run forever\n" },
	{ "uid 0", NULL, "osb-policy 1\nproc /proc\nuser root 0 0\nlimit wall 1m\n", NULL,
	  "E101 \"user root 0 0\" runs user code as uid 0\n" },
	{ "gid 0", NULL, "osb-policy 1\nproc /proc\nuser u 1000 0\nlimit wall 1m\n", NULL,
	  "E101 \"user u 1000 0\" runs user code as gid 0\n" },
	{ "no proc", NULL, "osb-policy 1\nlimit wall 1m\n", NULL,
	  "E102 the policy mounts no /proc (\"proc /proc\" is missing)\n" },
	{ "writable workspace, git unprotected", NULL,
	  "osb-policy 1\nproc /proc\nworkspace rw\nread-only workspace:.git/hooks\nlimit wall 1m\n", NULL,
	  "W105 \"workspace rw\" leaves the workspace's .git writable (add "
	  "\"read-only workspace:.git\")\n" },
	{ "read-only workspace", NULL, "osb-policy 1\nproc /proc\nworkspace ro\nlimit wall 1m\n", NULL, "" },
	{ "host-ids of an account", NULL, "osb-policy 1\nproc /proc\nhost-ids 1 1879300000\nlimit wall 1m\n",
	  NULL, "W116 \"host-ids 1 1879300000\" is the uid of an account of this host\n" },
	{ "host-ids of nobody's", NULL,
	  "osb-policy 1\nproc /proc\nhost-ids 1879300000 1879300000\nlimit wall 1m\n", NULL, "" },
};

START_TEST(test_lint_each_risky_grant_flagged_with_its_code)
{
	const struct lint_case *c = &lint_cases[_i];
	char text[4096];
	review_policy *p;
	char *got;

	if (c->text)
		snprintf(text, sizeof(text), "%s", c->text);
	else
		snprintf(text, sizeof(text), "%s%s", SAFE_BASE, c->extra);
	p = parse(text);
	if (c->mutate)
		c->mutate(p);
	got = findings_of(p);
	ck_assert_msg(strcmp(got, c->want) == 0, "%s:\n got: %s\nwant: %s", c->name, got, c->want);
	free(got);
	free_model(p);
}
END_TEST

/* TEMPLATE with each '@' replaced by PATH. */
static void subst_at(char *out, size_t size, const char *template, const char *path)
{
	size_t used = 0;

	for (const char *c = template; *c && used + 1 < size; c++) {
		if (*c == '@')
			used += (size_t)snprintf(out + used, size - used, "%s", path);
		else
			out[used++] = *c;
	}
	out[used < size ? used : size - 1] = '\0';
}

START_TEST(test_lint_include_widening_each_scalar)
{
	static const struct {
		const char *base, *top, *want;
	} cases[] = {
		{ "network none\n", "network host\n",
		  "W107 \"network host\" shares the host's network namespace\n"
		  "W115 \"network host\" widens \"network none\" of the included @:3\n" },
		{ "env clear\n", "env inherit\n",
		  "W111 \"env inherit\" passes credential-shaped variables no env deny pattern removes "
		  "(OPENAI_API_KEY, ANTHROPIC_API_KEY, STRIPE_SECRET_KEY, AWS_ACCESS_KEY_ID, ...)\n"
		  "W115 \"env inherit\" widens \"env clear\" of the included @:3\n" },
		{ "workspace ro\n", "workspace rw\nread-only workspace:.git\n",
		  "W115 \"workspace rw\" widens \"workspace ro\" of the included @:3\n" },
		{ "root none\n", "root host-ro\ntmpfs /tmp\ntmpfs /run\ndev /dev\n",
		  "W115 \"root host-ro\" widens \"root none\" of the included @:3\n"
		  "W118 \"root host-ro\" shows every Unix socket of the host the sandbox identity can reach\n"
	  "W120 \"root host-ro\" shows /home/*/.ssh (credentials) to the sandbox\n" },
		{ "limit wall 1m\n", "limit wall 2h\n",
		  "W115 \"limit wall 7200000ms\" widens \"limit wall 60000ms\" of the included @:3\n" },
		{ "limit fsize 1MiB\n", "limit fsize unlimited\n",
		  "W115 \"limit fsize unlimited\" widens \"limit fsize 1048576B\" of the included @:3\n" },
		{ "seccomp osb-default-2\n", "seccomp osb-default-1\n",
		  "W115 \"seccomp osb-default-1\" widens \"seccomp osb-default-2\" of the included @:3\n" },
		{ "seccomp osb-default-3\n", "seccomp osb-default-2\n",
		  "W115 \"seccomp osb-default-2\" widens \"seccomp osb-default-3\" of the included @:3\n" },
		{ "seccomp osb-default-1\n", "seccomp default\n", "" },
		{ "network host\n", "network none\n",
		  "" },   /* narrowing is not flagged */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char base[512], top[512], want[1024], *got;
		const char *bp;
		review_policy *p;

		snprintf(base, sizeof(base), "osb-policy 1\nenv deny *_TOKEN\n%sproc /proc\nlimit nofile 9\n", cases[i].base);
		bp = write_policy("base.policy", base);
		snprintf(top, sizeof(top), "osb-policy 1\ninclude ./base\n%s%s", cases[i].top,
		         strstr(cases[i].base, "limit wall") ? "" : "limit wall 1m\n");
		p = load(write_policy("top.policy", top));
		got = findings_of(p);
		subst_at(want, sizeof(want), cases[i].want, bp);
		ck_assert_msg(strcmp(got, want) == 0, "case %zu:\n got: %s\nwant: %s", i, got, want);
		free(got);
		free_model(p);
	}
}
END_TEST

START_TEST(test_lint_positions_point_at_directive_column)
{
	const char *path = write_policy("pos.policy", "# header\n\nosb-policy 1\nproc /proc\n   network host\n");
	review_policy *p = load(path);
	lint_report r;

	ck_assert_int_eq(lint_policy(p, &r), 0);
	ck_assert_uint_eq(r.n, 2);
	/* The default (no wall limit) points at the version line. */
	ck_assert_str_eq(r.v[0].rule->code, "W114");
	ck_assert_str_eq(r.v[0].file, path);
	ck_assert_uint_eq(r.v[0].line, 3);
	ck_assert_uint_eq(r.v[0].col, 1);
	ck_assert(r.v[0].from_default);
	ck_assert_str_eq(r.v[1].rule->code, "W107");
	ck_assert_uint_eq(r.v[1].line, 5);
	ck_assert_uint_eq(r.v[1].col, 4);
	lint_report_free(&r);
	free_model(p);
}
END_TEST

START_TEST(test_lint_waiver_silences_next_directive_only)
{
	const char *path = write_policy("w.policy",
		"# osb-lint: waive W114 -- runs are bounded by the caller's own timeout\n"
		"osb-policy 1\nproc /proc\n"
		"# osb-lint: waive W107 -- fetches dependencies\n"
		"\n# another comment\n"
		"network host\n"
		"env inherit\n");
	review_policy *p = load(path);
	char *got = findings_of(p);

	ck_assert_str_eq(got,
		"waived W114 no \"limit wall\": commands may run forever\n"
		"waived W107 \"network host\" shares the host's network namespace\n"
		"W111 \"env inherit\" passes credential-shaped variables no env deny pattern removes "
		"(GITHUB_TOKEN, GH_TOKEN, GITLAB_TOKEN, NPM_TOKEN, ...)\n");
	free(got);
	free_model(p);
}
END_TEST

START_TEST(test_lint_waiver_reason_and_line_recorded)
{
	const char *path = write_policy("w.policy",
		"osb-policy 1\nproc /proc\nlimit wall 1m\n#osb-lint: waive W107,W111 -- needs the registry\nnetwork host\n");
	review_policy *p = load(path);
	lint_report r;

	ck_assert_int_eq(lint_policy(p, &r), 0);
	ck_assert_uint_eq(r.n, 2);
	/* W111 matched nothing on line 5: the unused waiver is reported. */
	ck_assert_str_eq(r.v[0].rule->code, "W191");
	ck_assert_str_eq(r.v[0].message, "waiver of W111 matches no finding on line 5");
	ck_assert_uint_eq(r.v[0].line, 4);
	ck_assert_uint_eq(r.v[0].col, 1);
	ck_assert_ptr_null(r.v[0].waiver);
	ck_assert_str_eq(r.v[1].rule->code, "W107");
	ck_assert_str_eq(r.v[1].waiver, "needs the registry");
	ck_assert_uint_eq(r.v[1].waiver_line, 4);
	ck_assert_uint_eq(r.n_waived, 1);
	lint_report_free(&r);
	free_model(p);
}
END_TEST

START_TEST(test_lint_malformed_waivers_reported)
{
	static const struct {
		const char *comment, *want;
	} cases[] = {
		{ "# osb-lint: waive W107\n", "W190 malformed waiver: missing \"-- REASON\"\n" },
		{ "# osb-lint: waive W107 --   \n", "W190 malformed waiver: the reason after \"--\" is empty\n" },
		{ "# osb-lint: allow W107 -- x\n", "W190 malformed waiver: expected \"waive\" after \"osb-lint:\"\n" },
		{ "# osb-lint: waive W999 -- x\n", "W190 malformed waiver: unknown code, or one that cannot be waived\n" },
		{ "# osb-lint: waive E101 -- x\n", "W190 malformed waiver: unknown code, or one that cannot be waived\n" },
		{ "# osb-lint: waive W191 -- x\n", "W190 malformed waiver: unknown code, or one that cannot be waived\n" },
		{ "# osb-lint: waive -- x\n", "W190 malformed waiver: no code to waive\n" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[512], *got;
		review_policy *p;

		snprintf(text, sizeof(text), "osb-policy 1\nproc /proc\nlimit wall 1m\n%suser u 1000 1000\n",
		         cases[i].comment);
		p = load(write_policy("m.policy", text));
		got = findings_of(p);
		ck_assert_msg(strcmp(got, cases[i].want) == 0, "case %zu: %s", i, got);
		free(got);
		free_model(p);
	}
}
END_TEST

START_TEST(test_lint_errors_cannot_be_waived)
{
	review_policy *p = load(write_policy("e.policy",
		"osb-policy 1\nproc /proc\nlimit wall 1m\n# osb-lint: waive W107 -- x\nuser root 0 0\n"));
	char *got = findings_of(p);

	ck_assert_str_eq(got, "W191 waiver of W107 matches no finding on line 5\n"
	                      "E101 \"user root 0 0\" runs user code as uid 0\n");
	free(got);
	free_model(p);
}
END_TEST

START_TEST(test_lint_waiver_in_include_covers_only_its_own_lines)
{
	const char *base = write_policy("base.policy",
		"# osb-lint: waive W114 -- the includer sets the limit\nosb-policy 1\nproc /proc\n");
	review_policy *p = load(write_policy("top.policy", "osb-policy 1\ninclude ./base\n"));
	char *got = findings_of(p);
	char want[512];

	/* The default is reported at the top file; the include's waiver is unused. */
	snprintf(want, sizeof(want), "W191 waiver of W114 matches no finding on line 2\n"
	         "W114 no \"limit wall\": commands may run forever\n");
	ck_assert_str_eq(got, want);
	(void)base;
	free(got);
	free_model(p);
}
END_TEST

START_TEST(test_lint_shipped_strict_is_clean)
{
	review_policy *p = load(TEST_SRCDIR "/policy/strict.policy");
	char *got = findings_of(p);

	ck_assert_str_eq(got, "");
	free(got);
	free_model(p);
}
END_TEST

/* ---- audit ------------------------------------------------------------------------ */

/* A host of known shape, so that scores do not depend on the machine the
 * tests run on: its / holds these entries (/work is one audit.c does not
 * name). */
static char *test_top[] = {
	"/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib64", "/media", "/mnt", "/opt",
	"/proc", "/root", "/run", "/sbin", "/srv", "/sys", "/tmp", "/usr", "/var", "/work",
};
static const audit_host test_host = { test_top, sizeof(test_top) / sizeof(test_top[0]) };

static void audit_of(const review_policy *p, audit_report *r)
{
	ck_assert_int_eq(audit_policy_on(p, &test_host, r), 0);
}

static unsigned score(const review_policy *p)
{
	audit_report r;
	unsigned total;

	audit_of(p, &r);
	total = r.total;
	audit_report_free(&r);
	return total;
}

START_TEST(test_audit_weights_sum_to_max)
{
	review_policy *p = parse("osb-policy 1\n");
	audit_report r;
	unsigned sum = 0;

	audit_of(p, &r);
	ck_assert_uint_eq(r.n, 13);
	for (size_t i = 0; i < r.n; i++) {
		sum += r.v[i].weight;
		ck_assert_uint_le(r.v[i].points, r.v[i].weight);
		ck_assert_ptr_nonnull(r.v[i].detail);
	}
	ck_assert_uint_eq(sum, AUDIT_MAX);
	/* landlock auto 2, no wall limit 3, no fsize, nofile, memory, pids 4,
	 * an unprivileged caller's sandbox is the caller 2 */
	ck_assert_uint_eq(r.total, 11);
	audit_report_free(&r);
	free_model(p);
}
END_TEST

START_TEST(test_audit_shipped_strict_score_pinned)
{
	review_policy *p = load(TEST_SRCDIR "/policy/strict.policy");
	audit_report r;

	audit_of(p, &r);
	/* host-view 1 (root none, /usr and /etc), workspace 5 (rw), landlock 2
	 * (auto), no memory or pids limit 2, the caller's identity 2. */
	ck_assert_uint_eq(r.total, 12);
	ck_assert_str_eq(r.v[0].id, "A01");
	ck_assert_uint_eq(r.v[0].points, 1);
	ck_assert_str_eq(r.v[0].detail, "readable: system directories");
	ck_assert_str_eq(r.v[12].id, "A13");
	ck_assert_uint_eq(r.v[12].points, 0);
	ck_assert_str_eq(audit_level(r.total), "low");
	audit_report_free(&r);
	free_model(p);
}
END_TEST

/* Every check's points of TEXT, as "A01=1 A02=0 ...", and the total. */
static char *points_of(const char *text)
{
	review_policy *p = parse(text);
	audit_report r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	audit_of(p, &r);
	for (size_t i = 0; i < r.n; i++)
		fprintf(f, "%s=%u ", r.v[i].id, r.v[i].points);
	fprintf(f, "total=%u", r.total);
	fclose(f);
	audit_report_free(&r);
	free_model(p);
	return buf;
}

static void append(char *buf, size_t size, const char *s)
{
	size_t used = strlen(buf);

	ck_assert_uint_lt(used + strlen(s), size);
	memcpy(buf + used, s, strlen(s) + 1);
}

/* Policies that show the host alike score alike, check by check: the
 * score is of the effective view, so no rewording of a view buys points.
 * Each pair builds the same view in two ways. */
START_TEST(test_audit_same_view_same_score)
{
	static const char base[] = "osb-policy 1\nproc /proc\ndev /dev\ntmpfs /tmp\nworkspace rw\n"
	                           "limit wall 10m\n";
	static const char *const pairs[][2] = {
		/* A call the group allows anyway: allowing it changes nothing. */
		{ "", "seccomp allow uname\n" },
		{ "seccomp allow ptrace\n", "seccomp allow ptrace uname getpid\n" },
		/* /var/run is /run. */
		{ "ro-bind /run/docker.sock\n", "ro-bind /var/run/docker.sock\n" },
		/* A deny pattern that nothing could pass through. */
		{ "", "env deny *_TOKEN\n" },
		/* Two writes in one area count as the area. */
		{ "write-root /srv\nwrite /srv/a\n", "write-root /srv\nwrite /srv/a\nwrite /srv/b\n" },
		/* A best-effort bound may not hold: scored as none. */
		{ "", "limit memory 1GiB best-effort\nlimit pids 64 best-effort\n" },
		/* Homes, /root and /etc, bound one by one or left by root host-ro. */
		{ "ro-bind /home\nro-bind /root\nro-bind /etc\n",
		  "root host-ro\ntmpfs /bin\ntmpfs /boot\ntmpfs /lib\ntmpfs /lib64\ntmpfs /media\n"
		  "tmpfs /mnt\ntmpfs /opt\ntmpfs /run\ntmpfs /sbin\ntmpfs /srv\ntmpfs /sys\n"
		  "tmpfs /usr\ntmpfs /var\ntmpfs /work\n" },
	};

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		char a[2048] = "", b[2048] = "", *pa, *pb;

		append(a, sizeof(a), base);
		append(a, sizeof(a), pairs[i][0]);
		append(b, sizeof(b), base);
		append(b, sizeof(b), pairs[i][1]);
		pa = points_of(a);
		pb = points_of(b);
		ck_assert_msg(strcmp(pa, pb) == 0, "pair %zu:\n%s\n%s", i, pa, pb);
		free(pa);
		free(pb);
	}
}
END_TEST

/* root host-ro against root none with a bind of every top-level entry of
 * the host (the 19 directories): the same view, the same score,
 * check by check; and on this very host too. */
static void host_ro_rebuilt(const audit_host *h)
{
	static const char base[] = "osb-policy 1\nproc /proc\ndev /dev\ntmpfs /tmp\nworkspace rw\n"
	                           "limit wall 10m\n";
	char host_ro[4096] = "", rebuilt[4096] = "";
	review_policy *pa, *pb;
	audit_report ra, rb;

	append(host_ro, sizeof(host_ro), base);
	append(host_ro, sizeof(host_ro), "root host-ro\n");
	append(rebuilt, sizeof(rebuilt), base);
	append(rebuilt, sizeof(rebuilt), "root none\n");
	for (size_t i = 0; i < h->n_top; i++)
		if (strcmp(h->top[i], "/proc") != 0 && strcmp(h->top[i], "/dev") != 0 &&
		    strcmp(h->top[i], "/tmp") != 0 && !strchr(h->top[i], ' ')) {
			append(rebuilt, sizeof(rebuilt), "ro-bind ");
			append(rebuilt, sizeof(rebuilt), h->top[i]);
			append(rebuilt, sizeof(rebuilt), "\n");
		}
	pa = parse(host_ro);
	pb = parse(rebuilt);
	ck_assert_int_eq(audit_policy_on(pa, h, &ra), 0);
	ck_assert_int_eq(audit_policy_on(pb, h, &rb), 0);
	for (size_t i = 0; i < ra.n; i++)
		ck_assert_msg(ra.v[i].points == rb.v[i].points, "%s: root host-ro %u, rebuilt %u (%s)",
		              ra.v[i].id, ra.v[i].points, rb.v[i].points, rb.v[i].detail);
	ck_assert_uint_eq(ra.total, rb.total);
	ck_assert_uint_eq(ra.v[0].points, 8);
	audit_report_free(&ra);
	audit_report_free(&rb);
	free_model(pa);
	free_model(pb);
}

START_TEST(test_audit_view_rebuilt_from_binds_scores_as_host_ro)
{
	audit_host here;

	host_ro_rebuilt(&test_host);
	ck_assert_int_eq(audit_host_scan(&here), 0);
	host_ro_rebuilt(&here);
	audit_host_free(&here);
}
END_TEST

/* Paths weigh what they hold: the homes, /root and /etc bound read-only
 * are not a "low" policy (the case); a project under /home is one
 * point of A01 and no credential store; a bind of one home shows its
 * .ssh. */
START_TEST(test_audit_paths_weigh_what_they_hold)
{
	static const char base[] = "osb-policy 1\nproc /proc\nlimit wall 10m\nroot none\n";
	static const struct {
		const char *text;
		unsigned a01, a13;
		const char *a13_detail;
	} cases[] = {
		{ "ro-bind /home\nro-bind /root\nro-bind /etc\n", 6, 8,
		  "/home/*/.ssh is readable (ro-bind /home)" },
		{ "ro-bind /usr\nro-bind /etc\nro-bind /home/u/src\n", 2, 0,
		  "no home directory or credential store is readable" },
		{ "ro-bind /home/u\n", 1, 8, "/home/*/.ssh is readable (ro-bind /home/u)" },
		{ "ro-bind /home/u/.aws/config\n", 1, 8, "/home/*/.aws is readable (ro-bind "
		  "/home/u/.aws/config)" },
		{ "ro-bind /home\nhide /home/u\n", 3, 8, "/home/*/.ssh is readable (ro-bind /home)" },
		{ "read-root /home\n", 3, 8, "/home/*/.ssh is readable (read-root /home, a caller's "
		  "grant)" },
		{ "ro-bind /run\n", 1, 8, "/run/secrets is readable (ro-bind /run)" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[512];
		review_policy *p;
		audit_report r;

		snprintf(text, sizeof(text), "%s%s", base, cases[i].text);
		p = parse(text);
		audit_of(p, &r);
		ck_assert_msg(r.v[0].points == cases[i].a01, "case %zu: A01 %u (%s)", i, r.v[0].points,
		              r.v[0].detail);
		ck_assert_msg(r.v[12].points == cases[i].a13, "case %zu: A13 %u", i, r.v[12].points);
		ck_assert_str_eq(r.v[12].detail, cases[i].a13_detail);
		audit_report_free(&r);
		free_model(p);
	}
	/* The case is medium, not low. */
	{
		char text[512];
		review_policy *p;

		snprintf(text, sizeof(text), "%sro-bind /home\nro-bind /root\nro-bind /etc\n"
		         "workspace rw\n", base);
		p = parse(text);
		ck_assert_str_eq(audit_level(score(p)), "medium");
		free_model(p);
	}
}
END_TEST

/* Grants a policy can add. Text grants become lines; struct grants are
 * applied after parsing. A restrictive line is left out when its grant is
 * in (limit wall 10m gives way to limit wall unlimited, and so on). */
static const struct grant {
	const char *line;         /* added text, or NULL */
	const char *replaces;     /* base line it replaces, or NULL */
	mutate_fn mutate;
	bool alone_raises;        /* false: exposes something only with another grant */
} grants[] = {
	{ "root host-ro\n", NULL, NULL, true },
	{ "workspace rw\n", "workspace ro\n", NULL, true },
	{ "network host\n", NULL, NULL, true },
	{ "env inherit\n", NULL, NULL, true },
	{ "env pass OPENAI_API_KEY\n", NULL, NULL, true },
	{ "ro-bind /run/docker.sock\n", NULL, NULL, true },
	{ "ro-bind /home\n", NULL, NULL, true },
	{ NULL, "tmpfs /tmp\n", NULL, false },     /* matters with root host-ro */
	{ "limit wall unlimited\n", "limit wall 10m\n", NULL, true },
	{ NULL, "limit memory 1GiB\n", NULL, true },
	{ "user root 0 0\n", "user u 1000 1000\n", NULL, true },
	{ NULL, NULL, g_write_plain, true },
	{ NULL, NULL, g_write_home, true },
	{ "write-root /srv\n", NULL, NULL, true },
	{ NULL, NULL, g_seccomp_allow, true },
	{ NULL, NULL, g_seccomp_none, true },
	{ NULL, NULL, set_landlock_off, true },
};
#define N_GRANTS (sizeof(grants) / sizeof(grants[0]))

static const char *const restrictive_base[] = {
	"osb-policy 1\n", "tmpfs /tmp\n", "tmpfs /var/tmp\n", "tmpfs /run\n", "dev /dev\n",
	"proc /proc\n", "workspace ro\n", "limit wall 10m\n", "limit fsize 1GiB\n",
	"limit nofile 64\n", "limit memory 1GiB\n", "limit pids 64\n", "user u 1000 1000\n",
	"env deny *_TOKEN AWS_*\n",
};


static review_policy *policy_with(unsigned mask)
{
	char text[2048] = "";
	review_policy *p;

	for (size_t i = 0; i < sizeof(restrictive_base) / sizeof(restrictive_base[0]); i++) {
		bool replaced = false;

		for (size_t g = 0; g < N_GRANTS; g++)
			if ((mask & (1u << g)) && grants[g].replaces &&
			    strcmp(grants[g].replaces, restrictive_base[i]) == 0)
				replaced = true;
		if (!replaced)
			append(text, sizeof(text), restrictive_base[i]);
	}
	for (size_t g = 0; g < N_GRANTS; g++)
		if ((mask & (1u << g)) && grants[g].line)
			append(text, sizeof(text), grants[g].line);
	p = parse(text);
	for (size_t g = 0; g < N_GRANTS; g++)
		if ((mask & (1u << g)) && grants[g].mutate)
			grants[g].mutate(p);
	return p;
}

/* Over every set of grants: adding any one grant never lowers the score,
 * and each grant alone raises it above the restrictive base. */
START_TEST(test_audit_score_monotonic_over_every_grant_set)
{
	static unsigned scores[1u << N_GRANTS];

	for (unsigned mask = 0; mask < (1u << N_GRANTS); mask++) {
		review_policy *p = policy_with(mask);

		scores[mask] = score(p);
		free_model(p);
		for (unsigned g = 0; g < N_GRANTS; g++)
			if (mask & (1u << g))
				ck_assert_msg(scores[mask] >= scores[mask & ~(1u << g)],
				              "grant %u lowered the score of set %#x: %u -> %u", g,
				              mask & ~(1u << g), scores[mask & ~(1u << g)], scores[mask]);
	}
	for (unsigned g = 0; g < N_GRANTS; g++)
		ck_assert_msg(!grants[g].alone_raises || scores[1u << g] > scores[0],
		              "grant %u alone does not raise %u", g, scores[0]);
	/* Without tmpfs /tmp, root host-ro shares the host's /tmp. */
	ck_assert_uint_gt(scores[1u << 0 | 1u << 7], scores[1u << 0]);
}
END_TEST

START_TEST(test_audit_json_has_checks_total_and_threshold)
{
	review_policy *p = parse("osb-policy 1\nnetwork host\n");
	audit_report r;
	char *s;
	json_object *o, *v;

	audit_of(p, &r);
	s = audit_render_json(&r, "x.policy", "sha256:00", 20);
	ck_assert_ptr_nonnull(s);
	o = json_tokener_parse(s);
	ck_assert_ptr_nonnull(o);
	ck_assert(json_object_object_get_ex(o, "total", &v));
	ck_assert_int_eq(json_object_get_int(v), 25);
	ck_assert(json_object_object_get_ex(o, "above_threshold", &v));
	ck_assert(json_object_get_boolean(v));
	ck_assert(json_object_object_get_ex(o, "checks", &v));
	ck_assert_uint_eq(json_object_array_length(v), 13);
	v = json_object_array_get_idx(v, 3);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(v, "name")), "network");
	ck_assert_int_eq(json_object_get_int(json_object_object_get(v, "points")), 14);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(v, "origin")), "t.policy:2");
	json_object_put(o);
	free(s);
	audit_report_free(&r);
	free_model(p);
}
END_TEST

/* A02: a write-root is a grant the caller can use (run --rw, a request's
 * extra_writable): it counts as writable, and over a home or the host's
 * configuration as much as writing them; paths count by the host area
 * they lie in. */
START_TEST(test_audit_counts_write_roots)
{
	static const struct {
		const char *text;
		unsigned points;
		const char *detail;
	} cases[] = {
		{ "", 0, "no writable host path beyond the workspace" },
		{ "write-root /srv/data\n", 5, "writable in 1 host area beyond the workspace: "
		  "write-root /srv/data" },
		{ "write-root /home\n", 14, "write-root /home: a path whose change runs code or "
		  "changes the host" },
		{ "write-root /srv/data\nwrite /srv/data/out\n", 5, "writable in 1 host area beyond "
		  "the workspace: write /srv/data/out" },
		{ "write-root /srv/data\nwrite-root /data\n", 10, "writable in 2 host areas beyond "
		  "the workspace: write-root /srv/data, write-root /data" },
		{ "write-root /opt/u\nwrite /opt/u/.profile\n", 14, "write /opt/u/.profile: a path whose "
		  "change runs code or changes the host" },
		{ "write-root /var/home\n", 14, "write-root /var/home (/var/home/*/.*): a path whose "
		  "change runs code or changes the host" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[256];
		review_policy *p;
		audit_report r;

		snprintf(text, sizeof(text), "osb-policy 1\nproc /proc\nlimit wall 1m\n%s", cases[i].text);
		p = parse(text);
		audit_of(p, &r);
		ck_assert_str_eq(r.v[1].id, "A02");
		ck_assert_msg(r.v[1].points == cases[i].points, "case %zu: %u points", i, r.v[1].points);
		ck_assert_str_eq(r.v[1].detail, cases[i].detail);
		audit_report_free(&r);
		free_model(p);
	}
}
END_TEST

/* A06 weighs the effective filter: 3 for each call the group denies that
 * an allow rule lets through (allowing a call the group allows anyway is
 * no grant), 4 for a group that allows what its libseccomp does not know. */
START_TEST(test_audit_weighs_the_seccomp_group)
{
	static const struct {
		const char *text;
		unsigned points;
		const char *detail;
	} cases[] = {
		{ "", 0, "osb-default-3, complete: unknown calls get ENOSYS" },
		{ "seccomp osb-default-3\n", 0, "osb-default-3, complete: unknown calls get ENOSYS" },
		{ "seccomp allow uname getpid\n", 0, "osb-default-3, complete: unknown calls get ENOSYS" },
		{ "seccomp osb-default-2\n", 4, "osb-default-2 lets the sandbox make set-user-ID files" },
		{ "seccomp allow chmod\n", 3, "1 call the group denies let through (chmod)" },
		{ "seccomp osb-default-1\n", 8, "osb-default-1 allows calls newer than its libseccomp "
		  "table; it lets the sandbox make set-user-ID files" },
		{ "seccomp osb-default-1\nseccomp allow ptrace\n", 11, "1 call the group denies let "
		  "through (ptrace); osb-default-1 allows calls newer than its libseccomp table; it "
		  "lets the sandbox make set-user-ID files" },
		{ "seccomp osb-default-1\nseccomp allow modify_ldt\n", 8, "osb-default-1 allows calls "
		  "newer than its libseccomp table; it lets the sandbox make set-user-ID files" },
		{ "seccomp allow ptrace kcmp uname\n", 6, "2 calls the group denies let through (ptrace, "
		  "kcmp)" },
		{ "seccomp allow clone\n", 3, "1 call the group denies let through (clone)" },
		{ "seccomp none\n", 12, "seccomp none: no syscall filter" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[256];
		review_policy *p;
		audit_report r;

		snprintf(text, sizeof(text), "osb-policy 1\n%s", cases[i].text);
		p = parse(text);
		audit_of(p, &r);
		ck_assert_str_eq(r.v[5].id, "A06");
		ck_assert_msg(r.v[5].points == cases[i].points, "case %zu: %u points", i, r.v[5].points);
		ck_assert_str_eq(r.v[5].detail, cases[i].detail);
		audit_report_free(&r);
		free_model(p);
	}
}
END_TEST

/* A12 scores the host identity of every kind of caller that can run the
 * policy, the worst kept: the caller itself (unprivileged), allocated ids
 * (root, userns), root mode, pinned ids, ids of an account. */
START_TEST(test_audit_identity_per_caller_kind)
{
	static const struct {
		const char *text;
		unsigned points;
		const char *detail;
	} cases[] = {
		{ "", 2, "unprivileged caller: the sandbox is the caller (its files, its groups); root "
		  "caller: allocated ids, root mode where user namespaces are blocked" },
		{ "identity userns\n", 2, "unprivileged caller: the sandbox is the caller (its files, "
		  "its groups); root caller: allocated ids" },
		{ "identity root\n", 1, "root callers only: allocated ids, root mode (no user namespace; "
		  "setup runs with root's capabilities)" },
		{ "identity userns\nhost-ids 1879300000 1879300000\n", 1, "root callers only: pinned ids "
		  "of no account" },
		{ "host-ids 1879300000 1879300000\n", 1, "root callers only: pinned ids of no account, "
		  "root mode (no user namespace; setup runs with root's capabilities)" },
		{ "host-ids 1 1879300000\n", 5, "host-ids 1 1879300000: an account of this host, whose "
		  "files the sandbox owns" },
		{ "identity root\nhost-ids 1879300000 1\n", 5, "host-ids 1879300000 1: an account of "
		  "this host, whose files the sandbox owns" },
		{ "host-ids 1879300000 0\n", 0, NULL },   /* a parse error: never scored */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[256];
		osb_error err = { 0 };
		osb_policy *p;
		review_policy *m;
		audit_report r;

		snprintf(text, sizeof(text), "osb-policy 1\nproc /proc\n%s", cases[i].text);
		p = osb_policy_parse(text, strlen(text), "t.policy", &err);
		if (!cases[i].detail) {
			ck_assert_ptr_null(p);
			continue;
		}
		ck_assert_ptr_nonnull(p);
		m = model(p);
		audit_of(m, &r);
		ck_assert_str_eq(r.v[11].id, "A12");
		ck_assert_msg(r.v[11].points == cases[i].points, "case %zu: %u points", i, r.v[11].points);
		ck_assert_str_eq(r.v[11].detail, cases[i].detail);
		audit_report_free(&r);
		free_model(m);
	}
}
END_TEST

/* A11: memory and pids count with fsize, nofile and output; a best-effort
 * bound may not hold and counts as none. */
START_TEST(test_audit_limits_memory_and_pids)
{
	static const struct {
		const char *text;
		unsigned points;
		const char *detail;
	} cases[] = {
		{ "", 4, "unbounded: fsize nofile memory pids" },
		{ "limit fsize 1GiB\nlimit nofile 64\nlimit memory 1GiB\nlimit pids 64\n", 0,
		  "fsize, nofile, output, memory and pids are limited" },
		{ "limit fsize 1GiB\nlimit nofile 64\nlimit memory 1GiB best-effort\nlimit pids 64\n", 1,
		  "unbounded: memory (best-effort)" },
		{ "limit fsize 1GiB\nlimit nofile 64\nlimit output unlimited\n", 3,
		  "unbounded: output memory pids" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[256];
		review_policy *p;
		audit_report r;

		snprintf(text, sizeof(text), "osb-policy 1\nproc /proc\n%s", cases[i].text);
		p = parse(text);
		audit_of(p, &r);
		ck_assert_str_eq(r.v[10].id, "A11");
		ck_assert_msg(r.v[10].points == cases[i].points, "case %zu: %u points", i, r.v[10].points);
		ck_assert_str_eq(r.v[10].detail, cases[i].detail);
		audit_report_free(&r);
		free_model(p);
	}
}
END_TEST

/* ---- diff --------------------------------------------------------------------------- */

static char *diff_of(const char *a, const char *b)
{
	review_policy *pa = parse(a), *pb = parse(b);
	diff_report d;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_int_eq(diff_policies(pa, pb, &d), 0);
	for (size_t i = 0; i < d.n; i++) {
		const diff_entry *e = &d.v[i];

		fprintf(f, "%c %s%s%s %s %s%s%s\n", "+-~"[e->kind], e->from ? e->from : "",
		        e->kind == DIFF_CHANGED ? " => " : "", e->to ? e->to : "", diff_dir_name(e->dir),
		        e->from_origin ? e->from_origin : "", e->kind == DIFF_CHANGED ? " => " : "",
		        e->to_origin ? e->to_origin : "");
	}
	fclose(f);
	diff_report_free(&d);
	free_model(pa);
	free_model(pb);
	return buf;
}

START_TEST(test_diff_ignores_layout_order_and_comments)
{
	char *d = diff_of("osb-policy 1\nenv pass A B\ntmpfs /x\nnetwork none\n",
	                  "# c\nosb-policy 1\n\n  network   none # why\ntmpfs /x\nenv pass B\nenv pass A\n");

	ck_assert_str_eq(d, "");
	free(d);
}
END_TEST

START_TEST(test_diff_reports_changes_with_direction_and_origin)
{
	char *d = diff_of("osb-policy 1\nnetwork none\ntmpfs /x\nenv pass A\nenv deny *_TOKEN\nlimit wall 10m\n",
	                  "osb-policy 1\nlimit wall 1h\ntmpfs /y\nro-bind /x\nnetwork host\nenv pass A B\n");

	ck_assert_str_eq(d,
		"~ network none => network host wider t.policy:2 => t.policy:5\n"
		"~ limit wall 10m => limit wall 1h wider t.policy:6 => t.policy:2\n"
		"~ tmpfs /x => ro-bind /x wider t.policy:3 => t.policy:4\n"
		"- env deny *_TOKEN neutral t.policy:5\n"
		"+ tmpfs /y neutral t.policy:3\n"
		"+ env pass B wider t.policy:6\n");
	free(d);
}
END_TEST

START_TEST(test_diff_narrowing_and_defaults)
{
	char *d = diff_of("osb-policy 1\nworkspace rw\nenv inherit\nlimit output 4MiB\n",
	                  "osb-policy 1\nworkspace ro\nuser u 1000 1000\n");

	ck_assert_str_eq(d,
		"~ workspace rw => workspace ro narrower t.policy:2 => t.policy:2\n"
		"~ env inherit => env clear narrower t.policy:3 => default\n"
		"~ user sandbox 1000 1000 => user u 1000 1000 neutral default => t.policy:3\n"
		"~ limit output 4MiB => limit output 1MiB narrower t.policy:4 => default\n");
	free(d);
}
END_TEST

/* Each change judged by what the other policy shows: a deny no pass rule
 * can reach under env clear, a bind of what root host-ro showed anyway, a
 * private mount over a path the new view does not have, change nothing. */
START_TEST(test_diff_judges_in_context)
{
	char *d = diff_of("osb-policy 1\nenv pass LANG PATH\nenv deny *_TOKEN\n",
	                  "osb-policy 1\nenv pass LANG PATH\n");
	char *e = diff_of("osb-policy 1\nenv pass LANG *_KEY\nenv deny *_TOKEN AWS_*\n",
	                  "osb-policy 1\nenv pass LANG *_KEY\n");
	char *f = diff_of("osb-policy 1\nroot host-ro\ntmpfs /run\ntmpfs /tmp\n",
	                  "osb-policy 1\nroot none\nro-bind /usr\nro-bind /tmp\n");
	char *g = diff_of("osb-policy 1\nenv inherit\n", "osb-policy 1\nenv inherit\nenv deny *_token\n");

	ck_assert_str_eq(d, "- env deny *_TOKEN neutral t.policy:3\n");
	ck_assert_str_eq(e, "- env deny *_TOKEN neutral t.policy:3\n- env deny AWS_* wider t.policy:3\n");
	ck_assert_str_eq(f,
		"~ root host-ro => root none narrower t.policy:2 => t.policy:2\n"
		"- tmpfs /run neutral t.policy:3\n"
		"~ tmpfs /tmp => ro-bind /tmp wider t.policy:4 => t.policy:4\n"
		"+ ro-bind /usr neutral t.policy:3\n");
	ck_assert_str_eq(g, "+ env deny *_token narrower t.policy:3\n");
	free(d);
	free(e);
	free(f);
	free(g);
}
END_TEST

/* A bigger tmpfs, a higher or best-effort limit are wider; a tmpfs keyed by
 * its path, whatever its size. */
START_TEST(test_diff_tmpfs_sizes_and_best_effort_have_a_direction)
{
	char *d = diff_of("osb-policy 1\ntmpfs /tmp size=64MiB\nlimit memory 1GiB\nlimit pids 50\n",
	                  "osb-policy 1\ntmpfs /tmp\nlimit memory 1GiB best-effort\nlimit pids 20\n");
	char *e = diff_of("osb-policy 1\ntmpfs /tmp\n", "osb-policy 1\ntmpfs /tmp size=1MiB\n");

	ck_assert_str_eq(d,
		"~ limit memory 1GiB => limit memory 1GiB best-effort wider t.policy:3 => t.policy:3\n"
		"~ limit pids 50 => limit pids 20 narrower t.policy:4 => t.policy:4\n"
		"~ tmpfs /tmp size=64MiB => tmpfs /tmp wider t.policy:2 => t.policy:2\n");
	ck_assert_str_eq(e, "~ tmpfs /tmp => tmpfs /tmp size=1MiB narrower t.policy:2 => t.policy:2\n");
	free(d);
	free(e);
}
END_TEST

/* An older group allows more (what it did not know); no filter most. */
START_TEST(test_diff_seccomp_groups_have_a_direction)
{
	char *d = diff_of("osb-policy 1\n", "osb-policy 1\nseccomp osb-default-1\n");
	char *e = diff_of("osb-policy 1\nseccomp osb-default-1\n", "osb-policy 1\nseccomp none\n");
	char *f = diff_of("osb-policy 1\nseccomp osb-default-1\n", "osb-policy 1\nseccomp default\n");
	char *g = diff_of("osb-policy 1\nseccomp default\n", "osb-policy 1\n");

	ck_assert_str_eq(d, "~ seccomp osb-default-3 => seccomp osb-default-1 wider default => t.policy:2\n");
	ck_assert_str_eq(e, "~ seccomp osb-default-1 => seccomp none wider t.policy:2 => t.policy:2\n");
	ck_assert_str_eq(f, "~ seccomp osb-default-1 => seccomp osb-default-3 narrower t.policy:2 => "
	                 "t.policy:2\n");
	ck_assert_str_eq(g, "");
	free(d);
	free(e);
	free(f);
	free(g);
}
END_TEST

/* The effective-view deltas from A to B, one a line: "aspect: change
 * (direction) # from => to". */
static char *view_diff_of(const char *a, const char *b)
{
	review_policy *pa = parse(a), *pb = parse(b);
	view_deltas d;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_int_eq(diff_view(pa, pb, &test_host, &d), 0);
	for (size_t i = 0; i < d.n; i++) {
		const view_delta *e = &d.v[i];

		fprintf(f, "%s: %s (%s)", e->aspect, e->change, diff_dir_name(e->dir));
		if (e->from_origin && e->to_origin)
			fprintf(f, " # %s => %s", e->from_origin, e->to_origin);
		fputc('\n', f);
	}
	fclose(f);
	view_deltas_free(&d);
	free_model(pa);
	free_model(pb);
	return buf;
}

/* diff says what the sandbox can reach that it could not, and the other
 * way round, with the rules that decide it on either side: not only which
 * rules changed. */
START_TEST(test_diff_view_deltas_with_origins)
{
	static const char base[] = "osb-policy 1\nroot none\nro-bind /usr\nproc /proc\n";
	static const struct {
		const char *a, *b, *want;
	} cases[] = {
		{ "", "ro-bind /home/u\n",
		  "readable: +/home/u (wider) # root none (t.policy:2) => ro-bind /home/u (t.policy:5)\n" },
		{ "", "identity root\n", "identity: unprivileged caller: the sandbox is the caller (its "
		  "files, its groups); root caller: allocated ids, root mode where user namespaces are "
		  "blocked \u2192 root callers only: allocated ids, root mode (no user namespace; setup "
		  "runs with root's capabilities) (narrower)\n" },
		{ "", "network host\n",
		  "network: none \u2192 host (wider) # network none (default) => network host (t.policy:5)\n" },
		{ "write-root /srv\n", "write-root /srv\nwrite /srv/a\n",
		  "writable: +/srv/a (before, only a caller could grant it) (wider) # write-root /srv "
		  "(t.policy:5) => write /srv/a (t.policy:6)\n" },
		{ "", "write-root /srv\n",
		  "writable: +/srv/* (a caller's grant) (wider) # root none (t.policy:2) => write-root /srv "
		  "(t.policy:5)\n" },
		{ "", "seccomp allow uname\n", "" },
		{ "seccomp allow ptrace\n", "", "seccomp: -ptrace let through (narrower)\n" },
		{ "env pass LANG\n", "env pass LANG GITHUB_TOKEN\n", "environment: +GITHUB_TOKEN (wider)\n" },
		{ "env pass LANG\n", "env pass LANG\nenv deny *_TOKEN\n", "" },
		{ "limit memory 1GiB\n", "", "limit memory: 1GiB \u2192 unlimited (wider) # limit "
		  "memory 1GiB (t.policy:5) => limit memory unlimited (default)\n" },
		{ "limit wall 15m\n", "limit wall 90s\n", "limit wall: 15m \u2192 90s (narrower) # limit "
		  "wall 15m (t.policy:5) => limit wall 90s (t.policy:5)\n" },
		{ "ro-bind /etc\n", "ro-bind /etc\nhide /etc/ssl\n",
		  "readable: -/etc/ssl (narrower) # ro-bind /etc (t.policy:5) => hide /etc/ssl (t.policy:6)\n" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char a[512], b[512], *got;

		snprintf(a, sizeof(a), "%s%s", base, cases[i].a);
		snprintf(b, sizeof(b), "%s%s", base, cases[i].b);
		got = view_diff_of(a, b);
		ck_assert_msg(strcmp(got, cases[i].want) == 0, "case %zu:\n got: %s\nwant: %s", i, got,
		              cases[i].want);
		free(got);
	}
}
END_TEST

/* root host-ro to root none with /usr and /etc: each host area that goes,
 * once (its children follow it), decided by root on both sides. */
START_TEST(test_diff_view_names_each_area_once)
{
	char *got = view_diff_of("osb-policy 1\nroot host-ro\nproc /proc\ndev /dev\ntmpfs /tmp\n",
	                         "osb-policy 1\nroot none\nro-bind /usr\nro-bind /etc\nproc /proc\n"
	                         "dev /dev\ntmpfs /tmp\n");

	ck_assert_ptr_nonnull(strstr(got, "readable: -/home (narrower) # root host-ro (t.policy:2) => "
	                                   "root none (t.policy:2)\n"));
	ck_assert_ptr_null(strstr(got, "-/run/docker.sock"));   /* follows -/run */
	ck_assert_ptr_nonnull(strstr(got, "readable: -/run (narrower)"));
	ck_assert_ptr_null(strstr(got, "/usr"));
	ck_assert_ptr_null(strstr(got, "/etc"));
	ck_assert_ptr_null(strstr(got, "(wider)"));
	free(got);
}
END_TEST

START_TEST(test_diff_seccomp_allow_of_an_allowed_call_is_neutral)
{
	char *d = diff_of("osb-policy 1\n", "osb-policy 1\nseccomp allow uname ptrace\n");

	ck_assert_str_eq(d, "+ seccomp allow ptrace wider t.policy:2\n"
	                    "+ seccomp allow uname neutral t.policy:2\n");
	free(d);
}
END_TEST

/* ---- request positions -------------------------------------------------------------- */

START_TEST(test_reqpos_points_at_each_value)
{
	static const char text[] = "{\n \"a/b\": [ \"x\\\"y\", 2 ],\n\t\"env\": { \"set\": { \"N~1\": "
	                           "\"\\u00e9\" } },\n \"extra_writable\": [\"/p\"] }";
	reqpos rp;
	const reqpos_value *v;

	ck_assert_int_eq(reqpos_scan(text, &rp), 0);
	ck_assert_uint_eq(rp.n, 9);
	ck_assert_str_eq(rp.v[0].pointer, "");
	ck_assert_str_eq(rp.v[1].pointer, "/a~1b");
	ck_assert_str_eq(rp.v[2].pointer, "/a~1b/0");
	ck_assert_str_eq(rp.v[2].string, "x\"y");
	ck_assert_uint_eq(rp.v[2].line, 2);
	ck_assert_uint_eq(rp.v[2].col, 11);
	ck_assert_str_eq(rp.v[3].pointer, "/a~1b/1");
	ck_assert_ptr_null(rp.v[3].string);
	ck_assert_str_eq(rp.v[6].pointer, "/env/set/N~01");
	ck_assert_str_eq(rp.v[6].string, "\xc3\xa9");
	v = reqpos_for_rule(&rp, "write /p");
	ck_assert_str_eq(v->pointer, "/extra_writable/0");
	ck_assert_uint_eq(v->line, 4);
	ck_assert_uint_eq(v->col, 21);
	ck_assert_str_eq(reqpos_for_rule(&rp, "network host")->pointer, "");   /* not in it */
	reqpos_free(&rp);
	ck_assert_int_eq(reqpos_scan("{ \"a\": [1, ", &rp), -EINVAL);
	ck_assert_int_eq(reqpos_scan("\"\\q\"", &rp), -EINVAL);
}
END_TEST

/* ---- explain ------------------------------------------------------------------------- */

/* The JSON rule whose "rule" starts with PREFIX. */
static json_object *rule_starting(json_object *rules, const char *prefix)
{
	for (size_t i = 0; i < json_object_array_length(rules); i++) {
		json_object *r = json_object_array_get_idx(rules, i);

		if (strncmp(json_object_get_string(json_object_object_get(r, "rule")), prefix,
		            strlen(prefix)) == 0)
			return r;
	}
	ck_abort_msg("no rule starting with %s", prefix);
	return NULL;
}

START_TEST(test_explain_json_rules_carry_args_and_origins)
{
	const char *path = write_policy("x.policy", "osb-policy 1\nnetwork host\nenv set GREETING=hello  world # x\n");
	review_policy *p = load(path);
	char *s = explain_render_json(p, "x.policy", NULL), hash[OSB_POLICY_HASH_LEN], *canon = NULL, origin[200];
	json_object *o = json_tokener_parse(s), *rules, *r, *args;
	size_t n_lines = 0;

	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(osb_policy_hash(p->pol, hash), 0);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(o, "hash")), hash);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(o, "policy")), "x.policy");
	ck_assert(!json_object_object_get_ex(o, "host", NULL));
	/* One JSON rule for each canonical line but the version line. */
	ck_assert_ptr_nonnull(canon = osb_policy_explain(p->pol, 0));
	for (const char *c = canon; *c; c++)
		n_lines += *c == '\n';
	rules = json_object_object_get(o, "rules");
	ck_assert_uint_eq(json_object_array_length(rules), n_lines - 1);
	r = rule_starting(rules, "network ");
	ck_assert_str_eq(json_object_get_string(json_object_object_get(r, "rule")), "network host");
	ck_assert_str_eq(json_object_get_string(json_object_object_get(r, "file")), path);
	ck_assert_int_eq(json_object_get_int(json_object_object_get(r, "line")), 2);
	snprintf(origin, sizeof(origin), "%s:2", path);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(r, "origin")), origin);
	r = rule_starting(rules, "root ");
	ck_assert_str_eq(json_object_get_string(json_object_object_get(r, "origin")), "default");
	ck_assert(json_object_is_type(json_object_object_get(r, "file"), json_type_null));
	ck_assert_int_eq(json_object_get_int(json_object_object_get(r, "line")), 0);
	r = rule_starting(rules, "env set ");
	ck_assert_str_eq(json_object_get_string(json_object_object_get(r, "directive")), "env");
	args = json_object_object_get(r, "args");
	ck_assert_uint_eq(json_object_array_length(args), 2);
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(args, 0)), "set");
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(args, 1)),
	                 "GREETING=hello  world # x");
	free(canon);
	json_object_put(o);
	free(s);
	free_model(p);
}
END_TEST

START_TEST(test_explain_text_has_header_and_origins)
{
	review_policy *p = parse("osb-policy 1\nnetwork host\n");
	char *s = explain_render_text(p, "t.policy"), hash[OSB_POLICY_HASH_LEN], want[256];

	ck_assert_int_eq(osb_policy_hash(p->pol, hash), 0);
	snprintf(want, sizeof(want), "# effective policy of t.policy\n# hash %s\nosb-policy 1\n"
	         "root none  # default\nworkspace none  # default\nnetwork host  # t.policy:2\n", hash);
	ck_assert_msg(strncmp(s, want, strlen(want)) == 0, "%s", s);
	free(s);
	free_model(p);
}
END_TEST

static Suite *audit_suite(void)
{
	Suite *s = suite_create("audit");
	TCase *t;

	t = tcase_create("diag");
	tcase_add_test(t, test_diag_splits_position_from_file_with_colons);
	tcase_add_test(t, test_diag_without_position_keeps_file_and_strips_prefix);
	tcase_add_test(t, test_diag_code_for_every_malformed_class);
	suite_add_tcase(s, t);

	t = tcase_create("lint");
	tcase_add_checked_fixture(t, dir_setup, dir_teardown);
	tcase_add_test(t, test_lint_safe_policy_has_no_findings);
	tcase_add_test(t, test_lint_rule_codes_are_unique_and_explained);
	tcase_add_loop_test(t, test_lint_each_risky_grant_flagged_with_its_code, 0,
	                    (int)(sizeof(lint_cases) / sizeof(lint_cases[0])));
	tcase_add_test(t, test_lint_include_widening_each_scalar);
	tcase_add_test(t, test_lint_positions_point_at_directive_column);
	tcase_add_test(t, test_lint_waiver_silences_next_directive_only);
	tcase_add_test(t, test_lint_waiver_reason_and_line_recorded);
	tcase_add_test(t, test_lint_malformed_waivers_reported);
	tcase_add_test(t, test_lint_errors_cannot_be_waived);
	tcase_add_test(t, test_lint_waiver_in_include_covers_only_its_own_lines);
	tcase_add_test(t, test_lint_shipped_strict_is_clean);
	suite_add_tcase(s, t);

	t = tcase_create("audit");
	tcase_add_test(t, test_audit_weights_sum_to_max);
	tcase_add_test(t, test_audit_shipped_strict_score_pinned);
	tcase_add_test(t, test_audit_view_rebuilt_from_binds_scores_as_host_ro);
	tcase_add_test(t, test_audit_weighs_the_seccomp_group);
	tcase_add_test(t, test_audit_counts_write_roots);
	tcase_add_test(t, test_audit_identity_per_caller_kind);
	tcase_add_test(t, test_audit_limits_memory_and_pids);
	tcase_add_test(t, test_audit_same_view_same_score);
	tcase_add_test(t, test_audit_paths_weigh_what_they_hold);
	tcase_add_test(t, test_audit_json_has_checks_total_and_threshold);
	suite_add_tcase(s, t);

	/* The property test parses and scores every set of grants
	 * (2^N_GRANTS policies): seconds here, minutes under the sanitizers,
	 * more on a loaded machine, and far longer than the gate's time under
	 * valgrind (tools/valgrind.sh), where the audit's code runs in the
	 * cases above instead. */
	t = tcase_create("audit-every-grant-set");
	tcase_set_tags(t, "novalgrind");
	tcase_set_timeout(t, 900);
	tcase_add_test(t, test_audit_score_monotonic_over_every_grant_set);
	suite_add_tcase(s, t);

	t = tcase_create("diff");
	tcase_set_timeout(t, 60);   /* every view delta runs two audits */
	tcase_add_test(t, test_diff_ignores_layout_order_and_comments);
	tcase_add_test(t, test_diff_reports_changes_with_direction_and_origin);
	tcase_add_test(t, test_diff_narrowing_and_defaults);
	tcase_add_test(t, test_diff_seccomp_groups_have_a_direction);
	tcase_add_test(t, test_diff_judges_in_context);
	tcase_add_test(t, test_diff_tmpfs_sizes_and_best_effort_have_a_direction);
	tcase_add_test(t, test_diff_view_deltas_with_origins);
	tcase_add_test(t, test_diff_view_names_each_area_once);
	tcase_add_test(t, test_diff_seccomp_allow_of_an_allowed_call_is_neutral);
	tcase_add_test(t, test_reqpos_points_at_each_value);
	suite_add_tcase(s, t);

	t = tcase_create("explain");
	tcase_add_checked_fixture(t, dir_setup, dir_teardown);
	tcase_add_test(t, test_explain_json_rules_carry_args_and_origins);
	tcase_add_test(t, test_explain_text_has_header_and_origins);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(audit_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}

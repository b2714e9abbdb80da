/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_plan.c — the launch plan from fabricated host facts.
 *
 * plan_build() probes nothing: every fact about the host (bwrap and its
 * options, user namespaces, the caller's ids, the /proc entries to cover)
 * comes in through host_facts, so each case here states the host it
 * imagines — a root caller whose user namespaces are blocked, a bwrap
 * without --bind-fd — on any machine. The whole program runs as an
 * unprivileged user (root drops to 65534 before the first case) with a
 * bwrap path that does not exist and PATH emptied: a plan that looked at
 * the host for a fact, or ran bwrap, would fail here.
 */
#include <check.h>
#include <grp.h>
#include <sys/stat.h>

#include "bwrap.h"
#include "host.h"

#define HOSTIDS 0x70000005u

static char ws[64];

static host_facts facts(uid_t euid, int userns_errno)
{
	host_facts h = {
		.euid = euid, .egid = euid, .root_caps = euid == 0,
		.bwrap_from = BWRAP_FROM_CONFIG, .bwrap_state = BWRAP_OK,
		.bwrap = (char *)"/nonexistent/bwrap", .bwrap_tried = (char *)"/nonexistent/bwrap",
		.feat = { true, true, true, true, true, true },
		.userns_errno = userns_errno, .landlock_abi = 3,
		.proc = { .ro = { "sys" }, .n_ro = 1, .mask_files = { "kcore" }, .n_mask_files = 1,
		          .mask_dirs = { "acpi" }, .n_mask_dirs = 1, .loadavg = true },
		.init = (char *)"/bin/sh",
	};

	return h;
}

static osb_policy *policy(const char *text)
{
	osb_error err = { 0 };
	osb_policy *p = osb_policy_parse(text, strlen(text), "t.policy", &err);

	ck_assert_msg(p != NULL, "%s", err.message);
	return p;
}

#define BASE "osb-policy 1\nroot none\nro-bind /usr\nproc /proc\ndev /dev\ntmpfs /tmp\n"

/* The ids a launch would have acquired (hostid_acquire) for this caller. */
static hostid ids_for(const host_facts *h)
{
	if (h->euid != 0)
		return (hostid){ HOSTID_CALLER, (uint32_t)h->euid, (uint32_t)h->egid, -1 };
	return (hostid){ HOSTID_ALLOCATED, HOSTIDS, HOSTIDS, -1 };
}

static int build(const osb_policy *p, const host_facts *h, bool session, plan *pl,
                 osb_error *err)
{
	hostid ids = ids_for(h);

	return plan_build(p, h, &ids, &(plan_request){ NULL, NULL, session, 0 }, pl, err);
}

static char *join(const strv *v)
{
	size_t n = 1;
	char *s, *q;

	for (size_t i = 0; i < v->n; i++)
		n += strlen(v->v[i]) + 1;
	s = q = malloc(n);
	ck_assert_ptr_nonnull(s);
	for (size_t i = 0; i < v->n; i++)
		q += snprintf(q, n - (size_t)(q - s), "%s%s", i ? " " : "", v->v[i]);
	*q = '\0';
	return s;
}

static char *run_argv(const plan *pl, const char *const *cmd)
{
	strv argv = { 0 };
	osb_error err;
	char *s;

	ck_assert_int_eq(bwrap_argv_run(pl, cmd, &argv, &err), 0);
	s = join(&argv);
	strv_free(&argv);
	return s;
}

/* ---- the identity mode: decided once ---------------------------------------- */

START_TEST(test_mode_decided_from_facts_alone)
{
	osb_policy *a = policy("osb-policy 1\n");
	osb_policy *u = policy("osb-policy 1\nidentity userns\n");
	osb_policy *r = policy("osb-policy 1\nidentity root\n");
	host_facts user_ok = facts(1000, 0), user_no = facts(1000, EPERM);
	host_facts root_ok = facts(0, 0), root_no = facts(0, EPERM);

	ck_assert_int_eq(host_mode(a, &user_ok), ID_USERNS);
	ck_assert_int_eq(host_mode(a, &user_no), ID_USERNS);   /* refused by the plan */
	ck_assert_int_eq(host_mode(a, &root_ok), ID_USERNS);
	ck_assert_int_eq(host_mode(a, &root_no), ID_ROOT);
	ck_assert_int_eq(host_mode(u, &root_no), ID_USERNS);
	ck_assert_int_eq(host_mode(r, &user_ok), ID_ROOT);
	osb_policy_free(a);
	osb_policy_free(u);
	osb_policy_free(r);
}
END_TEST

START_TEST(test_mode_refusals_name_the_rule)
{
	osb_policy *a = policy("osb-policy 1\n");
	osb_policy *u = policy("osb-policy 1\nidentity userns\n");
	osb_policy *r = policy("osb-policy 1\nidentity root\n");
	host_facts user_ok = facts(1000, 0), user_no = facts(1000, EPERM);
	osb_error err;
	bool userns;

	ck_assert_int_eq(plan_mode(r, &user_ok, &userns, &err), -OSB_E_HOST);
	ck_assert_str_eq(err.stage, "probe");
	ck_assert_str_eq(err.message, "t.policy:2: identity root switches to the policy's uid/gid, "
	                 "which needs osb-isolate to run as root (use identity userns or auto)");
	ck_assert_int_eq(plan_mode(u, &user_no, &userns, &err), -OSB_E_HOST);
	ck_assert_str_eq(err.message, "t.policy:2: identity userns: cannot create a user namespace "
	                 "here: Operation not permitted (run 'osb-isolate capabilities'; as root, "
	                 "'identity root' works without one)");
	ck_assert_int_eq(plan_mode(a, &user_no, &userns, &err), -OSB_E_HOST);
	ck_assert_str_eq(err.message, "cannot create a user namespace here (Operation not "
	                 "permitted) and not running as root, so neither identity mode can run; "
	                 "run 'osb-isolate capabilities' for the reason and the remedy");
	ck_assert_int_eq(err.sys_errno, EPERM);
	osb_policy_free(a);
	osb_policy_free(u);
	osb_policy_free(r);
}
END_TEST

/* ---- plans ----------------------------------------------------------------- */

/* A root caller without user namespaces: root mode, the allocated host ids
 * are the sandbox's, bwrap keeps only what the init needs. */
START_TEST(test_root_caller_without_userns_plans_root_mode)
{
	osb_policy *p = policy(BASE);
	host_facts h = facts(0, EPERM);
	osb_error err;
	plan pl;
	char *s;

	ck_assert_msg(build(p, &h, false, &pl, &err) == 0, "%s", err.message);
	ck_assert(!pl.userns);
	ck_assert(!pl.use_cred);
	ck_assert_uint_eq(pl.uid, HOSTIDS);
	ck_assert_uint_eq(pl.host.uid, HOSTIDS);
	s = run_argv(&pl, (const char *const[]){ "id", NULL });
	ck_assert_ptr_nonnull(strstr(s, "/nonexistent/bwrap --as-pid-1 --cap-drop ALL "));
	ck_assert_ptr_nonnull(strstr(s, " --switch-ids=1879048197:1879048197 --chdir / "
	                             "--env-fd 10 -- id"));
	free(s);
	plan_free(&pl);
	osb_policy_free(p);
}
END_TEST

/* A root caller with user namespaces: bwrap starts as the host ids, the
 * sandbox sees the policy's ids. */
START_TEST(test_root_caller_userns_mode_starts_bwrap_as_host_ids)
{
	osb_policy *p = policy(BASE);
	host_facts h = facts(0, 0);
	osb_error err;
	plan pl;
	char *s;

	ck_assert_msg(build(p, &h, false, &pl, &err) == 0, "%s", err.message);
	ck_assert(pl.userns);
	ck_assert(pl.use_cred);
	ck_assert_uint_eq(pl.cred.uid, HOSTIDS);
	ck_assert_uint_eq(pl.uid, 1000);
	s = run_argv(&pl, (const char *const[]){ "true", NULL });
	ck_assert_ptr_nonnull(strstr(s, " --unshare-user --disable-userns --uid 1000 --gid 1000 "));
	ck_assert_ptr_nonnull(strstr(s, " --expect-uid 1000 --expect-gid 1000 "));
	free(s);
	plan_free(&pl);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_bwrap_facts_refused_with_the_reason)
{
	osb_policy *p = policy(BASE);
	host_facts h = facts(1000, 0);
	osb_error err;
	plan pl;

	h.bwrap_state = BWRAP_MISSING;
	h.bwrap = NULL;
	h.bwrap_errno = ENOENT;
	ck_assert_int_eq(build(p, &h, false, &pl, &err), -OSB_E_HOST);
	ck_assert_str_eq(err.message, "bwrap at /nonexistent/bwrap is not executable: No such file "
	                 "or directory; install the Debian package bubblewrap or fix the path");
	h.bwrap_from = BWRAP_FROM_PATH;
	ck_assert_int_eq(build(p, &h, false, &pl, &err), -OSB_E_HOST);
	ck_assert_str_eq(err.message, "bwrap not found on PATH; install it (apt-get install "
	                 "bubblewrap)");
	h = facts(1000, 0);
	h.feat.bind_fd = false;
	ck_assert_int_eq(build(p, &h, false, &pl, &err), -OSB_E_HOST);
	ck_assert_str_eq(err.message, "/nonexistent/bwrap lacks --bind-fd/--ro-bind-fd, so paths "
	                 "cannot be bound by their verified fd; refusing (install bubblewrap 0.10 or "
	                 "later, or Debian 12's 0.8.0-2+deb12u1)");
	h = facts(1000, 0);
	h.feat.disable_userns = false;
	ck_assert_int_eq(build(p, &h, false, &pl, &err), -OSB_E_HOST);
	ck_assert_str_eq(err.message, "/nonexistent/bwrap lacks --disable-userns; refusing to let "
	                 "the sandbox create user namespaces (install bubblewrap 0.8 or later)");
	/* Root mode needs no --disable-userns. */
	h.euid = 0;
	h.userns_errno = EPERM;
	ck_assert_msg(build(p, &h, false, &pl, &err) == 0, "%s", err.message);
	plan_free(&pl);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_uid_zero_refused_before_the_host_is_asked)
{
	osb_policy *p = policy(BASE "user sandbox 1000 1000\n");
	host_facts h = facts(1000, 0);
	osb_error err;
	plan pl;

	h.bwrap_state = BWRAP_MISSING;    /* not reached */
	p->uid = 0;
	ck_assert_int_eq(plan_check_policy(p, &err), -OSB_E_POLICY);
	ck_assert_int_eq(build(p, &h, false, &pl, &err), -OSB_E_POLICY);
	ck_assert_str_eq(err.stage, "identity");
	ck_assert_str_eq(err.message, "t.policy:7: user code never runs as uid 0 or gid 0; choose "
	                 "non-zero ids");
	osb_policy_free(p);
}
END_TEST

/* Only the /proc entries the facts list are covered, and loadavg is
 * synthesized only where the host has one. */
START_TEST(test_proc_cover_from_facts)
{
	osb_policy *p = policy(BASE);
	host_facts h = facts(1000, 0);
	osb_error err;
	plan pl;
	char *s;

	ck_assert_msg(build(p, &h, false, &pl, &err) == 0, "%s", err.message);
	s = run_argv(&pl, (const char *const[]){ "true", NULL });
	ck_assert_ptr_nonnull(strstr(s, " --proc /proc --perms 0444 --ro-bind-data "));
	ck_assert_ptr_nonnull(strstr(s, " --make-cover --proc-ro /proc/sys --proc-masked "
	                             "/proc/kcore --proc-masked /proc/acpi "));
	ck_assert_ptr_nonnull(strstr(s, " /proc/loadavg "));
	ck_assert_ptr_null(strstr(s, "/proc/keys"));
	free(s);
	plan_free(&pl);
	h.proc = (proc_facts){ .n_ro = 0 };
	ck_assert_msg(build(p, &h, false, &pl, &err) == 0, "%s", err.message);
	s = run_argv(&pl, (const char *const[]){ "true", NULL });
	ck_assert_ptr_null(strstr(s, "/proc/loadavg"));
	ck_assert_ptr_null(strstr(s, "--proc-masked"));
	free(s);
	plan_free(&pl);
	osb_policy_free(p);
}
END_TEST

/* A session is the same plan; only what runs in it differs, and its
 * environment travels with each command instead of in a memfd. Its socket
 * follows the two bind sources (/usr, the workspace) and the three
 * synthesized files (/etc/hostname, /etc/hosts, /proc/loadavg). */
START_TEST(test_session_and_run_share_the_plan)
{
	osb_policy *p = policy(BASE "workspace rw\n");
	host_facts h = facts(geteuid(), 0);
	osb_error err;
	plan run, ses;
	strv argv = { 0 };
	char *a, *b, *cut;

	ck_assert_int_eq(osb_policy_set_workspace(p, ws, &err), 0);
	ck_assert_msg(build(p, &h, false, &run, &err) == 0, "%s", err.message);
	ck_assert_msg(build(p, &h, true, &ses, &err) == 0, "%s", err.message);
	ck_assert_int_ge(run.env_fd, 0);
	ck_assert_int_eq(ses.env_fd, -1);
	ck_assert_str_eq(run.cwd, ws);
	a = run_argv(&run, (const char *const[]){ "echo", "hi", NULL });
	ck_assert_int_eq(bwrap_argv_session(&ses, 5000, &argv, &err), 0);
	b = join(&argv);
	strv_free(&argv);
	cut = strstr(a, " --env-fd 10 -- echo hi");
	ck_assert_ptr_nonnull(cut);
	ck_assert_str_eq(cut, " --env-fd 10 -- echo hi");
	*cut = '\0';
	cut = strstr(b, " --session-fd=");
	ck_assert_ptr_nonnull(cut);
	ck_assert_str_eq(cut + strlen(" --session-fd="), "16 --idle-ms=5000");
	*cut = '\0';
	ck_assert_str_eq(a, b);
	ck_assert_int_eq(bwrap_argv_run(&run, (const char *const[]){ "", NULL }, &argv, &err),
	                 -OSB_E_USAGE);
	free(a);
	free(b);
	plan_free(&run);
	plan_free(&ses);
	osb_policy_free(p);
}
END_TEST

/* ---- the repository's configuration (gitprotect.c) ------------------------- */

static void put_file(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* A fresh repository workspace beneath WS with .git/config CONFIG, and an
 * empty home whose .gitconfig is GLOBAL (NULL: none). */
static void git_ws(char *dir, size_t size, char *home, const char *config, const char *global)
{
	char git[256];

	snprintf(dir, size, "%s/g.XXXXXX", ws);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(chmod(dir, 0755), 0);
	snprintf(git, sizeof(git), "%s/.git", dir);
	ck_assert_int_eq(mkdir(git, 0755), 0);
	put_file(git, "config", config);
	snprintf(home, 128, "%s/h.XXXXXX", ws);
	ck_assert_ptr_nonnull(mkdtemp(home));
	if (global)
		put_file(home, ".gitconfig", global);
	setenv("HOME", home, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("GIT_CONFIG_GLOBAL");
}

static void rm_tree(const char *dir)
{
	char cmd[300];

	/* PATH is emptied for the plan: the shell by its path. */
	snprintf(cmd, sizeof(cmd), "/bin/rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static char *git_rules_of(const plan *pl)
{
	strv v = { 0 };
	char *s;

	for (size_t i = 0; i < pl->git.n; i++)
		ck_assert_int_eq(strv_pushf(&v, "%s<:%u>", pl->git.v[i].s, pl->git.v[i].o.line), 0);
	s = join(&v);
	strv_free(&v);
	return s;
}

START_TEST(test_git_config_names_worktree_paths)
{
	osb_policy *p = policy(BASE "workspace rw\nread-only workspace:.git\n");
	host_facts h = facts(geteuid(), 0);
	char dir[128], home[128], why[300], path[300];
	osb_error err;
	plan pl;
	char *got;
	struct stat st;

	git_ws(dir, sizeof(dir), home,
	       "[core]\n\thooksPath = .husky\n\tfsmonitor = false\n[include]\n\tpath = ../.gitconfig\n"
	       "[alias]\n\tx = !./tools/x.sh --flag --out=out/y.sh $HOME/z.sh\n"
	       "[includeIf \"gitdir:/elsewhere/\"]\n\tpath = ../sub/extra\n\tpath = hooks\n",
	       "[core]\n\thooksPath = .githooks\n");
	put_file(dir, ".gitconfig", "[core]\n\tfsmonitor = \"./fsmon.sh\"\n");
	ck_assert_int_eq(osb_policy_set_workspace(p, dir, &err), 0);
	ck_assert_msg(build(p, &h, false, &pl, &err) == 0, "%s", err.message);
	got = git_rules_of(&pl);
	ck_assert_str_eq(got, "workspace:.githooks<:2> workspace:.husky<:2> workspace:.gitconfig<:5> "
	                 "workspace:fsmon.sh<:2> workspace:tools/x.sh<:7> workspace:out/y.sh<:7> "
	                 "workspace:sub/extra<:9>");
	free(got);
	snprintf(why, sizeof(why), "core.hooksPath in %s/.git/config", dir);
	ck_assert_str_eq(pl.git.v[1].o.file, why);
	snprintf(why, sizeof(why), "core.fsmonitor in %s/.gitconfig", dir);
	ck_assert_str_eq(pl.git.v[3].o.file, why);
	/* Protected as a read-only rule: bound read-only, made when missing. */
	snprintf(path, sizeof(path), "%s/.husky", dir);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	{
		bool found = false;

		for (size_t i = 0; i < pl.n_binds; i++)
			if (!strcmp(pl.binds[i].dest, path))
				found = pl.binds[i].reprotect && !pl.binds[i].writable;
		ck_assert(found);
	}
	plan_free(&pl);
	ck_assert_int_ne(stat(path, &st), 0);   /* the placeholder is gone */
	rm_tree(dir);
	rm_tree(home);
	osb_policy_free(p);
}
END_TEST

static const struct { const char *config, *extra, *msg; int code; } git_refusals[] = {
	{ "[core]\n\thooksPath = .\n", NULL, ".git/config:2: core.hooksPath = .: it names the "
	  "workspace itself", OSB_E_POLICY },
	{ "[core]\n\thooksPath = \"unterminated\n", NULL, ".git/config:2: unterminated quote",
	  OSB_E_POLICY },
	{ "[include]\n\tpath = ../.gitconfig\n", "[include]\n\tpath = .gitconfig\n",
	  ".gitconfig:2: include.path = ", OSB_E_POLICY },
	{ "[include]\n\tpath = ../missing/../x\n", NULL, ".git/config:2: include.path = "
	  "../missing/../x: a \"..\" leaves a directory", OSB_E_PATH },
	{ "[core]\n\thooksPath = link/hooks\n", NULL, ": read-only: ", OSB_E_PATH },
};

START_TEST(test_git_config_refusals)
{
	osb_policy *p = policy(BASE "workspace rw\nread-only workspace:.git\n");
	host_facts h = facts(geteuid(), 0);
	char dir[128], home[128], link[200];
	osb_error err;
	plan pl;

	git_ws(dir, sizeof(dir), home, git_refusals[_i].config, NULL);
	if (git_refusals[_i].extra)
		put_file(dir, ".gitconfig", git_refusals[_i].extra);
	snprintf(link, sizeof(link), "%s/link", dir);
	ck_assert_int_eq(symlink("/tmp", link), 0);
	ck_assert_int_eq(osb_policy_set_workspace(p, dir, &err), 0);
	ck_assert_int_eq(build(p, &h, false, &pl, &err), -git_refusals[_i].code);
	ck_assert_msg(strstr(err.message, git_refusals[_i].msg), "%s: %s", git_refusals[_i].msg,
	              err.message);
	plan_free(&pl);
	rm_tree(dir);
	rm_tree(home);
	osb_policy_free(p);
}
END_TEST

/* A worktree or submodule: .git is a file naming the git directory, whose
 * commondir names the repository with the configuration. */
START_TEST(test_git_config_of_a_gitfile)
{
	osb_policy *p = policy(BASE "workspace rw\nread-only workspace:.git\n");
	host_facts h = facts(geteuid(), 0);
	char dir[128], home[128], main_git[160], wtdir[200], text[300];
	osb_error err;
	plan pl;
	char *got;

	git_ws(dir, sizeof(dir), home, "", NULL);
	/* The main repository beside the workspace, its worktree's directory. */
	snprintf(main_git, sizeof(main_git), "%s/main.git", home);
	ck_assert_int_eq(mkdir(main_git, 0755), 0);
	put_file(main_git, "config", "[core]\n\tbare = false\n\thooksPath = .husky\n");
	snprintf(wtdir, sizeof(wtdir), "%s/worktrees", main_git);
	ck_assert_int_eq(mkdir(wtdir, 0755), 0);
	snprintf(wtdir, sizeof(wtdir), "%s/worktrees/w", main_git);
	ck_assert_int_eq(mkdir(wtdir, 0755), 0);
	put_file(wtdir, "commondir", "../..\n");
	snprintf(text, sizeof(text), "%s/.git", dir);
	rm_tree(text);
	snprintf(text, sizeof(text), "gitdir: %s\n", wtdir);
	put_file(dir, ".git", text);
	ck_assert_int_eq(osb_policy_set_workspace(p, dir, &err), 0);
	ck_assert_msg(build(p, &h, false, &pl, &err) == 0, "%s", err.message);
	got = git_rules_of(&pl);
	ck_assert_str_eq(got, "workspace:.husky<:3>");
	free(got);
	snprintf(text, sizeof(text), "core.hooksPath in %s/config", main_git);
	ck_assert_str_eq(pl.git.v[0].o.file, text);
	plan_free(&pl);

	/* A git directory inside the work tree is protected whole. */
	put_file(dir, ".git", "gitdir: .repo\n");
	snprintf(text, sizeof(text), "%s/.repo", dir);
	ck_assert_int_eq(mkdir(text, 0755), 0);
	put_file(text, "config", "[core]\n\tfsmonitor = tools/fsmon\n");
	ck_assert_msg(build(p, &h, false, &pl, &err) == 0, "%s", err.message);
	got = git_rules_of(&pl);
	ck_assert_str_eq(got, "workspace:.repo<:1> workspace:tools/fsmon<:2>");
	free(got);
	plan_free(&pl);
	rm_tree(dir);
	rm_tree(home);
	osb_policy_free(p);
}
END_TEST

/* Without a read-only rule over .git the configuration is not read: the
 * policy protects nothing there, and writing .git is its own warning (W105). */
START_TEST(test_git_config_read_only_with_git_protected)
{
	osb_policy *p = policy(BASE "workspace rw\n");
	host_facts h = facts(geteuid(), 0);
	char dir[128], home[128];
	osb_error err;
	plan pl;

	git_ws(dir, sizeof(dir), home, "[core\n", NULL);
	ck_assert_int_eq(osb_policy_set_workspace(p, dir, &err), 0);
	ck_assert_msg(build(p, &h, false, &pl, &err) == 0, "%s", err.message);
	ck_assert_uint_eq(pl.git.n, 0);
	plan_free(&pl);
	rm_tree(dir);
	rm_tree(home);
	osb_policy_free(p);
}
END_TEST

/* ---- running as an unprivileged user ---------------------------------------- */

START_TEST(test_runs_unprivileged_without_bwrap)
{
	ck_assert_uint_ne(geteuid(), 0);
	ck_assert_int_ne(access("/nonexistent/bwrap", F_OK), 0);
	ck_assert_str_eq(getenv("PATH"), "/nonexistent");
}
END_TEST

/* Root drops to an id of no privilege before any case runs: nothing here
 * may need more. */
static void drop_privileges(void)
{
	const uid_t nobody = 65534;

	if (geteuid() != 0)
		return;
	if (setgroups(0, NULL) < 0 || setresgid(nobody, nobody, nobody) < 0 ||
	    setresuid(nobody, nobody, nobody) < 0) {
		perror("check_plan: dropping to uid 65534");
		exit(99);
	}
	printf("# check_plan: running as uid %u (dropped from root)\n", (unsigned)geteuid());
}

static Suite *plan_suite(void)
{
	Suite *s = suite_create("plan");
	TCase *tc = tcase_create("facts");

	tcase_add_test(tc, test_runs_unprivileged_without_bwrap);
	tcase_add_test(tc, test_git_config_names_worktree_paths);
	tcase_add_loop_test(tc, test_git_config_refusals, 0,
	                    (int)(sizeof(git_refusals) / sizeof(git_refusals[0])));
	tcase_add_test(tc, test_git_config_read_only_with_git_protected);
	tcase_add_test(tc, test_git_config_of_a_gitfile);
	tcase_add_test(tc, test_mode_decided_from_facts_alone);
	tcase_add_test(tc, test_mode_refusals_name_the_rule);
	tcase_add_test(tc, test_root_caller_without_userns_plans_root_mode);
	tcase_add_test(tc, test_root_caller_userns_mode_starts_bwrap_as_host_ids);
	tcase_add_test(tc, test_bwrap_facts_refused_with_the_reason);
	tcase_add_test(tc, test_uid_zero_refused_before_the_host_is_asked);
	tcase_add_test(tc, test_proc_cover_from_facts);
	tcase_add_test(tc, test_session_and_run_share_the_plan);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr;
	int failed;

	drop_privileges();
	setenv("PATH", "/nonexistent", 1);
	/* A workspace of this user's own, beneath the sticky /tmp, that the
	 * allocated host ids of a root caller's plan may write too. */
	snprintf(ws, sizeof(ws), "/tmp/osb-plan.XXXXXX");
	if (!mkdtemp(ws) || chmod(ws, 01777) < 0) {
		perror("check_plan: mkdtemp");
		return 99;
	}
	sr = srunner_create(plan_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	rmdir(ws);
	return failed ? 1 : 0;
}

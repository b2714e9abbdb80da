/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* policy_narrow.c — libFuzzer harness for the caller-facing narrowing and
 * exec API: osb_policy_set_workspace, osb_policy_add_readonly,
 * osb_policy_set_wall_ms, osb_policy_set_network, osb_exec_new,
 * osb_exec_set_env, osb_exec_set_cwd, and the environment filter
 * (env_build) that the caller's entries go through.
 *
 * These are what the CLI's options and a daemon's requests turn into (the
 * CLI's option parser itself is getopt over static state in the program, so
 * its strings are fuzzed here, where they land). The input is a list of
 * NUL-separated fields; the first byte of a field picks the call, the rest
 * is its argument, so paths, names and values hold any byte (newlines, '=',
 * invalid UTF-8). Beyond "no crash" it checks: a refused call fills the
 * error; after any sequence of calls the policy still has a canonical form
 * that parses back to the same hash; every environment entry env_build
 * passes on is NAME=VALUE with a name of [A-Za-z0-9_].
 */
#include "policy.h"
#include "env.h"
#include "policy-canon.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { OP_WORKSPACE, OP_READONLY, OP_WALL, OP_NETWORK, OP_ARG, OP_ENV, OP_CWD, OP__COUNT };
#define MAX_FIELDS 256

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("OSB_ISOLATE_POLICY_DIR", FUZZ_POLICY_DIR, 1);
	return 0;
}

static void refused_says_why(int r, const osb_error *err)
{
	if (r < 0 && (err->code == OSB_OK || !err->message[0]))
		abort();
}

static void apply(osb_policy *p, int op, const char *arg, size_t len)
{
	osb_error err = { 0 };
	uint64_t ms = 0;

	switch (op) {
	case OP_WORKSPACE:
		refused_says_why(osb_policy_set_workspace(p, arg, &err), &err);
		break;
	case OP_READONLY:
		refused_says_why(osb_policy_add_readonly(p, arg, &err), &err);
		break;
	case OP_WALL:
		if (parse_duration_ms(arg, &ms) < 0 && len >= sizeof(ms))
			memcpy(&ms, arg, sizeof(ms));
		refused_says_why(osb_policy_set_wall_ms(p, ms, &err), &err);
		break;
	case OP_NETWORK:
		refused_says_why(osb_policy_set_network(p, len ? arg[0] - '0' : -1, &err), &err);
		break;
	}
}

static void check_hash_round_trip(const osb_policy *p)
{
	char h1[OSB_POLICY_HASH_LEN], h2[OSB_POLICY_HASH_LEN];
	_cleanup_free_ char *canon = NULL, *explain = osb_policy_explain(p, 0);
	osb_error err = { 0 };
	osb_policy *q;

	if (!explain || osb_policy_hash(p, h1) < 0 || policy_canonical(p, &canon) < 0)
		abort();
	q = osb_policy_parse(canon, strlen(canon), "/nonexistent-osb-fuzz/canonical.policy", &err);
	if (!q || osb_policy_hash(q, h2) < 0 || strcmp(h1, h2) != 0) {
		fprintf(stderr, "canonical form does not round-trip (%s)\n---\n%s---\n",
		        q ? "hash differs" : err.message, canon);
		abort();
	}
	osb_policy_free(q);
}

static void check_env(const osb_policy *p, const char *const *env)
{
	osb_error err = { 0 };
	strv out = { 0 };

	if (env_build(p, env, "/workspace", &out, &err) < 0) {
		refused_says_why(-1, &err);
		return;
	}
	for (size_t i = 0; i < out.n; i++) {
		size_t n = strcspn(out.v[i], "=");

		if (n == 0 || out.v[i][n] != '=')
			abort();
		for (size_t k = 0; k < n; k++) {
			char c = out.v[i][k];

			if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			      (c >= '0' && c <= '9') || c == '_'))
				abort();
		}
	}
	strv_free(&out);
}

static void run_exec(const char *const *argv, const char *const *env, const char *cwd)
{
	osb_error err = { 0 };
	osb_exec *e = osb_exec_new(argv, &err);

	if (!e) {
		if (argv[0] && argv[0][0])
			abort();   /* only an empty command may be refused */
		refused_says_why(-1, &err);
		return;
	}
	if (osb_exec_set_env(e, env) < 0 || osb_exec_set_cwd(e, cwd) < 0)
		abort();
	osb_exec_free(e);
}

static const char granting[] =
	"osb-policy 1\ninclude strict\nread-root /srv\nread-root /home/u\nallow-caller network\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *argv[MAX_FIELDS + 1], *env[MAX_FIELDS + 1], *cwd = NULL;
	size_t n_argv = 0, n_env = 0;
	char *buf = malloc(size + 1);
	osb_error err = { 0 };
	osb_policy *p;
	size_t i = 1;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	/* Bit 1 picks a policy that grants callers read-only paths and the host
	 * network, so that those grants are taken, not only refused. */
	if (size && (data[0] & 2))
		p = osb_policy_parse(granting, strlen(granting), "/nonexistent-osb-fuzz/grants.policy",
		                     &err);
	else
		p = osb_policy_load(size && (data[0] & 1) ? "balanced" : "strict", &err);
	if (!p) {
		fprintf(stderr, "cannot load the shipped policy: %s\n", err.message);
		abort();
	}
	while (i < size) {
		char *field = buf + i;
		size_t len = strlen(field);
		int op = (unsigned char)field[0] % OP__COUNT;

		i += len + 1;
		if (len == 0)
			continue;
		if (op == OP_ARG && n_argv < MAX_FIELDS)
			argv[n_argv++] = field + 1;
		else if (op == OP_ENV && n_env < MAX_FIELDS)
			env[n_env++] = field + 1;
		else if (op == OP_CWD)
			cwd = field + 1;
		else
			apply(p, op, field + 1, len - 1);
	}
	argv[n_argv] = NULL;
	env[n_env] = NULL;
	check_hash_round_trip(p);
	check_env(p, env);
	run_exec(argv, env, cwd);
	osb_policy_free(p);
	free(buf);
	return 0;
}

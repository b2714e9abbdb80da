/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* policy_parse.c — libFuzzer harness for the policy parser (osb_policy_parse).
 *
 * Policy text is the first thing an untrusted party may hand the library, so
 * the parser must give a policy or an error for any bytes, never a crash, a
 * leak or a read past the input. Beyond "no crash" it checks the parser's
 * own promises: a failure fills the error with a stage and a message, and an
 * accepted policy's canonical form parses back to the same hash (the
 * canonical text is what policy_hash digests, so a form that does not round
 * trip would make two different policies share one approved hash, or one
 * policy have two). Includes resolve against the shipped policies
 * (FUZZ_POLICY_DIR, set by tools/fuzz.sh), beside a file that does not
 * exist, so the input itself is the only top-level file.
 */
#include "policy.h"
#include "policy-canon.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define INPUT_NAME "/nonexistent-osb-fuzz/input.policy"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("OSB_ISOLATE_POLICY_DIR", FUZZ_POLICY_DIR, 1);
	return 0;
}

static void check_round_trip(const osb_policy *p)
{
	char h1[OSB_POLICY_HASH_LEN], h2[OSB_POLICY_HASH_LEN];
	_cleanup_free_ char *canon = NULL, *explain = NULL;
	osb_policy *q;
	osb_error err = { 0 };

	if (osb_policy_hash(p, h1) < 0 || policy_canonical(p, &canon) < 0)
		abort();
	explain = osb_policy_explain(p, 0);
	if (!explain)
		abort();
	q = osb_policy_parse(canon, strlen(canon), INPUT_NAME, &err);
	if (!q) {
		fprintf(stderr, "canonical form does not parse back: %s\n---\n%s---\n",
		        err.message, canon);
		abort();
	}
	if (osb_policy_hash(q, h2) < 0 || strcmp(h1, h2) != 0) {
		fprintf(stderr, "canonical form changes the hash: %s != %s\n---\n%s---\n", h1, h2,
		        canon);
		abort();
	}
	osb_policy_free(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	osb_error err = { 0 };
	osb_policy *p = osb_policy_parse((const char *)data, size, INPUT_NAME, &err);

	if (!p) {
		/* Every refusal says where and why. */
		if (err.code == OSB_OK || !err.stage[0] || !err.message[0] ||
		    !memchr(err.message, '\0', sizeof(err.message)))
			abort();
		return 0;
	}
	check_round_trip(p);
	osb_policy_free(p);
	return 0;
}

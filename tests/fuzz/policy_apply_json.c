/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* policy_apply_json.c — libFuzzer harness for the execd request applier
 * (osb_policy_apply_json).
 *
 * The request is JSON from another process; whatever its bytes, the applier
 * must refuse with an error or narrow the policy, never crash or leak. The
 * input (NUL-terminated at its first NUL, as a C caller passes it) is
 * applied to a loaded shipped policy ("strict", or "balanced" when the input
 * length is odd, which has network and an inherited environment). Beyond "no
 * crash" it checks the documented promises: a refusal fills the error and,
 * unless it is OSB_E_NOMEM, leaves the policy unchanged (same hash); an
 * accepted request never turns "network none" into "host", and the result
 * still has a canonical form that parses back to the same hash.
 */
#include "policy.h"
#include "policy-canon.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("OSB_ISOLATE_POLICY_DIR", FUZZ_POLICY_DIR, 1);
	return 0;
}

static void round_trip(const osb_policy *p, const char *hash)
{
	_cleanup_free_ char *canon = NULL;
	osb_error err = { 0 };
	osb_policy *q;
	char h[OSB_POLICY_HASH_LEN];

	if (policy_canonical(p, &canon) < 0)
		abort();
	q = osb_policy_parse(canon, strlen(canon), "/nonexistent-osb-fuzz/canonical.policy", &err);
	if (!q || osb_policy_hash(q, h) < 0 || strcmp(h, hash) != 0) {
		fprintf(stderr, "canonical form does not round-trip (%s)\n---\n%s---\n",
		        q ? "hash differs" : err.message, canon);
		abort();
	}
	osb_policy_free(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *json = malloc(size + 1), before[OSB_POLICY_HASH_LEN], after[OSB_POLICY_HASH_LEN];
	osb_error err = { 0 };
	osb_policy *p;
	enum net_mode net;
	int r;

	if (!json)
		return 0;
	memcpy(json, data, size);
	json[size] = '\0';
	p = osb_policy_load(size & 1 ? "balanced" : "strict", &err);
	if (!p) {
		fprintf(stderr, "cannot load the shipped policy: %s\n", err.message);
		abort();
	}
	net = p->net;
	if (osb_policy_hash(p, before) < 0)
		abort();
	r = osb_policy_apply_json(p, json, &err);
	if (osb_policy_hash(p, after) < 0)
		abort();
	if (r < 0) {
		if (err.code == OSB_OK || !err.message[0])
			abort();
		if (err.code != OSB_E_NOMEM && strcmp(before, after) != 0) {
			fprintf(stderr, "a refused request changed the policy: %s\n", err.message);
			abort();
		}
	} else {
		if (net == NET_NONE && p->net != NET_NONE)
			abort();
		round_trip(p, after);
	}
	osb_policy_free(p);
	free(json);
	return 0;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* sha256.h — SHA-256 (FIPS 180-4), used to fingerprint the canonical
 * effective policy (policy_hash). Kept in-tree because none of the
 * project's dependencies offers a hash, and the policy hash must not pull in
 * a crypto library for one digest of a few kilobytes.
 */
#ifndef OSB_SHA256_H
#define OSB_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_LEN 32

typedef struct sha256_ctx {
	uint32_t h[8];
	uint64_t len;          /* bytes hashed so far */
	uint8_t buf[64];
	size_t n;              /* bytes waiting in buf */
} sha256_ctx;

void sha256_init(sha256_ctx *c);
void sha256_update(sha256_ctx *c, const void *data, size_t len);
void sha256_final(sha256_ctx *c, uint8_t out[SHA256_DIGEST_LEN]);
/* One-shot digest of DATA. */
void sha256(const void *data, size_t len, uint8_t out[SHA256_DIGEST_LEN]);

#endif

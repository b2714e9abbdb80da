/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* reqpos.h — where in an execd request each of its values is (reqpos.c),
 * so that a finding about a rule the request made points at the request's
 * own line and column and JSON pointer, not at the baseline.
 */
#ifndef OSB_REVIEW_REQPOS_H
#define OSB_REVIEW_REQPOS_H

#include <stddef.h>

typedef struct reqpos_value {
	char *pointer;            /* RFC 6901: "/extra_writable/1" ("" the document) */
	char *string;             /* the decoded value of a string; NULL otherwise */
	unsigned line, col;       /* where the value starts, from 1 (columns in bytes) */
} reqpos_value;

typedef struct reqpos {
	reqpos_value *v;
	size_t n, cap;
} reqpos;

/* Every value of the JSON text TEXT with its position. Returns 0, -EINVAL
 * for text that is not JSON (the library refuses it first), -ENOMEM. */
int reqpos_scan(const char *text, reqpos *out);
void reqpos_free(reqpos *rp);

/* The value of RP the request's key for the canonical rule RULE ("write
 * /srv/x", "network host", "limit wall 2m") came from: the element of
 * extra_writable, read_only or env.pass naming its path or name, the member
 * of env.set, limits, or the scalar key; the document itself when none is
 * found. NULL only for an empty RP. */
const reqpos_value *reqpos_for_rule(const reqpos *rp, const char *rule);

#endif /* OSB_REVIEW_REQPOS_H */

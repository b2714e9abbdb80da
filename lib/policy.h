/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* policy.h — what the policy parser (policy.c) shares with the request
 * narrowing (request.c), so that a path, a name or an errno accepted in a
 * policy file and in an execd request obey one set of rules, and both spell
 * their messages alike.
 */
#ifndef OSB_POLICY_H
#define OSB_POLICY_H

#include "internal.h"

#include <limits.h>

/* Room for policy_origin_format: a file path and ":LINE". */
#define POLICY_ORIGIN_MAX (PATH_MAX + 16)

/* The origin every caller adjustment records: {"api", 0, 0}. */
extern const osb_origin policy_api_origin;

/* Did a caller (the API, a request, the CLI's run options) add this rule? */
static inline bool policy_origin_is_api(const osb_origin *o)
{
	return o->file == policy_api_origin.file;
}

/* Why PATH is not an acceptable policy path (absolute, normalized, and
 * without * ? [ unless ALLOW_GLOB), or NULL. */
const char *policy_path_problem(const char *path, bool allow_glob);

/* Why S cannot be written in a policy (invalid UTF-8, a control, invisible
 * or bidirectional character; with TOKEN also a space or tab), or NULL. */
const char *policy_text_problem(const char *s, bool token);

/* Is PATH strictly beneath ROOT, compared by whole components? Both must
 * be acceptable to policy_path_problem. */
bool policy_path_beneath(const char *root, const char *path);

/* A letter or "_", then letters, digits and "_": LEN bytes of S. */
bool policy_env_name_ok(const char *s, size_t len);

/* The closest of WORDS to WORD ("did you mean"), or NULL. */
const char *policy_suggest(const char *word, const char *const *words, size_t n);

/* "file:line", or "default" / "api" (BUF of POLICY_ORIGIN_MAX bytes). */
void policy_origin_format(const osb_origin *o, char *buf, size_t size);

/* errno by name ("EACCES") or number 1..4095: the value, -EINVAL or
 * -ERANGE. policy_errno_format writes the name (or the number). */
int policy_errno_parse(const char *s);
void policy_errno_format(int e, char *buf, size_t size);

/* "/data, /srv/jobs": the declared write-roots. */
void policy_roots_list(const osb_policy *p, char *buf, size_t size);

/* Why P's declarations refuse a write grant of PATH (not beneath a
 * write-root, or under a read-only path), written into BUF; NULL if none. */
const char *policy_write_problem(const osb_policy *p, const char *path, char *buf, size_t size);

/* May PATH be granted writable by a caller? 0 yes, 1 it already is, or
 * -OSB_E_*: WHAT starts every message; a malformed PATH is reported with
 * USAGE_CODE, a refused one (not beneath a write-root, under a read-only
 * path, already another rule's path) with OSB_E_POLICY. */
int policy_check_writable(const osb_policy *p, const char *path, const char *what, int usage_code,
                          osb_error *err);

/* The check above, then PATH as a "write" rule of origin api. Returns 0 or
 * -OSB_E_*. */
int policy_add_writable(osb_policy *p, const char *path, const char *what, int usage_code,
                        osb_error *err);

/* May a caller turn the host network on? Only under "network host" or
 * "allow-caller network": 0, or -OSB_E_POLICY naming the policy and its
 * network rule. */
int policy_check_network(const osb_policy *p, osb_error *err);

/* May a caller bind PATH read-only? 0 yes, 1 it already is, or -OSB_E_*
 * as below. */
int policy_check_read_only(const osb_policy *p, const char *path, osb_error *err);

/* PATH as a caller's read-only bind (origin api): it must lie beneath a
 * read-root of P (OSB_E_POLICY naming them) and be a well-formed policy
 * path (OSB_E_USAGE). Adding it twice is harmless. Returns 0 or -OSB_E_*. */
int policy_add_read_only(osb_policy *p, const char *path, osb_error *err);

#endif /* OSB_POLICY_H */

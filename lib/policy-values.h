/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* policy-values.h — the values of the policy language (policy-values.c):
 * quantities with units, paths, names, errno names, the words of each
 * directive, and how a message quotes and suggests.
 *
 * One set of rules for a policy file, an execd request (request.c) and the
 * API, so that what is accepted in one is accepted in all, and messages are
 * spelled alike. Nothing here reads a file or looks at the host.
 */
#ifndef OSB_POLICY_VALUES_H
#define OSB_POLICY_VALUES_H

#include "util.h"

#include <limits.h>

typedef struct osb_origin osb_origin;

#define POLICY_MAX_BYTES ((size_t)1 << 20)
/* The text one load parses, the top file and its includes together; a file
 * included again at the same depth is not parsed again and does not count. */
#define POLICY_MAX_TOTAL_BYTES ((size_t)4 << 20)
#define CLIP_LEN 96          /* longest user text quoted in a message */

/* Room for policy_origin_format: a file path and ":LINE". */
#define POLICY_ORIGIN_MAX (PATH_MAX + 16)

/* The words of each keyword directive, indexed by the enums of policy.h. */
extern const char *const policy_root_names[2];
extern const char *const policy_ws_names[4];
extern const char *const policy_net_names[3];
extern const char *const policy_env_base_names[2];
extern const char *const policy_id_names[3];
extern const char *const policy_sc_mode_names[2];
extern const char *const policy_ll_names[3];
extern const char *const policy_mount_names[6];
/* Names of limits as written in policies ("wall", "cpu", ...). */
extern const char *const osb_limit_names[];

static inline bool ascii_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static inline bool ascii_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Whole numbers with a unit. */
typedef struct unit {
	const char *name;
	uint64_t mult;
} unit;
extern const unit policy_duration_units[4];
extern const unit policy_size_units[8];

enum qerr { Q_OK, Q_NEGATIVE, Q_NOT_NUMBER, Q_MISSING_UNIT, Q_BAD_UNIT, Q_RANGE };

/* A whole number followed by one of UNITS (N == 0: a plain number).
 * UINT64_MAX is out of range: it stands for "unlimited". */
enum qerr policy_parse_quantity(const char *s, const unit *units, size_t n, uint64_t *out);

/* Whole numbers with a unit (no fractions, no sign, no blanks). Durations
 * accept ms, s, m, h; sizes accept B, KiB, MiB, GiB, TiB, K, M, G (binary).
 * Return 0, -EINVAL (malformed, missing or unknown unit, negative) or
 * -ERANGE (UINT64_MAX or more, which is reserved for "unlimited"). */
int parse_duration_ms(const char *s, uint64_t *out);
int parse_size_bytes(const char *s, uint64_t *out);

/* A share of CPU for "limit cpu": a fraction of one CPU with at most 3
 * decimals ("0.5", "2") or a percentage with at most 1 ("50%", "12.5%"),
 * in thousandths of a CPU, at most 1024 CPUs. 0, -EINVAL, -ERANGE, or
 * -EDOM for a duration ("2m"): the old seconds form, now "limit cputime". */
int parse_cpu_share(const char *s, uint64_t *millis);

/* A value of limit ID (enum limit_id) as a policy writes it, "unlimited"
 * included (UINT64_MAX): 0, or -EINVAL for anything "limit" would refuse. */
int policy_limit_parse(unsigned id, const char *s, uint64_t *out);

/* A limit's value as the canonical form spells it ("10m", "1GiB", "unlimited"). */
void policy_format_limit(unsigned id, uint64_t v, char *buf, size_t size);

/* Glob match for env patterns: '*' and '?' only; env_deny_match ignores
 * ASCII case, as deny patterns do. */
bool env_pattern_match(const char *pattern, const char *name);
bool env_deny_match(const char *pattern, const char *name);

/* Where shipped policies live (env OSB_ISOLATE_POLICY_DIR or compiled in). */
const char *policy_dir(void);

/* Quote-safe excerpt of user text for a message: long tokens are cut (at a
 * UTF-8 boundary) so the position and the hint still fit. */
typedef struct clipbuf {
	char s[CLIP_LEN + 4];
} clipbuf;
const char *policy_clip(const char *s, clipbuf *b);

/* "a, b or c" */
void policy_join_words(const char *const *words, size_t n, char *buf, size_t size);

/* Length of the valid UTF-8 sequence at S (0 if invalid); *CP its value. */
size_t policy_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);
/* Characters that display as nothing, or reorder what is displayed around
 * them: a reviewer reading the file would not see what the parser sees. */
bool policy_invisible(uint32_t cp);

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

/* Why REL, the part after "workspace:", is not acceptable, or NULL. */
const char *policy_rel_problem(const char *rel);

/* The closest errno name to WORD, or NULL. */
const char *policy_errno_suggest(const char *word);

/* Lower-case letters, digits, "_" and "-", starting with a letter or "_",
 * at most 32 bytes. */
bool policy_user_name_ok(const char *s);
/* Dot-separated RFC 1123 labels, at most 64 bytes (HOST_NAME_MAX). */
bool policy_hostname_ok(const char *s);
/* Decimal 0..4294967294. Returns 0, -EINVAL (not a number) or -ERANGE. */
int policy_parse_id(const char *s, uint32_t *out);
/* Letters, digits, "_", "." and "-": a shipped policy's name. */
bool policy_bare_name_ok(const char *s);
/* NAME.policy unless NAME already ends in ".policy"; malloc'd. */
char *policy_file_name(const char *name);

#endif /* OSB_POLICY_VALUES_H */

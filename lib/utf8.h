/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* utf8.h — validating UTF-8 (utf8.c): what the library prints as JSON is
 * valid UTF-8 whatever the bytes it carries (command output, host paths).
 */
#ifndef OSB_UTF8_H
#define OSB_UTF8_H

#include <stddef.h>

/* Length of the valid UTF-8 sequence at S (N > 0 bytes left), or 0 when it
 * is invalid; *BAD is then the length of its maximal invalid prefix (the
 * Unicode "maximal subpart" rule: one U+FFFD per such prefix). */
size_t utf8_seq(const unsigned char *s, size_t n, size_t *bad);

/* A NUL-terminated copy of S (LEN bytes) in which every invalid sequence
 * is replaced by U+FFFD; *OUT_LEN (may be NULL) is its length. Applied to a
 * JSON text, the result is still JSON (invalid bytes are never ASCII, so
 * only string contents change) and now valid UTF-8. NULL: out of memory. */
char *utf8_valid_dup(const char *s, size_t len, size_t *out_len);

#endif /* OSB_UTF8_H */

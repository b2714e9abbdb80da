/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* utf8.h — validating UTF-8 (utf8.c): what the library prints as JSON is
 * valid UTF-8 whatever the bytes it carries (command output, host paths);
 * and what a terminal would not show as it is (controls, invisible and
 * bidirectional characters, invalid bytes), escaped.
 */
#ifndef OSB_UTF8_H
#define OSB_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Length of the valid UTF-8 sequence at S (N > 0 bytes left), or 0 when it
 * is invalid; *BAD is then the length of its maximal invalid prefix (the
 * Unicode "maximal subpart" rule: one U+FFFD per such prefix). */
size_t utf8_seq(const unsigned char *s, size_t n, size_t *bad);

/* A NUL-terminated copy of S (LEN bytes) in which every invalid sequence
 * is replaced by U+FFFD; *OUT_LEN (may be NULL) is its length. Applied to a
 * JSON text, the result is still JSON (invalid bytes are never ASCII, so
 * only string contents change) and now valid UTF-8. NULL: out of memory. */
char *utf8_valid_dup(const char *s, size_t len, size_t *out_len);

/* CP displays as nothing, or reorders what is displayed around it: a C1
 * control (U+0080..U+009F), the soft hyphen, a bidirectional mark,
 * embedding, override or isolate (U+061C, U+200E/F, U+202A..U+202E,
 * U+2066..U+2069), a zero-width character or the BOM. */
bool utf8_invisible(uint32_t cp);

/* Length of the sequence at S (N > 0 bytes left) when a terminal shows it
 * as what it is: a printable ASCII byte, or valid UTF-8 for a character
 * utf8_invisible() does not name. 0 for a C0 control, DEL, an invisible
 * or bidirectional character or invalid UTF-8: *BAD is then the number of
 * bytes to show escaped. */
size_t utf8_printable(const unsigned char *s, size_t n, size_t *bad);

/* A copy of S in which each byte of what utf8_printable() refuses is
 * written "\ooo" (three octal digits) and each backslash "\\": safe to
 * print on a terminal, and every name reads back unambiguously. NULL: out
 * of memory. */
char *utf8_escape_dup(const char *s);

/* A copy of the valid UTF-8 JSON text JS in which DEL and every character
 * utf8_invisible() names is a \uXXXX escape (json-c escapes only
 * U+0000..U+001F); a parser reads the same strings. NULL: out of memory. */
char *utf8_json_visible(const char *js);

#endif /* OSB_UTF8_H */

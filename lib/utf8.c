/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* utf8.c — UTF-8 validation and repair (utf8.h). JSON must be valid UTF-8,
 * and what the library puts in it is often not: a command's output, a path
 * on the host. Invalid bytes are replaced by U+FFFD, one per maximal
 * invalid subpart as Unicode recommends, never dropped silently and never
 * escaped in a way a strict parser refuses (a lone surrogate escape).
 */
#include "utf8.h"
#include "util.h"

#include <stdint.h>

size_t utf8_seq(const unsigned char *s, size_t n, size_t *bad)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t need, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		need = 1;
	else if (c >= 0xe0 && c <= 0xef)
		need = 2;
	else if (c >= 0xf0 && c <= 0xf4)
		need = 3;
	else {
		*bad = 1;
		return 0;
	}
	/* The second byte's range excludes overlongs, surrogates and > U+10FFFF. */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	for (i = 1; i <= need; i++) {
		unsigned char min = i == 1 ? lo : 0x80, max = i == 1 ? hi : 0xbf;

		if (i >= n || s[i] < min || s[i] > max) {
			*bad = i;
			return 0;
		}
	}
	return need + 1;
}

char *utf8_valid_dup(const char *s, size_t len, size_t *out_len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n = 0;
	char *buf;

	/* At worst every byte becomes the 3 bytes of U+FFFD. */
	if (len > (SIZE_MAX - 1) / 3 || !(buf = malloc(len * 3 + 1)))
		return NULL;
	while (i < len) {
		size_t bad = 0, ok = utf8_seq(u + i, len - i, &bad);

		if (ok) {
			memcpy(buf + n, u + i, ok);
			n += ok;
			i += ok;
		} else {
			memcpy(buf + n, "\xef\xbf\xbd", 3);
			n += 3;
			i += bad;
		}
	}
	buf[n] = '\0';
	if (out_len)
		*out_len = n;
	return buf;
}

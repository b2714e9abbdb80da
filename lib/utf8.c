/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* utf8.c — UTF-8 validation and repair (utf8.h). JSON must be valid UTF-8,
 * and what the library puts in it is often not: a command's output, a path
 * on the host. Invalid bytes are replaced by U+FFFD, one per maximal
 * invalid subpart as Unicode recommends, never dropped silently and never
 * escaped in a way a strict parser refuses (a lone surrogate escape).
 *
 * Names a sandbox chose reach a reviewer's terminal too (an overlay
 * session's changes): there a control sequence would drive the terminal
 * (ESC[2J, CSI as U+009B) and a bidirectional override would show the
 * name reordered, so what a terminal would not show as it is is escaped
 * byte by byte, and in JSON written as \u escapes.
 */
#include "utf8.h"
#include "util.h"

#include <stdint.h>
#include <stdio.h>

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

bool utf8_invisible(uint32_t cp)
{
	static const uint32_t ranges[][2] = {
		{ 0x0080, 0x009f }, { 0x00ad, 0x00ad }, { 0x061c, 0x061c },
		{ 0x200b, 0x200f }, { 0x202a, 0x202e }, { 0x2060, 0x2064 },
		{ 0x2066, 0x2069 }, { 0xfeff, 0xfeff },
	};

	for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
		if (cp >= ranges[i][0] && cp <= ranges[i][1])
			return true;
	return false;
}

/* The code point of the valid sequence S of LEN bytes. */
static uint32_t decode(const unsigned char *s, size_t len)
{
	uint32_t cp = len == 1 ? s[0] : s[0] & (0xffu >> (len + 1));

	for (size_t i = 1; i < len; i++)
		cp = cp << 6 | (s[i] & 0x3fu);
	return cp;
}

size_t utf8_printable(const unsigned char *s, size_t n, size_t *bad)
{
	size_t len = utf8_seq(s, n, bad);

	if (len == 1 && (s[0] < 0x20 || s[0] == 0x7f)) {
		*bad = 1;
		return 0;
	}
	if (len > 1 && utf8_invisible(decode(s, len))) {
		*bad = len;
		return 0;
	}
	return len;
}

char *utf8_escape_dup(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = strlen(s), i = 0, n = 0;
	char *buf;

	/* At worst every byte becomes four. */
	if (len > (SIZE_MAX - 1) / 4 || !(buf = malloc(len * 4 + 1)))
		return NULL;
	while (i < len) {
		size_t bad = 0, ok = utf8_printable(u + i, len - i, &bad);

		if (ok == 1 && u[i] == '\\') {
			memcpy(buf + n, "\\\\", 2);
			n += 2;
		} else if (ok) {
			memcpy(buf + n, u + i, ok);
			n += ok;
		}
		for (size_t k = 0; !ok && k < bad; k++, n += 4)
			snprintf(buf + n, 5, "\\%03o", u[i + k]);
		i += ok ? ok : bad;
	}
	buf[n] = '\0';
	return buf;
}

char *utf8_json_visible(const char *js)
{
	const unsigned char *u = (const unsigned char *)js;
	size_t len = strlen(js), i = 0, n = 0;
	char *buf;

	/* At worst every byte (DEL) becomes six. */
	if (len > (SIZE_MAX - 1) / 6 || !(buf = malloc(len * 6 + 1)))
		return NULL;
	while (i < len) {
		size_t bad = 0, ok = utf8_seq(u + i, len - i, &bad);
		uint32_t cp = ok ? decode(u + i, ok) : 0;

		if (!ok) {
			buf[n++] = (char)u[i++];   /* not UTF-8: left as it is */
		} else if (cp == 0x7f || (ok > 1 && utf8_invisible(cp))) {
			n += (size_t)snprintf(buf + n, 7, "\\u%04x", (unsigned)cp);
			i += ok;
		} else {
			memcpy(buf + n, u + i, ok);
			n += ok;
			i += ok;
		}
	}
	buf[n] = '\0';
	return buf;
}

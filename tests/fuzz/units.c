/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* units.c — libFuzzer harness for the quantity parsers parse_duration_ms()
 * and parse_size_bytes(), which read policy limits and the CLI's --timeout.
 *
 * The input is one NUL-terminated string (anything after an embedded NUL is
 * ignored, as it would be by the C-string callers). Beyond "no crash" it
 * checks the documented contract: the result is 0, -EINVAL or -ERANGE; a
 * success never yields UINT64_MAX (reserved for "unlimited"); a string
 * with a sign, a blank or no digit at the start is never accepted.
 */
#include "policy.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int r, uint64_t v, const char *s)
{
	if (r != 0 && r != -EINVAL && r != -ERANGE)
		abort();
	if (r == 0 && v == UINT64_MAX)
		abort();
	if (r == 0 && !(s[0] >= '0' && s[0] <= '9'))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	uint64_t v;
	int r;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	v = 0;
	r = parse_duration_ms(s, &v);
	check(r, v, s);
	v = 0;
	r = parse_size_bytes(s, &v);
	check(r, v, s);
	free(s);
	return 0;
}

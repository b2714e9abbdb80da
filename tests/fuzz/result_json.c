/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* result_json.c — libFuzzer harness for the result JSON writer
 * (osb_result_json) over arbitrary command output.
 *
 * A sandboxed command chooses every byte of its stdout and stderr, and the
 * CLI prints the JSON to a terminal or hands it to a program that parses it.
 * The input is split in two: the first half is stdout, the second stderr;
 * the first bytes also pick the status fields, and the error message and
 * hint are cut from the input too. Beyond "no crash" it checks what
 * result.c promises: the document parses as JSON, carries no raw control
 * character (C0, DEL or C1) anywhere, and writing an already-clean stdout
 * again gives the same string (invalid UTF-8 is replaced once, valid text
 * is kept as is).
 */
#include "result.h"

#include <json-c/json.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *dup_bytes(const uint8_t *p, size_t n)
{
	char *s = malloc(n + 1);

	if (!s)
		abort();
	if (n)
		memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

static void no_raw_controls(const char *js)
{
	for (const unsigned char *p = (const unsigned char *)js; *p; p++)
		if (*p < 0x20 || *p == 0x7f || (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
			abort();
}

/* Parse JS, check it, and return a copy of its "stdout" member. */
static char *parsed_stdout(const char *js, size_t *len)
{
	json_object *o = json_tokener_parse(js), *v = NULL;
	char *s;

	if (!o || !json_object_object_get_ex(o, "stdout", &v) ||
	    !json_object_is_type(v, json_type_string))
		abort();
	*len = (size_t)json_object_get_string_len(v);
	s = dup_bytes((const uint8_t *)json_object_get_string(v), *len);
	json_object_put(o);
	return s;
}

static void fill_status(osb_result *r, const uint8_t *data, size_t size)
{
	uint8_t b0 = size > 0 ? data[0] : 0, b1 = size > 1 ? data[1] : 0;

	r->ran = b0 & 1;
	r->timed_out = b0 & 2;
	r->has_error = b0 & 4;
	r->truncated = b0 & 8;
	r->exit_code = (b0 & 16) ? -1 : b1;
	r->signal = (b0 & 32) ? b1 % 65 : 0;
	r->error.code = b1 % 12;
	r->error.sys_errno = (int)b0 - 128;
	r->out_bytes = (uint64_t)size << (b1 % 40);
	r->err_bytes = UINT64_MAX - size;
	r->duration_ms = size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	osb_result *r = result_new(), *again = result_new();
	size_t half = size / 2, len = 0, len2 = 0;
	char *js, *js2, *out, *out2;

	if (!r || !again)
		abort();
	fill_status(r, data, size);
	r->out = dup_bytes(data, half);
	r->out_len = half;
	r->err = dup_bytes(data + half, size - half);
	r->err_len = size - half;
	snprintf(r->error.stage, sizeof(r->error.stage), "%.*s", (int)(half < 31 ? half : 31),
	         (const char *)data);
	memcpy(r->error.message, data, size < sizeof(r->error.message) ? size : sizeof(r->error.message));
	r->error.message[sizeof(r->error.message) - 1] = '\0';
	r->hint = dup_bytes(data + half, size - half < 200 ? size - half : 200);
	memcpy(r->policy_hash, data, size < sizeof(r->policy_hash) ? size : sizeof(r->policy_hash));

	js = osb_result_json(r);
	if (!js)
		abort();
	no_raw_controls(js);
	out = parsed_stdout(js, &len);

	again->out = out;
	again->out_len = len;
	js2 = osb_result_json(again);
	if (!js2)
		abort();
	out2 = parsed_stdout(js2, &len2);
	if (len2 != len || memcmp(out, out2, len) != 0)
		abort();

	free(out2);
	osb_free(js2);
	osb_free(js);
	osb_result_free(again);   /* frees OUT */
	osb_result_free(r);
	return 0;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* jsonscan.h — what json-c lets through in a request (jsonscan.c): a key
 * repeated in one object (json-c keeps the last, silently) and a lone
 * surrogate escape (json-c makes it U+FFFD, silently).
 */
#ifndef OSB_JSONSCAN_H
#define OSB_JSONSCAN_H

#include <stddef.h>

enum jscan {
	JSCAN_OK,
	JSCAN_DUP_KEY,     /* *AT: the repeated key's opening quote */
	JSCAN_SURROGATE,   /* *AT: the backslash of the lone \uXXXX */
	JSCAN_NOMEM,
};

/* Scan TEXT (LEN bytes), which json-c has already accepted as strict JSON.
 * Linear in LEN but for sorting each object's keys (n log n). */
enum jscan json_scan(const char *text, size_t len, size_t *at);

#endif /* OSB_JSONSCAN_H */

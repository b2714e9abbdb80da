/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* diag.h — parse errors as diagnostics (diag.c): position, text and a
 * stable code (E001...), for `osb-isolate check`.
 */
#ifndef OSB_REVIEW_DIAG_H
#define OSB_REVIEW_DIAG_H

#include "osb-isolate.h"

/* A parse error split into its position and text, with a stable code
 * (E001...). FILE and TEXT are malloc'd; LINE and COL are 0 when the error
 * has no position (an unreadable file). */
typedef struct diag {
	char *file;
	unsigned line, col;
	const char *code;
	char *text;
} diag;

/* Split ERR (from osb_policy_load/parse) into a diag; FALLBACK_FILE names
 * the file when the message carries no position. Returns 0 or -ENOMEM. */
int diag_from_error(const osb_error *err, const char *fallback_file, diag *out);
void diag_free(diag *d);
/* The code of a parser message (without its "file:line:col: " prefix). */
const char *diag_code_of(const char *text);
/* Every code check can report, with its short name, into CODES/NAMES (at
 * most MAX). Returns how many. */
size_t diag_codes(const char **codes, const char **names, size_t max);

#endif /* OSB_REVIEW_DIAG_H */

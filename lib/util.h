/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* util.h — small helpers every stage uses (util.c): error filling, the
 * cleanup attributes, string vectors, bounded file reads.
 */
#ifndef OSB_UTIL_H
#define OSB_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>

#include "osb-isolate.h"

static inline void freep(void *p) { free(*(void **)p); }
static inline void closep(int *fd) { if (*fd >= 0) { int e = errno; close(*fd); errno = e; } }
#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)

/* Fill ERR (may be NULL) and return -CODE. Format like printf. STAGE is
 * one of osb_stage's names (stage_of() maps it; tests/unit/check_abi.c
 * checks that every stage the sources pass has a name). */
int osb_err_set(osb_error *err, int code, int sys_errno, const char *stage,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void osb_err_clear(osb_error *err);
/* The osb_stage named NAME: OSB_STAGE_NONE for NULL or "", OSB_STAGE_OTHER
 * for a name the enum does not have. */
osb_stage stage_of(const char *name);

/* Abort on allocation failure is not acceptable in a library: these return
 * NULL and the caller reports OSB_E_NOMEM. */
char *xstrdup_or_null(const char *s);

/* Growable NULL-terminated string vector. */
typedef struct strv {
	char **v;
	size_t n, cap;
} strv;
int strv_push(strv *s, const char *str);          /* copies STR; -ENOMEM */
int strv_pushf(strv *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strv_free(strv *s);

/* Make room for element N of ARR (capacity *CAP, elements of SIZE bytes),
 * doubling; returns the (possibly moved) array, or NULL (ARR untouched). */
void *array_grow(void *arr, size_t *cap, size_t n, size_t size);

/* Read a whole file (bounded by MAX bytes) into a NUL-terminated buffer. */
int read_file_bounded(const char *path, size_t max, char **out, size_t *len);

/* A wait status in words, "exited with status N" or "was killed by signal
 * N (SIGX)", in BUF (48 bytes hold either); returns BUF. */
const char *wait_status_text(int status, char *buf, size_t size);

#endif /* OSB_UTIL_H */

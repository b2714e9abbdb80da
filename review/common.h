/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* common.h — small helpers the reviewer tools share (common.c): messages,
 * path comparison, origins, string lists, accounts, bounded file reads.
 */
#ifndef OSB_REVIEW_COMMON_H
#define OSB_REVIEW_COMMON_H

#include "model.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* The largest policy file the library reads, and so the reviewer. */
#define RV_MAX_POLICY_BYTES ((size_t)1 << 20)

static inline void rv_freep(void *p) { free(*(void **)p); }
#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(rv_freep)

/* asprintf that returns the string (NULL when out of memory). */
char *rv_vfmt(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
char *rv_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Component-wise: is A equal to B or beneath it? Normalized absolute
 * paths. */
bool rv_within(const char *a, const char *b);
/* The same, after reading /var/run as /run (a symlink to it on every
 * current distribution, so binding either name exposes the same sockets). */
bool rv_path_within(const char *a, const char *b);
/* PATH with /var/run read as /run (a pointer into PATH). */
const char *rv_run_alias(const char *path);
/* Glob match of environment names: '*' and '?' only, as the policy's env
 * patterns match. */
bool rv_glob_match(const char *pattern, const char *name);
bool rv_has_glob(const char *s);

/* Does O name a rule of a file (not "default", "api" or nothing)? */
bool rv_origin_is_rule(const rv_origin *o);
/* "file:line", "default", "api", or "" when no single rule decides. */
void rv_origin_str(const rv_origin *o, char *buf, size_t size);

/* Does a passwd (group) entry of this host use UID (GID)? */
bool rv_uid_is_account(uint32_t uid);
bool rv_gid_is_group(uint32_t gid);

/* Read a whole file (at most MAX bytes) into a NUL-terminated buffer:
 * 0 or -errno. */
int rv_read_file(const char *path, size_t max, char **out, size_t *len);

/* Make room for element N of ARR (capacity *CAP, elements of SIZE bytes);
 * NULL when out of memory (ARR untouched). */
void *rv_grow(void *arr, size_t *cap, size_t n, size_t size);

/* A growable NULL-terminated list of strings. */
typedef struct rv_strv {
	char **v;
	size_t n, cap;
} rv_strv;
int rv_strv_push(rv_strv *s, const char *str);
void rv_strv_free(rv_strv *s);

/* What FN writes to a memory stream, as a malloc'd string (NULL on error). */
char *rv_render(int (*fn)(FILE *, const void *), const void *arg);

/* The pretty JSON text of O (released, even on failure), or NULL. */
struct json_object;
char *rv_json_take(struct json_object *o);

#endif /* OSB_REVIEW_COMMON_H */

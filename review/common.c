/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* common.c — small helpers the reviewer tools share (common.h). The
 * reviewer tools link the public library only; these are their own.
 */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>

char *rv_vfmt(const char *fmt, va_list ap)
{
	char *s = NULL;

	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	return s;
}

char *rv_fmt(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = rv_vfmt(fmt, ap);
	va_end(ap);
	return s;
}

bool rv_within(const char *a, const char *b)
{
	size_t n = strlen(b);

	if (strcmp(b, "/") == 0)
		return true;
	return strncmp(a, b, n) == 0 && (a[n] == '\0' || a[n] == '/');
}

const char *rv_run_alias(const char *path)
{
	if (strcmp(path, "/var/run") == 0 || strncmp(path, "/var/run/", 9) == 0)
		return strchr(path + 1, '/');   /* "/var/run/x" is "/run/x" */
	return path;
}

bool rv_path_within(const char *a, const char *b)
{
	return rv_within(rv_run_alias(a), rv_run_alias(b));
}

bool rv_glob_match(const char *pattern, const char *name)
{
	const char *star = NULL, *resume = NULL;

	/* Greedy match with one backtrack point: linear in practice, and no
	 * recursion a hostile pattern could blow up. */
	while (*name) {
		if (*pattern == '*') {
			star = pattern++;
			resume = name;
		} else if (*pattern == '?' || *pattern == *name) {
			pattern++;
			name++;
		} else if (star) {
			pattern = star + 1;
			name = ++resume;
		} else {
			return false;
		}
	}
	while (*pattern == '*')
		pattern++;
	return *pattern == '\0';
}

bool rv_has_glob(const char *s)
{
	return strpbrk(s, "*?") != NULL;
}

bool rv_origin_is_rule(const rv_origin *o)
{
	return o->file && o->line > 0;
}

void rv_origin_str(const rv_origin *o, char *buf, size_t size)
{
	if (rv_origin_is_rule(o))
		snprintf(buf, size, "%s:%u", o->file, o->line);
	else if (o->file)
		snprintf(buf, size, "%s", o->file);   /* "default" or "api" */
	else
		snprintf(buf, size, "%s", "");        /* no single rule decides */
}

bool rv_uid_is_account(uint32_t uid)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	int r = getpwuid_r((uid_t)uid, &pw, buf, sizeof(buf), &res);

	return r != 0 || res != NULL;
}

bool rv_gid_is_group(uint32_t gid)
{
	struct group gr, *res = NULL;
	char buf[16384];
	int r = getgrgid_r((gid_t)gid, &gr, buf, sizeof(buf), &res);

	return r != 0 || res != NULL;
}

int rv_read_file(const char *path, size_t max, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	char *buf;
	size_t n = 0;
	ssize_t r;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > max ||
	    !(buf = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return -EINVAL;
	}
	while (n < (size_t)st.st_size && ((r = read(fd, buf + n, (size_t)st.st_size - n)) > 0 ||
	                                  (r < 0 && errno == EINTR)))
		n += r > 0 ? (size_t)r : 0;
	close(fd);
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

void *rv_grow(void *arr, size_t *cap, size_t n, size_t size)
{
	size_t ncap;

	if (n < *cap)
		return arr;
	ncap = *cap ? *cap * 2 : 8;
	arr = reallocarray(arr, ncap, size);
	if (arr)
		*cap = ncap;
	return arr;
}

int rv_strv_push(rv_strv *s, const char *str)
{
	char **v = rv_grow(s->v, &s->cap, s->n + 1, sizeof(*v)), *copy;

	if (!v)
		return -ENOMEM;
	s->v = v;
	if (!(copy = strdup(str)))
		return -ENOMEM;
	s->v[s->n++] = copy;
	s->v[s->n] = NULL;
	return 0;
}

void rv_strv_free(rv_strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

char *rv_render(int (*fn)(FILE *, const void *), const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int r;

	if (!f)
		return NULL;
	r = fn(f, arg);
	if (ferror(f))
		r = -ENOMEM;
	if (fclose(f) != 0)
		r = -ENOMEM;
	if (r < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The pretty JSON text of O (which is released), or NULL. */
char *rv_json_take(json_object *o)
{
	char *s = NULL;

	if (o)
		s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
		                                             JSON_C_TO_STRING_SPACED |
		                                             JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return s;
}

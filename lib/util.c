/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* util.c — small helpers every stage uses: error filling, string vectors,
 * bounded file reads. Nothing here touches process-wide state.
 */
#include "policy.h"

#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>

const char *osb_version(void)
{
	return OSB_ISOLATE_VERSION;
}

void osb_free(void *p)
{
	free(p);
}

/* osb_stage's names, in its order: the library passes stages to
 * osb_err_set() as these strings (and the init reports them so), and
 * osb_err_set() maps them once, so that no code branches on the text. */
static const char *const stage_names[] = {
	"", "other", "usage", "policy", "config", "workspace", "paths", "probe", "bwrap",
	"plan", "identity", "env", "seccomp", "spawn", "supervise", "init", "init:args",
	"init:fds", "init:mounts", "init:proc", "init:identity", "init:caps",
	"init:landlock", "init:rlimits", "init:seccomp", "init:env", "init:chdir",
	"init:fork", "init:session", "exec", "cwd", "fork", "request", "session", "output",
	"result", "explain", "cgroup", "init:overlay", "init:net", "netproxy",
};
_Static_assert(sizeof(stage_names) / sizeof(stage_names[0]) == OSB_STAGE_NETPROXY + 1,
               "one name per osb_stage");

const char *osb_stage_name(osb_stage stage)
{
	if ((int)stage < 0 || (size_t)stage >= sizeof(stage_names) / sizeof(stage_names[0]))
		return NULL;
	return stage_names[stage];
}

osb_stage stage_of(const char *name)
{
	if (!name || !*name)
		return OSB_STAGE_NONE;
	for (size_t i = OSB_STAGE_USAGE; i < sizeof(stage_names) / sizeof(stage_names[0]); i++)
		if (strcmp(name, stage_names[i]) == 0)
			return (osb_stage)i;
	return OSB_STAGE_OTHER;
}

void osb_err_clear(osb_error *err)
{
	if (err)
		memset(err, 0, sizeof(*err));
}

int osb_err_set(osb_error *err, int code, int sys_errno, const char *stage,
                const char *fmt, ...)
{
	if (err) {
		va_list ap;

		err->code = code;
		err->sys_errno = sys_errno;
		memset(err->reserved, 0, sizeof(err->reserved));
		snprintf(err->stage, sizeof(err->stage), "%s", stage ? stage : "");
		err->stage_id = (int)stage_of(err->stage);
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
		va_end(ap);
	}
	return -code;
}

char *xstrdup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static int strv_grow(strv *s)
{
	if (s->n + 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		char **v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	return 0;
}

int strv_push(strv *s, const char *str)
{
	char *copy;

	if (strv_grow(s) < 0)
		return -ENOMEM;
	copy = strdup(str);
	if (!copy)
		return -ENOMEM;
	s->v[s->n++] = copy;
	s->v[s->n] = NULL;
	return 0;
}

int strv_pushf(strv *s, const char *fmt, ...)
{
	va_list ap;
	char *str = NULL;
	int r;

	if (strv_grow(s) < 0)
		return -ENOMEM;
	va_start(ap, fmt);
	r = vasprintf(&str, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	s->v[s->n++] = str;
	s->v[s->n] = NULL;
	return 0;
}

void strv_free(strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

int read_file_bounded(const char *path, size_t max, char **out, size_t *len)
{
	_cleanup_close_ int fd = -1;
	char *buf = NULL;
	size_t n = 0, cap = 0;
	struct stat st;

	/* O_NONBLOCK: a FIFO named as a policy file must not hang us. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	for (;;) {
		ssize_t r;

		if (n + 4096 + 1 > cap) {
			size_t ncap = cap ? cap * 2 : 8192;
			char *nb;

			if (ncap > max + 4096 + 1)
				ncap = max + 4096 + 1;
			nb = realloc(buf, ncap);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			cap = ncap;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			free(buf);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			free(buf);
			return -EFBIG;
		}
	}
	if (!buf) {
		buf = malloc(1);
		if (!buf)
			return -ENOMEM;
	}
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
	return 0;
}

void *array_grow(void *arr, size_t *cap, size_t n, size_t size)
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

const char *wait_status_text(int status, char *buf, size_t size)
{
	if (WIFSIGNALED(status)) {
		const char *abbrev = sigabbrev_np(WTERMSIG(status));

		snprintf(buf, size, "was killed by signal %d (SIG%s)", WTERMSIG(status),
		         abbrev ? abbrev : "?");
	} else {
		snprintf(buf, size, "exited with status %d", WEXITSTATUS(status));
	}
	return buf;
}

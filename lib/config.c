/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* config.c — the host configuration (osb-isolate(1), "CONFIGURATION").
 *
 * What belongs to the host rather than to a policy: the directories
 * beneath which workspaces may lie (workspace-root), and the cgroups beneath
 * which sandboxes get their own for "limit memory|pids|cpu" (cgroup-parent:
 * one a root operator made and gave to the users who run sandboxes, where
 * the host has no delegation). A reviewer approves a
 * policy once for every host; the operator of a host says where its
 * workspaces live. The library never reads the file on its own: a caller
 * asks for it (osb_config_load, which the CLI calls) or builds the same
 * settings with calls (osb_config_add_workspace_root), then hands them to a
 * policy (osb_policy_set_config). The file is opened through the same walk as
 * a workspace (no symlink, no directory someone else could change) and must
 * belong to root or the caller and be writable by nobody else; its grammar
 * is as strict as a policy's, with file:line:col diagnostics.
 */
#include "policy.h"
#include "hostpath.h"

#include <stdarg.h>

#define CONFIG_MAX_BYTES ((size_t)64 << 10)
#define CONFIG_MAX_ROOTS 256
#define CG_PARENTS_MAX 8     /* one per hierarchy: v2, and v1 memory, pids, cpu... */

struct osb_config {
	char *from;          /* the file read, or NULL (built by calls: "api") */
	strv roots;
	strv cg_parents;     /* cgroup-parent: one directory per cgroup hierarchy */
	char *net_hosts;     /* net-hosts: the filtering proxy's hosts file, or NULL */
};

osb_config *osb_config_new(void)
{
	return calloc(1, sizeof(osb_config));
}

void osb_config_free(osb_config *c)
{
	if (!c)
		return;
	free(c->from);
	strv_free(&c->roots);
	strv_free(&c->cg_parents);
	free(c->net_hosts);
	free(c);
}

size_t osb_config_workspace_root_count(const osb_config *c)
{
	return c ? c->roots.n : 0;
}

const char *osb_config_workspace_root(const osb_config *c, size_t i)
{
	return c && i < c->roots.n ? c->roots.v[i] : NULL;
}

const char *osb_config_file(const osb_config *c)
{
	return c ? c->from : NULL;
}

/* Why DIR cannot be a workspace root, or NULL. */
static const char *root_problem(const char *dir)
{
	const char *why = policy_path_problem(dir, false);

	if (why)
		return why;
	why = policy_text_problem(dir, true);
	if (why)
		return why;
	if (strcmp(dir, "/") == 0)
		return "\"/\" would allow any directory (leave workspace-root out for that: it is the "
		       "default)";
	return NULL;
}

static int add_root(osb_config *c, const char *dir)
{
	for (size_t i = 0; i < c->roots.n; i++)
		if (strcmp(c->roots.v[i], dir) == 0)
			return 1;
	if (c->roots.n >= CONFIG_MAX_ROOTS)
		return -E2BIG;
	return strv_push(&c->roots, dir);
}

int osb_config_add_workspace_root(osb_config *c, const char *dir, osb_error *err)
{
	const char *why;
	int r;

	if (!c || !dir)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "config",
		                   "add_workspace_root: expected a configuration and a directory");
	why = root_problem(dir);
	if (why)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "config", "workspace root: %s: \"%s\" "
		                   "(pass a canonical absolute path)", why, dir);
	r = add_root(c, dir);
	if (r == -ENOMEM)
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "config", "out of memory");
	if (r == -E2BIG)
		return osb_err_set(err, OSB_E_USAGE, E2BIG, "config", "more than %d workspace roots",
		                   CONFIG_MAX_ROOTS);
	return 0;
}

/* Why DIR cannot be a cgroup parent (the cgroup module checks, when it is
 * used, that it is a cgroup directory), or NULL. */
static const char *cg_parent_problem(const char *dir)
{
	const char *why = policy_path_problem(dir, false);

	if (!why)
		why = policy_text_problem(dir, true);
	if (!why && strcmp(dir, "/") == 0)
		why = "\"/\" is no cgroup directory";
	return why;
}

/* 0, 1 when DIR is there already, or -ENOMEM / -E2BIG. */
static int add_cg_parent(osb_config *c, const char *dir)
{
	for (size_t i = 0; i < c->cg_parents.n; i++)
		if (strcmp(c->cg_parents.v[i], dir) == 0)
			return 1;
	if (c->cg_parents.n >= CG_PARENTS_MAX)
		return -E2BIG;
	return strv_push(&c->cg_parents, dir);
}

int osb_config_add_cgroup_parent(osb_config *c, const char *dir, osb_error *err)
{
	const char *why;
	int r;

	if (!c || !dir)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "config",
		                   "add_cgroup_parent: expected a configuration and a directory");
	if ((why = cg_parent_problem(dir)))
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "config", "cgroup parent: %s: \"%s\" "
		                   "(pass a canonical absolute path)", why, dir);
	r = add_cg_parent(c, dir);
	if (r == -ENOMEM)
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "config", "out of memory");
	if (r == -E2BIG)
		return osb_err_set(err, OSB_E_USAGE, E2BIG, "config", "more than %d cgroup parents",
		                   CG_PARENTS_MAX);
	return 0;
}

size_t osb_config_cgroup_parent_count(const osb_config *c)
{
	return c ? c->cg_parents.n : 0;
}

const char *osb_config_cgroup_parent(const osb_config *c, size_t i)
{
	return c && i < c->cg_parents.n ? c->cg_parents.v[i] : NULL;
}

/* ---- the file ------------------------------------------------------------------- */

typedef struct cparse {
	osb_config *c;
	const char *file;
	unsigned line;
	bool version;
	osb_error *err;
} cparse;

__attribute__((format(printf, 3, 4)))
static int cerr(cparse *cp, unsigned col, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return osb_err_set(cp->err, OSB_E_USAGE, EINVAL, "config", "%s:%u:%u: %s", cp->file, cp->line,
	                   col, msg);
}

/* Split LINE at blanks into at most 3 words (a third is always an error). */
static size_t split(char *line, char *words[3], unsigned cols[3])
{
	size_t n = 0;
	char *s = line;

	while (*s && n < 3) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		words[n] = s;
		cols[n++] = (unsigned)(s - line) + 1;
		s += strcspn(s, " \t");
		if (*s)
			*s++ = '\0';
	}
	return n;
}

/* cgroup-parent DIR */
static int d_cg_parent(cparse *cp, char **w, const unsigned *col, size_t n)
{
	const char *why;
	int r;

	if (n != 2)
		return n < 2 ? cerr(cp, col[0], "missing argument: usage is \"cgroup-parent DIR\"")
		             : cerr(cp, col[2], "unexpected argument \"%s\" (usage is \"cgroup-parent "
		                    "DIR\")", w[2]);
	if ((why = cg_parent_problem(w[1])))
		return cerr(cp, col[1], "%s: \"%s\"", why, w[1]);
	r = add_cg_parent(cp->c, w[1]);
	if (r == 1)
		return cerr(cp, col[0], "duplicate \"cgroup-parent %s\"", w[1]);
	if (r == -E2BIG)
		return cerr(cp, col[0], "more than %d cgroup parents", CG_PARENTS_MAX);
	return r < 0 ? osb_err_set(cp->err, OSB_E_NOMEM, ENOMEM, "config", "out of memory") : 0;
}

/* net-hosts FILE: names the filtering proxy of "network allow" resolves
 * from this /etc/hosts-style file before asking the resolver (a host's own
 * names, and tests' stand-in hosts); a policy cannot name one. */
static int d_net_hosts(cparse *cp, char **w, const unsigned *col, size_t n)
{
	const char *why;

	if (n != 2)
		return n < 2 ? cerr(cp, col[0], "missing argument: usage is \"net-hosts FILE\"")
		             : cerr(cp, col[2], "unexpected argument \"%s\" (usage is \"net-hosts "
		                    "FILE\")", w[2]);
	if ((why = policy_path_problem(w[1], false)))
		return cerr(cp, col[1], "%s: \"%s\"", why, w[1]);
	if (cp->c->net_hosts)
		return cerr(cp, col[0], "duplicate \"net-hosts\"");
	if (!(cp->c->net_hosts = strdup(w[1])))
		return osb_err_set(cp->err, OSB_E_NOMEM, ENOMEM, "config", "out of memory");
	return 0;
}

static int directive(cparse *cp, char **w, const unsigned *col, size_t n)
{
	static const char *const known[] = { "workspace-root", "cgroup-parent", "net-hosts" };
	const char *near, *why;
	int r;

	if (strcmp(w[0], "cgroup-parent") == 0)
		return d_cg_parent(cp, w, col, n);
	if (strcmp(w[0], "net-hosts") == 0)
		return d_net_hosts(cp, w, col, n);
	if (strcmp(w[0], "workspace-root") != 0) {
		near = policy_suggest(w[0], known, 3);
		if (near)
			return cerr(cp, col[0], "unknown directive \"%s\" (did you mean \"%s\"?)", w[0], near);
		return cerr(cp, col[0], "unknown directive \"%s\" (expected workspace-root, "
		            "cgroup-parent or net-hosts)", w[0]);
	}
	if (n < 2)
		return cerr(cp, col[0], "missing argument: usage is \"workspace-root DIR\"");
	if (n > 2)
		return cerr(cp, col[2], "unexpected argument \"%s\" (usage is \"workspace-root DIR\")",
		            w[2]);
	if ((why = root_problem(w[1])))
		return cerr(cp, col[1], "%s: \"%s\"", why, w[1]);
	r = add_root(cp->c, w[1]);
	if (r == 1)
		return cerr(cp, col[0], "duplicate \"workspace-root %s\"", w[1]);
	if (r == -E2BIG)
		return cerr(cp, col[0], "more than %d workspace roots", CONFIG_MAX_ROOTS);
	return r < 0 ? osb_err_set(cp->err, OSB_E_NOMEM, ENOMEM, "config", "out of memory") : 0;
}

static int parse_line(cparse *cp, char *line)
{
	char *w[3];
	unsigned col[3];
	const char *why = policy_text_problem(line, false);
	size_t n;

	if (why)
		return cerr(cp, 1, "the line %s", why);
	n = split(line, w, col);
	if (n == 0 || w[0][0] == '#')
		return 0;
	if (!cp->version) {
		if (n != 2 || strcmp(w[0], "osb-config") != 0 || strcmp(w[1], "1") != 0)
			return cerr(cp, col[0], "the first line must be \"osb-config 1\"");
		cp->version = true;
		return 0;
	}
	if (strcmp(w[0], "osb-config") == 0)
		return cerr(cp, col[0], "duplicate \"osb-config\"");
	return directive(cp, w, col, n);
}

static int parse_text(cparse *cp, char *text, size_t len)
{
	char *line = text;
	int r;

	if (strlen(text) != len)
		return osb_err_set(cp->err, OSB_E_USAGE, EINVAL, "config", "%s: contains a NUL byte",
		                   cp->file);
	while (line < text + len) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		cp->line++;
		if ((r = parse_line(cp, line)) < 0)
			return r;
		if (!nl)
			break;
		line = nl + 1;
	}
	if (!cp->version)
		return osb_err_set(cp->err, OSB_E_USAGE, EINVAL, "config", "%s:1:1: the first line must "
		                   "be \"osb-config 1\" (the file is empty)", cp->file);
	return 0;
}

static int read_all(int fd, const char *path, char **out, size_t *len, osb_error *err)
{
	char *buf = malloc(CONFIG_MAX_BYTES + 1);
	size_t used = 0;

	if (!buf)
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "config", "out of memory");
	for (;;) {
		ssize_t n = read(fd, buf + used, CONFIG_MAX_BYTES + 1 - used);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			free(buf);
			return osb_err_set(err, OSB_E_IO, e, "config", "%s: cannot read: %s", path,
			                   strerror(e));
		}
		if (n == 0)
			break;
		used += (size_t)n;
		if (used > CONFIG_MAX_BYTES) {
			free(buf);
			return osb_err_set(err, OSB_E_USAGE, EFBIG, "config", "%s: larger than 64 KiB",
			                   path);
		}
	}
	buf[used] = '\0';
	*out = buf;
	*len = used;
	return 0;
}

osb_config *osb_config_load(const char *path, osb_error *err)
{
	const char *file = path ? path : OSB_ISOLATE_CONFIG_PATH;
	_cleanup_free_ char *text = NULL;
	osb_config *c = osb_config_new();
	cparse cp = { .c = c, .file = file, .err = err };
	size_t len = 0;
	int fd, r;

	if (!c || !(c->from = strdup(file))) {
		osb_config_free(c);
		osb_err_set(err, OSB_E_NOMEM, ENOMEM, "config", "out of memory");
		return NULL;
	}
	/* The default file is optional: nothing configured. Asked before the
	 * walk, which would refuse a "/" it cannot trust (in a user namespace,
	 * root's files belong to nobody) before finding nothing there. */
	if (!path && access(file, F_OK) < 0 && errno == ENOENT) {
		free(c->from);
		c->from = NULL;
		return c;
	}
	fd = path_open_config(file, err);
	r = fd < 0 ? fd : read_all(fd, file, &text, &len, err);
	if (fd >= 0)
		close(fd);
	if (r == 0)
		r = parse_text(&cp, text, len);
	if (r < 0) {
		osb_config_free(c);
		return NULL;
	}
	return c;
}

/* ---- handing it to a policy -------------------------------------------------------- */

/* A NULL-terminated copy of SV (NULL when SV is empty), or -ENOMEM. */
static int copy_strv(const strv *sv, char ***out)
{
	char **v;

	*out = NULL;
	if (!sv || !sv->n)
		return 0;
	if (!(v = calloc(sv->n + 1, sizeof(*v))))
		return -ENOMEM;
	for (size_t i = 0; i < sv->n; i++)
		if (!(v[i] = strdup(sv->v[i]))) {
			policy_free_strv(v);
			return -ENOMEM;
		}
	*out = v;
	return 0;
}

int osb_policy_set_config(osb_policy *p, const osb_config *c, osb_error *err)
{
	char **v = NULL, *from = NULL, **cgp = NULL;
	size_t n = c ? c->roots.n : 0;

	if (!p)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "config", "set_config: policy is NULL");
	if (copy_strv(c ? &c->cg_parents : NULL, &cgp) < 0)
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "config", "out of memory");
	if (n && !(v = calloc(n, sizeof(*v))))
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "config", "out of memory");
	for (size_t i = 0; i < n; i++) {
		if (!(v[i] = strdup(c->roots.v[i]))) {
			while (i > 0)
				free(v[--i]);
			free(v);
			policy_free_strv(cgp);
			return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "config", "out of memory");
		}
	}
	if (n && c->from && !(from = strdup(c->from))) {
		for (size_t i = 0; i < n; i++)
			free(v[i]);
		free(v);
		policy_free_strv(cgp);
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "config", "out of memory");
	}
	for (size_t i = 0; i < p->n_ws_roots; i++)
		free(p->ws_roots[i]);
	free(p->ws_roots);
	free(p->ws_roots_from);
	p->ws_roots = v;
	p->n_ws_roots = n;
	p->ws_roots_from = from;
	policy_free_strv(p->cg_parents);
	p->cg_parents = cgp;
	free(p->net_hosts);
	p->net_hosts = c && c->net_hosts ? strdup(c->net_hosts) : NULL;
	if (c && c->net_hosts && !p->net_hosts)
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "config", "out of memory");
	return 0;
}

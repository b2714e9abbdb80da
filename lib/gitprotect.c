/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* gitprotect.c — worktree paths a repository's configuration makes the
 * caller's git run or read (gitprotect.h).
 *
 * The configuration files are read as git reads them: the repository's
 * .git/config (and .git/config.worktree with extensions.worktreeConfig),
 * the caller's global one ($GIT_CONFIG_GLOBAL, else $XDG_CONFIG_HOME/git/config
 * and ~/.gitconfig), the system one ($GIT_CONFIG_SYSTEM, else
 * /etc/gitconfig), and every file they include. Every includeIf counts as
 * taken. A file inside a writable bind is resolved beneath that bind's fd
 * without following a symlink; one outside (the caller's own) is opened by
 * name, as git opens it. A relative core.hooksPath, and a relative path in
 * a command git runs (core.fsmonitor, aliases, filters, ...), resolves in
 * the worktree's top; a relative include beside the including file.
 */
#include "gitprotect.h"
#include "gitconf.h"
#include "gitindex.h"
#include "paths.h"
#include "plan.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#define GIT_MAX_FILE_BYTES ((size_t)1 << 20)
#define GIT_MAX_DEPTH 10      /* git's own include limit */
#define GIT_MAX_FILES 64
#define GIT_MAX_BINDS 64      /* a sandbox's bind mounts, lib/supervise.c */
#define GIT_MAX_REPOS 256     /* a repository and its submodules, nested */
#define GIT_MAX_INDEX_BYTES ((size_t)1 << 30)

typedef struct gctx {
	plan *pl;
	char *ws_host;            /* the workspace's host path (the kernel's name) */
	const plan_bind *ws;
	osb_error *err;
	const char *file;         /* the file being parsed, its host path */
	const char *wtop;         /* the work tree's top of the repository read */
	unsigned depth, n_files, n_repos;
	bool worktree_config;
	bool sha256;              /* extensions.objectFormat = sha256 */
	/* Submodules found in an index, read after it (a queue, not a
	 * recursion: each with the depth of the repository that named it). */
	struct pending_repo { char *wtop; unsigned depth; } *pend;
	size_t n_pend;
} gctx;

/* Queue the submodule whose work tree's top is WTOP (taken over). */
static int pend_push(gctx *g, char *wtop)
{
	struct pending_repo *v = realloc(g->pend, (g->n_pend + 1) * sizeof(*v));

	if (!v) {
		free(wtop);
		return -ENOMEM;
	}
	g->pend = v;
	v[g->n_pend++] = (struct pending_repo){ wtop, g->depth };
	return 0;
}

static int oom(osb_error *err)
{
	return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "paths", "out of memory");
}

/* The host path of bind B: the workspace's canonical path, else its
 * destination (write grants are bound where they are). */
static const char *bind_host(const gctx *g, const plan_bind *b)
{
	return b == g->ws ? g->ws_host : b->dest;
}

/* Is the host path H strictly beneath ROOT, or equal to it? */
static bool host_within(const char *h, const char *root, bool *equal)
{
	size_t n = strlen(root);

	*equal = strcmp(h, root) == 0;
	return *equal || (strncmp(h, root, n) == 0 && (h[n] == '/' || (n == 1 && root[0] == '/')));
}

/* The writable bind (not the hidden layer) whose host path H lies in (the
 * deepest), with *REL the rest ("" when H is its root). */
static const plan_bind *writable_of(const gctx *g, const char *h, const char **rel)
{
	const plan_bind *best = NULL;
	size_t blen = 0;

	for (size_t i = 0; i < g->pl->n_binds; i++) {
		const plan_bind *b = &g->pl->binds[i];
		const char *bh = bind_host(g, b);
		bool eq;

		if (!b->writable || b->layer || !host_within(h, bh, &eq) || strlen(bh) < blen)
			continue;
		best = b;
		blen = strlen(bh);
	}
	if (best) {
		*rel = h + blen;
		while (**rel == '/')
			(*rel)++;
	}
	return best;
}

static int refuse(gctx *g, unsigned line, const char *key, int code, int e, const char *what,
                  const char *val)
{
	return osb_err_set(g->err, code, e, "paths", "%s:%u: %s = %.96s: %s; change the repository's "
	                   "configuration, protect the path with a read-only rule of its own, or run "
	                   "without a writable workspace", g->file, line, key, val, what);
}

/* A directory of a writable bind that ".." leaves must be a real directory,
 * found without a symlink: else the kernel's ".." goes elsewhere than the
 * lexical one. */
static int check_dotdot(gctx *g, const char *prefix, unsigned line, const char *key,
                        const char *val)
{
	const char *rel;
	const plan_bind *b = writable_of(g, prefix, &rel);
	osb_error e2 = { 0 };
	int fd, r;
	struct stat st;

	if (!b || !*rel)
		return 0;
	r = path_resolve_beneath(b->fd, bind_host(g, b), rel, &fd, &e2);
	if (r < 0)
		return refuse(g, line, key, OSB_E_PATH, e2.sys_errno, "a \"..\" leaves a directory of "
		              "a writable area that is missing or reached through a symlink", val);
	r = fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) ? 0 :
	    refuse(g, line, key, OSB_E_PATH, ENOTDIR, "a \"..\" leaves what is not a directory", val);
	close(fd);
	return r;
}

/* A path outside every writable bind may still reach one: through a
 * symlink or a bind mount of the caller's on the way (the kernel's name of
 * a prefix lies in the bind, or the prefix is a bind's root mounted
 * elsewhere), or through /proc/self (git's own working
 * directory is the work tree's top, whatever the plan's is). Git would
 * follow it there, where nothing protects it: refused, the area's own
 * path is the way to name it. */
/* Is ST a writable bind's root, as a bind mount of the caller's shows it
 * elsewhere (its kernel name is then that mount's)? */
static bool is_bind_root(const gctx *g, const struct stat *st)
{
	for (size_t i = 0; i < g->pl->n_binds; i++) {
		const plan_bind *b = &g->pl->binds[i];
		struct stat bs;

		if (b->writable && !b->layer && fstat(b->fd, &bs) == 0 && bs.st_dev == st->st_dev &&
		    bs.st_ino == st->st_ino)
			return true;
	}
	return false;
}

static int check_spelling(gctx *g, const char *h, unsigned line, const char *key,
                          const char *val)
{
	static const char what[] = "it names a writable area through another spelling (a "
	                           "symlink, a bind mount or /proc/self on the way): spell it "
	                           "by the area's own path";
	const char *rel, *c;
	_cleanup_free_ char *p = NULL;

	if (writable_of(g, h, &rel))
		return 0;
	if (!strncmp(h, "/proc/", 6)) {
		size_t l = strcspn(h + 6, "/");

		c = h + 6;
		if ((l == 4 && !strncmp(c, "self", 4)) || (l == 11 && !strncmp(c, "thread-self", 11)) ||
		    (l > 0 && strspn(c, "0123456789") == l))
			return refuse(g, line, key, OSB_E_POLICY, EINVAL, what, val);
	}
	if (!strncmp(h, "/dev/fd/", 8))
		return refuse(g, line, key, OSB_E_POLICY, EINVAL, what, val);
	if (!(p = strdup(h)))
		return oom(g->err);
	for (char *sl = p + 1; *sl;) {
		char *next = strchr(sl, '/');
		_cleanup_free_ char *kn = NULL;
		struct stat st;
		int fd;

		if (next)
			*next = '\0';
		fd = open(p, O_PATH | O_CLOEXEC);
		if (fd < 0)
			return 0;   /* missing (or not searchable): so is the rest */
		if (fstat(fd, &st) == 0 && ((path_fd_name(fd, &st, &kn) == 0 && kn &&
		                             writable_of(g, kn, &rel)) || is_bind_root(g, &st))) {
			close(fd);
			return refuse(g, line, key, OSB_E_POLICY, EINVAL, what, val);
		}
		close(fd);
		if (!next)
			break;
		*next = '/';
		sl = next + 1;
	}
	return 0;
}

/* The absolute, lexically normal host path VAL names (relative: to BASE),
 * in *OUT; *OUT NULL when it names nothing here (%(prefix)/, a home that
 * cannot be found: git resolves neither to a worktree). */
static int resolve(gctx *g, const char *base, const char *val, unsigned line, const char *key,
                   char **out)
{
	_cleanup_free_ char *joined = NULL;
	char *buf, *save = NULL;
	size_t n = 0;
	int r = 0;

	*out = NULL;
	if (!*val || strncmp(val, "%(prefix)/", 10) == 0)
		return 0;
	if (val[0] == '~') {
		const char *rest = strchr(val, '/'), *home = NULL;
		struct passwd pw, *res = NULL;
		char pwbuf[4096];

		rest = rest ? rest : val + strlen(val);
		if (rest == val + 1) {
			home = secure_getenv("HOME");
		} else {
			_cleanup_free_ char *user = strndup(val + 1, (size_t)(rest - val - 1));

			if (!user)
				return oom(g->err);
			if (getpwnam_r(user, &pw, pwbuf, sizeof(pwbuf), &res) == 0 && res)
				home = res->pw_dir;
		}
		if (!home || home[0] != '/')
			return 0;
		r = asprintf(&joined, "%s/%s", home, rest);
	} else if (val[0] == '/') {
		joined = strdup(val);
	} else {
		r = asprintf(&joined, "%s/%s", base, val);
	}
	if (r < 0 || !joined)
		return oom(g->err);
	if (!(buf = malloc(strlen(joined) + 2)))
		return oom(g->err);
	buf[0] = '\0';
	for (char *c = strtok_r(joined, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, "."))
			continue;
		if (!strcmp(c, "..")) {
			if (n > 0) {
				buf[n] = '\0';
				if ((r = check_dotdot(g, buf, line, key, val)) < 0) {
					free(buf);
					return r;
				}
				while (n > 0 && buf[n - 1] != '/')
					n--;
				if (n > 0)
					n--;   /* the slash */
			}
			continue;
		}
		buf[n++] = '/';
		memcpy(buf + n, c, strlen(c));
		n += strlen(c);
	}
	if (n == 0)
		buf[n++] = '/';
	buf[n] = '\0';
	if ((r = check_spelling(g, buf, line, key, val)) < 0) {
		free(buf);
		return r;
	}
	*out = buf;
	return 0;
}

/* Protect the host path H (inside a writable bind, else nothing) as a
 * read-only rule would. */
static int protect(gctx *g, const char *h, unsigned line, const char *key, const char *val)
{
	git_rules *gr = &g->pl->git;
	const char *rel;
	const plan_bind *b = writable_of(g, h, &rel);
	_cleanup_free_ char *dest = NULL;
	char *s = NULL, *why = NULL;
	pol_str *v;

	if (!b)
		return 0;
	if (!*rel)
		return refuse(g, line, key, OSB_E_POLICY, EINVAL, b == g->ws ? "it names the "
		              "workspace itself, which the sandbox writes" : "it names a writable "
		              "area itself", val);
	if (asprintf(&dest, "%s/%s", b == g->ws ? g->pl->ws_dest : b->dest, rel) < 0)
		return oom(g->err);
	/* Already protected: inside a read-only rule of the policy or one
	 * made here. */
	for (size_t i = 0; i < g->pl->n_binds; i++)
		if (g->pl->binds[i].reprotect && dest_within(dest, g->pl->binds[i].dest))
			return 0;
	for (size_t i = 0; i < gr->n; i++) {
		const char *d = gr->v[i].s;
		_cleanup_free_ char *dd = NULL;

		if (strncmp(d, "workspace:", 10) == 0 &&
		    asprintf(&dd, "%s/%s", g->pl->ws_dest, d + 10) < 0)
			return oom(g->err);
		if (dest_within(dest, dd ? dd : d))
			return 0;
	}
	/* Each becomes a bind mount, and a sandbox has at most 64
	 * (plan_fd_map, lib/supervise.c): refused here, naming the cause. */
	if (g->pl->n_binds + gr->n + 1 > GIT_MAX_BINDS)
		return refuse(g, line, key, OSB_E_POLICY, E2BIG, "more paths to protect than a "
		              "sandbox's 64 bind mounts allow (the policy's, the workspace's and "
		              "these together)", val);
	if (b == g->ws ? asprintf(&s, "workspace:%s", rel) < 0 : !(s = strdup(h)))
		return oom(g->err);
	if (asprintf(&why, "%s in %s", key, g->file) < 0 ||
	    !(v = realloc(gr->v, (gr->n + 1) * sizeof(*v)))) {
		free(s);
		free(why);
		return oom(g->err);
	}
	gr->v = v;
	v[gr->n++] = (pol_str){ s, { why, line, g->depth } };
	return 0;
}

/* Keys whose value is a command git runs (git-config(1)): a path in it
 * with a "/" is taken as a program or script the command runs. */
static bool is_command(const char *sec, const char *sub, const char *key)
{
	static const char *const plain[] = {
		"core.fsmonitor", "core.editor", "core.pager", "core.sshcommand", "core.askpass",
		"core.gitproxy", "sequence.editor", "diff.external", "credential.helper",
		"gpg.program", "uploadpack.packobjectshook", "sendemail.smtpserver", "web.browser",
		"interactive.difffilter", "diff.guitool", "merge.tool", "core.alternaterefscommand",
		"sendemail.tocmd", "sendemail.cccmd", "sendemail.headercmd",
	};
	static const char *const sub_keys[] = {
		"filter.clean", "filter.smudge", "filter.process", "diff.command", "diff.textconv",
		"merge.driver", "credential.helper", "gpg.program", "browser.cmd", "browser.path",
		"man.cmd", "man.path", "difftool.cmd", "difftool.path", "mergetool.cmd",
		"mergetool.path", "remote.uploadpack", "remote.receivepack", "trailer.command",
		"trailer.cmd", "submodule.update", "gpg.defaultkeycommand", "sendemail.tocmd",
		"sendemail.cccmd", "sendemail.headercmd", "sendemail.smtpserver",
	};
	char name[600];

	if (!strcmp(sec, "alias") || !strcmp(sec, "pager"))
		return true;
	snprintf(name, sizeof(name), "%s.%s", sec, key);
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		if (!sub && !strcmp(name, plain[i]))
			return true;
	for (size_t i = 0; i < sizeof(sub_keys) / sizeof(sub_keys[0]); i++)
		if (sub && !strcmp(name, sub_keys[i]))
			return true;
	return false;
}

/* Does the host path H exist (not followed when a symlink)? */
static bool host_exists(const gctx *g, const char *h)
{
	const char *rel;
	const plan_bind *b = writable_of(g, h, &rel);

	return b && *rel && faccessat(b->fd, rel, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Each word of the command VAL that is a path ("/" in it; the part after
 * "=" of an option), resolved in the worktree's top, and each later word
 * without one that names what exists there at launch ("sh fsmon.sh": git
 * runs the command in the work tree's top, and the shell reads fsmon.sh
 * from there). Words with "$" or "`" are the shell's to expand: they name
 * nothing this can know. */
static int protect_command(gctx *g, const char *val, unsigned line, const char *key)
{
	_cleanup_free_ char *copy = strdup(val);
	char *save = NULL;
	bool first = true;

	if (!copy)
		return oom(g->err);
	for (char *w = strtok_r(copy, " \t\n;|&()<>!", &save); w; w = strtok_r(NULL, " \t\n;|&()<>!", &save)) {
		_cleanup_free_ char *h = NULL;
		char *eq = w[0] == '-' ? strchr(w, '=') : NULL;
		size_t n;
		int r;

		if (eq)
			w = eq + 1;
		while (*w == '\'' || *w == '"')
			w++;
		n = strlen(w);
		while (n > 0 && (w[n - 1] == '\'' || w[n - 1] == '"'))
			w[--n] = '\0';
		if (!*w || strpbrk(w, "$`'\""))
			continue;
		if (!strchr(w, '/')) {   /* a program found in PATH, or an argument */
			bool later = !first;

			first = false;
			if (!later || *w == '-' || !strcmp(w, ".") || !strcmp(w, ".."))
				continue;
			if ((r = resolve(g, g->wtop, w, line, key, &h)) < 0)
				return r;
			if (!h || !host_exists(g, h))
				continue;
		} else {
			first = false;
			if ((r = resolve(g, g->wtop, w, line, key, &h)) < 0)
				return r;
		}
		if (h && (r = protect(g, h, line, key, val)) < 0)
			return r;
	}
	return 0;
}

static int read_config(gctx *g, const char *h, unsigned line, const char *key);

static int on_entry(void *ctx, const char *sec, const char *sub, const char *key,
                    const char *val, unsigned line)
{
	gctx *g = ctx;
	char name[600];
	_cleanup_free_ char *h = NULL;
	int r;

	snprintf(name, sizeof(name), "%s%s%s.%s", sec, sub ? "." : "", sub ? sub : "", key);
	if (!strcmp(sec, "extensions") && !sub && !strcmp(key, "worktreeconfig")) {
		g->worktree_config = !val || (*val && strcmp(val, "0") != 0 &&
		                              strcasecmp(val, "false") != 0 &&
		                              strcasecmp(val, "no") != 0 && strcasecmp(val, "off") != 0);
		return 0;
	}
	if (!strcmp(sec, "extensions") && !sub && !strcmp(key, "objectformat")) {
		g->sha256 = val && !strcasecmp(val, "sha256");
		return 0;
	}
	if (!val)
		return 0;
	if (!strcmp(sec, "core") && !sub && !strcmp(key, "hookspath")) {
		if ((r = resolve(g, g->wtop, val, line, "core.hooksPath", &h)) < 0)
			return r;
		return h ? protect(g, h, line, "core.hooksPath", val) : 0;
	}
	if (!strcmp(key, "path") && (!strcmp(sec, "include") ? !sub : !strcmp(sec, "includeif") && sub)) {
		_cleanup_free_ char *dir = strdup(g->file);
		char *sl = dir ? strrchr(dir, '/') : NULL;
		const char *what = !strcmp(sec, "include") ? "include.path" : "includeIf.path";

		if (!dir)
			return oom(g->err);
		if (sl)
			*(sl == dir ? sl + 1 : sl) = '\0';
		if ((r = resolve(g, dir, val, line, what, &h)) < 0)
			return r;
		if (!h)
			return 0;
		if ((r = protect(g, h, line, what, val)) < 0)
			return r;
		return read_config(g, h, line, what);
	}
	/* A remote helper's command (git-remote-ext(1)): git fetch runs it
	 * where protocol.ext.allow lets it. */
	if (!strcmp(sec, "remote") && sub && (!strcmp(key, "url") || !strcmp(key, "pushurl")) &&
	    !strncmp(val, "ext::", 5))
		return protect_command(g, val + 5, line, name);
	if (is_command(sec, sub, key))
		return protect_command(g, val, line, name);
	return 0;
}

/* Read the configuration file at host path H (an include of FROM's LINE
 * when the depth is not 0), and what it includes. A missing one is
 * nothing, as for git. */
/* The bind whose verified fd H is read beneath: the deepest of the
 * workspace's read-only rules (already resolved: .git is read through the
 * very fd the sandbox gets, never by name again) and the writable binds,
 * with *REL the rest ("" for the bind itself). NULL: H lies in none. */
static const plan_bind *source_of(const gctx *g, const char *h, const char **rel,
                                  char **host_out)
{
	const plan_bind *best = NULL;
	size_t blen = 0;

	*host_out = NULL;
	for (size_t i = 0; i < g->pl->n_binds; i++) {
		const plan_bind *b = &g->pl->binds[i];
		_cleanup_free_ char *bh = NULL;
		bool eq;

		if (b->reprotect && dest_within(b->dest, g->pl->ws_dest)) {
			if (asprintf(&bh, "%s%s", g->ws_host, b->dest + strlen(g->pl->ws_dest)) < 0)
				return NULL;
		} else if (b->writable && !b->layer) {
			if (!(bh = strdup(bind_host(g, b))))
				return NULL;
		} else {
			continue;
		}
		if (!host_within(h, bh, &eq) || strlen(bh) < blen)
			continue;
		best = b;
		blen = strlen(bh);
		free(*host_out);
		*host_out = bh;
		bh = NULL;
	}
	if (best) {
		*rel = h + blen;
		while (**rel == '/')
			(*rel)++;
	}
	return best;
}

/* Open the host file H for reading: beneath a bind's fd without following
 * a symlink when it lies in one (source_of), else by name as git does.
 * 0 with *FD_OUT, 1 when it is missing, or -OSB_E_*. */
static int open_read(gctx *g, const char *h, unsigned line, const char *key, int *fd_out)
{
	const char *rel;
	_cleanup_free_ char *bh = NULL;
	const plan_bind *b = source_of(g, h, &rel, &bh);
	char self[64];
	int pfd = -1, r;

	*fd_out = -1;
	if (b) {
		osb_error e2 = { 0 };

		if (!*rel) {
			pfd = fcntl(b->fd, F_DUPFD_CLOEXEC, 3);
		} else if ((r = path_resolve_beneath(b->fd, bh, rel, &pfd, &e2)) < 0) {
			if (e2.sys_errno == ENOENT)
				return 1;
			if (!g->file) {
				*g->err = e2;
				return r;
			}
			return refuse(g, line, key, OSB_E_PATH, e2.sys_errno, e2.message, h);
		}
		if (pfd < 0)
			return oom(g->err);
		snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
		*fd_out = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		close(pfd);
	} else {
		*fd_out = open(h, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (*fd_out < 0 && (errno == ENOENT || errno == ENOTDIR || errno == EACCES))
			return 1;   /* git reads nothing there either */
	}
	if (*fd_out < 0)
		return osb_err_set(g->err, OSB_E_PATH, errno, "paths", "%s: cannot read it for "
		                   "git's configuration: %s", h, strerror(errno));
	return 0;
}

/* The configuration file at host path H, whole, in *BUF (*LEN bytes): 0,
 * 1 when it is missing or a directory (a placeholder for the run), or
 * -OSB_E_*. */
static int slurp(gctx *g, const char *h, unsigned line, const char *key, char **buf, size_t *len)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	ssize_t n;
	int r;

	*buf = NULL;
	*len = 0;
	if ((r = open_read(g, h, line, key, &fd)) != 0)
		return r;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
		return 1;   /* a placeholder for the run: no configuration in it */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (off_t)GIT_MAX_FILE_BYTES)
		return osb_err_set(g->err, OSB_E_PATH, S_ISREG(st.st_mode) ? EFBIG : EINVAL, "paths",
		                   "%s: git's configuration is %s; the plan reads it to protect what "
		                   "it names and refuses what it cannot read: fix or remove the file",
		                   h, S_ISREG(st.st_mode) ? "larger than 1 MiB" : "not a regular file");
	if (!(*buf = malloc(GIT_MAX_FILE_BYTES + 1)))
		return oom(g->err);
	while ((n = read(fd, *buf + *len, GIT_MAX_FILE_BYTES + 1 - *len)) > 0)
		*len += (size_t)n;
	if (n < 0 || *len > GIT_MAX_FILE_BYTES) {
		free(*buf);
		*buf = NULL;
		return osb_err_set(g->err, OSB_E_PATH, n < 0 ? errno : EFBIG, "paths", "%s: cannot "
		                   "read git's configuration: %s", h, n < 0 ? strerror(errno) :
		                   "larger than 1 MiB");
	}
	return 0;
}

static int read_config(gctx *g, const char *h, unsigned line, const char *key)
{
	const char *saved = g->file;
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r;

	if (g->depth >= GIT_MAX_DEPTH || g->n_files >= GIT_MAX_FILES)
		return refuse(g, line, key, OSB_E_POLICY, ELOOP, g->depth >= GIT_MAX_DEPTH ?
		              "includes nest more than 10 deep" : "more than 64 configuration files",
		              h);
	if ((r = slurp(g, h, line, key, &buf, &len)) != 0)
		return r > 0 ? 0 : r;
	g->file = h;
	g->depth++;
	g->n_files++;
	r = gitconf_parse(buf, len, h, on_entry, g, g->err);
	g->depth--;
	g->file = saved;
	return r;
}

/* The first line of the small file REL beneath the workspace, or of the
 * host file H (a gitfile's "gitdir: X", a commondir), in *OUT; *OUT NULL
 * when it is missing. */
static int read_line(gctx *g, const char *h, char **out)
{
	_cleanup_close_ int fd = -1;
	char buf[PATH_MAX + 16];
	ssize_t n;
	struct stat st;
	int r;

	*out = NULL;
	if ((r = open_read(g, h, 1, "", &fd)) != 0)
		return r > 0 ? 0 : r;
	if (fstat(fd, &st) < 0)
		return osb_err_set(g->err, OSB_E_PATH, errno, "paths", "%s: %s", h, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return 0;
	if (!S_ISREG(st.st_mode) || (n = read(fd, buf, sizeof(buf) - 1)) < 0 ||
	    (size_t)n >= sizeof(buf) - 1)
		return osb_err_set(g->err, OSB_E_PATH, EINVAL, "paths", "%s: not a file of one "
		                   "line that git would read: fix or remove it", h);
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	return (*out = strdup(buf)) ? 0 : oom(g->err);
}

/* The repository's directories: WTOP/.git itself, or what a gitfile (a
 * worktree or a submodule: "gitdir: X") names, and its commondir. Either,
 * when it lies in a writable bind outside the read-only rules, is protected
 * whole: git takes hooks from there. */
static int git_dirs(gctx *g, const char *wtop, char **gitdir, char **common)
{
	_cleanup_free_ char *dotgit = NULL, *line = NULL, *cd = NULL;
	int r;

	*gitdir = *common = NULL;
	if (asprintf(&dotgit, "%s/.git", wtop) < 0)
		return oom(g->err);
	g->file = NULL;
	if ((r = read_line(g, dotgit, &line)) < 0)
		goto out;
	g->file = dotgit;
	if (line && strncmp(line, "gitdir: ", 8) != 0) {
		r = osb_err_set(g->err, OSB_E_PATH, EINVAL, "paths", "%s: a .git file that does not "
		                "start with \"gitdir: \": fix or remove it", dotgit);
		goto out;
	}
	if (!line) {
		*gitdir = dotgit;
		dotgit = NULL;
	} else if ((r = resolve(g, wtop, line + 8, 1, "gitdir", gitdir)) < 0 ||
	           (*gitdir && (r = protect(g, *gitdir, 1, "gitdir", line + 8)) < 0)) {
		goto out;
	}
	r = 0;
	if (!*gitdir)
		goto out;
	free(dotgit);
	if (asprintf(&dotgit, "%s/commondir", *gitdir) < 0) {
		r = oom(g->err);
		goto out;
	}
	g->file = NULL;
	if ((r = read_line(g, dotgit, &cd)) < 0)
		goto out;
	g->file = dotgit;
	if (cd && ((r = resolve(g, *gitdir, cd, 1, "commondir", common)) < 0 ||
	           (*common && (r = protect(g, *common, 1, "commondir", cd)) < 0)))
		goto out;
	r = 0;
out:
	g->file = NULL;
	return r;
}

static int bad_index(gctx *g, const char *idx, const char *what)
{
	return osb_err_set(g->err, OSB_E_POLICY, EINVAL, "paths", "%s: %s (git's index format, "
	                   "gitformat-index(5)); the plan reads the index for its submodules: "
	                   "run git status on the host to rewrite it, or run without a writable "
	                   "workspace", idx, what);
}

/* Each gitlink (a submodule, mode 160000) of the index IDX, whose paths are
 * relative to WTOP: git status and git diff run git in it, which takes its
 * configuration, hooks and fsmonitor from what PATH/.git names, a file in
 * the work tree. So PATH/.git is protected, and the repository there read
 * as this one (read_repo: its gitdir, its configuration, its gitlinks). */
struct index_ctx {
	gctx *g;
	const char *idx, *gitdir, *wtop;
	char **shared;
};

static int index_gitlink(void *ctx, uint32_t entry, const char *path)
{
	struct index_ctx *c = ctx;
	_cleanup_free_ char *top = NULL, *dotgit = NULL;
	const char *saved = c->g->file;
	int r;

	if (asprintf(&top, "%s/%s", c->wtop, path) < 0 || asprintf(&dotgit, "%s/.git", top) < 0)
		return oom(c->g->err);
	c->g->file = c->idx;
	r = protect(c->g, dotgit, entry, "a gitlink", path);
	c->g->file = saved;
	if (r == 0) {
		r = pend_push(c->g, top) < 0 ? oom(c->g->err) : 0;
		top = NULL;   /* the queue's now (or freed) */
	}
	return r;
}

/* A split index (core.splitIndex): its "link" extension names the shared
 * index, which holds the other entries; its gitlinks count too (those it
 * deletes or replaces as well: protected for nothing). */
static int index_link(void *ctx, const char *hex)
{
	struct index_ctx *c = ctx;

	if (asprintf(c->shared, "%s/sharedindex.%s", c->gitdir, hex) < 0) {
		*c->shared = NULL;
		return oom(c->g->err);
	}
	return 0;
}

/* The gitlinks of the index IDX (lib/gitindex.c reads it): each
 * submodule's .git protected and the submodule queued. With SHARED (a
 * split index's own file), the shared index its "link" extension names,
 * for the caller to read the same way (with NULL: it is that shared
 * index). */
static int index_gitlinks(gctx *g, const char *idx, const char *gitdir, const char *wtop,
                          char **shared)
{
	_cleanup_close_ int fd = -1;
	struct index_ctx c = { g, idx, gitdir, wtop, shared };
	struct gitindex_sink sink = { index_gitlink, shared ? index_link : NULL, &c };
	const char *why = NULL;
	struct stat st;
	unsigned char *map;
	int r;

	if ((r = open_read(g, idx, 0, "index", &fd)) != 0)
		return r > 0 ? 0 : r;
	if (fstat(fd, &st) < 0)
		return osb_err_set(g->err, OSB_E_PATH, errno, "paths", "%s: %s", idx, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return 0;
	if (!S_ISREG(st.st_mode) || (size_t)st.st_size > GIT_MAX_INDEX_BYTES)
		return bad_index(g, idx, S_ISREG(st.st_mode) ? "larger than 1 GiB" : "not a regular file");
	if (st.st_size == 0)
		return 0;   /* git takes an empty index as none */
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return osb_err_set(g->err, OSB_E_PATH, errno, "paths", "%s: cannot read it: %s", idx,
		                   strerror(errno));
	r = gitindex_walk(map, (size_t)st.st_size, g->sha256 ? 32 : 20, &sink, &why);
	munmap(map, (size_t)st.st_size);
	if (r == -ENOMEM)
		return oom(g->err);
	return r == 1 ? bad_index(g, idx, why) : r;
}

/* The repository whose work tree's top is WTOP: its directories, its
 * configuration (TOP: after the system's and the caller's global; a
 * submodule's alone, its paths relative to its own top) and, for the
 * submodules its index names, each of theirs. */
/* The symlink NAME beneath DFD (whose host path is DIR), when it is one:
 * what it points to is protected (resolve: relative to DIR). */
static int link_target(gctx *g, int dfd, const char *dir, const char *name)
{
	_cleanup_free_ char *link = NULL, *h = NULL;
	char target[PATH_MAX];
	const char *saved = g->file;
	struct stat st;
	ssize_t n;
	int r;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(st.st_mode))
		return 0;
	if ((n = readlinkat(dfd, name, target, sizeof(target) - 1)) < 0)
		return osb_err_set(g->err, OSB_E_PATH, errno, "paths", "%s/%s: %s", dir, name,
		                   strerror(errno));
	target[n] = '\0';
	if (asprintf(&link, "%s/%s", dir, name) < 0)
		return oom(g->err);
	g->file = link;
	r = resolve(g, dir, target, 0, "a hooks symlink", &h);
	if (r == 0 && h)
		r = protect(g, h, 0, "a hooks symlink", target);
	g->file = saved;
	return r;
}

/* Git runs hooks from COMMON/hooks (without core.hooksPath), following
 * symlinks: the directory itself or a hook may point into the work tree
 * (.git/hooks -> ../.githooks, a way to keep hooks in the repository),
 * which the sandbox writes. Each target is protected. */
static int hook_links(gctx *g, const char *common)
{
	_cleanup_free_ char *bh = NULL, *hooks = NULL;
	_cleanup_close_ int dfd = -1, hfd = -1;
	const char *rel;
	const plan_bind *b = source_of(g, common, &rel, &bh);
	osb_error e2 = { 0 };
	DIR *d;
	struct dirent *de;
	int r = 0;

	if (!b)   /* outside every bind: the caller's, opened by name as git does */
		dfd = open(common, O_PATH | O_DIRECTORY | O_CLOEXEC);
	else if (!*rel)
		dfd = fcntl(b->fd, F_DUPFD_CLOEXEC, 3);
	else if (path_resolve_beneath(b->fd, bh, rel, &dfd, &e2) < 0)
		return 0;   /* no git directory to take hooks from */
	if (dfd < 0)
		return b ? oom(g->err) : 0;
	if ((r = link_target(g, dfd, common, "hooks")) < 0)
		return r;
	if ((hfd = openat(dfd, "hooks", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return 0;
	if (asprintf(&hooks, "%s/hooks", common) < 0)
		return oom(g->err);
	if (!(d = fdopendir(hfd)))
		return osb_err_set(g->err, OSB_E_PATH, errno, "paths", "%s: %s", hooks, strerror(errno));
	hfd = -1;
	while (r == 0 && (de = readdir(d)))
		if (de->d_name[0] != '.' || (de->d_name[1] && strcmp(de->d_name, "..") != 0))
			r = link_target(g, dirfd(d), hooks, de->d_name);
	closedir(d);
	return r;
}

static int on_worktree(void *ctx, const char *sec, const char *sub, const char *key,
                       const char *val, unsigned line)
{
	char **wt = ctx;

	(void)line;
	if (strcmp(sec, "core") != 0 || sub || strcmp(key, "worktree") != 0 || !val)
		return 0;
	free(*wt);
	return (*wt = strdup(val)) ? 0 : -OSB_E_NOMEM;
}

/* The work tree's top, as git finds it: core.worktree in the repository's
 * own config file (not its includes: git reads it with the repository's
 * format, git-config(1) "core.worktree"), relative to the git directory;
 * else WTOP, where its .git is. In *OUT, NULL for WTOP. */
static int worktree_of(gctx *g, const char *repo, const char *gitdir, char **out)
{
	_cleanup_free_ char *buf = NULL, *val = NULL;
	size_t len;
	int r;

	*out = NULL;
	if ((r = slurp(g, repo, 0, "", &buf, &len)) != 0)
		return r > 0 ? 0 : r;
	r = gitconf_parse(buf, len, repo, on_worktree, &val, g->err);
	if (r == -OSB_E_NOMEM)
		return oom(g->err);
	if (r < 0 || !val)
		return r;
	g->file = repo;
	r = resolve(g, gitdir, val, 0, "core.worktree", out);
	g->file = NULL;
	return r;
}

static int read_repo(gctx *g, const char *wtop, bool top)
{
	_cleanup_free_ char *gitdir = NULL, *common = NULL, *repo = NULL, *wt = NULL, *idx = NULL;
	_cleanup_free_ char *core_wt = NULL, *shared = NULL;
	const char *saved_top = g->wtop;
	unsigned saved_files = g->n_files, saved_depth = g->depth;
	bool saved_wc = g->worktree_config, saved_sha = g->sha256;
	int r;

	if (g->n_repos >= GIT_MAX_REPOS || g->depth >= GIT_MAX_DEPTH)
		return osb_err_set(g->err, OSB_E_POLICY, ELOOP, "paths", "%s: submodules %s; run "
		                   "without a writable workspace", wtop, g->depth >= GIT_MAX_DEPTH ?
		                   "nest more than 10 deep" : "are more than 256");
	g->n_repos++;
	if ((r = git_dirs(g, wtop, &gitdir, &common)) < 0 || !gitdir)
		return r;
	if (asprintf(&repo, "%s/config", common ? common : gitdir) < 0 ||
	    asprintf(&wt, "%s/config.worktree", gitdir) < 0 ||
	    asprintf(&idx, "%s/index", gitdir) < 0)
		return oom(g->err);
	if ((r = worktree_of(g, repo, gitdir, &core_wt)) < 0)
		return r;
	if (core_wt)
		wtop = core_wt;
	g->wtop = wtop;
	if (!top) {   /* a submodule's configuration: a budget of its own */
		g->n_files = 0;
		g->depth++;
		g->worktree_config = g->sha256 = false;
	}
	if ((r = read_config(g, repo, 0, "")) < 0 ||
	    (g->worktree_config && (r = read_config(g, wt, 0, "")) < 0) ||
	    (r = hook_links(g, common ? common : gitdir)) < 0 ||
	    (r = index_gitlinks(g, idx, gitdir, wtop, &shared)) < 0 ||
	    (shared && (r = index_gitlinks(g, shared, gitdir, wtop, NULL)) < 0))
		goto out;
	r = 0;
out:
	g->wtop = saved_top;
	g->n_files = top ? g->n_files : saved_files;
	g->depth = saved_depth;
	g->worktree_config = saved_wc;
	g->sha256 = saved_sha;
	return r;
}

/* Does a read-only rule of the policy cover the workspace's .git? */
static bool covers_git(const plan *pl)
{
	_cleanup_free_ char *git = NULL;

	if (asprintf(&git, "%s/.git", pl->ws_dest) < 0)
		return true;   /* and fail on the next allocation */
	for (size_t i = 0; i < pl->n_binds; i++)
		if (pl->binds[i].reprotect && dest_within(git, pl->binds[i].dest))
			return true;
	return false;
}

int gitprotect_plan(plan *pl, osb_error *err)
{
	gctx g = { .pl = pl, .err = err };
	_cleanup_free_ char *xdg = NULL, *home = NULL;
	const char *sys = secure_getenv("GIT_CONFIG_SYSTEM");
	const char *glob = secure_getenv("GIT_CONFIG_GLOBAL");
	const char *xh = secure_getenv("XDG_CONFIG_HOME"), *hm = secure_getenv("HOME");
	struct stat st;
	int r;

	if (pl->p->ws_mode != WS_RW || !pl->ws_dest || !covers_git(pl))
		return 0;
	for (size_t i = 0; i < pl->n_binds && !g.ws; i++)
		if (pl->binds[i].writable && !strcmp(pl->binds[i].dest, pl->ws_dest))
			g.ws = &pl->binds[i];
	if (!g.ws)
		return 0;
	if (fstat(g.ws->fd, &st) < 0 || (r = path_fd_name(g.ws->fd, &st, &g.ws_host)) < 0)
		return osb_err_set(err, OSB_E_PATH, errno, "paths", "the workspace's host path: %s",
		                   strerror(errno));
	g.wtop = g.ws_host;
	if ((hm && hm[0] == '/' && asprintf(&home, "%s/.gitconfig", hm) < 0) ||
	    ((xh && xh[0] == '/') ? asprintf(&xdg, "%s/git/config", xh) :
	     (hm && hm[0] == '/') ? asprintf(&xdg, "%s/.config/git/config", hm) : 0) < 0) {
		r = oom(err);
		goto out;
	}
	/* git's order: system, global, the repository's, the worktree's
	 * (read_repo). */
	if ((!secure_getenv("GIT_CONFIG_NOSYSTEM") &&
	     (r = read_config(&g, sys && *sys ? sys : "/etc/gitconfig", 0, "")) < 0) ||
	    (glob && *glob && (r = read_config(&g, glob, 0, "")) < 0) ||
	    (!(glob && *glob) && xdg && (r = read_config(&g, xdg, 0, "")) < 0) ||
	    (!(glob && *glob) && home && (r = read_config(&g, home, 0, "")) < 0) ||
	    (r = read_repo(&g, g.ws_host, true)) < 0)
		goto out;
	/* The submodules, breadth first: each read as its parent would have
	 * read it, at its parent's depth (read_repo counts one more). */
	for (size_t i = 0; i < g.n_pend; i++) {
		g.depth = g.pend[i].depth;
		if ((r = read_repo(&g, g.pend[i].wtop, false)) < 0)
			goto out;
	}
	r = 0;
out:
	for (size_t i = 0; i < g.n_pend; i++)
		free(g.pend[i].wtop);
	free(g.pend);
	free(g.ws_host);
	return r;
}

void git_rules_free(git_rules *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free(g->v[i].s);
		free((char *)g->v[i].o.file);
	}
	free(g->v);
	*g = (git_rules){ NULL, 0 };
}

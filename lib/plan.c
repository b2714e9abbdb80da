/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* plan.c — policy + host -> launch plan (DESIGN §2).
 *
 * Every bind source is opened here once and bound by that fd, never by name
 * again; the workspace is verified (not a system directory, no mounts
 * beneath it when writable). Destinations are checked against each other so
 * that no mount can silently cover another. Anything the policy asks for
 * that the host cannot give is a refusal, never a downgrade.
 */
#include "bwrap.h"
#include "caps.h"
#include "paths.h"
#include "hostpath.h"
#include "policy.h"
#include "filter.h"
#include "proc.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#ifndef OSB_INIT_PATH
#define OSB_INIT_PATH "/usr/local/libexec/osb-isolate/osb-isolate-init"
#endif

static const char *init_path(void)
{
	const char *env = getenv("OSB_ISOLATE_INIT");

	return env && *env ? env : OSB_INIT_PATH;
}

static int open_init(plan *pl, osb_error *err)
{
	const char *path = init_path();
	struct stat st;

	pl->init_fd = open(path, O_PATH | O_CLOEXEC);
	if (pl->init_fd < 0)
		return osb_err_set(err, OSB_E_HOST, errno, "plan",
		                   "cannot open the sandbox init %s: %s (is osb-isolate installed? "
		                   "OSB_ISOLATE_INIT overrides the path)", path, strerror(errno));
	if (fstat(pl->init_fd, &st) < 0 || !S_ISREG(st.st_mode) || !(st.st_mode & S_IXUSR))
		return osb_err_set(err, OSB_E_HOST, 0, "plan",
		                   "the sandbox init %s is not an executable file", path);
	if (st.st_mode & (S_ISUID | S_ISGID))
		return osb_err_set(err, OSB_E_HOST, 0, "plan",
		                   "the sandbox init %s is setuid or setgid; refusing", path);
	return 0;
}

/* Can the sandbox's bwrap create a user namespace here? Run by root, that
 * bwrap starts as the sandbox's unprivileged host ids (userns mode never
 * keeps root: lib/hostid.h), so the question is asked as an id of the
 * allocation range, which is what a security module or a sysctl limiting
 * unprivileged user namespaces sees. A real attempt, not a guess from
 * sysctls; cached: the answer does not change within a process (a seccomp
 * filter, once installed, stays). */
static pthread_once_t userns_once = PTHREAD_ONCE_INIT;
static int userns_errno;

static void userns_probe(void)
{
	const spawn_cred range = { HOSTID_RANGE_BASE, HOSTID_RANGE_BASE };
	int r = spawn_probe_userns(geteuid() == 0 ? &range : NULL);

	userns_errno = r < 0 ? -r : 0;
}

int plan_userns_available(void)
{
	pthread_once(&userns_once, userns_probe);
	return userns_errno ? -userns_errno : 0;
}

static int plan_mode(plan *pl, osb_error *err)
{
	const osb_policy *p = pl->p;
	const char *o_file = p->id_mode_set.set ? p->id_mode_set.o.file : "default";
	unsigned o_line = p->id_mode_set.o.line;
	int userns = plan_userns_available();

	switch (p->id_mode) {
	case ID_USERNS:
		if (userns < 0)
			return osb_err_set(err, OSB_E_HOST, -userns, "probe",
			                   "%s:%u: identity userns: cannot create a user namespace here: %s "
			                   "(run 'osb-isolate capabilities'; as root, 'identity root' "
			                   "works without one)", o_file, o_line, strerror(-userns));
		pl->userns = true;
		return 0;
	case ID_ROOT:
		if (geteuid() != 0)
			return osb_err_set(err, OSB_E_HOST, EPERM, "probe",
			                   "%s:%u: identity root switches to the policy's uid/gid, which "
			                   "needs osb-isolate to run as root (use identity userns or auto)",
			                   o_file, o_line);
		pl->userns = false;
		return 0;
	case ID_AUTO:
		break;
	}
	if (userns == 0) {
		pl->userns = true;
		return 0;
	}
	if (geteuid() == 0) {
		pl->userns = false;
		return 0;
	}
	return osb_err_set(err, OSB_E_HOST, -userns, "probe",
	                   "cannot create a user namespace here (%s) and not running as root, so "
	                   "neither identity mode can run; run 'osb-isolate capabilities' for the "
	                   "reason and the remedy", strerror(-userns));
}

/* A root caller's sandbox runs as host ids that are not the owner of what it
 * is given (DESIGN §3 "Identity"): the host directory it may write must be
 * writable by those ids. Say so before launch rather than let the command
 * fail with EACCES (and never chown). An unprivileged caller's sandbox is
 * the caller itself: the kernel decides, as for any of its processes. */
static bool may_access(const struct stat *st, const hostid *h, mode_t need_u)
{
	mode_t need_g = need_u >> 3, need_o = need_u >> 6;

	if (st->st_uid == h->uid)
		return (st->st_mode & need_u) == need_u;
	if (st->st_gid == h->gid)
		return (st->st_mode & need_g) == need_g;
	return (st->st_mode & need_o) == need_o;
}

static const char *host_ids_remedy(const hostid *h)
{
	if (h->kind == HOSTID_ALLOCATED)
		return "a root caller's sandbox runs as ids allocated for it, which own nothing: "
		       "make it writable for others (chmod 1777), pin ids that own it "
		       "(\"host-ids UID GID\"), or bind it read-only";
	return "give the directory to the pinned host ids (chown) or pin the ids that own it";
}

static int check_writable_by(const plan *pl, int fd, const char *path, osb_error *err)
{
	const hostid *h = &pl->host;
	struct stat st;

	if (h->kind == HOSTID_CALLER)
		return 0;
	if (fstat(fd, &st) < 0)
		return osb_err_set(err, OSB_E_PATH, errno, "workspace", "%s: %s", path, strerror(errno));
	/* A directory needs write and search; a regular file only write. */
	if (may_access(&st, h, S_ISDIR(st.st_mode) ? S_IWUSR | S_IXUSR : S_IWUSR))
		return 0;
	return osb_err_set(err, OSB_E_PATH, EACCES, "paths",
	                   "%s is not writable by the sandbox's host ids %u:%u (%s; the directory "
	                   "is owned by %u:%u, mode %04o): %s", path, h->uid, h->gid,
	                   hostid_kind_name(h->kind), (unsigned)st.st_uid, (unsigned)st.st_gid,
	                   (unsigned)(st.st_mode & 07777), host_ids_remedy(h));
}

/* Every host directory above DEST must be searchable by the sandbox's host
 * ids: in userns mode bwrap itself walks there as those ids, and in root
 * mode the command does. Parents bwrap makes in a fresh tmpfs are fine. */
static int check_reachable(const plan *pl, const char *dest, osb_error *err)
{
	const hostid *h = &pl->host;
	char *copy;
	int r = 0;

	if (h->kind == HOSTID_CALLER)
		return 0;
	if (!(copy = strdup(dest)))
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "plan", "out of memory");
	for (char *sl = strchr(copy + 1, '/'); r == 0 && sl; sl = strchr(sl + 1, '/')) {
		struct stat st;

		*sl = '\0';
		if (plan_host_parent(pl, copy) && lstat(copy, &st) == 0 && S_ISDIR(st.st_mode) &&
		    !may_access(&st, h, S_IXUSR))
			r = osb_err_set(err, OSB_E_PATH, EACCES, "paths",
			                "the sandbox's host ids %u:%u (%s) cannot reach %s: %s is owned "
			                "by %u:%u with mode %04o; choose a location others may enter "
			                "(below /srv or /var/tmp, for instance)", h->uid, h->gid,
			                hostid_kind_name(h->kind), dest, copy, (unsigned)st.st_uid,
			                (unsigned)st.st_gid, (unsigned)(st.st_mode & 07777));
		*sl = '/';
	}
	free(copy);
	return r;
}

static int add_bind(plan *pl, int fd, const char *dest, bool writable, osb_origin o)
{
	plan_bind *nb = realloc(pl->binds, (pl->n_binds + 1) * sizeof(*nb));
	struct stat st;

	if (!nb)
		return -ENOMEM;
	pl->binds = nb;
	if (fstat(fd, &st) < 0)
		return -errno;
	nb[pl->n_binds] = (plan_bind){ .fd = fd, .target = PFD_FIRST_BIND + (int)pl->n_binds,
	                               .dest = strdup(dest), .writable = writable,
	                               .dev = st.st_dev, .ino = st.st_ino, .o = o };
	if (!nb[pl->n_binds].dest)
		return -ENOMEM;
	pl->n_binds++;
	return 0;
}

static int plan_ro_binds(plan *pl, osb_error *err)
{
	const osb_policy *p = pl->p;

	for (size_t i = 0; i < p->n_mounts; i++) {
		const pol_mount *m = &p->mounts[i];
		struct stat st;
		int fd;

		if (m->kind != MNT_RO_BIND)
			continue;
		/* A caller's path is checked against who can change it (hostpath.h);
		 * the policy author's may follow their own symlinks, but only once —
		 * the sandbox gets this very inode — and never onto a kernel
		 * interface. */
		if (policy_origin_is_api(&m->o)) {
			int r = path_open_caller_bind(m->path, &fd, err);

			if (r < 0)
				return r;
		} else if ((fd = open(m->path, O_PATH | O_CLOEXEC)) < 0) {
			return osb_err_set(err, OSB_E_PATH, errno, "plan",
			                   "%s:%u: ro-bind %s: %s (a grant is never skipped; remove the "
			                   "rule or create the path)", m->o.file, m->o.line, m->path,
			                   strerror(errno));
		}
		if (fstat(fd, &st) < 0 || !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))) {
			close(fd);
			return osb_err_set(err, OSB_E_PATH, 0, "plan",
			                   "%s:%u: ro-bind %s: only directories and regular files can "
			                   "be bound", m->o.file, m->o.line, m->path);
		}
		if (path_check_fs(fd, m->path, "plan", err) < 0) {
			close(fd);
			return -OSB_E_PATH;
		}
		if (add_bind(pl, fd, m->path, false, m->o) < 0) {
			close(fd);
			return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "plan", "out of memory");
		}
	}
	return 0;
}

static int plan_workspace(plan *pl, osb_error *err)
{
	const osb_policy *p = pl->p;
	_cleanup_free_ char *cwd = NULL;
	char *canon = NULL;
	const char *dir = p->ws_path;
	int fd = -1, r;

	if (p->ws_mode == WS_NONE)
		return 0;
	if (!dir) {
		cwd = getcwd(NULL, 0);
		if (!cwd)
			return osb_err_set(err, OSB_E_PATH, errno, "workspace",
			                   "cannot determine the current directory: %s; pass --workspace DIR",
			                   strerror(errno));
		dir = cwd;
	}
	r = path_open_workspace(dir, &(path_roots){ p->ws_roots, p->n_ws_roots, p->ws_roots_from },
	                        &fd, &canon, err);
	if (r < 0)
		return r;
	if (p->ws_mode == WS_RW && (r = path_check_no_mounts_beneath(fd, err)) < 0)
		goto fail;
	if (p->ws_mode == WS_RW && (r = check_writable_by(pl, fd, canon, err)) < 0)
		goto fail;
	pl->ws_dest = strdup(p->ws_dest ? p->ws_dest : canon);
	if (pl->ws_dest && (r = check_reachable(pl, pl->ws_dest, err)) < 0)
		goto fail;
	if (!pl->ws_dest || add_bind(pl, fd, pl->ws_dest, p->ws_mode == WS_RW, p->ws_set.o) < 0) {
		r = osb_err_set(err, OSB_E_NOMEM, ENOMEM, "plan", "out of memory");
		goto fail;
	}
	free(canon);
	return 0;
fail:
	free(canon);
	close(fd);
	return r;
}

/* The declared write-root that W lies beneath (the longest: nested roots
 * match the most specific), or NULL. Sandbox-side strings from the parsed
 * policy, compared component-wise; the real check is the fd walk below. */
static const pol_str *root_for(const osb_policy *p, const char *w)
{
	const pol_str *best = NULL;

	for (size_t i = 0; i < p->n_write_roots; i++) {
		const pol_str *r = &p->write_roots[i];

		if (dest_within(w, r->s) && (!best || strlen(r->s) > strlen(best->s)))
			best = r;
	}
	return best;
}

/* Extra writable paths: each is (declared root opened once, remainder
 * resolved beneath it by the kernel with no symlink, no "..", no mount
 * crossing) and bound by the resulting fd — never by name. */
static int plan_writes(plan *pl, osb_error *err)
{
	const osb_policy *p = pl->p;

	for (size_t i = 0; i < p->n_writes; i++) {
		const pol_str *w = &p->writes[i];
		const pol_str *root = root_for(p, w->s);
		int rfd = -1, fd = -1, r;
		struct stat st;

		if (!root)
			return osb_err_set(err, OSB_E_POLICY, 0, "paths",
			                   "%s:%u: write %s lies beneath no declared write-root",
			                   w->o.file, w->o.line, w->s);
		if ((r = path_open_root(root->s, &rfd, err)) < 0)
			return r;
		r = path_open_granted(rfd, w->s, &fd, err);
		close(rfd);
		if (r < 0)
			return r;
		if (fstat(fd, &st) < 0) {
			r = osb_err_set(err, OSB_E_PATH, errno, "paths", "%s: %s", w->s, strerror(errno));
			goto fail;
		}
		if (S_ISDIR(st.st_mode) && (r = path_check_no_mounts_beneath(fd, err)) < 0)
			goto fail;
		if ((r = check_writable_by(pl, fd, w->s, err)) < 0 ||
		    (r = check_reachable(pl, w->s, err)) < 0)
			goto fail;
		if (add_bind(pl, fd, w->s, true, w->o) < 0) {
			r = osb_err_set(err, OSB_E_NOMEM, ENOMEM, "plan", "out of memory");
			goto fail;
		}
		continue;
fail:
		close(fd);
		return r;
	}
	return 0;
}

/* The writable bind D lies in (the deepest), or NULL. */
static const plan_bind *writable_bind_for(const plan *pl, const char *d)
{
	const plan_bind *best = NULL;

	for (size_t i = 0; i < pl->n_binds; i++) {
		const plan_bind *b = &pl->binds[i];

		if (b->writable && dest_within(d, b->dest) && strcmp(d, b->dest) != 0 &&
		    (!best || strlen(b->dest) > strlen(best->dest)))
			best = b;
	}
	return best;
}

/* Remove one placeholder if it is still the empty directory made and no
 * other sandbox binds it: another plan on the same workspace found it and
 * holds a shared lock on it, and a removed directory would take that
 * sandbox's read-only mount with it. */
static void placeholder_remove(const placeholder *p)
{
	_cleanup_close_ int fd = openat(p->parent_fd, p->name,
	                                O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0 || st.st_dev != p->dev || st.st_ino != p->ino ||
	    flock(fd, LOCK_EX | LOCK_NB) < 0)
		return;
	(void)unlinkat(p->parent_fd, p->name, AT_REMOVEDIR);   /* ENOTEMPTY: keep */
}

void placeholders_remove(placeholders *ph)
{
	for (size_t i = 0; i < ph->n_held; i++)
		close(ph->held[i]);
	for (size_t i = ph->n; i-- > 0;) {
		placeholder_remove(&ph->v[i]);
		close(ph->v[i].parent_fd);
		free(ph->v[i].name);
	}
	free(ph->v);
	free(ph->held);
	*ph = (placeholders){ NULL, 0, NULL, 0 };
}

/* A shared lock on the path a read-only rule binds, for the plan's life:
 * a concurrent sandbox that made it a placeholder leaves it in place while
 * this one binds it. (Directories and regular files only reach here.) */
static int hold_shared(placeholders *ph, int path_fd)
{
	char self[64];
	int *v = realloc(ph->held, (ph->n_held + 1) * sizeof(*v)), fd;

	if (!v)
		return -ENOMEM;
	ph->held = v;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", path_fd);
	fd = open(self, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_SH) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	v[ph->n_held++] = fd;
	return 0;
}

static int placeholder_add(placeholders *ph, int parent, const char *name)
{
	placeholder *v = realloc(ph->v, (ph->n + 1) * sizeof(*v));
	struct stat st;

	if (!v)
		return -ENOMEM;
	ph->v = v;
	if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	v[ph->n] = (placeholder){ fcntl(parent, F_DUPFD_CLOEXEC, 3), strdup(name), st.st_dev,
	                          st.st_ino };
	if (v[ph->n].parent_fd < 0 || !v[ph->n].name) {
		if (v[ph->n].parent_fd >= 0)
			close(v[ph->n].parent_fd);
		free(v[ph->n].name);
		return -ENOMEM;
	}
	ph->n++;
	return 0;
}

/* Make every missing component of REL beneath ROOT an empty directory
 * (recorded in MADE), one component at a time from an fd, never following a
 * symlink: what a read-only rule names then exists, so the sandbox cannot
 * create it (a planted .git/hooks in a workspace without .git). The
 * verifying walk (path_resolve_beneath) runs afterwards as for any rule.
 * Returns 1 when a component cannot be made because the directory is not
 * writable (EACCES, EPERM, EROFS): the sandbox, which never has more rights
 * than its caller, cannot make it either. */
static int make_missing(int root, const char *rel, placeholders *made)
{
	_cleanup_free_ char *copy = strdup(rel);
	int cur = -1, r = 0;
	char *save = NULL;

	if (!copy || (cur = fcntl(root, F_DUPFD_CLOEXEC, 3)) < 0)
		return copy ? -errno : -ENOMEM;
	for (char *c = strtok_r(copy, "/", &save); c && r == 0; c = strtok_r(NULL, "/", &save)) {
		int next = openat(cur, c, O_PATH | O_NOFOLLOW | O_CLOEXEC);

		if (next < 0 && errno == ENOENT) {
			if (mkdirat(cur, c, 0755) < 0 && errno != EEXIST)
				r = errno == EACCES || errno == EPERM || errno == EROFS ? 1 : -errno;
			else if ((r = placeholder_add(made, cur, c)) == 0 &&
			         (next = openat(cur, c, O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0)
				r = -errno;
		} else if (next < 0) {
			r = -errno;
		}
		close(cur);
		cur = next;
	}
	if (cur >= 0)
		close(cur);
	return r;
}

/* read-only rules re-protect a path inside a writable area (a workspace's
 * .git/hooks and .git/config, shell rc files): resolved beneath the
 * writable bind's own fd with the same no-symlink walk, and bound read-only
 * after it. A path that does not exist is made an empty directory for the
 * run (removed afterwards when still empty): otherwise the sandbox could
 * create it, and a directory blocks a file of that name as well. */
static int plan_read_only(plan *pl, osb_error *err)
{
	const osb_policy *p = pl->p;

	for (size_t i = 0; i < p->n_read_only; i++) {
		const pol_str *ro = &p->read_only[i];
		_cleanup_free_ char *dest = NULL;
		const plan_bind *under;
		const char *rel;
		int fd = -1, r;

		if (strncmp(ro->s, "workspace:", 10) == 0) {
			/* A read-only or absent workspace protects it already. */
			if (p->ws_mode != WS_RW)
				continue;
			if (asprintf(&dest, "%s/%s", pl->ws_dest, ro->s + 10) < 0)
				return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "plan", "out of memory");
		} else if (!(dest = strdup(ro->s))) {
			return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "plan", "out of memory");
		}
		under = writable_bind_for(pl, dest);
		if (!under)
			return osb_err_set(err, OSB_E_POLICY, 0, "paths",
			                   "%s:%u: read-only %s lies in no writable area; it protects "
			                   "nothing", ro->o.file, ro->o.line, ro->s);
		rel = dest + strlen(under->dest);
		while (*rel == '/')
			rel++;
		r = make_missing(under->fd, rel, &pl->made);
		if (r == 1)
			continue;   /* nobody may create it there: nothing to protect */
		if (r < 0 && r != -ELOOP && r != -ENOTDIR)
			return osb_err_set(err, OSB_E_PATH, -r, "paths",
			                   "%s:%u: read-only %s: cannot make it exist for the run: %s",
			                   ro->o.file, ro->o.line, ro->s, strerror(-r));
		r = path_resolve_beneath(under->fd, under->dest, rel, &fd, err);
		if (r < 0)
			return r;
		if ((r = hold_shared(&pl->made, fd)) < 0) {
			close(fd);
			return osb_err_set(err, OSB_E_PATH, -r, "paths", "%s:%u: read-only %s: cannot "
			                   "lock it for the run: %s", ro->o.file, ro->o.line, ro->s,
			                   strerror(-r));
		}
		if (add_bind(pl, fd, dest, false, ro->o) < 0) {
			close(fd);
			return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "plan", "out of memory");
		}
		pl->binds[pl->n_binds - 1].reprotect = true;
	}
	return 0;
}

/* No mount may silently cover another: refuse layouts where segment order
 * would hide a grant (DESIGN §3, "A later tmpfs never hides an earlier bind"). */
static int plan_check_layout(const plan *pl, osb_error *err)
{
	const osb_policy *p = pl->p;
	bool have_proc = false;

	for (size_t i = 0; i < p->n_mounts; i++) {
		const pol_mount *m = &p->mounts[i];

		if (m->kind == MNT_PROC && strcmp(m->path, "/proc") == 0)
			have_proc = true;
		for (size_t j = 0; j < pl->n_binds; j++) {
			const plan_bind *b = &pl->binds[j];

			if (m->kind == MNT_HIDE && dest_within(b->dest, m->path))
				return osb_err_set(err, OSB_E_POLICY, 0, "plan",
				                   "%s:%u: hide %s would cover the bind of %s (%s:%u); "
				                   "remove one of them", m->o.file, m->o.line, m->path,
				                   b->dest, b->o.file, b->o.line);
			if (m->kind != MNT_HIDE && m->kind != MNT_RO_BIND && m->kind != MNT_SYMLINK &&
			    dest_within(m->path, b->dest))
				return osb_err_set(err, OSB_E_POLICY, 0, "plan",
				                   "%s:%u: %s would be covered by the bind of %s (%s:%u); "
				                   "remove one of them", m->o.file, m->o.line, m->path,
				                   b->dest, b->o.file, b->o.line);
		}
	}
	for (size_t i = 0; i < pl->n_binds; i++)
		for (size_t j = 0; j < pl->n_binds; j++) {
			const plan_bind *a = &pl->binds[i], *b = &pl->binds[j];

			if (i != j && a->writable && b->writable && dest_within(a->dest, b->dest))
				return osb_err_set(err, OSB_E_POLICY, 0, "plan",
				                   "writable %s lies beneath writable %s; nested writable "
				                   "mounts are refused", a->dest, b->dest);
			if (i < j && strcmp(a->dest, b->dest) == 0)
				return osb_err_set(err, OSB_E_POLICY, 0, "plan",
				                   "%s is bound twice (%s:%u and %s:%u)", a->dest,
				                   a->o.file, a->o.line, b->o.file, b->o.line);
		}
	if (!have_proc)
		return osb_err_set(err, OSB_E_POLICY, 0, "plan",
		                   "the policy mounts no /proc: every sandbox has a pid namespace and "
		                   "its init is started through /proc/self/fd; add \"proc /proc\"");
	return 0;
}

static int add_data(plan *pl, const char *dest, const char *text, bool in_proc, osb_error *err)
{
	plan_data *d = &pl->data[pl->n_data];

	if (pl->n_data >= PLAN_MAX_DATA)
		return osb_err_set(err, OSB_E_POLICY, 0, "plan", "more than %d synthesized files "
		                   "(one /proc/loadavg per proc mount): mount fewer proc file systems",
		                   PLAN_MAX_DATA);
	d->fd = memfd_with_data("osb-data", text, strlen(text));
	if (d->fd < 0)
		return osb_err_set(err, OSB_E_IO, -d->fd, "plan", "cannot create the memfd for %s: %s",
		                   dest, strerror(-d->fd));
	d->dest = strdup(dest);
	d->in_proc = in_proc;
	pl->n_data++;
	return d->dest ? 0 : osb_err_set(err, OSB_E_NOMEM, ENOMEM, "plan", "out of memory");
}

/* Is PATH the host's own file in the view, at the same path, outside every
 * area the sandbox can write (a mount there would be a mount point in a
 * writable directory) and outside the workspace (its business)? */
static bool host_file_in_view(const plan *pl, const char *path)
{
	struct stat st;

	return plan_place_of(pl, path) == PLACE_HOST && !writable_bind_for(pl, path) &&
	       !(pl->ws_dest && dest_within(path, pl->ws_dest)) &&
	       lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Where a file of the plan's own goes so that the sandbox sees it at PATH:
 * PATH itself when it lies in a fresh directory or is the host's regular
 * file in the view, where the host's symlink at PATH leads when that is
 * such a file (the mount then lands there, as bwrap follows the link), or
 * nowhere (NULL: no such file in the view, nothing to cover). FRESH says
 * the file is made rather than covered. */
static char *view_file(const plan *pl, const char *path, bool *fresh)
{
	char *real;
	struct stat st;

	*fresh = plan_place_of(pl, path) == PLACE_FRESH;
	if (*fresh || host_file_in_view(pl, path))
		return strdup(path);
	if (plan_place_of(pl, path) != PLACE_HOST || lstat(path, &st) != 0 ||
	    !S_ISLNK(st.st_mode) || !(real = realpath(path, NULL)))
		return NULL;
	if (host_file_in_view(pl, real))
		return real;
	free(real);
	return NULL;
}

/* Host identity files that contradict the sandbox's (DESIGN §3
 * "Identity"): backups of passwd and group, the shadow files, the
 * subordinate id ranges, the machine's id. Masked where the view shows
 * them; a view without the host's /etc has none to mask. */
static const char *const etc_mask_names[] = {
	"passwd-", "group-", "shadow", "shadow-", "gshadow", "gshadow-",
	"subuid", "subuid-", "subgid", "subgid-", "machine-id",
};

static int plan_etc(plan *pl, osb_error *err)
{
	static const char *const synth[] = { "/etc/hostname", "/etc/hosts" };
	const osb_policy *p = pl->p;
	int r = 0;

	for (size_t i = 0; r == 0 && i < sizeof(synth) / sizeof(synth[0]); i++) {
		_cleanup_free_ char *text = NULL, *at = NULL;
		bool fresh;

		if (!(at = view_file(pl, synth[i], &fresh)))
			continue;
		if ((i == 0 ? identity_hostname(p, &text) : identity_hosts(p, &text)) < 0)
			return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "identity", "out of memory");
		r = add_data(pl, at, text, false, err);
	}
	for (size_t i = 0; r == 0 && i < sizeof(etc_mask_names) / sizeof(etc_mask_names[0]); i++) {
		_cleanup_free_ char *path = NULL, *at = NULL;
		bool fresh;

		if (asprintf(&path, "/etc/%s", etc_mask_names[i]) < 0)
			return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "identity", "out of memory");
		at = view_file(pl, path, &fresh);
		if (at && !fresh && strv_push(&pl->masks, at) < 0)
			return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "identity", "out of memory");
	}
	return r;
}

static int plan_identity(plan *pl, osb_error *err)
{
	const osb_policy *p = pl->p;
	_cleanup_free_ char *pw = NULL, *gr = NULL;

	int r = identity_passwd(p, pl->uid, pl->gid, pl->ws_dest, &pw);

	if (r == 0)
		r = identity_group(p, pl->uid, pl->gid, &gr);
	if (r == -EINVAL)
		return osb_err_set(err, OSB_E_POLICY, EINVAL, "identity",
		                   "%s:%u: the user name or the workspace path contains ':' or a "
		                   "newline, which /etc/passwd cannot hold", p->user_set.o.file,
		                   p->user_set.o.line);
	if (r < 0)
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "identity", "out of memory");
	pl->passwd_fd = memfd_with_data("osb-passwd", pw, strlen(pw));
	pl->group_fd = memfd_with_data("osb-group", gr, strlen(gr));
	if (pl->passwd_fd < 0 || pl->group_fd < 0)
		return osb_err_set(err, OSB_E_IO, errno, "identity",
		                   "cannot create the passwd/group memfds: %s", strerror(errno));
	return plan_etc(pl, err);
}

static int plan_cmd(plan *pl, const char *const *cmd, const char *cwd, osb_error *err)
{
	if (!cmd || !cmd[0] || !cmd[0][0])
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "plan", "no command to run");
	for (size_t i = 0; cmd[i]; i++)
		if (strv_push(&pl->cmd, cmd[i]) < 0)
			return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "plan", "out of memory");
	if (cwd && cwd[0] != '/')
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "plan",
		                   "working directory %s must be an absolute path", cwd);
	pl->cwd = strdup(cwd ? cwd : pl->ws_dest ? pl->ws_dest : "/");
	if (!pl->cwd)
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "plan", "out of memory");
	return 0;
}

/* /proc entries as the OCI runtimes' defaults treat them, and those that
 * describe the host rather than the sandbox (its boot command line and
 * boot id, devices, modules, partitions, and counters of the whole
 * machine's activity, a side channel onto other users); only those this
 * kernel has are covered (bwrap fails on a missing destination). Which of
 * them programs read was measured (README, "Compatibility of the curated
 * view"): /proc/stat, meminfo, cpuinfo and uptime stay, as ps, top, free
 * and the language runtimes read them, and sysinfo(2) tells the same. */
static const char *const proc_ro_names[] = { "sys", "sysrq-trigger", "irq", "bus", "fs" };
static const char *const proc_mask_names[] = {
	"kcore", "keys", "timer_list", "timer_stats", "sched_debug", "latency_stats",
	"acpi", "asound", "scsi",
	"cmdline", "sys/kernel/random/boot_id", "config.gz", "modules", "kallsyms",
	"devices", "misc", "consoles", "partitions", "diskstats", "swaps", "iomem", "ioports",
	"dma", "fb", "mtrr", "interrupts", "softirqs", "locks", "key-users", "vmstat", "zoneinfo",
	"buddyinfo", "pagetypeinfo", "slabinfo", "vmallocinfo", "schedstat", "pressure", "driver",
};

/* What /proc/loadavg says instead of the host's load and task count: no
 * load, one task (programs that read it, os.getloadavg(), uptime, keep
 * working). */
#define PROC_LOADAVG "0.00 0.00 0.00 1/1 1\n"

static int plan_proc_facts(plan *pl, osb_error *err)
{
	proc_facts *f = &pl->proc;
	const osb_policy *p = pl->p;
	struct stat st;

	for (size_t i = 0; i < sizeof(proc_ro_names) / sizeof(proc_ro_names[0]); i++) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%s", proc_ro_names[i]);
		if (lstat(path, &st) == 0 && strv_push(&f->ro, proc_ro_names[i]) < 0)
			goto nomem;
	}
	for (size_t i = 0; i < sizeof(proc_mask_names) / sizeof(proc_mask_names[0]); i++) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%s", proc_mask_names[i]);
		if (lstat(path, &st) != 0)
			continue;
		if (strv_push(S_ISDIR(st.st_mode) ? &f->mask_dirs : &f->mask_files,
		              proc_mask_names[i]) < 0)
			goto nomem;
	}
	for (size_t i = 0; lstat("/proc/loadavg", &st) == 0 && i < p->n_mounts; i++) {
		_cleanup_free_ char *dest = NULL;
		int r;

		if (p->mounts[i].kind != MNT_PROC)
			continue;
		if (asprintf(&dest, "%s/loadavg", p->mounts[i].path) < 0)
			goto nomem;
		if ((r = add_data(pl, dest, PROC_LOADAVG, true, err)) < 0)
			return r;
	}
	return 0;
nomem:
	return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "plan", "out of memory");
}

/* Is L, as the policy writes it, already the host's own link at its path? */
static bool host_has_link(const pol_mount *l)
{
	char buf[PATH_MAX];
	ssize_t n = readlink(l->path, buf, sizeof(buf) - 1);

	if (n < 0)
		return false;
	buf[n] = '\0';
	return strcmp(buf, l->target) == 0;
}

/* A symlink is made last, in a directory bwrap made fresh (never the
 * host's: bwrap would make it there, or fail on a read-only one), unless
 * the host's view already has that very link there; nothing is mounted
 * beneath it: a destination through a link would land wherever the link
 * leads. */
static int check_symlink(const plan *pl, const pol_mount *l, osb_error *err)
{
	static const char *const fixed[] = { "/etc/passwd", "/etc/group" };
	const osb_policy *p = pl->p;
	const char *under = NULL;

	if (plan_place_of(pl, l->path) == PLACE_HOST && host_has_link(l))
		return 0;   /* the view shows this very link already (root host-ro) */
	if (plan_place_of(pl, l->path) != PLACE_FRESH)
		return osb_err_set(err, OSB_E_POLICY, 0, "plan",
		                   "%s:%u: symlink %s lies in %s, not in a directory the sandbox gets "
		                   "fresh (bwrap's root under \"root none\", or a tmpfs); remove it",
		                   l->o.file, l->o.line, l->path,
		                   plan_host_parent(pl, l->path) ? "the host's view" : "a dev, proc or "
		                   "hidden mount");
	for (size_t i = 0; !under && i < p->n_mounts; i++)
		if (&p->mounts[i] != l && dest_within(p->mounts[i].path, l->path))
			under = p->mounts[i].path;
	for (size_t i = 0; !under && i < pl->n_binds; i++)
		if (dest_within(pl->binds[i].dest, l->path))
			under = pl->binds[i].dest;
	for (size_t i = 0; !under && i < pl->n_data; i++)
		if (dest_within(pl->data[i].dest, l->path))
			under = pl->data[i].dest;
	for (size_t i = 0; !under && i < pl->masks.n; i++)
		if (dest_within(pl->masks.v[i], l->path))
			under = pl->masks.v[i];
	for (size_t i = 0; !under && i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (dest_within(fixed[i], l->path))
			under = fixed[i];
	if (under)
		return osb_err_set(err, OSB_E_POLICY, 0, "plan",
		                   "%s:%u: %s would be mounted through symlink %s; nothing may lie "
		                   "beneath a symlink (bind the directory instead)", l->o.file,
		                   l->o.line, under, l->path);
	return 0;
}

static int plan_check_symlinks(const plan *pl, osb_error *err)
{
	for (size_t i = 0; i < pl->p->n_mounts; i++) {
		int r;

		if (pl->p->mounts[i].kind == MNT_SYMLINK &&
		    (r = check_symlink(pl, &pl->p->mounts[i], err)) < 0)
			return r;
	}
	return 0;
}

/* The command's environment travels to the init in a memfd (NUL-separated
 * entries) and is applied only at its final execve: bwrap and the init
 * themselves run with spawn_fixed_env, so a loader variable of the policy,
 * a request or the caller never reaches them. */
static int plan_env(plan *pl, const char *const *envp, osb_error *err)
{
	const osb_policy *p = pl->p;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int r;

	if ((r = env_build(p, envp, pl->ws_dest, &pl->env, err)) < 0)
		return r;
	if (pl->session)
		return 0;
	f = open_memstream(&buf, &len);
	if (!f)
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "plan", "out of memory");
	for (size_t i = 0; i < pl->env.n; i++)
		fwrite(pl->env.v[i], 1, strlen(pl->env.v[i]) + 1, f);
	if (fclose(f) != 0) {
		free(buf);
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "plan", "out of memory");
	}
	pl->env_fd = memfd_with_data("osb-env", buf, len);
	free(buf);
	if (pl->env_fd < 0)
		return osb_err_set(err, OSB_E_IO, -pl->env_fd, "plan",
		                   "cannot create the environment memfd: %s", strerror(-pl->env_fd));
	return 0;
}

/* Who the sandbox is: its host ids (lib/hostid.c), how bwrap starts (as
 * those ids when a root caller uses a user namespace, so that nothing in
 * that namespace maps to host root), and the ids it sees. */
static int plan_ids(plan *pl, osb_error *err)
{
	const osb_policy *p = pl->p;
	int r = hostid_acquire(p, &pl->host, err);

	if (r < 0)
		return r;
	if (pl->userns) {
		pl->uid = p->uid;
		pl->gid = p->gid;
		pl->use_cred = pl->host.kind != HOSTID_CALLER;
		pl->cred = (spawn_cred){ pl->host.uid, pl->host.gid };
	} else {
		pl->uid = pl->host.uid;
		pl->gid = pl->host.gid;
	}
	return 0;
}

static int plan_bwrap(plan *pl, osb_error *err)
{
	int r;

	if ((r = bwrap_locate(&pl->bwrap, err)) < 0 ||
	    (r = bwrap_probe_features(pl->bwrap, &pl->feat, err)) < 0)
		return r;
	if (!pl->feat.bind_fd)
		return osb_err_set(err, OSB_E_HOST, 0, "probe",
		                   "%s lacks --bind-fd/--ro-bind-fd, so paths cannot be bound by their "
		                   "verified fd; refusing (install bubblewrap 0.10 or later, or "
		                   "Debian 12's 0.8.0-2+deb12u1)", pl->bwrap);
	if (pl->userns && !pl->feat.disable_userns)
		return osb_err_set(err, OSB_E_HOST, 0, "probe",
		                   "%s lacks --disable-userns; refusing to let the sandbox create "
		                   "user namespaces (install bubblewrap 0.8 or later)", pl->bwrap);
	return 0;
}

int plan_build(const osb_policy *p, const char *const *cmd, const char *const *envp,
               const char *cwd, bool session, plan *pl, osb_error *err)
{
	int r;

	memset(pl, 0, sizeof(*pl));
	pl->p = p;
	pl->session = session;
	pl->host = (hostid)HOSTID_INIT;
	pl->init_fd = pl->seccomp_fd = pl->passwd_fd = pl->group_fd = pl->env_fd = -1;
	/* Checked first: nothing else matters for a policy that asks for this. */
	if (p->uid == 0 || p->gid == 0) {
		r = osb_err_set(err, OSB_E_POLICY, 0, "identity",
		                "%s:%u: user code never runs as uid 0 or gid 0; choose non-zero ids",
		                p->user_set.o.file, p->user_set.o.line);
		goto fail;
	}
	/* Refuse early, with the probe's reason and remedy, when the host
	 * lacks what this policy needs (cached per process). */
	if ((r = caps_check_policy(p, err)) < 0 ||
	    (r = plan_mode(pl, err)) < 0 ||
	    (r = plan_ids(pl, err)) < 0 ||
	    (r = plan_bwrap(pl, err)) < 0 ||
	    (r = open_init(pl, err)) < 0 ||
	    (r = plan_ro_binds(pl, err)) < 0 ||
	    (r = plan_workspace(pl, err)) < 0 ||
	    (r = plan_writes(pl, err)) < 0 ||
	    (r = plan_read_only(pl, err)) < 0 ||
	    (r = plan_check_layout(pl, err)) < 0 ||
	    (r = plan_identity(pl, err)) < 0 ||
	    (r = plan_cmd(pl, cmd, cwd, err)) < 0 ||
	    (r = plan_env(pl, envp, err)) < 0 ||
	    (r = plan_proc_facts(pl, err)) < 0 ||
	    (r = plan_check_symlinks(pl, err)) < 0 ||
	    (r = seccomp_build_fd(p, &pl->seccomp_fd, err)) < 0)
		goto fail;
	return 0;
fail:
	plan_free(pl);
	return r;
}

void plan_free(plan *pl)
{
	for (size_t i = 0; i < pl->n_binds; i++) {
		close(pl->binds[i].fd);
		free(pl->binds[i].dest);
	}
	free(pl->binds);
	int *fds[] = { &pl->init_fd, &pl->seccomp_fd, &pl->passwd_fd, &pl->group_fd,
	               &pl->env_fd };
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (*fds[i] >= 0)
			close(*fds[i]);
	free(pl->bwrap);
	free(pl->ws_dest);
	free(pl->cwd);
	strv_free(&pl->env);
	strv_free(&pl->cmd);
	strv_free(&pl->proc.ro);
	strv_free(&pl->proc.mask_files);
	strv_free(&pl->proc.mask_dirs);
	for (size_t i = 0; i < pl->n_data; i++) {
		close(pl->data[i].fd);
		free(pl->data[i].dest);
	}
	strv_free(&pl->masks);
	placeholders_remove(&pl->made);
	hostid_release(&pl->host);
	memset(pl, 0, sizeof(*pl));
	pl->host = (hostid)HOSTID_INIT;
	pl->init_fd = pl->seccomp_fd = pl->passwd_fd = pl->group_fd = pl->env_fd = -1;
}

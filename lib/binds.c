/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* binds.c — the plan's bind sources, opened and verified on the host.
 *
 * This is the part of the plan that touches the host's files: every bind
 * source is opened here once and bound by that fd, never by name again; the
 * workspace is verified (not a system directory, no mounts beneath it when
 * writable); a write grant is resolved beneath its declared root by the
 * kernel; a read-only rule inside a writable area is resolved beneath that
 * area's fd, and made to exist (an empty placeholder directory) when it
 * does not. A root caller's sandbox runs as host ids that own nothing, so
 * what it may write must be writable by them: said before launch.
 */
#include "binds.h"
#include "gitprotect.h"
#include "hostpath.h"
#include "layer.h"
#include "paths.h"
#include "plan.h"
#include "policy.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>

/* A root caller's sandbox runs as host ids that are not the owner of what it
 * is given (docs/ARCHITECTURE.md, "Identity"): the host directory it may write must be
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
		int fd, r;

		if (m->kind != MNT_RO_BIND)
			continue;
		/* A caller's path is checked against who can change it (hostpath.h);
		 * the policy author's may follow their own symlinks, but only once —
		 * the sandbox gets this very inode — and never onto a kernel
		 * interface. */
		if (policy_origin_is_api(&m->o)) {
			if ((r = path_open_caller_bind(m->path, &fd, err)) < 0)
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
		if ((r = path_check_fs(fd, m->path, "plan", err)) < 0) {
			close(fd);
			plan_err_origin(err, m->o, "ro-bind");
			return r;
		}
		if (add_bind(pl, fd, m->path, false, m->o) < 0) {
			close(fd);
			return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "plan", "out of memory");
		}
	}
	return 0;
}

/* overlayfs copies a lower file up with its owner, which the user namespace
 * of the overlay's mounter must map (else EOVERFLOW). A root caller's userns
 * sandbox on allocated ids maps those ids alone, and they own nothing: no
 * existing entry of the workspace could change. Known before launch, so
 * refused rather than left to fail at the first write. */
static int check_copy_up(const plan *pl, osb_error *err)
{
	if (!pl->userns || pl->host.kind != HOSTID_ALLOCATED)
		return 0;
	return osb_err_set(err, OSB_E_POLICY, EOVERFLOW, "workspace",
	                   "overlay workspace in user namespace mode on host ids allocated for the "
	                   "sandbox: overlayfs copies an existing file up only when the sandbox's "
	                   "user namespace maps its owner, and allocated ids own nothing (every "
	                   "change to an existing entry would fail with EOVERFLOW); pin ids that "
	                   "own the workspace (\"host-ids UID GID\"), or use \"identity root\"");
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
	/* An overlay shows the workspace's own owner and mode: what the command
	 * may write there is what it could write in rw mode. */
	if ((p->ws_mode == WS_RW || p->ws_mode == WS_OVERLAY) &&
	    (r = check_writable_by(pl, fd, canon, err)) < 0)
		goto fail;
	if (p->ws_mode == WS_OVERLAY && (r = check_copy_up(pl, err)) < 0)
		goto fail;
	if (p->ws_mode == WS_OVERLAY)
		pl->overlay_size = p->ws_size;
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
		if ((r = path_open_root(root->s, &rfd, err)) < 0) {
			plan_err_origin(err, root->o, "write-root");
			return r;
		}
		r = path_open_granted(rfd, w->s, &fd, err);
		close(rfd);
		if (r < 0) {
			plan_err_origin(err, w->o, "write");
			return r;
		}
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
		plan_err_origin(err, w->o, "write");
		return r;
	}
	return 0;
}

const plan_bind *binds_writable_for(const plan *pl, const char *d)
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

/* Remove one placeholder if it is still the empty directory found and no
 * other sandbox binds it: another plan on the same workspace holds a shared
 * lock on it, and a removed directory would take that sandbox's read-only
 * mount with it; the last of them removes it (lib/phrecord.h). */
static void placeholder_remove(const placeholder *p)
{
	(void)phrec_remove(NULL, p->parent_fd, p->name, p->dev, p->ino, p->key);
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

/* A shared lock on FD (taken over, closed on failure), for the plan's life.
 * The only exclusive lock of ours is a remover's, held for one rmdir; any
 * process that can open the path can take one and keep it (a sandbox whose
 * policy keeps no read-only rule there), so the wait is bounded
 * (HOLD_WAIT_MS) and then -EWOULDBLOCK, never a launch that hangs. */
#define HOLD_WAIT_MS 1000
static int hold_fd(placeholders *ph, int fd)
{
	int *v = realloc(ph->held, (ph->n_held + 1) * sizeof(*v)), waited = 0;

	if (!v) {
		close(fd);
		return -ENOMEM;
	}
	ph->held = v;
	while (flock(fd, LOCK_SH | LOCK_NB) < 0) {
		int e = errno;

		if ((e == EWOULDBLOCK || e == EINTR) && waited < HOLD_WAIT_MS) {
			struct timespec pause = { 0, 10 * 1000 * 1000 };

			nanosleep(&pause, NULL);
			waited += 10;
			continue;
		}
		close(fd);
		return -e;
	}
	v[ph->n_held++] = fd;
	return 0;
}

/* The message of a read-only rule's path that stayed locked. */
static int locked_err(const pol_str *ro, osb_error *err)
{
	return osb_err_set(err, OSB_E_PATH, EWOULDBLOCK, "paths",
	                   "%s:%u: read-only %s: another process holds an exclusive lock (flock) "
	                   "on it and kept it for %d ms; a sandbox of a policy without this rule "
	                   "still running on the workspace can: end it and try again (lslocks "
	                   "names the holder)", ro->o.file, ro->o.line, ro->s, HOLD_WAIT_MS);
}

/* A shared lock on the path a read-only rule binds, for the plan's life:
 * a concurrent sandbox's plan leaves its placeholder in place while this
 * one binds it. (Directories and regular files only reach here.) */
static int hold_shared(placeholders *ph, int path_fd)
{
	char self[64];
	int fd;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", path_fd);
	fd = open(self, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	return hold_fd(ph, fd);
}

static int placeholder_add(placeholders *ph, int parent, const char *name, const struct stat *st,
                           const char *key)
{
	placeholder *v = realloc(ph->v, (ph->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	ph->v = v;
	v[ph->n] = (placeholder){ fcntl(parent, F_DUPFD_CLOEXEC, 3), strdup(name), st->st_dev,
	                          st->st_ino, "" };
	snprintf(v[ph->n].key, sizeof(v[ph->n].key), "%s", key);
	if (v[ph->n].parent_fd < 0 || !v[ph->n].name) {
		if (v[ph->n].parent_fd >= 0)
			close(v[ph->n].parent_fd);
		free(v[ph->n].name);
		return -ENOMEM;
	}
	ph->n++;
	return 0;
}

/* The directory NAME in PARENT, locked shared for the plan's life, into
 * ST. -EAGAIN when it is gone or another by the time it is locked (the last
 * run binding it removed it meanwhile): the walk starts again. */
static int lock_dir(placeholders *ph, int parent, const char *name, struct stat *st)
{
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), r;
	dev_t dev = st->st_dev;
	ino_t ino = st->st_ino;

	if (fd < 0)
		return errno == ENOENT ? -EAGAIN : -errno;
	if ((r = hold_fd(ph, fd)) < 0)
		return r;
	if (fstat(fd, st) < 0)
		return -errno;
	return st->st_nlink == 0 || (dev && (st->st_dev != dev || st->st_ino != ino)) ? -EAGAIN : 0;
}

/* NAME in PARENT, just made: locked, then recorded (REC >= 0) so that the
 * last run binding it removes it, whichever that is. It must be a directory
 * born since T0: another one renamed over it meanwhile is older. */
static int placeholder_made(placeholders *ph, int parent, const char *name, int rec,
                            const struct timespec *t0)
{
	char key[PHREC_KEY_MAX] = "";
	struct stat st = { 0 };
	struct statx sx;
	int r = lock_dir(ph, parent, name, &st);

	if (r < 0)
		return r == -EAGAIN ? -EEXIST : r;
	if (statx(ph->held[ph->n_held - 1], "", AT_EMPTY_PATH, STATX_BTIME, &sx) == 0 &&
	    (sx.stx_mask & STATX_BTIME) && sx.stx_btime.tv_sec + 1 < t0->tv_sec)
		return -EEXIST;
	if (rec >= 0 && (phrec_key(ph->held[ph->n_held - 1], key) < 0 || phrec_add(rec, key) < 0))
		key[0] = '\0';   /* no record: this plan alone removes it */
	return placeholder_add(ph, parent, name, &st, key);
}

/* NAME in PARENT exists (NEXT, O_PATH): a placeholder another run made
 * when its record says so, which this plan then binds, locks and removes
 * if it ends last. A directory with no record is not one (the caller's own
 * .git, empty or not), and stays whatever happens. */
static int placeholder_found(placeholders *ph, int parent, const char *name, int next, int rec)
{
	char key[PHREC_KEY_MAX];
	struct stat st;
	int r;

	if (rec < 0 || fstat(next, &st) < 0 || !S_ISDIR(st.st_mode) || phrec_key(next, key) < 0 ||
	    !phrec_has(rec, key))
		return 0;
	if ((r = lock_dir(ph, parent, name, &st)) < 0)
		return r;
	return placeholder_add(ph, parent, name, &st, key);
}

/* Make every missing component of REL beneath ROOT an empty directory
 * (recorded in MADE, and in REC), one component at a time from an fd,
 * never following a symlink: what a read-only rule names then exists, so
 * the sandbox cannot create it (a planted .git/hooks in a workspace without
 * .git). Existing components that are placeholders of other runs are
 * recorded in MADE as well. The verifying walk (path_resolve_beneath) runs
 * afterwards as for any rule. Returns 1 when a component cannot be made
 * because the directory is not writable (EACCES, EPERM, EROFS): the
 * sandbox, which never has more rights than its caller, cannot make it
 * either; -EAGAIN when a placeholder went while it was being locked. */
static int make_missing(int root, const char *rel, placeholders *made, int rec)
{
	_cleanup_free_ char *copy = strdup(rel);
	int cur = -1, r = 0;
	char *save = NULL;

	if (!copy || (cur = fcntl(root, F_DUPFD_CLOEXEC, 3)) < 0)
		return copy ? -errno : -ENOMEM;
	for (char *c = strtok_r(copy, "/", &save); c && r == 0; c = strtok_r(NULL, "/", &save)) {
		int next = openat(cur, c, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		bool fresh = false;

		if (next < 0 && errno == ENOENT) {
			struct timespec t0;

			clock_gettime(CLOCK_REALTIME, &t0);
			if (mkdirat(cur, c, 0755) == 0) {
				fresh = true;
				r = placeholder_made(made, cur, c, rec, &t0);
			} else if (errno != EEXIST) {   /* EEXIST: a concurrent plan made it */
				r = errno == EACCES || errno == EPERM || errno == EROFS ? 1 : -errno;
			}
			if (r == 0 && (next = openat(cur, c, O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0)
				r = -errno;
		} else if (next < 0) {
			r = -errno;
		}
		if (r == 0 && !fresh)
			r = placeholder_found(made, cur, c, next, rec);
		close(cur);
		cur = next;
	}
	if (cur >= 0)
		close(cur);
	return r;
}

/* read-only rules re-protect a path inside a writable area (a workspace's
 * .git, shell rc files): resolved beneath the
 * writable bind's own fd with the same no-symlink walk, and bound read-only
 * after it. A path that does not exist is made an empty directory for the
 * run (removed afterwards when still empty): otherwise the sandbox could
 * create it, and a directory blocks a file of that name as well. */
static int plan_read_only(plan *pl, const pol_str *v, size_t n, osb_error *err)
{
	const osb_policy *p = pl->p;
	_cleanup_close_ int rec = -2;   /* the record of placeholders, opened at the first rule */

	for (size_t i = 0; i < n; i++) {
		const pol_str *ro = &v[i];
		_cleanup_free_ char *dest = NULL;
		const plan_bind *under;
		const char *rel;
		int fd = -1, r;

		if (strncmp(ro->s, "workspace:", 10) == 0) {
			/* A read-only or absent workspace protects it already, and
			 * an overlay's writes never reach the host. */
			if (p->ws_mode != WS_RW)
				continue;
			if (asprintf(&dest, "%s/%s", pl->ws_dest, ro->s + 10) < 0)
				return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "plan", "out of memory");
		} else if (!(dest = strdup(ro->s))) {
			return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "plan", "out of memory");
		}
		under = binds_writable_for(pl, dest);
		if (!under)
			return osb_err_set(err, OSB_E_POLICY, 0, "paths",
			                   "%s:%u: read-only %s lies in no writable area; it protects "
			                   "nothing", ro->o.file, ro->o.line, ro->s);
		rel = dest + strlen(under->dest);
		while (*rel == '/')
			rel++;
		if (rec == -2)
			rec = phrec_dir_open(NULL);
		for (int tries = 0; (r = make_missing(under->fd, rel, &pl->made, rec)) == -EAGAIN &&
		                    tries < 8; tries++)
			;
		if (r == 1)
			continue;   /* nobody may create it there: nothing to protect */
		if (r == -EWOULDBLOCK)
			return locked_err(ro, err);
		if (r < 0 && r != -ELOOP && r != -ENOTDIR)
			return osb_err_set(err, OSB_E_PATH, -r, "paths",
			                   "%s:%u: read-only %s: cannot make it exist for the run: %s",
			                   ro->o.file, ro->o.line, ro->s, strerror(-r));
		r = path_resolve_beneath(under->fd, under->dest, rel, &fd, err);
		if (r < 0) {
			plan_err_origin(err, ro->o, "read-only");
			return r;
		}
		if ((r = hold_shared(&pl->made, fd)) < 0) {
			close(fd);
			if (r == -EWOULDBLOCK)
				return locked_err(ro, err);
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

/* A persisted overlay layer, last: it must lie apart from every other
 * bind source (layer.c). */
static int plan_layer(plan *pl, osb_error *err)
{
	_cleanup_free_ char *dest = NULL;
	int fd = -1, r = layer_open(pl, &fd, &dest, err);

	if (r < 0 || fd < 0)
		return r;
	if (add_bind(pl, fd, dest, true, policy_api_origin) < 0) {
		close(fd);
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "plan", "out of memory");
	}
	pl->binds[pl->n_binds - 1].layer = true;
	return 0;
}

int binds_open(plan *pl, osb_error *err)
{
	int r;

	if ((r = plan_ro_binds(pl, err)) < 0 ||
	    (r = plan_workspace(pl, err)) < 0 ||
	    (r = plan_writes(pl, err)) < 0 ||
	    (r = plan_read_only(pl, pl->p->read_only, pl->p->n_read_only, err)) < 0 ||
	    (r = gitprotect_plan(pl, err)) < 0 ||
	    (r = plan_read_only(pl, pl->git.v, pl->git.n, err)) < 0 ||
	    (r = plan_layer(pl, err)) < 0)
		return r;
	return 0;
}

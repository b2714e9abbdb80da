/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* bwrap.c — render a launch plan as bwrap's argv.
 *
 * A pure function of the plan and of what runs in it (a command, or a
 * session's broker): nothing here looks at the host. The argv is emitted in
 * a fixed segment order — namespaces and process options, root,
 * tmpfs/dev/proc, read-only binds, workspace, hides, identity files, then
 * the init and the command — so that the file order of a policy can never
 * let a later tmpfs hide an earlier bind. The options bwrap is given are the
 * ones the host facts found in its --help (host.c).
 */
#include "bwrap.h"
#include "init-proto.h"

#include <sys/sysmacros.h>

/* What the init does once the sandbox is built: exec CMD, or serve a
 * session (CMD NULL) with IDLE_MS as its idle timeout. */
typedef struct target {
	const char *const *cmd;
	uint64_t idle_ms;
} target;

#define PUSH(...) do { if (strv_push(argv, __VA_ARGS__) < 0) goto nomem; } while (0)
#define PUSHF(...) do { if (strv_pushf(argv, __VA_ARGS__) < 0) goto nomem; } while (0)
/* The shm of a dev mount ("dev PATH"): PATH/shm, unless the policy mounts
 * its own there ("tmpfs /dev/shm size=SIZE"). */
#define DEV_SHM_SIZE (64ULL << 20)

/* The capabilities the init holds for its mount steps alone
 * (lib/init-proto.h, --make-cover and --overlay): CAP_SYS_ADMIN to mount,
 * CAP_SETPCAP to empty the bounding set afterwards, and for the overlay the
 * file capabilities of overlayfs's copy-up, which runs with the mounter's
 * credentials. bwrap grants them in the sandbox's user namespace (userns
 * mode) or keeps them of root's (root mode); the init drops them before
 * anything untrusted runs and verifies every set empty. */
static const char *const overlay_caps[] = {
	"CAP_SYS_ADMIN", "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_FSETID", "CAP_SETPCAP",
};
static const char *const cover_caps[] = { "CAP_SYS_ADMIN", "CAP_SETPCAP" };

/* The cover: the plan's /proc cover of every proc mount, and the host
 * identity files of the view. The init makes it (helper/init-cover.c) with
 * the sandbox's own /dev/null, which only a "dev /dev" mount makes: bwrap
 * reads the whole mount table after each bind, and forty of them cost more
 * than the rest of a sandbox's start. A view without that /dev is covered
 * by bwrap, with the host's /dev/null: slower, the same mounts, the same
 * audit. */
static bool init_covers(const plan *pl)
{
	const proc_facts *f = &pl->proc;
	bool proc, dev;

	policy_view_mounts(pl->p, &proc, &dev);
	return dev && (pl->masks.n || (proc && (f->n_ro || f->n_mask_files || f->n_mask_dirs)));
}

/* Read-only rules inside a writable bind (plan_bind.reprotect): made by the
 * init (lib/init-proto.h, --reprotect), never given to bwrap, which would
 * resolve them by path through a directory another sandbox of the same
 * workspace can change during setup, and create what is missing there on
 * the host (docs/ARCHITECTURE.md, "Read-only rules inside a writable
 * bind"). */
static bool init_reprotects(const plan *pl)
{
	for (size_t i = 0; i < pl->n_binds; i++)
		if (pl->binds[i].reprotect)
			return true;
	return false;
}

static int segment_step_caps(const plan *pl, strv *argv)
{
	const char *const *caps = pl->overlay_size ? overlay_caps : cover_caps;
	size_t n = pl->overlay_size ? sizeof(overlay_caps) / sizeof(overlay_caps[0]) :
	           init_covers(pl) || init_reprotects(pl) ?
	           sizeof(cover_caps) / sizeof(cover_caps[0]) : 0;

	for (size_t i = 0; i < n; i++) {
		PUSH("--cap-add"); PUSH(caps[i]);
	}
	return 0;
nomem:
	return -ENOMEM;
}

static int segment_namespaces(const plan *pl, strv *argv)
{
	const osb_policy *p = pl->p;

	/* The init is the sandbox's pid 1 (bwrap's own reaper would run as
	 * host root in root mode): it reaps, and a session's broker must outlive
	 * each command, so no command can kill or stop it. */
	PUSH("--as-pid-1");
	if (pl->userns) {
		PUSH("--unshare-user");
		if (pl->feat.disable_userns)
			PUSH("--disable-userns");
		PUSH("--uid"); PUSHF("%u", pl->uid);
		PUSH("--gid"); PUSHF("%u", pl->gid);
	} else {
		/* Root mode: bwrap run by root keeps every capability unless told
		 * otherwise. The init needs only these: to drop the bounding set
		 * and switch to the sandbox's ids, and to look at every bind it
		 * audits (a 0700 workspace of the sandbox's own, before the
		 * switch). It verifies all sets empty before the command runs. */
		PUSH("--cap-drop"); PUSH("ALL");
		PUSH("--cap-add"); PUSH("CAP_SETUID");
		PUSH("--cap-add"); PUSH("CAP_SETGID");
		PUSH("--cap-add"); PUSH("CAP_SETPCAP");
		PUSH("--cap-add"); PUSH("CAP_DAC_READ_SEARCH");
	}
	if (segment_step_caps(pl, argv) < 0)
		goto nomem;
	PUSH("--unshare-pid");
	PUSH("--unshare-ipc");
	PUSH("--unshare-uts");
	if (p->net != NET_HOST)   /* none, and allow: only the proxy leads out */
		PUSH("--unshare-net");
	PUSH("--hostname"); PUSH(p->hostname ? p->hostname : "sandbox");
	PUSH("--die-with-parent");
	PUSH("--new-session");
	PUSH("--json-status-fd"); PUSHF("%d", PFD_STATUS);
	return 0;
nomem:
	return -ENOMEM;
}

/* Cover what a fresh procfs exposes of the host, as the OCI runtimes'
 * defaults do (bwrap 0.8 covers some of it only in some modes), where the
 * init does not (init_covers): PROC/X read-only for each X of the plan's
 * "ro" list (a bind of the host's /proc/X, whose entries show the caller's
 * own namespaces as the sandbox's do), /dev/null over each masked file, an
 * empty read-only tmpfs over each masked directory. Then the files the plan
 * synthesizes in it (a loadavg of the sandbox's own), which bwrap, having
 * their data, always makes. The init audits the result (--proc-ro,
 * --proc-masked, --synthesized). */
static int segment_proc_cover(const plan *pl, const char *proc, strv *argv)
{
	const proc_facts *f = &pl->proc;
	bool bwrap_covers = !init_covers(pl);

	for (size_t i = 0; bwrap_covers && i < f->n_ro; i++) {
		PUSH("--ro-bind"); PUSHF("/proc/%s", f->ro[i]); PUSHF("%s/%s", proc, f->ro[i]);
	}
	for (size_t i = 0; bwrap_covers && i < f->n_mask_files; i++) {
		PUSH("--ro-bind"); PUSH("/dev/null"); PUSHF("%s/%s", proc, f->mask_files[i]);
	}
	for (size_t i = 0; bwrap_covers && i < f->n_mask_dirs; i++) {
		PUSH("--perms"); PUSH("0555");
		PUSH("--size"); PUSH("4096");
		PUSH("--tmpfs"); PUSHF("%s/%s", proc, f->mask_dirs[i]);
		PUSH("--remount-ro"); PUSHF("%s/%s", proc, f->mask_dirs[i]);
	}
	for (size_t i = 0; i < pl->n_data; i++) {
		if (!pl->data[i].in_proc || !dest_within(pl->data[i].dest, proc))
			continue;
		PUSH("--perms"); PUSH("0444");
		PUSH("--ro-bind-data"); PUSHF("%zu", PFD_FIRST_BIND + pl->n_binds + i);
		PUSH(pl->data[i].dest);
	}
	return 0;
nomem:
	return -ENOMEM;
}

/* Mounts of one kind, parents before children (shorter paths first). */
static int cmp_mount_path(const void *a, const void *b)
{
	const pol_mount *x = *(pol_mount *const *)a, *y = *(pol_mount *const *)b;
	size_t lx = strlen(x->path), ly = strlen(y->path);

	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* Does P mount something at DIR followed by SUFFIX ("/dev" + "/shm")? */
static bool policy_has_mount_at(const osb_policy *p, const char *dir, const char *suffix)
{
	size_t n = strlen(dir);

	for (size_t i = 0; i < p->n_mounts; i++)
		if (strncmp(p->mounts[i].path, dir, n) == 0 &&
		    strcmp(p->mounts[i].path + n, suffix) == 0)
			return true;
	return false;
}

/* Each dev mount read-only, last: only its device nodes (whose writes are
 * not file system writes), its pts and its sized shm stay usable, and the
 * sandbox cannot fill host memory through an unsized /dev. */
static int segment_dev_ro(const plan *pl, strv *argv)
{
	const osb_policy *p = pl->p;

	for (size_t i = 0; i < p->n_mounts; i++)
		if (p->mounts[i].kind == MNT_DEV) {
			PUSH("--remount-ro"); PUSH(p->mounts[i].path);
		}
	return 0;
nomem:
	return -ENOMEM;
}

static int segment_mounts(const plan *pl, strv *argv, bool hides)
{
	const osb_policy *p = pl->p;
	const pol_mount **m = NULL;
	size_t n = 0;

	if (p->n_mounts) {
		m = calloc(p->n_mounts, sizeof(*m));
		if (!m)
			return -ENOMEM;
	}
	for (size_t i = 0; i < p->n_mounts; i++) {
		enum mount_kind k = p->mounts[i].kind;

		if ((k == MNT_HIDE) == hides && k != MNT_RO_BIND && k != MNT_SYMLINK)
			m[n++] = &p->mounts[i];
	}
	if (n > 1)   /* qsort(NULL, 0, ...) is undefined: m is NULL without mounts */
		qsort(m, n, sizeof(*m), cmp_mount_path);
	for (size_t i = 0; i < n; i++) {
		switch (m[i]->kind) {
		case MNT_TMPFS:
			/* Like a real /tmp: in root mode the tmpfs belongs to root and
			 * the sandbox's uid must still be able to use it. */
			PUSH("--perms"); PUSH("1777");
			if (m[i]->size) {
				PUSH("--size");
				PUSHF("%llu", (unsigned long long)m[i]->size);
			}
			PUSH("--tmpfs"); PUSH(m[i]->path);
			break;
		case MNT_DEV:
			PUSH("--dev"); PUSH(m[i]->path);
			/* bwrap 0.8 cannot size its --dev tmpfs: the sandbox gets a
			 * sized shm of its own here, and the rest of the dev mount is
			 * made read-only once everything is mounted (segment_dev_ro). */
			if (!policy_has_mount_at(p, m[i]->path, "/shm")) {
				PUSH("--perms"); PUSH("1777");
				PUSH("--size"); PUSHF("%llu", (unsigned long long)DEV_SHM_SIZE);
				PUSH("--tmpfs"); PUSHF("%s/shm", m[i]->path);
			}
			break;
		case MNT_PROC:
			PUSH("--proc"); PUSH(m[i]->path);
			if (segment_proc_cover(pl, m[i]->path, argv) < 0)
				goto nomem;
			break;
		case MNT_HIDE:
			PUSH("--perms"); PUSH("0555");
			PUSH("--size"); PUSH("4096");
			PUSH("--tmpfs"); PUSH(m[i]->path);
			PUSH("--remount-ro"); PUSH(m[i]->path);
			break;
		case MNT_RO_BIND:
		case MNT_SYMLINK:
			break;
		}
	}
	free(m);
	return 0;
nomem:
	free(m);
	return -ENOMEM;
}

/* bwrap creates the missing parents of a bind destination with mode 0700,
 * owned by whoever runs bwrap: in root mode the sandbox's uid could not
 * reach its own workspace. Create them 0755 first — only inside a tmpfs
 * bwrap has just made (a policy tmpfs, or its root under "root none"),
 * never in a directory an earlier run could write. */
static int segment_parents(const plan *pl, const char *dest, strv *argv, strv *made)
{
	char *copy = strdup(dest);

	if (!copy)
		return -ENOMEM;
	for (char *sl = strchr(copy + 1, '/'); sl; sl = strchr(sl + 1, '/')) {
		bool seen = false;

		*sl = '\0';
		for (size_t i = 0; i < made->n && !seen; i++)
			seen = strcmp(made->v[i], copy) == 0;
		if (!seen && plan_place(pl, copy, false) == PLACE_FRESH && !plan_is_mount_point(pl, copy)) {
			if (strv_push(made, copy) < 0 || strv_push(argv, "--perms") < 0 ||
			    strv_push(argv, "0755") < 0 || strv_push(argv, "--dir") < 0 ||
			    strv_push(argv, copy) < 0) {
				free(copy);
				return -ENOMEM;
			}
		}
		*sl = '/';
	}
	free(copy);
	return 0;
}

/* SEG_LAYER: a persisted overlay layer (lib/layer.h), bound after the
 * hides into a directory bwrap has just made, for the init alone.
 * SEG_REPROTECT is the init's (init_reprotects): no bwrap option. */
enum bind_segment { SEG_RO, SEG_RW, SEG_REPROTECT, SEG_LAYER };

static enum bind_segment segment_of(const plan_bind *b)
{
	return b->layer ? SEG_LAYER : b->reprotect ? SEG_REPROTECT : b->writable ? SEG_RW : SEG_RO;
}

static int segment_binds(const plan *pl, strv *argv, enum bind_segment seg)
{
	bool writable = seg == SEG_RW || seg == SEG_LAYER;

	strv made = { 0 };

	for (size_t i = 0; i < pl->n_binds; i++) {
		const plan_bind *b = &pl->binds[i];

		if (segment_of(b) != seg)
			continue;
		if (segment_parents(pl, b->dest, argv, &made) < 0)
			goto nomem;
		PUSH(writable ? "--bind-fd" : "--ro-bind-fd");
		PUSHF("%d", b->target);
		PUSH(b->dest);
	}
	strv_free(&made);
	return 0;
nomem:
	strv_free(&made);
	return -ENOMEM;
}

/* What the init's mount audit and Landlock need to know: every place the
 * plan makes writable (ro binds and hides are not), and the dev mounts whose
 * device nodes bwrap creates. */
static int segment_guards(const plan *pl, strv *argv)
{
	const osb_policy *p = pl->p;
	static const char *const ll[] = { [LL_AUTO] = "auto", [LL_REQUIRED] = "required",
	                                  [LL_OFF] = "off" };
	strv rw = { 0 }, dev = { 0 };
	int r = -ENOMEM;

	for (size_t i = 0; i < pl->n_binds; i++)
		if (pl->binds[i].writable && !pl->binds[i].layer && strv_push(&rw, pl->binds[i].dest) < 0)
			goto out;
	for (size_t i = 0; i < p->n_mounts; i++) {
		const pol_mount *m = &p->mounts[i];

		if ((m->kind == MNT_TMPFS || m->kind == MNT_PROC) && strv_push(&rw, m->path) < 0)
			goto out;
		if (m->kind == MNT_DEV && strv_push(&dev, m->path) < 0)
			goto out;
		/* The sized shm segment_mounts made in it. */
		if (m->kind == MNT_DEV && !policy_has_mount_at(p, m->path, "/shm") &&
		    strv_pushf(&rw, "%s/shm", m->path) < 0)
			goto out;
	}
	PUSH("--audit-mounts");
	for (size_t i = 0; i < rw.n; i++) {
		PUSH("--writable"); PUSH(rw.v[i]);
	}
	/* Each bind must sit at its destination with the inode verified here:
	 * a destination redirected during setup (a symlink swapped into its
	 * path) fails the audit. The read-only rules inside a writable bind are
	 * the init's to make, on that inode, before the audit. */
	for (size_t i = 0; i < pl->n_binds; i++) {
		const plan_bind *b = &pl->binds[i];

		PUSH(b->reprotect ? "--reprotect" : "--expect-bind");
		PUSHF("%u:%u:%llu:%s", major(b->dev), minor(b->dev), (unsigned long long)b->ino,
		      b->dest);
	}
	for (size_t i = 0; i < dev.n; i++) {
		PUSH("--dev-mount"); PUSH(dev.v[i]);
	}
	if (pl->overlay_size) {
		PUSH("--overlay");
		PUSHF("%llu:%s:%s", (unsigned long long)pl->overlay_size,
		      pl->userns ? "user" : "trusted", pl->ws_dest);
	}
	/* The persisted layer's hidden bind: the upper layer, expected by the
	 * first audit only (lib/init-proto.h, --overlay-layer). */
	for (size_t i = 0; i < pl->n_binds; i++)
		if (pl->binds[i].layer) {
			PUSH("--overlay-layer"); PUSH(pl->binds[i].dest);
		}
	PUSH("--landlock"); PUSH(ll[p->landlock]);
	for (size_t i = 0; i < rw.n; i++) {
		PUSH("--landlock-rw"); PUSH(rw.v[i]);
	}
	if (pl->overlay_size) {
		PUSH("--landlock-rw"); PUSH(pl->ws_dest);
	}
	for (size_t i = 0; i < dev.n; i++) {
		PUSH("--landlock-rw"); PUSH(dev.v[i]);
	}
	r = 0;
	goto out;
nomem:
	r = -ENOMEM;
out:
	strv_free(&rw);
	strv_free(&dev);
	return r;
}

/* The cover, made by the init where init_covers says so (PROC/X bound
 * read-only onto itself, /dev/null over each masked file, an empty
 * read-only tmpfs over each masked directory, /dev/null over each masked
 * identity file), and in every case the init's audit of it and of every
 * synthesized file. */
static int segment_proc_audit(const plan *pl, strv *argv)
{
	const osb_policy *p = pl->p;
	const proc_facts *f = &pl->proc;

	if (init_covers(pl))
		PUSH("--make-cover");

	for (size_t m = 0; m < p->n_mounts; m++) {
		const char *proc = p->mounts[m].path;

		if (p->mounts[m].kind != MNT_PROC)
			continue;
		for (size_t i = 0; i < f->n_ro; i++) {
			PUSH("--proc-ro"); PUSHF("%s/%s", proc, f->ro[i]);
		}
		for (size_t i = 0; i < f->n_mask_files; i++) {
			PUSH("--proc-masked"); PUSHF("%s/%s", proc, f->mask_files[i]);
		}
		for (size_t i = 0; i < f->n_mask_dirs; i++) {
			PUSH("--proc-masked"); PUSHF("%s/%s", proc, f->mask_dirs[i]);
		}
	}
	for (size_t i = 0; i < pl->masks.n; i++) {
		PUSH("--masked"); PUSH(pl->masks.v[i]);
	}
	for (size_t i = 0; i < pl->n_data; i++) {
		PUSH("--synthesized"); PUSH(pl->data[i].dest);
	}
	return 0;
nomem:
	return -ENOMEM;
}

static int segment_limits(const plan *pl, strv *argv)
{
	const osb_policy *p = pl->p;
	static const struct { enum limit_id id; const char *name; } rl[] = {
		{ LIM_CPUTIME, "cpu" }, { LIM_AS, "as" }, { LIM_NOFILE, "nofile" },
		{ LIM_FSIZE, "fsize" }, { LIM_NPROC, "nproc" },
	};

	for (size_t i = 0; i < sizeof(rl) / sizeof(rl[0]); i++) {
		if (!p->limit_set[rl[i].id].set)
			continue;
		if (p->limits[rl[i].id] == UINT64_MAX)
			PUSHF("--rlimit=%s=unlimited", rl[i].name);
		else
			PUSHF("--rlimit=%s=%llu", rl[i].name, (unsigned long long)p->limits[rl[i].id]);
	}
	return 0;
nomem:
	return -ENOMEM;
}

/* The identity the sandbox claims, and nothing of the host's that
 * contradicts it: the synthesized files over (or instead of) the host's,
 * /dev/null over the host identity files the view shows (made by the init
 * where init_covers says so). */
static int segment_identity(const plan *pl, strv *argv)
{
	PUSH("--perms"); PUSH("0644");
	PUSH("--ro-bind-data"); PUSHF("%d", PFD_PASSWD); PUSH("/etc/passwd");
	PUSH("--perms"); PUSH("0644");
	PUSH("--ro-bind-data"); PUSHF("%d", PFD_GROUP); PUSH("/etc/group");
	for (size_t i = 0; i < pl->n_data; i++) {
		if (pl->data[i].in_proc)
			continue;
		PUSH("--perms"); PUSH("0644");
		PUSH("--ro-bind-data"); PUSHF("%zu", PFD_FIRST_BIND + pl->n_binds + i);
		PUSH(pl->data[i].dest);
	}
	for (size_t i = 0, n = init_covers(pl) ? 0 : pl->masks.n; i < n; i++) {
		PUSH("--ro-bind"); PUSH("/dev/null"); PUSH(pl->masks.v[i]);
	}
	return 0;
nomem:
	return -ENOMEM;
}

/* Symlinks last: no mount is ever made through one (the plan refuses a
 * destination beneath a link), each in a directory bwrap made fresh. One in
 * the host's view is the host's own, identical link (the plan checked):
 * there is nothing to make. */
static int segment_symlinks(const plan *pl, strv *argv)
{
	const osb_policy *p = pl->p;
	strv made = { 0 };

	for (size_t i = 0; i < p->n_mounts; i++) {
		const pol_mount *m = &p->mounts[i];

		if (m->kind != MNT_SYMLINK || plan_place(pl, m->path, true) == PLACE_HOST)
			continue;
		if (segment_parents(pl, m->path, argv, &made) < 0)
			goto nomem;
		PUSH("--symlink"); PUSH(m->target); PUSH(m->path);
	}
	strv_free(&made);
	return 0;
nomem:
	strv_free(&made);
	return -ENOMEM;
}

size_t bwrap_watch_full(const osb_policy *p, const char *paths[INIT_MAX_WATCH])
{
	size_t n = 0;

	for (size_t i = 0; i < p->n_mounts && n < INIT_MAX_WATCH; i++)
		if (p->mounts[i].kind == MNT_TMPFS && p->mounts[i].size)
			paths[n++] = p->mounts[i].path;
	return n;
}

static int segment_init(const plan *pl, const target *t, strv *argv)
{
	const osb_policy *p = pl->p;
	const char *watch[INIT_MAX_WATCH];

	if (segment_identity(pl, argv) < 0 || segment_symlinks(pl, argv) < 0 ||
	    segment_dev_ro(pl, argv) < 0)
		goto nomem;
	/* Without the host root, bwrap's own root is a writable tmpfs: make it
	 * read-only once everything is mounted on it. */
	if (p->root == ROOT_NONE) {
		PUSH("--remount-ro"); PUSH("/");
	}
	/* The working directory is entered by the init once it has the
	 * sandbox's ids: bwrap, capabilities dropped, may not enter a 0700
	 * workspace of the sandbox's own. */
	PUSH("--chdir"); PUSH("/");
	PUSH("--");
	PUSHF("/proc/self/fd/%d", PFD_INIT_EXE);
	PUSH("--error-fd"); PUSHF("%d", PFD_INIT_ERR);
	PUSH("--proto"); PUSHF("%d", INIT_PROTO_VERSION);   /* lib/init-proto.h: checked first */
	PUSH("--stderr-fd"); PUSHF("%d", PFD_CMD_STDERR);
	if (pl->seccomp_fd >= 0) {
		PUSH("--seccomp-fd"); PUSHF("%d", PFD_SECCOMP);
	}
	if (segment_guards(pl, argv) < 0 || segment_proc_audit(pl, argv) < 0 ||
	    segment_limits(pl, argv) < 0)
		goto nomem;
	if (pl->userns) {
		PUSH("--expect-uid"); PUSHF("%u", pl->uid);
		PUSH("--expect-gid"); PUSHF("%u", pl->gid);
	} else {
		PUSHF("--switch-ids=%u:%u", pl->host.uid, pl->host.gid);
	}
	PUSH("--chdir"); PUSH(pl->cwd);
	if (pl->net.port)   /* "network allow": the relay (lib/init-proto.h) */
		PUSHF("--net-relay=%d:%u", plan_net_fd(pl), pl->net.port);
	/* The sized tmpfs mounts, for the result's tmpfs_full. */
	for (size_t i = 0, n = bwrap_watch_full(pl->p, watch); i < n; i++) {
		PUSH("--watch-full"); PUSH(watch[i]);
	}
	if (!t->cmd) {
		/* The session socket follows the bind sources and the
		 * synthesized files in the fd table. */
		PUSHF("--session-fd=%d", plan_next_fd(pl));
		if (t->idle_ms)
			PUSHF("--idle-ms=%llu", (unsigned long long)t->idle_ms);
		return 0;
	}
	PUSH("--env-fd"); PUSHF("%d", PFD_ENV);
	/* The wall limit, kept inside as well (lib/init-proto.h). */
	if (pl->wall_ms && pl->wall_ms != UINT64_MAX)
		PUSHF("--deadline-ms=%llu", (unsigned long long)pl->wall_ms);
	PUSH("--");
	for (size_t i = 0; t->cmd[i]; i++)
		PUSH(t->cmd[i]);
	return 0;
nomem:
	return -ENOMEM;
}

static int render(const plan *pl, const target *t, strv *argv, osb_error *err)
{
	if (strv_push(argv, pl->bwrap) < 0 ||
	    segment_namespaces(pl, argv) < 0 ||
	    (pl->p->root == ROOT_HOST_RO && (strv_push(argv, "--ro-bind") < 0 ||
	                                     strv_push(argv, "/") < 0 ||
	                                     strv_push(argv, "/") < 0)) ||
	    segment_mounts(pl, argv, false) < 0 ||
	    segment_binds(pl, argv, SEG_RO) < 0 ||
	    segment_binds(pl, argv, SEG_RW) < 0 ||
	    segment_mounts(pl, argv, true) < 0 ||
	    segment_binds(pl, argv, SEG_LAYER) < 0 ||
	    segment_init(pl, t, argv) < 0) {
		strv_free(argv);
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "plan",
		                   "out of memory building the bwrap argv");
	}
	return 0;
}

int bwrap_argv_run(const plan *pl, const char *const *cmd, strv *argv, osb_error *err)
{
	size_t n_cmd = 0;
	int r;

	if (!cmd || !cmd[0] || !cmd[0][0])
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "plan", "no command to run");
	if ((r = render(pl, &(target){ cmd, 0 }, argv, err)) < 0)
		return r;
	/* bwrap refuses more than BWRAP_MAX_ARGS arguments of its own: say so
	 * before starting it, with the share left to the command. */
	while (cmd[n_cmd])
		n_cmd++;
	if (argv->n - 1 > BWRAP_MAX_ARGS) {
		size_t ours = argv->n - 1 - n_cmd;

		strv_free(argv);
		return osb_err_set(err, OSB_E_USAGE, E2BIG, "usage",
		                   "the command has %zu arguments; with the sandbox's %zu, bwrap would "
		                   "get more than its limit of %d: at most %zu for the command under "
		                   "this policy", n_cmd, ours,
		                   BWRAP_MAX_ARGS, ours < BWRAP_MAX_ARGS ? BWRAP_MAX_ARGS - ours : 0);
	}
	return 0;
}

int bwrap_argv_session(const plan *pl, uint64_t idle_ms, strv *argv, osb_error *err)
{
	return render(pl, &(target){ NULL, idle_ms }, argv, err);
}

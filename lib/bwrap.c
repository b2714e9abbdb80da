/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* bwrap.c — find bwrap, detect what it supports, and render a launch plan as
 * its argv.
 *
 * Features are read from `bwrap --help`, never inferred from the version:
 * distributions backport options (Debian's 0.8.0 has --bind-fd). The argv is
 * emitted in a fixed segment order — namespaces and process options, root,
 * tmpfs/dev/proc, read-only binds, workspace, hides, identity files, then the
 * init and the command — so that the file order of a policy can never let a
 * later tmpfs hide an earlier bind.
 */
#include "bwrap.h"
#include "init-proto.h"
#include "proc.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

static int find_on_path(const char *name, char **out)
{
	const char *path = getenv("PATH");
	char *copy, *save = NULL;

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		char *cand = NULL;

		if (dir[0] != '/')
			continue;   /* a relative PATH entry is never trusted */
		if (asprintf(&cand, "%s/%s", dir, name) < 0) {
			free(copy);
			return -ENOMEM;
		}
		if (access(cand, X_OK) == 0) {
			free(copy);
			*out = cand;
			return 0;
		}
		free(cand);
	}
	free(copy);
	return -ENOENT;
}

int bwrap_locate(char **path, osb_error *err)
{
	const char *fixed = OSB_BWRAP_PATH;
	const char *env = getenv("OSB_ISOLATE_BWRAP");
	int r;

	if (env && *env)
		fixed = env;
	if (fixed && *fixed) {
		if (access(fixed, X_OK) < 0)
			return osb_err_set(err, OSB_E_HOST, errno, "probe",
			                   "bwrap at %s is not executable: %s; install the Debian package "
			                   "bubblewrap or fix the path", fixed, strerror(errno));
		*path = strdup(fixed);
		return *path ? 0 : osb_err_set(err, OSB_E_NOMEM, ENOMEM, "probe", "out of memory");
	}
	r = find_on_path("bwrap", path);
	if (r == -ENOENT)
		return osb_err_set(err, OSB_E_HOST, ENOENT, "probe",
		                   "bwrap not found on PATH; install it (apt-get install bubblewrap)");
	if (r < 0)
		return osb_err_set(err, OSB_E_NOMEM, -r, "probe", "out of memory");
	return 0;
}

static bool help_has(const char *text, const char *opt)
{
	size_t n = strlen(opt);

	/* An option is listed as "    --name ARG  description": match the name
	 * followed by a space or the end of the line, never a longer option. */
	for (const char *s = strstr(text, opt); s; s = strstr(s + 1, opt)) {
		char after = s[n];
		bool start = s == text || s[-1] == ' ' || s[-1] == '\n';

		if (start && (after == ' ' || after == '\n' || after == '\0'))
			return true;
	}
	return false;
}

bool bwrap_help_lists(const char *help, const char *opt)
{
	return help_has(help, opt);
}

void bwrap_parse_help(const char *text, bwrap_features *f)
{
	memset(f, 0, sizeof(*f));
	f->bind_fd = help_has(text, "--bind-fd") && help_has(text, "--ro-bind-fd");
	f->disable_userns = help_has(text, "--disable-userns");
	f->json_status_fd = help_has(text, "--json-status-fd");
	f->die_with_parent = help_has(text, "--die-with-parent");
	f->new_session = help_has(text, "--new-session");
	f->remount_ro = help_has(text, "--remount-ro");
}

/* The answer depends only on the binary: cache it per (path, inode, mtime). */
static pthread_mutex_t feat_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	char path[4096];
	dev_t dev; ino_t ino; struct timespec mtime;
	bwrap_features f;
	bool valid;
} feat_cache;

int bwrap_probe_features(const char *bwrap, bwrap_features *f, osb_error *err)
{
	const char *argv[] = { bwrap, "--help", NULL };
	struct stat st;
	char *out = NULL;
	int r;

	if (stat(bwrap, &st) < 0)
		return osb_err_set(err, OSB_E_HOST, errno, "probe", "%s: %s", bwrap, strerror(errno));
	if (st.st_mode & (S_ISUID | S_ISGID))
		return osb_err_set(err, OSB_E_HOST, 0, "probe",
		                   "%s is setuid or setgid; osb-isolate only runs an unprivileged "
		                   "bwrap (install Debian's bubblewrap, which is not setuid)", bwrap);
	pthread_mutex_lock(&feat_lock);
	if (feat_cache.valid && strcmp(feat_cache.path, bwrap) == 0 &&
	    feat_cache.dev == st.st_dev && feat_cache.ino == st.st_ino &&
	    feat_cache.mtime.tv_sec == st.st_mtim.tv_sec &&
	    feat_cache.mtime.tv_nsec == st.st_mtim.tv_nsec) {
		*f = feat_cache.f;
		pthread_mutex_unlock(&feat_lock);
		return 0;
	}
	pthread_mutex_unlock(&feat_lock);

	r = spawn_capture(argv, 1 << 20, &out, err);
	if (r < 0)
		return r;
	bwrap_parse_help(out, f);
	free(out);
	if (!f->json_status_fd || !f->die_with_parent || !f->new_session)
		return osb_err_set(err, OSB_E_HOST, 0, "probe",
		                   "%s lacks --json-status-fd, --die-with-parent or --new-session; "
		                   "install bubblewrap 0.8 or later", bwrap);

	pthread_mutex_lock(&feat_lock);
	if (strlen(bwrap) < sizeof(feat_cache.path)) {
		snprintf(feat_cache.path, sizeof(feat_cache.path), "%s", bwrap);
		feat_cache.dev = st.st_dev;
		feat_cache.ino = st.st_ino;
		feat_cache.mtime = st.st_mtim;
		feat_cache.f = *f;
		feat_cache.valid = true;
	}
	pthread_mutex_unlock(&feat_lock);
	return 0;
}

bool dest_within(const char *a, const char *b)
{
	size_t n = strlen(b);

	if (strcmp(b, "/") == 0)
		return true;
	return strncmp(a, b, n) == 0 && (a[n] == '\0' || a[n] == '/');
}

/* ---- argv rendering ------------------------------------------------------ */

#define PUSH(...) do { if (strv_push(argv, __VA_ARGS__) < 0) goto nomem; } while (0)
#define PUSHF(...) do { if (strv_pushf(argv, __VA_ARGS__) < 0) goto nomem; } while (0)

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
	PUSH("--unshare-pid");
	PUSH("--unshare-ipc");
	PUSH("--unshare-uts");
	if (p->net == NET_NONE)
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
 * defaults do (bwrap 0.8 covers some of it only in some modes): PROC/X
 * read-only for each X of the plan's "ro" list (a bind of the host's
 * /proc/X, whose entries show the caller's own namespaces as the
 * sandbox's do), /dev/null over each masked file, an empty read-only tmpfs
 * over each masked directory. The init audits the result (--proc-ro,
 * --proc-masked). */
static int segment_proc_cover(const plan *pl, const char *proc, strv *argv)
{
	const proc_facts *f = &pl->proc;

	for (size_t i = 0; i < f->ro.n; i++) {
		PUSH("--ro-bind"); PUSHF("/proc/%s", f->ro.v[i]); PUSHF("%s/%s", proc, f->ro.v[i]);
	}
	for (size_t i = 0; i < f->mask_files.n; i++) {
		PUSH("--ro-bind"); PUSH("/dev/null"); PUSHF("%s/%s", proc, f->mask_files.v[i]);
	}
	for (size_t i = 0; i < f->mask_dirs.n; i++) {
		PUSH("--perms"); PUSH("0555");
		PUSH("--size"); PUSH("4096");
		PUSH("--tmpfs"); PUSHF("%s/%s", proc, f->mask_dirs.v[i]);
		PUSH("--remount-ro"); PUSHF("%s/%s", proc, f->mask_dirs.v[i]);
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
			PUSH("--tmpfs"); PUSH(m[i]->path);
			break;
		case MNT_DEV:
			PUSH("--dev"); PUSH(m[i]->path);
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

/* What the plan puts at PATH: the deepest mount at or above it (INCLUSIVE:
 * a mount exactly at PATH counts) decides. A policy tmpfs, or bwrap's own
 * root tmpfs under "root none", is fresh; the host root or a bind is the
 * host's; dev, proc and hide mounts are neither. */
static enum plan_place place_of(const plan *pl, const char *path, bool inclusive)
{
	const osb_policy *p = pl->p;
	enum plan_place what = p->root == ROOT_NONE ? PLACE_FRESH : PLACE_HOST;
	size_t best = 0;

	for (size_t i = 0; i < p->n_mounts; i++) {
		const pol_mount *m = &p->mounts[i];
		size_t len = strlen(m->path);

		if (m->kind == MNT_SYMLINK || !dest_within(path, m->path) ||
		    (!inclusive && strcmp(path, m->path) == 0) || len <= best)
			continue;
		best = len;
		what = m->kind == MNT_TMPFS ? PLACE_FRESH : m->kind == MNT_RO_BIND ? PLACE_HOST
		                                                                   : PLACE_OTHER;
	}
	for (size_t i = 0; i < pl->n_binds; i++) {
		const char *d = pl->binds[i].dest;
		size_t len = strlen(d);

		if (dest_within(path, d) && (inclusive || strcmp(path, d) != 0) && len > best) {
			best = len;
			what = PLACE_HOST;
		}
	}
	return what;
}

enum plan_place plan_place_of(const plan *pl, const char *path)
{
	return place_of(pl, path, true);
}

bool plan_host_parent(const plan *pl, const char *path)
{
	return place_of(pl, path, true) == PLACE_HOST;
}

static bool is_mount_point(const plan *pl, const char *path)
{
	for (size_t i = 0; i < pl->p->n_mounts; i++)
		if (pl->p->mounts[i].kind != MNT_SYMLINK && strcmp(pl->p->mounts[i].path, path) == 0)
			return true;
	for (size_t i = 0; i < pl->n_binds; i++)
		if (strcmp(pl->binds[i].dest, path) == 0)
			return true;
	return false;
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
		if (!seen && place_of(pl, copy, false) == PLACE_FRESH && !is_mount_point(pl, copy)) {
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

enum bind_segment { SEG_RO, SEG_RW, SEG_REPROTECT };

static enum bind_segment segment_of(const plan_bind *b)
{
	return b->reprotect ? SEG_REPROTECT : b->writable ? SEG_RW : SEG_RO;
}

static int segment_binds(const plan *pl, strv *argv, enum bind_segment seg)
{
	bool writable = seg == SEG_RW;

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
		if (pl->binds[i].writable && strv_push(&rw, pl->binds[i].dest) < 0)
			goto out;
	for (size_t i = 0; i < p->n_mounts; i++) {
		const pol_mount *m = &p->mounts[i];

		if ((m->kind == MNT_TMPFS || m->kind == MNT_PROC) && strv_push(&rw, m->path) < 0)
			goto out;
		if (m->kind == MNT_DEV && strv_push(&dev, m->path) < 0)
			goto out;
	}
	PUSH("--audit-mounts");
	for (size_t i = 0; i < rw.n; i++) {
		PUSH("--writable"); PUSH(rw.v[i]);
	}
	/* Each bind must sit at its destination with the inode verified here:
	 * a destination redirected during setup (a symlink swapped into its
	 * path) fails the audit. */
	for (size_t i = 0; i < pl->n_binds; i++) {
		const plan_bind *b = &pl->binds[i];

		PUSH("--expect-bind");
		PUSHF("%u:%u:%llu:%s", major(b->dev), minor(b->dev), (unsigned long long)b->ino,
		      b->dest);
	}
	for (size_t i = 0; i < dev.n; i++) {
		PUSH("--dev-mount"); PUSH(dev.v[i]);
	}
	PUSH("--landlock"); PUSH(ll[p->landlock]);
	for (size_t i = 0; i < rw.n; i++) {
		PUSH("--landlock-rw"); PUSH(rw.v[i]);
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

/* The init's audit of the /proc cover segment_proc_cover made, of the
 * masked identity files and of every synthesized file. */
static int segment_proc_audit(const plan *pl, strv *argv)
{
	const osb_policy *p = pl->p;
	const proc_facts *f = &pl->proc;

	for (size_t m = 0; m < p->n_mounts; m++) {
		const char *proc = p->mounts[m].path;

		if (p->mounts[m].kind != MNT_PROC)
			continue;
		for (size_t i = 0; i < f->ro.n; i++) {
			PUSH("--proc-ro"); PUSHF("%s/%s", proc, f->ro.v[i]);
		}
		for (size_t i = 0; i < f->mask_files.n; i++) {
			PUSH("--proc-masked"); PUSHF("%s/%s", proc, f->mask_files.v[i]);
		}
		for (size_t i = 0; i < f->mask_dirs.n; i++) {
			PUSH("--proc-masked"); PUSHF("%s/%s", proc, f->mask_dirs.v[i]);
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
		{ LIM_CPU, "cpu" }, { LIM_AS, "as" }, { LIM_NOFILE, "nofile" },
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
 * /dev/null over the host identity files the view shows. */
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
	for (size_t i = 0; i < pl->masks.n; i++) {
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

		if (m->kind != MNT_SYMLINK || place_of(pl, m->path, true) == PLACE_HOST)
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

static int segment_init(const plan *pl, strv *argv)
{
	const osb_policy *p = pl->p;

	if (segment_identity(pl, argv) < 0 || segment_symlinks(pl, argv) < 0)
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
	if (pl->session) {
		/* The session socket follows the bind sources and the
		 * synthesized files in the fd table. */
		PUSHF("--session-fd=%d", plan_next_fd(pl));
		if (pl->idle_ms)
			PUSHF("--idle-ms=%llu", (unsigned long long)pl->idle_ms);
		return 0;
	}
	PUSH("--env-fd"); PUSHF("%d", PFD_ENV);
	PUSH("--");
	for (size_t i = 0; i < pl->cmd.n; i++)
		PUSH(pl->cmd.v[i]);
	return 0;
nomem:
	return -ENOMEM;
}

int plan_argv(const plan *pl, strv *argv, osb_error *err)
{
	int r;

	if (strv_push(argv, pl->bwrap) < 0)
		goto nomem;
	if ((r = segment_namespaces(pl, argv)) < 0)
		goto fail;
	if (pl->p->root == ROOT_HOST_RO) {
		PUSH("--ro-bind"); PUSH("/"); PUSH("/");
	}
	if ((r = segment_mounts(pl, argv, false)) < 0 ||
	    (r = segment_binds(pl, argv, SEG_RO)) < 0 ||
	    (r = segment_binds(pl, argv, SEG_RW)) < 0 ||
	    (r = segment_binds(pl, argv, SEG_REPROTECT)) < 0 ||
	    (r = segment_mounts(pl, argv, true)) < 0 ||
	    (r = segment_init(pl, argv)) < 0)
		goto fail;
	return 0;
fail:
	(void)r;
nomem:
	strv_free(argv);
	return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "plan", "out of memory building the bwrap argv");
}

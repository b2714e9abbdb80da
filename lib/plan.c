/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* plan.c — policy + host facts -> launch plan (docs/ARCHITECTURE.md).
 *
 * The plan decides from the policy and the host's facts (host.h), never by
 * probing: the identity mode, the ids the sandbox sees, the /proc cover,
 * the synthesized identity files and environment, the seccomp program.
 * Its bind sources are opened and verified by binds.c, each once, and bound
 * by that fd. Destinations are checked against each other so that no mount
 * can silently cover another. Anything the policy asks for that the host
 * cannot give is a refusal, never a downgrade.
 */
#include "plan.h"
#include "env.h"
#include "filter.h"
#include "identity.h"

#include <fcntl.h>
#include <sys/stat.h>

int plan_check_policy(const osb_policy *p, osb_error *err)
{
	if (p->uid == 0 || p->gid == 0)
		return osb_err_set(err, OSB_E_POLICY, 0, "identity",
		                   "%s:%u: user code never runs as uid 0 or gid 0; choose non-zero ids",
		                   p->user_set.o.file, p->user_set.o.line);
	return 0;
}

/* The init is opened once, by the path the host facts name, and exec'd by
 * that fd (/proc/self/fd/6 in the sandbox). */
static int open_init(plan *pl, const host_facts *h, osb_error *err)
{
	const char *path = h->init;
	struct stat st;

	pl->init_fd = open(path, O_PATH | O_CLOEXEC);
	if (pl->init_fd < 0 && h->init_origin)
		return osb_err_set(err, OSB_E_HOST, errno, "plan",
		                   "cannot open the sandbox init %s=%s: %s", h->init_origin, path,
		                   strerror(errno));
	if (pl->init_fd < 0)
		return osb_err_set(err, OSB_E_HOST, errno, "plan",
		                   "cannot open the sandbox init %s: %s (is osb-isolate installed? "
		                   "OSB_ISOLATE_INIT or osb_set_program() names another)", path,
		                   strerror(errno));
	if (fstat(pl->init_fd, &st) < 0 || !S_ISREG(st.st_mode) || !(st.st_mode & S_IXUSR))
		return osb_err_set(err, OSB_E_HOST, 0, "plan",
		                   "the sandbox init %s is not an executable file", path);
	if (st.st_mode & (S_ISUID | S_ISGID))
		return osb_err_set(err, OSB_E_HOST, 0, "plan",
		                   "the sandbox init %s is setuid or setgid; refusing", path);
	return 0;
}

int plan_mode(const osb_policy *p, const host_facts *h, bool *userns, osb_error *err)
{
	const char *o_file = p->id_mode_set.set ? p->id_mode_set.o.file : "default";
	unsigned o_line = p->id_mode_set.o.line;
	enum id_mode m = host_mode(p, h);
	int e = h->userns_errno;

	*userns = m == ID_USERNS;
	if (m == ID_ROOT && h->euid != 0)
		return osb_err_set(err, OSB_E_HOST, EPERM, "probe",
		                   "%s:%u: identity root switches to the policy's uid/gid, which "
		                   "needs osb-isolate to run as root (use identity userns or auto)",
		                   o_file, o_line);
	if (m == ID_ROOT || e == 0)
		return 0;
	if (p->id_mode == ID_USERNS)
		return osb_err_set(err, OSB_E_HOST, e, "probe",
		                   "%s:%u: identity userns: cannot create a user namespace here: %s "
		                   "(run 'osb-isolate capabilities'; as root, 'identity root' "
		                   "works without one)", o_file, o_line, strerror(e));
	return osb_err_set(err, OSB_E_HOST, e, "probe",
	                   "cannot create a user namespace here (%s) and not running as root, so "
	                   "neither identity mode can run; run 'osb-isolate capabilities' for the "
	                   "reason and the remedy", strerror(e));
}

void plan_err_origin(osb_error *err, osb_origin o, const char *rule)
{
	char msg[sizeof(err->message)];
	char at[64 + 32];
	int n;

	if (!err || !o.file || o.line == 0)
		return;
	n = snprintf(at, sizeof(at), "%s:%u:", o.file, o.line);
	if (n > 0 && strncmp(err->message, at, (size_t)n) == 0)
		return;   /* it names it already */
	if (snprintf(msg, sizeof(msg), "%s:%u: %s: %s", o.file, o.line, rule, err->message) < 0)
		return;
	memcpy(err->message, msg, sizeof(msg));
}

/* Where a mount point lies in the host's view (a read-only bind of the host
 * or root host-ro), bwrap can neither make a missing one nor mount a
 * directory over a file: said now, by the rule, rather than as bwrap's
 * "Can't mkdir". */
static int plan_check_mount_point(const plan *pl, const char *path, const char *rule,
                                  osb_origin o, osb_error *err)
{
	struct stat st;

	if (plan_place(pl, path, false) != PLACE_HOST)
		return 0;
	if (stat(path, &st) < 0)
		return osb_err_set(err, OSB_E_POLICY, errno, "plan", "%s:%u: %s %s: %s in the host's "
		                   "read-only view, where no mount point can be made; create it on the "
		                   "host, or mount a tmpfs above it", o.file, o.line, rule, path,
		                   errno == ENOENT ? "it does not exist" : strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return osb_err_set(err, OSB_E_POLICY, ENOTDIR, "plan", "%s:%u: %s %s: %s is not a "
		                   "directory on this host, and a %s is mounted over a directory", o.file,
		                   o.line, rule, path, path, strcmp(rule, "workspace") == 0 ? "workspace"
		                   : rule);
	return 0;
}

static int plan_check_mount_points(const plan *pl, osb_error *err)
{
	const osb_policy *p = pl->p;
	int r = 0;

	for (size_t i = 0; i < p->n_mounts && r == 0; i++) {
		const pol_mount *m = &p->mounts[i];

		if (m->kind == MNT_HIDE || m->kind == MNT_TMPFS || m->kind == MNT_DEV || m->kind == MNT_PROC)
			r = plan_check_mount_point(pl, m->path, policy_mount_names[m->kind], m->o, err);
	}
	if (r == 0 && p->ws_mode != WS_NONE && p->ws_dest)
		r = plan_check_mount_point(pl, p->ws_dest, "workspace", p->ws_set.o, err);
	return r;
}

/* A hide in the workspace or in a writable bind would have bwrap make its
 * mount point in a directory the sandbox can write, in this run or an
 * earlier one, following any symlink planted there (docs/ARCHITECTURE.md,
 * "Plan"): refused, whatever the workspace's mode. */
static int plan_check_hide_place(const plan *pl, const pol_mount *m, const plan_bind *b,
                                 osb_error *err)
{
	bool ws = pl->ws_dest && strcmp(b->dest, pl->ws_dest) == 0;

	if (m->kind != MNT_HIDE || b->reprotect || !(ws || b->writable) || !dest_within(m->path, b->dest))
		return 0;
	return osb_err_set(err, OSB_E_POLICY, 0, "plan",
	                   "%s:%u: hide %s lies in the %s %s (%s:%u): bwrap would make its mount "
	                   "point in a directory the sandbox can write; keep what the command must "
	                   "not read out of it (\"read-only workspace:REL\" keeps a path of the "
	                   "workspace from being changed)", m->o.file, m->o.line, m->path,
	                   ws ? "workspace" : "writable", b->dest, b->o.file, b->o.line);
}

/* No mount may silently cover another: refuse layouts where segment order
 * would hide a grant (docs/ARCHITECTURE.md, "Plan"). */
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

			if (plan_check_hide_place(pl, m, b, err) < 0)
				return -OSB_E_POLICY;
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

	return plan_place_of(pl, path) == PLACE_HOST && !binds_writable_for(pl, path) &&
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

/* Host identity files that contradict the sandbox's (docs/ARCHITECTURE.md,
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

/* Where the command starts: checked here, entered by the init once the
 * identity is final. */
static int plan_cwd(plan *pl, const char *cwd, osb_error *err)
{
	if (cwd && cwd[0] != '/')
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "plan",
		                   "working directory %s must be an absolute path", cwd);
	pl->cwd = strdup(cwd ? cwd : pl->ws_dest ? pl->ws_dest : "/");
	if (!pl->cwd)
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "plan", "out of memory");
	return 0;
}

/* What /proc/loadavg says instead of the host's load and task count: no
 * load, one task (programs that read it, os.getloadavg(), uptime, keep
 * working). */
#define PROC_LOADAVG "0.00 0.00 0.00 1/1 1\n"

/* The /proc cover comes from the host's facts (which entries this kernel
 * has, host.c); each proc mount gets a synthesized loadavg. */
static int plan_proc(plan *pl, const host_facts *h, osb_error *err)
{
	const osb_policy *p = pl->p;

	pl->proc = h->proc;
	for (size_t i = 0; h->proc.loadavg && i < p->n_mounts; i++) {
		_cleanup_free_ char *dest = NULL;
		int r;

		if (p->mounts[i].kind != MNT_PROC)
			continue;
		if (asprintf(&dest, "%s/loadavg", p->mounts[i].path) < 0)
			return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "plan", "out of memory");
		if ((r = add_data(pl, dest, PROC_LOADAVG, true, err)) < 0)
			return r;
	}
	return 0;
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

/* Who the sandbox is: its host ids (hostid.c, acquired by the launch), how
 * bwrap starts (as those ids when a root caller uses a user namespace, so
 * that nothing in that namespace maps to host root), and the ids it sees. */
static void plan_ids(plan *pl)
{
	const osb_policy *p = pl->p;

	if (pl->userns) {
		pl->uid = p->uid;
		pl->gid = p->gid;
		pl->use_cred = pl->host.kind != HOSTID_CALLER;
		pl->cred = (spawn_cred){ pl->host.uid, pl->host.gid };
	} else {
		pl->uid = pl->host.uid;
		pl->gid = pl->host.gid;
	}
}

/* bwrap as the host facts found it, and the options the plan relies on. */
static int plan_bwrap(plan *pl, const host_facts *h, osb_error *err)
{
	switch (h->bwrap_state) {
	case BWRAP_MISSING:
		if (h->bwrap_from == BWRAP_FROM_PATH)
			return osb_err_set(err, OSB_E_HOST, ENOENT, "probe", "bwrap not found on PATH; "
			                   "install it (apt-get install bubblewrap)");
		return osb_err_set(err, OSB_E_HOST, h->bwrap_errno, "probe",
		                   "bwrap at %s is not executable: %s; install the Debian package "
		                   "bubblewrap or fix the path", h->bwrap_tried, strerror(h->bwrap_errno));
	case BWRAP_SETUID:
		return osb_err_set(err, OSB_E_HOST, 0, "probe",
		                   "%s is setuid or setgid; osb-isolate only runs an unprivileged "
		                   "bwrap (install Debian's bubblewrap, which is not setuid)", h->bwrap);
	case BWRAP_NO_HELP:
		return osb_err_set(err, OSB_E_SPAWN, h->bwrap_errno, "spawn", "%s", h->bwrap_why);
	case BWRAP_OK:
		break;
	}
	if (!(pl->bwrap = strdup(h->bwrap)))
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "plan", "out of memory");
	pl->feat = h->feat;
	if (!pl->feat.json_status_fd || !pl->feat.die_with_parent || !pl->feat.new_session)
		return osb_err_set(err, OSB_E_HOST, 0, "probe",
		                   "%s lacks --json-status-fd, --die-with-parent or --new-session; "
		                   "install bubblewrap 0.8 or later", pl->bwrap);
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

void plan_clear(plan *pl)
{
	memset(pl, 0, sizeof(*pl));
	pl->host = (hostid)HOSTID_INIT;
	pl->init_fd = pl->seccomp_fd = pl->passwd_fd = pl->group_fd = pl->env_fd = -1;
	pl->net = (netproxy)NETPROXY_INIT;
}

/* An empty plan that owns IDS from now on (plan_free releases them). */
static void plan_init(plan *pl, const osb_policy *p, hostid *ids, const plan_request *rq)
{
	plan_clear(pl);
	pl->p = p;
	pl->session = rq->session;
	pl->wall_ms = rq->session ? 0 : rq->wall_ms;
	pl->host = *ids;
	ids->lock_fd = -1;
}

int plan_build(const osb_policy *p, const host_facts *h, hostid *ids, const plan_request *rq,
               plan *pl, osb_error *err)
{
	static const plan_request none = { NULL, NULL, false, 0 };
	int r;

	if (!rq)
		rq = &none;
	plan_init(pl, p, ids, rq);
	/* Checked first: nothing else matters for a policy that asks for this. */
	if ((r = plan_check_policy(p, err)) < 0 ||
	    (r = plan_mode(p, h, &pl->userns, err)) < 0)
		goto fail;
	plan_ids(pl);
	if ((r = plan_bwrap(pl, h, err)) < 0 ||
	    (r = open_init(pl, h, err)) < 0 ||
	    (r = binds_open(pl, err)) < 0 ||
	    (r = plan_check_layout(pl, err)) < 0 ||
	    (r = plan_check_mount_points(pl, err)) < 0 ||
	    (r = plan_identity(pl, err)) < 0 ||
	    (r = plan_cwd(pl, rq->cwd, err)) < 0 ||
	    (r = plan_env(pl, rq->envp, err)) < 0 ||
	    (r = plan_proc(pl, h, err)) < 0 ||
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
	for (size_t i = 0; i < pl->n_data; i++) {
		close(pl->data[i].fd);
		free(pl->data[i].dest);
	}
	strv_free(&pl->masks);
	placeholders_remove(&pl->made);
	git_rules_free(&pl->git);
	hostid_release(&pl->host);
	limits_release(&pl->lim);
	netproxy_free(&pl->net);
	plan_clear(pl);
}

/* ---- places in the sandbox ------------------------------------------------ */

bool dest_within(const char *a, const char *b)
{
	size_t n = strlen(b);

	if (strcmp(b, "/") == 0)
		return true;
	return strncmp(a, b, n) == 0 && (a[n] == '\0' || a[n] == '/');
}

/* What the plan puts at PATH: the deepest mount at or above it (INCLUSIVE:
 * a mount exactly at PATH counts) decides. A policy tmpfs, or bwrap's own
 * root tmpfs under "root none", is fresh; the host root or a bind is the
 * host's; dev, proc and hide mounts are neither. */
enum plan_place plan_place(const plan *pl, const char *path, bool inclusive)
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

bool plan_host_parent(const plan *pl, const char *path)
{
	return plan_place(pl, path, true) == PLACE_HOST;
}

bool plan_is_mount_point(const plan *pl, const char *path)
{
	for (size_t i = 0; i < pl->p->n_mounts; i++)
		if (pl->p->mounts[i].kind != MNT_SYMLINK && strcmp(pl->p->mounts[i].path, path) == 0)
			return true;
	for (size_t i = 0; i < pl->n_binds; i++)
		if (strcmp(pl->binds[i].dest, path) == 0)
			return true;
	return false;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* audit.c — the exposure score of a policy (osb-isolate(1), "AUDIT"):
 * thirteen checks, each weighing one thing the sandbox may reach, out of
 * 100 in all. Each check only grows when a grant is added, so the total is
 * monotonic in the grants (tests/unit/check_audit.c proves it over every
 * combination). Paths are scored on the effective view (view.h), not on
 * the rules that build it, so policies that show the host alike score
 * alike.
 */
#include "audit.h"
#include "netreview.h"
#include "common.h"
#include "exposure.h"
#include "view.h"

#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>

/* ---- audit ------------------------------------------------------------------------------ */

enum {
	A_HOST_VIEW, A_HOST_WRITES, A_WORKSPACE, A_NETWORK, A_ENV, A_SECCOMP, A_LANDLOCK,
	A_SOCKETS, A_SHARED_TMP, A_WALL, A_LIMITS, A_IDENTITY, A_CREDENTIALS, A__COUNT
};

static const struct audit_def {
	const char *id, *name, *what;
	unsigned weight;
} audit_defs[A__COUNT] = {
	[A_HOST_VIEW] = { "A01", "host-view", "how much of the host file system is readable", 8 },
	[A_HOST_WRITES] = { "A02", "host-writes", "host paths writable beyond the workspace, "
	                    "by the policy or by a caller's grant", 14 },
	[A_WORKSPACE] = { "A03", "workspace", "access to the workspace directory", 5 },
	[A_NETWORK] = { "A04", "network", "the network namespace, the policy's or a caller's", 14 },
	[A_ENV] = { "A05", "environment", "the caller's environment, secrets above all", 9 },
	[A_SECCOMP] = { "A06", "seccomp", "system calls the effective filter lets through that "
	                "the default group denies", 12 },
	[A_LANDLOCK] = { "A07", "landlock", "the file-access ruleset inside the sandbox", 4 },
	[A_SOCKETS] = { "A08", "daemon-sockets", "control sockets of host daemons", 9 },
	[A_SHARED_TMP] = { "A09", "shared-tmp", "the host's /tmp, /var/tmp and /dev/shm", 4 },
	[A_WALL] = { "A10", "wall-limit", "how long a command may run", 3 },
	[A_LIMITS] = { "A11", "resource-limits", "file size, open files, captured output, memory, "
	               "processes", 5 },
	[A_IDENTITY] = { "A12", "identity", "the ids user code has on the host, for each kind "
	                 "of caller", 5 },
	[A_CREDENTIALS] = { "A13", "credentials", "home directories and credential stores "
	                    "readable", 8 },
};

static int set_item(audit_report *r, int k, unsigned points, const rv_origin *o, const char *f, ...)
	__attribute__((format(printf, 5, 6)));
/* The workspace as the host sees it: an overlay shows it as ro does, and
 * what the command writes there never reaches the host. */
static unsigned ws_score(enum ws_mode m)
{
	return m == WS_RW ? 5 : m == WS_RO || m == WS_OVERLAY ? 2 : 0;
}

static int set_item(audit_report *r, int k, unsigned points, const rv_origin *o, const char *f, ...)
{
	audit_item *it = &r->v[k];
	va_list ap;

	it->points = points > it->weight ? it->weight : points;
	if (o)
		it->o = *o;
	free(it->detail);
	va_start(ap, f);
	it->detail = rv_vfmt(f, ap);
	va_end(ap);
	return it->detail ? 0 : -ENOMEM;
}

/* ---- A01: what the view shows of the host ------------------------------------------- */

/* A01 weighs the view, not the rules that build it: each host area counts
 * for what it holds when the sandbox can read all of it (a name no rule
 * names, inside it, is readable) and one point when it reads only part of
 * it (a project under /home). The system directories programs run from
 * count one point together; every other top-level entry of this host's /
 * one point. The weights add up to more than the check's, so binding the
 * host's top-level directories one by one scores what root host-ro does. */
static const struct view_area {
	const char *path;
	unsigned points;
} view_areas[] = {
	{ "/home", 3 }, { "/root", 2 }, { "/var", 2 }, { "/srv", 1 }, { "/opt", 1 },
	{ "/mnt", 1 }, { "/media", 1 }, { "/boot", 1 }, { "/sys", 1 }, { "/run", 1 },
	{ "/tmp", 1 }, { "/dev", 1 }, { "/proc", 1 },
};
static const char *const system_dirs[] = {
	"/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
};

enum area_seen { SEEN_NONE, SEEN_PART, SEEN_WHOLE };

/* How much of AREA the sandbox reads, and the rule that decides it. */
static enum area_seen area_seen(const review_policy *p, const char *area, rv_view *v)
{
	char inside[PATH_MAX];

	snprintf(inside, sizeof(inside), "%s/" "\001", area);
	*v = view_at(p, inside, true);
	if (v->acc >= RV_RO)
		return SEEN_WHOLE;
	/* The area itself, or something beneath it (a project under /home). */
	*v = view_exposes(p, area, true, NULL, 0);
	return v->acc >= RV_RO ? SEEN_PART : SEEN_NONE;
}

static bool is_known_area(const char *path)
{
	for (size_t i = 0; i < ARRAY_SIZE(system_dirs); i++)
		if (strcmp(path, system_dirs[i]) == 0)
			return true;
	for (size_t i = 0; i < ARRAY_SIZE(view_areas); i++)
		if (strcmp(path, view_areas[i].path) == 0)
			return true;
	return false;
}

typedef struct view_tally {
	unsigned points;
	size_t n_areas;
	char names[256];
	size_t used;
	rv_origin o;
	unsigned o_points;        /* the origin is the rule of the weightiest area */
} view_tally;

static void tally(view_tally *t, const char *area, enum area_seen seen, unsigned whole,
                  const rv_view *v)
{
	unsigned pts = seen == SEEN_WHOLE ? whole : seen == SEEN_PART ? 1 : 0;
	int w;

	if (seen == SEEN_NONE)
		return;
	t->points += pts;
	if (pts > t->o_points || !t->o.file) {
		t->o = v->o;
		t->o_points = pts;
	}
	if (t->n_areas++ < 6 && t->used < sizeof(t->names)) {
		w = snprintf(t->names + t->used, sizeof(t->names) - t->used, "%s%s%s",
		             t->used ? ", " : "", area, seen == SEEN_PART ? " (part)" : "");
		if (w > 0)
			t->used += (size_t)w;
	} else if (t->n_areas == 7 && t->used + 6 < sizeof(t->names)) {
		t->used += (size_t)snprintf(t->names + t->used, sizeof(t->names) - t->used, ", ...");
	}
}

/* Every other top-level entry of the host's / that the sandbox reads. */
static void tally_other_entries(const review_policy *p, const audit_host *h, view_tally *t)
{
	for (size_t i = 0; h && i < h->n_top; i++) {
		rv_view v;

		if (!is_known_area(h->top[i]))
			tally(t, h->top[i], area_seen(p, h->top[i], &v), 1, &v);
	}
}

int audit_host_scan(audit_host *h)
{
	struct dirent **names = NULL;
	int n = scandir("/", &names, NULL, alphasort), e = 0;

	memset(h, 0, sizeof(*h));
	if (n > 0 && !(h->top = calloc((size_t)n, sizeof(*h->top))))
		e = -ENOMEM;
	for (int i = 0; i < n; i++) {
		if (e == 0 && names[i]->d_name[0] != '.' &&
		    !(h->top[h->n_top++] = rv_fmt("/%s", names[i]->d_name)))
			e = -ENOMEM;
		free(names[i]);
	}
	free(names);
	if (e < 0)
		audit_host_free(h);
	return e;
}

void audit_host_free(audit_host *h)
{
	for (size_t i = 0; i < h->n_top; i++)
		free(h->top[i]);
	free(h->top);
	memset(h, 0, sizeof(*h));
}

static int audit_view(const review_policy *p, const audit_host *h, audit_report *r)
{
	view_tally t = { 0 };
	bool system = false;
	rv_view v, sys_v = { 0 };

	for (size_t i = 0; i < ARRAY_SIZE(system_dirs) && !system; i++)
		if (area_seen(p, system_dirs[i], &v) != SEEN_NONE) {
			system = true;
			sys_v = v;
		}
	if (system)
		tally(&t, "system directories", SEEN_WHOLE, 1, &sys_v);
	for (size_t i = 0; i < ARRAY_SIZE(view_areas); i++)
		tally(&t, view_areas[i].path, area_seen(p, view_areas[i].path, &v), view_areas[i].points,
		      &v);
	tally_other_entries(p, h, &t);
	if (t.n_areas == 0)
		return set_item(r, A_HOST_VIEW, 0, NULL, "no host file is readable");
	return set_item(r, A_HOST_VIEW, t.points, &t.o, "readable: %s", t.names);
}

/* ---- A13: home directories and credential stores ------------------------------------ */

static int audit_credentials(const review_policy *p, audit_report *r)
{
	char what[PATH_MAX], rule[PATH_MAX + 32];
	rv_view v;

	if (!credential_shown(p, true, what, sizeof(what), &v))
		return set_item(r, A_CREDENTIALS, 0, NULL, "no home directory or credential store is "
		                "readable");
	view_rule_str(p, &v, rule, sizeof(rule));
	return set_item(r, A_CREDENTIALS, 8, &v.o, "%s is readable (%s%s)", what, rule,
	                v.granted ? ", a caller's grant" : "");
}

/* ---- A02: what the sandbox may write ------------------------------------------------ */

/* Writable places that run code or change the host, beyond those
 * classify_write() names: a home's dot-entries (startup files,
 * authorized_keys, autostart, ~/.local/bin) and the system directories. */
static const char *const risky_writes[] = {
	"/home/*/.*", "/var/home/*/.*", "/root", "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib64",
	"/boot",
};

/* The first writable place whose change runs code or changes the host:
 * a write path or write-root classify_write() names, or a risky_writes
 * place the view makes writable. Its rule into RULE; false if none. */
static bool risky_write(const review_policy *p, char *what, size_t wsize, rv_origin *o)
{
	const rv_str *lists[] = { p->writes, p->write_roots };
	const size_t ns[] = { p->n_writes, p->n_write_roots };
	char rule[PATH_MAX + 32];

	for (size_t l = 0; l < 2; l++)
		for (size_t i = 0; i < ns[l]; i++)
			if (classify_write(p, lists[l][i].s) != W_NONE ||
			    (l == 1 && rv_within("/home", lists[l][i].s))) {
				snprintf(what, wsize, "%s %s", l ? "write-root" : "write", lists[l][i].s);
				*o = lists[l][i].o;
				return true;
			}
	for (size_t i = 0; i < ARRAY_SIZE(risky_writes); i++) {
		rv_view v = view_exposes(p, risky_writes[i], true, NULL, 0);

		if (v.acc != RV_RW)
			continue;
		view_rule_str(p, &v, rule, sizeof(rule));
		snprintf(what, wsize, "%s (%s)", rule, risky_writes[i]);
		*o = v.o;
		return true;
	}
	return false;
}

/* The top-level directory of PATH ("/srv" of "/srv/a/b") into BUF. */
static void top_dir(const char *path, char *buf, size_t size)
{
	snprintf(buf, size, "/%.*s", (int)strcspn(path + 1, "/"), path + 1);
}

/* A02 weighs the host areas the sandbox may write, by the policy's write
 * paths or by a caller's grant beneath a write-root: all of it when one
 * runs code or changes the host, else 5 points for each top-level
 * directory written in (two paths under /srv count as one, as /srv itself
 * would). */
static int audit_writes(const review_policy *p, audit_report *r)
{
	const rv_str *lists[] = { p->writes, p->write_roots };
	const size_t ns[] = { p->n_writes, p->n_write_roots };
	char what[PATH_MAX + 64], tops[8][NAME_MAX + 2], names[256] = "";
	size_t n_tops = 0, used = 0;
	rv_origin o = { 0 };

	if (risky_write(p, what, sizeof(what), &o))
		return set_item(r, A_HOST_WRITES, 14, &o, "%s: a path whose change runs code or changes "
		                "the host", what);
	for (size_t l = 0; l < 2; l++)
		for (size_t i = 0; i < ns[l]; i++) {
			char top[NAME_MAX + 2];
			bool seen = false;

			top_dir(lists[l][i].s, top, sizeof(top));
			for (size_t k = 0; k < n_tops && !seen; k++)
				seen = strcmp(tops[k], top) == 0;
			if (seen || n_tops == ARRAY_SIZE(tops))
				continue;
			snprintf(tops[n_tops++], sizeof(tops[0]), "%s", top);
			if (used < sizeof(names)) {
				int w = snprintf(names + used, sizeof(names) - used, "%s%s %s", used ? ", " : "",
				                 l ? "write-root" : "write", lists[l][i].s);

				used += w > 0 ? (size_t)w : 0;
			}
			o = lists[l][i].o;
		}
	if (n_tops == 0)
		return set_item(r, A_HOST_WRITES, 0, NULL, "no writable host path beyond the workspace");
	return set_item(r, A_HOST_WRITES, (unsigned)(5 * n_tops), &o, "writable in %zu host "
	                "area%s beyond the workspace: %s", n_tops, n_tops == 1 ? "" : "s", names);
}

/* ---- A05: the environment ---------------------------------------------------------- */

static int audit_env(const review_policy *p, audit_report *r)
{
	char names[256];

	if (p->env_base == ENV_INHERIT && leaked_samples(p, NULL, names, sizeof(names)) > 0)
		return set_item(r, A_ENV, 9, &p->env_base_set.o, "env inherit passes secrets (%s)", names);
	for (size_t i = 0; i < p->n_env_pass; i++) {
		const rv_str *e = &p->env_pass[i];

		if (rv_has_glob(e->s) ? leaked_samples(p, e->s, names, sizeof(names)) > 0
		                   : secret_looking(e->s) && !env_denied(p, e->s))
			return set_item(r, A_ENV, 9, &e->o, "env pass %s admits secrets", e->s);
	}
	for (size_t i = 0; i < p->n_env_set; i++) {
		size_t len = strcspn(p->env_set[i].s, "=");
		char name[256];

		snprintf(name, sizeof(name), "%.*s", (int)(len < sizeof(name) ? len : sizeof(name) - 1),
		         p->env_set[i].s);
		if (secret_looking(name))
			return set_item(r, A_ENV, 9, &p->env_set[i].o, "env set %s: a secret in the policy", name);
	}
	if (p->env_base == ENV_INHERIT)
		return set_item(r, A_ENV, 4, &p->env_base_set.o,
		                "env inherit: the caller's environment minus the deny patterns");
	return set_item(r, A_ENV, 0, &p->env_base_set.o,
	                "env clear: only named variables pass, no credential-shaped one");
}

/* ---- A06, A07: the kernel ------------------------------------------------------------ */

/* The calls P's allow rules really let through: those its group denies
 * (osb_seccomp_group_denies()); allowing a call the group allows anyway
 * changes nothing but the hash. Their number, the last one's rule into O
 * and the first names into NAMES. */
static size_t effective_allows(const review_policy *p, const rv_origin **o, char *names,
                               size_t size)
{
	size_t n = 0, used = 0;

	names[0] = '\0';
	for (size_t i = 0; i < p->n_sc_rules; i++) {
		const rv_sc *sc = &p->sc_rules[i];

		if (!sc->allow || osb_seccomp_group_denies(p->sc_group, sc->name, NULL) <= 0)
			continue;
		*o = &sc->o;
		if (n++ < 4 && used < size) {
			int w = snprintf(names + used, size - used, "%s%s", used ? ", " : "", sc->name);

			used += w > 0 ? (size_t)w : 0;
		}
	}
	return n;
}

/* A06: no filter; calls taken out of the group; a group older than the
 * newest, which allows every call its libseccomp did not know (a newer
 * kernel's), or which lets the sandbox give a workspace file a set-user-ID
 * or set-group-ID bit (before osb-default-3: it allows every mode of
 * chmod), a program that runs on the host with the sandbox's host ids. */
static int audit_seccomp(const review_policy *p, audit_report *r)
{
	bool denies = false;
	int g = p->sc_group ? rv_group_index(p->sc_group, &denies) : -1;
	bool old = g >= 0 && g != rv_group_newest() && !denies;
	bool setid = g >= 0 && osb_seccomp_group_denies(p->sc_group, "chmod", NULL) == 0;
	const rv_origin *o = NULL;
	char names[128], also[192] = "";
	size_t n = g >= 0 ? effective_allows(p, &o, names, sizeof(names)) : 0;
	unsigned points = (unsigned)(3 * (n > 4 ? 4 : n)) + (old ? 4 : 0) + (setid ? 4 : 0);

	if (p->sc_mode == SC_NONE)
		return set_item(r, A_SECCOMP, 12, &p->sc_mode_set.o, "seccomp none: no syscall filter");
	if (g < 0)
		return set_item(r, A_SECCOMP, 12, &p->sc_mode_set.o, "seccomp group %s: not in this "
		                "osb-isolate, no filter can be built", p->sc_group ? p->sc_group : "?");
	if (old)
		snprintf(also, sizeof(also), "%s allows calls newer than its libseccomp table",
		         p->sc_group);
	if (setid)
		snprintf(also + strlen(also), sizeof(also) - strlen(also), "%s%s lets the sandbox "
		         "make set-user-ID files", old ? "; " : "", old ? "it" : p->sc_group);
	if (points > 12)
		points = 12;
	if (n)
		return set_item(r, A_SECCOMP, points, o, "%zu call%s the group denies let through "
		                "(%s%s)%s%s", n, n == 1 ? "" : "s", names, n > 4 ? ", ..." : "",
		                *also ? "; " : "", also);
	if (*also)
		return set_item(r, A_SECCOMP, points, &p->sc_mode_set.o, "%s", also);
	return set_item(r, A_SECCOMP, 0, &p->sc_mode_set.o, "%s, complete: unknown calls get ENOSYS",
	                p->sc_group);
}

static int audit_landlock(const review_policy *p, audit_report *r)
{
	if (p->landlock == LL_OFF)
		return set_item(r, A_LANDLOCK, 4, &p->landlock_set.o, "landlock off");
	if (p->landlock == LL_AUTO)
		return set_item(r, A_LANDLOCK, 2, &p->landlock_set.o,
		                "landlock auto: applied where the kernel has it, else skipped");
	return set_item(r, A_LANDLOCK, 0, &p->landlock_set.o, "landlock required");
}

/* ---- A08, A09: sockets and shared directories --------------------------------------- */

/* The first of PATHS (N) the view shows, read or written, itself or
 * anything beneath it; NULL when none. */
static const char *first_shown(const review_policy *p, const char *const *paths, size_t n,
                               rv_view *v, char *rule, size_t size)
{
	for (size_t i = 0; i < n; i++) {
		*v = view_exposes(p, paths[i], true, NULL, 0);
		if (v->acc >= RV_RO) {
			view_rule_str(p, v, rule, size);
			return paths[i];
		}
	}
	return NULL;
}

static int audit_exposure(const review_policy *p, audit_report *r)
{
	static const char *const shared[] = { "/tmp", "/var/tmp", "/dev/shm" };
	char rule[PATH_MAX + 32];
	const char *what;
	rv_view v;
	int e;

	if ((what = first_shown(p, daemon_sockets, N_DAEMON_SOCKETS, &v, rule, sizeof(rule))))
		e = set_item(r, A_SOCKETS, 9, &v.o, "%s is reachable (%s%s)", what, rule,
		             v.granted ? ", a caller's grant" : "");
	else
		e = set_item(r, A_SOCKETS, 0, NULL, "no daemon socket is reachable");
	if (e < 0)
		return e;
	if ((what = first_shown(p, shared, ARRAY_SIZE(shared), &v, rule, sizeof(rule))))
		return set_item(r, A_SHARED_TMP, 4, &v.o, "the host's %s is shared (%s%s)", what, rule,
		                v.granted ? ", a caller's grant" : "");
	return set_item(r, A_SHARED_TMP, 0, NULL, "private /tmp, /var/tmp and /dev/shm, or none");
}

/* ---- A10, A11: limits ------------------------------------------------------------------ */

static int audit_wall(const review_policy *p, audit_report *r)
{
	const rv_set *s = &p->limit_set[LIM_WALL];

	if (!s->set || p->limits[LIM_WALL] == UINT64_MAX)
		return set_item(r, A_WALL, 3, s->set ? &s->o : NULL, "no wall-clock limit");
	if (p->limits[LIM_WALL] > 60ULL * 60 * 1000)
		return set_item(r, A_WALL, 2, &s->o, "wall limit above one hour");
	return set_item(r, A_WALL, 0, &s->o, "wall limit of at most one hour");
}

/* A11: one point for each bound that is missing, unlimited, or only
 * best-effort (where the host has no cgroup for it, the run goes on
 * without it). */
static int audit_limits(const review_policy *p, audit_report *r)
{
	static const int lims[] = { LIM_FSIZE, LIM_NOFILE, LIM_OUTPUT, LIM_MEMORY, LIM_PIDS };
	unsigned missing = 0;
	char names[128] = "";
	size_t used = 0;

	for (size_t i = 0; i < ARRAY_SIZE(lims); i++) {
		int k = lims[i], w;

		if (p->limit_set[k].set && p->limits[k] != UINT64_MAX && !p->limit_best_effort[k])
			continue;
		missing++;
		w = snprintf(names + used, sizeof(names) - used, " %s%s", rv_limit_names[k],
		             p->limit_set[k].set && p->limit_best_effort[k] ? " (best-effort)" : "");
		if (w > 0 && (size_t)w < sizeof(names) - used)
			used += (size_t)w;
	}
	if (missing)
		return set_item(r, A_LIMITS, missing, NULL, "unbounded:%s", names);
	return set_item(r, A_LIMITS, 0, NULL, "fsize, nofile, output, memory and pids are limited");
}

/* ---- A12: identity on the host ---------------------------------------------------------- */

/* A12 scores the ids user code holds on the host for each kind of caller
 * that can run the policy (osb-isolate(1), "Identity on the host"), and
 * keeps the worst: an unprivileged caller's sandbox is the caller (its
 * files in the view, its supplementary groups); a root caller's runs as
 * ids allocated for it that belong to no account, in root mode after
 * bwrap and the init ran with root's capabilities and no user namespace
 * between the command and the host's ids; pinned ids are shared by every
 * sandbox of the policy, and ids of an account own that account's files. */
static int audit_identity(const review_policy *p, audit_report *r)
{
	bool unpriv = p->id_mode != ID_ROOT && !p->host_ids_set.set;
	bool root_mode = p->id_mode != ID_USERNS;
	bool account = p->host_ids_set.set &&
	               (rv_uid_is_account(p->host_uid) || rv_gid_is_group(p->host_gid));
	const char *root_ids = p->host_ids_set.set ? "pinned ids of no account" : "allocated ids";

	if (p->uid == 0 || p->gid == 0)
		return set_item(r, A_IDENTITY, 5, &p->user_set.o, "uid or gid 0: refused");
	if (account)
		return set_item(r, A_IDENTITY, 5, &p->host_ids_set.o, "host-ids %u %u: an account of "
		                "this host, whose files the sandbox owns", p->host_uid, p->host_gid);
	if (unpriv)
		return set_item(r, A_IDENTITY, 2, &p->id_mode_set.o, "unprivileged caller: the sandbox "
		                "is the caller (its files, its groups); root caller: %s%s", root_ids,
		                root_mode ? ", root mode where user namespaces are blocked" : "");
	if (root_mode || p->host_ids_set.set)
		return set_item(r, A_IDENTITY, 1, root_mode ? &p->id_mode_set.o : &p->host_ids_set.o,
		                "root callers only: %s%s", root_ids, root_mode ? ", root mode (no user "
		                "namespace; setup runs with root's capabilities)" : "");
	return set_item(r, A_IDENTITY, 0, &p->id_mode_set.o, "root callers only: allocated ids of "
	                "no account, in a user namespace");
}

/* ---- A04: network -------------------------------------------------------------------- */

/* "network allow": the destinations listed, through the filtering proxy;
 * an entry naming a host-internal range (rv_net_allow_internal) counts
 * nearly as much as the host network. */
static int audit_network_allow(const review_policy *p, audit_report *r)
{
	for (size_t i = 0; i < p->n_net_allow; i++)
		if (rv_net_allow_internal(p->net_allow[i].s))
			return set_item(r, A_NETWORK, 12, &p->net_allow[i].o, "network allow %s: a "
			                "loopback, link-local, private or metadata range is reachable",
			                p->net_allow[i].s);
	return set_item(r, A_NETWORK, 5, &p->net_set.o, "network allow: %zu destination%s through "
	                "the filtering proxy (loopback, private and metadata addresses refused)",
	                p->n_net_allow, p->n_net_allow == 1 ? "" : "s");
}

/* A caller's grant of the host network counts as the host network: the
 * score is of what the policy lets happen, not of its default. */
static int audit_network(const review_policy *p, audit_report *r)
{
	if (p->net == NET_HOST)
		return set_item(r, A_NETWORK, 14, &p->net_set.o, "network host: the host's network "
		                "namespace");
	if (p->caller_net.set)
		return set_item(r, A_NETWORK, 14, &p->caller_net.o, "allow-caller network: a caller may "
		                "share the host's network namespace");
	if (p->net == NET_ALLOW)
		return audit_network_allow(p, r);
	return set_item(r, A_NETWORK, 0, &p->net_set.o, "network none: loopback only");
}

int audit_policy(const review_policy *p, audit_report *r)
{
	audit_host h;
	int e = audit_host_scan(&h);

	if (e < 0) {
		memset(r, 0, sizeof(*r));
		return e;
	}
	e = audit_policy_on(p, &h, r);
	audit_host_free(&h);
	return e;
}

int audit_policy_on(const review_policy *p, const audit_host *h, audit_report *r)
{
	int e;

	memset(r, 0, sizeof(*r));
	r->v = calloc(A__COUNT, sizeof(*r->v));
	if (!r->v)
		return -ENOMEM;
	r->n = A__COUNT;
	for (int k = 0; k < A__COUNT; k++) {
		r->v[k].id = audit_defs[k].id;
		r->v[k].name = audit_defs[k].name;
		r->v[k].what = audit_defs[k].what;
		r->v[k].weight = audit_defs[k].weight;
	}
	if ((e = audit_view(p, h, r)) < 0 || (e = audit_writes(p, r)) < 0 ||
	    (e = set_item(r, A_WORKSPACE, ws_score(p->ws_mode),
	                  &p->ws_set.o, "workspace %s", rv_ws_words[p->ws_mode])) < 0 ||
	    (e = audit_network(p, r)) < 0 || (e = audit_env(p, r)) < 0 ||
	    (e = audit_seccomp(p, r)) < 0 || (e = audit_landlock(p, r)) < 0 ||
	    (e = audit_exposure(p, r)) < 0 || (e = audit_wall(p, r)) < 0 ||
	    (e = audit_limits(p, r)) < 0 || (e = audit_identity(p, r)) < 0 ||
	    (e = audit_credentials(p, r)) < 0) {
		audit_report_free(r);
		return e;
	}
	for (size_t k = 0; k < r->n; k++)
		r->total += r->v[k].points;
	return 0;
}

void audit_report_free(audit_report *r)
{
	for (size_t k = 0; k < r->n; k++)
		free(r->v[k].detail);
	free(r->v);
	memset(r, 0, sizeof(*r));
}

const char *audit_level(unsigned total)
{
	return total < 20 ? "low" : total < 40 ? "medium" : total < 70 ? "high" : "unsafe";
}

typedef struct audit_text_arg {
	const audit_report *r;
	const char *name;
} audit_text_arg;

static int audit_text(FILE *f, const void *varg)
{
	const audit_text_arg *a = varg;

	fprintf(f, "Exposure audit of %s\n\n", a->name);
	fprintf(f, "  %-4s %-16s %7s  %s\n", "ID", "CHECK", "POINTS", "FINDING (ORIGIN)");
	for (size_t k = 0; k < a->r->n; k++) {
		const audit_item *it = &a->r->v[k];
		char o[PATH_MAX + 32], pts[16];

		rv_origin_str(&it->o, o, sizeof(o));
		snprintf(pts, sizeof(pts), "%u/%u", it->points, it->weight);
		fprintf(f, "%c %-4s %-16s %7s  %s%s%s%s\n", it->points ? '!' : ' ', it->id, it->name,
		        pts, it->detail, *o ? " (" : "", o, *o ? ")" : "");
	}
	fprintf(f, "\nOverall exposure: %u/%d (%s)\n", a->r->total, AUDIT_MAX, audit_level(a->r->total));
	return 0;
}

char *audit_render_text(const audit_report *r, const char *name)
{
	audit_text_arg a = { r, name };

	return rv_render(audit_text, &a);
}

static json_object *origin_json(const rv_origin *o)
{
	char buf[PATH_MAX + 32];

	rv_origin_str(o, buf, sizeof(buf));
	return *buf ? json_object_new_string(buf) : NULL;
}

char *audit_render_json(const audit_report *r, const char *name, const char *hash, int threshold)
{
	json_object *o = json_object_new_object(), *checks = json_object_new_array();

	if (!o || !checks) {
		json_object_put(o);
		json_object_put(checks);
		return NULL;
	}
	json_object_object_add(o, "policy", json_object_new_string(name));
	json_object_object_add(o, "hash", json_object_new_string(hash));
	for (size_t k = 0; k < r->n; k++) {
		const audit_item *it = &r->v[k];
		json_object *c = json_object_new_object();

		json_object_object_add(c, "id", json_object_new_string(it->id));
		json_object_object_add(c, "name", json_object_new_string(it->name));
		json_object_object_add(c, "description", json_object_new_string(it->what));
		json_object_object_add(c, "weight", json_object_new_int((int)it->weight));
		json_object_object_add(c, "points", json_object_new_int((int)it->points));
		json_object_object_add(c, "detail", json_object_new_string(it->detail ? it->detail : ""));
		json_object_object_add(c, "origin", origin_json(&it->o));
		json_object_array_add(checks, c);
	}
	json_object_object_add(o, "checks", checks);
	json_object_object_add(o, "total", json_object_new_int((int)r->total));
	json_object_object_add(o, "max", json_object_new_int(AUDIT_MAX));
	json_object_object_add(o, "level", json_object_new_string(audit_level(r->total)));
	json_object_object_add(o, "threshold", threshold < 0 ? NULL : json_object_new_int(threshold));
	json_object_object_add(o, "above_threshold",
	                       json_object_new_boolean(threshold >= 0 && r->total > (unsigned)threshold));
	return rv_json_take(o);
}


static int checks_text(FILE *f, const void *arg)
{
	(void)arg;
	fprintf(f, "%-4s %-16s %6s  %s\n", "ID", "CHECK", "WEIGHT", "MEASURES");
	for (size_t k = 0; k < A__COUNT; k++)
		fprintf(f, "%-4s %-16s %6u  %s\n", audit_defs[k].id, audit_defs[k].name, audit_defs[k].weight,
		        audit_defs[k].what);
	fprintf(f, "%-4s %-16s %6d\n", "", "total", AUDIT_MAX);
	return 0;
}

char *audit_checks_text(void)
{
	return rv_render(checks_text, NULL);
}

char *audit_checks_json(void)
{
	json_object *a = json_object_new_array();

	if (!a)
		return NULL;
	for (size_t k = 0; k < A__COUNT; k++) {
		json_object *c = json_object_new_object();

		json_object_object_add(c, "id", json_object_new_string(audit_defs[k].id));
		json_object_object_add(c, "name", json_object_new_string(audit_defs[k].name));
		json_object_object_add(c, "description", json_object_new_string(audit_defs[k].what));
		json_object_object_add(c, "weight", json_object_new_int((int)audit_defs[k].weight));
		json_object_array_add(a, c);
	}
	return rv_json_take(a);
}

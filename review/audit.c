/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* audit.c — the exposure score of a policy (osb-isolate(1), "AUDIT"):
 * twelve checks, each weighing one thing the sandbox may reach, out of 100
 * in all. Each check only grows when a grant is added, so the total is
 * monotonic in the grants (tests/unit/check_audit.c proves it over every
 * combination). Computed from the effective rules (model.h) alone.
 */
#include "audit.h"
#include "netreview.h"
#include "common.h"
#include "exposure.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>

/* ---- audit ------------------------------------------------------------------------------ */

enum {
	A_HOST_VIEW, A_HOST_WRITES, A_WORKSPACE, A_NETWORK, A_ENV, A_SECCOMP, A_LANDLOCK,
	A_SOCKETS, A_SHARED_TMP, A_WALL, A_LIMITS, A_IDENTITY, A__COUNT
};

static const struct audit_def {
	const char *id, *name, *what;
	unsigned weight;
} audit_defs[A__COUNT] = {
	[A_HOST_VIEW] = { "A01", "host-view", "how much of the host file system is visible", 10 },
	[A_HOST_WRITES] = { "A02", "host-writes", "host paths writable beyond the workspace", 15 },
	[A_WORKSPACE] = { "A03", "workspace", "access to the workspace directory", 5 },
	[A_NETWORK] = { "A04", "network", "the network namespace", 15 },
	[A_ENV] = { "A05", "environment", "the caller's environment, secrets above all", 10 },
	[A_SECCOMP] = { "A06", "seccomp", "system calls outside the default deny group", 15 },
	[A_LANDLOCK] = { "A07", "landlock", "the file-access ruleset inside the sandbox", 5 },
	[A_SOCKETS] = { "A08", "daemon-sockets", "control sockets of host daemons", 10 },
	[A_SHARED_TMP] = { "A09", "shared-tmp", "the host's /tmp and /dev/shm", 5 },
	[A_WALL] = { "A10", "wall-limit", "how long a command may run", 4 },
	[A_LIMITS] = { "A11", "resource-limits", "file size, open files, captured output", 3 },
	[A_IDENTITY] = { "A12", "identity", "the uid and gid user code runs as", 3 },
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

/* A01 weighs the view a policy builds, not the number of its rules: each
 * read-only bind counts for the host area it shows. The system
 * directories programs run from count one point together; each area that
 * holds users' or services' data counts its weight, a bind below one (a
 * project under /home) one point; any other top-level directory one point.
 * The weights add up to more than the check's 10, so binding the host's
 * top-level directories one by one scores what root host-ro does. */
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

static unsigned view_points(const char *path, bool *system)
{
	for (size_t i = 0; i < ARRAY_SIZE(system_dirs); i++)
		if (rv_within(path, system_dirs[i])) {
			*system = true;
			return 0;
		}
	for (size_t i = 0; i < ARRAY_SIZE(view_areas); i++) {
		if (strcmp(path, view_areas[i].path) == 0)
			return view_areas[i].points;
		if (rv_within(path, view_areas[i].path))
			return 1;
	}
	return 1;
}

static int audit_view(const review_policy *p, audit_report *r)
{
	unsigned points = 0;
	bool system = false;
	size_t n_ro = 0;
	const rv_origin *o = NULL;

	for (size_t i = 0; i < p->n_mounts; i++) {
		if (p->mounts[i].kind != MNT_RO_BIND)
			continue;
		n_ro++;
		if (strcmp(p->mounts[i].path, "/") == 0)
			return set_item(r, A_HOST_VIEW, 10, &p->mounts[i].o,
			                "ro-bind /: everything the sandbox identity can read on the host");
		points += view_points(p->mounts[i].path, &system);
		o = &p->mounts[i].o;
	}
	if (p->root == ROOT_HOST_RO)
		return set_item(r, A_HOST_VIEW, 10, &p->root_set.o,
		                "root host-ro: everything the sandbox identity can read on the host");
	if (n_ro == 0)
		return set_item(r, A_HOST_VIEW, 0, NULL, "root none and no ro-bind: no host files");
	points += system ? 1 : 0;
	if (points <= 1 && system)
		return set_item(r, A_HOST_VIEW, points, o, "root none with %zu ro-bind path%s, system "
		                "directories only", n_ro, n_ro == 1 ? "" : "s");
	return set_item(r, A_HOST_VIEW, points, o, "root none with %zu ro-bind path%s, %s",
	                n_ro, n_ro == 1 ? "" : "s", points >= 10 ? "as much of the host as root "
	                "host-ro" : "beyond the system directories");
}

/* A02: writable host paths, and the write-roots beneath which a caller
 * (run --rw, a request's extra_writable) may grant more: each counts as a
 * writable path; one whose change runs code or changes the host, all. */
static int audit_writes(const review_policy *p, audit_report *r)
{
	size_t n = p->n_writes + p->n_write_roots;
	const rv_origin *o = NULL;
	char also[PATH_MAX + 64] = "";

	for (size_t i = 0; i < p->n_writes; i++)
		if (classify_write(p, p->writes[i].s) != W_NONE)
			return set_item(r, A_HOST_WRITES, 15, &p->writes[i].o,
			                "write %s: a path whose change runs code or changes the host",
			                p->writes[i].s);
	for (size_t i = 0; i < p->n_write_roots; i++)
		if (classify_write(p, p->write_roots[i].s) != W_NONE || rv_within("/home", p->write_roots[i].s))
			return set_item(r, A_HOST_WRITES, 15, &p->write_roots[i].o,
			                "write-root %s: callers may make a path whose change runs code or "
			                "changes the host writable", p->write_roots[i].s);
	if (n == 0)
		return set_item(r, A_HOST_WRITES, 0, NULL, "no writable host path beyond the workspace");
	if (p->n_write_roots) {
		o = &p->write_roots[p->n_write_roots - 1].o;
		snprintf(also, sizeof(also), " (write-root %s%s: callers may grant paths beneath %s)",
		         p->write_roots[0].s, p->n_write_roots > 1 ? ", ..." : "",
		         p->n_write_roots > 1 ? "them" : "it");
	}
	if (p->n_writes)
		o = &p->writes[p->n_writes - 1].o;
	return set_item(r, A_HOST_WRITES, (unsigned)(n > 3 ? 15 : 5 * n), o,
	                "%zu writable host path%s beyond the workspace%s", n, n == 1 ? "" : "s", also);
}

static int audit_env(const review_policy *p, audit_report *r)
{
	char names[256];

	if (p->env_base == ENV_INHERIT && leaked_samples(p, NULL, names, sizeof(names)) > 0)
		return set_item(r, A_ENV, 10, &p->env_base_set.o, "env inherit passes secrets (%s)", names);
	for (size_t i = 0; i < p->n_env_pass; i++) {
		const rv_str *e = &p->env_pass[i];

		if (rv_has_glob(e->s) ? leaked_samples(p, e->s, names, sizeof(names)) > 0
		                   : secret_looking(e->s) && !env_denied(p, e->s))
			return set_item(r, A_ENV, 10, &e->o, "env pass %s admits secrets", e->s);
	}
	for (size_t i = 0; i < p->n_env_set; i++) {
		size_t len = strcspn(p->env_set[i].s, "=");
		char name[256];

		snprintf(name, sizeof(name), "%.*s", (int)(len < sizeof(name) ? len : sizeof(name) - 1),
		         p->env_set[i].s);
		if (secret_looking(name))
			return set_item(r, A_ENV, 10, &p->env_set[i].o, "env set %s: a secret in the policy", name);
	}
	if (p->env_base == ENV_INHERIT)
		return set_item(r, A_ENV, 4, &p->env_base_set.o,
		                "env inherit: the caller's environment minus the deny patterns");
	return set_item(r, A_ENV, 0, &p->env_base_set.o,
	                "env clear: only named variables pass, no credential-shaped one");
}

/* A06: no filter; calls taken out of the group; a group older than the
 * newest, which allows every call its libseccomp did not know (a newer
 * kernel's). */
static int audit_seccomp(const review_policy *p, size_t n_allow, const rv_origin *o,
                         audit_report *r)
{
	bool denies = false;
	int g = p->sc_group ? rv_group_index(p->sc_group, &denies) : -1;
	bool old = g >= 0 && g != rv_group_newest() && !denies;
	unsigned points = (unsigned)(3 * (n_allow > 5 ? 5 : n_allow)) + (old ? 5 : 0);
	char also[128] = "";

	if (p->sc_mode == SC_NONE)
		return set_item(r, A_SECCOMP, 15, &p->sc_mode_set.o, "seccomp none: no syscall filter");
	if (g < 0)
		return set_item(r, A_SECCOMP, 15, &p->sc_mode_set.o, "seccomp group %s: not in this "
		                "osb-isolate, no filter can be built", p->sc_group ? p->sc_group : "?");
	if (old)
		snprintf(also, sizeof(also), "%s allows calls newer than its libseccomp table",
		         p->sc_group);
	if (n_allow)
		return set_item(r, A_SECCOMP, points, o, "%zu call%s removed from %s%s%s", n_allow,
		                n_allow == 1 ? "" : "s", p->sc_group, old ? "; " : "", also);
	if (old)
		return set_item(r, A_SECCOMP, points, &p->sc_mode_set.o, "%s", also);
	return set_item(r, A_SECCOMP, 0, &p->sc_mode_set.o, "%s, complete: unknown calls get ENOSYS",
	                p->sc_group);
}

static int audit_kernel(const review_policy *p, audit_report *r)
{
	size_t n_allow = 0;
	const rv_origin *o = NULL;
	int e;

	for (size_t i = 0; i < p->n_sc_rules; i++)
		if (p->sc_rules[i].allow) {
			n_allow++;
			o = &p->sc_rules[i].o;
		}
	if ((e = audit_seccomp(p, n_allow, o, r)) < 0)
		return e;
	if (p->landlock == LL_OFF)
		return set_item(r, A_LANDLOCK, 5, &p->landlock_set.o, "landlock off");
	if (p->landlock == LL_AUTO)
		return set_item(r, A_LANDLOCK, 2, &p->landlock_set.o,
		                "landlock auto: applied where the kernel has it, else skipped");
	return set_item(r, A_LANDLOCK, 0, &p->landlock_set.o, "landlock required");
}

static int count_exposer(const review_policy *p, const char *path, const char *rule,
                         const rv_origin *o, void *ctx)
{
	const rv_origin **first = ctx;

	(void)p; (void)path; (void)rule;
	if (!*first)
		*first = o;
	return 0;
}

static int audit_exposure(const review_policy *p, audit_report *r)
{
	const rv_origin *o = NULL;
	const char *what = NULL;
	int e;

	for (size_t i = 0; i < ARRAY_SIZE(daemon_sockets) && !o; i++) {
		exposers(p, daemon_sockets[i], true, count_exposer, &o);
		what = daemon_sockets[i];
	}
	e = o ? set_item(r, A_SOCKETS, 10, o, "%s is reachable", what)
	      : set_item(r, A_SOCKETS, 0, NULL, "no daemon socket is reachable");
	if (e < 0)
		return e;
	o = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(shared_dirs) && !o; i++) {
		exposers(p, shared_dirs[i], true, count_exposer, &o);
		what = shared_dirs[i];
	}
	return o ? set_item(r, A_SHARED_TMP, 5, o, "the host's %s is shared", what)
	         : set_item(r, A_SHARED_TMP, 0, NULL, "private /tmp and /dev/shm, or none");
}

static int audit_limits(const review_policy *p, audit_report *r)
{
	static const int lims[] = { LIM_FSIZE, LIM_NOFILE, LIM_OUTPUT };
	unsigned missing = 0;
	char names[64] = "";
	size_t used = 0;
	int e;

	if (!p->limit_set[LIM_WALL].set || p->limits[LIM_WALL] == UINT64_MAX)
		e = set_item(r, A_WALL, 4, p->limit_set[LIM_WALL].set ? &p->limit_set[LIM_WALL].o : NULL,
		             "no wall-clock limit");
	else if (p->limits[LIM_WALL] > 60ULL * 60 * 1000)
		e = set_item(r, A_WALL, 2, &p->limit_set[LIM_WALL].o, "wall limit above one hour");
	else
		e = set_item(r, A_WALL, 0, &p->limit_set[LIM_WALL].o, "wall limit of at most one hour");
	if (e < 0)
		return e;
	for (size_t i = 0; i < ARRAY_SIZE(lims); i++)
		if (!p->limit_set[lims[i]].set || p->limits[lims[i]] == UINT64_MAX) {
			int w = snprintf(names + used, sizeof(names) - used, " %s", rv_limit_names[lims[i]]);

			missing++;
			if (w > 0 && (size_t)w < sizeof(names) - used)
				used += (size_t)w;
		}
	if ((e = missing ? set_item(r, A_LIMITS, missing, NULL, "unlimited:%s", names)
	                 : set_item(r, A_LIMITS, 0, NULL, "fsize, nofile and output are limited")) < 0)
		return e;
	if (p->uid == 0 || p->gid == 0)
		return set_item(r, A_IDENTITY, 3, &p->user_set.o, "uid or gid 0");
	/* On the host, pinned ids of an account give the sandbox its files. */
	if (p->host_ids_set.set &&
	    (rv_uid_is_account(p->host_uid) || rv_gid_is_group(p->host_gid)))
		return set_item(r, A_IDENTITY, 3, &p->host_ids_set.o,
		                "host-ids %u %u: an account of this host", p->host_uid, p->host_gid);
	return set_item(r, A_IDENTITY, 0, &p->user_set.o, "uid %u gid %u", p->uid, p->gid);
}
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
		return set_item(r, A_NETWORK, 15, &p->net_set.o, "network host: the host's network "
		                "namespace");
	if (p->caller_net.set)
		return set_item(r, A_NETWORK, 15, &p->caller_net.o, "allow-caller network: a caller may "
		                "share the host's network namespace");
	if (p->net == NET_ALLOW)
		return audit_network_allow(p, r);
	return set_item(r, A_NETWORK, 0, &p->net_set.o, "network none: loopback only");
}


int audit_policy(const review_policy *p, audit_report *r)
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
	if ((e = audit_view(p, r)) < 0 || (e = audit_writes(p, r)) < 0 ||
	    (e = set_item(r, A_WORKSPACE, ws_score(p->ws_mode),
	                  &p->ws_set.o, "workspace %s", rv_ws_words[p->ws_mode])) < 0 ||
	    (e = audit_network(p, r)) < 0 ||
	    (e = audit_env(p, r)) < 0 || (e = audit_kernel(p, r)) < 0 ||
	    (e = audit_exposure(p, r)) < 0 || (e = audit_limits(p, r)) < 0) {
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

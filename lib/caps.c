/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* caps.c — the capabilities probe: what isolation this host gives, and why
 * not when it does not (caps.h says which file does what).
 *
 * Every answer comes from a real attempt, never from a version number: bwrap
 * is located and its --help read; a sandbox with the namespaces of a run is
 * started in each identity mode (userns always, root when running as root)
 * and, only when one fails, smaller sandboxes in parallel name the step that
 * failed; a forked child creates a user namespace itself, mounts overlayfs in
 * it, enforces a Landlock ruleset and loads the very seccomp filter a run
 * loads. Sysctls and /proc/self/status are read only to *name* what blocked
 * an attempt. Each item gets a status, a one-line reason and a remedy; the
 * summary says which identity modes can run which shipped policies. The
 * result is immutable, reference-counted and cached per process (unless the
 * probe met a process limit): launches consult the cache (caps_check_policy)
 * to refuse early, never to degrade.
 */
#include "caps.h"
#include "caps-judge.h"
#include "caps-probe.h"
#include "caps-overlay.h"
#include "proc.h"

#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <sys/wait.h>

/* ---- items ------------------------------------------------------------------ */

const char *const caps_item_names[IT__COUNT] = {
	"bwrap", "bwrap_options", "bwrap_bind_fd", "bwrap_disable_userns", "user_namespace",
	"net_namespace", "pid_namespace", "seccomp", "nested", "landlock", "cgroup", "cgroup_limits",
	"overlayfs", "root", "overlay", "diff_supported", "commit_supported", "persist",
	"network_allowlist", "proc_cover",
};

const char *const caps_mode_names[M__COUNT] = { "userns", "root" };

const caps_opt caps_bwrap_opts[CAPS_N_OPTS] = {
	{ "--unshare-pid", NEED_ALL }, { "--unshare-net", NEED_ALL }, { "--unshare-ipc", NEED_ALL },
	{ "--unshare-uts", NEED_ALL }, { "--hostname", NEED_ALL }, { "--json-status-fd", NEED_ALL },
	{ "--die-with-parent", NEED_ALL }, { "--new-session", NEED_ALL }, { "--ro-bind", NEED_ALL },
	{ "--tmpfs", NEED_ALL }, { "--dev", NEED_ALL }, { "--proc", NEED_ALL },
	{ "--perms", NEED_ALL }, { "--size", NEED_ALL }, { "--remount-ro", NEED_ALL },
	{ "--ro-bind-data", NEED_ALL }, { "--chdir", NEED_ALL },
	{ "--unshare-user", NEED_USERNS }, { "--uid", NEED_USERNS }, { "--gid", NEED_USERNS },
	{ "--cap-drop", NEED_ROOT }, { "--cap-add", NEED_ROOT },
	{ "--bind-fd", NEED_OWN_ITEM }, { "--ro-bind-fd", NEED_OWN_ITEM },
	{ "--disable-userns", NEED_OWN_ITEM },
	{ "--seccomp", NEED_NONE }, { "--add-seccomp-fd", NEED_NONE }, { "--overlay", NEED_NONE },
	{ "--tmp-overlay", NEED_NONE }, { "--ro-overlay", NEED_NONE }, { "--argv0", NEED_NONE },
	{ "--assert-userns-disabled", NEED_NONE }, { "--info-fd", NEED_NONE },
	{ "--sync-fd", NEED_NONE }, { "--block-fd", NEED_NONE }, { "--userns-block-fd", NEED_NONE },
	{ "--as-pid-1", NEED_NONE }, { "--clearenv", NEED_NONE },
};

const char *const caps_sysctl_names[3] = {
	"user.max_user_namespaces", "kernel.unprivileged_userns_clone",
	"kernel.apparmor_restrict_unprivileged_userns",
};
const char *const caps_sysctl_files[3] = {
	"/proc/sys/user/max_user_namespaces", "/proc/sys/kernel/unprivileged_userns_clone",
	"/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
};

_Static_assert(sizeof(caps_bwrap_opts) / sizeof(caps_bwrap_opts[0]) == CAPS_N_OPTS, "options");

char *caps_dup(osb_caps *c, const char *s)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		c->oom = true;
	return d;
}

void caps_item_set(osb_caps *c, enum item_id id, int status, const char *reason,
                     const char *remedy)
{
	caps_item *it = &c->items[id];

	free(it->reason);
	free(it->remedy);
	it->status = status;
	it->reason = caps_dup(c, reason);
	it->remedy = status == OSB_CAPS_OK ? NULL : caps_dup(c, remedy);
}

const char *caps_fmt(char *buf, size_t size, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vsnprintf(buf, size, f, ap);
	va_end(ap);
	return buf;
}

const char *caps_no_answer(char *buf, size_t size, int status)
{
	char how[48];

	return caps_fmt(buf, size, "the probe child ended without an answer: it %s",
	                wait_status_text(status, how, sizeof(how)));
}

bool caps_has_opt(const osb_caps *c, const char *name)
{
	for (size_t i = 0; i < CAPS_N_OPTS; i++)
		if (strcmp(caps_bwrap_opts[i].name, name) == 0)
			return c->opt[i];
	return false;
}

/* Does the init make POL's /proc cover (--make-cover)? A "proc" mount and
 * a "dev /dev" one, as lib/bwrap.c's init_covers decides it from the same
 * policy_view_mounts. (A plan's identity masks without a proc mount are
 * covered the same way, with the same mounts.) */
static bool init_makes_cover(const osb_policy *pol)
{
	bool proc, dev;

	policy_view_mounts(pol, &proc, &dev);
	return proc && dev;
}

caps_needs caps_needs_of(const osb_policy *pol)
{
	return (caps_needs){ .id = pol->id_mode, .netns = pol->net != NET_HOST,
	                .seccomp = pol->sc_mode != SC_NONE,
	                .landlock = pol->landlock == LL_REQUIRED,
	                .overlay = pol->ws_mode == WS_OVERLAY, .cover = init_makes_cover(pol) };
}

/* ---- the probe -------------------------------------------------------------------- */

static unsigned probe_runs;

unsigned caps_probe_runs(void)
{
	return __atomic_load_n(&probe_runs, __ATOMIC_SEQ_CST);
}

/* The configuration's cgroup parents, for the probe (NULL-terminated). */
static int parents_of(osb_caps *c, const osb_config *cfg)
{
	size_t n = cfg ? osb_config_cgroup_parent_count(cfg) : 0;

	if (n && !(c->cg_parents = calloc(n + 1, sizeof(char *))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (!(c->cg_parents[i] = strdup(osb_config_cgroup_parent(cfg, i))))
			return -ENOMEM;
	return 0;
}

/* A probe made now, from GIVEN's facts (what a launch has learnt) or,
 * when GIVEN is NULL, from facts gathered for it. */
static osb_caps *probe_new(const osb_config *cfg, const host_facts *given, osb_error *err)
{
	uint64_t start = now_ms();
	osb_caps *c = calloc(1, sizeof(*c));
	caps_probe *p = calloc(1, sizeof(*p));

	if (c && parents_of(c, cfg) < 0) {
		c->refs = 1;
		osb_caps_free(c);
		c = NULL;
	}
	if (!c || !p) {
		free(c);
		free(p);
		osb_err_set(err, OSB_E_NOMEM, ENOMEM, "probe", "out of memory");
		return NULL;
	}
	if (given && host_facts_copy(&c->host, given) < 0) {
		free(c);
		free(p);
		osb_err_set(err, OSB_E_NOMEM, ENOMEM, "probe", "out of memory");
		return NULL;
	}
	if (given)
		c->generation = given->generation;
	else if (host_facts_now(&c->host, &c->generation, err) < 0) {
		free(c);
		free(p);
		return NULL;
	}
	__atomic_add_fetch(&probe_runs, 1, __ATOMIC_SEQ_CST);
	c->refs = 1;
	caps_probe_run(c, p);
	caps_judge(c, p);
	free(p);
	c->probe_ms = now_ms() - start;
	if (c->oom) {
		osb_caps_free(c);
		osb_err_set(err, OSB_E_NOMEM, ENOMEM, "probe", "out of memory");
		return NULL;
	}
	return c;
}

/* ---- the cache -------------------------------------------------------------------- */

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static osb_caps *cache;

int osb_caps_probe(osb_caps **out, unsigned flags, osb_error *err)
{
	return osb_caps_probe_config(out, NULL, flags, err);
}

/* The cached probe answers for CFG when it was made for the same programs
 * and the same cgroup parents. */
static bool cache_fits(const osb_caps *c, const osb_config *cfg)
{
	size_t n = cfg ? osb_config_cgroup_parent_count(cfg) : 0, i = 0;

	if (c->generation != host_paths_generation())
		return false;
	for (; i < n; i++)
		if (!c->cg_parents || !c->cg_parents[i] ||
		    strcmp(c->cg_parents[i], osb_config_cgroup_parent(cfg, i)) != 0)
			return false;
	return !c->cg_parents || !c->cg_parents[i];
}

/* The cached probe, made anew (from GIVEN's facts when not NULL) when there
 * is none, it does not fit, or FLAGS ask for it. A probe that met a process
 * limit is handed out but not kept: the next call, the limit lifted, probes
 * again (what it found is a moment, not the host). */
static int probe_get(osb_caps **out, const osb_config *cfg, const host_facts *given,
                     unsigned flags, osb_error *err)
{
	osb_caps *fresh = NULL, *old = NULL;

	pthread_mutex_lock(&cache_lock);
	if (!cache || (flags & OSB_CAPS_REFRESH) || !cache_fits(cache, cfg)) {
		fresh = probe_new(cfg, given, err);
		if (!fresh) {
			pthread_mutex_unlock(&cache_lock);
			return -(err && err->code ? err->code : OSB_E_NOMEM);
		}
		if (fresh->at_limit) {
			pthread_mutex_unlock(&cache_lock);
			*out = fresh;
			return 0;
		}
		old = cache;
		cache = fresh;
	}
	__atomic_add_fetch(&cache->refs, 1, __ATOMIC_SEQ_CST);
	*out = cache;
	pthread_mutex_unlock(&cache_lock);
	osb_caps_free(old);
	return 0;
}

int osb_caps_probe_config(osb_caps **out, const osb_config *cfg, unsigned flags, osb_error *err)
{
	osb_err_clear(err);
	if (!out)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "usage", "osb_caps_probe needs OUT");
	*out = NULL;
	if (flags & ~(unsigned)OSB_CAPS_REFRESH)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "usage",
		                   "osb_caps_probe: unknown flags 0x%x", flags);
	return probe_get(out, cfg, NULL, flags, err);
}

void osb_caps_free(osb_caps *c)
{
	if (!c || __atomic_sub_fetch(&c->refs, 1, __ATOMIC_SEQ_CST) > 0)
		return;
	for (size_t i = 0; i < IT__COUNT; i++) {
		free(c->items[i].reason);
		free(c->items[i].remedy);
	}
	for (int m = 0; m < M__COUNT; m++) {
		free(c->mode_stop[m].reason);
		free(c->mode_stop[m].remedy);
		free(c->net_stop[m].reason);
		free(c->net_stop[m].remedy);
		free(c->overlay_stop[m].reason);
		free(c->overlay_stop[m].remedy);
		free(c->cover_stop[m].reason);
		free(c->cover_stop[m].remedy);
	}
	for (size_t i = 0; i < c->n_profiles; i++) {
		free(c->profiles[i].name);
		free(c->profiles[i].error);
	}
	free(c->profiles);
	free(c->policy_dir);
	strv_free(&c->write_roots);
	free(c->bwrap_path);
	free(c->bwrap_version);
	free(c->uid_map);
	free(c->captext);
	free(c->kernel);
	host_facts_free(&c->host);
	for (size_t i = 0; c->cg_parents && c->cg_parents[i]; i++)
		free(c->cg_parents[i]);
	free(c->cg_parents);
	free(c);
}

/* ---- accessors -------------------------------------------------------------------- */

int osb_caps_available(const osb_caps *c)
{
	return c && (c->mode_ok[M_USERNS] || c->mode_ok[M_ROOT]);
}

unsigned osb_caps_modes(const osb_caps *c)
{
	if (!c)
		return 0;
	return (c->mode_ok[M_USERNS] ? OSB_CAPS_MODE_USERNS : 0u) |
	       (c->mode_ok[M_ROOT] ? OSB_CAPS_MODE_ROOT : 0u);
}

size_t osb_caps_count(const osb_caps *c)
{
	return c ? IT__COUNT : 0;
}

int osb_caps_find(const osb_caps *c, const char *id)
{
	for (size_t i = 0; c && id && i < IT__COUNT; i++)
		if (strcmp(caps_item_names[i], id) == 0)
			return (int)i;
	return -OSB_E_USAGE;
}

const char *osb_caps_id(const osb_caps *c, size_t i)
{
	return c && i < IT__COUNT ? caps_item_names[i] : NULL;
}

int osb_caps_status(const osb_caps *c, size_t i)
{
	return c && i < IT__COUNT ? c->items[i].status : -1;
}

const char *osb_caps_reason(const osb_caps *c, size_t i)
{
	return c && i < IT__COUNT ? c->items[i].reason : NULL;
}

const char *osb_caps_remedy(const osb_caps *c, size_t i)
{
	return c && i < IT__COUNT ? c->items[i].remedy : NULL;
}

const char *osb_caps_status_name(int status)
{
	switch (status) {
	case OSB_CAPS_OK: return "ok";
	case OSB_CAPS_UNAVAILABLE: return "unavailable";
	case OSB_CAPS_DEGRADED: return "degraded";
	default: return NULL;
	}
}

const char *osb_caps_bwrap_path(const osb_caps *c)
{
	return c ? c->bwrap_path : NULL;
}

const char *osb_caps_bwrap_version(const osb_caps *c)
{
	return c ? c->bwrap_version : NULL;
}

const char *osb_caps_seccomp_sha256(const osb_caps *c)
{
	return c && c->seccomp_sha256[0] ? c->seccomp_sha256 : NULL;
}

int osb_caps_landlock_abi(const osb_caps *c)
{
	return c ? c->landlock_abi : 0;
}

/* ---- early refusal ---------------------------------------------------------------- */

static int refuse(const caps_why *w, osb_error *err)
{
	return osb_err_set(err, OSB_E_HOST, 0, "probe", "%s %s: %s; remedy: %s", w->id,
	                   osb_caps_status_name(w->status), w->reason,
	                   w->remedy ? w->remedy : "none known");
}

static enum mode mode_of(const osb_policy *p, const host_facts *h)
{
	return host_mode(p, h) == ID_ROOT ? M_ROOT : M_USERNS;
}

/* A reference to the cached probe, or NULL when this process has none. */
static osb_caps *cached(void)
{
	osb_caps *c;

	pthread_mutex_lock(&cache_lock);
	c = cache && cache->generation == host_paths_generation() ? cache : NULL;
	if (c)
		__atomic_add_fetch(&c->refs, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&cache_lock);
	return c;
}

/* Does the host pass every check a launch of POLICY needs that costs no
 * sandbox: bwrap found, not setuid, its --help listing the options the plan
 * relies on, a user namespace for userns mode or root's capabilities for
 * root mode (the mode host_mode picks), Landlock when required, the overlay
 * workspace when the policy has one (a forked child's attempt,
 * caps-overlay.c)? What only a sandbox shows (loopback in a network
 * namespace, the filter loading, a security module confining bwrap, the
 * init's /proc cover: caps-cover.c's attempt would add 0.5 ms to every
 * launch of strict, and a cached probe's answer is used where there is one)
 * is left to the launch, which fails closed with bwrap's or the init's own
 * message. False sends the caller to
 * the full probe, whose items name the reason and the remedy. Pure. */
static bool launch_checks_pass(const osb_policy *p, const host_facts *h)
{
	if (h->bwrap_state != BWRAP_OK || !h->feat.bind_fd || !h->feat.remount_ro)
		return false;
	if (mode_of(p, h) == M_USERNS ? h->userns_errno != 0 || !h->feat.disable_userns
	                              : !h->root_caps)
		return false;
	if (p->ws_mode == WS_OVERLAY) {
		enum ovt_step step;
		int status;

		if (caps_overlay_try(mode_of(p, h) == M_USERNS, &step, &status) != 0)
			return false;
	}
	return p->landlock != LL_REQUIRED || h->landlock_abi > 0;
}

/* Every launch is checked, but a fresh process (each `osb-isolate run`)
 * must not pay for the full probe, which starts sandboxes of its own: the
 * cached probe answers when there is one, else the cheap checks, and only
 * when one of those fails does the full probe run to name the reason. */
int caps_check_policy(const osb_policy *p, const host_facts *h, osb_error *err)
{
	osb_caps *c;
	caps_needs nd;
	caps_why w;
	int r = 0;

	if (!p || !h)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "usage", "no policy");
	c = cached();
	if (!c && launch_checks_pass(p, h))
		return 0;
	/* The probe judges from the facts this launch gathered: a bwrap whose
	 * --help hangs is waited for once, not once more here. */
	if (!c && (r = probe_get(&c, NULL, h, 0, err)) < 0)
		return r;
	nd = caps_needs_of(p);
	if (caps_policy_stopped(c, &nd, mode_of(p, h), &w))
		r = refuse(&w, err);
	osb_caps_free(c);
	return r;
}


/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* host.c — the facts of this host (host.h), found once, decided on
 * elsewhere.
 *
 * Each fact is a real attempt or a direct reading, never a guess from a
 * version: a child creates a user namespace as the sandbox's bwrap would,
 * bwrap's --help lists its options, lstat says which /proc entries this
 * kernel has, landlock_create_ruleset gives the ABI. Answers that cannot
 * change within a process are cached (a seccomp filter, once installed,
 * stays; a binary's --help changes only with the binary, so it is cached by
 * path, device, inode, size, mtime and ctime, in the process and in a file
 * of the caller's own, helpcache.c); the caller's ids and capabilities are
 * read anew.
 * Nothing here decides anything a policy asks for but host_mode().
 */
#include "host.h"
#include "helpcache.h"
#include "hostid.h"
#include "proc.h"

#include <limits.h>
#include <linux/landlock.h>
#include <pthread.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#ifndef OSB_NETPROXY_PATH
#define OSB_NETPROXY_PATH "/usr/local/libexec/osb-isolate/osb-isolate-netproxy"
#endif
#ifndef OSB_INIT_PATH
#define OSB_INIT_PATH "/usr/local/libexec/osb-isolate/osb-isolate-init"
#endif
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* ---- bwrap: located, its --help read -------------------------------------- */

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

/* The first absolute entry of PATH where NAME is executable. A relative
 * entry is never trusted. */
static int find_on_path(const char *path, const char *name, char **out)
{
	_cleanup_free_ char *copy = strdup(path);
	char *save = NULL;

	if (!copy)
		return -ENOMEM;
	for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		char *cand = NULL;

		if (dir[0] != '/')
			continue;
		if (asprintf(&cand, "%s/%s", dir, name) < 0)
			return -ENOMEM;
		if (access(cand, X_OK) == 0) {
			*out = cand;
			return 0;
		}
		free(cand);
	}
	return -ENOENT;
}

/* The one lookup order: the configured path, else the build-time one, else
 * PATH. Fills bwrap (found) or bwrap_errno (not), and bwrap_tried. */
static int bwrap_locate(const char *configured, host_facts *h)
{
	const char *fixed = configured && *configured ? configured : OSB_BWRAP_PATH;
	/* secure_getenv: the library's only look at the environment for what it
	 * executes is this default, and never for a setuid caller. */
	const char *path = secure_getenv("PATH");
	int r;

	h->bwrap_from = configured && *configured ? BWRAP_FROM_CONFIG : BWRAP_FROM_BUILD;
	if (fixed && *fixed) {
		if (!(h->bwrap_tried = strdup(fixed)))
			return -ENOMEM;
		if (access(fixed, X_OK) < 0) {
			h->bwrap_errno = errno;
			h->bwrap_state = BWRAP_MISSING;
			return 0;
		}
		return (h->bwrap = strdup(fixed)) ? 0 : -ENOMEM;
	}
	h->bwrap_from = BWRAP_FROM_PATH;
	if (!(h->bwrap_tried = strdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin")))
		return -ENOMEM;
	r = find_on_path(h->bwrap_tried, "bwrap", &h->bwrap);
	if (r == -ENOENT) {
		h->bwrap_errno = ENOENT;
		h->bwrap_state = BWRAP_MISSING;
		return 0;
	}
	return r;
}

/* The answer depends only on the binary: kept per (path, device, inode,
 * size, mtime, ctime) in this process, and between processes in a file of
 * the caller's own (helpcache.c). */
static pthread_mutex_t help_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	char *path, *help;
	helpcache_key key;
} help_cache;

static bool help_cached(const char *bwrap, const helpcache_key *key, char **out)
{
	bool hit;

	pthread_mutex_lock(&help_lock);
	hit = help_cache.path && strcmp(help_cache.path, bwrap) == 0 &&
	      helpcache_key_eq(&help_cache.key, key);
	*out = hit ? strdup(help_cache.help) : NULL;
	pthread_mutex_unlock(&help_lock);
	return hit;
}

static void help_remember(const char *bwrap, const helpcache_key *key, const char *help)
{
	char *p = strdup(bwrap), *h = strdup(help);

	pthread_mutex_lock(&help_lock);
	if (p && h) {
		free(help_cache.path);
		free(help_cache.help);
		help_cache.path = p;
		help_cache.help = h;
		help_cache.key = *key;
		p = h = NULL;
	}
	pthread_mutex_unlock(&help_lock);
	free(p);
	free(h);
}

void host_help_forget(const char *bwrap)
{
	pthread_mutex_lock(&help_lock);
	if (help_cache.path && strcmp(help_cache.path, bwrap) == 0) {
		free(help_cache.path);
		free(help_cache.help);
		help_cache.path = help_cache.help = NULL;
	}
	pthread_mutex_unlock(&help_lock);
	helpcache_forget(bwrap);
}

/* Is the --help text bubblewrap's usage ("usage: PATH [OPTIONS...] ...",
 * listing --help)? Anything else is not read for options: a binary that
 * prints garbage is named as such, not as a bwrap lacking --bind-fd. */
static bool help_is_usage(host_facts *h)
{
	const char *t = h->bwrap_help;
	char first[61];
	size_t n = 0;

	if (strncmp(t, "usage: ", 7) == 0 && help_has(t, "--help"))
		return true;
	/* Quote its first line, printable ASCII only. */
	for (; t[n] && t[n] != '\n' && n + 1 < sizeof(first); n++) {
		first[n] = '?';
		if (t[n] >= 0x20 && t[n] < 0x7f)
			first[n] = t[n];
	}
	first[n] = '\0';
	h->bwrap_state = BWRAP_NO_HELP;
	h->bwrap_errno = 0;
	snprintf(h->bwrap_why, sizeof(h->bwrap_why),
	         "%s --help printed no bubblewrap usage (%s%s%s): is it bubblewrap?", h->bwrap,
	         n ? "first line \"" : "nothing", first, n ? "\"" : "");
	return false;
}

/* bwrap's --help, once per binary; a setuid bwrap is never run. */
static int bwrap_read_help(host_facts *h)
{
	const char *argv[] = { h->bwrap, "--help", NULL };
	helpcache_key key;
	struct stat st;
	osb_error e;

	if (stat(h->bwrap, &st) < 0) {
		h->bwrap_errno = errno;
		h->bwrap_state = BWRAP_MISSING;
		return 0;
	}
	if (st.st_mode & (S_ISUID | S_ISGID)) {
		h->bwrap_state = BWRAP_SETUID;
		return 0;
	}
	helpcache_key_of(&st, &key);
	if (help_cached(h->bwrap, &key, &h->bwrap_help)) {
		h->help_from = HELP_FROM_PROCESS;
	} else if ((h->bwrap_help = helpcache_load(h->bwrap, &key)) && help_is_usage(h)) {
		h->help_from = HELP_FROM_FILE;
		help_remember(h->bwrap, &key, h->bwrap_help);
	} else {
		free(h->bwrap_help);
		h->bwrap_help = NULL;
		h->help_from = HELP_FROM_RUN;
		if (spawn_capture(argv, 1 << 20, &h->bwrap_help, &e) < 0) {
			/* Nothing is kept of a run that failed: one that could not
			 * even be started at a process limit (bwrap_errno EAGAIN,
			 * bwrap_why naming the limit) is run again by the next call. */
			h->bwrap_state = BWRAP_NO_HELP;
			h->bwrap_errno = e.sys_errno;
			memcpy(h->bwrap_why, e.message, sizeof(h->bwrap_why));
			return e.code == OSB_E_NOMEM ? -ENOMEM : 0;
		}
		if (!help_is_usage(h)) {
			free(h->bwrap_help);
			h->bwrap_help = NULL;
			return 0;
		}
		help_remember(h->bwrap, &key, h->bwrap_help);
		helpcache_store(h->bwrap, &key, h->bwrap_help);
	}
	if (!h->bwrap_help)
		return -ENOMEM;
	bwrap_parse_help(h->bwrap_help, &h->feat);
	h->bwrap_state = BWRAP_OK;
	return 0;
}

/* ---- user namespaces, Landlock, /proc: once per process -------------------- */

/* Can the sandbox's bwrap create a user namespace here? Run by root, that
 * bwrap starts as the sandbox's unprivileged host ids (userns mode never
 * keeps root: lib/hostid.h), so the question is asked as an id of the
 * allocation range, which is what a security module or a sysctl limiting
 * unprivileged user namespaces sees. A real attempt, not a guess from
 * sysctls. */
static pthread_mutex_t userns_lock = PTHREAD_MUTEX_INITIALIZER;
static bool userns_known;
static int userns_errno;

/* The answer, asked once per process. EAGAIN (the child could not be
 * created: a process limit) says nothing of user namespaces and is not
 * kept: the next call asks again. */
static int userns_probe(void)
{
	const spawn_cred range = { HOSTID_RANGE_BASE, HOSTID_RANGE_BASE };
	int r, e;

	pthread_mutex_lock(&userns_lock);
	if (!userns_known) {
		r = spawn_probe_userns(geteuid() == 0 ? &range : NULL);
		userns_errno = r < 0 ? -r : 0;
		userns_known = userns_errno != EAGAIN;
	}
	e = userns_errno;
	pthread_mutex_unlock(&userns_lock);
	return e;
}

static pthread_once_t landlock_once = PTHREAD_ONCE_INIT;
static int landlock_abi, landlock_errno;

static void landlock_probe(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	landlock_abi = abi > 0 ? (int)abi : 0;
	landlock_errno = abi < 0 ? errno : 0;
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
_Static_assert(N_OF(proc_mask_names) <= HOST_PROC_MAX, "HOST_PROC_MAX too small");
_Static_assert(N_OF(proc_ro_names) <= 8, "proc_facts.ro too small");

static pthread_once_t proc_once = PTHREAD_ONCE_INIT;
static proc_facts proc_cache;

static bool proc_has(const char *name, struct stat *st)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%s", name);
	return lstat(path, st) == 0;
}

static void proc_scan(void)
{
	proc_facts *f = &proc_cache;
	struct stat st;

	for (size_t i = 0; i < N_OF(proc_ro_names); i++)
		if (proc_has(proc_ro_names[i], &st))
			f->ro[f->n_ro++] = proc_ro_names[i];
	for (size_t i = 0; i < N_OF(proc_mask_names); i++) {
		if (!proc_has(proc_mask_names[i], &st))
			continue;
		if (S_ISDIR(st.st_mode))
			f->mask_dirs[f->n_mask_dirs++] = proc_mask_names[i];
		else
			f->mask_files[f->n_mask_files++] = proc_mask_names[i];
	}
	f->loadavg = proc_has("loadavg", &st);
}

static bool cap_on(cap_t caps, cap_value_t v)
{
	cap_flag_value_t on = CAP_CLEAR;

	return caps && cap_get_flag(caps, v, CAP_EFFECTIVE, &on) == 0 && on == CAP_SET;
}

static bool root_caps_ok(void)
{
	cap_t caps;
	bool ok;

	if (geteuid() != 0)
		return false;
	caps = cap_get_proc();
	ok = cap_on(caps, CAP_SYS_ADMIN) && cap_on(caps, CAP_SETUID) &&
	     cap_on(caps, CAP_SETGID) && cap_on(caps, CAP_SETPCAP);
	if (caps)
		cap_free(caps);
	return ok;
}

/* ---- the facts -------------------------------------------------------------- */

/* ---- the programs the caller named ---------------------------------------- */

/* Process-wide, as the capabilities cache is: set by osb_set_program(),
 * copied under the lock by each launch and probe. */
static pthread_mutex_t programs_lock = PTHREAD_MUTEX_INITIALIZER;
static host_paths programs;

static int dup_or_null(const char *s, char **out)
{
	*out = NULL;
	return s && !(*out = strdup(s)) ? -ENOMEM : 0;
}

int host_paths_get(host_paths *out)
{
	int r;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&programs_lock);
	out->generation = programs.generation;
	r = dup_or_null(programs.bwrap, &out->bwrap);
	if (r == 0)
		r = dup_or_null(programs.bwrap_origin, &out->bwrap_origin);
	if (r == 0)
		r = dup_or_null(programs.init, &out->init);
	if (r == 0)
		r = dup_or_null(programs.init_origin, &out->init_origin);
	if (r == 0)
		r = dup_or_null(programs.netproxy, &out->netproxy);
	if (r == 0)
		r = dup_or_null(programs.netproxy_origin, &out->netproxy_origin);
	pthread_mutex_unlock(&programs_lock);
	if (r < 0)
		host_paths_free(out);
	return r;
}

void host_paths_free(host_paths *p)
{
	free(p->bwrap);
	free(p->bwrap_origin);
	free(p->init);
	free(p->init_origin);
	free(p->netproxy);
	free(p->netproxy_origin);
	memset(p, 0, sizeof(*p));
}

unsigned host_paths_generation(void)
{
	unsigned g;

	pthread_mutex_lock(&programs_lock);
	g = programs.generation;
	pthread_mutex_unlock(&programs_lock);
	return g;
}

int osb_set_program(osb_program which, const char *path, const char *origin, osb_error *err)
{
	char *p = NULL, *o = NULL, **slot, **oslot;

	osb_err_clear(err);
	if (which != OSB_PROGRAM_BWRAP && which != OSB_PROGRAM_INIT && which != OSB_PROGRAM_NETPROXY)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "usage",
		                   "osb_set_program: unknown program %d", (int)which);
	if (!origin || !*origin)
		origin = "osb_set_program()";
	if (path && *path && (path[0] != '/' || strlen(path) >= PATH_MAX))
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "usage", "%s=%s: %s", origin, path,
		                   path[0] != '/' ? "the path must be absolute" :
		                   "the path is too long");
	if (path && *path && (!(p = strdup(path)) || !(o = strdup(origin)))) {
		free(p);
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "usage", "out of memory");
	}
	pthread_mutex_lock(&programs_lock);
	slot = which == OSB_PROGRAM_BWRAP ? &programs.bwrap :
	       which == OSB_PROGRAM_INIT ? &programs.init : &programs.netproxy;
	oslot = which == OSB_PROGRAM_BWRAP ? &programs.bwrap_origin :
	        which == OSB_PROGRAM_INIT ? &programs.init_origin : &programs.netproxy_origin;
	free(*slot);
	free(*oslot);
	*slot = p;
	*oslot = o;
	programs.generation++;
	pthread_mutex_unlock(&programs_lock);
	return 0;
}

int host_facts_get(const host_paths *paths, host_facts *h, osb_error *err)
{
	const char *init = paths && paths->init ? paths->init : OSB_INIT_PATH;
	int r;

	memset(h, 0, sizeof(*h));
	h->euid = geteuid();
	h->egid = getegid();
	h->root_caps = root_caps_ok();
	h->userns_errno = userns_probe();
	pthread_once(&landlock_once, landlock_probe);
	pthread_once(&proc_once, proc_scan);
	h->landlock_abi = landlock_abi;
	h->landlock_errno = landlock_errno;
	h->proc = proc_cache;
	r = bwrap_locate(paths ? paths->bwrap : NULL, h);
	if (r == 0 && h->bwrap)
		r = bwrap_read_help(h);
	if (r == 0 && !(h->init = strdup(init)))
		r = -ENOMEM;
	if (r == 0 && !(h->netproxy = strdup(paths && paths->netproxy ? paths->netproxy
	                                                              : OSB_NETPROXY_PATH)))
		r = -ENOMEM;
	if (r == 0 && paths && paths->netproxy && paths->netproxy_origin &&
	    !(h->netproxy_origin = strdup(paths->netproxy_origin)))
		r = -ENOMEM;
	if (r == 0 && paths && paths->bwrap && paths->bwrap_origin &&
	    !(h->bwrap_origin = strdup(paths->bwrap_origin)))
		r = -ENOMEM;
	if (r == 0 && paths && paths->init && paths->init_origin &&
	    !(h->init_origin = strdup(paths->init_origin)))
		r = -ENOMEM;
	if (r < 0) {
		host_facts_free(h);
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "probe", "out of memory");
	}
	return 0;
}

int host_facts_now(host_facts *h, unsigned *generation, osb_error *err)
{
	host_paths paths;
	int r;

	memset(h, 0, sizeof(*h));
	if (host_paths_get(&paths) < 0)
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "probe", "out of memory");
	r = host_facts_get(&paths, h, err);
	h->generation = paths.generation;
	if (generation)
		*generation = paths.generation;
	host_paths_free(&paths);
	return r;
}

void host_facts_free(host_facts *h)
{
	free(h->bwrap);
	free(h->bwrap_tried);
	free(h->bwrap_help);
	free(h->init);
	free(h->bwrap_origin);
	free(h->init_origin);
	free(h->netproxy);
	free(h->netproxy_origin);
	h->bwrap = h->bwrap_tried = h->bwrap_help = h->init = NULL;
	h->bwrap_origin = h->init_origin = h->netproxy = h->netproxy_origin = NULL;
}

int host_facts_copy(host_facts *dst, const host_facts *src)
{
	*dst = *src;
	dst->bwrap = dst->bwrap_tried = dst->bwrap_help = dst->init = NULL;
	dst->bwrap_origin = dst->init_origin = dst->netproxy = dst->netproxy_origin = NULL;
	if (dup_or_null(src->bwrap, &dst->bwrap) < 0 ||
	    dup_or_null(src->bwrap_tried, &dst->bwrap_tried) < 0 ||
	    dup_or_null(src->bwrap_help, &dst->bwrap_help) < 0 ||
	    dup_or_null(src->init, &dst->init) < 0 ||
	    dup_or_null(src->bwrap_origin, &dst->bwrap_origin) < 0 ||
	    dup_or_null(src->init_origin, &dst->init_origin) < 0 ||
	    dup_or_null(src->netproxy, &dst->netproxy) < 0 ||
	    dup_or_null(src->netproxy_origin, &dst->netproxy_origin) < 0) {
		host_facts_free(dst);
		return -ENOMEM;
	}
	return 0;
}

enum id_mode host_mode(const osb_policy *p, const host_facts *h)
{
	if (p->id_mode == ID_USERNS || p->id_mode == ID_ROOT)
		return p->id_mode;
	return h->userns_errno == 0 || h->euid != 0 ? ID_USERNS : ID_ROOT;
}

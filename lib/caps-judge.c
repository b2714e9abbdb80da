/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* caps-judge.c — what the probe's attempts mean: items, modes, policies.
 *
 * Pure: from what caps-probe.c found (and the host facts), each item gets a
 * status, a one-line reason and, unless it is ok, a remedy a person can act
 * on; each identity mode is usable or stopped by its first failing item;
 * each shipped policy runs in the modes that give what it needs. An item
 * whose attempt could not start its process (a process limit, fork-hint.h)
 * says so, and its remedy is the process limit's, whatever the feature. A
 * launch's refusal (caps_check_policy) uses the same judgement. The blocker
 * attribution for user namespaces is a table of known causes, driven by
 * unit tests with facts the test host cannot produce.
 */
#include "caps-judge.h"
#include "caps-overlay.h"
#include "caps-overlay-ops.h"
#include "filter.h"

#include <signal.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* ---- bwrap's options ------------------------------------------------------------ */


/* The options a mode needs that this bwrap lacks, as "--a, --b" (empty if
 * none). MODE -1: every needed option of either mode. */
static void missing_opts(const osb_caps *c, int mode, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < CAPS_N_OPTS; i++) {
		enum need nd = caps_bwrap_opts[i].need;
		bool needed = nd == NEED_ALL || (nd == NEED_USERNS && mode != M_ROOT) ||
		              (nd == NEED_ROOT && mode != M_USERNS);

		if (needed && !c->opt[i] && n < size)
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", caps_bwrap_opts[i].name);
	}
}

static void judge_bwrap_options(osb_caps *c)
{
	char missing[512], reason[700];

	if (!c->bwrap_usable) {
		caps_item_set(c, IT_BWRAP_OPTIONS, OSB_CAPS_UNAVAILABLE, "not checked: no usable bwrap",
		         "make bwrap available first (see the bwrap item)");
		caps_item_set(c, IT_BIND_FD, OSB_CAPS_UNAVAILABLE, "not checked: no usable bwrap",
		         "make bwrap available first (see the bwrap item)");
		caps_item_set(c, IT_DISABLE_USERNS, OSB_CAPS_UNAVAILABLE, "not checked: no usable bwrap",
		         "make bwrap available first (see the bwrap item)");
		return;
	}
	missing_opts(c, -1, missing, sizeof(missing));
	if (missing[0])
		caps_item_set(c, IT_BWRAP_OPTIONS, OSB_CAPS_UNAVAILABLE,
		         caps_fmt(reason, sizeof(reason), "bwrap --help lacks %s, which osb-isolate uses",
		             missing),
		         "install bubblewrap 0.8 or later (Debian 12: apt-get install bubblewrap)");
	else
		caps_item_set(c, IT_BWRAP_OPTIONS, OSB_CAPS_OK,
		         "bwrap --help lists every option osb-isolate uses", NULL);
	if (caps_has_opt(c, "--bind-fd") && caps_has_opt(c, "--ro-bind-fd"))
		caps_item_set(c, IT_BIND_FD, OSB_CAPS_OK,
		         "bwrap --help lists --bind-fd and --ro-bind-fd: paths are bound by their "
		         "verified fd", NULL);
	else
		caps_item_set(c, IT_BIND_FD, OSB_CAPS_UNAVAILABLE,
		         caps_fmt(reason, sizeof(reason), "bwrap --help lacks %s: paths cannot be bound by "
		             "their verified fd, and binding by name is refused",
		             !caps_has_opt(c, "--bind-fd") && !caps_has_opt(c, "--ro-bind-fd") ?
		             "--bind-fd and --ro-bind-fd" :
		             caps_has_opt(c, "--bind-fd") ? "--ro-bind-fd" : "--bind-fd"),
		         "install bubblewrap 0.10 or later, or Debian 12's 0.8.0-2+deb12u1, which "
		         "backports --bind-fd");
}

/* ---- judging the attempts ------------------------------------------------------ */

static bool full_ok(const caps_probe *p, enum mode m) { return p->a[m][A_FULL].ok; }
static bool ns_ok(const caps_probe *p, enum mode m) { return full_ok(p, m) || p->a[m][A_NS].ok; }

static bool step_ok(const caps_probe *p, enum mode m, int kind)
{
	return full_ok(p, m) || (p->a[m][A_NS].ok && p->a[m][kind].ok);
}

static const char *where(enum mode m)
{
	return m == M_USERNS ? "in a user namespace" : "as root, without a user namespace";
}

/* USUAL, the remedy for a feature that fails, unless attempt A met a
 * process limit: then the process limit's (fork_remedy, lib/fork-hint.h). */
static const char *remedy_of(const caps_probe *p, const attempt *a, const char *usual)
{
	return a->at_limit ? p->limit_remedy : usual;
}

/* Did the direct attempt's child end by itself without an answer? Its
 * diag then says how (caps_no_answer). */
static bool direct_no_answer(const caps_probe *p)
{
	return !p->d.have_res && p->d.a.done && !p->d.a.ok && !p->d.a.killed;
}

/* What to do when a probe child ended with wait STATUS without an answer.
 * A seccomp filter's SIGSYS would end the sandbox the same way. */
static const char *no_answer_remedy(int status)
{
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS)
		return "an enclosing seccomp filter (a container's profile) kills the process at a "
		       "system call the sandbox makes too: have it refuse the call with an errno "
		       "instead, which the probe then names, or run osb-isolate outside the container";
	return "check dmesg for what ended the probe child (the kernel's out-of-memory killer, a "
	       "security module), then run osb-isolate capabilities again";
}

static void judge_userns(osb_caps *c, const caps_probe *p)
{
	const direct_res *d = p->d.have_res ? &p->d.res : NULL;
	caps_userns_facts f = { 0 };
	char reason[1024], remedy[512];

	if (c->bwrap_usable && ns_ok(p, M_USERNS)) {
		caps_item_set(c, IT_USERNS, OSB_CAPS_OK,
		         caps_fmt(reason, sizeof(reason), "bwrap created a user namespace and wrote its "
		             "uid/gid map (uid %d inside)", PROBE_UID), NULL);
		return;
	}
	if (!c->bwrap_usable && d && d->userns == 0 && d->map == 0) {
		caps_item_set(c, IT_USERNS, OSB_CAPS_OK,
		         "this process created a user namespace and wrote its uid/gid map (bwrap not "
		         "tried: see the bwrap item)", NULL);
		return;
	}
	if (!d) {
		const attempt *bw = &p->a[M_USERNS][A_NS];

		caps_item_set(c, IT_USERNS, OSB_CAPS_UNAVAILABLE,
		         caps_fmt(reason, sizeof(reason), "%s; %s%s",
		             c->bwrap_usable ? bw->diag : "no usable bwrap",
		             p->d.a.at_limit ? "" : "the direct attempt did not report: ",
		             p->d.a.diag[0] ? p->d.a.diag : "no message"),
		         p->d.a.at_limit || (c->bwrap_usable && bw->at_limit) ? p->limit_remedy :
		         "check dmesg for a security-module denial and the sysctls "
		         "user.max_user_namespaces and kernel.unprivileged_userns_clone");
		return;
	}
	f.unshare_errno = d->userns;
	f.map_errno = d->map;
	f.map_file = caps_map_files[d->map_step % 3];
	f.max_user_namespaces = c->sysctl[SC_MAX_USERNS];
	f.unprivileged_userns_clone = c->sysctl[SC_UNPRIV_CLONE];
	f.apparmor_restrict = c->sysctl[SC_APPARMOR];
	f.seccomp_filters = c->seccomp_filters;
	f.root = c->euid == 0;
	f.bwrap_diag = p->a[M_USERNS][A_NS].diag;
	f.bwrap_limit_remedy = c->bwrap_usable && p->a[M_USERNS][A_NS].at_limit ? p->limit_remedy :
	                       NULL;
	caps_userns_blocker(&f, &c->blocker, reason, sizeof(reason), remedy, sizeof(remedy));
	caps_item_set(c, IT_USERNS, OSB_CAPS_UNAVAILABLE, reason, remedy);
}

/* The namespace items report the mode that can make a sandbox at all:
 * userns when it can, else root. */
static void judge_ns_step(osb_caps *c, const caps_probe *p, enum item_id id, int kind)
{
	static const char *const what[] = {
		[A_NET] = "a network namespace with loopback up",
		[A_PID] = "a pid namespace with its own /proc",
	};
	char reason[700];
	int m = ns_ok(p, M_USERNS) ? M_USERNS : ns_ok(p, M_ROOT) ? M_ROOT : -1;

	if (!c->bwrap_usable) {
		caps_item_set(c, id, OSB_CAPS_UNAVAILABLE, "not tried: no usable bwrap",
		         "make bwrap available first (see the bwrap item)");
		return;
	}
	/* No sandbox at all, but this one was tried and could not start
	 * its process: that, not the other items, is what stops it. */
	if (m < 0 && p->a[M_USERNS][kind].at_limit)
		m = M_USERNS;
	else if (m < 0 && c->euid == 0 && p->a[M_ROOT][kind].at_limit)
		m = M_ROOT;
	if (m < 0) {
		caps_item_set(c, id, OSB_CAPS_UNAVAILABLE,
		         "not tried: no sandbox can be created here (see user_namespace and root)",
		         "make user namespaces available (see user_namespace) or run as root");
		return;
	}
	if (step_ok(p, (enum mode)m, kind))
		caps_item_set(c, id, OSB_CAPS_OK,
		         caps_fmt(reason, sizeof(reason), "bwrap created %s (%s)", what[kind],
		             where((enum mode)m)), NULL);
	else
		caps_item_set(c, id, OSB_CAPS_UNAVAILABLE,
		         caps_fmt(reason, sizeof(reason), "bwrap cannot create %s (%s): %s", what[kind],
		             where((enum mode)m), p->a[m][kind].diag),
		         remedy_of(p, &p->a[m][kind], kind == A_NET ?
		         "the kernel or a security module refuses to configure loopback in a new "
		         "network namespace; check dmesg, or use a policy with \"network host\"" :
		         "a new /proc cannot be mounted where the host's /proc is partly masked (a "
		         "container's masked paths): give the container an unmasked /proc (Docker: "
		         "--security-opt systempaths=unconfined)"));
}

static void judge_disable_userns(osb_caps *c, const caps_probe *p)
{
	char reason[700];

	if (!c->bwrap_usable)
		return;   /* set by judge_bwrap_options */
	if (!caps_has_opt(c, "--disable-userns"))
		caps_item_set(c, IT_DISABLE_USERNS, OSB_CAPS_UNAVAILABLE,
		         "bwrap --help lacks --disable-userns: a userns-mode sandbox could create "
		         "user namespaces of its own",
		         "install bubblewrap 0.8 or later (Debian 12: apt-get install bubblewrap)");
	else if (!ns_ok(p, M_USERNS))
		caps_item_set(c, IT_DISABLE_USERNS, OSB_CAPS_OK,
		         "bwrap --help lists --disable-userns (not tried: no user namespace here)",
		         NULL);
	else if (step_ok(p, M_USERNS, A_DISABLE))
		caps_item_set(c, IT_DISABLE_USERNS, OSB_CAPS_OK,
		         "bwrap --disable-userns works: the sandbox cannot create user namespaces",
		         NULL);
	else
		caps_item_set(c, IT_DISABLE_USERNS, OSB_CAPS_UNAVAILABLE,
		         caps_fmt(reason, sizeof(reason), "bwrap --disable-userns fails: %s",
		             p->a[M_USERNS][A_DISABLE].diag),
		         remedy_of(p, &p->a[M_USERNS][A_DISABLE], "the kernel must let a user namespace "
		             "set user.max_user_namespaces for its children (Linux 4.9 or later); "
		             "check dmesg"));
}

static bool cap_effective(cap_value_t v)
{
	cap_t caps = cap_get_proc();
	cap_flag_value_t on = CAP_CLEAR;

	if (caps) {
		cap_get_flag(caps, v, CAP_EFFECTIVE, &on);
		cap_free(caps);
	}
	return on == CAP_SET;
}

static void judge_root(osb_caps *c, const caps_probe *p)
{
	static const struct { cap_value_t v; const char *name; } need[] = {
		{ CAP_SYS_ADMIN, "CAP_SYS_ADMIN" }, { CAP_SETUID, "CAP_SETUID" },
		{ CAP_SETGID, "CAP_SETGID" }, { CAP_SETPCAP, "CAP_SETPCAP" },
	};
	char reason[900], missing[128] = "";
	size_t n = 0;

	if (c->euid != 0) {
		caps_item_set(c, IT_ROOT, OSB_CAPS_UNAVAILABLE,
		         caps_fmt(reason, sizeof(reason), "running as uid %u, not root (capabilities: %s)",
		             (unsigned)c->euid, c->captext),
		         "identity root is for a daemon that runs as root (for example in a container "
		         "where user namespaces are blocked); as this user, use identity userns");
		return;
	}
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!cap_effective(need[i].v))
			n += (size_t)snprintf(missing + n, sizeof(missing) - n, "%s%s", n ? ", " : "",
			                      need[i].name);
	if (n)
		caps_item_set(c, IT_ROOT, OSB_CAPS_UNAVAILABLE,
		         caps_fmt(reason, sizeof(reason), "running as root without %s (capabilities: %s)",
		             missing, c->captext),
		         "grant these capabilities to the daemon (Docker: --cap-add SYS_ADMIN etc.) "
		         "or use identity userns");
	else if (!c->bwrap_usable)
		caps_item_set(c, IT_ROOT, OSB_CAPS_UNAVAILABLE, "not tried: no usable bwrap",
		         "make bwrap available first (see the bwrap item)");
	else if (full_ok(p, M_ROOT) || p->a[M_ROOT][A_NONET].ok)
		caps_item_set(c, IT_ROOT, OSB_CAPS_OK,
		         caps_fmt(reason, sizeof(reason), "running as root (capabilities: %s); bwrap "
		             "created a sandbox without a user namespace", c->captext), NULL);
	else {
		const attempt *a = &p->a[M_ROOT][p->a[M_ROOT][A_NS].ok ? A_NONET : A_NS];

		caps_item_set(c, IT_ROOT, OSB_CAPS_UNAVAILABLE,
		         caps_fmt(reason, sizeof(reason), "running as root, but bwrap cannot create a "
		             "sandbox without a user namespace: %s", a->diag),
		         remedy_of(p, a, "check bwrap's message; a container may withhold mount or "
		             "namespace privileges (Docker: --cap-add SYS_ADMIN, an unconfined AppArmor "
		             "profile)"));
	}
}

static void judge_seccomp(osb_caps *c, const caps_probe *p)
{
	char reason[1200];
	int e = p->d.have_res ? p->d.res.seccomp : CAPS_NOT_TRIED;

	if (!c->seccomp_sha256[0])
		caps_item_set(c, IT_SECCOMP, OSB_CAPS_UNAVAILABLE,
		         caps_fmt(reason, sizeof(reason), "the filter cannot be built: %s",
		             p->seccomp_err.message),
		         "install libseccomp 2.5 or later (apt-get install libseccomp2)");
	else if (e == 0)
		caps_item_set(c, IT_SECCOMP, OSB_CAPS_OK,
		         caps_fmt(reason, sizeof(reason), "the %s filter (%zu BPF instructions) loads%s",
		             seccomp_group_name(), c->seccomp_insns,
		             c->seccomp_filters ? " on top of the filters already in place" : ""),
		         NULL);
	else if (!p->d.have_res && p->d.a.at_limit)
		caps_item_set(c, IT_SECCOMP, OSB_CAPS_UNAVAILABLE,
		         caps_fmt(reason, sizeof(reason), "loading the %s filter was not tried: %s",
		             seccomp_group_name(), p->d.a.diag), p->limit_remedy);
	else if (direct_no_answer(p))
		caps_item_set(c, IT_SECCOMP, OSB_CAPS_UNAVAILABLE,
		         caps_fmt(reason, sizeof(reason), "loading the %s filter: %s",
		             seccomp_group_name(), p->d.a.diag), no_answer_remedy(p->d.a.status));
	else
		caps_item_set(c, IT_SECCOMP, OSB_CAPS_UNAVAILABLE,
		         caps_fmt(reason, sizeof(reason), "loading the %s filter fails: %s",
		             seccomp_group_name(),
		             e == CAPS_NOT_TRIED ? (p->d.a.diag[0] ? p->d.a.diag : "the probe child "
		                                    "did not report") : strerror(e)),
		         "use a kernel built with CONFIG_SECCOMP_FILTER=y; in a container, allow the "
		         "seccomp(2) system call");
}

static void judge_nested(osb_caps *c)
{
	char reason[600], userns[300] = "";
	bool in_userns = c->uid_map && strcmp(c->uid_map, "0 0 4294967295") != 0;

	if (in_userns)
		snprintf(userns, sizeof(userns), "%sin a user namespace (uid_map: %s)",
		         c->seccomp_filters ? ", " : "", c->uid_map);
	if (!c->seccomp_filters && !in_userns) {
		caps_item_set(c, IT_NESTED, OSB_CAPS_OK,
		         "not nested: no seccomp filter, the initial user namespace", NULL);
		return;
	}
	if (c->seccomp_filters)
		caps_fmt(reason, sizeof(reason), "already confined: %u seccomp filter%s%s%s",
		    c->seccomp_filters, c->seccomp_filters == 1 ? "" : "s",
		    c->no_new_privs ? ", no_new_privs set" : "", userns);
	else
		caps_fmt(reason, sizeof(reason), "already confined: %s", userns);
	caps_item_set(c, IT_NESTED, OSB_CAPS_DEGRADED, reason,
	         "this runs inside another sandbox or container, whose restrictions stay in "
	         "force and may refuse namespaces; for full isolation run osb-isolate outside it");
}

static void judge_landlock(osb_caps *c, const caps_probe *p)
{
	char reason[400];
	long abi = c->host.landlock_abi;
	int e = c->host.landlock_errno;
	int en = p->d.have_res ? p->d.res.landlock : CAPS_NOT_TRIED;

	c->landlock_abi = abi > 0 ? (int)abi : 0;
	if (e == ENOSYS)
		caps_item_set(c, IT_LANDLOCK, OSB_CAPS_UNAVAILABLE,
		         "the kernel has no Landlock (landlock_create_ruleset: Function not implemented)",
		         "use Linux 5.13 or later built with CONFIG_SECURITY_LANDLOCK=y");
	else if (e == EOPNOTSUPP)
		caps_item_set(c, IT_LANDLOCK, OSB_CAPS_UNAVAILABLE,
		         "Landlock is built in but disabled at boot (landlock_create_ruleset: "
		         "Operation not supported)",
		         "add landlock to the lsm= kernel command line (e.g. lsm=landlock,lockdown,"
		         "yama,apparmor,bpf) and reboot");
	else if (e)
		caps_item_set(c, IT_LANDLOCK, OSB_CAPS_UNAVAILABLE,
		         caps_fmt(reason, sizeof(reason), "landlock_create_ruleset fails: %s", strerror(e)),
		         "check the kernel's Landlock support (dmesg | grep -i landlock)");
	else if (en == 0)
		caps_item_set(c, IT_LANDLOCK, OSB_CAPS_OK,
		         caps_fmt(reason, sizeof(reason), "Landlock ABI %ld: a ruleset was enforced in a "
		             "child process", abi), NULL);
	else if (!p->d.have_res && p->d.a.at_limit)
		caps_item_set(c, IT_LANDLOCK, OSB_CAPS_DEGRADED,
		         caps_fmt(reason, sizeof(reason), "Landlock ABI %ld, but enforcing a ruleset was "
		             "not tried: %s", abi, p->d.a.diag), p->limit_remedy);
	else if (direct_no_answer(p))
		caps_item_set(c, IT_LANDLOCK, OSB_CAPS_DEGRADED,
		         caps_fmt(reason, sizeof(reason), "Landlock ABI %ld, but enforcing a ruleset in "
		             "a child process: %s", abi, p->d.a.diag), no_answer_remedy(p->d.a.status));
	else
		caps_item_set(c, IT_LANDLOCK, OSB_CAPS_DEGRADED,
		         caps_fmt(reason, sizeof(reason), "Landlock ABI %ld, but enforcing a ruleset fails: "
		             "%s", abi, en == CAPS_NOT_TRIED ? "not tried" : strerror(en)),
		         "check dmesg; an enclosing sandbox may refuse landlock_restrict_self");
}

static void judge_overlay(osb_caps *c, const caps_probe *p)
{
	char reason[400];
	const direct_res *r = &p->d.res;

	if (!p->d.have_res && p->d.a.at_limit)
		caps_item_set(c, IT_OVERLAY, OSB_CAPS_UNAVAILABLE,
		         caps_fmt(reason, sizeof(reason), "not tried: %s", p->d.a.diag), p->limit_remedy);
	else if (direct_no_answer(p))
		caps_item_set(c, IT_OVERLAY, OSB_CAPS_UNAVAILABLE,
		         caps_fmt(reason, sizeof(reason), "mounting overlayfs in a user namespace: %s",
		             p->d.a.diag), no_answer_remedy(p->d.a.status));
	else if (!p->d.have_res || r->userns != 0 || r->map != 0)
		caps_item_set(c, IT_OVERLAY, OSB_CAPS_UNAVAILABLE,
		         "not tried: this process cannot create a user namespace (see user_namespace)",
		         "make user namespaces available (see user_namespace); osb-isolate does not "
		         "need overlayfs for the shipped policies");
	else if (r->overlay == 0)
		caps_item_set(c, IT_OVERLAY, OSB_CAPS_OK,
		         "overlayfs mounted in a user namespace (tmpfs layers)", NULL);
	else
		caps_item_set(c, IT_OVERLAY, OSB_CAPS_UNAVAILABLE,
		         caps_fmt(reason, sizeof(reason), "in a user namespace, %s fails: %s",
		             caps_overlay_steps[r->overlay_step % 5], strerror(r->overlay)),
		         "overlayfs in user namespaces needs Linux 5.11 or later; osb-isolate does "
		         "not need it for the shipped policies");
}

/* ---- modes and profiles ----------------------------------------------------------- */

static void stop_set(osb_caps *c, caps_stop *s, const char *id, int status, const char *reason,
                     const char *remedy)
{
	free(s->reason);
	free(s->remedy);
	s->id = id;
	s->status = status;
	s->reason = caps_dup(c, reason);
	s->remedy = caps_dup(c, remedy);
}

static void stop_from_item(osb_caps *c, caps_stop *s, enum item_id id)
{
	const caps_item *it = &c->items[id];

	stop_set(c, s, caps_item_names[id], it->status, it->reason, it->remedy);
}

/* The first item in ORDER that is not ok stops the mode. */
static bool mode_items(osb_caps *c, enum mode m, const enum item_id *order, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (c->items[order[i]].status != OSB_CAPS_OK) {
			stop_from_item(c, &c->mode_stop[m], order[i]);
			return false;
		}
	return true;
}

static bool mode_options(osb_caps *c, enum mode m)
{
	char missing[512], reason[700];

	missing_opts(c, m, missing, sizeof(missing));
	if (missing[0])
		stop_set(c, &c->mode_stop[m], caps_item_names[IT_BWRAP_OPTIONS], OSB_CAPS_UNAVAILABLE,
		         caps_fmt(reason, sizeof(reason), "bwrap --help lacks %s, which osb-isolate uses",
		             missing),
		         c->items[IT_BWRAP_OPTIONS].remedy);
	return !missing[0];
}

/* Can mode M start a sandbox at all (whatever the policy)? */
static bool mode_base(osb_caps *c, const caps_probe *p, enum mode m)
{
	static const enum item_id userns_order[] = {
		IT_BWRAP, IT_BIND_FD, IT_DISABLE_USERNS, IT_USERNS, IT_PIDNS,
	};
	static const enum item_id root_order[] = { IT_BWRAP, IT_BIND_FD, IT_ROOT };
	const enum item_id *order = m == M_USERNS ? userns_order : root_order;
	size_t n = m == M_USERNS ? 5 : 3;
	char reason[700];

	if (!mode_items(c, m, order, 2) || !mode_options(c, m) || !mode_items(c, m, order + 2, n - 2))
		return false;
	/* Items can all pass while their combination fails (the root item
	 * already stands for root's whole sandbox). */
	if (m == M_USERNS && !full_ok(p, m) && !p->a[m][A_NONET].ok) {
		stop_set(c, &c->mode_stop[m], "sandbox", OSB_CAPS_UNAVAILABLE,
		         caps_fmt(reason, sizeof(reason), "a sandbox with every namespace of a run fails "
		             "(in a user namespace): %s", p->a[m][A_NONET].diag),
		         remedy_of(p, &p->a[m][A_NONET], "check bwrap's message; a step that works "
		             "alone may fail combined with the others (see the items above)"));
		return false;
	}
	return true;
}

static void judge_modes(osb_caps *c, const caps_probe *p)
{
	char reason[700];

	for (int m = 0; m < M__COUNT; m++) {
		c->base_ok[m] = mode_base(c, p, (enum mode)m);
		c->net_ok[m] = c->base_ok[m] && step_ok(p, (enum mode)m, A_NET);
		if (c->base_ok[m] && !c->net_ok[m])
			stop_set(c, &c->net_stop[m], caps_item_names[IT_NETNS], OSB_CAPS_UNAVAILABLE,
			         caps_fmt(reason, sizeof(reason), "bwrap cannot create a network namespace "
			             "with loopback up (%s): %s", where((enum mode)m), p->a[m][A_NET].diag),
			         remedy_of(p, &p->a[m][A_NET], "the kernel or a security module refuses to "
			             "configure loopback in a new network namespace; check dmesg, or use a "
			             "policy with \"network host\""));
		/* A mode is usable when sandboxes under the default filter start. */
		c->mode_ok[m] = c->base_ok[m] && c->items[IT_SECCOMP].status == OSB_CAPS_OK;
		if (c->base_ok[m] && !c->mode_ok[m])
			stop_from_item(c, &c->mode_stop[m], IT_SECCOMP);
	}
}

static void why_item(const osb_caps *c, enum item_id id, caps_why *w)
{
	*w = (caps_why){ caps_item_names[id], c->items[id].status, c->items[id].reason, c->items[id].remedy };
}

bool caps_policy_stopped(const osb_caps *c, const caps_needs *nd, enum mode m, caps_why *w)
{
	const caps_stop *s = NULL;

	if (!c->base_ok[m])
		s = &c->mode_stop[m];
	else if (nd->seccomp && c->items[IT_SECCOMP].status != OSB_CAPS_OK)
		why_item(c, IT_SECCOMP, w);
	else if (nd->netns && !c->net_ok[m])
		s = &c->net_stop[m];
	else if (nd->landlock && c->items[IT_LANDLOCK].status != OSB_CAPS_OK)
		why_item(c, IT_LANDLOCK, w);
	else if (nd->overlay && c->overlay_err[m] != 0)
		s = &c->overlay_stop[m];
	else if (nd->cover && c->cover[m].err != 0)
		s = &c->cover_stop[m];
	else
		return false;
	if (s)
		*w = (caps_why){ s->id, s->status, s->reason, s->remedy };
	return true;
}

static void judge_profiles(osb_caps *c)
{
	caps_why w;

	for (size_t i = 0; i < c->n_profiles; i++)
		for (int m = 0; m < M__COUNT; m++)
			c->profiles[i].runs[m] = !c->profiles[i].error &&
			        c->profiles[i].nd.id != (m == M_USERNS ? ID_ROOT : ID_USERNS) &&
			        !caps_policy_stopped(c, &c->profiles[i].nd, (enum mode)m, &w);
}

/* What to do when the overlay workspace cannot be mounted in mode M (its
 * attempt failed at STEP with E, or ended with wait STATUS at OVT_ANSWER). */
static const char *overlay_remedy(const caps_probe *p, int e, int step, int status, enum mode m)
{
	if (caps_overlay_at_limit(e, step))
		return p->limit_remedy;
	if (step == OVT_ANSWER)
		return no_answer_remedy(status);
	if (e == ENODEV)
		return "load overlayfs (modprobe overlay) or use a kernel built with CONFIG_OVERLAY_FS; "
		       "until then use \"workspace ro\" or \"workspace rw\"";
	if (e == ENOSYS)
		return "the new mount API (fsopen, Linux 5.2) is missing or refused by an enclosing "
		       "seccomp filter: allow it there, or use \"workspace ro\" or \"workspace rw\"";
	if (m == M_USERNS)
		return "overlayfs in a user namespace needs Linux 5.11 or later (userxattr) and a "
		       "host that lets user namespaces mount it; run as root (root mode), or use "
		       "\"workspace ro\" or \"workspace rw\"";
	return "root mode mounts overlayfs with root's capabilities: check that this process holds "
	       "CAP_SYS_ADMIN and that no enclosing seccomp filter refuses mounts; or use "
	       "\"workspace ro\" or \"workspace rw\"";
}

/* "overlay": the init's overlay sequence, tried per mode (caps-overlay.c). */
static void judge_overlay_ws(osb_caps *c, const caps_probe *p)
{
	char reason[600] = "", part[300], remedy[400] = "", why[160];
	int ok = 0, tried = 0;

	for (int m = 0; m < M__COUNT; m++) {
		int e = c->overlay_err[m], step = c->overlay_step[m];

		if (e == CAPS_NOT_TRIED)
			continue;
		tried++;
		if (e == 0) {
			ok++;
			snprintf(part, sizeof(part), "%s mode: overlayfs mounts over a private tmpfs%s",
			         caps_mode_names[m], m == M_USERNS ? " (userxattr)" : "");
		} else {
			if (step == OVT_ANSWER)
				snprintf(part, sizeof(part), "%s mode: mounting the overlay workspace: %s",
				         caps_mode_names[m], caps_no_answer(why, sizeof(why),
				                                            c->overlay_status[m]));
			else
				snprintf(part, sizeof(part), "%s mode: %s fails: %s%s", caps_mode_names[m],
				         caps_overlay_try_steps[step % OVT__COUNT], strerror(e),
				         caps_overlay_at_limit(e, step) ? p->limit_hint : "");
			snprintf(remedy, sizeof(remedy), "%s",
			         overlay_remedy(p, e, step, c->overlay_status[m], (enum mode)m));
			stop_set(c, &c->overlay_stop[m], caps_item_names[IT_OVERLAY_WS],
			         OSB_CAPS_UNAVAILABLE, part, remedy);
		}
		snprintf(reason + strlen(reason), sizeof(reason) - strlen(reason), "%s%s",
		         tried > 1 ? "; " : "", part);
	}
	caps_item_set(c, IT_OVERLAY_WS, ok == tried ? OSB_CAPS_OK : ok ? OSB_CAPS_DEGRADED :
	              OSB_CAPS_UNAVAILABLE, reason, ok == tried ? NULL : remedy);
}

/* What to do when the init cannot make the /proc cover in mode M (R). */
static const char *cover_remedy(const caps_probe *p, const caps_cover_res *r, enum mode m)
{
	if (caps_cover_at_limit(r))
		return p->limit_remedy;
	if (r->step == CVT_ANSWER)
		return no_answer_remedy(r->status);
	if (r->step < CVT_INIT_USERNS)
		return "the namespaces and the fresh procfs of every sandbox fail here: see the "
		       "user_namespace, pid_namespace and root items";
	if (m == M_USERNS && (r->step == CVT_INIT_USERNS || r->step == CVT_INIT_MAP))
		return "bwrap's --disable-userns nests such a user namespace too: see the "
		       "bwrap_disable_userns item; check user.max_user_namespaces";
	if (r->step == CVT_TREE || r->step == CVT_SETATTR || r->step == CVT_MOVE)
		return "the init makes a policy's read-only rules inside a writable workspace (strict's "
		       ".git) with open_tree(2), mount_setattr(2) and "
		       "move_mount(2): an enclosing container's seccomp profile or security module "
		       "refuses them; allow them there, or run osb-isolate outside the container";
	return "the init makes the cover with mount(2) in a mount namespace of its own (binds and "
	       "read-only remounts on O_PATH files through /proc/self/fd, a tmpfs): an enclosing "
	       "container's seccomp profile or security module (AppArmor, SELinux) refuses them; "
	       "allow mount(2) there, or run osb-isolate outside the container";
}

/* "proc_cover": bwrap's namespaces and procfs, then the init's cover of
 * /proc, tried per mode (caps-cover.c). */
static void judge_cover(osb_caps *c, const caps_probe *p)
{
	char reason[700] = "", part[320], remedy[400] = "", why[160];
	int ok = 0, tried = 0;

	for (int m = 0; m < M__COUNT; m++) {
		const caps_cover_res *r = &c->cover[m];

		if (r->err == CAPS_NOT_TRIED)
			continue;
		tried++;
		if (r->err == 0) {
			ok++;
			snprintf(part, sizeof(part), "%s mode: the init covers a fresh procfs (read-only "
			         "binds, /dev/null and tmpfs masks)", caps_mode_names[m]);
		} else {
			if (r->step == CVT_ANSWER)
				snprintf(part, sizeof(part), "%s mode: the init's /proc cover: %s",
				         caps_mode_names[m], caps_no_answer(why, sizeof(why), r->status));
			else
				snprintf(part, sizeof(part), "%s mode: the init's /proc cover: %s%s%s fails: "
				         "%s%s", caps_mode_names[m], caps_cover_try_steps[r->step % CVT__COUNT],
				         r->path[0] ? " " : "", r->path, strerror(r->err),
				         caps_cover_at_limit(r) ? p->limit_hint : "");
			snprintf(remedy, sizeof(remedy), "%s", cover_remedy(p, r, (enum mode)m));
			stop_set(c, &c->cover_stop[m], caps_item_names[IT_COVER], OSB_CAPS_UNAVAILABLE,
			         part, remedy);
		}
		snprintf(reason + strlen(reason), sizeof(reason) - strlen(reason), "%s%s",
		         tried > 1 ? "; " : "", part);
	}
	caps_item_set(c, IT_COVER, ok == tried ? OSB_CAPS_OK : ok ? OSB_CAPS_DEGRADED :
	              OSB_CAPS_UNAVAILABLE, reason, ok == tried ? NULL : remedy);
}

/* "network_allowlist": what "network allow" needs besides a sandbox, a
 * network namespace (net_ok) and the filtering proxy's program
 * (docs/ARCHITECTURE.md, "Network allowlists"). */
static void judge_net_allow(osb_caps *c)
{
	const char *proxy = c->host.netproxy ? c->host.netproxy : "osb-isolate-netproxy";
	char reason[700];
	struct stat st;
	bool netns = c->net_ok[M_USERNS] || c->net_ok[M_ROOT];

	if (!netns) {
		caps_item_set(c, IT_NET_ALLOW, OSB_CAPS_UNAVAILABLE,
		              "no identity mode creates a network namespace (see net_namespace)",
		              "policies with \"network allow\" need a network namespace with loopback: "
		              "see the net_namespace item");
	} else if (stat(proxy, &st) != 0 || !S_ISREG(st.st_mode) || !(st.st_mode & S_IXUSR) ||
	           (st.st_mode & (S_ISUID | S_ISGID))) {
		caps_item_set(c, IT_NET_ALLOW, OSB_CAPS_UNAVAILABLE,
		              caps_fmt(reason, sizeof(reason), "the filtering proxy %s is not an "
		                       "executable file without setuid or setgid", proxy),
		              "install osb-isolate-netproxy (it comes with osb-isolate), or name it with "
		              "OSB_ISOLATE_NETPROXY or osb_set_program(OSB_PROGRAM_NETPROXY)");
	} else {
		caps_item_set(c, IT_NET_ALLOW, OSB_CAPS_OK,
		              caps_fmt(reason, sizeof(reason), "a network namespace with loopback, and "
		                       "the filtering proxy %s (HTTP CONNECT and plain HTTP)", proxy),
		              NULL);
	}
}

/* ---- the whole judgement ---------------------------------------------------------- */

static void judge_all(osb_caps *c, const caps_probe *p)
{
	judge_bwrap_options(c);
	judge_userns(c, p);
	judge_ns_step(c, p, IT_NETNS, A_NET);
	judge_ns_step(c, p, IT_PIDNS, A_PID);
	judge_disable_userns(c, p);
	judge_seccomp(c, p);
	judge_nested(c);
	judge_landlock(c, p);
	judge_overlay(c, p);
	judge_root(c, p);
	judge_overlay_ws(c, p);
	caps_judge_overlay_ops(c);
	judge_cover(c, p);
}

void caps_judge(osb_caps *c, const caps_probe *p)
{
	judge_all(c, p);
	judge_modes(c, p);
	judge_net_allow(c);   /* after judge_modes: it reads net_ok */
	judge_profiles(c);
}

/* ---- blocker attribution ------------------------------------------------------------ */

static void blame(const char **blocker, const char *name, char *reason, size_t rl,
                  const char *r, char *remedy, size_t ml, const char *m)
{
	*blocker = name;
	snprintf(reason, rl, "%s", r);
	snprintf(remedy, ml, "%s", m);
}

void caps_userns_blocker(const caps_userns_facts *f, const char **blocker,
                         char *reason, size_t rl, char *remedy, size_t ml)
{
	int e = f->unshare_errno;
	char r[900];

	*blocker = NULL;
	if (e == 0 && (f->map_errno == 0 || f->map_errno == CAPS_NOT_TRIED))
		blame(blocker, NULL, reason, rl,
		      caps_fmt(r, sizeof(r), "this process can create a user namespace but bwrap cannot: %s",
		          f->bwrap_diag && *f->bwrap_diag ? f->bwrap_diag : "no message"),
		      remedy, ml, f->bwrap_limit_remedy ? f->bwrap_limit_remedy :
		      "a security module may confine bwrap itself (check dmesg for "
		      "AppArmor or SELinux denials naming bwrap), or OSB_ISOLATE_BWRAP names a "
		      "wrapper that fails");
	else if (e == ENOSPC && f->max_user_namespaces == 0)
		blame(blocker, "user.max_user_namespaces", reason, rl,
		      "user.max_user_namespaces is 0, so the kernel refuses every new user namespace "
		      "(unshare(CLONE_NEWUSER): No space left on device)",
		      remedy, ml, "allow them: sysctl -w user.max_user_namespaces=15000 (make it "
		      "permanent in /etc/sysctl.d/)");
	else if (e == ENOSPC)
		blame(blocker, "user.max_user_namespaces", reason, rl,
		      caps_fmt(r, sizeof(r), "the limit of user namespaces (user.max_user_namespaces = %ld) "
		          "is reached (unshare(CLONE_NEWUSER): No space left on device)",
		          f->max_user_namespaces),
		      remedy, ml, "raise user.max_user_namespaces (sysctl -w "
		      "user.max_user_namespaces=N) or end processes that hold user namespaces");
	else if (e == EPERM && !f->root && f->unprivileged_userns_clone == 0)
		blame(blocker, "kernel.unprivileged_userns_clone", reason, rl,
		      "kernel.unprivileged_userns_clone is 0, so only root may create user namespaces "
		      "(unshare(CLONE_NEWUSER): Operation not permitted)",
		      remedy, ml, "allow them: sysctl -w kernel.unprivileged_userns_clone=1 (make it "
		      "permanent in /etc/sysctl.d/), or run as root with identity root");
	else if (f->apparmor_restrict == 1 &&
	         (e == EACCES || (e == 0 && (f->map_errno == EPERM || f->map_errno == EACCES))))
		blame(blocker, "kernel.apparmor_restrict_unprivileged_userns", reason, rl,
		      caps_fmt(r, sizeof(r), "kernel.apparmor_restrict_unprivileged_userns is 1: AppArmor "
		          "gives unconfined programs no privileges in new user namespaces (%s: %s)",
		          e ? "unshare(CLONE_NEWUSER)" : f->map_file, strerror(e ? e : f->map_errno)),
		      remedy, ml, "give bwrap an AppArmor profile that allows user namespaces "
		      "(Ubuntu: the bwrap-userns-restrict profile, or a profile with \"userns,\"), or "
		      "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0");
	else if (e == EPERM && f->seccomp_filters > 0)
		blame(blocker, "seccomp", reason, rl,
		      caps_fmt(r, sizeof(r), "a seccomp filter on this process (%u filter%s: an enclosing "
		          "sandbox or a container's seccomp profile) refuses unshare(CLONE_NEWUSER): "
		          "Operation not permitted", f->seccomp_filters,
		          f->seccomp_filters == 1 ? "" : "s"),
		      remedy, ml, "run osb-isolate outside the enclosing sandbox, or allow user "
		      "namespaces in the container's seccomp profile (Docker: --security-opt "
		      "seccomp=PROFILE); as root, identity root needs none");
	else if (e == EUSERS)
		blame(blocker, NULL, reason, rl,
		      "the nesting limit of user namespaces (32 levels) is reached "
		      "(unshare(CLONE_NEWUSER): Too many users)",
		      remedy, ml, "run osb-isolate from a less deeply nested sandbox");
	else if (e == 0)
		blame(blocker, NULL, reason, rl,
		      caps_fmt(r, sizeof(r), "a new user namespace is created, but writing its %s fails: %s",
		          f->map_file ? f->map_file : "uid_map", strerror(f->map_errno)),
		      remedy, ml, "check dmesg for a security-module denial (AppArmor, SELinux) and "
		      "that /proc is mounted read-write");
	else
		blame(blocker, NULL, reason, rl,
		      caps_fmt(r, sizeof(r), "unshare(CLONE_NEWUSER) fails: %s", strerror(e)),
		      remedy, ml, "check dmesg for a security-module denial and the sysctls "
		      "user.max_user_namespaces and kernel.unprivileged_userns_clone");
}

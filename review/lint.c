/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* lint.c — risky grants of a policy, each with a stable code and a reason
 * (osb-isolate(1), "LINT").
 *
 * Everything here is computed from the effective rules (model.h), never
 * from the policy text: a line the parser rejected can neither count as a
 * protection nor hide a grant. The one exception is waivers (waiver.c),
 * which are comments: they silence a finding for the reviewer, never change
 * what runs, the hash or the audit score.
 */
#include "lint.h"
#include "common.h"
#include "exposure.h"
#include "view.h"
#include "waiver.h"
#include "netreview.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

/* ---- lint rules ----------------------------------------------------------------- */

static const lint_rule lint_table[] = {
	{ "E101", "uid-zero", LINT_ERROR,
	  "User code never runs as uid 0 or gid 0, so osb-isolate refuses to start this policy. "
	  "Inside a user namespace uid 0 holds every capability of that namespace; choose "
	  "non-zero ids (user sandbox 1000 1000)." },
	{ "E102", "no-proc", LINT_ERROR,
	  "Every sandbox has a pid namespace and its init is started through /proc/self/fd, so "
	  "a policy without \"proc /proc\" cannot run. Add \"proc /proc\"." },
	{ "E103", "hide-not-directory", LINT_ERROR,
	  "hide mounts an empty directory (a read-only tmpfs) over a directory; over a file of the "
	  "host the sandbox cannot be built, so osb-isolate refuses to start this policy on this "
	  "host. Hide the directory that holds the file, or do not show the file at all (root "
	  "none with the binds the code needs)." },
	{ "E104", "mount-layout", LINT_ERROR,
	  "Mounts whose order would silently take a grant away, or whose making would touch a "
	  "directory the sandbox can write, are refused when the sandbox is set up: a hide over "
	  "a bind, a write path or the workspace; a tmpfs, dev or proc mount beneath one (the "
	  "bind, mounted after it, would cover it); a hide in a write path or the workspace "
	  "(bwrap would make its mount point there, on the host, following any symbolic link the "
	  "sandbox planted). Remove one of the two rules; to keep a path of the workspace from "
	  "being changed, use \"read-only workspace:REL\"; keep what the command must not read "
	  "out of the workspace." },
	{ "W101", "write-home", LINT_WARNING,
	  "A writable home directory lets the sandbox plant code that runs outside it later: "
	  "shell startup files, ~/.ssh/authorized_keys, ~/.config/autostart, ~/.local/bin on "
	  "PATH, git and editor configuration. Grant a project directory instead." },
	{ "W102", "write-root", LINT_WARNING,
	  "Writing / lets the sandbox change every host file the sandbox identity may change, "
	  "including /etc and every home directory. Grant the few directories the code needs." },
	{ "W103", "write-etc", LINT_WARNING,
	  "/etc holds configuration that host programs trust and execute (profile scripts, cron, "
	  "sudoers, ld.so.preload, PAM). Nothing untrusted should write there." },
	{ "W104", "write-shell-rc", LINT_WARNING,
	  "Shell startup files run at the user's next login or terminal: writing one is code "
	  "execution outside the sandbox. Drop the grant or protect the file with read-only." },
	{ "W105", "write-git-hooks", LINT_WARNING,
	  "Git runs .git/hooks/* and the programs named in .git/config (core.hooksPath, "
	  "core.fsmonitor) on the host at the next git command: a writable git directory is "
	  "code execution outside the sandbox. Add read-only rules for .git/hooks and "
	  ".git/config, or grant the work tree without its .git." },
	{ "W106", "daemon-socket", LINT_WARNING,
	  "A daemon's control socket (docker, containerd, podman, CRI-O, buildkit, the D-Bus "
	  "system bus, systemd, libvirt, per-user sockets under /run/user, osb-isolate's own "
	  "sessions under /run/osb-isolate) is reachable even "
	  "through a read-only mount: connect(2) ignores read-only mounts. The docker or "
	  "containerd socket is root on the host. Keep \"tmpfs /run\" and bind no socket." },
	{ "W107", "network-host", LINT_WARNING,
	  "The sandbox shares the host's network namespace: the internet, every service on the "
	  "host's loopback (databases, admin ports), the cloud metadata address "
	  "(169.254.169.254), and abstract Unix sockets (X11 displays, D-Bus buses). Anything the "
	  "sandbox can read can be sent out. Use \"network none\" unless the code must connect." },
	{ "W108", "shared-tmp", LINT_WARNING,
	  "The host's /tmp or /dev/shm is visible: other users' files and sockets there, "
	  "including X11 displays and ssh-agent sockets, which accept connections through a "
	  "read-only mount. Add \"tmpfs /tmp\" and \"dev /dev\"." },
	{ "W109", "seccomp-none", LINT_WARNING,
	  "Without the seccomp filter the mount API, namespace creation, ptrace, io_uring, bpf, "
	  "keyctl and the rest of the default deny group reach the kernel the sandbox shares "
	  "with the host." },
	{ "W110", "seccomp-allow", LINT_WARNING,
	  "A call removed from the default deny group reaches the kernel again. Each was denied "
	  "because it widens the kernel attack surface or leaves the namespaces; keep the entry "
	  "only with a reason." },
	{ "W111", "env-inherit-secrets", LINT_WARNING,
	  "\"env inherit\" passes the caller's whole environment; credential-shaped variables "
	  "(tokens, API keys, passwords, cloud credentials) that no env deny pattern removes "
	  "reach untrusted code. Add env deny patterns, or use env clear with env pass." },
	{ "W112", "env-pass-secret", LINT_WARNING,
	  "An env pass rule admits a credential-shaped variable (a token, key, password or cloud "
	  "credential) and no env deny pattern removes it. Pass only what the code needs." },
	{ "W113", "env-set-secret", LINT_WARNING,
	  "An env set rule writes a credential-shaped variable into the policy: its value is "
	  "visible to every reader of the policy and to the sandboxed code." },
	{ "W114", "no-wall-limit", LINT_WARNING,
	  "Without \"limit wall\" a sandboxed command may run forever, holding its resources "
	  "until someone kills it. Set a wall-clock limit." },
	{ "W115", "include-widened", LINT_WARNING,
	  "A rule set in an included policy is overridden by the including file with a wider "
	  "value. Including a policy suggests its guarantees hold; this one does not. State the "
	  "reason in a waiver, or do not include the narrower policy." },
	{ "W116", "host-ids-account", LINT_WARNING,
	  "host-ids pins a root caller's sandbox to a uid or gid that a passwd or group entry "
	  "of this host uses: the sandbox can then read and change that account's files and "
	  "reach its sockets. Pin ids that belong to nobody, or leave the ids to the allocation." },
	{ "W117", "caller-network", LINT_WARNING,
	  "\"allow-caller network\" lets whoever runs the policy (run --net, a request's \"network\": "
	  "\"host\") share the host's network namespace, with everything W107 says about it. A "
	  "reviewer approving \"network none\" approves the host network too. Grant it only in a "
	  "policy meant for code that must connect." },
	{ "W118", "host-sockets", LINT_WARNING,
	  "The whole host file system is in view (root host-ro, or ro-bind /): every Unix socket "
	  "the sandbox identity can reach outside the private mounts is connectable, a read-only "
	  "mount notwithstanding, and \"network none\" does not stop connect(2) to a socket that "
	  "is a file. Services listen on such sockets under /srv, /var, /home and elsewhere. Bind "
	  "only what the code needs (root none, ro-bind /usr, ro-bind /etc: strict.policy); "
	  "\"explain --host\" lists the sockets a policy's binds show on a given host." },
	{ "W119", "env-set-comment", LINT_WARNING,
	  "A \"#\" after a blank in an \"env set\" value is part of the value, not a comment: "
	  "comments take whole lines. Move the comment to a line of its own." },
	{ "W120", "read-credentials", LINT_WARNING,
	  "The sandbox can read a credential store: a home directory's .ssh, .aws, .gnupg, "
	  ".docker, .kube, .netrc, .git-credentials, .npmrc, .config/gh and the like, or the "
	  "host's /run/secrets; or a read-root lets a caller bind one. An unprivileged caller's "
	  "sandbox is the caller, so its own keys and tokens are readable whatever their mode, "
	  "and anything readable can be sent out. Bind the project, not the home directory." },
	{ "W121", "network-allow-internal", LINT_WARNING,
	  "A \"network allow\" entry names a loopback, link-local, private, shared or metadata "
	  "range: the filtering proxy lets connections to such addresses through, which it "
	  "otherwise refuses even for allowed names. Services there (the host's own, a cloud's "
	  "metadata, an internal network) are often unauthenticated. Name single hosts by name "
	  "instead, unless the sandbox must reach that network." },
	{ "W122", "network-allow-wide", LINT_WARNING,
	  "A \"network allow\" entry allows a whole top-level domain (\"*.com\") or an address "
	  "network larger than a /16 (IPv4) or /32 (IPv6): most of the internet, and every "
	  "service an attacker can register there. Name the hosts the code needs." },
	{ "W190", "bad-waiver", LINT_WARNING,
	  "A waiver comment reads \"# osb-lint: waive CODE[,CODE...] -- REASON\": known warning "
	  "codes and a reason. Errors, W190 and W191 cannot be waived." },
	{ "W191", "unused-waiver", LINT_WARNING,
	  "A waiver comment covers no finding on the directive after it: the grant it justified "
	  "is gone or the code is wrong. Remove it before it silences a later grant by accident." },
};

const lint_rule *lint_rules(size_t *n)
{
	*n = ARRAY_SIZE(lint_table);
	return lint_table;
}

const lint_rule *lint_rule_find(const char *code)
{
	for (size_t i = 0; i < ARRAY_SIZE(lint_table); i++)
		if (strcmp(lint_table[i].code, code) == 0)
			return &lint_table[i];
	return NULL;
}

/* ---- lint ---------------------------------------------------------------------------- */

int lint_add_finding(lint_report *r, const char *code, const rv_origin *o, const char *f, ...)
{
	lint_finding *v = rv_grow(r->v, &r->cap, r->n, sizeof(*v));
	va_list ap;

	if (!v)
		return -ENOMEM;
	r->v = v;
	memset(&v[r->n], 0, sizeof(v[r->n]));
	v[r->n].rule = lint_rule_find(code);
	va_start(ap, f);
	v[r->n].message = rv_vfmt(f, ap);
	va_end(ap);
	if (!v[r->n].message)
		return -ENOMEM;
	if (o && rv_origin_is_rule(o)) {
		v[r->n].file = o->file;
		v[r->n].line = o->line;
	} else {
		v[r->n].from_default = true;
	}
	v[r->n].api = o && o->file && strcmp(o->file, "api") == 0;
	v[r->n].about = o ? o->rule : NULL;
	r->n++;
	return 0;
}

static int lint_identity(const review_policy *p, lint_report *r)
{
	bool proc = false;

	if ((p->uid == 0 || p->gid == 0) &&
	    lint_add_finding(r, "E101", &p->user_set.o, "\"user %s %u %u\" runs user code as %s 0",
	                p->user_name ? p->user_name : "", p->uid, p->gid, p->uid == 0 ? "uid" : "gid") < 0)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_mounts; i++)
		if (p->mounts[i].kind == MNT_PROC && strcmp(p->mounts[i].path, "/proc") == 0)
			proc = true;
	if (!proc && lint_add_finding(r, "E102", NULL, "the policy mounts no /proc (\"proc /proc\" is missing)") < 0)
		return -ENOMEM;
	if (p->host_ids_set.set &&
	    (rv_uid_is_account(p->host_uid) || rv_gid_is_group(p->host_gid)) &&
	    lint_add_finding(r, "W116", &p->host_ids_set.o, "\"host-ids %u %u\" %s an account of this "
	                "host", p->host_uid, p->host_gid,
	                rv_uid_is_account(p->host_uid) ? "is the uid of" : "is the gid of") < 0)
		return -ENOMEM;
	return 0;
}

static bool has_read_only(const review_policy *p, const char *s)
{
	for (size_t i = 0; i < p->n_read_only; i++)
		if (strcmp(p->read_only[i].s, s) == 0)
			return true;
	return false;
}

static int lint_writes(const review_policy *p, lint_report *r)
{
	static const char *const codes[] = {
		[W_ROOT] = "W102", [W_ETC] = "W103", [W_HOME] = "W101", [W_RC] = "W104", [W_GIT] = "W105",
	};
	static const char *const what[] = {
		[W_ROOT] = "the whole host file system", [W_ETC] = "host configuration",
		[W_HOME] = "a home directory", [W_RC] = "a shell startup file",
		[W_GIT] = "git hooks or git configuration",
	};

	for (size_t i = 0; i < p->n_writes; i++) {
		enum wclass c = classify_write(p, p->writes[i].s);

		if (c != W_NONE && lint_add_finding(r, codes[c], &p->writes[i].o, "\"write %s\" makes %s writable",
		                               p->writes[i].s, what[c]) < 0)
			return -ENOMEM;
	}
	/* A writable workspace is a checkout the caller's git will run from. */
	/* Hooks and config are not enough: git takes both from a commondir,
	 * .git/modules and the nested repositories of the index's gitlinks. */
	if (p->ws_mode == WS_RW && !has_read_only(p, "workspace:.git") &&
	    lint_add_finding(r, "W105", &p->ws_set.o, "\"workspace rw\" leaves the workspace's .git "
	                "writable (add \"read-only workspace:.git\")") < 0)
		return -ENOMEM;
	/* A write-root is where a request (execd, --rw) may later add writes:
	 * declaring one over host configuration or a home pre-approves them. */
	for (size_t i = 0; i < p->n_write_roots; i++) {
		const rv_str *w = &p->write_roots[i];
		enum wclass c = classify_write(p, w->s);

		if ((c == W_ROOT || c == W_ETC || c == W_HOME) &&
		    lint_add_finding(r, codes[c], &w->o, "\"write-root %s\" lets requests make %s writable",
		                w->s, what[c]) < 0)
			return -ENOMEM;
	}
	return 0;
}

typedef struct expose_ctx {
	lint_report *r;
	const char *code;
	size_t first;     /* findings of this call start here (dedup per rule) */
} expose_ctx;

static int expose_finding(const review_policy *p, const char *path, const char *rule,
                          const rv_origin *o, void *vctx)
{
	expose_ctx *c = vctx;

	(void)p;
	/* One finding per exposing rule: the first path it exposes names it. */
	for (size_t i = c->first; i < c->r->n; i++)
		if (c->r->v[i].rule == lint_rule_find(c->code) && c->r->v[i].line == o->line &&
		    c->r->v[i].file == (rv_origin_is_rule(o) ? o->file : NULL))
			return 0;
	if (strcmp(c->code, "W106") == 0)
		return lint_add_finding(c->r, c->code, o, "\"%s\" makes the host's %s reachable", rule, path);
	return lint_add_finding(c->r, c->code, o, "\"%s\" shares the host's %s", rule, path);
}

/* Sockets in binds of single directories are a fact of the host, not of
 * the text (explain --host scans for them); a view of the whole host shows
 * every one. */
static int lint_host_sockets(const review_policy *p, lint_report *r)
{
	for (size_t i = 0; i < p->n_mounts; i++)
		if (p->mounts[i].kind == MNT_RO_BIND && strcmp(p->mounts[i].path, "/") == 0)
			return lint_add_finding(r, "W118", &p->mounts[i].o, "\"ro-bind /\" shows every Unix "
			                   "socket of the host the sandbox identity can reach");
	if (p->root == ROOT_HOST_RO)
		return lint_add_finding(r, "W118", &p->root_set.o, "\"root host-ro\" shows every Unix "
		                   "socket of the host the sandbox identity can reach");
	return 0;
}

static int lint_exposure(const review_policy *p, lint_report *r)
{
	expose_ctx c = { r, "W106", r->n };
	int e;

	if ((e = lint_host_sockets(p, r)) < 0)
		return e;

	for (size_t i = 0; i < ARRAY_SIZE(daemon_sockets); i++)
		/* Beneath too: /run/user/UID and osb-isolate's session directories
		 * hold sockets of their own. */
		if ((e = exposers(p, daemon_sockets[i], true, expose_finding, &c)) < 0)
			return e;
	c = (expose_ctx){ r, "W108", r->n };
	for (size_t i = 0; i < ARRAY_SIZE(shared_dirs); i++)
		if ((e = exposers(p, shared_dirs[i], true, expose_finding, &c)) < 0)
			return e;
	return 0;
}

/* W121, W122: the entries of "network allow" a reviewer should see. */
static int lint_network_allow(const review_policy *p, lint_report *r)
{
	for (size_t i = 0; i < p->n_net_allow && p->net == NET_ALLOW; i++) {
		const rv_str *e = &p->net_allow[i];

		if (rv_net_allow_internal(e->s)) {
			if (lint_add_finding(r, "W121", &e->o, "\"network allow %s\" lets the proxy reach "
			                     "a host-internal range", e->s) < 0)
				return -ENOMEM;
		} else if (rv_net_allow_wide(e->s) &&
		           lint_add_finding(r, "W122", &e->o, "\"network allow %s\" allows a wide "
		                            "part of the internet", e->s) < 0) {
			return -ENOMEM;
		}
	}
	return 0;
}

static int lint_network_seccomp(const review_policy *p, lint_report *r)
{
	if (p->net == NET_HOST &&
	    lint_add_finding(r, "W107", &p->net_set.o, "\"network host\" shares the host's network namespace") < 0)
		return -ENOMEM;
	if (lint_network_allow(p, r) < 0)
		return -ENOMEM;
	if (p->net != NET_HOST && p->caller_net.set &&
	    lint_add_finding(r, "W117", &p->caller_net.o, "\"allow-caller network\" lets a caller share "
	                "the host's network namespace") < 0)
		return -ENOMEM;
	if (p->sc_mode == SC_NONE &&
	    lint_add_finding(r, "W109", &p->sc_mode_set.o, "\"seccomp none\" turns the syscall filter off") < 0)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_sc_rules; i++)
		if (p->sc_rules[i].allow &&
		    lint_add_finding(r, "W110", &p->sc_rules[i].o, "\"seccomp allow %s\" removes %s from the "
		                "default deny group", p->sc_rules[i].name, p->sc_rules[i].name) < 0)
			return -ENOMEM;
	return 0;
}

static int lint_env(const review_policy *p, lint_report *r)
{
	char names[256];

	if (p->env_base == ENV_INHERIT && leaked_samples(p, NULL, names, sizeof(names)) > 0 &&
	    lint_add_finding(r, "W111", &p->env_base_set.o, "\"env inherit\" passes credential-shaped "
	                "variables no env deny pattern removes (%s)", names) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_env_pass; i++) {
		const rv_str *e = &p->env_pass[i];
		bool leak = rv_has_glob(e->s) ? leaked_samples(p, e->s, names, sizeof(names)) > 0
		                           : secret_looking(e->s) && !env_denied(p, e->s);

		if (!leak)
			continue;
		if (rv_has_glob(e->s) ? lint_add_finding(r, "W112", &e->o, "\"env pass %s\" admits "
		                                 "credential-shaped variables (%s)", e->s, names) < 0
		                   : lint_add_finding(r, "W112", &e->o, "\"env pass %s\" passes a "
		                                 "credential-shaped variable", e->s) < 0)
			return -ENOMEM;
	}
	for (size_t i = 0; i < p->n_env_set; i++) {
		const rv_str *e = &p->env_set[i];
		size_t len = strcspn(e->s, "=");
		char name[256];

		snprintf(name, sizeof(name), "%.*s", (int)(len < sizeof(name) ? len : sizeof(name) - 1), e->s);
		if (secret_looking(name) &&
		    lint_add_finding(r, "W113", &e->o, "\"env set %s=...\" writes a credential-shaped "
		                "variable into the policy", name) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* A comment the author meant to end the line, kept in the value. */
static int lint_env_comments(const review_policy *p, lint_report *r)
{
	for (size_t i = 0; i < p->n_env_set; i++) {
		const char *s = p->env_set[i].s, *h = strstr(s, " #");

		if (!h)
			h = strstr(s, "\t#");
		if (h && lint_add_finding(r, "W119", &p->env_set[i].o, "\"env set %.*s\" holds \"%s\" in its "
		                     "value: a comment there is part of the value",
		                     (int)strcspn(s, "="), s, h + 1) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* A hide over a file of this host fails when the sandbox is built: a fact
 * of the host, known before, as W116's accounts are. */
static int lint_hides(const review_policy *p, lint_report *r)
{
	for (size_t i = 0; i < p->n_mounts; i++) {
		const rv_mount *m = &p->mounts[i];
		struct stat st;

		if (m->kind != MNT_HIDE || stat(m->path, &st) < 0 || S_ISDIR(st.st_mode))
			continue;
		if (lint_add_finding(r, "E103", &m->o, "\"hide %s\": %s is not a directory on this host "
		                "(hide mounts an empty directory)", m->path, m->path) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* A writable or bound place a mount can meet: its path, what it is, and
 * whether a hide may lie in it (not in a read-only bind of the host). */
typedef struct place {
	const char *path, *what;
	const rv_origin *o;
	bool writable;
} place;

/* E104 for mount M against PL: the launch's layout refusals
 * (plan_check_layout), where the text decides them. */
static int layout_finding(const rv_mount *m, const place *pl, lint_report *r)
{
	char at[PATH_MAX + 32];
	const char *k = rv_mount_words[m->kind];

	rv_origin_str(pl->o, at, sizeof(at));
	if (m->kind == MNT_HIDE && pl->writable && rv_within(m->path, pl->path))
		return lint_add_finding(r, "E104", &m->o, "\"hide %s\" lies in the %s %s (%s): bwrap "
		                        "would make its mount point in a directory the sandbox can "
		                        "write", m->path, pl->what, pl->path, at);
	if (m->kind == MNT_HIDE && rv_within(pl->path, m->path))
		return lint_add_finding(r, "E104", &m->o, "\"hide %s\" would cover the bind of %s (%s)",
		                        m->path, pl->path, at);
	if ((m->kind == MNT_TMPFS || m->kind == MNT_DEV || m->kind == MNT_PROC) &&
	    rv_within(m->path, pl->path))
		return lint_add_finding(r, "E104", &m->o, "\"%s %s\" would be covered by the bind of %s "
		                        "(%s)", k, m->path, pl->path, at);
	return 0;
}

static int lint_layout(const review_policy *p, lint_report *r)
{
	for (size_t i = 0; i < p->n_mounts; i++) {
		const rv_mount *m = &p->mounts[i];
		size_t before = r->n;
		int e = 0;

		if (p->ws_dest && p->ws_mode != WS_NONE)
			e = layout_finding(m, &(place){ p->ws_dest, "workspace", &p->ws_set.o, true }, r);
		for (size_t j = 0; j < p->n_writes && e == 0 && r->n == before; j++)
			e = layout_finding(m, &(place){ p->writes[j].s, "writable", &p->writes[j].o, true }, r);
		for (size_t j = 0; j < p->n_mounts && e == 0 && r->n == before; j++)
			if (p->mounts[j].kind == MNT_RO_BIND && j != i)
				e = layout_finding(m, &(place){ p->mounts[j].path, "bind", &p->mounts[j].o,
				                                false }, r);
		if (e < 0)
			return e;
	}
	return 0;
}

static int lint_credentials(const review_policy *p, lint_report *r)
{
	char what[PATH_MAX], rule[PATH_MAX + 32];
	rv_view v;

	if (!credential_shown(p, true, what, sizeof(what), &v))
		return 0;
	view_rule_str(p, &v, rule, sizeof(rule));
	if (v.granted)
		return lint_add_finding(r, "W120", &v.o, "\"%s\" lets a caller show %s (credentials) to "
		                        "the sandbox", rule, what);
	return lint_add_finding(r, "W120", &v.o, "\"%s\" shows %s (credentials) to the sandbox",
	                        rule, what);
}

static int lint_limits(const review_policy *p, lint_report *r)
{
	if (!p->limit_set[LIM_WALL].set)
		return lint_add_finding(r, "W114", NULL, "no \"limit wall\": commands may run forever");
	if (p->limits[LIM_WALL] == UINT64_MAX)
		return lint_add_finding(r, "W114", &p->limit_set[LIM_WALL].o,
		                   "\"limit wall unlimited\": commands may run forever");
	return 0;
}

/* ---- include widening ------------------------------------------------------------------ */

/* "seccomp none", or the group the policy loads ("seccomp osb-default-1"),
 * as the canonical form writes it. */
static void seccomp_text(const review_policy *p, char *buf, size_t size)
{
	snprintf(buf, size, "seccomp %s", p->sc_mode == SC_NONE || !p->sc_group ? "none" : p->sc_group);
}

/* The newest group grants least; each older one (which allows more: what
 * it did not know) more; no filter most. */
static uint64_t seccomp_rank(const review_policy *p)
{
	int newest = rv_group_newest(), g = p->sc_group ? rv_group_index(p->sc_group, NULL) : -1;

	if (p->sc_mode == SC_NONE)
		return UINT32_MAX;
	return g >= 0 && g < newest ? (uint64_t)(newest - g) : 0;
}

/* Rank of each ordered scalar: a higher rank grants more. */
enum scalar_id { SC_ROOT, SC_WS, SC_NET, SC_ENV, SC_SECCOMP, SC_LANDLOCK, SC_LIMIT0 };
#define N_SCALARS (SC_LIMIT0 + LIM__COUNT)

static uint64_t scalar_rank(const review_policy *p, int id)
{
	static const uint64_t ll_rank[] = { [LL_REQUIRED] = 0, [LL_AUTO] = 1, [LL_OFF] = 2 };

	switch (id) {
	case SC_ROOT: return p->root == ROOT_HOST_RO;
	case SC_WS: return rv_ws_rank(p->ws_mode);
	case SC_NET: return p->net;
	case SC_ENV: return p->env_base;
	case SC_SECCOMP: return seccomp_rank(p);
	case SC_LANDLOCK: return ll_rank[p->landlock];
	default: {
		int k = id - SC_LIMIT0;

		return p->limit_set[k].set ? p->limits[k] : UINT64_MAX;
	}
	}
}

static const rv_set *scalar_set(const review_policy *p, int id)
{
	switch (id) {
	case SC_ROOT: return &p->root_set;
	case SC_WS: return &p->ws_set;
	case SC_NET: return &p->net_set;
	case SC_ENV: return &p->env_base_set;
	case SC_SECCOMP: return &p->sc_mode_set;
	case SC_LANDLOCK: return &p->landlock_set;
	default: return &p->limit_set[id - SC_LIMIT0];
	}
}

/* "network host", "limit wall 10m" as the canonical form writes it. */
static void scalar_text(const review_policy *p, int id, char *buf, size_t size)
{
	switch (id) {
	case SC_ROOT: snprintf(buf, size, "root %s", rv_root_words[p->root]); return;
	case SC_WS: snprintf(buf, size, "workspace %s", rv_ws_words[p->ws_mode]); return;
	case SC_NET: snprintf(buf, size, "network %s", rv_net_words[p->net]); return;
	case SC_ENV: snprintf(buf, size, "env %s", rv_env_words[p->env_base]); return;
	case SC_SECCOMP: seccomp_text(p, buf, size); return;
	case SC_LANDLOCK: snprintf(buf, size, "landlock %s", rv_ll_words[p->landlock]); return;
	default: {
		int k = id - SC_LIMIT0;

		if (!p->limit_set[k].set || p->limits[k] == UINT64_MAX)
			snprintf(buf, size, "limit %s unlimited", rv_limit_names[k]);
		else if (k == LIM_CPU)   /* thousandths of a CPU */
			snprintf(buf, size, "limit cpu %llu.%03llu", (unsigned long long)p->limits[k] / 1000,
			         (unsigned long long)p->limits[k] % 1000);
		else
			snprintf(buf, size, "limit %s %llu%s", rv_limit_names[k],
			         (unsigned long long)p->limits[k],
			         k == LIM_WALL ? "ms" : k == LIM_CPUTIME ? "s" :
			         (k == LIM_AS || k == LIM_FSIZE || k == LIM_OUTPUT || k == LIM_MEMORY) ? "B"
			                                                                               : "");
	}
	}
}

/* FILE parsed on its own, and its model; NULL when it does not parse. */
static osb_policy *parse_file_alone(const char *file, review_policy *m)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	osb_error err;
	osb_policy *p;

	if (rv_read_file(file, RV_MAX_POLICY_BYTES, &text, &len) < 0 ||
	    !(p = osb_policy_parse(text, len, file, &err)))
		return NULL;
	if (review_model(p, m) < 0) {
		osb_policy_free(p);
		return NULL;
	}
	return p;
}

static int lint_include_widening(const review_policy *p, lint_report *r)
{
	bool done[N_SCALARS] = { false };

	/* Each included file read on its own shows what it asked for; a wider
	 * effective value can only come from a file closer to the top. */
	for (size_t f = 1; f < p->n_files; f++) {
		review_policy m;
		const review_policy *sub = &m;
		osb_policy *pol = parse_file_alone(p->files[f], &m);

		if (!pol)
			continue;
		for (int id = 0; id < N_SCALARS; id++) {
			const rv_set *s = scalar_set(sub, id), *e = scalar_set(p, id);
			char was[64], now[64];

			if (done[id] || !rv_origin_is_rule(&s->o) || !s->set ||
			    scalar_rank(p, id) <= scalar_rank(sub, id))
				continue;
			done[id] = true;
			scalar_text(sub, id, was, sizeof(was));
			scalar_text(p, id, now, sizeof(now));
			if (lint_add_finding(r, "W115", &e->o, "\"%s\" widens \"%s\" of the included %s:%u",
			                     now, was, s->o.file, s->o.line) < 0) {
				review_model_free(&m);
				osb_policy_free(pol);
				return -ENOMEM;
			}
		}
		review_model_free(&m);
		osb_policy_free(pol);
	}
	return 0;
}

static int finding_cmp(const void *a, const void *b)
{
	const lint_finding *x = a, *y = b;
	int c = strcmp(x->file, y->file);

	if (c)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return strcmp(x->rule->code, y->rule->code);
}

int lint_policy(const review_policy *p, lint_report *r)
{
	int e;

	memset(r, 0, sizeof(*r));
	if ((e = lint_identity(p, r)) < 0 || (e = lint_writes(p, r)) < 0 ||
	    (e = lint_exposure(p, r)) < 0 || (e = lint_network_seccomp(p, r)) < 0 ||
	    (e = lint_env(p, r)) < 0 || (e = lint_env_comments(p, r)) < 0 ||
	    (e = lint_hides(p, r)) < 0 || (e = lint_layout(p, r)) < 0 ||
	    (e = lint_credentials(p, r)) < 0 || (e = lint_limits(p, r)) < 0 ||
	    (e = lint_include_widening(p, r)) < 0 || (e = lint_waivers(p, r)) < 0) {
		lint_report_free(r);
		return e;
	}
	if (r->n > 1)   /* qsort(NULL, 0, ...) is undefined: v is NULL without findings */
		qsort(r->v, r->n, sizeof(*r->v), finding_cmp);
	return 0;
}

void lint_report_free(lint_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].message);
		free(r->v[i].waiver);
		free(r->v[i].pointer);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}


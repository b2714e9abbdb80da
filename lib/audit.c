/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* audit.c — what a security reviewer asks of a policy, answered from the
 * parsed, effective struct osb_policy.
 *
 * The parser (policy.c) decides what a policy means; this file only reads
 * that result. check turns a parse error into a positioned diagnostic with a
 * stable code; lint names risky grants (each rule a code, a severity and an
 * explanation); audit weighs exposure in the spirit of systemd-analyze
 * security, with checks that can only grow when a grant is added, so no
 * rewording of a policy can buy a better score; diff compares canonical
 * forms, so layout and includes never show up as changes; explain renders the
 * effective rules with their origins and, on request, the launch plan this
 * host would run. Policy text is read again only for positions (columns,
 * the version line) and for lint waiver comments, which silence a finding for
 * the reader but change nothing that runs.
 */
#include "audit.h"
#include "policy-canon.h"
#include "bwrap.h"
#include "launch.h"
#include "filter.h"
#include "viewscan.h"

#include <json-c/json.h>
#include <limits.h>
#include <stdarg.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define POLICY_MAX_BYTES ((size_t)1 << 20)
#define WAIVER_MAX_CODES 8

static const char *const root_words[] = { [ROOT_HOST_RO] = "host-ro", [ROOT_NONE] = "none" };
static const char *const ws_words[] = { [WS_NONE] = "none", [WS_RO] = "ro", [WS_RW] = "rw" };
static const char *const net_words[] = { [NET_NONE] = "none", [NET_HOST] = "host" };
static const char *const env_words[] = { [ENV_CLEAR] = "clear", [ENV_INHERIT] = "inherit" };
static const char *const sc_words[] = { [SC_DEFAULT] = "default", [SC_NONE] = "none" };
static const char *const ll_words[] = { [LL_AUTO] = "auto", [LL_REQUIRED] = "required", [LL_OFF] = "off" };

/* ---- small helpers ----------------------------------------------------------- */

static char *vfmt(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
static char *vfmt(const char *fmt, va_list ap)
{
	char *s = NULL;

	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	return s;
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;

	va_start(ap, f);
	s = vfmt(f, ap);
	va_end(ap);
	return s;
}

/* A is B or lies beneath it, component-wise, after reading /var/run as
 * /run (a symlink to it on every current distribution, so binding either
 * name exposes the same sockets). */
static const char *run_alias(const char *path)
{
	if (strcmp(path, "/var/run") == 0 || strncmp(path, "/var/run/", 9) == 0)
		return strchr(path + 1, '/');   /* "/var/run/x" is "/run/x" */
	return path;
}

static bool path_within(const char *a, const char *b)
{
	return dest_within(run_alias(a), run_alias(b));
}

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?") != NULL;
}

static bool origin_is_rule(const osb_origin *o)
{
	return o->file && o->line > 0;
}

static char *render_text_with(int (*fn)(FILE *, const void *), const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int r;

	if (!f)
		return NULL;
	r = fn(f, arg);
	if (ferror(f))
		r = -ENOMEM;
	if (fclose(f) != 0)
		r = -ENOMEM;
	if (r < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* ---- check: diagnostics from parse errors ------------------------------------- */

typedef struct diag_class {
	const char *code;
	const char *name;
	const char *const pats[9];
} diag_class;

/* Matched in this order against the parser's message: the first class with
 * a matching phrase wins, so the specific phrases come first. */
static const diag_class diag_table[] = {
	{ "E001", "text", { "NUL byte", "carriage return", "control character", "invalid UTF-8",
	                    "byte order mark", "invisible or bidirectional", "line longer than" } },
	{ "E012", "file", { "cannot read policy", "not a regular file", "larger than 1 MiB" } },
	{ "E002", "version", { "version line", "policy version", "duplicate \"osb-policy\"" } },
	{ "E011", "syscall", { "unknown syscall", "syscall name" } },
	{ "E010", "include", { "cannot include", "include cycle", "include nested", "include takes",
	                       "invalid include name" } },
	{ "E003", "unknown-directive", { "unknown directive" } },
	{ "E005", "unknown-argument", { "unknown argument" } },
	{ "E004", "arguments", { "missing argument", "unexpected argument" } },
	{ "E008", "duplicate", { "duplicate" } },
	{ "E009", "conflict", { "conflicts with" } },
	{ "E006", "path", { "path must", "glob characters" } },
	{ "E007", "value", { "invalid", "unit", "out of range", "negative", "greater than zero",
	                     "whole seconds", "expected NAME=VALUE", "environment variable name" } },
	{ "E099", "policy", { NULL } },
};

const char *diag_code_of(const char *text)
{
	for (size_t i = 0; i + 1 < ARRAY_SIZE(diag_table); i++)
		for (size_t j = 0; diag_table[i].pats[j]; j++)
			if (strstr(text, diag_table[i].pats[j]))
				return diag_table[i].code;
	return "E099";
}

size_t diag_codes(const char **codes, const char **names, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(diag_table) && n < max; i++, n++) {
		codes[n] = diag_table[i].code;
		names[n] = diag_table[i].name;
	}
	return n;
}

/* Parse an unsigned decimal at *S; advance past it. */
static bool take_number(const char **s, unsigned *out)
{
	unsigned long v = 0;
	const char *c = *s;

	if (*c < '0' || *c > '9')
		return false;
	for (; *c >= '0' && *c <= '9'; c++) {
		v = v * 10 + (unsigned long)(*c - '0');
		if (v > UINT_MAX)
			return false;
	}
	*out = (unsigned)v;
	*s = c;
	return true;
}

int diag_from_error(const osb_error *err, const char *fallback_file, diag *out)
{
	const char *m = err->message;

	memset(out, 0, sizeof(*out));
	/* The first ":LINE:COL: " is the position; the file name before it may
	 * itself contain colons, the numbers cannot be confused with it. */
	for (const char *c = strchr(m, ':'); c; c = strchr(c + 1, ':')) {
		const char *s = c + 1;
		unsigned line, col;

		if (!take_number(&s, &line) || *s != ':')
			continue;
		s++;
		if (!take_number(&s, &col) || s[0] != ':' || s[1] != ' ')
			continue;
		out->file = strndup(m, (size_t)(c - m));
		out->text = strdup(s + 2);
		out->line = line;
		out->col = col;
		goto done;
	}
	if (fallback_file && strncmp(m, fallback_file, strlen(fallback_file)) == 0 &&
	    strncmp(m + strlen(fallback_file), ": ", 2) == 0)
		m += strlen(fallback_file) + 2;
	out->file = strdup(fallback_file ? fallback_file : "<policy>");
	out->text = strdup(m);
done:
	if (!out->file || !out->text) {
		diag_free(out);
		return -ENOMEM;
	}
	out->code = diag_code_of(out->text);
	return 0;
}

void diag_free(diag *d)
{
	free(d->file);
	free(d->text);
	memset(d, 0, sizeof(*d));
}

/* ---- lint rules ----------------------------------------------------------------- */

static const lint_rule lint_table[] = {
	{ "E101", "uid-zero", LINT_ERROR,
	  "User code never runs as uid 0 or gid 0, so osb-isolate refuses to start this policy. "
	  "Inside a user namespace uid 0 holds every capability of that namespace; choose "
	  "non-zero ids (user sandbox 1000 1000)." },
	{ "E102", "no-proc", LINT_ERROR,
	  "Every sandbox has a pid namespace and its init is started through /proc/self/fd, so "
	  "a policy without \"proc /proc\" cannot run. Add \"proc /proc\"." },
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
	  "system bus, systemd, libvirt, per-user sockets under /run/user) is reachable even "
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

/* Credential-shaped names, as a reviewer would spot them; matched against
 * the upper-cased name. */
static const char *const secret_shapes[] = {
	"*TOKEN*", "*SECRET*", "*PASSWORD*", "*PASSWD*", "*_PWD", "*API_KEY*", "*APIKEY*",
	"*PRIVATE_KEY*", "*ACCESS_KEY*", "*CREDENTIAL*", "*_AUTH", "AWS_*", "AZURE_*",
	"VAULT_*", "KUBECONFIG", "NETRC", "SSH_AUTH_SOCK", "GPG_AGENT_INFO", "PGPASSWORD",
};

/* Well-known secret variables: what a broad pass pattern or inherit must not
 * let through. */
static const char *const secret_samples[] = {
	"GITHUB_TOKEN", "GH_TOKEN", "GITLAB_TOKEN", "NPM_TOKEN", "HF_TOKEN", "SLACK_BOT_TOKEN",
	"VAULT_TOKEN", "CARGO_REGISTRY_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY",
	"STRIPE_SECRET_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
	"AZURE_CLIENT_SECRET", "GOOGLE_APPLICATION_CREDENTIALS", "DATABASE_PASSWORD",
	"PGPASSWORD", "MYSQL_PWD", "TWINE_PASSWORD", "DOCKER_PASSWORD", "SSH_AUTH_SOCK",
	"KUBECONFIG",
};

static bool secret_looking(const char *name)
{
	char up[256];
	size_t i;

	for (i = 0; name[i] && i + 1 < sizeof(up); i++) {
		up[i] = name[i];
		if (name[i] >= 'a' && name[i] <= 'z')
			up[i] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[name[i] - 'a'];
	}
	up[i] = '\0';
	for (i = 0; i < ARRAY_SIZE(secret_shapes); i++)
		if (env_pattern_match(secret_shapes[i], up))
			return true;
	return false;
}

static bool env_denied(const osb_policy *p, const char *name)
{
	for (size_t i = 0; i < p->n_env_deny; i++)
		if (env_pattern_match(p->env_deny[i].s, name))
			return true;
	return false;
}

/* The samples PATTERN admits (NULL: all) that no deny pattern removes,
 * as "A, B, C" (at most four named). Returns how many there are. */
static size_t leaked_samples(const osb_policy *p, const char *pattern, char *buf, size_t size)
{
	size_t n = 0, used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(secret_samples); i++) {
		const char *s = secret_samples[i];

		if ((pattern && !env_pattern_match(pattern, s)) || env_denied(p, s))
			continue;
		if (n < 4 && used < size) {
			int w = snprintf(buf + used, size - used, "%s%s", n ? ", " : "", s);

			if (w > 0)
				used += (size_t)w;
		} else if (n == 4 && used < size) {
			int w = snprintf(buf + used, size - used, ", ...");

			if (w > 0)
				used += (size_t)w;
		}
		n++;
	}
	return n;
}

/* Control sockets of host daemons, spelled under /run (see path_within). */
static const char *const daemon_sockets[] = {
	"/run/docker.sock", "/run/containerd/containerd.sock", "/run/podman/podman.sock",
	"/run/crio/crio.sock", "/run/buildkit/buildkitd.sock", "/run/dbus/system_bus_socket",
	"/run/systemd/private", "/run/libvirt/libvirt-sock", "/run/snapd.socket", "/run/user",
};

/* Host directories shared with every other process of the host. */
static const char *const shared_dirs[] = { "/tmp", "/dev/shm" };

static const char *const rc_files[] = {
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc",
	".zshenv", ".zprofile", ".zlogin", ".zlogout", ".cshrc", ".tcshrc", ".login", ".kshrc",
	".mkshrc", "config.fish",
};

/* Does a mount of one of KINDS (bit per enum mount_kind) cover PATH? */
static const pol_mount *covering_mount(const osb_policy *p, const char *path, unsigned kinds)
{
	for (size_t i = 0; i < p->n_mounts; i++)
		if ((kinds & (1u << p->mounts[i].kind)) && path_within(path, p->mounts[i].path))
			return &p->mounts[i];
	return NULL;
}

#define M_(k) (1u << (k))
#define COVERS_HOST (M_(MNT_TMPFS) | M_(MNT_HIDE) | M_(MNT_DEV))

/* Host root visible at PATH: root host-ro, not covered by a private mount.
 * (An explicit bind is reported by its own rule.) */
static bool host_root_shows(const osb_policy *p, const char *path)
{
	return p->root == ROOT_HOST_RO && !covering_mount(p, path, COVERS_HOST);
}

static bool read_only_covers(const osb_policy *p, const char *path)
{
	for (size_t i = 0; i < p->n_read_only; i++)
		if (path_within(path, p->read_only[i].s))
			return true;
	return false;
}

/* ---- writable-path classification ------------------------------------------------ */

enum wclass { W_NONE, W_ROOT, W_ETC, W_HOME, W_RC, W_GIT };

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static bool is_home_dir(const char *w)
{
	const char *rest;

	if (strcmp(w, "/home") == 0 || strcmp(w, "/root") == 0)
		return true;
	if (strncmp(w, "/home/", 6) == 0)
		rest = w + 6;
	else if (strncmp(w, "/var/home/", 10) == 0)
		rest = w + 10;
	else
		return false;
	return *rest && !strchr(rest, '/');
}

/* The ".git" directory W lies in or is, copied to GIT; false if none. */
static bool git_dir_of(const char *w, char *git, size_t size)
{
	const char *c = w;

	while ((c = strstr(c, "/.git"))) {
		if (c[5] == '\0' || c[5] == '/') {
			size_t n = (size_t)(c - w) + 5;

			if (n >= size)
				return false;
			memcpy(git, w, n);
			git[n] = '\0';
			return true;
		}
		c += 5;
	}
	return false;
}

static bool git_part_protected(const osb_policy *p, const char *git, const char *part)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", git, part) >= sizeof(path))
		return false;
	return read_only_covers(p, path);
}

/* What writing W exposes, most severe first. */
static enum wclass classify_write(const osb_policy *p, const char *w)
{
	char git[PATH_MAX], hooks[PATH_MAX + 8], config[PATH_MAX + 8];

	if (strcmp(w, "/") == 0)
		return W_ROOT;
	if (path_within(w, "/etc"))
		return W_ETC;
	if (is_home_dir(w))
		return W_HOME;
	for (size_t i = 0; i < ARRAY_SIZE(rc_files); i++)
		if (strcmp(base_name(w), rc_files[i]) == 0 && !read_only_covers(p, w))
			return W_RC;
	if (git_dir_of(w, git, sizeof(git))) {
		snprintf(hooks, sizeof(hooks), "%s/hooks", git);
		snprintf(config, sizeof(config), "%s/config", git);
		if (strcmp(w, git) == 0 &&
		    !(git_part_protected(p, git, "hooks") && git_part_protected(p, git, "config")))
			return W_GIT;
		if ((path_within(w, hooks) || strcmp(w, config) == 0) && !read_only_covers(p, w))
			return W_GIT;
	}
	return W_NONE;
}

/* ---- lint ---------------------------------------------------------------------------- */

static int add_finding(lint_report *r, const char *code, const osb_origin *o, const char *f, ...)
	__attribute__((format(printf, 4, 5)));
static int add_finding(lint_report *r, const char *code, const osb_origin *o, const char *f, ...)
{
	lint_finding *v = array_grow(r->v, &r->cap, r->n, sizeof(*v));
	va_list ap;

	if (!v)
		return -ENOMEM;
	r->v = v;
	memset(&v[r->n], 0, sizeof(v[r->n]));
	v[r->n].rule = lint_rule_find(code);
	va_start(ap, f);
	v[r->n].message = vfmt(f, ap);
	va_end(ap);
	if (!v[r->n].message)
		return -ENOMEM;
	if (o && origin_is_rule(o)) {
		v[r->n].file = o->file;
		v[r->n].line = o->line;
	} else {
		v[r->n].from_default = true;
	}
	r->n++;
	return 0;
}

static int lint_identity(const osb_policy *p, lint_report *r)
{
	bool proc = false;

	if ((p->uid == 0 || p->gid == 0) &&
	    add_finding(r, "E101", &p->user_set.o, "\"user %s %u %u\" runs user code as %s 0",
	                p->user_name ? p->user_name : "", p->uid, p->gid, p->uid == 0 ? "uid" : "gid") < 0)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_mounts; i++)
		if (p->mounts[i].kind == MNT_PROC && strcmp(p->mounts[i].path, "/proc") == 0)
			proc = true;
	if (!proc && add_finding(r, "E102", NULL, "the policy mounts no /proc (\"proc /proc\" is missing)") < 0)
		return -ENOMEM;
	if (p->host_ids_set.set &&
	    (hostid_uid_is_account(p->host_uid) || hostid_gid_is_group(p->host_gid)) &&
	    add_finding(r, "W116", &p->host_ids_set.o, "\"host-ids %u %u\" %s an account of this "
	                "host", p->host_uid, p->host_gid,
	                hostid_uid_is_account(p->host_uid) ? "is the uid of" : "is the gid of") < 0)
		return -ENOMEM;
	return 0;
}

static bool has_read_only(const osb_policy *p, const char *s)
{
	for (size_t i = 0; i < p->n_read_only; i++)
		if (strcmp(p->read_only[i].s, s) == 0)
			return true;
	return false;
}

static int lint_writes(const osb_policy *p, lint_report *r)
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

		if (c != W_NONE && add_finding(r, codes[c], &p->writes[i].o, "\"write %s\" makes %s writable",
		                               p->writes[i].s, what[c]) < 0)
			return -ENOMEM;
	}
	/* A writable workspace is a checkout the caller's git will run from. */
	if (p->ws_mode == WS_RW &&
	    (!has_read_only(p, "workspace:.git/hooks") || !has_read_only(p, "workspace:.git/config")) &&
	    add_finding(r, "W105", &p->ws_set.o, "\"workspace rw\" leaves the workspace's .git/hooks "
	                "or .git/config writable (add \"read-only workspace:.git/hooks\" and "
	                "\"read-only workspace:.git/config\")") < 0)
		return -ENOMEM;
	/* A write-root is where a request (execd, --rw) may later add writes:
	 * declaring one over host configuration or a home pre-approves them. */
	for (size_t i = 0; i < p->n_write_roots; i++) {
		const pol_str *w = &p->write_roots[i];
		enum wclass c = classify_write(p, w->s);

		if ((c == W_ROOT || c == W_ETC || c == W_HOME) &&
		    add_finding(r, codes[c], &w->o, "\"write-root %s\" lets requests make %s writable",
		                w->s, what[c]) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Rules that show the host path PATH (sockets, shared dirs) to the sandbox:
 * root host-ro without a private mount over it, or a bind of it or of a
 * directory above it (a hide over it still hides it). BENEATH_TOO also
 * counts binds below PATH. Calls FN for each. */
typedef int (*expose_fn)(const osb_policy *p, const char *path, const char *rule,
                         const osb_origin *o, void *ctx);

static int exposers(const osb_policy *p, const char *path, bool beneath_too, expose_fn fn, void *ctx)
{
	char rule[PATH_MAX + 16];
	int r;

	if (host_root_shows(p, path) && (r = fn(p, path, "root host-ro", &p->root_set.o, ctx)) < 0)
		return r;
	if (covering_mount(p, path, M_(MNT_HIDE)))
		return 0;
	for (size_t i = 0; i < p->n_mounts; i++) {
		const pol_mount *m = &p->mounts[i];

		if (m->kind != MNT_RO_BIND ||
		    !(path_within(path, m->path) || (beneath_too && path_within(m->path, path))))
			continue;
		snprintf(rule, sizeof(rule), "ro-bind %s", m->path);
		if ((r = fn(p, path, rule, &m->o, ctx)) < 0)
			return r;
	}
	for (size_t i = 0; i < p->n_writes; i++) {
		const pol_str *w = &p->writes[i];

		if (!(path_within(path, w->s) || (beneath_too && path_within(w->s, path))))
			continue;
		snprintf(rule, sizeof(rule), "write %s", w->s);
		if ((r = fn(p, path, rule, &w->o, ctx)) < 0)
			return r;
	}
	return 0;
}

typedef struct expose_ctx {
	lint_report *r;
	const char *code;
	size_t first;     /* findings of this call start here (dedup per rule) */
} expose_ctx;

static int expose_finding(const osb_policy *p, const char *path, const char *rule,
                          const osb_origin *o, void *vctx)
{
	expose_ctx *c = vctx;

	(void)p;
	/* One finding per exposing rule: the first path it exposes names it. */
	for (size_t i = c->first; i < c->r->n; i++)
		if (c->r->v[i].rule == lint_rule_find(c->code) && c->r->v[i].line == o->line &&
		    c->r->v[i].file == (origin_is_rule(o) ? o->file : NULL))
			return 0;
	if (strcmp(c->code, "W106") == 0)
		return add_finding(c->r, c->code, o, "\"%s\" makes the host's %s reachable", rule, path);
	return add_finding(c->r, c->code, o, "\"%s\" shares the host's %s", rule, path);
}

/* Sockets in binds of single directories are a fact of the host, not of
 * the text (explain --host scans for them); a view of the whole host shows
 * every one. */
static int lint_host_sockets(const osb_policy *p, lint_report *r)
{
	for (size_t i = 0; i < p->n_mounts; i++)
		if (p->mounts[i].kind == MNT_RO_BIND && strcmp(p->mounts[i].path, "/") == 0)
			return add_finding(r, "W118", &p->mounts[i].o, "\"ro-bind /\" shows every Unix "
			                   "socket of the host the sandbox identity can reach");
	if (p->root == ROOT_HOST_RO)
		return add_finding(r, "W118", &p->root_set.o, "\"root host-ro\" shows every Unix "
		                   "socket of the host the sandbox identity can reach");
	return 0;
}

static int lint_exposure(const osb_policy *p, lint_report *r)
{
	expose_ctx c = { r, "W106", r->n };
	int e;

	if ((e = lint_host_sockets(p, r)) < 0)
		return e;

	for (size_t i = 0; i < ARRAY_SIZE(daemon_sockets); i++)
		if ((e = exposers(p, daemon_sockets[i], false, expose_finding, &c)) < 0)
			return e;
	c = (expose_ctx){ r, "W108", r->n };
	for (size_t i = 0; i < ARRAY_SIZE(shared_dirs); i++)
		if ((e = exposers(p, shared_dirs[i], true, expose_finding, &c)) < 0)
			return e;
	return 0;
}

static int lint_network_seccomp(const osb_policy *p, lint_report *r)
{
	if (p->net == NET_HOST &&
	    add_finding(r, "W107", &p->net_set.o, "\"network host\" shares the host's network namespace") < 0)
		return -ENOMEM;
	if (p->net == NET_NONE && p->caller_net.set &&
	    add_finding(r, "W117", &p->caller_net.o, "\"allow-caller network\" lets a caller share "
	                "the host's network namespace") < 0)
		return -ENOMEM;
	if (p->sc_mode == SC_NONE &&
	    add_finding(r, "W109", &p->sc_mode_set.o, "\"seccomp none\" turns the syscall filter off") < 0)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_sc_rules; i++)
		if (p->sc_rules[i].allow &&
		    add_finding(r, "W110", &p->sc_rules[i].o, "\"seccomp allow %s\" removes %s from the "
		                "default deny group", p->sc_rules[i].name, p->sc_rules[i].name) < 0)
			return -ENOMEM;
	return 0;
}

static int lint_env(const osb_policy *p, lint_report *r)
{
	char names[256];

	if (p->env_base == ENV_INHERIT && leaked_samples(p, NULL, names, sizeof(names)) > 0 &&
	    add_finding(r, "W111", &p->env_base_set.o, "\"env inherit\" passes credential-shaped "
	                "variables no env deny pattern removes (%s)", names) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_env_pass; i++) {
		const pol_str *e = &p->env_pass[i];
		bool leak = has_glob(e->s) ? leaked_samples(p, e->s, names, sizeof(names)) > 0
		                           : secret_looking(e->s) && !env_denied(p, e->s);

		if (!leak)
			continue;
		if (has_glob(e->s) ? add_finding(r, "W112", &e->o, "\"env pass %s\" admits "
		                                 "credential-shaped variables (%s)", e->s, names) < 0
		                   : add_finding(r, "W112", &e->o, "\"env pass %s\" passes a "
		                                 "credential-shaped variable", e->s) < 0)
			return -ENOMEM;
	}
	for (size_t i = 0; i < p->n_env_set; i++) {
		const pol_str *e = &p->env_set[i];
		size_t len = strcspn(e->s, "=");
		char name[256];

		snprintf(name, sizeof(name), "%.*s", (int)(len < sizeof(name) ? len : sizeof(name) - 1), e->s);
		if (secret_looking(name) &&
		    add_finding(r, "W113", &e->o, "\"env set %s=...\" writes a credential-shaped "
		                "variable into the policy", name) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int lint_limits(const osb_policy *p, lint_report *r)
{
	if (!p->limit_set[LIM_WALL].set)
		return add_finding(r, "W114", NULL, "no \"limit wall\": commands may run forever");
	if (p->limits[LIM_WALL] == UINT64_MAX)
		return add_finding(r, "W114", &p->limit_set[LIM_WALL].o,
		                   "\"limit wall unlimited\": commands may run forever");
	return 0;
}

/* ---- include widening ------------------------------------------------------------------ */

/* "seccomp none", or the group the policy loads ("seccomp osb-default-1"),
 * as the canonical form writes it. */
static void seccomp_text(const osb_policy *p, char *buf, size_t size)
{
	if (p->sc_mode == SC_NONE)
		snprintf(buf, size, "seccomp %s", sc_words[SC_NONE]);
	else
		snprintf(buf, size, "seccomp osb-default-%u",
		         p->sc_group ? p->sc_group : seccomp_policy_group(NULL)->version);
}

/* The newest group grants least; each older one (which allows more: what
 * it did not know) more; no filter most. */
static uint64_t seccomp_rank(const osb_policy *p)
{
	unsigned newest = seccomp_policy_group(NULL)->version;

	if (p->sc_mode == SC_NONE)
		return UINT32_MAX;
	return p->sc_group && p->sc_group < newest ? newest - p->sc_group : 0;
}

/* Rank of each ordered scalar: a higher rank grants more. */
enum scalar_id { SC_ROOT, SC_WS, SC_NET, SC_ENV, SC_SECCOMP, SC_LANDLOCK, SC_LIMIT0 };
#define N_SCALARS (SC_LIMIT0 + LIM__COUNT)

static uint64_t scalar_rank(const osb_policy *p, int id)
{
	static const uint64_t ll_rank[] = { [LL_REQUIRED] = 0, [LL_AUTO] = 1, [LL_OFF] = 2 };

	switch (id) {
	case SC_ROOT: return p->root == ROOT_HOST_RO;
	case SC_WS: return p->ws_mode;
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

static const pol_set *scalar_set(const osb_policy *p, int id)
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
static void scalar_text(const osb_policy *p, int id, char *buf, size_t size)
{
	switch (id) {
	case SC_ROOT: snprintf(buf, size, "root %s", root_words[p->root]); return;
	case SC_WS: snprintf(buf, size, "workspace %s", ws_words[p->ws_mode]); return;
	case SC_NET: snprintf(buf, size, "network %s", net_words[p->net]); return;
	case SC_ENV: snprintf(buf, size, "env %s", env_words[p->env_base]); return;
	case SC_SECCOMP: seccomp_text(p, buf, size); return;
	case SC_LANDLOCK: snprintf(buf, size, "landlock %s", ll_words[p->landlock]); return;
	default: {
		int k = id - SC_LIMIT0;

		if (!p->limit_set[k].set || p->limits[k] == UINT64_MAX)
			snprintf(buf, size, "limit %s unlimited", osb_limit_names[k]);
		else
			snprintf(buf, size, "limit %s %llu%s", osb_limit_names[k],
			         (unsigned long long)p->limits[k],
			         k == LIM_WALL ? "ms" : k == LIM_CPU ? "s" :
			         (k == LIM_AS || k == LIM_FSIZE || k == LIM_OUTPUT) ? "B" : "");
	}
	}
}

static osb_policy *parse_file_alone(const char *file)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	osb_error err;

	if (read_file_bounded(file, POLICY_MAX_BYTES, &text, &len) < 0)
		return NULL;
	return osb_policy_parse(text, len, file, &err);
}

static int lint_include_widening(const osb_policy *p, lint_report *r)
{
	bool done[N_SCALARS] = { false };

	/* Each included file read on its own shows what it asked for; a wider
	 * effective value can only come from a file closer to the top. */
	for (size_t f = 1; f < p->n_files; f++) {
		osb_policy *sub = parse_file_alone(p->files[f]);

		if (!sub)
			continue;
		for (int id = 0; id < N_SCALARS; id++) {
			const pol_set *s = scalar_set(sub, id), *e = scalar_set(p, id);
			char was[64], now[64];

			if (done[id] || !origin_is_rule(&s->o) || !s->set ||
			    scalar_rank(p, id) <= scalar_rank(sub, id))
				continue;
			done[id] = true;
			scalar_text(sub, id, was, sizeof(was));
			scalar_text(p, id, now, sizeof(now));
			if (add_finding(r, "W115", &e->o, "\"%s\" widens \"%s\" of the included %s:%u",
			                now, was, s->o.file, s->o.line) < 0) {
				osb_policy_free(sub);
				return -ENOMEM;
			}
		}
		osb_policy_free(sub);
	}
	return 0;
}

/* ---- positions and waivers ----------------------------------------------------------- */

typedef struct source {
	const char *file;         /* entry of the policy's file table */
	char *text;               /* NULL when it cannot be read again */
	size_t len;
	unsigned version_line;
} source;

typedef struct waiver {
	const source *src;
	unsigned line, col, target;
	char codes[WAIVER_MAX_CODES][8];
	bool used[WAIVER_MAX_CODES];
	size_t n_codes;
	char *reason;
} waiver;

/* Line LINE (1-based) of S, or NULL. */
static const char *line_at(const source *s, unsigned line, size_t *len)
{
	const char *c, *end, *nl;

	if (!s->text || line == 0)
		return NULL;
	c = s->text;
	end = s->text + s->len;
	for (unsigned i = 1; i < line; i++) {
		c = memchr(c, '\n', (size_t)(end - c));
		if (!c)
			return NULL;
		c++;
	}
	nl = memchr(c, '\n', (size_t)(end - c));
	*len = (size_t)((nl ? nl : end) - c);
	return c;
}

/* Column of the first non-blank character of LINE (1 if unknown). */
static unsigned first_col(const source *s, unsigned line)
{
	size_t len = 0, i = 0;
	const char *l = line_at(s, line, &len);

	if (!l)
		return 1;
	while (i < len && (l[i] == ' ' || l[i] == '\t'))
		i++;
	return i < len ? (unsigned)i + 1 : 1;
}

/* Is LINE neither blank nor a comment? */
static bool is_directive(const char *l, size_t len)
{
	size_t i = 0;

	while (i < len && (l[i] == ' ' || l[i] == '\t'))
		i++;
	return i < len && l[i] != '#';
}

static void source_scan(source *s)
{
	size_t len;
	const char *l;

	for (unsigned line = 1; (l = line_at(s, line, &len)); line++)
		if (is_directive(l, len)) {
			s->version_line = line;
			return;
		}
}

static const source *source_of(const source *srcs, size_t n, const char *file)
{
	for (size_t i = 0; file && i < n; i++)
		if (srcs[i].file == file || strcmp(srcs[i].file, file) == 0)
			return &srcs[i];
	return NULL;
}

static bool waiver_code_ok(const char *code)
{
	const lint_rule *rule = lint_rule_find(code);

	return rule && rule->sev == LINT_WARNING && strcmp(code, "W190") != 0 &&
	       strcmp(code, "W191") != 0;
}

/* Skip blanks, then WORD if it is next; false when it is not. */
static bool take_word(const char **c, const char *end, const char *word)
{
	size_t n = strlen(word);

	while (*c < end && (**c == ' ' || **c == '\t'))
		(*c)++;
	if ((size_t)(end - *c) < n || memcmp(*c, word, n) != 0)
		return false;
	*c += n;
	return true;
}

/* Parse "osb-lint: waive CODE[,CODE...] -- REASON" after the '#'. Returns
 * 0 (W filled), 1 (not a waiver comment) or an error text in *WHY. */
static int waiver_parse(const char *c, const char *end, waiver *w, const char **why)
{
	const char *dash;

	if (!take_word(&c, end, "osb-lint:"))
		return 1;
	if (!take_word(&c, end, "waive") || c == end || (*c != ' ' && *c != '\t')) {
		*why = "expected \"waive\" after \"osb-lint:\"";
		return -1;
	}
	dash = memmem(c, (size_t)(end - c), "--", 2);
	if (!dash) {
		*why = "missing \"-- REASON\"";
		return -1;
	}
	while (c < dash) {
		const char *s;
		size_t n;

		while (c < dash && (*c == ' ' || *c == '\t' || *c == ','))
			c++;
		for (s = c; c < dash && *c != ' ' && *c != '\t' && *c != ','; c++)
			;
		n = (size_t)(c - s);
		if (n == 0)
			break;
		if (n >= sizeof(w->codes[0]) || w->n_codes == WAIVER_MAX_CODES) {
			*why = "too many or too long codes";
			return -1;
		}
		memcpy(w->codes[w->n_codes], s, n);
		w->codes[w->n_codes][n] = '\0';
		if (!waiver_code_ok(w->codes[w->n_codes])) {
			*why = "unknown code, or one that cannot be waived";
			return -1;
		}
		w->n_codes++;
	}
	if (w->n_codes == 0) {
		*why = "no code to waive";
		return -1;
	}
	for (c = dash + 2; c < end && (*c == ' ' || *c == '\t'); c++)
		;
	while (end > c && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (c == end) {
		*why = "the reason after \"--\" is empty";
		return -1;
	}
	w->reason = strndup(c, (size_t)(end - c));
	return w->reason ? 0 : -ENOMEM;
}

/* Waiver comments of S; malformed ones become W190 findings. */
static int waivers_collect(const source *s, waiver **ws, size_t *n, size_t *cap, lint_report *r)
{
	size_t len;
	const char *l;

	for (unsigned line = 1; (l = line_at(s, line, &len)); line++) {
		const char *hash = l, *why = NULL;
		waiver w = { .src = s, .line = line };
		osb_origin o = { s->file, line, 0 };
		int e;

		while (hash < l + len && (*hash == ' ' || *hash == '\t'))
			hash++;
		if (hash == l + len || *hash != '#')
			continue;
		w.col = (unsigned)(hash - l) + 1;
		e = waiver_parse(hash + 1, l + len, &w, &why);
		if (e == 1)
			continue;
		if (e == -ENOMEM)
			return e;
		if (e < 0) {
			if (add_finding(r, "W190", &o, "malformed waiver: %s", why) < 0)
				return -ENOMEM;
			r->v[r->n - 1].col = w.col;
			continue;
		}
		for (unsigned t = line + 1; (l = line_at(s, t, &len)); t++)
			if (is_directive(l, len)) {
				w.target = t;
				break;
			}
		if (!(*ws = array_grow(*ws, cap, *n, sizeof(**ws)))) {
			free(w.reason);
			return -ENOMEM;
		}
		(*ws)[(*n)++] = w;
	}
	return 0;
}

static void waivers_apply(waiver *ws, size_t n_ws, lint_report *r, size_t n_findings)
{
	for (size_t i = 0; i < n_findings; i++) {
		lint_finding *f = &r->v[i];

		if (f->rule->sev != LINT_WARNING)
			continue;
		for (size_t j = 0; j < n_ws && !f->waiver; j++) {
			waiver *w = &ws[j];

			if (w->target != f->line || strcmp(w->src->file, f->file) != 0)
				continue;
			for (size_t k = 0; k < w->n_codes; k++)
				if (strcmp(w->codes[k], f->rule->code) == 0) {
					w->used[k] = true;
					f->waiver = strdup(w->reason);
					f->waiver_line = w->line;
					r->n_waived += f->waiver != NULL;
					break;
				}
		}
	}
}

static int waivers_unused(const waiver *ws, size_t n_ws, lint_report *r)
{
	for (size_t j = 0; j < n_ws; j++)
		for (size_t k = 0; k < ws[j].n_codes; k++) {
			osb_origin o = { ws[j].src->file, ws[j].line, 0 };

			if (ws[j].used[k])
				continue;
			if (add_finding(r, "W191", &o, "waiver of %s matches no finding on line %u",
			                ws[j].codes[k], ws[j].target) < 0)
				return -ENOMEM;
			r->v[r->n - 1].col = ws[j].col;
		}
	return 0;
}

/* Give every finding its file:line:col; default rules point at the top
 * file's version line, which stands for the policy as a whole. */
static void place_findings(const osb_policy *p, const source *srcs, size_t n, lint_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		lint_finding *f = &r->v[i];
		const source *s;

		if (f->from_default) {
			f->file = p->files[0];
			f->line = n > 0 && srcs[0].version_line ? srcs[0].version_line : 1;
		}
		s = source_of(srcs, n, f->file);
		if (f->col == 0)
			f->col = s ? first_col(s, f->line) : 1;
	}
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

static int lint_waivers(const osb_policy *p, lint_report *r)
{
	source *srcs = calloc(p->n_files + 1, sizeof(*srcs));
	waiver *ws = NULL;
	size_t n_ws = 0, cap_ws = 0, n_findings = r->n;
	int e = 0;

	if (!srcs)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_files; i++) {
		srcs[i].file = p->files[i];
		if (read_file_bounded(p->files[i], POLICY_MAX_BYTES, &srcs[i].text, &srcs[i].len) < 0)
			srcs[i].text = NULL;
		source_scan(&srcs[i]);
	}
	place_findings(p, srcs, p->n_files, r);
	for (size_t i = 0; i < p->n_files && e == 0; i++)
		e = waivers_collect(&srcs[i], &ws, &n_ws, &cap_ws, r);
	if (e == 0) {
		waivers_apply(ws, n_ws, r, n_findings);
		e = waivers_unused(ws, n_ws, r);
	}
	if (e == 0)
		place_findings(p, srcs, p->n_files, r);
	for (size_t i = 0; i < n_ws; i++)
		free(ws[i].reason);
	free(ws);
	for (size_t i = 0; i < p->n_files; i++)
		free(srcs[i].text);
	free(srcs);
	return e;
}

int lint_policy(const osb_policy *p, lint_report *r)
{
	int e;

	memset(r, 0, sizeof(*r));
	if ((e = lint_identity(p, r)) < 0 || (e = lint_writes(p, r)) < 0 ||
	    (e = lint_exposure(p, r)) < 0 || (e = lint_network_seccomp(p, r)) < 0 ||
	    (e = lint_env(p, r)) < 0 || (e = lint_limits(p, r)) < 0 ||
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
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}

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

static int set_item(audit_report *r, int k, unsigned points, const osb_origin *o, const char *f, ...)
	__attribute__((format(printf, 5, 6)));
static int set_item(audit_report *r, int k, unsigned points, const osb_origin *o, const char *f, ...)
{
	audit_item *it = &r->v[k];
	va_list ap;

	it->points = points > it->weight ? it->weight : points;
	if (o)
		it->o = *o;
	free(it->detail);
	va_start(ap, f);
	it->detail = vfmt(f, ap);
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
		if (dest_within(path, system_dirs[i])) {
			*system = true;
			return 0;
		}
	for (size_t i = 0; i < ARRAY_SIZE(view_areas); i++) {
		if (strcmp(path, view_areas[i].path) == 0)
			return view_areas[i].points;
		if (dest_within(path, view_areas[i].path))
			return 1;
	}
	return 1;
}

static int audit_view(const osb_policy *p, audit_report *r)
{
	unsigned points = 0;
	bool system = false;
	size_t n_ro = 0;
	const osb_origin *o = NULL;

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

static int audit_writes(const osb_policy *p, audit_report *r)
{
	for (size_t i = 0; i < p->n_writes; i++)
		if (classify_write(p, p->writes[i].s) != W_NONE)
			return set_item(r, A_HOST_WRITES, 15, &p->writes[i].o,
			                "write %s: a path whose change runs code or changes the host",
			                p->writes[i].s);
	if (p->n_writes == 0)
		return set_item(r, A_HOST_WRITES, 0, NULL, "no writable host path beyond the workspace");
	return set_item(r, A_HOST_WRITES, (unsigned)(p->n_writes > 3 ? 15 : 5 * p->n_writes),
	                &p->writes[p->n_writes - 1].o, "%zu writable host path%s beyond the workspace",
	                p->n_writes, p->n_writes == 1 ? "" : "s");
}

static int audit_env(const osb_policy *p, audit_report *r)
{
	char names[256];

	if (p->env_base == ENV_INHERIT && leaked_samples(p, NULL, names, sizeof(names)) > 0)
		return set_item(r, A_ENV, 10, &p->env_base_set.o, "env inherit passes secrets (%s)", names);
	for (size_t i = 0; i < p->n_env_pass; i++) {
		const pol_str *e = &p->env_pass[i];

		if (has_glob(e->s) ? leaked_samples(p, e->s, names, sizeof(names)) > 0
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
static int audit_seccomp(const osb_policy *p, size_t n_allow, const osb_origin *o,
                         audit_report *r)
{
	const sc_group *g = seccomp_policy_group(p);
	bool old = g && g != seccomp_policy_group(NULL) && !g->deny_unknown;
	unsigned points = (unsigned)(3 * (n_allow > 5 ? 5 : n_allow)) + (old ? 5 : 0);
	char also[128] = "";

	if (p->sc_mode == SC_NONE)
		return set_item(r, A_SECCOMP, 15, &p->sc_mode_set.o, "seccomp none: no syscall filter");
	if (!g)
		return set_item(r, A_SECCOMP, 15, &p->sc_mode_set.o, "seccomp group osb-default-%u: "
		                "not in this osb-isolate, no filter can be built", p->sc_group);
	if (old)
		snprintf(also, sizeof(also), "%s allows calls newer than its libseccomp table",
		         g->name);
	if (n_allow)
		return set_item(r, A_SECCOMP, points, o, "%zu call%s removed from %s%s%s", n_allow,
		                n_allow == 1 ? "" : "s", g->name, old ? "; " : "", also);
	if (old)
		return set_item(r, A_SECCOMP, points, &p->sc_mode_set.o, "%s", also);
	return set_item(r, A_SECCOMP, 0, &p->sc_mode_set.o, "%s, complete: unknown calls get ENOSYS",
	                g->name);
}

static int audit_kernel(const osb_policy *p, audit_report *r)
{
	size_t n_allow = 0;
	const osb_origin *o = NULL;
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

static int count_exposer(const osb_policy *p, const char *path, const char *rule,
                         const osb_origin *o, void *ctx)
{
	const osb_origin **first = ctx;

	(void)p; (void)path; (void)rule;
	if (!*first)
		*first = o;
	return 0;
}

static int audit_exposure(const osb_policy *p, audit_report *r)
{
	const osb_origin *o = NULL;
	const char *what = NULL;
	int e;

	for (size_t i = 0; i < ARRAY_SIZE(daemon_sockets) && !o; i++) {
		exposers(p, daemon_sockets[i], false, count_exposer, &o);
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

static int audit_limits(const osb_policy *p, audit_report *r)
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
			int w = snprintf(names + used, sizeof(names) - used, " %s", osb_limit_names[lims[i]]);

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
	    (hostid_uid_is_account(p->host_uid) || hostid_gid_is_group(p->host_gid)))
		return set_item(r, A_IDENTITY, 3, &p->host_ids_set.o,
		                "host-ids %u %u: an account of this host", p->host_uid, p->host_gid);
	return set_item(r, A_IDENTITY, 0, &p->user_set.o, "uid %u gid %u", p->uid, p->gid);
}
/* A caller's grant of the host network counts as the host network: the
 * score is of what the policy lets happen, not of its default. */
static int audit_network(const osb_policy *p, audit_report *r)
{
	if (p->net == NET_HOST)
		return set_item(r, A_NETWORK, 15, &p->net_set.o, "network host: the host's network "
		                "namespace");
	if (p->caller_net.set)
		return set_item(r, A_NETWORK, 15, &p->caller_net.o, "allow-caller network: a caller may "
		                "share the host's network namespace");
	return set_item(r, A_NETWORK, 0, &p->net_set.o, "network none: loopback only");
}


int audit_policy(const osb_policy *p, audit_report *r)
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
	    (e = set_item(r, A_WORKSPACE, p->ws_mode == WS_RW ? 5 : p->ws_mode == WS_RO ? 2 : 0,
	                  &p->ws_set.o, "workspace %s", ws_words[p->ws_mode])) < 0 ||
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

static void origin_str(const osb_origin *o, char *buf, size_t size)
{
	if (origin_is_rule(o))
		snprintf(buf, size, "%s:%u", o->file, o->line);
	else if (o->file)
		snprintf(buf, size, "%s", o->file);   /* "default" or "api" */
	else
		snprintf(buf, size, "%s", "");        /* no single rule decides */
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

		origin_str(&it->o, o, sizeof(o));
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

	return render_text_with(audit_text, &a);
}

static json_object *origin_json(const osb_origin *o)
{
	char buf[PATH_MAX + 32];

	origin_str(o, buf, sizeof(buf));
	return *buf ? json_object_new_string(buf) : NULL;
}

static char *json_take(json_object *o)
{
	char *s = NULL;

	if (o)
		s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
		                                             JSON_C_TO_STRING_SPACED |
		                                             JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return s;
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
	return json_take(o);
}

/* ---- canonical rules with their origins ---------------------------------------------- */

typedef struct rule_view {
	strv rules;               /* canonical lines, version line excluded */
	strv origins;             /* "file:line" / "default" / "api" per rule */
} rule_view;

static void rule_view_free(rule_view *v)
{
	strv_free(&v->rules);
	strv_free(&v->origins);
}

/* explain renders the canonical lines in the same order, each followed by
 * "  # ORIGIN": line I of one is line I of the other. */
static int rule_view_build(const osb_policy *p, rule_view *v)
{
	_cleanup_free_ char *canon = NULL;
	char *expl = NULL, *cs, *es, *csave = NULL, *esave = NULL;
	int r = 0;

	memset(v, 0, sizeof(*v));
	if (policy_canonical(p, &canon) < 0 || !(expl = osb_policy_explain(p, 0)))
		return -ENOMEM;
	cs = strtok_r(canon, "\n", &csave);
	es = strtok_r(expl, "\n", &esave);
	for (; cs && r == 0; cs = strtok_r(NULL, "\n", &csave), es = es ? strtok_r(NULL, "\n", &esave) : NULL) {
		size_t n = strlen(cs);
		const char *o = "default";

		if (strncmp(cs, "osb-policy ", 11) == 0)
			continue;
		if (es && strncmp(es, cs, n) == 0 && strncmp(es + n, "  # ", 4) == 0)
			o = es + n + 4;
		if (strv_push(&v->rules, cs) < 0 || strv_push(&v->origins, o) < 0)
			r = -ENOMEM;
	}
	osb_free(expl);
	if (r < 0)
		rule_view_free(v);
	return r;
}

/* ---- diff ------------------------------------------------------------------------------ */

static const char *const mount_words[] = { "ro-bind", "tmpfs", "hide", "dev", "proc" };

static bool word_in(const char *w, size_t n, const char *const *set, size_t n_set)
{
	for (size_t i = 0; i < n_set; i++)
		if (strlen(set[i]) == n && strncmp(w, set[i], n) == 0)
			return true;
	return false;
}

/* What identifies a rule across two policies: the scalar it sets, the path
 * a mount is at, the name an env set assigns; list entries are themselves. */
static char *rule_key(const char *rule)
{
	static const char *const scalars[] = {
		"root", "workspace", "network", "user", "identity", "hostname", "landlock",
	};
	size_t n0 = strcspn(rule, " ");
	const char *a1 = rule[n0] ? rule + n0 + 1 : rule + n0;
	size_t n1 = strcspn(a1, " ");

	if (word_in(rule, n0, scalars, ARRAY_SIZE(scalars)))
		return strndup(rule, n0);
	if (word_in(rule, n0, mount_words, ARRAY_SIZE(mount_words)))
		return fmt("mount %s", a1);
	if (strncmp(rule, "env ", 4) == 0 && (strcmp(a1, "clear") == 0 || strcmp(a1, "inherit") == 0))
		return strdup("env");
	if (strncmp(rule, "env set ", 8) == 0)
		return fmt("env set %.*s", (int)strcspn(rule + 8, "="), rule + 8);
	if (strncmp(rule, "limit ", 6) == 0)
		return fmt("limit %.*s", (int)n1, a1);
	if (strncmp(rule, "seccomp ", 8) == 0 && (strcmp(a1, "default") == 0 || strcmp(a1, "none") == 0 ||
	                                          seccomp_group_find(a1)))
		return strdup("seccomp");
	return strdup(rule);
}

static const char *arg_of(const char *rule, unsigned i)
{
	const char *c = rule;

	while (i-- > 0) {
		c = strchr(c, ' ');
		if (!c)
			return "";
		c++;
	}
	return c;
}

static int word_rank(const char *w, const char *const *order)
{
	for (int i = 0; order[i]; i++)
		if (strncmp(w, order[i], strlen(order[i])) == 0 &&
		    (w[strlen(order[i])] == '\0' || w[strlen(order[i])] == ' '))
			return i;
	return -1;
}

/* A limit value as the canonical form writes it, in ms / bytes / count. */
static uint64_t limit_value(const char *name, const char *v)
{
	uint64_t out = UINT64_MAX;

	if (strcmp(v, "unlimited") == 0)
		return UINT64_MAX;
	if (strcmp(name, "wall") == 0 || strcmp(name, "cpu") == 0)
		parse_duration_ms(v, &out);
	else if (strcmp(name, "as") == 0 || strcmp(name, "fsize") == 0 || strcmp(name, "output") == 0)
		parse_size_bytes(v, &out);
	else
		out = strtoull(v, NULL, 10);
	return out;
}

static enum diff_dir compare_ranks(long a, long b)
{
	if (a < 0 || b < 0 || a == b)
		return DIFF_NEUTRAL;
	return b > a ? DIFF_WIDER : DIFF_NARROWER;
}

/* "seccomp none" grants most, then each group older than the newest. */
static long seccomp_rule_rank(const char *rule)
{
	const char *w = arg_of(rule, 1);
	const sc_group *g = seccomp_group_find(w), *newest = seccomp_policy_group(NULL);

	if (strcmp(w, "none") == 0)
		return LONG_MAX;
	if (strcmp(w, "default") == 0)
		return 0;
	return g ? (long)(newest->version - g->version) : -1;
}

static enum diff_dir changed_dir(const char *key, const char *from, const char *to)
{
	static const char *const root_o[] = { "root none", "root host-ro", NULL };
	static const char *const ws_o[] = { "workspace none", "workspace ro", "workspace rw", NULL };
	static const char *const net_o[] = { "network none", "network host", NULL };
	static const char *const env_o[] = { "env clear", "env inherit", NULL };
	static const char *const ll_o[] = { "landlock required", "landlock auto", "landlock off", NULL };
	static const char *const *const orders[] = { root_o, ws_o, net_o, env_o, ll_o };

	if (strcmp(key, "seccomp") == 0)
		return compare_ranks(seccomp_rule_rank(from), seccomp_rule_rank(to));
	for (size_t i = 0; i < ARRAY_SIZE(orders); i++)
		if (word_rank(from, orders[i]) >= 0)
			return compare_ranks(word_rank(from, orders[i]), word_rank(to, orders[i]));
	if (strncmp(key, "limit ", 6) == 0) {
		uint64_t a = limit_value(key + 6, arg_of(from, 2)), b = limit_value(key + 6, arg_of(to, 2));

		return a == b ? DIFF_NEUTRAL : b > a ? DIFF_WIDER : DIFF_NARROWER;
	}
	if (strncmp(key, "mount ", 6) == 0) {
		/* A bind shows the host; every other mount kind shows nothing of it. */
		bool a = strncmp(from, "ro-bind ", 8) == 0, b = strncmp(to, "ro-bind ", 8) == 0;

		return a == b ? DIFF_NEUTRAL : b ? DIFF_WIDER : DIFF_NARROWER;
	}
	if (strcmp(key, "user") == 0) {
		bool a = strstr(from, " 0 ") || strstr(from, " 0") == from + strlen(from) - 2;
		bool b = strstr(to, " 0 ") || strstr(to, " 0") == to + strlen(to) - 2;

		return a == b ? DIFF_NEUTRAL : b ? DIFF_WIDER : DIFF_NARROWER;
	}
	return DIFF_NEUTRAL;
}

/* Adding RULE grants (WIDER), restricts (NARROWER) or neither. */
static enum diff_dir added_dir(const char *rule)
{
	static const char *const grants[] = {
		"ro-bind ", "write ", "write-root ", "read-root ", "allow-caller ", "env pass ",
		"seccomp allow ",
	};
	static const char *const limits[] = {
		"tmpfs ", "hide ", "read-only ", "env deny ", "seccomp deny ",
	};

	for (size_t i = 0; i < ARRAY_SIZE(grants); i++)
		if (strncmp(rule, grants[i], strlen(grants[i])) == 0)
			return DIFF_WIDER;
	for (size_t i = 0; i < ARRAY_SIZE(limits); i++)
		if (strncmp(rule, limits[i], strlen(limits[i])) == 0)
			return DIFF_NARROWER;
	if (strncmp(rule, "limit ", 6) == 0)   /* a limit appears: narrower */
		return DIFF_NARROWER;
	return DIFF_NEUTRAL;
}

static enum diff_dir flip(enum diff_dir d)
{
	return d == DIFF_WIDER ? DIFF_NARROWER : d == DIFF_NARROWER ? DIFF_WIDER : d;
}

static int diff_add(diff_report *r, enum diff_kind kind, enum diff_dir dir, const char *from,
                    const char *from_o, const char *to, const char *to_o)
{
	diff_entry *v = array_grow(r->v, &r->cap, r->n, sizeof(*v));

	if (!v)
		return -ENOMEM;
	r->v = v;
	v[r->n] = (diff_entry){ kind, dir, from ? strdup(from) : NULL, to ? strdup(to) : NULL,
	                        from_o ? strdup(from_o) : NULL, to_o ? strdup(to_o) : NULL };
	r->n++;
	if ((from && !v[r->n - 1].from) || (to && !v[r->n - 1].to) ||
	    (from_o && !v[r->n - 1].from_origin) || (to_o && !v[r->n - 1].to_origin))
		return -ENOMEM;
	return 0;
}

static ssize_t key_index(char *const *keys, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(keys[i], key) == 0)
			return (ssize_t)i;
	return -1;
}

static int diff_views(const rule_view *a, const rule_view *b, diff_report *r)
{
	strv ka = { 0 }, kb = { 0 };
	int e = 0;

	for (size_t i = 0; i < a->rules.n && e == 0; i++) {
		char *k = rule_key(a->rules.v[i]);

		e = k ? strv_push(&ka, k) : -ENOMEM;
		free(k);
	}
	for (size_t i = 0; i < b->rules.n && e == 0; i++) {
		char *k = rule_key(b->rules.v[i]);

		e = k ? strv_push(&kb, k) : -ENOMEM;
		free(k);
	}
	for (size_t i = 0; i < a->rules.n && e == 0; i++) {
		ssize_t j = key_index(kb.v, kb.n, ka.v[i]);
		const char *ra = a->rules.v[i];

		if (j < 0)
			e = diff_add(r, DIFF_REMOVED, flip(added_dir(ra)), ra, a->origins.v[i], NULL, NULL);
		else if (strcmp(ra, b->rules.v[j]) != 0)
			e = diff_add(r, DIFF_CHANGED, changed_dir(ka.v[i], ra, b->rules.v[j]), ra,
			             a->origins.v[i], b->rules.v[j], b->origins.v[j]);
	}
	for (size_t j = 0; j < b->rules.n && e == 0; j++)
		if (key_index(ka.v, ka.n, kb.v[j]) < 0)
			e = diff_add(r, DIFF_ADDED, added_dir(b->rules.v[j]), NULL, NULL, b->rules.v[j],
			             b->origins.v[j]);
	strv_free(&ka);
	strv_free(&kb);
	return e;
}

int diff_policies(const osb_policy *a, const osb_policy *b, diff_report *r)
{
	rule_view va, vb;
	int e;

	memset(r, 0, sizeof(*r));
	if ((e = rule_view_build(a, &va)) < 0)
		return e;
	if ((e = rule_view_build(b, &vb)) < 0) {
		rule_view_free(&va);
		return e;
	}
	e = diff_views(&va, &vb, r);
	rule_view_free(&va);
	rule_view_free(&vb);
	if (e < 0)
		diff_report_free(r);
	return e;
}

void diff_report_free(diff_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].from);
		free(r->v[i].to);
		free(r->v[i].from_origin);
		free(r->v[i].to_origin);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}

const char *diff_dir_name(enum diff_dir d)
{
	return d == DIFF_WIDER ? "wider" : d == DIFF_NARROWER ? "narrower" : "neutral";
}

/* ---- host plan ------------------------------------------------------------------------ */

static char *fd_path(int fd)
{
	char link[64], buf[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, sizeof(buf) - 1);
	if (n < 0)
		return strdup("?");
	buf[n] = '\0';
	return strdup(buf);
}

static const char *action_name(const char *act, char *buf, size_t size)
{
	int e;

	if (sscanf(act, "ERRNO(%d)", &e) == 1) {
		const char *n = strerrorname_np(e);

		if (n)
			snprintf(buf, size, "%s", n);
		else
			snprintf(buf, size, "errno %d", e);
		return buf;
	}
	if (strncmp(act, "KILL", 4) == 0)
		return "KILL";
	snprintf(buf, size, "%.*s", (int)strcspn(act, ";"), act);
	return buf;
}

static int arch_add_rule(host_arch *a, const char *name, size_t *cap)
{
	host_sc *v = array_grow(a->rules, cap, a->n_rules, sizeof(*v));

	if (!v)
		return -ENOMEM;
	a->rules = v;
	v[a->n_rules] = (host_sc){ strdup(name), NULL, false };
	if (!v[a->n_rules].syscall)
		return -ENOMEM;
	a->n_rules++;
	return 0;
}

static int arch_set_action(host_sc *s, const char *act)
{
	char buf[64], *joined;
	const char *n = action_name(act, buf, sizeof(buf));

	/* Denied for some arguments and allowed for the others (a group that
	 * denies what it does not know spells out both): the denial is what
	 * a reviewer needs, by_args says it is partial. */
	if (s->action && strcmp(n, "ALLOW") == 0)
		return 0;
	if (!s->action || strcmp(s->action, "ALLOW") == 0) {
		free(s->action);
		s->action = strdup(n);
		return s->action ? 0 : -ENOMEM;
	}
	if (strstr(s->action, n))
		return 0;
	joined = fmt("%s/%s", s->action, n);
	if (!joined)
		return -ENOMEM;
	free(s->action);
	s->action = joined;
	return 0;
}

/* Calls libseccomp knows on arch A that no rule names get the default
 * answer: where that is not ALLOW (osb-default-2), list them with it, so
 * that its ENOSYS calls (clone3, the new mount API, io_uring) show. */
static int arch_add_defaulted(host_arch *a)
{
	uint32_t arch = seccomp_arch_resolve_name(a->name);
	int base = arch == SCMP_ARCH_X32 ? 0x40000000 : 0;
	size_t cap = a->n_rules, n_named = a->n_rules;

	if (!arch || !a->fallback || strcmp(a->fallback, "ALLOW") == 0)
		return 0;
	for (int nr = 0; nr < SC_SCAN_MAX; nr++) {
		_cleanup_free_ char *name = seccomp_syscall_resolve_num_arch(arch, base + nr);
		bool named = false;

		for (size_t i = 0; name && i < n_named && !named; i++)
			named = strcmp(a->rules[i].syscall, name) == 0;
		if (!name || named)
			continue;
		if (arch_add_rule(a, name, &cap) < 0)
			return -ENOMEM;
		if (!(a->rules[a->n_rules - 1].action = strdup(a->fallback)))
			return -ENOMEM;
	}
	return 0;
}

/* Summarize libseccomp's PFC text per architecture: which calls get which
 * action, and whether only some argument values do. */
static int parse_pfc(const char *text, host_plan *h)
{
	_cleanup_free_ char *copy = strdup(text);
	char *save = NULL, *l;
	host_arch *a = NULL;
	host_sc *cur = NULL;
	size_t cap_arch = 0, cap_rules = 0;
	bool in_default = false;

	if (!copy)
		return -ENOMEM;
	for (l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char name[64];
		unsigned long long nr;

		while (*l == ' ')
			l++;
		if (sscanf(l, "# filter for arch %63s", name) == 1) {
			host_arch *v = array_grow(h->arches, &cap_arch, h->n_arches, sizeof(*v));

			if (!v)
				return -ENOMEM;
			h->arches = v;
			a = &v[h->n_arches++];
			memset(a, 0, sizeof(*a));
			cap_rules = 0;
			cur = NULL;
			in_default = false;
			if (!(a->name = strdup(name)))
				return -ENOMEM;
		} else if (a && sscanf(l, "# filter for syscall \"%63[^\"]\" (%llu)", name, &nr) == 2) {
			in_default = false;
			cur = NULL;
			/* Calls this architecture does not have get pseudo-numbers
			 * near 2^32 that no real call can reach. */
			if (nr >= 0xf0000000ULL)
				continue;
			if (arch_add_rule(a, name, &cap_rules) < 0)
				return -ENOMEM;
			cur = &a->rules[a->n_rules - 1];
		} else if (a && strcmp(l, "# default action") == 0) {
			in_default = true;
			cur = NULL;
		} else if (strncmp(l, "# invalid architecture", 22) == 0) {
			a = NULL;
		} else if (a && strncmp(l, "if ($a", 6) == 0 && cur) {
			cur->by_args = true;
		} else if (a && strncmp(l, "action ", 7) == 0) {
			if (in_default && !a->fallback) {
				char buf[64];

				if (!(a->fallback = strdup(action_name(l + 7, buf, sizeof(buf)))))
					return -ENOMEM;
			} else if (cur && arch_set_action(cur, l + 7) < 0) {
				return -ENOMEM;
			}
		}
	}
	return 0;
}

static int sc_cmp(const void *a, const void *b)
{
	return strcmp(((const host_sc *)a)->syscall, ((const host_sc *)b)->syscall);
}

static int host_binds(const plan *pl, host_plan *h)
{
	h->binds = calloc(pl->n_binds + 1, sizeof(*h->binds));
	if (!h->binds)
		return -ENOMEM;
	for (size_t i = 0; i < pl->n_binds; i++) {
		host_bind *b = &h->binds[h->n_binds++];

		b->dest = strdup(pl->binds[i].dest);
		b->source = fd_path(pl->binds[i].fd);
		b->writable = pl->binds[i].writable;
		b->o = pl->binds[i].o;
		if (!b->dest || !b->source)
			return -ENOMEM;
		if (pl->ws_dest && strcmp(pl->binds[i].dest, pl->ws_dest) == 0 && !h->workspace &&
		    !(h->workspace = strdup(b->source)))
			return -ENOMEM;
	}
	return 0;
}
/* The group the policy loads, as explain --host names it. */
static const char *seccomp_group_label(const osb_policy *p)
{
	const sc_group *g = seccomp_policy_group(p);

	if (p->sc_mode == SC_NONE)
		return "none";
	return g ? g->name : "(unknown)";
}


int host_plan_build(const osb_policy *p, const char *const *envp, host_plan *h, osb_error *err)
{
	static const char *const cmd[] = { "true", NULL };
	plan pl;
	int r;

	memset(h, 0, sizeof(*h));
	if ((r = launch_prepare(p, &(plan_request){ envp, NULL, false }, &pl, err)) < 0)
		return r;
	h->userns = pl.userns;
	r = host_binds(&pl, h);
	if (r == 0)
		r = view_scan_sockets(&pl, &h->sockets);
	for (size_t i = 0; r == 0 && i < pl.env.n; i++) {
		_cleanup_free_ char *name = strndup(pl.env.v[i], strcspn(pl.env.v[i], "="));

		r = name ? strv_push(&h->env_names, name) : -ENOMEM;
	}
	if (r < 0) {
		plan_free(&pl);
		host_plan_free(h);
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "explain", "out of memory");
	}
	r = bwrap_argv_run(&pl, cmd, &h->argv, err);
	plan_free(&pl);
	if (r == 0)
		r = seccomp_export_text(p, &h->seccomp_text, err);
	if (r == 0 && parse_pfc(h->seccomp_text, h) < 0)
		r = osb_err_set(err, OSB_E_NOMEM, ENOMEM, "explain", "out of memory");
	for (size_t i = 0; r == 0 && i < h->n_arches; i++)
		if (arch_add_defaulted(&h->arches[i]) < 0)
			r = osb_err_set(err, OSB_E_NOMEM, ENOMEM, "explain", "out of memory");
	for (size_t i = 0; r == 0 && i < h->n_arches; i++)
		qsort(h->arches[i].rules, h->arches[i].n_rules, sizeof(host_sc), sc_cmp);
	if (r < 0) {
		host_plan_free(h);
		return r;
	}
	h->seccomp_group = seccomp_group_label(p);
	return 0;
}

void host_plan_free(host_plan *h)
{
	for (size_t i = 0; i < h->n_binds; i++) {
		free(h->binds[i].dest);
		free(h->binds[i].source);
	}
	free(h->binds);
	for (size_t i = 0; i < h->n_arches; i++) {
		for (size_t j = 0; j < h->arches[i].n_rules; j++) {
			free(h->arches[i].rules[j].syscall);
			free(h->arches[i].rules[j].action);
		}
		free(h->arches[i].rules);
		free(h->arches[i].name);
		free(h->arches[i].fallback);
	}
	free(h->arches);
	free(h->workspace);
	free(h->seccomp_text);
	view_sockets_free(&h->sockets);
	strv_free(&h->argv);
	strv_free(&h->env_names);
	memset(h, 0, sizeof(*h));
}

/* An argument as a POSIX shell would need it written. */
static void put_quoted(FILE *f, const char *s)
{
	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	                    "_-+=/.,:@%") == strlen(s)) {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

static size_t count_action(const host_arch *a, const char *action)
{
	size_t n = 0;

	for (size_t i = 0; i < a->n_rules; i++)
		n += a->rules[i].action && !a->rules[i].by_args &&
		     strcmp(a->rules[i].action, action) == 0;
	return n;
}

/* The head line of a filter whose default is not ALLOW: what it answers
 * to the calls libseccomp does not know. */
static void arch_head_unknown(FILE *f, const host_arch *a)
{
	const struct scmp_version *v = seccomp_version();

	fprintf(f, "  %s (every call libseccomp %u.%u.%u does not know: %s)\n", a->name, v->major,
	        v->minor, v->micro, a->fallback);
}

/* "  ACTION: a b c" lines, wrapped, for one architecture. */
static void arch_text(FILE *f, const host_arch *a)
{
	strv actions = { 0 };

	for (size_t i = 0; i < a->n_rules; i++) {
		bool seen = false;

		for (size_t j = 0; j < actions.n; j++)
			seen |= a->rules[i].action && strcmp(actions.v[j], a->rules[i].action) == 0;
		if (!seen && a->rules[i].action && strv_push(&actions, a->rules[i].action) < 0)
			break;
	}
	if (a->fallback && strcmp(a->fallback, "ALLOW") != 0)
		arch_head_unknown(f, a);
	else
		fprintf(f, "  %s (every other call: %s)\n", a->name, a->fallback ? a->fallback : "?");
	for (size_t j = 0; j < actions.n; j++) {
		size_t col = (size_t)fprintf(f, "    %s:", actions.v[j]);

		/* Allowed by name, all but the few the group denies: a count
		 * (the JSON lists them). */
		if (a->fallback && strcmp(a->fallback, "ALLOW") != 0 &&
		    strcmp(actions.v[j], "ALLOW") == 0) {
			fprintf(f, " %zu calls (every other call libseccomp knows)\n",
			        count_action(a, "ALLOW"));
			continue;
		}

		for (size_t i = 0; i < a->n_rules; i++) {
			const host_sc *s = &a->rules[i];
			size_t w = strlen(s->syscall) + (s->by_args ? 8 : 0) + 1;

			if (!s->action || strcmp(s->action, actions.v[j]) != 0)
				continue;
			if (col + w > 96) {
				fputs("\n     ", f);
				col = 5;
			}
			fprintf(f, " %s%s", s->syscall, s->by_args ? "(by arg)" : "");
			col += w;
		}
		fputc('\n', f);
	}
	strv_free(&actions);
}

/* The sockets the view shows: each one is reachable whatever "network"
 * says (osb-isolate(1), "SOCKETS"). */
static void host_sockets_text(FILE *f, const view_sockets *v)
{
	fprintf(f, "unix sockets in the view:%s", v->paths.n ? "\n" : " none");
	for (size_t i = 0; i < v->paths.n; i++)
		fprintf(f, "  %s\n", v->paths.v[i]);
	if (v->more)
		fprintf(f, "  ... and %zu more\n", v->more);
	if (!v->complete)
		fprintf(f, "%s(the walk stopped after %zu entries: there may be more)\n",
		        v->paths.n ? "  " : " ", v->entries);
	else if (!v->paths.n)
		fputc('\n', f);
	if (v->paths.n)
		fprintf(f, "warning: connect(2) reaches these through a read-only bind and under "
		        "\"network none\"; bind less (W118)\n");
}

typedef struct host_text_arg {
	const osb_policy *p;
	const host_plan *h;
} host_text_arg;

static int host_text(FILE *f, const void *varg)
{
	const host_text_arg *a = varg;
	const osb_policy *p = a->p;
	const host_plan *h = a->h;

	fprintf(f, "\n# launch plan on this host\n");
	if (h->userns)
		fprintf(f, "identity: userns (a user namespace: the sandbox sees uid %u gid %u \"%s\", "
		        "mapped to the caller's uid %u)\n", p->uid, p->gid, p->user_name, (unsigned)getuid());
	else
		fprintf(f, "identity: root (no user namespace: the init switches to uid %u gid %u \"%s\" "
		        "and drops every capability)\n", p->uid, p->gid, p->user_name);
	fprintf(f, "workspace: %s\n", h->workspace ? h->workspace : "none");
	fprintf(f, "binds (host source -> sandbox path):\n");
	for (size_t i = 0; i < h->n_binds; i++) {
		char o[PATH_MAX + 32];

		origin_str(&h->binds[i].o, o, sizeof(o));
		fprintf(f, "  %s %s -> %s  # %s\n", h->binds[i].writable ? "rw" : "ro",
		        h->binds[i].source, h->binds[i].dest, o);
	}
	if (h->n_binds == 0)
		fprintf(f, "  none\n");
	fprintf(f, "writable host paths:");
	for (size_t i = 0; i < h->n_binds; i++)
		if (h->binds[i].writable)
			fprintf(f, " %s", h->binds[i].dest);
	fputc('\n', f);
	fprintf(f, "private writable mounts:");
	for (size_t i = 0; i < p->n_mounts; i++)
		if (p->mounts[i].kind == MNT_TMPFS)
			fprintf(f, " %s", p->mounts[i].path);
	fputc('\n', f);
	host_sockets_text(f, &h->sockets);
	fprintf(f, "landlock: %s\n", ll_words[p->landlock]);
	fprintf(f, "environment:");
	for (size_t i = 0; i < h->env_names.n; i++)
		fprintf(f, " %s", h->env_names.v[i]);
	fprintf(f, "%s\n", h->env_names.n ? "" : " (empty)");
	fprintf(f, "seccomp: %s%s, per architecture:\n", h->seccomp_group,
	        p->n_sc_rules ? " as the policy's seccomp rules edit it" : "");
	for (size_t i = 0; i < h->n_arches; i++)
		arch_text(f, &h->arches[i]);
	fprintf(f, "bwrap argv (the command \"true\" stands for yours):\n");
	for (size_t i = 0; i < h->argv.n; i++) {
		fputs("  ", f);
		put_quoted(f, h->argv.v[i]);
		fputc('\n', f);
	}
	return 0;
}

char *host_plan_render_text(const osb_policy *p, const host_plan *h)
{
	host_text_arg a = { p, h };

	return render_text_with(host_text, &a);
}

/* ---- explain ---------------------------------------------------------------------------- */

static json_object *rule_args(const char *rule)
{
	json_object *args = json_object_new_array();
	const char *c = rule + strcspn(rule, " ");

	while (args && *c == ' ') {
		size_t n;

		c++;
		/* env set NAME=VALUE: the value is the rest of the line. */
		n = strncmp(rule, "env set ", 8) == 0 && c > rule + 7 ? strlen(c) : strcspn(c, " ");
		json_object_array_add(args, json_object_new_string_len(c, (int)n));
		c += n;
	}
	return args;
}

static json_object *origin_split(const char *o, json_object *rule)
{
	const char *colon = strrchr(o, ':');
	char *end = NULL;
	unsigned long line = colon ? strtoul(colon + 1, &end, 10) : 0;

	json_object_object_add(rule, "origin", json_object_new_string(o));
	if (colon && end && *end == '\0' && line > 0) {
		json_object_object_add(rule, "file", json_object_new_string_len(o, (int)(colon - o)));
		json_object_object_add(rule, "line", json_object_new_int((int)line));
	} else {
		json_object_object_add(rule, "file", NULL);
		json_object_object_add(rule, "line", json_object_new_int(0));
	}
	return rule;
}

/* {"paths": [...], "more": N, "complete": bool}: the sockets the view
 * shows, as the sandbox would find them. */
static json_object *sockets_json(const view_sockets *v)
{
	json_object *o = json_object_new_object(), *paths = json_object_new_array();

	for (size_t i = 0; i < v->paths.n; i++)
		json_object_array_add(paths, json_object_new_string(v->paths.v[i]));
	json_object_object_add(o, "paths", paths);
	json_object_object_add(o, "more", json_object_new_int64((int64_t)v->more));
	json_object_object_add(o, "complete", json_object_new_boolean(v->complete));
	return o;
}

static json_object *host_json(const osb_policy *p, const host_plan *h)
{
	json_object *o = json_object_new_object(), *binds = json_object_new_array();
	json_object *argv = json_object_new_array(), *env = json_object_new_array();
	json_object *sc = json_object_new_object(), *arches = json_object_new_array();

	json_object_object_add(o, "identity", json_object_new_string(h->userns ? "userns" : "root"));
	json_object_object_add(o, "uid", json_object_new_int64(p->uid));
	json_object_object_add(o, "gid", json_object_new_int64(p->gid));
	json_object_object_add(o, "workspace", h->workspace ? json_object_new_string(h->workspace) : NULL);
	for (size_t i = 0; i < h->n_binds; i++) {
		json_object *b = json_object_new_object();

		json_object_object_add(b, "source", json_object_new_string(h->binds[i].source));
		json_object_object_add(b, "dest", json_object_new_string(h->binds[i].dest));
		json_object_object_add(b, "writable", json_object_new_boolean(h->binds[i].writable));
		json_object_object_add(b, "origin", origin_json(&h->binds[i].o));
		json_object_array_add(binds, b);
	}
	json_object_object_add(o, "binds", binds);
	json_object_object_add(o, "unix_sockets", sockets_json(&h->sockets));
	json_object_object_add(o, "landlock", json_object_new_string(ll_words[p->landlock]));
	for (size_t i = 0; i < h->env_names.n; i++)
		json_object_array_add(env, json_object_new_string(h->env_names.v[i]));
	json_object_object_add(o, "environment", env);
	for (size_t i = 0; i < h->argv.n; i++)
		json_object_array_add(argv, json_object_new_string(h->argv.v[i]));
	json_object_object_add(o, "bwrap_argv", argv);
	json_object_object_add(sc, "group", json_object_new_string(h->seccomp_group));
	for (size_t i = 0; i < h->n_arches; i++) {
		json_object *a = json_object_new_object(), *rules = json_object_new_array();

		json_object_object_add(a, "arch", json_object_new_string(h->arches[i].name));
		json_object_object_add(a, "default", json_object_new_string(h->arches[i].fallback ?
		                                                            h->arches[i].fallback : ""));
		for (size_t j = 0; j < h->arches[i].n_rules; j++) {
			const host_sc *s = &h->arches[i].rules[j];
			json_object *rj = json_object_new_object();

			json_object_object_add(rj, "syscall", json_object_new_string(s->syscall));
			json_object_object_add(rj, "action", json_object_new_string(s->action ? s->action : ""));
			json_object_object_add(rj, "by_args", json_object_new_boolean(s->by_args));
			json_object_array_add(rules, rj);
		}
		json_object_object_add(a, "rules", rules);
		json_object_array_add(arches, a);
	}
	json_object_object_add(sc, "architectures", arches);
	json_object_object_add(sc, "pfc", json_object_new_string(h->seccomp_text));
	json_object_object_add(o, "seccomp", sc);
	return o;
}

char *explain_render_json(const osb_policy *p, const char *name, const host_plan *h)
{
	json_object *o = json_object_new_object(), *files = json_object_new_array();
	json_object *rules = json_object_new_array();
	rule_view v;
	char hash[72];

	if (!o || !files || !rules || osb_policy_hash(p, hash) < 0 || rule_view_build(p, &v) < 0) {
		json_object_put(o);
		json_object_put(files);
		json_object_put(rules);
		return NULL;
	}
	json_object_object_add(o, "policy", json_object_new_string(name));
	json_object_object_add(o, "hash", json_object_new_string(hash));
	json_object_object_add(o, "version", json_object_new_int(OSB_POLICY_VERSION));
	for (size_t i = 0; i < p->n_files; i++)
		json_object_array_add(files, json_object_new_string(p->files[i]));
	json_object_object_add(o, "files", files);
	for (size_t i = 0; i < v.rules.n; i++) {
		json_object *r = json_object_new_object();
		const char *rule = v.rules.v[i];

		json_object_object_add(r, "rule", json_object_new_string(rule));
		json_object_object_add(r, "directive",
		                       json_object_new_string_len(rule, (int)strcspn(rule, " ")));
		json_object_object_add(r, "args", rule_args(rule));
		json_object_array_add(rules, origin_split(v.origins.v[i], r));
	}
	json_object_object_add(o, "rules", rules);
	if (h)
		json_object_object_add(o, "host", host_json(p, h));
	rule_view_free(&v);
	return json_take(o);
}

char *explain_render_text(const osb_policy *p, const char *name)
{
	char hash[72], *body, *out;

	if (osb_policy_hash(p, hash) < 0 || !(body = osb_policy_explain(p, 0)))
		return NULL;
	out = fmt("# effective policy of %s\n# hash %s\n%s", name, hash, body);
	osb_free(body);
	return out;
}

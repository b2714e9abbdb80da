/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* exposure.c — what a policy lets the sandbox reach of the host, as lint
 * and audit both judge it (exposure.h): credential-shaped variables that
 * pass, daemon sockets and shared directories a rule shows, writable paths
 * whose change runs code outside the sandbox.
 */
#include "exposure.h"
#include "common.h"
#include "view.h"

#include <errno.h>

#include <limits.h>
#include <string.h>

/* Credential-shaped names, as a reviewer would spot them; matched against
 * the upper-cased name. */
static const char *const secret_shapes[] = {
	"*TOKEN*", "*SECRET*", "*PASSWORD*", "*PASSWD*", "*_PWD", "*API_KEY*", "*APIKEY*",
	"*PRIVATE_KEY*", "*ACCESS_KEY*", "*CREDENTIAL*", "*_AUTH", "AWS_*", "AZURE_*",
	"VAULT_*", "KUBECONFIG", "NETRC", "SSH_AUTH_SOCK", "GPG_AGENT_INFO", "PGPASSWORD", "*JWT*",
	"*_AUTH_*",
};

/* Well-known secret variables: what a broad pass pattern or inherit must not
 * let through. */
static const char *const secret_samples[] = {
	"GITHUB_TOKEN", "GH_TOKEN", "GITLAB_TOKEN", "NPM_TOKEN", "HF_TOKEN", "SLACK_BOT_TOKEN",
	"VAULT_TOKEN", "CARGO_REGISTRY_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY",
	"STRIPE_SECRET_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
	"AZURE_CLIENT_SECRET", "GOOGLE_APPLICATION_CREDENTIALS", "DATABASE_PASSWORD",
	"PGPASSWORD", "MYSQL_PWD", "TWINE_PASSWORD", "DOCKER_PASSWORD", "SSH_AUTH_SOCK",
	"KUBECONFIG", "PASSWORD", "TOKEN", "SECRET_KEY", "github_token", "npm_config__authToken",
	"NODE_AUTH_TOKEN", "CI_JOB_JWT", "CI_JOB_JWT_V2", "CI_JOB_TOKEN", "ACTIONS_RUNTIME_TOKEN",
	"SYSTEM_ACCESSTOKEN", "DOCKER_AUTH_CONFIG",
};

size_t secret_sample_count(void)
{
	return ARRAY_SIZE(secret_samples);
}

const char *secret_sample(size_t i)
{
	return i < ARRAY_SIZE(secret_samples) ? secret_samples[i] : NULL;
}

/* Deny wins; then env set, env inherit, or an env pass pattern. */
bool env_passes(const review_policy *p, const char *name)
{
	size_t n = strlen(name);

	if (env_denied(p, name))
		return false;
	if (p->env_base == ENV_INHERIT)
		return true;
	for (size_t i = 0; i < p->n_env_set; i++)
		if (strncmp(p->env_set[i].s, name, n) == 0 && p->env_set[i].s[n] == '=')
			return true;
	for (size_t i = 0; i < p->n_env_pass; i++)
		if (rv_glob_match(p->env_pass[i].s, name))
			return true;
	return false;
}

bool secret_looking(const char *name)
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
		if (rv_glob_match(secret_shapes[i], up))
			return true;
	return false;
}

static void upper(const char *s, char *out, size_t size)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < size; i++) {
		out[i] = s[i];
		if (s[i] >= 'a' && s[i] <= 'z')
			out[i] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[s[i] - 'a'];
	}
	out[i] = '\0';
}

/* Deny patterns ignore case, as the library matches them. */
bool env_denied(const review_policy *p, const char *name)
{
	char n[256], pat[256];

	upper(name, n, sizeof(n));
	for (size_t i = 0; i < p->n_env_deny; i++) {
		upper(p->env_deny[i].s, pat, sizeof(pat));
		if (rv_glob_match(pat, n))
			return true;
	}
	return false;
}

/* The samples PATTERN admits (NULL: all) that no deny pattern removes,
 * as "A, B, C" (at most four named). Returns how many there are. */
size_t leaked_samples(const review_policy *p, const char *pattern, char *buf, size_t size)
{
	size_t n = 0, used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(secret_samples); i++) {
		const char *s = secret_samples[i];

		if ((pattern && !rv_glob_match(pattern, s)) || env_denied(p, s))
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

const char *const daemon_sockets[N_DAEMON_SOCKETS] = {
	"/run/docker.sock", "/run/containerd/containerd.sock", "/run/podman/podman.sock",
	"/run/crio/crio.sock", "/run/buildkit/buildkitd.sock", "/run/dbus/system_bus_socket",
	"/run/systemd/private", "/run/libvirt/libvirt-sock", "/run/snapd.socket", "/run/user",
	"/run/osb-isolate",
};

const char *const shared_dirs[N_SHARED_DIRS] = { "/tmp", "/dev/shm" };

static const char *const rc_files[] = {
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc",
	".zshenv", ".zprofile", ".zlogin", ".zlogout", ".cshrc", ".tcshrc", ".login", ".kshrc",
	".mkshrc", "config.fish",
};

/* Does a mount of one of KINDS (bit per enum mount_kind) cover PATH? */
static const rv_mount *covering_mount(const review_policy *p, const char *path, unsigned kinds)
{
	for (size_t i = 0; i < p->n_mounts; i++)
		if ((kinds & (1u << p->mounts[i].kind)) && rv_path_within(path, p->mounts[i].path))
			return &p->mounts[i];
	return NULL;
}

#define M_(k) (1u << (k))
#define COVERS_HOST (M_(MNT_TMPFS) | M_(MNT_HIDE) | M_(MNT_DEV))

/* Host root visible at PATH: root host-ro, not covered by a private mount.
 * (An explicit bind is reported by its own rule.) */
static bool host_root_shows(const review_policy *p, const char *path)
{
	return p->root == ROOT_HOST_RO && !covering_mount(p, path, COVERS_HOST);
}

static bool read_only_covers(const review_policy *p, const char *path)
{
	for (size_t i = 0; i < p->n_read_only; i++)
		if (rv_path_within(path, p->read_only[i].s))
			return true;
	return false;
}

/* ---- writable-path classification ------------------------------------------------ */

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

static bool git_part_protected(const review_policy *p, const char *git, const char *part)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", git, part) >= sizeof(path))
		return false;
	return read_only_covers(p, path);
}

/* What writing W exposes, most severe first. */
enum wclass classify_write(const review_policy *p, const char *w)
{
	char git[PATH_MAX], hooks[PATH_MAX + 8], config[PATH_MAX + 8];

	if (strcmp(w, "/") == 0)
		return W_ROOT;
	if (rv_path_within(w, "/etc"))
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
		if ((rv_path_within(w, hooks) || strcmp(w, config) == 0) && !read_only_covers(p, w))
			return W_GIT;
	}
	return W_NONE;
}

/* Rules that show the host path PATH (sockets, shared dirs) to the sandbox:
 * root host-ro without a private mount over it, or a bind of it or of a
 * directory above it (a hide over it still hides it). BENEATH_TOO also
 * counts binds below PATH. Calls FN for each. */
int exposers(const review_policy *p, const char *path, bool beneath_too, expose_fn fn, void *ctx)
{
	char rule[PATH_MAX + 16];
	int r;

	if (host_root_shows(p, path) && (r = fn(p, path, "root host-ro", &p->root_set.o, ctx)) < 0)
		return r;
	if (covering_mount(p, path, M_(MNT_HIDE)))
		return 0;
	for (size_t i = 0; i < p->n_mounts; i++) {
		const rv_mount *m = &p->mounts[i];

		if (m->kind != MNT_RO_BIND ||
		    !(rv_path_within(path, m->path) || (beneath_too && rv_path_within(m->path, path))))
			continue;
		snprintf(rule, sizeof(rule), "ro-bind %s", m->path);
		if ((r = fn(p, path, rule, &m->o, ctx)) < 0)
			return r;
	}
	for (size_t i = 0; i < p->n_writes; i++) {
		const rv_str *w = &p->writes[i];

		if (!(rv_path_within(path, w->s) || (beneath_too && rv_path_within(w->s, path))))
			continue;
		snprintf(rule, sizeof(rule), "write %s", w->s);
		if ((r = fn(p, path, rule, &w->o, ctx)) < 0)
			return r;
	}
	return 0;
}


/* Where credentials live: in every home directory (the caller's own is
 * readable by an unprivileged caller's sandbox, which is the caller), and
 * the secrets a container runtime or Kubernetes mounts for the host's
 * processes (world-readable, as a service account token is). Stores that
 * only root can read (/etc/ssh's host keys) are not counted: no sandbox
 * holds host root. */
static const char *const home_dirs[] = { "/home/*", "/var/home/*", "/root" };
static const char *const home_stores[] = {
	".ssh", ".aws", ".gnupg", ".docker", ".kube", ".netrc", ".git-credentials", ".npmrc",
	".pypirc", ".config/gh", ".config/gcloud", ".azure", ".cargo/credentials.toml",
	".password-store", ".local/share/keyrings", ".vault-token",
};
static const char *const host_stores[] = { "/run/secrets" };

bool credential_shown(const review_policy *p, bool grants, char *what, size_t size, rv_view *v)
{
	char pattern[PATH_MAX];

	for (size_t h = 0; h < ARRAY_SIZE(home_dirs); h++) {
		/* Nothing of the homes in view (nor beneath them): no store either. */
		if (view_exposes(p, home_dirs[h], grants, NULL, 0).acc == RV_NONE)
			continue;
		for (size_t i = 0; i < ARRAY_SIZE(home_stores); i++) {
			snprintf(pattern, sizeof(pattern), "%s/%s", home_dirs[h], home_stores[i]);
			if ((*v = view_exposes(p, pattern, grants, NULL, 0)).acc >= RV_RO) {
				snprintf(what, size, "%s", pattern);
				return true;
			}
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(host_stores); i++)
		if ((*v = view_exposes(p, host_stores[i], grants, NULL, 0)).acc >= RV_RO) {
			snprintf(what, size, "%s", host_stores[i]);
			return true;
		}
	return false;
}

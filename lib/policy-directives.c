/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* policy-directives.c — what each directive of the policy language means
 * (osb-isolate.policy(5)).
 *
 * One function a directive: it checks its arguments with the values of
 * policy-values.c, claims the scalar it sets (the parser decides which rule
 * of a scalar wins across includes) or appends to its list, and records the
 * rule's origin. Write grants are checked here only lexically (beneath a
 * declared root, not under a read-only path), as a first, early refusal;
 * the check that holds is the plan's, by fd. Syscall names are checked
 * against libseccomp's table so that a misspelled deny rule cannot silently
 * deny nothing.
 */
#include "policy-directives.h"
#include "filter.h"
#include "netallow.h"

#include <seccomp.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- directives ---------------------------------------------------------- */

static int d_version_again(parser *ps, frame *f, int n, tok *t)
{
	(void)n;
	return perr(ps, f, t[0].col, "duplicate \"osb-policy\" (first set at %s:%u)", f->file,
	            f->version_line);
}

static int d_root(parser *ps, frame *f, int n, tok *t)
{
	size_t k = 0;
	slot *s;
	bool apply;
	int r;

	if ((r = arity(ps, f, n, t, 1, 1, "root host-ro|none")) < 0 ||
	    (r = keyword(ps, f, &t[1], policy_root_names, ARRAY_SIZE(policy_root_names), "root", &k)) < 0 ||
	    (r = claim(ps, f, t[0].col, "root", "root", &s, &apply)) < 0)
		return r;
	if (apply) {
		ps->p->root = (enum root_kind)k;
		ps->p->root_set = (pol_set){ true, s->win };
	}
	return 0;
}

static int net_allow_entries(parser *ps, frame *f, int n, tok *t);
static int net_allow_check(parser *ps, frame *f, int n, tok *t);

/* A new winner of "network": the list of the rule it replaces goes. */
static void net_allow_reset(parser *ps)
{
	policy_free_strs(ps->p->net_allow, ps->p->n_net_allow);
	ps->p->net_allow = NULL;
	ps->p->n_net_allow = 0;
	ps->cap_net_allow = 0;
	ps->net_allow_inst = 0;
	ps->net_allow_gen++;
}

/* network none|host|allow HOST[:PORT]...: one scalar, whose "allow" form
 * may take several lines of one file; they add to one list. */
static int d_network(parser *ps, frame *f, int n, tok *t)
{
	size_t k = 0;
	slot *s;
	bool apply, first;
	int r;

	if ((r = arity(ps, f, n, t, 1, -1, "network none|host|allow HOST[:PORT]...")) < 0 ||
	    (r = keyword(ps, f, &t[1], policy_net_names, ARRAY_SIZE(policy_net_names), "network", &k)) < 0)
		return r;
	if (k != NET_ALLOW && (r = arity(ps, f, n, t, 1, 1, "network none|host")) < 0)
		return r;
	if (k == NET_ALLOW && (r = net_allow_check(ps, f, n, t)) < 0)
		return r;
	if (k == NET_ALLOW && !map_add(&ps->seen_map, f->inst, "network allow", f->line, &first))
		return policy_nomem(ps->err);
	if (k == NET_ALLOW && !first)   /* a further line of the same rule */
		return ps->net_allow_inst == f->inst + 1 ? net_allow_entries(ps, f, n, t) : 0;
	if ((r = claim(ps, f, t[0].col, "network", "network", &s, &apply)) < 0 || !apply)
		return r;
	net_allow_reset(ps);
	ps->p->net = (enum net_mode)k;
	ps->p->net_set = (pol_set){ true, s->win };
	if (k != NET_ALLOW)
		return 0;
	ps->net_allow_inst = f->inst + 1;
	return net_allow_entries(ps, f, n, t);
}

static int d_identity(parser *ps, frame *f, int n, tok *t)
{
	size_t k = 0;
	slot *s;
	bool apply;
	int r;

	if ((r = arity(ps, f, n, t, 1, 1, "identity auto|userns|root")) < 0 ||
	    (r = keyword(ps, f, &t[1], policy_id_names, ARRAY_SIZE(policy_id_names), "identity", &k)) < 0 ||
	    (r = claim(ps, f, t[0].col, "identity", "identity", &s, &apply)) < 0)
		return r;
	if (apply) {
		ps->p->id_mode = (enum id_mode)k;
		ps->p->id_mode_set = (pol_set){ true, s->win };
	}
	return 0;
}

/* "size=SIZE" after "workspace overlay [DEST]": the most its upper layer
 * (a tmpfs) may hold, as for "tmpfs PATH size=SIZE". */
static int ws_size(parser *ps, frame *f, size_t k, const tok *t, uint64_t *size)
{
	clipbuf cb;

	if (k != WS_OVERLAY)
		return perr(ps, f, t->col, "unexpected argument \"%s\" (size=SIZE is only for "
		            "\"workspace overlay\")", policy_clip(t->s, &cb));
	if (parse_size_bytes(t->s + 5, size) < 0)
		return perr(ps, f, t->col, "invalid workspace size \"%s\" (expected size=SIZE with B, "
		            "KiB, MiB, GiB, TiB, K, M or G)", policy_clip(t->s, &cb));
	if (*size == 0)
		return perr(ps, f, t->col, "\"workspace overlay\" size must be greater than zero");
	return 0;
}

/* The words after the mode: [DEST] [size=SIZE], in that order. */
static int ws_args(parser *ps, frame *f, int n, tok *t, size_t k, int *dest_at, uint64_t *size)
{
	static const char usage[] = "workspace rw|ro|overlay|none [DEST] [size=SIZE]";
	int r;

	*dest_at = 0;
	*size = k == WS_OVERLAY ? WS_OVERLAY_DEFAULT_SIZE : 0;
	for (int i = 2; i < n; i++) {
		const tok *w = &t[i];
		bool is_size = strncmp(w->s, "size=", 5) == 0, last = i + 1 == n;

		if (is_size && !last)
			return perr(ps, f, w->col, "size=SIZE comes last (usage is \"%s\")", usage);
		if (is_size) {
			r = ws_size(ps, f, k, w, size);
		} else if (i == 2 && k != WS_NONE) {
			r = check_path_tok(ps, f, w);
			*dest_at = i;
		} else {
			r = arity(ps, f, n, t, 1, k == WS_NONE ? 1 : 2, usage);
		}
		if (r < 0)
			return r;
	}
	return 0;
}

static int d_workspace(parser *ps, frame *f, int n, tok *t)
{
	static const char usage[] = "workspace rw|ro|overlay|none [DEST] [size=SIZE]";
	char *dest = NULL;
	uint64_t size;
	size_t k = 0;
	int dest_at, r;
	slot *s;
	bool apply;

	if ((r = arity(ps, f, n, t, 1, 3, usage)) < 0 ||
	    (r = keyword(ps, f, &t[1], policy_ws_names, ARRAY_SIZE(policy_ws_names), "workspace", &k)) < 0 ||
	    (r = ws_args(ps, f, n, t, k, &dest_at, &size)) < 0)
		return r;
	if ((r = claim(ps, f, t[0].col, "workspace", "workspace", &s, &apply)) < 0 || !apply)
		return r;
	if (dest_at && !(dest = strdup(t[dest_at].s)))
		return policy_nomem(ps->err);
	free(ps->p->ws_dest);
	ps->p->ws_dest = dest;
	ps->p->ws_mode = (enum ws_mode)k;
	ps->p->ws_size = size;
	ps->p->ws_set = (pol_set){ true, s->win };
	return 0;
}

/* A path named by a mount, write or read-only rule (T[0] the directive, T[1]
 * the path): one rule per path across all files, so that no two rules
 * disagree about what a place is. *FRESH is false when this very rule was
 * already read (a file included twice), or when another file of the policy
 * already says the same thing (a team policy repeating a rule of the policy
 * it includes): the first one is kept, with its origin. */
static int claim_path(parser *ps, frame *f, const tok *t, bool *fresh)
{
	osb_origin here = origin_here(f);
	bool added;
	map_entry *e = map_add(&ps->path_map, 0, t[1].s, ps->n_path_o, &added);
	osb_origin *v;
	char **k;

	*fresh = false;
	if (!e)
		return policy_nomem(ps->err);
	if (!added) {
		const osb_origin *o = &ps->path_o[e->val];
		clipbuf cb;

		if (same_rule(&here, o) ||
		    (strcmp(o->file, here.file) != 0 && strcmp(ps->path_kind[e->val], t[0].s) == 0))
			return 0;
		return perr(ps, f, t[1].col, "duplicate path \"%s\" (first set at %s:%u)",
		            policy_clip(t[1].s, &cb), o->file, o->line);
	}
	v = array_grow(ps->path_o, &ps->cap_path_o, ps->n_path_o, sizeof(*v));
	if (!v)
		return policy_nomem(ps->err);
	ps->path_o = v;
	k = array_grow(ps->path_kind, &ps->cap_path_kind, ps->n_path_o, sizeof(*k));
	if (!k)
		return policy_nomem(ps->err);
	ps->path_kind = k;
	if (!(k[ps->n_path_o] = strdup(t[0].s)))
		return policy_nomem(ps->err);
	v[ps->n_path_o++] = here;
	*fresh = true;
	return 0;
}

/* "size=SIZE" after "tmpfs PATH": the most the tmpfs may hold (bwrap
 * --size), so that what the sandbox writes there cannot fill the host's
 * memory. */
static int tmpfs_size(parser *ps, frame *f, int n, const tok *t, uint64_t *size)
{
	clipbuf cb;
	uint64_t v;

	*size = 0;
	if (n < 3)
		return 0;
	if (strncmp(t[2].s, "size=", 5) != 0)
		return perr(ps, f, t[2].col, "unexpected argument \"%s\" (usage is \"tmpfs PATH [size=SIZE]\")",
		            policy_clip(t[2].s, &cb));
	if (parse_size_bytes(t[2].s + 5, &v) < 0)
		return perr(ps, f, t[2].col, "invalid tmpfs size \"%s\" (expected size=SIZE with B, KiB, MiB, "
		            "GiB, TiB, K, M or G)", policy_clip(t[2].s, &cb));
	if (v == 0)
		return perr(ps, f, t[2].col, "\"tmpfs\" size must be greater than zero");
	*size = v;
	return 0;
}

/* A tmpfs repeated in another file: the size of the file nearer the top
 * wins (a file overrides what it includes), as for a scalar; two files at
 * one depth that disagree are an error, never a silent choice. */
static int tmpfs_resize(parser *ps, frame *f, const tok *t, uint64_t size)
{
	osb_origin here = origin_here(f);
	pol_mount *m = NULL;

	for (size_t i = 0; i < ps->p->n_mounts && !m; i++)
		if (ps->p->mounts[i].kind == MNT_TMPFS && strcmp(ps->p->mounts[i].path, t[1].s) == 0)
			m = &ps->p->mounts[i];
	if (!m || m->size == size || here.depth > m->o.depth)
		return 0;
	if (here.depth == m->o.depth)
		return perr(ps, f, t[2].col, "tmpfs %s: a different size is set at %s:%u", m->path,
		            m->o.file, m->o.line);
	m->size = size;
	m->o = here;
	return 0;
}

static int d_mount(parser *ps, frame *f, int n, tok *t)
{
	osb_policy *p = ps->p;
	size_t kind;
	char usage[32];
	uint64_t size = 0;
	bool fresh;
	pol_mount *v;
	int r;

	for (kind = 0; strcmp(t[0].s, policy_mount_names[kind]) != 0; kind++)
		;
	snprintf(usage, sizeof(usage), "%s PATH%s", policy_mount_names[kind],
	         kind == MNT_TMPFS ? " [size=SIZE]" : "");
	if ((r = arity(ps, f, n, t, 1, kind == MNT_TMPFS ? 2 : 1, usage)) < 0 ||
	    (r = check_path_tok(ps, f, &t[1])) < 0 ||
	    (kind == MNT_TMPFS && (r = tmpfs_size(ps, f, n, t, &size)) < 0) ||
	    (r = claim_path(ps, f, t, &fresh)) < 0)
		return r;
	if (!fresh)
		return kind == MNT_TMPFS ? tmpfs_resize(ps, f, t, size) : 0;
	v = array_grow(p->mounts, &ps->cap_mounts, p->n_mounts, sizeof(*v));
	if (!v)
		return policy_nomem(ps->err);
	p->mounts = v;
	v[p->n_mounts] = (pol_mount){ (enum mount_kind)kind, strdup(t[1].s), origin_here(f), NULL, size };
	if (!v[p->n_mounts].path)
		return policy_nomem(ps->err);
	p->n_mounts++;
	return 0;
}

/* symlink TARGET PATH: TARGET is what the link says, absolute or relative
 * to the link's directory ("usr/bin" for /bin), normalized like a path and
 * without "..": a reader sees where it leads without resolving anything.
 * The link grants nothing; what it points at must be in the view. */
static int d_symlink(parser *ps, frame *f, int n, tok *t)
{
	osb_policy *p = ps->p;
	_cleanup_free_ char *abs = NULL;
	const char *why;
	tok link[2];
	bool fresh;
	pol_mount *v;
	clipbuf cb;
	int r;

	if ((r = arity(ps, f, n, t, 2, 2, "symlink TARGET PATH")) < 0 ||
	    (r = check_path_tok(ps, f, &t[2])) < 0)
		return r;
	if (strcmp(t[2].s, "/") == 0)
		return perr(ps, f, t[2].col, "symlink: \"/\" cannot be a symlink");
	if (asprintf(&abs, "%s%s", t[1].s[0] == '/' ? "" : "/", t[1].s) < 0)
		return policy_nomem(ps->err);
	why = policy_path_problem(abs, false);
	if (why || strcmp(abs, "/") == 0)
		return perr(ps, f, t[1].col, "symlink target: %s: \"%s\"",
		            why ? why : "the target must name a file or directory", policy_clip(t[1].s, &cb));
	link[0] = t[0];
	link[1] = t[2];
	if ((r = claim_path(ps, f, link, &fresh)) < 0 || !fresh)
		return r;
	v = array_grow(p->mounts, &ps->cap_mounts, p->n_mounts, sizeof(*v));
	if (!v)
		return policy_nomem(ps->err);
	p->mounts = v;
	v[p->n_mounts] = (pol_mount){ MNT_SYMLINK, strdup(t[2].s), origin_here(f), strdup(t[1].s), 0 };
	if (!v[p->n_mounts].path || !v[p->n_mounts].target) {
		free(v[p->n_mounts].path);
		free(v[p->n_mounts].target);
		return policy_nomem(ps->err);
	}
	p->n_mounts++;
	return 0;
}

/* env pass / env deny: a set of patterns, duplicates folded. */
static int env_patterns(parser *ps, frame *f, int n, tok *t, void **map, pol_str **list,
                        size_t *len, size_t *cap)
{
	clipbuf cb;

	for (int i = 2; i < n; i++) {
		bool added;
		pol_str *v;

		if (strchr(t[i].s, '='))
			return perr(ps, f, t[i].col,
			            "environment variable name must not contain \"=\": \"%s\"",
			            policy_clip(t[i].s, &cb));
		if (!map_add(map, 0, t[i].s, 0, &added))
			return policy_nomem(ps->err);
		if (!added)
			continue;
		v = array_grow(*list, cap, *len, sizeof(*v));
		if (!v)
			return policy_nomem(ps->err);
		*list = v;
		v[*len] = (pol_str){ strdup(t[i].s), origin_here(f) };
		if (!v[*len].s)
			return policy_nomem(ps->err);
		(*len)++;
	}
	return 0;
}

/* env set NAME=VALUE: VALUE is the rest of the line as written, '#'
 * included, trailing blanks dropped. */
static int env_set(parser *ps, frame *f, int n, tok *t)
{
	osb_policy *p = ps->p;
	const char *eq;
	size_t name_len, off, end;
	char key[sizeof("env set ") + POLICY_MAX_LINE], *val = NULL;
	slot *s;
	bool apply;
	clipbuf cb;
	int r;

	if (n < 3)
		return perr(ps, f, t[0].col, "missing argument: usage is \"env set NAME=VALUE\"");
	eq = strchr(t[2].s, '=');
	if (!eq)
		return perr(ps, f, t[2].col, "expected NAME=VALUE after \"env set\", not \"%s\"",
		            policy_clip(t[2].s, &cb));
	name_len = (size_t)(eq - t[2].s);
	if (!policy_env_name_ok(t[2].s, name_len))
		return perr(ps, f, t[2].col,
		            "invalid environment variable name \"%.*s\" (letters, digits and \"_\", "
		            "not starting with a digit)", (int)(name_len > CLIP_LEN ? CLIP_LEN : name_len),
		            t[2].s);
	snprintf(key, sizeof(key), "env set %.*s", (int)name_len, t[2].s);
	if ((r = claim(ps, f, t[0].col, key, key, &s, &apply)) < 0 || !apply)
		return r;
	off = t[2].col - 1 + name_len + 1;
	for (end = f->raw_len; end > off && (f->raw[end - 1] == ' ' || f->raw[end - 1] == '\t'); end--)
		;
	if (asprintf(&val, "%.*s=%.*s", (int)name_len, t[2].s, (int)(end - off), f->raw + off) < 0)
		return policy_nomem(ps->err);
	if (s->index == SIZE_MAX) {
		pol_str *v = array_grow(p->env_set, &ps->cap_set, p->n_env_set, sizeof(*v));

		if (!v) {
			free(val);
			return policy_nomem(ps->err);
		}
		p->env_set = v;
		s->index = p->n_env_set++;
	} else {
		free(p->env_set[s->index].s);
	}
	p->env_set[s->index] = (pol_str){ val, s->win };
	return 0;
}

static int env_base(parser *ps, frame *f, int n, tok *t, size_t k)
{
	char what[32];
	slot *s;
	bool apply;
	int r;

	if ((r = arity(ps, f, n - 1, t + 1, 0, 0, "env clear|inherit")) < 0)
		return r;
	snprintf(what, sizeof(what), "env %s", policy_env_base_names[k]);
	if ((r = claim(ps, f, t[0].col, "env clear|inherit", what, &s, &apply)) < 0)
		return r;
	if (apply) {
		ps->p->env_base = (enum env_base)k;
		ps->p->env_base_set = (pol_set){ true, s->win };
	}
	return 0;
}

static int d_env(parser *ps, frame *f, int n, tok *t)
{
	static const char *const subs[] = { "clear", "inherit", "pass", "deny", "set" };
	osb_policy *p = ps->p;
	size_t k = 0;
	int r;

	if ((r = arity(ps, f, n, t, 1, -1, "env clear|inherit|pass|deny|set ...")) < 0 ||
	    (r = keyword(ps, f, &t[1], subs, ARRAY_SIZE(subs), "env", &k)) < 0)
		return r;
	switch (k) {
	case 0: case 1:
		return env_base(ps, f, n, t, k == 0 ? ENV_CLEAR : ENV_INHERIT);
	case 2:
		if (n < 3)
			return perr(ps, f, t[0].col, "missing argument: usage is \"env pass NAME...\"");
		return env_patterns(ps, f, n, t, &ps->pass_map, &p->env_pass, &p->n_env_pass,
		                    &ps->cap_pass);
	case 3:
		if (n < 3)
			return perr(ps, f, t[0].col, "missing argument: usage is \"env deny PATTERN...\"");
		return env_patterns(ps, f, n, t, &ps->deny_map, &p->env_deny, &p->n_env_deny,
		                    &ps->cap_deny);
	default:
		return env_set(ps, f, n, t);
	}
}

static int id_arg(parser *ps, frame *f, const tok *t, const char *what, uint32_t *out)
{
	clipbuf cb;
	int r = policy_parse_id(t->s, out);

	if (r == -ERANGE)
		return perr(ps, f, t->col, "%s \"%s\" is out of range (0 to 4294967294)", what,
		            policy_clip(t->s, &cb));
	if (r < 0)
		return perr(ps, f, t->col, "invalid %s \"%s\" (a decimal number from 0 to 4294967294)",
		            what, policy_clip(t->s, &cb));
	return 0;
}

static int d_user(parser *ps, frame *f, int n, tok *t)
{
	osb_policy *p = ps->p;
	uint32_t uid, gid;
	char *name;
	slot *s;
	bool apply;
	clipbuf cb;
	int r;

	if ((r = arity(ps, f, n, t, 3, 3, "user NAME UID GID")) < 0)
		return r;
	if (!policy_user_name_ok(t[1].s))
		return perr(ps, f, t[1].col, "invalid user name \"%s\" (lower-case letters, digits, "
		            "\"_\" and \"-\", starting with a letter or \"_\", at most 32 bytes)",
		            policy_clip(t[1].s, &cb));
	if ((r = id_arg(ps, f, &t[2], "uid", &uid)) < 0 ||
	    (r = id_arg(ps, f, &t[3], "gid", &gid)) < 0 ||
	    (r = claim(ps, f, t[0].col, "user", "user", &s, &apply)) < 0 || !apply)
		return r;
	name = strdup(t[1].s);
	if (!name)
		return policy_nomem(ps->err);
	free(p->user_name);
	p->user_name = name;
	p->uid = uid;
	p->gid = gid;
	p->user_set = (pol_set){ true, s->win };
	return 0;
}

/* host-ids UID GID: pinned host ids for root callers (never 0; whether
 * they belong to an account is lint's concern, W-codes in lib/audit.c). */
static int d_host_ids(parser *ps, frame *f, int n, tok *t)
{
	osb_policy *p = ps->p;
	uint32_t uid, gid;
	slot *s;
	bool apply;
	int r;

	if ((r = arity(ps, f, n, t, 2, 2, "host-ids UID GID")) < 0 ||
	    (r = id_arg(ps, f, &t[1], "uid", &uid)) < 0 ||
	    (r = id_arg(ps, f, &t[2], "gid", &gid)) < 0)
		return r;
	if (uid == 0)
		return perr(ps, f, t[1].col, "invalid host uid 0: a sandbox never runs as host root");
	if (gid == 0)
		return perr(ps, f, t[2].col, "invalid host gid 0: a sandbox never runs as host root");
	if ((r = claim(ps, f, t[0].col, "host-ids", "host-ids", &s, &apply)) < 0 || !apply)
		return r;
	p->host_uid = uid;
	p->host_gid = gid;
	p->host_ids_set = (pol_set){ true, s->win };
	return 0;
}

static int d_hostname(parser *ps, frame *f, int n, tok *t)
{
	osb_policy *p = ps->p;
	char *name;
	slot *s;
	bool apply;
	clipbuf cb;
	int r;

	if ((r = arity(ps, f, n, t, 1, 1, "hostname NAME")) < 0)
		return r;
	if (!policy_hostname_ok(t[1].s))
		return perr(ps, f, t[1].col, "invalid hostname \"%s\" (dot-separated labels of letters, "
		            "digits and inner \"-\", at most 64 bytes)", policy_clip(t[1].s, &cb));
	if ((r = claim(ps, f, t[0].col, "hostname", "hostname", &s, &apply)) < 0 || !apply)
		return r;
	name = strdup(t[1].s);
	if (!name)
		return policy_nomem(ps->err);
	free(p->hostname);
	p->hostname = name;
	p->hostname_set = (pol_set){ true, s->win };
	return 0;
}

#define LIMIT_NOFILE_MIN 4
#define LIMIT_AS_MIN (4u << 20)

/* "limit cpu": a share of CPU, never the seconds it meant before. */
static int cpu_share_value(parser *ps, frame *f, const tok *t, uint64_t *out)
{
	clipbuf cb;
	int r = parse_cpu_share(t->s, out);

	if (r == -EDOM)
		return perr(ps, f, t->col, "\"limit cpu\" is a share of CPU (\"0.5\" or \"50%%\"); for CPU "
		            "seconds (RLIMIT_CPU) write \"limit cputime %s\"", policy_clip(t->s, &cb));
	if (r == -ERANGE)
		return perr(ps, f, t->col, "\"limit cpu\" value \"%s\" is out of range (at most 1024 CPUs)",
		            policy_clip(t->s, &cb));
	if (r < 0)
		return perr(ps, f, t->col, "invalid value \"%s\" for \"limit cpu\" (expected a share of CPU: a "
		            "fraction with at most 3 decimals such as \"0.5\", a percentage with at most 1 "
		            "decimal such as \"50%%\", or \"unlimited\")", policy_clip(t->s, &cb));
	if (*out == 0)
		return perr(ps, f, t->col, "\"limit cpu\" must be greater than zero");
	return 0;
}

static int limit_value(parser *ps, frame *f, enum limit_id id, const tok *t, uint64_t *out)
{
	const unit *units = NULL;
	size_t n_units = 0;
	const char *expect = "a plain number";
	const char *name = osb_limit_names[id];
	enum qerr q;
	clipbuf cb;

	if (strcmp(t->s, "unlimited") == 0) {
		*out = UINT64_MAX;
		return 0;
	}
	if (id == LIM_CPU)
		return cpu_share_value(ps, f, t, out);
	if (id == LIM_WALL || id == LIM_CPUTIME) {
		units = policy_duration_units;
		n_units = ARRAY_SIZE(policy_duration_units);
		expect = "ms, s, m or h";
	} else if (id == LIM_AS || id == LIM_FSIZE || id == LIM_OUTPUT || id == LIM_MEMORY) {
		units = policy_size_units;
		n_units = ARRAY_SIZE(policy_size_units);
		expect = "B, KiB, MiB, GiB, TiB, K, M or G";
	}
	q = policy_parse_quantity(t->s, units, n_units, out);
	switch (q) {
	case Q_OK:
		break;
	case Q_NEGATIVE:
		return perr(ps, f, t->col, "\"limit %s\" must not be negative: \"%s\"", name, policy_clip(t->s, &cb));
	case Q_MISSING_UNIT:
		return perr(ps, f, t->col, "missing unit in \"%s\" (use %s)", policy_clip(t->s, &cb), expect);
	case Q_BAD_UNIT:
		return perr(ps, f, t->col, "unknown unit in \"%s\" (use %s)", policy_clip(t->s, &cb), expect);
	case Q_RANGE:
		return perr(ps, f, t->col, "\"limit %s\" value \"%s\" is out of range", name, policy_clip(t->s, &cb));
	default:
		return perr(ps, f, t->col, "invalid value \"%s\" for \"limit %s\" (expected %s%s or \"unlimited\")",
		            policy_clip(t->s, &cb), name, n_units ? "a whole number with a unit: " : "", expect);
	}
	if ((id == LIM_WALL || id == LIM_CPUTIME || id == LIM_MEMORY || id == LIM_PIDS) && *out == 0)
		return perr(ps, f, t->col, "\"limit %s\" must be greater than zero", name);
	/* Below these no dynamically linked program starts: every run would
	 * end with the loader's 127, indistinguishable from "not found". */
	if (id == LIM_NOFILE && *out < LIMIT_NOFILE_MIN)
		return perr(ps, f, t->col, "\"limit nofile %s\" is too small to start a program: stdin, "
		            "stdout and stderr take 3 descriptors and the dynamic loader needs one more "
		            "(at least %d)", policy_clip(t->s, &cb), LIMIT_NOFILE_MIN);
	if (id == LIM_AS && *out < LIMIT_AS_MIN)
		return perr(ps, f, t->col, "\"limit as %s\" is too small to load a program: the C "
		            "library alone maps about 2 MiB (at least 4MiB)", policy_clip(t->s, &cb));
	if (id == LIM_CPUTIME) {
		if (*out % 1000 != 0)
			return perr(ps, f, t->col, "\"limit cputime\" must be whole seconds: \"%s\"", policy_clip(t->s, &cb));
		*out /= 1000;
	}
	return 0;
}

/* The limits a cgroup enforces for the whole sandbox, which alone may be
 * marked best-effort: the others are rlimits or the supervisor's, which
 * always hold. */
static bool limit_is_kernel(enum limit_id id)
{
	return id == LIM_MEMORY || id == LIM_PIDS || id == LIM_CPU;
}

/* The optional "best-effort" after a limit's value. */
static int limit_marker(parser *ps, frame *f, int n, const tok *t, enum limit_id id, bool *be)
{
	*be = false;
	if (n < 4)
		return 0;
	if (strcmp(t[3].s, "best-effort") != 0) {
		clipbuf cb;

		return perr(ps, f, t[3].col, "unexpected argument \"%s\" (usage is \"limit %s VALUE%s\")",
		            policy_clip(t[3].s, &cb), osb_limit_names[id],
		            limit_is_kernel(id) ? " [best-effort]" : "");
	}
	if (!limit_is_kernel(id))
		return perr(ps, f, t[3].col, "\"best-effort\" is only for the limits the kernel enforces "
		            "per sandbox (memory, pids, cpu): \"limit %s\" always holds", osb_limit_names[id]);
	*be = true;
	return 0;
}

static int d_limit(parser *ps, frame *f, int n, tok *t)
{
	char key[32];
	size_t k = 0;
	uint64_t v;
	bool be;
	slot *s;
	bool apply;
	int r;

	if ((r = arity(ps, f, n, t, 2, 3, "limit wall|cputime|as|nofile|fsize|nproc|output|memory|pids|cpu "
	               "VALUE")) < 0 ||
	    (r = keyword(ps, f, &t[1], osb_limit_names, LIM__COUNT, "limit", &k)) < 0 ||
	    (r = limit_marker(ps, f, n, t, (enum limit_id)k, &be)) < 0 ||
	    (r = limit_value(ps, f, (enum limit_id)k, &t[2], &v)) < 0)
		return r;
	snprintf(key, sizeof(key), "limit %s", osb_limit_names[k]);
	if ((r = claim(ps, f, t[0].col, key, key, &s, &apply)) < 0)
		return r;
	if (apply) {
		ps->p->limits[k] = v;
		ps->p->limit_set[k] = (pol_set){ true, s->win };
		if (be)
			ps->p->limit_best_effort |= LIM_BIT(k);
		else
			ps->p->limit_best_effort &= ~LIM_BIT(k);
	}
	return 0;
}

/* ---- write paths ---------------------------------------------------------- */

/* Append a copy of STR to a pol_str list; with COLS, remember COL beside it
 * (COLS grows with its own capacity, in step with the list). */
static int push_str(parser *ps, pol_str **list, size_t *len, size_t *cap, const char *str,
                    osb_origin o, unsigned **cols, size_t *cols_cap, unsigned col)
{
	pol_str *v = array_grow(*list, cap, *len, sizeof(*v));

	if (!v)
		return policy_nomem(ps->err);
	*list = v;
	if (cols) {
		unsigned *c = array_grow(*cols, cols_cap, *len, sizeof(*c));

		if (!c)
			return policy_nomem(ps->err);
		*cols = c;
		c[*len] = col;
	}
	v[*len] = (pol_str){ strdup(str), o };
	if (!v[*len].s)
		return policy_nomem(ps->err);
	(*len)++;
	return 0;
}

/* ---- network allowlists ----------------------------------------------------- */

/* Every entry of the line reads as one (netallow_parse), before any counts. */
static int net_allow_check(parser *ps, frame *f, int n, tok *t)
{
	na_entry e;
	const char *why;
	clipbuf cb;

	if (n < 3)
		return perr(ps, f, t[1].col, "missing argument: usage is \"network allow HOST[:PORT]...\"");
	for (int i = 2; i < n; i++)
		if ((why = netallow_parse(t[i].s, &e)) != NULL)
			return perr(ps, f, t[i].col, "invalid network allow entry \"%s\": %s",
			            policy_clip(t[i].s, &cb), why);
	return 0;
}

/* The line's entries, in their canonical spelling, each once. */
static int net_allow_entries(parser *ps, frame *f, int n, tok *t)
{
	osb_policy *p = ps->p;
	char text[NETALLOW_TEXT_MAX];
	na_entry e;
	bool added;
	int r;

	for (int i = 2; i < n; i++) {
		netallow_parse(t[i].s, &e);
		netallow_format(&e, text, sizeof(text));
		if (!map_add(&ps->net_allow_map, ps->net_allow_gen, text, 0, &added))
			return policy_nomem(ps->err);
		if (added && (r = push_str(ps, &p->net_allow, &p->n_net_allow, &ps->cap_net_allow, text,
		                           origin_here(f), NULL, NULL, 0)) < 0)
			return r;
	}
	return 0;
}

static int d_write_root(parser *ps, frame *f, int n, tok *t)
{
	osb_policy *p = ps->p;
	bool added;
	int r;

	if ((r = arity(ps, f, n, t, 1, 1, "write-root PATH")) < 0 || (r = check_path_tok(ps, f, &t[1])) < 0)
		return r;
	if (strcmp(t[1].s, "/") == 0)
		return perr(ps, f, t[1].col, "\"write-root /\" would let any path be granted; declare "
		            "the directories under which writable paths are expected");
	/* A declaration, not a grant: repeating one is harmless. */
	if (!map_add(&ps->root_map, 0, t[1].s, 0, &added))
		return policy_nomem(ps->err);
	if (!added)
		return 0;
	return push_str(ps, &p->write_roots, &p->n_write_roots, &ps->cap_roots, t[1].s,
	                origin_here(f), NULL, NULL, 0);
}

/* read-root PATH: a caller may add read-only binds of paths beneath it
 * (run --ro, a request's "read_only", osb_policy_add_readonly). */
static int d_read_root(parser *ps, frame *f, int n, tok *t)
{
	osb_policy *p = ps->p;
	bool added;
	int r;

	if ((r = arity(ps, f, n, t, 1, 1, "read-root PATH")) < 0 || (r = check_path_tok(ps, f, &t[1])) < 0)
		return r;
	if (strcmp(t[1].s, "/") == 0)
		return perr(ps, f, t[1].col, "\"read-root /\" would let callers bind any path; declare "
		            "the directories under which read-only paths are expected");
	/* A declaration, not a grant: repeating one is harmless. Instance 1
	 * keeps these apart from write-roots in the same map. */
	if (!map_add(&ps->root_map, 1, t[1].s, 0, &added))
		return policy_nomem(ps->err);
	if (!added)
		return 0;
	return push_str(ps, &p->read_roots, &p->n_read_roots, &ps->cap_read_roots, t[1].s,
	                origin_here(f), NULL, NULL, 0);
}

/* allow-caller network: a caller may turn the host network on (run --net,
 * a request's "network": "host", osb_policy_set_network). */
static int d_allow_caller(parser *ps, frame *f, int n, tok *t)
{
	static const char *const what[] = { "network" };
	size_t k = 0;
	slot *s;
	bool apply;
	int r;

	if ((r = arity(ps, f, n, t, 1, 1, "allow-caller network")) < 0 ||
	    (r = keyword(ps, f, &t[1], what, ARRAY_SIZE(what), "allow-caller", &k)) < 0 ||
	    (r = claim(ps, f, t[0].col, "allow-caller network", "allow-caller network", &s, &apply)) < 0)
		return r;
	if (apply)
		ps->p->caller_net = (pol_set){ true, s->win };
	return 0;
}

static int d_write(parser *ps, frame *f, int n, tok *t)
{
	osb_policy *p = ps->p;
	bool fresh;
	int r;

	if ((r = arity(ps, f, n, t, 1, 1, "write PATH")) < 0 || (r = check_path_tok(ps, f, &t[1])) < 0 ||
	    (r = claim_path(ps, f, t, &fresh)) < 0 || !fresh)
		return r;
	return push_str(ps, &p->writes, &p->n_writes, &ps->cap_writes, t[1].s, origin_here(f),
	                &ps->write_cols, &ps->cap_write_cols, t[1].col);
}

static int d_read_only(parser *ps, frame *f, int n, tok *t)
{
	static const char ws_prefix[] = "workspace:";
	osb_policy *p = ps->p;
	bool fresh;
	clipbuf cb;
	int r;

	if ((r = arity(ps, f, n, t, 1, 1, "read-only PATH|workspace:REL")) < 0)
		return r;
	if (strncmp(t[1].s, ws_prefix, strlen(ws_prefix)) == 0) {
		const char *why = policy_rel_problem(t[1].s + strlen(ws_prefix));

		if (why)
			return perr(ps, f, t[1].col, "%s: \"%s\"", why, policy_clip(t[1].s, &cb));
	} else if (t[1].s[0] != '/') {
		return perr(ps, f, t[1].col, "path must be absolute, or \"workspace:REL\" for a path in "
		            "the workspace: \"%s\"", policy_clip(t[1].s, &cb));
	} else if ((r = check_path_tok(ps, f, &t[1])) < 0) {
		return r;
	}
	if ((r = claim_path(ps, f, t, &fresh)) < 0 || !fresh)
		return r;
	return push_str(ps, &p->read_only, &p->n_read_only, &ps->cap_ro, t[1].s, origin_here(f),
	                &ps->ro_cols, &ps->cap_ro_cols, t[1].col);
}

/* Once every file is read: each write lies beneath a declared root, none
 * under a read-only path, and each absolute read-only path lies inside
 * something writable, or it would restrict nothing. */
int policy_check_write_rules(parser *ps)
{
	const osb_policy *p = ps->p;
	char why[900];
	clipbuf cb;

	for (size_t i = 0; i < p->n_writes; i++) {
		const pol_str *w = &p->writes[i];

		if (policy_write_problem(p, w->s, why, sizeof(why)))
			return perr_at(ps, &w->o, ps->write_cols[i], "write path \"%s\" is %s",
			               policy_clip(w->s, &cb), why);
	}
	for (size_t i = 0; i < p->n_read_only; i++) {
		const pol_str *ro = &p->read_only[i];
		bool inside = policy_root_of(p, ro->s) != NULL;

		for (size_t j = 0; !inside && j < p->n_writes; j++)
			inside = policy_path_beneath(p->writes[j].s, ro->s);
		if (ro->s[0] == '/' && !inside)
			return perr_at(ps, &ro->o, ps->ro_cols[i], "read-only path \"%s\" is not beneath a "
			               "write path or write-root, so it would protect nothing (use "
			               "\"read-only workspace:REL\" for paths in the workspace)",
			               policy_clip(ro->s, &cb));
	}
	return 0;
}

/* ---- seccomp and landlock -------------------------------------------------- */

static int unknown_syscall(parser *ps, frame *f, const tok *t)
{
	const struct scmp_version *v = seccomp_version();
	char *names[1024];
	size_t n = 0;
	const char *near;
	clipbuf cb;
	int r;

	/* Every name the native table knows, for the suggestion. */
	for (int nr = 0; nr < (int)ARRAY_SIZE(names); nr++) {
		char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);

		if (name)
			names[n++] = name;
	}
	near = policy_suggest(t->s, (const char *const *)names, n);
	if (near)
		r = perr(ps, f, t->col, "unknown system call \"%s\" (did you mean \"%s\"?)",
		         policy_clip(t->s, &cb), near);
	else
		r = perr(ps, f, t->col, "unknown system call \"%s\" (libseccomp %u.%u.%u does not "
		         "know it; check the spelling)", policy_clip(t->s, &cb), v->major, v->minor, v->micro);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	return r;
}

static int errno_arg(parser *ps, frame *f, const tok *t, int *out)
{
	const char *val = t->s + strlen("errno=");
	unsigned col = t->col + (unsigned)strlen("errno=");
	const char *near;
	clipbuf cb;
	int e = policy_errno_parse(val);

	if (e > 0) {
		*out = e;
		return 0;
	}
	if (e == -ERANGE)
		return perr(ps, f, col, "errno \"%s\" is out of range (1 to 4095)", policy_clip(val, &cb));
	near = *val && !ascii_digit(*val) ? policy_errno_suggest(val) : NULL;
	if (near)
		return perr(ps, f, col, "unknown errno \"%s\" (did you mean \"%s\"?)", policy_clip(val, &cb), near);
	return perr(ps, f, col, "invalid errno \"%s\" (a name such as EPERM, ENOSYS or EACCES, or a "
	            "number from 1 to 4095)", policy_clip(val, &cb));
}

/* One rule for NAME, a scalar of its own: a file may turn a deny it
 * includes into an allow, and two rules for one name in a file are a
 * duplicate. */
static int sc_rule_set(parser *ps, frame *f, const tok *t, bool allow, int errnum)
{
	osb_policy *p = ps->p;
	char key[sizeof("seccomp call ") + POLICY_MAX_LINE], what[sizeof("seccomp allow ") + POLICY_MAX_LINE];
	char *name;
	slot *s;
	bool apply;
	int r;

	snprintf(key, sizeof(key), "seccomp call %s", t->s);
	snprintf(what, sizeof(what), "seccomp %s %s", allow ? "allow" : "deny", t->s);
	if ((r = claim(ps, f, t->col, key, what, &s, &apply)) < 0 || !apply)
		return r;
	if (!(name = strdup(t->s)))
		return policy_nomem(ps->err);
	if (s->index == SIZE_MAX) {
		pol_sc *v = array_grow(p->sc_rules, &ps->cap_sc, p->n_sc_rules, sizeof(*v));
		unsigned *c = v ? array_grow(ps->sc_cols, &ps->cap_sc_cols, p->n_sc_rules, sizeof(*c)) : NULL;

		if (v)
			p->sc_rules = v;
		if (!c) {
			free(name);
			return policy_nomem(ps->err);
		}
		ps->sc_cols = c;
		s->index = p->n_sc_rules++;
	} else {
		free(p->sc_rules[s->index].name);
	}
	p->sc_rules[s->index] = (pol_sc){ name, allow, allow ? 0 : errnum, s->win };
	ps->sc_cols[s->index] = t->col;
	return 0;
}

/* seccomp deny NAME... [errno=E] / seccomp allow NAME... */
static int sc_names(parser *ps, frame *f, int n, tok *t, bool allow)
{
	const char *usage = allow ? "seccomp allow NAME..." : "seccomp deny NAME... [errno=E]";
	int end = n, errnum = EPERM, r;

	for (int i = 2; i < n; i++) {
		if (strncmp(t[i].s, "errno=", strlen("errno=")) != 0)
			continue;
		if (allow)
			return perr(ps, f, t[i].col, "\"errno=\" belongs to \"seccomp deny\", not "
			            "\"seccomp allow\"");
		if (i != n - 1)
			return perr(ps, f, t[i].col, "\"errno=\" must come after the system call names "
			            "(usage is \"%s\")", usage);
		if ((r = errno_arg(ps, f, &t[i], &errnum)) < 0)
			return r;
		end = i;
	}
	if (end < 3)
		return perr(ps, f, t[0].col, "missing argument: usage is \"%s\"", usage);
	for (int i = 2; i < end; i++)
		if (seccomp_syscall_resolve_name(t[i].s) == __NR_SCMP_ERROR)
			return unknown_syscall(ps, f, &t[i]);
	for (int i = 2; i < end; i++)
		if ((r = sc_rule_set(ps, f, &t[i], allow, errnum)) < 0)
			return r;
	return 0;
}

/* "seccomp GROUP": a name of lib/filter.h's table, else an error that
 * says which groups this version has (a policy written for a newer one). */
static int sc_group_arg(parser *ps, frame *f, const tok *t, const sc_group **out)
{
	static const char prefix[] = "osb-default-";
	size_t n;
	const sc_group *g = seccomp_groups(&n);
	char list[256] = "";
	clipbuf cb;

	*out = seccomp_group_find(t->s);
	if (*out || strncmp(t->s, prefix, strlen(prefix)) != 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
		         i ? (i + 1 < n ? ", " : " and ") : "", g[i].name);
	return perr(ps, f, t->col, "unknown seccomp group \"%s\" (this osb-isolate has %s)",
	            policy_clip(t->s, &cb), list);
}

static int d_seccomp(parser *ps, frame *f, int n, tok *t)
{
	static const char *const subs[] = { "default", "none", "deny", "allow" };
	const sc_group *g = NULL;
	char what[64];
	size_t k = 0;
	slot *s;
	bool apply;
	int r;

	if ((r = arity(ps, f, n, t, 1, -1, "seccomp default|none|GROUP|deny|allow ...")) < 0 ||
	    (r = sc_group_arg(ps, f, &t[1], &g)) < 0 ||
	    (!g && (r = keyword(ps, f, &t[1], subs, ARRAY_SIZE(subs), "seccomp", &k)) < 0))
		return r;
	if (!g && k >= 2)
		return sc_names(ps, f, n, t, k == 3);
	if ((r = arity(ps, f, n - 1, t + 1, 0, 0, "seccomp default|none|GROUP")) < 0)
		return r;
	snprintf(what, sizeof(what), "seccomp %s", g ? g->name : policy_sc_mode_names[k]);
	if ((r = claim(ps, f, t[0].col, "seccomp default|none", what, &s, &apply)) < 0)
		return r;
	if (apply) {
		/* "default" is the newest group; the policy records which. */
		if (!g && k == SC_DEFAULT)
			g = seccomp_policy_group(NULL);
		ps->p->sc_mode = g ? SC_DEFAULT : SC_NONE;
		ps->p->sc_group = g ? g->version : 0;
		ps->p->sc_mode_set = (pol_set){ true, s->win };
	}
	return 0;
}

/* "seccomp none" and a deny rule cannot both hold: refuse rather than drop
 * a restriction the reviewer can see. */
int policy_check_seccomp_rules(parser *ps)
{
	const osb_policy *p = ps->p;

	if (p->sc_mode != SC_NONE)
		return 0;
	for (size_t i = 0; i < p->n_sc_rules; i++) {
		const pol_sc *r = &p->sc_rules[i];

		if (!r->allow)
			return perr_at(ps, &r->o, ps->sc_cols[i], "\"seccomp deny %s\" cannot take effect: "
			               "\"seccomp none\" (%s:%u) loads no filter", r->name,
			               p->sc_mode_set.o.file, p->sc_mode_set.o.line);
	}
	return 0;
}

static int d_landlock(parser *ps, frame *f, int n, tok *t)
{
	size_t k = 0;
	slot *s;
	bool apply;
	int r;

	if ((r = arity(ps, f, n, t, 1, 1, "landlock auto|required|off")) < 0 ||
	    (r = keyword(ps, f, &t[1], policy_ll_names, ARRAY_SIZE(policy_ll_names), "landlock", &k)) < 0 ||
	    (r = claim(ps, f, t[0].col, "landlock", "landlock", &s, &apply)) < 0)
		return r;
	if (apply) {
		ps->p->landlock = (enum ll_mode)k;
		ps->p->landlock_set = (pol_set){ true, s->win };
	}
	return 0;
}


/* ---- the table ------------------------------------------------------------ */

static const struct directive {
	const char *name;
	directive_fn fn;
} directives[] = {
	{ "osb-policy", d_version_again }, { "include", d_include }, { "root", d_root },
	{ "ro-bind", d_mount }, { "tmpfs", d_mount }, { "hide", d_mount }, { "dev", d_mount },
	{ "proc", d_mount }, { "symlink", d_symlink }, { "workspace", d_workspace },
	{ "network", d_network },
	{ "env", d_env }, { "user", d_user }, { "identity", d_identity },
	{ "host-ids", d_host_ids },
	{ "hostname", d_hostname }, { "limit", d_limit }, { "write-root", d_write_root },
	{ "write", d_write }, { "read-only", d_read_only }, { "seccomp", d_seccomp },
	{ "landlock", d_landlock }, { "read-root", d_read_root }, { "allow-caller", d_allow_caller },
};


directive_fn policy_directive(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(directives); i++)
		if (strcmp(name, directives[i].name) == 0)
			return directives[i].fn;
	return NULL;
}

size_t policy_directive_names(const char **names, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(directives) && n < max; i++)
		names[n++] = directives[i].name;
	return n;
}

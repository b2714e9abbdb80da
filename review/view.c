/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* view.c — the effective view of the host a policy gives its sandbox
 * (view.h), from the effective rules alone.
 *
 * The mount stack is the launch's (osb-isolate.policy(5), "ro-bind" to
 * "symlink"; docs/ARCHITECTURE.md, "Plan"): the root, then tmpfs, dev and
 * proc mounts, then read-only binds, the workspace, the write paths, the
 * read-only re-protections, then hides and symlinks. The launch refuses
 * the layouts in which that order would let a later mount silently cover a
 * grant (a tmpfs beneath a bind, a hide over one: lint E104), so what shows
 * at a path is decided, in this order, by a hide above it, a read-only rule
 * above it (over a write), a write above it, and otherwise the deepest of
 * the root, the binds and the private mounts above it. Paths are compared
 * by whole components, /var/run read as /run.
 */
#include "view.h"
#include "common.h"

#include <fnmatch.h>
#include <limits.h>
#include <string.h>

#define MAX_PARTS 32

/* A name no rule can name (paths in policies are UTF-8 without control
 * characters): what a '*' of a pattern becomes where no rule says more. */
#define FRESH "\001"

static rv_view make(enum rv_access acc, const char *kind, const char *path, const rv_origin *o)
{
	rv_view v = { acc, false, kind, path, { NULL, 0, 0, NULL } };

	if (o)
		v.o = *o;
	return v;
}

/* The rule among STRS (N) at or above PATH, or NULL; STRICT: only paths
 * strictly above it. */
static const rv_str *str_above(const rv_str *strs, size_t n, const char *path, bool strict)
{
	for (size_t i = 0; i < n; i++)
		if (rv_path_within(path, strs[i].s) &&
		    !(strict && rv_path_within(strs[i].s, path)))
			return &strs[i];
	return NULL;
}

/* The deepest of the root, the binds and the private mounts at or above
 * PATH. */
static rv_view base_at(const review_policy *p, const char *path)
{
	const rv_mount *best = NULL;

	for (size_t i = 0; i < p->n_mounts; i++) {
		const rv_mount *m = &p->mounts[i];

		if (m->kind != MNT_HIDE && rv_path_within(path, m->path) &&
		    (!best || strlen(m->path) > strlen(best->path)))
			best = m;
	}
	if (best)
		return make(best->kind == MNT_RO_BIND ? RV_RO : RV_NONE, rv_mount_words[best->kind],
		            best->path, &best->o);
	return make(p->root == ROOT_HOST_RO ? RV_RO : RV_NONE, "root", NULL, &p->root_set.o);
}

rv_view view_at(const review_policy *p, const char *path, bool grants)
{
	const rv_str *w, *ro, *root;
	rv_view v;

	for (size_t i = 0; i < p->n_mounts; i++)
		if (p->mounts[i].kind == MNT_HIDE && rv_path_within(path, p->mounts[i].path))
			return make(RV_NONE, "hide", p->mounts[i].path, &p->mounts[i].o);
	w = str_above(p->writes, p->n_writes, path, false);
	ro = w ? str_above(p->read_only, p->n_read_only, path, false) : NULL;
	if (ro)
		return make(RV_RO, "read-only", ro->s, &ro->o);
	if (w)
		return make(RV_RW, "write", w->s, &w->o);
	v = base_at(p, path);
	/* What a caller may add: writes beneath a write-root, read-only binds
	 * beneath a read-root (the root itself cannot be granted). */
	if (grants && (root = str_above(p->write_roots, p->n_write_roots, path, true))) {
		ro = str_above(p->read_only, p->n_read_only, path, false);
		v = ro ? make(RV_RO, "read-only", ro->s, &ro->o)
		       : make(RV_RW, "write-root", root->s, &root->o);
		v.granted = true;
	} else if (grants && v.acc < RV_RO &&
	           (root = str_above(p->read_roots, p->n_read_roots, path, true))) {
		v = make(RV_RO, "read-root", root->s, &root->o);
		v.granted = true;
	}
	return v;
}

/* PATH split into its components (at most MAX_PARTS); -1 when longer. */
static int split(const char *path, char parts[MAX_PARTS][NAME_MAX + 1])
{
	int n = 0;

	for (const char *c = path; *c;) {
		size_t len;

		while (*c == '/')
			c++;
		if (!*c)
			break;
		len = strcspn(c, "/");
		if (n == MAX_PARTS || len > NAME_MAX)
			return -1;
		memcpy(parts[n], c, len);
		parts[n++][len] = '\0';
		c += len;
	}
	return n;
}

/* Is the place ANCHOR, whose components are A (NA), a candidate for the
 * pattern P (NP)? The first min(NA, NP) components must match. Into OUT:
 * ANCHOR itself when it lies beneath an instance of the pattern, or the
 * instance through it, the pattern's remaining '*' made FRESH. */
static bool instance(char a[][NAME_MAX + 1], int na, char p[][NAME_MAX + 1], int np, char *out,
                     size_t size)
{
	size_t used = 0;

	for (int i = 0; i < na && i < np; i++)
		if (fnmatch(p[i], a[i], FNM_PERIOD) != 0)
			return false;
	out[0] = '\0';
	for (int i = 0; i < (na > np ? na : np); i++) {
		char fresh[NAME_MAX + 1];
		const char *name = i < na ? a[i] : p[i];
		int w;

		if (i >= na) {   /* every '*' of the rest: a name no rule names */
			size_t k = 0;

			for (const char *c = name; *c && k + 2 < sizeof(fresh); c++)
				k += (size_t)snprintf(fresh + k, sizeof(fresh) - k, "%s",
				                      *c == '*' ? FRESH : (char[]){ *c, '\0' });
			fresh[k] = '\0';
			name = fresh;
		}
		w = snprintf(out + used, size - used, "/%s", name);
		if (w < 0 || (size_t)w >= size - used)
			return false;
		used += (size_t)w;
	}
	if (!used)
		snprintf(out, size, "/");
	return true;
}

/* Try the candidate through ANCHOR: keep the most the sandbox can do. */
static void try_anchor(const review_policy *p, const char *anchor, char pat[][NAME_MAX + 1],
                       int np, bool grants, rv_view *best, char *where, size_t size)
{
	char parts[MAX_PARTS][NAME_MAX + 1], inst[PATH_MAX];
	int na = split(rv_run_alias(anchor), parts);
	rv_view v;

	if (na < 0 || !instance(parts, na, pat, np, inst, sizeof(inst)))
		return;
	v = view_at(p, inst, grants);
	if (v.acc > best->acc || (v.acc == best->acc && best->granted && !v.granted)) {
		*best = v;
		if (where)
			snprintf(where, size, "%s", inst);
	}
}

/* A pattern without '*' names one path: what shows there, or at a place a
 * rule names beneath it (a bind of one file of a directory). */
static void try_below(const review_policy *p, const char *path, const char *anchor, bool grants,
                      rv_view *best, char *where, size_t size)
{
	rv_view v;

	if (!rv_path_within(anchor, path))
		return;
	v = view_at(p, anchor, grants);
	if (v.acc > best->acc || (v.acc == best->acc && best->granted && !v.granted)) {
		*best = v;
		if (where)
			snprintf(where, size, "%s", anchor);
	}
}

static rv_view exposes_path(const review_policy *p, const char *path, bool grants, char *where,
                            size_t size)
{
	const rv_str *lists[] = { p->writes, p->read_only, p->write_roots, p->read_roots };
	const size_t ns[] = { p->n_writes, p->n_read_only, grants ? p->n_write_roots : 0,
	                      grants ? p->n_read_roots : 0 };
	rv_view best = view_at(p, path, grants);

	if (where)
		snprintf(where, size, "%s", path);
	for (size_t i = 0; i < p->n_mounts; i++)
		try_below(p, path, p->mounts[i].path, grants, &best, where, size);
	for (size_t l = 0; l < ARRAY_SIZE(lists); l++)
		for (size_t i = 0; i < ns[l]; i++)
			try_below(p, path, lists[l][i].s, grants, &best, where, size);
	return best;
}

rv_view view_exposes(const review_policy *p, const char *pattern, bool grants, char *where,
                     size_t size)
{
	char pat[MAX_PARTS][NAME_MAX + 1];
	int np;
	rv_view best = make(RV_NONE, "root", NULL, &p->root_set.o);

	if (!strchr(pattern, '*'))
		return exposes_path(p, pattern, grants, where, size);
	np = split(rv_run_alias(pattern), pat);
	if (where && size)
		where[0] = '\0';
	if (np < 0)
		return best;
	try_anchor(p, "/", pat, np, grants, &best, where, size);
	if (where && !where[0])
		snprintf(where, size, "%s", pattern);
	for (size_t i = 0; i < p->n_mounts; i++)
		try_anchor(p, p->mounts[i].path, pat, np, grants, &best, where, size);
	for (size_t i = 0; i < p->n_writes; i++)
		try_anchor(p, p->writes[i].s, pat, np, grants, &best, where, size);
	for (size_t i = 0; i < p->n_read_only; i++)
		try_anchor(p, p->read_only[i].s, pat, np, grants, &best, where, size);
	for (size_t i = 0; grants && i < p->n_write_roots; i++)
		try_anchor(p, p->write_roots[i].s, pat, np, grants, &best, where, size);
	for (size_t i = 0; grants && i < p->n_read_roots; i++)
		try_anchor(p, p->read_roots[i].s, pat, np, grants, &best, where, size);
	return best;
}

void view_rule_str(const review_policy *p, const rv_view *v, char *buf, size_t size)
{
	if (!v->path)
		snprintf(buf, size, "root %s", rv_root_words[p->root]);
	else
		snprintf(buf, size, "%s %s", v->kind, v->path);
}

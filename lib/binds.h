/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* binds.h — the plan's bind sources, opened and verified on the host
 * (binds.c), and the placeholders read-only rules need.
 */
#ifndef OSB_BINDS_H
#define OSB_BINDS_H

#include "phrecord.h"
#include "policy.h"

#include <sys/types.h>

typedef struct plan plan;
typedef struct plan_bind plan_bind;

/* An empty directory a plan made in a writable bind so that a read-only
 * rule protects a path that did not exist yet (a workspace without .git):
 * made by this plan, or by another run (its record says so, lib/phrecord.h)
 * and bound by this one too. Removed once the sandbox is gone by the last
 * run that binds it, if it is still that empty directory. */
typedef struct placeholder {
	int parent_fd;        /* O_PATH of the directory it is in */
	char *name;
	dev_t dev;
	ino_t ino;
	char key[PHREC_KEY_MAX];   /* its record's key, "" for none (made here) */
} placeholder;

typedef struct placeholders {
	placeholder *v;
	size_t n;
	int *held;            /* shared flocks on every placeholder and on every
	                       * path read-only rules bind */
	size_t n_held;
} placeholders;

/* Let go of the shared locks, then remove the placeholders, last found
 * first: only empty directories that are still the ones found, with their
 * record when they have one, and that no other live sandbox binds (it holds
 * a shared lock on them; the placeholder then stays, empty, and the last of
 * them removes it), and free PH. */
void placeholders_remove(placeholders *ph);

/* Open every bind source of PL's policy, in this order: its ro-binds, the
 * workspace, the write grants, the read-only re-protections (made to exist
 * first when missing, recorded in PL->made), then those the workspace
 * repository's git configuration asks for (gitprotect.h, PL->git), made the
 * same way. Each becomes a plan_bind of PL
 * holding the verified fd. Returns 0 or -OSB_E_*. */
int binds_open(plan *pl, osb_error *err);

/* The writable bind D lies strictly in (the deepest), or NULL. */
const plan_bind *binds_writable_for(const plan *pl, const char *d);

#endif /* OSB_BINDS_H */

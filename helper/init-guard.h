/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* init-guard.h — two last-mile guards of osb-isolate-init: the audit of the
 * sandbox's mount table (stage "init:mounts") and Landlock (stage
 * "init:landlock"). The init parses their options through guard_parse_* and
 * calls guard_audit_mounts() before the identity step and guard_landlock()
 * after the capability check; a failure fills a guard_error, which the init
 * reports on its error fd and turns into exit status 125. The options are
 * documented in lib/init-proto.h.
 */
#ifndef OSB_INIT_GUARD_H
#define OSB_INIT_GUARD_H

#include <stdbool.h>
#include <stddef.h>

enum guard_ll_mode { GUARD_LL_UNSET = 0, GUARD_LL_AUTO, GUARD_LL_REQUIRED, GUARD_LL_OFF };

struct guard_paths {
	const char **v; /* pointers into argv, which outlives the init's work */
	size_t n;
};

/* A bind the plan made from a verified source: PATH must be a mount root
 * holding the inode INO of device MAJ:MIN. */
struct guard_bind {
	const char *path;            /* points into argv */
	unsigned maj, min;
	unsigned long long ino;
};

struct guard_opts {
	bool audit_mounts;           /* --audit-mounts */
	struct guard_paths writable; /* --writable PATH */
	struct guard_paths dev;      /* --dev-mount PATH */
	enum guard_ll_mode landlock; /* --landlock MODE */
	struct guard_paths ll_rw;    /* --landlock-rw PATH */
	struct guard_paths proc_ro;  /* --proc-ro PATH */
	struct guard_paths proc_masked; /* --proc-masked PATH */
	struct guard_paths masked;   /* --masked PATH (identity files of the view) */
	bool make_cover;             /* --make-cover: the init makes the three above */
	struct guard_paths synth;    /* --synthesized PATH */
	struct guard_bind *binds;    /* --expect-bind MAJ:MIN:INO:PATH */
	size_t n_binds;
	/* --reprotect MAJ:MIN:INO:PATH: a read-only rule inside a writable bind,
	 * made by the init (helper/init-reprotect.h); and the directories
	 * between such a bind and its rules that the init made mount points of
	 * themselves, writable mounts the audit then expects. */
	struct guard_bind *reprotect;
	size_t n_reprotect;
	struct guard_paths made;
	/* The overlay workspace (helper/init-overlay.h), once mounted: the one
	 * writable mount there may be at this path, and only of type overlay. */
	const char *overlay;
	/* A persisted layer's hidden bind (--overlay-layer): expected writable
	 * until the overlay step has released it, then NULL again. */
	const char *layer;
};

/* errno-style code and a message that says what failed and what to do. */
struct guard_error {
	int err;
	char msg[2048];
};

/* Fills E with ERR and the formatted message; returns -ERR. The one error
 * setter of the init's guards (the audit, Landlock, the cover, the overlay,
 * the relay). */
__attribute__((format(printf, 3, 4)))
int guard_err(struct guard_error *e, int err, const char *fmt, ...);

/* Option parsing. Each returns 1 when the option is one of the guard's and
 * was taken, 0 when it is not one of them, -1 (with e filled) when it is
 * one of them but wrong. guard_parse_flag takes the options without a value
 * (--audit-mounts, --make-cover). */
int guard_parse_flag(struct guard_opts *g, const char *name, struct guard_error *e);
int guard_parse_option(struct guard_opts *g, const char *name, const char *value,
		       struct guard_error *e);
/* The writable bind a --reprotect PATH lies in: the deepest --expect-bind
 * PATH above it that is also a --writable PATH, or NULL. */
const struct guard_bind *guard_reprotect_area(const struct guard_opts *g, const char *path);
/* After all options: refuses combinations that would silently do nothing. */
int guard_check_opts(const struct guard_opts *g, struct guard_error *e);

/* "init:mounts", with --audit-mounts (else nothing): every --expect-bind
 * PATH is a mount root holding the verified inode, and every writable mount visible in /proc/self/mountinfo must
 * be at a --writable or --dev-mount path, or be a device node or the devpts
 * that bwrap's --dev creates directly beneath a --dev-mount. 0 or -errno. */
int guard_audit_mounts(const struct guard_opts *g, struct guard_error *e);

/* "init:overlay", after overlay_mount(): the table again, with the overlay
 * at G->overlay the one writable mount added, and that path showing an
 * overlayfs. 0 or -errno. */
int guard_audit_overlay(const struct guard_opts *g, struct guard_error *e);

/* "init:proc": every --proc-ro PATH is on a read-only mount and not
 * writable by this process; every --proc-masked and --masked PATH is
 * /dev/null (a read-only bind of the character device 1:3) or an empty
 * directory on a read-only tmpfs; every --synthesized PATH is a regular
 * file on a read-only tmpfs (bwrap's copy of the plan's data, not the
 * host's file it covers). Run with the command's identity. 0 or -errno. */
int guard_audit_proc(const struct guard_opts *g, struct guard_error *e);

/* "init:landlock": restricts writes to the --landlock-rw paths (and, with
 * ABI >= 6, scopes abstract unix sockets and signals) for this process and
 * everything it execs. Needs no_new_privs. Off, or auto on a kernel without
 * Landlock, does nothing. 0 or -errno. */
int guard_landlock(const struct guard_opts *g, struct guard_error *e);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* init-overlay.h — the overlay workspace of osb-isolate-init (stage
 * "init:overlay", helper/init-overlay.c): the workspace bind becomes the
 * read-only lower layer of an overlay whose upper layer lives on a private,
 * size-bounded tmpfs. The init parses --overlay through overlay_parse(),
 * mounts it with overlay_mount() after the first mount audit and before the
 * identity step, and then audits the table again (init-guard.h). The option
 * is documented in lib/init-proto.h; the design in docs/ARCHITECTURE.md,
 * "Overlay workspaces".
 */
#ifndef OSB_INIT_OVERLAY_H
#define OSB_INIT_OVERLAY_H

#include <stdbool.h>

#include "init-guard.h"

struct overlay_opts {
	const char *dest;             /* the workspace inside; NULL: no overlay */
	unsigned long long size;      /* bytes the upper layer may hold */
	bool userxattr;               /* user namespace mode: user.overlay.* xattrs */
	const char *layer;            /* --overlay-layer: the persisted layer's bind; NULL: tmpfs */
	int upper_fd;                 /* overlay_mount's: the upper directory, or -1 */
};

/* "--overlay SIZE:XATTR:DEST" (XATTR "user" or "trusted") and
 * "--overlay-layer PATH": 1 when NAME is one of them and was taken, 0 when
 * it is not, -1 (E filled) when wrong. */
int overlay_parse(struct overlay_opts *o, const char *name, const char *value,
		  struct guard_error *e);

/* Mount the overlay at O->dest in a mount namespace of the init's own:
 * lower layer the workspace bind found there, upper and work directories on
 * a tmpfs that is never attached anywhere (or, with O->layer, in a detached
 * copy of the layer's bind, which is then unmounted or covered), the upper
 * directory given the lower's owner and mode. Needs CAP_SYS_ADMIN (and for copy-up, which runs
 * with these credentials, CAP_CHOWN, CAP_DAC_OVERRIDE, CAP_FOWNER,
 * CAP_FSETID) in the user namespace that owns the mount namespace; the
 * caller drops them afterwards. O->upper_fd is then an O_RDONLY fd of the
 * upper directory (close-on-exec), which a session's broker keeps and a run
 * closes. 0 or -errno with E filled. */
int overlay_mount(struct overlay_opts *o, struct guard_error *e);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* viewscan.h — the Unix sockets a launch plan's view shows.
 *
 * A pathname socket is a file: connect(2) reaches it through a read-only
 * bind, and a private network namespace ("network none") does not stop it.
 * Which sockets a bind shows is a fact of the host, not of the policy text,
 * so explain --host looks (lint can only tell root host-ro and ro-bind /,
 * which show them all: W118). Too slow for every launch (a walk of /usr
 * alone visits some 100,000 entries), it is a reviewer's tool.
 */
#ifndef OSB_VIEWSCAN_H
#define OSB_VIEWSCAN_H

#include "bwrap.h"

/* Entries visited at most, over every source: the walk then stops and says
 * so (COMPLETE false). */
#define VIEW_SCAN_MAX_ENTRIES 1000000
/* Socket paths kept; any beyond are counted in MORE. */
#define VIEW_SCAN_MAX_LISTED 64

typedef struct view_sockets {
	strv paths;           /* as the sandbox sees them */
	size_t more;          /* found beyond VIEW_SCAN_MAX_LISTED */
	size_t entries;       /* visited */
	bool complete;        /* every directory of the view was read */
} view_sockets;

/* Walk what PL shows of the host (each bind source, and the host root under
 * root host-ro, less the places the plan covers), without following
 * symlinks or entering pseudo file systems. 0, or -ENOMEM. */
int view_scan_sockets(const plan *pl, view_sockets *out);
void view_sockets_free(view_sockets *v);

#endif /* OSB_VIEWSCAN_H */

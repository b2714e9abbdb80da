/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* layer.h — an overlay workspace's upper layer kept in a caller's host
 * directory (osb_policy_set_overlay_persist, --overlay-persist), opened and
 * checked on the host before launch (layer.c), and emptied by a discard.
 *
 * The directory holds "upper" and "work" (overlayfs's own) and LAYER_MARKER,
 * which says the identity mode that made the layer: its opaque directories
 * carry user.overlay.* xattrs in user namespace mode and trusted.overlay.*
 * in root mode, and a layer read with the other prefix would be misread.
 * The plan binds the directory at a hidden place in the sandbox (a
 * directory bwrap makes fresh), where the init takes it as the upper layer
 * and then unmounts or covers it (helper/init-overlay.c); docs/ARCHITECTURE.md,
 * "Overlay workspaces", says why.
 */
#ifndef OSB_LAYER_H
#define OSB_LAYER_H

#include "osb-isolate.h"

typedef struct plan plan;

#define LAYER_MARKER "osb-layer"
/* The name of the hidden bind in the directory chosen for it. */
#define LAYER_HIDDEN_NAME ".osb-layer"

/* The persist directory of PL's policy (NULL: none, *FD -1): opened by fd
 * beneath "/" with the workspace's path rules, owned by the sandbox's host
 * uid and writable by nobody else, outside every bind source of PL (which
 * binds_open has opened) and out of the sandbox's sight, holding nothing or
 * a layer made in PL's identity mode (an empty one gets LAYER_MARKER now),
 * and locked (flock, exclusive) for as long as *FD is open. *FD is an
 * O_RDONLY directory fd, the bind source; *DEST where the sandbox gets it.
 * 0 or -OSB_E_* (stage "workspace", the message naming the directory). */
int layer_open(const plan *pl, int *fd, char **dest, osb_error *err);

/* Empty the layer directory FD (a discard): upper, work and the marker are
 * removed, never following a symlink nor crossing a mount. 0 or -OSB_E_*. */
int layer_clear(int fd, osb_error *err);

/* Where the hidden bind goes in PL's sandbox: NAME in a directory bwrap
 * makes fresh and the sandbox cannot write (a dev mount, the root of "root
 * none"), else in the first tmpfs the policy mounts (fresh at setup). NULL
 * when the plan has no such place (malloc'd). */
char *layer_hidden_dest(const plan *pl);

#endif /* OSB_LAYER_H */

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* session-overlay.h — what a session keeps of its overlay workspace, and
 * the calls that read its upper layer (session-overlay.c): the workspace's
 * verified fd from the plan, and the upper directory the broker hands over
 * (lib/init-proto.h, "LAYER_GET"). lib/session.c holds one per session.
 */
#ifndef OSB_SESSION_OVERLAY_H
#define OSB_SESSION_OVERLAY_H

#include "osb-isolate.h"
#include "sha256.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct plan plan;

typedef struct session_overlay {
	int ws_fd;            /* O_PATH of the real workspace (the lower layer); -1: no overlay */
	bool userxattr;       /* user namespace mode: user.overlay.* xattrs */
	char *ws_path;        /* the workspace's host path, for reports */
	const char *ws_mode;  /* the policy's workspace mode, "none" ... "overlay" (static) */
	/* A persisted layer's directory (lib/layer.h), whose lock this keeps
	 * for the session's life; -1: the layer is a tmpfs. */
	int layer_fd;
	/* The fingerprint (ovl_fingerprint) of what the last diff or export
	 * showed, kept in the caller's memory, where nothing of the sandbox
	 * reaches; a commit applies only a list with the same one. */
	pthread_mutex_t review_lock;
	bool reviewed;
	uint8_t review[SHA256_DIGEST_LEN];
} session_overlay;

#define SESSION_OVERLAY_INIT ((session_overlay){ .ws_fd = -1, .layer_fd = -1, \
                                                 .review_lock = PTHREAD_MUTEX_INITIALIZER })

/* Keep what the session needs of PL's overlay workspace (nothing when it
 * has none). 0 or -OSB_E_*. */
int session_overlay_copy(session_overlay *ov, const plan *pl, osb_error *err);
void session_overlay_release(session_overlay *ov);

/* SESSION's overlay state in *OV; -OSB_E_USAGE (naming CALL) when SESSION
 * is NULL or its workspace is not an overlay. */
int session_overlay_need(osb_session *s, const char *call, session_overlay **ov,
                         osb_error *err);

/* Ask SESSION's broker for OP (enum session_layer_op, lib/init-proto.h):
 * 0 with *FD the upper directory (-1 for LAYER_RELEASE), which the caller
 * closes; or -OSB_E_* (OSB_E_USAGE with EBUSY while a command runs). */
int session_layer_call(osb_session *s, unsigned op, int *fd, osb_error *err);

/* Read the broker's one answer to a layer request on CHAN: 0 with *FD the
 * upper directory when WANT_FD (else -1), or -OSB_E_* with *FD -1. A
 * packet longer than a reply, or with more fds than fit, is refused, and
 * SESSION (when not NULL) is unusable from then on (session_broken). Every
 * fd a refused answer brought is closed (tests/unit/check_overlay.c). */
int session_layer_await(osb_session *s, int chan, bool want_fd, int *fd, osb_error *err);

#endif /* OSB_SESSION_OVERLAY_H */

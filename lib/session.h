/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* session.h — what lib/session.c offers the other parts of a session inside
 * the library (its public calls are osb-isolate.h's): the overlay state it
 * keeps, the control packets to its broker and the broker's refused
 * reports (session-overlay.c).
 */
#ifndef OSB_SESSION_H
#define OSB_SESSION_H

#include "osb-isolate.h"
#include "session-overlay.h"

#include <stddef.h>

/* SESSION's overlay state (owned by it). */
session_overlay *session_overlay_of(osb_session *s);

/* Send MSG (LEN bytes) with FD to SESSION's broker, as exec requests go:
 * under its lock, and only while it is usable. 0 or -OSB_E_* (ERR filled). */
int session_send_control(osb_session *s, const void *msg, size_t len, int fd, osb_error *err);

/* SESSION's broker sent a malformed WHAT (static: "layer reply"), HOW says
 * how ("56 bytes"): it cannot be trusted, and every later request to it is
 * refused, naming the first such report (osb_session_destroy and _free
 * still work). */
void session_broken(osb_session *s, const char *what, const char *how);

#endif /* OSB_SESSION_H */

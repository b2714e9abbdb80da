/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* broker-overlay.h — an overlay session's upper layer, as the broker serves
 * it (broker-overlay.c): it keeps the upper directory's fd the init opened
 * (init-overlay.h), hands it to the library on request, and holds the
 * sandbox still while the library commits (lib/init-proto.h, "LAYER_HOLD").
 * The broker (broker.c) calls these from its loop; the state is the init's
 * own (one broker per process).
 */
#ifndef OSB_BROKER_OVERLAY_H
#define OSB_BROKER_OVERLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/* The upper directory's fd (-1: no overlay); the broker owns it from now on. */
void layer_init(int upper_fd);

/* True when the packet BUF (N bytes) is a layer request. */
bool layer_is_request(const void *buf, size_t n);

/* Answer the layer request BUF (N bytes) whose fds came in MH; N_JOBS is the
 * number of commands the broker runs. Every fd in MH is closed. */
void layer_on_request(const void *buf, size_t n, struct msghdr *mh, size_t n_jobs);

/* True while a hold lasts: the broker starts no command and does not time
 * out for idleness. */
bool layer_held(void);

#endif /* OSB_BROKER_OVERLAY_H */

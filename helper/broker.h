/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* broker.h — the session broker (broker.c), run by the init as the
 * sandbox's pid 1 in session mode (lib/init-proto.h, "Session mode").
 */
#ifndef OSB_BROKER_H
#define OSB_BROKER_H

#include <stdint.h>

/* Serve SOCK until EOF (returns 0) or IDLE_MS of idleness (returns
 * INIT_EXIT_IDLE; 0 means never). Runs after every init check. */
int broker_serve(int sock, uint64_t idle_ms);

#endif /* OSB_BROKER_H */

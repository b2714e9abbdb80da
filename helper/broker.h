/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* broker.h — the session broker (broker.c), run by the init as the
 * sandbox's pid 1 in session mode (lib/init-proto.h, "Session mode").
 */
#ifndef OSB_BROKER_H
#define OSB_BROKER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

/* Serve SOCK until EOF (returns 0) or IDLE_MS of idleness (returns
 * INIT_EXIT_IDLE; 0 means never). Runs after every init check. Each exit
 * report says which of the N_WATCH sized tmpfs mounts WATCH (--watch-full)
 * were full as the command ended. POLICY_NPROC: the RLIMIT_NPROC the init
 * applied from the policy's "limit nproc" (NULL: none), which a command
 * that cannot be forked names (broker-limit.h). */
int broker_serve(int sock, uint64_t idle_ms, const char *const *watch, size_t n_watch,
                 const struct rlimit *policy_nproc);

#endif /* OSB_BROKER_H */

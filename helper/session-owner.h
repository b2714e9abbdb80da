/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* session-owner.h — the process that owns a session's bwrap on the host
 * (session-owner.c; protocol: lib/owner-proto.h).
 */
#ifndef OSB_SESSION_OWNER_H
#define OSB_SESSION_OWNER_H

/* The owner's main, for `osb-isolate-init --session-owner ...` (ARGV[1] is
 * OWNER_ARG). Never returns: it exits as bwrap did. */
__attribute__((noreturn)) void session_owner_main(int argc, char **argv);

#endif /* OSB_SESSION_OWNER_H */

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* hostid.h — the host uid/gid a sandbox runs as (docs/ARCHITECTURE.md,
 * "Identity").
 *
 * An unprivileged caller's sandbox can only be its caller on the host (the
 * kernel maps nothing else). A root caller's sandbox never runs as root nor
 * as an account: unless the caller pins ids, it gets a uid/gid pair that no
 * passwd or group entry uses, picked from a fixed range and locked for as
 * long as the sandbox lives, so that two live sandboxes never share ids and
 * "limit nproc" counts exactly one sandbox's processes. The model is
 * systemd's DynamicUser= and systemd-nspawn's --private-users=pick.
 */
#ifndef OSB_HOSTID_H
#define OSB_HOSTID_H

#include "policy.h"

#include <sys/types.h>

/* The range root callers' sandboxes get ids from: above systemd-nspawn's
 * container range (0x80000-0x6fffffff) and far above the ranges useradd,
 * systemd and /etc/subuid hand out. */
#define HOSTID_RANGE_BASE 0x70000000u
#define HOSTID_RANGE_SIZE 65536u
/* Root-owned; one byte of the lock file per id of the range, each held with
 * an open-file-description lock while a sandbox runs as that id. */
#define HOSTID_LOCK_DIR "/run/osb-isolate"
#define HOSTID_LOCK_FILE HOSTID_LOCK_DIR "/hostids.lock"

enum hostid_kind {
	HOSTID_CALLER,      /* an unprivileged caller: its own ids */
	HOSTID_PINNED,      /* a root caller chose them (policy host-ids, API, request) */
	HOSTID_ALLOCATED,   /* a root caller's sandbox: picked from the range, locked */
};

typedef struct hostid {
	enum hostid_kind kind;
	uint32_t uid, gid;
	int lock_fd;        /* ALLOCATED: holds the lock; else -1 */
} hostid;

#define HOSTID_INIT { HOSTID_CALLER, 0, 0, -1 }

/* Decide the host ids for POLICY run by a caller with effective ids
 * EUID/EGID (host facts): the caller's own when it is not root (pinned ids
 * are then refused: only root can choose), the pinned ones, or a fresh
 * locked pair from the range. SESSION: for a session, whose starter lives
 * as long as it: a single-threaded one then does the account lookups in a
 * child of its own, so that the name service's modules never load into it
 * (hostid.c, id_in_use). 0 or -OSB_E_*. */
int hostid_acquire(const osb_policy *p, uid_t euid, gid_t egid, bool session, hostid *out,
                   osb_error *err);
/* The allocation walk over an open lock file FD (which *OUT then holds);
 * for tests, which must not contend with live sandboxes on the real one. */
int hostid_allocate_from(int fd, bool session, hostid *out, osb_error *err);
/* Release the lock (idempotent). */
void hostid_release(hostid *h);
/* Is ID used by a passwd entry (uid) or group entry (gid)? Lookup errors
 * count as used. */
bool hostid_uid_is_account(uint32_t uid);
bool hostid_gid_is_group(uint32_t gid);
/* "caller", "pinned", "allocated". */
const char *hostid_kind_name(enum hostid_kind k);

#endif

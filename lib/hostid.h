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
/* Asked ahead: the account lookups of the ids a root caller's sandbox is
 * about to be allocated run in a child of this process (as hostid_acquire's
 * for a session do) while the caller does the rest of its launch
 * (launch.c), on the other CPU. hostid_ask_start picks and locks a
 * candidate pair as the allocation walk would and starts the child, only
 * when an allocation is what hostid_acquire will do (a root caller, no
 * pinned ids), the process is single-threaded (a multithreaded one,
 * execd, keeps the lookups of hostid_acquire) and may run on more than one
 * CPU (on one, the child would only take turns with the launch). It never
 * fails: whatever
 * stands in the way (the lock file, the range, a fork the kernel refuses)
 * leaves nothing asked, and hostid_acquire_asked then does what
 * hostid_acquire does, with the refusals in their order.
 * hostid_acquire_asked hands out the asked pair *before its answer*: the
 * caller may plan with it but uses nothing of the plan until
 * hostid_ask_answer says that no account uses it (0); 1 (an account or a
 * group uses it: plan again with the ids a second hostid_acquire_asked
 * walks to, each looked up apart before it is handed out) or -OSB_E_HOST
 * (the child ended without an answer, the refusal of hostid_acquire) throw
 * the plan away. hostid_ask_end kills and reaps an unanswered child (a
 * launch refused before its ids were due). Both are idempotent and release
 * what the ask still holds. */
typedef struct hostid_ask {
	hostid ids;         /* the candidate; its lock until hostid_acquire_asked takes it */
	pid_t pid;          /* the lookup child, while answer_fd >= 0 */
	int answer_fd;      /* its answer's pipe; -1: none pending */
	bool asked;         /* a child was started: later walks look up apart too */
} hostid_ask;
#define HOSTID_ASK_INIT { HOSTID_INIT, -1, -1, false }
void hostid_ask_start(const osb_policy *p, uid_t euid, hostid_ask *a);
/* hostid_ask_start over an open lock file FD, for tests: 0 with *A holding
 * FD, or -1 with nothing asked and FD still the caller's. */
int hostid_ask_start_from(int fd, hostid_ask *a);
int hostid_acquire_asked(const osb_policy *p, uid_t euid, gid_t egid, bool session,
                         hostid_ask *ask, hostid *out, osb_error *err);
int hostid_ask_answer(hostid_ask *a, osb_error *err);
void hostid_ask_end(hostid_ask *a);
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

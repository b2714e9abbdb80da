/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* identity.h — the files that tell the sandbox who it is (identity.c).
 */
#ifndef OSB_IDENTITY_H
#define OSB_IDENTITY_H

#include "policy.h"

/* Synthesized /etc/passwd and /etc/group for the sandbox, whose user has
 * the policy's name and the ids UID/GID it sees (the policy's in userns
 * mode, its host ids in root mode). Caller frees. */
int identity_passwd(const osb_policy *p, uint32_t uid, uint32_t gid, const char *home,
                    char **out);
int identity_group(const osb_policy *p, uint32_t uid, uint32_t gid, char **out);
/* The sandbox's /etc/hostname and /etc/hosts: its own host name, and
 * loopback names only (none of the host's). */
int identity_hostname(const osb_policy *p, char **out);
int identity_hosts(const osb_policy *p, char **out);

#endif /* OSB_IDENTITY_H */

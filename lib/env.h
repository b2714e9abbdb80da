/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* env.h — the sandbox's environment (env.c).
 */
#ifndef OSB_ENV_H
#define OSB_ENV_H

#include "policy.h"

/* Compute the sandbox environment from the policy and the caller's ENVP.
 * WORKSPACE_DEST expands ${WORKSPACE} in env set values. */
int env_build(const osb_policy *p, const char *const *envp,
              const char *workspace_dest, strv *out, osb_error *err);

#endif /* OSB_ENV_H */

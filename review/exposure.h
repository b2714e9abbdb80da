/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* exposure.h — what a policy lets the sandbox reach of the host
 * (exposure.c), for lint (lint.c) and the audit score (audit.c).
 */
#ifndef OSB_REVIEW_EXPOSURE_H
#define OSB_REVIEW_EXPOSURE_H

#include "model.h"

/* Does NAME look like a credential (a token, a key, a password, cloud
 * credentials)? */
bool secret_looking(const char *name);
/* Does an env deny pattern of P remove NAME? */
bool env_denied(const review_policy *p, const char *name);
/* Does NAME of the caller's environment reach the command under P? */
bool env_passes(const review_policy *p, const char *name);
/* The well-known secret variables (GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY...)
 * the reviewer tools try: how many, and the I-th (NULL beyond). */
size_t secret_sample_count(void);
const char *secret_sample(size_t i);
/* The well-known secret variables PATTERN admits (NULL: all) that no deny
 * pattern removes, as "A, B, C" (at most four named). Returns how many. */
size_t leaked_samples(const review_policy *p, const char *pattern, char *buf, size_t size);

/* Control sockets of host daemons, spelled under /run (see rv_path_within). */
#define N_DAEMON_SOCKETS 11
extern const char *const daemon_sockets[N_DAEMON_SOCKETS];
/* Host directories shared with every other process of the host. */
#define N_SHARED_DIRS 2
extern const char *const shared_dirs[N_SHARED_DIRS];

/* What writing W exposes, most severe first. */
enum wclass { W_NONE, W_ROOT, W_ETC, W_HOME, W_RC, W_GIT };
enum wclass classify_write(const review_policy *p, const char *w);

/* Rules that show the host path PATH (sockets, shared dirs) to the sandbox:
 * root host-ro without a private mount over it, or a bind of it or of a
 * directory above it (a hide over it still hides it). BENEATH_TOO also
 * counts binds below PATH. Calls FN for each (a negative return stops). */
typedef int (*expose_fn)(const review_policy *p, const char *path, const char *rule,
                         const rv_origin *o, void *ctx);
int exposers(const review_policy *p, const char *path, bool beneath_too, expose_fn fn, void *ctx);

/* The first credential store (a home directory's .ssh, .aws, ... or the
 * host's /run/secrets) the view shows, GRANTS: or a caller may bind; its
 * pattern into WHAT and the deciding rule into V. False if none. */
struct rv_view;
bool credential_shown(const review_policy *p, bool grants, char *what, size_t size,
                      struct rv_view *v);

#endif /* OSB_REVIEW_EXPOSURE_H */

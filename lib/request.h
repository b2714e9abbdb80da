/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* request.h — an execd request, read once (request.c) and applied where it
 * is needed: to a policy, to session options (request-load.c).
 */
#ifndef OSB_REQUEST_H
#define OSB_REQUEST_H

#include "policy.h"

/* A request read and type-checked in full; everything a request can be
 * refused for without a policy has been refused. */
typedef struct request_read request_read;

/* Read JSON. 0 with *OUT (free with request_free), or -OSB_E_* with ERR. */
int request_parse(const char *json, request_read **out, osb_error *err);
void request_free(request_read *rq);
/* Its "profile", or NULL when it names none. */
const char *request_profile(const request_read *rq);
/* Its "idle_timeout" in ms; 0 when not asked. */
uint64_t request_idle_ms(const request_read *rq);
/* Check RQ against P and apply it; P is unchanged on any error other than
 * OSB_E_NOMEM (osb_policy_apply_json). */
int request_apply(osb_policy *p, const request_read *rq, osb_error *err);

/* OSEP-0013's keys in the parsed request TOP rewritten as the native ones
 * (request-osep.c). 0 or -OSB_E_POLICY / -OSB_E_NOMEM with ERR. */
struct json_object;
int request_osep_translate(struct json_object *top, osb_error *err);

#endif /* OSB_REQUEST_H */

/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* netallow-proxy.h — the filtering proxy of a sandbox with "network allow"
 * (netallow-proxy.c): started by the launch, unprivileged, before bwrap;
 * stopped with the sandbox; its log read back into the result.
 */
#ifndef OSB_NETALLOW_PROXY_H
#define OSB_NETALLOW_PROXY_H

#include "policy.h"
#include "host.h"
#include "proc.h"

/* Where the proxy is inside the sandbox: 127.0.0.1:NETPROXY_PORT. */
#define NETPROXY_PORT 3128
/* How long a starting proxy has to report ready (NETPROXY_READY). */
#define NETPROXY_READY_MS 5000

typedef struct netproxy {
	int pidfd;            /* the proxy; -1: none running */
	int ctl_fd;           /* the sandbox's end of the control socket; -1: none */
	int log_fd;           /* memfd: one JSON line a connection, NETPROXY_LOG_MAX
	                         bytes at most (netallow.h); -1: none */
	int life_fd;          /* the write end of the proxy's lifeline; -1: none */
	unsigned port;        /* NETPROXY_PORT, or 0 without a proxy */
	pid_t pid;            /* the proxy, which leads a process group of its own */
	char *name;           /* the program as messages name it ("ORIGIN=PATH") */
} netproxy;

#define NETPROXY_INIT { -1, -1, -1, -1, 0, 0, NULL }

/* One refused destination and how often it was asked for. */
typedef struct netproxy_refusal {
	char *host;
	unsigned port;
	unsigned long count;
} netproxy_refusal;

/* Start the proxy of P (which has "network allow") as CRED (NULL: the
 * caller itself; a root caller passes the sandbox's host ids), with the
 * program H names and the hosts file P's configuration names, and wait
 * (NETPROXY_READY_MS at most) until it reports ready. 0, or -OSB_E_* with
 * ERR filled (stage "netproxy": a proxy that could not be started, that
 * ended before it was ready, naming its status and its last diagnostic, or
 * that was not ready in time, then killed). */
int netproxy_start(const osb_policy *p, const host_facts *h, const spawn_cred *cred,
                   netproxy *np, osb_error *err);

/* Has the proxy ended by itself while the sandbox was meant to have it?
 * 0 if it runs (or there is none, or, with AFTER_END, it exited 0 because
 * the sandbox had ended); else -OSB_E_SANDBOX with ERR naming its status
 * (stage "netproxy"). SESSION words the message for a session's proxy. */
int netproxy_check(const netproxy *np, bool after_end, bool session, osb_error *err);

/* Stop the proxy and every connection it serves (SIGKILL to its process
 * group, then wait for it); its log stays readable. */
void netproxy_stop(netproxy *np);

/* Stop it and close everything. */
void netproxy_free(netproxy *np);

/* The log's size now: where a session command's part of it starts. */
long netproxy_log_size(const netproxy *np);

/* The lines the proxy did not log: the count of the marker that ends a
 * full log (NETPROXY_LOG_MAX), 0 while it has room. */
long netproxy_log_dropped(const netproxy *np);

/* The refused destinations the log holds from byte FROM on (aggregated by
 * host and port, in first-seen order) and the number of allowed
 * connections. 0 or -ENOMEM. */
int netproxy_read_log(const netproxy *np, long from, netproxy_refusal **out, size_t *n,
                      unsigned long *allowed);
void netproxy_refusals_free(netproxy_refusal *v, size_t n);

/* HTTP_PROXY, HTTPS_PROXY, NO_PROXY and their lowercase forms for the
 * command, replacing whatever the policy or the caller set. 0 or -ENOMEM. */
int netproxy_env(strv *env);

#endif /* OSB_NETALLOW_PROXY_H */

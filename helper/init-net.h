/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* init-net.h — the relay of "network allow" in osb-isolate-init (stage
 * "init:net", helper/init-net.c): a listener on 127.0.0.1:PORT inside the
 * sandbox's network namespace whose every accepted connection goes to the
 * filtering proxy outside over the control socket (SCM_RIGHTS). The option
 * is documented in lib/init-proto.h; the design in docs/ARCHITECTURE.md,
 * "Network allowlists".
 */
#ifndef OSB_INIT_NET_H
#define OSB_INIT_NET_H

#include "init-guard.h"

struct net_opts {
	int ctl_fd;          /* the control socket (SOCK_SEQPACKET); -1: no relay */
	unsigned port;       /* 127.0.0.1:PORT inside */
};

/* "--net-relay FD:PORT": 1 when NAME is the option and was taken, 0 when it
 * is not, -1 (E filled) when wrong. */
int net_parse(struct net_opts *o, const char *name, const char *value, struct guard_error *e);

/* Listen on 127.0.0.1:PORT and fork the relay, which keeps only the
 * listener and the control socket and passes on each connection until the
 * sandbox ends (or the proxy is gone). The caller then closes both. 0, or
 * -errno with E filled. Called with the command's identity, capabilities,
 * Landlock domain and seccomp filter already in force: the relay is no more
 * than any process of the sandbox. */
int net_relay_start(const struct net_opts *o, struct guard_error *e);

#endif

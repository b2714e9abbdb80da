/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* broker-services.h — the process groups a session's commands left running
 * (broker-services.c; lib/init-proto.h, SESSION_F_KEEP).
 */
#ifndef OSB_BROKER_SERVICES_H
#define OSB_BROKER_SERVICES_H

#include <stdint.h>
#include <sys/types.h>

struct service {
	pid_t pgid;
	int64_t started_unix_ms;
	char command[240];
};

struct services {
	struct service *v;
	size_t n;
};

/* ARGV joined by blanks into BUF (clipped). */
void services_command(char *buf, size_t size, char *const *argv);
/* Wall-clock milliseconds, for started_unix_ms. */
int64_t services_now(void);
/* The leader of a kept command has exited: list its group if anything of
 * it still runs. */
void services_add(struct services *sv, pid_t pgid, int64_t started, const char *command);
/* Answer a SESSION_SERVICES request on CHAN with the groups still alive
 * (the dead ones are dropped). */
void services_reply(struct services *sv, int chan);
void services_free(struct services *sv);

#endif /* OSB_BROKER_SERVICES_H */

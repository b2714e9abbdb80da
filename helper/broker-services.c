/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* broker-services.c — commands that may leave services behind.
 *
 * A command started with SESSION_F_KEEP (osb_exec_set_keep_services) is
 * reported when its leader exits, like any other, but its process group is
 * not killed then: what it started in the background (a web server, a
 * database) runs on until the session ends, when the sandbox's pid
 * namespace takes it down. The broker remembers each such group while
 * anything of it runs, so the library can say what still runs
 * (osb_session_services_json). As the sandbox's pid 1 the broker reaps the
 * group's members as they exit, so "alive" is kill(-pgid, 0), and a group
 * id is not reused while the group has a member.
 */
#include "broker-services.h"
#include "init-proto.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>

void services_command(char *buf, size_t size, char *const *argv)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; argv[i] && used + 1 < size; i++) {
		int w = snprintf(buf + used, size - used, "%s%s", i ? " " : "", argv[i]);

		used += w > 0 ? (size_t)w : 0;
	}
}

int64_t services_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool group_alive(pid_t pgid)
{
	return kill(-pgid, 0) == 0 || errno == EPERM;
}

static void prune(struct services *sv)
{
	for (size_t i = 0; i < sv->n;)
		if (group_alive(sv->v[i].pgid))
			i++;
		else
			sv->v[i] = sv->v[--sv->n];
}

void services_add(struct services *sv, pid_t pgid, int64_t started, const char *command)
{
	struct service *nv;

	prune(sv);
	if (!group_alive(pgid) || sv->n >= SESSION_MAX_SERVICES)
		return;
	nv = realloc(sv->v, (sv->n + 1) * sizeof(*nv));
	if (!nv)
		return;
	sv->v = nv;
	sv->v[sv->n] = (struct service){ .pgid = pgid, .started_unix_ms = started };
	snprintf(sv->v[sv->n].command, sizeof(sv->v[sv->n].command), "%s", command);
	sv->n++;
}

void services_reply(struct services *sv, int chan)
{
	struct session_service_list h = { SESSION_SERVICE_LIST, 0 };
	struct session_service *out;
	size_t len;

	prune(sv);
	h.count = (uint32_t)sv->n;
	len = sizeof(h) + sv->n * sizeof(*out);
	out = calloc(1, len);
	if (!out)
		return;
	memcpy(out, &h, sizeof(h));
	for (size_t i = 0; i < sv->n; i++) {
		struct session_service e = { .pgid = sv->v[i].pgid,
		                             .started_unix_ms = sv->v[i].started_unix_ms };

		memcpy(e.command, sv->v[i].command, sizeof(e.command));
		memcpy((char *)out + sizeof(h) + i * sizeof(e), &e, sizeof(e));
	}
	(void)send(chan, out, len, MSG_NOSIGNAL | MSG_DONTWAIT);
	free(out);
}

void services_free(struct services *sv)
{
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
}

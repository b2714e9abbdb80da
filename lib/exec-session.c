/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* exec-session.c — what only a session command can be asked for: to leave
 * services behind (lib/init-proto.h, SESSION_F_KEEP), and a script larger
 * than a command line may hold (SESSION_F_SCRIPT).
 *
 * A session command's argv and environment travel in one packet of at most
 * SESSION_MSG_MAX (128 KiB) bytes. A script passes instead as a memfd,
 * which the command gets as fd SESSION_SCRIPT_FD and its interpreter (the
 * exec's argv) reads by the path /proc/self/fd/8: no size limit but memory,
 * and never on the command line, where ps would show it.
 */
#include "exec.h"

/* A script is data, not a command line; this bounds what one request pins. */
#define SCRIPT_MAX ((size_t)64 << 20)

int osb_exec_set_keep_services(osb_exec *e, int on)
{
	if (!e)
		return -OSB_E_USAGE;
	e->keep_services = on != 0;
	return 0;
}

int osb_exec_set_script(osb_exec *e, const char *script, size_t len)
{
	char *copy = NULL;

	if (!e || (!script && len) || len > SCRIPT_MAX)
		return -OSB_E_USAGE;
	if (script) {
		copy = malloc(len ? len : 1);
		if (!copy)
			return -OSB_E_NOMEM;
		memcpy(copy, script, len);
	}
	free(e->script);
	e->script = copy;
	e->script_len = len;
	return 0;
}

int exec_check_session_only(const osb_exec *e, osb_error *err)
{
	if (e->script || e->keep_services)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "usage", "%s is for session commands "
		                   "(osb_session_spawn, osb_session_run); a one-shot run ends with its "
		                   "command", e->script ? "osb_exec_set_script" : "osb_exec_set_keep_services");
	return 0;
}

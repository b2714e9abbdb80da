/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* shell-state.c — shell-state sessions: what a command leaves (its working
 * directory, its exported variables) becomes the next command's.
 *
 * Each command is still its own process started by the broker, whose exit
 * status the broker reports: a shell (SHELL_STATE_SHELL) that runs a
 * builtin that changes it ("cd DIR", "export N=V", "unset N",
 * "eval SCRIPT", ". FILE") itself, and execs anything else; after a
 * builtin, its EXIT trap writes "OSB1", the working directory and `env -0` to fd
 * SESSION_STATE_FD, a pipe only the broker reads (lib/init-proto.h,
 * SESSION_F_STATE). The state is never parsed from the command's output.
 * What travels is what a new process would inherit: exported variables and
 * the directory; functions, aliases, unexported variables and shell options
 * (set -e, traps) do not, and a command killed by a signal (its timeout,
 * osb_proc_kill) or that replaces the EXIT trap leaves the state as it was.
 */
#include "shell-state.h"
#include "init-proto.h"
#include "policy-values.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* $1 onward is the command. A builtin that changes the shell runs in it,
 * and the EXIT trap then writes the state however the shell ends (an
 * "exit N" in an eval'd script included), keeping the status. Any other
 * command replaces the shell (exec): it cannot change the shell's state,
 * and its status, a signal included, is its own. */
static const char wrapper[] =
	"case $1 in\n"
	"cd|export|unset|eval|.) ;;\n"
	"*) exec \"$@\" ;;\n"
	"esac\n"
	"trap '__osb_status=$?; { printf \"OSB1\\0%s\\0\" \"$(pwd)\" && env -0; } "
	">&" STR(SESSION_STATE_FD) " 2>/dev/null; exit \"$__osb_status\"' EXIT\n"
	"\"$@\"\n";

int shell_state_argv(const char *shell, const strv *argv, strv *out)
{
	if (strv_push(out, shell) < 0 || strv_push(out, "-c") < 0 || strv_push(out, wrapper) < 0 ||
	    strv_push(out, "osb-shell") < 0)
		return -ENOMEM;
	for (size_t i = 0; i < argv->n; i++)
		if (strv_push(out, argv->v[i]) < 0)
			return -ENOMEM;
	return 0;
}

static bool name_ok(const char *s, size_t len)
{
	if (len == 0 || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!(s[i] == '_' || (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z')))
			return false;
	return true;
}

/* Keep ENTRY ("NAME=VALUE")? */
static bool keep(const char *entry, const strv *deny, size_t *dropped)
{
	size_t len = strcspn(entry, "=");
	char name[256];

	if (!entry[len] || len >= sizeof(name) || !name_ok(entry, len))
		return false;
	memcpy(name, entry, len);
	name[len] = '\0';
	if (strcmp(name, "_") == 0 || strcmp(name, "SHLVL") == 0)
		return false;
	for (size_t i = 0; i < deny->n; i++)
		if (env_deny_match(deny->v[i], name)) {
			(*dropped)++;
			return false;
		}
	return true;
}

int shell_state_parse(const char *data, size_t len, const strv *deny, char **cwd, strv *env,
                      size_t *dropped)
{
	static const char magic[] = "OSB1";
	const char *end = data + len, *p = data, *dir;

	*cwd = NULL;
	*dropped = 0;
	if (len < sizeof(magic) || memcmp(data, magic, sizeof(magic)) != 0 || data[len - 1] != '\0')
		return -EINVAL;
	p += sizeof(magic);
	dir = p;
	p += strlen(p) + 1;
	if (dir[0] != '/' || p > end)
		return -EINVAL;
	while (p < end) {
		size_t n = strlen(p);

		if (keep(p, deny, dropped) && strv_push(env, p) < 0)
			return -ENOMEM;
		p += n + 1;
	}
	*cwd = strdup(dir);
	return *cwd ? 0 : -ENOMEM;
}

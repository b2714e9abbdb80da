/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* cli-common.c — what the CLI's commands share (cli-common.h): paths from
 * the command line and the host configuration, through the public API only.
 */
#include "cli-common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Append the component C (N bytes) to OUT (length *LEN), or drop the last
 * one for "..". OUT always starts with "/". */
static void push_component(char *out, size_t *len, const char *c, size_t n)
{
	if (n == 0 || (n == 1 && c[0] == '.'))
		return;
	if (n == 2 && c[0] == '.' && c[1] == '.') {
		while (*len > 1 && out[*len - 1] != '/')
			(*len)--;
		if (*len > 1)
			(*len)--;
		out[*len] = '\0';
		return;
	}
	if (*len > 1)
		out[(*len)++] = '/';
	memcpy(out + *len, c, n);
	*len += n;
	out[*len] = '\0';
}

static void push_words(char *out, size_t *len, const char *path)
{
	while (*path) {
		size_t n = strcspn(path, "/");

		push_component(out, len, path, n);
		path += n;
		while (*path == '/')
			path++;
	}
}

char *cli_abs_path(const char *arg)
{
	char *cwd = NULL, *out;
	size_t len = 1;

	if (arg[0] != '/' && !(cwd = getcwd(NULL, 0)))
		return NULL;
	out = malloc((cwd ? strlen(cwd) : 0) + strlen(arg) + 3);
	if (out) {
		out[0] = '/';
		out[1] = '\0';
		if (cwd)
			push_words(out, &len, cwd);
		push_words(out, &len, arg);
	}
	free(cwd);
	return out;
}

osb_config *cli_load_config(osb_error *err)
{
	/* secure_getenv: never take the configuration from a setuid caller's
	 * environment (osb-isolate refuses to run setuid anyway). */
	const char *path = secure_getenv("OSB_ISOLATE_CONFIG");

	return osb_config_load(path && *path ? path : NULL, err);
}

int cli_set_programs(osb_error *err)
{
	/* secure_getenv, as for the configuration: which programs run is
	 * never a setuid caller's choice. */
	if (osb_set_program(OSB_PROGRAM_BWRAP, secure_getenv("OSB_ISOLATE_BWRAP"),
	                    "OSB_ISOLATE_BWRAP", err) < 0 ||
	    osb_set_program(OSB_PROGRAM_INIT, secure_getenv("OSB_ISOLATE_INIT"),
	                    "OSB_ISOLATE_INIT", err) < 0 ||
	    osb_set_program(OSB_PROGRAM_NETPROXY, secure_getenv("OSB_ISOLATE_NETPROXY"),
	                    "OSB_ISOLATE_NETPROXY", err) < 0)
		return -1;
	return 0;
}

int cli_apply_config(osb_policy *policy, osb_error *err)
{
	osb_config *cfg = cli_load_config(err);
	int r;

	if (!cfg)
		return -1;
	r = osb_policy_set_config(policy, cfg, err);
	osb_config_free(cfg);
	return r < 0 ? -1 : 0;
}

int cli_set_workspace_mode(osb_policy *policy, const char *word, osb_error *err)
{
	static const struct { const char *word; osb_workspace_mode mode; } modes[] = {
		{ "ro", OSB_WORKSPACE_RO }, { "rw", OSB_WORKSPACE_RW },
		{ "overlay", OSB_WORKSPACE_OVERLAY }, { "none", OSB_WORKSPACE_NONE },
	};
	char msg[sizeof(err->message)];

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (strcmp(word, modes[i].word) != 0)
			continue;
		if (osb_policy_set_workspace_mode(policy, modes[i].mode, err) == 0)
			return 0;
		/* The library says "workspace mode: ...": name the option. */
		snprintf(msg, sizeof(msg), "%s", err->message);
		if (strncmp(msg, "workspace mode", 14) == 0 &&
		    snprintf(err->message, sizeof(err->message), "--workspace-mode%s", msg + 14) < 0)
			snprintf(err->message, sizeof(err->message), "--workspace-mode: refused");
		return -1;
	}
	snprintf(err->stage, sizeof(err->stage), "usage");
	snprintf(err->message, sizeof(err->message), "--workspace-mode '%.64s': expected ro, rw, "
	         "overlay or none", word);
	return -1;
}

int cli_set_overlay_persist(osb_policy *policy, const char *dir, osb_error *err)
{
	char *abs = cli_abs_path(dir);
	int r;

	if (!abs) {
		snprintf(err->stage, sizeof(err->stage), "usage");
		snprintf(err->message, sizeof(err->message), "--overlay-persist %.900s: cannot make it "
		         "absolute (%s)", dir, strerror(errno));
		return -1;
	}
	r = osb_policy_set_overlay_persist(policy, abs, err);
	free(abs);
	return r < 0 ? -1 : 0;
}

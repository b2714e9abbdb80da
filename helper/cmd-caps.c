/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* cmd-caps.c — `osb-isolate capabilities [--json]`: print what isolation
 * this host gives, item by item with reasons and remedies (a readable table,
 * or one JSON object), through the public API only. The exit status says
 * whether sandboxes can run here at all, so scripts can test it.
 */
#include "osb-isolate.h"
#include "cli-common.h"
#include "cmd-caps.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_UNAVAILABLE 1

static void print_caps_help(void)
{
	printf("Usage: osb-isolate capabilities [--json]\n"
	       "Probe what isolation this host gives: each item with its status (ok,\n"
	       "unavailable, degraded), the reason and a remedy, then which identity modes\n"
	       "(userns, root) can run the shipped policies.\n\n"
	       "      --json  print one JSON object instead of the table\n"
	       "  -h, --help  display this help and exit\n\n"
	       "Exit status: 0 when at least one mode can run sandboxes here; 1 when none\n"
	       "can (the report says why); 125 on a usage error or a failed probe.\n");
}

int cmd_capabilities(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	osb_error err = { 0 };
	osb_caps *caps = NULL;
	osb_config *cfg = NULL;
	int json = 0, c, available;
	char *text;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'h': print_caps_help(); return EXIT_SUCCESS;
		default:
			fprintf(stderr, "osb-isolate: capabilities: unknown option '%s'\n"
			        "Try 'osb-isolate capabilities --help' for more information.\n",
			        argv[optind - 1]);
			return OSB_EXIT_SETUP;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "osb-isolate: capabilities: unexpected argument '%s'\n"
		        "Try 'osb-isolate capabilities --help' for more information.\n", argv[optind]);
		return OSB_EXIT_SETUP;
	}
	if (!(cfg = cli_load_config(&err)) || osb_caps_probe_config(&caps, cfg, 0, &err) < 0) {
		fprintf(stderr, "osb-isolate: %s: %s\n", err.stage[0] ? err.stage : "probe",
		        err.message);
		osb_config_free(cfg);
		return OSB_EXIT_SETUP;
	}
	text = json ? osb_caps_json_config(caps, cfg) : osb_caps_table(caps);
	available = osb_caps_available(caps);
	osb_caps_free(caps);
	osb_config_free(cfg);
	if (!text) {
		fprintf(stderr, "osb-isolate: probe: out of memory\n");
		return OSB_EXIT_SETUP;
	}
	fputs(text, stdout);
	if (json)
		fputc('\n', stdout);
	osb_free(text);
	if (fflush(stdout) != 0)
		return OSB_EXIT_SETUP;
	return available ? EXIT_SUCCESS : EXIT_UNAVAILABLE;
}

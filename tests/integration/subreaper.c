/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* subreaper.c — a caller that is a child subreaper (as a container's PID 1
 * or a service manager is) runs `true` N times through osb_run, never
 * reaping anything itself, then counts the processes it has been left as
 * parent of: zombies and live ones. Everything the library starts must be
 * waited for by the library, whatever is orphaned onto the caller.
 *
 *   subreaper WORKSPACE N
 *
 * Prints "runs=N failed=F zombies=Z children=C". Exit 0 when every run
 * succeeded and nothing was left, 1 otherwise, 2 usage or setup.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "osb-isolate.h"

/* Count this process's children from /proc: all, and those in state Z. */
static void count_children(int *all, int *zombies)
{
	DIR *d = opendir("/proc");
	struct dirent *de;

	*all = *zombies = 0;
	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[300], buf[512], *close_paren;
		FILE *f;
		char state;
		long ppid;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if (!(f = fopen(path, "re")))
			continue;
		if (!fgets(buf, sizeof(buf), f)) {
			fclose(f);
			continue;
		}
		fclose(f);
		/* "pid (comm) S ppid ...": comm may hold anything, so from the last ')'. */
		if (!(close_paren = strrchr(buf, ')')) ||
		    sscanf(close_paren + 1, " %c %ld", &state, &ppid) != 2)
			continue;
		if (ppid == (long)getpid()) {
			(*all)++;
			*zombies += state == 'Z';
		}
	}
	closedir(d);
}

static int run_once(const osb_policy *p)
{
	const char *argv[] = { "true", NULL };
	osb_error err = { 0 };
	osb_exec *e = osb_exec_new(argv, &err);
	osb_result *res = NULL;
	int r = -1;

	if (e)
		r = osb_run(p, e, &res, &err);
	if (r < 0)
		fprintf(stderr, "subreaper: %s: %s\n", err.stage, err.message);
	else if (osb_result_exit_code(res) != 0)
		r = -1;
	osb_result_free(res);
	osb_exec_free(e);
	return r;
}

int main(int argc, char **argv)
{
	osb_error err = { 0 };
	osb_policy *p;
	int n, failed = 0, all, zombies;

	if (argc != 3 || (n = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: subreaper WORKSPACE N\n");
		return 2;
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
		perror("subreaper: prctl(PR_SET_CHILD_SUBREAPER)");
		return 2;
	}
	/* The init the test staged, named as osb-isolate(1) takes it. */
	if (osb_set_program(OSB_PROGRAM_INIT, getenv("OSB_ISOLATE_INIT"), "OSB_ISOLATE_INIT",
	                    &err) < 0) {
		fprintf(stderr, "subreaper: %s\n", err.message);
		return 2;
	}
	p = osb_policy_load("strict", &err);
	if (!p || osb_policy_set_workspace(p, argv[1], &err) < 0) {
		fprintf(stderr, "subreaper: %s: %s\n", err.stage, err.message);
		return 2;
	}
	for (int i = 0; i < n; i++)
		failed += run_once(p) < 0;
	osb_policy_free(p);
	/* Whatever is orphaned late has had time to reach us. */
	usleep(500 * 1000);
	count_children(&all, &zombies);
	printf("runs=%d failed=%d zombies=%d children=%d\n", n, failed, zombies, all);
	return failed || all ? 1 : 0;
}

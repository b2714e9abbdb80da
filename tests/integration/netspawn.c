/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* netspawn.c — the streaming API (osb_session_spawn, osb_proc_wait) in a
 * session with "network allow" whose filtering proxy the test kills. Used by
 * tests/integration/netallow.sh.
 *
 *   netspawn POLICY URL
 *
 * The programs are the ones OSB_ISOLATE_INIT and OSB_ISOLATE_NETPROXY name,
 * the configuration the one OSB_ISOLATE_CONFIG names (its net-hosts). In one
 * session: a command fetches URL with curl while the proxy runs; a second
 * command, spawned next, waits for a line on its stdin. netspawn then prints
 * "spawned" and reads a line from its own stdin: the test kills the proxy
 * meanwhile. The line is handed on, the second command fetches URL and
 * exits 7, and a third command is spawned. Each step prints one line:
 *
 *   alive rc=R exit=N signal=S proxy_died=D out=OUT
 *   during rc=R exit=N signal=S proxy_died=D out=OUT
 *   again rc=R exit=N proxy_died=D          (osb_proc_wait once more)
 *   after rc=R code=C stage=STAGE message=MESSAGE
 *
 * Exit status: 0 when every step could be carried out (whatever it
 * printed), 125 when the session or a command could not be started before
 * the proxy was killed, 2 usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "osb-isolate.h"

static int setup(osb_policy **p, const char *path)
{
	osb_config *c = NULL;
	osb_error err = { 0 };
	const char *conf = getenv("OSB_ISOLATE_CONFIG");

	if (osb_set_program(OSB_PROGRAM_INIT, getenv("OSB_ISOLATE_INIT"), "OSB_ISOLATE_INIT",
	                    &err) < 0 ||
	    osb_set_program(OSB_PROGRAM_NETPROXY, getenv("OSB_ISOLATE_NETPROXY"),
	                    "OSB_ISOLATE_NETPROXY", &err) < 0 ||
	    !(*p = osb_policy_load(path, &err)) || (conf && !(c = osb_config_load(conf, &err))) ||
	    (c && osb_policy_set_config(*p, c, &err) < 0)) {
		fprintf(stderr, "netspawn: %s: %s\n", err.stage, err.message);
		osb_config_free(c);
		return -1;
	}
	osb_config_free(c);
	return 0;
}

static osb_exec *exec_of(const char *script, const char *url, int stdin_pipe)
{
	const char *argv[] = { "sh", "-c", script, "sh", url, NULL };
	osb_error err = { 0 };
	osb_exec *e = osb_exec_new(argv, &err);

	if (!e)
		fprintf(stderr, "netspawn: %s\n", err.message);
	else if (stdin_pipe)
		osb_exec_set_stdin_pipe(e, 1);
	return e;
}

/* Read the proc's stdout to its end, first line only, into BUF. */
static void read_out(osb_proc *pr, char *buf, size_t size)
{
	size_t n = 0;
	ssize_t k;
	char junk[256];

	while (n + 1 < size && (k = read(osb_proc_stdout(pr), buf + n, size - 1 - n)) > 0)
		n += (size_t)k;
	while (read(osb_proc_stdout(pr), junk, sizeof(junk)) > 0)
		;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* Spawn SCRIPT (with URL as $1); with PAUSE, say "spawned", then hand it
 * the line read from our stdin; print its status and keep the proc. */
static int step(osb_session *s, const char *name, const char *script, const char *url,
                int pause, osb_proc **keep)
{
	osb_exec *e = exec_of(script, url, pause);
	osb_error err = { 0 };
	osb_proc *pr = NULL;
	osb_status st;
	char out[256], line[64] = "go\n";
	int r;

	if (!e)
		return -1;
	r = osb_session_spawn(s, e, &pr, &err);
	osb_exec_free(e);
	if (r < 0) {
		fprintf(stderr, "netspawn: %s: %s: %s\n", name, err.stage, err.message);
		return -1;
	}
	if (pause) {
		printf("spawned\n");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin) ||
		    write(osb_proc_stdin(pr), line, strlen(line)) != (ssize_t)strlen(line))
			fprintf(stderr, "netspawn: the command's stdin\n");
		osb_proc_close_stdin(pr);
	}
	read_out(pr, out, sizeof(out));
	memset(&st, 0xa5, sizeof(st));
	r = osb_proc_wait(pr, -1, &st);
	printf("%s rc=%d exit=%d signal=%d proxy_died=%d out=%s\n", name, r, st.exit_code,
	       st.signal, st.proxy_died, out);
	*keep = pr;
	return 0;
}

int main(int argc, char **argv)
{
	static const char fetch[] = "curl -sS -m 10 -o /dev/null -w '%{http_code}' \"$1\"; "
	                            "echo \" curl=$?\"";
	char during[256];
	osb_error err = { 0 };
	osb_policy *p = NULL;
	osb_session *s;
	osb_proc *a = NULL, *b = NULL, *c = NULL;
	osb_status st;
	osb_exec *e;
	int r, rc = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: netspawn POLICY URL\n");
		return 2;
	}
	if (setup(&p, argv[1]) < 0)
		return 125;
	if (!(s = osb_session_start(p, &err))) {
		fprintf(stderr, "netspawn: session: %s: %s\n", err.stage, err.message);
		osb_policy_free(p);
		return 125;
	}
	snprintf(during, sizeof(during), "read x; %s; exit 7", fetch);
	if (step(s, "alive", fetch, argv[2], 0, &a) < 0 ||
	    step(s, "during", during, argv[2], 1, &b) < 0)
		rc = 125;
	if (b) {
		memset(&st, 0xa5, sizeof(st));
		r = osb_proc_wait(b, 0, &st);
		printf("again rc=%d exit=%d proxy_died=%d\n", r, st.exit_code, st.proxy_died);
	}
	if (rc == 0 && (e = exec_of("true", argv[2], 0))) {
		r = osb_session_spawn(s, e, &c, &err);
		printf("after rc=%d code=%d stage=%s message=%s\n", r, err.code, err.stage,
		       err.message);
		osb_exec_free(e);
	}
	osb_proc_free(a);
	osb_proc_free(b);
	osb_proc_free(c);
	osb_session_destroy(s, NULL);
	osb_session_free(s);
	osb_policy_free(p);
	return rc;
}

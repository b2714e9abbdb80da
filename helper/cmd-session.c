/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* cmd-session.c — `osb-isolate session start|exec|list|stop`: the client
 * side. `start` and the holder it leaves are session-holder.c's; the socket
 * and its packets are session-wire.c's.
 *
 * `exec` sends its argv, options and its stdout and stderr fds to the holder,
 * which runs the command with osb_session_run and streams the output to
 * those fds; the exit status is the one `run` gives. The command's stdin is
 * /dev/null, or the read end of a pipe the client fills from its own stdin
 * (--stdin), or it gets a pseudo-terminal of its own (--tty) for stdin,
 * stdout and stderr, which the client relays (relay.c): nothing of the
 * session ever holds the caller's terminal, not even a process that
 * outlives the command. If the client goes away, its connection hangs up
 * and the command is killed.
 */
#include "osb-isolate.h"
#include "cmd-session.h"
#include "cmd-overlay.h"
#include "relay.h"
#include "session-holder.h"
#include "session-wire.h"
#include "utf8.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <json-c/json.h>

/* ---- exec ---------------------------------------------------------------------------- */

static void print_exec_help(void)
{
	printf("Usage: %s session exec ID [OPTION]... [--] CMD [ARG]...\n"
	       "Run CMD in session ID; output streams, the exit status is the one `run` gives.\n\n"
	       "      --json              capture output and print one JSON result object\n"
	       "  -t, --timeout DUR       wall limit of this command (only lowers the policy's;\n"
	       "                          a longer one is refused)\n"
	       "      --stdin             relay standard input through a pipe (default: /dev/null)\n"
	       "      --tty               give CMD a terminal of its own (a pseudo-terminal\n"
	       "                          relayed to this one, as ssh -t does)\n"
	       "      --cwd DIR           working directory inside (absolute; default: the workspace)\n"
	       "  -e, --env NAME=VALUE    set a variable for this command (repeatable; a name\n"
	       "                          the policy's env deny patterns match is refused)\n"
	       "      --keep-services     leave what CMD starts in the background running when\n"
	       "                          it exits, until the session stops (session list\n"
	       "                          --json shows it)\n"
	       "  -h, --help              display this help and exit\n", SESSION_PROG);
}

struct exec_opts {
	const char *id, *timeout, *cwd;
	const char *env[256];
	size_t n_env;
	bool json, use_stdin, tty, keep;
	int cmd;
};

static int parse_exec_opts(int argc, char **argv, struct exec_opts *o)
{
	enum { OPT_JSON = 256, OPT_STDIN, OPT_TTY, OPT_CWD, OPT_KEEP };
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "timeout", required_argument, NULL, 't' },
		{ "stdin", no_argument, NULL, OPT_STDIN },
		{ "tty", no_argument, NULL, OPT_TTY },
		{ "cwd", required_argument, NULL, OPT_CWD },
		{ "env", required_argument, NULL, 'e' },
		{ "keep-services", no_argument, NULL, OPT_KEEP },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "+t:e:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON: o->json = true; break;
		case 't': o->timeout = optarg; break;
		case OPT_STDIN: o->use_stdin = true; break;
		case OPT_TTY: o->tty = true; break;
		case OPT_CWD: o->cwd = optarg; break;
		case OPT_KEEP: o->keep = true; break;
		case 'e':
			if (o->n_env == sizeof(o->env) / sizeof(o->env[0]))
				return session_fail("exec: too many --env options (at most 256)");
			o->env[o->n_env++] = optarg;
			break;
		case 'h': print_exec_help(); return -1;
		default:
			return session_fail("exec: unknown option or missing argument '%s'", argv[optind - 1]);
		}
	}
	return 0;
}

/* ID may come before or after the options; the command follows them. */
static int parse_exec(int argc, char **argv, struct exec_opts *o)
{
	int r;

	optind = 1;
	opterr = 0;
	if ((r = parse_exec_opts(argc, argv, o)) != 0)
		return r;
	if (optind >= argc)
		return session_fail("exec: no session id (osb-isolate session exec ID -- CMD [ARG]...)");
	o->id = argv[optind++];
	if ((r = parse_exec_opts(argc, argv, o)) != 0)
		return r;
	if (optind >= argc)
		return session_fail("exec: no command given (osb-isolate session exec ID -- CMD [ARG]...)");
	if (o->tty && o->json)
		return session_fail("exec: --tty cannot be combined with --json (the command's output goes to "
		            "the terminal, not into the result)");
	o->cmd = optind;
	return 0;
}

static int build_exec(const struct exec_opts *o, char **argv, int argc, struct cli_req *h,
                      char **strings, size_t *len)
{
	uint64_t ms = 0;
	int r;

	if (o->timeout && (osb_parse_duration(o->timeout, &ms) < 0 || ms == 0))
		return session_fail("--timeout '%s': expected a positive duration with a unit (500ms, "
		                    "30s, 5m, 1h)", o->timeout);
	*h = (struct cli_req){ .magic = CLI_MAGIC, .type = CLI_EXEC, .timeout_ms = ms,
	                       .flags = (o->json ? CLI_JSON : 0) |
	                                (o->use_stdin || o->tty ? CLI_STDIN : 0) |
	                                (o->tty ? CLI_TTY : 0) | (o->keep ? CLI_KEEP : 0),
	                       .argc = (uint32_t)(argc - o->cmd), .envc = (uint32_t)o->n_env };
	r = wire_exec_strings(o->cwd, (const char *const *)argv + o->cmd, (size_t)(argc - o->cmd),
	                      o->env, o->n_env, strings, len);
	if (r == -E2BIG)
		return session_fail("exec: the command line and --env take %zu bytes; at most %d", *len,
		                    REQ_MAX - (int)sizeof(*h));
	return r < 0 ? session_fail("out of memory") : 0;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? errno : EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* What the holder said besides output: its error lines, printed once the
 * caller's terminal is itself again, and whether the result was written. */
struct replies {
	char err[4096];
	size_t err_len;
	int out_errno;    /* writing the JSON result to stdout failed */
};

/* Relay the holder's packets until the status; EOF before it is a failure
 * (-1). 'o' packets carry the JSON result: once one fails to be written,
 * the rest is dropped and R->out_errno says why. */
static int relay_replies(int fd, struct replies *rp)
{
	char buf[1 + CHUNK];
	int status;

	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		if (buf[0] == 'o' && !rp->out_errno)
			rp->out_errno = write_all(STDOUT_FILENO, buf + 1, (size_t)n - 1);
		else if (buf[0] == 'e') {
			size_t k = (size_t)n - 1 < sizeof(rp->err) - rp->err_len ?
			           (size_t)n - 1 : sizeof(rp->err) - rp->err_len;

			memcpy(rp->err + rp->err_len, buf + 1, k);
			rp->err_len += k;
		} else if (wire_reply_status(buf, (size_t)n, &status) == 0) {
			return status;
		}
	}
}

/* Send the request with the fds the command gets; the client keeps none of
 * the command's ends (so the stdin relay sees EPIPE when the command closes
 * its stdin, and the pseudo-terminal reads EIO once nothing holds it). */
static int send_exec(int fd, const struct exec_opts *o, const struct cli_req *h,
                     const char *strings, size_t len, struct relay *rl)
{
	int fds[3] = { STDOUT_FILENO, STDERR_FILENO, -1 }, r;

	if (o->tty) {
		if ((r = relay_tty_start(rl, STDIN_FILENO, STDOUT_FILENO)) < 0)
			return session_fail("exec: --tty: cannot make a pseudo-terminal: %s", strerror(-r));
		fds[0] = fds[1] = fds[2] = rl->slave;
	} else if (o->use_stdin) {
		if ((r = relay_stdin_start(rl, STDIN_FILENO, &fds[2])) < 0)
			return session_fail("exec: --stdin: cannot relay standard input: %s", strerror(-r));
	}
	r = wire_send_request(fd, h, strings, len, fds, fds[2] >= 0 ? 3 : 2);
	if (o->tty)
		relay_close_slave(rl);
	else if (fds[2] >= 0)
		close(fds[2]);
	if (r < 0) {
		relay_stop(rl);
		return session_fail("cannot send the command to session %s: %s", o->id, strerror(-r));
	}
	return 0;
}

/* The exit status, once the relay has stopped and the terminal is restored. */
static int exec_status(int status, struct relay *rl, const struct replies *rp)
{
	int tty_errno = relay_stop(rl);

	if (rp->err_len && write_all(STDERR_FILENO, rp->err, rp->err_len)) {
		/* nowhere left to report it */
	}
	if (status < 0)
		return session_fail("the session ended before the command's status was known");
	if (tty_errno && tty_errno != EPIPE) {
		fprintf(stderr, "%s: output: writing the command's terminal output failed: %s\n", SESSION_PROG,
		        strerror(tty_errno));
		status = OSB_EXIT_SETUP;
	}
	if (rp->out_errno) {
		fprintf(stderr, "%s: cannot write the result to standard output: %s\n", SESSION_PROG,
		        strerror(rp->out_errno));
		status = OSB_EXIT_SETUP;
	}
	return status;
}

static int session_exec(int argc, char **argv)
{
	struct exec_opts o = { 0 };
	struct relay rl = RELAY_NONE;
	struct replies rp = { .err_len = 0 };
	struct cli_req h;
	struct where w;
	char *strings = NULL;
	size_t len = 0;
	int fd = -1, r;

	if ((r = parse_exec(argc, argv, &o)) != 0)
		return r < 0 ? 0 : r;
	if ((r = build_exec(&o, argv, argc, &h, &strings, &len)) != 0)
		goto out;
	if ((r = session_open(o.id, &w, &fd)) != 0)
		goto out;
	if ((r = send_exec(fd, &o, &h, strings, len, &rl)) == 0)
		r = exec_status(relay_replies(fd, &rp), &rl, &rp);
out:
	if (fd >= 0)
		close(fd);
	free(strings);
	return r;
}

/* ---- list and stop -------------------------------------------------------------------- */

/* Ask a holder for its info JSON (NULL: not answering). */
static json_object *query_info(const struct where *w)
{
	struct cli_req h = { .magic = CLI_MAGIC, .type = CLI_INFO };
	char buf[1 + 8192];
	struct pollfd p;
	json_object *o = NULL;
	ssize_t n;
	int fd = session_connect(w);

	if (fd < 0)
		return NULL;
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	if (wire_send_request(fd, &h, "", 0, NULL, 0) == 0 && poll(&p, 1, 5000) == 1 &&
	    (n = recv(fd, buf, sizeof(buf) - 1, 0)) > 1 && buf[0] == 'i') {
		buf[n] = '\0';
		o = json_tokener_parse(buf + 1);
	}
	close(fd);
	return o;
}

static int by_started(const void *a, const void *b)
{
	json_object *x = *(json_object *const *)a, *y = *(json_object *const *)b, *vx, *vy;
	int64_t sx = json_object_object_get_ex(x, "started", &vx) ? json_object_get_int64(vx) : 0;
	int64_t sy = json_object_object_get_ex(y, "started", &vy) ? json_object_get_int64(vy) : 0;

	return (sx > sy) - (sx < sy);
}

static const char *field(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : "";
}

static void print_table(json_object *arr)
{
	size_t n = json_object_array_length(arr);

	printf("%-16s %8s %7s  %-19s  %s\n", "ID", "PID", "RUNNING", "STARTED", "WORKSPACE");
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(arr, i), *v;
		time_t t = json_object_object_get_ex(o, "started", &v) ? (time_t)json_object_get_int64(v) : 0;
		char when[32] = "";
		struct tm tm;

		if (localtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
		printf("%-16s %8s %7s  %-19s  %s\n", field(o, "id"), field(o, "pid"),
		       field(o, "running"), when, field(o, "workspace"));
	}
}

/* The ids in the directory: every ID.sock, and every ID.lock (a lock
 * without a socket is stale once nobody holds it). */
static json_object *collect_sessions(const struct where *base)
{
	json_object *arr = json_object_new_array();
	DIR *d = opendir(base->dir);
	struct dirent *de;

	while (arr && d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		bool sock = n > 5 && strcmp(de->d_name + n - 5, ".sock") == 0;
		bool lock = n > 5 && strcmp(de->d_name + n - 5, ".lock") == 0;
		struct where w = *base;
		json_object *info;

		if (!sock && !lock)
			continue;
		de->d_name[n - 5] = '\0';
		if (!session_id_valid(de->d_name) || session_set_paths(&w, de->d_name) != 0)
			continue;
		if (lock) {
			if (access(w.sock, F_OK) != 0)
				session_clean_if_stale(&w);
			continue;
		}
		info = query_info(&w);
		if (info)
			json_object_array_add(arr, info);
		else
			session_clean_if_stale(&w);
	}
	if (d)
		closedir(d);
	return arr;
}

static int session_list(int argc, char **argv)
{
	struct where w;
	json_object *arr;
	bool json = false;
	int r;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = true;
		else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			printf("Usage: %s session list [--json]\n", SESSION_PROG);
			return 0;
		} else
			return session_fail("list: unexpected argument '%s'", argv[i]);
	}
	if ((r = session_runtime_dir(&w)) != 0)
		return r;
	arr = collect_sessions(&w);
	if (!arr)
		return session_fail("out of memory");
	json_object_array_sort(arr, by_started);
	if (json) {
		const char *js = json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PLAIN |
		                                                     JSON_C_TO_STRING_NOSLASHESCAPE);
		/* Workspace paths are bytes; JSON is UTF-8 (invalid bytes become U+FFFD). */
		char *valid = js ? utf8_valid_dup(js, strlen(js), NULL) : NULL;

		if (!valid) {
			json_object_put(arr);
			return session_fail("out of memory");
		}
		printf("%s\n", valid);
		free(valid);
	} else
		print_table(arr);
	json_object_put(arr);
	return fflush(stdout) == 0 ? 0 : OSB_EXIT_SETUP;
}

static int session_stop(int argc, char **argv)
{
	struct cli_req h = { .magic = CLI_MAGIC, .type = CLI_STOP };
	struct replies rp = { .err_len = 0 };
	struct where w;
	int fd = -1, r;

	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		printf("Usage: %s session stop ID\n", SESSION_PROG);
		return 0;
	}
	if (argc != 2)
		return session_fail("stop takes exactly one session id");
	if ((r = session_open(argv[1], &w, &fd)) != 0)
		return r;
	r = wire_send_request(fd, &h, "", 0, NULL, 0) < 0 ? -1 : relay_replies(fd, &rp);
	close(fd);
	if (r != 0) {
		/* the holder's reason (a refusal), when it gave one */
		if (rp.err_len && fwrite(rp.err, 1, rp.err_len, stderr) != rp.err_len) {
			/* stderr is gone: the status still says it */
		}
		return session_fail("cannot stop session %s", argv[1]);
	}
	session_wait_gone(&w, 3000);
	return 0;
}

/* ---- dispatch -------------------------------------------------------------------------- */

static void print_session_help(void)
{
	printf("Usage: %s session COMMAND [OPTION]...\n"
	       "Persistent sandboxes: many commands in one sandbox.\n\n"
	       "  start [OPTION]...                 start a session, print its id\n"
	       "  exec ID [OPTION]... -- CMD [ARG]... run CMD in session ID\n"
	       "  list [--json]                     list the running sessions\n"
	       "  stop ID                           end session ID and everything in it\n"
	       "  diff ID [--json]                  what overlay session ID changed\n"
	       "  commit ID [--json]                apply its changes to the workspace\n"
	       "  discard ID                        end it and throw its changes away\n\n"
	       "Sockets live in $XDG_RUNTIME_DIR/osb-isolate (without it: /run/osb-isolate for root,\n"
	       "/tmp/osb-isolate-UID for others).\n"
	       "See osb-isolate(1), \"SESSIONS\".\n", SESSION_PROG);
}

int cmd_session(int argc, char **argv)
{
	if (argc < 2)
		return session_fail("missing command: start, exec, list, stop, diff, commit or discard");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_session_help();
		return 0;
	}
	if (!strcmp(argv[1], "start"))
		return session_start(argc - 1, argv + 1);
	if (!strcmp(argv[1], "exec"))
		return session_exec(argc - 1, argv + 1);
	if (!strcmp(argv[1], "list"))
		return session_list(argc - 1, argv + 1);
	if (!strcmp(argv[1], "stop"))
		return session_stop(argc - 1, argv + 1);
	if (!strcmp(argv[1], "diff"))
		return session_diff(argc - 1, argv + 1);
	if (!strcmp(argv[1], "commit"))
		return session_commit(argc - 1, argv + 1);
	if (!strcmp(argv[1], "discard"))
		return session_discard(argc - 1, argv + 1);
	return session_fail("unknown command '%s' (start, exec, list, stop, diff, commit or discard)", argv[1]);
}

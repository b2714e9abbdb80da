/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* osb-isolate.c — the command-line front end.
 *
 * It holds no sandbox logic of its own: it parses options, loads and narrows
 * a policy through the public API, calls osb_run() and maps the result to an
 * exit status (the command's own; 128+N for signal N; 124 wall timeout; 125
 * osb-isolate could not set up the sandbox, or could not write the result or
 * the command's output; 126 not executable; 127 not found). The command gets
 * none of the caller's fds but harmless devices: its stdin is /dev/null, a
 * pipe (--stdin) or a pseudo-terminal (--tty) that relay.c feeds, and its
 * output goes through pipes the library copies (whose write errors reach the
 * command: a broken pipe as SIGPIPE, others as a result error).
 */
#include "osb-isolate.h"
#include "cli-common.h"
#include "cmd-caps.h"
#include "cmd-review.h"
#include "cmd-session.h"
#include "relay.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


extern char **environ;

static const char *prog = "osb-isolate";

__attribute__((format(printf, 1, 2)))
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", prog);
	return OSB_EXIT_SETUP;
}

static void print_main_help(void)
{
	printf("Usage: %s COMMAND [OPTION]...\n"
	       "Run untrusted commands in a bubblewrap sandbox under a policy.\n\n"
	       "Commands:\n"
	       "  run [OPTION]... -- CMD [ARG]...  run CMD in a one-shot sandbox\n"
	       "  session start|exec|list|stop     persistent sandboxes for many commands\n"
	       "  capabilities [--json]            what isolation this host gives, and why not\n"
	       "  check [--strict] POLICY...       validate policies: FILE:LINE:COL diagnostics\n"
	       "  lint POLICY...                   risky grants, each with a code and a reason\n"
	       "  audit [--threshold N] POLICY     exposure score out of 100, check by check\n"
	       "  diff POLICY_A POLICY_B           semantic difference of two policies\n"
	       "  explain [OPTION]... POLICY       effective rules with origins (--json, --host)\n"
	       "  hash POLICY                      print the policy's sha256 hash\n"
	       "  request CMD BASELINE REQUEST     explain|lint|audit|diff an execd request\n\n"
	       "Options:\n"
	       "  -h, --help     display this help and exit\n"
	       "  -V, --version  output version information and exit\n\n"
	       "Run '%s COMMAND --help' for the options of a command. See osb-isolate(1).\n",
	       prog, prog);
}

static void print_run_help(void)
{
	printf("Usage: %s run [OPTION]... [--] CMD [ARG]...\n"
	       "Run CMD (an argv, not a shell string) in a one-shot sandbox.\n\n"
	       "  -p, --policy NAME|FILE  policy to apply (default: strict)\n"
	       "  -w, --workspace DIR     workspace directory (default: the current directory)\n"
	       "      --workspace-mode MODE  ro, overlay (writes go to a private layer that\n"
	       "                          ends with the run) or rw; only narrows the policy's\n"
	       "      --overlay-persist DIR  keep the overlay's upper layer in DIR (empty,\n"
	       "                          or persisted by an earlier run or session) instead\n"
	       "                          of a private one\n"
	       "      --ro PATH           also bind PATH read-only; it must lie beneath a\n"
	       "                          read-root the policy declares (repeatable)\n"
	       "      --write PATH        also bind PATH writable; it must lie beneath a\n"
	       "                          write-root the policy declares (repeatable)\n"
	       "      --net               share the host network, where the policy says\n"
	       "                          \"allow-caller network\"\n"
	       "      --net-allow HOST[:PORT]  keep only these entries of the policy's\n"
	       "                          \"network allow\" list (repeatable; only narrows)\n"
	       "  -t, --timeout DUR       wall limit, e.g. 30s; only lowers the policy's (a\n"
	       "                          longer one is refused)\n"
	       "      --stdin             relay standard input through a pipe (default: /dev/null)\n"
	       "      --tty               give CMD a terminal of its own (a pseudo-terminal\n"
	       "                          relayed to this one, as ssh -t does)\n"
	       "      --shell             run CMD through /bin/sh -c\n"
	       "      --json              capture output and print one JSON result object\n"
	       "      --result-fd N       stream output and write the JSON result to fd N\n"
	       "      --timings           print where the time went (setup, bwrap, init,\n"
	       "                          command, teardown) on stderr when it ends\n"
	       "  -h, --help              display this help and exit\n\n"
	       "Exit status: the command's own; 128+N if killed by signal N; 124 wall timeout;\n"
	       "125 the sandbox could not be set up, or the result or the output could not be\n"
	       "written; 126 not executable; 127 not found.\n",
	       prog);
}

static void print_version(void)
{
	printf("osb-isolate %s\n", OSB_ISOLATE_VERSION);
}

struct run_opts {
	const char *policy, *workspace, *ws_mode, *timeout, *persist;
	const char *ro[64]; size_t n_ro;
	const char *write[64]; size_t n_write;
	const char *net_allow[64]; size_t n_net_allow;
	int net, use_stdin, tty, shell, json, result_fd, timings;
};

static int parse_fd(const char *s, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 3 || v > INT_MAX)
		return -1;
	*out = (int)v;
	return 0;
}

/* Before anything runs: a result that could never be written is a usage
 * error, not a silent loss after the command has run. */
static int check_result_fd(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return usage_error("--result-fd %d: %s", fd, strerror(errno));
	if ((fl & O_ACCMODE) == O_RDONLY)
		return usage_error("--result-fd %d is not open for writing", fd);
	return 0;
}

static int check_run_opts(const struct run_opts *o)
{
	if (o->tty && o->json)
		return usage_error("--tty cannot be combined with --json (the command's output goes "
		                   "to the terminal, not into the result)");
	if (o->tty && o->result_fd >= 0)
		return usage_error("--tty cannot be combined with --result-fd (the command's output "
		                   "goes to the terminal, not into the result)");
	return o->result_fd >= 0 ? check_result_fd(o->result_fd) : 0;
}

static int parse_run_opts(int argc, char **argv, struct run_opts *o, int *cmd_index)
{
	enum { OPT_RO = 256, OPT_WRITE, OPT_NET, OPT_STDIN, OPT_TTY, OPT_SHELL, OPT_JSON,
	       OPT_RESULT_FD, OPT_WS_MODE, OPT_PERSIST, OPT_NET_ALLOW, OPT_TIMINGS };
	static const struct option longopts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "workspace", required_argument, NULL, 'w' },
		{ "workspace-mode", required_argument, NULL, OPT_WS_MODE },
		{ "overlay-persist", required_argument, NULL, OPT_PERSIST },
		{ "ro", required_argument, NULL, OPT_RO },
		{ "write", required_argument, NULL, OPT_WRITE },
		{ "net", no_argument, NULL, OPT_NET },
		{ "net-allow", required_argument, NULL, OPT_NET_ALLOW },
		{ "timeout", required_argument, NULL, 't' },
		{ "stdin", no_argument, NULL, OPT_STDIN },
		{ "tty", no_argument, NULL, OPT_TTY },
		{ "shell", no_argument, NULL, OPT_SHELL },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "result-fd", required_argument, NULL, OPT_RESULT_FD },
		{ "timings", no_argument, NULL, OPT_TIMINGS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->policy = "strict";
	o->result_fd = -1;
	optind = 1;
	opterr = 0;
	/* "+": stop at the first non-option, so the command's own options are
	 * never taken for ours; ":": an option without its value is ':', not
	 * an unknown option. */
	while ((c = getopt_long(argc, argv, "+:p:w:t:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': o->policy = optarg; break;
		case 'w': o->workspace = optarg; break;
		case OPT_WS_MODE: o->ws_mode = optarg; break;
		case OPT_PERSIST: o->persist = optarg; break;
		case 't': o->timeout = optarg; break;
		case OPT_RO:
			if (o->n_ro == sizeof(o->ro) / sizeof(o->ro[0]))
				return usage_error("too many --ro options (at most 64)");
			o->ro[o->n_ro++] = optarg;
			break;
		case OPT_WRITE:
			if (o->n_write == sizeof(o->write) / sizeof(o->write[0]))
				return usage_error("too many --write options (at most 64)");
			o->write[o->n_write++] = optarg;
			break;
		case OPT_NET: o->net = 1; break;
		case OPT_NET_ALLOW:
			if (o->n_net_allow == sizeof(o->net_allow) / sizeof(o->net_allow[0]))
				return usage_error("too many --net-allow options (at most 64)");
			o->net_allow[o->n_net_allow++] = optarg;
			break;
		case OPT_STDIN: o->use_stdin = 1; break;
		case OPT_TTY: o->tty = 1; break;
		case OPT_SHELL: o->shell = 1; break;
		case OPT_JSON: o->json = 1; break;
		case OPT_TIMINGS: o->timings = 1; break;
		case OPT_RESULT_FD:
			if (parse_fd(optarg, &o->result_fd) < 0)
				return usage_error("--result-fd needs a file descriptor number >= 3, not '%s'",
				                   optarg);
			break;
		case 'h': print_run_help(); return -1;
		case '?':
			if (optopt > 0 && optopt < 256)
				return usage_error("run: unknown option '-%c'", optopt);
			return usage_error("run: unknown option '%s'", argv[optind - 1]);
		case ':':
		default:
			return usage_error("run: option '%s' needs a value", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("run: no command given (osb-isolate run [OPTION]... -- CMD [ARG]...)");
	*cmd_index = optind;
	return check_run_opts(o);
}

static int report_error(const osb_error *err)
{
	fprintf(stderr, "%s: %s: %s\n", prog, err->stage[0] ? err->stage : "error", err->message);
	return OSB_EXIT_SETUP;
}

/* Say which option a refusal is about: "--net: the host network is ...". */
static int flag_error(osb_error *err, const char *flag)
{
	char msg[sizeof(err->message)];

	snprintf(msg, sizeof(msg), "%s", err->message);
	/* A message clipped at the end still names the option. */
	if (snprintf(err->message, sizeof(err->message), "%s: %s", flag, msg) < 0)
		snprintf(err->message, sizeof(err->message), "%s: refused", flag);
	return -1;
}

static int path_arg_error(osb_error *err, const char *flag, const char *arg)
{
	snprintf(err->stage, sizeof(err->stage), "usage");
	snprintf(err->message, sizeof(err->message), "%s %s: cannot make it absolute (%s)", flag,
	         arg, strerror(errno));
	return -1;
}

/* The run options, each through the same check as a request's key
 * (osb_policy_apply_json): they narrow the policy, or add only what it
 * grants callers (write-root, read-root, allow-caller network). Paths are
 * made absolute by their words alone: the library follows no symlink, so
 * what it checks is what was typed. */
static int narrow_policy(osb_policy *p, const struct run_opts *o, osb_error *err)
{
	if (cli_apply_config(p, err) < 0)
		return -1;
	if (o->workspace) {
		char *abs = cli_abs_path(o->workspace);
		int r;

		if (!abs)
			return path_arg_error(err, "--workspace", o->workspace);
		r = osb_policy_set_workspace(p, abs, err);
		free(abs);
		if (r < 0)
			return -1;
	}
	if (o->ws_mode && cli_set_workspace_mode(p, o->ws_mode, err) < 0)
		return -1;
	if (o->persist && cli_set_overlay_persist(p, o->persist, err) < 0)
		return -1;
	for (size_t i = 0; i < o->n_ro; i++) {
		char *abs = cli_abs_path(o->ro[i]);
		int r;

		if (!abs)
			return path_arg_error(err, "--ro", o->ro[i]);
		r = osb_policy_add_readonly(p, abs, err);
		free(abs);
		if (r < 0)
			return flag_error(err, "--ro");
	}
	for (size_t i = 0; i < o->n_write; i++) {
		char *abs = cli_abs_path(o->write[i]);
		int r;

		if (!abs)
			return path_arg_error(err, "--write", o->write[i]);
		r = osb_policy_add_writable(p, abs, err);
		free(abs);
		if (r < 0)
			return -1;
	}
	if (o->net && osb_policy_set_network(p, OSB_NETWORK_HOST, err) < 0)
		return flag_error(err, "--net");
	if (o->n_net_allow && osb_policy_set_network_allow(p, o->net_allow, o->n_net_allow, err) < 0)
		return -1;
	if (o->timeout) {
		uint64_t ms;

		if (osb_parse_duration(o->timeout, &ms) < 0 || ms == 0) {
			snprintf(err->stage, sizeof(err->stage), "usage");
			snprintf(err->message, sizeof(err->message),
			         "--timeout '%s': expected a positive duration with a unit (500ms, 30s, 5m, 1h)",
			         o->timeout);
			return -1;
		}
		if (osb_policy_set_wall_ms(p, ms, err) < 0)
			return -1;
	}
	return 0;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The result, one line on FD. A result that cannot be written is a
 * failure of ours (125), whatever the command's status. */
static int emit_json(const osb_result *res, int fd)
{
	char *json = osb_result_json(res);
	char where[32];
	int r;

	if (fd == STDOUT_FILENO)
		snprintf(where, sizeof(where), "standard output");
	else
		snprintf(where, sizeof(where), "fd %d", fd);
	if (!json) {
		fprintf(stderr, "%s: cannot write the result to %s: out of memory\n", prog, where);
		return OSB_EXIT_SETUP;
	}
	r = write_all(fd, json, strlen(json));
	if (r == 0)
		r = write_all(fd, "\n", 1);
	osb_free(json);
	if (r < 0) {
		fprintf(stderr, "%s: cannot write the result to %s: %s\n", prog, where, strerror(-r));
		return OSB_EXIT_SETUP;
	}
	return 0;
}

/* Where the command's stdin and output go: pipes and a pseudo-terminal of
 * its own, never the caller's fds (but /dev/null, /dev/zero, /dev/full,
 * which it may write to itself and so meet their errors as on the host). */
static int setup_stdio(const struct run_opts *o, osb_exec *exec, struct relay *rl, int *cmd_in)
{
	int r;

	if (o->tty) {
		if ((r = relay_tty_start(rl, STDIN_FILENO, STDOUT_FILENO)) < 0) {
			fprintf(stderr, "%s: --tty: cannot make a pseudo-terminal: %s\n", prog, strerror(-r));
			return OSB_EXIT_SETUP;
		}
		osb_exec_set_stdin_fd(exec, rl->slave);
		osb_exec_set_stdout_fd(exec, rl->slave);
		osb_exec_set_stderr_fd(exec, rl->slave);
		osb_exec_set_output_direct(exec, 1, 1);
		osb_exec_set_output_direct(exec, 2, 1);
		return 0;
	}
	if (o->use_stdin) {
		if ((r = relay_stdin_start(rl, STDIN_FILENO, cmd_in)) < 0) {
			fprintf(stderr, "%s: --stdin: cannot relay standard input: %s\n", prog, strerror(-r));
			return OSB_EXIT_SETUP;
		}
		osb_exec_set_stdin_fd(exec, *cmd_in);
	}
	osb_exec_set_capture(exec, o->json || o->result_fd >= 0);
	if (!o->json) {
		osb_exec_set_stdout_fd(exec, STDOUT_FILENO);
		osb_exec_set_stderr_fd(exec, STDERR_FILENO);
		osb_exec_set_output_direct(exec, 1, o->result_fd < 0 && relay_fd_inert(STDOUT_FILENO));
		osb_exec_set_output_direct(exec, 2, o->result_fd < 0 && relay_fd_inert(STDERR_FILENO));
	}
	return 0;
}

/* --timings: one line for a person, "osb-isolate: timings: setup 2.1 ms,
 * bwrap 7.9 ms, ... (total 14.0 ms)"; a stage that did not happen is "-". */
static void print_timings(const osb_result *res)
{
	char line[256];
	size_t n = (size_t)snprintf(line, sizeof(line), "%s: timings:", prog);

	for (int i = 0; i < OSB_TIMING__COUNT && n < sizeof(line); i++) {
		int64_t us = osb_result_timing_us(res, (osb_timing)i);
		const char *name = osb_result_timing_name((osb_timing)i);

		if (us >= 0)
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s %s %.1f ms", i ? "," : "",
			                      name, (double)us / 1000.0);
		else
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s %s -", i ? "," : "", name);
	}
	if (n < sizeof(line))
		snprintf(line + n, sizeof(line) - n, " (total %llu ms)",
		         (unsigned long long)osb_result_duration_ms(res));
	fprintf(stderr, "%s\n", line);
}

/* The run's exit status, once the relay is stopped and the caller's
 * terminal restored, with the result written where it was asked for. */
static int finish_run(const struct run_opts *o, const osb_result *res, int r, int tty_errno,
                      const osb_error *err)
{
	int status = osb_result_cli_status(res);

	if (r < 0 || osb_result_error(res))
		report_error(osb_result_error(res) ? osb_result_error(res) : err);
	if (tty_errno && tty_errno != EPIPE) {
		fprintf(stderr, "%s: output: writing the command's terminal output failed: %s\n", prog,
		        strerror(tty_errno));
		status = OSB_EXIT_SETUP;
	}
	if (o->json && emit_json(res, STDOUT_FILENO) != 0)
		status = OSB_EXIT_SETUP;
	if (o->result_fd >= 0 && emit_json(res, o->result_fd) != 0)
		status = OSB_EXIT_SETUP;
	if (o->timings)
		print_timings(res);
	return status;
}

static int cmd_run(int argc, char **argv)
{
	struct run_opts o = { 0 };
	struct relay rl = RELAY_NONE;
	osb_policy *policy = NULL;
	osb_exec *exec = NULL;
	osb_result *res = NULL;
	osb_error err = { 0 };
	int cmd_index = 0, status = OSB_EXIT_SETUP, cmd_in = -1, tty_errno, r;
	const char *shell_argv[4];

	r = parse_run_opts(argc, argv, &o, &cmd_index);
	if (r != 0)
		return r < 0 ? EXIT_SUCCESS : r;
	if (o.shell) {
		if (argc - cmd_index != 1)
			return usage_error("run --shell takes exactly one command string");
		shell_argv[0] = "/bin/sh";
		shell_argv[1] = "-c";
		shell_argv[2] = argv[cmd_index];
		shell_argv[3] = NULL;
	}
	policy = osb_policy_load(o.policy, &err);
	if (!policy || narrow_policy(policy, &o, &err) < 0)
		goto fail;
	exec = osb_exec_new(o.shell ? shell_argv : (const char *const *)argv + cmd_index, &err);
	if (!exec)
		goto fail;
	osb_exec_set_env(exec, (const char *const *)environ);
	if (setup_stdio(&o, exec, &rl, &cmd_in) != 0) {
		osb_exec_free(exec);
		osb_policy_free(policy);
		return OSB_EXIT_SETUP;
	}
	r = osb_run(policy, exec, &res, &err);
	tty_errno = relay_stop(&rl);
	if (cmd_in >= 0)
		close(cmd_in);
	if (!res)
		goto fail;
	status = finish_run(&o, res, r, tty_errno, &err);
	osb_result_free(res);
	osb_exec_free(exec);
	osb_policy_free(policy);
	return status;
fail:
	report_error(&err);
	osb_exec_free(exec);
	osb_policy_free(policy);
	return OSB_EXIT_SETUP;
}

int main(int argc, char **argv)
{
	osb_error err;

	/* A setuid or setgid install would hand the caller our privileges. */
	if (getuid() != geteuid() || getgid() != getegid()) {
		fprintf(stderr, "%s: refusing to run setuid or setgid\n", prog);
		return OSB_EXIT_SETUP;
	}
	/* A reader that goes away must not kill us before the sandbox is reaped. */
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2)
		return usage_error("missing command");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_main_help();
		return EXIT_SUCCESS;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		print_version();
		return EXIT_SUCCESS;
	}
	if (cli_set_programs(&err) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err.message);
		return OSB_EXIT_SETUP;
	}
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1);
	if (!strcmp(argv[1], "capabilities"))
		return cmd_capabilities(argc - 1, argv + 1);
	if (!strcmp(argv[1], "session"))
		return cmd_session(argc - 1, argv + 1);
	if (!strcmp(argv[1], "check"))
		return cmd_check(argc - 1, argv + 1);
	if (!strcmp(argv[1], "lint"))
		return cmd_lint(argc - 1, argv + 1);
	if (!strcmp(argv[1], "audit"))
		return cmd_audit(argc - 1, argv + 1);
	if (!strcmp(argv[1], "diff"))
		return cmd_diff(argc - 1, argv + 1);
	if (!strcmp(argv[1], "hash"))
		return cmd_hash(argc - 1, argv + 1);
	if (!strcmp(argv[1], "explain"))
		return cmd_explain(argc - 1, argv + 1);
	if (!strcmp(argv[1], "request"))
		return cmd_request(argc - 1, argv + 1);
	return usage_error("unknown command '%s'", argv[1]);
}

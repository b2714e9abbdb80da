/* osb-isolate.c — the command-line front end.
 *
 * It holds no sandbox logic of its own: it parses options, loads and narrows
 * a policy through the public API, calls osb_run() and maps the result to an
 * exit status (the command's own; 128+N for signal N; 124 wall timeout; 125
 * osb-isolate could not set up the sandbox; 126 not executable; 127 not found).
 */
#include "osb-isolate.h"
#include "cmd-review.h"

int cmd_capabilities(int argc, char **argv);   /* cmd-caps.c */
int cmd_session(int argc, char **argv);        /* cmd-session.c */

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXIT_SETUP 125

extern char **environ;

/* Internal helpers shared with the library (parsing of units). */
int parse_duration_ms(const char *s, uint64_t *out);

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
	return EXIT_SETUP;
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
	       "  hash POLICY                      print the policy's sha256 hash\n\n"
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
	       "      --ro PATH           also bind host PATH read-only (repeatable)\n"
	       "      --write PATH        also bind PATH writable; it must lie beneath a\n"
	       "                          write-root the policy declares (repeatable)\n"
	       "      --net               share the host network\n"
	       "  -t, --timeout DUR       wall limit, e.g. 30s; only lowers the policy's\n"
	       "      --stdin             pass standard input (default: /dev/null)\n"
	       "      --shell             run CMD through /bin/sh -c\n"
	       "      --json              capture output and print one JSON result object\n"
	       "      --result-fd N       stream output and write the JSON result to fd N\n"
	       "  -h, --help              display this help and exit\n\n"
	       "Exit status: the command's own; 128+N if killed by signal N; 124 wall timeout;\n"
	       "125 the sandbox could not be set up; 126 not executable; 127 not found.\n",
	       prog);
}

static void print_version(void)
{
	printf("osb-isolate %s\n", OSB_ISOLATE_VERSION);
}

struct run_opts {
	const char *policy, *workspace, *timeout;
	const char *ro[64]; size_t n_ro;
	const char *write[64]; size_t n_write;
	int net, use_stdin, shell, json, result_fd;
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

static int parse_run_opts(int argc, char **argv, struct run_opts *o, int *cmd_index)
{
	enum { OPT_RO = 256, OPT_WRITE, OPT_NET, OPT_STDIN, OPT_SHELL, OPT_JSON, OPT_RESULT_FD };
	static const struct option longopts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "workspace", required_argument, NULL, 'w' },
		{ "ro", required_argument, NULL, OPT_RO },
		{ "write", required_argument, NULL, OPT_WRITE },
		{ "net", no_argument, NULL, OPT_NET },
		{ "timeout", required_argument, NULL, 't' },
		{ "stdin", no_argument, NULL, OPT_STDIN },
		{ "shell", no_argument, NULL, OPT_SHELL },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "result-fd", required_argument, NULL, OPT_RESULT_FD },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->policy = "strict";
	o->result_fd = -1;
	optind = 1;
	opterr = 0;
	/* "+": stop at the first non-option, so the command's own options are
	 * never taken for ours. */
	while ((c = getopt_long(argc, argv, "+p:w:t:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': o->policy = optarg; break;
		case 'w': o->workspace = optarg; break;
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
		case OPT_STDIN: o->use_stdin = 1; break;
		case OPT_SHELL: o->shell = 1; break;
		case OPT_JSON: o->json = 1; break;
		case OPT_RESULT_FD:
			if (parse_fd(optarg, &o->result_fd) < 0)
				return usage_error("--result-fd needs a file descriptor number >= 3, not '%s'",
				                   optarg);
			break;
		case 'h': print_run_help(); return -1;
		case '?':
			if (optopt)
				return usage_error("run: unknown option '-%c'", optopt);
			return usage_error("run: unknown option '%s'", argv[optind - 1]);
		case ':':
		default:
			return usage_error("run: option '%s' needs an argument", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("run: no command given (osb-isolate run [OPTION]... -- CMD [ARG]...)");
	*cmd_index = optind;
	return 0;
}

static int report_error(const osb_error *err)
{
	fprintf(stderr, "%s: %s: %s\n", prog, err->stage[0] ? err->stage : "error", err->message);
	return EXIT_SETUP;
}

static int narrow_policy(osb_policy *p, const struct run_opts *o, osb_error *err)
{
	if (o->workspace) {
		/* The user's own path, symlinks and all, as they meant it; the
		 * library opens the result once and binds that fd. */
		char *abs = realpath(o->workspace, NULL);
		int r;

		if (!abs) {
			snprintf(err->stage, sizeof(err->stage), "workspace");
			snprintf(err->message, sizeof(err->message), "--workspace %s: %s",
			         o->workspace, strerror(errno));
			return -1;
		}
		r = osb_policy_set_workspace(p, abs, err);
		free(abs);
		if (r < 0)
			return -1;
	}
	for (size_t i = 0; i < o->n_ro; i++) {
		char *abs = realpath(o->ro[i], NULL);
		int r;

		if (!abs) {
			snprintf(err->stage, sizeof(err->stage), "usage");
			snprintf(err->message, sizeof(err->message), "--ro %s: %s", o->ro[i],
			         strerror(errno));
			return -1;
		}
		r = osb_policy_add_readonly(p, abs, err);
		free(abs);
		if (r < 0)
			return -1;
	}
	for (size_t i = 0; i < o->n_write; i++) {
		/* Made absolute but not resolved: a symlink in a write path must
		 * be refused by the verifier, not followed here. */
		char *abs = NULL;
		int r;

		if (o->write[i][0] != '/') {
			char *cwd = getcwd(NULL, 0);

			if (!cwd || asprintf(&abs, "%s/%s", cwd, o->write[i]) < 0)
				abs = NULL;
			free(cwd);
			if (!abs) {
				snprintf(err->stage, sizeof(err->stage), "usage");
				snprintf(err->message, sizeof(err->message), "--write %s: cannot make it "
				         "absolute", o->write[i]);
				return -1;
			}
		}
		r = osb_policy_add_writable(p, abs ? abs : o->write[i], err);
		free(abs);
		if (r < 0)
			return -1;
	}
	if (o->net && osb_policy_set_network(p, 1, err) < 0)
		return -1;
	if (o->timeout) {
		uint64_t ms;

		if (parse_duration_ms(o->timeout, &ms) < 0 || ms == 0) {
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

static int emit_json(const osb_result *res, int fd)
{
	char *json = osb_result_json(res);
	FILE *f;

	if (!json)
		return -1;
	if (fd == STDOUT_FILENO) {
		printf("%s\n", json);
		fflush(stdout);
	} else if ((f = fdopen(dup(fd), "w"))) {
		fprintf(f, "%s\n", json);
		fclose(f);
	}
	osb_free(json);
	return 0;
}

static int cmd_run(int argc, char **argv)
{
	struct run_opts o = { 0 };
	osb_policy *policy = NULL;
	osb_exec *exec = NULL;
	osb_result *res = NULL;
	osb_error err = { 0 };
	int cmd_index = 0, status = EXIT_SETUP, r;
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
	if (o.use_stdin)
		osb_exec_set_stdin_fd(exec, STDIN_FILENO);
	osb_exec_set_capture(exec, o.json || o.result_fd >= 0);
	if (!o.json) {
		osb_exec_set_stdout_fd(exec, STDOUT_FILENO);
		osb_exec_set_stderr_fd(exec, STDERR_FILENO);
	}
	r = osb_run(policy, exec, &res, &err);
	if (!res)
		goto fail;
	status = osb_result_cli_status(res);
	if (o.json)
		emit_json(res, STDOUT_FILENO);
	if (o.result_fd >= 0)
		emit_json(res, o.result_fd);
	if (r < 0 || osb_result_error(res))
		report_error(osb_result_error(res) ? osb_result_error(res) : &err);
	osb_result_free(res);
	osb_exec_free(exec);
	osb_policy_free(policy);
	return status;
fail:
	report_error(&err);
	osb_exec_free(exec);
	osb_policy_free(policy);
	return EXIT_SETUP;
}

int main(int argc, char **argv)
{
	/* A setuid or setgid install would hand the caller our privileges. */
	if (getuid() != geteuid() || getgid() != getegid()) {
		fprintf(stderr, "%s: refusing to run setuid or setgid\n", prog);
		return EXIT_SETUP;
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
	return usage_error("unknown command '%s'", argv[1]);
}

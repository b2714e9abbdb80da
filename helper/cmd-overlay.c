/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* cmd-overlay.c — `osb-isolate session diff ID [--json | --tar FILE|-]`:
 * what an overlay session changed, asked of its holder (holder-overlay.c),
 * which reads the upper layer through the library; the report goes to
 * stdout as it comes. With --tar the client opens FILE (or takes its stdout)
 * and hands the fd to the holder, which writes the archive there
 * (osb_session_export): the file is created with the client's rights.
 * `session commit ID [--json]` applies them to the real workspace
 * (osb_session_commit with OSB_COMMIT_REVIEWED, in the holder: only what
 * the last diff showed, never without one) and prints its report; `session
 * discard ID` ends the session and its layer.
 * Exit status 0, or 125 with the reason on stderr (no such session, not an
 * overlay, a layer that cannot be read or archived, a commit refused or
 * stopped).
 */
#include "osb-isolate.h"
#include "cmd-overlay.h"
#include "session-wire.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

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

/* Copy the holder's 'o' packets to stdout and its 'e' lines to stderr until
 * the status packet: the status, or OSB_EXIT_SETUP (said why). */
static int relay(int fd, const char *id)
{
	char buf[1 + CHUNK];
	int status, out_errno = 0;

	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return session_fail("session %s ended before it answered", id);
		if (buf[0] == 'o' && !out_errno)
			out_errno = write_all(STDOUT_FILENO, buf + 1, (size_t)n - 1);
		else if (buf[0] == 'e')
			(void)write_all(STDERR_FILENO, buf + 1, (size_t)n - 1);
		else if (wire_reply_status(buf, (size_t)n, &status) == 0)
			break;
	}
	if (out_errno)
		return session_fail("cannot write the report to standard output: %s", strerror(out_errno));
	return status;
}

/* Send request TYPE with FLAGS (and FD when >= 0) to session ID, relay the answer. */
static int ask(const char *id, unsigned type, unsigned flags, int fd_out)
{
	struct cli_req h = { .magic = CLI_MAGIC, .type = type, .flags = flags };
	struct where w;
	int fd = -1, r;

	if ((r = session_open(id, &w, &fd)) != 0)
		return r;
	r = wire_send_request(fd, &h, "", 0, &fd_out, fd_out >= 0 ? 1 : 0);
	r = r < 0 ? session_fail("cannot send the request to session %s: %s", id, strerror(-r)) :
	    relay(fd, id);
	close(fd);
	/* A discarded session has ended, as a stopped one: return once its
	 * name is free. */
	if (r == 0 && type == CLI_DISCARD)
		session_wait_gone(&w, 3000);
	return r;
}

static void print_diff_help(void)
{
	printf("Usage: %s session diff ID [OPTION]...\n"
	       "What overlay session ID changed in its workspace, one line per change\n"
	       "(A added, M modified, D deleted); the real workspace is not changed.\n"
	       "A later session commit applies only what the last diff showed.\n\n"
	       "      --json              one JSON object (docs/changes.schema.json)\n"
	       "      --tar FILE          write the changes to FILE (- for standard output) as\n"
	       "                          a tar archive; a deletion is an empty \".wh.NAME\"\n"
	       "  -h, --help              display this help and exit\n", SESSION_PROG);
}

/* The archive's fd: FILE created (or truncated) with our rights, or stdout
 * unless it is a terminal. */
static int open_tar(const char *file, int *fd)
{
	if (strcmp(file, "-") == 0) {
		if (isatty(STDOUT_FILENO))
			return session_fail("diff: --tar -: standard output is a terminal; redirect it "
			                    "or name a file");
		*fd = STDOUT_FILENO;
		return 0;
	}
	*fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY | O_CLOEXEC, 0666);
	if (*fd < 0)
		return session_fail("diff: --tar %s: %s", file, strerror(errno));
	return 0;
}

static int diff_tar(const char *id, const char *file)
{
	int fd = -1, r = open_tar(file, &fd);

	if (r != 0)
		return r;
	r = ask(id, CLI_DIFF, CLI_TAR, fd);
	if (fd != STDOUT_FILENO) {
		close(fd);
		if (r != 0)
			unlink(file);   /* no part of an archive is left behind */
	}
	return r;
}

int session_diff(int argc, char **argv)
{
	const char *id = NULL, *tar = NULL;
	bool json = false;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			json = true;
		} else if (strcmp(argv[i], "--tar") == 0 && i + 1 < argc) {
			tar = argv[++i];
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			print_diff_help();
			return 0;
		} else if (argv[i][0] == '-' || id) {
			return session_fail("diff: unexpected argument '%s' (osb-isolate session diff ID "
			                    "[--json])", argv[i]);
		} else {
			id = argv[i];
		}
	}
	if (!id)
		return session_fail("diff: no session id (osb-isolate session diff ID [--json])");
	if (tar && json)
		return session_fail("diff: --tar and --json cannot be combined");
	return tar ? diff_tar(id, tar) : ask(id, CLI_DIFF, json ? CLI_JSON : 0, -1);
}

/* ID and --json from ARGV (ARGV[0]: the subcommand); -1 after --help. */
static int id_and_json(int argc, char **argv, const char *usage, const char **id, bool *json)
{
	for (int i = 1; i < argc; i++) {
		if (json && strcmp(argv[i], "--json") == 0) {
			*json = true;
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(usage, stdout);
			return -1;
		} else if (argv[i][0] == '-' || *id) {
			return session_fail("%s: unexpected argument '%s'", argv[0], argv[i]);
		} else {
			*id = argv[i];
		}
	}
	return *id ? 0 : session_fail("%s: no session id", argv[0]);
}

int session_commit(int argc, char **argv)
{
	static const char usage[] =
		"Usage: " SESSION_PROG " session commit ID [OPTION]...\n"
		"Apply what overlay session ID changed to its real workspace, beneath it\n"
		"only and never following a symbolic link; refused while a command runs,\n"
		"and unless the changes, and every file's bytes, are what the last\n"
		"session diff showed.\n"
		"Prints what was committed, or after a failure what was and was not applied.\n\n"
		"      --json              the report as one JSON object (docs/commit.schema.json)\n"
		"  -h, --help              display this help and exit\n";
	const char *id = NULL;
	bool json = false;
	int r = id_and_json(argc, argv, usage, &id, &json);

	if (r != 0)
		return r < 0 ? 0 : r;
	return ask(id, CLI_COMMIT, json ? CLI_JSON : 0, -1);
}

int session_discard(int argc, char **argv)
{
	static const char usage[] =
		"Usage: " SESSION_PROG " session discard ID\n"
		"End overlay session ID and throw its changes away; the real workspace is\n"
		"left as it is.\n\n"
		"  -h, --help              display this help and exit\n";
	const char *id = NULL;
	int r = id_and_json(argc, argv, usage, &id, NULL);

	if (r != 0)
		return r < 0 ? 0 : r;
	return ask(id, CLI_DISCARD, 0, -1);
}

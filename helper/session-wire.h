/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* session-wire.h — where a session's socket lives and what travels on it
 * (session-wire.c), for the client commands (cmd-session.c) and the holder
 * (session-holder.c). Tested on its own: tests/unit/check_wire.c.
 */
#ifndef OSB_SESSION_WIRE_H
#define OSB_SESSION_WIRE_H

#include "osb-isolate.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/un.h>

#define SESSION_PROG "osb-isolate"
#define ID_MAX 64
#define REQ_MAX (128 * 1024)
#define CHUNK (32 * 1024)

/* "osb-isolate: session: MESSAGE" on stderr; returns OSB_EXIT_SETUP. */
int session_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- names and paths --------------------------------------------------------- */

struct where {
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char sock[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char lock[sizeof(((struct sockaddr_un *)0)->sun_path) + 8];
};

/* Letters, digits, '.', '_', '-'; not starting with '.' or '-'. */
bool session_id_valid(const char *id);
/* The runtime directory, created 0700 if missing, which must be ours and
 * private: the sockets in it run commands as us. 0 or OSB_EXIT_SETUP. */
int session_runtime_dir(struct where *w);
/* W's socket and lock paths for ID (session_runtime_dir() left room). */
int session_set_paths(struct where *w, const char *id);
/* Both: the directory and ID's paths, after checking ID. */
int session_locate(const char *id, struct where *w);
/* Remove ID's files when no holder (nor its janitor) holds the lock.
 * Returns true when something stale was removed. */
bool session_clean_if_stale(const struct where *w);
/* A connection to W's socket, or -errno (-EREMOTE: whoever listens on it is
 * of another pid namespace, not a holder of ours). */
int session_connect(const struct where *w);
/* Connect to session ID, cleaning up after a dead holder. 0 or OSB_EXIT_SETUP
 * (the reason printed). */
int session_open(const char *id, struct where *w, int *fd);
/* After a request that ends the session (stop, discard): wait, at most MS
 * milliseconds, until its janitor has removed W's lock and socket, so that
 * the name is free and a later request says "no session named ID". */
void session_wait_gone(const struct where *w, unsigned ms);

/* ---- packets ----------------------------------------------------------------- */

#define CLI_MAGIC 0x4f534253u   /* "OSBS" */
enum { CLI_EXEC = 1, CLI_INFO = 2, CLI_STOP = 3 };
enum { CLI_JSON = 1, CLI_STDIN = 2, CLI_TTY = 4 };
/* An overlay session's changes (helper/cmd-overlay.c, helper/holder-overlay.c):
 * no strings; CLI_TAR brings the archive's fd. Replies: 'o' the report, 'e'
 * error lines, 's' the status. */
enum { CLI_DIFF = 16, CLI_COMMIT = 17, CLI_DISCARD = 18 };
enum { CLI_TAR = 8 };
/* session exec --keep-services: what the command starts may outlive it. */
enum { CLI_KEEP = 32 };

/* Followed by cwd (empty: the session's), argv and env, NUL-terminated.
 * SCM_RIGHTS: stdout, stderr, then stdin with CLI_STDIN (a pipe's read end;
 * with CLI_TTY, all three are a pseudo-terminal's slave, handed to the
 * command itself; so are stdout and stderr when they are /dev/null,
 * /dev/zero or /dev/full, see relay_fd_inert). Replies are
 * packets with a tag byte: 'o' bytes for stdout, 'e' a line for stderr,
 * 'i' the info JSON, 's' an int32 exit status (always last). */
struct cli_req {
	uint32_t magic, type, flags, argc, envc, reserved;
	uint64_t timeout_ms;
};

/* Send DATA (LEN bytes) as packets of at most CHUNK bytes, each led by
 * TAG. 0 or -errno. */
int wire_send_tagged(int fd, char tag, const void *data, size_t len);
/* The exit status packet: 's' and an int32. */
int wire_send_status(int fd, int status);
/* Send request H with STRINGS (LEN bytes) and NFDS fds. 0 or -errno. */
int wire_send_request(int fd, const struct cli_req *h, const char *strings, size_t len,
                      const int *fds, int nfds);

/* A received request: header, strings split into cwd/argv/env, and fds. */
struct wire_request {
	struct cli_req h;
	char *buf;
	const char *cwd;
	const char **argv, **env;
	int fds[3], nfds;
};

/* Receive one request (at most 3 fds are kept, the others closed) and
 * check it: 0, -EINVAL (malformed, truncated, wrong magic) or -ENOMEM.
 * Free with wire_request_free() in every case. */
int wire_recv_request(int conn, struct wire_request *rq);
void wire_request_free(struct wire_request *rq);

/* The strings of an exec request: CWD ("" for the session's), ARGV and
 * ENV, each NUL-terminated, as one malloc'd buffer. 0, -ENOMEM, or -E2BIG
 * when the packet would exceed REQ_MAX. */
int wire_exec_strings(const char *cwd, const char *const *argv, size_t argc,
                      const char *const *env, size_t envc, char **strings, size_t *len);
/* The exit status of a status packet BUF (N bytes): 0, or -EINVAL when it
 * is not one. */
int wire_reply_status(const char *buf, size_t n, int *status);

#endif /* OSB_SESSION_WIRE_H */

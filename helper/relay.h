/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* relay.h — the caller's stdin and terminal, kept outside the sandbox
 * (relay.c).
 *
 * A command never holds the caller's own terminal (nor any fd of the
 * caller's but a harmless device): `--stdin` gives it the read end of a
 * pipe that a thread of the CLI fills from the caller's stdin, and `--tty`
 * gives it a pseudo-terminal of its own, which a thread relays to and from
 * the caller's terminal (raw while it runs, restored on every exit). Both
 * end with relay_stop(), after the command has ended.
 */
#ifndef OSB_RELAY_H
#define OSB_RELAY_H

#include <pthread.h>
#include <stdbool.h>
#include <termios.h>

struct relay {
	pthread_t thread;
	bool running;
	bool tty;
	int stop[2];          /* written by relay_stop: the thread ends */
	int in, out;          /* the caller's stdin and stdout (not owned) */
	int pipe_w;           /* --stdin: the pipe's write end (the thread's) */
	int master, slave;    /* --tty: the pseudo-terminal's two sides */
	int out_errno;        /* --tty: why writing the command's output failed */
};

/* A relay that is not running (relay_stop on it does nothing). */
#define RELAY_NONE { .stop = { -1, -1 }, .in = -1, .out = -1, .pipe_w = -1, .master = -1, \
	             .slave = -1 }

/* An fd the command may hold as its stdout or stderr itself: /dev/null,
 * /dev/zero or /dev/full (character devices 1:3, 1:5, 1:7), which reach
 * nothing but the command's own writes and fail them as the host would. */
bool relay_fd_inert(int fd);

/* --stdin: a pipe; *CMD_END (its read end, close-on-exec, owned by the
 * caller) is the command's stdin, filled from IN until EOF (then closed:
 * the command reads EOF), until the command closes it, or relay_stop.
 * Returns 0 or -errno. */
int relay_stdin_start(struct relay *r, int in, int *cmd_end);

/* --tty: a new pseudo-terminal whose slave (r->slave, close-on-exec, owned
 * by the relay) is the command's stdin, stdout and stderr. IN's terminal,
 * if it is one, gives its modes and window size, is switched to raw mode
 * and is restored by relay_stop or, should one of SIGHUP, SIGINT, SIGQUIT
 * and SIGTERM end the process first, by a handler; window changes
 * (SIGWINCH) are forwarded. The command's output goes to OUT. Returns 0 or
 * -errno. */
int relay_tty_start(struct relay *r, int in, int out);

/* --tty: close the relay's copy of the slave once the command holds its
 * own (after it has been passed on). */
void relay_close_slave(struct relay *r);

/* After the command ended: stop the thread (--tty: once the output left
 * in the pseudo-terminal is relayed, within a bound), close what the relay
 * holds (the pseudo-terminal dies with it) and restore the terminal.
 * Returns 0, or --tty the errno of a failed write of the command's output
 * to OUT. Idempotent. */
int relay_stop(struct relay *r);

#endif /* OSB_RELAY_H */

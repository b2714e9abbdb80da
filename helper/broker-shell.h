/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* broker-shell.h — the broker's half of shell-state sessions
 * (broker-shell.c; lib/init-proto.h, SESSION_F_STATE).
 */
#ifndef OSB_BROKER_SHELL_H
#define OSB_BROKER_SHELL_H

#include <stdbool.h>
#include <stddef.h>

/* What a command wrote on its state fd. */
struct shell_state {
	int fd;              /* read end, non-blocking; -1: none */
	char *buf;
	size_t len;
	bool overflow;       /* more than SESSION_MSG_MAX bytes: dropped */
};

#define SHELL_STATE_INIT { -1, NULL, 0, false }

/* A pipe for one command: *ST gets the read end, *WR the write end the
 * child places as SESSION_STATE_FD. 0 or -errno. */
int shell_state_open(struct shell_state *st, int *wr);
/* In the forked child (async-signal-safe): WR becomes SESSION_STATE_FD,
 * kept across execve. 0 or -1. */
int shell_state_child(int wr);
/* Read what is there now (non-blocking); at EOF the fd is closed. */
void shell_state_read(struct shell_state *st);
/* The leader has exited: take what is left, and send it on CHAN as a
 * struct session_state with its bytes (nothing if empty or too long). */
void shell_state_send(int chan, struct shell_state *st);
void shell_state_free(struct shell_state *st);

#endif /* OSB_BROKER_SHELL_H */

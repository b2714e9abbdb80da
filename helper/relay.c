/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* relay.c — the caller's stdin and terminal, kept outside the sandbox.
 *
 * A terminal handed to a sandboxed command is a channel out of the sandbox:
 * it can be written to and reconfigured (tcsetattr, TIOCSETD), and a
 * process that outlives the command keeps it, writing to the user's screen
 * and reading what the user types next. So the command only ever gets
 * descriptors made for it: the read end of a pipe (`--stdin`) or the slave
 * of a new pseudo-terminal (`--tty`, as `ssh -t` does). One thread of the
 * CLI copies between them and the caller's fds, polling a stop pipe so that
 * relay_stop() ends it once the command has ended; the pseudo-terminal is
 * closed then, so whatever still holds its slave is cut off (EIO, SIGHUP).
 * While `--tty` runs, the caller's terminal is in raw mode (keys, ^C
 * included, go to the command's terminal, whose own line discipline turns
 * them into signals); relay_stop() restores it, and so does a handler for
 * the signals that would end the CLI first. The library installs no signal
 * handlers (libosb-isolate(3)); the CLI may.
 */
#include "relay.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#define DRAIN_QUIET_MS 100     /* --tty: output left after the command ends ... */
#define DRAIN_MAX_MS 1000      /* ... is relayed until quiet, at most this long */
#define JOIN_MS 2000           /* a thread stuck in read(2) is left behind */

/* The terminal to restore from a signal handler: one per process. */
static volatile sig_atomic_t saved_fd = -1;
static struct termios saved_mode;
static struct sigaction old_actions[4];
static const int fatal_signals[4] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM };
static volatile sig_atomic_t winch_fd = -1;
static int winch_pipe[2] = { -1, -1 };

bool relay_fd_inert(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode) || major(st.st_rdev) != 1)
		return false;
	return minor(st.st_rdev) == 3 || minor(st.st_rdev) == 5 || minor(st.st_rdev) == 7;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void relay_init(struct relay *r, int in, int out)
{
	memset(r, 0, sizeof(*r));
	r->in = in;
	r->out = out;
	r->stop[0] = r->stop[1] = r->pipe_w = r->master = r->slave = -1;
}

/* Write all of BUF to FD (blocking or not), giving up when STOP (if >= 0)
 * becomes readable. Returns 0, -errno, or -ECANCELED when stopped. */
static int write_until(int fd, const char *buf, size_t len, int stop)
{
	while (len > 0) {
		ssize_t w = write(fd, buf, len);

		if (w < 0 && errno == EAGAIN) {
			struct pollfd p[2] = { { .fd = fd, .events = POLLOUT },
			                       { .fd = stop, .events = POLLIN } };

			if (poll(p, 2, -1) > 0 && p[1].revents)
				return -ECANCELED;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

/* ---- --stdin ------------------------------------------------------------- */

static void *stdin_main(void *arg)
{
	struct relay *r = arg;
	char buf[65536];

	for (;;) {
		struct pollfd p[2] = { { .fd = r->in, .events = POLLIN },
		                       { .fd = r->stop[0], .events = POLLIN } };
		ssize_t n;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		n = read(r->in, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		/* EOF (or an input that fails) is EOF for the command; a write
		 * that fails means the command closed its stdin. */
		if (n <= 0 || write_until(r->pipe_w, buf, (size_t)n, r->stop[0]) < 0)
			break;
	}
	close_fd(&r->pipe_w);
	return NULL;
}

static int start_thread(struct relay *r, void *(*fn)(void *))
{
	int e;

	if (pipe2(r->stop, O_CLOEXEC) < 0)
		return -errno;
	e = pthread_create(&r->thread, NULL, fn, r);
	if (e != 0)
		return -e;
	r->running = true;
	return 0;
}

int relay_stdin_start(struct relay *r, int in, int *cmd_end)
{
	int p[2], e;

	relay_init(r, in, -1);
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	/* Our own end only: the command's end stays blocking. */
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	r->pipe_w = p[1];
	if ((e = start_thread(r, stdin_main)) < 0) {
		close(p[0]);
		relay_stop(r);
		return e;
	}
	*cmd_end = p[0];
	return 0;
}

/* ---- --tty: the caller's terminal --------------------------------------- */

static void restore_and_die(int sig)
{
	int fd = saved_fd;

	if (fd >= 0)
		tcsetattr(fd, TCSADRAIN, &saved_mode);
	/* SA_RESETHAND made the action the default again: once this handler
	 * returns, the signal (blocked while it runs) ends the process. */
	raise(sig);
}

static void on_winch(int sig)
{
	int fd = winch_fd, saved = errno;
	char c = 0;

	(void)sig;
	if (fd >= 0 && write(fd, &c, 1) < 0) {
		/* full: a size change is already pending */
	}
	errno = saved;
}

static void handlers_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = restore_and_die;
	sa.sa_flags = SA_RESETHAND;
	/* A signal ignored (as SIGINT is for a background job) stays ignored. */
	for (size_t i = 0; i < 4; i++)
		if (sigaction(fatal_signals[i], NULL, &old_actions[i]) == 0 &&
		    old_actions[i].sa_handler != SIG_IGN)
			sigaction(fatal_signals[i], &sa, NULL);
	if (pipe2(winch_pipe, O_CLOEXEC | O_NONBLOCK) == 0) {
		winch_fd = winch_pipe[1];
		sa.sa_handler = on_winch;
		sa.sa_flags = SA_RESTART;
		sigaction(SIGWINCH, &sa, NULL);
	}
}

static void handlers_remove(void)
{
	signal(SIGWINCH, SIG_DFL);
	winch_fd = -1;
	close_fd(&winch_pipe[0]);
	close_fd(&winch_pipe[1]);
	for (size_t i = 0; i < 4; i++)
		sigaction(fatal_signals[i], &old_actions[i], NULL);
}

/* The caller's window size onto the pseudo-terminal (which signals the
 * command's foreground process group when it changes). */
static void copy_winsize(const struct relay *r)
{
	struct winsize ws;

	if (ioctl(r->in, TIOCGWINSZ, &ws) == 0 || ioctl(r->out, TIOCGWINSZ, &ws) == 0)
		ioctl(r->master, TIOCSWINSZ, &ws);
}

/* Raw mode for the caller's terminal, saved first for every way out. */
static int enter_raw(const struct relay *r)
{
	struct termios raw;

	if (tcgetattr(r->in, &saved_mode) < 0)
		return -errno;
	/* The command's terminal starts in the modes the caller's had. */
	tcsetattr(r->slave, TCSANOW, &saved_mode);
	handlers_install();
	saved_fd = r->in;
	raw = saved_mode;
	cfmakeraw(&raw);
	if (tcsetattr(r->in, TCSADRAIN, &raw) < 0) {
		int e = errno;

		saved_fd = -1;
		handlers_remove();
		return -e;
	}
	return 0;
}

static void leave_raw(void)
{
	int fd = saved_fd;

	if (fd < 0)
		return;
	tcsetattr(fd, TCSADRAIN, &saved_mode);
	saved_fd = -1;
	handlers_remove();
}

/* ---- --tty: the relay ----------------------------------------------------- */

struct tty_state {
	char in[4096];
	size_t in_len, in_off;   /* input read but not yet taken by the terminal */
	bool in_open, draining, last_nl;
	uint64_t drain_end;
};

/* The caller's input ended and it is not a terminal: the command's terminal
 * reads EOF as it would from a keyboard (VEOF; twice after a partial line). */
static void queue_eof(const struct relay *r, struct tty_state *t)
{
	struct termios m;

	if (tcgetattr(r->master, &m) < 0 || !(m.c_lflag & ICANON))
		return;
	t->in[t->in_len++] = (char)m.c_cc[VEOF];
	if (!t->last_nl)
		t->in[t->in_len++] = (char)m.c_cc[VEOF];
}

static void take_input(const struct relay *r, struct tty_state *t)
{
	ssize_t n = read(r->in, t->in, sizeof(t->in) - 2);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	t->in_off = 0;
	t->in_len = n > 0 ? (size_t)n : 0;
	if (n > 0) {
		t->last_nl = t->in[n - 1] == '\n';
		return;
	}
	t->in_open = false;
	if (!isatty(r->in))
		queue_eof(r, t);
}

/* Returns false when the relay is over (the terminal is gone, or OUT
 * failed: then r->out_errno says why). */
static bool give_output(struct relay *r)
{
	char buf[16384];
	ssize_t n = read(r->master, buf, sizeof(buf));
	int e;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0)
		return false;   /* EIO: no process holds the slave any more */
	e = write_until(r->out, buf, (size_t)n, -1);
	if (e < 0)
		r->out_errno = -e;
	return e == 0;
}

static void give_input(const struct relay *r, struct tty_state *t)
{
	ssize_t w = write(r->master, t->in + t->in_off, t->in_len - t->in_off);

	if (w > 0)
		t->in_off += (size_t)w;
	else if (w < 0 && errno != EAGAIN && errno != EINTR)
		t->in_off = t->in_len;   /* the terminal refuses input: drop it */
	if (t->in_off == t->in_len)
		t->in_off = t->in_len = 0;
}

static void *tty_main(void *arg)
{
	struct relay *r = arg;
	struct tty_state t = { .in_open = true, .last_nl = true };

	for (;;) {
		bool pending = t.in_len > 0;
		struct pollfd p[4] = {
			{ .fd = r->master, .events = (short)(POLLIN | (pending ? POLLOUT : 0)) },
			{ .fd = t.draining ? -1 : r->stop[0], .events = POLLIN },
			{ .fd = winch_pipe[0], .events = POLLIN },
			{ .fd = t.in_open && !pending && !t.draining ? r->in : -1, .events = POLLIN },
		};
		int n = poll(p, 4, t.draining ? DRAIN_QUIET_MS : -1);
		char c[16];

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || (t.draining && now_ms() >= t.drain_end))
			break;
		if (p[1].revents) {
			t.draining = true;
			t.drain_end = now_ms() + DRAIN_MAX_MS;
		}
		if (p[2].revents && read(winch_pipe[0], c, sizeof(c)) > 0)
			copy_winsize(r);
		if (p[3].revents)
			take_input(r, &t);
		if ((p[0].revents & POLLOUT) && t.in_len > 0)
			give_input(r, &t);
		if ((p[0].revents & (POLLIN | POLLHUP | POLLERR)) && !give_output(r))
			break;
	}
	/* The terminal dies here: what still holds the slave is cut off. */
	close_fd(&r->master);
	return NULL;
}

static int open_pty(struct relay *r)
{
	r->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (r->master < 0)
		return -errno;
	if (grantpt(r->master) < 0 || unlockpt(r->master) < 0)
		return -errno;
	/* The slave of this very master, with no path lookup in between. */
	r->slave = ioctl(r->master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (r->slave < 0)
		return -errno;
	fcntl(r->master, F_SETFL, O_NONBLOCK);
	return 0;
}

int relay_tty_start(struct relay *r, int in, int out)
{
	int e;

	relay_init(r, in, out);
	r->tty = true;
	if ((e = open_pty(r)) < 0)
		goto fail;
	copy_winsize(r);
	if (isatty(in) && (e = enter_raw(r)) < 0)
		goto fail;
	if ((e = start_thread(r, tty_main)) < 0)
		goto fail;
	return 0;
fail:
	relay_stop(r);
	return e;
}

void relay_close_slave(struct relay *r)
{
	close_fd(&r->slave);
}

static void join(struct relay *r)
{
	struct timespec ts;
	char c = 0;

	if (!r->running)
		return;
	r->running = false;
	if (write(r->stop[1], &c, 1) < 0) {
		/* cannot fail on a fresh pipe; the join below is bounded anyway */
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += JOIN_MS / 1000;
	/* A thread still blocked in read(2) on an input someone else drained
	 * is left to the process's exit; its fds stay open for it. */
	if (pthread_timedjoin_np(r->thread, NULL, &ts) != 0) {
		r->stop[0] = r->stop[1] = r->pipe_w = r->master = -1;
		return;
	}
}

int relay_stop(struct relay *r)
{
	/* Without our copy of the slave the master reads EIO once the command's
	 * output is relayed (unless something of a session still holds it). */
	relay_close_slave(r);
	join(r);
	close_fd(&r->pipe_w);
	close_fd(&r->master);
	close_fd(&r->stop[0]);
	close_fd(&r->stop[1]);
	if (r->tty)
		leave_raw();
	r->tty = false;
	return r->out_errno;
}

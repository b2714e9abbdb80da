/* run.c — one-shot runs: plan ▸ spawn ▸ supervise ▸ result.
 *
 * Supervision reads four channels besides the command's output: bwrap's own
 * stderr (setup diagnostics), --json-status-fd (the sandbox's pid 1, then the
 * exit code), the init's report pipe ("X" just before exec, or an error line
 * naming the failed stage) and a pidfd on bwrap. A status is reported only
 * when it is known: no exit-code line means no success. The wall timeout
 * kills the sandbox's pid 1 and bwrap with SIGKILL, which takes the whole
 * pid namespace down with them.
 */
#include "bwrap.h"
#include "init-proto.h"
#include "result-internal.h"
#include "proc.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

struct osb_exec {
	strv argv;
	strv env;
	bool env_set;
	int stdin_fd, stdout_fd, stderr_fd;
	bool capture;
	char *cwd;
};

osb_exec *osb_exec_new(const char *const *argv, osb_error *err)
{
	osb_exec *e;

	osb_err_clear(err);
	if (!argv || !argv[0] || !argv[0][0]) {
		osb_err_set(err, OSB_E_USAGE, EINVAL, "usage", "no command given");
		return NULL;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		goto nomem;
	e->stdin_fd = e->stdout_fd = e->stderr_fd = -1;
	for (size_t i = 0; argv[i]; i++)
		if (strv_push(&e->argv, argv[i]) < 0)
			goto nomem;
	return e;
nomem:
	osb_exec_free(e);
	osb_err_set(err, OSB_E_NOMEM, ENOMEM, "usage", "out of memory");
	return NULL;
}

void osb_exec_free(osb_exec *e)
{
	if (!e)
		return;
	strv_free(&e->argv);
	strv_free(&e->env);
	free(e->cwd);
	free(e);
}

int osb_exec_set_stdin_fd(osb_exec *e, int fd) { e->stdin_fd = fd; return 0; }
int osb_exec_set_stdout_fd(osb_exec *e, int fd) { e->stdout_fd = fd; return 0; }
int osb_exec_set_stderr_fd(osb_exec *e, int fd) { e->stderr_fd = fd; return 0; }
int osb_exec_set_capture(osb_exec *e, int on) { e->capture = on != 0; return 0; }

int osb_exec_set_env(osb_exec *e, const char *const *envp)
{
	strv_free(&e->env);
	e->env_set = true;
	for (size_t i = 0; envp && envp[i]; i++)
		if (strv_push(&e->env, envp[i]) < 0)
			return -OSB_E_NOMEM;
	return 0;
}

int osb_exec_set_cwd(osb_exec *e, const char *cwd)
{
	char *c = cwd ? strdup(cwd) : NULL;

	if (cwd && !c)
		return -OSB_E_NOMEM;
	free(e->cwd);
	e->cwd = c;
	return 0;
}

/* ---- supervision ----------------------------------------------------------- */

enum { CH_OUT, CH_ERR, CH_DIAG, CH_STATUS, CH_INIT, CH__COUNT };

typedef struct sup {
	int fd[CH__COUNT];
	int sink[2];                 /* stream copies for CH_OUT, CH_ERR */
	capture cap[2];
	bool capture_on;
	char diag[2048]; size_t diag_len;
	char status[4096]; size_t status_len;
	char init[2048]; size_t init_len;
	int bwrap_pidfd, pid1_pidfd;
	bool have_exit; int exit_code;
	bool timed_out;
} sup;

static void sink_write(int fd, const char *buf, size_t len)
{
	while (fd >= 0 && len > 0) {
		ssize_t w = write(fd, buf, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;   /* a closed reader must not stall the sandbox */
		buf += w;
		len -= (size_t)w;
	}
}

static void append(char *dst, size_t cap, size_t *len, const char *src, size_t n)
{
	if (*len + 1 >= cap)
		return;
	if (n > cap - 1 - *len)
		n = cap - 1 - *len;
	memcpy(dst + *len, src, n);
	*len += n;
	dst[*len] = '\0';
}

/* Status lines: {"child-pid": N, ...} then {"exit-code": N}. Only whole lines
 * are parsed; the keys are bwrap's own. */
static void parse_status(sup *s)
{
	char *line = s->status, *nl;

	while ((nl = memchr(line, '\n', s->status_len - (size_t)(line - s->status)))) {
		char *k;

		*nl = '\0';
		if ((k = strstr(line, "\"child-pid\":")) && s->pid1_pidfd < 0) {
			long pid = strtol(k + 12, NULL, 10);

			if (pid > 0)
				s->pid1_pidfd = pidfd_open_cloexec((pid_t)pid);
		}
		if ((k = strstr(line, "\"exit-code\":"))) {
			s->exit_code = (int)strtol(k + 12, NULL, 10);
			s->have_exit = true;
		}
		line = nl + 1;
	}
	s->status_len -= (size_t)(line - s->status);
	memmove(s->status, line, s->status_len);
}

static int on_readable(sup *s, int ch)
{
	char buf[65536];
	ssize_t n = read(s->fd[ch], buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0) {
		close(s->fd[ch]);
		s->fd[ch] = -1;
		return 0;
	}
	switch (ch) {
	case CH_OUT:
	case CH_ERR:
		sink_write(s->sink[ch], buf, (size_t)n);
		if (capture_add(&s->cap[ch], buf, (size_t)n) < 0)
			return -ENOMEM;
		break;
	case CH_DIAG:
		append(s->diag, sizeof(s->diag), &s->diag_len, buf, (size_t)n);
		break;
	case CH_STATUS:
		append(s->status, sizeof(s->status), &s->status_len, buf, (size_t)n);
		parse_status(s);
		break;
	case CH_INIT:
		append(s->init, sizeof(s->init), &s->init_len, buf, (size_t)n);
		break;
	}
	return 0;
}

static void kill_sandbox(sup *s)
{
	if (s->pid1_pidfd >= 0)
		pidfd_kill(s->pid1_pidfd, SIGKILL);
	pidfd_kill(s->bwrap_pidfd, SIGKILL);
}

/* Poll until bwrap has exited and every channel is at EOF. After bwrap is
 * gone its pid namespace is gone too, so the channels close promptly; a
 * short drain bound guards against a writer we do not know about. */
static int supervise(sup *s, uint64_t wall_ms, int *bwrap_status)
{
	uint64_t start = now_ms(), drain_until = 0;
	bool bwrap_done = false;

	for (;;) {
		struct pollfd pfd[CH__COUNT + 1];
		int map[CH__COUNT + 1], n = 0, timeout = -1;
		uint64_t now = now_ms();

		for (int ch = 0; ch < CH__COUNT; ch++)
			if (s->fd[ch] >= 0) {
				pfd[n] = (struct pollfd){ .fd = s->fd[ch], .events = POLLIN };
				map[n++] = ch;
			}
		if (!bwrap_done) {
			pfd[n] = (struct pollfd){ .fd = s->bwrap_pidfd, .events = POLLIN };
			map[n++] = -1;
			if (wall_ms && !s->timed_out) {
				uint64_t end = start + wall_ms;
				timeout = now >= end ? 0 : (int)(end - now);
			}
		} else {
			if (n == 0 || now >= drain_until)
				return 0;
			timeout = (int)(drain_until - now);
		}
		int r = poll(pfd, (nfds_t)n, timeout);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r == 0 && !bwrap_done && wall_ms && !s->timed_out && now_ms() >= start + wall_ms) {
			s->timed_out = true;
			kill_sandbox(s);
			continue;
		}
		for (int i = 0; r > 0 && i < n; i++) {
			if (!pfd[i].revents)
				continue;
			if (map[i] < 0) {
				if (pidfd_wait(s->bwrap_pidfd, bwrap_status) < 0)
					return -errno;
				bwrap_done = true;
				drain_until = now_ms() + 2000;
			} else if (on_readable(s, map[i]) < 0) {
				kill_sandbox(s);
				return -ENOMEM;
			}
		}
	}
}

/* ---- result ---------------------------------------------------------------- */

static void trim(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

/* Turn "E<stage>\t<errno>\t<message>\n" into the result's error. */
static bool init_error(sup *s, osb_result *res)
{
	char *e = memchr(s->init, INIT_MSG_ERROR, s->init_len);
	char *t1, *t2;

	if (!e)
		return false;
	t1 = strchr(e + 1, '\t');
	t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
	res->has_error = true;
	if (!t1 || !t2) {
		osb_err_set(&res->error, OSB_E_SANDBOX, 0, "init", "malformed report from the init");
		return true;
	}
	*t1 = *t2 = '\0';
	trim(t2 + 1);
	osb_err_set(&res->error, OSB_E_SANDBOX, atoi(t1 + 1), e + 1, "%s", t2 + 1);
	return true;
}

static void fill_result(sup *s, int bwrap_status, osb_result *res)
{
	bool exec_reached = s->init_len > 0 && s->init[0] == INIT_MSG_EXEC;

	trim(s->diag);
	if (init_error(s, res))
		return;
	res->ran = exec_reached;
	if (s->timed_out) {
		res->timed_out = true;
		return;
	}
	if (!exec_reached) {
		res->has_error = true;
		if (s->diag_len)
			osb_err_set(&res->error, OSB_E_SANDBOX, 0, "bwrap",
			            "sandbox setup failed: %s", s->diag);
		else
			osb_err_set(&res->error, OSB_E_SANDBOX, 0, "bwrap",
			            "sandbox setup failed before the command started (bwrap status %d)",
			            WIFEXITED(bwrap_status) ? WEXITSTATUS(bwrap_status) : -1);
		return;
	}
	if (!s->have_exit) {
		res->has_error = true;
		osb_err_set(&res->error, OSB_E_SANDBOX, 0, "supervise",
		            "the command's status is unknown (bwrap %s %d without reporting it)",
		            WIFEXITED(bwrap_status) ? "exited with" : "was killed by signal",
		            WIFEXITED(bwrap_status) ? WEXITSTATUS(bwrap_status) : WTERMSIG(bwrap_status));
		return;
	}
	/* bwrap reports a command killed by signal N as 128+N. */
	if (s->exit_code > 128 && s->exit_code <= 128 + 64)
		res->signal = s->exit_code - 128;
	else
		res->exit_code = s->exit_code;
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static int launch(const plan *pl, const osb_exec *e, sup *s, int *bwrap_status, osb_error *err)
{
	_cleanup_close_ int devnull = -1;
	int w[CH__COUNT], fds[PFD_FIRST_BIND + 64], r;
	strv argv = { 0 };
	size_t nfds;
	pid_t pid;

	if (pl->n_binds > 64)
		return osb_err_set(err, OSB_E_POLICY, 0, "plan", "more than 64 bind mounts");
	for (int ch = 0; ch < CH__COUNT; ch++)
		w[ch] = -1;
	for (int ch = 0; ch < CH__COUNT; ch++) {
		int p[2];

		if (pipe2(p, O_CLOEXEC) < 0) {
			r = osb_err_set(err, OSB_E_IO, errno, "spawn", "pipe: %s", strerror(errno));
			goto out;
		}
		s->fd[ch] = p[0];
		w[ch] = p[1];
		set_nonblock(p[0]);
	}
	if (e->stdin_fd < 0) {
		devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (devnull < 0) {
			r = osb_err_set(err, OSB_E_IO, errno, "spawn", "/dev/null: %s", strerror(errno));
			goto out;
		}
	}
	fds[PFD_STDIN] = e->stdin_fd >= 0 ? e->stdin_fd : devnull;
	fds[PFD_STDOUT] = w[CH_OUT];
	fds[PFD_DIAG] = w[CH_DIAG];
	fds[PFD_STATUS] = w[CH_STATUS];
	fds[PFD_CMD_STDERR] = w[CH_ERR];
	fds[PFD_INIT_ERR] = w[CH_INIT];
	fds[PFD_INIT_EXE] = pl->init_fd;
	fds[PFD_SECCOMP] = pl->seccomp_fd;
	fds[PFD_PASSWD] = pl->passwd_fd;
	fds[PFD_GROUP] = pl->group_fd;
	for (size_t i = 0; i < pl->n_binds; i++)
		fds[pl->binds[i].target] = pl->binds[i].fd;
	nfds = PFD_FIRST_BIND + pl->n_binds;
	if ((r = plan_argv(pl, &argv, err)) < 0)
		goto out;
	r = spawn_with_fds((const char *const *)argv.v, (const char *const *)pl->env.v, fds, nfds,
	                   &pid, &s->bwrap_pidfd, err);
	strv_free(&argv);
	if (r < 0)
		goto out;
	for (int ch = 0; ch < CH__COUNT; ch++) {
		close(w[ch]);
		w[ch] = -1;
	}
	r = supervise(s, pl->p->limit_set[LIM_WALL].set ? pl->p->limits[LIM_WALL] : 0, bwrap_status);
	if (r < 0)
		r = osb_err_set(err, r == -ENOMEM ? OSB_E_NOMEM : OSB_E_IO, -r, "supervise",
		                "supervising the sandbox failed: %s", strerror(-r));
out:
	for (int ch = 0; ch < CH__COUNT; ch++)
		if (w[ch] >= 0)
			close(w[ch]);
	return r;
}

static void sup_free(sup *s)
{
	for (int ch = 0; ch < CH__COUNT; ch++)
		if (s->fd[ch] >= 0)
			close(s->fd[ch]);
	if (s->bwrap_pidfd >= 0)
		close(s->bwrap_pidfd);
	if (s->pid1_pidfd >= 0)
		close(s->pid1_pidfd);
	capture_free(&s->cap[0]);
	capture_free(&s->cap[1]);
}

static int take_output(sup *s, osb_result *res)
{
	bool t1 = false, t2 = false;

	res->out_bytes = s->cap[CH_OUT].total;
	res->err_bytes = s->cap[CH_ERR].total;
	if (!s->capture_on)
		return 0;
	if (capture_take(&s->cap[CH_OUT], &res->out, &res->out_len, &t1) < 0 ||
	    capture_take(&s->cap[CH_ERR], &res->err, &res->err_len, &t2) < 0)
		return -ENOMEM;
	res->truncated = t1 || t2;
	return 0;
}

int osb_run(const osb_policy *p, const osb_exec *e, osb_result **out, osb_error *err)
{
	sup s = { .fd = { -1, -1, -1, -1, -1 }, .bwrap_pidfd = -1, .pid1_pidfd = -1 };
	osb_result *res;
	plan pl;
	int status = 0, r;
	uint64_t start = now_ms();
	uint64_t lim = p && p->limit_set[LIM_OUTPUT].set ? p->limits[LIM_OUTPUT] : 1u << 20;

	osb_err_clear(err);
	if (out)
		*out = NULL;
	res = result_new();
	if (!res)
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "result", "out of memory");
	if (!p || !e) {
		r = osb_err_set(&res->error, OSB_E_USAGE, EINVAL, "usage",
		                "osb_run needs a policy and an exec");
		goto done;
	}
	osb_policy_hash(p, res->policy_hash);
	r = plan_build(p, (const char *const *)e->argv.v,
	               e->env_set ? (const char *const *)e->env.v : NULL, e->cwd, &pl, &res->error);
	if (r < 0)
		goto done;
	res->mode = strdup(pl.userns ? "userns" : "root");
	capture_init(&s.cap[0], e->capture ? lim : 0);
	capture_init(&s.cap[1], e->capture ? lim : 0);
	s.capture_on = e->capture;
	s.sink[0] = e->stdout_fd;
	s.sink[1] = e->stderr_fd;
	r = launch(&pl, e, &s, &status, &res->error);
	plan_free(&pl);
	if (r < 0)
		goto done;
	fill_result(&s, status, res);
	if (take_output(&s, res) < 0)
		r = osb_err_set(&res->error, OSB_E_NOMEM, ENOMEM, "result", "out of memory");
done:
	sup_free(&s);
	res->duration_ms = now_ms() - start;
	if (r < 0)
		res->has_error = true;
	if (res->has_error) {
		if (err)
			*err = res->error;
		r = -(res->error.code ? res->error.code : OSB_E_INTERNAL);
	}
	if (out)
		*out = res;
	else
		osb_result_free(res);
	return r;
}

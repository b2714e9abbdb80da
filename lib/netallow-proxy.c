/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* netallow-proxy.c — starting, stopping and reading the filtering proxy
 * (netallow-proxy.h; the design in docs/ARCHITECTURE.md, "Network
 * allowlists").
 *
 * The proxy (helper/netproxy.c) is a program of its own, started like
 * bwrap with an exact fd table and a fixed environment: the control socket
 * (its end; the other goes to the sandbox's init), the log (a memfd this
 * library reads back), and the hosts file the caller's configuration names,
 * opened here. A root caller's proxy runs as the sandbox's host ids, never
 * root. It lives until the sandbox's end of the control socket is closed by
 * everyone (the sandbox ended, or its caller died) or until it is stopped
 * here, and its connections die with it.
 */
#include "netallow-proxy.h"
#include "fork-hint.h"
#include "netallow.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <strings.h>
#include <json.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define DIAG_MAX 400    /* bytes of a proxy's last diagnostic a message quotes */

static const char remedy[] = "reinstall osb-isolate, or name a working proxy with "
                             "OSB_ISOLATE_NETPROXY or osb_set_program()";

/* The proxy's program: an executable regular file, not setuid. */
static int check_program(const host_facts *h, osb_error *err)
{
	struct stat st;

	if (stat(h->netproxy, &st) < 0)
		return osb_err_set(err, OSB_E_HOST, errno, "netproxy", "\"network allow\" needs the "
		                   "filtering proxy %s%s%s: %s (is osb-isolate installed? "
		                   "OSB_ISOLATE_NETPROXY or osb_set_program() names another)",
		                   h->netproxy_origin ? h->netproxy_origin : "", h->netproxy_origin ? "=" : "",
		                   h->netproxy, strerror(errno));
	if (!S_ISREG(st.st_mode) || !(st.st_mode & S_IXUSR) || (st.st_mode & (S_ISUID | S_ISGID)))
		return osb_err_set(err, OSB_E_HOST, 0, "netproxy", "the filtering proxy %s is not an "
		                   "executable file without setuid or setgid", h->netproxy);
	return 0;
}

static int open_hosts(const osb_policy *p, int *fd, osb_error *err)
{
	*fd = -1;
	if (!p->net_hosts)
		return 0;
	*fd = open(p->net_hosts, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (*fd < 0)
		return osb_err_set(err, OSB_E_HOST, errno, "netproxy", "net-hosts %s: %s",
		                   p->net_hosts, strerror(errno));
	return 0;
}

/* The proxy's argv: the fds of its table, then the entries. */
static int proxy_argv(const osb_policy *p, const host_facts *h, bool hosts, strv *a)
{
	if (strv_push(a, h->netproxy) < 0 || strv_push(a, "--ctl-fd") < 0 || strv_push(a, "3") < 0 ||
	    strv_push(a, "--log-fd") < 0 || strv_push(a, "4") < 0 ||
	    strv_push(a, "--life-fd") < 0 || strv_push(a, "6") < 0 ||
	    (hosts && (strv_push(a, "--hosts-fd") < 0 || strv_push(a, "5") < 0 ||
	               strv_push(a, "--hosts-name") < 0 || strv_push(a, p->net_hosts) < 0)) ||
	    strv_push(a, "--") < 0)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_net_allow; i++)
		if (strv_push(a, p->net_allow[i].s) < 0)
			return -ENOMEM;
	return 0;
}

/* A start that failed, said of the proxy (stage "netproxy"): the remedy
 * only when the program itself could not be executed; a clone that failed
 * names the process limit it met (fork_hint), as every spawn does. */
static int spawn_failed(const netproxy *np, const char *prog, const spawn_failure *f,
                        osb_error *err)
{
	char what[1024];

	spawn_failure_text(f, prog, what, sizeof(what));
	if (f->step == SPAWN_STEP_EXEC)
		return osb_err_set(err, spawn_failure_code(f), f->sys_errno, "netproxy",
		                   "cannot start the filtering proxy %s: %s (%s)", np->name, what, remedy);
	return osb_err_set(err, spawn_failure_code(f), f->sys_errno, "netproxy",
	                   "cannot start the filtering proxy %s: %s%s", np->name, what,
	                   f->step == SPAWN_STEP_CLONE ? fork_hint(f->sys_errno) : "");
}

static int spawn_proxy(const osb_policy *p, const host_facts *h, const spawn_cred *cred,
                       int ctl, int life, netproxy *np, osb_error *err)
{
	_cleanup_close_ int devnull = open("/dev/null", O_RDWR | O_CLOEXEC), hosts = -1;
	strv argv = { 0 };
	spawn_failure f;
	int r;

	if (devnull < 0)
		return osb_err_set(err, OSB_E_IO, errno, "netproxy", "/dev/null: %s", strerror(errno));
	if ((r = open_hosts(p, &hosts, err)) < 0)
		return r;
	if (proxy_argv(p, h, hosts >= 0, &argv) < 0) {
		strv_free(&argv);
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "netproxy", "out of memory");
	}
	/* Its own diagnostics go to the log too, where the result points. */
	r = spawn_start((const char *const *)argv.v, spawn_fixed_env,
	                (const int[]){ devnull, devnull, np->log_fd, ctl, np->log_fd,
	                               hosts >= 0 ? hosts : devnull, life },
	                7, NULL, cred, &np->pid, &np->pidfd, &f);
	strv_free(&argv);
	return r < 0 ? spawn_failed(np, h->netproxy, &f, err) : 0;
}

/* The last line the proxy wrote that is not a decision (its diagnostics go
 * to the log too), without its program's prefix, into BUF; "" if none. */
static void last_diag(const netproxy *np, char *buf, size_t size)
{
	char text[8192], *line, *save = NULL;
	long end = netproxy_log_size(np), keep = (long)sizeof(text) - 1;
	long from = end > keep ? end - keep : 0;
	ssize_t n = end > from ? pread(np->log_fd, text, (size_t)(end - from), from) : 0;

	buf[0] = '\0';
	text[n > 0 ? n : 0] = '\0';
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		static const char self[] = "osb-isolate-netproxy: ";

		if (line[0] == '{')
			continue;
		if (strncmp(line, self, sizeof(self) - 1) == 0)
			line += sizeof(self) - 1;
		snprintf(buf, size, "%.*s", DIAG_MAX, line);
	}
}

/* The proxy's wait status if it has ended, without reaping it (its pid and
 * process group stay ours until netproxy_stop). 1 and *STATUS, or 0. */
static int peek_exit(int pidfd, int *status)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (pidfd < 0 || waitid((idtype_t)P_PIDFD, (id_t)pidfd, &si, WEXITED | WNOHANG | WNOWAIT) < 0 ||
	    si.si_pid == 0)
		return 0;
	*status = si.si_code == CLD_EXITED ? W_EXITCODE(si.si_status, 0) : si.si_status & 0x7f;
	return 1;
}

/* A proxy that ended before it was ready: its status and what it said. */
static int start_died(const netproxy *np, osb_error *err)
{
	char how[64], diag[DIAG_MAX + 1];
	int status = 0;
	struct pollfd p = { .fd = np->pidfd, .events = POLLIN };

	/* Its end of the control socket closes as it exits: let it finish. */
	(void)poll(&p, 1, 1000);
	if (!peek_exit(np->pidfd, &status))
		return osb_err_set(err, OSB_E_SANDBOX, 0, "netproxy", "the filtering proxy %s closed its "
		                   "control socket before it was ready: %s", np->name, remedy);
	wait_status_text(status, how, sizeof(how));
	last_diag(np, diag, sizeof(diag));
	return osb_err_set(err, OSB_E_SANDBOX, 0, "netproxy", "the filtering proxy %s %s before it "
	                   "was ready: %s", np->name, how, diag[0] ? diag : remedy);
}

/* Wait for NETPROXY_READY on CTL (the sandbox's end, not yet handed on). */
static int wait_ready(const netproxy *np, int ctl, osb_error *err)
{
	uint64_t deadline = now_ms() + NETPROXY_READY_MS;

	for (;;) {
		struct pollfd p[2] = { { ctl, POLLIN, 0 }, { np->pidfd, POLLIN, 0 } };
		uint64_t now = now_ms();
		char byte = 0;
		ssize_t n;
		int r;

		if (now >= deadline)
			return osb_err_set(err, OSB_E_SANDBOX, ETIMEDOUT, "netproxy", "the filtering proxy "
			                   "%s did not report ready within %d ms (it was killed): %s",
			                   np->name, NETPROXY_READY_MS, remedy);
		r = poll(p, 2, (int)(deadline - now));
		if (r < 0 && errno != EINTR)
			return osb_err_set(err, OSB_E_IO, errno, "netproxy", "poll: %s", strerror(errno));
		if (r <= 0)
			continue;
		if (p[1].revents)
			return start_died(np, err);
		n = recv(ctl, &byte, 1, MSG_DONTWAIT);
		if (n == 1 && byte == NETPROXY_READY)
			return 0;
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			return start_died(np, err);
	}
}

/* "ORIGIN=PATH" when something other than the default named the program. */
static char *program_name(const host_facts *h)
{
	char *name = NULL;

	if (asprintf(&name, "%s%s%s", h->netproxy_origin ? h->netproxy_origin : "",
	             h->netproxy_origin ? "=" : "", h->netproxy) < 0)
		return NULL;
	return name;
}

int netproxy_start(const osb_policy *p, const host_facts *h, const spawn_cred *cred,
                   netproxy *np, osb_error *err)
{
	int sv[2], life[2], r;

	*np = (netproxy)NETPROXY_INIT;
	if ((r = check_program(h, err)) < 0)
		return r;
	if (!(np->name = program_name(h)))
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "netproxy", "out of memory");
	np->log_fd = memfd_create("osb-netlog", MFD_CLOEXEC);
	if (np->log_fd < 0) {
		r = osb_err_set(err, OSB_E_IO, errno, "netproxy", "cannot create the proxy's log: %s",
		                strerror(errno));
		netproxy_free(np);
		return r;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		r = osb_err_set(err, OSB_E_IO, errno, "netproxy", "socketpair: %s", strerror(errno));
		netproxy_free(np);
		return r;
	}
	/* The lifeline: its write end is this process's alone, so the proxy
	 * sees its caller die even where the sandbox outlives it. */
	if (pipe2(life, O_CLOEXEC) < 0) {
		r = osb_err_set(err, OSB_E_IO, errno, "netproxy", "pipe: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		netproxy_free(np);
		return r;
	}
	np->life_fd = life[1];
	r = spawn_proxy(p, h, cred, sv[0], life[0], np, err);
	close(sv[0]);
	close(life[0]);
	if (r == 0)
		r = wait_ready(np, sv[1], err);
	if (r < 0) {
		close(sv[1]);
		netproxy_free(np);
		return r;
	}
	np->ctl_fd = sv[1];
	np->port = NETPROXY_PORT;
	return 0;
}

int netproxy_check(const netproxy *np, bool after_end, bool session, osb_error *err)
{
	char how[64];
	int status = 0;

	if (!np->port || !peek_exit(np->pidfd, &status))
		return 0;
	/* Once the sandbox is gone the proxy's end of the control socket reads
	 * EOF and it exits 0 by itself: that is the end it is meant to have. */
	if (after_end && WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	wait_status_text(status, how, sizeof(how));
	return osb_err_set(err, OSB_E_SANDBOX, 0, "netproxy", "%s filtering proxy %s %s while the "
	                   "sandbox ran: connections through it failed from then on%s",
	                   session ? "the session's" : "the", np->name, how,
	                   session ? "; start a new session" : "");
}

void netproxy_stop(netproxy *np)
{
	int st;

	if (np->pidfd < 0)
		return;
	helper_kill(np->pid, np->pidfd);
	pidfd_wait(np->pidfd, &st);
	close(np->pidfd);
	np->pidfd = -1;
}

void netproxy_free(netproxy *np)
{
	netproxy_stop(np);
	if (np->ctl_fd >= 0)
		close(np->ctl_fd);
	if (np->log_fd >= 0)
		close(np->log_fd);
	if (np->life_fd >= 0)
		close(np->life_fd);
	free(np->name);
	*np = (netproxy)NETPROXY_INIT;
}

/* ---- the log ------------------------------------------------------------------ */

static int add_refusal(netproxy_refusal **v, size_t *n, size_t *cap, const char *host,
                       unsigned port)
{
	netproxy_refusal *nv;

	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].port == port && strcmp((*v)[i].host, host) == 0) {
			(*v)[i].count++;
			return 0;
		}
	if (!(nv = array_grow(*v, cap, *n, sizeof(*nv))))
		return -ENOMEM;
	*v = nv;
	if (!(nv[*n].host = strdup(host)))
		return -ENOMEM;
	nv[*n].port = port;
	nv[(*n)++].count = 1;
	return 0;
}

/* One line: an allowed connection counts, a refused one is added. */
static int log_line(const char *line, netproxy_refusal **v, size_t *n, size_t *cap,
                    unsigned long *allowed)
{
	json_object *o = json_tokener_parse(line), *a, *h, *pt;
	int r = 0;

	if (!o)
		return 0;   /* the proxy's own diagnostics */
	if (json_object_object_get_ex(o, "action", &a) &&
	    strcmp(json_object_get_string(a), "allowed") == 0)
		(*allowed)++;
	else if (a && json_object_object_get_ex(o, "host", &h) &&
	         json_object_object_get_ex(o, "port", &pt))
		r = add_refusal(v, n, cap, json_object_get_string(h),
		                (unsigned)json_object_get_int(pt));
	json_object_put(o);
	return r;
}

long netproxy_log_size(const netproxy *np)
{
	struct stat st;

	return np->log_fd >= 0 && fstat(np->log_fd, &st) == 0 ? (long)st.st_size : 0;
}

/* The count of the marker that ends the log, read as one JSON object. */
static long read_marker(const netproxy *np)
{
	char tail[128], *line;
	long size = netproxy_log_size(np), from = size > 127 ? size - 127 : 0;
	ssize_t n = size > from ? pread(np->log_fd, tail, (size_t)(size - from), from) : 0;
	json_object *o, *a, *d;
	long dropped = 0;

	if (n <= 1 || tail[n - 1] != '\n')
		return 0;
	tail[n - 1] = '\0';
	line = strrchr(tail, '\n') ? strrchr(tail, '\n') + 1 : tail;
	if (!(o = json_tokener_parse(line)))
		return 0;
	if (json_object_object_get_ex(o, "action", &a) &&
	    strcmp(json_object_get_string(a), "truncated") == 0 &&
	    json_object_object_get_ex(o, "dropped", &d))
		dropped = (long)json_object_get_int64(d);
	json_object_put(o);
	return dropped;
}

long netproxy_log_dropped(const netproxy *np)
{
	long a = read_marker(np), b;

	/* The proxy rewrites the count in place: read until two reads agree. */
	for (int i = 0; i < 8 && (b = read_marker(np)) != a; i++)
		a = b;
	return a;
}

int netproxy_read_log(const netproxy *np, long from, netproxy_refusal **out, size_t *n,
                      unsigned long *allowed)
{
	struct stat st;
	size_t cap = 0, len;
	char *buf, *save = NULL;
	int r = 0;

	*out = NULL;
	*n = 0;
	*allowed = 0;
	if (np->log_fd < 0 || fstat(np->log_fd, &st) < 0 || st.st_size <= from)
		return 0;
	len = (size_t)(st.st_size - from) < NETPROXY_LOG_MAX ? (size_t)(st.st_size - from)
	                                                     : NETPROXY_LOG_MAX;
	if (!(buf = malloc(len + 1)))
		return -ENOMEM;
	len = pread(np->log_fd, buf, len, from) > 0 ? len : 0;
	buf[len] = '\0';
	for (char *l = strtok_r(buf, "\n", &save); l && r == 0; l = strtok_r(NULL, "\n", &save))
		r = log_line(l, out, n, &cap, allowed);
	free(buf);
	if (r < 0) {
		netproxy_refusals_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return r;
}

void netproxy_refusals_free(netproxy_refusal *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].host);
	free(v);
}

/* ---- the command's environment ---------------------------------------------------- */

int netproxy_env(strv *env)
{
	static const char *const names[] = { "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy",
	                                     "https_proxy", "no_proxy" };
	size_t k = 0;

	for (size_t i = 0; i < env->n; i++) {
		bool ours = false;

		for (size_t j = 0; j < sizeof(names) / sizeof(names[0]) && !ours; j++)
			ours = strncmp(env->v[i], names[j], strlen(names[j])) == 0 &&
			       env->v[i][strlen(names[j])] == '=';
		if (ours)
			free(env->v[i]);
		else
			env->v[k++] = env->v[i];
	}
	env->n = k;
	if (env->v)
		env->v[k] = NULL;
	for (size_t j = 0; j < sizeof(names) / sizeof(names[0]); j++) {
		bool no = strcasecmp(names[j], "no_proxy") == 0;
		int r = no ? strv_pushf(env, "%s=localhost,127.0.0.1,::1", names[j])
		           : strv_pushf(env, "%s=http://127.0.0.1:%d", names[j], NETPROXY_PORT);

		if (r < 0)
			return -ENOMEM;
	}
	return 0;
}

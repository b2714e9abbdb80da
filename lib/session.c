/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* session.c — persistent sessions: the library side of the broker protocol.
 *
 * A session is a one-shot sandbox whose init serves instead of exec'ing
 * (lib/init-proto.h, "Session mode"): the same plan, the same bwrap launch
 * and startup supervision (run.c), with the init as the sandbox's pid 1.
 * Each command gets a private reply channel (a SOCK_SEQPACKET socketpair)
 * that travels with its request, so replies never need demultiplexing and a
 * proc's channel doubles as its waitable fd; the command's stdio fds travel
 * with the request too, so its bytes never pass through the broker. There is
 * no thread, no signal handler and no waitpid here: the only child is bwrap,
 * waited through its pidfd. A mutex per session guards its state; every proc
 * holds a reference, so a session's memory outlives its last proc.
 */
#include "exec.h"
#include "supervise.h"
#include "init-proto.h"
#include "outcome.h"
#include "bwrap.h"
#include "launch.h"
#include "proc.h"
#include "session-owner.h"
#include "shell-state.h"
#include "session.h"
#include "result-net.h"

#include <fcntl.h>
#include <json.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>

#define DEFAULT_MAX_EXECS 64u
#define MAX_MAX_EXECS 4096u
#define START_TIMEOUT_MS 30000u
/* After a command's leader has exited, its group is dead: what it wrote is
 * already in the pipes. Only a process that left the group can hold them
 * open longer; it is not waited for beyond this. */
#define DRAIN_MS 500u

/* What the getters report (osb_session_last_activity, ..._idle_remaining_ms),
 * updated under the session's lock as commands start and end. */
typedef struct session_clock {
	int64_t last_unix_ms;     /* the last start or end, CLOCK_REALTIME */
	uint64_t idle_since;      /* CLOCK_MONOTONIC ms of the last end (or the start) */
	uint64_t idle_ms;         /* the idle timeout; 0: none */
} session_clock;

/* A session this process attached to (osb_session_attach) has no sandbox
 * of its own: its owner serves it on LINK, which is readable once the
 * sandbox has ended. DETACHED: this process detached its own session,
 * whose owner then outlives it. */
typedef struct session_link {
	int fd;                   /* the owner's link; -1 for a session we started */
	int pid1;                 /* pid 1's pidfd (attached) */
	bool detached;
	bool kept;                /* freed without destroy: the session lives on */
} session_link;

/* A shell-state session's carried state: what the last command left. */
typedef struct session_shell {
	bool on;
	bool have;                /* a command has left a state */
	bool lost;                /* one could not be kept (out of memory): commands refused */
	char *cwd;
	strv env;
	uint64_t dropped;         /* carried variables refused by "env deny", in all */
} session_shell;

/* The first malformed report the session's broker sent (session_broken):
 * none while WHAT is NULL. From then on the broker cannot be trusted, and
 * every request to it is refused (session_usable); its sandbox is stopped,
 * as the commands in it can no longer be tracked (OSB_SESSION_END_BROKEN). */
typedef struct session_fault {
	const char *what;         /* "exit report", "layer reply", ... (static) */
	char how[64];             /* "56 bytes" */
} session_fault;

struct osb_session_opts {
	uint64_t idle_ms;
	unsigned max_execs;
	strv env;
	bool env_set;
	bool shell_state;
};

struct osb_session {
	pthread_mutex_t lock;
	unsigned refs;            /* the caller's, plus one per proc */
	bool destroyed;
	bool stopped;             /* its sandbox was stopped (session_stop) */
	int sock;                 /* requests to the broker; -1 once destroyed */
	sandbox *sb;
	unsigned running, max_execs;
	strv env;                 /* the session's environment, from the plan */
	strv watch;               /* its sized tmpfs mounts, as the broker numbers them */
	strv deny;                /* the policy's "env deny" patterns */
	strv deny_origin;         /* where each comes from ("file:line") */
	uint64_t wall_ms, output_limit;
	char wall_origin[POLICY_ORIGIN_MAX];
	char policy_hash[OSB_POLICY_HASH_LEN];
	const char *ws_mode;      /* the policy's workspace mode (static) */
	char *mode;
	strv prot_path, prot_why;  /* what the plan protected (result "protected") */
	hostid host;              /* its host ids, locked until the session is gone */
	placeholders made;        /* the plan's, removed once the sandbox is gone */
	limits_state lim;         /* the plan's cgroup, removed once the sandbox is gone */
	session_clock clock;      /* activity and idleness, for the getters */
	session_link link;        /* detached or attached (lib/session-owner.h) */
	session_shell sh;         /* shell-state sessions (lib/shell-state.h) */
	session_fault broken;     /* its broker's first malformed report */
	session_overlay ov;       /* an overlay workspace's (session-overlay.h) */
	netproxy net;             /* "network allow": the plan's proxy, stopped with the sandbox */
};

struct osb_proc {
	osb_session *s;
	int chan, in, out, err;
	pid_t pid;
	bool done, lost, counted;
	osb_status st;
	uint64_t start;
	uint64_t started_ns, exited_ns;   /* the broker's "started" and "exited" arrived (now_ns) */
	uint32_t full;            /* the watched tmpfs mounts full at its exit (bit K: s->watch.v[K]) */
	osb_error why;            /* lost: the malformed report that lost it; else, with
	                           * st.proxy_died, the proxy's end (read_exit) */
};

/* ---- options ---------------------------------------------------------------- */

osb_session_opts *osb_session_opts_new(void)
{
	osb_session_opts *o = calloc(1, sizeof(*o));

	if (o)
		o->max_execs = DEFAULT_MAX_EXECS;
	return o;
}

void osb_session_opts_free(osb_session_opts *o)
{
	if (!o)
		return;
	strv_free(&o->env);
	free(o);
}

int osb_session_opts_set_idle_timeout_ms(osb_session_opts *o, uint64_t ms)
{
	if (!o)
		return -OSB_E_USAGE;
	o->idle_ms = ms;
	return 0;
}

int osb_session_opts_set_max_execs(osb_session_opts *o, unsigned n)
{
	if (!o || n == 0 || n > MAX_MAX_EXECS)
		return -OSB_E_USAGE;
	o->max_execs = n;
	return 0;
}

int osb_session_opts_set_env(osb_session_opts *o, const char *const *envp)
{
	if (!o)
		return -OSB_E_USAGE;
	strv_free(&o->env);
	o->env_set = true;
	for (size_t i = 0; envp && envp[i]; i++)
		if (strv_push(&o->env, envp[i]) < 0)
			return -OSB_E_NOMEM;
	return 0;
}

int osb_session_opts_set_shell_state(osb_session_opts *o, int on)
{
	if (!o)
		return -OSB_E_USAGE;
	o->shell_state = on != 0;
	return 0;
}

/* The idle timeout OPTS hold. */
uint64_t osb_session_opts_idle_timeout_ms(const osb_session_opts *o)
{
	return o ? o->idle_ms : 0;
}

/* ---- start ------------------------------------------------------------------- */

/* A command started or ended now (with the lock held, or before the
 * session is shared). */
static void session_touch(osb_session *s)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	s->clock.last_unix_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	s->clock.idle_since = now_ms();
}


/* What the session needs from the policy and the plan after start: the
 * caller may free the policy once osb_session_start returns. */
static int session_copy(osb_session *s, const osb_policy *p, const plan *pl, osb_error *err)
{
	const char *watch[INIT_MAX_WATCH];
	size_t n_watch = bwrap_watch_full(p, watch);

	for (size_t i = 0; i < pl->env.n; i++)
		if (strv_push(&s->env, pl->env.v[i]) < 0)
			goto nomem;
	for (size_t i = 0; i < pl->git.n; i++) {
		const pol_str *g = &pl->git.v[i];

		if ((strncmp(g->s, "workspace:", 10) == 0 ?
		     strv_pushf(&s->prot_path, "%s/%s", pl->ws_dest, g->s + 10) :
		     strv_push(&s->prot_path, g->s)) < 0 ||
		    strv_pushf(&s->prot_why, "%s:%u", g->o.file, g->o.line) < 0)
			goto nomem;
	}
	for (size_t i = 0; i < n_watch; i++)
		if (strv_push(&s->watch, watch[i]) < 0)
			goto nomem;
	for (size_t i = 0; i < p->n_env_deny; i++) {
		char o[POLICY_ORIGIN_MAX];

		policy_origin_format(&p->env_deny[i].o, o, sizeof(o));
		if (strv_push(&s->deny, p->env_deny[i].s) < 0 || strv_push(&s->deny_origin, o) < 0)
			goto nomem;
	}
	s->wall_ms = policy_wall_ms(p);
	policy_wall_origin(p, s->wall_origin, sizeof(s->wall_origin));
	s->output_limit = policy_output_limit(p);
	osb_policy_hash(p, s->policy_hash);
	s->ws_mode = policy_ws_names[p->ws_mode];
	s->mode = strdup(pl->userns ? "userns" : "root");
	s->host = pl->host;
	if (!s->mode)
		goto nomem;
	return session_overlay_copy(&s->ov, pl, err);
nomem:
	return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "session", "out of memory");
}

static void session_link_close(session_link *l)
{
	if (l->fd >= 0)
		close(l->fd);
	if (l->pid1 >= 0)
		close(l->pid1);
	l->fd = l->pid1 = -1;
}

/* A detached session freed without osb_session_destroy lives on: what it
 * holds on the host stays (its owner removes the cgroup after it; the
 * placeholders of its read-only paths are left). */
static void session_forget(osb_session *s)
{
	for (size_t i = 0; i < s->made.n_held; i++)
		close(s->made.held[i]);
	for (size_t i = 0; i < s->made.n; i++) {
		close(s->made.v[i].parent_fd);
		free(s->made.v[i].name);
	}
	free(s->made.v);
	free(s->made.held);
	s->made = (placeholders){ NULL, 0, NULL, 0 };
	cgroup_release(s->lim.cg);
	s->lim.cg = NULL;
}

static void session_release(osb_session *s)
{
	session_link_close(&s->link);
	if (s->link.kept)
		session_forget(s);
	if (s->sb) {
		if (!s->link.kept)
			sandbox_stop(s->sb);
		sandbox_free(s->sb);
	}
	if (s->sock >= 0)
		close(s->sock);
	strv_free(&s->env);
	strv_free(&s->watch);
	strv_free(&s->prot_path);
	strv_free(&s->prot_why);
	strv_free(&s->deny_origin);
	strv_free(&s->deny);
	free(s->mode);
	free(s->sh.cwd);
	strv_free(&s->sh.env);
	session_overlay_release(&s->ov);
	placeholders_remove(&s->made);
	hostid_release(&s->host);
	limits_release(&s->lim);
	netproxy_free(&s->net);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* Every handle, started or attached, begins here: each member that names
 * an fd, a process or a lock holds its "none" (-1), never 0, which is fd 0
 * and, for a process, the caller's own group. */
static osb_session *session_alloc(osb_error *err)
{
	osb_session *s = calloc(1, sizeof(*s));

	if (!s) {
		osb_err_set(err, OSB_E_NOMEM, ENOMEM, "session", "out of memory");
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	s->refs = 1;
	s->sock = -1;
	s->net = (netproxy)NETPROXY_INIT;
	s->link = (session_link){ .fd = -1, .pid1 = -1 };
	s->host = (hostid)HOSTID_INIT;
	s->ov = SESSION_OVERLAY_INIT;
	return s;
}

osb_session *osb_session_start_opts(const osb_policy *p, const osb_session_opts *o,
                                    osb_error *err)
{
	osb_session *s;
	strv argv = { 0 };
	plan pl;
	int sv[2], r;

	osb_err_clear(err);
	if (!p) {
		osb_err_set(err, OSB_E_USAGE, EINVAL, "usage", "osb_session_start needs a policy");
		return NULL;
	}
	if (!(s = session_alloc(err)))
		return NULL;
	s->max_execs = o ? o->max_execs : DEFAULT_MAX_EXECS;
	s->clock.idle_ms = o ? o->idle_ms : 0;
	s->sh.on = o && o->shell_state;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		osb_err_set(err, OSB_E_IO, errno, "session", "socketpair: %s", strerror(errno));
		session_release(s);
		return NULL;
	}
	s->sock = sv[0];
	r = launch_prepare(p, &(plan_request){ o && o->env_set ? (const char *const *)o->env.v : NULL,
	                                       NULL, true, 0 }, &pl, err);
	if (r < 0)
		goto fail;
	if ((r = session_copy(s, p, &pl, err)) == 0 &&
	    (r = bwrap_argv_session(&pl, o ? o->idle_ms : 0, &argv, err)) == 0)
		r = sandbox_start(&pl, &argv, sv[1], START_TIMEOUT_MS, &s->sb, err);
	/* The session keeps the lock of its host ids, and the placeholders its
	 * read-only rules need, for as long as it lives. */
	if (s->host.lock_fd == pl.host.lock_fd)
		pl.host.lock_fd = -1;
	if (r == 0) {
		s->made = pl.made;
		pl.made = (placeholders){ NULL, 0, NULL, 0 };
		s->lim = pl.lim;
		pl.lim.cg = NULL;
		/* The proxy lives as long as the session; the sandbox's end of its
		 * control socket is the sandbox's alone from now on. */
		s->net = pl.net;
		pl.net = (netproxy)NETPROXY_INIT;
		if (s->net.ctl_fd >= 0)
			close(s->net.ctl_fd);
		s->net.ctl_fd = -1;
	}
	strv_free(&argv);
	plan_free(&pl);
fail:
	close(sv[1]);
	if (r < 0) {
		session_release(s);
		return NULL;
	}
	session_touch(s);
	return s;
}

osb_session *osb_session_start(const osb_policy *p, osb_error *err)
{
	return osb_session_start_opts(p, NULL, err);
}

int osb_session_fd(const osb_session *s)
{
	return s && s->sb ? sandbox_fd(s->sb) : s ? s->link.fd : -1;
}

/* ---- state ------------------------------------------------------------------- */

/* The init's exit status once the sandbox has ended, else -1: from bwrap's
 * json status, or what an attached session's owner reported. */
static int session_exit_code(osb_session *s)
{
	int status;

	if (s->sb)
		return sandbox_exit_code(s->sb);
	if (owner_ended(s->link.fd, &status) != 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}


static bool sandbox_ended(osb_session *s)
{
	struct pollfd p = { .fd = osb_session_fd(s), .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

/* Has the session's filtering proxy ended by itself? 0, or -OSB_E_SANDBOX
 * with ERR filled (netproxy_check: stage "netproxy"). Once the sandbox has
 * ended, the proxy's exit 0 is the end it is meant to have. */
static int session_proxy_check(osb_session *s, osb_error *err)
{
	int r;

	pthread_mutex_lock(&s->lock);
	r = s->net.port ? netproxy_check(&s->net, s->destroyed || sandbox_ended(s), true, err) : 0;
	pthread_mutex_unlock(&s->lock);
	return r;
}

/* With the lock held: why SESSION cannot take a command, or 0. */
static int session_usable(osb_session *s, osb_error *err)
{
	int code;

	if (s->destroyed)
		return osb_err_set(err, OSB_E_USAGE, 0, "session",
		                   "the session was destroyed; start a new one");
	if (s->broken.what)
		return osb_err_set(err, OSB_E_SANDBOX, EPROTO, "session", "the session's broker sent "
		                   "a malformed %s earlier (%s): the session is unusable; destroy it",
		                   s->broken.what, s->broken.how);
	if (!sandbox_ended(s))
		return 0;
	code = session_exit_code(s);
	if (code == INIT_EXIT_IDLE)
		return osb_err_set(err, OSB_E_SANDBOX, 0, "session",
		                   "the session ended after its idle timeout; start a new one");
	return osb_err_set(err, OSB_E_SANDBOX, 0, "session",
	                   "the session's sandbox has ended (%s %d); start a new one",
	                   code >= 0 ? "exit status" : "no status,", code);
}

/* With the lock held: the refusal of a shell-state session whose state is
 * lost (take_state), or 0. A command would start from an older state than
 * the one the last command left, which the caller did not ask for. */
static int shell_state_lost(const osb_session *s, osb_error *err)
{
	if (!s->sh.lost)
		return 0;
	return osb_err_set(err, OSB_E_SANDBOX, ENOMEM, "session", "the session lost its shell "
	                   "state: what an earlier command left (its working directory and "
	                   "exported variables) could not be kept (out of memory), and a command "
	                   "now would start from an older state; destroy the session and start a "
	                   "new one");
}

/* Reserve a command slot and a reference for a new proc. */
static int session_enter(osb_session *s, osb_error *err)
{
	int r;

	pthread_mutex_lock(&s->lock);
	r = session_usable(s, err);
	if (r == 0)
		r = shell_state_lost(s, err);
	if (r == 0 && s->running >= s->max_execs)
		r = osb_err_set(err, OSB_E_USAGE, EBUSY, "session",
		                "the session already runs %u commands, its maximum; wait for one "
		                "to finish (osb_session_opts_set_max_execs sets the maximum)",
		                s->max_execs);
	if (r == 0) {
		s->running++;
		s->refs++;
		session_touch(s);
	}
	pthread_mutex_unlock(&s->lock);
	return r;
}

static void session_unref(osb_session *s)
{
	unsigned left;

	pthread_mutex_lock(&s->lock);
	left = --s->refs;
	pthread_mutex_unlock(&s->lock);
	if (left == 0)
		session_release(s);
}

/* The proc no longer counts against the maximum of concurrent commands. */
static void proc_uncount(osb_proc *pr)
{
	if (!pr->counted)
		return;
	pr->counted = false;
	pthread_mutex_lock(&pr->s->lock);
	pr->s->running--;
	session_touch(pr->s);
	pthread_mutex_unlock(&pr->s->lock);
}

/* ---- requests ------------------------------------------------------------------ */

static bool env_name_ok(const char *s, size_t len)
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!(s[i] == '_' || (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z')))
			return false;
	return true;
}

/* The index of the first deny pattern matching NAME, or -1. */
static ssize_t env_denied(const osb_session *s, const char *name)
{
	for (size_t i = 0; i < s->deny.n; i++)
		if (env_deny_match(s->deny.v[i], name))
			return (ssize_t)i;
	return -1;
}

/* Refuse ENTRY of the exec's environment when malformed or denied: the
 * caller asked for it by name, so dropping it would change the command
 * behind the caller's back (unlike the caller's environment at start,
 * which the policy filters by design). */
static int env_check(const osb_session *s, const char *entry, osb_error *err)
{
	const char *eq = strchr(entry, '=');
	size_t len = eq ? (size_t)(eq - entry) : 0;
	_cleanup_free_ char *name = NULL;
	ssize_t d;

	if (!eq || !env_name_ok(entry, len))
		return osb_err_set(err, OSB_E_POLICY, EINVAL, "env",
		                   "environment entry \"%s\" is not NAME=VALUE with a name of "
		                   "letters, digits and '_'; fix it", entry);
	name = strndup(entry, len);
	if (!name)
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "session", "out of memory");
	d = env_denied(s, name);
	if (d >= 0)
		return osb_err_set(err, OSB_E_POLICY, EPERM, "env",
		                   "environment variable %s matches the policy's \"env deny %s\" "
		                   "(%s); remove it from the command's environment", name,
		                   s->deny.v[d], s->deny_origin.v[d]);
	return 0;
}

/* One entry of the exec's environment over OUT (checked by env_check). */
static int env_put(strv *out, const char *entry)
{
	size_t len = strcspn(entry, "=");
	char *copy;

	for (size_t i = 0; i < out->n; i++)
		if (strncmp(out->v[i], entry, len + 1) == 0) {
			copy = strdup(entry);
			if (!copy)
				return -ENOMEM;
			free(out->v[i]);
			out->v[i] = copy;
			return 0;
		}
	return strv_push(out, entry);
}

/* The command's environment: the session's, then the exec's entries. */
static int env_overlay(const osb_session *s, const strv *base, const osb_exec *e, strv *out,
                       osb_error *err)
{
	int r;

	for (size_t i = 0; e->env_set && i < e->env.n; i++)
		if ((r = env_check(s, e->env.v[i], err)) < 0)
			return r;
	for (size_t i = 0; i < base->n; i++)
		if (strv_push(out, base->v[i]) < 0)
			goto nomem;
	for (size_t i = 0; e->env_set && i < e->env.n; i++)
		if (env_put(out, e->env.v[i]) < 0)
			goto nomem;
	return 0;
nomem:
	return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "session", "out of memory");
}

static size_t strings_size(const strv *v)
{
	size_t n = 0;

	for (size_t i = 0; i < v->n; i++)
		n += strlen(v->v[i]) + 1;
	return n;
}

static char *put_string(char *p, const char *s)
{
	size_t n = strlen(s) + 1;

	memcpy(p, s, n);
	return p + n;
}

static int strv_copy(strv *out, const strv *in)
{
	for (size_t i = 0; i < in->n; i++)
		if (strv_push(out, in->v[i]) < 0)
			return -ENOMEM;
	return 0;
}

/* The script's path in the command (lib/init-proto.h, SESSION_F_SCRIPT). */
#define SCRIPT_PATH "/proc/self/fd/8"

/* The command line: the exec's; with a script, its interpreter and the
 * script's path; in a shell-state session, in the wrapper shell (a script
 * is sourced there, so that it can leave a state). */
static int command_argv(const osb_session *s, const osb_exec *e, strv *out)
{
	strv argv = { 0 };
	int r;

	if (e->script && s->sh.on)
		r = strv_push(&argv, ".") < 0 || strv_push(&argv, SCRIPT_PATH) < 0 ? -ENOMEM : 0;
	else
		r = strv_copy(&argv, &e->argv) < 0 || (e->script && strv_push(&argv, SCRIPT_PATH) < 0)
		    ? -ENOMEM : 0;
	if (r == 0)
		r = s->sh.on ? shell_state_argv(SHELL_STATE_SHELL, &argv, out) : strv_copy(out, &argv);
	strv_free(&argv);
	return r;
}

/* What the broker is asked to run: ARGV, ENV and CWD ("": the session's),
 * and the request's flags. In a shell-state session the command runs in
 * the wrapper shell, from the state the last command left (shell-state.c). */
typedef struct request_parts {
	strv argv, env;
	char *cwd;
	uint32_t flags;
} request_parts;

static void parts_free(request_parts *rp)
{
	strv_free(&rp->argv);
	strv_free(&rp->env);
	free(rp->cwd);
}

static int request_parts_of(osb_session *s, const osb_exec *e, request_parts *rp, osb_error *err)
{
	int r;

	pthread_mutex_lock(&s->lock);
	r = env_overlay(s, s->sh.have ? &s->sh.env : &s->env, e, &rp->env, err);
	if (r == 0 && !(rp->cwd = strdup(e->cwd ? e->cwd : s->sh.cwd ? s->sh.cwd : "")))
		r = osb_err_set(err, OSB_E_NOMEM, ENOMEM, "session", "out of memory");
	pthread_mutex_unlock(&s->lock);
	if (r < 0)
		return r;
	rp->flags = (s->sh.on ? SESSION_F_STATE : 0) | (e->keep_services ? SESSION_F_KEEP : 0) |
	            (e->script ? SESSION_F_SCRIPT : 0);
	if (command_argv(s, e, &rp->argv) < 0)
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "session", "out of memory");
	return 0;
}

/* struct session_exec_req, then cwd, argv and env (lib/init-proto.h). */
static int build_request(osb_session *s, const osb_exec *e, char **buf, size_t *len,
                         osb_error *err)
{
	struct session_exec_req h = { .type = SESSION_EXEC };
	request_parts rp = { .cwd = NULL };
	size_t size;
	char *p;
	int r;

	if (e->cwd && e->cwd[0] != '/')
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "usage",
		                   "working directory %s must be an absolute path", e->cwd);
	if ((r = exec_check_timeout(s->wall_ms, s->wall_origin, e, err)) < 0)
		return r;
	if ((r = request_parts_of(s, e, &rp, err)) < 0) {
		parts_free(&rp);
		return r;
	}
	size = sizeof(h) + strlen(rp.cwd) + 1 + strings_size(&rp.argv) + strings_size(&rp.env);
	if (size > SESSION_MSG_MAX || rp.argv.n + rp.env.n > SESSION_MAX_STRINGS) {
		parts_free(&rp);
		return osb_err_set(err, OSB_E_USAGE, E2BIG, "usage",
		                   "the command line and environment take %zu bytes in %zu strings; a "
		                   "session command may take at most %u bytes and %u strings (a larger "
		                   "script goes through osb_exec_set_script)", size,
		                   e->argv.n + rp.env.n, SESSION_MSG_MAX, SESSION_MAX_STRINGS);
	}
	h.argc = (uint32_t)rp.argv.n;
	h.envc = (uint32_t)rp.env.n;
	h.flags = rp.flags;
	h.timeout_ms = exec_wall_ms(s->wall_ms, e);
	*buf = p = malloc(size);
	if (!p) {
		parts_free(&rp);
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "session", "out of memory");
	}
	memcpy(p, &h, sizeof(h));
	p = put_string(p + sizeof(h), rp.cwd);
	for (size_t i = 0; i < rp.argv.n; i++)
		p = put_string(p, rp.argv.v[i]);
	for (size_t i = 0; i < rp.env.n; i++)
		p = put_string(p, rp.env.v[i]);
	*len = size;
	parts_free(&rp);
	return 0;
}

/* Send the request with its four fds, under the lock so that a concurrent
 * destroy cannot close the socket (and another thread reuse its number)
 * while we write to it. */
static int send_request(osb_session *s, const char *buf, size_t len, const int *fds,
                        size_t nfds, osb_error *err)
{
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int) * (SESSION_NFDS + 1))]; } cm;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
	                     .msg_control = cm.b, .msg_controllen = sizeof(cm.b) };
	struct cmsghdr *c;
	ssize_t n;
	int r = 0;

	memset(cm.b, 0, sizeof(cm.b));
	mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
	memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	pthread_mutex_lock(&s->lock);
	r = session_usable(s, err);
	while (r == 0 && (n = sendmsg(s->sock, &mh, MSG_NOSIGNAL)) < 0) {
		if (errno == EINTR)
			continue;
		r = osb_err_set(err, OSB_E_SANDBOX, errno, "session",
		                "cannot send the command to the session's broker: %s (the session "
		                "has ended)", strerror(errno));
	}
	pthread_mutex_unlock(&s->lock);
	return r;
}

/* ---- control packets (session.h) ------------------------------------------------ */

session_overlay *session_overlay_of(osb_session *s)
{
	return &s->ov;
}

int session_send_control(osb_session *s, const void *msg, size_t len, int fd, osb_error *err)
{
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } cm;
	struct iovec iov = { .iov_base = (void *)msg, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
	                     .msg_control = cm.b, .msg_controllen = sizeof(cm.b) };
	struct cmsghdr *c;
	int r;

	memset(cm.b, 0, sizeof(cm.b));
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	pthread_mutex_lock(&s->lock);
	r = session_usable(s, err);
	while (r == 0 && sendmsg(s->sock, &mh, MSG_NOSIGNAL) < 0)
		if (errno != EINTR)
			r = osb_err_set(err, OSB_E_SANDBOX, errno, "session", "cannot reach the "
			                "session's broker: %s (the session has ended)", strerror(errno));
	pthread_mutex_unlock(&s->lock);
	return r;
}

/* ---- the broker's reports (lib/init-proto.h) ------------------------------------- */

static void session_stop(osb_session *s);

/* The broker's statuses cannot be trusted any more, and the commands that
 * run in its sandbox not tracked: the sandbox is stopped, as destroy would
 * (the handle stays; the commands' procs are lost, read_exit). */
void session_broken(osb_session *s, const char *what, const char *how)
{
	pthread_mutex_lock(&s->lock);
	if (!s->broken.what) {
		s->broken.what = what;
		snprintf(s->broken.how, sizeof(s->broken.how), "%s", how);
		if (!s->destroyed)
			session_stop(s);
	}
	pthread_mutex_unlock(&s->lock);
}

/* One packet of CHAN into BUF (SIZE bytes): its whole length, which exceeds
 * SIZE when a longer packet came cut to BUF (MSG_TRUNC), 0 at EOF, or -1
 * with errno. */
static ssize_t report_recv(int chan, void *buf, size_t size, int flags)
{
	ssize_t n;

	do
		n = recv(chan, buf, size, flags | MSG_TRUNC);
	while (n < 0 && errno == EINTR);
	return n;
}

/* A report of N bytes that is no WHAT: refused, never read as the report
 * its first bytes make, and the session is unusable from then on
 * (tests/unit/check_session_reports.c). */
static int report_malformed(osb_session *s, osb_error *err, const char *what, ssize_t n)
{
	char how[32];

	snprintf(how, sizeof(how), "%zd bytes", n);
	session_broken(s, what, how);
	return osb_err_set(err, OSB_E_SANDBOX, EPROTO, "session", "the session's broker sent a "
	                   "malformed %s (%zd bytes): the session is unusable; destroy it", what, n);
}

/* Why a command's channel ended before the report it awaited (ERRNUM:
 * recv's; BEFORE: "the command started", "the command's status was
 * known"): the session's end, or its stop after another report was
 * malformed (session_broken). */
static int report_lost(osb_session *s, osb_error *why, int errnum, const char *before)
{
	int r;

	pthread_mutex_lock(&s->lock);
	if (s->broken.what)
		r = osb_err_set(why, OSB_E_SANDBOX, EPROTO, "session", "the session's broker sent a "
		                "malformed %s earlier (%s): the session was stopped before %s; "
		                "destroy it", s->broken.what, s->broken.how, before);
	else
		r = osb_err_set(why, OSB_E_SANDBOX, errnum, "session", "the session ended before %s",
		                before);
	pthread_mutex_unlock(&s->lock);
	return r;
}

/* The broker's answer to a request: started (the pid) or failed. EOF means
 * the sandbox ended before it answered. */
static int await_start(osb_proc *pr, osb_error *err)
{
	union {
		struct session_started st;
		struct session_failed f;
	} m;
	ssize_t n = report_recv(pr->chan, &m, sizeof(m), 0);

	if (n <= 0)
		return report_lost(pr->s, err, n < 0 ? errno : 0, "the command started");
	if (n == (ssize_t)sizeof(m.st) && m.st.type == SESSION_STARTED && m.st.pid > 0) {
		pr->pid = m.st.pid;
		pr->started_ns = now_ns();
		return 0;
	}
	if (n == (ssize_t)sizeof(m.f) && m.f.type == SESSION_FAILED) {
		m.f.stage[sizeof(m.f.stage) - 1] = '\0';
		m.f.message[sizeof(m.f.message) - 1] = '\0';
		return osb_err_set(err, stage_of(m.f.stage) == OSB_STAGE_REQUEST ? OSB_E_INTERNAL :
		                   OSB_E_SANDBOX, m.f.err, m.f.stage, "%s", m.f.message);
	}
	return report_malformed(pr->s, err, "start report", n);
}

/* Start EXEC with IO as its fds 0, 1, 2 (the caller keeps its copies). */
static int proc_start(osb_session *s, const osb_exec *e, const int io[3], osb_proc **out,
                      osb_error *err)
{
	_cleanup_free_ char *buf = NULL;
	osb_proc *pr;
	size_t len = 0;
	int ch[2], fds[SESSION_NFDS + 1], r, script = -1;

	if ((r = session_enter(s, err)) < 0)
		return r;
	pr = calloc(1, sizeof(*pr));
	if (!pr) {
		pthread_mutex_lock(&s->lock);
		s->running--;
		pthread_mutex_unlock(&s->lock);
		session_unref(s);
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "session", "out of memory");
	}
	*pr = (osb_proc){ .s = s, .chan = -1, .in = -1, .out = -1, .err = -1, .counted = true,
	                  .start = now_ms() };
	if ((r = build_request(s, e, &buf, &len, err)) < 0)
		goto fail;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ch) < 0) {
		r = osb_err_set(err, OSB_E_IO, errno, "session", "socketpair: %s", strerror(errno));
		goto fail;
	}
	pr->chan = ch[0];
	fds[0] = ch[1];
	memcpy(fds + 1, io, 3 * sizeof(int));
	if (e->script && (script = memfd_with_data("osb-script", e->script, e->script_len)) < 0) {
		close(ch[1]);
		r = osb_err_set(err, OSB_E_IO, -script, "session", "cannot make the script's memfd: %s",
		                strerror(-script));
		goto fail;
	}
	fds[SESSION_NFDS] = script;
	r = send_request(s, buf, len, fds, SESSION_NFDS + (script >= 0), err);
	close(ch[1]);
	if (script >= 0)
		close(script);
	if (r == 0)
		r = await_start(pr, err);
	if (r < 0)
		goto fail;
	*out = pr;
	return 0;
fail:
	osb_proc_free(pr);
	return r;
}

/* ---- procs ----------------------------------------------------------------------- */

int osb_session_spawn(osb_session *s, const osb_exec *e, osb_proc **out, osb_error *err)
{
	_cleanup_close_ int devnull = -1;
	int io[3] = { -1, -1, -1 }, keep[3] = { -1, -1, -1 }, r = 0;
	osb_proc *pr = NULL;

	osb_err_clear(err);
	if (out)
		*out = NULL;
	if (!s || !e || !out)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "usage",
		                   "osb_session_spawn needs a session, an exec and a proc pointer");
	/* A command started without its proxy would have no network at all:
	 * refused, as osb_session_run reports it. */
	if ((r = session_proxy_check(s, err)) < 0)
		return r;
	devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull < 0)
		return osb_err_set(err, OSB_E_IO, errno, "spawn", "/dev/null: %s", strerror(errno));
	for (int i = 0; i < 3 && r == 0; i++) {
		int given = i == 0 ? e->stdin_fd : i == 1 ? e->stdout_fd : e->stderr_fd, p[2];

		if (given >= 0 || (i == 0 && !e->stdin_pipe)) {
			io[i] = given >= 0 ? given : devnull;
			continue;
		}
		if (pipe2(p, O_CLOEXEC) < 0) {
			r = osb_err_set(err, OSB_E_IO, errno, "spawn", "pipe: %s", strerror(errno));
			break;
		}
		io[i] = i == 0 ? p[0] : p[1];   /* the command's end */
		keep[i] = i == 0 ? p[1] : p[0]; /* ours */
	}
	if (r == 0)
		r = proc_start(s, e, io, &pr, err);
	for (int i = 0; i < 3; i++)
		if (keep[i] >= 0)
			close(io[i]);
	if (r < 0) {
		for (int i = 0; i < 3; i++)
			if (keep[i] >= 0)
				close(keep[i]);
		return r;
	}
	pr->in = keep[0];
	pr->out = keep[1];
	pr->err = keep[2];
	*out = pr;
	return 0;
}

int osb_proc_stdin(const osb_proc *pr) { return pr ? pr->in : -1; }
int osb_proc_stdout(const osb_proc *pr) { return pr ? pr->out : -1; }
int osb_proc_stderr(const osb_proc *pr) { return pr ? pr->err : -1; }
int osb_proc_fd(const osb_proc *pr) { return pr ? pr->chan : -1; }
int osb_proc_pid(const osb_proc *pr) { return pr ? (int)pr->pid : -1; }

int osb_proc_close_stdin(osb_proc *pr)
{
	if (!pr)
		return -OSB_E_USAGE;
	if (pr->in >= 0)
		close(pr->in);
	pr->in = -1;
	return 0;
}

/* Hand one of the proc's stdio fds over to the caller: a runtime that wraps
 * fds in objects which close them (Go's os.File) must own them outright, or
 * osb_proc_free would close a number the runtime may have reused. */
int osb_proc_take_fd(osb_proc *pr, int which)
{
	int *slot, fd;

	if (!pr || which < 0 || which > 2)
		return -OSB_E_USAGE;
	slot = which == 0 ? &pr->in : which == 1 ? &pr->out : &pr->err;
	fd = *slot;
	*slot = -1;
	return fd >= 0 ? fd : -OSB_E_USAGE;
}

/* A shell-state command's state that cannot be kept (out of memory): the
 * session's is lost from now on, and its commands are refused
 * (shell_state_lost) rather than started from the state before. ERR says
 * so for this command, whose status still comes. */
static void state_not_kept(osb_session *s, osb_error *err)
{
	pthread_mutex_lock(&s->lock);
	s->sh.lost = true;
	pthread_mutex_unlock(&s->lock);
	osb_err_set(err, OSB_E_NOMEM, ENOMEM, "session", "the shell state the command left (its "
	            "working directory and exported variables) could not be kept: out of memory; "
	            "the session refuses its next commands rather than start them from the state "
	            "before: destroy it and start a new one");
}

/* A shell-state command's state (lib/init-proto.h, SESSION_STATE): it
 * becomes the session's for the next command. 0, or -OSB_E_SANDBOX (ERR
 * filled) for a packet cut to the buffer, shorter than its header or not
 * the length its header says; a dump that does not parse (the command
 * wrote it) is ignored. One that cannot be kept for want of memory fills
 * ERR (state_not_kept) and returns 0: the status is read all the same. */
static int take_state(osb_proc *pr, osb_error *err)
{
	osb_session *s = pr->s;
	char *buf = malloc(SESSION_MSG_MAX), *cwd = NULL;
	strv env = { 0 };
	size_t dropped = 0;
	ssize_t n = buf ? report_recv(pr->chan, buf, SESSION_MSG_MAX, MSG_DONTWAIT) : -1;
	struct session_state h = { 0 };
	int r = -EINVAL;

	if (!buf) {   /* the message must still go, and the state with it */
		(void)report_recv(pr->chan, &h, sizeof(h), MSG_DONTWAIT);
		if (s->sh.on)
			state_not_kept(s, err);
		return 0;
	}
	if (n > 0)
		memcpy(&h, buf, (size_t)n < sizeof(h) ? (size_t)n : sizeof(h));
	if (n > 0 && (n < (ssize_t)sizeof(h) || n > (ssize_t)SESSION_MSG_MAX ||
	              h.len != (size_t)n - sizeof(h))) {
		free(buf);
		return report_malformed(s, err, "shell state", n);
	}
	if (n > 0 && s->sh.on)
		r = shell_state_parse(buf + sizeof(h), h.len, &s->deny, &cwd, &env, &dropped);
	if (r == -ENOMEM)
		state_not_kept(s, err);
	if (r == 0) {
		pthread_mutex_lock(&s->lock);
		free(s->sh.cwd);
		strv_free(&s->sh.env);
		s->sh.cwd = cwd;
		s->sh.env = env;
		s->sh.have = true;
		s->sh.dropped += dropped;
		pthread_mutex_unlock(&s->lock);
		cwd = NULL;
		env = (strv){ 0 };
	}
	free(cwd);
	strv_free(&env);
	free(buf);
	return 0;
}

/* Take the exit report (or EOF) off the channel, and a shell-state
 * command's state before it. Returns 0 when the proc is done, 1 when
 * nothing was there yet. A malformed report loses the status, as EOF
 * does; pr->why says which. With a status, pr->why is what went wrong all
 * the same: the state not kept (take_state), else the proxy's end. */
static int read_exit(osb_proc *pr)
{
	struct session_exited x;
	osb_error proxy = { 0 };
	uint32_t type = 0;
	ssize_t n = report_recv(pr->chan, &type, sizeof(type), MSG_DONTWAIT | MSG_PEEK);
	int r = 0;

	if (n >= (ssize_t)sizeof(type) && type == SESSION_STATE)
		r = take_state(pr, &pr->why);
	if (r == 0) {
		n = report_recv(pr->chan, &x, sizeof(x), MSG_DONTWAIT);
		if (n < 0 && errno == EAGAIN)
			return 1;
		if (n > 0 && (n != (ssize_t)sizeof(x) || x.type != SESSION_EXITED))
			r = report_malformed(pr->s, &pr->why, "exit report", n);
	}
	if (r == 0 && n > 0) {
		pr->exited_ns = now_ns();
		pr->st = (osb_status){
			.exit_code = x.exit_code, .signal = x.sig, .timed_out = x.timed_out != 0,
			.duration_ms = now_ms() - pr->start, .user_us = x.user_us, .sys_us = x.sys_us,
			.max_rss_kib = x.max_rss_kib,
		};
		pr->full = x.tmpfs_full;
		/* Read once, with the status: later waits return the same, and
		 * osb_session_run reports pr->why. */
		pr->st.proxy_died = session_proxy_check(pr->s, &proxy) < 0;
		if (pr->st.proxy_died && !pr->why.code)
			pr->why = proxy;
	} else {
		pr->lost = true;   /* EOF, or the broker cannot be trusted to report */
		if (r == 0)
			report_lost(pr->s, &pr->why, n < 0 ? errno : 0, "the command's status was known");
	}
	pr->done = true;
	proc_uncount(pr);
	return 0;
}

int osb_proc_wait(osb_proc *pr, int timeout_ms, osb_status *st)
{
	uint64_t end = timeout_ms > 0 ? now_ms() + (uint64_t)timeout_ms : 0;

	if (!pr)
		return -OSB_E_USAGE;
	while (!pr->done) {
		struct pollfd p = { .fd = pr->chan, .events = POLLIN };
		int left = timeout_ms < 0 ? -1 : 0;
		int r;

		if (timeout_ms > 0) {
			uint64_t now = now_ms();

			left = now >= end ? 0 : (int)(end - now);
		}
		r = poll(&p, 1, left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -OSB_E_IO;
		if (r == 0)
			return 1;
		if (read_exit(pr) == 1 && left == 0)
			return 1;
	}
	if (pr->lost)
		return -OSB_E_SANDBOX;
	if (st)
		*st = pr->st;
	return 0;
}

/* What read_exit kept in pr->why: what osb_session_run reports for the
 * same command. */
int osb_proc_error(const osb_proc *pr, osb_error *err)
{
	osb_err_clear(err);
	if (!pr)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "usage", "osb_proc_error needs a proc");
	if (!pr->done || !pr->why.code)
		return 0;
	if (err)
		*err = pr->why;
	return -pr->why.code;
}

int osb_proc_kill(osb_proc *pr, int sig)
{
	struct session_kill k = { .type = SESSION_KILL, .sig = sig };

	if (!pr || sig <= 0 || sig > 64)
		return -OSB_E_USAGE;
	/* After the exit the broker has closed its end: the send fails, which
	 * is the "already finished" case. */
	(void)send(pr->chan, &k, sizeof(k), MSG_NOSIGNAL | MSG_DONTWAIT);
	return 0;
}

void osb_proc_free(osb_proc *pr)
{
	if (!pr)
		return;
	/* Closing the channel of a running command makes the broker kill it. */
	if (pr->chan >= 0)
		close(pr->chan);
	if (pr->in >= 0)
		close(pr->in);
	if (pr->out >= 0)
		close(pr->out);
	if (pr->err >= 0)
		close(pr->err);
	proc_uncount(pr);
	session_unref(pr->s);
	free(pr);
}

/* ---- run: spawn, stream, capture, wait ------------------------------------------- */

typedef struct collect {
	int rd[2];
	int sink[2];
	capture cap[2];
} collect;

/* Read what is left in the pipes once the command has finished: until EOF
 * or DRAIN_MS. */
static int drain(collect *c)
{
	uint64_t end = now_ms() + DRAIN_MS;

	while (c->rd[0] >= 0 || c->rd[1] >= 0) {
		struct pollfd p[2];
		int map[2], n = 0, r;
		uint64_t now = now_ms();

		if (now >= end)
			return 0;
		for (int i = 0; i < 2; i++)
			if (c->rd[i] >= 0) {
				p[n] = (struct pollfd){ .fd = c->rd[i], .events = POLLIN };
				map[n++] = i;
			}
		r = poll(p, (nfds_t)n, (int)(end - now));
		for (int i = 0; r > 0 && i < n; i++)
			if (p[i].revents && stream_read(&c->rd[map[i]], c->sink[map[i]],
			                                &c->cap[map[i]]) < 0)
				return -ENOMEM;
	}
	return 0;
}

/* Stream the output while the command runs; kill it when CANCEL_FD fires.
 * Returns 0 with *ST filled, 1 when the session ended first, or -errno. */
static int collect_run(osb_proc *pr, collect *c, int cancel_fd, osb_status *st)
{
	bool cancelled = false;

	for (;;) {
		struct pollfd p[4];
		int map[4], n = 0, r;

		for (int i = 0; i < 2; i++)
			if (c->rd[i] >= 0) {
				p[n] = (struct pollfd){ .fd = c->rd[i], .events = POLLIN };
				map[n++] = i;
			}
		p[n] = (struct pollfd){ .fd = pr->chan, .events = POLLIN };
		map[n++] = 2;
		if (cancel_fd >= 0 && !cancelled) {
			p[n] = (struct pollfd){ .fd = cancel_fd, .events = POLLIN };
			map[n++] = 3;
		}
		r = poll(p, (nfds_t)n, -1);
		if (r < 0 && errno != EINTR)
			return -errno;
		for (int i = 0; r > 0 && i < n; i++) {
			if (!p[i].revents)
				continue;
			if (map[i] < 2) {
				if (stream_read(&c->rd[map[i]], c->sink[map[i]], &c->cap[map[i]]) < 0) {
					osb_proc_kill(pr, SIGKILL);
					return -ENOMEM;
				}
			} else if (map[i] == 3) {
				osb_proc_kill(pr, SIGKILL);
				cancelled = true;
			} else if ((r = osb_proc_wait(pr, 0, st)) != 1) {
				return r < 0 ? 1 : drain(c);
			}
		}
	}
}

static int run_fill(const osb_session *s, const osb_proc *pr, const osb_status *st, osb_result *res)
{
	res->ran = true;
	res->t.ns[TS_GO] = pr->started_ns;
	res->t.ns[TS_EXIT] = pr->exited_ns;
	res->timed_out = st->timed_out != 0;
	res->signal = st->signal;
	res->exit_code = st->signal ? -1 : st->exit_code;
	/* The broker looked at the session's sized tmpfs mounts as the command
	 * ended (lib/init-proto.h); s->watch is fixed once the session runs. */
	res->tmpfs_known = true;
	for (size_t k = 0; k < s->watch.n && k < 32; k++)
		if ((pr->full & (1u << k)) && strv_push(&res->tmpfs_full, s->watch.v[k]) < 0)
			return osb_err_set(&res->error, OSB_E_NOMEM, ENOMEM, "result", "out of memory");
	return 0;
}

/* Spawn with pipes for stdout and stderr, then stream and wait. *LATE: what
 * went wrong although the status is known (read_exit's pr->why: a shell
 * state not kept, the session's proxy's end). */
static int run_exec(osb_session *s, const osb_exec *e, collect *c, osb_result *res,
                    osb_error *late)
{
	_cleanup_close_ int devnull = -1;
	int wr[2] = { -1, -1 }, io[3], r;
	osb_proc *pr = NULL;
	osb_status st;

	for (int i = 0; i < 2; i++) {
		int p[2];

		if (pipe2(p, O_CLOEXEC) < 0) {
			r = osb_err_set(&res->error, OSB_E_IO, errno, "spawn", "pipe: %s", strerror(errno));
			goto out;
		}
		c->rd[i] = p[0];
		wr[i] = p[1];
		fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	}
	if (e->stdin_fd < 0 && (devnull = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		r = osb_err_set(&res->error, OSB_E_IO, errno, "spawn", "/dev/null: %s", strerror(errno));
		goto out;
	}
	io[0] = e->stdin_fd >= 0 ? e->stdin_fd : devnull;
	io[1] = e->direct[0] ? e->stdout_fd : wr[0];
	io[2] = e->direct[1] ? e->stderr_fd : wr[1];
	r = proc_start(s, e, io, &pr, &res->error);
	for (int i = 0; i < 2; i++) {
		close(wr[i]);
		wr[i] = -1;
	}
	if (r < 0)
		goto out;
	r = collect_run(pr, c, e->cancel_fd, &st);
	if (r == 1 && pr->why.code) {
		res->error = pr->why;
		r = -pr->why.code;
	} else if (r == 1)
		r = osb_err_set(&res->error, OSB_E_SANDBOX, 0, "session",
		                "the session ended before the command's status was known");
	else if (r < 0)
		r = osb_err_set(&res->error, r == -ENOMEM ? OSB_E_NOMEM : OSB_E_IO, -r, "session",
		                "supervising the command failed: %s", strerror(-r));
	else if ((r = run_fill(s, pr, &st, res)) == 0 && pr->why.code)
		*late = pr->why;
out:
	for (int i = 0; i < 2; i++)
		if (wr[i] >= 0)
			close(wr[i]);
	osb_proc_free(pr);
	return r;
}

/* The counters of the session's cgroup, taken under the session's lock
 * (the cgroup goes with the session). */
static void session_outcome(osb_session *s, cgroup_outcome *o)
{
	memset(o, 0, sizeof(*o));
	pthread_mutex_lock(&s->lock);
	if (s->lim.cg && !s->destroyed && cgroup_read_outcome(s->lim.cg, o) < 0)
		memset(o, 0, sizeof(*o));
	pthread_mutex_unlock(&s->lock);
}

/* run_exec, and what the session's cgroup counted meanwhile: the OOM kills,
 * refused forks, CPU and throttled time of this command's span (commands
 * that run at the same time share them); the peaks are the session's. */
static int run_exec_limits(osb_session *s, const osb_exec *e, collect *c, osb_result *res,
                           osb_error *late)
{
	cgroup_outcome before, after;
	int r;

	session_outcome(s, &before);
	r = run_exec(s, e, c, res, late);
	session_outcome(s, &after);
	after.known &= before.known;
	after.oom_kills -= before.oom_kills;
	after.memory_max_hits -= before.memory_max_hits;
	after.pids_max_hits -= before.pids_max_hits;
	after.cpu_usage_usec -= before.cpu_usage_usec;
	after.cpu_nr_throttled -= before.cpu_nr_throttled;
	after.cpu_throttled_usec -= before.cpu_throttled_usec;
	pthread_mutex_lock(&s->lock);
	if (result_set_limits(res, &s->lim, &after) < 0 && r == 0)
		r = osb_err_set(&res->error, OSB_E_NOMEM, ENOMEM, "result", "out of memory");
	pthread_mutex_unlock(&s->lock);
	return r;
}

int osb_session_run(osb_session *s, const osb_exec *e, osb_result **out, osb_error *err)
{
	collect c = { .rd = { -1, -1 }, .sink = { -1, -1 } };
	uint64_t start = now_ms(), lim;
	osb_error late = { 0 };
	osb_result *res;
	long net_from, net_dropped;
	int r;

	osb_err_clear(err);
	if (out)
		*out = NULL;
	res = result_new();
	if (!res)
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "result", "out of memory");
	res->t.ns[TS_START] = now_ns();
	capture_init(&c.cap[0], 0);
	capture_init(&c.cap[1], 0);
	if (!s || !e) {
		r = osb_err_set(&res->error, OSB_E_USAGE, EINVAL, "usage",
		                "osb_session_run needs a session and an exec");
		goto done;
	}
	if (e->stdin_pipe) {
		r = osb_err_set(&res->error, OSB_E_USAGE, EINVAL, "usage",
		                "osb_exec_set_stdin_pipe needs osb_session_spawn, which returns the "
		                "pipe; give osb_session_run an fd with osb_exec_set_stdin_fd");
		goto done;
	}
	if ((r = exec_check_direct(e, &res->error)) < 0)
		goto done;
	memcpy(res->policy_hash, s->policy_hash, sizeof(res->policy_hash));
	res->ws_mode = s->ws_mode;
	res->mode = strdup(s->mode);
	result_set_host_ids(res, s->host.uid, s->host.gid, hostid_kind_name(s->host.kind));
	for (size_t i = 0; i < s->prot_path.n && i < s->prot_why.n; i++)
		if (strv_push(&res->protected_path, s->prot_path.v[i]) < 0 ||
		    strv_push(&res->protected_why, s->prot_why.v[i]) < 0) {
			r = osb_err_set(&res->error, OSB_E_NOMEM, ENOMEM, "result", "out of memory");
			goto done;
		}
	lim = exec_output_limit(s->output_limit, e);
	capture_init(&c.cap[0], e->capture ? lim : 0);
	capture_init(&c.cap[1], e->capture ? lim : 0);
	c.sink[0] = e->stdout_fd;
	c.sink[1] = e->stderr_fd;
	net_from = netproxy_log_size(&s->net);
	net_dropped = netproxy_log_dropped(&s->net);
	r = run_exec_limits(s, e, &c, res, &late);
	/* What went wrong as the command's status was read (read_exit): the
	 * proxy's end not asked a second time, a shell state not kept. */
	if (r == 0 && late.code) {
		res->error = late;
		r = -late.code;
	}
	/* What the session's proxy decided while the command ran (result-net.c). */
	if (s->net.port && result_set_network(res, &s->net, net_from, net_dropped) < 0 && r == 0)
		r = osb_err_set(&res->error, OSB_E_NOMEM, ENOMEM, "result", "out of memory");
	if (output_take(c.cap, e->capture, res) < 0)
		r = osb_err_set(&res->error, OSB_E_NOMEM, ENOMEM, "result", "out of memory");
done:
	for (int i = 0; i < 2; i++) {
		if (c.rd[i] >= 0)
			close(c.rd[i]);
		capture_free(&c.cap[i]);
	}
	return outcome_finish(res, start, r, out, err);
}

/* ---- teardown --------------------------------------------------------------------- */

/* With the lock held: kill the sandbox and everything in it, once
 * (osb_session_destroy, session_broken). A detached or attached session's
 * owner ends it and removes what it made (its socket; without us, the
 * cgroup); ours waits for it. */
static void session_stop(osb_session *s)
{
	if (s->stopped)
		return;
	s->stopped = true;
	if (s->link.fd >= 0 || s->link.detached)
		owner_stop(s->link.fd >= 0 ? s->link.fd : sandbox_life(s->sb), 5000);
	if (s->sb)
		sandbox_stop(s->sb);
}

/* With the lock held. Closing the socket alone would let the broker kill its
 * commands and exit; SIGKILL to pid 1 does not depend on it. */
/* Once the sandbox is gone (sandbox_stop waits for its pid 1), what it
 * held on the host goes too: the placeholders its read-only rules needed,
 * and its host ids, which another sandbox may then take. */
static void session_teardown(osb_session *s)
{
	s->destroyed = true;
	if (s->sock >= 0)
		close(s->sock);
	s->sock = -1;
	session_stop(s);
	netproxy_free(&s->net);
	placeholders_remove(&s->made);
	hostid_release(&s->host);
	limits_release(&s->lim);
}

int osb_session_destroy(osb_session *s, osb_error *err)
{
	int r = 0;

	osb_err_clear(err);
	if (!s)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "usage", "osb_session_destroy needs a session");
	pthread_mutex_lock(&s->lock);
	if (s->destroyed)
		r = osb_err_set(err, OSB_E_USAGE, 0, "session",
		                "osb_session_destroy: the session was already destroyed");
	else
		session_teardown(s);
	pthread_mutex_unlock(&s->lock);
	return r;
}

void osb_session_free(osb_session *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	/* A session stopped (session_broken) does not live on: what it held goes. */
	if (!s->destroyed && !s->stopped && (s->link.detached || s->link.fd >= 0))
		s->link.kept = true;
	else if (!s->destroyed)
		session_teardown(s);
	pthread_mutex_unlock(&s->lock);
	session_unref(s);
}

/* ---- what a daemon reads back (libosb-isolate(3), "WRITING AN EXECD") ---------- */

int osb_session_identity_mode(const osb_session *s)
{
	if (!s)
		return -OSB_E_USAGE;
	return strcmp(s->mode, "root") == 0 ? OSB_IDENTITY_ROOT : OSB_IDENTITY_USERNS;
}

int osb_session_last_activity(const osb_session *s, int64_t *unix_ms)
{
	osb_session *m = (osb_session *)s;   /* the lock only */

	if (!s || !unix_ms)
		return -OSB_E_USAGE;
	pthread_mutex_lock(&m->lock);
	*unix_ms = s->clock.last_unix_ms;
	pthread_mutex_unlock(&m->lock);
	return 0;
}

/* With the lock held. */
static int end_reason(osb_session *s)
{
	if (s->destroyed)
		return OSB_SESSION_END_DESTROYED;
	if (s->broken.what)
		return OSB_SESSION_END_BROKEN;
	if (!sandbox_ended(s))
		return OSB_SESSION_RUNNING;
	return session_exit_code(s) == INIT_EXIT_IDLE ? OSB_SESSION_END_IDLE : OSB_SESSION_END_LOST;
}

int osb_session_idle_remaining_ms(const osb_session *s, uint64_t *ms)
{
	osb_session *m = (osb_session *)s;
	uint64_t idle, since, now = now_ms();
	int r = 0;

	if (!s || !ms)
		return -OSB_E_USAGE;
	pthread_mutex_lock(&m->lock);
	idle = s->clock.idle_ms;
	since = s->clock.idle_since;
	if (idle == 0) {
		*ms = UINT64_MAX;
		r = 1;
	} else if (end_reason(m) != OSB_SESSION_RUNNING) {
		*ms = 0;
	} else if (s->running > 0) {
		*ms = idle;
	} else {
		*ms = now - since >= idle ? 0 : idle - (now - since);
	}
	pthread_mutex_unlock(&m->lock);
	return r;
}

int osb_session_end_reason(const osb_session *s)
{
	osb_session *m = (osb_session *)s;
	int r;

	if (!s)
		return -OSB_E_USAGE;
	pthread_mutex_lock(&m->lock);
	r = end_reason(m);
	pthread_mutex_unlock(&m->lock);
	return r;
}

const char *osb_session_end_name(int reason)
{
	switch (reason) {
	case OSB_SESSION_RUNNING: return "running";
	case OSB_SESSION_END_DESTROYED: return "destroyed";
	case OSB_SESSION_END_IDLE: return "idle";
	case OSB_SESSION_END_LOST: return "lost";
	case OSB_SESSION_END_BROKEN: return "broken";
	}
	return NULL;
}

/* ---- detached sessions (lib/session-owner.c) ------------------------------------- */

/* What an attacher needs of the session, as "key=value" strings, each
 * NUL-terminated; lists repeat their key. */
static int state_put(strv *v, const osb_session *s)
{
	static const struct { const char *key; size_t off; } lists[] = {
		{ "env", offsetof(osb_session, env) }, { "watch", offsetof(osb_session, watch) },
		{ "deny", offsetof(osb_session, deny) }, { "deny_origin", offsetof(osb_session, deny_origin) },
		{ "sh_env", offsetof(osb_session, sh.env) },
	};

	if (strv_pushf(v, "wall_ms=%llu", (unsigned long long)s->wall_ms) < 0 ||
	    strv_pushf(v, "wall_origin=%s", s->wall_origin) < 0 ||
	    strv_pushf(v, "output_limit=%llu", (unsigned long long)s->output_limit) < 0 ||
	    strv_pushf(v, "policy_hash=%s", s->policy_hash) < 0 ||
	    strv_pushf(v, "ws_mode=%s", s->ws_mode) < 0 || strv_pushf(v, "mode=%s", s->mode) < 0 ||
	    strv_pushf(v, "host=%u:%u:%d", s->host.uid, s->host.gid, (int)s->host.kind) < 0 ||
	    strv_pushf(v, "max_execs=%u", s->max_execs) < 0 ||
	    strv_pushf(v, "idle_ms=%llu", (unsigned long long)s->clock.idle_ms) < 0 ||
	    strv_pushf(v, "shell_state=%d", s->sh.on ? 1 + s->sh.have : 0) < 0 ||
	    (s->sh.cwd && strv_pushf(v, "sh_cwd=%s", s->sh.cwd) < 0))
		return -ENOMEM;
	for (size_t k = 0; k < sizeof(lists) / sizeof(lists[0]); k++) {
		const strv *l = (const strv *)((const char *)s + lists[k].off);

		for (size_t i = 0; i < l->n; i++)
			if (strv_pushf(v, "%s=%s", lists[k].key, l->v[i]) < 0)
				return -ENOMEM;
	}
	return 0;
}

static char *state_encode(const osb_session *s, size_t *len)
{
	strv v = { 0 };
	size_t n = 0;
	char *buf = NULL, *p;

	if (state_put(&v, s) == 0) {
		n = strings_size(&v);
		buf = malloc(n ? n : 1);
	}
	for (size_t i = 0; buf && i < v.n; i++)
		p = put_string(i ? p : buf, v.v[i]);
	strv_free(&v);
	*len = n;
	return buf;
}

/* One "key=value" of an attached session's state into S. */
static int state_take(osb_session *s, const char *kv)
{
	static const char *const ws_modes[] = { "none", "ro", "rw", "overlay" };
	const char *eq = strchr(kv, '=');
	size_t klen = eq ? (size_t)(eq - kv) : 0;
	const char *v = eq ? eq + 1 : "";
	unsigned long long n;
	int kind;

#define KEY(k) (klen == sizeof(k) - 1 && strncmp(kv, k, klen) == 0)
	if (KEY("env"))
		return strv_push(&s->env, v);
	if (KEY("watch"))
		return strv_push(&s->watch, v);
	if (KEY("deny"))
		return strv_push(&s->deny, v);
	if (KEY("deny_origin"))
		return strv_push(&s->deny_origin, v);
	if (KEY("sh_env"))
		return strv_push(&s->sh.env, v);
	if (KEY("sh_cwd"))
		return (s->sh.cwd = strdup(v)) ? 0 : -ENOMEM;
	if (KEY("wall_origin"))
		return snprintf(s->wall_origin, sizeof(s->wall_origin), "%s", v) < 0 ? -EINVAL : 0;
	if (KEY("policy_hash"))
		return snprintf(s->policy_hash, sizeof(s->policy_hash), "%s", v) < 0 ? -EINVAL : 0;
	if (KEY("mode"))
		return (s->mode = strdup(v)) ? 0 : -ENOMEM;
	if (KEY("ws_mode")) {
		for (size_t i = 0; i < 4; i++)
			if (strcmp(v, ws_modes[i]) == 0)
				s->ws_mode = ws_modes[i];
		return s->ws_mode ? 0 : -EINVAL;
	}
	if (KEY("host"))
		return sscanf(v, "%u:%u:%d", &s->host.uid, &s->host.gid, &kind) == 3 &&
		       (s->host.kind = (enum hostid_kind)kind, true) ? 0 : -EINVAL;
	if (sscanf(v, "%llu", &n) != 1)
		return -EINVAL;
	if (KEY("wall_ms"))
		s->wall_ms = n;
	else if (KEY("output_limit"))
		s->output_limit = n;
	else if (KEY("max_execs"))
		s->max_execs = n > 0 && n <= MAX_MAX_EXECS ? (unsigned)n : DEFAULT_MAX_EXECS;
	else if (KEY("idle_ms"))
		s->clock.idle_ms = n;
	else if (KEY("shell_state")) {
		s->sh.on = n > 0;
		s->sh.have = n > 1;
	}
#undef KEY
	return 0;
}

static int state_decode(osb_session *s, const char *buf, size_t len)
{
	for (size_t at = 0; at < len;) {
		const char *kv = buf + at;
		size_t n = strnlen(kv, len - at);

		if (n == len - at || state_take(s, kv) < 0)
			return -EINVAL;
		at += n + 1;
	}
	return s->mode && s->ws_mode ? 0 : -EINVAL;
}

int osb_session_detach(osb_session *s, const char *dir, const char *id, osb_error *err)
{
	char path[PATH_MAX];
	_cleanup_free_ char *state = NULL;
	size_t len = 0;
	int r;

	osb_err_clear(err);
	if (!s)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "usage", "osb_session_detach needs a session");
	if ((r = owner_dir_check(dir, err)) < 0 || (r = owner_sock_path(dir, id, path, sizeof(path), err)) < 0)
		return r;
	pthread_mutex_lock(&s->lock);
	r = session_usable(s, err);
	/* The state the attached handles would start from is not the one the
	 * last command left. */
	if (r == 0)
		r = shell_state_lost(s, err);
	if (r == 0 && (!s->sb || s->link.detached))
		r = osb_err_set(err, OSB_E_USAGE, EALREADY, "session",
		                "the session is detached already (by this process or the one it was "
		                "attached from)");
	if (r == 0 && !(state = state_encode(s, &len)))
		r = osb_err_set(err, OSB_E_NOMEM, ENOMEM, "session", "out of memory");
	if (r == 0)
		r = owner_detach(sandbox_life(s->sb), path, state, len, s->sock,
		                 sandbox_pid1_fd(s->sb), err);
	if (r == 0)
		s->link.detached = true;
	pthread_mutex_unlock(&s->lock);
	return r;
}

osb_session *osb_session_attach(const char *dir, const char *id, osb_error *err)
{
	char path[PATH_MAX];
	_cleanup_free_ char *state = NULL;
	osb_session *s;
	size_t len = 0;

	osb_err_clear(err);
	if (owner_dir_check(dir, err) < 0 || owner_sock_path(dir, id, path, sizeof(path), err) < 0)
		return NULL;
	/* An attached handle has no view of the overlay's layer (its owner
	 * keeps none): diff and commit belong to the handle that started it;
	 * nor a proxy, host ids or a cgroup, which are the owner's. */
	if (!(s = session_alloc(err)))
		return NULL;
	s->max_execs = DEFAULT_MAX_EXECS;
	if (owner_attach(path, &s->link.fd, &state, &len, &s->sock, &s->link.pid1, err) < 0) {
		session_release(s);
		return NULL;
	}
	if (state_decode(s, state, len) < 0) {
		osb_err_set(err, OSB_E_SANDBOX, EPROTO, "session",
		            "the owner of %s sent a state this library cannot read", path);
		session_release(s);
		return NULL;
	}
	s->ov.ws_mode = s->ws_mode;
	session_touch(s);
	return s;
}

/* ---- services (lib/exec-session.c, helper/broker-services.c) --------------------- */

/* Is the list of N bytes in BUF (of CAP) one whole services list: its
 * header, then as many services as it counts, not cut to CAP? */
static bool services_whole(const char *buf, size_t n, size_t cap)
{
	struct session_service_list h;

	if (n < sizeof(h) || n > cap)
		return false;
	memcpy(&h, buf, sizeof(h));
	return h.type == SESSION_SERVICE_LIST &&
	       n == sizeof(h) + (size_t)h.count * sizeof(struct session_service);
}

/* The broker's list of kept groups still running, into *OUT (malloc'd):
 * a whole list (services_whole), or an error. */
static int services_ask(osb_session *s, char **out, osb_error *err)
{
	struct session_services_req rq = { SESSION_SERVICES, 0 };
	size_t cap = sizeof(struct session_service_list) +
	             SESSION_MAX_SERVICES * sizeof(struct session_service);
	struct pollfd p;
	int ch[2], r;
	ssize_t n;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ch) < 0)
		return osb_err_set(err, OSB_E_IO, errno, "session", "socketpair: %s", strerror(errno));
	r = send_request(s, (const char *)&rq, sizeof(rq), &ch[1], 1, err);
	close(ch[1]);
	*out = r == 0 ? malloc(cap) : NULL;
	if (r == 0 && !*out)
		r = osb_err_set(err, OSB_E_NOMEM, ENOMEM, "session", "out of memory");
	p = (struct pollfd){ .fd = ch[0], .events = POLLIN };
	if (r == 0 && poll(&p, 1, 5000) != 1)
		r = osb_err_set(err, OSB_E_SANDBOX, ETIMEDOUT, "session",
		                "the session's broker did not list its services");
	n = r == 0 ? report_recv(ch[0], *out, cap, 0) : -1;
	if (r == 0 && n <= 0)
		r = osb_err_set(err, OSB_E_SANDBOX, n < 0 ? errno : EPROTO, "session",
		                "the session ended before it listed its services");
	else if (r == 0 && !services_whole(*out, (size_t)n, cap))
		r = report_malformed(s, err, "services list", n);
	close(ch[0]);
	if (r < 0) {
		free(*out);
		*out = NULL;
		return r;
	}
	return 0;
}

int osb_session_services_json(osb_session *s, char **json, osb_error *err)
{
	_cleanup_free_ char *buf = NULL;
	struct session_service_list h;
	json_object *arr;
	int r;

	osb_err_clear(err);
	if (!s || !json)
		return osb_err_set(err, OSB_E_USAGE, EINVAL, "usage",
		                   "osb_session_services_json needs a session and a string pointer");
	*json = NULL;
	if ((r = services_ask(s, &buf, err)) < 0)
		return r;
	memcpy(&h, buf, sizeof(h));
	if (!(arr = json_object_new_array()))
		return osb_err_set(err, OSB_E_NOMEM, ENOMEM, "session", "out of memory");
	for (uint32_t i = 0; i < h.count; i++) {
		struct session_service e;
		json_object *o = json_object_new_object();

		memcpy(&e, buf + sizeof(h) + i * sizeof(e), sizeof(e));
		e.command[sizeof(e.command) - 1] = '\0';
		json_object_object_add(o, "pid", json_object_new_int(e.pgid));
		json_object_object_add(o, "command", json_object_new_string(e.command));
		json_object_object_add(o, "started_unix_ms", json_object_new_int64(e.started_unix_ms));
		json_object_array_add(arr, o);
	}
	*json = strdup(json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PLAIN |
	                                                   JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(arr);
	return *json ? 0 : osb_err_set(err, OSB_E_NOMEM, ENOMEM, "session", "out of memory");
}

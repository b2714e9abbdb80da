/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_session_reports.c — the library's reading of what a session's broker
 * reports (lib/session.c; the protocol: lib/init-proto.h): a report longer
 * than its kind (cut to the reader's buffer), shorter, or not of its kind's
 * size is refused, naming the report, never read as the report its first
 * bytes make; from then on the session refuses every request to that
 * broker, naming the report, until it is destroyed. The test plays both the session's owner and its broker: a
 * session is attached (osb_session_attach) from a socket this process
 * serves (lib/owner-proto.h), and the broker socket the owner hands over is
 * one end of a socketpair whose other end the test answers on; a stop the
 * library asks of the owner is counted and answered. No sandbox.
 * It is linked with --wrap=malloc and --wrap=strdup (Makefile.am), so that
 * the library's allocations can be made to fail on the test's thread.
 */
#include "osb-isolate.h"
#include "init-proto.h"
#include "owner-proto.h"
#include "session-overlay.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define MALFORMED(what, n) "the session's broker sent a malformed " what " (" n " bytes): " \
	"the session is unusable; destroy it"
/* What a command that was running then reports, once the session is stopped. */
#define STOPPED(what, how) "the session's broker sent a malformed " what " earlier (" how "): " \
	"the session was stopped before the command's status was known; destroy it"
/* What every later request is refused with. */
#define BROKEN(what, how) "the session's broker sent a malformed " what " earlier (" how "): " \
	"the session is unusable; destroy it"

static char dir[PATH_MAX];

/* ---- out of memory, on the test's thread only ------------------------------------ */

void *__real_malloc(size_t size);
void *__wrap_malloc(size_t size);
char *__real_strdup(const char *s);
char *__wrap_strdup(const char *s);

/* The next malloc of FAIL_SIZE bytes, or strdup of FAIL_STR, on this thread
 * fails (then both are disarmed). The fake broker's thread is never failed;
 * on the test's, take_state's buffer is the only allocation of
 * SESSION_MSG_MAX bytes. */
static __thread size_t fail_size;
static __thread const char *fail_str;

void *__wrap_malloc(size_t size)
{
	if (fail_size && size == fail_size) {
		fail_size = 0;
		errno = ENOMEM;
		return NULL;
	}
	return __real_malloc(size);
}

char *__wrap_strdup(const char *s)
{
	if (fail_str && strcmp(s, fail_str) == 0) {
		fail_str = NULL;
		errno = ENOMEM;
		return NULL;
	}
	return __real_strdup(s);
}

static void setup_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/osb-reports.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown_dir(void)
{
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/fake.sock", dir);
	unlink(path);
	rmdir(dir);
}

/* ---- the fake owner: one attach ------------------------------------------------ */

/* The stops the fake owner of the last attach_fake was asked for
 * (OWNER_STOP on its link): it answers each as an owner does, ending the
 * sandbox (OWNER_ENDED, a SIGKILL status) and hanging up. */
static atomic_int owner_stops;

static int stops(void)
{
	return atomic_load(&owner_stops);
}

struct owner {
	int listener, link, broker;   /* broker: the end handed over */
	const char *state;
	size_t state_len;
};

static void *owner_serve(void *arg)
{
	struct owner *o = arg;
	struct owner_msg h = { OWNER_ATTACHED, 0 };
	struct iovec iov[2] = { { &h, sizeof(h) }, { (void *)o->state, o->state_len } };
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int) * 2)]; } cm;
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2, .msg_control = cm.b,
	                     .msg_controllen = sizeof(cm.b) };
	struct cmsghdr *c;
	int fds[2] = { o->broker, open("/dev/null", O_RDONLY | O_CLOEXEC) };

	o->link = accept4(o->listener, NULL, NULL, SOCK_CLOEXEC);
	if (o->link < 0 || fds[1] < 0)
		return NULL;
	memset(cm.b, 0, sizeof(cm.b));
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(c), fds, sizeof(fds));
	(void)sendmsg(o->link, &mh, MSG_NOSIGNAL);
	close(fds[1]);
	return NULL;
}

/* On a copy of the owner's link (the test closes its own): count a stop
 * and answer it, or end with the library's end of the link. */
static void *owner_answer(void *arg)
{
	int fd = (int)(intptr_t)arg;
	struct owner_msg h;
	ssize_t n;

	while ((n = recv(fd, &h, sizeof(h), 0)) > 0 || (n < 0 && errno == EINTR)) {
		if (n == (ssize_t)sizeof(h) && h.type == OWNER_STOP) {
			struct owner_msg end = { OWNER_ENDED, SIGKILL };

			atomic_fetch_add(&owner_stops, 1);
			(void)send(fd, &end, sizeof(end), MSG_NOSIGNAL);
			shutdown(fd, SHUT_RDWR);
			break;
		}
	}
	close(fd);
	return NULL;
}

/* An attached session whose broker is *BROKER, this process's end. The
 * owner's link stays open in *LINK: while it does, the session has not
 * ended. A shell-state session with SHELL_STATE. Its idle timeout is a
 * minute. */
static osb_session *attach_fake(bool shell_state, int *broker, int *link)
{
	static const char plain[] = "mode=userns\0ws_mode=none\0max_execs=8\0idle_ms=60000";
	static const char shell[] = "mode=userns\0ws_mode=none\0max_execs=8\0idle_ms=60000"
	                            "\0shell_state=1";
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct owner o = { .state = shell_state ? shell : plain,
	                   .state_len = shell_state ? sizeof(shell) : sizeof(plain) };
	osb_error err = { 0 };
	osb_session *s;
	pthread_t t;
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	o.broker = sv[1];
	ck_assert_uint_lt(strlen(dir) + 10, sizeof(sa.sun_path));
	memcpy(sa.sun_path, dir, strlen(dir));
	memcpy(sa.sun_path + strlen(dir), "/fake.sock", 10);
	ck_assert_int_ge(o.listener = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0), 0);
	ck_assert_int_eq(bind(o.listener, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(o.listener, 1), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, owner_serve, &o), 0);
	s = osb_session_attach(dir, "fake", &err);
	pthread_join(t, NULL);
	ck_assert_msg(s != NULL, "attach: %s", err.message);
	close(o.listener);
	close(sv[1]);
	unlink(sa.sun_path);
	*broker = sv[0];
	*link = o.link;
	atomic_store(&owner_stops, 0);
	{
		int fd = fcntl(o.link, F_DUPFD_CLOEXEC, 0);

		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(pthread_create(&t, NULL, owner_answer, (void *)(intptr_t)fd), 0);
		ck_assert_int_eq(pthread_detach(t), 0);
	}
	return s;
}

/* ---- the fake broker: one request ---------------------------------------------- */

struct packet {
	const void *data;
	size_t len;
};

struct broker {
	int sock;
	const struct packet *pkts;   /* sent in order on the request's channel */
	size_t n;
	uint32_t type;               /* the request's */
	char cwd[256];               /* an exec request's */
	bool hold;                   /* keep the channel unanswered until a stop */
	atomic_bool got;             /* the request was read */
	pthread_t t;
};

static void *broker_serve(void *arg)
{
	struct broker *b = arg;
	char *buf = malloc(SESSION_MSG_MAX);
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int) * (SESSION_NFDS + 1))]; } cm;
	struct iovec iov = { buf, SESSION_MSG_MAX };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b,
	                     .msg_controllen = sizeof(cm.b) };
	int fds[SESSION_NFDS + 1], nfds = 0;
	ssize_t n;

	if (!buf)
		return NULL;
	n = recvmsg(b->sock, &mh, MSG_CMSG_CLOEXEC);
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); n > 0 && c; c = CMSG_NXTHDR(&mh, c)) {
		size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		memcpy(fds + nfds, CMSG_DATA(c), k * sizeof(int));
		nfds += (int)k;
	}
	if (n >= (ssize_t)sizeof(uint32_t))
		memcpy(&b->type, buf, sizeof(b->type));
	if (b->type == SESSION_EXEC && n > (ssize_t)sizeof(struct session_exec_req))
		snprintf(b->cwd, sizeof(b->cwd), "%s", buf + sizeof(struct session_exec_req));
	atomic_store(&b->got, true);
	/* A sandbox stopped ends every channel unanswered (at most 10 s). */
	for (int i = 0; b->hold && stops() == 0 && i < 10000; i++)
		usleep(1000);
	/* The command's stdio is not the broker's to keep: the library's
	 * output pipes then end. */
	for (int i = 1; i < nfds; i++)
		close(fds[i]);
	for (size_t i = 0; nfds > 0 && i < b->n; i++)
		(void)send(fds[0], b->pkts[i].data, b->pkts[i].len, MSG_NOSIGNAL);
	if (nfds > 0)
		close(fds[0]);
	free(buf);
	return NULL;
}

/* Answer the next request on SOCK with PKTS, on a thread of its own. */
static void broker_start(struct broker *b, int sock, const struct packet *pkts, size_t n)
{
	*b = (struct broker){ .sock = sock, .pkts = pkts, .n = n };
	ck_assert_int_eq(pthread_create(&b->t, NULL, broker_serve, b), 0);
}

/* Read the next request on SOCK and answer nothing: its channel ends once
 * the owner was asked to stop the sandbox, as a stopped sandbox's do. */
static void broker_hold(struct broker *b, int sock)
{
	*b = (struct broker){ .sock = sock, .hold = true };
	ck_assert_int_eq(pthread_create(&b->t, NULL, broker_serve, b), 0);
}

static void broker_join(struct broker *b)
{
	pthread_join(b->t, NULL);
}

/* ---- reports ------------------------------------------------------------------ */

static const struct session_started started = { SESSION_STARTED, 42 };
static const struct session_exited exited = { .type = SESSION_EXITED, .exit_code = 0 };

/* A report of kind KIND (of SIZE bytes), followed by MORE bytes. */
static void *longer(const void *kind, size_t size, size_t more)
{
	char *p = calloc(1, size + more);

	ck_assert_ptr_nonnull(p);
	memcpy(p, kind, size);
	memset(p + size, 'x', more);
	return p;
}

static osb_exec *exec_true(void)
{
	static const char *const argv[] = { "true", NULL };
	osb_error err;
	osb_exec *e = osb_exec_new(argv, &err);

	ck_assert_ptr_nonnull(e);
	return e;
}

/* Spawn against a broker that answers PKTS: osb_session_spawn's return
 * code, *ERR, and whether a proc came back (freed here). */
static int spawn_answered(const struct packet *pkts, size_t n, osb_error *err, bool *got)
{
	int broker, link, r;
	osb_session *s = attach_fake(false, &broker, &link);
	osb_exec *e = exec_true();
	struct broker b;
	osb_proc *pr = (osb_proc *)1;

	broker_start(&b, broker, pkts, n);
	r = osb_session_spawn(s, e, &pr, err);
	broker_join(&b);
	*got = pr != NULL;
	osb_proc_free(pr);
	osb_exec_free(e);
	osb_session_free(s);
	close(broker);
	close(link);
	return r;
}

static void refused_as(int r, const osb_error *err, const char *want)
{
	ck_assert_str_eq(err->message, want);
	ck_assert_int_eq(r, -OSB_E_SANDBOX);
	ck_assert_int_eq(err->code, OSB_E_SANDBOX);
	ck_assert_int_eq(err->sys_errno, EPROTO);
	ck_assert_str_eq(err->stage, "session");
}

/* A start report with more bytes than its kind has is refused: a failure
 * report longer than a failure's 552 bytes is not read as the failure its
 * first 552 make, a started report with 16 bytes more not as a start, and
 * one longer than either no more. */
START_TEST(test_a_start_report_longer_than_its_kind_is_refused)
{
	struct session_failed f = { .type = SESSION_FAILED, .err = ENOENT, .stage = "exec",
	                            .message = "forged: not the broker's word" };
	void *fl = longer(&f, sizeof(f), 16), *sl = longer(&started, sizeof(started), 16),
	     *huge = longer(&started, sizeof(started), 4096);
	const struct packet cases[][1] = {
		{ { fl, sizeof(f) + 16 } },
		{ { sl, sizeof(started) + 16 } },
		{ { huge, sizeof(started) + 4096 } },
	};
	const char *want[] = {
		MALFORMED("start report", "568"),
		MALFORMED("start report", "24"),
		MALFORMED("start report", "4104"),
	};

	ck_assert_uint_eq(sizeof(f), 552);
	for (size_t i = 0; i < 3; i++) {
		osb_error err = { 0 };
		bool got;
		int r = spawn_answered(cases[i], 1, &err, &got);

		ck_assert_msg(!got, "case %zu: a proc came back", i);
		refused_as(r, &err, want[i]);
	}
	free(fl);
	free(sl);
	free(huge);
}
END_TEST

/* A start report shorter than its kind, or of no kind, is refused too; an
 * end of the channel with no report at all is the session's end. */
START_TEST(test_a_start_report_shorter_than_its_kind_is_refused)
{
	struct session_failed f = { .type = SESSION_FAILED, .err = ENOENT, .stage = "exec",
	                            .message = "forged" };
	static const struct session_started bad_pid = { SESSION_STARTED, 0 };
	static const uint32_t exit_type = SESSION_EXITED;
	const struct packet cases[][1] = {
		{ { &started, 4 } },
		{ { &f, sizeof(f) - 1 } },
		{ { &f, 40 } },
		{ { &exit_type, sizeof(exit_type) } },
		{ { &exited, sizeof(exited) } },
		{ { &bad_pid, sizeof(bad_pid) } },
	};
	const char *want[] = {
		MALFORMED("start report", "4"),
		MALFORMED("start report", "551"),
		MALFORMED("start report", "40"),
		MALFORMED("start report", "4"),
		MALFORMED("start report", "48"),
		MALFORMED("start report", "8"),
	};
	osb_error err = { 0 };
	bool got;
	int r;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		memset(&err, 0, sizeof(err));
		r = spawn_answered(cases[i], 1, &err, &got);
		ck_assert_msg(!got, "case %zu: a proc came back", i);
		refused_as(r, &err, want[i]);
	}
	memset(&err, 0, sizeof(err));
	r = spawn_answered(NULL, 0, &err, &got);
	ck_assert(!got);
	ck_assert_int_eq(r, -OSB_E_SANDBOX);
	ck_assert_str_eq(err.message, "the session ended before the command started");
}
END_TEST

static void error_is(int r, const osb_error *err, int code, int sys_errno, const char *want)
{
	ck_assert_str_eq(err->message, want);
	ck_assert_int_eq(r, -code);
	ck_assert_int_eq(err->code, code);
	ck_assert_int_eq(err->sys_errno, sys_errno);
	ck_assert_str_eq(err->stage, "session");
}

/* The next command on S, run and spawned, is refused with CODE, SYS_ERRNO
 * and WANT before any request reaches the broker (which would start it). */
static void next_refused(osb_session *s, int broker, int code, int sys_errno, const char *want)
{
	const struct packet all[2] = { { &started, sizeof(started) }, { &exited, sizeof(exited) } };
	osb_exec *e = exec_true();
	osb_error err = { 0 };
	osb_proc *pr = NULL;
	struct broker b;
	int r;

	broker_start(&b, broker, all, 2);
	r = osb_session_run(s, e, NULL, &err);
	error_is(r, &err, code, sys_errno, want);
	memset(&err, 0, sizeof(err));
	r = osb_session_spawn(s, e, &pr, &err);
	ck_assert_ptr_null(pr);
	error_is(r, &err, code, sys_errno, want);
	/* Its end of the socket shut: the broker sees the end of requests. */
	ck_assert_int_eq(shutdown(broker, SHUT_RD), 0);
	broker_join(&b);
	ck_assert_uint_eq(b.type, 0);
	osb_exec_free(e);
}

/* osb_session_run against a broker that starts the command, then answers
 * PKTS after the start: its return code and *ERR; *EXIT the result's exit
 * code. NEXT_CWD: where the next command's request would run it; or the
 * next command is refused with NEXT_REFUSAL. */
static int run_answered(bool shell_state, const struct packet *pkts, size_t n, osb_error *err,
                        int *exit_code, char *next_cwd, const char *next_refusal)
{
	int broker, link, r;
	osb_session *s = attach_fake(shell_state, &broker, &link);
	osb_exec *e = exec_true();
	struct packet all[4] = { { &started, sizeof(started) } };
	osb_result *res = NULL;
	struct broker b;

	ck_assert_uint_le(n, 3);
	if (n > 0)   /* PKTS may be NULL when there is nothing after the start */
		memcpy(all + 1, pkts, n * sizeof(*pkts));
	broker_start(&b, broker, all, n + 1);
	r = osb_session_run(s, e, &res, err);
	broker_join(&b);
	ck_assert_ptr_nonnull(res);
	*exit_code = osb_result_exit_code(res);
	osb_result_free(res);
	if (next_refusal)
		next_refused(s, broker, OSB_E_SANDBOX, EPROTO, next_refusal);
	/* The next command's request: where it would run. */
	if (next_cwd) {
		osb_error e2;

		all[1] = (struct packet){ &exited, sizeof(exited) };
		broker_start(&b, broker, all, 2);
		ck_assert_msg(osb_session_run(s, e, NULL, &e2) == 0, "%s", e2.message);
		broker_join(&b);
		strcpy(next_cwd, b.cwd);
	}
	osb_exec_free(e);
	osb_session_free(s);
	close(broker);
	close(link);
	return r;
}

/* An exit report with bytes past its 48 is not read as the exit status its
 * first 48 make; a short one is refused with the same words, not taken for
 * the session's end. Through osb_proc_wait, the status is not known. */
START_TEST(test_an_exit_report_not_of_its_size_is_refused)
{
	void *xl = longer(&exited, sizeof(exited), 8);
	const struct packet cases[][1] = {
		{ { xl, sizeof(exited) + 8 } },
		{ { &exited, sizeof(exited) - 8 } },
		{ { &started, sizeof(started) } },
	};
	const char *want[] = {
		MALFORMED("exit report", "56"),
		MALFORMED("exit report", "40"),
		MALFORMED("exit report", "8"),
	};

	ck_assert_uint_eq(sizeof(exited), 48);
	for (size_t i = 0; i < 3; i++) {
		osb_error err = { 0 };
		int code = 7, r = run_answered(false, cases[i], 1, &err, &code, NULL, NULL);

		ck_assert_msg(code == -1, "case %zu: exit code %d read", i, code);
		refused_as(r, &err, want[i]);
	}
	/* The same through the streaming API. */
	for (size_t i = 0; i < 3; i++) {
		struct packet all[2] = { { &started, sizeof(started) }, cases[i][0] };
		osb_status st = { .exit_code = 7 };
		osb_error err = { 0 };
		int broker, link;
		osb_session *s = attach_fake(false, &broker, &link);
		osb_exec *e = exec_true();
		osb_proc *pr = NULL;
		struct broker b;

		broker_start(&b, broker, all, 2);
		ck_assert_msg(osb_session_spawn(s, e, &pr, &err) == 0, "%s", err.message);
		broker_join(&b);
		ck_assert_int_eq(osb_proc_pid(pr), 42);
		ck_assert_msg(osb_proc_wait(pr, 5000, &st) == -OSB_E_SANDBOX, "case %zu: status read", i);
		ck_assert_int_eq(st.exit_code, 7);
		/* What osb_session_run names, the proc names too. */
		memset(&err, 0, sizeof(err));
		refused_as(osb_proc_error(pr, &err), &err, want[i]);
		osb_proc_free(pr);
		osb_exec_free(e);
		osb_session_free(s);
		close(broker);
		close(link);
	}
	free(xl);
}
END_TEST

/* A shell-state command's state that is cut to the reader's buffer, shorter
 * than its header, or not the length its header says is refused: the
 * command's status is not known, and the next command does not run, from
 * what its bytes would make (a cwd) or at all. A well-formed state is kept. */
START_TEST(test_a_shell_state_not_of_its_size_is_refused_and_not_kept)
{
	static const char dump[] = "OSB1\0/forged\0A=1";
	size_t cut = SESSION_MSG_MAX, big = cut + 16, dlen = sizeof(dump);
	char *over = calloc(1, big), small[sizeof(struct session_state) + sizeof(dump)];
	struct session_state h = { SESSION_STATE, (uint32_t)(cut - sizeof(h)) };
	struct packet cases[][2] = {
		{ { over, big }, { &exited, sizeof(exited) } },
		{ { small, 6 }, { &exited, sizeof(exited) } },
		{ { small, sizeof(small) - 1 }, { &exited, sizeof(exited) } },
		{ { small, sizeof(small) }, { &exited, sizeof(exited) } },
	};
	const char *want[] = {
		MALFORMED("shell state", "131088"),
		MALFORMED("shell state", "6"),
		MALFORMED("shell state", "24"),
		NULL,
	};
	const char *then[] = {
		BROKEN("shell state", "131088 bytes"),
		BROKEN("shell state", "6 bytes"),
		BROKEN("shell state", "24 bytes"),
		NULL,
	};

	/* Its first SESSION_MSG_MAX bytes make a whole state: a header that
	 * counts them, "OSB1", a cwd, a variable, and empty strings (which
	 * name nothing) up to a final NUL there. */
	ck_assert_ptr_nonnull(over);
	memcpy(over, &h, sizeof(h));
	memcpy(over + sizeof(h), dump, dlen);
	h.len = (uint32_t)dlen;
	memcpy(small, &h, sizeof(h));
	memcpy(small + sizeof(h), dump, dlen);
	for (size_t i = 0; i < 4; i++) {
		osb_error err = { 0 };
		char next[256] = "unset";
		int code = 7, r = run_answered(true, cases[i], 2, &err, &code, want[i] ? NULL : next,
		                               then[i]);

		if (want[i]) {
			ck_assert_msg(code == -1, "case %zu: exit code %d read", i, code);
			refused_as(r, &err, want[i]);
		} else {
			ck_assert_msg(r == 0, "%s", err.message);
			ck_assert_int_eq(code, 0);
			ck_assert_str_eq(next, "/forged");
		}
	}
	free(over);
}
END_TEST

/* osb_session_run on S against a broker that starts the command, then
 * answers PKTS: its return code and *ERR; *EXIT_CODE the result's. */
static int run_on(osb_session *s, int broker, const struct packet *pkts, size_t n,
                  osb_error *err, int *exit_code)
{
	struct packet all[4] = { { &started, sizeof(started) } };
	osb_exec *e = exec_true();
	osb_result *res = NULL;
	struct broker b;
	int r;

	ck_assert_uint_le(n, 3);
	if (n > 0)   /* PKTS may be NULL when there is nothing after the start */
		memcpy(all + 1, pkts, n * sizeof(*pkts));
	broker_start(&b, broker, all, n + 1);
	r = osb_session_run(s, e, &res, err);
	broker_join(&b);
	ck_assert_ptr_nonnull(res);
	*exit_code = osb_result_exit_code(res);
	osb_result_free(res);
	osb_exec_free(e);
	return r;
}

#define STATE_NOT_KEPT "the shell state the command left (its working directory and exported " \
	"variables) could not be kept: out of memory; the session refuses its next commands " \
	"rather than start them from the state before: destroy it and start a new one"
#define STATE_LOST "the session lost its shell state: what an earlier command left (its " \
	"working directory and exported variables) could not be kept (out of memory), and a " \
	"command now would start from an older state; destroy the session and start a new one"

/* A shell-state command whose state cannot be kept for want of memory (its
 * buffer, or the copy of its working directory) fails with its status
 * known, saying so; the session then refuses every command, which would
 * start from the state before (its working directory, its variables), and
 * a detach, which would hand that state on. It can still be destroyed. */
START_TEST(test_a_shell_state_not_kept_for_want_of_memory_fails_loudly)
{
	static const char dump[] = "OSB1\0/forged\0A=1";
	char pkt[sizeof(struct session_state) + sizeof(dump)];
	struct session_state h = { SESSION_STATE, (uint32_t)sizeof(dump) };
	const struct packet pkts[2] = { { pkt, sizeof(pkt) }, { &exited, sizeof(exited) } };

	memcpy(pkt, &h, sizeof(h));
	memcpy(pkt + sizeof(h), dump, sizeof(dump));
	for (int i = 0; i < 2; i++) {
		int broker, link, code = 7, r;
		osb_session *s = attach_fake(true, &broker, &link);
		osb_error err = { 0 };

		if (i == 0)
			fail_size = SESSION_MSG_MAX;
		else
			fail_str = "/forged";
		r = run_on(s, broker, pkts, 2, &err, &code);
		ck_assert_msg(fail_size == 0 && fail_str == NULL, "case %d: nothing failed", i);
		error_is(r, &err, OSB_E_NOMEM, ENOMEM, STATE_NOT_KEPT);
		ck_assert_int_eq(code, 0);
		next_refused(s, broker, OSB_E_SANDBOX, ENOMEM, STATE_LOST);
		memset(&err, 0, sizeof(err));
		r = osb_session_detach(s, dir, "again", &err);
		error_is(r, &err, OSB_E_SANDBOX, ENOMEM, STATE_LOST);
		close(link);
		ck_assert_msg(osb_session_destroy(s, &err) == 0, "%s", err.message);
		osb_session_free(s);
		close(broker);
	}
}
END_TEST

/* osb_session_services_json against a broker that lists PKT. */
static int services_answered(const struct packet *pkt, char **json, osb_error *err)
{
	int broker, link, r;
	osb_session *s = attach_fake(false, &broker, &link);
	struct broker b;

	broker_start(&b, broker, pkt, 1);
	*json = NULL;
	r = osb_session_services_json(s, json, err);
	broker_join(&b);
	ck_assert_uint_eq(b.type, SESSION_SERVICES);
	osb_session_free(s);
	close(broker);
	close(link);
	return r;
}

/* A services list longer than the most services a list has is not read
 * as the list its first bytes make (which counts them all); one shorter
 * than its header, or not of the size its count says, is refused alike. */
START_TEST(test_a_services_list_not_of_its_size_is_refused)
{
	size_t most = sizeof(struct session_service_list) +
	              SESSION_MAX_SERVICES * sizeof(struct session_service);
	struct session_service_list h = { SESSION_SERVICE_LIST, SESSION_MAX_SERVICES };
	char *over = calloc(1, most + sizeof(struct session_service)), two[8 + 256 * 2] = { 0 };
	struct packet cases[] = {
		{ over, most + sizeof(struct session_service) },
		{ &h, 4 },
		{ two, sizeof(two) - 256 },
		{ two, sizeof(two) + 0 },
	};
	const char *want[] = {
		MALFORMED("services list", "65800"),
		MALFORMED("services list", "4"),
		MALFORMED("services list", "264"),
		NULL,
	};

	ck_assert_ptr_nonnull(over);
	ck_assert_uint_eq(sizeof(struct session_service), 256);
	memcpy(over, &h, sizeof(h));
	h.count = 2;
	memcpy(two, &h, sizeof(h));
	for (size_t i = 0; i < 4; i++) {
		osb_error err = { 0 };
		char *json = NULL;
		int r = services_answered(&cases[i], &json, &err);

		if (want[i]) {
			ck_assert_msg(json == NULL, "case %zu: listed %zu bytes of JSON", i,
			              json ? strlen(json) : 0);
			refused_as(r, &err, want[i]);
		} else {
			ck_assert_msg(r == 0, "%s", err.message);
			ck_assert_str_eq(json, "[{\"pid\":0,\"command\":\"\",\"started_unix_ms\":0},"
			                       "{\"pid\":0,\"command\":\"\",\"started_unix_ms\":0}]");
		}
		osb_free(json);
	}
	free(over);
}
END_TEST

/* S's broker sent a malformed report: the session was stopped (its owner
 * asked once), and says so; no request reaches the broker from then on.
 * Commands, the services list, a layer request and a detach are refused,
 * naming the first such report; the session can still be destroyed (and
 * is, with its owner's LINK and BROKER closed), without a second stop. */
static void unusable_after(osb_session *s, int broker, int link, const char *want)
{
	osb_error err = { 0 };
	char *json = (char *)1;
	uint64_t ms = 7;
	int fd = 7, r;

	ck_assert_int_eq(stops(), 1);
	ck_assert_int_eq(osb_session_end_reason(s), OSB_SESSION_END_BROKEN);
	ck_assert_int_eq(osb_session_idle_remaining_ms(s, &ms), 0);
	ck_assert_uint_eq(ms, 0);
	next_refused(s, broker, OSB_E_SANDBOX, EPROTO, want);
	r = osb_session_services_json(s, &json, &err);
	ck_assert_ptr_null(json);
	error_is(r, &err, OSB_E_SANDBOX, EPROTO, want);
	memset(&err, 0, sizeof(err));
	r = session_layer_call(s, LAYER_GET, &fd, &err);
	ck_assert_int_eq(fd, -1);
	error_is(r, &err, OSB_E_SANDBOX, EPROTO, want);
	memset(&err, 0, sizeof(err));
	r = osb_session_detach(s, dir, "again", &err);
	error_is(r, &err, OSB_E_SANDBOX, EPROTO, want);
	close(link);
	ck_assert_msg(osb_session_destroy(s, &err) == 0, "%s", err.message);
	ck_assert_int_eq(stops(), 1);
	ck_assert_int_eq(osb_session_end_reason(s), OSB_SESSION_END_DESTROYED);
	osb_session_free(s);
	close(broker);
}

/* Whichever reader refuses a report (a start, an exit through
 * osb_session_run or osb_proc_wait, a shell state, a services list, a
 * layer reply), the session is unusable from then on. */
START_TEST(test_a_malformed_report_leaves_the_session_unusable)
{
	void *xl = longer(&exited, sizeof(exited), 8);
	struct session_layer_reply rp = { .type = SESSION_LAYER_REPLY };
	void *ll = longer(&rp, sizeof(rp), 16);
	struct session_service_list h = { SESSION_SERVICE_LIST, 0 };
	struct session_state sh = { SESSION_STATE, 0 };
	const struct packet start4 = { &started, 4 }, exit56 = { xl, sizeof(exited) + 8 },
	                    list4 = { &h, 4 }, layer32 = { ll, sizeof(rp) + 16 };
	const struct packet state6[2] = { { &sh, 6 }, { &exited, sizeof(exited) } };
	osb_exec *e = exec_true();
	int broker, link, code, fd = 7, r;
	osb_error err = { 0 };
	osb_session *s;
	osb_proc *pr = NULL;
	struct broker b;
	char *json;

	/* A start report. */
	s = attach_fake(false, &broker, &link);
	broker_start(&b, broker, &start4, 1);
	r = osb_session_spawn(s, e, &pr, &err);
	broker_join(&b);
	refused_as(r, &err, MALFORMED("start report", "4"));
	unusable_after(s, broker, link, BROKEN("start report", "4 bytes"));

	/* An exit report, through osb_session_run. */
	s = attach_fake(false, &broker, &link);
	r = run_on(s, broker, &exit56, 1, &err, &code);
	refused_as(r, &err, MALFORMED("exit report", "56"));
	unusable_after(s, broker, link, BROKEN("exit report", "56 bytes"));

	/* An exit report, through osb_proc_wait. */
	s = attach_fake(false, &broker, &link);
	{
		const struct packet all[2] = { { &started, sizeof(started) }, exit56 };

		broker_start(&b, broker, all, 2);
		ck_assert_msg(osb_session_spawn(s, e, &pr, &err) == 0, "%s", err.message);
		broker_join(&b);
		ck_assert_int_eq(osb_proc_wait(pr, 5000, NULL), -OSB_E_SANDBOX);
		osb_proc_free(pr);
	}
	unusable_after(s, broker, link, BROKEN("exit report", "56 bytes"));

	/* A shell state. */
	s = attach_fake(true, &broker, &link);
	r = run_on(s, broker, state6, 2, &err, &code);
	refused_as(r, &err, MALFORMED("shell state", "6"));
	unusable_after(s, broker, link, BROKEN("shell state", "6 bytes"));

	/* A services list. */
	s = attach_fake(false, &broker, &link);
	broker_start(&b, broker, &list4, 1);
	r = osb_session_services_json(s, &json, &err);
	broker_join(&b);
	refused_as(r, &err, MALFORMED("services list", "4"));
	unusable_after(s, broker, link, BROKEN("services list", "4 bytes"));

	/* A layer reply longer than a reply's 16 bytes. */
	s = attach_fake(false, &broker, &link);
	broker_start(&b, broker, &layer32, 1);
	r = session_layer_call(s, LAYER_GET, &fd, &err);
	broker_join(&b);
	ck_assert_uint_eq(b.type, SESSION_LAYER);
	ck_assert_int_eq(fd, -1);
	refused_as(r, &err, "the session's broker answered the layer request with more than a "
	           "reply's 16 bytes: the session is unusable; destroy it");
	unusable_after(s, broker, link, BROKEN("layer reply", "more than a reply's 16 bytes"));

	osb_exec_free(e);
	free(xl);
	free(ll);
}
END_TEST

/* A spawned command's proc against a broker that answers PKTS after the
 * start, in S; waited for: osb_proc_wait's return code, *ST. */
static osb_proc *spawn_waited(osb_session *s, int broker, const struct packet *pkts, size_t n,
                              int *wait_rc, osb_status *st)
{
	struct packet all[4] = { { &started, sizeof(started) } };
	osb_exec *e = exec_true();
	osb_error err = { 0 };
	osb_proc *pr = NULL;
	struct broker b;

	ck_assert_uint_le(n, 3);
	if (n > 0)   /* PKTS may be NULL when there is nothing after the start */
		memcpy(all + 1, pkts, n * sizeof(*pkts));
	broker_start(&b, broker, all, n + 1);
	ck_assert_msg(osb_session_spawn(s, e, &pr, &err) == 0, "%s", err.message);
	broker_join(&b);
	/* Nothing read yet: no error to tell. */
	err.code = 99;
	ck_assert_int_eq(osb_proc_error(pr, &err), 0);
	ck_assert_int_eq(err.code, 0);
	*wait_rc = osb_proc_wait(pr, 5000, st);
	osb_exec_free(e);
	return pr;
}

/* osb_proc_error tells what osb_proc_wait's return code cannot: why the
 * status was lost (a malformed report, the session's end), or what went
 * wrong although it is known (a shell state not kept); 0, ERR cleared, for
 * a command that exited as reported. */
START_TEST(test_a_procs_error_says_what_its_wait_could_not)
{
	static const char dump[] = "OSB1\0/forged\0A=1";
	char pkt[sizeof(struct session_state) + sizeof(dump)];
	struct session_state h = { SESSION_STATE, (uint32_t)sizeof(dump) };
	const struct packet exit_ok = { &exited, sizeof(exited) }, exit40 = { &exited, 40 };
	const struct packet state[2] = { { pkt, sizeof(pkt) }, exit_ok };
	osb_status st = { .exit_code = 7 };
	int broker, link, rc;
	osb_error err = { 0 };
	osb_session *s;
	osb_proc *pr;

	memcpy(pkt, &h, sizeof(h));
	memcpy(pkt + sizeof(h), dump, sizeof(dump));
	/* Exited as reported. */
	s = attach_fake(false, &broker, &link);
	pr = spawn_waited(s, broker, &exit_ok, 1, &rc, &st);
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(st.exit_code, 0);
	err.code = 99;
	ck_assert_int_eq(osb_proc_error(pr, &err), 0);
	ck_assert_int_eq(err.code, 0);
	ck_assert_str_eq(err.message, "");
	osb_proc_free(pr);
	/* A malformed exit report. */
	pr = spawn_waited(s, broker, &exit40, 1, &rc, &st);
	ck_assert_int_eq(rc, -OSB_E_SANDBOX);
	refused_as(osb_proc_error(pr, &err), &err, MALFORMED("exit report", "40"));
	osb_proc_free(pr);
	osb_session_free(s);
	close(broker);
	close(link);

	/* The session's end before the status (the channel closed). */
	s = attach_fake(false, &broker, &link);
	pr = spawn_waited(s, broker, NULL, 0, &rc, &st);
	ck_assert_int_eq(rc, -OSB_E_SANDBOX);
	memset(&err, 0, sizeof(err));
	error_is(osb_proc_error(pr, &err), &err, OSB_E_SANDBOX, 0,
	         "the session ended before the command's status was known");
	osb_proc_free(pr);
	osb_session_free(s);
	close(broker);
	close(link);

	/* A shell state not kept: the status is the command's all the same. */
	s = attach_fake(true, &broker, &link);
	fail_size = SESSION_MSG_MAX;
	pr = spawn_waited(s, broker, state, 2, &rc, &st);
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(st.exit_code, 0);
	memset(&err, 0, sizeof(err));
	error_is(osb_proc_error(pr, &err), &err, OSB_E_NOMEM, ENOMEM, STATE_NOT_KEPT);
	osb_proc_free(pr);
	osb_session_free(s);
	close(broker);
	close(link);

	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(osb_proc_error(NULL, &err), -OSB_E_USAGE);
	ck_assert_str_eq(err.message, "osb_proc_error needs a proc");
	ck_assert_int_eq(osb_proc_error(NULL, NULL), -OSB_E_USAGE);
}
END_TEST

/* A malformed report stops the session (the library can no longer track
 * what runs in it): a command running then is lost, saying why, through
 * osb_proc_wait and osb_proc_error; the session ends "broken", with no
 * idle time left. Until then it runs as any. */
START_TEST(test_a_malformed_report_stops_the_session)
{
	const struct packet exit40 = { &exited, 40 };
	osb_status st = { .exit_code = 7 };
	int broker, link, rc;
	osb_error err = { 0 };
	osb_session *s = attach_fake(false, &broker, &link);
	osb_proc *other = NULL, *pr;
	uint64_t ms = 0;

	/* Another command, started first: its status not read yet. */
	{
		const struct packet one = { &started, sizeof(started) };
		osb_exec *e = exec_true();
		struct broker b;

		broker_start(&b, broker, &one, 1);
		ck_assert_msg(osb_session_spawn(s, e, &other, &err) == 0, "%s", err.message);
		broker_join(&b);
		osb_exec_free(e);
	}
	ck_assert_int_eq(osb_session_end_reason(s), OSB_SESSION_RUNNING);
	ck_assert_int_eq(osb_session_idle_remaining_ms(s, &ms), 0);
	ck_assert_uint_eq(ms, 60000);
	ck_assert_int_eq(stops(), 0);

	pr = spawn_waited(s, broker, &exit40, 1, &rc, &st);
	ck_assert_int_eq(rc, -OSB_E_SANDBOX);
	refused_as(osb_proc_error(pr, &err), &err, MALFORMED("exit report", "40"));
	osb_proc_free(pr);
	ck_assert_int_eq(osb_session_end_reason(s), OSB_SESSION_END_BROKEN);
	ck_assert_int_eq(stops(), 1);
	ck_assert_str_eq(osb_session_end_name(OSB_SESSION_END_BROKEN), "broken");
	ms = 7;
	ck_assert_int_eq(osb_session_idle_remaining_ms(s, &ms), 0);
	ck_assert_uint_eq(ms, 0);

	/* The other command's status is lost with the sandbox. */
	st.exit_code = 7;
	ck_assert_int_eq(osb_proc_wait(other, 5000, &st), -OSB_E_SANDBOX);
	ck_assert_int_eq(st.exit_code, 7);
	memset(&err, 0, sizeof(err));
	refused_as(osb_proc_error(other, &err), &err, STOPPED("exit report", "40 bytes"));
	osb_proc_free(other);

	unusable_after(s, broker, link, BROKEN("exit report", "40 bytes"));
}
END_TEST

struct spawner {
	osb_session *s;
	osb_proc *pr;
	osb_error err;
	int r;
};

static void *spawn_thread(void *arg)
{
	struct spawner *sp = arg;
	osb_exec *e = exec_true();

	sp->r = osb_session_spawn(sp->s, e, &sp->pr, &sp->err);
	osb_exec_free(e);
	return NULL;
}

/* A command whose start was not reported yet when another command's report
 * was malformed (the session stopped then) is refused naming that report,
 * not as a session that merely ended. */
START_TEST(test_a_start_awaited_when_the_session_is_stopped_names_the_malformed_report)
{
	const struct packet exit40 = { &exited, 40 };
	osb_status st;
	int broker, link, rc;
	osb_error err = { 0 };
	osb_session *s = attach_fake(false, &broker, &link);
	struct spawner sp = { .s = s };
	struct broker held;
	osb_proc *pr;
	pthread_t t;

	broker_hold(&held, broker);
	ck_assert_int_eq(pthread_create(&t, NULL, spawn_thread, &sp), 0);
	for (int i = 0; !atomic_load(&held.got) && i < 5000; i++)
		usleep(1000);
	ck_assert(atomic_load(&held.got));

	pr = spawn_waited(s, broker, &exit40, 1, &rc, &st);
	ck_assert_int_eq(rc, -OSB_E_SANDBOX);
	refused_as(osb_proc_error(pr, &err), &err, MALFORMED("exit report", "40"));
	osb_proc_free(pr);
	pthread_join(t, NULL);
	broker_join(&held);
	ck_assert_int_eq(stops(), 1);
	ck_assert_ptr_null(sp.pr);
	refused_as(sp.r, &sp.err, "the session's broker sent a malformed exit report earlier "
	           "(40 bytes): the session was stopped before the command started; destroy it");

	unusable_after(s, broker, link, BROKEN("exit report", "40 bytes"));
}
END_TEST

static Suite *reports_suite(void)
{
	Suite *su = suite_create("session-reports");
	TCase *tc = tcase_create("reports");

	tcase_add_checked_fixture(tc, setup_dir, teardown_dir);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_a_start_report_longer_than_its_kind_is_refused);
	tcase_add_test(tc, test_a_start_report_shorter_than_its_kind_is_refused);
	tcase_add_test(tc, test_an_exit_report_not_of_its_size_is_refused);
	tcase_add_test(tc, test_a_shell_state_not_of_its_size_is_refused_and_not_kept);
	tcase_add_test(tc, test_a_shell_state_not_kept_for_want_of_memory_fails_loudly);
	tcase_add_test(tc, test_a_services_list_not_of_its_size_is_refused);
	tcase_add_test(tc, test_a_malformed_report_leaves_the_session_unusable);
	tcase_add_test(tc, test_a_procs_error_says_what_its_wait_could_not);
	tcase_add_test(tc, test_a_malformed_report_stops_the_session);
	tcase_add_test(tc, test_a_start_awaited_when_the_session_is_stopped_names_the_malformed_report);
	suite_add_tcase(su, tc);
	return su;
}

int main(void)
{
	SRunner *sr = srunner_create(reports_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

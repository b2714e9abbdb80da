/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_wire.c — the packets between `osb-isolate session` clients and a
 * session's holder (helper/session-wire.c), on a socketpair.
 *
 * A holder serves whoever may connect to its socket (the same uid or root),
 * so every packet it receives is checked in full before anything acts on
 * it: a wrong magic, counts that do not match the strings, a missing final
 * NUL, a short packet, or fds beyond the three a request carries are
 * refused or closed, never trusted.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "session-wire.h"

static void pair(int sv[2])
{
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
}

static bool same_file(int a, int b)
{
	struct stat x, y;

	return fstat(a, &x) == 0 && fstat(b, &y) == 0 && x.st_dev == y.st_dev &&
	       x.st_ino == y.st_ino;
}

START_TEST(test_exec_request_round_trip)
{
	const char *argv[] = { "sh", "-c", "echo hi" };
	const char *env[] = { "A=1", "B=two words" };
	struct cli_req h = { .magic = CLI_MAGIC, .type = CLI_EXEC, .flags = CLI_JSON | CLI_STDIN,
	                     .argc = 3, .envc = 2, .timeout_ms = 1500 };
	struct wire_request rq = { .nfds = 0 };
	int sv[2], fds[3] = { open("/dev/null", O_RDONLY | O_CLOEXEC),
	                      open("/dev/zero", O_RDONLY | O_CLOEXEC),
	                      open("/dev/full", O_RDONLY | O_CLOEXEC) };
	char *strings = NULL;
	size_t len = 0;

	ck_assert_int_eq(wire_exec_strings("/work", argv, 3, env, 2, &strings, &len), 0);
	ck_assert_uint_eq(len, strlen("/work") + 1 + 3 + 3 + 8 + 4 + 12);
	pair(sv);
	ck_assert_int_eq(wire_send_request(sv[0], &h, strings, len, fds, 3), 0);
	ck_assert_int_eq(wire_recv_request(sv[1], &rq), 0);
	ck_assert_uint_eq(rq.h.type, CLI_EXEC);
	ck_assert_uint_eq(rq.h.flags, CLI_JSON | CLI_STDIN);
	ck_assert_uint_eq(rq.h.timeout_ms, 1500);
	ck_assert_str_eq(rq.cwd, "/work");
	ck_assert_str_eq(rq.argv[0], "sh");
	ck_assert_str_eq(rq.argv[2], "echo hi");
	ck_assert_ptr_null(rq.argv[3]);
	ck_assert_str_eq(rq.env[1], "B=two words");
	ck_assert_ptr_null(rq.env[2]);
	ck_assert_int_eq(rq.nfds, 3);
	for (int i = 0; i < 3; i++) {
		ck_assert(same_file(rq.fds[i], fds[i]));
		ck_assert_int_eq(fcntl(rq.fds[i], F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
		close(fds[i]);
	}
	wire_request_free(&rq);
	free(strings);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

START_TEST(test_info_request_has_no_strings)
{
	struct cli_req h = { .magic = CLI_MAGIC, .type = CLI_INFO };
	struct wire_request rq = { .nfds = 0 };
	int sv[2];

	pair(sv);
	ck_assert_int_eq(wire_send_request(sv[0], &h, "", 0, NULL, 0), 0);
	ck_assert_int_eq(wire_recv_request(sv[1], &rq), 0);
	ck_assert_uint_eq(rq.h.type, CLI_INFO);
	ck_assert_int_eq(rq.nfds, 0);
	ck_assert_ptr_null(rq.argv);
	wire_request_free(&rq);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/* One malformed packet: header H, then BODY (LEN bytes). */
static int recv_malformed(const struct cli_req *h, size_t hlen, const char *body, size_t len)
{
	struct wire_request rq = { .nfds = 0 };
	char buf[512];
	int sv[2], r;

	ck_assert_uint_le(hlen + len, sizeof(buf));
	memcpy(buf, h, hlen);
	memcpy(buf + hlen, body, len);
	pair(sv);
	ck_assert_int_eq(send(sv[0], buf, hlen + len, 0), (ssize_t)(hlen + len));
	r = wire_recv_request(sv[1], &rq);
	wire_request_free(&rq);
	close(sv[0]);
	close(sv[1]);
	return r;
}

START_TEST(test_malformed_requests_refused)
{
	struct cli_req ok = { .magic = CLI_MAGIC, .type = CLI_EXEC, .argc = 1, .envc = 0 };
	struct cli_req h = ok;
	static const char good[] = "\0true";   /* cwd "", argv[0] "true", NUL-terminated */

	ck_assert_int_eq(recv_malformed(&ok, sizeof(ok), good, sizeof(good)), 0);
	h.magic = 0x4f534254u;
	ck_assert_int_eq(recv_malformed(&h, sizeof(h), good, sizeof(good)), -EINVAL);
	h = ok;
	h.argc = 0;                              /* no command */
	ck_assert_int_eq(recv_malformed(&h, sizeof(h), good, sizeof(good)), -EINVAL);
	h = ok;
	h.argc = 2;                              /* more strings announced than sent */
	ck_assert_int_eq(recv_malformed(&h, sizeof(h), good, sizeof(good)), -EINVAL);
	h = ok;
	h.envc = 0;                              /* more strings sent than announced */
	ck_assert_int_eq(recv_malformed(&h, sizeof(h), "\0true\0X=1", 10), -EINVAL);
	/* The last string without its NUL. */
	ck_assert_int_eq(recv_malformed(&ok, sizeof(ok), good, sizeof(good) - 1), -EINVAL);
	/* Shorter than a header. */
	ck_assert_int_eq(recv_malformed(&ok, sizeof(ok) - 1, "", 0), -EINVAL);
	/* Counts that would make the holder allocate without bound. */
	h = ok;
	h.envc = UINT32_MAX - 1;
	ck_assert_int_eq(recv_malformed(&h, sizeof(h), good, sizeof(good)), -EINVAL);
}
END_TEST

static int open_fds(void)
{
	int n = 0;

	for (int fd = 0; fd < 1024; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

/* A request carries three fds at most: one with more is refused, and the
 * fds it brought are closed, not leaked into the holder. */
static void send_with_fds(int sock, const struct cli_req *h, const int *fds, int n)
{
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int) * 8)]; } cm;
	struct iovec iov = { .iov_base = (void *)h, .iov_len = sizeof(*h) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b,
	                     .msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n) };
	struct cmsghdr *c;

	memset(cm.b, 0, sizeof(cm.b));
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
	memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)n);
	ck_assert_int_eq(sendmsg(sock, &mh, 0), (ssize_t)sizeof(*h));
}

START_TEST(test_extra_fds_closed)
{
	struct cli_req h = { .magic = CLI_MAGIC, .type = CLI_INFO };
	struct wire_request rq = { .nfds = 0 };
	int sv[2], fds[5], before;

	for (int i = 0; i < 5; i++)
		fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	pair(sv);
	before = open_fds();
	send_with_fds(sv[0], &h, fds, 5);
	ck_assert_int_eq(wire_recv_request(sv[1], &rq), -EINVAL);
	wire_request_free(&rq);
	ck_assert_int_eq(open_fds(), before);
	/* The sender cannot be asked for more either. */
	ck_assert_int_eq(wire_send_request(sv[0], &h, "", 0, fds, 4), -EINVAL);
	for (int i = 0; i < 5; i++)
		close(fds[i]);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/* Output goes in tagged packets of at most CHUNK bytes; the status last. */
START_TEST(test_replies_tagged_and_chunked)
{
	size_t n = 2 * CHUNK + 100, got = 0;
	char *data = malloc(n), *buf = malloc(1 + CHUNK + 1);
	int sv[2], packets = 0, status = 0;
	ssize_t r;

	ck_assert_ptr_nonnull(data);
	ck_assert_ptr_nonnull(buf);
	memset(data, 'x', n);
	pair(sv);
	ck_assert_int_eq(wire_send_tagged(sv[0], 'o', data, n), 0);
	ck_assert_int_eq(wire_send_tagged(sv[0], 'e', "", 0), 0);
	ck_assert_int_eq(wire_send_status(sv[0], 137), 0);
	while (got < n && (r = recv(sv[1], buf, 1 + CHUNK + 1, 0)) > 0) {
		ck_assert_int_eq(buf[0], 'o');
		ck_assert_int_le(r - 1, CHUNK);
		got += (size_t)r - 1;
		packets++;
	}
	ck_assert_uint_eq(got, n);
	ck_assert_int_eq(packets, 3);
	ck_assert_int_eq(recv(sv[1], buf, 1 + CHUNK, 0), 1);
	ck_assert_int_eq(buf[0], 'e');
	r = recv(sv[1], buf, 1 + CHUNK, 0);
	ck_assert_int_eq(wire_reply_status(buf, (size_t)r, &status), 0);
	ck_assert_int_eq(status, 137);
	ck_assert_int_eq(wire_reply_status(buf, (size_t)r - 1, &status), -EINVAL);
	ck_assert_int_eq(wire_reply_status("o1234", 5, &status), -EINVAL);
	free(data);
	free(buf);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

START_TEST(test_oversized_exec_refused_before_sending)
{
	char *big = malloc(REQ_MAX), *strings = NULL;
	const char *argv[1];
	size_t len = 0;

	ck_assert_ptr_nonnull(big);
	memset(big, 'a', REQ_MAX - 1);
	big[REQ_MAX - 1] = '\0';
	argv[0] = big;
	ck_assert_int_eq(wire_exec_strings("", argv, 1, NULL, 0, &strings, &len), -E2BIG);
	free(strings);
	free(big);
}
END_TEST

START_TEST(test_session_ids)
{
	ck_assert(session_id_valid("build-42.a_b"));
	ck_assert(!session_id_valid(""));
	ck_assert(!session_id_valid(".hidden"));
	ck_assert(!session_id_valid("-opt"));
	ck_assert(!session_id_valid("a/b"));
	ck_assert(!session_id_valid("a b"));
	ck_assert(!session_id_valid("01234567890123456789012345678901234567890123456789012345678901234"));
}
END_TEST

static Suite *wire_suite(void)
{
	Suite *s = suite_create("wire");
	TCase *tc = tcase_create("packets");

	tcase_add_test(tc, test_exec_request_round_trip);
	tcase_add_test(tc, test_info_request_has_no_strings);
	tcase_add_test(tc, test_malformed_requests_refused);
	tcase_add_test(tc, test_extra_fds_closed);
	tcase_add_test(tc, test_replies_tagged_and_chunked);
	tcase_add_test(tc, test_oversized_exec_refused_before_sending);
	tcase_add_test(tc, test_session_ids);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(wire_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

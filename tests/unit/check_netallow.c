/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* check_netallow.c — unit tests for lib/netallow.c and lib/policy-netallow.c,
 * and for "network allow" in the policy language and in requests.
 *
 * The allowlist is what a reviewer approves and what the filtering proxy
 * enforces, so these pin both readings: each entry's canonical spelling
 * and every refusal with its message, which entry covers which (a caller's
 * narrowing), the decision on an address after resolution (loopback,
 * link-local, private and the metadata address refused unless named), and
 * the policy's rules, hash and narrowing through the API and a request;
 * and the proxy's reading of a net-hosts file (helper/netproxy-conn.c),
 * whose refusal a launch quotes with its line; and the messages of a proxy
 * that cannot be started (lib/netallow-proxy.c), which name the step that
 * failed once; and what the proxy takes off its control socket
 * (helper/netproxy.c): one byte and one connection a message, nothing of a
 * message cut to its buffers.
 */
#include "policy.h"
#include "policy-canon.h"
#include "netallow.h"
#include "netproxy-conn.h"
#include "netallow-proxy.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <grp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef TEST_BUILDDIR
#error "TEST_BUILDDIR must name the build tree"
#endif

/* ---- helpers ------------------------------------------------------------- */

static void canon_is(const char *text, const char *want)
{
	char buf[NETALLOW_TEXT_MAX];
	na_entry e;
	const char *why = netallow_parse(text, &e);

	ck_assert_msg(why == NULL, "\"%s\": %s", text, why);
	netallow_format(&e, buf, sizeof(buf));
	ck_assert_str_eq(buf, want);
}

static void refused_as(const char *text, const char *want)
{
	na_entry e;
	const char *why = netallow_parse(text, &e);

	ck_assert_msg(why != NULL, "\"%s\" was accepted", text);
	ck_assert_str_eq(why, want);
}

static na_entry entry(const char *text)
{
	na_entry e;

	ck_assert_ptr_null(netallow_parse(text, &e));
	return e;
}

static osb_policy *must_parse(const char *text)
{
	osb_error err = { 0 };
	osb_policy *p = osb_policy_parse(text, strlen(text), "t.policy", &err);

	ck_assert_msg(p != NULL, "parse failed: %s", err.message);
	return p;
}

static void parse_fails(const char *text, const char *want)
{
	osb_error err = { 0 };
	osb_policy *p = osb_policy_parse(text, strlen(text), "t.policy", &err);

	ck_assert_ptr_null(p);
	ck_assert_int_eq(err.code, OSB_E_POLICY);
	ck_assert_str_eq(err.message, want);
}

static char *canonical(const char *text)
{
	osb_policy *p = must_parse(text);
	char *c = NULL;

	ck_assert_int_eq(policy_canonical(p, &c), 0);
	osb_policy_free(p);
	return c;
}

/* The "network allow" lines of P's canonical form, joined by '|'. */
static void allow_lines_are(const osb_policy *p, const char *want)
{
	char *c = NULL, got[1024] = "";

	ck_assert_int_eq(policy_canonical(p, &c), 0);
	for (char *l = strtok(c, "\n"); l; l = strtok(NULL, "\n"))
		if (strncmp(l, "network ", 8) == 0)
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", *got ? "|" : "", l);
	free(c);
	ck_assert_str_eq(got, want);
}

static const char base[] = "osb-policy 1\nroot none\nproc /proc\n";

static uint8_t addr_buf[16];

static const uint8_t *a4(const char *s)
{
	ck_assert_int_eq(inet_pton(AF_INET, s, addr_buf), 1);
	return addr_buf;
}

static const uint8_t *a6(const char *s)
{
	ck_assert_int_eq(inet_pton(AF_INET6, s, addr_buf), 1);
	return addr_buf;
}

/* ---- entries --------------------------------------------------------------- */

START_TEST(test_entries_have_one_canonical_spelling)
{
	canon_is("Registry.NPMJS.org", "registry.npmjs.org");
	canon_is("registry.npmjs.org:443", "registry.npmjs.org:443");
	canon_is("*.PyPI.org:443", "*.pypi.org:443");
	canon_is("192.0.2.7", "192.0.2.7");
	canon_is("192.0.2.7/32:80", "192.0.2.7:80");
	canon_is("10.0.0.0/8", "10.0.0.0/8");
	canon_is("2001:DB8:0:0::1", "2001:db8::1");
	canon_is("[2001:db8::1]:443", "[2001:db8::1]:443");
	canon_is("[2001:db8::/32]", "2001:db8::/32");
	canon_is("2001:db8::/32", "2001:db8::/32");
	canon_is("_dmarc.example.com", "_dmarc.example.com");
	canon_is("localhost", "localhost");
}
END_TEST

START_TEST(test_malformed_entries_are_refused_with_a_reason)
{
	refused_as("", "an entry is HOST[:PORT]");
	refused_as(":443", "an entry is HOST[:PORT]");
	refused_as("example.com:0", "a port is a number from 1 to 65535");
	refused_as("example.com:65536", "a port is a number from 1 to 65535");
	refused_as("example.com:http", "a port is a number from 1 to 65535");
	refused_as("*", "'*' stands only at the start, as in \"*.example.com\"");
	refused_as("*example.com", "'*' stands only at the start, as in \"*.example.com\"");
	refused_as("a.*.example.com", "'*' stands only at the start, as in \"*.example.com\"");
	refused_as("exa mple.com", "a host name has only letters, digits, '-', '_' and '.'");
	refused_as("example..com", "each label of a host name has 1 to 63 characters");
	refused_as("example.com.", "each label of a host name has 1 to 63 characters");
	refused_as("-a.example.com", "a label of a host name neither starts nor ends with '-'");
	refused_as("127.1", "a host name's last label is not a number (write an address as four "
	                    "decimal numbers, such as 192.0.2.1)");
	refused_as("0x7f.1", "a host name's last label is not a number (write an address as four "
	                     "decimal numbers, such as 192.0.2.1)");
	refused_as("10.0.0.1/8", "the address has bits set beyond its prefix length (write the "
	                         "network itself, such as 10.0.0.0/8)");
	refused_as("10.0.0.0/33", "an IPv4 prefix length is 0 to 32");
	refused_as("10.0.0.0/", "an IPv4 prefix length is 0 to 32");
	refused_as("[192.0.2.1]:80", "not an IPv6 address");
	refused_as("[2001:db8::1", "an IPv6 address in brackets ends with ']'");
	refused_as("[2001:db8::1]443", "after ']' comes \":PORT\" or nothing");
	refused_as("2001:db8::/129", "an IPv6 prefix length is 0 to 128");
	{
		/* 254 and 255 characters: refused before they are copied. */
		char longname[300];

		memset(longname, 'a', 254);
		longname[254] = '\0';
		refused_as(longname, "a host name has 1 to 253 characters");
		longname[254] = 'a';
		longname[255] = '\0';
		refused_as(longname, "a host name has 1 to 253 characters");
	}
}
END_TEST

START_TEST(test_covers_is_narrowing)
{
	na_entry star = entry("*.example.com"), star443 = entry("*.example.com:443"),
	         name = entry("a.example.com:443"), apex = entry("example.com"),
	         deeper = entry("*.b.example.com"), net8 = entry("10.0.0.0/8"),
	         net24 = entry("10.1.2.0/24:80"), other = entry("192.0.2.0/24");

	ck_assert(netallow_covers(&star, &name));
	ck_assert(netallow_covers(&star, &deeper));
	ck_assert(netallow_covers(&star, &star443));
	ck_assert(!netallow_covers(&star443, &star));      /* any port is wider */
	ck_assert(!netallow_covers(&star, &apex));         /* "*." needs a label more */
	ck_assert(!netallow_covers(&name, &star));
	ck_assert(!netallow_covers(&apex, &name));
	ck_assert(netallow_covers(&net8, &net24));
	ck_assert(!netallow_covers(&net24, &net8));
	ck_assert(!netallow_covers(&net8, &other));
	ck_assert(!netallow_covers(&star, &net8));
}
END_TEST

/* ---- decisions ------------------------------------------------------------- */

START_TEST(test_names_match_exactly_or_beneath_a_suffix_at_the_port)
{
	na_entry v[] = { entry("registry.npmjs.org:443"), entry("*.pypi.org") };

	ck_assert(netallow_name_allowed(v, 2, "registry.npmjs.org", 443));
	ck_assert(!netallow_name_allowed(v, 2, "registry.npmjs.org", 80));
	ck_assert(!netallow_name_allowed(v, 2, "npmjs.org", 443));
	ck_assert(!netallow_name_allowed(v, 2, "xregistry.npmjs.org", 443));
	ck_assert(netallow_name_allowed(v, 2, "files.pypi.org", 8443));
	ck_assert(!netallow_name_allowed(v, 2, "pypi.org", 443));
	ck_assert(!netallow_name_allowed(v, 2, "evilpypi.org", 443));
}
END_TEST

START_TEST(test_resolved_special_addresses_are_refused_unless_named)
{
	na_entry names[] = { entry("allowed.test") };
	na_entry nets[] = { entry("10.0.0.0/8"), entry("0.0.0.0/0"), entry("169.254.0.0/16") };
	na_entry meta[] = { entry("169.254.169.254:80") };

	/* A public address an allowed name resolved to passes. */
	ck_assert_ptr_null(netallow_addr_refused(names, 1, AF_INET, a4("198.51.100.2"), 80, true));
	ck_assert_str_eq(netallow_addr_refused(names, 1, AF_INET, a4("127.0.0.1"), 80, true),
	                 "a loopback address (127.0.0.0/8)");
	ck_assert_str_eq(netallow_addr_refused(names, 1, AF_INET, a4("169.254.169.254"), 80, true),
	                 "the cloud metadata address");
	ck_assert_str_eq(netallow_addr_refused(names, 1, AF_INET, a4("192.168.1.1"), 80, true),
	                 "a private address (192.168.0.0/16)");
	ck_assert_str_eq(netallow_addr_refused(names, 1, AF_INET6, a6("::1"), 80, true),
	                 "an unspecified or loopback address (::/127)");
	ck_assert_str_eq(netallow_addr_refused(names, 1, AF_INET6, a6("::ffff:127.0.0.1"), 80, true),
	                 "a loopback address (127.0.0.0/8)");
	ck_assert_str_eq(netallow_addr_refused(names, 1, AF_INET6, a6("fe80::1"), 80, true),
	                 "a link-local address (fe80::/10)");
	ck_assert_str_eq(netallow_addr_refused(names, 1, AF_INET6, a6("fd00:ec2::254"), 80, true),
	                 "the cloud metadata address");
	/* An address by itself needs an entry. */
	ck_assert_str_eq(netallow_addr_refused(names, 1, AF_INET, a4("198.51.100.2"), 80, false),
	                 "an address the allowlist does not name");
	/* A range named by an entry at least as long as the range's prefix. */
	ck_assert_ptr_null(netallow_addr_refused(nets, 3, AF_INET, a4("10.9.8.7"), 80, true));
	ck_assert_ptr_null(netallow_addr_refused(nets, 3, AF_INET, a4("169.254.1.1"), 80, false));
	ck_assert_str_eq(netallow_addr_refused(nets, 3, AF_INET, a4("127.0.0.1"), 80, false),
	                 "a loopback address (127.0.0.0/8)");   /* 0.0.0.0/0 names no range */
	ck_assert_str_eq(netallow_addr_refused(nets, 3, AF_INET, a4("169.254.169.254"), 80, false),
	                 "the cloud metadata address");        /* only by itself */
	ck_assert_ptr_null(netallow_addr_refused(meta, 1, AF_INET, a4("169.254.169.254"), 80, false));
	ck_assert_str_eq(netallow_addr_refused(meta, 1, AF_INET, a4("169.254.169.254"), 81, false),
	                 "the cloud metadata address");
}
END_TEST

START_TEST(test_numeric_hosts_never_reach_the_resolver_as_names)
{
	char a[] = "127.1", b[] = "0x7f000001", c[] = "Allowed.Test.", d[] = "2130706433";

	ck_assert(!netallow_host_name_ok(a));
	ck_assert(!netallow_host_name_ok(b));  /* inet_aton reads it as 127.0.0.1 */
	ck_assert(netallow_host_name_ok(c));
	ck_assert_str_eq(c, "allowed.test");
	ck_assert(!netallow_host_name_ok(d));
}
END_TEST

/* ---- the policy language --------------------------------------------------- */

START_TEST(test_network_allow_lines_make_one_sorted_list)
{
	char buf[512];
	osb_policy *p;

	snprintf(buf, sizeof(buf), "%snetwork allow b.example.com:443 A.example.com\n"
	         "network allow 10.0.0.0/8:8080 a.example.com\n", base);
	p = must_parse(buf);
	ck_assert_int_eq(p->net, NET_ALLOW);
	ck_assert_uint_eq(p->n_net_allow, 3);
	ck_assert_uint_eq(p->net_set.o.line, 4);
	ck_assert_uint_eq(p->net_allow[2].o.line, 5);
	allow_lines_are(p, "network allow 10.0.0.0/8:8080|network allow a.example.com|"
	                   "network allow b.example.com:443");
	osb_policy_free(p);
}
END_TEST

START_TEST(test_network_allow_errors_name_file_line_col)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%snetwork allow ok.example.com bad..example.com\n", base);
	parse_fails(buf, "t.policy:4:30: invalid network allow entry \"bad..example.com\": each "
	                 "label of a host name has 1 to 63 characters");
	snprintf(buf, sizeof(buf), "%snetwork allow\n", base);
	parse_fails(buf, "t.policy:4:9: missing argument: usage is \"network allow HOST[:PORT]...\"");
	snprintf(buf, sizeof(buf), "%snetwork none\nnetwork allow a.example.com\n", base);
	parse_fails(buf, "t.policy:5:1: duplicate \"network\" (first set at t.policy:4)");
	snprintf(buf, sizeof(buf), "%snetwork allow a.example.com\nnetwork host\n", base);
	parse_fails(buf, "t.policy:5:1: duplicate \"network\" (first set at t.policy:4)");
	snprintf(buf, sizeof(buf), "%snetwork none extra\n", base);
	parse_fails(buf, "t.policy:4:14: unexpected argument \"extra\" (usage is \"network none|host\")");
	snprintf(buf, sizeof(buf), "%snetwork alow a.example.com\n", base);
	parse_fails(buf, "t.policy:4:9: unknown argument \"alow\" to \"network\" (did you mean "
	                 "\"allow\"?)");
}
END_TEST

START_TEST(test_network_allow_hash_ignores_order_case_and_repeats)
{
	char a[512], b[512], c[512], d[512];
	char *ca, *cb, *cc, *cd;

	snprintf(a, sizeof(a), "%snetwork allow a.example.com b.example.com:443\n", base);
	snprintf(b, sizeof(b), "%s# the same list\nnetwork allow B.example.com:443\n"
	         "network allow a.example.com a.example.com\n", base);
	snprintf(c, sizeof(c), "%snetwork allow a.example.com b.example.com\n", base);
	snprintf(d, sizeof(d), "%snetwork none\n", base);
	ca = canonical(a);
	cb = canonical(b);
	cc = canonical(c);
	cd = canonical(d);
	ck_assert_str_eq(ca, cb);
	ck_assert_str_ne(ca, cc);   /* a port is a semantic change */
	ck_assert_str_ne(ca, cd);
	/* The canonical form parses back to itself. */
	{
		char *again = canonical(ca);

		ck_assert_str_eq(again, ca);
		free(again);
	}
	free(ca);
	free(cb);
	free(cc);
	free(cd);
}
END_TEST

/* ---- narrowing --------------------------------------------------------------- */

START_TEST(test_set_network_allow_only_narrows)
{
	char buf[512];
	osb_error err = { 0 };
	const char *keep[] = { "registry.npmjs.org:443", "files.pypi.org" };
	const char *add[] = { "evil.example.com" };
	const char *wider[] = { "registry.npmjs.org" };
	const char *bad[] = { "a..b" };
	osb_policy *p;

	snprintf(buf, sizeof(buf), "%snetwork allow registry.npmjs.org:443 *.pypi.org\n", base);
	p = must_parse(buf);
	ck_assert_int_eq(osb_policy_set_network_allow(p, add, 1, &err), -OSB_E_POLICY);
	ck_assert_str_eq(err.message, "set_network_allow: \"evil.example.com\" is refused: no entry "
	                 "of the policy's \"network allow\" covers it (a caller may keep entries of "
	                 "the list, or narrower ones, never add)");
	ck_assert_int_eq(osb_policy_set_network_allow(p, wider, 1, &err), -OSB_E_POLICY);
	ck_assert_int_eq(osb_policy_set_network_allow(p, bad, 1, &err), -OSB_E_USAGE);
	ck_assert_str_eq(err.message, "set_network_allow: invalid network allow entry \"a..b\": each "
	                 "label of a host name has 1 to 63 characters");
	ck_assert_uint_eq(p->n_net_allow, 2);   /* refusals changed nothing */
	ck_assert_int_eq(osb_policy_set_network_allow(p, keep, 2, &err), 0);
	allow_lines_are(p, "network allow files.pypi.org|network allow registry.npmjs.org:443");
	ck_assert(policy_origin_is_api(&p->net_allow[0].o));
	ck_assert_int_eq(osb_policy_set_network_allow(p, NULL, 0, &err), 0);
	ck_assert_int_eq(p->net, NET_NONE);
	ck_assert_int_eq(osb_policy_set_network_allow(p, keep, 1, &err), -OSB_E_POLICY);
	ck_assert_str_eq(err.message, "set_network_allow: \"registry.npmjs.org:443\" is refused: the "
	                 "policy has \"network none\" (api), and a caller only narrows the network");
	osb_policy_free(p);

	snprintf(buf, sizeof(buf), "%snetwork host\n", base);
	p = must_parse(buf);
	ck_assert_int_eq(osb_policy_set_network_allow(p, add, 1, &err), 0);
	allow_lines_are(p, "network allow evil.example.com");
	ck_assert_int_eq(osb_policy_set_network(p, OSB_NETWORK_HOST, &err), -OSB_E_POLICY);
	ck_assert_str_eq(err.message, "the host network is refused: the policy t.policy has "
	                 "\"network allow\" (api) and does not grant callers the host network (a "
	                 "policy grants it with \"allow-caller network\")");
	ck_assert_int_eq(osb_policy_set_network(p, OSB_NETWORK_NONE, &err), 0);
	ck_assert_uint_eq(p->n_net_allow, 0);
	osb_policy_free(p);
}
END_TEST

START_TEST(test_request_network_allow_narrows_and_refuses_additions)
{
	char buf[512];
	osb_error err = { 0 };
	osb_policy *p;

	snprintf(buf, sizeof(buf), "%snetwork allow *.example.com:443\n", base);
	p = must_parse(buf);
	ck_assert_int_eq(osb_policy_apply_json(p, "{\"network_allow\": [\"other.test\"]}", &err),
	                 -OSB_E_POLICY);
	ck_assert_str_eq(err.message, "network_allow: \"other.test\" is refused: no entry of the "
	                 "policy's \"network allow\" covers it (a caller may keep entries of the list, "
	                 "or narrower ones, never add)");
	ck_assert_int_eq(osb_policy_apply_json(p, "{\"network_allow\": [\"a..b\"]}", &err),
	                 -OSB_E_POLICY);
	ck_assert_str_eq(err.message, "network_allow[0]: invalid network allow entry \"a..b\": each "
	                 "label of a host name has 1 to 63 characters");
	ck_assert_int_eq(osb_policy_apply_json(p, "{\"network_allow\": [1]}", &err), -OSB_E_POLICY);
	ck_assert_int_eq(osb_policy_apply_json(p, "{\"network\": \"none\", \"network_allow\": []}",
	                                       &err), -OSB_E_POLICY);
	ck_assert_str_eq(err.message, "\"network\" and \"network_allow\" do not go together: ask for "
	                 "\"network\": \"none\", or for the hosts to keep");
	ck_assert_int_eq(osb_policy_apply_json(p, "{\"network\": \"host\"}", &err), -OSB_E_POLICY);
	allow_lines_are(p, "network allow *.example.com:443");
	ck_assert_int_eq(osb_policy_apply_json(p, "{\"network_allow\": [\"a.example.com:443\"]}",
	                                       &err), 0);
	allow_lines_are(p, "network allow a.example.com:443");
	ck_assert_int_eq(osb_policy_apply_json(p, "{\"network_allow\": []}", &err), 0);
	allow_lines_are(p, "network none");
	osb_policy_free(p);
}
END_TEST

/* ---- the proxy's start ----------------------------------------------------------- */

#define REMEDY "reinstall osb-isolate, or name a working proxy with OSB_ISOLATE_NETPROXY " \
               "or osb_set_program()"

/* An executable script whose interpreter is missing: execve fails ENOENT. */
static char *bad_interpreter(void)
{
	char *path = strdup("/tmp/osb-badinterp.XXXXXX");
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "#!/nonexistent/interp\n", 22), 22);
	ck_assert_int_eq(fchmod(fd, 0755), 0);
	close(fd);
	return path;
}

/* netproxy_start with PROG as the proxy and CRED: its return code. */
static int start_with(const char *prog, const spawn_cred *cred, osb_error *err)
{
	osb_policy *p = must_parse("osb-policy 1\nnetwork allow example.org:443\n");
	host_facts h;
	netproxy np;
	int r;

	memset(&h, 0, sizeof(h));
	h.netproxy = (char *)prog;
	r = netproxy_start(p, &h, cred, &np, err);
	if (r == 0)
		netproxy_free(&np);
	osb_policy_free(p);
	return r;
}

START_TEST(test_proxy_that_cannot_be_executed_is_named_with_the_remedy)
{
	char *prog = bad_interpreter(), want[1024];
	osb_error err = { 0 };

	ck_assert_int_eq(start_with(prog, NULL, &err), -OSB_E_SPAWN);
	ck_assert_int_eq(err.code, OSB_E_SPAWN);
	ck_assert_int_eq(err.sys_errno, ENOENT);
	ck_assert_str_eq(err.stage, "netproxy");
	snprintf(want, sizeof(want), "cannot start the filtering proxy %s: No such file or "
	         "directory (" REMEDY ")", prog);
	ck_assert_str_eq(err.message, want);
	unlink(prog);
	free(prog);
}
END_TEST

/* A step other than the program's execve says what failed, without
 * "reinstall": the program is not what is wrong. */
START_TEST(test_proxy_refused_as_root_ids_names_the_refusal_only)
{
	char *prog = bad_interpreter(), want[1024];
	osb_error err = { 0 };

	ck_assert_int_eq(start_with(prog, &(spawn_cred){ 0, 0 }, &err), -OSB_E_INTERNAL);
	ck_assert_int_eq(err.sys_errno, EINVAL);
	ck_assert_str_eq(err.stage, "netproxy");
	snprintf(want, sizeof(want), "cannot start the filtering proxy %s: refusing to start %s "
	         "as host uid/gid 0", prog, prog);
	ck_assert_str_eq(err.message, want);
	unlink(prog);
	free(prog);
}
END_TEST

/* A caller at its process limit cannot start the proxy: the message says
 * which limit and what to do, as every failed fork does (lib/fork-hint.h),
 * without "reinstall". RLIMIT_NPROC 1 makes the clone fail however many
 * processes the user has; root is exempt from it, so a root caller's case
 * runs as nobody (Check's child of this test, which ends with it). */
START_TEST(test_proxy_that_cannot_be_forked_names_the_process_limit)
{
	char *prog, want[1024];
	osb_error err = { 0 };
	struct rlimit rl, one;
	int rc;

	if (geteuid() == 0) {
		ck_assert_int_eq(setgroups(0, NULL), 0);
		ck_assert_int_eq(setresgid(65534, 65534, 65534), 0);
		ck_assert_int_eq(setresuid(65534, 65534, 65534), 0);
	}
	prog = bad_interpreter();   /* nobody's, so that it can remove it */
	ck_assert_int_eq(getrlimit(RLIMIT_NPROC, &rl), 0);
	one = (struct rlimit){ 1, rl.rlim_max };
	ck_assert_int_eq(setrlimit(RLIMIT_NPROC, &one), 0);
	rc = start_with(prog, NULL, &err);
	/* The soft limit back before anything else: the test's own exit (and a
	 * sanitizer's leak check, which starts a thread) must be able to fork. */
	ck_assert_int_eq(setrlimit(RLIMIT_NPROC, &rl), 0);
	ck_assert_int_eq(rc, -OSB_E_SPAWN);
	ck_assert_int_eq(err.sys_errno, EAGAIN);
	ck_assert_str_eq(err.stage, "netproxy");
	snprintf(want, sizeof(want), "cannot start the filtering proxy %s: clone: Resource "
	         "temporarily unavailable (the process limit, ulimit -u, is reached: raise it or "
	         "stop other processes)", prog);
	ck_assert_str_eq(err.message, want);
	ck_assert_int_eq(unlink(prog), 0);
	free(prog);
}
END_TEST

/* ---- the proxy's control socket -------------------------------------------------- */

/* A TCP connection on loopback: the accepted end (what the relay would
 * send), and *PEER the client's. */
static int tcp_conn(int *peer)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr = { htonl(INADDR_LOOPBACK) } };
	socklen_t len = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), fd;

	ck_assert_int_ge(l, 0);
	ck_assert_int_eq(bind(l, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(listen(l, 1), 0);
	ck_assert_int_eq(getsockname(l, (struct sockaddr *)&a, &len), 0);
	ck_assert_int_ge(*peer = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), 0);
	ck_assert_int_eq(connect(*peer, (struct sockaddr *)&a, len), 0);
	ck_assert_int_ge(fd = accept4(l, NULL, NULL, SOCK_CLOEXEC), 0);
	close(l);
	return fd;
}

/* Send LEN bytes and FDS[0 .. NFDS-1] on CTL as one message, then close
 * this process's copies: only the proxy holds them then. */
static void send_fds(int ctl, size_t len, const int *fds, size_t nfds)
{
	char data[8] = "CCCCCCCC";
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int) * 8)]; } cm;
	struct iovec iov = { data, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b,
	                     .msg_controllen = CMSG_SPACE(sizeof(int) * nfds) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

	ck_assert_uint_le(len, sizeof(data));
	ck_assert_uint_le(nfds, 8);
	memset(cm.b, 0, sizeof(cm.b));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
	memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	ck_assert_int_eq(sendmsg(ctl, &mh, MSG_NOSIGNAL), (ssize_t)len);
	for (size_t i = 0; i < nfds; i++)
		close(fds[i]);
}

/* What the client at PEER reads once it asked for a host the proxy
 * refuses: the proxy's answer, or "" when the connection was closed
 * unserved. */
static void answer_of(int peer, char *buf, size_t size)
{
	static const char rq[] = "CONNECT forbidden.test:443 HTTP/1.1\r\n"
	                         "Host: forbidden.test:443\r\n\r\n";
	struct pollfd p = { .fd = peer, .events = POLLIN };
	ssize_t n;

	ck_assert_int_eq(write(peer, rq, sizeof(rq) - 1), (ssize_t)sizeof(rq) - 1);
	ck_assert_int_eq(poll(&p, 1, 5000), 1);
	n = read(peer, buf, size - 1);
	buf[n > 0 ? n : 0] = '\0';
	if (strchr(buf, '\r'))
		*strchr(buf, '\r') = '\0';
}

/* Is the other end of each of FDS[0 .. N-1] closed, within a second? */
static void all_closed(const int *peers, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct pollfd p = { .fd = peers[i], .events = POLLIN };

		ck_assert_msg(poll(&p, 1, 1000) == 1 && (p.revents & POLLHUP),
		              "fd %zu sent is still open in the proxy", i);
		close(peers[i]);
	}
}

/* The proxy's log: its lines from FROM on, once it has written one (it
 * closes a refused message's fds before it logs the refusal). */
static void log_since(const netproxy *np, long from, char *buf, size_t size)
{
	ssize_t n;

	for (int i = 0; i < 200 && netproxy_log_size(np) <= from; i++)
		usleep(10000);
	n = pread(np->log_fd, buf, size - 1, from);

	buf[n > 0 ? n : 0] = '\0';
}

#define REFUSED_LINE(why) "{\"action\":\"refused\",\"method\":\"-\",\"host\":\"\"," \
	"\"port\":0,\"address\":null,\"reason\":\"" why "\"}\n"

/* A control message is one byte and one connection. One longer than a
 * byte (MSG_TRUNC) or with more fds than the proxy takes (MSG_CTRUNC) is
 * no connection: none of its fds is served as the one its first would
 * be, and every fd of it is closed. A well-formed message is served (the
 * client gets the proxy's 403), so the two cases differ only there. */
START_TEST(test_a_control_message_cut_to_the_proxy_buffers_is_not_served)
{
	osb_policy *p = must_parse("osb-policy 1\nnetwork allow example.org:443\n");
	static const struct {
		size_t len, extra;
		const char *answer, *log;
	} cases[] = {
		{ 1, 0, "HTTP/1.1 403 Forbidden", NULL },
		{ 1, 4, "", REFUSED_LINE("a control message with more fds than the proxy takes") },
		{ 1, 7, "", REFUSED_LINE("a control message with more fds than the proxy takes") },
		{ 2, 0, "", REFUSED_LINE("a control message longer than one byte") },
		{ 8, 2, "", REFUSED_LINE("a control message longer than one byte") },
	};
	host_facts h;
	osb_error err = { 0 };
	netproxy np;

	memset(&h, 0, sizeof(h));
	h.netproxy = (char *)TEST_BUILDDIR "/helper/osb-isolate-netproxy";
	ck_assert_msg(netproxy_start(p, &h, NULL, &np, &err) == 0, "%s", err.message);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int fds[8], peers[8], peer;
		char answer[256], log[1024];
		long from = netproxy_log_size(&np);

		fds[0] = tcp_conn(&peer);
		for (size_t k = 0; k < cases[i].extra; k++) {
			int sv[2];

			ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
			fds[1 + k] = sv[0];
			peers[k] = sv[1];
		}
		send_fds(np.ctl_fd, cases[i].len, fds, 1 + cases[i].extra);
		answer_of(peer, answer, sizeof(answer));
		ck_assert_msg(strcmp(answer, cases[i].answer) == 0, "case %zu: the client read \"%s\"",
		              i, answer);
		all_closed(peers, cases[i].extra);
		close(peer);
		if (cases[i].log) {
			log_since(&np, from, log, sizeof(log));
			ck_assert_str_eq(log, cases[i].log);
		}
	}
	/* It still serves. */
	ck_assert_msg(netproxy_check(&np, false, false, &err) == 0, "%s", err.message);
	netproxy_free(&np);
	osb_policy_free(p);
}
END_TEST

/* ---- the proxy's log: bounded ---------------------------------------------------- */

/* The log is the caller's memory, not the sandbox's: requests the proxy
 * refuses, each logged as a line of 1.6 KB (a host of 250 control bytes,
 * escaped sixfold), fill it to 1 MiB (NETPROXY_LOG_MAX, osb-isolate(1)) and
 * no further: it keeps the lines that fit beside its marker, then one
 * marker line whose count follows every line dropped, and the proxy still
 * serves. */
#define LOG_CAP ((long)1 << 20)
#define FLOOD 1500

static void flood_one(const netproxy *np, const char *rq, size_t len)
{
	char answer[64];
	int peer, fd = tcp_conn(&peer);
	struct pollfd p = { .fd = peer, .events = POLLIN };
	ssize_t n;

	send_fds(np->ctl_fd, 1, &fd, 1);
	ck_assert_int_eq(write(peer, rq, len), (ssize_t)len);
	ck_assert_int_eq(poll(&p, 1, 5000), 1);
	n = read(peer, answer, sizeof(answer) - 1);
	answer[n > 0 ? n : 0] = '\0';
	ck_assert_msg(strncmp(answer, "HTTP/1.1 403 ", 13) == 0, "the client read \"%s\"", answer);
	/* Its line is written before the answer: the next one comes after. */
	while (read(peer, answer, sizeof(answer)) > 0)
		;
	close(peer);
}

START_TEST(test_proxy_log_stops_at_its_cap_with_one_marker_counting_the_rest)
{
	osb_policy *p = must_parse("osb-policy 1\nnetwork allow example.org:443\n");
	char rq[300], host[1600], line[2048], marker[128], *log;
	size_t len = 0, kept;
	host_facts h;
	osb_error err = { 0 };
	netproxy np;
	ssize_t got;

	len = (size_t)snprintf(rq, sizeof(rq), "CONNECT ");
	memset(rq + len, 1, 250);
	len += 250;
	len += (size_t)snprintf(rq + len, sizeof(rq) - len, ":1 HTTP/1.1\r\n\r\n");
	host[0] = '\0';
	for (int i = 0; i < 250; i++)
		strcat(host, "\\u0001");
	snprintf(line, sizeof(line), "{\"action\":\"refused\",\"method\":\"CONNECT\",\"host\":\"%s\","
	         "\"port\":1,\"address\":null,\"reason\":\"not a host name\"}\n", host);
	memset(&h, 0, sizeof(h));
	h.netproxy = (char *)TEST_BUILDDIR "/helper/osb-isolate-netproxy";
	ck_assert_msg(netproxy_start(p, &h, NULL, &np, &err) == 0, "%s", err.message);
	for (int i = 0; i < FLOOD; i++)
		flood_one(&np, rq, len);
	snprintf(marker, sizeof(marker), "{\"action\":\"truncated\",\"limit\":%ld,\"dropped\":%-20d}\n",
	         LOG_CAP, 0);
	kept = (size_t)(LOG_CAP - (long)strlen(marker)) / strlen(line);
	ck_assert_uint_lt(kept, FLOOD);
	ck_assert_int_le(netproxy_log_size(&np), LOG_CAP);
	snprintf(marker, sizeof(marker), "{\"action\":\"truncated\",\"limit\":%ld,\"dropped\":%-20zu}\n",
	         LOG_CAP, FLOOD - kept);
	ck_assert_int_eq(netproxy_log_size(&np), (long)(kept * strlen(line) + strlen(marker)));
	ck_assert_ptr_nonnull(log = malloc((size_t)LOG_CAP + 1));
	got = pread(np.log_fd, log, (size_t)LOG_CAP, 0);
	ck_assert_int_eq(got, netproxy_log_size(&np));
	log[got] = '\0';
	for (size_t i = 0; i < kept; i++)
		ck_assert_msg(strncmp(log + i * strlen(line), line, strlen(line)) == 0, "line %zu", i);
	ck_assert_str_eq(log + kept * strlen(line), marker);
	free(log);
	ck_assert_msg(netproxy_check(&np, false, false, &err) == 0, "%s", err.message);
	netproxy_free(&np);
	osb_policy_free(p);
}
END_TEST

/* The method is the client's too: a quote or a newline in it is escaped
 * like the host's, so it cannot end the line's JSON string, or the line,
 * and hide the refusal from the result's counts. */
START_TEST(test_proxy_log_escapes_the_method)
{
	osb_policy *p = must_parse("osb-policy 1\nnetwork allow example.org:443\n");
	static const char rq[] = "X\"\n{\" http://example.org/ HTTP/1.1\r\n\r\n";
	char log[1024];
	host_facts h;
	osb_error err = { 0 };
	netproxy np;

	memset(&h, 0, sizeof(h));
	h.netproxy = (char *)TEST_BUILDDIR "/helper/osb-isolate-netproxy";
	ck_assert_msg(netproxy_start(p, &h, NULL, &np, &err) == 0, "%s", err.message);
	flood_one(&np, rq, sizeof(rq) - 1);
	log_since(&np, 0, log, sizeof(log));
	ck_assert_str_eq(log, "{\"action\":\"refused\",\"method\":\"X\\u0022\\u000a{\\u0022\","
	                 "\"host\":\"example.org\",\"port\":80,\"address\":null,"
	                 "\"reason\":\"not in the allowlist\"}\n");
	netproxy_free(&np);
	osb_policy_free(p);
}
END_TEST

/* ---- the proxy's hosts file ----------------------------------------------------- */

static void hosts_refused_as(const char *text, unsigned want_line, const char *want)
{
	host_map *v = (host_map *)1;
	unsigned line = 0;
	char why[160] = "";

	ck_assert_int_eq(hosts_parse(text, &v, &line, why, sizeof(why)), -1);
	ck_assert_ptr_null(v);
	ck_assert_uint_eq(line, want_line);
	ck_assert_str_eq(why, want);
}

START_TEST(test_hosts_file_lines_map_each_name_to_its_address)
{
	host_map *v = NULL;
	unsigned line = 0;
	char why[160] = "", text[64];

	ck_assert_int_eq(hosts_parse("# stand-ins\n\n198.51.100.2 a.test b.test # two\r\n"
	                             "2001:db8::1\tc.test\n", &v, &line, why, sizeof(why)), 3);
	ck_assert_str_eq(why, "");
	ck_assert_str_eq(v[0].name, "a.test");
	ck_assert_str_eq(v[1].name, "b.test");
	ck_assert_str_eq(v[2].name, "c.test");
	ck_assert_int_eq(v[1].addr.ss_family, AF_INET);
	ck_assert_uint_eq(v[1].len, sizeof(struct sockaddr_in));
	inet_ntop(AF_INET, &((struct sockaddr_in *)&v[1].addr)->sin_addr, text, sizeof(text));
	ck_assert_str_eq(text, "198.51.100.2");
	ck_assert_int_eq(v[2].addr.ss_family, AF_INET6);
	inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&v[2].addr)->sin6_addr, text, sizeof(text));
	ck_assert_str_eq(text, "2001:db8::1");
	free(v);
	ck_assert_int_eq(hosts_parse("", &v, &line, why, sizeof(why)), 0);
	free(v);
}
END_TEST

START_TEST(test_hosts_file_errors_name_the_line_and_what_is_wrong)
{
	char long_name[300], text[sizeof(long_name) + 32];

	/* Empty and comment lines count: the number is the file's own line. */
	hosts_refused_as("# stand-ins\n\n198.51.100.2 a.test\nbogus b.test\n", 4,
	                 "\"bogus\" is not an IPv4 or IPv6 address");
	hosts_refused_as("198.51.100.2 a.test\n198.51.100.3\n", 2, "\"198.51.100.3\" names no host");
	hosts_refused_as("198.51.100.2 a.test bad_name!\n", 1, "\"bad_name!\" is not a host name");
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	snprintf(text, sizeof(text), "\n192.0.2.1 %s\n", long_name);
	hosts_refused_as(text, 2, "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" is "
	                 "not a host name");
}
END_TEST

static Suite *netallow_suite(void)
{
	Suite *s = suite_create("netallow");
	TCase *t = tcase_create("entries");

	tcase_add_test(t, test_entries_have_one_canonical_spelling);
	tcase_add_test(t, test_malformed_entries_are_refused_with_a_reason);
	tcase_add_test(t, test_covers_is_narrowing);
	suite_add_tcase(s, t);
	t = tcase_create("decisions");
	tcase_add_test(t, test_names_match_exactly_or_beneath_a_suffix_at_the_port);
	tcase_add_test(t, test_resolved_special_addresses_are_refused_unless_named);
	tcase_add_test(t, test_numeric_hosts_never_reach_the_resolver_as_names);
	suite_add_tcase(s, t);
	t = tcase_create("policy");
	tcase_add_test(t, test_network_allow_lines_make_one_sorted_list);
	tcase_add_test(t, test_network_allow_errors_name_file_line_col);
	tcase_add_test(t, test_network_allow_hash_ignores_order_case_and_repeats);
	tcase_add_test(t, test_set_network_allow_only_narrows);
	tcase_add_test(t, test_request_network_allow_narrows_and_refuses_additions);
	suite_add_tcase(s, t);
	/* These start the proxy (a pidfd child): left out under valgrind
	 * (tools/valgrind.sh), which has no pidfd_open. */
	t = tcase_create("start");
	tcase_set_tags(t, "sandbox");
	/* The log flood makes 1,500 proxy connections: 3 s under ASan on an
	 * idle two-CPU machine, past check's default 4 s with other work. */
	tcase_set_timeout(t, 60);
	tcase_add_test(t, test_proxy_that_cannot_be_executed_is_named_with_the_remedy);
	tcase_add_test(t, test_proxy_refused_as_root_ids_names_the_refusal_only);
	tcase_add_test(t, test_proxy_that_cannot_be_forked_names_the_process_limit);
	tcase_add_test(t, test_a_control_message_cut_to_the_proxy_buffers_is_not_served);
	tcase_add_test(t, test_proxy_log_stops_at_its_cap_with_one_marker_counting_the_rest);
	tcase_add_test(t, test_proxy_log_escapes_the_method);
	suite_add_tcase(s, t);
	t = tcase_create("hosts");
	tcase_add_test(t, test_hosts_file_lines_map_each_name_to_its_address);
	tcase_add_test(t, test_hosts_file_errors_name_the_line_and_what_is_wrong);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(netallow_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}

#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# netallow.sh — "network allow" end to end, inside network namespaces this
# test makes (never an outside address): a "remote" namespace holds two
# HTTP servers standing in for an allowed and a forbidden host
# (198.51.100.2 and .3, TEST-NET-2, on a veth pair); the namespace the
# command runs in holds a loopback service of its own. The proxy's hosts
# file (net-hosts in the configuration) maps allowed.test, forbidden.test
# and loop.test (to 127.0.0.1). Through the proxy, plain HTTP and CONNECT to
# allowed.test succeed; forbidden.test, the loopback service, the metadata
# address and loop.test (an allowed name resolving to loopback) are refused
# with 403 and listed in the result's network.refused, exactly; a direct
# connection bypassing the proxy fails; the proxy runs as no root id; it is
# gone after the run, and after its caller is killed with SIGKILL.
#
# Run by `make check` as root: root in both identity modes, then the
# unprivileged test user. Not root: skipped (ip netns needs root).
set -uo pipefail
export LC_ALL=C
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if [ -z "${NETALLOW_STAGE:-}" ]; then
	: "${OSB_BUILDDIR:?OSB_BUILDDIR must point at the build tree (make check sets it)}"
	: "${OSB_SRCDIR:?OSB_SRCDIR must point at the source tree (make check sets it)}"
	test_need netns probe_root
	test_need ip probe_cmd ip iproute2
	test_need curl probe_cmd curl curl
	test_need python3 probe_cmd python3 python3
	stage=$(stage_artifacts)
	install -m 755 "$OSB_BUILDDIR/helper/osb-isolate-netproxy" "$stage/bin/"
	install -m 755 "$OSB_SRCDIR/tests/integration/netallow.sh" "$stage/"
	H=osbna-h-$$ R=osbna-r-$$
	pids=()
	cleanup_outer() {
		for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
		ip netns del "$H" 2>/dev/null
		ip netns del "$R" 2>/dev/null
		rm -rf "$stage"
	}
	trap cleanup_outer EXIT
	ip netns add "$H" && ip netns add "$R" || die "cannot create network namespaces"
	ip -n "$H" link set lo up && ip -n "$R" link set lo up &&
		ip link add osbna-a netns "$H" type veth peer name osbna-b netns "$R" &&
		ip -n "$H" addr add 198.51.100.1/24 dev osbna-a && ip -n "$H" link set osbna-a up &&
		ip -n "$R" addr add 198.51.100.2/24 dev osbna-b &&
		ip -n "$R" addr add 198.51.100.3/24 dev osbna-b && ip -n "$R" link set osbna-b up ||
		die "cannot set up the veth pair"
	srv() { # netns address port marker
		local d="$stage/srv-$2-$3"
		mkdir -p "$d" && printf '%s\n' "$4" >"$d/marker" && chmod -R a+rX "$d"
		(cd "$d" && exec ip netns exec "$1" python3 -m http.server "$3" --bind "$2") >/dev/null 2>&1 &
		pids+=($!)
	}
	srv "$R" 198.51.100.2 8080 allowed-marker
	srv "$R" 198.51.100.3 8080 forbidden-marker
	srv "$H" 127.0.0.1 8090 host-loopback-secret
	# HTTPS: a self-signed certificate made here, offline (openssl).
	if test_have openssl probe_cmd openssl openssl; then
		openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=allowed.test \
			-addext subjectAltName=DNS:allowed.test -keyout "$stage/key.pem" \
			-out "$stage/cert.pem" >/dev/null 2>&1 || die "openssl cannot make a certificate"
		mkdir -p "$stage/srv-tls" && printf 'tls-marker\n' >"$stage/srv-tls/marker"
		(cd "$stage/srv-tls" && exec ip netns exec "$R" python3 -c '
import http.server, ssl, sys
s = http.server.HTTPServer(("198.51.100.2", 8443), http.server.SimpleHTTPRequestHandler)
c = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
c.load_cert_chain(sys.argv[1], sys.argv[2])
s.socket = c.wrap_socket(s.socket, server_side=True)
s.serve_forever()' "$stage/cert.pem" "$stage/key.pem") >/dev/null 2>&1 &
		pids+=($!)
		HTTPS_SERVER=1
		for i in $(seq 50); do
			ip netns exec "$H" curl -sk -o /dev/null https://198.51.100.2:8443/marker && break
			sleep 0.1
		done
	fi
	for i in $(seq 50); do
		ip netns exec "$H" curl -s -o /dev/null http://198.51.100.2:8080/marker &&
			ip netns exec "$H" curl -s -o /dev/null http://127.0.0.1:8090/marker && break
		sleep 0.1
	done
	printf '198.51.100.2 allowed.test\n198.51.100.3 forbidden.test\n127.0.0.1 loop.test\n' \
		>"$stage/hosts"
	printf 'osb-config 1\nnet-hosts %s\n' "$stage/hosts" >"$stage/config"
	chmod 644 "$stage/hosts" "$stage/config"
	rc=0
	run_as() { # who: "root" or "user"
		local pre=()
		[ "$1" = user ] && pre=(setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups --)
		(cd / && ip netns exec "$H" "${pre[@]}" env -i PATH=/usr/bin:/bin \
			OSB_REQUIRE="${OSB_REQUIRE:-}" NETALLOW_STAGE="$stage" HTTPS_SERVER="${HTTPS_SERVER:-}" bash "$stage/netallow.sh") || rc=1
	}
	run_as root
	ensure_test_user
	run_as user
	exit "$rc"
fi

S=$NETALLOW_STAGE
OSB=$S/bin/osb-isolate
PROXY=$S/bin/osb-isolate-netproxy
export OSB_ISOLATE_INIT=$S/bin/osb-isolate-init OSB_ISOLATE_NETPROXY=$PROXY
export OSB_ISOLATE_POLICY_DIR=$S/policy OSB_ISOLATE_CONFIG=$S/config
T=$(mktemp -d /tmp/osb-netallow.XXXXXX) || die "mktemp failed"
chmod 755 "$T"
RUN=$(mktemp -d /tmp/nar.XXXXXX) || die "mktemp failed"
export XDG_RUNTIME_DIR=$RUN
trap 'rm -rf "$T" "$RUN"' EXIT
n=0
failures=0
WHO=$(id -un)
pass() { n=$((n + 1)); echo "ok $n - $1 [$WHO]"; }
flunk() {
	n=$((n + 1)); failures=$((failures + 1)); echo "not ok $n - $1 [$WHO]"
	shift
	for l in "$@"; do printf '#   %s\n' "$l"; done
}
expect_eq() { # name want got
	if [ "$2" == "$3" ]; then pass "$1"; else flunk "$1" "want: $(printf %q "$2")" "got:  $(printf %q "$3")"; fi
}

policy() { # identity
	printf 'osb-policy 1\ninclude %s/strict.policy\nworkspace none\nenv set HOME=/tmp\nidentity %s\n%s\n' \
		"$OSB_ISOLATE_POLICY_DIR" "$1" \
		'network allow allowed.test:8080 allowed.test:8443 loop.test:8090' >"$T/$1.policy"
	chmod 644 "$T/$1.policy"
	echo "$T/$1.policy"
}

proxies() { pgrep -f "^$PROXY " | tr '\n' ' '; }

# Each probe prints one line: NAME CURL_EXIT HTTP_STATUS BODY (its first line).
PROBES='probe() { local name=$1; shift; local out rc; out=$(curl -sS -m 10 -w "\n%{http_code}" "$@" 2>/dev/null); rc=$?
  printf "%s %s %s %s\n" "$name" "$rc" "$(printf %s "$out" | tail -n1)" "$(printf %s "$out" | head -n1)"; }
probe plain http://allowed.test:8080/marker
probe connect -p http://allowed.test:8080/marker
probe forbidden http://forbidden.test:8080/marker
probe hostlo --noproxy "" http://127.0.0.1:8090/marker
probe metadata http://169.254.169.254/latest/meta-data/
probe looptest http://loop.test:8090/marker
probe direct --noproxy "*" http://198.51.100.2:8080/marker
probe https -k https://allowed.test:8443/marker'

cases() { # identity
	local pol out json
	pol=$(policy "$1")
	json=$(cd / && "$OSB" run --json -p "$pol" -- sh -c "$PROBES")
	out=$(printf '%s' "$json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["stdout"], end="")')
	expect_eq "$1: plain HTTP to an allowed name succeeds" "plain 0 200 allowed-marker" "$(grep '^plain ' <<<"$out")"
	expect_eq "$1: CONNECT to an allowed name succeeds" "connect 0 200 allowed-marker" "$(grep '^connect ' <<<"$out")"
	expect_eq "$1: a name not in the list is refused (403)" \
		"forbidden 0 403 osb-isolate: forbidden.test:8080 refused: not in the allowlist" \
		"$(grep '^forbidden ' <<<"$out")"
	expect_eq "$1: the host's loopback service is refused" \
		"hostlo 0 403 osb-isolate: 127.0.0.1:8090 refused: a loopback address (127.0.0.0/8)" \
		"$(grep '^hostlo ' <<<"$out")"
	expect_eq "$1: the metadata address is refused" \
		"metadata 0 403 osb-isolate: 169.254.169.254:80 refused: the cloud metadata address" \
		"$(grep '^metadata ' <<<"$out")"
	expect_eq "$1: an allowed name resolving to 127.0.0.1 is refused" \
		"looptest 0 403 osb-isolate: loop.test:8090 refused: a loopback address (127.0.0.0/8)" \
		"$(grep '^looptest ' <<<"$out")"
	expect_eq "$1: a direct connection bypassing the proxy fails" "direct 7 000 " "$(grep '^direct ' <<<"$out")"
	if [ -n "${HTTPS_SERVER:-}" ]; then
		expect_eq "$1: HTTPS (CONNECT, TLS end to end) to an allowed name succeeds" \
			"https 0 200 tls-marker" "$(grep '^https ' <<<"$out")"
	fi
	expect_eq "$1: the result lists each refused destination with its count" \
		"$([ -n "${HTTPS_SERVER:-}" ] && echo 3 || echo 2) forbidden.test:8080:1 127.0.0.1:8090:1 169.254.169.254:80:1 loop.test:8090:1" \
		"$(printf '%s' "$json" | python3 -c 'import json,sys; n=json.load(sys.stdin)["network"]
print(n["allowed"], " ".join("%s:%d:%d" % (r["host"], r["port"], r["count"]) for r in n["refused"]))')"
	expect_eq "$1: no proxy is left after the run" "" "$(proxies)"
}

lifecycle() { # identity
	local pol pid p uid t
	pol=$(policy "$1")
	(cd / && exec "$OSB" run -p "$pol" -- sleep 30) >/dev/null 2>&1 &
	pid=$!
	for t in $(seq 50); do p=$(proxies); [ -n "$p" ] && break; sleep 0.1; done
	uid=$(awk '/^Uid:/ { print $2, $3, $4, $5 }' "/proc/${p%% *}/status" 2>/dev/null)
	if [ -n "$p" ] && [[ " $uid " != *" 0 "* ]]; then
		pass "$1: the proxy runs as no root id (uids $uid)"
	else
		flunk "$1: the proxy runs as no root id" "proxy: '$p' uids: '$uid'"
	fi
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	for t in $(seq 50); do [ -z "$(proxies)" ] && break; sleep 0.1; done
	expect_eq "$1: no proxy is left after its caller is killed (SIGKILL)" "" "$(proxies)"
}

session_case() { # identity
	local pol name=na$$-$1 out rc
	pol=$(policy "$1")
	out=$(cd / && "$OSB" session start -n "$name" -p "$pol" 2>&1); rc=$?
	expect_eq "$1: session start" "0:$name" "$rc:$out"
	out=$("$OSB" session exec "$name" -- curl -sS -m 10 http://allowed.test:8080/marker 2>&1)
	expect_eq "$1: a session command reaches the allowed name" "allowed-marker" "$out"
	out=$("$OSB" session exec "$name" -- curl -sS -m 10 http://forbidden.test:8080/marker 2>&1)
	expect_eq "$1: a session command is refused the forbidden name" \
		"osb-isolate: forbidden.test:8080 refused: not in the allowlist" "$out"
	out=$("$OSB" session exec "$name" --json -- curl -sS -m 10 http://169.254.169.254/ 2>&1 |
		python3 -c 'import json,sys; n=json.load(sys.stdin)["network"]
print(n["allowed"], " ".join("%s:%d:%d" % (r["host"], r["port"], r["count"]) for r in n["refused"]))')
	expect_eq "$1: a session command's result lists what the proxy refused while it ran" \
		"0 169.254.169.254:80:1" "$out"
	"$OSB" session stop "$name" >/dev/null 2>&1
	for t in $(seq 50); do [ -z "$(proxies)" ] && break; sleep 0.1; done
	expect_eq "$1: no proxy is left after session stop" "" "$(proxies)"
}

# ---- the proxy's start and end: never silent --------------------------------------
# A proxy that cannot start (a net-hosts file it refuses, a program missing,
# not executable, failing or crashing at start, or never ready) fails the
# launch with 125 and stage netproxy before the command runs; a proxy that
# dies while the sandbox runs is named in the result.

jfield() { # JSON-on-stdin field path...
	python3 -c 'import json,sys
v=json.load(sys.stdin)
for k in sys.argv[1:]: v=v[k] if v is not None else None
print("null" if v is None else v)' "$@"
}

# Each bad proxy: NAME, then the program's text ('' for none: missing).
bad_proxies() {
	printf '#!/bin/sh\nkill -SEGV $$\n' >"$T/crash"
	printf '#!/bin/sh\necho "cannot bind: no such thing" >&2\nexit 3\n' >"$T/fails"
	printf '#!/bin/sh\nexec sleep 600.%s1\n' "$$" >"$T/hangs"
	printf '#!/nonexistent/interpreter\n' >"$T/badinterp"
	printf '#!/bin/sh\nexit 0\n' >"$T/noexec"
	chmod 755 "$T/crash" "$T/fails" "$T/hangs" "$T/badinterp"
	chmod 644 "$T/noexec"
}

startup_run() { # identity label want-message [env...]: a run refused before its command
	local pol=$1 label=$2 want=$3 json
	shift 3
	json=$(cd / && env "$@" "$OSB" run --json -p "$pol" -- sh -c 'echo the-command-ran' 2>/dev/null)
	expect_eq "$label: run exits 125 at stage netproxy before its command, naming the cause" \
		"125 netproxy  $want" \
		"$(jfield status <<<"$json") $(jfield error stage <<<"$json") $(jfield stdout <<<"$json") $(jfield error message <<<"$json")"
}

startup_session() { # identity label want-message [env...]: session start refused
	local pol=$1 label=$2 want=$3 name=nas$$-$RANDOM out rc
	shift 3
	out=$(cd / && env "$@" "$OSB" session start -n "$name" -p "$pol" 2>&1); rc=$?
	expect_eq "$label: session start exits 125 at stage netproxy, naming the cause" \
		"125 osb-isolate: session: cannot start session $name: netproxy: $want" "$rc $out"
	"$OSB" session stop "$name" >/dev/null 2>&1
}

startup_cases() { # identity
	local pol m=$1 msg
	pol=$(policy "$1")
	bad_proxies
	# Line 4: a comment and an empty line count as lines too.
	printf '# stand-in hosts\n\n198.51.100.2 allowed.test\nbogus forbidden.test\n' >"$T/badhosts"
	printf 'osb-config 1\nnet-hosts %s\n' "$T/badhosts" >"$T/badconfig"
	chmod 644 "$T/badhosts" "$T/badconfig"
	msg="the filtering proxy OSB_ISOLATE_NETPROXY=$PROXY exited with status 2 before it was ready: net-hosts $T/badhosts:4: \"bogus\" is not an IPv4 or IPv6 address (each line is \"ADDRESS NAME...\"): correct the file, or the host configuration's net-hosts"
	startup_run "$pol" "$m: a net-hosts file the proxy refuses" "$msg" OSB_ISOLATE_CONFIG="$T/badconfig"
	startup_session "$pol" "$m: a net-hosts file the proxy refuses" "$msg" OSB_ISOLATE_CONFIG="$T/badconfig"
	msg="the filtering proxy OSB_ISOLATE_NETPROXY=$T/crash was killed by signal 11 (SIGSEGV) before it was ready: reinstall osb-isolate, or name a working proxy with OSB_ISOLATE_NETPROXY or osb_set_program()"
	startup_run "$pol" "$m: a proxy crashing at start" "$msg" OSB_ISOLATE_NETPROXY="$T/crash"
	startup_session "$pol" "$m: a proxy crashing at start" "$msg" OSB_ISOLATE_NETPROXY="$T/crash"
	msg="the filtering proxy OSB_ISOLATE_NETPROXY=$T/fails exited with status 3 before it was ready: cannot bind: no such thing"
	startup_run "$pol" "$m: a proxy failing at start" "$msg" OSB_ISOLATE_NETPROXY="$T/fails"
	startup_session "$pol" "$m: a proxy failing at start" "$msg" OSB_ISOLATE_NETPROXY="$T/fails"
	msg="the filtering proxy OSB_ISOLATE_NETPROXY=$T/hangs did not report ready within 5000 ms (it was killed): reinstall osb-isolate, or name a working proxy with OSB_ISOLATE_NETPROXY or osb_set_program()"
	startup_run "$pol" "$m: a proxy never ready" "$msg" OSB_ISOLATE_NETPROXY="$T/hangs"
	expect_eq "$m: the proxy that was never ready is gone" "" "$(pgrep -f "^sleep 600\.$$"1 | tr '\n' ' ')"
	msg="cannot start the filtering proxy OSB_ISOLATE_NETPROXY=$T/badinterp: No such file or directory (reinstall osb-isolate, or name a working proxy with OSB_ISOLATE_NETPROXY or osb_set_program())"
	startup_run "$pol" "$m: a proxy that cannot be executed" "$msg" OSB_ISOLATE_NETPROXY="$T/badinterp"
	msg="the filtering proxy $T/noexec is not an executable file without setuid or setgid"
	startup_run "$pol" "$m: a proxy that is not executable" "$msg" OSB_ISOLATE_NETPROXY="$T/noexec"
	msg="\"network allow\" needs the filtering proxy OSB_ISOLATE_NETPROXY=$T/missing: No such file or directory (is osb-isolate installed? OSB_ISOLATE_NETPROXY or osb_set_program() names another)"
	startup_run "$pol" "$m: a proxy that is missing" "$msg" OSB_ISOLATE_NETPROXY="$T/missing"
	expect_eq "$m: no proxy is left after the refused launches" "" "$(proxies)"
}

# The proxy killed while the command runs: its connections fail (closed),
# and the result names the cause.
death_case() { # identity
	local pol m=$1 json p t name=nad$$-$1 out
	pol=$(policy "$1")
	(cd / && exec "$OSB" run --json -p "$pol" -- sh -c \
		'sleep 3; curl -sS -m 5 -o /dev/null -w "%{http_code}" http://allowed.test:8080/marker; echo " curl=$?"') \
		>"$T/death.json" 2>/dev/null &
	for t in $(seq 50); do p=$(proxies); [ -n "$p" ] && break; sleep 0.1; done
	kill -KILL $p 2>/dev/null
	wait $!
	json=$(cat "$T/death.json")
	expect_eq "$m: a proxy killed while the sandbox runs fails the run, named in the result" \
		"125 netproxy 000 curl=failed the filtering proxy OSB_ISOLATE_NETPROXY=$PROXY was killed by signal 9 (SIGKILL) while the sandbox ran: connections through it failed from then on" \
		"$(jfield status <<<"$json") $(jfield error stage <<<"$json") $(jfield stdout <<<"$json" | head -n1 | sed 's/curl=[1-9][0-9]*/curl=failed/') $(jfield error message <<<"$json")"
	out=$(cd / && "$OSB" session start -n "$name" -p "$pol" 2>&1)
	p=$(proxies)
	kill -KILL $p 2>/dev/null
	for t in $(seq 50); do [ -z "$(proxies)" ] && break; sleep 0.1; done
	json=$("$OSB" session exec "$name" --json -- sh -c 'curl -sS -m 5 -o /dev/null http://allowed.test:8080/marker; echo "curl=$?"' 2>/dev/null)
	expect_eq "$m: a session command after its proxy died names the cause" \
		"125 netproxy curl=failed the session's filtering proxy OSB_ISOLATE_NETPROXY=$PROXY was killed by signal 9 (SIGKILL) while the sandbox ran: connections through it failed from then on; start a new session" \
		"$(jfield status <<<"$json") $(jfield error stage <<<"$json") $(jfield stdout <<<"$json" | head -n1 | sed 's/curl=[1-9][0-9]*/curl=failed/') $(jfield error message <<<"$json")"
	"$OSB" session stop "$name" >/dev/null 2>&1
}

if [ "$(id -u)" -eq 0 ]; then
	modes="userns root"
else
	modes="userns"
fi
for m in $modes; do
	if [ "$m" = userns ] && ! test_have userns probe_userns; then continue; fi
	startup_cases "$m"
	death_case "$m"
	cases "$m"
	lifecycle "$m"
	session_case "$m"
done
finish_suite $((n - failures)) "$failures"

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
# gone after the run, and after its caller is killed with SIGKILL. The
# servers also hold a package index and an npm registry built here: pip
# download and npm pack (where npm is installed) fetch from allowed.test
# into the workspace, in a run and in a session, and are refused
# forbidden.test, listed in the result. A command flooding the proxy with
# requests it refuses leaves its log (measured from the host, in the
# proxy's fd table) within 1 MiB, ending with one marker that counts the
# lines dropped, and the result says so; the session goes on.
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
	install -m 755 "$OSB_BUILDDIR/helper/osb-isolate-netproxy" "$OSB_BUILDDIR/tests/integration/netspawn" "$stage/bin/"
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
	# A package index (PEP 503 "simple" pages) and an npm registry document,
	# each with one package built here, offline: osbprobe 1.0 as a wheel
	# (METADATA, WHEEL and a RECORD of sha256 digests, as pip checks them)
	# and osbprobe 1.0.0 as an npm tarball (package/package.json) whose
	# sha512 integrity the registry document states. Both are the same bytes
	# on every server (fixed times). Prints the sha256 of the wheel and of
	# the tarball.
	pkg_registry() { # directory base-URL
		python3 - "$1" "$2" <<-'EOF'
		import base64, gzip, hashlib, io, json, os, sys, tarfile, zipfile
		root, base = sys.argv[1], sys.argv[2]
		def digest(d): return base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode()
		info = "osbprobe-1.0.dist-info/"
		files = {"osbprobe/__init__.py": b"MARKER = 'osb-pip'\n",
		         info + "METADATA": b"Metadata-Version: 2.1\nName: osbprobe\nVersion: 1.0\n",
		         info + "WHEEL": b"Wheel-Version: 1.0\nGenerator: netallow.sh\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
		record = "".join("%s,sha256=%s,%d\n" % (n, digest(d), len(d)) for n, d in files.items())
		files[info + "RECORD"] = (record + info + "RECORD,,\n").encode()
		buf = io.BytesIO()
		with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
		    for n, d in files.items():
		        z.writestr(zipfile.ZipInfo(n, (2020, 1, 1, 0, 0, 0)), d)
		whl, wheel = "osbprobe-1.0-py3-none-any.whl", buf.getvalue()
		os.makedirs(root + "/simple/osbprobe")
		open(root + "/" + whl, "wb").write(wheel)
		open(root + "/simple/osbprobe/index.html", "w").write(
		    '<!DOCTYPE html><html><body><a href="../../%s#sha256=%s">%s</a></body></html>\n'
		    % (whl, hashlib.sha256(wheel).hexdigest(), whl))
		buf = io.BytesIO()
		with tarfile.open(fileobj=buf, mode="w") as t:
		    for n, d in {"package/package.json": b'{"name": "osbprobe", "version": "1.0.0"}\n',
		                 "package/index.js": b"module.exports = 'osb-npm';\n"}.items():
		        i = tarfile.TarInfo(n)
		        i.size, i.mtime, i.mode = len(d), 1577836800, 0o644
		        t.addfile(i, io.BytesIO(d))
		tgz = gzip.compress(buf.getvalue(), mtime=0)
		open(root + "/osbprobe-1.0.0.tgz", "wb").write(tgz)
		dist = {"tarball": base + "/osbprobe-1.0.0.tgz", "shasum": hashlib.sha1(tgz).hexdigest(),
		        "integrity": "sha512-" + base64.b64encode(hashlib.sha512(tgz).digest()).decode()}
		json.dump({"name": "osbprobe", "dist-tags": {"latest": "1.0.0"},
		           "versions": {"1.0.0": {"name": "osbprobe", "version": "1.0.0", "dist": dist}}},
		          open(root + "/osbprobe", "w"))
		print(hashlib.sha256(wheel).hexdigest(), hashlib.sha256(tgz).hexdigest())
		EOF
	}
	srv() { # netns address port marker
		local d="$stage/srv-$2-$3"
		mkdir -p "$d" && printf '%s\n' "$4" >"$d/marker" && chmod -R a+rX "$d"
		(cd "$d" && exec ip netns exec "$1" python3 -m http.server "$3" --bind "$2") >/dev/null 2>&1 &
		pids+=($!)
	}
	srv "$R" 198.51.100.2 8080 allowed-marker
	srv "$R" 198.51.100.3 8080 forbidden-marker
	pkg_registry "$stage/srv-198.51.100.2-8080" http://allowed.test:8080 >"$stage/pkg-sums" &&
		pkg_registry "$stage/srv-198.51.100.3-8080" http://forbidden.test:8080 >/dev/null &&
		chmod -R a+rX "$stage/srv-198.51.100.2-8080" "$stage/srv-198.51.100.3-8080" ||
		die "cannot build the package index and registry"
	srv "$H" 127.0.0.1 8090 host-loopback-secret
	# HTTPS: a self-signed certificate made here, offline (openssl).
	if test_have openssl probe_cmd openssl openssl; then
		openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=allowed.test \
			-addext subjectAltName=DNS:allowed.test -keyout "$stage/key.pem" \
			-out "$stage/cert.pem" >/dev/null 2>&1 || die "openssl cannot make a certificate"
		mkdir -p "$stage/srv-tls" && printf 'tls-marker\n' >"$stage/srv-tls/marker"
		pkg_registry "$stage/srv-tls" https://allowed.test:8443 >/dev/null &&
			chmod -R a+rX "$stage/srv-tls" "$stage/cert.pem" || die "cannot build the HTTPS package index"
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
			OSB_REQUIRE="${OSB_REQUIRE:-}" OSB_TEST_HIDE="${OSB_TEST_HIDE:-}" NETALLOW_STAGE="$stage" HTTPS_SERVER="${HTTPS_SERVER:-}" bash "$stage/netallow.sh") || rc=1
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

# ---- package managers through the proxy --------------------------------------------
# pip download from the index allowed.test serves and npm pack from its
# registry (the packages the outer stage built) land their file in the
# workspace, byte for byte what the server holds, and the proxy's log names
# allowed.test for each request they made: they went through the proxy
# (a direct connection fails, above). The same commands against
# forbidden.test, which serves the same packages, fail, and the result
# lists the refusal with its count. Over HTTPS (CONNECT, TLS end to end,
# where openssl made the server's certificate) the allowed fetches succeed
# too, given that certificate. pip is given --trusted-host for a plain-HTTP
# index, which it ignores otherwise; npm gets a cache in the sandbox's /tmp
# and no update check (which would ask registry.npmjs.org). Neither retries,
# so that a proxy that fails them fails the case in seconds, not minutes.

read -r WHEEL_SHA TGZ_SHA <"$S/pkg-sums" || die "no package digests in $S/pkg-sums"

pkg_policy() { # identity
	printf 'osb-policy 1\ninclude %s/strict.policy\nenv set HOME=/tmp\nidentity %s\n%s\n' \
		"$OSB_ISOLATE_POLICY_DIR" "$1" 'network allow allowed.test:8080 allowed.test:8443' >"$T/$1-pkg.policy"
	chmod 644 "$T/$1-pkg.policy"
	echo "$T/$1-pkg.policy"
}

# A new workspace the sandbox's ids can write: a root caller's sandbox runs
# as allocated ids of no account.
pkg_ws() {
	local ws
	ws=$(mktemp -d "$T/ws.XXXXXX") || die "mktemp failed"
	if [ "$(id -u)" -eq 0 ]; then chmod 1777 "$ws"; else chmod 755 "$ws"; fi
	echo "$ws"
}

# npm where strict.policy's view has it (/usr) and it runs.
probe_npm() {
	local p
	WHY="npm is not installed (apt-get install npm; tools/install-deps.sh does not install it)"
	p=$(command -v npm) || return 1
	WHY="npm is $p, outside /usr, the only program directory strict.policy binds"
	case $(readlink -f "$p") in /usr/*) ;; *) return 1 ;; esac
	WHY="npm --version fails"
	HOME=$T npm --version
}

# TOOL_argv URL DIR: ARGV, the command fetching osbprobe from the server at
# URL (http://HOST:PORT, or https:// trusting DIR/ca.pem) into DIR; FILE,
# the name of what it writes there; SHA, that file's digest.
pip_argv() {
	local trust=(--trusted-host "${1#http://}")
	[[ $1 == https://* ]] && trust=(--cert "$2/ca.pem")
	ARGV=(/usr/bin/python3 -m pip download --no-deps --no-cache-dir --disable-pip-version-check
		--retries 0 "${trust[@]}" --index-url "$1/simple/" osbprobe -d "$2")
	FILE=osbprobe-1.0-py3-none-any.whl SHA=$WHEEL_SHA
}
npm_argv() {
	local trust=()
	[[ $1 == https://* ]] && trust=(npm_config_cafile="$2/ca.pem")
	ARGV=(env npm_config_cache=/tmp/npm-cache npm_config_update_notifier=false npm_config_fetch_retries=0 "${trust[@]}"
		npm pack osbprobe --registry "$1/" --pack-destination "$2")
	FILE=osbprobe-1.0.0.tgz SHA=$TGZ_SHA
}

# The network member of a JSON result on stdin, one line: how many
# connections the proxy allowed, each refused HOST:PORT:COUNT, and each
# distinct METHOD HOST:PORT it let through.
net_line() {
	python3 -c 'import json,sys; n=json.load(sys.stdin)["network"]
print("allowed=%d refused=%s via=%s" % (n["allowed"],
      ",".join("%s:%d:%d" % (r["host"], r["port"], r["count"]) for r in n["refused"]),
      ",".join(sorted({"%s %s:%d" % (c["method"], c["host"], c["port"]) for c in n["connections"] if c["action"] == "allowed"}))))'
}

file_sha() { if [ -f "$1" ]; then sha256sum "$1" | cut -d' ' -f1; else echo "no $1"; fi; }

# Connections each tool makes for one package: pip the project page and
# the wheel; npm the registry document twice (the second a revalidation)
# and the tarball (each server closes after one response).
pkg_requests() { case $1 in pip) echo 2 ;; npm) echo 3 ;; esac; }

# The servers a case fetches from: plain HTTP, and HTTPS where openssl made
# its certificate.
pkg_urls() {
	echo http://allowed.test:8080
	[ -n "${HTTPS_SERVER:-}" ] && echo https://allowed.test:8443
}

# pkg_fetch LABEL TOOL URL DIR CMD...: TOOL fetching from the allowed URL into
# DIR with CMD... (run or session exec) succeeds, through the proxy.
pkg_fetch() {
	local label=$1 t=$2 url=$3 dir=$4 json via
	shift 4
	"${t}_argv" "$url" "$dir"
	[[ $url == https://* ]] && install -m 644 "$S/cert.pem" "$dir/ca.pem"
	json=$(cd / && "$@" "${ARGV[@]}" 2>/dev/null)
	expect_eq "$label: $t from $url exits 0 and writes its file to the workspace, byte for byte" \
		"0 $SHA" "$(jfield status <<<"$json") $(file_sha "$dir/$FILE")"
	via="GET allowed.test:8080"
	[[ $url == https://* ]] && via="CONNECT allowed.test:8443"
	expect_eq "$label: $t from $url went through the proxy, to allowed.test only" \
		"allowed=$(pkg_requests "$t") refused= via=$via" "$(net_line <<<"$json")"
}

# pkg_refused LABEL TOOL DIR CMD...: TOOL fetching from forbidden.test (which
# serves the same package) fails, writes nothing, and the refusal is listed.
pkg_refused() {
	local label=$1 t=$2 dir=$3 json
	shift 3
	"${t}_argv" http://forbidden.test:8080 "$dir"
	json=$(cd / && "$@" "${ARGV[@]}" 2>/dev/null)
	expect_eq "$label: $t from forbidden.test fails, writes nothing, and the result lists the refusal" \
		"1 0 allowed=0 refused=forbidden.test:8080:1 via=" \
		"$(jfield status <<<"$json") $(ls -A "$dir" | wc -l) $(net_line <<<"$json")"
}

pkg_run_case() { # identity tool
	local pol ws m=$1 t=$2 url
	pol=$(pkg_policy "$m")
	for url in $(pkg_urls); do
		ws=$(pkg_ws)
		pkg_fetch "$m: run" "$t" "$url" "$ws" "$OSB" run --json -p "$pol" -w "$ws" --
	done
	ws=$(pkg_ws)
	pkg_refused "$m: run" "$t" "$ws" "$OSB" run --json -p "$pol" -w "$ws" --
	expect_eq "$m: no proxy is left after the $t runs" "" "$(proxies)"
}

pkg_session_case() { # identity tools...
	local pol ws m=$1 t url d name=nap$$-$1 out rc
	shift
	pol=$(pkg_policy "$m")
	ws=$(pkg_ws)
	out=$(cd / && "$OSB" session start -n "$name" -p "$pol" -w "$ws" 2>&1); rc=$?
	expect_eq "$m: package session start" "0:$name" "$rc:$out"
	for t in "$@"; do
		for url in $(pkg_urls); do
			d=$ws/$t-${url%%:*}
			mkdir -m 1777 "$d"
			pkg_fetch "$m: session" "$t" "$url" "$d" "$OSB" session exec "$name" --json --
		done
		mkdir -m 1777 "$ws/$t-forbidden"
		pkg_refused "$m: session" "$t" "$ws/$t-forbidden" "$OSB" session exec "$name" --json --
	done
	"$OSB" session stop "$name" >/dev/null 2>&1
	for t in $(seq 50); do [ -z "$(proxies)" ] && break; sleep 0.1; done
	expect_eq "$m: no proxy is left after the package session stops" "" "$(proxies)"
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

# The same through the streaming API (netspawn.c): a command spawned while
# the proxy runs reaches allowed.test; one spawned before the proxy is
# killed, which fetches after, keeps its exit status and its status says
# proxy_died (again on a second wait); the next spawn is refused, naming
# the cause.
spawn_case() { # identity
	local pol m=$1 out p t rc
	pol=$(policy "$1")
	rm -f "$T/ns.in" "$T/ns.out"
	mkfifo "$T/ns.in"
	exec 7<>"$T/ns.in"
	(cd / && exec "$S/bin/netspawn" "$pol" http://allowed.test:8080/marker) <"$T/ns.in" >"$T/ns.out" 2>&1 &
	for t in $(seq 100); do grep -q '^spawned$' "$T/ns.out" && break; sleep 0.1; done
	p=$(proxies)
	kill -KILL $p 2>/dev/null
	for t in $(seq 50); do [ -z "$(proxies)" ] && break; sleep 0.1; done
	echo go >&7
	exec 7>&-
	wait $!; rc=$?
	out=$(sed 's/curl=[1-9][0-9]*/curl=failed/' "$T/ns.out")
	expect_eq "$m: spawn: a command reaches the allowed name while the proxy runs" \
		"alive rc=0 exit=0 signal=0 proxy_died=0 out=200 curl=0" "$(grep '^alive ' <<<"$out")"
	expect_eq "$m: spawn: a command the proxy died under keeps its exit status, and its status says so" \
		"during rc=0 exit=7 signal=0 proxy_died=1 out=000 curl=failed" "$(grep '^during ' <<<"$out")"
	expect_eq "$m: spawn: a second wait reports the same status" \
		"again rc=0 exit=7 proxy_died=1" "$(grep '^again ' <<<"$out")"
	expect_eq "$m: spawn: a command after the proxy died is refused, naming the cause" \
		"0 after rc=-4103 code=4103 stage=netproxy message=the session's filtering proxy OSB_ISOLATE_NETPROXY=$PROXY was killed by signal 9 (SIGKILL) while the sandbox ran: connections through it failed from then on; start a new session" \
		"$rc $(grep '^after ' <<<"$out")"
	expect_eq "$m: spawn: no proxy is left after the session" "" "$(proxies)"
}

# ---- the proxy's log: bounded, and says what it left out ---------------------------
# The log is a memfd of the caller's, outside the sandbox's memory limit: a
# command that floods the proxy with requests it refuses (each a line of
# about 1.6 KB: a "host" of 250 control bytes, escaped sixfold) must not make
# it grow past 1 MiB. It keeps as many lines as fit beside its marker, then
# one marker line, {"action":"truncated","limit":1048576,"dropped":N}, N
# counted on as more are dropped; the result says truncated and N; the
# session goes on, its proxy alive; only the proxy and the caller hold the
# log, no process of the sandbox.

LOG_CAP=1048576
FLOOD='import socket, sys
n, got = int(sys.argv[1]), 0
rq = b"CONNECT " + b"\x01" * 250 + b":1 HTTP/1.1\r\n\r\n"
for i in range(n):
    s = socket.create_connection(("127.0.0.1", 3128), timeout=10)
    s.sendall(rq)
    a = b""
    while True:
        b = s.recv(4096)
        if not b:
            break
        a += b
    s.close()
    got += a.startswith(b"HTTP/1.1 403 ")
print(n, got)'

# The marker line of a log that dropped N lines.
log_marker() { printf '{"action":"truncated","limit":%d,"dropped":%-20d}' "$LOG_CAP" "$1"; }

# How many flood lines fit beside the marker.
flood_kept() {
	python3 -c 'import json, sys
host = "".join("\\u%04x" % 1 for i in range(250))
line = "{\"action\":\"refused\",\"method\":\"CONNECT\",\"host\":\"%s\",\"port\":1,\"address\":null,\"reason\":\"not a host name\"}\n" % host
print((int(sys.argv[1]) - len(sys.argv[2]) - 1) // len(line))' "$LOG_CAP" "$(log_marker 0)"
}

# A flood's JSON result on stdin: what the command printed, then truncated,
# dropped, the decisions kept, the refusals they count, the allowed count.
flood_net() {
	python3 -c 'import json, sys; r = json.load(sys.stdin); n = r["network"]
print(r["stdout"].strip(), n.get("truncated"), n.get("dropped"), len(n["connections"]),
      sum(x["count"] for x in n["refused"]), n["allowed"])'
}

# The log as the proxy PID holds it (its fd 4): within the cap or not, how
# many lines before the last are decisions, and the last line.
log_state() {
	python3 -c 'import json, sys
d = open("/proc/%s/fd/4" % sys.argv[1], "rb").read()
lines = d.decode().split("\n")
body, last = lines[:-2], lines[-2] if len(lines) > 1 else ""
ok = all(json.loads(l)["action"] == "refused" for l in body) and lines[-1] == ""
print("within" if len(d) <= int(sys.argv[2]) else "over:%d" % len(d), len(body) if ok else "bad", last[:100])' "$1" "$LOG_CAP"
}

# The processes holding the memfd the proxy PID logs to, by name.
log_holders() {
	local ino f p names=()
	ino=$(stat -L -c %i "/proc/$1/fd/4") || return
	for f in /proc/[0-9]*/fd/*; do
		[[ $(readlink "$f" 2>/dev/null) == /memfd:osb-netlog* ]] || continue
		[ "$(stat -L -c %i "$f" 2>/dev/null)" = "$ino" ] || continue
		p=${f#/proc/}
		names+=("$(cat "/proc/${p%%/*}/comm" 2>/dev/null)")
	done
	printf '%s\n' "${names[@]}" | sort -u | tr '\n' ' '
}

flood_case() { # identity
	local pol m=$1 json name=naf$$-$1 out rc p k
	pol=$(policy "$1")
	k=$(flood_kept)
	json=$(cd / && "$OSB" run --json -p "$pol" -- /usr/bin/python3 -c "$FLOOD" 2000 2>/dev/null)
	expect_eq "$m: run: a flood of refused requests leaves a log of $k lines, reported truncated with the lines dropped" \
		"2000 2000 True $((2000 - k)) $k $k 0" "$(flood_net <<<"$json")"
	out=$(cd / && "$OSB" session start -n "$name" -p "$pol" 2>&1); rc=$?
	expect_eq "$m: flood session start" "0:$name" "$rc:$out"
	p=$(proxies)
	p=${p%% *}
	json=$("$OSB" session exec "$name" --json -- /usr/bin/python3 -c "$FLOOD" 2500 2>/dev/null)
	expect_eq "$m: session: the flood's result reports the log truncated with the lines dropped" \
		"2500 2500 True $((2500 - k)) $k $k 0" "$(flood_net <<<"$json")"
	expect_eq "$m: session: the log stays within $LOG_CAP bytes and ends with one marker naming the lines dropped" \
		"within $k $(log_marker $((2500 - k)))" "$(log_state "$p")"
	expect_eq "$m: session: only the proxy and its caller hold the log" \
		"osb-isolate osb-isolate-net " "$(log_holders "$p")"
	json=$("$OSB" session exec "$name" --json -- curl -sS -m 10 http://allowed.test:8080/marker 2>/dev/null)
	expect_eq "$m: session: a command after the flood still reaches the allowed name; its line is counted dropped" \
		"allowed-marker True 1 0 0 0" "$(flood_net <<<"$json")"
	expect_eq "$m: session: the marker counts it, the log no longer" \
		"within $k $(log_marker $((2501 - k)))" "$(log_state "$p")"
	"$OSB" session stop "$name" >/dev/null 2>&1
	for t in $(seq 50); do [ -z "$(proxies)" ] && break; sleep 0.1; done
	expect_eq "$m: no proxy is left after the flood session stops" "" "$(proxies)"
}

if [ "$(id -u)" -eq 0 ]; then
	modes="userns root"
else
	modes="userns"
fi
tools=
test_have pip probe_python_module pip python3-pip && tools+=" pip"
test_have npm probe_npm && tools+=" npm"
for m in $modes; do
	if [ "$m" = userns ] && ! test_have userns probe_userns; then continue; fi
	startup_cases "$m"
	death_case "$m"
	spawn_case "$m"
	cases "$m"
	lifecycle "$m"
	session_case "$m"
	flood_case "$m"
	for t in $tools; do pkg_run_case "$m" "$t"; done
	[ -n "$tools" ] && pkg_session_case "$m" $tools
done
finish_suite $((n - failures)) "$failures"

#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# execd-go.sh — the execd integration, proved from Go: build examples/execd-go
# (cgo, `#cgo pkg-config: osb-isolate`) against the BUILD TREE's library
# through a generated .pc file (never an installed copy), then run it as root
# (profile with "identity root": the container deployment) and as the
# unprivileged test user (user namespaces), and check every event it prints:
# the capabilities it would serve, refused requests with the library's exact
# messages, two commands run at once from two goroutines with their streamed
# lines and statuses, the destroyed session, and the session that outlives
# the thread that started it exiting. With --race (execd-go-race.sh) the program is
# built and run under the Go race detector, which must be available.
set -uo pipefail
. "$OSB_SRCDIR/tests/integration/lib.sh"

race=0
[ "${1:-}" = --race ] && race=1
name=execd-go$([ "$race" -eq 1 ] && echo -race)
fatal() { echo "FAIL: $name: $*" >&2; echo "0 passed, 1 failed"; exit 1; }

test_need root probe_root
test_need go probe_cmd go golang-go
command -v gcc >/dev/null || fatal "cgo needs gcc: apt-get install gcc"
command -v python3 >/dev/null || fatal "python3 is needed to check the JSON events"
lib=$OSB_BUILDDIR/.libs/libosb-isolate.so
[ -e "$lib" ] || fatal "$lib is missing: build first (make check builds it)"
case "$OSB_SRCDIR$OSB_BUILDDIR" in *[[:space:]]*) fatal "a .pc file cannot hold paths with blanks: $OSB_SRCDIR, $OSB_BUILDDIR";; esac

# Can this toolchain build anything with -race? Asked only after the real
# build failed, to tell a missing race detector (a skip) from a broken build.
race_works() {
	mkdir -p "$tmp/race"
	printf 'module racecheck\n\ngo 1.19\n' >"$tmp/race/go.mod"
	printf 'package main\n\nfunc main() {}\n' >"$tmp/race/main.go"
	(cd "$tmp/race" && env -i PATH="$PATH" HOME="$tmp" GOCACHE="$tmp/gocache" GOPATH="$tmp/gopath" \
		GOENV=off GOFLAGS= GOPROXY=off CGO_ENABLED=1 CC=gcc go build -race -o /dev/null .) >/dev/null 2>&1
}
false_because() { WHY=$1; return 1; }

stage=$(stage_artifacts) || exit 99
tmp=$(mktemp -d /tmp/osb-go.XXXXXX) || exit 99
trap 'rm -rf "$stage" "$tmp"' EXIT
ensure_test_user

# ---- build against the build tree -------------------------------------------------
mkdir -p "$tmp/pkgconfig" "$stage/lib"
version=$(sed -n 's/^#define OSB_ISOLATE_VERSION "\(.*\)"$/\1/p' "$OSB_SRCDIR/lib/osb-isolate.h")
cat >"$tmp/pkgconfig/osb-isolate.pc" <<EOF
Name: osb-isolate
Description: libosb-isolate of the build tree $OSB_BUILDDIR
Version: $version
Cflags: -I$OSB_SRCDIR/lib
Libs: -L$OSB_BUILDDIR/.libs -losb-isolate
EOF
# The program runs from the stage, which the test user can read (the build
# tree may not be): the library is copied there and found through rpath.
cp -P "$OSB_BUILDDIR"/.libs/libosb-isolate.so* "$stage/lib/"
chmod -R a+rX "$stage/lib"
build_flags=(-trimpath -buildvcs=false)
[ "$race" -eq 1 ] && build_flags+=(-race)
echo "# go build ${build_flags[*]} ($(go version))"
# PKG_CONFIG_LIBDIR replaces pkg-config's default search path, so an
# installed osb-isolate.pc cannot be picked up instead of the build tree's.
if ! (cd "$OSB_SRCDIR/examples/execd-go" && env -i PATH="$PATH" HOME="$tmp" \
	GOCACHE="$tmp/gocache" GOPATH="$tmp/gopath" GOENV=off GOFLAGS= GOPROXY=off GO111MODULE=on \
	CGO_ENABLED=1 CC=gcc PKG_CONFIG_LIBDIR="$tmp/pkgconfig" PKG_CONFIG_PATH= \
	CGO_LDFLAGS="-Wl,-rpath,$stage/lib" \
	go build "${build_flags[@]}" -o "$stage/bin/execd-go" .) >"$tmp/build.log" 2>&1; then
	sed 's/^/#   /' "$tmp/build.log"
	[ "$race" -eq 1 ] && ! race_works &&
		test_need go-race false_because "go build -race cannot build even an empty program here ($(go env GOOS)/$(go env GOARCH)): the race detector needs cgo, gcc and a supported platform"
	[ "$race" -eq 1 ] && fatal "go build -race failed (output above): the race detector needs cgo, gcc and a supported platform (linux/amd64, linux/arm64, ...); this is $(go env GOOS)/$(go env GOARCH)"
	fatal "go build failed (output above)"
fi
chmod a+rx "$stage/bin/execd-go"

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
not_ok() {
	fail=$((fail + 1)); echo "not ok - $1"; shift
	for l in "$@"; do printf '%s\n' "$l" | sed 's/^/#   /'; done
}
expect_eq() { # name expected actual
	if [ "$2" == "$3" ]; then ok "$1"; else not_ok "$1" "expected: $2" "actual:   $3"; fi
}

resolved=$(ldd "$stage/bin/execd-go" | awk '$1 ~ /^libosb-isolate\.so/ { print $3 }')
expect_eq "the program links the build tree's library (staged), not an installed one" \
	"$stage/lib/libosb-isolate.so.0" "$resolved"
if [ "$race" -eq 1 ]; then
	expect_eq "the binary is built with the race detector" "-race=true" \
		"$(go version -m "$stage/bin/execd-go" | awk '$1 == "build" && $2 ~ /^-race=/ { print $2 }')"
fi

# ---- one run: as root (identity root) or as the test user (userns) ---------------
strict=$stage/policy/strict.policy
net_line=$(grep -n '^network none$' "$strict" | cut -d: -f1)
deny_line=$(grep -n '^env deny \*_TOKEN ' "$strict" | cut -d: -f1)
if [ -z "$net_line" ] || [ -z "$deny_line" ]; then
	fatal "strict.policy has no 'network none' or 'env deny *_TOKEN' line"
fi

# check_run WHO PROFILE: write the requests, run, check the events.
check_run() {
	local who=$1 profile=$2 dir=$stage/$1 rc user_wrap=()
	mkdir -p "$dir/ws" "$dir/out/job" "$dir/req"
	chmod 755 "$dir" "$dir/ws" "$dir/out" "$dir/req"
	printf 'osb-policy 1\ninclude %s\nwrite-root %s\n%s' "$strict" "$dir/out" \
		"$([ "$who" = root ] && echo 'identity root')" >"$stage/policy/$profile.policy"
	chmod a+r "$stage/policy/$profile.policy"
	local host_ids=
	if [ "$who" = root ]; then
		# A root caller's daemon pins the host ids of each session (ids no
		# account uses) and gives the session its directory.
		chown 1500:1500 "$dir/out/job"
		host_ids=', "host_uid": 1500, "host_gid": 1500'
	else
		chown "$TEST_USER:" "$dir/ws" "$dir/out/job"
		user_wrap=(setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups --)
	fi
	cat >"$dir/req/good.json" <<EOF
{"profile": "$profile", "workspace": {"path": "$dir/ws", "mode": "ro"},
 "extra_writable": ["$dir/out/job"], "network": "none",
 "env": {"mode": "clear", "pass": ["EXECD_DEMO"], "set": {"EXECD_OUT": "$dir/out/job"}},
 "uid": 1500, "gid": 1500, "idle_timeout": "5m"$host_ids}
EOF
	printf '{"profile": "%s", "network": "host"}\n' "$profile" >"$dir/req/widen-network.json"
	printf '{"profile": "%s", "extra_writable": ["/etc/cron.d"]}\n' "$profile" >"$dir/req/widen-write.json"
	printf '{"profile": "%s", "env": {"pass": ["DEMO_API_TOKEN"]}}\n' "$profile" >"$dir/req/denied-env.json"
	printf '{"profile": "/etc/passwd"}\n' >"$dir/req/profile-path.json"
	chmod -R a+r "$dir/req"

	(cd "$dir/ws" && "${user_wrap[@]}" env -i PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
		HOME=/nonexistent EXECD_DEMO=hello DEMO_API_TOKEN=s3cret \
		GORACE="halt_on_error=1 exitcode=66" \
		OSB_ISOLATE_POLICY_DIR="$stage/policy" \
		"$stage/bin/execd-go" -exec-timeout 20s -init "$stage/bin/osb-isolate-init" -demo-thread-exit "$dir/req/good.json" \
		"$dir/req/good.json" "$dir/req/widen-network.json" "$dir/req/widen-write.json" \
		"$dir/req/denied-env.json" "$dir/req/profile-path.json") >"$dir/out.jsonl" 2>"$dir/err.txt"
	rc=$?
	local before=$fail offered
	# The profiles the capabilities document offers: the policy files, sorted.
	offered=$(for f in "$stage"/policy/*.policy; do f=${f##*/}; echo "${f%.policy}"; done |
		LC_ALL=C sort | paste -sd, - | sed 's/,/, /g')
	echo "# as $who: execd-go exited $rc"
	expect_eq "[$who] execd-go exits 0" 0 "$rc"
	if [ -s "$dir/err.txt" ]; then
		not_ok "[$who] execd-go wrote nothing to stderr (no race report, no error)" \
			"$(head -c 3000 "$dir/err.txt")"
	else
		ok "[$who] execd-go wrote nothing to stderr (no race report, no error)"
	fi
	WHO=$who DIR=$dir PROFILE=$profile STRICT=$strict NET_LINE=$net_line DENY_LINE=$deny_line OFFERED=$offered \
		python3 - "$dir/out.jsonl" <<'PY' >"$dir/check.txt"
import json, os, re, sys

who, d, profile = os.environ["WHO"], os.environ["DIR"], os.environ["PROFILE"]
strict, net_line = os.environ["STRICT"], os.environ["NET_LINE"]
offered, deny_line = os.environ["OFFERED"], os.environ["DENY_LINE"]
events = []
with open(sys.argv[1]) as f:
    for n, line in enumerate(f, 1):
        try:
            events.append(json.loads(line))
        except ValueError as e:
            print("FAIL line %d is not JSON: %s: %r" % (n, e, line[:200]))

def check(name, cond, detail=""):
    print(("PASS " if cond else "FAIL ") + "[%s] %s%s" % (who, name, "" if cond else ": " + detail))

def eq(name, want, got):
    check(name, want == got, "expected %r, got %r" % (want, got))

caps = events[0] if events else {}
eq("the first event is the capabilities document", "capabilities", caps.get("event"))
eq("capabilities: available is true", True, caps.get("available"))
doc = caps.get("capabilities") or {}
eq("the served document says available", True, doc.get("available"))
check("the served document offers the profile", profile in doc.get("profiles", []),
      repr(doc.get("profiles")))
eq("the served document names bubblewrap", "bubblewrap", doc.get("isolator"))

def request(path):
    got = [e for e in events if e.get("event") == "request" and e.get("request") == path]
    return got[0] if len(got) == 1 else {"missing": path}

good = d + "/req/good.json"
g = request(good)
eq("the good request is accepted", True, g.get("accepted"))
check("the accepted request reports the policy hash",
      re.fullmatch(r"sha256:[0-9a-f]{64}", g.get("policy_hash", "")) is not None, repr(g))

refused = {
    "widen-network.json": ("policy", '"network": the host network is refused: the policy '
                           '%s/%s.policy has "network none" (%s:%s) and does not grant callers '
                           'the host network (a policy grants it with "allow-caller network")'
                           % (os.path.dirname(strict), profile, strict, net_line)),
    # Refused as the request is read, before it meets the policy: a system
    # directory is never writable (both request readers say so alike).
    "widen-write.json": ("policy", '"extra_writable[0]": "/etc/cron.d": inside /etc (host '
                         'configuration: cron, sudoers, PAM, profile scripts run as root); '
                         'choose a project directory'),
    "denied-env.json": ("policy", '"env.pass[0]": "DEMO_API_TOKEN" is refused: it matches '
                        '"env deny *_TOKEN" (%s:%s), and deny wins over a request' % (strict, deny_line)),
    "profile-path.json": ("execd", 'profile "/etc/passwd" is not offered (offered: %s)' % offered),
}
for f, (stage, msg) in refused.items():
    r = request(d + "/req/" + f)
    eq(f + " is refused", False, r.get("accepted"))
    err = r.get("error") or {}
    eq(f + ": error code 4098 (OSB_E_POLICY)", (4098, "policy"), (err.get("code"), err.get("code_name")))
    eq(f + ": stage", stage, err.get("stage"))
    eq(f + ": message", msg, err.get("message"))

sess = [e for e in events if e.get("event") == "session"]
eq("the good request's session is started, then destroyed",
   [(good, "started"), (good, "destroyed")], [(e.get("request"), e.get("state")) for e in sess])
eq("the destroyed session's sandbox has ended", True, (sess[-1] if sess else {}).get("sandbox_ended"))
check("the session reports no error", all("error" not in e for e in sess), repr(sess))

lines = {}
for e in events:
    if e.get("event") == "output":
        lines.setdefault((e["cmd"], e["stream"]), []).append(e["line"])
eq("a's stdout, streamed line by line", ["a: uid=1500 gid=1500",
   "a: EXECD_DEMO=hello DEMO_API_TOKEN=unset", "a: wrote %s/out/job/a.txt" % d],
   lines.get(("a", "stdout")))
eq("a's stderr", ["a: saw b"], lines.get(("a", "stderr")))
eq("b's stdout", ["b: saw a", "b: workspace read-only"], lines.get(("b", "stdout")))
eq("b's stderr", ["b: terminating"], lines.get(("b", "stderr")))

results = {e["cmd"]: e for e in events if e.get("event") == "result"}
def status(c):
    r = results.get(c, {})
    return {k: r.get(k) for k in ("exit_code", "signal", "timed_out", "proxy_died",
                                  "stdout_lines", "stderr_lines", "error", "output_error")}
# proxy_died (osb_status.proxy_died) is false: "network none" starts no proxy.
eq("a's result: exit code 3", {"exit_code": 3, "signal": 0, "timed_out": False, "proxy_died": False,
   "stdout_lines": 3, "stderr_lines": 1, "error": None, "output_error": None}, status("a"))
eq("b's result: killed by SIGTERM", {"exit_code": -1, "signal": 15, "timed_out": False,
   "proxy_died": False, "stdout_lines": 2, "stderr_lines": 1, "error": None, "output_error": None},
   status("b"))
check("each result has a duration and a pid",
      all(isinstance(results.get(c, {}).get("duration_ms"), int) and results.get(c, {}).get("pid", 0) > 0
          for c in "ab"), repr(results))
for c in "ab":
    outs = [i for i, e in enumerate(events) if e.get("event") == "output" and e.get("cmd") == c]
    res = [i for i, e in enumerate(events) if e.get("event") == "result" and e.get("cmd") == c]
    check("%s's lines are streamed before its result" % c, bool(outs) and bool(res) and max(outs) < res[0])
destroyed = [i for i, e in enumerate(events) if e.get("event") == "session" and e.get("state") == "destroyed"]
res = [i for i, e in enumerate(events) if e.get("event") == "result"]
check("the session is destroyed after both results", bool(destroyed) and len(res) == 2 and max(res) < destroyed[0])

demo = [e for e in events if e.get("event") == "thread_exit_demo"]
dm = demo[0] if demo else {}
eq("a session whose starting thread exits lives on (its owner process is bwrap's parent)",
   False, dm.get("sandbox_ended"))
eq("... and runs the next command", None, dm.get("spawn_error"))
PY
	while IFS= read -r l; do
		case $l in
			PASS\ *) ok "${l#PASS }" ;;
			*) not_ok "${l#FAIL }" ;;
		esac
	done <"$dir/check.txt"
	if [ "$fail" -gt "$before" ]; then
		echo "# events after the capabilities document:"; tail -n +2 "$dir/out.jsonl" | sed 's/^/#   /'
	fi
	expect_eq "[$who] the extra writable path received a's file on the host" "written by a" \
		"$(cat "$dir/out/job/a.txt" 2>&1)"
	expect_eq "[$who] the read-only workspace was not written" "absent" \
		"$([ -e "$dir/ws/b.txt" ] && echo present || echo absent)"
	expect_eq "[$who] no sandbox process is left" "" \
		"$(pgrep -af "$stage/bin/osb-isolate-init" || true)"
}

# ---- the HTTP server (server.go), driven by its Go tests --------------------------
# The test binary is built like the program (against the build tree, with
# -race under execd-go-race.sh) and run as root and as the test user:
# capabilities, 20 sessions at once, an output flood, a timeout, a client that
# goes away, background commands, files, shell state, services, and a daemon
# killed with SIGKILL whose sessions a new daemon attaches to.
if ! (cd "$OSB_SRCDIR/examples/execd-go" && env -i PATH="$PATH" HOME="$tmp" \
	GOCACHE="$tmp/gocache" GOPATH="$tmp/gopath" GOENV=off GOFLAGS= GOPROXY=off GO111MODULE=on \
	CGO_ENABLED=1 CC=gcc PKG_CONFIG_LIBDIR="$tmp/pkgconfig" PKG_CONFIG_PATH= \
	CGO_LDFLAGS="-Wl,-rpath,$stage/lib" \
	go test -c "${build_flags[@]}" -o "$stage/bin/execd-go.test" .) >"$tmp/build-test.log" 2>&1; then
	sed 's/^/#   /' "$tmp/build-test.log"
	fatal "go test -c failed (output above)"
fi
chmod a+rx "$stage/bin/execd-go.test"

# go_tests WHO: run the server's tests; each result is one TAP line.
go_tests() {
	local who=$1 wrap=() out=$stage/go-tests-$1.txt
	[ "$who" = user ] && wrap=(setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups --)
	(cd / && "${wrap[@]}" env -i PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 HOME=/nonexistent \
		TMPDIR=/tmp GORACE="halt_on_error=1 exitcode=66" \
		EXECD_TEST_INIT="$stage/bin/osb-isolate-init" OSB_ISOLATE_POLICY_DIR="$stage/policy" \
		"$stage/bin/execd-go.test" -test.v -test.timeout 900s) >"$out" 2>&1
	local rc=$? before=$fail
	while IFS= read -r l; do
		case $l in
			"--- PASS: "*) ok "[$who] go: ${l#--- PASS: }" ;;
			"--- FAIL: "*) not_ok "[$who] go: ${l#--- FAIL: }" ;;
		esac
	done <"$out"
	expect_eq "[$who] the server's Go tests exit 0" 0 "$rc"
	if grep -q "WARNING: DATA RACE" "$out"; then not_ok "[$who] go: no data race"
	else ok "[$who] go: no data race"; fi
	[ "$fail" -gt "$before" ] && sed 's/^/#   /' "$out" | tail -n 60
	expect_eq "[$who] no sandbox process is left after the Go tests" "" \
		"$(pgrep -af "$stage/bin/osb-isolate-init" || true)"
}

check_run root execd-root
go_tests root
if test_have userns probe_userns user; then check_run user execd-user; go_tests user; fi
finish_suite "$pass" "$fail"

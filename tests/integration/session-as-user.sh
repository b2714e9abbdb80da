#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# session-as-user.sh — run the session suite (session.sh) as an unprivileged
# user (osb-test, or $OSB_TEST_USER, created if missing when run as root),
# with a private XDG_RUNTIME_DIR for the sockets; then, when built, the
# library's session tests (tests/unit/check_session) as that user too.
set -euo pipefail
. "$OSB_SRCDIR/tests/integration/lib.sh"
[ "$(id -u)" -ne 0 ] || ensure_test_user
test_need userns probe_userns user
stage=$(stage_artifacts)
trap 'rm -rf "$stage"' EXIT
cp "$OSB_SRCDIR/tests/integration/session.sh" "$stage/"
unit="$OSB_BUILDDIR/tests/unit/check_session"
[ -x "$unit" ] && cp "$unit" "$stage/bin/"
chmod -R a+rX "$stage"
mkdir -m 700 "$stage/run"
as_user() { "$@"; }
if [ "$(id -u)" -eq 0 ]; then
	ensure_test_user
	chown "$TEST_USER:" "$stage/work" "$stage/run"
	as_user() { setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups -- "$@"; }
	home=/nonexistent
else
	home=$HOME
fi
cd "$stage/work"
rc=0
as_user env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$home" LANG=C.UTF-8 OSB_REQUIRE="${OSB_REQUIRE:-}" \
	XDG_RUNTIME_DIR="$stage/run" STAGE="$stage" bash "$stage/session.sh" || rc=1
if [ -x "$stage/bin/check_session" ]; then
	echo "# tests/unit/check_session as $(as_user id -un)"
	as_user env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$home" LANG=C.UTF-8 OSB_REQUIRE="${OSB_REQUIRE:-}" \
		OSB_TEST_STAGE="$stage" "$stage/bin/check_session" || rc=1
fi
# Without XDG_RUNTIME_DIR (su, a container without a login manager): the
# private /tmp/osb-isolate-UID, created 0700 and verified; one planted by
# someone else (root here) or a symlink is refused, never used.
if [ "$(id -u)" -eq 0 ]; then
	uid=$(id -u "$TEST_USER")
	fb=/tmp/osb-isolate-$uid
	no_xdg() { as_user env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/nonexistent LANG=C.UTF-8 \
		OSB_ISOLATE_INIT="$stage/bin/osb-isolate-init" OSB_ISOLATE_POLICY_DIR="$stage/policy" \
		"$stage/bin/osb-isolate" "$@"; }
	check() { if eval "$2"; then echo "ok - $1"; else echo "not ok - $1"; rc=1; fi; }
	rm -rf "$fb"
	st=0; out=$(no_xdg session start -n xdgless -w "$stage/work" 2>&1) || st=$?
	check "session start without XDG_RUNTIME_DIR works (status $st: $out)" '[ "$st" -eq 0 ] && [ "$out" = xdgless ]'
	st=0; out=$(no_xdg session exec xdgless -- echo hi 2>&1) || st=$?
	check "session exec without XDG_RUNTIME_DIR reaches it (status $st: $out)" '[ "$st" -eq 0 ] && [ "$out" = hi ]'
	no_xdg session stop xdgless >/dev/null 2>&1
	check "$fb is a directory of $TEST_USER's with mode 700 ($(stat -c '%U %a' "$fb" 2>&1))" \
		'[ ! -L "$fb" ] && [ "$(stat -c "%U %a" "$fb")" = "$TEST_USER 700" ]'
	rm -rf "$fb"; mkdir -m 700 "$fb"           # planted by root
	st=0; out=$(no_xdg session start -n planted -w "$stage/work" 2>&1) || st=$?
	check "a $fb planted by root is refused (status $st: $out)" \
		'[ "$st" -eq 125 ] && [[ "$out" == *"$fb must be a directory owned by uid $uid with mode 0700"* ]]'
	check "nothing was made in the planted directory" '[ -z "$(ls -A "$fb")" ]'
	rm -rf "$fb"; mkdir -m 700 "$stage/decoy"; chown "$TEST_USER:" "$stage/decoy"; ln -s "$stage/decoy" "$fb"
	st=0; out=$(no_xdg session start -n linked -w "$stage/work" 2>&1) || st=$?
	check "a symlink at $fb is refused, not followed (status $st: $out)" \
		'[ "$st" -eq 125 ] && [ -z "$(ls -A "$stage/decoy")" ]'
	rm -rf "$fb"
fi
# A start that cannot fork its holder, or whose session owner cannot fork
# bwrap, says which process and what to do, and leaves no file of the name.
# RLIMIT_NPROC counts every process of the user, so each start runs once
# $TEST_USER has none left (an earlier start's janitor may still be ending):
# under `ulimit -u 2` the start and its janitor fit and the holder does not;
# under 4 the holder and the session's owner fit too (the holder's probe of
# bwrap has ended by then) and bwrap does not. LeakSanitizer is off for
# these starts, as in session.sh's t_janitor_fork_fails: its exit-time
# check needs a thread the same limit refuses.
user_idle() {
	local i
	for ((i = 0; i < 250; i++)); do pgrep -u "$TEST_USER" >/dev/null || return 0; sleep 0.02; done
	WHY="$TEST_USER still runs processes after 5 s, whose number would decide which fork fails: $(pgrep -a -u "$TEST_USER" | tr '\n' ';')"
	return 1
}
if [ "$(id -u)" -eq 0 ] && test_have nproc-limit user_idle; then
	nproc_start() { # LIMIT -> "STATUS OUTPUT", or what $TEST_USER still runs
		local out st=0
		user_idle || { echo "busy: $(pgrep -a -u "$TEST_USER" | tr '\n' ';')"; return; }
		out=$(as_user env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/nonexistent LANG=C.UTF-8 \
			ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			XDG_RUNTIME_DIR="$stage/run" OSB_ISOLATE_INIT="$stage/bin/osb-isolate-init" \
			OSB_ISOLATE_POLICY_DIR="$stage/policy" bash -c 'ulimit -u "$1" && exec "$2" session start \
			-n "nproc$1" -w "$3"' sh "$1" "$stage/bin/osb-isolate" "$stage/work" 2>&1) || st=$?
		echo "$st $out"
	}
	hint="Resource temporarily unavailable (the process limit, ulimit -u, is reached: raise it or stop other processes)"
	out=$(nproc_start 2)
	check "a start whose holder cannot be forked fails with 125, saying which process and what to do ($out)" \
		'[ "$out" = "125 osb-isolate: session: cannot start session nproc2: cannot fork the session'"'"'s holder: $hint" ]'
	out=$(nproc_start 4)
	check "a start whose owner cannot fork bwrap fails with 125, saying which process and what to do ($out)" \
		'[ "$out" = "125 osb-isolate: session: cannot start session nproc4: bwrap: sandbox setup failed: osb-isolate session owner: cannot fork bwrap: $hint" ]'
	user_idle || true
	check "... and neither leaves a file of its name ($(ls -A "$stage/run/osb-isolate"))" \
		'! ls -A "$stage/run/osb-isolate" | grep -q "^nproc"'
fi
exit "$rc"

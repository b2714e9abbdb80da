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
exit "$rc"

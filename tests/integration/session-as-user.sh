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
exit "$rc"

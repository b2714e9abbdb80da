#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# stdio.sh — run stdio-suite.sh (the caller's terminal, --tty, write errors on
# the caller's side) as root and as the unprivileged test user (osb-test, or
# $OSB_TEST_USER, created if missing), each with its own session directory;
# run by an unprivileged user, as that user only.
set -euo pipefail
. "$OSB_SRCDIR/tests/integration/lib.sh"
for t in script python3 setpriv; do
	if ! command -v "$t" >/dev/null; then
		echo "SKIP: $t is not installed (tools/install-deps.sh installs it)"
		exit 77
	fi
done
stage=$(stage_artifacts)
trap 'rm -rf "$stage"' EXIT
cp "$OSB_SRCDIR/tests/integration/stdio-suite.sh" "$stage/"
chmod a+r "$stage/stdio-suite.sh"
mkdir -m 700 "$stage/run"
run_suite() { # home [XDG_RUNTIME_DIR]: the suite in $stage/work as the current user
	env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$1" LANG=C.UTF-8 ${2:+XDG_RUNTIME_DIR="$2"} \
		STAGE="$stage" bash "$stage/stdio-suite.sh"
}
as_user() { setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups -- "$@"; }
rc=0
cd "$stage/work"
if [ "$(id -u)" -eq 0 ]; then
	run_suite /root || rc=1
	ensure_test_user
	chown -R "$TEST_USER:" "$stage/work" "$stage/run"
	as_user env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/nonexistent LANG=C.UTF-8 \
		XDG_RUNTIME_DIR="$stage/run" STAGE="$stage" bash "$stage/stdio-suite.sh" || rc=1
else
	run_suite "$HOME" "$stage/run" || rc=1
fi
exit "$rc"

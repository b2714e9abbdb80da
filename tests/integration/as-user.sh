#!/bin/bash
# as-user.sh — run the integration suite as an unprivileged user. As root it
# creates the user (osb-test, or $OSB_TEST_USER) if missing and drops to it;
# run by an unprivileged user it runs as that user.
set -euo pipefail
. "$OSB_SRCDIR/tests/integration/lib.sh"
stage=$(stage_artifacts)
trap 'rm -rf "$stage"' EXIT
if [ "$(id -u)" -eq 0 ]; then
	ensure_test_user
	chown "$TEST_USER:" "$stage/work"
	cd "$stage/work"
	setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups -- \
		env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/nonexistent LANG=C.UTF-8 \
		STAGE="$stage" bash "$stage/suite.sh"
else
	cd "$stage/work"
	env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$HOME" LANG=C.UTF-8 \
		STAGE="$stage" bash "$stage/suite.sh"
fi

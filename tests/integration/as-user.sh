#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# as-user.sh — run the integration suite as an unprivileged user. As root it
# creates the user (osb-test, or $OSB_TEST_USER) if missing and drops to it;
# run by an unprivileged user it runs as that user. Skipped (exit 77, saying
# why) when that user cannot create user namespaces.
set -euo pipefail
. "$OSB_SRCDIR/tests/integration/lib.sh"
[ "$(id -u)" -ne 0 ] || ensure_test_user
test_need userns probe_userns user
stage=$(stage_artifacts)
trap 'rm -rf "$stage"' EXIT
if [ "$(id -u)" -eq 0 ]; then
	chown "$TEST_USER:" "$stage/work"
	cd "$stage/work"
	setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups -- \
		env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/nonexistent LANG=C.UTF-8 OSB_REQUIRE="${OSB_REQUIRE:-}" \
		STAGE="$stage" bash "$stage/suite.sh"
else
	cd "$stage/work"
	env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$HOME" LANG=C.UTF-8 OSB_REQUIRE="${OSB_REQUIRE:-}" \
		STAGE="$stage" bash "$stage/suite.sh"
fi

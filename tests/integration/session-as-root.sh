#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# session-as-root.sh — run the session suite (session.sh) as real root; the
# sockets go to /run/osb-isolate.
set -euo pipefail
. "$OSB_SRCDIR/tests/integration/lib.sh"
test_need root probe_root
test_need userns probe_userns
stage=$(stage_artifacts)
trap 'rm -rf "$stage"' EXIT
cp "$OSB_SRCDIR/tests/integration/session.sh" "$stage/"
chmod a+r "$stage/session.sh"
cd "$stage/work"
env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 OSB_REQUIRE="${OSB_REQUIRE:-}" \
	STAGE="$stage" bash "$stage/session.sh"

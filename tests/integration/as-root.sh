#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# as-root.sh — run the integration suite as real root (userns mode from root).
# Skipped (exit 77, saying why) when not root or without user namespaces.
set -euo pipefail
. "$OSB_SRCDIR/tests/integration/lib.sh"
test_need root probe_root
test_need userns probe_userns
stage=$(stage_artifacts)
trap 'rm -rf "$stage"' EXIT
cd "$stage/work"
env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 OSB_REQUIRE="${OSB_REQUIRE:-}" \
	STAGE="$stage" bash "$stage/suite.sh"

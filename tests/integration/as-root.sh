#!/bin/bash
# as-root.sh — run the integration suite as real root (userns mode from root).
set -euo pipefail
. "$OSB_SRCDIR/tests/integration/lib.sh"
if [ "$(id -u)" -ne 0 ]; then
	echo "FAIL: the root half of the integration suite needs root; run 'make check' as root" >&2
	echo "(CI runs it as root; it is never skipped)." >&2
	exit 1
fi
stage=$(stage_artifacts)
trap 'rm -rf "$stage"' EXIT
cd "$stage/work"
env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 \
	STAGE="$stage" bash "$stage/suite.sh"

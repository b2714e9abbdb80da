#!/bin/bash
# session-as-root.sh — run the session suite (session.sh) as real root; the
# sockets go to /run/osb-isolate.
set -euo pipefail
. "$OSB_SRCDIR/tests/integration/lib.sh"
if [ "$(id -u)" -ne 0 ]; then
	echo "FAIL: the root half of the session suite needs root; run 'make check' as root" >&2
	exit 1
fi
stage=$(stage_artifacts)
trap 'rm -rf "$stage"' EXIT
cp "$OSB_SRCDIR/tests/integration/session.sh" "$stage/"
chmod a+r "$stage/session.sh"
cd "$stage/work"
env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 \
	STAGE="$stage" bash "$stage/session.sh"

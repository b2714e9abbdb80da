#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# as-root-mode.sh — the integration suite in root mode: bwrap without a user
# namespace, the init switching to the policy's real uid/gid with every
# capability dropped. Run twice: (1) with user namespaces available and the
# shipped policies forced to `identity root`; (2) the container case: under a
# seccomp wrapper that refuses CLONE_NEWUSER (as container runtimes do), with
# the shipped policies unchanged (`identity auto` must fall back to root mode).
set -euo pipefail
. "$OSB_SRCDIR/tests/integration/lib.sh"
test_need root probe_root
nouserns="$OSB_BUILDDIR/tests/integration/nouserns"
[ -x "$nouserns" ] || die "$nouserns is missing: build first"
stage=$(stage_artifacts)
trap 'rm -rf "$stage"' EXIT
cp "$nouserns" "$stage/bin/"
# Policies that include the shipped ones and only change the identity mode:
# strict forces it; balanced, copied as shipped, reads "include strict" from
# this directory (a bare include name is read from the policy directory).
mkdir -p "$stage/policy-root"
printf 'osb-policy 1\ninclude %s\nidentity root\n' "$stage/policy/strict.policy" \
	> "$stage/policy-root/strict.policy"
cp "$stage/policy/balanced.policy" "$stage/policy-root/"
chmod -R a+rX "$stage"
cd "$stage/work"
rc=0
echo "# root mode, forced by policy (user namespaces available)"
env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 OSB_REQUIRE="${OSB_REQUIRE:-}" STAGE="$stage" \
	SUITE_MODE=root SUITE_POLICY_DIR="$stage/policy-root" bash "$stage/suite.sh" || rc=1
echo "# root mode chosen by identity auto, user namespaces blocked"
env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 OSB_REQUIRE="${OSB_REQUIRE:-}" STAGE="$stage" \
	SUITE_MODE=root-auto "$stage/bin/nouserns" bash "$stage/suite.sh" || rc=1
exit "$rc"

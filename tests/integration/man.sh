#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# man.sh — the manual pages are mandoc -Tlint clean and complete: every long
# option that `osb-isolate --help` and each command's --help print, and every
# diagnostic and lint code `osb-isolate check --codes` lists, appears in
# osb-isolate(1); every function the public header declares appears in
# libosb-isolate(3).
set -uo pipefail

: "${OSB_BUILDDIR:?OSB_BUILDDIR must point at the build tree (make check sets it)}"
: "${OSB_SRCDIR:?OSB_SRCDIR must point at the source tree (make check sets it)}"
. "$OSB_SRCDIR/tests/integration/lib.sh"
OSB=${OSB_ISOLATE_BIN:-$OSB_BUILDDIR/helper/osb-isolate}
MAN=$OSB_SRCDIR/man
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
not_ok() { fail=$((fail + 1)); echo "not ok - $1"; }

test_need mandoc probe_cmd mandoc mandoc
[ -x "$OSB" ] || { echo "man.sh: no osb-isolate at $OSB (build first)"; echo "0 passed, 1 failed"; exit 1; }

# ---- mandoc -Tlint over every page ---------------------------------------------
for page in "$MAN"/*.[135]; do
	out=$(mandoc -Tlint -Wwarning "$page" 2>&1)
	if [ -z "$out" ]; then ok "mandoc -Tlint clean: ${page#"$OSB_SRCDIR"/}"; else
		not_ok "mandoc -Tlint: ${page#"$OSB_SRCDIR"/}"
		printf '%s\n' "$out" | sed 's/^/#   /' | head -n 20
	fi
done

# The page as a reader sees it (overstrike removed), so "\-\-policy" in
# the source matches "--policy" as printed by --help.
render() { mandoc -Tascii "$1" | sed 's/.\x08//g'; }
page1=$(render "$MAN/osb-isolate.1")
page3=$(render "$MAN/libosb-isolate.3")

# ---- every option of every command --------------------------------------------
commands=$("$OSB" --help | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }')
[ -n "$commands" ] || not_ok "osb-isolate --help lists commands"
for cmd in "" $commands; do
	# shellcheck disable=SC2086
	help=$("$OSB" $cmd --help 2>&1) || { not_ok "osb-isolate $cmd --help exits 0"; continue; }
	for opt in $(printf '%s\n' "$help" | grep -oE -- '(^|[ ,[])--[a-z][a-z0-9-]*' | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
		if grep -qF -- "$opt" <<<"$page1"; then ok "osb-isolate(1) documents ${cmd:-osb-isolate} $opt"; else
			not_ok "osb-isolate(1) lacks ${cmd:-osb-isolate} $opt"; fi
	done
	if [ -n "$cmd" ]; then
		if grep -qE "^ +$cmd( |$)" <<<"$page1"; then ok "osb-isolate(1) documents the command $cmd"; else
			not_ok "osb-isolate(1) lacks the command $cmd"; fi
	fi
done

# ---- every diagnostic and lint code ---------------------------------------------
codes=$("$OSB" check --codes | awk '{ print $1 }')
[ "$(wc -w <<<"$codes")" -ge 20 ] || not_ok "check --codes lists the codes"
for code in $codes; do
	if grep -qE "(^| )$code( |$)" <<<"$page1"; then ok "osb-isolate(1) documents $code"; else
		not_ok "osb-isolate(1) lacks $code"; fi
done

# ---- every public function ------------------------------------------------------
for fn in $(grep -oE '\bosb_[a-z0-9_]+ *\(' "$OSB_SRCDIR/lib/osb-isolate.h" | tr -d ' (' | sort -u); do
	if grep -qE "(^|[^a-z_])$fn\(" <<<"$page3"; then ok "libosb-isolate(3) documents $fn"; else
		not_ok "libosb-isolate(3) lacks $fn"; fi
done

finish_suite "$pass" "$fail"

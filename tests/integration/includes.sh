#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# includes.sh — tools/includes.sh passes on the source tree and catches a
# cycle: fixture trees with a planted two-file cycle, a self-include and a
# cycle through the include path (helper/ → lib/) must fail with exit 1
# naming the cycle; an acyclic fixture with the same shape must pass.
set -uo pipefail
: "${OSB_SRCDIR:?OSB_SRCDIR must point at the source tree (make check sets it)}"
. "$OSB_SRCDIR/tests/integration/lib.sh"

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
not_ok() { fail=$((fail + 1)); echo "not ok - $1"; shift; printf '#   %s\n' "$@"; }
tool=$OSB_SRCDIR/tools/includes.sh

tmp=$(mktemp -d /tmp/osb-includes.XXXXXX) || exit 99
trap 'rm -rf "$tmp"' EXIT

# expect NAME STATUS EXPECTED-LINE TREE: the tool exits STATUS on TREE and
# prints EXPECTED-LINE (empty: anything).
expect() {
	local out st
	out=$("$tool" "$4" 2>&1); st=$?
	if [ "$st" -ne "$2" ]; then not_ok "$1" "exit $st, expected $2" "$out"; return; fi
	if [ -n "$3" ] && ! grep -qxF -- "$3" <<<"$out"; then not_ok "$1" "no line: $3" "$out"; return; fi
	ok "$1"
}
# tree NAME FILE:INCLUDE... : a fixture; FILE gets '#include "INCLUDE"'
# (INCLUDE empty: no include).
tree() {
	local root=$tmp/$1 spec f inc
	shift
	mkdir -p "$root/lib" "$root/helper" "$root/review"
	for spec in "$@"; do
		f=${spec%%:*} inc=${spec#*:}
		touch "$root/$f"
		[ -n "$inc" ] && printf '#include "%s"\n' "$inc" >>"$root/$f"
	done
	echo "$root"
}

expect "the source tree has no include cycle" 0 "" "$OSB_SRCDIR"
t=$(tree acyclic lib/a.c:a.h lib/a.h:b.h lib/b.h: helper/x.c:a.h helper/x.c:x.h helper/x.h:b.h)
expect "an acyclic fixture passes" 0 "" "$t"
t=$(tree two lib/a.c:a.h lib/a.h:b.h lib/b.h:a.h)
expect "a two-file cycle is named" 1 "cycle: lib/a.h -> lib/b.h -> lib/a.h" "$t"
t=$(tree self lib/s.h:s.h)
expect "a self-include is a cycle" 1 "cycle: lib/s.h -> lib/s.h" "$t"
t=$(tree path helper/h.h:l.h lib/l.h:h.h)
expect "a cycle through the include path (helper/ -> lib/ -> helper/)" 1 \
	"cycle: helper/h.h -> lib/l.h -> helper/h.h" "$t"
t=$(tree spaced lib/p.h:q.h lib/q.h:)
printf '  #  include   "p.h" /* back */\n' >>"$t/lib/q.h"
expect "an indented '#  include' is read" 1 "cycle: lib/p.h -> lib/q.h -> lib/p.h" "$t"
expect "a missing tree is a usage error" 2 "" "$tmp/none"

# The library takes what it executes from calls (osb_set_program), not from
# the environment: secure_getenv at most (docs/ARCHITECTURE.md, "Host facts").
plain=$(grep -nE '(^|[^_[:alnum:]])getenv[[:space:]]*\(' "$OSB_SRCDIR"/lib/*.c || true)
if [ -z "$plain" ]; then ok "lib/ reads the environment only with secure_getenv"
else not_ok "lib/ calls getenv" "$plain"; fi
finish_suite "$pass" "$fail"

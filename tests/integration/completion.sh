#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# completion.sh — the bash completion (completion/osb-isolate.bash.in, as
# built for this tree) against the program's real usage: the commands, the
# session subcommands and every option of every command are the ones --help
# prints; option values complete by kind (policy names, directories).
set -uo pipefail
: "${OSB_BUILDDIR:?OSB_BUILDDIR must point at the build tree (make check sets it)}"
: "${OSB_SRCDIR:?OSB_SRCDIR must point at the source tree (make check sets it)}"
. "$OSB_SRCDIR/tests/integration/lib.sh"

comp=$OSB_BUILDDIR/completion/osb-isolate
[ -r "$comp" ] || { echo "FAIL: $comp is missing: build first (make check builds it)"; exit 1; }
OSB=$OSB_BUILDDIR/helper/osb-isolate
PATH=$OSB_BUILDDIR/helper:$PATH
export OSB_ISOLATE_POLICY_DIR=$OSB_SRCDIR/policy
# shellcheck source=/dev/null
. "$comp"

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
not_ok() { fail=$((fail + 1)); echo "not ok - $1"; shift; printf '#   %s\n' "$@"; }
expect_eq() { if [ "$2" == "$3" ]; then ok "$1"; else not_ok "$1" "expected: $2" "actual:   $3"; fi; }

# complete WORD...: COMPREPLY for the command line "WORD..." (the last word
# is the one being completed), sorted, one line.
complete_line() {
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_osb_isolate
	printf '%s\n' "${COMPREPLY[@]}" | sort -u | paste -sd' '
}
# Long options a --help text lists (its option lines only), sorted.
help_options() {
	"$OSB" "$@" --help | grep -oE '^ +(-[A-Za-z], )?--[a-z][a-z-]*' | grep -oE -- '--[a-z-]+' | sort -u | paste -sd' '
}

expect_eq "the commands are those of osb-isolate --help" \
	"$("$OSB" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\).*/\1/p' | sort -u | paste -sd' ')" \
	"$(complete_line osb-isolate '')"
expect_eq "a prefix narrows the commands" "capabilities check" "$(complete_line osb-isolate c)"
expect_eq "session subcommands" "commit diff discard exec list start stop" "$(complete_line osb-isolate session '')"

for cmd in run check lint audit diff explain hash capabilities "session start" "session exec" \
	"session list" "session stop" "session diff" "session commit" "session discard"; do
	# shellcheck disable=SC2086
	want=$(help_options $cmd)
	# shellcheck disable=SC2086
	got=$(complete_line osb-isolate $cmd -- | tr ' ' '\n' | grep -- '^--' | sort -u | paste -sd' ')
	expect_eq "options of $cmd are those its --help lists" "$want" "$got"
done

expect_eq "--policy completes the shipped policy names" "balanced strict" \
	"$(cd / && complete_line osb-isolate run --policy '' | tr ' ' '\n' | grep -E '^(balanced|strict)$' | paste -sd' ')"
expect_eq "-p (the short form) too" "strict" "$(cd / && complete_line osb-isolate run -p st)"
tmp=$(mktemp -d /tmp/osb-comp.XXXXXX) || exit 99
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/dir-a" && touch "$tmp/file-b"
expect_eq "--workspace completes directories only" "dir-a" "$(cd "$tmp" && complete_line osb-isolate run --workspace '')"
expect_eq "--ro completes files too" "dir-a file-b" "$(cd "$tmp" && complete_line osb-isolate run --ro '')"
expect_eq "--workspace-mode completes the modes" "overlay" \
	"$(cd "$tmp" && complete_line osb-isolate run --workspace-mode o)"
expect_eq "session start --workspace-mode too" "none overlay ro rw" \
	"$(cd "$tmp" && complete_line osb-isolate session start --workspace-mode '')"
expect_eq "--timeout takes a duration: nothing to complete" "" "$(cd "$tmp" && complete_line osb-isolate run --timeout '')"
expect_eq "after -- the sandboxed command's name comes from PATH" "osb-isolate-init" \
	"$(complete_line osb-isolate run -- osb-isolate-i)"
expect_eq "hash takes a policy" "strict" "$(cd "$tmp" && complete_line osb-isolate hash str)"
finish_suite "$pass" "$fail"

#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# lint.sh — static analysis gate: cppcheck and clang-tidy over every C file
# in lib/, review/ and helper/ (globbed, so new files are checked without edits
# here). Configuration is checked in: .clang-tidy (enabled checks, and why
# each disabled one is off) and tools/cppcheck-suppressions.xml (each
# suppression with its reason). Any finding fails. The defines config.h
# would give are passed directly; headers the build generates
# (BUILT_SOURCES, e.g. lib/seccomp-default.h) come from LINT_BUILDDIR, a
# configured build tree, or else from a scratch one made here.
#   tools/lint.sh            both tools
#   tools/lint.sh cppcheck   only one of them (or: clang-tidy)
set -uo pipefail
cd "$(dirname "$0")/.."
src=$PWD

which=${1:-all}
jobs=$(nproc 2>/dev/null || echo 2)
mapfile -t files < <(ls lib/*.c review/*.c helper/*.c | sort)
defs=(-D_GNU_SOURCE '-DOSB_BWRAP_PATH=""' '-DOSB_POLICY_DIR="/usr/local/share/osb-isolate/policy"'
      '-DOSB_INIT_PATH="/usr/local/libexec/osb-isolate/osb-isolate-init"' '-DARCHIVE_SONAME="libarchive.so.13"')
# shellcheck disable=SC2207
deps=($(pkg-config --cflags libseccomp libcap mount json-c)) || { echo "lint: pkg-config failed (tools/install-deps.sh)"; exit 1; }
rc=0

# Generated headers: make them in the given build tree, or in a scratch one.
built=$(sed -n 's/^BUILT_SOURCES *+*= *//p' Makefile.am | tr '\n' ' ')
gen=${LINT_BUILDDIR:-}
if [ -n "$built" ]; then
	if [ -z "$gen" ]; then
		gen=$(mktemp -d /tmp/osb-lint.XXXXXX)
		trap 'rm -rf "$gen"' EXIT
		[ -x configure ] || autoreconf -fi >/dev/null 2>&1
		(cd "$gen" && "$src/configure" --quiet >/dev/null) || { echo "lint: configure failed"; exit 1; }
	fi
	# shellcheck disable=SC2086
	make -s -C "$gen" $built >/dev/null || { echo "lint: cannot generate$built"; exit 1; }
fi
incs=(-Ilib -Ireview ${gen:+-I"$gen" -I"$gen/lib"})

run_cppcheck() {
	local out n
	command -v cppcheck >/dev/null || { echo "lint: cppcheck not installed (tools/install-deps.sh)"; return 1; }
	# The std and posix library models, so that libc semantics are known
	# (not gnu.cfg: cppcheck 2.10's declares accept4's addrlen non-null,
	# which it is not when addr is NULL too); one configuration
	# (_GNU_SOURCE, as the build), not every #ifdef combination.
	out=$(cppcheck -q --std=c11 --enable=warning,style,performance,portability \
		--library=posix -j "$jobs" "${incs[@]}" "${defs[@]}" \
		--suppress-xml=tools/cppcheck-suppressions.xml --error-exitcode=1 \
		--template='{file}:{line}:{column}: {severity}: {message} [{id}]' \
		"${files[@]}" 2>&1)
	local st=$?
	n=$(printf '%s\n' "$out" | grep -cE '^[^ ]+:[0-9]+:[0-9]+: ')
	[ -n "$out" ] && printf '%s\n' "$out"
	echo "lint: cppcheck $(cppcheck --version | awk '{print $2}'): ${#files[@]} files, $n findings"
	[ "$st" -eq 0 ] && [ "$n" -eq 0 ]
}

run_clang_tidy() {
	local tidy out n st
	tidy=$(command -v clang-tidy || command -v clang-tidy-14) ||
		{ echo "lint: clang-tidy not installed (tools/install-deps.sh)"; return 1; }
	# One process per file, in parallel; .clang-tidy is found from the file's
	# directory upwards. Compiler notes go to stderr and are dropped unless
	# the run fails.
	out=$(printf '%s\n' "${files[@]}" | xargs -P "$jobs" -I{} \
		"$tidy" -quiet {} -- -std=gnu11 "${incs[@]}" "${defs[@]}" "${deps[@]}" 2>/dev/null)
	st=$?
	n=$(printf '%s\n' "$out" | grep -cE '^[^ ]+:[0-9]+:[0-9]+: (warning|error):')
	[ -n "$out" ] && printf '%s\n' "$out"
	echo "lint: $("$tidy" --version | grep -o 'version [0-9.]*' | head -n1 | sed 's/^/clang-tidy /'): ${#files[@]} files, $n findings"
	[ "$st" -eq 0 ] && [ "$n" -eq 0 ]
}

case $which in
all) run_cppcheck || rc=1; run_clang_tidy || rc=1 ;;
cppcheck) run_cppcheck || rc=1 ;;
clang-tidy) run_clang_tidy || rc=1 ;;
*) echo "usage: tools/lint.sh [all|cppcheck|clang-tidy]" >&2; exit 2 ;;
esac
[ "$rc" -eq 0 ] && echo "lint: clean" || echo "lint: FAILED"
exit "$rc"

#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# fuzz.sh — build the libFuzzer harnesses in tests/fuzz/ and run each one.
#
# Every tests/fuzz/*.c is one target (its name without .c), linked with the
# library's sources compiled by clang (an out-of-tree build in the work
# directory), all with -fsanitize=fuzzer,address,undefined
# (-fno-sanitize-recover=all), so a
# memory error, undefined behaviour, a leak (LeakSanitizer at the end of
# each input) or a failed property check in the harness (abort) is a crash.
# Per target:
#   1. replay: every file in tests/fuzz/corpus/<target>/ (seeds, checked in),
#      tests/fuzz/regressions/<target>/ (inputs that once crashed) and the
#      target's extra seed directories (policy_parse: the shipped policy/)
#      runs once; any failure fails the run;
#   2. fuzz for FUZZ_SECONDS (default 60) starting from those inputs. New
#      corpus entries go to a scratch directory, never into the tree.
# Any crash fails the run (exit 1).
#
# Usage: tools/fuzz.sh [TARGET...]       (default: every tests/fuzz/*.c)
# Environment:
#   FUZZ_SECONDS   seconds of fuzzing per target (default 60; 0 = replay only)
#   FUZZ_JOBS      targets fuzzed at the same time (default: number of CPUs)
#   FUZZ_WORKDIR   build and output directory (default: a new /tmp/osb-fuzz.*)
#   CC             clang to use (default: clang, else clang-14)
#
# When a crash is found. The report names the input saved by libFuzzer
# (FUZZ_WORKDIR/<target>/crash-*, leak-*, timeout-* or oom-*) and prints it
# in base64, so that a CI log alone is enough to recreate it
# (base64 -d > crash.bin). Reproduce with FUZZ_WORKDIR/bin/<target> FILE.
# Fix the bug, then keep the input as a regression test:
#   cp FILE tests/fuzz/regressions/<target>/<what-it-broke>
# Step 1 replays it on every run from then on, also with FUZZ_SECONDS=0.
#
# Targets: policy_parse (osb_policy_parse), policy_apply_json (execd
# requests, osb_policy_apply_json), policy_narrow (the narrowing and exec
# API the CLI's options land in, and env_build), units (parse_duration_ms,
# parse_size_bytes), result_json (osb_result_json over arbitrary output),
# mountinfo (the reader of /proc/self/mountinfo, lib/mountinfo.c),
# netallow (a "network allow" entry and the proxy's decisions, lib/netallow.c),
# gitindex (the reader of a workspace repository's git index, lib/gitindex.c).
# Adding one: write tests/fuzz/<name>.c with LLVMFuzzerTestOneInput (and
# LLVMFuzzerInitialize if it needs setup), seed tests/fuzz/corpus/<name>/
# and add tests/fuzz/regressions/<name>/.gitkeep; nothing here changes.
set -uo pipefail
cd "$(dirname "$0")/.."
src=$PWD

FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_JOBS=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
work=${FUZZ_WORKDIR:-$(mktemp -d /tmp/osb-fuzz.XXXXXX)}
CC=${CC:-$(command -v clang || command -v clang-14 || true)}
[ -n "$CC" ] && [ -x "$(command -v "$CC")" ] ||
	{ echo "fuzz: clang not found (tools/install-deps.sh installs it)"; exit 1; }
mkdir -p "$work/bin" || exit 1

# Longest input per target: long enough for a policy line over the 4096-byte
# line limit and for output that spans several JSON escapes.
max_len() {
	case $1 in
	policy_parse) echo 16384 ;;
	result_json) echo 65536 ;;
	*) echo 4096 ;;
	esac
}
extra_seeds() {
	case $1 in
	policy_parse) echo "$src/policy" ;;
	esac
}

if [ $# -gt 0 ]; then targets=("$@"); else
	mapfile -t targets < <(ls tests/fuzz/*.c 2>/dev/null | sed 's,.*/,,; s,\.c$,,' | sort)
fi
[ ${#targets[@]} -gt 0 ] || { echo "fuzz: no harnesses in tests/fuzz/"; exit 1; }

# shellcheck disable=SC2207
deps_libs=($(pkg-config --libs libseccomp libcap mount json-c)) ||
	{ echo "fuzz: pkg-config failed (tools/install-deps.sh)"; exit 1; }
san=(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)

echo "fuzz: $("$CC" --version | head -n1); work directory $work"
# The library through its own build system (its exact sources, config.h and
# generated headers), compiled by clang with coverage instrumentation for
# libFuzzer but without libFuzzer's main. Programs the build runs for
# itself (the filter generator) must not fail on a leak report.
build_lib() {
	local b=$work/build
	mkdir -p "$b" && cd "$b" || return 1
	[ -x "$src/configure" ] || (cd "$src" && autoreconf -fi >/dev/null 2>&1)
	# Without CI in the environment: configure would add -Werror, and this
	# build is for fuzzing, not for clang's opinion of the warnings.
	[ -f Makefile ] || env -u CI "$src/configure" --quiet CC="$CC" \
		CFLAGS="-g -O1 -fsanitize=fuzzer-no-link ${san[*]}" \
		LDFLAGS="${san[*]}" >configure.log 2>&1 || { cat configure.log; return 1; }
	# Generated headers first: nothing orders them before the library's
	# objects outside `make all`.
	# shellcheck disable=SC2046
	{ ASAN_OPTIONS=detect_leaks=0 make -j"$FUZZ_JOBS" $(sed -n 's/^BUILT_SOURCES *+*= *//p' "$src/Makefile.am") &&
	  make -j"$FUZZ_JOBS" libosb-isolate-core.la; } >build.log 2>&1 || { cat build.log; return 1; }
}
(build_lib) || { echo "fuzz: building the library failed"; exit 1; }
for t in "${targets[@]}"; do
	[ -f "tests/fuzz/$t.c" ] || { echo "fuzz: no harness tests/fuzz/$t.c"; exit 1; }
	"$CC" -g -O1 -std=gnu11 -Wall -Wextra -Werror "${san[@]}" -fsanitize=fuzzer \
		-Ilib -I"$work/build" -include config.h "-DFUZZ_POLICY_DIR=\"$src/policy\"" \
		$(pkg-config --cflags json-c) "tests/fuzz/$t.c" "$work/build/.libs/libosb-isolate-core.a" \
		"${deps_libs[@]}" -o "$work/bin/$t" ||
		{ echo "fuzz: building $t failed"; exit 1; }
done

# Print what a failed run left behind, in a form a CI log can carry.
report_crash() {
	local t=$1 f
	echo "---- $t: the end of the log ($work/$t/log):"
	grep -vE '^(#[0-9]+|INFO:|MS:|\s*$)' "$work/$t/log" | tail -n 60
	for f in "$work/$t"/crash-* "$work/$t"/leak-* "$work/$t"/timeout-* "$work/$t"/oom-*; do
		[ -f "$f" ] || continue
		echo "---- $t: input $f ($(stat -c %s "$f") bytes), base64:"
		head -c 65536 "$f" | base64 -w 76
		echo "---- reproduce: $work/bin/$t $f"
		echo "---- after the fix: cp $f tests/fuzz/regressions/$t/"
	done
}

# Replay every checked-in input once, then fuzz. Writes $work/$t/status.
run_target() {
	local t=$1 dirs=() seeds=() d execs
	mkdir -p "$work/$t/corpus"
	for d in "tests/fuzz/corpus/$t" "tests/fuzz/regressions/$t" $(extra_seeds "$t"); do
		[ -d "$d" ] && dirs+=("$d")
	done
	mapfile -t seeds < <(find "${dirs[@]}" -type f ! -name .gitkeep 2>/dev/null | sort)
	local opts=(-rss_limit_mb=2048 -timeout=10 -max_len="$(max_len "$t")"
		-artifact_prefix="$work/$t/" -print_final_stats=1)
	if [ ${#seeds[@]} -gt 0 ] &&
		! "$work/bin/$t" "${opts[@]}" "${seeds[@]}" >"$work/$t/log" 2>&1; then
		echo "fail replay ${#seeds[@]} inputs" >"$work/$t/status"
		return
	fi
	if [ "$FUZZ_SECONDS" -eq 0 ]; then
		echo "ok replay ${#seeds[@]} inputs" >"$work/$t/status"
		return
	fi
	if ! "$work/bin/$t" "${opts[@]}" -max_total_time="$FUZZ_SECONDS" \
		"$work/$t/corpus" "${dirs[@]}" >"$work/$t/log" 2>&1; then
		echo "fail fuzz after replaying ${#seeds[@]} inputs" >"$work/$t/status"
		return
	fi
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t/log" | tail -n1)
	echo "ok replayed ${#seeds[@]} inputs, fuzzed ${FUZZ_SECONDS}s: ${execs:-?} execs," \
		"$(find "$work/$t/corpus" -type f | wc -l) new corpus inputs" >"$work/$t/status"
}

running=0
for t in "${targets[@]}"; do
	run_target "$t" &
	running=$((running + 1))
	if [ "$running" -ge "$FUZZ_JOBS" ]; then wait -n; running=$((running - 1)); fi
done
wait

rc=0
for t in "${targets[@]}"; do
	status=$(cat "$work/$t/status" 2>/dev/null || echo "fail (no status)")
	printf 'fuzz: %-16s %s\n' "$t" "$status"
	if [[ $status != ok* ]]; then
		rc=1
		report_crash "$t"
	fi
done
if [ "$rc" -eq 0 ]; then
	echo "fuzz: ${#targets[@]} targets clean"
	[ -z "${FUZZ_WORKDIR:-}" ] && rm -rf "$work"
else
	echo "fuzz: FAILED (work directory kept: $work)"
fi
exit "$rc"

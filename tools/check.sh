#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# check.sh — every quality gate, from a fresh clone. README's test command;
# .ci/run runs exactly this (2 CPUs, 90 minutes for everything; this takes
# about 45: 42 minutes on a loaded 2-CPU machine, 2026-12-02; each gate
# prints its time as it ends). Gates, in order:
#   deps        tools/install-deps.sh (apt packages, only if missing)
#   check       out-of-tree build (--enable-werror), `make check`: unit
#               tests (the leak and bad-input tests among them), init tests,
#               integration suites as root and as an unprivileged user
#   soak        the leak test's soak: 1,000 runs (OSB_SOAK_RUNS) of
#               tests/unit/check_leak in the check build (make check runs 100)
#   lint        tools/lint.sh: cppcheck and clang-tidy on lib/, review/ and helper/;
#               tools/includes.sh: no #include cycle in lib/ helper/ review/
#   sanitizers  second out-of-tree build with --enable-sanitizers (ASan +
#               UBSan, -fno-sanitize-recover=all), `make check`; any test
#               failure or any sanitizer report in a test log fails
#   valgrind    tools/valgrind.sh: the unit tests of the check build under
#               memcheck (errors and definite leaks fail)
#   fuzz        tools/fuzz.sh: every libFuzzer harness in tests/fuzz/,
#               replaying the seeds and regressions, then FUZZ_SECONDS each
#   distcheck   `make distcheck` of the check build
#   package     the Debian packages from that tarball plus debian/
#               (dpkg-buildpackage -us -uc -b), then lintian: no error
# Opt-in (OSB_GATES only): spdx, tools/spdx.sh --check (every source file
# carries its licence line).
# Every gate runs even when an earlier one failed (except deps and the
# build itself), and the run ends with one line per gate: what ran, the
# verdict and the time taken, then one closing line counting every test of
# the test gates: "check.sh: N passed, M failed, K skipped" (a gate that
# failed without a count of its own counts as one failure). Exit status 0
# only when every gate passed or was skipped.
#
# Skips: a test that needs what this host lacks (IA-32 emulation, user
# namespaces, Landlock, root, Go, ...) prints "SKIP: FEATURE: REASON" and
# is counted as skipped, never as passed (README, "Skipped tests").
# OSB_REQUIRE=FEATURE,... turns such a skip into a failure. After the deps
# gate the tools it installs are required: OSB_REQUIRE gains go, go-race,
# mandoc, python3-jsonschema, curl, openssl and pip.
#
# Environment:
#   OSB_GATES      gates to run (default: all), e.g. OSB_GATES="lint fuzz"
#   OSB_CHECK_DIR  where the builds go (default: a new /tmp/osb-check.*,
#                  removed when every gate passed, kept otherwise)
#   FUZZ_SECONDS   fuzzing time per harness (default 60)
#   OSB_SOAK_RUNS  runs of the soak gate (default 1000)
#   OSB_REQUIRE    features whose absence fails instead of skipping
set -uo pipefail
cd "$(dirname "$0")/.."
src=$PWD
gates=${OSB_GATES:-deps spdx check soak lint sanitizers valgrind fuzz distcheck package}
work=${OSB_CHECK_DIR:-$(mktemp -d /tmp/osb-check.XXXXXX)}
mkdir -p "$work" || exit 1
rm -f "$work"/*.counts
results=()
rc=0
t0=$(date +%s)

wanted() { [[ " $gates " == *" $1 "* ]]; }

# gate NAME FUNCTION: run FUNCTION, time it, record "NAME verdict secs detail".
# FUNCTION writes a one-line description of what ran to $work/NAME.detail
# and, for a gate that runs tests, "PASSED FAILED SKIPPED" to
# $work/NAME.counts. Status 77 from FUNCTION: the gate was skipped.
gate() {
	local name=$1 fn=$2 start st detail verdict
	wanted "$name" || return 0
	echo
	echo "======== gate: $name"
	start=$(date +%s)
	: >"$work/$name.detail"
	rm -f "$work/$name.counts"
	"$fn"
	st=$?
	detail=$(head -n1 "$work/$name.detail")
	case $st in
	0) verdict=passed ;;
	77) verdict=skipped ;;
	*) verdict=FAILED; rc=1; [ -s "$work/$name.counts" ] || echo "0 1 0" >"$work/$name.counts" ;;
	esac
	results+=("$(printf '%-11s %-7s %5ss  %s' "$name" "$verdict" $(( $(date +%s) - start )) "$detail")")
	# Said at once too: a run stopped from outside (a CI time limit) still
	# shows how far it got and what each gate took.
	echo "======== gate $name: $verdict in $(( $(date +%s) - start ))s (total $(( $(date +%s) - t0 ))s)"
	[ "$st" -eq 77 ] && return 0
	return "$st"
}

finish() {
	local p=0 f=0 k=0 a b c file
	echo
	echo "======== gates (build directory: $work)"
	printf '%s\n' "${results[@]}"
	echo "total $(( $(date +%s) - t0 ))s: $([ "$rc" -eq 0 ] && echo "all gates passed" || echo "FAILED")"
	for file in "$work"/*.counts; do
		[ -e "$file" ] || continue
		read -r a b c <"$file"
		p=$((p + a)); f=$((f + b)); k=$((k + c))
	done
	if [ "$rc" -eq 0 ] && [ -z "${OSB_CHECK_DIR:-}" ]; then rm -rf "$work"; fi
	echo "check.sh: $p passed, $f failed, $k skipped"
	exit "$rc"
}

# One closing line for a `make check` run in the current directory: every
# assertion of every test program (Check's "Checks: N, Failures: F, Errors:
# E", the shell suites' "N passed, M failed", TAP "ok"/"not ok"), plus
# automake's count of failed programs; skips are the "SKIP: FEATURE: REASON"
# lines (tests/skip.h, tests/integration/lib.sh), and a program that exited
# 77 (automake's SKIP) without such a line counts as one. A Check case that
# skipped returned early and Check counts it as passed: it is moved from
# passed to skipped. Writes "PASSED FAILED SKIPPED" to the file $1.
summary() {
	local pass=0 fail=0 skip=0 f line n p fl e s progfail
	echo "== per-test closing lines"
	for f in $(find tests -name '*.log' ! -name test-suite.log | sort); do
		line=$(grep -E 'passed, [0-9]+ failed|Checks: [0-9]+|^1\.\.[0-9]+' "$f" | tail -n1)
		s=$(grep -c '^SKIP: ' "$f")
		if [ "$s" -eq 0 ] && grep -q '^:test-result: SKIP' "${f%.log}.trs" 2>/dev/null; then s=1; fi
		printf '%-44s %s%s\n' "$f" "$line" "$([ "$s" -gt 0 ] && echo " [$s skipped]")"
		skip=$((skip + s))
		if [[ $line =~ Checks:\ ([0-9]+),\ Failures:\ ([0-9]+),\ Errors:\ ([0-9]+) ]]; then
			n=${BASH_REMATCH[1]}; fl=${BASH_REMATCH[2]}; e=${BASH_REMATCH[3]}
			p=$((n - fl - e - s)); [ "$p" -lt 0 ] && p=0
			pass=$((pass + p)); fail=$((fail + fl + e))
		elif [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
			pass=$((pass + BASH_REMATCH[1])); fail=$((fail + BASH_REMATCH[2]))
		elif [[ $line =~ ^1\.\.[0-9]+ ]]; then
			p=$(grep -c '^ok ' "$f"); fl=$(grep -c '^not ok ' "$f")
			pass=$((pass + p)); fail=$((fail + fl))
		fi
	done
	progfail=$(( $(sed -n 's/^# FAIL: *//p' test-suite.log | head -n1) + $(sed -n 's/^# ERROR: *//p' test-suite.log | head -n1) ))
	[ "$progfail" -gt 0 ] && [ "$fail" -eq 0 ] && fail=$progfail
	if [ "$skip" -gt 0 ]; then
		echo "== skipped, and why (count, line)"
		find tests -name '*.log' ! -name test-suite.log -exec grep -h '^SKIP: ' {} + | sort | uniq -c
	fi
	echo "$pass passed, $fail failed, $skip skipped"
	echo "$pass $fail $skip" >"$1"
	if [ "$pass" -eq 0 ]; then echo "summary: no test passed: the run tested nothing"; return 1; fi
	[ "$fail" -eq 0 ] && [ "$progfail" -eq 0 ]
}

# configure + build in $work/DIR (out of tree, so that the sanitizer build
# and the plain one can coexist). Extra arguments go to configure.
build() {
	local dir=$work/$1
	shift
	mkdir -p "$dir" && cd "$dir" || return 1
	"$src/configure" --quiet --enable-werror "$@" || return 1
	# The benchmark programs too: built by nothing else, they would rot
	# unseen between two bench/run.sh runs.
	# (After "all": the generated headers are made only for it.)
	{ make -j2 && make -j2 bench-programs; } >build.log 2>&1 ||
		{ cat build.log; echo "build in $dir failed"; return 1; }
}

# make check in the current build directory; closing line into DETAIL,
# the counts into COUNTS.
run_make_check() {
	local detail=$1 counts=$2 st=0 line
	shift 2
	make -j2 check "$@" >check.log 2>&1 || st=1
	grep -E '^(PASS|FAIL|XFAIL|XPASS|ERROR|SKIP):' check.log
	if [ "$st" -ne 0 ]; then
		echo "== make check failed; the logs of failing tests follow"
		cat test-suite.log
	fi
	summary "$counts" >summary.log || st=1
	cat summary.log
	line=$(tail -n1 summary.log)
	echo "$(grep -cE '^(PASS|FAIL|XFAIL|XPASS|ERROR|SKIP):' check.log) test programs, $line" >"$detail"
	return "$st"
}

g_deps() {
	tools/install-deps.sh || return 1
	# What install-deps.sh installs must be there from now on: a test that
	# would skip for want of it fails instead.
	OSB_REQUIRE=${OSB_REQUIRE:+$OSB_REQUIRE,}go,go-race,mandoc,python3-jsonschema,curl,openssl,pip
	export OSB_REQUIRE
	autoreconf -fi >/dev/null 2>&1 || { autoreconf -fi; return 1; }
	# An in-tree configure would make every out-of-tree one below fail.
	if [ -f config.status ]; then
		echo "check.sh: the source tree is configured in place; running make distclean first"
		make distclean >/dev/null 2>&1 || rm -f config.status
	fi
	echo "packages present, autoreconf done" >"$work/deps.detail"
}

# The soak: check_leak's 1,000 runs (make check runs 100), in the check
# build (built here when the check gate did not run).
g_soak() {
	(
		[ -x "$work/build/tests/unit/check_leak" ] ||
			{ build build && make -j2 check TESTS= >/dev/null 2>&1; } ||
			{ echo "not run: the build failed" >"$work/soak.detail"; exit 1; }
		cd "$work/build" || exit 1
		st=0
		OSB_BUILDDIR=$work/build OSB_LEAK_RUNS=${OSB_SOAK_RUNS:-1000} tests/unit/check_leak \
			>soak.log 2>&1 || st=$?
		cat soak.log
		if [ "$st" -eq 77 ]; then
			grep '^SKIP: ' soak.log | head -n1 >"$work/soak.detail"
			echo "0 0 1" >"$work/soak.counts"
			exit 77
		fi
		grep '^leak: ' soak.log | head -n1 | sed 's/^leak: //' >"$work/soak.detail"
		checks=$(sed -n 's/.*Checks: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\).*/\1 \2 \3/p' soak.log)
		read -r n f e <<<"${checks:-0 1 0}"
		echo "$((n - f - e)) $((f + e)) 0" >"$work/soak.counts"
		exit "$st"
	)
}

g_lint() {
	local out st
	# The check build has the generated headers lint needs.
	if [ -f "$work/build/Makefile" ]; then
		out=$(LINT_BUILDDIR=$work/build tools/lint.sh 2>&1)
	else
		out=$(tools/lint.sh 2>&1)
	fi
	st=$?
	printf '%s\n' "$out"
	printf '%s\n' "$out" | grep -E '^lint: (cppcheck|clang-tidy)' | sed 's/^lint: //' | paste -sd';' >"$work/lint.detail"
	tools/includes.sh || st=1
	return "$st"
}

g_check() {
	(build build && run_make_check "$work/check.detail" "$work/check.counts")
}

# Sanitizer signatures in any test log: a report is a failure even where
# the program that printed it was allowed to fail.
SAN_PATTERN='ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: (Address|Leak|UndefinedBehavior)Sanitizer|LeakSanitizer has encountered a fatal error'

g_sanitizers() {
	(
		build asan --enable-sanitizers || exit 1
		st=0
		# The Go example links the library into a Go program: an ASan-built
		# library cannot load there unless the ASan runtime comes first, and
		# the race-detector variant (ThreadSanitizer) cannot share a process
		# with ASan at all. Both run in the check gate; here they are left out
		# by name, and said so.
		tests=$(printf 'print-tests:\n\t@echo $(TESTS)\n' | make -s -f Makefile -f - print-tests)
		echo "sanitizers: not in this gate (run in the check gate): tests/integration/execd-go.sh tests/integration/execd-go-race.sh"
		tests=$(printf '%s\n' $tests | grep -v '^tests/integration/execd-go' | tr '\n' ' ')
		run_make_check "$work/sanitizers.detail" "$work/sanitizers.counts" TESTS="$tests" || st=1
		reports=$(grep -rlE "$SAN_PATTERN" --include='*.log' tests 2>/dev/null)
		if [ -n "$reports" ]; then
			st=1
			echo "== sanitizer reports in:"
			for f in $reports; do echo "---- $f"; grep -E -A20 "$SAN_PATTERN" "$f" | head -n 60; done
		fi
		printf '%s, %s sanitizer reports\n' "$(cat "$work/sanitizers.detail")" \
			"$(printf '%s' "$reports" | grep -c .)" >"$work/sanitizers.detail"
		exit "$st"
	)
}

g_valgrind() {
	local out st
	# Run alone (OSB_GATES=valgrind), build the test programs first.
	if [ ! -f "$work/build/test-suite.log" ]; then
		(build build && make -j2 check TESTS= >/dev/null 2>&1) ||
			{ echo "not run: the build failed" >"$work/valgrind.detail"; return 1; }
	fi
	# Streamed, one line per program as it ends: the slowest gate shows
	# its progress.
	tools/valgrind.sh "$work/build" 2>&1 | tee "$work/valgrind.log"
	st=${PIPESTATUS[0]}
	tail -n1 "$work/valgrind.log" | sed 's/^valgrind: //' >"$work/valgrind.detail"
	return "$st"
}

g_fuzz() {
	local out st
	out=$(FUZZ_WORKDIR=$work/fuzz FUZZ_SECONDS=${FUZZ_SECONDS:-60} tools/fuzz.sh 2>&1)
	st=$?
	printf '%s\n' "$out"
	echo "$(printf '%s\n' "$out" | grep -cE '^fuzz: [a-z_]+ +ok') of $(ls tests/fuzz/*.c | wc -l) harnesses clean, ${FUZZ_SECONDS:-60}s each" \
		>"$work/fuzz.detail"
	return "$st"
}

g_distcheck() {
	(
		[ -f "$work/build/Makefile" ] || build build ||
			{ echo "not run: the build failed" >"$work/distcheck.detail"; exit 1; }
		cd "$work/build" || exit 1
		if make -j2 distcheck >distcheck.log 2>&1; then
			echo "make distcheck passed: $(grep -o 'osb-isolate-[0-9.]*\.tar\.gz' distcheck.log | head -n1)" >"$work/distcheck.detail"
		else
			tail -n 60 distcheck.log
			echo "make distcheck failed (log: $work/build/distcheck.log)" >"$work/distcheck.detail"
			exit 1
		fi
	)
}

# The Debian packages, built from the release tarball (made here if the
# distcheck gate did not leave one) with debian/ added, as a distribution
# would; lintian then reports no error. The test suite already ran in the
# check and distcheck gates: the package build skips it (nocheck).
g_package() {
	(
		for t in dpkg-buildpackage dh lintian fakeroot; do
			command -v "$t" >/dev/null || { echo "not run: $t is missing (tools/install-deps.sh installs it)" >"$work/package.detail"; exit 1; }
		done
		[ -f "$work/build/Makefile" ] || build build ||
			{ echo "not run: the build failed" >"$work/package.detail"; exit 1; }
		cd "$work/build" || exit 1
		tarball=$(ls osb-isolate-*.tar.gz 2>/dev/null | head -n1)
		if [ -z "$tarball" ]; then
			make dist >dist.log 2>&1 || { tail -n 30 dist.log; echo "make dist failed" >"$work/package.detail"; exit 1; }
			tarball=$(ls osb-isolate-*.tar.gz | head -n1)
		fi
		version=${tarball#osb-isolate-}; version=${version%.tar.gz}
		rm -rf "$work/deb" && mkdir -p "$work/deb" && cd "$work/deb" || exit 1
		cp "$work/build/$tarball" "osb-isolate_$version.orig.tar.gz"
		tar xzf "osb-isolate_$version.orig.tar.gz"
		cp -a "$src/debian" "osb-isolate-$version/"
		if ! (cd "osb-isolate-$version" && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b) \
			>build.log 2>&1; then
			tail -n 60 build.log
			echo "dpkg-buildpackage failed (log: $work/deb/build.log)" >"$work/package.detail"
			exit 1
		fi
		debs=$(ls ./*.deb | grep -v -- -dbgsym | sed 's|^\./||' | paste -sd' ')
		echo "built: $debs"
		# lintian says it should not run as root; it does not change anything.
		lintian --pedantic -I ./*.changes >lintian.log 2>&1
		grep -v '^running with root privileges' lintian.log
		errors=$(grep -c '^E: ' lintian.log)
		warnings=$(grep -c '^W: ' lintian.log)
		echo "$(echo "$debs" | wc -w) packages ($debs); lintian: $errors errors, $warnings warnings" \
			>"$work/package.detail"
		[ "$errors" -eq 0 ]
	)
}

# Opt-in: every source and script file carries its licence line.
g_spdx() {
	local out st
	out=$(tools/spdx.sh --check 2>&1)
	st=$?
	printf '%s\n' "$out"
	printf '%s\n' "$out" | tail -n1 | sed 's/^spdx: //' >"$work/spdx.detail"
	return "$st"
}

echo "check.sh: gates: $gates; builds in $work"
gate deps g_deps || finish
gate check g_check
check_ok=$?
gate soak g_soak
gate lint g_lint
gate sanitizers g_sanitizers
gate valgrind g_valgrind
gate fuzz g_fuzz
# distcheck repeats the whole suite from the tarball: only worth it (and only
# meaningful) when the suite passed in the tree.
if wanted distcheck && { wanted check && [ "$check_ok" -ne 0 ]; }; then
	results+=("$(printf '%-11s %-7s         (the check gate failed)' distcheck "not run")")
	echo "0 1 0" >"$work/distcheck.counts"
	rc=1
else
	gate distcheck g_distcheck
fi
gate package g_package
gate spdx g_spdx
finish

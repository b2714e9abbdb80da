#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# valgrind.sh — memcheck gate: every unit test program (BUILDDIR/tests/unit/
# check_*, found by glob, so new ones are included without edits here) runs
# under valgrind memcheck. Invalid reads and writes, uses of uninitialised
# values, bad frees and definite leaks fail the run, in the test program and
# in every child Check forks for a test (valgrind follows fork; each process
# writes its own log). A test that fails under valgrind fails the run too.
#
# Valgrind 3.19 (Debian 12) does not implement pidfd_open,
# pidfd_send_signal, clone3, seccomp(2) or landlock_create_ruleset: it
# answers ENOSYS. So test cases that start
# bwrap or a sandbox, build a seccomp filter or probe Landlock cannot run
# under it; they run in the plain and sanitizer builds instead, and are left
# out here in one of two ways:
#   - a Check tag on the test case (CK_EXCLUDE_TAGS): "sandbox" for cases
#     that start bwrap or a sandbox, "novalgrind" for other cases valgrind
#     cannot run or runs far too slowly (a thread race: valgrind runs one
#     thread at a time); put one on a new case of that kind;
#   - whole programs every case of which needs those calls: skip_reason()
#     below, with the reason printed in the log.
# openat2 is not implemented either; the paths code then takes its
# component-walk fallback, which is fine to check here.
#
# Usage: tools/valgrind.sh BUILDDIR      (a build tree where `make check`
#        has built the tests; logs go to BUILDDIR/valgrind-logs/)
# Environment: VALGRIND_TIMEOUT_MULTIPLIER (default 10) scales Check's
#        per-test timeouts.
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
b=$(cd "${1:?usage: tools/valgrind.sh BUILDDIR}" && pwd) || exit 1
command -v valgrind >/dev/null || { echo "valgrind: not installed (tools/install-deps.sh)"; exit 1; }
# The logs live where every process can write its own: tests that drop root
# (check_plan runs as 65534) fork children whose valgrind opens its log
# after the drop, and the build directory may be private (mode 0700). A
# symbolic link in the build directory points to them.
logs=$(mktemp -d /tmp/osb-valgrind.XXXXXX) && chmod 1777 "$logs" || exit 1
rm -rf "$b/valgrind-logs" && ln -s "$logs" "$b/valgrind-logs" || exit 1

mapfile -t tests < <(find "$b/tests/unit" -maxdepth 1 -type f -name 'check_*' -perm -u+x ! -name '*.*' | sort)
[ ${#tests[@]} -gt 0 ] || { echo "valgrind: no unit tests built in $b/tests/unit (run make check first)"; exit 1; }

# Programs valgrind cannot run at all, and why.
skip_reason() {
	case $1 in
	check_seccomp) echo "every case builds a filter, and libseccomp needs seccomp(2)" ;;
	check_caps) echo "the probe runs bwrap (pidfd_open), seccomp(2) and landlock_create_ruleset" ;;
	check_session | check_execd_api | check_session_owner | check_session_services | check_shell_state)
		# Run anyway, such a case can wait out its whole timeout (ten
		# minutes here): a command in a session under valgrind once
		# never answered, its sandbox's init idle.
		echo "every case starts a session sandbox (pidfd_open, pidfd_send_signal)" ;;
	esac
}

rc=0
skipped=0
for t in "${tests[@]}"; do
	name=$(basename "$t")
	why=$(skip_reason "$name")
	if [ -n "$why" ]; then
		printf 'valgrind: skip %-18s %s: not implemented by valgrind %s\n' "$name" "$why" \
			"$(valgrind --version | sed 's/^valgrind-//')"
		skipped=$((skipped + 1))
		continue
	fi
	start=$(date +%s)
	CK_EXCLUDE_TAGS="sandbox novalgrind" \
	CK_TIMEOUT_MULTIPLIER=${VALGRIND_TIMEOUT_MULTIPLIER:-10} \
	OSB_BUILDDIR=$b OSB_SRCDIR=$src \
	valgrind --tool=memcheck --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite --show-leak-kinds=definite \
		--child-silent-after-fork=no --trace-children=no \
		--suppressions="$src/tools/valgrind.supp" \
		--log-file="$logs/$name.%p.log" "$t" >"$logs/$name.out" 2>&1
	st=$?
	secs=$(( $(date +%s) - start ))
	bad=$(grep -l 'ERROR SUMMARY: [1-9]' "$logs/$name".*.log 2>/dev/null)
	procs=$(ls "$logs/$name".*.log 2>/dev/null | wc -l)
	closing=$(grep -E 'Checks: [0-9]+' "$logs/$name.out" | tail -n1)
	if [ "$st" -eq 0 ] && [ -z "$bad" ]; then
		printf 'valgrind: ok   %-18s %4ss, %3s processes clean; %s\n' "$name" "$secs" "$procs" "$closing"
	else
		rc=1
		printf 'valgrind: FAIL %-18s %4ss, exit %s; %s\n' "$name" "$secs" "$st" "$closing"
		grep -E ':[A-Z]:' "$logs/$name.out" | head -n 20
		grep -q 'Function not implemented' "$logs/$name.out" &&
			echo "valgrind: hint: $name needs a system call valgrind lacks (see the top of" \
				"tools/valgrind.sh): tag such cases \"sandbox\" or \"novalgrind\", or list the program in skip_reason()"
		for f in $bad; do
			echo "---- $f"
			grep -vE '^--[0-9]+--' "$f" | head -n 60
		done
	fi
done
unhandled=$(cat "$logs"/*.log 2>/dev/null | sed -n 's/.*unhandled amd64-linux syscall: \([0-9]*\).*/\1/p' | sort -u | tr '\n' ' ')
[ -n "$unhandled" ] && echo "valgrind: note: system calls valgrind does not implement were answered ENOSYS: $unhandled(437 is openat2)"
if [ "$rc" -eq 0 ]; then
	echo "valgrind: $(( ${#tests[@]} - skipped )) unit test programs clean, $skipped skipped (see above)"
	rm -rf "$logs" "$b/valgrind-logs"
else
	echo "valgrind: FAILED (logs: $logs)"
fi
exit "$rc"

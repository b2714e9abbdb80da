#!/bin/bash
# check.sh — the whole test suite from a fresh clone: install dependencies,
# build, run `make check` (unit tests, the init tests, and the integration
# suite as root and as an unprivileged user), then `make distcheck`.
# README's second quick-start command; .ci/run runs exactly this.
set -uo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh || exit 1
autoreconf -fi >/dev/null 2>&1 || { autoreconf -fi; exit 1; }
./configure --quiet || exit 1
make -j2 >/dev/null || { make; exit 1; }

summary() {
	local log=test-suite.log pass fail
	pass=$(sed -n 's/^# PASS: *//p' "$log" | head -n1)
	fail=$(( $(sed -n 's/^# FAIL: *//p' "$log" | head -n1) + $(sed -n 's/^# ERROR: *//p' "$log" | head -n1) ))
	echo "== per-test closing lines"
	for f in $(find tests -name '*.log' ! -name test-suite.log | sort); do
		printf '%-40s %s\n' "$f" "$(grep -E 'passed, [0-9]+ failed|Checks: [0-9]+|^ok:' "$f" | tail -n1)"
	done
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}

rc=0
make -j2 check || rc=1
if [ "$rc" -ne 0 ]; then
	echo "== make check failed; the logs of failing tests follow"
	cat test-suite.log
fi
summary || rc=1
if [ "$rc" -eq 0 ]; then
	make distcheck >distcheck.log 2>&1 || { tail -n 60 distcheck.log; echo "make distcheck failed"; rc=1; }
	[ "$rc" -eq 0 ] && echo "make distcheck passed"
fi
exit "$rc"

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

# One closing line for the whole run: every assertion of every test program
# (Check's "Checks: N, Failures: F, Errors: E", the shell suites' "N passed,
# M failed", TAP "ok"/"not ok"), plus automake's count of failed programs.
summary() {
	local pass=0 fail=0 f line n p fl e progfail
	echo "== per-test closing lines"
	for f in $(find tests -name '*.log' ! -name test-suite.log | sort); do
		line=$(grep -E 'passed, [0-9]+ failed|Checks: [0-9]+|^ok:|^1\.\.[0-9]+' "$f" | tail -n1)
		printf '%-40s %s\n' "$f" "$line"
		if [[ $line =~ Checks:\ ([0-9]+),\ Failures:\ ([0-9]+),\ Errors:\ ([0-9]+) ]]; then
			n=${BASH_REMATCH[1]}; fl=${BASH_REMATCH[2]}; e=${BASH_REMATCH[3]}
			pass=$((pass + n - fl - e)); fail=$((fail + fl + e))
		elif [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
			pass=$((pass + BASH_REMATCH[1])); fail=$((fail + BASH_REMATCH[2]))
		elif [[ $line =~ ^1\.\.[0-9]+ ]]; then
			p=$(grep -c '^ok ' "$f"); fl=$(grep -c '^not ok ' "$f")
			pass=$((pass + p)); fail=$((fail + fl))
		elif [[ $line =~ ^ok: ]]; then
			pass=$((pass + 1))
		fi
	done
	progfail=$(( $(sed -n 's/^# FAIL: *//p' test-suite.log | head -n1) + $(sed -n 's/^# ERROR: *//p' test-suite.log | head -n1) ))
	[ "$progfail" -gt 0 ] && [ "$fail" -eq 0 ] && fail=$progfail
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ] && [ "$progfail" -eq 0 ]
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

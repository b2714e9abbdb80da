#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# faults.sh — fault injection, end to end: nothing fails silently, hangs or
# passes for something else. A bwrap that hangs, crashes, fails or prints
# garbage is named as such, with 125 (1 for `capabilities`, whose status says
# whether sandboxes can run), within the helper deadline; options without
# their value say so. Run as the current user (root in CI) on staged copies
# of the programs (lib.sh); cases that need something this host lacks are
# skipped with the reason.
set -uo pipefail
. "$OSB_SRCDIR/tests/integration/lib.sh"

stage=$(stage_artifacts) || exit 99
trap 'rm -rf "$stage"' EXIT
OSB="$stage/bin/osb-isolate"
export OSB_ISOLATE_INIT="$stage/bin/osb-isolate-init"
export OSB_ISOLATE_POLICY_DIR="$stage/policy"
export XDG_RUNTIME_DIR="$stage/run"
mkdir -m 700 "$stage/run"

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
not_ok() {
	fail=$((fail + 1))
	echo "not ok - $1"
	shift
	for l in "$@"; do echo "#   $l"; done
}
expect_eq() { # name expected actual
	if [ "$2" == "$3" ]; then ok "$1"; else not_ok "$1" "expected: $(printf %q "$2")" "actual:   $(printf %q "$3")"; fi
}
expect_has() { # name needle haystack
	case "$3" in *"$2"*) ok "$1";; *) not_ok "$1" "missing: $(printf %q "$2")" "in:      $(printf %q "$3")";; esac
}
expect_lacks() { # name needle haystack
	case "$3" in *"$2"*) not_ok "$1" "unexpected: $(printf %q "$2")" "in:         $(printf %q "$3")";; *) ok "$1";; esac
}
expect_le() { # name limit value
	if [ "$3" -le "$2" ]; then ok "$1 ($3 <= $2)"; else not_ok "$1" "$3 > $2"; fi
}
now_ms() { date +%s%3N; }
new_ws() {
	WS=$(mktemp -d "$stage/work/ws.XXXXXX")
	chmod 1777 "$WS"
	cd "$WS" || exit 99
}

# ---- a broken bwrap -----------------------------------------------------------
# Fake bwraps, each broken one way. The helper deadline is 5 s (lib/proc.h),
# and a launch reads --help once (the capabilities probe a refusal consults
# reuses what the launch learnt): every command must be over, with its
# diagnostic, within one deadline and a margin. A fake that leaves a child
# of its own hanging (hang-child) must not leave it behind: the library
# ends a helper's whole process group at the deadline.
FAKE="$stage/fake"
mkdir -p "$FAKE"
fake() { # name body
	printf '#!/bin/sh\n%s\n' "$2" >"$FAKE/$1"
	chmod 755 "$FAKE/$1"
}
fake hang 'exec sleep 1000'
fake hang-closed 'exec >/dev/null; exec sleep 1000'
HANG_MARK=$((1000 + $$ % 50000))
fake hang-child "sleep $HANG_MARK & wait"
fake crash 'kill -SEGV $$'
fake fails 'echo "usage: bwrap"; exit 3'
fake garbage 'printf "\\033[31mhello\\377 world\\n"'
fake silent 'exit 0'

# run_fake NAME CMD...: run osb-isolate CMD with bwrap NAME; sets RC, OUT, MS.
run_fake() {
	local name=$1 t0
	shift
	t0=$(now_ms)
	OUT=$(OSB_ISOLATE_BWRAP="$FAKE/$name" timeout 60 "$OSB" "$@" 2>&1 </dev/null)
	RC=$?
	MS=$(( $(now_ms) - t0 ))
}

t_fake_bwrap() {
	local name=$1 words=$2
	new_ws
	run_fake "$name" run --timeout 2s -- true
	expect_eq "run with a bwrap that $name: 125" "125" "$RC"
	expect_has "... says so" "$words" "$OUT"
	expect_lacks "... not as a bwrap lacking an option" "lacks" "$OUT"
	expect_le "... within the deadline (ms)" 8000 "$MS"
	run_fake "$name" capabilities
	expect_eq "capabilities with a bwrap that $name: 1 (no sandbox can run)" "1" "$RC"
	expect_has "... says so" "$words" "$OUT"
	expect_le "... within the deadline (ms)" 8000 "$MS"
	run_fake "$name" session start --name "f-$name-$$"
	expect_eq "session start with a bwrap that $name: 125" "125" "$RC"
	expect_has "... says so" "$words" "$OUT"
	expect_le "... within the deadline (ms)" 8000 "$MS"
	"$OSB" session stop "f-$name-$$" >/dev/null 2>&1
}

t_fake_bwraps() {
	t_fake_bwrap hang "--help did not finish within 5 s"
	t_fake_bwrap hang-closed "--help did not finish within 5 s"
	t_fake_bwrap hang-child "--help did not finish within 5 s"
	if pgrep -x -f "sleep $HANG_MARK" >/dev/null; then
		not_ok "a hanging bwrap's own child is ended with it" "$(pgrep -a -x -f "sleep $HANG_MARK")"
		pkill -x -f "sleep $HANG_MARK"
	else
		ok "a hanging bwrap's own child is ended with it"
	fi
	t_fake_bwrap crash "--help was killed by signal 11 (SIGSEGV)"
	t_fake_bwrap fails "--help exited with status 3"
	t_fake_bwrap garbage "--help printed no bubblewrap usage (first line \"?[31mhello? world\")"
	t_fake_bwrap silent "--help printed no bubblewrap usage (nothing)"
}

# ---- options without their value ----------------------------------------------
t_missing_values() {
	local o
	for o in --timeout --policy --workspace --result-fd; do
		OUT=$("$OSB" run "$o" 2>&1); RC=$?
		expect_eq "run $o without a value: 125" "125" "$RC"
		expect_has "... says so" "run: option '$o' needs a value" "$OUT"
	done
}

# ---- zombies ------------------------------------------------------------------
# A subreaper caller is the parent of whatever is orphaned below it: after 100
# runs it must be left with nothing, not one zombie per run.
t_subreaper_zombies() {
	new_ws
	OUT=$(timeout 300 "$stage/bin/subreaper" "$WS" 100 2>&1); RC=$?
	expect_eq "a subreaper caller after 100 osb_run calls: nothing left" "0" "$RC"
	expect_has "... no zombie, no child" "runs=100 failed=0 zombies=0 children=0" "$OUT"
}

# ---- valid JSON, whatever the bytes of a path ------------------------------------
# Invalid UTF-8 in a path is replaced by U+FFFD in JSON output (as in a
# result's stdout), never printed raw: a strict parser must accept it.
strict_json() { # key: print .KEY of the JSON on stdin, strictly decoded
	python3 -c '
import json, sys
d = json.loads(sys.stdin.buffer.read().decode("utf-8", "strict"))
for k in sys.argv[1].split("."):
    d = d[int(k)] if isinstance(d, list) else d[k]
print(d)' "$1" 2>&1
}

t_json_non_utf8_paths() {
	local ws="$stage/work/ws-"$'\xff'"-x" id="f-utf8-$$"
	mkdir -m 1777 "$ws" && cd "$ws" || { not_ok "mkdir non-UTF-8 workspace"; return; }
	OUT=$("$OSB" session start --name "$id" 2>&1); RC=$?
	expect_eq "session start in a non-UTF-8 workspace: 0" "0" "$RC"
	OUT=$("$OSB" session list --json | strict_json 0.workspace)
	expect_eq "session list --json: valid, U+FFFD for the bad byte" \
		"$stage/work/ws-"$'\xef\xbf\xbd'"-x" "$OUT"
	"$OSB" session stop "$id" >/dev/null 2>&1
	OUT=$("$OSB" explain --host --json -w "$ws" strict | strict_json host.workspace)
	expect_eq "explain --host --json: valid, U+FFFD for the bad byte" \
		"$stage/work/ws-"$'\xef\xbf\xbd'"-x" "$OUT"
	cd / || exit 99
}

# capabilities --json names host paths (bwrap, the policy directory, reasons
# that quote them): a path that is not UTF-8 is still valid JSON, U+FFFD for
# each bad byte.
t_caps_json_non_utf8_paths() {
	local bw="$stage/bw-"$'\xff' pd="$stage/pol-"$'\xfe' out rc
	local fffd=$'\xef\xbf\xbd'
	mkdir -p "$bw" "$pd" && cp "$stage"/policy/*.policy "$pd/" || { not_ok "non-UTF-8 directories"; return; }
	ln -sf "$(command -v bwrap)" "$bw/bwrap"
	out=$(OSB_ISOLATE_BWRAP="$bw/bwrap" OSB_ISOLATE_POLICY_DIR="$pd" "$OSB" capabilities --json); rc=$?
	expect_eq "capabilities --json with non-UTF-8 bwrap and policy paths: 0" "0" "$rc"
	expect_eq "... bwrap.path valid, U+FFFD for the bad byte" "$stage/bw-$fffd/bwrap" \
		"$(strict_json bwrap.path <<<"$out")"
	expect_eq "... policy_dir valid, U+FFFD for the bad byte" "$stage/pol-$fffd" \
		"$(strict_json policy_dir <<<"$out")"
	out=$(OSB_ISOLATE_BWRAP="$bw/nothing" "$OSB" capabilities --json); rc=$?
	expect_eq "... a reason quoting a missing non-UTF-8 bwrap: 1, valid" \
		"1 OSB_ISOLATE_BWRAP=$stage/bw-$fffd/nothing is not executable: No such file or directory" \
		"$rc $(strict_json items.0.reason <<<"$out")"
	rm -rf "$bw" "$pd"
}

# ---- results that say what happened ------------------------------------------------
# An init that never starts the command is a setup failure (125, an error
# naming the init), not the command's timeout.
t_hanging_init() {
	new_ws
	printf '#!/bin/sh\nexec sleep 1000\n' >"$FAKE/init-hang"
	chmod 755 "$FAKE/init-hang"
	OUT=$(OSB_ISOLATE_INIT="$FAKE/init-hang" timeout 60 "$OSB" run --json --timeout 2s -- true 2>/dev/null); RC=$?
	expect_eq "a hanging init: 125" "125" "$RC"
	expect_eq "... not a timeout of the command" "False" "$(strict_json timed_out <<<"$OUT")"
	expect_eq "... an error of the init stage" "init" "$(strict_json error.stage <<<"$OUT")"
	expect_has "... saying so" "did not start the command within 2000 ms" "$(strict_json error.message <<<"$OUT")"
}

# run and session exec report the same timeout the same way.
t_timeout_same_everywhere() {
	local id="f-to-$$" k a b
	new_ws
	a=$("$OSB" run --json --timeout 1s -- sleep 30 2>/dev/null)
	"$OSB" session start --name "$id" >/dev/null 2>&1
	b=$("$OSB" session exec "$id" --json --timeout 1s -- sleep 30 2>/dev/null)
	"$OSB" session stop "$id" >/dev/null 2>&1
	for k in timed_out signal exit_code status hint error; do
		expect_eq "a timeout: run and session exec agree on $k" \
			"$(strict_json "$k" <<<"$a")" "$(strict_json "$k" <<<"$b")"
	done
	expect_eq "... timed_out" "True" "$(strict_json timed_out <<<"$a")"
	expect_eq "... no signal" "None" "$(strict_json signal <<<"$a")"
	expect_eq "... status 124" "124" "$(strict_json status <<<"$a")"
}

# ---- names refused, not cut -------------------------------------------------------
t_long_session_name() {
	local long
	new_ws
	long=$(printf 'n%.0s' {1..65})
	OUT=$("$OSB" session start --name "$long" 2>&1); RC=$?
	expect_eq "session start --name of 65 characters: 125" "125" "$RC"
	expect_has "... refused, naming the rule" "invalid session id \"$long\": use 1 to 64 letters" "$OUT"
	OUT=$("$OSB" session list --json 2>&1)
	expect_lacks "... and no session under a cut name" "${long:0:64}" "$OUT"
	"$OSB" session stop "${long:0:64}" >/dev/null 2>&1
}

# More arguments than bwrap takes: refused before bwrap starts, saying how many fit.
t_too_many_arguments() {
	new_ws
	OUT=$("$OSB" run -- true $(seq 9000) 2>&1); RC=$?
	expect_eq "run with 9,001 arguments: 125" "125" "$RC"
	expect_has "... refused early, saying how many fit" \
		"osb-isolate: usage: the command has 9001 arguments; with the sandbox's" "$OUT"
	expect_has "... and why" "bwrap would get more than its limit of 9000: at most" "$OUT"
}

# ---- slow inputs ------------------------------------------------------------------
# Work grows with the input, not with what it expands to. The bounds are
# generous for a loaded 2-CPU host; before the fix these took minutes.
timed() { # CMD...: sets RC, OUT (stdout and stderr), MS
	local t0
	t0=$(now_ms)
	OUT=$(timeout 300 "$@" 2>&1 </dev/null)
	RC=$?
	MS=$(( $(now_ms) - t0 ))
}

# A file included 1,000 times that includes strict 1,000 times: each file is
# parsed once per include depth, so this is strict, read in well under a second.
t_include_fan_out() {
	local d="$stage/work/fan" i want
	mkdir -p "$d"
	{ echo "osb-policy 1"; for i in $(seq 1000); do echo "include strict"; done; } >"$d/f.policy"
	{ echo "osb-policy 1"; for i in $(seq 1000); do echo "include ./f"; done; } >"$d/fan.policy"
	want=$("$OSB" hash strict)
	timed "$OSB" hash "$d/fan.policy"
	expect_eq "hash of a policy including strict 1,000,000 times: that of strict" "$want" "$OUT"
	expect_le "... in under 3 s (ms)" 3000 "$MS"
	timed "$OSB" check "$d/fan.policy"
	expect_eq "check of it: 0" "0" "$RC"
	expect_le "... in under 3 s (ms)" 3000 "$MS"
	new_ws
	timed "$OSB" run --policy "$d/fan.policy" -- true
	expect_eq "run under it: 0" "0" "$RC"
	expect_le "... in under 3 s (ms)" 3000 "$MS"
}

# The text a policy reads with its includes is bounded (4 MiB, a file included
# again at the same depth not counted again): past it, the include is refused
# where it stands.
t_include_total_bound() {
	local d="$stage/work/big" i
	mkdir -p "$d"
	{ echo "osb-policy 1"; for i in $(seq 16383); do printf '# %061d\n' 0; done; } >"$d/b1.policy"
	for i in 2 3 4 5; do cp "$d/b1.policy" "$d/b$i.policy"; done
	{ echo "osb-policy 1"; echo "include strict"; for i in 1 1 1 1 1 1 1 1; do echo "include ./b$i"; done; } \
		>"$d/same.policy"
	timed "$OSB" check "$d/same.policy"
	expect_eq "one 1 MiB file included 8 times: 0 (read once)" "0" "$RC"
	{ echo "osb-policy 1"; for i in 1 2 3 4 5; do echo "include ./b$i"; done; } >"$d/five.policy"
	timed "$OSB" check "$d/five.policy"
	expect_eq "five different 1 MiB files: refused (2)" "2" "$RC"
	expect_eq "... at the include that goes past 4 MiB" \
		"$d/five.policy:6:9: error: cannot include \"./b5\": the policy and its includes would be more than 4 MiB of text (4194304 bytes; $d/b5.policy has 1048525, 4194178 were read before it) [E010]" \
		"$OUT"
	expect_le "... at once (ms)" 3000 "$MS"
	timed "$OSB" hash "$d/five.policy"
	expect_eq "hash refuses it too: 2" "2" "$RC"
}

# check and lint of 60,000 "env pass" lines: as fast as hash, give or take.
# Under 3 s; where the build or the host is slow (the sanitizers, a loaded
# machine) the time may be longer but must grow linearly: twice the lines
# at most three times the time of 30,000 (the quadratic reading this guards
# against took four times as long, and 166 s under the sanitizers).
pass_policy() { # FILE N
	local i
	{ echo "osb-policy 1"; echo "include strict"; for i in $(seq "$2"); do echo "env pass V_$i"; done; } >"$1"
}
expect_linear() { # name half_ms full_ms
	if [ "$3" -le 3000 ]; then
		ok "$1 in under 3 s ($3 ms)"
	elif [ "$3" -le $(( 3 * $2 + 300 )) ]; then
		ok "$1 in $3 ms: over 3 s, but at most three times the $2 ms of half as many lines"
	else
		not_ok "$1 grows faster than linearly" "60,000 lines $3 ms, 30,000 lines $2 ms"
	fi
}
t_check_many_lines() {
	local half="$stage/work/pass30k.policy" full="$stage/work/pass60k.policy" cmd h
	pass_policy "$half" 30000
	pass_policy "$full" 60000
	for cmd in check lint; do
		timed "$OSB" "$cmd" "$half"
		h=$MS
		timed "$OSB" "$cmd" "$full"
		[ "$cmd" = check ] && expect_eq "check of 60,000 env pass lines: 0" "0" "$RC"
		expect_linear "$cmd of 60,000 env pass lines" "$h" "$MS"
	done
}

cp "$OSB_BUILDDIR/tests/integration/subreaper" "$stage/bin/" || exit 99
t_include_fan_out
t_include_total_bound
t_check_many_lines
t_too_many_arguments
t_long_session_name
t_hanging_init
t_timeout_same_everywhere
t_json_non_utf8_paths
t_caps_json_non_utf8_paths
t_fake_bwraps
t_missing_values
t_subreaper_zombies
finish_suite "$pass" "$fail"

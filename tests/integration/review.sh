#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# review.sh — the reviewer commands end to end, through the CLI: explain
# (text and JSON) against golden files for the shipped policies, hash
# stability and sensitivity, a table of lint cases, the shipped policies
# clean or waived, audit monotonicity and thresholds, check's position and
# code for every malformed input class, diff, explain --host, usage errors.
#
# The golden files live in tests/golden/. This script only compares them; to
# regenerate them after an intended change of the output, run
#   make update-golden
# (which runs this script with --update-golden) and review the diff.
set -uo pipefail

: "${OSB_BUILDDIR:?OSB_BUILDDIR must point at the build tree (make check sets it)}"
: "${OSB_SRCDIR:?OSB_SRCDIR must point at the source tree (make check sets it)}"
. "$OSB_SRCDIR/tests/integration/lib.sh"
OSB=${OSB_ISOLATE_BIN:-$OSB_BUILDDIR/helper/osb-isolate}
export OSB_ISOLATE_INIT=${OSB_ISOLATE_INIT:-$OSB_BUILDDIR/helper/osb-isolate-init}
export OSB_ISOLATE_POLICY_DIR=$OSB_SRCDIR/policy
GOLDEN=$OSB_SRCDIR/tests/golden
update=0
[ "${1:-}" = --update-golden ] && update=1

[ -x "$OSB" ] || { echo "review.sh: no osb-isolate at $OSB (build first)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/osb-review.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "ok - $1"; }
not_ok() { fail=$((fail + 1)); echo "not ok - $1"; }

# run CMD...: stdout to $tmp/out, stderr to $tmp/err, status in $rc.
run() { rc=0; "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?; }

# expect NAME WANT_RC WANT_STDOUT -- CMD...
expect() {
	local name=$1 want_rc=$2 want=$3
	shift 4
	run "$@"
	printf '%s' "$want" >"$tmp/want"
	if [ "$rc" = "$want_rc" ] && cmp -s "$tmp/want" "$tmp/out"; then
		ok "$name"
	else
		not_ok "$name"
		echo "#   exit: want $want_rc, got $rc"
		diff -u "$tmp/want" "$tmp/out" | sed 's/^/#   /' | head -n 20
		sed 's/^/#   stderr: /' "$tmp/err" | head -n 5
	fi
}

# expect_rc NAME WANT_RC -- CMD...
expect_rc() {
	local name=$1 want_rc=$2
	shift 3
	run "$@"
	if [ "$rc" = "$want_rc" ]; then ok "$name"; else
		not_ok "$name"
		echo "#   exit: want $want_rc, got $rc"
		sed 's/^/#   /' "$tmp/out" "$tmp/err" | head -n 10
	fi
}

# golden FILE -- CMD...: stdout (exit 0 or 1) equals tests/golden/FILE.
golden() {
	local file=$1
	shift 2
	run "$@"
	if [ "$update" = 1 ]; then
		cp "$tmp/out" "$GOLDEN/$file" && echo "updated tests/golden/$file"
		return
	fi
	if [ "$rc" -le 1 ] && cmp -s "$GOLDEN/$file" "$tmp/out"; then
		ok "golden $file"
	else
		not_ok "golden $file (exit $rc; regenerate with 'make update-golden' if intended)"
		diff -u "$GOLDEN/$file" "$tmp/out" | sed 's/^/#   /' | head -n 30
	fi
}

# valid SCHEMA NAME: $tmp/out is one JSON document valid against docs/SCHEMA.
valid() {
	if ! python3 -c 'import jsonschema' 2>/dev/null; then
		echo "ok - $2 # SKIP python3-jsonschema is not installed"; pass=$((pass + 1)); return
	fi
	if python3 - "$OSB_SRCDIR/docs/$1" "$tmp/out" <<'EOF'
import json, sys, jsonschema
s = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(s)
jsonschema.Draft7Validator(s).validate(json.load(open(sys.argv[2])))
EOF
	then ok "$2"; else not_ok "$2"; fi
}

# ---- golden files: explain, audit, diff of the shipped policies --------------
# Run from the source tree so that origins read policy/NAME.policy (the
# policy directory too: balanced's "include strict" is read from it).
cd "$OSB_SRCDIR" || exit 1
export OSB_ISOLATE_POLICY_DIR=policy
for pol in strict balanced; do
	golden "explain-$pol.txt" -- "$OSB" explain "policy/$pol.policy"
	golden "explain-$pol.json" -- "$OSB" explain --json "policy/$pol.policy"
	golden "audit-$pol.txt" -- "$OSB" audit "policy/$pol.policy"
done
golden diff-strict-balanced.txt -- "$OSB" diff policy/strict.policy policy/balanced.policy
golden diff-strict-balanced.json -- "$OSB" diff --json policy/strict.policy policy/balanced.policy
golden lint-balanced.json -- "$OSB" lint --json policy/balanced.policy
golden check-balanced.json -- "$OSB" check --json policy/balanced.policy
golden audit-checks.txt -- "$OSB" audit --checks
golden audit-checks.json -- "$OSB" audit --checks --json
# The reviewer fixtures: five team policies, each a baseline and a job's
# request (tests/fixtures/review/), audited and diffed as a security team's
# gate would.
for fx in pytest npm compiler data agent; do
	golden "fixture-$fx-audit.txt" -- "$OSB" request audit "tests/fixtures/review/$fx.policy" "tests/fixtures/review/$fx.json"
	golden "fixture-$fx-diff.txt" -- "$OSB" request diff "tests/fixtures/review/$fx.policy" "tests/fixtures/review/$fx.json"
	golden "fixture-$fx-diff.json" -- "$OSB" request diff --json "tests/fixtures/review/$fx.policy" "tests/fixtures/review/$fx.json"
done
export OSB_ISOLATE_POLICY_DIR=$OSB_SRCDIR/policy
if [ "$update" = 1 ]; then
	exit 0
fi
cd "$tmp" || exit 1

# ---- the reviewer fixtures: what the gates say ---------------------------------
cd "$OSB_SRCDIR" || exit 1
export OSB_ISOLATE_POLICY_DIR=policy
for fx in pytest npm compiler data agent; do
	expect_rc "fixture $fx: the baseline checks clean" 0 -- "$OSB" check "tests/fixtures/review/$fx.policy"
	run "$OSB" request diff --json "tests/fixtures/review/$fx.policy" "tests/fixtures/review/$fx.json"
	valid diff.schema.json "fixture $fx: request diff --json is valid"
done
# The agent's request reaches ~/.ssh and .git/hooks: the gate refuses it,
# lint says where in the request, the score rises above a team's threshold.
expect_rc "fixture agent: --narrower-ok refuses the request" 1 -- "$OSB" request diff --narrower-ok tests/fixtures/review/agent.policy tests/fixtures/review/agent.json
run "$OSB" request lint tests/fixtures/review/agent.policy tests/fixtures/review/agent.json
if [ "$rc" = 1 ] && grep -q '^tests/fixtures/review/agent.json:4:23: warning: "write /srv/agents/7/repo/.git/hooks" .* (/extra_writable/0)$' "$tmp/out"; then
	ok "fixture agent: request lint points at the request's .git/hooks"; else not_ok "fixture agent: request lint (exit $rc)"; sed 's/^/#   /' "$tmp/out" | grep -v '^#       ' | head -n 6; fi
if grep -q '^tests/fixtures/review/agent.json:5:18: warning: "ro-bind /home/dev/.ssh" shows /home/\*/.ssh (credentials) to the sandbox \[W120 read-credentials\] (/read_only/0)$' "$tmp/out"; then
	ok "fixture agent: request lint flags the request's ~/.ssh at its position"; else not_ok "fixture agent: W120"; fi
expect_rc "fixture agent: the request's audit is above 40" 1 -- "$OSB" request audit --threshold 40 tests/fixtures/review/agent.policy tests/fixtures/review/agent.json
expect_rc "fixture compiler: the baseline's audit is at most 20" 0 -- "$OSB" audit --threshold 20 tests/fixtures/review/compiler.policy
export OSB_ISOLATE_POLICY_DIR=$OSB_SRCDIR/policy
cd "$tmp" || exit 1

# ---- hash: stable under layout, sensitive to meaning -------------------------
cat >base.policy <<'EOF'
osb-policy 1
root host-ro
tmpfs /tmp
tmpfs /run
dev /dev
proc /proc
workspace rw
network none
env clear
env pass PATH LANG
env deny *_TOKEN AWS_*
env set HOME=${WORKSPACE}
user sandbox 1000 1000
hostname sandbox
limit wall 600s
limit output 1MiB
EOF
# Reformatted: comments, blank lines, tabs, runs of blanks, equivalent units.
cat >reformatted.policy <<'EOF'
# a reviewer's copy
osb-policy	1

root   host-ro     # the host, read-only
tmpfs /tmp
	tmpfs /run
dev /dev
proc /proc
workspace rw
network none
env clear
env pass PATH   LANG
env deny *_TOKEN AWS_*
env set HOME=${WORKSPACE}
user sandbox 1000 1000
hostname sandbox
limit wall 10m
limit output 1024KiB
EOF
# Reordered: directives in another order, list entries split and repeated.
cat >reordered.policy <<'EOF'
osb-policy 1
limit output 1MiB
env deny AWS_*
env pass LANG
hostname sandbox
proc /proc
dev /dev
tmpfs /run
tmpfs /tmp
env set HOME=${WORKSPACE}
user sandbox 1000 1000
env pass PATH LANG
env deny *_TOKEN
network none
workspace rw
root host-ro
limit wall 600s
env clear
EOF
# Split into an include: the includer keeps the scalars.
cat >split-base.policy <<'EOF'
osb-policy 1
tmpfs /tmp
tmpfs /run
dev /dev
proc /proc
env pass PATH LANG
env deny *_TOKEN AWS_*
limit output 1MiB
EOF
cat >split.policy <<'EOF'
osb-policy 1
include ./split-base
root host-ro
workspace rw
network none
env clear
env set HOME=${WORKSPACE}
user sandbox 1000 1000
hostname sandbox
limit wall 600s
EOF
run "$OSB" hash ./base.policy
base_hash=$(cat "$tmp/out")
if [[ $rc = 0 && $base_hash =~ ^sha256:[0-9a-f]{64}$ ]]; then ok "hash prints sha256:HEX"; else not_ok "hash prints sha256:HEX ($rc: $base_hash)"; fi
for v in reformatted reordered split; do
	expect "hash unchanged: $v" 0 "$base_hash"$'\n' -- "$OSB" hash "./$v.policy"
done

# Each semantic change: one line edited (sed expression) or one line added.
changes=(
	's/^root host-ro/root none/'
	's/^network none/network host/'
	's/^env clear/env inherit/'
	's/^workspace rw/workspace ro/'
	's|^tmpfs /tmp|hide /tmp|'
	's|^dev /dev|tmpfs /dev|'
	's/^env pass PATH LANG/env pass PATH/'
	's/^env deny \*_TOKEN AWS_\*/env deny *_TOKEN/'
	's/^env set HOME=.*/env set HOME=\/home\/sandbox/'
	's/^user sandbox 1000 1000/user sandbox 1001 1000/'
	's/^user sandbox 1000 1000/user sandbox 1000 1001/'
	's/^user sandbox 1000 1000/user worker 1000 1000/'
	's/^hostname sandbox/hostname box/'
	's/^limit wall 600s/limit wall 601s/'
	's/^limit output 1MiB/limit output 2MiB/'
	'$a ro-bind /usr'
	'$a limit nofile 64'
	'$a identity userns'
	'$a env set LANG=C'
)
declare -A seen=([$base_hash]=base)
for i in "${!changes[@]}"; do
	sed -e "${changes[$i]}" base.policy >"change$i.policy"
	if cmp -s base.policy "change$i.policy"; then not_ok "change $i edits nothing: ${changes[$i]}"; continue; fi
	run "$OSB" hash "./change$i.policy"
	h=$(cat "$tmp/out")
	if [ "$rc" != 0 ]; then
		not_ok "hash of change '${changes[$i]}' (exit $rc: $(cat "$tmp/err"))"
	elif [ -n "${seen[$h]:-}" ]; then
		not_ok "hash changes with '${changes[$i]}' (same as ${seen[$h]})"
	else
		seen[$h]="'${changes[$i]}'"
		ok "hash changes with '${changes[$i]}'"
	fi
done

# ---- lint: each risky grant flagged with its code -----------------------------
SAFE='osb-policy 1
root none
ro-bind /usr
ro-bind /etc
tmpfs /tmp
tmpfs /run
dev /dev
proc /proc
workspace rw
env pass PATH
env deny *_TOKEN *_API_KEY *_SECRET_KEY *_SECRET *_PASSWORD AWS_* AZURE_* VAULT_*
env deny GOOGLE_APPLICATION_CREDENTIALS PGPASSWORD MYSQL_PWD SSH_AUTH_SOCK KUBECONFIG
limit wall 10m
read-only workspace:.git
# all of .git: hooks, config, a commondir, .git/modules'
printf '%s\n' "$SAFE" >safe.policy
expect "lint: safe policy has no findings" 0 "./safe.policy: 0 findings, 0 waived"$'\n' -- "$OSB" lint ./safe.policy
expect "check: safe policy is clean" 0 "" -- "$OSB" check --strict ./safe.policy

# lint_case NAME CODE EXTRA_LINES: SAFE plus the lines is flagged with CODE
# (as a warning, exit 1) on the first added line.
lint_case() {
	local name=$1 code=$2 extra=$3 line
	printf '%s\n%s\n' "$SAFE" "$extra" >"case.policy"
	line=$(($(printf '%s\n' "$SAFE" | wc -l) + 1))
	run "$OSB" check ./case.policy
	if [ "$rc" = 0 ] && grep -q "^./case.policy:$line:1: warning: .* \[$code\]\$" "$tmp/out"; then
		ok "lint $code: $name"
	else
		not_ok "lint $code: $name (check exit $rc)"
		sed 's/^/#   /' "$tmp/out" "$tmp/err" | head -n 5
	fi
	run "$OSB" lint ./case.policy
	if [ "$rc" = 1 ] && grep -q "^./case.policy:$line:1: warning: .* \[$code " "$tmp/out"; then
		ok "lint $code: $name: lint exits 1"
	else
		not_ok "lint $code: $name: lint exits 1 (got $rc)"
	fi
}
lint_case "docker socket bound" W106 "ro-bind /var/run/docker.sock"
lint_case "containerd directory bound" W106 "ro-bind /run/containerd"
lint_case "host network" W107 "network host"
lint_case "X11 sockets of the host /tmp" W108 "ro-bind /tmp/.X11-unix"
lint_case "token passed" W112 "env pass NPM_CONFIG_TOKEN2"
lint_case "secret in the policy" W113 "env set DB_PASSWORD=hunter2"
printf '%s\n' "$SAFE" | sed 's/^limit wall 10m/limit wall unlimited/' >nowall.policy
printf 'osb-policy 1\nproc /proc\nlimit wall 1m\nenv inherit\nenv deny *_TOKEN\n' >inherit.policy
expect "lint W111: inherit passes secrets the deny list misses" 0 "./inherit.policy:4:1: warning: \"env inherit\" passes credential-shaped variables no env deny pattern removes (OPENAI_API_KEY, ANTHROPIC_API_KEY, STRIPE_SECRET_KEY, AWS_ACCESS_KEY_ID, ...) [W111]"$'\n' \
	-- "$OSB" check ./inherit.policy
expect "lint W114: wall unlimited" 0 "./nowall.policy:13:1: warning: \"limit wall unlimited\": commands may run forever [W114]"$'\n' \
	-- "$OSB" check ./nowall.policy
expect_rc "check --strict exits 1 on warnings" 1 -- "$OSB" check --strict ./nowall.policy
printf '%s\nuser root 0 0\n' "$SAFE" >uid0.policy
expect "lint E101: uid 0 is an error" 2 "./uid0.policy:16:1: error: \"user root 0 0\" runs user code as uid 0 [E101]"$'\n' \
	-- "$OSB" check ./uid0.policy
printf 'osb-policy 1\nlimit wall 1m\n' >noproc.policy
expect "lint E102: no /proc is an error" 2 "./noproc.policy:1:1: error: the policy mounts no /proc (\"proc /proc\" is missing) [E102]"$'\n' \
	-- "$OSB" check ./noproc.policy
printf '%s\n' "$SAFE" | sed 's/^root host-ro/root none/' >narrow.policy
printf 'osb-policy 1\ninclude ./narrow\nroot host-ro\n' >widen.policy
expect "lint W115: include widened" 0 "./widen.policy:3:1: warning: \"root host-ro\" widens \"root none\" of the included ./narrow.policy:2 [W115]"$'\n'"./widen.policy:3:1: warning: \"root host-ro\" shows every Unix socket of the host the sandbox identity can reach [W118]"$'\n'"./widen.policy:3:1: warning: \"root host-ro\" shows /home/*/.ssh (credentials) to the sandbox [W120]"$'\n' \
	-- "$OSB" check ./widen.policy
printf '%s\n# osb-lint: waive W107 -- talks to the package registry\nnetwork host\n' "$SAFE" >waived.policy
expect "lint: waived finding listed, exit 0" 0 "./waived.policy:17:1: waived: \"network host\" shares the host's network namespace [W107 network-host]
    waiver at line 16: talks to the package registry
./waived.policy: 1 finding, 1 waived
" -- "$OSB" lint ./waived.policy
expect "check: waived finding silent" 0 "" -- "$OSB" check --strict ./waived.policy

# ---- the shipped policies: check and lint clean, or waived with a reason -------
cd "$OSB_SRCDIR" || exit 1
for pol in strict balanced; do
	expect "check --strict policy/$pol.policy" 0 "" -- "$OSB" check --strict "policy/$pol.policy"
	run "$OSB" lint "policy/$pol.policy"
	unwaived=$(grep -c ': warning: \|: error: ' "$tmp/out")
	reasons=$(grep -c '^    waiver at line [0-9]*: ..........' "$tmp/out")
	waived=$(grep -c ': waived: ' "$tmp/out")
	if [ "$rc" = 0 ] && [ "$unwaived" = 0 ] && [ "$reasons" = "$waived" ]; then
		ok "lint policy/$pol.policy: no finding without a waiver ($waived waived, each with a reason)"
	else
		not_ok "lint policy/$pol.policy: exit $rc, $unwaived without a waiver"
		sed 's/^/#   /' "$tmp/out" | head -n 20
	fi
done
expect "lint policy/strict.policy finds nothing" 0 "policy/strict.policy: 0 findings, 0 waived"$'\n' \
	-- "$OSB" lint policy/strict.policy
cd "$tmp" || exit 1

# ---- audit: monotonic in the grants, threshold exit codes ----------------------
score() { "$OSB" audit --json "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])'; }
printf 'osb-policy 1\ntmpfs /tmp\ntmpfs /run\ndev /dev\nproc /proc\nlimit wall 1m\nlimit nofile 64\nlimit fsize 1MiB\n' >g0.policy
grants=("root host-ro" "workspace ro" "ro-bind /usr" "env inherit" "network host"
	"env pass GITHUB_TOKEN" "ro-bind /run/docker.sock" "ro-bind /tmp/.X11-unix")
prev=$(score ./g0.policy)
cp g0.policy chain.policy
for g in "${grants[@]}"; do
	echo "$g" >>chain.policy
	now=$(score ./chain.policy)
	printf 'osb-policy 1\nproc /proc\ntmpfs /tmp\ntmpfs /run\ndev /dev\nlimit wall 1m\nlimit nofile 64\nlimit fsize 1MiB\n%s\n' "$g" >alone.policy
	alone=$(score ./alone.policy)
	if [ "$now" -ge "$prev" ] && [ "$alone" -gt "$(score ./g0.policy)" ]; then
		ok "audit: '$g' raises the score ($prev -> $now; alone $alone)"
	else
		not_ok "audit: '$g' lowered or kept the score ($prev -> $now; alone $alone)"
	fi
	prev=$now
done
sed -i 's/^workspace ro$/workspace rw/; s/^limit wall 1m$/limit wall unlimited/; /^tmpfs \/tmp$/d' chain.policy
now=$(score ./chain.policy)
if [ "$now" -gt "$prev" ]; then ok "audit: widening scalars raises the score ($prev -> $now)"; else
	not_ok "audit: widening scalars ($prev -> $now)"; fi
expect_rc "audit --threshold at the score exits 0" 0 -- "$OSB" audit --threshold "$now" ./chain.policy
expect_rc "audit --threshold below the score exits 1" 1 -- "$OSB" audit --threshold $((now - 1)) ./chain.policy
run "$OSB" audit --json --threshold 10 ./chain.policy
if [ "$rc" = 1 ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["above_threshold"] and d["threshold"]==10 and len(d["checks"])==13 and sum(c["weight"] for c in d["checks"])==100' "$tmp/out"; then
	ok "audit --json: checks, weights, threshold"
else
	not_ok "audit --json (exit $rc)"
fi
expect_rc "audit refuses a policy that does not parse" 2 -- "$OSB" audit ./nosuch.policy

# ---- check: every malformed input class, exact position, exit 2 ----------------
# bad NAME FILE_CONTENT(printf format) EXPECTED_LINE
bad() {
	printf "$2" >"$1"
	expect "check rejects $1" 2 "$3"$'\n' -- "$OSB" check "./$1"
}
bad nul.policy 'osb-policy 1\nnetwork \000none\n' './nul.policy:2:9: error: NUL byte in policy text [E001]'
bad crlf.policy 'osb-policy 1\r\n' './crlf.policy:1:13: error: carriage return in policy text (use Unix line endings) [E001]'
bad ctrl.policy 'osb-policy 1\nnetwork\001 none\n' './ctrl.policy:2:8: error: control character 0x01 in policy text [E001]'
bad utf8.policy 'osb-policy 1\nhostname caf\351\n' './utf8.policy:2:13: error: invalid UTF-8 in policy text [E001]'
bad bom.policy '\357\273\277osb-policy 1\n' './bom.policy:1:1: error: UTF-8 byte order mark (save the file without one) [E001]'
bad bidi.policy 'osb-policy 1\n# \342\200\256 hidden\n' './bidi.policy:2:3: error: invisible or bidirectional control character U+202E (not allowed in policy text) [E001]'
bad noversion.policy 'network none\n' './noversion.policy:1:1: error: expected version line "osb-policy 1" first [E002]'
bad version2.policy 'osb-policy 2\n' './version2.policy:1:12: error: unsupported policy version "2" (supported: "osb-policy 1") [E002]'
bad empty.policy '' './empty.policy:1:1: error: missing version line "osb-policy 1" (the file has no directives) [E002]'
bad typo.policy 'osb-policy 1\n  netwrok none\n' './typo.policy:2:3: error: unknown directive "netwrok" (did you mean "network"?) [E003]'
bad arity.policy 'osb-policy 1\nnetwork\n' './arity.policy:2:1: error: missing argument: usage is "network none|host|allow HOST[:PORT]..." [E004]'
bad extra.policy 'osb-policy 1\nroot none host-ro\n' './extra.policy:2:11: error: unexpected argument "host-ro" (usage is "root host-ro|none") [E004]'
bad keyword.policy 'osb-policy 1\nnetwork hots\n' './keyword.policy:2:9: error: unknown argument "hots" to "network" (did you mean "host"?) [E005]'
bad relative.policy 'osb-policy 1\nro-bind usr\n' './relative.policy:2:9: error: path must be absolute: "usr" [E006]'
bad dotdot.policy 'osb-policy 1\ntmpfs /a/../b\n' './dotdot.policy:2:7: error: path must not contain "..": "/a/../b" [E006]'
bad glob.policy 'osb-policy 1\nhide /a/*\n' './glob.policy:2:6: error: glob characters (* ? [) are not allowed in paths: "/a/*" [E006]'
bad uid.policy 'osb-policy 1\nuser sandbox x 1000\n' './uid.policy:2:14: error: invalid uid "x" (a decimal number from 0 to 4294967294) [E007]'
bad unit.policy 'osb-policy 1\nlimit wall 10\n' './unit.policy:2:12: error: missing unit in "10" (use ms, s, m or h) [E007]'
bad dup.policy 'osb-policy 1\nnetwork none\nnetwork host\n' './dup.policy:3:1: error: duplicate "network" (first set at ./dup.policy:2) [E008]'
printf 'osb-policy 1\nnetwork none\n' >s1.policy
printf 'osb-policy 1\nnetwork host\n' >s2.policy
bad conflict.policy 'osb-policy 1\ninclude ./s1\ninclude ./s2\n' './conflict.policy:3:9: error: "network" of ./s2.policy:2 conflicts with ./s1.policy:2 (both included at depth 1; set "network" in this file to choose) [E009]'
printf 'osb-policy 1\ninclude ./cycle-b\n' >cycle-a.policy
bad cycle-b.policy 'osb-policy 1\ninclude ./cycle-a\n' './cycle-a.policy:2:9: error: include cycle: ./cycle-b.policy -> ./cycle-a.policy -> ./cycle-b.policy; included from ./cycle-b.policy:2 [E010]'
bad missing-include.policy 'osb-policy 1\n\ninclude /nonexistent/x.policy\n' './missing-include.policy:3:9: error: cannot include "/nonexistent/x.policy": /nonexistent/x.policy: No such file or directory [E010]'
expect "check: unreadable file" 2 "./nosuch.policy: error: cannot read policy: No such file or directory [E012]"$'\n' \
	-- "$OSB" check ./nosuch.policy
run "$OSB" check ./safe.policy ./typo.policy ./dup.policy
if [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/out")" = 2 ]; then ok "check: one error per file, worst status"; else
	not_ok "check: several files (exit $rc)"; fi
expect "check --codes lists the codes" 0 "E001  error    text"$'\n' -- sh -c "\"$OSB\" check --codes | head -n 1"

# ---- diff ----------------------------------------------------------------------------
run "$OSB" diff ./base.policy ./reordered.policy
if [ "$rc" = 0 ] && grep -qx '0 differences: 0 wider, 0 narrower, 0 neutral' "$tmp/out"; then
	ok "diff: reordering is no difference"; else not_ok "diff: reordering (exit $rc)"; fi
run "$OSB" diff ./base.policy ./split.policy
if [ "$rc" = 0 ]; then ok "diff: splitting into an include is no difference"; else not_ok "diff: split (exit $rc)"; fi
sed 's/^network none/network host/; /^tmpfs \/run/d' base.policy >wider.policy
expect "diff: changed and removed rules with direction and origin" 1 "--- ./base.policy $base_hash
+++ ./wider.policy $("$OSB" hash ./wider.policy)
~ network none => network host  (wider)  # ./base.policy:8 => ./wider.policy:7
- tmpfs /run  (wider)  # ./base.policy:4
2 differences: 2 wider, 0 narrower, 0 neutral
effective view:
  readable: +/run  (wider)  # tmpfs /run (./base.policy:4) => root host-ro (./wider.policy:2)
  network: none → host  (wider)  # network none (./base.policy:8) => network host (./wider.policy:7)
verdict: wider
exposure: 33 -> 56 (+23)
" -- "$OSB" diff ./base.policy ./wider.policy

# ---- explain --host -----------------------------------------------------------------
mkdir -p ws && chmod 777 ws
run "$OSB" explain --host --workspace ws ./base.policy
if [ "$rc" = 0 ] && grep -qx "workspace: $tmp/ws" "$tmp/out" && grep -q '^bwrap argv' "$tmp/out" &&
   grep -q '^  x86_64 (every call libseccomp [0-9.]* does not know: ENOSYS)' "$tmp/out" &&
   grep -q '^seccomp: osb-default-3, per architecture:' "$tmp/out"; then
	ok "explain --host: workspace, seccomp per architecture, bwrap argv"
else
	not_ok "explain --host (exit $rc)"
	sed 's/^/#   /' "$tmp/err" | head -n 5
fi
run "$OSB" explain --json --host --workspace "$tmp/ws" ./base.policy
if [ "$rc" = 0 ] && python3 - "$tmp/out" "$tmp/ws" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
h = d["host"]
assert h["workspace"] == sys.argv[2], h["workspace"]
assert h["identity"] in ("userns", "root")
argv = h["bwrap_argv"]
assert argv[0].endswith("bwrap") and "--unshare-net" in argv and "--seccomp-fd" in argv, argv
assert any(b["writable"] and b["dest"] == sys.argv[2] for b in h["binds"])
x86 = [a for a in h["seccomp"]["architectures"] if a["arch"] == "x86_64"][0]
rules = {r["syscall"]: r for r in x86["rules"]}
assert rules["ptrace"]["action"] == "EPERM" and rules["clone3"]["action"] == "ENOSYS"
assert rules["clone"]["by_args"] and rules["clone"]["action"] == "EPERM"
assert x86["default"] == "ENOSYS" and rules["read"]["action"] == "ALLOW"
assert h["seccomp"]["group"] == "osb-default-3"
assert d["rules"][0]["rule"] == "root host-ro"
EOF
then ok "explain --json --host: plan fields"; else not_ok "explain --json --host (exit $rc)"; fi

# ---- regressions: codes by kind, sockets, launch-time failures known early ------
bad syscall.policy 'osb-policy 1\nseccomp deny frobnicate\n' './syscall.policy:2:14: error: unknown system call "frobnicate" (libseccomp 2.5.4 does not know it; check the spelling) [E011]'
bad errno.policy 'osb-policy 1\nseccomp deny ptrace errno=EPERN\n' './errno.policy:2:27: error: unknown errno "EPERN" (did you mean "EPERM"?) [E007]'
bad nofile.policy 'osb-policy 1\nlimit nofile 3\n' './nofile.policy:2:14: error: "limit nofile 3" is too small to start a program: stdin, stdout and stderr take 3 descriptors and the dynamic loader needs one more (at least 4) [E007]'
bad besteffort.policy 'osb-policy 1\nlimit cputime 60s best-effort\n' './besteffort.policy:2:19: error: "best-effort" is only for the limits the kernel enforces per sandbox (memory, pids, cpu): "limit cputime" always holds [E007]'
lint_case "per-user runtime directory bound" W106 "ro-bind /run/user/1000"
lint_case "osb-isolate's own runtime directory bound" W106 "ro-bind /run/osb-isolate"
lint_case "comment inside an env set value" W119 "env set FOO=bar # the default"
lint_case "home directories bound read-only" W120 "ro-bind /home"
lint_case "a read-root over the homes" W120 "read-root /home"
printf 'osb-policy 1\nroot none\nro-bind /etc\nproc /proc\nlimit wall 1m\nhide /etc/passwd\n' >hidefile.policy
expect "check: hide of a file is an error" 2 "./hidefile.policy:6:1: error: \"hide /etc/passwd\": /etc/passwd is not a directory on this host (hide mounts an empty directory) [E103]"$'\n' \
	-- "$OSB" check ./hidefile.policy
run "$OSB" explain --host --workspace ws ./hidefile.policy
if [ "$rc" = 2 ] && grep -q 'hide /etc/passwd' "$tmp/err"; then ok "explain --host: hide of a file fails (exit 2)"; else
	not_ok "explain --host: hide of a file (exit $rc)"; sed 's/^/#   /' "$tmp/err" | head -n 3; fi
# Mount layouts the launch refuses, said by check when the text decides them.
printf 'osb-policy 1\nproc /proc\nlimit wall 1m\nwrite-root /srv\nwrite /srv/a\nhide /srv/a/b\n' >hideinwrite.policy
expect "check: a hide in a write path is an error" 2 "./hideinwrite.policy:6:1: error: \"hide /srv/a/b\" lies in the writable /srv/a (./hideinwrite.policy:5): bwrap would make its mount point in a directory the sandbox can write [E104]"$'\n' \
	-- "$OSB" check ./hideinwrite.policy
printf 'osb-policy 1\nproc /proc\nlimit wall 1m\nwrite-root /srv\nwrite /srv/a\nhide /srv\n' >hideoverwrite.policy
expect "check: a hide over a write path is an error" 2 "./hideoverwrite.policy:6:1: error: \"hide /srv\" would cover the bind of /srv/a (./hideoverwrite.policy:5) [E104]"$'\n' \
	-- "$OSB" check ./hideoverwrite.policy
printf 'osb-policy 1\nproc /proc\nlimit wall 1m\nroot none\nro-bind /usr\nhide /usr/share\nworkspace ro /work\nhide /work/x\n' >hideinws.policy
expect "check: a hide in the workspace's DEST is an error, one in a read-only bind is not" 2 "./hideinws.policy:8:1: error: \"hide /work/x\" lies in the workspace /work (./hideinws.policy:7): bwrap would make its mount point in a directory the sandbox can write [E104]"$'\n' \
	-- "$OSB" check ./hideinws.policy
printf 'osb-policy 1\nproc /proc\nlimit wall 1m\nro-bind /usr\ntmpfs /usr/x\n' >tmpfsinbind.policy
expect "check: a tmpfs a bind would cover is an error" 2 "./tmpfsinbind.policy:5:1: error: \"tmpfs /usr/x\" would be covered by the bind of /usr (./tmpfsinbind.policy:4) [E104]"$'\n' \
	-- "$OSB" check ./tmpfsinbind.policy
mkdir -p ws/sub
printf 'osb-policy 1\ninclude strict\nhide %s/ws/sub\n' "$tmp" >hidews.policy
run "$OSB" explain --host --workspace ws ./hidews.policy
if [ "$rc" = 2 ] && grep -q "hidews.policy:3: hide $tmp/ws/sub lies in the workspace $tmp/ws" "$tmp/err"; then
	ok "explain --host: a hide in the workspace fails (exit 2)"; else
	not_ok "explain --host: a hide in the workspace (exit $rc)"; sed 's/^/#   /' "$tmp/err" | head -n 3; fi
printf 'osb-policy 1\nroot none\nro-bind /usr\nproc /proc\nlimit wall 1m\n' >noloader.policy
run "$OSB" explain --host --workspace ws ./noloader.policy
if [ "$rc" = 2 ] && grep -q 'dynamic loader' "$tmp/err"; then ok "explain --host: a view without the loader fails (exit 2)"; else
	not_ok "explain --host: a view without the loader (exit $rc)"; sed 's/^/#   /' "$tmp/err" | head -n 3; fi
expect_rc "explain --host: strict's view has the loader" 0 -- "$OSB" explain --host --workspace ws strict
printf 'osb-policy 1\nproc /proc\n' >bare.policy
expect "check: a bare file name gets a hint" 2 "bare.policy: error: $OSB_ISOLATE_POLICY_DIR/bare.policy: cannot read policy: No such file or directory [E012]
bare.policy: hint: a name without '/' is a shipped policy; write ./bare.policy for the file here
" -- "$OSB" check bare.policy
dates=$(sed -n 's/^\.TH [^ ]* [0-9] \([0-9-]*\) .*/\1/p' "$OSB_SRCDIR"/man/*.[0-9] | sort -u | wc -l)
if [ "$dates" = 1 ]; then ok "man pages: one date"; else not_ok "man pages: $dates different dates"; fi

# ---- JSON outputs against their schemas (docs/*.schema.json) ---------------------
run "$OSB" check --json ./safe.policy ./typo.policy ./nowall.policy bare.policy
valid check.schema.json "check --json: valid (exit $rc)"
if [ "$rc" = 2 ] && python3 - "$tmp/out" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == 2 and [p["status"] for p in d["policies"]] == [0, 2, 1, 2], d
t = d["policies"][1]["diagnostics"][0]
assert (t["line"], t["column"], t["code"], t["severity"]) == (2, 3, "E003", "error"), t
w = d["policies"][2]["diagnostics"][0]
assert w["code"] == "W114" and w["severity"] == "warning", w
assert d["policies"][3]["diagnostics"][0]["hint"].startswith("a name without '/'")
EOF
then ok "check --json: statuses, positions, codes, hint"; else not_ok "check --json: content (exit $rc)"; fi
run "$OSB" lint --json ./waived.policy
valid lint.schema.json "lint --json: valid (exit $rc)"
if [ "$rc" = 0 ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["policies"][0]; f=d["findings"][0]; assert (d["open"],d["waived"],f["code"],f["waiver"],f["waiver_line"])==(0,1,"W107","talks to the package registry",16), d' "$tmp/out"; then
	ok "lint --json: the waived finding"; else not_ok "lint --json: content (exit $rc)"; fi
# Several policies: one document, one entry per policy in the order given, a
# policy that does not load among them with its error.
run "$OSB" lint --json ./safe.policy ./waived.policy ./typo.policy ./nowall.policy
valid lint.schema.json "lint --json of several policies: one valid document (exit $rc)"
if [ "$rc" = 2 ] && python3 - "$tmp/out" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == 2 and d["open"] == 1 and d["waived"] == 1, d
p = d["policies"]
assert [e["policy"] for e in p] == ["./safe.policy", "./waived.policy", "./typo.policy", "./nowall.policy"], p
assert [e["status"] for e in p] == [0, 0, 2, 1], p
assert p[2]["error"] == './typo.policy:2:3: unknown directive "netwrok" (did you mean "network"?)', p[2]
assert p[2]["findings"] == [] and p[0]["error"] is None, p
assert p[3]["findings"][0]["code"] == "W114", p[3]
EOF
then ok "lint --json of several policies: entries, statuses, the load error"; else not_ok "lint --json of several policies (exit $rc)"; fi
run "$OSB" lint --json --no-waivers ./waived.policy
if [ "$rc" = 1 ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["policies"][0]; assert (d["open"],d["waived"],d["findings"][0]["waiver"])==(1,0,None), d' "$tmp/out"; then
	ok "lint --no-waivers: a waiver does not make lint pass"; else not_ok "lint --no-waivers (exit $rc)"; fi
expect_rc "lint --allow-waivers=W107 honours W107" 0 -- "$OSB" lint --allow-waivers=W107 ./waived.policy
expect_rc "lint --allow-waivers=W115,W111 refuses W107" 1 -- "$OSB" lint --allow-waivers=W115,W111 ./waived.policy
expect_rc "lint --allow-waivers of an unknown code is a usage error" 2 -- "$OSB" lint --allow-waivers=W999 ./waived.policy
expect_rc "lint --allow-waivers of an error code is a usage error" 2 -- "$OSB" lint --allow-waivers=E101 ./waived.policy
run "$OSB" lint --no-waivers "$OSB_SRCDIR/policy/balanced.policy"
if [ "$rc" = 1 ]; then ok "lint --no-waivers: balanced's own waivers no longer make it pass"; else
	not_ok "lint --no-waivers balanced (exit $rc)"; fi
run "$OSB" audit --json ./base.policy
valid audit.schema.json "audit --json: valid"
run "$OSB" audit --checks --json
valid audit.schema.json "audit --checks --json: valid"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d)==13 and sum(c["weight"] for c in d)==100' "$tmp/out"; then
	ok "audit --checks: every check, weights add up to 100"; else not_ok "audit --checks: weights"; fi
run "$OSB" diff --json ./base.policy ./wider.policy
valid diff.schema.json "diff --json: valid (exit $rc)"
if [ "$rc" = 1 ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["verdict"]=="wider" and len(d["changes"])==2 and d["changes"][0]["from_origin"]=="./base.policy:8", d' "$tmp/out"; then
	ok "diff --json: changes, origins, verdict"; else not_ok "diff --json: content (exit $rc)"; fi
if python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))["view"]; assert [(e["aspect"],e["change"],e["direction"],e["to_origin"]) for e in v]==[("readable","+/run","wider","root host-ro (./wider.policy:2)"),("network","none \u2192 host","wider","network host (./wider.policy:7)")], v' "$tmp/out"; then
	ok "diff --json: the effective view's deltas with their origins"; else not_ok "diff --json: view"; fi
# diff --narrower-ok: 0 for equal or narrower, 1 for wider or mixed.
sed 's/^network none/network host/; /^limit output/d' base.policy >mixed.policy
printf 'limit nofile 64\n' >>mixed.policy
expect_rc "diff --narrower-ok: equal" 0 -- "$OSB" diff --narrower-ok ./base.policy ./reordered.policy
expect_rc "diff --narrower-ok: narrower" 0 -- "$OSB" diff --narrower-ok ./wider.policy ./base.policy
expect_rc "diff --narrower-ok: wider" 1 -- "$OSB" diff --narrower-ok ./base.policy ./wider.policy
run "$OSB" diff --narrower-ok ./base.policy ./mixed.policy
if [ "$rc" = 1 ] && grep -qx 'verdict: mixed' "$tmp/out"; then ok "diff --narrower-ok: mixed exits 1"; else
	not_ok "diff --narrower-ok: mixed (exit $rc)"; sed 's/^/#   /' "$tmp/out" | head -n 8; fi
run "$OSB" diff ./wider.policy ./base.policy
if [ "$rc" = 1 ] && grep -qx 'verdict: narrower' "$tmp/out"; then ok "diff: verdict narrower"; else
	not_ok "diff: verdict narrower (exit $rc)"; fi

# ---- balanced's deny list against real CI variable names ---------------------------
# The environment a run of balanced would give, by name (explain --host builds
# it with the library's own rules): every secret of the CI systems below goes,
# the variables builds need stay.
secrets=(GITHUB_TOKEN github_token ACTIONS_RUNTIME_TOKEN ACTIONS_ID_TOKEN_REQUEST_TOKEN
	CI_JOB_TOKEN CI_JOB_JWT CI_JOB_JWT_V2 CI_REGISTRY_PASSWORD CI_DEPLOY_PASSWORD
	DOCKER_AUTH_CONFIG SYSTEM_ACCESSTOKEN BUILDKITE_AGENT_ACCESS_TOKEN CIRCLE_TOKEN
	CODECOV_TOKEN SONAR_TOKEN NODE_AUTH_TOKEN npm_config__authToken NPM_CONFIG__AUTH
	npm_config_//registry.npmjs.org/:_authToken TWINE_PASSWORD PASSWORD TOKEN SECRET_KEY
	DJANGO_SECRET_KEY HEROKU_API_KEY VAULT_TOKEN AWS_SECRET_ACCESS_KEY GOOGLE_CREDENTIALS
	PYPI_API_TOKEN Gitlab_Token password DATABASE_URL TEST_DATABASE_URL REDIS_URL
	MONGODB_URI MONGO_URL SENTRY_DSN GITHUB_PAT GH_PAT SSHPASS OPENAI_KEY STRIPE_KEY
	ANTHROPIC_KEY)
keep=(PATH LANG CI GITHUB_ACTIONS GITHUB_SHA GITHUB_REF_NAME CI_COMMIT_SHA CI_JOB_ID
	RUNNER_OS TOKENIZERS_PARALLELISM GIT_AUTHOR_NAME BUILDKITE_BUILD_NUMBER PIP_INDEX_URL
	npm_config_registry GITHUB_SERVER_URL CI_API_V4_URL KEYMAP PATHEXT)
envs=()
for n in "${secrets[@]}" "${keep[@]}"; do [ "$n" = PATH ] || envs+=("$n=x"); done
envs+=("PATH=$PATH")
run env -i OSB_ISOLATE_POLICY_DIR="$OSB_SRCDIR/policy" OSB_ISOLATE_INIT="$OSB_ISOLATE_INIT" "${envs[@]}" "$OSB" explain --json --host --workspace ws "$OSB_SRCDIR/policy/balanced.policy"
if [ "$rc" = 0 ] && python3 - "$tmp/out" "${#secrets[@]}" "${secrets[@]}" "${keep[@]}" <<'EOF'
import json, sys
env = set(json.load(open(sys.argv[1]))["host"]["environment"])
n = int(sys.argv[2])
secrets, keep = sys.argv[3:3 + n], sys.argv[3 + n:]
leaked = [s for s in secrets if s in env]
lost = [k for k in keep if k not in env]
assert not leaked and not lost, ("leaked", leaked, "lost", lost)
EOF
then ok "balanced: CI secrets removed (any case), build variables kept"; else
	not_ok "balanced: CI secrets (exit $rc)"; sed 's/^/#   /' "$tmp/err" | head -n 3; fi

# ---- request: what an execd request makes of a baseline ---------------------------
printf 'osb-policy 1\ninclude strict\nwrite-root /srv/jobs\n' >jobs.policy
printf '{ "extra_writable": [ "/srv/jobs/42/repo/.git/hooks" ] }\n' >hooks.json
printf '{ "workspace": { "mode": "ro" }, "network": "none" }\n' >narrow.json
printf '{ "network": "host" }\n' >widen.json
run "$OSB" request lint ./jobs.policy hooks.json
if [ "$rc" = 1 ] && grep -q 'warning: "write /srv/jobs/42/repo/.git/hooks" makes git hooks or git configuration writable \[W105 ' "$tmp/out"; then
	ok "request lint: a request's writable .git/hooks is W105"; else not_ok "request lint (exit $rc)"; sed 's/^/#   /' "$tmp/out" "$tmp/err" | head -n 4; fi
expect_rc "request lint: the baseline alone is clean" 0 -- "$OSB" lint ./jobs.policy
# Findings about what the request made point at the request: its line and
# column, and the JSON pointer of the value.
printf 'osb-policy 1\ninclude strict\nwrite-root /srv/jobs\nallow-caller network\n' >jobsnet.policy
printf '{\n  "network": "host",\n  "extra_writable": [\n    "/srv/jobs/42/out",\n    "/srv/jobs/42/repo/.git/hooks"\n  ],\n  "env": { "pass": [ "DB_PWD" ], "set": { "API_TOKEN_FILE": "x" } }\n}\n' >placed.json
run "$OSB" request lint ./jobsnet.policy placed.json
if [ "$rc" = 1 ] && [ "$(grep -c '^placed.json:' "$tmp/out")" = 5 ] &&
   grep -q '^placed.json:5:5: warning: "write /srv/jobs/42/repo/.git/hooks" makes git hooks or git configuration writable \[W105 write-git-hooks\] (/extra_writable/1)$' "$tmp/out" &&
   grep -q '^placed.json:2:14: warning: "network host" shares the host.s network namespace \[W107 network-host\] (/network)$' "$tmp/out" &&
   grep -q '^placed.json:7:22: warning: "env pass DB_PWD" passes a credential-shaped variable \[W112 env-pass-secret\] (/env/pass/0)$' "$tmp/out" &&
   grep -q '^placed.json:7:61: warning: "env set API_TOKEN_FILE=..." writes a credential-shaped variable into the policy \[W113 env-set-secret\] (/env/set/API_TOKEN_FILE)$' "$tmp/out"; then
	ok "request lint: findings at the request's line:column and JSON pointer"; else
	not_ok "request lint: positions (exit $rc)"; sed 's/^/#   /' "$tmp/out" "$tmp/err" | grep -v '^#       ' | head -n 8; fi
run "$OSB" request lint --json ./jobsnet.policy placed.json
valid lint.schema.json "request lint --json: valid (exit $rc)"
if python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["policies"][0]["findings"]; w=[x for x in f if x["code"]=="W105"][0]; assert (w["file"],w["line"],w["column"],w["pointer"],w["from_default"])==("placed.json",5,5,"/extra_writable/1",False), w' "$tmp/out"; then
	ok "request lint --json: the finding's file, line, column and pointer are the request's"; else not_ok "request lint --json: pointer"; fi
run "$OSB" request explain ./jobs.policy hooks.json
if [ "$rc" = 0 ] && grep -qx 'write /srv/jobs/42/repo/.git/hooks  # api' "$tmp/out"; then
	ok "request explain: the request's rules with origin api"; else not_ok "request explain (exit $rc)"; fi
base_score=$(score ./jobs.policy)
run "$OSB" request audit --json ./jobs.policy hooks.json
req_score=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total"])' "$tmp/out" 2>/dev/null)
if [ "$rc" = 0 ] && [ -n "$req_score" ] && [ "$req_score" -gt "$base_score" ]; then
	ok "request audit: the request's grant raises the score ($base_score -> $req_score)"; else
	not_ok "request audit (exit $rc, $base_score -> $req_score)"; fi
run "$OSB" request diff ./jobs.policy hooks.json
if [ "$rc" = 1 ] && grep -qx '+ write /srv/jobs/42/repo/.git/hooks  (wider)  # api' "$tmp/out" &&
   grep -qx 'verdict: wider' "$tmp/out"; then ok "request diff: the request's widening, with origin"; else
	not_ok "request diff (exit $rc)"; sed 's/^/#   /' "$tmp/out" | head -n 6; fi
expect_rc "request diff --narrower-ok: a narrowing request passes" 0 -- "$OSB" request diff --narrower-ok ./jobs.policy narrow.json
expect_rc "request diff --narrower-ok: a widening request fails" 1 -- "$OSB" request diff --narrower-ok ./jobs.policy hooks.json
run "$OSB" request audit ./jobs.policy widen.json
if [ "$rc" = 2 ] && grep -q 'request: widen.json: "network": the host network is refused' "$tmp/err"; then
	ok "request: a request the library refuses is an error (exit 2)"; else not_ok "request: refused request (exit $rc)"; fi
expect_rc "request: without the request file" 2 -- "$OSB" request lint ./jobs.policy
expect_rc "request: an unknown subcommand" 2 -- "$OSB" request run ./jobs.policy hooks.json
expect_rc "request: an unreadable request" 2 -- "$OSB" request lint ./jobs.policy ./nosuch.json

# ---- usage errors ----------------------------------------------------------------
expect_rc "check without a policy" 2 -- "$OSB" check
expect_rc "lint with an unknown option" 2 -- "$OSB" lint --bogus ./base.policy
expect_rc "audit with a bad threshold" 2 -- "$OSB" audit --threshold 101 ./base.policy
expect_rc "diff with one policy" 2 -- "$OSB" diff ./base.policy
expect_rc "explain --workspace without --host" 2 -- "$OSB" explain --workspace ws ./base.policy
expect_rc "hash of two policies" 2 -- "$OSB" hash ./base.policy ./base.policy
expect_rc "hash of a broken policy" 2 -- "$OSB" hash ./typo.policy

finish_suite "$pass" "$fail"

#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# bench/run.sh — what a sandbox costs, side by side with bare bwrap and the
# peers, measured on this machine and written to bench/RESULTS.md.
#
#   bench/run.sh            (as root on Debian 12, from a clone; installs what
#                            it needs, builds if there is no build, ~3 minutes)
#
# One hyperfine invocation (-N: no shell in between; the rows interleaved in
# ten rounds) times on the same machine state: the host's `true` (the
# fork+exec floor); `osb-isolate --version` (the CLI's own start); bare bwrap
# with exactly the argv `osb-isolate run` uses for strict and the same fd
# table (bench/bwrap-argv: the argv from `explain --json --host`, the init,
# filter, passwd and group prepared once); `osb-isolate run -- true`; one
# `osb-isolate session exec` (the CLI: a client process per exec);
# `firejail --noprofile true`; `osb-isolate capabilities` (each run is a new
# process: the uncached probe); and a loop of 1e6 getppid calls in a sandbox
# with the shipped seccomp filter and with "seccomp none". The table gives
# each row's median and its ratio to the row it is compared with.
#
# Then, through the C API (bench/api-bench): one exec in a live session
# against the host's posix_spawn of the same `true`; the capabilities probe
# cached and uncached (OSB_CAPS_REFRESH); N one-shot runs and N session execs
# with throughput and the memory and fds of the caller and of the broker at
# exec 100 and at exec N (the caller's also as malloc's bytes in use, which
# a leak grows and freed pages kept for reuse do not); and through the CLI: N `run`s and N `session
# exec`s, with the session holder's and broker's peak RSS (VmHWM). The
# per-call cost of the filter comes from bench/sysloop timing its own loop
# inside the sandbox (start-up excluded), alternating filter and no filter.
# Each target prints PASS or MISS; RESULTS.md explains every MISS.
#
# Environment: OSB_BUILDDIR (a configured build to use; default: the source
# tree if it is configured, else a build in /var/tmp/osb-isolate-bench-build),
# OSB_BENCH_WAIT (seconds to wait for the load average to fall below half
# the CPUs before measuring, 300), OSB_BENCH_RUNS (hyperfine runs per row,
# 100), OSB_BENCH_N (series length, 1000), OSB_BENCH_OUT (the results file,
# bench/RESULTS.md; the raw measurements go beside it, RESULTS.kv and
# RESULTS.hyperfine.json, and `bench/report.py bench/RESULTS.hyperfine.json
# bench/RESULTS.kv OUT` redoes the report from them).
set -euo pipefail
export LC_ALL=C.UTF-8
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
SRC=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${OSB_BENCH_RUNS:-100}
ROUNDS=10              # hyperfine rounds the runs of each row are spread over
WARMUP=2               # warm-up runs per row and round
N=${OSB_BENCH_N:-1000}
OUT=${OSB_BENCH_OUT:-$SRC/bench/RESULTS.md}
LOOPS=1000000          # getppid calls per run of the hyperfine rows
SYSLOOP_REPS=25        # sysloop runs per kind and filter setting

die() { echo "bench/run.sh: $*" >&2; exit 1; }
say() { echo "== $*" >&2; }

# ---- tools ------------------------------------------------------------------

apt_install() {
	local sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" \
		>/dev/null 2>&1 || { $sudo apt-get update -qq >/dev/null 2>&1 &&
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" \
		>/dev/null 2>&1; }
}

FIREJAIL_NOTE=
install_tools() {
	say "installing what is missing (tools/install-deps.sh, hyperfine, firejail)"
	"$SRC/tools/install-deps.sh" >&2
	command -v hyperfine >/dev/null || apt_install hyperfine ||
		die "cannot install hyperfine (apt-get install hyperfine)"
	if ! command -v firejail >/dev/null && ! apt_install firejail; then
		FIREJAIL_NOTE="firejail could not be installed (apt-get install firejail failed)"
	fi
	if [ -z "$FIREJAIL_NOTE" ] && ! firejail --noprofile true >/dev/null 2>&1; then
		FIREJAIL_NOTE="firejail --noprofile true fails here: $(firejail --noprofile true 2>&1 | tail -1)"
	fi
}

# ---- build --------------------------------------------------------------------

build() {
	if [ -n "${OSB_BUILDDIR:-}" ]; then
		B=$OSB_BUILDDIR
	elif [ -f "$SRC/config.status" ]; then
		B=$SRC
	else
		B=/var/tmp/osb-isolate-bench-build
		[ -x "$SRC/configure" ] || (cd "$SRC" && autoreconf -fi >/dev/null)
		mkdir -p "$B"
		[ -f "$B/Makefile" ] || (cd "$B" && "$SRC/configure" --quiet)
	fi
	say "building in $B"
	make -C "$B" -j"$(nproc)" >/dev/null
	make -C "$B" bench-programs >/dev/null
	OSB=$B/helper/osb-isolate
	for f in "$OSB" "$B/helper/osb-isolate-init" "$B/bench/bwrap-argv" "$B/bench/api-bench" \
		"$B/bench/sysloop"; do
		[ -x "$f" ] || die "$f was not built"
	done
}

# ---- staging ------------------------------------------------------------------

# The workspace and a policy directory with the shipped policies plus
# "nofilter" (strict with seccomp none), under /var/tmp: the sandbox sees
# the host read-only there (its /tmp is private).
stage() {
	STAGE=$(mktemp -d /var/tmp/osb-bench.XXXXXX)
	chmod 755 "$STAGE"
	mkdir -p "$STAGE/policy" "$STAGE/ws" "$STAGE/bare"
	cp "$SRC"/policy/*.policy "$STAGE/policy/"
	printf 'osb-policy 1\ninclude strict\nseccomp none\n' >"$STAGE/policy/nofilter.policy"
	cp "$B/bench/sysloop" "$STAGE/ws/"
	# A git checkout's shape: strict's read-only rules for .git/hooks and
	# .git/config then bind paths that exist, which bare bwrap needs.
	mkdir -p "$STAGE/ws/.git/hooks"
	: >"$STAGE/ws/.git/config"
	# The command itself, not libtool's wrapper script around it (whose
	# shell would be timed too), loading the library it was built with.
	"$SRC/tools/stage-cli.sh" "$B" "$STAGE" || die "staging the command failed"
	OSB=$STAGE/bin/osb-isolate
	chmod -R a+rX "$STAGE"
	# A root caller's sandbox runs as host ids allocated for it, which own
	# nothing: the workspace is writable for them as for everyone.
	chmod 1777 "$STAGE/ws"
	export OSB_ISOLATE_INIT=$B/helper/osb-isolate-init OSB_ISOLATE_POLICY_DIR=$STAGE/policy
	unset OSB_ISOLATE_BWRAP
	cd "$STAGE/ws"
}

cleanup() {
	[ -n "${SID:-}" ] && "$OSB" session stop "$SID" >/dev/null 2>&1
	[ -n "${STAGE:-}" ] && rm -rf "$STAGE"
	return 0
}

# What bare bwrap needs to run the argv of a strict run: the argv and bind
# sources (explain --json --host), the environment bwrap is given (the names
# explain lists, their values as the sandbox sees them), passwd and group as
# synthesized, the filter, the init's path.
prepare_bare() {
	local d=$STAGE/bare
	"$OSB" explain --json --host strict >"$d/explain.json"
	"$OSB" run -- env -0 >"$d/sandbox-env"
	"$B/bench/api-bench" filter strict "$d/seccomp.bpf"
	printf '%s\n' "$OSB_ISOLATE_INIT" >"$d/init"
	python3 - "$d" <<'EOF'
import json, sys
d = sys.argv[1]
h = json.load(open(d + "/explain.json"))["host"]
def nul(items):
    return b"".join(s.encode() + b"\0" for s in items)
open(d + "/argv", "wb").write(nul(h["bwrap_argv"]))
open(d + "/binds", "wb").write(nul(b["source"] for b in h["binds"]))
seen = dict(e.split("=", 1) for e in open(d + "/sandbox-env", "rb").read().decode().split("\0") if e)
open(d + "/env", "wb").write(nul("%s=%s" % (n, seen[n]) for n in h["environment"]))
a = h["bwrap_argv"]
open(d + "/data-dests", "w").write("".join(a[i + 2] + "\n" for i in range(len(a) - 2)
                                           if a[i] == "--ro-bind-data"))
EOF
	# Each synthesized file as the sandbox sees it (passwd, group, hosts...).
	mkdir -p "$d/data"
	local dest
	while IFS= read -r dest; do
		"$OSB" run -- cat "$dest" >"$d/data/$(printf '%s' "${dest#/}" | tr / _)"
	done <"$d/data-dests"
	local want got
	want=$("$OSB" run -- id)
	got=$("$B/bench/bwrap-argv" "$d" id) || die "bare bwrap with the strict argv fails"
	[ "$want" = "$got" ] || die "bare bwrap runs as '$got', osb-isolate run as '$want'"
}

start_session() {
	SID=$("$OSB" session start) || die "session start failed"
	"$OSB" session exec "$SID" -- true || die "session exec failed"
	HOLDER=$("$OSB" session list --json | python3 -c 'import json,sys
print(next(s["pid"] for s in json.load(sys.stdin) if s["id"] == sys.argv[1]))' "$SID")
	# The broker is the child of the session's bwrap (bwrap --as-pid-1),
	# which the holder starts through the session's owner: holder > owner
	# > bwrap > broker. Found by name, not by depth, so that the row never
	# measures bwrap's monitor or the owner instead.
	local p kids=$HOLDER bw=
	while [ -z "$bw" ] && [ -n "$kids" ]; do
		local next=
		for p in $kids; do
			if [ "$(cat /proc/"$p"/comm 2>/dev/null)" = bwrap ]; then bw=$p; break; fi
			next="$next $(cat /proc/"$p"/task/*/children 2>/dev/null)"
		done
		kids=$next
	done
	[ -n "$bw" ] || die "cannot find the session's bwrap under holder $HOLDER"
	BROKER=$(cat /proc/"$bw"/task/*/children | tr ' ' '\n' | grep -m1 .)
	[ -n "$BROKER" ] || die "cannot find the session broker under holder $HOLDER"
	grep -q -- '--session-fd' /proc/"$BROKER"/cmdline ||
		die "process $BROKER under the session's bwrap is not the broker (no --session-fd)"
}

# What a user who skips osb-isolate would type for the same isolation: a
# user namespace with the sandbox's ids, private pid, ipc, uts and network
# namespaces, the host read-only, a private /dev, /run, /tmp and /proc, the
# workspace writable.
hand_bwrap() {
	printf '%s' "bwrap --unshare-user --disable-userns --uid 1000 --gid 1000 --unshare-pid" \
		" --unshare-ipc --unshare-uts --unshare-net --die-with-parent --new-session" \
		" --ro-bind / / --dev /dev --tmpfs /run --tmpfs /tmp --proc /proc" \
		" --bind $STAGE/ws $STAGE/ws --chdir $STAGE/ws true"
}

# ---- measurements ---------------------------------------------------------------

KV=   # key=value results, one a line

# One hyperfine invocation; the rows are interleaved: ROUNDS rounds, each
# running every row RUNS/ROUNDS times, so that a burst of load from
# elsewhere falls on every row alike instead of on one row's block.
# (hyperfine varies its first parameter list fastest.) Each row's command
# is given to report.py, which pools the rounds per row.
hyperfine_rows() {
	local rows=() names=() list i
	rows+=("true") names+=(host-true)
	rows+=("$OSB --version") names+=(cli-start)
	rows+=("$B/bench/bwrap-argv $STAGE/bare") names+=(bare-bwrap)
	rows+=("$(hand_bwrap)") names+=(hand-bwrap)
	rows+=("$OSB run -- true") names+=(osb-run)
	rows+=("$OSB session exec $SID -- true") names+=(session-exec-cli)
	if [ -z "$FIREJAIL_NOTE" ]; then rows+=("firejail --noprofile true") names+=(firejail); fi
	rows+=("$OSB capabilities") names+=(caps-cli)
	rows+=("$OSB run -- ./sysloop getppid $LOOPS") names+=(sysloop-filter)
	rows+=("$OSB run --policy nofilter -- ./sysloop getppid $LOOPS") names+=(sysloop-nofilter)
	for i in "${!rows[@]}"; do
		case "${rows[$i]}" in *,*) die "a row contains a comma: ${rows[$i]}" ;; esac
		KV+="row=${names[$i]}"$'\t'"${rows[$i]}"$'\n'
	done
	list=$(IFS=,; echo "${rows[*]}")
	say "hyperfine: $RUNS runs per row in $ROUNDS interleaved rounds"
	hyperfine -N --style basic --warmup "$WARMUP" --runs $((RUNS / ROUNDS)) \
		--export-json "$STAGE/hf.json" -L row "$list" -L round "$(seq -s, "$ROUNDS")" '{row}' >&2
}

# ns per call, inside the sandbox: each repetition runs the loop under the
# shipped filter, under "seccomp none" and under an allow-all filter back to
# back, so that report.py can compare within a repetition (paired), where
# the machine's load is the same.
sysloop_series() {
	local kind n i
	say "sysloop: $SYSLOOP_REPS x 3 runs per kind"
	for kind in getppid stat mix; do
		n=$LOOPS
		[ "$kind" = getppid ] || n=$((LOOPS / 4))
		for i in $(seq "$SYSLOOP_REPS"); do
			KV+="sysloop_${kind}_filter_ns=$("$OSB" run -- ./sysloop "$kind" "$n" | cut -d' ' -f3)"$'\n'
			KV+="sysloop_${kind}_nofilter_ns=$("$OSB" run --policy nofilter -- ./sysloop "$kind" "$n" | cut -d' ' -f3)"$'\n'
			KV+="sysloop_${kind}_allowall_ns=$("$OSB" run --policy nofilter -- ./sysloop "$kind" "$n" allow-all | cut -d' ' -f3)"$'\n'
		done
	done
}

api_series() {
	local i
	say "C API: caps, $N session execs (each beside a host spawn), $N one-shot runs"
	KV+=$("$B/bench/api-bench" caps "$N")$'\n'
	KV+=$("$B/bench/api-bench" session strict "$N")$'\n'
	KV+=$("$B/bench/api-bench" oneshot strict "$N")$'\n'
}

# Where a typical run's time goes, as the result itself says (timings_us):
# 25 runs of `true`.
timings_series() {
	local i
	say "timings: 25 runs"
	for i in $(seq 25); do
		KV+=$("$OSB" run --json -- true | python3 -c 'import json, sys
t = json.load(sys.stdin)["timings_us"]
print("\n".join("timing_%s_us=%s" % (k, -1 if v is None else v) for k, v in t.items()))')$'\n'
	done
}

# The stages of a fresh launch, each process timing its own (report.py uses
# the fastest of each to take the rows' difference apart).
stage_series() {
	local i
	say "launch stages: 25 fresh processes"
	for i in $(seq 25); do KV+=$("$B/bench/api-bench" stages strict)$'\n'; done
}

status_kib() { awk -v f="$2:" '$1 == f { print $2 }' /proc/"$1"/status; }
now_ns() { date +%s%N; }

cli_series() {
	local i t0 t1
	say "CLI: $N runs, $N session execs"
	t0=$(now_ns)
	for i in $(seq "$N"); do "$OSB" run -- true; done
	t1=$(now_ns)
	KV+="cli_run_per_s=$(awk -v n="$N" -v d=$((t1 - t0)) 'BEGIN { printf "%.1f", n / (d / 1e9) }')"$'\n'
	t0=$(now_ns)
	for i in $(seq "$N"); do
		"$OSB" session exec "$SID" -- true
		if [ "$i" -eq 100 ]; then
			KV+="holder_rss_checkpoint_kib=$(status_kib "$HOLDER" VmRSS)"$'\n'
			KV+="cli_broker_rss_checkpoint_kib=$(status_kib "$BROKER" VmRSS)"$'\n'
			KV+="holder_fds_checkpoint=$(ls /proc/"$HOLDER"/fd | wc -l)"$'\n'
		fi
	done
	t1=$(now_ns)
	KV+="cli_session_exec_per_s=$(awk -v n="$N" -v d=$((t1 - t0)) 'BEGIN { printf "%.1f", n / (d / 1e9) }')"$'\n'
	KV+="holder_rss_end_kib=$(status_kib "$HOLDER" VmRSS)"$'\n'
	KV+="holder_hwm_kib=$(status_kib "$HOLDER" VmHWM)"$'\n'
	KV+="holder_fds_end=$(ls /proc/"$HOLDER"/fd | wc -l)"$'\n'
	KV+="cli_broker_rss_end_kib=$(status_kib "$BROKER" VmRSS)"$'\n'
	KV+="cli_broker_hwm_kib=$(status_kib "$BROKER" VmHWM)"$'\n'
}

machine() {
	KV+="nproc=$(nproc)"$'\n'
	KV+="n=$N"$'\n'
	KV+="cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"$'\n'
	KV+="kernel=$(uname -r)"$'\n'
	KV+="bwrap=$(bwrap --version | head -1)"$'\n'
	KV+="hyperfine=$(hyperfine --version)"$'\n'
	KV+="firejail=$(firejail --version 2>/dev/null | head -1 || true)"$'\n'
	KV+="firejail_note=$FIREJAIL_NOTE"$'\n'
	KV+="date=$(date -u '+%Y-%m-%d %H:%M UTC')"$'\n'
	KV+="loadavg_$1=$(cut -d' ' -f1-3 /proc/loadavg)"$'\n'
	KV+="commit=$(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$SRC" diff --quiet HEAD 2>/dev/null || echo +changes)"$'\n'
}

# Other work on the machine shows up as noise in every row. Wait (at most
# OSB_BENCH_WAIT seconds, 300) for the 1-minute load average to fall below
# half the CPUs; measure anyway after that: RESULTS.md records the load.
wait_for_quiet() {
	local limit=${OSB_BENCH_WAIT:-300} waited=0 half
	half=$(( $(nproc) * 50 ))
	while [ "$(awk '{ printf "%d", $1 * 100 }' /proc/loadavg)" -ge "$half" ] &&
		[ "$waited" -lt "$limit" ]; do
		[ "$waited" -eq 0 ] && say "waiting up to ${limit}s for the load average ($(cut -d' ' -f1 /proc/loadavg)) to fall below $(nproc)/2"
		sleep 10
		waited=$((waited + 10))
	done
}

main() {
	install_tools
	build
	trap cleanup EXIT
	stage
	prepare_bare
	start_session
	wait_for_quiet
	machine before
	stage_series
	timings_series
	hyperfine_rows
	sysloop_series
	api_series
	cli_series
	KV+="loadavg_after=$(cut -d' ' -f1-3 /proc/loadavg)"$'\n'
	# The measurements stay beside the report: report.py can redo it from them.
	printf '%s' "$KV" >"${OUT%.md}.kv"
	cp "$STAGE/hf.json" "${OUT%.md}.hyperfine.json"
	python3 "$SRC/bench/report.py" "${OUT%.md}.hyperfine.json" "${OUT%.md}.kv" "$OUT"
	# Overlay workspaces: a section of its own (bench/overlay.sh).
	OSB_BUILDDIR=$B OSB_BENCH_OUT=$OUT "$SRC/bench/overlay.sh"
	# The allowlist proxy's cost per connection: appended (bench/netproxy.sh).
	"$SRC/bench/netproxy.sh" "$B" >>"$OUT" || say "bench/netproxy.sh failed: its section is missing"
}

main "$@"

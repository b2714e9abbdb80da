#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# limits.sh — the kernel-enforced limits of `osb-isolate run` in real
# sandboxes: a fork bomb stopped at "limit pids", a memory bomb OOM-killed at
# "limit memory" (and the sandbox, never the CLI, as the OOM killer's
# victim), a full sized /tmp (ENOSPC inside, nothing on the host), a CPU
# burner held to "limit cpu 0.5", the cgroup of a SIGKILLed CLI removed by
# the next run, an unprivileged caller without a delegated cgroup refused
# with the reason (or, with "best-effort", run and told), one in a leaf of
# a v2 cgroup delegated to it limited, one in the delegated cgroup itself
# refused, and the callers' own v2 cgroups left as they were.
#
# Everything runs inside a protective cgroup of the test's own (pids.max and
# a memory limit well above the sandboxes'), so that a limit that fails to
# hold cannot take the machine down. Needs root (exit 77 otherwise). Runs on
# the host's cgroup layout: v1 or hybrid (controllers on v1 hierarchies) or
# v2; the layout it did not find is reported as skipped, with the reason.
set -uo pipefail
export LC_ALL=C
. "$OSB_SRCDIR/tests/integration/lib.sh"
test_need root probe_root
ensure_test_user

STAGE=$(stage_artifacts)
OSB=$STAGE/bin/osb-isolate
export OSB_ISOLATE_INIT=$STAGE/bin/osb-isolate-init OSB_ISOLATE_POLICY_DIR=$STAGE/policy
GUARDS=()
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { fail=$((fail + 1)); echo "not ok - $1"; }

# ---- the protective cgroup ----------------------------------------------------
# G/driver holds this script; sandboxes are made beneath G/driver (v1) or G
# (v2, whose controllers are enabled for G's children here). G bounds them all.
# GUARD_FROM[i]: the cgroup the script left for GUARDS[i], where it goes back.
GUARD_FROM=()
cleanup() {
	local i g
	for i in "${!GUARDS[@]}"; do
		g=${GUARDS[$i]}
		# Back to where we came from, then remove the guard (and what is left).
		cat "$g/driver/cgroup.procs" 2>/dev/null | while read -r p; do
			echo "$p" >"${GUARD_FROM[$i]}/cgroup.procs" 2>/dev/null
		done
		find "$g" -depth -mindepth 1 -type d -exec rmdir {} \; 2>/dev/null
		rmdir "$g" 2>/dev/null
	done
	rm -rf "$STAGE"
}
trap cleanup EXIT

# v2_enable DIR CTRL...: CTRLs in DIR's cgroup.subtree_control, each where
# the kernel takes it. Whether all of them are there now.
v2_enable() {
	local d=$1 c
	shift
	for c in "$@"; do
		grep -qw "$c" "$d/cgroup.subtree_control" || echo "+$c" >"$d/cgroup.subtree_control"
	done 2>/dev/null
	for c in "$@"; do grep -qw "$c" "$d/cgroup.subtree_control" || return 1; done
}

# v2_guard_parent MOUNT OWN: where the v2 guard goes: the nearest cgroup
# from OWN up whose children get memory and pids. OWN itself when it is the
# root cgroup, which may hold processes (this script) and still pass
# controllers on; any other cgroup with processes passes none on (and one
# given pids or cpu would leave its children invalid domains), so then the
# nearest ancestor that passes them (systemd's slices do, to the service
# this runs in).
v2_guard_parent() {
	local mnt=$1 d=$2
	if [ ! -e "$d/cgroup.type" ]; then
		v2_enable "$d" cpu
		v2_enable "$d" memory pids && { echo "$d"; return 0; }
	fi
	while [ "${#d}" -gt "${#mnt}" ]; do
		d=$(dirname "$d")
		grep -qw memory "$d/cgroup.subtree_control" && grep -qw pids "$d/cgroup.subtree_control" &&
			{ echo "$d"; return 0; }
	done
	return 1
}

# guard_in DIR VERSION FROM: make DIR/osb-guard.$$ with limits and move this
# script into it from its cgroup FROM.
guard_in() {
	local parent=$1 v=$2 g=$1/osb-guard.$$
	mkdir "$g" 2>/dev/null || return 1
	GUARDS+=("$g")
	GUARD_FROM+=("$3")
	# Each file where the hierarchy has it.
	{
		if [ "$v" = 2 ]; then
			# cpu too: a sandbox cgroup goes where every controller
			# reaches it, and would leave a guard without cpu.
			v2_enable "$g" memory pids cpu
			echo 4096 >"$g/pids.max"
			echo $((2 << 30)) >"$g/memory.max"
		else
			[ -e "$g/pids.max" ] && echo 4096 >"$g/pids.max"
			[ -e "$g/memory.limit_in_bytes" ] && echo $((2 << 30)) >"$g/memory.limit_in_bytes"
		fi
	} 2>/dev/null
	# A v2 guard without its limits protects nothing.
	if [ "$v" = 2 ] && { [ "$(cat "$g/pids.max" 2>/dev/null)" != 4096 ] ||
	                     [ "$(cat "$g/memory.max" 2>/dev/null)" != $((2 << 30)) ]; }; then
		V2_WHY="the guard $g took no memory.max or pids.max"
		return 1
	fi
	mkdir "$g/driver" && echo $$ >"$g/driver/cgroup.procs"
}

LAYOUT=
V2_WHY="this host's memory and pids controllers are on cgroup v1 hierarchies (hybrid layout)"
while IFS=: read -r id ctrls path; do
	if [ "$id" = 0 ]; then
		mnt=$(findmnt -rn -t cgroup2 -o TARGET | head -1)
		[ -n "$mnt" ] && grep -qw memory "$mnt${path%/}/cgroup.controllers" 2>/dev/null &&
			grep -qw pids "$mnt${path%/}/cgroup.controllers" 2>/dev/null || continue
		# What the cgroup this script came from passes on, to compare at the end.
		V2_FROM=$mnt${path%/} V2_FROM_SUB=$(cat "$mnt${path%/}/cgroup.subtree_control")
		if parent=$(v2_guard_parent "$mnt" "$mnt${path%/}"); then
			guard_in "$parent" 2 "$mnt${path%/}" && LAYOUT+=" v2"
		else
			V2_WHY="no cgroup from $mnt${path%/} up passes the memory and pids controllers to a child"
		fi
	elif [[ ",$ctrls," == *,memory,* || ",$ctrls," == *,pids,* ]]; then
		mnt=$(findmnt -rn -t cgroup -o TARGET,OPTIONS | awk -v c="$ctrls" '$2 ~ ("(^|,)" c "(,|$)") { print $1; exit }')
		[ -n "$mnt" ] && guard_in "$mnt${path%/}" 1 "$mnt${path%/}" && LAYOUT+=" v1:$ctrls"
	fi
done </proc/self/cgroup
echo "# protective cgroups:${LAYOUT:- none}"
[ -n "$LAYOUT" ] || { echo "SKIP: cgroup-v1: cgroup-v2: no memory or pids hierarchy here where root can make a cgroup"; exit 77; }
if [[ $LAYOUT != *v2* ]]; then
	echo "SKIP: cgroup-v2: $V2_WHY; the cases ran on v1"
	SKIPPED=$((SKIPPED + 1))
fi
[[ $LAYOUT == *v1* ]] || { echo "SKIP: cgroup-v1: this host has no v1 memory or pids hierarchy; the cases ran on v2"; SKIPPED=$((SKIPPED + 1)); }

WS=$(mktemp -d "$STAGE/work/ws.XXXXXX") && chmod 1777 "$WS"
cd "$WS" || exit 99
policy() { printf 'osb-policy 1\ninclude strict\n%s\n' "$1" >"$WS/p.policy"; chmod 644 "$WS/p.policy"; }
# field JSON EXPR: a member of the result, as Python prints it.
field() { python3 -c 'import json,sys; r=json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null; }
# The sandbox cgroups (osb-PID-RANDOM) anywhere beneath the guards.
leftovers() { local g; for g in "${GUARDS[@]}"; do find "$g" -mindepth 1 -type d -name 'osb-[0-9]*'; done; }

# ---- a fork bomb meets "limit pids" ---------------------------------------------
policy 'limit pids 30'
out=$("$OSB" run --json --policy "$WS/p.policy" -- sh -c 'b() { b | b & }; b; sleep 1; echo alive') ; rc=$?
if [ "$(field "$out" "r['limits']['pids_limited']")" = True ] && [ "$(field "$out" "r['limits']['pids_peak'] <= 30")" = True ]; then
	ok "fork bomb stopped at limit pids 30 (status $rc, pids_limited, peak $(field "$out" "r['limits']['pids_peak']"))"
else
	bad "fork bomb under limit pids 30: status $rc, result $out"
fi
[ -z "$(leftovers)" ] && ok "no sandbox cgroup left after the fork bomb" || bad "left over: $(leftovers)"
# A session command that cannot be forked names the limit that binds, as the
# broker sees it: with the cgroups bound read-only, the sandbox cgroup's
# pids.max, which bwrap and the broker (the sandbox's two processes) reach.
policy $'limit pids 2\nro-bind /sys/fs/cgroup'
sid=$("$OSB" session start --policy "$WS/p.policy" 2>&1); rc=$?
if [ "$rc" = 0 ]; then
	err=$("$OSB" session exec "$sid" -- true 2>&1); rc=$?
	want="osb-isolate: fork: cannot fork: Resource temporarily unavailable (the cgroup's process limit, pids.max 2, is reached: raise it or stop other processes)"
	[ "$rc" = 125 ] && [ "$err" = "$want" ] &&
		ok "a session command at limit pids 2: exit 125, the message names pids.max 2" ||
		bad "a session command at limit pids 2: status $rc: $err"
	"$OSB" session stop "$sid"
else
	bad "session start under limit pids 2: status $rc: $sid"
fi

# ---- a memory bomb meets "limit memory" -------------------------------------------
policy 'limit memory 64MiB'
out=$("$OSB" run --json --policy "$WS/p.policy" -- python3 -c 'a = b"x" * (300 << 20)'); rc=$?
if [ "$rc" = 137 ] && [ "$(field "$out" "r['limits']['oom_killed']")" = True ] && [ "$(field "$out" "r['signal']")" = 9 ]; then
	ok "memory bomb OOM-killed at limit memory 64MiB (status 137, oom_killed, the CLI wrote its result)"
else
	bad "memory bomb under limit memory 64MiB: status $rc, result $out"
fi
# tmpfs pages belong to no process: they are charged to the sandbox's cgroup.
# The OOM killer picks by resident memory, which tmpfs pages are not: it
# kills the writer, or another process of the sandbox (an init built with
# the sanitizers is larger) and with it the sandbox; never the CLI, which
# writes the result either way.
# /dev/shm sized above the memory limit here (strict's 64 MiB would stop dd first).
policy $'limit memory 64MiB\ntmpfs /dev/shm size=1GiB'
out=$("$OSB" run --json --policy "$WS/p.policy" -- sh -c 'dd if=/dev/zero of=/dev/shm/f bs=1M count=300 2>/dev/null; echo dd=$?'); rc=$?
if [ "$(field "$out" "r['limits']['oom_killed']")" = True ] &&
   { [ "$(field "$out" "r['stdout'].strip()")" = dd=137 ] || [ "$rc" = 137 ]; }; then
	ok "300 MiB written to /dev/shm under limit memory 64MiB: OOM-killed in the sandbox, the CLI wrote its result (status $rc)"
else
	bad "/dev/shm under limit memory 64MiB: status $rc, result $out"
fi
out=$("$OSB" run --json -- cat /proc/self/oom_score_adj); rc=$?
[ "$(field "$out" "r['stdout'].strip()")" = 1000 ] && [ "$(cat /proc/self/oom_score_adj)" != 1000 ] &&
	ok "the sandbox is the OOM killer's first victim (oom_score_adj 1000 inside, not outside)" ||
	bad "oom_score_adj inside: status $rc, result $out"

# ---- a session: one cgroup for the session, each command's own report ---------------
sid=$("$OSB" session start --policy "$WS/p.policy" 2>&1); rc=$?
if [ "$rc" = 0 ]; then
	out=$("$OSB" session exec "$sid" --json -- python3 -c 'a = b"x" * (300 << 20)'); rc=$?
	out2=$("$OSB" session exec "$sid" --json -- echo still); rc2=$?
	if [ "$rc" = 137 ] && [ "$(field "$out" "r['limits']['oom_killed']")" = True ] &&
	   [ "$rc2" = 0 ] && [ "$(field "$out2" "r['limits']['oom_killed']")" = False ] &&
	   [ "$(field "$out2" "r['tmpfs_full']")" = "[]" ]; then
		ok "session under limit memory 64MiB: the bomb is OOM-killed (137, oom_killed), the session serves the next command"
	else
		bad "session under limit memory 64MiB: $rc $out / $rc2 $out2"
	fi
	"$OSB" session stop "$sid"
	[ -z "$(leftovers)" ] && ok "no sandbox cgroup left after the session stopped" || bad "left over: $(leftovers)"
else
	bad "session start under limit memory 64MiB: status $rc: $sid"
fi

# ---- a full /tmp -------------------------------------------------------------------
policy 'tmpfs /tmp size=8MiB'
before=$(df -k --output=used /tmp | tail -1)
out=$("$OSB" run --json --policy "$WS/p.policy" -- sh -c 'dd if=/dev/zero of=/tmp/fill bs=1M count=64 2>&1 | head -1; ls -l /tmp/fill | cut -d" " -f5'); rc=$?
if [[ $(field "$out" "r['stdout']") == *"No space left on device"* ]] && [ "$(field "$out" "r['stdout'].split()[-1]")" = 8388608 ] &&
   [ "$(field "$out" "r['tmpfs_full']")" = "['/tmp']" ]; then
	ok "tmpfs /tmp size=8MiB: ENOSPC inside after 8 MiB, the result names /tmp in tmpfs_full"
else
	bad "tmpfs /tmp size=8MiB: status $rc, result $out"
fi
# In a session the tmpfs outlives the command: each command's result says
# what was full as it ended, the one that filled /tmp and the next one
# alike, until a command makes room.
sid=$("$OSB" session start --policy "$WS/p.policy" 2>&1); rc=$?
if [ "$rc" = 0 ]; then
	out=$("$OSB" session exec "$sid" --json -- sh -c 'dd if=/dev/zero of=/tmp/fill bs=1M count=64 2>/dev/null; echo dd=$?')
	out2=$("$OSB" session exec "$sid" --json -- true)
	out3=$("$OSB" session exec "$sid" --json -- rm /tmp/fill)
	if [ "$(field "$out" "r['stdout'].strip()")" = dd=1 ] && [ "$(field "$out" "r['tmpfs_full']")" = "['/tmp']" ] &&
	   [ "$(field "$out2" "r['tmpfs_full']")" = "['/tmp']" ] && [ "$(field "$out3" "r['tmpfs_full']")" = "[]" ]; then
		ok "session with tmpfs /tmp size=8MiB: the filling command and the next name /tmp in tmpfs_full, none once it is emptied"
	else
		bad "session tmpfs_full: $out / $out2 / $out3"
	fi
	"$OSB" session stop "$sid"
else
	bad "session start with tmpfs /tmp size=8MiB: status $rc: $sid"
fi
after=$(df -k --output=used /tmp | tail -1)
# Others may write to the host's /tmp meanwhile: the 64 MiB asked for must
# not show there, nor the file.
[ ! -e /tmp/fill ] && [ $((after - before)) -lt 49152 ] && ok "the host's /tmp is unaffected" ||
	bad "the host's /tmp changed: $before KiB -> $after KiB used"
out=$("$OSB" run --json -- df -k --output=size /tmp /run /dev/shm); rc=$?
[ "$(field "$out" "' '.join(r['stdout'].split()[1:])")" = "524288 16384 65536" ] &&
	[ "$(field "$out" "r['tmpfs_full']")" = "[]" ] &&
	ok "strict sizes /tmp (512 MiB), /run (16 MiB) and /dev/shm (64 MiB)" || bad "strict's /tmp, /run and /dev/shm: $out"
# bwrap 0.8 cannot size /dev itself: it is read-only once the sandbox is
# built, so nothing unsized is left to fill host memory with.
out=$("$OSB" run --json -- sh -c 'echo x >/dev/fill; echo rc=$?; echo y >/dev/null && echo null-ok' 2>&1); rc=$?
[[ $(field "$out" "r['stdout']") == *$'rc=2\nnull-ok'* ]] && [[ $(field "$out" "r['stderr']") == *"Read-only file system"* ]] &&
	ok "strict's /dev is read-only (a file cannot be created, /dev/null still works)" || bad "strict's /dev: $out"

# ---- "limit cpu 0.5" --------------------------------------------------------------
# Never more than 65 % of the wall time; that the quota held it back
# (throttled, above 30 %) needs a host that would have given it more: a busy
# host may not, so up to three runs.
policy 'limit cpu 0.5'
cpu_ok=
for _ in 1 2 3; do
	out=$("$OSB" run --json --policy "$WS/p.policy" -- timeout 2 sh -c 'while :; do :; done'); rc=$?
	cpu=$(field "$out" "r['limits']['cpu_usage_ms']")
	wall=$(field "$out" "r['duration_ms']")
	if [ -z "$cpu" ] || [ -z "$wall" ] || [ $((cpu * 100)) -gt $((wall * 65)) ]; then
		cpu_ok=no
		break
	fi
	if [ $((cpu * 100)) -ge $((wall * 30)) ] && [ "$(field "$out" "r['limits']['cpu_throttled_ms'] > 0")" = True ]; then
		cpu_ok=yes
		break
	fi
done
if [ "$cpu_ok" = yes ]; then
	ok "a CPU burner for 2 s under limit cpu 0.5 used $cpu ms of CPU in $wall ms and was throttled"
elif [ -z "$cpu_ok" ]; then
	# Within the bound each time, but never held back by the quota: the
	# host gave it less than half a CPU anyway. Not proven, so not passed.
	ok "a CPU burner under limit cpu 0.5 stayed below 65 % of the wall time in three runs"
	busy() { WHY="the host was too busy (load $(cut -d' ' -f1 /proc/loadavg)) to give the burner more than half a CPU: that the quota held it back was not shown"; false; }
	test_have quiet-host busy || true
else
	bad "limit cpu 0.5 (status $rc, $cpu ms of CPU in $wall ms): $out"
fi

# ---- the wall limit holds while its supervisor on the host is stopped ----------------
# The command stamps the workspace every 100 ms under --timeout 2s; WHO (the
# CLI's pid, or the session holder's) is stopped at 0.5 s for 4 s. The
# sandbox's pid 1 keeps the 2 s limit: the stamps end before 3 s, and the
# command reports 124 once WHO runs again.
# stopped_wall_limit NAME WHO-PID|cli RESULT-FILE COMMAND...
stopped_wall_limit() {
	local name=$1 who=$2 res=$3 t0 last ms pid rc out
	shift 3
	rm -f "$WS/stamp"
	t0=$(date +%s%N)
	"$@" --json --timeout 2s -- sh -c 'while :; do date +%s%N >stamp; sleep 0.1; done' >"$res" &
	pid=$!
	[ "$who" = cli ] && who=$pid
	sleep 0.5
	kill -STOP "$who"
	sleep 4
	last=$(cat "$WS/stamp" 2>/dev/null || echo 0)
	kill -CONT "$who"
	wait "$pid"; rc=$?
	out=$(cat "$res")
	ms=$(( (last - t0) / 1000000 ))
	if [ "$last" != 0 ] && [ "$ms" -lt 3000 ] && [ "$rc" = 124 ] && [ "$(field "$out" "r['timed_out']")" = True ]; then
		ok "$name stopped for 4 s: the command's last sign of life at $ms ms, status 124, timed_out"
	else
		bad "$name stopped: last stamp at $ms ms, status $rc, result $out"
	fi
}
stopped_wall_limit "run --timeout 2s with the CLI" cli "$WS/stopped.json" "$OSB" run
sid=$("$OSB" session start 2>&1); rc=$?
holder=$([ "$rc" = 0 ] && "$OSB" session list --json | python3 -c 'import json,sys
print(next(s["pid"] for s in json.load(sys.stdin) if s["id"] == sys.argv[1]))' "$sid")
if [ -n "$holder" ]; then
	stopped_wall_limit "session exec --timeout 2s with the holder" "$holder" "$WS/hstopped.json" \
		"$OSB" session exec "$sid"
	"$OSB" session stop "$sid"
else
	bad "session start for the stopped-holder case: status $rc: $sid"
fi

# ---- the wall limit holds against a fork bomb under a CPU quota -------------------------
# The bomb spends the sandbox's whole quota; the deadline is kept by what does
# not share it: the CLI outside the sandbox's cgroup, and pid 1's own timer.
# The command's own shell forks once, before the bomb has taken any pid, and
# then becomes the sleep (exec: a fork of its own could meet "limit pids"
# first, and the shell would exit with 2 long before the deadline). The bomb
# starts in a subshell: for "b | b &" the shell itself forks once per element
# of the pipeline, and the first element's bomb can take every pid before
# the second fork (seen once as "Cannot fork" and status 2 after 163 ms).
policy $'limit cpu 1\nlimit pids 400'
t0=$(date +%s%N)
out=$("$OSB" run --json --policy "$WS/p.policy" --timeout 2s -- sh -c '(b() { b | b & }; b) & exec sleep 30'); rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
if [ "$rc" = 124 ] && [ "$ms" -lt 3000 ] && [ "$(field "$out" "r['timed_out']")" = True ]; then
	ok "a fork bomb under limit cpu 1 and --timeout 2s: ended after $ms ms, status 124, timed_out"
else
	bad "a fork bomb under limit cpu 1 and --timeout 2s: $ms ms, status $rc, result $out"
fi
[ -z "$(leftovers)" ] && ok "no sandbox cgroup left after the fork bomb under a CPU quota" || bad "left over: $(leftovers)"

# ---- the cgroup of a SIGKILLed caller ------------------------------------------------
policy 'limit pids 30'
"$OSB" run --policy "$WS/p.policy" -- sleep 30 >/dev/null 2>&1 &
cli=$!
for _ in $(seq 50); do [ -n "$(leftovers)" ] && break; sleep 0.1; done
left=$(leftovers)
kill -KILL "$cli"; wait "$cli" 2>/dev/null
if [ -n "$left" ] && [[ $left == */osb-"$cli"-* ]]; then
	# In every hierarchy, the guarded ones and the others (cpu, freezer...).
	left=$(find /sys/fs/cgroup -maxdepth 8 -type d -name "osb-$cli-*" 2>/dev/null)
	sleep 0.5
	if [ -d "$(echo "$left" | head -1)" ]; then
		"$OSB" run --policy "$WS/p.policy" -- true; rc=$?
		[ "$rc" = 0 ] && [ -z "$(leftovers)" ] &&
		[ -z "$(find /sys/fs/cgroup -maxdepth 8 -type d -name "osb-$cli-*" 2>/dev/null)" ] &&
			ok "the cgroup a SIGKILLed CLI left is removed by the next run" ||
			bad "after SIGKILL and a new run (status $rc): left over: $(leftovers)"
	else
		ok "the cgroup of a SIGKILLed CLI is gone (removed before the next run needed to)"
	fi
else
	bad "no sandbox cgroup of the CLI (pid $cli) appeared while it ran: ${left:-none}"
fi

# ---- an unprivileged caller --------------------------------------------------------------
chmod 755 "$WS" && chmod 644 "$WS/p.policy"
UWS=$(mktemp -d "$STAGE/work/uws.XXXXXX") && chown "$TEST_USER:" "$UWS"
if test_have userns probe_userns user; then
	out=$(cd "$UWS" && as_test_user env OSB_ISOLATE_INIT="$OSB_ISOLATE_INIT" OSB_ISOLATE_POLICY_DIR="$OSB_ISOLATE_POLICY_DIR" \
		"$OSB" run --json --policy "$WS/p.policy" -- sh -c 'b() { b | b & }; b; sleep 1'); rc=$?
	if [ "$rc" = 125 ] && [ "$(field "$out" "r['error']['stage']")" = cgroup ] &&
	   [[ $(field "$out" "r['error']['message']") == *'"limit pids 30" ('*'p.policy:3) cannot be enforced on this host: '*best-effort* ]]; then
		ok "unprivileged without a delegated cgroup: refused, 125, stage cgroup, with the reason"
	elif [ "$(field "$out" "r['limits']['pids_limited']")" = True ]; then
		ok "unprivileged with a delegated cgroup: the fork bomb stopped at limit pids"
	else
		bad "unprivileged caller, limit pids 30: status $rc, result $out"
	fi
	policy 'limit pids 30 best-effort'
	out=$(cd "$UWS" && as_test_user env OSB_ISOLATE_INIT="$OSB_ISOLATE_INIT" OSB_ISOLATE_POLICY_DIR="$OSB_ISOLATE_POLICY_DIR" \
		"$OSB" run --json --policy "$WS/p.policy" -- echo ran); rc=$?
	if [ "$rc" = 0 ] && { [ "$(field "$out" "r['limits']['not_enforced']")" = "['pids']" ] ||
	                      [ "$(field "$out" "r['limits']['cgroup']")" = True ]; }; then
		ok "unprivileged, limit pids best-effort: ran; the result says whether it held ($(field "$out" "r['limits']['not_enforced_reason']"))"
	else
		bad "unprivileged caller, limit pids 30 best-effort: status $rc, result $out"
	fi
	# capabilities' cgroup_limits item: "STATUS|REASON".
	item() { python3 -c 'import json,sys; d=json.load(sys.stdin); i=[x for x in d["items"] if x["id"]=="cgroup_limits"][0]; print(i["status"]+"|"+i["reason"])'; }
	# A parent root made and gave to the user, named in the host
	# configuration (cgroup-parent): a v1 host delegates nothing else.
	v1_guards=()
	for g in "${GUARDS[@]}"; do [ -e "$g/cgroup.subtree_control" ] || v1_guards+=("$g"); done
	if [ "${#v1_guards[@]}" -gt 0 ]; then
		policy 'limit pids 30'
		printf 'osb-config 1\n' >"$STAGE/cgconfig"
		for g in "${v1_guards[@]}"; do
			mkdir "$g/user" && chown -R "$TEST_USER:" "$g/user"
			echo "cgroup-parent $g/user" >>"$STAGE/cgconfig"
		done
		chmod 644 "$STAGE/cgconfig"
		out=$(cd "$UWS" && as_test_user env OSB_ISOLATE_INIT="$OSB_ISOLATE_INIT" OSB_ISOLATE_POLICY_DIR="$OSB_ISOLATE_POLICY_DIR" \
			OSB_ISOLATE_CONFIG="$STAGE/cgconfig" "$OSB" run --json --policy "$WS/p.policy" -- sh -c 'b() { b | b & }; b; sleep 1'); rc=$?
		if [ "$(field "$out" "r['limits']['pids_limited']")" = True ]; then
			ok "unprivileged with a configured cgroup-parent: the fork bomb stopped at limit pids (status $rc)"
		else
			bad "unprivileged caller with cgroup-parent: status $rc, result $out"
		fi
		# capabilities says what the launch just did: with the configuration
		# the item names the configured parent, without it the item does not.
		with=$(cd "$UWS" && as_test_user env OSB_ISOLATE_INIT="$OSB_ISOLATE_INIT" OSB_ISOLATE_POLICY_DIR="$OSB_ISOLATE_POLICY_DIR" \
			OSB_ISOLATE_CONFIG="$STAGE/cgconfig" "$OSB" capabilities --json | item)
		without=$(cd "$UWS" && as_test_user env OSB_ISOLATE_INIT="$OSB_ISOLATE_INIT" OSB_ISOLATE_POLICY_DIR="$OSB_ISOLATE_POLICY_DIR" \
			"$OSB" capabilities --json | item)
		if [[ $with == ok\|* || $with == degraded\|* ]] && [[ $with == *"in ${v1_guards[0]}/user"* ]] &&
		   [[ $without != *"${v1_guards[0]}/user"* ]]; then
			ok "capabilities with the configured cgroup-parent: cgroup_limits names it (${with%%|*}); without it, not"
		else
			bad "capabilities and cgroup-parent: with: $with / without: $without"
		fi
	else
		echo "SKIP: cgroup-v1: no v1 hierarchy to give the test user a configured parent in (on cgroup v2 the user also needs the common ancestor: systemd's delegation)"
		SKIPPED=$((SKIPPED + 1))
	fi
	# systemd's delegation on v2 (Delegate=yes), without any configuration:
	# root gives the user a cgroup D in the guard (D, its cgroup.procs,
	# cgroup.threads and cgroup.subtree_control become the user's) and
	# starts the user's process in a leaf of D, as the remedy says (a cgroup
	# that passes controllers on may hold no process). The launch finds D,
	# enables the controllers there and makes the sandbox cgroup in it.
	v2_guard=
	for g in "${GUARDS[@]}"; do [ -e "$g/cgroup.subtree_control" ] && v2_guard=$g; done
	if [ -n "$v2_guard" ]; then
		D=$v2_guard/deleg D2=$v2_guard/deleg2
		mkdir "$D" "$D/leaf" "$D2"
		for d in "$D" "$D/leaf" "$D2"; do
			chown "$TEST_USER:" "$d" "$d/cgroup.procs" "$d/cgroup.threads" "$d/cgroup.subtree_control"
		done
		# as_user_in DIR CMD...: CMD as the test user, started in cgroup DIR.
		as_user_in() {
			(echo "$BASHPID" >"$1/cgroup.procs" && shift && cd "$UWS" &&
				exec setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups -- \
				env OSB_ISOLATE_INIT="$OSB_ISOLATE_INIT" OSB_ISOLATE_POLICY_DIR="$OSB_ISOLATE_POLICY_DIR" "$@")
		}
		policy 'limit pids 30'
		out=$(as_user_in "$D/leaf" "$OSB" run --json --policy "$WS/p.policy" -- sh -c 'b() { b | b & }; b; sleep 1'); rc=$?
		caps=$(as_user_in "$D/leaf" "$OSB" capabilities --json | item)
		if [ "$(field "$out" "r['limits']['pids_limited']")" = True ] && [[ $caps == ok\|*"pids: cgroup v2 in $D;"* ]]; then
			ok "unprivileged in a v2 cgroup delegated to it: the fork bomb stopped at limit pids (status $rc); capabilities names $D"
		else
			bad "unprivileged in a delegated v2 cgroup: status $rc, result $out; capabilities: $caps"
		fi
		# The user's process in a delegated cgroup D2 itself: D2 cannot pass
		# controllers on while a process lives in it, the refusal says so,
		# and D2 is left as it was (a threaded controller enabled there
		# would leave its children invalid domains that nothing can enter).
		out=$(as_user_in "$D2" "$OSB" run --json --policy "$WS/p.policy" -- true); rc=$?
		if [ "$rc" = 125 ] && [ "$(field "$out" "r['error']['stage']")" = cgroup ] &&
		   [[ $(field "$out" "r['error']['message']") == *"$D2/cgroup.subtree_control does not enable "*"(processes live in it"*"a leaf cgroup of it"* ]] &&
		   [ -z "$(cat "$D2/cgroup.subtree_control")" ]; then
			ok "unprivileged in the delegated v2 cgroup itself (no leaf): refused, 125, stage cgroup, with the reason and remedy"
		else
			bad "unprivileged in the delegated v2 cgroup itself: status $rc, result $out; its subtree_control: $(cat "$D2/cgroup.subtree_control")"
		fi
	else
		echo "SKIP: cgroup-v2: no v2 guard to delegate a cgroup to the test user in: $V2_WHY"
		SKIPPED=$((SKIPPED + 1))
	fi
fi
[ -z "$(leftovers)" ] && ok "no sandbox cgroup left at the end" || bad "left over: $(leftovers)"
# On v2 the launches ran in G/driver, a cgroup with processes that is not
# the root: nothing may have been enabled in its cgroup.subtree_control
# (pids or cpu there would leave its children invalid domains); nor in the
# cgroup this script came from, unless that is the root (enabled above).
for g in "${GUARDS[@]}"; do
	[ -e "$g/cgroup.subtree_control" ] || continue
	sub=$(cat "$g/driver/cgroup.subtree_control")
	from=$([ -e "$V2_FROM/cgroup.type" ] && cat "$V2_FROM/cgroup.subtree_control" || echo "$V2_FROM_SUB")
	if [ -z "$sub" ] && [ "$from" = "$V2_FROM_SUB" ]; then
		ok "the callers' own v2 cgroups are left as they were (nothing enabled in $g/driver, $V2_FROM passes '${from}' on)"
	else
		bad "a caller's own v2 cgroup was changed: $g/driver passes '$sub' on; $V2_FROM passed '$V2_FROM_SUB', now '$from'"
	fi
done
finish_suite "$pass" "$fail"

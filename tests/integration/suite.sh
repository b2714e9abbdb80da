#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# suite.sh — end-to-end tests of `osb-isolate run`: real sandboxes, concrete
# outcomes. Run by as-root.sh and as-user.sh with STAGE set to a directory
# holding bin/, policy/ and a writable work/ owned by the running user.
set -uo pipefail

: "${STAGE:?}"
. "$STAGE/lib.sh"
OSB="$STAGE/bin/osb-isolate"
export OSB_ISOLATE_INIT="$STAGE/bin/osb-isolate-init"
export OSB_ISOLATE_POLICY_DIR="${SUITE_POLICY_DIR:-$STAGE/policy}"
# SUITE_MODE: unset (user-namespace mode), root (policies force identity
# root) or root-auto (user namespaces blocked; identity auto falls back).
SUITE_MODE=${SUITE_MODE:-}
WHO="$(id -un) (uid $(id -u))${SUITE_MODE:+, mode $SUITE_MODE}"
root_mode() { [ -n "$SUITE_MODE" ]; }
# A root caller's sandbox runs as host ids allocated per sandbox, which own
# nothing: what it must write is made writable for others (sticky, like /tmp).
root_caller() { [ "$(id -u)" -eq 0 ]; }
share_dir() { if root_caller; then chmod 1777 "$@"; fi; }
# The range root callers' ids come from (lib/hostid.h).
HOSTID_BASE=1879048192
HOSTID_END=$((HOSTID_BASE + 65535))
is_allocated_id() { [ "$1" -ge "$HOSTID_BASE" ] 2>/dev/null && [ "$1" -le "$HOSTID_END" ] && ! getent passwd "$1" >/dev/null; }

pass=0
fail=0
failed_names=()

# A fresh workspace per test, as the current directory.
new_ws() {
	WS=$(mktemp -d "$STAGE/work/ws.XXXXXX")
	chmod 755 "$WS"
	share_dir "$WS"
	cd "$WS" || exit 99
}

ok() { pass=$((pass + 1)); echo "ok - $1"; }
not_ok() {
	fail=$((fail + 1)); failed_names+=("$1")
	echo "not ok - $1"
	shift
	for l in "$@"; do echo "#   $l"; done
}
expect_eq() { # name expected actual
	if [ "$2" == "$3" ]; then ok "$1"; else not_ok "$1" "expected: $(printf %q "$2")" "actual:   $(printf %q "$3")"; fi
}

json_field() { # json key -> value (python3 for exact parsing; the JSON goes by stdin)
	printf '%s' "$1" | python3 -c 'import json,sys; v=json.load(sys.stdin)[sys.argv[1]]; print(json.dumps(v) if not isinstance(v,str) else v, end="")' "$2"
}

# ---- identity and namespaces ---------------------------------------------

t_pid_isolation() {
	new_ws
	local out
	out=$("$OSB" run -- sh -c 'echo $$; ls /proc | grep "^[0-9]" | sort -n | tr "\n" " "')
	expect_eq "pid namespace: the command is pid 2" "2" "$(echo "$out" | head -n1)"
	# bwrap's reaper (1), sh (2), ls and grep, sort, tr: nothing else.
	local n; n=$(echo "$out" | tail -n1 | wc -w)
	if [ "$n" -le 6 ]; then ok "pid namespace: no host process visible ($n pids)"; else not_ok "pid namespace: host processes visible" "$out"; fi
}

t_identity_view() {
	new_ws
	if root_mode; then
		local u; u=$("$OSB" run -- id -u)
		if is_allocated_id "$u"; then ok "root mode: id -u inside is an allocated host id ($u)"
		else not_ok "root mode: id -u inside is an allocated host id" "$u"; fi
		local g; g=$("$OSB" run -- id -g)
		is_allocated_id "$g" && ok "root mode: id -g inside is an allocated host id ($g)" \
			|| not_ok "root mode: id -g inside is an allocated host id" "$g"
	else
		expect_eq "id -u inside is 1000" "1000" "$("$OSB" run -- id -u)"
		expect_eq "id -g inside is 1000" "1000" "$("$OSB" run -- id -g)"
	fi
	expect_eq "whoami inside is sandbox" "sandbox" "$("$OSB" run -- whoami)"
	expect_eq "/etc/passwd holds only root, sandbox, nobody" "root sandbox nobody" \
		"$("$OSB" run -- sh -c 'cut -d: -f1 /etc/passwd | tr "\n" " "' | sed 's/ $//')"
	expect_eq "hostname is sandbox" "sandbox" "$("$OSB" run -- cat /proc/sys/kernel/hostname)"
}

# ---- filesystem ------------------------------------------------------------

t_private_tmp() {
	new_ws
	local marker="osb-marker-$$-$RANDOM"
	"$OSB" run -- sh -c "echo inside > /tmp/$marker && cat /tmp/$marker" >/dev/null
	if [ -e "/tmp/$marker" ]; then not_ok "private /tmp: file written inside is absent outside" "/tmp/$marker exists on the host"; rm -f "/tmp/$marker"
	else ok "private /tmp: file written inside is absent outside"; fi
}

t_usr_readonly() {
	new_ws
	local out
	out=$("$OSB" run -- sh -c 'touch /usr/osb-test 2>&1; echo rc=$?')
	expect_eq "writing under /usr fails with EROFS" "touch: cannot touch '/usr/osb-test': Read-only file system rc=1" "$(echo $out)"
	[ ! -e /usr/osb-test ] && ok "nothing created under the host /usr" || not_ok "file created under host /usr"
}

t_workspace_write() {
	new_ws
	"$OSB" run -- sh -c 'echo hello > result.txt'
	expect_eq "a workspace write lands on the host" "hello" "$(cat "$WS/result.txt" 2>/dev/null)"
	expect_eq "HOME is the workspace" "$WS" "$("$OSB" run -- sh -c 'echo $HOME')"
	expect_eq "cwd is the workspace" "$WS" "$("$OSB" run -- pwd)"
	expect_eq "the workspace is reachable by its absolute path" "hello" \
		"$("$OSB" run -- sh -c 'cd / && cat "$HOME/result.txt"')"
}

t_workspace_refused() {
	cd / || exit 99
	local err rc
	err=$("$OSB" run -- true 2>&1); rc=$?
	expect_eq "workspace / is refused with 125" "125" "$rc"
	case "$err" in *"choose a project directory"*) ok "the refusal asks for a project directory";; *) not_ok "the refusal asks for a project directory" "$err";; esac
	new_ws
}

# ---- network ---------------------------------------------------------------

t_no_network() {
	new_ws
	expect_eq "only lo inside" "lo" \
		"$("$OSB" run -- sh -c "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '")"
	local port=$((20000 + RANDOM % 20000))
	python3 -c '
import socket,sys,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(8); s.settimeout(20)
try:
    while True:
        c,_=s.accept(); c.close()
except Exception: pass' "$port" &
	local lpid=$! i reached=0
	# The control doubles as the wait for the listener (at most 10 s).
	for ((i = 0; i < 500; i++)); do
		bash -c "exec 3<>/dev/tcp/127.0.0.1/$port" 2>/dev/null && { reached=1; break; }
		sleep 0.02
	done
	if [ "$reached" -eq 1 ]; then
		ok "control: the host listener is reachable from the host"
	else
		not_ok "control: the host listener is reachable from the host"
	fi
	local rc
	"$OSB" run -- bash -c "exec 3<>/dev/tcp/127.0.0.1/$port" 2>/dev/null; rc=$?
	kill "$lpid" 2>/dev/null; wait "$lpid" 2>/dev/null
	if [ "$rc" -ne 0 ]; then ok "a host TCP listener on 127.0.0.1 is unreachable inside"
	else not_ok "a host TCP listener on 127.0.0.1 is unreachable inside" "connect succeeded"; fi
}

# ---- environment ---------------------------------------------------------------

t_env_secrets() {
	new_ws
	local out
	out=$(MY_TOKEN=s3cret OSB_VISIBLE=1 "$OSB" run -- env)
	case "$out" in *MY_TOKEN*) not_ok "strict: *_TOKEN absent inside" "$out";; *) ok "strict: *_TOKEN absent inside";; esac
	case "$out" in *OSB_VISIBLE*) not_ok "strict: unlisted variables absent inside";; *) ok "strict: unlisted variables absent inside";; esac
	out=$(MY_TOKEN=s3cret AWS_ACCESS_KEY_ID=x OSB_VISIBLE=1 "$OSB" run --policy balanced -- env)
	case "$out" in *MY_TOKEN*|*AWS_ACCESS_KEY_ID*) not_ok "balanced: secret-looking names absent" "$out";; *) ok "balanced: secret-looking names absent";; esac
	case "$out" in *OSB_VISIBLE=1*) ok "balanced: other variables pass through";; *) not_ok "balanced: other variables pass through" "$out";; esac
}

# ---- output, status --------------------------------------------------------------

t_streams() {
	new_ws
	"$OSB" run -- sh -c 'echo out; echo err >&2' >"$STAGE/work/o" 2>"$STAGE/work/e"
	expect_eq "stdout streams separately" "out" "$(cat "$STAGE/work/o")"
	expect_eq "stderr streams separately" "err" "$(cat "$STAGE/work/e")"
	local j
	j=$("$OSB" run --json -- sh -c 'echo out; echo err >&2; exit 3')
	expect_eq "json: stdout captured" '"out\n"' "$(python3 -c 'import json,sys; print(json.dumps(json.loads(sys.argv[1])["stdout"]))' "$j")"
	expect_eq "json: stderr captured" '"err\n"' "$(python3 -c 'import json,sys; print(json.dumps(json.loads(sys.argv[1])["stderr"]))' "$j")"
	expect_eq "json: exit_code" "3" "$(json_field "$j" exit_code)"
	expect_eq "json: ok false for exit 3" "false" "$(json_field "$j" ok)"
	expect_eq "json: policy hash present" "sha256:" "$(json_field "$j" policy_hash | cut -c1-7)"
	j=$("$OSB" run --json -- true)
	expect_eq "json: ok true for exit 0" "true" "$(json_field "$j" ok)"
	j=$("$OSB" run --result-fd 9 -- sh -c 'echo streamed' 9>"$STAGE/work/r" >"$STAGE/work/o2")
	expect_eq "--result-fd: output still streams" "streamed" "$(cat "$STAGE/work/o2")"
	expect_eq "--result-fd: the result object is written to the fd" '"streamed\n"' \
		"$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["stdout"]))' "$STAGE/work/r")"
}

t_output_limit() {
	new_ws
	local j
	j=$("$OSB" run --json -- sh -c 'head -c 3000000 /dev/zero | tr "\0" a')
	expect_eq "output over the 1 MiB limit is truncated" "true" "$(json_field "$j" truncated)"
	expect_eq "byte count keeps the full size" "3000000" "$(json_field "$j" stdout_bytes)"
	expect_eq "captured bytes are clipped to the limit" "1048576" \
		"$(printf '%s' "$j" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["stdout"]))')"
}

t_exit_codes() {
	new_ws
	local rc
	"$OSB" run -- sh -c 'exit 7'; rc=$?
	expect_eq "exit 7 propagates" "7" "$rc"
	"$OSB" run -- sh -c 'kill -9 $$'; rc=$?
	expect_eq "SIGKILL gives 137" "137" "$rc"
	"$OSB" run -- osb-no-such-command-xyz 2>/dev/null; rc=$?
	expect_eq "missing command gives 127" "127" "$rc"
	local j; j=$("$OSB" run --json -- osb-no-such-command-xyz)
	expect_eq "json: a missing command is error stage exec, errno 2" "exec 2" \
		"$(printf '%s' "$j" | python3 -c 'import json,sys; e=json.load(sys.stdin)["error"]; print(e["stage"], e["errno"])')"
	case "$(json_field "$j" hint)" in *"sandbox's PATH"*) ok "json: the hint says where commands are looked up";;
		*) not_ok "json: the hint says where commands are looked up" "$j";; esac
	printf 'echo hi\n' > "$WS/notexec.sh"; chmod 644 "$WS/notexec.sh"
	"$OSB" run -- ./notexec.sh 2>/dev/null; rc=$?
	expect_eq "non-executable file gives 126" "126" "$rc"
	# strict sets a fixed system PATH: the caller's (a root daemon's often
	# has directories the sandbox's ids cannot search) does not reach the
	# command, and programs in /usr/bin are found without it.
	mkdir -m 000 "$WS/locked"
	cp "$WS/notexec.sh" "$WS/notexec"
	local out
	out=$(PATH="$WS/locked:$WS:$PATH" "$OSB" run -- sh -c 'echo "$PATH"; command -v ls')
	expect_eq "strict's PATH is fixed, not the caller's; command -v finds /usr/bin" \
		"/usr/local/bin:/usr/bin:/bin"$'\n'"/usr/bin/ls" "$out"
	OSB_ISOLATE_BWRAP=$(command -v bwrap) PATH="$WS/locked" "$OSB" run -- ls >/dev/null; rc=$?
	expect_eq "a caller PATH of one unsearchable directory: ls is still found" "0" "$rc"
	PATH="$WS/locked:$WS:$PATH" "$OSB" run -- notexec 2>/dev/null; rc=$?
	expect_eq "a file on the caller's PATH only is not found (127)" "127" "$rc"
	# 127 versus 126 on a PATH the policy sets: an unsearchable directory
	# does not turn "not found" into "not executable".
	printf 'osb-policy 1\ninclude %s\nenv set PATH=${WORKSPACE}/locked:${WORKSPACE}:/usr/bin:/bin\n' \
		"$OSB_ISOLATE_POLICY_DIR/strict.policy" > "$WS/path.policy"
	"$OSB" run --policy "$WS/path.policy" -- osb-no-such-command-xyz 2>/dev/null; rc=$?
	expect_eq "missing command with an unsearchable PATH directory gives 127" "127" "$rc"
	"$OSB" run --policy "$WS/path.policy" -- notexec 2>/dev/null; rc=$?
	expect_eq "... and a non-executable file on that PATH still gives 126" "126" "$rc"
	rmdir "$WS/locked"
	"$OSB" run --shell -- 'exit 5'; rc=$?
	expect_eq "--shell runs through /bin/sh -c" "5" "$rc"
}

t_timeout() {
	new_ws
	local start end rc marker="100.$$$RANDOM"
	start=$(date +%s%N)
	"$OSB" run --timeout 1s -- sleep "$marker"; rc=$?
	end=$(date +%s%N)
	expect_eq "sleep 100 with a 1 s limit gives 124" "124" "$rc"
	local ms=$(( (end - start) / 1000000 ))
	if [ "$ms" -lt 2000 ]; then ok "the timeout fires within 2 s (${ms} ms)"; else not_ok "the timeout fires within 2 s" "${ms} ms"; fi
	# No grace period: when run returns, nothing of its sandbox is left
	# (tests/unit/check_leak.c proves it for the library, as a subreaper).
	if pgrep -f "sleep $marker" >/dev/null; then not_ok "no process outlives the timeout" "$(pgrep -af "sleep $marker")"
	else ok "no process outlives the timeout"; fi
	local j; j=$("$OSB" run --json --timeout 500ms -- sleep 5)
	expect_eq "json: timed_out" "true" "$(json_field "$j" timed_out)"
	# Above the policy's wall limit: refused, not quietly lowered.
	# The shipped file holds the line (SUITE_POLICY_DIR's strict includes it).
	local err wall_line shipped="$STAGE/policy/strict.policy"
	wall_line=$(grep -n '^limit wall ' "$shipped" | cut -d: -f1)
	err=$("$OSB" run --timeout 11m -- true 2>&1); rc=$?
	expect_eq "a --timeout above the policy's wall limit gives 125" "125" "$rc"
	expect_eq "... naming both limits" "osb-isolate: policy: timeout 11m would raise the policy's \"limit wall 10m\" ($shipped:$wall_line); a caller may only lower the wall limit" "$err"
	"$OSB" run --timeout 10m -- true; rc=$?
	expect_eq "a --timeout equal to the wall limit runs" "0" "$rc"
}

t_background_killed() {
	new_ws
	local marker="200.$$$RANDOM"
	"$OSB" run -- sh -c "sleep $marker >/dev/null 2>&1 & echo started"
	if pgrep -f "sleep $marker" >/dev/null; then not_ok "a background process does not outlive the run"; pkill -f "sleep $marker"
	else ok "a background process does not outlive the run"; fi
}

t_bad_policy() {
	new_ws
	printf 'osb-policy 1\nroot host-ro\nwirte /tmp\n' > "$WS/bad.policy"
	local err rc
	err=$("$OSB" run --policy "$WS/bad.policy" -- true 2>&1); rc=$?
	expect_eq "a broken policy gives 125" "125" "$rc"
	case "$err" in *"$WS/bad.policy:3:1: "*) ok "the error names file:line:col";; *) not_ok "the error names file:line:col" "$err";; esac
}

t_stdin() {
	new_ws
	expect_eq "stdin reads EOF by default" "" "$(echo data | "$OSB" run -- cat)"
	expect_eq "--stdin passes standard input" "data" "$(echo data | "$OSB" run --stdin -- cat)"
}

t_fds() {
	new_ws
	local out
	# fds 7 and 8 (one a directory) are open in the caller without CLOEXEC.
	out=$(exec 7</dev/null 8<"$STAGE"; cp "$STAGE/bin/fdcheck" "$WS/"; "$OSB" run -- ./fdcheck | tr '\n' ' ')
	expect_eq "inside, only fds 0 1 2 are open" "0 1 2 " "$out"
}

t_seccomp_policy() {
	new_ws
	printf 'osb-policy 1\ninclude %s\nseccomp none\n' "$OSB_ISOLATE_POLICY_DIR/strict.policy" > "$WS/none.policy"
	# Counted against strict: a wrapper (the container simulation) may have
	# filters of its own that every process inherits.
	local with without
	with=$("$OSB" run -- sh -c 'grep ^Seccomp_filters: /proc/self/status | cut -f2')
	without=$("$OSB" run --policy "$WS/none.policy" -- sh -c 'grep ^Seccomp_filters: /proc/self/status | cut -f2')
	expect_eq "seccomp none: the policy's filter is not loaded (strict loads one more)" "$((without + 1))" "$with"
	printf 'osb-policy 1\ninclude %s\nseccomp deny uname errno=EACCES\n' "$OSB_ISOLATE_POLICY_DIR/strict.policy" > "$WS/deny.policy"
	expect_eq "seccomp deny uname errno=EACCES: uname fails with EACCES" \
		"uname: cannot get system name: Permission denied" \
		"$("$OSB" run --policy "$WS/deny.policy" -- uname 2>&1)"
	expect_eq "control: uname works under strict" "Linux" "$("$OSB" run -- uname)"
}

t_seccomp_loaded() {
	new_ws
	expect_eq "a seccomp filter is loaded" "2" "$("$OSB" run -- sh -c 'grep ^Seccomp: /proc/self/status | cut -f2')"
	expect_eq "no_new_privs is set" "1" "$("$OSB" run -- sh -c 'grep ^NoNewPrivs: /proc/self/status | cut -f2')"
	expect_eq "no capabilities" "0000000000000000" "$("$OSB" run -- sh -c 'grep ^CapEff: /proc/self/status | cut -f2')"
}

# ---- the escape suite (tests/escape/escape.c: one attack per name) ----------

# Every attack must print "NAME blocked ..." and every control "NAME ok"; an
# i386 attack on a kernel without IA-32 emulation prints "SKIP: ia32: NAME
# not run: WHY" instead (tests/skip.h), which is passed on, never counted
# as blocked.
check_escape_lines() { # label expected-count output
	local label=$1 want=$2 out=$3 bad n skipped
	n=$(printf '%s\n' "$out" | grep -cE '^[a-z0-9_]+ (blocked|ok)( |$)')
	skipped=$(printf '%s\n' "$out" | grep -cE '^SKIP: [a-z0-9]+: [a-z0-9_]+ not run: ')
	bad=$(printf '%s\n' "$out" | grep -vE '^[a-z0-9_]+ (blocked|ok)( |$)|^SKIP: [a-z0-9]+: [a-z0-9_]+ not run: ' | grep -v '^$')
	printf '%s\n' "$out" | grep -E '^SKIP: ' | sed "s/^SKIP: \([a-z0-9]*\): /SKIP: \1: $label: /"
	if [ -z "$bad" ] && [ $((n + skipped)) -eq "$want" ]; then
		ok "$label: $n attacks blocked, controls work$([ "$skipped" -gt 0 ] && echo ", $skipped skipped")"
	else not_ok "$label" "blocked/ok lines: $n of $want, $skipped skipped" "$bad"; fi
}

# The skip path itself: with IA-32 emulation hidden an i386 attack is a
# skip (exit 0), and fails when OSB_REQUIRE names ia32.
t_escape_skip_path() {
	local out rc
	out=$(OSB_TEST_HIDE=ia32 "$STAGE/bin/escape" i386_mount 2>&1); rc=$?
	expect_eq "escape: hidden IA-32 emulation is a skip" \
		"0 SKIP: ia32: i386_mount not run: hidden by OSB_TEST_HIDE" "$rc $out"
	out=$(OSB_TEST_HIDE=ia32 OSB_REQUIRE=ia32 "$STAGE/bin/escape" i386_mount 2>/dev/null); rc=$?
	expect_eq "escape: a required but absent IA-32 emulation fails" \
		"1 FAIL: ia32: required by OSB_REQUIRE but absent: i386_mount not run: hidden by OSB_TEST_HIDE" \
		"$rc $out"
}

t_escape_suite() {
	new_ws
	cp "$STAGE/bin/escape" "$WS/"
	local names want out
	names=$("$STAGE/bin/escape" --list | tr '\n' ' ')
	want=$(echo "$names" | wc -w)
	out=$("$OSB" run -- sh -c 'for n in $(./escape --list); do ./escape "$n"; done' 2>&1)
	check_escape_lines "escape suite under strict" "$want" "$out"
	# The same attacks as uid 0 holding every capability of the sandbox's own
	# user namespace: nothing but the seccomp filter stands in the way. (This
	# needs a user namespace; the user-namespace runs of the suite do it.)
	root_mode && return
	"$STAGE/bin/dump-filter" > "$STAGE/work/filter.bpf" || { not_ok "dump the filter"; return; }
	out=$(bwrap --unshare-user --uid 0 --gid 0 --cap-add ALL --ro-bind / / --dev /dev \
		--proc /proc --unshare-pid --unshare-net --tmpfs /tmp --bind "$WS" "$WS" --chdir "$WS" \
		--die-with-parent --new-session --seccomp 9 \
		-- sh -c 'grep ^CapEff: /proc/self/status; for n in $(./escape --list); do ./escape "$n"; done' \
		9<"$STAGE/work/filter.bpf" 2>&1)
	expect_eq "capable userns: the attacker holds every capability" \
		"CapEff:	$(printf '%016x' $(( (1 << ($(cat /proc/sys/kernel/cap_last_cap) + 1)) - 1 )))" \
		"$(echo "$out" | head -n1)"
	check_escape_lines "escape suite as capable uid 0 in its own userns" "$want" "$(echo "$out" | tail -n +2)"
}

# ---- write paths beneath declared roots (verified by fd, never by prefix) -------

# A policy declaring one write-root, and the tree the attacks play in.
write_setup() {
	new_ws
	WR=$(mktemp -d "$STAGE/work/roots.XXXXXX")
	chmod 755 "$WR"
	mkdir -p "$WR/data/x" "$WR/data/sub" "$WR/database/x" "$WR/outside"
	ln -s /etc "$WR/data/link"
	ln -s "$WR/data/sub" "$WR/data/ilink"
	ln -s ../outside "$WR/data/rel"
	echo secret > "$WR/outside/file"
	ln "$WR/outside/file" "$WR/data/hard" 2>/dev/null || cp "$WR/outside/file" "$WR/data/hard"
	mkfifo "$WR/data/fifo"
	share_dir "$WR/data/x" "$WR/data/sub" "$WR/database/x"
	printf 'osb-policy 1\ninclude %s\nwrite-root %s\n' \
		"$OSB_ISOLATE_POLICY_DIR/strict.policy" "$WR/data" > "$WS/w.policy"
}

expect_refused() { # name expected-substring args...
	local name=$1 want=$2 err rc
	shift 2
	err=$("$OSB" run --policy "$WS/w.policy" "$@" -- true 2>&1); rc=$?
	if [ "$rc" -eq 125 ] && [[ $err == *"$want"* ]]; then ok "$name"
	else not_ok "$name" "rc=$rc (want 125)" "$err"; fi
}

t_write_paths() {
	write_setup
	"$OSB" run --policy "$WS/w.policy" --write "$WR/data/x" -- sh -c "echo in > $WR/data/x/f"
	expect_eq "a granted write path beneath its root is writable" "in" "$(cat "$WR/data/x/f" 2>/dev/null)"
	expect_eq "a sibling outside the grant stays read-only" "fail" \
		"$("$OSB" run --policy "$WS/w.policy" --write "$WR/data/x" -- sh -c "touch $WR/data/sub/f 2>/dev/null && echo wrote || echo fail")"
	expect_refused "/data vs /database: a sibling with a common prefix is refused" "write-root" --write "$WR/database/x"
	# The CLI reads ".." by its words (no symlink is followed anyway): this
	# names $WR/outside, which no write-root covers.
	expect_refused "/data/../etc is refused" "not beneath a declared write-root" --write "$WR/data/../outside"
	expect_refused "a final symlink to /etc is refused" "symlink" --write "$WR/data/link"
	expect_refused "an intermediate symlink is refused" "symlink" --write "$WR/data/ilink/y"
	expect_refused "a relative symlink ../outside is refused" "symlink" --write "$WR/data/rel"
	expect_refused "a hard link to an outside file is refused" "link" --write "$WR/data/hard"
	expect_refused "a FIFO is refused" "is a FIFO; refused" --write "$WR/data/fifo"
	[ -z "$(ls "$WR/outside" | grep -v '^file$')" ] && ok "nothing appeared outside the roots" || not_ok "files appeared outside" "$(ls "$WR/outside")"
	expect_eq "the outside file is unchanged" "secret" "$(cat "$WR/outside/file")"
}

# A directory swapped for a symlink to an outside directory while launches
# run: each launch binds the directory it verified, or refuses; no write ever
# lands outside.
t_write_race() {
	write_setup
	mkdir -p "$WR/data/x"
	share_dir "$WR/data/x"
	( end=$((SECONDS + 8)); while [ $SECONDS -lt $end ]; do
		mv -T "$WR/data/x" "$WR/data/x.real" 2>/dev/null; ln -sfn "$WR/outside" "$WR/data/x"
		rm -f "$WR/data/x"; mv -T "$WR/data/x.real" "$WR/data/x" 2>/dev/null
	done ) &
	local swapper=$! i ran=0 refused=0
	for i in $(seq 1 40); do
		if "$OSB" run --policy "$WS/w.policy" --write "$WR/data/x" -- sh -c "echo $i > $WR/data/x/m$i" 2>/dev/null; then
			ran=$((ran + 1)); else refused=$((refused + 1)); fi
	done
	kill "$swapper" 2>/dev/null; wait "$swapper" 2>/dev/null
	if ls "$WR/outside" | grep -q '^m'; then not_ok "race: no write lands outside ($ran ran, $refused refused)" "$(ls "$WR/outside")"
	else ok "race: no write lands outside ($ran ran, $refused refused)"; fi
}

t_mount_beneath_write() {
	[ "$(id -u)" -eq 0 ] || return 0   # needs mount(2); the root runs cover it
	write_setup
	mkdir -p "$WR/data/x/m" "$WR/etc-copy"
	mount --bind "$WR/etc-copy" "$WR/data/x/m" || { not_ok "setup: bind mount"; return; }
	expect_refused "a write path with a mount beneath it is refused" "mount" --write "$WR/data/x"
	umount "$WR/data/x/m"
}

t_read_only_reprotect() {
	new_ws
	mkdir -p "$WS/.git/hooks"
	share_dir "$WS/.git" "$WS/.git/hooks"
	printf 'osb-policy 1\ninclude %s\nread-only workspace:.git/hooks\n' \
		"$OSB_ISOLATE_POLICY_DIR/strict.policy" > "$WS/ro.policy"
	expect_eq "read-only re-protects .git/hooks inside the writable workspace" \
		"touch: cannot touch '.git/hooks/post-checkout': Read-only file system" \
		"$("$OSB" run --policy "$WS/ro.policy" -- touch .git/hooks/post-checkout 2>&1)"
	expect_eq "the rest of the workspace stays writable" "ok" \
		"$("$OSB" run --policy "$WS/ro.policy" -- sh -c 'touch .gitignore && echo ok')"
	expect_eq "a hard link to a host file from the workspace fails (EXDEV)" \
		"ln: failed to create hard link 'h' => '/etc/hostname': Invalid cross-device link" \
		"$("$OSB" run -- ln /etc/hostname h 2>&1)"
}

# Files the host executes from a checkout stay read-only under strict,
# whether .git exists or not, and nothing is left behind when it did not.
t_git_hooks() {
	new_ws
	local out marker="$STAGE/work/hook-ran.$$"
	out=$("$OSB" run -- sh -c 'mkdir -p .git/hooks 2>&1; printf "#!/bin/sh\ntouch '"$marker"'\n" > .git/hooks/post-checkout 2>&1; echo "[core]" > .git/config 2>&1; echo rc=$?')
	case "$out" in *"rc=0"*) not_ok "no .git: the sandbox cannot write .git/config" "$out";;
		*) ok "no .git: the sandbox cannot plant a hook or a config";; esac
	[ ! -e "$WS/.git" ] && ok "no .git: nothing is left in the workspace" \
		|| not_ok "no .git: nothing is left in the workspace" "$(ls -laR "$WS/.git")"
	git -C "$WS" init -q 2>/dev/null && git -C "$WS" -c user.email=t@t -c user.name=t commit -q --allow-empty -m i
	out=$("$OSB" run -- sh -c 'printf "#!/bin/sh\ntouch '"$marker"'\n" > .git/hooks/post-checkout; chmod +x .git/hooks/post-checkout; git config core.fsmonitor "touch '"$marker"'"; echo done' 2>&1)
	git -C "$WS" checkout -q -b probe 2>/dev/null
	git -C "$WS" status >/dev/null 2>&1
	[ ! -e "$marker" ] && ok "with .git: a planted hook or config never runs on the host" \
		|| not_ok "with .git: a planted hook or config ran on the host" "$out"
	# All of .git is read-only: git reads the history, and cannot commit,
	# even where the sandbox's ids could write the repository.
	if root_caller; then chmod -R a+rwX "$WS/.git"; fi
	expect_eq "with .git: the sandbox reads the history and cannot commit" "i refused" \
		"$("$OSB" run -- sh -c 'git -c safe.directory="*" log --format=%s; git -c safe.directory="*" -c user.email=t@t -c user.name=t commit -q --allow-empty -m x >/dev/null 2>&1 && echo committed || echo refused' 2>&1 | tr '\n' ' ' | sed 's/ $//')"
	printf 'osb-policy 1\ninclude %s\nread-only workspace:.envrc\n' "$OSB_ISOLATE_POLICY_DIR/strict.policy" > "$WS/envrc.policy"
	expect_eq "a missing protected file cannot be created" "fail" \
		"$("$OSB" run --policy "$WS/envrc.policy" -- sh -c 'echo evil > .envrc 2>/dev/null && echo wrote || echo fail')"
	[ ! -e "$WS/.envrc" ] && ok "... and its placeholder is gone afterwards" || not_ok "... and its placeholder is gone afterwards"
	rm -f "$marker"
}

t_layout() {
	new_ws
	mkdir -p "$WS/secret" && echo s > "$WS/secret/f"
	printf 'osb-policy 1\ninclude %s\nhide %s\n' "$OSB_ISOLATE_POLICY_DIR/strict.policy" "$STAGE/bin" > "$WS/hide.policy"
	expect_eq "hide: an empty read-only directory covers the path" "0 fail" \
		"$("$OSB" run --policy "$WS/hide.policy" -- sh -c "ls -A $STAGE/bin | wc -l; touch $STAGE/bin/x 2>/dev/null && echo wrote || echo fail" | tr '\n' ' ' | sed 's/ $//')"
	printf 'osb-policy 1\ninclude %s\ntmpfs %s/secret\n' "$OSB_ISOLATE_POLICY_DIR/strict.policy" "$WS" > "$WS/cover.policy"
	local err rc
	err=$("$OSB" run --policy "$WS/cover.policy" -- true 2>&1); rc=$?
	expect_eq "a tmpfs that the workspace bind would silently cover is refused (125)" "125" "$rc"
	case "$err" in *"would be covered by the bind of $WS"*) ok "the refusal names both rules";; *) not_ok "the refusal names both rules" "$err";; esac
	printf 'osb-policy 1\ninclude %s\nhide %s\n' "$OSB_ISOLATE_POLICY_DIR/strict.policy" "$(dirname "$WS")" > "$WS/hidews.policy"
	err=$("$OSB" run --policy "$WS/hidews.policy" -- true 2>&1); rc=$?
	expect_eq "a hide over the workspace is refused, never a hidden grant (125)" "125" "$rc"
	# A hide in the workspace would have bwrap make its mount point in a
	# directory the sandbox can write (on the host) and follow a link planted
	# there: refused before anything is made, naming the rule.
	printf 'osb-policy 1\ninclude %s\nhide %s/nothere/deeper\n' "$OSB_ISOLATE_POLICY_DIR/strict.policy" "$WS" > "$WS/hidein.policy"
	err=$("$OSB" run --policy "$WS/hidein.policy" -- true 2>&1); rc=$?
	expect_eq "a hide in the workspace is refused (125)" "125" "$rc"
	case "$err" in *"$WS/hidein.policy:3: hide $WS/nothere/deeper lies in the workspace $WS"*) ok "... naming the hide and the workspace";;
		*) not_ok "... naming the hide and the workspace" "$err";; esac
	[ ! -e "$WS/nothere" ] && ok "... and no mount point was made on the host" || not_ok "... and no mount point was made on the host"
	ln -s "$STAGE" "$WS/planted"
	printf 'osb-policy 1\ninclude %s\nhide %s/planted/bin\n' "$OSB_ISOLATE_POLICY_DIR/strict.policy" "$WS" > "$WS/hidelink.policy"
	err=$("$OSB" run --policy "$WS/hidelink.policy" -- true 2>&1); rc=$?
	expect_eq "a hide through a link planted in the workspace is refused (125)" "125" "$rc"
	rm -f "$WS/planted"
}

# A launch that fails because of a rule names the rule's file:line, and the
# rule (bind sources, hide targets, write paths, the workspace's DEST).
t_rule_origins() {
	new_ws
	local err rc name rule i=0
	mkdir -p "$WS/root" && chmod 755 "$WS/root"
	ln -s /etc "$WS/root/link"
	while IFS='|' read -r name rule; do
		i=$((i + 1))
		printf 'osb-policy 1\ninclude %s\n%b\n' "$OSB_ISOLATE_POLICY_DIR/strict.policy" "$rule" >"$WS/o$i.policy"
		err=$("$OSB" run --policy "$WS/o$i.policy" -- true 2>&1); rc=$?
		case "$rc:$err" in
		"125:"*"$WS/o$i.policy:"*) ok "$name: 125, the message names the rule's origin";;
		*) not_ok "$name: 125, the message names the rule's origin" "exit $rc" "$err";;
		esac
	done <<EOF
a hide over a file|hide /etc/passwd
a write path that does not exist|write-root $WS/root\nwrite $WS/root/missing
a write path through a symlink|write-root $WS/root\nwrite $WS/root/link/x
a write-root that does not exist|write-root $WS/nonexist\nwrite $WS/nonexist/x
a bind of a kernel interface|ro-bind /proc/self
a workspace DEST in the read-only host view|workspace rw /etc/osb-nonexistent
a hide where the read-only view has no directory|hide /usr/osb-nonexistent
EOF
	[ ! -e /etc/osb-nonexistent ] && [ ! -e /usr/osb-nonexistent ] && ok "... and nothing was made on the host" ||
		not_ok "... and nothing was made on the host"
}

# Ordinary work keeps working under the filter and the guards.
t_benign() {
	new_ws
	expect_eq "benign: python3 runs" "3" "$("$OSB" run -- python3 -c 'print(1 + 2)')"
	printf '#include <stdio.h>\nint main(void) { puts("compiled"); return 0; }\n' > "$WS/hello.c"
	expect_eq "benign: a C compile and run" "compiled" "$("$OSB" run -- sh -c 'cc -o hello hello.c && ./hello')"
	expect_eq "benign: git init in the workspace" "ok" \
		"$("$OSB" run -- sh -c 'git init -q repo && git -C repo status --porcelain && echo ok')"
	expect_eq "benign: threads" "4" \
		"$("$OSB" run -- python3 -c 'import threading; r=[]; ts=[threading.Thread(target=r.append, args=(i,)) for i in range(4)]; [t.start() for t in ts]; [t.join() for t in ts]; print(len(r))')"
}

# ---- identity mode ------------------------------------------------------------

t_mode() {
	new_ws
	local want=userns
	root_mode && want=root
	expect_eq "the result names the identity mode" "$want" "$(json_field "$("$OSB" run --json -- true)" mode)"
}

# Root mode (issue: execd as root where user namespaces are blocked).
t_root_mode() {
	root_mode || return 0
	new_ws
	local out hid
	out=$("$OSB" run -- id)
	hid=$(printf '%s' "$out" | sed -n 's/^uid=\([0-9]*\)(sandbox).*/\1/p')
	expect_eq "root mode: id shows allocated host ids and no supplementary groups" \
		"uid=$hid(sandbox) gid=$hid(sandbox) groups=$hid(sandbox)" "$out"
	is_allocated_id "$hid" && ok "root mode: the uid is from the allocation range, no account" \
		|| not_ok "root mode: the uid is from the allocation range, no account" "$out"
	expect_eq "root mode: /tmp is usable by the sandbox uid" "ok" "$("$OSB" run -- sh -c 'touch /tmp/x && echo ok')"
	expect_eq "root mode: every capability set is empty, no_new_privs set" \
		"CapInh:0000000000000000 CapPrm:0000000000000000 CapEff:0000000000000000 CapBnd:0000000000000000 CapAmb:0000000000000000 NoNewPrivs:1" \
		"$("$OSB" run -- sh -c 'grep -E "^(Cap|NoNewPrivs)" /proc/self/status | tr -d "\t" | tr "\n" " "' | sed 's/ $//')"
	expect_eq "root mode: remounting a read-only bind read-write fails" "fail" \
		"$("$OSB" run -- sh -c 'mount -o remount,rw /usr 2>/dev/null && echo remounted || echo fail')"
	expect_eq "root mode: mknod fails" "fail" \
		"$("$OSB" run -- sh -c 'mknod ./blk b 8 0 2>/dev/null && echo made || echo fail')"
	expect_eq "root mode: /proc/sysrq-trigger is not writable" "fail" \
		"$("$OSB" run -- sh -c '(echo h > /proc/sysrq-trigger) 2>/dev/null && echo written || echo fail')"
	expect_eq "root mode: /sys is read-only" "fail" \
		"$("$OSB" run -- sh -c '(echo 1 > /sys/kernel/mm/ksm/run) 2>/dev/null && echo written || echo fail')"
	expect_eq "root mode: writing /proc/sys/kernel/core_pattern fails" "fail" \
		"$("$OSB" run -- sh -c '(echo x > /proc/sys/kernel/core_pattern) 2>/dev/null && echo written || echo fail')"
	"$OSB" run -- sh -c 'echo x > owned.txt'
	local owner; owner=$(stat -c %u "$WS/owned.txt")
	is_allocated_id "$owner" && ok "root mode: a workspace file is owned by an allocated host id ($owner)" \
		|| not_ok "root mode: a workspace file is owned by an allocated host id" "$(stat -c %u:%g "$WS/owned.txt")"
	setpriv --reuid=1000 --regid=1000 --clear-groups sleep 30 &
	local hp=$!
	expect_eq "root mode: a host process of the same uid is invisible" "0" \
		"$("$OSB" run -- sh -c 'ps -eo uid=,comm= 2>/dev/null | grep -c "sleep" || true')"
	kill "$hp" 2>/dev/null; wait "$hp" 2>/dev/null
	printf 'osb-policy 1\ninclude %s\nuser root 0 0\n' "$OSB_ISOLATE_POLICY_DIR/strict.policy" > "$WS/uid0.policy"
	local rc err
	err=$("$OSB" run --policy "$WS/uid0.policy" -- true 2>&1); rc=$?
	expect_eq "a policy with uid 0 is refused with 125" "125" "$rc"
	case "$err" in *"never runs as uid 0"*) ok "the refusal says why";; *) not_ok "the refusal says why" "$err";; esac
	local ro; ro=$(mktemp -d "$STAGE/work/rootws.XXXXXX"); chmod 755 "$ro"
	err=$(cd "$ro" && "$OSB" run -- true 2>&1); rc=$?
	expect_eq "root mode: a workspace the sandbox's host ids cannot write is refused (125)" "125" "$rc"
	case "$err" in *"is not writable by the sandbox's host ids "*"(allocated;"*) ok "the refusal names the host ids";; *) not_ok "the refusal names the host ids" "$err";; esac
}

# ---- where the time went -------------------------------------------------------
# Every result says how long each stage took (timings_us; osb-isolate(1),
# RESULT), measured on both sides of the boundary; --timings says it for a
# person. The numbers must be measured, not made up: a command that sleeps
# 300 ms shows at least that in "command", and the stages add up to no more
# than the whole run.
t_timings() {
	new_ws
	local out line
	out=$("$OSB" run --json -- sleep 0.3)
	line=$(printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
t = d["timings_us"]
names = ["setup", "bwrap", "init", "command", "teardown"]
known = all(isinstance(t[n], int) and t[n] >= 0 for n in names)
total = sum(t[n] for n in names) if known else -1
print("known" if known else "missing %r" % t,
      "slept" if known and t["command"] >= 300000 else "short",
      "within" if known and total <= d["duration_ms"] * 1000 + 1000 else "over %r %r" % (total, d["duration_ms"]))')
	expect_eq "timings_us: every stage of a run measured" "known slept within" "$line"
	out=$("$OSB" run --timings -- true 2>&1 >/dev/null)
	if [[ $out =~ ^osb-isolate:\ timings:\ setup\ [0-9]+\.[0-9]\ ms,\ bwrap\ [0-9]+\.[0-9]\ ms,\ init\ [0-9]+\.[0-9]\ ms,\ command\ [0-9]+\.[0-9]\ ms,\ teardown\ [0-9]+\.[0-9]\ ms\ \(total\ [0-9]+\ ms\)$ ]]; then
		ok "run --timings prints each stage for a person"
	else
		not_ok "run --timings prints each stage for a person" "$out"
	fi
	out=$("$OSB" run --timings --workspace / -- true 2>&1 >/dev/null | tail -n1)
	expect_eq "run --timings of a run refused before bwrap: no stage is known" \
		"osb-isolate: timings: setup -, bwrap -, init -, command -, teardown - (total 0 ms)" \
		"$(printf '%s' "$out" | sed 's/(total [0-9]* ms)/(total 0 ms)/')"
}

# ---- nothing outlives its caller ------------------------------------------------
# A caller killed with SIGKILL (no chance to clean up) takes its sandbox
# with it: bwrap --die-with-parent, and in root mode the init's watch of its
# report channel (the kernel refuses the parent-death signal of bwrap's
# capability-less monitor to an init that has switched host ids). Were the
# sandbox to outlive the caller, it would keep running as host ids whose
# lock died with the caller.
t_caller_killed() {
	new_ws
	local marker="29.$$$RANDOM" cli i
	"$OSB" run -- sleep "$marker" &
	cli=$!
	for ((i = 0; i < 100; i++)); do pgrep -x -f "sleep $marker" >/dev/null && break; sleep 0.05; done
	kill -9 "$cli"
	wait "$cli" 2>/dev/null
	for ((i = 0; i < 60; i++)); do pgrep -x -f "sleep $marker" >/dev/null || break; sleep 0.05; done
	if pgrep -x -f "sleep $marker" >/dev/null; then
		not_ok "kill -9 of the caller ends the sandbox's command" "$(pgrep -a -x -f "sleep $marker")"
		pkill -9 -x -f "sleep $marker"
	else
		ok "kill -9 of the caller ends the sandbox's command (within 3 s)"
	fi
}

echo "# integration suite as $WHO"
for t in t_pid_isolation t_identity_view t_private_tmp t_usr_readonly t_workspace_write \
	t_workspace_refused t_no_network t_env_secrets t_streams t_output_limit t_exit_codes \
	t_timeout t_background_killed t_bad_policy t_stdin t_fds t_seccomp_loaded t_seccomp_policy t_escape_suite t_escape_skip_path t_mode t_root_mode \
	t_write_paths t_write_race t_mount_beneath_write t_read_only_reprotect t_git_hooks t_layout t_rule_origins t_benign \
	t_timings t_caller_killed; do
	"$t"
done
echo "# as $WHO"
for n in "${failed_names[@]}"; do echo "# FAILED: $n"; done
finish_suite "$pass" "$fail"

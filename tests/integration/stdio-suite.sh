#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# stdio-suite.sh — the caller's terminal and the caller's output, end to end:
# `--stdin` relays through a pipe (the command never holds the caller's
# terminal, in `run`, `run --json` or a session, not even a process that
# outlives `session exec`), `--tty` gives the command a pseudo-terminal of
# its own and restores the caller's terminal on every exit, and errors on the
# caller's side reach the command the way they would on the host (a broken
# pipe ends `yes | head -1` with 141, /dev/full fails `echo`) or end
# osb-isolate with 125 and a message (a result it cannot write). Terminals
# are made with script(1). Run by stdio.sh with STAGE set (bin/, policy/ and
# a writable work/ owned by the running user).
set -uo pipefail

: "${STAGE:?}"
OSB="$STAGE/bin/osb-isolate"
export OSB
export OSB_ISOLATE_INIT="$STAGE/bin/osb-isolate-init"
export OSB_ISOLATE_POLICY_DIR="$STAGE/policy"
WHO="$(id -un) (uid $(id -u))"
TAG="io$$"

pass=0
fail=0
failed_names=()
started=()

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
expect_has() { # name needle haystack
	case "$3" in *"$2"*) ok "$1";; *) not_ok "$1" "missing: $(printf %q "$2")" "in:      $(printf %q "$3")";; esac
}
expect_lacks() { # name needle haystack
	case "$3" in *"$2"*) not_ok "$1" "unexpected: $(printf %q "$2")" "in:         $(printf %q "$3")";; *) ok "$1";; esac
}
new_ws() {
	WS=$(mktemp -d "$STAGE/work/ws.XXXXXX")
	chmod 755 "$WS"
	# A root caller's sandbox runs as host ids allocated for it: sticky, like /tmp.
	if [ "$(id -u)" -eq 0 ]; then chmod 1777 "$WS"; fi
	cd "$WS" || exit 99
}
start_session() { # name: start in the current directory, remember for cleanup
	started+=("$1")
	"$OSB" session start --name "$1" >/dev/null
}
# Run the bash script FILE on a fresh terminal made by script(1) and print
# what appeared on that terminal (carriage returns removed). Its input is
# what the shell command FEED prints (default: nothing), then nothing until
# FILE has ended: no EOF reaches the terminal early (script(1) ends only
# once its input has). The caller's own terminal is never touched.
on_pty() { # file [feed]
	local done="$WS/.pty-done"
	rm -f "$done"
	script -q -e -c "bash $1; rc=\$?; touch $done; exit \$rc" /dev/null \
		< <(eval "${2:-true}"; while [ ! -e "$done" ]; do sleep 0.1; done) 2>&1 | tr -d '\r'
}
now_ms() { date +%s%3N; }

# ---- --stdin: a pipe, never the terminal ------------------------------------

t_run_stdin_not_terminal() {
	new_ws
	cat >inner.sh <<'EOF'
"$OSB" run --stdin -- sh -c '
	if [ -t 0 ]; then echo "stdin=terminal"; else echo "stdin=pipe"; fi
	echo "WROTE-TO-""STDIN" >&0 2>/dev/null || echo "write-to-stdin=refused"
	stty raw <&0 2>/dev/null && echo "tcsetattr=done" || echo "tcsetattr=refused"
	exit 0'
echo "rc=$?"
EOF
	local out; out=$(on_pty inner.sh)
	expect_has "run --stdin on a terminal: the command's stdin is not a terminal" "stdin=pipe" "$out"
	expect_has "... it cannot write to its stdin" "write-to-stdin=refused" "$out"
	expect_lacks "... nothing it writes there reaches the terminal" "WROTE-TO-STDIN" "$out"
	expect_has "... tcsetattr on its stdin fails" "tcsetattr=refused" "$out"
	expect_has "... and the run succeeds" "rc=0" "$out"
}

t_run_stdin_data() {
	new_ws
	expect_eq "run --stdin relays the data" "2" "$(printf 'l1\nl2\n' | "$OSB" run --stdin -- wc -l)"
	head -c 3000000 /dev/urandom >big
	expect_eq "run --stdin relays 3 MB intact" "$(sha256sum <big)" "$("$OSB" run --stdin -- sha256sum <big)"
	local t0 rc; t0=$(now_ms)
	timeout 20 "$OSB" run --stdin -- true </dev/zero; rc=$?
	expect_eq "run --stdin: a command that does not read ends the run" "0" "$rc"
	[ $(($(now_ms) - t0)) -lt 5000 ] && ok "... promptly" || not_ok "... promptly" "took $(($(now_ms) - t0)) ms"
	expect_eq "run --stdin: a command that stops reading ends normally" "y 0" \
		"$(yes | timeout 20 "$OSB" run --stdin -- head -1 | tr '\n' ' '; echo "${PIPESTATUS[1]}")"
	expect_eq "without --stdin the command reads EOF" "" "$(echo data | "$OSB" run -- cat)"
}

t_run_stdin_json() {
	new_ws
	cat >inner.sh <<'EOF'
"$OSB" run --stdin --json -- sh -c '
	echo "WROTE-TO-""STDIN" >&0 2>/dev/null
	stty raw <&0 2>/dev/null && echo "tcsetattr=done"
	echo "on-stdout"'
EOF
	local out parsed
	out=$(on_pty inner.sh)
	parsed=$(printf '%s' "$out" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["exit_code"], json.dumps(r["stdout"]))' 2>&1)
	expect_eq "run --stdin --json on a terminal: the terminal shows exactly one JSON object" \
		'0 "on-stdout\n"' "$parsed"
	expect_lacks "... the command's write to its stdin is nowhere" "WROTE-TO-STDIN" "$out"
}

t_session_stdin_nothing_kept() {
	new_ws
	local id="$TAG-in" out state
	start_session "$id"
	# A process that leaves the command's session (setsid -f keeps fd 0) and
	# outlives `session exec`: a second later it tries the terminal it was
	# given, and reads what the user types next.
	cat >inner.sh <<EOF
"\$OSB" session exec $id --stdin -- sh -c '
	setsid -f sh -c "sleep 1
		if [ -t 0 ]; then echo terminal; else echo not-terminal; fi >bg.txt
		echo LATE-""WRITE >&0 2>/dev/null && echo write=done >>bg.txt
		line=\\\$(timeout 3 head -n 1 <&0 2>/dev/null)
		echo \"read=\\\$line\" >>bg.txt" >/dev/null 2>&1
	sleep 0.5
	echo started'
echo "rc=\$?"
sleep 4
EOF
	out=$(on_pty inner.sh "sleep 2; printf 'typed-secret\n'")
	expect_has "session exec --stdin returns" "rc=0" "$out"
	expect_lacks "a process left behind cannot write to the terminal after exec returned" "LATE-WRITE" "$out"
	state=$(cat bg.txt 2>/dev/null | tr '\n' ' ')
	expect_eq "... holds no terminal, cannot write to stdin, reads no typed input" "not-terminal read= " "$state"
	"$OSB" session stop "$id"
}

t_session_stdin_data() {
	new_ws
	local id="$TAG-sd"
	start_session "$id"
	expect_eq "session exec --stdin relays the data" "2" \
		"$(printf 'l1\nl2\n' | "$OSB" session exec "$id" --stdin -- wc -l)"
	head -c 3000000 /dev/urandom >big
	expect_eq "session exec --stdin relays 3 MB intact" "$(sha256sum <big)" \
		"$("$OSB" session exec "$id" --stdin -- sha256sum <big)"
	expect_eq "session exec --stdin: a command that does not read ends" "0" \
		"$(timeout 20 "$OSB" session exec "$id" --stdin -- true </dev/zero; echo $?)"
	"$OSB" session stop "$id"
}

# ---- --tty: a terminal of the command's own -----------------------------------

t_tty_run() {
	new_ws
	cat >inner.sh <<'EOF'
stty rows 33 cols 101
before=$(stty -g)
"$OSB" run --tty -- sh -c '[ -t 0 ] && [ -t 1 ] && [ -t 2 ] && echo "all=terminal"; stty size; tty'
echo "rc=$?"
[ "$(stty -g)" = "$before" ] && echo "restored=yes" || echo "restored=no"
"$OSB" run --tty --timeout 1s -- sleep 10
echo "timeout-rc=$?"
[ "$(stty -g)" = "$before" ] && echo "restored-after-timeout=yes" || echo "restored-after-timeout=no"
exec 3<&0
( exec 0<&3; exec "$OSB" run --tty -- sleep 20 ) &
pid=$!
sleep 2
kill -TERM "$pid"
wait "$pid"
echo "term-rc=$?"
[ "$(stty -g)" = "$before" ] && echo "restored-after-kill=yes" || echo "restored-after-kill=no"
EOF
	local out; out=$(on_pty inner.sh)
	expect_has "run --tty: stdin, stdout and stderr are a terminal" "all=terminal" "$out"
	expect_has "... with the caller's window size" "33 101" "$out"
	expect_lacks "... which is not the caller's terminal" "not a tty" "$out"
	expect_has "... the run succeeds" "rc=0" "$out"
	expect_has "... the caller's terminal mode is restored" "restored=yes" "$out"
	expect_has "run --tty --timeout 1s: 124" "timeout-rc=124" "$out"
	expect_has "... the terminal mode is restored" "restored-after-timeout=yes" "$out"
	expect_has "run --tty killed by SIGTERM: 143" "term-rc=143" "$out"
	expect_has "... the terminal mode is restored" "restored-after-kill=yes" "$out"
}

t_tty_winch() {
	new_ws
	cat >inner.sh <<'EOF'
stty rows 20 cols 70
exec 3<&0
( exec 0<&3; exec "$OSB" run --tty -- sh -c '
	trap "echo size=\$(stty size)" WINCH
	echo "start=$(stty size)"
	for i in 1 2 3 4 5 6 7 8; do sleep 0.5; done' ) &
pid=$!
sleep 2
stty rows 41 cols 91
wait "$pid"
echo "rc=$?"
EOF
	local out; out=$(on_pty inner.sh)
	expect_has "run --tty: the window size at start" "start=20 70" "$out"
	expect_has "... and a change of it reaches the command (SIGWINCH)" "size=41 91" "$out"
	expect_has "... the run succeeds" "rc=0" "$out"
}

t_tty_interrupt() {
	new_ws
	cat >inner.sh <<'EOF'
"$OSB" run --tty -- sh -c 'trap "echo got-sigint; exit 7" INT; echo ready; sleep 30 & wait'
echo "rc=$?"
EOF
	local out t0; t0=$(now_ms)
	out=$(on_pty inner.sh "sleep 3; printf '\003'")
	expect_has "run --tty: ^C typed reaches the command as SIGINT" "got-sigint" "$out"
	expect_has "... which decides the status" "rc=7" "$out"
	[ $(($(now_ms) - t0)) -lt 12000 ] && ok "... promptly" || not_ok "... promptly" "took $(($(now_ms) - t0)) ms"
}

t_tty_usage() {
	new_ws
	local out rc
	out=$("$OSB" run --tty --json -- true 2>&1); rc=$?
	expect_eq "run --tty --json is refused with 125" "125" "$rc"
	expect_has "... and says why" "--tty cannot be combined with --json" "$out"
	out=$("$OSB" run --tty --result-fd 3 -- true 2>&1 3>/dev/null); rc=$?
	expect_eq "run --tty --result-fd is refused with 125" "125" "$rc"
	out=$("$OSB" run --tty -- sh -c '[ -t 0 ] && [ -t 1 ] && echo yes' </dev/null | tr -d '\r')
	expect_eq "run --tty without a terminal still gives the command one" "yes" "$out"
	out=$(printf 'abc\n' | "$OSB" run --tty -- head -n 1 | tr -d '\r' | tail -n 1)
	expect_eq "... and relays the input" "abc" "$out"
}

t_tty_session() {
	new_ws
	local id="$TAG-tty" out
	start_session "$id"
	cat >inner.sh <<EOF
before=\$(stty -g)
"\$OSB" session exec $id --tty -- sh -c '
	[ -t 0 ] && [ -t 1 ] && [ -t 2 ] && echo all=terminal
	setsid -f sh -c "sleep 2; echo LATE-""WRITE"; sleep 0.5; echo started'
echo "rc=\$?"
[ "\$(stty -g)" = "\$before" ] && echo "restored=yes" || echo "restored=no"
sleep 4
EOF
	out=$(on_pty inner.sh)
	expect_has "session exec --tty: stdin, stdout and stderr are a terminal" "all=terminal" "$out"
	expect_has "... the exec succeeds" "rc=0" "$out"
	expect_has "... the caller's terminal mode is restored" "restored=yes" "$out"
	expect_lacks "... the terminal died with the command: a process left behind writes nowhere" \
		"LATE-WRITE" "$out"
	out=$("$OSB" session exec "$id" --tty --json -- true 2>&1); rc=$?
	expect_eq "session exec --tty --json is refused with 125" "125 osb-isolate: session: exec: --tty cannot be combined with --json (the command's output goes to the terminal, not into the result)" "$rc $out"
	"$OSB" session stop "$id"
}

# ---- errors on the caller's side ------------------------------------------------

t_broken_pipe() {
	new_ws
	local id="$TAG-bp" out t0
	t0=$(now_ms)
	out=$(timeout 30 bash -c '"$OSB" run -- yes | head -n 1; echo "status=${PIPESTATUS[0]}"')
	expect_eq "run -- yes | head -1: ends with 141 (SIGPIPE), as on the host" "y status=141" "$(echo $out)"
	[ $(($(now_ms) - t0)) -lt 5000 ] && ok "... within seconds" || not_ok "... within seconds" "took $(($(now_ms) - t0)) ms"
	out=$(timeout 30 bash -c '"$OSB" run -- sh -c "yes >&2" 2>&1 >/dev/null | head -n 1; echo "status=${PIPESTATUS[0]}"')
	expect_eq "a broken pipe on stderr: 141 too" "y status=141" "$(echo $out)"
	out=$(timeout 30 bash -c '"$OSB" run --result-fd 3 -- yes 3>/dev/null | head -n 1; echo "status=${PIPESTATUS[0]}"')
	expect_eq "run --result-fd (streaming and capturing) -- yes | head -1: 141" "y status=141" "$(echo $out)"
	start_session "$id"
	t0=$(now_ms)
	out=$(timeout 30 bash -c '"$OSB" session exec "$1" -- yes | head -n 1; echo "status=${PIPESTATUS[0]}"' _ "$id")
	expect_eq "session exec -- yes | head -1: 141" "y status=141" "$(echo $out)"
	[ $(($(now_ms) - t0)) -lt 5000 ] && ok "... within seconds" || not_ok "... within seconds" "took $(($(now_ms) - t0)) ms"
	"$OSB" session stop "$id"
}

t_dev_full() {
	new_ws
	local id="$TAG-full" out rc
	out=$("$OSB" run -- /bin/echo hi 2>&1 >/dev/full); rc=$?
	expect_eq "run -- echo >/dev/full: echo fails with 1, as on the host" "1" "$rc"
	expect_has "... and says why" "No space left on device" "$out"
	start_session "$id"
	out=$("$OSB" session exec "$id" -- /bin/echo hi 2>&1 >/dev/full); rc=$?
	expect_eq "session exec -- echo >/dev/full: 1" "1" "$rc"
	expect_has "... and says why" "No space left on device" "$out"
	out=$("$OSB" session exec "$id" --json -- true 2>&1 >/dev/full); rc=$?
	expect_eq "session exec --json >/dev/full: 125" "125" "$rc"
	expect_has "... with a message" "cannot write the result" "$out"
	expect_eq "run -- true >/dev/null still succeeds" "0" "$("$OSB" run -- true >/dev/null; echo $?)"
	"$OSB" session stop "$id"
}

t_result_unwritable() {
	new_ws
	local out rc
	out=$("$OSB" run --json -- true 2>&1 >/dev/full); rc=$?
	expect_eq "run --json >/dev/full: 125" "125" "$rc"
	expect_eq "... with a message" "osb-isolate: cannot write the result to standard output: No space left on device" "$out"
	out=$("$OSB" run --result-fd 3 -- true 2>&1 3>/dev/full); rc=$?
	expect_eq "run --result-fd 3 3>/dev/full: 125" "125" "$rc"
	expect_eq "... with a message" "osb-isolate: cannot write the result to fd 3: No space left on device" "$out"
	out=$("$OSB" run --result-fd 99 -- touch ran 2>&1); rc=$?
	expect_eq "run --result-fd 99 (not open): 125" "125" "$rc"
	expect_has "... with a message" "--result-fd 99: Bad file descriptor" "$out"
	[ ! -e ran ] && ok "... before the command runs" || not_ok "... before the command runs"
	out=$("$OSB" run --result-fd 3 -- true 2>&1 3</dev/null); rc=$?
	expect_eq "run --result-fd 3 open read-only: 125" "125" "$rc"
	expect_has "... with a message" "--result-fd 3 is not open for writing" "$out"
}

# A file system that is full (root only: it mounts a small tmpfs).
t_full_disk() {
	new_ws
	local mnt out rc id="$TAG-fd"
	if [ "$(id -u)" -ne 0 ]; then
		echo "ok - SKIP full file system: mounting one needs root"
		return
	fi
	mnt=$(mktemp -d "$STAGE/work/full.XXXXXX")
	if ! mount -t tmpfs -o size=64k tmpfs "$mnt"; then
		echo "ok - SKIP full file system: cannot mount a tmpfs here"
		return
	fi
	head -c 1M /dev/zero >"$mnt/fill" 2>/dev/null
	out=$("$OSB" run -- seq 1 100000 2>&1 >"$mnt/out"); rc=$?
	expect_eq "run streaming to a full file system: 125" "125" "$rc"
	expect_has "... with a message naming the stream and the error" \
		"output: writing the command's stdout failed: No space left on device" "$out"
	start_session "$id"
	out=$("$OSB" session exec "$id" -- seq 1 100000 2>&1 >"$mnt/out2"); rc=$?
	expect_eq "session exec streaming to a full file system: 125" "125" "$rc"
	expect_has "... with the same message" \
		"output: writing the command's stdout failed: No space left on device" "$out"
	out=$("$OSB" run --json -- true 2>&1 >"$mnt/result"); rc=$?
	expect_eq "run --json to a full file system: 125" "125" "$rc"
	"$OSB" session stop "$id"
	umount "$mnt"
	rmdir "$mnt"
}

echo "# stdio suite as $WHO"
for t in t_run_stdin_not_terminal t_run_stdin_data t_run_stdin_json t_session_stdin_nothing_kept \
	t_session_stdin_data t_tty_run t_tty_winch t_tty_interrupt t_tty_usage t_tty_session t_broken_pipe \
	t_dev_full t_result_unwritable t_full_disk; do
	"$t"
done
for s in "${started[@]}"; do "$OSB" session stop "$s" >/dev/null 2>&1; done
echo "# as $WHO"
for n in "${failed_names[@]}"; do echo "# FAILED: $n"; done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

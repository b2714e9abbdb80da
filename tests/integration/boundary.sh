#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# boundary.sh — untrusted code never gains host privileges, tested as a whole
# for its effect on the host (osb-isolate(1), "Identity on the host").
#
# The matrix {root caller, unprivileged caller} x {identity auto, userns,
# root} x {strict, balanced} x {run, session} runs tests/escape/hostattack in
# a sandbox that also receives loader variables (LD_PRELOAD, LD_AUDIT,
# LD_LIBRARY_PATH, GCONV_PATH) three ways: set by the policy, by an execd
# request, and inherited from the caller. Each row checks, from the host:
#   - no file under /proc/sys opened for writing, the host's sensitive sysctls
#     unchanged (the attack writes back the values it read, so even a broken
#     build changes nothing on the machine running this);
#   - no file in the workspace has a set-user-ID or set-group-ID bit or a
#     file capability: every way to make one (chmod, fchmod, fchmodat, a
#     creating open, openat or creat, O_TMPFILE, mknod, mknodat, chmod(1),
#     install -m, Python's os.open, cp -p of a setuid program) was refused
#     with EPERM, openat2 and fchmodat2 with ENOSYS (the seccomp filter,
#     osb-isolate(1) "Identity on the host": such a file would run with the
#     sandbox's host ids for any user of the host); the files it did write
#     belong to the sandbox's host ids (root callers: allocated ids no
#     account uses; unprivileged: the caller), never host uid 0;
#   - a root-owned 0600 file and a 0600 file of an existing account are
#     unreadable;
#   - the sandbox's ids inside, and its host ids (the result's host_ids, and
#     /proc/PID/status of its processes read from the host);
#   - the masked and read-only /proc entries;
#   - the loader variables reached neither bwrap (its environment read from
#     /proc on the host while it runs) nor the init, and the marker library
#     was loaded by no host-side process: only by the command itself.
# Then: two concurrent root sandboxes get different host ids; a 0700 session
# workspace owned by pinned ids works in root mode; "limit nproc" stops a
# fork bomb for every caller; pinned ids are refused for unprivileged
# callers. A row this host cannot run (no user namespaces) is printed as
# skipped with the reason.
set -uo pipefail
. "$OSB_SRCDIR/tests/integration/lib.sh"

test_need root probe_root   # it plays both callers and makes root-owned fixtures
for p in tests/escape/hostattack tests/integration/reqrun tests/escape/.libs/osbmarker.so; do
	[ -e "$OSB_BUILDDIR/$p" ] || die "$OSB_BUILDDIR/$p is missing: build first (make check builds it)"
done
ensure_test_user
T=$(stage_artifacts)
trap 'rm -rf "$T"' EXIT
cp "$OSB_BUILDDIR/tests/escape/hostattack" "$OSB_BUILDDIR/tests/integration/reqrun" "$T/bin/"
cp "$OSB_BUILDDIR/tests/escape/.libs/osbmarker.so" "$T/bin/marker.so"
cp "$OSB_BUILDDIR/tests/integration/nouserns" "$T/bin/" 2>/dev/null || true
# The same plants by the tools a build or an installer would use.
cat > "$T/bin/shplant.sh" <<'EOF'
for m in 4755 2755 6755; do
	cp /bin/true "sh$m"
	echo "shplant chmod-$m $(chmod "$m" "sh$m" 2>&1)"
done
echo "shplant install-4755 $(install -m 4755 /bin/true inst 2>&1)"
echo "shplant python-open-4755 $(python3 -c 'import os; os.open("py", os.O_CREAT | os.O_WRONLY, 0o4755)' 2>&1 | tail -n 1)"
echo "shplant cp-p-setuid $(cp -p /usr/bin/passwd cpp 2>&1 | tr '\n' ' ')"
EOF
mkdir -p "$T/secret" "$T/pol" "$T/out"
chmod 1777 "$T/out"
printf 'ROOT-SECRET\n' > "$T/secret/root0600"
chmod 600 "$T/secret/root0600"
ACCT=daemon
printf 'ACCOUNT-SECRET\n' > "$T/secret/acct0600"
chown "$ACCT:" "$T/secret/acct0600"
chmod 600 "$T/secret/acct0600"
chmod -R a+rX "$T/bin" "$T/policy" "$T/pol"
chmod 755 "$T/secret"
TEST_UID=$(id -u "$TEST_USER")
HOSTID_BASE=1879048192
HOSTID_END=$((HOSTID_BASE + 65535))
BASE_ENV=(PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 HOME=/nonexistent
	OSB_ISOLATE_INIT="$T/bin/osb-isolate-init" OSB_ISOLATE_POLICY_DIR="$T/policy")

pass=0 fail=0
failed=()
ok() { pass=$((pass + 1)); echo "ok - $1"; }
not_ok() {
	fail=$((fail + 1)); failed+=("$1")
	echo "not ok - $1"; shift
	for l in "$@"; do echo "#   $l"; done
}
expect_eq() { if [ "$2" == "$3" ]; then ok "$1"; else not_ok "$1" "expected: $(printf %q "$2")" "actual:   $(printf %q "$3")"; fi; }

as_caller() { # CALLER CMD...: run as root or as the test user, fixed environment
	local who=$1; shift
	if [ "$who" = root ]; then env -i "${BASE_ENV[@]}" "${EXTRA_ENV[@]}" "$@"
	else setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups -- \
		env -i "${BASE_ENV[@]}" "${EXTRA_ENV[@]}" "$@"; fi
}
EXTRA_ENV=()

# The host's sensitive sysctls, read as root before and after every row.
SYSCTLS="kernel/core_pattern kernel/printk_ratelimit_burst kernel/dmesg_restrict
	fs/protected_symlinks fs/protected_hardlinks fs/protected_regular fs/protected_fifos
	kernel/kptr_restrict kernel/yama/ptrace_scope dev/tty/legacy_tiocsti kernel/modules_disabled
	kernel/unprivileged_bpf_disabled vm/mmap_min_addr user/max_user_namespaces"
sysctl_snapshot() {
	local s
	for s in $SYSCTLS; do [ -r "/proc/sys/$s" ] && printf '%s=%s\n' "$s" "$(cat "/proc/sys/$s")"; done
}
SYSCTL_BEFORE=$(sysctl_snapshot)

# The user-namespace question as the sandbox's bwrap would ask it: root
# callers' bwrap runs as an unprivileged id of the allocation range.
userns_ok() { # CALLER
	WHY="the sandbox's bwrap cannot create a user namespace here (unshare -U fails as an unprivileged id)"
	if [ "$1" = root ]; then setpriv --reuid=$HOSTID_BASE --regid=$HOSTID_BASE --clear-groups unshare -U true 2>/dev/null
	else setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups unshare -U true 2>/dev/null; fi
}

json() { # JSON PYEXPR (d is the object)
	printf '%s' "$1" | python3 -c 'import json,sys; d=json.loads(sys.stdin.read().splitlines()[0]); print(eval(sys.argv[1]))' "$2" 2>/dev/null
}

# Environments of the host-side bwrap and of the init of the sandbox whose
# workspace is WS, read from /proc while it runs (the command sleeps).
capture_env() { # WS OUTFILE
	local ws=$1 out=$2 i pid
	: > "$out"
	for i in $(seq 1 40); do
		for pid in $(pgrep -f -- "$ws" 2>/dev/null); do
			case "$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null)" in
				*bwrap*|*--error-fd*)
					printf 'pid %s %s\n' "$pid" "$(tr '\0' ' ' < "/proc/$pid/cmdline" | cut -c1-60)" >> "$out"
					tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | sed 's/^/  /' >> "$out";;
			esac
		done
		grep -q -- '--error-fd' "$out" && return 0
		: > "$out"
		sleep 0.1
	done
}

LOADER_VARS="LD_PRELOAD LD_AUDIT LD_LIBRARY_PATH GCONV_PATH OSB_MARKER_LOG"

check_env_capture() { # LABEL FILE
	local label=$1 f=$2 v bad=
	if ! grep -q -- '--error-fd' "$f"; then not_ok "$label: bwrap and the init were seen running" "$(cat "$f")"; return; fi
	for v in $LOADER_VARS; do grep -q "^  $v=" "$f" && bad="$bad $v"; done
	if [ -z "$bad" ]; then ok "$label: no loader variable in the environment of bwrap or the init"
	else not_ok "$label: loader variables reached bwrap or the init:$bad" "$(cat "$f")"; fi
}

check_marker() { # LABEL LOG ALLOWED-HOST-EXE-REGEX
	local label=$1 log=$2 allow=$3 bad
	[ -f "$log" ] || { ok "$label: the marker library was loaded nowhere"; return; }
	bad=$(grep -E 'exe=[^ ]*(bwrap|osb-isolate-init)( |$)' "$log")
	if [ -n "$allow" ]; then bad=$(printf '%s\n' "$bad" | grep -vE "$allow" | grep -v '^$'); fi
	if [ -z "$bad" ]; then ok "$label: the marker library loaded only in the command ($(wc -l < "$log") loads)"
	else not_ok "$label: the marker library loaded in bwrap or the init" "$bad"; fi
}

# Host ids of a result: root callers get allocated ids no account uses,
# unprivileged callers are themselves.
check_host_ids() { # LABEL CALLER JSON
	local label=$1 who=$2 j=$3 uid gid kind
	uid=$(json "$j" "d['host_ids']['uid']"); gid=$(json "$j" "d['host_ids']['gid']")
	kind=$(json "$j" "d['host_ids']['kind']")
	if [ "$who" = root ]; then
		if [ -n "$uid" ] && [ "$uid" -ge $HOSTID_BASE ] && [ "$uid" -le $HOSTID_END ] && [ "$kind" = allocated ] &&
			! getent passwd "$uid" >/dev/null && ! getent group "$gid" >/dev/null; then
			ok "$label: host ids $uid:$gid allocated, no account"
		else not_ok "$label: host ids allocated from the range, no account" "uid=$uid gid=$gid kind=$kind"; fi
	else
		expect_eq "$label: host ids are the caller's" "$TEST_UID caller" "$uid $kind"
	fi
	HOST_UID=$uid
}

check_attack() { # LABEL CALLER MODE OUTPUT WS
	local label=$1 who=$2 mode=$3 out=$4 ws=$5 f owner
	case "$out" in *"sysctl writable 0 of "*) ok "$label: no /proc/sys file opens for writing";;
		*) not_ok "$label: no /proc/sys file opens for writing" "$(printf '%s\n' "$out" | grep ^sysctl)";; esac
	expect_eq "$label: the host's sensitive sysctls are unchanged" "$SYSCTL_BEFORE" "$(sysctl_snapshot)"
	expect_eq "$label: a root-owned 0600 file is unreadable" "read $T/secret/root0600 errno=13" \
		"$(printf '%s\n' "$out" | grep "^read $T/secret/root0600")"
	expect_eq "$label: another account's 0600 file is unreadable" "read $T/secret/acct0600 errno=13" \
		"$(printf '%s\n' "$out" | grep "^read $T/secret/acct0600")"
	# Every way to set the bits is refused: EPERM, or ENOSYS where the
	# filter cannot read the mode (openat2); fchmodat2 says EPERM, or ENOSYS
	# where libseccomp or the kernel lacks it (the filter's default, then
	# glibc falls back to fchmodat); mkdir keeps no such bit of its mode.
	local way want got bad=
	for way in chmod-4755 chmod-2755 chmod-6755 fchmod-4755 fchmodat-6755 fchmodat2-4755 \
		open-creat-4755 openat-creat-2755 creat-6755 openat2-creat-4755 tmpfile-4755 mknod-4755 \
		mknodat-2755 mkdir-2755 chmod-dir-2755 setxattr-capability; do
		case $way in
			openat2-*) want="Function not implemented";;
			mkdir-*) want=ok;;
			*) want="Operation not permitted";;
		esac
		got=$(printf '%s\n' "$out" | sed -n "s/^plant $way //p")
		case "$way:$got" in fchmodat2-*:"Function not implemented") got=$want;; esac
		[ "$got" = "$want" ] || bad="$bad $way:${got:-unreported}"
	done
	[ -z "$bad" ] && ok "$label: every way to set a set-user-ID or set-group-ID bit or a file capability is refused" \
		|| not_ok "$label: every way to set a set-user-ID or set-group-ID bit or a file capability is refused" "$bad"
	bad=
	for way in chmod-4755 chmod-2755 chmod-6755 install-4755 python-open-4755; do
		case "$(printf '%s\n' "$out" | grep "^shplant $way ")" in *"Operation not permitted"*) ;;
			*) bad="$bad $way:$(printf '%s\n' "$out" | grep "^shplant $way " | tr '\n' ' ')";; esac
	done
	[ -z "$bad" ] && ok "$label: chmod(1), install -m 4755 and os.open(O_CREAT, 0o4755) say EPERM" \
		|| not_ok "$label: chmod(1), install -m 4755 and os.open(O_CREAT, 0o4755) say EPERM" "$bad"
	expect_eq "$label: no set-user-ID or set-group-ID file in the workspace (find -perm /6000)" "" \
		"$(find "$ws" -perm /6000 -printf '%M %u:%g %p\n' 2>&1)"
	expect_eq "$label: no file capability in the workspace (getcap -r)" "" "$(getcap -r "$ws" 2>&1)"
	f="$ws/suid"
	owner=$(stat -c %u:%g "$f" 2>/dev/null)
	if [ -z "$owner" ]; then not_ok "$label: the plant ran" "$(printf '%s\n' "$out" | grep ^plant)"
	elif [ "${owner%%:*}" = 0 ] || [ "${owner##*:}" = 0 ]; then not_ok "$label: a written ${f##*/} is not owned by host root" "$(stat -c '%A %u:%g' "$f")"
	elif [ "${owner%%:*}" != "$HOST_UID" ]; then not_ok "$label: a written ${f##*/} belongs to the sandbox's host ids" "$(stat -c '%A %u:%g' "$f") (sandbox $HOST_UID)"
	else ok "$label: a written ${f##*/} belongs to the sandbox's host ids ($(stat -c '%A %u:%g' "$f"))"; fi
	local want_uid=1000
	[ "$mode" = root ] && want_uid=$HOST_UID
	expect_eq "$label: ids inside (real, effective, saved, fs)" "uids $want_uid $want_uid $want_uid $want_uid" \
		"$(printf '%s\n' "$out" | grep '^uids ')"
	local g; g=$(printf '%s\n' "$out" | grep '^groups' | tr ' ' '\n' | grep -xv -e groups -e 65534 -e "$want_uid")
	[ -z "$g" ] && ok "$label: no supplementary group but its own (and unmapped ones)" \
		|| not_ok "$label: no supplementary group but its own" "$(printf '%s\n' "$out" | grep '^groups')"
	local p bad=
	for p in /proc/sys /proc/sysrq-trigger /proc/irq /proc/bus /proc/fs /proc/kcore /proc/keys \
		/proc/timer_list /proc/sched_debug /proc/latency_stats /proc/acpi /proc/scsi; do
		case "$(printf '%s\n' "$out" | grep "^$p ")" in
			"$p writable") bad="$bad $p:writable";;
			"$p readable") case $p in /proc/sys|/proc/irq|/proc/bus|/proc/fs) ;; *) bad="$bad $p:readable";; esac;;
			"") bad="$bad $p:unreported";;
		esac
	done
	[ -z "$bad" ] && ok "$label: /proc entries read-only or masked" || not_ok "$label: /proc entries read-only or masked" "$bad"
	# The init (a session's broker) runs as the command's uid: only its not
	# being dumpable keeps its memory, and with it the report channel to
	# the launcher, from the command.
	expect_eq "$label: pid 1's memory, environment and fds are closed to the command" \
		"pid1 mem errno=13 pid1 environ errno=13 pid1 fd errno=13" \
		"$(printf '%s\n' "$out" | grep '^pid1 ' | tr '\n' ' ' | sed 's/ $//')"
}

ATTACK='./hostattack sysctl; ./hostattack plant suid; sh ./shplant.sh; ./hostattack read SECRETS; ./hostattack ids; ./hostattack procmask; ./hostattack pid1; sleep 1'

row() { # CALLER IDENTITY POLICY MODE
	local who=$1 ident=$2 pol=$3 mode=$4 label ws polfile plainpol out rc j attack
	label="$who/$ident/$pol/$mode"
	ws=$(mktemp -d "$T/work/ws.XXXXXX")
	if [ "$who" = root ]; then chmod 1777 "$ws"; else chown "$TEST_USER:" "$ws"; chmod 755 "$ws"; fi
	cp "$T/bin/hostattack" "$T/bin/marker.so" "$T/bin/shplant.sh" "$ws/"
	chmod a+rx "$ws/hostattack" "$ws/marker.so" "$ws/shplant.sh"
	polfile="$T/pol/$who-$ident-$pol.policy"
	plainpol="$T/pol/$who-$ident-$pol-plain.policy"
	# The secrets are bound into the view on purpose: only the file
	# permissions may keep them from the sandbox.
	printf 'osb-policy 1\ninclude %s\nidentity %s\nro-bind %s\n' "$T/policy/$pol.policy" "$ident" \
		"$T/secret" > "$plainpol"
	{ cat "$plainpol"
	  printf 'env set LD_PRELOAD=${WORKSPACE}/marker.so\nenv set LD_AUDIT=${WORKSPACE}/marker.so\n'
	  printf 'env set LD_LIBRARY_PATH=${WORKSPACE}/lib\nenv set GCONV_PATH=${WORKSPACE}/gconv\n'
	  printf 'env set OSB_MARKER_LOG=${WORKSPACE}/marker-policy.log\n'; } > "$polfile"
	chmod a+r "$polfile" "$plainpol"
	attack=${ATTACK/SECRETS/$T/secret/root0600 $T/secret/acct0600}

	if [ "$who" != root ] && [ "$ident" = root ]; then
		out=$(cd "$ws" && as_caller "$who" "$T/bin/osb-isolate" run --policy "$polfile" -- true 2>&1); rc=$?
		expect_eq "$label: refused with 125 (root mode needs root)" 125 "$rc"
		case "$out" in *"root unavailable: running as uid $TEST_UID, not root"*) ok "$label: the refusal says why";;
			*) not_ok "$label: the refusal says why" "$out";; esac
		return
	fi
	if [ "$ident" = userns ] && ! test_have userns userns_ok "$who"; then
		return
	fi
	local envlog="$T/out/env.$$.$RANDOM"
	# 1. Loader variables set by the policy; the attacks.
	if [ "$mode" = run ]; then
		(cd "$ws" && as_caller "$who" "$T/bin/osb-isolate" run --json --policy "$polfile" -- sh -c "$attack") > "$T/out/j" 2>&1 &
	else
		(cd "$ws" && as_caller "$who" "$T/bin/reqrun" --session "$polfile" -- sh -c "$attack") > "$T/out/j" 2>&1 &
	fi
	local bg=$!
	capture_env "$ws" "$envlog"
	wait "$bg"; rc=$?
	j=$(cat "$T/out/j")
	expect_eq "$label: the attack ran (status 0)" "0 True" "$rc $(json "$j" "d['ok']")"
	out=$(json "$j" "d['stdout']")
	local mode_ran; mode_ran=$(json "$j" "d['mode']")
	[ "$ident" != auto ] && expect_eq "$label: identity mode" "$ident" "$mode_ran"
	check_host_ids "$label" "$who" "$j"
	check_attack "$label" "$who" "$mode_ran" "$out" "$ws"
	check_env_capture "$label [policy env]" "$envlog"
	check_marker "$label [policy env]" "$ws/marker-policy.log" ""
	case "$(cat "$ws/marker-policy.log" 2>/dev/null)" in *"exe=/usr/bin/dash how=preload"*|*"exe=/bin/dash how=preload"*)
		ok "$label [policy env]: the command itself gets the loader variables";;
		*) not_ok "$label [policy env]: the command itself gets the loader variables" "$(cat "$ws/marker-policy.log" 2>/dev/null)";; esac
	# 2. The same variables asked for by an execd request.
	local req; req=$(printf '{"env":{"set":{"LD_PRELOAD":"%s/marker.so","LD_AUDIT":"%s/marker.so","LD_LIBRARY_PATH":"%s/lib","GCONV_PATH":"%s/gconv","OSB_MARKER_LOG":"%s/marker-req.log"}}}' "$ws" "$ws" "$ws" "$ws" "$ws")
	(cd "$ws" && as_caller "$who" "$T/bin/reqrun" $([ "$mode" = session ] && echo --session) --request "$req" "$plainpol" -- sh -c 'sleep 1') > "$T/out/j" 2>&1 &
	bg=$!
	capture_env "$ws" "$envlog"
	wait "$bg"
	expect_eq "$label [request env]: ran" "True" "$(json "$(cat "$T/out/j")" "d['ok']")"
	check_env_capture "$label [request env]" "$envlog"
	check_marker "$label [request env]" "$ws/marker-req.log" ""
	# 3. Inherited from the caller (balanced passes the environment through;
	# strict drops it). The caller itself loads what its own environment says.
	# (A sanitizer build's caller must be told that a preloaded library is fine.)
	EXTRA_ENV=(LD_PRELOAD="$ws/marker.so" LD_AUDIT="$ws/marker.so" LD_LIBRARY_PATH="$ws/lib"
		GCONV_PATH="$ws/gconv" OSB_MARKER_LOG="$ws/marker-inherit.log"
		ASAN_OPTIONS=verify_asan_link_order=0)
	if [ "$mode" = run ]; then
		(cd "$ws" && as_caller "$who" "$T/bin/osb-isolate" run --json --policy "$plainpol" -- sh -c 'sleep 1') > "$T/out/j" 2>&1 &
	else
		(cd "$ws" && as_caller "$who" "$T/bin/reqrun" --session "$plainpol" -- sh -c 'sleep 1') > "$T/out/j" 2>&1 &
	fi
	bg=$!
	capture_env "$ws" "$envlog"
	wait "$bg"
	EXTRA_ENV=()
	expect_eq "$label [inherited env]: ran" "True" "$(json "$(cat "$T/out/j" | grep '^{')" "d['ok']")"
	check_env_capture "$label [inherited env]" "$envlog"
	check_marker "$label [inherited env]" "$ws/marker-inherit.log" 'exe=[^ ]*(osb-isolate|reqrun) '
	rm -f "$envlog"
}

echo "# the host boundary: callers x identity modes x policies x run/session"
for who in root "$TEST_USER"; do
	for ident in auto userns root; do
		for pol in strict balanced; do
			for mode in run session; do
				row "$who" "$ident" "$pol" "$mode"
			done
		done
	done
done

# ---- two live sandboxes never share host ids ------------------------------------
t_concurrent_ids() {
	local ws i ids
	ws=$(mktemp -d "$T/work/ws.XXXXXX"); chmod 1777 "$ws"
	for i in 1 2 3 4; do
		(cd "$ws" && as_caller root "$T/bin/osb-isolate" run --json -- sleep 1 > "$T/out/id.$i") &
	done
	wait
	ids=$(for i in 1 2 3 4; do json "$(cat "$T/out/id.$i")" "d['host_ids']['uid']"; done)
	expect_eq "four concurrent root sandboxes get four different host ids" 4 "$(printf '%s\n' "$ids" | sort -u | grep -c .)"
	rm -f "$T/out/id."*
}

# ---- a 0700 workspace of pinned ids, root mode, session ------------------------
t_pinned_0700_session() {
	local ws id=1879200001 j
	if getent passwd $id >/dev/null; then
		echo "SKIP: pinned-ids: uid $id is an account here"; SKIPPED=$((SKIPPED + 1)); return
	fi
	ws=$(mktemp -d "$T/work/ws.XXXXXX"); chown $id:$id "$ws"; chmod 700 "$ws"
	printf 'osb-policy 1\ninclude %s\nidentity root\n' "$T/policy/strict.policy" > "$T/pol/pinned.policy"
	chmod a+r "$T/pol/pinned.policy"
	j=$(cd "$ws" && as_caller root "$T/bin/reqrun" --session \
		--request "{\"host_uid\":$id,\"host_gid\":$id}" \
		"$T/pol/pinned.policy" -- sh -c 'echo hi > f; pwd; id -u' -- cat f)
	expect_eq "root mode, pinned ids, 0700 workspace: the session works" "$ws
$id
hi" "$(printf '%s\n' "$j" | while read -r l; do json "$l" "d['stdout'].strip()"; done)"
	expect_eq "root mode, pinned ids: the file belongs to the pinned ids" "$id:$id" "$(stat -c %u:%g "$ws/f" 2>/dev/null)"
	local err
	ws=$(mktemp -d "$T/work/ws.XXXXXX"); chown "$TEST_USER:" "$ws"
	err=$(cd "$ws" && as_caller "$TEST_USER" "$T/bin/reqrun" --request "{\"host_uid\":$id,\"host_gid\":$id}" \
		"$T/policy/strict.policy" -- true 2>&1)
	case "$err" in *"only root can choose the host ids"*) ok "an unprivileged caller's pinned host ids are refused";;
		*) not_ok "an unprivileged caller's pinned host ids are refused" "$err";; esac
	err=$(as_caller root "$T/bin/reqrun" --request '{"host_uid":1,"host_gid":1}' "$T/policy/strict.policy" -- true 2>&1 >/dev/null)
	case "$err" in *'"host_uid": 1 belongs to an account'*) ok "a request may not pin an account's ids";;
		*) not_ok "a request may not pin an account's ids" "$err";; esac
}

# ---- limit nproc holds for every caller ------------------------------------------
t_nproc() {
	local who ident ws out n
	for who in root "$TEST_USER"; do
		for ident in userns root; do
			[ "$who" != root ] && [ "$ident" = root ] && continue
			if [ "$ident" = userns ] && ! test_have userns userns_ok "$who"; then continue; fi
			ws=$(mktemp -d "$T/work/ws.XXXXXX")
			if [ "$who" = root ]; then chmod 1777 "$ws"; else chown "$TEST_USER:" "$ws"; fi
			cp "$T/bin/hostattack" "$ws/"
			printf 'osb-policy 1\ninclude %s\nidentity %s\nlimit nproc 50\n' "$T/policy/strict.policy" "$ident" > "$T/pol/nproc-$who-$ident.policy"
			chmod a+r "$T/pol/nproc-$who-$ident.policy"
			out=$(cd "$ws" && as_caller "$who" "$T/bin/osb-isolate" run --policy "$T/pol/nproc-$who-$ident.policy" -- ./hostattack forks 80 2>&1)
			n=$(printf '%s\n' "$out" | sed -n 's/^forks \([0-9]*\) errno=\([0-9]*\)$/\1 \2/p')
			if [ -n "$n" ] && [ "${n%% *}" -lt 50 ] && [ "${n##* }" = 11 ]; then
				ok "$who/$ident: limit nproc 50 stops a fork bomb ($n: forks, EAGAIN)"
			else not_ok "$who/$ident: limit nproc 50 stops a fork bomb" "$out"; fi
		done
	done
}

# ---- another user redirects a component of the workspace path ------------------------
# A directory of the attacker's on the way to the workspace: while the
# launches run, the attacker swaps "q" between a directory and a symlink to
# /etc (or to /oldroot/etc, where bwrap sees the host during its setup). No
# launch may create a directory or write anything outside the workspace.
t_path_race() { # CALLER IDENTITY ATTACKER N
	local who=$1 ident=$2 attacker=$3 n=$4 base ran=0 refused=0 i before after marker
	base=$(mktemp -d "$T/work/race.XXXXXX"); chmod 755 "$base"
	mkdir -m 755 "$base/u"; chown "$attacker:" "$base/u"
	marker="osb-race-$$-$RANDOM"
	printf 'osb-policy 1\ninclude %s\nidentity %s\n' "$T/policy/strict.policy" "$ident" > "$T/pol/race-$ident.policy"
	chmod a+r "$T/pol/race-$ident.policy"
	before=$(ls -a /etc /root /var/lib | sha256sum)
	setpriv --reuid="$attacker" --regid="$(id -g "$attacker")" --clear-groups bash -c '
		u=$1; end=$((SECONDS + 600))
		mkdir -p "$u/q.dir/'"$marker"'"; chmod -R 1777 "$u/q.dir"
		while [ $SECONDS -lt $end ] && [ -d "$u" ]; do
			ln -sfn /etc "$u/q.new" && mv -T "$u/q.new" "$u/q"
			ln -sfn /oldroot/etc "$u/q.new" && mv -T "$u/q.new" "$u/q"
			ln -sfn q.dir "$u/q.new" && mv -T "$u/q.new" "$u/q"
			rm -f "$u/q"; mv -T "$u/q.dir" "$u/q" 2>/dev/null; mv -T "$u/q" "$u/q.dir" 2>/dev/null
		done' _ "$base/u" &
	local swapper=$!
	for i in $(seq 1 "$n"); do
		if (cd / && as_caller "$who" "$T/bin/osb-isolate" run --policy "$T/pol/race-$ident.policy" \
			--workspace "$base/u/q/$marker" -- sh -c "echo $i > $marker.probe" >/dev/null 2>&1); then
			ran=$((ran + 1)); else refused=$((refused + 1)); fi
	done
	kill "$swapper" 2>/dev/null; wait "$swapper" 2>/dev/null
	after=$(ls -a /etc /root /var/lib | sha256sum)
	local outside
	outside=$(find /etc /root /var/lib /tmp -maxdepth 3 \( -name "$marker" -o -name "$marker.probe" \) \
		-not -path "$base/*" 2>/dev/null)
	expect_eq "path race $who/$ident: $n launches, no directory appears in /etc, /root or /var/lib ($ran ran, $refused refused)" \
		"$before" "$after"
	expect_eq "path race $who/$ident: nothing written outside the workspace" "" "$outside"
}

# ---- "root none" in root mode: the parents bwrap makes are reachable ----------------------
# The workspace lies under no mount of the policy: bwrap makes its parents in
# its own root tmpfs, which must be 0755 (bwrap's default 0700 would shut the
# sandbox's ids out of their own workspace in root mode).
t_root_none() {
	local ident ws out
	for ident in root userns; do
		ws=$(mktemp -d /var/tmp/osb-rn.XXXXXX); chmod 1777 "$ws"
		printf 'osb-policy 1\nroot none\nro-bind /usr\nro-bind /etc\nro-bind /lib\nro-bind /lib64\nro-bind /bin\ndev /dev\nproc /proc\nworkspace rw\nidentity %s\n' \
			"$ident" > "$T/pol/none-$ident.policy"
		chmod a+r "$T/pol/none-$ident.policy"
		out=$(cd "$ws" && as_caller root "$T/bin/osb-isolate" run --policy "$T/pol/none-$ident.policy" \
			-- /usr/bin/sh -c 'stat -c %a /var /var/tmp; echo x > f && echo wrote' 2>&1)
		expect_eq "root none, identity $ident: parents are 0755, the workspace is writable" \
			"755 755 wrote" "$(echo $out)"
		rm -rf "$ws"
	done
}

# ---- placeholders shared by two sandboxes of one workspace ----------------------------------
# Session A makes the .git placeholder in a workspace without .git;
# session B, on the same workspace, binds it read-only too. When A ends, it
# must not remove what B still binds: a removed directory would take B's
# read-only mount with it, and B could then plant a hook. B, ending last,
# removes it (lib/phrecord.h).
t_placeholder_shared() {
	local ws out
	ws=$(mktemp -d "$T/work/ws.XXXXXX"); chmod 1777 "$ws"
	(cd "$ws" && as_caller root "$T/bin/osb-isolate" session start --name "ph-a-$$" >/dev/null &&
		as_caller root "$T/bin/osb-isolate" session start --name "ph-b-$$" >/dev/null)
	as_caller root "$T/bin/osb-isolate" session stop "ph-a-$$" >/dev/null
	out=$(as_caller root "$T/bin/osb-isolate" session exec "ph-b-$$" -- \
		sh -c 'mkdir -p .git/hooks 2>/dev/null; echo x > .git/hooks/post-checkout 2>/dev/null && echo planted || echo refused')
	as_caller root "$T/bin/osb-isolate" session stop "ph-b-$$" >/dev/null
	expect_eq "a placeholder another session binds survives the first session's end" "refused" "$out"
	[ ! -e "$ws/.git/hooks/post-checkout" ] && ok "... and no hook reached the host" \
		|| not_ok "... and no hook reached the host" "$(ls -la "$ws/.git/hooks")"
	expect_eq "... and the last session to stop removes the placeholder the first one made" "" \
		"$(ls -A "$ws")"
	# Alone, a session removes its placeholders when it stops.
	ws=$(mktemp -d "$T/work/ws.XXXXXX"); chmod 1777 "$ws"
	(cd "$ws" && as_caller root "$T/bin/osb-isolate" session start --name "ph-c-$$" >/dev/null)
	as_caller root "$T/bin/osb-isolate" session stop "ph-c-$$" >/dev/null
	expect_eq "a stopped session leaves no placeholder in its workspace" "" "$(ls -A "$ws")"
}

# ---- a sandbox cannot use its caller's sessions ---------------------------------
# An unprivileged caller's sandbox runs as the caller's uid on the host: a
# command whose view shows the sessions' directory (here XDG_RUNTIME_DIR
# beneath the workspace; a policy binding it would do as well) can connect to
# the socket of every session of the caller, and once ran commands in a
# balanced session from a strict one (the host's network, the caller's
# environment) and stopped it. The holder refuses a client that is not of its
# pid namespace (lib/peer-pidns.h), with the reason; and the other way, a
# client refuses a socket that the command serves there (it once sent the
# command its fds).
t_session_socket() {
	local lab="$TEST_USER: a strict session's command and a balanced session's socket" ws a b out hostnet fake
	test_have userns userns_ok "$TEST_USER" || return
	# Short: the socket's path must fit in sun_path with an id of 64.
	ws=$(mktemp -d /tmp/osb-sk.XXXXXX)
	mkdir -p "$ws/x" "$ws/cli/bin" "$ws/cli/lib"
	cp "$T/bin/osb-isolate" "$ws/cli/bin/"
	cp "$T/lib/libosb-isolate.so.0" "$ws/cli/lib/"
	chown -R "$TEST_USER:" "$ws"
	chmod 755 "$ws"; chmod 700 "$ws/x"
	EXTRA_ENV=(XDG_RUNTIME_DIR="$ws/x")
	a=$(cd "$ws" && as_caller "$TEST_USER" "$T/bin/osb-isolate" session start --policy balanced --name "sock-a-$$" 2>&1)
	b=$(cd "$ws" && as_caller "$TEST_USER" "$T/bin/osb-isolate" session start --policy strict --name "sock-b-$$" 2>&1)
	expect_eq "$lab: both sessions started" "sock-a-$$ sock-b-$$" "$a $b"
	# The CLI run inside refuses the holder itself (it is of another pid
	# namespace than the CLI's); a client of the attacker's own making does
	# not, and sends a stop request as the CLI would (lib/session-wire.h).
	cat > "$ws/rawstop.py" <<'EOF'
import socket, struct, sys
c = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
c.connect(sys.argv[1])
c.send(struct.pack("<6IQ", 0x4F534253, 3, 0, 0, 0, 0, 0))
while True:
    m = c.recv(65536)
    if not m or m[:1] == b"s":
        print("status=%s" % (struct.unpack("<i", m[1:5])[0] if len(m) >= 5 else "eof"))
        break
    if m[:1] == b"e":
        sys.stdout.write(m[1:].decode())
EOF
	chmod 644 "$ws/rawstop.py"
	out=$(cd "$ws" && as_caller "$TEST_USER" "$T/bin/osb-isolate" session exec "sock-b-$$" -- sh -c "
		export XDG_RUNTIME_DIR=$ws/x
		[ -S $ws/x/osb-isolate/sock-a-$$.sock ] && echo seen
		./cli/bin/osb-isolate session exec sock-a-$$ -- readlink /proc/self/ns/net; echo exec=\$?
		python3 rawstop.py $ws/x/osb-isolate/sock-a-$$.sock" 2>&1)
	hostnet=$(readlink /proc/self/ns/net)
	case "$out" in *seen*) ok "$lab: the socket is in the command's view";;
		*) not_ok "$lab: the socket is in the command's view" "$out";; esac
	case "$out" in *"$hostnet"*) not_ok "$lab: no command ran in the balanced session" "$out";;
		*) ok "$lab: no command ran in the balanced session";; esac
	expect_eq "$lab: exec and a stop request get 125" "exec=125 status=125" \
		"$(printf '%s\n' "$out" | grep -E '^(exec|status)=' | tr '\n' ' ' | sed 's/ $//')"
	case "$out" in *"refused: the client is not in the pid namespace of the session's holder"*)
		ok "$lab: the holder says why";;
		*) not_ok "$lab: the holder says why" "$out";; esac
	expect_eq "$lab: the balanced session still serves its caller" "$hostnet" \
		"$(as_caller "$TEST_USER" "$T/bin/osb-isolate" session exec "sock-a-$$" -- readlink /proc/self/ns/net 2>&1)"
	# The other way: the command serves a socket of its own there, under a
	# new id; the caller's client must not send it its fds (its terminal, as
	# often as not) and requests. It once did, and the sandbox wrote to them.
	cat > "$ws/fake.py" <<'EOF'
import array, fcntl, os, socket, sys
d, sid = sys.argv[1], sys.argv[2]
lk = os.open(f"{d}/{sid}.lock", os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(lk, fcntl.LOCK_EX)
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.bind(f"{d}/{sid}.sock")
s.listen(4)
open(f"{d}/../ready", "w").close()
c, _ = s.accept()
fds = array.array("i")
msg, anc, _, _ = c.recvmsg(65536, socket.CMSG_LEN(16 * 4))
for lvl, typ, data in anc:
    if lvl == socket.SOL_SOCKET and typ == socket.SCM_RIGHTS:
        fds.frombytes(data[:len(data) - len(data) % 4])
for fd in fds:
    os.write(fd, b"FAKE-HOLDER-WROTE-THIS\n")
EOF
	chmod 644 "$ws/fake.py"
	# In the foreground of an exec kept running meanwhile: a process that
	# outlives its exec is the broker's to kill (and a setsid -f child was,
	# at times, before it listened).
	as_caller "$TEST_USER" "$T/bin/osb-isolate" session exec "sock-b-$$" -- \
		timeout 60 python3 fake.py "$ws/x/osb-isolate" "fake-$$" >/dev/null 2>&1 &
	fake=$!
	for _ in $(seq 300); do [ -e "$ws/x/ready" ] && break; sleep 0.1; done
	[ -e "$ws/x/ready" ] && ok "$lab: the command serves a socket of its own there" ||
		not_ok "$lab: the command serves a socket of its own there" "no $ws/x/ready after 30 s"
	out=$(cd "$ws" && timeout 20 setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups -- \
		env -i "${BASE_ENV[@]}" "${EXTRA_ENV[@]}" "$T/bin/osb-isolate" session exec "fake-$$" -- true 2>&1; echo "rc=$?")
	case "$out" in *FAKE-HOLDER*) not_ok "$lab: a socket the command serves gets none of the client's fds" "$out";;
		*) ok "$lab: a socket the command serves gets none of the client's fds";; esac
	case "$out" in *"is served from another pid namespace than this process's"*rc=125)
		ok "$lab: ... and the client says why (125)";;
		*) not_ok "$lab: ... and the client says why (125)" "$out";; esac
	as_caller "$TEST_USER" "$T/bin/osb-isolate" session stop "sock-a-$$" >/dev/null 2>&1
	as_caller "$TEST_USER" "$T/bin/osb-isolate" session stop "sock-b-$$" >/dev/null 2>&1
	wait "$fake" 2>/dev/null
	EXTRA_ENV=()
	rm -rf "$ws"
}

t_placeholder_shared
t_root_none
t_session_socket
t_concurrent_ids
t_pinned_0700_session
t_nproc
t_path_race root auto "$TEST_USER" "${OSB_RACE_LAUNCHES:-1000}"
t_path_race root root "$TEST_USER" "${OSB_RACE_LAUNCHES:-1000}"
t_path_race "$TEST_USER" auto nobody "${OSB_RACE_LAUNCHES:-1000}"

echo "# boundary"
for n in "${failed[@]}"; do echo "# FAILED: $n"; done
finish_suite "$pass" "$fail"

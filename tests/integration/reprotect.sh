#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# reprotect.sh — a read-only rule inside the writable workspace
# (strict.policy's "read-only workspace:.git") holds against the ways
# around it that a bind of .git/hooks and .git/config alone left open
# (osb-isolate.policy(5), "read-only"; docs/ARCHITECTURE.md, "Read-only rules
# inside a writable bind"):
#   - renaming an ancestor: the kernel moves a mount with its directory, so
#     "mv .git .git-moved" and a fresh .git with a planted hook would run
#     on the caller's next host git commit. The init makes every directory
#     between the workspace and the leaf a mount point, which rename(2)
#     refuses (EBUSY).
#   - a concurrent sandbox on the same workspace swapping .git with a
#     symlink into the host (/oldroot, where bwrap sees the host during its
#     setup) while another sandbox starts: bwrap created the destinations it
#     was given there, on the host. bwrap is now given none inside the
#     workspace; the init resolves beneath it without following a symlink
#     and refuses a changed path.
#   - the rest of .git: a commondir, a gitlink in the index, a submodule's
#     .git/modules config, from which the caller's git takes config and
#     hooks as well.
#   - the placeholder .git of a workspace without one, shared by two runs or
#     sessions: the last to end removes it, in either order, never the
#     caller's own empty .git; a killed run's is removed by the next run.
# Over root callers on pinned ids owning the workspace (identity userns and
# root) and the unprivileged test user (userns), runs and sessions.
set -uo pipefail
. "$OSB_SRCDIR/tests/integration/lib.sh"

test_need root probe_root   # it plays both callers and gives workspaces to pinned ids
ensure_test_user
T=$(stage_artifacts)
cleanup() {
	local s
	for s in $SESSIONS; do as_caller "${s%%=*}" "$T/bin/osb-isolate" session stop "${s#*=}" >/dev/null 2>&1; done
	rm -rf "$T"
}
SESSIONS=
trap cleanup EXIT
mkdir -p "$T/pol" "$T/out"
chmod 1777 "$T/out"
chmod -R a+rX "$T/pol"
PINNED=1879200003
getent passwd $PINNED >/dev/null && die "uid $PINNED is an account here; the test pins it"
BASE_ENV=(PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 HOME=/nonexistent
	OSB_ISOLATE_INIT="$T/bin/osb-isolate-init" OSB_ISOLATE_POLICY_DIR="$T/policy")

pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
not_ok() {
	fail=$((fail + 1))
	echo "not ok - $1"; shift
	for l in "$@"; do echo "#   $l"; done
}
expect_eq() { if [ "$2" == "$3" ]; then ok "$1"; else not_ok "$1" "expected: $(printf %q "$2")" "actual:   $(printf %q "$3")"; fi; }

as_caller() { # CALLER CMD...
	local who=$1; shift
	if [ "$who" = root ]; then env -i "${BASE_ENV[@]}" "$@"
	else setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups -- env -i "${BASE_ENV[@]}" "$@"; fi
}

userns_ok() { # CALLER
	WHY="the sandbox's bwrap cannot create a user namespace here (unshare -U fails as an unprivileged id)"
	if [ "$1" = root ]; then setpriv --reuid=$PINNED --regid=$PINNED --clear-groups unshare -U true 2>/dev/null
	else setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups unshare -U true 2>/dev/null; fi
}

# The policy of a row: strict in IDENT mode, on the pinned ids for root.
policy_for() { # CALLER IDENT [NAME [SED]]
	local f="$T/pol/$1-$2${3:+-$3}.policy"
	{ sed "${4:-}" "$T/policy/strict.policy"
	  printf 'identity %s\n' "$2"
	  [ "$1" = root ] && printf 'host-ids %s %s\n' $PINNED $PINNED; } > "$f"
	chmod a+r "$f"
	echo "$f"
}

new_repo() { # CALLER [nogit]
	local ws
	ws=$(mktemp -d "$T/work.XXXXXX")
	if [ "${2:-}" != nogit ]; then
		git -C "$ws" init -q
		git -C "$ws" -c user.email=t@t -c user.name=t commit -q --allow-empty -m init
	fi
	if [ "$1" = root ]; then chown -R $PINNED:$PINNED "$ws"; else chown -R "$TEST_USER:" "$ws"; fi
	chmod 755 "$ws"
	echo "$ws"
}

# The caller's own git on the host, in WS: root's (the repository is the
# pinned ids', so safe.directory) or the test user's.
host_git() { # CALLER WS ARG...
	local who=$1 ws=$2; shift 2
	if [ "$who" = root ]; then git -C "$ws" -c safe.directory='*' "$@"
	else as_caller "$who" git -C "$ws" "$@"; fi
}

ATTACK_A='mv .git .git-moved; mkdir -p .git; cp -a .git-moved/. .git/; rm -rf .git/hooks; mkdir .git/hooks; printf "#!/bin/sh\necho PWNED > PROOF\n" > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit'

in_sandbox() { # CALLER MODE WS POLICY CMD: run CMD there, its output and status
	local who=$1 mode=$2 ws=$3 pol=$4 cmd=$5 name="rp-$$-$RANDOM" rc
	if [ "$mode" = run ]; then
		(cd "$ws" && as_caller "$who" "$T/bin/osb-isolate" run --policy "$pol" -- sh -c "$cmd" 2>&1)
		return
	fi
	(cd "$ws" && as_caller "$who" "$T/bin/osb-isolate" session start --name "$name" --policy "$pol" >/dev/null 2>&1) ||
		{ echo "session start failed"; return 125; }
	SESSIONS="$SESSIONS $who=$name"
	as_caller "$who" "$T/bin/osb-isolate" session exec "$name" -- sh -c "$cmd" 2>&1; rc=$?
	as_caller "$who" "$T/bin/osb-isolate" session stop "$name" >/dev/null 2>&1
	SESSIONS=${SESSIONS/ $who=$name/}
	return $rc
}

# ---- ATTACK A: rename an ancestor of the read-only mount ---------------------------------
row_rename() { # CALLER IDENT MODE
	local who=$1 ident=$2 mode=$3 label="$1/$2/$3" ws pol out proof
	pol=$(policy_for "$who" "$ident")
	ws=$(new_repo "$who")
	proof="$T/out/proof.$who.$ident.$mode"
	out=$(in_sandbox "$who" "$mode" "$ws" "$pol" "${ATTACK_A//PROOF/$proof}")
	expect_eq "$label: renaming .git fails (EBUSY)" \
		"mv: cannot move '.git' to '.git-moved': Device or resource busy" \
		"$(printf '%s\n' "$out" | grep '^mv:')"
	[ ! -e "$ws/.git-moved" ] && [ ! -e "$ws/.git/hooks/pre-commit" ] \
		&& ok "$label: no planted hook on the host" \
		|| not_ok "$label: no planted hook on the host" "$(ls -la "$ws" "$ws/.git/hooks" 2>&1)" "$out"
	host_git "$who" "$ws" -c user.email=t@t -c user.name=t commit -q --allow-empty -m host 2>&1
	[ ! -e "$proof" ] && ok "$label: the caller's git commit runs nothing planted" \
		|| not_ok "$label: the caller's git commit ran a planted hook" "$(cat "$proof")"
	# Without .git the plan makes it (a placeholder): the same holds.
	ws=$(new_repo "$who" nogit)
	out=$(in_sandbox "$who" "$mode" "$ws" "$pol" "${ATTACK_A//PROOF/$proof}")
	expect_eq "$label, no .git: renaming the placeholder fails (EBUSY)" \
		"mv: cannot move '.git' to '.git-moved': Device or resource busy" \
		"$(printf '%s\n' "$out" | grep '^mv:')"
	[ -z "$(ls -A "$ws")" ] && ok "$label, no .git: nothing is left in the workspace" \
		|| not_ok "$label, no .git: nothing is left in the workspace" "$(ls -laR "$ws" 2>&1)"
	rm -f "$proof"
}

# ---- ATTACK C: what else in .git the caller's next git command reads -------------------
# A commondir names the repository's common directory, whose config and hooks
# git then takes; a gitlink in the index makes git status run git in the
# nested repository it names, with that repository's config; so does an
# existing submodule's .git/modules/NAME/config. All of .git is read-only:
# none can be written, and the caller's git status on the host runs nothing.
ATTACK_C='fsm="echo PWNED > PROOF; false #"
mkdir -p evil/hooks && printf "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"%s\"\n" "$fsm" > evil/config
printf "#!/bin/sh\necho PWNED > PROOF\n" > evil/hooks/pre-commit; chmod +x evil/hooks/pre-commit
cp -r .git/HEAD .git/refs .git/objects evil/ 2>/dev/null
echo "$PWD/evil" > .git/commondir 2>/dev/null && echo wrote-commondir
mkdir -p sub && cd sub && git init -q . && git config core.fsmonitor "$fsm" &&
git -c user.email=a@b -c user.name=a commit -q --allow-empty -m s && sha=$(git rev-parse HEAD) && cd .. &&
git update-index --add --cacheinfo "160000,$sha,sub" 2>/dev/null && echo wrote-gitlink
mkdir -p .git/modules/m 2>/dev/null && echo wrote-modules
echo done'

row_redirect() { # CALLER IDENT MODE
	local who=$1 ident=$2 mode=$3 label="$1/$2/$3" ws pol out proof
	pol=$(policy_for "$who" "$ident")
	ws=$(new_repo "$who")
	proof="$T/out/proof-c.$who.$ident.$mode"
	out=$(in_sandbox "$who" "$mode" "$ws" "$pol" "${ATTACK_C//PROOF/$proof}")
	expect_eq "$label: commondir, gitlink and .git/modules cannot be written" "done" \
		"$(printf '%s\n' "$out" | grep -E '^(wrote-|done)' | tr '\n' ' ' | sed 's/ $//')"
	host_git "$who" "$ws" status >/dev/null 2>&1
	host_git "$who" "$ws" -c user.email=t@t -c user.name=t commit -q --allow-empty -m host >/dev/null 2>&1
	[ ! -e "$proof" ] && ok "$label: the caller's git status and commit run nothing the sandbox wrote" \
		|| not_ok "$label: the caller's git ran what the sandbox wrote" "$(cat "$proof")" "$out"
	[ ! -e "$ws/.git/commondir" ] && ok "$label: no commondir on the host" \
		|| not_ok "$label: no commondir on the host" "$(cat "$ws/.git/commondir")"
	rm -f "$proof"
}

# ---- ATTACK B: a concurrent sandbox redirects a destination ------------------------------
# Its session runs a policy without the read-only rules (so that it may
# rename .git) and swaps .git with a symlink to a host directory no sandbox
# sees; N sandboxes of the strict policy start meanwhile. Nothing may appear
# in that directory, and each either ran with .git/hooks read-only or was
# refused: by the plan (a symlink on the host), by the init resolving the
# rule, or by the init's audit (the directory it made a mount point renamed
# by the other sandbox before the audit: a writable mount at .gitlink).
SWAP='import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
os.symlink(os.environ["TARGET"], ".gitlink")
end = time.time() + 120
n = 0
while time.time() < end and not os.path.exists("stop"):
    for hold in (0.0002, 0.0006):   # the link briefly, the directory longer
        if libc.renameat2(-100, b".git", -100, b".gitlink", 2) != 0:
            print("renameat2: errno", ctypes.get_errno(), flush=True); end = 0; break
        time.sleep(hold)
    n += 1
libc.renameat2(-100, b".git", -100, b".gitlink", 2) if os.path.islink(".git") else None
os.unlink(".gitlink")
print("swaps", n, flush=True)'

row_race() { # CALLER IDENT N
	local who=$1 ident=$2 n=$3 label="$1/$2" ws pol nore target name="rp-swap-$$-$RANDOM" i out rc
	local ran=0 refused=0 bad=0 swapper
	pol=$(policy_for "$who" "$ident")
	nore=$(policy_for "$who" "$ident" norules '/^read-only /d')
	ws=$(new_repo "$who")
	target=$(mktemp -d "$T/out/target.XXXXXX"); chmod 1777 "$target"
	(cd "$ws" && as_caller "$who" "$T/bin/osb-isolate" session start --name "$name" --policy "$nore" >/dev/null 2>&1) ||
		{ not_ok "$label race: the swapping session starts"; return; }
	SESSIONS="$SESSIONS $who=$name"
	as_caller "$who" "$T/bin/osb-isolate" session exec "$name" --env TARGET="/oldroot$target" -- python3 -c "$SWAP" > "$T/out/swap.$name" 2>&1 &
	swapper=$!
	sleep 0.5
	for i in $(seq 1 "$n"); do
		out=$(cd "$ws" && as_caller "$who" "$T/bin/osb-isolate" run --policy "$pol" -- \
			sh -c 'if touch .git/hooks/x 2>/dev/null || touch .git/config 2>/dev/null; then echo WROTE; else echo kept; fi' 2>&1); rc=$?
		if [ "$rc" -eq 0 ] && [ "$out" = kept ]; then ran=$((ran + 1))
		elif [ "$rc" -eq 125 ] && [[ $out == *": read-only: $ws/.git"* ||
			$out == *"init:mounts: policy error: cannot re-protect $ws/.git"* ||
			$out == *"init:mounts: policy error: writable mount at $ws/.gitlink "* ]]; then refused=$((refused + 1))
		else bad=$((bad + 1)); [ "$bad" -le 3 ] && echo "# run $i: status $rc: $out"; fi
	done
	touch "$ws/stop" 2>/dev/null || as_caller "$who" touch "$ws/stop"
	wait "$swapper"
	as_caller "$who" "$T/bin/osb-isolate" session stop "$name" >/dev/null 2>&1
	SESSIONS=${SESSIONS/ $who=$name/}
	case "$(cat "$T/out/swap.$name")" in *"swaps "*) ok "$label race: the session swapped .git ($(tail -1 "$T/out/swap.$name"))";;
		*) not_ok "$label race: the session swapped .git" "$(cat "$T/out/swap.$name")";; esac
	expect_eq "$label race: nothing created in the host directory ($ran ran, $refused refused)" "" \
		"$(ls -A "$target")"
	expect_eq "$label race: each run kept .git read-only or was refused naming the rule" 0 "$bad"
	[ ! -e "$ws/.git/hooks/x" ] && ok "$label race: no write reached .git/hooks" \
		|| not_ok "$label race: no write reached .git/hooks"
}

# ---- placeholders of concurrent runs: the last one removes ----------------------------
# Two runs on one workspace without .git: A makes the placeholder, B starts
# while A runs and finds it. Whichever ends last removes it (A's removal
# fails while B binds it), so no empty .git stays behind for the caller's
# next git command; a .git the caller made, empty too, stays whatever the
# order. A run killed before it removed its placeholder leaves it to the
# next run that binds it. The runs order themselves by files in the
# workspace: each waits for the other's, and the host's "a.done" (or
# "b.done") once the other run has returned.
CONC='touch $ME.up; n=0; while [ ! -e $OTHER.up ] && [ $n -lt 300 ]; do sleep 0.05; n=$((n+1)); done
while [ -n "$WAIT" ] && [ ! -e "$WAIT" ] && [ $n -lt 600 ]; do sleep 0.05; n=$((n+1)); done
[ -d .git ] && echo sees-git'

concurrent() { # CALLER WS POLICY FIRST-TO-END(a|b): the two runs' output
	local who=$1 ws=$2 pol=$3 first=$4 a b
	(cd "$ws" && as_caller "$who" "$T/bin/osb-isolate" run --policy "$pol" \
		-- sh -c "ME=a OTHER=b WAIT=$([ "$first" = b ] && echo b.done); $CONC" > "$T/out/conc.a" 2>&1; touch "$ws/a.done") &
	a=$!
	for _ in $(seq 300); do [ -e "$ws/a.up" ] && break; sleep 0.05; done
	(cd "$ws" && as_caller "$who" "$T/bin/osb-isolate" run --policy "$pol" \
		-- sh -c "ME=b OTHER=a WAIT=$([ "$first" = a ] && echo a.done); $CONC" > "$T/out/conc.b" 2>&1; touch "$ws/b.done") &
	b=$!
	wait "$a" "$b"
	printf 'A %s B %s' "$(cat "$T/out/conc.a")" "$(cat "$T/out/conc.b")"
	rm -f "$ws/a.up" "$ws/b.up" "$ws/a.done" "$ws/b.done"
}

row_concurrent() { # CALLER IDENT [alloc]
	local who=$1 ident=$2 label="$1/$2${3:+/allocated}" ws pol first out pid
	if [ -n "${3:-}" ]; then
		pol="$T/pol/$who-$ident-alloc.policy"
		{ cat "$T/policy/strict.policy"; printf 'identity %s\n' "$ident"; } > "$pol"; chmod a+r "$pol"
	else pol=$(policy_for "$who" "$ident"); fi
	for first in a b; do
		ws=$(new_repo "$who" nogit); [ -n "${3:-}" ] && chmod 1777 "$ws"
		out=$(concurrent "$who" "$ws" "$pol" "$first")
		expect_eq "$label: two runs, $first ends first: both ran with .git" "A sees-git B sees-git" "$out"
		expect_eq "$label: two runs, $first ends first: no .git is left in the workspace" "" "$(ls -A "$ws")"
		ws=$(new_repo "$who" nogit); [ -n "${3:-}" ] && chmod 1777 "$ws"
		mkdir "$ws/.git"; [ "$who" = root ] || chown "$TEST_USER:" "$ws/.git"
		out=$(concurrent "$who" "$ws" "$pol" "$first")
		expect_eq "$label: two runs, $first ends first, the caller's own empty .git: both ran" "A sees-git B sees-git" "$out"
		[ -d "$ws/.git" ] && ok "$label: two runs, $first ends first: the caller's own empty .git stays" \
			|| not_ok "$label: two runs, $first ends first: the caller's own empty .git stays" "$(ls -la "$ws")"
	done
	# Two sessions (their owners remove the placeholders, helper/session-owner.c).
	for first in a b; do
		for own in "" own; do
			ws=$(new_repo "$who" nogit); [ -n "${3:-}" ] && chmod 1777 "$ws"
			if [ -n "$own" ]; then mkdir "$ws/.git"; [ "$who" = root ] || chown "$TEST_USER:" "$ws/.git"; fi
			for s in a b; do
				(cd "$ws" && as_caller "$who" "$T/bin/osb-isolate" session start --name "rp-$s-$$" --policy "$pol" >/dev/null 2>&1) ||
					not_ok "$label: session $s starts"
				SESSIONS="$SESSIONS $who=rp-$s-$$"
			done
			out=$(as_caller "$who" "$T/bin/osb-isolate" session exec "rp-b-$$" -- sh -c '[ -d .git ] && echo sees-git' 2>&1)
			for s in $first $([ "$first" = a ] && echo b || echo a); do
				as_caller "$who" "$T/bin/osb-isolate" session stop "rp-$s-$$" >/dev/null 2>&1
				SESSIONS=${SESSIONS/ $who=rp-$s-$$/}
			done
			expect_eq "$label: two sessions, $first stops first${own:+ (own .git)}: the second binds .git" sees-git "$out"
			if [ -z "$own" ]; then
				expect_eq "$label: two sessions, $first stops first: no .git is left" "" "$(ls -A "$ws")"
			else
				[ -d "$ws/.git" ] && ok "$label: two sessions, $first stops first: the caller's own empty .git stays" \
					|| not_ok "$label: two sessions, $first stops first: the caller's own empty .git stays" "$(ls -la "$ws")"
			fi
		done
	done
	# A sandbox whose policy keeps no .git read-only (so no plan of its own
	# holds .git shared) takes an exclusive flock on it, as any process
	# that can open a file can: the next strict launch on the workspace
	# waits for its shared lock a bounded time and refuses, never hangs.
	local open_pol
	open_pol=$(policy_for "$who" "$ident" "open-git${3:-}" '/^read-only workspace:\.git$/d')
	[ -n "${3:-}" ] && sed -i '/^host-ids /d' "$open_pol"
	for own in "" git; do
		if [ -n "$own" ]; then ws=$(new_repo "$who"); else ws=$(new_repo "$who" nogit); fi
		[ -n "${3:-}" ] && chmod 1777 "$ws"
		(cd "$ws" && as_caller "$who" "$T/bin/osb-isolate" run --policy "$open_pol" \
			-- sh -c 'mkdir -p .git && exec flock -x .git sh -c "touch a.up; sleep 30"' >/dev/null 2>&1) &
		pid=$!
		for _ in $(seq 300); do [ -e "$ws/a.up" ] && break; sleep 0.05; done
		out=$(cd "$ws" && timeout 20 env -i "${BASE_ENV[@]}" $([ "$who" = root ] || echo setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups --) \
			"$T/bin/osb-isolate" run --policy "$pol" -- true 2>&1; echo "rc=$?")
		pkill -KILL -f "sh -c touch a.up; sleep 30" 2>/dev/null; wait "$pid" 2>/dev/null
		rm -f "$ws/a.up"; rmdir "$ws/.git" 2>/dev/null
		case "$out" in
		*"read-only workspace:.git: another process holds an exclusive lock (flock) on it and kept it for 1000 ms"*"rc=125")
			ok "$label: a sandbox's exclusive lock on ${own:-a placeholder} .git: the next launch refuses (125)" ;;
		*) not_ok "$label: a sandbox's exclusive lock on ${own:-a placeholder} .git: the next launch refuses (125)" "$out" ;;
		esac
	done
	# A run killed (SIGKILL) before it could remove its placeholder: the
	# next run that binds .git removes it when it ends.
	ws=$(new_repo "$who" nogit); [ -n "${3:-}" ] && chmod 1777 "$ws"
	(cd "$ws" && exec setsid env -i "${BASE_ENV[@]}" $([ "$who" = root ] || echo setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups --) \
		"$T/bin/osb-isolate" run --policy "$pol" -- sh -c 'touch a.up; sleep 60' >/dev/null 2>&1) &
	pid=$!
	for _ in $(seq 300); do [ -e "$ws/a.up" ] && break; sleep 0.05; done
	kill -KILL -- -"$pid" 2>/dev/null; wait "$pid" 2>/dev/null
	for _ in $(seq 100); do [ -e "$ws/.git" ] && ! pgrep -s "$pid" >/dev/null && break; sleep 0.05; done
	rm -f "$ws/a.up"
	[ -d "$ws/.git" ] && ok "$label: a killed run leaves its placeholder" \
		|| not_ok "$label: a killed run leaves its placeholder" "$(ls -la "$ws")"
	out=$(cd "$ws" && as_caller "$who" "$T/bin/osb-isolate" run --policy "$pol" -- sh -c '[ -d .git ] && echo sees-git' 2>&1)
	expect_eq "$label: the next run binds it" "sees-git" "$out"
	expect_eq "$label: ... and removes it when it ends" "" "$(ls -A "$ws")"
	# The caller's own empty .git, with no run concurrent: it stays.
	ws=$(new_repo "$who" nogit); [ -n "${3:-}" ] && chmod 1777 "$ws"
	mkdir "$ws/.git"; [ "$who" = root ] || chown "$TEST_USER:" "$ws/.git"
	(cd "$ws" && as_caller "$who" "$T/bin/osb-isolate" run --policy "$pol" -- true)
	[ -d "$ws/.git" ] && ok "$label: a run leaves the caller's own empty .git" \
		|| not_ok "$label: a run leaves the caller's own empty .git" "$(ls -la "$ws")"
}

# The record of placeholders lives in the caller's runtime directory
# (/run/user/UID, as a login makes it) for an unprivileged caller.
RUNDIR=/run/user/$(id -u "$TEST_USER")
MADE_RUNDIR=
if [ ! -d "$RUNDIR" ]; then
	mkdir -p "$RUNDIR" && chown "$TEST_USER:" "$RUNDIR" && chmod 700 "$RUNDIR" && MADE_RUNDIR=1
fi

echo "# read-only rules inside the workspace: callers x identity modes x run/session"
for who in root "$TEST_USER"; do
	for ident in userns root; do
		[ "$who" != root ] && [ "$ident" = root ] && continue
		if [ "$ident" = userns ] && ! test_have userns userns_ok "$who"; then continue; fi
		for mode in run session; do
			row_rename "$who" "$ident" "$mode"
			row_redirect "$who" "$ident" "$mode"
		done
		row_race "$who" "$ident" "${OSB_RACE_LAUNCHES:-40}"
		row_concurrent "$who" "$ident"
	done
done
row_concurrent root root alloc
[ -n "$MADE_RUNDIR" ] && rm -rf "$RUNDIR"

echo "# reprotect"
finish_suite "$pass" "$fail"

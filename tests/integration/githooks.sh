#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# githooks.sh — strict.policy keeps the workspace's .git read-only, but a
# repository's own configuration can make the caller's git run code from
# the worktree, which the sandbox writes (osb-isolate.policy(5),
# "read-only"; docs/ARCHITECTURE.md, "What the repository's configuration
# names"):
#   - core.hooksPath naming a worktree directory (husky's .husky, .githooks):
#     a planted .husky/pre-commit runs on the caller's next git commit, and
#     a missing .husky could be made by the sandbox;
#   - include.path naming a worktree file (path = ../.gitconfig): a planted
#     .gitconfig sets core.fsmonitor, which git status runs;
#   - core.fsmonitor naming a worktree script (./fsmon.sh).
# The plan reads .git/config (and what it includes) before launch and
# protects each of those paths as a read-only rule would. A configuration
# it cannot read safely is refused (exit 125) naming the file and line.
# Over root callers on pinned ids owning the workspace (identity userns and
# root) and the unprivileged test user (userns), runs and sessions, under
# each shipped policy (balanced includes strict: the same protection).
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
PINNED=1879200004
getent passwd $PINNED >/dev/null && die "uid $PINNED is an account here; the test pins it"
BASE_ENV=(PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 HOME=/nonexistent
	OSB_ISOLATE_INIT="$T/bin/osb-isolate-init" OSB_ISOLATE_POLICY_DIR="$T/policy")

pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
not_ok() {
	fail=$((fail + 1))
	echo "not ok - $1"; shift
	local l; for l in "$@"; do echo "#   $l"; done
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

policy_for() { # CALLER IDENT [SHIPPED]: SHIPPED (strict) with the caller's identity lines
	local f="$T/pol/$1-$2-${3:-strict}.policy"
	{ cat "$T/policy/${3:-strict}.policy"
	  printf 'identity %s\n' "$2"
	  [ "$1" = root ] && printf 'host-ids %s %s\n' $PINNED $PINNED; } > "$f"
	chmod a+r "$f"
	echo "$f"
}

# PATH (all of it) to the caller; root's: the pinned ids.
give() { # CALLER PATH
	if [ "$1" = root ]; then chown -R $PINNED:$PINNED "$2"; else chown -R "$TEST_USER:" "$2"; fi
}

# What PRE (shell, in WS) sets up before the sandbox, then WS to the caller;
# a failed setup is a failure of LABEL, never a silent pass.
prepare() { # LABEL CALLER WS PRE
	if [ -n "$4" ] && ! (cd "$3" && eval "$4") >/dev/null 2>&1; then
		not_ok "$1: the setup before the sandbox failed" "$4"
		return 1
	fi
	give "$2" "$3"
}

# A repository whose .git/config gets the lines CONFIG (git config syntax),
# given to the caller (root: the pinned ids).
new_repo() { # CALLER CONFIG
	local ws
	ws=$(mktemp -d "$T/work.XXXXXX")
	git -C "$ws" init -q
	git -C "$ws" -c user.email=t@t -c user.name=t commit -q --allow-empty -m init
	printf '%s\n' "$2" >> "$ws/.git/config"
	give "$1" "$ws"
	chmod 755 "$ws"
	echo "$ws"
}

host_git() { # CALLER WS ARG...
	local who=$1 ws=$2; shift 2
	if [ "$who" = root ]; then git -C "$ws" -c safe.directory='*' "$@"
	else as_caller "$who" git -C "$ws" "$@"; fi
}

in_sandbox() { # CALLER MODE WS POLICY CMD [OSB-OPTION...]
	local who=$1 mode=$2 ws=$3 pol=$4 cmd=$5 name="gh-$$-$RANDOM" rc out
	shift 5
	if [ "$mode" = run ]; then
		(cd "$ws" && as_caller "$who" "$T/bin/osb-isolate" run "$@" --policy "$pol" -- sh -c "$cmd" 2>&1)
		return
	fi
	out=$(cd "$ws" && as_caller "$who" "$T/bin/osb-isolate" session start --name "$name" --policy "$pol" 2>&1 >/dev/null) ||
		{ echo "session start failed: $out"; return 125; }
	SESSIONS="$SESSIONS $who=$name"
	as_caller "$who" "$T/bin/osb-isolate" session exec "$name" -- sh -c "$cmd" 2>&1; rc=$?
	as_caller "$who" "$T/bin/osb-isolate" session stop "$name" >/dev/null 2>&1
	SESSIONS=${SESSIONS/ $who=$name/}
	return $rc
}

HOOK='printf "#!/bin/sh\necho PWNED > PROOF\n"'
# core.hooksPath = DIR: plant DIR/pre-commit (DIR missing or existing).
ATTACK_HOOKS='exec 2>/dev/null; mkdir -p DIR 2>/dev/null; '"$HOOK"' > DIR/pre-commit 2>/dev/null && chmod +x DIR/pre-commit && echo planted; echo done'
# include.path = ../.gitconfig: plant it with a core.fsmonitor command.
ATTACK_INCLUDE='exec 2>/dev/null; printf "[core]\n\tfsmonitor = \"echo PWNED > PROOF; false #\"\n" > .gitconfig 2>/dev/null && echo planted; echo done'
# core.fsmonitor = ./fsmon.sh (or sh fsmon.sh): plant the script; as up.sh for
# remote.origin.uploadpack, which git fetch runs.
ATTACK_FSMON='exec 2>/dev/null; '"$HOOK"' > fsmon.sh 2>/dev/null && chmod +x fsmon.sh && echo planted; echo done'
# A submodule (a gitlink in the index, its repository in .git/modules): the
# sandbox points the work tree's sub/.git at a repository it makes, with a
# core.fsmonitor; the caller's git status runs git status in sub, which runs it.
PRE_SUBMODULE='mkdir -p .git/modules && git -c safe.directory="*" init -q --separate-git-dir .git/modules/sub sub && git -c safe.directory="*" -C sub -c user.email=t@t -c user.name=t commit -q --allow-empty -m s && git -c safe.directory="*" add sub 2>/dev/null && git -c safe.directory="*" -c user.email=t@t -c user.name=t commit -q -m sub'
ATTACK_SUBMODULE='exec 2>/dev/null; mkdir -p sub/g/objects sub/g/refs && printf "ref: refs/heads/master\n" > sub/g/HEAD && printf "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = \"echo PWNED > PROOF; false #\"\n" > sub/g/config && printf "gitdir: g\n" > sub/.git && echo planted; echo done'

# An index git reads two ways (gitformat-index(5)): KIND's bytes on stdout
# (lib/gitindex.h says which readings the plan refuses).
craft_index() { # KIND
	python3 - "$1" <<'EOF_PY'
import hashlib, struct, sys
H = 20
def entry(name, mode, ver=2, flen=None, flags_extra=0, ext=None):
    e = bytearray(40) + hashlib.sha1(name.encode()).digest()
    struct.pack_into('>I', e, 24, mode)
    n = name.encode()
    fl = (len(n) if flen is None else flen) | flags_extra
    e += struct.pack('>H', fl)
    if ext is not None:
        e += struct.pack('>H', ext)
    e += n
    e += b'\0' * (8 - (len(e) % 8))  # 1..8 NULs, git's padding
    return bytes(e)
def ext(sig, data):
    return sig + struct.pack('>I', len(data)) + data
def finish(body):
    return body + hashlib.sha1(body).digest()
def index(ver, entries, exts=b''):
    return finish(b'DIRC' + struct.pack('>II', ver, len(entries)) + b''.join(entries) + exts)
kind = sys.argv[1]
F, L = 0o100644, 0o160000
if kind == 'flaglen':      # "ab" whose flags say 3 bytes: git reads "ab\0" as its name
    out = index(2, [entry('ab', F, flen=3)])
elif kind == 'eoie':       # an EOIE naming 8 bytes past the entries' end (inside ZZZZ)
    ents = [entry('a', F)]
    end = 12 + len(ents[0])
    pad = ext(b'ZZZZ', b'\0' * 8)
    h = hashlib.sha1(pad[8:]).digest()
    out = index(2, ents, pad + ext(b'EOIE', struct.pack('>I', end + 8) + h))
elif kind == 'ieot':       # a gitlink "sub" only a threaded git reads (IEOT block 2 inside ZZZZ)
    a, b, hidden = entry('a', F), entry('b', F), entry('sub', L)
    end = 12 + len(a) + len(b)
    zz = ext(b'ZZZZ', hidden)
    ieot = ext(b'IEOT', struct.pack('>IIIII', 1, 12, 1, end + 8, 1))
    h = hashlib.sha1(zz[:8] + ieot[:8]).digest()
    out = index(2, [a, b], zz + ieot + ext(b'EOIE', struct.pack('>I', end) + h))
elif kind == 'twolinks':
    out = index(2, [], ext(b'link', b'\1' * H) + ext(b'link', b'\2' * H))
elif kind == 'cut':        # an extended entry whose extra flags run past the entries
    e = bytearray(40) + bytes(H)
    struct.pack_into('>I', e, 24, F)
    e += struct.pack('>H', 0x4000 | 0xfff)
    out = finish(b'DIRC' + struct.pack('>II', 3, 1) + bytes(e))
else:
    sys.exit('craft: unknown kind ' + kind)
sys.stdout.buffer.write(out)
EOF_PY
}

# An index git reads as holding the gitlink "sub" only with index.threads
# (its offset table): the plan must refuse it, or protect sub/.git.
PRE_IEOT='craft_index ieot > .git/index'

# As attack, for an index the plan must refuse before launch (125, MSG).
attack_refused() { # LABEL CALLER MODE POLICY CONFIG CMD PRE MSG
	local label=$1 who=$2 mode=$3 pol=$4 config=$5 cmd=$6 pre=$7 msg=$8 ws out rc proof
	ws=$(new_repo "$who" "$config")
	prepare "$label" "$who" "$ws" "$pre" || return
	proof="$T/out/proof.$RANDOM$RANDOM"
	out=$(in_sandbox "$who" "$mode" "$ws" "$pol" "${cmd//PROOF/$proof}"); rc=$?
	expect_eq "$label: refused before launch (125)" 125 "$rc"
	case "$out" in *"$ws/.git/index: $msg (git's index format"*) ok "$label: the refusal says why";;
		*) not_ok "$label: the refusal says why" "$out";; esac
	host_git "$who" "$ws" status >/dev/null 2>&1
	[ ! -e "$proof" ] && ok "$label: the caller's git status runs nothing planted" \
		|| not_ok "$label: the caller's git ran what the sandbox planted" "$(cat "$proof")" "$out"
	rm -f "$proof"
}

attack() { # LABEL CALLER MODE POLICY CONFIG CMD [PRE]: the caller's git status and commit run nothing planted
	local label=$1 who=$2 mode=$3 pol=$4 config=$5 cmd=$6 pre=${7:-} ws out proof
	ws=$(new_repo "$who" "$config")
	prepare "$label" "$who" "$ws" "$pre" || return
	proof="$T/out/proof.$RANDOM$RANDOM"
	out=$(in_sandbox "$who" "$mode" "$ws" "$pol" "${cmd//PROOF/$proof}")
	[ "$(printf '%s\n' "$out" | grep -E '^(planted|done)' | tr '\n' ' ' | sed 's/ $//')" = done ] \
		&& ok "$label: the sandbox cannot plant it" || not_ok "$label: the sandbox cannot plant it" "$out"
	host_git "$who" "$ws" status >/dev/null 2>&1
	host_git "$who" "$ws" -c user.email=t@t -c user.name=t commit -q --allow-empty -m host >/dev/null 2>&1
	host_git "$who" "$ws" fetch -q >/dev/null 2>&1
	[ ! -e "$proof" ] && ok "$label: the caller's git status and commit run nothing planted" \
		|| not_ok "$label: the caller's git ran what the sandbox planted" "$(cat "$proof")" "$out"
	rm -f "$proof"
	echo "$ws" > "$T/out/last-ws"
}

row() { # CALLER IDENT MODE SHIPPED
	local who=$1 ident=$2 mode=$3 lb="$1/$2/$3/$4" pol ws
	pol=$(policy_for "$who" "$ident" "$4")
	attack "$lb: core.hooksPath .husky, missing" "$who" "$mode" "$pol" \
		$'[core]\n\thooksPath = .husky' "${ATTACK_HOOKS//DIR/.husky}"
	ws=$(cat "$T/out/last-ws")
	[ ! -e "$ws/.husky" ] && ok "$lb: the placeholder .husky is gone after the run" \
		|| not_ok "$lb: the placeholder .husky is gone after the run" "$(ls -la "$ws/.husky" 2>&1)"
	attack "$lb: core.hooksPath .husky/_, existing" "$who" "$mode" "$pol" \
		$'[core]\n\thooksPath = .husky/_' "${ATTACK_HOOKS//DIR/.husky/_}" 'mkdir -p .husky/_'
	attack "$lb: core.hooksPath with quotes and a comment" "$who" "$mode" "$pol" \
		$'[CORE]\n\tHooksPath = ".git"hooks ; husky' "${ATTACK_HOOKS//DIR/.githooks}"
	attack "$lb: include.path ../.gitconfig" "$who" "$mode" "$pol" \
		$'[include]\n\tpath = ../.gitconfig' "$ATTACK_INCLUDE"
	attack "$lb: includeIf gitdir ../.gitconfig" "$who" "$mode" "$pol" \
		$'[includeIf "gitdir:/nowhere/"]\n\tpath = ../.gitconfig' "$ATTACK_INCLUDE"
	attack "$lb: core.hooksPath from an included worktree file" "$who" "$mode" "$pol" \
		$'[include]\n\tpath = ../.gitconfig' "${ATTACK_HOOKS//DIR/.githooks}" \
		'printf "[core]\n\thooksPath = .githooks\n" > .gitconfig'
	attack "$lb: core.fsmonitor ./fsmon.sh" "$who" "$mode" "$pol" \
		$'[core]\n\tfsmonitor = ./fsmon.sh' "$ATTACK_FSMON"
	attack "$lb: core.fsmonitor sh fsmon.sh, existing" "$who" "$mode" "$pol" \
		$'[core]\n\tfsmonitor = sh fsmon.sh' "$ATTACK_FSMON" 'echo false > fsmon.sh'
	attack "$lb: remote.origin.uploadpack ./up.sh (git fetch)" "$who" "$mode" "$pol" \
		$'[remote "origin"]\n\turl = .\n\tuploadpack = ./up.sh' "${ATTACK_FSMON//fsmon.sh/up.sh}"
	attack "$lb: remote.origin.uploadpack sh up.sh, existing (git fetch)" "$who" "$mode" "$pol" \
		$'[remote "origin"]\n\turl = .\n\tuploadpack = sh up.sh' "${ATTACK_FSMON//fsmon.sh/up.sh}" 'echo false > up.sh'
	attack "$lb: core.hooksPath .husky of a core.worktree ../sub" "$who" "$mode" "$pol" \
		$'[core]\n\thooksPath = .husky\n\tworktree = ../sub' "${ATTACK_HOOKS//DIR/sub/.husky}" 'mkdir sub'
	attack "$lb: .git/hooks a symlink to ../.githooks" "$who" "$mode" "$pol" '' \
		"${ATTACK_HOOKS//DIR/.githooks}" 'rm -rf .git/hooks && ln -s ../.githooks .git/hooks'
	attack "$lb: .git/hooks/pre-commit a symlink to ../../hook.sh" "$who" "$mode" "$pol" '' \
		"${ATTACK_FSMON//fsmon.sh/hook.sh}" 'echo true > hook.sh && chmod +x hook.sh && ln -s ../../hook.sh .git/hooks/pre-commit'
	attack "$lb: a submodule's .git file" "$who" "$mode" "$pol" '' "$ATTACK_SUBMODULE" "$PRE_SUBMODULE"
	attack "$lb: a submodule in a split index of version 4" "$who" "$mode" "$pol" '' "$ATTACK_SUBMODULE" \
		"$PRE_SUBMODULE"' && git -c safe.directory="*" update-index --index-version 4 && git -c safe.directory="*" update-index --split-index && ls .git/sharedindex.* >/dev/null'
	attack "$lb: a submodule in an index of version 4 with an offset table" "$who" "$mode" "$pol" \
		$'[index]\n\tthreads = 3' "$ATTACK_SUBMODULE" "$PRE_SUBMODULE"' && git -c safe.directory="*" update-index --index-version 4 && echo a > a && echo b > b && echo c > c && git -c safe.directory="*" -c index.threads=3 -c index.recordEndOfIndexEntries=true -c index.recordOffsetTable=true add a b c && grep -q IEOT .git/index'
	attack_refused "$lb: a gitlink only a threaded git reads (an offset table)" "$who" "$mode" "$pol" \
		$'[index]\n\tthreads = 3' "$ATTACK_SUBMODULE" "$PRE_IEOT" \
		"an offset table (IEOT) block that does not start at its entry"
}

# A configuration the plan cannot read safely is refused before launch.
refusal() { # CALLER IDENT
	local who=$1 ident=$2 lb="$1/$2" pol ws out rc name
	pol=$(policy_for "$who" "$ident")
	ws=$(new_repo "$who" $'[core\n\thooksPath = .husky')
	out=$(in_sandbox "$who" run "$ws" "$pol" 'echo ran'); rc=$?
	expect_eq "$lb: an unparseable .git/config is refused (125)" 125 "$rc"
	case "$out" in *"$ws/.git/config:"*) ok "$lb: the refusal names the file and line";;
		*) not_ok "$lb: the refusal names the file and line" "$out";; esac
	ws=$(new_repo "$who" '')
	ln -s "$ws" "$ws.alias"
	printf '[core]\n\thooksPath = %s\n' "$ws.alias/.husky" >> "$ws/.git/config"
	for how in "a symlink to it" /proc/self/cwd; do
		hp="$ws.alias/.husky"
		[ "$how" = /proc/self/cwd ] && hp=/proc/self/cwd/.husky &&
			ws=$(new_repo "$who" "$(printf '[core]\n\thooksPath = %s' "$hp")")
		out=$(in_sandbox "$who" run "$ws" "$pol" 'echo ran'); rc=$?
		expect_eq "$lb: core.hooksPath naming the workspace through $how is refused (125)" 125 "$rc"
		case "$out" in *"core.hooksPath = $hp: it names a writable area through another spelling"*)
			ok "$lb: the refusal says why ($how)";;
			*) not_ok "$lb: the refusal says why ($how)" "$out";; esac
	done
	ws=$(new_repo "$who" "$(for i in $(seq 70); do printf '[include]\n\tpath = ../inc%d\n' "$i"; done)")
	out=$(in_sandbox "$who" run "$ws" "$pol" 'echo ran'); rc=$?
	expect_eq "$lb: more paths to protect than bind mounts is refused (125)" 125 "$rc"
	case "$out" in *"more paths to protect than a sandbox's 64 bind mounts allow"*) ok "$lb: the refusal says why (64 bind mounts)";;
		*) not_ok "$lb: the refusal says why (64 bind mounts)" "$out";; esac
	[ -z "$(ls "$ws")" ] && ok "$lb: no placeholder is left after the refusal" || not_ok "$lb: no placeholder is left after the refusal" "$(ls "$ws")"
	ws=$(new_repo "$who" '')
	printf 'DIRC\0\0\0\2\0\0\0\1%064d' 0 > "$ws/.git/index"
	out=$(in_sandbox "$who" run "$ws" "$pol" 'echo ran'); rc=$?
	expect_eq "$lb: an index it cannot read for submodules is refused (125)" 125 "$rc"
	case "$out" in *"$ws/.git/index: an entry runs past its end (git's index format"*) ok "$lb: the refusal names the index";;
		*) not_ok "$lb: the refusal names the index" "$out";; esac
	for how in "cut:an extended entry cut short:an entry runs past its end" \
		"flaglen:a name shorter than its flags say:a name whose length disagrees with its flags" \
		"eoie:an end-of-entries extension (EOIE) past the entries:an end-of-entries extension (EOIE) naming another offset than the entries' end" \
		"twolinks:two split index links:two \"link\" extensions"; do
		ws=$(new_repo "$who" '')
		craft_index "${how%%:*}" > "$ws/.git/index"
		how=${how#*:}
		out=$(in_sandbox "$who" run "$ws" "$pol" 'echo ran'); rc=$?
		expect_eq "$lb: an index with ${how%%:*} is refused (125)" 125 "$rc"
		case "$out" in *"$ws/.git/index: ${how#*:} (git's index format"*) ok "$lb: the refusal says why (${how%%:*})";;
			*) not_ok "$lb: the refusal says why (${how%%:*})" "$out";; esac
	done
	ws=$(new_repo "$who" $'[core]\n\thooksPath = .husky')
	ln -s /tmp "$ws/.husky"
	out=$(in_sandbox "$who" run "$ws" "$pol" 'echo ran'); rc=$?
	expect_eq "$lb: a symlinked core.hooksPath is refused (125)" 125 "$rc"
	case "$out" in *"core.hooksPath in $ws/.git/config:"*) ok "$lb: the refusal names the config line and key";;
		*) not_ok "$lb: the refusal names the config line and key" "$out";; esac
	ws=$(new_repo "$who" $'[core]\n\thooksPath = .husky')
	(cd "$ws" && as_caller "$who" "$T/bin/osb-isolate" run --result-fd 3 --policy "$pol" -- true \
		3>"$T/out/result.json" >/dev/null 2>&1)
	expect_eq "$lb: the result says what was protected and why" \
		"$ws/.husky because core.hooksPath in $ws/.git/config:$(grep -n hooksPath "$ws/.git/config" | cut -d: -f1)" \
		"$(python3 -c 'import json,sys; [print(p["path"], "because", p["because"]) for p in json.load(open(sys.argv[1])).get("protected", [])]' "$T/out/result.json")"
	name="gh-$$-$RANDOM"
	(cd "$ws" && as_caller "$who" "$T/bin/osb-isolate" session start --name "$name" --policy "$pol" >/dev/null 2>&1)
	SESSIONS="$SESSIONS $who=$name"
	as_caller "$who" "$T/bin/osb-isolate" session exec "$name" --json -- true > "$T/out/result.json" 2>/dev/null
	as_caller "$who" "$T/bin/osb-isolate" session stop "$name" >/dev/null 2>&1
	SESSIONS=${SESSIONS/ $who=$name/}
	expect_eq "$lb: a session command's result says what its start protected and why" \
		"$ws/.husky because core.hooksPath in $ws/.git/config:$(grep -n hooksPath "$ws/.git/config" | cut -d: -f1)" \
		"$(python3 -c 'import json,sys; [print(p["path"], "because", p["because"]) for p in json.load(open(sys.argv[1])).get("protected", [])]' "$T/out/result.json" 2>&1)"
}

echo "# git reads an index with an offset table two ways (what the plan refuses)"
ws=$(mktemp -d "$T/work.XXXXXX"); git -C "$ws" init -q; craft_index ieot > "$ws/.git/index"
expect_eq "a git without threads reads the entries one after the other" "a b" \
	"$(git -C "$ws" -c index.threads=1 ls-files 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"
expect_eq "a git with index.threads = 3 reads the offset table's blocks: a gitlink sub" "100644 a 160000 sub" \
	"$(git -C "$ws" -c index.threads=3 ls-files -s 2>/dev/null | awk '{print $1, $4}' | tr '\n' ' ' | sed 's/ $//')"
echo "# a repository's configuration naming worktree paths: callers x identity modes x run/session x shipped policies"
for who in root "$TEST_USER"; do
	for ident in userns root; do
		[ "$who" != root ] && [ "$ident" = root ] && continue
		if [ "$ident" = userns ] && ! test_have userns userns_ok "$who"; then continue; fi
		for mode in run session; do
			for shipped in strict balanced; do
				row "$who" "$ident" "$mode" "$shipped"
			done
		done
		refusal "$who" "$ident"
	done
done

echo "# githooks"
finish_suite "$pass" "$fail"

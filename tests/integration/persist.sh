#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# persist.sh — overlay layers kept in a caller's directory (--overlay-persist,
# osb_policy_set_overlay_persist, a request's "workspace.persist"): a run
# writes into the layer, a later session resumes it and sees the changes,
# lists them (session diff), commits them (the real workspace is then what
# the session saw, by a tree walk) and a discard empties the directory; the
# host workspace is unchanged until the commit; while a layer is in use a
# second sandbox on it is refused; the command cannot reach the layer except
# through the merged workspace (its hidden bind is gone from the mount table
# in root mode, and an empty read-only directory covered in user namespace
# mode, where the kernel keeps the locked mount listed); the directory is
# refused with exit 125 and the exact message when it is a symlink, owned
# by another uid, writable by others, inside the workspace or holding it,
# holding something else, or holding a layer of the other identity mode, and
# for a root caller on allocated ids; symlinks planted in the layer by its
# owner are committed as symlinks, never followed.
#
# Run by `make check`: as root it stages the programs into /tmp and runs the
# cases as root in both identity modes (the sandbox pinned to host ids that
# own the workspace and the layer), then as the unprivileged test user
# (userns mode); not root, it runs them as the current user. PERSIST_STAGE
# set means "run the cases". A host whose capabilities say the overlay
# workspace is unavailable in a mode skips that mode's cases, saying why.
set -uo pipefail
export LC_ALL=C
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if [ -z "${PERSIST_STAGE:-}" ]; then
	stage=$(stage_artifacts)
	trap 'rm -rf "$stage"' EXIT
	install -m 755 "$OSB_SRCDIR/tests/integration/persist.sh" "$stage/"
	run_staged_as_root_and_user persist.sh PERSIST_STAGE "$stage"
	exit
fi

S=$PERSIST_STAGE
OSB=$S/bin/osb-isolate
export OSB_ISOLATE_INIT=$S/bin/osb-isolate-init
export OSB_ISOLATE_POLICY_DIR=$S/policy
ME=$(id -un)
ROOT=false
[ "$(id -u)" -eq 0 ] && ROOT=true
T=$(mktemp -d /tmp/osb-persist.XXXXXX) || die "mktemp failed"
chmod 755 "$T"
RUN=$(mktemp -d /tmp/opr.XXXXXX) || die "mktemp failed"
export XDG_RUNTIME_DIR=$RUN
SESSIONS=()
cleanup() {
	for s in "${SESSIONS[@]}"; do "$OSB" session stop "$s" >/dev/null 2>&1; done
	rm -rf "$T" "$RUN"
}
trap cleanup EXIT

WHO=$ME

tree_state() {
	(cd "$1" && find . -printf '%y %m %U:%G %s %T@ %p -> %l\n' | sort &&
		find . -type f -print0 | sort -z | xargs -0 -r sha256sum)
}
WALK='find . -printf "%y %m %p -> %l\n" | LC_ALL=C sort; find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum'
host_walk() { (cd "$1" && sh -c "$WALK"); }

# A workspace and an empty layer directory; as root both belong to the
# pinned host ids 4242:4242.
make_ws() {
	WS=$(mktemp -d "$T/ws.XXXXXX")
	chmod 755 "$WS"
	printf 'alpha\n' >"$WS/a"
	printf 'gamma\n' >"$WS/c"
	mkdir "$WS/sub" "$WS/dir"
	printf 'beta\n' >"$WS/sub/b"
	printf 'x\n' >"$WS/dir/x"
	chmod 644 "$WS/a" "$WS/c" "$WS/sub/b" "$WS/dir/x"
	chmod 755 "$WS/sub" "$WS/dir"
	L=$(mktemp -d "$T/layer.XXXXXX")
	chmod 700 "$L"
	$ROOT && chown -R -h 4242:4242 "$WS" "$L"
	tree_state "$WS" >"$T/before"
}
host_unchanged() { # name
	tree_state "$WS" >"$T/after"
	if cmp -s "$T/before" "$T/after"; then pass "$1"
	else flunk "$1" "$(diff "$T/before" "$T/after" | head -20 | tr '\n' '|')"; fi
}

# policy NAME IDENTITY [EXTRA]: overlay workspace, pinned ids as root.
policy() {
	{
		printf 'osb-policy 1\ninclude %s/strict.policy\nworkspace overlay size=8MiB\nidentity %s\n' \
			"$OSB_ISOLATE_POLICY_DIR" "$2"
		$ROOT && printf 'host-ids 4242 4242\n'
		[ -n "${3:-}" ] && printf '%s\n' "$3"
	} >"$T/$1.policy"
	chmod 644 "$T/$1.policy"
	echo "$T/$1.policy"
}

probe_overlay_mode() { # MODE
	WHY=$("$OSB" capabilities --json 2>/dev/null | python3 -c 'import json, sys
m = sys.argv[1]
for it in json.load(sys.stdin)["items"]:
    if it["id"] == "overlay":
        part = [p for p in it["reason"].split("; ") if p.startswith(m + " mode:")]
        if part and "fails" not in part[0]:
            sys.exit(0)
        print("capabilities: overlay %s: %s" % (it["status"], it["reason"]))
        sys.exit(1)
print("capabilities has no overlay item")
sys.exit(1)' "$1")
}

CHANGE='set -e
echo modified >> a
rm sub/b
mv c c2
rm -r dir
echo now-a-file > dir
mkdir newdir
echo n > newdir/n'
VIEW='find . -printf "%y %m %p\n" | sort; cat a dir'
WANT_VIEW='d 755 .
d 755 ./newdir
d 755 ./sub
f 644 ./a
f 644 ./c2
f 644 ./dir
f 644 ./newdir/n
alpha
modified
now-a-file'
WANT_DIFF='M a (content)
D c
A c2
M dir (type dir -> file)
A newdir/
A newdir/n
D sub/b'

# What of the layer the command can find: the hidden bind's place, and
# every mount table line naming the layer's host path.
HIDDEN='ls -A /dev/.osb-layer; echo "entries: $?"; touch /dev/.osb-layer/x 2>/dev/null && echo wrote
grep -c -F "$1" /proc/self/mountinfo
grep " /dev/.osb-layer " /proc/self/mountinfo | awk "{ for (i = 7; i < NF; i++) if (\$i == \"-\") print \$5, \$(i + 1) }" | sort'

persist_case() { # identity
	local id=$1 mode=userns pol out rc name="ps$$-$1"
	[ "$id" = root ] && mode=root
	WHO="$ME, identity $id"
	make_ws
	pol=$(policy "p-$id" "$id")
	out=$(cd / && "$OSB" run -p "$pol" -w "$WS" --overlay-persist "$L" -- sh -c "$CHANGE" 2>&1); rc=$?
	expect_eq "run --overlay-persist: the command changes the workspace" "0:" "$rc:$out"
	host_unchanged "run --overlay-persist: the host workspace is unchanged"
	expect_eq "the layer directory holds the layer and says its identity mode" \
		"osb-layer upper work|osb-isolate overlay layer 1|mode $mode" \
		"$(cd "$L" && echo * | tr '\n' ' ' | sed 's/ $//')|$(tr '\n' '|' <"$L/osb-layer" | sed 's/|$//')"
	out=$(cd / && "$OSB" run -p "$pol" -w "$WS" --overlay-persist "$L" -- sh -c "$HIDDEN" sh "$L" 2>&1); rc=$?
	if [ "$mode" = root ]; then
		expect_eq "root mode: the hidden bind is gone (empty place, no mount table line names the layer)" \
			"0:entries: 0
0" "$rc:$out"
	else
		expect_eq "userns mode: the hidden bind is covered by an empty read-only tmpfs" \
			"0:entries: 0
1
/dev/.osb-layer ext4
/dev/.osb-layer tmpfs" "$rc:$out"
	fi
	out=$(cd / && "$OSB" run -p "$pol" -w "$WS" --overlay-persist "$L" -- sh -c "test -e '$L' && echo seen; cat /dev/.osb-layer/upper/a 2>&1 | head -c 0; ls /dev/.osb-layer/upper 2>&1 | head -c 0; echo done" 2>&1)
	expect_eq "the command cannot reach the layer by its host path nor the hidden place" "done" "$out"
	SESSIONS+=("$name")
	out=$(cd / && "$OSB" session start -n "$name" -p "$pol" -w "$WS" --overlay-persist "$L" 2>&1); rc=$?
	expect_eq "session start resumes the persisted layer" "0:$name" "$rc:$out"
	out=$("$OSB" session exec "$name" -- sh -c "$VIEW" 2>&1); rc=$?
	expect_eq "the session sees the run's changes" "0:$WANT_VIEW" "$rc:$out"
	out=$("$OSB" session diff "$name" 2>&1); rc=$?
	expect_eq "session diff lists the persisted changes" "0:$WANT_DIFF" "$rc:$out"
	out=$(cd / && "$OSB" run -p "$pol" -w "$WS" --overlay-persist "$L" -- true 2>&1); rc=$?
	expect_eq "a second sandbox on a layer in use is refused" \
		"125:osb-isolate: workspace: overlay persist directory $L: in use by another run or session; one sandbox at a time may use a layer: wait until it has ended" \
		"$rc:$out"
	"$OSB" session exec "$name" -- sh -c 'echo later > later'
	"$OSB" session stop "$name" >/dev/null 2>&1
	host_unchanged "after stop the host workspace is still unchanged"
	name="ps2$$-$1"
	SESSIONS+=("$name")
	out=$(cd / && "$OSB" session start -n "$name" -p "$pol" -w "$WS" --overlay-persist "$L" 2>&1); rc=$?
	expect_eq "session start resumes it again" "0:$name" "$rc:$out"
	local seen
	seen=$("$OSB" session exec "$name" -- sh -c "$WALK" 2>&1)
	"$OSB" session diff "$name" >/dev/null 2>&1
	out=$("$OSB" session commit "$name" 2>&1); rc=$?
	expect_eq "commit applies the persisted changes" "0:committed 8 changes to $WS" "$rc:$out"
	expect_eq "after commit the real workspace is what the session saw" "$seen" "$(host_walk "$WS")"
	tree_state "$WS" >"$T/before"
	# What the session makes read-only is emptied too.
	"$OSB" session exec "$name" -- sh -c 'mkdir -p ro/deep && echo z > ro/deep/z && chmod 555 ro/deep ro && chmod 000 newdir'
	out=$("$OSB" session discard "$name" 2>&1); rc=$?
	expect_eq "discard ends the session" "0:" "$rc:$out"
	expect_eq "discard empties the layer directory" "" "$(ls -A "$L")"
	host_unchanged "discard leaves the committed workspace as it is"
	out=$(cd / && "$OSB" run -p "$pol" -w "$WS" --overlay-persist "$L" -- sh -c "$VIEW" 2>&1); rc=$?
	expect_eq "a run on the emptied layer sees the committed workspace" "0:$(cd "$WS" && sh -c "$VIEW")" "$rc:$out"
	expect_eq "and starts a fresh layer there" "osb-layer upper work|" "$(cd "$L" && echo *)|$(ls -A "$L/upper")"
	expect_eq "no mount namespace holds an overlay of the workspace" "" \
		"$(grep -l " overlay .*lowerdir=$WS," /proc/[0-9]*/mountinfo 2>/dev/null)"
}

# Symlinks the layer's owner plants in it: resume and commit never follow them.
planted_case() { # identity
	local id=$1 pol out rc outside name="pp$$-$1"
	WHO="$ME, identity $id, planted symlinks"
	make_ws
	pol=$(policy "pl-$id" "$id")
	outside=$(mktemp -d "$T/outside.XXXXXX")
	printf 'keep\n' >"$outside/target"
	chmod -R a+rwX "$outside"
	tree_state "$outside" >"$T/outside.before"
	(cd / && "$OSB" run -p "$pol" -w "$WS" --overlay-persist "$L" -- sh -c 'echo n > n') >/dev/null 2>&1
	ln -s "$outside/target" "$L/upper/evil"
	ln -s "$outside" "$L/upper/sub"
	$ROOT && chown -h 4242:4242 "$L/upper/evil" "$L/upper/sub"
	SESSIONS+=("$name")
	out=$(cd / && "$OSB" session start -n "$name" -p "$pol" -w "$WS" --overlay-persist "$L" 2>&1); rc=$?
	expect_eq "session start on a layer with planted symlinks" "0:$name" "$rc:$out"
	"$OSB" session exec "$name" -- sh -c 'echo x > evil; echo y > sub/b' >/dev/null 2>&1
	out=$("$OSB" session diff "$name" 2>&1)
	expect_eq "the planted symlinks are listed as symlinks" "A evil -> $outside/target
A n
M sub -> $outside (type dir -> symlink)" "$out"
	out=$("$OSB" session commit "$name" 2>&1); rc=$?
	expect_eq "commit of the planted layer" "0:committed 3 changes to $WS" "$rc:$out"
	expect_eq "the planted symlinks are committed as symlinks" "$outside/target $outside" \
		"$(readlink "$WS/evil") $(readlink "$WS/sub")"
	tree_state "$outside" >"$T/outside.after"
	expect_eq "nothing outside the workspace was written" "" "$(diff "$T/outside.before" "$T/outside.after")"
	"$OSB" session stop "$name" >/dev/null 2>&1
	rm -rf "$L/upper"
	ln -s "$outside" "$L/upper"
	out=$(cd / && "$OSB" run -p "$pol" -w "$WS" --overlay-persist "$L" -- true 2>&1); rc=$?
	expect_eq "a layer whose upper is a symlink is refused" \
		"125:osb-isolate: workspace: overlay persist directory $L: upper is a symlink, not a directory: this is not a layer osb-isolate made; name an empty directory" \
		"$rc:$out"
	expect_eq "still nothing outside the workspace was written" "" "$(tree_state "$outside" | diff "$T/outside.before" -)"
}

refusal_cases() { # identity
	local id=$1 pol out rc d
	WHO="$ME, identity $id, refusals"
	make_ws
	pol=$(policy "r-$id" "$id")
	local pre="125:osb-isolate: workspace: overlay persist directory" owner=root
	$ROOT || owner="$ME (uid $(id -u))"
	ln -s "$L" "$T/link"
	out=$(cd / && "$OSB" run -p "$pol" -w "$WS" --overlay-persist "$T/link" -- true 2>&1); rc=$?
	expect_eq "a persist directory that is a symlink is refused" \
		"$pre $T/link: symlink \"link\" (owned by $owner) refused: paths are resolved without following symlinks; name the directory itself" \
		"$rc:$out"
	chmod 770 "$L"
	out=$(cd / && "$OSB" run -p "$pol" -w "$WS" --overlay-persist "$L" -- true 2>&1); rc=$?
	expect_eq "a persist directory its group may write is refused" \
		"$pre $L: writable by its group (mode 0770), who could change the layer a later session reads; chmod go-w" \
		"$rc:$out"
	chmod 700 "$L"
	# Nested either way (root's directories, which the path rules let
	# root's walk cross; the sandbox's ids may write the workspace).
	local w2 l2 wsmode=755
	$ROOT && wsmode=1777
	w2=$(mktemp -d "$T/w2.XXXXXX") && chmod "$wsmode" "$w2" && mkdir -m 700 "$w2/layer"
	out=$(cd / && "$OSB" run -p "$pol" -w "$w2" --overlay-persist "$w2/layer" -- true 2>&1); rc=$?
	expect_eq "a persist directory inside the workspace is refused" \
		"$pre $w2/layer: lies inside what the sandbox sees at $w2; the layer must be reached through the overlay only (and overlayfs refuses nested layers): choose a directory outside it" \
		"$rc:$out"
	l2=$(mktemp -d "$T/l2.XXXXXX") && chmod 700 "$l2" && mkdir -m "$wsmode" "$l2/ws"
	out=$(cd / && "$OSB" run -p "$pol" -w "$l2/ws" --overlay-persist "$l2" -- true 2>&1); rc=$?
	expect_eq "a persist directory holding the workspace is refused" \
		"$pre $l2: holds what the sandbox sees at $l2/ws; the layer must be reached through the overlay only (and overlayfs refuses nested layers): choose a directory apart from it" \
		"$rc:$out"
	mkdir "$L/ws"
	$ROOT && chown 4242:4242 "$L/ws"
	out=$(cd / && "$OSB" run -p "$pol" -w "$WS" --overlay-persist "$L" -- true 2>&1); rc=$?
	expect_eq "a persist directory holding something else is refused" \
		"$pre $L: holds \"ws\", which is not part of an overlay layer (upper, work, osb-layer): name an empty directory, or one an earlier run or session persisted" \
		"$rc:$out"
	rmdir "$L/ws"
	out=$(cd / && "$OSB" run -p "$pol" --workspace-mode ro -w "$WS" --overlay-persist "$L" -- true 2>&1); rc=$?
	expect_eq "--overlay-persist without an overlay workspace is refused" \
		"125:osb-isolate: workspace: overlay persist directory $L: the workspace is not an overlay (\"workspace overlay\", --workspace-mode overlay); only an overlay has a layer to keep" \
		"$rc:$out"
	expect_eq "refusals leave the layer directory empty" "" "$(ls -A "$L")"
	host_unchanged "refusals leave the host workspace unchanged"
	$ROOT || return 0
	chown 4243:4243 "$L"
	out=$(cd / && "$OSB" run -p "$pol" -w "$WS" --overlay-persist "$L" -- true 2>&1); rc=$?
	expect_eq "a persist directory of another uid is refused" \
		"$pre $L: owned by uid 4243, not by the sandbox's host uid 4242 (pinned): the layer's files are the sandbox's; chown it to 4242 or name a directory of its own" \
		"$rc:$out"
	chown 4242:4242 "$L"
	printf 'osb-policy 1\ninclude %s/strict.policy\nworkspace overlay\nidentity %s\n' \
		"$OSB_ISOLATE_POLICY_DIR" "$id" >"$T/alloc.policy"
	chmod 1777 "$WS"
	# (In userns mode an overlay on allocated ids is refused before: overlay.sh.)
	if [ "$id" = root ]; then
		out=$(cd / && "$OSB" run -p "$T/alloc.policy" -w "$WS" --overlay-persist "$L" -- true 2>&1); rc=$?
		expect_eq "a root caller's sandbox on allocated ids cannot persist" \
			"125:osb-isolate: workspace: overlay persist directory $L: a root caller's sandbox runs as host ids allocated for it, which are freed when it ends, and the next sandbox gets others: the layer's files would belong to nobody's ids; pin the ids (\"host-ids UID GID\", osb_policy_set_host_ids, a request's host_uid and host_gid) and give the directory to them" \
			"$rc:$out"
	fi
	chmod 755 "$WS"
}

# A layer made in one identity mode is refused in the other (root only:
# an unprivileged caller has user namespace mode alone).
other_mode_case() {
	local out rc
	WHO="$ME, identity modes"
	make_ws
	(cd / && "$OSB" run -p "$(policy m-root root)" -w "$WS" --overlay-persist "$L" -- sh -c 'echo r > r') >/dev/null 2>&1
	out=$(cd / && "$OSB" run -p "$(policy m-userns userns)" -w "$WS" --overlay-persist "$L" -- true 2>&1); rc=$?
	expect_eq "a root-mode layer is refused in user namespace mode" \
		"125:osb-isolate: workspace: overlay persist directory $L: holds a layer made in root mode, whose overlayfs attributes (trusted.overlay.*) user namespace mode would not read: resume it in root mode (identity root), or name another directory" \
		"$rc:$out"
	make_ws
	(cd / && "$OSB" run -p "$(policy m-userns userns)" -w "$WS" --overlay-persist "$L" -- sh -c 'echo u > u') >/dev/null 2>&1
	out=$(cd / && "$OSB" run -p "$(policy m-root root)" -w "$WS" --overlay-persist "$L" -- true 2>&1); rc=$?
	expect_eq "a user-namespace layer is refused in root mode" \
		"125:osb-isolate: workspace: overlay persist directory $L: holds a layer made in userns mode, whose overlayfs attributes (user.overlay.*) root mode would not read: resume it in userns mode (identity userns), or name another directory" \
		"$rc:$out"
}

caps_case() {
	local out
	WHO="$ME, capabilities"
	out=$("$OSB" capabilities --json | python3 -c 'import json,sys
for it in json.load(sys.stdin)["items"]:
    if it["id"] == "persist": print(it["status"], it["remedy"])' 2>&1)
	expect_eq "capabilities: persist is ok here" "ok None" "$out"
}

modes=(userns)
$ROOT && modes+=(root)
have=0
for id in "${modes[@]}"; do
	if test_have "overlay-$id" probe_overlay_mode "$id"; then
		have=$((have + 1))
		persist_case "$id"
		planted_case "$id"
		refusal_cases "$id"
	fi
done
[ "$have" -eq 2 ] && other_mode_case
[ "$have" -gt 0 ] && caps_case
finish_suite "$((n - failures))" "$failures"

#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# overlay.sh — overlay workspaces end to end ("workspace overlay",
# --workspace-mode overlay): in a run and in a session the command creates,
# modifies, deletes, renames, chmods, symlinks, hard-links and replaces a
# directory in the workspace and sees its writes (a session across
# commands); the host's workspace is unchanged byte for byte (a tree listing
# with type, mode, owner, size, times and the sha256 of every file, before
# and after); no mount namespace holds the overlay once the run or the
# session has ended; the upper layer is bounded by its size; the result JSON
# names the mode; a host without overlayfs (tests/integration/nooverlay.c, a
# seccomp filter that fails fsopen with ENODEV) is refused with exit 125 and
# the exact message, and nothing runs. A session's holder maps libarchive
# only once it writes an archive, and an unusable copy refuses the archive
# alone.
#
# Run by `make check`: as root it stages the programs into /tmp and runs the
# cases as root in both identity modes (userns and root, the sandbox pinned
# to host ids that own the workspace), then as the unprivileged test user
# (userns mode); not root, it runs them as the current user. OVERLAY_STAGE
# set means "run the cases" (the staged copy). A host whose capabilities say
# the overlay workspace is unavailable skips the positive cases, saying why.
set -uo pipefail
export LC_ALL=C
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if [ -z "${OVERLAY_STAGE:-}" ]; then
	: "${OSB_BUILDDIR:?OSB_BUILDDIR must point at the build tree (make check sets it)}"
	: "${OSB_SRCDIR:?OSB_SRCDIR must point at the source tree (make check sets it)}"
	stage=$(stage_artifacts)
	trap 'rm -rf "$stage"' EXIT
	[ -x "$OSB_BUILDDIR/tests/integration/nooverlay" ] ||
		die "$OSB_BUILDDIR/tests/integration/nooverlay is missing: build first (make check builds it)"
	install -m 755 "$OSB_BUILDDIR/tests/integration/nooverlay" "$stage/bin/"
	install -m 755 "$OSB_SRCDIR/tests/integration/overlay.sh" "$stage/"
	install -m 644 "$OSB_SRCDIR/docs/changes.schema.json" "$OSB_SRCDIR/docs/commit.schema.json" "$stage/"
	run_staged_as_root_and_user overlay.sh OVERLAY_STAGE "$stage"
	exit
fi

S=$OVERLAY_STAGE
OSB=$S/bin/osb-isolate
NOOVERLAY=$S/bin/nooverlay
export OSB_ISOLATE_INIT=$S/bin/osb-isolate-init
export OSB_ISOLATE_POLICY_DIR=$S/policy
ME=$(id -un)
T=$(mktemp -d /tmp/osb-overlay.XXXXXX) || die "mktemp failed"
chmod 755 "$T"
# Session sockets need a short path (sun_path).
RUN=$(mktemp -d /tmp/ovr.XXXXXX) || die "mktemp failed"
export XDG_RUNTIME_DIR=$RUN
SESSIONS=()
cleanup() {
	for s in "${SESSIONS[@]}"; do "$OSB" session stop "$s" >/dev/null 2>&1; done
	rm -rf "$T" "$RUN"
}
trap cleanup EXIT

WHO=$ME

# The host's view of a tree: type, mode, owner, size, modification and
# change times, link target, then the sha256 of every regular file.
tree_state() {
	(cd "$1" && find . -printf '%y %m %U:%G %s %T@ %C@ %p -> %l\n' | sort &&
		find . -type f -print0 | sort -z | xargs -0 -r sha256sum)
}

# A workspace with one of everything the command will change. As root the
# sandbox is pinned to host ids 4242:4242, which own it (a root caller's
# sandbox otherwise runs as ids that own nothing).
make_ws() {
	WS=$(mktemp -d "$T/ws.XXXXXX")
	chmod 755 "$WS"
	printf 'alpha\n' >"$WS/a"
	printf 'gamma\n' >"$WS/c"
	printf 'epsilon\n' >"$WS/e"
	mkdir "$WS/sub" "$WS/dir" "$WS/opq"
	printf 'beta\n' >"$WS/sub/b"
	printf 'x\n' >"$WS/dir/x"
	printf 'p\n' >"$WS/opq/p"
	printf 'q\n' >"$WS/opq/q"
	ln -s a "$WS/link"
	chmod 644 "$WS/a" "$WS/c" "$WS/e" "$WS/sub/b" "$WS/dir/x" "$WS/opq/p" "$WS/opq/q"
	chmod 755 "$WS/sub" "$WS/dir" "$WS/opq"
	[ "$(id -u)" -eq 0 ] && chown -R -h 4242:4242 "$WS"
	tree_state "$WS" >"$T/before"
}

host_unchanged() { # name
	tree_state "$WS" >"$T/after"
	if cmp -s "$T/before" "$T/after"; then
		pass "$1"
	else
		flunk "$1" "$(diff "$T/before" "$T/after" | head -20 | tr '\n' '|')"
	fi
}

# Every mount namespace on the host that still holds an overlay of WS.
overlay_holders() {
	grep -l " overlay .*lowerdir=$WS," /proc/[0-9]*/mountinfo 2>/dev/null | sort -u | tr '\n' ' '
}

# policy NAME IDENTITY [SIZE]: a policy in the staged policy directory.
policy() {
	{
		printf 'osb-policy 1\ninclude %s/strict.policy\nworkspace overlay size=%s\nidentity %s\n' \
			"$OSB_ISOLATE_POLICY_DIR" "${3:-8MiB}" "$2"
		[ "$(id -u)" -eq 0 ] && printf 'host-ids 4242 4242\n'
	} >"$T/$1.policy"
	chmod 644 "$T/$1.policy"
	echo "$T/$1.policy"
}

# What the command does to the workspace, then what it sees there.
CHANGE='set -e
echo modified >> a
rm sub/b
mv c c2
chmod 600 e
ln -s c2 newlink
ln a hard
rm -r dir
echo now-a-file > dir
rm -r opq
mkdir opq
echo q > opq/q
echo y > opq/y
mkdir newdir
echo n > newdir/n
echo new > new'
VIEW='find . -printf "%y %m %p %l\n" | sort; cat a hard dir'
WANT_VIEW='d 755 . 
d 755 ./newdir 
d 755 ./opq 
d 755 ./sub 
f 600 ./e 
f 644 ./a 
f 644 ./c2 
f 644 ./dir 
f 644 ./hard 
f 644 ./new 
f 644 ./newdir/n 
f 644 ./opq/q 
f 644 ./opq/y 
l 777 ./link a
l 777 ./newlink c2
alpha
modified
alpha
modified
now-a-file'

# What `session diff` lists after CHANGE: rm -r then mkdir makes opq an
# opaque directory (its q is the same again, p is gone), sub keeps its
# mode (no entry of its own), hard is another name of a.
WANT_DIFF='M a (content)
D c
A c2
M dir (type dir -> file)
M e (mode 0644 -> 0600)
A hard (hard link of a)
A new
A newdir/
A newdir/n
A newlink -> c2
D opq/p
A opq/y
D sub/b'
# The same list from `session diff --json`, one line per change: path,
# change, what, type, old_type, mode, old_mode, size, target, hardlink.
WANT_JSON='a modified content file file 0644 0644 15 None None
c deleted - None file None 0644 0 None None
c2 added - file None 0644 None 6 None None
dir modified type file dir 0644 0755 11 None None
e modified mode file file 0600 0644 8 None None
hard added - file None 0644 None 15 None a
new added - file None 0644 None 4 None None
newdir added - dir None 0755 None 0 None None
newdir/n added - file None 0644 None 2 None None
newlink added - symlink None 0777 None 2 c2 None
opq/p deleted - None file None 0644 0 None None
opq/y added - file None 0644 None 2 None None
sub/b deleted - None file None 0644 0 None None
summary 7 3 3'
json_lines() { # the --json document on stdin, as WANT_JSON spells it; checked against the schema
	python3 -c 'import json, sys
import jsonschema
d = json.load(sys.stdin)
jsonschema.validate(d, json.load(open(sys.argv[1])))
for c in d["changes"]:
    print(c["path"], c["change"], ",".join(c["what"]) or "-", c["type"], c["old_type"], c["mode"],
          c["old_mode"], c["size"], c["target"], c["hardlink"])
s = d["summary"]
print("summary", s["added"], s["modified"], s["deleted"])' "$S/changes.schema.json"
}

# `session diff --tar FILE` listed with `tar -tvf`: type and mode, size,
# name (dates and owners vary). A deletion is an empty ".wh.NAME".
WANT_TAR='-rw-r--r-- 15 a
-rw-r--r-- 0 .wh.c
-rw-r--r-- 6 c2
-rw-r--r-- 11 dir
-rw------- 8 e
hrw-r--r-- 0 hard link to a
-rw-r--r-- 4 new
drwxr-xr-x 0 newdir/
-rw-r--r-- 2 newdir/n
lrwxrwxrwx 0 newlink -> c2
-rw-r--r-- 0 opq/.wh.p
-rw-r--r-- 2 opq/y
-rw-r--r-- 0 sub/.wh.b'
tar_listing() { # FILE
	tar --numeric-owner -tvf "$1" | awk '{ printf "%s %s", $1, $3; for (i = 6; i <= NF; i++) printf " %s", $i; print "" }'
}

probe_overlay_mode() { # MODE: does `capabilities` say the overlay workspace mounts in MODE?
	local j
	j=$("$OSB" capabilities --json 2>/dev/null)
	WHY=$(printf '%s' "$j" | python3 -c 'import json, sys
m = sys.argv[1]
for it in json.load(sys.stdin)["items"]:
    if it["id"] == "overlay":
        part = [p for p in it["reason"].split("; ") if p.startswith(m + " mode:")]
        if part and "fails" not in part[0]:
            sys.exit(0)
        print("capabilities: overlay %s: %s; remedy: %s" % (it["status"], it["reason"], it["remedy"]))
        sys.exit(1)
print("capabilities has no overlay item")
sys.exit(1)' "$1")
}

# ---- runs --------------------------------------------------------------------------

run_case() { # identity
	local id=$1 pol out rc
	WHO="$ME, identity $id"
	make_ws
	pol=$(policy "run-$id" "$id")
	out=$(cd / && "$OSB" run -p "$pol" -w "$WS" -- sh -c "$CHANGE
$VIEW" 2>&1); rc=$?
	expect_eq "run: the command changes its overlay workspace and sees the changes (exit $rc)" \
		"0:$WANT_VIEW" "$rc:$out"
	host_unchanged "run: the host workspace is unchanged byte for byte"
	expect_eq "run: no mount namespace holds the overlay after the run" "" "$(overlay_holders)"
	out=$(cd / && "$OSB" explain --host --workspace "$WS" "$pol" 2>&1 | grep '^workspace: ')
	expect_eq "explain --host names the overlay" \
		"workspace: $WS (overlay: the read-only lower layer; writes go to a private layer that ends with the sandbox)" \
		"$out"
	out=$(cd / && "$OSB" run --json -p "$pol" -w "$WS" -- true 2>&1)
	expect_eq "run --json: the result says workspace_mode overlay" "overlay" \
		"$(printf '%s' "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("workspace_mode"))' 2>&1)"
	# The upper layer holds what its size allows, no more.
	out=$(cd / && "$OSB" run -p "$(policy "small-$id" "$id" 1MiB)" -w "$WS" -- \
		sh -c 'head -c 2097152 /dev/zero > big 2>/dev/null; echo $?; rm big; head -c 65536 /dev/zero > small && echo ok' 2>&1); rc=$?
	expect_eq "run: writes beyond the upper layer's size fail, smaller ones work" "0:1
ok" "$rc:$out"
	host_unchanged "run: still unchanged after the size case"
}

# The strict policy (workspace rw); as root in root mode: in user namespace
# mode a root caller's allocated ids cannot have an overlay (session_alloc_case).
rw_policy() {
	POPT=()
	[ "$(id -u)" -eq 0 ] || return 0
	printf 'osb-policy 1\ninclude %s/strict.policy\nidentity root\n' "$OSB_ISOLATE_POLICY_DIR" \
		>"$T/rwroot.policy"
	POPT=(-p "$T/rwroot.policy")
}

run_mode_option() {
	local out rc
	WHO="$ME, --workspace-mode"
	make_ws
	rw_policy
	[ "$(id -u)" -eq 0 ] && chmod 1777 "$WS" && tree_state "$WS" >"$T/before"
	out=$(cd "$WS" && "$OSB" run "${POPT[@]}" --workspace-mode overlay -- sh -c 'echo hi > fresh && cat fresh' 2>&1); rc=$?
	expect_eq "run --workspace-mode overlay under a rw policy writes privately" "0:hi" "$rc:$out"
	host_unchanged "run --workspace-mode overlay: the host workspace is unchanged"
	printf 'osb-policy 1\ninclude %s/strict.policy\nworkspace ro\n' "$OSB_ISOLATE_POLICY_DIR" \
		>"$T/ro.policy"
	out=$(cd "$WS" && "$OSB" run -p "$T/ro.policy" --workspace-mode overlay -- true 2>&1); rc=$?
	expect_eq "run --workspace-mode overlay under \"workspace ro\" is refused (narrow-only)" \
		"125:osb-isolate: policy: --workspace-mode: \"overlay\" is refused: the policy has \"workspace ro\" ($T/ro.policy:3), and a caller may only narrow it" \
		"$rc:$out"
}

# ---- sessions ------------------------------------------------------------------------

session_case() { # identity
	local id=$1 name="ov$$-$id" pol out rc holders
	WHO="$ME, identity $id, session"
	make_ws
	pol=$(policy "sess-$id" "$id")
	SESSIONS+=("$name")
	out=$(cd / && "$OSB" session start -n "$name" -p "$pol" -w "$WS" 2>&1); rc=$?
	expect_eq "session start with an overlay workspace" "0:$name" "$rc:$out"
	out=$("$OSB" session exec "$name" -- sh -c "$CHANGE" 2>&1); rc=$?
	expect_eq "session: the first command changes the workspace" "0:" "$rc:$out"
	out=$("$OSB" session exec "$name" -- sh -c "$VIEW" 2>&1); rc=$?
	expect_eq "session: a later command sees the first one's changes" "0:$WANT_VIEW" "$rc:$out"
	out=$("$OSB" session diff "$name" 2>&1); rc=$?
	expect_eq "session diff: the exact list of changes" "0:$WANT_DIFF" "$rc:$out"
	out=$("$OSB" session diff "$name" --json 2>&1 | json_lines 2>&1); rc=$?
	expect_eq "session diff --json: the same list, valid against docs/changes.schema.json" \
		"0:$WANT_JSON" "$rc:$out"
	export_case "$name"
	host_unchanged "session: the host workspace is unchanged while the session runs"
	holders=$(overlay_holders)
	if [ -n "$holders" ]; then pass "session: the overlay is found while the session runs"
	else flunk "session: the overlay is found while the session runs" "no /proc/*/mountinfo shows it"; fi
	"$OSB" session stop "$name" >/dev/null 2>&1
	host_unchanged "session: the host workspace is unchanged after stop"
	for _ in $(seq 100); do [ -z "$(overlay_holders)" ] && break; sleep 0.05; done
	expect_eq "session: no mount namespace holds the overlay after stop" "" "$(overlay_holders)"
}

session_mode_option() {
	local name="ovm$$" out rc
	WHO="$ME, session --workspace-mode"
	make_ws
	rw_policy
	[ "$(id -u)" -eq 0 ] && chmod 1777 "$WS" && tree_state "$WS" >"$T/before"
	SESSIONS+=("$name")
	out=$(cd / && "$OSB" session start "${POPT[@]}" -n "$name" -w "$WS" --workspace-mode overlay 2>&1); rc=$?
	expect_eq "session start --workspace-mode overlay" "0:$name" "$rc:$out"
	out=$("$OSB" session exec "$name" -- sh -c 'echo s > fresh; cat fresh' 2>&1); rc=$?
	expect_eq "session --workspace-mode overlay: the command writes" "0:s" "$rc:$out"
	"$OSB" session stop "$name" >/dev/null 2>&1
	host_unchanged "session --workspace-mode overlay: the host workspace is unchanged"
	name="ovrw$$"
	SESSIONS+=("$name")
	out=$(cd / && "$OSB" session start -n "$name" -w "$WS" 2>&1); rc=$?
	expect_eq "session start with a rw workspace" "0:$name" "$rc:$out"
	out=$("$OSB" session diff "$name" 2>&1); rc=$?
	expect_eq "session diff of a session without an overlay is refused with 125" \
		"125:osb-isolate: session: osb_session_diff: the session's workspace is not an overlay (\"workspace overlay\", --workspace-mode overlay)" \
		"$rc:$out"
	"$OSB" session stop "$name" >/dev/null 2>&1
	out=$("$OSB" session diff "$name" 2>&1); rc=$?
	expect_eq "session diff of a session that has ended" \
		"125:osb-isolate: session: no session named $name (osb-isolate session list shows the running ones)" \
		"$rc:$out"
}

# A root caller's sandbox on ids allocated for it (no host-ids): they own
# nothing, so the changes happen in a directory everyone may write.
make_alloc_ws() {
	make_ws
	chmod 1777 "$WS"
	mkdir -p "$WS/w/sub" "$WS/w/dir" "$WS/w/opq"
	printf 'alpha\n' >"$WS/w/a"; printf 'gamma\n' >"$WS/w/c"; printf 'beta\n' >"$WS/w/sub/b"
	printf 'x\n' >"$WS/w/dir/x"; printf 'p\n' >"$WS/w/opq/p"
	find "$WS/w" -type d -exec chmod 777 {} + && find "$WS/w" -type f -exec chmod 666 {} +
	tree_state "$WS" >"$T/before"
}
CHANGE_ALLOC='set -e
cd w
echo modified >> a
rm sub/b
mv c c2
echo n > n
chmod 600 n
ln -s c2 newlink
ln a hard
rm -r dir
echo f > dir
rm -r opq
mkdir opq
echo y > opq/y'
WANT_ALLOC='M w/a (content)
D w/c
A w/c2
M w/dir (type dir -> file)
A w/hard (hard link of w/a)
A w/n
A w/newlink -> c2
M w/opq/ (mode 0777 -> 0755)
D w/opq/p
A w/opq/y
D w/sub/b'

# In user namespace mode only the allocated ids are mapped, and they own
# nothing: overlayfs could copy up no existing entry (EOVERFLOW), so the
# launch refuses the combination, run and session alike, before anything runs.
ALLOC_USERNS_REFUSED='overlay workspace in user namespace mode on host ids allocated for the sandbox: overlayfs copies an existing file up only when the sandbox'"'"'s user namespace maps its owner, and allocated ids own nothing (every change to an existing entry would fail with EOVERFLOW); pin ids that own the workspace ("host-ids UID GID"), or use "identity root"'

session_alloc_case() { # identity
	local id=$1 name="ova$$-$1" out rc
	WHO="$ME, identity $id, allocated ids, session"
	make_alloc_ws
	printf 'osb-policy 1\ninclude %s/strict.policy\nworkspace overlay size=8MiB\nidentity %s\n' \
		"$OSB_ISOLATE_POLICY_DIR" "$id" >"$T/alloc-$id.policy"
	SESSIONS+=("$name")
	if [ "$id" = userns ]; then
		out=$(cd / && "$OSB" session start -n "$name" -p "$T/alloc-$id.policy" -w "$WS" 2>&1); rc=$?
		expect_eq "session start on allocated ids in userns mode is refused with 125" \
			"125:osb-isolate: session: cannot start session $name: workspace: $ALLOC_USERNS_REFUSED" "$rc:$out"
		out=$(cd / && "$OSB" run -p "$T/alloc-$id.policy" -w "$WS" -- sh -c 'echo ran > ran' 2>&1); rc=$?
		expect_eq "run on allocated ids in userns mode is refused with 125" \
			"125:osb-isolate: workspace: $ALLOC_USERNS_REFUSED" "$rc:$out"
		host_unchanged "refused on allocated ids: the host workspace is unchanged"
		return
	fi
	out=$(cd / && "$OSB" session start -n "$name" -p "$T/alloc-$id.policy" -w "$WS" 2>&1); rc=$?
	expect_eq "session start on allocated ids" "0:$name" "$rc:$out"
	out=$("$OSB" session exec "$name" -- sh -c "$CHANGE_ALLOC" 2>&1); rc=$?
	expect_eq "session on allocated ids: the command changes the workspace" "0:" "$rc:$out"
	out=$("$OSB" session diff "$name" 2>&1); rc=$?
	expect_eq "session diff on allocated ids: the exact list" "0:$WANT_ALLOC" "$rc:$out"
	"$OSB" session stop "$name" >/dev/null 2>&1
	host_unchanged "session on allocated ids: the host workspace is unchanged"
}

# The changes as a tar archive (libarchive), to a file and to a pipe; then
# what cannot be archived is refused before anything is written.
export_case() { # session
	local name=$1 out rc
	rm -f "$T/changes.tar"
	out=$("$OSB" session diff "$name" --tar "$T/changes.tar" 2>&1); rc=$?
	expect_eq "session diff --tar FILE writes the archive" "0:" "$rc:$out"
	expect_eq "tar -tvf lists the changes, deletions as .wh. entries" "$WANT_TAR" "$(tar_listing "$T/changes.tar" 2>&1)"
	out=$(tar -xOf "$T/changes.tar" a dir opq/y 2>&1)
	expect_eq "the archive holds the session's bytes" "alpha
modified
now-a-file
y" "$out"
	out=$("$OSB" session diff "$name" --tar - | tar -tf - 2>&1 | wc -l)
	expect_eq "session diff --tar - writes the same archive to a pipe" "13" "$out"
	"$OSB" session exec "$name" -- python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind("sock")'
	out=$("$OSB" session diff "$name" --tar "$T/refused.tar" 2>&1); rc=$?
	expect_eq "a socket cannot be archived: refused with 125" \
		"125:osb-isolate: session: overlay workspace: sock: a socket cannot be exported; remove it in the session" "$rc:$out"
	expect_eq "a refused archive leaves no file" "absent" "$([ -e "$T/refused.tar" ] && echo present || echo absent)"
	"$OSB" session exec "$name" -- sh -c 'rm sock && echo x > .wh.x'
	out=$("$OSB" session diff "$name" --tar "$T/refused.tar" 2>&1); rc=$?
	expect_eq "a name starting with .wh. is refused: it would read as a deletion" \
		"125:osb-isolate: session: overlay workspace: .wh.x: a name starting with \".wh.\" cannot be exported (the archive spells deletions so); rename it in the session" "$rc:$out"
	"$OSB" session exec "$name" -- rm .wh.x
}

# ---- commit and discard ---------------------------------------------------------------

# A tree as a walk sees it: type, mode, path, symlink target, then the
# sha256 of every regular file; run the same way in the session and on the host.
WALK='find . -printf "%y %m %p -> %l\n" | LC_ALL=C sort; find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum'
host_walk() { (cd "$1" && sh -c "$WALK"); }

commit_case() { # identity
	local id=$1 name="ovc$$-$1" pol out rc seen
	WHO="$ME, identity $id, commit"
	make_ws
	pol=$(policy "commit-$id" "$id")
	SESSIONS+=("$name")
	out=$(cd / && "$OSB" session start -n "$name" -p "$pol" -w "$WS" 2>&1) || { flunk "commit: session start" "$out"; return; }
	"$OSB" session exec "$name" -- sh -c "$CHANGE
mkdir -p deep/er && echo z > deep/er/z && chmod 555 deep && mkfifo fifo && ln -s nowhere dangling"
	seen=$("$OSB" session exec "$name" -- sh -c "$WALK" 2>&1)
	"$OSB" session exec "$name" -- sleep 30 & local bg=$!
	for _ in $(seq 50); do [ "$("$OSB" session list --json | python3 -c 'import json,sys; print([s["running"] for s in json.load(sys.stdin) if s["id"] == sys.argv[1]][0])' "$name" 2>/dev/null)" = 1 ] && break; sleep 0.1; done
	out=$("$OSB" session commit "$name" 2>&1); rc=$?
	expect_eq "commit is refused while a command runs" \
		"125:osb-isolate: session: 1 command runs in the session; wait until it has ended" "$rc:$out"
	host_unchanged "commit: a refused commit changes nothing"
	kill "$bg"; wait "$bg" 2>/dev/null
	"$OSB" session diff "$name" >/dev/null 2>&1
	for _ in $(seq 50); do "$OSB" session commit "$name" --json >"$T/report.json" 2>"$T/commit.err" && break; sleep 0.1; done
	out=$(python3 -c 'import json, sys
import jsonschema
r = json.load(open(sys.argv[1]))
jsonschema.validate(r, json.load(open(sys.argv[2])))
print(r["committed"], r["changes"], len(r["applied"]), r["not_applied"], r["failed"], r["notes"])' "$T/report.json" "$S/commit.schema.json" 2>&1)
	expect_eq "commit --json: the report (docs/commit.schema.json) says everything was applied" \
		"True 18 18 [] None []" "$out"
	expect_eq "after commit the real workspace is what the session saw, byte for byte" "$seen" "$(host_walk "$WS")"
	out=$("$OSB" session diff "$name" 2>&1); rc=$?
	expect_eq "after commit the session and the workspace agree: nothing to diff" "0:" "$rc:$out"
	out=$("$OSB" session exec "$name" -- sh -c 'echo later > later && cat a' 2>&1); rc=$?
	expect_eq "the session goes on after a commit" "0:alpha
modified" "$rc:$out"
	expect_eq "and lists its later changes" "A later" "$("$OSB" session diff "$name" 2>&1)"
	"$OSB" session stop "$name" >/dev/null 2>&1
	[ -e "$WS/later" ] && flunk "a later change is not committed by stop" || pass "a later change is not committed by stop"
	chmod -R u+w "$WS" 2>/dev/null
}

discard_case() { # identity
	local id=$1 name="ovd$$-$1" pol out rc
	WHO="$ME, identity $id, discard"
	make_ws
	pol=$(policy "discard-$id" "$id")
	SESSIONS+=("$name")
	out=$(cd / && "$OSB" session start -n "$name" -p "$pol" -w "$WS" 2>&1) || { flunk "discard: session start" "$out"; return; }
	"$OSB" session exec "$name" -- sh -c "$CHANGE"
	out=$("$OSB" session discard "$name" 2>&1); rc=$?
	expect_eq "session discard ends the session" "0:" "$rc:$out"
	host_unchanged "discard leaves the real workspace unchanged"
	out=$("$OSB" session exec "$name" -- true 2>&1); rc=$?
	expect_eq "a discarded session is gone" \
		"125:osb-isolate: session: no session named $name (osb-isolate session list shows the running ones)" "$rc:$out"
}

# What a hostile session can leave in its layer must not make a commit read
# or write outside the workspace: symlinks to a host directory (as a file
# and in place of a directory), a hard link to a host file, a FIFO, a
# whiteout made by hand, a socket (refused, and then nothing is applied).
attack_case() { # identity
	local id=$1 name="ovx$$-$1" pol out rc outside
	WHO="$ME, identity $id, hostile layer"
	make_ws
	outside=$(mktemp -d "$T/outside.XXXXXX")
	printf 'keep\n' >"$outside/target"
	chmod -R a+rwX "$outside"
	tree_state "$outside" >"$T/outside.before"
	sha256sum /etc/passwd >"$T/passwd.before"
	pol=$(policy "attack-$id" "$id")
	SESSIONS+=("$name")
	out=$(cd / && "$OSB" session start -n "$name" -p "$pol" -w "$WS" 2>&1) || { flunk "attack: session start" "$out"; return; }
	out=$("$OSB" session exec "$name" -- sh -c "ln -s $outside/target evil; rm -r sub; ln -s $outside sub
ln /etc/passwd hostlink 2>/dev/null && echo linked; mknod wh c 0 0 2>/dev/null && echo mknod
rm c; mkfifo c; mkdir zz; python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind(\"zz/sock\")'; echo done" 2>&1)
	expect_eq "the session cannot hard-link a host file nor make a whiteout" "done" "$out"
	"$OSB" session diff "$name" >/dev/null 2>&1
	out=$("$OSB" session commit "$name" 2>&1); rc=$?
	expect_eq "a socket in the layer: commit refused before the first write" \
		"125:osb-isolate: session: commit refused, nothing was applied: zz/sock: a socket cannot be committed; remove it in the session" \
		"$rc:$out"
	host_unchanged "a refused commit applied nothing"
	"$OSB" session exec "$name" -- rm zz/sock
	"$OSB" session diff "$name" >/dev/null 2>&1
	out=$(timeout 60 "$OSB" session commit "$name" 2>&1); rc=$?
	expect_eq "commit of the hostile layer (a FIFO is made, never opened)" "0:committed 4 changes to $WS" "$rc:$out"
	expect_eq "the planted symlinks are committed as symlinks, never followed" \
		"$outside/target $outside p" "$(readlink "$WS/evil") $(readlink "$WS/sub") $(stat -c %F "$WS/c" | sed 's/fifo/p/')"
	tree_state "$outside" >"$T/outside.after"
	expect_eq "nothing outside the workspace was written" "" "$(diff "$T/outside.before" "$T/outside.after")"
	expect_eq "the host file is untouched" "" "$(sha256sum /etc/passwd | diff "$T/passwd.before" -)"
	"$OSB" session stop "$name" >/dev/null 2>&1
}

# What a commit applies is what the last `session diff` showed: the session
# may still write its layer between the review and the commit (here from a
# later command), and a commit of bytes nobody reviewed is refused with 125,
# nothing applied; a commit without any diff is refused the same way. A
# diff followed by a commit of what it showed applies it.
REFUSED_UNREVIEWED='125:osb-isolate: session: commit refused, nothing was applied: no session diff has shown the changes yet; run session diff, review them, then commit'
REFUSED_CHANGED='125:osb-isolate: session: commit refused, nothing was applied: the changes differ from what the last session diff showed; run session diff again'
review_case() { # identity
	local id=$1 name="ovr$$-$1" pol out rc
	WHO="$ME, identity $id, review then commit"
	make_ws
	pol=$(policy "review-$id" "$id")
	SESSIONS+=("$name")
	out=$(cd / && "$OSB" session start -n "$name" -p "$pol" -w "$WS" 2>&1) || { flunk "review: session start" "$out"; return; }
	"$OSB" session exec "$name" -- sh -c 'echo reviewed >> a'
	out=$("$OSB" session commit "$name" 2>&1); rc=$?
	expect_eq "commit without a session diff is refused with 125" "$REFUSED_UNREVIEWED" "$rc:$out"
	host_unchanged "a commit without a diff applied nothing"
	out=$("$OSB" session diff "$name" 2>&1); rc=$?
	expect_eq "session diff shows the reviewed change" "0:M a (content)" "$rc:$out"
	# The same size and mode, other bytes: only the content hash tells.
	"$OSB" session exec "$name" -- sh -c 'printf "alpha\nREVIEWED\n" > a'
	out=$("$OSB" session commit "$name" 2>&1); rc=$?
	expect_eq "bytes changed after the diff: commit refused with 125" "$REFUSED_CHANGED" "$rc:$out"
	host_unchanged "a commit refused after a change applied nothing"
	out=$("$OSB" session commit "$name" --json 2>/dev/null | python3 -c 'import json, sys
import jsonschema
r = json.load(sys.stdin)
jsonschema.validate(r, json.load(open(sys.argv[1])))
print(r["committed"], r["changes"], r["applied"], r["not_applied"], r["failed"]["path"], r["failed"]["message"])' "$S/commit.schema.json" 2>&1)
	expect_eq "commit --json: the refusal's report (docs/commit.schema.json) says nothing was applied" \
		"False 1 [] ['a'] None the changes differ from what the last session diff showed; run session diff again" "$out"
	out=$("$OSB" session diff "$name" 2>&1) && "$OSB" session exec "$name" -- sh -c 'echo sneaked > sneaked'
	out=$("$OSB" session commit "$name" 2>&1); rc=$?
	expect_eq "a file added after the diff: commit refused with 125" "$REFUSED_CHANGED" "$rc:$out"
	host_unchanged "a commit refused after an addition applied nothing"
	"$OSB" session exec "$name" -- rm sneaked
	out=$("$OSB" session diff "$name" --json >/dev/null 2>&1 && "$OSB" session commit "$name" 2>&1); rc=$?
	expect_eq "diff --json, then commit of what it showed, applies it" "0:committed 1 changes to $WS" "$rc:$out"
	expect_eq "the workspace holds the reviewed bytes" "alpha
REVIEWED" "$(cat "$WS/a")"
	"$OSB" session exec "$name" -- sh -c 'echo later > later'
	rm -f "$T/review.tar"
	out=$("$OSB" session diff "$name" --tar "$T/review.tar" 2>&1 && "$OSB" session commit "$name" 2>&1); rc=$?
	expect_eq "diff --tar is a review too: the commit of what it exported applies it" \
		"0:committed 1 changes to $WS" "$rc:$out"
	expect_eq "the exported and the committed bytes are the same" "later later" "$(tar -xOf "$T/review.tar" later 2>&1) $(cat "$WS/later")"
	"$OSB" session stop "$name" >/dev/null 2>&1
}

# Names the sandbox chooses reach the caller's terminal only escaped: C0
# controls (ESC[2J clears the screen), a C1 control (U+009B, CSI, and the
# raw byte 0x9b), a bidirectional override (U+202E) and bytes that are not
# UTF-8, in the diff's lines, in an error message and in the commit's notes.
NAMES=$'esc\e[2Jx c1\xc2\x9bx raw\x9bx bidi\xe2\x80\xaetxt bad\xffx'
names_case() { # identity
	local id=$1 name="ovn$$-$1" pol out rc raw
	WHO="$ME, identity $id, hostile names"
	make_ws
	pol=$(policy "names-$id" "$id")
	SESSIONS+=("$name")
	out=$(cd / && "$OSB" session start -n "$name" -p "$pol" -w "$WS" 2>&1) || { flunk "names: session start" "$out"; return; }
	"$OSB" session exec "$name" -- sh -c 'set -f; for f in $1; do echo x > "$f"; done; chmod 1755 "${1%% *}"' sh "$NAMES"
	raw=$("$OSB" session diff "$name" 2>&1); rc=$?
	expect_eq "session diff prints each hostile name escaped, in quotes" '0:A "bad\377x"
A "bidi\342\200\256txt"
A "c1\302\233x"
A "esc\033[2Jx"
A "raw\233x"' "$rc:$raw"
	expect_eq "the diff's lines are printable ASCII only" "0" "$(printf '%s' "$raw" | LC_ALL=C grep -c '[^ -~]')"
	out=$("$OSB" session diff "$name" --json 2>&1 | python3 -c 'import json, sys
raw = sys.stdin.buffer.read().rstrip(b"\n")
bad = [c for c in raw.decode("utf-8") if ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f or 0x202a <= ord(c) <= 0x202e or 0x2066 <= ord(c) <= 0x2069]
print(len(bad), ascii(sorted(c["path"] for c in json.loads(raw)["changes"])))' 2>&1)
	expect_eq "session diff --json escapes them too (\\u escapes: the names read back)" \
		"0 ['bad\ufffdx', 'bidi\u202etxt', 'c1\x9bx', 'esc\x1b[2Jx', 'raw\ufffdx']" "$out"
	"$OSB" session exec "$name" -- python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind(b"s\x1b[2J\xe2\x80\xae\x9b")'
	"$OSB" session diff "$name" >/dev/null 2>&1
	out=$("$OSB" session commit "$name" 2>&1); rc=$?
	expect_eq "a refusal that names a hostile name prints it escaped, and so do its notes" \
		'125:notes:
  "esc\033[2Jx: its setuid, setgid and sticky bits are not committed"
osb-isolate: session: commit refused, nothing was applied: s\033[2J\342\200\256\233: a socket cannot be committed; remove it in the session' "$rc:$out"
	out=$("$OSB" session diff "$name" --tar "$T/names.tar" 2>&1); rc=$?
	expect_eq "so does the refusal of its archive" \
		'125:osb-isolate: session: overlay workspace: s\033[2J\342\200\256\233: a socket cannot be exported; remove it in the session' "$rc:$out"
	"$OSB" session exec "$name" -- python3 -c 'import os; os.unlink(b"s\x1b[2J\xe2\x80\xae\x9b")'
	"$OSB" session diff "$name" >/dev/null 2>&1
	out=$("$OSB" session commit "$name" 2>&1); rc=$?
	expect_eq "the commit's notes print the name escaped" "0:committed 5 changes to $WS
notes:
  \"esc\\033[2Jx: its setuid, setgid and sticky bits are not committed\"" "$rc:$out"
	local names
	read -r -a names <<<"$NAMES"
	expect_eq "the names are committed as the bytes they are" "5" \
		"$(cd "$WS" && for f in "${names[@]}"; do [ -f "$f" ] && echo "$f"; done | wc -l)"
	"$OSB" session stop "$name" >/dev/null 2>&1
}

# ---- a host without overlayfs -----------------------------------------------------------

no_overlay_case() { # identity
	local id=$1 pol out rc mode=userns
	[ "$id" = root ] && mode=root
	WHO="$ME, identity $id, no overlayfs"
	make_ws
	pol=$(policy "noov-$id" "$id")
	local msg="overlay unavailable: $mode mode: fsopen(\"overlay\") fails: No such device; remedy: load overlayfs (modprobe overlay) or use a kernel built with CONFIG_OVERLAY_FS; until then use \"workspace ro\" or \"workspace rw\""
	out=$(cd / && "$NOOVERLAY" "$OSB" run -p "$pol" -w "$WS" -- sh -c 'echo ran > ran' 2>&1); rc=$?
	expect_eq "run without overlayfs is refused with 125, never run rw" "125:osb-isolate: probe: $msg" "$rc:$out"
	host_unchanged "run without overlayfs: nothing was written to the host workspace"
	out=$(cd / && "$NOOVERLAY" "$OSB" session start -n "noov$$" -p "$pol" -w "$WS" 2>&1); rc=$?
	expect_eq "session start without overlayfs is refused with 125" \
		"125:osb-isolate: session: cannot start session noov$$: probe: $msg" "$rc:$out"
	out=$("$NOOVERLAY" "$OSB" capabilities --json | python3 -c 'import json,sys
for it in json.load(sys.stdin)["items"]:
    if it["id"] == "overlay": print(it["status"])' 2>&1)
	expect_eq "capabilities without overlayfs: overlay unavailable" "unavailable" "$out"
	out=$("$NOOVERLAY" "$OSB" capabilities --json | python3 -c 'import json,sys
for it in json.load(sys.stdin)["items"]:
    if it["id"] in ("diff_supported", "commit_supported", "persist"):
        print(it["id"], it["status"], "needs the overlay workspace, which is unavailable here" in it["reason"], it["remedy"] is not None)' 2>&1)
	expect_eq "capabilities without overlayfs: diff and commit unavailable, with the reason and a remedy" \
		"diff_supported unavailable True True
commit_supported unavailable True True
persist unavailable True True" "$out"
}

# libarchive is loaded by a session's holder for its first archive, not at
# its start (it brings libxml2, ICU and libstdc++ into every process that
# links the library); a copy the loader cannot use refuses the archive with
# the loader's reason and nothing else: the session starts, runs and lists
# its changes.
holder_maps() { # session: "present" when its holder maps libarchive
	local pid
	pid=$("$OSB" session list --json | python3 -c 'import json,sys
print([s["pid"] for s in json.load(sys.stdin) if s["id"] == sys.argv[1]][0])' "$1") || return 1
	grep -q 'libarchive' "/proc/$pid/maps" && echo present || echo absent
}

archive_load_case() { # identity
	local id=$1 name="ova$$-$1" pol out rc broken=$T/broken-lib soname
	WHO="$ME, identity $id, libarchive on demand"
	soname=$(PATH=$PATH:/usr/sbin:/sbin ldconfig -p | sed -n 's/^[[:space:]]*\(libarchive\.so\.[0-9]*\) .*/\1/p' | head -n1)
	[ -n "$soname" ] || { flunk "libarchive's soname from ldconfig -p" "ldconfig -p lists no libarchive.so.N"; return; }
	make_ws
	pol=$(policy "arc-$id" "$id")
	SESSIONS+=("$name")
	out=$(cd / && "$OSB" session start -n "$name" -p "$pol" -w "$WS" 2>&1); rc=$?
	expect_eq "session start" "0:$name" "$rc:$out"
	"$OSB" session exec "$name" -- sh -c "$CHANGE" >/dev/null 2>&1
	"$OSB" session diff "$name" >/dev/null 2>&1
	expect_eq "the holder has not mapped libarchive after a start, a command and a diff" \
		"absent" "$(holder_maps "$name" 2>&1)"
	out=$("$OSB" session diff "$name" --tar "$T/arc.tar" 2>&1); rc=$?
	expect_eq "session diff --tar loads it and writes the archive" "0:" "$rc:$out"
	expect_eq "the holder maps libarchive once it has written an archive" \
		"present" "$(holder_maps "$name" 2>&1)"
	"$OSB" session stop "$name" >/dev/null 2>&1

	mkdir -p "$broken" && : >"$broken/$soname"
	chmod -R a+rX "$broken"
	make_ws
	out=$(cd / && LD_LIBRARY_PATH=$broken "$OSB" session start -n "$name" -p "$pol" -w "$WS" 2>&1); rc=$?
	expect_eq "session start with an unusable $soname on the library path" "0:$name" "$rc:$out"
	out=$(LD_LIBRARY_PATH=$broken "$OSB" session exec "$name" -- sh -c "$CHANGE" 2>&1); rc=$?
	expect_eq "...its commands run" "0:" "$rc:$out"
	out=$("$OSB" session diff "$name" 2>&1); rc=$?
	expect_eq "...it lists its changes" "0:$WANT_DIFF" "$rc:$out"
	rm -f "$T/arc.tar"
	out=$("$OSB" session diff "$name" --tar "$T/arc.tar" 2>&1); rc=$?
	expect_eq "...the archive is refused with 125 and the loader's reason" \
		"125:osb-isolate: session: overlay workspace: exporting needs libarchive ($soname), which could not be loaded: $broken/$soname: file too short; install it (Debian: libarchive13)" \
		"$rc:$out"
	expect_eq "...and leaves no file" "absent" "$([ -e "$T/arc.tar" ] && echo present || echo absent)"
	out=$("$OSB" session exec "$name" -- true 2>&1); rc=$?
	expect_eq "...the session still runs commands" "0:" "$rc:$out"
	"$OSB" session stop "$name" >/dev/null 2>&1
	rm -rf "$broken"
}

modes=(userns)
[ "$(id -u)" -eq 0 ] && modes+=(root)
for id in "${modes[@]}"; do
	if test_have "overlay-$id" probe_overlay_mode "$id"; then
		run_case "$id"
		session_case "$id"
		archive_load_case "$id"
		[ "$(id -u)" -eq 0 ] && session_alloc_case "$id"
		commit_case "$id"
		review_case "$id"
		names_case "$id"
		discard_case "$id"
		attack_case "$id"
	fi
	no_overlay_case "$id"
done
if test_have overlay-userns probe_overlay_mode userns; then
	run_mode_option
	session_mode_option
fi
finish_suite "$((n - failures))" "$failures"

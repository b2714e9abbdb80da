#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# guard.sh — integration tests of the init's last-mile guards in real bwrap
# sandboxes (bwrap run directly, the freshly built init started through
# /proc/self/fd like the library does): the mount audit ("init:mounts"), and
# Landlock ("init:landlock") with its write rules, the leaked-fd escape it
# stops, and its scoping of abstract unix sockets and signals; and the
# overlay workspace ("init:overlay"): mounted over a verified bind, the
# capabilities of that step dropped, refused when the kernel has no
# overlayfs (the nooverlay wrapper) or the init lacks those capabilities.
#
# Run by `make check` as root: it stages the init, the nolandlock wrapper and
# itself into /tmp, runs every case as root (userns mode and root mode), then
# again as the unprivileged test user (userns mode). GUARD_STAGE set means
# "run the cases" (the staged copy); unset means "drive" (make check). Not
# root: skipped (exit 77). Cases that need user namespaces, Landlock or
# Landlock's scoping (ABI 6) are skipped, saying so, on a host without them.
set -uo pipefail
export LC_ALL=C
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if [ -z "${GUARD_STAGE:-}" ]; then
	: "${OSB_BUILDDIR:?OSB_BUILDDIR must point at the build tree (make check sets it)}"
	: "${OSB_SRCDIR:?OSB_SRCDIR must point at the source tree (make check sets it)}"
	test_need root probe_root
	ensure_test_user
	stage=$(mktemp -d /tmp/osb-guard.XXXXXX) || die "mktemp failed"
	trap 'rm -rf "$stage"' EXIT
	chmod 755 "$stage"
	for f in helper/osb-isolate-init tests/integration/nolandlock tests/integration/nooverlay \
		tests/integration/nocover; do
		[ -x "$OSB_BUILDDIR/$f" ] || die "$OSB_BUILDDIR/$f is missing: build first (make check builds it)"
		install -m 755 "$OSB_BUILDDIR/$f" "$stage/"
	done
	install -m 755 "$OSB_SRCDIR/tests/integration/guard.sh" "$stage/"
	install -m 644 "$OSB_SRCDIR/tests/integration/lib.sh" "$stage/"
	rc=0
	env -i PATH=/usr/bin:/bin OSB_REQUIRE="${OSB_REQUIRE:-}" GUARD_STAGE="$stage" \
		bash "$stage/guard.sh" || rc=1
	(cd / && setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups -- \
		env -i PATH=/usr/bin:/bin OSB_REQUIRE="${OSB_REQUIRE:-}" GUARD_STAGE="$stage" \
		bash "$stage/guard.sh") || rc=1
	exit "$rc"
fi

INIT=$GUARD_STAGE/osb-isolate-init
# The protocol version the launcher must pass (lib/init-proto.h); this suite
# tests the guards, tests/integration/init.sh the handshake itself.
PROTO=$("$INIT" --version | sed -n 's/.*(init protocol \([0-9][0-9]*\))$/\1/p')
[ -n "$PROTO" ] || { echo "guard.sh: the init does not say its protocol version" >&2; exit 99; }
NOLANDLOCK=$GUARD_STAGE/nolandlock
NOOVERLAY=$GUARD_STAGE/nooverlay
NOCOVER=$GUARD_STAGE/nocover
WHO="$(id -un)"
T=$(mktemp -d /tmp/osb-guard-run.XXXXXX) || { echo "mktemp failed" >&2; exit 99; }
chmod 755 "$T"
SERVERS=()
HOSTMOUNT=
cleanup() {
	for p in "${SERVERS[@]}"; do kill "$p" 2>/dev/null; done
	[ -n "$HOSTMOUNT" ] && umount "$HOSTMOUNT"
	rm -rf "$T"
}
trap cleanup EXIT
mkdir "$T/ws" "$T/x" "$T/hostdir" "$T/sock" "$T/other"
# In root mode the command runs as the real uid 1000; in userns mode run by
# root it is host root without capabilities over other owners' files.
[ "$(id -u)" -eq 0 ] && chmod 777 "$T/ws" "$T/x" "$T/hostdir"

n=0
failures=0
pass() { n=$((n + 1)); echo "ok $n - $1 [$WHO]"; }
flunk() { n=$((n + 1)); failures=$((failures + 1)); echo "not ok $n - $1 [$WHO]"; }

# expect NAME WANT_RC GOT_RC FILE EXPECTED_BYTES
# An "X" carries the init's start time (lib/init-proto.h; init.sh checks
# the number): compared here as "X" alone.
expect() {
	local name=$1 want_rc=$2 got_rc=$3 file=$4 want=$5
	printf '%s' "$want" >"$T/want"
	[ -f "$file" ] && sed -i '1s/^X[0-9]\{1,20\}/X/' "$file"
	if [ "$got_rc" = "$want_rc" ] && cmp -s "$T/want" "$file"; then
		pass "$name"
	else
		flunk "$name"
		echo "#   exit: want $want_rc, got $got_rc"
		echo "#   $(basename "$file"): want $(od -An -c "$T/want" | tr -s ' ' | head -c 600)"
		echo "#   $(basename "$file"):  got $(od -An -c "$file" | tr -s ' ' | head -c 600)"
	fi
}

# A plan-like mount set (root read-only, private /tmp /run /mnt, dev, proc,
# a workspace) and the init options that describe it. /tmp is 1777 so that
# in root mode too only Landlock, not the owner, can refuse a write there.
base_mounts() {
	MOUNTS=(--ro-bind / / --perms 1777 --tmpfs /tmp --tmpfs /run --dev /dev --proc /proc
		--tmpfs /mnt --bind "$T/ws" /mnt/ws)
}
AUDIT=(--audit-mounts --writable /tmp --writable /run --dev-mount /dev --writable /proc
	--writable /mnt --writable /mnt/ws)
LL_RW=(--landlock-rw /mnt/ws --landlock-rw /dev --landlock-rw /proc)

# sbx MODE NET CMD...: run CMD in bwrap under the init with MOUNTS and IARGS.
# MODE userns (a user namespace, ids 1000 as a view) or root (no user
# namespace, the init switches to 1000:1000); NET net (host network) or
# nonet. The command's stdout, stderr and the init's error fd go to
# $T/out, $T/err, $T/efd; the exit status to RC. WRAP prefixes bwrap.
sbx() {
	local mode=$1 net=$2 ns ids
	shift 2
	ns=(--unshare-pid --unshare-ipc --unshare-uts --die-with-parent --new-session)
	[ "$net" = nonet ] && ns+=(--unshare-net)
	ns+=("${XCAPS[@]}")
	if [ "$mode" = userns ]; then
		ns=(--unshare-user --uid 1000 --gid 1000 "${ns[@]}")
		ids=(--expect-uid 1000 --expect-gid 1000)
	else
		ns=(--cap-drop ALL --cap-add CAP_SETUID --cap-add CAP_SETGID --cap-add CAP_SETPCAP "${ns[@]}")
		ids=(--switch-ids 1000:1000)
	fi
	RC=0
	"${WRAP[@]}" bwrap "${ns[@]}" "${MOUNTS[@]}" -- /proc/self/fd/5 --error-fd 9 --proto "$PROTO" "${ids[@]}" \
		"${IARGS[@]}" -- "$@" 5<"$INIT" 9>"$T/efd" </dev/null >"$T/out" 2>"$T/err" || RC=$?
}
WRAP=()
XCAPS=()

# What the sandbox's mountinfo says about a bind of host path $1: fstype,
# source and root (the path within its file system), as mountinfo spells them.
bind_identity() {
	local src fsroot tgt fstype rel
	read -r src fsroot tgt fstype < <(findmnt -n -r -v -o SOURCE,FSROOT,TARGET,FSTYPE -T "$1")
	if [ "$tgt" = / ]; then rel=$1; else rel=${1#"$tgt"}; fi
	echo "type $fstype, source $src, root ${fsroot%/}$rel"
}

refusal() { # target identity -> the exact error-fd line, less its newline
	printf 'Einit:mounts\t1\tpolicy error: writable mount at %s (%s) is not one the plan expects; refusing to run the command (if it lies beneath a granted path on the host, unmount it there or grant another path)' "$1" "$2"
}

# ---- options --------------------------------------------------------------
args_case() { # NAME EXPECTED-MESSAGE INIT-ARGS...
	local name=$1 msg=$2 rc=0
	shift 2
	"$INIT" --error-fd 9 --proto "$PROTO" "$@" -- true 9>"$T/efd" || rc=$?
	expect "$name" 125 "$rc" "$T/efd" "$(printf 'Einit:args\t22\t%s' "$msg")"$'\n'
}
args_case writable_relative_path_refused \
	'--writable "tmp": expected a canonical absolute path (no trailing slash, no empty, "." or ".." component)' \
	--audit-mounts --writable tmp
args_case writable_trailing_slash_refused \
	'--writable "/tmp/": expected a canonical absolute path (no trailing slash, no empty, "." or ".." component)' \
	--audit-mounts --writable /tmp/
args_case landlock_rw_dotdot_refused \
	'--landlock-rw "/mnt/../etc": expected a canonical absolute path (no trailing slash, no empty, "." or ".." component)' \
	--landlock required --landlock-rw /mnt/../etc
args_case writable_duplicate_refused '--writable /tmp given twice' \
	--audit-mounts --writable /tmp --writable /tmp
args_case writable_without_audit_refused \
	'--writable and --dev-mount only describe the mount audit: pass --audit-mounts too' --writable /tmp
args_case audit_mounts_takes_no_value '--audit-mounts takes no value' --audit-mounts=yes
args_case landlock_unknown_mode_refused '--landlock "maybe": expected auto, required or off' --landlock maybe
args_case landlock_rw_without_mode_refused '--landlock-rw needs --landlock auto|required|off' \
	--landlock-rw /tmp
args_case overlay_malformed_refused \
	'--overlay "1M:user:/ws": expected SIZE:user|trusted:DEST with a size in bytes above 0 and an absolute DEST' \
	--overlay 1M:user:/ws
args_case overlay_without_verified_bind_refused \
	'--overlay /mnt/ws: its lower layer must be a bind the audit verifies: pass --audit-mounts and --expect-bind for it' \
	--audit-mounts --overlay 1048576:user:/mnt/ws
args_case overlay_layer_without_overlay_refused '--overlay-layer needs --overlay' \
	--overlay-layer /dev/.osb-layer
args_case make_cover_takes_no_value '--make-cover takes no value' --make-cover=yes
args_case make_cover_without_paths_refused \
	'--make-cover needs what to cover: --proc-ro, --proc-masked or --masked' --make-cover
args_case overlay_layer_relative_refused \
	'--overlay-layer "layer": expected an absolute path below /' --overlay-layer layer
args_case overlay_layer_without_verified_bind_refused \
	'--overlay-layer /dev/.osb-layer: the layer must be a bind the audit verifies: pass --expect-bind for it' \
	--audit-mounts --expect-bind 0:1:2:/mnt/ws --overlay 1048576:user:/mnt/ws --overlay-layer /dev/.osb-layer

# ---- what this host gives ---------------------------------------------------
modes=()
HAVE_USERNS=0 HAVE_LL=0 HAVE_SCOPE=0
test_have userns probe_userns && HAVE_USERNS=1 && modes+=(userns)
[ "$(id -u)" -eq 0 ] && modes+=(root)
test_have landlock probe_landlock && HAVE_LL=1
[ "$HAVE_LL" -eq 1 ] && test_have landlock-scope probe_landlock 6 && HAVE_SCOPE=1

# ---- (a) the mount audit --------------------------------------------------

for mode in "${modes[@]}"; do
	base_mounts
	MOUNTS+=(--bind "$T/x" /mnt/y)
	IARGS=("${AUDIT[@]}")
	sbx "$mode" nonet echo ran
	expect "mounts_unexpected_writable_bind_refused_$mode" 125 "$RC" "$T/efd" \
		"$(refusal /mnt/y "$(bind_identity "$T/x")")"$'\n'
	expect "mounts_refused_command_never_ran_$mode" 125 "$RC" "$T/out" ""

	IARGS=("${AUDIT[@]}" --writable /mnt/y)
	sbx "$mode" nonet echo ran
	expect "mounts_listed_bind_runs_$mode" 0 "$RC" "$T/out" $'ran\n'
	expect "mounts_listed_bind_reports_exec_$mode" 0 "$RC" "$T/efd" "X"

	base_mounts
	MOUNTS+=(--tmpfs /mnt/t)
	IARGS=("${AUDIT[@]}")
	sbx "$mode" nonet true
	expect "mounts_unexpected_tmpfs_refused_$mode" 125 "$RC" "$T/efd" \
		"$(refusal /mnt/t "type tmpfs, source tmpfs, root /")"$'\n'

	# bwrap's --dev leaves /dev/shm a plain directory; a tmpfs there is
	# not one of the mounts --dev makes, so it must be listed.
	base_mounts
	MOUNTS+=(--tmpfs /dev/shm)
	sbx "$mode" nonet true
	expect "mounts_tmpfs_beneath_dev_refused_$mode" 125 "$RC" "$T/efd" \
		"$(refusal /dev/shm "type tmpfs, source tmpfs, root /")"$'\n'

	# A writable bind covered by a later tmpfs is not reachable: the audit
	# must look at the visible mount (statx mount id), not every entry.
	base_mounts
	MOUNTS+=(--bind "$T/x" /mnt/y --tmpfs /mnt)
	sbx "$mode" nonet sh -c 'ls -A /mnt; echo end'
	expect "mounts_shadowed_writable_bind_ignored_$mode" 0 "$RC" "$T/out" $'end\n'

	# Without --dev-mount the device binds and devpts bwrap makes are
	# unexpected writable mounts like any other.
	base_mounts
	IARGS=(--audit-mounts --writable /tmp --writable /run --writable /dev --writable /proc
		--writable /mnt --writable /mnt/ws)
	sbx "$mode" nonet true
	expect "mounts_dev_nodes_need_dev_mount_$mode" 125 "$RC" "$T/efd" \
		"$(refusal /dev/null "$(bind_identity /dev/null)")"$'\n'

	# Every bind must sit at its destination with the inode verified on the
	# host: another inode there (a destination redirected during setup), or
	# no mount at all, is refused before the command runs.
	local_dev=$(stat -c '%Hd:%Ld' "$T/ws"); ws_ino=$(stat -c %i "$T/ws"); x_ino=$(stat -c %i "$T/x")
	base_mounts
	IARGS=("${AUDIT[@]}" --expect-bind "$local_dev:$ws_ino:/mnt/ws")
	sbx "$mode" nonet echo ran
	expect "binds_verified_inode_runs_$mode" 0 "$RC" "$T/out" $'ran\n'
	IARGS=("${AUDIT[@]}" --expect-bind "$local_dev:$x_ino:/mnt/ws")
	sbx "$mode" nonet echo ran
	expect "binds_other_inode_refused_$mode" 125 "$RC" "$T/efd" \
		"$(printf 'Einit:mounts\t1\tpolicy error: /mnt/ws is not the bind the plan verified (expected inode %s of device %s at a mount root, found inode %s of %s); its destination was redirected during setup: refusing to run the command' "$x_ino" "$local_dev" "$ws_ino" "$local_dev")"$'\n'
	IARGS=("${AUDIT[@]}" --expect-bind "$local_dev:$ws_ino:/mnt")
	sbx "$mode" nonet echo ran
	expect "binds_missing_mount_refused_$mode" 125 "$RC" "$T/out" ""
done

# A host mount beneath a granted source comes along writable (bwrap binds
# recursively): the audit is the last line when the library's scan is
# bypassed. Mounting on the host needs root.
if [ "$(id -u)" -eq 0 ]; then
	mkdir "$T/ws/sub"
	mount --bind "$T/other" "$T/ws/sub" && HOSTMOUNT="$T/ws/sub"
	for mode in "${modes[@]}"; do
		base_mounts
		IARGS=("${AUDIT[@]}")
		sbx "$mode" nonet true
		expect "mounts_host_submount_beneath_workspace_refused_$mode" 125 "$RC" "$T/efd" \
			"$(refusal /mnt/ws/sub "$(bind_identity "$T/other")")"$'\n'
	done
	umount "$HOSTMOUNT" && HOSTMOUNT=
	rmdir "$T/ws/sub"
fi

# ---- (b) Landlock: writes only beneath the rw paths -----------------------
WRITES='touch /tmp/f; mkdir /tmp/d; ln -s x /tmp/l; echo > /dev/null && echo devnull-ok
touch /mnt/ws/f && echo ws-ok; rm /mnt/ws/f; ls -A /tmp | tr "\n" " "; echo end'
DENIED="touch: cannot touch '/tmp/f': Permission denied
mkdir: cannot create directory '/tmp/d': Permission denied
ln: failed to create symbolic link '/tmp/l': Permission denied
"
for mode in "${modes[@]}"; do
	if [ "$HAVE_LL" -eq 1 ]; then
		base_mounts
		IARGS=("${AUDIT[@]}" --landlock required "${LL_RW[@]}")
		sbx "$mode" nonet sh -c "$WRITES"
		expect "landlock_write_outside_rw_paths_eacces_$mode" 0 "$RC" "$T/err" "$DENIED"
		expect "landlock_write_inside_rw_paths_works_$mode" 0 "$RC" "$T/out" $'devnull-ok\nws-ok\nend\n'

		IARGS=("${AUDIT[@]}" --landlock auto "${LL_RW[@]}")
		sbx "$mode" nonet sh -c "$WRITES"
		expect "landlock_auto_applies_where_available_$mode" 0 "$RC" "$T/err" "$DENIED"

		IARGS=("${AUDIT[@]}" --landlock off "${LL_RW[@]}")
		sbx "$mode" nonet sh -c "$WRITES"
		expect "landlock_off_leaves_tmpfs_writable_$mode" 0 "$RC" "$T/out" $'devnull-ok\nws-ok\nd f l end\n'

		IARGS=(--landlock required --landlock-rw /mnt/ws --landlock-rw /nonexistent)
		sbx "$mode" nonet true
		expect "landlock_missing_rw_path_refused_$mode" 125 "$RC" "$T/efd" \
			"$(printf 'Einit:landlock\t2\t--landlock-rw /nonexistent: No such file or directory (the plan'"'"'s writable paths must exist in the sandbox)')"$'\n'
	fi

	# A kernel without Landlock (simulated: landlock_create_ruleset fails
	# under a seccomp filter): auto runs without it, required refuses.
	WRAP=("$NOLANDLOCK" ENOSYS)
	IARGS=(--landlock auto "${LL_RW[@]}")
	sbx "$mode" nonet sh -c 'touch /tmp/f && echo written'
	expect "landlock_auto_without_kernel_support_runs_$mode" 0 "$RC" "$T/out" $'written\n'
	WRAP=("$NOLANDLOCK" EOPNOTSUPP)
	IARGS=(--landlock required "${LL_RW[@]}")
	sbx "$mode" nonet true
	expect "landlock_required_without_kernel_support_refused_$mode" 125 "$RC" "$T/efd" \
		"$(printf 'Einit:landlock\t95\tthe policy requires Landlock (landlock required) but this kernel does not offer it (not built in, or not in the lsm= boot list); use "landlock auto" to run without it')"$'\n'
	WRAP=()
done

# ---- (c) the leaked-fd escape ---------------------------------------------
# The init marks every inherited fd close-on-exec, so bwrap cannot hand the
# command a host directory fd; but a command can still be given one at run
# time, e.g. over a unix socket it may reach. Here a host process sends an
# fd of $T/hostdir (mounted nowhere in the sandbox) to whoever connects;
# through it, openat() and /proc/self/fd/N/... reach the host directory.
# Landlock judges the real location, so both are refused.
python3 - "$T/sock/s" "$T/hostdir" "$T/server.pid" >/dev/null 2>"$T/server.err" <<'EOF'
import os, socket, sys
path, hostdir, pidfile = sys.argv[1:4]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path)
os.chmod(path, 0o777)
s.listen(16)
pid = os.fork()
if pid:
    with open(pidfile, "w") as f:
        f.write(str(pid))
    os._exit(0)
os.setsid()
while True:
    c, _ = s.accept()
    fd = os.open(hostdir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    socket.send_fds(c, [b"x"], [fd])
    os.close(fd)
    c.close()
EOF
SERVERS+=("$(cat "$T/server.pid")")
LEAK='
import os, socket
s = socket.socket(socket.AF_UNIX)
s.connect("/mnt/sock/s")
_, fds, _, _ = socket.recv_fds(s, 1, 1)
fd = fds[0]
tries = (
    ("openat", lambda: os.close(os.open("pwned-openat", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd))),
    ("proc", lambda: os.close(os.open("/proc/self/fd/%d/pwned-proc" % fd, os.O_CREAT | os.O_WRONLY, 0o644))),
    ("mkdir", lambda: os.mkdir("pwned-dir", dir_fd=fd)),
)
for how, attempt in tries:
    try:
        attempt()
        print(how, "created")
    except OSError as e:
        print(how, e.strerror)
'
for mode in "${modes[@]}"; do
	base_mounts
	MOUNTS+=(--ro-bind "$T/sock" /mnt/sock)
	if [ "$HAVE_LL" -eq 1 ]; then
		IARGS=("${AUDIT[@]}" --landlock required "${LL_RW[@]}")
		sbx "$mode" nonet python3 -c "$LEAK"
		expect "leaked_dir_fd_writes_refused_by_landlock_$mode" 0 "$RC" "$T/out" \
			$'openat Permission denied\nproc Permission denied\nmkdir Permission denied\n'
		ls -A "$T/hostdir" | tr '\n' ' ' >"$T/ls"
		expect "leaked_dir_fd_host_dir_untouched_$mode" 0 "$RC" "$T/ls" ""
	fi

	# Control: without Landlock the same fd reaches the host.
	IARGS=("${AUDIT[@]}" --landlock off)
	sbx "$mode" nonet python3 -c "$LEAK"
	expect "leaked_dir_fd_escapes_without_landlock_$mode" 0 "$RC" "$T/out" \
		$'openat created\nproc created\nmkdir created\n'
	ls -A "$T/hostdir" | tr '\n' ' ' >"$T/ls"
	expect "leaked_dir_fd_control_wrote_on_host_$mode" 0 "$RC" "$T/ls" "pwned-dir pwned-openat pwned-proc "
	rm -rf "${T:?}/hostdir/"*
done

# ---- (d) scoping: abstract unix sockets and signals -----------------------
# With the host's network namespace (bwrap without --unshare-net) a host
# service listening on an abstract socket (X11, D-Bus, ...) is reachable
# unless Landlock (ABI >= 6) scopes the domain.
ABSTRACT="osb-guard-$$-$RANDOM"
python3 - "$ABSTRACT" "$T/abstract.pid" >/dev/null 2>"$T/abstract.err" <<'EOF'
import os, socket, sys
name, pidfile = sys.argv[1:3]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("\0" + name)
s.listen(16)
pid = os.fork()
if pid:
    with open(pidfile, "w") as f:
        f.write(str(pid))
    os._exit(0)
os.setsid()
while True:
    c, _ = s.accept()
    c.sendall(b"hello")
    c.close()
EOF
SERVERS+=("$(cat "$T/abstract.pid")")
CONNECT='
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("\0" + sys.argv[1])
    print("connected", s.recv(5).decode())
except OSError as e:
    print("connect", e.strerror)
'
for mode in "${modes[@]}"; do
	base_mounts
	if [ "$HAVE_SCOPE" -eq 1 ]; then
		IARGS=("${AUDIT[@]}" --landlock required "${LL_RW[@]}")
		sbx "$mode" net python3 -c "$CONNECT" "$ABSTRACT"
		expect "abstract_socket_outside_domain_refused_$mode" 0 "$RC" "$T/out" $'connect Operation not permitted\n'
	fi
	IARGS=("${AUDIT[@]}" --landlock off)
	sbx "$mode" net python3 -c "$CONNECT" "$ABSTRACT"
	expect "abstract_socket_reachable_without_landlock_$mode" 0 "$RC" "$T/out" $'connected hello\n'
done

# Signals: pid 1 of the sandbox (bwrap's reaper) runs outside the domain.
# In userns mode it has the command's uid, so only the scope stops a signal
# (in root mode it is root and the uid check alone refuses).
KILL='
import os
try:
    os.kill(1, 0)
    print("kill ok")
except OSError as e:
    print("kill", e.strerror)
'
if [ "$HAVE_USERNS" -eq 1 ]; then
	base_mounts
	if [ "$HAVE_SCOPE" -eq 1 ]; then
		IARGS=("${AUDIT[@]}" --landlock required "${LL_RW[@]}")
		sbx userns nonet python3 -c "$KILL"
		expect signal_outside_domain_refused_userns 0 "$RC" "$T/out" $'kill Operation not permitted\n'
	fi
	IARGS=("${AUDIT[@]}" --landlock off)
	sbx userns nonet python3 -c "$KILL"
	expect signal_outside_domain_allowed_without_landlock_userns 0 "$RC" "$T/out" $'kill ok\n'
fi

# ---- (e) the overlay workspace ----------------------------------------------
# The init mounts it over the verified bind of $T/ows with the capabilities
# the launcher grants for that step (lib/bwrap.c) and drops them; the
# command's writes stay in the upper layer.
OV_CAPS=(--cap-add CAP_SYS_ADMIN --cap-add CAP_CHOWN --cap-add CAP_DAC_OVERRIDE --cap-add CAP_FOWNER
	--cap-add CAP_FSETID --cap-add CAP_SETPCAP)
mkdir "$T/ows"
echo lower >"$T/ows/f"
[ "$(id -u)" -eq 0 ] && chmod 1777 "$T/ows" && chmod 666 "$T/ows/f"
OWS_ID=$(stat -c '%Hd:%Ld:%i' "$T/ows")
for mode in "${modes[@]}"; do
	xattr=user
	[ "$mode" = root ] && xattr=trusted
	base_mounts
	MOUNTS+=(--ro-bind "$T/ows" /mnt/ows)
	IARGS=("${AUDIT[@]}" --expect-bind "$OWS_ID:/mnt/ows" --overlay "1048576:$xattr:/mnt/ows")
	XCAPS=("${OV_CAPS[@]}")
	sbx "$mode" nonet sh -c 'echo upper > /mnt/ows/n; echo more >> /mnt/ows/f; cat /mnt/ows/n /mnt/ows/f; grep -c "^Cap[A-Za-z]*:[[:space:]]*0*$" /proc/self/status'
	expect "overlay_mounted_writes_seen_caps_empty_$mode" 0 "$RC" "$T/out" $'upper\nlower\nmore\n5\n'
	if [ ! -e "$T/ows/n" ] && [ "$(cat "$T/ows/f")" = lower ]; then pass "overlay_host_lower_unchanged_$mode"
	else flunk "overlay_host_lower_unchanged_$mode"; fi
	WRAP=("$NOOVERLAY")
	sbx "$mode" nonet sh -c 'echo ran > /mnt/ows/ran'
	expect "overlay_without_overlayfs_refused_$mode" 125 "$RC" "$T/efd" \
		"$(printf 'Einit:overlay\t19\tcannot mount the overlay workspace: the kernel has no overlayfs (fsopen: No such device); load the module (modprobe overlay) or choose "workspace ro" or "rw"')"$'\n'
	WRAP=()
	XCAPS=()
	sbx "$mode" nonet sh -c 'echo ran > /mnt/ows/ran'
	expect "overlay_without_its_capabilities_refused_$mode" 125 "$RC" "$T/efd" \
		"$(printf 'Einit:overlay\t1\tcannot mount the overlay workspace: unshare(CLONE_NEWNS): Operation not permitted (the init needs CAP_SYS_ADMIN for this step)')"$'\n'
	if [ ! -e "$T/ows/ran" ]; then pass "overlay_refusals_wrote_nothing_$mode"
	else flunk "overlay_refusals_wrote_nothing_$mode"; fi
done

# ---- (d) the cover ----------------------------------------------------------
# The init makes the /proc cover and the identity masks itself (--make-cover,
# stage "init:mounts"), holding CAP_SYS_ADMIN and CAP_SETPCAP for that step
# alone; the proc audit then verifies them as it verifies any cover. The
# directory masked is one the kernel makes in every procfs.
PDIR=/proc/driver
COVER=(--proc-ro /proc/sys --proc-masked /proc/keys --proc-masked "$PDIR" --masked /etc/shadow)
COVER_CHECK='cat /proc/keys 2>/dev/null || echo keys-unreadable
echo x 2>/dev/null > /proc/sys/kernel/hostname || echo sys-read-only
[ -z "$(ls -A '"$PDIR"')" ] && echo dir-empty
[ "$(stat -c %t:%T /etc/shadow)" = 1:3 ] && echo shadow-is-null
grep -c "^Cap[A-Za-z]*:[[:space:]]*0*$" /proc/self/status
python3 -c "
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
for p in (b\"/proc/keys\", b\"/proc/sys\", b\"/etc/shadow\", b\"'"$PDIR"'\"):
    r = libc.umount2(p, 2)
    print(p.decode(), \"unmounted\" if r == 0 else \"kept errno=%d\" % ctypes.get_errno())
"'
host_shadow=$(stat -c '%F %i' /etc/shadow)
for mode in "${modes[@]}"; do
	base_mounts
	XCAPS=(--cap-add CAP_SYS_ADMIN --cap-add CAP_SETPCAP)
	IARGS=("${AUDIT[@]}" --make-cover "${COVER[@]}")
	sbx "$mode" nonet sh -c "$COVER_CHECK"
	# No filter is loaded here: what keeps the command from unmounting a
	# cover is that it holds no capability (in userns mode the init's mount
	# namespace belongs to the sandbox's user namespace, where the command
	# has none, bounding set included).
	expect "cover_made_audited_caps_empty_not_unmountable_$mode" 0 "$RC" "$T/out" \
		"$(printf 'keys-unreadable\nsys-read-only\ndir-empty\nshadow-is-null\n5\n/proc/keys kept errno=1\n/proc/sys kept errno=1\n/etc/shadow kept errno=1\n%s kept errno=1\n' "$PDIR")"$'\n'
	# The masks live in the sandbox's mount namespace only.
	if [ "$(stat -c '%F %i' /etc/shadow)" = "$host_shadow" ] &&
		! grep -q ' /etc/shadow \| /proc/keys ' /proc/self/mountinfo; then
		pass "cover_left_the_host_unchanged_$mode"
	else flunk "cover_left_the_host_unchanged_$mode"; fi

	# Told to verify a cover nobody made, the audit refuses: the read-only
	# trees first, then each mask.
	XCAPS=()
	IARGS=("${AUDIT[@]}" "${COVER[@]}")
	sbx "$mode" nonet echo ran
	expect "cover_missing_refused_by_the_audit_$mode" 125 "$RC" "$T/efd" \
		"$(printf 'Einit:proc\t1\tpolicy error: /proc/sys is writable; it must be read-only before the command runs (the plan binds it read-only)')"$'\n'
	expect "cover_missing_command_never_ran_$mode" 125 "$RC" "$T/out" ""
	IARGS=("${AUDIT[@]}" --proc-masked /proc/keys)
	sbx "$mode" nonet echo ran
	expect "cover_missing_mask_refused_by_the_audit_$mode" 125 "$RC" "$T/efd" \
		"$(printf 'Einit:proc\t1\tpolicy error: /proc/keys is not masked (its mount is writable)')"$'\n'

	# A container whose filter refuses the cover's mounts: refused, and
	# the message sends the user to the capabilities item that tries them.
	XCAPS=(--cap-add CAP_SYS_ADMIN --cap-add CAP_SETPCAP)
	WRAP=("$NOCOVER")
	IARGS=("${AUDIT[@]}" --make-cover "${COVER[@]}")
	sbx "$mode" nonet echo ran
	expect "cover_refused_by_a_filter_names_the_item_$mode" 125 "$RC" "$T/efd" \
		"$(printf 'Einit:mounts\t1\tcannot cover /proc/sys: bind mount: Operation not permitted (the init needs CAP_SYS_ADMIN for this step, and mount(2) that an enclosing container'"'"'s seccomp profile or security module does not refuse: see the proc_cover item of osb-isolate capabilities)')"$'\n'
	expect "cover_refused_by_a_filter_command_never_ran_$mode" 125 "$RC" "$T/out" ""
	WRAP=()
	XCAPS=()

	IARGS=("${AUDIT[@]}" --make-cover "${COVER[@]}")
	sbx "$mode" nonet echo ran
	expect "cover_without_its_capabilities_refused_$mode" 125 "$RC" "$T/efd" \
		"$(printf 'Einit:mounts\t1\tcannot cover the host'"'"'s files: unshare(CLONE_NEWNS): Operation not permitted (the init needs CAP_SYS_ADMIN for this step)')"$'\n'

	# A symlink at a path to mask is refused, never followed.
	XCAPS=(--cap-add CAP_SYS_ADMIN --cap-add CAP_SETPCAP)
	ln -sfn "$T/x" "$T/ws/link"
	IARGS=("${AUDIT[@]}" --make-cover --masked /mnt/ws/link)
	sbx "$mode" nonet echo ran
	expect "cover_symlink_refused_$mode" 125 "$RC" "$T/efd" \
		"$(printf 'Einit:mounts\t40\tcannot cover /mnt/ws/link: it is a symlink; the plan names the files themselves')"$'\n'
	rm -f "$T/ws/link"
	IARGS=("${AUDIT[@]}" --make-cover --proc-masked /proc/osb-none)
	sbx "$mode" nonet echo ran
	expect "cover_missing_target_refused_$mode" 125 "$RC" "$T/efd" \
		"$(printf 'Einit:mounts\t2\tcannot cover /proc/osb-none: No such file or directory (it was there when the sandbox was planned; run again)')"$'\n'
	XCAPS=()
done

echo "1..$n"
[ "$n" -gt 0 ] || { echo "FAIL: guard.sh ran no test"; exit 1; }
[ "$failures" = 0 ]

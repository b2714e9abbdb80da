#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# view.sh — strict's curated view, as root and as the unprivileged test user
# (osb-test, or $OSB_TEST_USER): plants what the sandbox must not see on the
# host (world-readable files under /srv, /opt, /mnt, /home, /var, host
# /var/tmp; a world-writable Unix socket under /srv served by a daemon that
# logs each connection), workspaces below /srv and /home for each caller,
# then runs view-suite.sh for each. Everything planted is removed on exit.
# Root is needed to plant in those directories: run unprivileged, it skips.
set -euo pipefail
. "$OSB_SRCDIR/tests/integration/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: view: needs root (it plants files in /srv, /opt, /mnt, /home and /var)"
	exit 77
fi
for t in setpriv python3; do
	if ! command -v "$t" >/dev/null; then
		echo "SKIP: view: $t is not installed (tools/install-deps.sh installs it)"
		exit 77
	fi
done
ensure_test_user
stage=$(stage_artifacts)
tag=osb-view.$$.$RANDOM
planted=()
daemon=
cleanup() {
	[ -n "$daemon" ] && kill "$daemon" 2>/dev/null
	for p in "${planted[@]}"; do rm -rf "$p"; done
	rm -rf "$stage"
}
trap cleanup EXIT
cp "$OSB_SRCDIR/tests/integration/view-suite.sh" "$OSB_SRCDIR/tests/integration/leakprobe.sh" "$stage/"
chmod a+r "$stage/view-suite.sh" "$stage/leakprobe.sh"

# Other users' files, readable by anyone on the host.
markers=
for d in /srv /opt /mnt /home /var/cache; do
	mkdir -m 755 "$d/$tag"
	planted+=("$d/$tag")
	echo secret >"$d/$tag/secret"
	chmod 644 "$d/$tag/secret"
	markers="$markers $d/$tag/secret"
done
echo secret >"/var/tmp/$tag"
chmod 644 "/var/tmp/$tag"
planted+=("/var/tmp/$tag")
markers="$markers /var/tmp/$tag"

# A service's socket anyone may connect to, and what it saw.
mkdir -m 755 "/srv/$tag/sock"
sock=/srv/$tag/sock/registry.sock
log=/srv/$tag/sock.log
: >"$log"
chmod 644 "$log"
python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o777); s.listen(16)
while True:
    c, _ = s.accept()
    with open(sys.argv[2], "a") as log:
        log.write("connection\n")
    c.close()' "$sock" "$log" &
daemon=$!
for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
[ -S "$sock" ] || die "the test daemon did not create $sock"

# Workspaces below directories the view does not bind, one per caller.
mkdir -m 1777 "/srv/$tag/ws-root"
mkdir -m 755 "/home/$tag/p-root"
chmod 1777 "/home/$tag/p-root"
mkdir -m 755 "/srv/$tag/ws-user" "/home/$tag/p-user"
chown "$TEST_USER:" "/srv/$tag/ws-user" "/home/$tag/p-user"

sum() { sha256sum "$1" 2>/dev/null | cut -d' ' -f1; }
export FIX=1 FIX_MARKERS="$markers" FIX_SOCK="$sock" FIX_SOCK_DIR="/srv/$tag/sock" FIX_SOCK_LOG="$log"
export FIX_HOSTS_SUM="$(sum /etc/hosts)" FIX_MACHINE_ID_SUM="$(sum /etc/machine-id)"
export FIX_CMDLINE_SUM="$(sum /proc/cmdline)"
fixed_env=(PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 STAGE="$stage" FIX="$FIX"
	FIX_MARKERS="$FIX_MARKERS" FIX_SOCK="$FIX_SOCK" FIX_SOCK_DIR="$FIX_SOCK_DIR"
	FIX_SOCK_LOG="$FIX_SOCK_LOG" FIX_HOSTS_SUM="$FIX_HOSTS_SUM"
	FIX_MACHINE_ID_SUM="$FIX_MACHINE_ID_SUM" FIX_CMDLINE_SUM="$FIX_CMDLINE_SUM")
rc=0
cd "$stage/work"
env -i "${fixed_env[@]}" HOME=/root FIX_SRV_WS="/srv/$tag/ws-root" FIX_HOME_WS="/home/$tag/p-root" \
	bash "$stage/view-suite.sh" || rc=1
chown "$TEST_USER:" "$stage/work"
setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups -- \
	env -i "${fixed_env[@]}" HOME=/nonexistent FIX_SRV_WS="/srv/$tag/ws-user" \
	FIX_HOME_WS="/home/$tag/p-user" bash "$stage/view-suite.sh" || rc=1
exit "$rc"

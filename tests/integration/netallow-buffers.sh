#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# netallow-buffers.sh — the kernel buffers of the filtering proxy's sockets
# are bounded (helper/netproxy-conn.c, NETPROXY_SOCKBUF): the proxy's
# sockets are the caller's memory, outside the sandbox's limit memory. In a
# network namespace this test makes, an allowed server on 127.0.0.1 writes
# without end to every connection; the sandbox opens CONNS tunnels to it
# through the proxy, reads the first READ bytes of each (so that the kernel
# grows the buffers it tunes) and then never again. The bytes queued on the proxy's
# sockets (ss's skmem: rmem_alloc plus wmem_queued, summed over every
# socket in the fd tables of the proxy's processes, in the caller's
# namespace toward the server and in the sandbox's toward the command) must
# stay under CONNS times the bound of one connection that
# docs/ARCHITECTURE.md gives (two sockets, each with a receive and a send
# buffer of twice NETPROXY_SOCKBUF, as the kernel doubles what is set).
# Without the bound the kernel tunes both to the traffic, up to
# net.ipv4.tcp_rmem's and tcp_wmem's maximum: 159.8 MB for the 16 tunnels
# (96.9 toward the server, 63.0 toward the sandbox), 15.9 MB with it.
# NABUF_DEBUG=DIR keeps the last ss listings and the proxy's inodes there.
#
# Run by `make check` as root (ip netns, and ss and nsenter on the
# sandbox's sockets, need root). Not root: skipped.
set -uo pipefail
export LC_ALL=C
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CONNS=16                       # tunnels the sandbox opens (the proxy serves 64)
PORT=8097
READ=$((16 * 1024 * 1024))     # bytes the sandbox reads of each tunnel before it stops

if [ -z "${NABUF_STAGE:-}" ]; then
	: "${OSB_BUILDDIR:?OSB_BUILDDIR must point at the build tree (make check sets it)}"
	: "${OSB_SRCDIR:?OSB_SRCDIR must point at the source tree (make check sets it)}"
	test_need netns probe_root
	test_need ip probe_cmd ip iproute2
	test_need ss probe_cmd ss iproute2
	test_need nsenter probe_cmd nsenter util-linux
	test_need python3 probe_cmd python3 python3
	probe_sandbox_python() {
		WHY="/usr/bin/python3 is missing: the command in the sandbox (strict.policy binds /usr) needs it"
		[ -x /usr/bin/python3 ]
	}
	test_need sandbox-python3 probe_sandbox_python
	# NETPROXY_SOCKBUF as the proxy was built with it.
	kib=$(sed -n 's/^#define NETPROXY_SOCKBUF (\([0-9]*\) \* 1024)$/\1/p' "$OSB_SRCDIR/helper/netproxy-conn.h")
	[ -n "$kib" ] || die "no NETPROXY_SOCKBUF (N * 1024) in helper/netproxy-conn.h"
	stage=$(stage_artifacts)
	install -m 755 "$OSB_BUILDDIR/helper/osb-isolate-netproxy" "$stage/bin/"
	install -m 755 "$OSB_SRCDIR/tests/integration/netallow-buffers.sh" "$stage/"
	H=osbnb-$$
	cleanup_outer() {
		[ -n "${srv_pid:-}" ] && kill "$srv_pid" 2>/dev/null
		ip netns del "$H" 2>/dev/null
		rm -rf "$stage"
	}
	trap cleanup_outer EXIT
	ip netns add "$H" && ip -n "$H" link set lo up || die "cannot create a network namespace"
	# The server: every connection gets 64 KiB writes until it is closed.
	ip netns exec "$H" python3 -c '
import socket, sys, threading
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(128)
chunk = b"x" * 65536
def flood(c):
    try:
        while True:
            c.sendall(chunk)
    except OSError:
        c.close()
while True:
    c, _ = s.accept()
    threading.Thread(target=flood, args=(c,), daemon=True).start()' "$PORT" >/dev/null 2>&1 &
	srv_pid=$!
	for i in $(seq 50); do
		ip netns exec "$H" python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()' "$PORT" 2>/dev/null && break
		sleep 0.1
	done
	rc=0
	(cd / && ip netns exec "$H" env -i PATH=/usr/bin:/bin OSB_REQUIRE="${OSB_REQUIRE:-}" \
		NABUF_DEBUG="${NABUF_DEBUG:-}" NABUF_SOCKBUF=$((kib * 1024)) NABUF_STAGE="$stage" bash "$stage/netallow-buffers.sh") || rc=1
	exit "$rc"
fi

S=$NABUF_STAGE
SOCKBUF=$NABUF_SOCKBUF
OSB=$S/bin/osb-isolate
PROXY=$S/bin/osb-isolate-netproxy
export OSB_ISOLATE_INIT=$S/bin/osb-isolate-init OSB_ISOLATE_NETPROXY=$PROXY
export OSB_ISOLATE_POLICY_DIR=$S/policy
T=$(mktemp -d /tmp/osb-nabuf.XXXXXX) || die "mktemp failed"
chmod 755 "$T"
RUN=$(mktemp -d /tmp/nab.XXXXXX) || die "mktemp failed"
export XDG_RUNTIME_DIR=$RUN
cmd_pid=
trap '[ -n "$cmd_pid" ] && kill -KILL "$cmd_pid" 2>/dev/null; rm -rf "$T" "$RUN"' EXIT

# The sandbox's client: CONNS tunnels to the server, each asked for, read
# for its first READ bytes (so that the kernel grows the buffers it tunes
# to the traffic) and then never again; it says how many it opened, then
# sleeps.
CLIENT='import socket, sys, time
n, port, want = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
socks = []
for i in range(n):
    c = socket.create_connection(("127.0.0.1", 3128), 10)
    c.sendall(("CONNECT 127.0.0.1:%s HTTP/1.1\r\nHost: 127.0.0.1:%s\r\n\r\n" % (port, port)).encode())
    got = 0
    while got < want:
        b = c.recv(1 << 20)
        if not b:
            sys.exit("tunnel %d closed after %d bytes" % (i, got))
        got += len(b)
    socks.append(c)
print("opened", len(socks), flush=True)
time.sleep(120)'

# Every socket inode in the fd tables of the proxy's processes.
proxy_inodes() {
	local p
	for p in $(pgrep -f "^$PROXY "); do
		ls -l "/proc/$p/fd" 2>/dev/null | sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p'
	done | sort -u
}

# The sum of rmem_alloc + wmem_queued (skmem r and w) of the established TCP
# sockets ss lists (on stdin, with -tnmeH) whose inode is in the file $1,
# and their count: "BYTES SOCKETS".
queued() {
	awk -v inos="$1" '
	BEGIN { while ((getline l < inos) > 0) want[l] = 1 }
	/ino:/ { ino = ""; for (i = 1; i <= NF; i++) if ($i ~ /^ino:/) ino = substr($i, 5); keep = (ino in want) }
	/skmem:/ && keep { if (match($0, /skmem:\([^)]*\)/)) { s = substr($0, RSTART + 7, RLENGTH - 8)
		k = split(s, f, ","); for (i = 1; i <= k; i++) { if (f[i] ~ /^r[0-9]/) b += substr(f[i], 2) + 0
			if (f[i] ~ /^w[0-9]/) b += substr(f[i], 2) + 0 }; socks++ } }
	END { printf "%d %d\n", b, socks }'
}

# ss prints an established socket on one line with -e and -m (-H: no header).
measure() { # sandbox-pid: "UP_BYTES UP_SOCKS DOWN_BYTES DOWN_SOCKS"
	proxy_inodes >"$T/inodes"
	# ss says "Failed to find cgroup2 mount" where ip netns exec left none.
	ss -tnmeH state established >"$T/ss-up" 2>/dev/null
	nsenter --net="/proc/$1/ns/net" ss -tnmeH state established >"$T/ss-down" 2>/dev/null
	printf '%s %s\n' "$(queued "$T/inodes" <"$T/ss-up")" "$(queued "$T/inodes" <"$T/ss-down")"
}

printf 'osb-policy 1\ninclude %s/strict.policy\nworkspace none\nenv set HOME=/tmp\nnetwork allow 127.0.0.1:%s\n' \
	"$OSB_ISOLATE_POLICY_DIR" "$PORT" >"$T/buf.policy"
chmod 644 "$T/buf.policy"
(cd / && exec "$OSB" run -p "$T/buf.policy" -- /usr/bin/python3 -c "$CLIENT" "$CONNS" "$PORT" "$READ") \
	>"$T/out" 2>"$T/err" &
cmd_pid=$!
for i in $(seq 300); do grep -q '^opened' "$T/out" && break; sleep 0.1; done
expect_eq "the sandbox opened $CONNS tunnels through the proxy" "opened $CONNS" "$(cat "$T/out")"
# The sandbox's network namespace: that of the client, a process of the
# sandbox running python3 with the client's text.
spid=$(pgrep -f "^/usr/bin/python3 -c import socket, sys, time" | head -n1)
[ -n "$spid" ] || die "cannot find the sandbox's client process ($(cat "$T/err"))"
# The queues fill within a second on loopback; take the largest total of
# ten samples over 3 s.
max_up=0 max_down=0 up_socks=0 down_socks=0
sleep 1
for i in $(seq 10); do
	read -r ub us db ds <<<"$(measure "$spid")"
	[ "$ub" -gt "$max_up" ] && max_up=$ub
	[ "$db" -gt "$max_down" ] && max_down=$db
	up_socks=$us down_socks=$ds
	sleep 0.3
done
[ -n "${NABUF_DEBUG:-}" ] && cp "$T/ss-up" "$T/ss-down" "$T/inodes" "$NABUF_DEBUG/"
kill -KILL "$cmd_pid" 2>/dev/null
wait "$cmd_pid" 2>/dev/null
cmd_pid=
expect_eq "every tunnel's socket toward the server is the proxy's" "$CONNS" "$up_socks"
expect_eq "every tunnel's socket toward the sandbox is the proxy's" "$CONNS" "$down_socks"
# docs/ARCHITECTURE.md, "Bounded socket buffers": a connection's two
# sockets hold at most 2 x (2 x SOCKBUF + 2 x SOCKBUF).
bound=$((CONNS * 2 * 4 * SOCKBUF))
total=$((max_up + max_down))
echo "# queued on the proxy's sockets: $max_up bytes toward the server, $max_down toward the sandbox, bound $bound"
if [ "$total" -le "$bound" ]; then
	pass "the proxy's sockets queue $total bytes for $CONNS flooded tunnels, within $bound"
else
	flunk "the proxy's sockets queue at most $bound bytes for $CONNS flooded tunnels" \
		"toward the server: $max_up bytes; toward the sandbox: $max_down bytes"
fi
finish_suite $((n - failures)) "$failures"

#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# bench/netproxy.sh — the latency "network allow" adds to one connection:
# N sequential HTTP requests (curl, a new connection each) to a local
# server in a network namespace this script makes (198.51.100.2, TEST-NET-2
# on a veth pair; never an outside address), timed by curl itself
# (time_total), from the host directly and from inside a sandbox through
# the filtering proxy (plain HTTP, and CONNECT). The sandbox's start is not
# in the times. Prints a markdown section for bench/RESULTS.md.
#
#   bench/netproxy.sh BUILDDIR [N]      (as root; N defaults to 200)
set -euo pipefail
export LC_ALL=C.UTF-8
B=${1:?usage: bench/netproxy.sh BUILDDIR [N]}
N=${2:-200}
SRC=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "bench/netproxy.sh: needs root (ip netns)" >&2; exit 1; }
T=$(mktemp -d /tmp/osb-npbench.XXXXXX)
chmod 755 "$T"
H=osbnb-h-$$ R=osbnb-r-$$
cleanup() {
	[ -n "${SRV:-}" ] && kill "$SRV" 2>/dev/null
	ip netns del "$H" 2>/dev/null
	ip netns del "$R" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
"$SRC/tools/stage-cli.sh" "$B" "$T" >/dev/null
ip netns add "$H"
ip netns add "$R"
ip -n "$H" link set lo up
ip -n "$R" link set lo up
ip link add osbnb-a netns "$H" type veth peer name osbnb-b netns "$R"
ip -n "$H" addr add 198.51.100.1/24 dev osbnb-a
ip -n "$H" link set osbnb-a up
ip -n "$R" addr add 198.51.100.2/24 dev osbnb-b
ip -n "$R" link set osbnb-b up
mkdir "$T/srv" && echo x >"$T/srv/x" && chmod -R a+rX "$T/srv"
(cd "$T/srv" && exec ip netns exec "$R" python3 -m http.server 8080 --bind 198.51.100.2) \
	>/dev/null 2>&1 &
SRV=$!
for _ in $(seq 50); do
	ip netns exec "$H" curl -s -o /dev/null http://198.51.100.2:8080/x && break
	sleep 0.1
done
printf '198.51.100.2 allowed.test\n' >"$T/hosts"
printf 'osb-config 1\nnet-hosts %s\n' "$T/hosts" >"$T/config"
printf 'osb-policy 1\ninclude strict\nworkspace none\nenv set HOME=/tmp\nnetwork allow allowed.test:8080\n' \
	>"$T/p.policy"
chmod 644 "$T/hosts" "$T/config" "$T/p.policy"
LOOP='for i in $(seq '"$N"'); do curl -s -o /dev/null -w "%{time_total}\n" "$@"; done'
direct=$(ip netns exec "$H" sh -c "$LOOP" sh http://198.51.100.2:8080/x)
inside() {
	(cd / && ip netns exec "$H" env OSB_ISOLATE_INIT="$B/helper/osb-isolate-init" \
		OSB_ISOLATE_NETPROXY="$B/helper/osb-isolate-netproxy" OSB_ISOLATE_POLICY_DIR="$SRC/policy" \
		OSB_ISOLATE_CONFIG="$T/config" "$T/bin/osb-isolate" run -t 10m -p "$T/p.policy" -- \
		sh -c "$LOOP" sh "$@")
}
plain=$(inside http://allowed.test:8080/x)
connect=$(inside -p http://allowed.test:8080/x)
python3 - "$N" "$direct" "$plain" "$connect" "$(cut -d' ' -f1-3 /proc/loadavg)" \
	"$(nproc)" "$(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo unknown)" <<'EOF'
import statistics, sys, time
n = sys.argv[1]
d, p, c = ([float(x) * 1000 for x in a.split()] for a in sys.argv[2:5])
load, cpus, commit = sys.argv[5:8]
md, mp, mc = (statistics.median(v) for v in (d, p, c))
print("## Network allowlist proxy (`bench/netproxy.sh`)\n")
print("%s sequential HTTP requests, a new connection each, to a local server in a network "
      "namespace (a veth pair), timed by curl (`time_total`); the sandbox's start is not "
      "included. Machine as above (nproc %s); %s, load average %s (1, 5, 15 min) after the "
      "run, osb-isolate commit %s.\n" % (n, cpus, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                                          load, commit))
print("| row | median | p90 | added per connection |")
print("|---|---|---|---|")
q = lambda v: statistics.quantiles(v, n=10)[-1]
print("| direct, from the host | %.2f ms | %.2f ms |  |" % (md, q(d)))
print("| through the proxy, plain HTTP | %.2f ms | %.2f ms | +%.2f ms |" % (mp, q(p), mp - md))
print("| through the proxy, CONNECT | %.2f ms | %.2f ms | +%.2f ms |" % (mc, q(c), mc - md))
EOF

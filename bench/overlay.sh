#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# bench/overlay.sh — what an overlay workspace costs a session, against a
# writable (rw) one, measured on this machine and written as the section
# "Overlay workspaces" of bench/RESULTS.md (the section is replaced; the rest
# of the file is bench/run.sh's, which runs this script at its end).
#
#   OSB_BUILDDIR=/path/to/build bench/overlay.sh    (as root)
#
# hyperfine (-N, OSB_BENCH_RUNS runs per row, 20 by default) times, each run
# on a fresh session (--prepare ends the previous one and sets the next up):
# `session start` with a rw and with an overlay workspace (strict, identity
# userns); `session exec` of a shell loop writing 1,000 small files into the
# workspace, rw and overlay; and `session commit` of those 1,000 files from
# the overlay's layer into an empty workspace (after the `session diff` a
# commit needs, in --prepare). rw writes its files once;
# overlay writes them to its layer, then the commit writes them again,
# each through the atomic writer (a temporary file, fsync, rename, fsync of
# the directory).
set -euo pipefail
export LC_ALL=C.UTF-8
SRC=$(cd "$(dirname "$0")/.." && pwd)
B=${OSB_BUILDDIR:?OSB_BUILDDIR must name a configured, built tree}
RUNS=${OSB_BENCH_RUNS:-20}
OUT=${OSB_BENCH_OUT:-$SRC/bench/RESULTS.md}
[ "$(id -u)" -eq 0 ] || { echo "bench/overlay.sh: run as root" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "bench/overlay.sh: apt-get install hyperfine" >&2; exit 1; }

T=$(mktemp -d /tmp/osb-bench-ov.XXXXXX)
chmod 755 "$T"
# Session sockets need a short path (sun_path).
RUN=$(mktemp -d /tmp/obo.XXXXXX)
trap 'for s in ov rw; do "$OSB" session stop "b-$s" >/dev/null 2>&1 || true; done; rm -rf "$T" "$RUN"' EXIT
mkdir -p "$T/stage/bin"
"$SRC/tools/stage-cli.sh" "$B" "$T/stage" >/dev/null
cp "$B/helper/osb-isolate-init" "$T/stage/bin/"
OSB=$T/stage/bin/osb-isolate
export OSB_ISOLATE_INIT=$T/stage/bin/osb-isolate-init OSB_ISOLATE_POLICY_DIR=$SRC/policy
export XDG_RUNTIME_DIR=$RUN
for m in rw overlay; do
	printf 'osb-policy 1\ninclude %s/strict.policy\nworkspace %s\nidentity userns\nhost-ids 4242 4242\n' \
		"$SRC/policy" "$m" >"$T/$m.policy"
done
WRITE='i=0; while [ $i -lt 1000 ]; do i=$((i+1)); echo $i > f$i; done'

# prep MODE NAME [WRITE]: a fresh empty workspace and session NAME on it (the
# previous one stopped), with the 1,000 files written when WRITE is given.
cat >"$T/prep.sh" <<EOF
#!/bin/sh
"$OSB" session stop "\$2" >/dev/null 2>&1
rm -rf "$T/ws-\$2" && mkdir "$T/ws-\$2" && chown 4242:4242 "$T/ws-\$2"
"$OSB" session start -n "\$2" -p "$T/\$1.policy" -w "$T/ws-\$2" >/dev/null || exit 1
[ -z "\$3" ] || "$OSB" session exec "\$2" -- sh -c '$WRITE'
[ -z "\$3" ] || "$OSB" session diff "\$2" >/dev/null
EOF
cat >"$T/stop.sh" <<EOF
#!/bin/sh
"$OSB" session stop "\$1" >/dev/null 2>&1
rm -rf "$T/ws-\$1" && mkdir "$T/ws-\$1" && chown 4242:4242 "$T/ws-\$1"
exit 0
EOF
chmod 755 "$T/prep.sh" "$T/stop.sh"

hyperfine -N --style basic --runs "$RUNS" --export-json "$T/hf.json" \
	-n "session start, rw" --prepare "$T/stop.sh b-rw" \
	"$OSB session start -n b-rw -p $T/rw.policy -w $T/ws-b-rw" \
	-n "session start, overlay" --prepare "$T/stop.sh b-ov" \
	"$OSB session start -n b-ov -p $T/overlay.policy -w $T/ws-b-ov" \
	-n "exec writing 1,000 files, rw" --prepare "$T/prep.sh rw b-rw" \
	"$OSB session exec b-rw -- sh -c '$WRITE'" \
	-n "exec writing 1,000 files, overlay" --prepare "$T/prep.sh overlay b-ov" \
	"$OSB session exec b-ov -- sh -c '$WRITE'" \
	-n "commit of 1,000 files, overlay" --prepare "$T/prep.sh overlay b-ov write" \
	"$OSB session commit b-ov" >&2

python3 - "$T/hf.json" "$OUT" "$RUNS" <<'EOF'
import json, os, platform, statistics, subprocess, sys, time
hf, out, runs = sys.argv[1], sys.argv[2], sys.argv[3]
res = {r["command"]: r for r in json.load(open(hf))["results"]}
def ms(v): return "%.2f ms" % (v * 1000)
def row(name, to=None):
    r = res[name]
    med = statistics.median(r["times"])
    ratio = "%.2f" % (med / statistics.median(res[to]["times"])) if to else ""
    return "| %s | %s | %s ± %s | %s | %s | %s |" % (name, ms(med), ms(r["mean"]), ms(r["stddev"]),
                                                 ms(r["min"]), ratio, to or "")
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
lines = [
    "## Overlay workspaces (bench/overlay.sh)", "",
    "Written by `bench/overlay.sh` (see its header). %s, nproc %d, kernel %s, %s UTC, load average %s."
    % (cpu, os.cpu_count(), platform.release(), time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
       " ".join(open("/proc/loadavg").read().split()[:3])), "",
    "hyperfine -N, %s runs per row, each on a fresh session; strict, identity userns, a root caller." % runs, "",
    "| row | median | mean ± σ | min | ratio of medians | to |",
    "|---|---|---|---|---|---|",
    row("session start, rw"),
    row("session start, overlay", "session start, rw"),
    row("exec writing 1,000 files, rw"),
    row("exec writing 1,000 files, overlay", "exec writing 1,000 files, rw"),
    row("commit of 1,000 files, overlay", "exec writing 1,000 files, rw"),
    "",
]
text = open(out).read() if os.path.exists(out) else ""
head = text.split("## Overlay workspaces (bench/overlay.sh)")[0].rstrip("\n")
open(out, "w").write((head + "\n\n" if head else "") + "\n".join(lines))
EOF
echo "bench/overlay.sh: wrote the overlay section of $OUT" >&2

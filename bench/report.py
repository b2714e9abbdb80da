#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
"""report.py — turn bench/run.sh's measurements into bench/RESULTS.md.

Inputs: hyperfine's JSON export (one invocation, every process-level row),
and key=value lines from api-bench, sysloop and the CLI loops (a key given
several times is a series: its median is used). Output: the markdown report,
with every target judged PASS or MISS; the verdicts are printed too. For a
MISS the report says what the measurement shows the time goes to (the
launch stages api-bench timed on this machine) and what would remove it.
Measurements made once by hand, before and after a change that cannot be
measured again (bench/init-startup.md: the dynamic init against the static
one; bench/cover.md: the /proc cover made by bwrap against made by the init),
are appended as they are.
"""
import json
import os
import statistics
import sys

TARGET_RUN = 1.10        # osb-isolate run / bare bwrap
TARGET_HAND = 1.25       # osb-isolate run / hand-written bwrap
TARGET_FIREJAIL = 0.5    # osb-isolate run / firejail --noprofile true
TARGET_SESSION_CLI = 2.0 # osb-isolate session exec / host true
TARGET_SESSION = 1.5     # session exec / host spawn of the same program
TARGET_SECCOMP = 5.0     # % per-call overhead of the filter
TARGET_RULES = 2.0       # % of the filter's rules over a 1-instruction allow-all filter
TARGET_MEMORY_KIB = 4096 # holder + broker peak resident memory
GROWTH_KIB = 128         # RSS growth from exec 100 to exec N still called flat


def pool(results, kv):
    """hyperfine's benchmarks are (row, round) pairs: pool each row's runs over
    the rounds (median, mean, σ, min of all its times) and keep each round's
    median for ratios within a round. Rows are named by the run's row= lines."""
    names = dict(v.split("\t", 1)[::-1] for v in kv.get("row", []))
    times, rounds = {}, {}
    for r in results:
        name = names[r["parameters"]["row"]]
        times.setdefault(name, []).extend(r["times"])
        rounds.setdefault(name, {})[r["parameters"]["round"]] = r["median"]
    rows = {}
    for name in names.values():
        t = times[name]
        rows[name] = {"median": statistics.median(t), "mean": statistics.mean(t),
                      "stddev": statistics.stdev(t), "min": min(t), "times": t}
    return rows, rounds


def load_kv(path):
    kv = {}
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if "=" in line:
            k, v = line.split("=", 1)
            kv.setdefault(k, []).append(v)
    return kv


def num(kv, key):
    vals = [float(v) for v in kv.get(key, []) if v not in ("", "-1")]
    return statistics.median(vals) if vals else None


def lowest(kv, key):
    vals = [float(v) for v in kv.get(key, []) if v not in ("", "-1")]
    return min(vals) if vals else None


def text(kv, key):
    return kv.get(key, [""])[0]


def ms(seconds):
    return "%.2f ms" % (seconds * 1e3)


def paired_pct(kv, kind, a, b):
    """Median over repetitions of A's cost over B's in the same repetition, in %."""
    xs = [float(v) for v in kv["sysloop_%s_%s_ns" % (kind, a)]]
    ys = [float(v) for v in kv["sysloop_%s_%s_ns" % (kind, b)]]
    return statistics.median((x / y - 1) * 100 for x, y in zip(xs, ys))


def verdict(ok):
    return "**PASS**" if ok else "**MISS**"


def issue_notes(med, kv, verdicts):
    """The targets against a hand-written bwrap, firejail, the host's `true` and
    the memory budget: what each gap is made of, from this run's numbers."""
    out = []
    if "hand-bwrap" in med:
        ok = all(v for t, v in verdicts.items() if "hand-written" in t or "firejail" in t)
        policy = (med["bare-bwrap"] - med["hand-bwrap"]) * 1e3
        ours = (med["osb-run"] - med["bare-bwrap"]) * 1e3
        out += ["### `osb-isolate run` against a hand-written bwrap and firejail (%s)"
                % ("targets met" if ok else "targets missed"), "",
                "Of the %.2f ms between `run` and the hand-written bwrap (medians), %.2f ms are "
                "bwrap itself doing what strict asks beyond that command line: bare bwrap with "
                "strict's own argv and fds takes %.2f ms against %.2f ms. That is the "
                "isolation the policy promises: the size-bounded tmpfs mounts, the "
                "synthesized passwd, group, hostname, hosts and loadavg and the bind of each "
                "verified source (bwrap reads the whole mount table after each of its binds), "
                "the read-only rules of the workspace's .git, and in the init the /proc cover "
                "and identity masks (about forty mounts, made by the init since bwrap's own "
                "binds cost about 0.3 ms each: bench/cover.md), its mount audit, Landlock, "
                "rlimits, the filter and the fork of the command. The other %.2f ms are "
                "osb-isolate's own (the note above). A policy with fewer rules costs less; "
                "the shipped strict does not drop any of them to meet a ratio."
                % ((med["osb-run"] - med["hand-bwrap"]) * 1e3, policy, med["bare-bwrap"] * 1e3,
                   med["hand-bwrap"] * 1e3, ours)]
        if "firejail" in med:
            out += ["", "Against firejail (%.2f ms) the same holds: bare bwrap with strict's "
                    "argv alone is %.2f times firejail's start, so no launcher in front of it "
                    "could bring `run` to %.2f." % (med["firejail"] * 1e3,
                                                    med["bare-bwrap"] / med["firejail"],
                                                    TARGET_FIREJAIL)]
        out += [""]
    if "session-exec-cli" in med:
        cli = (med["cli-start"] - med["host-true"]) * 1e3
        gap = (med["session-exec-cli"] - med["host-true"]) * 1e3
        ok = next((v for t, v in verdicts.items() if t.startswith("`osb-isolate session exec")),
                  False)
        out += ["### `osb-isolate session exec` against the host's `true` (%s)"
                % ("target met" if ok else "target missed"), "",
                "The exec adds %.2f ms to the host's `true` (medians); %.2f ms of it is the "
                "CLI's own process start (`osb-isolate --version` minus `true`: the dynamic "
                "loader mapping and binding libosb-isolate, libseccomp, libcap and json-c, "
                "with immediate binding). The exec itself, measured through the C API in a "
                "warm process, is %.2f ms against the host's posix_spawn of %.2f ms. The "
                "target sits near a floor: a session exec is two process starts (the client's "
                "and the command's own, inside), the host's `true` one. "
                "Where each start is dear (here a libc start alone spends about 0.5 ms in the "
                "CPU-feature probe before main, see bench/init-startup.md) a client that is a "
                "glibc program cannot meet it: its start (%.2f ms, the host's `true`) and the "
                "exec (%.2f ms) are %.2f x `true` already; a libc-only client would remove the "
                "%.2f ms above, only a client with no libc start at all could go below 2."
                % (gap, cli, (num(kv, "session_exec_median_us") or 0) / 1e3,
                   (num(kv, "host_spawn_median_us") or 0) / 1e3, med["host-true"] * 1e3,
                   (num(kv, "session_exec_median_us") or 0) / 1e3,
                   (med["host-true"] * 1e3 + (num(kv, "session_exec_median_us") or 0) / 1e3)
                   / (med["host-true"] * 1e3), cli), ""]
    hwm = num(kv, "holder_hwm_kib"), num(kv, "cli_broker_hwm_kib")
    if None not in hwm and hwm[0] + hwm[1] > TARGET_MEMORY_KIB:
        out += ["### Peak memory of a session's processes (target missed)", "",
                "The broker (the sandbox's pid 1, a static program) peaks at %.0f KiB; the "
                "holder, the `osb-isolate session start` process that keeps the session, at "
                "%.0f KiB, most of it file pages of the shared libraries the CLI links "
                "(libc, libosb-isolate, libseccomp, libcap, json-c; no longer libmount, "
                "libblkid, libselinux and libpcre2; the host-id account lookups, which load "
                "name-service modules, run in a child of the holder), which VmHWM counts in "
                "full though every process using them shares them; its own anonymous memory "
                "is a few hundred KiB." % (hwm[1], hwm[0]), ""]
    return out


def notes(rows, kv, sc, targets):
    """Where the time goes, from this run's own numbers."""
    med = {name: r["median"] for name, r in rows.items()}
    verdicts = {t[0]: t[3] for t in targets}
    run_ok = next(ok for t, ok in verdicts.items() if t.startswith("`osb-isolate run"))
    sc_ok = all(ok for t, ok in verdicts.items() if t.startswith("seccomp filter"))
    mins = {name: r["min"] for name, r in rows.items()}
    d = (med["osb-run"] - med["bare-bwrap"]) * 1e3
    dmin = (mins["osb-run"] - mins["bare-bwrap"]) * 1e3
    cli = (mins["cli-start"] - mins["host-true"]) * 1e3
    us = {k: (lowest(kv, "stage_%s_us" % k) or 0) / 1e3
          for k in ("host_facts", "workspace", "policy_load", "filter",
                    "caps_check", "identity_env")}
    rest = dmin - cli - sum(us.values())
    warm = num(kv, "oneshot_median_us") / 1e3
    out = ["## Notes", "",
           "### `osb-isolate run` against bare bwrap (%s)" % ("target met" if run_ok else
                                                            "target missed"), "",
           "`run` takes %.2f ms more than bare bwrap, median to median (ratio %.2f); the "
           "fastest runs of each, least disturbed by other work on this two-CPU machine, "
           "differ by %.2f ms (%.2f ms against %.2f ms, ratio %.2f). Taken apart with the "
           "fastest of each timing: %.2f ms is the CLI's own process start (`osb-isolate "
           "--version` minus `true`: loading libosb-isolate, libseccomp, libcap and json-c "
           "with immediate binding, where the bare-bwrap launcher is a libc-only program that "
           "execs bwrap in place). Before bwrap starts, a fresh process spends (the stage "
           "table) %.2f ms gathering the host's facts (bwrap's options from its kept --help, "
           "never from its version, and probing for a user namespace: one more fork per "
           "process), %.2f ms "
           "verifying the workspace (the passwd home of the caller, the mount-table scan), "
           "%.2f ms parsing the policy, %.2f ms on the "
           "seccomp program and %.2f ms on the capability check, passwd, group and "
           "environment. %s"
           % (d, med["osb-run"] / med["bare-bwrap"], dmin, mins["osb-run"] * 1e3,
              mins["bare-bwrap"] * 1e3, mins["osb-run"] / mins["bare-bwrap"], cli,
              us["host_facts"], us["workspace"], us["policy_load"],
              us["filter"], us["caps_check"] + us["identity_env"],
              ("The remaining %.2f ms are starting bwrap (posix_spawn with an exact fd table "
               "and a pidfd, where the launcher execs in place) and supervising it (five "
               "pipes, poll, the status channel)." % rest) if rest >= 0 else
              ("These add up to %.2f ms more than the difference: the stage timings, taken "
               "in their own processes before the rows, met more load from other work than "
               "the fastest rows did; they say where the time goes, not exactly how much."
               % -rest)), "",
           "Removed after profiling (lib/caps.c, lib/seccomp.c, lib/plan.c): every fresh "
           "process ran the full capabilities probe before its launch — sandboxes of its own "
           "in each identity mode, `bwrap --version` and `--help`, every shipped policy parsed "
           "and its filter built — about 20 to 30 ms; a launch now runs only the checks that "
           "start no sandbox and runs the probe only when one fails, to name the reason. The "
           "default seccomp group was compiled by libseccomp on every launch, about 3.5 ms of "
           "CPU; it is compiled at build time and copied into the memfd. The user-namespace "
           "probe cloned the whole process; it now shares its memory (vfork-like).", "",
           "What would remove the rest: `bwrap --help` is read once per bwrap binary and kept "
           "between processes (lib/helpcache.c: keyed by the binary's device, inode, size and "
           "times, in a file only the caller can write, with bwrap's own \"Unknown option\" "
           "refusal as the fail-closed backstop), so the host facts above are mostly the "
           "user-namespace probe. A long-lived caller pays the rest once: `osb_run` in a warm "
           "process (C API, above) takes %.2f ms, %.2f times bare bwrap's process (which "
           "includes the launcher's own start). The CLI's start would shrink with static "
           "linking or lazy binding, at the cost of the hardening (`-z now`, full RELRO)."
           % (warm, warm / (med["bare-bwrap"] * 1e3)), ""]
    out += issue_notes(med, kv, verdicts)
    g = sc["getppid"]
    st_ = sc["stat"]
    mx = sc["mix"]
    out += ["### The seccomp filter per system call (%s)" % ("targets met" if sc_ok else
                                                          "a target missed"), "",
            "Per call, the shipped filter costs %+.1f %% on getppid (the cheapest system "
            "call), %+.1f %% on stat(\"/\") and %+.1f %% on a mix of getppid, stat, read, "
            "open and close. A one-instruction filter that allows everything costs %+.1f %%, "
            "%+.1f %% and %+.1f %% on the same loops: that part is the kernel's seccomp entry "
            "path, which every system call of a filtered task takes whatever the filter holds "
            "(the kernel's action cache already skips the BPF program for calls a filter "
            "always allows, which is every call these loops make). The rules of the deny group "
            "add %+.1f %%, %+.1f %% and %+.1f %% over it. Where a number exceeds %.0f %%, "
            "nothing in the filter's content can remove the entry-path share: only running "
            "without a filter would (`seccomp none`, which no shipped policy does); and "
            "differences of a few percent are within this machine's noise."
            % (g[2], st_[2], mx[2], g[5], st_[5], mx[5], g[4], st_[4], mx[4],
               TARGET_SECCOMP), ""]
    return out


def main():
    hf_path, kv_path, out_path = sys.argv[1:4]
    kv = load_kv(kv_path)
    rows, rounds = pool(json.load(open(hf_path))["results"], kv)
    med = {name: r["median"] for name, r in rows.items()}
    lines, targets = [], []

    def ratio(a, b):
        return med[a] / med[b] if a in med and b in med else None

    def round_ratio(a, b):
        """Median over rounds of A's median over B's in the same round, and the range."""
        rs = sorted(rounds[a][k] / rounds[b][k] for k in rounds[a])
        return statistics.median(rs), rs[0], rs[-1]

    lines += ["# Benchmarks", "",
              "Written by `bench/run.sh` (see its header for what each row is). "
              "Do not edit: run it again.", "",
              "## Machine", "",
              "| | |", "|---|---|",
              "| CPU | %s (nproc %s) |" % (text(kv, "cpu"), text(kv, "nproc")),
              "| kernel | %s |" % text(kv, "kernel"),
              "| bwrap | %s |" % text(kv, "bwrap"),
              "| hyperfine | %s |" % text(kv, "hyperfine"),
              "| firejail | %s |" % (text(kv, "firejail") or "not available"),
              "| date | %s |" % text(kv, "date"),
              "| load average (1, 5, 15 min) | before: %s; after: %s |"
              % (text(kv, "loadavg_before"), text(kv, "loadavg_after")),
              "| osb-isolate | commit %s |" % text(kv, "commit"), ""]

    # ---- process-level rows (one hyperfine invocation) ----
    desc = {
        "host-true": ("`true`", "the fork+exec floor", None),
        "cli-start": ("`osb-isolate --version`", "the CLI's own process start", "host-true"),
        "bare-bwrap": ("bare bwrap, strict argv", "bwrap + init with osb-isolate's argv and fds",
                       "host-true"),
        "hand-bwrap": ("hand-written bwrap", "what a user would type for the same isolation "
                       "(bench/run.sh, hand_bwrap)", "host-true"),
        "osb-run": ("`osb-isolate run -- true`", "strict, the whole CLI", "bare-bwrap"),
        "session-exec-cli": ("`osb-isolate session exec ID -- true`",
                             "CLI client process + one exec in a live session", "host-true"),
        "firejail": ("`firejail --noprofile true`", "for reference", "bare-bwrap"),
        "caps-cli": ("`osb-isolate capabilities`", "a new process: the uncached probe",
                     "bare-bwrap"),
        "sysloop-filter": ("1e6 getppid, seccomp default", "sandbox start included",
                           "sysloop-nofilter"),
        "sysloop-nofilter": ("1e6 getppid, seccomp none", "sandbox start included", None),
    }
    lines += ["## One hyperfine run (`-N`, %d runs per row in %d interleaved rounds)" %
              (len(next(iter(rows.values()))["times"]), len(next(iter(rounds.values())))), "",
              "| row | what | median | mean ± σ | min | ratio of medians | to |",
              "|---|---|---|---|---|---|---|"]
    for name, r in rows.items():
        title, what, ref = desc.get(name, (name, "", None))
        rt = ratio(name, ref) if ref else None
        lines.append("| %s | %s | %s | %s ± %s | %s | %s | %s |" % (
            title, what, ms(r["median"]), ms(r["mean"]), ms(r["stddev"]), ms(r["min"]),
            "%.2f" % rt if rt else "", desc[ref][0] if ref else ""))
    if text(kv, "firejail_note"):
        lines += ["", "firejail: %s." % text(kv, "firejail_note")]
    lines.append("")

    # ---- targets ----
    r_run = ratio("osb-run", "bare-bwrap")
    r_med, r_lo, r_hi = round_ratio("osb-run", "bare-bwrap")
    targets.append(("`osb-isolate run -- true` / bare bwrap", "≤ %.2f" % TARGET_RUN,
                    "%.2f (ratio of medians; within a round: median %.2f, %.2f to %.2f)"
                    % (r_run, r_med, r_lo, r_hi), max(r_run, r_med) <= TARGET_RUN))
    r_hand = ratio("osb-run", "hand-bwrap")
    if r_hand:
        h_med, h_lo, h_hi = round_ratio("osb-run", "hand-bwrap")
        targets.append(("`osb-isolate run -- true` / hand-written bwrap", "≤ %.2f" % TARGET_HAND,
                        "%.2f (within a round: median %.2f, %.2f to %.2f)"
                        % (r_hand, h_med, h_lo, h_hi), max(r_hand, h_med) <= TARGET_HAND))
    r_fj = ratio("osb-run", "firejail")
    if r_fj:
        targets.append(("`osb-isolate run -- true` / `firejail --noprofile true`",
                        "≤ %.2f" % TARGET_FIREJAIL, "%.2f" % r_fj, r_fj <= TARGET_FIREJAIL))
    r_cli = ratio("session-exec-cli", "host-true")
    targets.append(("`osb-isolate session exec ID -- true` / host `true`",
                    "≤ %.1f" % TARGET_SESSION_CLI, "%.2f (%s / %s)" % (
                        r_cli, ms(med["session-exec-cli"]), ms(med["host-true"])),
                    r_cli <= TARGET_SESSION_CLI))
    spawn, sess = num(kv, "host_spawn_median_us"), num(kv, "session_exec_median_us")
    r_sess, r_pair = sess / spawn, num(kv, "session_exec_paired_ratio_median")
    targets.append(("one exec in a live session (C API) / host posix_spawn of `true`",
                    "≤ %.1f" % TARGET_SESSION, "%.2f (%.0f µs / %.0f µs; paired per exec: %.2f)"
                    % (r_sess, sess, spawn, r_pair), max(r_sess, r_pair) <= TARGET_SESSION))
    sc = {}
    for kind in ("getppid", "stat", "mix"):
        f, n = num(kv, "sysloop_%s_filter_ns" % kind), num(kv, "sysloop_%s_nofilter_ns" % kind)
        a = num(kv, "sysloop_%s_allowall_ns" % kind)
        sc[kind] = (f, n, paired_pct(kv, kind, "filter", "nofilter"), a,
                    paired_pct(kv, kind, "filter", "allowall"),
                    paired_pct(kv, kind, "allowall", "nofilter"))
    f, n, pct = sc["getppid"][:3]
    targets.append(("seccomp filter, per call, getppid loop (the cheapest call)",
                    "≤ %.0f %%" % TARGET_SECCOMP, "%+.1f %% (%.1f ns vs %.1f ns)" % (pct, f, n),
                    pct <= TARGET_SECCOMP))
    sf, sn, spct = sc["stat"][:3]
    targets.append(("seccomp filter, per call, stat(\"/\") loop (a file-system call)",
                    "≤ %.0f %%" % TARGET_SECCOMP, "%+.1f %% (%.1f ns vs %.1f ns)" % (spct, sf, sn),
                    spct <= TARGET_SECCOMP))
    for kind, label in (("getppid", "getppid loop"), ("stat", "stat(\"/\") loop")):
        f, a, rules = sc[kind][0], sc[kind][3], sc[kind][4]
        targets.append(("seccomp filter's rules over a 1-instruction allow-all filter, %s" % label,
                        "≤ %.0f %%" % TARGET_RULES, "%+.1f %% (%.1f ns vs %.1f ns)" % (rules, f, a),
                        rules <= TARGET_RULES))
    hwm = num(kv, "holder_hwm_kib"), num(kv, "cli_broker_hwm_kib")
    if None not in hwm:
        targets.append(("session holder + broker peak resident memory (VmHWM)",
                        "≤ %d KiB" % TARGET_MEMORY_KIB, "%.0f + %.0f = %.0f KiB" % (
                            hwm[0], hwm[1], hwm[0] + hwm[1]), hwm[0] + hwm[1] <= TARGET_MEMORY_KIB))
    mem = [("one-shot runs, calling process (C API)", "self_rss", "self_fds", "oneshot"),
           ("session execs, calling process (C API)", "self_rss", "self_fds", "session"),
           ("session execs, broker (C API)", "broker_rss", None, "session"),
           ("session execs, holder (CLI)", "holder_rss", "holder_fds", "cli"),
           ("session execs, broker (CLI)", "cli_broker_rss", None, "cli")]
    # api-bench prints the same keys for its session and oneshot series; the
    # kv file keeps them in order: session first, then oneshot.
    series_index = {"session": 0, "oneshot": 1, "cli": 0}
    for title, rss, fds, series in mem:
        i = series_index[series]
        cp = float(kv["%s_checkpoint_kib" % rss][i])
        end = float(kv["%s_end_kib" % rss][i])
        fd_note, fd_ok = "", True
        if fds:
            fc, fe = int(kv["%s_checkpoint" % fds][i]), int(kv["%s_end" % fds][i])
            fd_ok = fc == fe
            fd_note = "; fds %d → %d" % (fc, fe)
        # The calling process's RSS taken apart (api-bench prints RssAnon
        # and RssFile beside VmRSS): a leak grows the anonymous part; pages
        # of the libraries first touched late grow the file part.
        split = ""
        if rss == "self_rss" and "self_anon_end_kib" in kv:
            split = ": anon %+.0f, file %+.0f" % tuple(
                float(kv["self_%s_end_kib" % k][i]) - float(kv["self_%s_checkpoint_kib" % k][i])
                for k in ("anon", "file"))
            # What malloc has handed out and not had back (mallinfo2): a leak
            # grows it; RSS also grows with pages malloc keeps for reuse.
            if "self_heap_end_bytes" in kv:
                split += "; heap in use %+.0f B" % (
                    float(kv["self_heap_end_bytes"][i]) - float(kv["self_heap_checkpoint_bytes"][i]))
        targets.append(("no growth from exec 100 to exec %s: %s" % (text(kv, "n"), title),
                        "RSS +≤ %d KiB, fds equal" % GROWTH_KIB,
                        "RSS %.0f → %.0f KiB (%+.0f%s)%s" % (cp, end, end - cp, split, fd_note),
                        end - cp <= GROWTH_KIB and fd_ok))

    lines += ["## Targets", "", "| target | wanted | measured | verdict |", "|---|---|---|---|"]
    for t, want, got, ok in targets:
        lines.append("| %s | %s | %s | %s |" % (t, want, got, verdict(ok)))
    lines.append("")

    # ---- C API and series ----
    lines += ["## Through the C API (one process, CLOCK_MONOTONIC per call)", "",
              "| measurement | median | p90 | throughput |", "|---|---|---|---|",
              "| host: posix_spawn + wait of `true` (alternating with the next row) "
              "| %.0f µs | %.0f µs | %.0f /s |" % (
                  spawn, num(kv, "host_spawn_p90_us"), num(kv, "host_spawn_per_s")),
              "| one exec of `true` in a live session (`osb_session_run`) | %.0f µs | %.0f µs "
              "| %.0f /s |" % (sess, float(kv["session_exec_p90_us"][0]),
                               float(kv["session_exec_per_s"][0])),
              "| one-shot `osb_run` of `true`, strict, warm process | %.2f ms | %.2f ms | %.1f /s |"
              % (float(kv["oneshot_median_us"][0]) / 1e3, float(kv["oneshot_p90_us"][0]) / 1e3,
                 float(kv["oneshot_per_s"][0])),
              "| session start (`osb_session_start`) | %.2f ms | | |"
              % (float(kv["session_start_us"][0]) / 1e3),
              "| `osb_caps_probe`, cached | %.2f µs | | |" % num(kv, "caps_cached_median_us"),
              "| `osb_caps_probe`, first call | %.2f ms | | |" % (num(kv, "caps_first_us") / 1e3),
              "| `osb_caps_probe(OSB_CAPS_REFRESH)`, uncached | %.2f ms | | |"
              % (num(kv, "caps_refresh_median_us") / 1e3),
              "", "Through the CLI, %s in a row: `osb-isolate run -- true` %.1f /s; "
              "`osb-isolate session exec` %.1f /s." % (
                  "N", num(kv, "cli_run_per_s"), num(kv, "cli_session_exec_per_s")), ""]

    lines += ["## Memory", "",
              "| process | peak RSS (VmHWM) |", "|---|---|",
              "| session holder (`osb-isolate session start`) | %.0f KiB |" % num(kv, "holder_hwm_kib"),
              "| session broker (the init, pid 1 of the sandbox) | %.0f KiB |"
              % num(kv, "cli_broker_hwm_kib"), ""]

    lines += ["## Seccomp filter per call (sysloop inside the sandbox)", "",
              "%d repetitions; each runs the three settings back to back. The ns columns are "
              "medians; the percentages are medians of the ratios within a repetition."
              % len(kv.get("sysloop_getppid_filter_ns", [])), "",
              "| loop (ns per call) | seccomp default | 1-instruction allow-all filter "
              "| seccomp none | default vs none | allow-all vs none | default vs allow-all |",
              "|---|---|---|---|---|---|---|"]
    for kind, label in (("getppid", "getppid"), ("stat", "stat(\"/\")"),
                        ("mix", "getppid, stat, read, open, close")):
        f, n, pct, a, rules, floor = sc[kind]
        lines.append("| %s | %.1f | %.1f | %.1f | %+.1f %% | %+.1f %% | %+.1f %% |"
                     % (label, f, a, n, pct, floor, rules))
    lines.append("")

    timings = [(k[len("timing_"):-len("_us")], num(kv, k), lowest(kv, k))
               for k in kv if k.startswith("timing_")]
    if timings:
        lines += ["## Where a typical `osb-isolate run -- true` spends its time",
                  "", "The result's own `timings_us` (CLOCK_MONOTONIC on both sides of the "
                  "sandbox's boundary), over %d runs:" % len(kv[next(
                      k for k in kv if k.startswith("timing_"))]),
                  "", "| stage | median | fastest |", "|---|---|---|"]
        for name, v, lo in timings:
            lines.append("| %s | %s | %s |" % (name, "%.0f µs" % v if v is not None else "-",
                                              "%.0f µs" % lo if lo is not None else "-"))
        lines.append("")

    stages = [(k[len("stage_"):-len("_us")], num(kv, k), lowest(kv, k))
              for k in kv if k.startswith("stage_")]
    if stages:
        lines += ["## Where a fresh `osb-isolate run` spends its time before bwrap starts",
                  "", "Each stage timed once in a new process (`api-bench stages strict`, run "
                  "just before the hyperfine rows), over %d processes:"
                  % len(kv[next(k for k in kv if k.startswith("stage_"))]),
                  "", "| stage | median | fastest |", "|---|---|---|"]
        for name, v, lo in stages:
            lines.append("| %s | %.0f µs | %.0f µs |" % (name.replace("_", " "), v, lo))
        lines.append("")

    lines += notes(rows, kv, sc, targets)
    for name in ("init-startup.md", "cover.md"):
        once = os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
        if os.path.exists(once):
            lines += [open(once, encoding="utf-8").read().rstrip("\n"), ""]
    out = "\n".join(lines)
    open(out_path, "w", encoding="utf-8").write(out)
    for t, want, got, ok in targets:
        print("%s  %s: %s (wanted %s)" % ("PASS" if ok else "MISS", t, got, want))
    print("written: %s" % out_path)


if __name__ == "__main__":
    main()

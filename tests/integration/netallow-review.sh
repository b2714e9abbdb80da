#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# netallow-review.sh — the reviewer tools read "network allow": explain
# shows one line an entry with its origin, lint flags entries that name a
# host-internal range (W121) or a wide part of the internet (W122), audit
# scores the network check (A04) by what the list reaches, diff counts each
# added entry as wider, check accepts the policy and reports an entry's
# error at its column, and a request's network_allow narrows (request
# explain). Runs as any user: nothing is launched.
set -uo pipefail
export LC_ALL=C
: "${OSB_BUILDDIR:?OSB_BUILDDIR must point at the build tree (make check sets it)}"
: "${OSB_SRCDIR:?OSB_SRCDIR must point at the source tree (make check sets it)}"
. "$OSB_SRCDIR/tests/integration/lib.sh"
OSB=${OSB_ISOLATE_BIN:-$OSB_BUILDDIR/helper/osb-isolate}
export OSB_ISOLATE_POLICY_DIR=$OSB_SRCDIR/policy
T=$(mktemp -d /tmp/osb-nareview.XXXXXX) || die "mktemp failed"
trap 'rm -rf "$T"' EXIT
n=0
failures=0
pass() { n=$((n + 1)); echo "ok $n - $1"; }
flunk() {
	n=$((n + 1)); failures=$((failures + 1)); echo "not ok $n - $1"
	shift
	for l in "$@"; do printf '#   %s\n' "$l"; done
}
expect_eq() { # name want got
	if [ "$2" == "$3" ]; then pass "$1"; else flunk "$1" "want: $(printf %q "$2")" "got:  $(printf %q "$3")"; fi
}

cd "$T" || die "cd $T"
printf 'osb-policy 1\ninclude strict\nnetwork allow registry.npmjs.org:443 *.PyPI.org\n' >plain.policy
printf 'osb-policy 1\ninclude strict\nnetwork allow api.example.com *.com\nnetwork allow 10.0.0.0/8:5432 169.254.169.254\n' >risky.policy
printf 'osb-policy 1\ninclude strict\nnetwork allow ok.example.com bad..example.com\n' >bad.policy

expect_eq "explain: one line an entry, sorted, with its origin" \
	"network allow *.pypi.org  # ./plain.policy:3
network allow registry.npmjs.org:443  # ./plain.policy:3" \
	"$("$OSB" explain ./plain.policy | grep '^network ')"
expect_eq "check: an allowlist policy is valid" "0" "$("$OSB" check ./plain.policy >/dev/null 2>&1; echo $?)"
expect_eq "check: a malformed entry is reported at its column" \
	"./bad.policy:3:30: error: invalid network allow entry \"bad..example.com\": each label of a host name has 1 to 63 characters [E000]" \
	"$("$OSB" check ./bad.policy 2>&1 | head -n1 | sed 's/\[E[0-9]*\]/[E000]/')"
expect_eq "lint: no network finding for named hosts" "" \
	"$("$OSB" lint ./plain.policy 2>&1 | grep -E 'W12[12]')"
expect_eq "lint: W121 for internal ranges, W122 for a whole TLD" \
	"./risky.policy:3:1: warning: \"network allow *.com\" allows a wide part of the internet [W122 network-allow-wide]
./risky.policy:4:1: warning: \"network allow 10.0.0.0/8:5432\" lets the proxy reach a host-internal range [W121 network-allow-internal]
./risky.policy:4:1: warning: \"network allow 169.254.169.254\" lets the proxy reach a host-internal range [W121 network-allow-internal]" \
	"$("$OSB" lint ./risky.policy 2>&1 | grep -E 'W12[12]')"
expect_eq "audit: A04 counts named destinations" \
	"! A04  network             5/14  network allow: 2 destinations through the filtering proxy (loopback, private and metadata addresses refused) (./plain.policy:3)" \
	"$("$OSB" audit ./plain.policy | grep A04)"
expect_eq "audit: A04 counts an internal range nearly as the host network" \
	"! A04  network            12/14  network allow 10.0.0.0/8:5432: a loopback, link-local, private or metadata range is reachable (./risky.policy:4)" \
	"$("$OSB" audit ./risky.policy | grep A04)"
printf 'osb-policy 1\ninclude strict\nnetwork host\n' >host.policy
printf 'osb-policy 1\ninclude strict\nnetwork allow a.example.com b.example.com\n' >ab.policy
printf 'osb-policy 1\ninclude strict\nnetwork allow a.example.com c.example.com:443\n' >ac.policy
expect_eq "diff: from the host network to an allowlist, each entry is neutral, the view narrower" \
	"+ network allow a.example.com  (neutral)  # ./ab.policy:3
+ network allow b.example.com  (neutral)  # ./ab.policy:3
  network: host → allow  (narrower)  # network host (./host.policy:3) => network allow (./ab.policy:3)
verdict: narrower" \
	"$("$OSB" diff ./host.policy ./ab.policy | grep -E '^\+ network allow|^  network:|^verdict')"
expect_eq "diff: between allowlists, the destinations each lists" \
	"  network: reachable: -b.example.com  (narrower)
  network: reachable: +c.example.com:443  (wider)
verdict: mixed" \
	"$("$OSB" diff ./ab.policy ./ac.policy | grep -E '^  network:|^verdict')"
expect_eq "diff: each added entry is wider, network none goes" \
	"- network none  (neutral)
+ network allow *.pypi.org  (wider)
+ network allow registry.npmjs.org:443  (wider)" \
	"$("$OSB" diff strict ./plain.policy | grep -E '^[-+] network' | sed 's/  #.*//')"
printf '{"network_allow": ["files.pypi.org:443"]}' >narrow.json
expect_eq "request explain: a request keeps a narrower entry" \
	"network allow files.pypi.org:443  # api" \
	"$("$OSB" request explain ./plain.policy narrow.json | grep '^network ')"
printf '{"network_allow": ["evil.example.org"]}' >wide.json
expect_eq "request explain: a request cannot add a host" \
	"wide.json: network_allow: \"evil.example.org\" is refused: no entry of the policy's \"network allow\" covers it (a caller may keep entries of the list, or narrower ones, never add)" \
	"$("$OSB" request explain ./plain.policy wide.json 2>&1 | sed -n 's/^osb-isolate: [a-z]*: //p' | head -n1)"
finish_suite $((n - failures)) "$failures"

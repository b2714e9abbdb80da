#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# symbols.sh — the shared library exports exactly the functions that
# lib/osb-isolate.h declares: `nm -D --defined-only` of the built .so against
# the header's declarations, in both directions (nothing internal leaks, no
# public function is missing), and lib/libosb-isolate.sym (the version
# script, one name per export) and debian/libosb-isolate0.symbols against
# the header. Also: every export has
# the library's version node, and a static archive, if one was built
# (--enable-static), has every global outside the API hidden.
set -uo pipefail
: "${OSB_BUILDDIR:?OSB_BUILDDIR must point at the build tree (make check sets it)}"
: "${OSB_SRCDIR:?OSB_SRCDIR must point at the source tree (make check sets it)}"
. "$OSB_SRCDIR/tests/integration/lib.sh"

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
not_ok() { fail=$((fail + 1)); echo "not ok - $1"; shift; printf '#   %s\n' "$@"; }
# same NAME LEFT-LABEL LEFT-FILE RIGHT-LABEL RIGHT-FILE: two sorted lists agree.
same() {
	local only_left only_right
	only_left=$(comm -23 "$3" "$5")
	only_right=$(comm -13 "$3" "$5")
	if [ -z "$only_left" ] && [ -z "$only_right" ]; then ok "$1 ($(wc -l <"$3") names)"; else
		not_ok "$1" "in $2 only: $(echo $only_left)" "in $4 only: $(echo $only_right)"
	fi
}

tmp=$(mktemp -d /tmp/osb-symbols.XXXXXX) || exit 99
trap 'rm -rf "$tmp"' EXIT
lib=$(ls "$OSB_BUILDDIR"/.libs/libosb-isolate.so.*.*.* 2>/dev/null | head -n1)
[ -n "$lib" ] || { echo "FAIL: libosb-isolate.so not built"; exit 1; }

# The header's functions: comments stripped by the preprocessor (which does
# not expand includes with -fpreprocessed), then every osb_NAME( left.
${CC:-cc} -fpreprocessed -dD -E -P "$OSB_SRCDIR/lib/osb-isolate.h" |
	grep -oE '\bosb_[a-z0-9_]+[[:space:]]*\(' | tr -d ' \t(' | sort -u >"$tmp/header"
[ -s "$tmp/header" ] || { echo "FAIL: no function found in lib/osb-isolate.h"; exit 1; }

nm -D --defined-only "$lib" | awk '{print $3}' >"$tmp/dynsym"
grep -v '^OSB_ISOLATE_' "$tmp/dynsym" | sed 's/@.*//' | sort -u >"$tmp/exports"
same "exports of $(basename "$lib") = functions of lib/osb-isolate.h" \
	"the library" "$tmp/exports" "the header" "$tmp/header"

sed 's|/\*.*\*/||' "$OSB_SRCDIR/lib/libosb-isolate.sym" | sed -n '/global:/,/local:/p' |
	grep -oE '^[[:space:]]*[A-Za-z_][A-Za-z0-9_]*;' | tr -d ' \t;' | sort -u >"$tmp/symfile"
same "lib/libosb-isolate.sym names exactly the header's functions" \
	"lib/libosb-isolate.sym" "$tmp/symfile" "the header" "$tmp/header"
if grep -q '\*' <(sed -n '/global:/,/local:/p' "$OSB_SRCDIR/lib/libosb-isolate.sym" | grep -v '^ *local:'); then
	not_ok "lib/libosb-isolate.sym has no wildcard among its exports"
else
	ok "lib/libosb-isolate.sym has no wildcard among its exports"
fi

# The Debian symbols file (not in the release tarball, so only when present)
# names the same functions: dpkg-gensymbols fails a build that loses one.
debsym=$OSB_SRCDIR/debian/libosb-isolate0.symbols
if [ -e "$debsym" ]; then
	sed -n 's/^ \(osb_[a-z0-9_]*\)@OSB_ISOLATE_0\.1 .*/\1/p' "$debsym" | sort -u >"$tmp/debsym"
	same "debian/libosb-isolate0.symbols names exactly the header's functions" \
		"debian/libosb-isolate0.symbols" "$tmp/debsym" "the header" "$tmp/header"
	# The version node is an export too: without its line dpkg-gensymbols
	# adds it with the Debian revision, which lintian refuses.
	if grep -qx ' OSB_ISOLATE_0\.1@OSB_ISOLATE_0\.1 [0-9.]*' "$debsym"; then
		ok "debian/libosb-isolate0.symbols lists the version node OSB_ISOLATE_0.1"
	else not_ok "debian/libosb-isolate0.symbols lacks ' OSB_ISOLATE_0.1@OSB_ISOLATE_0.1 0.1.0'"; fi
	dups=$(grep '^ ' "$debsym" | sort | uniq -d)
	if [ -z "$dups" ]; then ok "debian/libosb-isolate0.symbols names each symbol once"
	else not_ok "debian/libosb-isolate0.symbols repeats symbols" "$(echo $dups)"; fi
fi

unversioned=$(grep -v '^OSB_ISOLATE_' "$tmp/dynsym" | grep -v '@@OSB_ISOLATE_0\.1$' || true)
if [ -z "$unversioned" ]; then ok "every export carries the version node OSB_ISOLATE_0.1"
else not_ok "exports without the version node OSB_ISOLATE_0.1" "$(echo $unversioned)"; fi

# The command is the library's first user: it links the shared library and
# reaches it only through the header (no copy of the library inside it), so
# the ABI a daemon gets is the one every run of the command exercises.
cli=$OSB_BUILDDIR/helper/.libs/osb-isolate
[ -x "$cli" ] || cli=$OSB_BUILDDIR/helper/osb-isolate
if readelf -d "$cli" 2>/dev/null | grep -q 'NEEDED.*\[libosb-isolate\.so\.0\]'; then
	ok "the command needs libosb-isolate.so.0"
else not_ok "the command does not link libosb-isolate.so.0" "$(readelf -d "$cli" 2>&1 | grep NEEDED)"; fi
own=$(nm --defined-only "$cli" 2>/dev/null | awk '$3 ~ /^osb_/ { print $3 }' | sort -u)
if [ -z "$own" ]; then ok "the command defines none of the library's functions"
else not_ok "the command carries its own copy of $(echo "$own" | wc -l) library functions" \
	"$(echo $own | head -c 300)"; fi
nm -D --undefined-only "$cli" | awk '$2 ~ /^osb_/ { sub(/@.*/, "", $2); print $2 }' | sort -u >"$tmp/cli-uses"
extra=$(comm -23 "$tmp/cli-uses" "$tmp/header")
if [ -s "$tmp/cli-uses" ] && [ -z "$extra" ]; then
	ok "the command uses $(wc -l <"$tmp/cli-uses") library functions, all from the header"
else not_ok "the command's library functions are not the header's" "outside the header: $(echo $extra)"; fi

# What every process start of the command loads: the library reads mount
# tables with lib/mountinfo.c, so neither it nor the command needs libmount,
# nor what libmount brings (libblkid, libselinux, libpcre2): half of the
# dynamic linking of each start before. The loader's own account of one
# start (LD_DEBUG=files) must not name them either.
heavy='libmount|libblkid|libselinux|libpcre2'
needed=$(readelf -d "$lib" "$cli" 2>&1 | grep NEEDED)
if [ -n "$needed" ] && ! grep -qE "$heavy" <<<"$needed"; then
	ok "neither the library nor the command needs libmount, libblkid, libselinux or libpcre2"
else not_ok "the library or the command needs a mount-table library" "$(grep -E "$heavy" <<<"$needed")"; fi
loaded=$(LD_LIBRARY_PATH=$OSB_BUILDDIR/.libs LD_DEBUG=files "$cli" --version 2>&1 >/dev/null |
	grep -oE 'file=[^ ]+' | sort -u)
if grep -q 'file=libosb-isolate' <<<"$loaded" && ! grep -qE "$heavy" <<<"$loaded"; then
	ok "one start of the command loads $(wc -l <<<"$loaded") libraries, none of libmount's"
else not_ok "one start of the command loads a mount-table library (or the loader said nothing)" \
	"$(echo $loaded)"; fi

# A static archive links its objects' globals into whoever uses it. It is
# not built by default (--disable-static); built on request, every global
# outside the API must at least be hidden (-fvisibility=hidden), so that a
# program linking it does not export our internals in turn.
archive=$OSB_BUILDDIR/.libs/libosb-isolate.a
if [ -e "$archive" ]; then
	bad=$(readelf -sW "$archive" | awk '$5 == "GLOBAL" && $7 != "UND" && $6 != "HIDDEN" && $8 !~ /^osb_/ {print $8}' | sort -u)
	if [ -z "$bad" ]; then ok "the static archive: every global outside osb_* is hidden"
	else not_ok "the static archive has $(echo "$bad" | wc -l) visible globals outside osb_*" "$(echo $bad | head -c 400)"; fi
fi
finish_suite "$pass" "$fail"

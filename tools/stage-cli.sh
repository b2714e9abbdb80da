#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# stage-cli.sh BUILDDIR DEST — stage the built command where any user can run
# it: DEST/bin/osb-isolate (the program itself, not libtool's wrapper script,
# whose shell adds LD_LIBRARY_PATH and its own variables to the environment
# and to what a benchmark times) loading DEST/lib/libosb-isolate.so.0, the
# library it was built with, through a RUNPATH of $ORIGIN/../lib. Used by
# the integration tests (tests/integration/lib.sh), check_badinput and
# bench/run.sh. Exits 1 with the reason when something is missing.
set -euo pipefail
die() { echo "stage-cli.sh: $*" >&2; exit 1; }
[ $# -eq 2 ] || die "usage: stage-cli.sh BUILDDIR DEST"
b=$1 d=$2
bin=$b/helper/.libs/osb-isolate
[ -x "$bin" ] || die "$bin is missing: build first (make builds it)"
command -v patchelf >/dev/null || die "patchelf is missing: run tools/install-deps.sh"
so=$(readlink -e "$b/.libs/libosb-isolate.so.0") || die "$b/.libs/libosb-isolate.so.0 is missing: build first"
mkdir -p "$d/bin" "$d/lib"
cp "$so" "$d/lib/libosb-isolate.so.0"
cp "$bin" "$d/bin/osb-isolate"
# shellcheck disable=SC2016
patchelf --set-rpath '$ORIGIN/../lib' "$d/bin/osb-isolate" ||
	die "patchelf could not set the staged command's RUNPATH"
chmod -R a+rX "$d/bin" "$d/lib"
# The staged command must load the staged library, nothing else.
[ "$(readlink -f "$(ldd "$d/bin/osb-isolate" | awk '$1 == "libosb-isolate.so.0" { print $3 }')")" = \
  "$(readlink -f "$d/lib/libosb-isolate.so.0")" ] ||
	die "the staged command does not load $d/lib/libosb-isolate.so.0"

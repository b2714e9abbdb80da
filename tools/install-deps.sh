#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# install-deps.sh — install everything osb-isolate needs to build, test and
# run on Debian 12 (apt-get only). Run as root, or as a user with sudo.
# The last two lines are for the quality gates (tools/check.sh): clang with
# libFuzzer and its sanitizer runtimes (libclang-rt-14-dev), llvm for
# llvm-symbolizer (readable sanitizer stacks), valgrind, cppcheck,
# clang-tidy; and the Debian packaging tools of the package gate
# (dpkg-buildpackage, debhelper, lintian, fakeroot). patchelf points the
# test suite's staged copy of the command at the staged shared library.
# curl and openssl are tests/integration/netallow.sh's client and the
# self-signed certificate of its HTTPS server.
set -eu
PKGS="build-essential autoconf automake libtool pkg-config make gcc
  bubblewrap libseccomp-dev libcap-dev libmount-dev libjson-c-dev libarchive-dev check
  python3 python3-jsonschema python3-venv python3-pip git iproute2 procps util-linux passwd mandoc libcap2-bin golang-go
  patchelf
  curl openssl
  clang libclang-rt-14-dev llvm valgrind cppcheck clang-tidy
  dpkg-dev debhelper lintian fakeroot"
if [ "$(id -u)" -eq 0 ]; then SUDO=; elif command -v sudo >/dev/null; then SUDO=sudo; else
	echo "install-deps.sh: run as root (apt-get needs it)" >&2; exit 1
fi
missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "install-deps.sh: installing:$missing"
	$SUDO apt-get update -qq
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi

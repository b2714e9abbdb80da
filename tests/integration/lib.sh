# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# lib.sh — shared by the integration test drivers and the suites they run:
# staging of the freshly built programs where an unprivileged user can run
# them, host probes that skip loudly (test_have, test_need), and the closing
# line of a suite (finish_suite). Sourced, not run; the suites source the
# staged copy, where OSB_BUILDDIR and OSB_SRCDIR need not be set.

TEST_USER=${OSB_TEST_USER:-osb-test}

die() { echo "FATAL: $*" >&2; exit 99; }

# ---- probe, then skip loudly ----------------------------------------------------
# The shell side of tests/skip.h. A probe is a function (or command) that
# succeeds when the host has what a test needs and otherwise sets WHY.
# test_have FEATURE PROBE [ARGS...] runs it and, when the feature is missing,
# prints "SKIP: FEATURE: WHY" and returns 1 (the caller skips the case); when
# OSB_REQUIRE (a comma-separated list) names FEATURE it prints "FAIL: ..."
# and exits 1 instead. OSB_TEST_HIDE (same form) makes a present feature look
# absent, to test the skip path. test_need does the same for a whole
# program: it exits 77, automake's status for a skipped test. Feature names: README, "Skipped
# tests".
SKIPPED=0
WHY=

# is_listed VAR FEATURE: does the comma-separated list in VAR name FEATURE?
is_listed() {
	local list=",${!1:-},"
	list=${list// /,}
	[[ $list == *",$2,"* ]]
}

test_have() {
	local feature=$1
	shift
	WHY="$*: failed"
	if is_listed OSB_TEST_HIDE "$feature"; then
		WHY="hidden by OSB_TEST_HIDE"
	elif "$@" >/dev/null 2>&1; then
		return 0
	fi
	if is_listed OSB_REQUIRE "$feature"; then
		echo "FAIL: $feature: required by OSB_REQUIRE but absent: $WHY"
		exit 1
	fi
	echo "SKIP: $feature: $WHY"
	SKIPPED=$((SKIPPED + 1))
	return 1
}

test_need() {
	test_have "$@" || exit 77
}

# probe_nss_module: looking up a uid no account has (one of the range root
# callers' sandboxes get) loads a name-service module outside libc.
probe_nss_module() {
	WHY="the host's name service answers an unknown uid from libc alone (no module on the passwd line of /etc/nsswitch.conf)"
	local trace
	trace=$(LD_DEBUG=files getent passwd 1879048191 2>&1) # exits 2: no such account
	[[ $trace == *file=libnss_* ]]
}

probe_root() {
	WHY="needs root (run make check as root; CI does)"
	[ "$(id -u)" -eq 0 ]
}

# probe_unsanitized PROGRAM: not built with AddressSanitizer, whose shadow
# memory and quarantine (freed memory kept back to catch a use after free)
# make a process's resident size no measure of what the program itself
# holds; the check gate measures it in the plain build.
probe_unsanitized() {
	WHY="$1 is built with AddressSanitizer: its resident size counts the sanitizer's shadow memory and quarantine (measured in the plain build)"
	# The list is read whole first: under pipefail, grep -q leaving at the
	# first match can end ldd with SIGPIPE, and the failed pipeline read as
	# "not sanitized" (an ASan build's holder was then measured and failed).
	local libs
	libs=$(ldd "$1" 2>/dev/null)
	[[ $libs != *libasan.so* ]]
}

# probe_cmd COMMAND PACKAGE
probe_cmd() {
	WHY="$1 is not installed (apt-get install $2; tools/install-deps.sh installs it)"
	command -v "$1" >/dev/null
}

# as_test_user CMD...: CMD as the unprivileged test user when root, else as
# the current user.
as_test_user() {
	if [ "$(id -u)" -eq 0 ]; then
		setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups -- "$@"
	else
		"$@"
	fi
}

# probe_userns [user]: can bwrap create a user namespace (as the test user
# when "user" is given and this is root; else as the current user)?
probe_userns() {
	local who=(env) name err rc=0
	name=$(id -un)
	if [ "${1:-}" = user ] && [ "$(id -u)" -eq 0 ]; then who=(as_test_user); name=$TEST_USER; fi
	err=$(cd / && "${who[@]}" bwrap --unshare-user --ro-bind / / true 2>&1) || rc=$?
	[ "$rc" -eq 0 ] && return 0
	WHY="bwrap cannot create a user namespace as $name: ${err:-exit status $rc}"
	return 1
}

# probe_landlock [MIN_ABI]: does the kernel offer Landlock, at ABI MIN_ABI
# or later (default 1)? landlock_create_ruleset's version query, system call
# 444 on every architecture.
probe_landlock() {
	local err
	err=$(python3 -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
abi = libc.syscall(444, None, 0, 1)
if abi < 1:
    sys.exit("the kernel has no Landlock (landlock_create_ruleset: %s)" % os.strerror(ctypes.get_errno()))
if abi < int(sys.argv[1]):
    sys.exit("the kernel has Landlock ABI %d; scoping of abstract sockets and signals needs ABI %s" % (abi, sys.argv[1]))' "${1:-1}" 2>&1) && return 0
	WHY=$err
	return 1
}

# probe_python_module MODULE PACKAGE
probe_python_module() {
	WHY="python3 cannot import $1 (apt-get install $2; tools/install-deps.sh installs it)"
	python3 -c "import $1"
}

# ---- TAP lines, each with who ran it ----------------------------------------------
# For suites that run the same cases as several callers and modes: WHO (set
# by the suite, e.g. "root, identity userns, session") ends every line. The
# counts n and failures feed finish_suite.
n=0
failures=0
WHO=$(id -un)
pass() { n=$((n + 1)); echo "ok $n - $1 [$WHO]"; }
flunk() { # name detail...
	n=$((n + 1)); failures=$((failures + 1)); echo "not ok $n - $1 [$WHO]"
	shift
	for l in "$@"; do printf '#   %s\n' "$l"; done
}
expect_eq() { # name want got
	if [ "$2" == "$3" ]; then pass "$1"; else flunk "$1" "want: $(printf %q "$2")" "got:  $(printf %q "$3")"; fi
}

# run_staged_as_root_and_user SCRIPT VAR STAGE: run the staged copy of SCRIPT
# (STAGE/SCRIPT) with VAR=STAGE in an empty environment from /, as the
# current user and then, when that is root, as the unprivileged test user.
# Returns 1 when either run failed.
run_staged_as_root_and_user() {
	local script=$1 var=$2 stage=$3 rc=0 who pre
	for who in me user; do
		pre=()
		if [ "$who" = user ]; then
			[ "$(id -u)" -eq 0 ] || continue
			ensure_test_user
			pre=(setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups --)
		fi
		(cd / && "${pre[@]}" env -i PATH=/usr/bin:/bin OSB_REQUIRE="${OSB_REQUIRE:-}" \
			"$var=$stage" bash "$stage/$script") || rc=1
	done
	return "$rc"
}

# ---- the closing line -----------------------------------------------------------
# finish_suite PASS FAIL: print "N passed, M failed" (", K skipped" when
# cases were skipped) and exit: 0 only when something ran and nothing failed.
finish_suite() {
	local pass=$1 fail=$2
	echo "$pass passed, $fail failed$([ "$SKIPPED" -gt 0 ] && echo ", $SKIPPED skipped")"
	if [ $((pass + fail)) -eq 0 ]; then
		echo "FAIL: the suite ran no test"
		exit 1
	fi
	[ "$fail" -eq 0 ] || exit 1
	exit 0
}

# ---- staging ----------------------------------------------------------------------
# The command links the shared library: in the build tree helper/osb-isolate
# is libtool's wrapper script around helper/.libs/osb-isolate. Stage the
# program itself and the library it was linked with, and make the staged
# program find that library (its RUNPATH, set with patchelf): never an
# installed libosb-isolate, and no LD_LIBRARY_PATH for an env -i to lose.
# The RUNPATH is $ORIGIN/../lib: a test that copies bin/osb-isolate copies
# lib/libosb-isolate.so.0 beside it (caps.sh runs such a copy nested).
stage_cli() {
	"$OSB_SRCDIR/tools/stage-cli.sh" "$OSB_BUILDDIR" "$1" || die "staging the command failed"
}

# Copy the programs, policies and test helpers into a world-readable
# directory: the build tree may sit under a 0700 home directory.
stage_artifacts() {
	local stage
	: "${OSB_BUILDDIR:?OSB_BUILDDIR must point at the build tree (make check sets it)}"
	: "${OSB_SRCDIR:?OSB_SRCDIR must point at the source tree (make check sets it)}"
	stage=$(mktemp -d /tmp/osb-it.XXXXXX) || die "mktemp failed"
	chmod 755 "$stage"
	mkdir -p "$stage/bin" "$stage/lib" "$stage/policy" "$stage/work"
	for f in helper/osb-isolate-init tests/integration/fdcheck; do
		[ -x "$OSB_BUILDDIR/$f" ] || die "$OSB_BUILDDIR/$f is missing: build first (make check builds it)"
		cp "$OSB_BUILDDIR/$f" "$stage/bin/"
	done
	stage_cli "$stage"
	for f in tests/escape/escape tests/escape/dump-filter; do
		[ -x "$OSB_BUILDDIR/$f" ] || die "$OSB_BUILDDIR/$f is missing: build first (make check builds it)"
		cp "$OSB_BUILDDIR/$f" "$stage/bin/"
	done
	cp "$OSB_SRCDIR"/policy/*.policy "$stage/policy/"
	cp "$OSB_SRCDIR/tests/integration/suite.sh" "$OSB_SRCDIR/tests/integration/lib.sh" "$stage/"
	chmod -R a+rX "$stage"
	echo "$stage"
}

ensure_test_user() {
	if ! getent passwd "$TEST_USER" >/dev/null; then
		useradd --system --user-group --no-create-home --home-dir /nonexistent \
			--shell /usr/sbin/nologin "$TEST_USER" || die "cannot create user $TEST_USER"
	fi
}

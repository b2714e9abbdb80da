# lib.sh — shared by the integration test drivers: staging of the freshly built
# programs where an unprivileged user can run them, and TAP-like assertions.
# Sourced, not run.

: "${OSB_BUILDDIR:?OSB_BUILDDIR must point at the build tree (make check sets it)}"
: "${OSB_SRCDIR:?OSB_SRCDIR must point at the source tree (make check sets it)}"
TEST_USER=${OSB_TEST_USER:-osb-test}

die() { echo "FATAL: $*" >&2; exit 99; }

# Copy the programs, policies and test helpers into a world-readable
# directory: the build tree may sit under a 0700 home directory.
stage_artifacts() {
	local stage
	stage=$(mktemp -d /tmp/osb-it.XXXXXX) || die "mktemp failed"
	chmod 755 "$stage"
	mkdir -p "$stage/bin" "$stage/policy" "$stage/work"
	for f in helper/osb-isolate helper/osb-isolate-init tests/integration/fdcheck; do
		[ -x "$OSB_BUILDDIR/$f" ] || die "$OSB_BUILDDIR/$f is missing: build first (make check builds it)"
		cp "$OSB_BUILDDIR/$f" "$stage/bin/"
	done
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

#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# paths.sh — who can redirect a path the sandbox gets, which host paths a
# caller may hand it at all, and what a caller may add to a policy: the
# adversarial cases of osb-isolate(1), "PATHS" and "CALLER GRANTS", against
# the CLI. System directories and pseudo file systems as workspace, write and
# read-only paths; another user's symlink or directory in the path; a
# workspace outside the configured roots; --net and --ro against a policy
# that does not grant them; a planted sibling strict.policy.
#
# Run by `make check` as root (it needs a second user to plant things); the
# cases an unprivileged caller meets run as the test user through setpriv.
# Not root: skipped (exit 77), saying so.
set -uo pipefail
export LC_ALL=C
: "${OSB_BUILDDIR:?OSB_BUILDDIR must point at the build tree (make check sets it)}"
: "${OSB_SRCDIR:?OSB_SRCDIR must point at the source tree (make check sets it)}"
. "$OSB_SRCDIR/tests/integration/lib.sh"
test_need root probe_root
ensure_test_user
stage=$(stage_artifacts) && [ -d "$stage/work" ] || die "cannot stage the programs"
trap 'rm -rf "$stage"' EXIT
OSB="$stage/bin/osb-isolate"
S=$stage/work
export OSB_ISOLATE_INIT="$stage/bin/osb-isolate-init"
export OSB_ISOLATE_POLICY_DIR="$stage/policy"
# A host configuration of its own, with nothing configured, so that the
# machine's /etc/osb-isolate/config does not change the cases.
printf 'osb-config 1\n' >"$stage/empty-config"
export OSB_ISOLATE_CONFIG="$stage/empty-config"
export HOME=$stage/home
mkdir -m 755 "$HOME" "$HOME/.ssh"
# A root caller's sandbox runs as host ids allocated for it, which own
# nothing: the workspaces that are meant to run are writable by others.
mkdir -m 1777 "$S/proj"
TEST_UID=$(id -u "$TEST_USER")

n=0
failures=0
pass() { n=$((n + 1)); echo "ok $n - $1"; }
flunk() {
	n=$((n + 1)); failures=$((failures + 1)); echo "not ok $n - $1"
	shift
	for l in "$@"; do echo "#   $l"; done
}

# run_cli CMD...: exit status in RC, stderr in ERR, stdout in OUT.
run_cli() {
	OUT=$("$@" 2>"$stage/err")
	RC=$?
	ERR=$(cat "$stage/err")
}

# refused NAME WANT_RC WANT_STDERR CMD...: CMD exits WANT_RC with exactly
# WANT_STDERR on stderr.
refused() {
	local name=$1 want_rc=$2 want=$3
	shift 3
	run_cli "$@"
	if [ "$RC" = "$want_rc" ] && [ "$ERR" = "$want" ]; then
		pass "$name"
	else
		flunk "$name" "exit: want $want_rc, got $RC" "want: $want" "got:  $ERR"
	fi
}

# accepted NAME CMD...: CMD exits 0.
accepted() {
	local name=$1
	shift
	run_cli "$@"
	if [ "$RC" = 0 ]; then pass "$name"; else flunk "$name" "exit $RC" "$ERR"; fi
}

as_user() {
	setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups -- \
		env -i PATH=/usr/bin:/bin HOME=/nonexistent OSB_ISOLATE_INIT="$OSB_ISOLATE_INIT" \
		OSB_ISOLATE_POLICY_DIR="$OSB_ISOLATE_POLICY_DIR" OSB_ISOLATE_CONFIG="$OSB_ISOLATE_CONFIG" "$@"
}

ws_refused_msg() { # PATH WHY
	echo "osb-isolate: workspace: $1: $2"
}

# ---- 1. system directories and pseudo file systems ------------------------------------

t_system_workspaces() {
	local d why
	while IFS='|' read -r d why; do
		[ -e "$d" ] || { pass "# SKIP $d does not exist on this host"; continue; }
		refused "explain --host refuses the workspace $d" 2 \
			"osb-isolate: workspace: $d: $why" \
			"$OSB" explain --host --workspace "$d" strict
		refused "run refuses the workspace $d" 125 "osb-isolate: workspace: $d: $why" \
			"$OSB" run --workspace "$d" -- true
	done <<EOF
/etc/cron.d|inside /etc (host configuration: cron, sudoers, PAM, profile scripts run as root); choose a project directory
/usr/local/bin|inside /usr (programs and libraries the host executes); choose a project directory
/var/lib|inside /var/lib (service state: package database, databases, systemd); choose a project directory
/var/log|inside /var/log (logs the host trusts and rotates as root); choose a project directory
/var/spool|inside /var/spool (cron, at and mail queues that daemons execute); choose a project directory
/boot|inside /boot (kernels and boot loader configuration); choose a project directory
/proc/sys/kernel|inside /proc (the host's process and kernel interfaces); choose a project directory
/sys/kernel|inside /sys (the host's kernel and device interfaces); choose a project directory
/dev/shm|inside /dev (the host's devices and shared memory); choose a project directory
/run|inside /run (service runtime state and control sockets: docker.sock, D-Bus, systemd); choose a project directory
/home|the directory that holds every user's home (/home); choose a project directory beneath it
/tmp|the directory every user shares (/tmp); choose a project directory beneath it
/|the root directory; choose a project directory beneath it
$HOME|the home directory $HOME of the caller; choose a project directory beneath it
$HOME/.ssh|inside $HOME/.ssh, a dot directory of the caller's home (configuration that shells, ssh, git and editors run); choose a project directory
EOF
}

# Pseudo file systems are refused by what they are (statfs), not by where
# they are: each is mounted at an innocent name, in a private mount namespace.
# sysfs and devtmpfs have one instance, whose root is /sys's or /dev's inode.
t_pseudo_fs_by_magic() {
	local fs why KI="the sandbox must not write or read the host's kernel interfaces through it"
	while IFS='|' read -r fs why; do
		mkdir -p "$S/pseudo-$fs"
		run_cli unshare -m --propagation private sh -c \
			'mount -t "$1" "$1" "$2" 2>/dev/null || exit 77; exec "$3" explain --host --workspace "$2" strict' \
			sh "$fs" "$S/pseudo-$fs" "$OSB"
		if [ "$RC" = 77 ]; then pass "# SKIP cannot mount $fs here"; continue; fi
		local want="osb-isolate: workspace: $S/pseudo-$fs: $why"
		if [ "$RC" = 2 ] && [ "$ERR" = "$want" ]; then pass "a $fs mount is refused as the workspace by its magic"
		else flunk "a $fs mount is refused as the workspace by its magic" "exit $RC" "want: $want" "got:  $ERR"; fi
	done <<EOF
proc|on procfs (f_type 0x9fa0); $KI
sysfs|inside /sys (the host's kernel and device interfaces); choose a project directory
devtmpfs|inside /dev (the host's devices and shared memory); choose a project directory
cgroup2|on cgroup2 (f_type 0x63677270); $KI
debugfs|on debugfs (f_type 0x64626720); $KI
securityfs|on securityfs (f_type 0x73636673); $KI
bpf|on bpffs (f_type 0xcafe4a11); $KI
tracefs|on tracefs (f_type 0x74726163); $KI
EOF
	mkdir -p "$S/pseudo-tmpfs"
	run_cli unshare -m --propagation private sh -c \
		'mount -t tmpfs tmpfs "$1" && exec "$2" explain --host --workspace "$1" strict' sh "$S/pseudo-tmpfs" "$OSB"
	if [ "$RC" = 0 ]; then pass "a tmpfs mount is accepted as the workspace"; else flunk "a tmpfs mount is accepted as the workspace" "$ERR"; fi
}

# write and ro paths: beneath a write-root or read-root that is itself a
# system directory, the grant is refused at launch.
t_system_write_and_ro_paths() {
	printf 'osb-policy 1\ninclude %s\nwrite-root /etc\nread-root /usr\n' "$stage/policy/strict.policy" >"$S/sys.policy"
	refused "--write beneath write-root /etc is refused" 125 \
		"osb-isolate: paths: $S/sys.policy:3: write-root: /etc: inside /etc (host configuration: cron, sudoers, PAM, profile scripts run as root); choose a project directory" \
		"$OSB" run --policy "$S/sys.policy" --workspace "$S/proj" --write /etc/cron.d -- true
	refused "--ro beneath read-root /usr is refused" 125 \
		"osb-isolate: paths: /usr/local: inside /usr (programs and libraries the host executes); choose a project directory" \
		"$OSB" run --policy "$S/sys.policy" --workspace "$S/proj" --ro /usr/local -- true
}

# ---- 2. another user's directory or symlink in the path ---------------------------------

t_foreign_components() {
	mkdir -m 755 "$S/race" "$S/race/u" "$S/rootonly" "$S/rootonly/probe"
	chmod 700 "$S/rootonly"
	chown "$TEST_USER:" "$S/race/u"
	as_user ln -s "$S/rootonly" "$S/race/u/q"
	as_user mkdir "$S/race/u/d"
	refused "root's workspace through another user's symlink is refused" 125 \
		"osb-isolate: workspace: $S/race/u/q/probe: $S/race/u is owned by $TEST_USER (uid $TEST_UID), who could redirect the path; every directory crossed must belong to root or to the caller" \
		"$OSB" run --workspace "$S/race/u/q/probe" -- touch planted
	if [ -e "$S/rootonly/probe/planted" ]; then flunk "nothing was written through the symlink"
	else pass "nothing was written through the symlink"; fi
	refused "root's workspace inside another user's directory is refused" 125 \
		"osb-isolate: workspace: $S/race/u/d: $S/race/u is owned by $TEST_USER (uid $TEST_UID), who could redirect the path; every directory crossed must belong to root or to the caller" \
		"$OSB" run --workspace "$S/race/u/d" -- true
	ln -s "$S/proj" "$S/mylink"
	refused "a symlink of the caller's own is not followed either" 125 \
		"osb-isolate: workspace: $S/mylink: symlink \"mylink\" (owned by root) refused: paths are resolved without following symlinks; name the directory itself" \
		"$OSB" run --workspace "$S/mylink" -- true
	chmod 1777 "$S/race/u"
	accepted "another user's directory itself, as the last component, is accepted" \
		"$OSB" explain --host --workspace "$S/race/u" strict
	# As the unprivileged user: a group-writable directory on the way, and
	# another user's entry in a sticky directory.
	mkdir -m 775 "$S/gw" && mkdir -m 755 "$S/gw/p" && chown "$TEST_USER:" "$S/gw/p"
	mkdir -m 1777 "$S/sticky" && mkdir -m 755 "$S/sticky/theirs" "$S/sticky/mine" "$S/sticky/roots"
	chown 4242:4242 "$S/sticky/theirs"; chown "$TEST_USER:" "$S/sticky/mine"
	mkdir -m 755 "$S/sticky/theirs/p"
	refused "a group-writable directory on the way is refused" 2 \
		"osb-isolate: workspace: $S/gw/p: $S/gw is writable by group (mode 0775), whose members could redirect the path; remove the write permission (chmod go-w)" \
		as_user "$OSB" explain --host --workspace "$S/gw/p" strict
	refused "another user's entry in a sticky directory is refused" 2 \
		"osb-isolate: workspace: $S/sticky/theirs/p: $S/sticky/theirs (owned by uid 4242) lies in the sticky, world-writable $S/sticky, where only entries of root or of the caller are safe from replacement" \
		as_user "$OSB" explain --host --workspace "$S/sticky/theirs/p" strict
	accepted "the caller's own entry in a sticky directory is accepted" \
		as_user "$OSB" explain --host --workspace "$S/sticky/mine" strict
	accepted "root's entry in a sticky directory is accepted" \
		as_user "$OSB" explain --host --workspace "$S/sticky/roots" strict
}

# ---- 3. configured workspace roots ----------------------------------------------------

t_config_roots() {
	mkdir -m 755 "$S/roots" "$S/elsewhere"
	mkdir -m 1777 "$S/roots/a"
	printf 'osb-config 1\n# where execd keeps workspaces\nworkspace-root %s\n' "$S/roots" >"$stage/config"
	chmod 644 "$stage/config"
	OSB_ISOLATE_CONFIG=$stage/config accepted "a workspace beneath a configured root runs" \
		"$OSB" run --workspace "$S/roots/a" -- true
	OSB_ISOLATE_CONFIG=$stage/config refused "a workspace outside the configured roots is refused" 125 \
		"osb-isolate: workspace: $S/elsewhere: not beneath a configured workspace root (workspace-root in $stage/config: $S/roots)" \
		"$OSB" run --workspace "$S/elsewhere" -- true
	OSB_ISOLATE_CONFIG=$stage/config refused "a configured root itself is not a workspace" 125 \
		"osb-isolate: workspace: $S/roots: not beneath a configured workspace root (workspace-root in $stage/config: $S/roots)" \
		"$OSB" run --workspace "$S/roots" -- true
	OSB_ISOLATE_CONFIG=$stage/config run_cli "$OSB" capabilities --json
	local roots
	roots=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["allowed_workspaces"])')
	if [ "$roots" = "['$S/roots']" ]; then pass "capabilities reports the configured roots"
	else flunk "capabilities reports the configured roots" "got: $roots"; fi
	chmod 664 "$stage/config"
	OSB_ISOLATE_CONFIG=$stage/config refused "a group-writable configuration file is refused" 125 \
		"osb-isolate: config: $stage/config: writable by group (mode 0664), whose members could change it; remove the write permission (chmod go-w)" \
		"$OSB" run --workspace "$S/roots/a" -- true
	chmod 644 "$stage/config"
	printf 'osb-config 1\nworkspace-rot %s\n' "$S/roots" >"$stage/config"
	OSB_ISOLATE_CONFIG=$stage/config refused "a misspelled configuration directive is refused with file:line:col" 125 \
		"osb-isolate: config: $stage/config:2:1: unknown directive \"workspace-rot\" (did you mean \"workspace-root\"?)" \
		"$OSB" run --workspace "$S/roots/a" -- true
}

# ---- 5. caller grants only narrow -------------------------------------------------------

t_caller_grants() {
	local strict=$stage/policy/strict.policy line
	line=$(grep -n '^network none' "$strict" | cut -d: -f1)
	mkdir -m 755 "$S/data" "$S/data/d"
	echo secret >"$S/data/d/f"
	refused "run --net under a policy without \"allow-caller network\" is refused" 125 \
		"osb-isolate: policy: --net: the host network is refused: the policy $strict has \"network none\" ($strict:$line) and does not grant callers the host network (a policy grants it with \"allow-caller network\")" \
		"$OSB" run --workspace "$S/proj" --net -- true
	refused "run --ro under a policy without read-root is refused" 125 \
		"osb-isolate: policy: --ro: read-only path \"$S/data/d\" refused: not beneath a declared read-root (the policy $strict declares none; a policy grants read-only paths with \"read-root DIR\")" \
		"$OSB" run --workspace "$S/proj" --ro "$S/data/d" -- cat "$S/data/d/f"
	printf 'osb-policy 1\ninclude %s\nallow-caller network\nread-root %s\n' "$strict" "$S/data" >"$S/grants.policy"
	run_cli "$OSB" run --policy "$S/grants.policy" --workspace "$S/proj" --net -- readlink /proc/self/ns/net
	if [ "$RC" = 0 ] && [ "$OUT" = "$(readlink /proc/self/ns/net)" ]; then pass "run --net under \"allow-caller network\" shares the host network"
	else flunk "run --net under \"allow-caller network\" shares the host network" "exit $RC: $OUT $ERR"; fi
	run_cli "$OSB" run --policy "$S/grants.policy" --workspace "$S/proj" --ro "$S/data/d" -- sh -c "cat $S/data/d/f; touch $S/data/d/g"
	if [ "$OUT" = secret ] && [ ! -e "$S/data/d/g" ]; then pass "run --ro beneath a read-root binds it read-only"
	else flunk "run --ro beneath a read-root binds it read-only" "exit $RC: $OUT $ERR"; fi
}

# ---- 6. include NAME reads only the policy directory -------------------------------------

t_planted_sibling() {
	mkdir -m 755 "$S/team"
	printf 'osb-policy 1\ninclude strict\n' >"$S/team/team.policy"
	printf 'osb-policy 1\nroot host-ro\nproc /proc\nworkspace rw\nseccomp none\n' >"$S/team/strict.policy"
	run_cli "$OSB" explain "$S/team/team.policy"
	if [ "$RC" = 0 ] && grep -qx "seccomp osb-default-3  # default" <<<"$OUT" && grep -q "^limit wall 10m  # $stage/policy/strict.policy:" <<<"$OUT"
	then pass "include strict ignores a planted sibling strict.policy"
	else flunk "include strict ignores a planted sibling strict.policy" "$OUT" "$ERR"; fi
	printf 'osb-policy 1\ninclude ./strict\n' >"$S/team/team.policy"
	run_cli "$OSB" explain "$S/team/team.policy"
	if [ "$RC" = 0 ] && grep -qx "seccomp none  # $S/team/strict.policy:5" <<<"$OUT"
	then pass "include ./strict names the sibling explicitly"
	else flunk "include ./strict names the sibling explicitly" "$OUT" "$ERR"; fi
}

echo "# paths: system directories and pseudo file systems"
t_system_workspaces
t_pseudo_fs_by_magic
t_system_write_and_ro_paths
echo "# paths: components other users can change"
t_foreign_components
echo "# paths: configured workspace roots"
t_config_roots
echo "# caller grants"
t_caller_grants
echo "# include"
t_planted_sibling
echo "1..$n"
[ "$n" -gt 0 ] || { echo "FAIL: paths.sh ran no test"; exit 1; }
[ "$failures" -eq 0 ]

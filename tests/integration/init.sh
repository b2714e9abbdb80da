#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# Integration tests for osb-isolate-init, run outside any sandbox: the report
# protocol on the error fd, argument strictness, stderr routing, fd hygiene,
# rlimits, identity and capability checks, the seccomp fd. Needs root (for the
# capability refusal and --switch-ids; skipped, exit 77, when not root) and an
# unprivileged user (osb-test, created if missing) (for everything that must
# pass the capability check). Uses $INIT, or else
# $OSB_BUILDDIR/helper/osb-isolate-init.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

INIT=${INIT:-${OSB_BUILDDIR:-}/helper/osb-isolate-init}
if [ ! -x "$INIT" ]; then
	echo "init.sh: no osb-isolate-init at '$INIT' (set INIT or OSB_BUILDDIR)" >&2
	exit 1
fi
test_need root probe_root
ensure_test_user
osbdev=$TEST_USER
id "$osbdev" >/dev/null 2>&1 || { echo "init.sh: FAIL: no user $osbdev" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
# A copy the test user can execute whatever the permissions of the build tree.
install -m 755 "$INIT" "$tmp/osb-isolate-init"
init=$tmp/osb-isolate-init
# The protocol version the init must be told (lib/init-proto.h).
proto=$(sed -n 's/^#define INIT_PROTO_VERSION \([0-9][0-9]*\)$/\1/p' "${OSB_SRCDIR:-$(dirname "$0")/../..}/lib/init-proto.h")
[ -n "$proto" ] || { echo "init.sh: FAIL: no INIT_PROTO_VERSION in lib/init-proto.h" >&2; exit 1; }
ouid=$(id -u "$osbdev")
ogid=$(id -g "$osbdev")
failures=0
n=0
TAB=$'\t'

pass() { n=$((n + 1)); echo "ok $n - $1"; }
flunk() { n=$((n + 1)); failures=$((failures + 1)); echo "not ok $n - $1"; }

# expect NAME WANT_RC GOT_RC FILE EXPECTED_BYTES
# An "X" carries the init's start time (lib/init-proto.h); the expectations
# below write "X" alone, and exec_x_carries_the_start_time checks the number.
expect() {
	local name=$1 want_rc=$2 got_rc=$3 file=$4 want=$5
	printf '%s' "$want" >"$tmp/want"
	[ -f "$file" ] && sed -i '1s/^X[0-9]\{1,20\}/X/' "$file"
	if [ "$got_rc" = "$want_rc" ] && cmp -s "$tmp/want" "$file"; then
		pass "$name"
	else
		flunk "$name"
		echo "#   exit: want $want_rc, got $got_rc"
		echo "#   $file: want $(od -An -c "$tmp/want" | tr -s ' ' | head -c 400)"
		echo "#   $file:  got $(od -An -c "$file" | tr -s ' ' | head -c 400)"
	fi
}

# Run as the unprivileged user with a fixed, small environment; the caller's
# redirections (the error fd, extra fds) are inherited through runuser.
as_user() { runuser -u "$osbdev" -- env -i PATH=/usr/bin:/bin "$@"; }
as_root() { env -i PATH=/usr/bin:/bin "$@"; }

# --- version and usage --------------------------------------------------------
rc=0; "$init" --version >"$tmp/out" || rc=$?
expect version_prints_name_and_version 0 "$rc" "$tmp/out" "osb-isolate-init 0.1.0 (init protocol $proto)"$'\n'
rc=0; "$init" --help >"$tmp/out" || rc=$?
head -n1 "$tmp/out" >"$tmp/first"
expect help_prints_usage 0 "$rc" "$tmp/first" $'Usage: osb-isolate-init [OPTIONS] -- CMD [ARG...]\n'

# --- the protocol version (--proto) -----------------------------------------------
# A launcher of another build is refused before any other option is read,
# naming both versions; one older than the handshake passes none (protocol 0).
mismatch() { # THEIRS -> the error line
	printf 'Einit:args\t71\tinit protocol mismatch: the launcher speaks protocol %s, this init implements protocol %s; install the library and osb-isolate-init from the same build\n' "$1" "$proto"
}
rc=0; as_user "$init" --error-fd 9 --proto $((proto + 1)) -- true 9>"$tmp/err" || rc=$?
expect proto_newer_launcher_refused 125 "$rc" "$tmp/err" "$(mismatch $((proto + 1)))"$'\n'
rc=0; as_user "$init" --error-fd 9 --proto 0 -- true 9>"$tmp/err" || rc=$?
expect proto_zero_refused 125 "$rc" "$tmp/err" "$(mismatch 0)"$'\n'
rc=0; as_user "$init" --error-fd 9 "--proto=${proto}x" -- true 9>"$tmp/err" || rc=$?
expect proto_not_a_number_refused 125 "$rc" "$tmp/err" "$(mismatch "\"${proto}x\"")"$'\n'
rc=0; as_user "$init" --error-fd 9 --stderr-fd 2 --proto "$proto" -- true 9>"$tmp/err" || rc=$?
expect proto_after_other_options_refused 125 "$rc" "$tmp/err" \
	"$(mismatch '0 (no --proto before its other options)')"$'\n'
rc=0; as_user "$init" --error-fd 9 -- true 9>"$tmp/err" || rc=$?
expect proto_missing_refused 125 "$rc" "$tmp/err" "$(mismatch '0 (no --proto)')"$'\n'
rc=0; as_user "$init" --error-fd 9 --proto "$proto" --proto "$proto" -- true 9>"$tmp/err" || rc=$?
expect proto_repeated_refused 125 "$rc" "$tmp/err" \
	"Einit:args${TAB}22${TAB}unknown or repeated option \"--proto\""$'\n'
rc=0; as_user "$init" --proto "$proto" --error-fd 9 -- sh -c 'exit 7' 9>"$tmp/err" || rc=$?
expect proto_current_runs_before_or_after_error_fd 7 "$rc" "$tmp/err" "X"

# --- arguments -----------------------------------------------------------------
rc=0; as_user "$init" --error-fd 9 --proto "$proto" -- 9>"$tmp/err" || rc=$?
expect missing_command_refused_on_error_fd 125 "$rc" "$tmp/err" \
	"Einit:args${TAB}22${TAB}no command: usage is osb-isolate-init [OPTIONS] -- CMD [ARG...]"$'\n'

rc=0; as_user "$init" --error-fd 9 --proto "$proto" true 9>"$tmp/err" || rc=$?
expect command_without_double_dash_refused 125 "$rc" "$tmp/err" \
	"Einit:args${TAB}22${TAB}unexpected argument \"true\" (options end with --, then the command)"$'\n'

rc=0; as_user "$init" --error-fd 9 --proto "$proto" --bogus 1 -- true 9>"$tmp/err" || rc=$?
expect unknown_option_refused 125 "$rc" "$tmp/err" \
	"Einit:args${TAB}22${TAB}unknown or repeated option \"--bogus\""$'\n'

rc=0; as_user "$init" --error-fd 9 --proto "$proto" --stderr-fd 2 --stderr-fd 2 -- true 9>"$tmp/err" || rc=$?
expect repeated_option_refused 125 "$rc" "$tmp/err" \
	"Einit:args${TAB}22${TAB}unknown or repeated option \"--stderr-fd\""$'\n'

rc=0; as_user "$init" --error-fd 9 --proto "$proto" --expect-uid +5 -- true 9>"$tmp/err" || rc=$?
expect signed_number_refused 125 "$rc" "$tmp/err" \
	"Einit:args${TAB}22${TAB}--expect-uid: \"+5\" is not a valid id"$'\n'

rc=0; as_user "$init" --error-fd 9 --proto "$proto" --rlimit nofile=64k -- true 9>"$tmp/err" || rc=$?
expect rlimit_trailing_garbage_refused 125 "$rc" "$tmp/err" \
	"Einit:args${TAB}22${TAB}--rlimit nofile=64k: value must be a number or \"unlimited\""$'\n'

rc=0; as_user "$init" --error-fd 9 --proto "$proto" --rlimit stack=1 -- true 9>"$tmp/err" || rc=$?
expect rlimit_unknown_name_refused 125 "$rc" "$tmp/err" \
	"Einit:args${TAB}22${TAB}--rlimit \"stack=1\": expected NAME=VALUE with NAME one of cpu, as, nofile, fsize, nproc, core"$'\n'

rc=0; as_user "$init" --error-fd 9 --proto "$proto" --switch-ids 0:1000 -- true 9>"$tmp/err" || rc=$?
expect switch_to_uid_zero_refused 125 "$rc" "$tmp/err" \
	"Einit:args${TAB}22${TAB}--switch-ids 0:1000: the command never runs as uid 0 or gid 0"$'\n'

rc=0; as_user "$init" --error-fd 9x -- true 2>"$tmp/stderr" || rc=$?
expect bad_error_fd_number_reported_on_stderr 125 "$rc" "$tmp/stderr" \
	$'osb-isolate-init: init:args: --error-fd: "9x" is not a file descriptor number >= 3\n'

rc=0; as_user "$init" --error-fd 9 --proto "$proto" -- true 2>"$tmp/stderr" || rc=$?
expect closed_error_fd_reported_on_stderr 125 "$rc" "$tmp/stderr" \
	$'osb-isolate-init: init:args: --error-fd 9: Bad file descriptor\n'

# --- exec ----------------------------------------------------------------------
before=$(awk '{ printf "%.0f", $1 * 1e9 }' /proc/uptime)
rc=0; as_user "$init" --error-fd 9 --proto "$proto" -- sh -c 'exit 3' 9>"$tmp/err" || rc=$?
after=$(awk '{ printf "%.0f", $1 * 1e9 + 1e9 }' /proc/uptime)
x=$(head -c 32 "$tmp/err")
# CLOCK_MONOTONIC never runs ahead of the boot clock /proc/uptime reads.
if [[ $x =~ ^X([0-9]{1,20})$ ]] && [ "${BASH_REMATCH[1]}" -gt 0 ] && [ "${BASH_REMATCH[1]}" -le "$after" ]; then
	pass exec_x_carries_the_start_time
else
	flunk exec_x_carries_the_start_time
	echo "#   got $(printf %q "$x") (uptime $before .. $after ns)"
fi
expect exec_success_reports_x_then_command_status 3 "$rc" "$tmp/err" "X"

rc=0; as_user "$init" --error-fd 9 --proto "$proto" -- osb-no-such-command 9>"$tmp/err" || rc=$?
expect exec_missing_command_enoent 125 "$rc" "$tmp/err" \
	"XEexec${TAB}2${TAB}osb-no-such-command: No such file or directory"$'\n'

printf '#!/bin/sh\necho hi\n' >"$tmp/osb-local"
chmod 644 "$tmp/osb-local"
rc=0; as_user "$init" --error-fd 9 --proto "$proto" -- "$tmp/osb-local" 9>"$tmp/err" || rc=$?
expect exec_non_executable_eacces 125 "$rc" "$tmp/err" \
	"XEexec${TAB}13${TAB}$tmp/osb-local: Permission denied"$'\n'

# A name without '/' is searched in PATH only, never in the cwd.
chmod 755 "$tmp/osb-local"
rc=0; (cd "$tmp" && as_user "$init" --error-fd 9 --proto "$proto" -- osb-local 9>"$tmp/err") || rc=$?
expect exec_bare_name_not_searched_in_cwd 125 "$rc" "$tmp/err" \
	"XEexec${TAB}2${TAB}osb-local: No such file or directory"$'\n'
rc=0; (cd "$tmp" && as_user "$init" --error-fd 9 --proto "$proto" -- ./osb-local 9>"$tmp/err" >"$tmp/out") || rc=$?
expect exec_name_with_slash_is_a_path 0 "$rc" "$tmp/out" $'hi\n'

rc=0; as_user "$init" --error-fd 9 --proto "$proto" -- $'osb\tno\nsuch' 9>"$tmp/err" || rc=$?
expect exec_error_line_has_no_tab_or_newline_from_name 125 "$rc" "$tmp/err" \
	"XEexec${TAB}2${TAB}osb?no?such: No such file or directory"$'\n'

rc=0; as_user "$init" --proto "$proto" -- osb-no-such-command 2>"$tmp/stderr" || rc=$?
expect exec_failure_without_error_fd_on_stderr 125 "$rc" "$tmp/stderr" \
	$'osb-isolate-init: exec: osb-no-such-command: No such file or directory\n'

# --- stderr routing and fds ----------------------------------------------------
rc=0; as_user "$init" --error-fd 9 --proto "$proto" --stderr-fd 5 -- \
	sh -c 'echo to-stderr >&2; echo to-stdout; [ -e /proc/$$/fd/5 ] && echo fd5-open; exit 0' \
	9>"$tmp/err" 5>"$tmp/cmd-err" >"$tmp/out" 2>"$tmp/stderr" || rc=$?
expect stderr_fd_receives_command_stderr 0 "$rc" "$tmp/cmd-err" $'to-stderr\n'
expect stderr_fd_closed_and_stdout_untouched 0 "$rc" "$tmp/out" $'to-stdout\n'
expect stderr_fd_leaves_original_stderr_unused 0 "$rc" "$tmp/stderr" ""

rc=0; (exec 7</dev/null; as_user "$init" --error-fd 9 --proto "$proto" -- ls /proc/self/fd 9>"$tmp/err" >"$tmp/out") || rc=$?
expect only_stdio_fds_reach_command 0 "$rc" "$tmp/out" $'0\n1\n2\n3\n'

# --- rlimits -------------------------------------------------------------------
rc=0; as_user "$init" --error-fd 9 --proto "$proto" --rlimit nofile=64 -- sh -c 'ulimit -Sn; ulimit -Hn' \
	9>"$tmp/err" >"$tmp/out" || rc=$?
expect rlimit_nofile_soft_and_hard 0 "$rc" "$tmp/out" $'64\n64\n'

rc=0; as_user "$init" --error-fd 9 --proto "$proto" --rlimit=cpu=unlimited --rlimit core=0 -- sh -c 'ulimit -t; ulimit -c' \
	9>"$tmp/err" >"$tmp/out" || rc=$?
expect rlimit_unlimited_and_inline_form 0 "$rc" "$tmp/out" $'unlimited\n0\n'

rc=0; as_user sh -c 'ulimit -n 100 && exec "$@"' sh "$init" --error-fd 9 --proto "$proto" --rlimit nofile=200 -- true \
	9>"$tmp/err" || rc=$?
expect rlimit_above_hard_limit_explained 125 "$rc" "$tmp/err" \
	"Einit:rlimits${TAB}1${TAB}cannot set the nofile limit to 200: the current hard limit is 100 and raising it needs CAP_SYS_RESOURCE; ask for at most 100"$'\n'

# --- identity ------------------------------------------------------------------
rc=0; as_user "$init" --error-fd 9 --proto "$proto" --expect-uid 0 -- true 9>"$tmp/err" || rc=$?
expect expect_uid_mismatch_refused 125 "$rc" "$tmp/err" \
	"Einit:identity${TAB}1${TAB}running as uid $ouid/$ouid/$ouid (real/effective/saved), expected 0"$'\n'

rc=0; as_user "$init" --error-fd 9 --proto "$proto" --expect-uid "$ouid" --expect-gid $((ogid + 1)) -- true 9>"$tmp/err" || rc=$?
expect expect_gid_mismatch_refused 125 "$rc" "$tmp/err" \
	"Einit:identity${TAB}1${TAB}running as gid $ogid/$ogid/$ogid (real/effective/saved), expected $((ogid + 1))"$'\n'

rc=0; as_user "$init" --error-fd 9 --proto "$proto" --expect-uid "$ouid" --expect-gid "$ogid" -- true 9>"$tmp/err" || rc=$?
expect expected_ids_accepted 0 "$rc" "$tmp/err" "X"

rc=0; setpriv --reuid "$ouid" --regid "$ogid" --groups 4 env -i PATH=/usr/bin:/bin \
	"$init" --error-fd 9 --proto "$proto" --expect-uid "$ouid" --expect-gid "$ogid" -- true 9>"$tmp/err" || rc=$?
expect supplementary_group_refused 125 "$rc" "$tmp/err" \
	"Einit:identity${TAB}1${TAB}supplementary group 4 is present, only gid $ogid (and unmapped host groups, shown as 65534) is allowed"$'\n'

# In a user namespace the caller's unmapped groups show as the overflow gid
# and cannot be dropped: they are accepted (and documented), nothing else.
rc=0; setpriv --reuid "$ouid" --regid "$ogid" --groups 65534 env -i PATH=/usr/bin:/bin \
	"$init" --error-fd 9 --proto "$proto" --expect-uid "$ouid" --expect-gid "$ogid" -- true 9>"$tmp/err" || rc=$?
expect overflow_group_accepted 0 "$rc" "$tmp/err" "X"

# --- capabilities --------------------------------------------------------------
# Root on the host holds capabilities: the check must refuse, naming them as
# libcap prints them (capsh uses the same cap_to_text).
captext=$(capsh --print | sed -n 's/^Current: //p')
rc=0; as_root "$init" --error-fd 9 --proto "$proto" -- true 9>"$tmp/err" || rc=$?
expect root_capabilities_refused 125 "$rc" "$tmp/err" \
	"Einit:caps${TAB}1${TAB}capabilities are not empty (process: $captext); the command must start with none: drop them before the init runs"$'\n'

rc=0; as_user "$init" --error-fd 9 --proto "$proto" -- sh -c 'grep -E "^Cap(Inh|Prm|Eff|Amb)|^NoNewPrivs" /proc/self/status' \
	9>"$tmp/err" >"$tmp/out" || rc=$?
printf 'CapInh:\t0000000000000000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapAmb:\t0000000000000000\nNoNewPrivs:\t1\n' >"$tmp/want-status"
expect unprivileged_user_passes_caps_check 0 "$rc" "$tmp/out" "$(cat "$tmp/want-status")"$'\n'

rc=0; as_root "$init" --error-fd 9 --proto "$proto" --switch-ids "$ouid:$ogid" -- \
	sh -c 'id -u; id -g; id -G; grep -E "^Cap(Inh|Prm|Eff|Bnd|Amb)" /proc/self/status' \
	9>"$tmp/err" >"$tmp/out" || rc=$?
expect switch_ids_drops_everything 0 "$rc" "$tmp/out" \
	"$ouid"$'\n'"$ogid"$'\n'"$ogid"$'\n'"CapInh:${TAB}0000000000000000"$'\n'"CapPrm:${TAB}0000000000000000"$'\n'"CapEff:${TAB}0000000000000000"$'\n'"CapBnd:${TAB}0000000000000000"$'\n'"CapAmb:${TAB}0000000000000000"$'\n'

rc=0; as_user "$init" --error-fd 9 --proto "$proto" --switch-ids "$ouid:$ogid" -- true 9>"$tmp/err" || rc=$?
expect switch_ids_without_privilege_refused 125 "$rc" "$tmp/err" \
	"Einit:caps${TAB}1${TAB}cannot drop cap_chown from the bounding set: Operation not permitted (the init needs CAP_SETPCAP to switch ids)"$'\n'

# --- seccomp -------------------------------------------------------------------
: >"$tmp/empty"
rc=0; as_user "$init" --error-fd 9 --proto "$proto" --seccomp-fd 8 -- true 9>"$tmp/err" 8<"$tmp/empty" || rc=$?
expect empty_seccomp_program_refused 125 "$rc" "$tmp/err" \
	"Einit:seccomp${TAB}22${TAB}the seccomp program on fd 8 is empty; an empty filter is a launch failure, never \"no filter\""$'\n'

printf 'abc' >"$tmp/partial"
rc=0; as_user "$init" --error-fd 9 --proto "$proto" --seccomp-fd 8 -- true 9>"$tmp/err" 8<"$tmp/partial" || rc=$?
expect partial_seccomp_instruction_refused 125 "$rc" "$tmp/err" \
	"Einit:seccomp${TAB}22${TAB}the seccomp program on fd 8 has 3 bytes: not a whole number of BPF instructions, or more than 4096"$'\n'

# One instruction: BPF_RET|BPF_K SECCOMP_RET_ALLOW. The command must run under it.
printf '\x06\x00\x00\x00\x00\x00\xff\x7f' >"$tmp/allow"
rc=0; as_user "$init" --error-fd 9 --proto "$proto" --seccomp-fd 8 -- sh -c 'grep -E "^Seccomp(_filters)?:" /proc/self/status; [ -e /proc/$$/fd/8 ] && echo fd8-open; exit 0' \
	9>"$tmp/err" 8<"$tmp/allow" >"$tmp/out" || rc=$?
expect seccomp_program_loaded_and_fd_closed 0 "$rc" "$tmp/out" $'Seccomp:\t2\nSeccomp_filters:\t1\n'

# --- a static executable that runs in any view -----------------------------------
# The init needs nothing from the sandbox's file system: no program
# interpreter, no shared library, no NSS (nothing reads passwd or group
# through libc). A sanitizer build keeps it dynamic (configure.ac): skipped.
probe_unsanitized_init() {
	WHY="a sanitizer build links the init dynamically (configure.ac: the ASan runtime is a shared library)"
	! readelf -dW "$init" | grep -q 'NEEDED.*libasan'
}
if test_have binutils probe_cmd readelf binutils && test_have binutils probe_cmd nm binutils &&
   test_have static-init probe_unsanitized_init; then
	{ readelf -dW "$init" | grep -E '\((NEEDED|INTERP)\)' || true; } >"$tmp/out"
	expect static_init_needs_no_shared_library 0 0 "$tmp/out" ""
	{ nm "$init" | grep -E ' [TtWw] (getpw(nam|uid|ent)|getgr(nam|gid|ent)|getspnam|initgroups|getgrouplist|_?_nss_)' || true; } >"$tmp/out"
	expect static_init_uses_no_nss 0 0 "$tmp/out" ""

	# A view with /usr and /proc only: no /lib, no /lib64. The old, dynamic
	# init failed there before it ran ("bwrap: execvp /proc/self/fd/6: No
	# such file or directory", 125). /usr/bin/true itself needs its loader
	# at /lib64, so it is started through the loader's real file under /usr;
	# started by name, the init runs and reports the missing loader (127).
	loader=$(readelf -lW /usr/bin/true | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
	loader=$(readlink -f "$loader" || true)
	probe_loader_in_usr() { WHY="the loader of /usr/bin/true ($loader) is not under /usr"; [[ $loader == /usr/* ]]; }
	if test_have usr-loader probe_loader_in_usr; then
		view=$(mktemp -d /tmp/osb-it.XXXXXX)
		chmod 1777 "$view"
		printf 'osb-policy 1\nroot none\nro-bind /usr\nproc /proc\n' >"$view/min.policy"
		rc=0; (cd "$view" && env -i PATH=/usr/bin:/bin OSB_ISOLATE_INIT="$init" \
			"$OSB_BUILDDIR/helper/osb-isolate" run --policy "$view/min.policy" -- \
			"$loader" /usr/bin/true >"$tmp/out" 2>"$tmp/stderr") || rc=$?
		expect root_none_without_lib_runs_usr_bin_true 0 "$rc" "$tmp/stderr" ""
		rc=0; (cd "$view" && env -i PATH=/usr/bin:/bin OSB_ISOLATE_INIT="$init" \
			"$OSB_BUILDDIR/helper/osb-isolate" run --policy "$view/min.policy" -- \
			/usr/bin/true >"$tmp/out" 2>"$tmp/stderr") || rc=$?
		expect root_none_without_lib64_init_reports_missing_loader 127 "$rc" "$tmp/stderr" \
			$'osb-isolate: exec: /usr/bin/true: No such file or directory\n'
		rm -rf "$view"
	fi
fi

echo "1..$n"
[ "$n" -gt 0 ] || { echo "FAIL: init.sh ran no test"; exit 1; }
[ "$failures" = 0 ]

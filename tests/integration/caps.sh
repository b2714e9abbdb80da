#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# caps.sh — `osb-isolate capabilities` end to end, on the real host and with
# each failure simulated: bwrap missing (OSB_ISOLATE_BWRAP, then PATH), a
# bwrap whose --help lacks --bind-fd (tests/integration/bwrap-no-bind-fd),
# user namespaces refused by a seccomp filter (tests/integration/nouserns),
# running nested inside an `osb-isolate run` sandbox, and not being root.
# For each: the item's status, reason and remedy, exactly, in both the table
# and the JSON; the JSON valid against docs/capabilities.schema.json; and
# `osb-isolate run` refusing with 125 and the same words (or, where a mode
# still works, running). Needs root (it also runs as osb-test), user
# namespaces (the real host is the baseline every simulation changes one
# thing of) and python3-jsonschema; skipped (exit 77, saying why) without.
set -uo pipefail
. "$OSB_SRCDIR/tests/integration/lib.sh"
test_need root probe_root
ensure_test_user
test_need userns probe_userns
test_need userns probe_userns user
test_need python3-jsonschema probe_python_module jsonschema python3-jsonschema
for f in tests/integration/nouserns tests/integration/nocover tests/integration/nomountapi \
	tests/escape/dump-filter; do
	[ -x "$OSB_BUILDDIR/$f" ] || die "$OSB_BUILDDIR/$f is missing: build first (make check builds it)"
done

stage=$(stage_artifacts)
trap 'rm -rf "$stage"' EXIT
cp "$OSB_BUILDDIR/tests/integration/nouserns" "$OSB_BUILDDIR/tests/integration/nocover" \
	"$OSB_BUILDDIR/tests/integration/nomountapi" "$OSB_SRCDIR/tests/integration/bwrap-no-bind-fd" \
	"$stage/bin/"
cp "$OSB_SRCDIR/docs/capabilities.schema.json" "$stage/"
printf 'osb-policy 1\ninclude strict\nidentity userns\n' >"$stage/policy/userns-only.policy"
printf 'osb-policy 1\ninclude strict\nwrite-root /srv/osb-jobs\nwrite-root /data\n' \
	>"$stage/policy/with-roots.policy"
chmod -R a+rX "$stage"
OSB=$stage/bin/osb-isolate
export OSB_ISOLATE_INIT="$stage/bin/osb-isolate-init" OSB_ISOLATE_POLICY_DIR="$stage/policy"
TEST_UID=$(id -u "$TEST_USER")
BASE_ENV=(PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 HOME=/nonexistent
	OSB_ISOLATE_INIT="$OSB_ISOLATE_INIT" OSB_ISOLATE_POLICY_DIR="$OSB_ISOLATE_POLICY_DIR")

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
not_ok() {
	fail=$((fail + 1))
	echo "not ok - $1"
	shift
	for l in "$@"; do echo "#   $l"; done
}
expect_eq() { # name expected actual
	if [ "$2" == "$3" ]; then ok "$1"; else not_ok "$1" "expected: $(printf %q "$2")" "actual:   $(printf %q "$3")"; fi
}

# A workspace owned by WHO (a user name or uid:gid), as the current directory.
new_ws() {
	WS=$(mktemp -d "$stage/work/ws.XXXXXX")
	chmod 755 "$WS"
	chown "$1" "$WS"
	# A root caller's sandbox runs as host ids allocated for it: it can
	# write only what others may write.
	[ "$1" = root ] && chmod 1777 "$WS"
	cd "$WS" || exit 99
}

# Run "$@" as root or as the test user, with a small fixed environment plus
# the VAR=VALUE words in EXTRA_ENV.
EXTRA_ENV=()
as_root() { env -i "${BASE_ENV[@]}" "${EXTRA_ENV[@]}" "$@"; }
as_user() {
	setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups -- \
		env -i "${BASE_ENV[@]}" "${EXTRA_ENV[@]}" "$@"
}

# Probe once as RUNNER (as_root/as_user, optionally through a wrapper):
# TABLE, JSON and RC hold the results, J the parsed items (load_json).
probe() {
	local runner=("$@")
	TABLE=$("${runner[@]}" "$OSB" capabilities 2>&1)
	RC=$?
	JSON=$("${runner[@]}" "$OSB" capabilities --json 2>&1)
	load_json
}

# One python run per probe: validate against the schema and flatten the
# items into J[id:field] (remedy "null" when there is none).
declare -A J
load_json() {
	local out
	J=()
	out=$(printf '%s' "$JSON" | python3 -c 'import json,sys,shlex,jsonschema
s=json.load(open(sys.argv[1]))
try:
    d=json.loads(sys.stdin.read())
    jsonschema.Draft7Validator.check_schema(s)
    jsonschema.Draft7Validator(s).validate(d)
    print("J[schema]=ok")
except Exception as e:
    print("J[schema]=" + shlex.quote(str(e).splitlines()[0][:300])); sys.exit(0)
for i in d["items"]:
    for k in ("status", "reason", "remedy"):
        v = i[k] if i[k] is not None else "null"
        print("J[%s:%s]=%s" % (i["id"], k, shlex.quote(v)))' "$stage/capabilities.schema.json" 2>&1)
	eval "$out"
}

json() { # python expression over d (the JSON object)
	printf '%s' "$JSON" | python3 -c 'import json,sys
d=json.load(sys.stdin)
v=eval(sys.argv[1])
print(v if isinstance(v,str) else json.dumps(v), end="")' "$1"
}

check_schema() { # name
	if [ "${J[schema]:-}" = ok ]; then
		ok "$1: the JSON validates against the schema"
	else
		not_ok "$1: the JSON validates against the schema" "${J[schema]:-no result}" "${JSON:0:300}"
	fi
}

# The item ID must read STATUS / REASON / REMEDY ("" for none) in the JSON
# and in the table.
check_item() { # name id status reason remedy
	local name=$1 id=$2 status=$3 reason=$4 remedy=$5 row
	expect_eq "$name: JSON $id status" "$status" "${J[$id:status]:-}"
	expect_eq "$name: JSON $id reason" "$reason" "${J[$id:reason]:-}"
	expect_eq "$name: JSON $id remedy" "${remedy:-null}" "${J[$id:remedy]:-}"
	row=$(printf '%-12s %-21s %s' "$status" "$id" "$reason")
	if [ -n "$remedy" ]; then
		row+=$'\n'$(printf '%-34s remedy: %s' "" "$remedy")
	fi
	case "$TABLE" in
	*"$row"*) ok "$name: table row for $id" ;;
	*) not_ok "$name: table row for $id" "wanted: $row" "table:" "$TABLE" ;;
	esac
}

# `run` must refuse with 125 and the item's own words.
check_refusal() { # name id status reason remedy runner...
	local name=$1 id=$2 status=$3 reason=$4 remedy=$5 err rc
	shift 5
	err=$("$@" "$OSB" run -- true 2>&1 >/dev/null)
	rc=$?
	expect_eq "$name: run refuses with 125" 125 "$rc"
	expect_eq "$name: run names $id, its reason and remedy" \
		"osb-isolate: probe: $id $status: $reason; remedy: $remedy" "$err"
}

INSTALL="install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap) or set OSB_ISOLATE_BWRAP to its path"
USERNS_SECCOMP="a seccomp filter on this process (1 filter: an enclosing sandbox or a container's seccomp profile) refuses unshare(CLONE_NEWUSER): Operation not permitted"
USERNS_SECCOMP_FIX="run osb-isolate outside the enclosing sandbox, or allow user namespaces in the container's seccomp profile (Docker: --security-opt seccomp=PROFILE); as root, identity root needs none"
NESTED_FIX="this runs inside another sandbox or container, whose restrictions stay in force and may refuse namespaces; for full isolation run osb-isolate outside it"
NOT_ROOT_FIX="identity root is for a daemon that runs as root (for example in a container where user namespaces are blocked); as this user, use identity userns"

# ---- the host as it is ---------------------------------------------------------

t_host_root() {
	local n="host as root" id
	new_ws root
	EXTRA_ENV=()
	probe as_root
	check_schema "$n"
	expect_eq "$n: exit 0" 0 "$RC"
	for id in bwrap bwrap_options bwrap_bind_fd bwrap_disable_userns user_namespace \
		net_namespace pid_namespace seccomp nested root; do
		expect_eq "$n: $id ok" ok "${J[$id:status]:-}"
	done
	check_item "$n" user_namespace ok \
		"bwrap created a user namespace and wrote its uid/gid map (uid 1000 inside)" ""
	check_item "$n" nested ok "not nested: no seccomp filter, the initial user namespace" ""
	expect_eq "$n: identity auto picks userns, host ids allocated from the range" \
		'{"auto_mode": "userns", "host_ids": {"kind": "allocated", "first": 1879048192, "last": 1879113727}}' \
		"$(json "d['identity']")"
	case "$TABLE" in *"identity auto runs as userns mode; host ids allocated per sandbox from 1879048192-1879113727 (no account's)"*)
		ok "$n: the table names the mode and the host ids";;
		*) not_ok "$n: the table names the mode and the host ids" "$TABLE";; esac
	expect_eq "$n: compat fields" \
		'true bubblewrap 0.8.0 ["userns", "root"] ["balanced", "strict", "userns-only", "with-roots"] false' \
		"$(json "' '.join(json.dumps(x) if not isinstance(x,str) else x for x in [d['available'], d['isolator'], d['version'], d['modes'], d['profiles'], d['share_net_overridable']])")"
	expect_eq "$n: seccomp_profile_sha256 is the hash of the filter a run loads" \
		"$("$stage/bin/dump-filter" | sha256sum | cut -d' ' -f1)" "$(json "d['seccomp_profile_sha256']")"
	expect_eq "$n: the declared write roots of the policies" '["/data", "/srv/osb-jobs"]' \
		"$(json "d['allowed_extra_writable_prefixes']")"
	expect_eq "$n: userns mode runs every policy" '["balanced", "strict", "userns-only", "with-roots"]' \
		"$(json "d['summary']['userns']['profiles']")"
	expect_eq "$n: userns-only cannot run in root mode" '["balanced", "strict", "with-roots"]' \
		"$(json "d['summary']['root']['profiles']")"
	case "$TABLE" in
	*$'\nmode userns usable; runs balanced, strict, userns-only, with-roots\nmode root   usable; runs balanced, strict, with-roots\n'*)
		ok "$n: table summary of modes" ;;
	*) not_ok "$n: table summary of modes" "$TABLE" ;;
	esac
}

t_not_root() {
	local n="not root ($TEST_USER)"
	new_ws "$TEST_USER"
	EXTRA_ENV=()
	probe as_user
	check_schema "$n"
	expect_eq "$n: exit 0 (userns works)" 0 "$RC"
	check_item "$n" root unavailable "running as uid $TEST_UID, not root (capabilities: none)" \
		"$NOT_ROOT_FIX"
	expect_eq "$n: modes" '["userns"]' "$(json "d['modes']")"
	expect_eq "$n: identity auto picks userns, the sandbox is the caller" \
		"{\"auto_mode\": \"userns\", \"host_ids\": {\"kind\": \"caller\", \"uid\": $TEST_UID, \"gid\": $(id -g "$TEST_USER")}}" \
		"$(json "d['identity']")"
	expect_eq "$n: root mode blocked by the root item" "root" "$(json "d['summary']['root']['blocked_by']")"
	expect_eq "$n: run works in userns mode (no refusal)" "1000" "$(as_user "$OSB" run -- id -u 2>&1)"
}

# ---- bwrap missing or lacking --bind-fd ---------------------------------------------

t_no_bwrap() {
	local n="OSB_ISOLATE_BWRAP=/nonexistent" reason="OSB_ISOLATE_BWRAP=/nonexistent is not executable: No such file or directory"
	new_ws root
	EXTRA_ENV=(OSB_ISOLATE_BWRAP=/nonexistent)
	probe as_root
	check_schema "$n"
	expect_eq "$n: exit 1 (nothing can run)" 1 "$RC"
	check_item "$n" bwrap unavailable "$reason" "$INSTALL"
	expect_eq "$n: available, version, modes" 'false null []' \
		"$(json "' '.join(json.dumps(x) for x in [d['available'], d['version'], d['modes']])")"
	check_refusal "$n" bwrap unavailable "$reason" "$INSTALL" as_root
	EXTRA_ENV=()
}

t_bwrap_not_on_path() {
	local n="bwrap not on PATH" reason="bwrap is not on PATH (/nonexistent/bin)"
	new_ws root
	EXTRA_ENV=(PATH=/nonexistent/bin)
	probe as_root
	check_schema "$n"
	check_item "$n" bwrap unavailable "$reason" "$INSTALL"
	check_refusal "$n" bwrap unavailable "$reason" "$INSTALL" as_root
	EXTRA_ENV=()
}

# The CLI hands the library the programs it names (osb_set_program); a
# relative one is refused before anything runs, whichever command.
t_relative_program() {
	local var out rc
	for var in OSB_ISOLATE_BWRAP OSB_ISOLATE_INIT; do
		for cmd in "run -- true" "capabilities" "session start"; do
			# shellcheck disable=SC2086
			out=$(cd "$stage/work" && env -i "${BASE_ENV[@]}" "$var=bin/x" "$OSB" $cmd 2>&1)
			rc=$?
			expect_eq "$var=bin/x, $cmd: exit 125" 125 "$rc"
			expect_eq "$var=bin/x, $cmd: says why" \
				"osb-isolate: $var=bin/x: the path must be absolute" "$out"
		done
	done
}

t_no_bind_fd() {
	local n="bwrap without --bind-fd"
	local reason="bwrap --help lacks --bind-fd and --ro-bind-fd: paths cannot be bound by their verified fd, and binding by name is refused"
	local remedy="install bubblewrap 0.10 or later, or Debian 12's 0.8.0-2+deb12u1, which backports --bind-fd"
	new_ws root
	EXTRA_ENV=(OSB_ISOLATE_BWRAP="$stage/bin/bwrap-no-bind-fd")
	probe as_root
	check_schema "$n"
	expect_eq "$n: exit 1" 1 "$RC"
	check_item "$n" bwrap ok "$stage/bin/bwrap-no-bind-fd: bubblewrap 0.8.0, not setuid" ""
	check_item "$n" bwrap_bind_fd unavailable "$reason" "$remedy"
	expect_eq "$n: --bind-fd reported absent" false "$(json "d['bwrap']['options']['--bind-fd']")"
	expect_eq "$n: no mode" '[]' "$(json "d['modes']")"
	check_refusal "$n" bwrap_bind_fd unavailable "$reason" "$remedy" as_root
	EXTRA_ENV=()
}

# ---- bwrap's --help, kept between processes ---------------------------------------
# A launch reads bwrap's options from its --help once per binary: the text is
# kept in a file of the caller's own (root: /run/osb-isolate; a user:
# /run/user/UID), keyed by the binary's path, device, inode, size, mtime and
# ctime (lib/helpcache.c). A wrapper that logs each --help counts how often
# it really ran. A file the caller alone could not have written is never
# trusted; an answer the binary contradicts fails closed and is dropped.

# A logging bwrap of its own (a new inode: no answer is kept for it yet).
logged_bwrap() { # name
	HLOG="$stage/work/help-$1.log"
	: >"$HLOG"
	chmod 666 "$HLOG"
	printf '#!/bin/sh\n[ "$*" = --help ] && echo help >>"%s"\nexec /usr/bin/bwrap "$@"\n' "$HLOG" \
		>"$stage/bin/bwrap-$1"
	chmod 755 "$stage/bin/bwrap-$1"
	EXTRA_ENV=(OSB_ISOLATE_BWRAP="$stage/bin/bwrap-$1")
}
helps() { wc -l <"$HLOG" | tr -d ' '; }
# The file kept for bwrap NAME in DIR.
help_file() { # dir name
	printf '%s/bwrap-help.%s' "$1" "$(printf '%s' "$stage/bin/bwrap-$2" | sha256sum | cut -c1-16)"
}

t_help_kept_root() {
	local n="--help kept between processes, as root" f
	new_ws root
	logged_bwrap root
	f=$(help_file /run/osb-isolate root)
	as_root "$OSB" run -- true && as_root "$OSB" run -- true && as_root "$OSB" run -- true
	expect_eq "$n: three runs, one --help" 1 "$(helps)"
	expect_eq "$n: kept in a file of root's own, 0600" "root 600 1" "$(stat -c '%U %a %h' "$f" 2>&1)"
	touch "$stage/bin/bwrap-root"
	as_root "$OSB" run -- true
	expect_eq "$n: the binary changed (mtime, ctime): read again" 2 "$(helps)"
	chmod 0620 "$f"
	as_root "$OSB" run -- true
	expect_eq "$n: a file others could write is not trusted" 3 "$(helps)"
	expect_eq "$n: ... and is replaced by a private one" "600" "$(stat -c '%a' "$f")"
	chown "$TEST_USER" "$f"
	as_root "$OSB" run -- true
	expect_eq "$n: a file of another user is not trusted" 4 "$(helps)"
	rm -f "$f"
	ln -s "$stage/work/help-root.log" "$f"
	as_root "$OSB" run -- true
	expect_eq "$n: a symlink in its place is not followed" 5 "$(helps)"
	expect_eq "$n: ... and is replaced by a file" "regular file" "$(stat -c '%F' "$f")"
	rm -f "$f"
	EXTRA_ENV=()
}

t_help_kept_user() {
	local n="--help kept between processes, as $TEST_USER" dir="/run/user/$TEST_UID" made=0 f
	if [ ! -d "$dir" ]; then
		mkdir -p /run/user && install -d -m 0700 -o "$TEST_USER" -g "$TEST_USER" "$dir" && made=1
	fi
	new_ws "$TEST_USER"
	logged_bwrap user
	f=$(help_file "$dir" user)
	as_user "$OSB" run -- true && as_user "$OSB" run -- true
	expect_eq "$n: two runs, one --help" 1 "$(helps)"
	expect_eq "$n: kept in $dir, the user's own" "$TEST_USER 600" "$(stat -c '%U %a' "$f" 2>&1)"
	chown root "$f"
	as_user "$OSB" run -- true
	expect_eq "$n: a file of root's in the user's directory is not trusted" 2 "$(helps)"
	rm -f "$f"
	chmod 0770 "$dir"
	as_user "$OSB" run -- true && as_user "$OSB" run -- true
	expect_eq "$n: a directory others may write is not used" 4 "$(helps)"
	expect_eq "$n: ... nothing kept there" "no" "$([ -e "$f" ] && echo yes || echo no)"
	chmod 0700 "$dir"
	rm -f "$f"
	if [ "$made" = 1 ]; then
		rm -rf "$dir"
		as_user "$OSB" run -- true && as_user "$OSB" run -- true
		expect_eq "$n: without a runtime directory, every process reads --help" 6 "$(helps)"
	fi
	EXTRA_ENV=()
}

# An answer kept for a binary that then refuses an option it listed (a file
# written with the binary's key, as an older osb-isolate or a replaced
# binary with the same key would leave): the launch fails closed with
# bwrap's words, the answer is dropped, and the next launch refuses from
# what the binary says now.
t_help_stale() {
	local n="a kept --help the binary contradicts" f key err rc
	new_ws root
	cat >"$stage/bin/bwrap-old" <<-'EOF'
	#!/bin/sh
	# An upstream 0.8.0: no --bind-fd, --ro-bind-fd.
	if [ "$*" = --help ]; then
		/usr/bin/bwrap --help | grep -v -e '^ *--bind-fd ' -e '^ *--ro-bind-fd '
		exit 0
	fi
	for a in "$@"; do
		case $a in --bind-fd | --ro-bind-fd) echo "bwrap: Unknown option $a" >&2; exit 1 ;; esac
	done
	exec /usr/bin/bwrap "$@"
	EOF
	chmod 755 "$stage/bin/bwrap-old"
	f=$(help_file /run/osb-isolate old)
	/usr/bin/bwrap --help >"$stage/work/full-help"
	key=$(stat -c '%d %i %s %.9Y %.9Z' "$stage/bin/bwrap-old")
	{ printf 'osb-isolate bwrap --help 1\n%s\n%s %s\n' "$stage/bin/bwrap-old" "$key" \
		"$(stat -c %s "$stage/work/full-help")"; cat "$stage/work/full-help"; } >"$f"
	chmod 600 "$f"
	EXTRA_ENV=(OSB_ISOLATE_BWRAP="$stage/bin/bwrap-old")
	err=$(as_root "$OSB" run -- true 2>&1 >/dev/null); rc=$?
	expect_eq "$n: 125" 125 "$rc"
	expect_eq "$n: bwrap's words, and what was done" "osb-isolate: bwrap: sandbox setup failed: bwrap: Unknown option --ro-bind-fd ($stage/bin/bwrap-old refused an option its --help listed when it was read; that answer is dropped: run again to read it anew)" "$err"
	err=$(as_root "$OSB" run -- true 2>&1 >/dev/null); rc=$?
	expect_eq "$n: the next run: 125" 125 "$rc"
	expect_eq "$n: ... refused from the binary's own --help" "osb-isolate: probe: bwrap_bind_fd unavailable: bwrap --help lacks --bind-fd and --ro-bind-fd: paths cannot be bound by their verified fd, and binding by name is refused; remedy: install bubblewrap 0.10 or later, or Debian 12's 0.8.0-2+deb12u1, which backports --bind-fd" "$err"
	rm -f "$f"
	EXTRA_ENV=()
}

# ---- user namespaces blocked ------------------------------------------------------

t_nouserns_root() {
	local n="user namespaces blocked, as root"
	new_ws root
	EXTRA_ENV=()
	probe as_root "$stage/bin/nouserns"
	check_schema "$n"
	expect_eq "$n: exit 0 (root mode works)" 0 "$RC"
	check_item "$n" user_namespace unavailable "$USERNS_SECCOMP" "$USERNS_SECCOMP_FIX"
	check_item "$n" nested degraded "already confined: 1 seccomp filter" "$NESTED_FIX"
	check_item "$n" net_namespace ok \
		"bwrap created a network namespace with loopback up (as root, without a user namespace)" ""
	expect_eq "$n: only root mode" '["root"]' "$(json "d['modes']")"
	expect_eq "$n: identity auto picks root mode" root "$(json "d['identity']['auto_mode']")"
	expect_eq "$n: seccomp named as the blocker" 'seccomp' \
		"$(json "[b['name'] for b in d['blockers'] if b['blocking']][0]")"
	local id
	id=$(as_root "$stage/bin/nouserns" "$OSB" run --json -- id -u 2>&1)
	expect_eq "$n: run falls back to root mode, as allocated host ids" "root allocated" \
		"$(printf '%s' "$id" | python3 -c 'import json,sys; d=json.load(sys.stdin); u=int(d["stdout"]); print(d["mode"], d["host_ids"]["kind"] if u == d["host_ids"]["uid"] and u >= 0x70000000 else u)')"
	local err rc
	err=$(as_root "$stage/bin/nouserns" "$OSB" run --policy userns-only -- true 2>&1 >/dev/null)
	rc=$?
	expect_eq "$n: identity userns refused with 125" 125 "$rc"
	expect_eq "$n: identity userns refusal names user_namespace" \
		"osb-isolate: probe: user_namespace unavailable: $USERNS_SECCOMP; remedy: $USERNS_SECCOMP_FIX" "$err"
}

t_nouserns_user() {
	local n="user namespaces blocked, as $TEST_USER"
	new_ws "$TEST_USER"
	EXTRA_ENV=()
	probe as_user "$stage/bin/nouserns"
	check_schema "$n"
	expect_eq "$n: exit 1 (no mode)" 1 "$RC"
	check_item "$n" user_namespace unavailable "$USERNS_SECCOMP" "$USERNS_SECCOMP_FIX"
	check_item "$n" nested degraded "already confined: 1 seccomp filter, no_new_privs set" "$NESTED_FIX"
	check_item "$n" root unavailable "running as uid $TEST_UID, not root (capabilities: none)" "$NOT_ROOT_FIX"
	expect_eq "$n: available false" false "$(json "d['available']")"
	check_refusal "$n" user_namespace unavailable "$USERNS_SECCOMP" "$USERNS_SECCOMP_FIX" \
		as_user "$stage/bin/nouserns"
}

# ---- the init's /proc cover refused (tests/integration/nocover.c) -----------------------

NO_COVER="the init's /proc cover: bind mount over /proc/sys fails: Operation not permitted"
NO_COVER_FIX="the init makes the cover with mount(2) in a mount namespace of its own (binds and read-only remounts on O_PATH files through /proc/self/fd, a tmpfs): an enclosing container's seccomp profile or security module (AppArmor, SELinux) refuses them; allow mount(2) there, or run osb-isolate outside the container"
NO_COVER_RUN="osb-isolate: init:mounts: cannot cover /proc/sys: bind mount: Operation not permitted (the init needs CAP_SYS_ADMIN for this step, and mount(2) that an enclosing container's seccomp profile or security module does not refuse: see the proc_cover item of osb-isolate capabilities)"

# A container's filter (WRAPPER, tests/integration/*.c) refuses one of the
# init's mount steps: capabilities tries them and names the refused one in
# proc_cover (REASON, per mode; FIX); a fresh process's run leaves the step to
# the init, which refuses with 125 and sends the user to that item (RUN, with
# @WS@ for the workspace). RUNNER: as_root or as_user.
t_mount_refused() { # wrapper label fix run runner owner reason
	local n="$2, $5" err rc
	new_ws "$6"
	EXTRA_ENV=()
	probe "$5" "$stage/bin/$1"
	check_schema "$n"
	expect_eq "$n: exit 0 (sandboxes still start)" 0 "$RC"
	check_item "$n" proc_cover unavailable "$7" "$3"
	err=$("$5" "$stage/bin/$1" "$OSB" run -- true 2>&1 >/dev/null)
	rc=$?
	expect_eq "$n: run refuses with 125" 125 "$rc"
	expect_eq "$n: the init names the refused step and the item" "${4//@WS@/$WS}" "$err"
}
t_nocover() { # runner owner reason
	t_mount_refused nocover "the /proc cover refused" "$NO_COVER_FIX" "$NO_COVER_RUN" "$@"
}

# ---- the init's read-only rules refused (tests/integration/nomountapi.c) ----------------

NO_TREE="the init's /proc cover: open_tree(OPEN_TREE_CLONE) of /proc/sys fails: Operation not permitted"
NO_TREE_FIX="the init makes a policy's read-only rules inside a writable workspace (strict's .git) with open_tree(2), mount_setattr(2) and move_mount(2): an enclosing container's seccomp profile or security module refuses them; allow them there, or run osb-isolate outside the container"

# A container that allows mount(2) but not open_tree(2): the /proc cover is
# made, strict's read-only .git is not.
NO_TREE_RUN="osb-isolate: init:mounts: cannot re-protect @WS@/.git read-only: open_tree of the path: Operation not permitted (the init needs CAP_SYS_ADMIN for this step, and open_tree(2), move_mount(2) and mount_setattr(2) that an enclosing container's seccomp profile or security module does not refuse: see the proc_cover item of osb-isolate capabilities)"
t_nomountapi() { # runner owner reason
	t_mount_refused nomountapi "open_tree refused" "$NO_TREE_FIX" "$NO_TREE_RUN" "$@"
}

# ---- nested inside an osb-isolate sandbox ------------------------------------------------

# WHO (as_root/as_user) runs the CLI inside `osb-isolate run --policy
# balanced` (which passes the environment through); the programs are copied
# into the workspace, the only host directory under /tmp the sandbox sees.
# Inside, uid 1000 maps to uid 0 of the intermediate namespace bwrap makes
# for --disable-userns, whoever runs it.
t_nested() {
	local who=$1 owner=$2 n="nested in an osb-isolate sandbox ($2)"
	new_ws "$owner"
	mkdir "$WS/bin" "$WS/lib"
	cp "$OSB" "$OSB_ISOLATE_INIT" "$WS/bin/"
	cp "$stage/lib/libosb-isolate.so.0" "$WS/lib/"
	cp -r "$stage/policy" "$WS/"
	chown -R "$owner" "$WS/bin" "$WS/lib" "$WS/policy"
	local inner=(OSB_ISOLATE_INIT="$WS/bin/osb-isolate-init" OSB_ISOLATE_POLICY_DIR="$WS/policy")
	EXTRA_ENV=()
	TABLE=$("$who" "$OSB" run --policy balanced -- env "${inner[@]}" "$WS/bin/osb-isolate" capabilities 2>&1)
	RC=$?
	JSON=$("$who" "$OSB" run --policy balanced -- env "${inner[@]}" "$WS/bin/osb-isolate" capabilities --json 2>&1)
	load_json
	check_schema "$n"
	expect_eq "$n: exit 1 (no mode inside)" 1 "$RC"
	check_item "$n" user_namespace unavailable "$USERNS_SECCOMP" "$USERNS_SECCOMP_FIX"
	check_item "$n" nested degraded \
		"already confined: 1 seccomp filter, no_new_privs set, in a user namespace (uid_map: 1000 0 1)" \
		"$NESTED_FIX"
	check_item "$n" root unavailable "running as uid 1000, not root (capabilities: none)" "$NOT_ROOT_FIX"
	local err rc
	err=$("$who" "$OSB" run --policy balanced -- env "${inner[@]}" "$WS/bin/osb-isolate" run -- true 2>&1 >/dev/null)
	rc=$?
	expect_eq "$n: inner run refuses with 125" 125 "$rc"
	expect_eq "$n: inner run names user_namespace, its reason and remedy" \
		"osb-isolate: probe: user_namespace unavailable: $USERNS_SECCOMP; remedy: $USERNS_SECCOMP_FIX" "$err"
}

echo "# capabilities probe"
t_host_root
t_not_root
t_no_bwrap
t_bwrap_not_on_path
t_relative_program
t_no_bind_fd
t_help_kept_root
t_help_kept_user
t_help_stale
t_nouserns_root
t_nouserns_user
t_nocover as_root root "userns mode: $NO_COVER; root mode: $NO_COVER"
t_nocover as_user "$TEST_USER" "userns mode: $NO_COVER"
t_nomountapi as_root root "userns mode: $NO_TREE; root mode: $NO_TREE"
t_nomountapi as_user "$TEST_USER" "userns mode: $NO_TREE"
t_nested as_root root
t_nested as_user "$TEST_USER"
finish_suite "$pass" "$fail"

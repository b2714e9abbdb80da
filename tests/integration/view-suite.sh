#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# view-suite.sh — what strict's curated view shows of the host, run by
# view.sh as root and as the unprivileged test user with STAGE (bin/,
# policy/, a writable work/) and FIX (fixtures view.sh planted on the host)
# set:
#   - the leak probe (leakprobe.sh) reports every item of the host that
#     strict must not show as absent, synthesized, masked or private;
#   - a world-writable Unix socket in a host directory the view does not
#     bind cannot be reached (and can, as a control, once a policy binds it);
#   - a workspace below a directory the view does not bind is reachable and
#     writable at its own path;
#   - the programs of the compatibility table (README, "What strict gives
#     the command") run: python3 (venv, pip from a local wheel), cc and make,
#     git, perl, bash, node and go where installed (SKIP: NAME: REASON when
#     not);
#   - a symlink directive cannot make a link in the host's view, nor a mount
#     be made through one.
set -uo pipefail

: "${STAGE:?}" "${FIX:?}"
OSB="$STAGE/bin/osb-isolate"
export OSB_ISOLATE_INIT="$STAGE/bin/osb-isolate-init"
export OSB_ISOLATE_POLICY_DIR="$STAGE/policy"
WHO="$(id -un) (uid $(id -u))"
root_caller() { [ "$(id -u)" -eq 0 ]; }
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $1 [$WHO]"; }
not_ok() {
	fail=$((fail + 1)); echo "not ok - $1 [$WHO]"; shift
	for l in "$@"; do echo "#   $l"; done
}
skip() { echo "SKIP: $1: $2 [$WHO]"; }
expect_eq() { if [ "$2" == "$3" ]; then ok "$1"; else not_ok "$1" "expected: $(printf %q "$2")" "actual:   $(printf %q "$3")"; fi; }

# A fresh workspace per test, as the current directory; a root caller's
# sandbox runs as ids allocated for it, which need it writable by others.
new_ws() {
	WS=$(mktemp -d "$STAGE/work/ws.XXXXXX")
	chmod 755 "$WS"
	if root_caller; then chmod 1777 "$WS"; fi
	cd "$WS" || exit 99
}

# ---- the leak probe ---------------------------------------------------------

# Statuses each item may have under strict (leakprobe.sh says what they mean).
allowed() {
	case "$1" in
	dir:/var) echo "private" ;;
	dir:/var/tmp) echo "private" ;;
	dir:* | marker:* | sys:* | mounts:* | sockets | etc:subuid- | etc:subgid-) echo "absent" ;;
	etc:hostname | etc:hosts | etc:passwd) echo "synthesized" ;;
	etc:machine-id) echo "masked absent synthesized" ;;
	etc:*) echo "masked absent" ;;
	proc:cmdline) echo "masked" ;;
	proc:loadavg) echo "synthesized" ;;
	*) echo "?" ;;
	esac
}

t_leak_probe() { # label [run options]
	local label=$1 out item status rest n=0 bad=()
	shift
	new_ws
	cp "$STAGE/leakprobe.sh" .
	out=$("$OSB" run "$@" -- sh ./leakprobe.sh HOST_HOSTNAME="$(hostname)" HOST_UID="$(id -u)" \
		HOST_HOSTS_SUM="$FIX_HOSTS_SUM" HOST_MACHINE_ID_SUM="$FIX_MACHINE_ID_SUM" \
		HOST_CMDLINE_SUM="$FIX_CMDLINE_SUM" $(for m in $FIX_MARKERS; do echo "MARKER=$m"; done) 2>&1)
	while read -r item status rest; do
		n=$((n + 1))
		case " $(allowed "$item") " in
		*" $status "*) ;;
		*) bad+=("$item $status $rest (allowed: $(allowed "$item"))") ;;
		esac
	done <<<"$out"
	# Every item of issue 16's finding 1, and each planted marker.
	local want=$((30 + $(echo "$FIX_MARKERS" | wc -w)))
	if [ "$n" -ne "$want" ]; then
		not_ok "leak probe ($label): $want items reported" "got $n lines:" "$out"
	elif [ ${#bad[@]} -eq 0 ]; then
		ok "leak probe ($label): all $n items absent, synthesized, masked or private"
	else
		not_ok "leak probe ($label): items the view shows of the host" "${bad[@]}"
	fi
	for item in "etc:hostname synthesized sandbox" "proc:loadavg synthesized 0.00 0.00 0.00 1/1 1" \
		"proc:cmdline masked" "etc:shadow masked /dev/null" "dir:/home absent" "sockets absent"; do
		if grep -qxF "$item" <<<"$out" || { [ "$item" = "etc:shadow masked /dev/null" ] && [ ! -e /etc/shadow ]; }; then
			ok "leak probe ($label): $item"
		else
			not_ok "leak probe ($label): $item" "$out"
		fi
	done
}

# ---- sockets ----------------------------------------------------------------

# A client that says what connect(2) answered: "connected" or the errno name.
CONNECT='import errno,socket,sys
s=socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1]); print("connected")
except OSError as e:
    print(errno.errorcode.get(e.errno, e.errno))'

t_host_socket_unreachable() {
	new_ws
	local before after got
	before=$(wc -l <"$FIX_SOCK_LOG")
	got=$("$OSB" run -- python3 -c "$CONNECT" "$FIX_SOCK")
	expect_eq "strict: a world-writable host socket under /srv is not there" "ENOENT" "$got"
	got=$("$OSB" run -- sh -c 'find / -path /proc -prune -o -type s -print 2>/dev/null')
	expect_eq "strict: find / -type s lists no socket" "" "$got"
	# Control: a policy that binds the directory reaches the socket (the
	# test can tell), lint cannot know it, explain --host lists it.
	printf 'osb-policy 1\ninclude strict\nro-bind %s\n' "$FIX_SOCK_DIR" >"$WS/binds.policy"
	got=$("$OSB" run --policy "$WS/binds.policy" -- python3 -c "$CONNECT" "$FIX_SOCK")
	expect_eq "control: bound read-only, the socket accepts connect(2)" "connected" "$got"
	sleep 0.2
	after=$(wc -l <"$FIX_SOCK_LOG")
	expect_eq "control: the host daemon saw exactly that connection" "$((before + 1))" "$after"
	got=$("$OSB" explain --host --workspace "$WS" "$WS/binds.policy" 2>&1)
	case "$got" in
	*"unix sockets in the view:"*"  $FIX_SOCK"*"warning: connect(2) reaches these"*)
		ok "explain --host lists the bound socket with a warning" ;;
	*) not_ok "explain --host lists the bound socket with a warning" "$got" ;;
	esac
	got=$("$OSB" explain --host --workspace "$WS" strict 2>&1)
	case "$got" in
	*"unix sockets in the view: none"*) ok "explain --host: strict's view holds no socket" ;;
	*) not_ok "explain --host: strict's view holds no socket" "$got" ;;
	esac
	printf 'osb-policy 1\ninclude strict\nroot host-ro\n' >"$WS/hostro.policy"
	got=$("$OSB" run --policy "$WS/hostro.policy" -- python3 -c "$CONNECT" "$FIX_SOCK")
	expect_eq "root host-ro (network none): the host socket is reachable" "connected" "$got"
	got=$("$OSB" lint "$WS/hostro.policy" 2>&1)
	case "$got" in
	*"[W118 host-sockets]"*) ok "lint flags root host-ro with W118" ;;
	*) not_ok "lint flags root host-ro with W118" "$got" ;;
	esac
}

# ---- workspaces below directories the view does not bind -------------------

t_workspace_outside_view() { # [run options]
	local dir top got
	for dir in "$FIX_SRV_WS" "$FIX_HOME_WS"; do
		top=/$(echo "$dir" | cut -d/ -f2)
		cd "$dir" || { not_ok "workspace $dir: enter it"; continue; }
		got=$("$OSB" run "$@" -- sh -c 'echo hi > f && cat "$PWD/f"' 2>&1)
		expect_eq "workspace $dir${1:+ ($*)}: reachable and writable at its own path" "hi" "$got"
		expect_eq "workspace $dir${1:+ ($*)}: the write landed on the host" "hi" "$(cat "$dir/f" 2>/dev/null)"
		# Above it, only the directories that lead to it, made empty.
		got=$("$OSB" run "$@" -- sh -c "ls -A $top" 2>&1)
		expect_eq "workspace $dir${1:+ ($*)}: $top holds only the way to it" "$(basename "$(dirname "$dir")")" "$got"
		rm -f "$dir/f"
	done
}

# ---- compatibility (README, "What strict gives the command") -----------------

t_compat() {
	local got
	new_ws
	got=$("$OSB" run -- sh -c 'printf "%s\n" "#include <stdio.h>" "int main(void){puts(\"built\");return 0;}" > m.c &&
		printf "m: m.c\n\t\$(CC) -o m m.c\n" > Makefile && make -s && ./m' 2>&1)
	if command -v cc >/dev/null && command -v make >/dev/null; then
		expect_eq "compat: cc and make build and run a program" "built" "$got"
	else
		skip "compat cc/make" "cc or make is not installed"
	fi
	if command -v git >/dev/null; then
		got=$("$OSB" run -- sh -c 'git init -q --bare origin.git && git clone -q origin.git w 2>/dev/null && cd w && echo a > a &&
			git add a && git -c user.name=t -c user.email=t@example.org commit -qm one &&
			git push -q origin HEAD 2>/dev/null && git log --format=%s && git -C ../origin.git log --format=%s' 2>&1)
		expect_eq "compat: git clone, commit, push and log in the workspace" "one one" "$(echo $got)"
	else
		skip "compat git" "git is not installed"
	fi
	got=$("$OSB" run -- perl -MPOSIX -MFile::Temp=tempfile -MJSON::PP -e \
		'my ($fh) = tempfile(); print JSON::PP->new->canonical->encode({u => scalar getpwuid($<), h => (POSIX::uname())[1]}), "\n"' 2>&1)
	expect_eq "compat: perl with core modules" '{"h":"sandbox","u":"sandbox"}' "$got"
	got=$("$OSB" run -- bash -c 'a=(1 2 3); f() { echo ${#a[@]}; }; f; diff <(echo x) <(echo x) && echo same
t=$(mktemp); echo tmp > "$t"; cat "$t"; cat <<X
here $((6 * 7))
X' 2>&1)
	expect_eq "compat: bash arrays, process substitution, mktemp, here-documents" "3 same tmp here 42" "$(echo $got)"
	got=$("$OSB" run -- python3 -c 'import os,json,ssl,sqlite3,socket,getpass,multiprocessing as m
print(os.cpu_count() > 0, m.cpu_count() > 0, getpass.getuser(), socket.gethostname(), len(os.getloadavg()))' 2>&1)
	expect_eq "compat: python3 standard library" "True True sandbox sandbox 3" "$got"
	t_compat_venv
	if command -v node >/dev/null; then
		got=$("$OSB" run -- node -e 'const os = require("os"), cp = require("child_process");
console.log(os.cpus().length > 0, os.hostname(), os.userInfo().username, cp.execSync("echo sub").toString().trim())' 2>&1)
		expect_eq "compat: node" "true sandbox sandbox sub" "$got"
	else
		skip "compat node" "node is not installed"
	fi
	if command -v go >/dev/null; then
		got=$("$OSB" run -- sh -c 'mkdir g && cd g && printf "module ex\n\ngo 1.19\n" > go.mod &&
			printf "package main\nimport (\"fmt\";\"os\")\nfunc main(){h,_:=os.Hostname();fmt.Println(\"go\",h)}\n" > m.go &&
			go build -buildvcs=false -o ex . && ./ex' 2>&1)
		expect_eq "compat: go build and run" "go sandbox" "$got"
	else
		skip "compat go" "go is not installed"
	fi
}

# python3 -m venv and pip installing a wheel built in the sandbox, offline.
t_compat_venv() {
	local got
	if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
		skip "compat python3 venv and pip" "ensurepip is not installed (Debian: python3-venv)"
		return
	fi
	if ! python3 -c 'import setuptools, wheel' 2>/dev/null; then
		skip "compat python3 venv and pip" "setuptools or wheel is not installed"
		return
	fi
	got=$("$OSB" run -- sh -c 'mkdir -p pkg/hello && echo "def hi(): return \"hi\"" > pkg/hello/__init__.py &&
		printf "[build-system]\nrequires = [\"setuptools\"]\nbuild-backend = \"setuptools.build_meta\"\n[project]\nname = \"hello\"\nversion = \"1.0\"\n" > pkg/pyproject.toml &&
		python3 -m pip wheel -q --no-index --no-build-isolation --no-deps -w dist ./pkg >/dev/null 2>&1 &&
		python3 -m venv v && v/bin/pip install -q --no-index dist/hello-1.0-py3-none-any.whl >/dev/null 2>&1 &&
		v/bin/python -c "import hello; print(hello.hi())"' 2>&1)
	expect_eq "compat: python3 venv and pip install from a local wheel" "hi" "$got"
}

# ---- symlinks -----------------------------------------------------------------

t_symlink_rules() {
	local got rc
	new_ws
	printf 'osb-policy 1\ninclude strict\nroot host-ro\nsymlink usr/bin /opt/osb-link\n' >"$WS/a.policy"
	got=$("$OSB" run --policy "$WS/a.policy" -- true 2>&1); rc=$?
	expect_eq "a symlink in the host's view is refused (125)" "125" "$rc"
	case "$got" in *"symlink /opt/osb-link lies in the host's view"*) ok "the refusal names the link";;
	*) not_ok "the refusal names the link" "$got";; esac
	printf 'osb-policy 1\ninclude strict\nsymlink srv /data\ntmpfs /data/x\n' >"$WS/b.policy"
	got=$("$OSB" run --policy "$WS/b.policy" -- true 2>&1); rc=$?
	expect_eq "a mount beneath a symlink is refused (125)" "125" "$rc"
	case "$got" in *"/data/x would be mounted through symlink /data"*) ok "the refusal names the mount and the link";;
	*) not_ok "the refusal names the mount and the link" "$got";; esac
	got=$("$OSB" run -- sh -c 'readlink /bin /lib64; ls /lib64/ld-linux-x86-64.so.2 2>/dev/null | wc -l' 2>&1)
	expect_eq "strict: /bin and /lib64 are the merged-/usr links" "usr/bin usr/lib64 1" "$(echo $got)"
	printf 'osb-policy 1\ninclude strict\nroot host-ro\n' >"$WS/c.policy"
	got=$("$OSB" run --policy "$WS/c.policy" -- sh -c 'readlink /bin' 2>&1)
	expect_eq "include strict + root host-ro: the host's own links stand" "usr/bin" "$got"
}

t_leak_probe strict
if root_caller; then
	printf 'osb-policy 1\ninclude strict\nidentity root\n' >"$STAGE/work/rootmode.policy"
	t_leak_probe "root mode" --policy "$STAGE/work/rootmode.policy"
fi
if command -v python3 >/dev/null; then t_host_socket_unreachable; else skip "sockets" "python3 is not installed"; fi
t_workspace_outside_view
if root_caller; then t_workspace_outside_view --policy "$STAGE/work/rootmode.policy"; fi
t_compat
t_symlink_rules

echo "# view ($WHO): $pass passed, $fail failed"
[ "$fail" -eq 0 ]

#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# includes.sh — the #include "..." graph of lib/, helper/ and review/ must
# have no cycle (docs/ARCHITECTURE.md): a header that reaches itself again
# through its includes means two files each need the other, which is one
# job split in two or two jobs tangled in one. Run by `make check`
# (tests/integration/includes.sh) and by the lint gate of tools/check.sh.
#   tools/includes.sh [TREE]   TREE: the source tree (default: this one)
# A quoted include is looked for as the compiler does with the build's -I
# flags: beside the including file, then in lib/, helper/ and review/; one
# found nowhere (a header the build generates) is no edge. Exit 0 when the
# graph has no cycle, 1 naming each cycle found ("cycle: a -> b -> a"),
# 2 on a usage error.
set -uo pipefail
tree=${1:-$(cd "$(dirname "$0")/.." && pwd)}
[ -d "$tree" ] || { echo "includes: $tree: not a directory" >&2; exit 2; }
cd "$tree" || exit 2

mapfile -t files < <(find lib helper review -maxdepth 1 -type f \( -name '*.c' -o -name '*.h' \) 2>/dev/null | sort)
[ "${#files[@]}" -gt 0 ] || { echo "includes: no source file under $tree/{lib,helper,review}" >&2; exit 2; }

# resolve FROM NAME: the file an #include "NAME" in FROM reads, or nothing.
resolve() {
	local dir cand
	dir=$(dirname "$1")
	for cand in "$dir/$2" "lib/$2" "helper/$2" "review/$2"; do
		if [ -f "$cand" ]; then realpath -m --relative-to=. "$cand"; return; fi
	done
}

edges=$(for f in "${files[@]}"; do
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
	while IFS= read -r name; do
		to=$(resolve "$f" "$name")
		[ -n "$to" ] && printf '%s %s\n' "$f" "$to"
	done
done)

# Depth-first search; a back edge to a node on the stack is a cycle, printed
# from that node around to itself. Each cycle is reported once per entry
# node, which is enough to name it.
printf '%s\n' "$edges" | awk '
function add(n) { if (!(n in seen)) { seen[n] = 1; order[++nn] = n } }
NF == 2 { adj[$1] = adj[$1] " " $2; add($1); add($2); ne++ }
function visit(n,    i, j, k, m, list, path) {
	state[n] = 1; stack[++depth] = n
	k = split(adj[n], list, " ")
	for (i = 1; i <= k; i++) {
		m = list[i]
		if (state[m] == 1) {
			path = ""
			for (j = 1; j <= depth; j++) if (stack[j] == m) break
			for (; j <= depth; j++) path = path stack[j] " -> "
			print "cycle: " path m
			found++
		} else if (state[m] == 0) visit(m)
	}
	depth--; state[n] = 2
}
END {
	for (i = 1; i <= nn; i++) if (state[order[i]] == 0) visit(order[i])
	if (found) exit 1
	printf "includes: %d files in the graph, %d includes, no cycle\n", nn, ne
}'

#!/bin/bash
# spdx.sh — the licence header of every source and script file: the lines
#     SPDX-License-Identifier: Apache-2.0
#     Copyright The osb-isolate authors
# as the first comment of the file (after a #! line), in the file's own
# comment syntax. LICENSE holds the licence's text.
#
#   tools/spdx.sh           add the two lines to every file that lacks them
#   tools/spdx.sh --check   change nothing; list the files that lack them and
#                           exit 1 if there is any (the "spdx" gate of
#                           tools/check.sh)
#
# Files: those git tracks (or, outside a git checkout, those find sees),
# chosen by name: C sources and headers, shell, Python and Go programs,
# autotools inputs, version scripts, man pages, the bash completion, and
# any file that starts with #!. Data whose bytes tests compare (policies,
# golden files, fuzzing corpora, JSON) carries no header.
set -euo pipefail
cd "$(dirname "$0")/.."

ID="SPDX-License-Identifier: Apache-2.0"
OWNER="Copyright The osb-isolate authors"
check=0
case "${1:-}" in
--check) check=1 ;;
"") ;;
*) echo "usage: tools/spdx.sh [--check]" >&2; exit 2 ;;
esac

# The comment syntax of FILE: c (/* */), slash (//), hash (#), roff (.\"),
# or nothing for a file that carries no header.
style() {
	case $1 in
	policy/* | tests/golden/* | tests/fuzz/corpus/* | tests/fuzz/regressions/* | debian/*) return ;;
	LICENSE | *.md | *.json | *.xml | *.kv | *.txt | .gitignore | */.gitkeep | *.policy) return ;;
	*.c | *.h | *.sym) echo c ;;
	*.go) echo slash ;;
	*.sh | *.py | *.bash | *.bash.in | *.am | *.ac | *.pc.in | *.supp | .clang-tidy | .ci/run) echo hash ;;
	*.[1-8]) echo roff ;;
	*) if [ "$(head -c 2 "$1" 2>/dev/null)" = '#!' ]; then echo hash; fi ;;
	esac
}

header() { # style
	case $1 in
	c) printf '/* %s */\n/* %s */\n' "$ID" "$OWNER" ;;
	# Go: a blank line, or the lines would join the package's doc comment.
	slash) printf '// %s\n// %s\n\n' "$ID" "$OWNER" ;;
	hash) printf '# %s\n# %s\n' "$ID" "$OWNER" ;;
	roff) printf '.\\" %s\n.\\" %s\n' "$ID" "$OWNER" ;;
	esac
}

files() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then git ls-files
	else find . -type f ! -path './.git/*' | sed 's|^\./||' | sort; fi
}

missing=0
while IFS= read -r f; do
	[ -f "$f" ] || continue
	s=$(style "$f")
	[ -n "$s" ] || continue
	# Present: the identifier within the first five lines (grep -c reads
	# them all: no early exit, no SIGPIPE for head under pipefail).
	if head -n 5 "$f" | grep -cF "$ID" >/dev/null; then continue; fi
	if [ "$check" -eq 1 ]; then
		echo "spdx: $f: no \"$ID\" in its first lines"
		missing=$((missing + 1))
		continue
	fi
	tmp=$(mktemp "$f.spdx.XXXXXX")
	if [ "$(head -c 2 "$f")" = '#!' ]; then
		{ head -n 1 "$f"; header "$s"; tail -n +2 "$f"; } >"$tmp"
	else
		{ header "$s"; cat "$f"; } >"$tmp"
	fi
	chmod --reference="$f" "$tmp"
	mv "$tmp" "$f"
	echo "spdx: added to $f"
done < <(files)

if [ "$check" -eq 1 ]; then
	if [ "$missing" -gt 0 ]; then
		echo "spdx: $missing files lack the licence header (tools/spdx.sh adds it)"
		exit 1
	fi
	echo "spdx: every source and script file carries $ID"
fi

#!/bin/bash
# symbols.sh — the shared library exports only osb_* symbols.
set -euo pipefail
lib=$(ls "$OSB_BUILDDIR"/.libs/libosb-isolate.so.*.*.* 2>/dev/null | head -n1)
[ -n "$lib" ] || { echo "FAIL: libosb-isolate.so not built"; exit 1; }
bad=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -v '^osb_' | grep -v '^OSB_ISOLATE_' || true)
count=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -c '^osb_')
if [ -n "$bad" ]; then
	echo "FAIL: non-osb_ symbols exported:"; echo "$bad"; exit 1
fi
[ "$count" -ge 20 ] || { echo "FAIL: only $count osb_ symbols exported"; exit 1; }
echo "ok: $count osb_* symbols exported, nothing else"

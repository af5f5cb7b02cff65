#!/bin/sh
# tools/layers.sh, which `make lint` runs first: the tree as it is keeps its
# floors; an include that crosses one the wrong way (the tracker reaching
# into the controller) is named with file:line and fails; a second file of
# a name already taken fails; a debt line for an arrow that is gone fails.
set -eu
src=${FLEXSLOT_SRCDIR:?run through make check}
# shellcheck source=tests/lib/verdict.sh
. "$src/tests/lib/verdict.sh"
command -v git >/dev/null || skip "git is not installed (the check reads the tracked files)"
[ -d "$src/.git" ] || [ -f "$src/.git" ] || skip "not a git checkout"

out=$("$src/tools/layers.sh" 2>&1) || fail "the tree crosses its floors: $out"
echo "$out" | tail -n 1 | grep -qx "layers: clean" || fail "no verdict: $out"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$src" ls-files -z | (cd "$src" && xargs -0 cp --parents -t "$tmp" 2>/dev/null) || true
mkdir -p "$tmp/tools"
cp "$src/tools/layers.sh" "$src/tools/layers-debt.txt" "$tmp/tools/"
(cd "$tmp" && git init -q . && git add -A >/dev/null 2>&1)
printf '#include "controller/daemon/cluster.h"\n' >>"$tmp/tracker/tracker-link.c"
printf 'int twin;\n' >"$tmp/agent/split.c"
(cd "$tmp" && git add -A)
status=0
out=$("$tmp/tools/layers.sh" 2>&1) || status=$?
[ "$status" -eq 1 ] || fail "a wrong include passed: $out"
echo "$out" | grep -q "^tracker/tracker-link.c:[0-9]*: includes controller/daemon/cluster.h: tracker may include only proto mapred common$" ||
	fail "the wrong include was not named: $out"
echo "$out" | grep -q "^file name split.c is not unique: agent/split.c mapred/split.c$" ||
	fail "the twin name was not named: $out"
echo "$out" | tail -n 1 | grep -qx "layers: 2 findings" || fail "the count: $out"

echo "controller/agent.c:1: includes nothing/gone.h" >>"$tmp/tools/layers-debt.txt"
cp "$src/tracker/tracker-link.c" "$tmp/tracker/tracker-link.c"
rm "$tmp/agent/split.c"
(cd "$tmp" && git add -A)
out=$("$tmp/tools/layers.sh" 2>&1) && fail "a debt line of nothing passed: $out"
echo "$out" | grep -q "is gone from the tree: remove its line" || fail "stale debt: $out"
echo "PASS"

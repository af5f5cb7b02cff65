#!/bin/sh
# `make demo-live`'s script at a small size: it exits 0 with both wordcount
# outputs verified and a line for each thing it counts, and every process
# it started is gone afterwards. Then stopped with SIGTERM while its
# daemons run: it exits, and again leaves none of them behind. (A script
# started in the background ignores SIGINT, so TERM stands for Ctrl-C here;
# the script's trap is the same for both.)
set -eu
src=${FLEXSLOT_SRCDIR:?run through make check}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flexslot-demo-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/verdict.sh
. "$src/tests/lib/verdict.sh"

# all_gone FILE: none of the PIDs recorded in FILE is alive.
all_gone() {
	[ -s "$1" ] || fail "the demo recorded no PIDs"
	read -r started <"$1"
	for p in $started; do
		! kill -0 "$p" 2>/dev/null || fail "process $p the demo started is still running: $(ps -o args= -p "$p")"
	done
}

status=0
DEMO_SIZE=1 DEMO_PIDS=$tmp/pids sh "$src/demo/live.sh" >"$tmp/out" 2>&1 || status=$?
cat "$tmp/out"
[ "$status" -eq 0 ] || fail "the demo exited with status $status"
[ "$(grep -c "output  *verified against tr | sort | uniq -c" "$tmp/out")" -eq 2 ] ||
	fail "the demo did not verify both outputs"
for what in "completion time" "stragglers found" kills "slot moves" "VM targets applied"; do
	[ "$(grep -c "^  $what  *[0-9]" "$tmp/out")" -eq 2 ] || fail "the demo did not print '$what' twice"
done
[ "$(wc -w <"$tmp/pids")" -ge 5 ] || fail "the demo recorded too few PIDs: $(cat "$tmp/pids")"
all_gone "$tmp/pids"

# ---- stopped while its daemons run ----
DEMO_SIZE=1 DEMO_PIDS=$tmp/pids2 sh "$src/demo/live.sh" >"$tmp/out2" 2>&1 &
demo_pid=$!
i=0
until grep -q "^== run stock" "$tmp/out2"; do
	i=$((i + 1))
	[ $i -lt 300 ] || { kill "$demo_pid"; fail "the demo did not start its first run: $(cat "$tmp/out2")"; }
	sleep 0.1
done
kill -TERM "$demo_pid"
status=0
wait "$demo_pid" || status=$?
[ "$status" -ne 0 ] || fail "the demo stopped with SIGTERM exited 0"
all_gone "$tmp/pids2"
echo "PASS"

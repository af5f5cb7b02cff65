#!/bin/sh
# When the store cannot commit the records a group of heartbeats wrote, the
# controller answers each held heartbeat with an error and stops with a
# failure status, rather than answer as if the records were kept: its model
# took in what the store lost, and a restart reads the model again from
# the store. The store lives on a small tmpfs that a filler file fills once
# the jobs are in; 200 tracker connections then finish and start attempts
# (flexslot-bench-heartbeat --task-beats 1) until a commit finds no room.
# With the room given back, the controller starts again on the same store,
# which SQLite finds intact, and a second load's every assignment is in the
# store when its reply comes.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
load=$build/bench/flexslot-bench-heartbeat
trackers=200

[ "$(id -u)" = 0 ] || skip "mounting a tmpfs for the store needs root"
# Beside $tmp, not in it: cleanup stops the processes that hold the store
# open, then the tmpfs goes.
fs=$(mktemp -d "${TMPDIR:-/tmp}/flexslot-store-fs.XXXXXX")
trap 'cleanup; umount -l "$fs" 2>/dev/null; rmdir "$fs"' EXIT
mount -t tmpfs -o size=16m flexslot-test "$fs" 2>"$tmp/mount.err" ||
	skip "cannot mount a tmpfs: $(cat "$tmp/mount.err")"

write_config
mkdir -p "$tmp/data/many"
for i in $(seq 1 400); do
	: >"$tmp/data/many/$i"
done
sed -i "s|^store = .*|store = $fs/store.db|
	s|^heartbeat-interval = .*|heartbeat-interval = 10s|
	s|^lost-timeout = .*|lost-timeout = 10min\nmax-trackers = $trackers|" "$tmp/controller.ini"
start_bus
start_controller
for j in 1 2 3; do
	# shellcheck disable=SC2046 # one argument per input
	"$build/bin/flexslotctl" --address "$address" submit --app wordcount --reduces 1 \
		--user load --name "job$j" $(seq -f "many/%g" 1 400) >/dev/null ||
		fail "cannot submit job $j"
done

# No room left: dd stops at the first write that finds none.
dd if=/dev/zero of="$fs/filler" bs=64k 2>/dev/null || true
if "$load" --address "unix:path=$tmp/trackers" --token-file "$tmp/token" \
	--trackers "$trackers" --seconds 30 --warmup 0 --task-beats 1 \
	>"$tmp/load.out" 2>"$tmp/load.err"; then
	fail "the load ran 30 s on a full store: $(cat "$tmp/load.out")"
fi
poll sh -c "! kill -0 $controller_pid" || fail "the controller still runs on a full store"
status=0
wait "$controller_pid" || status=$?
[ "$status" -ne 0 ] || fail "the controller exited 0 after losing records"
[ "$status" -lt 128 ] || fail "the controller died of signal $((status - 128))"
grep -E "Cannot commit (the records of [0-9]+ heartbeats|a heartbeat's records), stopping: " \
	"$tmp/controller.log" ||
	fail "the controller did not say why it stopped: $(tail -n 5 "$tmp/controller.log")"
echo "the load saw: $(grep -m1 -E 'IOError|closed' "$tmp/load.err" || tail -n 1 "$tmp/load.err")"
grep -q "IOError: The controller could not store what this heartbeat reported" \
	"$tmp/load.err" || fail "no held heartbeat was answered with the error: $(cat "$tmp/load.err")"

rm -f "$fs/filler"
[ "$(python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("PRAGMA integrity_check").fetchone()[0])' \
	"$fs/store.db")" = ok ] ||
	fail "the store is damaged after the failed commit"
start_controller
line=$("$load" --address "unix:path=$tmp/trackers" --token-file "$tmp/token" \
	--trackers "$trackers" --seconds 1 --warmup 0.2 --task-beats 1 --store "$fs/store.db") ||
	fail "the load failed after the restart: $(tail -n 5 "$tmp/controller.log")"
echo "$line"
field() { echo "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
[ "$(field finished)" -gt 0 ] || fail "no attempt finished after the restart: $line"
[ "$(field unrecorded)" = 0 ] ||
	fail "$(field unrecorded) attempts were assigned before their records were committed"
echo "PASS"

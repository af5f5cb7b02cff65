#!/bin/sh
# The tracker endpoint against peers that are not trackers, or not the
# only one: a connection that does not register within [trackers]
# register-timeout is closed; only registered trackers count against
# max-trackers, and one more is refused by name (TooManyTrackers).
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
chaos=$build/bench/flexslot-chaos-client
endpoint=unix:path=$tmp/trackers

start_bus
write_config
sed -i 's/^\[trackers\]$/[trackers]\nregister-timeout = 2s\nmax-trackers = 2/' "$tmp/controller.ini"
start_controller

# Three idle connections, more than max-trackers, take no tracker's place;
# the controller closes them once register-timeout has passed.
"$chaos" idle --address "$endpoint" --count 3 --timeout 15 >"$tmp/idle.log" 2>&1 &
idle_pid=$!
pids="$pids $idle_pid"
poll grep -q "^connected 3$" "$tmp/idle.log" || fail "idle connections: $(cat "$tmp/idle.log")"
run_tracker "$tmp/t1.log" --token-file "$tmp/token" --hostname t1 --beats 2 ||
	fail "a tracker behind 3 idle connections: $(cat "$tmp/t1.log")"
wait "$idle_pid" || fail "the idle connections stayed open: $(cat "$tmp/idle.log")"
echo "idle: $(tail -n 1 "$tmp/idle.log")"
grep -q "did not register within 2s" "$tmp/controller.log" ||
	fail "no word of the closed connections: $(cat "$tmp/controller.log")"

# Two registered trackers are max-trackers; a third is refused by name, and
# registers once one of the two has gone.
for t in 2 3; do
	"$tracker" --address "$endpoint" --token-file "$tmp/token" --hostname "t$t" \
		--vm-uuid "00000000-0000-0000-0000-00000000000$t" --beats 100000 >"$tmp/t$t.log" 2>&1 &
	eval "t${t}_pid=\$!"
	pids="$pids $!"
done
poll grep -q "^registered" "$tmp/t2.log" || fail "t2: $(cat "$tmp/t2.log")"
poll grep -q "^registered" "$tmp/t3.log" || fail "t3: $(cat "$tmp/t3.log")"
if run_tracker "$tmp/t4.log" --token-file "$tmp/token" --hostname t4 \
	--vm-uuid 00000000-0000-0000-0000-000000000004 --beats 1; then
	fail "a third tracker registered beside max-trackers = 2: $(cat "$tmp/t4.log")"
fi
grep -q "^error org.flexslot.Tracker1.Error.TooManyTrackers: 2 trackers are registered" \
	"$tmp/t4.log" || fail "the third tracker's refusal: $(cat "$tmp/t4.log")"
# shellcheck disable=SC2154 # set by the eval above
kill "$t2_pid"
poll_register() {
	run_tracker "$tmp/t4.log" --token-file "$tmp/token" --hostname t4 \
		--vm-uuid 00000000-0000-0000-0000-000000000004 --beats 1
}
poll poll_register || fail "no room after a tracker left: $(cat "$tmp/t4.log")"
echo "PASS"

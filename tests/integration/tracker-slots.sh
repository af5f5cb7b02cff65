#!/bin/sh
# Slots changed at run time on a real flexslot-tracker, through flexslotctl
# set-slots, mid-job: raised from 1 to 3 map slots, the tracker runs 3 maps
# at once; lowered to 1, no running map is killed and no new one starts
# until the running ones are down to none. The maps are streaming commands
# that wait for the test to release them one by one (a file each), so
# what runs at once is the test's to see, not a matter of timing; each map
# writes "start NAME" and, after it has copied its input, "end NAME" to an
# event log. The job's output is checked against its input.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/tracker-test.sh"
gates=$tmp/gates

write_fast_config 2s
mkdir -p "$data/maps"
task_dir "$gates"
for i in 1 2 3 4 5 6; do
	awk -v i="$i" 'BEGIN { for (k = 0; k < 50; k++) printf "k%d-%03d\tv%d\n", i, k, k }' \
		>"$data/maps/m$i"
done
cat "$data"/maps/* | sort >"$tmp/expected"
start_bus
start_controller
start_real_tracker 64M

# A map: logs its start, waits for its gate, copies its split.
mapper="f=\$(basename \"\$map_input_file\"); echo \"start \$f\" >>$gates/events; \
while [ ! -e $gates/go.\$f ]; do sleep 0.02; done; cat; echo \"end \$f\" >>$gates/events"
job=$(flexslotctl submit --mapper "$mapper" --reduces 1 --name gated \
	maps/m1 maps/m2 maps/m3 maps/m4 maps/m5 maps/m6)

started() {
	grep -c '^start ' "$gates/events" 2>/dev/null || true
}
started_is() {
	[ "$(started)" -eq "$1" ]
}
# node FIELD: of flexslotctl nodes (5 map slots, 7 running maps).
node() {
	flexslotctl nodes --no-legend | cut -f "$1"
}
node_is() {
	[ "$(node "$1")" = "$2" ]
}
maps_done_are() {
	flexslotctl show "$job" | grep -q "^maps_done	$1\$"
}
# release: opens the gate of the oldest running map and waits for its end
# and for the controller to have heard of it.
release() {
	name=$(awk '$1 == "start" { s[$2] = 1; o[++n] = $2 } $1 == "end" { delete s[$2] }
		END { for (i = 1; i <= n; i++) if (o[i] in s) { print o[i]; exit } }' "$gates/events")
	[ -n "$name" ] || fail "no map is running to release: $(cat "$gates/events")"
	: >"$gates/go.$name"
	poll grep -q "^end $name\$" "$gates/events" || fail "map $name did not end"
	poll maps_done_are "$(grep -c '^end ' "$gates/events")" ||
		fail "the controller did not hear of $name's end: $(flexslotctl show "$job")"
}
# most_at_once FROM: the most maps running at once among the events after
# line FROM.
most_at_once() {
	tail -n +"$(($1 + 1))" "$gates/events" | awk -v n="$2" 'BEGIN { most = n }
		$1 == "start" { n++ } $1 == "end" { n-- } n > most { most = n } END { print most + 0 }'
}

# ---- one map slot: one map at a time ----
poll started_is 1 || fail "no map started: $(cat "$tmp/tracker.log")"
poll node_is 7 1 || fail "nodes: $(flexslotctl nodes)"

# ---- raised to 3: three at once ----
flexslotctl set-slots 1 3 1
poll grep -q "Slots now 3 map, 1 reduce" "$tmp/tracker.log" || fail "the tracker kept its slots"
poll started_is 3 || fail "the tracker did not take 3 maps: $(cat "$gates/events")"
poll node_is 7 3 || fail "nodes: $(flexslotctl nodes)"
node_is 5 3 || fail "nodes' map slots: $(flexslotctl nodes)"

# ---- lowered to 1: the three keep running, none joins them ----
flexslotctl set-slots 1 1 1
poll grep -q "Slots now 1 map, 1 reduce" "$tmp/tracker.log" || fail "the tracker kept its slots"
node_is 5 1 || fail "nodes' map slots: $(flexslotctl nodes)"
mark=$(wc -l <"$gates/events")
release
release
release
# With none running, the slot takes the next map; each alone until its end.
for i in 4 5 6; do
	poll started_is "$i" || fail "map $i did not start: $(cat "$gates/events")"
	release
done
# After the first end, 2 and then 1 were running: a new map before all three
# ended would have made it 3 again, or more.
[ "$(tail -n +"$((mark + 1))" "$gates/events" | head -n 3 | grep -c '^end ')" -eq 3 ] ||
	fail "a map started before the three running ones ended: $(cat "$gates/events")"
[ "$(most_at_once "$((mark + 3))" 0)" -eq 1 ] || fail "maps 4 to 6 did not run alone: $(cat "$gates/events")"
started_is 6 || fail "a map ran twice: $(cat "$gates/events")"

poll sh -c "'$ctl' --address '$address' show $job | grep -q '^state	succeeded\$'" ||
	fail "job $job did not succeed: $(flexslotctl show "$job")"
! grep -q "Killing attempt" "$tmp/tracker.log" || fail "the tracker killed an attempt: $(cat "$tmp/tracker.log")"
sort "$data/out/$job"/part-* | cmp -s - "$tmp/expected" || fail "the job's output is not its input"

kill -TERM "$tracker_pid"
status=0
wait "$tracker_pid" || status=$?
[ "$status" -eq 0 ] || fail "the tracker exited with status $status"
echo PASS

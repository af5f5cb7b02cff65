#!/bin/sh
# DynamicMR's slot borrowing on a real tracker: flexslot-controllerd under
# [policy] dhsa = pi and one flexslot-tracker of 1 map slot and 3 reduce
# slots. A streaming job of 5 maps whose every attempt waits at a gate: 4
# maps wait at once, 3 of them in lent reduce slots, which the tracker
# names. The gate opens, the job completes and its output is its input
# (computed here with sort). Slot weights above 1, which a tracker cannot
# honour, and a reduce_slowstart below 1, which a reduce that reads its map
# outputs when it starts cannot, keep the controller from starting, with
# the keys named.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/tracker-test.sh"
gates=$tmp/gates

write_fast_config
cp "$tmp/controller.ini" "$tmp/weighted.ini"
cat >>"$tmp/controller.ini" <<CONF
[policy]
dhsa = pi
CONF
cp "$tmp/controller.ini" "$tmp/slowstart.ini"
cat >>"$tmp/weighted.ini" <<CONF
[policy]
dhsa = pi
reduce_slot_weight = 2
CONF
printf '[policy]\nreduce_slowstart = 0.05\n' >>"$tmp/slowstart.ini"
mkdir -p "$data/maps"
task_dir "$gates"
for i in 0 1 2 3 4; do
	awk -v i="$i" 'BEGIN { for (k = 0; k < 40; k++) printf "k%d-%03d\tv%d\n", i, k, k }' \
		>"$data/maps/m$i"
done
cat "$data"/maps/* | sort >"$tmp/expected"
start_bus

# Weights first: the controller refuses them and exits.
if "$controllerd" --config "$tmp/weighted.ini" --address "$address" >"$tmp/weighted.log" 2>&1; then
	fail "the controller started with a reduce slot weight of 2"
fi
grep -q "map_slot_weight and reduce_slot_weight must be 1 in the controller (are 1 and 2)" \
	"$tmp/weighted.log" || fail "no reason for the refusal: $(cat "$tmp/weighted.log")"
if "$controllerd" --config "$tmp/slowstart.ini" --address "$address" >"$tmp/slowstart.log" 2>&1; then
	fail "the controller started with a reduce_slowstart of 0.05"
fi
grep -q "reduce_slowstart must be 1 in the controller (is 0.05)" "$tmp/slowstart.log" ||
	fail "no reason for the refusal: $(cat "$tmp/slowstart.log")"

start_controller
real_tracker_config 1 64M "$tmp/work" | sed 's/^reduce-slots = .*/reduce-slots = 3/' >"$tmp/tracker.ini"
"$build/bin/flexslot-tracker" --config "$tmp/tracker.ini" >"$tmp/tracker.log" 2>&1 &
tracker_pid=$!
pids="$pids $tracker_pid"
poll grep -q "Registered with" "$tmp/tracker.log" ||
	fail "the tracker did not register: $(cat "$tmp/tracker.log")"

# Each map's attempt marks that it runs, then waits for the gate.
mapper="touch $gates/\$(basename \"\$map_input_file\"); \
while [ ! -e $gates/open ]; do sleep 0.05; done; cat"
job=$(flexslotctl submit --mapper "$mapper" --reduces 1 --name dhsa \
	maps/m0 maps/m1 maps/m2 maps/m3 maps/m4)
four_waiting() {
	[ "$(find "$gates" -name 'm*' | wc -l)" -ge 4 ]
}
poll four_waiting || fail "4 maps did not run at once: $(ls "$gates"; cat "$tmp/tracker.log")"
[ "$(grep -c "holds a lent reduce slot" "$tmp/tracker.log")" -eq 3 ] ||
	fail "not 3 maps in lent reduce slots: $(cat "$tmp/tracker.log")"
flexslotctl nodes --no-legend | grep -q "	1	3	1	3	" ||
	fail "the node does not show 1 map and 3 reduce slots held: $(flexslotctl nodes)"
touch "$gates/open"

job_succeeded() {
	flexslotctl show "$job" | grep -q "^state	succeeded\$"
}
poll job_succeeded || fail "the job did not succeed: $(flexslotctl show "$job")"
sort "$data/out/$job/part-00000" | cmp -s - "$tmp/expected" || fail "the job's output is not its input"
echo "PASS"

#!/bin/sh
# The random-message client (tests/chaos/chaos-client.c) against a live
# controller for CHAOS_SECONDS (5 by default; `make chaos` runs 30): raw
# garbage at the tracker endpoint, random and mutated Tracker1 calls on
# registered connections, random and mutated Controller1 calls on the bus.
# Every call must be answered (a refusal is an answer); then the controller
# must still be running, serve the bus and run a job to its end. The seed
# is printed: CHAOS_SEED=N runs the same messages again.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
# shellcheck source=tests/fixtures/controller/ctl.sh
. "$src/tests/fixtures/controller/ctl.sh"
chaos=$build/bench/flexslot-chaos-client
seconds=${CHAOS_SECONDS:-5}
seed=${CHAOS_SEED:-$(date +%s)}

start_bus
write_config
start_controller
"$chaos" random --address "unix:path=$tmp/trackers" --bus "$address" --token-file "$tmp/token" \
	--seconds "$seconds" --seed "$seed" >"$tmp/chaos.log" 2>&1 ||
	fail "the controller did not answer every call: $(tail -n 5 "$tmp/chaos.log")"
cat "$tmp/chaos.log"
kill -0 "$controller_pid" 2>/dev/null || fail "the controller died: $(tail -n 20 "$tmp/controller.log")"

job=$(flexslotctl submit --app wordcount --reduces 1 --name after-chaos in/a)
run_tracker "$tmp/t1.log" --token-file "$tmp/token" --hostname real --beats 40 ||
	fail "a tracker after the chaos: $(cat "$tmp/t1.log")"
[ "$(job_state "$job")" = '"succeeded"' ] || fail "job $job after the chaos: $(job_state "$job")"
echo "controller: alive, job $job succeeded, $(wc -l <"$tmp/controller.log") log lines"
echo "PASS"

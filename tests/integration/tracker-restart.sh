#!/bin/sh
# A map that succeeds while the controller is down is not run again: two
# maps run on a real tracker when the controller is killed with SIGKILL;
# map 0 then finishes (its gate opened), map 1 still waits. The controller
# restarts on its store, the tracker registers again and reports map 0,
# whose output the controller adopts. Each mapper run leaves a line, so
# map 0's single run is counted; the job's output is its input (computed
# here with sort).
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/tracker-test.sh"
gates=$tmp/gates

write_fast_config
mkdir -p "$data/maps"
task_dir "$gates"
for i in 0 1; do
	awk -v i="$i" 'BEGIN { for (k = 0; k < 30; k++) printf "k%d-%03d\tv%d\n", i, k, k }' \
		>"$data/maps/m$i"
done
cat "$data"/maps/* | sort >"$tmp/expected"
start_bus
start_controller
real_tracker_config 1 64M "$tmp/work" | sed 's/^map-slots = .*/map-slots = 2/' >"$tmp/tracker.ini"
"$build/bin/flexslot-tracker" --config "$tmp/tracker.ini" >"$tmp/tracker.log" 2>&1 &
pids="$pids $!"
poll grep -q "Registered with" "$tmp/tracker.log" ||
	fail "the tracker did not register: $(cat "$tmp/tracker.log")"

# A map's run: a line in runs-mN, then the wait for its gate, then a copy.
mapper="m=\$(basename \"\$map_input_file\"); echo run >>$gates/runs-\$m; \
while [ ! -e $gates/go-\$m ]; do sleep 0.05; done; cat"
job=$(flexslotctl submit --mapper "$mapper" --reduces 1 --name restart maps/m0 maps/m1)
both_run() {
	[ -e "$gates/runs-m0" ] && [ -e "$gates/runs-m1" ]
}
poll both_run || fail "the maps did not start: $(cat "$tmp/tracker.log")"

kill -KILL "$controller_pid"
wait "$controller_pid" 2>/dev/null || true
touch "$gates/go-m0"
map0_done() {
	grep -q "map 0 of job $job" "$tmp/tracker.log" &&
		attempt=$(sed -n "s/.*Attempt \([0-9]*\): map 0 of job $job .*/\1/p" "$tmp/tracker.log") &&
		grep -q "Attempt $attempt succeeded" "$tmp/tracker.log"
}
poll map0_done || fail "map 0 did not finish while the controller was down: $(cat "$tmp/tracker.log")"

start_controller
poll grep -q "Adopting attempt [0-9]* on tracker [0-9]*, which succeeded while the controller was away: out/$job/_map-00000\." \
	"$tmp/controller.log" || fail "map 0 was not adopted: $(cat "$tmp/controller.log")"
touch "$gates/go-m1"
job_succeeded() {
	flexslotctl show "$job" | grep -q "^state	succeeded\$"
}
poll job_succeeded || poll job_succeeded || fail "the job did not succeed: $(flexslotctl show "$job")"
[ "$(wc -l <"$gates/runs-m0")" -eq 1 ] || fail "map 0 ran $(wc -l <"$gates/runs-m0") times"
sort "$data/out/$job/part-00000" | cmp -s - "$tmp/expected" || fail "the job's output is not its input"
echo "PASS"

#!/bin/sh
# A controller restart runs no map twice: three real trackers run a job of
# nine maps, one map slot each; the controller is killed with SIGKILL three
# times with maps in flight. In the first outage every running map finishes
# (their trackers report them to the next controller, not the one that
# assigned them), in the second and third only some do and the others run
# on across the restart. Each mapper run appends a line to a counter file of
# its split: every split must have run exactly once, and the job's output
# must be its input (computed here with sort). The store must hold one
# attempt per map, and none lost or discarded.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/tracker-test.sh"
gates=$tmp/gates
maps=9

# A lost-timeout well above the trackers' reconnect-max: the controller
# waits that long for the trackers of its predecessor's attempts.
write_fast_config 3s
mkdir -p "$data/maps"
task_dir "$gates"
i=0
while [ $i -lt $maps ]; do
	awk -v i="$i" 'BEGIN { for (k = 0; k < 20; k++) printf "k%d-%03d\tv%d\n", i, k, k }' \
		>"$data/maps/m$i"
	i=$((i + 1))
done
cat "$data"/maps/* | sort >"$tmp/expected"
start_bus
start_controller
for n in 1 2 3; do
	real_tracker_config "$n" 64M "$tmp/work$n" >"$tmp/tracker$n.ini"
	"$build/bin/flexslot-tracker" --config "$tmp/tracker$n.ini" >"$tmp/tracker$n.log" 2>&1 &
	pids="$pids $!"
done
for n in 1 2 3; do
	poll grep -q "Registered with" "$tmp/tracker$n.log" ||
		fail "tracker vm$n did not register: $(cat "$tmp/tracker$n.log")"
done

# A map's run: a line in runs-mN, then the wait for its gate, then a copy.
mapper="m=\$(basename \"\$map_input_file\"); echo run >>$gates/runs-\$m; \
while [ ! -e $gates/go-\$m ]; do sleep 0.05; done; cat"
inputs=$(i=0; while [ $i -lt $maps ]; do printf 'maps/m%d ' $i; i=$((i + 1)); done)
# shellcheck disable=SC2086 # the inputs are words
job=$(flexslotctl submit --mapper "$mapper" --reduces 1 --name restart $inputs)

# The maps that run now: started, their gate still shut.
running() {
	for f in "$gates"/runs-m*; do
		[ -e "$f" ] || continue
		m=${f##*/runs-}
		[ -e "$gates/go-$m" ] || echo "$m"
	done
}
running_count_is() {
	[ "$(running | wc -l)" -eq "$1" ]
}
succeeded() {
	cat "$tmp"/tracker?.log | grep -c "Attempt [0-9]* succeeded" || true
}
succeeded_at_least() {
	[ "$(succeeded)" -ge "$1" ]
}

# restart_with OPEN: with three maps in flight, kill the controller, let
# OPEN of them finish while it is down, and start it again.
restart_with() {
	poll running_count_is 3 || fail "three maps do not run: $(running | tr '\n' ' ')"
	kill -KILL "$controller_pid"
	wait "$controller_pid" 2>/dev/null || true
	before=$(succeeded)
	for m in $(running | head -n "$1"); do
		touch "$gates/go-$m"
	done
	poll succeeded_at_least $((before + $1)) ||
		fail "the maps did not finish while the controller was down"
	start_controller
}

restart_with 3
restart_with 2
restart_with 1

# Every gate open: the rest runs to the end.
i=0
while [ $i -lt $maps ]; do
	touch "$gates/go-m$i"
	i=$((i + 1))
done
job_succeeded() {
	flexslotctl show "$job" | grep -q "^state	succeeded\$"
}
poll job_succeeded || poll job_succeeded || fail "the job did not succeed: $(flexslotctl show "$job")"
i=0
while [ $i -lt $maps ]; do
	[ -e "$gates/runs-m$i" ] || fail "map $i never ran"
	runs=$(wc -l <"$gates/runs-m$i")
	[ "$runs" -eq 1 ] || fail "map $i ran $runs times: $(grep -h "Adopting\|Holding\|lost" "$tmp/controller.log")"
	i=$((i + 1))
done
sort "$data/out/$job/part-00000" | cmp -s - "$tmp/expected" || fail "the job's output is not its input"
grep -q "Adopting attempt [0-9]* on tracker [0-9]*, which runs" "$tmp/controller.log" ||
	fail "no running attempt was adopted across a restart"
echo "PASS"

#!/bin/sh
# Speculation end to end: flexslot-controllerd under [policy] speculation
# hadoop and three real flexslot-tracker daemons. Map 0 (the largest
# input) is a streaming command whose first attempt waits at a gate that is
# never opened, and that attempt's flexslot-task process group is then
# stopped with SIGSTOP, found by PID from the tracker that runs it: a
# straggler that never ends. The job completes only because a backup on
# another tracker runs the map (a later attempt passes the gate) and wins;
# the stopped attempt is killed by its tracker on the controller's word,
# with the reason. The output equals the input sorted (computed here with
# sort), and the job's directory holds the committed part alone: the map
# outputs, the winners' and the stopped attempt's, are removed at the
# job's end.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/ctl.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/tracker.sh"
trackerd=$build/bin/flexslot-tracker
data=$tmp/data
gates=$tmp/gates
export LC_ALL=C

write_fast_config 5s
cat >>"$tmp/controller.ini" <<CONF
[policy]
speculation = hadoop
spec_min_runtime = 1s
CONF
mkdir -p "$data/maps"
task_dir "$gates"
# m0 is larger than a pipe's buffer, so that its stopped attempt's
# progress stays low.
awk 'BEGIN { for (k = 0; k < 60000; k++) printf "k0-%06d\tv%d\n", k, k }' >"$data/maps/m0"
for i in 1 2 3; do
	awk -v i="$i" 'BEGIN { for (k = 0; k < 50; k++) printf "k%d-%03d\tv%d\n", i, k, k }' \
		>"$data/maps/m$i"
done
cat "$data"/maps/* | sort >"$tmp/expected"
start_bus
start_controller

start_tracker() {
	real_tracker_config "$1" 64M "$tmp/work-$1" >"$tmp/tracker-$1.ini"
	"$trackerd" --config "$tmp/tracker-$1.ini" >"$tmp/tracker-$1.log" 2>&1 &
	echo $! >"$tmp/tracker-$1.pid"
	pids="$pids $!"
}
for i in 1 2 3; do
	start_tracker "$i"
done
nodes_alive() {
	[ "$(flexslotctl nodes --no-legend | grep -c alive)" -eq 3 ]
}
poll nodes_alive || fail "the trackers did not register: $(flexslotctl nodes)"

# The first attempt of m0 writes its shell's PID and waits; any other
# attempt, and every other map, copies its input.
mapper="if [ \"\$(basename \"\$map_input_file\")\" = m0 ] && mkdir $gates/m0 2>/dev/null; then \
echo \$\$ >$gates/m0/pid.tmp; mv $gates/m0/pid.tmp $gates/m0/pid; \
while :; do sleep 0.05; done; fi; cat"
job=$(flexslotctl submit --mapper "$mapper" --reduces 1 --name spec \
	maps/m0 maps/m1 maps/m2 maps/m3)
poll test -s "$gates/m0/pid" || poll test -s "$gates/m0/pid" ||
	fail "map 0 did not start: $(flexslotctl show "$job")"
mapper_pid=$(cat "$gates/m0/pid")

# The tracker of the gated attempt and its flexslot-task child: up the
# process tree from the mapper's shell to a tracker's PID.
stopped_on="" task_pid="" p=$mapper_pid
while [ -z "$stopped_on" ]; do
	parent=$(awk '/^PPid:/ { print $2 }' "/proc/$p/status") || fail "process $p went away"
	[ "$parent" -gt 1 ] || fail "the mapper $mapper_pid runs under no tracker"
	for i in 1 2 3; do
		[ "$parent" -ne "$(cat "$tmp/tracker-$i.pid")" ] || stopped_on=$i
	done
	task_pid=$p
	p=$parent
done
grep -q "map 0 of job $job (streaming), process $task_pid\$" "$tmp/tracker-$stopped_on.log" ||
	fail "tracker $stopped_on did not start process $task_pid for map 0: $(cat "$tmp/tracker-$stopped_on.log")"
stopped_attempt=$(sed -n "s/.*Attempt \([0-9]*\): map 0 of job $job (streaming), process $task_pid\$/\1/p" \
	"$tmp/tracker-$stopped_on.log")
# The task is its process group's leader: the group is the whole attempt.
/bin/kill -s STOP -- "-$task_pid"

job_ended() {
	case $(flexslotctl show "$job" | sed -n 's/^state\t//p') in running | queued) return 1 ;; esac
}
i=0
until job_ended; do
	i=$((i + 1))
	[ $i -lt 600 ] || fail "the job did not end: $(flexslotctl show "$job")"
	sleep 0.1
done
flexslotctl show "$job" | grep -q "^state	succeeded\$" || fail "the job failed: $(flexslotctl show "$job")"

# A backup of map 0 ran on another tracker and won.
backup_on=""
for i in 1 2 3; do
	[ "$i" -ne "$stopped_on" ] || continue
	! grep -q "map 0 of job $job (streaming)" "$tmp/tracker-$i.log" || backup_on=$i
done
[ -n "$backup_on" ] || fail "no other tracker ran map 0"

# The stopped attempt was killed on the controller's word, with the reason,
# and its processes are gone.
killed() {
	grep -q "Killing attempt $stopped_attempt on the controller's word: speculation: another attempt succeeded" \
		"$tmp/tracker-$stopped_on.log"
}
poll killed || fail "tracker $stopped_on did not kill attempt $stopped_attempt: $(cat "$tmp/tracker-$stopped_on.log")"
gone() {
	[ ! -e "/proc/$task_pid" ] && [ ! -e "/proc/$mapper_pid" ]
}
poll gone || fail "the stopped attempt's processes $task_pid, $mapper_pid are still there"

# The output, and the committed part alone.
sort "$data/out/$job/part-00000" | cmp -s - "$tmp/expected" || fail "the job's output is not its input"
ls -A "$data/out/$job" >"$tmp/files"
[ "$(cat "$tmp/files")" = "part-00000" ] || fail "other files in the job's output: $(cat "$tmp/files")"
echo "PASS"

#!/bin/sh
# A task that dies of its memory limit, end to end on a real
# flexslot-tracker: a streaming map that allocates far beyond its 32M slot
# fails with the reason "memory limit exceeded", the controller logs it
# and tries the task again, and after CLUSTER_MAX_FAILURES (4, Hadoop's
# mapred.map.max.attempts) failed attempts the job fails, flexslotctl show
# naming the task and the last reason. The same mapper within a 512M slot
# succeeds. A controller killed and started again keeps the count.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/tracker-test.sh"

write_fast_config 2s
printf 'k1\tv1\nk2\tv2\n' >"$data/in/a"
start_bus
start_controller
start_real_tracker 32M
job_ended() {
	! flexslotctl show "$1" | grep -Eq '^state	(running|queued)$'
}

# About 150M of awk's strings, then the input copied.
mapper="awk 'BEGIN { for (i = 0; i < 1000000; i++) a[i] = sprintf(\"%090d\", i) } { print }'"
job=$(flexslotctl submit --mapper "$mapper" --reduces 1 --name hog in/a)
poll job_ended "$job" || poll job_ended "$job" || fail "job $job did not end: $(flexslotctl show "$job")"
if grep -q "No memory cgroup for the task" "$tmp/tracker.log"; then
	# Under RLIMIT_AS flexslot-task judges a streaming command's failure
	# by its peak memory (tracker/streaming.c; tracker-tasks.sh tests it),
	# and the messages below are a cgroup's.
	echo "SKIP: no writable memory cgroup for the tracker's tasks"
	exit 77
fi
flexslotctl show "$job" >"$tmp/show"
grep -q "^state	failed$" "$tmp/show" || fail "job $job did not fail: $(cat "$tmp/show")"
# Then the task's last words: the streaming command killed by the kernel.
grep -q "^message	map task 0 failed 4 times; the last: failed: memory limit exceeded (cgroup: [0-9]* OOM kills\{0,1\}): .*Killed" \
	"$tmp/show" || fail "job $job's message: $(cat "$tmp/show")"
[ "$(grep -c "Attempt [0-9]*: map 0 of job $job " "$tmp/tracker.log")" -eq 4 ] ||
	fail "not 4 attempts of the map: $(cat "$tmp/tracker.log")"
for k in 1 2 3 4; do
	grep -q "Attempt [0-9]* of job $job (map 0, failure $k of 4) on vm1: failed: memory limit exceeded " \
		"$tmp/controller.log" || fail "the controller did not log failure $k: $(cat "$tmp/controller.log")"
done
[ "$(grep -c "of job $job (map 0, failure [0-9]* of 4)" "$tmp/controller.log")" -eq 4 ] || fail "more than 4 failures logged"

# ---- the count survives the controller: killed after 2 failures ----
job=$(flexslotctl submit --mapper "$mapper" --reduces 1 --name hog in/a)
poll grep -q "of job $job (map 0, failure 2 of 4)" "$tmp/controller.log" ||
	fail "job $job's map did not fail twice: $(cat "$tmp/controller.log")"
kill -KILL "$controller_pid"
wait "$controller_pid" 2>/dev/null || true
lines_before=$(wc -l <"$tmp/controller.log")
start_controller
poll job_ended "$job" || poll job_ended "$job" || fail "job $job did not end: $(flexslotctl show "$job")"
flexslotctl show "$job" | grep -q "^message	map task 0 failed 4 times; the last: failed: memory limit exceeded " ||
	fail "job $job after the restart: $(flexslotctl show "$job")"
# The attempt that ran while the controller was down is not the new
# controller's (its start was never stored): one more ran, not counted.
attempts=$(grep -c "Attempt [0-9]*: map 0 of job $job " "$tmp/tracker.log")
case $attempts in
4 | 5) ;;
*) fail "$attempts attempts of job $job's map: $(cat "$tmp/tracker.log")" ;;
esac
! tail -n +"$((lines_before + 1))" "$tmp/controller.log" | grep -q "of job $job (map 0, failure [12] of 4)" ||
	fail "the restarted controller counted job $job's failures from 0: $(cat "$tmp/controller.log")"

# ---- the same map within a bigger slot ----
flexslotctl set-slots 1 1 1 --slot-memory 512M
poll grep -q "Slots now 1 map, 1 reduce, 536870912 bytes each" "$tmp/tracker.log" ||
	fail "the tracker kept its slot memory"
job=$(flexslotctl submit --mapper "$mapper" --reduces 1 --name hog in/a)
poll job_ended "$job" || poll job_ended "$job" || fail "job $job did not end: $(flexslotctl show "$job")"
flexslotctl show "$job" | grep -q "^state	succeeded$" || fail "job $job: $(flexslotctl show "$job")"
cmp -s "$data/out/$job/part-00000" "$data/in/a" || fail "job $job's output is not its input"
echo PASS

#!/bin/sh
# A kill does not hold a tracker up: a job's map whose process group is
# stopped (SIGSTOP by PID: SIGTERM stays pending, as for a task stuck in
# I/O) is cancelled on a tracker whose kill grace is 8 s; while that
# attempt outlives its SIGTERM, the tracker goes on heartbeating, takes
# another job's map and reduce and reports them done. When the grace is
# over the attempt gets SIGKILL and is gone.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/ctl.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/tracker.sh"
data=$tmp/data
gates=$tmp/gates
export LC_ALL=C

write_fast_config
mkdir -p "$data/maps"
task_dir "$gates"
printf 'a\tb\n' >"$data/maps/m0"
start_bus
start_controller
{
	real_tracker_config 1 64M "$tmp/work" | sed 's/^map-slots = .*/map-slots = 2/'
	printf '[tasks]\nkill-grace = 8s\n'
} >"$tmp/tracker.ini"
"$build/bin/flexslot-tracker" --config "$tmp/tracker.ini" >"$tmp/tracker.log" 2>&1 &
pids="$pids $!"
poll grep -q "Registered with" "$tmp/tracker.log" ||
	fail "the tracker did not register: $(cat "$tmp/tracker.log")"

stubborn="touch $gates/started; while :; do sleep 0.05; done"
job1=$(flexslotctl submit --mapper "$stubborn" --reduces 1 --name stubborn maps/m0)
poll test -e "$gates/started" || fail "the stubborn map did not start: $(cat "$tmp/tracker.log")"
# The flexslot-task process leads the attempt's process group.
stubborn_pid=$(sed -n "s/.*map 0 of job $job1 (streaming), process \([0-9]*\)\$/\1/p" "$tmp/tracker.log")
[ -n "$stubborn_pid" ] || fail "no process for the stubborn map: $(cat "$tmp/tracker.log")"
/bin/kill -s STOP -- "-$stubborn_pid"
flexslotctl cancel "$job1"
poll grep -q "Killing attempt [0-9]* on the controller's word" "$tmp/tracker.log" ||
	fail "the tracker was not told to kill: $(cat "$tmp/tracker.log")"

job_succeeded() {
	flexslotctl show "$1" | grep -q "^state	succeeded\$"
}
job2=$(flexslotctl submit --mapper cat --reduces 1 --name next maps/m0)
poll job_succeeded "$job2" || fail "no job ran during the kill grace: $(cat "$tmp/tracker.log")"
# Still there, stopped (not a zombie): the other job ran during its grace.
[ "$(awk '{ print $3 }' "/proc/$stubborn_pid/stat" 2>/dev/null)" = T ] ||
	fail "the stubborn map was gone before the other job ended: the kill held the tracker up"
cmp -s "$data/out/$job2/part-00000" "$data/maps/m0" || fail "the other job's output is wrong"

gone() {
	[ ! -e "/proc/$stubborn_pid" ]
}
poll gone || poll gone || fail "the stubborn map outlived its grace"
grep -q "outlived its kill grace: SIGKILL" "$tmp/tracker.log" ||
	fail "no SIGKILL after the grace: $(cat "$tmp/tracker.log")"
echo "PASS"

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
export LC_ALL=C

start_kill_stage 8s
cancel_stubborn_map

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

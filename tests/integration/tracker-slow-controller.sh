#!/bin/sh
# A slow controller holds nothing up in a tracker: with the controller
# stopped (SIGSTOP) while a heartbeat is on its way, and a call timeout of
# a minute, the tracker still gives an attempt that outlives its SIGTERM
# its SIGKILL at the end of the kill grace, and reaps an attempt that
# exits, both within seconds. Once the controller runs again it hears of
# both and the job they belong to succeeds.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/ctl.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/tracker.sh"
data=$tmp/data
gates=$tmp/gates
export LC_ALL=C

write_fast_config
mkdir -p "$data/maps" "$gates"
printf 'a\tb\n' >"$data/maps/m0"
start_bus
start_controller
{
	real_tracker_config 1 64M "$tmp/work" | sed 's/^map-slots = .*/map-slots = 2/'
	printf '[tasks]\nkill-grace = 2s\n'
} | sed 's/^reconnect-max = .*/reconnect-max = 400ms\ncall-timeout = 1min/' >"$tmp/tracker.ini"
"$build/bin/flexslot-tracker" --config "$tmp/tracker.ini" >"$tmp/tracker.log" 2>&1 &
pids="$pids $!"
poll grep -q "Registered with" "$tmp/tracker.log" ||
	fail "the tracker did not register: $(cat "$tmp/tracker.log")"

# A map that will outlive its SIGTERM (its process group is stopped, so
# the signal stays pending, as for a task stuck in I/O), and one that waits
# for a gate.
stubborn="touch $gates/stubborn; while :; do sleep 0.05; done"
waiting="touch $gates/waiting; while [ ! -e $gates/open ]; do sleep 0.05; done; cat"
job1=$(flexslotctl submit --mapper "$stubborn" --reduces 1 --name stubborn maps/m0)
job2=$(flexslotctl submit --mapper "$waiting" --reduces 1 --name waiting maps/m0)
poll test -e "$gates/stubborn" || fail "the stubborn map did not start: $(cat "$tmp/tracker.log")"
poll test -e "$gates/waiting" || fail "the waiting map did not start: $(cat "$tmp/tracker.log")"
# The flexslot-task process leads the attempt's process group.
stubborn_pid=$(sed -n "s/.*map 0 of job $job1 (streaming), process \([0-9]*\)\$/\1/p" "$tmp/tracker.log")
[ -n "$stubborn_pid" ] || fail "no process for the stubborn map: $(cat "$tmp/tracker.log")"
/bin/kill -s STOP -- "-$stubborn_pid"

flexslotctl cancel "$job1"
poll grep -q "Killing attempt [0-9]* on the controller's word" "$tmp/tracker.log" ||
	fail "the tracker was not told to kill: $(cat "$tmp/tracker.log")"
# The kill grace runs from here; every heartbeat from now on waits (two
# beats of 100 ms pass before the grace is over).
kill -STOP "$controller_pid"
poll grep -q "outlived its kill grace: SIGKILL" "$tmp/tracker.log" ||
	fail "no SIGKILL while the controller was stopped: $(cat "$tmp/tracker.log")"
killed=$(sed -n 's/.*Attempt \([0-9]*\) outlived its kill grace.*/\1/p' "$tmp/tracker.log")
poll grep -q "Attempt $killed killed" "$tmp/tracker.log" ||
	fail "the killed attempt was not reaped: $(cat "$tmp/tracker.log")"

touch "$gates/open"
poll grep -q "Attempt [0-9]* succeeded" "$tmp/tracker.log" ||
	fail "the waiting map was not reaped while the controller was stopped: $(cat "$tmp/tracker.log")"
! grep -q "the controller went away" "$tmp/tracker.log" ||
	fail "the tracker gave up on a stopped controller: $(cat "$tmp/tracker.log")"

kill -CONT "$controller_pid"
job_succeeded() {
	flexslotctl show "$1" | grep -q "^state	succeeded\$"
}
poll job_succeeded "$job2" || fail "the waiting job did not succeed: $(cat "$tmp/tracker.log")"
cmp -s "$data/out/$job2/part-00000" "$data/maps/m0" || fail "the waiting job's output is wrong"
echo "PASS"

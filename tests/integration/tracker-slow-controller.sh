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
export LC_ALL=C

start_kill_stage 2s "call-timeout = 1min"
# A map that waits for a gate, beside the one that will outlive its
# SIGTERM.
waiting="touch $gates/waiting; while [ ! -e $gates/open ]; do sleep 0.05; done; cat"
job=$(flexslotctl submit --mapper "$waiting" --reduces 1 --name waiting maps/m0)
poll test -e "$gates/waiting" || fail "the waiting map did not start: $(cat "$tmp/tracker.log")"
cancel_stubborn_map
# The kill grace runs from here; every heartbeat from now on waits (many
# beats of 100 ms are due before the grace is over).
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
poll job_succeeded "$job" || fail "the waiting job did not succeed: $(cat "$tmp/tracker.log")"
cmp -s "$data/out/$job/part-00000" "$data/maps/m0" || fail "the waiting job's output is wrong"
echo "PASS"

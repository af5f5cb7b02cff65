#!/bin/sh
# The controller out of file descriptors: under a limit of 64 (lowered with
# prlimit once it runs), 200 connections that never register. It closes each
# after register-timeout, takes and closes at once what it cannot hold,
# warns a bounded number of times, and a real tracker that comes meanwhile
# registers once there is room and runs a job.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
# shellcheck source=tests/fixtures/controller/ctl.sh
. "$src/tests/fixtures/controller/ctl.sh"
# shellcheck source=tests/fixtures/controller/tracker.sh
. "$src/tests/fixtures/controller/tracker.sh"
command -v prlimit >/dev/null || skip "no prlimit"
chaos=$build/bench/flexslot-chaos-client

# shellcheck disable=SC2119 # the default lost-timeout
write_fast_config
sed -i 's/^\[trackers\]$/[trackers]\nregister-timeout = 500ms/' "$tmp/controller.ini"
mkdir -p "$tmp/data/maps"
printf 'a b a\n' >"$tmp/data/maps/m0"
start_bus
start_controller
prlimit --pid "$controller_pid" --nofile=64:64

"$chaos" idle --address "unix:path=$tmp/trackers" --count 200 --timeout 60 >"$tmp/idle.log" 2>&1 &
idle_pid=$!
pids="$pids $idle_pid"
poll grep -q "^connected" "$tmp/idle.log" || fail "idle connections: $(cat "$tmp/idle.log")"
start_real_tracker 64M
wait "$idle_pid" || fail "the idle connections stayed open: $(cat "$tmp/idle.log")"
echo "idle: $(tail -n 1 "$tmp/idle.log")"

job=$(flexslotctl submit --app wordcount --reduces 1 --name after-flood maps/m0)
job_ended() {
	flexslotctl show "$1" | grep -Eq "^state	(succeeded|failed)\$"
}
poll job_ended "$job" || fail "job $job did not end: $(flexslotctl show "$job")"
flexslotctl show "$job" | grep -q "^state	succeeded\$" ||
	fail "job $job: $(flexslotctl show "$job")"
grep -q "^a	2\$" "$tmp/data/out/$job/part-00000" || fail "job $job's output: $(cat "$tmp/data/out/$job"/part-*)"

# A warning every 10 s at most: the flood lasts a few seconds.
warnings=$(grep -c "Cannot accept trackers" "$tmp/controller.log" || true)
echo "warnings: $warnings, log: $(wc -c <"$tmp/controller.log") bytes"
[ "$warnings" -ge 1 ] || fail "no warning that descriptors ran out"
[ "$warnings" -le 3 ] || fail "$warnings warnings: $(grep "Cannot accept" "$tmp/controller.log" | head)"
echo "PASS"

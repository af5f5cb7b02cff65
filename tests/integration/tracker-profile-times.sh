#!/bin/sh
# ARIA's profile holds the tasks' own run times, not the heartbeats that
# reported them: a real tracker heartbeating every 3 s runs a wordcount of
# four small maps (each well under a second); the profile the job leaves
# must say its maps took less than the 3 s between two heartbeats, and the
# job's attempts in the store must have ended before the heartbeat that
# reported them.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/ctl.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/tracker.sh"
export LC_ALL=C

write_config
sed -i 's/^heartbeat-interval = .*/heartbeat-interval = 3s/; s/^lost-timeout = .*/lost-timeout = 10s/' \
	"$tmp/controller.ini"
mkdir -p "$tmp/data/maps"
for i in 0 1 2 3; do
	printf 'the quick brown fox %d\n' "$i" >"$tmp/data/maps/m$i"
done
start_bus
start_controller
real_tracker_config 1 64M "$tmp/work" | sed 's/^map-slots = .*/map-slots = 4/' >"$tmp/tracker.ini"
run_registered_tracker

job=$(flexslotctl submit --app wordcount --reduces 1 --name times maps/m0 maps/m1 maps/m2 maps/m3)
job_succeeded() {
	flexslotctl show "$job" | grep -q "^state	succeeded\$"
}
# Four heartbeats at most: maps, their report, the reduce, its report.
i=0
until job_succeeded; do
	i=$((i + 1))
	[ $i -lt 300 ] || fail "the job did not succeed: $(flexslotctl show "$job")"
	sleep 0.1
done
# USER NAME JOB UPDATED MAP_MIN MAP_AVG MAP_MAX ...
flexslotctl --no-legend profiles | awk -F '\t' -v job="$job" '
	$2 == "times" && $3 == job { found = 1; print; if ($7 + 0 >= 2.5 || $5 + 0 <= 0) bad = 1 }
	END { exit !(found && !bad) }' >"$tmp/profile" ||
	fail "the maps' profile times are the heartbeat's, not the tasks': $(flexslotctl profiles)"
echo "PASS"

#!/bin/sh
# [jobs] keep-ended: a job that ended longer ago than it is forgotten when
# the controller starts (and hourly), with its task records; a queued job
# stays however old, and so does the profile of the job forgotten; with
# keep-ended = 0 nothing is forgotten.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/ctl.sh"

start_bus
write_config
start_controller
done_job=$(flexslotctl submit --app wordcount --reduces 1 --user alice --name wc in/a)
run_tracker "$tmp/t1.log" --token-file "$tmp/token" --hostname t1 --beats 40 ||
	fail "the test tracker: $(cat "$tmp/t1.log")"
[ "$(job_state "$done_job")" = '"succeeded"' ] || fail "job $done_job: $(job_state "$done_job")"
queued_job=$(flexslotctl submit --app wordcount --reduces 1 in/b)

# sqlite3_count SQL: the first column of SQL's first row, on the store file.
sqlite3_count() {
	python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' \
		"$tmp/store.db" "$1"
}

restart() {
	kill "$controller_pid"
	wait "$controller_pid" || true
	sed -i "/^keep-ended/d; s/^\[jobs\]$/[jobs]\nkeep-ended = $1/" "$tmp/controller.ini"
	start_controller
}

# 0 keeps every job.
sleep_until=$(($(date +%s) + 2))
restart 0
flexslotctl show "$done_job" >/dev/null || fail "keep-ended = 0 forgot job $done_job"
grep -q "Forgot" "$tmp/controller.log" && fail "keep-ended = 0 forgot a job"

# The job ended over a second ago; a restart with keep-ended = 1s forgets it.
while [ "$(date +%s)" -lt "$sleep_until" ]; do
	sleep 0.1
done
restart 1s
poll grep -q "Forgot 1 jobs that ended over 1s ago" "$tmp/controller.log" ||
	fail "no job forgotten: $(cat "$tmp/controller.log")"
expect_ctl 1 "Error\.NoSuchJob" show "$done_job"
flexslotctl show "$queued_job" | grep -q "^state	" || fail "the queued job was forgotten"
flexslotctl profiles --no-legend | grep -q "^alice	wc	$done_job	" ||
	fail "the profile went with its job: $(flexslotctl profiles)"
[ "$(sqlite3_count "SELECT count(*) FROM task_attempts WHERE job = $done_job")" = 0 ] ||
	fail "the job's task records stayed"
echo "PASS"

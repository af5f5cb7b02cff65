#!/bin/sh
# Why a task failed reaches the job's message: a streaming mapper writes a
# distinctive error on stderr and exits with status 2. Each attempt's
# reason, the job's message and `flexslotctl show` carry the error and the
# exit status, however long the command that failed.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/ctl.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/tracker.sh"
export LC_ALL=C

start_one_tracker 'a\tb\n'

# A long command: the tracker's messages quote it before the error.
padding=$(printf '%0100d' 0)
job=$(flexslotctl submit --mapper ": $padding; echo 'widget 42 is out of sprockets' >&2; exit 2" \
	--reduces 1 --name error maps/m0)
job_failed() {
	flexslotctl show "$job" | grep -q "^state	failed\$"
}
poll job_failed || poll job_failed || fail "the job did not fail: $(flexslotctl show "$job")"
flexslotctl --no-legend show "$job" >"$tmp/show"
grep -q "^message	map task 0 failed 4 times; the last: failed: exit status 1: .*widget 42 is out of sprockets.*exit.*status 2" "$tmp/show" ||
	fail "the job's message lacks the task's error: $(cat "$tmp/show")"
[ "$(grep -c "^[0-9]*	map	0	vm1	failed	.*widget 42 is out of sprockets" "$tmp/show")" -eq 4 ] ||
	fail "not four failed attempts with the error: $(cat "$tmp/show")"
echo "PASS"

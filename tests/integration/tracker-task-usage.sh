#!/bin/sh
# What a task's process used reaches its attempt's record (Tracker1
# revision 3, the store's schema 4): a streaming mapper burns one second of
# CPU by its own count (the user and system time of its shell and of the
# children it waited for, in /proc/self/stat) and `flexslotctl show` lists
# its attempt with that CPU time, give or take the task runtime around it
# and the loop's last round; the identity reduce, which does next to
# nothing, with far less. The block I/O wait is reported too: 0 where the
# kernel keeps no task delay accounting (kernel.task_delayacct), which this
# test leaves as it is.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/ctl.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/tracker.sh"
export LC_ALL=C

start_one_tracker 'burn\t1\n'

# Rounds of 20000 additions until the shell's own count reaches a second
# (one line: a job's command holds no control characters).
# shellcheck disable=SC2016 # expanded by the task's shell
burn='tick=$(getconf CLK_TCK); while :; do set -- $(cut -d" " -f14-17 /proc/$$/stat);'
# shellcheck disable=SC2016
burn="$burn"' [ $(($1 + $2 + $3 + $4)) -lt "$tick" ] || break; i=0;'
# shellcheck disable=SC2016
burn="$burn"' while [ $i -lt 20000 ]; do i=$((i + 1)); done; done; cat'
job=$(flexslotctl submit --mapper "$burn" --reduces 1 --name usage maps/m0)
job_succeeded() {
	flexslotctl show "$job" | grep -q "^state	succeeded\$"
}
poll job_succeeded || poll job_succeeded || fail "the job did not succeed: $(flexslotctl show "$job")"
flexslotctl --no-legend show "$job" >"$tmp/show"
# usage_within TASK MIN MAX: its succeeded attempt used MIN..MAX CPU seconds
# and reported a block I/O wait. ATTEMPT TASK INDEX NODE STATE STARTED ENDED
# REASON CPU_S IO_WAIT_S.
usage_within() {
	awk -F'\t' -v task="$1" -v lo="$2" -v hi="$3" '$2 == task && $5 == "succeeded" {
			found = 1
			printf "%s: %s CPU seconds, %s s of block I/O wait\n", task, $9, $10
			if ($9 + 0 < lo || $9 + 0 > hi || $10 + 0 < 0) bad = 1 }
		END { exit !(found && !bad) }' "$tmp/show"
}
usage_within map 0.95 1.6 || fail "the map's CPU time is not its one-second burn: $(cat "$tmp/show")"
usage_within reduce 0 0.5 ||
	fail "the reduce's CPU time is not that of a task doing next to nothing: $(cat "$tmp/show")"
flexslotctl show --json "$job" | grep -q '"cpu_s": [0-9]' ||
	fail "show --json lacks the CPU time: $(flexslotctl show --json "$job")"
echo "PASS"

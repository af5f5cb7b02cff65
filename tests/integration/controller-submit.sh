#!/bin/sh
# SubmitJob refuses what no task could run, by the task runtime's own table
# (mapred/apps-table.h): an unknown application, an argument it does not
# take or cannot use, reduces out of range, a deadline that has passed, and
# a job whose output directory exists; each named, nothing stored. A job's
# user is its caller's (only root names another), only root and the
# allowed group may change anything, and only its user or root cancels a
# job. Calls as another user are made as nobody, whose own group stands for
# allowed-group.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/ctl.sh"
[ "$(id -u)" -eq 0 ] || skip "calls as another user need root"
command -v setpriv >/dev/null || skip "no setpriv"
data=$tmp/data

write_config
group=$(id -gn nobody)
sed -i "s/^\[controller\]\$/[controller]\nallowed-group = $group/" "$tmp/controller.ini"
# nobody reaches the bus's socket.
chmod 0711 "$tmp"
start_bus
start_controller

# as_nobody CMD...: CMD as nobody with nobody's group alone.
as_nobody() {
	setpriv --reuid=nobody --regid="$group" --clear-groups "$@"
}
jobs_stored() {
	ctl_call ListJobs | awk '{ print $2 }'
}

# refused PATTERN ARGS...: flexslotctl submit ARGS is refused with an
# InvalidArgument whose message matches PATTERN, and nothing is stored.
refused() {
	pattern=$1
	shift
	before=$(jobs_stored)
	expect_ctl 1 "InvalidArgument.*$pattern" submit "$@"
	[ "$(jobs_stored)" = "$before" ] || fail "a refused job was stored: $*"
}
refused "app: unknown application 'nosuchapp'; one of wordcount, grep, sort" \
	--app=nosuchapp --reduces=1 in/a
refused "app_arg: wordcount takes no argument" --app=wordcount --arg=junk --reduces=1 in/a
refused "app_arg: grep needs its PATTERN" --app=grep --reduces=1 in/a
refused "app_arg: grep: bad pattern '\(': " --app=grep --arg='(' --reduces=1 in/a
refused "n_reduces: 0; a job has 1 to 65536 reduces" --app=sort --reduces=0 in/a
refused "n_reduces: 100000; a job has 1 to 65536 reduces" --mapper=cat --reduces=100000 in/a
# A deadline 1 us after the epoch, and one an hour ago (flexslotctl only
# sends deadlines to come).
expect_error InvalidArgument SubmitJob ssssasutsss wordcount "" "" "" 1 in/a 1 1 default root old
grep -q "deadline: 1970-01-01 00:00:00 UTC has passed" "$tmp/monitor.log" ||
	fail "the past deadline is not named: $(tail -5 "$tmp/monitor.log")"
hour_ago=$((($(date +%s) - 3600) * 1000000))
expect_error InvalidArgument SubmitJob ssssasutsss wordcount "" "" "" 1 in/a 1 "$hour_ago" \
	default root old
# The output directory of the job to come, left by another store's job 1.
mkdir -p "$data/out/1"
printf 'stale\t999\n' >"$data/out/1/part-00000"
refused "out/1, the output directory of the job to come, exists in $data" --app=sort \
	--reduces=1 in/a
rm -r "$data/out/1"
echo "refusals: named, nothing stored"

# Whose job: root names anyone; anyone else is who the bus says.
job=$(flexslotctl submit --app=sort --reduces=1 --user=mallory in/a)
ctl_call GetJob t "$job" | grep -q '"sort" "mallory"' || fail "root could not submit for mallory"
job=$(as_nobody "$ctl" --address "$address" submit --app=sort --reduces=1 in/b)
ctl_call GetJob t "$job" | grep -q '"sort" "nobody"' ||
	fail "nobody's job is not nobody's: $(ctl_call GetJob t "$job")"
as_nobody "$ctl" --address "$address" submit --app=sort --reduces=1 --user=mallory in/a \
	>/dev/null 2>"$tmp/spoof.err" && fail "nobody submitted as mallory"
grep -q "AccessDenied.*a job is its submitter's (nobody); only root submits for another user" \
	"$tmp/spoof.err" || fail "the spoof is not named: $(cat "$tmp/spoof.err")"
# Cancelling: one's own job, not another's.
as_nobody "$ctl" --address "$address" cancel 1 >/dev/null 2>"$tmp/cancel.err" &&
	fail "nobody cancelled mallory's job"
grep -q "AccessDenied.*Job 1 is mallory's: only its user or root cancels it" "$tmp/cancel.err" ||
	fail "the refused cancel is not named: $(cat "$tmp/cancel.err")"
as_nobody "$ctl" --address "$address" cancel "$job" || fail "nobody could not cancel its own job"
# Outside the allowed group: nothing changes.
as_other() {
	setpriv --reuid=daemon --regid=daemon --clear-groups "$@"
}
as_other "$ctl" --address "$address" submit --app=sort --reduces=1 in/a >/dev/null \
	2>"$tmp/other.err" && fail "a caller outside the allowed group submitted a job"
grep -q "AccessDenied.*Submitting a job needs root or group '$group'" "$tmp/other.err" ||
	fail "the refusal is not named: $(cat "$tmp/other.err")"
as_other "$ctl" --address "$address" set-slots 1 1 1 >/dev/null 2>"$tmp/other.err" &&
	fail "a caller outside the allowed group set slots"
grep -q "AccessDenied.*Setting slots needs root or group" "$tmp/other.err" ||
	fail "the refusal is not named: $(cat "$tmp/other.err")"
as_other "$ctl" --address "$address" list >/dev/null || fail "reading is refused to others"
echo "PASS"

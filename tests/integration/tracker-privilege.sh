#!/bin/sh
# What a task may reach, end to end with a real tracker: tasks run as the
# configured task user (nobody here), with no group but its own, and cannot
# read the cluster token; a job's output directory and files are not
# everyone's; an input symlinked out of the data directory is refused at
# submission by name, and one that becomes such a symlink after it fails its
# job, saying why from the task's stderr, without its content reaching the
# output. The task program lies where the task user may not walk (a
# directory of root's alone, as a build under root's home): the tracker
# runs it by a descriptor it opened itself. A tracker whose task user does
# not exist, or is its own user, does not start.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/tracker-test.sh"

write_fast_config
# A directory of root's alone: the task user cannot walk to this copy.
mkdir -m 0700 "$tmp/private"
cp "$build/bin/flexslot-task" "$tmp/private/"
task_program=$tmp/private/flexslot-task
mkdir -p "$data/maps"
printf 'a\tb\n' >"$data/maps/m0"
# Outside the data directory and readable by the task user: only the
# resolution beneath the data directory keeps a task from it.
printf 'secret-line\n' >"$tmp/secret"
chmod 0644 "$tmp/secret"
ln -s ../../secret "$data/maps/shadow"
printf 'x\n' >"$data/maps/later"

# Refusals at start, named.
real_tracker_config 2 64M "$tmp/work-2" >"$tmp/tracker-2.ini"
sed -i "s/^task-user = .*/task-user = flexslot-no-such-user/" "$tmp/tracker-2.ini"
status=0
"$build/bin/flexslot-tracker" --config "$tmp/tracker-2.ini" >"$tmp/no-user.log" 2>&1 || status=$?
[ "$status" -eq 1 ] || fail "a missing task user did not stop the tracker (status $status)"
grep -q "The task user 'flexslot-no-such-user' does not exist" "$tmp/no-user.log" ||
	fail "a missing task user is not named: $(cat "$tmp/no-user.log")"
sed -i "s/^task-user = .*/task-user = root/" "$tmp/tracker-2.ini"
status=0
"$build/bin/flexslot-tracker" --config "$tmp/tracker-2.ini" >"$tmp/own-user.log" 2>&1 || status=$?
[ "$status" -eq 1 ] || fail "the tracker's own user as task user was accepted (status $status)"
grep -q "is the tracker's own user" "$tmp/own-user.log" ||
	fail "the tracker's own user is not named: $(cat "$tmp/own-user.log")"

start_bus
start_controller
start_real_tracker 64M
grep -q "tasks as $task_user\$" "$tmp/tracker.log" || fail "the tracker does not say its task user"

job_ended() {
	flexslotctl show "$1" | grep -Eq "^state	(succeeded|failed)\$"
}

# Who a task is, and whether it can read the token.
mapper="cat >/dev/null; echo \"user \$(id -un) \$(id -u):\$(id -g) groups \$(id -G)\"; \
cat '$tmp/token' 2>/dev/null || echo token-unreadable"
job=$(flexslotctl submit --mapper "$mapper" --reduces 1 --name whoami maps/m0)
poll job_ended "$job" || poll job_ended "$job" || fail "job $job did not end"
flexslotctl show "$job" | grep -q "^state	succeeded\$" ||
	fail "job $job failed: $(flexslotctl show "$job")"
out=$data/out/$job/part-00000
uid=$(id -u "$task_user")
gid=$(id -g "$task_user")
grep -qx "user $task_user $uid:$gid groups $gid" "$out" ||
	fail "the task did not run as $task_user alone: $(cat "$out")"
grep -qx "token-unreadable" "$out" || fail "a task could read the cluster token"
! grep -q "s3cret" "$out" || fail "the cluster token reached a job's output"
[ "$(stat -c '%a %G' "$data/out/$job")" = "770 $(id -gn "$task_user")" ] ||
	fail "out/$job is $(stat -c '%a %G' "$data/out/$job"), not 770 for the task user's group"
[ "$(stat -c %a "$out")" = 640 ] || fail "the output is mode $(stat -c %a "$out"), not 640"

# An input symlinked out of the data directory is refused at submission.
expect_ctl 1 "InvalidArgument: inputs\[0\] 'maps/shadow' leads out of the data directory" \
	submit --mapper cat --reduces 1 --name shadow maps/shadow
# One that becomes such a symlink once the job is split (the tracker
# stopped meanwhile) fails the job, its content nowhere in the output.
/bin/kill -s STOP "$tracker_pid"
job=$(flexslotctl submit --mapper cat --reduces 1 --name shadow maps/later)
ln -sf ../../secret "$data/maps/later"
/bin/kill -s CONT "$tracker_pid"
poll job_ended "$job" || poll job_ended "$job" || poll job_ended "$job" || fail "job $job did not end"
flexslotctl show "$job" | grep -q "^state	failed\$" ||
	fail "a job over a symlink out of the data directory did not fail: $(flexslotctl show "$job")"
# Why, from the task's stderr, in the job's message and the tracker's log.
flexslotctl show "$job" | grep -q "^message	.*Cannot open input maps/later: it leads out of the data directory" ||
	fail "the task's reason is not the job's message: $(flexslotctl show "$job")"
grep -q "Cannot open input maps/later: it leads out of the data directory" "$tmp/tracker.log" ||
	fail "the refusal is not in the tracker's log: $(cat "$tmp/tracker.log")"
! grep -rq "secret-line" "$data/out" || fail "the secret reached the data directory"
echo "PASS"

#!/bin/sh
# A tracker killed with SIGKILL takes its tasks with it, and the store keeps
# the attempt that was lost: two real trackers; a streaming map whose
# command (sh) starts a sleep in the background and waits for it, the PIDs
# of both written down by the command itself. The tracker that runs it is
# killed with SIGKILL: no process of the task's process group (the
# flexslot-task that leads it, sh, the sleep) may remain. The controller
# loses that tracker, the map runs again on the other one and the job
# succeeds; `flexslotctl show` lists the lost attempt with why, before and
# after a restart of the controller on the same store file.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/tracker-test.sh"
gates=$tmp/gates

write_fast_config 1s
mkdir -p "$data/maps"
task_dir "$gates"
printf 'a\tb\n' >"$data/maps/m0"
start_bus
start_controller
for n in 1 2; do
	real_tracker_config "$n" 64M "$tmp/work$n" >"$tmp/tracker$n.ini"
	"$build/bin/flexslot-tracker" --config "$tmp/tracker$n.ini" >"$tmp/tracker$n.log" 2>&1 &
	eval "tracker${n}_pid=$!"
	pids="$pids $!"
done
for n in 1 2; do
	poll grep -q "Registered with" "$tmp/tracker$n.log" ||
		fail "tracker vm$n did not register: $(cat "$tmp/tracker$n.log")"
done

# The first run sleeps (and is killed with its tracker); the second copies.
mapper="if mkdir $gates/first 2>/dev/null; then echo \$\$ >$gates/sh.pid; \
sleep 97 & echo \$! >$gates/sleep.pid; wait; fi; cat"
job=$(flexslotctl submit --mapper "$mapper" --reduces 1 --name killed maps/m0)
poll test -s "$gates/sleep.pid" || fail "the map did not start: $(cat "$tmp"/tracker?.log)"
sh_pid=$(cat "$gates/sh.pid")
sleep_pid=$(cat "$gates/sleep.pid")
# Stopped by PID at the end should the test fail before they are gone.
pids="$pids $sh_pid $sleep_pid"
for n in 1 2; do
	task_pid=$(sed -n "s/.*map 0 of job $job (streaming), process \([0-9]*\)\$/\1/p" "$tmp/tracker$n.log")
	[ -z "$task_pid" ] || break
done
[ -n "$task_pid" ] || fail "no tracker names the map's process: $(cat "$tmp"/tracker?.log)"
other=$((3 - n))

# The task leads its process group; the command and its sleep are in it.
in_group() {
	for stat in /proc/[0-9]*/stat; do
		awk -v g="$1" '$5 == g { found = 1 } END { exit !found }' "$stat" 2>/dev/null && return 0
	done
	return 1
}
in_group "$task_pid" || fail "no process in the task's group $task_pid"
[ "$(awk '{ print $5 }' "/proc/$sleep_pid/stat")" = "$task_pid" ] ||
	fail "the command's sleep is not in the task's process group $task_pid"

eval "kill -KILL \$tracker${n}_pid"
group_gone() {
	! in_group "$task_pid" && [ ! -e "/proc/$sh_pid" ] && [ ! -e "/proc/$sleep_pid" ]
}
poll group_gone || fail "the task outlived its tracker: $(for p in $task_pid $sh_pid $sleep_pid; do
	[ ! -e "/proc/$p" ] || printf '%s ' "$(cat "/proc/$p/cmdline" | tr '\0' ' ')"
done)"

job_succeeded() {
	flexslotctl show "$job" | grep -q "^state	succeeded\$"
}
poll job_succeeded || fail "the job did not succeed on the other tracker: $(flexslotctl show "$job")"
cmp -s "$data/out/$job/part-00000" "$data/maps/m0" || fail "the job's output is not its input"

# Every attempt of the job, the lost one with why: ATTEMPT TASK INDEX NODE
# STATE STARTED ENDED REASON.
attempts_listed() {
	flexslotctl --no-legend show "$job" >"$tmp/show"
	grep -q "^[0-9]*	map	0	vm$n	lost	[-0-9T:Z]*	[-0-9T:Z]*	its tracker was lost	-1	-1\$" "$tmp/show" &&
		grep -q "^[0-9]*	map	0	vm$other	succeeded	" "$tmp/show" &&
		grep -q "^[0-9]*	reduce	0	vm$other	succeeded	" "$tmp/show" &&
		[ "$(grep -c "^[0-9]*	\(map\|reduce\)	" "$tmp/show")" -eq 3 ]
}
attempts_listed || fail "show does not list the job's three attempts: $(cat "$tmp/show")"
flexslotctl show --json "$job" | grep -q '"state": "lost", .*"reason": "its tracker was lost"' ||
	fail "show --json lacks the lost attempt: $(flexslotctl show --json "$job")"

kill -TERM "$controller_pid"
wait "$controller_pid" || fail "the controller did not stop cleanly"
start_controller
attempts_listed || fail "the store lost the attempts across a restart: $(cat "$tmp/show")"
echo "PASS"

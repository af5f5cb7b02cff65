#!/bin/sh
# flexslotctl watch and submit --wait against the controller and a real
# tracker: jobs followed to their end, a plain line per change when the
# output is not a terminal and a redrawn bar on one (under script(1)'s
# pseudo-terminal), and the exit status saying how the jobs ended: 0
# succeeded, 3 failed, 4 cancelled, 1 a job the controller does not know;
# a job's straggler, backed up by Hadoop's speculation, on its line.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/tracker-test.sh"

write_fast_config
# Backups only where the stragglers part asks for them: a backup runs
# beside no attempt of its task, and the other parts have one tracker.
cat >>"$tmp/controller.ini" <<CONF
[policy]
speculation = hadoop
spec_min_runtime = 3s
CONF
printf 'a b\nb c\n' >"$data/in/a"
printf 'c d\n' >"$data/in/b"
start_bus
start_controller

# ---- usage ----
expect_ctl 2 "invalid --interval 'often'" watch --interval often
expect_ctl 2 "invalid job id 'x'" watch x
expect_ctl 2 "watch does not take --wait" watch --wait 1
expect_ctl 1 "Error\.NoSuchJob" watch 7
expect_ctl 0 "" watch
grep -q "^No job is queued or running\.$" "$tmp/out" || fail "watch of nothing: $(cat "$tmp/out")"

# ---- a job followed to success, not on a terminal ----
# Before any tracker is there, so that the watcher sees it wait.
job=$(flexslotctl submit --app wordcount --reduces 1 --deadline 1h in/a in/b)
flexslotctl watch --interval 50ms >"$tmp/watch.out" 2>"$tmp/watch.err" &
watch_pid=$!
pids="$pids $watch_pid"
poll grep -q "^job $job wordcount: running, maps 0/2, reduces 0/1, deadline 20[0-9T:-]*Z$" \
	"$tmp/watch.out" || fail "watch's first line: $(cat "$tmp/watch.out" "$tmp/watch.err")"
start_real_tracker 256M
status=0
wait "$watch_pid" || status=$?
[ "$status" -eq 0 ] || fail "watch of a job that succeeded exited $status: $(cat "$tmp/watch.err")"
# Spans are rounded to the second: a job that ends within half a second of
# its submission (a fast machine) has, rounded, the whole hour to spare.
tail -n 1 "$tmp/watch.out" |
	grep -Eq "^job $job wordcount: succeeded after [0-9]+s, deadline met with (5[0-9]m[0-9]+s|1h00m) to spare$" ||
	fail "watch's last line: $(cat "$tmp/watch.out")"
# One line per change, none twice in a row.
[ "$(uniq "$tmp/watch.out" | wc -l)" -eq "$(wc -l <"$tmp/watch.out")" ] ||
	fail "watch repeated a line: $(cat "$tmp/watch.out")"
grep -q "\[" "$tmp/watch.out" && fail "a bar on a pipe: $(cat "$tmp/watch.out")"

# ---- submit --wait: a job that fails ----
expect_ctl 3 "" submit --wait --interval 50ms --mapper "exit 1" --reduces 1 in/a
tail -n 1 "$tmp/out" | grep -q "^job [0-9]* streaming: failed after [0-9]*s: map task 0 failed 4 times" ||
	fail "submit --wait of a failing job: $(cat "$tmp/out")"

# ---- a cancelled job, on a terminal ----
flexslotctl set-slots 1 0 1
job=$(flexslotctl submit --app wordcount --reduces 1 in/a)
script -qec "'$ctl' --address '$address' watch --interval 50ms $job; echo \"status=\$?\"" \
	/dev/null >"$tmp/tty.out" 2>&1 &
script_pid=$!
pids="$pids $script_pid"
poll grep -q "running, maps 0/1" "$tmp/tty.out" || fail "watch on a terminal: $(cat "$tmp/tty.out")"
flexslotctl cancel "$job"
wait "$script_pid" || true
grep -q "status=4" "$tmp/tty.out" || fail "watch of a cancelled job: $(cat "$tmp/tty.out")"
# The bar, and the job's line drawn again in place (cursor up, line erased).
grep -q "\[\.\{24\}\] job $job wordcount: running, maps 0/1, reduces 0/1" "$tmp/tty.out" ||
	fail "no bar on a terminal: $(cat -v "$tmp/tty.out")"
grep -q "$(printf '\033')\[1A" "$tmp/tty.out" || fail "no redraw on a terminal: $(cat -v "$tmp/tty.out")"
grep -q "job $job wordcount: cancelled after [0-9]*s: cancelled" "$tmp/tty.out" ||
	fail "the terminal's last drawing: $(cat -v "$tmp/tty.out")"
# ---- stragglers: a map held at half its progress, backed up ----
# The test tracker "slow" holds map 0 at progress 0.5; "fast" runs map 1
# to its end; 3 s on, map 0 is a straggler by Hadoop's rule (0.5 is more
# than 0.2 below the maps' average of 0.75), which "backup" is given and
# holds too. Each is a VM of its own (the controller takes one tracker a
# VM): hold_tracker NAME N is the VM ...00N.
hold_tracker() {
	"$tracker" --address "unix:path=$tmp/trackers" --token-file "$tmp/token" --hostname "$1" \
		--vm-uuid "00000000-0000-0000-0000-00000000000$2" \
		--mode hold --map-slots 1 --reduce-slots 0 --beats 100000 >"$tmp/$1.log" 2>&1 &
	pids="$pids $!"
}
job=$(flexslotctl submit --app wordcount --reduces 1 in/a in/b)
hold_tracker slow 2
poll grep -q "^assign $job map 0 " "$tmp/slow.log" || fail "slow: $(cat "$tmp/slow.log")"
run_tracker "$tmp/fast.log" --token-file "$tmp/token" --hostname fast \
	--vm-uuid 00000000-0000-0000-0000-000000000004 --map-slots 1 \
	--reduce-slots 0 --beats 2 || fail "fast: $(cat "$tmp/fast.log")"
grep -q "^assign $job map 1 " "$tmp/fast.log" || fail "fast did not run map 1: $(cat "$tmp/fast.log")"
flexslotctl watch --interval 50ms "$job" >"$tmp/watch.out" 2>"$tmp/watch.err" &
watch_pid=$!
pids="$pids $watch_pid"
poll grep -q "^job $job wordcount: running, maps 1/2, reduces 0/1$" "$tmp/watch.out" ||
	fail "watch before the backup: $(cat "$tmp/watch.out" "$tmp/watch.err")"
hold_tracker backup 3
backed_up() {
	grep -q "^job $job wordcount: running, maps 1/2, reduces 0/1, 1 straggler (1 backed up)$" \
		"$tmp/watch.out"
}
poll backed_up || poll backed_up ||
	fail "watch shows no straggler: $(cat "$tmp/watch.out" "$tmp/backup.log" "$tmp/watch.err")"
grep -q "^assign $job map 0 " "$tmp/backup.log" || fail "no backup: $(cat "$tmp/backup.log")"
flexslotctl cancel "$job"
status=0
wait "$watch_pid" || status=$?
[ "$status" -eq 4 ] || fail "watch of the cancelled job exited $status"
echo "PASS"

#!/bin/sh
# flexslotctl watch and submit --wait against the controller and a real
# tracker: jobs followed to their end, a plain line per change when the
# output is not a terminal and a redrawn bar on one (under script(1)'s
# pseudo-terminal), and the exit status saying how the jobs ended: 0
# succeeded, 3 failed, 4 cancelled, 1 a job the controller does not know.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/ctl.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/tracker.sh"
data=$tmp/data
export LC_ALL=C

write_fast_config
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
tail -n 1 "$tmp/watch.out" |
	grep -q "^job $job wordcount: succeeded after [0-9]*s, deadline met with 5[0-9]m[0-9]*s to spare$" ||
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
echo "PASS"

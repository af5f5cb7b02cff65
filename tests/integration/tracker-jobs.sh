#!/bin/sh
# End to end with real processes: flexslot-controllerd on a private bus and
# three flexslot-tracker daemons (distinct VM UUIDs) running flexslot-task
# children over a generated, skewed text dataset in a temporary data
# directory. Wordcount and sort outputs are compared with answers computed
# here with tr, sort and uniq. Then a tracker killed with SIGKILL mid-job,
# and the controller killed with SIGKILL mid-job and restarted: the trackers
# come back by themselves, outputs are still right, and maps that had
# finished before the kill do not run again. Refusals: a bad token and a
# malformed configuration stop a tracker with a named error.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
# shellcheck source=tests/fixtures/controller/tracker.sh
. "$src/tests/fixtures/controller/tracker.sh"
# shellcheck source=tests/lib/dataset.sh
. "$src/tests/lib/dataset.sh"
trackerd=$build/bin/flexslot-tracker
data=$tmp/data
export LC_ALL=C

write_config

# ---- the dataset: Zipf-like words (a few very common, a long tail), files
# of unequal sizes, and key<TAB>value lines for sort ----
mkdir -p "$data/in" "$data/sortin"
gen_words 1 20000 >"$data/in/a"
gen_words 2 6000 >"$data/in/b"
gen_words 3 800 >"$data/in/c"
awk 'BEGIN { srand(7); for (i = 0; i < 30000; i++)
	printf "k%08d\tv%d\n", int(100000000 * rand() ^ 2), i }' >"$data/sortin/s1"
awk 'BEGIN { srand(8); for (i = 0; i < 9000; i++)
	printf "k%08d\tv%d\n", int(100000000 * rand()), i }' >"$data/sortin/s2"
wordcount_answer "$data"/in/* >"$tmp/wc.expected"
cat "$data"/sortin/* | sort >"$tmp/sort.expected"

# Small blocks, so that the larger files are split and the skew is in the
# splits' sizes too.
sed -i 's/^heartbeat-interval = .*/heartbeat-interval = 100ms/; s/^lost-timeout = .*/lost-timeout = 1s/' \
	"$tmp/controller.ini"
echo "block-size = 128K" >>"$tmp/controller.ini"
start_bus
start_controller

# tracker_config N [EXTRA]: $tmp/tracker-N.ini
tracker_config() {
	task_dir "$tmp/work-$1"
	cat >"$tmp/tracker-$1.ini" <<CONF
[tracker]
controller = unix:path=$tmp/trackers
token-file = ${token_file:-$tmp/token}
data-dir = $data
work-dir = $tmp/work-$1
task-program = $build/bin/flexslot-task
vm-uuid = 6d1f0c7e-0000-4000-8000-00000000000$1
hostname = vm$1
log-level = debug
[slots]
map-slots = 1
reduce-slots = 1
slot-memory = 64M
[connection]
reconnect-max = 400ms
[tasks]
task-user = $task_user
CONF
}

start_tracker() {
	tracker_config "$1"
	"$trackerd" --config "$tmp/tracker-$1.ini" >>"$tmp/tracker-$1.log" 2>&1 &
	eval "tracker_pid_$1=$!"
	pids="$pids $!"
}

# ---- refusals: a malformed configuration, a bad token ----
tracker_config 9
printf '[slots]\nmap-slots = many\n' >>"$tmp/tracker-9.ini"
if "$trackerd" --config "$tmp/tracker-9.ini" >"$tmp/bad-config.log" 2>&1; then
	fail "a malformed configuration was accepted"
fi
grep -q "tracker-9.ini:1[0-9]:.*map-slots" "$tmp/bad-config.log" ||
	fail "the configuration error has no file:line: $(cat "$tmp/bad-config.log")"
echo "wrong-token" >"$tmp/bad-token"
chmod 0600 "$tmp/bad-token"
token_file=$tmp/bad-token tracker_config 8
status=0
"$trackerd" --config "$tmp/tracker-8.ini" >"$tmp/bad-token.log" 2>&1 || status=$?
[ "$status" -eq 1 ] || fail "a refused token did not stop the tracker (status $status)"
grep -q "org.flexslot.Tracker1.Error.BadToken" "$tmp/bad-token.log" ||
	fail "the refusal is not named: $(cat "$tmp/bad-token.log")"
! grep -q "wrong-token" "$tmp/bad-token.log" || fail "the tracker logged its token"

start_tracker 1
start_tracker 2
start_tracker 3
nodes_alive() {
	[ "$(ctl_call ListNodes | grep -o '"alive"' | wc -l)" -eq "$1" ]
}
poll nodes_alive 3 || fail "the trackers did not register: $(ctl_call ListNodes)"
for i in 1 2 3; do
	ctl_call ListNodes | grep -q "\"vm$i\" \"6d1f0c7e-0000-4000-8000-00000000000$i\"" ||
		fail "vm$i is not listed with its VM UUID: $(ctl_call ListNodes)"
done

# poll, twice as long: for a task of a job to start or end on a loaded
# machine.
poll_long() {
	poll "$@" || poll "$@"
}

# wait_job ID: polls (bounded) until the job has ended; fails unless it
# succeeded.
job_ended() {
	case $(job_state "$1") in '"running"' | '"queued"') return 1 ;; esac
}
wait_job() {
	i=0
	until job_ended "$1"; do
		i=$((i + 1))
		[ $i -lt 1200 ] || fail "job $1 did not end: $(ctl_call GetJob t "$1")"
		sleep 0.1
	done
	[ "$(job_state "$1")" = '"succeeded"' ] || fail "job $1 failed: $(ctl_call GetJob t "$1")"
}
check_wordcount() { # JOB
	cat "$data/out/$1"/part-* | sort >"$tmp/wc.$1"
	cmp -s "$tmp/wc.$1" "$tmp/wc.expected" ||
		fail "wordcount job $1 differs: $(diff "$tmp/wc.$1" "$tmp/wc.expected" | head -5)"
}

# ---- an input that is not in the data directory is refused by name ----
jobs_before=$(ctl_call ListJobs)
expect_error InvalidArgument SubmitJob ssssasutsss wordcount "" "" "" 2 in/a in/missing 1 0 default alice bad
case $out in *"inputs[1] 'in/missing'"*) ;; *) fail "the refusal does not name the input: $out" ;; esac
[ "$(ctl_call ListJobs)" = "$jobs_before" ] || fail "a refused job changed the jobs"

# ---- wordcount and sort ----
[ "$(ctl_call SubmitJob ssssasutsss wordcount "" "" "" 3 in/a in/b in/c 2 0 default alice wc)" = "t 1" ] ||
	fail "job 1"
wait_job 1
check_wordcount 1
[ "$(ctl_call SubmitJob ssssasutsss sort "" "" "" 2 sortin/s1 sortin/s2 1 0 default bob sort)" = "t 2" ] ||
	fail "job 2"
wait_job 2
sort -c -s -t "$(printf '\t')" -k1,1 "$data/out/2/part-00000" || fail "sort's output is not sorted"
sort "$data/out/2/part-00000" | cmp -s - "$tmp/sort.expected" ||
	fail "sort's output is not its input"

# ---- a tracker killed with SIGKILL while it runs a task ----
[ "$(ctl_call SubmitJob ssssasutsss wordcount "" "" "" 3 in/a in/b in/c 2 0 default alice wc3)" = "t 3" ] ||
	fail "job 3"
poll_long grep -q "of job 3 (wordcount), process" "$tmp/tracker-1.log" ||
	fail "tracker 1 took no task of job 3"
kill -KILL "$tracker_pid_1"
wait "$tracker_pid_1" 2>/dev/null || true
wait_job 3
check_wordcount 3
vm1_lost() {
	ctl_call ListNodes | grep -q '"vm1" "[^"]*" "lost"'
}
poll vm1_lost || fail "vm1 is not lost: $(ctl_call ListNodes)"

# ---- the controller killed with SIGKILL mid-job and restarted ----
[ "$(ctl_call SubmitJob ssssasutsss wordcount "" "" "" 3 in/a in/b in/c 2 0 default alice wc4)" = "t 4" ] ||
	fail "job 4"
# job4 FIELD: a count of job 4 in ListJobs: 1 its maps, 3 the maps done.
job4() {
	ctl_call ListJobs | sed -n 's/.* "wc4" "alice" "default" "wordcount" \([0-9]*\) 2 \([0-9]*\) .*/\1 \2/p' |
		cut -d' ' -f"$1"
}
some_map_done() {
	[ "$(job4 2)" -ge 1 ]
}
poll_long some_map_done || fail "no map of job 4 finished: $(ctl_call ListJobs)"
n_maps=$(job4 1)
done_before=$(job4 2)
# Hadoop's rule, counted here: 128K blocks while more than 1.1 of them
# remain, the rest as the last split.
expected_maps=0
for f in a b c; do
	size=$(stat -c %s "$data/in/$f")
	while [ $((size * 10)) -gt $((131072 * 11)) ]; do
		size=$((size - 131072))
		expected_maps=$((expected_maps + 1))
	done
	expected_maps=$((expected_maps + 1))
done
if [ "$n_maps" -ne "$expected_maps" ] || [ "$n_maps" -le 3 ]; then
	fail "job 4's inputs made $n_maps maps, not $expected_maps splits of 128K"
fi
kill -KILL "$controller_pid"
wait "$controller_pid" 2>/dev/null || true
lines_before=$(wc -l <"$tmp/controller.log")
start_controller
wait_job 4
check_wordcount 4
poll nodes_alive 2 || fail "the trackers did not come back: $(ctl_call ListNodes)"
maps_after=$(tail -n +"$((lines_before + 1))" "$tmp/controller.log" |
	grep -c "of job 4 map" || true)
[ "$maps_after" -le $((n_maps - done_before)) ] ||
	fail "$maps_after maps of job 4 ran after the restart, $done_before had finished before"

for i in 2 3; do
	eval "p=\$tracker_pid_$i"
	kill -TERM "$p"
	status=0
	wait "$p" || status=$?
	[ "$status" -eq 0 ] || fail "tracker $i exited with status $status"
done
echo "PASS"

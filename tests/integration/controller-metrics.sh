#!/bin/sh
# The controller's Prometheus endpoint ([metrics] listen) with the test
# tracker on its Unix socket endpoint: off unless configured; a bad address
# refused by file and line; GET /metrics answers in the exposition format
# with the tasks of a queued job, then, once a tracker ran it, the job
# succeeded, the heartbeats counted as the tracker sent them (and counted
# on as another sends more), the latency histogram holding every one, the
# scheduler's assignments as the tracker received them, the tracker lost
# when it falls silent, and no store error.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
# shellcheck source=tests/lib/http.sh
. "$src/tests/lib/http.sh"

# value NAME{LABELS}: the sample's value in the last scrape ($tmp/m).
value() {
	awk -v name="$1" '$1 == name { print $2 }' "$tmp/m"
}
expect() {
	[ "$(value "$1")" = "$2" ] || fail "$1 is '$(value "$1")', not $2: $(grep "^${1%%\{*}" "$tmp/m")"
}

start_bus
write_config

# ---- a bad address stops the controller, by file and line ----
cp "$tmp/controller.ini" "$tmp/plain.ini"
printf '[metrics]\nlisten = localhost:http\n' >>"$tmp/controller.ini"
status=0
"$controllerd" --config "$tmp/controller.ini" --address "$address" >"$tmp/bad.log" 2>&1 || status=$?
[ "$status" -ne 0 ] || fail "a bad [metrics] listen was accepted"
line=$(grep -c '' "$tmp/controller.ini")
grep -q "controller.ini:$line: \[metrics\] listen: 'localhost:http' is not A.B.C.D:PORT or \[IPV6\]:PORT" \
	"$tmp/bad.log" || fail "the bad address was not named: $(cat "$tmp/bad.log")"

# ---- off by default ----
cp "$tmp/plain.ini" "$tmp/controller.ini"
start_controller
grep -q "Metrics on" "$tmp/controller.log" && fail "metrics served without [metrics] listen"
kill -TERM "$controller_pid"
wait "$controller_pid" || fail "the controller did not stop cleanly"

# ---- on ----
printf '[metrics]\nlisten = 127.0.0.1:0\n' >>"$tmp/controller.ini"
: >"$tmp/controller.log"
start_controller
port=$(metrics_port "$tmp/controller.log")
[ -n "$port" ] || fail "no metrics port logged: $(cat "$tmp/controller.log")"
scrape "$port" >"$tmp/m"
head -n 1 "$tmp/m" | grep -q "^HTTP/1.1 200 OK" || fail "scrape: $(cat "$tmp/m")"
exposition_ok "$tmp/m" || fail "lines not in the exposition format"
expect flexslot_controller_up 1
grep -q '^flexslot_controller_build_info{version="[0-9.]*",scheduler="fifo",slot_manager="static",speculation="none",vm_allocator="none"} 1$' \
	"$tmp/m" || fail "build info: $(grep build_info "$tmp/m")"
expect 'flexslot_controller_heartbeats_total' 0
expect 'flexslot_controller_heartbeat_duration_seconds_count' 0
expect 'flexslot_controller_jobs{state="queued"}' 0
expect 'flexslot_controller_trackers{state="alive"}' 0

# A queued job's tasks, before any tracker: its two maps and one reduce.
[ "$(ctl_call SubmitJob ssssasutsss wordcount "" "" "" 2 in/a in/b 1 0 default alice wc)" = "t 1" ] ||
	fail "job 1"
scrape "$port" >"$tmp/m"
expect 'flexslot_controller_tasks{type="map",state="pending"}' 2
expect 'flexslot_controller_tasks{type="reduce",state="pending"}' 1
expect 'flexslot_controller_tasks{type="map",state="done"}' 0

# ---- a tracker runs the job ----
run_tracker "$tmp/t1.log" --token-file "$tmp/token" --hostname t1 --beats 8 ||
	fail "the tracker failed: $(cat "$tmp/t1.log")"
[ "$(job_state 1)" = '"succeeded"' ] || fail "job 1 did not succeed: $(ctl_call GetJob t 1)"
scrape "$port" >"$tmp/m"
exposition_ok "$tmp/m" || fail "lines not in the exposition format"
expect 'flexslot_controller_jobs{state="succeeded"}' 1
expect 'flexslot_controller_jobs{state="running"}' 0
expect 'flexslot_controller_jobs{state="failed"}' 0
# An ended job leaves the model: no task is left.
expect 'flexslot_controller_tasks{type="map",state="done"}' 0
expect flexslot_controller_heartbeats_total 8
expect flexslot_controller_heartbeat_duration_seconds_count 8
expect 'flexslot_controller_heartbeat_duration_seconds_bucket{le="+Inf"}' 8
awk '$1 == "flexslot_controller_heartbeat_duration_seconds_sum" && $2 > 0 { ok = 1 }
	END { exit !ok }' "$tmp/m" || fail "no time in the histogram's sum"
# The buckets count up to the total.
awk '/^flexslot_controller_heartbeat_duration_seconds_bucket/ {
	if ($2 < last) exit 1; last = $2 } END { exit last != 8 }' "$tmp/m" ||
	fail "the buckets are not cumulative: $(grep _bucket "$tmp/m")"
assigned=$(grep -c "^assign " "$tmp/t1.log")
[ "$assigned" -eq 3 ] || fail "the tracker got $assigned tasks: $(cat "$tmp/t1.log")"
expect 'flexslot_controller_decisions_total{layer="scheduler",kind="assignments"}' 3
expect 'flexslot_controller_decisions_total{layer="speculation",kind="assignments"}' 0
expect 'flexslot_controller_decisions_total{layer="slot-manager",kind="slot_changes"}' 0
expect flexslot_controller_store_errors_total 0

# ---- the count grows with another tracker's beats; the silent one is lost ----
run_tracker "$tmp/t2.log" --token-file "$tmp/token" --hostname t2 --beats 3 ||
	fail "the second tracker failed: $(cat "$tmp/t2.log")"
scrape "$port" >"$tmp/m"
expect flexslot_controller_heartbeats_total 11
expect flexslot_controller_heartbeat_duration_seconds_count 11
lost() {
	scrape "$port" >"$tmp/m"
	[ "$(value 'flexslot_controller_trackers{state="lost"}')" = 2 ]
}
poll lost || fail "the silent trackers were not counted lost: $(grep trackers "$tmp/m")"
expect 'flexslot_controller_trackers{state="alive"}' 0

kill -TERM "$controller_pid"
status=0
wait "$controller_pid" || status=$?
[ "$status" -eq 0 ] || fail "the controller exited with status $status"
echo "PASS"

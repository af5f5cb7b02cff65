#!/bin/sh
# flexslot-controllerd on a private bus, with test trackers on its Unix
# socket endpoint: jobs submitted, listed, shown and cancelled through
# org.flexslot.Controller1; bad arguments, a bad token, trackers of other
# Tracker1 versions and a malformed heartbeat refused by name with nothing
# changed; a job run to the end by
# a tracker; a silent tracker lost and its task run elsewhere; a controller
# killed with SIGKILL resumes its job without running finished tasks again.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"

start_bus
write_config
start_controller

# ---- Controller1: submit, list, show, refusals ----
[ "$(ctl_call SubmitJob ssssasutsss wordcount "" "" "" 2 in/a in/b 1 0 default alice wc1)" = "t 1" ] ||
	fail "the first job is not job 1"
ctl_call ListJobs | grep -q '"running" "wc1" "alice" "default" "wordcount" 2 1 0 0' ||
	fail "ListJobs does not show job 1: $(ctl_call ListJobs)"
[ "$(job_state 1)" = '"running"' ] || fail "job 1 is not running"
jobs_before=$(ctl_call ListJobs)
expect_error InvalidArgument SubmitJob ssssasutsss wordcount "" "" "" 1 ../etc/passwd 1 0 default alice bad
case $out in *"inputs[0]"*) ;; *) fail "the refusal does not name the input: $out" ;; esac
expect_error InvalidArgument SubmitJob ssssasutsss wordcount "" "" "" 0 1 0 default alice noinput
expect_error NoSuchJob GetJob t 99
expect_error NoSuchJob CancelJob t 99
[ "$(ctl_call ListJobs)" = "$jobs_before" ] || fail "a refused call changed the jobs"

# A second controller on the same store is refused.
if "$controllerd" --config "$tmp/controller.ini" --address "$address" >"$tmp/second.log" 2>&1; then
	fail "a second controller ran on the same store"
fi
grep -q "in use by another controller" "$tmp/second.log" || fail "$(cat "$tmp/second.log")"

# ---- Tracker1: a bad token, a malformed heartbeat ----
if run_tracker "$tmp/bad-token.log" --token wrong --beats 1; then
	fail "a wrong token was accepted"
fi
grep -q "^error org.flexslot.Tracker1.Error.BadToken:" "$tmp/bad-token.log" ||
	fail "wrong token: $(cat "$tmp/bad-token.log")"
! grep -q "s3cret" "$tmp/controller.log" || fail "the token was logged"
[ "$(ctl_call ListNodes)" = "a(tsssuuuudd) 0" ] || fail "a refused tracker is listed"

# A tracker of another version is refused by name, before its token is
# looked at: one older than the controller serves, and one newer.
for version in 0 4; do
	if run_tracker "$tmp/version-$version.log" --token wrong --protocol-version "$version" \
		--beats 1; then
		fail "a tracker of Tracker1 version $version was accepted"
	fi
	grep -q "^error org.flexslot.Tracker1.Error.IncompatibleVersion: .* version $version;" \
		"$tmp/version-$version.log" ||
		fail "version $version: $(cat "$tmp/version-$version.log")"
	grep -q "it speaks Tracker1 version $version, this controller 1..3" "$tmp/controller.log" ||
		fail "the controller did not log the refusal of version $version"
done
[ "$(ctl_call ListNodes)" = "a(tsssuuuudd) 0" ] || fail "a tracker of another version is listed"

# It takes map 0 on its first beat, then reports it with progress 1.5.
if run_tracker "$tmp/bad-hb.log" --token-file "$tmp/token" --hostname bad --mode bad-progress \
	--map-slots 1 --reduce-slots 0 --beats 2; then
	fail "a progress of 1.5 was accepted"
fi
grep -q "^assign 1 map 0 " "$tmp/bad-hb.log" || fail "no assignment: $(cat "$tmp/bad-hb.log")"
grep -q "^error org.flexslot.Tracker1.Error.InvalidHeartbeat: .*progress" "$tmp/bad-hb.log" ||
	fail "malformed heartbeat: $(cat "$tmp/bad-hb.log")"
ctl_call ListNodes | grep -q '"bad" "00000000-0000-0000-0000-000000000001" "alive" 1 0 1 0' ||
	fail "the refused heartbeat changed the node: $(ctl_call ListNodes)"
[ "$(job_state 1)" = '"running"' ] || fail "the refused heartbeat changed job 1"

# ---- the lost-tracker rule: "bad" is silent now, and map 0 runs elsewhere ----
poll sh -c "busctl --address='$address' call org.flexslot.Controller1 \
	/org/flexslot/Controller1 org.flexslot.Controller1 ListNodes | grep -q '\"lost\"'" ||
	fail "the silent tracker was not lost: $(ctl_call ListNodes)"
run_tracker "$tmp/good.log" --token-file "$tmp/token" --hostname good --beats 6 ||
	fail "the tracker failed: $(cat "$tmp/good.log")"
grep -q "^assign 1 map 0 " "$tmp/good.log" || fail "map 0 did not move: $(cat "$tmp/good.log")"
grep -q "^assign 1 reduce 0 [0-9]* out/1/map-0 out/1/map-1$" "$tmp/good.log" ||
	fail "the reduce did not get the maps' outputs: $(cat "$tmp/good.log")"
[ "$(job_state 1)" = '"succeeded"' ] || fail "job 1 did not succeed: $(ctl_call GetJob t 1)"

# ---- cancel ----
[ "$(ctl_call SubmitJob ssssasutsss grep "x" "" "" 1 in/c 1 0 default bob g)" = "t 2" ] || fail "job 2"
ctl_call CancelJob t 2 >/dev/null || fail "CancelJob 2"
[ "$(job_state 2)" = '"cancelled"' ] || fail "job 2 is not cancelled"
expect_error NoSuchJob CancelJob t 2

# ---- SIGKILL mid-job, restart, resume ----
[ "$(ctl_call SubmitJob ssssasutsss sort "" "" "" 3 in/x in/y in/z 1 0 default carol s)" = "t 3" ] ||
	fail "job 3"
# Beat 1 takes map 0; beat 2 reports it done and takes map 1.
run_tracker "$tmp/before.log" --token-file "$tmp/token" --hostname t1 --map-slots 1 \
	--reduce-slots 0 --beats 2 || fail "tracker before the kill: $(cat "$tmp/before.log")"
grep -q "^assign 3 map 1 " "$tmp/before.log" || fail "no map 1: $(cat "$tmp/before.log")"
kill -KILL "$controller_pid"
wait "$controller_pid" 2>/dev/null || true
start_controller
ctl_call ListJobs | grep -q '3 "running" "s" "carol" "default" "sort" 3 1 1 0' ||
	fail "job 3 was not resumed with map 0 done: $(ctl_call ListJobs)"
# Map 1 ran on t1, which does not come back: the restarted controller holds
# it for the lost-timeout (500ms), then t2 runs it.
run_tracker "$tmp/after.log" --token-file "$tmp/token" --hostname t2 --beats 30 ||
	fail "tracker after the restart: $(cat "$tmp/after.log")"
! grep -q "^assign 3 map 0 " "$tmp/after.log" || fail "map 0 ran again: $(cat "$tmp/after.log")"
grep -q "^assign 3 map 1 " "$tmp/after.log" || fail "map 1 was lost: $(cat "$tmp/after.log")"
[ "$(job_state 3)" = '"succeeded"' ] || fail "job 3 did not succeed: $(ctl_call GetJob t 3)"
[ "$(job_state 1)" = '"succeeded"' ] || fail "job 1 changed across the restart"

kill -TERM "$controller_pid"
status=0
wait "$controller_pid" || status=$?
[ "$status" -eq 0 ] || fail "the controller exited with status $status"
echo "PASS"

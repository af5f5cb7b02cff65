#!/bin/sh
# org.flexslot.Controller1's operator methods beyond jobs, on a private bus
# with the test tracker: SubmitJob refuses a job that names both an
# application and streaming commands, or neither; SetSlots reaches the
# tracker in its next heartbeat
# reply and refuses an unknown tracker or a bad count by name with nothing
# changed; a job that succeeds leaves its ARIA profile under (user, name),
# ListProfiles shows it, and the Deadline Constraint scheduler reads it when
# the same job is submitted again: a deadline it cannot meet is refused with
# the reason, where the same deadline without a profile is admitted.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"

start_bus
write_config
# The deadline models read a job's input from its splits: 100 bytes each,
# what the test tracker reports its maps read.
for f in a b; do
	printf '%0100d' 0 >"$tmp/data/in/$f"
done
printf '[policy]\nscheduler = deadline\n' >>"$tmp/controller.ini"
start_controller

# ---- SetSlots ----
"$tracker" --address "unix:path=$tmp/trackers" --token-file "$tmp/token" --hostname t1 \
	--map-slots 2 --reduce-slots 1 --beats 100000 >"$tmp/t1.log" 2>&1 &
t1_pid=$!
pids="$pids $t1_pid"
poll grep -q "^registered 1 " "$tmp/t1.log" || fail "no registration: $(cat "$tmp/t1.log")"
nodes_before=$(ctl_call ListNodes)
expect_error NoSuchNode SetSlots tuut 7 1 1 0
expect_error InvalidArgument SetSlots tuut 1 1025 1 0
expect_error InvalidArgument SetSlots tuut 1 1 1 4096
[ "$(ctl_call ListNodes)" = "$nodes_before" ] || fail "a refused SetSlots changed the node"
! grep -q "^slots" "$tmp/t1.log" || fail "a refused SetSlots reached the tracker"

ctl_call SetSlots tuut 1 3 0 $((512 << 20)) >/dev/null || fail "SetSlots"
poll grep -q "^slots 3 0 $((512 << 20))$" "$tmp/t1.log" ||
	fail "the tracker did not hear its new slots: $(cat "$tmp/t1.log")"
ctl_call ListNodes | grep -q '"t1" "[-0-9]*" "alive" 3 0 ' ||
	fail "ListNodes does not show the new slots: $(ctl_call ListNodes)"
kill "$t1_pid"
wait "$t1_pid" 2>/dev/null || true
poll sh -c "busctl --address='$address' call org.flexslot.Controller1 \
	/org/flexslot/Controller1 org.flexslot.Controller1 ListNodes | grep -q '\"lost\"'" ||
	fail "the stopped tracker was not lost"
expect_error NoSuchNode SetSlots tuut 1 1 1 0

# ---- SubmitJob: an application or streaming commands, never both ----
expect_error InvalidArgument SubmitJob ssssasutsss wordcount "" cat "" 1 in/a 1 0 default alice both
expect_error InvalidArgument SubmitJob ssssasutsss "" "" "" "" 1 in/a 1 0 default alice neither
[ "$(ctl_call ListJobs)" = "a(tsssssuuuuttts) 0" ] || fail "a refused submission was stored"

# ---- a profile from a first run, read by the second submission ----
[ "$(ctl_call ListProfiles)" = "a(ssttdddddddddddd) 0" ] || fail "profiles before any job"
[ "$(ctl_call SubmitJob ssssasutsss wordcount "" "" "" 2 in/a in/b 1 0 default alice wc)" = "t 1" ] ||
	fail "job 1"
run_tracker "$tmp/t2.log" --token-file "$tmp/token" --hostname t2 --beats 6 ||
	fail "the tracker failed: $(cat "$tmp/t2.log")"
[ "$(job_state 1)" = '"succeeded"' ] || fail "job 1 did not succeed: $(ctl_call GetJob t 1)"
ctl_call ListProfiles | grep -q '^a(ssttdddddddddddd) 1 "alice" "wc" 1 [0-9]* [0-9.e+-]* [0-9.e+-]* [0-9.e+-]* 100 ' ||
	fail "no profile of (alice, wc) from job 1: $(ctl_call ListProfiles)"

# The trackers are gone: no slot is free, so a job with a deadline that
# the scheduler can judge (it has a profile) is refused, and one it cannot
# judge is admitted untested.
poll sh -c "busctl --address='$address' call org.flexslot.Controller1 \
	/org/flexslot/Controller1 org.flexslot.Controller1 ListNodes | grep -vq '\"alive\"'" ||
	fail "a tracker is still alive"
deadline=$(( $(date +%s) * 1000000 + 3600000000 ))
jobs_before=$(ctl_call ListJobs)
expect_error NotAdmitted SubmitJob ssssasutsss wordcount "" "" "" 2 in/a in/b 1 "$deadline" \
	default alice wc
case $out in *"map slots"*) ;; *) fail "the refusal gives no reason: $out" ;; esac
[ "$(ctl_call ListJobs)" = "$jobs_before" ] || fail "a refused job was stored"
[ "$(ctl_call SubmitJob ssssasutsss wordcount "" "" "" 2 in/a in/b 1 "$deadline" default bob wc)" = "t 2" ] ||
	fail "a job without a profile was not admitted untested"

kill -TERM "$controller_pid"
status=0
wait "$controller_pid" || status=$?
[ "$status" -eq 0 ] || fail "the controller exited with status $status"
echo "PASS"

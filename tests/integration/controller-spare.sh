#!/bin/sh
# ARIA's spare slots in the live controller: flexslot-controllerd with
# [policy] scheduler = aria and slo_spare = yes, and a test tracker of 4
# map slots. A job run once leaves its ARIA profile; run again with a
# deadline an hour away, Eq. 15 holds it to one map slot, and the slots its
# quota leaves idle go to it beyond its quota (no job without a deadline
# wants them), each logged with why (a job without a deadline's at debug): its 4 maps are assigned at once, 3 of
# them "beyond its quota of 1: the earliest deadline" (no part of the one
# loop is on, so the order is ARIA's own).
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"

start_bus
write_config
# ARIA's profile needs the job's input: a line in each split.
for f in a b c x; do
	echo "a line of input" >"$tmp/data/in/$f"
done
cat >>"$tmp/controller.ini" <<CONF
[policy]
scheduler = aria
slo_spare = yes
CONF
start_controller

# ---- a first run leaves the job's profile ----
[ "$(ctl_call SubmitJob ssssasutsss wordcount "" "" "" 4 in/a in/b in/c in/x 1 0 default alice wc)" = "t 1" ] ||
	fail "the first job is not job 1"
run_tracker "$tmp/first.log" --token-file "$tmp/token" --hostname w1 --map-slots 4 --beats 20 ||
	fail "the first run's tracker: $(cat "$tmp/first.log")"
[ "$(job_state 1)" = '"succeeded"' ] || fail "job 1 did not succeed: $(ctl_call GetJob t 1)"
# Without a deadline it has no quota: its slots are spare, said at debug.
grep -q "Spare: map slot on tracker [0-9]* to job 1 (no deadline): no deadline job can use it$" \
	"$tmp/controller.log" || fail "job 1's slots not said spare: $(grep Spare "$tmp/controller.log")"
! grep -q "beyond its quota" "$tmp/controller.log" || fail "job 1 is said to have a quota"

# ---- the second run, with a deadline: its quota and the spare slots ----
deadline=$(($(date +%s%N) / 1000 + 3600000000))
[ "$(ctl_call SubmitJob ssssasutsss wordcount "" "" "" 4 in/a in/b in/c in/x 1 "$deadline" default alice wc)" = "t 2" ] ||
	fail "the second job is not job 2"
"$tracker" --address "unix:path=$tmp/trackers" --token-file "$tmp/token" --hostname w1 \
	--map-slots 4 --mode hold --beats 100000 >"$tmp/hold.log" 2>&1 &
pids="$pids $!"
# four_maps: the tracker was given job 2's 4 maps.
four_maps() {
	[ "$(grep -c "^assign 2 map " "$tmp/hold.log")" -eq 4 ]
}
poll four_maps || fail "job 2 did not get 4 maps: $(cat "$tmp/hold.log")"
quota=$(ctl_call GetJob t 2 | awk '{ print $(NF - 1) }')
[ "$quota" -eq 1 ] || fail "job 2's map quota is not 1: $(ctl_call GetJob t 2)"
spares=$(grep -c "Spare: map slot on tracker [0-9]* to job 2 beyond its quota of 1: the earliest deadline (in [0-9.]* s)$" "$tmp/controller.log" || true)
[ "$spares" -eq 3 ] || fail "not 3 spare slots logged: $(grep Spare "$tmp/controller.log")"

echo PASS

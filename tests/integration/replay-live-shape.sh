#!/bin/sh
# make replay-vm compares like with like: for a slice of the trace as
# sim/replay-vm.params sets it (jobs 102-109: map-only jobs, a reduce count
# rounded up to 1 and two capped at the reduce slots, 1 to 8 maps), the
# controller gives each job tools/swim-load.sh submits the maps and reduces
# that sim/predict-replay.sh (flexslot-sim replay --live) gives the same
# job, and every job of the slice has a prediction.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/ctl.sh"
# shellcheck source=sim/replay-vm.params
. "$src/sim/replay-vm.params"
export LC_ALL=C

write_config
# The scenario's block: the controller's splits are the simulator's maps.
echo "block-size = $REPLAY_BLOCK" >>"$tmp/controller.ini"
start_bus
start_controller

replay_slice 102 8 >"$tmp/slice.tsv"
[ "$(cut -f1 "$tmp/slice.tsv" | tr '\n' ' ')" = "job102 job103 job104 job105 job106 job107 job108 job109 " ] ||
	fail "the slice: $(cut -f1 "$tmp/slice.tsv" | tr '\n' ' ')"
# Submissions 1000 times closer: the counts do not depend on them.
sh "$src/tools/swim-load.sh" --scale-time 0.001 --scale-data "$REPLAY_SCALE_DATA" \
	--block "$REPLAY_BLOCK" --max-reduces "$REPLAY_MAX_REDUCES" --address "$address" --ctl "$ctl" \
	"$tmp/data" "$tmp/slice.tsv" >"$tmp/submitted" 2>"$tmp/err" ||
	fail "swim-load.sh failed: $(cat "$tmp/err")"
sh "$src/sim/predict-replay.sh" "$build" --skip 102 --jobs 8 >"$tmp/prediction" 2>"$tmp/err" ||
	fail "predict-replay.sh failed: $(cat "$tmp/err")"

# "NAME MAPS REDUCES" of the live jobs (flexslotctl's JSON, a job an
# object) and of the prediction's PRED lines, by name.
flexslotctl --json list | tr -d '\n' | tr '}' '\n' | awk '
	{ n = $0; sub(/.*"name": *"/, "", n); sub(/".*/, "", n)
	  m = $0; sub(/.*"maps": */, "", m); sub(/[^0-9].*/, "", m)
	  r = $0; sub(/.*"reduces": */, "", r); sub(/[^0-9].*/, "", r)
	  if (n != $0) print n, m, r }' | sort >"$tmp/live"
awk '$1 == "PRED" { print $2, $3, $4 }' "$tmp/prediction" | sort >"$tmp/predicted"
[ "$(wc -l <"$tmp/live")" -eq 8 ] || fail "live jobs: $(cat "$tmp/live")"
diff "$tmp/live" "$tmp/predicted" >"$tmp/diff" ||
	fail "live and predicted jobs differ (name maps reduces): $(cat "$tmp/diff")"
# What the slice was chosen for.
grep -qx "job104 1 4" "$tmp/live" || fail "job104, capped at 4 reduces: $(cat "$tmp/live")"
grep -qx "job106 8 1" "$tmp/live" || fail "job106, map-only, 8 maps: $(cat "$tmp/live")"
grep -qx "job103 1 1" "$tmp/live" || fail "job103, 42 bytes shuffled: $(cat "$tmp/live")"
grep -q "^SUMMARY jobs 8, " "$tmp/prediction" || fail "no summary: $(tail -n 3 "$tmp/prediction")"
echo "replay-live-shape: ok ($(tr '\n' ';' <"$tmp/live"))"

#!/bin/sh
# What Controller1 tells a client is in the store already: the heartbeats
# of one pass of the controller's loop write the store in one group, whose
# commit waits for the pass's end, and a read method that ran inside the
# pass would show, read through the same SQLite connection or from the
# model that took them in, attempts whose records a failed commit loses. 200
# tracker connections keep a heartbeat each in flight
# (flexslot-bench-heartbeat), every attempt succeeding in its second
# heartbeat, so that most heartbeats finish a task and start the next,
# while one ListAttempts call after another goes to the controller's bus
# (--watch); each attempt a reply lists as running or succeeded is looked
# up, as the reply comes, in the store through a connection of the load's
# own (--store). One listed before its group's commit is not there yet.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
load=$build/bench/flexslot-bench-heartbeat
trackers=200

write_config
# Jobs of 500 maps each (a sparse file of 500 KiB, split by the KiB):
# enough of them to keep the load's slots busy through its run, few enough
# attempts each for a reply to be looked up in a few milliseconds.
echo "block-size = 1K" >>"$tmp/controller.ini"
truncate -s 500K "$tmp/data/in/big"
sed -i "s|^heartbeat-interval = .*|heartbeat-interval = 10s|
	s|^lost-timeout = .*|lost-timeout = 10min\nmax-trackers = $trackers|" "$tmp/controller.ini"
start_bus
start_controller
for j in $(seq 1 60); do
	"$build/bin/flexslotctl" --address "$address" submit --app wordcount --reduces 1 \
		--user load --name "job$j" in/big >/dev/null || fail "cannot submit job $j"
done

line=$("$load" --address "unix:path=$tmp/trackers" --token-file "$tmp/token" \
	--trackers "$trackers" --seconds 2 --warmup 0.5 --task-beats 1 --store "$tmp/store.db" \
	--watch "$address") ||
	fail "the load failed: $(tail -n 5 "$tmp/controller.log")"
echo "$line"
field() { echo "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
finished=$(field finished)
[ "$finished" -ge 200 ] || fail "only $finished attempts finished: $line"
# Each reply lists a job's attempts, hundreds once its maps run.
checked=$(field checked)
[ "$checked" -ge 2000 ] || fail "only $checked listed attempts were looked up: $line"
[ "$(field unstored)" = 0 ] ||
	fail "$(field unstored) of $checked attempts listed were not in the store as listed"
echo "PASS"

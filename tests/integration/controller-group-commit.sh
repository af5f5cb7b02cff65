#!/bin/sh
# The heartbeats of one pass of the controller's loop share one commit of
# the store, and a reply goes out only once the records it depends on are
# committed: 200 tracker connections keep a heartbeat each in flight
# (flexslot-bench-heartbeat), every attempt succeeding in its second
# heartbeat, so that most heartbeats finish a task and start the next; the
# load looks each assigned attempt up in the store, through a connection
# of its own, as its reply comes (--store). A reply sent before its group's
# commit finds its attempt missing there: in a pass of many heartbeats the
# first replies go out well before the commit. The controller's commits,
# counted in its metrics, must be fewer than the heartbeats that wrote.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
# shellcheck source=tests/lib/http.sh
. "$src/tests/lib/http.sh"
load=$build/bench/flexslot-bench-heartbeat
trackers=200

write_config
mkdir -p "$tmp/data/many"
for i in $(seq 1 400); do
	: >"$tmp/data/many/$i"
done
sed -i "s|^heartbeat-interval = .*|heartbeat-interval = 10s|
	s|^lost-timeout = .*|lost-timeout = 10min\nmax-trackers = $trackers|" "$tmp/controller.ini"
printf '[metrics]\nlisten = 127.0.0.1:0\n' >>"$tmp/controller.ini"
start_bus
start_controller
port=$(metrics_port "$tmp/controller.log")
[ -n "$port" ] || fail "the controller did not say its metrics port"
for j in 1 2 3; do
	# shellcheck disable=SC2046 # one argument per input
	"$build/bin/flexslotctl" --address "$address" submit --app wordcount --reduces 1 \
		--user load --name "job$j" $(seq -f "many/%g" 1 400) >/dev/null ||
		fail "cannot submit job $j"
done
metric() {
	scrape "$port" | tr -d '\r' | sed -n "s/^$1 \([0-9]*\)$/\1/p"
}
commits0=$(metric flexslot_controller_store_commits_total)
[ -n "$commits0" ] || fail "no flexslot_controller_store_commits_total metric"

line=$("$load" --address "unix:path=$tmp/trackers" --token-file "$tmp/token" \
	--trackers "$trackers" --seconds 2 --warmup 0.5 --task-beats 1 --store "$tmp/store.db") ||
	fail "the load failed: $(tail -n 5 "$tmp/controller.log")"
echo "$line"
commits=$(($(metric flexslot_controller_store_commits_total) - commits0))
field() { echo "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
finished=$(field finished)
[ "$finished" -ge 200 ] || fail "only $finished attempts finished: $line"
[ "$(field unrecorded)" = 0 ] ||
	fail "$(field unrecorded) attempts were assigned before their records were committed"
echo "$commits commits for $finished attempts finished"
[ "$commits" -lt "$finished" ] ||
	fail "$commits commits for $finished heartbeats that finished an attempt: not grouped"
echo "PASS"

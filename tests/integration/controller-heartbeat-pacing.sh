#!/bin/sh
# flexslot-bench-heartbeat's open loop (--rate) offers the rate it is given:
# 200 tracker connections at 400 heartbeats/s in all for 3 s send the 1,200
# heartbeats due in those 3 s, not one per reply as fast as the controller
# answers (the closed loop, thousands here), and the replies come at the
# offered rate. A bad --rate is refused by name.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
load=$build/bench/flexslot-bench-heartbeat
trackers=200
rate=400
seconds=3

write_config
sed -i "s|^heartbeat-interval = .*|heartbeat-interval = 10s|
	s|^lost-timeout = .*|lost-timeout = 10min\nmax-trackers = $trackers|" "$tmp/controller.ini"
start_bus
start_controller
address=$(sed -n 's/^listen = //p' "$tmp/controller.ini")

if "$load" --address "$address" --token-file "$tmp/token" --rate 0 2>"$tmp/err"; then
	fail "--rate 0 was taken"
fi
grep -q "Invalid --rate '0'" "$tmp/err" || fail "--rate 0 refused without naming it: $(cat "$tmp/err")"

line=$("$load" --address "$address" --token-file "$tmp/token" --trackers "$trackers" \
	--rate "$rate" --seconds "$seconds" --warmup 1) ||
	fail "the load failed: $(tail -n 5 "$tmp/controller.log")"
echo "$line"
field() { echo "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
[ "$(field offered)" = "$rate" ] || fail "offered $(field offered), not $rate: $line"
[ "$(field latency_from)" = due ] || fail "reply times not counted from when due: $line"
# The heartbeats due in the interval: rate x seconds, give or take the one
# on its edge.
due=$(field heartbeats)
if [ "$due" -lt $((rate * seconds - 1)) ] || [ "$due" -gt $((rate * seconds + 1)) ]; then
	fail "$due heartbeats due in ${seconds}s at $rate/s, not $((rate * seconds)): $line"
fi
# The replies in the interval, at the offered rate within 5 %: those of
# the heartbeats due on its edges may fall either side.
achieved=$(field rate)
if [ "$achieved" -lt $((rate * 95 / 100)) ] || [ "$achieved" -gt $((rate * 105 / 100)) ]; then
	fail "replies at $achieved/s, not within 5 % of the $rate/s offered: $line"
fi
[ "$(field unanswered)" = 0 ] || fail "$(field unanswered) connections unanswered: $line"
echo "PASS"

#!/bin/sh
# flexslot-agentd samples at its configured interval, and exits with a
# failure when its bus goes away. On a private bus, with interval = 100ms,
# the Sample signals' own timestamps are on average 100ms apart over 30
# periods. Taking the mean over many periods, from the times
# the agent stamped rather than when a busy machine delivered the signals,
# keeps the check steady under load; a timer that re-arms from its callback
# or with sd-event's default 250ms slack is far outside it.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/agent/lib.sh"

PERIODS=30
start_bus
start_monitor
cat >"$tmp/agent.ini" <<CONF
[agent]
uri = test://$src/tests/fixtures/agent/host.xml
interval = 100ms
CONF
start_agent "$tmp/agent.ini"
[ "$(agent_property Interval)" = "t 100000" ] || fail "Interval is $(agent_property Interval)"

# The first UINT64 of each Sample signal is its timestamp, in microseconds.
# The first sample also opens the libvirt connection, so it comes out late
# and does not count.
sample_times() {
	awk '/Member=Sample/ { want = 1 } want && /UINT64/ { sub(";", "", $2); print $2; want = 0 }' \
		"$tmp/monitor.log" | sed 1d
}
enough_samples() {
	[ "$(sample_times | wc -l)" -gt "$PERIODS" ]
}
# 3 s at the configured period; the poll gives up after 10 s.
poll enough_samples || fail "fewer than $((PERIODS + 2)) samples in 10 s"

# Without its bus the agent exits with a failure, for Restart=on-failure.
kill "$bus_pid"
status=0
wait "$agent_pid" || status=$?
[ "$status" -eq 1 ] || fail "the agent exited with status $status when its bus went away"
grep -q "Lost the connection to D-Bus" "$tmp/agent.log" || fail "the lost bus was not logged"

mean_us=$(sample_times | head -n $((PERIODS + 1)) |
	awk 'NR == 1 { first = $1 } { last = $1 } END { printf "%d", (last - first) / (NR - 1) }')
echo "mean period over $PERIODS samples: $mean_us us (configured 100000 us)"
[ "$mean_us" -ge 95000 ] || fail "samples come every $mean_us us, faster than the interval"
[ "$mean_us" -le 110000 ] || fail "samples come every $mean_us us, not every 100000 us"
echo "PASS"

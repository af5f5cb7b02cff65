#!/bin/sh
# flexslot-agentd while libvirt does not answer: the agent's hypervisor is a
# socket that accepts and never replies, so its first libvirt call blocks
# for good. The bus must keep answering (properties, reads), a change (stuck
# on the actuator's own connection) must come back as
# Error.HypervisorUnavailable within the configured timeout and one queued
# behind it as not made, the watchdog must keep being fed, and SIGTERM must
# still stop the agent.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/agent/lib.sh"

command -v python3 >/dev/null || skip "no python3 for the unresponsive hypervisor"
start_python hang-server.py "$tmp/hang.log" "$tmp/hang.sock"

start_bus
start_monitor
cat >"$tmp/agent.ini" <<CONF
[agent]
uri = test+unix:///default?socket=$tmp/hang.sock
interval = 200ms
hypervisor-timeout = 500ms
CONF
# The agent's sd_notify messages, as systemd would get them with
# Type=notify and WatchdogSec=.
start_python notify-socket.py "$tmp/notify.log" "$tmp/notify"
export NOTIFY_SOCKET="$tmp/notify" WATCHDOG_USEC=400000
start_agent "$tmp/agent.ini"
unset NOTIFY_SOCKET WATCHDOG_USEC
poll grep -q "^READY=1" "$tmp/notify.log" || fail "no READY=1"

# The first sample times out while libvirt is still blocked in it.
poll grep -q "did not answer a sample" "$tmp/agent.log" || fail "the sample did not time out"
hypervisor_available false || fail "HypervisorAvailable is not false"
poll grep -q "^STATUS=The hypervisor is not answering" "$tmp/notify.log" ||
	fail "the service status does not say the hypervisor is not answering"

# The bus answers at once although a libvirt call is outstanding.
start=$(now_ms)
[ "$(agent_property Interval)" = "t 200000" ] || fail "Interval"
expect_error HypervisorUnavailable ListDomains
elapsed_ms=$(($(now_ms) - start))
echo "properties and ListDomains answered in $elapsed_ms ms with libvirt blocked"
[ "$elapsed_ms" -lt 2000 ] || fail "the bus took $elapsed_ms ms to answer"

# A change gets stuck too, on the actuator's connection, and is answered
# at its timeout as one that may still take effect.
start=$(now_ms)
expect_error HypervisorUnavailable SetVcpus su worker1 2
elapsed_ms=$(($(now_ms) - start))
echo "SetVcpus answered HypervisorUnavailable in $elapsed_ms ms"
said "the change may still take effect"
[ "$elapsed_ms" -ge 400 ] || fail "answered before the timeout"
[ "$elapsed_ms" -lt 5000 ] || fail "answered long after the 500 ms timeout"
grep -q "SetVcpus('worker1', 2) by uid 0 (:1\.[0-9]*): outstanding, org.flexslot.Agent1.Error.HypervisorUnavailable: The hypervisor did not answer within 500ms; the change may still take effect (watch the Sample signal)\. \[decision=[0-9]*" \
	"$tmp/agent.log" || fail "the request that timed out is not in the audit trail"
# The next one waits behind it and is not made.
expect_error HypervisorUnavailable SetMemory st worker1 2147483648
said "the change was not made"
grep -q "SetMemory('worker1', 2G) by uid 0 (:1\.[0-9]*): not made, org.flexslot.Agent1.Error.HypervisorUnavailable: The hypervisor did not answer within 500ms; the change was not made\. \[decision=[0-9]*" \
	"$tmp/agent.log" || fail "the queued request is not in the audit trail"

# The event loop keeps feeding the watchdog while libvirt is blocked.
pings=$(grep -c "^WATCHDOG=1" "$tmp/notify.log" || true)
more_pings() {
	[ "$(grep -c "^WATCHDOG=1" "$tmp/notify.log")" -ge $((pings + 3)) ]
}
poll more_pings || fail "the watchdog was not fed while libvirt was blocked"

# SIGTERM ends the agent although its worker thread is stuck in libvirt.
stop_agent
grep -q "still running; exiting without it" "$tmp/agent.log" ||
	fail "the agent did not notice the stuck call at exit"
echo "PASS"

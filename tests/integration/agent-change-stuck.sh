#!/bin/sh
# flexslot-agentd while one change is stuck in libvirtd and the rest of
# libvirtd answers, as when a domain's job lock is held: a proxy in front of
# a private libvirtd (serving the test driver's fixture host) holds back
# every virDomainSetMemoryFlags call. While the change is stuck, samples
# must keep coming on the collector's own connection (Sample signals, fresh
# metrics, HypervisorAvailable true); the stuck change is answered
# Error.HypervisorUnavailable at its timeout, a change queued behind it is
# not made, and once libvirtd lets the call through the stuck change
# completes and is logged as done after its timeout.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/agent/lib.sh"

GIB=1073741824
# REMOTE_PROC_DOMAIN_SET_MEMORY_FLAGS in libvirt's remote_protocol.x.
SET_MEMORY_FLAGS=204
start_agent_behind_proxy 2s "$SET_MEMORY_FLAGS"

# The newest sample's time, from GetMetrics.
sampled_at() {
	agent_call GetMetrics s worker1 | awk '{ print $2 }'
}

kill -USR1 "$proxy_pid"
poll grep -q holding "$tmp/proxy.log" || fail "the proxy does not hold calls"
start=$(now_ms)
agent_call SetMemory st worker2 $((3 * GIB)) >"$tmp/stuck.out" 2>&1 &
call_pid=$!
pids="$pids $call_pid"
poll grep -q "held $SET_MEMORY_FLAGS" "$tmp/proxy.log" || fail "the change did not reach libvirtd"

# The change is stuck in libvirtd; sampling goes on.
before=$(sampled_at)
signals=$(count_in_monitor "Member=Sample")
more_samples() {
	[ "$(count_in_monitor "Member=Sample")" -ge $((signals + 3)) ]
}
poll more_samples || fail "no samples while a change was stuck"
kill -0 "$call_pid" 2>/dev/null || fail "the change was answered before the samples came"
after=$(sampled_at)
echo "with SetMemory stuck: 3 more samples, newest sample $before -> $after"
[ "$after" -gt "$before" ] || fail "GetMetrics still answers from the sample of $before"
hypervisor_available true || fail "HypervisorAvailable went false while only a change was stuck"

# A change queued behind the stuck one is answered at its timeout, not made.
expect_error HypervisorUnavailable SetVcpus su worker1 3
said "the change was not made"

status=0
wait "$call_pid" || status=$?
elapsed_ms=$(($(now_ms) - start))
echo "SetMemory answered after $elapsed_ms ms: $(cat "$tmp/stuck.out")"
[ "$status" -ne 0 ] || fail "the stuck change was answered as a success"
grep -q "the change may still take effect" "$tmp/stuck.out" || fail "the reply does not say so"
[ "$elapsed_ms" -ge 1900 ] || fail "answered before the 2 s timeout"
grep -q "SetMemory('worker2', 3G) by uid 0 (:1\.[0-9]*): outstanding, org.flexslot.Agent1.Error.HypervisorUnavailable: The hypervisor did not answer within 2s; the change may still take effect" \
	"$tmp/agent.log" || fail "the stuck change is not in the audit trail"

# libvirtd lets the call through: the change completes after its timeout,
# and the actuator takes changes again.
kill -USR1 "$proxy_pid"
poll grep -q released "$tmp/proxy.log" || fail "the proxy did not release the call"
poll grep -q "SetMemory('worker2', 3G) by uid 0 (:1\.[0-9]*): after its timeout, applied, memory 2G -> 3G" \
	"$tmp/agent.log" || {
	grep "SetMemory" "$tmp/agent.log"
	fail "the late change is not in the audit trail"
}
[ "$(agent_call SetVcpus su worker1 3)" = "uu 2 3" ] || fail "SetVcpus after the release"

stop_agent
echo "PASS"

#!/bin/sh
# flexslot-agentd while a real libvirtd stops answering in the middle of its
# work: the agent talks to a private libvirtd (serving the test driver's
# fixture host) through a proxy that the test freezes after the first
# samples. While a libvirt call is outstanding the bus must answer reads from
# the cached sample at once, a change must come back as
# Error.HypervisorUnavailable after the timeout, and when libvirtd answers
# again the agent must recover by itself, the change being made late and
# logged as such. Then libvirtd restarts, and the agent reconnects by
# itself.
# flexslot-test: vm
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/agent/lib.sh"

start_agent_behind_proxy 1s

# libvirtd stops answering; the next sample blocks in libvirt.
kill -USR1 "$proxy_pid"
poll grep -q frozen "$tmp/proxy.log" || fail "the proxy did not freeze"
poll grep -q "did not answer a sample" "$tmp/agent.log" || fail "no sample timed out"

start=$(now_ms)
domains=$(agent_call ListDomains)
metrics=$(agent_call GetMetrics s worker1)
property=$(agent_property CapacityCPUs)
elapsed_ms=$(($(now_ms) - start))
echo "with libvirt blocked: ListDomains, GetMetrics and a property in $elapsed_ms ms"
case $domains in "a(sss) 4 "*) ;; *) fail "ListDomains from the cache: $domains" ;; esac
case $metrics in *'"worker1"'*' "running" 2 4 '*) ;; *) fail "GetMetrics: $metrics" ;; esac
[ "$property" = "u 8" ] || fail "CapacityCPUs: $property"
[ "$elapsed_ms" -lt 1000 ] || fail "reads took $elapsed_ms ms while libvirt was blocked"
hypervisor_available false || fail "HypervisorAvailable is still true"

start=$(now_ms)
expect_error HypervisorUnavailable SetVcpus su worker1 3
elapsed_ms=$(($(now_ms) - start))
echo "SetVcpus answered HypervisorUnavailable after $elapsed_ms ms"
said "the change may still take effect"
[ "$elapsed_ms" -lt 5000 ] || fail "the timeout of 1 s took $elapsed_ms ms"
grep -q "SetVcpus('worker1', 3) by uid 0 (:1\.[0-9]*): outstanding, org.flexslot.Agent1.Error.HypervisorUnavailable: The hypervisor did not answer within 1s; the change may still take effect (watch the Sample signal)\. \[decision=[0-9]*" \
	"$tmp/agent.log" || fail "the request that timed out is not in the audit trail"

# libvirtd answers again: the outstanding calls finish, sampling resumes,
# and the change is made late, with a second line in the audit trail.
kill -USR1 "$proxy_pid"
poll grep -q thawed "$tmp/proxy.log" || fail "the proxy did not thaw"
poll hypervisor_available true || fail "the agent did not recover"
poll grep -q "SetVcpus('worker1', 3) by uid 0 (:1\.[0-9]*): after its timeout, applied, vcpus 2 -> 3 \[decision=[0-9]*" \
	"$tmp/agent.log" || fail "the late change is not in the audit trail"
[ "$(agent_call SetVcpus su worker1 3)" = "uu 3 3" ] || fail "SetVcpus after recovery"

# A libvirtd restart: the connection is lost, then re-made with back-off.
sh "$src/tests/vm/libvirtd.sh" stop "$libvirtd_state"
poll hypervisor_available false || fail "the lost libvirtd went unnoticed"
sh "$src/tests/vm/libvirtd.sh" start "$libvirtd_state" >/dev/null ||
	fail "the private libvirtd did not restart"
poll hypervisor_available true || fail "the agent did not reconnect to the restarted libvirtd"
grep -q "Reconnected to" "$tmp/agent.log" || fail "the reconnection was not logged"
case $(agent_call ListDomains) in "a(sss) 4 "*) ;; *) fail "ListDomains after the restart" ;; esac

stop_agent
echo "PASS"

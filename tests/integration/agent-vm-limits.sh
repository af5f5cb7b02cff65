#!/bin/sh
# A VM's own limits in its libvirt <metadata> and the balloon guard, over
# the bus, on libvirt's test driver (tests/fixtures/agent/host-limits.xml):
# a request past a VM's limit is refused with the VM and the limit named,
# one within it is applied, a VM whose limits do not parse is not changed,
# one that opts out (manage="no") is refused with NotManaged, in the
# decision journal too, and still measured, and with [agent] balloon-guard a shrink is refused because the test
# driver has no guest memory statistics, while growing goes through.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/agent/lib.sh"

GIB=1073741824

start_bus
start_monitor
cat >"$tmp/agent.ini" <<CONF
[agent]
uri = test://$src/tests/fixtures/agent/host-limits.xml
interval = 200ms
balloon-guard = yes
[host]
cpus = 16
memory = 16G
CONF
start_agent "$tmp/agent.ini"
poll has_sample || fail "no sample"

expect_error OutOfRange SetVcpus su limited 4
said "limited: vcpus 4 is outside the allowed range [1, 3], set by limited's metadata max-vcpus."
[ "$(agent_call SetVcpus su limited 3)" = "uu 2 3" ] || fail "SetVcpus limited 3"
expect_error NotPermitted SetVcpus su misconfigured 3
said "misconfigured's limits in its metadata (https://flexslot.org/xmlns/limits/1): max-vcpus: 'many' is not a valid count"
[ "$(agent_call GetMetrics s misconfigured | awk '{ print $6 }')" = 2 ] ||
	fail "misconfigured was changed"

expect_error NotManaged SetTarget "sa{sv}" unmanaged 1 vcpus u 3
said 'unmanaged is not managed: its metadata (https://flexslot.org/xmlns/limits/1) says manage="no"'
agent_call ListDecisions t 0 | grep -q '"SetTarget" "[^"]*" 0 "unmanaged" "vcpus=3" "" "refused" "org.flexslot.Agent1.Error.NotManaged"' ||
	fail "the decision journal has no NotManaged refusal: $(agent_call ListDecisions t 0)"
[ "$(agent_call GetMetrics s unmanaged | awk '{ print $5, $6 }')" = '"running" 2' ] ||
	fail "unmanaged is not measured: $(agent_call GetMetrics s unmanaged)"

expect_error GuestMemoryUnknown SetMemory st plain $((GIB / 2 + GIB / 4))
said "memory 768M is below the current 1G, and the guest reported no memory statistics"
# The test driver's domains have no QEMU process, so no cgroup: the decision
# journal says the guard went without their memory pressure.
agent_call ListDecisions t 0 | grep -q 'balloon-guard without memory.pressure (' ||
	fail "the journal does not say how the pressure was judged: $(agent_call ListDecisions t 0)"
[ "$(agent_call SetMemory st plain $((2 * GIB)))" = "tt $GIB $((2 * GIB))" ] ||
	fail "growing plain was held back"
stop_agent
echo PASS

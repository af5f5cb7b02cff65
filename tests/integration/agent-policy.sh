#!/bin/sh
# packaging/org.flexslot.Agent1.conf on a bus that, like the system bus,
# denies method calls unless a policy allows them: anyone may introspect
# and read; a caller who is neither root nor in the flexslot group is
# stopped by the bus itself before a change reaches the agent, and from the
# decision journal, which names other callers; root may
# change VMs. The agent runs with --dry-run, so it also checks that flag:
# the change is allowed and logged, and not made.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/agent/lib.sh"

start_bus system
start_monitor
cat >"$tmp/agent.ini" <<CONF
[agent]
uri = test://$src/tests/fixtures/agent/host.xml
interval = 200ms
[host]
cpus = 8
memory = 16G
CONF
start_agent "$tmp/agent.ini" --dry-run
[ "$(agent_property DryRun)" = "b true" ] || fail "--dry-run did not set DryRun"
poll has_sample || fail "no sample"

as_nobody introspect org.flexslot.Agent1 /org/flexslot/Agent1 >/dev/null ||
	fail "nobody cannot introspect"
as_nobody get-property org.flexslot.Agent1 /org/flexslot/Agent1 org.flexslot.Agent1 \
	CapacityCPUs >/dev/null || fail "nobody cannot read a property"
for call in "ListDomains" "GetMetrics s worker1" "GetAllMetrics" "GetHistory su worker1 0"; do
	# shellcheck disable=SC2086
	as_nobody call org.flexslot.Agent1 /org/flexslot/Agent1 org.flexslot.Agent1 $call \
		>/dev/null || fail "nobody cannot call $call"
done

for call in "SetVcpus su worker1 3" "SetMemory st worker1 2147483648" \
	"SetCpuWeight st worker1 512" "ListDecisions t 0"; do
	# shellcheck disable=SC2086
	if out=$(as_nobody call org.flexslot.Agent1 /org/flexslot/Agent1 org.flexslot.Agent1 \
		$call 2>&1); then
		fail "nobody could call $call"
	fi
	echo "nobody: $call -> $out"
	member=${call%% *}
	poll grep -q "ErrorMessage=\"Rejected send message.*member=\"$member\"" "$tmp/monitor.log" ||
		fail "$member was not refused by the bus itself"
done
# Nothing reached the agent: worker1 is unchanged. Root's call reaches the
# agent, which allows it and, in a dry run, leaves worker1 as it was.
[ "$(agent_call SetVcpus su worker1 3)" = "uu 2 2" ] || fail "root's dry-run SetVcpus"
grep -q "SetVcpus('worker1', 3) by uid 0 (:1\.[0-9]*): allowed, not applied (dry run), vcpus stays 2 \[decision=[0-9]*" \
	"$tmp/agent.log" || fail "the dry-run decision was not logged"

stop_agent
echo "PASS"

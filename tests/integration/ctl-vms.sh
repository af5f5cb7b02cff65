#!/bin/sh
# flexslotctl's vms and resize-vm against flexslot-controllerd and a real
# flexslot-agentd (libvirt's test driver, tests/fixtures/agent/host.xml) on
# a private bus, with a test tracker in the fixture's VM worker1: the VMs
# listed (tab and JSON), a VM resized by UUID and by node id with the
# agent's verdicts printed and whether each VM then shows its targets, and
# by whose count (a vCPU the agent saw plugged is not reached while the
# guest's tracker reports it offline; the test driver has no guest agent),
# and every refusal (the command line's, the
# controller's, the agent's) printed by name with nothing changed.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/ctl.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/agent.sh"
GIB=1073741824

# size_is DOMAIN "VCPUS MEMORY", as the agent measures it.
size_is() {
	bus call org.flexslot.Agent1 /org/flexslot/Agent1 org.flexslot.Agent1 GetMetrics s "$1" |
		awk -v want="$2" '{ exit !($6 " " $8 == want) }'
}

vms_have() {
	flexslotctl vms --no-legend | grep -q "$1"
}

start_bus
write_config
cat >>"$tmp/controller.ini" <<CONF
[agents]
hosts = $address
CONF
# Targets are judged soon after a change.
printf '[agent]\ntarget-grace = 300ms\n' >>"$tmp/agent.ini"
start_agent
start_controller
# worker1's tracker sees 2 CPUs online in its guest, whatever libvirt plugs.
"$tracker" --address "unix:path=$tmp/trackers" --token-file "$tmp/token" --hostname w1 \
	--vm-uuid "$W1" --steal 0.25 --guest "proc,2,$GIB" --beats 100000 >"$tmp/tracker.log" 2>&1 &
pids="$pids $!"
poll grep -q "^registered 1 " "$tmp/tracker.log" || fail "the tracker did not register: $(cat "$tmp/tracker.log")"

# ---- vms ----
poll vms_have "^1	$W1	worker1	" || fail "vms lacks node 1's VM: $(flexslotctl vms)"
expect_ctl 0 "" vms
head -n 1 "$tmp/out" | grep -q "^NODE	VM	NAME	AGENT	REACHABLE	STEAL_SOURCE	STEAL	VCPUS	MEMORY	SENT	APPLIED	FAILED	LAST	GUEST_CPUS	GUEST_MEMORY	VCPUS_TARGET	MEMORY_TARGET	ROLE	CPU_WEIGHT	VCPUS_TARGET_SOURCE	GUEST_AGENT_VCPUS	GUEST_AGENT$" ||
	fail "vms' header: $(cat "$tmp/out")"
grep -qF "1	$W1	worker1	$address	true	tracker	0.25	2	$GIB	0	0	0	" "$tmp/out" ||
	fail "vms' worker1: $(cat "$tmp/out")"
# worker2, which no tracker runs in, is another tenant's VM, whatever its
# targets' state.
grep -F "0	$W2	worker2	$address	true	none	0	2	$((2 * GIB))	0	0	0		0	0	" "$tmp/out" |
	grep -q "	tenant	0	[^	]*	[0-9]*	[^	]*$" || fail "vms' worker2 (another tenant's): $(cat "$tmp/out")"
grep -q "^1	$W1	.*	tracker	0	[^	]*	[0-9]*	[^	]*$" "$tmp/out" || fail "vms' worker1 is no tracker's: $(cat "$tmp/out")"
expect_ctl 0 "" vms --json
grep -qF "{\"node\": 1, \"vm\": \"$W1\", \"name\": \"worker1\", \"agent\": \"$address\", \"reachable\": true, \"steal_source\": \"tracker\", \"steal\": 0.25, \"vcpus\": 2, \"memory\": $GIB, " "$tmp/out" ||
	fail "vms --json: $(cat "$tmp/out")"
command -v python3 >/dev/null || fail "python3 is missing (packaging/deps.sh installs python3)"
python3 -m json.tool "$tmp/out" >/dev/null || fail "vms --json is not JSON: $(cat "$tmp/out")"

# ---- resize-vm: by UUID, by node id ----
expect_ctl 0 "" resize-vm "$W2" 3 3G
[ "$(cat "$tmp/out")" = "RESOURCE	VERDICT	BEFORE	AFTER	ERROR	MESSAGE
vcpus	applied	2	3		
memory	applied	$((2 * GIB))	$((3 * GIB))		" ] || fail "resize-vm worker2 printed: $(cat "$tmp/out")"
poll size_is worker2 "3 $((3 * GIB))" || fail "worker2 is not 3 vCPUs, 3G"
expect_ctl 0 "" resize-vm 1 4 0 --json --no-legend
[ "$(cat "$tmp/out")" = '[
  {"resource": "vcpus", "verdict": "applied", "before": 2, "after": 4, "error": "", "message": ""}
]' ] || fail "resize-vm 1 --json printed: $(cat "$tmp/out")"
poll size_is worker1 "4 $GIB" || fail "worker1 is not 4 vCPUs"
# Whether each VM shows its targets once the agent judged them, and whose
# count decided. The test driver has no guest agent: asked once the grace
# is over, it is "unsupported", and the hypervisor's count of vCPUs
# plugged decides. worker2, without a tracker, as the agent sees it;
# worker1's 4 vCPUs are plugged, but its tracker sees 2 online in the
# guest, so its vCPU target is not reached, by the tracker's word (and it
# had no memory target).
poll vms_have "^0	$W2	worker2	.*	reached	reached	tenant	0	hypervisor	0	unsupported$" ||
	fail "worker2's targets: $(flexslotctl vms)"
poll vms_have "^1	$W1	worker1	.*	4	$GIB	1	1	0	vcpus applied 2 -> 4	2	$GIB	unreached		tracker	0	tracker	0	unsupported$" ||
	fail "vms after the resize: $(flexslotctl vms)"
agent_metrics=$(bus call org.flexslot.Agent1 /org/flexslot/Agent1 org.flexslot.Agent1 GetMetrics s worker1)
case $agent_metrics in *' "reached" "" "hypervisor" 0 "unsupported"') ;; *) fail "the agent's view of worker1: $agent_metrics" ;; esac

# ---- refusals: the command line's, the controller's, the agent's ----
sizes() {
	flexslotctl vms --no-legend | cut -f 2,8,9
}
before=$(sizes)
expect_ctl 2 "invalid vCPUs 'x'" resize-vm "$W2" x 1G
expect_ctl 2 "invalid memory 'lots'" resize-vm "$W2" 2 lots
expect_ctl 2 "resize-vm takes the arguments VM VCPUS MEMORY" resize-vm "$W2" 2
expect_ctl 2 "resize-vm does not take --reduces" resize-vm "$W2" 2 0 --reduces 1
expect_ctl 1 "^flexslotctl: org\.flexslot\.Controller1\.Error\.InvalidArgument: Nothing to change: vcpus and memory are both 0\.$" \
	resize-vm "$W2" 0 0
expect_ctl 1 "^flexslotctl: org\.flexslot\.Controller1\.Error\.InvalidArgument: memory 1000 is not a multiple of 1024\.$" \
	resize-vm "$W2" 0 1000
expect_ctl 1 "^flexslotctl: org\.flexslot\.Controller1\.Error\.InvalidArgument: 'nosuch' is neither a node id nor a VM UUID\.$" \
	resize-vm nosuch 2 0
expect_ctl 1 "^flexslotctl: org\.flexslot\.Controller1\.Error\.NoSuchVm: No node 99\.$" resize-vm 99 2 0
expect_ctl 1 "^flexslotctl: org\.flexslot\.Agent1\.Error\.NotRunning: " resize-vm "$SPARE" 2 0
# A verdict the agent refuses: it unplugs no vCPU unless told to.
expect_ctl 1 "^flexslotctl: vcpus refused: org\.flexslot\.Agent1\.Error\.[A-Za-z]+: ." \
	resize-vm "$W2" 1 0
grep -q "^vcpus	refused	3	3	org\.flexslot\.Agent1\.Error\." "$tmp/out" ||
	fail "resize-vm's refused verdict: $(cat "$tmp/out")"
after=$(sizes)
[ "$after" = "$before" ] || fail "a refused resize-vm changed a VM: $before -> $after"
"$ctl" resize-vm --help | grep -q "VM is a tracker's node id or a VM UUID" || fail "resize-vm --help"
"$ctl" --help | grep -q "^  vms " || fail "--help does not list vms"
echo PASS

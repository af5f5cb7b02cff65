#!/bin/sh
# Real-VM test of the controller's steal: a tiny QEMU guest under a private
# libvirtd with a host CPU hog next to it, flexslot-agentd sampling it, and
# flexslot-controllerd with [agents] on the agent's bus and a test tracker
# that claims the guest's UUID and reports no steal at all. The steal the
# controller shows (ListNodes, and ListVms with its source) must be the
# agent's measure of the guest; with the agent killed it must fall back to
# the tracker's 0, and come back from a new agent by itself. libvirt's test
# driver measures no steal, so controller-agents.sh cannot show this.
# flexslot-test: vm
set -eu

# shellcheck source=tests/vm/guest-test.sh
. "${FLEXSLOT_SRCDIR:?run through make check}/tests/vm/guest-test.sh"
# shellcheck source=tests/vm/cluster.sh
. "$vm_dir/cluster.sh"
guest=flexslot-vm-controller
vmc_traps

vm_lock 300 || fail "another real-guest test held the lock for 5 minutes"
guest_test_setup
pin=$(($(getconf _NPROCESSORS_ONLN) - 1))
vm_boot "$guest" "$(vm_accel)" 128 2 1 60 "$pin" || fail "the guest did not boot within 60 s"
uuid=$(vm_virsh domuuid "$guest")

# shellcheck source=tests/lib/bus-config.sh
. "$srcdir/tests/lib/bus-config.sh"
private_bus_config "$vm_state/bus" >"$vm_state/bus.conf"
dbus-daemon --config-file="$vm_state/bus.conf" --nofork --print-address=1 \
	>"$vm_state/bus.address" 2>"$vm_state/bus.log" 9>&- &
vm_track $! dbus-daemon
vm_poll 10 test -s "$vm_state/bus.address" || fail "dbus-daemon did not start"
address="unix:path=$vm_state/bus"
bus() { busctl --address="$address" "$@"; }
ctl_call() {
	bus call org.flexslot.Controller1 /org/flexslot/Controller1 org.flexslot.Controller1 "$@"
}

cat >"$vm_state/agent.ini" <<EOF
[agent]
uri = $VM_URI
interval = 500ms
[host]
cpus = 8
memory = 8G
reserve-cpus = 0
reserve-memory = 0
EOF
start_agent() {
	"$build/bin/flexslot-agentd" --config "$vm_state/agent.ini" --address "$address" \
		>>"$vm_state/agent.log" 2>&1 9>&- &
	agent_pid=$!
	vm_track "$agent_pid" flexslot-agentd
	vm_poll 20 bus status org.flexslot.Agent1 >/dev/null 2>&1 || fail "the agent did not start"
}
start_agent

vm_controller_start "$build/bin/flexslot-controllerd" "$address" <<EOF || fail "the controller did not start"
[agents]
call-timeout = 1s
EOF
"$build/bench/flexslot-tracker-client" --address "unix:path=$vm_state/trackers" \
	--token-file "$vm_state/token" --vm-uuid "$uuid" --steal 0 --beats 100000 \
	>"$vm_state/tracker.log" 2>&1 9>&- &
vm_track $! flexslot-tracker-client

# "SOURCE STEAL" of the guest in ListVms, and the steal in ListNodes.
vm_steal() {
	ctl_call ListVms | sed 's/ \([0-9]* "[0-9a-f-]\{36\}"\)/\n\1/g' | grep -F "\"$uuid\"" |
		awk '{ print $6, $7 }'
}
node_steal() { ctl_call ListNodes | awk '{ print $(NF - 1) }'; }
# steal_from SOURCE MIN: ListVms says SOURCE with steal above MIN, and
# ListNodes shows the same steal.
steal_from() {
	s=$(vm_steal)
	echo "$s" | awk -v src="\"$1\"" -v min="$2" '{ exit !($1 == src && $2 > min) }' || return 1
	[ "$(echo "$s" | awk '{ print $2 }')" = "$(node_steal)" ]
}
steal_is_tracker_zero() { [ "$(vm_steal)" = '"tracker" 0' ] && [ "$(node_steal)" = 0 ]; }

"$vm_dir/hog.sh" start "$vm_state" "$(vm_qemu_pid "$guest")" 1 4096 "$pin" >/dev/null
vm_poll 30 steal_from agent 0.3 ||
	fail "the controller does not show the agent's steal under the hog: $(vm_steal), $(node_steal)"
echo "steal from the agent: $(vm_steal)"

kill -KILL "$agent_pid"
vm_poll 20 steal_is_tracker_zero || fail "no fallback to the tracker's steal: $(vm_steal)"
start_agent
vm_poll 30 steal_from agent 0.3 || fail "the new agent's steal is not shown: $(vm_steal)"
"$vm_dir/hog.sh" stop "$vm_state"
echo PASS

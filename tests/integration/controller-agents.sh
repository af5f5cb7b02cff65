#!/bin/sh
# flexslot-controllerd with a real flexslot-agentd (libvirt's test driver,
# tests/fixtures/agent/host.xml) on one private bus, and a test tracker in
# the fixture's VM worker1: the controller reads the VMs from the agent
# (ListVms), the flexslot VM allocator's target reaches the agent (its
# metrics and its audit trail), ResizeVm goes through the agent and refuses
# bad input by name with nothing changed, and an agent that stops answering
# or is killed leaves the heartbeats alone (the tracker is never lost), its
# VMs' steal the tracker's, ResizeVm AgentUnreachable, until a new agent is
# attached again by itself. /metrics shows what ListVms does of each VM's
# vCPU target's source and guest agent.
# The test driver gives no steal (PLATFORM.md), so the steal is the
# tracker's here throughout; check_controller_agents covers the agent's.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
# shellcheck source=tests/lib/http.sh
. "$src/tests/lib/http.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/agent.sh"
GIB=1073741824

agent_call() {
	bus call org.flexslot.Agent1 /org/flexslot/Agent1 org.flexslot.Agent1 "$@"
}

# vm_field DOMAIN N: field N of GetMetrics (after "t" and the timestamp:
# 3 name, 6 vCPUs, 8 memory).
vm_field() {
	agent_call GetMetrics s "$1" | awk -v n="$2" '{ print $n }'
}

vcpus_are() {
	[ "$(vm_field "$1" 6)" = "$2" ]
}

# size_is DOMAIN "VCPUS MEMORY"
size_is() {
	[ "$(vm_field "$1" 6) $(vm_field "$1" 8)" = "$2" ]
}

# vm_row UUID: the ListVms entry of a VM, one line.
vm_row() {
	ctl_call ListVms | sed 's/ \([0-9]* "[0-9a-f-]\{36\}"\)/\n\1/g' | grep -F "\"$1\""
}

row_has() {
	vm_row "$1" | grep -qF -- "$2"
}

node_steal() {
	ctl_call ListNodes | awk '{ print $(NF - 1) }'
}

tracker_alive() {
	kill -0 "$tracker_pid" 2>/dev/null || fail "the tracker stopped: $(cat "$tmp/tracker.log")"
	ctl_call ListNodes | grep -q '"alive"' || fail "the tracker was lost: $(ctl_call ListNodes)"
}

start_bus
write_config
cat >>"$tmp/controller.ini" <<CONF
[policy]
vm-allocator = flexslot
min_vm_memory = 512M
[agents]
hosts = $address
call-timeout = 1s
max-sample-age = 1s
[metrics]
listen = 127.0.0.1:0
CONF

# ---- [agents] hosts is checked when the file loads ----
sed "s|^hosts = .*|hosts = local ssh:|" "$tmp/controller.ini" >"$tmp/bad.ini"
refused_at "$tmp/bad.ini" hosts "[agents] hosts: 'ssh:' is not ssh:[USER@]HOST"

# ---- [policy] holds the layers' parameters, checked when the file loads ----
sed "s|^min_vm_memory = .*|&\nslot-manager = flexslot\nmin_map_slots = 5\nmax_map_slots = 4|" \
	"$tmp/controller.ini" >"$tmp/bad-policy.ini"
refused_at "$tmp/bad-policy.ini" min_map_slots "[policy] min_map_slots: 5 is greater than max_map_slots 4"
sed "s|^min_vm_memory = .*|&\nlamda = 0.5|" "$tmp/controller.ini" >"$tmp/bad-policy.ini"
refused_at "$tmp/bad-policy.ini" lamda "[policy] lamda: unknown key"

# The targets judged soon, for the metrics below.
printf '[agent]\ntarget-grace = 200ms\n' >>"$tmp/agent.ini"
start_agent
start_controller
"$tracker" --address "unix:path=$tmp/trackers" --token-file "$tmp/token" --hostname w1 \
	--vm-uuid "$W1" --steal 0.25 --map-slots 3 --reduce-slots 1 --beats 100000 \
	>"$tmp/tracker.log" 2>&1 &
tracker_pid=$!
pids="$pids $tracker_pid"
poll grep -q "^registered 1 " "$tmp/tracker.log" || fail "the tracker did not register: $(cat "$tmp/tracker.log")"

# ---- the VMs as the agent sees them; steal from the tracker ----
poll row_has "$W2" '"worker2"' || fail "ListVms lacks worker2: $(ctl_call ListVms)"
poll row_has "$W1" '1 "11111111' || fail "worker1 is not node 1's VM: $(ctl_call ListVms)"
row_has "$W1" "\"worker1\" \"$address\" true \"tracker\" 0.25" ||
	fail "worker1's steal is not the tracker's: $(vm_row "$W1")"
[ "$(node_steal)" = 0.25 ] || fail "ListNodes: $(ctl_call ListNodes)"

# ---- the flexslot allocator's target reaches the agent ----
# Three map slots want three vCPUs; worker1 has 2 of 4.
poll vcpus_are worker1 3 || fail "worker1 did not get 3 vCPUs: $(vm_field worker1 6)"
grep -q "SetTarget('$W1', vcpus=3, memory=[0-9.]*[MG]) by uid 0 " "$tmp/agent.log" ||
	fail "the agent's audit trail lacks the target: $(grep SetTarget "$tmp/agent.log")"
poll row_has "$W1" 'vcpus applied 2 -> 3' || fail "ListVms: $(vm_row "$W1")"
grep -q "VM $W1 on agent .*: vcpus applied 2 -> 3" "$tmp/controller.log" ||
	fail "the controller did not log what was applied"

# ---- /metrics says what ListVms does of the vCPU target and guest agent ----
# vm_sample NAME UUID DOMAIN LABELS VALUE: the VM's sample of NAME, with
# LABELS after its own, is VALUE; it has none when VALUE is empty.
vm_sample() {
	if [ -n "$5" ]; then
		grep -qxF "$1{vm=\"$2\",domain=\"$3\",agent=\"$address\"$4} $5" "$tmp/m"
	else
		! grep -q "^$1{vm=\"$2\"" "$tmp/m"
	fi
}
# metrics_match UUID DOMAIN: /metrics says what ListVms does of the VM's
# vCPU target and guest agent, or why says what differs. The two are read
# one after the other, and the agent may settle the guest agent's state in
# between: a caller polls.
metrics_match() {
	scrape "$port" >"$tmp/m"
	exposition_ok "$tmp/m" || {
		why="lines not in the exposition format"
		return 1
	}
	# ListVms' last three: vcpus_target_source, guest_agent_vcpus, guest_agent.
	row=$(vm_row "$1")
	source=$(echo "$row" | awk '{ gsub(/"/, "", $(NF - 2)); print $(NF - 2) }')
	count=$(echo "$row" | awk '{ print $(NF - 1) }')
	guest=$(echo "$row" | awk '{ gsub(/"/, "", $NF); print $NF }')
	why="$2's target source is not '$source': $(grep "\"$1\"" "$tmp/m")"
	vm_sample flexslot_controller_vm_vcpus_target_source "$1" "$2" ",source=\"$source\"" \
		"${source:+1}" || return 1
	why="$2's guest agent is not '$guest': $(grep "\"$1\"" "$tmp/m")"
	vm_sample flexslot_controller_vm_guest_agent "$1" "$2" ",state=\"$guest\"" "${guest:+1}" ||
		return 1
	[ "$count" -gt 0 ] || count=
	why="$2's guest agent count is not '$count': $(grep "\"$1\"" "$tmp/m")"
	vm_sample flexslot_controller_vm_guest_agent_vcpus "$1" "$2" "" "$count"
}
# metrics_as_listed UUID DOMAIN
metrics_as_listed() {
	poll metrics_match "$1" "$2" || fail "$why"
	echo "$2: vCPU target's source '$source', guest agent '$guest' (${count:-0} vCPUs)"
}
port=$(metrics_port "$tmp/controller.log")
[ -n "$port" ] || fail "no metrics port logged"
# The agent judges the target after its grace.
poll row_has "$W1" '"hypervisor"' || fail "worker1's target was not judged: $(vm_row "$W1")"
metrics_as_listed "$W1" worker1
metrics_as_listed "$W2" worker2

# ---- ResizeVm ----
out=$(ctl_call ResizeVm sut "$W2" 3 $((3 * GIB)))
echo "ResizeVm worker2: $out"
case $out in
*'"vcpus" "applied" u 2 u 3 "" "" "memory" "applied" t '*) ;;
*) fail "ResizeVm worker2 answered $out" ;;
esac
poll size_is worker2 "3 $((3 * GIB))" ||
	fail "worker2 is not 3 vCPUs, 3G: $(agent_call GetMetrics s worker2)"
# By node id: node 1 is worker1, 3 -> 4 vCPUs.
ctl_call ResizeVm sut 1 4 0 | grep -q '"vcpus" "applied" u 3 u 4 "" ""' ||
	fail "ResizeVm 1 4 0"
poll vcpus_are worker1 4 || fail "worker1 did not get 4 vCPUs"

sizes() {
	for d in worker1 worker2 worker3 spare; do
		printf '%s ' "$(vm_field $d 6) $(vm_field $d 8)"
	done
}
sizes_before=$(sizes)
expect_error InvalidArgument ResizeVm sut "$W2" 0 0
expect_error InvalidArgument ResizeVm sut "$W2" 0 1000
expect_error InvalidArgument ResizeVm sut nosuch 2 0
expect_error NoSuchVm ResizeVm sut 99 2 0
expect_error NoSuchVm ResizeVm sut 55555555-5555-5555-5555-555555555555 2 0
# The agent's own refusal comes back by its name.
expect_error org.flexslot.Agent1.Error.NotRunning ResizeVm sut "$SPARE" 2 0
after=$(sizes)
[ "$after" = "$sizes_before" ] || fail "a refused ResizeVm changed a VM: $sizes_before -> $after"

# ---- an agent that does not answer holds up no heartbeat ----
# Its calls time out after 1s, twice the lost-timeout: a controller that
# waited for them would lose the tracker.
kill -STOP "$agent_pid"
poll row_has "$W1" "\"$address\" false" || fail "the stopped agent is still reachable"
grep -q "Agent $address cannot be reached (org.freedesktop.DBus.Error.NoReply" \
	"$tmp/controller.log" || fail "no warning for the silent agent"
tracker_alive
[ "$(node_steal)" = 0.25 ] || fail "ListNodes after the agent stopped: $(ctl_call ListNodes)"
kill -CONT "$agent_pid"
poll row_has "$W1" "\"$address\" true" || fail "the agent did not come back"

# ---- an agent killed, then started again ----
kill -KILL "$agent_pid"
wait "$agent_pid" 2>/dev/null || true
poll row_has "$W1" "\"$address\" false" || fail "the killed agent is still reachable"
tracker_alive
row_has "$W1" '"tracker" 0.25' || fail "worker1's steal after the kill: $(vm_row "$W1")"
expect_error AgentUnreachable ResizeVm sut "$W2" 2 0
# A new agent starts from the fixture (worker1 at 2 vCPUs) and the
# controller sends its target again.
start_agent
poll row_has "$W1" "\"$address\" true" || fail "the new agent was not attached"
poll vcpus_are worker1 3 || fail "the target did not reach the new agent: $(vm_field worker1 6)"
tracker_alive

kill -TERM "$controller_pid"
status=0
wait "$controller_pid" || status=$?
[ "$status" -eq 0 ] || fail "the controller exited with status $status"
echo PASS

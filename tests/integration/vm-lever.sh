#!/bin/sh
# Real-VM test of the one loop's lever, read back from libvirt: two tiny
# QEMU guests under a private libvirtd, flexslot-agentd on it offering its
# VMs one CPU (so that they contend), and flexslot-controllerd with
# [policy] scheduler = aria and slo_lever = yes. A test tracker claims the
# first guest's UUID; the second, a busy loop inside, is no tracker's:
# another tenant's. A job run once leaves its ARIA profile; run again due 2
# s after its submission on a tracker that holds its tasks, it is forecast
# late, and the controller's weight targets reach libvirt: the tracker's
# guest's cpu_shares rise to 2048 (its one vCPU entitled to the whole CPU)
# and the tenant's fall to the agent's min-cpu-weight, 128 (the lever asks
# less; the agent's limits hold it). Cancelled, the job no longer runs
# late, and both go back to 1024 (asked until the agent's min-interval,
# here 2 s, lets them). A third job, late as well, takes the weights
# again; the controller stopped (SIGTERM), it gives both back before it
# exits. libvirt's test driver stores no CPU weight, so
# controller-lever.sh cannot show this.
# flexslot-test: vm
set -eu

# shellcheck source=tests/vm/guest-test.sh
. "${FLEXSLOT_SRCDIR:?run through make check}/tests/vm/guest-test.sh"
# shellcheck source=tests/vm/cluster.sh
. "$vm_dir/cluster.sh"
vmc_traps

vm_lock 300 || fail "another real-guest test held the lock for 5 minutes"
guest_test_setup
pin=$(($(getconf _NPROCESSORS_ONLN) - 1))
vm_boot flexslot-vm-lever-w "$(vm_accel)" 128 1 0 60 "$pin" || fail "the tracker's guest did not boot"
vm_boot flexslot-vm-lever-t "$(vm_accel)" 128 1 1 60 "$pin" || fail "the tenant's guest did not boot"
w=$(vm_virsh domuuid flexslot-vm-lever-w)
t=$(vm_virsh domuuid flexslot-vm-lever-t)

vm_agent_start "$build/bin/flexslot-agentd" 500ms <<EOF || fail "the agent did not start"
[host]
cpus = 1
memory = 4G
[limits]
min-interval = 2s
EOF
address=$VM_BUS_ADDRESS
bus() { busctl --address="$address" "$@"; }
ctl_call() {
	bus call org.flexslot.Controller1 /org/flexslot/Controller1 org.flexslot.Controller1 "$@"
}

vm_controller_start "$build/bin/flexslot-controllerd" "$address" <<EOF || fail "the controller did not start"
[agents]
call-timeout = 2s
[policy]
scheduler = aria
slo_lever = yes
EOF
controller=$VM_CONTROLLER_PID
mkdir -p "$vm_state/data/in"
for f in a b; do
	echo "a line of input" >"$vm_state/data/in/$f"
done
tracker() {
	"$build/bench/flexslot-tracker-client" --address "unix:path=$vm_state/trackers" \
		--token-file "$vm_state/token" --hostname w --vm-uuid "$w" "$@"
}
job_state() { ctl_call GetJob t "$1" | awk '{ print $3 }'; }
# shares_are W T: the guests' cpu_shares as libvirt holds them.
shares_of() {
	vm_virsh schedinfo "$1" --live | awk -F': *' '$1 ~ /^cpu_shares/ { print $2 }'
}
shares_are() {
	[ "$(shares_of flexslot-vm-lever-w) $(shares_of flexslot-vm-lever-t)" = "$1 $2" ]
}
shares_are 1024 1024 || fail "the guests do not start at 1024: $(shares_of flexslot-vm-lever-w) $(shares_of flexslot-vm-lever-t)"
tenant_listed() { ctl_call ListVms | grep -qF "\"$t\" \"flexslot-vm-lever-t\""; }
vm_poll 20 tenant_listed || fail "the controller does not list the tenant's VM: $(ctl_call ListVms)"

# A first run leaves the job's profile.
[ "$(ctl_call SubmitJob ssssasutsss wordcount "" "" "" 2 in/a in/b 1 0 default root wc)" = "t 1" ] ||
	fail "the first job is not job 1"
tracker --beats 40 >"$vm_state/first.log" 2>&1 9>&- || fail "the first run: $(cat "$vm_state/first.log")"
[ "$(job_state 1)" = '"succeeded"' ] || fail "job 1 did not succeed: $(ctl_call GetJob t 1)"

# The second, due in 2 s and held: late.
deadline=$(($(date +%s%N) / 1000 + 2000000))
[ "$(ctl_call SubmitJob ssssasutsss wordcount "" "" "" 2 in/a in/b 1 "$deadline" default root wc)" = "t 2" ] ||
	fail "the second job is not job 2"
tracker --mode hold --beats 100000 >"$vm_state/hold.log" 2>&1 9>&- &
vm_track $! flexslot-tracker-client
vm_poll 60 shares_are 2048 128 ||
	fail "the lever's weights did not reach libvirt: $(shares_of flexslot-vm-lever-w) $(shares_of flexslot-vm-lever-t); $(grep 'Lever\|cpu-weight' "$vm_state/controller.log" "$vm_state/agent.log" | tail -n 8)"
echo "late: the tracker's guest at 2048, the tenant's at 128"

ctl_call CancelJob t 2 >/dev/null || fail "CancelJob 2"
vm_poll 60 shares_are 1024 1024 ||
	fail "the weights did not come back: $(shares_of flexslot-vm-lever-w) $(shares_of flexslot-vm-lever-t); $(grep 'Lever\|cpu-weight' "$vm_state/controller.log" "$vm_state/agent.log" | tail -n 8)"
echo "cancelled: both back at 1024"

deadline=$(($(date +%s%N) / 1000 + 2000000))
[ "$(ctl_call SubmitJob ssssasutsss wordcount "" "" "" 2 in/a in/b 1 "$deadline" default root wc)" = "t 3" ] ||
	fail "the third job is not job 3"
vm_poll 60 shares_are 2048 128 ||
	fail "job 3's weights did not reach libvirt: $(shares_of flexslot-vm-lever-w) $(shares_of flexslot-vm-lever-t)"
# The agent's min-interval since those changes, within which it would
# refuse the give-back (the controller then warns of each VM it leaves).
sleep 3
kill -TERM "$controller"
wait "$controller" || fail "the controller failed as it stopped: $(tail -n 5 "$vm_state/controller.log")"
shares_are 1024 1024 ||
	fail "the stopped controller left the weights: $(shares_of flexslot-vm-lever-w) $(shares_of flexslot-vm-lever-t); $(grep 'Lever\|on agent' "$vm_state/controller.log" | tail -n 4)"
echo "stopped: both back at 1024"
echo PASS

#!/bin/sh
# The one loop's lever in the live controller: flexslot-controllerd with
# [policy] scheduler = aria and slo_lever = yes, a real flexslot-agentd
# (libvirt's test driver, tests/fixtures/agent/host.xml, its host given 3
# CPUs so that its running VMs contend) on a private bus, and a test tracker
# in the fixture's VM worker1. The other running domains, worker2 and
# worker3, are no tracker's: the controller lists them as another tenant's
# (ListVms, flexslotctl vms) and its policy step sees them. A job run once
# leaves its ARIA profile; run again with a deadline 2 s away on a tracker
# that holds its tasks, it is forecast late: its quota is kept (GetJob,
# flexslotctl show), and the lever gives worker1 CPU weight taken from the
# tenant's VMs (2048 against 512 each, the host's 3 CPUs split so that
# worker1's 2 vCPUs run whole); cancelled, the job is late no more and
# every weight goes back to 1024. libvirt's test driver has no CPU weight
# (its "fair" scheduler answers a constant weight and stores none), so the
# agent reports none and the controller sends it none: the weights are read
# from the controller's log here; tests/integration/vm-lever.sh reads the
# weights given and given back from a real libvirtd, and check_slo_loop
# has a give-back asked again until the VM reports it.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/ctl.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/agent.sh"

start_bus
write_config
# ARIA's profile needs the job's input: a line in each split.
for f in a b; do
	echo "a line of input" >"$tmp/data/in/$f"
done
cat >>"$tmp/controller.ini" <<CONF
[policy]
scheduler = aria
slo_lever = yes
[agents]
hosts = $address
CONF
sed -i 's/^cpus = .*/cpus = 3/' "$tmp/agent.ini"
start_agent
start_controller

# lever VM FROM TO [JOB]: the controller logged the lever's weight for VM.
lever() {
	grep -q "Lever: VM $1 (.*) CPU weight $2 -> $3${4:+ for job $4, forecast late}$" \
		"$tmp/controller.log"
}

# ---- other tenants' VMs, listed as such ----
# listed_as UUID NAME ROLE: flexslotctl vms lists the VM in that role.
listed_as() {
	flexslotctl vms --no-legend | grep -q "^[0-9]*	$1	$2	.*	$3	0	[^	]*	[0-9]*	[^	]*$"
}
poll listed_as "$W2" worker2 tenant || fail "worker2 is not another tenant's: $(flexslotctl vms)"
listed_as "$W3" worker3 tenant || fail "worker3 is not another tenant's: $(flexslotctl vms)"
listed_as "$SPARE" spare none ||
	fail "spare, which does not run, is listed as a tenant's: $(flexslotctl vms)"

# ---- a first run leaves the job's profile ----
[ "$(ctl_call SubmitJob ssssasutsss wordcount "" "" "" 2 in/a in/b 1 0 default alice wc)" = "t 1" ] ||
	fail "the first job is not job 1"
run_tracker "$tmp/first.log" --token-file "$tmp/token" --hostname w1 --vm-uuid "$W1" --beats 20 ||
	fail "the first run's tracker: $(cat "$tmp/first.log")"
[ "$(job_state 1)" = '"succeeded"' ] || fail "job 1 did not succeed: $(ctl_call GetJob t 1)"
ctl_call ListProfiles | grep -q '"alice" "wc" 1 ' || fail "no profile: $(ctl_call ListProfiles)"
! grep -q "Lever: " "$tmp/controller.log" || fail "the lever acted without a deadline job"

# ---- the second run, forecast late: weight to worker1 from the tenant's ----
deadline=$(($(date +%s%N) / 1000 + 2000000))
[ "$(ctl_call SubmitJob ssssasutsss wordcount "" "" "" 2 in/a in/b 1 "$deadline" default alice wc)" = "t 2" ] ||
	fail "the second job is not job 2"
"$tracker" --address "unix:path=$tmp/trackers" --token-file "$tmp/token" --hostname w1 \
	--vm-uuid "$W1" --mode hold --beats 100000 >"$tmp/hold.log" 2>&1 &
pids="$pids $!"
poll grep -q "^assign 2 map " "$tmp/hold.log" || fail "job 2 did not start: $(cat "$tmp/hold.log")"
# GetJob's quota: ARIA holds the job to its slots (at least one map).
quota=$(ctl_call GetJob t 2 | awk '{ print $(NF - 1) }')
[ "$quota" -ge 1 ] || fail "job 2 has no map quota: $(ctl_call GetJob t 2)"
flexslotctl show 2 --json >"$tmp/show" || fail "flexslotctl show 2: $(cat "$tmp/show")"
grep -q "\"map_quota\": $quota," "$tmp/show" || fail "show lacks the quota: $(cat "$tmp/show")"
poll lever "$W1" 1024 2048 2 || fail "worker1 got no weight: $(grep Lever "$tmp/controller.log")"
lever "$W2" 1024 512 || fail "worker2 gave no weight: $(grep Lever "$tmp/controller.log")"
lever "$W3" 1024 512 || fail "worker3 gave no weight: $(grep Lever "$tmp/controller.log")"
grep -q "Lever: VM $W2 (another tenant's)" "$tmp/controller.log" ||
	fail "worker2 is not named another tenant's: $(grep Lever "$tmp/controller.log")"

# ---- cancelled, job 2 is late no more: the weights go back ----
ctl_call CancelJob t 2 >/dev/null || fail "CancelJob 2"
poll lever "$W1" 2048 1024 || fail "worker1 kept its weight: $(grep Lever "$tmp/controller.log")"
lever "$W2" 512 1024 || fail "worker2 did not get its weight back: $(grep Lever "$tmp/controller.log")"
lever "$W3" 512 1024 || fail "worker3 did not get its weight back: $(grep Lever "$tmp/controller.log")"
# The test driver reports no weight: none is sent.
! grep -q "cpu-weight" "$tmp/agent.log" || fail "a weight reached the agent: $(grep cpu-weight "$tmp/agent.log")"

echo PASS

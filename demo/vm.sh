#!/bin/sh
# `make demo-vm`: flexslot on real QEMU guests (tests/vm/cluster.sh). A
# private libvirtd runs three guests, each with a flexslot-tracker that
# registers by its SMBIOS UUID with flexslot-controllerd on this machine;
# flexslot-agentd samples and resizes them through libvirt. A CPU hog in a
# sibling cgroup of the first guest's, on the host CPU its vCPU is pinned
# to, makes that guest the starved one. Wordcount runs over a skewed
# dataset twice, stock (static slots, no VM allocator) and then with
# FlexSlot and the flexslot VM allocator, each on a fresh controller and
# store. Progress every 5 s; at the end of each run its completion time,
# each guest's steal as the agent measured it, the maps each guest ran,
# what the controller logged it did (stragglers, kills, slot moves, VM
# targets sent and answered), each guest's size as libvirt and as its
# tracker read it, and the output checked against tr | sort | uniq -c.
# Everything started here is stopped by PID on exit, Ctrl-C included.
#
# Environment: DEMO_SIZE (default 30: about 33 MiB of text) scales the
# dataset; KEEP_TMP=1 keeps the state directory (consoles, logs, data).
set -eu
build=${FLEXSLOT_BUILD:?set by make demo-vm}
src=${FLEXSLOT_SRCDIR:?set by make demo-vm}
size=${DEMO_SIZE:-30}
case $size in
'' | *[!0-9]* | 0*)
	echo "demo-vm: DEMO_SIZE '$size' is not a positive integer" >&2
	exit 2
	;;
esac
demo="demo-vm"
# shellcheck source=demo/guest-demo.sh
. "$src/demo/guest-demo.sh"

guests="fs-vm1 fs-vm2 fs-vm3"
data=""
t_demo=$(vm_now_ms)

echo "== waiting for other real-guest runs on this machine, if any"
vm_lock 900 || cannot "another real-guest run held the lock for 15 minutes"

echo "== guest image, private libvirtd, bus, flexslot-agentd"
VMC_AGENT_INTERVAL=1s
VMC_BLOCK_SIZE=4M
VMC_LOST_TIMEOUT=20s
export VMC_AGENT_INTERVAL VMC_BLOCK_SIZE VMC_LOST_TIMEOUT
t0=$(vm_now_ms)
vmc_setup "$build" || cannot "cannot start the cluster's host side (see the messages above)"
echo "   ready in $(secs $(($(vm_now_ms) - t0))) s"
data=$VMC_DATA

echo "== dataset (DEMO_SIZE=$size)"
inputs=$(demo_dataset "$data" "$size" "$vm_state/expected")
echo "   $(echo "$inputs" | wc -w) files, $(du -sk "$data/in" | cut -f1) KiB, $(wc -l <"$vm_state/expected") distinct words"

# The thresholds of Hadoop and FlexSlot are made for maps of a minute or
# more on real hardware: Hadoop starts no backup before a map ran 60 s,
# FlexSlot judges no map younger than 30 s and moves no slot within 15 s of
# the last move. Maps here last seconds (about 2 s for a 4M split in an
# idle guest under TCG, 10-30 s in the starved guest), so these are scaled
# down, by about the same factor, for both runs alike.
spec="speculation = hadoop
		spec_min_runtime = 8s
		late_min_runtime = 8s"
flexslot_scaled="min_age = 4s
		settle = 5s
		new_task_window = 8s
		min_vm_memory = 192M"
echo "== scaled to maps of seconds (TCG): spec_min_runtime 60s -> 8s;"
echo "   FlexSlot min_age 30s -> 4s, settle 15s -> 5s, new_task_window 60s -> 8s"

echo "== three guests: 1 of 2 vCPUs online, 384 MiB, 2 map slots and 1 reduce slot of 96M"
cpus=$(getconf _NPROCESSORS_ONLN)
hog_cpu=$((cpus - 1))
other_cpu=0
[ "$cpus" -gt 1 ] || other_cpu=$hog_cpu
vmc_controller_start boot "slot-manager = static" || cannot "the controller did not start"
t0=$(vm_now_ms)
vmc_guest_start fs-vm1 1 2 384 2 1 96M "$hog_cpu" || cannot "cannot create fs-vm1"
vmc_guest_start fs-vm2 1 2 384 2 1 96M "$other_cpu" || cannot "cannot create fs-vm2"
vmc_guest_start fs-vm3 1 2 384 2 1 96M "$other_cpu" || cannot "cannot create fs-vm3"
# shellcheck disable=SC2086 # the names
vmc_wait_registered 180 $guests || cannot "the trackers did not register"
echo "   all three registered $(secs $(($(vm_now_ms) - t0))) s after create, each by its domain's UUID:"
for g in $guests; do
	echo "   $g  $(vm_virsh domuuid "$g")  node $(vmc_node "$g" | cut -d' ' -f1)"
done
vmc_controller_stop

echo "== a CPU hog next to fs-vm1: a sibling cgroup under /machine, pinned to host CPU $hog_cpu"
"$vm_dir/hog.sh" start "$vm_state" "$(vm_qemu_pid fs-vm1)" 1 4096 "$hog_cpu" >/dev/null ||
	cannot "cannot start the hog"

# The VMs' UUIDs, for reading ListVms.
for g in $guests; do
	eval "uuid_${g#fs-}=$(vm_virsh domuuid "$g")"
done
uuid_of() { eval "echo \$uuid_${1#fs-}"; }

# progress MS STATE MAPS MAPS_DONE REDUCES REDUCES_DONE: one line, and the
# guests' steal summed for the means.
progress() {
	_line=""
	vmc_ctl vms --no-legend >"$vm_state/vms" 2>/dev/null || true
	for g in $guests; do
		_s=$(awk -F'\t' -v u="$(uuid_of "$g")" '$2 == u { printf "%.2f", $7 }' "$vm_state/vms")
		_line="$_line ${g#fs-} ${_s:-?}"
		[ -z "$_s" ] || echo "$g $_s" >>"$vm_state/steal-$run"
	done
	printf '   [%5s s] maps %s/%s reduces %s/%s | steal%s\n' "$(secs "$1")" "$4" "$3" "$6" "$5" "$_line"
}

# run NAME POLICY_LINES: a fresh controller, one wordcount job, its report.
run() {
	run=$1
	: >"$vm_state/steal-$run"
	vmc_controller_start "$run" "$2" || cannot "the controller did not start"
	for g in $guests; do
		vm_poll 60 vmc_registered "$g" || cannot "$g's tracker did not come back"
	done
	log="$vm_state/controller-$run.log"
	# shellcheck disable=SC2086 # the inputs, one argument each
	job=$(vmc_ctl submit --app=wordcount --reduces=2 --name="wc-$run" $inputs) ||
		cannot "the job was refused"
	vmc_job_wait "$job" 1200 progress || cannot "run $run: job $job $VMC_JOB_STATE"
	eval "time_$run=$VMC_JOB_MS"
	sort "$data/out/$job"/part-* >"$vm_state/out-$run"
	if cmp -s "$vm_state/out-$run" "$vm_state/expected"; then
		verdict="verified against tr | sort | uniq -c"
	else
		cannot "run $run: the output differs from tr | sort | uniq -c"
	fi
	echo "   completion time   $(secs "$VMC_JOB_MS") s"
	echo "   output            $verdict"
	vmc_ctl vms --no-legend >"$vm_state/vms"
	echo "   guest   steal (agent, mean)  maps started  vCPUs libvirt/guest  memory libvirt/guest"
	for g in $guests; do
		u=$(uuid_of "$g")
		node=$(vmc_node "$g" | cut -d' ' -f1)
		steal=$(awk -v g="$g" '$1 == g { s += $2; n++ } END { if (n) printf "%.2f", s / n; else print "?" }' \
			"$vm_state/steal-$run")
		maps=$(grep -c "Tracker $node: attempt [0-9]* of job $job map " "$log" || true)
		virt_cpus=$(vm_domstat "$g" vcpu.current)
		virt_mem=$(($(vm_domstat "$g" balloon.current) / 1024))
		guest=$(awk -F'\t' -v u="$u" '$2 == u { printf "%s %d", $14, $15 / 1048576 }' "$vm_state/vms")
		printf '   %-7s %-20s %-13s %-20s %s\n' "$g" "$steal" "$maps" \
			"$virt_cpus/${guest%% *}" "${virt_mem}M/${guest#* }M"
	done
	stragglers=$(sed -n 's/.*Straggler: attempt \([0-9]*\) .*/\1/p' "$log" | sort -u | wc -l)
	kills=$(grep -c 'Kill: attempt' "$log" || true)
	moves=$(grep -c 'Slots: tracker' "$log" || true)
	sent=$(grep -c 'VM .* (node [0-9]*) on agent .*: target ' "$log" || true)
	answered=$(grep -c 'VM [0-9a-f-]* on agent [^ ]*: [a-z-]* ' "$log" || true)
	echo "   stragglers found  $stragglers"
	echo "   kills             $kills"
	echo "   slot moves        $moves"
	echo "   VM targets sent   $sent (answered: $answered)"
	# The first of each kind, without the log's prefix and the agent's address.
	for what in 'Kill: attempt' 'Slots: tracker' 'VM [0-9a-f-]* (node [0-9]*) on agent .*: target ' \
		'VM [0-9a-f-]* on agent [^ ]*: [a-z-]* '; do
		grep -h "$what" "$log" | head -4
	done | sed 's/^.*: \(info\|warning\): [a-z_]*: /     /; s/ on agent [^ ]*:/:/'
	# What the guests' trackers saw of the targets.
	for g in $guests; do
		vmc_tracker_log "$g" | sed -n 's/^\(\[[0-9.]*\]\) .* Guest: /Guest: /p' | uniq |
			tail -n +2 | sed "s/^/     $g (its tracker): /"
	done
	eval "acted_$run=$((kills + moves + sent))"
	eval "stragglers_$run=$stragglers"
	rm -rf "${data:?}/out"
	vmc_controller_stop
}

echo "== run stock: slot-manager static, vm-allocator none"
run stock "slot-manager = static
		vm-allocator = none
		$spec"
echo "== run flexslot: slot-manager flexslot, vm-allocator flexslot"
run flexslot "slot-manager = flexslot
		vm-allocator = flexslot
		$spec
		$flexslot_scaled"

# shellcheck disable=SC2154 # set by run through eval
{
	echo "== summary"
	echo "stock $(secs "$time_stock") s, flexslot $(secs "$time_flexslot") s (ratio $(awk -v a="$time_flexslot" -v b="$time_stock" 'BEGIN { printf "%.2f", a / b }')); both outputs verified"
	if [ "$acted_flexslot" -eq 0 ]; then
		echo "FlexSlot changed nothing ($stragglers_flexslot stragglers found): the difference is noise."
	else
		echo "FlexSlot acted $acted_flexslot times (kills, slot moves, VM targets above)."
	fi
}
echo "One run each on a shared 2-core machine under TCG: a demonstration, not a"
echo "measurement. TCG gives the guests no steal clock (their /proc/stat steal is"
echo "0), so the steal above is the agent's (libvirt's vcpu.N.delay); vCPUs are"
echo "only ever added (unplug is unreliable under TCG)."
echo "demo-vm: $(secs $(($(vm_now_ms) - t_demo))) s in all"

#!/bin/sh
# FlexSlot's slot move (Algorithm 2), decided by the policy on measured
# steal, carried out on a real YARN: a NodeManager's capacity changes in
# the ResourceManager, and the controller's log says why.
#
# The mapping, plainly: Hadoop's mini cluster (tests/yarn/lib.sh) runs its
# two NodeManagers in one JVM on this host; [yarn] nodes maps each to a
# real QEMU guest under a private libvirtd (tests/vm/lib.sh), sampled by
# flexslot-agentd, as the VM it would run in. Guest "starved" (NodeManager
# 0's) busy-loops on a host CPU it shares with a hog of four times its
# weight (tests/vm/hog.sh), and its steal is libvirt's vcpu.N.delay; guest
# "idle" (NodeManager 1's) runs nothing and has little. NodeManager 0's
# containers do not run in its guest: so that its tasks meet the contention
# its guest's steal measures, its mapper moves itself beside the guest and
# the hog, onto their host CPU, in a cgroup of the guest's CPU weight.
#
# A streaming wordcount whose maps all do the same CPU work per word then
# runs its maps on NodeManager 0 slowly: FlexSlot's k-means on the
# application masters' progress finds them stragglers, CPU-bound by their
# node's steal, and Algorithm 2 moves a slot from the node of least steal
# to theirs. In YARN that is NodeManager 1's capacity down by a container,
# which the ResourceManager's REST shows; NodeManager 0 stays at what it
# registered with, which the controller never exceeds, and the log says
# so. Nothing here sets a capacity or a steal by hand.
# flexslot-test: vm
# flexslot-test: yarn
# flexslot-test: plain
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
. "$src/tests/lib/dataset.sh"
. "$src/tests/yarn/lib.sh"
command -v python3 >/dev/null || skip "no python3 to read YARN's JSON"
[ "$(id -u)" -eq 0 ] || skip "needs root to run libvirtd and QEMU guests"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 is not installed"
command -v libvirtd >/dev/null || skip "libvirtd is not installed"
test_started=$(date +%s)

yarn_prepare
vm_dir="$src/tests/vm"
vm_state=$(mktemp -d /tmp/flexslot-vm.XXXXXX)
# shellcheck disable=SC1091 # tests/vm/lib.sh, checked on its own
. "$vm_dir/lib.sh"
starved_cg=""
finish() {
	yarn_stop
	if [ -n "$starved_cg" ]; then
		# What is left of NodeManager 0's mappers, which only this test
		# puts there.
		while read -r p; do
			kill -9 "$p" 2>/dev/null || true
		done <"$starved_cg/cgroup.procs"
		rmdir "$starved_cg" 2>/dev/null || true
	fi
	vm_teardown 2>/dev/null
	rm -rf "$vm_state"
	cleanup
}
trap finish EXIT

vm_lock 300 || fail "another real-guest test held the lock for 5 minutes"
vm_setup || {
	[ $? -eq 1 ] && skip "libvirtd does not start here"
	fail "cannot build the test guest"
}
pin=$(($(getconf _NPROCESSORS_ONLN) - 1))
vm_boot starved "$(vm_accel)" 128 2 1 60 "$pin" || fail "guest starved did not boot within 60 s"
vm_boot idle "$(vm_accel)" 128 2 0 60 || fail "guest idle did not boot within 60 s"
vm_agent_start "$build/bin/flexslot-agentd" 500ms </dev/null ||
	fail "the agent did not start: $(tail -n 5 "$vm_state/agent.log" 2>/dev/null)"
"$vm_dir/hog.sh" start "$vm_state" "$(vm_qemu_pid starved)" 1 4096 "$pin" >/dev/null ||
	fail "the hog did not start"
# NodeManager 0's tasks' place: beside the hog and the guest, of the
# guest's weight (libvirt's default for a domain).
hog_cg=$(cat "$vm_state/hog.cgroup")
starved_cg=${hog_cg%/*}/flexslot-nm0-$$
mkdir "$starved_cg"
if [ -f "$starved_cg/cpu.shares" ]; then
	echo 1024 >"$starved_cg/cpu.shares"
else
	echo 100 >"$starved_cg/cpu.weight"
fi

# Two NodeManagers of 1 GB and 4 vcores: 4 containers of 256 MB each.
yarn_start 2 1024 4

address=$VM_BUS_ADDRESS
yarn_controller_config "$rm_url"
cat >>"$tmp/controller.ini" <<CONF
nodes = $nm0=starved $nm1=idle
min-containers = 1
[policy]
slot-manager = flexslot
min_age = 10s
[agents]
hosts = $address
call-timeout = 1s
max-sample-age = 3s
CONF
start_controller

# nodes_json PYTHON: PYTHON's print of flexslotctl's nodes, read as nodes
# (the NodeManager's id is its hostname, its VM's name its vm).
nodes_json() {
	"$build/bin/flexslotctl" --address="$address" --json nodes | python3 -c "
import json, sys
nodes = {n['hostname']: n for n in json.load(sys.stdin)}
$1"
}
# ---- the guests' steal, the agent's measure, is the nodes' ----
# (An idle guest's timer ticks wait for a CPU too on a busy host.)
steal_spread() {
	nodes_json "
s0, s1 = nodes['$nm0']['steal'], nodes['$nm1']['steal']
sys.exit(not (nodes['$nm0']['vm'] == 'starved' and s0 > 0.3 and s0 - s1 > 0.2))"
}
i=0
until steal_spread 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 300 ] || fail "the nodes' steal is not the guests': $("$build/bin/flexslotctl" --address="$address" nodes)"
	sleep 0.2
done
echo "steal measured: $(nodes_json "print(nodes['$nm0']['steal'], nodes['$nm1']['steal'])") (starved, idle)"

# ---- a wordcount whose maps do the same CPU work per word ----
mkdir -p "$tmp/in"
for i in 1 2 3 4 5 6; do
	gen_words "$i" 45000 >"$tmp/in/part$i"
done
# The work per word that makes a map about 8 CPU-seconds here, measured on
# a part of an input.
t0=$(date +%s%N)
head -n 2000 "$tmp/in/part1" |
	awk -v work=200 '{ for (i = 1; i <= NF; i++) { for (k = 0; k < work; k++) x += k; print $i } }' >/dev/null
t1=$(date +%s%N)
work=$(awk -v ns=$((t1 - t0)) 'BEGIN { w = 200 * 8e9 / (ns * 45000 / 2000); print (w < 20 ? 20 : int(w)) }')
cat >"$tmp/mapper.sh" <<EOF
#!/bin/sh
case \$PWD in
*-localDir-nm-0_*)
	echo \$\$ >"$starved_cg/cgroup.procs" || exit 1
	taskset -p -c $pin \$\$ >/dev/null || exit 1
	;;
esac
exec awk -v work=$work '{ for (i = 1; i <= NF; i++) { for (k = 0; k < work; k++) x += k; print \$i } }'
EOF
chmod +x "$tmp/mapper.sh"
job_started=$(date +%s)
yarn_streaming_start job.log "$tmp/job.out" -D mapreduce.job.reduces=1 \
	-D mapreduce.job.reduce.slowstart.completedmaps=1 -D mapreduce.job.name=flexslot-steal \
	-input "file://$tmp/in" -output "file://$tmp/out" -mapper "$tmp/mapper.sh" -reducer "uniq -c"
echo "wordcount started, $work loops a word"

# ---- the policy's move reaches the ResourceManager ----
moved() {
	grep -q "Slots: YARN node $nm1 4 -> 3 containers (the slot-manager asked 3 map, 0 reduce: its VM's steal 0\.[0-9]*)$" \
		"$tmp/controller.log"
}
yarn_job_wait 1500 moved || {
	[ $? = 1 ] && why="the job ended" || why="300 s passed"
	fail "no slot moved ($why): $(grep -e Straggler -e Slots "$tmp/controller.log"; tail -n 5 "$tmp/job.out")"
}
echo "slot moved $(($(date +%s) - job_started)) s into the job"
poll yarn_capacity_is "$nm1" 768 || fail "the ResourceManager shows $nm1 at $(yarn_node_field "$nm1" memory) MB"
grep -q "YARN node $nm1: the ResourceManager took the new capacity" "$tmp/controller.log" ||
	fail "the controller did not log the ResourceManager's answer"

# Why: CPU-bound stragglers on NodeManager 0, whose VM's steal is over
# steal_threshold (0.1), named before the move; NodeManager 0 asked one
# more container than it registered with, and kept its own.
grep -q "Straggler: attempt attempt_[0-9_]*_m_00000[0-5]_0 of job 1 on YARN node $nm0, CPU-bound (score [0-9.e+-]*; its VM's steal \(0\.[1-9][0-9]\|1\.00\))$" \
	"$tmp/controller.log" || fail "no CPU-bound straggler on $nm0 in the log: $(grep Straggler "$tmp/controller.log")"
grep -q "Slots: YARN node $nm0 stays at 4 containers (the slot-manager asked 5: its VM's steal \(0\.[1-9][0-9]\|1\.00\); it registered with 4, and keeps 1 at least)$" \
	"$tmp/controller.log" || fail "the receiver's side is not in the log: $(grep Slots "$tmp/controller.log")"
[ "$(yarn_node_field "$nm0" memory)" = 1024 ] || fail "$nm0 is at $(yarn_node_field "$nm0" memory) MB"
grep -n -e "Straggler:" -e "Slots:" -e "YARN node .*: the ResourceManager took" "$tmp/controller.log" |
	sed 's/^/    /' | head -n 12
kill -0 "$controller_pid" || fail "the controller stopped: $(tail -n 20 "$tmp/controller.log")"
echo "test took $(($(date +%s) - test_started)) s"

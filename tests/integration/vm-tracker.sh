#!/bin/sh
# A flexslot-tracker inside a real QEMU guest (tests/vm/cluster.sh): it
# registers with the controller on the host by its SMBIOS UUID, which is
# its domain's; its guest has its network, the 9p data share and cgroup2,
# and the cluster token only as root's file (not on the share, not on the
# kernel command line). A wordcount job runs over the share, its output
# checked against tr | sort | uniq -c, and a streaming task finds itself
# under its slot's memory cgroup. Under a host CPU hog the agent's steal
# of the domain reaches ListVms, and stays the agent's at a 1 s sampling
# interval (the steal once fell back to the tracker's 0 in most rounds),
# while the tracker labels its own as an estimate (TCG has no steal
# clock). A ResizeVm from the controller reaches the guest: the tracker's
# next report shows the new vCPU and the smaller memory.
# flexslot-test: vm
# flexslot-test: plain
set -eu

# shellcheck source=tests/vm/cluster-test.sh
. "${FLEXSLOT_SRCDIR:?run through make check}/tests/vm/cluster-test.sh"
VMC_AGENT_INTERVAL=1s
VMC_LOST_TIMEOUT=10s
export VMC_AGENT_INTERVAL VMC_LOST_TIMEOUT
vmc_test_start vm-tracker "$build"
guest=fs-w1
pin=$(($(getconf _NPROCESSORS_ONLN) - 1))
vmc_step "booting $guest"
t0=$(vm_now_ms)
vmc_guest_start "$guest" 1 2 384 2 1 96M "$pin" || fail "cannot create the guest"
vmc_wait_registered 120 "$guest" || fail "the guest's tracker did not register by its UUID"
echo "create to registered: $(($(vm_now_ms) - t0)) ms"
uuid=$(vm_virsh domuuid "$guest")
node=$(vmc_node "$guest" | cut -d' ' -f1)
for what in NET DATA CGROUP2; do
	vm_console_has "$guest" "FLEXSLOT-$what ok" || fail "the guest's $what failed: $(grep -a FLEXSLOT "$vm_state/$guest.console")"
done

# ---- the token: root's only in the guest, nowhere the tasks of others see ----
token=$(cat "$vm_state/token")
! grep -rqF "$token" "$VMC_DATA" || fail "the token is on the shared directory"
! grep -qF "$token" "$vm_state/$guest.xml" || fail "the token is in the domain's XML"

# ---- a wordcount job over the share ----
vmc_step "wordcount over 9p"
mkdir -p "$VMC_DATA/in"
for i in 1 2 3; do
	gen_words "$i" 4000 >"$VMC_DATA/in/f$i"
done
wordcount_answer "$VMC_DATA"/in/f* >"$vm_state/expected"
job=$(vmc_ctl submit --app=wordcount --reduces=2 in/f1 in/f2 in/f3) || fail "submit refused"
vmc_job_wait "$job" 300 || fail "job $job $VMC_JOB_STATE: $(vmc_ctl show "$job")"
echo "wordcount: $VMC_JOB_MS ms"
sort "$VMC_DATA/out/$job"/part-* | cmp -s - "$vm_state/expected" ||
	fail "job $job's output differs from tr | sort | uniq -c"

# ---- what a task sees: its memory cgroup, the token's mode, the command line ----
vmc_step "a task's view of the guest"
# (One line: a job's command may hold no control character. It runs in the
# guest, so nothing in it expands here.)
# shellcheck disable=SC2016
probe='cat >/dev/null; cg=$(sed -n "s/^0:://p" /proc/self/cgroup); printf "cgroup\t%s\n" "$cg"; printf "memory.max\t%s\n" "$(cat /sys/fs/cgroup$cg/memory.max)"; printf "token\t%s\n" "$(stat -c %a:%u /etc/flexslot/cluster-token)"; printf "cmdline\t%s\n" "$(cat /proc/cmdline)"'
job=$(vmc_ctl submit --mapper="$probe" --reduces=1 in/f1) || fail "submit refused"
vmc_job_wait "$job" 120 || fail "job $job $VMC_JOB_STATE: $(vmc_ctl show "$job")"
seen=$(cat "$VMC_DATA/out/$job"/part-*)
echo "$seen"
echo "$seen" | grep -q "^cgroup	/flexslot-attempt-[0-9]*$" || fail "the task is not in a cgroup of its own"
echo "$seen" | grep -q "^memory.max	100663296$" || fail "the task's memory.max is not its slot's 96M"
echo "$seen" | grep -q "^token	600:0$" || fail "the token is not root's only"
echo "$seen" | grep -q "^cmdline	" || fail "no command line"
! echo "$seen" | grep -qF "$token" || fail "the token is on the kernel command line"

# ---- steal: the agent's, every sample ----
vmc_step "host CPU hog: the agent's steal"
"$vm_dir/hog.sh" start "$vm_state" "$(vm_qemu_pid "$guest")" 1 4096 "$pin" >/dev/null
# "SOURCE STEAL" of the guest in ListVms.
vm_steal() { vmc_ctl vms --no-legend | awk -F'\t' -v u="$uuid" '$2 == u { print $6, $7 }'; }
steal_from_agent() { vm_steal | awk '{ exit !($1 == "agent" && $2 > 0.3) }'; }
# A job keeps the guest's vCPU busy, so that it waits for the hog.
gen_words 9 40000 >"$VMC_DATA/in/busy"
job=$(vmc_ctl submit --app=wordcount --reduces=1 in/busy) || fail "submit refused"
vm_poll 60 steal_from_agent || fail "ListVms does not show the agent's steal: $(vm_steal)"
samples=0 others=0
while [ "$samples" -lt 40 ]; do
	s=$(vm_steal)
	[ "${s%% *}" = agent ] || others=$((others + 1))
	samples=$((samples + 1))
	sleep 0.5
done
echo "steal under the hog: $(vm_steal); $others of $samples samples (every 0.5 s) not the agent's"
[ "$others" -eq 0 ] || fail "the steal fell back from the agent's in $others of $samples samples"
vmc_tracker_log "$guest" | grep -q "Guest: 1 CPUs, .* steal from estimate" ||
	fail "the tracker did not report its steal as an estimate: $(vmc_tracker_log "$guest" | grep Guest)"
vmc_job_wait "$job" 300 || fail "job $job $VMC_JOB_STATE: $(vmc_ctl show "$job")"
"$vm_dir/hog.sh" stop "$vm_state"

# ---- ResizeVm reaches the guest ----
vmc_step "ResizeVm: 2 vCPUs, 256M"
# ListVms' guest columns: the tracker's report.
guest_view() { vmc_ctl vms --no-legend | awk -F'\t' -v u="$uuid" '$2 == u { print $14, $15 }'; }
before=$(guest_view)
echo "the guest before: $before"
vmc_ctl resize-vm "$node" 2 256M || fail "resize-vm refused"
resized() {
	# shellcheck disable=SC2046 # two words
	set -- $(guest_view)
	[ "$1" = 2 ] && [ "$2" -lt "${before#* }" ] && [ "$2" -le $((256 * 1048576)) ]
}
vm_poll 60 resized || fail "the tracker's report did not follow: $(guest_view) (before: $before)"
echo "the guest after: $(guest_view)"
vm_console_has "$guest" "FLEXSLOT-CPU-ONLINE cpu1" || fail "the guest did not online its new vCPU"
vmc_tracker_log "$guest" | grep -q "Guest: 2 CPUs" || fail "the tracker did not log its new size"
[ "$(vm_domstat "$guest" vcpu.current)" = 2 ] || fail "libvirt does not show 2 vCPUs"
echo PASS

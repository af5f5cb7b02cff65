#!/bin/sh
# Real-VM test: a vCPU target judged by the guest's own count. A private
# libvirtd runs three tiny QEMU guests with the guest agent's channel
# (org.qemu.guest_agent.0) and qemu-ga from Debian in them
# (build-guest.sh --guest-agent); flexslot-agentd samples them every
# 500 ms. Each gets a second vCPU plugged:
#   - one onlines it: its guest agent counts 2 online, and GetMetrics shows
#     the target reached by the guest agent's word;
#   - one leaves it offline (flexslot.online=0): libvirt counts 2 plugged,
#     the guest agent 1 online, and the target is unreached by the guest
#     agent's word, which the log says too;
#   - one whose guest agent hangs (stopped with SIGSTOP, through its own
#     guest-exec): the question to it finds no answer within
#     guest-agent-timeout, its count is unknown ("unresponsive") and
#     libvirt's count decides ("hypervisor"), while every sample still
#     comes on time and the other guests' values stay fresh, with the
#     hung guest agent asked again meanwhile.
# Skips only when the machine cannot run it.
# flexslot-test: vm
set -eu

# shellcheck source=tests/vm/guest-test.sh
. "${FLEXSLOT_SRCDIR:?run through make check}/tests/vm/guest-test.sh"
# shellcheck source=tests/vm/cluster.sh
. "$vm_dir/cluster.sh"

online=flexslot-ga-online
offline=flexslot-ga-offline
hung=flexslot-ga-hung
# shellcheck disable=SC2034 # cluster.sh's vmc_test_keep_state reads it
vmc_test_keep="$build/integration/vm-guest-agent.state"
vmc_traps vmc_test_keep_state

vm_lock 300 || fail "another real-guest test held the lock for 5 minutes"
t_start=$(vm_now_ms)
vmc_step "building the guest and its guest agent layer, starting libvirtd"
guest_test_setup
layer=$("$vm_dir/build-guest.sh" --guest-agent | sed -n 's/^GUEST_AGENT=//p')
[ -f "$layer" ] || fail "cannot build the guest agent layer"
cat "$VM_INITRD" "$layer" >"$vm_state/guest-agent.initrd"
VM_INITRD="$vm_state/guest-agent.initrd"
accel=$(vm_accel)

vmc_step "booting three guests with a guest agent ($accel)"
export GUEST_AGENT=1
vm_boot "$online" "$accel" 128 2 0 90 || fail "$online did not boot within 90 s"
vm_boot "$hung" "$accel" 128 2 0 90 || fail "$hung did not boot within 90 s"
export GUEST_ONLINE=0
vm_boot "$offline" "$accel" 128 2 0 90 || fail "$offline did not boot within 90 s"
unset GUEST_AGENT GUEST_ONLINE
agent_answers() { vm_virsh qemu-agent-command "$1" '{"execute":"guest-ping"}' >/dev/null 2>&1; }
for g in "$online" "$offline" "$hung"; do
	vm_console_has "$g" "FLEXSLOT-GUEST-AGENT started" || fail "$g started no guest agent"
	vm_poll 60 agent_answers "$g" || fail "$g's guest agent does not answer libvirt"
done

vmc_step "private dbus-daemon and flexslot-agentd"
vm_agent_start "$build/bin/flexslot-agentd" 500ms <<EOF || fail "the agent did not take its bus name"
[agent]
log-level = debug
target-grace = 2s
guest-agent-timeout = 2s
[host]
cpus = 8
memory = 8G
EOF

# GetMetrics answers "t(sssuuttdduudtdsssus) TIMESTAMP NAME ...": field N
# of the struct is word N+2. "VCPUS AGE VCPUS_TARGET SOURCE GUEST_VCPUS
# GUEST_AGENT" of a guest: fields 4, 14, 15, 17, 18 and 19.
view() {
	vm_agent_call GetMetrics s "$1" 2>/dev/null |
		awk '{ print $6, $16, $17, $19, $20, $21 }' | tr -d '"'
}
view_is() { [ "$(view "$1" | cut -d' ' -f1,3-)" = "$2" ]; }
newer_than() { [ "$(vm_agent_last_sample)" -gt "$1" ]; }
# The agent's questions that failed (only the hung guest agent's do):
# libvirt's answer, logged at debug, one line each.
silent_questions() { grep -c "guest agent's vCPUs: " "$vm_state/agent.log" || true; }

vm_poll 30 view_is "$online" "1   0 " || fail "no sample of $online: $(view "$online")"

# ---- a guest agent that hangs --------------------------------------------
# qemu-ga stops itself (guest-exec runs the command in the guest), a
# second after it answered guest-exec; libvirt then gets no answer to its
# guest-sync.
vmc_step "SIGSTOP to $hung's guest agent, through its guest-exec"
# shellcheck disable=SC2016 # the guest's shell expands it
vm_virsh qemu-agent-command "$hung" \
	'{"execute":"guest-exec","arguments":{"path":"/bin/sh","arg":["-c","sleep 1; kill -STOP $(pidof qemu-ga)"]}}' \
	--timeout 10 >/dev/null || fail "guest-exec in $hung failed"
hang_t0=$(vm_now_ms)
vm_poll 30 sh -c "! virsh -q -c '$VM_URI' qemu-agent-command '$hung' '{\"execute\":\"guest-ping\"}' --timeout 1 >/dev/null 2>&1" ||
	fail "$hung's guest agent still answers"
echo "$hung's guest agent is silent ($(($(vm_now_ms) - hang_t0)) ms to see it)"

# ---- the second vCPU of each -----------------------------------------------
vmc_step "SetVcpus 1 -> 2 on each guest"
for g in "$hung" "$offline" "$online"; do
	out=$(vm_agent_call SetVcpus su "$g" 2) || fail "SetVcpus $g 2: $out"
done
set_t0=$(vm_now_ms)

# Onlined in the guest: reached, by its guest agent's count.
vm_poll 60 view_is "$online" "2 reached guest-agent 2 answered" ||
	fail "$online: $(view "$online")"
echo "$online: $(view "$online") after $(($(vm_now_ms) - set_t0)) ms"
vm_console_has "$online" "FLEXSLOT-CPU-ONLINE cpu1" || fail "$online did not online its second vCPU"
grep "Domain $online shows its vcpus 2 online, as its guest agent counts" "$vm_state/agent.log" ||
	fail "the agent did not log $online's target reached by its guest agent"

# Plugged, left offline: libvirt counts 2, the guest 1; unreached.
vm_poll 60 view_is "$offline" "2 unreached guest-agent 1 answered" ||
	fail "$offline: $(view "$offline")"
echo "$offline: $(view "$offline")"
vm_console_has "$offline" "FLEXSLOT-CPU-ONLINE" && fail "$offline onlined a vCPU"
grep "Domain $offline does not show its vcpus 2 target: it has 1 online, as its guest agent counts" \
	"$vm_state/agent.log" || fail "the agent did not log $offline's target unreached"

# Hung: unknown, and libvirt's count decides.
vm_poll 60 view_is "$hung" "2 reached hypervisor 0 unresponsive" || fail "$hung: $(view "$hung")"
echo "$hung: $(view "$hung") after $(($(vm_now_ms) - set_t0)) ms"
grep "Domain $hung: no count of its vCPUs online from its guest agent" "$vm_state/agent.log" ||
	fail "the agent did not say why $hung has no guest count"

# While the hung guest agent is asked again (every 5 s, each question
# waiting out guest-agent-timeout), the samples go on: 16 new ones in a
# row, each within 2 s (the interval is 500 ms), and in each the guests'
# values are at most a few rounds old (a round whose stats call took too
# long to time its interval keeps the last rates, with their age, by
# design).
vmc_step "samples while $hung's guest agent is asked again"
silent_before=$(silent_questions)
prev=$(vm_agent_last_sample)
window_t0=$(vm_now_ms)
worst=0
for look in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
	t0=$(vm_now_ms)
	vm_poll 2 newer_than "$prev" || fail "no new sample within 2 s (look $look)"
	gap=$(($(vm_now_ms) - t0))
	[ "$gap" -le "$worst" ] || worst=$gap
	for g in "$online" "$offline" "$hung"; do
		age=$(view "$g" | cut -d' ' -f2)
		awk -v a="$age" 'BEGIN { exit !(a < 2) }' ||
			fail "$g's sample is $age s old while $hung's guest agent is asked"
	done
	prev=$(vm_agent_last_sample)
done
silent_after=$(silent_questions)
echo "16 samples in $(($(vm_now_ms) - window_t0)) ms, the longest wait $worst ms;" \
	"questions to $hung that found it silent: $silent_before before, $silent_after after"
[ "$silent_after" -gt "$silent_before" ] ||
	fail "$hung's guest agent was not asked again during the samples"
view_is "$hung" "2 reached hypervisor 0 unresponsive" || fail "$hung: $(view "$hung")"

echo "total: $(($(vm_now_ms) - t_start)) ms"
echo "PASS"

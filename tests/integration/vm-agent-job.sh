#!/bin/sh
# Real-VM test: a guest in a libvirt job, beside one that is not. A private
# libvirtd runs two tiny QEMU guests; flexslot-agentd samples them every
# 500 ms. `virsh dump` of the first into a FIFO that nobody reads holds it
# in libvirt's dump job (paused, reason dump) for as long as the test
# likes. The agent must skip it and say so (its log names the domain and
# the job; its last rates stand and their age grows in GetMetrics), while
# the other guest's samples go on fresh, every interval; once the dump is
# read to its end the first guest is measured again. With the balloon
# guard on, a shrink of the other guest's memory is decided with what the
# agent found of its QEMU process and cgroup, which the decision journal
# says; a vCPU the other guest onlines is shown reached in GetMetrics.
# Skips only when the machine cannot run it.
# flexslot-test: vm
set -eu

# shellcheck source=tests/vm/guest-test.sh
. "${FLEXSLOT_SRCDIR:?run through make check}/tests/vm/guest-test.sh"
# shellcheck disable=SC1091 # tests/vm/cluster.sh, checked on its own
. "$vm_dir/cluster.sh"

busy=flexslot-job-busy
other=flexslot-job-other
dump_pid=
drain_pid=
holder_pid=
fifo="$vm_state/dump.fifo"
# Before the teardown, a reader for a dump still running: libvirtd's open
# of the FIFO returns and the job ends, rather than a libvirtd thread
# staying stuck in it. Then a failed run's logs are kept.
on_exit() {
	if [ -n "$dump_pid" ] && [ -z "$drain_pid" ]; then
		cat "$fifo" >/dev/null 2>&1 9>&- &
		drain_pid=$!
	fi
	[ -z "$dump_pid" ] || vm_poll 60 sh -c "! kill -0 $dump_pid 2>/dev/null"
	[ -z "$drain_pid" ] || kill "$drain_pid" 2>/dev/null
	[ -z "$holder_pid" ] || kill "$holder_pid" 2>/dev/null
	vmc_test_keep_state "$1"
}
# shellcheck disable=SC2034 # cluster.sh's vmc_test_keep_state reads it
vmc_test_keep="$build/integration/vm-agent-job.state"
vmc_traps on_exit

vm_lock 300 || fail "another real-guest test held the lock for 5 minutes"
t_start=$(vm_now_ms)
vmc_step "building the guest, starting libvirtd"
guest_test_setup
accel=$(vm_accel)
vmc_step "booting two guests ($accel)"
vm_boot "$busy" "$accel" 128 2 1 60 || fail "$busy did not boot within 60 s"
vm_boot "$other" "$accel" 128 2 1 60 || fail "$other did not boot within 60 s"

agentd="$build/bin/flexslot-agentd"
[ -x "$agentd" ] || fail "$agentd is not built"
vmc_step "private dbus-daemon and flexslot-agentd"
vm_agent_start "$agentd" 500ms <<EOF || fail "the agent did not take its bus name"
[agent]
log-level = debug
balloon-guard = yes
target-grace = 2s
[host]
cpus = 8
memory = 8G
[limits]
min-memory = 64M
max-memory = 1G
min-interval = 0
EOF

# GetMetrics answers "t(sssuuttdduudtd...) TIMESTAMP NAME UUID STATE VCPUS
# VCPUS_MAX MEMORY MEMORY_MAX CPU_USE STEAL VALID WEIGHT CAP USED AGE ...":
# "STATE CPU_USE STEAL AGE" of a guest.
metrics() {
	vm_agent_call GetMetrics s "$1" 2>/dev/null | awk '{ gsub(/"/, "", $5); print $5, $10, $11, $16 }'
}
# (awk exits 0 on no input: an empty answer, before the first sample, must
# not count as one.)
has_rates() { metrics "$1" | awk '{ ok = $1 == "running" && $2 >= 0 && $3 >= 0 && $4 == 0 } END { exit !ok }'; }
# The busy guest paused, its last rates standing, at least $1 s old.
skipped_for() { metrics "$busy" | awk -v min="$1" '{ ok = $1 == "paused" && $2 >= 0 && $4 >= min } END { exit !ok }'; }
said_skipped() {
	grep -q -e "Domain $busy is paused for a libvirt job (dump): skipped" \
		-e "Domain $busy answered without some counters" "$vm_state/agent.log"
}

vm_poll 30 has_rates "$busy" || fail "the agent has no rates for $busy: $(metrics "$busy")"
vm_poll 30 has_rates "$other" || fail "the agent has no rates for $other: $(metrics "$other")"
echo "before: $busy $(metrics "$busy"); $other $(metrics "$other")"

# ---- the job --------------------------------------------------------------
vmc_step "virsh dump $busy into a FIFO nobody reads"
mkfifo "$fifo"
# The busy guest's last values are what its paused record keeps: rates,
# not the unknown of a round that could not time its interval.
vm_poll 30 has_rates "$busy" || fail "the agent has no rates for $busy: $(metrics "$busy")"
# A reader that opens the FIFO and never reads: libvirtd's open of it
# returns, and QEMU's writes stop once the pipe is full. (Without one,
# libvirtd blocks in open() holding the domain's lock, and then every call
# that lists domains, the agent's bulk sample too, waits for it.)
# shellcheck disable=SC2217 # opening the FIFO is all it does
sleep 600 <"$fifo" 9>&- &
holder_pid=$!
vm_virsh dump "$busy" "$fifo" >"$vm_state/dump.out" 2>&1 9>&- &
dump_pid=$!
job_started=$(vm_now_ms)
vm_poll 30 skipped_for 2 || fail "$busy is not shown skipped with its age: $(metrics "$busy")"
said_skipped || fail "the agent did not say it skipped $busy: $(grep "$busy" "$vm_state/agent.log" | tail -n 5)"
grep -e "Domain $busy " "$vm_state/agent.log" | tail -n 2
vm_virsh domjobinfo "$busy" | head -n 3 || true

# While the job lasts, the host's samples go on: 8 new ones in a row, each
# within 3 s (the interval is 500 ms), and in each the other guest's values
# are at most a few rounds old (a round whose stats call took too long to
# time its interval keeps the last rates, with their age, by design), where
# the busy guest's grow with the job.
newer_than() { [ "$(vm_agent_last_sample)" -gt "$1" ]; }
prev=$(vm_agent_last_sample)
for look in 1 2 3 4 5 6 7 8; do
	vm_poll 3 newer_than "$prev" || fail "no new sample within 3 s during $busy's job (look $look)"
	m=$(metrics "$other")
	echo "$m" | awk '{ exit !($1 == "running" && $4 < 2) }' ||
		fail "$other's sample is not fresh during $busy's job: $m"
	prev=$(vm_agent_last_sample)
done
busy_age=$(metrics "$busy" | awk '{ print $4 }')
echo "after $(($(vm_now_ms) - job_started)) ms in the job: $busy $(metrics "$busy"); $other $(metrics "$other")"
awk -v a="$busy_age" 'BEGIN { exit !(a >= 4) }' || fail "$busy's age did not grow with the job: $busy_age"

vmc_step "reading the dump to its end"
cat "$fifo" >/dev/null 9>&- &
drain_pid=$!
vm_poll 60 sh -c "! kill -0 $dump_pid 2>/dev/null" || fail "the dump did not end"
wait "$dump_pid" || fail "virsh dump failed: $(cat "$vm_state/dump.out")"
dump_pid=
kill "$holder_pid"
holder_pid=
vm_poll 30 has_rates "$busy" || fail "$busy was not measured again after its job: $(metrics "$busy")"
grep -q "Domain $busy answers with all its counters again" "$vm_state/agent.log" ||
	fail "the agent did not say $busy is measured again"
echo "after the job: $busy $(metrics "$busy")"

# ---- the balloon guard on a real guest ---------------------------------------
# The guard looks for the guest's QEMU by its -uuid and for its cgroup v2;
# the decision says what it found: the pressure, or why there is none (on
# a cgroup v1 host, QEMU is in no cgroup v2 of libvirt's).
vmc_step "a shrink of $other under the balloon guard"
out=$(vm_agent_call SetMemory st "$other" $((112 * 1048576)) 2>&1) || echo "SetMemory: $out"
decision=$(vm_agent_call ListDecisions t 0 | tr '"' '\n' | grep "balloon-guard" || true)
echo "limits: $decision"
case $decision in
*"balloon-guard memory.pressure some avg10 "*"/memory.pressure)"*) ;;
*"balloon-guard without memory.pressure (QEMU process "*" is in no cgroup v2 of libvirt's)"*) ;;
*) fail "the decision does not say what the guard found of $other's QEMU: $decision" ;;
esac

# ---- a vCPU target shown ---------------------------------------------------
# The guest onlines a hot-added vCPU; the first sample after target-grace
# says so in GetMetrics' field 15 (pending until then).
vmc_step "SetVcpus $other 1 -> 2"
vcpus_target() { vm_agent_call GetMetrics s "$other" | awk '{ print $17 }'; }
target_is() { [ "$(vcpus_target)" = "\"$1\"" ]; }
out=$(vm_agent_call SetVcpus su "$other" 2) || fail "SetVcpus $other 2: $out"
vm_poll 30 target_is reached || fail "$other's vCPU target is $(vcpus_target), not reached"
vm_console_has "$other" "FLEXSLOT-CPU-ONLINE cpu1" || fail "$other did not online its second vCPU"
grep "Domain $other shows its vcpus 2" "$vm_state/agent.log" || fail "the agent did not log the target reached"

echo "total: $(($(vm_now_ms) - t_start)) ms"
echo "PASS"

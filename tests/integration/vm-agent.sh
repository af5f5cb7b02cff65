#!/bin/sh
# Real-VM test: a private libvirtd runs a tiny QEMU guest (KVM where it
# boots, else TCG) built from a Debian kernel package and busybox; a private
# dbus-daemon carries flexslot-agentd. Under a host CPU hog the agent must
# report non-zero steal for the guest; a live vCPU add (1 -> 2) and a balloon
# change (128 -> 96 MiB) made through the agent must take effect and be read
# back through it. Skips only when the machine cannot run it (not root, no
# QEMU, libvirtd does not start).
set -eu

srcdir=${FLEXSLOT_SRCDIR:?run through make check}
build=${FLEXSLOT_BUILD:?run through make check}

skip() {
	echo "SKIP: $*"
	exit 77
}
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
step() { echo "== [$(awk '{ print $1 }' /proc/uptime)] $*"; }

[ "$(id -u)" -eq 0 ] || skip "needs root to run libvirtd and QEMU guests"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 is not installed"
command -v libvirtd >/dev/null || skip "libvirtd is not installed"
for t in virsh unshare busybox cpio; do
	command -v "$t" >/dev/null || fail "$t is missing (packaging/deps.sh installs it)"
done

vm_dir="$srcdir/tests/vm"
vm_state=$(mktemp -d /tmp/flexslot-vm-agent.XXXXXX)
# shellcheck disable=SC1091 # tests/vm/lib.sh, checked on its own
. "$vm_dir/lib.sh"

guest=flexslot-vm-agent
finish() {
	rc=$?
	trap - EXIT INT TERM
	vm_teardown
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then
		# Keep what explains the failure next to this script's log.
		keep="$build/integration/vm-agent.state"
		rm -rf "$keep"
		mkdir -p "$keep"
		cp "$vm_state"/*.console "$vm_state"/*.log "$vm_state"/log/libvirtd.log \
			"$vm_state"/log/qemu/*.log "$keep/" 2>/dev/null || true
		echo "guest console and daemon logs kept in $keep" >&2
	fi
	rm -rf "$vm_state"
	exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT TERM

vm_lock 300 || fail "another real-guest test held the lock for 5 minutes"
t_start=$(vm_now_ms)
step "building the guest, starting libvirtd"
vm_setup || {
	rc=$?
	[ "$rc" -eq 1 ] && skip "libvirtd does not start here: $(tail -n 3 "$vm_state/libvirtd.out" 2>/dev/null | tr '\n' ' ')"
	fail "cannot build the test guest"
}
accel=$(vm_accel)
step "booting the guest ($accel)"
vm_boot "$guest" "$accel" 128 2 1 60 || fail "the guest did not boot within 60 s"
echo "boot: ${VM_BOOT_MS} ms"
vm_console_has "$guest" "FLEXSLOT-BALLOON ok" || fail "the guest has no virtio_balloon driver"

bench="$build/bench/flexslot-bench-host"

# ---- reading the guest's metrics -------------------------------------------
# Until flexslot-agentd exists in this build, the same checks go through the
# hypervisor layer (flexslot-bench-host watch) and virsh.

# Prints "watch steal=S cpu_use=C vcpus=N memory_kib=M" for the guest every
# 0.5 s, for $1 seconds; it stops early once its reader is gone.
metrics_stream() {
	"$bench" watch "$VM_URI" "$guest" "$1"
}
# awk code that splits such a line into v["steal"], v["vcpus"], ...
# shellcheck disable=SC2016 # awk code, not shell
parse='{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }'

# True once the guest shows steal > 0 in some sample within $1 seconds.
# (grep -m1 rather than awk's exit: mawk keeps reading its input until EOF.)
saw_steal() {
	metrics_stream "$1" | grep -m1 -E ' steal=(0\.[0-9]*[1-9]|[1-9])'
}

# True when the newest sample has $1 vCPUs and $2 KiB of memory.
read_back() {
	metrics_stream 1 | awk -v want_v="$1" -v want_m="$2" "$parse"'
		END { exit !(v["vcpus"] == want_v && v["memory_kib"] == want_m) }'
}

set_vcpus() { vm_virsh setvcpus "$guest" "$1" --live; }
set_memory_kib() { vm_virsh setmem "$guest" "$1" --live; }

# ---- the checks ---------------------------------------------------------------
qemu_pid=$(vm_qemu_pid "$guest")
step "host CPU hog next to the guest"
"$vm_dir/hog.sh" start "$vm_state" "$qemu_pid" >/dev/null
saw_steal 20 || fail "no steal reported for the guest under a host CPU hog"
"$vm_dir/hog.sh" stop "$vm_state"

step "live vCPU add 1 -> 2"
set_vcpus 2 || fail "setting 2 vCPUs failed"
vm_poll 30 read_back 2 131072 || fail "2 vCPUs were not read back"
vm_poll 30 vm_console_has "$guest" "FLEXSLOT-CPU-ONLINE cpu1" ||
	fail "the guest did not see its second CPU"

step "balloon 128 -> 96 MiB"
set_memory_kib 98304 || fail "setting 96 MiB failed"
vm_poll 30 read_back 2 98304 || fail "96 MiB were not read back"

echo "total: $(($(vm_now_ms) - t_start)) ms"
echo "PASS"

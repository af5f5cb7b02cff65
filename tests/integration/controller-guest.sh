#!/bin/sh
# What a tracker sees of its VM (ReportGuest, tracker-protocol.h) reaches
# ListVms: a real flexslot-tracker on this machine reports this machine's
# online CPUs and MemTotal, with its steal's source (the kernel's counter,
# or its estimate where the kernel counts no steal); the test tracker's
# report of an estimate makes the steal's source "tracker-estimate". Bad
# reports are refused by name, the field named, nothing changed. A real
# guest's report, after a ResizeVm, is vm-tracker.sh's.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/tracker.sh"
U2=6d1f0c7e-0000-4000-8000-0000000000f2

# vm_row UUID: the VM's line of flexslotctl vms.
vm_row() {
	"$build/bin/flexslotctl" --address "$address" vms --no-legend | grep -F "	$1	"
}
# vm_col UUID N: its column N (6 steal source, 14 guest CPUs, 15 guest memory).
vm_col() {
	vm_row "$1" | cut -f "$2"
}
guest_is() {
	[ "$(vm_col "$1" 6 | head -n 1) $(vm_col "$1" 14 | head -n 1) $(vm_col "$1" 15 | head -n 1)" = "$2" ]
}

start_bus
# shellcheck disable=SC2119 # the default lost-timeout
write_fast_config
start_controller

# ---- a real tracker: this machine's CPUs and memory ----
start_real_tracker 64M
U1=6d1f0c7e-0000-4000-8000-000000000001
cpus=$(getconf _NPROCESSORS_ONLN)
memory=$(($(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) * 1024))
# The kernel counts steal where its steal field has ever moved; the
# tracker's first report comes before a second sample could show it move.
poll guest_is "$U1" "tracker $cpus $memory" || poll guest_is "$U1" "tracker-estimate $cpus $memory" ||
	fail "ListVms lacks the tracker's guest: $(vm_row "$U1")"
grep -q "Guest: $cpus CPUs, .* of memory, steal from " "$tmp/tracker.log" ||
	fail "the tracker did not log its report: $(cat "$tmp/tracker.log")"
grep -q "Tracker 1: its guest sees $cpus CPUs and .* of memory; its steal is " \
	"$tmp/controller.log" || fail "the controller did not log the report"

# ---- the test tracker: an estimate ----
run_tracker "$tmp/t2.log" --token-file "$tmp/token" --vm-uuid "$U2" --hostname t2 \
	--steal 0.4 --guest estimate,2,402653184 --beats 3 ||
	fail "ReportGuest failed: $(cat "$tmp/t2.log")"
grep -q "^guest reported$" "$tmp/t2.log" || fail "no report: $(cat "$tmp/t2.log")"
poll guest_is "$U2" "tracker-estimate 2 402653184" ||
	fail "ListVms does not show the estimate: $(vm_row "$U2")"
[ "$(vm_col "$U2" 7 | head -n 1)" = 0.4 ] || fail "the estimate is not the steal: $(vm_row "$U2")"

# ---- bad reports: refused, the field named, nothing changed ----
bad_report() { # GUEST FIELD
	if run_tracker "$tmp/bad.log" --token-file "$tmp/token" --vm-uuid "$U2" --hostname t2 \
		--guest "$1" --beats 1; then
		fail "ReportGuest $1 was taken"
	fi
	grep -q "^error org.flexslot.Tracker1.Error.InvalidHeartbeat: Invalid guest field $2" \
		"$tmp/bad.log" || fail "ReportGuest $1: $(cat "$tmp/bad.log")"
}
bad_report guessed,2,402653184 steal-source
bad_report proc,0,402653184 "cpus 0"
bad_report proc,5000,402653184 "cpus 5000"
bad_report proc,2,1000 "memory 1000"
bad_report proc,2,2199023255553 "memory 2199023255553"
# Each bad report came from a new registration of t2 (a node of its own,
# until it is lost): only the first registration has a guest.
if [ "$(vm_row "$U2" | awk -F'\t' '$14 != 0' | wc -l)" -ne 1 ] ||
	[ "$(vm_row "$U2" | wc -l)" -ne 6 ]; then
	fail "a refused report changed ListVms: $(vm_row "$U2")"
fi
echo PASS

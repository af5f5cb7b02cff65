#!/bin/sh
# A real guest killed mid-job (virsh destroy, tests/vm/cluster.sh): two
# guests run a wordcount job's maps; while one of them runs some, it is
# destroyed. Its tracker must be declared lost after the lost-timeout,
# the maps it was running must run again on the other guest, and the
# job's output must still equal tr | sort | uniq -c.
# flexslot-test: vm
# flexslot-test: plain
set -eu

# shellcheck source=tests/vm/cluster-test.sh
. "${FLEXSLOT_SRCDIR:?run through make check}/tests/vm/cluster-test.sh"
VMC_LOST_TIMEOUT=5s
VMC_BLOCK_SIZE=2M
export VMC_LOST_TIMEOUT VMC_BLOCK_SIZE
vmc_test_start vm-tracker-lost "$build"
vmc_step "booting two guests"
for g in fs-w1 fs-w2; do
	vmc_guest_start "$g" 1 1 256 2 1 64M || fail "cannot create $g"
done
vmc_wait_registered 120 fs-w1 fs-w2 || fail "the trackers did not register by their UUIDs"
lost_node=$(vmc_node fs-w1 | cut -d' ' -f1)
other_node=$(vmc_node fs-w2 | cut -d' ' -f1)

mkdir -p "$VMC_DATA/in"
for i in 1 2 3 4 5 6; do
	gen_words "$i" 25000 >"$VMC_DATA/in/f$i"
done
wordcount_answer "$VMC_DATA"/in/f* >"$vm_state/expected"
vmc_step "wordcount, $(du -sk "$VMC_DATA/in" | cut -f1) KiB in 6 files"
job=$(vmc_ctl submit --app=wordcount --reduces=2 in/f1 in/f2 in/f3 in/f4 in/f5 in/f6) ||
	fail "submit refused"

# Busy map slots of fs-w1 (ListNodes' seventh column).
w1_busy() {
	vmc_ctl nodes --no-legend | awk -F'\t' -v n="$lost_node" '$1 == n { exit !($7 > 0) }'
}
vm_poll 120 w1_busy || fail "fs-w1 never ran a map: $(vmc_ctl nodes)"
log="$vm_state/controller-one.log"
vmc_step "virsh destroy fs-w1 while it runs $(vmc_ctl nodes --no-legend | awk -F'\t' -v n="$lost_node" '$1 == n { print $7 }') maps"
vm_virsh destroy fs-w1 >/dev/null || fail "virsh destroy failed"
destroyed_at=$(wc -l <"$log")
# The maps fs-w1 was given and had not finished: those it held at the end.
held=$(sed -n "s/.*Tracker $lost_node: attempt \([0-9]*\) of job $job map \([0-9]*\)$/\1 \2/p" "$log")
vm_poll 30 grep -q "Tracker $lost_node (fs-w1) sent no heartbeat for .*: lost" "$log" ||
	fail "fs-w1's tracker was not declared lost"
echo "fs-w1 lost: $(grep "Tracker $lost_node (fs-w1) sent no heartbeat" "$log")"
vmc_job_wait "$job" 400 || fail "job $job $VMC_JOB_STATE: $(vmc_ctl show "$job")"
echo "job $job: $VMC_JOB_STATE in $VMC_JOB_MS ms"

# Some map fs-w1 held when it went ran again on fs-w2, after the loss.
rerun=0
for index in $(echo "$held" | awk '{ print $2 }' | sort -u); do
	if tail -n +"$destroyed_at" "$log" |
		grep -q "Tracker $other_node: attempt [0-9]* of job $job map $index$"; then
		rerun=$((rerun + 1))
	fi
done
[ "$rerun" -gt 0 ] || fail "no map of fs-w1 ran again on fs-w2: $(echo "$held" | tr '\n' ' ')"
echo "maps of fs-w1 run again on fs-w2: $rerun"
sort "$VMC_DATA/out/$job"/part-* | cmp -s - "$vm_state/expected" ||
	fail "job $job's output differs from tr | sort | uniq -c"
echo PASS

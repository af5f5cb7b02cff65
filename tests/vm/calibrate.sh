#!/bin/sh
# What the simulator's model of the real-guest experiment takes from the
# guests (tests/vm/cluster.sh; the experiment: tests/vm/README.md): in one
# uncapped guest alone on the host (2 vCPUs online, no hog), the read
# bandwidth of the 9p share (dd), and for wordcount and inverted-index the
# CPU time per MB of a map over a regular text split and over an expensive
# one (lines 8 times as long), the map output per input byte, and the CPU
# time per MB of the reduce over both outputs; and the wall time of a map
# of two bytes (what starting and ending a task costs). Times are the guest's own
# (busybox time: user + sys), so they are CPU the vCPU got, whatever else the
# host ran meanwhile. Then, from the host, what the guest's QEMU used: idle,
# per task of a job of empty maps, and per MB of wordcount's maps (host_*).
# Prints KEY=VALUE lines on stdout, and how it went on stderr.
#
#   tests/vm/calibrate.sh BUILD [MB]     MB: size of each split (default 4)
set -eu

build=${1:?usage: tests/vm/calibrate.sh BUILD [MB]}
mb=${2:-4}
case $mb in
'' | *[!0-9]* | 0*)
	echo "calibrate: MB '$mb' is not a positive integer" >&2
	exit 2
	;;
esac
src=$(cd "$(dirname "$0")/../.." && pwd)
vm_dir="$src/tests/vm"
vm_state=$(mktemp -d /tmp/flexslot-vm.XXXXXX)
# shellcheck source=tests/vm/lib.sh
. "$vm_dir/lib.sh"
# shellcheck source=tests/vm/cluster.sh
. "$vm_dir/cluster.sh"
# shellcheck source=tests/lib/dataset.sh
. "$src/tests/lib/dataset.sh"
# shellcheck disable=SC2119 # no hook
vmc_traps
die() {
	echo "calibrate: $*" >&2
	exit 1
}

vm_lock 900 || die "another real-guest run held the lock for 15 minutes"
vmc_setup "$build" >&2 || die "cannot start the cluster's host side"
# A split a file: the host-side jobs below give each map one file.
VMC_BLOCK_SIZE=${mb}M vmc_controller_start cal >&2 || die "the controller did not start"
vmc_guest_start fs-cal 2 2 384 1 1 96M >&2 || die "cannot create the guest"
vmc_wait_registered 180 fs-cal >&2 || die "the guest's tracker did not register"

mkdir -p "$VMC_DATA/cal" "$VMC_DATA/in"
# About MB MiB each: gen_words's lines average 6.5 words of 4.4 bytes.
lines=$((mb * 1048576 / 33))
gen_words 31 "$lines" >"$VMC_DATA/cal/regular"
gen_words 32 $((lines / 8)) 8 >"$VMC_DATA/cal/expensive"
dd if=/dev/urandom of="$VMC_DATA/cal/big" bs=1M count=32 2>/dev/null
echo x >"$VMC_DATA/in/one"

# One streaming map in the guest runs the measures (one line: a job's
# command holds no control character; it runs in the guest, so nothing in
# it expands here).
# shellcheck disable=SC2016
probe='cat >/dev/null; T=/bin/flexslot-task; for i in 1 2 3 4 5; do time -p $T map --app=wordcount --split=/data/in/one:0:2 --reduces=1 --out=/var/tmp/e.map --sort-buffer=48M -q 2>/var/tmp/t; printf "empty\t%s\n" "$(sed -n "s/^real //p" /var/tmp/t)"; done; time -p dd if=/data/cal/big of=/dev/null bs=1M 2>/var/tmp/t; printf "dd\t%s %s\n" "$(stat -c %s /data/cal/big)" "$(sed -n "s/^real //p" /var/tmp/t)"; for a in wordcount inverted-index; do outs=""; for f in regular expensive; do s=$(stat -c %s /data/cal/$f); time -p $T map --app=$a --split=/data/cal/$f:0:$s --reduces=1 --out=/var/tmp/$a-$f.map --sort-buffer=48M -q 2>/var/tmp/t; printf "%s\t%s %s %s %s\n" "map-$a-$f" "$s" "$(sed -n "s/^user //p" /var/tmp/t)" "$(sed -n "s/^sys //p" /var/tmp/t)" "$(stat -c %s /var/tmp/$a-$f.map)"; outs="$outs /var/tmp/$a-$f.map"; done; time -p $T reduce --app=$a --partition=0 --out=/var/tmp/$a.out -q $outs 2>/var/tmp/t; printf "%s\t%s %s %s %s\n" "reduce-$a" "$(cat $outs | wc -c)" "$(sed -n "s/^user //p" /var/tmp/t)" "$(sed -n "s/^sys //p" /var/tmp/t)" "$(stat -c %s /var/tmp/$a.out)"; rm -f /var/tmp/$a*; done'
job=$(vmc_ctl submit --mapper="$probe" --reduces=1 in/one) || die "the probe job was refused"
vmc_job_wait "$job" 900 || die "the probe job $VMC_JOB_STATE: $(vmc_ctl show "$job")"
cat "$VMC_DATA/out/$job"/part-* >"$vm_state/probe"
cat "$vm_state/probe" >&2

# dd: bytes, then seconds (busybox dd reports no rate).
awk -F'\t' '$1 == "dd" { split($2, w, " "); printf "share_read_bytes_per_s=%.0f\n", w[1] / w[2] }' \
	"$vm_state/probe"
# empty: the wall time of a map of two bytes, five times; their median is
# what a task costs to start and end (the simulator's task_startup has
# Hadoop's JVM start, which our task program has not).
awk -F'\t' '$1 == "empty" { print $2 }' "$vm_state/probe" | sort -g |
	awk '{ v[NR] = $1 } END { printf "task_start_s=%.3f\n", v[int((NR + 1) / 2)] }'
# map-APP-KIND or reduce-APP: input bytes, user s, sys s, output bytes.
awk -F'\t' '$1 != "dd" && $1 != "empty" {
	split($2, w, " ")
	name = $1; gsub("-", "_", name)
	printf "%s_cpu_s_per_mb=%.4f\n", name, (w[2] + w[3]) / (w[1] / 1048576)
	printf "%s_output_ratio=%.4f\n", name, w[4] / w[1]
}' "$vm_state/probe"
# What the guest costs the host, as its QEMU process's CPU time (every
# thread: the vCPUs, the 9p server, the network): the guest's own clock
# cannot see it under TCG, where the time the host held a vCPU back is
# counted as the guest's. First idle, then a job of empty maps (what a
# task's start and end cost the host), then wordcount over regular splits
# (what a MB costs the host, less its tasks' start and end). The idle rate
# is taken out of both jobs, which assumes a busy guest still costs what
# an idle one does; the raw figures are printed too.
host_cpu() {
	cut -d' ' -f14,15 "/proc/$(vm_qemu_pid fs-cal)/stat" |
		awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f\n", ($1 + $2) / hz }'
}
# host_job NAME INPUT...: runs wordcount over the inputs; prints NAME, its
# tasks, the host CPU seconds and the wall seconds it took.
host_job() {
	_hj_name=$1
	shift
	_hj_cpu=$(host_cpu)
	_hj_t0=$(vm_now_ms)
	_hj_id=$(vmc_ctl submit --app=wordcount --reduces=1 "$@") || die "the $_hj_name job was refused"
	vmc_job_wait "$_hj_id" 900 || die "the $_hj_name job $VMC_JOB_STATE: $(vmc_ctl show "$_hj_id")"
	printf '%s %s %s %s\n' "$_hj_name" "$(vmc_job_state "$_hj_id" | awk '{ print $2 + $4 }')" \
		"$(awk -v a="$_hj_cpu" -v b="$(host_cpu)" 'BEGIN { print b - a }')" \
		"$(awk -v ms="$(($(vm_now_ms) - _hj_t0))" 'BEGIN { print ms / 1000 }')"
}
mkdir -p "$VMC_DATA/empty" "$VMC_DATA/words"
empty_maps=40
for i in $(seq 1 $empty_maps); do echo x >"$VMC_DATA/empty/$i"; done
for i in 1 2 3 4 5 6 7 8; do head -c $((mb * 1048576)) "$VMC_DATA/cal/regular" >"$VMC_DATA/words/$i"; done
idle_cpu=$(host_cpu)
idle_t0=$(vm_now_ms)
sleep 20
idle=$(awk -v a="$idle_cpu" -v b="$(host_cpu)" -v ms="$(($(vm_now_ms) - idle_t0))" \
	'BEGIN { printf "%.4f", (b - a) / (ms / 1000) }')
echo "host: idle $idle CPUs" >&2
(cd "$VMC_DATA" && host_job empty empty/*) >"$vm_state/host-empty" || exit 1
(cd "$VMC_DATA" && host_job words words/*) >"$vm_state/host-words" || exit 1
cat "$vm_state/host-empty" "$vm_state/host-words" >&2
echo "host_idle_cpus=$idle"
cat "$vm_state/host-empty" "$vm_state/host-words" | awk -v idle="$idle" \
	-v mb="$(cat "$VMC_DATA"/words/* | wc -c | awk '{ print $1 / 1048576 }')" '
	$1 == "empty" { per_task = ($3 - idle * $4) / $2
		printf "host_task_cpu_s=%.4f\nhost_task_cpu_raw_s=%.4f\n", per_task, $3 / $2 }
	$1 == "words" { printf "host_map_wordcount_cpu_s_per_mb=%.4f\nhost_map_wordcount_cpu_raw_s_per_mb=%.4f\n",
		($3 - idle * $4 - per_task * $2) / mb, $3 / mb }'
echo "guest_kernel=$(sed -n 1p "$(dirname "$VM_KERNEL")/stamp")"
echo "accel=$(vm_accel)"

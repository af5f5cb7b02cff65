#!/bin/sh
# `make vmexp` (`make vmexp-quick`): the real-guest experiment of FlexSlot
# against the simulator's prediction (sim/predictions/, sim/README.md
# "Real guests"). Four guests of 2 vCPUs and 384 MiB, a tracker each with 2
# map slots and 1 reduce slot, share a CPU pool of 1.6 host CPUs (a CFS
# quota on libvirt's /machine partition, which holds every guest and
# nothing else). Each arm runs the built-in inverted-index and wordcount
# over one synthetic text set (small files, and expensive splits of lines
# 8 times as long) on a fresh controller and store:
#
#   A  homo + stock        the pool split equally as fixed caps (vm-allocator homo)
#   B  DRS + stock         the simulator's DRS live (vm-allocator drs): every
#                          period the pool by use over the window, as caps
#   C  DRS + FlexSlot      B with slot-manager flexslot (settle = the period)
#   D  C without Alg. 1    io_threshold = 1: no kill-and-restart resize
#   E  our allocator       slot-manager and vm-allocator flexslot, no DRS
#   F  KVM's equal shares  stock, no caps: the guests share the pool by weight
#
# Arms run in an order shuffled per repeat. For each run: the jobs'
# completion time, maps per guest (Fig. 4's max/min), kills and slot moves,
# VM targets sent, each guest's steal as the agent measured it, the mean
# CPU and block I/O wait seconds per task (its tracker's report at its end;
# the guests read their data over 9p, whose waits are no block I/O, so the
# latter stays near 0 however slow the share), and the cap timeline as
# libvirt reports it (schedinfo every 5 s), with the load average before
# and after. Both outputs are checked against answers
# computed here. At the end a table per arm, and the ratios the prediction
# gives (B/A, C/B, D/B, E/B, F/B, max/min). Everything started here is
# stopped by PID on exit, Ctrl-C included, and the guests' partition gets
# its quota and weight back.
#
#   demo/vmexp.sh [--quick] [--repeats N] [--arms "A B ..."] [--seed N]
#
# --quick: 12 MiB per job in 1 MiB splits, a 15 s DRS period, one repeat
# (a few minutes: to check the harness, not to measure). The full run: per
# job VMEXP_MB MiB (default 800: Homo about 10-15 min under TCG by
# tests/vm/calibrate.sh's costs at a quiet load; check the first run's
# times) in 4 MiB splits, a 120 s period, 3 repeats. KEEP_TMP=1 keeps the
# state directory; VMEXP_OUT (default $FLEXSLOT_BUILD/vmexp-DATE) gets the
# results; VMEXP_VCPUS=1 brings each guest up with 1 of its 2 vCPUs online.
#
# What TCG does not give, and how it is gone around: the guests have no
# steal clock (their /proc/stat steal is 0), so steal is the agent's
# (libvirt's vcpu.N.delay); vCPUs are never unplugged (unplug times out
# under TCG), so every arm moves CPU with caps and weights only. A cap is
# the whole VM's quota (libvirt's global_quota), as DRS and the simulator
# cap a VM; where libvirt has none the agent sets a quota per vCPU and
# says so in its log, and the timeline reads that.
set -eu
build=${FLEXSLOT_BUILD:?set by make vmexp}
src=${FLEXSLOT_SRCDIR:?set by make vmexp}
quick=no repeats=3 arms="A B C D E F" seed=1
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=yes ;;
	--repeats)
		repeats=${2:?--repeats N}
		shift
		;;
	--arms)
		arms=${2:?--arms "A B ..."}
		shift
		;;
	--seed)
		seed=${2:?--seed N}
		shift
		;;
	*)
		echo "vmexp: unknown argument '$1' (--quick, --repeats N, --arms LIST, --seed N)" >&2
		exit 2
		;;
	esac
	shift
done
case ${VMEXP_VCPUS:-2} in 1 | 2) ;; *)
	echo "vmexp: VMEXP_VCPUS '$VMEXP_VCPUS' is not 1 or 2" >&2
	exit 2
	;;
esac
for n in "$repeats" "$seed" "${VMEXP_MB:-800}"; do
	case $n in '' | *[!0-9]* | 0?*)
		echo "vmexp: '$n' is not a number" >&2
		exit 2
		;;
	esac
done
for a in $arms; do
	case $a in A | B | C | D | E | F) ;; *)
		echo "vmexp: unknown arm '$a' (A-F)" >&2
		exit 2
		;;
	esac
done
demo=vmexp
# shellcheck source=demo/guest-demo.sh
. "$src/demo/guest-demo.sh"

if [ "$quick" = yes ]; then
	mb=12 block=1M period=15 repeats=1
else
	mb=${VMEXP_MB:-800} block=4M period=120
fi
pool=1.6
vcpus=${VMEXP_VCPUS:-2}
guests="fs-x1 fs-x2 fs-x3 fs-x4"
out=${VMEXP_OUT:-$build/vmexp-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"

# run_failed WHY: a run went wrong. What shows why is kept in
# $out/failed-$run (the controller's log, each guest's console, the jobs'
# output files and, for a wrong answer, the first lines that differ)
# before the experiment stops: its state directory goes at exit.
run_failed() {
	_rf_dir=$out/failed-$run
	mkdir -p "$_rf_dir"
	cp "$log" "$_rf_dir/controller.log" 2>/dev/null || true
	for _rf_g in $guests; do
		cp "$vm_state/$_rf_g.console" "$_rf_dir/" 2>/dev/null || true
	done
	for _rf_j in $ii $wc; do
		ls -l "$data/out/$_rf_j" >"$_rf_dir/out-$_rf_j.ls" 2>&1 || true
	done
	for _rf_app in inverted-index wordcount; do
		[ -f "$vm_state/out-$_rf_app" ] || continue
		diff "$vm_state/expected-$_rf_app" "$vm_state/out-$_rf_app" | head -n 200 \
			>"$_rf_dir/$_rf_app.diff" || true
	done
	cannot "run $run: $* (kept: $_rf_dir)"
}
load() { cut -d' ' -f1-3 /proc/loadavg; }

echo "== vmexp: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -n), $(getconf _NPROCESSORS_ONLN) CPUs, load $(load)"
echo "   mode $([ "$quick" = yes ] && echo quick || echo full): $mb MiB per job in $block splits," \
	"DRS period and window ${period}s, $repeats repeat(s), arms $arms, seed $seed"
vm_lock 900 || cannot "another real-guest run held the lock for 15 minutes"

# On a busy 2-core host four TCG guests answer slowly: a heartbeat may take
# more than the default 10 s (demo_tcg_cluster_setup gives 30 s).
VMC_HOST_CPUS=$(getconf _NPROCESSORS_ONLN)
# DRS moves caps by hundredths of a CPU: the agent takes every move.
VMC_AGENT_LIMITS="min-cpu-cap-change = 0.01"
export VMC_HOST_CPUS VMC_AGENT_LIMITS
demo_tcg_cluster_setup "$block"

echo "== dataset: $mb MiB for each job (both read the same files)"
# Per 100 blocks: 88 regular files of a block, 12 expensive ones of a block
# of lines 8 times as long (workload.expensive_frac 0.12), and 33 small
# files of a quarter block (a quarter of the files, small_frac 0.25).
mkdir -p "$data/in"
bmb=${block%M}
blocks=$((mb / bmb))
lines=$((bmb * 1048576 / 33))
i=0
while [ "$i" -lt "$blocks" ]; do
	if [ $((i % 100 * 12 / 100)) -ne $(((i % 100 + 1) * 12 / 100)) ]; then
		gen_words $((seed * 100000 + i)) $((lines / 8)) 8 >"$data/in/exp$i"
	else
		gen_words $((seed * 100000 + i)) "$lines" >"$data/in/reg$i"
	fi
	if [ $((i % 3)) -eq 0 ]; then
		gen_words $((seed * 100000 + 50000 + i)) $((lines / 4)) >"$data/in/small$i"
	fi
	i=$((i + 1))
done
demo_inputs
wordcount_answer "$data"/in/* >"$vm_state/expected-wordcount"
# Inverted index: each word's files, sorted and joined by ','.
for f in "$data"/in/*; do
	tr ' ' '\n' <"$f" | sort -u | sed "s|\$|	${f##*/}|"
done | sort -t '	' -k1,1 -k2,2 | awk -F'\t' '
	$1 != w { if (NR > 1) print w "\t" l; w = $1; l = $2; next }
	{ l = l "," $2 }
	END { if (NR) print w "\t" l }' >"$vm_state/expected-inverted-index"
echo "   $(echo "$inputs" | wc -w) files, $(du -sk "$data/in" | cut -f1) KiB"

echo "== four guests: $vcpus of 2 vCPUs online, 384 MiB, 2 map slots and 1 reduce slot of 96M"
vmc_controller_start boot "slot-manager = static" || cannot "the controller did not start"
for g in $guests; do
	vmc_guest_start "$g" "$vcpus" 2 384 2 1 96M || cannot "cannot create $g"
done
# The guests' partition: on a machine where other work keeps 20 processes
# busy the four guests together got 6-8 % of a CPU each and did not boot in
# minutes (vmc_partition_take). Its weight becomes what its 8 vCPUs would
# have as processes of their own, and its quota the pool; both are put back
# on exit.
vmc_partition_take "$(vm_qemu_pid fs-x1)" 8192 || cannot "cannot weigh the guests' partition"
# shellcheck disable=SC2086 # the names
vmc_wait_registered 600 $guests || cannot "the trackers did not register"
vmc_controller_stop
echo "   registered in $(secs "$VMC_REGISTER_MS") s, each by its domain's UUID"

# The pool: a quota of 1.6 CPUs on the partition that holds every guest.
vmc_partition_quota "$pool"
echo "== pool: $pool CPUs for the guests (cfs quota on $VMC_PARTITION, cpu.shares 8192)"

# A guest's UUID, for reading ListVms (run_arm creates the guests anew).
uuid_of() { eval "echo \$uuid_${1#fs-}"; }

# The thresholds of Hadoop and FlexSlot are made for maps of a minute or
# more; maps here last seconds to tens of seconds (TCG), so they are scaled
# as make demo-vm scales them, for every arm alike, and FlexSlot waits one
# DRS period after a slot move before it measures again (settle).
scaled="speculation = hadoop
		spec_min_runtime = 8s
		late_min_runtime = 8s
		min_age = 4s
		settle = ${period}s
		new_task_window = 8s"
drs="pool = $pool
		drs_period = ${period}s
		drs_window = ${period}s
		drs_sample = 5s"
policy_of() {
	case $1 in
	A) printf 'slot-manager = static\nvm-allocator = homo\npool = %s\n%s' "$pool" "$scaled" ;;
	B) printf 'slot-manager = static\nvm-allocator = drs\n%s\n%s' "$drs" "$scaled" ;;
	C) printf 'slot-manager = flexslot\nvm-allocator = drs\n%s\n%s' "$drs" "$scaled" ;;
	D) printf 'slot-manager = flexslot\nvm-allocator = drs\nio_threshold = 1\n%s\n%s' "$drs" "$scaled" ;;
	E) printf 'slot-manager = flexslot\nvm-allocator = flexslot\nmin_vm_memory = 192M\n%s' "$scaled" ;;
	F) printf 'slot-manager = static\nvm-allocator = none\n%s' "$scaled" ;;
	esac
}
label_of() {
	case $1 in
	A) echo "homo + stock" ;;
	B) echo "DRS + stock" ;;
	C) echo "DRS + FlexSlot" ;;
	D) echo "DRS + FlexSlot, no Alg. 1" ;;
	E) echo "flexslot allocator + FlexSlot" ;;
	F) echo "KVM equal shares + stock" ;;
	esac
}

# cap_of GUEST: "CAP WEIGHT" as libvirt has them, CAP in CPUs or "none":
# the whole VM's quota (global_quota), or the quota per vCPU times the
# vCPUs; where both are set, the smaller.
cap_of() {
	vm_virsh schedinfo "$1" --live 2>/dev/null |
		awk -F': *' -v v="$vcpus" '$1 ~ /^cpu_shares/ { s = $2 }
			$1 ~ /^vcpu_period/ { p = $2 } $1 ~ /^vcpu_quota/ { q = $2 }
			$1 ~ /^global_period/ { gp = $2 } $1 ~ /^global_quota/ { gq = $2 }
			END { c = -1
				if (q + 0 > 0 && q + 0 < 1e12 && p + 0 > 0) c = v * q / p
				if (gq + 0 > 0 && gq + 0 < 1e12 && gp + 0 > 0 && (c < 0 || gq / gp < c)) c = gq / gp
				if (c >= 0) printf "%.2f %s", c, s; else printf "none %s", s }'
}

# progress MS STATE MAPS MAPS_DONE REDUCES REDUCES_DONE: a line, the steal
# and the caps as libvirt has them.
progress() {
	_t=$(secs "$1")
	_line=""
	vmc_ctl vms --no-legend >"$vm_state/vms" 2>/dev/null || true
	for g in $guests; do
		_s=$(awk -F'\t' -v u="$(uuid_of "$g")" '$2 == u { printf "%.2f", $7 }' "$vm_state/vms")
		[ -z "$_s" ] || echo "$g $_s" >>"$vm_state/steal-$run"
		_q=$(cap_of "$g")
		echo "$_t $g $_q" >>"$out/caps-$run.txt"
		_line="$_line ${g#fs-} ${_s:-?}/${_q%% *}"
	done
	printf '   [%6s s] %s maps %s/%s reduces %s/%s | steal/cap%s\n' "$_t" "${2:-}" "$4" "$3" "$6" "$5" "$_line"
}

# Whether libvirt holds a CPU quota on every guest; a miss pauses a second,
# so that vm_poll's tenths of a second become seconds.
all_capped() {
	for _g in $guests; do
		case $(cap_of "$_g") in none* | '')
			sleep 1
			return 1
			;;
		esac
	done
}

# run ARM REPEAT: a fresh controller, both jobs, the outputs checked, one
# line of results.
run_arm() {
	arm=$1 rep=$2
	run="$arm-$rep"
	: >"$vm_state/steal-$run"
	: >"$out/caps-$run.txt"
	load0=$(load)
	# Every run starts from freshly booted guests (default weight, no cap,
	# a cold page cache), whose trackers register with this run's
	# controller; the old ones go first, so that none of their trackers
	# registers with it.
	for g in $guests; do
		vm_virsh destroy "$g" >/dev/null 2>&1 || true
	done
	vmc_controller_start "$run" "$(policy_of "$arm")" || cannot "the controller did not start"
	for g in $guests; do
		vmc_guest_start "$g" "$vcpus" 2 384 2 1 96M || cannot "cannot create $g"
	done
	# shellcheck disable=SC2086 # the names
	vmc_wait_registered 600 $guests || cannot "the trackers did not register"
	for g in $guests; do
		eval "uuid_${g#fs-}=$(vm_virsh domuuid "$g")"
	done
	# The arms with caps start once every guest has its cap: the agent may
	# read a new domain's settings only after a while, and until it has,
	# the controller sends it no cap.
	case $arm in A | B | C | D)
		t_cap=$(vm_now_ms)
		# 120 tries of a second and more (all_capped pauses on a miss).
		if vm_poll 12 all_capped; then
			echo "   every guest capped $(secs $(($(vm_now_ms) - t_cap))) s after registering"
		else
			echo "   not every guest was capped 120 s after registering; the run goes on as it is"
		fi
		;;
	esac
	log="$vm_state/controller-$run.log"
	t0=$(vm_now_ms)
	# shellcheck disable=SC2086 # the inputs, one argument each
	ii=$(vmc_ctl submit --app=inverted-index --reduces=4 --name="ii-$run" $inputs) ||
		cannot "the inverted-index job was refused"
	# shellcheck disable=SC2086
	wc=$(vmc_ctl submit --app=wordcount --reduces=4 --name="wc-$run" $inputs) ||
		cannot "the wordcount job was refused"
	vmc_job_wait "$ii" 7200 progress || run_failed "job $ii $VMC_JOB_STATE"
	t_ii=$(($(vm_now_ms) - t0))
	vmc_job_wait "$wc" 7200 progress || run_failed "job $wc $VMC_JOB_STATE"
	t_all=$(($(vm_now_ms) - t0))
	for app in inverted-index wordcount; do
		job=$ii
		[ "$app" = wordcount ] && job=$wc
		sort "$data/out/$job"/part-* >"$vm_state/out-$app"
		cmp -s "$vm_state/out-$app" "$vm_state/expected-$app" ||
			run_failed "the $app output (job $job) differs from the answer computed here"
	done
	maps=""
	for g in $guests; do
		node=$(vmc_node "$g" | cut -d' ' -f1)
		maps="$maps $(grep -c "Tracker $node: attempt [0-9]* of job [0-9]* map " "$log" || true)"
	done
	# Each task's CPU and block I/O wait seconds, as its tracker reported
	# them at its end (flexslotctl show: columns 9 and 10, -1 when not
	# reported): the means over the succeeded attempts of both jobs.
	for job in $ii $wc; do
		vmc_ctl --no-legend show "$job"
	done >"$vm_state/attempts-$run"
	usage=$(awk -F'\t' '($2 == "map" || $2 == "reduce") && $5 == "succeeded" && $9 >= 0 {
			n++; cpu += $9; io += $10 }
		END { if (n) printf "%.2f\t%.3f", cpu / n, io / n; else printf "?\t?" }' \
		"$vm_state/attempts-$run")
	kills=$(grep -c 'Kill: attempt' "$log" || true)
	moves=$(grep -c 'Slots: tracker' "$log" || true)
	sent=$(grep -c 'VM .* (node [0-9]*) on agent .*: target ' "$log" || true)
	steal=$(awk '{ s += $2; n++ } END { if (n) printf "%.2f", s / n; else print "?" }' "$vm_state/steal-$run")
	capmoves=$(awk '{ k = $2; if (k in last && last[k] != $3) n++; last[k] = $3 } END { print n + 0 }' \
		"$out/caps-$run.txt")
	# shellcheck disable=SC2086 # the counts
	set -- $maps
	mm=$(printf '%s\n' "$@" | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 }
		END { if (lo > 0) printf "%.2f", hi / lo; else print "inf" }')
	# shellcheck disable=SC2086 # the counts, one word each
	maplist=$(echo $maps | tr ' ' ,)
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$arm" "$rep" "$(secs "$t_all")" "$(secs "$t_ii")" \
		"$maplist" "$mm" "$kills" "$moves" "$sent" "$capmoves" "$steal" \
		"$load0 / $(load)" "$usage" >>"$out/runs.tsv"
	echo "   done in $(secs "$t_all") s (inverted-index $(secs "$t_ii") s); outputs verified;" \
		"maps per guest$maps (max/min $mm); kills $kills, slot moves $moves, targets $sent," \
		"cap changes seen $capmoves; per task CPU and I/O wait $(echo "$usage" | tr '\t' /) s;" \
		"load $load0 -> $(load)"
	cp "$log" "$out/controller-$run.log"
	rm -rf "${data:?}/out"
	vmc_controller_stop
}

printf 'arm\trepeat\tjct_s\tii_s\tmaps\tmax_min\tkills\tslot_moves\ttargets\tcap_changes\tsteal\tload\ttask_cpu_s\ttask_iowait_s\n' \
	>"$out/runs.tsv"
r=1
while [ "$r" -le "$repeats" ]; do
	order=$(echo "$arms" | tr ' ' '\n' | awk -v s=$((seed * 1000 + r)) 'BEGIN { srand(s) }
		{ print rand() "\t" $0 }' | sort -n | cut -f2 | tr '\n' ' ')
	echo "== repeat $r of $repeats, order: $order"
	for a in $order; do
		echo "== arm $a ($(label_of "$a")), repeat $r"
		run_arm "$a" "$r"
	done
	r=$((r + 1))
done

echo "== results ($out/runs.tsv; cap timelines caps-ARM-REPEAT.txt: time, guest, cap in CPUs, weight)"
awk -F'\t' -v arms="$arms" '
	NR == 1 { next }
	{ n[$1]++; j[$1] += $3; if (!($1 in lo) || $3 < lo[$1]) lo[$1] = $3; if ($3 > hi[$1]) hi[$1] = $3
	  mm[$1] = mm[$1] (mm[$1] == "" ? "" : ",") $6; k[$1] += $7; m[$1] += $8; t[$1] += $9; c[$1] += $10
	  st[$1] += $11
	  if ($13 != "?") { nu[$1]++; cpu[$1] += $13; io[$1] += $14 } }
	END {
		split("A:homo + stock|B:DRS + stock|C:DRS + FlexSlot|D:C without Alg. 1|E:flexslot allocator|F:KVM equal shares", L, "|")
		for (i in L) { split(L[i], p, ":"); label[p[1]] = p[2] }
		printf "%-3s %-22s %4s %16s %16s %7s %7s %8s %8s %7s %8s %8s\n", "arm", "", "runs", "JCT s (min-max)", "maps max/min", "kills", "moves", "targets", "capchg", "steal", "cpu/task", "io/task"
		na = split(arms, a, " ")
		for (i = 1; i <= na; i++) { x = a[i]; if (!n[x]) continue
			printf "%-3s %-22s %4d %7.1f (%.0f-%.0f) %16s %7.1f %7.1f %8.1f %8.1f %7.2f", x, label[x], n[x], j[x] / n[x], lo[x], hi[x], mm[x], k[x] / n[x], m[x] / n[x], t[x] / n[x], c[x] / n[x], st[x] / n[x]
			if (nu[x]) printf " %8.2f %8.3f\n", cpu[x] / nu[x], io[x] / nu[x]; else printf " %8s %8s\n", "?", "?" }
		printf "\nratios of mean JCT (the prediction gives the same, sim/predictions/):"
		split("B/A C/B D/B E/B F/B", R, " ")
		for (i = 1; i <= 5; i++) { split(R[i], q, "/"); if (n[q[1]] && n[q[2]]) printf " %s %.3f", R[i], (j[q[1]] / n[q[1]]) / (j[q[2]] / n[q[2]]); else printf " %s -", R[i] }
		printf "\n"
	}' "$out/runs.tsv" | tee "$out/table.txt"
[ "$quick" = no ] || echo "(quick mode: one small run per arm checks the harness; its times are no measurement)"
echo "vmexp: results in $out"

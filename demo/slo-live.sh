#!/bin/sh
# `make slo-live` (`make slo-live-quick`): issue 21's comparison on the live
# cluster at small scale, on real guests (tests/vm/cluster.sh, as `make
# vmexp`). Two guests of 2 vCPUs and 384 MiB, each a tracker of 2 map
# slots and 1 reduce slot, and a third guest of 2 vCPUs that is no
# tracker's: another tenant's, running a busy loop on each vCPU. All three
# share a pool of SLO_POOL host CPUs (default 1.5: a CFS quota on libvirt's
# /machine partition), by their CPU weights. A wordcount over a synthetic
# text set runs first alone (the tenant's guest not yet up) under ARIA with
# no deadline: its time alone, T, and the ARIA profile it leaves, which
# each arm's controller starts from (a copy of that store). Then, beside
# the tenant, each arm runs the same job due SLO_FACTOR x T (default 1.3)
# after its submission:
#
#   aria   ARIA alone: scheduler aria, static slots, no VM allocator
#   lever  ARIA and the lever only: aria's with slo_lever (the simulator's
#          "lever alone" arm), what the hypervisor's weight alone does
#   loop   the one loop: ARIA with FlexSlot's slot manager and slo_speed,
#          slo_favour and slo_lever (the simulator's loop arm)
#
# Per arm: whether the deadline was met (the job's time from just before
# its submission, against the deadline from its submission), the tenant's
# CPU over exactly the job's span as the controller reports it (from its
# submission to its end: the guest's CPU time sampled before the
# submission, every 5 s and at the end, interpolated at both), its share of
# the pool, and its slowdown against the aria arm's (ARIA's CPU over this
# arm's: a busy loop's work is its CPU, so this is the price), the CPU weights
# libvirt held for the tenant's guest and the trackers' (read every 5 s
# with virsh schedinfo: the lever's weights as they reached the guests,
# bounded by the agent's limits), and the lever's and the forecasts' lines
# of the controller's log. Every arm starts with every
# guest at weight 1024. Everything started here is stopped by PID on exit,
# Ctrl-C included, and the guests' partition gets its quota and weight back.
#
#   demo/slo-live.sh [--quick] [--arms "aria lever loop"]
#
# --quick: 8 MiB in 1 MiB splits (a few minutes: to check the harness, not
# to measure). The full run: SLO_MB MiB (default 96) in 4 MiB splits.
# KEEP_TMP=1 keeps the state directory; SLO_OUT (default
# $FLEXSLOT_BUILD/slo-live-DATE) gets the results.
set -eu
build=${FLEXSLOT_BUILD:?set by make slo-live}
src=${FLEXSLOT_SRCDIR:?set by make slo-live}
quick=no arms="aria lever loop"
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=yes ;;
	--arms)
		arms=${2:?--arms "aria lever loop"}
		shift
		;;
	*)
		echo "slo-live: unknown argument '$1' (--quick, --arms LIST)" >&2
		exit 2
		;;
	esac
	shift
done
for a in $arms; do
	case $a in aria | lever | loop) ;; *)
		echo "slo-live: unknown arm '$a' (aria, lever, loop)" >&2
		exit 2
		;;
	esac
done
case ${SLO_MB:-96} in '' | *[!0-9]* | 0*)
	echo "slo-live: SLO_MB '$SLO_MB' is not a positive number" >&2
	exit 2
	;;
esac
for x in "${SLO_FACTOR:-1.3}" "${SLO_POOL:-1.5}"; do
	case $x in '' | *[!0-9.]* | *.*.* | .*)
		echo "slo-live: '$x' is not a number" >&2
		exit 2
		;;
	esac
done
demo=slo-live
# shellcheck source=demo/guest-demo.sh
. "$src/demo/guest-demo.sh"

if [ "$quick" = yes ]; then
	mb=8 block=1M
else
	mb=${SLO_MB:-96} block=4M
fi
factor=${SLO_FACTOR:-1.3}
pool=${SLO_POOL:-1.5}
trackers="fs-s1 fs-s2"
tenant=fs-tenant
out=${SLO_OUT:-$build/slo-live-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"

echo "== slo-live: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -n), $(getconf _NPROCESSORS_ONLN) CPUs," \
	"load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "   mode $([ "$quick" = yes ] && echo quick || echo full): $mb MiB in $block splits," \
	"deadline $factor x the job alone, pool $pool CPUs, arms $arms"
vm_lock 900 || cannot "another real-guest run held the lock for 15 minutes"

# The lever splits a host's CPUs by weight: the pool, rounded up, and no
# more. The controller takes the CPUs the agent offers as the host's: with
# cluster.sh's threefold overcommit it saw 6 CPUs for the guests' 6 vCPUs,
# room for all, and the lever moved no weight.
VMC_HOST_CPUS=$(awk -v p="$pool" 'BEGIN { c = int(p); print (c < p ? c + 1 : c) }')
VMC_CPU_OVERCOMMIT=1
export VMC_HOST_CPUS VMC_CPU_OVERCOMMIT
demo_tcg_cluster_setup "$block"

echo "== dataset: $mb MiB of text"
mkdir -p "$data/in"
bmb=${block%M}
i=0
while [ "$i" -lt $((mb / bmb)) ]; do
	gen_words $((100000 + i)) $((bmb * 1048576 / 33)) >"$data/in/part$i"
	i=$((i + 1))
done
demo_inputs
wordcount_answer "$data"/in/* >"$vm_state/expected"

# The thresholds of Hadoop and FlexSlot scaled to TCG's short tasks, as
# `make vmexp` scales them, for both arms.
scaled="speculation = hadoop
		spec_min_runtime = 8s
		late_min_runtime = 8s
		min_age = 4s
		new_task_window = 8s"
policy_of() {
	case $1 in
	profile | aria) printf 'scheduler = aria\nslot-manager = static\n%s' "$scaled" ;;
	lever) printf 'scheduler = aria\nslot-manager = static\nslo_lever = yes\n%s' "$scaled" ;;
	loop)
		printf 'scheduler = aria\nslot-manager = flexslot\nslo_speed = yes\nslo_favour = yes\n'
		printf 'slo_lever = yes\n%s' "$scaled"
		;;
	esac
}

# weights MS: each guest's CPU weight as libvirt holds it, into the run's
# timeline, and the tenant's CPU time.
weights() {
	cpu_sample
	_line=""
	for g in $trackers $tenant; do
		_w=$(vm_virsh schedinfo "$g" --live 2>/dev/null | awk -F': *' '$1 ~ /^cpu_shares/ { print $2 }')
		echo "$(secs "$1") $g ${_w:-?}" >>"$out/weights-$run.txt"
		_line="$_line ${g#fs-} ${_w:-?}"
	done
	printf '   [%6s s] %s maps %s/%s reduces %s/%s | weights%s\n' "$(secs "$1")" "${2:-}" "$4" "$3" \
		"$6" "$5" "$_line"
}

# cpu_sample: the tenant's CPU time (ns) at this realtime (us), into the
# run's CPU timeline.
cpu_sample() {
	_c=$(vm_domstat "$tenant" cpu.time)
	[ -z "$_c" ] || echo "$(date +%s%6N) $_c" >>"$out/cpu-$run.txt"
}

# run_job RUN [DEADLINE_S]: a fresh controller of the run's policy on a
# copy of the profile run's store, the job, its output checked; sets T_MS.
run_job() {
	run=$1
	: >"$out/weights-$run.txt"
	: >"$out/cpu-$run.txt"
	if [ "$run" != profile ]; then
		cp "$vm_state/store-profile.db" "$vm_state/store-$run.db"
		[ ! -f "$vm_state/store-profile.db-wal" ] ||
			cp "$vm_state/store-profile.db-wal" "$vm_state/store-$run.db-wal"
	fi
	for g in $trackers $tenant; do
		vm_virsh schedinfo "$g" --live --set cpu_shares=1024 >/dev/null 2>&1 || true
	done
	vmc_controller_start "$run" "$(policy_of "$run")" || cannot "the controller did not start"
	# shellcheck disable=SC2086 # the names
	vmc_wait_registered 600 $trackers || cannot "the trackers did not register"
	cpu_sample
	t0=$(vm_now_ms)
	# shellcheck disable=SC2086 # the inputs, one argument each
	job=$(vmc_ctl submit --app=wordcount --reduces=2 --name=slo ${2:+--deadline=${2}s} $inputs) ||
		cannot "run $run: the job was refused"
	vmc_job_wait "$job" 7200 weights || cannot "run $run: job $job $VMC_JOB_STATE"
	T_MS=$(($(vm_now_ms) - t0))
	cpu_sample
	# The job's span as the controller reports it: submitted and finished,
	# realtime us.
	SPAN=$(vmc_ctl --json show "$job" | sed 's/[,{}]/\n/g' |
		awk -F': *' '$1 ~ /"submitted"$/ { s = $2 } $1 ~ /"finished"$/ { f = $2 }
			END { if (s > 0 && f > s) print s, f }')
	[ -n "$SPAN" ] || cannot "run $run: job $job has no submission and end times"
	sort "$data/out/$job"/part-* >"$vm_state/out"
	cmp -s "$vm_state/out" "$vm_state/expected" ||
		cannot "run $run: the output differs from the answer computed here"
	rm -rf "${data:?}/out"
	vmc_controller_stop
	cp "$vm_state/controller-$run.log" "$out/"
}

echo "== two tracker guests: 2 vCPUs, 384 MiB, 2 map slots and 1 reduce slot of 96M"
vmc_controller_start boot "slot-manager = static" || cannot "the controller did not start"
for g in $trackers; do
	vmc_guest_start "$g" 2 2 384 2 1 96M || cannot "cannot create $g"
done
vmc_partition_take "$(vm_qemu_pid fs-s1)" 8192 || cannot "cannot weigh the guests' partition"
# shellcheck disable=SC2086 # the names
vmc_wait_registered 600 $trackers || cannot "the trackers did not register"
vmc_controller_stop
vmc_partition_quota "$pool"
echo "   registered in $(secs "$VMC_REGISTER_MS") s; the pool: $pool CPUs on $VMC_PARTITION"

echo "== the job alone (no tenant yet), under ARIA without a deadline: its time and profile"
run_job profile
alone=$T_MS
deadline=$(awk -v t="$alone" -v f="$factor" 'BEGIN { printf "%d", t * f / 1000 + 0.999 }')
echo "   alone in $(secs "$alone") s; each arm's deadline: ${deadline} s"

echo "== the tenant's guest: 2 vCPUs, a busy loop on each"
GUEST_VCPUS=2
export GUEST_VCPUS
vm_boot "$tenant" "$(vm_accel)" 128 2 2 600 || cannot "the tenant's guest did not boot"
unset GUEST_VCPUS

# span_cpus FROM TO: the tenant's CPUs (CPU seconds a second) from FROM to
# TO (realtime us), its CPU time interpolated linearly between the samples
# around each.
span_cpus() {
	awk -v from="$1" -v to="$2" '
		function at(t, i) {
			for (i = 2; i <= n; i++)
				if (ts[i] >= t)
					return cs[i - 1] + (cs[i] - cs[i - 1]) * (t - ts[i - 1]) / (ts[i] - ts[i - 1])
			return ""
		}
		$1 > ts[n] { n++; ts[n] = $1; cs[n] = $2 }
		END {
			if (n < 2 || ts[1] > from || ts[n] < to) { print "?"; exit }
			printf "%.3f\n", (at(to) - at(from)) / 1e9 / ((to - from) / 1e6)
		}' "$out/cpu-$run.txt"
}

printf 'arm\tdeadline_s\tjct_s\tmet\tspan_s\ttenant_cpus\ttenant_share\ttenant_slowdown\ttenant_weight_min\ttracker_weight_max\tlever_lines\tlate_forecasts\n' \
	>"$out/runs.tsv"
for arm in $arms; do
	echo "== arm $arm, due in $deadline s"
	run_job "$arm" "$deadline"
	# shellcheck disable=SC2086 # the span's two times
	cpus=$(span_cpus $SPAN)
	log="$out/controller-$arm.log"
	lever=$(grep -c 'Lever: VM' "$log" || true)
	late=$(grep -c 'Forecast: job .*: late$' "$log" || true)
	awk -v OFS='\t' -v arm="$arm" -v d="$deadline" -v t="$T_MS" -v span="$SPAN" -v cpus="$cpus" \
		-v pool="$pool" -v lever="$lever" -v late="$late" -v tenant="$tenant" '
		$3 == "?" { next }
		$2 == tenant { if (tw == "" || $3 + 0 < tw + 0) tw = $3; next }
		$3 + 0 > mw + 0 { mw = $3 }
		END {
			split(span, s, " ")
			known = cpus != "?"
			print arm, d, sprintf("%.1f", t / 1000), (t / 1000 <= d ? "yes" : "no"),
				sprintf("%.1f", (s[2] - s[1]) / 1e6), (known ? sprintf("%.2f", cpus) : "?"),
				(known ? sprintf("%.2f", cpus / pool) : "?"),
				"-",
				tw, mw, lever, late
		}' "$out/weights-$arm.txt" >>"$out/runs.tsv"
	echo "   $(tail -n 1 "$out/runs.tsv")"
done

# The price, once every arm has run, whatever their order: aria's CPUs over
# each arm's.
awk -F'\t' -v OFS='\t' 'NR == FNR { if ($1 == "aria") aria = $6; next }
	FNR > 1 && aria != "" && aria != "?" && $6 != "?" && $6 > 0 { $8 = sprintf("%.2f", aria / $6) }
	{ print }' "$out/runs.tsv" "$out/runs.tsv" >"$out/runs.tsv.priced"
mv "$out/runs.tsv.priced" "$out/runs.tsv"
echo "== results ($out/runs.tsv; weight timelines weights-ARM.txt: time, guest, cpu_shares)"
awk -F'\t' 'NR == 1 { next }
	{ printf "%-5s deadline %s s: %s in %s s; over a span of %s s the tenant used %s CPUs (%s of the pool), slowdown %s against aria; its weight down to %s, the trackers up to %s; %s lever lines, %s late forecasts\n",
		$1, $2, ($4 == "yes" ? "met" : "missed"), $3, $5, $6, $7, $8, $9, $10, $11, $12 }' "$out/runs.tsv" |
	tee "$out/table.txt"
echo "   the job alone: $(secs "$alone") s"
echo "   the price: the tenant's slowdown is its CPUs over the job's span under aria divided by"
echo "   this arm's (its busy loop's work is its CPU time); the arms ran one after another, so"
echo "   the machine's other load differs between them"
echo "   one run of each arm, of one job: a deadline met or missed here is no rate"
[ "$quick" = no ] || echo "(quick mode: small runs check the harness; their times are no measurement)"
echo "slo-live: results in $out"

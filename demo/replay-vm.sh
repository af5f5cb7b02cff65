#!/bin/sh
# `make replay-vm` (`make replay-vm-quick`): the first jobs of SWIM's
# Facebook trace replayed on real guests and in the simulator, side by
# side. Four guests of 2 vCPUs and 384 MiB, a tracker each with 2 map
# slots and 1 reduce slot, share a pool of 1.6 host CPUs, as in make
# vmexp; stock Hadoop without caps (vmexp's arm F). tools/swim-load.sh
# writes each job's input (its scaled bytes of a text of the kind the
# costs were measured on, tests/vm/calibrate.sh) and submits the jobs at
# their scaled times; sim/predict-replay.sh gives the simulator's
# prediction for the same jobs (flexslot-sim replay --live, seeds 1-5),
# whose committed copy (sim/predictions/) came before any live run. The
# parameters both read are sim/replay-vm.params.
#
# Printed: each job's completion time live and predicted (the seeds' mean
# and range), then the figures compared: the jobs' mean, p50 and p95, the
# median of live over predicted per job, how many jobs fall in the
# predicted range, and the rank correlation; then those figures again for
# the model with each of REPLAY_VARIANTS (how much the comparison depends
# on each choice). Each job's output is checked:
# its counts add up to the words of its input. The host CPU the guests use
# (their QEMU processes) is printed idle, before the jobs, and over the
# run beside what the model charges. Everything started here is
# stopped by PID on exit, Ctrl-C included.
#
#   demo/replay-vm.sh [--quick] [--skip N] [--jobs N]
#
# --skip N: the jobs after the trace's first N (a slice held out while the
# model was changed; replay_slice in sim/replay-vm.params).
# --quick: the first 10 jobs (a few minutes: to check the harness). The
# full run: REPLAY_JOBS of sim/replay-vm.params (100, about 4 minutes of
# submissions). KEEP_TMP=1 keeps the state directory; REPLAY_OUT (default
# $FLEXSLOT_BUILD/replay-vm-DATE) gets the results.
set -eu
build=${FLEXSLOT_BUILD:?set by make replay-vm}
src=${FLEXSLOT_SRCDIR:?set by make replay-vm}
# shellcheck source=sim/replay-vm.params
. "$src/sim/replay-vm.params"
jobs=$REPLAY_JOBS
skip=0
while [ $# -gt 0 ]; do
	case $1 in
	--quick) jobs=10 ;;
	--jobs)
		jobs=${2:?--jobs N}
		shift
		;;
	--skip)
		skip=${2:?--skip N}
		shift
		;;
	*)
		echo "replay-vm: unknown argument '$1' (--quick, --skip N, --jobs N)" >&2
		exit 2
		;;
	esac
	shift
done
replay_counts_check replay-vm "$skip" "$jobs"
demo=replay-vm
# shellcheck source=demo/guest-demo.sh
. "$src/demo/guest-demo.sh"

pool=1.6
guests="fs-x1 fs-x2 fs-x3 fs-x4"
out=${REPLAY_OUT:-$build/replay-vm-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"
load() { cut -d' ' -f1-3 /proc/loadavg; }
# guests_cpu: the host CPU seconds the guests' QEMU processes have used
# (every thread: vCPUs, I/O, the 9p server), all of it inside the pool.
guests_cpu() {
	for _gc_g in $guests; do
		cut -d' ' -f14,15 "/proc/$(vm_qemu_pid "$_gc_g")/stat"
	done | awk -v hz="$(getconf CLK_TCK)" '{ t += $1 + $2 } END { printf "%.1f", t / hz }'
}

echo "== replay-vm: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -n), $(getconf _NPROCESSORS_ONLN) CPUs, load $(load)"
echo "   $jobs jobs of $REPLAY_TRACE after its first $skip, data x$REPLAY_SCALE_DATA, submissions x$REPLAY_SCALE_TIME"
vm_lock 900 || cannot "another real-guest run held the lock for 15 minutes"
VMC_HOST_CPUS=$(getconf _NPROCESSORS_ONLN)
export VMC_HOST_CPUS
demo_tcg_cluster_setup "$((REPLAY_BLOCK / 1048576))M"

# The text every input repeats: the kind tests/vm/calibrate.sh measured
# wordcount's costs on (gen_words), about a block of it.
gen_words 41 $((REPLAY_BLOCK / 33)) >"$vm_state/text"
replay_slice "$skip" "$jobs" >"$vm_state/trace.tsv"

echo "== four guests: 2 vCPUs, 384 MiB, 2 map slots and 1 reduce slot of 96M; stock, no caps"
# vmexp's arm F, with its thresholds scaled to maps of seconds
# (scenarios/vmexp.ini has the same).
vmc_controller_start replay "slot-manager = static
		vm-allocator = none
		speculation = hadoop
		spec_min_runtime = 8s
		late_min_runtime = 8s
		min_age = 4s
		new_task_window = 8s" || cannot "the controller did not start"
for g in $guests; do
	vmc_guest_start "$g" 2 2 384 2 1 96M || cannot "cannot create $g"
done
vmc_partition_take "$(vm_qemu_pid fs-x1)" 8192 || cannot "cannot weigh the guests' partition"
# shellcheck disable=SC2086 # the names
vmc_wait_registered 600 $guests || cannot "the trackers did not register"
echo "   registered in $(secs "$VMC_REGISTER_MS") s"
vmc_partition_quota "$pool"
echo "== pool: $pool CPUs for the guests (cfs quota on $VMC_PARTITION)"

# What the guests cost the pool with no job: their kernels, QEMU and the
# trackers' heartbeats, which the model does not have.
cpu_idle=$(guests_cpu)
sleep 20
idle=$(awk -v a="$cpu_idle" -v b="$(guests_cpu)" 'BEGIN { printf "%.2f", (b - a) / 20 }')
echo "   idle, the guests use $idle host CPUs of the pool"
echo "== submitting at the trace's times (tools/swim-load.sh)"
load0=$(load)
cpu0=$(guests_cpu)
t0=$(vm_now_ms)
sh "$src/tools/swim-load.sh" --scale-time "$REPLAY_SCALE_TIME" --scale-data "$REPLAY_SCALE_DATA" \
	--block "$REPLAY_BLOCK" --max-reduces "$REPLAY_MAX_REDUCES" --text "$vm_state/text" \
	--address "$VMC_ADDRESS" --ctl "$build/bin/flexslotctl" "$data" "$vm_state/trace.tsv" \
	>"$out/submitted.txt" || cannot "tools/swim-load.sh failed"
echo "   $(wc -l <"$out/submitted.txt") jobs submitted; waiting for them"
while read -r name id; do
	vmc_job_wait "$id" 3600 || cannot "job $id ($name) $VMC_JOB_STATE: $(vmc_ctl show "$id")"
	# Its output: every word of its input counted once.
	words=$(wc -w <"$data/swim/$name")
	counted=$(cat "$data/out/$id"/part-* | awk -F'\t' '{ n += $2 } END { print n + 0 }')
	[ "$words" -eq "$counted" ] || cannot "job $id ($name) counted $counted words of $words"
done <"$out/submitted.txt"
echo "   every job succeeded, each output's counts the words of its input; load $load0 -> $(load)"
used=$(awk -v a="$cpu0" -v b="$(guests_cpu)" 'BEGIN { print b - a }')
secs=$(secs $(($(vm_now_ms) - t0)))

# Each job's completion: finished - submitted, in microseconds in the
# controller's JSON, one job per object.
vmc_ctl --json list >"$out/jobs.json"
tr -d '\n' <"$out/jobs.json" | tr '}' '\n' | awk '
	{ name = $0; sub(/.*"name": *"/, "", name); sub(/".*/, "", name)
	  s = $0; sub(/.*"submitted": */, "", s); sub(/[,} ].*/, "", s)
	  f = $0; sub(/.*"finished": */, "", f); sub(/[,} ].*/, "", f)
	  if (name != $0 && s + 0 > 0 && f + 0 > 0) printf "%s %.3f\n", name, (f - s) / 1e6 }' \
	>"$out/live.txt"
[ "$(wc -l <"$out/live.txt")" -eq "$jobs" ] ||
	cannot "read $(wc -l <"$out/live.txt") jobs' times of $jobs from the controller ($out/jobs.json)"
vmc_ctl --no-legend list >"$out/jobs.txt"
for id in $(awk '{ print $2 }' "$out/submitted.txt"); do
	vmc_ctl --json show "$id"
done >"$out/attempts.json"

# side_by_side PREDICTION NAME: each job live and as PREDICTION
# (sim/predict-replay.sh's output) has it into $out/NAME-jobs.txt, and the
# figures compared into $out/NAME.txt and on stdout.
side_by_side() {
	awk 'FNR == NR { if ($1 == "PRED") { m[$2] = $3; r[$2] = $4; p[$2] = $5; lo[$2] = $6; hi[$2] = $7 }; next }
		{ printf "%-8s %4d %4d %9.2f %9.2f (%.2f-%.2f) %6.2f\n", $1, m[$1], r[$1], $2, p[$1], lo[$1], hi[$1], $2 / p[$1] }' \
		"$1" "$out/live.txt" >"$out/$2-jobs.txt"
	{
		printf '%-34s %9s %9s\n' "" live predicted
		printf '%-34s %9s %9s\n' "completion p50 s" "$(quantile "$2" 4 0.5)" "$(quantile "$2" 5 0.5)"
		printf '%-34s %9s %9s\n' "completion p95 s" "$(quantile "$2" 4 0.95)" "$(quantile "$2" 5 0.95)"
		awk '
		function rank(v, i, n,    j, below, same) {
			for (j = 1; j <= n; j++) { below += v[j] < v[i]; same += v[j] == v[i] }
			return below + (same + 1) / 2
		}
		{ n++; live[n] = $4; pred[n] = $5; sl += $4; sp += $5
		  lo = $6; sub(/^\(/, "", lo); sub(/-.*/, "", lo); hi = $6; sub(/.*-/, "", hi); sub(/\)$/, "", hi)
		  inside += ($4 >= lo - 0.05 && $4 <= hi + 0.05) }
		END {
			# Spearman: the ranks of live and predicted (ties share the mean rank).
			for (i = 1; i <= n; i++) { rl[i] = rank(live, i, n); rp[i] = rank(pred, i, n); ml += rl[i] / n; mp += rp[i] / n }
			for (i = 1; i <= n; i++) { cov += (rl[i] - ml) * (rp[i] - mp); vl += (rl[i] - ml) ^ 2; vp += (rp[i] - mp) ^ 2 }
			printf "%-34s %9.2f %9.2f\n", "completion mean s", sl / n, sp / n
			printf "jobs whose live time is in the seeds'"'"' range (+-0.05 s): %d of %d\n", inside, n
			printf "rank correlation (Spearman) of live and predicted: %.3f\n", (vl > 0 && vp > 0) ? cov / sqrt(vl * vp) : 0
		}' "$out/$2-jobs.txt"
		printf 'per job, live over predicted: median %s, p5 %s, p95 %s\n' "$(quantile "$2" 7 0.5)" \
			"$(quantile "$2" 7 0.05)" "$(quantile "$2" 7 0.95)"
	} | tee "$out/$2.txt"
}
# quantile NAME COLUMN P: nearest rank over the jobs of $out/NAME-jobs.txt.
quantile() {
	awk -v c="$2" '{ print $c }' "$out/$1-jobs.txt" | nearest_rank "$3"
}

echo "== the simulator's prediction for the same jobs (sim/predict-replay.sh, seeds 1-5)"
sh "$src/sim/predict-replay.sh" "$build" --skip "$skip" --jobs "$jobs" >"$out/prediction.txt" ||
	cannot "sim/predict-replay.sh failed"
# What the model charges the jobs: their maps' input times wordcount's map
# CPU per MB in the replay's workload file (the reduces add under 1 %),
# and each task's launch; beside it, what the guests used beyond their
# idle rate.
cpu_model=$(awk -F, '$1 == "wordcount" { print $3 }' "$src/sim/workloads/$REPLAY_COSTS")
tasks=$(awk '$1 == "PRED" { n += $3 + $4 } END { print n + 0 }' "$out/prediction.txt")
awk -F'\t' -v sd="$REPLAY_SCALE_DATA" -v c="$cpu_model" -v used="$used" -v secs="$secs" \
	-v pool="$pool" -v idle="$idle" -v tasks="$tasks" -v launch="$REPLAY_LAUNCH_CPU" '
	{ mb += int($4 * sd + 0.5) / 1048576 }
	END { printf "== CPU: the guests used %.1f host CPU-s in %s s (%.2f of the %s CPUs), %.1f beyond their idle %s CPUs;\n",
		used, secs, used / secs, pool, used - idle * secs, idle
		printf "   the model charges %.1f CPU-s: %.0f MB of maps at %s s/MB and %d tasks launched at %s s\n",
		mb * c + tasks * launch, mb, c, tasks, launch }' "$vm_state/trace.tsv" | tee "$out/cpu.txt"
echo "== side by side ($out/model-jobs.txt): the model, sim/replay-vm.params's"
printf '%-8s %4s %4s %9s %9s %13s %6s\n' job maps red live_s predicted range ratio
side_by_side "$out/prediction.txt" model >/dev/null
cat "$out/model-jobs.txt"
echo
cat "$out/model.txt"
# A variant is [NAME:]SET[,SET...]; without a NAME, its one SET names it.
for variant in $REPLAY_VARIANTS; do
	sets=${variant#*:}
	name=$(echo "${variant%%:*}" | tr '.=' '--')
	# shellcheck disable=SC2046 # a --set for each of the sets
	sh "$src/sim/predict-replay.sh" "$build" --skip "$skip" --jobs "$jobs" \
		$(echo "$sets" | tr ',' '\n' | sed 's/^/--set /') >"$out/prediction-$name.txt" ||
		cannot "sim/predict-replay.sh with $sets failed"
	if [ "$sets" = "$variant" ]; then
		echo "== the model with $sets"
	else
		echo "== the model with $sets (${variant%%:*})"
	fi
	side_by_side "$out/prediction-$name.txt" "$name"
done
echo "replay-vm: results in $out"

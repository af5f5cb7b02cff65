#!/bin/sh
# The simulator's prediction for a replay of SWIM's Facebook trace on the
# real guests (demo/replay-vm.sh): the first N jobs of the trace on
# scenarios/vmexp.ini's cluster (four TCG guests of 2 map and 1 reduce
# slots in a pool of 1.6 CPUs) with the costs on the host's clock
# (sim/replay-vm.params's REPLAY_SIM_SETS), stock Hadoop without caps
# (vmexp's arm F: drs.enabled=no), each job as
# tools/swim-load.sh runs it live (flexslot-sim replay --live), over seeds
# 1-5. Prints each job's predicted completion time (the mean and range
# over the seeds) and, last, the figures a live run is compared on, so
# that the prediction is committed before a live run is put beside it.
#
#   sim/predict-replay.sh BUILD [--skip N] [--jobs N] [--set SECTION.KEY=VALUE]...
#
# --skip N: the jobs after the trace's first N (replay_slice of the
# parameters' file), e.g. a slice held out while the model was changed.
# The replay's parameters are sim/replay-vm.params, which the live side
# reads too. --set changes the scenario (an assumption's sensitivity);
# the per-job lines are "PRED NAME MAPS REDUCES MEAN_S LOW_S HIGH_S".
set -eu
build=${1:?usage: sim/predict-replay.sh BUILD [--skip N] [--jobs N] [--set SECTION.KEY=VALUE]...}
shift
src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=sim/replay-vm.params
. "$src/sim/replay-vm.params"
jobs=$REPLAY_JOBS
skip=0
sets=""
while [ $# -gt 0 ]; do
	case $1 in
	--jobs) jobs=${2:?--jobs N} ;;
	--skip) skip=${2:?--skip N} ;;
	--set) sets="$sets --set=${2:?--set SECTION.KEY=VALUE}" ;;
	*)
		echo "predict-replay: unknown argument '$1' (--skip N, --jobs N, --set SECTION.KEY=VALUE)" >&2
		exit 2
		;;
	esac
	shift 2
done
replay_counts_check predict-replay "$skip" "$jobs"
sim="$build/bin/flexslot-sim"
[ -x "$sim" ] || {
	echo "predict-replay: no $sim (make first)" >&2
	exit 1
}
export LC_ALL=C
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
replay_slice "$skip" "$jobs" >"$work/trace.tsv"

echo "Prediction for the replay on real guests (demo/replay-vm.sh): $jobs jobs of $REPLAY_TRACE after its first $skip"
echo "written $(date -u '+%Y-%m-%d %H:%M UTC') on $(uname -n) ($(getconf _NPROCESSORS_ONLN) CPUs)," \
	"load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "tree: $(git -C "$src" describe --always --dirty 2>/dev/null || echo unknown)"
# shellcheck disable=SC2086 # the options, one word each
set -- replay "$work/trace.tsv" --scenario="$src/sim/scenarios/vmexp.ini" --live \
	--scale-data="$REPLAY_SCALE_DATA" --scale-time="$REPLAY_SCALE_TIME" $REPLAY_SIM_SETS $sets
echo "command: flexslot-sim $* --seeds=1 ... 5 (each its own --out)"
echo
for seed in 1 2 3 4 5; do
	# gnuplot's warnings on a slice's charts only show when the run fails.
	"$sim" "$@" --seeds="$seed" --out="$work/seed$seed" >"$work/table$seed" 2>"$work/err$seed" ||
		{ cat "$work/table$seed" "$work/err$seed" >&2; exit 1; }
done
sed -n '1,/^configuration/p' "$work/table1" | sed 's/^/    /'
for seed in 1 2 3 4 5; do
	printf '    seed %s: %s\n' "$seed" "$(tail -n 2 "$work/table$seed" | head -n 1)"
done
echo
# Each job's completion over the seeds: jobs.csv is job, submitted_s,
# maps, reduces, completion_s, alone_s, slowdown.
cat "$work"/seed*/*/jobs.csv | awk -F, '
	$1 == "job" { next }
	!($1 in n) { order[++k] = $1; maps[$1] = $3; red[$1] = $4 }
	{ n[$1]++; s[$1] += $5
	  if (!($1 in lo) || $5 < lo[$1]) lo[$1] = $5; if ($5 > hi[$1]) hi[$1] = $5 }
	END { for (i = 1; i <= k; i++) { j = order[i]
		printf "PRED %s %d %d %.2f %.2f %.2f\n", j, maps[j], red[j], s[j] / n[j], lo[j], hi[j] } }' \
	>"$work/pred"
echo "Each job (name, maps, reduces, completion s: mean over the seeds, lowest, highest):"
cat "$work/pred"
echo
awk -v p50="$(awk '{ print $5 }' "$work/pred" | nearest_rank 0.5)" \
	-v p95="$(awk '{ print $5 }' "$work/pred" | nearest_rank 0.95)" '{ s += $5 }
	END { printf "SUMMARY jobs %d, completion mean %.2f s, p50 %.2f s, p95 %.2f s (nearest rank, of the seeds'"'"' means)\n",
		NR, s / NR, p50, p95 }' "$work/pred"

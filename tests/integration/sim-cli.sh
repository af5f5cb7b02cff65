#!/bin/sh
# flexslot-sim from the command line: help, usage errors and bad files exit 2
# with file:line, a run writes its CSV files and charts, the same seed gives
# the same output, and an experiment prints our numbers beside the paper's.
set -eu

sim="$FLEXSLOT_BUILD/bin/flexslot-sim"
src="$FLEXSLOT_SRCDIR"
# shellcheck source=tests/lib/cli.sh
. "$src/tests/lib/cli.sh"

"$sim" --help | grep -q "experiment NAME" || fail "--help"
expect 2 "missing command" "$sim"
expect 2 "unknown command 'fly'" "$sim" fly
expect 2 "invalid seed 'x'" "$sim" --seed x run a.ini
expect 2 "unknown experiment 'fig99'" "$sim" experiment fig99
expect 2 "cannot open" "$sim" run "$tmp/missing.ini"

# A small cluster and workload, so that a run takes a fraction of a second.
cp "$src/sim/workloads/puma.csv" "$tmp/puma.csv"
cat >"$tmp/small.ini" <<INI
[cluster]
hosts = 2
vms = 8

[policy]
slot_manager = flexslot
speculation = none

[workload]
file = puma.csv
jobs = wordcount
scale = 0.02
INI

printf '[cluster]\nhosts = 2\nvms = many\n' >"$tmp/bad.ini"
expect 2 "bad.ini:3: \[cluster\] vms: invalid integer 'many'" "$sim" run "$tmp/bad.ini"
sed 's/slot_manager = flexslot/slot_manager = magic/' "$tmp/small.ini" >"$tmp/policy.ini"
expect 2 "unknown policy 'magic'" "$sim" run "$tmp/policy.ini"
sed 's/^wordcount,150,0.25/wordcount,150,fast/' "$tmp/puma.csv" >"$tmp/bad.csv"
sed 's/puma.csv/bad.csv/' "$tmp/small.ini" >"$tmp/badwl.ini"
expect 2 "bad.csv:[0-9]*: map_cpu_s_per_mb: 'fast' is not a number" "$sim" run "$tmp/badwl.ini"
expect 2 "^flexslot-sim: --set policy.alpha=fast: \[policy\] alpha: invalid number 'fast'" \
	"$sim" --set policy.alpha=fast run "$tmp/small.ini"
expect 2 "expected SECTION.KEY=VALUE" "$sim" --set alpha run "$tmp/small.ini"
# A layer's setting has the layer's range, named with its key.
expect 2 "^flexslot-sim: --set policy.lambda=2: \[policy\] lambda: value '2' out of range \[0, 1\]" \
	"$sim" --set policy.lambda=2 run "$tmp/small.ini"
"$sim" settings | grep -q "^lambda = 0.05  \[0, 1\]$" || fail "settings: lambda"
"$sim" --set policy.slot_manager=static run "$tmp/small.ini" | grep -q "slot manager static" ||
	fail "--set did not apply"

"$sim" --out "$tmp/run" run "$tmp/small.ini" >"$tmp/run.txt"
grep -q "map task time skewness" "$tmp/run.txt" || fail "no summary"
for f in jobs.csv tasks.csv nodes.csv util.csv map-cdf.csv map-breakdown.csv; do
	[ -s "$tmp/run/$f" ] || fail "missing $f"
done
head -1 "$tmp/run/tasks.csv" | grep -q "cpu_s,iowait_s,steal_s" || fail "tasks.csv header"

# One id for a VM in every file: the map tasks tasks.csv puts on a VM are
# the maps_run nodes.csv gives it, and the masters (which run no task) get
# none.
awk -F, '
FNR == 1 { for (i = 1; i <= NF; i++) col[FILENAME, $i] = i; next }
FILENAME ~ /tasks.csv$/ { n[$col[FILENAME, "vm"]] += $col[FILENAME, "type"] == "map"; next }
{
	vm = $col[FILENAME, "vm"]; masters += $col[FILENAME, "role"] == "master"
	if (n[vm] + 0 != $col[FILENAME, "maps_run"]) {
		printf "vm %s (%s): nodes.csv maps_run %s, tasks.csv %d maps\n", vm,
			$col[FILENAME, "role"], $col[FILENAME, "maps_run"], n[vm]
		bad = 1
	}
}
END { if (masters == 0) { print "no master in nodes.csv"; bad = 1 }; exit bad }
' "$tmp/run/tasks.csv" "$tmp/run/nodes.csv" || fail "tasks.csv and nodes.csv disagree on VM ids"

# svg FILE: an SVG document, as gnuplot's svg terminal writes it.
svg() {
	[ -s "$1" ] || fail "missing $1"
	head -c 100 "$1" | grep -q '^<?xml\|^<svg' || fail "$1 is no SVG"
	grep -q '</svg>' "$1" || fail "$1 is cut short"
}

command -v gnuplot >/dev/null || fail "gnuplot is missing (packaging/deps.sh installs gnuplot-nox)"
grep -q "CSV and charts in $tmp/run/" "$tmp/run.txt" || fail "run: where the charts are"
for f in task-cdf task-breakdown nodes maps-per-node util; do
	[ -s "$tmp/run/$f.png" ] || fail "missing chart $f.png"
	svg "$tmp/run/$f.svg"
done
# Each chart names the run; words, not CSV column names, in legends.
[ "$(grep -c "^set title 'wordcount under slot manager flexslot, allocator demand: " \
	"$tmp/run/charts.gp")" -eq 5 ] || fail "charts.gp titles: $(grep title "$tmp/run/charts.gp")"
! grep -q "title columnhead" "$tmp/run/charts.gp" || fail "charts.gp uses column names"
# The breakdown shows groups of tasks, not one bar per task.
groups=$(($(wc -l <"$tmp/run/map-breakdown.csv") - 1))
[ "$groups" -ge 1 ] && [ "$groups" -le 20 ] || fail "map-breakdown.csv has $groups groups"
grep -q "plot 'map-breakdown.csv'" "$tmp/run/charts.gp" || fail "breakdown chart input"

"$sim" --seed 5 run "$tmp/small.ini" >"$tmp/a.txt"
"$sim" --seed 5 run "$tmp/small.ini" >"$tmp/b.txt"
cmp -s "$tmp/a.txt" "$tmp/b.txt" || fail "same seed, different output"

# --out that cannot be made or written is an error that names the
# directory and why, before any run; gnuplot is "missing" only when it is.
expect 1 "cannot create the output directory '/proc/nope': No such file or directory" \
	"$sim" --out /proc/nope run "$tmp/small.ini"
[ ! -s "$tmp/out" ] || fail "--out /proc/nope: the run went ahead: $(cat "$tmp/out")"
! grep -q gnuplot "$tmp/err" || fail "--out /proc/nope blamed gnuplot"
expect 1 "cannot create the output directory '': No such file or directory" \
	"$sim" --out "" run "$tmp/small.ini"
: >"$tmp/plain"
expect 1 "output directory '$tmp/plain': Not a directory" "$sim" --out "$tmp/plain" run "$tmp/small.ini"
expect 1 "cannot create the output directory '/proc/nope'" \
	"$sim" --quick --out /proc/nope experiment fig9
[ ! -s "$tmp/out" ] || fail "experiment with --out /proc/nope went ahead"
# slo-interference's --out: each arm's per-run files of the first seed, the
# same jobs in every arm, the figures as without --out; ARIA's arm on
# static slots keeps every node's 4 map slots.
"$sim" --quick --scenarios "$src/sim/scenarios" experiment slo-interference >"$tmp/si.txt" ||
	fail "slo-interference exited $?"
"$sim" --quick --scenarios "$src/sim/scenarios" --out "$tmp/si" experiment slo-interference \
	>"$tmp/si-out.txt" || fail "slo-interference --out exited $?"
cmp -s "$tmp/si.txt" "$tmp/si-out.txt" || fail "slo-interference: --out changed the figures"
cut -d, -f2 "$tmp/si/slo-interference/aria/jobs.csv" >"$tmp/si-jobs"
[ "$(wc -l <"$tmp/si-jobs")" -gt 2 ] || fail "slo-interference --out: aria ran no jobs"
for arm in aria flexslot layered loop speed lever favour; do
	[ -s "$tmp/si/slo-interference/$arm/tasks.csv" ] || fail "slo-interference --out: no $arm/tasks.csv"
	cut -d, -f2 "$tmp/si/slo-interference/$arm/jobs.csv" | cmp -s - "$tmp/si-jobs" ||
		fail "slo-interference --out: $arm ran other jobs than aria"
done
awk -F, 'NR > 1 && $3 == "slave" && $7 != 4 { print; bad = 1 } END { exit bad }' \
	"$tmp/si/slo-interference/aria/nodes.csv" || fail "slo-interference --out: aria's slots moved"
# A file that cannot be written in full (a file size limit here, a full
# disk alike) fails, naming the file: the error shows only when the buffer
# goes out, at fclose().
out=$( (
	trap '' XFSZ
	ulimit -f 0
	"$sim" --out "$tmp/limit" run "$tmp/small.ini" >/dev/null && echo "exit 0" || echo "exit $?"
) 2>&1)
echo "$out" | grep -q "writing $tmp/limit/jobs.csv: File too large" || fail "file size limit: $out"
echo "$out" | grep -q "^exit 1$" || fail "file size limit: $out"
mkdir "$tmp/nogp"
env PATH="$tmp/nogp" "$sim" --out "$tmp/nogp/run" run "$tmp/small.ini" >"$tmp/out" 2>"$tmp/err" ||
	fail "no gnuplot: exit $?: $(cat "$tmp/err")"
grep -q "CSV files in $tmp/nogp/run/ (gnuplot is missing: no charts)" "$tmp/out" ||
	fail "no gnuplot: $(cat "$tmp/out")"
[ -s "$tmp/nogp/run/tasks.csv" ] && [ -s "$tmp/nogp/run/charts.gp" ] || fail "no gnuplot: files"
mkdir "$tmp/badgp"
printf '#!/bin/sh\necho "gnuplot: line 1: bad" >&2\nexit 3\n' >"$tmp/badgp/gnuplot"
chmod +x "$tmp/badgp/gnuplot"
expect 1 "gnuplot failed on $tmp/badgp/run/charts.gp with exit status 3" \
	env PATH="$tmp/badgp:$PATH" "$sim" --out "$tmp/badgp/run" run "$tmp/small.ini"
! grep -q "gnuplot is missing" "$tmp/out" "$tmp/err" || fail "a failing gnuplot is not a missing one"

# Every experiment at --quick size on the shipped scenarios (a second or two
# each without charts): its title, the seeds it ran, each of its rows with
# figures (a mean over the seeds and half their range) that parse, and
# FlexSlot's decisions. The model does not give FlexSlot the paper's gain,
# so nothing here asks for one; but a FlexSlot that stopped acting (no
# resize kill, no slot change in any run) fails.
"$sim" list >"$tmp/list"
[ "$(wc -l <"$tmp/list")" -eq 25 ] || fail "list: $(cat "$tmp/list")"
puma="tera-sort inverted-index term-vector wordcount grep k-means histogram-movies histogram-ratings"
while read -r name title; do
	table=yes
	case $name in
	# Its own claims are tests/check_loop_claims.c's, on the same quick runs.
	slo-interference | slo-interference-w2) continue ;;
	table1) rows="Homo Heter Heter+skew-sched" table=no ;;
	fig3) rows="skewness fastest slowest JCT JCT" table=no ;;
	fig4 | fig6) rows="homo drs paper" table=no ;;
	fig9) rows="homo stock flexslot fs+alloc paper" table=no ;;
	drs) rows="5min 60s 3s ready maxmin 3s+ready 3s+maxmin homo" table=no ;;
	assume) rows="as comb comb no big chunk disk no exp" table=no ;;
	fig15) rows="inverted-index k-means histogram-movies" ;;
	skew) rows="inverted-index wordcount" ;;
	dmr-fig8) rows="1/11 2/10 3/9 4/8 5/7 6/6 7/5 8/4 9/3 10/2 11/1" ;;
	dcs) rows="case1/600s case1/700s case2/680s case2/1000s" table=no ;;
	aria-fig5) rows="240s 240s 240s 300s 300s 300s 360s 360s 360s 420s 420s 420s" table=no ;;
	aria-table3)
		rows=""
		# Each bound of ARIA's, then FIFO, at each threshold.
		for w in W1 W2; do for t in 105 100 95 90 85; do
			rows="$rows $w/$t% $w/$t% $w/$t% $w/$t%"
		done; done
		table=no
		;;
	ras-exp1) rows="Fair Fair Fair Fair Fair Fair Fair Fair RAS" table=no ;;
	ras-exp2) rows="J1 J2 J3 J4 J5 J6 J7 J8 J9" table=no ;;
	dmr-fig9) rows="no LATE SEPB SEPB SEPB SEPB SEPB SEPB SEPB SEPB SEPB" table=no ;;
	dmr-fig10) rows="16 32 160" table=no ;;
	dmr-fig12) rows="sort wordcount grep inverted-index classification histogram-movies
		histogram-ratings sequence-count self-join 5 10 20 30" table=no ;;
	*) rows=$puma ;;
	esac
	"$sim" --quick --scenarios "$src/sim/scenarios" experiment "$name" >"$tmp/$name.txt" ||
		fail "$name exited $?"
	[ "$(head -1 "$tmp/$name.txt")" = "$title [quick: reduced input]" ] ||
		fail "$name: title $(head -1 "$tmp/$name.txt")"
	[ "$(sed -n 2p "$tmp/$name.txt")" = "Seeds 1-3; ours is the mean ± half the range over them." ] ||
		fail "$name: seeds $(sed -n 2p "$tmp/$name.txt")"
	# The table: a row per benchmark (variant, cluster, figure), in order,
	# each with figures; in a table of variants x benchmarks every figure
	# before the paper's column is a mean and spread, or '-' where there is
	# none to give.
	awk -v rows="$rows" -v name="$name" -v table="$table" '
	BEGIN { n_want = split(rows, want, " ") }
	NR == 3 { for (i = NF; i > 1; i--) if ($i == "paper") ours = i - 1 }
	NR > 3 && NR <= 3 + n_want {
		if ($1 != want[NR - 3]) { print name ": row " NR - 3 " is " $1 ", not " want[NR - 3]; bad = 1 }
		if (table == "yes") {
			for (i = 2; i <= (ours ? ours : NF); i++)
				if ($i !~ /^-?[0-9]+(\.[0-9]+)?±[0-9]+(\.[0-9]+)?%?$/ && $i != "-") {
					print name ": " $0; bad = 1
				}
		} else if ($1 != "paper" && $0 !~ /[0-9]±[0-9]/) {
			print name ": no figure in " $0; bad = 1
		}
	}
	END { if (NR < 3 + n_want) { print name ": rows missing"; bad = 1 }; exit bad }
	' "$tmp/$name.txt" || fail "$name table"
	grep -q "^Decisions per run" "$tmp/$name.txt" || continue
	# Decisions: none under stock Hadoop's static slots (stock, homo, kvm,
	# st+alloc), some under each FlexSlot variant, summed over the
	# benchmarks.
	sed -n '/^Decisions per run, mean over the seeds (resize kills \/ map slot changes):$/,/^Note/p' "$tmp/$name.txt" |
		awk -v rows="$rows" -v name="$name" '
	BEGIN { n_want = split(name == "fig9" ? "inverted-index" : rows, want, " ") }
	NR == 2 { for (v = 2; v <= NF; v++) label[v] = $v; nv = NF; next }
	NR > 2 && !/^Note/ {
		if ($1 != want[++n]) { print name ": decisions row " $1 ", not " want[n]; bad = 1 }
		for (v = 2; v <= nv; v++) {
			if ($v !~ /^[0-9]+\/[0-9]+$/) { print name ": " $0; bad = 1 }
			split($v, d, "/"); sum[v] += d[1] + d[2]
		}
	}
	END {
		if (nv == 0 || n != n_want) { print name ": decisions table"; bad = 1 }
		for (v = 2; v <= nv; v++)
			if ((label[v] ~ /^(stock|homo|kvm|st\+alloc)$/) != (sum[v] == 0)) {
				print name ": " label[v] " made " sum[v] " decisions"; bad = 1
			}
		exit bad
	}' || fail "$name decisions: $(sed -n '/^Decisions/,/^Note/p' "$tmp/$name.txt")"
done <"$tmp/list"

# DynamicMR's sweep with its table: every benchmark, configuration, variant
# and seed in the CSV, the same table printed as without --out; stock at
# 1/11 is the unit, and the DHSAs, which lend the idle reduce slots to
# maps, beat it there; but for sort, whose 32 maps at this size leave the
# job to its reduces, where maps in borrowed slots only share the disks
# with the others (PD-DHSA 0.95; at full size both DHSAs gain 1.97).
# The DynamicMR experiments say which scheduler ran them: dmr.ini's Fair,
# or FIFO when asked.
grep -qx "Scheduler: fair (--set policy.scheduler=fair or fifo chooses)." "$tmp/dmr-fig10.txt" ||
	fail "dmr-fig10 names no scheduler"
"$sim" --quick --scenarios "$src/sim/scenarios" --set policy.scheduler=fifo experiment dmr-fig10 |
	grep -q "^Scheduler: fifo " || fail "dmr-fig10 under FIFO names no FIFO"
"$sim" --quick --scenarios "$src/sim/scenarios" --out "$tmp/exp" experiment dmr-fig8 \
	>"$tmp/dmr.txt" || fail "dmr-fig8 --out exited $?"
grep -v '^Table: ' "$tmp/dmr.txt" | cmp -s - "$tmp/dmr-fig8.txt" || fail "--out changed dmr-fig8's table"
awk -F, '
NR == 1 { next }
{ n++ }
$2 == 1 && $4 == "stock" && $7 != "1.0000" { print $0 ": stock is not the unit"; bad = 1 }
$2 == 1 && $4 != "stock" && $1 != "sort" && $7 <= 1 { print $0 ": no gain at 1/11"; bad = 1 }
END { if (n != 9 * 11 * 3 * 3) { print n " rows"; bad = 1 }; exit bad }
' "$tmp/exp/dmr-fig8/dmr-fig8.csv" >"$tmp/claims" || fail "dmr-fig8.csv: $(cat "$tmp/claims")"

# Fig. 10, the demonstration, with its files: the CSV has every row and
# figure, and what the output says about the paper is what its numbers say.
"$sim" --quick --scenarios "$src/sim/scenarios" --out "$tmp/exp" experiment fig10 >"$tmp/exp.txt"
cat "$tmp/exp.txt"
cmp -s "$tmp/exp.txt" "$tmp/fig10.txt" ||
	! diff "$tmp/fig10.txt" "$tmp/exp.txt" | grep -q '^<' || fail "--out changed fig10's table"
awk -F, -v puma="$puma" '
BEGIN { n_want = split(puma, want, " ") }
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
{
	if ($1 != want[NR - 1]) { print "row " NR - 1 " is " $1; bad = 1 }
	if ($col["stock"] != "1.0000") { print $1 ": stock " $col["stock"]; bad = 1 }
	for (i = 2; i <= NF; i++)
		if ($i !~ /^[0-9]+(\.[0-9]+)?$/ && !($i == "" && i >= col["paper_low"] && i <= col["paper_high"])) {
			print $1 ": column " i " is \"" $i "\""; bad = 1
		}
	if ($col["flexslot_min"] > $col["flexslot"] || $col["flexslot"] > $col["flexslot_max"]) {
		print $1 ": flexslot mean outside its range"; bad = 1
	}
	if ($col["paper_low"] == "") next
	ours = $col["flexslot"]; low = $col["paper_low"]; high = $col["paper_high"]
	x = sprintf("%.2f", ours) + 0
	if (n == 0 || x < lo) lo = x
	if (n == 0 || x > hi) hi = x
	if (n == 0 || low < plo) plo = low
	if (n == 0 || high > phi) phi = high
	within += ours >= low - 0.05 && ours <= high + 0.05
	faster += $col["flexslot_max"] < 1; slower += $col["flexslot_min"] > 1
	mean += ours; pmean += (low + high) / 2; n++
}
END {
	if (NR - 1 != n_want || n != 7) { print NR - 1 " rows, " n " with a paper figure"; bad = 1 }
	mean /= n; pmean /= n
	r = lo == hi ? sprintf("%.2f", lo) : sprintf("%.2f-%.2f", lo, hi)
	printf "flexslot takes %s of stock'"'"'s time on the 7 benchmarks the paper gives a figure for, the paper %.2f-%.2f (%d of 7 within 0.05 of it).\n", r, plo, phi, within
	printf "flexslot is faster than stock in every seed on %d of them, slower in every seed on %d, and neither on %d.\n", faster, slower, n - faster - slower
	if (within == n) print "The model reproduces the paper'"'"'s figures."
	else if (faster == 0) print "The model does not reproduce the paper'"'"'s gain"
	else print "The model shows a " (mean > pmean ? "smaller" : "larger") " gain"
	exit bad
}' "$tmp/exp/fig10/fig10.csv" >"$tmp/claims" || fail "fig10.csv: $(cat "$tmp/claims")"
while read -r claim; do
	grep -qF "$claim" "$tmp/exp.txt" || fail "fig10 output lacks '$claim'"
done <"$tmp/claims"
grep -q "Charts: $tmp/exp/fig10/fig10.csv, the chart fig10.png" "$tmp/exp.txt" || fail "fig10: where"
# The chart: what it shows, an x label, the paper's figures as their
# own bars; each run's charts name the benchmark and variant.
grep -q "^set title 'Fig. 10: normalized job completion time.*, ours (simulated) and the paper''s'$" \
	"$tmp/exp/fig10/charts.gp" || fail "fig10 chart title"
grep -q "^set xlabel 'benchmark'" "$tmp/exp/fig10/charts.gp" || fail "fig10 chart x label"
grep -q "title 'paper flexslot'" "$tmp/exp/fig10/charts.gp" || fail "fig10 chart: no paper bars"
grep -q "^set title 'inverted-index under fs+alloc (fig10): map task time CDF'" \
	"$tmp/exp/fig10/inverted-index/fs+alloc/charts.gp" || fail "per-run chart title"
svg "$tmp/exp/fig10/fig10.svg"
svg "$tmp/exp/fig10/wordcount-cdf.svg"
svg "$tmp/exp/fig10/wordcount/flexslot/task-breakdown.svg"
echo "sim-cli: ok"

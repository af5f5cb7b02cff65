#!/bin/sh
# flexslot-sim from the command line: help, usage errors and bad files exit 2
# with file:line, a run writes its CSV files and charts, the same seed gives
# the same output, and an experiment prints our numbers beside the paper's.
set -eu

sim="$FLEXSLOT_BUILD/bin/flexslot-sim"
src="$FLEXSLOT_SRCDIR"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*"
	exit 1
}

# expect STATUS PATTERN command...: the command exits STATUS and its stderr
# matches PATTERN.
expect() {
	want=$1
	pattern=$2
	shift 2
	set +e
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	set -e
	[ "$got" -eq "$want" ] || fail "$* exited $got, expected $want: $(cat "$tmp/err")"
	grep -q -- "$pattern" "$tmp/err" || fail "$*: stderr lacks '$pattern': $(cat "$tmp/err")"
}

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
expect 2 "\[policy\] alpha: invalid number 'fast' (with the --set values)" \
	"$sim" --set policy.alpha=fast run "$tmp/small.ini"
expect 2 "expected SECTION.KEY=VALUE" "$sim" --set alpha run "$tmp/small.ini"
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

if command -v gnuplot >/dev/null; then
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
fi

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

# An experiment against a small copy of its scenario.
mkdir "$tmp/scenarios"
sed -e 's/^scale = 1$/scale = 0.02/' -e "s|../workloads/puma.csv|$tmp/puma.csv|" \
	"$src/sim/scenarios/fig10.ini" >"$tmp/scenarios/fig10.ini"
"$sim" --scenarios "$tmp/scenarios" --out "$tmp/exp" experiment fig10 >"$tmp/exp.txt"
cat "$tmp/exp.txt"
grep -q "^inverted-index  *1.00  *[0-9.]*  *[0-9.]*  *0.65" "$tmp/exp.txt" || fail "fig10 table"
[ -s "$tmp/exp/fig10/fig10.csv" ] || fail "fig10.csv"
if command -v gnuplot >/dev/null; then
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
fi

"$sim" list | grep -q "^table1 " || fail "list"
sed -e 's/^jobs = wordcount$/jobs = wordcount\nscale = 0.02/' -e "s|../workloads/puma.csv|$tmp/puma.csv|" \
	"$src/sim/scenarios/table1.ini" >"$tmp/scenarios/table1.ini"
"$sim" --scenarios "$tmp/scenarios" experiment table1 >"$tmp/t1.txt"
cat "$tmp/t1.txt"
grep -q "^Heter+skew-sched  *-*[0-9.]*  *0.31" "$tmp/t1.txt" || fail "table1"
echo "sim-cli: ok"

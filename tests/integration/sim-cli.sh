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
for f in jobs.csv tasks.csv nodes.csv util.csv map-cdf.csv; do
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
if command -v gnuplot >/dev/null; then
	for f in task-cdf.png task-breakdown.png nodes.png maps-per-node.png util.png; do
		[ -s "$tmp/run/$f" ] || fail "missing chart $f"
	done
fi

"$sim" --seed 5 run "$tmp/small.ini" >"$tmp/a.txt"
"$sim" --seed 5 run "$tmp/small.ini" >"$tmp/b.txt"
cmp -s "$tmp/a.txt" "$tmp/b.txt" || fail "same seed, different output"

# An experiment against a small copy of its scenario.
mkdir "$tmp/scenarios"
sed -e 's/^scale = 1$/scale = 0.02/' -e "s|../workloads/puma.csv|$tmp/puma.csv|" \
	"$src/sim/scenarios/fig10.ini" >"$tmp/scenarios/fig10.ini"
"$sim" --scenarios "$tmp/scenarios" --out "$tmp/exp" experiment fig10 >"$tmp/exp.txt"
cat "$tmp/exp.txt"
grep -q "^inverted-index  *1.00  *[0-9.]*  *[0-9.]*  *0.65" "$tmp/exp.txt" || fail "fig10 table"
[ -s "$tmp/exp/fig10/fig10.csv" ] || fail "fig10.csv"

"$sim" list | grep -q "^table1 " || fail "list"
sed -e 's/^jobs = wordcount$/jobs = wordcount\nscale = 0.02/' -e "s|../workloads/puma.csv|$tmp/puma.csv|" \
	"$src/sim/scenarios/table1.ini" >"$tmp/scenarios/table1.ini"
"$sim" --scenarios "$tmp/scenarios" experiment table1 >"$tmp/t1.txt"
cat "$tmp/t1.txt"
grep -q "^Heter+skew-sched  *-*[0-9.]*  *0.31" "$tmp/t1.txt" || fail "table1"
echo "sim-cli: ok"

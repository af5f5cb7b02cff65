#!/bin/sh
# flexslot-sim replay from the command line: its own --help; a trace with
# a bad line is named FILE:LINE, exits 2 and runs nothing (no --out
# directory made); bad options are usage errors; a small trace runs under
# two configurations and writes each job's times, the table and the CDF
# charts' script; a bare name finds the trace that comes with the simulator.
set -eu

sim="$FLEXSLOT_BUILD/bin/flexslot-sim"
src="$FLEXSLOT_SRCDIR"
# shellcheck source=tests/lib/cli.sh
. "$src/tests/lib/cli.sh"

# usage PATTERN args...: a usage error, with the hint.
usage() {
	pattern=$1
	shift
	expect 2 "^flexslot-sim: $pattern\$" "$sim" "$@"
	grep -qx "Try 'flexslot-sim --help'." "$tmp/err" || fail "$*: no --help hint"
}

"$sim" replay --help >"$tmp/out" || fail "replay --help failed"
head -n 1 "$tmp/out" | grep -q "^Usage: flexslot-sim \[OPTIONS\] replay FILE" || fail "replay --help: $(cat "$tmp/out")"
grep -q -- "--compare=L1,L2" "$tmp/out" || fail "replay --help lacks its options"
grep -q -- "--map-cost" "$tmp/out" && fail "replay --help lists plan's options"

printf 'a\t0\t0\t1000\t0\t10\nb\t3\t3\t70000000\t5000\n' >"$tmp/bad.tsv"
expect 2 "^flexslot-sim: $tmp/bad.tsv:2: 5 tab-separated fields, expected 6" \
	"$sim" --out "$tmp/never" replay "$tmp/bad.tsv"
[ ! -e "$tmp/never" ] || fail "a bad trace made the --out directory"
[ ! -s "$tmp/out" ] || fail "a bad trace printed: $(cat "$tmp/out")"

good="$tmp/good.tsv"
printf 'a\t0\t0\t1000\t0\t10\nb\t3\t3\t70000000\t5000\t100\nc\t5\t2\t0\t0\t0\n' >"$good"
usage "--layers and --compare: give one" replay "$good" --layers fifo --compare fair
usage "--layers 'fifo+bogus': no layer 'bogus' .*" replay "$good" --layers fifo+bogus
usage "--seeds 'x': expected seeds and ranges, e.g. 1-3 or 1,4,7" replay "$good" --seeds x
usage "--scale-time '0': expected a factor above 0" replay "$good" --scale-time 0
usage "--scenario is an option of replay" --scenario fig10 list
usage "replay takes one trace file" replay
expect 2 "^flexslot-sim: replay: --costs: no benchmark 'nope' in " \
	"$sim" replay "$good" --costs nope --seeds 1
expect 2 "^flexslot-sim: replay: .*/nope.ini: cannot open: No such file or directory" \
	"$sim" replay "$good" --scenario nope

"$sim" --out "$tmp/o" replay "$good" --scale-data 1 --seeds 1,2 --compare fifo,fair+flexslot \
	>"$tmp/out" || fail "replay failed: $(cat "$tmp/out")"
grep -q "^Trace $good: 3 jobs over 0.0 h, 4 maps and 1 reduces" "$tmp/out" ||
	fail "replay's model: $(cat "$tmp/out")"
grep -q "^Seeds 1,2: " "$tmp/out" || fail "replay's seeds: $(cat "$tmp/out")"
for c in fifo fair+flexslot; do
	grep -q "^$c  " "$tmp/out" || fail "replay's table lacks $c: $(cat "$tmp/out")"
done
for c in fifo fair+flexslot; do
	[ "$(wc -l <"$tmp/o/$c/jobs.csv")" -eq 4 ] || fail "$c/jobs.csv: $(cat "$tmp/o/$c/jobs.csv")"
	grep -q "^b,3.000,2,1," "$tmp/o/$c/jobs.csv" || fail "$c/jobs.csv: $(cat "$tmp/o/$c/jobs.csv")"
	[ "$(wc -l <"$tmp/o/$c/cdf.csv")" -eq 4 ] || fail "$c/cdf.csv"
done
grep -q "^fair+flexslot," "$tmp/o/replay.csv" || fail "replay.csv: $(cat "$tmp/o/replay.csv")"
grep -q "slowdown-cdf.svg" "$tmp/o/charts.gp" || fail "charts.gp lacks the slowdown CDF"

# A bare name is the day of Facebook's 2009 workload that comes with the
# simulator: read (a file it could not find would fail first), then the
# costs refused before anything runs.
expect 2 "^flexslot-sim: replay: --costs: no benchmark 'nope' in " \
	"$sim" replay FB-2009_samples_24_times_1hr_0.tsv --costs nope --seeds 1
echo "sim-replay: ok"

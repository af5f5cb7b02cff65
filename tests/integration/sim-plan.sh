#!/bin/sh
# flexslot-sim plan: ARIA's bounds and minimum slots and the Deadline
# Constraint Scheduler's minimum tasks for a job profile, as text and as
# JSON; a deadline that cannot be met says why; a bad profile is named by
# file:line and exits 2, a bad command line exits 2 with the --help hint.
set -eu

sim="$FLEXSLOT_BUILD/bin/flexslot-sim"
src="$FLEXSLOT_SRCDIR"
# shellcheck source=tests/lib/cli.sh
. "$src/tests/lib/cli.sh"

wiki="$src/sim/profiles/wikitrends.ini"

# usage PATTERN args...: a usage error, with the hint.
usage() {
	pattern=$1
	shift
	expect 2 "^flexslot-sim: $pattern\$" "$sim" "$@"
	grep -qx "Try 'flexslot-sim --help'." "$tmp/err" || fail "$*: no --help hint"
}

"$sim" --help | grep -q "plan PROFILE" || fail "--help lacks plan"
usage "plan takes one profile file" plan --deadline 4min --maps 71 --reduces 64
usage "plan needs --deadline" plan "$wiki" --maps 71 --reduces 64
usage "plan needs --reduces" plan "$wiki" --maps 71 --deadline 4min
usage "plan needs --maps or --input (one of them)" plan "$wiki" --reduces 1 --deadline 4min
usage "plan needs --maps or --input (one of them)" plan "$wiki" --maps 71 --reduces 64 --input 4G --deadline 4min
usage "invalid --maps '0' (1 to 10000000 map tasks)" plan "$wiki" --maps 0
usage "invalid --deadline 'soon' (a duration such as 240s or 4min)" plan "$wiki" --deadline soon
usage "invalid --map-cost '-1' (seconds per MB, 0 to 1e+06)" plan "$wiki" --map-cost -1
usage "--map-slots and --reduce-slots go together" plan "$wiki" --maps 71 --reduces 64 --deadline 4min \
	--map-slots 64
usage "the Deadline Constraint Scheduler needs --map-cost, --reduce-cost and --transfer-cost" \
	plan "$wiki" --maps 71 --reduces 64 --deadline 4min --map-cost 1
usage "--deadline is an option of plan" --deadline 4min run "$src/sim/scenarios/fig10.ini"

# Section 5.2's job on its 64 + 64 slots, for 240 s: the lower bound is met
# with (57, 53) slots; the average one not even with a slot per task; the
# upper bound's constant term alone is past the deadline.
"$sim" plan "$wiki" --maps 71 --reduces 64 --deadline 240s --map-slots 64 --reduce-slots 64 >"$tmp/plan.txt"
cat "$tmp/plan.txt"
grep -q "^  lower  *159.8s  *12.0s  *16.0s  *187.8s$" "$tmp/plan.txt" || fail "lower bound"
grep -q "^  upper  *343.5s  *170.1s  *48.8s  *562.4s$" "$tmp/plan.txt" || fail "upper bound"
grep -q "^  lower  *57  *53  *235.8s$" "$tmp/plan.txt" || fail "lower-bound slots"
grep -q "^  average  *cannot be met: even one slot per task (71 map, 64 reduce) takes 359.4s" \
	"$tmp/plan.txt" || fail "average: no reason"
grep -q "^  upper  *cannot be met: the constant term alone, 270.0s, is not below the deadline" \
	"$tmp/plan.txt" || fail "upper: no reason"

# An input size instead of the number of maps: 71 maps of 59.85M.
"$sim" plan "$wiki" --input 4249.35M --reduces 64 --deadline 240s >"$tmp/input.txt"
grep -q "71 map and 64 reduce tasks" "$tmp/input.txt" || fail "--input: $(cat "$tmp/input.txt")"

# A deadline already passed.
"$sim" plan "$wiki" --maps 71 --reduces 64 --deadline 0 >"$tmp/passed.txt"
[ "$(grep -c "cannot be met: the deadline has passed" "$tmp/passed.txt")" -eq 3 ] ||
	fail "deadline 0: $(cat "$tmp/passed.txt")"

# The Deadline Constraint Scheduler's first case (section IV): 975 MB in 16
# maps, f = 1, the slowest map 120 s, 12 MB/s; a 160 s reduce phase (the
# paper does not give it) on 6 reduces. 6 maps for 600 s, 5 for 700 s.
sed -e 's/^input = .*/input = 60.9375M/' -e '/^\[map\]/,/^\[/s/^selectivity = .*/selectivity = 1/' \
	"$wiki" >"$tmp/dcs.ini"
dcs() {
	"$sim" plan "$tmp/dcs.ini" --input 975M --reduces 6 --map-slots 6 --reduce-slots 6 \
		--map-cost 1.96923076923 --reduce-cost 0.984615384615 \
		--transfer-cost 0.0833333333333 "$@"
}
dcs --deadline 600s >"$tmp/dcs600.txt"
cat "$tmp/dcs600.txt"
grep -q "input 975.0 MB, filter ratio 1)" "$tmp/dcs600.txt" || fail "DCS input"
grep -q "^  reduces start by 358.8s (s_r^max); n_m^min 6, maps done at 320.0s, n_r^min 5$" \
	"$tmp/dcs600.txt" || fail "DCS at 600 s"
grep -qx "  schedulable" "$tmp/dcs600.txt" || fail "DCS at 600 s: not schedulable"
dcs --deadline 700s | grep -q "n_m^min 5," || fail "DCS at 700 s"
# 5 free map slots for 6: refused, with the numbers.
dcs --deadline 600s --map-slots 5 |
	grep -qx "  refused: it needs 6 map slots (n_m^min) and 5 are free" || fail "DCS refusal"

# JSON, for scripts.
dcs --deadline 600s --json >"$tmp/plan.json"
"$sim" plan "$wiki" --maps 71 --reduces 64 --deadline 240s --json >"$tmp/wiki.json"
# A file name that JSON must escape.
odd="$tmp/a \"quoted\" back\\slash.ini"
cp "$wiki" "$odd"
"$sim" plan "$odd" --maps 71 --reduces 64 --deadline 240s --json >"$tmp/odd.json"
command -v python3 >/dev/null || fail "python3 is missing (packaging/deps.sh installs python3)"
for f in plan.json odd.json; do
	python3 -m json.tool "$tmp/$f" >/dev/null || fail "invalid JSON: $(cat "$tmp/$f")"
done
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["profile"] == sys.argv[2]' \
	"$tmp/odd.json" "$odd" || fail "profile name in JSON: $(head -3 "$tmp/odd.json")"
python3 - "$tmp/wiki.json" "$tmp/plan.json" <<'PY' || fail "JSON content"
import json, sys
wiki = json.load(open(sys.argv[1]))
lower, upper = wiki["aria"]["lower"], wiki["aria"]["upper"]
assert (wiki["maps"], wiki["reduces"], wiki["deadline_s"]) == (71, 64, 240), wiki
assert wiki["map_slots"] is None and wiki["dcs"] is None, wiki
assert lower["met"] and (lower["map_slots"], lower["reduce_slots"]) == (57, 53), lower
assert lower["reason"] is None, lower
assert abs(lower["map_exact"] - 56.424221) < 1e-5, lower
assert not upper["met"] and upper["verdict"] == "constant-exceeds-deadline", upper
assert "constant term alone, 270.0s" in upper["reason"], upper
dcs = json.load(open(sys.argv[2]))["dcs"]
assert (dcs["min_maps"], dcs["min_reduces"], dcs["schedulable"]) == (6, 5, True), dcs
PY

# Bad profiles: file:line, exit 2.
sed 's/^avg = 144s/avg = quick/' "$wiki" >"$tmp/bad.ini"
line=$(grep -n "^avg = quick" "$tmp/bad.ini" | cut -d: -f1)
expect 2 "^flexslot-sim: $tmp/bad.ini:$line: \[map\] avg: invalid duration 'quick'" \
	"$sim" plan "$tmp/bad.ini" --maps 71 --reduces 64 --deadline 4min
sed 's/^typical_max = 152s/typical_max = 100s/' "$wiki" >"$tmp/order.ini"
line=$(grep -n "^typical_avg" "$tmp/order.ini" | cut -d: -f1)
expect 2 "^flexslot-sim: $tmp/order.ini:$line: \[shuffle\] typical_avg: 121s is above typical_max, 100s" \
	"$sim" plan "$tmp/order.ini" --maps 71 --reduces 64 --deadline 4min
grep -v "^selectivity = 0.37" "$wiki" >"$tmp/missing.ini"
expect 2 "^flexslot-sim: $tmp/missing.ini: \[reduce\] selectivity: required key is missing" \
	"$sim" plan "$tmp/missing.ini" --maps 71 --reduces 64 --deadline 4min
expect 2 "^flexslot-sim: $tmp/none.ini: cannot open: No such file" \
	"$sim" plan "$tmp/none.ini" --maps 71 --reduces 64 --deadline 4min
[ ! -s "$tmp/out" ] || fail "output for a bad profile: $(cat "$tmp/out")"

# A bare name not in the current directory is a profile that comes with
# the simulator; one that is here is read from here.
(cd "$tmp" && "$sim" plan wikitrends.ini --maps 71 --reduces 64 --deadline 6min >"$tmp/shipped.txt") ||
	fail "the shipped profile by name"
grep -q "^$(cd "$src" && pwd -P)/sim/profiles/wikitrends.ini: 71 map" "$tmp/shipped.txt" ||
	grep -q "/share/flexslot/profiles/wikitrends.ini: 71 map" "$tmp/shipped.txt" ||
	fail "shipped profile: $(cat "$tmp/shipped.txt")"
cp "$tmp/bad.ini" "$tmp/wikitrends.ini"
(cd "$tmp" && expect 2 "^flexslot-sim: wikitrends.ini:" "$sim" plan wikitrends.ini --maps 71 --reduces 64 \
	--deadline 6min)
echo "sim-plan: ok"

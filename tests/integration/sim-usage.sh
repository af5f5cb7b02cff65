#!/bin/sh
# flexslot-sim's command line as a new user meets it: --version, each
# command's own --help, every usage
# error exits 2 with the --help hint, --set errors name the --set, an empty
# unknown section is refused (by the agent too), paths are reported as
# resolved from what was given, and a run shows progress on a terminal and
# nothing extra elsewhere.
set -eu

sim="$FLEXSLOT_BUILD/bin/flexslot-sim"
agent="$FLEXSLOT_BUILD/bin/flexslot-agentd"
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

version=$(sed -n 's/^#define FLEXSLOT_VERSION "\(.*\)"$/\1/p' "$src/common/version.h")
[ -n "$version" ] || fail "no FLEXSLOT_VERSION in common/version.h"
[ "$("$sim" --version)" = "flexslot-sim $version" ] || fail "--version: $("$sim" --version)"

# Each command's own --help: its synopsis and its options, not the overview.
"$sim" plan --help >"$tmp/out" || fail "plan --help failed"
head -n 1 "$tmp/out" | grep -q "^Usage: flexslot-sim plan PROFILE --deadline=TIME" ||
	fail "plan --help: $(cat "$tmp/out")"
grep -q -- "--map-cost=C" "$tmp/out" || fail "plan --help lacks its options: $(cat "$tmp/out")"
grep -q -- "--seed" "$tmp/out" && fail "plan --help lists options plan does not take"
"$sim" --help run >"$tmp/out" || fail "--help run failed"
head -n 1 "$tmp/out" | grep -q "^Usage: flexslot-sim \[OPTIONS\] run SCENARIO.ini$" ||
	fail "--help run: $(cat "$tmp/out")"
grep -q -- "--map-cost" "$tmp/out" && fail "run --help lists plan's options"
for c in experiment list settings; do
	"$sim" "$c" --help | head -n 1 | grep -q "^Usage: flexslot-sim .*$c" || fail "$c --help"
done
usage "unknown command 'bogus'" bogus --help

usage "unknown option '--bogus'" --bogus list
usage "unknown option '-x'" -x list
usage "unknown option '-x'" -qx list
usage "option '--seed' needs a value" list --seed
usage "option '-o' needs a value" list -o
usage "invalid seed 'x'" --seed x list
usage "list takes no arguments" list extra
usage "settings takes no arguments" settings extra
usage "run takes one scenario file" run
usage "run takes one scenario file" run a.ini b.ini
usage "experiment takes one name (see 'list')" experiment
usage "unknown command 'fly'" fly
usage "missing command (run, experiment, replay, plan, list or settings)"

# --set errors name the --set, never a line of the file.
cp "$src/sim/scenarios/fig10.ini" "$tmp/good.ini"
expect 2 "^flexslot-sim: --set polcy.alpha=1: \[polcy\]: unknown section$" \
	"$sim" --set polcy.alpha=1 run "$tmp/good.ini"
expect 2 "^flexslot-sim: --set cluster.vm_cap=-1: \[cluster\] vm_cap: value '-1' out of range" \
	"$sim" --set cluster.vm_cap=-1 run "$tmp/good.ini"
expect 2 "^flexslot-sim: --set cluster.masters=40: \[cluster\] masters: 40 masters leave" \
	"$sim" --set cluster.masters=40 run "$tmp/good.ini"
expect 2 "^flexslot-sim: --set policy.alpha=20: \[policy\] alpha: value '20' out of range" \
	"$sim" --set policy.alpha=0.5 --set policy.alpha=20 experiment fig14

# An empty unknown section, in a scenario and in the agent's file.
printf '[agnt]\n' >"$tmp/x.ini"
expect 2 "^flexslot-sim: $tmp/x.ini:1: \[agnt\]: unknown section$" "$sim" run "$tmp/x.ini"
if "$agent" --config="$tmp/x.ini" --address=unix:path="$tmp/no-bus" 2>"$tmp/err"; then
	fail "the agent started with an unknown section"
fi
grep -q "$tmp/x.ini:1: \[agnt\]: unknown section" "$tmp/err" || fail "agent: $(cat "$tmp/err")"

# Paths as resolved from what the user gave: an empty scenario runs on the
# workload that comes with the simulator; a relative workload file is read
# from the scenario's directory and reported without "./" or "dir/..".
mkdir "$tmp/a" "$tmp/a/b"
: >"$tmp/a/empty.ini"
(cd "$tmp/a" && "$sim" --set workload.scale=0.02 run empty.ini >"$tmp/out") ||
	fail "empty scenario"
grep -q "^scenario empty.ini: wordcount" "$tmp/out" || fail "empty scenario: $(cat "$tmp/out")"
printf '[workload]\nfile = ../nope.csv\n' >"$tmp/a/b/w.ini"
real=$(cd "$tmp" && pwd -P)
(cd "$tmp/a" && expect 2 "^flexslot-sim: $real/a/nope.csv: cannot open: No such file" \
	"$sim" run ./b/w.ini)

# Progress: on a terminal, a line that is erased at the end; elsewhere,
# nothing but the summary.
progress_run="$sim --set workload.scale=0.3 run $tmp/a/empty.ini"
$progress_run >"$tmp/plain.out" 2>"$tmp/plain.err"
[ ! -s "$tmp/plain.err" ] || fail "stderr without a terminal: $(cat "$tmp/plain.err")"
command -v script >/dev/null || fail "script is missing (bsdutils, essential in Debian)"
script -qec "$progress_run" /dev/null </dev/null >"$tmp/tty.out" 2>&1 ||
	fail "run on a terminal failed: $(cat "$tmp/tty.out")"
esc=$(printf '\033')
grep -q "${esc}\[Ksimulated [0-9]*:[0-9][0-9]:[0-9][0-9], [0-9]* events, jobs done 0/1" \
	"$tmp/tty.out" || fail "no progress on a terminal: $(cat -v "$tmp/tty.out")"
# Erased before the summary, which is the same as without a terminal.
tr '\r' '\n' <"$tmp/tty.out" | grep -q "^${esc}\[Kscenario " ||
	fail "progress not erased: $(cat -v "$tmp/tty.out")"
tr -d '\r' <"$tmp/tty.out" | sed "s/.*${esc}\[K//" | grep -v '^$' >"$tmp/tty.txt"
cmp -s "$tmp/tty.txt" "$tmp/plain.out" || fail "output differs on a terminal: $(cat -v "$tmp/tty.txt")"
echo "sim-usage: ok"

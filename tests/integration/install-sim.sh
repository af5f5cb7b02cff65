#!/bin/sh
# The simulator as installed (`make install` into a DESTDIR with PREFIX=/usr):
# its scenarios, workloads, job profiles and man page land under /usr/share,
# and the installed program, run from another directory, finds its own
# copies there, runs an experiment and plans with a profile by its name;
# uninstall removes them.
set -eu
# shellcheck source=tests/lib/cli.sh
. "$FLEXSLOT_SRCDIR/tests/lib/cli.sh"
dest="$tmp/root"
sim="$dest/usr/bin/flexslot-sim"
data="$dest/usr/share/flexslot"

run_make "$dest" PREFIX=/usr install
for f in usr/bin/flexslot-sim usr/share/man/man1/flexslot-sim.1 \
	usr/share/flexslot/scenarios/fig10.ini usr/share/flexslot/scenarios/README.md \
	usr/share/flexslot/workloads/puma.csv usr/share/flexslot/workloads/README.md \
	usr/share/flexslot/profiles/wikitrends.ini usr/share/flexslot/profiles/README.md; do
	if [ ! -f "$dest/$f" ] || [ -L "$dest/$f" ]; then fail "$f not installed"; fi
done
man -l "$dest/usr/share/man/man1/flexslot-sim.1" | grep -q "flexslot-sim - simulate" ||
	fail "man page does not render"

mkdir "$tmp/elsewhere"
cd "$tmp/elsewhere"
"$sim" --help | grep -q "default: $data/scenarios)" || fail "--help names another directory"
"$sim" --quick experiment fig10 >out.txt 2>err.txt ||
	fail "installed experiment failed: $(cat err.txt)"
grep -q "^inverted-index  *1.00±" out.txt || fail "no Fig. 10 table: $(cat out.txt)"
# An empty scenario runs on the installed workload.
: >empty.ini
"$sim" --set workload.scale=0.02 run empty.ini >run.txt 2>err.txt ||
	fail "empty scenario: $(cat err.txt)"
grep -q "map task time skewness" run.txt || fail "no summary for the empty scenario"
"$sim" plan wikitrends.ini --maps 71 --reduces 64 --deadline 6min >plan.txt 2>err.txt ||
	fail "plan with the installed profile: $(cat err.txt)"
grep -q "^$data/profiles/wikitrends.ini: 71 map and 64 reduce tasks" plan.txt ||
	fail "plan read another profile: $(cat plan.txt)"

# What it reads is the installed copy, not the source tree.
mv "$data/scenarios/fig10.ini" "$tmp/fig10.ini"
if "$sim" --quick experiment fig10 >out.txt 2>err.txt; then
	fail "ran without its installed scenario"
fi
grep -q "$data/scenarios/fig10.ini: cannot open" err.txt || fail "error: $(cat err.txt)"
mv "$tmp/fig10.ini" "$data/scenarios/fig10.ini"

cd "$tmp"
run_make "$dest" PREFIX=/usr uninstall
for f in usr/bin/flexslot-sim usr/share/man/man1/flexslot-sim.1 \
	usr/share/flexslot/scenarios/fig10.ini usr/share/flexslot/workloads/puma.csv \
	usr/share/flexslot/profiles/wikitrends.ini; do
	[ ! -e "$dest/$f" ] || fail "uninstall left $f"
done
echo ok

#!/bin/sh
# The host benchmark's parts that need no guest, as a test: a bulk-stats
# answer recorded from a real TCG guest (bench/data/domstats-guest.txt) is
# replayed as 1 and 100 domains through the agent's sampling step, which must
# derive steal for them; and one sampling pass against per-domain calls runs
# on libvirt's test driver. Keeps flexslot-bench-host (make bench) working.
set -eu

build=${FLEXSLOT_BUILD:?run through make check}
srcdir=${FLEXSLOT_SRCDIR:?run through make check}
bench="$build/bench/flexslot-bench-host"

fail() {
	echo "FAIL: $*"
	exit 1
}

[ -x "$bench" ] || fail "$bench is not built"

out=$("$bench" replay "$srcdir/bench/data/domstats-guest.txt" 1,100 3) ||
	fail "replay failed: $out"
echo "$out"
[ "$(echo "$out" | grep -c '^replay domains=[0-9]* rounds=3 params=28 agent_us_per_domain=[0-9.]* floor_us_per_domain=[0-9.]*$')" -eq 2 ] ||
	fail "unexpected replay output"

# A bad record is refused with its line.
bad=$(mktemp)
trap 'rm -f "$bad"' EXIT
printf 'state.state int 1\ncpu.time ullong -5\n' >"$bad"
if err=$("$bench" replay "$bad" 1 1 2>&1); then
	fail "a negative counter was accepted"
fi
echo "$err" | grep -q ":2: bad type or value" || fail "the bad line is not named: $err"

out=$("$bench" pass test:///default 2) || fail "pass on the test driver failed: $out"
echo "$out"
echo "$out" | grep -q '^pass domains=1 passes=2 agent_bulk_us=[0-9]* ' || fail "unexpected pass output"
echo PASS

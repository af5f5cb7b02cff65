#!/bin/sh
# tools/swim-load.sh, the live side of flexslot-sim replay, against the
# controller and a real tracker: a trace with a bad line is named
# FILE:LINE and nothing is written or submitted; a good one's jobs are
# submitted in order, by name, with the simulator's reduces, and all
# succeed.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/ctl.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/tracker.sh"
load="$src/tools/swim-load.sh"
data=$tmp/data
export LC_ALL=C

write_fast_config
start_bus
start_controller

printf 'a\t0\t0\t1000\t0\t10\nb\t1\t1\tmany\t0\t10\n' >"$tmp/bad.tsv"
status=0
"$load" --address "$address" --ctl "$ctl" "$data" "$tmp/bad.tsv" >"$tmp/out" 2>"$tmp/err" ||
	status=$?
[ "$status" -eq 2 ] || fail "a bad trace exited $status: $(cat "$tmp/err")"
grep -q "^$tmp/bad.tsv:2: field 4 'many' is not a whole number of bytes$" "$tmp/err" ||
	fail "a bad trace: $(cat "$tmp/err")"
[ ! -e "$data/swim" ] || fail "a bad trace wrote inputs"
[ "$(flexslotctl --no-legend list | wc -l)" -eq 0 ] || fail "a bad trace submitted jobs"
status=0
"$load" --address "$address" --ctl "$ctl" --text "$tmp/none" "$data" "$tmp/bad.tsv" \
	>"$tmp/out" 2>"$tmp/err" || status=$?
[ "$status" -eq 2 ] && grep -q -- "--text $tmp/none: cannot read, or empty" "$tmp/err" ||
	fail "a missing --text exited $status: $(cat "$tmp/err")"

# At data x1 and 64 KiB blocks: a map-only job (1 reduce), 200,000 bytes
# shuffled and written (3 reduces), and one capped at --max-reduces 4;
# each input the --text repeated.
echo 'alpha beta' >"$tmp/text"
printf '%s\n' "# a hand-made trace" \
	"$(printf 'small\t0\t0\t1000\t0\t10')" \
	"$(printf 'mid\t2\t2\t3000\t150000\t50000')" \
	"$(printf 'big\t3\t1\t2000\t900000\t0')" >"$tmp/good.tsv"
"$load" --address "$address" --ctl "$ctl" --scale-time 0.1 --scale-data 1 --block 65536 \
	--max-reduces 4 --text "$tmp/text" "$data" "$tmp/good.tsv" >"$tmp/out" 2>"$tmp/err" ||
	fail "swim-load.sh failed: $(cat "$tmp/err")"
[ "$(awk '{ print $1 }' "$tmp/out" | tr '\n' ' ')" = "small mid big " ] ||
	fail "submissions: $(cat "$tmp/out")"
yes 'alpha beta' | head -c 3000 | cmp -s - "$data/swim/mid" ||
	fail "mid's input is not --text repeated to 3000 bytes: $(head -c 40 "$data/swim/mid")"
start_real_tracker 64M
# shellcheck disable=SC2046 # the ids are words
flexslotctl watch --interval 50ms $(awk '{ print $2 }' "$tmp/out") >"$tmp/watch" 2>&1 ||
	fail "the replayed jobs did not all succeed: $(cat "$tmp/watch")"
for job in small:1 mid:3 big:4; do
	id=$(awk -v n="${job%:*}" '$1 == n { print $2 }' "$tmp/out")
	flexslotctl --json show "$id" >"$tmp/show"
	grep -q "\"name\": *\"${job%:*}\"" "$tmp/show" || fail "job $id: $(cat "$tmp/show")"
	grep -q "\"reduces\": *${job#*:}[,}]" "$tmp/show" || fail "job $id's reduces: $(cat "$tmp/show")"
done
echo "swim-load: ok"

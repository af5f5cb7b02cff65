#!/bin/sh
# The benchmarks' command lines: --help prints the usage on stdout and exits
# 0, an unknown option or a bad value exits 2 and names it, so that a user
# running one by hand learns its options without reading its source; an
# option that needs another is refused without it.
set -eu
# shellcheck source=tests/lib/cli.sh
. "$FLEXSLOT_SRCDIR/tests/lib/cli.sh"

for prog in flexslot-bench-cluster flexslot-bench-heartbeat; do
	bin=$FLEXSLOT_BUILD/bench/$prog
	"$bin" --help >"$tmp/out" 2>"$tmp/err" || fail "$prog --help exited $?"
	head -n 1 "$tmp/out" | grep -q "^Usage: $prog " || fail "$prog --help: $(head -n 1 "$tmp/out")"
	grep -q -- "--seconds S (5)" "$tmp/out" || fail "$prog --help lacks --seconds: $(cat "$tmp/out")"
	[ ! -s "$tmp/err" ] || fail "$prog --help wrote to stderr: $(cat "$tmp/err")"
	expect 2 "unrecognized option '--bogus'" "$bin" --bogus
	expect 2 "Invalid --seconds 'soon'" "$bin" --seconds soon
done
# --watch looks what the controller lists up in --store: alone it checks nothing.
bin=$FLEXSLOT_BUILD/bench/flexslot-bench-heartbeat
"$bin" --help | grep -q -- "--watch BUS_ADDRESS" || fail "--help lacks --watch: $("$bin" --help)"
expect 2 "--watch needs --store" "$bin" --address unix:path=/nonexistent \
	--token-file /nonexistent --watch unix:path=/nonexistent
echo PASS

#!/bin/sh
# tools/fresh-machine.sh (the release check on a minimal Debian root), short
# of its run, which takes a mirror and a quarter of an hour: --help
# describes every option it takes; a bad option is a usage error; as root, a
# --dir whose root/ it did not make is refused and left as it is, and so is
# --reuse without a kept root, before anything is installed or built.
set -eu
# shellcheck source=tests/lib/cli.sh
. "$FLEXSLOT_SRCDIR/tests/lib/cli.sh"
script="$FLEXSLOT_SRCDIR/tools/fresh-machine.sh"

"$script" --help >"$tmp/help" || fail "--help exited $?"
grep -q "^usage: tools/fresh-machine.sh \[OPTION\]... \[TARGET\]...$" "$tmp/help" ||
	fail "--help: $(cat "$tmp/help")"
# The options are the patterns of its case statement: "--dir | --cache)".
options=$(grep -E '^[[:space:]]*--[a-z-]+( \| --[a-z-]+)*\)' "$script" | grep -oE -- '--[a-z-]+' |
	sort -u)
[ "$(echo "$options" | wc -l)" -ge 8 ] || fail "options not found in the script: $options"
for o in $options; do
	grep -q "^  $o\\b" "$tmp/help" || grep -q ", $o\\b" "$tmp/help" || fail "--help does not describe $o"
done

expect 2 "^fresh-machine: unknown option '--bogus'$" "$script" --bogus
grep -qx "Try 'tools/fresh-machine.sh --help'." "$tmp/err" || fail "--bogus: no --help hint"
expect 2 "^fresh-machine: option '--dir' needs a value$" "$script" --dir

if [ "$(id -u)" -ne 0 ]; then
	expect 1 "^fresh-machine: needs root" "$script" --dir "$tmp/work"
	echo ok
	exit 0
fi
mkdir -p "$tmp/work/root"
echo precious >"$tmp/work/root/file"
expect 1 "^fresh-machine: $tmp/work/root exists and is not a root this script made" \
	"$script" --dir "$tmp/work"
[ "$(cat "$tmp/work/root/file")" = precious ] || fail "the foreign root was touched"
[ "$(ls "$tmp/work")" = root ] || fail "more in the work directory: $(ls "$tmp/work")"
expect 1 "^fresh-machine: --reuse: no root left by --keep in $tmp/work/root" \
	"$script" --reuse --dir "$tmp/work"
rm -r "$tmp/work/root"
expect 1 "^fresh-machine: --reuse: no root left by --keep in $tmp/work/root" \
	"$script" --reuse --dir "$tmp/work"
[ -z "$(ls "$tmp/work")" ] || fail "--reuse made $(ls "$tmp/work")"
echo ok

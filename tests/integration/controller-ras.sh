#!/bin/sh
# scheduler = ras in the live controller: the configuration is taken, and
# jobs without resource profiles (the live controller has none to give,
# see conf/controller.ini) run to completion on the test tracker under
# RAS's placement, bound by the tracker's slots alone.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/ctl.sh"
job_succeeded() {
	flexslotctl show "$1" | grep -q "^state	succeeded$"
}

start_bus
write_config
cat >>"$tmp/controller.ini" <<CONF
[policy]
scheduler = ras
CONF
start_controller
grep -q "Policy: scheduler ras, " "$tmp/controller.log" || fail "the controller does not say it runs ras: $(cat "$tmp/controller.log")"
"$tracker" --address "unix:path=$tmp/trackers" --token-file "$tmp/token" --hostname t1 \
	--map-slots 2 --reduce-slots 1 --beats 100000 >"$tmp/t1.log" 2>&1 &
pids="$pids $!"
poll grep -q "^registered 1 " "$tmp/t1.log" || fail "the tracker did not register: $(cat "$tmp/t1.log")"
one=$(flexslotctl submit --app wordcount --reduces 2 --name one in/a in/b in/c)
two=$(flexslotctl submit --app grep --arg x --reduces 1 --deadline 1h --name two in/x in/y)
poll job_succeeded "$one" || fail "job $one under ras: $(flexslotctl show "$one")"
poll job_succeeded "$two" || fail "job $two under ras: $(flexslotctl show "$two")"
echo PASS

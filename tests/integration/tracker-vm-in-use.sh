#!/bin/sh
# A second flexslot-tracker of a VM whose tracker is connected is refused
# by name (VmInUse) and keeps trying, backing off, rather than exit; once
# the first tracker is gone, it takes the VM's place at once, without
# waiting for lost-timeout (1 min here), and the old registration is lost.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
# shellcheck source=tests/fixtures/controller/tracker.sh
. "$src/tests/fixtures/controller/tracker.sh"

write_fast_config 1min
start_bus
start_controller
start_real_tracker 64M
first_pid=$tracker_pid

real_tracker_config 1 64M "$tmp/work2" | sed 's/^hostname = .*/hostname = vm1-again/' \
	>"$tmp/tracker2.ini"
"$build/bin/flexslot-tracker" --config "$tmp/tracker2.ini" >"$tmp/tracker2.log" 2>&1 &
second_pid=$!
pids="$pids $second_pid"
refused_twice() {
	[ "$(grep -c "VmInUse: VM 6d1f0c7e-0000-4000-8000-000000000001 is tracker 1's (vm1)" \
		"$tmp/tracker2.log")" -ge 2 ]
}
poll refused_twice || fail "the second tracker was not refused, twice: $(cat "$tmp/tracker2.log")"
kill -0 "$second_pid" || fail "the second tracker gave up: $(cat "$tmp/tracker2.log")"

kill "$first_pid"
poll grep -q "Registered with" "$tmp/tracker2.log" ||
	fail "the second tracker did not take the VM's place: $(cat "$tmp/tracker2.log")"
grep -q "Tracker 1 (vm1) gave way to a new registration of its VM: lost" "$tmp/controller.log" ||
	fail "the first registration was not retired: $(grep "Tracker 1" "$tmp/controller.log")"
echo "PASS"

#!/bin/sh
# The tracker endpoint against peers that are not trackers, or not the
# only one: a connection that does not register within [trackers]
# register-timeout is closed; only registered trackers count against
# max-trackers, and one more is refused by name (TooManyTrackers). A VM has
# one tracker: a second registration of a connected tracker's VM is refused
# by name (VmInUse), and once that tracker's connection has gone, the new one
# takes its place at once, the old registration lost. A lost tracker leaves
# ListNodes after forget-lost.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
chaos=$build/bench/flexslot-chaos-client
endpoint=unix:path=$tmp/trackers

start_bus
write_config
# A long lost-timeout: a tracker whose VM registers again is retired
# without it.
sed -i 's/^\[trackers\]$/[trackers]\nregister-timeout = 2s\nmax-trackers = 2\nforget-lost = 1s/; s/^lost-timeout = .*/lost-timeout = 1min/' \
	"$tmp/controller.ini"
start_controller

# Three idle connections, more than max-trackers, take no tracker's place;
# the controller closes them once register-timeout has passed.
"$chaos" idle --address "$endpoint" --count 3 --timeout 15 >"$tmp/idle.log" 2>&1 &
idle_pid=$!
pids="$pids $idle_pid"
poll grep -q "^connected 3$" "$tmp/idle.log" || fail "idle connections: $(cat "$tmp/idle.log")"
run_tracker "$tmp/t1.log" --token-file "$tmp/token" --hostname t1 --beats 2 ||
	fail "a tracker behind 3 idle connections: $(cat "$tmp/t1.log")"
wait "$idle_pid" || fail "the idle connections stayed open: $(cat "$tmp/idle.log")"
echo "idle: $(tail -n 1 "$tmp/idle.log")"
grep -q "did not register within 2s" "$tmp/controller.log" ||
	fail "no word of the closed connections: $(cat "$tmp/controller.log")"

# Two registered trackers are max-trackers; a third is refused by name, and
# registers once one of the two has gone.
for t in 2 3; do
	"$tracker" --address "$endpoint" --token-file "$tmp/token" --hostname "t$t" \
		--vm-uuid "00000000-0000-0000-0000-00000000000$t" --beats 100000 >"$tmp/t$t.log" 2>&1 &
	eval "t${t}_pid=\$!"
	pids="$pids $!"
done
poll grep -q "^registered" "$tmp/t2.log" || fail "t2: $(cat "$tmp/t2.log")"
poll grep -q "^registered" "$tmp/t3.log" || fail "t3: $(cat "$tmp/t3.log")"
if run_tracker "$tmp/t4.log" --token-file "$tmp/token" --hostname t4 \
	--vm-uuid 00000000-0000-0000-0000-000000000004 --beats 1; then
	fail "a third tracker registered beside max-trackers = 2: $(cat "$tmp/t4.log")"
fi
grep -q "^error org.flexslot.Tracker1.Error.TooManyTrackers: 2 trackers are registered" \
	"$tmp/t4.log" || fail "the third tracker's refusal: $(cat "$tmp/t4.log")"
# shellcheck disable=SC2154 # set by the eval above
kill "$t2_pid"
poll_register() {
	run_tracker "$tmp/t4.log" --token-file "$tmp/token" --hostname t4 \
		--vm-uuid 00000000-0000-0000-0000-000000000004 --beats 1
}
poll poll_register || fail "no room after a tracker left: $(cat "$tmp/t4.log")"

# t3's VM again, while t3 is connected: refused by name.
vm3=00000000-0000-0000-0000-000000000003
if run_tracker "$tmp/t5.log" --token-file "$tmp/token" --hostname t5 --vm-uuid $vm3 --beats 1; then
	fail "a second tracker of VM $vm3 registered: $(cat "$tmp/t5.log")"
fi
grep -q "^error org.flexslot.Tracker1.Error.VmInUse: VM $vm3 is tracker [0-9]*'s (t3), which is connected" \
	"$tmp/t5.log" || fail "the second tracker's refusal: $(cat "$tmp/t5.log")"
# t3 gone, the VM's next tracker takes its place before lost-timeout.
# shellcheck disable=SC2154 # set by the eval above
kill "$t3_pid"
poll_vm3() {
	run_tracker "$tmp/t5.log" --token-file "$tmp/token" --hostname t5 --vm-uuid $vm3 --beats 1
}
poll poll_vm3 || fail "VM $vm3's tracker did not come back: $(cat "$tmp/t5.log")"
grep -q "Tracker [0-9]* (t3) gave way to a new registration of its VM: lost" "$tmp/controller.log" ||
	fail "t3 was not retired: $(grep t3 "$tmp/controller.log")"
t3_forgotten() {
	! ctl_call ListNodes | grep -q '"t3"'
}
poll t3_forgotten || fail "the lost t3 stayed in ListNodes: $(ctl_call ListNodes)"
grep -q "Forgot tracker [0-9]* (t3), lost 1" "$tmp/controller.log" ||
	fail "no word of t3 forgotten: $(grep t3 "$tmp/controller.log")"
echo "PASS"

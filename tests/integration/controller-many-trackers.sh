#!/bin/sh
# 4,000 trackers at once on the controller's TCP endpoint, each registered
# and keeping one heartbeat in flight for 5 s (flexslot-bench-heartbeat):
# every connection has a heartbeat answered within those 5 s. The
# controller answers without the policy step ([policy] step = no), whose
# cost flexslot-bench-cluster measures: what is tested is the endpoint. It
# used to cost, per message, work for every connection it held (each
# connection's sd-bus prepare callback, and epoll reporting every ready
# descriptor on each turn of the loop, which dispatched one): a round of
# 4,000 heartbeats took longer than the window, and none was answered in it
# (common/bus-watch.h).
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
load=$build/bench/flexslot-bench-heartbeat
trackers=4000

# A descriptor per connection on each side, with room for the rest.
need=$((trackers + 256))
# shellcheck disable=SC3045 # dash's ulimit has -H and -n
hard=$(ulimit -Hn)
[ "$hard" = unlimited ] || [ "$hard" -ge "$need" ] ||
	skip "$trackers connections need $need descriptors; the hard limit is $hard"
# shellcheck disable=SC3045
[ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt "$need" ] && ulimit -n "$need"

write_config
sed -i "s|^listen = .*|listen = tcp:host=127.0.0.1,port=0|
	s|^heartbeat-interval = .*|heartbeat-interval = 10s|
	s|^lost-timeout = .*|lost-timeout = 10min\nmax-trackers = $trackers|" "$tmp/controller.ini"
printf '[policy]\nstep = no\n' >>"$tmp/controller.ini"
start_bus
start_controller
port=$(sed -n 's/.*Tracker endpoint tcp:host=127\.0\.0\.1,port=\([0-9]*\)$/\1/p' "$tmp/controller.log")
[ -n "$port" ] || fail "the controller did not say its port: $(tail -n 5 "$tmp/controller.log")"

line=$("$load" --address "tcp:host=127.0.0.1,port=$port" --token-file "$tmp/token" \
	--trackers "$trackers" --seconds 5 --warmup 1) ||
	fail "the load failed: $(tail -n 5 "$tmp/controller.log")"
echo "$line"
field() { echo "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
[ "$(field trackers)" = "$trackers" ] || fail "not $trackers connections: $line"
[ "$(field unanswered)" = 0 ] ||
	fail "$(field unanswered) of $trackers connections had no heartbeat answered in 5 s"
[ "$(grep -c "registered:" "$tmp/controller.log")" = "$trackers" ] ||
	fail "not $trackers registrations: $(grep -c "registered:" "$tmp/controller.log")"
echo "PASS"

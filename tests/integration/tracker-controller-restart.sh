#!/bin/sh
# A tracker outlives its controller over TCP, as the trackers in make
# demo-vm's and make vmexp's guests do between runs: with the controller
# stopped (SIGTERM) and started again on the same port, the tracker
# registers with the new one by itself. Its first tries reach no listener;
# a TCP connection that fails while sd-bus opens it left the Register call
# neither answered nor timed out, and the tracker waited forever.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/tracker.sh"
# shellcheck source=tests/lib/tcp-port.sh
. "$FLEXSLOT_SRCDIR/tests/lib/tcp-port.sh"
export LC_ALL=C

data=$tmp/data
# shellcheck disable=SC2119 # the default lost-timeout
write_fast_config
mkdir -p "$data"
port=$(free_tcp_port) || fail "no port for the controller"
sed -i "s|^listen = .*|listen = tcp:host=127.0.0.1,port=$port|" "$tmp/controller.ini"
start_bus
start_controller
real_tracker_config 1 64M "$tmp/work" |
	sed "s|^controller = .*|controller = tcp:host=127.0.0.1,port=$port|
		s|^reconnect-max = .*|reconnect-max = 400ms\ncall-timeout = 2s|" >"$tmp/tracker.ini"
run_registered_tracker

kill -TERM "$controller_pid"
wait "$controller_pid" 2>/dev/null || true
poll grep -q "the controller went away" "$tmp/tracker.log" ||
	fail "the tracker did not notice the controller going: $(cat "$tmp/tracker.log")"
# Long enough for tries that reach no listener.
sleep 1
start_controller
registered_twice() {
	[ "$(grep -c "Registered with" "$tmp/tracker.log")" -ge 2 ]
}
poll registered_twice || poll registered_twice ||
	fail "the tracker did not register with the new controller: $(cat "$tmp/tracker.log")"
echo "PASS"

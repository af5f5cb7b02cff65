# shellcheck shell=sh
# Sourced by the fixtures of the integration scripts that run a daemon on a
# private bus, after they set $tmp (their temporary directory) and $src: the
# verdicts, a trap that stops every process in $pids by PID and removes $tmp
# (KEEP_TMP=1 keeps it, for a look after a failure), a bounded poll, and a
# private dbus-daemon with a monitor.

# shellcheck source=tests/lib/bus-config.sh
. "${src:?}/tests/lib/bus-config.sh"
# shellcheck source=tests/lib/verdict.sh
. "$src/tests/lib/verdict.sh"

pids=""
cleanup() {
	# A process a test stopped (SIGSTOP) is continued first, to hear
	# SIGTERM; never after it, when a SIGCONT could cancel the stop the
	# leak checker of a sanitized daemon stops it with on its way out.
	for p in $pids; do
		kill -CONT "$p" 2>/dev/null || true
		kill "$p" 2>/dev/null || true
	done
	for p in $pids; do
		stopped_or_killed "$p"
		wait "$p" 2>/dev/null || true
	done
	[ -n "${KEEP_TMP:-}" ] || rm -rf "${tmp:?}"
}

# stopped_or_killed PID: waits up to 60 s for PID to end after its SIGTERM
# (a zombie counts as ended); past that, says on stderr where it hangs
# (state, wchan, kernel stack) and kills it, so that one process stuck on
# its way out costs a minute and leaves its trace in the script's log.
stopped_or_killed() {
	_sk_i=0
	while [ -r "/proc/$1/stat" ] && [ "$(sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f1)" != Z ]; do
		_sk_i=$((_sk_i + 1))
		if [ "$_sk_i" -gt 600 ]; then
			echo "cleanup: $1 ($(cat "/proc/$1/comm" 2>/dev/null)) did not end 60 s after SIGTERM:" \
				"$(grep -E '^(State|SigPnd|ShdPnd|SigBlk)' "/proc/$1/status" 2>/dev/null | tr '\n\t' '; ')" \
				"wchan $(cat "/proc/$1/wchan" 2>/dev/null); killed" >&2
			cat "/proc/$1/stack" >&2 2>/dev/null || true
			kill -KILL "$1" 2>/dev/null || true
			return
		fi
		sleep 0.1
	done
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# Runs "$@" up to 100 times, 0.1 s apart, until it succeeds: a bounded poll
# for a condition, never a fixed sleep.
poll() {
	i=0
	until "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 100 ] || return 1
		sleep 0.1
	done
}

# start_private_bus [system POLICY_FILE]: a dbus-daemon configured by
# private_bus_config; its PID in bus_pid, its address in address.
start_private_bus() {
	command -v dbus-daemon >/dev/null || skip "no dbus-daemon"
	command -v busctl >/dev/null || skip "no busctl"
	private_bus_config "$tmp/bus" "$@" >"$tmp/bus.conf"
	dbus-daemon --config-file="$tmp/bus.conf" --nofork --print-address=1 \
		>"$tmp/bus.address" 2>"$tmp/bus.log" &
	bus_pid=$!
	pids="$pids $bus_pid"
	poll test -s "$tmp/bus.address" || fail "dbus-daemon did not start"
	address="unix:path=$tmp/bus"
}

bus() {
	busctl --address="$address" "$@"
}

# busctl prints only an error's message; the monitor shows its name.
start_monitor() {
	bus monitor >"$tmp/monitor.log" 2>&1 &
	pids="$pids $!"
	poll monitor_sees_ping || fail "busctl monitor did not attach"
}

monitor_sees_ping() {
	bus call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus GetId >/dev/null
	grep -q "Member=GetId" "$tmp/monitor.log"
}

count_in_monitor() {
	grep -c -- "$1" "$tmp/monitor.log" || true
}

monitor_count_above() {
	[ "$(count_in_monitor "$1")" -gt "$2" ]
}

# expect_bus_error INTERFACE CALL NAME METHOD SIGNATURE ARGS...: CALL (a
# function that calls a method of INTERFACE) fails, and the bus carries one
# more error reply named INTERFACE.Error.NAME (or the full NAME if it has
# dots). Its message stays in out.
expect_bus_error() {
	case $3 in
	*.*) name=$3 ;;
	*) name=$1.Error.$3 ;;
	esac
	call=$2
	shift 3
	before=$(count_in_monitor "ErrorName=$name")
	if out=$("$call" "$@" 2>&1); then
		fail "$* succeeded ($out), expected $name"
	fi
	echo "$* -> $name: $out"
	poll monitor_count_above "ErrorName=$name" "$before" ||
		fail "$* did not reply $name: $out"
}

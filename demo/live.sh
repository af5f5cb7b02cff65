#!/bin/sh
# `make demo-live`: the whole stack on this machine, as local processes. A
# private dbus-daemon; flexslot-agentd on libvirt's test driver with the
# VMs of tests/fixtures/agent/host.xml; flexslot-controllerd coupled to it;
# one flexslot-tracker per running VM, with that VM's UUID. A skewed text
# dataset (a few splits of long, expensive lines next to small ones), then
# wordcount twice: stock (slot-manager static, vm-allocator none), then
# FlexSlot (both flexslot), each on a fresh controller and store. Each
# output is checked against tr | sort | uniq -c; for each run the script
# prints what the controller logged it did. Every process started here is
# stopped by PID on exit, Ctrl-C included.
#
# Environment: DEMO_SIZE (default 20, about 20 MiB) scales the dataset; DEMO_PIDS=FILE
# records the PIDs started, for a test to check they are gone; KEEP_TMP=1
# keeps the temporary directory (logs, data).
set -eu
build=${FLEXSLOT_BUILD:?set by make demo-live}
src=${FLEXSLOT_SRCDIR:?set by make demo-live}
size=${DEMO_SIZE:-20}
case $size in
'' | *[!0-9]* | 0*)
	echo "demo-live: DEMO_SIZE '$size' is not a positive integer" >&2
	exit 2
	;;
esac
if [ "$(id -u)" -ne 0 ]; then
	echo "demo-live: run it as root: the trackers run their tasks as the user nobody" >&2
	exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flexslot-demo.XXXXXX")
# The tasks (as nobody) reach the data and their work directories.
chmod 0711 "$tmp"
# shellcheck source=tests/lib/daemon.sh
. "$src/tests/lib/daemon.sh"
# shellcheck source=tests/lib/dataset.sh
. "$src/tests/lib/dataset.sh"
export LC_ALL=C
fixture=$src/tests/fixtures/agent/host.xml
data=$tmp/data

record_pids() {
	[ -z "${DEMO_PIDS:-}" ] || echo "$pids" >"$DEMO_PIDS"
}

ctl_call() {
	bus call org.flexslot.Controller1 /org/flexslot/Controller1 \
		org.flexslot.Controller1 "$@"
}

# The UUIDs of the fixture's running domains: a test:runstate marks the
# others (the shut-off spare).
vms=$(awk '/<uuid>/ { gsub(/ *<\/?uuid>/, ""); uuid = $0; off = 0 }
	/<test:runstate>/ { off = 1 } /<\/domain>/ && !off { print uuid }' "$fixture")

echo "== dataset (DEMO_SIZE=$size)"
# With 1M blocks the long files are the splits that straggle.
inputs=$(demo_dataset "$data" "$size" "$tmp/expected")
n_inputs=$(echo "$inputs" | wc -w)
echo "$n_inputs files, $(du -sk "$data/in" | cut -f1) KiB, $(wc -l <"$tmp/expected") distinct words"

echo "== starting: dbus-daemon, flexslot-agentd (test driver), controller, a tracker per VM:"
echo "$vms"
# shellcheck disable=SC2119 # a bus that allows everything
start_private_bus
cat >"$tmp/agent.ini" <<CONF
[agent]
uri = test://$fixture
interval = 100ms
[host]
cpus = 16
memory = 16G
reserve-memory = 1G
[limits]
min-interval = 10ms
CONF
"$build/bin/flexslot-agentd" --config "$tmp/agent.ini" --address "$address" \
	>"$tmp/agent.log" 2>&1 &
pids="$pids $!"
record_pids
poll bus status org.flexslot.Agent1 || fail "the agent did not start: $(cat "$tmp/agent.log")"

echo "demo-token-$$" >"$tmp/token"
chmod 0600 "$tmp/token"

# controller_config RUN SLOT_MANAGER VM_ALLOCATOR
controller_config() {
	cat >"$tmp/controller-$1.ini" <<CONF
[controller]
store = $tmp/store-$1.db
[trackers]
listen = unix:path=$tmp/trackers
token-file = $tmp/token
heartbeat-interval = 100ms
lost-timeout = 2s
[jobs]
data-dir = $data
block-size = 1M
[policy]
slot-manager = $2
vm-allocator = $3
[agents]
hosts = $address
call-timeout = 1s
CONF
}

start_controller() { # RUN
	"$build/bin/flexslot-controllerd" --config "$tmp/controller-$1.ini" --address "$address" \
		--log-level=debug >"$tmp/controller-$1.log" 2>&1 &
	controller_pid=$!
	pids="$pids $controller_pid"
	record_pids
	poll bus status org.flexslot.Controller1 ||
		fail "the controller did not start: $(cat "$tmp/controller-$1.log")"
}

stop_controller() {
	kill "$controller_pid"
	wait "$controller_pid" || fail "the controller exited with status $?"
}

start_trackers() {
	n=0
	for uuid in $vms; do
		n=$((n + 1))
		mkdir -p "$tmp/work-$n"
		chmod 1777 "$tmp/work-$n"
		cat >"$tmp/tracker-$n.ini" <<CONF
[tracker]
controller = unix:path=$tmp/trackers
token-file = $tmp/token
data-dir = $data
work-dir = $tmp/work-$n
task-program = $build/bin/flexslot-task
vm-uuid = $uuid
hostname = vm$n
[slots]
map-slots = 1
reduce-slots = 1
slot-memory = 64M
[connection]
reconnect-max = 400ms
[tasks]
task-user = nobody
CONF
		"$build/bin/flexslot-tracker" --config "$tmp/tracker-$n.ini" >"$tmp/tracker-$n.log" 2>&1 &
		pids="$pids $!"
	done
	record_pids
}

nodes_alive() {
	[ "$(ctl_call ListNodes | grep -o '"alive"' | wc -l)" -eq "$1" ]
}

now_ms() {
	date +%s%3N
}

# run NAME SLOT_MANAGER VM_ALLOCATOR: a fresh controller, one wordcount job,
# its output checked, what the controller did.
run() {
	controller_config "$1" "$2" "$3"
	start_controller "$1"
	# The trackers reconnect to the new controller by themselves.
	poll nodes_alive "$n" || poll nodes_alive "$n" ||
		fail "the trackers did not register: $(ctl_call ListNodes)"
	echo "== run $1: slot-manager=$2 vm-allocator=$3"
	t0=$(now_ms)
	# shellcheck disable=SC2086 # the inputs, one argument each
	job=$(ctl_call SubmitJob ssssasutsss wordcount "" "" "" "$n_inputs" $inputs 2 0 default demo "wc-$1" |
		awk '{ print $2 }')
	i=0
	while state=$(ctl_call GetJob t "$job" | awk '{ print $3 }'); do
		case $state in '"running"' | '"queued"') ;; *) break ;; esac
		i=$((i + 1))
		[ $i -lt 6000 ] || fail "job $job of run $1 did not end in 10 minutes"
		sleep 0.1
	done
	elapsed=$(($(now_ms) - t0))
	[ "$state" = '"succeeded"' ] || fail "run $1: job $job $state: $(ctl_call GetJob t "$job")"
	sort "$data/out/$job"/part-* >"$tmp/out-$1"
	if cmp -s "$tmp/out-$1" "$tmp/expected"; then
		verdict="verified against tr | sort | uniq -c"
	else
		fail "run $1: the output differs from tr | sort | uniq -c: $(diff "$tmp/out-$1" "$tmp/expected" | head -5)"
	fi
	rm -rf "${data:?}/out"
	log=$tmp/controller-$1.log
	printf '  completion time     %d.%03d s\n' $((elapsed / 1000)) $((elapsed % 1000))
	printf '  output              %s\n' "$verdict"
	stragglers=$(sed -n 's/.*Straggler: attempt \([0-9]*\) .*/\1/p' "$log" | sort -u | wc -l)
	printf '  stragglers found    %s\n' "$stragglers"
	printf '  kills               %s\n' "$(grep -c 'Kill: attempt' "$log" || true)"
	printf '  slot moves          %s\n' "$(grep -c 'Slots: tracker' "$log" || true)"
	printf '  VM targets applied  %s\n' "$(grep -c 'VM .* on agent .*: .*applied' "$log" || true)"
	grep -h 'Kill: attempt\|Slots: tracker\|VM .* on agent .*: .*applied' "$log" |
		sed 's/^.*: info: [a-z_]*: /    /' | head -10
	stop_controller
	acted=$(grep -c 'Kill: attempt\|Slots: tracker\|VM .* on agent .*: .*applied' "$log" || true)
}

# Before any controller: they keep trying until one answers.
start_trackers
run stock static none
time_stock=$elapsed
run flexslot flexslot flexslot

echo "== summary"
echo "stock $time_stock ms, flexslot $elapsed ms; both outputs verified"
[ "$stragglers" -gt 0 ] ||
	echo "No attempt was slow enough to be a straggler: every split ran at full speed."
if [ "$acted" -eq 0 ]; then
	echo "FlexSlot changed nothing here: local processes on one machine see no steal"
	echo "and no I/O wait worth a slot move, so the difference in time is noise."
else
	echo "FlexSlot acted $acted times (kills, slot moves, VM targets above);"
	echo "on local processes the time difference is not a measure of its benefit."
fi
if [ -n "${KEEP_TMP:-}" ]; then
	echo "logs and data: $tmp"
else
	echo "logs and data are removed now; KEEP_TMP=1 keeps them"
fi

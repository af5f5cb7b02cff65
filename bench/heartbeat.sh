#!/bin/sh
# make bench (controller part): heartbeats per second flexslot-controllerd
# sustains, and their reply latencies, from many tracker connections on its
# Unix socket endpoint (flexslot-bench-heartbeat keeps one heartbeat in
# flight per connection). The cluster is full and steady: $jobs jobs of
# 100, then 1000 maps each wait, every slot holds a running attempt, so each
# heartbeat runs the policy step over the whole model and assigns nothing:
# the step reuses the snapshot of the one before, with what the heartbeat
# changed taken in (flexslot-bench-cluster, which make bench-heartbeat runs
# first, measures the same path at 4,000 trackers with tasks finishing and
# starting). The
# baseline is the same load on a controller with [policy] step = no, which
# answers from the same model without the step: the step's share of a
# heartbeat. The controller runs on CPU 0, the load on CPU 1 (when there
# are two); both CPU shares are printed, to tell which one was the limit.
# The figures also go to $FLEXSLOT_BUILD/bench/heartbeat-results.txt.
# FLEXSLOT_BENCH_TRACKERS may list several connection counts, each run in
# turn; FLEXSLOT_BENCH_LISTEN=tcp puts the endpoint on 127.0.0.1 instead of
# a Unix socket, as the trackers in guests reach it.
# FLEXSLOT_BENCH_TASK_BEATS=N makes an attempt succeed in its tracker's
# heartbeat after its Nth, so that the step starts the next in its slot and
# heartbeats write the store, which the controller commits once per pass of
# its loop (the replies wait for it); the default, 0, holds every attempt.
# FLEXSLOT_BENCH_RATE lists offered rates (heartbeats per second over all
# connections): for each, the same load runs open loop (--rate), each
# connection heartbeating on its own schedule as trackers with an interval
# do, and the reply times count from when each heartbeat was due (a closed
# loop's reply time is only the connections over the rate); the policy step
# runs, and the load average is printed beside each.
set -eu

build=${FLEXSLOT_BUILD:?run through make bench}
src=${FLEXSLOT_SRCDIR:?run through make bench}
trackers=${FLEXSLOT_BENCH_TRACKERS:-64}
seconds=${FLEXSLOT_BENCH_SECONDS:-5}
jobs=${FLEXSLOT_BENCH_JOBS:-4}
sizes=${FLEXSLOT_BENCH_MAPS:-100 1000}
task_beats=${FLEXSLOT_BENCH_TASK_BEATS:-0}
transport=${FLEXSLOT_BENCH_LISTEN:-unix}
rates=${FLEXSLOT_BENCH_RATE:-}
for rate in $rates; do
	case $rate in
	*[!0-9]* | 0*)
		echo "FLEXSLOT_BENCH_RATE lists heartbeats per second, whole and above 0, not '$rate'" >&2
		exit 2
		;;
	esac
done
results="$build/bench/heartbeat-results.txt"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flexslot-bench-heartbeat.XXXXXX")
# shellcheck source=tests/lib/daemon.sh
. "$src/tests/lib/daemon.sh"

mkdir -p "$build/bench"
: >"$results"
say() { echo "$*" | tee -a "$results"; }
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

cpus=$(getconf _NPROCESSORS_ONLN)
if [ "$cpus" -ge 2 ]; then
	on_controller="taskset -c 0"
	on_load="taskset -c 1"
else
	on_controller=""
	on_load=""
fi

# cpu_ticks PID: the process's user + system time, in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# run STEP MAPS TRACKERS [RATE]: one controller with [policy] step = STEP on
# a fresh store, the jobs of MAPS maps submitted, the load of TRACKERS
# connections, open loop at RATE heartbeats/s if given; prints the load's
# line and the controller's CPU share.
run() {
	rm -f "$tmp/store.db" "$tmp/store.db-wal" "$tmp/store.db-shm" "$tmp/store.db.lock" \
		"$tmp/trackers"
	cat >"$tmp/controller.ini" <<CONF
[controller]
store = $tmp/store.db
log-level = warning
[trackers]
listen = $listen
token-file = $tmp/token
heartbeat-interval = 10s
lost-timeout = 10min
max-trackers = 10000
[jobs]
data-dir = $tmp/data
[policy]
step = $1
CONF
	$on_controller "$build/bin/flexslot-controllerd" --config "$tmp/controller.ini" \
		--address "$address" >>"$tmp/controller.log" 2>&1 &
	controller_pid=$!
	pids="$pids $controller_pid"
	poll bus status org.flexslot.Controller1 || {
		cat "$tmp/controller.log"
		fail "the controller did not start"
	}
	inputs=$(seq -f "in/%g" 1 "$2")
	for j in $(seq 1 "$jobs"); do
		# shellcheck disable=SC2086 # one argument per input
		"$build/bin/flexslotctl" --address "$address" submit --app wordcount --reduces 8 \
			--user bench --name "job$j" $inputs >/dev/null || fail "cannot submit job $j"
	done
	t0=$(cpu_ticks "$controller_pid")
	w0=$(date +%s.%N)
	line=$($on_load "$build/bench/flexslot-bench-heartbeat" --address "$listen" \
		--token-file "$tmp/token" --trackers "$3" --seconds "$seconds" --warmup 1 \
		--task-beats "$task_beats" ${4:+--rate "$4"}) ||
		fail "the load failed: $(tail -5 "$tmp/controller.log")"
	t1=$(cpu_ticks "$controller_pid")
	w1=$(date +%s.%N)
	kill "$controller_pid"
	wait "$controller_pid" || fail "the controller failed: $(tail -5 "$tmp/controller.log")"
	share=$(awk -v t="$((t1 - t0))" -v hz="$(getconf CLK_TCK)" -v a="$w0" -v b="$w1" \
		'BEGIN { printf "%.2f", t / hz / (b - a) }')
	echo "$line controller_cpu=$share"
}

# On a machine others use too, the controller may not get its CPU: the
# heartbeats per second of its own CPU time say what a core of its own
# would sustain. report WHAT LINE TASKS: TASKS the jobs' tasks, of which
# those left at the end say how much work still waited when the
# measurement ended (the load finishes attempts from its warm-up on).
report() {
	say "  $1: $(field "$2" rate) heartbeats/s, reply latency p50 $(field "$2" p50_us) us," \
		"p99 $(field "$2" p99_us) us, max $(field "$2" max_us) us;" \
		"CPU controller $(field "$2" controller_cpu), load $(field "$2" cpu);" \
		"$(field "$2" assigned) attempts held, $(field "$2" finished) finished" \
		"($(($3 - $(field "$2" finished))) of the $3 tasks unfinished at the end);" \
		"$(field "$2" unanswered) connections unanswered;" \
		"$(awk -v r="$(field "$2" rate)" -v c="$(field "$2" controller_cpu)" \
			'BEGIN { if (c > 0) printf "%.0f", r / c; else print "n/a" }')" \
		"heartbeats per controller CPU-second"
}

# The inputs the jobs name, empty: a split each.
mkdir -p "$tmp/data/in"
for maps in $sizes; do
	for i in $(seq 1 "$maps"); do
		: >"$tmp/data/in/$i"
	done
done
case $transport in
unix) listen="unix:path=$tmp/trackers" ;;
tcp)
	port=$((20000 + $$ % 20000))
	while ss -Hltn "sport = :$port" 2>/dev/null | grep -q .; do
		port=$((port + 1))
	done
	listen="tcp:host=127.0.0.1,port=$port"
	;;
*)
	echo "FLEXSLOT_BENCH_LISTEN is unix or tcp, not '$transport'" >&2
	exit 2
	;;
esac
# A descriptor per connection, in the controller and in the load.
most=0
for n in $trackers; do
	[ "$n" -le "$most" ] || most=$n
done
# shellcheck disable=SC3045 # dash's ulimit has -n
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((most + 256)) ]; then
	ulimit -n $((most + 256)) 2>/dev/null ||
		echo "heartbeat.sh: cannot raise the descriptor limit to $((most + 256))" >&2
fi
echo "s3cret-bench-token" >"$tmp/token"
chmod 0600 "$tmp/token"
# shellcheck disable=SC2119 # a bus that allows everything
start_private_bus
say "flexslot heartbeat benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), $cpus CPUs," \
	"load average $(cut -d' ' -f1-3 /proc/loadavg)"
for n in $trackers; do
	say "$n tracker connections over $transport (2 map + 1 reduce slots each)," \
		"${seconds}s measured after 1s of warm-up"
	for maps in $sizes; do
		say "$jobs jobs x ($maps maps + 8 reduces):"
		for rate in $rates; do
			line=$(run yes "$maps" "$n" "$rate")
			say "  open loop, $rate heartbeats/s offered (load average" \
				"$(cut -d' ' -f1 /proc/loadavg)): $(field "$line" rate)/s answered," \
				"reply latency from due p50 $(field "$line" p50_us) us," \
				"p99 $(field "$line" p99_us) us, max $(field "$line" max_us) us;" \
				"$(field "$line" late) of $(field "$line" heartbeats) sent late;" \
				"CPU controller $(field "$line" controller_cpu), load $(field "$line" cpu);" \
				"$(field "$line" finished) finished"
		done
		with=$(run yes "$maps" "$n")
		report "policy step (fifo)" "$with" $((jobs * (maps + 8)))
		without=$(run no "$maps" "$n")
		report "baseline, [policy] step = no" "$without" $((jobs * (maps + 8)))
		say "  baseline rate / step rate: $(awk -v a="$(field "$with" rate)" \
			-v b="$(field "$without" rate)" \
			'BEGIN { if (a > 0) printf "%.2f", b / a; else print "n/a" }')"
	done
done

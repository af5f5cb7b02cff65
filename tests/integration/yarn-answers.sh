#!/bin/sh
# flexslot-controllerd with [cluster] driver = yarn against a stand-in
# ResourceManager (tests/fixtures/yarn/fake-rm.py) that serves a round
# recorded from Hadoop's mini cluster, then answers badly: HTML where JSON
# should be, a 500, nothing at all, JSON cut halfway. Each is named in the
# log once, the controller decides nothing meanwhile and keeps what it saw
# (ListNodes still lists the NodeManagers, and answers at once while a
# request hangs), and carries on when good answers come back; the recorded
# slow map is killed once through its master however many rounds see it.
# The stand-in has no reservation system: ARIA's minimum containers for the
# application's deadline are asked as a reservation once, refused with the
# ResourceManager's reason, and become advice; the controller carries on.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/agent.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/ctl.sh"
. "$src/tests/yarn/lib.sh"
command -v python3 >/dev/null || skip "no python3 for the stand-in ResourceManager"

round=$src/tests/fixtures/yarn/round
echo ok >"$tmp/mode"
python3 "$src/tests/fixtures/yarn/fake-rm.py" "$round" "$tmp/mode" >"$tmp/rm.out" 2>"$tmp/rm.log" &
pids="$pids $!"
poll grep -q '^port ' "$tmp/rm.out" || fail "the stand-in did not start: $(cat "$tmp/rm.log")"
port=$(awk '{ print $2 }' "$tmp/rm.out")
nm0=$(awk '$1 == 0 { print $2 }' "$round/nodemanagers")

start_bus
start_agent
yarn_controller_config "http://127.0.0.1:$port"
cat >>"$tmp/controller.ini" <<CONF
[yarn]
nodes = $nm0=worker1
reservation-queue = dedicated
[policy]
scheduler = aria
speculation = sepb
[agents]
hosts = $address
CONF
# The stand-in answers at once: rounds five times as often, and a hang
# named sooner.
sed -i -e 's/^poll-interval = .*/poll-interval = 200ms/' -e 's/^timeout = .*/timeout = 500ms/' \
	"$tmp/controller.ini"
start_controller

# mode MODE: the stand-in answers so from now on.
mode() {
	echo "$1" >"$tmp/mode"
}
said() {
	grep -c -- "$1" "$tmp/controller.log" || true
}
nodes_alive() {
	[ "$(ctl_call ListNodes | grep -o '"alive"' | wc -l)" -eq 3 ]
}

poll nodes_alive || fail "the NodeManagers are not nodes: $(ctl_call ListNodes)"
poll grep -q "YARN application application_1795772848039_0001 .*: job 1" "$tmp/controller.log" ||
	fail "the application is not a job: $(tail "$tmp/controller.log")"
# ListJobs and flexslotctl show it, running, with its master's counts.
job_listed() {
	ctl_call ListJobs | grep -q '1 "running" "streamjob3397353295179246494.jar" "root" "root.default" "application_1795772848039_0001" 6 1 5 0 1795772850975000 0 [0-9]* "yarn"'
}
poll job_listed || fail "ListJobs does not show the application: $(ctl_call ListJobs)"
ctl_call GetJob t 1 | grep -q '"yarn" "" 0 0 0 0$' || fail "GetJob: $(ctl_call GetJob t 1)"
expect_error NotSupported CancelJob t 1
flexslotctl list >"$tmp/jobs" || fail "flexslotctl list failed"
grep -q "^1	running	streamjob3397353295179246494.jar	root	root.default	application_1795772848039_0001	6	1	5	0	.*	yarn$" \
	"$tmp/jobs" || fail "flexslotctl list: $(cat "$tmp/jobs")"
# The recorded map 0 started long ago: SEPB kills it, once.
poll grep -q "Killed attempt attempt_1795772848039_0001_m_000000_0: its application master says KILLED" \
	"$tmp/controller.log" || fail "the straggler was not killed: $(grep -i kill "$tmp/controller.log")"

# ARIA's quota for the deadline: a reservation asked once; refused, advice.
poll grep -q "Advice: job 1 (application_1795772848039_0001) needs [0-9]* map and [0-9]* reduce containers at least to meet its deadline; YARN did not take its reservation" \
	"$tmp/controller.log" || fail "no advice after the refused reservation: $(grep -e Reserv -e Advice "$tmp/controller.log")"
grep -q "Reserve: job 1 (application_1795772848039_0001) needs .* asking YARN for [0-9]* containers of 256 MB and 1 vcores until then, in queue dedicated" \
	"$tmp/controller.log" || fail "no reservation was asked: $(grep -e Reserv -e Advice "$tmp/controller.log")"
grep -q "YARN did not take the reservation of job 1 (application_1795772848039_0001): new-reservation: HTTP 500: Unable to create new reservation from RM web service; its minimum containers are advice" \
	"$tmp/controller.log" || fail "the refusal was not named: $(grep -e Reserv "$tmp/controller.log")"
grep -q '"POST /ws/v1/cluster/reservation/new-reservation' "$tmp/rm.log" ||
	fail "the stand-in was not asked: $(cat "$tmp/rm.log")"

# bad MODE TEXT: the stand-in answers MODE; the controller says the
# ResourceManager does not answer, with TEXT (a grep pattern), once however
# long it lasts, keeps its nodes and answers the bus at once; then good
# answers again, which it says too.
bad() {
	before=$(said "answers again")
	mode "$1"
	poll grep -q "does not answer ([a-z]*: $2" "$tmp/controller.log" ||
		fail "$1 answers were not named: $(tail -n 5 "$tmp/controller.log")"
	sleep 1
	[ "$(said "does not answer ([a-z]*: $2")" = 1 ] ||
		fail "$1 answers were named $(said "does not answer ([a-z]*: $2") times"
	start=$(date +%s%N)
	nodes_alive || fail "$1 answers lost the nodes: $(ctl_call ListNodes)"
	[ $(($(date +%s%N) - start)) -lt 1000000000 ] || fail "ListNodes waited on the stand-in"
	kill -0 "$controller_pid" || fail "the controller died of $1 answers: $(tail "$tmp/controller.log")"
	mode ok
	poll answered_again || fail "the controller did not see good answers again after $1"
}
answered_again() {
	[ "$(said "answers again")" -gt "$before" ]
}
bad garbage "not JSON (unexpected character at byte 0)"
bad error "HTTP 500: the ResourceManager is failing over"
bad hang "Operation timed out"
bad cut "not JSON (it ends early"

[ "$(said "Kill: attempt")" = 1 ] || fail "the straggler was killed $(said "Kill: attempt") times"
[ "$(said "Reserve: job")" = 1 ] || fail "the reservation was asked $(said "Reserve: job") times"
[ "$(grep -c "POST /ws/v1/cluster/reservation/new-reservation" "$tmp/rm.log")" = 1 ] ||
	fail "new-reservation was asked $(grep -c "POST /ws/v1/cluster/reservation/new-reservation" "$tmp/rm.log") times"

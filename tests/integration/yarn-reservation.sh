#!/bin/sh
# flexslot-controllerd's deadline reservations on a real YARN: Hadoop's
# mini cluster (tests/yarn/lib.sh), whose CapacityScheduler has the
# reservable queue "dedicated", and a streaming wordcount with a deadline
# (its tag flexslot-deadline=600) whose map 0 is slow. Once its other maps
# are done ARIA ([policy] scheduler = aria) has the job's profile and gives
# it a minimum of containers; the controller asks the ResourceManager for a
# reservation of that many in dedicated ([yarn] reservation-queue) until the
# deadline, and moves the application into the reservation's queue. The
# ResourceManager's REST shows the reservation with the containers the
# controller's log says ARIA asked (memory and vcores their multiples, all
# at once, until the application's start plus 600 s) and the application in
# its queue before its reduce started (mapreduce.job.reduce.slowstart.
# completedmaps = 1: not before the slow map ends), so the reduce's
# container comes from the reservation's queue. Hadoop 3.4 gives such a
# queue no resources until the cluster's change (yarn-model.h): the
# controller sets a node's capacity again as it is, and the job ends in the
# reservation's queue long before the reservation would lapse (without
# that, it waited for the lapse: 630 s), its output checked against
# coreutils'.
# Plain build's run only, as yarn-controller.sh (its time is the JVM's).
# flexslot-test: yarn
# flexslot-test: plain
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
. "$src/tests/yarn/lib.sh"
test_started=$(date +%s)

yarn_start
start_bus

# rm_json PATH PYTHON: PYTHON's print of the ResourceManager's answer to
# GET PATH, read as j.
rm_json() {
	answer=$(curl -sf --max-time 10 "$rm_url$1") || return 1
	echo "$answer" | python3 -c "
import json, sys
j = json.load(sys.stdin)
def listed(x):
    return x if isinstance(x, list) else [] if x is None else [x]
$2"
}

# plan_ready: the reservation system's plan holds the NodeManagers'
# capacity, which it follows some seconds after they register (until then
# it refuses what does not fit in what it has): a reservation of 7
# containers for a minute is taken, and deleted.
plan_ready() {
	id=$(curl -sf --max-time 10 -X POST "$rm_url/ws/v1/cluster/reservation/new-reservation?user.name=flexslot" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["reservation-id"])') || return 1
	now=$(date +%s%3N)
	status=$(curl -s --max-time 10 -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
		-d "{\"queue\":\"dedicated\",\"reservation-id\":\"$id\",\"reservation-definition\":{\"arrival\":$now,\"deadline\":$((now + 60000)),\"reservation-name\":\"plan-ready\",\"reservation-requests\":{\"reservation-request-interpreter\":1,\"reservation-request\":[{\"capability\":{\"memory\":256,\"vCores\":1},\"num-containers\":7,\"min-concurrency\":7,\"duration\":60000}]}}}" \
		"$rm_url/ws/v1/cluster/reservation/submit?user.name=flexslot")
	[ "$status" = 202 ] || return 1
	curl -sf --max-time 10 -o /dev/null -X POST -H 'Content-Type: application/json' \
		-d "{\"reservation-id\":\"$id\"}" "$rm_url/ws/v1/cluster/reservation/delete?user.name=flexslot"
}
i=0
until plan_ready; do
	i=$((i + 1))
	[ $i -lt 120 ] || fail "the reservation system's plan never took 7 containers"
	sleep 0.5
done
echo "the plan holds the cluster $(($(date +%s) - test_started)) s into the test"

yarn_controller_config "$rm_url"
cat >>"$tmp/controller.ini" <<CONF
[yarn]
reservation-queue = dedicated
[policy]
scheduler = aria
CONF
start_controller

# ---- a wordcount with a deadline, its map 0 slow ----
mkdir -p "$tmp/in"
for i in 1 2 3 4 5 6; do
	gen_words "$i" 200 >"$tmp/in/part$i"
done
wordcount_answer "$tmp/in"/part* >"$tmp/expected"
cat >"$tmp/mapper.sh" <<'EOF'
#!/bin/sh
case ${mapreduce_task_id:-} in *_m_000000) sleep 40 ;; esac
exec tr ' ' '\n'
EOF
chmod +x "$tmp/mapper.sh"
job_started=$(date +%s)
yarn_streaming_start job.log "$tmp/job.out" -D mapreduce.job.reduces=1 \
	-D mapreduce.job.reduce.slowstart.completedmaps=1 -D mapreduce.job.name=flexslot-deadline \
	-D mapreduce.job.tags=flexslot-deadline=600 \
	-input "file://$tmp/in" -output "file://$tmp/out" -mapper "$tmp/mapper.sh" -reducer "uniq -c"
job_pid=$yarn_job_pid

# ---- ARIA's minimum, reserved ----
held() {
	grep -q "Reserved: reservation_[0-9_]* for YARN application application_[0-9_]*$" \
		"$tmp/controller.log"
}
yarn_job_wait 600 held || {
	[ $? = 1 ] && why="the job ended" || why="120 s passed"
	fail "no reservation held ($why): $(grep -e Reserv -e Advice -e "did not take" "$tmp/controller.log"; tail -n 5 "$tmp/job.out")"
}
echo "reservation held $(($(date +%s) - job_started)) s into the job"
asked=$(sed -n 's/.*Reserve: job 1 (\(application_[0-9_]*\)) needs .* asking YARN for \([0-9]*\) containers of 256 MB and 1 vcores until then, in queue dedicated$/\1 \2/p' \
	"$tmp/controller.log")
[ -n "$asked" ] || fail "the controller did not say what it asked: $(grep Reserv "$tmp/controller.log")"
app=${asked% *}
containers=${asked#* }
[ "$containers" -ge 1 ] || fail "a reservation of $containers containers"
reservation=$(sed -n "s/.*Reserved: \(reservation_[0-9_]*\) for YARN application $app$/\1/p" \
	"$tmp/controller.log")
[ -n "$reservation" ] || fail "no reservation id in the log: $(grep Reserv "$tmp/controller.log")"
started=$(rm_json "/ws/v1/cluster/apps/$app" 'print(j["app"]["startedTime"])')

# The ResourceManager's word on it: ARIA's containers, all at once, until
# the deadline, allocated as much.
got=$(rm_json "/ws/v1/cluster/reservation/list?queue=dedicated&reservation-id=$reservation&include-resource-allocations=true" '
for r in listed(j["reservations"]):
    d = r["reservation-definition"]
    q = listed(d["reservation-requests"]["reservation-request"])[0]
    a = listed(r["resource-allocations"])
    print(r["reservation-id"], d["deadline"], q["num-containers"], q["min-concurrency"],
          q["capability"]["memory"], q["capability"]["vCores"],
          max(int(x["resource"]["memory"]) for x in a), max(int(x["resource"]["vCores"]) for x in a))')
want="$reservation $((started + 600000)) $containers $containers 256 1 $((containers * 256)) $containers"
[ "$got" = "$want" ] || fail "the ResourceManager lists '$got', not '$want'"
echo "ARIA reserved $containers containers of 256 MB until the deadline: $reservation"

# ---- the application in the reservation's queue, its reduce to come ----
moved() {
	grep -q "YARN application $app runs in its reservation $reservation (queue root.dedicated.$reservation)$" \
		"$tmp/controller.log"
}
yarn_job_wait 300 moved || {
	[ $? = 1 ] && why="the job ended" || why="60 s passed"
	fail "the application did not move ($why): $(grep -e "$app" -e "did not take" "$tmp/controller.log")"
}
moved_at=$(date +%s)
reduces=$(rm_json "/proxy/$app/ws/v1/mapreduce/jobs" '
for x in listed(j["jobs"]["job"]):
    print(x["reducesRunning"] + x["reducesCompleted"])') ||
	fail "the application master did not answer after the move"
[ "$reduces" = 0 ] || fail "the reduce started before the move: $reduces"
queue=$(rm_json "/ws/v1/cluster/apps/$app" 'print(j["app"]["queue"])')
[ "$queue" = "root.dedicated.$reservation" ] || fail "the application is in $queue"
poll grep -q "YARN node [^ ]*: its capacity set again as it was, for the ResourceManager to give the queue of reservation $reservation its resources" \
	"$tmp/controller.log" || fail "no node's capacity was set again: $(grep "YARN node" "$tmp/controller.log")"
echo "application moved into $reservation $((moved_at - job_started)) s into the job"

# ---- the job succeeds in the reservation's queue, its answer right ----
wait "$job_pid" || fail "the job failed: $(tail -n 30 "$tmp/job.out")"
took=$(($(date +%s) - job_started))
echo "wordcount with its reservation took $took s, $(($(date +%s) - moved_at)) s of it after the move"
# Not waiting for the reservation's end: half its 600 s is far above the
# job's own time (59 s at a load of 5, 133 s at 17).
[ "$took" -lt 300 ] || fail "the job took $took s: its reservation's queue gave it nothing"
queue=$(rm_json "/ws/v1/cluster/apps/$app" 'print(j["app"]["queue"], j["app"]["finalStatus"])')
[ "$queue" = "root.dedicated.$reservation SUCCEEDED" ] || fail "the application ended as $queue"
yarn_wordcount_got "$tmp/out" >"$tmp/got"
cmp -s "$tmp/got" "$tmp/expected" ||
	fail "the wordcount differs from coreutils': $(diff "$tmp/got" "$tmp/expected" | head)"
[ "$(grep -c "Reserve: job" "$tmp/controller.log")" = 1 ] ||
	fail "the reservation was asked $(grep -c "Reserve: job" "$tmp/controller.log") times"
kill -0 "$controller_pid" || fail "the controller stopped: $(tail -n 20 "$tmp/controller.log")"
echo "test took $(($(date +%s) - test_started)) s"

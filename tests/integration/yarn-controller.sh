#!/bin/sh
# flexslot-controllerd driving a real YARN ([cluster] driver = yarn):
# Hadoop's mini cluster (tests/yarn/lib.sh) of three NodeManagers, each
# mapped to a VM of libvirt's test driver behind a flexslot-agentd, and a
# real MapReduce wordcount (Hadoop streaming) whose output is checked
# against coreutils. On the way: the controller's ListNodes and ListVms show
# the NodeManagers and their VMs; the VM allocator's targets reach the
# agent; SetSlots shrinks NodeManager 0 to one container through the
# ResourceManager, whose REST shows it, and later containers follow it;
# the map attempt made slow on NodeManager 0 is killed by the controller
# (SEPB's kill of a hopeless straggler) through its application master,
# which runs it again, and the job still succeeds; the ResourceManager is
# stopped and started mid-job and the controller names it, carries on, and
# sets the capacity the restarted ResourceManager forgot. ListJobs shows
# the application as a job of source yarn, running, then succeeded with
# every map and reduce done. It runs in the plain build's run only: its
# time is the cluster's JVM (about 100 s here either way), and the
# controller's YARN driver runs under the sanitizers in yarn-answers.sh,
# on answers recorded from this cluster, good and bad.
# flexslot-test: yarn
# flexslot-test: plain
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/agent.sh"
. "$src/tests/yarn/lib.sh"
test_started=$(date +%s)

yarn_start
start_bus
start_agent

# The URL with a slash at its end, which the controller takes off.
yarn_controller_config "$rm_url/" agents
cat >>"$tmp/controller.ini" <<CONF
[yarn]
min-containers = 1
[agents]
call-timeout = 1s
max-sample-age = 2s
CONF

# ---- a bad [yarn] is refused at its line ----
sed "s|^resourcemanager = .*|resourcemanager = ftp://rm.example|" "$tmp/controller.ini" >"$tmp/bad.ini"
refused_at "$tmp/bad.ini" resourcemanager \
	"[yarn] resourcemanager: 'ftp://rm.example' is not an http://"

start_controller

# ---- the NodeManagers are the controller's nodes, on their VMs ----
nodes_listed() {
	out=$(ctl_call ListNodes)
	for n in "$nm0" "$nm1" "$nm2"; do
		echo "$out" | grep -qF "\"$n\"" || return 1
	done
}
poll nodes_listed || fail "ListNodes lacks a NodeManager: $(ctl_call ListNodes)"
ctl_call ListNodes | grep -qF "\"$nm0\" \"worker1\" \"alive\" 4 0" ||
	fail "NodeManager 0 is not worker1's with 4 containers: $(ctl_call ListNodes)"
vm_known() {
	ctl_call ListVms | grep -q "[0-9] \"11111111-1111-1111-1111-111111111111\" \"worker1\""
}
poll vm_known || fail "ListVms does not give worker1 its node: $(ctl_call ListVms)"
# Submitting goes to YARN, not here.
expect_error NotSupported SubmitJob ssssasutsss "wordcount" "" "" "" 1 in/a 1 0 "" "" "x"

# ---- SetSlots: NodeManager 0 down to one container, through the RM ----
node0=$(ctl_call ListNodes | tr ' ' '\n' | grep -B1 -F "\"$nm0\"" | head -n 1)
ctl_call SetSlots tuut "$node0" 1 0 0
poll yarn_capacity_is "$nm0" 256 || fail "the RM shows $nm0 at $(yarn_node_field "$nm0" memory) MB"
grep -q "YARN node $nm0: the ResourceManager took the new capacity" "$tmp/controller.log" ||
	fail "the controller did not log the RM's answer"

# ---- a wordcount whose map is slow on NodeManager 0, first attempt ----
job_started=$(date +%s)
yarn_wordcount_start flexslot-wordcount 300
job_pid=$yarn_job_pid

# While it runs NodeManager 0 holds one container at most, and gets one.
max0=0
job_running() {
	kill -0 "$job_pid" 2>/dev/null
}
sample_node0() {
	n=$(yarn_node_field "$nm0" numContainers || echo 0)
	[ "${n:-0}" -le "$max0" ] || max0=$n
}
http0=$(yarn_node_field "$nm0" nodeHTTPAddress)
killed() {
	grep -q "Kill: attempt attempt_[0-9_]*_m_[0-9]*_0 of job 1 on YARN node $http0 (retry), through its application master" \
		"$tmp/controller.log"
}
i=0
while job_running && ! killed && [ $i -lt 900 ]; do
	sample_node0
	i=$((i + 1))
	sleep 0.2
done
killed || fail "the straggler on NodeManager 0 was not killed: $(grep -e Kill -e Straggler "$tmp/controller.log"; tail -n 5 "$tmp/job.out")"
grep -q "Killed attempt attempt_.*: its application master says KILLED" "$tmp/controller.log" ||
	poll grep -q "Killed attempt attempt_.*: its application master says KILLED" \
		"$tmp/controller.log" || fail "the AM did not answer the kill"
echo "straggler killed $(($(date +%s) - job_started)) s into the job"
# wordcount_job STATE COUNTS FINISHED: ListJobs has the wordcount so (its
# maps, reduces and those done; when it finished), an application of YARN's.
wordcount_job() {
	ctl_call ListJobs | grep -q "\"$1\" \"flexslot-wordcount\" \"[^\"]*\" \"[^\"]*\" \"application_[0-9_]*\" $2 [0-9]* $3 0 \"yarn\""
}
wordcount_job running "8 2 [0-9]* [0-9]*" 0 ||
	fail "ListJobs does not show the running wordcount: $(ctl_call ListJobs)"

# ---- the ResourceManager stopped and started mid-job ----
if job_running; then
	yarn_rm stop
	poll grep -q "The ResourceManager at .* does not answer" "$tmp/controller.log" ||
		fail "the controller did not say the ResourceManager is gone"
	sample_node0
	yarn_rm start
	poll grep -q "The ResourceManager at .* answers again" "$tmp/controller.log" ||
		fail "the controller did not see the ResourceManager again"
	# It forgot NodeManager 0's capacity; the controller sets it again.
	poll yarn_capacity_is "$nm0" 256 ||
		fail "NodeManager 0 is at $(yarn_node_field "$nm0" memory) MB after the restart"
else
	fail "the job ended before the ResourceManager could be restarted"
fi
while job_running; do
	sample_node0
	sleep 0.2
done
wait "$job_pid" || fail "the job failed: $(tail -n 30 "$tmp/job.out")"
echo "wordcount on YARN took $(($(date +%s) - job_started)) s"
[ "$max0" -le 1 ] || fail "NodeManager 0 ran $max0 containers at once after its capacity was 1"
# Ended, as the ResourceManager says once the master is gone.
i=0
until wordcount_job succeeded "8 2 8 2" "[1-9][0-9]*"; do
	i=$((i + 1))
	[ $i -lt 150 ] || fail "ListJobs does not show the wordcount succeeded: $(ctl_call ListJobs)"
	sleep 0.2
done

yarn_wordcount_got "$tmp/out" >"$tmp/got"
cmp -s "$tmp/got" "$tmp/expected" ||
	fail "the wordcount differs from coreutils': $(diff "$tmp/got" "$tmp/expected" | head)"
# Through the restart the controller kept its job: one for the application.
[ "$(grep -c "YARN application .*'flexslot-wordcount' of .*: job" "$tmp/controller.log")" = 1 ] ||
	fail "the controller lost the job over the restart: $(grep "YARN application" "$tmp/controller.log")"
kill -0 "$controller_pid" || fail "the controller stopped: $(tail -n 20 "$tmp/controller.log")"

# ---- VM targets went to the agent for the NodeManagers' VMs ----
grep -q "SetTarget('11111111-1111-1111-1111-111111111111'" "$tmp/agent.log" ||
	fail "the agent got no target for worker1: $(grep SetTarget "$tmp/agent.log")"
echo "test took $(($(date +%s) - test_started)) s"

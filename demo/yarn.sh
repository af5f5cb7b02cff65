#!/bin/sh
# `make demo-yarn`: flexslot as the VM-aware agent of a real YARN cluster,
# on this machine. Hadoop 3.4.2's mini cluster (a ResourceManager and three
# NodeManagers in one JVM, tests/yarn/lib.sh; the jars are fetched once
# with Maven), each NodeManager mapped to a VM of libvirt's test driver
# behind flexslot-agentd, and flexslot-controllerd with [cluster] driver =
# yarn. An operator shrinks one node to one container with flexslotctl; a
# wordcount runs on YARN with one map made slow on that node, which the
# controller kills through the job's application master (SEPB); the output
# is checked against tr | sort | uniq -c; flexslotctl list shows the job as
# the controller followed it; then what the controller did and said it
# could not do. Every process started here is stopped by PID on
# exit, Ctrl-C included. KEEP_TMP=1 keeps the logs.
set -eu
build=${FLEXSLOT_BUILD:?set by make demo-yarn}
src=${FLEXSLOT_SRCDIR:?set by make demo-yarn}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flexslot-demo-yarn.XXXXXX")
# shellcheck source=tests/lib/daemon.sh
. "$src/tests/lib/daemon.sh"
# shellcheck source=tests/yarn/lib.sh
. "$src/tests/yarn/lib.sh"
export LC_ALL=C

ctl() {
	"$build/bin/flexslotctl" --address "$address" "$@"
}

echo "== a real YARN: Hadoop 3.4.2's mini cluster (its jars are fetched once, then cached)"
yarn_start

echo "== flexslot-agentd on libvirt's test driver (worker1..3), flexslot-controllerd driving YARN"
# shellcheck disable=SC2119 # a bus that allows everything
start_private_bus
# shellcheck source=tests/fixtures/controller/agent.sh
. "$src/tests/fixtures/controller/agent.sh"
start_agent
yarn_controller_config "$rm_url" agents
"$build/bin/flexslot-controllerd" --config "$tmp/controller.ini" --address "$address" \
	--log-level=debug >"$tmp/controller.log" 2>&1 &
pids="$pids $!"
poll bus status org.flexslot.Controller1 ||
	fail "the controller did not start: $(cat "$tmp/controller.log")"
three_nodes() {
	[ "$(ctl nodes --no-legend | wc -l)" -eq 3 ]
}
poll three_nodes || fail "the controller does not see the NodeManagers: $(ctl nodes)"
echo "\$ flexslotctl nodes    (a NodeManager each, on its VM; its slots are 256 MB containers)"
ctl nodes
node0=$(ctl nodes --no-legend | awk -v n="$nm0" '$2 == n { print $1 }')

echo "== an operator takes NodeManager 0 down to one container"
echo "\$ flexslotctl set-slots $node0 1 0"
ctl set-slots "$node0" 1 0
capacity_256() {
	grep -q "YARN node $nm0: the ResourceManager took the new capacity" "$tmp/controller.log"
}
poll capacity_256 || fail "the ResourceManager did not take the capacity"
curl -sf "$rm_url/ws/v1/cluster/nodes" | python3 -c '
import json, sys
for n in json.load(sys.stdin)["nodes"]["node"]:
    print("  ResourceManager: %s  %5d MB  %d vcores" % (n["id"], n["totalResource"]["memory"],
                                                        n["totalResource"]["vCores"]))'

echo "== wordcount on YARN (Hadoop streaming), one map slow on NodeManager 0"
started=$(date +%s)
yarn_wordcount_start demo-wordcount 400
wait "$yarn_job_pid" || fail "the job failed: $(tail -n 20 "$tmp/job.out")"
elapsed=$(($(date +%s) - started))
yarn_wordcount_got "$tmp/out" >"$tmp/got"
cmp -s "$tmp/got" "$tmp/expected" ||
	fail "the output differs from tr | sort | uniq -c: $(diff "$tmp/got" "$tmp/expected" | head -5)"
echo "  completion time     $elapsed s (the slow map alone would have taken 150 s)"
echo "  output              verified against tr | sort | uniq -c"
job_ended() {
	ctl list --no-legend | grep -q "^[0-9]*	succeeded	demo-wordcount	"
}
i=0
until job_ended || [ $i -ge 100 ]; do
	i=$((i + 1))
	sleep 0.2
done
echo "\$ flexslotctl list    (the application as the controller follows it: source yarn)"
ctl list | cut -f 1-10,14

echo "== what the controller did"
log=$tmp/controller.log
count() {
	grep -c "$1" "$log" || true
}
printf '  kills through the application masters   %s\n' "$(count 'Kill: attempt')"
printf '  capacities set through the RM           %s\n' "$(count 'the ResourceManager took the new capacity')"
printf '  VM targets applied by the agent          %s\n' "$(count 'VM .* on agent .*: .*applied')"
[ "$(count 'Not done')" -eq 0 ] ||
	printf '  asked of YARN and not done (said why)    %s\n' "$(count 'Not done')"
grep -h 'Kill: attempt\|Killed attempt\|asking the ResourceManager\|Not done\|Advice' "$log" |
	sed 's/^.*: [a-z]*: [a-z_]*: /    /' | sort -u | head -12
if [ -n "${KEEP_TMP:-}" ]; then
	echo "logs: $tmp (controller.log, agent.log, yarn/yarn.log)"
else
	echo "logs are removed now; KEEP_TMP=1 keeps them"
fi

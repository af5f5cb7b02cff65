# shellcheck shell=sh
# A real YARN for the YARN tests and `make demo-yarn` (sourced, after
# tests/lib/daemon.sh, which gives $tmp, $pids, skip, fail and the trap;
# it brings tests/lib/dataset.sh for the wordcounts):
# Hadoop's MiniMRYarnCluster (tests/yarn/MiniYarn.java) in one JVM, its
# jars fetched once by Maven (tests/yarn/pom.xml, pinned versions) and kept
# with the compiled launcher in $FLEXSLOT_YARN_CACHE (default
# ~/.cache/flexslot/yarn), one directory per version of the pom and the
# launcher. Without Java, Maven or a way to the jars the test skips, with the
# reason; FLEXSLOT_REQUIRE_YARN=1 makes such a skip a failure (.ci/run).

yarn_src=${src:?}/tests/yarn
# shellcheck source=tests/lib/dataset.sh
. "$src/tests/lib/dataset.sh"
# Hadoop 3.4 on Java 17 reflects into these (HADOOP-18590 adds the same
# flags to the containers it launches: mapreduce.jvm.add-opens-as-default).
yarn_java_opts="-XX:+UseSerialGC -XX:TieredStopAtLevel=1"
for p in java.lang java.lang.reflect java.io java.net java.nio java.util \
	java.util.concurrent java.util.concurrent.atomic java.util.regex java.util.zip \
	sun.security.util sun.security.x509 sun.nio.ch; do
	yarn_java_opts="$yarn_java_opts --add-opens=java.base/$p=ALL-UNNAMED"
done
# How long the cluster may take to come up on a loaded machine.
: "${YARN_START_TIMEOUT:=300}"

# yarn_prepare: the jars and the launcher in $yarn_cache, fetched and built
# when that version of them is not there yet.
yarn_prepare() {
	command -v python3 >/dev/null || skip "no python3 to read YARN's JSON"
	command -v javac >/dev/null ||
		skip "no Java compiler: packaging/deps.sh --yarn installs openjdk-17-jdk-headless"
	command -v mvn >/dev/null || skip "no Maven: packaging/deps.sh --yarn installs maven"
	# Hadoop's daemons and job client look the machine's name up.
	getent hosts "$(uname -n)" >/dev/null ||
		skip "this machine's name, $(uname -n), does not resolve: Hadoop needs it (add it to /etc/hosts)"
	# Containers run $JAVA_HOME/bin/java.
	JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
	export JAVA_HOME
	yarn_key=$(cat "$yarn_src/pom.xml" "$yarn_src/MiniYarn.java" | sha256sum | cut -c1-16)
	yarn_root=${FLEXSLOT_YARN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/flexslot/yarn}
	yarn_cache=$yarn_root/$yarn_key
	[ -f "$yarn_cache/ok" ] && return 0
	mkdir -p "$yarn_root" || skip "cannot create the cache $yarn_root"
	fetch=$(mktemp -d "$yarn_root/.fetch.XXXXXX")
	echo "fetching the Hadoop jars into $yarn_cache (once)"
	if ! mvn -B -q -f "$yarn_src/pom.xml" dependency:copy-dependencies -DincludeScope=runtime \
		-DoutputDirectory="$fetch/jars" >"$fetch/mvn.log" 2>&1; then
		tail -n 20 "$fetch/mvn.log"
		rm -rf "$fetch"
		skip "Maven could not fetch the Hadoop jars (tests/yarn/pom.xml)"
	fi
	javac -d "$fetch/classes" -cp "$fetch/jars/*" "$yarn_src/MiniYarn.java" ||
		fail "tests/yarn/MiniYarn.java does not compile against the jars"
	touch "$fetch/ok"
	# Another test may have fetched the same meanwhile: the first one stays.
	mv -T "$fetch" "$yarn_cache" 2>/dev/null || rm -rf "$fetch"
	[ -f "$yarn_cache/ok" ] || fail "the cache $yarn_cache is incomplete"
}

# yarn_start [NODES MB VCORES]: the cluster, once its jars are there
# (yarn_prepare): NODES NodeManagers (3) of MB memory (1024) and VCORES
# vcores (4): with the defaults, 4 containers of 256 MB each. Its PID in
# yarn_pid, the ResourceManager's web address in rm_url, the NodeManagers'
# ids in nm0, nm1, ..., its files in $yarn_dir.
yarn_start() {
	yarn_prepare
	yarn_dir=${tmp:?}/yarn
	mkdir -p "$yarn_dir"
	yarn_started=$(date +%s)
	# shellcheck disable=SC2086 # options, one word each
	(cd "$yarn_dir" && exec java $yarn_java_opts -Xmx768m \
		-Dlog4j.configuration="file:$yarn_src/log4j.properties" \
		-Dyarn.log.file="$yarn_dir/yarn.log" -Dtest.build.data="$yarn_dir/work" \
		-cp "$yarn_cache/classes:$yarn_cache/jars/*" MiniYarn "$yarn_dir" "${1:-3}" "${2:-1024}" "${3:-4}" \
		>"$yarn_dir/out.log" 2>"$yarn_dir/err.log") &
	yarn_pid=$!
	pids="$pids $yarn_pid"
	i=0
	until [ -s "$yarn_dir/rm-url" ]; do
		kill -0 "$yarn_pid" 2>/dev/null ||
			fail "the mini YARN cluster stopped: $(tail -n 20 "$yarn_dir/err.log" "$yarn_dir/yarn.log")"
		i=$((i + 1))
		[ $i -lt $((YARN_START_TIMEOUT * 5)) ] ||
			fail "the mini YARN cluster did not start in ${YARN_START_TIMEOUT}s"
		sleep 0.2
	done
	rm_url=$(cat "$yarn_dir/rm-url")
	i=0
	while [ $i -lt "${1:-3}" ]; do
		id=$(yarn_node_id $i)
		[ -n "$id" ] || fail "the mini YARN cluster named no NodeManager $i: $(cat "$yarn_dir/nodes")"
		eval "nm$i=\$id"
		i=$((i + 1))
	done
	echo "mini YARN cluster up in $(($(date +%s) - yarn_started)) s at $rm_url"
}

# yarn_controller_config URL [agents]: $tmp/controller.ini, a controller
# that drives the YARN whose ResourceManager is at URL ([cluster] driver =
# yarn) as user flexslot, polled every second with 2 s for an answer, its
# containers 256 MB, its store in $tmp. With "agents" NodeManagers 0-2
# ($nm0-$nm2, yarn_start) are the VMs worker1-3 of the agent on $address
# (tests/fixtures/controller/agent.sh), which FlexSlot's VM allocator
# sizes, and SEPB kills stragglers. A test appends what it sets besides,
# under section headers of its own ([yarn] again for more of its keys).
yarn_controller_config() {
	{
		cat <<CONF
[controller]
store = $tmp/store.db
[cluster]
driver = yarn
[yarn]
resourcemanager = $1
user = flexslot
poll-interval = 1s
timeout = 2s
container-memory = 256M
CONF
		if [ "${2:-}" = agents ]; then
			# shellcheck disable=SC2154 # the bus's, from start_private_bus
			cat <<CONF
nodes = $nm0=worker1 $nm1=worker2 $nm2=worker3
[policy]
speculation = sepb
vm-allocator = flexslot
min_vm_memory = 512M
[agents]
hosts = $address
CONF
		fi
	} >"$tmp/controller.ini"
}

# yarn_rm stop|start: the ResourceManager stopped or started again (it
# recovers its applications from its state store); returns once done.
yarn_rm() {
	touch "$yarn_dir/control/$1-rm"
	i=0
	until [ "$(cat "$yarn_dir/rm-state-now" 2>/dev/null)" = "${1}ped" ] ||
		[ "$(cat "$yarn_dir/rm-state-now" 2>/dev/null)" = "${1}ed" ]; do
		i=$((i + 1))
		[ $i -lt 600 ] || fail "the ResourceManager did not $1"
		sleep 0.2
	done
}

# yarn_streaming_start LOG OUT ARGS...: a Hadoop streaming job on the
# cluster, in the background: its client's PID in yarn_job_pid (and $pids),
# its output in OUT, its Hadoop log in $yarn_dir/LOG.
yarn_streaming_start() {
	# Names of this file's own: a caller's $log or $out stays as it was.
	yarn_job_log=$1
	yarn_job_out=$2
	shift 2
	# shellcheck disable=SC2086 # options, one word each
	(exec java $yarn_java_opts -Xmx256m -Dlog4j.configuration="file:$yarn_src/log4j.properties" \
		-Dyarn.log.file="$yarn_dir/$yarn_job_log" -cp "$yarn_dir/conf:$yarn_cache/jars/*" \
		org.apache.hadoop.streaming.HadoopStreaming \
		-D mapreduce.task.io.sort.mb=16 "$@" >"$yarn_job_out" 2>&1) &
	yarn_job_pid=$!
	pids="$pids $yarn_job_pid"
}

# yarn_node_id INDEX: NodeManager INDEX's node id (host:port).
yarn_node_id() {
	awk -v i="$1" '$1 == i { print $2 }' "$yarn_dir/nodes"
}

# yarn_node_field NODE FIELD: FIELD of NodeManager NODE in the
# ResourceManager's /ws/v1/cluster/nodes (memory: its total); needs python3.
yarn_node_field() {
	_nodes=$(curl -sf --max-time 10 "$rm_url/ws/v1/cluster/nodes") || return 1
	echo "$_nodes" | python3 -c '
import json, sys
for n in (json.load(sys.stdin)["nodes"] or {}).get("node", []):
    if n["id"] == sys.argv[1]:
        print(n["totalResource"]["memory"] if sys.argv[2] == "memory" else n[sys.argv[2]])' "$1" "$2"
}

# yarn_capacity_is NODE MB: the ResourceManager gives NodeManager NODE a
# total of MB.
yarn_capacity_is() {
	[ "$(yarn_node_field "$1" memory)" = "$2" ]
}

# yarn_job_wait TRIES COMMAND...: COMMAND every 0.2 s, TRIES times at most,
# while the job yarn_streaming_start started last runs: 0 once COMMAND
# succeeds, 1 when the job ended first, 2 when COMMAND never did.
yarn_job_wait() {
	_tries=$1
	shift
	_n=0
	until "$@"; do
		kill -0 "$yarn_job_pid" 2>/dev/null || return 1
		_n=$((_n + 1))
		[ "$_n" -lt "$_tries" ] || return 2
		sleep 0.2
	done
}

# yarn_slow_mapper FILE SECONDS: a streaming mapper of words, one a line,
# that first sleeps SECONDS when it is the first attempt of a map on
# NodeManager 0 (a container's directory is under its NodeManager's
# ...-localDir-nm-INDEX_N): a straggler there that runs fast again.
yarn_slow_mapper() {
	cat >"$1" <<EOF
#!/bin/sh
case "\$PWD:\${mapreduce_task_attempt_id:-}" in
*-localDir-nm-0_*:*_m_??????_0) sleep $2 ;;
esac
exec tr ' ' '\n'
EOF
	chmod +x "$1"
}

# yarn_wordcount_start NAME LINES: a wordcount NAME on the cluster, started
# as yarn_streaming_start does: 8 inputs of LINES lines in $tmp/in
# (gen_words, tests/lib/dataset.sh) whose answer is $tmp/expected, 2
# reduces, the map slow for 150 s on NodeManager 0 (yarn_slow_mapper); its
# output goes to $tmp/out, its client's to $tmp/job.out.
yarn_wordcount_start() {
	mkdir -p "$tmp/in"
	for i in 1 2 3 4 5 6 7 8; do
		gen_words "$i" "$2" >"$tmp/in/part$i"
	done
	wordcount_answer "$tmp/in"/part* >"$tmp/expected"
	yarn_slow_mapper "$tmp/mapper.sh" 150
	yarn_streaming_start job.log "$tmp/job.out" -D mapreduce.job.reduces=2 \
		-D mapreduce.job.name="$1" -input "file://$tmp/in" -output "file://$tmp/out" \
		-mapper "$tmp/mapper.sh" -reducer "uniq -c"
}

# yarn_wordcount_got OUT: what the "uniq -c" reducers of a streaming
# wordcount wrote into OUT, as word<TAB>count lines sorted as
# wordcount_answer's (tests/lib/dataset.sh).
yarn_wordcount_got() {
	cat "$1"/part-* | awk '{ print $2 "\t" $1 }' | LC_ALL=C sort
}

# yarn_stop: the cluster stopped by its PID; once it is gone, so that no
# NodeManager starts another, every process left of its containers: the
# NodeManagers start each in a session of its own, which the test's process
# group does not hold, and their command lines name their directories under
# $yarn_dir (a directory of this test's alone, from mktemp).
yarn_stop() {
	[ -n "${yarn_pid:-}" ] || return 0
	kill "$yarn_pid" 2>/dev/null || true
	i=0
	while kill -0 "$yarn_pid" 2>/dev/null && [ $i -lt 100 ]; do
		i=$((i + 1))
		sleep 0.2
	done
	kill -9 "$yarn_pid" 2>/dev/null || true
	wait "$yarn_pid" 2>/dev/null || true
	for cmdline in /proc/[0-9]*/cmdline; do
		p=${cmdline#/proc/}
		p=${p%/cmdline}
		[ "$p" != "$$" ] || continue
		{ tr '\0' ' ' <"$cmdline"; } 2>/dev/null | grep -qF "$yarn_dir/" || continue
		kill -9 "$p" 2>/dev/null || true
	done
	yarn_pid=""
}
trap 'yarn_stop; cleanup' EXIT

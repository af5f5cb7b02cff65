#!/bin/sh
# Records the REST answers of one moment of a real YARN into DIR, for the
# unit tests of the controller's YARN driver (tests/fixtures/yarn/round/):
# the ResourceManager's nodes and running applications, and the application
# master's job, tasks and the attempts of each running task, while a
# wordcount runs with some maps done, some running and one slow.
#
#   FLEXSLOT_SRCDIR=. tests/yarn/record.sh DIR
set -eu
out=$(realpath "${1:?usage: record.sh DIR}")
src=${FLEXSLOT_SRCDIR:-.}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flexslot-record.XXXXXX")
. "$src/tests/lib/daemon.sh"
. "$src/tests/yarn/lib.sh"

yarn_start
mkdir -p "$tmp/in" "$out"
for i in 1 2 3 4 5 6; do
	gen_words "$i" 200 >"$tmp/in/part$i"
done
# Map 0 is slow; the others end soon.
cat >"$tmp/mapper.sh" <<'EOF'
#!/bin/sh
case ${mapreduce_task_id:-} in *_m_000000) sleep 60 ;; esac
exec tr ' ' '\n'
EOF
chmod +x "$tmp/mapper.sh"
yarn_streaming_start job.log "$tmp/job.out" -D mapreduce.job.reduces=1 \
	-D mapreduce.job.tags=flexslot-deadline=600 -input "file://$tmp/in" -output "file://$tmp/out" \
	-mapper "$tmp/mapper.sh" -reducer "uniq -c"

get() {
	curl -sf --max-time 10 "$rm_url$1"
}
# Once every map but the slow one is done.
i=0
until [ "$(get "/ws/v1/cluster/apps?states=RUNNING" | python3 -c '
import json, sys
apps = (json.load(sys.stdin)["apps"] or {}).get("app", [])
print(apps[0]["id"] if apps else "")' 2>/dev/null)" != "" ]; do
	i=$((i + 1))
	[ $i -lt 300 ] || fail "no application started"
	sleep 0.5
done
app=$(get "/ws/v1/cluster/apps?states=RUNNING" | python3 -c '
import json, sys
print(json.load(sys.stdin)["apps"]["app"][0]["id"])')
job=job_${app#application_}
until get "/proxy/$app/ws/v1/mapreduce/jobs" 2>/dev/null | grep -q '"mapsCompleted":5'; do
	i=$((i + 1))
	[ $i -lt 600 ] || fail "the maps did not end"
	sleep 0.5
done
get /ws/v1/cluster/nodes >"$out/nodes.json"
get "/ws/v1/cluster/apps?states=RUNNING&applicationTypes=MAPREDUCE" >"$out/apps.json"
get "/proxy/$app/ws/v1/mapreduce/jobs" >"$out/jobs.json"
get "/proxy/$app/ws/v1/mapreduce/jobs/$job/tasks" >"$out/tasks.json"
for task in $(python3 -c '
import json, sys
for t in json.load(open(sys.argv[1]))["tasks"]["task"]:
    if t["state"] == "RUNNING":
        print(t["id"])' "$out/tasks.json"); do
	get "/proxy/$app/ws/v1/mapreduce/jobs/$job/tasks/$task/attempts" >"$out/attempts-$task.json"
done
cp "$yarn_dir/nodes" "$out/nodemanagers"
echo "recorded $app into $out"

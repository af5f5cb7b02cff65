#!/bin/sh
# flexslotctl against flexslot-controllerd on a private bus, with a test
# tracker running the jobs: every command's output (tab and JSON), the
# controller's refusals printed by name with exit status 1, and command
# lines refused with exit status 2 before anything is called.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/ctl.sh"

start_bus
write_config
start_controller

# ---- command lines refused before any call ----
expect_ctl 2 "no command given"
expect_ctl 2 "unknown command 'frobnicate'" frobnicate
expect_ctl 2 "list does not take --reduces" list --reduces 1
expect_ctl 2 "invalid job id 'abc'" show abc
expect_ctl 2 "show takes the arguments JOB" show
expect_ctl 2 "give one of --app and --mapper" submit --reduces 1 in/a
expect_ctl 2 "give one of --app and --mapper" submit --app grep --mapper cat --reduces 1 in/a
expect_ctl 2 "--reduces is needed" submit --app wordcount in/a
expect_ctl 2 "invalid --deadline 'soon'" submit --app wordcount --reduces 1 --deadline soon in/a
expect_ctl 2 "invalid --slot-memory" set-slots 1 1 1 --slot-memory lots
"$ctl" submit --help | grep -q -- "--mapper=CMD" || fail "submit --help"
"$ctl" --help | grep -q "set-slots" || fail "--help does not list set-slots"
[ "$(ctl_call ListJobs)" = "a(tsssssuuuuttts) 0" ] || fail "a refused command line submitted a job"

# ---- the controller's refusals, by name ----
expect_ctl 1 "^flexslotctl: org\.flexslot\.Controller1\.Error\.NoSuchJob: job 99: no such job\.$" show 99
expect_ctl 1 "^flexslotctl: org\.flexslot\.Controller1\.Error\.InvalidArgument: .*inputs\[0\]" \
	submit --app wordcount --reduces 1 ../etc/passwd
expect_ctl 1 "^flexslotctl: cannot connect to unix:path=$tmp/nobus" \
	--address "unix:path=$tmp/nobus" list
[ "$(ctl_call ListJobs)" = "a(tsssssuuuuttts) 0" ] || fail "a refused submission was stored"

# ---- submit, list, show, cancel ----
expect_ctl 0 "" submit --app wordcount --reduces 1 --user alice --name wc in/a in/b
[ "$(cat "$tmp/out")" = 1 ] || fail "submit printed $(cat "$tmp/out")"
expect_ctl 0 "" submit --mapper "tr a b" --reducer "uniq -c" --reduces 2 --user bob \
	--deadline 1h --json in/c
[ "$(cat "$tmp/out")" = '{"job": 2}' ] || fail "submit --json printed $(cat "$tmp/out")"
expect_ctl 0 "" list
head -n 1 "$tmp/out" | grep -q "^ID	STATE	NAME	USER	POOL	APPLICATION	MAPS	REDUCES	" ||
	fail "list's header: $(cat "$tmp/out")"
grep -q "^1	running	wc	alice	default	wordcount	2	1	0	0	20[0-9-]*T[0-9:]*Z	-	-	flexslot$" "$tmp/out" ||
	fail "list's job 1: $(cat "$tmp/out")"
grep -q "^2	running	streaming	bob	default		1	2	0	0	[^	]*	-	20[0-9-]*T[0-9:]*Z	flexslot$" \
	"$tmp/out" || fail "list's job 2: $(cat "$tmp/out")"
expect_ctl 0 "" list --no-legend --json
grep -q '"id": 2, "state": "running", "name": "streaming", "user": "bob"' "$tmp/out" ||
	fail "list --json: $(cat "$tmp/out")"
command -v python3 >/dev/null || fail "python3 is missing (packaging/deps.sh installs python3)"
python3 -m json.tool "$tmp/out" >/dev/null || fail "list --json is not JSON: $(cat "$tmp/out")"
expect_ctl 0 "" show 2
grep -q "^state	running$" "$tmp/out" || fail "show 2: $(cat "$tmp/out")"
expect_ctl 0 "" cancel 2
expect_ctl 0 "" show 2 --json
grep -q '"state": "cancelled"' "$tmp/out" || fail "show 2 after cancel: $(cat "$tmp/out")"
grep -q '"message": "cancelled"' "$tmp/out" || fail "show 2's message: $(cat "$tmp/out")"
expect_ctl 1 "Error\.NoSuchJob: No running or queued job 2\.$" cancel 2

# ---- nodes, set-slots, profiles ----
"$tracker" --address "unix:path=$tmp/trackers" --token-file "$tmp/token" --hostname t1 \
	--beats 100000 >"$tmp/t1.log" 2>&1 &
t1_pid=$!
pids="$pids $t1_pid"
poll sh -c "'$ctl' --address '$address' show 1 | grep -q '^state	succeeded$'" ||
	fail "job 1 did not succeed: $("$ctl" --address "$address" show 1)"
expect_ctl 0 "" nodes --no-legend
grep -q "^1	t1	00000000-0000-0000-0000-000000000001	alive	1	1	0	0	0	0$" "$tmp/out" ||
	fail "nodes: $(cat "$tmp/out")"
expect_ctl 1 "Error\.NoSuchNode: No registered tracker 9\.$" set-slots 9 1 1
expect_ctl 1 "Error\.InvalidArgument: Slots 2000 map" set-slots 1 2000 1
expect_ctl 0 "" set-slots 1 3 0 --slot-memory 512M
poll grep -q "^slots 3 0 536870912$" "$tmp/t1.log" || fail "the tracker's slots: $(cat "$tmp/t1.log")"
expect_ctl 0 "" profiles --no-legend
grep -q "^alice	wc	1	20[0-9-]*T[0-9:]*Z	" "$tmp/out" || fail "profiles: $(cat "$tmp/out")"
expect_ctl 0 "" profiles --json
grep -q '"user": "alice", "name": "wc", "job": 1, "updated": [0-9]*, "map_min": ' "$tmp/out" ||
	fail "profiles --json: $(cat "$tmp/out")"
echo "PASS"

#!/bin/sh
# The decision journal, over a private bus on libvirt's test driver
# (tests/fixtures/agent/host-limits.xml): every change request, whether
# applied, refused by a VM's metadata limit, refused for a caller without
# the right, or decided in a dry run, is kept with its caller, arguments,
# the limits applied, the verdict, its error name and the dry-run flag;
# ListDecisions returns them oldest first, from a given number on, and the
# ring ([agent] decisions) keeps only the newest; the log line of each
# carries the same fields as key=value.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/agent/lib.sh"

GIB=1073741824
command -v python3 >/dev/null || skip "no python3 to read busctl's JSON"

# decisions SINCE: one line per decision, its fields but the time joined by
# '|'; the times, which must be recent and in order, are checked here.
decisions() {
	bus --json=short call org.flexslot.Agent1 /org/flexslot/Agent1 org.flexslot.Agent1 \
		ListDecisions t "$1" | python3 -c '
import json, sys, time
reply = json.load(sys.stdin)
assert reply["type"] == "a(ttssusssssbs)", reply["type"]
last = 0
for d in reply["data"][0]:
    t = d[1] / 1e6
    assert last <= t <= time.time() + 1 and t > time.time() - 600, d
    last = t
    print("|".join(str(f) for i, f in enumerate(d) if i != 1))
'
}

start_bus
start_monitor
cat >"$tmp/agent.ini" <<CONF
[agent]
uri = test://$src/tests/fixtures/agent/host-limits.xml
interval = 200ms
decisions = 4
[host]
cpus = 16
memory = 16G
[limits]
max-vcpu-step = 2
CONF
start_agent "$tmp/agent.ini"
poll has_sample || fail "no sample"

[ -z "$(decisions 0)" ] || fail "decisions before any request: $(decisions 0)"
expect_error OutOfRange SetVcpus su limited 4
[ "$(agent_call SetVcpus su limited 3)" = "uu 2 3" ] || fail "SetVcpus limited 3"
expect_error NotPermitted SetVcpus su misconfigured 3
decisions 0 >"$tmp/decisions"
cat "$tmp/decisions"
# The caller's unique name differs per busctl run: checked for its form.
sed 's/|:1\.[0-9]*|/|:1.X|/' "$tmp/decisions" >"$tmp/decisions.x"
cat >"$tmp/expected" <<EXPECTED
1|SetVcpus|:1.X|0|limited|4|vcpus [1, 3] step 2 min-change 1 max-vcpus from metadata; min-interval 30s|refused|org.flexslot.Agent1.Error.OutOfRange|False|refused, org.flexslot.Agent1.Error.OutOfRange: limited: vcpus 4 is outside the allowed range [1, 3], set by limited's metadata max-vcpus.
2|SetVcpus|:1.X|0|limited|3|vcpus [1, 3] step 2 min-change 1 max-vcpus from metadata; min-interval 30s|applied||False|applied, vcpus 2 -> 3
3|SetVcpus|:1.X|0|misconfigured|3||refused|org.flexslot.Agent1.Error.NotPermitted|False|refused, org.flexslot.Agent1.Error.NotPermitted: misconfigured's limits in its metadata (https://flexslot.org/xmlns/limits/1): max-vcpus: 'many' is not a valid count.
EXPECTED
diff -u "$tmp/expected" "$tmp/decisions.x" || fail "ListDecisions 0 differs"

# From a number on; a caller without the right is kept with its uid.
if as_nobody call org.flexslot.Agent1 /org/flexslot/Agent1 org.flexslot.Agent1 SetVcpus su \
	plain 2 2>/dev/null; then
	fail "an unprivileged caller changed a VM"
fi
decisions 2 | sed 's/|:1\.[0-9]*|/|:1.X|/' >"$tmp/since2"
cat >"$tmp/expected" <<EXPECTED
$(sed -n 3p "$tmp/decisions.x")
4|SetVcpus|:1.X|65534|plain|2||denied|org.freedesktop.DBus.Error.AccessDenied|False|denied, org.freedesktop.DBus.Error.AccessDenied: Changing VMs needs root or group 'flexslot'.
EXPECTED
diff -u "$tmp/expected" "$tmp/since2" || fail "ListDecisions 2 differs"
[ -z "$(decisions 4)" ] || fail "decisions after the newest: $(decisions 4)"
[ -z "$(decisions 18446744073709551615)" ] || fail "decisions after 2^64-1"

# The ring keeps the newest 4: a fifth request drops the first.
[ "$(agent_call SetMemory st plain $((2 * GIB)))" = "tt $GIB $((2 * GIB))" ] ||
	fail "SetMemory plain 2G"
[ "$(decisions 0 | cut -d'|' -f1 | tr '\n' ' ')" = "2 3 4 5 " ] ||
	fail "the ring of 4 holds: $(decisions 0 | cut -d'|' -f1 | tr '\n' ' ')"
# The same decision in the log, as key=value after the verdict.
grep -qF "SetVcpus('limited', 4) by uid 0 (:1." "$tmp/agent.log" || fail "no log line for decision 1"
grep -qF ": refused, org.flexslot.Agent1.Error.OutOfRange: limited: vcpus 4 is outside the allowed range [1, 3], set by limited's metadata max-vcpus. [decision=1 verdict=\"refused\" error=\"org.flexslot.Agent1.Error.OutOfRange\" dry_run=no limits=\"vcpus [1, 3] step 2 min-change 1 max-vcpus from metadata; min-interval 30s\"]" "$tmp/agent.log" ||
	fail "decision 1's log line lacks its fields"
grep -qF "SetMemory('plain', 2G) by uid 0 (:1." "$tmp/agent.log" || fail "no log line for decision 5"
grep -qF "[decision=5 verdict=\"applied\" error=\"\" dry_run=no limits=\"memory [" "$tmp/agent.log" ||
	fail "decision 5's log line lacks its fields"
stop_agent

# A dry run: allowed, not applied, and flagged so.
start_agent "$tmp/agent.ini" --dry-run
poll has_sample || fail "no sample in the dry run"
[ "$(agent_call SetVcpus su plain 3)" = "uu 2 2" ] || fail "SetVcpus plain 3 in a dry run"
decisions 0 | sed 's/|:1\.[0-9]*|/|:1.X|/' >"$tmp/dry"
echo "1|SetVcpus|:1.X|0|plain|3|vcpus [1, 8] step 2 min-change 1; min-interval 30s|dry-run||True|allowed, not applied (dry run), vcpus stays 2" >"$tmp/expected"
diff -u "$tmp/expected" "$tmp/dry" || fail "the dry run's decision differs"
grep -qF "[decision=1 verdict=\"dry-run\" error=\"\" dry_run=yes limits=" "$tmp/agent.log" ||
	fail "the dry run's log line lacks its fields"
# A domain too long, cut short in the middle of a character, is kept as
# valid UTF-8 (which D-Bus strings must be), so ListDecisions still answers.
long_name=$(python3 -c 'print("\u00e9" * 200)')
expect_error org.freedesktop.DBus.Error.InvalidArgs SetVcpus su "$long_name" 2
decisions 1 | cut -d'|' -f1,8 >"$tmp/long"
[ "$(cat "$tmp/long")" = "2|refused" ] || fail "after a long name, ListDecisions 1: $(cat "$tmp/long")"
stop_agent
echo PASS

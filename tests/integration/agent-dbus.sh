#!/bin/sh
# flexslot-agentd end to end: a private dbus-daemon, the agent on libvirt's
# test driver with a fixture host of four domains, driven with systemd's
# busctl. Checks introspection, properties (Agent1's version among them),
# the domain list, a vCPU and a memory resize that the test driver then
# reports, every named error (and that a refused request changes nothing,
# and that a missing domain reads the same from every method), SetTarget
# (a verdict per resource, clamping, the rate limit per resource, bad keys
# and types refused with nothing changed), the metrics' validity field,
# the Sample signal, the access check, a clean exit on SIGTERM, and the
# audit trail: one line per change request with its caller and verdict, at
# notice or warning.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/agent/lib.sh"

GIB=1073741824

# ---- command line ----
"$agentd" --help >"$tmp/help" || fail "--help failed"
grep -q -- "--config=FILE" "$tmp/help" || fail "--help does not list --config"
bad=$src/tests/fixtures/agent/bad.ini
if "$agentd" --config "$bad" --address unix:path=/nonexistent 2>"$tmp/bad.err"; then
	fail "the agent started with $bad"
fi
grep -qF "$bad:3: [limts]: unknown section" "$tmp/bad.err" || {
	cat "$tmp/bad.err"
	fail "the error does not name $bad:3"
}
version=$(sed -n 's/^#define FLEXSLOT_VERSION "\(.*\)"$/\1/p' "$src/common/version.h")
[ "$("$agentd" --version)" = "flexslot-agentd $version" ] ||
	fail "--version printed '$("$agentd" --version)'"
# A bad command line exits 2 with a hint, a bad configuration 1.
for args in --bogus --config "--log-level=loud" extra; do
	status=0
	# shellcheck disable=SC2086
	"$agentd" $args 2>"$tmp/usage.err" || status=$?
	[ "$status" -eq 2 ] || fail "flexslot-agentd $args exited with $status, not 2"
	grep -qxF "Try 'flexslot-agentd --help'." "$tmp/usage.err" ||
		fail "flexslot-agentd $args gives no hint: $(cat "$tmp/usage.err")"
done
status=0
"$agentd" --config "$bad" --address unix:path=/nonexistent 2>/dev/null || status=$?
[ "$status" -eq 1 ] || fail "a bad configuration exited with $status, not 1"

# ---- the agent on the test driver ----
start_bus
start_monitor
cat >"$tmp/agent.ini" <<CONF
[agent]
uri = test://$src/tests/fixtures/agent/host.xml
interval = 200ms
hypervisor-timeout = 5s
[host]
cpus = 8
memory = 7G
reserve-memory = 2G
[limits]
max-vcpu-step = 1
min-memory-change = 64M
min-interval = 60s
CONF
# The agent's stderr counts as the journal, so its lines carry their
# priority ("<5>" notice, "<4>" warning) as journald would keep it.
: >"$tmp/agent.log"
JOURNAL_STREAM=$(stat -c %d:%i "$tmp/agent.log")
export JOURNAL_STREAM
start_agent "$tmp/agent.ini"
unset JOURNAL_STREAM

bus introspect org.flexslot.Agent1 /org/flexslot/Agent1 >"$tmp/introspect"
for member in ListDomains GetMetrics GetAllMetrics GetHistory SetTarget SetVcpus SetMemory \
	SetCpuWeight ListDecisions Sample Version HostName URI Interval CapacityCPUs CapacityMemory; do
	grep -q "^\.$member " "$tmp/introspect" || fail "introspection lacks $member"
done
[ "$(agent_property URI)" = "s \"test://$src/tests/fixtures/agent/host.xml\"" ] ||
	fail "URI is $(agent_property URI)"
[ "$(agent_property CapacityCPUs)" = "u 8" ] || fail "CapacityCPUs is $(agent_property CapacityCPUs)"
[ "$(agent_property CapacityMemory)" = "t $((7 * GIB))" ] || fail "CapacityMemory"
[ "$(agent_property Interval)" = "t 200000" ] || fail "Interval"
[ "$(agent_property Version)" = "u 5" ] || fail "Version is $(agent_property Version)"

poll has_sample || fail "no sample"
hypervisor_available true || fail "hypervisor not available"
poll grep -q "Member=PropertiesChanged" "$tmp/monitor.log" ||
	fail "no PropertiesChanged when the hypervisor became available"

domains=$(agent_call ListDomains)
echo "ListDomains: $domains"
case $domains in "a(sss) 4 "*) ;; *) fail "expected 4 domains: $domains" ;; esac
echo "$domains" | grep -q '"worker1" "11111111-1111-1111-1111-111111111111" "running"' ||
	fail "worker1 is not listed as running"
echo "$domains" | grep -q '"spare" "44444444-4444-4444-4444-444444444444" "shutoff"' ||
	fail "spare is not listed as shut off"

# metrics DOMAIN: "vcpus max memory max-memory" of its newest sample.
metrics() {
	agent_call GetMetrics s "$1" | awk '{ print $6, $7, $8, $9 }'
}
[ "$(metrics worker1)" = "2 4 $GIB $((4 * GIB))" ] || fail "worker1: $(metrics worker1)"
# Fields 10-14: what holds a value (vCPUs and memory: 3), CPU weight, cap
# and guest memory in use, which the test driver does not give (0, -1, 0),
# and the sample's age: every value is the newest sample's (0).
extra=$(agent_call GetMetrics s worker1 | awk '{ print $12, $13, $14, $15, $16 }')
[ "$extra" = "3 0 -1 0 0" ] || fail "worker1's validity, weight, cap, memory in use, age: $extra"

# ---- changes that the test driver then reports ----
# Lowering vCPUs (hot-unplug) is off by default; checked before worker2 is
# changed, which would make the next request rate limited.
expect_error NotPermitted SetVcpus su worker2 1
[ "$(agent_call SetVcpus su worker1 3)" = "uu 2 3" ] || fail "SetVcpus worker1 3"
metrics_are() {
	[ "$(metrics "$1")" = "$2" ]
}
poll metrics_are worker1 "3 4 $GIB $((4 * GIB))" || fail "worker1 after SetVcpus: $(metrics worker1)"
[ "$(agent_call SetMemory st worker2 $((3 * GIB)))" = "tt $((2 * GIB)) $((3 * GIB))" ] ||
	fail "SetMemory worker2 3G"
poll metrics_are worker2 "2 4 $((3 * GIB)) $((4 * GIB))" ||
	fail "worker2 after SetMemory: $(metrics worker2)"
# The same value again is a successful no-op.
[ "$(agent_call SetVcpus su worker1 3)" = "uu 3 3" ] || fail "no-op SetVcpus"

# ---- every refusal is named and changes nothing ----
# One wording for a missing domain, whichever method finds it missing.
expect_error NoSuchDomain SetVcpus su nosuch 2
said "No domain 'nosuch'."
set_out=$out
expect_error NoSuchDomain GetMetrics s nosuch
[ "$out" = "$set_out" ] || fail "GetMetrics says '$out', SetVcpus '$set_out'"
expect_error NoSuchDomain GetHistory su nosuch 0
[ "$out" = "$set_out" ] || fail "GetHistory says '$out', SetVcpus '$set_out'"
expect_error NotRunning SetVcpus su spare 2
expect_error OutOfRange SetVcpus su worker3 3          # above its maximum of 2
expect_error OutOfRange SetMemory st worker3 $((256 * 1048576)) # below min-memory
said "worker3: memory 256M is outside the allowed range [512M, 16G]."
expect_error OutOfRange SetMemory st worker3 1024
said "worker3: memory 1K is outside the allowed range [512M, 16G]."
expect_error StepTooLarge SetVcpus su worker2 4        # max-vcpu-step = 1
expect_error ChangeTooSmall SetMemory st worker3 $((GIB + 32 * 1048576))
said "memory change of 32M is smaller than the minimum change 64M."
# 7G, 2G reserved: worker1 1G + worker2 4G + worker3 1G would be 6G.
expect_error HostReserve SetMemory st worker2 $((4 * GIB))
said "memory 4G would leave the host's VMs holding 6G of 7G (2G reserved for the host)."
# Per resource: worker1's vCPUs changed above (min-interval 60s), its memory
# did not.
expect_error RateLimited SetVcpus su worker1 4
said "worker1: vcpus changed "
said "; changes of one resource are at least 60s apart."
expect_error NotSupported SetCpuWeight st worker3 512  # the test driver has no cpu_shares
expect_error org.freedesktop.DBus.Error.InvalidArgs SetVcpus su "" 2
expect_error org.freedesktop.DBus.Error.InvalidArgs SetMemory st worker3 1000
long_name=$(printf '%0300d' 0)
expect_error org.freedesktop.DBus.Error.InvalidArgs SetVcpus su "$long_name" 2
expect_error org.freedesktop.DBus.Error.InvalidArgs GetMetrics s "$long_name"
# Wrong argument types are refused by sd-bus before any handler runs.
expect_error org.freedesktop.DBus.Error.InvalidArgs SetVcpus ss worker3 two
expect_error org.freedesktop.DBus.Error.InvalidArgs SetMemory s worker3
expect_error org.freedesktop.DBus.Error.UnknownMethod Reboot s worker3
[ "$(metrics worker3)" = "1 2 $GIB $((2 * GIB))" ] || fail "a refusal changed worker3"
[ "$(metrics worker1)" = "3 4 $GIB $((4 * GIB))" ] || fail "a refusal changed worker1"

# Anyone may read; only root and the allowed group may change VMs.
as_nobody call org.flexslot.Agent1 /org/flexslot/Agent1 org.flexslot.Agent1 GetMetrics s worker3 \
	>/dev/null || fail "an unprivileged caller cannot read metrics"
before=$(count_in_monitor "ErrorName=org.freedesktop.DBus.Error.AccessDenied")
if as_nobody call org.flexslot.Agent1 /org/flexslot/Agent1 org.flexslot.Agent1 SetVcpus su \
	worker3 2 2>/dev/null; then
	fail "an unprivileged caller changed a VM"
fi
poll monitor_count_above "ErrorName=org.freedesktop.DBus.Error.AccessDenied" "$before" ||
	fail "no AccessDenied for an unprivileged caller"
[ "$(metrics worker3)" = "1 2 $GIB $((2 * GIB))" ] || fail "the unprivileged call changed worker3"

# ---- SetTarget ----
target() {
	agent_call SetTarget "sa{sv}" "$@"
}
expect_error org.freedesktop.DBus.Error.InvalidArgs SetTarget "sa{sv}" worker3 1 bogus u 2
said "Unknown target key 'bogus'; the keys are cpu-weight (u), vcpus (u), cpu-cap (d) and memory (t)."
expect_error org.freedesktop.DBus.Error.InvalidArgs SetTarget "sa{sv}" worker3 1 vcpus s two
said "Target key 'vcpus' must be of type u, not s."
# A good key before a bad one is not applied either.
expect_error org.freedesktop.DBus.Error.InvalidArgs SetTarget "sa{sv}" worker3 2 vcpus u 2 \
	memory u 5
said "Target key 'memory' must be of type t, not u."
expect_error org.freedesktop.DBus.Error.InvalidArgs SetTarget "sa{sv}" worker3 2 vcpus u 2 \
	vcpus u 2
said "Target key 'vcpus' is given twice."
expect_error org.freedesktop.DBus.Error.InvalidArgs SetTarget "sa{sv}" worker3 0
said "The target sets nothing"
expect_error org.freedesktop.DBus.Error.InvalidArgs SetTarget "sa{sv}" worker3 1 cpu-cap d inf
said "Target key 'cpu-cap' must be 0 (no cap) or a number of CPUs, not inf."
expect_error org.freedesktop.DBus.Error.InvalidArgs SetTarget "sa{sv}" worker3 1 memory t 1000
said "Memory 1000 is not a multiple of 1024 bytes."
expect_error org.freedesktop.DBus.Error.InvalidArgs SetTarget "sa{sv}" "" 1 vcpus u 2
expect_error NoSuchDomain SetTarget "sa{sv}" nosuch 1 vcpus u 2
expect_error org.freedesktop.DBus.Error.InvalidArgs SetTarget s worker3
[ "$(metrics worker3)" = "1 2 $GIB $((2 * GIB))" ] || fail "a refused target changed worker3"

# Each resource on its own: the test driver has no CPU weight or cap; 4
# vCPUs are clamped to worker3's maximum of 2; memory shrinks as asked.
out=$(target worker3 4 cpu-weight u 2048 vcpus u 4 cpu-cap d 1.5 memory t $((768 * 1048576)))
echo "SetTarget: $out"
expected='a{s(svvss)} 4 "cpu-weight" "refused" u 0 u 0 "org.flexslot.Agent1.Error.NotSupported" "the hypervisor reports no cpu-weight"'
# busctl writes an apostrophe as \'.
q="\\'"
expected="$expected"' "vcpus" "clamped" u 1 u 2 "org.flexslot.Agent1.Error.OutOfRange" "vcpus 4 is above the domain'"${q}"'s maximum 2"'
expected="$expected"' "cpu-cap" "refused" d -1 d -1 "org.flexslot.Agent1.Error.NotSupported" "the hypervisor reports no cpu-cap"'
expected="$expected"' "memory" "applied" t 1073741824 t 805306368 "" ""'
[ "$out" = "$expected" ] || fail "SetTarget answered: $out"
poll metrics_are worker3 "2 2 $((768 * 1048576)) $((2 * GIB))" ||
	fail "worker3 after SetTarget: $(metrics worker3)"
# Within min-interval: what changed is rate limited, resource by resource;
# what is already so is unchanged.
out=$(target worker3 2 vcpus u 2 memory t $GIB)
echo "SetTarget again: $out"
case $out in
'a{s(svvss)} 2 "vcpus" "unchanged" u 2 u 2 "" "" "memory" "refused" t 805306368 t 805306368 "org.flexslot.Agent1.Error.RateLimited" "memory changed '*'; changes of one resource are at least 60s apart"') ;;
*) fail "the second target: $out" ;;
esac
[ "$(metrics worker3)" = "2 2 $((768 * 1048576)) $((2 * GIB))" ] || fail "a refused resource changed"

# ---- the Sample signal and the history ----
samples_seen() {
	[ "$(count_in_monitor "Member=Sample")" -ge 3 ]
}
poll samples_seen || fail "no Sample signals"
history=$(agent_call GetHistory su worker1 2)
case $history in "a(t(sssuuttdduudtdsssus)) 2 "*) ;; *) fail "GetHistory: $history" ;; esac

stop_agent

# ---- the audit trail: each request in one line, with its caller and verdict ----
# audited PRIORITY TEXT: one line of that priority is TEXT with the
# caller's unique name, between its uid and its verdict, filled in.
audited() {
	prefix=${2%%"(:N)"*}
	suffix=${2#*"(:N)"}
	n=$(grep -cxF -- "<$1>$prefix(:1.X)$suffix" "$tmp/agent.log.audit" || true)
	[ "$n" -eq 1 ] || {
		grep "^<[0-9]>Set" "$tmp/agent.log"
		fail "$n lines, not 1, say: <$1>$2"
	}
}
# The decision's fields after the verdict are agent-decisions.sh's.
sed 's/(:1\.[0-9]*)/(:1.X)/; s/ \[decision=.*\]$//' "$tmp/agent.log" >"$tmp/agent.log.audit"
audited 5 "SetVcpus('worker1', 3) by uid 0 (:N): applied, vcpus 2 -> 3"
audited 5 "SetMemory('worker2', 3G) by uid 0 (:N): applied, memory 2G -> 3G"
audited 5 "SetVcpus('worker1', 3) by uid 0 (:N): unchanged, vcpus already 3"
audited 4 "SetVcpus('worker2', 4) by uid 0 (:N): refused, org.flexslot.Agent1.Error.StepTooLarge: worker2: vcpus change of 2 is larger than the maximum step 1."
audited 4 "SetMemory('worker3', 1K) by uid 0 (:N): refused, org.flexslot.Agent1.Error.OutOfRange: worker3: memory 1K is outside the allowed range [512M, 16G]."
audited 4 "SetVcpus('nosuch', 2) by uid 0 (:N): refused, org.flexslot.Agent1.Error.NoSuchDomain: No domain 'nosuch'."
audited 4 "SetVcpus('', 2) by uid 0 (:N): refused, org.freedesktop.DBus.Error.InvalidArgs: Invalid domain name ''."
audited 4 "SetVcpus('worker3', 2) by uid 65534 (:N): denied, org.freedesktop.DBus.Error.AccessDenied: Changing VMs needs root or group 'flexslot'."
audited 4 "SetVcpus('worker1', 4) by uid 0 (:N): refused, org.flexslot.Agent1.Error.RateLimited: worker1: vcpus changed $(sed -n "s/.*worker1: vcpus changed \([^;]*\);.*/\1/p" "$tmp/agent.log" | head -n 1); changes of one resource are at least 60s apart."
audited 4 "SetTarget('worker3', bogus=?) by uid 0 (:N): refused, org.freedesktop.DBus.Error.InvalidArgs: Unknown target key 'bogus'; the keys are cpu-weight (u), vcpus (u), cpu-cap (d) and memory (t)."
audited 4 "SetTarget('worker3', vcpus=2, memory=?) by uid 0 (:N): refused, org.freedesktop.DBus.Error.InvalidArgs: Target key 'memory' must be of type t, not u."
audited 4 "SetTarget('worker3', cpu-weight=2048, vcpus=4, cpu-cap=1.5, memory=768M) by uid 0 (:N): cpu-weight: refused, org.flexslot.Agent1.Error.NotSupported: worker3: the hypervisor reports no cpu-weight; vcpus: clamped, 1 -> 2, org.flexslot.Agent1.Error.OutOfRange: vcpus 4 is above the domain's maximum 2; cpu-cap: refused, org.flexslot.Agent1.Error.NotSupported: worker3: the hypervisor reports no cpu-cap; memory: applied, 1G -> 768M"
# Every Set* call the agent's handlers saw (all but the three that sd-bus
# refused for their argument types) has its line.
calls=$(($(count_in_monitor "Member=Set") - 3))
lines=$(grep -c "^<[45]>Set[A-Za-z]*(.*) by uid [0-9]* (:1\.[0-9]*): " "$tmp/agent.log" || true)
[ "$lines" -eq "$calls" ] || fail "$calls change requests, $lines audit lines"
echo "PASS"

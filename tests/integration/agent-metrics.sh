#!/bin/sh
# The agent's Prometheus endpoint ([metrics] listen) on libvirt's test
# driver: off unless configured; a bad address refused with file:line;
# GET /metrics answers in the exposition format with the domains' sizes,
# no steal (the test driver measures none, and a value not measured is
# left out, not 0), and the changes asked of the agent counted by verdict
# and error name; HEAD, another path, another method, a request that is not
# HTTP and one too large each get their status; a client that sends nothing
# is dropped and does not keep others out.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/agent/lib.sh"
# shellcheck source=tests/lib/http.sh
. "$src/tests/lib/http.sh"

start_bus
start_monitor
write_agent_config() {
	cat >"$tmp/agent.ini" <<CONF
[agent]
uri = test://$src/tests/fixtures/agent/host.xml
interval = 200ms
target-grace = 200ms
[host]
cpus = 16
memory = 64G
$1
CONF
}

# ---- a bad address stops the agent, by file and line ----
write_agent_config "[metrics]
listen = localhost:http"
status=0
"$agentd" --config "$tmp/agent.ini" --address "$address" >"$tmp/bad.log" 2>&1 || status=$?
[ "$status" -ne 0 ] || fail "a bad [metrics] listen was accepted"
grep -q "agent.ini:9: \[metrics\] listen: 'localhost:http' is not A.B.C.D:PORT or \[IPV6\]:PORT" \
	"$tmp/bad.log" || fail "the bad address was not named: $(cat "$tmp/bad.log")"

# ---- off by default ----
write_agent_config ""
start_agent "$tmp/agent.ini"
poll has_sample || fail "no sample"
grep -q "Metrics on" "$tmp/agent.log" && fail "metrics served without [metrics] listen"
stop_agent

# ---- on ----
write_agent_config "[metrics]
listen = 127.0.0.1:0"
start_agent "$tmp/agent.ini"
poll grep -q "Metrics on 127.0.0.1:0, port [0-9]*," "$tmp/agent.log" ||
	fail "no metrics port logged: $(cat "$tmp/agent.log")"
port=$(metrics_port "$tmp/agent.log")
poll has_sample || fail "no sample"
scrape "$port" >"$tmp/m1"
head -n 1 "$tmp/m1" | grep -q "^HTTP/1.1 200 OK" || fail "scrape: $(cat "$tmp/m1")"
grep -q "^Content-Type: text/plain; version=0.0.4; charset=utf-8" "$tmp/m1" ||
	fail "not the exposition format: $(cat "$tmp/m1")"
grep -q "^flexslot_agent_hypervisor_up 1$" "$tmp/m1" || fail "hypervisor_up: $(cat "$tmp/m1")"
grep -q "^flexslot_agent_domains 4$" "$tmp/m1" || fail "domains: $(cat "$tmp/m1")"
grep -q '^flexslot_domain_vcpus{domain="worker1",uuid="[0-9a-f-]*"} 2$' "$tmp/m1" ||
	fail "worker1's vCPUs: $(cat "$tmp/m1")"
grep -q '^flexslot_domain_memory_bytes{domain="worker1",uuid="[0-9a-f-]*"} 1073741824$' "$tmp/m1" ||
	fail "worker1's memory: $(cat "$tmp/m1")"
grep -q '^flexslot_domain_running{domain="spare",uuid="[0-9a-f-]*",state="shutoff"} 0$' "$tmp/m1" ||
	fail "spare's state: $(cat "$tmp/m1")"
grep -q "^# TYPE flexslot_domain_steal_ratio gauge$" "$tmp/m1" || fail "no steal metric type"
grep -q "^flexslot_domain_steal_ratio{" "$tmp/m1" &&
	fail "steal the test driver does not measure was written: $(cat "$tmp/m1")"
grep -q '^flexslot_domain_sample_age_seconds{domain="worker1",uuid="[0-9a-f-]*"} 0$' "$tmp/m1" ||
	fail "worker1's sample age: $(cat "$tmp/m1")"
grep -q '^flexslot_domain_samples_skipped_total{domain="worker1",uuid="[0-9a-f-]*"} 0$' "$tmp/m1" ||
	fail "worker1's skipped samples: $(cat "$tmp/m1")"
exposition_ok "$tmp/m1" || fail "lines not in the exposition format"

# ---- changes, counted by verdict and error name ----
agent_call SetVcpus su worker3 2 >/dev/null || fail "SetVcpus worker3 2"
agent_call SetVcpus su worker3 2 >/dev/null || fail "a no-op SetVcpus"
expect_error OutOfRange SetVcpus su worker3 9
scrape "$port" >"$tmp/m2"
grep -q '^flexslot_agent_changes_total{resource="vcpus",verdict="applied",error=""} 1$' "$tmp/m2" ||
	fail "the applied change: $(grep changes_total "$tmp/m2")"
grep -q '^flexslot_agent_changes_total{resource="vcpus",verdict="unchanged",error=""} 1$' "$tmp/m2" ||
	fail "the no-op: $(grep changes_total "$tmp/m2")"
grep -q '^flexslot_agent_changes_total{resource="vcpus",verdict="refused",error="org.flexslot.Agent1.Error.OutOfRange"} 1$' \
	"$tmp/m2" || fail "the refusal: $(grep changes_total "$tmp/m2")"
# The vCPUs applied are judged by the first sample after target-grace: the
# test driver shows them at once (it cannot leave a target unreached; the
# unit tests judge that).
target_reached() {
	scrape "$port" | grep -q '^flexslot_domain_target_reached{domain="worker3",uuid="[0-9a-f-]*",resource="vcpus"} 1'
}
poll target_reached || fail "worker3's vCPU target: $(scrape "$port" | grep target_reached)"
grep -q "Domain worker3 shows its vcpus 2 \[decision=1 state=\"reached\" resource=\"vcpus\" target=2 seen=2 source=\"hypervisor\"\]" \
	"$tmp/agent.log" || fail "the reached target was not logged"
# GetMetrics carries it too (fields 15 and 16: vCPUs, memory), and nothing
# for a domain nothing was asked of.
[ "$(agent_call GetMetrics s worker3 | awk '{ print $17, $18 }')" = '"reached" ""' ] ||
	fail "worker3's target states: $(agent_call GetMetrics s worker3)"
[ "$(agent_call GetMetrics s worker1 | awk '{ print $17, $18 }')" = '"" ""' ] ||
	fail "worker1's target states: $(agent_call GetMetrics s worker1)"

# ---- what is not a scrape ----
http "$port" "HEAD /metrics HTTP/1.1\r\n\r\n" >"$tmp/head"
head -n 1 "$tmp/head" | grep -q "^HTTP/1.1 200 OK" || fail "HEAD: $(cat "$tmp/head")"
grep -q "^flexslot_" "$tmp/head" && fail "HEAD sent a body"
http "$port" "GET / HTTP/1.1\r\n\r\n" | head -n 1 | grep -q "^HTTP/1.1 404 Not Found" || fail "GET /"
http "$port" "POST /metrics HTTP/1.1\r\n\r\n" | grep -q "^Allow: GET, HEAD" || fail "POST"
http "$port" "hello\r\n\r\n" | head -n 1 | grep -q "^HTTP/1.1 400 Bad Request" || fail "not HTTP"
http "$port" "GET /metrics HTTP/1.1\r\nX: $(head -c 5000 /dev/zero | tr '\0' a)\r\n\r\n" |
	head -n 1 | grep -q "^HTTP/1.1 431 " || fail "a request too large"
http "$port" "GET /metrics?x=1 HTTP/1.0\r\n\r\n" | head -n 1 | grep -q "^HTTP/1.1 200 OK" ||
	fail "a query string"

# ---- a client that sends nothing ----
python3 - "$port" >"$tmp/idle" 2>&1 <<'PY' &
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
start = time.monotonic()
s.settimeout(30)
print("closed" if s.recv(1) == b"" else "data", round(time.monotonic() - start))
PY
idle_pid=$!
pids="$pids $idle_pid"
scrape "$port" | head -n 1 | grep -q "^HTTP/1.1 200 OK" || fail "a scrape beside an idle client"
wait "$idle_pid" || fail "the idle client: $(cat "$tmp/idle")"
grep -Eq "^closed [4-9]$" "$tmp/idle" || fail "the idle client was not dropped in ~5s: $(cat "$tmp/idle")"
stop_agent
echo "PASS"

#!/bin/sh
# make bench (host part): what the agent's sampling costs.
#
# 1. One sampling pass on real guests (1, then 4 tiny idle TCG guests under a
#    private libvirtd): the agent's single bulk call (plus its metric
#    derivation) against what per-domain exporters do on the same guests, in
#    the same run: virDomainGetInfo + virDomainGetVcpus + virDomainMemoryStats
#    per domain, and one stats call per domain.
# 2. The same three on 1,000 domains behind the same libvirtd (libvirt's test
#    driver served by the daemon, so every call is a real RPC round trip).
# 3. The agent's own processing per domain of a recorded bulk-stats answer
#    (recorded from a real guest in this run, else bench/data/domstats-guest.txt)
#    replayed as 1, 10, 100 and 1,000 domains through the agent's sampling
#    step, and the floor (parsing and derivation alone): microseconds per
#    domain. Flat in the number of domains is the goal.
#
# Parts 1 and 2 need root and QEMU (packaging/deps.sh); without them they are
# skipped with the reason and part 3 still runs. The figures also go to
# $FLEXSLOT_BUILD/bench/host-results.txt.
set -eu

build=${FLEXSLOT_BUILD:?run through make bench}
srcdir=${FLEXSLOT_SRCDIR:?run through make bench}
bench="$build/bench/flexslot-bench-host"
results="$build/bench/host-results.txt"
passes=${FLEXSLOT_BENCH_PASSES:-20}
rounds=${FLEXSLOT_BENCH_ROUNDS:-30}
record="$srcdir/bench/data/domstats-guest.txt"

mkdir -p "$build/bench"
: >"$results"
say() { echo "$*" | tee -a "$results"; }

# field LINE KEY: the value of KEY=value in a line of flexslot-bench-host.
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# ms MICROSECONDS: "12.34 ms"
ms() { awk -v u="$1" 'BEGIN { printf "%.2f ms", u / 1000 }'; }
# ratio A B: A / B as "3.4x"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "n/a" }'; }

# report_pass TITLE LINE
report_pass() {
	n=$(field "$2" domains)
	a=$(field "$2" agent_bulk_us)
	c=$(field "$2" per_domain_calls_us)
	s=$(field "$2" per_domain_stats_us)
	u=$(field "$2" calls_unsupported)
	say "$1 ($n domains, median of $(field "$2" passes) passes):"
	say "  agent, one bulk call + derivation:          $(ms "$a") per pass, $(awk -v a="$a" -v n="$n" 'BEGIN { printf "%.1f", a / n }') us/domain"
	say "  baseline, GetInfo+GetVcpus+MemoryStats:     $(ms "$c") per pass, $(awk -v a="$c" -v n="$n" 'BEGIN { printf "%.1f", a / n }') us/domain  (baseline/agent = $(ratio "$c" "$a"))"
	[ "$u" = none ] || say "    (not supported by this driver: $u; those calls failed fast)"
	say "  baseline, one stats call per domain:        $(ms "$s") per pass, $(awk -v a="$s" -v n="$n" 'BEGIN { printf "%.1f", a / n }') us/domain  (baseline/agent = $(ratio "$s" "$a"))"
	say "  bulk call with one stats group only: state $(ms "$(field "$2" group_state_us)"), cpu-total $(ms "$(field "$2" group_cpu_total_us)"), vcpu $(ms "$(field "$2" group_vcpu_us)"), balloon $(ms "$(field "$2" group_balloon_us)")"
}

say "flexslot host benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), $(getconf _NPROCESSORS_ONLN) CPUs"

# ---- parts 1 and 2: real guests ---------------------------------------------
why_not=""
[ "$(id -u)" -eq 0 ] || why_not="needs root to run libvirtd and QEMU guests"
[ -n "$why_not" ] || command -v qemu-system-x86_64 >/dev/null ||
	why_not="qemu-system-x86_64 is not installed (packaging/deps.sh)"
[ -n "$why_not" ] || command -v libvirtd >/dev/null ||
	why_not="libvirtd is not installed (packaging/deps.sh)"

per_call_us=""
if [ -z "$why_not" ]; then
	vm_dir="$srcdir/tests/vm"
	vm_state=$(mktemp -d /tmp/flexslot-vm.XXXXXX)
	# shellcheck disable=SC1091 # tests/vm/lib.sh, checked on its own
	. "$vm_dir/lib.sh"
	finish() {
		rc=$?
		trap - EXIT INT TERM
		vm_teardown
		rm -rf "$vm_state"
		exit "$rc"
	}
	trap finish EXIT
	trap 'exit 130' INT TERM

	vm_lock 600 || why_not="another real-guest test held the lock for 10 minutes"
fi
if [ -z "$why_not" ]; then
	rc=0
	vm_setup || rc=$?
	case $rc in
	0) ;;
	1) why_not="libvirtd does not start here" ;;
	*) why_not="the test guest cannot be built" ;;
	esac
fi
if [ -z "$why_not" ]; then
	# Always TCG: the figures should compare across machines.
	vm_boot flexslot-bench-1 qemu 96 2 0 90 || {
		echo "the first guest did not boot" >&2
		exit 1
	}
	say "guest boot (TCG, 96 MiB, to its init): $VM_BOOT_MS ms"
	# A recorded bulk-stats answer for part 3, from this run's guest.
	"$bench" record "$VM_URI" flexslot-bench-1 >"$build/bench/domstats-recorded.txt"
	record="$build/bench/domstats-recorded.txt"

	say "(GetInfo and GetVcpus give no vcpu.N.delay, so that baseline cannot derive steal;"
	say " one stats call per domain is the like-for-like one. Under TCG each guest's"
	say " vcpu, cpu-total and balloon groups cost ~1 ms of QEMU and /proc work.)"
	line=$("$bench" pass "$VM_URI" "$passes")
	report_pass "sampling pass, 1 TCG guest" "$line"
	per_call_us=$(field "$line" per_domain_calls_us)

	for i in 2 3 4; do
		vm_create "flexslot-bench-$i" qemu 96 2 0
	done
	for i in 2 3 4; do
		vm_poll 120 vm_console_has "flexslot-bench-$i" FLEXSLOT-GUEST-READY || {
			echo "guest $i did not boot" >&2
			exit 1
		}
	done
	line=$("$bench" pass "$VM_URI" "$passes")
	report_pass "sampling pass, 4 TCG guests" "$line"
	per_call_us=$(awk -v a="$(field "$line" per_domain_calls_us)" \
		-v n="$(field "$line" domains)" 'BEGIN { printf "%.1f", a / n }')

	# 1,000 domains behind the same daemon: the test driver, over RPC.
	xml="$vm_state/thousand.xml"
	awk 'BEGIN {
		print "<node>"
		for (i = 0; i < 1000; i++)
			printf "<domain type=\"test\"><name>bench-%04d</name><memory>131072</memory>" \
				"<vcpu>2</vcpu><os><type>hvm</type></os></domain>\n", i
		print "</node>"
	}' >"$xml"
	line=$("$bench" pass "test+unix://$xml?socket=$vm_state/run/libvirt-sock" 5)
	report_pass "sampling pass, 1,000 domains over RPC (libvirt test driver in the daemon; its bulk stats hold only state.*)" "$line"
else
	say "real-guest passes skipped: $why_not"
fi

# ---- part 3: the agent's processing per domain -------------------------------
"$bench" replay "$record" 1,10,100,1000 "$rounds" >"$build/bench/replay.out"
say "agent processing of a recorded bulk-stats answer ($(basename "$record"), $(field "$(head -n1 "$build/bench/replay.out")" params) typed parameters per domain; median of $rounds rounds), us per domain:"
say "  domains   agent sampling step   floor (parse + derive only)"
first=""
while read -r line; do
	n=$(field "$line" domains)
	a=$(field "$line" agent_us_per_domain)
	f=$(field "$line" floor_us_per_domain)
	[ -n "$first" ] || first=$a
	say "  $(printf '%7d   %8s (%s of 1 domain)   %8s' "$n" "$a" "$(ratio "$a" "$first")" "$f")"
	last_a=$a
done <"$build/bench/replay.out"
if [ -n "$per_call_us" ]; then
	say "  baseline: per-domain GetInfo+GetVcpus+MemoryStats on the real guests cost $per_call_us us/domain = $(ratio "$per_call_us" "$last_a") the agent's processing at 1,000 domains"
fi
say "results: $results"

# Benchmarks. Each prints its figures beside a baseline measured in the same
# run; `make bench` runs them all.
#
# bench-host: boots real tiny guests where the machine can (root, QEMU) and
# measures the agent's sampling pass and its per-domain processing against
# per-domain libvirt calls.
#
# bench-sim: simulator throughput, in events per CPU second (the figures and
# ratios hold on a machine whose CPUs are shared or capped), against the
# event heap alone, measured in the same run (each the best of three), on the Fig. 10 scenario without and
# with speculation and on four times its cluster and input, and on SWIM's
# FB-2009 day replayed whole (one run, and one more that times its policy
# steps for the rate without the core, as each scenario has) on
# FLEXSLOT_BENCH_REPLAY_NODES slaves (30 by default; the issue's 10,000
# take hours); then the wall time of the
# Fig. 10 experiment, all pinned to one core.
#
# bench-store: task records committed per second by the controller's store,
# one transaction each against batched per heartbeat, on a file in $TMPDIR
# (else /var/tmp).
#
# bench-slo: decisions per second of every job scheduler on 1,000 jobs and
# 10,000 trackers against fifo's, and ARIA's 500 jobs on 66 nodes.
BENCH_PROGRAMS += flexslot-bench-host flexslot-bench-sim flexslot-bench-store flexslot-bench-slo
flexslot-bench-host_SOURCES := bench/bench-host.c
flexslot-bench-sim_SOURCES := bench/bench-sim.c
flexslot-bench-store_SOURCES := bench/bench-store.c
flexslot-bench-slo_SOURCES := bench/bench-slo.c
flexslot-bench-host_DEPS := agent
flexslot-bench-sim_DEPS := sim
flexslot-bench-store_DEPS := store
flexslot-bench-slo_DEPS := sim

BENCH_CPU := taskset -c 0

.PHONY: bench-host bench-sim bench-store bench-slo
bench: bench-host bench-sim bench-store bench-slo

bench-host: all
	FLEXSLOT_BUILD=$(abspath $(BUILD)) FLEXSLOT_SRCDIR=$(CURDIR) bench/host.sh

bench-sim: all
	$(BENCH_CPU) $(BUILD)/bench/flexslot-bench-sim sim/scenarios/fig10.ini \
		sim/traces/FB-2009_samples_24_times_1hr_0.tsv
	@start=$$(date +%s.%N); \
	$(BENCH_CPU) $(BUILD)/bin/flexslot-sim experiment fig10 > /dev/null || exit 1; \
	end=$$(date +%s.%N); \
	awk -v s=$$start -v e=$$end 'BEGIN { printf "Fig. 10 experiment (8 benchmarks x 3 variants x 5 seeds, full size): %.1f s wall\n", e - s }'

bench-store: all
	$(BENCH_CPU) $(BUILD)/bench/flexslot-bench-store

bench-slo: all
	$(BENCH_CPU) $(BUILD)/bench/flexslot-bench-slo

# bench-heartbeat: heartbeats per second flexslot-controllerd sustains from
# many tracker connections, with reply latencies, against the same load on a
# controller that skips the policy step ([policy] step = no), measured in the
# same run (bench/heartbeat.sh); with FLEXSLOT_BENCH_RATE, the reply times
# of an open-loop load offered at each rate listed first.
BENCH_PROGRAMS += flexslot-bench-heartbeat
flexslot-bench-heartbeat_SOURCES := bench/bench-heartbeat.c bench/tracker-conn.c \
	bench/latencies.c
flexslot-bench-heartbeat_DEPS := proto daemon
# --store reads the controller's store as an operator's sqlite3 would.
flexslot-bench-heartbeat_PKGS := sqlite3

.PHONY: bench-heartbeat
bench: bench-heartbeat

bench-heartbeat: all
	FLEXSLOT_BUILD=$(abspath $(BUILD)) FLEXSLOT_SRCDIR=$(CURDIR) bench/heartbeat.sh

# bench-cluster: the same heartbeat path in process, at 4,000 trackers and
# 100,000, 13,000 and 400 unfinished tasks in jobs of 10 maps, the same
# share of the heartbeats at each ending a task and starting the next,
# against the same cluster without the step, with the store's size after
# the run, and a table per CPU-second of each size's rate with the step,
# its baseline and its ratio to the rate at 400 (bench/bench-cluster.c
# says why in process). make bench-heartbeat
# runs it before heartbeat.sh.
# The model it measures stands on a store, a data directory and a policy
# of its own, as in the model's tests (tests/check_controller_cluster.c):
# the library clusterfixture (bench/cluster-fixture.c) builds them for both.
LIBRARIES += clusterfixture
clusterfixture_SOURCES := bench/cluster-fixture.c
clusterfixture_DEPS := controllerd
BENCH_PROGRAMS += flexslot-bench-cluster
flexslot-bench-cluster_SOURCES := bench/bench-cluster.c bench/latencies.c
flexslot-bench-cluster_DEPS := clusterfixture

.PHONY: bench-cluster
bench-heartbeat: bench-cluster

bench-cluster: all
	$(BENCH_CPU) $(BUILD)/bench/flexslot-bench-cluster

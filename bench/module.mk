# Benchmarks. Each prints its figures beside a baseline measured in the same
# run; `make bench` runs them all.
#
# bench-host: boots real tiny guests where the machine can (root, QEMU) and
# measures the agent's sampling pass and its per-domain processing against
# per-domain libvirt calls.
BENCH_PROGRAMS += flexslot-bench-host
flexslot-bench-host_SOURCES := bench/bench-host.c

.PHONY: bench-host
bench: bench-host
bench-host: all
	FLEXSLOT_BUILD=$(abspath $(BUILD)) FLEXSLOT_SRCDIR=$(CURDIR) bench/host.sh

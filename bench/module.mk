# Host benchmarks: `make bench` runs bench/host.sh, which boots real tiny
# guests where the machine can (root, QEMU) and measures the agent's sampling
# pass and its per-domain processing against per-domain libvirt calls.
# flexslot-bench-host is built with everything (so `make check` compiles it)
# but is not a PROGRAM: it is never installed.
BENCH_HOST := $(BUILD)/bench/flexslot-bench-host
bench_host_SOURCES := bench/bench-host.c
bench_host_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(bench_host_SOURCES))
ALL_OBJS += $(bench_host_OBJS)
bench_host_LIBS := $(BUILD)/lib/libflexslot-agent.a $(BUILD)/lib/libflexslot-hypervisor.a \
	$(BUILD)/lib/libflexslot-common.a

all: $(BENCH_HOST)

$(BENCH_HOST): $(bench_host_OBJS) $(bench_host_LIBS)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $(bench_host_OBJS) \
		-Wl,--start-group $(bench_host_LIBS) -Wl,--end-group $(PKG_LIBS)

.PHONY: bench-host
bench: bench-host
bench-host: $(BENCH_HOST)
	FLEXSLOT_BUILD=$(abspath $(BUILD)) FLEXSLOT_SRCDIR=$(CURDIR) bench/host.sh

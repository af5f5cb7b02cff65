# bench-sim: simulator throughput, then the wall time of the Fig. 10
# experiment, both pinned to one core. The binary is built here rather than
# listed in PROGRAMS so that it is never installed.
BENCH_SIM := $(BUILD)/bench/bench-sim
BENCH_CPU := taskset -c 0

BENCH_SIM_OBJ := $(BUILD)/obj/bench/bench-sim.o

# LIB_FILES is known only after every module.mk was read, hence the
# secondary expansion.
.SECONDEXPANSION:
$(BENCH_SIM): $(BENCH_SIM_OBJ) $$(LIB_FILES)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $(BENCH_SIM_OBJ) $(LINK_LIBS)

-include $(BENCH_SIM_OBJ:.o=.d)

.PHONY: bench-sim
bench: bench-sim
bench-sim: all $(BENCH_SIM)
	$(BENCH_CPU) $(BENCH_SIM) sim/scenarios/fig10.ini
	@start=$$(date +%s.%N); \
	$(BENCH_CPU) $(BUILD)/bin/flexslot-sim experiment fig10 > /dev/null || exit 1; \
	end=$$(date +%s.%N); \
	awk -v s=$$start -v e=$$end 'BEGIN { printf "Fig. 10 experiment (8 benchmarks x 3 variants, full size): %.1f s wall\n", e - s }'

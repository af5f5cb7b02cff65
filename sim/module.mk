# The simulator: a library with the model (so tests and benchmarks link it)
# and flexslot-sim, whose main() is the only thing it adds.
LIBRARIES += sim
sim_SOURCES := $(filter-out sim/main.c,$(wildcard sim/*.c))

PROGRAMS += flexslot-sim
flexslot-sim_SOURCES := sim/main.c
flexslot-sim_INSTALL_DIR := bin

# The Fig. 10 experiment at the paper's full input size (about 20 s on one
# core), with its CSV files and charts under $(BUILD)/demo.
demo: all
	$(BUILD)/bin/flexslot-sim --out $(BUILD)/demo experiment fig10

# The simulator: a library with the model (so tests and benchmarks link it)
# and flexslot-sim, whose main() is the only thing it adds.
LIBRARIES += sim
sim_SOURCES := $(filter-out sim/main.c,$(wildcard sim/*.c))

PROGRAMS += flexslot-sim
flexslot-sim_SOURCES := sim/main.c
flexslot-sim_INSTALL_DIR := bin

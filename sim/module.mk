# The simulator: a library with the model (so tests and benchmarks link it)
# and flexslot-sim, whose main() is the only thing it adds.
LIBRARIES += sim
sim_SOURCES := $(filter-out sim/main.c,$(wildcard sim/*.c))
sim_DEPS := policy actuation common

PROGRAMS += flexslot-sim
flexslot-sim_SOURCES := sim/main.c
flexslot-sim_DEPS := sim
flexslot-sim_INSTALL_DIR := bin

# Its scenarios, workloads, job profiles and traces, found beside bin/ in
# share/flexslot (sim/data.h): installed there, and linked there in the build
# tree so that a built program (and the tests and benchmarks) finds the
# source's.
SIM_DATA_DIRS := scenarios workloads profiles traces
INSTALL_DATA += $(foreach d,$(SIM_DATA_DIRS),$(foreach f,$(wildcard sim/$(d)/*),\
		$(f):$(PREFIX)/share/flexslot/$(d)/$(notdir $(f)))) \
	packaging/flexslot-sim.1:$(PREFIX)/share/man/man1/flexslot-sim.1

SIM_DATA_LINKS := $(foreach d,$(SIM_DATA_DIRS),$(BUILD)/share/flexslot/$(d))
all: $(SIM_DATA_LINKS)
$(SIM_DATA_LINKS):
	@mkdir -p $(@D)
	ln -sfn $(CURDIR)/sim/$(@F) $@

# The Fig. 10 experiment at the paper's full input size over five seeds
# (about 10 s on one core), beside the paper's figures and the lower bound,
# with its CSV files and charts under $(BUILD)/demo.
demo: all
	$(BUILD)/bin/flexslot-sim --out $(BUILD)/demo experiment fig10

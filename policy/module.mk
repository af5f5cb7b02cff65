# The policy core (policy/core: the snapshot, the step, the decisions and
# their checks; pure code that does no I/O and reads no clock) and its layers
# (policy/layers: schedulers, slot managers, speculation, VM allocators, each
# a driver table). Both the simulator and the live controller drive it.
LIBRARIES += policy
policy_SOURCES := $(wildcard policy/core/*.c) $(wildcard policy/layers/*.c)
policy_DEPS := common

# The actuation contract: the safety limits every change to a VM goes
# through, shared by the agent and the simulator. Pure; depends on common/.
LIBRARIES += actuation
actuation_SOURCES := $(wildcard actuation/*.c)
actuation_DEPS := common

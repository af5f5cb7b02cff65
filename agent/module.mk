# flexslot-agentd: the per-host agent. Its testable parts (configuration,
# safety limits, history, the worker queue) are the `agent` library.
LIBRARIES += agent
agent_SOURCES := agent/config.c agent/safety.c agent/ring.c agent/worker.c agent/host.c \
	agent/bus-errors.c

PROGRAMS += flexslot-agentd
flexslot-agentd_SOURCES := agent/agentd.c agent/bus.c
flexslot-agentd_INSTALL_DIR := sbin

# flexslot-agentd: the per-host agent. Its testable parts (configuration,
# history, the worker queue, the collector and the actuator) are the `agent`
# library.
LIBRARIES += agent
agent_SOURCES := agent/agent-config.c agent/ring.c agent/worker.c agent/connection.c \
	agent/collector.c agent/actuator.c agent/vm-limits.c \
	agent/decision-journal.c agent/target-check.c agent/balloon-guard.c \
	agent/guest-agent.c
agent_DEPS := hypervisor actuation proto daemon common
agent_PKGS := libsystemd

PROGRAMS += flexslot-agentd
flexslot-agentd_SOURCES := agent/agentd.c agent/bus.c agent/bus-change.c agent/exporter.c
flexslot-agentd_DEPS := agent daemon
flexslot-agentd_INSTALL_DIR := sbin

INSTALL_DATA += conf/agent.ini:$(SYSCONFDIR)/flexslot/agent.ini \
	packaging/flexslot-agentd.service.in:$(PREFIX)/lib/systemd/system/flexslot-agentd.service \
	packaging/flexslot.sysusers:$(PREFIX)/lib/sysusers.d/flexslot.conf \
	packaging/org.flexslot.Agent1.conf:$(DBUS_SYSTEM_DIR)/org.flexslot.Agent1.conf \
	packaging/flexslot-agentd.8:$(PREFIX)/share/man/man8/flexslot-agentd.8

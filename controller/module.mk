# The controller's durable store (SQLite): jobs, their task attempts, ARIA
# profiles. Not part of the policy core, which does no I/O.
LIBRARIES += store
store_SOURCES := $(wildcard controller/store/*.c)
store_DEPS := policy common
store_PKGS := sqlite3
# The controller's client of YARN (controller/yarn/): the REST answers of a
# ResourceManager and its MapReduce application masters decoded with
# json-c, and HTTP on the daemon's sd-event loop with libcurl. The YARN
# driver (controller/daemon/yarn-*.c) builds on it.
LIBRARIES += yarn
yarn_SOURCES := $(wildcard controller/yarn/*.c)
yarn_DEPS := common
yarn_PKGS := json-c libcurl libsystemd

# flexslot-controllerd: the live controller. Its testable parts (the
# configuration, the live model of the cluster and its client of the
# agents) are the `controllerd` library.
LIBRARIES += controllerd
controllerd_SOURCES := controller/daemon/controllerd-config.c controller/daemon/cluster.c \
	controller/daemon/cluster-model.c controller/daemon/cluster-job.c \
	controller/daemon/cluster-heartbeat.c controller/daemon/cluster-snapshot.c \
	controller/daemon/agent-hosts.c controller/daemon/cluster-profile.c \
	controller/daemon/cluster-output.c controller/daemon/agent-rate.c \
	controller/daemon/agent-diff.c controller/daemon/agent-link.c \
	controller/daemon/agent-targets.c controller/daemon/submit.c \
	controller/daemon/yarn-config.c controller/daemon/yarn-model.c \
	controller/daemon/yarn-snapshot.c controller/daemon/yarn-actions.c
controllerd_DEPS := store policy proto mapred yarn common
controllerd_PKGS := libsystemd

PROGRAMS += flexslot-controllerd
flexslot-controllerd_SOURCES := controller/daemon/controllerd.c \
	controller/daemon/bus-controller.c controller/daemon/tracker-endpoint.c \
	controller/daemon/bus-agents.c controller/daemon/controller-metrics.c \
	controller/daemon/driver-trackers.c controller/daemon/yarn-driver.c
flexslot-controllerd_DEPS := controllerd daemon
flexslot-controllerd_INSTALL_DIR := sbin

INSTALL_DATA += conf/controller.ini:$(SYSCONFDIR)/flexslot/controller.ini \
	packaging/flexslot-controllerd.service.in:$(PREFIX)/lib/systemd/system/flexslot-controllerd.service \
	packaging/org.flexslot.Controller1.conf:$(DBUS_SYSTEM_DIR)/org.flexslot.Controller1.conf \
	packaging/flexslot-controllerd.8:$(PREFIX)/share/man/man8/flexslot-controllerd.8

# A tracker that runs no task, for the controller's tests (and a heartbeat
# load later): proto/tracker1.h spoken from outside.
BENCH_PROGRAMS += flexslot-tracker-client
flexslot-tracker-client_SOURCES := bench/tracker-client.c bench/tracker-conn.c
flexslot-tracker-client_DEPS := proto

# flexslotctl: the operators' command line, a client of Controller1.
PROGRAMS += flexslotctl
flexslotctl_SOURCES := controller/ctl/ctl.c controller/ctl/ctl-commands.c \
	controller/ctl/ctl-output.c controller/ctl/ctl-watch.c
flexslotctl_DEPS := proto common
INSTALL_DATA += packaging/flexslotctl.1:$(PREFIX)/share/man/man1/flexslotctl.1

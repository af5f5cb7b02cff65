# Logging, parsing, time, the configuration schema on inih: what every
# program uses, the simulator included.
LIBRARIES += common
common_SOURCES := $(filter-out common/daemon-util.c common/bus-watch.c,$(wildcard common/*.c))
common_DEPS :=
common_PKGS := inih
# The daemons' shared skeleton (options, signals, watchdog, the bus): apart,
# so that what is not a daemon needs no libsystemd.
LIBRARIES += daemon
daemon_SOURCES := common/daemon-util.c common/metrics-http.c common/bus-watch.c
daemon_DEPS := common
daemon_PKGS := libsystemd

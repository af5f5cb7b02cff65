# The contracts between programs deployed apart: org.flexslot.Tracker1,
# Agent1 and Controller1, their named errors, and the one codec of each
# message. Includes only common/ and sd-bus.
LIBRARIES += proto
proto_SOURCES := $(wildcard proto/*.c)
proto_DEPS := common
proto_PKGS := libsystemd

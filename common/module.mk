LIBRARIES += common
common_SOURCES := $(wildcard common/*.c)

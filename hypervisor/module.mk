LIBRARIES += hypervisor
hypervisor_SOURCES := $(wildcard hypervisor/*.c)

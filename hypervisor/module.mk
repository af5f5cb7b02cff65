LIBRARIES += hypervisor
hypervisor_SOURCES := $(wildcard hypervisor/*.c)
hypervisor_DEPS := common
hypervisor_PKGS := libvirt

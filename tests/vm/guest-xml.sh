#!/bin/sh
# Prints the libvirt XML of a tiny test guest (see build-guest.sh).
#
#   tests/vm/guest-xml.sh NAME KERNEL INITRD CONSOLE_LOG [MEM_MIB [VCPUS_MAX [BUSY [TYPE]]]]
#
# MEM_MIB   maximum (and initial) memory, default 128
# VCPUS_MAX maximum vCPUs, default 2; the guest starts with 1
# BUSY      busy loops the guest runs (flexslot.busy=), default 1
# TYPE      domain type: qemu (TCG, the default) or kvm
set -eu

[ $# -ge 4 ] || {
	echo "usage: $0 NAME KERNEL INITRD CONSOLE_LOG [MEM_MIB [VCPUS_MAX [BUSY [TYPE]]]]" >&2
	exit 2
}
name=$1 kernel=$2 initrd=$3 console=$4
mem=${5:-128} vmax=${6:-2} busy=${7:-1} type=${8:-qemu}

case $type in
qemu) cpu="" ;;
kvm) cpu="<cpu mode='host-passthrough'/>" ;;
*)
	echo "$0: TYPE must be qemu or kvm" >&2
	exit 2
	;;
esac

cat <<EOF
<domain type='$type'>
  <name>$name</name>
  <memory unit='MiB'>$mem</memory>
  <currentMemory unit='MiB'>$mem</currentMemory>
  <vcpu placement='static' current='1'>$vmax</vcpu>
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <kernel>$kernel</kernel>
    <initrd>$initrd</initrd>
    <cmdline>console=ttyS0 panic=-1 loglevel=4 mitigations=off flexslot.busy=$busy</cmdline>
  </os>
  <features><acpi/><apic/></features>
  $cpu
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>destroy</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    <serial type='file'>
      <source path='$console'/>
      <target port='0'/>
    </serial>
    <console type='file'>
      <source path='$console'/>
      <target type='serial' port='0'/>
    </console>
    <memballoon model='virtio'>
      <stats period='1'/>
    </memballoon>
  </devices>
</domain>
EOF

#!/bin/sh
# Prints the libvirt XML of a tiny test guest (see build-guest.sh).
#
#   tests/vm/guest-xml.sh NAME KERNEL INITRD CONSOLE_LOG [MEM_MIB [VCPUS_MAX [BUSY [TYPE [PIN]]]]]
#
# MEM_MIB   maximum (and initial) memory, default 128
# VCPUS_MAX maximum vCPUs, default 2; the guest starts with 1
# BUSY      busy loops the guest runs (flexslot.busy=), default 1
# TYPE      domain type: qemu (TCG, the default) or kvm
# PIN       a host CPU number: every vCPU runs on that CPU only, and QEMU's
#           other threads on the other CPUs (if there are others); empty:
#           no pinning. With a hog pinned to the same CPU (hog.sh) the guest
#           sees steal however many CPUs the host has.
# The CPU weight is given explicitly (libvirt's default, 1024), so a cgroup
# left behind by a killed run cannot lend the guest another one.
#
# Environment, for a guest with the tracker layer (build-guest.sh --tracker):
#   GUEST_VCPUS=N     vCPUs online at start (default 1)
#   GUEST_SHARE=DIR   DIR shared over 9p with mount tag "data"
#   GUEST_NET=user    a virtio NIC on QEMU's user network (no bridge, no
#                     root network setup: the guest reaches the host's
#                     loopback at 10.0.2.2)
# and for any guest:
#   GUEST_AGENT=1     the guest agent's virtio-serial channel,
#                     org.qemu.guest_agent.0 (the guest runs qemu-ga on it
#                     with build-guest.sh's --guest-agent layer)
#   GUEST_ONLINE=0    the guest leaves hot-added CPUs offline
set -eu

[ $# -ge 4 ] || {
	echo "usage: $0 NAME KERNEL INITRD CONSOLE_LOG [MEM_MIB [VCPUS_MAX [BUSY [TYPE [PIN]]]]]" >&2
	exit 2
}
name=$1 kernel=$2 initrd=$3 console=$4
mem=${5:-128} vmax=${6:-2} busy=${7:-1} type=${8:-qemu} pin=${9:-}
vcur=${GUEST_VCPUS:-1}
case $vcur in
'' | *[!0-9]* | 0*)
	echo "$0: GUEST_VCPUS '$vcur' is not a positive number" >&2
	exit 2
	;;
esac
[ "$vcur" -le "$vmax" ] || {
	echo "$0: GUEST_VCPUS $vcur is more than VCPUS_MAX $vmax" >&2
	exit 2
}
devices=""
if [ -n "${GUEST_SHARE:-}" ]; then
	[ -d "$GUEST_SHARE" ] || {
		echo "$0: GUEST_SHARE $GUEST_SHARE is not a directory" >&2
		exit 2
	}
	devices="<filesystem type='mount' accessmode='passthrough'>
      <source dir='$GUEST_SHARE'/><target dir='data'/>
    </filesystem>"
fi
case ${GUEST_NET:-} in
'') ;;
user) devices="$devices
    <interface type='user'><model type='virtio'/></interface>" ;;
*)
	echo "$0: GUEST_NET must be user or empty" >&2
	exit 2
	;;
esac

case ${GUEST_AGENT:-} in
'') ;;
1) devices="$devices
    <channel type='unix'><target type='virtio' name='org.qemu.guest_agent.0'/></channel>" ;;
*)
	echo "$0: GUEST_AGENT must be 1 or empty" >&2
	exit 2
	;;
esac
cmdline_extra=""
case ${GUEST_ONLINE:-} in
'') ;;
0) cmdline_extra=" flexslot.online=0" ;;
*)
	echo "$0: GUEST_ONLINE must be 0 or empty" >&2
	exit 2
	;;
esac

case $type in
qemu) cpu="" ;;
kvm) cpu="<cpu mode='host-passthrough'/>" ;;
*)
	echo "$0: TYPE must be qemu or kvm" >&2
	exit 2
	;;
esac

vcpu_cpuset="" emulatorpin=""
if [ -n "$pin" ]; then
	vcpu_cpuset=" cpuset='$pin'"
	ncpu=$(getconf _NPROCESSORS_ONLN)
	others=""
	i=0
	while [ "$i" -lt "$ncpu" ]; do
		[ "$i" = "$pin" ] || others="$others${others:+,}$i"
		i=$((i + 1))
	done
	[ -z "$others" ] || emulatorpin="<emulatorpin cpuset='$others'/>"
fi

# delayacct: the kernel's task delay accounting, off by default since
# Linux 5.14, so that a task's block I/O wait (/proc/PID/stat's
# delayacct_blkio_ticks) that the tracker reports is measured, not 0.
# no_timer_check: on a busy host a TCG guest's vCPU may not run while the
# kernel checks its timer interrupt at boot, and the kernel then panics
# ("IO-APIC + timer doesn't work!"); seen with four 2-vCPU guests booting at
# a load average of 20.
cat <<EOF
<domain type='$type'>
  <name>$name</name>
  <memory unit='MiB'>$mem</memory>
  <currentMemory unit='MiB'>$mem</currentMemory>
  <vcpu placement='static'$vcpu_cpuset current='$vcur'>$vmax</vcpu>
  <cputune>
    <shares>1024</shares>
    $emulatorpin
  </cputune>
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <kernel>$kernel</kernel>
    <initrd>$initrd</initrd>
    <cmdline>console=ttyS0 panic=-1 loglevel=4 mitigations=off no_timer_check delayacct flexslot.busy=$busy$cmdline_extra</cmdline>
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
    $devices
    <memballoon model='virtio'>
      <stats period='1'/>
    </memballoon>
  </devices>
</domain>
EOF

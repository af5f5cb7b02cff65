#!/bin/sh
# Host CPU contention for a guest: busy loops in a cgroup that is a sibling of
# the guest's machine cgroup, with a much higher CPU weight, so the guest's
# vCPUs wait (and see steal). A hog in the root cgroup barely affects a guest
# under libvirt's /machine partition.
#
#   tests/vm/hog.sh start STATEDIR QEMU_PID [N [WEIGHT [CPU]]]
#         N busy loops (default: CPUs online) with cgroup v1 cpu.shares WEIGHT
#         (default 4096: four times a guest's; a much higher weight starves
#         QEMU's own threads too, and monitor queries then take seconds),
#         all on host CPU number CPU if given (see guest-xml.sh PIN)
#   tests/vm/hog.sh stop STATEDIR                 stop them (by PID), remove the cgroup
#
# Works with cgroup v1 (cpu controller, cpu.shares) and v2 (cpu.weight).
set -eu

usage() {
	echo "usage: $0 start STATEDIR QEMU_PID [N] | stop STATEDIR" >&2
	exit 2
}
msg() { echo "hog.sh: $*" >&2; }
[ $# -ge 2 ] || usage
cmd=$1 state=$2

# Prints "MOUNT PATH VERSION" for the cpu controller of PID $1.
cpu_cgroup_of() {
	while IFS=: read -r _ ctrls path; do
		case ",$ctrls," in
		*,cpu,*)
			for m in /sys/fs/cgroup/cpu /sys/fs/cgroup/cpu,cpuacct /sys/fs/cgroup/cpuacct,cpu; do
				if [ -f "$m/cpu.shares" ]; then
					echo "$m $path 1"
					return 0
				fi
			done
			;;
		esac
	done <"/proc/$1/cgroup"
	if [ -f /sys/fs/cgroup/cgroup.controllers ] &&
		grep -qw cpu /sys/fs/cgroup/cgroup.controllers; then
		path=$(sed -n 's/^0:://p' "/proc/$1/cgroup")
		echo "/sys/fs/cgroup $path 2"
		return 0
	fi
	return 1
}

do_start() {
	qpid=$1 n=$2 weight=$3 cpu=$4
	pin=""
	[ -z "$cpu" ] || pin="taskset -c $cpu"
	[ -d "/proc/$qpid" ] || {
		msg "no process $qpid"
		exit 1
	}
	info=$(cpu_cgroup_of "$qpid") || info=""
	# shellcheck disable=SC2086 # three words
	set -- $info
	[ $# -eq 3 ] || {
		msg "cannot find the cpu cgroup of $qpid"
		exit 1
	}
	mnt=$1 path=$2 ver=$3
	# The guest's partition: the first component (/machine or /machine.slice).
	part=$(echo "$path" | cut -d/ -f2)
	[ -n "$part" ] || {
		msg "process $qpid is in the root cpu cgroup"
		exit 1
	}
	cg="$mnt/$part/flexslot-hog-$$"
	mkdir "$cg"
	echo "$cg" >"$state/hog.cgroup"
	if [ "$ver" = 1 ]; then
		echo "$weight" >"$cg/cpu.shares"
	else
		# The cpu controller may not be enabled below the partition yet.
		[ -f "$cg/cpu.weight" ] ||
			echo +cpu >"$mnt/$part/cgroup.subtree_control" 2>/dev/null || true
		# v2 weights are 1..10000 with 100 as the default (v1: 1024).
		if [ -f "$cg/cpu.weight" ]; then
			echo $((weight * 100 / 1024)) >"$cg/cpu.weight"
		else
			msg "no cpu controller for $cg: the hog competes with equal weight"
		fi
	fi
	: >"$state/hog.pids"
	i=0
	while [ "$i" -lt "$n" ]; do
		# The loop moves itself into the cgroup before it starts spinning.
		# shellcheck disable=SC2086,SC2016 # pin: empty or a command; the inner script
		$pin sh -c 'echo $$ >"$1/cgroup.procs" && while :; do :; done' hog "$cg" \
			</dev/null >/dev/null 2>&1 9>&- &
		echo $! >>"$state/hog.pids"
		i=$((i + 1))
	done
	# Bounded wait until every loop sits in the cgroup.
	t=0
	while [ "$(wc -l <"$cg/cgroup.procs")" -lt "$n" ]; do
		t=$((t + 1))
		[ "$t" -lt 50 ] || {
			msg "busy loops did not enter $cg"
			do_stop
			exit 1
		}
		sleep 0.1
	done
	echo "$cg"
}

do_stop() {
	if [ -f "$state/hog.pids" ]; then
		while read -r p; do
			# Only our loop: its command line names its cgroup (the PID
			# may have been reused if a killed run left this file).
			if tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q flexslot-hog-; then
				kill -KILL "$p" 2>/dev/null || true
			fi
		done <"$state/hog.pids"
	fi
	if [ -f "$state/hog.cgroup" ]; then
		cg=$(cat "$state/hog.cgroup")
		t=0
		while [ -d "$cg" ] && ! rmdir "$cg" 2>/dev/null; do
			t=$((t + 1))
			[ "$t" -lt 50 ] || {
				msg "cannot remove $cg"
				break
			}
			sleep 0.1
		done
	fi
	rm -f "$state/hog.pids" "$state/hog.cgroup"
}

case $cmd in
start)
	[ $# -ge 3 ] || usage
	do_start "$3" "${4:-$(getconf _NPROCESSORS_ONLN)}" "${5:-4096}" "${6:-}"
	;;
stop) do_stop ;;
*) usage ;;
esac

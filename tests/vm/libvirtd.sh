#!/bin/sh
# Starts and stops a private libvirtd for tests, without touching the machine's
# libvirt configuration or state.
#
#   tests/vm/libvirtd.sh start STATEDIR   start; prints the connection URI
#   tests/vm/libvirtd.sh stop STATEDIR    destroy its guests, stop it (by PID)
#   tests/vm/libvirtd.sh restart STATEDIR stop only the daemon (its guests keep
#                                         running), start it again on the same
#                                         state: it reconnects to them
#   tests/vm/libvirtd.sh uri STATEDIR     print the URI of a started daemon
#
# libvirtd runs inside `unshare --mount --propagation private`, where private
# directories under STATEDIR are bind-mounted over /etc/libvirt (a copy with
# qemu.conf user/group root, no security driver, no autostarted networks),
# /run/libvirt, /var/lib/libvirt, /var/log/libvirt and /var/cache/libvirt. The
# QEMU capability cache is kept in $FLEXSLOT_VM_CACHE/libvirt-cache (default
# /var/cache/flexslot/vm) so only the first start pays for the probe.
# Clients connect with qemu:///system?socket=STATEDIR/run/libvirt-sock.
# QEMU writes its log straight to a file (stdio_handler = "file"), so no
# virtlogd is needed.
set -eu

usage() {
	echo "usage: $0 start|stop|restart|uri STATEDIR" >&2
	exit 2
}
[ $# -eq 2 ] || usage
cmd=$1
state=$2
msg() { echo "libvirtd.sh: $*" >&2; }

start_timeout=${FLEXSLOT_LIBVIRTD_TIMEOUT:-90}

uri_of() {
	echo "qemu:///system?socket=$1/run/libvirt-sock"
}

# True when PID $1 is alive and its command line contains $2.
pid_is() {
	[ -n "$1" ] && alive "$1" &&
		tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -q -- "$2"
}

# True when PID $1 exists and is not a zombie.
alive() {
	[ -r "/proc/$1/stat" ] || return 1
	st=$(sed -n 's/^[0-9]* (.*) \(.\) .*/\1/p' "/proc/$1/stat" 2>/dev/null || true)
	[ -n "$st" ] && [ "$st" != Z ]
}

# Waits up to $2 tenths of a second for PID $1 to exit.
wait_gone() {
	n=0
	while alive "$1" && [ "$n" -lt "$2" ]; do
		sleep 0.1
		n=$((n + 1))
	done
	! alive "$1"
}

# Stops PID $1 (if its command line contains $2): TERM, then KILL.
stop_pid() {
	pid_is "$1" "$2" || return 0
	kill -TERM "$1" 2>/dev/null || true
	wait_gone "$1" 100 && return 0
	msg "$2 ($1) ignored TERM; killing it"
	kill -KILL "$1" 2>/dev/null || true
	wait_gone "$1" 50 || msg "$2 ($1) did not exit"
}

# do_start [keep]: with "keep", the state of a stopped daemon is reused.
do_start() {
	keep=${1:-}
	[ "$(id -u)" -eq 0 ] || {
		msg "must run as root"
		exit 1
	}
	libvirtd_bin=$(command -v libvirtd || echo /usr/sbin/libvirtd)
	[ -x "$libvirtd_bin" ] || {
		msg "libvirtd is not installed (packaging/deps.sh)"
		exit 1
	}
	if [ -f "$state/libvirtd.pid" ] && pid_is "$(cat "$state/libvirtd.pid")" libvirtd; then
		msg "already running in $state"
		uri_of "$state"
		return 0
	fi
	cache=${FLEXSLOT_VM_CACHE:-/var/cache/flexslot/vm}
	mkdir -p "$state" "$cache/libvirt-cache"
	state=$(cd "$state" && pwd)
	cache=$(cd "$cache" && pwd)
	if [ "$keep" = keep ] && [ -d "$state/etc" ]; then
		write_config=false
	else
		write_config=true
		rm -rf "${state:?}/etc" "${state:?}/run" "${state:?}/lib" "${state:?}/log"
		mkdir -p "$state/run" "$state/lib" "$state/log"
		chmod 0700 "$state/run"
	fi
	if $write_config; then write_config; fi
	start_daemon
}

write_config() {
	# A copy of the machine's libvirt configuration, with our qemu.conf.
	cp -a /etc/libvirt "$state/etc"
	rm -rf "$state/etc/qemu/networks/autostart" "$state/etc/qemu/autostart" \
		"$state/etc/storage/autostart"
	find "$state/etc/qemu" -maxdepth 1 -name '*.xml' -delete 2>/dev/null || true
	cat >"$state/etc/qemu.conf" <<-EOF
		# Private test configuration (tests/vm/libvirtd.sh).
		user = "root"
		group = "root"
		dynamic_ownership = 0
		security_driver = "none"
		stdio_handler = "file"
		remember_owner = 0
	EOF
	cat >"$state/etc/libvirtd.conf" <<-EOF
		# Private test configuration (tests/vm/libvirtd.sh).
		unix_sock_group = "root"
		unix_sock_ro_perms = "0700"
		unix_sock_rw_perms = "0700"
		auth_unix_ro = "none"
		auth_unix_rw = "none"
		log_outputs = "3:file:$state/log/libvirtd.log"
		keepalive_interval = 5
	EOF
}

start_daemon() {
	# /run/libvirt may not exist yet: the mount point itself is the only
	# thing created outside STATEDIR (an empty directory the package owns).
	mkdir -p /run/libvirt
	inner="mount --bind '$state/etc' /etc/libvirt &&
		mount --bind '$state/run' /run/libvirt &&
		mount --bind '$state/lib' /var/lib/libvirt &&
		mount --bind '$state/log' /var/log/libvirt &&
		mount --bind '$cache/libvirt-cache' /var/cache/libvirt &&
		exec '$libvirtd_bin' --pid-file '$state/libvirtd.pid.inner' \
			--config /etc/libvirt/libvirtd.conf"
	# unshare execs sh, which execs libvirtd: $! is libvirtd's PID.
	unshare --mount --propagation private sh -c "$inner" \
		</dev/null >>"$state/libvirtd.out" 2>&1 9>&- &
	pid=$!
	echo "$pid" >"$state/libvirtd.pid"
	uri=$(uri_of "$state")
	echo "$uri" >"$state/uri"

	n=0
	limit=$((start_timeout * 10))
	while :; do
		if ! alive "$pid"; then
			msg "libvirtd exited during start; its output:"
			tail -n 20 "$state/libvirtd.out" >&2 || true
			tail -n 20 "$state/log/libvirtd.log" >&2 2>/dev/null || true
			rm -f "$state/libvirtd.pid"
			exit 1
		fi
		if [ -S "$state/run/libvirt-sock" ] &&
			virsh -q -c "$uri" uri >/dev/null 2>&1; then
			break
		fi
		n=$((n + 1))
		if [ "$n" -ge "$limit" ]; then
			msg "libvirtd did not answer within ${start_timeout}s"
			do_stop
			exit 1
		fi
		sleep 0.1
	done
	echo "$uri"
}

do_stop() {
	[ -d "$state" ] || return 0
	uri=$(uri_of "$state")
	pid=$(cat "$state/libvirtd.pid" 2>/dev/null || true)
	if pid_is "$pid" libvirtd; then
		# Destroy the guests first: QEMU outlives libvirtd otherwise.
		for dom in $(timeout 20 virsh -q -c "$uri" list --name 2>/dev/null || true); do
			timeout 30 virsh -q -c "$uri" destroy "$dom" >/dev/null 2>&1 ||
				msg "cannot destroy $dom"
		done
	fi
	# Any QEMU still alive (libvirtd hung or already gone): by its pid file.
	# libvirtd did not clean up after such a guest: remove its cgroups too,
	# or the next guest of that name and id inherits their settings.
	for f in "$state"/run/qemu/*.pid; do
		[ -f "$f" ] || continue
		stop_pid "$(cat "$f" 2>/dev/null || true)" qemu-system
		name=$(basename "$f" .pid)
		for cg in /sys/fs/cgroup/*/machine/qemu-*-"$name".libvirt-qemu \
			/sys/fs/cgroup/machine/qemu-*-"$name".libvirt-qemu; do
			[ -d "$cg" ] || continue
			find "$cg" -depth -type d -exec rmdir {} \; 2>/dev/null ||
				msg "cannot remove $cg"
		done
	done
	stop_pid "$pid" libvirtd
	rm -f "$state/libvirtd.pid"
}

# Stops the daemon only, by PID; QEMU runs on (it is not libvirtd's child).
do_stop_daemon() {
	pid=$(cat "$state/libvirtd.pid" 2>/dev/null || true)
	pid_is "$pid" libvirtd || {
		msg "no libvirtd running in $state"
		exit 1
	}
	stop_pid "$pid" libvirtd
	rm -f "$state/libvirtd.pid"
}

case $cmd in
start) do_start ;;
stop) do_stop ;;
restart)
	do_stop_daemon
	do_start keep
	;;
uri) uri_of "$(cd "$state" && pwd)" ;;
*) usage ;;
esac

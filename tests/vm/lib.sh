# shellcheck shell=sh
# Helpers for tests and benchmarks that run real QEMU guests; source it with
#   vm_dir=<srcdir>/tests/vm; . "$vm_dir/lib.sh"
# It needs vm_dir (this directory) and vm_state (an empty private directory
# named /tmp/flexslot-vm.XXXXXX, see vm_reap_stale).
# After vm_setup: VM_URI, VM_KERNEL, VM_INITRD; after vm_agent_start:
# VM_BUS_ADDRESS; after vm_controller_start: VM_CONTROLLER_PID. Everything
# started is recorded
# under vm_state and stopped by vm_teardown, by PID.
#
# Environment:
#   FLEXSLOT_VM_ACCEL   tcg or kvm to force; default: KVM if a KVM guest boots
#                       on this machine (the verdict is cached), else TCG
#   FLEXSLOT_VM_CACHE   where the guest and the verdict are cached
#                       (default /var/cache/flexslot/vm)

: "${vm_dir:?set vm_dir before sourcing lib.sh}" "${vm_state:?set vm_state before sourcing lib.sh}"
vm_cache=${FLEXSLOT_VM_CACHE:-/var/cache/flexslot/vm}

vm_log() { echo "vm: $*" >&2; }

vm_now_ms() {
	# /proc/uptime has 10 ms resolution and needs no date +%N.
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}

# vm_poll TIMEOUT_SEC COMMAND...: runs COMMAND every 0.1 s until it succeeds
# or TIMEOUT_SEC pass. Returns COMMAND's last status.
vm_poll() {
	_vp_limit=$(($1 * 10))
	shift
	_vp_n=0
	while :; do
		if "$@"; then
			return 0
		fi
		_vp_n=$((_vp_n + 1))
		[ "$_vp_n" -lt "$_vp_limit" ] || return 1
		sleep 0.1
	done
}

vm_console_has() { grep -q -- "$2" "$vm_state/$1.console" 2>/dev/null; }

vm_virsh() { virsh -q -c "$VM_URI" "$@"; }

# vm_domstat NAME FIELD: one field of virsh domstats (empty if absent).
vm_domstat() {
	vm_virsh domstats "$1" 2>/dev/null | sed -n "s/^ *$2=//p"
}

# vm_qemu_pid NAME
vm_qemu_pid() { cat "$vm_state/run/qemu/$1.pid"; }

# vm_lock TIMEOUT_SEC: waits for the machine-wide lock of real-guest tests and
# benchmarks (two of them at once would steal each other's CPU: a hog or a
# busy guest of one starves the guests of the other). Held until this shell
# exits; long-lived children are started with the descriptor closed.
vm_lock() {
	mkdir -p "$vm_cache"
	exec 9>>"$vm_cache/vm.lock"
	if ! flock -n 9; then
		vm_log "waiting for another real-guest test or benchmark to finish"
		flock -w "$1" 9 || return 1
	fi
	vm_reap_stale
}

# Builds the guest and starts the private libvirtd. Returns 1 (with a
# message) if libvirtd cannot start.
vm_setup() {
	mkdir -p "$vm_state"
	_vs_out=$("$vm_dir/build-guest.sh") || {
		vm_log "cannot build the guest"
		return 2
	}
	VM_KERNEL=$(echo "$_vs_out" | sed -n 's/^KERNEL=//p')
	VM_INITRD=$(echo "$_vs_out" | sed -n 's/^INITRD=//p')
	VM_URI=$("$vm_dir/libvirtd.sh" start "$vm_state") || return 1
	export VM_URI VM_KERNEL VM_INITRD
}

# vm_create NAME ACCEL MEM_MIB VCPUS_MAX BUSY [PIN]: creates a transient guest
# (PIN: see guest-xml.sh).
vm_create() {
	rm -f "$vm_state/$1.console"
	"$vm_dir/guest-xml.sh" "$1" "$VM_KERNEL" "$VM_INITRD" "$vm_state/$1.console" \
		"$3" "$4" "$5" "$2" "${6:-}" >"$vm_state/$1.xml"
	vm_virsh create "$vm_state/$1.xml" >/dev/null
}

# vm_boot NAME ACCEL MEM_MIB VCPUS_MAX BUSY TIMEOUT [PIN]: creates the guest and
# waits for its init; sets VM_BOOT_MS. On timeout the guest is destroyed.
vm_boot() {
	_vb_t0=$(vm_now_ms)
	vm_create "$1" "$2" "$3" "$4" "$5" "${7:-}" || return 1
	if ! vm_poll "$6" vm_console_has "$1" FLEXSLOT-GUEST-READY; then
		vm_virsh destroy "$1" >/dev/null 2>&1 || true
		return 1
	fi
	VM_BOOT_MS=$(($(vm_now_ms) - _vb_t0))
	export VM_BOOT_MS
}

# Prints qemu or kvm: the domain type to use here.
vm_accel() {
	case ${FLEXSLOT_VM_ACCEL:-auto} in
	tcg | qemu)
		echo qemu
		return 0
		;;
	kvm)
		echo kvm
		return 0
		;;
	esac
	if ! [ -r /dev/kvm ] || ! [ -w /dev/kvm ]; then
		echo qemu
		return 0
	fi
	_va_key="probe2 $(uname -r) $(qemu-system-x86_64 --version 2>/dev/null | head -n1)"
	_va_file="$vm_cache/accel"
	if [ -f "$_va_file" ] && [ "$(sed -n 1p "$_va_file")" = "$_va_key" ]; then
		sed -n 2p "$_va_file"
		return 0
	fi
	# Probe: a KVM guest boots in a second or two where KVM works.
	_va_res=qemu
	# (96 MiB: the Debian kernel does not come up in 64.)
	if vm_boot flexslot-kvm-probe kvm 96 1 0 20 2>/dev/null; then
		_va_res=kvm
	fi
	vm_virsh destroy flexslot-kvm-probe >/dev/null 2>&1 || true
	vm_log "KVM guests $([ "$_va_res" = kvm ] && echo boot || echo "do not boot") here; using $_va_res"
	printf '%s\n%s\n' "$_va_key" "$_va_res" >"$_va_file.tmp.$$" &&
		mv "$_va_file.tmp.$$" "$_va_file"
	echo "$_va_res"
}

# Records a PID that vm_teardown stops: vm_track PID NAME, where NAME is part
# of its command line.
vm_track() { echo "$1 $2" >>"$vm_state/pids"; }

# vm_agent_start AGENTD INTERVAL: a private dbus-daemon, its address in
# VM_BUS_ADDRESS, and the agent AGENTD on it for vm_setup's libvirtd (VM_URI),
# sampling every INTERVAL. Its configuration, $vm_state/agent.ini, holds what
# every real-guest run shares (guests of 1..2 vCPUs changed a vCPU at a time,
# nothing of the host reserved); the caller's own keys, under section
# headers of their own, come on standard input. Returns 2, logged, when the
# bus or the agent does not start.
vm_agent_start() {
	# shellcheck source=tests/lib/bus-config.sh
	. "$vm_dir/../lib/bus-config.sh"
	private_bus_config "$vm_state/bus" >"$vm_state/bus.conf"
	dbus-daemon --config-file="$vm_state/bus.conf" --nofork --print-address=1 \
		>"$vm_state/bus.address" 2>"$vm_state/bus.log" 9>&- &
	vm_track $! dbus-daemon
	vm_poll 10 test -s "$vm_state/bus.address" || {
		vm_log "dbus-daemon did not start"
		return 2
	}
	VM_BUS_ADDRESS="unix:path=$vm_state/bus"
	{
		cat <<-EOF
			[agent]
			uri = $VM_URI
			interval = $2
			hypervisor-timeout = 20s
			[host]
			reserve-cpus = 0
			reserve-memory = 0
			[limits]
			min-vcpus = 1
			max-vcpus = 2
			max-vcpu-step = 1
			min-memory-change = 16M
			min-cpu-weight = 128
		EOF
		cat
	} >"$vm_state/agent.ini"
	"$1" --config "$vm_state/agent.ini" --address "$VM_BUS_ADDRESS" \
		>"$vm_state/agent.log" 2>&1 9>&- &
	vm_track $! flexslot-agentd
	vm_poll 20 busctl --address="$VM_BUS_ADDRESS" status org.flexslot.Agent1 >/dev/null 2>&1 || {
		vm_log "the agent did not start: $(tail -n 5 "$vm_state/agent.log")"
		return 2
	}
}

# vm_agent_call METHOD SIGNATURE ARGS...: a call to vm_agent_start's agent.
vm_agent_call() {
	busctl --address="$VM_BUS_ADDRESS" call org.flexslot.Agent1 /org/flexslot/Agent1 \
		org.flexslot.Agent1 "$@"
}

# vm_agent_last_sample: when the agent last sampled (its LastSample, in
# microseconds; nothing if it does not answer).
vm_agent_last_sample() {
	busctl --address="$VM_BUS_ADDRESS" get-property org.flexslot.Agent1 /org/flexslot/Agent1 \
		org.flexslot.Agent1 LastSample 2>/dev/null | awk '{ print $2 }'
}

# vm_controller_start CONTROLLERD ADDRESS: the controller CONTROLLERD on the
# bus ADDRESS, whose agent is its one host, its PID in VM_CONTROLLER_PID. Its
# configuration, $vm_state/controller.ini, holds what every real-guest run
# shares: its store, trackers on the socket $vm_state/trackers with the
# token $vm_state/token (written here), quick heartbeats, the data
# directory $vm_state/data, and agent samples at most 2 s old; the caller's
# own keys, under section headers of their own, come on standard input.
# Returns 2, logged, when it does not start.
vm_controller_start() {
	echo "token" >"$vm_state/token"
	chmod 0600 "$vm_state/token"
	mkdir -p "$vm_state/data"
	{
		cat <<-EOF
			[controller]
			store = $vm_state/store.db
			[trackers]
			listen = unix:path=$vm_state/trackers
			token-file = $vm_state/token
			heartbeat-interval = 200ms
			lost-timeout = 2s
			[jobs]
			data-dir = $vm_state/data
			[agents]
			hosts = $2
			max-sample-age = 2s
		EOF
		cat
	} >"$vm_state/controller.ini"
	"$1" --config "$vm_state/controller.ini" --address "$2" >"$vm_state/controller.log" 2>&1 9>&- &
	VM_CONTROLLER_PID=$!
	vm_track "$VM_CONTROLLER_PID" flexslot-controllerd
	vm_poll 20 busctl --address="$2" status org.flexslot.Controller1 >/dev/null 2>&1 || {
		vm_log "the controller did not start: $(tail -n 5 "$vm_state/controller.log")"
		return 2
	}
}

# vm_pid_is PID NAME: PID is alive and NAME is in its command line.
vm_pid_is() {
	tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -q -- "$2"
}

# With the lock held (vm_lock), stops what runs that were killed (SIGKILL, a
# crash) left behind in their state directories: their QEMU, libvirtd, hog,
# bus and agent, each by its recorded PID after checking its command line.
# Users of this file name their state directories /tmp/flexslot-vm.*.
vm_reap_stale() {
	for _vr_dir in /tmp/flexslot-vm.*; do
		if [ ! -d "$_vr_dir" ] || [ "$_vr_dir" = "$vm_state" ]; then
			continue
		fi
		[ -f "$_vr_dir/libvirtd.pid" ] || [ -f "$_vr_dir/hog.pids" ] ||
			[ -f "$_vr_dir/pids" ] || continue
		vm_log "stopping what a killed run left in $_vr_dir"
		vm_teardown "$_vr_dir"
		rm -rf "$_vr_dir"
	done
}

# Stops everything: tracked processes (TERM, then KILL), the hog, libvirtd
# and its guests, of this run or of the run whose state directory is $1.
# Safe to call more than once.
vm_teardown() {
	_vt_dir=${1:-$vm_state}
	if [ -f "$_vt_dir/pids" ]; then
		while read -r _vt_pid _vt_name; do
			vm_pid_is "$_vt_pid" "$_vt_name" || continue
			kill -TERM "$_vt_pid" 2>/dev/null || continue
			_vt_n=0
			while kill -0 "$_vt_pid" 2>/dev/null && [ "$_vt_n" -lt 50 ]; do
				# Reaps it when it is our child (the shell reaps on wait).
				if wait "$_vt_pid" 2>/dev/null; then break; fi
				sleep 0.1
				_vt_n=$((_vt_n + 1))
			done
			if kill -0 "$_vt_pid" 2>/dev/null; then
				vm_log "$_vt_name ($_vt_pid) ignored TERM; killing it"
				kill -KILL "$_vt_pid" 2>/dev/null || true
				wait "$_vt_pid" 2>/dev/null || true
			fi
		done <"$_vt_dir/pids"
		rm -f "$_vt_dir/pids"
	fi
	"$vm_dir/hog.sh" stop "$_vt_dir" || true
	"$vm_dir/libvirtd.sh" stop "$_vt_dir" || true
}

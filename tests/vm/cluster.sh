# shellcheck shell=sh
# A flexslot cluster on real QEMU guests, for the tests, `make demo-vm` and
# the real-guest experiment (sourced, after lib.sh):
#
#   vm_dir=<srcdir>/tests/vm vm_state=$(mktemp -d /tmp/flexslot-vm.XXXXXX)
#   . "$vm_dir/lib.sh"; . "$vm_dir/cluster.sh"
#   vmc_traps                        teardown on exit, Ctrl-C and TERM
#   vmc_test_start NAME BUILD        a test's start: all of the below to its
#                                    first controller (see the function)
#   vm_lock 600                      the machine-wide lock of real-guest runs
#   vmc_setup BUILD                  guest images, private libvirtd, private
#                                    bus, flexslot-agentd on the libvirtd
#   vmc_controller_start RUN [POLICY_LINES]
#                                    flexslot-controllerd (POLICY_LINES go
#                                    into its [policy])
#   vmc_guest_start NAME VCPUS VCPUS_MAX MEM_MIB MAP REDUCE SLOT_MEM [PIN]
#   vmc_wait_registered TIMEOUT NAME...
#                                    every NAME's tracker registered, with
#                                    its domain's UUID
#   vmc_controller_stop              (trackers reconnect to the next one)
#   vmc_partition_take QEMU_PID SHARES
#                                    the guests' cpu cgroup partition its
#                                    weight; vmc_partition_quota CPUS caps it,
#                                    vmc_partition_restore puts both back
#
# Every process is started through vm_track and stopped by vm_teardown by
# PID (the guests with the private libvirtd); nothing outside vm_state and
# the caches of lib.sh changes on the machine. The controller listens for
# trackers on 127.0.0.1 at a free port, which the guests reach as
# 10.0.2.2 (QEMU's user network); the data directory $VMC_DATA is shared
# with every guest over 9p. Each guest gets the cluster token in an
# initramfs archive of its own, 0600 in the guest, never on the share or on
# the kernel command line (build-guest.sh).
#
# Settings (environment, read by vmc_setup and vmc_controller_start):
#   VMC_AGENT_INTERVAL   the agent's sampling interval (default 1s)
#   VMC_HEARTBEAT        the controller's heartbeat interval (default 500ms)
#   VMC_LOST_TIMEOUT     its lost-timeout (default 10s)
#   VMC_BLOCK_SIZE       its [jobs] block-size (default 1M)
#   VMC_HOST_CPUS        the CPUs the agent offers its VMs (default: online CPUs)
#   VMC_CPU_OVERCOMMIT   its [host] cpu-overcommit (default 3)
#   VMC_AGENT_LIMITS     more lines for the agent's [limits] (default none)
#   VMC_CALL_TIMEOUT     the trackers' call-timeout (default 10s; a busy
#                        host's TCG guests may need more)
# After vmc_setup: VMC_ADDRESS (the private bus), VMC_DATA, VMC_PORT, and
# vmc_ctl (flexslotctl on that bus).

: "${vm_dir:?source lib.sh first}" "${vm_state:?source lib.sh first}"
# shellcheck source=tests/lib/tcp-port.sh
. "$vm_dir/../lib/tcp-port.sh"

vmc_log() { echo "vm-cluster: $*" >&2; }

# vmc_traps [HOOK]: tears everything down on exit, also after Ctrl-C or
# TERM; HOOK (a function name) runs first, with the exit status in $1.
vmc_traps() {
	vmc_hook=${1:-}
	trap vmc_on_exit EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

vmc_on_exit() {
	_vx_rc=$?
	trap - EXIT INT TERM
	[ -z "${vmc_hook:-}" ] || "$vmc_hook" "$_vx_rc" || true
	vm_teardown 2>/dev/null
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$vm_state"
	exit "$_vx_rc"
}

# vmc_step WHAT: a test's progress line, with the seconds since boot.
vmc_step() { echo "== [$(awk '{ print $1 }' /proc/uptime)] $*"; }

# vmc_test_start NAME BUILD: how a real-guest test of tests/integration
# starts, once its VMC_* settings are set: it skips (tests/lib/verdict.sh)
# where the machine cannot run guests, tears everything down on exit and
# keeps a failed run's consoles, daemon logs and configurations in
# BUILD/integration/NAME.state, takes the lock, sets the cluster up with
# BUILD's programs and starts the controller of run "one".
vmc_test_start() {
	vmc_test_keep="$2/integration/$1.state"
	vmc_traps vmc_test_keep_state
	[ "$(id -u)" -eq 0 ] || skip "needs root to run libvirtd and QEMU guests"
	command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 is not installed"
	command -v libvirtd >/dev/null || skip "libvirtd is not installed"
	vm_lock 600 || fail "another real-guest test held the lock for 10 minutes"
	vmc_step "guest image, libvirtd, bus, agent"
	vmc_setup "$2" || {
		[ $? -eq 1 ] && skip "libvirtd does not start here: $(tail -n 3 "$vm_state/libvirtd.out" 2>/dev/null | tr '\n' ' ')"
		fail "cannot set up the cluster"
	}
	vmc_controller_start one || fail "the controller did not start"
}

vmc_test_keep_state() {
	[ "$1" -ne 0 ] && [ "$1" -ne 77 ] || return 0
	rm -rf "$vmc_test_keep"
	mkdir -p "$vmc_test_keep"
	cp "$vm_state"/*.console "$vm_state"/*.log "$vm_state"/*.ini "$vmc_test_keep/" 2>/dev/null || true
	echo "consoles and daemon logs kept in $vmc_test_keep" >&2
}

vmc_bus() { busctl --address="$VMC_ADDRESS" "$@"; }
vmc_ctl() { "$vmc_build/bin/flexslotctl" --address "$VMC_ADDRESS" "$@"; }
vmc_ctl_call() {
	vmc_bus call org.flexslot.Controller1 /org/flexslot/Controller1 org.flexslot.Controller1 "$@"
}

# vmc_setup BUILD: returns 1 if libvirtd cannot start here (a reason to
# skip), 2 for anything else.
vmc_setup() {
	vmc_build=$(cd "$1" && pwd)
	mkdir -p "$vm_state"
	_vs_out=$("$vm_dir/build-guest.sh" --tracker "$vmc_build") || {
		vm_log "cannot build the guest"
		return 2
	}
	VM_KERNEL=$(echo "$_vs_out" | sed -n 's/^KERNEL=//p')
	VM_INITRD=$(echo "$_vs_out" | sed -n 's/^INITRD=//p')
	vmc_layer=$(echo "$_vs_out" | sed -n 's/^TRACKER=//p')
	VM_URI=$("$vm_dir/libvirtd.sh" start "$vm_state") || return 1
	export VM_URI VM_KERNEL VM_INITRD

	VMC_DATA="$vm_state/data"
	mkdir -p "$VMC_DATA"
	# The token: root's only on the host, never in the shared directory.
	(umask 077 && head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$vm_state/token")

	# Limits that let the allocators' targets through at a demo's pace: a
	# guest has 1..VCPUS_MAX vCPUs and is never ballooned below 128 MiB.
	# These guests oversubscribe the host's cores by design (three busy
	# vCPUs on two cores make the steal), so vCPUs may be overcommitted
	# threefold: else the agent refuses every vCPU a VM allocator adds.
	vm_agent_start "$vmc_build/bin/flexslot-agentd" "${VMC_AGENT_INTERVAL:-1s}" <<-EOF || return 2
		[host]
		cpus = ${VMC_HOST_CPUS:-$(getconf _NPROCESSORS_ONLN)}
		cpu-overcommit = ${VMC_CPU_OVERCOMMIT:-3}
		memory = 4G
		[limits]
		min-memory = 128M
		max-memory = 2G
		max-memory-step = 256M
		max-cpu-weight = 8192
		min-cpu-cap = 0.05
		min-interval = 2s
		${VMC_AGENT_LIMITS:-}
	EOF
	VMC_ADDRESS=$VM_BUS_ADDRESS
	VMC_PORT=$(free_tcp_port) || return 2
	export VMC_ADDRESS VMC_DATA VMC_PORT
}

# vmc_controller_start RUN [POLICY_LINES]: a controller with its own
# configuration and store (controller-RUN.ini, store-RUN.db, its log
# controller-RUN.log, at debug level: what FlexSlot decided is logged
# there).
vmc_controller_start() {
	cat >"$vm_state/controller-$1.ini" <<-EOF
		[controller]
		store = $vm_state/store-$1.db
		[trackers]
		listen = tcp:host=127.0.0.1,port=$VMC_PORT
		token-file = $vm_state/token
		heartbeat-interval = ${VMC_HEARTBEAT:-500ms}
		lost-timeout = ${VMC_LOST_TIMEOUT:-10s}
		[jobs]
		data-dir = $VMC_DATA
		block-size = ${VMC_BLOCK_SIZE:-1M}
		[agents]
		hosts = $VMC_ADDRESS
		call-timeout = 5s
		[policy]
		${2:-}
	EOF
	"$vmc_build/bin/flexslot-controllerd" --config "$vm_state/controller-$1.ini" \
		--address "$VMC_ADDRESS" --log-level=debug >"$vm_state/controller-$1.log" 2>&1 9>&- &
	vmc_controller_pid=$!
	vm_track "$vmc_controller_pid" flexslot-controllerd
	vm_poll 20 vmc_bus status org.flexslot.Controller1 >/dev/null 2>&1 || {
		vm_log "the controller did not start: $(tail -n 5 "$vm_state/controller-$1.log")"
		return 1
	}
}

vmc_controller_stop() {
	kill -TERM "$vmc_controller_pid" 2>/dev/null || return 0
	wait "$vmc_controller_pid" 2>/dev/null || true
}

# vmc_guest_initrd NAME MAP REDUCE SLOT_MEM: the guest's own initramfs
# archive (its tracker.ini, and the token, root's only), and the guest's
# initrd, the three archives in a row, root's only on the host too.
vmc_guest_initrd() {
	_vg_dir="$vm_state/layer-$1"
	rm -rf "$_vg_dir"
	mkdir -p "$_vg_dir/etc/flexslot"
	cat >"$_vg_dir/etc/flexslot/tracker.ini" <<-EOF
		[tracker]
		controller = tcp:host=10.0.2.2,port=$VMC_PORT
		token-file = /etc/flexslot/cluster-token
		data-dir = /data
		work-dir = /var/tmp
		task-program = /bin/flexslot-task
		hostname = $1
		[slots]
		map-slots = $2
		reduce-slots = $3
		slot-memory = $4
		[connection]
		reconnect-max = 2s
		call-timeout = ${VMC_CALL_TIMEOUT:-10s}
	EOF
	chmod 0755 "$_vg_dir" "$_vg_dir/etc" "$_vg_dir/etc/flexslot"
	chmod 0644 "$_vg_dir/etc/flexslot/tracker.ini"
	(umask 077 && cp "$vm_state/token" "$_vg_dir/etc/flexslot/cluster-token")
	(cd "$_vg_dir" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet |
		gzip -1 >"$vm_state/layer-$1.cpio.gz")
	rm -rf "$_vg_dir"
	(umask 077 && cat "$VM_INITRD" "$vmc_layer" "$vm_state/layer-$1.cpio.gz" \
		>"$vm_state/$1.initrd")
	rm -f "$vm_state/layer-$1.cpio.gz"
}

# vmc_guest_start NAME VCPUS VCPUS_MAX MEM_MIB MAP REDUCE SLOT_MEM [PIN]:
# creates the guest, which boots and starts its tracker by itself.
vmc_guest_start() {
	vmc_guest_initrd "$1" "$5" "$6" "$7"
	rm -f "$vm_state/$1.console"
	GUEST_VCPUS=$2 GUEST_SHARE=$VMC_DATA GUEST_NET=user \
		"$vm_dir/guest-xml.sh" "$1" "$VM_KERNEL" "$vm_state/$1.initrd" \
		"$vm_state/$1.console" "$4" "$3" 0 "$(vm_accel)" "${8:-}" >"$vm_state/$1.xml" || return 1
	vm_virsh create "$vm_state/$1.xml" >/dev/null
}

# vmc_partition_take QEMU_PID SHARES: the cpu cgroup (v1) partition of
# libvirt's /machine that holds the guest of QEMU_PID, and every guest, gets
# cpu.shares SHARES. Under cgroup v1 the partition competes with each
# process of the root cgroup as one of them (cpu.shares 1024), so on a
# machine where other work keeps many processes busy the guests together
# got a few percent of a CPU and did not boot in minutes. What it had is
# kept for vmc_partition_restore (call it on exit); VMC_PARTITION is its
# directory. Returns 1 without a cgroup v1 cpu controller.
vmc_partition_take() {
	_vp_part=$(awk -F: '$2 ~ /(^|,)cpu(,|$)/ { split($3, p, "/"); print p[2]; exit }' \
		"/proc/$1/cgroup")
	VMC_PARTITION=/sys/fs/cgroup/cpu/$_vp_part
	if [ -z "$_vp_part" ] || [ ! -f "$VMC_PARTITION/cpu.cfs_quota_us" ]; then
		VMC_PARTITION=""
		vm_log "cannot find the guests' cpu cgroup partition (cgroup v1 cpu controller)"
		return 1
	fi
	for _vp_f in cfs_quota_us cfs_period_us shares; do
		cat "$VMC_PARTITION/cpu.$_vp_f" >"$vm_state/partition.$_vp_f"
	done
	echo "$2" >"$VMC_PARTITION/cpu.shares"
}

# vmc_partition_quota CPUS: the guests together get CPUS host CPUs at most
# (a CFS quota on the partition).
vmc_partition_quota() {
	echo 100000 >"$VMC_PARTITION/cpu.cfs_period_us"
	awk -v p="$1" 'BEGIN { printf "%d\n", p * 100000 }' >"$VMC_PARTITION/cpu.cfs_quota_us"
}

vmc_partition_restore() {
	[ -n "${VMC_PARTITION:-}" ] || return 0
	for _vp_f in cfs_quota_us cfs_period_us shares; do
		[ ! -f "$vm_state/partition.$_vp_f" ] ||
			cat "$vm_state/partition.$_vp_f" >"$VMC_PARTITION/cpu.$_vp_f" 2>/dev/null || true
	done
}

# "ID UUID STATE" of the node whose hostname is NAME, from ListNodes.
vmc_node() {
	vmc_ctl nodes --no-legend 2>/dev/null | awk -F'\t' -v h="$1" '$2 == h { print $1, $3, $4 }'
}

vmc_registered() {
	# shellcheck disable=SC2046 # three words
	set -- "$1" $(vmc_node "$1")
	[ "${4:-}" = alive ]
}

# vmc_wait_registered TIMEOUT NAME...: waits until each guest's tracker is
# an alive node, then checks that its VM UUID is its domain's (virsh
# domuuid) and that its guest read the same UUID from SMBIOS. Sets
# VMC_REGISTER_MS: the wait.
vmc_wait_registered() {
	_vw_timeout=$1
	_vw_t0=$(vm_now_ms)
	shift
	for _vw_name in "$@"; do
		if ! vm_poll "$_vw_timeout" vmc_registered "$_vw_name"; then
			vm_log "$_vw_name's tracker did not register within ${_vw_timeout}s; its console:"
			grep -a 'FLEXSLOT' "$vm_state/$_vw_name.console" | tail -n 15 >&2
			return 1
		fi
		# shellcheck disable=SC2046 # three words
		set -- $(vmc_node "$_vw_name") "$@"
		_vw_uuid=$(vm_virsh domuuid "$_vw_name")
		if [ "$2" != "$_vw_uuid" ]; then
			vm_log "$_vw_name registered as VM $2, but its domain is $_vw_uuid"
			return 1
		fi
		shift 3
	done
	VMC_REGISTER_MS=$(($(vm_now_ms) - _vw_t0))
	export VMC_REGISTER_MS
}

# vmc_tracker_log NAME: the tracker's log lines from the guest's console.
vmc_tracker_log() {
	# (The guest shell's prompt may share the first line.)
	tr -d '\r' <"$vm_state/$1.console" 2>/dev/null |
		sed -n 's/^.*FLEXSLOT-TRACKER \[\([0-9.]*\)\] /[\1] /p'
}

# vmc_job_state JOB: "STATE MAPS MAPS_DONE REDUCES REDUCES_DONE".
vmc_job_state() {
	vmc_ctl list --no-legend 2>/dev/null |
		awk -F'\t' -v j="$1" '$1 == j { print $2, $7, $9, $8, $10 }'
}

# vmc_job_wait JOB TIMEOUT [PROGRESS]: waits until the job ends, calling
# the function PROGRESS every 5 s with its state's words; sets VMC_JOB_MS
# (from the call) and VMC_JOB_STATE. Returns 1 unless it succeeded.
vmc_job_wait() {
	_vj_t0=$(vm_now_ms)
	_vj_next=0
	while :; do
		_vj_st=$(vmc_job_state "$1")
		_vj_ms=$(($(vm_now_ms) - _vj_t0))
		case ${_vj_st%% *} in
		running | queued | '') ;;
		*) break ;;
		esac
		if [ "$_vj_ms" -ge $(($2 * 1000)) ]; then
			vm_log "job $1 did not end within $2 s: $_vj_st"
			VMC_JOB_STATE=timeout
			return 1
		fi
		if [ -n "${3:-}" ] && [ "$_vj_ms" -ge "$_vj_next" ]; then
			# shellcheck disable=SC2086 # the state's words
			"$3" "$_vj_ms" $_vj_st
			_vj_next=$((_vj_ms + 5000))
		fi
		sleep 0.2
	done
	VMC_JOB_MS=$_vj_ms
	VMC_JOB_STATE=${_vj_st%% *}
	export VMC_JOB_MS VMC_JOB_STATE
	[ "$VMC_JOB_STATE" = succeeded ]
}

# shellcheck shell=sh
# The start the demos on real guests share (make demo-vm, make vmexp, make
# slo-live), sourced once a demo has read its arguments, with demo (its
# name in messages), build and src set: cannot, a stop where this machine
# cannot run guests, the C locale, the kit's lib.sh and cluster.sh on a
# state directory of its own (vm_state) torn down on exit, Ctrl-C included
# (the guests' partition gets its quota and weight back; KEEP_TMP=1 keeps
# the directory), the dataset's helpers, secs, demo_tcg_cluster_setup and
# demo_inputs.

: "${demo:?set demo before sourcing guest-demo.sh}" "${build:?set build before sourcing guest-demo.sh}" \
	"${src:?set src before sourcing guest-demo.sh}"

# cannot WHY: the demo stops, saying why.
cannot() {
	echo "$demo: $*" >&2
	exit 1
}
[ "$(id -u)" -eq 0 ] || cannot "needs root: it runs a private libvirtd and QEMU guests"
command -v qemu-system-x86_64 >/dev/null || cannot "qemu-system-x86_64 is not installed (packaging/deps.sh --test)"
command -v libvirtd >/dev/null || cannot "libvirtd is not installed (packaging/deps.sh --test)"
export LC_ALL=C

vm_dir="$src/tests/vm"
vm_state=$(mktemp -d /tmp/flexslot-vm.XXXXXX)
# shellcheck source=tests/vm/lib.sh
. "$vm_dir/lib.sh"
# shellcheck source=tests/vm/cluster.sh
. "$vm_dir/cluster.sh"
# shellcheck source=tests/lib/dataset.sh
. "$src/tests/lib/dataset.sh"
demo_on_exit() {
	vmc_partition_restore
	[ -z "${KEEP_TMP:-}" ] || echo "consoles, logs and data: $vm_state"
}
vmc_traps demo_on_exit

# secs MS: MS milliseconds in seconds, to a tenth.
secs() { awk -v ms="$1" 'BEGIN { printf "%.1f", ms / 1000 }'; }

# demo_tcg_cluster_setup BLOCK: cluster.sh's host side (vmc_setup) for a
# long run of TCG guests on a busy host, in splits of BLOCK: samples every
# 2 s, and a tracker's call-timeout (30 s) and lost-timeout (60 s) that
# slow guests' heartbeats stay within. The demo exports its own VMC_*
# settings first; the data directory is then in data.
demo_tcg_cluster_setup() {
	echo "== guest image, private libvirtd, bus, flexslot-agentd"
	VMC_AGENT_INTERVAL=2s
	VMC_BLOCK_SIZE=$1
	VMC_LOST_TIMEOUT=60s
	VMC_CALL_TIMEOUT=30s
	export VMC_AGENT_INTERVAL VMC_BLOCK_SIZE VMC_LOST_TIMEOUT VMC_CALL_TIMEOUT
	vmc_setup "$build" || cannot "cannot start the cluster's host side (see the messages above)"
	# shellcheck disable=SC2034 # the demo's
	data=$VMC_DATA
}

# demo_inputs: every file of $data/in as a job names it (in/NAME), in
# inputs.
demo_inputs() {
	inputs=""
	for _di_f in "$data"/in/*; do
		inputs="$inputs in/${_di_f##*/}"
	done
}

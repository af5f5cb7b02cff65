# shellcheck shell=sh
# The start a real-guest test of tests/integration on a cluster shares
# (sourced, with srcdir set): its verdicts and the dataset, the C locale,
# the kit's lib.sh and cluster.sh on a state directory of its own
# (vm_state). The test then sets its VMC_* settings and calls
# vmc_test_start (cluster.sh).

: "${srcdir:?set srcdir first}"
# shellcheck source=tests/lib/verdict.sh
. "$srcdir/tests/lib/verdict.sh"
# shellcheck source=tests/lib/dataset.sh
. "$srcdir/tests/lib/dataset.sh"
export LC_ALL=C

vm_dir="$srcdir/tests/vm"
vm_state=$(mktemp -d /tmp/flexslot-vm.XXXXXX)
# shellcheck source=tests/vm/lib.sh
. "$vm_dir/lib.sh"
# shellcheck source=tests/vm/cluster.sh
. "$vm_dir/cluster.sh"

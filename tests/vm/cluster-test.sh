# shellcheck shell=sh
# The start a real-guest test of tests/integration on a cluster shares
# (sourced, as make check runs it): srcdir and build from the runner, the
# verdicts and the dataset, the C locale, the kit's lib.sh and cluster.sh
# on a state directory of its own (vm_state). The test then sets its VMC_*
# settings and calls vmc_test_start (cluster.sh).

srcdir=${FLEXSLOT_SRCDIR:?run through make check}
# shellcheck disable=SC2034 # the test's, for vmc_test_start
build=${FLEXSLOT_BUILD:?run through make check}
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

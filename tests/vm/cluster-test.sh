# shellcheck shell=sh
# The start a real-guest test of tests/integration on a cluster shares
# (sourced, as make check runs it): guest-test.sh's (srcdir and build, the
# verdicts, the skips, the kit's lib.sh on a state directory of its own),
# the dataset, the C locale and cluster.sh. The test then sets its VMC_*
# settings and calls vmc_test_start (cluster.sh).

# shellcheck source=tests/vm/guest-test.sh
. "${FLEXSLOT_SRCDIR:?run through make check}/tests/vm/guest-test.sh"
# shellcheck source=tests/lib/dataset.sh
. "$srcdir/tests/lib/dataset.sh"
export LC_ALL=C

# shellcheck source=tests/vm/cluster.sh
. "$vm_dir/cluster.sh"

# shellcheck shell=sh
# The start every real-guest test of tests/integration shares (sourced, as
# make check runs it): srcdir and build from the runner, the verdicts, a
# skip where this machine runs no guest (not root, no QEMU, no libvirtd), a
# failure naming a tool of the kit's or the tests' that is missing, and the
# kit's lib.sh on a state directory of its own (vm_state), and
# guest_test_setup. cluster-test.sh builds on it.

srcdir=${FLEXSLOT_SRCDIR:?run through make check}
# shellcheck disable=SC2034 # the test's
build=${FLEXSLOT_BUILD:?run through make check}
# shellcheck source=tests/lib/verdict.sh
. "$srcdir/tests/lib/verdict.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root to run libvirtd and QEMU guests"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 is not installed"
command -v libvirtd >/dev/null || skip "libvirtd is not installed"

for t in virsh unshare busybox cpio dbus-daemon busctl mkfifo; do
	command -v "$t" >/dev/null || fail "$t is missing (packaging/deps.sh installs it)"
done

vm_dir="$srcdir/tests/vm"
vm_state=$(mktemp -d /tmp/flexslot-vm.XXXXXX)
# shellcheck source=tests/vm/lib.sh
. "$vm_dir/lib.sh"

# guest_test_setup: vm_setup for a test, once it holds vm_lock: a skip
# where libvirtd does not start here, a failure for anything else.
guest_test_setup() {
	vm_setup && return 0
	[ $? -eq 1 ] && skip "libvirtd does not start here: $(tail -n 3 "$vm_state/libvirtd.out" 2>/dev/null | tr '\n' ' ')"
	fail "cannot build the test guest"
}

#!/bin/sh
# Installs the Debian packages flexslot needs to build and test, including
# what the real-guest tests need (libvirtd, QEMU, busybox, cpio) and the
# SSH test (sshd).
# Does nothing when everything is present; as root it installs what is missing
# with apt-get; otherwise it prints the exact command to run and fails.
#
#   packaging/deps.sh            everything to build and test
#   packaging/deps.sh --build    only what building needs
#   packaging/deps.sh --lint     what `make lint` and `make format` run
#   packaging/deps.sh --yarn     what the YARN tests and `make demo-yarn` run
set -eu

# python3 runs the agent tests' stand-ins for a hung or frozen libvirtd;
# gnuplot-nox draws the simulator's charts; the controller's YARN driver
# speaks HTTP with libcurl and reads JSON with json-c (controller/yarn/).
build_pkgs="gcc make pkg-config libvirt-dev libsystemd-dev libinih-dev check \
libsqlite3-dev dbus systemd libvirt-clients gnuplot-nox python3 \
libcurl4-openssl-dev libjson-c-dev"
vm_pkgs="libvirt-daemon libvirt-daemon-system libvirt-daemon-driver-qemu \
qemu-system-x86 busybox-static cpio"
# The controller's agents over SSH (tests/integration/controller-ssh.sh)
# run a real sshd and ssh.
ssh_pkgs="openssh-server openssh-client"
# The YARN tests and `make demo-yarn` run a real YARN (tests/yarn/lib.sh):
# Hadoop's MiniMRYarnCluster on the JDK, its jars fetched by Maven; curl
# and python3 read its REST API in the tests.
yarn_pkgs="default-jdk-headless maven curl"
# Not in the default set: LLVM is large, and building and testing need none.
lint_pkgs="cppcheck clang-tidy clang-format"

want="$build_pkgs $vm_pkgs $ssh_pkgs $yarn_pkgs"
case "${1:-}" in
--build) want="$build_pkgs" ;;
--lint) want="$lint_pkgs" ;;
--yarn) want="$yarn_pkgs" ;;
"") ;;
*)
	echo "usage: $0 [--build | --lint | --yarn]" >&2
	exit 2
	;;
esac

missing=""
for p in $want; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$status" = "installed" ] || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "flexslot: missing packages:$missing" >&2
	echo "flexslot: install them with: sudo apt-get install -y --no-install-recommends$missing" >&2
	exit 1
fi

echo "flexslot: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has empty package lists; an old list can name vanished versions.
apt-get update -qq >&2
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >&2

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
#   packaging/deps.sh --fuzz     what `make fuzz` builds with (clang, libFuzzer)
#   packaging/deps.sh --yarn     what the YARN tests and `make demo-yarn` run
#   packaging/deps.sh --deb      what `make deb` and its test add: Debian's
#                                packaging tools and a clean root to install into
#   packaging/deps.sh --list ... prints the set's names, installs nothing
#
# Every program a test, a demo or a benchmark runs comes from a package named
# here, or from Debian's minbase (coreutils, util-linux, mawk, sed, grep,
# findutils, diffutils, dpkg, apt, ...), never from whatever else a machine
# happens to have: tools/fresh-machine.sh checks it on a minimal root.
set -eu

list=false
if [ "${1:-}" = --list ]; then
	list=true
	shift
fi

# What compiling needs (check: the suites are built with everything); less
# gcc, binutils and make (build-essential's), debian/control's Build-Depends.
# binutils: the Makefile runs ar for the static libraries. The controller's
# YARN driver speaks HTTP with libcurl and reads JSON with json-c
# (controller/yarn/).
build_pkgs="gcc binutils make pkg-config libvirt-dev libsystemd-dev libinih-dev \
check libsqlite3-dev libcurl4-openssl-dev libjson-c-dev"
# What the tests and demos run besides the build: dbus-daemon for the private
# buses, dbus for the system bus's configuration (install.sh), systemd for
# busctl, systemd-sysusers and systemd-stdio-bridge, libvirt-clients for
# virsh; gnuplot-nox draws the simulator's charts;
# python3 runs the agent tests' stand-ins for a hung or frozen libvirtd and
# checks JSON output; man-db renders the installed man pages
# (tests/integration/install-sim.sh); procps's ps names a process a test
# finds still running.
test_pkgs="dbus-daemon dbus systemd libvirt-clients gnuplot-nox python3 man-db procps"
vm_pkgs="libvirt-daemon libvirt-daemon-system libvirt-daemon-driver-qemu \
qemu-system-x86 busybox-static cpio"
# The controller's agents over SSH (tests/integration/controller-ssh.sh)
# run a real sshd and ssh.
ssh_pkgs="openssh-server openssh-client"
# The YARN tests and `make demo-yarn` run a real YARN (tests/yarn/lib.sh):
# Hadoop's MiniMRYarnCluster on Java 17 (javac from the JDK, java from the
# runtime, both named: the tests run them; lib.sh's --add-opens are 17's),
# its jars fetched by Maven; curl and python3 read its REST API in the tests.
yarn_pkgs="openjdk-17-jdk-headless openjdk-17-jre-headless maven curl"
# Not in the default set: LLVM is large, and building and testing need none.
lint_pkgs="cppcheck clang-tidy clang-format"
# libFuzzer comes with clang's runtime libraries.
fuzz_pkgs="clang libclang-rt-dev"
# Not in the default set either: `make deb` builds with debhelper (and the
# build set above, its Build-Depends) and checks with lintian;
# tests/integration/deb.sh installs the packages into a debootstrap root.
deb_pkgs="build-essential dpkg-dev debhelper lintian debootstrap"

want="$build_pkgs $test_pkgs $vm_pkgs $ssh_pkgs $yarn_pkgs"
case "${1:-}" in
--build) want="$build_pkgs" ;;
--lint) want="$lint_pkgs" ;;
--yarn) want="$yarn_pkgs" ;;
--fuzz) want="$fuzz_pkgs" ;;
--deb) want="$deb_pkgs" ;;
"") ;;
*)
	echo "usage: $0 [--list] [--build | --lint | --yarn | --fuzz | --deb]" >&2
	exit 2
	;;
esac
if $list; then
	# shellcheck disable=SC2086 # a name a line
	printf '%s\n' $want
	exit 0
fi

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

#!/bin/sh
# Builds the tiny test guest: a Debian kernel (taken only from Debian's package
# archive with apt-get download) and a busybox-static initramfs whose /init
# loads the virtio modules, onlines hot-added CPUs and can keep vCPUs busy;
# and, on request, the layer that makes such a guest a flexslot worker.
#
#   tests/vm/build-guest.sh            build (or reuse) and print two lines:
#                                        KERNEL=/path/vmlinuz
#                                        INITRD=/path/initrd.gz
#   tests/vm/build-guest.sh --tracker BUILD
#                                      the same, and a third line:
#                                        TRACKER=BUILD/vm/tracker.cpio.gz
#   tests/vm/build-guest.sh --guest-agent
#                                      the same, and a third line:
#                                        GUEST_AGENT=/path/guest-agent.cpio.gz
#
# The kernel and base initramfs are cached in $FLEXSLOT_VM_CACHE (default
# /var/cache/flexslot/vm), in a directory of this script's version, and
# rebuilt only when this script changes; once built, no network is needed.
#
# The tracker layer is a second initramfs archive, which the kernel unpacks
# over the first when the two are concatenated: BUILD/bin/flexslot-tracker
# and flexslot-task, every shared library ldd names for them, and
# /etc/flexslot/guest-role, which the base /init runs. It lives in the build
# tree, next to the binaries it holds, and is rebuilt when they, their
# libraries or this script change. A guest's own settings come in a third
# archive (tests/vm/cluster.sh): /etc/flexslot/tracker.ini and the cluster
# token, /etc/flexslot/cluster-token, root's only (0600). The token is thus
# neither on the shared data directory, where every guest's tasks could
# read it, nor on the kernel command line, which /proc/cmdline shows to
# every process of the guest.
#
# The guest agent layer is another archive to unpack over the base: QEMU's
# guest agent, qemu-ga, from Debian's qemu-guest-agent package (apt-get
# download, as the kernel) with every shared library ldd names for it,
# which the base /init starts on the virtio-serial port named
# org.qemu.guest_agent.0 when the domain has that channel
# (guest-xml.sh's GUEST_AGENT=1). Cached beside the guest.
#
# Kernel command line words the guest's /init understands:
#   flexslot.busy=N   run N busy loops (0 = idle; default 0)
#   flexslot.online=0 leave hot-added CPUs offline (default: online them)
# It prints these console lines (ttyS0), which tests wait for:
#   FLEXSLOT-GUEST-READY cpus=N     modules loaded, init done
#   FLEXSLOT-CPU-ONLINE cpuN        a hot-added CPU was onlined
#   FLEXSLOT-BALLOON ok|missing     whether virtio_balloon is bound
#   FLEXSLOT-GUEST-AGENT started pid=N   (with the guest agent layer and
#                                   its channel) qemu-ga runs
# and, with the tracker layer, before FLEXSLOT-GUEST-READY:
#   FLEXSLOT-NET ok|failed          10.0.2.15/24 via 10.0.2.2 (QEMU's user
#                                   network: 10.0.2.2 is the host's loopback)
#   FLEXSLOT-DATA ok|failed         the 9p share "data" on /data
#   FLEXSLOT-CGROUP2 ok|failed      cgroup2 on /sys/fs/cgroup, so that slot
#                                   memory limits are memory cgroups
#   FLEXSLOT-TRACKER started pid=N  then the tracker's log lines, each as
#   FLEXSLOT-TRACKER [UPTIME] LINE
set -eu

# Loaded by every guest, in this order (each needs the ones before it);
# virtio_console is the virtio-serial ports a guest agent listens on.
modules="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci virtio_balloon virtio_console"
# Loaded by the tracker role: the network (user-mode, virtio) and 9p.
tracker_modules="failover net_failover virtio_net netfs fscache 9pnet 9pnet_virtio 9p"

tracker_build=""
guest_agent=no
case ${1:-} in
--guest-agent)
	[ $# -eq 1 ] || {
		echo "usage: $0 [--tracker BUILD | --guest-agent]" >&2
		exit 2
	}
	guest_agent=yes
	;;
--tracker)
	[ $# -eq 2 ] || {
		echo "usage: $0 [--tracker BUILD | --guest-agent]" >&2
		exit 2
	}
	tracker_build=$(cd "$2" 2>/dev/null && pwd) || {
		echo "$0: no build directory $2" >&2
		exit 2
	}
	;;
"") ;;
*)
	echo "usage: $0 [--tracker BUILD | --guest-agent]" >&2
	exit 2
	;;
esac

cache=${FLEXSLOT_VM_CACHE:-/var/cache/flexslot/vm}
self=$(command -v "$0" 2>/dev/null || echo "$0")
script_sum=$(sha256sum "$self" | cut -c1-16)

msg() { echo "build-guest: $*" >&2; }
die() {
	msg "$*"
	exit 1
}

mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
# One directory per version of this script: checkouts of other versions on
# the machine share the cache without rebuilding each other's guest.
guest="$cache/guest-$script_sum"

# The shared libraries of programs $@ as ldd resolves them, the loader too.
libraries_of() {
	ldd "$@" 2>/dev/null | sed -n 's/^[^/]*\(\/[^ ]*\) (0x[0-9a-f]*)$/\1/p' | LC_ALL=C sort -u
}

# The tracker layer (--tracker): printed as TRACKER=PATH, built when the
# binaries, their libraries or this script changed since the last build.
tracker_layer() {
	[ -n "$tracker_build" ] || return 0
	bin="$tracker_build/bin"
	for p in flexslot-tracker flexslot-task; do
		[ -x "$bin/$p" ] || die "$bin/$p is not built (make)"
	done
	libs=$(libraries_of "$bin/flexslot-tracker" "$bin/flexslot-task")
	[ -n "$libs" ] || die "ldd names no libraries for $bin/flexslot-tracker"
	out="$tracker_build/vm"
	# shellcheck disable=SC2086 # the libraries, one argument each
	sum=$( (echo "$script_sum" && sha256sum "$bin/flexslot-tracker" "$bin/flexslot-task" $libs) |
		sha256sum | cut -c1-16)
	if [ -f "$out/tracker.stamp" ] && [ "$(cat "$out/tracker.stamp")" = "$sum" ] &&
		[ -f "$out/tracker.cpio.gz" ]; then
		echo "TRACKER=$out/tracker.cpio.gz"
		return 0
	fi
	mkdir -p "$out"
	lwork="$out/tracker.tmp.$$"
	rm -rf "$lwork"
	mkdir -p "$lwork/bin" "$lwork/etc/flexslot" "$lwork/data" "$lwork/var/tmp"
	cp "$bin/flexslot-tracker" "$bin/flexslot-task" "$lwork/bin/"
	for l in $libs; do
		mkdir -p "$lwork$(dirname "$l")"
		cp -L "$l" "$lwork$l"
	done
	echo "$tracker_modules" >"$lwork/etc/flexslot/modules"
	# The user the tracker runs tasks as ([tasks] task-user's default), as
	# packaging/flexslot.sysusers makes it on a host; the work directory
	# is theirs to write in, as /var/tmp is anywhere.
	printf 'root:x:0:0:root:/root:/bin/sh\nflexslot-task:x:996:996:flexslot tasks:/nonexistent:/bin/false\n' \
		>"$lwork/etc/passwd"
	printf 'root:x:0:\nflexslot-task:x:996:\n' >"$lwork/etc/group"
	chmod 1777 "$lwork/var/tmp"
	cat >"$lwork/etc/flexslot/guest-role" <<'ROLE'
# The flexslot worker role, sourced by the base /init (tests/vm/build-guest.sh).
for m in $(cat /etc/flexslot/modules); do
	insmod /lib/modules/$m.ko || echo "FLEXSLOT-INSMOD-FAILED $m"
done
ip link set lo up
# QEMU's user network: the guest is 10.0.2.15, 10.0.2.2 is the host.
if ip addr add 10.0.2.15/24 dev eth0 && ip link set eth0 up &&
	ip route add default via 10.0.2.2; then
	echo "FLEXSLOT-NET ok"
else
	echo "FLEXSLOT-NET failed"
fi
if mount -t 9p -o trans=virtio,version=9p2000.L data /data; then
	echo "FLEXSLOT-DATA ok"
else
	echo "FLEXSLOT-DATA failed"
fi
# Without cgroup2 a task's slot memory is only an address-space limit.
if mount -t cgroup2 none /sys/fs/cgroup; then
	echo "FLEXSLOT-CGROUP2 ok"
else
	echo "FLEXSLOT-CGROUP2 failed"
fi
# Each line of the tracker's log on the console, with the guest's uptime.
(
	/bin/flexslot-tracker --config /etc/flexslot/tracker.ini 2>&1
	echo "exited with status $?"
) | while IFS= read -r line; do
	read -r up _ </proc/uptime
	echo "FLEXSLOT-TRACKER [$up] $line"
done &
echo "FLEXSLOT-TRACKER started pid=$!"
ROLE
	(cd "$lwork" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -6) \
		>"$lwork.cpio.gz" || die "cannot pack the tracker layer"
	rm -rf "$lwork"
	mv "$lwork.cpio.gz" "$out/tracker.cpio.gz"
	echo "$sum" >"$out/tracker.stamp"
	msg "built the tracker layer of $bin in $out ($(wc -c <"$out/tracker.cpio.gz") bytes)"
	echo "TRACKER=$out/tracker.cpio.gz"
}

# The package's newest .deb in the cache, else downloaded from Debian's
# archive (updating old package lists once if the archive lacks the
# version they name); its path.
fetch_deb() {
	_fd=$(find "$debdir" -maxdepth 1 -name "${1}_*_amd64.deb" | sort | tail -n1)
	if [ -z "$_fd" ]; then
		msg "downloading $1 from the Debian archive"
		(cd "$debdir" && apt-get download -q -o APT::Sandbox::User=root "$1" >&2) || return 1
		_fd=$(find "$debdir" -maxdepth 1 -name "${1}_*_amd64.deb" | sort | tail -n1)
	fi
	[ -n "$_fd" ] && echo "$_fd"
}

# The guest agent layer (--guest-agent): printed as GUEST_AGENT=PATH, built
# once per version of this script.
guest_agent_layer() {
	[ "$guest_agent" = yes ] || return 0
	out="$cache/qga-$script_sum"
	if [ -f "$out/guest-agent.cpio.gz" ]; then
		echo "GUEST_AGENT=$out/guest-agent.cpio.gz"
		return 0
	fi
	gdeb=$(fetch_deb qemu-guest-agent) || {
		[ "$(id -u)" -eq 0 ] || die "apt-get download qemu-guest-agent failed"
		apt-get update -qq >&2 || true
		gdeb=$(fetch_deb qemu-guest-agent) || die "apt-get download qemu-guest-agent failed"
	}
	gwork="$cache/guest-agent.tmp.$$"
	rm -rf "$gwork"
	mkdir -p "$gwork/pkg" "$gwork/root/usr/sbin" "$gwork/root/etc/flexslot" "$gwork/root/var/run"
	dpkg-deb --fsys-tarfile "$gdeb" | tar -x -C "$gwork/pkg" ./usr/sbin/qemu-ga ||
		die "$gdeb has no usr/sbin/qemu-ga"
	cp "$gwork/pkg/usr/sbin/qemu-ga" "$gwork/root/usr/sbin/"
	# Its libraries as this machine has them: Debian's own, of the same
	# release as the package (qemu-system-x86, which packaging/deps.sh
	# installs for these tests, needs the same ones).
	libs=$(libraries_of "$gwork/pkg/usr/sbin/qemu-ga")
	[ -n "$libs" ] || die "ldd names no libraries for qemu-ga (are its dependencies installed?)"
	ldd "$gwork/pkg/usr/sbin/qemu-ga" | grep -q "not found" &&
		die "qemu-ga needs libraries this machine lacks: $(ldd "$gwork/pkg/usr/sbin/qemu-ga" | grep "not found")"
	for l in $libs; do
		mkdir -p "$gwork/root$(dirname "$l")"
		cp -L "$l" "$gwork/root$l"
	done
	cat >"$gwork/root/etc/flexslot/guest-agent" <<'AGENT'
# The QEMU guest agent, sourced by the base /init (tests/vm/build-guest.sh):
# on the virtio-serial port libvirt names after the domain's channel.
for p in /sys/class/virtio-ports/vport*; do
	[ "$(cat "$p/name" 2>/dev/null)" = org.qemu.guest_agent.0 ] || continue
	/usr/sbin/qemu-ga -m virtio-serial -p "/dev/${p##*/}" -t /var/run >/dev/null 2>&1 &
	echo "FLEXSLOT-GUEST-AGENT started pid=$!"
done
AGENT
	(cd "$gwork/root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -6) \
		>"$gwork/guest-agent.cpio.gz" || die "cannot pack the guest agent layer"
	rm -rf "$out"
	mkdir -p "$out"
	mv "$gwork/guest-agent.cpio.gz" "$out/"
	rm -rf "$gwork"
	msg "built the guest agent layer in $out ($(wc -c <"$out/guest-agent.cpio.gz") bytes)"
	echo "GUEST_AGENT=$out/guest-agent.cpio.gz"
}

debdir="$cache/debs"
mkdir -p "$debdir"

# Fast path: a finished build made by this very script.
if [ -f "$guest/stamp" ] && [ "$(sed -n 2p "$guest/stamp")" = "$script_sum" ] &&
	[ -f "$guest/vmlinuz" ] && [ -f "$guest/initrd.gz" ]; then
	echo "KERNEL=$guest/vmlinuz"
	echo "INITRD=$guest/initrd.gz"
	tracker_layer
	guest_agent_layer
	exit 0
fi

[ -x /bin/busybox ] || die "/bin/busybox is missing (install busybox-static: packaging/deps.sh)"
command -v cpio >/dev/null || die "cpio is missing (packaging/deps.sh)"
case $(od -An -c -N4 /bin/busybox | tr -d ' ') in
*ELF*) ;;
*) die "/bin/busybox is not an ELF binary" ;;
esac

# The kernel package linux-image-amd64 depends on, e.g. linux-image-6.1.0-56-amd64.
kernel_pkg() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -n1
}
pkg=$(kernel_pkg)
if [ -z "$pkg" ]; then
	# A fresh machine may have empty package lists.
	if [ "$(id -u)" -eq 0 ]; then
		msg "updating package lists to find the kernel package"
		apt-get update -qq >&2 || true
		pkg=$(kernel_pkg)
	fi
fi
[ -n "$pkg" ] || die "cannot find the Debian kernel package (apt-cache depends linux-image-amd64)"
kver=${pkg#linux-image-}

if ! deb=$(fetch_deb "$pkg"); then
	# Old package lists can name a version the archive no longer has.
	[ "$(id -u)" -eq 0 ] || die "apt-get download $pkg failed"
	msg "updating package lists and retrying"
	apt-get update -qq >&2 || true
	pkg=$(kernel_pkg)
	[ -n "$pkg" ] || die "cannot find the Debian kernel package after apt-get update"
	kver=${pkg#linux-image-}
	deb=$(fetch_deb "$pkg") || die "apt-get download $pkg failed"
fi

work="$cache/guest.tmp.$$"
rm -rf "$work"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/pkg" "$work/root"

# Only the kernel and the few modules the guests load, wherever in the
# module tree each one is.
patterns="./boot/vmlinuz-$kver"
listing=$(dpkg-deb --fsys-tarfile "$deb" | tar -t) || die "cannot list $deb"
for m in $modules $tracker_modules; do
	ko=$(echo "$listing" | grep -m1 "^\./lib/modules/$kver/kernel/.*/$m\.ko$") ||
		die "$deb has no module $m.ko"
	patterns="$patterns $ko"
done
# shellcheck disable=SC2086 # the paths, one argument each
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work/pkg" $patterns ||
	die "cannot extract the kernel and its modules from $deb"

root="$work/root"
mkdir -p "$root/bin" "$root/sbin" "$root/proc" "$root/sys" "$root/dev" "$root/tmp" \
	"$root/lib/modules"
cp /bin/busybox "$root/bin/busybox"
for m in $modules $tracker_modules; do
	find "$work/pkg/lib/modules/$kver/kernel" -name "$m.ko" -exec cp {} "$root/lib/modules/" \;
done
echo "$modules" >"$root/lib/modules/order"

cat >"$root/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
for m in $(cat /lib/modules/order); do
	insmod /lib/modules/$m.ko || echo "FLEXSLOT-INSMOD-FAILED $m"
done
busy=0
online=1
for w in $(cat /proc/cmdline); do
	case $w in
	flexslot.busy=*) busy=${w#flexslot.busy=} ;;
	flexslot.online=0) online=0 ;;
	esac
done
if [ -e /sys/bus/virtio/drivers/virtio_balloon ] &&
	ls /sys/bus/virtio/drivers/virtio_balloon | grep -q virtio; then
	echo "FLEXSLOT-BALLOON ok"
else
	echo "FLEXSLOT-BALLOON missing"
fi
# Hot-added CPUs arrive offline; online them (what udev does on a full
# system), unless told not to: a guest whose kernel leaves them offline.
[ "$online" = 0 ] || (
	while :; do
		for f in /sys/devices/system/cpu/cpu[0-9]*/online; do
			[ -e "$f" ] || continue
			if [ "$(cat "$f")" = 0 ]; then
				c=${f%/online}
				echo 1 >"$f" && echo "FLEXSLOT-CPU-ONLINE ${c##*/}"
			fi
		done
		sleep 1
	done
) &
i=0
while [ "$i" -lt "$busy" ]; do
	(while :; do :; done) &
	i=$((i + 1))
done
# A layer unpacked over this archive starts the guest agent, or gives the
# guest its role.
if [ -f /etc/flexslot/guest-agent ]; then
	. /etc/flexslot/guest-agent
fi
if [ -f /etc/flexslot/guest-role ]; then
	. /etc/flexslot/guest-role
fi
echo "FLEXSLOT-GUEST-READY cpus=$(grep -c ^processor /proc/cpuinfo)"
exec sh </dev/console >/dev/console 2>&1
EOF
chmod 0755 "$root/init"

(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -9) >"$work/initrd.gz"
cp "$work/pkg/boot/vmlinuz-$kver" "$work/vmlinuz"
printf '%s\n%s\n' "$kver" "$script_sum" >"$work/stamp"

rm -rf "$guest"
mkdir -p "$guest"
mv "$work/vmlinuz" "$work/initrd.gz" "$guest/"
mv "$work/stamp" "$guest/stamp"
msg "built guest kernel $kver in $guest"
# Guests of script versions nobody has built for a week.
find "$cache" -maxdepth 1 -name 'guest-*' ! -name "guest-$script_sum" -mtime +7 \
	-exec rm -rf {} + 2>/dev/null || true
echo "KERNEL=$guest/vmlinuz"
echo "INITRD=$guest/initrd.gz"
tracker_layer
guest_agent_layer

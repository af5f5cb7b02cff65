#!/bin/sh
# Builds the tiny test guest: a Debian kernel (taken only from Debian's package
# archive with apt-get download) and a busybox-static initramfs whose /init
# loads the virtio modules, onlines hot-added CPUs and can keep vCPUs busy.
#
#   tests/vm/build-guest.sh            build (or reuse) and print two lines:
#                                        KERNEL=/path/vmlinuz
#                                        INITRD=/path/initrd.gz
#
# The result is cached in $FLEXSLOT_VM_CACHE (default /var/cache/flexslot/vm)
# and rebuilt only when this script changes; once built, no network is needed.
#
# Kernel command line words the guest's /init understands:
#   flexslot.busy=N   run N busy loops (0 = idle; default 0)
# It prints these console lines (ttyS0), which tests wait for:
#   FLEXSLOT-GUEST-READY cpus=N     modules loaded, init done
#   FLEXSLOT-CPU-ONLINE cpuN        a hot-added CPU was onlined
#   FLEXSLOT-BALLOON ok|missing     whether virtio_balloon is bound
set -eu

modules="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci virtio_balloon"

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

# Fast path: a finished build made by this very script.
if [ -f "$cache/guest/stamp" ] && [ "$(sed -n 2p "$cache/guest/stamp")" = "$script_sum" ] &&
	[ -f "$cache/guest/vmlinuz" ] && [ -f "$cache/guest/initrd.gz" ]; then
	echo "KERNEL=$cache/guest/vmlinuz"
	echo "INITRD=$cache/guest/initrd.gz"
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

debdir="$cache/debs"
mkdir -p "$debdir"
deb=$(find "$debdir" -maxdepth 1 -name "${pkg}_*_amd64.deb" | sort | tail -n1)
if [ -z "$deb" ]; then
	msg "downloading $pkg from the Debian archive"
	if ! (cd "$debdir" && apt-get download -q -o APT::Sandbox::User=root "$pkg" >&2); then
		# Old package lists can name a version the archive no longer has.
		[ "$(id -u)" -eq 0 ] || die "apt-get download $pkg failed"
		msg "updating package lists and retrying"
		apt-get update -qq >&2 || true
		pkg=$(kernel_pkg)
		[ -n "$pkg" ] || die "cannot find the Debian kernel package after apt-get update"
		kver=${pkg#linux-image-}
		(cd "$debdir" && apt-get download -q -o APT::Sandbox::User=root "$pkg" >&2) ||
			die "apt-get download $pkg failed"
	fi
	deb=$(find "$debdir" -maxdepth 1 -name "${pkg}_*_amd64.deb" | sort | tail -n1)
	[ -n "$deb" ] || die "apt-get download $pkg left no .deb in $debdir"
fi

work="$cache/guest.tmp.$$"
rm -rf "$work"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/pkg" "$work/root"

# Only the kernel and the few modules the guest loads.
patterns="./boot/vmlinuz-$kver"
for m in $modules; do
	patterns="$patterns ./lib/modules/$kver/kernel/drivers/virtio/$m.ko"
done
# shellcheck disable=SC2086
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work/pkg" $patterns ||
	die "cannot extract the kernel and virtio modules from $deb"

root="$work/root"
mkdir -p "$root/bin" "$root/sbin" "$root/proc" "$root/sys" "$root/dev" "$root/tmp" \
	"$root/lib/modules"
cp /bin/busybox "$root/bin/busybox"
for m in $modules; do
	cp "$work/pkg/lib/modules/$kver/kernel/drivers/virtio/$m.ko" "$root/lib/modules/"
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
for w in $(cat /proc/cmdline); do
	case $w in
	flexslot.busy=*) busy=${w#flexslot.busy=} ;;
	esac
done
if [ -e /sys/bus/virtio/drivers/virtio_balloon ] &&
	ls /sys/bus/virtio/drivers/virtio_balloon | grep -q virtio; then
	echo "FLEXSLOT-BALLOON ok"
else
	echo "FLEXSLOT-BALLOON missing"
fi
# Hot-added CPUs arrive offline; online them (what udev does on a full system).
(
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
echo "FLEXSLOT-GUEST-READY cpus=$(grep -c ^processor /proc/cpuinfo)"
exec sh </dev/console >/dev/console 2>&1
EOF
chmod 0755 "$root/init"

(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -9) >"$work/initrd.gz"
cp "$work/pkg/boot/vmlinuz-$kver" "$work/vmlinuz"
printf '%s\n%s\n' "$kver" "$script_sum" >"$work/stamp"

rm -rf "$cache/guest"
mkdir -p "$cache/guest"
mv "$work/vmlinuz" "$work/initrd.gz" "$cache/guest/"
mv "$work/stamp" "$cache/guest/stamp"
msg "built guest kernel $kver in $cache/guest"
echo "KERNEL=$cache/guest/vmlinuz"
echo "INITRD=$cache/guest/initrd.gz"

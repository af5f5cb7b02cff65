#!/bin/sh
# The README's promise, checked: on a minimal Debian 12 with only `make` and
# `git` added, a clone of this tree passes `make demo`, `make demo-live` and
# `make check`, as root, with nothing else installed by hand. Run it before a
# release (HACKING.md).
#
# It builds a Debian 12 root with `debootstrap --variant=minbase` (the
# smallest root apt works in; the result is cached as a tarball, so a rerun
# skips the download), installs `make` and `git` there without their
# recommended packages, clones the committed HEAD of this repository into it
# with that git, and runs the targets in it with chroot. Everything runs in a
# private mount and UTS namespace: the root has the hostname its
# /etc/hostname gives; /proc, /sys, /dev, /dev/pts, and tmpfs on /dev/shm
# and /run are mounted for the root there and unmounted at the end, also on
# a failure or Ctrl-C, and any process still running in the root then is
# stopped by PID. Inside, no service is started by a package's installation
# (a policy-rc.d that refuses, as in any chroot: sshd or libvirtd would
# otherwise listen on this machine's network).
#
# What it changes on this machine: debootstrap is installed if missing; the
# work directory (default /var/tmp/flexslot-fresh: the root, the logs) and the
# cache (default /var/cache/flexslot/fresh).
#
# The tests that need a private libvirtd and real guests run in the root as
# they would on a fresh machine: root may make mount namespaces there, QEMU
# falls back to TCG without KVM. Their skips are reported, not failures,
# unless --require-vm sets FLEXSLOT_REQUIRE_VM=1 as .ci/run does.
set -eu

prog=fresh-machine
msg() { echo "$prog: $*" >&2; }
die() {
	msg "$*"
	exit 1
}

usage() {
	cat <<EOF
usage: tools/fresh-machine.sh [OPTION]... [TARGET]...

Builds a minimal Debian 12 root (debootstrap --variant=minbase), installs
make and git in it, clones this repository's committed HEAD into it and runs
make TARGET there for each TARGET (default: demo demo-live check), as root
under chroot. Prints each step's duration and a verdict; exits 0 only when
every target passed. Needs root; installs debootstrap if it is missing.

  --dir DIR      work directory: the root (DIR/root) and the logs
                 (default /var/tmp/flexslot-fresh)
  --cache DIR    where the minbase root's tarball is kept between runs
                 (default /var/cache/flexslot/fresh)
  --refresh      build the minbase root anew even if it is cached
  --mirror URL   the Debian mirror (default http://deb.debian.org/debian)
  --keep         keep the root afterwards (default: removed after a pass or
                 an interruption, kept after a failure, for a look)
  --reuse        run in the root a --keep left, with its packages: quicker,
                 but no longer a fresh machine (the tree is cloned again)
  --require-vm   FLEXSLOT_REQUIRE_VM=1 inside: a VM test that skips fails
  --audit        install packaging/deps.sh's packages first, then list the
                 programs the targets ran that come from packages neither
                 minbase nor packaging/deps.sh names (installed only as
                 another package's dependency)
  -h, --help     this text

Environment: http_proxy, https_proxy and no_proxy are passed on to apt in
the root.
EOF
}

usage_error() {
	msg "$1"
	echo "Try 'tools/fresh-machine.sh --help'." >&2
	exit 2
}

dir=/var/tmp/flexslot-fresh
cache=/var/cache/flexslot/fresh
mirror=http://deb.debian.org/debian
suite=bookworm
keep=0
reuse=0
refresh=0
require_vm=0
audit=0
targets=""

# The part that runs in the private mount namespace: "$0" --inside, with the
# settings in FRESH_* variables.
if [ "${1:-}" = --inside ]; then
	inside=1
else
	inside=0
	while [ $# -gt 0 ]; do
		case $1 in
		--dir | --cache | --mirror)
			[ $# -ge 2 ] && [ -n "$2" ] || usage_error "option '$1' needs a value"
			case $1 in
			--dir) dir=$2 ;;
			--cache) cache=$2 ;;
			--mirror) mirror=$2 ;;
			esac
			shift
			;;
		--keep) keep=1 ;;
		--reuse) reuse=1 ;;
		--refresh) refresh=1 ;;
		--require-vm) require_vm=1 ;;
		--audit) audit=1 ;;
		-h | --help)
			usage
			exit 0
			;;
		-*) usage_error "unknown option '$1'" ;;
		*) targets="$targets $1" ;;
		esac
		shift
	done
	targets=${targets:-" demo demo-live check"}
fi

now() { date +%s; }
# duration SECONDS: "1 min 05 s" or "42 s"
duration() {
	if [ "$1" -ge 60 ]; then
		printf '%d min %02d s' $(($1 / 60)) $(($1 % 60))
	else
		printf '%d s' "$1"
	fi
}

# ---- outside: checks, debootstrap, the tree, then the namespace ------------

outside() {
	[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot, mounts)"
	case $dir in /*) ;; *) dir=$PWD/$dir ;; esac
	case $cache in /*) ;; *) cache=$PWD/$cache ;; esac
	root=$dir/root
	[ "$dir" != / ] && [ "$root" != / ] || die "--dir /: refusing"
	mounted_under "$root" && die "something is mounted under $root on this machine: unmount it first"
	if [ "$reuse" -eq 1 ]; then
		[ -f "$root/.flexslot-fresh" ] || die "--reuse: no root left by --keep in $root"
	elif [ -e "$root" ]; then
		[ -f "$root/.flexslot-fresh" ] ||
			die "$root exists and is not a root this script made: remove it or pick another --dir"
	fi

	for t in unshare chroot mount umount git tar gzip; do
		command -v "$t" >/dev/null || die "no $t on this machine"
	done
	command -v dpkg >/dev/null && command -v apt-get >/dev/null ||
		die "needs a Debian machine (dpkg, apt-get)"
	src=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel) ||
		die "$(dirname "$0")/.. is not a git work tree"
	if [ "$reuse" -eq 0 ] && [ -e "$root" ]; then
		msg "removing the root of an earlier run ($root)"
		rm -rf --one-file-system "$root"
	fi
	mkdir -p "$dir"

	if ! command -v debootstrap >/dev/null; then
		msg "debootstrap is not installed; installing it on this machine (apt-get install debootstrap)"
		DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
				debootstrap >/dev/null || die "cannot install debootstrap"
	fi

	head=$(git -C "$src" rev-parse --short HEAD)
	if [ -n "$(git -C "$src" status --porcelain --untracked-files=no)" ]; then
		msg "note: $src has uncommitted changes; the root gets the committed HEAD ($head) only"
	fi
	bundle=$dir/flexslot.bundle
	git -C "$src" bundle create "$bundle" HEAD 2>/dev/null || die "cannot bundle HEAD of $src"

	export FRESH_DIR="$dir" FRESH_ROOT="$root" FRESH_CACHE="$cache" FRESH_MIRROR="$mirror" \
		FRESH_SUITE="$suite" FRESH_REUSE="$reuse" FRESH_REFRESH="$refresh" \
		FRESH_REQUIRE_VM="$require_vm" FRESH_TARGETS="$targets" FRESH_BUNDLE="$bundle" \
		FRESH_HEAD="$head" FRESH_AUDIT="$audit"
	# The shell waits for the namespace's end before its own traps run, so
	# the root's mounts are gone by then.
	trap 'interrupted=1' INT TERM
	interrupted=0
	set +e
	unshare --mount --uts --propagation private -- /bin/sh "$0" --inside
	rc=$?
	set -e
	[ "$rc" -eq 130 ] && interrupted=1
	rm -f "$bundle"

	mounted_under "$root" && {
		msg "something is still mounted under $root: the root is kept"
		exit 1
	}
	if [ "$keep" -eq 1 ]; then
		msg "the root is kept in $root (rerun with --reuse to run in it again)"
	elif [ "$rc" -eq 0 ] || [ "$interrupted" -eq 1 ]; then
		rm -rf --one-file-system "$root"
	else
		msg "the root is kept in $root for a look (chroot $root; remove it with rm -rf)"
	fi
	[ "$interrupted" -eq 0 ] || exit 130
	exit "$rc"
}

# mounted_under DIR: true when a mount of this namespace is DIR or below it.
mounted_under() {
	awk -v d="$1" '$2 == d || index($2, d "/") == 1 { found = 1 } END { exit !found }' \
		/proc/self/mounts
}

# ---- inside the private mount namespace -----------------------------------

root=${FRESH_ROOT:-}
logs=${FRESH_DIR:-}
steps=""
failed=""

# step NAME COMMAND...: runs COMMAND, its output also in $logs/NAME.log;
# records its duration and verdict for the summary.
step() {
	name=$1
	shift
	echo "== $name" >&2
	t0=$(now)
	{
		set +e
		"$@" 2>&1
		echo $? >"$logs/$name.status"
		set -e
	} | tee "$logs/$name.log"
	rc=$(cat "$logs/$name.status")
	t=$(($(now) - t0))
	if [ "$rc" -eq 0 ]; then
		verdict=ok
	else
		verdict="FAILED (status $rc)"
		failed="$failed $name"
	fi
	steps="$steps$(printf '  %-16s %-22s %s' "$name" "$verdict" "$(duration "$t")")
"
	echo "== $name: $verdict, $(duration "$t")" >&2
	return "$rc"
}

# in_root COMMAND...: COMMAND in the root, as root, in the environment of a
# fresh login (no locale: Debian's minbase has none), in /root.
in_root() {
	chroot "$root" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" USER=root LOGNAME=root \
		SHELL=/bin/sh PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive \
		${http_proxy:+http_proxy="$http_proxy"} ${https_proxy:+https_proxy="$https_proxy"} \
		${no_proxy:+no_proxy="$no_proxy"} \
		${FRESH_VM_ENV:+"$FRESH_VM_ENV"} \
		/bin/sh -c "cd /root && $1"
}

make_root() {
	arch=$(dpkg --print-architecture)
	tarball=$FRESH_CACHE/$FRESH_SUITE-minbase-$arch.tar.gz
	if [ "$FRESH_REFRESH" -eq 0 ] && [ -f "$tarball" ]; then
		echo "from the cache: $tarball ($(date -r "$tarball" +%F))"
		mkdir -p "$root"
		tar -xzpf "$tarball" --numeric-owner -C "$root"
	else
		debootstrap --variant=minbase "$FRESH_SUITE" "$root" "$FRESH_MIRROR" || return 1
		apt_clean_root
		mkdir -p "$FRESH_CACHE"
		tar -czf "$tarball.tmp" --numeric-owner --one-file-system -C "$root" . &&
			mv "$tarball.tmp" "$tarball"
		echo "cached as $tarball"
	fi
	# What an installed Debian 12 has that debootstrap leaves to the
	# installer: the suite's updates and security lines, a hosts file, a
	# hostname. Plus the chroot's own: the resolver, the certificate
	# authorities this machine's network needs (a proxy that re-signs TLS,
	# as an installer would be told of; ca-certificates, installed later by
	# the build's packages, takes them in, Java's store too), and no service
	# starts.
	cat >"$root/etc/apt/sources.list" <<EOF
deb $FRESH_MIRROR $FRESH_SUITE main
deb $FRESH_MIRROR $FRESH_SUITE-updates main
deb http://deb.debian.org/debian-security $FRESH_SUITE-security main
EOF
	echo flexslot-fresh >"$root/etc/hostname"
	printf '127.0.0.1\tlocalhost\n127.0.1.1\tflexslot-fresh\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' \
		>"$root/etc/hosts"
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	if [ -d /usr/local/share/ca-certificates ]; then
		mkdir -p "$root/usr/local/share/ca-certificates"
		cp -R /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/"
	fi
	printf '#!/bin/sh\n# flexslot fresh-machine root: no service starts in a chroot.\nexit 101\n' \
		>"$root/usr/sbin/policy-rc.d"
	chmod 755 "$root/usr/sbin/policy-rc.d"
	# The marker of a root made here, with minbase's packages (--audit).
	# shellcheck disable=SC2016 # a dpkg-query format
	chroot "$root" dpkg-query -W -f '${Package}\n' >"$root/.flexslot-fresh"
}

# The package lists and downloaded packages debootstrap leaves: not in the
# cached tarball (apt-get update fetches current ones).
apt_clean_root() {
	rm -rf "$root/var/cache/apt/archives/"*.deb "$root/var/lib/apt/lists/"*_* 2>/dev/null || true
}

mounts=""
# mount_at TARGET MOUNT_ARG...: mounts, and records TARGET for unmount_root.
mount_at() {
	at=$1
	shift
	mount "$@" "$at" || die "cannot mount $at"
	mounts="$at $mounts"
}

mount_root() {
	# The root a mount point of its own, as / is on a booted machine:
	# `unshare --propagation private` (the tests' private libvirtd and /etc)
	# cannot change the propagation of a chroot's plain directory.
	mount_at "$root" --bind "$root"
	[ "$FRESH_AUDIT" -eq 0 ] || mount -o remount,bind,strictatime "$root"
	mount_at "$root/proc" -t proc proc
	# Recursively, for the cgroup hierarchies under /sys/fs/cgroup that a
	# booted machine has (the tracker's memory limits).
	mount_at "$root/sys" --rbind /sys
	mount_at "$root/dev" --bind /dev
	mount_at "$root/dev/pts" --bind /dev/pts
	mkdir -p "$root/dev/shm"
	mount_at "$root/dev/shm" -t tmpfs -o mode=1777,nosuid,nodev tmpfs
	mount_at "$root/run" -t tmpfs -o mode=755,nosuid,nodev tmpfs
	mkdir -p "$root/run/lock"
	# The machine-wide lock of the real-guest tests (tests/vm/lib.sh): a
	# guest of this root and one of a test on this machine would steal
	# each other's CPU.
	vm_lock=${FLEXSLOT_VM_CACHE:-/var/cache/flexslot/vm}/vm.lock
	mkdir -p "$(dirname "$vm_lock")" "$root/var/cache/flexslot/vm"
	touch "$vm_lock" "$root/var/cache/flexslot/vm/vm.lock"
	mount_at "$root/var/cache/flexslot/vm/vm.lock" --bind "$vm_lock"
}

# The PIDs of the processes whose root is the root (or below it).
root_pids() {
	for p in /proc/[0-9]*; do
		r=$(readlink "$p/root" 2>/dev/null) || continue
		case $r in "$root" | "$root"/*) echo "${p#/proc/}" ;; esac
	done
}

stop_root_processes() {
	left=$(root_pids)
	[ -n "$left" ] || return 0
	msg "stopping what still runs in the root: $(echo "$left" | tr '\n' ' ')"
	# shellcheck disable=SC2086 # a list of PIDs
	kill -TERM $left 2>/dev/null || true
	n=0
	while [ -n "$(root_pids)" ] && [ "$n" -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	left=$(root_pids)
	# shellcheck disable=SC2086
	[ -z "$left" ] || kill -KILL $left 2>/dev/null || true
}

unmount_root() {
	stop_root_processes
	for m in $mounts; do
		umount -R "$m" 2>/dev/null || umount -R -l "$m" || msg "cannot unmount $m"
	done
	mounts=""
}

# The programs under /usr/bin and /usr/sbin read since .audit-start (the root
# is mounted strictatime: running a program reads it, and following a
# symbolic link reads the link), by package, for the packages that are
# neither minbase's nor named by packaging/deps.sh, each with the packages of
# deps.sh that bring it (apt-cache rdepends). A program reached through a
# named package's link (ar to binutils' own) counts as that package's.
audit() {
	# shellcheck disable=SC2016 # for the shell in the root
	in_root '
		deps=$(flexslot/packaging/deps.sh --list)
		named=$(cat /.flexslot-fresh; echo "$deps")
		package_of() {
			p=$(dpkg -S "$1" 2>/dev/null || dpkg -S "${1#/usr}" 2>/dev/null) || p="(no package):"
			echo "${p%%:*}"
		}
		is_named() { echo "$named" | grep -qxF "$1"; }
		used=$(find /usr/bin /usr/sbin \( -type f -o -type l \) -anewer /.audit-start | sort)
		covered=$(for f in $used; do
			[ -L "$f" ] && is_named "$(package_of "$f")" && readlink -f "$f"
		done)
		for f in $used; do
			[ -f "$f" ] && [ ! -L "$f" ] || continue
			echo "$covered" | grep -qxF "$f" && continue
			pkg=$(package_of "$f")
			is_named "$pkg" || echo "$pkg ${f##*/}"
		done >/tmp/audit.used
		for pkg in $(cut -d" " -f1 /tmp/audit.used | sort -u); do
			via=$(apt-cache rdepends --installed --recurse --no-recommends --no-suggests \
				--no-conflicts --no-breaks --no-replaces --no-enhances "$pkg" 2>/dev/null |
				sed -n "s/^ *//p" | sort -u | grep -xF "$deps" | tr "\n" " ")
			echo "$pkg:$(sed -n "s/^$pkg / /p" /tmp/audit.used | tr -d "\n")" \
				"(${via:+with }${via:-from no package of deps.sh})" | sed "s/ )/)/"
		done
		rm -f /tmp/audit.used'
}

summary() {
	echo
	echo "fresh-machine: Debian 12 ($FRESH_SUITE) minbase + make git, flexslot $FRESH_HEAD"
	printf '%s' "$steps"
	# make check runs the suites twice, plain and then under the
	# sanitizers: a summary line each, the failures, the skips of both.
	if [ -f "$logs/check.log" ]; then
		grep -E '^[0-9]+%: Checks: ' "$logs/check.log" |
			awk '{ print "  make check, " (NR == 1 ? "plain:      " : "ASan+UBSan: ") $0 }'
		grep -E '^[^ ]+:[0-9]+:[FE]:' "$logs/check.log" | sed 's/^/    /'
		grep -E '^SKIPPED: ' "$logs/check.log" | sort -u | sed 's/^/  /'
	fi
	if [ -s "$logs/audit.log" ]; then
		echo "  programs run from packages neither minbase nor packaging/deps.sh names (one"
		echo "  a test runs itself belongs in deps.sh; one a named program runs, as man"
		echo "  runs groff, need not be):"
		sed 's/^/    /' "$logs/audit.log"
	elif [ -f "$logs/audit.log" ]; then
		echo "  every program run comes from minbase or a package packaging/deps.sh names"
	fi
	echo "  logs: $logs/*.log (the paths in them are the root's: $root/...)"
	if [ "$FRESH_REUSE" -eq 1 ]; then
		echo "  (a reused root, with the packages of an earlier run: not a fresh machine)"
	fi
	if [ -n "$failed" ]; then
		echo "fresh-machine: FAIL:$failed"
	else
		echo "fresh-machine: PASS: make$FRESH_TARGETS on a fresh Debian 12"
	fi
}

inside() {
	trap 'unmount_root' EXIT
	trap 'msg interrupted; failed="$failed interrupted"; unmount_root; summary; exit 130' INT TERM
	FRESH_VM_ENV=""
	[ "$FRESH_REQUIRE_VM" -eq 0 ] || FRESH_VM_ENV=FLEXSLOT_REQUIRE_VM=1
	rm -f "$logs"/*.log "$logs"/*.status

	if [ "$FRESH_REUSE" -eq 0 ]; then
		step root make_root || {
			summary
			exit 1
		}
	fi
	mount_root
	# The name /etc/hostname gives it, as a booted machine has (in a UTS
	# namespace of its own): programs that look their machine's name up
	# (Hadoop's daemons) find it in the root's hosts file.
	hostname "$(cat "$root/etc/hostname")" || die "cannot set the root's hostname"
	# apt-get's "--no-install-recommends": what the README names and what
	# it depends on, nothing it merely recommends (git recommends ssh,
	# less and patch, which would hide a test's need of them).
	step make-git in_root "apt-get update -qq && apt-get install -y -qq --no-install-recommends make git >/dev/null && make --version | head -n 1 && git --version" || {
		summary
		exit 1
	}
	cp "$FRESH_BUNDLE" "$root/root/flexslot.bundle"
	step clone in_root "rm -rf flexslot && git -c advice.detachedHead=false clone -q flexslot.bundle flexslot && rm flexslot.bundle && git -C flexslot log --oneline -1" || {
		summary
		exit 1
	}
	if [ "$FRESH_AUDIT" -eq 1 ]; then
		step deps in_root "flexslot/packaging/deps.sh" || true
		touch "$root/.audit-start"
	fi
	for target in $FRESH_TARGETS; do
		step "$target" in_root "cd flexslot && make $target" || true
	done
	[ "$FRESH_AUDIT" -eq 0 ] || audit >"$logs/audit.log"
	unmount_root
	summary
	[ -z "$failed" ]
}

if [ "$inside" -eq 1 ]; then
	inside
else
	outside
fi

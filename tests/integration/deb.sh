#!/bin/sh
# flexslot-test: vm
# flexslot-test: plain
# The Debian packages (`make deb`) in a clean Debian 12 root: debian/control's
# Build-Depends are `packaging/deps.sh --build`'s; the packages install with
# dpkg into a root that holds Debian's minbase and their dependencies only;
# units, bus policies, sysusers.d and tmpfiles.d entries lie where systemd
# and dbus read them (systemd-analyze, systemd-sysusers, systemd-tmpfiles,
# the root's own system bus configuration), the groups, users and the state
# directory are made and the units enabled; every program runs and has its
# man page; the configuration files are conffiles. The agent runs from its
# unit's command line and its installed configuration, set to libvirt's test
# driver, on the root's system bus (its own dbus-daemon and configuration,
# its socket in the root): busctl reaches it as root, as nobody (reads only:
# the installed policy refuses changes) and as a member of the flexslot group;
# the controller runs the same way with the token its postinst made, and
# flexslotctl reaches it; so does the tracker, which registers with it.
# Removing keeps the edited configuration; purging leaves no file of the
# packages' (`dpkg -L` before, `find` after) and the root as it was, except
# the groups and users, which Debian's packages leave.
#
# Cost: the packages are built once per content of the tree
# (packaging/build-deb.sh --key) and the root once per Debian release and
# set of dependencies, both kept under $FLEXSLOT_CACHE (default
# ~/.cache/flexslot); the first run needs the network (debootstrap, apt) and
# minutes, a run with both cached mounts the root as an overlay and takes
# seconds. Skips where it cannot run: not root, no mount namespaces, no way
# to install Debian's packaging tools or to reach the Debian mirror. It
# builds its own programs (with Debian's flags), so it runs in the plain
# build's run only.
set -eu
src=${FLEXSLOT_SRCDIR:?run through make check}
build=${FLEXSLOT_BUILD:?run through make check}
# shellcheck source=tests/lib/verdict.sh
. "$src/tests/lib/verdict.sh"

[ "$(id -u)" -eq 0 ] || skip "installing packages into a root needs root"
# The root's /proc is mounted in a mount namespace of the script's own, so
# that nothing stays mounted after it.
if [ -z "${FLEXSLOT_DEB_NAMESPACE:-}" ]; then
	unshare --mount --propagation private true 2>/dev/null || skip "no mount namespaces here"
	export FLEXSLOT_DEB_NAMESPACE=1
	exec unshare --mount --propagation private sh "$0" "$@"
fi

started=$(date +%s)
elapsed() {
	echo "$(($(date +%s) - started)) s"
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/flexslot-deb.XXXXXX")
pids=""
mounts=""
# A directory of the cache being made, removed if the script ends first.
partial=""
cleanup() {
	for p in $pids; do
		kill "$p" 2>/dev/null || true
	done
	for p in $pids; do
		wait "$p" 2>/dev/null || true
	done
	for m in $mounts; do
		umount "$m" 2>/dev/null || true
	done
	[ -n "${KEEP_TMP:-}" ] || rm -rf --one-file-system "$tmp"
	[ -z "$partial" ] || rm -rf --one-file-system "$partial"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

oneline() {
	echo "$1" | tr '\n' ' '
}

# Runs "$@" up to 100 times, 0.1 s apart, until it succeeds.
poll() {
	i=0
	until "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 100 ] || return 1
		sleep 0.1
	done
}

cache=${FLEXSLOT_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/flexslot}
mkdir -p "$cache/deb" "$cache/root"
suite=bookworm
arch=$(dpkg --print-architecture)
mirror=${FLEXSLOT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
packages="flexslot-agent flexslot-controller flexslot-tracker flexslot-sim"
version=$(sed -n 's/^#define FLEXSLOT_VERSION "\(.*\)"$/\1/p' "$src/common/version.h")

# ---- Build-Depends: deps.sh's build set, less build-essential's ----
build_depends=$(awk '
	/^Build-Depends:/ { on = 1; sub(/^Build-Depends:/, ""); print; next }
	on && /^[ \t]/ { print; next }
	{ on = 0 }' "$src/packaging/debian/control" | tr ',' '\n' |
	sed 's/([^)]*)//g; s/[[:space:]]//g; /^$/d; /^debhelper-compat$/d' | LC_ALL=C sort)
build_set=$("$src/packaging/deps.sh" --list --build | tr ' ' '\n' |
	grep -vx -e gcc -e binutils -e make | LC_ALL=C sort)
[ "$build_depends" = "$build_set" ] ||
	fail "Build-Depends ($(oneline "$build_depends")) are not packaging/deps.sh --build ($(oneline "$build_set"))"

# ---- the packages: built once per content of the tree ----
if ! { "$src/packaging/deps.sh" --build && "$src/packaging/deps.sh" --deb; } >"$tmp/deps.log" 2>&1; then
	tail -n 20 "$tmp/deps.log"
	skip "cannot install Debian's packaging tools (packaging/deps.sh --deb)"
fi
key=$("$src/packaging/build-deb.sh" --key)
debs=$cache/deb/$key
mkdir -p "$tmp/debs"
exec 8>"$cache/deb.lock"
flock 8
# The package build is out of the tree: it leaves the source and this
# build as they were.
tree_status() {
	git -C "$src" status --porcelain 2>/dev/null || true
}
tree_status >"$tmp/status-before"
marker=$(mktemp "$build/deb-sh.XXXXXX")
make --no-print-directory -C "$src" BUILD="$build" DEB_DIR="$debs" deb >"$tmp/make-deb.log" 2>&1 || {
	tail -n 60 "$tmp/make-deb.log"
	fail "make deb failed (log: $debs, lintian: $debs/lintian.txt)"
}
[ -e "$marker" ] || fail "make deb BUILD=$build removed $build"
rm -f "$marker"
tree_status | diff "$tmp/status-before" - || fail "make deb changed the source tree (git status above)"
for p in $packages; do
	cp "$debs/${p}_${version}_$arch.deb" "$tmp/debs/" || fail "make deb built no $p"
done
# The cache keeps the packages of the last three trees.
touch "$debs"
find "$cache/deb" -mindepth 1 -maxdepth 1 -type d -printf '%T@ %p\n' | sort -rn |
	tail -n +4 | cut -d' ' -f2- | xargs -r -d '\n' rm -rf
flock -u 8
exec 8>&-
echo "packages ready ($(elapsed)):"
cat "$debs/lintian.txt"

# ---- the root: Debian's minbase, then the packages' dependencies ----
# Both are directories of the cache, made once; each run sees the second
# through an overlay whose upper layer is its own (a copy where overlayfs is
# missing). The dependencies are those apt would install with the packages
# (none of the recommended): that root is made again when their Depends
# change.
deps_key=$({
	echo "$suite $arch $mirror"
	for d in "$tmp"/debs/*.deb; do dpkg-deb -f "$d" Package Pre-Depends Depends; done
} | sha256sum | cut -c1-16)
minbase=$cache/root/$suite-$arch-minbase
base=$cache/root/$suite-$arch-$deps_key

# run_in ROOT COMMAND...: runs COMMAND in ROOT with a clean environment.
run_in() {
	r=$1
	shift
	chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"
}

mount_proc() {
	mount -t proc proc "$1/proc"
	mounts="$1/proc $mounts"
}

make_minbase() {
	echo "debootstrap --variant=minbase $suite from $mirror"
	partial=$minbase.new
	rm -rf --one-file-system "$partial"
	debootstrap --variant=minbase "$suite" "$partial" "$mirror" >"$tmp/debootstrap.log" 2>&1 || {
		tail -n 20 "$tmp/debootstrap.log"
		skip "debootstrap $suite from $mirror failed (no network?)"
	}
	mv "$partial" "$minbase"
	partial=""
	echo "made $minbase ($(elapsed))"
}

# The packages' dependencies from bookworm itself, with the lists
# debootstrap left (fetched again only if they are too old for the mirror).
make_base() {
	partial=$base.new
	rm -rf --one-file-system "$partial"
	cp -a "$minbase" "$partial"
	mkdir "$partial/tmp/debs"
	cp "$tmp"/debs/*.deb "$partial/tmp/debs/"
	mount_proc "$partial"
	export DEBIAN_FRONTEND=noninteractive
	# What apt would install with the packages, less the packages.
	# shellcheck disable=SC2016 # expanded in the root
	run_in "$partial" sh -c 'apt-get install -s --no-install-recommends /tmp/debs/*.deb' \
		>"$tmp/resolve.log" 2>&1 || {
		cat "$tmp/resolve.log"
		fail "apt cannot install the packages in $suite: their Depends?"
	}
	wanted=$(sed -n 's/^Inst \([^ ]*\) .*/\1/p' "$tmp/resolve.log" | grep -v '^flexslot-' || true)
	echo "the packages' dependencies: $(oneline "$wanted")"
	# shellcheck disable=SC2086 # a list of names
	if ! run_in "$partial" apt-get -y -q install --no-install-recommends $wanted >"$tmp/apt.log" 2>&1 &&
		! { run_in "$partial" apt-get -q update && run_in "$partial" apt-get -y -q install \
			--no-install-recommends $wanted; } >>"$tmp/apt.log" 2>&1; then
		tail -n 20 "$tmp/apt.log"
		skip "installing the dependencies from $mirror failed (no network?)"
	fi
	run_in "$partial" apt-get clean
	rm -rf "$partial/tmp/debs"
	umount "$partial/proc"
	mounts=""
	mv "$partial" "$base"
	partial=""
	echo "made $base ($(elapsed))"
}

exec 8>"$cache/root.lock"
flock 8
if [ ! -d "$base" ]; then
	[ -d "$minbase" ] || make_minbase
	make_base
fi
# The cache keeps minbase and the last two roots with dependencies.
touch "$base"
find "$cache/root" -mindepth 1 -maxdepth 1 -type d ! -name "*-minbase" -printf '%T@ %p\n' |
	sort -rn | tail -n +3 | cut -d' ' -f2- | xargs -r -d '\n' rm -rf --one-file-system
flock -u 8
exec 8>&-
root=$tmp/root
mkdir "$root" "$tmp/upper" "$tmp/work"
if mount -t overlay overlay -o "lowerdir=$base,upperdir=$tmp/upper,workdir=$tmp/work" "$root" \
	2>"$tmp/overlay.err"; then
	mounts=$root
	echo "root: an overlay on $base"
else
	echo "root: a copy of $base (no overlay: $(cat "$tmp/overlay.err"))"
	cp -a "$base/." "$root"
fi
mount_proc "$root"
echo "root ready ($(elapsed))"

# The root's files as find sees them, but /proc, /dev, /run and /tmp.
snapshot() {
	(cd "$root" && find . -xdev \( -path ./proc -o -path ./dev -o -path ./run -o -path ./tmp \) \
		-prune -o -printf '%y %m %u:%g %p\n' | LC_ALL=C sort)
}
snapshot >"$tmp/before"

# ---- install ----
mkdir "$root/tmp/debs"
cp "$tmp"/debs/*.deb "$root/tmp/debs/"
# shellcheck disable=SC2016 # expanded in the root
run_in "$root" sh -c 'dpkg -i /tmp/debs/*.deb' >"$tmp/install.log" 2>&1 || {
	cat "$tmp/install.log"
	fail "dpkg -i failed in a root with the packages' dependencies"
}
cat "$tmp/install.log"
for p in $packages; do
	run_in "$root" dpkg-query -L "$p" >"$tmp/files.$p"
	echo "$p: $(grep -c . "$tmp/files.$p") paths"
done

# Every program runs in the root (its libraries are the package's
# dependencies), prints its version and has its man page in its package.
for p in $packages; do
	programs=$(grep -E '^/usr/s?bin/' "$tmp/files.$p" | sed 's|.*/||')
	[ -n "$programs" ] || fail "$p has no program"
	for prog in $programs; do
		out=$(run_in "$root" "$prog" --version 2>&1) || fail "$prog --version in the root: $out"
		[ "$out" = "$prog $version" ] || fail "$prog --version printed '$out'"
		grep -qE "^/usr/share/man/man[1-8]/$prog\.[1-8]\.gz$" "$tmp/files.$p" ||
			fail "$p has no man page of $prog"
	done
done

# Configuration: conffiles, every key commented out with its default.
for pair in flexslot-agent:agent flexslot-controller:controller flexslot-tracker:tracker; do
	p=${pair%%:*}
	conf=/etc/flexslot/${pair#*:}.ini
	# shellcheck disable=SC2016 # dpkg-query's fields
	run_in "$root" dpkg-query -W -f='${Conffiles}\n' "$p" | grep -q "^ $conf " ||
		fail "$conf is not a conffile of $p"
	! grep -vE '^(;|\[|$)' "$root$conf" || fail "$conf has lines that are not comments or sections"
done

# systemd: units where it looks for them, valid, enabled.
unit_paths=$(run_in "$root" systemd-analyze --system unit-paths)
units=$(cat "$tmp"/files.* | grep -E '/systemd/system/[^/]+\.service$' || true)
[ -n "$units" ] || fail "no package has a unit"
for unit in $units; do
	echo "$unit_paths" | grep -qx "$(dirname "$unit")" || fail "$unit is not where systemd looks"
	[ -L "$root/etc/systemd/system/multi-user.target.wants/$(basename "$unit")" ] ||
		fail "$(basename "$unit") is not enabled"
done
# shellcheck disable=SC2086 # a list of files
run_in "$root" systemd-analyze verify --man=no $units || fail "systemd-analyze verify $units"
# The daemons' group and users: each daemon's package declares them, so
# that it alone makes them; installing made every one.
for p in flexslot-agent flexslot-controller flexslot-tracker; do
	entry=$(grep '^/usr/lib/sysusers.d/.*\.conf$' "$tmp/files.$p") || fail "$p has no sysusers.d entry"
	run_in "$root" systemd-sysusers --cat-config | grep -qx "# $entry" ||
		fail "systemd-sysusers does not read $entry"
	grep -qx 'g flexslot -' "$root$entry" || fail "$entry does not declare the group flexslot"
	while read -r type name _; do
		case $type in
		g) run_in "$root" getent group "$name" >/dev/null || fail "installing made no group $name" ;;
		u) run_in "$root" getent passwd "$name" >/dev/null || fail "installing made no user $name" ;;
		esac
	done <"$root$entry"
done
entry=$(grep '^/usr/lib/tmpfiles.d/.*\.conf$' "$tmp/files.flexslot-controller") ||
	fail "the controller has no tmpfiles.d entry"
run_in "$root" systemd-tmpfiles --cat-config | grep -qx "# $entry" ||
	fail "systemd-tmpfiles does not read $entry"
[ "$(stat -c '%a %U' "$root/var/lib/flexslot")" = "700 root" ] ||
	fail "the controller's state directory: $(stat -c '%a %U' "$root/var/lib/flexslot" 2>&1)"
[ "$(stat -c '%a %U' "$root/etc/flexslot/cluster-token")" = "600 root" ] ||
	fail "the cluster token: $(stat -c '%a %U' "$root/etc/flexslot/cluster-token" 2>&1)"

# dbus: the policies in a directory the root's system bus includes.
bus_conf=$root/usr/share/dbus-1/system.conf
bus_dirs=$(sed -n 's|.*<includedir>\(.*\)</includedir>.*|\1|p' "$bus_conf" | while read -r d; do
	case $d in
	/*) echo "$d" ;;
	*) echo "/usr/share/dbus-1/$d" ;;
	esac
done)
cat "$tmp"/files.* | grep '/dbus-1/system.d/.*\.conf$' >"$tmp/policies" ||
	fail "no package has a bus policy"
while read -r policy; do
	echo "$bus_dirs" | grep -qx "$(dirname "$policy")" ||
		fail "$policy is not where the system bus reads policies ($(oneline "$bus_dirs"))"
done <"$tmp/policies"
echo "installed and in place ($(elapsed))"

# ---- the daemons on the root's own system bus ----
# bg COMMAND...: runs COMMAND in the root in the background; its PID is in
# bg_pid.
bg() {
	log=$1
	shift
	chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@" >"$log" 2>&1 &
	bg_pid=$!
	pids="$pids $bg_pid"
}

# stop PID NAME LOG: SIGTERM, and a clean exit.
stop() {
	kill -TERM "$1"
	status=0
	wait "$1" || status=$?
	[ "$status" -eq 0 ] || {
		cat "$3"
		fail "$2 exited with status $status"
	}
}

busctl_as() {
	who=$1
	shift
	case $who in
	root) run_in "$root" busctl --system "$@" ;;
	nobody) run_in "$root" setpriv --reuid=65534 --regid=65534 --clear-groups busctl --system "$@" ;;
	group) run_in "$root" setpriv --reuid=65534 --regid=65534 --groups="$gid" busctl --system "$@" ;;
	esac
}

has_owner() {
	[ "$(busctl_as root call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
		NameHasOwner s "$1")" = "b true" ]
}

exec_start() {
	sed -n 's/^ExecStart=//p' "$root$(grep -h "/$1\$" "$tmp"/files.*)"
}

mkdir -p "$root/run/dbus"
bg "$tmp/bus.log" dbus-daemon --system --nofork --nopidfile
bus_pid=$bg_pid
poll test -S "$root/run/dbus/system_bus_socket" || {
	cat "$tmp/bus.log"
	fail "the root's system bus did not start"
}

# The installed configuration, as an admin edits it, on the test driver.
sed -i 's|^;uri = .*|uri = test:///default|' "$root/etc/flexslot/agent.ini"
grep -qx 'uri = test:///default' "$root/etc/flexslot/agent.ini" || fail "agent.ini has no ;uri line"
# shellcheck disable=SC2046 # the unit's command line
bg "$tmp/agent.log" $(exec_start flexslot-agentd.service)
agent_pid=$bg_pid
poll has_owner org.flexslot.Agent1 || {
	cat "$tmp/agent.log" "$tmp/bus.log"
	fail "the agent did not take org.flexslot.Agent1 on the root's system bus"
}
gid=$(run_in "$root" getent group flexslot | cut -d: -f3)
agent() {
	who=$1
	shift
	busctl_as "$who" call org.flexslot.Agent1 /org/flexslot/Agent1 org.flexslot.Agent1 "$@" 2>&1
}
for who in root nobody; do
	out=$(agent "$who" ListDomains) || fail "ListDomains as $who: $out"
	case $out in *'"test"'*) ;; *) fail "ListDomains as $who: $out" ;; esac
	out=$(agent "$who" GetMetrics s test) || fail "GetMetrics as $who: $out"
done
# A change: refused by the bus to nobody, let through to the group.
if out=$(agent nobody SetVcpus su test 1); then
	fail "nobody changed a VM: $out"
fi
case $out in *"Access denied"*) ;; *) fail "SetVcpus as nobody: $out" ;; esac
out=$(agent group SetVcpus su test 1) || true
case $out in *"Access denied"*) fail "SetVcpus as a member of flexslot: $out" ;; esac
echo "SetVcpus as a member of flexslot reached the agent: $out"

# The controller: its token from the postinst, its store in the state
# directory. Its data directory is the cluster's shared storage, which the
# operator mounts or makes (the package does not: Debian leaves /srv to the
# site); without it the controller refuses to start, by the key's line.
# shellcheck disable=SC2046 # the unit's command line
bg "$tmp/controller-nodata.log" $(exec_start flexslot-controllerd.service)
wait "$bg_pid" && fail "the controller started without its data directory"
grep -q "\[jobs\] data-dir: /srv/flexslot: No such file or directory" "$tmp/controller-nodata.log" ||
	fail "the missing data directory was not named: $(cat "$tmp/controller-nodata.log")"
data_dir=$(sed -n 's|^;data-dir = ||p' "$root/etc/flexslot/controller.ini")
[ -n "$data_dir" ] || fail "controller.ini has no ;data-dir line"
mkdir -p "$root$data_dir"
# shellcheck disable=SC2046 # the unit's command line
bg "$tmp/controller.log" $(exec_start flexslot-controllerd.service)
controller_pid=$bg_pid
poll has_owner org.flexslot.Controller1 || {
	cat "$tmp/controller.log"
	fail "the controller did not take org.flexslot.Controller1 on the root's system bus"
}
out=$(run_in "$root" flexslotctl list 2>&1) || fail "flexslotctl list: $out"
if out=$(run_in "$root" setpriv --reuid=65534 --regid=65534 --clear-groups flexslotctl list 2>&1); then
	fail "nobody listed the controller's jobs: $out"
fi
[ -f "$root/var/lib/flexslot/controller.db" ] || fail "the controller's store is not in /var/lib/flexslot"
# The tracker, where its package has a unit: on the controller's default
# endpoint with the same token; its VM's identity is the admin's to give
# where the root has no SMBIOS UUID.
if grep -q '/flexslot-tracker\.service$' "$tmp/files.flexslot-tracker"; then
	sed -i 's|^;vm-uuid =.*|vm-uuid = deb-test-vm|' "$root/etc/flexslot/tracker.ini"
	grep -qx 'vm-uuid = deb-test-vm' "$root/etc/flexslot/tracker.ini" ||
		fail "tracker.ini has no ;vm-uuid line"
	# shellcheck disable=SC2046 # the unit's command line
	bg "$tmp/tracker.log" $(exec_start flexslot-tracker.service)
	tracker_pid=$bg_pid
	tracker_listed() {
		run_in "$root" flexslotctl nodes 2>/dev/null | grep -q deb-test-vm
	}
	poll tracker_listed || {
		cat "$tmp/tracker.log" "$tmp/controller.log"
		fail "the tracker did not register with the controller"
	}
	run_in "$root" flexslotctl nodes
	stop "$tracker_pid" flexslot-tracker "$tmp/tracker.log"
fi
out=$(run_in "$root" flexslot-sim list 2>&1) || fail "flexslot-sim list: $out"
case $out in *fig10*) ;; *) fail "flexslot-sim list does not name its installed fig10: $out" ;; esac

stop "$controller_pid" flexslot-controllerd "$tmp/controller.log"
stop "$agent_pid" flexslot-agentd "$tmp/agent.log"
rm -rf "${root:?}$data_dir"
kill "$bus_pid"
wait "$bus_pid" || true
rm -f "$root/run/dbus/system_bus_socket"
echo "daemons ran ($(elapsed))"

# ---- remove, purge ----
# shellcheck disable=SC2086 # a list of names
run_in "$root" dpkg --remove $packages >"$tmp/remove.log" 2>&1 || {
	cat "$tmp/remove.log"
	fail "dpkg --remove failed"
}
grep -qx 'uri = test:///default' "$root/etc/flexslot/agent.ini" ||
	fail "removing did not keep the edited agent.ini"
# dpkg -L's first line is "/.".
cat "$tmp"/files.* | grep -vx '/\.' | LC_ALL=C sort -u >"$tmp/files"
while read -r f; do
	case $f in /etc/flexslot/*) continue ;; esac
	if [ -f "$root$f" ] && [ ! -L "$root$f" ]; then fail "removing left $f"; fi
done <"$tmp/files"
# shellcheck disable=SC2086 # a list of names
run_in "$root" dpkg --purge $packages >"$tmp/purge.log" 2>&1 || {
	cat "$tmp/purge.log"
	fail "dpkg --purge failed"
}
cat "$tmp/remove.log" "$tmp/purge.log"
# shellcheck disable=SC2016 # dpkg-query's fields
left=$(run_in "$root" dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' 'flexslot*' 2>/dev/null || true)
[ -z "$left" ] || fail "dpkg still knows: $left"

# Nothing of the packages' is left: each path they listed that was not in
# the root before is gone, and the root is as it was. The paths dpkg lists
# may lead through the root's symbolic links (/lib is usr/lib); find's do
# not.
sed 's/^[^ ]* [^ ]* [^ ]* \.//' "$tmp/before" | LC_ALL=C sort >"$tmp/before-paths"
# shellcheck disable=SC2016 # expanded in the root
run_in "$root" sh -c 'while read -r f; do
	printf "%s/%s\n" "$(realpath -m -- "$(dirname "$f")")" "$(basename "$f")"
done' <"$tmp/files" | sed 's|^//|/|' | LC_ALL=C sort -u >"$tmp/files-real"
LC_ALL=C comm -23 "$tmp/files-real" "$tmp/before-paths" >"$tmp/added"
[ -s "$tmp/added" ] || fail "the packages added no path to the root?"
while read -r f; do
	if [ -e "$root$f" ] || [ -L "$root$f" ]; then fail "purging left $f"; fi
done <"$tmp/added"
snapshot >"$tmp/after"
diff "$tmp/before" "$tmp/after" || fail "purging did not leave the root as it was (diff above)"
run_in "$root" getent group flexslot >/dev/null || fail "purging removed the group flexslot"
echo "purged; the root is as it was but for the groups and users ($(elapsed))"
echo ok

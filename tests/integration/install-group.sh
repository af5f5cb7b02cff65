#!/bin/sh
# A real `make install` (no DESTDIR) creates the flexslot group and the
# tracker's task user flexslot-task, with systemd-sysusers where it is
# installed and with groupadd and useradd where it is not; an install into
# a DESTDIR creates neither. The machine's /etc stays as it is:
# make runs in a private mount namespace with a copy of /etc (without any
# flexslot group) over /etc, and PREFIX and DBUS_SYSTEM_DIR point into a
# temporary directory.
set -eu
# shellcheck source=tests/lib/verdict.sh
. "$FLEXSLOT_SRCDIR/tests/lib/verdict.sh"
[ "$(id -u)" -eq 0 ] || skip "creating a group needs root"
unshare --mount --propagation private true 2>/dev/null || skip "no mount namespaces here"
sysusers=$(command -v systemd-sysusers) || fail "systemd-sysusers is missing (packaging/deps.sh installs systemd)"
command -v groupadd >/dev/null || fail "groupadd is missing"
command -v useradd >/dev/null || fail "useradd is missing"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
touch "$tmp/not-a-program"
machine_groups=$(cksum </etc/group)
machine_users=$(cksum </etc/passwd)

# install_with ETC_COPY sysusers|groupadd [MAKE_ARG...]: `make install` with a
# fresh copy of /etc as /etc, systemd-sysusers hidden for "groupadd".
install_with() {
	etc=$1
	tool=$2
	shift 2
	cp -a /etc "$etc"
	sed -i '/^flexslot:/d; /^flexslot-task:/d' "$etc/group" "$etc/gshadow" "$etc/passwd" \
		"$etc/shadow"
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare --mount --propagation private sh -eu -c '
		mount --bind "$1" /etc
		[ "$2" = sysusers ] || mount --bind "$3" "$4"
		shift 4
		exec make --no-print-directory "$@" install
	' sh "$etc" "$tool" "$tmp/not-a-program" "$sysusers" \
		-C "$FLEXSLOT_SRCDIR" BUILD="$FLEXSLOT_BUILD" PREFIX="$tmp/usr" \
		DBUS_SYSTEM_DIR="$tmp/dbus" "$@" >"$etc.log" 2>&1 || {
		cat "$etc.log"
		fail "make install ($tool) failed"
	}
}

# check_group ETC_COPY TOOL: the copy has a system group flexslot, made by TOOL.
check_group() {
	line=$(grep '^flexslot:' "$1/group") || {
		cat "$1.log"
		fail "install ($2) created no group flexslot"
	}
	gid=$(echo "$line" | cut -d: -f3)
	[ "$gid" -lt 1000 ] || fail "flexslot is not a system group: $line"
	grep -q "^$2 " "$1.log" || fail "the group was not made by $2: $(cat "$1.log")"
	echo "$2: $line"
}

# check_user ETC_COPY: the copy has a system user flexslot-task, who cannot
# log in.
check_user() {
	line=$(grep '^flexslot-task:' "$1/passwd") || {
		cat "$1.log"
		fail "install created no user flexslot-task"
	}
	uid=$(echo "$line" | cut -d: -f3)
	[ "$uid" -lt 1000 ] || fail "flexslot-task is not a system user: $line"
	[ "$(echo "$line" | cut -d: -f7)" = /usr/sbin/nologin ] || fail "flexslot-task can log in: $line"
	echo "user: $line"
}

install_with "$tmp/etc-sysusers" sysusers
check_group "$tmp/etc-sysusers" systemd-sysusers
check_user "$tmp/etc-sysusers"
install_with "$tmp/etc-groupadd" groupadd
check_group "$tmp/etc-groupadd" groupadd
check_user "$tmp/etc-groupadd"
grep -q "^useradd " "$tmp/etc-groupadd.log" || fail "the user was not made by useradd"

install_with "$tmp/etc-destdir" sysusers DESTDIR="$tmp/root"
! grep '^flexslot:' "$tmp/etc-destdir/group" || fail "an install into a DESTDIR created the group"
! grep '^flexslot-task:' "$tmp/etc-destdir/passwd" || fail "an install into a DESTDIR created the user"

[ "$(cksum </etc/group)" = "$machine_groups" ] || fail "the machine's /etc/group changed"
[ "$(cksum </etc/passwd)" = "$machine_users" ] || fail "the machine's /etc/passwd changed"
echo ok

#!/bin/sh
# packaging/org.flexslot.Controller1.conf on a bus that, like the system
# bus, denies method calls unless a policy allows them: root owns the name
# and calls everything; a caller who is neither root nor in the flexslot
# group may introspect the controller and nothing else, and is stopped by
# the bus itself (flexslotctl prints the bus's error and exits 1). A member
# of the group may call: where the machine has no group flexslot, the test
# runs in a private mount namespace with a copy of /etc/group that has one.
set -eu
if ! getent group flexslot >/dev/null && [ -z "${FLEXSLOT_GROUP_COPY:-}" ] &&
	[ "$(id -u)" -eq 0 ] && unshare --mount --propagation private true 2>/dev/null; then
	group=$(mktemp)
	cp /etc/group "$group"
	echo "flexslot:x:64999:" >>"$group"
	status=0
	# shellcheck disable=SC2016 # expanded by the inner shell
	FLEXSLOT_GROUP_COPY=1 unshare --mount --propagation private sh -eu -c '
		mount --bind "$1" /etc/group
		exec sh "$2"' sh "$group" "$0" || status=$?
	rm -f "$group"
	exit "$status"
fi
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
ctl=$build/bin/flexslotctl
[ "$(id -u)" -eq 0 ] || skip "the policy grants root; the test must run as root"
command -v setpriv >/dev/null || skip "no setpriv"

start_private_bus system "$src/packaging/org.flexslot.Controller1.conf"
# Unprivileged callers must reach the socket.
chmod 0755 "$tmp"
start_monitor
write_config
start_controller

# as UID GID GROUPS COMMAND...: COMMAND as that user, with those groups.
as() {
	uid=$1
	gid=$2
	groups=$3
	shift 3
	if [ -n "$groups" ]; then
		setpriv --reuid="$uid" --regid="$gid" --groups="$groups" "$@"
	else
		setpriv --reuid="$uid" --regid="$gid" --clear-groups "$@"
	fi
}

as 65534 65534 "" busctl --address="$address" introspect org.flexslot.Controller1 \
	/org/flexslot/Controller1 >/dev/null || fail "nobody cannot introspect"
for call in "ListJobs" "ListNodes" "ListProfiles" "GetJob t 1" "CancelJob t 1" \
	"SetSlots tuut 1 1 1 0"; do
	# shellcheck disable=SC2086
	if out=$(as 65534 65534 "" busctl --address="$address" call org.flexslot.Controller1 \
		/org/flexslot/Controller1 org.flexslot.Controller1 $call 2>&1); then
		fail "nobody could call $call"
	fi
	member=${call%% *}
	poll grep -q "ErrorMessage=\"Rejected send message.*member=\"$member\"" "$tmp/monitor.log" ||
		fail "$member was not refused by the bus itself: $out"
done
status=0
as 65534 65534 "" "$ctl" --address "$address" submit --app wordcount --reduces 1 --user nobody \
	in/a >"$tmp/out" 2>"$tmp/err" || status=$?
[ "$status" -eq 1 ] || fail "nobody's submit exited $status: $(cat "$tmp/err")"
grep -q "^flexslotctl: org\.freedesktop\.DBus\.Error\.AccessDenied: " "$tmp/err" ||
	fail "nobody's submit: $(cat "$tmp/err")"
[ "$(ctl_call ListJobs)" = "a(tsssssuuuuttts) 0" ] || fail "nobody's submit reached the controller"

[ "$("$ctl" --address "$address" submit --app wordcount --reduces 1 in/a)" = 1 ] ||
	fail "root cannot submit"
if gid=$(getent group flexslot | cut -d: -f3) && [ -n "$gid" ]; then
	as 65534 65534 "$gid" "$ctl" --address "$address" show 1 >/dev/null ||
		fail "a member of flexslot cannot call"
else
	echo "no group flexslot here: its members' access is not tested"
fi
echo "PASS"

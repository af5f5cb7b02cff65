#!/bin/sh
# `make install` into a DESTDIR with PREFIX=/usr: programs, configuration,
# the units with their paths filled in, the D-Bus policies (the agent's and
# the controller's) in a directory the machine's system bus reads, and the
# man pages, which name that path; the
# sysusers.d entry of the group the policy names; a second install keeps an
# edited configuration; uninstall removes what it installed except the
# configuration. With the default PREFIX (/usr/local) the policy still goes
# where the bus reads it. An install into a DESTDIR creates no group
# (install-group.sh tests a real install).
set -eu
# shellcheck source=tests/lib/cli.sh
. "$FLEXSLOT_SRCDIR/tests/lib/cli.sh"
dest="$tmp/root"

# The directories the machine's system bus reads policies from: the
# <includedir>s of its system.conf, a relative one taken from the file's
# directory (dbus-daemon(1)).
bus_conf=/usr/share/dbus-1/system.conf
[ -f "$bus_conf" ] || bus_conf=/etc/dbus-1/system.conf
[ -f "$bus_conf" ] || fail "no system bus configuration (packaging/deps.sh installs dbus)"
bus_dirs=$(sed -n 's|.*<includedir>\(.*\)</includedir>.*|\1|p' "$bus_conf" | while read -r d; do
	case $d in
	/*) echo "$d" ;;
	*) echo "$(dirname "$bus_conf")/$d" ;;
	esac
done)
[ -n "$bus_dirs" ] || fail "$bus_conf includes no directory"
echo "the system bus reads policies from: $(echo "$bus_dirs" | tr '\n' ' ')"

# check_policy ROOT [NAME]: the one policy of bus name NAME (the agent's by
# default) installed under ROOT is in one of those.
check_policy() {
	file=${2:-org.flexslot.Agent1}.conf
	found=$(cd "$1" && find . -name "$file" | sed 's|^\.||')
	[ "$(echo "$found" | grep -c .)" -eq 1 ] || fail "policy installed as '$found'"
	echo "$bus_dirs" | grep -qx "$(dirname "$found")" ||
		fail "policy installed as $found, where the system bus does not look"
	cmp -s "$1$found" "$FLEXSLOT_SRCDIR/packaging/$file" ||
		fail "$found is not the policy"
}

run_make "$dest" PREFIX=/usr install
for f in usr/sbin/flexslot-agentd etc/flexslot/agent.ini \
	usr/lib/systemd/system/flexslot-agentd.service \
	usr/lib/sysusers.d/flexslot.conf \
	usr/share/man/man8/flexslot-agentd.8 \
	usr/sbin/flexslot-controllerd usr/bin/flexslotctl etc/flexslot/controller.ini \
	usr/lib/systemd/system/flexslot-controllerd.service \
	usr/share/man/man8/flexslot-controllerd.8 usr/share/man/man1/flexslotctl.1 \
	usr/sbin/flexslot-tracker etc/flexslot/tracker.ini \
	usr/lib/systemd/system/flexslot-tracker.service usr/share/man/man8/flexslot-tracker.8; do
	[ -f "$dest/$f" ] || fail "$f not installed"
done
unit="$dest/usr/lib/systemd/system/flexslot-tracker.service"
grep -qx 'ExecStart=/usr/sbin/flexslot-tracker --config=/etc/flexslot/tracker.ini' "$unit" ||
	fail "the tracker's unit paths are not filled in"
! grep -q '@[A-Z]*@' "$unit" || fail "placeholder left in the tracker's unit"
grep -qx 'ConditionPathExists=/etc/flexslot/cluster-token' "$unit" ||
	fail "the tracker's unit does not wait for the token file"
check_policy "$dest" org.flexslot.Controller1
sed -n 's|.*<policy group="\(.*\)">.*|\1|p' "$dest$found" | grep -qx flexslot ||
	fail "the controller's policy does not open it to the group flexslot"
grep -qx "\.I $found" "$dest/usr/share/man/man8/flexslot-controllerd.8" ||
	fail "the controller's man page does not name $found"
unit="$dest/usr/lib/systemd/system/flexslot-controllerd.service"
grep -qx 'ExecStart=/usr/sbin/flexslot-controllerd --config=/etc/flexslot/controller.ini' "$unit" ||
	fail "the controller's unit paths are not filled in"
grep -qx 'BusName=org.flexslot.Controller1' "$unit" || fail "the controller's unit has no BusName"
! grep -q '@[A-Z]*@' "$unit" || fail "placeholder left in the controller's unit"
check_policy "$dest"
# The group the policy and allowed-group name, for systemd-sysusers.
policy_group=$(sed -n 's|.*<policy group="\(.*\)">.*|\1|p' "$dest$found")
allowed_group=$(sed -n 's|^;*allowed-group = ||p' "$dest/etc/flexslot/agent.ini")
if [ "$policy_group" != flexslot ] || [ "$allowed_group" != flexslot ]; then
	fail "the policy names group '$policy_group', allowed-group '$allowed_group'"
fi
grep -qx "g flexslot -" "$dest/usr/lib/sysusers.d/flexslot.conf" ||
	fail "the sysusers.d entry does not declare the group flexslot"
# The tracker's default task user, likewise.
task_user=$(sed -n 's|^;*task-user = ||p' "$dest/etc/flexslot/tracker.ini")
[ "$task_user" = flexslot-task ] || fail "the tracker's task-user is '$task_user'"
grep -q "^u $task_user " "$dest/usr/lib/sysusers.d/flexslot.conf" ||
	fail "the sysusers.d entry does not declare the user $task_user"
grep -qx "\.I $found" "$dest/usr/share/man/man8/flexslot-agentd.8" ||
	fail "the man page does not name $found"
[ -x "$dest/usr/sbin/flexslot-agentd" ] || fail "agent not executable"
grep -qx 'ExecStart=/usr/sbin/flexslot-agentd --config=/etc/flexslot/agent.ini' \
	"$dest/usr/lib/systemd/system/flexslot-agentd.service" || fail "unit paths not filled in"
! grep -q '@[A-Z]*@' "$dest/usr/lib/systemd/system/flexslot-agentd.service" ||
	fail "placeholder left in the unit"
! find "$dest" -name 'flexslot-bench-*' | grep -q . ||
	fail "a benchmark was installed"

echo "# edited by the admin" >>"$dest/etc/flexslot/agent.ini"
run_make "$dest" PREFIX=/usr install
grep -q "edited by the admin" "$dest/etc/flexslot/agent.ini" || fail "edited configuration overwritten"

run_make "$dest" PREFIX=/usr uninstall
[ ! -e "$dest/usr/sbin/flexslot-agentd" ] || fail "uninstall left the agent"
[ ! -e "$dest/usr/lib/systemd/system/flexslot-agentd.service" ] || fail "uninstall left the unit"
[ ! -e "$dest/usr/share/dbus-1/system.d/org.flexslot.Agent1.conf" ] || fail "uninstall left the policy"
for f in usr/sbin/flexslot-controllerd usr/bin/flexslotctl \
	usr/lib/systemd/system/flexslot-controllerd.service \
	usr/lib/systemd/system/flexslot-tracker.service \
	usr/share/dbus-1/system.d/org.flexslot.Controller1.conf; do
	[ ! -e "$dest/$f" ] || fail "uninstall left $f"
done
[ ! -e "$dest/usr/lib/sysusers.d/flexslot.conf" ] || fail "uninstall left the sysusers.d entry"
grep -q "edited by the admin" "$dest/etc/flexslot/agent.ini" || fail "uninstall removed the configuration"

# The default PREFIX, as a user types `make install`.
run_make "$tmp/local" install
[ -f "$tmp/local/usr/local/sbin/flexslot-agentd" ] || fail "the default PREFIX is not /usr/local"
check_policy "$tmp/local"
check_policy "$tmp/local" org.flexslot.Controller1

! grep -E '^(systemd-sysusers|groupadd|useradd) ' "$tmp/make.log" ||
	fail "an install into a DESTDIR created a group or a user"
echo ok

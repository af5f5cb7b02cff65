#!/bin/sh
# `make install` into a DESTDIR with PREFIX=/usr: programs, configuration,
# the unit with its paths filled in, the D-Bus policy and man page; a second
# install keeps an edited configuration; uninstall removes what it installed
# except the configuration.
set -eu
# shellcheck source=tests/lib/cli.sh
. "$FLEXSLOT_SRCDIR/tests/lib/cli.sh"
dest="$tmp/root"

run_make install
for f in usr/sbin/flexslot-agentd etc/flexslot/agent.ini \
	usr/lib/systemd/system/flexslot-agentd.service \
	usr/share/dbus-1/system.d/org.flexslot.Agent1.conf \
	usr/share/man/man8/flexslot-agentd.8; do
	[ -f "$dest/$f" ] || fail "$f not installed"
done
[ -x "$dest/usr/sbin/flexslot-agentd" ] || fail "agent not executable"
grep -qx 'ExecStart=/usr/sbin/flexslot-agentd --config=/etc/flexslot/agent.ini' \
	"$dest/usr/lib/systemd/system/flexslot-agentd.service" || fail "unit paths not filled in"
! grep -q '@[A-Z]*@' "$dest/usr/lib/systemd/system/flexslot-agentd.service" ||
	fail "placeholder left in the unit"
! find "$dest" -name 'flexslot-bench-*' | grep -q . ||
	fail "a benchmark was installed"

echo "# edited by the admin" >>"$dest/etc/flexslot/agent.ini"
run_make install
grep -q "edited by the admin" "$dest/etc/flexslot/agent.ini" || fail "edited configuration overwritten"

run_make uninstall
[ ! -e "$dest/usr/sbin/flexslot-agentd" ] || fail "uninstall left the agent"
[ ! -e "$dest/usr/lib/systemd/system/flexslot-agentd.service" ] || fail "uninstall left the unit"
grep -q "edited by the admin" "$dest/etc/flexslot/agent.ini" || fail "uninstall removed the configuration"
echo ok

#!/bin/sh
# The controller as its unit runs it. First its start-up checks, each named
# with the configuration's file:line: a data directory that is missing, a
# file or the root, a token file others may read. Then the controller in
# the file system packaging/flexslot-controllerd.service.in leaves it,
# emulated in a mount namespace from the unit itself (PID 1 is not systemd
# here): everything read-only (ProtectSystem=strict) but its ReadWritePaths=
# and, with PrivateTmp=, /tmp and /var/tmp, under its LimitNOFILE, with the
# configuration's default data directory. A job with reduces must commit
# there; a unit that left the data directory read-only failed every such
# job with "Read-only file system".
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/ctl.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/tracker.sh"
unshare --mount --propagation private true 2>/dev/null || skip "no mount namespaces here"
command -v prlimit >/dev/null || skip "no prlimit"
data=$tmp/data
unit=$src/packaging/flexslot-controllerd.service.in

write_fast_config
mkdir -p "$data/maps"
printf 'b\t2\na\t1\n' >"$data/maps/m0"
start_bus

# refused KEY LINE_PATTERN MESSAGE_PATTERN: the controller does not start,
# and says why with the configuration's file:line and the key.
refused() {
	status=0
	"$controllerd" --config "$tmp/controller.ini" --address "$address" >"$tmp/refused.log" 2>&1 ||
		status=$?
	[ "$status" -eq 1 ] || fail "$1: the controller started (status $status)"
	line=$(grep -n "^$2" "$tmp/controller.ini" | cut -d: -f1)
	grep -q "controller.ini:$line: \[.*\] $1: $3" "$tmp/refused.log" ||
		fail "$1: not named with file:line: $(cat "$tmp/refused.log")"
}
cp "$tmp/controller.ini" "$tmp/good.ini"
sed -i "s|^data-dir = .*|data-dir = $tmp/nowhere|" "$tmp/controller.ini"
refused data-dir "data-dir = " "$tmp/nowhere: No such file or directory"
sed -i "s|^data-dir = .*|data-dir = $tmp/token|" "$tmp/controller.ini"
refused data-dir "data-dir = " "$tmp/token is not a directory"
sed -i "s|^data-dir = .*|data-dir = /|" "$tmp/controller.ini"
refused data-dir "data-dir = " "/ is the root directory"
cp "$tmp/good.ini" "$tmp/controller.ini"
chmod 0644 "$tmp/token"
refused token-file "token-file = " "$tmp/token is open to its group or others (mode 0644)"
chmod 0600 "$tmp/token"
echo "start-up checks: named with file:line"

# The unit's view of the file system.
grep -qx 'ProtectSystem=strict' "$unit" || fail "the unit is not ProtectSystem=strict"
rw=$(sed -n 's/^ReadWritePaths=//p' "$unit" | tr ' ' '\n' | sed 's/^-//')
! grep -qx 'PrivateTmp=yes' "$unit" || rw="$rw /tmp /var/tmp"
nofile=$(sed -n 's/^LimitNOFILE=//p' "$unit")
[ -n "$nofile" ] || fail "the unit sets no LimitNOFILE"
# systemd raises the hard limit too; a test without CAP_SYS_RESOURCE stays
# under its own.
hard=$(ulimit -Hn)
if [ "$hard" != unlimited ] && [ "$hard" -lt "$nofile" ]; then
	echo "LimitNOFILE=$nofile is above this machine's hard limit: the controller gets $hard"
	nofile=$hard
fi
default_data=$(sed -n 's/^;data-dir = //p' "$src/conf/controller.ini")
[ -n "$default_data" ] || fail "conf/controller.ini names no default data-dir"
sed -i "s|^data-dir = .*|data-dir = $default_data|" "$tmp/controller.ini"

# In the namespace: this test's data directory at the default's path (on a
# tmpfs over its parent when the path does not exist here), every mount
# read-only but /proc, /sys and /dev, then the unit's writable paths bound
# writable again, and the controller under the unit's descriptor limit.
cat >"$tmp/unit-sandbox.sh" <<'SANDBOX'
set -eu
data=$1 default_data=$2 nofile=$3 rw=$4
shift 4
if [ ! -d "$default_data" ]; then
	mount -t tmpfs -o mode=0755 flexslot-test "$(dirname "$default_data")"
	mkdir "$default_data"
fi
mount --bind "$data" "$default_data"
awk '{ print $5 }' /proc/self/mountinfo | sort -u | while read -r m; do
	case $m in /proc | /proc/* | /sys | /sys/* | /dev | /dev/*) continue ;; esac
	mount -o remount,bind,ro "$m" 2>/dev/null || true
done
for p in $rw; do
	[ -d "$p" ] || continue
	mount --bind "$p" "$p"
	mount -o remount,bind,rw "$p"
done
exec prlimit --nofile="$nofile:$nofile" "$@"
SANDBOX
unshare --mount --propagation private sh "$tmp/unit-sandbox.sh" "$data" "$default_data" \
	"$nofile" "$rw" "$controllerd" --config "$tmp/controller.ini" --address "$address" \
	--log-level=debug >>"$tmp/controller.log" 2>&1 &
controller_pid=$!
pids="$pids $controller_pid"
poll bus status org.flexslot.Controller1 ||
	fail "the controller did not start in the unit's sandbox: $(cat "$tmp/controller.log")"
grep -q "^Max open files *$nofile *$nofile " "/proc/$controller_pid/limits" ||
	fail "the controller does not run under LimitNOFILE=$nofile: $(cat "/proc/$controller_pid/limits")"
[ "$(stat -c %i "$default_data" 2>/dev/null)" != "$(stat -c %i "$data")" ] ||
	fail "the namespace leaked: $default_data is the test's data directory outside it"

start_real_tracker 64M
job_ended() {
	flexslotctl show "$1" | grep -Eq "^state	(succeeded|failed)\$"
}
job=$(flexslotctl submit --mapper cat --reduces 2 --name unit maps/m0)
poll job_ended "$job" || poll job_ended "$job" || fail "job $job did not end"
flexslotctl show "$job" | grep -q "^state	succeeded\$" ||
	fail "a job with reduces failed under the unit: $(flexslotctl show "$job")"
for p in 00000 00001; do
	[ -e "$data/out/$job/part-$p" ] || fail "part-$p was not committed: $(ls "$data/out/$job")"
done
echo "PASS"

#!/bin/sh
# The controller reaches an agent over SSH ([agents] hosts = ssh:USER@HOST),
# the way `systemctl -H` does: sd-bus runs ssh, whose far end runs
# systemd-stdio-bridge. All of it is real: an sshd started here on a port
# of 127.0.0.1 with a host key of its own, a client key whose
# authorized_keys entry forces the bridge to this test's private bus (where
# the agent is), and the machine's ssh, which a wrapper first on the
# controller's PATH hands that port, key and known host (ssh reads the
# ~/.ssh of the user's passwd entry, which a test must not touch). The
# controller lists the agent's VMs, reached over SSH, and resizes one
# through it; a host whose key is not the known one is refused, its VMs
# unreachable.
set -eu
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/lib.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/ctl.sh"
. "$FLEXSLOT_SRCDIR/tests/fixtures/controller/agent.sh"
GIB=1073741824

[ "$(id -u)" -eq 0 ] || skip "sshd runs as root"
for p in /usr/sbin/sshd ssh ssh-keygen systemd-stdio-bridge; do
	command -v "$p" >/dev/null || skip "no $p (packaging/deps.sh installs openssh-server)"
done
user=$(id -un)
keys=$tmp/ssh
mkdir -p "$keys" "$tmp/bin"
ssh-keygen -q -t ed25519 -N '' -C flexslot-test-host -f "$keys/host_key"
ssh-keygen -q -t ed25519 -N '' -C flexslot-test-client -f "$keys/id"
ssh-keygen -q -t ed25519 -N '' -C flexslot-test-other -f "$keys/other_host_key"

start_bus
printf 'command="systemd-stdio-bridge --bus-path=%s",restrict %s\n' "$address" \
	"$(cat "$keys/id.pub")" >"$keys/authorized_keys"
# sshd will not start without its privilege separation directory, which
# its package leaves to the service's start.
mkdir -p /run/sshd

# start_sshd HOST_KEY: sshd on a free port of 127.0.0.1; its PID in
# sshd_pid, the port in port.
start_sshd() {
	for try in 1 2 3 4 5; do
		port=$((30000 + ($$ * 31 + try * 7919) % 30000))
		cat >"$keys/sshd_config" <<CONF
Port $port
ListenAddress 127.0.0.1
HostKey $1
PidFile $keys/sshd.pid
AuthorizedKeysFile $keys/authorized_keys
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
AllowUsers $user
CONF
		/usr/sbin/sshd -D -e -f "$keys/sshd_config" >"$keys/sshd.log" 2>&1 &
		sshd_pid=$!
		pids="$pids $sshd_pid"
		if poll grep -q "Server listening on 127.0.0.1 port $port" "$keys/sshd.log"; then
			return 0
		fi
		kill "$sshd_pid" 2>/dev/null || true
	done
	fail "sshd did not start: $(cat "$keys/sshd.log")"
}
start_sshd "$keys/host_key"
printf '[127.0.0.1]:%s %s\n' "$port" "$(cut -d' ' -f1,2 "$keys/host_key.pub")" >"$keys/known_hosts"
cat >"$keys/ssh_config" <<CONF
Host *
	Port $port
	IdentityFile $keys/id
	IdentitiesOnly yes
	UserKnownHostsFile $keys/known_hosts
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
	BatchMode yes
CONF
printf '#!/bin/sh\nexec /usr/bin/ssh -F %s "$@"\n' "$keys/ssh_config" >"$tmp/bin/ssh"
chmod +x "$tmp/bin/ssh"

write_config
cat >>"$tmp/controller.ini" <<CONF
[agents]
hosts = ssh:$user@127.0.0.1
call-timeout = 2s
CONF
start_agent
PATH="$tmp/bin:$PATH"
export PATH
start_controller

vms_have() {
	flexslotctl vms --no-legend | grep -qF "$1"
}
poll vms_have "0	$W2	worker2	ssh:$user@127.0.0.1	true	none	0	2	$((2 * GIB))	" ||
	fail "the agent's VMs did not come over ssh: $(flexslotctl vms; cat "$tmp/controller.log" "$keys/sshd.log")"
expect_ctl 0 "" resize-vm "$W2" 3 3G
grep -q "^memory	applied	$((2 * GIB))	$((3 * GIB))" "$tmp/out" ||
	fail "resize-vm over ssh printed: $(cat "$tmp/out")"

# ---- a host key that is not the known one ----
kill "$controller_pid"
wait "$controller_pid" 2>/dev/null || true
kill "$sshd_pid"
wait "$sshd_pid" 2>/dev/null || true
old_port=$port
start_sshd "$keys/other_host_key"
sed -i "s/^	Port .*/	Port $port/" "$keys/ssh_config"
sed -i "s/^\[127.0.0.1\]:$old_port /[127.0.0.1]:$port /" "$keys/known_hosts"
start_controller
refused() {
	grep -q "Host key verification failed" "$tmp/controller.log"
}
poll refused || poll refused || fail "a wrong host key was not refused: $(cat "$tmp/controller.log")"
flexslotctl vms --no-legend | grep -qF "	ssh:$user@127.0.0.1	true	" &&
	fail "VMs reachable through a host with the wrong key: $(flexslotctl vms)"
echo "PASS"

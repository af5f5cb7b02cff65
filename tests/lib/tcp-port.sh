# shellcheck shell=sh
# Sourced by the scripts that must name a TCP port before anything listens
# on it: a controller restarted on the same port, or guests configured
# before their controller starts.

# tcp_port_used PORT: whether any TCP socket of this machine is bound to
# PORT, whatever its state. Read from /proc: ss is not on a minimal system.
tcp_port_used() {
	_tpu_hex=$(printf '%04X' "$1")
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		awk -v p=":$_tpu_hex" 'substr($2, length($2) - 4) == p { found = 1 } END { exit !found }'
}

# free_tcp_port: a TCP port no socket uses, below the kernel's range of
# ports for outgoing connections. Inside that range a port may be taken by
# any connection the machine opens between the choice and the bind (a
# benchmark's thousands of them), which fails the bind as surely as a
# listener would.
free_tcp_port() {
	_ftp_low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range)
	_ftp_span=$((_ftp_low - 10000))
	[ "$_ftp_span" -ge 1000 ] || _ftp_span=1000
	_ftp_port=$((10000 + $$ % _ftp_span))
	_ftp_tries=0
	while tcp_port_used "$_ftp_port"; do
		_ftp_tries=$((_ftp_tries + 1))
		if [ "$_ftp_tries" -ge "$_ftp_span" ]; then
			echo "no free TCP port from 10000 to $((10000 + _ftp_span - 1))" >&2
			return 1
		fi
		_ftp_port=$((10000 + (_ftp_port - 10000 + 1) % _ftp_span))
	done
	echo "$_ftp_port"
}

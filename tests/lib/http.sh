# shellcheck shell=sh
# Sourced by the scripts that scrape a daemon's Prometheus endpoint.

# http PORT REQUEST: sends REQUEST (its \r and \n written so) to
# 127.0.0.1:PORT and prints the whole answer, headers and body.
http() {
	python3 - "$1" "$2" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
s.sendall(sys.argv[2].replace("\\r", "\r").replace("\\n", "\n").encode())
data = b""
while True:
    chunk = s.recv(65536)
    if not chunk:
        break
    data += chunk
sys.stdout.write(data.decode())
PY
}

# scrape PORT: GET /metrics's answer.
scrape() {
	http "$1" "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
}

# metrics_port LOG: the port a daemon that listens on port 0 logged
# ("Metrics on 127.0.0.1:0, port N, at /metrics").
metrics_port() {
	sed -n 's/.*Metrics on 127.0.0.1:0, port \([0-9]*\),.*/\1/p' "$1"
}

# exposition_ok ANSWER: whether every sample line of a scrape's answer is
# NAME{LABELS} VALUE or NAME VALUE; prints those that are not.
exposition_ok() {
	! sed '1,/^\r$/d' "$1" | grep -v '^#' |
		grep -Ev '^[a-z_]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? [-0-9.e+]+$'
}

#!/usr/bin/env bash
# The real server on loopback (a free port), driven by real clients: wrk for a few seconds, a client that
# hangs up during a large draw (its draw must be cancelled while running, seen in /metrics), two tiles on one
# kept-alive connection, a request in
# flight when SIGTERM comes (it must complete), and exit status 0. Used by `make test-server`.
#   Server/scripts/live-test.sh path/to/asynclayer-server
set -euo pipefail
BIN=${1:?usage: live-test.sh path/to/asynclayer-server}
WORK=$(mktemp -d)
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then kill -KILL "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "live-test: FAIL: $*" >&2; echo "--- server log" >&2; cat "$WORK/server.log" >&2 || true; exit 1; }

# Larger limits than the defaults so that one tile takes seconds: the hang-up must land mid-draw.
"$BIN" --port 0 --queues 2 --max-text 262144 --max-pixels 200000000 --max-timeout 120000 >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
PORT=""
for _ in $(seq 1 300); do
  PORT=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$WORK/server.log" | head -1)
  [ -n "$PORT" ] && break
  kill -0 "$SERVER_PID" 2>/dev/null || fail "the server exited at start"
  sleep 0.1
done
[ -n "$PORT" ] || fail "the server did not report its port"
URL="http://127.0.0.1:$PORT"
echo "live-test: server on $URL (pid $SERVER_PID)"

curl -fsS "$URL/health" | grep -q '"status":"ok"' || fail "/health"
curl -fsS -o "$WORK/t.png" "$URL/tile.png?text=Hello&width=200&height=40&scale=1"
[ "$(head -c 8 "$WORK/t.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "GET /tile.png is not a PNG"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/tile.png?text=x&width=nan")" = 400 ] || fail "width=nan is not 400"

# Keep-alive: curl asks for two tiles on one connection; the server must answer both there (curl says it
# re-used the connection) and never with Connection: close.
curl -sS -v -o /dev/null -o /dev/null "$URL/tile.png?text=one" "$URL/tile.png?text=two" 2>"$WORK/keepalive.txt" \
  || fail "two tiles on one connection"
grep -qi "re-using existing connection\|reusing existing connection" "$WORK/keepalive.txt" \
  || fail "curl did not re-use the connection for the second tile: $(grep -i 'connect\|< connection' "$WORK/keepalive.txt")"
grep -qi "^< connection: close" "$WORK/keepalive.txt" && fail "a tile was answered with Connection: close"
echo "live-test: two tiles on one kept-alive connection"

# wrk: a few seconds of keep-alive load on one tile; every response must be 200.
wrk -t1 -c8 -d3s --latency "$URL/tile.png?text=The%20quick%20brown%20fox&width=375&scale=2" | tee "$WORK/wrk.txt"
grep -q "Non-2xx" "$WORK/wrk.txt" && fail "wrk saw non-2xx responses"
requests=$(awk '/requests in/ {print $1}' "$WORK/wrk.txt")
[ "${requests:-0}" -gt 0 ] || fail "wrk completed no request"
echo "live-test: wrk completed $requests requests"

metric() { curl -fsS "$URL/metrics" | awk -v name="$1" '$1 == name {print $2}'; }
running='asynclayer_draws_cancelled_total{stage="running"}'
# wrk's connections close at its end, cancelling the draws they had in flight: let those end first, so
# that the counter read next moves only for the hang-ups below.
for _ in $(seq 1 100); do
  [ "$(metric asynclayer_queue_depth)" = "0" ] && break
  sleep 0.1
done
before=$(metric "$running")

# A large tile (about 200 KiB of text, wrapped at 2000 pt, scale 2): seconds of drawing. The client
# (hang_up, below) sends it, waits until the server has the draw on its pool (queue depth >= 1, read from
# /metrics on another connection) and 0.5 s more, so that the draw is running, and closes the connection;
# the draw must stop (cancelled while running). A fixed wait instead raced the server's reading and
# parsing of the body on a busy machine: closed before the draw was submitted, there was nothing to cancel.
python3 -c 'import json, sys; json.dump({"text": "Lorem ipsum dolor sit amet " * 7500, "width": 2000, "scale": 2}, sys.stdout)' >"$WORK/big.json"
# hang_up PRELUDE: on one connection, PRELUDE small tiles (each answered there, never with
# Connection: close), then the large tile, then the hang-up as above.
hang_up() {
  python3 - "$PORT" "$WORK/big.json" "$1" <<'PY'
import socket, sys, time
port, body, prelude = int(sys.argv[1]), open(sys.argv[2], "rb").read(), int(sys.argv[3])

def queue_depth():
    with socket.create_connection(("127.0.0.1", port)) as m:
        m.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while (chunk := m.recv(65536)):
            data += chunk
    for line in data.decode().splitlines():
        if line.startswith("asynclayer_queue_depth "):
            return float(line.split()[1])
    return 0.0

s = socket.create_connection(("127.0.0.1", port))
f = s.makefile("rb")
for text in ["one", "two"][:prelude]:
    s.sendall(f"GET /tile.png?text={text} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    status = f.readline().split()[1]
    headers = {}
    while (line := f.readline().strip()):
        k, v = line.decode().split(":", 1)
        headers[k.strip().lower()] = v.strip()
    f.read(int(headers["content-length"]))
    assert status == b"200" and headers.get("connection") != "close", (status, headers)
s.sendall(b"POST /tile.png?timeout=120000 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
          + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
deadline = time.monotonic() + 30
while queue_depth() < 1:
    if time.monotonic() > deadline:
        sys.exit("the large tile's draw never reached the pool within 30 s")
    time.sleep(0.05)
time.sleep(0.5)
s.setblocking(False)
try:
    if s.recv(1):
        sys.exit("the large tile was answered within 0.5 s of its draw starting: it is not large enough for the hang-up test")
except BlockingIOError:
    pass
s.close()
PY
}
# Waits (at most 10 s) for a draw cancelled while running, and fails with MESSAGE otherwise.
expect_running_cancel() {
  local message=$1 after=""
  for _ in $(seq 1 100); do
    after=$(metric "$running")
    [ "${after%.*}" -gt "${before%.*}" ] && break
    sleep 0.1
  done
  [ "${after%.*}" -gt "${before%.*}" ] \
    || fail "$message ($running: $before → $after; cancelled while queued: $(metric 'asynclayer_draws_cancelled_total{stage="queued"}'))"
  echo "$after"
}
start=$(date +%s.%N)
hang_up 0 || fail "hang-up client"
after=$(expect_running_cancel "no draw was cancelled while running after the client hung up")
stopped=$(python3 -c "import time; print(f'{time.time() - $start:.2f}')")
echo "live-test: hang-up cancelled the running draw ($running $before → $after, $stopped s after the request started)"

# The same on a kept-alive connection: two tiles answered on it, then the large tile, and the client
# closes the connection while its draw runs; the third request's draw must be cancelled while running.
before=$(metric "$running")
hang_up 2 || fail "keep-alive client"
after=$(expect_running_cancel "no draw was cancelled after a hang-up on a kept-alive connection")
echo "live-test: two tiles on one connection, then a hang-up during the third cancelled its running draw ($running $before → $after)"
curl -fsS "$URL/metrics" | grep -E '^asynclayer_(draws|draw_cpu|client_hangups)' || true

# SIGTERM with a request in flight: the request completes (200), then the server exits 0.
python3 -c 'import json, sys; json.dump({"text": "word " * 20000, "width": 1500, "scale": 2}, sys.stdout)' >"$WORK/medium.json"
curl -s -o "$WORK/inflight.png" -w '%{http_code}' --data-binary "@$WORK/medium.json" "$URL/tile.png?timeout=120000" >"$WORK/inflight.code" &
CURL_PID=$!
for _ in $(seq 1 100); do
  [ "$(metric asynclayer_queue_depth)" != "0" ] && break
  sleep 0.02
done
kill -TERM "$SERVER_PID"
wait "$CURL_PID" || true
status=0
wait "$SERVER_PID" || status=$?
SERVER_PID=""
[ "$(cat "$WORK/inflight.code")" = 200 ] || fail "the request in flight at SIGTERM got $(cat "$WORK/inflight.code"), not 200"
[ "$status" = 0 ] || fail "the server exited with $status after SIGTERM"
echo "live-test: SIGTERM drained the request in flight (200) and the server exited 0"
echo "live-test: OK"

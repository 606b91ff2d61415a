#!/usr/bin/env bash
# Memory of the tile server under mixed load: RSS must stay flat. Release build; writes
# bench/results/server/rss.txt and rss-samples.txt.
#   load: wrk -t1 -c$CONNECTIONS with bench/server/mixed.lua (tiles GET/POST of 5 sizes, PDF/PNG/SVG reports,
#         400s, 5 ms-deadline requests) plus a curl loop whose every request gives up after 0.2 s mid-draw
#         (a client hang-up that cancels a running draw)
#   samples: VmRSS and VmHWM of the server every $EVERY s
# Usage: bench/server-rss.sh   (MINUTES=10 CONNECTIONS=3 EVERY=10 by default; it loads the machine;
#        SERVER_FLAGS='--malloc-mmap-threshold 0' passes flags to the server, OUT=dir writes elsewhere)
# The hanging-up request (24,300 bytes of text, 3000 × 3944 px) stays under the server's text and memory caps: it is drawn, not refused.
set -euo pipefail
cd "$(dirname "$0")/.."
MINUTES=${MINUTES:-10}
CONNECTIONS=${CONNECTIONS:-3}
EVERY=${EVERY:-10}
QUEUES=${QUEUES:-$(nproc)}
OUT=${OUT:-bench/results/server}
mkdir -p "$OUT"
WORK=$(mktemp -d)
SERVER_PID=""
HANGUP_PID=""
cleanup() {
  if [ -n "$HANGUP_PID" ]; then kill "$HANGUP_PID" 2>/dev/null || true; fi
  if [ -n "$SERVER_PID" ]; then kill -TERM "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 1; }
# SERVER=… uses a binary built elsewhere (then nothing is built).
SERVER=${SERVER:-Server/.build/release/asynclayer-server}
if [ "$SERVER" = Server/.build/release/asynclayer-server ]; then
  PKG=()
  [ -d .build/pkgconfig-shadow ] && PKG=(--pkg-config-path "$PWD/.build/pkgconfig-shadow")
  (cd Server && swift build "${PKG[@]}" -c release --product asynclayer-server >/dev/null)
fi
MACHINE="$(nproc) cores, $(uname -m), $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD), server flags '${SERVER_FLAGS:-}'"

# shellcheck source=bench/server/serve.sh
. bench/server/serve.sh
# shellcheck disable=SC2086  # the flags are words
start_server_process "$SERVER" --port 0 --queues "$QUEUES" ${SERVER_FLAGS:-}
echo "== RSS: mixed load, wrk -c$CONNECTIONS + a hanging-up curl, $MINUTES min, samples every $EVERY s (server pid $SERVER_PID)"

python3 -c 'import json, sys; json.dump({"text": "Lorem ipsum dolor sit amet " * 900, "width": 1500, "scale": 2}, sys.stdout)' >"$WORK/big.json"
# The hang-up load is only real if the request would be drawn: check it once to the end.
status=$(curl -s -o /dev/null -w '%{http_code}' --data-binary "@$WORK/big.json" "$URL/tile.png?timeout=60000")
[ "$status" = 200 ] || { echo "the hanging-up request itself gets $status, not 200: fix big.json" >&2; exit 1; }
(
  while true; do
    curl -s -o /dev/null --max-time 0.2 --data-binary "@$WORK/big.json" "$URL/tile.png?timeout=60000" || true
    echo >>"$WORK/hangups"
  done
) &
HANGUP_PID=$!
wrk -t1 -c"$CONNECTIONS" -d"$((MINUTES * 60))s" --timeout 30s -s bench/server/mixed.lua "$URL" >"$WORK/mixed.txt" &
W=$!
samples="$OUT/rss-samples.txt"
echo "# seconds VmRSS_KiB VmHWM_KiB load1" >"$samples"
start=$(date +%s)
while kill -0 $W 2>/dev/null; do
  now=$(($(date +%s) - start))
  echo "$now $(awk '/VmRSS/ {print $2}' /proc/$SERVER_PID/status) $(awk '/VmHWM/ {print $2}' /proc/$SERVER_PID/status) $(awk '{print $1}' /proc/loadavg)" >>"$samples"
  sleep "$EVERY"
done
wait $W || true
kill "$HANGUP_PID" 2>/dev/null || true
wait "$HANGUP_PID" 2>/dev/null || true
HANGUP_PID=""
now=$(($(date +%s) - start))
echo "$now $(awk '/VmRSS/ {print $2}' /proc/$SERVER_PID/status) $(awk '/VmHWM/ {print $2}' /proc/$SERVER_PID/status) $(awk '{print $1}' /proc/loadavg)" >>"$samples"
# Leak or allocator? Ask glibc to hand back the free memory it keeps (malloc_trim) and sample
# again: what stays is memory in use. malloc_stats() prints the arenas' in-use bytes to the log.
if [ -n "${TRIM_PROBE:-}" ] && command -v gdb >/dev/null; then
  gdb -p "$SERVER_PID" -batch -ex 'call (void) malloc_stats()' -ex 'call (int) malloc_trim(0)' \
    -ex 'call (void) malloc_stats()' >"$WORK/gdb.txt" 2>&1 || true
  echo "after malloc_trim: VmRSS $(awk '/VmRSS/ {print $2}' /proc/$SERVER_PID/status) KiB" >"$OUT/rss-trim.txt"
  sleep 1
  grep -A200 'Arena 0' "$WORK/server.log" >>"$OUT/rss-trim.txt" || cp "$WORK/server.log" "$OUT/rss-server.log"
fi
curl -fsS "$URL/metrics" | grep -E '^asynclayer_(draws|http_requests_total|undelivered|overloaded|deadline|client_hangups)' >"$WORK/metrics.txt"
kill -TERM "$SERVER_PID"
wait "$SERVER_PID"
SERVER_PID=""
hangups=$(wc -l <"$WORK/hangups" 2>/dev/null || echo 0)
python3 - "$samples" "$WORK/mixed.txt" "$WORK/metrics.txt" "$MACHINE" "$MINUTES" "$CONNECTIONS" "$EVERY" "$hangups" "$samples" >"$OUT/rss.txt" <<'PY'
import sys
samples, wrkfile, metricsfile, machine, minutes, connections, every, hangups = sys.argv[1:9]
rows = [[float(x) for x in line.split()] for line in open(samples) if not line.startswith("#")]
print(f"RSS of the tile server under mixed load for {minutes} min (bench/server-rss.sh): wrk -t1 -c{connections} with")
print("bench/server/mixed.lua (tiles GET and POST of 5 sizes, PDF, PNG and SVG reports, 400s, 5 ms-deadline requests)")
print(f"plus {hangups} curl requests for a large tile that each hung up after 0.2 s; release build, {machine}.")
print(f"Samples every {every} s: {len(rows)}; load average (1 min) during the run: {min(r[3] for r in rows):.2f} to {max(r[3] for r in rows):.2f}.")
end = rows[-1][0]
def window(a, b): return [r for r in rows if a <= r[0] < b]
first = window(60, 120) or rows[:1]
last = window(end - 60, end + 1)
print(f"VmRSS max, minute 2 (after warm-up): {max(r[1] for r in first) / 1024:7.1f} MiB")
print(f"VmRSS max, last minute:              {max(r[1] for r in last) / 1024:7.1f} MiB")
print(f"VmHWM (peak RSS) at the end:         {rows[-1][2] / 1024:7.1f} MiB")
per_minute = []
m = 0
while m * 60 <= end:
    w = window(m * 60, (m + 1) * 60)
    if w: per_minute.append(f"{max(r[1] for r in w) / 1024:.0f}")
    m += 1
print("VmRSS max per minute: " + ", ".join(per_minute) + " MiB")
print()
print("wrk:")
print(open(wrkfile).read())
print("metrics at the end:")
print(open(metricsfile).read())
print(f"samples (seconds, VmRSS KiB, VmHWM KiB, load): {sys.argv[9]}")
PY
cat "$OUT/rss.txt"

#!/usr/bin/env bash
# The tile server under real HTTP clients (wrk), release builds only. Writes bench/results/server/:
#   throughput.txt   tiles/s and p50/p99 at 1, 2, 8, 64 connections vs `layerbench throughput --png fast` (same
#                    tile, same run, interleaved, REPEATS rounds, medians)
#   cancellation.txt + cancellation.svg   a share of clients with a deadline, cancellation on vs --no-cancel:
#                    CPU spent on draws nobody received (from /metrics) and p99 of the clients that stayed
#   rss.txt          peak RSS under mixed load for RSS_MINUTES minutes (sampled every 5 s)
# Usage: bench/server.sh [all|throughput|cancellation|rss]   (REPEATS=3 DURATION=10 RSS_MINUTES=10 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
WHAT=${1:-all}
REPEATS=${REPEATS:-3}
DURATION=${DURATION:-10}
RSS_MINUTES=${RSS_MINUTES:-10}
QUEUES=${QUEUES:-$(nproc)}
OUT=bench/results/server
mkdir -p "$OUT"
WORK=$(mktemp -d)
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill -TERM "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk (make test-server installs it)" >&2; exit 1; }

echo "building (release)…"
swift build -c release --product layerbench >/dev/null
(cd Server && swift build -c release --product asynclayer-server >/dev/null)
LAYERBENCH=.build/release/layerbench
SERVER=Server/.build/release/asynclayer-server
MACHINE="$(nproc) cores, $(uname -m), $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD)"

start_server() {
  "$SERVER" --port 0 --queues "$QUEUES" "$@" >"$WORK/server.log" 2>&1 &
  SERVER_PID=$!
  PORT=""
  for _ in $(seq 1 300); do
    PORT=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$WORK/server.log" | head -1)
    [ -n "$PORT" ] && break
    sleep 0.1
  done
  [ -n "$PORT" ] || { cat "$WORK/server.log"; exit 1; }
  URL="http://127.0.0.1:$PORT"
}
stop_server() {
  kill -TERM "$SERVER_PID"
  wait "$SERVER_PID" || { echo "server exited with $?" >&2; exit 1; }
  SERVER_PID=""
}
metric() { curl -fsS "$URL/metrics" | awk -v name="$1" '$1 == name {print $2}'; }
# wrk's figures: requests/s, p50 and p99 in ms, non-2xx count.
wrk_figures() {
  python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
def ms(label):
    m = re.search(r"^\s*" + label + r"%\s+([\d.]+)(us|ms|s)\b", text, re.M)
    if not m: return float("nan")
    v, unit = float(m.group(1)), m.group(2)
    return v / 1000 if unit == "us" else v * 1000 if unit == "s" else v
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
print(f"{rps:.1f} {ms('50'):.2f} {ms('99'):.2f} {int(non2xx.group(1)) if non2xx else 0}")
PY
}

# The tile of `layerbench throughput` (its default text and TextOptions' defaults: Sans 14, 375 pt, scale 2,
# padding 8, black on white).
TEXT="The quick brown fox jumps over the lazy dog while the async layer renders text tiles off the main thread, fast."
QTEXT=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$TEXT")
TILE_PATH="/tile.png?text=$QTEXT&font=Sans%2014&width=375&scale=2&padding=8"

if [ "$WHAT" = all ] || [ "$WHAT" = throughput ]; then
  echo "== throughput: $REPEATS rounds of layerbench (--workers $QUEUES) then wrk at 1, 2, 8, 64 connections, ${DURATION}s each"
  start_server
  curl -fsS -o /dev/null "$URL$TILE_PATH"
  raw="$OUT/throughput-raw.txt"
  : >"$raw"
  for round in $(seq 1 "$REPEATS"); do
    $LAYERBENCH throughput --png fast --workers "$QUEUES" --tiles 3000 --text "$TEXT" --json "$WORK/lb.json" >/dev/null
    lb=$(python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["tilesPerSecond"], 1))' "$WORK/lb.json")
    echo "round $round layerbench $lb" | tee -a "$raw"
    for c in 1 2 8 64; do
      wrk -t1 -c"$c" -d"${DURATION}s" --latency --timeout 10s "$URL$TILE_PATH" >"$WORK/wrk.txt"
      echo "round $round wrk c=$c $(wrk_figures "$WORK/wrk.txt")" | tee -a "$raw"
    done
    # The same at 64 connections without hang-up detection (--no-cancel): connections are kept alive,
    # which tells what consumeWithCancellationOnInboundClose's close after each response costs.
    stop_server
    start_server --no-cancel
    wrk -t1 -c64 -d"${DURATION}s" --latency --timeout 10s "$URL$TILE_PATH" >"$WORK/wrk.txt"
    echo "round $round wrk-keepalive c=64 $(wrk_figures "$WORK/wrk.txt")" | tee -a "$raw"
    stop_server
    start_server
  done
  stop_server
  python3 - "$raw" "$MACHINE" "$QUEUES" >"$OUT/throughput.txt" <<'PY'
import statistics, sys
raw, machine, queues = sys.argv[1], sys.argv[2], sys.argv[3]
lb, wrk = [], {}
for line in open(raw):
    parts = line.split()
    if parts[2] == "layerbench": lb.append(float(parts[3]))
    else:
        c = int(parts[3].split("=")[1])
        key = f"{c} keep-alive" if parts[2] == "wrk-keepalive" else c
        wrk.setdefault(key, []).append([float(x) for x in parts[4:8]])
base = statistics.median(lb)
print(f"Tile server vs `layerbench throughput --png fast --workers {queues}` (same tile: the throughput command's default")
print(f"text, Sans 14, 375 pt, scale 2, PNG), release builds, {machine}.")
print(f"Medians of {len(lb)} interleaved rounds; wrk -t1, {queues} draw queues; wrk runs on the same cores as the server.")
print(f"layerbench: {base:.1f} tiles/s (rounds: {', '.join(f'{x:.1f}' for x in lb)})")
print()
print("connections  tiles/s  of layerbench  p50 ms  p99 ms  non-2xx")
print("(the server answers drawing requests with Connection: close, the price of hang-up detection; the last")
print(" row is the --no-cancel server, whose connections stay open)")
for c in sorted(wrk, key=lambda k: (isinstance(k, str), k if isinstance(k, int) else 0)):
    rows = wrk[c]
    rps = statistics.median(r[0] for r in rows)
    p50 = statistics.median(r[1] for r in rows)
    p99 = statistics.median(r[2] for r in rows)
    bad = sum(int(r[3]) for r in rows)
    print(f"{c!s:>11}  {rps:7.1f}  {100 * rps / base:12.1f}%  {p50:6.2f}  {p99:6.2f}  {bad:7d}")
PY
  cat "$OUT/throughput.txt"
fi

if [ "$WHAT" = all ] || [ "$WHAT" = cancellation ]; then
  # 8 patient clients and 8 impatient ones (each request with a 100 ms deadline) on a heavier tile; the
  # impatient ones' draws, once past the deadline, are worth nothing.
  HEAVY="/tile.png?text=$(python3 -c 'import urllib.parse; print(urllib.parse.quote("The quick brown fox jumps over the lazy dog. " * 40))')&width=600&scale=2"
  DEADLINE_MS=${DEADLINE_MS:-100}
  echo "== cancellation: 8 patient + 8 impatient clients (timeout=${DEADLINE_MS}ms), ${DURATION}s, on vs --no-cancel, $REPEATS rounds"
  raw="$OUT/cancellation-raw.txt"
  : >"$raw"
  for round in $(seq 1 "$REPEATS"); do
    for mode in on off; do
      if [ "$mode" = on ]; then start_server; else start_server --no-cancel; fi
      curl -fsS -o /dev/null "$URL$HEAVY"
      cpu0=$(metric 'asynclayer_undelivered_draw_cpu_seconds_total')
      all0=$(curl -fsS "$URL/metrics" | awk '$1 ~ /^asynclayer_draw_cpu_seconds_total/ {s += $2} END {print s}')
      wrk -t1 -c8 -d"${DURATION}s" --latency --timeout 30s "$URL$HEAVY" >"$WORK/patient.txt" &
      P=$!
      wrk -t1 -c8 -d"${DURATION}s" --latency --timeout 30s "$URL$HEAVY&timeout=$DEADLINE_MS" >"$WORK/impatient.txt" &
      I=$!
      wait $P $I
      cpu1=$(metric 'asynclayer_undelivered_draw_cpu_seconds_total')
      all1=$(curl -fsS "$URL/metrics" | awk '$1 ~ /^asynclayer_draw_cpu_seconds_total/ {s += $2} END {print s}')
      queued=$(metric 'asynclayer_draws_cancelled_total{stage="queued"}')
      running=$(metric 'asynclayer_draws_cancelled_total{stage="running"}')
      stop_server
      read -r prps p50 p99 pbad < <(wrk_figures "$WORK/patient.txt")
      read -r irps i50 i99 ibad < <(wrk_figures "$WORK/impatient.txt")
      echo "round $round mode $mode wasted_cpu $(python3 -c "print(round($cpu1 - $cpu0, 3))") draw_cpu $(python3 -c "print(round($all1 - $all0, 3))") patient_rps $prps patient_p50 $p50 patient_p99 $p99 patient_non2xx $pbad impatient_rps $irps impatient_non2xx $ibad cancelled_queued $queued cancelled_running $running" | tee -a "$raw"
    done
  done
  python3 bench/server/cancellation_report.py "$raw" "$MACHINE" "$DEADLINE_MS" "$DURATION" "$OUT"
fi

if [ "$WHAT" = all ] || [ "$WHAT" = rss ]; then
  echo "== RSS: mixed load (bench/server/mixed.lua, 16 connections) for $RSS_MINUTES min, VmRSS every 5 s"
  start_server
  samples="$OUT/rss-samples.txt"
  : >"$samples"
  wrk -t1 -c16 -d"$((RSS_MINUTES * 60))s" --timeout 30s -s bench/server/mixed.lua "$URL" >"$WORK/mixed.txt" &
  W=$!
  t=0
  while kill -0 $W 2>/dev/null; do
    echo "$t $(awk '/VmRSS/ {print $2}' /proc/$SERVER_PID/status) $(awk '/VmHWM/ {print $2}' /proc/$SERVER_PID/status)" >>"$samples"
    sleep 5
    t=$((t + 5))
  done
  wait $W || true
  curl -fsS "$URL/metrics" | grep -E '^asynclayer_(draws|http_requests_total|undelivered|overloaded|deadline)' >"$WORK/metrics.txt"
  stop_server
  python3 - "$samples" "$WORK/mixed.txt" "$WORK/metrics.txt" "$MACHINE" "$RSS_MINUTES" >"$OUT/rss.txt" <<'PY'
import sys
samples, wrkfile, metricsfile, machine, minutes = sys.argv[1:6]
rows = [tuple(int(x) for x in line.split()) for line in open(samples) if len(line.split()) == 3]
print(f"Peak RSS of the server under mixed load for {minutes} min (bench/server/mixed.lua: tiles of 5 kinds, GET and POST,")
print(f"PDF and PNG reports, 400s, 5 ms-deadline requests; wrk -t1 -c16), release build, {machine}.")
first = [r for r in rows if r[0] <= 60]
last = [r for r in rows if r[0] >= rows[-1][0] - 60]
print(f"samples: {len(rows)} (every 5 s)")
print(f"RSS max over the first minute: {max(r[1] for r in first) / 1024:.1f} MiB")
print(f"RSS max over the last minute:  {max(r[1] for r in last) / 1024:.1f} MiB")
print(f"peak RSS (VmHWM) at the end:   {rows[-1][2] / 1024:.1f} MiB")
print(f"RSS per minute (max): " + ", ".join(
    f"{max(r[1] for r in rows if m * 60 <= r[0] < (m + 1) * 60) / 1024:.0f}"
    for m in range(int(rows[-1][0] // 60) + 1) if any(m * 60 <= r[0] < (m + 1) * 60 for r in rows)) + " MiB")
print()
print("wrk:")
print(open(wrkfile).read())
print("metrics at the end:")
print(open(metricsfile).read())
PY
  cat "$OUT/rss.txt"
fi

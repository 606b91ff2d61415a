#!/usr/bin/env bash
# The tile server under real HTTP clients (wrk), release builds only. Writes bench/results/server/:
#   throughput.txt   tiles/s and p50/p99 at 1, 2, 8, 64 connections vs `layerbench throughput --png fast` (same
#                    tile, same run, interleaved, REPEATS rounds, medians), the load average beside each
#                    round, and where the CPU goes at 64 connections (server threads by kind, wrk, layerbench)
#   cancellation.txt + cancellation.svg   a share of clients with a deadline, cancellation on vs --no-cancel:
#                    CPU spent on draws nobody received (from /metrics) and p99 of the clients that stayed
#   rss.txt          peak RSS under mixed load (bench/server-rss.sh, not part of `all`: it takes 10 minutes)
# Usage: bench/server.sh [all|throughput|cancellation|rss]   (REPEATS=3 DURATION=5 by default: about 2.5
# minutes for `all` once built, estimated from the run lengths)
set -euo pipefail
cd "$(dirname "$0")/.."
WHAT=${1:-all}
if [ "$WHAT" = rss ]; then exec bench/server-rss.sh; fi
REPEATS=${REPEATS:-3}
DURATION=${DURATION:-5}
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

# SERVER=… LAYERBENCH=… use binaries built elsewhere (then nothing is built).
LAYERBENCH=${LAYERBENCH:-.build/release/layerbench}
SERVER=${SERVER:-Server/.build/release/asynclayer-server}
PKG=()
[ -d .build/pkgconfig-shadow ] && PKG=(--pkg-config-path "$PWD/.build/pkgconfig-shadow")
if [ "$LAYERBENCH" = .build/release/layerbench ]; then
  echo "building layerbench (release)…"
  swift build "${PKG[@]}" -c release --product layerbench >/dev/null
fi
if [ "$SERVER" = Server/.build/release/asynclayer-server ]; then
  echo "building asynclayer-server (release)…"
  (cd Server && swift build "${PKG[@]}" -c release --product asynclayer-server >/dev/null)
fi
MACHINE="$(nproc) cores, $(uname -m), $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD)"
load() { awk '{print $1}' /proc/loadavg; }

# shellcheck source=bench/server/serve.sh
. bench/server/serve.sh
start_server() { start_server_process "$SERVER" --port 0 --queues "$QUEUES" "$@"; }
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
  raw="$OUT/throughput-raw.txt"
  : >"$raw"
  for round in $(seq 1 "$REPEATS"); do
    start_server
    curl -fsS -o /dev/null "$URL$TILE_PATH"
    # layerbench's own CPU (user + system seconds, start-up and warm-up included) for its tiles.
    /usr/bin/time -f "%U %S" -o "$WORK/lb.time" \
      $LAYERBENCH throughput --png fast --workers "$QUEUES" --tiles 1500 --text "$TEXT" --json "$WORK/lb.json" >/dev/null
    read -r lb lbtiles < <(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(round(j["tilesPerSecond"], 1), j["tilesPerWorker"] * j["workers"])' "$WORK/lb.json")
    echo "round $round layerbench $lb cpu $(awk '{print $1 + $2}' "$WORK/lb.time") tiles $lbtiles load $(load)" | tee -a "$raw"
    for c in 1 2 8 64; do
      python3 bench/server/threadcpu.py snap "$SERVER_PID" "$WORK/cpu0.json"
      l=$(load)
      /usr/bin/time -f "%U %S" -o "$WORK/wrk.time" \
        wrk -t1 -c"$c" -d"${DURATION}s" --latency --timeout 10s "$URL$TILE_PATH" >"$WORK/wrk.txt"
      python3 bench/server/threadcpu.py snap "$SERVER_PID" "$WORK/cpu1.json"
      requests=$(awk '/requests in/ {print $1}' "$WORK/wrk.txt")
      echo "round $round wrk c=$c $(wrk_figures "$WORK/wrk.txt") requests $requests wrk_cpu $(awk '{print $1 + $2}' "$WORK/wrk.time") $(python3 bench/server/threadcpu.py diff "$WORK/cpu0.json" "$WORK/cpu1.json") load $l" | tee -a "$raw"
    done
    stop_server
    # The same at 64 connections without cancellation (--no-cancel): what hang-up detection costs.
    start_server --no-cancel
    curl -fsS -o /dev/null "$URL$TILE_PATH"
    python3 bench/server/threadcpu.py snap "$SERVER_PID" "$WORK/cpu0.json"
    l=$(load)
    /usr/bin/time -f "%U %S" -o "$WORK/wrk.time" \
      wrk -t1 -c64 -d"${DURATION}s" --latency --timeout 10s "$URL$TILE_PATH" >"$WORK/wrk.txt"
    python3 bench/server/threadcpu.py snap "$SERVER_PID" "$WORK/cpu1.json"
    requests=$(awk '/requests in/ {print $1}' "$WORK/wrk.txt")
    echo "round $round wrk-nocancel c=64 $(wrk_figures "$WORK/wrk.txt") requests $requests wrk_cpu $(awk '{print $1 + $2}' "$WORK/wrk.time") $(python3 bench/server/threadcpu.py diff "$WORK/cpu0.json" "$WORK/cpu1.json") load $l" | tee -a "$raw"
    stop_server
  done
  python3 bench/server/throughput_report.py "$raw" "$MACHINE" "$QUEUES" "$DURATION" >"$OUT/throughput.txt"
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
      l=$(load)
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
      echo "round $round mode $mode wasted_cpu $(python3 -c "print(round($cpu1 - $cpu0, 3))") draw_cpu $(python3 -c "print(round($all1 - $all0, 3))") patient_rps $prps patient_p50 $p50 patient_p99 $p99 patient_non2xx $pbad impatient_rps $irps impatient_non2xx $ibad cancelled_queued $queued cancelled_running $running load $l" | tee -a "$raw"
    done
  done
  python3 bench/server/cancellation_report.py "$raw" "$MACHINE" "$DEADLINE_MS" "$DURATION" "$OUT"
fi


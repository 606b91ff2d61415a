#!/usr/bin/env bash
# Where a tile request's CPU goes: `perf record -g` on the release server while wrk keeps 64 connections
# busy with the throughput tile, then the flat profile (self time by function and by library) and the
# CPU per request from /proc. Usage: bench/server/profile.sh [server flags, e.g. --no-cancel]
# (SECONDS_=8 by default; the server is bench/server.sh's SERVER). Writes to stdout.
set -euo pipefail
cd "$(dirname "$0")/../.."
SERVER=${SERVER:-Server/.build/release/asynclayer-server}
SECONDS_=${SECONDS_:-8}
WORK=$(mktemp -d)
PID=""
trap '[ -n "$PID" ] && kill -TERM "$PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT
"$SERVER" --port 0 --queues "$(nproc)" "$@" >"$WORK/server.log" 2>&1 &
PID=$!
for _ in $(seq 1 300); do
  PORT=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$WORK/server.log" | head -1)
  [ -n "$PORT" ] && break
  sleep 0.1
done
TEXT="The quick brown fox jumps over the lazy dog while the async layer renders text tiles off the main thread, fast."
QTEXT=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$TEXT")
URL="http://127.0.0.1:$PORT/tile.png?text=$QTEXT&font=Sans%2014&width=375&scale=2&padding=8"
curl -fsS -o /dev/null "$URL"
wrk -t1 -c64 -d"$((SECONDS_ + 4))s" --timeout 10s "$URL" >"$WORK/wrk.txt" &
WRK=$!
sleep 2
python3 bench/server/threadcpu.py snap "$PID" "$WORK/cpu0.json"
before=$(curl -fsS "http://127.0.0.1:$PORT/metrics" | awk '$1 == "asynclayer_draws_completed_total" {print $2}')
perf record -F 999 -g -p "$PID" -o "$WORK/perf.data" -- sleep "$SECONDS_" 2>/dev/null
after=$(curl -fsS "http://127.0.0.1:$PORT/metrics" | awk '$1 == "asynclayer_draws_completed_total" {print $2}')
python3 bench/server/threadcpu.py snap "$PID" "$WORK/cpu1.json"
wait "$WRK"
requests=$(python3 -c "print(int($after - $before))")
echo "server $* under wrk -c64, ${SECONDS_}s of perf at 999 Hz; $(date -u +%Y-%m-%dT%H:%MZ), load $(awk '{print $1}' /proc/loadavg), commit $(git rev-parse --short HEAD)"
echo "draws completed while recording: $requests"
echo "CPU seconds while recording: $(python3 bench/server/threadcpu.py diff "$WORK/cpu0.json" "$WORK/cpu1.json")"
python3 - "$WORK/cpu0.json" "$WORK/cpu1.json" "$requests" <<'PY'
import json, os, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
n = int(sys.argv[3])
print(f"server CPU per request: {1000 * (b['total'] - a['total']) / os.sysconf('SC_CLK_TCK') / n:.3f} ms")
PY
echo
echo "== self time by library (dso)"
perf report -i "$WORK/perf.data" --stdio --no-children --sort dso 2>/dev/null | grep -v '^#' | grep -v '^$' | head -25
echo
echo "== self time by thread name"
perf report -i "$WORK/perf.data" --stdio --no-children --sort comm 2>/dev/null | grep -v '^#' | grep -v '^$' | head -12
echo
echo "== self time by function (top 60)"
perf report -i "$WORK/perf.data" --stdio --no-children --sort sym -g none 2>/dev/null | grep -v '^#' | grep -v '^$' \
  | head -60 | swift demangle --simplified | cut -c1-200
echo
echo "== by thread name and function (top 60)"
perf report -i "$WORK/perf.data" --stdio --no-children --sort comm,sym -g none 2>/dev/null | grep -v '^#' | grep -v '^$' \
  | head -60 | swift demangle --simplified | cut -c1-200
cp "$WORK/perf.data" "${PERF_DATA:-/tmp/server-perf.data}" 2>/dev/null || true

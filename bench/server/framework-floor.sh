#!/usr/bin/env bash
# How far below layerbench any HTTP server on this machine must stay, with wrk on the same cores:
# the CPU per tile request of servers that do nothing but answer the tile's PNG (read once), from
# the bottom up — a one-thread epoll server in C (the kernel's loopback TCP work), a bare SwiftNIO
# HTTP/1 pipeline, a one-route Hummingbird 2 app — and ours answering from the handler and after a
# pool run that draws nothing (--bench-skip-draw handler|pool), and ours drawing every tile (the
# goal's server; its "of layerbench" is the goal's ratio, per round), interleaved with
# `layerbench throughput --png fast` in every round. For each: bound = layerbench's CPU per tile /
# (that + the server's CPU per request + wrk's), the share of layerbench a server could reach if its
# draws cost what layerbench's do and this floor were all it added.
# PINNED=1: the server and layerbench (1 worker) on core 0, wrk alone on core 1, so wrk takes no CPU
# from the server: bound = layerbench's CPU per tile / (that + the server's CPU per request).
# Usage: bench/server/framework-floor.sh [output file]   (REPEATS=3 DURATION=5 CONNECTIONS=64 PINNED=0;
#        SERVER=…, LAYERBENCH=… release builds; builds bench/server/floor's binaries if missing)
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-bench/results/server/framework-floor-$(date -u +%Y-%m-%dT%H%M).txt}
REPEATS=${REPEATS:-3}
DURATION=${DURATION:-5}
CONNECTIONS=${CONNECTIONS:-64}
SERVER=${SERVER:-Server/.build/release/asynclayer-server}
LAYERBENCH=${LAYERBENCH:-.build/release/layerbench}
FLOOR=bench/server/floor
PINNED=${PINNED:-0}
SERVER_CPU=() WRK_CPU=() WORKERS=$(nproc)
if [ "$PINNED" = 1 ]; then SERVER_CPU=(taskset -c 0) WRK_CPU=(taskset -c 1) WORKERS=1; fi
WORK=$(mktemp -d)
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill -TERM "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
[ -x "$FLOOR/.build/release/nio-floor" ] && [ -x "$FLOOR/.build/release/hb-floor" ] ||
  (cd "$FLOOR" && swift build -c release >/dev/null)
cc -O2 -Wall -Wextra -o "$WORK/c-floor" "$FLOOR/floor_server.c"

TEXT="The quick brown fox jumps over the lazy dog while the async layer renders text tiles off the main thread, fast."
QTEXT=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$TEXT")
TILE_PATH="/tile.png?text=$QTEXT&font=Sans%2014&width=375&scale=2&padding=8"
"$LAYERBENCH" render --text "$TEXT" --font "Sans 14" --width 375 --scale 2 --padding 8 -o "$WORK/tile.png" >/dev/null

# shellcheck source=bench/server/serve.sh
. bench/server/serve.sh
stop() { kill -TERM "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=""; }
KINDS=(c nio hummingbird ours-handler ours-pool ours-draw)
start() {
  case $1 in
    c) start_server_process "${SERVER_CPU[@]}" "$WORK/c-floor" "$WORK/tile.png" ;;
    nio) start_server_process "${SERVER_CPU[@]}" "$FLOOR/.build/release/nio-floor" "$WORK/tile.png" 1 ;;
    hummingbird) start_server_process "${SERVER_CPU[@]}" "$FLOOR/.build/release/hb-floor" "$WORK/tile.png" ;;
    ours-handler) start_server_process "${SERVER_CPU[@]}" "$SERVER" --port 0 --bench-skip-draw handler ;;
    ours-pool) start_server_process "${SERVER_CPU[@]}" "$SERVER" --port 0 --bench-skip-draw pool ;;
    ours-draw) start_server_process "${SERVER_CPU[@]}" "$SERVER" --port 0 ;;  # every tile drawn: the goal's server
  esac
}
{
  echo "# bench/server/framework-floor.sh (PINNED=$PINNED): $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD), wrk -t1 -c$CONNECTIONS ${DURATION}s, $REPEATS rounds"
  echo "# uptime: $(uptime)"
  echo "# the tile: $(stat -c %s "$WORK/tile.png") bytes of PNG"
} | tee "$OUT"
raw="$WORK/raw.txt"
for round in $(seq 1 "$REPEATS"); do
  for kind in "${KINDS[@]}"; do
    start "$kind"
    curl -fsS -o "$WORK/got.png" "$URL$TILE_PATH"
    [ "${kind#ours-}" != "$kind" ] || cmp -s "$WORK/got.png" "$WORK/tile.png" ||
      { echo "$kind answered other bytes" >&2; exit 1; }
    "${WRK_CPU[@]}" wrk -t1 -c"$CONNECTIONS" -d1s "$URL$TILE_PATH" >/dev/null
    load=$(awk '{print $1}' /proc/loadavg)
    perf stat -x, -e task-clock -p "$SERVER_PID" -o "$WORK/perf.txt" &
    PERF=$!
    /usr/bin/time -f "%U %S" -o "$WORK/wrk.time" \
      "${WRK_CPU[@]}" wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --latency "$URL$TILE_PATH" >"$WORK/wrk.txt"
    kill -INT $PERF
    wait $PERF || true
    stop
    python3 - "$WORK/wrk.txt" "$WORK/perf.txt" "$WORK/wrk.time" "$kind" "$round" "$load" <<'PY' | tee -a "$raw" "$OUT"
import re, sys
wrk, perf, wtime, kind, rnd, load = sys.argv[1:7]
text = open(wrk).read()
requests = int(re.search(r"(\d+) requests in", text).group(1))
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
cpu_ms = next(float(l.split(",")[0]) for l in open(perf) if ",task-clock," in l)
wrk_cpu = sum(float(x) for x in open(wtime).read().split())
print(f"{kind} round {rnd} rps {rps:.1f} requests {requests} non2xx {int(non2xx.group(1)) if non2xx else 0} "
      f"ms_per_request {cpu_ms / requests:.4f} wrk_ms_per_request {1000 * wrk_cpu / requests:.4f} load {load}")
PY
  done
  /usr/bin/time -f "%U %S" -o "$WORK/lb.time" \
    "${SERVER_CPU[@]}" "$LAYERBENCH" throughput --png fast --workers "$WORKERS" --tiles 1500 --text "$TEXT" --json "$WORK/lb.json" >/dev/null
  python3 - "$WORK/lb.json" "$WORK/lb.time" "$round" "$(awk '{print $1}' /proc/loadavg)" <<'PY' | tee -a "$raw" "$OUT"
import json, sys
j = json.load(open(sys.argv[1]))
cpu = sum(float(x) for x in open(sys.argv[2]).read().split())
tiles = j["tilesPerWorker"] * j["workers"]
print(f"layerbench round {sys.argv[3]} rps {j['tilesPerSecond']:.1f} ms_per_tile {1000 * cpu / tiles:.4f} workers {j['workers']} load {sys.argv[4]}")
PY
done
python3 - "$raw" "$PINNED" <<'PY' | tee -a "$OUT"
import statistics, sys
pinned = sys.argv[2] == "1"
rows = {}
for line in open(sys.argv[1]):
    p = line.split()
    rows.setdefault(p[0], []).append(dict(zip(p[3::2], p[4::2])))
med = lambda kind, key: statistics.median(float(r[key]) for r in rows[kind])
# layerbench's CPU per tile in its timed loop: workers / tiles per second (its workers never wait; the
# process's CPU time, ms_per_tile, also carries start-up and warm-up, about 15% of a 1,500-tile run).
workers = 1 if pinned else 2
lb = statistics.median(1000 * float(r.get("workers", workers)) / float(r["rps"]) for r in rows["layerbench"])
print(f"\nmedians: layerbench {med('layerbench', 'rps'):.0f} tiles/s, {lb:.4f} ms CPU per tile in its timed loop "
      f"({med('layerbench', 'ms_per_tile'):.4f} with start-up)")
print("server        rps  of layerbench  server ms/request  wrk ms/request  bound (share of layerbench reachable;")
print("                                                                        for ours-draw: by CPU, its draws included)")
for kind in [k for k in rows if k != "layerbench"]:
    s, w = med(kind, "ms_per_request"), med(kind, "wrk_ms_per_request")
    share = statistics.median(float(r["rps"]) / float(l["rps"]) for r, l in zip(rows[kind], rows["layerbench"]))
    print(f"{kind:<13} {med(kind, 'rps'):7.0f}  {100 * share:12.1f}%  {s:17.4f}  {w:14.4f}  {100 * lb / ((0 if kind == 'ours-draw' else lb) + s + (0 if pinned else w)):5.1f}%")
PY

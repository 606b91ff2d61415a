#!/usr/bin/env bash
# CPU per tile request of server variants, interleaved: each round runs every variant (a set of server
# flags) under `wrk -t1 -c$CONNECTIONS` for $DURATION s, then `layerbench throughput --png fast` on the
# same tile, and counts for each run, over the same window:
#   wrk's requests (its own count), draws completed (the server's /metrics), the server's CPU seconds by
#   `perf stat -e task-clock` (exact, all threads), its context switches, and the CPU by thread kind
#   from /proc (bench/server/threadcpu.py), so CPU per request is per wrk request AND per draw.
# Usage: VARIANTS='base:;nio:--executor nio' bench/server/ab.sh   (REPEATS=3 DURATION=5 CONNECTIONS=64;
#        SCRIPT=bench/server/mixed.lua: wrk's requests from that script instead of the throughput tile;
#        a variant's flags that start with @PATH run the binary at PATH instead of SERVER: 'old:@/tmp/server --no-cancel')
# Prints one line per run and the medians per variant; SERVER=… and LAYERBENCH=… name the binaries
# (release builds, not built here).
set -euo pipefail
cd "$(dirname "$0")/../.."
REPEATS=${REPEATS:-3}
DURATION=${DURATION:-5}
CONNECTIONS=${CONNECTIONS:-64}
QUEUES=${QUEUES:-$(nproc)}
VARIANTS=${VARIANTS:-default:}
SERVER=${SERVER:-Server/.build/release/asynclayer-server}
LAYERBENCH=${LAYERBENCH:-.build/release/layerbench}
WORK=$(mktemp -d)
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill -TERM "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
TEXT="The quick brown fox jumps over the lazy dog while the async layer renders text tiles off the main thread, fast."
QTEXT=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$TEXT")
TILE_PATH="/tile.png?text=$QTEXT&font=Sans%2014&width=375&scale=2&padding=8"
SCRIPT=${SCRIPT:-}
WRK_ARGS=()
[ -n "$SCRIPT" ] && WRK_ARGS=(-s "$SCRIPT") && TILE_PATH=""
echo "# $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD), wrk -t1 -c$CONNECTIONS ${DURATION}s ${SCRIPT:-(throughput tile)}, $QUEUES queues"
echo "# uptime: $(uptime)"

# shellcheck source=bench/server/serve.sh
. bench/server/serve.sh
start_server() {
  local binary=$SERVER flags=$1
  if [ "${flags#@}" != "$flags" ]; then
    binary=${flags%% *}
    binary=${binary#@}
    flags=$([ "${flags#* }" = "$flags" ] && echo "" || echo "${flags#* }")
  fi
  # shellcheck disable=SC2086  # the variant's flags are words
  start_server_process "$binary" --port 0 --queues "$QUEUES" $flags
}
completed() { curl -fsS "$URL/metrics" | awk '$1 == "asynclayer_draws_completed_total" {print $2}'; }

IFS=';' read -r -a variants <<<"$VARIANTS"
raw="$WORK/raw.txt"
for round in $(seq 1 "$REPEATS"); do
  for variant in "${variants[@]}"; do
    label=${variant%%:*}
    flags=${variant#*:}
    start_server "$flags"
    # Warm: fonts, glyph caches, connections' first requests.
    wrk -t1 -c"$CONNECTIONS" -d1s "${WRK_ARGS[@]}" "$URL$TILE_PATH" >/dev/null
    load=$(awk '{print $1}' /proc/loadavg)
    d0=$(completed)
    python3 bench/server/threadcpu.py snap "$SERVER_PID" "$WORK/cpu0.json"
    perf stat -x, -e task-clock,context-switches -p "$SERVER_PID" -o "$WORK/perf.txt" &
    PERF=$!
    /usr/bin/time -f "%U %S" -o "$WORK/wrk.time" \
      wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --latency --timeout 10s "${WRK_ARGS[@]}" "$URL$TILE_PATH" >"$WORK/wrk.txt"
    kill -INT $PERF
    wait $PERF || true
    python3 bench/server/threadcpu.py snap "$SERVER_PID" "$WORK/cpu1.json"
    d1=$(completed)
    stop_server
    python3 - "$WORK/wrk.txt" "$WORK/perf.txt" "$WORK/wrk.time" "$d0" "$d1" \
      "$(python3 bench/server/threadcpu.py diff "$WORK/cpu0.json" "$WORK/cpu1.json")" "$label" "$round" "$load" <<'PY' | tee -a "$raw"
import re, sys
wrk, perf, wtime, d0, d1, split, label, rnd, load = sys.argv[1:10]
text = open(wrk).read()
requests = int(re.search(r"(\d+) requests in", text).group(1))
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
def ms(label):
    m = re.search(r"^\s*" + label + r"%\s+([\d.]+)(us|ms|s)\b", text, re.M)
    v, unit = float(m.group(1)), m.group(2)
    return v / 1000 if unit == "us" else v * 1000 if unit == "s" else v
non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
counters = {}
for line in open(perf):
    parts = line.strip().split(",")
    if len(parts) > 2 and parts[0] and parts[0][0].isdigit():
        counters[parts[2]] = float(parts[0])
cpu_ms = counters["task-clock"]  # msec
switches = counters["context-switches"]
draws = int(float(d1) - float(d0))
wrk_cpu = sum(float(x) for x in open(wtime).read().split())
print(f"{label} round {rnd} rps {rps:.1f} p50 {ms('50'):.2f} p99 {ms('99'):.2f} non2xx {int(non2xx.group(1)) if non2xx else 0} "
      f"requests {requests} draws {draws} cpu_ms {cpu_ms:.0f} ms_per_request {cpu_ms / requests:.4f} "
      f"ms_per_draw {cpu_ms / draws if draws else float('nan'):.4f} switches_per_request {switches / requests:.2f} wrk_ms_per_request {1000 * wrk_cpu / requests:.4f} "
      f"{split.replace('=', ' ')} load {load}")
PY
  done
  /usr/bin/time -f "%U %S" -o "$WORK/lb.time" \
    "$LAYERBENCH" throughput --png fast --workers "$QUEUES" --tiles 1500 --text "$TEXT" --json "$WORK/lb.json" >/dev/null
  python3 - "$WORK/lb.json" "$WORK/lb.time" "$round" "$(awk '{print $1}' /proc/loadavg)" <<'PY' | tee -a "$raw"
import json, sys
j = json.load(open(sys.argv[1]))
cpu = sum(float(x) for x in open(sys.argv[2]).read().split())
tiles = j["tilesPerWorker"] * j["workers"]
print(f"layerbench round {sys.argv[3]} rps {j['tilesPerSecond']:.1f} ms_per_tile {1000 * cpu / tiles:.4f} load {sys.argv[4]}")
PY
done
python3 - "$raw" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    p = line.split()
    f = dict(zip(p[3::2], p[4::2]))
    rows.setdefault(p[0], []).append(f)
print()
print("medians:")
lb = statistics.median(float(r["rps"]) for r in rows.pop("layerbench"))
print(f"layerbench {lb:.1f} tiles/s")
for label, rs in rows.items():
    med = lambda k: statistics.median(float(r[k]) for r in rs)
    print(f"{label:>12} {med('rps'):7.1f} tiles/s = {100 * med('rps') / lb:5.1f}% of layerbench, p50 {med('p50'):.2f} ms p99 {med('p99'):.2f} ms, "
          f"server CPU {med('ms_per_request'):.3f} ms/request ({med('ms_per_draw'):.3f}/draw), "
          f"{med('switches_per_request'):.2f} switches/request, draw {1000 * med('draw') / med('requests'):.3f} "
          f"nio {1000 * med('nio') / med('requests'):.3f} swift {1000 * med('swift') / med('requests'):.3f} ms/request (/proc)")
PY

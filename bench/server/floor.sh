#!/usr/bin/env bash
# The floor under a tile request's cost, and the most the server can reach against layerbench on
# these cores. One command: bench/server/ab.sh with the server drawing every tile ("draw"), answering
# the first tile's PNG after a pool run that draws nothing ("pool": HTTP, parsing, metrics, deadline,
# hang-up watch, the hop to a draw thread and back) and answering it straight from the handler
# ("handler": HTTP, routing, parsing, metrics), each also with `--executor nio`, interleaved with
# `layerbench throughput --png fast` in every round (REPEATS=5 DURATION=5 by default).
# Then: bound = layerbench's CPU per tile / (that + the floor + wrk's CPU per request), the ratio the
# server would reach if its draws cost what layerbench's do and the floor were all it added.
# Usage: bench/server/floor.sh [output file]   (SERVER=…, LAYERBENCH=… as for ab.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-bench/results/server/floor-$(date -u +%Y-%m-%dT%H%M).txt}
REPEATS=${REPEATS:-5} DURATION=${DURATION:-5} \
  VARIANTS=${VARIANTS:-'draw:;pool:--bench-skip-draw pool;handler:--bench-skip-draw handler;draw-nio:--executor nio;pool-nio:--executor nio --bench-skip-draw pool;handler-nio:--executor nio --bench-skip-draw handler'} \
  bench/server/ab.sh | tee "$OUT"
python3 - "$OUT" <<'PY' | tee -a "$OUT"
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) < 4 or p[1] != "round":
        continue
    rows.setdefault(p[0], []).append(dict(zip(p[3::2], p[4::2])))
med = lambda label, key: statistics.median(float(r[key]) for r in rows[label])
lb = med("layerbench", "ms_per_tile")
print()
print(f"floor (server CPU per request, medians): layerbench {lb:.3f} ms per tile")
for executor in ["", "-nio"]:
    if "draw" + executor not in rows:
        continue
    draw, wrk = med("draw" + executor, "ms_per_request"), med("draw" + executor, "wrk_ms_per_request")
    line = f"  {'swift' if not executor else 'nio':>5}: draw {draw:.3f} ms"
    for kind in ["pool", "handler"]:
        if kind + executor in rows:
            floor = med(kind + executor, "ms_per_request")
            line += f", {kind} {floor:.3f} ms (bound {100 * lb / (lb + floor + wrk):.1f}%)"
    line += f"; draw - pool = {draw - med('pool' + executor, 'ms_per_request'):.3f} ms; wrk {wrk:.3f} ms/request"
    print(line)
PY

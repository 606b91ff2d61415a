#!/usr/bin/env bash
# Regenerates every figure and chart of "What cancellation saves" in docs/performance.md
# (`make bench-cancellation`). Wall-clock benchmarks: run it on an otherwise quiet machine.
#
#   bench/cancellation.sh                 medians of 5 runs per point (about 3 hours on 2 cores)
#   REPEATS=7 bench/cancellation.sh       more runs per point
#   QUICK=1 bench/cancellation.sh         one run per point on small grids: checks the script (~10 min)
#
# Output: bench/results/cancellation/ (OUT=... to change): one .txt table, one .json and the
# charts (.png) per step, and conditions.txt (machine, load average before and after).
set -euo pipefail
cd "$(dirname "$0")/.."

REPEATS=${REPEATS:-5}
OUT=${OUT:-bench/results/cancellation}
LB=${LB:-.build/release/layerbench}
if [ "${QUICK:-0}" = 1 ]; then
  REPEATS=1
  SPEEDS_SWEEP="0.5,2"; COSTS_SWEEP="light,heavy"; PREFETCH="0,600,adaptive"; SPEEDS="1,4"
  LENGTHS="0.5,1"; TYPING_LENGTHS="1,2"
fi
# Every grid and the repeats of the long steps can be narrowed from the environment, e.g.
#   SWEEP_REPEATS=1 LENGTH_REPEATS=1 SPEEDS=1,2,4,8 PREFETCH=0,300,600,adaptive bench/cancellation.sh
SPEEDS_SWEEP=${SPEEDS_SWEEP:-0.5,1,2,4}; COSTS_SWEEP=${COSTS_SWEEP:-light,standard,heavy}
PREFETCH=${PREFETCH:-0,150,300,600,1200,2400,adaptive}; SPEEDS=${SPEEDS:-0.5,1,2,3,4,6,8}
LENGTHS=${LENGTHS:-0.5,1,2,4}; TYPING_LENGTHS=${TYPING_LENGTHS:-1,2,5,10}
SWEEP_REPEATS=${SWEEP_REPEATS:-$REPEATS}; LENGTH_REPEATS=${LENGTH_REPEATS:-$REPEATS}
CHART_REPEATS=${CHART_REPEATS:-$REPEATS}  # the prefetch-distance and fling-speed charts
[ -x "$LB" ] || { echo "build first: swift build -c release --product layerbench" >&2; exit 1; }
mkdir -p "$OUT"
{
  echo "date: $(date -u +%FT%TZ)"; echo "cpus: $(nproc)"; echo "kernel: $(uname -r)"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"; echo "runs per point: $REPEATS (prefetch and speed charts $CHART_REPEATS, load sweep $SWEEP_REPEATS, storm lengths $LENGTH_REPEATS)"
} > "$OUT/conditions.txt"

run() {
  local name=$1; shift
  echo "== $name: layerbench $*"
  "$LB" "$@" --json "$OUT/$name.json" --chart "$OUT/$name.png" | tee "$OUT/$name.txt"
}

# Most important first, so that a run cut short still has the goals' figures.
# 1. The default fling script, every mode, idle and beside two busy threads.
run scroll-default scroll --sweep --sweep-prefetch adaptive --sweep-speeds 1 --sweep-costs standard \
  --sweep-loads 0,2 --repeats "$REPEATS"
# 2. Redraw storms at their standard lengths (resize 2 s, typing 5 s), idle and loaded.
run storm storm --repeats "$REPEATS"
run storm-loaded storm --repeats "$REPEATS" --background-load 2
# 3. Stale frames against prefetch distance: fixed distances in points and the adaptive ranges.
run scroll-prefetch scroll --modes async --sweep --sweep-prefetch "$PREFETCH" --sweep-speeds 1 \
  --sweep-costs standard --sweep-loads 0,2 --repeats "$CHART_REPEATS"
# 4. Stale frames against fling speed with the adaptive ranges: where prefetch stops keeping up.
run scroll-speed scroll --modes async --sweep --sweep-prefetch adaptive --sweep-speeds "$SPEEDS" \
  --sweep-costs standard --sweep-loads 0,2 --repeats "$CHART_REPEATS"
# 5. The load sweep: fling speed × cell cost × background load, per mode.
run scroll-sweep scroll --modes sync,async-nocancel,async --sweep --sweep-prefetch adaptive \
  --sweep-speeds "$SPEEDS_SWEEP" --sweep-costs "$COSTS_SWEEP" --sweep-loads 0,2 --repeats "$SWEEP_REPEATS"
# 6. No-cancel's backlog against the storm's length.
run storm-resize-lengths storm --scenarios resize --lengths "$LENGTHS" --repeats "$LENGTH_REPEATS"
run storm-typing-lengths storm --scenarios typing --lengths "$TYPING_LENGTHS" --repeats "$LENGTH_REPEATS"
run storm-resize-lengths-loaded storm --scenarios resize --lengths "$LENGTHS" --repeats "$LENGTH_REPEATS" --background-load 2
run storm-typing-lengths-loaded storm --scenarios typing --lengths "$TYPING_LENGTHS" --repeats "$LENGTH_REPEATS" --background-load 2

echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/conditions.txt"
echo "wrote $OUT"

#!/usr/bin/env bash
# Regenerates every figure and chart of the README section "What cancellation saves"
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
else
  SPEEDS_SWEEP="0.5,1,2,4"; COSTS_SWEEP="light,standard,heavy"; PREFETCH="0,150,300,600,1200,2400,adaptive"
  SPEEDS="0.5,1,2,3,4,6,8"; LENGTHS="0.5,1,2,4"; TYPING_LENGTHS="1,2,5,10"
fi
[ -x "$LB" ] || { echo "build first: swift build -c release --product layerbench" >&2; exit 1; }
mkdir -p "$OUT"
{
  echo "date: $(date -u +%FT%TZ)"; echo "cpus: $(nproc)"; echo "kernel: $(uname -r)"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"; echo "runs per point: $REPEATS"
} > "$OUT/conditions.txt"

run() {
  local name=$1; shift
  echo "== $name: layerbench $*"
  "$LB" "$@" --json "$OUT/$name.json" --chart "$OUT/$name.png" | tee "$OUT/$name.txt"
}

# 1. The default fling script, every mode, idle and beside two busy threads.
run scroll-default scroll --sweep --sweep-prefetch adaptive --sweep-speeds 1 --sweep-costs standard \
  --sweep-loads 0,2 --repeats "$REPEATS"
# 2. Stale frames against prefetch distance: fixed distances in points and the adaptive ranges.
run scroll-prefetch scroll --modes async --sweep --sweep-prefetch "$PREFETCH" --sweep-speeds 1 \
  --sweep-costs standard --sweep-loads 0,2 --repeats "$REPEATS"
# 3. Stale frames against fling speed with the adaptive ranges: where prefetch stops keeping up.
run scroll-speed scroll --modes async --sweep --sweep-prefetch adaptive --sweep-speeds "$SPEEDS" \
  --sweep-costs standard --sweep-loads 0,2 --repeats "$REPEATS"
# 4. The load sweep: fling speed × cell cost × background load, per mode.
run scroll-sweep scroll --modes sync,async-nocancel,async --sweep --sweep-prefetch adaptive \
  --sweep-speeds "$SPEEDS_SWEEP" --sweep-costs "$COSTS_SWEEP" --sweep-loads 0,2 --repeats "$REPEATS"
# 5. Redraw storms at their standard lengths (resize 2 s, typing 5 s), idle and loaded.
run storm storm --repeats "$REPEATS"
run storm-loaded storm --repeats "$REPEATS" --background-load 2
# 6. No-cancel's backlog against the storm's length.
run storm-resize-lengths storm --scenarios resize --lengths "$LENGTHS" --repeats "$REPEATS"
run storm-typing-lengths storm --scenarios typing --lengths "$TYPING_LENGTHS" --repeats "$REPEATS"

echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/conditions.txt"
echo "wrote $OUT"

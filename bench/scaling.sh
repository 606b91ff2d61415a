#!/usr/bin/env bash
# Thread scaling of the C pangocairo reference: tiles/s with 1 and 2 threads, median of R runs.
#
#   bench/scaling.sh [TILES_PER_THREAD] [RUNS] [pango_reference options...]   (defaults 400 and 5)
#
# Extra environment (for example MALLOC_ARENA_MAX=1) is passed through to the program.
set -euo pipefail
cd "$(dirname "$0")/.."
TILES=${1:-400}
RUNS=${2:-5}
shift $(( $# < 2 ? $# : 2 ))
BIN=bench/out/pango_reference
[[ -x $BIN ]] || { echo "missing $BIN (run make bench-c)" >&2; exit 1; }

median_rate() {
  local threads=$1
  shift
  for _ in $(seq "$RUNS"); do
    "$BIN" --tiles "$TILES" --threads "$threads" "$@" | sed -E 's/.* ([0-9]+) tiles\/s.*/\1/'
  done | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

one=$(median_rate 1 "$@")
two=$(median_rate 2 "$@")
echo "1 thread: $one tiles/s, 2 threads: $two tiles/s (median of $RUNS runs of $TILES tiles per thread)"
awk -v a="$one" -v b="$two" 'BEGIN { printf "2-thread speed-up: %.2fx\n", b / a }'

#!/usr/bin/env bash
# Marginal instructions per text tile: the C pangocairo reference vs the Swift TextTile path, render
# only and render + PNG (`throughput --png fast`, PNGEncoder's defaults).
#
#   bench/callgrind.sh [N1] [N2]      (defaults 20 and 120)
#
# Runs each program under callgrind at two tile counts and divides the difference in total
# instructions (Ir) by the difference in tiles, so start-up (fontconfig, font map, Swift runtime)
# cancels out. Instruction counts do not depend on the machine's load: this is the regression guard
# for the PNG path (issue 28), where wall-clock figures on a shared machine are too noisy.
# Needs bench/out/pango_reference (`make bench-c`) and a release layerbench.
#
# Environment: LAYERBENCH (default .build/release/layerbench) to measure another build (e.g. a copy
# of the binary before a change); TEXT for another tile text; CAIRO_GLYPHS=1 adds the Swift tile with
# glyphs through cairo's own (locked) glyph path.
set -euo pipefail
cd "$(dirname "$0")/.."

N1=${1:-20}
N2=${2:-120}
TEXT=${TEXT:-"The quick brown fox jumps over the lazy dog while the async layer renders text tiles off the main thread, fast."}
C_BIN=bench/out/pango_reference
SWIFT_BIN=${LAYERBENCH:-.build/release/layerbench}
OUT=${CALLGRIND_OUT:-bench/out}
mkdir -p "$OUT"

for binary in "$C_BIN" "$SWIFT_BIN"; do
  [[ -x $binary ]] || { echo "missing $binary (run make bench-c and swift build -c release)" >&2; exit 1; }
done

# Total Ir of one run; the callgrind profile is kept for callgrind_annotate.
total_ir() {
  local name=$1 tiles=$2
  shift 2
  valgrind --tool=callgrind --callgrind-out-file="$OUT/$name.$tiles.callgrind" "$@" 2>&1 >/dev/null \
    | awk '/Collected :/ { print $4 }'
}

# Marginal Ir per tile of a Swift throughput run with extra options "$@"; prints the figures and
# leaves the per-tile count in PER_TILE.
swift_per_tile() {
  local name=$1 label=$2
  shift 2
  local a b
  a=$(total_ir "$name" "$N1" "$SWIFT_BIN" throughput --text "$TEXT" --font "Sans 14" --width 375 --height 120 \
    --scale 2 --padding 8 --bg white --tiles "$N1" --workers 1 "$@")
  b=$(total_ir "$name" "$N2" "$SWIFT_BIN" throughput --text "$TEXT" --font "Sans 14" --width 375 --height 120 \
    --scale 2 --padding 8 --bg white --tiles "$N2" --workers 1 "$@")
  PER_TILE=$(((b - a) / (N2 - N1)))
  printf '%s: %d Ir at %d tiles, %d Ir at %d tiles -> %d Ir per tile\n' "$label" "$a" "$N1" "$b" "$N2" "$PER_TILE"
}

echo "text: $TEXT (Sans 14, 375 x 120 pt at scale 2, padding 8, white background)"
echo "binary: $SWIFT_BIN ($(git rev-parse --short HEAD 2>/dev/null || echo '?') checked out)"
c1=$(total_ir c "$N1" "$C_BIN" --tiles "$N1" --text "$TEXT")
c2=$(total_ir c "$N2" "$C_BIN" --tiles "$N2" --text "$TEXT")
c_per_tile=$(((c2 - c1) / (N2 - N1)))
printf 'C reference: %d Ir at %d tiles, %d Ir at %d tiles -> %d Ir per tile\n' "$c1" "$N1" "$c2" "$N2" "$c_per_tile"
swift_per_tile swift "Swift TextTile, render only"
render=$PER_TILE
swift_per_tile swift-png "Swift TextTile, render + PNG (--png fast)" --png fast
png=$PER_TILE
awk -v s="$render" -v c="$c_per_tile" -v p="$png" 'BEGIN {
  printf "Swift render / C: %.3f\n", s / c
  printf "PNG encode alone: %d Ir per tile (%.3f x the render)\n", p - s, (p - s) / s
  printf "render+PNG / render in tiles per Ir (throughput --png fast / --png none at equal speed per Ir): %.3f\n", s / p
}'
if [[ ${CAIRO_GLYPHS:-0} == 1 ]]; then
  swift_per_tile swift-cairo-glyphs "Swift TextTile, cairo glyph path" --glyphs cairo
  awk -v k="$PER_TILE" -v c="$c_per_tile" 'BEGIN { printf "Swift (cairo glyph path) / C: %.3f\n", k / c }'
fi
# valgrind counts each iteration of a `rep stos`/`rep movs` as one instruction, and glibc's memset
# and memcpy use them for blocks of a few KiB and more: the C loop's calloc of its 720 KB surface
# alone is ~720 000 "instructions" per tile that the CPU runs as one. The marginal Ir of glibc's
# *_erms string functions per tile, and the ratio without them, say how much of a count is that.
erms_per_tile() {
  local name=$1 a b
  a=$(callgrind_annotate "$OUT/$name.$N1.callgrind" 2>/dev/null | awk '/_erms/ && !/=>/ { gsub(",", "", $1); s += $1 } END { print s + 0 }')
  b=$(callgrind_annotate "$OUT/$name.$N2.callgrind" 2>/dev/null | awk '/_erms/ && !/=>/ { gsub(",", "", $1); s += $1 } END { print s + 0 }')
  echo $(((b - a) / (N2 - N1)))
}
c_erms=$(erms_per_tile c)
render_erms=$(erms_per_tile swift)
png_erms=$(erms_per_tile swift-png)
awk -v c="$c_per_tile" -v ce="$c_erms" -v s="$render" -v se="$render_erms" -v p="$png" -v pe="$png_erms" 'BEGIN {
  printf "glibc *_erms string functions (rep stos/movs, one Ir per byte under valgrind) per tile: C %d, render %d, render+PNG %d\n", ce, se, pe
  printf "without them: C %d, render %d, render+PNG %d Ir per tile; render / C %.3f; render+PNG / render in tiles per Ir %.3f\n", c - ce, s - se, p - pe, (s - se) / (c - ce), (s - se) / (p - pe)
}'
echo "profiles: $OUT/{c,swift,swift-png}.{$N1,$N2}.callgrind (callgrind_annotate <file>)"

#!/usr/bin/env bash
# Marginal instructions per text tile: the C pangocairo reference vs the Swift TextTile path.
#
#   bench/callgrind.sh [N1] [N2]      (defaults 20 and 120)
#
# Runs each program under callgrind at two tile counts and divides the difference in total
# instructions (Ir) by the difference in tiles, so start-up (fontconfig, font map, Swift runtime)
# cancels out. Needs bench/out/pango_reference (`make bench-c`) and a release layerbench.
set -euo pipefail
cd "$(dirname "$0")/.."

N1=${1:-20}
N2=${2:-120}
TEXT="The quick brown fox jumps over the lazy dog while the async layer renders text tiles off the main thread, fast."
C_BIN=bench/out/pango_reference
SWIFT_BIN=.build/release/layerbench
OUT=bench/out
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


c1=$(total_ir c "$N1" "$C_BIN" --tiles "$N1")
c2=$(total_ir c "$N2" "$C_BIN" --tiles "$N2")
s1=$(total_ir swift "$N1" "$SWIFT_BIN" throughput --text "$TEXT" --font "Sans 14" --width 375 --height 120 \
  --scale 2 --padding 8 --bg white --tiles "$N1" --workers 1)
s2=$(total_ir swift "$N2" "$SWIFT_BIN" throughput --text "$TEXT" --font "Sans 14" --width 375 --height 120 \
  --scale 2 --padding 8 --bg white --tiles "$N2" --workers 1)

# The same Swift tile with glyphs through cairo's own (locked) glyph path, for comparison.
k1=$(total_ir swift-cairo-glyphs "$N1" "$SWIFT_BIN" throughput --text "$TEXT" --font "Sans 14" --width 375 \
  --height 120 --scale 2 --padding 8 --bg white --tiles "$N1" --workers 1 --glyphs cairo)
k2=$(total_ir swift-cairo-glyphs "$N2" "$SWIFT_BIN" throughput --text "$TEXT" --font "Sans 14" --width 375 \
  --height 120 --scale 2 --padding 8 --bg white --tiles "$N2" --workers 1 --glyphs cairo)

c_per_tile=$(( (c2 - c1) / (N2 - N1) ))
k_per_tile=$(( (k2 - k1) / (N2 - N1) ))
swift_per_tile=$(( (s2 - s1) / (N2 - N1) ))
printf 'C reference: %d Ir at %d tiles, %d Ir at %d tiles -> %d Ir per tile\n' "$c1" "$N1" "$c2" "$N2" "$c_per_tile"
printf 'Swift TextTile: %d Ir at %d tiles, %d Ir at %d tiles -> %d Ir per tile\n' "$s1" "$N1" "$s2" "$N2" "$swift_per_tile"
printf 'Swift TextTile, cairo glyph path: %d Ir at %d tiles, %d Ir at %d tiles -> %d Ir per tile\n' "$k1" "$N1" "$k2" "$N2" "$k_per_tile"
awk -v s="$swift_per_tile" -v c="$c_per_tile" -v k="$k_per_tile" \
  'BEGIN { printf "Swift / C: %.3f (cairo glyph path: %.3f)\n", s / c, k / c }'
echo "profiles: $OUT/{c,swift,swift-cairo-glyphs}.{$N1,$N2}.callgrind (callgrind_annotate <file>)"

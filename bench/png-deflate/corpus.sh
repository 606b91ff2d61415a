#!/usr/bin/env bash
# Renders the tile deflater's size corpus with one layerbench build: bench/png-deflate/corpus.txt
# (Latin, scripts, emoji, repeated and tiny glyphs, a long paragraph) at scales 1, 2 and 3 in black
# on white, at scale 2 in #333 on #eee, white on black and #1a1a1a on light gray (both gray tile
# inputs: A8 and ARGB32), and red on white (a colour tile: the general path).
#
#   bench/png-deflate/corpus.sh LAYERBENCH OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
LB=${1:?usage: corpus.sh LAYERBENCH OUT_DIR}
OUT=${2:?usage: corpus.sh LAYERBENCH OUT_DIR}
mkdir -p "$OUT"
run() {  # NAME ARGS...
  local name=$1; shift
  "$LB" batch --file bench/png-deflate/corpus.txt --out-dir "$OUT/$name" --progress-interval 0 --workers 2 \
    --font "Sans 14" --width 375 --padding 8 "$@" > /dev/null 2>&1
}
run s1 --scale 1 --bg white
run s2 --scale 2 --bg white
run s3 --scale 3 --bg white
run grey --scale 2 --fg '#333' --bg '#eee'
run inverse --scale 2 --fg white --bg black
run darkgrey --scale 2 --fg '#1a1a1a' --bg lightgray
run red --scale 2 --fg red --bg white

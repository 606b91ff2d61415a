#!/usr/bin/env bash
# Marginal instructions per tile (callgrind, 1 worker), between N1 and N2 tiles.
# bench/shards-callgrind.sh: user-space instructions only (the system calls of one file per tile are not counted).
set -euo pipefail
cd "$(dirname "$0")/.."; LB=${LAYERBENCH:-$PWD/.build/release/layerbench}; W=$(mktemp -d); trap 'rm -rf "$W"' EXIT; cd "$W"
TEXT="The quick brown fox jumps over the lazy dog while the async layer renders text tiles off the main thread, fast."
TILE=(--font "Sans 14" --width 375 --height 120 --scale 2 --padding 8 --bg white)
N1=50; N2=250
for n in $N1 $N2; do for ((i = 0; i < n; i++)); do printf '{"id": "t%07d", "text": "%s"}\n' "$i" "$TEXT"; done > l$n.jsonl; done
ir() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 | grep -oE 'Collected : [0-9]+' | grep -oE '[0-9]+'; }
for kind in throughput webdataset files; do
  declare -a v=()
  for n in $N1 $N2; do
    rm -rf o
    case $kind in
      throughput) v+=("$(ir $LB throughput --text "$TEXT" "${TILE[@]}" --tiles $n --workers 1 --png fast)");;
      webdataset) v+=("$(ir $LB batch --input l$n.jsonl --out-dir o --workers 1 --write-thread off --progress-interval 0 --no-resume "${TILE[@]}" --output webdataset)");;
      files) v+=("$(ir $LB batch --input l$n.jsonl --out-dir o --workers 1 --write-thread off --progress-interval 0 --no-resume "${TILE[@]}")");;
    esac
  done
  echo "$kind: $(awk -v a="${v[0]}" -v b="${v[1]}" -v n=$((N2 - N1)) 'BEGIN { printf "%.3f M instructions per tile", (b - a) / n / 1e6 }')"
done

#!/usr/bin/env bash
# What vertical text, a stroke and a transform cost in `layerbench batch` (issue 27 item 4):
# marginal instructions per tile (callgrind, 1 worker, between N1 and N2 tiles, user space only),
# the same Latin and CJK lines drawn plainly and with each layout option. One command:
#   bench/layout-callgrind.sh > bench/results/layout-callgrind-$(date -u +%F).txt
set -euo pipefail
cd "$(dirname "$0")/.."; LB=${LAYERBENCH:-$PWD/.build/release/layerbench}; W=$(mktemp -d); trap 'rm -rf "$W"' EXIT; cd "$W"
LATIN="The quick brown fox jumps over the lazy dog"
CJK="東京都の天気は晴れ、漢字かな交じり文"
TILE=(--font "Sans 16" --width 600 --scale 1 --padding 5 --fit-width --bg white --workers 1 --write-thread off
  --progress-interval 0 --no-resume)
N1=${N1:-50}; N2=${N2:-250}
ir() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 | grep -oE 'Collected : [0-9]+' | grep -oE '[0-9]+'; }
echo "# $(date -u '+%F %H:%M UTC'), $(uptime | sed 's/.*load/load/'), $LB, tiles $N1 and $N2"
for script in latin cjk; do
  text=$LATIN; [[ $script == cjk ]] && text=$CJK
  for n in $N1 $N2; do for ((i = 0; i < n; i++)); do printf '%s %d\n' "$text" "$i"; done > $script$n.txt; done
  declare -A per=()
  for variant in plain vertical rotate skew stroke all; do
    case $variant in
      plain) extra=();;
      vertical) extra=(--orientation vertical);;
      rotate) extra=(--rotate 7);;
      skew) extra=(--skew 12);;
      stroke) extra=(--stroke-width 1.5);;
      all) extra=(--rotate 7 --skew 12 --stroke-width 1.5);;
    esac
    v=()
    for n in $N1 $N2; do
      rm -rf o
      v+=("$(ir "$LB" batch --file $script$n.txt --out-dir o --boxes "${TILE[@]}" "${extra[@]}")")
    done
    per[$variant]=$(awk -v a="${v[0]}" -v b="${v[1]}" -v n=$((N2 - N1)) 'BEGIN { printf "%.3f", (b - a) / n / 1e6 }')
    echo "$script $variant: ${per[$variant]} M instructions per tile (with --boxes)$(
      [[ $variant != plain ]] && awk -v a="${per[plain]}" -v b="${per[$variant]}" 'BEGIN { printf ", %.2fx plain", b / a }')"
  done
done

#!/usr/bin/env bash
# Without any layout option, a batch run draws and records exactly what another build does (issue 27
# item 4: "pixels identical to today's"): the same lines (bench/dataset/boxes.jsonl and 30 lines, black and
# coloured, Latin and CJK) through two layerbench binaries, then PNG and sidecar hashes, records (all but
# `ms`) and labels compared, and the second binary resuming the first one's run (every tile kept).
#   bench/layout-unchanged.sh OLD_LAYERBENCH [NEW_LAYERBENCH]
set -euo pipefail
cd "$(dirname "$0")/.."
OLD=$1; NEW=${2:-$PWD/.build/release/layerbench}; W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
{ cat bench/dataset/boxes.jsonl
  for i in $(seq 1 30); do
    printf '{"id":"g%d","text":"Line %d: the quick brown fox 漢字 %d","fg":"%s"}\n' "$i" "$i" "$i" \
      "$([ $((i % 3)) = 0 ] && echo '#336699' || echo black)"
  done; } > "$W/in.jsonl"
args=(--input "$W/in.jsonl" --font "Sans 16" --scale 2 --padding 6 --width 600 --boxes --labels gt.txt --progress-interval 0)
"$OLD" batch "${args[@]}" --out-dir "$W/old" 2> /dev/null
"$NEW" batch "${args[@]}" --out-dir "$W/new" 2> /dev/null
python3 - "$W" <<'PY'
import json, sys
w = sys.argv[1]
old = [json.loads(l) for l in open(f"{w}/old/manifest.jsonl")]
new = [json.loads(l) for l in open(f"{w}/new/manifest.jsonl")]
strip = lambda r: {k: v for k, v in r.items() if k != "ms"}
print(f"{len(old)} tiles; PNG hashes equal: {[r['sha256'] for r in old] == [r['sha256'] for r in new]}; "
      f"sidecar hashes equal: {[r['boxesSha256'] for r in old] == [r['boxesSha256'] for r in new]}; "
      f"records equal but ms: {list(map(strip, old)) == list(map(strip, new))}")
PY
cmp -s "$W/old/gt.txt" "$W/new/gt.txt" && echo "labels equal: True" || echo "labels equal: False"
echo "new binary resuming the old run: $("$NEW" batch "${args[@]}" --out-dir "$W/old" 2>&1 | grep -oE '[0-9]+ rendered, [0-9]+ kept')"

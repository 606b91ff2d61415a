#!/usr/bin/env bash
# Byte-identical output check for speed work on `layerbench batch`: runs two builds on the same inputs
# (JSON Lines with escapes, numbers, nulls, style fields, bad lines, duplicate keys and ids, several
# scripts; plain lines; markup) with files, --boxes, --labels and --output webdataset, and compares
# every file they write byte for byte (the manifests without their `ms`, the only field that is a
# timing). Exit 0 when all are the same.
#
#   bench/batch-identical.sh BASE_LAYERBENCH [NEW_LAYERBENCH]   (NEW defaults to .build/release/layerbench)
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${1:?usage: bench/batch-identical.sh BASE_LAYERBENCH [NEW_LAYERBENCH]}
NEW=${2:-.build/release/layerbench}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/batch-identical.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cat > "$WORK/lines.jsonl" <<'LINES'
{"id": "a1", "text": "Hello, world"}
{"id":"a2","text":"Quick fjord Wyvern, 12.5% off — naïve café"}
  {"id" : "a3" , "text" : "spaces around"  }  
{"id": 4, "text": "numeric id"}
{"id": "a5", "text": "escapes: \"quoted\" \\ back\tslash \u00e9 \ud83d\ude00"}
{"id": "a6", "text": "line\nbreak"}
{"id": "a7", "text": "مرحبا بالعالم"}
{"id": "a8", "text": "नमस्ते दुनिया"}
{"id": "a9", "text": "你好，世界。テキスト"}
{"id": "a10", "text": "emoji 👋🏽 👨‍👩‍👧"}
{"id": "a11", "markup": "<b>bold</b> and <i>italic</i> &amp; more"}
{"id": "a12", "text": "styled", "width": 200, "scale": 1.5, "fg": "#333", "bg": "#eee", "align": "center"}
{"id": "a13", "text": "fit height", "height": null, "maxLines": 2}
{"id": "a14", "text": "bad field", "width": true}
{"id": "a15", "text": "dup", "text": "dup2"}
{"id": "a1", "text": "duplicate id"}
{"id": "a16", "text": "nested", "font": {"x": 1}}
{"id": "a17" "text": "missing comma"}
{"id": "a18", "text": "unknown", "colour": "red"}
{"id": -0, "text": "minus zero"}
{"id": 12345678901234567, "text": "long number id"}
{"id": "a19", "text": "exp", "width": 3e2}
{"id": "a20", "text": "leading zero", "width": 0300}
{"id": "a21", "text": "negative width", "width": -5}
{"id": "a.22", "text": "dot in id"}
{"id": "a23", "text": "", "bg": "white"}
["not", "an", "object"]
{"id": "a24", "text": "trailing comma",}
{"id": "a25", "text": "crlf"}
{"id": "a26", "text": "tab\tinside raw"}
{}
{"id": "a27", "text": "true literal", "wrap": truex}
{"id": "a28", "text": "last"}
LINES
printf '{"id": "a29", "text": "crlf line"}\r\n{"id": "a30", "text": "raw del \x7f and latin1 \xe9"}\n' >> "$WORK/lines.jsonl"
printf 'Quick fjord Wyvern\nThe lazy dog, 12 times\n\nمرحبا\nनमस्ते\n你好世界\nemoji 👋\n  spaces  \n' > "$WORK/plain.txt"
TILE=(--font "Sans 14" --width 375 --scale 2 --padding 8 --bg white)
status=0
compare() {  # NAME ARGS...
  local name=$1; shift
  for side in base new; do
    local lb=$BASE; [[ $side == new ]] && lb=$NEW
    mkdir -p "$WORK/$side-$name"
    "$lb" batch --out-dir "$WORK/$side-$name/out" --progress-interval 0 --workers 2 "${TILE[@]}" "$@" > /dev/null 2>&1 || true
    # The manifest without `ms`; every other file as it is.
    for manifest in "$WORK/$side-$name"/out/manifest*.jsonl; do
      sed -E 's/"ms":[0-9.e-]+,?//; s/,}/}/' "$manifest" > "$manifest.no-ms" && rm "$manifest"
    done
  done
  if diff -r "$WORK/base-$name" "$WORK/new-$name" > "$WORK/$name.diff"; then
    echo "same: $name ($(find "$WORK/new-$name/out" -type f | wc -l) files)"
  else
    echo "DIFFERENT: $name"; head -20 "$WORK/$name.diff"; status=1
  fi
}
compare jsonl-files --input "$WORK/lines.jsonl"
compare jsonl-boxes-labels --input "$WORK/lines.jsonl" --boxes --labels gt.txt
compare jsonl-webdataset --input "$WORK/lines.jsonl" --boxes --labels gt.txt --output webdataset --tiles-per-tar 7
compare plain-boxes --file "$WORK/plain.txt" --boxes --labels gt.txt --fit-width
compare plain-webdataset --file "$WORK/plain.txt" --boxes --output webdataset
# One worker and a writer thread, which then checksums and commits the tar files' tiles (the last
# --workers given wins).
compare jsonl-webdataset-writer --input "$WORK/lines.jsonl" --boxes --labels gt.txt --output webdataset \
  --tiles-per-tar 7 --workers 1 --write-thread on
compare markup --file "$WORK/plain.txt" --format markup --boxes
exit $status

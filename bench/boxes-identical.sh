#!/usr/bin/env bash
# Boxes byte for byte (issue 27 goal 6, the speed work on `--boxes`): two layerbench builds render the same
# lines with `--boxes --labels gt.txt` and every file they write is compared (manifests without their `ms`).
# The lines: bench/dataset/boxes.jsonl (Latin, Arabic, Devanagari, CJK, emoji), bench/dataset/layout.jsonl
# (vertical, vertical-upright, rotated and skewed, stroked), bench/layout-unchanged.sh's 30 lines, and
# what walks the boxes' other paths: wrapped Arabic and mixed-direction lines, ellipses at the end, start
# and middle, letter spacing, markup, a text long enough to be laid out in pieces, zero-width and
# combining characters, tabs, and sampled fonts, sizes and transforms (seeded). Each set is run as one
# file per tile and as `--output webdataset`. Exit 0 when every file is the same.
#
#   bench/boxes-identical.sh BASE_LAYERBENCH [NEW_LAYERBENCH]   (NEW defaults to .build/release/layerbench)
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${1:?usage: bench/boxes-identical.sh BASE_LAYERBENCH [NEW_LAYERBENCH]}
NEW=${2:-.build/release/layerbench}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/boxes-identical.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
{
  cat bench/dataset/boxes.jsonl bench/dataset/layout.jsonl
  for i in $(seq 1 30); do
    printf '{"id":"g%d","text":"Line %d: the quick brown fox 漢字 %d","fg":"%s"}\n' "$i" "$i" "$i" \
      "$([ $((i % 3)) = 0 ] && echo '#336699' || echo black)"
  done
  python3 - <<'PY'
import json
lines = {
    "arabic-wrap": {"text": "مرحبا بالعالم، هذا نص عربي طويل يلتف على عدة أسطر ١٢٣ وبعض الكلمات", "width": 160},
    "mixed": {"text": "English then عربي مع 123 أرقام and back again שלום עולם", "width": 260},
    "ellipsis-end": {"text": "An ellipsis at the end of a line that is far too long to fit", "width": 150,
                     "ellipsize": "end", "maxLines": 1},
    "ellipsis-start": {"text": "An ellipsis at the start of a line that is far too long", "width": 150,
                       "ellipsize": "start", "maxLines": 1},
    "ellipsis-middle": {"text": "मध्य में लोप वाला एक बहुत लंबा हिंदी वाक्य यहाँ है", "width": 150,
                        "ellipsize": "middle", "maxLines": 1},
    "ellipsis-lines": {"text": "Two lines shown then the rest cut with an ellipsis: " * 4, "width": 200,
                       "ellipsize": "end", "maxLines": 2},
    "spaced": {"markup": "<span letter_spacing='3072'>Letter spacing moves every cluster</span> عربي"},
    "marks": {"text": "e\u0301 a\u0308\u0323 zero\u200bwidth\u200d join \u200c non tab\there", "width": 400},
    "zwsp": {"text": "\u200b\u200b\u200babc\u200b\u200bdef", "width": 300},
    "thai": {"text": "ภาษาไทยไม่มีช่องว่างระหว่างคำ", "language": "th"},
    "korean": {"text": "한국어 문장 테스트입니다", "language": "ko"},
    "wrapped-words": {"text": "Supercalifragilisticexpialidocious antidisestablishmentarianism", "width": 90,
                      "wrap": "char"},
    "vertical-mixed": {"text": "縦書き mixed עברית text 123", "orientation": "vertical", "width": 300},
    "transformed-rtl": {"text": "مرحبا بالعالم", "rotate": 30, "scaleX": 1.5, "scaleY": 0.8},
    "long": {"text": ("A paragraph long enough to be laid out in pieces, with words and numbers 12345. " * 230),
             "width": 500},
}
# Labels: the characters the labels file escapes (C0, DEL, C1, U+2028/9, backslash, tab) and some it does not.
for i, text in enumerate(["copyright \u00a9 \u2019quoted\u2019 \u2026", "nel \u0085 c1 \u009f", "ls \u2028 ps \u2029",
                          "ctrl \u0001 del \u007f", "back\\slash tab\there", "\u20ac nbsp\u00a0end"]):
    lines[f"label{i}"] = {"text": text}
for key, fields in lines.items():
    print(json.dumps({"id": key, **fields}, ensure_ascii=False))
print(json.dumps({"id": "markup", "markup": "<b>bold</b> and <i>italic</i> &amp; <span letter_spacing='2048'>spaced</span>"}))
PY
} > "$WORK/in.jsonl"
status=0
compare() {  # NAME ARGS...
  local name=$1; shift
  for side in base new; do
    local lb=$BASE; [[ $side == new ]] && lb=$NEW
    mkdir -p "$WORK/$side-$name"
    "$lb" batch --input "$WORK/in.jsonl" --out-dir "$WORK/$side-$name/out" --progress-interval 0 --workers 2 \
      --boxes --labels gt.txt "$@" > /dev/null 2>&1 || true
    for manifest in "$WORK/$side-$name"/out/manifest*.jsonl; do
      sed -E 's/"ms":[0-9.e-]+,?//; s/,}/}/' "$manifest" > "$manifest.no-ms" && rm "$manifest"
    done
  done
  local sidecars
  sidecars=$(find "$WORK/new-$name/out" -name '*.json' | wc -l)
  if diff -r "$WORK/base-$name" "$WORK/new-$name" > "$WORK/$name.diff"; then
    echo "same: $name ($(find "$WORK/new-$name/out" -type f | wc -l) files, $sidecars sidecars)"
  else
    echo "DIFFERENT: $name"; head -20 "$WORK/$name.diff"; status=1
  fi
}
echo "$(wc -l < "$WORK/in.jsonl") lines"
compare files --font "Sans 16" --scale 2 --padding 6 --width 600
compare fit-width --font "Sans 16" --scale 1.5 --padding 3 --width 2000 --fit-width --height 40
compare webdataset --font "Sans 16" --scale 2 --padding 6 --width 600 --output webdataset --tiles-per-tar 9
# The writer thread writes the sidecars (their JSON too) of the tiles it is handed.
compare files-writer --font "Sans 16" --scale 2 --padding 6 --width 600 --write-thread on
compare webdataset-writer --font "Sans 16" --scale 2 --padding 6 --width 600 --output webdataset --tiles-per-tar 9 \
  --write-thread on
compare sampled --font "Sans 16" --scale 1 --padding 5 --width 700 --seed 7 --sample-size 12..20 \
  --sample-letter-spacing -0.5..1 --sample-rotate -4..4 --sample-skew -10..10 --sample-stroke-width 0..1.5
compare vertical --font "Sans 16" --scale 1 --padding 4 --width 400 --orientation vertical
exit $status

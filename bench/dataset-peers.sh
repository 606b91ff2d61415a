#!/usr/bin/env bash
# Issue 27, deliverable 6: `layerbench batch` against TextRecognitionDataGenerator (trdg 1.8) and
# SynthTIGER 1.2 on the same lines, font and height (bench/dataset/peers.py says exactly what each tool
# is asked to do), then what --labels and --boxes cost batch (bench/dataset/labels_cost.py: ABBA rounds
# and callgrind instructions per tile). Makes the venv bench/.venv-dataset from PyPI with the pins of
# bench/dataset/requirements.txt (once), builds nothing: LAYERBENCH (default .build/release/layerbench,
# `swift build -c release --product layerbench`) is measured. Results are appended to
# bench/results/dataset-peers-<UTC date>.txt (RESULT= names another file).
#   bench/dataset-peers.sh                          # everything at the defaults (about an hour on 2 cores)
#   PEERS_ARGS="--lines 500 --rounds 1" COST_ARGS="--tiles 4000 --rounds 1" bench/dataset-peers.sh
#   bench/dataset-peers.sh peers|cost|boxes         # one part (boxes: the looked-at images of docs/datasets.md)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=bench/.venv-dataset
req=bench/dataset/requirements.txt
if [[ ! -x $venv/bin/python ]] || ! cmp -s "$req" "$venv/.requirements"; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req"
  cp "$req" "$venv/.requirements"
fi
layerbench=${LAYERBENCH:-.build/release/layerbench}
[[ -x $layerbench ]] || { echo "error: build $layerbench first (swift build -c release --product layerbench)" >&2; exit 1; }
command -v valgrind > /dev/null || { echo "error: valgrind is missing (make deps)" >&2; exit 1; }
result=${RESULT:-bench/results/dataset-peers-$(date -u +%F).txt}
part=${1:-all}
if [[ $part == all || $part == peers ]]; then
  # shellcheck disable=SC2086
  nice -n 5 "$venv/bin/python" bench/dataset/peers.py --layerbench "$layerbench" --result "$result" ${PEERS_ARGS:-}
fi
if [[ $part == all || $part == cost ]]; then
  # shellcheck disable=SC2086
  nice -n 5 "$venv/bin/python" bench/dataset/labels_cost.py --layerbench "$layerbench" --result "$result" ${COST_ARGS:-}
fi
if [[ $part == all || $part == boxes ]]; then
  dir=${BOXES_DIR:-/dev/shm/dataset-boxes}
  rm -rf "$dir"
  "$layerbench" batch --input bench/dataset/boxes.jsonl --out-dir "$dir" --font "Sans 16" --scale 2 --padding 6 \
    --width 2000 --fit-width --labels gt.txt --boxes --no-resume --progress-interval 0
  "$venv/bin/python" bench/dataset/draw_boxes.py "$dir" docs/images/dataset-boxes-latin-cjk-emoji.png latin cjk emoji
  "$venv/bin/python" bench/dataset/draw_boxes.py "$dir" docs/images/dataset-boxes-arabic-devanagari.png arabic devanagari
  # Vertical, stroked and transformed tiles (docs/datasets.md#vertical-stroked-and-transformed-text).
  "$layerbench" batch --input bench/dataset/layout.jsonl --out-dir "$dir/layout" --font "Sans 16" --scale 2 \
    --padding 6 --width 600 --fit-width --boxes --no-resume --progress-interval 0
  "$venv/bin/python" bench/dataset/draw_boxes.py --across "$dir/layout" docs/images/dataset-boxes-layout.png \
    vertical upright rotated stroked
fi

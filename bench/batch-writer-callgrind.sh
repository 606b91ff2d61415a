#!/usr/bin/env bash
# The batch writer thread's own work per tile, by step (callgrind --separate-threads=yes, 1 worker
# with its writer thread, marginal instructions between N1 and N2 tiles): one file per tile and
# `--output webdataset`, for each build given.
#
#   bench/batch-writer-callgrind.sh [N1 N2] BUILD...      (N1, N2 default 100 and 600)
#
# The writer is the thread whose cg.out file has `BatchEngine.write(as:directory:)`. Its steps are
# inclusive counts: prepareLines (reading, parsing and checking lines ahead, `prepare` within it),
# written (files) or member (tar), commit (the commit step; jsonLine and the tar writer within it),
# jsonLine, and SHA (the portable SHA-256 rounds valgrind runs instead of the CPU's SHA
# instructions: not representative, so `own` is the writer's total without them).
set -euo pipefail
cd "$(dirname "$0")/.."
N1=100
N2=600
if [[ ${1:-} =~ ^[0-9]+$ ]]; then N1=$1; N2=$2; shift 2; fi
(($#)) || { echo "usage: $0 [N1 N2] BUILD..." >&2; exit 1; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
TEXT="The quick brown fox jumps over the lazy dog while the async layer renders text tiles off the main thread, fast."
TILE=(--font "Sans 14" --width 375 --height 120 --scale 2 --padding 8 --bg white)
for n in $N1 $N2; do for ((i = 0; i < n; i++)); do printf '{"id": "t%07d", "text": "%s"}\n' "$i" "$TEXT"; done > "$W/l$n.jsonl"; done
echo "bench/batch-writer-callgrind.sh $N1 $N2: $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "writer thread, instructions per tile (marginal, $N1 to $N2 tiles), inclusive by step"
# Symbols are mangled Swift names. An inline-split function is listed once per source file: a step
# is its largest inclusive entry (the one its callers call). SHA is the portable rounds' exclusive
# instructions summed over every entry (the PNG's and the input line's hashes).
steps() {
  local inc exc
  inc=$(callgrind_annotate --inclusive=yes --auto=no --threshold=100 "$1" 2>/dev/null |
    sed -nE 's/^ *([0-9,]+) +\( *[0-9.]+%\) +(.*)$/\1\t\2/p')
  exc=$(callgrind_annotate --inclusive=no --auto=no --threshold=100 "$1" 2>/dev/null |
    sed -nE 's/^ *([0-9,]+) +\( *[0-9.]+%\) +(.*)$/\1\t\2/p')
  {
    echo "$inc" | awk -F'\t' '
      { gsub(",", "", $1); n = $1 + 0; f = $2 }
      f ~ /BatchEngineC5write2as9directory/ && n > total { total = n }
      f ~ /12prepareLines/ && n > prep { prep = n }
      f ~ /BatchEngineC7prepare_9directory/ && n > p { p = n }
      f ~ /BatchEngineC7written_2as2in/ && n > wr { wr = n }
      f ~ /BatchEngineC6member/ && n > m { m = n }
      f ~ /BatchEngineC6commit33_/ && n > cm { cm = n }
      f ~ /ManifestRecordV8jsonLine/ && n > j { j = n }
      END { printf "%d %d %d %d %d %d %d ", total, prep, p, wr, m, cm, j }'
    echo "$exc" | awk -F'\t' '{ gsub(",", "", $1) } $2 ~ /SHA256O8compress/ { s += $1 } END { printf "%d\n", s }'
  }
}
# Every thread: the writer's steps wherever they ran (the writer thread, or a worker that prepared a
# line or wrote a tile itself: how the two share them moves from run to run under valgrind, which
# runs one thread at a time): prepare, complete (written or member, the manifest line, the commit
# step), minus the SHA rounds in them (the worker's drawing has none); nextJob (read a line, its
# keys and id) apart, when the build has it as a function.
all_steps() {
  local f inc
  for f in "$@"; do
    inc=$(callgrind_annotate --inclusive=yes --auto=no --threshold=100 "$f" 2>/dev/null |
      sed -nE 's/^ *([0-9,]+) +\( *[0-9.]+%\) +(.*)$/\1\t\2/p')
    echo "$inc" | awk -F'\t' '
      { gsub(",", "", $1); n = $1 + 0; f = $2 }
      f ~ /BatchEngineC7nextJobAC0E0VSgyF( |$)/ && n > a { a = n }
      f ~ /BatchEngineC7prepare_9directory/ && n > b { b = n }
      f ~ /BatchEngineC7written_2as2in/ && n > w { w = n }
      f ~ /BatchEngineC6member/ && n > m { m = n }
      f ~ /BatchEngineC6commit33_/ && n > cm { cm = n }
      f ~ /ManifestRecordV8jsonLine/ && n > j { j = n }
      # complete() is inlined: its parts are written or member, the commit step, and (files: the
      # line is encoded before the commit; tar files: within it) jsonLine.
      END { printf "%d %d %d ", a, b, w + m + cm + (m > 0 ? 0 : j) }'
    callgrind_annotate --inclusive=no --auto=no --threshold=100 "$f" 2>/dev/null |
      sed -nE 's/^ *([0-9,]+) +\( *[0-9.]+%\) +(.*)$/\1\t\2/p' |
      awk -F'\t' '{ gsub(",", "", $1) } $2 ~ /SHA256O8compress/ { s += $1 } END { printf "%d\n", s }'
  done | awk '{ a += $1; b += $2; c += $3; s += $4 } END { printf "%d %d %d %d\n", a, b, c, s }'
}
for build in "$@"; do
  for kind in files webdataset; do
    extra=()
    [[ $kind == webdataset ]] && extra=(--output webdataset)
    declare -A v=() all=()
    for n in $N1 $N2; do
      rm -rf "$W/o" "$W/cg"
      mkdir -p "$W/cg"
      valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$W/cg/cg.out" "$build" batch \
        --input "$W/l$n.jsonl" --out-dir "$W/o" --workers 1 --progress-interval 0 --no-resume "${TILE[@]}" \
        "${extra[@]}" > /dev/null 2>&1
      writer=$(grep -l 'BatchEngineC5write2as9directory' "$W"/cg/cg.out-* | head -1)
      v[$n]=$(steps "$writer")
      all[$n]=$(all_steps "$W"/cg/cg.out-*)
      # KEEP=dir keeps each writer's callgrind file (callgrind_annotate them for the functions).
      if [[ -n ${KEEP:-} ]]; then mkdir -p "$KEEP"; cp "$writer" "$KEEP/$(basename "$build").$kind.$n.cg"; fi
    done
    read -r t1 a1 p1 w1 m1 c1 j1 s1 <<< "${v[$N1]}"
    read -r t2 a2 p2 w2 m2 c2 j2 s2 <<< "${v[$N2]}"
    d() { echo $((($2 - $1) / (N2 - N1))); }
    total=$(d "$t1" "$t2"); sha=$(d "$s1" "$s2")
    printf '%-10s %s\n  total %d  own(total-SHA) %d | prepareLines %d (prepare %d) written %d member %d commit %d jsonLine %d SHA %d\n' \
      "$kind" "$build" "$total" $((total - sha)) "$(d "$a1" "$a2")" "$(d "$p1" "$p2")" "$(d "$w1" "$w2")" \
      "$(d "$m1" "$m2")" "$(d "$c1" "$c2")" "$(d "$j1" "$j2")" "$sha"
    read -r x1 y1 z1 q1 <<< "${all[$N1]}"
    read -r x2 y2 z2 q2 <<< "${all[$N2]}"
    # nextJob is left out of the sum: the compiler inlines it into its callers in some builds.
    steps_sum=$(($(d "$y1" "$y2") + $(d "$z1" "$z2")))
    printf '  all threads: prepare+complete %d, minus SHA %d | nextJob (when not inlined) %d prepare %d complete %d SHA %d\n' \
      "$steps_sum" $((steps_sum - $(d "$q1" "$q2"))) "$(d "$x1" "$x2")" "$(d "$y1" "$y2")" "$(d "$z1" "$z2")" "$(d "$q1" "$q2")"
  done
done

#!/usr/bin/env bash
# `batch --output webdataset` with and without the writer thread (`--write-thread off|on`), plain and with
# `--boxes --labels gt.txt`, interleaved round by round, on 10,000 generated lines (six words each, seeded):
# each run's rate "after each worker's first tile" and its CPU time (user + system), then the medians of
# the rounds' on/off ratios. Decides what `--write-thread auto` does for tar files.
#
#   bench/write-thread-ab.sh [ROUNDS (default 7)] [WORKERS (default 1)]      LAYERBENCH=path for another build
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-7}
WORKERS=${2:-1}
LB=${LAYERBENCH:-.build/release/layerbench}
[[ -x $LB ]] || { echo "missing $LB (swift build -c release)" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/write-thread-ab.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
python3 - > "$WORK/lines.jsonl" <<'PY'
import json, random
words = "the quick brown fox jumps over lazy dog while async layer renders text tiles off main thread fast".split()
r = random.Random(3)
for i in range(10000):
    print(json.dumps({"id": f"t{i}", "text": " ".join(r.choice(words) for _ in range(6))}))
PY
echo "started $(date -u '+%Y-%m-%d %H:%M:%S UTC'); commit $(git rev-parse --short HEAD 2> /dev/null || echo '?'); $LB; workers $WORKERS"
echo "load $(cut -d' ' -f1-3 /proc/loadavg) at the start"
echo "columns: tiles/s after each worker's first tile, CPU s"
for r in $(seq "$ROUNDS"); do
  line="round $r"
  for extra in "" "--boxes --labels gt.txt"; do
    for wt in off on; do
      rm -rf "$WORK/out"
      # shellcheck disable=SC2086
      out=$({ /usr/bin/time -f "CPU %U %S" "$LB" batch --input "$WORK/lines.jsonl" --out-dir "$WORK/out" \
        --output webdataset --workers "$WORKERS" --progress-interval 0 --write-thread $wt $extra; } 2>&1)
      rate=$(echo "$out" | sed -nE 's/.*\(([0-9]+) tiles\/s after.*/\1/p')
      cpu=$(echo "$out" | awk '/^CPU/ {printf "%.2f", $2 + $3}')
      line="$line | ${extra:+boxes-}$wt $rate ${cpu}s"
    done
  done
  echo "$line"
done | tee "$WORK/rounds.txt"
echo "load $(cut -d' ' -f1-3 /proc/loadavg) at the end"
python3 - "$WORK/rounds.txt" <<'PY'
import statistics, sys
cols = {}
for line in open(sys.argv[1]):
    for part in line.split("|")[1:]:
        name, rate, cpu = part.split()
        cols.setdefault(name, []).append((int(rate), float(cpu.rstrip("s"))))
for name, runs in cols.items():
    print(f"{name:10} median {statistics.median(r for r, _ in runs):.0f} tiles/s, CPU {statistics.median(c for _, c in runs):.2f} s")
for a, b in (("on", "off"), ("boxes-on", "boxes-off")):
    ratios = [x[0] / y[0] for x, y in zip(cols[a], cols[b])]
    print(f"{a}/{b}: median {statistics.median(ratios):.3f} (range {min(ratios):.3f}-{max(ratios):.3f})")
PY

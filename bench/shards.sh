#!/usr/bin/env bash
# Issue 27 deliverable 5 in one command: `batch --output webdataset` (tar files) against
# `throughput --png fast` at 2 workers on the same lines, interleaved round by round (ABBA), medians;
# then the same tar files read back with the `webdataset` package from PyPI.
#
#   bench/shards.sh [ROUNDS] [TILES]      (defaults 7 rounds, 10000 tiles per run)
#
# Columns: throughput --png fast (tiles/s), batch --output webdataset, batch with one PNG per file
# (today's output, for reference). Ratios are per round (the sides of a round ran back to back), then
# their median and range. Two measures: the rates the commands print, taken alike (throughput's clock
# starts after a warm-up tile per worker, which loads the fonts; batch's rate is the one it prints
# "after each worker's first tile", from the moment every worker has finished one), and whole
# commands (TILES / the process's wall time, start-up and first tiles included on both sides).
# Both sides render TILES tiles (throughput --tiles is per worker: TILES / WORKERS each). The load average is printed before and after: other processes on the
# machine move wall-clock rates (bench/callgrind.sh gives load-independent instruction counts).
# Output goes to OUT_ROOT (default: $TMPDIR or /tmp, a real file system: the per-file cost is the
# point). LAYERBENCH=path measures another build; WORKERS=N another worker count. The webdataset
# step makes a venv in bench/.venv-webdataset (not committed) on first use (NO_WEBDATASET=1 skips it).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-7}
TILES=${2:-10000}
WORKERS=${WORKERS:-2}
LB=${LAYERBENCH:-.build/release/layerbench}
[[ -x $LB ]] || { echo "missing $LB (swift build -c release)" >&2; exit 1; }
TEXT=${TEXT:-"The quick brown fox jumps over the lazy dog while the async layer renders text tiles off the main thread, fast."}
WORK=$(mktemp -d "${OUT_ROOT:-${TMPDIR:-/tmp}}/shards.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
escaped=${TEXT//\\/\\\\}
escaped=${escaped//\"/\\\"}
for ((i = 0; i < TILES; i++)); do printf '{"id": "t%07d", "text": "%s"}\n' "$i" "$escaped"; done > "$WORK/lines.jsonl"
TILE=(--font "Sans 14" --width 375 --height 120 --scale 2 --padding 8 --bg white)

# Each prints "REPORTED_RATE WHOLE_COMMAND_RATE" (tiles/s).
now() { date +%s.%N; }
whole() { awk -v n="$TILES" -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", n / (b - a) }'; }
throughput() {
  local start rate
  start=$(now)
  rate=$("$LB" throughput --text "$TEXT" "${TILE[@]}" --tiles $((TILES / WORKERS)) --workers "$WORKERS" --png fast 2>&1 \
    | grep -oE '[0-9.]+ tiles/s' | head -1 | awk '{ print $1 }')
  echo "$rate $(whole "$start" "$(now)")"
}
# Each batch run writes into a directory of its own (see bench/issue28.sh: deleting a run's files just
# before the next run's are created slows that run's file creation); all are removed at the end.
batch() {
  local out start rate
  out=$(mktemp -d "$WORK/out.XXXXXX")
  start=$(now)
  rate=$("$LB" batch --input "$WORK/lines.jsonl" --out-dir "$out" --workers "$WORKERS" --progress-interval 0 --no-resume \
    "${TILE[@]}" "$@" 2>&1 | grep -oE '[0-9]+ tiles/s after' | awk '{ print $1 }')
  echo "$rate $(whole "$start" "$(now)")"
  echo "$out" > "$WORK/last"
}

echo "bench/shards.sh $ROUNDS $TILES: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD), $LB, $WORKERS workers"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores; output under $WORK"
printf '%-6s %12s %12s %12s   %s\n' round throughput webdataset files "whole commands: throughput webdataset files"
declare -a T W F TW WW FW
for ((r = 1; r <= ROUNDS; r++)); do
  if ((r % 2)); then
    t=$(throughput); w=$(batch --output webdataset); f=$(batch)
  else
    f=$(batch); w=$(batch --output webdataset); t=$(throughput)
  fi
  read -r t tw <<< "$t"; read -r w ww <<< "$w"; read -r f fw <<< "$f"
  T+=("$t"); W+=("$w"); F+=("$f"); TW+=("$tw"); WW+=("$ww"); FW+=("$fw")
  printf '%-6s %12s %12s %12s   %32s %10s %5s\n' "$r" "$t" "$w" "$f" "$tw" "$ww" "$fw"
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
ratios() { local -n a=$1 b=$2; for ((k = 0; k < ${#a[@]}; k++)); do awk -v x="${a[k]}" -v y="${b[k]}" 'BEGIN { printf "%.3f\n", x / y }'; done; }
summary() { local values; mapfile -t values < <(ratios "$1" "$2"); printf '%s (range %s-%s)' "$(median "${values[@]}")" \
  "$(printf '%s\n' "${values[@]}" | sort -g | head -1)" "$(printf '%s\n' "${values[@]}" | sort -g | tail -1)"; }
printf '%-6s %12s %12s %12s   %32s %10s %5s\n' median "$(median "${T[@]}")" "$(median "${W[@]}")" "$(median "${F[@]}")" \
  "$(median "${TW[@]}")" "$(median "${WW[@]}")" "$(median "${FW[@]}")"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "webdataset / throughput --png fast: $(summary W T)   (goal >= 1.00; rates after each worker's first tile)"
echo "files / throughput --png fast:      $(summary F T)"
echo "whole commands, webdataset / throughput: $(summary WW TW)"
echo "whole commands, files / throughput:      $(summary FW TW)"

# The last run's tar files, read with the webdataset package (PyPI) as a training loader would.
[[ ${NO_WEBDATASET:-0} == 1 ]] && exit 0
VENV=bench/.venv-webdataset
if [[ ! -x $VENV/bin/python ]]; then
  python3 -m venv "$VENV" && "$VENV/bin/pip" install -q webdataset==1.0.2
fi
out=$(batch --output webdataset --boxes --tiles-per-tar 1000 >/dev/null; cat "$WORK/last")
"$VENV/bin/python" - "$out" "$TILES" <<'PY'
import glob, json, sys
import webdataset as wds
out, tiles = sys.argv[1], int(sys.argv[2])
urls = sorted(glob.glob(out + "/tiles-*.tar"))
count, keys = 0, set()
for sample in wds.WebDataset(urls, shardshuffle=False):
    assert {"png", "txt", "json"} <= sample.keys(), sample.keys()
    assert sample["png"][:8] == b"\x89PNG\r\n\x1a\n"
    assert json.loads(sample["json"])["text"] == sample["txt"].decode()
    keys.add(sample["__key__"]); count += 1
print(f"webdataset {wds.__version__ if hasattr(wds, '__version__') else ''}: {len(urls)} tar files, {count} samples, {len(keys)} distinct keys (expected {tiles})")
sys.exit(0 if count == tiles == len(keys) else 1)
PY

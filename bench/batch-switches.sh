#!/usr/bin/env bash
# Where batch's threads sleep, per build: `perf record -e sched:sched_switch` of one batch run, then
# per thread the switches and how many of them were sleeps (prev_state S: a wait on a lock, the
# window or the writer's queue, not a preemption), and `perf stat` task-clock, context switches
# and page faults of the whole process. Counts, not times: they hardly move with the load.
#
#   bench/batch-switches.sh [TILES] [BUILD...]      (default 3000 tiles; builds default to
#                                                    /tmp/layerbench-main and .build/release/layerbench)
#
# WORKERS=N (default 1) and BATCH_ARGS="--output webdataset" choose the runs; the tile and lines are
# bench/issue28.sh's. Needs perf with the sched tracepoints (run as root).
set -euo pipefail
cd "$(dirname "$0")/.."
TILES=${1:-3000}
shift || true
BUILDS=("$@")
((${#BUILDS[@]})) || BUILDS=(/tmp/layerbench-main .build/release/layerbench)
WORKERS=${WORKERS:-1}
TEXT=${TEXT:-"The quick brown fox jumps over the lazy dog while the async layer renders text tiles off the main thread, fast."}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/batch-switches.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
escaped=${TEXT//\\/\\\\}
escaped=${escaped//\"/\\\"}
for ((i = 0; i < TILES; i++)); do printf '{"id": "t%07d", "text": "%s"}\n' "$i" "$escaped"; done > "$WORK/lines.jsonl"
TILE=(--font "Sans 14" --width 375 --height 120 --scale 2 --padding 8 --bg white)

echo "bench/batch-switches.sh $TILES: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD), $WORKERS worker(s)${BATCH_ARGS:+, batch $BATCH_ARGS}"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
for build in "${BUILDS[@]}"; do
  run=("$build" batch --input "$WORK/lines.jsonl" --workers "$WORKERS" --progress-interval 0 --no-resume "${TILE[@]}")
  echo "== $build"
  perf record -q -e sched:sched_switch -o "$WORK/perf.data" -- "${run[@]}" --out-dir "$(mktemp -d "$WORK/out.XXXXXX")" \
    ${BATCH_ARGS:-} 2>&1 | grep 'failed, '
  # Threads with at least 50 switches (the workers and the writer), in the order they started.
  perf script -i "$WORK/perf.data" -F tid,trace 2>/dev/null | awk '
    { n[$1]++; if ($0 ~ /prev_state=S/) s[$1]++ }
    END { for (t in n) if (n[t] >= 50) printf "  thread %s: %d switches, %d sleeps\n", t, n[t], s[t] }' | sort -k2 -n
  perf stat -x, -e task-clock,context-switches,page-faults -o "$WORK/stat" -- "${run[@]}" \
    --out-dir "$(mktemp -d "$WORK/out.XXXXXX")" ${BATCH_ARGS:-} 2>&1 | grep 'failed, '
  awk -F, -v tiles="$TILES" '/task-clock|context-switches|page-faults/ {
    printf "  %s: %s (%.3f per tile)\n", $3, $1, $1 / tiles }' "$WORK/stat"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

#!/usr/bin/env bash
# Issue 28, goal 3: calls per mixed tile of the library functions that write process-wide cache lines
# (global locks) or create objects, counted with uprobes (`perf probe`, needs root and uprobes):
# pthread_mutex_lock (cairo's and fontconfig's global mutexes), pthread_rwlock_rdlock (GLib's
# GRWLocks: g_weak_ref_get's one weak-reference lock for the whole process), g_weak_ref_get,
# g_object_new and g_pointer_bit_lock (GObject qdata, per object). `throughput --workload mixed` at
# WORKERS workers with 100 and TILES tiles per worker: the difference over the extra tiles is the
# count per tile in the timed part (warm-up and start-up cancel out).
#
#   bench/mixed-probes.sh [WORKERS] [TILES]      (defaults 1 and 600; LAYERBENCH=path for another build)
set -euo pipefail
cd "$(dirname "$0")/.."
LB=${LAYERBENCH:-.build/release/layerbench}
WORKERS=${1:-1}
TILES=${2:-600}
LIB=/lib/x86_64-linux-gnu
PROBES=(
  "$LIB/libc.so.6 pthread_mutex_lock" "$LIB/libc.so.6 pthread_rwlock_rdlock"
  "$LIB/libgobject-2.0.so.0 g_weak_ref_get" "$LIB/libgobject-2.0.so.0 g_object_new"
  "$LIB/libglib-2.0.so.0 g_pointer_bit_lock"
)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mixed-probes.XXXXXX")
added=()
cleanup() {
  for event in "${added[@]}"; do perf probe -q -d "$event" 2> /dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
events=()
for spec in "${PROBES[@]}"; do
  read -r library symbol <<< "$spec"
  event="h28probe:${symbol}"
  # Probes of our own group, removed at the end (others' probes are left alone).
  perf probe -q -x "$library" -a "h28probe:${symbol}=${symbol}" > /dev/null 2>&1 && added+=("$event")
  events+=("$event")
done
echo "bench/mixed-probes.sh $WORKERS $TILES: $(date -u '+%Y-%m-%d %H:%M UTC'), $LB (worktree at $(git rev-parse --short HEAD))"
for n in 100 "$TILES"; do
  perf stat -x, -e "$(IFS=,; echo "${events[*]}")" -o "$WORK/$n" "$LB" throughput --workload mixed --workers "$WORKERS" --tiles "$n" > /dev/null
done
join -t, -1 2 -2 2 <(awk -F, '!/^#/ && NF > 2 { print $1 "," $3 }' "$WORK/100" | sort -t, -k2) \
  <(awk -F, '!/^#/ && NF > 2 { print $1 "," $3 }' "$WORK/$TILES" | sort -t, -k2) |
  awk -F, -v n=$(((TILES - 100) * WORKERS)) '{ printf "%-36s %8.2f per tile\n", $1, ($3 - $2) / n }'

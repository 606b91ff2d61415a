#!/bin/sh
# Longest stretch between cancellation checks, two builds of cancel-latency run alternately per group of
# cases (CPU time of the render thread; see main.swift --gaps):
#   bench/cancel-latency/compare.sh BEFORE_BINARY AFTER_BINARY [runs] [group ...]
# Build each side with `swift build -c release` in its checkout's bench/cancel-latency (for "before", a copy
# of the base commit with this main.swift, so that it has the same cases).
set -eu
BEFORE=$1
AFTER=$2
RUNS=${3:-5}
shift 2
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- "ellipsis ." "maxLines" "no height" "vertical"
date -u
uptime
for only in "$@"; do
  for side in before after; do
    echo "== $side --only=$only"
    uptime
    if [ "$side" = before ]; then bin=$BEFORE; else bin=$AFTER; fi
    nice -n 5 "$bin" "$RUNS" --gaps "--only=$only"
  done
done
date -u
uptime

#!/usr/bin/env python3
"""Per-thread CPU of a process, grouped by thread name: `threadcpu.py snap PID FILE` writes a snapshot,
`threadcpu.py diff BEFORE AFTER` prints CPU seconds per group between two snapshots as `group=seconds ...`.
Groups: draw (the server's draw queues, threads tile-draw.N), nio (NIO event loops, NIO-ELT-*), other
(Swift's cooperative pool, which runs the handlers, and the main thread)."""
import json
import os
import sys

TICK = os.sysconf("SC_CLK_TCK")


def snap(pid):
    threads = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            text = open(f"/proc/{pid}/task/{tid}/stat").read()
        except OSError:
            continue
        name = text[text.index("(") + 1:text.rindex(")")]
        fields = text[text.rindex(")") + 2:].split()
        threads[tid] = [name, int(fields[11]) + int(fields[12])]  # utime + stime, in ticks
    return threads


def group(name):
    if name.startswith("tile-draw"):
        return "draw"
    if name.startswith("NIO-"):
        return "nio"
    return "other"


if sys.argv[1] == "snap":
    json.dump(snap(sys.argv[2]), open(sys.argv[3], "w"))
else:
    before, after = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
    totals = {"draw": 0.0, "nio": 0.0, "other": 0.0}
    for tid, (name, ticks) in after.items():
        totals[group(name)] += (ticks - before.get(tid, [name, 0])[1]) / TICK
    print(" ".join(f"{k}={v:.2f}" for k, v in totals.items()))

#!/usr/bin/env python3
"""Per-thread CPU of a process, grouped by thread name: `threadcpu.py snap PID FILE` writes a snapshot,
`threadcpu.py diff BEFORE AFTER` prints CPU seconds per group between two snapshots as `group=seconds ...`.

Groups, by the kernel's thread name (/proc/PID/task/TID/comm, at most 15 bytes):
  draw   the server's draw queues (QueuePool "tile-draw": threads tile-draw.0, tile-draw.1, …)
  nio    NIO's event loops (NIO-ELT-*, NIO-SGLTN-*), which parse HTTP and write responses
  swift  Swift's cooperative pool, which runs the handlers: libdispatch's root-queue threads,
         "com.apple.root.default-qos" cut to its last 15 bytes ("oot.default-qos", "-qos.overcommit")
  other  everything else (the main thread, the deadline timer "tile-deadlines")
and total: the whole process's user + system time from /proc/PID/stat (threads that ended included)."""
import json
import os
import sys

TICK = os.sysconf("SC_CLK_TCK")


def ticks(stat_text):
    fields = stat_text[stat_text.rindex(")") + 2:].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def snap(pid):
    threads = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            text = open(f"/proc/{pid}/task/{tid}/stat").read()
        except OSError:
            continue
        name = text[text.index("(") + 1:text.rindex(")")]
        threads[tid] = [name, ticks(text)]
    return {"threads": threads, "total": ticks(open(f"/proc/{pid}/stat").read())}


def group(name):
    if name.startswith("tile-draw"):
        return "draw"
    if name.startswith("NIO-"):
        return "nio"
    if "qos" in name:
        return "swift"
    return "other"


if sys.argv[1] == "snap":
    json.dump(snap(sys.argv[2]), open(sys.argv[3], "w"))
else:
    before, after = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
    totals = {"draw": 0.0, "nio": 0.0, "swift": 0.0, "other": 0.0}
    for tid, (name, t) in after["threads"].items():
        totals[group(name)] += (t - before["threads"].get(tid, [name, 0])[1]) / TICK
    totals["total"] = (after["total"] - before["total"]) / TICK
    print(" ".join(f"{k}={v:.2f}" for k, v in totals.items()))

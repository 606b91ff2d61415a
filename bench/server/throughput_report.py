#!/usr/bin/env python3
"""Summarises bench/server.sh's throughput rounds (medians) into throughput.txt, with where the CPU went."""
import statistics
import sys

raw, machine, queues, duration = sys.argv[1:5]
lb, wrk = [], {}
for line in open(raw):
    parts = line.split()
    if parts[2] == "layerbench":
        fields = dict(zip(parts[4::2], parts[5::2]))
        lb.append({"rps": float(parts[3]), **{k: float(v) for k, v in fields.items()}})
        continue
    c = int(parts[3].split("=")[1])
    key = f"{c} no-cancel" if parts[2] == "wrk-nocancel" else str(c)
    rps, p50, p99, bad = (float(x) for x in parts[4:8])
    # The rest: "requests N wrk_cpu S draw=S nio=S other=S load L".
    fields, named, rest = {}, {}, parts[8:]
    i = 0
    while i < len(rest):
        if "=" in rest[i]:
            k, v = rest[i].split("=")
            fields[k] = v
            i += 1
        else:
            named[rest[i]] = rest[i + 1]
            i += 2
    wrk.setdefault(key, []).append({
        "rps": rps, "p50": p50, "p99": p99, "bad": bad, "requests": float(named["requests"]),
        "wrk_cpu": float(named["wrk_cpu"]), "load": float(named["load"]),
        **{k: float(v) for k, v in fields.items()}})
med = statistics.median
base = med(r["rps"] for r in lb)
lb_cpu_ms = med(1000 * r["cpu"] / r["tiles"] for r in lb)
print(f"Tile server vs `layerbench throughput --png fast --workers {queues}` (same tile: the throughput command's default")
print(f"text, Sans 14, 375 pt, scale 2, PNG), release builds, {machine}.")
print(f"Medians of {len(lb)} interleaved rounds ({duration} s per wrk run); wrk -t1, {queues} draw queues, keep-alive")
print("connections (hang-up detection by a channel handler, no Connection: close). wrk runs on the same cores as the")
print("server; layerbench has them to itself. load: the 1-minute load average when the run started.")
rounds = ", ".join(f"{r['rps']:.1f} at load {r['load']:.2f}" for r in lb)
print(f"layerbench: {base:.1f} tiles/s (rounds: {rounds}),")
print(f"            {lb_cpu_ms:.3f} ms of CPU per tile (its user + system time / tiles, start-up and warm-up included)")
print()
print("connections  tiles/s  of layerbench  p50 ms  p99 ms  non-2xx  load (per round)")
order = ["1", "2", "8", "64", "64 no-cancel"]
for key in [k for k in order if k in wrk]:
    rows = wrk[key]
    rps = med(r["rps"] for r in rows)
    loads = ", ".join(f"{r['load']:.2f}" for r in rows)
    print(f"{key:>12}  {rps:7.1f}  {100 * rps / base:12.1f}%  {med(r['p50'] for r in rows):6.2f}  "
          f"{med(r['p99'] for r in rows):6.2f}  {int(sum(r['bad'] for r in rows)):7d}  "
          f"{loads}")
print()
print("Where the CPU goes (medians, ms of CPU per request = CPU seconds during the wrk run / requests; by thread")
print("name from /proc/PID/task/*/comm: draw = the pool's tile-draw.N threads, nio = event loops, swift = the")
print("cooperative pool running handlers, other = main thread and deadline timer; total = /proc/PID/stat):")
print(" connections   draw    nio  swift  other  server total  wrk    layerbench per tile")
groups = ["draw", "nio", "swift", "other", "total", "wrk_cpu"]
for key in [k for k in order if k in wrk]:
    rows = wrk[key]
    per = {name: med(1000 * r.get(name, 0.0) / r["requests"] for r in rows) for name in groups}
    print(f"{key:>12}  {per['draw']:5.3f}  {per['nio']:5.3f}  {per['swift']:5.3f}  {per['other']:5.3f}  "
          f"{per['total']:12.3f}  {per['wrk_cpu']:.3f}  {lb_cpu_ms:.3f}")
rows = wrk["64"]
server_ms = med(1000 * r["total"] / r["requests"] for r in rows)
wrk_ms = med(1000 * r["wrk_cpu"] / r["requests"] for r in rows)
cores = int(queues)
print()
print(f"At 64 connections a request costs {server_ms:.3f} ms of server CPU and {wrk_ms:.3f} ms of wrk CPU, a tile of")
print(f"layerbench {lb_cpu_ms:.3f} ms. On {cores} cores shared with wrk the server can reach at most "
      f"{1000 * cores / (server_ms + wrk_ms):.0f} tiles/s")
print(f"({100 * cores * 1000 / (server_ms + wrk_ms) / base:.0f}% of layerbench); with the client on other cores, "
      f"{1000 * cores / server_ms:.0f} tiles/s ({100 * cores * 1000 / server_ms / base:.0f}% of layerbench).")
print("(Upper bounds from CPU per request; the machine's other load takes its share from every figure alike.)")
print()
print("raw rounds:")
print(open(raw).read(), end="")

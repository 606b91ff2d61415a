#!/usr/bin/env python3
"""Summarises bench/server.sh's cancellation rounds (medians) into cancellation.txt and cancellation.svg."""
import statistics
import sys

raw, machine, deadline, duration, out = sys.argv[1:6]
rounds = {"on": [], "off": []}
for line in open(raw):
    parts = line.split()
    fields = dict(zip(parts[4::2], parts[5::2]))
    rounds[parts[3]].append({k: float(v) for k, v in fields.items()})


def med(mode, key):
    return statistics.median(r[key] for r in rounds[mode])


keys = ["wasted_cpu", "draw_cpu", "patient_rps", "patient_p50", "patient_p99", "impatient_rps", "impatient_non2xx",
        "cancelled_queued", "cancelled_running", "load"]
with open(f"{out}/cancellation.txt", "w") as f:
    f.write(f"Cancellation saving in the tile server: 8 patient wrk clients and 8 impatient ones (every request with\n")
    f.write(f"timeout={deadline} ms) on one heavier tile (45-word sentence ×40, 600 pt, scale 2), {duration} s per run,\n")
    f.write(f"cancellation on vs --no-cancel; release build, {machine}. Medians of {len(rounds['on'])} interleaved rounds.\n")
    f.write("wasted_cpu: draw CPU seconds for requests that got no image (cancelled, or finished past the deadline),\n")
    f.write("from asynclayer_undelivered_draw_cpu_seconds_total; draw_cpu: all draw CPU (asynclayer_draw_cpu_seconds_total);\n")
    f.write("load: the 1-minute load average when the run started (other work on the machine).\n\n")
    f.write(f"{'':22}{'cancel on':>12}{'--no-cancel':>14}\n")
    for key in keys:
        f.write(f"{key:22}{med('on', key):12.3f}{med('off', key):14.3f}\n")
    f.write("\nraw rounds:\n")
    f.write(open(raw).read())

# Two bar pairs: wasted CPU seconds, and p99 of the patient clients.
panels = [("CPU on draws nobody received (s)", "wasted_cpu"), ("p99 of the clients that stayed (ms)", "patient_p99")]
width, height = 640, 320
svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif">',
       f'<rect width="{width}" height="{height}" fill="white"/>',
       f'<text x="{width / 2}" y="22" text-anchor="middle" font-size="15">Tile server, 8 of 16 clients with a {deadline} ms deadline</text>']
for index, (title, key) in enumerate(panels):
    x0 = 40 + index * 310
    values = [med("on", key), med("off", key)]
    top = max(values) * 1.15 or 1
    svg.append(f'<text x="{x0 + 120}" y="50" text-anchor="middle" font-size="13">{title}</text>')
    for bar, (label, value, colour) in enumerate(zip(["cancel on", "--no-cancel"], values, ["#2e7d32", "#c62828"])):
        h = 200 * value / top
        x = x0 + 40 + bar * 110
        svg.append(f'<rect x="{x}" y="{270 - h:.1f}" width="70" height="{h:.1f}" fill="{colour}"/>')
        svg.append(f'<text x="{x + 35}" y="{265 - h:.1f}" text-anchor="middle" font-size="12">{value:.2f}</text>')
        svg.append(f'<text x="{x + 35}" y="288" text-anchor="middle" font-size="12">{label}</text>')
    svg.append(f'<line x1="{x0 + 20}" y1="270" x2="{x0 + 240}" y2="270" stroke="black"/>')
svg.append("</svg>")
open(f"{out}/cancellation.svg", "w").write("\n".join(svg) + "\n")
print(open(f"{out}/cancellation.txt").read())

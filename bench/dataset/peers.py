#!/usr/bin/env python3
"""`layerbench batch` against TextRecognitionDataGenerator (trdg 1.8) and SynthTIGER 1.2 (issue 27, deliverable 6).

Run through bench/dataset-peers.sh, which makes the venv. Every tool renders the same lines (made here
from trdg's bundled word lists with a fixed seed: Latin from `en.txt`, CJK from `cn.txt`) with the same
font file, one line per image, 32 px tall images with the text line about 22 px tall and 5 px margins,
black on white, no effects, PNG, and writes its labels:

- layerbench: `batch --file lines.txt --font-file F --font "FAMILY 18" --scale 1 --height 32 --padding 5
  --width 4000 --fit-width --labels gt.txt --boxes` (its PNG encoder writes 8-bit grey for black on
  white: checked below);
- trdg: `trdg -i lines.txt -c N -ft F -f 32 -m 5,5,5,5 -b 1 -tc #000000 -im L -e png -na 2 -t W` (plain
  white background, no skew, blur or distortion; it renders at 32 px and scales the line to 22 px);
  trdg draws each character on its own
  (no kerning or shaping between them); `trdg-ws` adds `-ws`, which draws word by word;
- synthtiger: bench/dataset/synthtiger_lines.py (its docstring says exactly what is kept and left out),
  font size 18 px, grey PNG, gt.txt and coords.txt, `worker` 0 (1 core) or W.

Per script and worker count, --rounds rounds; each round runs every tool once, the order rotated by one
each round (interleaved). Figures: the median of images/s (N / wall seconds of the whole command, start-up
included), the median of the rounds' ratios layerbench / tool, and the peak memory of the whole process
tree (sum of the tree's PSS, /proc/PID/smaps_rollup, sampled every 50 ms: shared pages of forked workers
count once), the largest over the rounds. Output on /dev/shm; each run's folder is removed before the next.
"""
import argparse
import datetime
import os
import random
import shutil
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FONTS = {
    "latin": ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "DejaVu Sans"),
    "cjk": ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", "Noto Sans CJK JP"),
}
HEIGHT, PAD, TEXT_PX = 32, 5, 18


def make_lines(script, count, path):
    import trdg  # the venv's; its word lists are the source of the lines
    words_file = os.path.join(os.path.dirname(trdg.__file__), "dicts", "en.txt" if script == "latin" else "cn.txt")
    with open(words_file, encoding="utf-8") as f:
        words = [w.strip() for w in f if w.strip() and "\t" not in w]
    rng = random.Random(27)
    with open(path, "w", encoding="utf-8") as f:
        for _ in range(count):
            if script == "latin":
                f.write(" ".join(rng.choice(words) for _ in range(rng.randint(3, 8))) + "\n")
            else:
                line = ""
                target = rng.randint(6, 18)
                while len(line) < target:
                    line += rng.choice(words)
                f.write(line[:target] + "\n")


def tree_pids(root):
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    pids, stack = [], [root]
    while stack:
        pid = stack.pop()
        pids.append(pid)
        stack.extend(children.get(pid, []))
    return pids


def tree_pss_kb(root):
    total = 0
    for pid in tree_pids(root):
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1])
                        break
        except OSError:
            pass
    return total


def run(command, out_dir, env=None):
    """Runs `command`; returns (wall seconds, peak tree PSS in MB)."""
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    peak = [0]
    log = open(out_dir + ".log", "w")
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], tree_pss_kb(process.pid))
            done.wait(0.05)

    sampler = threading.Thread(target=sample)
    sampler.start()
    code = process.wait()
    seconds = time.monotonic() - start
    done.set()
    sampler.join()
    log.close()
    if code != 0:
        sys.exit(f"dataset-peers: {' '.join(command)} exited {code}:\n{open(out_dir + '.log').read()[-3000:]}")
    return seconds, peak[0] / 1024


def commands(tool, script, lines, count, workers, out, layerbench, venv_bin):
    font_file, family = FONTS[script]
    if tool == "layerbench":
        return [layerbench, "batch", "--file", lines, "--out-dir", out, "--workers", str(workers),
                "--font-file", font_file, "--font", f"{family} {TEXT_PX}", "--scale", "1", "--height", str(HEIGHT),
                "--padding", str(PAD), "--width", "4000", "--fit-width", "--labels", "gt.txt", "--boxes",
                "--no-resume", "--progress-interval", "0"]
    if tool in ("trdg", "trdg-ws"):
        return ([os.path.join(venv_bin, "trdg"), "-i", lines, "-c", str(count), "-ft", font_file, "-f", str(HEIGHT),
                 "-m", f"{PAD},{PAD},{PAD},{PAD}", "-b", "1", "-tc", "#000000", "-im", "L", "-e", "png", "-na", "2",
                 "-t", str(workers), "--output_dir", out] + (["-ws"] if tool == "trdg-ws" else []))
    if tool == "synthtiger":
        return [os.path.join(venv_bin, "python"), os.path.join(HERE, "synthtiger_lines.py"), "--lines", lines,
                "--font", font_file, "--size", str(TEXT_PX), "--height", str(HEIGHT), "--pad", str(PAD),
                "--count", str(count), "--worker", str(0 if workers == 1 else workers), "--output", out]
    raise ValueError(tool)


def count_pngs(out):
    """The PNGs under `out`; fails unless one of them is an 8-bit grey image HEIGHT pixels tall."""
    from PIL import Image
    paths = [os.path.join(d, name) for d, _, files in os.walk(out) for name in files if name.endswith(".png")]
    if paths:
        with Image.open(paths[0]) as image:
            if image.mode != "L" or image.height != HEIGHT:
                sys.exit(f"dataset-peers: {paths[0]} is {image.mode} {image.size}, not 8-bit grey {HEIGHT} px tall")
    return len(paths)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--layerbench", default=os.path.join(ROOT, ".build/release/layerbench"))
    parser.add_argument("--lines", type=int, default=2000, help="lines (images) per run")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--scripts", default="latin,cjk")
    parser.add_argument("--tools", default="layerbench,trdg,trdg-ws,synthtiger")
    parser.add_argument("--dir", default="/dev/shm/dataset-peers")
    parser.add_argument("--result", help="also append the report to this file")
    args = parser.parse_args()
    venv_bin = os.path.dirname(sys.executable)
    tools = args.tools.split(",")
    os.makedirs(args.dir, exist_ok=True)
    report = []

    def say(text=""):
        print(text, flush=True)
        report.append(text)

    say(f"# bench/dataset-peers.sh {' '.join(sys.argv[1:])}")
    say(f"# started {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}; "
        f"load average at start {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores")
    say(f"# {args.lines} lines per run, {args.rounds} interleaved rounds; images/s = lines / wall s of the whole "
        "command (start-up included); memory = peak PSS of the process tree")
    rows = []
    for script in args.scripts.split(","):
        lines = os.path.join(args.dir, f"{script}.txt")
        make_lines(script, args.lines, lines)
        for workers in [int(w) for w in args.workers.split(",")]:
            rates = {tool: [] for tool in tools}
            memory = {tool: [] for tool in tools}
            ratios = {tool: [] for tool in tools}
            for round_index in range(args.rounds):
                shift = round_index % len(tools)
                order = tools[shift:] + tools[:shift]
                round_rates = {}
                for tool in order:
                    out = os.path.join(args.dir, f"{script}-{tool}-{workers}")
                    seconds, mb = run(commands(tool, script, lines, args.lines, workers, out, args.layerbench,
                                               venv_bin), out)
                    images = count_pngs(out)
                    if images != args.lines:
                        sys.exit(f"dataset-peers: {tool} wrote {images} PNGs for {args.lines} lines ({out})")
                    round_rates[tool] = args.lines / seconds
                    rates[tool].append(round_rates[tool])
                    memory[tool].append(mb)
                    say(f"  {script} w{workers} round {round_index + 1} {tool:11} {seconds:8.2f} s "
                        f"{round_rates[tool]:9.1f} images/s {mb:7.1f} MB  load {os.getloadavg()[0]:.2f}")
                if "layerbench" in round_rates:
                    for tool in tools:
                        ratios[tool].append(round_rates["layerbench"] / round_rates[tool])
            for tool in tools:
                rows.append((script, workers, tool, statistics.median(rates[tool]),
                             statistics.median(ratios[tool]) if ratios[tool] else None,
                             min(ratios[tool]) if ratios[tool] else None, max(ratios[tool]) if ratios[tool] else None,
                             min(memory[tool]), max(memory[tool])))
    say()
    say(f"{'script':7} {'workers':>7} {'tool':11} {'images/s':>9} {'layerbench/tool':>16} {'range':>15} "
        f"{'tree PSS MB':>12}")
    for script, workers, tool, rate, ratio, low, high, mem_low, mem_high in rows:
        ratio_text = f"{ratio:.1f}x" if ratio is not None else "-"
        range_text = f"{low:.1f}-{high:.1f}x" if ratio is not None else "-"
        say(f"{script:7} {workers:>7} {tool:11} {rate:9.1f} {ratio_text:>16} {range_text:>15} "
            f"{mem_low:5.0f}-{mem_high:<5.0f}")
    say(f"# ended {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}; "
        f"load average at end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.result:
        with open(args.result, "a") as f:
            f.write("\n".join(report) + "\n\n")


if __name__ == "__main__":
    main()

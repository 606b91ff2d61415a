#!/usr/bin/env python3
"""AsyncLayer's report PDFs against Typst, ReportLab, WeasyPrint and fpdf2 (issue 29): the same documents,
timed and checked the same way.  Run through bench/report-peers.sh (it makes the venv and builds nothing);
that script passes its arguments here.

Cases (one JSON spec each, bench/peers/cases.py; written to bench/out/peers/):
  table-2000    bench/report-table.sh's 2,000-row table, every feature on (header and footer template,
                contents, date/percent/currency formats, decimal alignment, stripes, horizontal rules)
  table-20000   the same at 20,000 rows (time and peak memory)
  multilingual  200 paragraphs under 10 headings, Latin + Arabic / Chinese / Devanagari / emoji, contents

Each tool runs as its own process, `/usr/bin/time -f "%e %U %S %M"` around it: layerbench report SPEC -o
OUT.pdf, or the venv's python bench/peers/render_<tool>.py SPEC OUT.pdf (which includes Python's start-up
and imports, as layerbench's figure includes its own start-up). Rounds are interleaved: round 1 runs every
tool once, then round 2, ... Each tool's last PDF of a case is checked by bench/peers/check_pdf.py and its
first page written as a 50 dpi PNG next to it.
"""
import argparse
import datetime
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "peers"))
import cases  # noqa: E402

TOOLS = ["asynclayer", "typst", "reportlab", "weasyprint", "fpdf2"]
CASES = ["table-2000", "table-20000", "multilingual"]
PACKAGES = ["typst", "reportlab", "weasyprint", "fpdf2", "pypdf", "uharfbuzz", "pydyf", "fonttools"]


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def versions(python):
    out = subprocess.run([python, "-m", "pip", "freeze"], capture_output=True, text=True).stdout
    pins = {}
    for line in out.splitlines():
        name, _, version = line.partition("==")
        if name.lower() in PACKAGES:
            pins[name.lower()] = version
    return pins


def tool_command(tool, spec, ours_spec, pdf, args):
    if tool == "asynclayer":
        return [args.layerbench, "report", "--spec", ours_spec, "-o", pdf]
    return [sys.executable, os.path.join(HERE, "peers", "render_%s.py" % tool), spec, pdf]


def timed(cmd, timeout):
    stats = "/tmp/report-peers-time.%d" % os.getpid()
    start = time.perf_counter()
    # its own process group, so that a timeout ends the tool as well as /usr/bin/time
    p = subprocess.Popen(["/usr/bin/time", "-f", "%e %U %S %M", "-o", stats] + cmd, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        stdout, stderr = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return {"status": "timeout: over %d s" % timeout}
    wall = time.perf_counter() - start
    fields = open(stats).read().split()[-4:]
    os.unlink(stats)
    if p.returncode != 0:
        return {"status": "exit %d: %s" % (p.returncode, (stderr or stdout).strip().splitlines()[-1:])}
    return {"status": "ok", "wall": wall, "cpu": float(fields[1]) + float(fields[2]), "rss_mb": int(fields[3]) / 1024,
            "said": stdout.strip()}


def median(values):
    return statistics.median(values) if values else None


def fmt_s(v):
    return "—" if v is None else ("%.3f s" % v if v < 10 else "%.1f s" % v)


def fmt_mb(v):
    return "—" if v is None else ("%.0f MB" % v if v < 1000 else "%.1f GB" % (v / 1024))


def check_line(c):
    """One table cell per check, the same words for every tool."""
    if "error" in c:
        return {"links": c["error"]}
    links = c["links"]
    cells = {
        "pages": str(c["pages"]),
        "contents links": "%d/%d land%s" % (links["entries_right"], links["expected"],
                                            "; %d of %d annotations dead" % (links["dead"], links["annotations"]) if links["dead"] else ""),
        "outline": "%d/%d" % (c["outline"]["matching"], c["outline"]["expected"]) + (
            " (of %d entries)" % c["outline"]["entries"] if c["outline"]["entries"] != c["outline"]["expected"] else ""),
        "emoji in text": "%d/%d" % (c["emoji"]["found"], c["emoji"]["expected"]) if "emoji" in c else "n/a",
        "text layer": (("%d/%d rows, " % (c["rows_found"], c["rows_expected"])) if "rows_found" in c else "") +
        (", ".join(k for k, ok in c["text"].items() if ok) or "none") +
        ("" if all(c["text"].values()) else " (missing: %s)" % ", ".join(k for k, ok in c["text"].items() if not ok)),
        "images": str(c["images"]),
        "tagged": "yes" if c["tagged"] and c["structtree"] else ("StructTreeRoot only" if c["structtree"] else "no"),
        "/Lang": c["lang"] or "none",
        "qpdf --check": "ok" if c["qpdf"]["warnings"] == 0 and c["qpdf"]["exit"] == 0 else
        "%d warnings (exit %d): %s" % (c["qpdf"]["warnings"], c["qpdf"]["exit"], (c["qpdf"]["first"] or "").split(": ", 1)[-1]),
    }
    return cells


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds for table-2000 and multilingual (5)")
    ap.add_argument("--rounds-slow", type=int, default=2,
                    help="rounds for WeasyPrint and fpdf2 in those two cases (2): they take 10-60x longer")
    ap.add_argument("--rounds-large", type=int, default=1, help="rounds for table-20000, every tool (1)")
    ap.add_argument("--tools", default=",".join(TOOLS))
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--timeout", type=int, default=300, help="seconds a run may take, table-2000 and multilingual (300)")
    ap.add_argument("--timeout-large", type=int, default=180,
                    help="seconds a run may take at 20,000 rows (180; a slower tool is shown as 'timeout')")
    ap.add_argument("--layerbench", default=".build/release/layerbench")
    ap.add_argument("--out", default="bench/out/peers")
    ap.add_argument("--results", default="bench/results/report-peers.txt")
    args = ap.parse_args()
    tools = args.tools.split(",")
    names = args.cases.split(",")
    os.makedirs(os.path.dirname(args.results), exist_ok=True)
    log = open(args.results, "w", encoding="utf-8")

    def say(line=""):
        print(line, flush=True)
        log.write(line + "\n")
        log.flush()

    commit = subprocess.run(["git", "log", "-1", "--format=%h %cI %s"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True).stdout.strip()
    say("# bench/report-peers.sh: AsyncLayer's report PDF against four peers (issue 29)")
    say("started   %s" % datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"))
    say("commit    %s%s" % (commit, " (uncommitted changes)" if dirty else ""))
    say("machine   %s, %d cores, %s; Python %s" % (platform.node(), os.cpu_count(), platform.platform(), platform.python_version()))
    say("peers     " + ", ".join("%s %s" % kv for kv in sorted(versions(sys.executable).items())))
    say("rounds    %d (WeasyPrint, fpdf2: %d) for table-2000 and multilingual, %d for table-20000; interleaved"
        % (args.rounds, args.rounds_slow, args.rounds_large))
    say("timeouts  %d s a run, %d s at 20,000 rows" % (args.timeout, args.timeout_large))
    say("load      %s at the start (1, 5, 15 min)" % load_average())
    say()
    say("raw: case round tool: wall s, CPU s (user+sys), peak RSS MB [layerbench's own figure]")
    paths = cases.write_all(args.out, names)
    runs = {}
    checks = {}
    started = time.time()
    for name in names:
        spec, ours = paths[name]
        rounds = args.rounds_large if name == "table-20000" else args.rounds
        for r in range(1, rounds + 1):
            for tool in tools:
                if name != "table-20000" and tool in ("weasyprint", "fpdf2") and r > args.rounds_slow:
                    continue
                pdf = os.path.join(args.out, "%s-%s.pdf" % (name, tool))
                res = timed(tool_command(tool, spec, ours, pdf, args), args.timeout_large if name == "table-20000" else args.timeout)
                runs.setdefault((name, tool), []).append(res)
                if res["status"] == "ok":
                    say("%-12s %d %-10s %7.3f s  %7.3f s CPU  %7.1f MB%s" % (
                        name, r, tool, res["wall"], res["cpu"], res["rss_mb"],
                        "  [%s]" % res["said"].split(" in ")[-1] if tool == "asynclayer" else ""))
                else:
                    say("%-12s %d %-10s %s" % (name, r, tool, res["status"]))
        for tool in tools:
            pdf = os.path.join(args.out, "%s-%s.pdf" % (name, tool))
            if not any(x["status"] == "ok" for x in runs.get((name, tool), [])):
                checks[(name, tool)] = {"error": "no PDF"}
                continue
            p = subprocess.run([sys.executable, os.path.join(HERE, "peers", "check_pdf.py"), spec, pdf],
                               capture_output=True, text=True)
            try:
                checks[(name, tool)] = json.loads(p.stdout.strip().splitlines()[-1])
            except (IndexError, ValueError):
                checks[(name, tool)] = {"error": "check failed: %s" % p.stderr.strip()[-200:]}
            say("check %-12s %-10s %s" % (name, tool, json.dumps(checks[(name, tool)], ensure_ascii=False)))
            subprocess.run(["pdftoppm", "-r", "50", "-png", "-f", "1", "-l", "1", "-singlefile", pdf, pdf[:-4] + "-page1"])
    say()
    say("load      %s at the end; %.0f s in all" % (load_average(), time.time() - started))
    say()
    say("## Speed: medians of the runs above (wall clock of the whole process; CPU = user + sys; peak RSS)")
    say("Ratio = the tool's median wall time / AsyncLayer's in the same case (>1: slower than AsyncLayer);")
    say("the CPU ratio is less disturbed by a loaded machine. n = runs.")
    say()
    say("| case | " + " | ".join(tools) + " |")
    say("|---|" + "---|" * len(tools))
    for name in names:
        base = median([x["wall"] for x in runs.get((name, "asynclayer"), []) if x["status"] == "ok"])
        base_cpu = median([x["cpu"] for x in runs.get((name, "asynclayer"), []) if x["status"] == "ok"])
        cells = []
        for tool in tools:
            ok = [x for x in runs.get((name, tool), []) if x["status"] == "ok"]
            if not ok:
                cells.append(runs.get((name, tool), [{"status": "not run"}])[-1]["status"])
                continue
            wall, cpu, rss = median([x["wall"] for x in ok]), median([x["cpu"] for x in ok]), max(x["rss_mb"] for x in ok)
            ratio = "" if tool == "asynclayer" or not base else " = %.1f×" % (wall / base)
            cpu_ratio = "" if tool == "asynclayer" or not base_cpu else " = %.1f×" % (cpu / base_cpu)
            cells.append("%s%s, CPU %s%s, %s (n=%d)" % (fmt_s(wall), ratio, fmt_s(cpu), cpu_ratio, fmt_mb(rss), len(ok)))
        say("| %s | %s |" % (name, " | ".join(cells)))
    say()
    say("## Correctness of each tool's PDF (bench/peers/check_pdf.py; the same checks for every tool)")
    say("contents links: contents entries whose every link annotation resolves to the heading's page / headings;")
    say("outline: outline entries matching a heading's level, title and page / headings; emoji in text: the case's")
    say("emoji found by pdftotext / emoji in the spec; text layer: probe words found by pdftotext (logical order);")
    say("images: pdfimages -list rows (masks included); tagged: pdfinfo Tagged: yes and /StructTreeRoot; /Lang of")
    say("the catalog; qpdf --check: its warnings.")
    for name in names:
        say()
        say("### %s" % name)
        rows = {tool: check_line(checks.get((name, tool), {"error": "not run"})) for tool in tools}
        keys = ["pages", "contents links", "outline", "emoji in text", "text layer", "images", "tagged", "/Lang", "qpdf --check"]
        say("| check | " + " | ".join(tools) + " |")
        say("|---|" + "---|" * len(tools))
        for key in keys:
            say("| %s | %s |" % (key, " | ".join(rows[t].get(key, "—") for t in tools)))
    say()
    say("Where a peer cannot match a feature: see the docstring of bench/peers/render_<tool>.py (ReportLab: no font")
    say("fallback, no CFF (Noto Sans CJK) or colour-bitmap (emoji) fonts, no bidi without rlbidi; fpdf2 shapes text only in")
    say("the multilingual case; WeasyPrint writes tags (pdf_tags=True); the peers get the cell formats applied in Python).")


main()

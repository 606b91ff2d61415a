"""Shared by the peer renderers and the driver of bench/report_peers.py.

A case spec (bench/out/peers/<case>.json, written by cases.py) is layerbench's report spec plus three keys
the peers' scripts read and `layerbench report` does not: "case", "lang" and "checks". Each renderer
(render_<tool>.py SPEC OUT.pdf) reads it and builds the same document in its tool's idiom; the cell
formats (date, percent, currency), which the peers do not have, are applied by `format_cell` below.
"""
import datetime
import json
import sys

FONTS = {
    "regular": "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "bold": "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "cjk": "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",  # face 2: Noto Sans CJK SC
    "cjk_index": 2,
    "devanagari": "/usr/share/fonts/truetype/lohit-devanagari/Lohit-Devanagari.ttf",
    "emoji": "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf",
}
FAMILIES = ["DejaVu Sans", "Noto Sans CJK SC", "Lohit Devanagari", "Noto Color Emoji"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
# layerbench's ReportStyle defaults (Sources/AsyncLayer/Report/ReportStyle.swift), mirrored by every peer.
BODY = 11.0
SIZES = {"h1": BODY * 1.6, "h2": BODY * 1.3, "h3": BODY * 1.1, "cell": BODY * 0.9, "margin_text": BODY * 0.8}
CELL_PADDING = 4.0
A4 = (595.2756, 841.8898)


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def args():
    if len(sys.argv) != 3:
        sys.exit("usage: %s SPEC.json OUT.pdf" % sys.argv[0])
    return load(sys.argv[1]), sys.argv[2]


def template(text, spec):
    """{title} and {date} filled in; {page} and {pages} are left to the tool."""
    return (text or "").replace("{title}", spec.get("title", "")).replace("{date}", spec.get("date", ""))


def format_cell(text, fmt):
    if fmt in (None, "text"):
        return text
    if isinstance(fmt, str):
        fmt = {"format": fmt}
    kind, decimals = fmt["format"], fmt.get("decimals")
    try:
        if kind == "date":
            d = datetime.date.fromisoformat(text)
            return "%d %s %d" % (d.day, MONTHS[d.month - 1], d.year)  # pattern "d MMM yyyy"
        value = float(text)
        if kind == "percent":
            return "{:,.{}f}%".format(value * 100, 0 if decimals is None else decimals)
        if kind == "currency":
            return "{}{:,.{}f}".format(fmt.get("symbol", "$"), value, 2 if decimals is None else decimals)
        if kind == "number":
            return "{:,.{}f}".format(value, 0 if decimals is None else decimals)
    except ValueError:
        return text
    return text


def formatted_rows(table):
    formats = table.get("formats") or [None] * len(table["columns"])
    return [[format_cell(cell, formats[i]) for i, cell in enumerate(row)] for row in table["rows"]]


def column_align(table):
    """left/right per column: decimal becomes right (every amount has the same number of decimals)."""
    out = []
    for a in table.get("align") or ["natural"] * len(table["columns"]):
        out.append("right" if a in ("right", "decimal", "trailing") else "center" if a == "center" else "left")
    return out


def headings(spec):
    return [(b.get("level", 1), b["heading"]) for b in spec["content"] if "heading" in b]


def script_of(ch):
    """The font a character needs (for ReportLab, which has no font fallback)."""
    cp = ord(ch)
    if 0x1F000 <= cp <= 0x1FAFF or 0x2600 <= cp <= 0x27BF or cp in (0xFE0F, 0x200D):
        return "emoji"
    if 0x0900 <= cp <= 0x097F:
        return "devanagari"
    if 0x2E80 <= cp <= 0x9FFF or 0xF900 <= cp <= 0xFAFF or 0xFF00 <= cp <= 0xFFEF or 0x3000 <= cp <= 0x303F:
        return "cjk"
    return "regular"


def script_runs(text):
    runs = []
    for ch in text:
        s = script_of(ch)
        if runs and (runs[-1][0] == s or (ch == " " and runs[-1][0] != "emoji")):
            runs[-1][1] += ch
        else:
            runs.append([s, ch])
    return runs


def needs_shaping(spec):
    """True when a paragraph has Arabic or an Indic script (shaping matters; Latin tables do without)."""
    return any(0x0590 <= ord(ch) <= 0x0DFF for b in spec["content"] if "paragraph" in b for ch in b["paragraph"])

"""The same correctness checks for every tool's PDF:  check_pdf.py CASE.json OUT.pdf  → one JSON line.

links     every link annotation has /Dest or /A; internal ones are grouped into contents entries (annotations
          on the same page whose rectangles overlap vertically), entry k (top to bottom) must resolve to the
          page of heading k (the page of the heading text's last occurrence in pdftotext's output)
outline   the PDF outline's (level, title, page) against the headings'
emoji     occurrences of the case's emoji in pdftotext's text, against the count in the spec
text      words of each script (NFKC-folded, bidi controls dropped, logical order) found by pdftotext; tables: distinct row ids
images    image objects listed by `pdfimages -list` (masks included)
tags      pdfinfo "Tagged: yes", /StructTreeRoot and /Lang in the catalog
qpdf      `qpdf --check`: exit status and WARNING lines
"""
import json
import re
import subprocess
import sys
import unicodedata
import warnings

from pypdf import PdfReader
from pypdf.generic import ArrayObject, IndirectObject

from common import load, headings


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    return p.returncode, p.stdout, p.stderr


def resolve(obj):
    return obj.get_object() if isinstance(obj, IndirectObject) else obj


def page_index_of(reader, dest, page_ids, named):
    dest = resolve(dest)
    if isinstance(dest, (str, bytes)) or not isinstance(dest, (list, ArrayObject, dict)):
        name = dest.decode("latin-1") if isinstance(dest, bytes) else str(dest)
        target = named.get(name)
        if target is None:
            return None
        return reader.get_destination_page_number(target)
    if isinstance(dest, dict) and "/D" in dest:
        return page_index_of(reader, dest["/D"], page_ids, named)
    first = dest[0]
    if isinstance(first, IndirectObject):
        return page_ids.get(first.idnum)
    if isinstance(first, int):
        return int(first)
    return None


def check_links(reader, heading_pages):
    page_ids = {p.indirect_reference.idnum: i for i, p in enumerate(reader.pages)}
    named = reader.named_destinations
    dead, external, internal = 0, 0, []
    for pi, page in enumerate(reader.pages):
        for a in page.get("/Annots") or []:
            a = resolve(a)
            if a.get("/Subtype") != "/Link":
                continue
            action = resolve(a.get("/A")) if "/A" in a else None
            if "/Dest" not in a and action is None:
                dead += 1
                internal.append((pi, [float(v) for v in a["/Rect"]], None))
                continue
            if action is not None and action.get("/S") == "/URI":
                external += 1
                continue
            dest = a["/Dest"] if "/Dest" in a else action.get("/D")
            target = page_index_of(reader, dest, page_ids, named) if dest is not None else None
            internal.append((pi, [float(v) for v in a["/Rect"]], target))
    # group into entries: same page, overlapping vertical ranges; order top to bottom
    entries = []
    for pi, rect, target in sorted(internal, key=lambda x: (x[0], -max(x[1][1], x[1][3]))):
        lo, hi = min(rect[1], rect[3]), max(rect[1], rect[3])
        if entries and entries[-1]["page"] == pi and lo < entries[-1]["hi"] and hi > entries[-1]["lo"]:
            entries[-1]["targets"].append(target)
            entries[-1]["lo"] = min(lo, entries[-1]["lo"])
        else:
            entries.append({"page": pi, "lo": lo, "hi": hi, "targets": [target]})
    right = sum(1 for k, e in enumerate(entries) if k < len(heading_pages)
                and all(t is not None and t == heading_pages[k] for t in e["targets"]))
    return {"annotations": len(internal) + external, "dead": dead, "external": external,
            "entries": len(entries), "entries_right": right, "expected": len(heading_pages)}


def flatten_outline(reader, items, level=1, out=None):
    out = [] if out is None else out
    for item in items:
        if isinstance(item, list):
            flatten_outline(reader, item, level + 1, out)
        else:
            try:
                page = reader.get_destination_page_number(item)
            except Exception:
                page = None
            out.append((level, str(item.title), page))
    return out


def main():
    spec, pdf = load(sys.argv[1]), sys.argv[2]
    result = {}
    _, info, _ = run(["pdfinfo", pdf])
    result["pages"] = int(re.search(r"Pages:\s+(\d+)", info).group(1)) if "Pages:" in info else None
    _, text, _ = run(["pdftotext", "-enc", "UTF-8", pdf, "-"])
    pages_text = [" ".join(t.split()) for t in text.split("\f")]
    heads = headings(spec)
    heading_pages = []
    for _, title in heads:
        found = [i for i, t in enumerate(pages_text) if title in t]
        heading_pages.append(found[-1] if found else None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reader = PdfReader(pdf)
        result["links"] = check_links(reader, heading_pages)
        outline = flatten_outline(reader, reader.outline)
        expected = [(lvl, title, heading_pages[k]) for k, (lvl, title) in enumerate(heads)]
        matched = sum(1 for e in expected if e in outline)
        result["outline"] = {"entries": len(outline), "matching": matched, "expected": len(expected)}
        root = reader.trailer["/Root"]
        result["structtree"] = "/StructTreeRoot" in root
        result["lang"] = str(root["/Lang"]) if "/Lang" in root else None
    result["pypdf_warnings"] = len(caught)
    result["tagged"] = bool(re.search(r"Tagged:\s+yes", info))
    checks = spec.get("checks", {})
    folded = re.sub("[\u200e\u200f\u202a-\u202e\u2066-\u2069]", "", unicodedata.normalize("NFKC", text))
    if checks.get("emoji"):
        result["emoji"] = {"found": sum(folded.count(e) for e in checks["emoji"]), "expected": checks["emojiCount"]}
    result["text"] = {name: word in folded for name, word in checks.get("probes", {}).items()}
    if checks.get("rowIds"):
        result["rows_found"] = len(set(re.findall(r"#\d{5}", text)))
        result["rows_expected"] = checks["rowIds"]
    _, images, _ = run(["pdfimages", "-list", pdf])
    result["images"] = max(0, len(images.strip().splitlines()) - 2)
    code, out, err = run(["qpdf", "--check", pdf])
    lines = [l.replace(pdf + ": ", "").replace(pdf + " ", "") for l in (out + err).splitlines() if "WARNING" in l]
    lines.sort(key=lambda l: l.endswith("file is damaged"))  # the specific warning first
    result["qpdf"] = {"exit": code, "warnings": len(lines), "first": lines[0][-160:] if lines else None}
    print(json.dumps(result, ensure_ascii=False))


main()

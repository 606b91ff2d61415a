"""The three cases of bench/report_peers.py, one JSON spec each, and layerbench's spec made from it.

table-2000 / table-20000: the table of bench/report-table.sh (same rows, formats, alignments, stripes,
rules, header and footer templates, contents) with the font named. multilingual: 10 headings, 200
paragraphs; each paragraph is a Latin sentence followed by one in Latin, Arabic, Chinese, Devanagari, or Latin
with two emoji, in turn (so 40 paragraphs hold 80 emoji), and a contents list.
"""
import json
import os

REGIONS = ["North", "South", "East", "West", "Islands"]
EMOJI = ["🎉", "🚀", "🌍", "📈", "🍀", "🔥", "🎨", "📦"]
LATIN = ("Paragraph {n}: each quarter the regional offices send their figures to the head office, "
         "where they are checked, merged and summarised before the board reads them.")
OTHER = [
    ("Latin", "The figures are final once the auditors have signed them off."),
    ("Arabic", "ترسل المكاتب الإقليمية أرقامها إلى المكتب الرئيسي كل ربع سنة حيث تراجع وتدمج وتلخص."),
    ("CJK", "各地区办事处每个季度把数据发送到总部，在那里核对、合并并汇总，然后提交董事会审阅。"),
    ("Devanagari", "हर तिमाही क्षेत्रीय कार्यालय अपने आँकड़े मुख्य कार्यालय को भेजते हैं, जहाँ उनकी जाँच की जाती है।"),
    ("Emoji", "The release shipped {e1} and the numbers went up {e2} in every region."),
]
# A word of each script that the text layer must give back (pdftotext, NFKC-folded).
PROBES = {"Latin": "summarised", "Arabic": "المكاتب", "CJK": "办事处", "Devanagari": "कार्यालय"}


def table_spec(rows):
    cells = [["#%05d" % i, REGIONS[i % 5], "2024-%02d-%02d" % (i % 12 + 1, i % 28 + 1),
              "%.4f" % ((i * 37 % 1000) / 1000), "%.2f" % (i * 123.457 % 100000)] for i in range(rows)]
    table = {
        "columns": ["Order", "Region", "Date", "Share", "Amount"],
        "widths": [1, 1.4, 1.4, 1, 1.4],
        "align": ["natural", "natural", "natural", "right", "decimal"],
        "formats": ["text", "text", {"format": "date", "pattern": "d MMM yyyy"}, {"format": "percent", "decimals": 1},
                    {"format": "currency", "symbol": "€", "decimals": 2}],
        "rows": cells,
    }
    return {
        "case": "table-%d" % rows, "lang": "en",
        "title": "Orders", "header": "{title} — {date}", "footer": "Page {page} of {pages}", "date": "2024-03-05",
        "author": "layerbench", "stripes": "#f2f4f7", "rules": "horizontal", "font": "DejaVu Sans", "fontSize": 11,
        "content": [{"contents": True}, {"heading": "All orders"}, {"table": table}],
        "checks": {"emoji": [], "rowIds": rows, "probes": {"Latin": "#%05d" % (rows - 1)}},
    }


def multilingual_spec(paragraphs=200, sections=10):
    content = [{"contents": True}]
    emoji_count = 0
    for s in range(sections):
        content.append({"heading": "Section %d: regional figures" % (s + 1)})
        for p in range(paragraphs // sections):
            n = s * (paragraphs // sections) + p + 1
            kind, other = OTHER[(n - 1) % len(OTHER)]
            if kind == "Emoji":
                other = other.format(e1=EMOJI[emoji_count % len(EMOJI)], e2=EMOJI[(emoji_count + 1) % len(EMOJI)])
                emoji_count += 2
            content.append({"paragraph": LATIN.format(n=n) + " " + other})
    return {
        "case": "multilingual", "lang": "en",
        "title": "Regional figures", "footer": "Page {page} of {pages}", "date": "2024-03-05", "author": "layerbench",
        "font": "DejaVu Sans", "fontSize": 11, "content": content,
        "checks": {"emoji": EMOJI, "emojiCount": emoji_count, "probes": PROBES},
    }


def layerbench_spec(spec):
    """Our spec: the case spec without the keys only the peers read, its "lang" as layerbench's "language"."""
    ours = {k: v for k, v in spec.items() if k not in ("case", "lang", "checks")}
    ours["language"] = spec["lang"]
    return ours


def write_all(out_dir, cases):
    os.makedirs(out_dir, exist_ok=True)
    paths = {}
    for name in cases:
        spec = multilingual_spec() if name == "multilingual" else table_spec(int(name.split("-")[1]))
        path = os.path.join(out_dir, name + ".json")
        json.dump(spec, open(path, "w", encoding="utf-8"), ensure_ascii=False)
        ours = os.path.join(out_dir, name + ".layerbench.json")
        json.dump(layerbench_spec(spec), open(ours, "w", encoding="utf-8"), ensure_ascii=False)
        paths[name] = (path, ours)
    return paths

"""The case spec as HTML and CSS for WeasyPrint: @page margin boxes for the header and "Page N of M"
(counter(page), counter(pages)), <h1> headings (WeasyPrint makes the PDF outline from them), a contents list
of links with target-counter() page numbers, a <table> whose <thead> repeats on each page. Fonts come from
fontconfig (the same system fonts layerbench uses)."""
from html import escape

from weasyprint import HTML

from common import args, template, formatted_rows, column_align, SIZES, CELL_PADDING, FAMILIES


def css_string(text):
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"')


def main():
    spec, out = args()
    m = spec.get("margins", 56)
    family = ", ".join('"%s"' % f for f in FAMILIES[:-1])  # emoji: fontconfig's fallback (listed, it takes the digits)
    boxes = ""
    if spec.get("header"):
        boxes += "@top-center { content: %s; }" % css_string(template(spec["header"], spec))
    if spec.get("footer"):
        parts = template(spec["footer"], spec).replace("{page}", "\0page\0").replace("{pages}", "\0pages\0").split("\0")
        content = " ".join("counter(%s)" % p if p in ("page", "pages") else css_string(p) for p in parts if p)
        boxes += "@bottom-center { content: %s; }" % content
    rules = spec.get("rules", "grid")
    border = {"horizontal": "td, th { border-bottom: 0.5pt solid #999; }", "none": ""}.get(
        rules, "td, th { border: 0.5pt solid #999; }")
    css = """
@page { size: A4; margin: %gpt; %s }
@page { @top-center { font-family: %s; font-size: %.2fpt; color: gray; } @bottom-center { font-family: %s; font-size: %.2fpt; color: gray; } }
body { font-family: %s; font-size: %gpt; line-height: 1.45; margin: 0; }
h1 { font-size: %.2fpt; margin: 10pt 0 8pt; }
h1.title { bookmark-level: none; }
p { margin: 0 0 %gpt; }
ul.toc { list-style: none; padding: 0; }
ul.toc a { color: black; text-decoration: none; }
ul.toc a::after { content: target-counter(attr(href), page); float: right; }
table { border-collapse: collapse; width: 100%%; font-size: %.2fpt; line-height: 1.2; }
td, th { padding: %gpt; text-align: left; }
%s
tbody tr:nth-child(even) { background: %s; }
""" % (m, boxes, family, SIZES["margin_text"], family, SIZES["margin_text"], family, spec.get("fontSize", 11), SIZES["h1"],
       spec.get("fontSize", 11) * 0.5, SIZES["cell"], CELL_PADDING, border, spec.get("stripes", "transparent"))
    body = []
    heads = [(i, b) for i, b in enumerate(spec["content"]) if "heading" in b]
    for i, block in enumerate(spec["content"]):
        if block.get("contents"):
            entries = "".join('<li><a href="#h%d">%s</a></li>' % (j, escape(b["heading"])) for j, b in heads)
            body.append('<h1 class="title">%s</h1><ul class="toc">%s</ul>' % (escape(spec.get("title", "Contents")), entries))
        elif "heading" in block:
            level = block.get("level", 1)
            body.append('<h%d id="h%d">%s</h%d>' % (level, i, escape(block["heading"]), level))
        elif "paragraph" in block:
            body.append("<p>%s</p>" % escape(block["paragraph"]))
        elif "table" in block:
            t = block["table"]
            widths = t.get("widths") or [1] * len(t["columns"])
            aligns = column_align(t)
            cols = "".join('<col style="width:%.2f%%">' % (100 * w / sum(widths)) for w in widths)
            head = "".join('<th style="text-align:%s">%s</th>' % (aligns[c], escape(h)) for c, h in enumerate(t["columns"]))
            styles = ['' if a == "left" else ' style="text-align:%s"' % a for a in aligns]
            rows = "".join("<tr>%s</tr>" % "".join("<td%s>%s</td>" % (styles[c], escape(v)) for c, v in enumerate(r))
                           for r in formatted_rows(t))
            body.append("<table><colgroup>%s</colgroup><thead><tr>%s</tr></thead><tbody>%s</tbody></table>" % (cols, head, rows))
    html = '<!DOCTYPE html><html lang="%s"><head><meta charset="utf-8"><title>%s</title><meta name="author" content="%s">' \
           '<style>%s</style></head><body>%s</body></html>' % (
               spec.get("lang", "en"), escape(spec.get("title", "")), escape(spec.get("author", "")), css, "".join(body))
    HTML(string=html).write_pdf(out, pdf_tags=True)


main()

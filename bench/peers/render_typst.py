"""The case spec as a Typst document, compiled by the `typst` Python package (the Typst compiler embedded).
The rows go in through sys.inputs as JSON; headings are Typst headings (PDF outline and tags by default),
the contents are #outline(), the page template uses counter(page).final() for "of {pages}"."""
import json
import typst

from common import args, template, formatted_rows, column_align, SIZES, CELL_PADDING, FAMILIES


def q(text):
    return json.dumps(text, ensure_ascii=False)  # a Typst string literal


def main():
    spec, out = args()
    fonts = "(" + ", ".join(q(f) for f in FAMILIES) + ")"
    margin_text = "text(size: %.2fpt, fill: gray)" % SIZES["margin_text"]
    parts = [
        '#set document(title: %s, author: %s)' % (q(spec.get("title", "")), q(spec.get("author", ""))),
        '#set text(font: %s, size: %gpt, lang: %s)' % (fonts, spec.get("fontSize", 11), q(spec.get("lang", "en"))),
        '#show heading.where(level: 1): set text(size: %.2fpt)' % SIZES["h1"],
    ]
    page = ['paper: "a4"', "margin: %gpt" % spec.get("margins", 56)]
    if spec.get("header"):
        page.append("header: align(center, %s[%s])" % (margin_text, "#" + q(template(spec["header"], spec))))
    if spec.get("footer"):
        footer = q(template(spec["footer"], spec))
        page.append("footer: context align(center, %s[#%s.replace(\"{page}\", str(counter(page).get().first()))"
                    ".replace(\"{pages}\", str(counter(page).final().first()))])" % (margin_text, footer))
    parts.append("#set page(%s)" % ", ".join(page))
    inputs = {}
    for i, block in enumerate(spec["content"]):
        if block.get("contents"):
            parts.append('#outline(title: %s)' % q(spec.get("title", "Contents")))
        elif "heading" in block:
            parts.append("#heading(level: %d, %s)" % (block.get("level", 1), q(block["heading"])))
        elif "paragraph" in block:
            parts.append("#%s\n" % q(block["paragraph"]))
        elif "table" in block:
            t = block["table"]
            key = "table%d" % i
            inputs[key] = json.dumps(formatted_rows(t), ensure_ascii=False)
            widths = ", ".join("%gfr" % w for w in t.get("widths") or [1] * len(t["columns"]))
            aligns = ", ".join(column_align(t))
            stripes = spec.get("stripes")
            fill = "(x, y) => if y > 0 and calc.even(y) { rgb(%s) }" % q(stripes) if stripes else "none"
            rules = spec.get("rules", "grid")
            stroke = {"horizontal": "(x: none, y: 0.5pt + luma(60%))", "none": "none"}.get(rules, "0.5pt + luma(60%)")
            parts.append(
                "#{\n  let rows = json(bytes(sys.inputs.%s))\n  set text(size: %.2fpt, top-edge: \"ascender\", bottom-edge: \"descender\")\n"
                "  table(columns: (%s), align: (%s), inset: %gpt, fill: %s, stroke: %s,\n"
                "    table.header(..%s.map(h => strong(h))),\n    ..rows.flatten())\n}"
                % (key, SIZES["cell"], widths, aligns, CELL_PADDING, fill, stroke, q(t["columns"]).replace("[", "(").replace("]", ",)")))
    typst.compile("\n".join(parts).encode("utf-8"), output=out, sys_inputs=inputs)


main()

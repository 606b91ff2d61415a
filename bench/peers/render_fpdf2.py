"""The case spec with fpdf2: header() and footer() methods ("{nb}" is the page count, filled in at the end),
a contents placeholder rendered by fpdf2's TableOfContents once the sections' pages are known, start_section()
per heading (the PDF outline and the contents' links), pdf.table() with a repeated heading row, row fill and
horizontal lines, text shaping by uharfbuzz (when the text has Arabic or Devanagari) and fallback fonts for CJK, Devanagari and emoji."""
from fpdf import FPDF
from fpdf.enums import TableBordersLayout, TableCellFillMode
from fpdf.fonts import FontFace, TextStyle
from fpdf.outline import TableOfContents

from common import needs_shaping, args, template, formatted_rows, column_align, SIZES, CELL_PADDING, FONTS


class Doc(FPDF):
    spec = {}

    def header(self):
        if self.spec.get("header"):
            self.set_font("DejaVu", size=SIZES["margin_text"])
            self.set_text_color(128)
            self.set_y(self.spec.get("margins", 56) - 20)
            self.cell(0, 10, template(self.spec["header"], self.spec), align="C")
            self.set_text_color(0)
            self.set_y(self.t_margin)

    def footer(self):
        if self.spec.get("footer"):
            self.set_y(-self.spec.get("margins", 56) + 10)
            self.set_font("DejaVu", size=SIZES["margin_text"])
            self.set_text_color(128)
            text = template(self.spec["footer"], self.spec).replace("{page}", str(self.page_no())).replace("{pages}", "{nb}")
            self.cell(0, 10, text, align="C")
            self.set_text_color(0)


def main():
    spec, out = args()
    Doc.spec = spec
    m = spec.get("margins", 56)
    pdf = Doc(unit="pt", format="A4")
    pdf.set_margins(m, m, m)
    pdf.set_auto_page_break(True, margin=m)
    pdf.set_title(spec.get("title", ""))
    pdf.set_author(spec.get("author", ""))
    pdf.set_lang(spec.get("lang", "en"))
    pdf.add_font("DejaVu", "", FONTS["regular"])
    pdf.add_font("DejaVu", "B", FONTS["bold"])
    pdf.add_font("NotoCJK", "", FONTS["cjk"], collection_font_number=FONTS["cjk_index"])
    pdf.add_font("Lohit", "", FONTS["devanagari"])
    pdf.add_font("NotoEmoji", "", FONTS["emoji"])
    pdf.set_fallback_fonts(["NotoCJK", "Lohit", "NotoEmoji"], exact_match=False)
    if needs_shaping(spec):  # shaping costs fpdf2 much time per cell: on only where a script needs it
        pdf.set_text_shaping(True)
    size = spec.get("fontSize", 11)
    pdf.set_section_title_styles(TextStyle(font_family="DejaVu", font_style="B", font_size_pt=SIZES["h1"], t_margin=10, b_margin=8))
    pdf.add_page()
    for block in spec["content"]:
        if block.get("contents"):
            pdf.set_font("DejaVu", "B", SIZES["h1"])
            pdf.cell(0, SIZES["h1"] * 1.3, spec.get("title", "Contents"), new_x="LMARGIN", new_y="NEXT")
            toc = TableOfContents(text_style=TextStyle(font_family="DejaVu", font_size_pt=size))
            pdf.insert_toc_placeholder(toc.render_toc, allow_extra_pages=True)
        elif "heading" in block:
            pdf.start_section(block["heading"], level=block.get("level", 1) - 1)
        elif "paragraph" in block:
            pdf.set_font("DejaVu", "", size)
            pdf.multi_cell(0, size * 1.45, block["paragraph"], new_x="LMARGIN", new_y="NEXT")
            pdf.ln(size * 0.5)
        elif "table" in block:
            t = block["table"]
            pdf.set_font("DejaVu", "", SIZES["cell"])
            rules = spec.get("rules", "grid")
            layout = {"horizontal": TableBordersLayout.HORIZONTAL_LINES, "none": TableBordersLayout.NONE}.get(
                rules, TableBordersLayout.ALL)
            stripes = spec.get("stripes")
            with pdf.table(col_widths=t.get("widths"), text_align=[a.upper() for a in column_align(t)],
                           borders_layout=layout, line_height=SIZES["cell"] * 1.3, padding=CELL_PADDING,
                           cell_fill_color=stripes, cell_fill_mode=TableCellFillMode.EVEN_ROWS if stripes else None,
                           headings_style=FontFace(emphasis="BOLD"), repeat_headings=1) as table:
                table.row(t["columns"])
                for r in formatted_rows(t):
                    table.row(r)
    pdf.output(out)


main()

"""The case spec with ReportLab's platypus: a BaseDocTemplate built with multiBuild (the contents need their
page numbers: one build per pass until they settle), a TableOfContents whose entries link to bookmarks, an
outline entry per heading, a LongTable with repeatRows=1, and a canvas that writes "Page N of M" once the
page count is known. Fonts are TrueType files registered by hand; ReportLab has no font fallback, so each
paragraph is split into runs by script (<font name=…>). uharfbuzz shapes Devanagari and Arabic joining, but
the bidi reordering needs `rlbidi`, which is not on PyPI: Arabic comes out in logical (left-to-right) order.
Noto Sans CJK (CFF outlines) and Noto Color Emoji (CBDT bitmaps) cannot be loaded by ReportLab's TTFont:
CJK and emoji are drawn with DejaVu Sans, which lacks them (missing-glyph boxes)."""
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas as rl_canvas
from reportlab.platypus import BaseDocTemplate, Frame, PageTemplate, Paragraph, LongTable, TableStyle
from reportlab.platypus.tableofcontents import TableOfContents

from common import args, template, formatted_rows, column_align, script_runs, SIZES, CELL_PADDING, FONTS

pdfmetrics.registerFont(TTFont("DejaVu", FONTS["regular"]))
pdfmetrics.registerFont(TTFont("DejaVu-Bold", FONTS["bold"]))
pdfmetrics.registerFont(TTFont("Lohit", FONTS["devanagari"]))
pdfmetrics.registerFontFamily("DejaVu", normal="DejaVu", bold="DejaVu-Bold", italic="DejaVu", boldItalic="DejaVu-Bold")
RUN_FONT = {"devanagari": "Lohit"}  # cjk and emoji: no loadable font (see above)


class Doc(BaseDocTemplate):
    def __init__(self, out, spec):
        m = spec.get("margins", 56)
        super().__init__(out, pagesize=A4, leftMargin=m, rightMargin=m, topMargin=m, bottomMargin=m,
                         title=spec.get("title", ""), author=spec.get("author", ""), lang=spec.get("lang", "en"))
        self.spec = spec
        frame = Frame(m, m, A4[0] - 2 * m, A4[1] - 2 * m, id="body", leftPadding=0, rightPadding=0,
                      topPadding=0, bottomPadding=0)
        self.addPageTemplates([PageTemplate(id="page", frames=[frame])])
        self.heading_count = 0

    def afterFlowable(self, flowable):
        if getattr(flowable, "is_heading", False):
            key = "h%d" % flowable.index
            self.canv.bookmarkPage(key)
            self.canv.addOutlineEntry(flowable.getPlainText(), key, flowable.level - 1)
            self.notify("TOCEntry", (flowable.level - 1, flowable.getPlainText(), self.page, key))


def make_canvas(spec):
    class NumberedCanvas(rl_canvas.Canvas):
        """Draws the header and "Page N of " on each page, M as a form filled in when the document is saved
        (ReportLab's idiom: the page objects, bookmarks and links stay as they are)."""
        def showPage(self):
            m = spec.get("margins", 56)
            self.saveState()
            self.setFont("DejaVu", SIZES["margin_text"])
            self.setFillColor(colors.gray)
            if spec.get("header"):
                self.drawCentredString(A4[0] / 2, A4[1] - m + 12, template(spec["header"], spec))
            if spec.get("footer"):
                head = template(spec["footer"], spec).replace("{page}", str(self._pageNumber)).split("{pages}")[0]
                width = self.stringWidth(head + "00", "DejaVu", SIZES["margin_text"])
                x = A4[0] / 2 - width / 2
                self.drawString(x, m - 20, head)
                self.translate(x + self.stringWidth(head, "DejaVu", SIZES["margin_text"]), m - 20)
                self.doForm("pagecount")
            self.restoreState()
            super().showPage()

        def save(self):
            self.beginForm("pagecount")
            self.setFont("DejaVu", SIZES["margin_text"])
            self.setFillColor(colors.gray)
            self.drawString(0, 0, str(self._pageNumber - 1))
            self.endForm()
            super().save()
    return NumberedCanvas


def runs_markup(text):
    out = []
    for script, run in script_runs(text):
        font = RUN_FONT.get(script)
        out.append('<font name="%s">%s</font>' % (font, escape(run)) if font else escape(run))
    return "".join(out)


def main():
    spec, out = args()
    size = spec.get("fontSize", 11)
    body = ParagraphStyle("body", fontName="DejaVu", fontSize=size, leading=size * 1.45, spaceAfter=size * 0.5)
    h1 = ParagraphStyle("h1", fontName="DejaVu-Bold", fontSize=SIZES["h1"], leading=SIZES["h1"] * 1.3,
                        spaceBefore=10, spaceAfter=8)
    story = []
    for i, block in enumerate(spec["content"]):
        if block.get("contents"):
            story.append(Paragraph(escape(spec.get("title", "Contents")), h1))
            toc = TableOfContents()
            toc.levelStyles = [ParagraphStyle("toc1", fontName="DejaVu", fontSize=size, leading=size * 1.5)]
            story.append(toc)
        elif "heading" in block:
            p = Paragraph(escape(block["heading"]), h1)
            p.is_heading, p.index, p.level = True, i, block.get("level", 1)
            story.append(p)
        elif "paragraph" in block:
            story.append(Paragraph(runs_markup(block["paragraph"]), body))
        elif "table" in block:
            t = block["table"]
            widths = t.get("widths") or [1] * len(t["columns"])
            usable = A4[0] - 2 * spec.get("margins", 56)
            col_widths = [usable * w / sum(widths) for w in widths]
            table = LongTable([t["columns"]] + formatted_rows(t), colWidths=col_widths, repeatRows=1)
            style = [("FONT", (0, 0), (-1, 0), "DejaVu-Bold", SIZES["cell"]),
                     ("FONT", (0, 1), (-1, -1), "DejaVu", SIZES["cell"]),
                     ("TOPPADDING", (0, 0), (-1, -1), CELL_PADDING), ("BOTTOMPADDING", (0, 0), (-1, -1), CELL_PADDING),
                     ("LEFTPADDING", (0, 0), (-1, -1), CELL_PADDING), ("RIGHTPADDING", (0, 0), (-1, -1), CELL_PADDING)]
            for c, a in enumerate(column_align(t)):
                style.append(("ALIGN", (c, 0), (c, -1), a.upper()))
            if spec.get("stripes"):
                style.append(("ROWBACKGROUNDS", (0, 1), (-1, -1), [colors.white, colors.HexColor(spec["stripes"])]))
            if spec.get("rules", "grid") == "horizontal":
                style.append(("LINEBELOW", (0, 0), (-1, -1), 0.5, colors.Color(0.6, 0.6, 0.6)))
            elif spec.get("rules", "grid") == "grid":
                style.append(("GRID", (0, 0), (-1, -1), 0.5, colors.Color(0.6, 0.6, 0.6)))
            table.setStyle(TableStyle(style))
            story.append(table)
    Doc(out, spec).multiBuild(story, canvasmaker=make_canvas(spec))


main()

#!/usr/bin/env python3
"""Generates the fonts the tests register (Tests/AsyncLayerTests/Fonts/), with fontTools (PyPI).

Each font draws every Latin letter and digit as one filled rectangle of a known advance, under a
family name no system has, so a test can tell from metrics and ink that its font — not a fallback —
drew the text:

- blocks.ttf        "AsyncLayer Test Blocks", TrueType outlines, advance 600/1000 em, box 50..550 × 0..700
- folder/bars.otf   "AsyncLayer Test Bars", CFF outlines, advance 300/1000 em, box 100..200 × 0..700
- pair.ttc          a collection of "AsyncLayer Test Pair One" (advance 500) and "... Two" (advance 800)

Run: python3 scripts/make-test-fonts.py   (pip install fonttools). The output is committed.
"""
import os
import string

from fontTools.fontBuilder import FontBuilder
from fontTools.pens.t2CharStringPen import T2CharStringPen
from fontTools.pens.ttGlyphPen import TTGlyphPen
from fontTools.ttLib import TTCollection

OUT = os.path.join(os.path.dirname(__file__), "..", "Tests", "AsyncLayerTests", "Fonts")
CHARS = string.ascii_letters + string.digits


def rectangle(pen, x0, x1):
    pen.moveTo((x0, 0))
    pen.lineTo((x0, 700))
    pen.lineTo((x1, 700))
    pen.lineTo((x1, 0))
    pen.closePath()


def build(family, advance, x0, x1, cff=False):
    names = [".notdef", "space"] + ["g%d" % ord(c) for c in CHARS]
    builder = FontBuilder(1000, isTTF=not cff)
    builder.setupGlyphOrder(names)
    cmap = {ord(" "): "space"}
    cmap.update({ord(c): "g%d" % ord(c) for c in CHARS})
    builder.setupCharacterMap(cmap)
    metrics = {name: (advance, x0) for name in names}
    metrics["space"] = (advance, 0)
    ps_name = family.replace(" ", "") + "-Regular"
    if cff:
        charstrings = {}
        for name in names:
            pen = T2CharStringPen(advance, None)
            if name != "space":
                rectangle(pen, x0, x1)
            charstrings[name] = pen.getCharString()
        builder.setupCFF(ps_name, {"FullName": family}, charstrings, {})
    else:
        glyphs = {}
        for name in names:
            pen = TTGlyphPen(None)
            if name != "space":
                rectangle(pen, x0, x1)
            glyphs[name] = pen.glyph()
        builder.setupGlyf(glyphs)
    builder.setupHorizontalMetrics(metrics)
    builder.setupHorizontalHeader(ascent=800, descent=-200)
    builder.setupNameTable({
        "familyName": family, "styleName": "Regular", "uniqueFontIdentifier": ps_name, "fullName": family,
        "psName": ps_name, "copyright": "Generated for the AsyncLayer tests; public domain (CC0).",
    })
    builder.setupOS2(sTypoAscender=800, sTypoDescender=-200, usWinAscent=800, usWinDescent=200)
    builder.setupPost()
    return builder.font


def main():
    os.makedirs(os.path.join(OUT, "folder"), exist_ok=True)
    build("AsyncLayer Test Blocks", 600, 50, 550).save(os.path.join(OUT, "blocks.ttf"))
    build("AsyncLayer Test Bars", 300, 100, 200, cff=True).save(os.path.join(OUT, "folder", "bars.otf"))
    collection = TTCollection()
    collection.fonts = [build("AsyncLayer Test Pair One", 500, 50, 450), build("AsyncLayer Test Pair Two", 800, 50, 750)]
    collection.save(os.path.join(OUT, "pair.ttc"))


if __name__ == "__main__":
    main()

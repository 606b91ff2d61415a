#!/usr/bin/env python3
"""Writes the seed corpus under Fuzz/corpus/ (committed; rerun only to regenerate it).

PNGs are built with zlib, JPEGs with libturbojpeg through ctypes, text seeds are a style
header (8 bytes, see Sources/fuzz-text/main.swift) plus markup, report seeds are small specs
plus the repository's samples/report.json.
"""
import ctypes
import os
import shutil
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")


def write(target, name, data):
    os.makedirs(os.path.join(CORPUS, target), exist_ok=True)
    with open(os.path.join(CORPUS, target, name), "wb") as f:
        f.write(data)


# PNG ------------------------------------------------------------------------------------------
def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png(width, height, depth, colour, rows, palette=None, trns=None, interlace=0):
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, interlace))
    if palette:
        out += chunk(b"PLTE", palette)
    if trns:
        out += chunk(b"tRNS", trns)
    raw = b"".join(bytes([f]) + row for f, row in rows)
    return out + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


write("fuzz-png", "rgba-2x2.png", png(2, 2, 8, 6, [(0, b"\xff\x00\x00\xff\x00\xff\x00\x80"), (2, b"\x00\x00\xff\x40\x10\x20\x30\x00")]))
write("fuzz-png", "rgb-3x2-filters.png", png(3, 2, 8, 2, [(1, bytes(range(9))), (4, bytes(range(9, 18)))]))
write("fuzz-png", "gray-4x1.png", png(4, 1, 8, 0, [(3, b"\x00\x40\x80\xff")]))
write("fuzz-png", "gray16-alpha-1x1.png", png(1, 1, 16, 4, [(0, b"\x12\x34\x56\x78")]))
write("fuzz-png", "palette-4bit-5x2-trns.png",
      png(5, 2, 4, 3, [(0, b"\x01\x23\x40"), (0, b"\x32\x10\x00")], palette=bytes(range(12)), trns=b"\x00\x80"))
# Adam7 on 8x8: the seven passes are 1x1, 1x1, 2x1, 2x2, 4x2, 4x4 and 8x4 pixels.
adam7 = [(1, 1), (1, 1), (2, 1), (2, 2), (4, 2), (4, 4), (8, 4)]
write("fuzz-png", "rgb-8x8-interlaced.png",
      png(8, 8, 8, 2, [(0, bytes((i * 7) % 256 for i in range(w * 3))) for w, h in adam7 for _ in range(h)], interlace=1))
shutil.copy(os.path.join(HERE, "..", "samples", "report-chart.png"), os.path.join(CORPUS, "fuzz-png", "report-chart.png"))

# JPEG -----------------------------------------------------------------------------------------
tj = ctypes.CDLL("libturbojpeg.so.0")
tj.tjInitCompress.restype = ctypes.c_void_p
tj.tjCompress2.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                           ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_ulong), ctypes.c_int, ctypes.c_int,
                           ctypes.c_int]
tj.tjFree.argtypes = [ctypes.c_void_p]
RGB, GRAY, CMYK = 0, 6, 11
S444, S422, S420, SGRAY = 0, 1, 2, 3
PROGRESSIVE = 16384


def jpeg(width, height, pixel_format, channels, subsampling, quality, flags=0):
    pixels = bytes((x * 37 + y * 11 + c * 5) % 256 for y in range(height) for x in range(width) for c in range(channels))
    handle = tj.tjInitCompress()
    buffer, size = ctypes.c_void_p(), ctypes.c_ulong()
    if tj.tjCompress2(handle, pixels, width, 0, height, pixel_format, ctypes.byref(buffer), ctypes.byref(size),
                      subsampling, quality, flags) != 0:
        raise RuntimeError("tjCompress2 failed")
    data = ctypes.string_at(buffer, size.value)
    tj.tjFree(buffer)
    tj.tjDestroy(ctypes.c_void_p(handle))
    return data


write("fuzz-jpeg", "rgb-8x8-444.jpg", jpeg(8, 8, RGB, 3, S444, 90))
write("fuzz-jpeg", "rgb-17x9-420.jpg", jpeg(17, 9, RGB, 3, S420, 50))
write("fuzz-jpeg", "rgb-16x16-422-progressive.jpg", jpeg(16, 16, RGB, 3, S422, 75, PROGRESSIVE))
write("fuzz-jpeg", "gray-9x7.jpg", jpeg(9, 7, GRAY, 1, SGRAY, 80))
write("fuzz-jpeg", "cmyk-8x8.jpg", jpeg(8, 8, CMYK, 4, S444, 85))
write("fuzz-jpeg", "rgb-32x24-420-q20.jpg", jpeg(32, 24, RGB, 3, S420, 20))

# Text -----------------------------------------------------------------------------------------
# Header: size, weight|italic, line spacing (int8 / 4), width, scale|align|ellipsize|wrap,
# maxLines|family, flags (bit 0 markup, bit 1 height follows, padding, language), [height].
texts = [
    (bytes([80, 2, 0, 200, 0x01, 0, 0x01]), "<b>Hello</b>, 世界 👋"),
    (bytes([60, 0x85, 8, 120, 0x36, 0x0a, 0x0d]), "<span foreground=\"#3366cc\" size=\"x-large\">Sales</span> rose in "
     "<i>every</i> region; <s>old</s> <u>new</u> <sup>2</sup> <tt>mono</tt> <big>big</big>"),
    (bytes([40, 1, 0xf8, 60, 0x2e, 0x03, 0x61]), "مرحبا بالعالم — Arabic and <b>English</b> mixed, right to left"),
    (bytes([100, 3, 4, 255, 0x83, 0x12, 0x24]), "नमस्ते दुनिया สวัสดีชาวโลก こんにちは世界 안녕하세요"),
    (bytes([30, 4, 0, 90, 0x4d, 0x01, 0x00]), "A plain paragraph that wraps across lines and is cut after a "
     "line with an ellipsis at the end of the last line shown. " * 2),
    (bytes([70, 5, 16, 150, 0x11, 0x02, 0x13, 40]), "<span font=\"Serif Bold 20\" letter_spacing=\"2048\" "
     "rise=\"4000\" underline=\"double\" strikethrough=\"true\" background=\"yellow\">spans</span> &amp; &lt;entities&gt; "
     "&#x1F600; <span lang=\"ja\" font_features=\"liga 0\">直</span>"),
    (bytes([20, 6, 0, 10, 0xc2, 0x00, 0x01]), "<markup><span weight=\"900\" style=\"italic\" variant=\"smallcaps\" "
     "stretch=\"condensed\" fallback=\"false\" gravity=\"east\">a\tb\nc\u2028d</span></markup>"),
]
for index, (header, text) in enumerate(texts):
    write("fuzz-text", "text-%d" % index, header + text.encode())

# Report ---------------------------------------------------------------------------------------
shutil.copy(os.path.join(HERE, "..", "samples", "report.json"), os.path.join(CORPUS, "fuzz-report", "report.json"))
specs = {
    "minimal.json": '{"content": [{"paragraph": "Hello"}]}',
    "letter-headings.json": '{"title": "T", "page": "letter", "pageNumbers": false, "font": "Serif", "fontSize": 9, '
                            '"content": [{"heading": "One"}, {"heading": "Two", "level": 3}, {"pageBreak": true}, '
                            '{"markup": "<b>bold</b> and <i>italic</i>"}]}',
    "small-page-table.json": '{"page": {"width": 200, "height": 160}, "margins": {"top": 10, "left": 10, "bottom": 10, '
                             '"right": 10}, "content": [{"table": {"columns": ["A", "B"], "widths": [2, 1], "rows": '
                             '[["a long cell that wraps onto lines", "1"], ["b", "2"], ["c", "3"], ["d", "4"], '
                             '["e", "5"], ["f", "6"]]}}]}',
    "image.json": '{"content": [{"image": "report-chart.png", "scale": 3}, {"paragraph": "after"}]}',
}
for name, text in specs.items():
    write("fuzz-report", name, text.encode())

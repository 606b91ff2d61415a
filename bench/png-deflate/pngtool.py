#!/usr/bin/env python3
"""PNG helpers for the tile deflater work (issue 28), standard library only.

  pngtool.py rows PNG OUT        write the PNG's filtered rows (its IDAT inflated) to OUT; prints width, row bytes
  pngtool.py same A B            exit 0 when two PNG files decode to the same image (header, palette, pixels)
  pngtool.py tree A_DIR B_DIR    compare two output trees: PNG files (also inside .tar files) by decoded
                                 image, every other file byte for byte except timings ("ms") and the
                                 fields of a PNG's bytes (sha256, bytes, size) in JSON lines; prints a
                                 summary, exit 0 when all match
"""
import io
import json
import os
import re
import struct
import sys
import tarfile
import zlib


def chunks(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos = 8
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        crc = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0]
        if zlib.crc32(kind + body) != crc:
            raise ValueError("bad CRC in %r" % kind)
        yield kind, body
        pos += 12 + length


def decode(data):
    """(IHDR, PLTE, tRNS, unfiltered pixel rows) of a non-interlaced PNG."""
    header = plte = trns = None
    idat = b""
    for kind, body in chunks(data):
        if kind == b"IHDR":
            header = body
        elif kind == b"PLTE":
            plte = body
        elif kind == b"tRNS":
            trns = body
        elif kind == b"IDAT":
            idat += body
    width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", header)
    if interlace:
        raise ValueError("interlaced")
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    bits = channels * depth
    stride = (width * bits + 7) // 8
    bpp = max(1, bits // 8)
    raw = zlib.decompress(idat)
    if len(raw) != height * (stride + 1):
        raise ValueError("IDAT holds %d bytes, not %d" % (len(raw), height * (stride + 1)))
    out = bytearray(height * stride)
    prev = bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                p = a
            elif f == 2:
                p = b
            elif f == 3:
                p = (a + b) >> 1
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            else:
                p = 0
            line[i] = (line[i] + p) & 255
        out[y * stride:(y + 1) * stride] = line
        prev = line
    return header, plte, trns, bytes(out)


def rows(path, out):
    data = open(path, "rb").read()
    header = idat = b""
    for kind, body in chunks(data):
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
    width, height = struct.unpack(">II", header[:8])
    raw = zlib.decompress(idat)
    open(out, "wb").write(raw)
    print(width, len(raw) // height)


# JSON fields that describe a PNG's bytes rather than its image.
BYTE_FIELDS = re.compile(r'"(sha256|bytes|size|pngBytes|png_bytes|sha)"\s*:\s*("[^"]*"|[0-9]+)')
# A timing (batch manifests' `ms`), ignored everywhere as bench/batch-identical.sh does.
TIMING = re.compile(r'"ms"\s*:\s*[0-9.e-]+,?')


def compare_files(a, b, name, stats):
    if name.endswith(".png") or a[:8] == b"\x89PNG\r\n\x1a\n":
        stats["png"] += 1
        stats["bytes_a"] += len(a)
        stats["bytes_b"] += len(b)
        if a == b:
            stats["png_same_bytes"] += 1
            return True
        if decode(a) == decode(b):
            stats["png_same_pixels"] += 1
            return True
        print("PIXELS DIFFER:", name)
        return False
    if name.endswith(".tar"):
        ta = tarfile.open(fileobj=io.BytesIO(a))
        tb = tarfile.open(fileobj=io.BytesIO(b))
        ma = {m.name: m for m in ta.getmembers()}
        mb = {m.name: m for m in tb.getmembers()}
        if list(ma) != list(mb):
            print("TAR MEMBERS DIFFER:", name)
            return False
        ok = True
        for k in ma:
            if ma[k].isfile():
                ok &= compare_files(ta.extractfile(ma[k]).read(), tb.extractfile(mb[k]).read(), name + ":" + k, stats)
        return ok
    stats["other"] += 1
    if a == b:
        return True
    try:
        a = TIMING.sub("", a.decode("utf-8")).encode("utf-8")
        b = TIMING.sub("", b.decode("utf-8")).encode("utf-8")
    except UnicodeDecodeError:
        pass
    if a == b:
        return True
    if BYTE_FIELDS.sub("", a.decode("utf-8", "replace")) == BYTE_FIELDS.sub("", b.decode("utf-8", "replace")):
        stats["other_differ_in_png_fields"] += 1
        return True
    print("DIFFER:", name)
    return False


def tree(a_dir, b_dir):
    stats = dict(png=0, png_same_bytes=0, png_same_pixels=0, bytes_a=0, bytes_b=0, other=0, other_differ_in_png_fields=0)
    ok = True
    names = set()
    for base in (a_dir, b_dir):
        for root, _, files in os.walk(base):
            for f in files:
                names.add(os.path.relpath(os.path.join(root, f), base))
    for name in sorted(names):
        pa, pb = os.path.join(a_dir, name), os.path.join(b_dir, name)
        if not (os.path.exists(pa) and os.path.exists(pb)):
            print("ONLY ON ONE SIDE:", name)
            ok = False
            continue
        ok &= compare_files(open(pa, "rb").read(), open(pb, "rb").read(), name, stats)
    growth = (stats["bytes_b"] / stats["bytes_a"] - 1) * 100 if stats["bytes_a"] else 0
    print("%d PNG (%d same bytes, %d same pixels, other bytes), %d other files (%d differ only in PNG byte fields); "
          "PNG bytes %d -> %d (%+.2f%%): %s" % (stats["png"], stats["png_same_bytes"], stats["png_same_pixels"],
          stats["other"], stats["other_differ_in_png_fields"], stats["bytes_a"], stats["bytes_b"], growth,
          "same images" if ok else "DIFFERENT"))
    return ok


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "rows":
        rows(sys.argv[2], sys.argv[3])
    elif cmd == "same":
        sys.exit(0 if decode(open(sys.argv[2], "rb").read()) == decode(open(sys.argv[3], "rb").read()) else 1)
    elif cmd == "tree":
        sys.exit(0 if tree(sys.argv[2], sys.argv[3]) else 1)
    else:
        print(__doc__)
        sys.exit(2)

#!/usr/bin/env python3
"""Draws `layerbench batch --boxes` sidecars over their tiles, to look at them (issue 27).

For each ID given, reads DIR/ID.png and DIR/ID.json and stacks two copies of the tile: the first with
every cluster's `ink` box (red) and logical `box` (thin grey), the second with the words' `ink` boxes
(green) and the lines' `box` (blue). It also counts the tile's ink pixels (any channel 48 or more away
from the corner pixel) that lie outside every cluster's ink box grown by TOLERANCE pixels, and prints
them: 0 means every visible pixel is inside some cluster's ink box.

    bench/.venv-dataset/bin/python bench/dataset/draw_boxes.py DIR OUT.png latin cjk

A vertical or transformed tile's boxes carry `quad`/`inkQuad` (four corners, clockwise): those are drawn
and tested instead of the rectangles. With --across the panels are placed side by side (vertical tiles).
"""
import json
import os
import sys

from PIL import Image, ImageDraw

TOLERANCE = 2


def corners(box):
    """The four corners of a sidecar box: its `inkQuad`, else its `ink` rectangle's."""
    if "inkQuad" in box:
        q = box["inkQuad"]
        return [(q[i], q[i + 1]) for i in range(0, 8, 2)]
    l, t, r, b = box["ink"]
    return [(l, t), (r, t), (r, b), (l, b)]


def inside(quad, x, y):
    """Whether (x, y) lies in the convex, clockwise quad grown by TOLERANCE pixels."""
    for i in range(4):
        (ax, ay), (bx, by) = quad[i], quad[(i + 1) % 4]
        ex, ey = bx - ax, by - ay
        length = (ex * ex + ey * ey) ** 0.5
        if length > 0 and (ex * (y - ay) - ey * (x - ax)) / length < -TOLERANCE:
            return False
    return True


def stray_ink(image, clusters):
    rgb = image.convert("RGB")
    width, height = rgb.size
    pixels = rgb.load()
    background = pixels[0, 0]
    quads = [corners(c) for c in clusters if "ink" in c]
    stray = []
    for y in range(height):
        for x in range(width):
            if max(abs(a - b) for a, b in zip(pixels[x, y], background)) < 48:
                continue
            if not any(inside(q, x + 0.5, y + 0.5) for q in quads):
                stray.append((x, y))
    return stray


def outline(draw, box, key, colour):
    """Draws a box's quad (`quad` for `box`, `inkQuad` for `ink`) when it has one, else its rectangle."""
    quad_key = "quad" if key == "box" else "inkQuad"
    if quad_key in box:
        q = box[quad_key]
        draw.polygon([(q[i], q[i + 1]) for i in range(0, 8, 2)], outline=colour)
    else:
        draw.rectangle(box[key], outline=colour)


def panel(image, sidecar, layer):
    canvas = image.convert("RGB")
    draw = ImageDraw.Draw(canvas)
    if layer == "clusters":
        for cluster in sidecar["clusters"]:
            outline(draw, cluster, "box", (170, 170, 170))
        for cluster in sidecar["clusters"]:
            if "ink" in cluster:
                outline(draw, cluster, "ink", (230, 0, 0))
    else:
        for line in sidecar["lines"]:
            outline(draw, line, "box", (0, 60, 255))
        for word in sidecar["words"]:
            if "ink" in word:
                outline(draw, word, "ink", (0, 170, 0))
    return canvas


def main():
    args = sys.argv[1:]
    across = "--across" in args
    args = [a for a in args if a != "--across"]
    directory, out, ids = args[0], args[1], args[2:]
    panels = []
    for tile_id in ids:
        image = Image.open(os.path.join(directory, tile_id + ".png"))
        with open(os.path.join(directory, tile_id + ".json"), encoding="utf-8") as f:
            sidecar = json.load(f)
        stray = stray_ink(image, sidecar["clusters"])
        print(f"{tile_id}: {image.size[0]}x{image.size[1]} px, {len(sidecar['clusters'])} clusters, "
              f"{len(sidecar['words'])} words, {len(sidecar['lines'])} lines; ink pixels outside every cluster ink "
              f"box (+{TOLERANCE} px): {len(stray)}{' e.g. ' + str(stray[:5]) if stray else ''}")
        panels += [panel(image, sidecar, "clusters"), panel(image, sidecar, "words")]
    if across:
        width = sum(p.width for p in panels) + 4 * (len(panels) - 1)
        height = max(p.height for p in panels)
    else:
        width = max(p.width for p in panels)
        height = sum(p.height for p in panels) + 4 * (len(panels) - 1)
    sheet = Image.new("RGB", (width, height), (255, 255, 255))
    offset = 0
    for index, p in enumerate(panels):
        sheet.paste(p, (offset, 0) if across else (0, offset))
        offset += (p.width if across else p.height) + 4
    sheet.quantize(colors=64).save(out, optimize=True)
    print(f"{out}: {os.path.getsize(out)} bytes")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Draws `layerbench batch --boxes` sidecars over their tiles, to look at them (issue 27).

For each ID given, reads DIR/ID.png and DIR/ID.json and stacks two copies of the tile: the first with
every cluster's `ink` box (red) and logical `box` (thin grey), the second with the words' `ink` boxes
(green) and the lines' `box` (blue). It also counts the tile's ink pixels (any channel 48 or more away
from the corner pixel) that lie outside every cluster's ink box grown by TOLERANCE pixels, and prints
them: 0 means every visible pixel is inside some cluster's ink box.

    bench/.venv-dataset/bin/python bench/dataset/draw_boxes.py DIR OUT.png latin cjk
"""
import json
import os
import sys

from PIL import Image, ImageDraw

TOLERANCE = 2


def stray_ink(image, clusters):
    rgb = image.convert("RGB")
    width, height = rgb.size
    pixels = rgb.load()
    background = pixels[0, 0]
    boxes = [c["ink"] for c in clusters if "ink" in c]
    stray = []
    for y in range(height):
        for x in range(width):
            if max(abs(a - b) for a, b in zip(pixels[x, y], background)) < 48:
                continue
            if not any(l - TOLERANCE <= x + 0.5 <= r + TOLERANCE and t - TOLERANCE <= y + 0.5 <= b + TOLERANCE
                       for l, t, r, b in boxes):
                stray.append((x, y))
    return stray


def panel(image, sidecar, layer):
    canvas = image.convert("RGB")
    draw = ImageDraw.Draw(canvas)
    if layer == "clusters":
        for cluster in sidecar["clusters"]:
            draw.rectangle(cluster["box"], outline=(170, 170, 170))
        for cluster in sidecar["clusters"]:
            if "ink" in cluster:
                draw.rectangle(cluster["ink"], outline=(230, 0, 0))
    else:
        for line in sidecar["lines"]:
            draw.rectangle(line["box"], outline=(0, 60, 255))
        for word in sidecar["words"]:
            if "ink" in word:
                draw.rectangle(word["ink"], outline=(0, 170, 0))
    return canvas


def main():
    directory, out, ids = sys.argv[1], sys.argv[2], sys.argv[3:]
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
    width = max(p.width for p in panels)
    height = sum(p.height for p in panels) + 4 * (len(panels) - 1)
    sheet = Image.new("RGB", (width, height), (255, 255, 255))
    y = 0
    for index, p in enumerate(panels):
        sheet.paste(p, (0, y))
        y += p.height + 4
    sheet.quantize(colors=64).save(out, optimize=True)
    print(f"{out}: {os.path.getsize(out)} bytes")


if __name__ == "__main__":
    main()

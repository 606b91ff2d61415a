"""SynthTIGER 1.2's text path on given lines, for bench/dataset/peers.py (issue 27).

The template renders what SynthTIGER's own `examples/synthtiger/template.py` renders for a text line
(`utils.split_text` into characters, a `TextLayer` per character, `FlowLayout`, `Group.merge`, `Gray`
colour, `Fit`, a `RectLayer` background, `utils.blend_image`), with every random component left out:
no corpus sampling (line i of the file is image i), one font file at one size, no style (border,
shadow, extrusion), no texture, no elastic distortion, no curve layout, no transform, no noise or blur,
the normal blend mode only, no midground. It saves an 8-bit grey PNG per line, `gt.txt` (path TAB
text) and `coords.txt` (character boxes), as the example template does (which saves JPEG).

Run like SynthTIGER's own `synthtiger` command (`synthtiger/main.py`: `synthtiger.generator` with
`worker`; 0 renders in the main process), with one addition: line indexes come from a counter shared
by the worker processes (forked), so each line is rendered exactly once whatever the worker count.

    python synthtiger_lines.py --lines lines.txt --font F.ttf --size 18 --height 32 --pad 5 \
        --count 2000 --worker 2 --output DIR
"""
import argparse
import multiprocessing
import os

import numpy as np
from PIL import Image

import synthtiger
from synthtiger import components, layers, templates, utils


class TextLines(templates.Template):
    def __init__(self, config=None):
        config = config or {}
        with open(config["lines"], encoding="utf-8") as f:
            self.lines = [line.rstrip("\n") for line in f if line.strip()]
        self.counter = config["counter"]
        self.font = {"path": config["font"], "size": config["size"], "bold": False, "vertical": False}
        self.height = config["height"]
        self.pad = config["pad"]
        self.layout = components.FlowLayout(space=(0, 0), vertical=False)
        self.color = components.Gray(gray=(0, 0), alpha=(1, 1))
        self.background = components.Gray(gray=(255, 255), alpha=(1, 1))
        self.fit = components.Fit()

    def generate(self):
        with self.counter.get_lock():
            index = self.counter.value
            self.counter.value += 1
        label = self.lines[index % len(self.lines)]
        chars = utils.split_text(label, reorder=True)  # "for script using diacritic, ligature and RTL"
        char_layers = [layers.TextLayer(char, **self.font) for char in chars]
        self.layout.apply(char_layers, {"meta": {"vertical": False}})
        text_layer = layers.Group(char_layers).merge()
        self.color.apply([text_layer], self.color.sample())
        self.fit.apply([text_layer])
        self.fit.apply(char_layers)
        for char_layer in char_layers:
            char_layer.topleft -= text_layer.topleft
        width = int(np.ceil(text_layer.width)) + 2 * self.pad
        fg = text_layer.output(bbox=[-self.pad, -self.pad, width, self.height])
        bg_layer = layers.RectLayer((width, self.height))
        self.background.apply([bg_layer], self.background.sample())
        image = utils.blend_image(fg, bg_layer.output(), mode="normal")
        bboxes = [char_layer.bbox for char_layer in char_layers]
        return {"image": image, "label": label, "index": index, "bboxes": bboxes}

    def init_save(self, root):
        os.makedirs(root, exist_ok=True)
        self.gt_file = open(os.path.join(root, "gt.txt"), "w", encoding="utf-8")
        self.coords_file = open(os.path.join(root, "coords.txt"), "w", encoding="utf-8")

    def save(self, root, data, idx):
        key = f"{data['index']:07d}.png"
        image = data["image"][..., :3].astype(np.uint8)
        Image.fromarray(image).convert("L").save(os.path.join(root, key))
        coords = "\t".join(
            ",".join(str(int(v)) for v in (x + self.pad, y + self.pad, x + self.pad + w, y + self.pad + h))
            for x, y, w, h in data["bboxes"])
        self.gt_file.write(f"{key}\t{data['label']}\n")
        self.coords_file.write(f"{key}\t{coords}\n")

    def end_save(self, root):
        self.gt_file.close()
        self.coords_file.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", required=True)
    parser.add_argument("--font", required=True)
    parser.add_argument("--size", type=int, required=True, help="font size in pixels")
    parser.add_argument("--height", type=int, required=True, help="image height in pixels")
    parser.add_argument("--pad", type=int, default=5, help="pixels around the text")
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--worker", type=int, default=0, help="worker processes (0: the main process renders)")
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    config = {"lines": args.lines, "font": args.font, "size": args.size, "height": args.height, "pad": args.pad,
              "counter": multiprocessing.Value("q", 0)}
    script = os.path.abspath(__file__)
    template = synthtiger.read_template(script, "TextLines", config)
    generator = synthtiger.generator(script, "TextLines", config, worker=args.worker)
    template.init_save(args.output)
    for idx in range(args.count):
        item = next(generator)
        data = item[1] if isinstance(item, tuple) else item  # 1.2 yields (task index, data)
        template.save(args.output, data, idx)
    template.end_save(args.output)


if __name__ == "__main__":
    main()

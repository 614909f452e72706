"""Raster pictures of games drawn straight into pixels with numpy and Pillow.

The games' ``draw`` modules use this instead of matplotlib: laying out axes, ticks and titles
cost matplotlib about a tenth of a second per board, seconds for a game's strip and animation,
against milliseconds here (a cell saves its best game's pictures after every run).

Pictures are built as arrays of palette indices (``uint8``) on a palette whose first
``GRAYS`` entries run from white (0) to black (``BLACK``), so the background is 0 and
anti-aliased text is written as its coverage mapped onto those grays; a game appends its own
colours after them. ``indexed_image`` turns such an array into a palette ("P") image, which
PNG and GIF store as it is.
"""

import functools
import importlib.util
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

GRAYS = 16  # palette entries 0..15: white to black, for the background and text
BLACK = GRAYS - 1
GRAY_RGB = [(255 - 17 * i,) * 3 for i in range(GRAYS)]


def rgb(colour):
    """``(r, g, b)`` of a ``"#rrggbb"`` colour."""
    return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))


@functools.cache
def font(size):
    """DejaVu Sans (the font of the project's matplotlib figures) at ``size`` pixels, read from
    matplotlib's data folder without importing matplotlib (which takes half a second); Pillow's
    own font where that file is missing."""
    spec = importlib.util.find_spec("matplotlib")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / "mpl-data" / "fonts" / "ttf" / "DejaVuSans.ttf"
        if path.is_file():
            return ImageFont.truetype(str(path), size)
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1: one bitmap size only
        return ImageFont.load_default()


def text_width(text, size):
    """Width in pixels of ``text`` written at ``size``."""
    return int(np.ceil(font(size).getlength(text)))


def text_height(size):
    """Height in pixels of a line of text at ``size`` (ascent + descent)."""
    ascent, descent = font(size).getmetrics()
    return ascent + descent


def text_coverage(text, size):
    """How much of each pixel ``text`` covers (``uint8`` array, 0..255), one line high."""
    image = Image.new("L", (max(1, text_width(text, size)), text_height(size)), 0)
    ImageDraw.Draw(image).text((0, 0), text, font=font(size), fill=255)
    return np.asarray(image)


def put_text(canvas, text, size, centre_x, top):
    """Write ``text`` in black on the white part of ``canvas`` (indices), centred on
    ``centre_x``, its line starting at row ``top``; clipped to the canvas."""
    grays = (text_coverage(text, size).astype(np.uint16) * BLACK + 127) // 255
    h, w = grays.shape
    x0 = int(round(centre_x - w / 2))
    rows = slice(max(top, 0), min(top + h, canvas.shape[0]))
    cols = slice(max(x0, 0), min(x0 + w, canvas.shape[1]))
    part = grays[rows.start - top : rows.stop - top, cols.start - x0 : cols.stop - x0]
    region = canvas[rows, cols]
    np.maximum(region, part.astype(canvas.dtype), out=region, where=region < GRAYS)


def indexed_image(pixels, palette):
    """A palette ("P") image of ``pixels`` (indices into ``palette``, a list of ``(r, g, b)``)."""
    pixels = np.ascontiguousarray(pixels, dtype=np.uint8)
    image = Image.frombytes("P", (pixels.shape[1], pixels.shape[0]), pixels.tobytes())
    flat = [v for colour in palette for v in colour]
    image.putpalette(flat + [0] * (768 - len(flat)))
    return image

"""Pictures of Morpion Solitaire games in the style of Fig 7 of the NMCS paper: a grid, the
starting cross as filled dots, every line drawn, and each new dot numbered by its move.

    from nmcs.games.morpion.draw import draw_game
    draw_game(moves, "outputs/best")          # writes best.png and best.svg
    save_game(moves, "outputs/best")          # best.psol, best.png and best.svg

One layout (in pixels) is written twice: as a PNG drawn with Pillow (shapes drawn at three
times the size and scaled down, which smooths their edges) and as SVG text. matplotlib took
half a second per game, most of it importing and laying out, this takes a few hundredths.
"""

from pathlib import Path
from xml.sax.saxutils import escape

from PIL import Image, ImageDraw

from nmcs.games._pictures import font, text_height
from nmcs.games.morpion import rules as M

GRID, LINE, INK, PAPER = "#e0e0e0", "#1f77b4", "#000000", "#ffffff"
SMOOTH = 3  # the PNG's shapes are drawn this many times larger, then scaled down


def layout(moves, title=None, dpi=150):
    """Everything a picture shows, in pixels (``dpi`` / 150 times the default size): a dict of
    ``size`` (width, height), ``grid`` and ``lines`` (segments ``(x0, y0, x1, y1)``), ``cross``
    (dot centres), ``dots`` (centre, move number), ``title`` (centre, text) and the sizes of
    strokes, dots and fonts."""
    cross = M.cross_cells()
    dots = [M.decode(c)[:2] for c in moves]
    cells = cross + dots
    x0 = min(x for x, _ in cells) - 1
    x1 = max(x for x, _ in cells) + 1
    y0 = min(y for _, y in cells) - 1
    y1 = max(y for _, y in cells) + 1
    unit = 0.32 * dpi  # pixels between grid lines
    pt = dpi / 72  # pixels per typographic point, to keep the sizes of the matplotlib version
    title_size = round(11 * pt)
    pad = 0.3 * unit
    top = pad + text_height(title_size) + 0.3 * unit

    def at(x, y):  # y grows downward, as in Pentasol
        return pad + (x - x0 + 0.5) * unit, top + (y - y0 + 0.5) * unit

    grid = [(*at(x, y0), *at(x, y1)) for x in range(x0, x1 + 1)]
    grid += [(*at(x0, y), *at(x1, y)) for y in range(y0, y1 + 1)]
    lines = []
    for code in moves:
        (ax, ay), *_, (bx, by) = M.line_cells(code)
        lines.append((*at(ax, ay), *at(bx, by)))
    width = 2 * pad + (x1 - x0 + 1) * unit
    return dict(
        size=(round(width), round(top + (y1 - y0 + 1) * unit + pad)),
        grid=grid,
        grid_width=0.6 * pt,
        lines=lines,
        line_width=1.4 * pt,
        cross=[at(x, y) for x, y in cross],
        cross_radius=0.5 * 70**0.5 * pt,  # matplotlib's scatter size 70 (points squared)
        dots=[(at(x, y), i) for i, (x, y) in enumerate(dots, start=1)],
        dot_radius=0.36 * unit,
        dot_edge=0.8 * pt,
        number_size=(round(6.5 * pt), round(5.2 * pt)),  # below 100, from 100 on
        title=((width / 2, pad), title if title is not None else f"{len(moves)} moves"),
        title_size=title_size,
    )


def _png(pic, path):
    """Draw ``pic`` (a ``layout``) as a PNG."""
    s = SMOOTH
    big = Image.new("RGB", tuple(v * s for v in pic["size"]), PAPER)
    draw = ImageDraw.Draw(big)

    def scaled(points):
        return [v * s for v in points]

    def disc(centre, radius, **style):
        x, y = centre
        draw.ellipse(scaled((x - radius, y - radius, x + radius, y + radius)), **style)

    for segment in pic["grid"]:
        draw.line(scaled(segment), fill=GRID, width=round(pic["grid_width"] * s))
    width = round(pic["line_width"] * s)
    for segment in pic["lines"]:
        draw.line(scaled(segment), fill=LINE, width=width)
        for end in (segment[:2], segment[2:]):  # round caps, as the SVG's
            disc(end, pic["line_width"] / 2, fill=LINE)
    for centre in pic["cross"]:
        disc(centre, pic["cross_radius"], fill=INK)
    edge = round(pic["dot_edge"] * s)
    for centre, _ in pic["dots"]:
        disc(centre, pic["dot_radius"], fill=PAPER, outline=INK, width=edge)
    image = big.reduce(s)
    # Text is written at the final size, where the font's hinting keeps it sharp.
    draw = ImageDraw.Draw(image)
    small, smaller = (font(size) for size in pic["number_size"])
    for (x, y), number in pic["dots"]:
        draw.text(
            (x, y), str(number), fill=INK, font=small if number < 100 else smaller, anchor="mm"
        )
    (x, y), title = pic["title"]
    draw.text((x, y), title, fill=INK, font=font(pic["title_size"]), anchor="mt")
    image.save(path)


def _svg(pic, path):
    """Write ``pic`` (a ``layout``) as SVG."""
    width, height = pic["size"]
    out = [
        '<?xml version="1.0" encoding="utf-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif">',
        f'<rect width="{width}" height="{height}" fill="{PAPER}"/>',
        f'<g stroke="{GRID}" stroke-width="{pic["grid_width"]:.2f}">',
    ]
    out += [_segment(s) for s in pic["grid"]]
    out.append(
        f'</g><g stroke="{LINE}" stroke-width="{pic["line_width"]:.2f}" stroke-linecap="round">'
    )
    out += [_segment(s) for s in pic["lines"]]
    out.append(f'</g><g fill="{INK}">')
    out += [
        f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{pic["cross_radius"]:.1f}"/>'
        for x, y in pic["cross"]
    ]
    out.append(f'</g><g fill="{PAPER}" stroke="{INK}" stroke-width="{pic["dot_edge"]:.2f}">')
    out += [
        f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{pic["dot_radius"]:.1f}"/>'
        for (x, y), _ in pic["dots"]
    ]
    # Text is placed by its baseline: not every SVG renderer follows dominant-baseline.
    out.append(f'</g><g fill="{INK}" text-anchor="middle">')
    small, smaller = pic["number_size"]
    for (x, y), i in pic["dots"]:
        size = small if i < 100 else smaller
        # digits are 0.73 em high in DejaVu Sans: their middle is 0.36 em above the baseline
        out.append(f'<text x="{x:.1f}" y="{y + 0.36 * size:.1f}" font-size="{size}">{i}</text>')
    (x, y), title = pic["title"]
    ascent = font(pic["title_size"]).getmetrics()[0]
    out.append(
        f'</g><text x="{x:.1f}" y="{y + ascent:.1f}" font-size="{pic["title_size"]}" '
        f'text-anchor="middle">{escape(title)}</text>'
    )
    out.append("</svg>\n")
    Path(path).write_text("\n".join(out), encoding="utf-8")


def _segment(s):
    return f'<line x1="{s[0]:.1f}" y1="{s[1]:.1f}" x2="{s[2]:.1f}" y2="{s[3]:.1f}"/>'


WRITERS = {"png": _png, "svg": _svg}


def draw_game(moves, path, title=None, formats=("png", "svg"), dpi=150):
    """Draw the game ``moves`` (engine codes) to ``path`` + ``.png`` / ``.svg``; returns the
    list of files written. ``path`` may carry a suffix, it is replaced. ``dpi`` scales the
    picture as it did a matplotlib figure (150: 48 pixels between grid lines)."""
    pic = layout(moves, title=title, dpi=dpi)
    path = Path(path)
    written = []
    for fmt in formats:
        out = path.with_suffix("." + fmt)
        out.parent.mkdir(parents=True, exist_ok=True)
        WRITERS[fmt](pic, out)
        written.append(out)
    return written


def save_game(moves, path, title=None):
    """Save a game as ``path`` + ``.psol`` (Pentasol), ``.png`` and ``.svg``; returns the files."""
    from nmcs.games.morpion.psol import write_psol

    psol = Path(path).with_suffix(".psol")
    psol.parent.mkdir(parents=True, exist_ok=True)
    write_psol(psol, moves)
    return [psol, *draw_game(moves, path, title=title)]

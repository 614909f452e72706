"""Pictures of Morpion Solitaire games in the style of Fig 7 of the NMCS paper: a grid, the
starting cross as filled dots, every line drawn, and each new dot numbered by its move.

    from nmcs.games.morpion.draw import draw_game
    draw_game(moves, "outputs/best")          # writes best.png and best.svg
    save_game(moves, "outputs/best")          # best.psol, best.png and best.svg

Uses matplotlib's Agg backend, so it runs without a display.
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from nmcs.games.morpion import rules as M  # noqa: E402


def draw_game(moves, path, title=None, formats=("png", "svg"), dpi=150):
    """Draw the game ``moves`` (engine codes) to ``path`` + ``.png`` / ``.svg``; returns the
    list of files written. ``path`` may carry a suffix, it is replaced."""
    cross = M.cross_cells()
    dots = [M.decode(c)[:2] for c in moves]
    cells = cross + dots
    x0 = min(x for x, _ in cells) - 1
    x1 = max(x for x, _ in cells) + 1
    y0 = min(y for _, y in cells) - 1
    y1 = max(y for _, y in cells) + 1
    size = 0.32 * max(x1 - x0, y1 - y0) + 1.0
    fig, ax = plt.subplots(figsize=(size, size))
    for x in range(x0, x1 + 1):
        ax.plot([x, x], [y0, y1], color="0.88", lw=0.6, zorder=0)
    for y in range(y0, y1 + 1):
        ax.plot([x0, x1], [y, y], color="0.88", lw=0.6, zorder=0)
    for code in moves:
        (ax_, ay), *_, (bx, by) = M.line_cells(code)
        ax.plot([ax_, bx], [ay, by], color="tab:blue", lw=1.4, solid_capstyle="round", zorder=1)
    xs, ys = zip(*cross, strict=True)
    ax.scatter(xs, ys, s=70, color="black", zorder=2, label="starting cross")
    radius = 0.36
    for i, (x, y) in enumerate(dots, start=1):
        ax.add_patch(
            plt.Circle((x, y), radius, facecolor="white", edgecolor="black", lw=0.8, zorder=3)
        )
        ax.text(x, y, str(i), ha="center", va="center", zorder=4, fontsize=6.5 if i < 100 else 5.2)
    ax.set_xlim(x0 - 0.5, x1 + 0.5)
    ax.set_ylim(y1 + 0.5, y0 - 0.5)  # y grows downward, as in Pentasol
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title if title is not None else f"{len(moves)} moves", fontsize=11)
    fig.tight_layout()
    path = Path(path)
    written = []
    for fmt in formats:
        out = path.with_suffix("." + fmt)
        out.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out, dpi=dpi)
        written.append(out)
    plt.close(fig)
    return written


def save_game(moves, path, title=None):
    """Save a game as ``path`` + ``.psol`` (Pentasol), ``.png`` and ``.svg``; returns the files."""
    from nmcs.games.morpion.psol import write_psol

    psol = Path(path).with_suffix(".psol")
    psol.parent.mkdir(parents=True, exist_ok=True)
    write_psol(psol, moves)
    return [psol, *draw_game(moves, path, title=title)]

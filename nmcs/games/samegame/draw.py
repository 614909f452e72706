"""Pictures of SameGame boards and games (matplotlib, Agg backend).

    from nmcs.games.samegame import draw, rules as sg
    draw.save_board(sg.make_state(3), "board3.png")
    draw.save_game_strip(state0, moves, "game.png")     # one small board per move
    draw.save_game_gif(state0, moves, "game.gif")       # the same as an animation (Pillow)

In every picture the group about to be removed is outlined in black and its cells are marked
with a dot; the title of each board gives the move number, the group size and the score so far.
"""

import logging

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.collections import PatchCollection  # noqa: E402
from matplotlib.colors import ListedColormap  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from nmcs.games.samegame import io as sio  # noqa: E402
from nmcs.games.samegame import rules as sg  # noqa: E402

# Colour-blind-safe palette (Okabe-Ito); index 0 is the empty cell.
PALETTE = [
    "#ffffff",
    "#e69f00",
    "#56b4e9",
    "#009e73",
    "#f0e442",
    "#0072b2",
    "#d55e00",
    "#cc79a7",
    "#999999",
    "#000000",
]


def _cmap(k):
    colours = (
        PALETTE[: k + 1]
        if k + 1 <= len(PALETTE)
        else (["#ffffff"] + [plt.cm.tab20(i % 20) for i in range(k)])
    )
    return ListedColormap(colours)


def draw_board(ax, state, group=(), title=None):
    """Draw ``state`` on ``ax``; ``group`` lists move codes of cells to highlight."""
    grid = sg.to_grid(state)  # row 0 = top
    h, w = grid.shape
    k = int(state[sg.COLORS])
    ax.imshow(grid + 1, cmap=_cmap(k), vmin=0, vmax=k, interpolation="nearest")
    # The cell lines as two line collections and no ticks (minor ticks drawn as a grid made
    # matplotlib build hundreds of tick artists per board: 9 s for a game's pictures).
    ax.set_xticks([])
    ax.set_yticks([])
    lines = dict(color="#dddddd", linewidth=0.3, zorder=1.5)
    ax.vlines(np.arange(-0.5, w, 1), -0.5, h - 0.5, **lines)
    ax.hlines(np.arange(-0.5, h, 1), -0.5, w - 0.5, **lines)
    ax.set_xlim(-0.5, w - 0.5)
    ax.set_ylim(h - 0.5, -0.5)
    if len(group):
        cells = [sg.cell_of(state, code) for code in group]
        xs = np.array([c for c, _ in cells], float)
        ys = np.array([h - 1 - r for _, r in cells], float)
        ax.add_collection(
            PatchCollection(
                [Rectangle((x - 0.5, y - 0.5), 1, 1) for x, y in zip(xs, ys, strict=True)],
                facecolor="none",
                edgecolor="black",
                linewidth=1.2,
            )
        )
        ax.plot(xs, ys, "k.", markersize=3)
    if title:
        ax.set_title(title, fontsize=7)


def save_board(state, path, title=None):
    fig, ax = plt.subplots(figsize=(4, 4))
    draw_board(ax, state, title=title or f"score {int(sg.score(state))}")
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return path


def game_frames(state0, moves):
    """(state before the move, cells of its group, title) for each move, then the end."""
    state = np.array(state0, copy=True)
    frames = []
    for t, move in enumerate(moves):
        sio.check_move(state, move, index=t)
        group = sio.group_cells(state, int(move))
        title = f"{t + 1}: {len(group)} cells, score {int(sg.score(state))}"
        frames.append((state.copy(), group, title))
        sg.play(state, np.int32(move))
    frames.append((state.copy(), [], f"end: score {int(sg.score(state))}"))
    return frames


def save_game_strip(state0, moves, path, columns=10, size=1.6):
    """All the moves of a game as a grid of small boards, the removed group outlined."""
    frames = game_frames(state0, moves)
    rows = -(-len(frames) // columns)
    fig, axes = plt.subplots(
        rows, columns, figsize=(columns * size, rows * size * 1.08), squeeze=False
    )
    for ax in axes.flat:
        ax.axis("off")
    for ax, (state, group, title) in zip(axes.flat, frames, strict=False):
        ax.axis("on")
        draw_board(ax, state, group, title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def save_game_gif(state0, moves, path, fps=2):
    """The game as an animated GIF (needs Pillow), one frame per move."""
    from matplotlib.animation import FuncAnimation, PillowWriter

    frames = game_frames(state0, moves)
    fig, ax = plt.subplots(figsize=(4, 4.2))

    def show(i):
        # Remove the previous board's artists rather than ax.clear(), which rebuilds the axes
        # (its ticks included) at every frame.
        for artist in [*ax.images, *ax.collections, *ax.lines]:
            artist.remove()
        state, group, title = frames[i]
        draw_board(ax, state, group, title)

    anim = FuncAnimation(fig, show, frames=len(frames))
    # matplotlib logs every save at INFO level, which would interleave with the progress bars.
    logging.getLogger("matplotlib.animation").setLevel(logging.WARNING)
    anim.save(path, writer=PillowWriter(fps=fps))
    plt.close(fig)
    return path

"""Pictures of SameGame boards and games: PNG boards, a PNG strip of every move and an
animated GIF, drawn straight into pixels (numpy and Pillow, see ``nmcs.games._pictures``).

    from nmcs.games.samegame import draw, rules as sg
    draw.save_board(sg.make_state(3), "board3.png")
    draw.save_game_strip(state0, moves, "game.png")     # one small board per move
    draw.save_game_gif(state0, moves, "game.gif")       # the same as an animation

In every picture the group about to be removed is outlined in black and its cells are marked
with a dot; the caption above each board gives the move number, the group size and the score
so far. A 60-move game takes about a tenth of a second (matplotlib took ten seconds).
"""

import numpy as np

from nmcs.games._pictures import (
    BLACK,
    GRAY_RGB,
    GRAYS,
    indexed_image,
    put_text,
    rgb,
    text_height,
    text_width,
)
from nmcs.games.samegame import io as sio
from nmcs.games.samegame import rules as sg

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
# matplotlib's tab20, for boards with more colours than PALETTE holds.
TAB20 = [
    "#1f77b4",
    "#aec7e8",
    "#ff7f0e",
    "#ffbb78",
    "#2ca02c",
    "#98df8a",
    "#d62728",
    "#ff9896",
    "#9467bd",
    "#c5b0d5",
    "#8c564b",
    "#c49c94",
    "#e377c2",
    "#f7b6d2",
    "#7f7f7f",
    "#c7c7c7",
    "#bcbd22",
    "#dbdb8d",
    "#17becf",
    "#9edae5",
]
GRID_LINE = GRAYS  # palette index of the thin lines between cells
EMPTY = GRAYS + 1  # palette index of an empty cell; colour c (0-based) is EMPTY + 1 + c
GIF_BOARD, STRIP_BOARD = 330, 135  # target board sizes in pixels (the longer side)


def colours(k):
    """Cell colours of a board with ``k`` colours, the empty cell first."""
    return PALETTE[: k + 1] if k + 1 <= len(PALETTE) else ["#ffffff", *TAB20[:k]]


def palette(k):
    """The full palette of a picture of a ``k``-colour board: grays, grid line, cells."""
    return [*GRAY_RGB, rgb("#dddddd"), *(rgb(c) for c in colours(k))]


def cell_size(state, target):
    """Pixels per cell so that the longer side of the board is about ``target`` pixels."""
    return int(np.clip(target // max(int(state[sg.WIDTH]), int(state[sg.HEIGHT])), 3, 24))


def board_pixels(state, group=(), cell=22):
    """The board of ``state`` as palette indices, ``cell`` pixels per cell plus one-pixel grid
    lines and a black frame; ``group`` lists move codes of cells to highlight (outlined in black,
    a dot in the middle)."""
    grid = sg.to_grid(state)  # row 0 = top, -1 = empty
    h, w = grid.shape
    pixels = np.empty((h * cell + 1, w * cell + 1), np.uint8)
    blocks = (grid + EMPTY + 1).astype(np.uint8)
    pixels[1:, 1:] = np.repeat(np.repeat(blocks, cell, axis=0), cell, axis=1)
    pixels[::cell, :] = GRID_LINE
    pixels[:, ::cell] = GRID_LINE
    pixels[[0, -1], :] = BLACK
    pixels[:, [0, -1]] = BLACK
    line = 1 if cell < 14 else 2  # the outline of a highlighted cell, thicker on big cells
    dot = max(2, cell // 6)
    for code in group:
        c, r = sg.cell_of(state, code)
        y, x = (h - 1 - r) * cell, c * cell
        pixels[y : y + line, x : x + cell + 1] = BLACK
        pixels[y + cell + 1 - line : y + cell + 1, x : x + cell + 1] = BLACK
        pixels[y : y + cell + 1, x : x + line] = BLACK
        pixels[y : y + cell + 1, x + cell + 1 - line : x + cell + 1] = BLACK
        top, left = y + (cell + 1 - dot) // 2, x + (cell + 1 - dot) // 2
        pixels[top : top + dot, left : left + dot] = BLACK
    return pixels


def frame_pixels(state, group, title, cell, text_size, width, pad):
    """One board with its caption above it, ``width`` pixels wide (the board centred)."""
    board = board_pixels(state, group, cell)
    caption = text_height(text_size) + 2
    frame = np.zeros((2 * pad + caption + board.shape[0], width), np.uint8)
    left = (width - board.shape[1]) // 2
    frame[pad + caption : pad + caption + board.shape[0], left : left + board.shape[1]] = board
    put_text(frame, title, text_size, width / 2, pad)
    return frame


def _frames_pixels(frames, cell, text_size, pad):
    """Every frame of ``game_frames`` drawn at one common size (the widest caption or board)."""
    state = frames[0][0]
    board_width = int(state[sg.WIDTH]) * cell + 1
    width = max(board_width, *(text_width(title, text_size) for _, _, title in frames)) + 2 * pad
    return [frame_pixels(s, g, t, cell, text_size, width, pad) for s, g, t in frames]


def save_board(state, path, title=None):
    """One board as a PNG, captioned ``title`` (default: its score)."""
    title = title or f"score {int(sg.score(state))}"
    cell = cell_size(state, GIF_BOARD)
    (frame,) = _frames_pixels([(state, [], title)], cell, text_size=13, pad=10)
    indexed_image(frame, palette(int(state[sg.COLORS]))).save(path)
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


def save_game_strip(state0, moves, path, columns=10):
    """All the moves of a game as a PNG grid of small boards (``columns`` per row, the moves
    left to right then down), the removed group outlined."""
    panels = _frames_pixels(
        game_frames(state0, moves), cell_size(state0, STRIP_BOARD), text_size=10, pad=4
    )
    columns = min(columns, len(panels))
    rows = -(-len(panels) // columns)
    ph, pw = panels[0].shape
    strip = np.zeros((rows * ph, columns * pw), np.uint8)
    for i, panel in enumerate(panels):
        r, c = divmod(i, columns)
        strip[r * ph : (r + 1) * ph, c * pw : (c + 1) * pw] = panel
    indexed_image(strip, palette(int(state0[sg.COLORS]))).save(path)
    return path


def save_game_gif(state0, moves, path, fps=2):
    """The game as an animated GIF, one frame per move then the final board, looping."""
    frames = _frames_pixels(
        game_frames(state0, moves), cell_size(state0, GIF_BOARD), text_size=13, pad=10
    )
    colours_ = palette(int(state0[sg.COLORS]))
    first, *rest = (indexed_image(f, colours_) for f in frames)
    first.save(path, save_all=True, append_images=rest, duration=round(1000 / fps), loop=0)
    return path

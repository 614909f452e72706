"""The state layout shared by every two-player game (one flat ``int32`` array).

All five games are played on a rectangular board, so one layout serves them all: a header,
the board cells, then (Go-like games only) scratch space for group flood fills. Copying the
array copies the position, scratch included, so a search never allocates while it plays::

    index:  0     1     2     3       4        5     6       7      8       9
          +-----+-----+-----+-------+--------+-----+-------+------+-------+-------+
          |GAME |ROWS |COLS |MISERE |TO_MOVE |PLY  |WINNER |STAMP |COUNT0 |COUNT1 |
          +-----+-----+-----+-------+--------+-----+-------+------+-------+-------+
          | cells: HEADER .. HEADER+N-1 (N = ROWS*COLS), row-major, row 0 at the top  |
          | Go-like games: MARK[N] (flood-fill stamps), STACK[N] (flood-fill stack)   |

    GAME     game id (see ``nmcs.games.twoplayer.GAMES``)
    MISERE   1: the rule winner loses and the rule loser wins (the misere version)
    TO_MOVE  0 or 1, the player to move (player 0 moves first)
    PLY      moves played since the initial position (the depth of the position)
    WINNER   -1 while the game goes on; 0 or 1 the player who won by the rules, 2 a draw.
             Misere is NOT applied here; ``outcome`` applies it, so the kernels never branch
             on it.
    STAMP    flood-fill generation counter (MARK[i] == STAMP means visited in this fill),
             so a fill never has to clear MARK
    COUNT0/1 pieces of each player on the board (Breakthrough, Knightthrough)

Cells hold EMPTY, or P0 / P1 for a piece or stone of player 0 / player 1 (Domineering: a cell
covered by a domino of that player). Player 0 is drawn ``x``, player 1 ``o``.
"""

import numpy as np

GAME, ROWS, COLS, MISERE, TO_MOVE, PLY, WINNER, STAMP, COUNT0, COUNT1 = range(10)
HEADER = 10

EMPTY, P0, P1 = 0, 1, 2
ONGOING, DRAW = -1, 2

# Board sizes allowed by every game (a guard for the fixed buffers, not a rule of any game).
MIN_SIDE, MAX_SIDE = 2, 19

STATE_DTYPE = np.int32

_FILES = "abcdefghijklmnopqrs"


def square_name(rows: int, cols: int, cell: int) -> str:
    """Name of a cell as drawn: column letter, then row number counted from the bottom."""
    r, c = divmod(int(cell), int(cols))
    return f"{_FILES[c]}{int(rows) - r}"


def parse_square(rows: int, cols: int, name: str) -> int:
    """Cell of a square name such as ``c3``; ValueError naming the square if off the board."""
    if len(name) < 2 or name[0] not in _FILES[:cols] or not name[1:].isdigit():
        raise ValueError(f"bad square {name!r} on a {rows}x{cols} board")
    row = int(name[1:])
    if not 1 <= row <= rows:
        raise ValueError(f"bad square {name!r} on a {rows}x{cols} board")
    return (rows - row) * cols + _FILES.index(name[0])

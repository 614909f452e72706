"""Tic-tac-toe, the toy two-player game of tests/test_twoplayer_plugin.py: adding a two-player
game takes this one module (named in ``NMCS_PLUGINS``) and ``game/tictactoe.yaml`` (found
through ``hydra.searchpath``).

Players put a stone on an empty cell in turn (player 0 ``x`` first); three in a row (across,
down or diagonally) wins, a full board without one is a draw::

    3x3 by default, row 0 at the top     a move is the cell r * COLS + c
    3 . . .                              x at b2: cell 4
    2 . x .
    1 . . .
      a b c

State: ``nmcs.games.twoplayer.layout`` (header, then the cells: EMPTY, P0, P1).
"""

import numpy as np
from numba import njit

from nmcs.games.twoplayer import register_game
from nmcs.games.twoplayer.layout import COLS, DRAW, EMPTY, HEADER, P0, PLY, ROWS, TO_MOVE, WINNER

NAME = "tictactoe"
DEFAULT_ROWS, DEFAULT_COLS = 3, 3
MIN_ROWS, MIN_COLS = 3, 3
DRAWS = True
LINE = 3


def fill_initial(state: np.ndarray) -> None:
    """The board starts empty (header already written)."""


@njit(cache=True)
def legal_moves(state, out):
    k = 0
    for i in range(state[ROWS] * state[COLS]):
        if state[HEADER + i] == EMPTY:
            out[k] = i
            k += 1
    return k


@njit(cache=True)
def max_moves(state):
    return state[ROWS] * state[COLS]


@njit(cache=True)
def _run(state, i, dr, dc):
    """Stones in a row through cell ``i`` along (dr, dc), both ways, the same as on ``i``."""
    rows, cols = state[ROWS], state[COLS]
    v = state[HEADER + i]
    r0, c0 = i // cols, i % cols
    n = 1
    for sign in (1, -1):
        r, c = r0 + sign * dr, c0 + sign * dc
        while 0 <= r < rows and 0 <= c < cols and state[HEADER + r * cols + c] == v:
            n += 1
            r, c = r + sign * dr, c + sign * dc
    return n


@njit(cache=True)
def _wins(state, i):
    return (
        _run(state, i, 0, 1) >= LINE
        or _run(state, i, 1, 0) >= LINE
        or _run(state, i, 1, 1) >= LINE
        or _run(state, i, 1, -1) >= LINE
    )


@njit(cache=True)
def play(state, move):
    p = state[TO_MOVE]
    state[HEADER + move] = P0 + p
    state[PLY] += 1
    state[TO_MOVE] = 1 - p
    if _wins(state, move):
        state[WINNER] = p
    elif state[PLY] == state[ROWS] * state[COLS]:
        state[WINNER] = DRAW


def parsed(state: np.ndarray, ply_given: bool) -> None:
    """A position read from text without a ply: one stone a move."""
    if not ply_given:
        board = state[HEADER : HEADER + int(state[ROWS]) * int(state[COLS])]
        state[PLY] = int((board != EMPTY).sum())


def rule_winner(state: np.ndarray) -> int:
    n = int(state[ROWS]) * int(state[COLS])
    winners = {
        int(state[HEADER + i]) - P0 for i in range(n) if state[HEADER + i] and _wins(state, i)
    }
    if len(winners) > 1:
        raise ValueError("tictactoe: both players have three in a row")
    if winners:
        return winners.pop()
    full = all(state[HEADER + i] != EMPTY for i in range(n))
    return DRAW if full else -1


register_game(__name__)

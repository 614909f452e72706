"""NoGo: Go where capturing is forbidden. Players take turns putting a stone of their colour
on an empty intersection (player 0 ``x`` first); a move that would capture an opponent group or
leave its own group without liberty is illegal. The player who has no legal move loses
(misere: wins). The board starts empty::

    9x9 by default, row 0 at the top
    9 . . . . . . . . .
    ...
    1 . . . . . . . . .
      a b c d e f g h i

State: ``nmcs.games.twoplayer.layout`` (cells, then MARK and STACK for the liberty fills).
Move encoding: the cell ``r * COLS + c``.
"""

import numpy as np
from numba import njit

from nmcs.games.twoplayer.go import (
    cells_max_moves,
    groups_without_liberty,
    random_legal_stone,
    stones_parsed,
    try_stone,
)
from nmcs.games.twoplayer.layout import (
    COLS,
    EMPTY,
    HEADER,
    P0,
    PLY,
    ROWS,
    TO_MOVE,
    WINNER,
    square_name,
)

NAME = "nogo"
DEFAULT_ROWS, DEFAULT_COLS = 9, 9
MIN_ROWS = 2
EXTRA_PLANES = 2  # MARK and STACK, the liberty fills' scratch (layout)
max_moves = cells_max_moves  # a stone a move
parsed = stones_parsed


def fill_initial(state: np.ndarray) -> None:
    """The board starts empty (header already written)."""


@njit(cache=True)
def _moves(state, player, out, first_only):
    n = state[ROWS] * state[COLS]
    k = 0
    for i in range(n):
        if state[HEADER + i] != EMPTY:
            continue
        captures, breathes = try_stone(state, player, i)
        if breathes and not captures:
            if first_only:
                return 1
            out[k] = i
            k += 1
    return k


@njit(cache=True)
def legal_moves(state, out):
    return _moves(state, state[TO_MOVE], out, False)


@njit(cache=True, inline="always")
def random_move(state, rng, buf):
    return random_legal_stone(state, rng, buf, False)


@njit(cache=True)
def has_move(state, player):
    return _moves(state, player, state[:0], True) > 0


@njit(cache=True)
def play(state, move):
    p = state[TO_MOVE]
    state[HEADER + move] = P0 + p
    state[PLY] += 1
    state[TO_MOVE] = 1 - p
    if not has_move(state, 1 - p):
        state[WINNER] = p


def rule_winner(state: np.ndarray) -> int:
    dead = groups_without_liberty(state)
    if dead:
        raise ValueError(
            f"a group without liberty at {square_name(state[ROWS], state[COLS], dead[0])} "
            "(NoGo forbids captures)"
        )
    p = int(state[TO_MOVE])
    return -1 if has_move(state, p) else 1 - p

"""Domineering (GGP rules): players take turns placing dominoes on an empty board; player 0
(``x``, moves first) places them vertically, player 1 (``o``) horizontally. The player who
cannot place a domino loses (misere: wins)::

    8x8 board, row 0 at the top          a move of x at c6 covers c6 and c5 (cells i, i+COLS)
    8 . . . . . . . .                    a move of o at c6 covers c6 and d6 (cells i, i+1)
    ...
    1 . . . . . . . .
      a b c d e f g h

State: ``nmcs.games.twoplayer.layout``; a covered cell holds the player whose domino covers it.
Move encoding: the cell ``r * COLS + c`` of the domino's top (vertical) or left (horizontal)
half.
"""

import numpy as np
from numba import njit

from nmcs.games.twoplayer.go import cells_max_moves
from nmcs.games.twoplayer.layout import COLS, EMPTY, HEADER, P0, PLY, ROWS, TO_MOVE, WINNER

NAME = "domineering"
DEFAULT_ROWS, DEFAULT_COLS = 8, 8
MIN_ROWS = 2
max_moves = cells_max_moves  # a domino covers two cells: a loose bound


def fill_initial(state: np.ndarray) -> None:
    """The board starts empty (header already written)."""


@njit(cache=True)
def _moves(state, player, out, first_only):
    rows, cols = state[ROWS], state[COLS]
    k = 0
    if player == 0:
        for i in range((rows - 1) * cols):
            if state[HEADER + i] == EMPTY and state[HEADER + i + cols] == EMPTY:
                if first_only:
                    return 1
                out[k] = i
                k += 1
    else:
        for r in range(rows):
            for c in range(cols - 1):
                i = r * cols + c
                if state[HEADER + i] == EMPTY and state[HEADER + i + 1] == EMPTY:
                    if first_only:
                        return 1
                    out[k] = i
                    k += 1
    return k


@njit(cache=True)
def legal_moves(state, out):
    return _moves(state, state[TO_MOVE], out, False)


@njit(cache=True)
def has_move(state, player):
    return _moves(state, player, state[:0], True) > 0


@njit(cache=True)
def play(state, move):
    p = state[TO_MOVE]
    state[HEADER + move] = P0 + p
    state[HEADER + move + (state[COLS] if p == 0 else 1)] = P0 + p
    state[PLY] += 1
    state[TO_MOVE] = 1 - p
    if not has_move(state, 1 - p):
        state[WINNER] = p


def rule_winner(state: np.ndarray) -> int:
    p = int(state[TO_MOVE])
    return -1 if has_move(state, p) else 1 - p


def parsed(state: np.ndarray, ply_given: bool) -> None:
    """A position read from text: two covered cells a move."""
    board = state[HEADER : HEADER + int(state[ROWS]) * int(state[COLS])]
    covered = int((board != EMPTY).sum())
    if not ply_given:
        state[PLY] = covered // 2
    if covered % 2:
        raise ValueError("domineering: an odd number of covered cells")

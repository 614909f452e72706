"""AtariGo (capture Go): Go where the first capture wins. Players take turns putting a stone
on an empty intersection (player 0 ``x`` first); a move that captures (leaves an adjacent
opponent group without liberty) wins at once. A move that leaves its own group without
liberty and captures nothing (suicide) is illegal. Choices where GGP versions differ: the board
starts empty (no central crosscut), and a player with no legal move loses (it can only happen
on an almost full board). Captured stones stay on the board: the game is over::

    7x7 by default, row 0 at the top
    7 . . . . . . .
    ...
    1 . . . . . . .
      a b c d e f g

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

NAME = "atarigo"
DEFAULT_ROWS, DEFAULT_COLS = 7, 7
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
        if captures or breathes:
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
    return random_legal_stone(state, rng, buf, True)


@njit(cache=True)
def has_move(state, player):
    return _moves(state, player, state[:0], True) > 0


@njit(cache=True)
def play(state, move):
    p = state[TO_MOVE]
    captures, _ = try_stone(state, p, move)
    state[HEADER + move] = P0 + p
    state[PLY] += 1
    state[TO_MOVE] = 1 - p  # flipped even when the game ends: the loser is "to move"
    if captures:
        state[WINNER] = p
        return
    if not has_move(state, 1 - p):
        state[WINNER] = p


def rule_winner(state: np.ndarray) -> int:
    """The rule winner of a parsed position. Groups without liberty mean the game ended on a
    capture by the player who moved last (the one not to move); the capturing stone itself
    may be without liberty too, since captured stones stay on the board."""
    p = int(state[TO_MOVE])
    dead = groups_without_liberty(state)
    if dead:
        if not any(state[HEADER + i] == P0 + p for i in dead):
            where = square_name(state[ROWS], state[COLS], dead[0])
            raise ValueError(f"a group without liberty at {where} that no capture explains")
        return 1 - p
    return -1 if has_move(state, p) else 1 - p

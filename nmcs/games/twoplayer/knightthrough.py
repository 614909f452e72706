"""Knightthrough (GGP rules): Breakthrough with chess knights that only move forward.

Same board, start and goals as ``breakthrough`` (player 0 ``x`` at the bottom moving up, player
1 ``o`` at the top moving down, player 0 first). A piece makes one of the four forward knight
jumps (one row forward and two columns sideways, or two rows forward and one column sideways)
onto an empty cell or an opponent's piece (a capture; unlike Breakthrough every move may
capture). A player wins by reaching the opponent's home row or capturing every opponent
piece; a player with pieces but no legal move loses (choice, as in ``breakthrough``)::

    from x at (r, c), player 0 (forward = up):
        . B . B .        row r-2: (r-2, c-1), (r-2, c+1)
        A . . . A        row r-1: (r-1, c-2), (r-1, c+2)
        . . x . .        row r

State: ``nmcs.games.twoplayer.layout``. Move encoding: ``from_cell * N + to_cell``, as
Breakthrough. The kernels are Breakthrough's with ``knight=True``.
"""

import numpy as np
from numba import njit

from nmcs.games.twoplayer import breakthrough as _bt

NAME = "knightthrough"
DEFAULT_ROWS, DEFAULT_COLS = 8, 8
MIN_ROWS = 4
fill_initial = _bt.fill_initial
max_moves = _bt.pawn_max_moves
parsed, move_name, parse_move = _bt.parsed, _bt.move_name, _bt.parse_move


@njit(cache=True)
def legal_moves(state, out):
    return _bt.pawn_moves(state, out, True)


@njit(cache=True, inline="always")
def random_move(state, rng, buf):
    return _bt.pawn_random_move(state, rng, buf, True)


@njit(cache=True)
def has_move(state, player):
    return _bt.pawn_has_move(state, player, True)


@njit(cache=True)
def play(state, move):
    _bt.pawn_play(state, move, True)


def rule_winner(state: np.ndarray) -> int:
    return _bt.rule_winner(state, knight=True)

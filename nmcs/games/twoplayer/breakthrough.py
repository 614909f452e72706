"""Breakthrough (GGP / OpenSpiel rules), and the pawn-race kernels Knightthrough shares.

Board (8x8 by default), row 0 at the top; player 0 (``x``) starts on the two bottom rows and
moves up, player 1 (``o``) starts on the two top rows and moves down; player 0 moves first::

    8 o o o o o o o o      row 0   <- player 0's goal row
    7 o o o o o o o o      row 1
    6 . . . . . . . .
    ...
    2 x x x x x x x x      row R-2
    1 x x x x x x x x      row R-1 <- player 1's goal row
      a b c d e f g h

A move is one step forward: straight onto an empty cell, or diagonally onto an empty cell or
an opponent's piece (a capture). A player wins by reaching the opponent's home row or by
capturing every opponent piece. Choice (the rules are silent; it can only arise in constructed
positions): a player with pieces but no legal move loses.

State: ``nmcs.games.twoplayer.layout`` (cells EMPTY / P0 / P1, COUNT0 / COUNT1 the pieces).
Move encoding: ``from_cell * N + to_cell`` with cells ``r * COLS + c`` and N = ROWS * COLS.
"""

import re

import numpy as np
from numba import njit

from nmcs.core.rng import below
from nmcs.games.twoplayer.layout import (
    COLS,
    COUNT0,
    EMPTY,
    HEADER,
    P0,
    PLY,
    ROWS,
    TO_MOVE,
    WINNER,
    parse_square,
    square_name,
)

NAME = "breakthrough"
DEFAULT_ROWS, DEFAULT_COLS = 8, 8
MIN_ROWS = 4  # two home rows each


def fill_initial(state: np.ndarray) -> None:
    """Two home rows of pieces per player (header already written)."""
    rows, cols = state[ROWS], state[COLS]
    for c in range(cols):
        for r in (0, 1):
            state[HEADER + r * cols + c] = P0 + 1
        for r in (rows - 2, rows - 1):
            state[HEADER + r * cols + c] = P0
    state[COUNT0] = 2 * cols
    state[COUNT0 + 1] = 2 * cols


@njit(cache=True, inline="always")
def _forward(player):
    # Player 0 moves towards row 0 (up), player 1 towards the last row (down).
    return -1 if player == 0 else 1


@njit(cache=True)
def pawn_moves(state, out, knight):
    """Write the legal moves of the player to move; ``knight``: Knightthrough's jumps."""
    rows, cols = state[ROWS], state[COLS]
    n = rows * cols
    p = state[TO_MOVE]
    own = P0 + p
    fwd = _forward(p)
    k = 0
    for i in range(n):
        if state[HEADER + i] != own:
            continue
        r = i // cols
        c = i - r * cols
        if knight:
            # The four forward knight jumps; any target but an own piece (captures allowed).
            for j in range(4):
                dr = fwd if j < 2 else 2 * fwd
                dc = (2 if j < 2 else 1) * (1 if (j & 1) == 0 else -1)
                r2, c2 = r + dr, c + dc
                if 0 <= r2 < rows and 0 <= c2 < cols and state[HEADER + r2 * cols + c2] != own:
                    out[k] = i * n + r2 * cols + c2
                    k += 1
        else:
            r2 = r + fwd
            if not 0 <= r2 < rows:
                continue
            for dc in (-1, 0, 1):
                c2 = c + dc
                if 0 <= c2 < cols:
                    t = state[HEADER + r2 * cols + c2]
                    # Straight moves never capture; diagonal ones may.
                    if t == EMPTY or (dc != 0 and t != own):
                        out[k] = i * n + r2 * cols + c2
                        k += 1
    return k


@njit(cache=True)
def pawn_random_move(state, rng, buf, knight):
    """A uniformly random legal move, by rejection: draw one of the (piece, direction) slots
    of the player to move uniformly and keep it if it is legal. Every legal move is exactly
    one slot, so the accepted move is uniform over the legal moves; it costs a scan for the
    pieces and a few checks instead of generating every move. After 64 rejections (a nearly
    blocked position) it generates the moves instead."""
    rows, cols = state[ROWS], state[COLS]
    n = rows * cols
    p = state[TO_MOVE]
    own = P0 + p
    fwd = _forward(p)
    k = 0
    for i in range(n):
        if state[HEADER + i] == own:
            buf[k] = i
            k += 1
    ndir = 4 if knight else 3
    for _ in range(64):
        j = below(rng, k * ndir)
        i = buf[j // ndir]
        d = j - (j // ndir) * ndir
        r = i // cols
        c = i - r * cols
        if knight:
            dr = fwd if d < 2 else 2 * fwd
            dc = (2 if d < 2 else 1) * (1 if (d & 1) == 0 else -1)
        else:
            dr = fwd
            dc = d - 1
        r2, c2 = r + dr, c + dc
        if 0 <= r2 < rows and 0 <= c2 < cols:
            t = state[HEADER + r2 * cols + c2]
            if t == EMPTY or (t != own and (knight or dc != 0)):
                return i * n + r2 * cols + c2
    m = pawn_moves(state, buf, knight)
    return buf[below(rng, m)]


@njit(cache=True)
def pawn_has_move(state, player, knight):
    """Whether ``player`` has a legal move (stops at the first one)."""
    rows, cols = state[ROWS], state[COLS]
    own = P0 + player
    fwd = _forward(player)
    for i in range(rows * cols):
        if state[HEADER + i] != own:
            continue
        r = i // cols
        c = i - r * cols
        if knight:
            for j in range(4):
                dr = fwd if j < 2 else 2 * fwd
                dc = (2 if j < 2 else 1) * (1 if (j & 1) == 0 else -1)
                r2, c2 = r + dr, c + dc
                if 0 <= r2 < rows and 0 <= c2 < cols and state[HEADER + r2 * cols + c2] != own:
                    return True
        else:
            r2 = r + fwd
            if not 0 <= r2 < rows:
                continue
            for dc in (-1, 0, 1):
                c2 = c + dc
                if 0 <= c2 < cols:
                    t = state[HEADER + r2 * cols + c2]
                    if t == EMPTY or (dc != 0 and t != own):
                        return True
    return False


@njit(cache=True)
def pawn_play(state, move, knight):
    """Apply a legal move in place and settle the result if the game ends."""
    rows, cols = state[ROWS], state[COLS]
    n = rows * cols
    p = state[TO_MOVE]
    src = move // n
    dst = move - src * n
    if state[HEADER + dst] != EMPTY:  # a capture (legal moves never land on an own piece)
        state[COUNT0 + 1 - p] -= 1
    state[HEADER + dst] = P0 + p
    state[HEADER + src] = EMPTY
    state[PLY] += 1
    state[TO_MOVE] = 1 - p  # flipped even when the game ends: the loser is "to move"
    goal = 0 if p == 0 else rows - 1
    if dst // cols == goal or state[COUNT0 + 1 - p] == 0:
        state[WINNER] = p
        return
    if not pawn_has_move(state, 1 - p, knight):
        state[WINNER] = p


@njit(cache=True)
def pawn_max_moves(state):
    """Upper bound on the moves left: pawns only move forward (Knightthrough's at least one
    row a move), so each of the N cells' pieces makes at most ROWS - 1 moves."""
    rows, cols = state[ROWS], state[COLS]
    return rows * cols * (rows - 1)


@njit(cache=True)
def legal_moves(state, out):
    return pawn_moves(state, out, False)


@njit(cache=True, inline="always")
def random_move(state, rng, buf):
    return pawn_random_move(state, rng, buf, False)


@njit(cache=True)
def has_move(state, player):
    return pawn_has_move(state, player, False)


@njit(cache=True)
def play(state, move):
    pawn_play(state, move, False)


max_moves = pawn_max_moves


def parsed(state: np.ndarray, ply_given: bool) -> None:
    """The piece counts of a position read from text (its PLY stays 0 unless the text says)."""
    board = state[HEADER : HEADER + int(state[ROWS]) * int(state[COLS])]
    state[COUNT0] = int((board == P0).sum())
    state[COUNT0 + 1] = int((board == P0 + 1).sum())


def move_name(state: np.ndarray, move: int) -> str:
    """``e2e3``: the from and to squares."""
    rows, cols = int(state[ROWS]), int(state[COLS])
    n = rows * cols
    return square_name(rows, cols, move // n) + square_name(rows, cols, move % n)


def parse_move(state: np.ndarray, text: str) -> int:
    rows, cols = int(state[ROWS]), int(state[COLS])
    m = re.fullmatch(r"([a-s]\d+)([a-s]\d+)", text)
    if m is None:
        raise ValueError(f"bad move {text!r}: expected from and to squares, e.g. 'e2e3'")
    return parse_square(rows, cols, m[1]) * rows * cols + parse_square(rows, cols, m[2])


def rule_winner(state: np.ndarray, knight: bool = False) -> int:
    """The rule winner of a position read from text (-1: the game goes on); Python-level.

    Raises ValueError for a position no game can reach (both players on their goal rows).
    """
    rows, cols = int(state[ROWS]), int(state[COLS])
    cells = state[HEADER : HEADER + rows * cols].reshape(rows, cols)
    on_goal = [bool((cells[0] == P0).any()), bool((cells[rows - 1] == P0 + 1).any())]
    if all(on_goal):
        raise ValueError("both players have a piece on their goal row")
    for p in (0, 1):
        if on_goal[p] or state[COUNT0 + 1 - p] == 0:
            return p
    p = int(state[TO_MOVE])
    if not pawn_has_move(state, p, knight):
        return 1 - p
    return -1
